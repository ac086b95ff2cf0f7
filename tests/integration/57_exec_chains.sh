#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Exec chains (issue 23 item 2), on real recordings compared with what ran:
# - wrappers that only exec are named by what they ran: `env X=1 true`,
#   `nice -n 1 true`, `sh -c 'exec true'` are "true";
# - a script that execs a program is named by the script (what was called):
#   8 `zcat` calls (a /bin/sh script that execs gzip) are 8 x "zcat" in top,
#   never "gzip"; a script ending in `exec sleep` is the script;
# - a shell job (Snakemake's `bash -c 'set -euo pipefail; zcat x | grep y >
#   z; sleep 1'`, here `cat | wc`) forks its pipeline, then execs its last
#   command in its place: it stays "bash", the parent of cat and wc, shown in
#   the tree as "bash -c ... → sleep 0.2", never as a "sleep" with children;
# - `timeout 5 true` forks: "timeout" waits, its child is "true";
# - per image, export's execs[] carry wall_s and cpu_s split at the exec by
#   the kernel's own counters: 2 threads burning 0.3 s each, then exec of a
#   program burning 0.2 s: 0.6 s in the first image, 0.2 s in the second.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
command -v zcat >/dev/null || { echo "skip: zcat (gzip) not installed"; exit 77; }
head -c 20000 /dev/urandom | base64 | gzip > small.gz
printf '#!/bin/sh\nexec sleep 0.1\n' > ends-in-exec.sh
chmod +x ends-in-exec.sh
record -o x.tz -- sh -c "for i in 1 2 3 4 5 6 7 8; do zcat small.gz >/dev/null; done
env X=1 true envrun; nice -n 1 true nicerun; sh -c 'exec true shexec'; timeout 5 true tmo
./ends-in-exec.sh; $W burnexec 0.3 2 $W burn 0.2 1
bash -c 'set -euo pipefail; cat small.gz | wc -c >/dev/null; sleep 0.2'" || fail "record"
export_jsonl x.tz x.jsonl
pycheck x.jsonl "
z = [p for p in procs if p['execs'] and p['execs'][0]['argv'][:2] == ['/bin/sh', '/usr/bin/zcat']]
check(len(z) == 8, '%d zcat processes, want 8' % len(z))
for p in z:
    check(p['tool'] == 'zcat', 'zcat named %r' % p['tool'])
    check([e['exe'].rsplit('/', 1)[1] for e in p['execs']][-1] == 'gzip', 'zcat did not exec gzip: %r' % p['execs'])
check(not [p for p in procs if p['tool'] == 'gzip'], 'a process named gzip')
for tag in ('envrun', 'nicerun', 'shexec', 'tmo'):
    p = one([p for p in procs if p['argv'][-1:] == [tag] and p['exe'] == '/usr/bin/true'], tag)
    check(p['tool'] == 'true', '%s named %r (execs %r)' % (tag, p['tool'], [e['exe'] for e in p['execs']]))
j = one([p for p in procs if p['execs'] and p['execs'][0]['argv'][:2] == ['bash', '-c'] and 'pipefail' in p['execs'][0]['argv'][2]], 'the shell job')
check(j['argv'] == ['sleep', '0.2'], 'the shell job did not exec its last command: %r' % j['execs'])
check(j['tool'] == 'bash', 'a shell job that exec-ed sleep named %r' % j['tool'])
kids = sorted(p['tool'] for p in procs if p['ppid'] == j['pid'])
check(kids == ['cat', 'wc'], 'the shell job\'s children %r' % kids)
t = one([p for p in procs if p['argv'][:1] == ['timeout']], 'timeout')
check(t['tool'] == 'timeout', 'timeout named %r' % t['tool'])
s = one([p for p in procs if p['argv'] == ['sleep', '0.1']], 'the script exec-ing sleep')
check(s['tool'] == 'ends-in-exec.sh', 'a script that execs sleep named %r' % s['tool'])
b = one([p for p in procs if p['argv'][:2] == ['$W', 'burn']], 'burnexec')
check(b['tool'] == 'recwork' and len(b['execs']) == 2, 'burnexec: %r %r' % (b['tool'], len(b['execs'])))
a, c = b['execs']
# the kernel's split: 2 x 0.3 s of thread CPU before the exec, 0.2 s after
check(0.6 <= a['cpu_s'] < 0.75, 'first image cpu_s %r, want 0.6 (2 threads x 0.3 s)' % a['cpu_s'])
check(0.2 <= c['cpu_s'] < 0.3, 'second image cpu_s %r, want 0.2' % c['cpu_s'])
check(a['cpu_s'] + c['cpu_s'] <= b['utime_s'] + b['stime_s'] + 1e-9, 'images %r + %r above the total %r' % (a['cpu_s'], c['cpu_s'], b['utime_s'] + b['stime_s']))
check(abs(a['t_s'] + a['wall_s'] - c['t_s']) < 1e-6 and abs(c['t_s'] + c['wall_s'] - b['end_s']) < 1e-6,
      'wall_s does not tile the process: %r %r end %r' % (a, c, b['end_s']))
for p in procs:
    for e in p['execs']:
        check(e['cpu_s'] is not None and e['wall_s'] is not None, 'unknown split in %r' % p['argv'])
"
"$A" top -n 50 x.tz > top.txt || fail "top"
"$A" tree x.tz > tree.txt || fail "tree"
grep -Eq "^[^0-9]*[0-9]+ bash  bash -c 'set -euo pipefail.* → sleep 0\.2 " tree.txt ||
	fail "tree: the shell job is not 'bash -c ... → sleep': $(cat tree.txt)"
grep -Eq '^zcat +8 ' top.txt || fail "top: no 'zcat 8': $(cat top.txt)"
! grep -q '^gzip ' top.txt || fail "top lists gzip: $(cat top.txt)"
grep -Eq '^true +4 ' top.txt || fail "top: no 'true 4' (env, nice, sh -c exec, timeout's child): $(cat top.txt)"
# a trace from an older recorder (exec events without CPU): the split is
# unknown (null), never a made-up 0; wall still tiles
timeout 60 "$A" export --format jsonl "${TESTS_DIR:?}/data/good/small.tz" > old.jsonl || fail "export old"
pycheck old.jsonl "
n = 0
for p in procs:
    for e in p['execs']:
        n += 1
        check(e['cpu_s'] is None and e['wall_s'] is not None, 'old file image %r' % e)
check(n > 0, 'no images in small.tz')
"
echo ok
