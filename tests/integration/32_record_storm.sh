#!/usr/bin/env bash
# Exec storm: 20,000 sequential fork+exec of /bin/true, default options: every
# fork, exec and exit recorded, zero drops. Drop counters (C08): a 4 KiB ring
# buffer under two parallel storms drops events, and for each type recorded +
# dropped = expected; a tracked-process map of 100 entries under 300
# concurrent processes counts exactly the 202 it could not track.
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
N=20000
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

# --- C08: a 4 KiB ring buffer drops; recorded + dropped = expected per type
M=2000
ok=0
for try in 1 2 3; do
	record --ringbuf-size 4096 -o drop$try.tz -- sh -c "$W storm $M & $W storm $M & wait" ||
		fail "record drop$try"
	"$A" info drop$try.tz >info.txt || fail "info drop$try.tz"
	"$A" cat --type fork,exec,exit drop$try.tz >cat.txt || fail "cat drop$try.tz"
	want=$((2 * M + 3)) # sh, two storms, 2M true
	for t in fork exec exit; do
		n=$(count cat.txt $t)
		d=$(meta info.txt drops_$t)
		[ $((n + d)) = $want ] || fail "drop$try: $t recorded $n + dropped $d != $want"
	done
	[ "$(meta info.txt drops_total)" -gt 0 ] && { ok=1; break; }
	M=$((M * 2))
done
[ $ok = 1 ] || fail "no drops even with a 4 KiB ring buffer"

# --- C08: a full tracked-process map is counted, exactly
record --max-procs 100 -o map.tz -- sh -c "$W sleepers 300 2" || fail "record map"
"$A" info map.tz >info.txt || fail "info map.tz"
"$A" cat --type fork,exec,exit map.tz >cat.txt || fail "cat map.tz"
[ "$(meta info.txt drops_map_full)" = 202 ] || fail "map_full $(meta info.txt drops_map_full), want 202"
[ "$(count cat.txt fork)" = 302 ] || fail "map: $(count cat.txt fork) forks, want 302"
[ "$(count cat.txt exit)" = 100 ] || fail "map: $(count cat.txt exit) exits, want 100 (tracked)"
echo ok
