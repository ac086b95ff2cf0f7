#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# report_browser.sh - time the HTML report of a synthetic trace with many
# processes in headless Chromium: writing it (tracer-analyze report), loading
# it (navigation to the page's data-ready: unpack, parse, summary, tables,
# the process table; then to data-drawn: the timeline, charts and tree too)
# and sorting its process table (by CPU, descending).
#
#   bench/report_browser.sh [PROCS]        (default 200000)
#   env: O (build dir, default build), CHROMIUM, WORK (kept; default a temp dir)
# Prints one line: procs=N html_bytes=B report_s=S load_ms=L drawn_ms=W sort_ms=T rows=R errors=E
# (E: console errors, exceptions, requests and a page that never got ready
# or drawn) and the page's own timings (ms from its script's start).
# and leaves the screenshot and the cdp result in $WORK when WORK is given.
set -euo pipefail
name=report_browser
# shellcheck source=bench/synth.sh
. "$(dirname "$0")/synth.sh"
procs=${1:-200000}
command -v node >/dev/null || die "node missing (scripts/deps.sh --test)"
command -v "${CHROMIUM:-chromium}" >/dev/null || die "chromium missing (scripts/deps.sh --test)"
synth_build tracer-rb
# 6 events a process (2 processes a task: 3 each) and a few drops records
"$w/bench-tzsynth" -o "$w/big.tz" -e $((procs * 3 + 1000)) -p "$procs" >/dev/null || die "bench-tzsynth failed"
t0=$(date +%s.%N)
timeout 600 "$O/tracer-analyze" report -f -o "$w/big.html" "$w/big.tz" || die "report failed"
t1=$(date +%s.%N)
timeout 600 node "$root/tests/browser/cdp_report.js" "$w/big.html" "$w/big.png" --sort cpu --timeout 300 \
	>"$w/cdp.json" || die "the browser failed"
python3 - "$w/cdp.json" "$procs" "$(stat -c %s "$w/big.html")" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("procs=%s html_bytes=%s report_s=%.2f load_ms=%s drawn_ms=%s sort_ms=%.0f rows=%s errors=%d" % (
    sys.argv[2], sys.argv[3], float(sys.argv[4]), r.get("load_ms"), r.get("drawn_ms"), r.get("sort_ms", -1),
    r.get("rows"), len(r["errors"]) + len(r["requests"]) + (0 if r["ready"] and r["drawn"] else 1)))
print("timings: %s" % (r.get("dom") or {}).get("timings"), file=sys.stderr)
PY
