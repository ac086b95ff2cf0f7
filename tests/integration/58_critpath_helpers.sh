#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The critical path's pipeline-partner rule (h23b item 9): a short helper an
# orchestrator forks beside a long job (Snakemake's cbc solver next to a
# shell job) is not a "pipeline partner" of the job and never joins the path
# through it; a real pipeline's busy stage (`busy | cat`) still does.
# 1. a shell orchestrator: a job `( busy 0.5 s | cat; sleep 0.5 )` and, forked
#    right after it, a helper burning 0.15 s of CPU; both waited for;
# 2. a real `snakemake -j 2` on a tiny Snakefile whose jobs are
#    `busy | cat; sleep`: every cbc on the path got there in its own time
#    (snakemake waited for it), never beside a job on the path, and the last
#    job's busy stage is on the path.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

record -o o.tz -- bash -c "( $W burn 0.5 1 | cat; sleep 0.5 ) & $W burn 0.15 1 & wait" ||
	fail "record"
export_jsonl o.tz o.jsonl
timeout 60 "$A" critical-path --json o.tz >o.json || fail "critical-path"
rc=0
timeout 120 python3 "$T/check.py" o.jsonl "
path = {e['pid']: e for e in json.load(open('o.json'))['path']}
helper = one(by_argv(['$W', 'burn', '0.15', '1']), 'the helper')
stage = one(by_argv(['$W', 'burn', '0.5', '1']), 'the pipeline stage')
job = one([p for p in procs if p['id'] == stage['parent_id']], 'the job subshell')
if abs(helper['start_s'] - job['start_s']) > 0.02:
    print('skip: helper forked %.3f s after the job (load): no partner candidate' % (helper['start_s'] - job['start_s']))
    sys.exit(77)
check(helper['pid'] not in path, 'the helper is on the path: %r' % path.get(helper['pid']))
cat = one([p for p in kids(job) if p['argv'] == ['cat']], 'cat')
# stages forked more than 20 ms apart (a loaded machine) are no pipeline
# for the rule (docs/tracer-analyze.md): nothing to check then
check(abs(cat['start_s'] - stage['start_s']) > 0.02 or stage['pid'] in path and path[stage['pid']]['critical_s'] > 0.25,
      'the pipeline stage is not on the path as the partner of cat: %r' % list(path.values()))
" || rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "check on o.jsonl"

if command -v snakemake >/dev/null; then
	mkdir sm && cd sm
	cat >Snakefile <<SM
D = [0.3, 0.5, 0.2, 0.6, 0.3, 0.4]
rule all:
    input: expand("out{i}.txt", i=range(len(D)))
rule job:
    output: "out{i}.txt"
    params: d=lambda w: D[int(w.i)]
    shell: "$W burn 0.2 1 | cat > {output}; sleep {params.d}"
SM
	record -o sm.tz -- timeout 120 snakemake -j 2 -q >sm.out 2>&1 || fail "snakemake: $(tail -5 sm.out)"
	export_jsonl sm.tz sm.jsonl
	timeout 60 "$A" critical-path --json sm.tz >sm.json || fail "critical-path (snakemake)"
	pycheck sm.jsonl "
cp = json.load(open('sm.json'))['path']
path = {e['pid']: e for e in cp}
root = one([p for p in procs if p['argv'][:1] == ['timeout']], 'timeout')
sk = one([p for p in procs if p['parent_id'] == root['id']], 'snakemake')
onkids = [p for p in procs if p['parent_id'] == sk['id'] and p['pid'] in path]
cbc = [p for p in onkids if p['tool'] == 'cbc']
for c in cbc:
    for o in onkids:
        if o is not c and o['start_s'] < c['end_s'] and c['start_s'] < o['end_s']:
            check(False, 'cbc %d on the path beside job %d %r' % (c['pid'], o['pid'], o['argv']))
jobs = [p for p in onkids if p['tool'] == 'bash']
check(jobs, 'no shell job on the path: %r' % cp)
last = max(jobs, key=lambda p: p['end_s'])
busy = one([p for p in kids(last) if p['argv'][1:2] == ['burn']], 'the busy stage of the last job')
cat = one([p for p in kids(last) if p['argv'] == ['cat']], 'the cat of the last job')
check(abs(cat['start_s'] - busy['start_s']) > 0.02 or busy['pid'] in path,
      'the busy stage of the last job is not on the path: %r' % cp)
"
fi
echo ok
