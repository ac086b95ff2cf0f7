#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# hosts.sh - many hosts (issue 21): merging and summarising N synthetic host
# traces of E events each, side by side with summarising one trace of N x E
# events (the same generator, the same number of events and processes).
# Each host trace has its own hostname and boot id (bench-tzsynth -H), so
# no process is shared between hosts.
#
#   bench/hosts.sh [N] [E]          (default 10 hosts of 1,000,000 events)
#   env: O (build dir, default build), WORK (kept; default a temp dir)
# Prints a markdown table: seconds and peak RSS (MiB) of merge, summary of
# the merge, summary of the N files, and summary of the one big trace.
set -euo pipefail
name=hosts
# shellcheck source=bench/synth.sh
. "$(dirname "$0")/synth.sh"
n=${1:-10}
e=${2:-1000000}
[ -x /usr/bin/time ] || die "/usr/bin/time missing (GNU time: apt-get install time)"
synth_build tracer-hosts
mkdir -p "$w/hosts"
for i in $(seq 1 "$n"); do
	"$w/bench-tzsynth" -o "$w/hosts/node$i.tz" -e "$e" -p $((e / 3)) -H "node$i" >/dev/null ||
		die "bench-tzsynth failed"
done
"$w/bench-tzsynth" -o "$w/one.tz" -e $((n * e)) -p $((n * e / 3)) -H one >/dev/null || die "bench-tzsynth failed"
sync
A=$O/tracer-analyze
row() { # LABEL CMD...: one table row, the median-free single run (seconds, peak MiB)
	local label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$w/time" "$@" >/dev/null 2>"$w/err" || { cat "$w/err" >&2; die "$label failed"; }
	read -r s kib <"$w/time"
	printf '| %s | %s | %.0f |\n' "$label" "$s" "$((kib / 1024))"
}
echo "| $n hosts x $e events | seconds | peak RSS MiB |"
echo "|---|---|---|"
row "merge -o run.tz hosts/ (copy, verify every payload)" "$A" merge -f -o "$w/run.tz" "$w/hosts"
row "summary run.tz ($n hosts)" "$A" summary "$w/run.tz"
row "summary hosts/ ($n files)" "$A" summary "$w/hosts"
row "summary one.tz ($((n * e)) events, one host)" "$A" summary "$w/one.tz"
echo
echo "files: $(du -sh "$w/hosts" | cut -f1) of host traces, run.tz $(du -h "$w/run.tz" | cut -f1), one.tz $(du -h "$w/one.tz" | cut -f1)"
