#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# bench/targets.py - issue 22's figures from one bench/run, side by side with
# the peers measured in the same run: trace bytes per process (and the floor
# bench/floor.py estimates for the same file), the analyzer's peak memory per
# process, summary against the raw decode, start-up and stop.
# usage: targets.py DIR (the work directory bench/run fills; bench/run calls it)
import glob, os, re, statistics, sys

d = sys.argv[1]


def kv(path):
    out = {}
    try:
        for line in open(path):
            k, _, v = line.strip().partition(" ")
            out[k] = v
    except OSError:
        pass
    return out


def nums(path):
    try:
        return [float(x) for x in open(path).read().split()]
    except (OSError, ValueError):
        return []


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def per_process(v):
    """median bytes / process of variant v's session files"""
    out = []
    for sd in glob.glob(os.path.join(d, f"s.{v}.[0-9]*")):
        c = kv(os.path.join(sd, "counts"))
        if c.get("bytes", "0").isdigit() and c.get("procs", "0").isdigit() and int(c["procs"]):
            out.append(int(c["bytes"]) / int(c["procs"]))
    return med(out)


def fmt(x, f="{:,.0f}"):
    return "-" if x is None else f.format(x)


rows = []
# 1. trace bytes per process
tb, ab = per_process("tracer"), per_process("atop")
pz = None
z = os.path.join(d, "s.perf.1", "perf.data.zst")
pc = kv(os.path.join(d, "s.perf.1", "counts"))
if os.path.exists(z) and pc.get("procs", "0").isdigit() and int(pc["procs"]):
    pz = os.path.getsize(z) / int(pc["procs"])
floor = None
try:
    m = re.search(r"= ([0-9.]+) bytes", open(os.path.join(d, "s.tracer.1", "floor.md")).read())
    floor = float(m.group(1)) if m else None
except OSError:
    pass
if tb is not None:
    peers = "; ".join(x for x in (f"atop raw log {fmt(ab)}" if ab else "",
                                  f"perf.data + zstd -19 {fmt(pz)}" if pz else "") if x) or "-"
    rows.append(("trace bytes per process (the session's file / its processes)", "<= 12", fmt(tb),
                 peers, tb <= 12, f"information floor of the same file's times and CPU times "
                 f"(bench/floor.py): {fmt(floor, '{:.1f}')}" if floor else ""))

# 2. analyzer peak memory per process, 3. summary against the raw decode
a = os.path.join(d, "ana")
s0 = {}
for line in open(os.path.join(a, "synth.txt")) if os.path.exists(os.path.join(a, "synth.txt")) else []:
    for w in line.split():
        k, _, v = w.partition("=")
        if v.isdigit():
            s0[k] = int(v)
np_ = s0.get("procs", 0)
for cmd, pre in (("summary", "summary"), ("top", "top"), ("critical-path", "critpath")):
    rss = med([x[1] for x in (nums(f) for f in glob.glob(os.path.join(a, pre + ".[0-9]"))) if len(x) >= 2])
    if rss and np_:
        bpp = rss * 1024 / np_
        rows.append((f"{cmd}'s peak RSS per process (the synthetic trace)", "<= 150", fmt(bpp), "-",
                     bpp <= 150, f"{np_:,} processes, {s0.get('events', 0):,} events, {rss / 1024:.0f} MiB"))
dec = []
for f in glob.glob(os.path.join(a, "decode.[0-9]")):
    mm = re.search(r"seconds=([0-9.]+)", open(f).read())
    if mm:
        dec.append(float(mm.group(1)))
summ = [x[0] for x in (nums(f) for f in glob.glob(os.path.join(a, "summary.[0-9]"))) if x]
if med(dec) and med(summ):
    r = med(summ) / med(dec)
    rows.append(("summary wall time / raw decode (1 thread)", "<= 1.0", f"{r:.2f}",
                 "perf script: see the analyzer table", r <= 1.0,
                 f"{med(summ):.2f} s against {med(dec):.2f} s"))

# 4. start-up and stop (bench/startup.sh's table)
st = {}
try:
    for line in open(os.path.join(d, "startup.md")):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 3 and c[0] in ("tracer-record", "perf record", "none (COMMAND alone)"):
            st[c[0]] = [float(x.split()[0].replace(",", "")) for x in c[1:3]]
except (OSError, ValueError):
    pass
if "tracer-record" in st:
    p = st.get("perf record")
    rows.append(("start-up: exec of the recorder -> COMMAND's exec, ms (median)", "<= 100",
                 f"{st['tracer-record'][0]:,.1f}", f"perf record {p[0]:,.1f}" if p else "-",
                 st["tracer-record"][0] <= 100,
                 f"COMMAND alone {st['none (COMMAND alone)'][0]:,.1f}" if "none (COMMAND alone)" in st else ""))
    rows.append(("stop: COMMAND's exit -> recorder's exit, file sealed, ms (median)", "<= 50",
                 f"{st['tracer-record'][1]:,.1f}", f"perf record {p[1]:,.1f}" if p else "-",
                 st["tracer-record"][1] <= 50, ""))

if rows:
    print("### Issue 22 in this run\n")
    print("| figure | target | tracer | peers, same run | met | note |")
    print("|---|---|---:|---|---|---|")
    for name, tgt, val, peers, ok, note in rows:
        print(f"| {name} | {tgt} | {val} | {peers} | {'yes' if ok else '**no**'} | {note} |")
    print()
