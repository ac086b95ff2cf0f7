#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: critical-path --by task|rule across hosts follows the workflow's
# records. A real Snakemake run in cluster mode (--cluster): the head runs
# snakemake; each job is handed to one of two "nodes" (UTS namespaces with
# their own hostnames on this machine, each with its own tracer-record
# around a worker that runs the jobs it is given: simulated hosts, one boot
# id, so the clock bound is 0). The jobs are placed so that the DAG
#   src (node1) -> branch x (node2), branch y (node1) -> join (node1)
# crosses hosts twice; x waits for y's output to appear and then sleeps 1 s,
# so x ends after y whatever the machine's speed: x binds join. Each node's recorder embeds .snakemake/metadata (the
# workflow's directory is shared), so each cluster job is joined with its
# record (inputs, outputs). Checked against what the traces and Snakemake
# wrote, nothing against durations:
#   - every job is a task named by its rule and its output;
#   - the path over the three traces is exactly src, branch x, join on
#     node1, node2, node1, each step after the first a "data" edge, and equals
#     the chain of binding predecessors (of a job's inputs, the one that
#     ended last) computed here from the Snakefile's DAG and the recorded
#     task times (export --tasks --fleet, on the wall clock);
#   - waits are each step's start minus its predecessor's end;
#     before_first + walls + waits + after_last = makespan (ns printed);
#   - the head is named off the path; --by rule is the same chain; the
#     merge of the three traces gives the same path; the text states how
#     the edges were chosen;
#   - a second recording of node1 (-p on its worker: the same processes)
#     adds no task: a task two traces of one host hold is counted once,
#     whichever is named first;
#   - another workflow (its own directory) that wrote src.txt before, on a
#     host "other", links to nothing: records name files by the workflow's
#     directory.
. "$(dirname "$0")/lib.sh"
need_hosts snakemake
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir wf spool1 spool2
snakefile_fan wf/Snakefile '{"x": "1; while [ ! -e b/y.txt ]; do sleep 0.1; done; sleep 1", "y": 1}' '"joined.txt"'
# snakemake --cluster CMD: CMD JOBSCRIPT hands the job to a node's spool
# (branch x to node2, every other job to node1) and prints a job id
cat >submit.sh <<SUBMIT
#!/bin/sh
n=\$(date +%s%N)
d=$T/spool1
grep -q 'branch:b=x' "\$1" && d=$T/spool2
cp "\$1" "\$d/.j\$n" && mv "\$d/.j\$n" "\$d/j\$n" && echo "\$n"
SUBMIT
# a node: run the jobs of its spool one at a time until told to stop
cat >worker.sh <<WORKER
#!/bin/sh
cd $T/wf || exit 1
while [ ! -e $T/stop ]; do
	for j in $T/spool\$1/j*; do
		[ -e "\$j" ] || continue
		mv "\$j" "$T/spool\$1/run-\${j##*/}" && sh "$T/spool\$1/run-\${j##*/}"
	done
	sleep 0.1
done
WORKER
chmod +x submit.sh worker.sh
# first, another workflow in its own directory that also writes src.txt
mkdir wf2
printf 'rule src:\n    output: "src.txt"\n    shell: "echo other > {output}"\n' >wf2/Snakefile
(cd wf2 && timeout -k 5 240 unshare -u sh -c 'hostname "$0" && exec "$@"' other "$R" --no-progress \
	-o "$T/other.tz" -- snakemake -j 1 -q) >other.log 2>&1 || fail "the other workflow: $(tail -5 other.log)"
for k in 1 2; do
	timeout -k 5 300 unshare -u sh -c 'hostname "$0" && exec "$@"' node$k "$R" --no-progress \
		-o node$k.tz -- "$T/worker.sh" $k >node$k.log 2>&1 &
	bg_track $!
	echo $! >node$k.pid
done
# node1 recorded twice: -p on its worker, in a namespace of the same name
w=
for _ in $(seq 100); do
	w=$(pgrep -f "^/bin/sh $T/worker.sh 1\$" | head -1 || true)
	[ -n "$w" ] && break
	sleep 0.1
done
[ -n "$w" ] || fail "node1's worker did not start: $(cat node1.log)"
timeout -k 5 300 unshare -u sh -c 'hostname "$0" && exec "$@"' node1 "$R" --no-progress \
	-o node1p.tz -p "$w" >node1p.log 2>&1 &
bg_track $!
echo $! >node1p.pid
for _ in $(seq 100); do [ -s node1p.tz ] && break; sleep 0.1; done
(cd wf && timeout -k 5 240 unshare -u sh -c 'hostname "$0" && exec "$@"' head "$R" --no-progress \
	-o "$T/head.tz" -- snakemake -j 2 -q --cluster "$T/submit.sh" --latency-wait 10) >head.log 2>&1 ||
	{ touch stop; fail "the workflow on the head: $(tail -5 head.log)"; }
touch stop
for k in 1 2 1p; do wait "$(cat node$k.pid)" || fail "node$k's recording: $(tail -5 node$k.log)"; done
[ -s wf/joined.txt ] || fail "the workflow did not run"

# what ran where: every trace's tasks
"$A" export --tasks --format jsonl --fleet head.tz node1.tz node2.tz >tasks.jsonl 2>/dev/null ||
	fail "export --tasks --fleet"
for by in task rule; do
	"$A" critical-path --by $by --json head.tz node1.tz node2.tz >cp-$by.json 2>/dev/null ||
		fail "critical-path --by $by over hosts"
done
"$A" merge -o run.tz head.tz node1.tz node2.tz || fail merge
"$A" critical-path --by task --json run.tz >cp-merged.json 2>/dev/null || fail "critical-path of the merge"
"$A" critical-path --by task head.tz node1.tz node2.tz >cp.txt 2>/dev/null || fail "critical-path text"
"$A" critical-path --by task --json head.tz node1.tz node2.tz node1p.tz >cp-twice.json 2>twice.err ||
	fail "critical-path with node1 twice"
grep -q "'node1.tz' and 'node1p.tz' were recorded on one host (same boot id) at overlapping times" twice.err ||
	fail "the overlap is not named: $(cat twice.err)"
"$A" critical-path --by task --json node1p.tz head.tz node1.tz node2.tz >cp-twice1.json 2>/dev/null ||
	fail "critical-path with node1 twice, the copy first"
"$A" critical-path --by task --json head.tz node1.tz node2.tz other.tz >cp-other.json 2>/dev/null ||
	fail "critical-path with another workflow"
"$A" export --tasks --format jsonl other.tz >tasks-other.jsonl 2>/dev/null || fail "export --tasks other.tz"
"$A" export --tasks --format jsonl node1p.tz >tasks-1p.jsonl 2>/dev/null || fail "export --tasks node1p.tz"

PYTHONPATH=$TESTS_DIR/integration python3 - <<'PY' || fail "task path across hosts"
import calendar, json, time
from task_chain import binding_chain
NS = 1e-9
tasks = [json.loads(l) for l in open("tasks.jsonl")]
jobs = [t for t in tasks if t["kind"] == "snakemake"]
got = sorted((t["host"], t["name"], t["id"]) for t in jobs)
want = sorted([("node1", "src", "src.txt"), ("node2", "branch", "b/x.txt"),
               ("node1", "branch", "b/y.txt"), ("node1", "join", "joined.txt")])
assert got == want, ("jobs", got)
# the chain of binding predecessors by the Snakefile's DAG over the
# recorded times (wall-clock ns), from the job that ended last
dag = {("src", "branch"), ("branch", "join")}
for t in jobs:
    t["s"], t["e"] = t["start_epoch_ns"], t["complete_epoch_ns"]
ts = sorted(jobs, key=lambda t: (t["s"], t["host"]))
chain = [(t["host"], t["key"])
         for t in binding_chain(ts, lambda t: t["s"], lambda t: t["e"],
                                lambda a, b: (a["name"], b["name"]) in dag)]
assert [k.split()[0] for h, k in chain] == ["src", "branch", "join"], chain
# x ended after y (it waited for y's output): x, not y, bound join
end = {t["id"]: t["e"] for t in jobs}
assert end["b/x.txt"] > end["b/y.txt"], end
cp = json.load(open("cp-task.json"))
assert cp["multi_host"] is True and cp["order"] == "task_edges" and cp["by"] == "task", cp["order"]
path = cp["path"]
assert [(s["host"], s["task"]) for s in path] == chain, ([(s["host"], s["task"]) for s in path], chain)
assert [s["host"] for s in path] == ["node1", "node2", "node1"], path
assert path[1]["id"] == "b/x.txt", path[1]
assert path[0]["edge"] is None and all(s["edge"] == "data" for s in path[1:]), [s["edge"] for s in path]
# src -> x, src -> y, x -> join, y -> join; two of them between hosts
assert cp["edges"]["data"] == 4 and cp["edges"]["data_between_hosts"] == 2, cp["edges"]
assert cp["edges"]["late"] == 0, cp["edges"]
assert cp["off_path"] == ["head"], cp["off_path"]
assert cp["clock"]["bound_s"] == 0, cp["clock"]
def iso_ns(s):  # "2026-12-02T00:55:01.263814434Z" -> epoch ns
    sec = calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S"))
    return sec * 10**9 + int((s[20:-1] + "000000000")[:9])
r0 = iso_ns(cp["start"])
for s in path:  # the recorded job, on the run's wall-clock axis
    t = [t for t in jobs if t["host"] == s["host"] and t["key"] == s["task"]][0]
    assert abs(r0 + s["start_s"] * 1e9 - t["s"]) < 2000, (s, t["s"])
    assert abs(r0 + s["end_s"] * 1e9 - t["e"]) < 2000, (s, t["e"])
    assert s["id"] == t["id"] and s["rule"] == t["name"], (s, t)
for p, s in zip(path, path[1:]):
    assert abs(s["wait_s"] - (s["start_s"] - p["end_s"])) < 3 * NS and s["wait_s"] >= 0, s
tot = cp["before_first_s"] + cp["wall_s"] + cp["wait_s"] + cp["after_last_s"]
assert abs(tot - cp["makespan_s"]) < 5 * NS, (tot, cp["makespan_s"])
assert abs(sum(s["wall_s"] for s in path) - cp["wall_s"]) < 5 * NS
assert cp["before_first_s"] >= 0 and cp["after_last_s"] >= 0
# --by rule: the same chain; the merge: the same path, its members named
r = json.load(open("cp-rule.json"))
assert r["by"] == "rule" and [(s["host"], s["task"], s["rule"]) for s in r["path"]] == \
       [(s["host"], s["task"], s["rule"]) for s in path], r["path"]
m = json.load(open("cp-merged.json"))
strip = lambda p: [{k: v for k, v in s.items() if k != "trace"} for s in p]
assert strip(m["path"]) == strip(path), (m["path"], path)
assert [s["trace"] for s in m["path"]] == ["run.tz[1]", "run.tz[2]", "run.tz[1]"], m["path"]
assert m["makespan_s"] == cp["makespan_s"] and m["edges"] == cp["edges"]
# node1 twice: its jobs are in both traces, yet each task counts once
dup = [json.loads(l) for l in open("tasks-1p.jsonl")]
assert sorted(t["key"] for t in dup if t["kind"] == "snakemake") == \
       sorted(t["key"] for t in jobs if t["host"] == "node1"), dup
for name, first in (("cp-twice.json", "node1.tz"), ("cp-twice1.json", "node1p.tz")):
    w = json.load(open(name))
    # (each trace's wall clock is its own anchors', a few ns apart; a
    # task's end is its last member's as each recorder saw it: us apart)
    assert [(s["host"], s["task"]) for s in w["path"]] == [(s["host"], s["task"]) for s in path], \
           (name, w["path"])
    assert all(abs(a["start_s"] - b["start_s"]) < 1e-6 and abs(a["end_s"] - b["end_s"]) < 1e-4
               for a, b in zip(w["path"], path)), (name, w["path"])
    assert [s["trace"] for s in w["path"] if s["host"] == "node1"] == [first, first], (name, w["path"])
    assert w["edges"] == cp["edges"], (name, w["edges"], cp["edges"])
# another workflow's src.txt is another file: no edge, the same path
o = [json.loads(l) for l in open("tasks-other.jsonl")]
assert [(t["name"], t["id"]) for t in o if t["kind"] == "snakemake"] == [("src", "src.txt")], o
w = json.load(open("cp-other.json"))
assert [(s["host"], s["task"]) for s in w["path"]] == [(s["host"], s["task"]) for s in path], w["path"]
assert w["edges"]["data"] == cp["edges"]["data"] and w["edges"]["data_between_hosts"] == 2, w["edges"]
assert w["off_path"] == ["head", "other"], w["off_path"]
PY
grep -q "^edges: a task follows one whose output it read (the workflow's records, on any host: data)" cp.txt ||
	fail "no statement of the edges: $(head -3 cp.txt)"
grep -q '^  off the path: head (head.tz): no task on the path$' cp.txt || fail "head not off the path: $(cat cp.txt)"
grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9.]+m?s +[0-9.]+[mu]?s +data  node2 +branch b=x$' cp.txt ||
	fail "no data step on node2: $(cat cp.txt)"
echo "ok: a Snakemake cluster run on 2 nodes: the task path follows the records across hosts (node1 -> node2 -> node1)"
