#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze report: the HTML page of a real recording. Without a browser:
# the embedded JSON (gzip, base64, processes in columns) equals summary --json, top --json, critical-path --json,
# idle --json and export's process objects (the keys it keeps); an argv holding
# "</script>" cannot end the data element; mode 0600 (it holds argv), existing
# file refused without -f. In headless Chromium (tests/browser/cdp_report.js,
# over --remote-debugging-pipe): no console error or exception, no request
# but the file itself, the page shows the process count, the top tool and the
# critical path of summary --json, the table sorts by CPU, hovering the
# timeline's first bar names its process and the wheel zooms in, a green
# banner, and a non-blank
# screenshot (kept as $O/test-artefacts/64_report.png); a trace with drops
# shows the red INCOMPLETE banner; a browser without DecompressionStream
# gets a one-line message; report --by rule of a recorded tiny
# Snakemake run embeds export --tasks and top --by rule unchanged and shows
# as many task rows as export --tasks has (no Tasks section without --by).
# Skips the browser part (exit 77 after the
# other checks) without chromium or node (scripts/deps.sh --test).
source "$(dirname "$0")/lib.sh"
need_root
here=$(cd "$(dirname "$0")" && pwd)
OB=$(cd "${O:-build}" && pwd)
ART=$OB/test-artefacts
mkdir -p "$ART"
cd "$T"

# a run with a failure, a signal, a hostile argv and one of UTF-16 pairs and a control byte
record -f -o run.tz -- sh -c '/bin/echo "</script><script>document.title=1</script><!--" >/dev/null;
	/bin/echo "é😀 $(printf "\001")x" "😀" >/dev/null;
	/bin/false; sh -c "kill -TERM \$\$"; sleep 0.2; exit 0' || fail "record failed"

umask 022
timeout 120 "$A" report run.tz || fail "report failed"
[ -s report.html ] || fail "no report.html written"
[ "$(stat -c %a report.html)" = 600 ] || fail "report.html mode $(stat -c %a report.html), want 600"
rc=0
timeout 120 "$A" report run.tz 2>err || rc=$?
[ $rc = 1 ] || fail "an existing report.html: exit $rc, want 1"
grep -qx "tracer-analyze: 'report.html': file exists (use -f to overwrite)" err || fail "refusal: $(cat err)"
timeout 120 "$A" report -f -o run.html run.tz || fail "report -o failed"
rc=0
timeout 30 "$A" report -o x.html /nonexistent.tz 2>err || rc=$?
[ $rc = 1 ] && [ ! -e x.html ] && [ "$(wc -l <err)" = 1 ] || fail "missing input: exit $rc, $(cat err)"

for c in "summary --json" "top --json -n 0" "critical-path --json" "idle --json"; do
	timeout 120 "$A" $c run.tz >"$(echo "$c" | cut -d' ' -f1).json" || fail "$c failed"
done
timeout 120 "$A" export --format jsonl --samples run.tz >procs.jsonl || fail "export failed"
timeout 60 python3 - "$here/../browser" <<'PY' || fail "embedded data"
import json, re, sys
sys.path.insert(0, sys.argv[1])
import report_data
h = open("run.html", encoding="utf-8").read()
scripts = re.findall(r"<script[^>]*>", h)
assert len(scripts) == 2, scripts          # the data and the page's own script only
assert "<" not in report_data.json_text(h), "a raw '<' in the data's JSON"
d = report_data.load("run.html")
assert d["report_version"] == 4, d["report_version"]
cols = json.loads(report_data.json_text(h))["processes"]["columns"]
assert {k: cols[k]["type"] for k in ("id", "parent_id", "pid", "start_s", "utime_s", "argv", "shared")} == {
    "id": "id", "parent_id": "id", "pid": "num", "start_s": "num", "utime_s": "num", "argv": "lists",
    "shared": "index"}, cols                # numbers, ids and argv in binary, not the JSON fallback
for k, f in (("summary", "summary.json"), ("top", "top.json"), ("critical_path", "critical-path.json"),
             ("idle", "idle.json")):
    assert d[k] == json.load(open(f)), k
procs = [json.loads(l) for l in open("procs.jsonl")]
assert len(d["processes"]) == len(procs) == d["summary"]["counts"]["processes"], len(procs)
for a, b in zip(d["processes"], procs):
    assert a == {k: b[k] for k in a}, (a["id"], b["id"])
    assert {"id", "pid", "argv", "tool", "exit_code", "signal", "samples"} <= set(a)
hostile = [p for p in d["processes"] if p["argv"][:1] == ["/bin/echo"] and "</script>" in p["argv"][1]]
wide = [p for p in d["processes"] if p["argv"][:1] == ["/bin/echo"] and p["argv"][-1] == "\U0001F600"]
assert wide and wide[0]["argv"][1] == "\u00e9\U0001F600 \u0001x", wide  # the text's UTF-16 offsets
assert hostile and hostile[0]["argv"][1] == "</script><script>document.title=1</script><!--", hostile
assert any(p["signal"] == 15 for p in d["processes"]), "the TERM'd shell"
assert any(p["exit_code"] == 1 and p["argv"] == ["/bin/false"] for p in d["processes"]), "/bin/false"
assert set(d["colors"]) == {"other", "fail", "tools"} and d["colors"]["tools"], d["colors"]
PY

# the sample's page is pinned by its SHA-256 (tests/data/golden/pipeline.html.sha256):
# a change to what report writes for one trace is deliberate. After one, check
# the page (make demo; node tests/browser/cdp_report.js), then renew the pin:
#   build/tracer-analyze report -f -o /tmp/p.html samples/pipeline.tz &&
#   sha256sum </tmp/p.html >tests/data/golden/pipeline.html.sha256
S=${TESTS_DIR:?}/../samples
(cd "$S/.." && timeout 120 "$A" report -o "$T/sample.html" samples/pipeline.tz) || fail "report of the sample"
want=$(cut -d' ' -f1 "$TESTS_DIR/data/golden/pipeline.html.sha256")
got=$(sha256sum <"$T/sample.html" | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "report of samples/pipeline.tz changed (sha256 $got, pinned $want): see the comment above"

command -v node >/dev/null || { echo "skip: node missing (scripts/deps.sh --test)"; exit 77; }
node --check "$here/../../analyze/report/report.js" || fail "report.js does not parse"
command -v "${CHROMIUM:-chromium}" >/dev/null || { echo "skip: chromium missing (scripts/deps.sh --test)"; exit 77; }
timeout 180 node "$here/../browser/cdp_report.js" run.html "$ART/64_report.png" --sort cpu --interact >cdp.json ||
	fail "the browser failed"
cp run.html "$ART/64_report.html"
timeout 60 python3 - "$here/../visual" "$ART/64_report.png" <<'PY' || fail "in the browser: $(cat cdp.json)"
import json, sys
sys.path.insert(0, sys.argv[1])
from pngdiff import read_png
r = json.load(open("cdp.json"))
s = json.load(open("summary.json"))
top = json.load(open("top.json"))
dom = r["dom"]
assert r["ready"] and r["drawn"], "the page never finished drawing"
assert r["errors"] == [], r["errors"]
assert r["requests"] == [], r["requests"]
assert dom["page_errors"] is None, dom["page_errors"]
assert dom["processes"] == s["counts"]["processes"], (dom["processes"], s["counts"]["processes"])
assert dom["top_tool"] == top[0]["tool"] == s["top_tools"][0]["tool"], (dom["top_tool"], top[0]["tool"])
cp = [t["tool"] for t in s["critical_path"]["by_tool"]]
shown = [part.rsplit(" ", 2)[0] for part in dom["critical_tools"].split(", ")]
assert shown == cp, (shown, cp)
assert not dom["banner_bad"] and dom["banner"].startswith("Complete"), dom["banner"]
assert dom["table_count"] == "%d of %d processes" % (s["counts"]["processes"], s["counts"]["processes"]), dom["table_count"]
assert r["rows"] == s["counts"]["processes"] and dom["table_rows"] > 0, (r["rows"], dom["table_rows"])
procs = [json.loads(l) for l in open("procs.jsonl")]
cpu = [p["utime_s"] + p["stime_s"] for p in procs]
assert r["sorted_first_pid"] == procs[cpu.index(max(cpu))]["pid"], "sort by CPU: first pid %s" % r["sorted_first_pid"]
# the timeline: hovering the first bar names its process; the wheel zooms in
first = min(procs, key=lambda p: (p["start_s"], procs.index(p)))
assert r["hover"] and r["hover"].startswith("pid %d " % first["pid"]), (r["hover"], first["pid"])
assert "exit " in r["hover"] and "CPU " in r["hover"] and "peak RSS" in r["hover"], r["hover"]
b, a = r["window_before"], r["window_after"]
assert a[1] - a[0] < b[1] - b[0] and a[0] >= b[0] and a[1] <= b[1], (b, a)
assert r["hover_zoomed"] and r["hover_zoomed"].startswith("pid %d " % first["pid"]), r["hover_zoomed"]
w, h, rows = read_png(sys.argv[2])
assert (w, h) == (1400, 1000), (w, h)
colours = set()
for row in rows[::10]:
    for x in range(0, len(row), 30):
        colours.add(bytes(row[x:x + 3]))
assert len(colours) >= 8, "screenshot nearly blank: %d colours" % len(colours)
# the cores chart is never above the machine's CPUs (bins held to it, as plot)
assert dom["cpu_peak"] is not None and 0 < dom["cpu_peak"] <= s["host"]["cpus"] + 1e-9, (dom["cpu_peak"], s["host"])
PY

# a trace that lost events: the red banner
mkdir -p syn && "$OB/tests/test_model" --write syn >/dev/null 2>&1 || fail "test_model --write (make the unit tests first)"
timeout 120 "$A" report -o drops.html syn/drops.tz 2>/dev/null || fail "report of drops.tz"
timeout 180 node "$here/../browser/cdp_report.js" drops.html drops.png >cdp2.json || fail "the browser failed (drops)"
timeout 60 python3 - <<'PY' || fail "drops in the browser: $(cat cdp2.json)"
import json
r = json.load(open("cdp2.json"))
assert r["ready"] and r["drawn"] and r["errors"] == [] and r["requests"] == [], r
assert r["dom"]["banner_bad"] and r["dom"]["banner"].startswith("INCOMPLETE"), r["dom"]["banner"]
assert "dropped" in r["dom"]["banner"], r["dom"]["banner"]
PY
# a browser without DecompressionStream: one line in the page saying so
sed 's|<script>/\* tracer-analyze report|<script>window.DecompressionStream = undefined; /* tracer-analyze report|' run.html >nods.html
grep -q "DecompressionStream = undefined" nods.html || fail "cannot make the page without DecompressionStream"
timeout 120 "${CHROMIUM:-chromium}" --headless=new --no-sandbox --disable-gpu --user-data-dir="$T/nods-profile" \
	--dump-dom "file://$T/nods.html" >nods.dom 2>/dev/null || fail "chromium --dump-dom failed"
grep -q '<p id="noscript">This report could not be drawn: this browser cannot unpack the report.s data (no DecompressionStream' nods.dom ||
	fail "no message without DecompressionStream: $(grep -o '<header.*</header>' nods.dom)"
! grep -q 'data-ready=' nods.dom || fail "a page without its data says data-ready"
# report --by rule of a tiny Snakemake run: the Tasks section shows every
# task of export --tasks, the tasks and task_groups embedded unchanged
if command -v snakemake >/dev/null; then
	mkdir wf
	cat > wf/Snakefile <<'EOF'
rule all:
    input: expand("o/{s}.txt", s=["a", "b"])
rule step:
    output: "o/{s}.txt"
    shell: "seq 2000 | sort -n > {output}; sleep 0.3"
EOF
	(cd wf && record -o "$T/smk.tz" -- env PATH=/usr/sbin:/usr/bin:/sbin:/bin snakemake -j 2 -q) || fail "record snakemake"
	timeout 120 "$A" report --by rule -o smk.html smk.tz 2>smk.err || fail "report --by rule: $(cat smk.err)"
	timeout 120 "$A" export --tasks --format jsonl smk.tz > tasks.jsonl 2>/dev/null || fail "export --tasks"
	timeout 120 "$A" top --json -n 0 --by rule smk.tz > groups.json 2>/dev/null || fail "top --by rule"
	timeout 180 node "$here/../browser/cdp_report.js" smk.html "$ART/64_report_tasks.png" --at tasks >cdp3.json ||
		fail "the browser failed (tasks)"
	timeout 60 python3 - "$here/../browser" <<'PY' || fail "report --by rule: $(cat cdp3.json)"
import json, sys
sys.path.insert(0, sys.argv[1])
import report_data
d = report_data.load("smk.html")
tasks = [json.loads(l) for l in open("tasks.jsonl")]
assert len(tasks) == 2, tasks
assert d["by"] == "rule" and d["tasks"] == tasks, (d.get("by"), d.get("tasks"))
assert d["task_groups"] == json.load(open("groups.json")), d["task_groups"]
r = json.load(open("cdp3.json"))
assert r["ready"] and r["drawn"] and r["errors"] == [] and r["requests"] == [], r
dom = r["dom"]
assert dom["tasks_hidden"] is False and dom["tasks"] == len(tasks) == dom["task_rows"], dom
assert 0 < dom["cpu_peak"] <= d["summary"]["host"]["cpus"] + 1e-9, (dom["cpu_peak"], d["summary"]["host"])
PY
	# without --by: no Tasks section, no tasks in the data
	timeout 180 node "$here/../browser/cdp_report.js" run.html x.png >cdp4.json || fail "the browser failed"
	python3 -c 'import json, sys; d = json.load(open("cdp4.json"))["dom"]; sys.exit(not (d["tasks_hidden"] and d["tasks"] is None))' ||
		fail "a report without --by shows tasks: $(cat cdp4.json)"
	rc=0
	timeout 30 "$A" report --by tool -o y.html smk.tz 2>err || rc=$?
	[ $rc = 2 ] && [ ! -e y.html ] && grep -q "^tracer-analyze: --by: 'tool' is not one of task, rule, job, container$" err ||
		fail "report --by tool: exit $rc, $(cat err)"
else
	echo "note: snakemake missing (scripts/deps.sh): report --by rule not checked"
fi
echo "ok: report of $(python3 -c 'import json; print(json.load(open("summary.json"))["counts"]["processes"])') processes, screenshot $ART/64_report.png"
