#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: critical-path and tree over a run recorded on several hosts.
# Four "hosts" are UTS namespaces with their own hostnames on this machine
# (simulated: one boot id, so one clock; the clock bound is then 0). node1,
# node2 and node3 run three parts of one workload one after the other;
# node4 runs beside node2 (started before it, ended before it). Checked
# against independent paths:
#   - the chain across hosts is node1 -> node2 -> node3 (each starts after
#     the one before it ended), node4 is off the path;
#   - each part's path, makespan and root equal critical-path of its trace
#     alone; makespan = before_first + parts + waits exactly (ns);
#   - each part's wall-clock span holds the wall-clock times its own shell
#     took (date +%s%N) at its start and end: times are on the hosts' wall
#     clocks, not on one trace's;
#   - the attribution plus the time between hosts sums to the makespan;
#   - --by task: one path over every host's tasks, the chain of binding
#     predecessors (the one that ended last) by the recorded task times (by
#     time on a host and across hosts);
#   - rightsize over hosts folds the hosts' rows by rule (sums, largest);
#   - files and their merge give the same result; tree over the hosts is
#     each host's own tree after a line naming it.
. "$(dirname "$0")/lib.sh"
need_hosts

part() { # HOST OUT SLEEP: a part of the workload that notes its own wall clock
	host_record "$1" "$2" sh -c 'date +%s%N >"$0.t0"; seq 20000 | sort -rn >/dev/null
		sleep "$1"; seq 300 | wc -l >/dev/null; date +%s%N >"$0.t1"' "$1" "$3"
}
part node1 a.tz 0.2
# node4 runs beside node2: it starts first and ends first (node2 waits for
# node4's start line, node4 waits for node2's)
(
	timeout -k 5 120 unshare -u sh -c 'hostname "$0" && exec "$@"' node4 "$R" -o d.tz -- \
		sh -c 'date +%s%N >node4.t0; for _ in $(seq 600); do [ -e node2.t0 ] && break; sleep 0.1; done
			ls / >/dev/null; date +%s%N >node4.t1' 2>d.err
) &
bg_track $!
d_pid=$!
for _ in $(seq 600); do [ -e node4.t0 ] && break; sleep 0.1; done
[ -e node4.t0 ] || fail "node4 did not start: $(cat d.err 2>/dev/null)"
host_record node2 b.tz sh -c 'date +%s%N >"$0.t0"; for _ in $(seq 600); do [ -e node4.t1 ] && break; sleep 0.1; done
	seq 20000 | sort >/dev/null; date +%s%N >"$0.t1"' node2
wait "$d_pid" || fail "node4's recording: $(cat d.err)"
part node3 c.tz 0.1

"$A" critical-path --json a.tz b.tz c.tz d.tz >files.json || fail "critical-path of four files"
"$A" merge -o run.tz a.tz b.tz c.tz d.tz || fail merge
"$A" critical-path --json run.tz >merged.json || fail "critical-path of the merge"
for f in a b c d; do "$A" critical-path --json $f.tz >$f.json || fail "critical-path $f.tz"; done
"$A" critical-path --json --by task --task '^(sort|wc)( |$)' a.tz b.tz c.tz d.tz >tasks.json ||
	fail "critical-path --by task over hosts"
"$A" critical-path --json --by rule --task '^(sort|wc)( |$)' a.tz b.tz c.tz d.tz >rules.json ||
	fail "critical-path --by rule over hosts"
"$A" export --tasks --format jsonl --fleet --task '^(sort|wc)( |$)' a.tz b.tz c.tz d.tz >tasks.jsonl 2>/dev/null ||
	fail "export --tasks over hosts"

PYTHONPATH=$TESTS_DIR/integration python3 - <<'PY' || fail "critical path across hosts"
import json
from task_chain import binding_chain
NS = 1e-9
host_file = {"node1": "a", "node2": "b", "node3": "c", "node4": "d"}
def wall(name):  # the ns its shell read at its start and end
    return int(open(name + ".t0").read()), int(open(name + ".t1").read())
def iso_ns(s):  # "2026-12-02T00:55:01.263814434Z" -> epoch ns
    import calendar, time
    sec = calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S"))
    frac = s[20:-1] if len(s) > 20 else ""
    return sec * 10**9 + int((frac + "000000000")[:9])
for name in ("files", "merged"):
    d = json.load(open(name + ".json"))
    assert d["multi_host"] is True and d["order"] == "time_adjacency", name
    assert [p["host"] for p in d["parts"]] == ["node1", "node2", "node3"], (name, d["parts"])
    assert d["off_path"] == ["node4"], (name, d["off_path"])
    assert d["clock"]["bound_s"] == 0, d["clock"]
    r0 = iso_ns(d["start"])
    total = d["before_first_s"] + sum(p["makespan_s"] + p["wait_s"] for p in d["parts"])
    assert abs(total - d["makespan_s"]) < 5 * NS, (name, total, d["makespan_s"])
    assert abs(sum(p["wait_s"] for p in d["parts"]) - d["wait_s"]) < 5 * NS
    assert d["parts"][0]["wait_s"] == 0 and d["before_first_s"] >= 0
    prev_end = None
    for i, p in enumerate(d["parts"]):
        own = json.load(open(host_file[p["host"]] + ".json"))
        assert abs(p["makespan_s"] - own["makespan_s"]) < 2 * NS, (p["host"], p, own["makespan_s"])
        assert [(x["id"], x["pid"], x["tool"], x["critical_s"]) for x in p["path"]] == \
               [(x["id"], x["pid"], x["tool"], x["critical_s"]) for x in own["path"]], p["host"]
        assert p["root_pid"] == own["path"][0]["pid"], p["host"]
        # its span on the run's axis holds what its shell read on the wall clock
        t0, t1 = wall(p["host"])
        s_ns = r0 + round(p["start_s"] * 1e9); e_ns = r0 + round(p["end_s"] * 1e9)
        assert s_ns <= t0 + 2000 and e_ns >= t1 - 2000, (p["host"], s_ns, t0, e_ns, t1)
        # the rows' times are on the same axis, inside the part
        for x in p["path"]:
            assert p["start_s"] - NS <= x["start_s"] <= x["end_s"] <= p["end_s"] + 2 * NS, (p["host"], x)
        if prev_end is not None:
            assert abs(p["wait_s"] - (p["start_s"] - prev_end)) < 2 * NS, p
            assert p["wait_s"] >= 0, p
        prev_end = p["end_s"]
    # attribution: every part's own by_tool, added, plus the time between hosts
    tools = {}
    for p in d["parts"]:
        for t in json.load(open(host_file[p["host"]] + ".json"))["by_tool"]:
            tools[t["tool"]] = tools.get(t["tool"], 0) + t["seconds"]
    got = {t["tool"]: t["seconds"] for t in d["by_tool"]}
    assert set(got) == set(tools), (got, tools)
    for k in tools:
        assert abs(got[k] - tools[k]) < 5 * NS, (k, got[k], tools[k])
    assert abs(sum(got.values()) + d["before_first_s"] + d["wait_s"] - d["makespan_s"]) < 10 * NS
# the shells' own clocks agree with the chain: node2 started after node1 ended ...
a1 = wall("node1")[1]; b0 = wall("node2")[0]; b1 = wall("node2")[1]; c0 = wall("node3")[0]
assert a1 < b0 and b1 < c0
# ... and node4 ran beside node2
d0, d1 = wall("node4")
assert d0 < b0 < d1 < b1, (d0, b0, d1, b1)
# --by task: one path over every host's tasks. These have no workflow
# records: on a host the edges are by time and the process tree (every task
# is a child of its host's shell), between hosts by time alone ("adjacent");
# the path goes back from the task that ended last through each one's
# binding predecessor (of those that ended by its start, the one that ended
# last), computed here from the recorded task times (export --tasks --fleet)
t = json.load(open("tasks.json"))
assert t["by"] == "task" and t["order"] == "task_edges", (t["by"], t["order"])
ts = sorted((json.loads(l) for l in open("tasks.jsonl")), key=lambda k: (k["start_epoch_ns"], k["host"]))
chain = [(k["host"], k["key"], k["id"])
         for k in binding_chain(ts, lambda k: k["start_epoch_ns"], lambda k: k["complete_epoch_ns"])]
got = [(x["host"], x["task"], x["id"]) for x in t["path"]]
assert got == chain, (got, chain)
assert {h for h, _, _ in chain} == {"node1", "node2", "node3"}, chain
for p, x in zip(t["path"], t["path"][1:]):
    assert x["edge"] == ("time" if x["host"] == p["host"] else "adjacent"), (p, x)
    assert abs(x["wait_s"] - (x["start_s"] - p["end_s"])) < 3 * NS and x["wait_s"] >= 0, x
assert t["edges"]["data"] == 0 and t["edges"]["adjacent"] > 0, t["edges"]
assert t["off_path"] == ["node4"], t["off_path"]
tot = t["before_first_s"] + t["wall_s"] + t["wait_s"] + t["after_last_s"]
assert abs(tot - t["makespan_s"]) < 5 * NS, (tot, t["makespan_s"])
# each step is the recorded task, with its recorded wall
for x in t["path"]:
    k = [k for k in ts if k["host"] == x["host"] and k["id"] == x["id"]]
    assert len(k) == 1 and abs(x["wall_s"] * 1e9 - (k[0]["complete_epoch_ns"] - k[0]["start_epoch_ns"])) < 2000, (x, k)
# --by rule: the same chain, named by rule
r = json.load(open("rules.json"))
assert r["by"] == "rule"
assert [(x["host"], x["task"], x["rule"]) for x in r["path"]] == \
       [(x["host"], x["task"], x["rule"]) for x in t["path"]], r["path"]
PY

# text: the chain, the parts, and the statement of how hosts were chained
"$A" critical-path a.tz b.tz c.tz d.tz >cp.txt || fail "critical-path text"
grep -q '^across hosts by time adjacency' cp.txt || fail "no statement of the chaining: $(head -3 cp.txt)"
grep -q '^  off the path: node4 (d.tz): ran beside a host on the path$' cp.txt ||
	fail "node4 not named off the path: $(cat cp.txt)"
for h in node1 node2 node3; do
	grep -q "^== host $h " cp.txt || fail "no part for $h"
done

# tree over hosts: each host's own tree after its line
"$A" tree a.tz b.tz c.tz d.tz >tree.txt || fail "tree of four files"
"$A" tree run.tz >tree-run.txt || fail "tree of the merge"
for f in a b c d; do "$A" tree $f.tz >tree-$f.txt; done
python3 - <<'PY' || fail "tree over hosts differs from each host's tree"
import re
for name, traces in (("tree.txt", ["a.tz", "b.tz", "c.tz", "d.tz"]),
                     ("tree-run.txt", ["run.tz[%d]" % i for i in range(4)])):
    secs = re.split(r"(?m)^== host (\S+) \((.*?)\), from \+([0-9.]+)s into the run ==\n", open(name).read())
    assert secs[0] == "", (name, secs[0][:200])
    got = [(secs[i], secs[i + 1], float(secs[i + 2]), secs[i + 3]) for i in range(1, len(secs), 4)]
    assert [g[0] for g in got] == ["node1", "node2", "node3", "node4"], name
    assert [g[1] for g in got] == traces, name
    assert got[0][2] == 0.0 and got[1][2] > got[0][2] and got[2][2] > got[1][2], got
    for g, f in zip(got, "abcd"):  # sections are parted by one empty line
        assert g[3].rstrip("\n") == open("tree-%s.txt" % f).read().rstrip("\n"), (name, f)
PY
"$A" tree --pid 999999 a.tz b.tz >/dev/null 2>tp.err && fail "tree --pid of no process succeeded"
grep -q "^tracer-analyze: --pid: no process 999999 in 'a.tz' nor the other traces$" tp.err ||
	fail "tree --pid message: $(cat tp.err)"
# rightsize over hosts: each rule's tasks on every host folded together
"$A" rightsize --json --task '^(sort|seq|wc)( |$)' a.tz b.tz c.tz >rs.json || fail "rightsize over hosts"
"$A" rightsize --json --task '^(sort|seq|wc)( |$)' run.tz >rs-run.json || fail "rightsize of the merge"
"$A" rightsize --json --task '^(sort|seq|wc)( |$)' a.tz b.tz c.tz d.tz >rs-4.json || fail "rightsize of 4"
for f in a b c; do "$A" rightsize --json --task '^(sort|seq|wc)( |$)' $f.tz >rs-$f.json; done
python3 - <<'PY' || fail "rightsize over hosts differs from its hosts' rows folded"
import json
own = [json.load(open("rs-%s.json" % f))["rules"] for f in "abc"]
got = {r["name"]: r for r in json.load(open("rs.json"))["rules"]}
names = sorted({r["name"] for rs in own for r in rs})
assert sorted(got) == names and {"sort", "seq", "wc"} <= set(names), (sorted(got), names)
for nm in names:
    rows = [r for rs in own for r in rs if r["name"] == nm]
    g = got[nm]
    assert g["tasks"] == sum(r["tasks"] for r in rows), nm
    assert g["retries"] == sum(r["retries"] for r in rows) and g["failed"] == sum(r["failed"] for r in rows)
    assert g["peak_rss_bytes"] == max(r["peak_rss_bytes"] for r in rows), nm
    assert abs(g["max_cores"] - max(r["max_cores"] for r in rows)) < 1e-6, nm
    assert abs(g["max_wall_s"] - max(r["max_wall_s"] for r in rows)) < 1e-6, nm
    wall = sum(r["mean_wall_s"] * r["tasks"] for r in rows)
    assert abs(g["mean_wall_s"] - wall / g["tasks"]) < 1e-5, nm
    cpu = sum(r["mean_cores"] * r["mean_wall_s"] * r["tasks"] for r in rows)
    assert abs(g["mean_cores"] - (cpu / wall if wall else 0)) < 1e-4, (nm, g["mean_cores"], cpu / wall)
    assert g["suggest"]["memory_bytes"] == max(r["suggest"]["memory_bytes"] for r in rows), nm
assert json.load(open("rs-run.json")) == json.load(open("rs-4.json"))  # the merge holds a-d
PY
echo "ok: critical path across 4 hosts (3 on the chain, one beside it) equals each host's own; tree per host; rightsize folded"
