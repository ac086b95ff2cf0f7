#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: report over a run recorded on several hosts. Three "hosts" are
# UTS namespaces with their own hostnames on this machine (simulated: one
# boot id, so one clock), running three parts of one workload one after the
# other (node2's has a failing process). Checked:
#   - report of the three files, of their directory and of their merge each
#     write one page, mode 0600 (argv inside), report_version 5;
#   - its data equals the commands over the same hosts: summary --json,
#     top --json -n 0, critical-path --json, idle --json, and every process
#     of export --format jsonl --samples (the keys the page keeps, with host
#     and trace_uuid); with --by task also export --tasks and top --by task;
#   - "hosts": hostnames and traces in the order given, trace_uuid as
#     export's, offset_s the host's first event after the run's start
#     computed independently (a process's boot-time id, export's start_s and
#     the trace's own clock anchor, info --json), as test 78 checks plot;
#     the colours are plot's over the same hosts (plot --script's bars);
#   - one trace's page is still report_version 4 without host columns (its
#     bytes against the earlier binary: tests/compare_analyze.sh, test 64's
#     pinned page of samples/pipeline.tz);
#   - in headless Chromium: no script error or request, the run's process
#     count, one timeline band per host in order holding exactly that host's
#     processes and tools, a row per host in the hosts table, the critical
#     path's parts and the host column of the process table. Skips the
#     browser part (exit 77 after the other checks) without chromium or node.
source "$(dirname "$0")/lib.sh"
need_root
command -v unshare >/dev/null || { echo "skip: unshare missing"; exit 77; }
unset TRACER_ANALYZE_PARTIAL
here=$(cd "$(dirname "$0")" && pwd)
ART=$(cd "${O:-build}" && pwd)/test-artefacts # the screenshot and page kept
mkdir -p "$ART"
cd "$T"

host_record node1 a.tz sh -c 'seq 20000 | sort -rn >/dev/null; sleep 0.3'
host_record node2 b.tz sh -c 'seq 3000 | wc -l >/dev/null; sh -c "exit 3"; sleep 0.2; true'
host_record node3 c.tz sh -c 'ls / | wc -l >/dev/null; sleep 0.2'
"$A" merge -o run.tz a.tz b.tz c.tz || fail merge
mkdir traces && cp a.tz b.tz c.tz traces/

umask 022
timeout 120 "$A" report -o files.html a.tz b.tz c.tz || fail "report of three files"
timeout 120 "$A" report -o dir.html traces || fail "report of a directory"
timeout 120 "$A" report -o merged.html run.tz || fail "report of the merge"
timeout 120 "$A" report --by task -o bytask.html a.tz b.tz c.tz || fail "report --by task over hosts"
timeout 120 "$A" report -o one.html a.tz || fail "report of one trace"
for f in files dir merged bytask; do
	[ "$(stat -c %a $f.html)" = 600 ] || fail "$f.html mode $(stat -c %a $f.html), want 600"
done

# the commands, over the files, their directory and their merge
for set in "files a.tz b.tz c.tz" "dir traces" "merged run.tz"; do
	read -r name args <<<"$set"
	# shellcheck disable=SC2086 # the file list
	{
		timeout 120 "$A" summary --json $args >$name.summary || fail "summary $name"
		timeout 120 "$A" top --json -n 0 $args >$name.top || fail "top $name"
		timeout 120 "$A" critical-path --json $args >$name.crit || fail "critical-path $name"
		timeout 120 "$A" idle --json $args >$name.idle || fail "idle $name"
		timeout 120 "$A" export --format jsonl --samples $args >$name.procs || fail "export $name"
	}
done
timeout 120 "$A" export --format jsonl --tasks a.tz b.tz c.tz >files.tasks || fail "export --tasks"
timeout 120 "$A" top --json -n 0 --by task a.tz b.tz c.tz >files.groups || fail "top --by task"
timeout 120 "$A" plot --script files.gp a.tz b.tz c.tz || fail "plot --script"
for f in a b c; do
	timeout 60 "$A" info --json $f.tz >$f.info || fail "info $f.tz"
done

timeout 120 python3 - "$here/../browser" <<'PY' || fail "embedded data"
import json, re, sys
sys.path.insert(0, sys.argv[1])
import report_data
def jl(f):
    return [json.loads(l) for l in open(f) if l.strip()]
def same(page, name, traces):
    d = report_data.load(page)
    assert d["report_version"] == 5 and d["multi_host"] is True, (page, d["report_version"])
    for k, f in (("summary", "summary"), ("top", "top"), ("critical_path", "crit"), ("idle", "idle")):
        assert d[k] == json.load(open(name + "." + f)), (page, k)
    assert d["critical_path"]["order"] == "time_adjacency", d["critical_path"]["order"]
    procs = jl(name + ".procs")
    assert len(d["processes"]) == len(procs) == d["summary"]["run"]["processes"], (page, len(procs))
    for a, b in zip(d["processes"], procs):
        assert {"host", "trace_uuid", "id", "start_s", "argv", "tool"} <= set(a), sorted(a)
        assert a == {k: b[k] for k in a}, (page, a["id"], b["id"])
    hs = d["hosts"]
    assert [h["hostname"] for h in hs] == ["node1", "node2", "node3"], hs
    assert [h["trace"] for h in hs] == traces, hs
    # a host's trace_uuid is its processes'
    for h in hs:
        mine = [p for p in procs if p["trace_uuid"] == h["trace_uuid"]]
        assert mine and {p["host"] for p in mine} == {h["hostname"]}, h
    return d
d = same("files.html", "files", ["a.tz", "b.tz", "c.tz"])
same("dir.html", "dir", ["traces/a.tz", "traces/b.tz", "traces/c.tz"])
same("merged.html", "merged", ["run.tz[0]", "run.tz[1]", "run.tz[2]"])
# offset_s: the host's first event (export's start_s 0) after the run's
# start, from each trace's own clock anchor (its metadata)
def anchor(f):
    md = json.load(open(f + ".info"))["metadata"]
    return int(md["start_realtime_ns"]) - int(md["start_boottime_ns"])
t0 = {}
procs = jl("files.procs")
for h, f in zip(d["hosts"], "abc"):
    p = next(q for q in procs if q["trace_uuid"] == h["trace_uuid"])
    boot = int(p["id"].split(".")[1])
    t0[f] = boot - round(p["start_s"] * 1e9) + anchor(f)
run0 = min(t0.values())
for h, f in zip(d["hosts"], "abc"):
    assert abs(h["offset_s"] - (t0[f] - run0) / 1e9) < 2e-6, (h, t0[f] - run0)
    assert h["span_s"] > 0, h
assert d["hosts"][0]["offset_s"] == 0 < d["hosts"][1]["offset_s"] < d["hosts"][2]["offset_s"], d["hosts"]
# the colours are plot's over the same hosts: a tool's bars there have its colour
s = open("files.gp").read()
bars = re.search(r"^\$BARS << EOD\n(.*?)^EOD$", s, re.M | re.S).group(1)
rgbs = {int(l.split()[4]) for l in bars.splitlines() if l and not l.startswith("#")}
want = {int(c[1:], 16) for c in d["colors"]["tools"].values()}
assert want and want <= rgbs, (want, rgbs)
assert set(d["colors"]["tools"]) <= {p["tool"] for p in procs}, d["colors"]
# --by task over hosts: export --tasks and top --by task
t = report_data.load("bytask.html")
assert t["by"] == "task" and t["tasks"] == jl("files.tasks"), "tasks"
assert t["task_groups"] == json.load(open("files.groups")), "task_groups"
assert all(g["host"] for g in t["task_groups"]) and all(x["host"] for x in t["tasks"])
# one trace: version 4, no host columns
o = report_data.load("one.html")
assert o["report_version"] == 4 and "multi_host" not in o and "hosts" not in o, o.keys()
assert "host" not in o["processes"][0] and "trace_uuid" not in o["processes"][0], sorted(o["processes"][0])
PY
# one trace's page has none of the script's parts for several hosts
grep -q 'HOSTS{' one.html && fail "one trace's page holds the multi-host script"
grep -q 'HOSTS{' files.html || fail "the multi-host page lacks its script's parts"

command -v node >/dev/null || { echo "skip: node missing (scripts/deps.sh --test)"; exit 77; }
command -v "${CHROMIUM:-chromium}" >/dev/null || { echo "skip: chromium missing (scripts/deps.sh --test)"; exit 77; }
probe='(() => { const q = (s) => document.querySelectorAll(s);
	return {bands: window.tracerReport.bands ? window.tracerReport.bands() : null,
		host_rows: q("#hosts-table tbody tr").length, part_rows: q("#critical-parts tbody tr").length,
		idle_rows: q("#idle-hosts tbody tr").length,
		table_head: Array.from(q("#phead div")).map((e) => e.textContent),
		top_head: document.querySelector("#tools-table th").textContent}; })()'
timeout 180 node "$here/../browser/cdp_report.js" files.html "$ART/79_hosts_report.png" --eval "$probe" >cdp.json ||
	fail "the browser failed"
cp files.html "$ART/79_hosts_report.html"
timeout 60 python3 - <<'PY' || fail "in the browser: $(cat cdp.json)"
import json
r = json.load(open("cdp.json"))
assert r["ready"] and r["drawn"], r
assert not r["errors"] and not r["requests"], (r["errors"], r["requests"])
assert not r["dom"]["page_errors"], r["dom"]["page_errors"]
s = json.load(open("files.summary"))["run"]
assert r["dom"]["processes"] == s["processes"], (r["dom"]["processes"], s["processes"])
assert r["dom"]["table_rows"] == s["processes"], r["dom"]["table_rows"]
e = r["eval"]
procs = [json.loads(l) for l in open("files.procs") if l.strip()]
bands = e["bands"]
assert [b["host"] for b in bands] == ["node1", "node2", "node3"], bands
assert [b["trace"] for b in bands] == ["a.tz", "b.tz", "c.tz"], bands
for b, h in zip(bands, s["per_host"]):
    mine = [p for p in procs if p["host"] == b["host"]]
    assert b["processes"] == h["processes"] == len(mine), (b, h)
    assert sorted(b["tools"]) == sorted({p["tool"] for p in mine}), (b, mine)
assert bands[0]["y"] < bands[1]["y"] < bands[2]["y"], bands
crit = json.load(open("files.crit"))
assert e["host_rows"] == 3 and e["idle_rows"] == 3, e
assert e["part_rows"] == len(crit["parts"]) >= 1, (e, crit["parts"])
assert e["table_head"][-1] == "host" and e["top_head"] == "host", e
PY
echo "ok: report over three hosts (files, directory, merge; data = the commands'; host bands in the browser)"
