#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tool names a person recognises (issue 23 item 2, h23b items 1-3): a script
# an interpreter reads from a file descriptor is "INTERP (fd script)" (bash
# /dev/fd/3, process substitution's /dev/fd/63), never "3" or "63", and
# "INTERP (stdin script)" from standard input (/dev/stdin, python3 -, bash
# -s, awk -f -); an executable run from a memfd is named by argv[0] when it
# means something ("worker"), else by the memfd's name without "memfd:" and
# without a random suffix ("job", "sealed"). Kernel threads of a
# whole-machine trace are grouped by name without their CPU or instance
# part ("[kworker]", "[ksoftirqd]"), never one tool per kworker/0:1.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
echo 'exit 0' >s.sh
echo 'pass' >s.py
echo 'BEGIN { exit 0 }' >s.awk
record -o n.tz -- bash -c "exec 3<s.sh; bash /dev/fd/3; bash <(cat s.sh); bash /dev/stdin <s.sh;
	bash -s x <s.sh; python3 - <s.py; awk -f - <s.awk; perl - </dev/null;
	$W memfd; $W memfd sealed-91173221a7ea worker; $W memfd sealed-91173221a7ea FD" ||
	fail "record"
export_jsonl n.tz n.jsonl
pycheck n.jsonl "
def named(argv, want):
    ps = [p for p in procs if p['argv'] == argv]
    check(len(ps) == 1, '%r: %d processes' % (argv, len(ps)))
    check(ps[0]['tool'] == want, '%r named %r, want %r' % (argv, ps[0]['tool'], want))
named(['bash', '/dev/fd/3'], 'bash (fd script)')
ps = [p for p in procs if p['argv'][:1] == ['bash'] and len(p['argv']) == 2 and p['argv'][1].startswith('/dev/fd/') and p['argv'][1] != '/dev/fd/3']
check(len(ps) == 1 and ps[0]['tool'] == 'bash (fd script)', 'bash <(...) named %r' % [(p['argv'], p['tool']) for p in ps])
named(['bash', '/dev/stdin'], 'bash (stdin script)')
named(['bash', '-s', 'x'], 'bash (stdin script)')
py = one([p for p in procs if p['argv'] == ['python3', '-']], 'python3 -')
check(py['tool'] == py['exe'].rsplit('/', 1)[1] + ' (stdin script)', 'python3 - named %r' % py['tool'])
aw = one([p for p in procs if p['argv'] == ['awk', '-f', '-']], 'awk -f -')
check(aw['tool'] == aw['exe'].rsplit('/', 1)[1] + ' (stdin script)', 'awk -f - named %r' % aw['tool'])
named(['perl', '-'], 'perl (stdin script)')
mf = [p for p in procs if p['exe'].startswith('memfd:')]
check(sorted(p['tool'] for p in mf) == ['job', 'sealed', 'worker'], 'memfd execs named %r' % [(p['exe'], p['argv'], p['tool']) for p in mf])
check(not [p for p in procs if p['tool'] in ('3', '63', '-', 'memfd:job') or 'sealed-' in p['tool']], 'a fd number, -, memfd: prefix or random suffix as a tool')
"
"$A" top n.tz >top.txt || fail "top"
for t in 'bash (fd script)' 'bash (stdin script)' 'perl (stdin script)' job worker sealed; do
	grep -q "^$t " top.txt || fail "top: no '$t': $(cat top.txt)"
done

record -a --duration 1 -o a.tz || fail "record -a"
"$A" top -n 0 --json a.tz >top.json || fail "top -a"
python3 - top.json "$(nproc)" <<'PY' || fail "kernel threads in top: $("$A" top -n 0 a.tz | grep '^\[')"
import json, sys
tools = {g['tool']: g['count'] for g in json.load(open(sys.argv[1]))}
ncpu = int(sys.argv[2])
bad = [t for t in tools if t.startswith('[') and (t[1:].startswith(('kworker/', 'ksoftirqd/', 'migration/', 'cpuhp/', 'rcu_')))]
assert not bad, 'kernel threads with their instance: %r' % bad
# one ksoftirqd, migration and cpuhp thread per CPU, two kworkers at least
for t, n in (('[ksoftirqd]', ncpu), ('[migration]', ncpu), ('[cpuhp]', ncpu), ('[kworker]', 2 * ncpu)):
    assert tools.get(t, 0) >= n, '%s: %r, want >= %d' % (t, tools.get(t), n)
PY
echo ok
