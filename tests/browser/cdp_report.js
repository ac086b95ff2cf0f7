#!/usr/bin/env node
/*
 * cdp_report.js - open a tracer HTML report in headless Chromium over the
 * DevTools protocol (--remote-debugging-pipe: no port, no network) and print
 * one JSON object of what the page showed:
 *   {ready, load_ms, drawn, drawn_ms, errors: [...], requests: [...], dom: {...},
 *    screenshot_bytes, and with --sort: sort_ms, sorted_first_pid, rows}
 * load_ms: from navigation to the page's data-ready (its summary, tables and
 * sorted process table are there), drawn_ms: to its data-drawn (the
 * timeline, charts and tree too), both polled every 100 ms and taken from
 * the page's own clock (data-ready-ms, data-drawn-ms: a poll waits for the
 * drawing that follows data-ready); the DOM is read once drawn.
 * errors: console errors, uncaught exceptions, log entries of level error and
 * the page's own data-errors (CSP violations); requests: every request whose
 * URL is not the report's own file:// URL or a data: URL.
 *
 *   node cdp_report.js REPORT.html SCREENSHOT.png [--sort COL] [--timeout S] [--full]
 * --interact: hover the timeline over the middle of its first bar (result
 * hover: the tooltip's text, or null), then zoom in there with the wheel and
 * hover again (hover_zoomed); window_before/window_after: the timeline's
 * view [from, to] in seconds around the wheel.
 * --eval EXPR: the value of the expression EXPR in the page once drawn (result
 * eval; for a test's own questions, e.g. window.tracerReport.bands()).
 * (--full: the whole page; --at Y|ID: 1400x1000 pixels from Y, or from the
 * element ID, down; else the
 * first 1400x1000 pixels)
 *
 * CHROMIUM names the browser binary (default: chromium). Exit 0 when the
 * page was read (the caller judges the result), 1 on a browser failure.
 */
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const os = require("os");

const args = process.argv.slice(2);
if (args.length < 2) {
	console.error("usage: cdp_report.js REPORT.html SCREENSHOT.png [--sort COL] [--timeout S]");
	process.exit(2);
}
const report = path.resolve(args[0]), shot = args[1];
let sortCol = null, timeout = 60, full = false, at = null, interact = false, evalExpr = null;
for (let i = 2; i < args.length; i++) {
	if (args[i] === "--sort") sortCol = args[++i];
	else if (args[i] === "--timeout") timeout = Number(args[++i]);
	else if (args[i] === "--full") full = true;
	else if (args[i] === "--interact") interact = true;
	else if (args[i] === "--at") at = args[++i];
	else if (args[i] === "--eval") evalExpr = args[++i];
}
const url = "file://" + report;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tracer-cdp."));
const chrome = spawn(process.env.CHROMIUM || "chromium", [
	"--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
	"--no-first-run", "--no-default-browser-check", "--disable-extensions",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--user-data-dir=" + profile, "--window-size=1400,1000", "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let stderrTail = "";
chrome.stderr.on("data", (d) => { stderrTail = (stderrTail + d).slice(-4000); });
const out = chrome.stdio[3], inp = chrome.stdio[4];
let id = 0, buf = "";
const pending = new Map(), result = { ready: false, drawn: false, errors: [], requests: [], dom: null };
let sessionId = null;

let finishing = false;
/* Close the browser (Browser.close, then SIGKILL after 5 s), wait for it to
 * exit, remove its profile, print the result. */
function finish(code, msg) {
	if (finishing) return;
	finishing = true;
	if (msg) console.error("cdp_report: " + msg + (stderrTail ? "\n" + stderrTail : ""));
	const done = () => {
		try {
			fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
		} catch (e) {
			console.error("cdp_report: cannot remove " + profile + ": " + e.message);
		}
		if (code === 0) process.stdout.write(JSON.stringify(result) + "\n");
		process.exit(code);
	};
	if (chrome.exitCode !== null || chrome.signalCode !== null) return done();
	chrome.removeAllListeners("exit");
	chrome.on("exit", done);
	try { out.write(JSON.stringify({ id: ++id, method: "Browser.close" }) + "\0"); } catch (e) { /* pipe gone */ }
	setTimeout(() => { try { chrome.kill("SIGKILL"); } catch (e) { /* gone */ } }, 5000).unref();
}
const timer = setTimeout(() => finish(1, "timed out after " + timeout + " s"), timeout * 1000);
chrome.on("exit", (c, s) => finish(1, "chromium exited (" + (c !== null ? c : s) + ")"));
chrome.on("error", (e) => finish(1, "cannot run chromium: " + e.message));

function send(method, params, sid) {
	const msg = { id: ++id, method, params: params || {} };
	if (sid) msg.sessionId = sid;
	out.write(JSON.stringify(msg) + "\0");
	return new Promise((res, rej) => pending.set(msg.id, { res, rej, method }));
}
function onEvent(m) {
	const p = m.params || {};
	if (m.method === "Runtime.consoleAPICalled" && (p.type === "error" || p.type === "assert"))
		result.errors.push("console: " + p.args.map((a) => a.value || a.description).join(" "));
	else if (m.method === "Runtime.exceptionThrown")
		result.errors.push("exception: " + (p.exceptionDetails.exception ? p.exceptionDetails.exception.description : p.exceptionDetails.text));
	else if (m.method === "Log.entryAdded" && p.entry.level === "error")
		result.errors.push("log: " + p.entry.text);
	else if (m.method === "Network.requestWillBeSent") {
		const u = p.request.url;
		if (u !== url && !u.startsWith("data:") && u !== "about:blank") result.requests.push(u);
	}
}
inp.on("data", (d) => {
	buf += d.toString("utf8");
	let z;
	while ((z = buf.indexOf("\0")) >= 0) {
		const m = JSON.parse(buf.slice(0, z));
		buf = buf.slice(z + 1);
		if (m.id && pending.has(m.id)) {
			const w = pending.get(m.id);
			pending.delete(m.id);
			if (m.error) w.rej(new Error(w.method + ": " + m.error.message)); else w.res(m.result);
		} else if (m.method) onEvent(m);
	}
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function evaluate(expr) {
	const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true }, sessionId);
	if (r.exceptionDetails) throw new Error("evaluate: " + r.exceptionDetails.text + " " + expr);
	return r.result.value;
}
/* ms from navigation to the page's data-WHAT-ms, or by our clock from t0 */
async function pageMs(what, t0) {
	const v = await evaluate(`document.body.getAttribute("data-${what}-ms")`).catch(() => null);
	return v !== null && v !== "" ? Number(v) : Date.now() - t0;
}
(async () => {
	const t = await send("Target.createTarget", { url: "about:blank" });
	const a = await send("Target.attachToTarget", { targetId: t.targetId, flatten: true });
	sessionId = a.sessionId;
	for (const d of ["Runtime", "Log", "Network", "Page"]) await send(d + ".enable", {}, sessionId);
	await send("Emulation.setDeviceMetricsOverride", { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false }, sessionId);
	const t0 = Date.now();
	await send("Page.navigate", { url }, sessionId);
	for (let i = 0; i < timeout * 10; i++) {
		const r = await evaluate("document.body && document.body.getAttribute('data-ready')").catch(() => null);
		if (r === "1") { result.ready = true; result.load_ms = await pageMs("ready", t0); break; }
		if (result.errors.length) break;
		await sleep(100);
	}
	for (let i = 0; result.ready && i < timeout * 10; i++) {
		const r = await evaluate("document.body.getAttribute('data-drawn')").catch(() => null);
		if (r === "1") { result.drawn = true; result.drawn_ms = await pageMs("drawn", t0); break; }
		if (result.errors.length) break;
		await sleep(100);
	}
	result.dom = await evaluate(`(() => {
		const q = (s) => document.querySelector(s);
		const txt = (s) => q(s) ? q(s).textContent : null;
		const first = q("#tools-table tbody tr td");
		return {
			processes: q("#card-processes .v") ? Number(q("#card-processes .v").getAttribute("data-value")) : null,
			processes_text: txt("#card-processes .v"),
			top_tool: first ? first.textContent : null,
			critical_tools: txt("#critical-tools"),
			banner: txt("#banner"), banner_bad: q("#banner") ? q("#banner").className !== "ok" : null,
			table_rows: document.querySelectorAll("#pbody .vrow:not([hidden])").length,
			table_count: txt("#pcount"),
			tree_items: document.querySelectorAll("#tree-body li").length,
			cpu_peak: q("#cpu") && q("#cpu").hasAttribute("data-peak") ? Number(q("#cpu").getAttribute("data-peak")) : null,
			tasks: q("#tasks-count") ? Number(q("#tasks-count").getAttribute("data-value")) : null,
			task_rows: document.querySelectorAll("#tasks-table tbody tr").length,
			tasks_hidden: q("#tasks") ? q("#tasks").hidden : null,
			page_errors: document.body.getAttribute("data-errors"),
			timings: document.body.getAttribute("data-timings"),
			title: document.title };
	})()`);
	if (evalExpr !== null) result.eval = await evaluate(evalExpr);
	if (sortCol) {
		result.sort_ms = await evaluate(`window.tracerReport.sort(${JSON.stringify(sortCol)}, false)`);
		result.sorted_first_pid = await evaluate("window.tracerReport.firstPid()");
		result.rows = await evaluate("window.tracerReport.rows()");
	}
	if (interact) {
		const at = await evaluate(`(() => {
			const g = document.getElementById("gantt"); g.scrollIntoView();
			const b = g.getBoundingClientRect();
			return {x: b.left, y: b.top, w: b.width};
		})()`);
		/* the first row's first lane: 150 px of labels, axis 22 px; the first
		 * row is the earliest tool, its first process starts near t=0 */
		const px = at.x + 152, py = at.y + 22 + 4;
		const hover = async () => {
			await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: px, y: py }, sessionId);
			await sleep(200);
			return evaluate(`(() => { const t = document.getElementById("tip"); return t.hidden ? null : t.textContent; })()`);
		};
		result.hover = await hover();
		result.window_before = await evaluate("window.tracerReport.window()");
		await send("Input.dispatchMouseEvent", { type: "mouseWheel", x: px + 100, y: py, deltaX: 0, deltaY: -500 }, sessionId);
		await sleep(300);
		result.window_after = await evaluate("window.tracerReport.window()");
		result.hover_zoomed = await hover();
	}
	const shotArgs = { format: "png", captureBeyondViewport: full || at !== null };
	if (at !== null) {
		const y = /^[0-9]+$/.test(at) ? Number(at) : await evaluate(`document.getElementById(${JSON.stringify(at)}).offsetTop`);
		shotArgs.clip = { x: 0, y, width: 1400, height: 1000, scale: 1 };
	}
	if (full) {
		const h = await evaluate("document.documentElement.scrollHeight");
		shotArgs.clip = { x: 0, y: 0, width: 1400, height: Math.min(h, 16000), scale: 1 };
	}
	const s = await send("Page.captureScreenshot", shotArgs, sessionId);
	const png = Buffer.from(s.data, "base64");
	fs.writeFileSync(shot, png);
	result.screenshot_bytes = png.length;
	clearTimeout(timer);
	finish(0);
})().catch((e) => finish(1, e.message));
