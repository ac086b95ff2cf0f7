#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# critical-path --by task|rule (issue 17 item 4) on a real Snakemake run
# (-j 2) with a fan-out/fan-in DAG and an independent job:
#   src (sleep 1) -> branch x (sleep 6), y (sleep 2), z (sleep 2) -> join
#   (sleep 1); solo (sleep 4, priority: it starts with src) reads nothing.
# - with the embedded .snakemake/metadata: the path follows the data edges:
#   exactly src, the branch that ended last (whatever the scheduler did
#   with x, y, z and solo), join, every step after the first a "data" edge
#   whose predecessor wrote one of its inputs;
# - the path equals the chain of binding predecessors (of a task's
#   predecessors, the one that ended last) computed here from the
#   Snakefile's DAG and the recorded task start/end times (export --tasks),
#   from the task that ended last;
# - waits are each step's start minus its predecessor's end as recorded;
#   before_first + walls + waits + after_last = makespan (to the ns printed);
# - --by rule: the same chain, labelled by rule; the text output states the
#   identity;
# - recorded with --no-attach (no records): the edges are by time and the
#   process tree (all jobs are snakemake's children), and the path equals
#   the chain computed here by that rule from the recorded times.
# - the binding input, not the longest: `snakemake -j 1` with rule x (sleep
#   3, priority 10), w (sleep 1) and join reading x and w runs x, then w,
#   then join. join was ready when w ended: the path is w, join (w reads
#   nothing), the wait is join's start minus w's end, bounded by the jobs'
#   own clocks (each job writes `date +%s%N` at its start and end: the wait
#   is at most join's first stamp minus w's last, not the second x took
#   before w ran).
# Nothing is asserted on durations: only on what the trace and the jobs
# recorded.
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
# the path computed here: tasks (export --tasks rows, in start order: their
# task_id), deps(a, b): a precedes b; from the task that ended last back
# through binding predecessors (task_chain.py)
cat > path.py <<'PY'
import os, sys
sys.path.insert(0, os.environ['TESTS_DIR'] + '/integration')
from task_chain import binding_chain
def want_path(tasks, deps):
    ts = sorted(tasks, key=lambda t: t['task_id'])
    us = lambda s: round(s * 1e6)  # printed to the us
    chain = binding_chain(ts, lambda t: us(t['start_s']), lambda t: us(t['start_s']) + us(t['wall_s']), deps)
    return [t['key'] for t in chain]
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
    branches = [t for t in tasks if t['name'] == 'branch']
    lastb = max(branches, key=lambda t: t['start_s'] + t['wall_s'])
    check(path[1]['id'] == lastb['id'], 'the branch on the path is %r, want %r (ended last)' % (path[1]['id'], lastb['id']))
    # join's wait: its start minus its ready time (the last branch's end)
    j = [t for t in tasks if t['name'] == 'join'][0]
    ready = max(t['start_s'] + t['wall_s'] for t in branches)
    check(abs(path[-1]['wait_s'] - (j['start_s'] - ready)) < 3e-6, 'join waited %r, ready %r, started %r' % (path[-1]['wait_s'], ready, j['start_s']))
    check(all(s['edge'] == 'data' for s in path[1:]), 'edges %r' % [s['edge'] for s in path])
    check(cp['edges'] == {'data': 6, 'time': 0, 'late': 0}, 'edges %r, want 3 src->branch + 3 branch->join' % cp['edges'])
    dag = {('src', 'branch'), ('branch', 'join')}
    deps = lambda a, b: (rule(a['key']), rule(b['key'])) in dag
else:
    check(all(s['edge'] == 'time' for s in path[1:]), 'edges %r' % [s['edge'] for s in path])
    check(cp['edges']['data'] == 0 and cp['edges']['time'] > 0, 'edges %r' % cp['edges'])
    deps = lambda a, b: True  # every job is a child of snakemake
want = want_path(tasks, deps)
check([s['task'] for s in path] == want, 'path %r, the chain by the recorded times is %r' % ([s['task'] for s in path], want))
"
	grep -Eq '^makespan .* = .* before the first task \+ .* in tasks \+ .* waiting \+ .* after the last$' $mode.cp.txt &&
		grep -Eq ' (data|time) +(src|join|branch|solo|sleep)$' $mode.cp.txt || fail "critical-path --by rule text ($mode): $(cat $mode.cp.txt)"
done
# the binding input, not the longest (the recipe of the report): -j 1 runs x
# (priority), then w, then join; each job stamps its own start and end
mkdir bind
cat > bind/Snakefile <<'SMK'
rule all:
    input: "join.txt"
rule x:
    output: "x.txt"
    priority: 10
    shell: "date +%s%N > x.t0; sleep 3; echo x > {output}; date +%s%N > x.t1"
rule w:
    output: "w.txt"
    shell: "date +%s%N > w.t0; sleep 1; echo w > {output}; date +%s%N > w.t1"
rule join:
    input: "x.txt", "w.txt"
    output: "join.txt"
    shell: "date +%s%N > join.t0; cat {input} > {output}"
SMK
(cd bind && record -o "$T/bind.tz" -- snakemake -j 1 -q) || fail "record snakemake (bind)"
[ -s bind/join.txt ] || fail "the workflow did not run (bind)"
timeout 120 "$A" critical-path --by rule --json bind.tz > bind.cp.json || fail "critical-path --by rule (bind)"
timeout 120 "$A" critical-path --by rule bind.tz > bind.cp.txt || fail "critical-path --by rule text (bind)"
timeout 120 "$A" export --tasks --format jsonl bind.tz > bind.tasks.jsonl 2>/dev/null || fail "export --tasks (bind)"
python3 - <<'PY' || fail "critical-path --by rule (bind): $(cat bind.cp.txt)"
import json
st = {k: int(open("bind/" + k).read()) for k in ("x.t0", "x.t1", "w.t0", "w.t1", "join.t0")}
# the jobs' own clocks: x, then w, then join (-j 1, x's priority)
assert st["x.t1"] <= st["w.t0"] and st["w.t1"] <= st["join.t0"], st
cp = json.load(open("bind.cp.json"))
path = cp["path"]
tasks = {t["name"]: t for t in map(json.loads, open("bind.tasks.jsonl"))}
assert sorted(tasks) == ["join", "w", "x"], sorted(tasks)
# join was ready when w, its input that ended last, ended: w binds it; w
# read nothing, so the path starts there
assert [s["rule"] for s in path] == ["w", "join"], [s["rule"] for s in path]
assert path[1]["edge"] == "data" and path[0]["edge"] is None, path
assert path[0]["id"] == "w.txt" and path[1]["id"] == "join.txt", path
# the wait: join's start minus w's end, each as recorded (a task starts at
# its shell, before its first stamp, and ends after its last one), so at
# most join's first stamp minus w's last; x's 3 s are before the path
wait = path[1]["wait_s"]
assert abs(wait - (path[1]["start_s"] - path[0]["end_s"])) < 3e-9, path
assert 0 <= wait <= (st["join.t0"] - st["w.t1"]) / 1e9, (wait, st)
assert wait < (st["join.t0"] - st["x.t1"]) / 1e9 - (st["w.t1"] - st["w.t0"]) / 1e9, (wait, st)
assert abs(path[0]["start_s"] - tasks["w"]["start_s"]) < 2e-6, (path[0], tasks["w"])
assert cp["edges"] == {"data": 2, "time": 0, "late": 0}, cp["edges"]
assert cp["before_first_s"] >= (st["x.t1"] - st["x.t0"]) / 1e9, cp["before_first_s"]
PY
grep -Eq ' data  join$' bind.cp.txt && grep -Eq ' -  w$' bind.cp.txt || fail "critical-path --by rule text (bind): $(cat bind.cp.txt)"
# the process chain (--by tool) is unchanged by tasks: still a path of processes
timeout 120 "$A" critical-path --json records.tz | grep -q '"by_tool"' || fail "critical-path --json: no by_tool"
exit 0
