#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Machine outputs of tracer-analyze parse as JSON, including hostile argv
# bytes (C05): export --format chrome/jsonl, summary/top/critical-path/diff
# --json. Invalid UTF-8 round-trips through the documented \udcXX escapes;
# the critical path's attribution sums to the makespan within 1 ms; jsonl has
# every key of the recorder issue's analysis contract; csv parses with the
# same number of fields on every row; an image from a snapshot prints null,
# not 0, for what a state event does not carry (gid, egid, env).
. "$(dirname "$0")/synthlib.sh"
cd "$tmp" || exit 1
set -e
for f in pipeline edge drops; do
	timeout 60 "$A" export --format chrome $f.tz >$f.chrome.json
	python3 -m json.tool $f.chrome.json >/dev/null
	timeout 60 "$A" export --format jsonl $f.tz >$f.jsonl
	timeout 60 "$A" export --format csv $f.tz >$f.csv
	timeout 60 "$A" summary --json $f.tz >$f.summary.json
	timeout 60 "$A" top --json $f.tz >$f.top.json
	timeout 60 "$A" critical-path --json $f.tz >$f.cp.json
done
timeout 60 "$A" diff --json pipeline.tz edge.tz >diff.json
# the recorded samples (real runs): the same contracts
samples=()
for t in "${TESTS_DIR:-$OLDPWD/tests}"/../samples/*.tz; do
	[ -f "$t" ] || continue
	n=sample-$(basename "$t" .tz)
	samples+=("$n")
	timeout 120 "$A" export --format chrome "$t" >$n.chrome.json
	python3 -m json.tool $n.chrome.json >/dev/null
	timeout 120 "$A" export --format jsonl "$t" >$n.jsonl
	timeout 120 "$A" export --format csv "$t" >$n.csv
	timeout 120 "$A" summary --json "$t" >$n.summary.json
	timeout 120 "$A" top --json "$t" >$n.top.json
	timeout 120 "$A" top --json --by command "$t" >$n.topcmd.json
	timeout 120 "$A" critical-path --json "$t" >$n.cp.json
done
export SAMPLES="${samples[*]}"
# images from a snapshot (state events: pre-existing processes)
timeout 60 "$A" export --format jsonl "${TESTS_DIR:-$OLDPWD/tests}/data/conformance/state-flags.tz" >snap.jsonl

python3 - <<'PY'
import csv, json, sys

keys = ["id", "parent_id", "pid", "ppid", "start_s", "end_s", "realtime_s", "exe", "argv",
        "comm", "execs", "failed_execs", "script", "pre_existing", "exit_code", "signal",
        "core_dumped", "utime_s", "stime_s", "cpu_pct", "peak_rss_kib", "rchar", "wchar",
        "syscr", "syscw", "read_bytes", "write_bytes", "io_exact", "threads", "vol_ctxt", "inv_ctxt",
        "uid", "euid", "ns_pid", "argv_truncated"]
import os
samples = os.environ.get("SAMPLES", "").split()
def strict(pairs):
    """a JSON object with a key twice: most parsers keep only the last"""
    ks = [k for k, _ in pairs]
    dup = {k for k in ks if ks.count(k) > 1}
    assert not dup, ("duplicate keys", dup)
    return dict(pairs)
def load_strict(path):
    return json.load(open(path), object_pairs_hook=strict)
load_strict("diff.json")
for name in ["pipeline", "edge", "drops"] + samples:
    for out in ["summary", "top", "cp", "chrome"]:
        load_strict(name + "." + out + ".json")
    procs = [json.loads(l, object_pairs_hook=strict) for l in open(name + ".jsonl")]
    ids = set()
    last = None
    for p in procs:
        missing = [k for k in keys if k not in p]
        assert not missing, (name, p["id"], missing)
        assert p["id"] not in ids, p["id"]
        ids.add(p["id"])
        assert last is None or p["start_s"] >= last, "not ordered by start"
        last = p["start_s"]
        assert p["parent_id"] is None or p["parent_id"] in ids, "parent after child"
    rows = list(csv.reader(open(name + ".csv", newline="")))
    assert len(rows) == len(procs) + 1, (name, len(rows))
    assert all(len(r) == len(rows[0]) for r in rows), "ragged csv"
    for c in ["start_s", "complete_s", "start_utc", "complete_utc", "realtime_ms", "%cpu",
              "peak_rss_kib", "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes",
              "vol_ctxt", "inv_ctxt", "utime_s", "stime_s"]:
        assert c in rows[0], c
    # units: the UTC columns agree with the relative ones and realtime_ms;
    # peak_rss_kib is jsonl's peak_rss_kib
    import datetime
    col = {c: i for i, c in enumerate(rows[0])}
    def utc_ns(s):
        d, frac = s.rstrip("Z").split(".")
        t = datetime.datetime.strptime(d, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
        return int(t.timestamp()) * 10**9 + int(frac.ljust(9, "0"))
    byid = {p["id"]: p for p in procs}
    for r in rows[1:]:
        p = byid[r[col["id"]]]
        if r[col["start_utc"]] and r[col["complete_utc"]]:
            d = utc_ns(r[col["complete_utc"]]) - utc_ns(r[col["start_utc"]])
            assert abs(d / 1e6 - float(r[col["realtime_ms"]])) <= 0.002, (r, d)
            assert abs(float(r[col["complete_s"]]) - float(r[col["start_s"]]) - d / 1e9) <= 2e-6, r
        if p["peak_rss_kib"] is not None and r[col["peak_rss_kib"]]:
            assert int(r[col["peak_rss_kib"]]) == p["peak_rss_kib"], (r, p["peak_rss_kib"])
    top = json.load(open(name + ".top.json"))
    assert isinstance(top, list)
    for g in top:
        assert set(g) == {"tool", "count", "wall_s", "cpu_s", "max_cores", "peak_rss_kib",
                          "read_bytes", "write_bytes", "critical_s", "flags"}, set(g)
    cp = json.load(open(name + ".cp.json"))
    total = sum(t["seconds"] for t in cp["by_tool"])
    assert abs(total - cp["makespan_s"]) <= 0.001, (name, total, cp["makespan_s"])
    secs = [t["seconds"] for t in cp["by_tool"]]
    assert secs == sorted(secs, reverse=True)

# C05: hostile argv bytes round-trip exactly
edge_list = [json.loads(l) for l in open("edge.jsonl")]
edge = {p["pid"]: p for p in edge_list}
assert [p["exe"] for p in edge_list if p["pid"] == 12] == ["/usr/bin/a", "/usr/bin/b"]
argv = [a.encode("utf-8", "surrogateescape") for a in edge[11]["argv"]]
want = [b"printf", b"a b", b"", b"x\ny", b"\xff\xfe", b"\x01", b'q"uote\\', b"end"]
assert argv == want, argv
chrome = json.load(open("edge.chrome.json"))
ev = [e for e in chrome["traceEvents"] if e.get("ph") == "X" and e["args"]["id"] == edge[11]["id"]]
assert len(ev) == 1
assert [a.encode("utf-8", "surrogateescape") for a in ev[0]["args"]["argv"]] == want
assert any(e.get("ph") == "i" and e.get("cat") == "exec" for e in chrome["traceEvents"])
names = [e for e in chrome["traceEvents"] if e.get("name") == "process_name" and e["pid"] > 0]
assert any(e.get("ph") == "C" and e["name"] == "processes running" for e in chrome["traceEvents"])
assert len(names) == len(edge_list) == 2007
# the pipeline's designed critical path and serial bottleneck
cp = json.load(open("pipeline.cp.json"))
assert cp["makespan_s"] == 8 and cp["by_tool"][0] == {"tool": "serial_step", "seconds": 5}, cp
top = {g["tool"]: g for g in json.load(open("pipeline.top.json"))}
assert top["serial_step"]["flags"] == ["serial_bottleneck"], top["serial_step"]
assert top["par_step"]["flags"] == [] and top["par_step"]["count"] == 4
# samples: counts agree across outputs; the bioinformatics pipeline's tools
# are told apart by subcommand
for name in samples:
    summ = json.load(open(name + ".summary.json"))
    n = sum(1 for _ in open(name + ".jsonl"))
    assert summ["counts"]["processes"] == n, (name, summ["counts"], n)
    cmds = {g["tool"] for g in json.load(open(name + ".topcmd.json"))}
    if name == "sample-pipeline":
        for c in ["samtools sort", "samtools index", "bwa mem", "bcftools call"]:
            assert c in cmds, (c, sorted(cmds))
        cp = json.load(open(name + ".cp.json"))
        assert abs(sum(t["seconds"] for t in cp["by_tool"]) - cp["makespan_s"]) <= 0.001
# an image from a snapshot knows no gid, egid, cwd or environment: null,
# never a wrong 0 or [] (issue 16); an exec's own image has them
snap = [x for ln in open("snap.jsonl") for x in json.loads(ln)["execs"] if x["from_snapshot"]]
assert snap and all(x["gid"] is None and x["egid"] is None and x["env"] is None
                    and x["cwd"] is None and isinstance(x["uid"], int) for x in snap), snap
real = [x for ln in open("pipeline.jsonl") for x in json.loads(ln)["execs"]]
assert real and all(isinstance(x["gid"], int) and isinstance(x["egid"], int)
                    and isinstance(x["env"], list) and not x["from_snapshot"] for x in real)
print("json checks ok, samples:", samples)
PY
