#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# -p PID (an existing process and its descendants) and -a (whole system)
# with the pre-existing snapshot (C14): no process lost or duplicated.
# The pre-existing shells wait on a fifo until the recorder says it is
# recording, so a slow attach cannot make the test miss their children.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

wait_recording() { # rec.err: the recorder's -v line once attached
	for _ in $(seq 300); do
		grep -q 'recording to' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$1"
	fail "the recorder did not start"
}

# --- -p: a running sh with a pre-existing sleep child, then 3 new children
mkfifo go1
sh -c 'sleep 30 & read x <go1; for i in 1 2 3; do /bin/true p$i; done; kill $!; wait; exit 4' &
sp=$!
bg_track $sp
sleep 0.3
"$R" -v -o p.tz -p $sp 2>p.err &
rp=$!
bg_track $rp
wait_recording p.err
echo go >go1
rc=0; wait $rp || rc=$?
[ $rc = 0 ] || { cat p.err; fail "-p: recorder exit $rc"; }
wait $sp || true
export_jsonl p.tz p.jsonl
pycheck p.jsonl "
sh = one([p for p in procs if p['pid'] == $sp], 'target')
check(sh['pre_existing'] is True and sh['exit_code'] == 4, 'target %r %r' % (sh['pre_existing'], sh['exit_code']))
sl = one(by_exe('/usr/bin/sleep'), 'sleep')
check(sl['pre_existing'] is True and sl['parent_id'] == sh['id'], 'sleep %r' % sl)
check(sl['signal'] == 15 and sl['argv'] == ['sleep', '30'], 'sleep %r %r' % (sl['signal'], sl['argv']))
# snapshot argv is whole: pre-existing must not read as argv cut (same bit once)
check(sh['argv_truncated'] is False and sl['argv_truncated'] is False,
      'pre-existing argv_truncated %r %r' % (sh['argv_truncated'], sl['argv_truncated']))
t = by_exe('/usr/bin/true')
check(sorted(p['argv'][1] for p in t) == ['p1', 'p2', 'p3'], 'true runs %r' % [p['argv'] for p in t])
for p in t:
    check(p['parent_id'] == sh['id'] and not p['pre_existing'], 'true %r' % p['pid'])
check(len(procs) == 5, '%d processes, want 5 (nothing outside the subtree)' % len(procs))
"
rc=0; "$R" -o nope.tz -p 999999999 2>err.txt || rc=$?
[ $rc = 1 ] || fail "-p of a missing pid: exit $rc"
grep -q "999999999.*no such process" err.txt || fail "-p of a missing pid: $(cat err.txt)"
[ ! -e nope.tz ] || fail "-p of a missing pid left a file"

# --- -a with --duration stops by itself
rc=0
record -a --duration 1 -o dur.tz || rc=$?
[ $rc = 0 ] || fail "-a --duration: exit $rc"
"$A" verify dur.tz >/dev/null || fail "dur.tz does not verify"

# --- C14: a process started before the recorder: once, pre-existing, all children
mkfifo go2
sh -c 'sleep 30 & read x <go2; for i in $(seq 200); do /bin/true; done; kill $!; wait' &
sp=$!
bg_track $sp
sleep 0.5
"$R" -v -a --duration 60 -o c14.tz 2>c14.err &
rp=$!
bg_track $rp
wait_recording c14.err
echo go >go2
wait $sp || true
sleep 0.3
kill -INT $rp
rc=0; wait $rp || rc=$?
[ $rc = 0 ] || { cat c14.err; fail "-a after SIGINT: exit $rc"; }
export_jsonl c14.tz c14.jsonl
pycheck c14.jsonl "
sh = [p for p in procs if p['pid'] == $sp]
check(len(sh) == 1, '%d records of the sh, want 1' % len(sh))
sh = sh[0]
check(sh['pre_existing'] is True, 'sh not marked pre-existing')
check(sh['argv'][:2] == ['sh', '-c'], 'sh argv from the snapshot %r' % sh['argv'])
check(sh['argv_truncated'] is False, 'sh argv_truncated %r' % sh['argv_truncated'])
check(sh['exit_code'] == 0, 'sh exit %r' % sh['exit_code'])
t = [p for p in by_exe('/usr/bin/true') if p['parent_id'] == sh['id']]
check(len(t) == 200, '%d true children, want 200' % len(t))
sl = [p for p in kids(sh) if p['exe'] == '/usr/bin/sleep']
check(len(sl) == 1 and sl[0]['pre_existing'] and sl[0]['signal'] == 15, 'the pre-existing sleep child %r' % sl)
keys = [(p['pid'], p['start_s']) for p in procs]
check(len(keys) == len(set(keys)), 'duplicate processes')
ids = [p['id'] for p in procs]
check(len(ids) == len(set(ids)), 'duplicate ids')
check(sum(1 for p in procs if p['pre_existing']) > 10, 'too few pre-existing processes')
"
echo ok
