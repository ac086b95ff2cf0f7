#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# samples_overhead.sh - the sampler's cost with many live processes (issue 6):
# tracer-record follows a command that keeps N processes sleeping (default
# 10,000) for SEC seconds; the recorder's own CPU time (utime + stime from
# /proc/PID/stat, which includes the kernel time of the iter/task passes it
# reads) is measured over a window after every sleeper has started, with
# --sample-interval 1 and with sampling off, same run. Prints one table row
# per setting and the difference; exits 1 when the 1 s setting uses 2% of
# one core or more.
#
#   bench/samples_overhead.sh [N] [SEC]      (root; O=build by default)
set -euo pipefail
N=${1:-10000}
SEC=${2:-40}
O=${O:-build}
R=$O/tracer-record
W=$O/tests/helpers/recwork
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 2; }
[ -x "$R" ] && [ -x "$W" ] || { echo "build first: make O=$O all $O/tests/helpers/recwork" >&2; exit 2; }
tmp=$(mktemp -d /tmp/samples-bench.XXXXXX)
rp=
cleanup() {
	[ -n "$rp" ] && kill -INT "$rp" 2>/dev/null || true
	pkill -9 -P "$(cat "$tmp/cmd.pid" 2>/dev/null || echo 0)" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)

cpu_ticks() { # pid -> utime + stime ticks
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

one() { # interval
	local iv=$1 out=$tmp/run-$1.tz
	rm -f "$out" "$tmp/cmd.pid"
	"$R" -o "$out" --sample-interval "$iv" -- sh -c "echo \$\$ >$tmp/cmd.pid; exec $W sleepers $N $SEC" 2>"$tmp/rec.err" &
	rp=$!
	# wait until every sleeper is alive
	for _ in $(seq 600); do
		[ -s "$tmp/cmd.pid" ] && [ "$(pgrep -c -P "$(cat "$tmp/cmd.pid")" 2>/dev/null || echo 0)" -ge "$N" ] && break
		sleep 0.1
	done
	sleep 2
	local t0 c0 t1 c1
	t0=$(date +%s.%N); c0=$(cpu_ticks $rp)
	sleep $((SEC / 2))
	t1=$(date +%s.%N); c1=$(cpu_ticks $rp)
	local alive
	alive=$(pgrep -c -P "$(cat "$tmp/cmd.pid")" || echo 0)
	# stop early: the sleepers are killed, the recorder ends with them
	pkill -9 -P "$(cat "$tmp/cmd.pid")" || true
	wait $rp 2>/dev/null || true
	rp=
	awk -v iv="$iv" -v n="$alive" -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
		'BEGIN { w = t1 - t0; printf "%-18s %8d %10.3f %10.2f%%\n", iv, n, c / hz, 100 * c / hz / w }'
}

printf '%-18s %8s %10s %11s\n' "sample-interval s" "alive" "cpu s" "% of a core"
base=$(one 0)
echo "$base"
with=$(one 1)
echo "$with"
pct=$(echo "$with" | awk '{ gsub("%", "", $4); print $4 }')
awk -v p="$pct" 'BEGIN { exit !(p < 2.0) }' || { echo "FAIL: ${pct}% of one core with 1 s samples (target < 2%)"; exit 1; }
echo "ok: ${pct}% of one core with 1 s samples and $N sleeping processes (target < 2%)"
