#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A slice's process with no sample by the window's end has an unknown RSS
# (its end sample says threads 0: docs/tracer-analyze.md, slice). Every view
# shows it as unknown, never as 0, and leaves it out of maxima and sums:
# tree --collapse, export --samples (jsonl, chrome), top --sort rss, diff,
# plot mem and the report (memory chart, tool table), tasks (export --tasks,
# top --by rule, rightsize: no memory suggested from unknown), summary's
# peak together. And export --tasks %cpu is the measured value, not held to
# threads (rightsize's and top's cores are).
#
# Synthetic (test_model --write rss.tz; exact values), sliced at 2..5 s:
# big (4 MiB in samples), three workers and two of three mixed started at
# 4.5 s without samples (unknown), zero (exited in the window with a peak of
# 0 KiB: known), the root shell (no samples: unknown); spike (10 ms of wall,
# 30 ms of CPU) after the window. Truth: the values test_model wrote.
. "$(dirname "$0")/synthlib.sh"

timeout 60 "$A" slice --from 2 --to 5 "$tmp/rss.tz" "$tmp/r.tz" 2>/dev/null || bad "slice 2..5"

# tree --collapse: a run's max RSS is over its known members
timeout 60 "$A" tree "$tmp/r.tz" >"$tmp/tree.txt" || bad "tree"
grep -q "3× worker .* max rss -$" "$tmp/tree.txt" || bad "tree: workers' max rss: $(grep worker "$tmp/tree.txt")"
grep -q "3× mixed .* max rss 1.0 MiB (2 unknown)$" "$tmp/tree.txt" ||
	bad "tree: mixed max rss: $(grep mixed "$tmp/tree.txt")"
grep -q " zero .* rss 0 B$" "$tmp/tree.txt" || bad "tree: zero's known 0: $(grep zero "$tmp/tree.txt")"
[ $fails = 0 ] && echo "ok   tree: a run of unknown RSS says -, a mixed run its known max and how many are unknown"

# export --samples (jsonl) and chrome: the unknown end sample is null / no
# counter point; a known sample keeps its value
timeout 60 "$A" export --format jsonl --samples "$tmp/r.tz" >"$tmp/r.jsonl" || bad "export jsonl"
timeout 60 "$A" export --format chrome "$tmp/r.tz" >"$tmp/r.json" || bad "export chrome"
python3 - "$tmp/r.jsonl" "$tmp/r.json" <<'EOF' || bad "export: unknown RSS"
import json, sys
procs = {json.loads(l)["pid"]: json.loads(l) for l in open(sys.argv[1])}
for pid in (299, 311, 312, 313, 321, 322):
    smp = procs[pid]["samples"]
    assert len(smp) == 1 and smp[0]["rss_kib"] is None and smp[0]["threads"] is None, (pid, smp)
assert all(s["rss_kib"] == 4096 and s["threads"] == 1 for s in procs[310]["samples"]), procs[310]
assert procs[320]["samples"][-1]["rss_kib"] == 1024, procs[320]["samples"]
ev = json.load(open(sys.argv[2]))["traceEvents"]
track = {e["args"]["id"].split(".")[0]: e["pid"] for e in ev if e.get("cat") == "process"}
peak = {e["args"]["id"].split(".")[0]: e["args"]["peak_rss_kib"] for e in ev if e.get("cat") == "process"}
rss = {}
for e in ev:
    if e.get("name") == "rss MiB":
        rss.setdefault(e["pid"], []).append(e["args"]["rss"])
for pid in ("299", "311", "321"):
    assert track[pid] not in rss, (pid, rss.get(track[pid]))
    assert peak[pid] is None, (pid, peak[pid])
assert rss[track["310"]] and all(v == 4.0 for v in rss[track["310"]]), rss[track["310"]]
assert peak["330"] == 0, peak["330"]
print("ok   export: unknown samples null in jsonl, no rss point and peak null in chrome")
EOF

# top --sort rss: a known 0 (zero) before the unknown (worker, rss.sh)
timeout 60 "$A" top --sort rss -n 0 "$tmp/r.tz" >"$tmp/top.txt" || bad "top --sort rss"
order=$(awk 'NR > 1 {print $1}' "$tmp/top.txt" | tr '\n' ' ')
case "$order" in
"big mixed zero "*) echo "ok   top --sort rss: $order(unknown last)" ;;
*) bad "top --sort rss order: $order" ;;
esac

# diff: the slice's unknown groups are -/null, the original's their exit peaks
timeout 60 "$A" diff --json -n 0 "$tmp/r.tz" "$tmp/rss.tz" >"$tmp/diff.json" || bad "diff --json"
timeout 60 "$A" diff -n 0 "$tmp/r.tz" "$tmp/rss.tz" >"$tmp/diff.txt" || bad "diff"
python3 - "$tmp/diff.json" "$tmp/diff.txt" <<'EOF' || bad "diff: unknown RSS"
import json, sys
g = {x["tool"]: x for x in json.load(open(sys.argv[1]))["groups"]}
assert g["worker"]["peak_rss_a_kib"] is None and g["worker"]["peak_rss_b_kib"] == 900, g["worker"]
assert g["mixed"]["peak_rss_a_kib"] == 1024 and g["mixed"]["peak_rss_b_kib"] == 1100, g["mixed"]
assert g["zero"]["peak_rss_a_kib"] == 0 and g["spike"]["peak_rss_a_kib"] == 0, (g["zero"], g["spike"])
assert g["spike"]["in"] == "b", g["spike"]
row = [l for l in open(sys.argv[2]) if l.startswith("worker ")][0]
assert " -/900.0 KiB " in row, row
print("ok   diff: the slice's workers -/900.0 KiB (null in --json), zero's known 0 stays 0")
EOF

# plot mem and the report's memory chart: an unknown sample is a gap, said
# so (6: the root, three workers, two mixed); the report's tool table says -
timeout 60 "$A" plot -k mem --script "$tmp/m.gp" -f "$tmp/r.tz" || bad "plot mem"
grep -q "; 6 with RSS unknown (a slice's\\\\nend), not drawn there" "$tmp/m.gp" ||
	bad "plot mem note: $(grep '^set title' "$tmp/m.gp")"
[ $fails = 0 ] && echo "ok   plot mem: 6 with RSS unknown, not drawn"
if command -v node >/dev/null && command -v "${CHROMIUM:-chromium}" >/dev/null; then
	(cd "$tmp" && timeout 120 "$A" report -o r.html r.tz 2>/dev/null) || bad "report"
	timeout 180 node "$(dirname "$0")/../browser/cdp_report.js" "$tmp/r.html" "$tmp/r.png" --eval \
		'[document.getElementById("usage-note").textContent, Array.from(document.querySelectorAll("#tools-table tr")).map(function (r) { return Array.from(r.children).map(function (c) { return c.textContent; }); })]' \
		>"$tmp/cdp.json" || bad "report in the browser"
	python3 - "$tmp/cdp.json" <<'EOF' || bad "report: unknown RSS"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["errors"] == [], r["errors"]
note, rows = r["eval"]
assert "Resident memory: 6 with RSS unknown (a slice's end), not drawn there." in note, note
col = rows[0].index("peak RSS")
rss = {row[0]: row[col] for row in rows[1:]}
assert rss["worker"] == "-" and rss["rss.sh"] == "-" and rss["zero"] == "0 B" and rss["big"] == "4.0 MiB", rss
print("ok   report: memory chart says 6 unknown, tool table worker/rss.sh -, zero 0 B")
EOF
else
	echo "skip report part: node or chromium missing (scripts/deps.sh --test)"
fi

# tasks (--task: one per process): a task with a member of unknown RSS has
# its combined peak and exit sum unknown; top --by rule says - where no task's
# is known; rightsize suggests no memory from unknown
T='worker|big|mixed|zero'
timeout 60 "$A" export --tasks --format jsonl --task "$T" "$tmp/r.tz" >"$tmp/tasks.jsonl" || bad "export --tasks"
timeout 60 "$A" top --by rule --json --task "$T" "$tmp/r.tz" >"$tmp/topr.json" || bad "top --by rule"
timeout 60 "$A" rightsize --json --task "$T" "$tmp/r.tz" >"$tmp/rs.json" || bad "rightsize --json"
timeout 60 "$A" rightsize --config both --task "$T" "$tmp/r.tz" >"$tmp/rs.txt" || bad "rightsize"
python3 - "$tmp/tasks.jsonl" "$tmp/topr.json" "$tmp/rs.json" "$tmp/rs.txt" <<'EOF' || bad "tasks: unknown RSS"
import json, sys
tasks = [json.loads(l) for l in open(sys.argv[1])]
for t in tasks:
    if t["root"].split(".")[0] in ("311", "312", "313", "321", "322"):
        assert t["peak_rss"] is None and t["peak_rss_exit_sum"] is None and t["peak_rss_exit_max"] is None, t
big = [t for t in tasks if t["name"] == "big"][0]
assert big["peak_rss"] == big["peak_rss_exit_sum"] == 4096 * 1024, big
top = {g["tool"]: g for g in json.load(open(sys.argv[2]))}
assert top["worker"]["task_peak_rss_kib"] is None, top["worker"]
assert top["mixed"]["task_peak_rss_kib"] == 1024 and top["zero"]["task_peak_rss_kib"] == 0, top
rules = {r["name"]: r for r in json.load(open(sys.argv[3]))["rules"]}
for name in ("worker", "mixed"):
    r = rules[name]
    assert r["peak_rss_bytes"] is None and r["suggest"]["memory_bytes"] is None, r
assert rules["big"]["suggest"]["memory_bytes"] == 64 << 20 and rules["big"]["peak_rss_bytes"] == 4 << 20, rules["big"]
text = open(sys.argv[4]).read()
row = [l for l in text.splitlines() if l.startswith("worker ")][0]
assert row.split()[8] == "-", row           # PEAK
assert "(PEAK -: 5 tasks' peak RSS unknown" in text, text
nf = text.split("withName: 'worker' {")[1].split("}")[0]
assert "memory =" not in nf and "// memory: not suggested, 3 tasks' peak RSS unknown" in nf, nf
assert "worker:mem_mb" not in text and "mixed:mem_mb" not in text and "big:mem_mb=68" in text, text
assert "# 2 rule(s) without mem_mb: a task's peak RSS unknown" in text, text
print("ok   tasks: unknown combined peaks null, top --by rule -, rightsize suggests no memory for worker, mixed")
EOF

# export --tasks %cpu is the measured value (100 x cpu_s / wall_s), not held
# to the task's threads; rightsize's and top's cores are held (spike: 30 ms of
# CPU in 10 ms of wall on one thread, in the unsliced trace)
timeout 60 "$A" export --tasks --format jsonl --task spike "$tmp/rss.tz" >"$tmp/spike.jsonl" || bad "export --tasks spike"
timeout 60 "$A" export --tasks --format csv --task spike "$tmp/rss.tz" >"$tmp/spike.csv" || bad "export --tasks csv"
timeout 60 "$A" rightsize --json --task spike "$tmp/rss.tz" >"$tmp/spike-rs.json" || bad "rightsize spike"
timeout 60 "$A" top --by rule --json --task spike "$tmp/rss.tz" >"$tmp/spike-top.json" || bad "top spike"
python3 - "$tmp/spike.jsonl" "$tmp/spike.csv" "$tmp/spike-rs.json" "$tmp/spike-top.json" <<'EOF' || bad "%cpu"
import csv, json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["name"] == "spike"][0]
assert abs(t["cpu_s"] - 0.03) < 1e-9 and abs(t["wall_s"] - 0.01) < 1e-9, t
assert t["%cpu"] == 300.0 == round(100 * t["cpu_s"] / t["wall_s"], 1), t
row = [r for r in csv.DictReader(open(sys.argv[2])) if r["name"] == "spike"][0]
assert row["%cpu"] == "300.0", row
r = [x for x in json.load(open(sys.argv[3]))["rules"] if x["name"] == "spike"][0]
assert r["max_cores"] == 1 and r["mean_cores"] == 1, r
g = [x for x in json.load(open(sys.argv[4])) if x["tool"] == "spike"][0]
assert g["max_cores"] == 1, g
print("ok   export --tasks %cpu 300.0 measured; rightsize and top hold the cores to 1 thread")
EOF

# summary: the processes' peak together leaves the unknown out, and says so
timeout 60 "$A" summary "$tmp/r.tz" >"$tmp/sum.txt" 2>/dev/null || bad "summary"
grep -q "^ *6 processes with RSS unknown (a slice's end) not in it: at least that$" "$tmp/sum.txt" ||
	bad "summary: $(grep -A1 'together peak' "$tmp/sum.txt")"
grep -q "together peak 5.0 MiB resident" "$tmp/sum.txt" || bad "summary peak: $(grep 'together' "$tmp/sum.txt")"
[ $fails = 0 ] && echo "ok   summary: together 5.0 MiB (big 4 + mixed 1), 6 with RSS unknown not in it"

exit $((fails > 0))
