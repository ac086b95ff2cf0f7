#!/usr/bin/env bash
# bench/startup.sh - a recorder's start-up and stop, wrapped around a COMMAND
# that does nothing: the time from the recorder's exec to COMMAND's first
# instructions, and from COMMAND's exit to the recorder's exit (its file
# sealed), and the CPU time the whole run took (user + system: the BPF
# verifier's work is system time of the recorder). Median of N interleaved
# rounds per recorder (docs/PERFORMANCE.md "Start-up and stop"), then the
# load average before and after the rounds.
#
# usage: bench/startup.sh [-n N] [--recorders LIST] [--rows]
#   -n N          rounds (default 9)
#   --recorders   none,tracer,perf (default: all three; none = COMMAND alone,
#                 the floor: its own exec and dynamic loading); tracer-base
#                 on request: the tracer-record named by $TRACER_BASE (another
#                 build, e.g. of main: before and after in one run)
#   --rows        print only the table rows, no header (and no load line)
#
# Environment: O=build dir of tracer (default build-bench; must hold
# tracer-record), or TRACER_RECORD=path. Must run as root. The clock is
# CLOCK_BOOTTIME, read by bench/startup.c (built into a temporary directory).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
O=${O:-build-bench}
case $O in /*) ;; *) O=$root/$O ;; esac
REC=${TRACER_RECORD:-$O/tracer-record}
n=9
recorders=none,tracer,perf
rows=0

die() { echo "bench/startup.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=${2:?}; shift 2 ;;
	--recorders) recorders=${2:?}; shift 2 ;;
	--rows) rows=1; shift ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/startup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case $n in ''|*[!0-9]*|0) die "-n: '$n' is not a positive count" ;; esac
[ "$(id -u)" = 0 ] || die "must run as root"

tmp=$(mktemp -d /tmp/bench-startup.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -Werror "$here/startup.c" -o "$tmp/bench-startup" || die "cannot build bench/startup.c"
S=$tmp/bench-startup

IFS=, read -r -a recs <<<"$recorders"
for r in "${recs[@]}"; do
	case $r in
	none) ;;
	tracer) [ -x "$REC" ] || die "'$REC': no tracer-record (set O= or TRACER_RECORD=)" ;;
	tracer-base) [ -x "${TRACER_BASE:-}" ] || die "tracer-base: set TRACER_BASE to a tracer-record" ;;
	perf) command -v perf >/dev/null || die "perf: not installed" ;;
	*) die "--recorders: unknown recorder '$r'" ;;
	esac
done

# one round of recorder $1: appends "start_ms stop_ms" to $tmp/$1.txt
one() {
	local r=$1 stamp=$tmp/stamp out line cmd
	rm -f "$stamp" "$tmp/out"
	case $r in
	none) cmd=() ;;
	tracer) cmd=("$REC" --no-progress -f -o "$tmp/out" --) ;;
	tracer-base) cmd=("$TRACER_BASE" --no-progress -f -o "$tmp/out" --) ;;
	perf) cmd=(perf record -q -o "$tmp/out" --) ;;
	esac
	line=$(timeout 120 "$S" "${cmd[@]}" "$S" --stamp "$stamp" 2>>"$tmp/$r.err") ||
		die "$r: the round did not complete (stderr: $tmp/$r.err)"
	read -r t0 t1 st cpu <<<"$line"
	[ "$st" = 0 ] || die "$r: exit status $st"
	local tc
	tc=$(cat "$stamp") || die "$r: COMMAND did not run"
	awk -v a="$t0" -v c="$tc" -v b="$t1" -v u="$cpu" \
		'BEGIN { printf "%.1f %.1f %.1f\n", (c - a) / 1e6, (b - c) / 1e6, u / 1e6 }' \
		>>"$tmp/$r.txt"
}

load0=$(cut -d' ' -f1 /proc/loadavg)
for ((i = 0; i < n; i++)); do
	for r in "${recs[@]}"; do one "$r"; done
done
load1=$(cut -d' ' -f1 /proc/loadavg)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

if [ "$rows" = 0 ]; then
	echo "| recorder | exec -> COMMAND exec, ms (median; range) | COMMAND exit -> recorder exit, ms (median; range) | CPU, ms (median) | rounds |"
	echo "|---|---|---|---|---|"
fi
for r in "${recs[@]}"; do
	f=$tmp/$r.txt
	s=$(cut -d' ' -f1 "$f" | median) sr=$(cut -d' ' -f1 "$f" | range)
	e=$(cut -d' ' -f2 "$f" | median) er=$(cut -d' ' -f2 "$f" | range)
	c=$(cut -d' ' -f3 "$f" | median)
	name=$r
	[ "$r" = none ] && name="none (COMMAND alone)"
	[ "$r" = tracer ] && name="tracer-record"
	[ "$r" = tracer-base ] && name="tracer-record (\$TRACER_BASE)"
	[ "$r" = perf ] && name="perf record"
	echo "| $name | $s ($sr) | $e ($er) | $c | $n |"
done
# wall times stretch with the machine's load: say what it was
[ "$rows" = 0 ] && echo "Load average (1 min) $load0 before the rounds, $load1 after, on $(nproc) CPUs."
exit 0
