#!/usr/bin/env bash
# Tool names a person recognises (issue 23 item 2): a script an interpreter
# reads from a file descriptor (bash /dev/fd/3, process substitution) is
# "bash (stdin script)", never "3" or "63"; an executable run from a memfd
# is named by the memfd's name ("job"), not "memfd:job".
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
echo 'exit 0' >s.sh
record -o n.tz -- bash -c "exec 3<s.sh; bash /dev/fd/3; bash <(cat s.sh); $W memfd" || fail "record"
export_jsonl n.tz n.jsonl
pycheck n.jsonl "
fd3 = one(by_argv(['bash', '/dev/fd/3']), 'bash /dev/fd/3')
check(fd3['tool'] == 'bash (stdin script)', 'bash /dev/fd/3 named %r' % fd3['tool'])
ps = [p for p in procs if p['argv'][:1] == ['bash'] and len(p['argv']) == 2 and p['argv'][1].startswith('/dev/fd/') and p is not fd3]
check(len(ps) == 1 and ps[0]['tool'] == 'bash (stdin script)', 'bash <(...) named %r' % [(p['argv'], p['tool']) for p in ps])
mf = [p for p in procs if p['exe'] == 'memfd:job']
check(len(mf) == 1 and mf[0]['tool'] == 'job', 'memfd exec named %r' % [(p['exe'], p['tool']) for p in mf])
check(not [p for p in procs if p['tool'] in ('3', '63', 'memfd:job')], 'a fd number or memfd: prefix as a tool')
"
"$A" top n.tz >top.txt || fail "top"
grep -q '^bash (stdin script) ' top.txt || fail "top: $(cat top.txt)"
grep -q '^job ' top.txt || fail "top: $(cat top.txt)"
echo ok
