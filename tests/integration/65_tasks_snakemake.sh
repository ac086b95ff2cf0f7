#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tasks (issue 17), on a real Snakemake run (Debian's snakemake, -j 2) with
# wildcards, multi-command shell rules and benchmark: directives:
# - one task per job (3 x prep, 1 x merge), kind snakemake, nothing else;
# - per-job CPU equal to the sum over the job's processes (export --tasks
#   against the per-process export of the same trace);
# - per-job wall within 1% of Snakemake's own benchmark `s` column (jobs of
#   8 s: Snakemake's timer starts when Popen returns and stops when wait
#   does, so its python thread's latency on a loaded machine, tens of ms,
#   is in its figure, not in ours);
# - top --by task: one row per job, TASKS 1;
# - once the recorder embeds .snakemake/metadata (tracer-record --no-attach
#   exists), rule names exact: top --by rule gives prep 3, merge 1; and a
#   copy of the trace with the workflow dir gone still names them, and a
#   metadata file that is not JSON is ignored with one note; rightsize
#   gives a Snakemake profile block per rule that `snakemake --profile`
#   accepts (and its command-line form), memory in MB; diff --by rule
#   counts tasks; a job retried after a failure is one retry, not failed,
#   and a member exiting 1 in a succeeding job is no failed task;
# - a task's cores are its CPU over its wall (root start to last member
#   end), one figure in summary --json (mean_cores), top (CORES, MAX),
#   rightsize (max and mean) and export --tasks (%cpu): a CPU-bound python
#   job whose shell waits for it (`python3 burn.py; true`: the shell is a
#   member, idle as long as python runs) shows at least the CPU python
#   measured itself (time.process_time) over Snakemake's benchmark `s`, not
#   half of it (the shell's wall is no second wall of the task).
# - a second workflow (-j 2 -k, with its log): one rule over wildcards with
#   the same command (touch outputs), two rules whose commands differ only in
#   spaces, a script: rule, a failing rule (no metadata record: named from
#   the log's Error block, with its requested memory) and a retries: rule
#   (two tasks, attempts 1 and 2): names, keys and counts exact.
# - a job's memory is its tools', not Snakemake's: the job shell Snakemake
#   forks runs a copy of Snakemake's Python image until it execs, which the
#   kernel's process peak (wait4's ru_maxrss) includes. Each job's tools here
#   (bash, head, gzip, sleep, zcat, wc, cat, sort) are a few MiB, so its task
#   peak (export --tasks peak_rss, peak_rss_exit_max) must be below half of
#   Snakemake's own process peak (tens of MiB), and rightsize suggests the
#   smallest memory step (64 MiB, mem_mb=68) for them. Snakemake's benchmark
#   max_rss (psutil: the RSS of the job's process tree summed, sampled once a
#   second) is no bound of the combined peak (ours is sampled too, at other
#   moments), but no sum of the members' RSS at one moment can exceed the
#   sum of their own peaks: max_rss <= peak_rss_exit_sum (plus the per-CPU
#   RSS batch per member, as 26).
. "$(dirname "$0")/lib.sh"
need_root
command -v snakemake >/dev/null || { echo "skip: snakemake not installed (scripts/deps.sh)"; exit 77; }
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir wf
cat > wf/Snakefile <<'EOF'
S = ["a", "b", "c"]
rule all:
    input: "merged.txt"
rule prep:
    output: "p/{s}.txt"
    benchmark: "bench/prep_{s}.tsv"
    shell:
        """
        head -c 3000000 /dev/zero | gzip -1 > {output}.gz
        sleep 8
        zcat {output}.gz | wc -c > {output}
        """
rule merge:
    input: expand("p/{s}.txt", s=S)
    output: "merged.txt"
    benchmark: "bench/merge.tsv"
    shell: "cat {input} > {output}; sleep 8; sort {output} > {output}.sorted; printf '{{not json' > .snakemake/metadata/bm90LWpzb24="
EOF
(cd wf && record -o "$T/x.tz" -- snakemake -j 2 -q) || fail "record snakemake"
[ -s wf/merged.txt ] || fail "the workflow did not run"
export_jsonl x.tz procs.jsonl
timeout 120 "$A" export --tasks --format jsonl x.tz > tasks.jsonl 2> tasks.err || fail "export --tasks"
timeout 120 "$A" top --by task --json x.tz > top.json 2>/dev/null || fail "top --by task"
for f in wf/bench/*.tsv; do printf '%s\t%s\n' "$(basename "$f" .tsv)" "$(sed -n 2p "$f" | cut -f1)"; done > bench.txt
for f in wf/bench/*.tsv; do printf '%s\t%s\n' "$(basename "$f" .tsv)" "$(sed -n 2p "$f" | cut -f3)"; done > bench_rss.txt
ncpu=$(grep -c '^processor' /proc/cpuinfo)
pycheck procs.jsonl "
tasks = [json.loads(l) for l in open('tasks.jsonl')]
bench = dict(l.split('\t') for l in open('bench.txt').read().split('\n') if l)
bench_rss = dict(l.split('\t') for l in open('bench_rss.txt').read().split('\n') if l)
check(len(tasks) == 4, '%d tasks, want 4 (3 prep + merge): %r' % (len(tasks), [t['key'] for t in tasks]))
for t in tasks:
    check(t['kind'] == 'snakemake', 'task %r kind %r' % (t['key'], t['kind']))
    root = byid[t['root']]
    cmd = root['argv'][2]
    check(cmd.startswith('set -euo pipefail;'), 'root of %r is not the job shell: %r' % (t['key'], root['argv']))
    b = 'merge' if 'merged.txt' in cmd else 'prep_' + [s for s in 'abc' if 'p/%s.txt' % s in cmd][0]
    mem = subtree(t['root'])
    check(t['procs'] == len(mem), '%s: %d members, subtree has %d' % (b, t['procs'], len(mem)))
    cpu = sum(p['utime_s'] + p['stime_s'] for p in mem)
    check(abs(t['cpu_s'] - cpu) <= 2e-6 * len(mem), '%s: task cpu %r != sum over its processes %r' % (b, t['cpu_s'], cpu))
    s = float(bench[b])
    check(abs(t['wall_s'] - s) <= 0.01 * s, '%s: wall %r not within 1%% of the benchmark s %r' % (b, t['wall_s'], s))
    check(t['status'] == 'COMPLETED' and t['exit'] == 0, '%s: %r %r' % (b, t['status'], t['exit']))
    check(t['signal'] is None, '%s: signal %r, want null (not signalled, as per process)' % (b, t['signal']))
    smk = byid[root['parent_id']]
    slack = 2 * max(32, 2 * $ncpu) * 4 * $ncpu
    print('  %s: task peak %r KiB (members own: max %r, sum %r), benchmark max_rss %s MiB, snakemake %r KiB' %
          (b, t['peak_rss'] // 1024, t['peak_rss_exit_max'] // 1024, t['peak_rss_exit_sum'] // 1024,
           bench_rss[b], smk['peak_rss_kib']))
    check(t['peak_rss'] * 2 < smk['peak_rss_kib'] * 1024,
          '%s: task peak %r KiB not below half of snakemake %r KiB: its copy of snakemake' %
          (b, t['peak_rss'] // 1024, smk['peak_rss_kib']))
    if bench_rss[b] not in ('-', 'NA', ''):
        check(float(bench_rss[b]) * 1024 <= t['peak_rss_exit_sum'] // 1024 + slack * len(mem),
              '%s: benchmark max_rss %s MiB above the sum of the members own peaks %r KiB' %
              (b, bench_rss[b], t['peak_rss_exit_sum'] // 1024))
top = json.load(open('top.json'))
rows = [r for r in top if r['tool'] != '(none)']
check(len(rows) == 4 and all(r['tasks'] == 1 for r in rows), 'top --by task: %r' % [(r['tool'], r['tasks']) for r in rows])
none = [r for r in top if r['tool'] == '(none)']
check(len(none) == 1 and none[0]['tasks'] == 0, 'top --by task: (none) row %r' % none)
"
# rule names need the embedded .snakemake/metadata (tracer-record, issue 17 item 1)
if "$R" --help 2>&1 | grep -q -- '--no-attach'; then
	mkdir copy smk
	cp x.tz copy/
	cp wf/Snakefile smk/
	rm -rf wf
	timeout 120 "$A" top --by rule --json copy/x.tz > rule.json 2>rule.err || fail "top --by rule"
	# the damaged record (written by the merge job) is ignored, in one line
	[ "$(wc -l < rule.err)" = 1 ] && grep -q "^note: '.*/\.snakemake/metadata/bm90LWpzb24=': not a JSON object" rule.err ||
		fail "top --by rule: want one note on the bad metadata file, got: $(cat rule.err)"
	pycheck procs.jsonl "
rows = {r['tool']: r['tasks'] for r in json.load(open('rule.json'))}
check(rows == {'prep': 3, 'merge': 1, '(none)': 0}, 'top --by rule: %r, want prep 3, merge 1' % rows)
"
	timeout 120 "$A" rightsize copy/x.tz > rs.txt 2>/dev/null || fail "rightsize"
	grep -Eq '^prep +3 +0 ' rs.txt && grep -Eq '^merge +1 +0 ' rs.txt && grep -q '^set-threads:$' rs.txt &&
		grep -q '^  - prep=1$' rs.txt && ! grep -q withName rs.txt || fail "rightsize: $(cat rs.txt)"
	# diff --by rule counts tasks, like top
	timeout 120 "$A" diff --by rule copy/x.tz copy/x.tz > diff.txt 2>/dev/null || fail "diff --by rule"
	grep -Eq '^prep +3/3 ' diff.txt && grep -Eq '^merge +1/1 ' diff.txt && grep -q 'TASKS A/B' diff.txt ||
		fail "diff --by rule: want TASKS 3/3 and 1/1: $(cat diff.txt)"
	# the block is a profile Snakemake takes, memory in MB (10^6 bytes)
	timeout 120 "$A" rightsize --json copy/x.tz > rs.json 2>/dev/null || fail "rightsize --json"
	mkdir smk/prof
	sed -n '/^# Snakemake profile/,$p' rs.txt > smk/prof/config.yaml
	pycheck procs.jsonl "
rules = {r['name']: r for r in json.load(open('rs.json'))['rules']}
cfg = open('smk/prof/config.yaml').read()
for n in ('prep', 'merge'):
    mb = -(-rules[n]['suggest']['memory_bytes'] // 1000000)
    check(rules[n]['suggest']['memory_bytes'] == 64 << 20,
          '%s: memory suggested %r, want the 64 MiB step for its few-MiB tools' % (n, rules[n]['suggest']['memory_bytes']))
    check('  - %s:mem_mb=%d\\n' % (n, mb) in cfg, '%s: want mem_mb=%d in %r' % (n, mb, cfg))
"
	(cd smk && timeout 300 snakemake --profile prof -n -j 2 > prof.out 2>&1) ||
		fail "snakemake --profile rejects the rightsize block: $(cat smk/prof.out; cat smk/prof/config.yaml)"
	# the command-line form, from the block's comment
	cl=$(sed -n 's/^# --set-threads/--set-threads/p; s/^#   --set-resources/--set-resources/p' rs.txt | tr -d '\\\n')
	case "$cl" in --set-threads*--set-resources*) ;; *) fail "no command-line form: $(cat rs.txt)" ;; esac
	# shellcheck disable=SC2086 # words on purpose
	(cd smk && timeout 300 snakemake $cl -n -j 2 > cl.out 2>&1) ||
		fail "snakemake rejects the command-line form '$cl': $(cat smk/cl.out)"
	# a job that failed once and succeeded when retried (Snakemake has no
	# attempt in its records): RETRIES 1, not failed; a job whose member
	# exits 1 inside a succeeding shell is no failed task
	mkdir wf3
	cat > wf3/burn.py <<'EOF'
import sys, time
t0, c0 = time.time(), time.process_time()
while time.time() - t0 < 1.5:
    pass
open(sys.argv[1], "w").write("%.6f\n" % (time.process_time() - c0))
EOF
	cat > wf3/Snakefile <<'EOF'
rule all:
    input: "flaky.txt", "member.txt", "burn.txt"
rule burn:
    output: "burn.txt"
    benchmark: "burn.tsv"
    shell: "python3 burn.py {output}; true"
rule flaky:
    output: "flaky.txt"
    retries: 1
    shell: "if [ -e tried ]; then echo ok > {output}; else touch tried; exit 3; fi"
rule member:
    output: "member.txt"
    shell: "/bin/false || true; echo ok > {output}"
EOF
	# (and member's metadata record then says it started in 1e300: no time)
	(cd wf3 && record -o "$T/retry.tz" -- sh -c 'snakemake -j 1 -q &&
		sed -i "s/\"starttime\": *[0-9.e+]*/\"starttime\": 1e300/" .snakemake/metadata/bWVtYmVyLnR4dA==') ||
		fail "record the retried workflow"
	grep -q '"starttime": 1e300' wf3/.snakemake/metadata/bWVtYmVyLnR4dA== || fail "metadata not edited: $(cat wf3/.snakemake/metadata/*)"
	timeout 120 "$A" export --tasks --format jsonl retry.tz > tasks3.jsonl 2> tasks3.err || fail "export --tasks (retry)"
	timeout 120 "$A" rightsize --json retry.tz > rs3.json 2>/dev/null || fail "rightsize (retry)"
	timeout 120 "$A" top --by rule --json retry.tz > rule3.json 2>/dev/null || fail "top --by rule (retry)"
	timeout 120 "$A" top --by rule retry.tz > rule3.txt 2>/dev/null || fail "top --by rule text (retry)"
	timeout 120 "$A" summary --by rule --json retry.tz > sum3.json 2>/dev/null || fail "summary --by rule (retry)"
	sed -n 2p wf3/burn.tsv | cut -f1 > burn.s
	cp wf3/burn.txt burn.cpu
	pycheck procs.jsonl "
import math
rs = {r['name']: r for r in json.load(open('rs3.json'))['rules']}
f, m = rs.get('flaky'), rs.get('member')
check(f and (f['tasks'], f['retries'], f['failed']) == (2, 1, 0) and 'failed' not in f['flags'], 'flaky: %r' % f)
check(m and (m['tasks'], m['failed']) == (1, 0), 'member: %r' % m)
rows = {r['tool']: r for r in json.load(open('rule3.json'))}
r = rows.get('member')
check(r and r['failed_tasks'] == 0 and r['member_failures'] >= 1 and 'failed' not in r['flags'], 'top member: %r' % r)
r = rows.get('flaky')
check(r and r['failed_tasks'] == 1 and 'failed' in r['flags'], 'top flaky: %r' % r)
# a record's time of 1e300 is no time: left empty, with a note
tasks = [json.loads(l) for l in open('tasks3.jsonl')]
mt = [t for t in tasks if t['name'] == 'member']
check(len(mt) == 1 and mt[0]['wf_start'] is None and mt[0]['wf_end'] is not None, 'member task: %r' % mt)
# its cores: its CPU over its wall (a few ms of bash and false, which may
# exceed 1 by the exit path's CPU and the fork's overlap), held to its
# members' threads (both single-threaded: 2); cpus suggested from them
t = mt[0]
want = min(t['procs'], t['cpu_s'] / t['wall_s'])
check(t['procs'] == 2 and abs(m['max_cores'] - want) <= 1e-3 * want + 1e-6, 'member cores %r, task %r' % (m['max_cores'], t))
check(m['suggest']['cpus'] == max(1, math.ceil(m['max_cores'] - 0.1)), 'member suggest %r' % m)
err = open('tasks3.err').read()
check('note: task_id %d: its workflow record' % mt[0]['task_id'] in err and 'out of range' in err, 'no note: %r' % err)
# the CPU-bound job: one definition of its cores everywhere
bt = [t for t in tasks if t['name'] == 'burn']
check(len(bt) == 1 and bt[0]['procs'] >= 2, 'burn task (its shell and python): %r' % bt)
t = bt[0]
cores = t['cpu_s'] / t['wall_s']
bench_s, py_cpu = float(open('burn.s').read()), float(open('burn.cpu').read())
check(t['cpu_s'] >= py_cpu - 1e-6 and abs(t['wall_s'] - bench_s) <= 0.01 * bench_s, 'burn: task %r, python cpu %r, benchmark s %r' % (t, py_cpu, bench_s))
check(cores >= py_cpu / (1.01 * bench_s), 'burn: %r cores, python alone used %r over %r s' % (cores, py_cpu, bench_s))
check(abs(t['%cpu'] - 100 * cores) <= 0.051, 'export %%cpu %r, cores %r' % (t['%cpu'], cores))
sm = [g for g in json.load(open('sum3.json'))['top_tools'] if g['tool'] == 'burn']
check(len(sm) == 1 and abs(sm[0]['mean_cores'] - cores) <= 1e-3 * cores, 'summary mean_cores %r, want %r' % (sm, cores))
b = rows.get('burn')
check(b and abs(b['max_cores'] - cores) <= 1e-3 * cores and 'io_bound' not in b['flags'], 'top max_cores %r, want %r' % (b, cores))
row = [l.split() for l in open('rule3.txt') if l.split()[:2] == ['burn', '1']]
check(len(row) == 1 and abs(float(row[0][5]) - cores) <= 0.0051, 'top text CORES %r, want %.2f' % (row, cores))
rb = rs.get('burn')
check(rb and abs(rb['mean_cores'] - cores) <= 1e-3 * cores and abs(rb['max_cores'] - cores) <= 1e-3 * cores, 'rightsize %r, want %r' % (rb, cores))
"
	mkdir wf2 wf2/scripts
	cat > wf2/Snakefile <<'EOF'
S = ["p", "q", "r"]
rule all:
    input: expand("{s}.done", s=S), "x.txt", "z.txt", "sc.txt", "bad.txt", "flaky.txt"
rule w:
    output: touch("{s}.done")
    shell: "sleep 0.4"
rule x:
    output: touch("x.txt")
    shell: "sleep 0.5"
rule z:
    input: "x.txt"
    output: touch("z.txt")
    shell: "sleep   0.5"
rule sc:
    output: "sc.txt"
    script: "scripts/sc.py"
rule bad:
    output: "bad.txt"
    resources: mem_mb=200
    shell: "sleep 0.2; exit 4"
rule flaky:
    output: "flaky.txt"
    retries: 1
    shell: "if [ -e tried ]; then echo ok > {output}; else touch tried; sleep 0.2; exit 3; fi"
EOF
	echo 'open(snakemake.output[0], "w").write("s")' > wf2/scripts/sc.py
	rc=0
	(cd wf2 && record -o "$T/y.tz" -- snakemake -j 2 -k) || rc=$?
	[ "$rc" != 0 ] && [ -s wf2/flaky.txt ] && [ -s wf2/sc.txt ] && [ -e wf2/z.txt ] && [ ! -e wf2/bad.txt ] ||
		fail "second workflow: rc $rc, want non-zero (bad fails) with flaky.txt, sc.txt, z.txt made"
	rm -rf wf2
	timeout 120 "$A" export --tasks --format jsonl y.tz > tasks2.jsonl 2> tasks2.err || fail "export --tasks y.tz"
	timeout 120 "$A" top --by rule --json y.tz > rule2.json 2>/dev/null || fail "top --by rule y.tz"
	pycheck procs.jsonl "
tasks = [json.loads(l) for l in open('tasks2.jsonl')]
keys = sorted(t['key'] for t in tasks)
want = sorted(['w s=p', 'w s=q', 'w s=r', 'x x.txt', 'z z.txt', 'sc sc.txt', 'bad bad.txt',
               'flaky flaky.txt', 'flaky flaky.txt attempt 2'])
check(keys == want, 'task keys %r, want %r' % (keys, want))
by = {t['key']: t for t in tasks}
b = by.get('bad bad.txt', {})
check(b.get('exit') == 4 and b.get('status') == 'FAILED', 'bad: %r' % b)
check(b.get('req_memory') == 191 << 20, 'bad: req_memory %r, want mem_mib=191' % b.get('req_memory'))
f1, f2 = by.get('flaky flaky.txt', {}), by.get('flaky flaky.txt attempt 2', {})
check(f1.get('attempt') == 1 and f2.get('attempt') == 2, 'flaky attempts %r %r' % (f1.get('attempt'), f2.get('attempt')))
check(f1.get('exit') == 3 and f2.get('exit') == 0, 'flaky exits %r %r' % (f1.get('exit'), f2.get('exit')))
check(f1.get('root') != f2.get('root'), 'flaky: the same job twice: %r %r' % (f1, f2))
rows = {r['tool']: r['tasks'] for r in json.load(open('rule2.json'))}
check(rows == {'w': 3, 'x': 1, 'z': 1, 'sc': 1, 'bad': 1, 'flaky': 2, '(none)': 0}, 'top --by rule: %r' % rows)
"
	! grep -q 'without a .snakemake/metadata record' tasks2.err || fail "second workflow: jobs left unnamed: $(cat tasks2.err)"
else
	echo "note: this tracer-record embeds no workflow records: rule names not checked"
fi
exit 0
