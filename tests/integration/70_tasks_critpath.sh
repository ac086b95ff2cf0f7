#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# critical-path --by task|rule (issue 17 item 4) on a real Snakemake run
# (-j 2) with a fan-out/fan-in DAG and an independent job:
#   src (sleep 1) -> branch x (sleep 6), y (sleep 2), z (sleep 2) -> join
#   (sleep 1); solo (sleep 4, priority: it starts with src) reads nothing.
# - with the embedded .snakemake/metadata: the path follows the data edges:
#   exactly src, branch x, join (x, the longest branch, whatever the
#   scheduler did with y and z and solo), every step after the first a
#   "data" edge whose predecessor wrote one of its inputs;
# - the path equals the longest chain (sum of task walls) computed here from
#   the Snakefile's DAG and the recorded task start/end times (export
#   --tasks), ending at the task that ended last;
# - waits are each step's start minus its predecessor's end as recorded;
#   before_first + walls + waits + after_last = makespan (to the ns printed);
# - --by rule: the same chain, labelled by rule; the text output states the
#   identity;
# - recorded with --no-attach (no records): the edges are by time and the
#   process tree (all jobs are snakemake's children), and the path equals
#   the longest chain computed here by that rule from the recorded times.
# Nothing is asserted on durations: only on what the trace recorded.
. "$(dirname "$0")/lib.sh"
need_root
command -v snakemake >/dev/null || { echo "skip: snakemake not installed (scripts/deps.sh)"; exit 77; }
"$R" --help 2>&1 | grep -q -- '--no-attach' || { echo "skip: this tracer-record embeds no workflow records"; exit 77; }
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkwf() {
	mkdir "$1"
	snakefile_fan "$1/Snakefile" '{"x": 6, "y": 2, "z": 2}' '"joined.txt", "solo.txt"'
	cat >> "$1/Snakefile" <<'SMK'
rule solo:
    output: "solo.txt"
    priority: 50
    shell: "sleep 4; echo solo > {output}"
SMK
}
# the path computed here: tasks (export --tasks rows), deps(a, b) -> edge
# kind or None; longest sum of walls into the task that ended last
cat > path.py <<'PY'
def want_path(tasks, deps):
    ts = sorted(tasks, key=lambda t: t['task_id'])
    for t in ts:
        t['end'] = t['start_s'] + t['wall_s']
    best, pred = {}, {}
    for i, b in enumerate(ts):
        best[i], pred[i] = b['wall_s'], None
        for j in range(i):
            a = ts[j]
            if a['end'] <= b['start_s'] + 1e-9 and deps(a, b):
                v = best[j] + b['wall_s']
                if v > best[i] + 1e-9:
                    best[i], pred[i] = v, j
    last = max(range(len(ts)), key=lambda i: (ts[i]['end'], best[i]))
    out = []
    while last is not None:
        out.append(ts[last]['key'])
        last = pred[last]
    return out[::-1]
PY
for mode in records none; do
	mkwf wf-$mode
	opt=; [ $mode = none ] && opt=--no-attach
	(cd wf-$mode && record $opt -o "$T/$mode.tz" -- snakemake -j 2 -q) || fail "record snakemake ($mode)"
	[ -s wf-$mode/joined.txt ] || fail "the workflow did not run ($mode)"
	export_jsonl $mode.tz $mode.procs.jsonl
	timeout 120 "$A" export --tasks --format jsonl $mode.tz > $mode.tasks.jsonl 2>/dev/null || fail "export --tasks ($mode)"
	timeout 120 "$A" critical-path --by task --json $mode.tz > $mode.cp.json || fail "critical-path --by task ($mode)"
	timeout 120 "$A" critical-path --by rule --json $mode.tz > $mode.cpr.json || fail "critical-path --by rule ($mode)"
	timeout 120 "$A" critical-path --by rule $mode.tz > $mode.cp.txt || fail "critical-path --by rule text ($mode)"
	pycheck $mode.procs.jsonl "
exec(open('path.py').read())
mode = '$mode'
tasks = [json.loads(l) for l in open(mode + '.tasks.jsonl')]
cp = json.load(open(mode + '.cp.json'))
cpr = json.load(open(mode + '.cpr.json'))
check(len(tasks) == 6, '%d tasks, want 6 (rule all runs nothing): %r' % (len(tasks), [t['key'] for t in tasks]))
byroot = {t['root']: t for t in tasks}
path = cp['path']
check(path and cp['by'] == 'task' and cpr['by'] == 'rule', 'by: %r %r' % (cp.get('by'), cpr.get('by')))
# each step is a recorded task, with its recorded start/end
for s in path:
    t = [t for t in tasks if t['key'] == s['task']]
    check(len(t) == 1, 'step %r is not one task' % s['task'])
    t = t[0]
    check(byid[t['root']]['pid'] == s['pid'], 'step %r: pid %r' % (s['task'], s['pid']))
    check(abs(s['start_s'] - t['start_s']) < 2e-6 and abs(s['wall_s'] - t['wall_s']) < 2e-6,
          'step %r: %r..%r, the task %r + %r' % (s['task'], s['start_s'], s['end_s'], t['start_s'], t['wall_s']))
    check(abs(s['end_s'] - s['start_s'] - s['wall_s']) < 2e-9 * 4, 'step %r wall' % s['task'])
# waits: start minus the predecessor's end, as recorded
check(path[0]['wait_s'] == 0 and path[0]['edge'] is None, 'first step %r' % path[0])
for p, s in zip(path, path[1:]):
    check(abs(s['wait_s'] - (s['start_s'] - p['end_s'])) < 3e-9 and s['wait_s'] >= 0,
          'wait of %r: %r, start %r - end %r' % (s['task'], s['wait_s'], s['start_s'], p['end_s']))
# the identity, to the ns printed
tot = cp['before_first_s'] + cp['wall_s'] + cp['wait_s'] + cp['after_last_s']
check(abs(tot - cp['makespan_s']) < 5e-9, 'before %r + wall %r + wait %r + after %r != makespan %r' % (
      cp['before_first_s'], cp['wall_s'], cp['wait_s'], cp['after_last_s'], cp['makespan_s']))
check(abs(sum(s['wall_s'] for s in path) - cp['wall_s']) < 1e-8 and abs(sum(s['wait_s'] for s in path) - cp['wait_s']) < 1e-8, 'sums')
check(cp['before_first_s'] >= 0 and cp['after_last_s'] >= 0, 'before/after %r %r' % (cp['before_first_s'], cp['after_last_s']))
# ends at the task that ended last
check(abs(path[-1]['end_s'] - max(t['start_s'] + t['wall_s'] for t in tasks)) < 2e-6, 'path ends at %r, not the last task' % path[-1]['task'])
# --by rule: the same chain, by rule
check([s['task'] for s in cpr['path']] == [s['task'] for s in path] and [s['rule'] for s in cpr['path']] == [s['rule'] for s in path], 'by rule: another chain')
rule = lambda k: k.split()[0]
if mode == 'records':
    check([s['rule'] for s in path] == ['src', 'branch', 'join'], 'path %r, want src, branch, join' % [s['task'] for s in path])
    check(path[1]['id'] == 'b/x.txt', 'the branch on the path is %r, want b/x.txt (the longest)' % path[1]['id'])
    check(all(s['edge'] == 'data' for s in path[1:]), 'edges %r' % [s['edge'] for s in path])
    check(cp['edges'] == {'data': 6, 'time': 0, 'late': 0}, 'edges %r, want 3 src->branch + 3 branch->join' % cp['edges'])
    dag = {('src', 'branch'), ('branch', 'join')}
    deps = lambda a, b: (rule(a['key']), rule(b['key'])) in dag
else:
    check(all(s['edge'] == 'time' for s in path[1:]), 'edges %r' % [s['edge'] for s in path])
    check(cp['edges']['data'] == 0 and cp['edges']['time'] > 0, 'edges %r' % cp['edges'])
    deps = lambda a, b: True  # every job is a child of snakemake
want = want_path(tasks, deps)
check([s['task'] for s in path] == want, 'path %r, the longest chain by the recorded times is %r' % ([s['task'] for s in path], want))
"
	grep -Eq '^makespan .* = .* before the first task \+ .* in tasks \+ .* waiting \+ .* after the last$' $mode.cp.txt &&
		grep -Eq ' (data|time) +(src|join|branch|solo|sleep)$' $mode.cp.txt || fail "critical-path --by rule text ($mode): $(cat $mode.cp.txt)"
done
# the process chain (--by tool) is unchanged by tasks: still a path of processes
timeout 120 "$A" critical-path --json records.tz | grep -q '"by_tool"' || fail "critical-path --json: no by_tool"
exit 0
