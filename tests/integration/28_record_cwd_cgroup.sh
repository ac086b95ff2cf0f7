#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 17, recording what task attribution needs: the working directory at
# each exec (a path longer than the bound kept as its end and flagged), the
# cgroup table (a Slurm-like v1 memory cgroup with a limit, a v2 cgroup when
# the unified tree takes processes), --env, and the workflow managers'
# records embedded at the stop (read back byte-exact), --no-attach.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

trap cg_cleanup EXIT

# --- cwd: a known directory, then one deeper than the 4,095-byte bound
mkdir -p "$T/a dir"
long=$T/long
mkdir "$long"
name=$(printf 'x%.0s' $(seq 200))
(cd "$long" && for i in $(seq 25); do mkdir "$name$i" && cd "$name$i"; done)
cat >cwd.sh <<EOS
cd "$T/a dir" && /bin/true
cd "$long" && for i in \$(seq 25); do cd "$name\$i"; done && /bin/pwd >"$T/long.pwd" && /bin/true
EOS
record -o cwd.tz -- bash cwd.sh || fail "record cwd"  # dash cannot cd past PATH_MAX
export_jsonl cwd.tz cwd.jsonl
pycheck cwd.jsonl "
real = open('$T/long.pwd').read().rstrip('\n')
check(len(real.encode()) > 4096, 'the long path is only %d bytes' % len(real))
tr = [e for p in procs for e in p['execs'] if e['exe'] == '/usr/bin/true']
check(len(tr) == 2, '%d true execs, want 2' % len(tr))
check(tr[0]['cwd'] == '$T/a dir', 'cwd %r' % tr[0]['cwd'])
check(not tr[0]['cwd_truncated'], 'short cwd flagged')
c = tr[1]['cwd']
check(tr[1]['cwd_truncated'], 'long cwd not flagged')
check(c.startswith('/') and real.endswith(c) and len(c) < len(real), 'long cwd %r... not the end of the real path' % c[:40])
sh = [e for p in procs for e in p['execs'] if e['exe'] == '/usr/bin/bash']
check(sh and sh[0]['cwd'] == '$T', 'the shell ran in %r' % (sh[0]['cwd'] if sh else None))
"

# --- cgroups: v1 memory (hybrid hosts) with a limit; v2 where processes can go
job=tracer-test-$$/slurm/uid_0/job_42/step_0
cg_job "$job"
cat >cg.sh <<EOS
for d in $memd $v2d; do echo \$\$ >"\$d/cgroup.procs"; done
exec /bin/true in-cgroup
EOS
record -o cg.tz -- sh cg.sh || fail "record cg"
export_jsonl cg.tz cg.jsonl
pycheck cg.jsonl "
e = [e for p in procs for e in p['execs'] if e['argv'] == ['/bin/true', 'in-cgroup']]
check(len(e) == 1, '%d execs in the cgroup' % len(e))
e = e[0]
if '$memd':
    m = e['memcg']
    check(m is not None, 'no v1 memory cgroup recorded')
    check(m['path'] == '/$job', 'v1 memory path %r' % m['path'])
    check(m['mem_limit_bytes'] == $want_mem, 'v1 limit %r, want $want_mem' % m['mem_limit_bytes'])
if '$v2d':
    c = e['cgroup']
    check(c['path'] == '/$job', 'v2 path %r' % c['path'])
    check(c['mem_limit_bytes'] == (${v2mem:-0}), 'v2 memory.max %r' % c['mem_limit_bytes'])
sh = [e for p in procs for e in p['execs'] if e['exe'] == '/usr/bin/dash'][0]
check(sh['cgroup']['path'] is not None, 'the shell cgroup was not resolved')
"
# the cgroup table holds one entry per id, not one per exec
"$A" cat cg.tz --type cgroup >cg.txt || fail "cat cg.tz"
dups=$(awk '{print $4, $3}' cg.txt | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "cgroup ids written twice: $(cat cg.txt)"

# --- --env: only the named variables, only with the option
TRACER_T17_VAR="value $$" record -o env.tz --env TRACER_T17_VAR,TRACER_T17_NONE -- \
	sh -c '/bin/true; env -i TRACER_T17_VAR=inner /bin/true' || fail "record env"
export_jsonl env.tz env.jsonl
pycheck env.jsonl "
tr = [e for p in procs for e in p['execs'] if e['exe'] == '/usr/bin/true']
check([e['env'] for e in tr] == [['TRACER_T17_VAR=value $$'], ['TRACER_T17_VAR=inner']], 'env %r' % [e['env'] for e in tr])
"
record -o noenv.tz -- /bin/true || fail "record noenv"
export_jsonl noenv.tz noenv.jsonl
pycheck noenv.jsonl "check(all(e['env'] == [] for p in procs for e in p['execs']), 'env without --env')"

# --- attachments: .snakemake/metadata written during the recording, read
# back byte-exact; a file older than the recording is not embedded
mkdir -p wf/.snakemake/metadata wf/.snakemake/log
printf 'old' >wf/.snakemake/metadata/b2xk
touch -d '2001-01-01' wf/.snakemake/metadata/b2xk
cat >wf.sh <<'EOS'
cd wf
printf '{"rule": "align", "bin": "\000\377"}\n' >.snakemake/metadata/cmVzdWx0cy9hLmJhbQ==
head -c 5000 /dev/urandom >.snakemake/metadata/cmFuZG9t
echo "Finished job 0." >.snakemake/log/run.snakemake.log
/bin/true
EOS
record -o wf.tz -- sh wf.sh || fail "record wf"
"$H/tzdecode" wf.tz >wf.dec || fail "tzdecode wf.tz"
python3 - "$T" <<'PY' || fail "attachments differ"
import os, re, sys
T = sys.argv[1]
def unq(s):
    return re.sub(rb'\\x([0-9a-f]{2})', lambda m: bytes([int(m.group(1), 16)]), s.encode())
got = {}
for l in open(T + '/wf.dec', encoding='latin-1'):
    m = re.match(r'attach: "(.*)" len=(\d+) size=(\d+) flags=(\d+) mtime=(\d+) data="(.*)"$', l.rstrip('\n'))
    if m:
        got[unq(m.group(1)).decode()] = (unq(m.group(6)), int(m.group(4)))
md = T + '/wf/.snakemake/metadata/'
want = [md + 'cmVzdWx0cy9hLmJhbQ==', md + 'cmFuZG9t', T + '/wf/.snakemake/log/run.snakemake.log']
assert sorted(got) == sorted(want), 'attachments %r, want %r' % (sorted(got), sorted(want))
for f in want:
    assert got[f][0] == open(f, 'rb').read(), '%s differs' % f
    assert got[f][1] == 0, '%s flagged %d' % (f, got[f][1])
PY
record -o wf-no.tz --no-attach -- sh wf.sh || fail "record wf --no-attach"
"$H/tzdecode" wf-no.tz >wf-no.dec || fail "tzdecode wf-no.tz"
! grep -q '^attach:' wf-no.dec || fail "--no-attach embedded files"
# a bound that cuts: flagged
record -o wf-cut.tz --attach-max 100 -- sh wf.sh || fail "record wf --attach-max"
"$A" info wf-cut.tz >wf-cut.info || fail "info wf-cut.tz"
grep -Eq 'attach_truncated +[1-9]' wf-cut.info || fail "--attach-max 100 cut nothing"
cg_cleanup
trap - EXIT
for d in "${CGDIRS[@]}"; do [ ! -d "$d" ] || fail "$d left behind"; done
echo "ok: cwd, cgroups, --env and attachments"
