#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze report of a synthetic 200,000-process trace (bench-tzsynth)
# in headless Chromium: the page finishes drawing without an error, its table
# holds every process and sorts by CPU. Times are measured by
# bench/report_browser.sh (docs/PERFORMANCE.md) and only bounded here,
# generously (a loaded 2-core machine): load (the table ready) and drawn (the
# timeline, charts and tree too) under 5 minutes, sort under 30 s.
# Skips without chromium or node (scripts/deps.sh --test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "skip: node missing (scripts/deps.sh --test)"; exit 77; }
command -v "${CHROMIUM:-chromium}" >/dev/null || { echo "skip: chromium missing (scripts/deps.sh --test)"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(timeout 900 "$here/../../bench/report_browser.sh" 200000) || fail "bench/report_browser.sh failed"
echo "$out"
[[ $out =~ rows=200000\  ]] || fail "table rows: $out"
[[ $out =~ errors=0$ ]] || fail "errors in the page: $out"
load=$(sed -n 's/.*load_ms=\([0-9]*\).*/\1/p' <<<"$out")
drawn=$(sed -n 's/.*drawn_ms=\([0-9]*\).*/\1/p' <<<"$out")
sort=$(sed -n 's/.*sort_ms=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$load" ] && [ "$load" -lt 300000 ] || fail "load took ${load:-?} ms"
[ -n "$drawn" ] && [ "$drawn" -lt 300000 ] || fail "drawing took ${drawn:-?} ms"
[ -n "$sort" ] && [ "$sort" -lt 30000 ] || fail "sort took ${sort:-?} ms"
