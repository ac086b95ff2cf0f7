/* tracer-analyze report: draws the page from the JSON in #tracer-data.
 * No network: everything is in this file. Keys: docs/tracer-analyze.md
 * (summary --json, top --json, critical-path --json, idle --json, export
 * jsonl). Plain ES2017, no libraries. */
"use strict";
(function () {
	var errors = [];
	window.addEventListener("error", function (e) {
		errors.push(String(e.message));
		document.body.setAttribute("data-errors", errors.join("\n"));
	});
	document.addEventListener("securitypolicyviolation", function (e) {
		errors.push("blocked: " + e.blockedURI);
		document.body.setAttribute("data-errors", errors.join("\n"));
	});

	var T0 = performance.now(), marks = [];
	function mark(what) { marks.push(what + " " + Math.round(performance.now() - T0)); }
	/* #tracer-data: [u32 LE J][J bytes of JSON][zeros to a multiple of 8][binary
	 * part], gzip-compressed, in base64 (docs/plots-and-bundles.md, Data),
	 * unpacked by the browser's own DecompressionStream; resolves to
	 * {json: the data object, bin: the binary part (an ArrayBuffer), base: its
	 * offset there} */
	function unpack() {
		if (typeof DecompressionStream !== "function")
			return Promise.reject(new Error("this browser cannot unpack the report's data (no DecompressionStream: " +
				"Chrome or Edge 80, Firefox 113, Safari 16.4 or newer)"));
		var b64 = document.getElementById("tracer-data").textContent.trim(), u;
		if (Uint8Array.fromBase64) u = Uint8Array.fromBase64(b64);
		else {
			var bin = atob(b64);
			u = new Uint8Array(bin.length);
			for (var i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
		}
		mark("base64");
		/* the stream's chunks read directly and joined once: 3-4x faster
		 * than Response(blob.stream().pipeThrough(...)) at 30 MB */
		var ds = new DecompressionStream("gzip"), w = ds.writable.getWriter(), rd = ds.readable.getReader();
		var parts = [], n = 0;
		w.write(u).catch(function () {}); /* a fault shows in the reader */
		w.close().catch(function () {});
		function more(r) {
			if (r.done) {
				var all = new Uint8Array(n), o = 0;
				for (var j = 0; j < parts.length; j++) { all.set(parts[j], o); o += parts[j].length; }
				var len = n >= 4 ? new DataView(all.buffer).getUint32(0, true) : -1;
				if (len < 0 || 4 + len > n) throw new Error("the report's data is damaged (" + n + " bytes)");
				mark("unpack");
				var json = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + len)));
				return {json: json, bin: all.buffer, base: (4 + len + 7) & ~7};
			}
			parts.push(r.value);
			n += r.value.length;
			return rd.read().then(more);
		}
		return rd.read().then(more);
	}
	unpack().then(function (data) {
		main(data.json, data);
	}).catch(function (e) {
		errors.push(String(e && e.message || e));
		document.body.setAttribute("data-errors", errors.join("\n"));
		var ns = document.getElementById("noscript");
		if (ns) ns.textContent = "This report could not be drawn: " + (e && e.message || e);
	});

	/* the page, from the data: the rest of this file */
	function main(D, data) {
	mark("parse");
	/* processes: one column per key (docs/plots-and-bundles.md, Data), most
	 * of them typed arrays over the binary part; a process is an object of
	 * one field, its row, whose keys are getters on the columns (200,000 of
	 * them are made in a tenth of the time of objects holding every key) */
	function procRows(pc) {
		var n = pc.count, out = new Array(n), B = data.base, buf = data.bin;
		var arrays = {u8: Uint8Array, i8: Int8Array, u16: Uint16Array, i16: Int16Array,
			u32: Uint32Array, i32: Int32Array, f64: Float64Array};
		function Proc(i) { this.i = i; }
		function def(k, get) { Object.defineProperty(Proc.prototype, k, {get: get}); }
		function type(t) {
			if (!arrays[t]) throw new Error("the report's data has an array of unknown type '" + t + "'");
			return arrays[t];
		}
		/* array NAME of column c (len elements, default n): a view of the
		 * data, or its running sums: with c.delta from NAME_first in an array
		 * of type NAME_values, lengths (sums) from 0 in a Uint32Array */
		function array(c, name, len, sums) {
			len = len === undefined ? n : len;
			var v = new (type(c[name + "_type"]))(buf, B + c[name], len);
			if (!sums && !c.delta) return v;
			var a = new (sums ? Uint32Array : type(c[name + "_values"]))(len), x = sums ? 0 : c[name + "_first"];
			for (var j = 0; j < len; j++) a[j] = x += v[j];
			return a;
		}
		/* the getter of key k of column c (null where its null flag is set);
		 * one closure a type, no call inside: a call shared by the columns'
		 * getters would be megamorphic (10x slower at 200,000 rows) */
		function column(k, c) {
			var nul = c.nulls !== undefined ? new Uint8Array(buf, B + c.nulls, n) : null;
			if (c.type === "json") { var jv = c.values; def(k, function () { return jv[this.i]; }); }
			else if (c.type === "index") {
				var ix = array(c, "index"), vv = c.values;
				if (k === "shared") Object.keys(vv[0] || {}).forEach(function (s) { def(s, function () { return vv[ix[this.i]][s]; }); });
				else def(k, function () { return vv[ix[this.i]]; });
			} else if (c.type === "num") {
				/* m / 10^D: the correctly rounded value of export's decimal, as
				 * JSON.parse; the array made on the column's first use (most
				 * are not used before the table is shown) */
				var a = null, sc = Number("1e" + c.decimals), num = function () { return (a = array(c, "offset")); };
				type(c.offset_type);
				def(k, nul ? function () { return nul[this.i] ? null : (a || num())[this.i] / sc; } : function () { return (a || num())[this.i] / sc; });
			} else if (c.type === "id") {
				var pid = null, ns = null, ids = function () { ns = array(c, "ns"); return (pid = array(c, "pid")); };
				type(c.pid_type); type(c.ns_type);
				def(k, function () { return nul && nul[this.i] ? null : (pid || ids())[this.i] + "." + ns[this.i]; });
			} else if (c.type === "lists") {
				/* one text; string j is [se[j - 1], se[j]) of it (UTF-16 units),
				 * list x the strings [le[x - 1], le[x]): the ends summed from
				 * the lengths */
				var li = array(c, "index"), le = array(c, "list_lengths", c.lists, true), se = array(c, "string_lengths", c.strings, true);
				var text = new TextDecoder("utf-8", {ignoreBOM: true}).decode(new Uint8Array(buf, B + c.text, c.text_bytes));
				def(k, function () {
					if (nul && nul[this.i]) return null;
					var x = li[this.i], f = x ? le[x - 1] : 0, e = le[x], r = new Array(e - f);
					for (var j = f; j < e; j++) r[j - f] = text.slice(j ? se[j - 1] : 0, se[j]);
					return r;
				});
			} else throw new Error("the report's data has a column of unknown type '" + c.type + "'");
		}
		/* the rows first, while the heap is small (fewer of them copied by
		 * the collections the columns' allocations bring) */
		/*HOSTS{*/
		/* a run over several hosts (report_version 5): start_s and end_s
		 * on the run's axis (export's, from the host's first event, plus
		 * its offset_s in D.hosts, found by trace_uuid); hi: that index */
		if (D.multi_host) {
			var hix = null, def0 = def;
			var hostOf = function (i) {
				if (!hix) {
					var tu = pc.columns.trace_uuid, ix = array(tu, "index"), byU = {};
					D.hosts.forEach(function (h, k) { byU[h.trace_uuid] = k; });
					var m = tu.values.map(function (u) { return byU[u] === undefined ? 0 : byU[u]; });
					hix = new Int32Array(n);
					for (var j = 0; j < n; j++) hix[j] = m[ix[j]];
				}
				return hix[i];
			};
			def = function (k, get) {
				if (k === "start_s" || k === "end_s") {
					var g = get;
					get = function () { var v = g.call(this); return v === null ? null : v + D.hosts[hostOf(this.i)].offset_s; };
				}
				def0(k, get);
			};
			def0("hi", function () { return hostOf(this.i); });
		}
		/*}HOSTS*/
		for (var i = 0; i < n; i++) out[i] = new Proc(i);
		Object.keys(pc.columns).forEach(function (k) { column(k, pc.columns[k]); });
		return out;
	}
	var S = D.summary, P = procRows(D.processes), C = D.colors;
	/*HOSTS{*/
	var HM = D.multi_host ? hostsRun() : null;
	if (HM) S = HM.S;
	/* over several hosts: the run (summary --json's "run", each host's own
	 * summary in "hosts") as the one summary the page's header, cards and
	 * charts read; HM.R the run, HM.H the hosts' own summaries */
	/* "3 hosts", or "4 traces on 3 hosts" (summary's run: hosts are distinct hostnames) */
	function hostsSay(R) {
		return (R.traces && R.traces !== R.hosts ? R.traces + " traces on " : "") + R.hosts + " host" + (R.hosts === 1 ? "" : "s");
	}
	function hostsRun() {
		var R = D.summary.run, H = D.summary.hosts, sum = function (f) {
			return H.reduce(function (a, h) { return a + (f(h) || 0); }, 0);
		};
		/* two traces of one host (one hostname) are one host: named once,
		 * its CPUs and memory counted once */
		var seen = {}, one = H.map(function (h, k) {
			var n = (R.per_host[k] || {}).hostname;
			if (!n) return true;
			if (seen[n]) return false;
			return (seen[n] = true);
		});
		var names = D.hosts.filter(function (h, k) { return one[k]; }).map(function (h) { return h.hostname; }), kern = {};
		var hsum = function (f) {
			return H.reduce(function (a, h, k) { return a + (one[k] ? f(h) || 0 : 0); }, 0);
		};
		H.forEach(function (h) { kern[(h.host || {}).kernel] = 1; });
		var cpus = hsum(function (h) { return (h.host || {}).cpus; }), span = R.makespan_s || 0;
		var any = function (k) { return H.some(function (h) { return h[k]; }); };
		var cp = D.critical_path || {};
		return {R: R, H: H, S: {
			recorder: {traced: "run over " + hostsSay(R) + " (" + names.join(", ") + ")"},
			host: {hostname: names.join(", "), kernel: Object.keys(kern).length === 1 ? Object.keys(kern)[0] : null,
				cpus: cpus, memory_kib: hsum(function (h) { return (h.host || {}).memory_kib; })},
			start: R.start, end: R.end, duration_s: span,
			counts: {processes: R.processes, execs: R.execs, nonzero_exits: R.nonzero_exits, signaled: R.signaled,
				running: sum(function (h) { return (h.counts || {}).running; })},
			cpu: {cpu_s: R.cpu_s, utilisation: cpus && span ? R.cpu_s / (cpus * span) : 0, basis: "every host's CPUs over the run"},
			drops: {total: sum(function (h) { return (h.drops || {}).total; })},
			corrupt_blocks: sum(function (h) { return h.corrupt_blocks; }),
			exit_lost: sum(function (h) { return h.exit_lost; }),
			incomplete: any("incomplete"), unfinished: any("unfinished"), live: any("live"), ring_wrapped: any("ring_wrapped"),
			overwritten_s: Math.max.apply(null, H.map(function (h) { return h.overwritten_s || 0; })),
			oom_kills: [].concat.apply([], H.map(function (h) { return h.oom_kills || []; })),
			critical_path: {makespan_s: cp.makespan_s, by_tool: cp.by_tool},
			file: D.hosts.map(function (h) { return h.trace; }).join("', '")}};
	}
	/* a column head first in table t (made by table()), cells from
	 * v(row index) */
	function addCol(t, head, v) {
		var th = el("th", "", head);
		t.querySelector("thead tr").insertBefore(th, t.querySelector("thead th"));
		t.querySelectorAll("tbody tr").forEach(function (tr, i) { tr.insertBefore(el("td", "", v(i)), tr.firstChild); });
	}
	/*}HOSTS*/
	mark("rows");
	var SIG = {1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
		7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
		13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS"};

	mark("helpers");
	/* ------------------------------------------------------------ helpers */
	function $(id) { return document.getElementById(id); }
	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined && text !== null) e.textContent = String(text);
		return e;
	}
	function dur(s) {
		if (s === null || s === undefined) return "";
		if (s === 0) return "0";
		if (s < 0.001) return (s * 1e6).toFixed(0) + " us";
		if (s < 1) return (s * 1e3).toFixed(1) + " ms";
		if (s < 60) return s.toFixed(2) + " s";
		var h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
		return (h ? h + "h" : "") + (h || m ? m + "m" : "") + r.toFixed(0) + "s";
	}
	function bytes(b) {
		if (b === null || b === undefined) return "";
		var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
		while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
		return (i ? b.toFixed(1) : b) + " " + u[i];
	}
	function num(n) { /* 1,234,567; by hand for integers: the first toLocaleString loads the locale's data (0.2 s) */
		if (n === null || n === undefined) return "";
		n = Number(n);
		if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
		return (n < 0 ? "-" : "") + String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
	}
	function color(tool) { return C.tools[tool] || C.other; }
	function swatch(tool) { var s = el("span", "sw"); s.style.background = color(tool); return s; }
	function cmdline(p) { return p.argv && p.argv.length ? p.argv.join(" ") : (p.exe || ""); }
	function cpu(p) { return (p.utime_s || 0) + (p.stime_s || 0); }
	function failed(p) { return (p.exit_code !== null && p.exit_code !== 0) || p.signal !== null; }
	function status(p) {
		if (p.signal !== null) return (SIG[p.signal] || "signal " + p.signal) + (p.core_dumped ? " (core)" : "");
		if (p.exit_code !== null) return "exit " + p.exit_code;
		return "running";
	}
	/* a process's peak RSS as tree says it: "-" unknown (null), a running
	 * one's up to its last sample (export peak_rss_sampled) */
	function rssText(p) {
		if (p.peak_rss_kib === null || p.peak_rss_kib === undefined) return "-";
		return bytes(p.peak_rss_kib * 1024) + (p.peak_rss_sampled ? " (to its last sample)" : "");
	}
	/* rows: array of arrays of cells (string or Node); numeric columns right-aligned */
	function table(heads, rows, numeric) {
		var t = el("table", "t"), tr = el("tr");
		heads.forEach(function (h, i) { tr.appendChild(el("th", numeric && numeric[i] ? "n" : "", h)); });
		var th = el("thead"); th.appendChild(tr); t.appendChild(th);
		var tb = el("tbody");
		rows.forEach(function (r) {
			var row = el("tr");
			r.forEach(function (c, i) {
				var td = el("td", numeric && numeric[i] ? "n" : "");
				if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
				row.appendChild(td);
			});
			tb.appendChild(row);
		});
		t.appendChild(tb);
		return t;
	}
	function toolCell(tool) { var s = el("span", "tool"); s.appendChild(swatch(tool)); s.appendChild(document.createTextNode(tool)); return s; }

	mark("header");
	/* ------------------------------------------------------------ header */
	var rec = S.recorder || {}, host = S.host || {}, cnt = S.counts || {}, drops = S.drops || {};
	var head = $("head");
	$("noscript").remove();
	head.querySelector("h1").textContent = "tracer report: " + (rec.traced || rec.command || "recording");
	document.title = "tracer: " + (rec.traced || rec.command || "report");
	var meta = el("p", "meta");
	[["host", host.hostname], ["kernel", host.kernel], ["CPUs", host.cpus], ["memory", bytes((host.memory_kib || 0) * 1024)],
	 ["start", S.start], ["end", S.end], ["duration", dur(S.duration_s)], ["recorder", rec.version],
	 ["mode", rec.mode], ["report by tracer-analyze", D.analyzer]].forEach(function (kv) {
		if (kv[1] === null || kv[1] === undefined) return;
		meta.appendChild(document.createTextNode(kv[0] + " "));
		meta.appendChild(el("b", "", kv[1]));
		meta.appendChild(document.createTextNode("   "));
	});
	head.appendChild(meta);

	var lost = [];
	if (drops.total) lost.push(num(drops.total) + " events dropped by the recorder");
	if (S.corrupt_blocks) lost.push(num(S.corrupt_blocks) + " damaged blocks skipped");
	if (S.exit_lost) lost.push(num(S.exit_lost) + " processes whose exit was lost");
	if (S.unfinished) lost.push("the recording did not finish (no footer)");
	if (S.ring_wrapped) lost.push("ring buffer wrapped: the oldest " + dur(S.overwritten_s || 0) + " were overwritten");
	if (S.live) lost.push("the trace was still being written");
	if (rec.stop_reason) lost.push("stopped: " + rec.stop_reason);
	var banner = $("banner");
	banner.hidden = false;
	if (S.incomplete || lost.length) {
		banner.textContent = "INCOMPLETE: " + (lost.length ? lost.join("; ") : "the trace lost data") +
			". Counts below cover what was recorded.";
	} else {
		banner.className = "ok";
		banner.textContent = "Complete: no events dropped, no damaged blocks.";
	}

	var toc = $("toc");
	document.querySelectorAll("main > section").forEach(function (s) {
		var a = el("a", "", s.querySelector("h2").textContent);
		a.href = "#" + s.id;
		a.setAttribute("data-for", s.id);
		toc.appendChild(a);
	});

	mark("summary");
	/* ------------------------------------------------------------ summary */
	var cards = $("cards");
	function card(id, value, label, raw) {
		var c = el("div", "card"); c.id = "card-" + id;
		var v = el("div", "v", value); if (raw !== undefined) v.setAttribute("data-value", raw);
		c.appendChild(v); c.appendChild(el("div", "k", label)); cards.appendChild(c);
	}
	var nfail = (cnt.nonzero_exits || 0) + (cnt.signaled || 0);
	card("processes", num(cnt.processes), "processes", cnt.processes);
	card("execs", num(cnt.execs), "execs", cnt.execs);
	card("failures", num(nfail), "failed (non-zero exit or signal)", nfail);
	card("duration", dur(S.duration_s), "duration", S.duration_s);
	if (S.cpu) {
		card("cpu", dur(S.cpu.cpu_s), "CPU time (user + system)", S.cpu.cpu_s);
		card("util", (100 * (S.cpu.utilisation || 0)).toFixed(1) + " %", "utilisation of " + (host.cpus || "?") + " CPUs (" + S.cpu.basis + ")", S.cpu.utilisation);
	}
	if (S.procs_memory) card("rss", bytes(S.procs_memory.peak_rss_kib * 1024), "peak RSS, all processes", S.procs_memory.peak_rss_kib);
	if (cnt.running) card("running", num(cnt.running), "still running at the end", cnt.running);
	if (S.oom_kills && S.oom_kills.length) card("oom", num(S.oom_kills.length), "OOM kills", S.oom_kills.length);

	/*HOSTS{*/
	if (HM) {
		var hsec = $("summary"), hp = el("p", "meta", "Clocks: " + (HM.R.clock || {}).note);
		hp.id = "hosts-clock";
		hsec.appendChild(hp);
		var ht = table(["host", "trace", "processes", "CPU", "util (own trace)", "start", "active", "run%", "CPUs"],
			HM.R.per_host.map(function (h, k) {
				return [h.hostname, h.trace, num(h.processes), dur(h.cpu_s), (100 * (h.utilization || 0)).toFixed(1) + " %",
					"+" + dur(h.start_offset_s), (100 * (h.active_share || 0)).toFixed(1) + " %",
					(100 * (h.run_utilization || 0)).toFixed(1) + " %", (HM.H[k].host || {}).cpus];
			}), [0, 0, 1, 1, 1, 1, 1, 1, 1]);
		ht.id = "hosts-table";
		hsec.appendChild(ht);
	}
	/*}HOSTS*/
	mark("tasks");
	/* ------------------------------------------------------------ tasks (issue 17: grouping by task/rule) */
	/* report --by KEY: "tasks" = export --tasks jsonl rows, "task_groups" =
	 * top --json --by KEY (docs/tracer-analyze.md "report") */
	var tasks = D.tasks, kb = $("tasks-body");
	if (D.by && tasks) {
		$("tasks").hidden = false;
		var nfail = tasks.filter(function (t) { return t.status === "FAILED"; }).length;
		var tcount = el("p", "", tasks.length + " task" + (tasks.length === 1 ? "" : "s") + ", " + nfail +
			" failed (the job's root exited non-zero or was signalled, or a member was OOM-killed)" +
			(tasks.length ? "" : ": no workflow manager, --task or child task found (docs: Tasks)") + ".");
		tcount.id = "tasks-count"; tcount.setAttribute("data-value", tasks.length);
		kb.appendChild(tcount);
		var grp = D.task_groups || [];
		if (grp.length) {
			kb.appendChild(el("h3", "", "By " + D.by));
			kb.appendChild(table([D.by, "tasks", "wall (tasks)", "CPU", "largest combined peak", "failed tasks", "failed members", "flags"],
				grp.map(function (g) {
					return [g.tool, num(g.tasks), dur(g.task_wall_s), dur(g.cpu_s), g.task_peak_rss_kib === null ? "-" : bytes(g.task_peak_rss_kib * 1024),
						num(g.failed_tasks), num(g.member_failures), g.flags.join(", ")];
				}), [0, 1, 1, 1, 1, 1, 1, 0]));
		}
		if (tasks.length) {
			var TMAX = 2000, tt0 = table(["task", "rule / name", "status", "wall", "CPU", "combined peak", "members"],
				tasks.slice(0, TMAX).map(function (t) {
					var st = t.status + (t.exit !== null && t.exit !== 0 ? " (exit " + t.exit + ")" : "") +
						(t.signal !== null ? " (" + (SIG[t.signal] || "signal " + t.signal) + ")" : "");
					return [t.key, t.name, t.status === "FAILED" ? el("span", "bad", st) : st, dur(t.wall_s), dur(t.cpu_s),
						t.peak_rss !== null ? bytes(t.peak_rss) : "", num(t.procs)];
				}), [0, 0, 0, 1, 1, 1, 1]);
			tt0.id = "tasks-table";
			kb.appendChild(el("h3", "", "Each task"));
			kb.appendChild(tt0);
			if (tasks.length > TMAX) kb.appendChild(el("p", "hint", (tasks.length - TMAX) + " more tasks (tracer-analyze export --tasks)"));
		}
	} else {
		document.querySelector('#toc a[data-for="tasks"]').remove();
	}

	/*HOSTS{*/
	if (HM && D.by && tasks) { /* the host of each group (top --by) and task (export --tasks) */
		var ktabs = kb.querySelectorAll("table"), kti = 0, kg = D.task_groups || [];
		if (kg.length) addCol(ktabs[kti++], "host", function (i) { return kg[i].host; });
		if (tasks.length) addCol(ktabs[kti], "host", function (i) { return tasks[i].host; });
	}
	/*}HOSTS*/
	mark("top");
	/* ------------------------------------------------------------ top tools */
	var top = D.top || [];
	/* storage bytes (top --json read_bytes/write_bytes), not top's text
	 * RCHAR/WCHAR (bytes through read/write, pipes and cache included) */
	var tt = table(["tool", "processes", "wall", "CPU", "max cores", "peak RSS", "storage read", "storage written", "on critical path", "flags"],
		top.slice(0, 50).map(function (g) {
			return [toolCell(g.tool), num(g.count), dur(g.wall_s), dur(g.cpu_s), g.max_cores.toFixed(2), g.peak_rss_kib === null ? "-" : bytes(g.peak_rss_kib * 1024),
				bytes(g.read_bytes), bytes(g.write_bytes), dur(g.critical_s), g.flags.join(", ")];
		}), [0, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
	tt.id = "tools-table";
	/*HOSTS{*/
	if (HM) addCol(tt, "host", function (i) { return top[i].host; });
	/*}HOSTS*/
	$("tools-body").appendChild(tt);
	$("tools-body").appendChild(el("p", "hint", "storage read and written: bytes that reached storage (read_bytes, write_bytes), " +
		"not tracer-analyze top's RCHAR and WCHAR (bytes through read and write calls, pipes and the page cache included)."));
	if (top.length > 50) $("tools-body").appendChild(el("p", "hint", (top.length - 50) + " more tools (tracer-analyze top -n 0)"));

	mark("critical");
	/* ------------------------------------------------------------ critical path */
	var cp = S.critical_path || {}, cpb = $("critical-body");
	var cpl = el("p", "", "Makespan " + dur(cp.makespan_s) + ". Time on the critical path by tool: ");
	var cpt = el("span"); cpt.id = "critical-tools";
	cpt.textContent = (cp.by_tool || []).map(function (t) { return t.tool + " " + dur(t.seconds); }).join(", ");
	cpl.appendChild(cpt); cpb.appendChild(cpl);
	var chain = (D.critical_path && D.critical_path.path) || [];
	/*HOSTS{*/
	if (HM) chain = [].concat.apply([], (D.critical_path.parts || []).map(function (pt) {
		return pt.path.map(function (c) { return Object.assign({host: pt.host}, c); });
	}));
	/*}HOSTS*/
	var byIdMap = null;
	function byId(id) { /* the process of an id, or undefined; the index is built on first use */
		if (!byIdMap) { byIdMap = new Map(); P.forEach(function (p) { byIdMap.set(p.id, p); }); }
		return byIdMap.get(id);
	}
	var chainP = {}; /* the chain's processes, in one pass (the tree's index waits) */
	var chainPid = {}; /* by pid first: an id is made (a string) only for those */
	chain.slice(0, 300).forEach(function (c) { chainP[c.id] = null; chainPid[c.pid] = 1; });
	P.forEach(function (p) { if (chainPid[p.pid] && chainP[p.id] === null) chainP[p.id] = p; });
	var det = el("details"), sum = el("summary", "", "The chain: " + num(chain.length) + " processes, first to last" +
		(chain.length > 300 ? " (the first 300; tracer-analyze critical-path lists all)" : ""));
	det.appendChild(sum);
	det.appendChild(table(["pid", "tool", "start", "end", "on path", "command"], chain.slice(0, 300).map(function (c) {
		var p = chainP[c.id];
		return [c.pid, toolCell(c.tool), dur(c.start_s), dur(c.end_s), dur(c.critical_s), p ? cmdline(p) : ""];
	}), [1, 0, 1, 1, 1, 0]));
	cpb.appendChild(det);
	/*HOSTS{*/
	if (HM) {
		var X = D.critical_path, parts = X.parts || [];
		addCol(det.querySelector("table"), "host", function (i) { return chain[i].host; });
		var xp = el("p", "", "Over " + hostsSay(HM.R) + ", each host's own critical path, chained " +
			(X.order === "time_adjacency" ? "by time adjacency" : X.order) +
			" (a trace holds no dependency between hosts): before a host's part comes the part that ended last at or before it started. " +
			"Times from the first part's start (" + X.start + "). Clocks: " + (X.clock || {}).note + ". " +
			"Makespan " + dur(X.makespan_s) + " = " + dur(X.before_first_s) + " before the first part + " +
			dur(parts.reduce(function (a, q) { return a + q.makespan_s; }, 0)) + " in " + parts.length + " parts + " +
			dur(X.wait_s) + " waiting between hosts." + ((X.off_path || []).length ? " Off the path: " + X.off_path.join(", ") + "." : ""));
		xp.id = "critical-hosts";
		var xt = table(["host", "trace", "start", "end", "part", "wait before", "root"], parts.map(function (q) {
			return [q.host, q.trace, dur(q.start_s), dur(q.end_s), dur(q.makespan_s), dur(q.wait_s),
				q.root_pid + " " + q.root + (q.incomplete ? " (incomplete)" : "")];
		}), [0, 0, 1, 1, 1, 1, 0]);
		xt.id = "critical-parts";
		cpb.insertBefore(xt, cpb.firstChild);
		cpb.insertBefore(xp, xt);
	}
	/*}HOSTS*/

	mark("failures");
	/* ------------------------------------------------------------ failures */
	var fb = $("failures-body"), fl = P.filter(failed);
	if (!fl.length) fb.appendChild(el("p", "", "No process exited non-zero or was killed by a signal."));
	else {
		fb.appendChild(table(["pid", "tool", "status", "sent by", "OOM", "end", "command"], fl.slice(0, 500).map(function (p) {
			var k = p.killed_by, by = "";
			if (k) by = k.kernel ? "kernel (" + (k.cause || "") + ")" : (k.comm || "?") + " pid " + k.pid;
			return [p.pid, toolCell(p.tool), el("span", "bad", status(p)), by, p.oom_killed ? "OOM killed" : "", dur(p.end_s), cmdline(p)];
		}), [1, 0, 0, 0, 0, 1, 0]));
		if (fl.length > 500) fb.appendChild(el("p", "hint", (fl.length - 500) + " more in the process table (status: failed)"));
	}
	(S.oom_kills || []).forEach(function (o) { fb.appendChild(el("p", "bad", "OOM kill: " + JSON.stringify(o))); });
	/*HOSTS{*/
	if (HM && fl.length) addCol(fb.querySelector("table"), "host", function (i) { return fl[i].host; });
	/*}HOSTS*/

	mark("idle");
	/* ------------------------------------------------------------ idle */
	var id = D.idle || {}, ib = $("idle-body"), st = id.stretches || [];
	var itxt = " of at least " + dur(id.min_duration_s) + " where under " + id.threshold_pct + "% of the " + id.cpus +
		" CPUs were busy (" + id.basis + " basis) in the " + dur(id.span_s) + " looked at (" +
		(id.basis === "host" ? "first to last host sample" : "the trace's first to last event") + ")";
	ib.appendChild(el("p", "", st.length ? st.length + " stretch" + (st.length === 1 ? "" : "es") + itxt + ": " +
		dur(id.idle_s) + " idle in all (" + (id.span_s > 0 ? (100 * id.idle_s / id.span_s).toFixed(1) : "0") + "%)." :
		"No stretch" + itxt + "."));
	if (st.length) ib.appendChild(table(["from", "to", "length", "busy cores", "who ran"], st.map(function (s) {
		return [dur(s.start_s), dur(s.end_s), dur(s.duration_s), s.mean_cores !== undefined ? Number(s.mean_cores).toFixed(2) : "",
			(s.processes || []).map(function (q) { return (q.tool || q.comm || "") + " " + q.pid; }).join(", ")];
	}), [1, 1, 1, 1, 0]));

	/*HOSTS{*/
	if (HM) {
		var IR = D.idle.run;
		ib.textContent = "";
		ib.appendChild(el("p", "", "Each host's idle stretches (at least " + dur(IR.min_duration_s) + " under " + IR.threshold_pct +
			"% of its CPUs busy, as idle of its trace alone finds them) as a share of the run's " + dur(IR.span_s) +
			"; the run's time outside a host's trace was not recorded there: it is given apart, never counted as idle."));
		var it = table(["host", "trace", "basis", "from", "idle", "idle share", "stretches", "outside its trace"],
			IR.per_host.map(function (h, k) {
				return [h.hostname, h.trace, h.basis, "+" + dur(h.start_offset_s), dur(h.idle_s), (100 * h.idle_share).toFixed(1) + " %",
					num(((D.idle.hosts[k] || {}).stretches || []).length), (100 * h.outside_share).toFixed(1) + " %"];
			}), [0, 0, 0, 1, 1, 1, 1, 1]);
		it.id = "idle-hosts";
		ib.appendChild(it);
	}
	/*}HOSTS*/
	mark("timeline");
	/* ------------------------------------------------------------ timeline */
	var T1 = Math.max(S.duration_s || 0, 1e-3);
	P.forEach(function (p) { if (p.end_s !== null && p.end_s > T1) T1 = p.end_s; });
	function pend(p) { return p.end_s === null ? T1 : p.end_s; }
	var rowsBy = {}, rows = [], gH = 60;
	function layout() { /* the rows and lanes: after data-ready (draw, below) */
	P.slice().sort(function (a, b) { return a.start_s - b.start_s; }).forEach(function (p) {
		var r = rowsBy[p.tool];
		if (!r) { r = rowsBy[p.tool] = {tool: p.tool, lanes: [], laneEnd: []}; rows.push(r); }
		var l = 0, e = r.laneEnd, best = 0;
		for (l = 0; l < e.length && e[l] > p.start_s; l++) if (e[l] < e[best]) best = l;
		if (l === e.length && l >= 6) l = best; /* 6 lanes a row; a 7th overlap shares the first to free */
		if (l === e.length) { e.push(0); r.lanes.push([]); }
		e[l] = Math.max(e[l], pend(p));
		r.lanes[l].push(p);
	});
	var y = AX;
	rows.forEach(function (r) { r.y = y; r.h = r.lanes.length * LH; y += r.h + GAP; });
	gH = Math.max(y + 4, 60);
	gc.style.height = gH + "px";
	} /* layout */
	/*HOSTS{*/
	/* over several hosts: one band per host in D.hosts' order, a heading
	 * then its rows by tool (as one trace's), on the run's axis */
	var HB = 16;
	if (HM) layout = function () {
		var by = {};
		HM.bands = D.hosts.map(function (h) { return {h: h, rows: [], n: 0}; });
		P.slice().sort(function (a, b) { return a.start_s - b.start_s; }).forEach(function (p) {
			var b = HM.bands[p.hi], k = p.hi + "\u0000" + p.tool, r = by[k];
			if (!r) { r = by[k] = {tool: p.tool, lanes: [], laneEnd: []}; b.rows.push(r); }
			var l = 0, e = r.laneEnd, best = 0;
			for (l = 0; l < e.length && e[l] > p.start_s; l++) if (e[l] < e[best]) best = l;
			if (l === e.length && l >= 6) l = best;
			if (l === e.length) { e.push(0); r.lanes.push([]); }
			e[l] = Math.max(e[l], pend(p));
			r.lanes[l].push(p);
			b.n++;
		});
		var y = AX;
		HM.bands.forEach(function (b) {
			b.y = y; y += HB;
			b.rows.forEach(function (r) { r.y = y; r.h = r.lanes.length * LH; y += r.h + GAP; rows.push(r); });
		});
		gH = Math.max(y + 4, 60);
		gc.style.height = gH + "px";
	};
	if (HM) document.querySelector("#timeline .hint").textContent = "One band per host (its rows by tool), on the run's time axis from its " +
		"first event on any host; hosts aligned by wall clock (" + (HM.R.clock || {}).note + "). Wheel or +/\u2212: zoom, drag: pan, hover: the process, double-click: reset.";
	/*}HOSTS*/
	var LH = 9, GAP = 6, LW = 150, AX = 22;
	var gc = $("gantt"), gx = gc.getContext("2d"), tip = $("tip");
	var v0 = 0, v1 = T1;
	function setup(c, h) {
		var r = window.devicePixelRatio || 1, w = c.clientWidth || 1200;
		c.width = Math.round(w * r); c.height = Math.round(h * r);
		var x = c.getContext("2d"); x.setTransform(r, 0, 0, r, 0, 0);
		return w;
	}
	function ticks(x, w, left, a, b, h) {
		var span = b - a, step = Math.pow(10, Math.floor(Math.log10(span / 6)));
		if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;
		x.fillStyle = "#5f6368"; x.strokeStyle = "#e4e4e4"; x.font = "11px sans-serif"; x.textAlign = "center";
		for (var t = Math.ceil(a / step) * step; t <= b; t += step) {
			var px = left + (t - a) / span * (w - left);
			x.beginPath(); x.moveTo(px, 14); x.lineTo(px, h); x.stroke();
			x.fillText(dur(t).replace(".00 s", " s"), px, 11);
		}
		x.textAlign = "left";
	}
	function drawGantt() {
		var w = setup(gc, gH), k = (w - LW) / (v1 - v0);
		gx.clearRect(0, 0, w, gH);
		ticks(gx, w, LW, v0, v1, gH);
		gx.font = "12px sans-serif";
		rows.forEach(function (r) {
			gx.fillStyle = "#1d1d1f";
			gx.fillText(r.tool.length > 20 ? r.tool.slice(0, 19) + "\u2026" : r.tool, 4, r.y + Math.min(r.h, 12));
			var col = color(r.tool);
			r.lanes.forEach(function (lane, li) {
				/* bars narrower than 2 px that touch are drawn as one box (they
				 * cannot be told apart), as in tracer-analyze plot */
				var ly = r.y + li * LH, rs = -1, re = -1, fails = [];
				gx.fillStyle = col;
				for (var j = 0; j < lane.length; j++) {
					var p = lane[j], e = pend(p);
					if (e < v0 || p.start_s > v1) continue;
					var x0 = LW + Math.max(0, (p.start_s - v0) * k), x1 = LW + Math.min(w - LW, (e - v0) * k);
					if (failed(p)) fails.push(x1);
					if (x1 - x0 < 2) {
						if (rs >= 0 && x0 <= re + 1) { re = Math.max(re, x0 + 1, x1); continue; }
						if (rs >= 0) gx.fillRect(rs, ly, re - rs, LH - 1);
						rs = x0; re = Math.max(x0 + 1, x1);
						continue;
					}
					gx.fillRect(x0, ly, x1 - x0 - (x1 - x0 > 3 ? 1 : 0), LH - 1);
				}
				if (rs >= 0) gx.fillRect(rs, ly, re - rs, LH - 1);
				gx.fillStyle = C.fail;
				fails.forEach(function (x) { gx.fillRect(Math.max(LW, x - 3), ly, 3, LH - 1); });
			});
		});
	}
	function hit(ev) {
		var b = gc.getBoundingClientRect(), mx = ev.clientX - b.left, my = ev.clientY - b.top;
		if (mx < LW) return null;
		var t = v0 + (mx - LW) / (b.width - LW) * (v1 - v0), slack = 3 * (v1 - v0) / (b.width - LW);
		for (var i = 0; i < rows.length; i++) {
			var r = rows[i];
			if (my < r.y || my >= r.y + r.h) continue;
			var lane = r.lanes[Math.floor((my - r.y) / LH)], best = null;
			if (!lane) return null;
			for (var j = 0; j < lane.length; j++) {
				var p = lane[j];
				if (p.start_s - slack <= t && pend(p) + slack >= t) { best = p; if (p.start_s <= t && pend(p) >= t) break; }
			}
			return best;
		}
		return null;
	}
	var drag = null;
	gc.addEventListener("mousemove", function (ev) {
		if (drag) {
			var b = gc.getBoundingClientRect(), d = (ev.clientX - drag.x) / (b.width - LW) * (drag.v1 - drag.v0);
			v0 = drag.v0 - d; v1 = drag.v1 - d; clampView(); drawGantt(); return;
		}
		var p = hit(ev);
		if (!p) { tip.hidden = true; return; }
		tip.hidden = false;
		tip.textContent = "pid " + p.pid + "  " + p.tool + "\n" + cmdline(p) + "\n" + status(p) +
			(p.killed_by ? " (sent by " + (p.killed_by.kernel ? "kernel" : p.killed_by.comm + " " + p.killed_by.pid) + ")" : "") +
			"\nstart " + dur(p.start_s) + ", wall " + dur(pend(p) - p.start_s) + ", CPU " + dur(cpu(p)) +
			"\npeak RSS " + rssText(p) + ", storage read " + bytes(p.read_bytes) + ", written " + bytes(p.write_bytes);
		var b2 = gc.getBoundingClientRect();
		tip.style.left = Math.min(ev.clientX - b2.left + 12, b2.width - 360) + "px";
		tip.style.top = (ev.clientY - b2.top + 14) + "px";
	});
	gc.addEventListener("mouseleave", function () { tip.hidden = true; drag = null; });
	/*HOSTS{*/
	if (HM) gc.addEventListener("mousemove", function (ev) { /* after the tip's own: its host first */
		var p = drag || tip.hidden ? null : hit(ev);
		if (p) tip.textContent = "host " + p.host + "  " + tip.textContent;
	});
	/*}HOSTS*/
	gc.addEventListener("mousedown", function (ev) { drag = {x: ev.clientX, v0: v0, v1: v1}; gc.style.cursor = "grabbing"; });
	window.addEventListener("mouseup", function () { drag = null; gc.style.cursor = "grab"; });
	function clampView() {
		var s = v1 - v0;
		if (s > T1) { v0 = 0; v1 = T1; return; }
		if (v0 < 0) { v0 = 0; v1 = s; }
		if (v1 > T1) { v1 = T1; v0 = T1 - s; }
	}
	function zoom(f, at) {
		var s = Math.max((v1 - v0) * f, 1e-6);
		v0 = at - (at - v0) * f; v1 = v0 + s; clampView(); drawGantt();
	}
	gc.addEventListener("wheel", function (ev) {
		ev.preventDefault();
		var b = gc.getBoundingClientRect(), at = v0 + Math.max(0, ev.clientX - b.left - LW) / (b.width - LW) * (v1 - v0);
		zoom(ev.deltaY < 0 ? 0.8 : 1.25, at);
	}, {passive: false});
	gc.addEventListener("dblclick", function () { v0 = 0; v1 = T1; drawGantt(); });
	/*HOSTS{*/
	if (HM) {
		var drawRows = drawGantt;
		drawGantt = function () {
			drawRows();
			var w = gc.clientWidth || 1200;
			gx.font = "bold 12px sans-serif";
			HM.bands.forEach(function (b, k) {
				gx.fillStyle = "#888888";
				if (k) gx.fillRect(0, b.y - 3, w, 1);
				gx.fillStyle = "#1d1d1f";
				gx.fillText("host " + b.h.hostname + " (" + b.h.trace + "), +" + dur(b.h.offset_s) + ", " + num(b.n) + " processes", 4, b.y + 11);
			});
			gx.font = "12px sans-serif";
		};
	}
	/*}HOSTS*/
	gc.tabIndex = 0;
	gc.addEventListener("keydown", function (ev) {
		if (ev.key === "+" || ev.key === "=") zoom(0.8, (v0 + v1) / 2);
		if (ev.key === "-") zoom(1.25, (v0 + v1) / 2);
	});
	var lg = $("legend");
	Object.keys(C.tools).forEach(function (t) { var s = el("span"); s.appendChild(swatch(t)); s.appendChild(document.createTextNode(t)); lg.appendChild(s); });
	var so = el("span"); so.appendChild(swatch("\u0000other")); so.appendChild(document.createTextNode("other tools")); lg.appendChild(so);
	var sf = el("span"), sfw = el("span", "sw"); sfw.style.background = C.fail; sf.appendChild(sfw); sf.appendChild(document.createTextNode("failed (bar end)")); lg.appendChild(sf);

	mark("cpu");
	/* ------------------------------------------------------------ cpu / mem / io over time */
	var NB = 400, bw = T1 / NB, series = Object.keys(C.tools).concat(["\u0000other"]);
	var sidx = {};
	series.forEach(function (t, i) { sidx[t] = i; });
	function zeros() { return series.map(function () { return new Float64Array(NB); }); }
	var cpuB = zeros(), memB = zeros(), rdB = new Float64Array(NB), wrB = new Float64Array(NB), nsampled = 0, nrssUnknown = 0;
	function spread(arr, a, b, amount) { /* amount spread evenly over [a, b) */
		if (!(amount > 0)) return;
		if (b <= a) { arr[Math.min(NB - 1, Math.max(0, Math.floor(a / bw)))] += amount; return; }
		var i0 = Math.max(0, Math.floor(a / bw)), i1 = Math.min(NB - 1, Math.floor(b / bw)), rate = amount / (b - a);
		for (var i = i0; i <= i1; i++) {
			var lo = Math.max(a, i * bw), hi = Math.min(b, (i + 1) * bw);
			if (hi > lo) arr[i] += rate * (hi - lo);
		}
	}
	function hold(arr, a, b, v) { /* value v held over [a, b): time-weighted mean per bin */
		if (!(v > 0) || b <= a) return;
		spread(arr, a, b, v * (b - a));
	}
	function bin() { /* after data-ready (draw, below) */
	P.forEach(function (p) {
		var si = sidx[p.tool] !== undefined ? sidx[p.tool] : sidx["\u0000other"], e = pend(p), sm = p.samples || [];
		/*HOSTS{*/
		if (HM && sm.length) {
			var so = D.hosts[p.hi].offset_s;
			sm = sm.map(function (s) { return Object.assign({}, s, {t_s: s.t_s + so}); });
		}
		/*}HOSTS*/
		var pts = [{t: p.start_s, c: 0, r: 0, w: 0}];
		sm.forEach(function (s) { pts.push({t: s.t_s, c: s.utime_s + s.stime_s, r: s.read_bytes, w: s.write_bytes, rss: s.rss_kib}); });
		if (p.end_s !== null) pts.push({t: p.end_s, c: cpu(p), r: p.read_bytes || 0, w: p.write_bytes || 0});
		for (var i = 1; i < pts.length; i++) {
			spread(cpuB[si], pts[i - 1].t, pts[i].t, pts[i].c - pts[i - 1].c);
			spread(rdB, pts[i - 1].t, pts[i].t, pts[i].r - pts[i - 1].r);
			spread(wrB, pts[i - 1].t, pts[i].t, pts[i].w - pts[i - 1].w);
		}
		if (sm.length) {
			nsampled++;
			/* a sample whose RSS is unknown (null: a slice's end) is a gap, not 0 */
			for (var j = 0, gap = 0; j < sm.length; j++)
				if (sm[j].rss_kib === null) gap = 1;
				else hold(memB[si], j ? sm[j].t_s : p.start_s, j + 1 < sm.length ? sm[j + 1].t_s : e, sm[j].rss_kib / 1024);
			nrssUnknown += gap;
		} else hold(memB[si], p.start_s, e, (p.peak_rss_kib || 0) / 1024);
	});
	function perBin(arr, f) { for (var i = 0; i < NB; i++) arr[i] = arr[i] / bw * f; }
	cpuB.forEach(function (a) { perBin(a, 1); });
	/* as tracer-analyze plot: CPU spread evenly over an interval (a whole
	 * short life without samples, its exit total including the exit path)
	 * can put more cores in a bin than the machine has, when the process ran
	 * in bursts; no bin is drawn above the CPU count: its series are scaled
	 * down together to it, and the note says how many bins and CPU-s */
	var nclamped = 0, clampedS = 0;
	for (var bi = 0; host.cpus && bi < NB; bi++) {
		var acc = 0;
		cpuB.forEach(function (a) { acc += a[bi]; });
		if (acc <= host.cpus) continue;
		cpuB.forEach(function (a) { a[bi] *= host.cpus / acc; });
		nclamped++; clampedS += (acc - host.cpus) * bw;
	}
	memB.forEach(function (a) { perBin(a, 1); });
	perBin(rdB, 1 / 1048576); perBin(wrB, 1 / 1048576);
	$("usage-note").textContent = "400 bins over the run. " + num(nsampled) + " of " + num(P.length) +
		" processes have periodic samples and are drawn from them; the others spread their exit CPU and I/O totals evenly over their life and hold their peak RSS (an upper bound), as tracer-analyze plot does." +
		(nrssUnknown ? " Resident memory: " + num(nrssUnknown) + " with RSS unknown (a slice's end), not drawn there." : "") +
		(nclamped ? " Cores in use: " + nclamped + " of " + NB + " bins held to " + host.cpus + " CPUs (" + clampedS.toPrecision(3) +
			" CPU-s spread there beyond the machine by that even spreading)." : "");
	} /* bin */
	function area(cv, stack, lines, hline) {
		var h = 200, w = setup(cv, h), x = cv.getContext("2d"), L = 50, top = 18, bottom = h - 4;
		var tot = new Float64Array(NB), max = 0;
		stack.forEach(function (a) { for (var i = 0; i < NB; i++) tot[i] += a[i]; });
		for (var i = 0; i < NB; i++) max = Math.max(max, tot[i]);
		(lines || []).forEach(function (l) { for (var i = 0; i < NB; i++) max = Math.max(max, Math.abs(l.d[i])); });
		/* the label is the data's peak, not the axis top (that is 5% above
		 * the peak or the CPU line, so the line stays in view) */
		var peak = max;
		cv.setAttribute("data-peak", peak);
		if (hline) max = Math.max(max, hline);
		max = max > 0 ? max * 1.05 : 1;
		var mid = lines && lines.length === 2 ? (top + bottom) / 2 : bottom, sc = (mid - top) / max, bx = (w - L) / NB;
		x.clearRect(0, 0, w, h);
		ticks(x, w, L, 0, T1, h);
		x.fillStyle = "#5f6368"; x.font = "11px sans-serif";
		x.fillText("0", 2, mid);
		if (peak > 0) {
			var py = Math.max(top + 8, mid - peak * sc + 4);
			x.fillText(peak.toPrecision(3), 2, py);
			x.strokeStyle = "#5f6368"; x.beginPath(); x.moveTo(L - 6, mid - peak * sc); x.lineTo(L, mid - peak * sc); x.stroke();
		}
		var base = new Float64Array(NB);
		stack.forEach(function (a, s) {
			x.fillStyle = s < series.length - 1 ? color(series[s]) : C.other;
			for (var i = 0; i < NB; i++) if (a[i] > 0) x.fillRect(L + i * bx, mid - (base[i] + a[i]) * sc, bx + 0.5, a[i] * sc);
			for (i = 0; i < NB; i++) base[i] += a[i];
		});
		(lines || []).forEach(function (l, k) {
			x.fillStyle = l.pat ? x.createPattern(l.pat, "repeat") : l.c;
			for (var i = 0; i < NB; i++) if (l.d[i] > 0) {
				var hh = l.d[i] * sc;
				x.fillRect(L + i * bx, k ? mid : mid - hh, bx + 0.5, hh);
			}
		});
		if (hline) {
			x.strokeStyle = "#222"; x.setLineDash([5, 4]); x.beginPath();
			x.moveTo(L, mid - hline * sc); x.lineTo(w, mid - hline * sc); x.stroke(); x.setLineDash([]);
			x.fillStyle = "#222"; x.fillText(hline + " CPUs", L + 4, mid - hline * sc - 3);
		}
	}
	/* I/O: not tool colours (the palette's first two are the top tools'):
	 * read dark grey, written black hatching, with a legend */
	var IO_READ = "#555555";
	function hatch() {
		var c = document.createElement("canvas"), g = c.getContext("2d");
		c.width = c.height = 6;
		g.fillStyle = "#ffffff"; g.fillRect(0, 0, 6, 6);
		g.strokeStyle = "#000000"; g.lineWidth = 1.5;
		g.beginPath(); g.moveTo(0, 6); g.lineTo(6, 0); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(5, 7); g.lineTo(7, 5); g.stroke();
		return c;
	}
	(function () {
		var lg = $("io-legend"), r = el("span"), rs = el("span", "sw"), w = el("span"), ws = el("span", "sw");
		rs.style.background = IO_READ;
		ws.style.background = "repeating-linear-gradient(135deg, #000 0 1.5px, #fff 1.5px 4px)";
		r.appendChild(rs); r.appendChild(document.createTextNode("read (above the axis)"));
		w.appendChild(ws); w.appendChild(document.createTextNode("written (below)"));
		lg.appendChild(r); lg.appendChild(w);
	})();
	function drawUsage() {
		area($("cpu"), cpuB, null, host.cpus || 0);
		area($("mem"), memB, null, 0);
		area($("io"), [], [{d: rdB, c: IO_READ}, {d: wrB, pat: hatch()}], 0);
	}

	mark("process");
	/* ------------------------------------------------------------ process table (virtualised) */
	var cols = [
		{k: "pid", t: "pid", v: function (p) { return p.pid; }, n: 1},
		{k: "start", t: "start", v: function (p) { return p.start_s; }, f: dur, n: 1},
		{k: "tool", t: "tool", v: function (p) { return p.tool; }},
		{k: "wall", t: "wall", v: function (p) { return p.realtime_s === null ? -1 : p.realtime_s; }, f: function (v) { return v < 0 ? "running" : dur(v); }, n: 1},
		{k: "cpu", t: "CPU", v: cpu, f: dur, n: 1},
		/* unknown (null: running without samples, a slice's) is "-", sorted below a known 0 */
		{k: "rss", t: "peak RSS", v: function (p) { return p.peak_rss_kib === null ? -1 : p.peak_rss_kib; }, f: function (v) { return v < 0 ? "-" : bytes(v * 1024); }, n: 1},
		{k: "io", t: "storage I/O", v: function (p) { return (p.read_bytes || 0) + (p.write_bytes || 0); }, f: bytes, n: 1},
		{k: "status", t: "status", v: status},
		{k: "cmd", t: "command", v: cmdline}];
	/*HOSTS{*/
	if (HM) {
		cols.push({k: "host", t: "host", v: function (p) { return p.host; }});
		var gst = document.createElement("style");
		gst.textContent = ".vhead, .vrow { grid-template-columns: 80px 80px 130px 80px 80px 90px 80px 90px 1fr 110px; }";
		document.head.appendChild(gst);
	}
	/*}HOSTS*/
	var ph = $("phead"), pb = $("pbody"), psp = $("pspace"), RH = 24;
	var view = P.map(function (p, i) { return i; }), sortCol = 1, sortAsc = true, pool = [];
	var searchText = null;
	function search(i) { /* the text a filter looks in, made on the first filter */
		if (!searchText) searchText = P.map(function (p) { return (p.pid + " " + p.tool + " " + cmdline(p)).toLowerCase(); });
		return searchText[i];
	}
	cols.forEach(function (c, i) {
		var h = el("div", c.n ? "n" : "", c.t);
		h.setAttribute("data-col", c.k);
		h.addEventListener("click", function () { sortBy(i, sortCol === i ? !sortAsc : !c.n); });
		ph.appendChild(h);
	});
	var toolSet = {};
	P.forEach(function (p) { toolSet[p.tool] = 1; });
	var tools = Object.keys(toolSet).sort(), ptool = $("ptool");
	tools.forEach(function (t) { var o = el("option", "", t); o.value = t; ptool.appendChild(o); });
	function sortBy(i, asc) {
		sortCol = i; sortAsc = asc;
		var c = cols[i], key = new Array(P.length);
		for (var j = 0; j < P.length; j++) key[j] = c.v(P[j]);
		var d = asc ? 1 : -1, j = 1;
		function cmp(a, b) { var x = key[a], z = key[b]; return x < z ? -d : x > z ? d : a - b; }
		/* rows already in that order (the data comes by start time): no sort */
		while (j < view.length && cmp(view[j - 1], view[j]) < 0) j++;
		if (j < view.length) view.sort(cmp);
		ph.querySelectorAll("div").forEach(function (h, k) { h.className = (cols[k].n ? "n" : "") + (k === i ? " sorted" + (asc ? " asc" : "") : ""); });
		renderRows(true);
	}
	function applyFilter() {
		var q = $("pfilter").value.toLowerCase().trim(), t = ptool.value, s = $("pstatus").value;
		view = [];
		for (var i = 0; i < P.length; i++) {
			var p = P[i];
			if (t && p.tool !== t) continue;
			if (s === "failed" && !failed(p)) continue;
			if (s === "ok" && p.exit_code !== 0) continue;
			if (s === "running" && p.end_s !== null) continue;
			if (q && search(i).indexOf(q) < 0) continue;
			view.push(i);
		}
		sortBy(sortCol, sortAsc);
	}
	["input", "change"].forEach(function (e) { $("pfilter").addEventListener(e, applyFilter); });
	ptool.addEventListener("change", applyFilter);
	$("pstatus").addEventListener("change", applyFilter);
	function renderRows(reset) {
		if (reset) pb.scrollTop = pb.scrollTop; /* keep position; rows are redrawn below */
		psp.style.height = view.length * RH + "px";
		$("pcount").textContent = num(view.length) + " of " + num(P.length) + " processes";
		var first = Math.floor(pb.scrollTop / RH), n = Math.ceil((pb.clientHeight || 480) / RH) + 2;
		while (pool.length < n) {
			var r = el("div", "vrow");
			cols.forEach(function (c) { r.appendChild(el("div", c.n ? "n" : "")); });
			pb.appendChild(r); pool.push(r);
		}
		for (var k = 0; k < pool.length; k++) {
			var row = pool[k], vi = first + k;
			if (vi >= view.length) { row.hidden = true; continue; }
			var p = P[view[vi]];
			row.hidden = false; row.style.top = vi * RH + "px";
			row.setAttribute("data-pid", p.pid);
			for (var c = 0; c < cols.length; c++) {
				var v = cols[c].v(p), cell = row.children[c];
				cell.textContent = cols[c].f ? cols[c].f(v) : v;
				if (c === 8) cell.title = v;
			}
			row.children[7].className = failed(p) ? "bad" : "";
		}
	}
	pb.addEventListener("scroll", function () { renderRows(false); });

	mark("process");
	/* ------------------------------------------------------------ process tree */
	function buildTree() { /* after data-ready (draw, below) */
	var kids = {}, roots = [];
	P.forEach(function (p) {
		if (p.parent_id && byId(p.parent_id)) (kids[p.parent_id] = kids[p.parent_id] || []).push(p);
		else roots.push(p);
	});
	var tb = $("tree-body"), rendered = 0;
	function label(p) {
		return p.pid + "  " + cmdline(p).slice(0, 200) + "  [" + status(p) + ", " + dur(pend(p) - p.start_s) + ", CPU " + dur(cpu(p)) + "]";
	}
	function node(p) {
		var li = el("li"), k = kids[p.id], tg = el("span", "tg", k ? "\u25B8" : "");
		li.appendChild(tg); li.appendChild(swatch(p.tool));
		var tx = el("span", failed(p) ? "bad" : "", label(p)); li.appendChild(tx);
		li._p = p; rendered++;
		if (k) {
			tx.appendChild(document.createTextNode("  (" + num(k.length) + " children)"));
			tg.addEventListener("click", function () { toggle(li); });
		}
		return li;
	}
	function toggle(li, open) {
		if (!li._p) return null;
		var ul = li.querySelector(":scope > ul"), k = kids[li._p.id];
		if (!k) return null;
		if (open === undefined) open = !ul || ul.hidden;
		if (open && !ul) {
			ul = el("ul");
			k.forEach(function (c) { ul.appendChild(node(c)); });
			li.appendChild(ul);
		}
		if (ul) ul.hidden = !open;
		li.firstChild.textContent = open ? "\u25BE" : "\u25B8";
		return ul;
	}
	mark("tree index");
	var rootUl = el("ul"), shown = 0, ROOTS = 2000;
	function moreRoots() { /* roots in pages of 2000: a trace of 100,000 unrelated processes stays quick */
		var end = Math.min(roots.length, shown + ROOTS), old = rootUl.querySelector(":scope > li.more");
		if (old) old.remove();
		for (; shown < end; shown++) rootUl.appendChild(node(roots[shown]));
		if (shown < roots.length) {
			var li = el("li", "more"), b = el("button", "", "show " + num(Math.min(ROOTS, roots.length - shown)) + " more of " + num(roots.length - shown) + " top-level processes");
			b.addEventListener("click", moreRoots);
			li.appendChild(b); rootUl.appendChild(li);
		}
	}
	moreRoots();
	tb.appendChild(rootUl);
	rootUl.childNodes.forEach(function (li) { if (roots.length < 20) toggle(li, true); });
	function expandAll(limit) {
		var q = Array.prototype.slice.call(rootUl.childNodes);
		while (q.length && rendered < limit) {
			var li = q.shift(), ul = toggle(li, true);
			if (ul) q = q.concat(Array.prototype.slice.call(ul.childNodes));
		}
		$("tcount").textContent = rendered >= limit ? "expanded the first " + num(rendered) + " processes" : "";
	}
	$("texpand").addEventListener("click", function () { expandAll(20000); });
	$("tcollapse").addEventListener("click", function () { rootUl.childNodes.forEach(function (li) { toggle(li, false); }); });
	function treeSearch() {
		var q = $("tfilter").value.toLowerCase().trim();
		tb.querySelectorAll(".hit").forEach(function (e) { e.classList.remove("hit"); });
		if (!q) { $("tcount").textContent = ""; return; }
		var m = [];
		for (var i = 0; i < P.length && m.length < 200; i++) if (search(i).indexOf(q) >= 0) m.push(P[i]);
		m.forEach(function (p) {
			var chain = [];
			for (var a = p; a; a = a.parent_id ? byId(a.parent_id) : null) chain.unshift(a);
			var ul = rootUl, li = null;
			chain.forEach(function (a) {
				li = null;
				for (var c = ul ? ul.firstChild : null; c; c = c.nextSibling) if (c._p === a) { li = c; break; }
				if (li && a !== p) ul = toggle(li, true);
			});
			if (li) li.children[2].classList.add("hit");
		});
		$("tcount").textContent = m.length + (m.length === 200 ? "+" : "") + " matches";
		var f = tb.querySelector(".hit"); if (f) f.scrollIntoView({block: "nearest"});
	}
	$("tfilter").addEventListener("input", treeSearch);
	} /* buildTree */

	mark("table");
	/* ------------------------------------------------------------ draw */
	function drawAll() { drawGantt(); drawUsage(); }
	window.addEventListener("resize", drawAll);
	sortBy(1, true);
	mark("sort");
	$("foot").textContent = "Made by tracer-analyze " + D.analyzer + " report from '" + S.file +
		"'. Data: summary --json, top --json, critical-path --json, idle --json, export --format jsonl --samples (docs/tracer-analyze.md).";
	/* for tests and the benchmark: sorts the table by column k, returns ms */
	window.tracerReport = {
		sort: function (k, asc) { var t = performance.now(); sortBy(cols.findIndex(function (c) { return c.k === k; }), asc); return performance.now() - t; },
		rows: function () { return view.length; },
		firstPid: function () { return view.length ? P[view[0]].pid : null; },
		window: function () { return [v0, v1]; } /* the timeline's view, seconds */
	};
	/*HOSTS{*/
	/* the timeline's bands once drawn: [{host, trace, y, rows, processes}] */
	if (HM) window.tracerReport.bands = function () {
		return (HM.bands || []).map(function (b) {
			return {host: b.h.hostname, trace: b.h.trace, y: b.y, rows: b.rows.length, processes: b.n,
				tools: b.rows.map(function (r) { return r.tool; })};
		});
	};
	/*}HOSTS*/
	/* data-ready: the header, summary, tables and the sorted process table
	 * are there; then, each in its own task so the page answers between
	 * them, the timeline, the charts over time and the tree; data-drawn
	 * when all is drawn */
	mark("ready");
	document.body.setAttribute("data-timings", marks.join(", "));
	document.body.setAttribute("data-ready-ms", Math.round(performance.now())); /* since navigation */
	document.body.setAttribute("data-ready", "1");
	var later = [function () { layout(); drawGantt(); mark("gantt"); },
		function () { bin(); drawUsage(); mark("usage"); },
		function () { buildTree(); mark("tree"); }];
	(function next() {
		if (!later.length) {
			mark("done");
			document.body.setAttribute("data-timings", marks.join(", "));
			document.body.setAttribute("data-drawn-ms", Math.round(performance.now()));
			document.body.setAttribute("data-drawn", "1");
			return;
		}
		later.shift()();
		setTimeout(next, 0);
	})();
	} /* main */
})();
