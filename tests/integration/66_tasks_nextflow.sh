#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tasks (issue 17) of Nextflow's local executor, reproduced (Nextflow cannot
# be installed here): a launcher named nextflow, run from its launch dir, makes work/xx/<hash>/ dirs with a
# .command.run (the `# NEXTFLOW TASK: NAME (TAG)` header, launching
# `/bin/bash -ue <workdir>/.command.sh` in the background and writing
# .exitcode) and runs each as `/bin/bash -ue .command.run` from the work dir,
# two at a time; one task fails (exit 137) and is retried in a new work dir;
# then it writes trace.txt (and a damaged trace-cut.txt).
# - 4 tasks, kind nextflow, hashes = the work dirs', exits and status as run,
#   CPU = the sum over each task's processes;
# - once the recorder embeds the workflow records (--no-attach exists):
#   names, tags, native_id (the wrapper's pid), attempts, requested cpus and
#   memory from trace.txt; the damaged file is ignored with one note;
#   rightsize: requests of the first attempts, the OOM retry, suggestions
#   by the documented headroom rule, a Nextflow withName block, the busy
#   host warning exactly when host_busy_pct > 90; --config snakemake gives
#   a profile `snakemake --profile` takes;
# - the generic rule: --task 'step --sample=([a-z]+)' names tasks by the
#   capture; without it, each direct child of the recorded command is one.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir nf
cat > nf/nextflow <<'EOF'
#!/bin/bash
# nextflow: Nextflow's local executor's process shape, four tasks
set -eu
cd "$(dirname "$0")"
n=0
printf 'task_id\thash\tnative_id\tname\tstatus\texit\tattempt\tcpus\tmemory\ttime\n' > trace.txt.tmp
task() { # name tag attempt cpus memory script
	n=$((n + 1))
	local h; h=$(printf '%s %s %s' "$1" "$2" "$3" | md5sum | cut -c1-32)
	local wd=$PWD/work/${h:0:2}/${h:2}
	mkdir -p "$wd"
	printf '#!/bin/bash -ue\n%s\n' "$6" > "$wd/.command.sh"
	cat > "$wd/.command.run" <<RUN
#!/bin/bash
# NEXTFLOW TASK: $1 ($2)
set -e
set -u
on_exit() { exit_status=\${nxf_main_ret:=\$?}; printf -- "\$exit_status" > $wd/.exitcode; exit \$exit_status; }
trap on_exit EXIT
/bin/bash -ue $wd/.command.sh &
pid=\$!
wait \$pid || nxf_main_ret=\$?
RUN
	(cd "$wd" && exec /bin/bash -ue .command.run) &
	local pid=$!
	local rc=0
	wait $pid || rc=$?
	printf '%s\t%s\t%s\t%s (%s)\t%s\t%s\t%s\t%s\t%s\t1h\n' $n "${h:0:2}/${h:2:6}" $pid "$1" "$2" \
		"$([ $rc = 0 ] && echo COMPLETED || echo FAILED)" $rc "$3" "$4" "$5" >> trace.txt.tmp
	echo "$1 $2 $3 ${h:0:2}/${h:2} $rc" >> tasks.txt
}
task ALIGN s1 1 2 '1 GB' 'head -c 2000000 /dev/urandom | gzip -1 > out.gz; sleep 0.3' &
task ALIGN s2 1 2 '1 GB' 'head -c 2000000 /dev/urandom | gzip -1 > out.gz; sleep 0.3' &
wait
task SORT s1 1 1 '512 MB' 'sleep 0.2; exit 137' || true
task SORT s1 2 1 '1 GB' 'seq 100000 | sort -n > sorted.txt'
# the two ALIGN rows were written by subshells: gather them in task order
mv trace.txt.tmp trace.txt
head -c 200 trace.txt > trace-cut.txt
EOF
chmod +x nf/nextflow
(cd nf && record -o "$T/x.tz" -- ./nextflow) || fail "record the launcher"
[ "$(wc -l < nf/tasks.txt)" = 4 ] || fail "the launcher did not run 4 tasks: $(cat nf/tasks.txt)"
export_jsonl x.tz procs.jsonl
timeout 120 "$A" export --tasks --format jsonl x.tz > tasks.jsonl 2> tasks.err || fail "export --tasks"
pycheck procs.jsonl "
tasks = [json.loads(l) for l in open('tasks.jsonl')]
ran = {l.split()[3]: l.split() for l in open('nf/tasks.txt')}
check(len(tasks) == 4, '%d tasks, want 4: %r' % (len(tasks), [t['key'] for t in tasks]))
for t in tasks:
    check(t['kind'] == 'nextflow', '%r: kind %r' % (t['key'], t['kind']))
    check(t['hash'] in ran, 'hash %r is no work dir of the run: %r' % (t['hash'], sorted(ran)))
    name, tag, attempt, h, rc = ran[t['hash']]
    check(t['exit'] == int(rc), '%s: exit %r, ran %s' % (h, t['exit'], rc))
    check(t['status'] == ('COMPLETED' if rc == '0' else 'FAILED'), '%s: status %r' % (h, t['status']))
    root = byid[t['root']]
    check(root['argv'] == ['/bin/bash', '-ue', '.command.run'], '%s: root %r' % (h, root['argv']))
    mem = subtree(t['root'])
    cpu = sum(p['utime_s'] + p['stime_s'] for p in mem)
    check(t['procs'] == len(mem) and abs(t['cpu_s'] - cpu) <= 2e-6 * len(mem),
          '%s: %r procs %r cpu, subtree %r %r' % (h, t['procs'], t['cpu_s'], len(mem), cpu))
"
if "$R" --help 2>&1 | grep -q -- '--no-attach'; then
	grep -q "^note: '.*/trace-cut.txt': 1 row(s) without the header's 10 columns" tasks.err ||
		fail "no note on the cut trace-cut.txt: $(cat tasks.err)"
	[ "$(wc -l < tasks.err)" = 1 ] || fail "notes: $(cat tasks.err)"
	pycheck procs.jsonl "
tasks = [json.loads(l) for l in open('tasks.jsonl')]
ran = {l.split()[3]: l.split() for l in open('nf/tasks.txt')}
for t in tasks:
    name, tag, attempt, h, rc = ran[t['hash']]
    check((t['name'], t['tag'], t['attempt']) == (name, tag, int(attempt)), '%s: %r' % (h, t))
    check(t['native_id'] == str(byid[t['root']]['pid']), '%s: native_id %r, root pid %r' % (h, t['native_id'], byid[t['root']]['pid']))
    want = {'ALIGN': (2, 1 << 30), 'SORT': (1, (512 << 20) if attempt == '1' else 1 << 30)}[name]
    check((t['req_cpus'], t['req_memory'], t['req_time']) == (want[0], want[1], 3600000), '%s: requested %r' % (h, t))
"
	# right-sizing from the same records: requests of first attempts, the OOM retry
	timeout 120 "$A" rightsize --json x.tz > rs.json 2>/dev/null || fail "rightsize --json"
	timeout 120 "$A" rightsize x.tz > rs.txt 2>/dev/null || fail "rightsize"
	pycheck procs.jsonl "
tasks = [json.loads(l) for l in open('tasks.jsonl')]
rs = {r['name']: r for r in json.load(open('rs.json'))['rules']}
check(sorted(rs) == ['ALIGN', 'SORT'], 'rules %r' % sorted(rs))
a, s = rs['ALIGN'], rs['SORT']
check((a['tasks'], a['retries'], a['oom_retries'], a['req_cpus'], a['req_memory_bytes'], a['req_time_s']) == (2, 0, 0, 2, 1 << 30, 3600),
      'ALIGN %r' % a)
check((s['tasks'], s['retries'], s['oom_retries'], s['failed'], s['req_memory_bytes']) == (2, 1, 1, 0, 512 << 20), 'SORT %r' % s)
check('oom_retry' in s['flags'] and 'over_memory' in a['flags'], 'flags %r %r' % (a['flags'], s['flags']))
for name, r in rs.items():
    peak = max(t['peak_rss'] or 0 for t in tasks if t['name'] == name)
    wall = max(t['wall_s'] for t in tasks if t['name'] == name)
    q = 64 << 20
    check(r['peak_rss_bytes'] == peak and r['suggest']['memory_bytes'] == max(q, -(-int(peak * 1.2) // q) * q),
          '%s: peak %r suggest %r, tasks peak %r' % (name, r['peak_rss_bytes'], r['suggest'], peak))
    check(r['suggest']['time_s'] == max(60, -(-int(2 * wall * 1000) // 60000) * 60), '%s: time %r wall %r' % (name, r['suggest'], wall))
txt = open('rs.txt').read()
check(\"withName: 'ALIGN' {\" in txt and \"withName: 'SORT' {\" in txt and 'set-threads:' not in txt, 'rightsize text: ' + txt)
busy = json.load(open('rs.json'))['host_busy_pct']
check(busy is None or 0 <= busy <= 100, 'host_busy_pct %r' % busy)
check(('warning: the host was' in txt) == (busy is not None and busy > 90), 'busy %r, text: %s' % (busy, txt))
"
	# the Snakemake form of the same suggestions is a profile Snakemake takes
	if command -v snakemake >/dev/null; then
		timeout 120 "$A" rightsize --config snakemake x.tz > rsm.txt 2>/dev/null || fail "rightsize --config snakemake"
		mkdir -p smk/prof
		printf 'rule ALIGN:\n    output: "a"\n    shell: "true"\nrule SORT:\n    output: "s"\n    shell: "true"\n' > smk/Snakefile
		sed -n '/^# Snakemake profile/,$p' rsm.txt > smk/prof/config.yaml
		grep -q '^  - ALIGN=' smk/prof/config.yaml && grep -q '^  - SORT:mem_mb=' smk/prof/config.yaml ||
			fail "rightsize --config snakemake: $(cat rsm.txt)"
		(cd smk && timeout 300 snakemake --profile prof -n -j 1 a s > prof.out 2>&1) ||
			fail "snakemake --profile rejects the rightsize block: $(cat smk/prof.out smk/prof/config.yaml)"
	fi
else
	echo "note: this tracer-record embeds no workflow records: names, attempts, requests not checked"
fi

# the generic rule, and the fallback without any adapter match
cat > steps.sh <<'EOF'
#!/bin/bash
sh -c 'exec bash -c "seq 50000 | sort -n > /dev/null; true step --sample=aa"' &
sh -c 'seq 30000 | sort -n > /dev/null; true step --sample=bb' &
wait
EOF
chmod +x steps.sh
record -o g.tz -- ./steps.sh || fail "record steps"
timeout 60 "$A" top --by task --json --task 'step --sample=([a-z]+)' g.tz > g.json 2>g.err || fail "top --task"
timeout 60 "$A" top --by task --json g.tz > c.json 2>/dev/null || fail "top (fallback)"
timeout 60 "$A" top --by task --task '(' g.tz > /dev/null 2>bad.err && fail "a bad --task pattern was accepted"
grep -q "^tracer-analyze: --task: '(' is not an extended regular expression" bad.err || fail "bad --task: $(cat bad.err)"
export_jsonl g.tz g.jsonl
pycheck g.jsonl "
g = {r['tool'].split()[0]: r for r in json.load(open('g.json'))}
check(sorted(g) == ['(none)', 'aa', 'bb'] and g['aa']['tasks'] == 1 and g['bb']['tasks'] == 1,
      '--task rows %r' % {k: r['tasks'] for k, r in g.items()})
root = one([p for p in procs if not p['parent_id']], 'the recorded command')
c = [r for r in json.load(open('c.json')) if r['tool'] != '(none)']
check(sum(r['tasks'] for r in c) == len(kids(root)) == 2, 'fallback: %r tasks, %d children' % ([(r['tool'], r['tasks']) for r in c], len(kids(root))))
"
exit 0
