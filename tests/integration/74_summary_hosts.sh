#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: summary over a run recorded on several hosts. Three recordings
# made as three "hosts" (UTS namespaces with their own hostnames; simulated:
# one machine, one boot id, so one clock) are summarised as files, as a
# directory and as their merge; checked against each trace's own export
# (an independent path through the model):
#   - the run's processes, execs and CPU are the sums over the hosts; each
#     host's line equals its own trace; the top groups across hosts equal the
#     per-tool sums of the three exports, with the number of hosts each ran on;
#   - the span runs from the first host's start to the last one's end;
#   - every host's own summary follows, equal to summary of its file;
#   - top over the hosts holds every host's own top rows, host and trace added;
#   - the run is counted in hosts (distinct hostnames), not traces: two
#     traces of this machine are "2 traces on 1 host" (summary, idle,
#     critical-path), four traces of node1, node2, node2, node3 "4 traces on 3
#     hosts";
#   - --follow over hosts (files, a merge, a directory) is refused in one line
#     (exit 2) by summary and top;
#   - two traces of one host that overlap (a whole-machine recording and a
#     command recorded inside it) are named, and a process in both counts
#     once: counted_once equals the (pid, start) pairs the two exports share.
. "$(dirname "$0")/lib.sh"
need_hosts

host_record node1 a.tz sh -c 'seq 3000 | sort -rn >/dev/null; /bin/false; true'
host_record node2 b.tz sh -c 'for i in 1 2 3; do ls / >/dev/null; done'
host_record node3 c.tz sh -c 'seq 500 | sort >/dev/null; head -c 1000 /dev/zero | wc -c >/dev/null'
for f in a b c; do "$A" export --format jsonl $f.tz >$f.jsonl; done

"$A" summary --json a.tz b.tz c.tz >files.json || fail "summary of three files"
"$A" merge -o run.tz a.tz b.tz c.tz || fail merge
"$A" summary --json run.tz >merged.json || fail "summary of the merge"
mkdir d && cp a.tz d/1.tz && cp b.tz d/2.tz && cp c.tz d/3.tz
"$A" summary --json d >dir.json || fail "summary of a directory"
for f in a b c; do "$A" summary --json $f.tz >$f.json; done

python3 - <<'PY' || fail "run totals differ from the hosts' own"
import json
procs = {h: [json.loads(l) for l in open(h + ".jsonl")] for h in "abc"}
import ctypes
class Timex(ctypes.Structure):  # struct timex: modes, offset, freq, maxerror, esterror, status, ...
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("pad", ctypes.c_char * 256)]
tx = Timex()
st = ctypes.CDLL(None, use_errno=True).adjtimex(ctypes.byref(tx))
SYNCED = not (st == 5 or tx.status & 0x40)  # TIME_ERROR, STA_UNSYNC
def cpu(p):
    return (p["utime_s"] or 0) + (p["stime_s"] or 0) if p["exit_code"] is not None or p["signal"] else 0
for name in ("files", "merged", "dir"):
    d = json.load(open(name + ".json"))
    assert d["multi_host"] is True
    run = d["run"]
    assert run["hosts"] == 3 and run["traces"] == 3, (run["hosts"], run["traces"])
    assert run["clock"]["one_host"] is True, run["clock"]
    assert run["processes"] == sum(len(v) for v in procs.values()), (name, run["processes"])
    assert run["counted_once"] == 0
    assert [h["hostname"] for h in run["per_host"]] == ["node1", "node2", "node3"]
    for h, x in zip("abc", run["per_host"]):
        own = json.load(open(h + ".json"))
        assert x["processes"] == own["counts"]["processes"] == len(procs[h]), (name, h)
        assert abs(x["cpu_s"] - sum(cpu(p) for p in procs[h])) < 1e-6, (name, h, x["cpu_s"])
    assert abs(run["cpu_s"] - sum(cpu(p) for v in procs.values() for p in v)) < 1e-6
    assert run["execs"] == sum(len(p["execs"]) + p["execs_omitted"] for v in procs.values() for p in v)
    # the top groups: the exports' per-tool sums, and on how many hosts each ran
    want = {}
    for h, v in procs.items():
        for p in v:
            w = want.setdefault(p["tool"], [0, 0.0, set()])
            w[0] += 1; w[1] += cpu(p); w[2].add(h)
    got = {g["key"]: g for g in run["top"]}
    for k, (n, c, hs) in sorted(want.items(), key=lambda kv: -kv[1][1])[:10]:
        assert k in got, (name, k)
        assert got[k]["processes"] == n and got[k]["hosts"] == len(hs), (name, k, got[k], n, hs)
        assert abs(got[k]["cpu_s"] - c) < 1e-6, (name, k)
    # each host's own summary, as summary of its file says it (but the file name)
    for h, x in zip("abc", d["hosts"]):
        own = json.load(open(h + ".json"))
        x = dict(x); own = dict(own)
        x.pop("file"); own.pop("file")
        assert x == own, (name, h)
    # the clock state each recorder kept is the kernel's (adjtimex, read here)
    assert run["clock"]["bound_s"] == 0, run["clock"]
    for x in run["per_host"]:
        assert x["clock_sync"] is SYNCED, (x["clock_sync"], SYNCED)
        assert (x["clock_maxerror_s"] is None) == (not SYNCED)
    # each host's share of the run's span and its CPU over its cores for the span
    for h, x in zip("abc", run["per_host"]):
        own = json.load(open(h + ".json"))
        assert abs(x["active_share"] - own["duration_s"] / run["makespan_s"]) < 1e-4, (h, x)
        want = x["cpu_s"] / (run["makespan_s"] * own["host"]["cpus"])
        assert abs(x["run_utilization"] - want) < 1e-4 * max(1, want), (h, x, want)
    # the span: the first host's start to the last one's end
    starts = [json.load(open(h + ".json"))["start"] for h in "abc"]
    ends = [json.load(open(h + ".json"))["end"] for h in "abc"]
    assert run["start"][:23] == min(starts)[:23], (run["start"], starts)
    assert run["end"][:23] == max(ends)[:23], (run["end"], ends)
PY
# top over the hosts: every host's own top rows, with its host and trace
"$A" top --json -n 0 a.tz b.tz c.tz >top.json || fail "top of three files"
"$A" top --json -n 0 run.tz >top-run.json || fail "top of the merge"
for f in a b c; do "$A" top --json -n 0 $f.tz >top-$f.json; done
python3 - <<'PY' || fail "top over hosts differs from each host's top"
import json
names = {"a": "node1", "b": "node2", "c": "node3"}
def key(r):
    return json.dumps(r, sort_keys=True)
for tf, traces in (("top.json", {h: h + ".tz" for h in "abc"}),
                   ("top-run.json", {h: "run.tz[%d]" % "abc".index(h) for h in "abc"})):
    rows = json.load(open(tf))
    want = []
    for h in "abc":
        for r in json.load(open("top-%s.json" % h)):
            r = dict(r, host=names[h], trace=traces[h])
            want.append(r)
    assert sorted(map(key, rows)) == sorted(map(key, want)), tf
    cpu = [r["cpu_s"] for r in rows]
    assert cpu == sorted(cpu, reverse=True), (tf, "not sorted by CPU")
PY
"$A" top a.tz b.tz c.tz >top.txt || fail "top text"
head -1 top.txt | grep -q '^HOST  *TOOL  *COUNT' || fail "top over hosts: header $(head -1 top.txt)"
"$A" summary a.tz b.tz c.tz >files.txt || fail "summary text"
grep -q '^run  *3 hosts: node1, node2, node3$' files.txt || fail "run line: $(head -3 files.txt)"
grep -qx '== host node2 (b.tz) ==' files.txt || fail "host section missing"
"$A" summary b.tz >b.txt
sed -n '/^== host node2 (b.tz) ==$/,/^== host node3/p' files.txt | sed '1d;$d' | sed '$d' >b-in-run.txt
diff b.txt b-in-run.txt >&2 || fail "host node2's section differs from summary b.tz"

# --follow reads one growing trace: over hosts, one line and exit 2
for c in summary top; do
	for args in "a.tz b.tz" "run.tz" "d"; do
		rc=0
		# shellcheck disable=SC2086
		timeout 20 "$A" $c --follow $args >/dev/null 2>fol.err || rc=$?
		[ $rc = 2 ] && [ "$(wc -l <fol.err)" = 1 ] &&
			grep -qx "tracer-analyze: $c: --follow reads one trace (not several hosts)" fol.err ||
			fail "$c --follow $args: exit $rc, $(cat fol.err)"
	done
done

# one host recorded twice at once: named, and a process in both counted once
record_overlap all.tz cmd.tz sh -c 'seq 2000 | sort >/dev/null; ls / >/dev/null'
"$A" summary --json all.tz cmd.tz >ov.json 2>ov.err || fail "summary all cmd: $(cat ov.err)"
grep -q "'all.tz' and 'cmd.tz' were recorded on one host (same boot id) at overlapping times" ov.err ||
	fail "overlap not named: $(cat ov.err)"
for f in all cmd; do "$A" export --format jsonl $f.tz >$f.jsonl; done
python3 - <<'PY' || fail "overlapping traces: a process counted twice"
import json
ids = {f: {json.loads(l)["id"] for l in open(f + ".jsonl")} for f in ("all", "cmd")}
common = ids["all"] & ids["cmd"]
run = json.load(open("ov.json"))["run"]
assert len(common) >= 3, ("the command's processes are not in the -a trace", len(common))
assert run["counted_once"] == len(common), (run["counted_once"], len(common))
assert run["per_host"][1]["counted_once"] == len(common)
assert run["processes"] == len(ids["all"] | ids["cmd"]), (run["processes"], len(ids["all"] | ids["cmd"]))
# two traces of one host (this machine's hostname): one host, two traces
import socket
me = socket.gethostname()
assert [h["hostname"] for h in run["per_host"]] == [me, me], run["per_host"]
assert run["hosts"] == 1 and run["traces"] == 2, (run["hosts"], run["traces"])
PY
# the run's size in hosts, not traces, in every command's words
me=$(hostname)
"$A" summary all.tz cmd.tz >ov.txt 2>/dev/null || fail "summary all cmd (text)"
grep -qxF "run           2 traces on 1 host: $me" <(head -1 ov.txt) || fail "summary run line: $(head -1 ov.txt)"
"$A" idle --json all.tz cmd.tz >ovi.json 2>/dev/null || fail "idle all cmd"
python3 -c 'import json,sys; r = json.load(open("ovi.json"))["run"]; assert (r["hosts"], r["traces"]) == (1, 2), r' ||
	fail "idle --json: hosts/traces of two traces of one host"
"$A" idle all.tz cmd.tz 2>/dev/null | head -1 | grep -qxF "run           2 traces on 1 host: $me" || fail "idle run line"
"$A" critical-path all.tz cmd.tz 2>/dev/null | head -1 | grep -q "^run makespan .* over 2 traces on 1 host, from " ||
	fail "critical-path: $("$A" critical-path all.tz cmd.tz 2>&1 | head -1)"
# rightsize: the command's tasks, also in the -a trace, counted once (they
# were counted twice: a whole-machine recording beside a job's own)
for f in all cmd; do "$A" rightsize --json $f.tz >rs-$f.json 2>/dev/null || fail "rightsize $f.tz"; done
"$A" rightsize --json all.tz cmd.tz >rs-ov.json 2>/dev/null || fail "rightsize all cmd"
python3 - <<'PY' || fail "rightsize over two traces of one host: a task counted twice"
import json
n = lambda f: sum(r["tasks"] for r in json.load(open(f))["rules"])
ov = json.load(open("rs-ov.json"))
assert n("rs-cmd.json") >= 1, "no task in cmd.tz"
assert ov["counted_once"] == n("rs-cmd.json"), (ov["counted_once"], n("rs-cmd.json"))
assert n("rs-ov.json") == n("rs-all.json"), (n("rs-ov.json"), n("rs-all.json"))
assert json.load(open("rs-all.json"))["counted_once"] == 0
PY
"$A" rightsize all.tz cmd.tz 2>/dev/null | head -1 | grep -q "^2 traces on 1 host: each rule's tasks on every host together; $(python3 -c 'import json; print(json.load(open("rs-ov.json"))["counted_once"])') tasks\? seen by two traces of one host, counted once$" ||
	fail "rightsize heading: $("$A" rightsize all.tz cmd.tz 2>/dev/null | head -2)"
# three traces of three hosts, and four of three: node2 recorded twice
host_record node2 b2.tz sh -c 'ls / >/dev/null'
"$A" summary a.tz b.tz b2.tz c.tz >four.txt 2>/dev/null || fail "summary of four traces"
head -1 four.txt | grep -qx 'run  *4 traces on 3 hosts: node1, node2, node3' || fail "four traces: $(head -1 four.txt)"
[ "$(grep -c '^== host ' four.txt)" = 4 ] || fail "four traces: a section per trace"
"$A" summary --json -n 0 a.tz b.tz b2.tz c.tz >four.json 2>/dev/null || fail "summary --json of four traces"
"$A" export --format jsonl b2.tz >b2.jsonl
python3 - <<'PY' || fail "four traces on three hosts: a group's hosts counted by hostname"
import json
node = {"a": "node1", "b": "node2", "b2": "node2", "c": "node3"}
d = json.load(open("four.json"))
run = d["run"]
assert (run["hosts"], run["traces"], len(run["per_host"]), len(d["hosts"])) == (3, 4, 4, 4), run
on = {}
for f, h in node.items():
    for l in open(f + ".jsonl"):
        on.setdefault(json.loads(l)["tool"], set()).add(h)
got = {g["key"]: g["hosts"] for g in run["top"]}
assert got == {t: len(h) for t, h in on.items()}, (got, on)
assert got["ls"] == 1, got  # on node2's two traces: one host
PY
echo "ok: 3 hosts summed (files, directory, merge) as their exports say; an overlap counted once"
