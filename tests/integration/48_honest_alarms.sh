#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 23 item 1: "TREE INCOMPLETE" only when something was lost, and what is
# not a loss said as what it is. Each situation is made for real:
#   - a ring file still being written (the recorder runs): "still being
#     written", JSON live, not incomplete; refused without --partial;
#   - a ring that wrapped (1M ring, ~2 MB of random argv): "flight recorder:
#     the oldest N were overwritten", N = first remaining event - recording
#     start (from info and the metadata), not incomplete, the command never
#     an orphan of itself; a ring that did not wrap says nothing of the kind;
#   - -a with two zombies made by a helper (one reaped during the recording,
#     one never): "exited before recording", not running, not an exit lost.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
unset TRACER_ANALYZE_PARTIAL

jget() { # FILE KEY...: a value of summary --json (python repr)
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d = d[k]
print(json.dumps(d))' "$@"
}
wait_for() { # SECONDS CMD...: poll CMD every 0.1 s
	local n=$(($1 * 10))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# --- a live ring: the recorder runs until the command sees 'go'
"$R" --ring 1M -o live.tz -- sh -c 'while [ ! -e go ]; do sleep 0.1; done' 2>live.err &
rp=$!
bg_track $rp
wait_for 60 test -s live.tz || fail "no live.tz after 60 s: $(cat live.err)"
timeout 60 "$A" --partial summary live.tz >out 2>err || fail "--partial summary of a live ring: $(cat err)"
grep -q '^status     still being written (the recorder is running)' out || fail "live: no status line: $(cat out)"
! grep -q 'TREE INCOMPLETE' out || fail "live: false alarm: $(cat out)"
grep -qx 'lost       none' out || fail "live: loss line: $(cat out)"
timeout 60 "$A" --partial summary --json live.tz >j || fail "live: summary --json"
[ "$(jget j live)" = true ] && [ "$(jget j incomplete)" = false ] && [ "$(jget j unfinished)" = false ] ||
	fail "live: JSON live/incomplete/unfinished: $(jget j live) $(jget j incomplete) $(jget j unfinished)"
timeout 60 "$A" info live.tz >out || fail "live: info"
grep -q '^format .*, still being written (a recorder holds it)$' out || fail "live: info: $(sed -n 3p out)"
rc=0
timeout 60 "$A" summary live.tz >out 2>err || rc=$?
[ $rc = 1 ] && [ "$(cat err)" = "tracer-analyze: 'live.tz': still being written (the recorder is running); analyze it once recording ends, or now with 'tracer-analyze --partial'" ] ||
	fail "live without --partial: exit $rc: $(cat err)"
touch go
rc=0
timeout 60 tail --pid=$rp -f /dev/null || fail "the recorder did not stop after 'go'"
wait $rp || rc=$?
[ $rc = 0 ] || fail "recorder exit $rc: $(cat live.err)"
timeout 60 "$A" summary --json live.tz >j || fail "finished ring: summary --json"
[ "$(jget j live)" = false ] && [ "$(jget j incomplete)" = false ] && [ "$(jget j ring_wrapped)" = false ] &&
	[ "$(jget j overwritten_s)" = null ] || fail "finished small ring: $(cat j)"
timeout 60 "$A" summary live.tz >out || fail "finished ring: summary"
! grep -qE '^status |flight recorder:|TREE INCOMPLETE' out || fail "finished small ring: $(cat out)"

# --- a wrapped ring: 1,600 execs with 1 KB of random argv each into 1 MiB
record --ring 1M -o wrap.tz -- sh -c 'head -c 1500000 /dev/urandom | base64 -w 200 | xargs -n 5 /bin/true' ||
	fail "record the wrapped ring"
timeout 60 "$A" summary --json wrap.tz >j || fail "wrapped: summary --json"
[ "$(jget j drops total)" = 0 ] || fail "wrapped: the recorder dropped events, cannot judge: $(jget j drops)"
[ "$(jget j ring_wrapped)" = true ] || fail "wrapped: ring_wrapped $(jget j ring_wrapped)"
[ "$(jget j incomplete)" = false ] || fail "wrapped: incomplete: $(cat j)"
[ "$(jget j orphaned_pids)" = "[]" ] || fail "wrapped: orphans $(jget j orphaned_pids)"
# N from the data: first remaining event (info's boottime range) - start
first=$(timeout 60 "$A" info wrap.tz | awk '$1 == "boottime" { print $2 }')
start=$(timeout 60 "$A" info wrap.tz | awk '$1 == "start_boottime_ns" { print $2 }')
[ -n "$first" ] && [ -n "$start" ] && [ "$first" -gt "$start" ] || fail "wrapped: first $first start $start"
python3 -c 'import sys; got, want = float(sys.argv[1]), (int(sys.argv[2]) - int(sys.argv[3])) / 1e9
sys.exit(0 if abs(got - want) < 1e-6 and want > 0 else 1)' "$(jget j overwritten_s)" "$first" "$start" ||
	fail "wrapped: overwritten_s $(jget j overwritten_s), first $first start $start"
timeout 60 "$A" info wrap.tz >out || fail "wrapped: info"
grep -q '^format .*ring (flight recorder) (wrapped: its oldest data was overwritten)' out ||
	fail "wrapped: info: $(sed -n 3p out)"
timeout 60 "$A" summary wrap.tz >out || fail "wrapped: summary"
grep -q '^flight recorder: the oldest [0-9.]*m\?s were overwritten' out || fail "wrapped: no flight recorder line: $(cat out)"
! grep -q 'TREE INCOMPLETE\|orphaned pids' out || fail "wrapped: false alarm: $(cat out)"
timeout 60 "$A" tree wrap.tz >out || fail "wrapped: tree"
! grep -q 'orphan\|tree incomplete' out || fail "wrapped: tree calls something an orphan: $(head -n 3 out)"
# the command itself is still the root of the tree (its fork is gone)
head -n 1 out | grep -q "^[0-9]* dash  sh -c 'head -c 1500000" || fail "wrapped: root: $(head -n 1 out)"
# recover unrolls it into a linear copy that still says what the ring
# overwrote (FORMAT.md 9: recovered_ring_wrapped), the same time, no alarm
timeout 60 "$A" recover wrap.tz wrap-rec.tz >out 2>err || fail "wrapped: recover: $(cat err)"
[ ! -s err ] && ! grep -q losses out || fail "wrapped: recover calls it a loss: $(cat out err)"
timeout 60 "$A" summary --json wrap-rec.tz >jr || fail "wrapped copy: summary --json"
[ "$(jget jr ring_wrapped)" = true ] && [ "$(jget jr incomplete)" = false ] &&
	[ "$(jget jr overwritten_s)" = "$(jget j overwritten_s)" ] ||
	fail "wrapped copy: ring_wrapped $(jget jr ring_wrapped) incomplete $(jget jr incomplete) overwritten_s $(jget jr overwritten_s), want $(jget j overwritten_s)"
timeout 60 "$A" summary wrap-rec.tz >out || fail "wrapped copy: summary"
grep -q '^flight recorder: the oldest [0-9.]*m\?s were overwritten' out || fail "wrapped copy: no flight recorder line: $(cat out)"
! grep -q 'TREE INCOMPLETE' out || fail "wrapped copy: false alarm: $(cat out)"

# --- zombies at the start of a -a recording
python3 -c '
import os, sys, time
z = [os.fork() for _ in range(2)]
if 0 in z:
    os._exit(0)
print(os.getpid(), z[0], z[1], flush=True)
while not os.path.exists("reap"):
    time.sleep(0.05)
os.waitpid(z[0], 0)   # the first is reaped during the recording
time.sleep(120)       # the second stays a zombie
' >zpids &
zp=$!
bg_track $zp
wait_for 30 test -s zpids || fail "zombie helper did not start"
read -r ppid z1 z2 <zpids
wait_for 10 grep -q '^State:.*Z' /proc/$z1/status || fail "$z1 is not a zombie"
wait_for 10 grep -q '^State:.*Z' /proc/$z2/status || fail "$z2 is not a zombie"
timeout -k 5 120 "$R" -a -v -d 4 -o z.tz 2>z.err &
rp=$!
bg_track $rp
# reap the first once the snapshot is taken (the recorder says so with -v)
wait_for 60 grep -q 'recording to' z.err || fail "-a: no 'recording to' line: $(cat z.err)"
touch reap
wait $rp || fail "-a recording: $(cat z.err)"
kill $zp
export_jsonl z.tz z.jsonl
pycheck z.jsonl "
for pid in ($z1, $z2):
    p = one([q for q in procs if q['pid'] == pid], 'zombie %d' % pid)
    check(p['exited_before'] is True, '%d: exited_before %r' % (pid, p['exited_before']))
    check(p['exit_lost'] is False, '%d: exit_lost' % pid)
    check(p['pre_existing'] is True, '%d: not pre-existing' % pid)
"
timeout 60 "$A" summary --json z.tz >j || fail "-a: summary --json"
python3 -c 'import json,sys; d = json.load(open("j")); sys.exit(0 if d["exited_before"] >= 2 else 1)' ||
	fail "-a: exited_before $(jget j exited_before)"
timeout 60 "$A" summary z.tz >out || fail "-a: summary"
grep -q '^processes .* exited before recording)' out || fail "-a: processes line: $(grep '^processes' out)"
timeout 60 "$A" tree z.tz >out || fail "-a: tree"
for pid in $z1 $z2; do
	grep -q " $pid python3.* exited before recording  \[pre-existing\]" out ||
		fail "-a tree: $pid: $(grep -w "$pid" out)"
done
# nothing else in this recording may claim a loss the recorder did not count
if [ "$(jget j drops total)" = 0 ] && [ "$(jget j exit_lost)" = 0 ] && [ "$(jget j no_fork)" = 0 ]; then
	[ "$(jget j incomplete)" = false ] || fail "-a: incomplete without a loss: $(cat j)"
fi

# --- a storm of short processes across the stop: a process that exits after
# the recorder stopped is "running" (alive at the stop), never an exit lost
# when nothing was dropped (alive_at_stop is taken before the last drain)
sh -c 'while :; do /bin/true; done' &
storm=$!
bg_track "$storm"
for i in 1 2 3 4 5; do
	record -a --duration 0.5 --sample-interval 0 -f -o s.tz || fail "storm $i: record"
	timeout 60 "$A" summary --json s.tz >j || fail "storm $i: summary --json"
	[ "$(jget j drops total)" = 0 ] || continue # a real loss: counted, not this test's case
	[ "$(jget j exit_lost)" = 0 ] || fail "storm $i: $(jget j exit_lost) exits lost with nothing dropped"
done
kill "$storm"
echo ok
