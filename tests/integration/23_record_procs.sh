#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Every way of creating a process (C06), one clock (C13), pid namespaces (C15).
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# --- C06: fork, vfork, clone3, posix_spawn, clone(CLONE_PARENT)
record -o c06.tz -- sh -c "$W spawn >cp.pid; wait; sleep 0.2" || fail "record c06"
export_jsonl c06.tz c06.jsonl
pycheck c06.jsonl "
sh = one([p for p in procs if p['argv'][:2] == ['sh', '-c']], 'sh')
sp = one(by_exe('$W'), 'spawner')
t = by_exe('/usr/bin/true')
check(len(t) == 5, '%d true children, want 5' % len(t))
cp = int(open('$T/cp.pid').read())
for p in t:
    want = sh if p['pid'] == cp else sp
    check(p['parent_id'] == want['id'], 'parent of %d is %r, want %r' % (p['pid'], p['parent_id'], want['id']))
    ex = p['execs'][0]['t_s']
    check(p['start_s'] <= ex <= p['end_s'], 'fork %r <= exec %r <= exit %r' % (p['start_s'], ex, p['end_s']))
    check(p['argv'] == ['/bin/true'] and p['exit_code'] == 0, 'true %r' % p['argv'])
check(len(kids(sp)) == 4, 'spawner has %d children, want 4' % len(kids(sp)))
"

# the vfork and posix_spawn children share the parent's mm until exec
"$A" cat --type fork c06.tz >fork.txt || fail "cat c06.tz"
python3 - fork.txt "$(cat cp.pid)" <<'PY' || fail "C06: vfork flags"
import re, sys
forks = [l for l in open(sys.argv[1])]
flags = [int(re.search(r' flags=(0x[0-9a-f]+|\d+)', l).group(1), 0) for l in forks]
# sh, spawner (dash spawns with vfork), then fork, vfork, clone3,
# posix_spawn, clone(CLONE_PARENT), and the sleep
assert len(flags) == 8, flags
assert flags[2:7] == [0, 1, 0, 1, 2], flags
PY

# --- C06: under strace, true's parent is sh, not the tracer
if command -v strace >/dev/null; then
	record -o strace.tz -- strace -f -o /dev/null sh -c '/bin/true; exit 0' || fail "record strace"
	export_jsonl strace.tz strace.jsonl
	pycheck strace.jsonl "
sh = one([p for p in procs if p['argv'] == ['sh', '-c', '/bin/true; exit 0']], 'sh')
t = one(by_exe('/usr/bin/true'), 'true')
check(t['parent_id'] == sh['id'] and t['ppid'] == sh['pid'], 'parent of true under strace')
"
fi

# --- C13: one clock; the file converts it to wall time
record -o c13.tz -- sh -c 'date +%s.%N >date.out; sleep 1' || fail "record c13"
"$A" info c13.tz >info.txt
"$A" cat --abs --type exec,fork,exit c13.tz >cat.txt
python3 - "$T" <<'PY' || fail "C13"
import re, sys
T = sys.argv[1]
meta = dict(re.findall(r'^\s+(\S+)\s+(\S+)$', open(T + '/info.txt').read(), re.M))
off = int(meta['start_realtime_ns']) - int(meta['start_boottime_ns'])
date_ns = int(float(open(T + '/date.out').read()) * 1e9)
execs = [l for l in open(T + '/cat.txt') if ' exec ' in l and '"/usr/bin/date"' in l]
assert len(execs) == 1, execs
ts = int(execs[0].split()[0])
pid = re.search(r' tgid=(\d+)', execs[0]).group(1)
exits = [l for l in open(T + '/cat.txt') if ' exit ' in l and ' tgid=%s ' % pid in l]
assert len(exits) == 1, exits
te = int(exits[0].split()[0])
# what date printed lies between its exec and its exit on the converted
# clock (the pair is read back to back: 1 us of slack), however loaded
# the machine is
assert ts + off - 1000 <= date_ns <= te + off + 1000, \
    'date printed %d, not within its exec %d .. exit %d (wall)' % (date_ns, ts + off, te + off)
for l in open(T + '/cat.txt'):
    if ' fork ' in l:
        ts = int(l.split()[0])
        start = int(re.search(r'child_start_ns=(\d+)', l).group(1))
        assert 0 <= ts - start < 1_000_000, 'fork at %d, start_boottime %d' % (ts, start)
PY
export_jsonl c13.tz c13.jsonl
pycheck c13.jsonl "
for p in procs:
    check(p['end_s'] is not None and p['end_s'] >= p['start_s'], 'negative duration %r' % p)
"

# --- C15: pid namespaces: host pids as keys, namespace pids as fields
unshare --help >unshare.txt 2>&1 || true
if grep -q -- --mount-proc unshare.txt; then
	record -o c15.tz -- unshare --fork --pid --mount-proc sh -c 'sleep 0.5 & wait' || fail "record c15"
	export_jsonl c15.tz c15.jsonl
	pycheck c15.jsonl "
u = one(by_exe('/usr/bin/unshare'), 'unshare')
sh = one([p for p in procs if p['argv'] == ['sh', '-c', 'sleep 0.5 & wait']], 'inner sh')
sl = one(by_exe('/usr/bin/sleep'), 'sleep')
check(sh['ns_pid'] == 1 and sl['ns_pid'] == 2, 'ns pids %r %r, want 1 2' % (sh['ns_pid'], sl['ns_pid']))
check(sh['pid'] > 2 and sl['pid'] > 2 and u['ns_pid'] == u['pid'], 'host pids')
check(sh['parent_id'] == u['id'] and sl['parent_id'] == sh['id'], 'tree across the namespace')
"
fi
echo ok
