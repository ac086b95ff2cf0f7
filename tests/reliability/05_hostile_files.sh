#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile files (issue 8.5, resource limits). Valid files - every checksum
# right - built to exhaust a reader (tests/helpers/tzwriter_hostile.c):
#  - overlap: a 30 KB file of 8 chunks of 32 MiB of events all at one
#    timestamp (a zstd bomb of valid events, all merged at once): no
#    subcommand holds more than max(256 MiB, 1024 x file) decoded; they stop
#    with one line and exit 1, within seconds;
#  - procs: 50,000 and 200,000 processes: time and memory grow linearly;
#  - cycle: parent links that loop (a 50-process ring, a process that is
#    its own parent, a state-block ppid cycle): every subcommand ends;
#  - chain: a tree 100,000 processes deep: no recursion runs out of stack.
# Every subcommand runs under a time bound and, outside ASan builds, under
# `ulimit -v`. The libFuzzer runs are in docs/RELIABILITY.md.
. "$(dirname "$0")/rlib.sh"
G=$H/tzwriter_hostile
[ -x "$G" ] || { echo "skip: $G not built"; exit 77; }
cd "$T"
asan=0
ldd "$A" 2>/dev/null | grep 'libasan' >/dev/null && asan=1
TIME=/usr/bin/time
[ -x $TIME ] || TIME=
cmds=("info" "verify" "cat" "summary" "tree" "top" "critical-path" "export --format jsonl")

run_bounded() { # vmem-KiB seconds out cmd... ; prints "rc peak-KiB seconds"
	local vm=$1 sec=$2 out=$3 rc=0
	shift 3
	(
		[ $asan = 1 ] || ulimit -v "$vm"
		if [ -n "$TIME" ]; then
			exec $TIME -f '%M %e' -o "$out.time" timeout -k 2 "$sec" "$@"
		else
			exec timeout -k 2 "$sec" "$@"
		fi
	) >"$out" 2>"$out.err" || rc=$?
	[ -s "$out.time" ] || echo "0 0" >"$out.time"
	echo "$rc $(tail -n 1 "$out.time")"
}

# --- overlap: a zstd bomb made of valid events
"$G" ov.tz overlap 8 || fail "generating ov.tz"
size=$(stat -c %s ov.tz)
[ "$size" -lt 100000 ] || fail "ov.tz is $size bytes: not a bomb"
for c in "${cmds[@]}"; do
	read -r rc kib sec < <(run_bounded 1500000 60 out $A $c ov.tz)
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$c on ov.tz: exit $rc: $(head -c 300 out.err)"
	if [ "$rc" = 1 ]; then
		[ "$(wc -l <out.err)" = 1 ] || fail "$c on ov.tz: not one line: $(head -c 300 out.err)"
		grep -q "too many chunks overlap in time" out.err || fail "$c on ov.tz: $(cat out.err)"
	fi
	[ $asan = 1 ] || [ "$kib" -lt $((320 * 1024)) ] || fail "$c on ov.tz ($size bytes): peak RSS $kib KiB"
	echo "overlap: $c exit $rc, peak $kib KiB, ${sec}s"
done
# the same decoder limit holds for recover and slice
rc=0; timeout 60 "$A" recover ov.tz rec.tz >/dev/null 2>err.txt || rc=$?
[ $rc -le 1 ] || fail "recover on ov.tz: exit $rc"

# --- procs: linear in the number of processes
"$G" p1.tz procs 50000 || fail "generating p1.tz"
"$G" p4.tz procs 200000 || fail "generating p4.tz"
s1=$(stat -c %s p1.tz) s4=$(stat -c %s p4.tz)
for c in summary tree "export --format jsonl" critical-path; do
	read -r rc1 k1 t1 < <(run_bounded 3000000 120 out $A $c p1.tz)
	read -r rc4 k4 t4 < <(run_bounded 3000000 240 out $A $c p4.tz)
	[ "$rc1" = 0 ] && [ "$rc4" = 0 ] || fail "$c on p1/p4: exit $rc1/$rc4: $(head -c 300 out.err)"
	echo "procs: $c 50k: ${t1}s ${k1} KiB; 200k: ${t4}s ${k4} KiB"
	[ -z "$TIME" ] && continue
	# 4x the processes: at most ~6x the time (+1 s of noise), memory linear
	awk -v a="$t1" -v b="$t4" 'BEGIN { exit !(b <= 6 * a + 1) }' || fail "$c: ${t1}s -> ${t4}s for 4x the processes"
	[ $asan = 1 ] || [ "$k4" -lt $((65536 + 256 * s4 / 1024)) ] || fail "$c: $k4 KiB for a $s4-byte file"
done

# --- cycles in parent links
"$G" cy.tz cycle 50 || fail "generating cy.tz"
for c in "${cmds[@]}"; do
	read -r rc kib sec < <(run_bounded 1500000 10 out $A $c cy.tz)
	[ "$rc" = 0 ] || fail "$c on parent cycles: exit $rc: $(head -c 300 out.err)"
done
"$A" export --format jsonl cy.tz >cy.jsonl
[ "$(grep -c '"pid":20[0-9][0-9]' cy.jsonl)" = 50 ] || fail "the 50-process cycle is not exported whole"

# --- deep nesting
"$G" ch.tz chain 100000 || fail "generating ch.tz"
for c in "${cmds[@]}" "export --format chrome"; do
	read -r rc kib sec < <(run_bounded 3000000 120 out $A $c ch.tz)
	[ "$rc" = 0 ] || fail "$c on a 100,000-deep tree: exit $rc: $(head -c 300 out.err)"
done
echo ok
