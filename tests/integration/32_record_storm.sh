#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Exec storm: 10,000 sequential fork+exec of /bin/true, default options: every
# fork, exec and exit recorded, zero drops. Drop counters (C08): a 4 KiB ring
# buffer with a stopped reader drops events, and for each type recorded +
# dropped = expected; a tracked-process map of 100 entries under 300
# concurrent processes counts exactly the 202 it could not track.
# 10,000 execs take minutes on a loaded 2-core machine (bench/ runs 20,000)
REC_TIMEOUT=${REC_TIMEOUT:-500}
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/bin:/bin

count() { # file type
	grep -c " $2 " "$1" || true
}
meta() { # info-file key
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# --- the storm: exact counts, zero drops
N=10000
record -o storm.tz -- "$W" storm $N || fail "record storm"
"$A" info storm.tz >info.txt || fail "info storm.tz"
"$A" cat --type fork,exec,exit storm.tz >cat.txt || fail "cat storm.tz"
[ "$(meta info.txt drops_total)" = 0 ] || fail "storm: $(meta info.txt drops_total) drops"
for t in fork exec exit; do
	n=$(count cat.txt $t)
	# the recorder's own child (recwork) plus N true
	[ "$n" = $((N + 1)) ] || fail "storm: $n $t events, want $((N + 1))"
done
grep -c '"/bin/true"' cat.txt >n.txt || true
[ "$(cat n.txt)" = $N ] || fail "storm: $(cat n.txt) exec of /bin/true, want $N"

# --- C08: a 4 KiB ring buffer whose reader is stopped (SIGSTOP) during two
# parallel storms must drop; for each type recorded + dropped = expected
M=1000
"$R" --ringbuf-size 4096 -o drop.tz -- sh -c ": >$T/started; sleep 0.5; $W storm $M & $W storm $M & wait; : >$T/done" 2>rec.err &
rp=$!
bg_track $rp
for _ in $(seq 600); do [ -e started ] && break; sleep 0.1; done
[ -e started ] || fail "the command did not start"
kill -STOP $rp
for _ in $(seq 600); do [ -e done ] && break; sleep 0.1; done
kill -CONT $rp
[ -e done ] || fail "the storms did not finish"
rc=0; wait $rp || rc=$?
[ $rc = 0 ] || { cat rec.err; fail "drop: recorder exit $rc"; }
"$A" info drop.tz >info.txt || fail "info drop.tz"
"$A" cat --type fork,exec,exit drop.tz >cat.txt || fail "cat drop.tz"
want=$((2 * M + 4)) # sh, sleep, two storms, 2M true
for t in fork exec exit; do
	n=$(count cat.txt $t)
	d=$(meta info.txt drops_$t)
	[ $((n + d)) = $want ] || fail "drop: $t recorded $n + dropped $d != $want"
done
[ "$(meta info.txt drops_total)" -gt 1000 ] || fail "only $(meta info.txt drops_total) drops with a stopped reader"
grep -Eq '^dropped +[1-9]' info.txt || fail "chunk headers do not count the lost events"

# --- C08: a full tracked-process map is counted, exactly
record --max-procs 100 -o map.tz -- sh -c "$W sleepers 300 2" || fail "record map"
"$A" info map.tz >info.txt || fail "info map.tz"
"$A" cat --type fork,exec,exit map.tz >cat.txt || fail "cat map.tz"
[ "$(meta info.txt drops_map_full)" = 202 ] || fail "map_full $(meta info.txt drops_map_full), want 202"
[ "$(count cat.txt fork)" = 302 ] || fail "map: $(count cat.txt fork) forks, want 302"
[ "$(count cat.txt exit)" = 100 ] || fail "map: $(count cat.txt exit) exits, want 100 (tracked)"
echo ok
