#!/usr/bin/env bash
# -p PID (an existing process and its descendants) and -a (whole system)
# with the pre-existing snapshot (C14): no process lost or duplicated.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# --- -p: a running sh with a pre-existing sleep child, then 3 new children
sh -c 'sleep 1; for i in 1 2 3; do /bin/true p$i; done; exit 4' &
sp=$!
bg_track $sp
sleep 0.3
rc=0
record -o p.tz -p $sp || rc=$?
[ $rc = 0 ] || fail "-p: recorder exit $rc"
wait $sp || true
export_jsonl p.tz p.jsonl
pycheck p.jsonl "
sh = one([p for p in procs if p['pid'] == $sp], 'target')
check(sh['pre_existing'] is True and sh['exit_code'] == 4, 'target %r %r' % (sh['pre_existing'], sh['exit_code']))
sl = one(by_exe('/usr/bin/sleep'), 'sleep')
check(sl['pre_existing'] is True and sl['parent_id'] == sh['id'] and sl['exit_code'] == 0, 'sleep %r' % sl)
t = by_exe('/usr/bin/true')
check(sorted(p['argv'][1] for p in t) == ['p1', 'p2', 'p3'], 'true runs %r' % [p['argv'] for p in t])
for p in t:
    check(p['parent_id'] == sh['id'] and not p['pre_existing'], 'true %r' % p['pid'])
check(len(procs) == 5, '%d processes, want 5 (nothing outside the subtree)' % len(procs))
"
rc=0; "$R" -o nope.tz -p 999999999 2>err.txt || rc=$?
[ $rc = 1 ] || [ $rc = 2 ] || fail "-p of a missing pid: exit $rc"
[ ! -e nope.tz ] || fail "-p of a missing pid left a file"

# --- -a with --duration stops by itself
rc=0
record -a --duration 1 -o dur.tz || rc=$?
[ $rc = 0 ] || fail "-a --duration: exit $rc"
"$A" verify dur.tz >/dev/null || fail "dur.tz does not verify"

# --- C14: a process started before the recorder: once, pre-existing, all children
sh -c 'sleep 2; for i in $(seq 200); do /bin/true; done' &
sp=$!
bg_track $sp
sleep 1
"$R" -a --duration 60 -o c14.tz 2>rec.err &
rp=$!
bg_track $rp
wait $sp
sleep 0.3
kill -INT $rp
rc=0; wait $rp || rc=$?
[ $rc = 0 ] || { cat rec.err; fail "-a after SIGINT: exit $rc"; }
export_jsonl c14.tz c14.jsonl
pycheck c14.jsonl "
sh = [p for p in procs if p['pid'] == $sp]
check(len(sh) == 1, '%d records of the sh, want 1' % len(sh))
sh = sh[0]
check(sh['pre_existing'] is True, 'sh not marked pre-existing')
check(sh['argv'][:2] == ['sh', '-c'], 'sh argv from the snapshot %r' % sh['argv'])
t = [p for p in by_exe('/usr/bin/true') if p['parent_id'] == sh['id']]
check(len(t) == 200, '%d true children, want 200' % len(t))
sl = [p for p in kids(sh) if p['exe'] == '/usr/bin/sleep']
check(len(sl) == 1 and sl[0]['pre_existing'], 'the pre-existing sleep child %r' % sl)
keys = [(p['pid'], p['start_s']) for p in procs]
check(len(keys) == len(set(keys)), 'duplicate processes')
ids = [p['id'] for p in procs]
check(len(ids) == len(set(ids)), 'duplicate ids')
check(sum(1 for p in procs if p['pre_existing']) > 10, 'too few pre-existing processes')
"
echo ok
