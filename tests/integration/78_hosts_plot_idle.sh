#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: plot (a gantt band per host) and idle over a run recorded on
# several hosts. Three "hosts" are UTS namespaces with their own hostnames on
# this machine (simulated: one boot id, so one clock). node1, node2 and node3
# run three parts of one workload one after the other (node2's part has a
# failing process), so the run's gantt spans all three. Checked against
# independent paths:
#   - plot --script: one band per host in command-line order, a heading row
#     then one row per process (as plot of the trace alone), each host's
#     processes (export --format jsonl) in its own band; each bar starts at
#     the process's start on the run's axis, computed from its id's start
#     (CLOCK_BOOTTIME ns) and the host's own clock anchor (info --json
#     metadata), the run starting at the earliest host's trace start; within
#     a host every bar is shifted by one offset (export's start_s + a
#     constant), close to summary's per-host start_offset_s; one colour per
#     tool across bands; the failure marker in node2's band; the bands follow
#     each other in time; files and their merge give the same script;
#   - the PNG is made by gnuplot and is a PNG;
#   - --kind cpu, mem, io over hosts: one panel per host in order, its series
#     (de-stacked by tool) equal to plot --kind K of its trace alone at x
#     shifted by the host's offset (computed as above), its CPU count and host
#     samples' line, the key once; of the merge a PNG;
#   - --from/--to over hosts, from node2's start to 0.1 s into node3's part:
#     the x axis keeps the run's numbers, node1 (ended before) is named outside
#     the window with no rows, the rows are exactly the processes (export)
#     alive in the window, each bar starting at max(FROM, its start); the same
#     window as wall-clock time over the merge gives the same bars; cpu over
#     it has bins only inside it; a window after the run is refused in one
#     line (exit 1), --to before --from exit 2;
#   - idle --json: each host's object equals idle --json of its file alone;
#     per host idle_s is that object's idle_s, idle_share = idle_s / span_s,
#     span_s is summary's makespan, outside_s = span_s - its trace's span;
#     text: each host's section equals idle of its file alone.
. "$(dirname "$0")/lib.sh"
need_hosts gnuplot

host_record node1 a.tz sh -c 'seq 20000 | sort -rn >/dev/null; sleep 0.3'
host_record node2 b.tz sh -c 'seq 3000 | wc -l >/dev/null; sh -c "exit 3"; sleep 0.2; true'
host_record node3 c.tz sh -c 'ls / | wc -l >/dev/null; sleep 0.2'
"$A" merge -o run.tz a.tz b.tz c.tz || fail merge

timeout 120 "$A" plot --script files.gp a.tz b.tz c.tz || fail "plot --script of three files"
timeout 120 "$A" plot --script merged.gp run.tz || fail "plot --script of the merge"
for f in a b c; do
	export_jsonl $f.tz $f.jsonl
	timeout 60 "$A" info --json $f.tz >$f.info || fail "info $f.tz"
	timeout 60 "$A" idle --json -d 0.05 $f.tz >idle-$f.json || fail "idle of $f.tz"
	timeout 60 "$A" idle -d 0.05 $f.tz >idle-$f.txt || fail "idle text of $f.tz"
done
timeout 60 "$A" summary --json a.tz b.tz c.tz >sum.json || fail "summary of three files"

python3 - <<'PY' || fail "plot over hosts"
import json, re
hosts = [("node1", "a"), ("node2", "b"), ("node3", "c")]
def script(name):
    s = open(name).read()
    m = re.search(r"^set ytics scale 0 font ',8' \((.*)\)$", s, re.M)
    tics = [(lab, int(row)) for lab, row in re.findall(r'"((?:[^"\\]|\\.)*)" (\d+)', m.group(1))]
    bars = re.search(r"^\$BARS << EOD\n(.*?)^EOD$", s, re.M | re.S).group(1)
    bars = [tuple(float(v) for v in l.split()) for l in bars.splitlines() if not l.startswith("#")]
    fails = re.search(r"^\$FAIL << EOD\n(.*?)^EOD$", s, re.M | re.S).group(1)
    fails = [tuple(float(v) for v in l.split()) for l in fails.splitlines()]
    return s, tics, bars, fails
s, tics, bars, fails = script("files.gp")
# bands: a heading, then the host's rows
heads = [(i, re.match(r"== host (\S+) \((.*?)\), \+([0-9.]+)s ==$", lab))
         for i, (lab, row) in enumerate(tics)]
heads = [(i, m) for i, m in heads if m]
assert [m.group(1) for _, m in heads] == ["node1", "node2", "node3"], tics
assert [m.group(2) for _, m in heads] == ["a.tz", "b.tz", "c.tz"], tics
assert [row for _, row in tics] == list(range(len(tics))), tics
# the host's clock anchor (start), from its own metadata: wall = boot + off
def anchor(f):
    md = json.load(open(f + ".info"))["metadata"]
    return int(md["start_realtime_ns"]) - int(md["start_boottime_ns"])
procs = {}
t0wall = {}
for h, f in hosts:
    ps = [json.loads(l) for l in open(f + ".jsonl") if l.strip()]
    ps = [p for p in ps if not p["pre_existing"]]
    procs[h] = ps
    p = ps[0]
    boot = int(p["id"].split(".")[1])
    t0wall[h] = boot - round(p["start_s"] * 1e9) + anchor(f)  # its trace start
run0 = min(t0wall.values())
per_host = {x["hostname"]: x for x in json.load(open("sum.json"))["run"]["per_host"]}
colour = {}
prev_end = None
for k, (h, f) in enumerate(hosts):
    i0, m = heads[k]
    i1 = heads[k + 1][0] if k + 1 < len(heads) else len(tics)
    rows = tics[i0 + 1:i1]
    off = (t0wall[h] - run0) / 1e9
    assert abs(float(m.group(3)) - off) < 2e-3, (h, m.group(3), off)
    # one row per process, "PID KEY", the host's processes exactly
    pids = sorted(int(lab.split()[0]) for lab, _ in rows)
    assert pids == sorted(p["pid"] for p in procs[h]), (h, pids, [p["pid"] for p in procs[h]])
    byrow = {row: int(lab.split()[0]) for lab, row in rows}
    consts = []
    lo, hi = None, None
    for x0, x1, y0, y1, rgb in bars:
        row = round(y0 + 0.4)
        if row not in byrow:
            continue
        p = next(q for q in procs[h] if q["pid"] == byrow[row])
        boot = int(p["id"].split(".")[1])
        want = (boot + anchor(f) - run0) / 1e9
        assert abs(x0 - want) < 1e-3, (h, p["pid"], x0, want)
        consts.append(x0 - p["start_s"])
        colour.setdefault(p["tool"], set()).add(int(rgb))
        lo = x0 if lo is None else min(lo, x0)
        hi = x1 if hi is None else max(hi, x1)
    assert len(consts) == len(rows), (h, len(consts), len(rows))
    # one offset per host: durations exact
    assert max(consts) - min(consts) < 3e-6, (h, consts)
    assert abs(consts[0] - off) < 3e-6, (h, consts[0], off)
    # summary's offset is of the recorders' windows: close, not equal
    assert abs(per_host[h]["start_offset_s"] - off) < 0.05, (h, per_host[h], off)
    if prev_end is not None:
        assert lo > prev_end, (h, lo, prev_end)  # the parts follow each other
    prev_end = hi
    # the failing process's cross is in node2's band
    nf = [y for _, y in fails if y == y and min(byrow) - 0.5 < y < max(byrow) + 0.5]
    assert len(nf) == (1 if h == "node2" else 0), (h, fails)
for tool, c in colour.items():
    assert len(c) == 1, (tool, c)  # one colour per tool across hosts
assert {"sort", "wc", "sleep"} <= set(colour), colour
# the x axis covers the run
xr = re.search(r"^set xrange \[([-0-9.]+):([-0-9.]+)\]", s, re.M)
assert float(xr.group(1)) == 0 and float(xr.group(2)) >= prev_end, (xr.group(0), prev_end)
assert "timeline: run over 3 hosts (node1, node2, node3)" in s
# the merge: the same rows and bars (its members named run.tz[i]; the
# picture's margins follow the names' lengths: bar ends may differ by a pixel)
ms, mtics, mbars, mfails = script("merged.gp")
assert [(re.sub(r"\(run\.tz\[(\d)\]\)", lambda g: "(%s.tz)" % "abc"[int(g.group(1))], l), r)
        for l, r in mtics] == tics, (mtics, tics)
assert [(b[0],) + b[2:] for b in mbars] == [(b[0],) + b[2:] for b in bars]
assert mfails == fails or (len(mfails) == len(fails) == 1), (mfails, fails)
PY

timeout 120 "$A" plot -o run.png a.tz b.tz c.tz || fail "plot of three files"
[ -s run.png ] || fail "no run.png"
[ "$(head -c 8 run.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "run.png is not a PNG"

# cpu, mem, io over hosts: one panel per host, each the series of plot of
# its trace alone, shifted by the host's offset on the run's axis
for k in cpu mem io; do
	timeout 120 "$A" plot --kind $k --script $k-run.gp a.tz b.tz c.tz || fail "plot --kind $k of three files"
	for f in a b c; do
		timeout 60 "$A" plot --kind $k --script $k-$f.gp $f.tz || fail "plot --kind $k of $f.tz"
	done
done
timeout 120 "$A" plot --kind cpu -o cpu.png run.tz || fail "plot --kind cpu of the merge"
[ "$(head -c 8 cpu.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "cpu.png is not a PNG"
# a window on the run's axis: from node2's start to 0.1 s into node3's
read -r FROM TO WFROM < <(python3 - <<'PY'
import json, datetime
def anchor(f):
    md = json.load(open(f + ".info"))["metadata"]
    return int(md["start_realtime_ns"]) - int(md["start_boottime_ns"])
t0 = {}
for f in "abc":
    p = json.loads(open(f + ".jsonl").readline())
    t0[f] = int(p["id"].split(".")[1]) - round(p["start_s"] * 1e9) + anchor(f)
run0 = min(t0.values())
fr, to = (t0["b"] - run0) / 1e9, (t0["c"] - run0) / 1e9 + 0.1
w = t0["b"]
iso = datetime.datetime.fromtimestamp(w // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (w % 10**9)
print("%.9f %.9f %s" % (fr, to, iso))
PY
)
timeout 120 "$A" plot --from "$FROM" --to "$TO" --script win.gp a.tz b.tz c.tz || fail "plot --from --to over hosts"
timeout 120 "$A" plot --from "$WFROM" --to "$TO" --script winw.gp run.tz || fail "plot --from WALL over hosts"
timeout 120 "$A" plot --kind cpu --from "$FROM" --to "$TO" --script cpuwin.gp a.tz b.tz c.tz ||
	fail "plot --kind cpu --from --to over hosts"
"$A" plot --from 1h --script x.gp a.tz b.tz c.tz 2>late.err && fail "a window after the run was drawn"
[ "$(wc -l <late.err)" = 1 ] && grep -q "^tracer-analyze: plot: the window (--from, --to) misses the run" late.err ||
	fail "a window after the run: $(cat late.err)"
rc=0
"$A" plot --from 2 --to 1 --script x.gp a.tz b.tz c.tz 2>back.err || rc=$?
[ $rc = 2 ] || fail "--to before --from: exit $rc, not 2"
grep -qx "tracer-analyze: plot: --to must be later than --from" back.err || fail "--to before --from: $(cat back.err)"
[ ! -e x.gp ] || fail "x.gp written"
python3 - "$FROM" "$TO" <<'PY' || fail "cpu/mem/io or a window over hosts"
import json, re, sys
FROM, TO = float(sys.argv[1]), float(sys.argv[2])
hosts = [("node1", "a"), ("node2", "b"), ("node3", "c")]
def anchor(f):
    md = json.load(open(f + ".info"))["metadata"]
    return int(md["start_realtime_ns"]) - int(md["start_boottime_ns"])
procs, t0 = {}, {}
for h, f in hosts:
    procs[f] = [json.loads(l) for l in open(f + ".jsonl") if l.strip()]
    p = procs[f][0]
    t0[f] = int(p["id"].split(".")[1]) - round(p["start_s"] * 1e9) + anchor(f)
run0 = min(t0.values())
off = {f: (t0[f] - run0) / 1e9 for f in t0}
def blocks(s):
    return {m.group(1): [[float(v) for v in l.split()] for l in m.group(2).splitlines()]
            for m in re.finditer(r"^\$(\w+) << EOD\n(.*?)^EOD$", s, re.M | re.S)}
def plots(s):
    return re.findall(r"^plot (.*)$", s, re.M)
def titles(cmd):
    return re.findall(r'filledcurves lc rgb \S+ title "((?:[^"\\]|\\.)*)"', cmd)
def destack(rows, names):
    # per bin: x, {tool: value}
    return [(r[0], {n: r[i + 2] - r[i + 1] for i, n in enumerate(names)}) for r in rows]
close = lambda a, b: abs(a - b) <= 2e-5 * max(1, abs(a), abs(b))
for kind in ("cpu", "mem", "io"):
    s = open(kind + "-run.gp").read()
    bl, pl = blocks(s), plots(s)
    assert "set multiplot" in s and len(pl) == 3, (kind, len(pl))
    heads = re.findall(r'^set label 1 "== host (\S+) \((.*?)\), \+([0-9.]+)s(.*?) ==" at graph', s, re.M)
    assert [(h[0], h[1]) for h in heads] == [(h, f + ".tz") for h, f in hosts], heads
    names = titles(pl[0]) if kind != "io" else None
    assert kind == "io" or ("other tools" not in names and {"sort", "sleep"} <= set(names)), names
    for k, (h, f) in enumerate(hosts):
        assert abs(float(heads[k][2]) - off[f]) < 2e-3, (kind, h, heads[k], off[f])
        one = open("%s-%s.gp" % (kind, f)).read()
        ob, op = blocks(one), plots(one)[0]
        if kind == "io":
            mine, alone = bl["IO%d" % k], ob["IO"]
            assert len(mine) == len(alone) == 400, (kind, h, len(mine))
            for a, b in zip(mine, alone):
                assert close(a[0], b[0] + off[f]), (kind, h, a[0], b[0], off[f])
                assert all(close(x, y) for x, y in zip(a[1:], b[1:])), (kind, h, a, b)
            continue
        mine, alone = destack(bl["S%d" % k], names), destack(ob["S"], titles(op))
        assert len(mine) == len(alone) == 400, (kind, h, len(mine), len(alone))
        for (xa, va), (xb, vb) in zip(mine, alone):
            assert close(xa, xb + off[f]), (kind, h, xa, xb, off[f])
            for t in set(va) | set(vb):
                assert close(va.get(t, 0), vb.get(t, 0)), (kind, h, t, va.get(t), vb.get(t))
        if kind == "cpu":  # its CPU count, its host samples' line
            ncpu = re.search(r", (\d+) with lines dt 2 ", op).group(1)
            assert re.search(r", %s with lines dt 2 " % ncpu, pl[k]), (h, ncpu, pl[k])
            assert ", %s CPUs:" % ncpu in heads[k][3], heads[k]
            if "H" in ob:
                assert len(bl["H%d" % k]) == len(ob["H"]) and all(
                    close(a[0], b[0] + off[f]) and close(a[1], b[1]) for a, b in zip(bl["H%d" % k], ob["H"])), h
    # the key once, in the first panel
    assert all(" title " not in p.replace("notitle", "") for p in pl[1:]), kind
assert "CPU: cores in use by tool, run over 3 hosts (node1, node2, node3)" in open("cpu-run.gp").read()

# the window: bars of the processes alive in it, clipped to it, on the run's numbers
def gantt(name):
    s = open(name).read()
    tics = re.findall(r'"((?:[^"\\]|\\.)*)" (\d+)', re.search(r"^set ytics scale 0 font ',8' \((.*)\)$", s, re.M).group(1))
    bars = re.search(r"^\$BARS << EOD\n(.*?)^EOD$", s, re.M | re.S).group(1)
    bars = [[float(v) for v in l.split()] for l in bars.splitlines() if not l.startswith("#")]
    xr = [float(v) for v in re.search(r"^set xrange \[([-0-9.]+):([-0-9.]+)\]", s, re.M).groups()]
    return s, tics, bars, xr
s, tics, bars, xr = gantt("win.gp")
assert abs(xr[0] - FROM) < 1e-5, (xr, FROM)
assert "the window +%.3fs to +%.3fs of the run" % (FROM, TO) in s.replace("\\n", " "), "window not named"
band, rows = None, {}
for lab, row in tics:
    m = re.match(r"== host (\S+) \((.*?)\), \+([0-9.]+)s(.*) ==$", lab)
    if m:
        band = m.group(1)
        assert (band == "node1") == ("its trace is outside the window" in m.group(4)), lab
        continue
    rows[int(row)] = (band, int(lab.split()[0]))
want = set()
for h, f in hosts:
    for p in procs[f]:
        if p["pre_existing"]:
            continue
        a = p["start_s"] + off[f]
        e = (p["end_s"] if p["end_s"] is not None else 1e9) + off[f]
        if a <= TO and e >= FROM:
            want.add((h, p["pid"]))
assert set(rows.values()) == want, (sorted(rows.values()), sorted(want))
assert not any(h == "node1" for h, _ in want)
for x0, x1, y0, y1, rgb in bars:
    h, pid = rows[round(y0 + 0.4)]
    f = dict(hosts)[h]
    p = next(q for q in procs[f] if q["pid"] == pid)
    assert abs(x0 - max(FROM, p["start_s"] + off[f])) < 1e-5, (h, pid, x0)
    assert x0 >= FROM - 1e-6 and x1 <= TO + 0.01, (h, pid, x0, x1)
# the key: the tools of the hosts whose trace meets the window (node1's
# sort is not drawn, so not named)
key = set(re.findall(r'keyentry with boxes lc rgb \S+ title "((?:[^"\\]|\\.)*)"', s))
assert key == {p["tool"] for f in "bc" for p in procs[f]}, key
# the same window given as wall-clock time, of the merge: the same bars
ws, wtics, wbars, wxr = gantt("winw.gp")
assert abs(wxr[0] - xr[0]) < 1e-5 and len(wbars) == len(bars)
assert all(abs(a[0] - b[0]) < 1e-5 and a[2:] == b[2:] for a, b in zip(wbars, bars))
# cpu over the window: node1's panel empty, the others within the window
c = open("cpuwin.gp").read()
bl = blocks(c)
assert bl["S0"] == [[float("nan"), 0]] or (len(bl["S0"]) == 1 and bl["S0"][0][1] == 0), bl["S0"][:2]
for k in (1, 2):
    xs = [r[0] for r in bl["S%d" % k]]
    assert len(xs) == 400 and FROM - 1e-6 <= xs[0] and xs[-1] <= TO + 1e-6, (k, xs[0], xs[-1])
PY

timeout 60 "$A" idle --json -d 0.05 a.tz b.tz c.tz >idle.json || fail "idle --json of three files"
timeout 60 "$A" idle --json -d 0.05 run.tz >idle-run.json || fail "idle --json of the merge"
timeout 60 "$A" idle -d 0.05 a.tz b.tz c.tz >idle.txt || fail "idle of three files"
python3 - <<'PY' || fail "idle over hosts"
import json, re
hosts = [("node1", "a"), ("node2", "b"), ("node3", "c")]
span = json.load(open("sum.json"))["run"]["makespan_s"]
for name, traces in (("idle.json", ["a.tz", "b.tz", "c.tz"]),
                     ("idle-run.json", ["run.tz[%d]" % i for i in range(3)])):
    d = json.load(open(name))
    assert d["multi_host"] is True and d["run"]["hosts"] == 3, name
    assert d["run"]["clock"]["bound_s"] == 0, d["run"]["clock"]
    # the run's span: the earliest trace start to the latest trace end; the
    # summary's is the recorders' windows: close, not equal
    assert abs(d["run"]["span_s"] - span) < 0.05, (d["run"]["span_s"], span)
    rs = d["run"]["span_s"]
    for k, ((h, f), ph, own) in enumerate(zip(hosts, d["run"]["per_host"], d["hosts"])):
        alone = json.load(open("idle-%s.json" % f))
        alone["file"] = traces[k]
        assert own == alone, (name, h)
        assert ph["hostname"] == h and ph["trace"] == traces[k], ph
        assert ph["idle_s"] == alone["idle_s"], (ph, alone["idle_s"])
        assert abs(ph["idle_share"] - ph["idle_s"] / rs) < 2e-6, ph
        assert abs(ph["outside_s"] - (rs - ph["trace_s"])) < 3e-9, ph
        assert abs(ph["outside_share"] - ph["outside_s"] / rs) < 2e-6, ph
        assert ph["idle_s"] + ph["outside_s"] <= rs + 3e-9, ph
        assert ph["outside_s"] > 0, ph  # sequential parts: each host sat outside the run
    offs = [ph["start_offset_s"] for ph in d["run"]["per_host"]]
    assert offs[0] == 0 and offs[0] < offs[1] < offs[2], offs
txt = open("idle.txt").read()
for h, f in hosts:
    assert re.search(r"(?m)^%s idle [0-9.]+%% of the run \(.* of .*\); [0-9.]+%% of the run outside its trace$" % h, txt), (h, txt[:800])
secs = re.split(r"(?m)^\n== host (\S+) \((.*?)\), from \+([0-9.]+)s into the run ==\n", txt)
got = [(secs[i], secs[i + 1], secs[i + 3]) for i in range(1, len(secs), 4)]
assert [g[0] for g in got] == ["node1", "node2", "node3"], got
for (h, tr, body), (_, f) in zip(got, hosts):
    assert body == open("idle-%s.txt" % f).read(), (h, body, open("idle-%s.txt" % f).read())
PY
echo "ok: plot (a band or a panel per host on the run's axis, a window on it) and idle over 3 hosts match each host's own"
