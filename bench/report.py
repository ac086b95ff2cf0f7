#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# bench/report.py - turn the raw results bench/run leaves in DIR into the
# markdown tables of docs/PERFORMANCE.md. usage: report.py DIR
import glob
import os
import re
import statistics as st
import sys

d = sys.argv[1]
TCK = os.sysconf("SC_CLK_TCK")
ORDER = ["none", "tracer", "tracer-xf", "tracer-env", "tracer-base", "perf", "bpftrace", "snoop", "atop", "tracefs"]
NAMES = {
    "none": "no recorder",
    "tracer": "tracer-record",
    "tracer-xf": "tracer-record --exec-failures",
    "tracer-env": "tracer-record --env SLURM_JOB_ID,NXF_TASK_WORKDIR",
    "tracer-base": "tracer-record (base build, $TRACER_BASE)",
    "perf": "perf record (3 sched tracepoints)",
    "bpftrace": "bpftrace (same tracepoints, text)",
    "snoop": "execsnoop + exitsnoop (libbpf-tools)",
    "atop": "atop -w (raw, 1 s)",
    "tracefs": "tracefs events -> trace_pipe",
}
BPF = {"tracer", "tracer-xf", "tracer-env", "tracer-base", "bpftrace", "snoop"}


def kv(path):
    """first word -> rest of the line, of every line of path ({} if unreadable)"""
    out = {}
    try:
        for line in open(path):
            p = line.split(None, 1)
            if len(p) == 2:
                out[p[0]] = p[1].strip()
    except OSError:
        pass
    return out


def eqvals(path):
    """key -> value of every key=value word of path ({} if unreadable)"""
    try:
        return dict(x.split("=", 1) for x in open(path).read().split() if "=" in x)
    except OSError:
        return {}


def lines(path):
    try:
        return open(path).read().splitlines()
    except OSError:
        return []


def nums(path):
    try:
        return [float(x) for x in open(path).read().split()]
    except (OSError, ValueError):
        return None


def nums_of(x):
    """x as a float, None if it is not a number"""
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else None


def fmt(x, f="{:.2f}", none="-"):
    return none if x is None else f.format(x)


def hook(path):
    procs, bpf = {}, {}
    try:
        for line in open(path):
            p = line.split()
            if p[0] == "proc" and len(p) >= 5:
                procs[p[1]] = (int(p[2]) + int(p[3]), int(p[4] or 0))
            elif p[0] == "bpf" and len(p) >= 4:
                bpf[p[1]] = (int(p[2]), int(p[3]))
    except (OSError, ValueError, IndexError):
        return None
    return procs, bpf


m = kv(os.path.join(d, "machine"))
wl = m.get("workloads", "").split()
n = int(m.get("storm", "0"))
mixn = int(m.get("mix", "0"))
na = kv(os.path.join(d, "na"))


def find_sessions(prefix):
    """variant -> round -> directory of bench/run's PREFIX.VARIANT.ROUND"""
    out = {}
    for sd in glob.glob(os.path.join(d, prefix + ".*.*")):
        p = os.path.basename(sd).split(".")
        if len(p) == 3 and p[2].isdigit():
            out.setdefault(p[1], {})[int(p[2])] = sd
    return out


# s.V.R: the timed rounds; b.V.R: untimed sessions per BPF-based recorder
# with kernel.bpf_stats_enabled on, the source of every BPF figure. Results
# of a bench/run older than the b sessions had the stats on in the timed
# rounds: their BPF figures come from those.
sessions = find_sessions("s")
bsessions = find_sessions("b")
separate = bool(bsessions)
variants = [v for v in ORDER if v in sessions]


def bpf_sessions(v):
    return bsessions.get(v, {}) if separate else sessions.get(v, {})


def expected(w):
    """(execs, exits) of the workload's own children a recorder must capture"""
    return {
        "exec-seq": (n, n), "exec-par": (n, n), "fork": (0, n),
        "mix": (2 * mixn, 3 * mixn),
    }.get(w)


def procs_of(w):
    """the workload's processes (threads for thread), BPF time is divided by;
    None for syscall: one process, and no BPF program runs for its read()s
    (what the recorders' programs do meanwhile is for the rest of the machine)"""
    return {"exec-seq": n, "exec-par": n, "fork": n, "thread": n,
            "mix": 3 * mixn}.get(w)


def bpf_delta(sd, w):
    """prog id -> (run_time_ns, run_cnt) spent during workload w of session
    sd (the hooks before and after it), or None without both hooks"""
    i = labels.index(w)
    h0 = hook(os.path.join(sd, f"hook.{labels[i - 1]}"))
    h1 = hook(os.path.join(sd, f"hook.{w}"))
    if not (h0 and h1):
        return None
    return {k: (rt - h0[1].get(k, (0, 0))[0], rc - h0[1].get(k, (0, 0))[1])
            for k, (rt, rc) in h1[1].items()}


if variants:
    print(f"## Recording: {m.get('date', '?')}, mode {m.get('mode')}, {m.get('rounds')} interleaved rounds\n")
else:
    print(f"## Run: {m.get('date', '?')}, mode {m.get('mode')}, no recording rounds\n")
print(f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} CPUs, "
      f"{int(m.get('mem_kib', '0')) // 1024} MiB, Linux {m.get('kernel')}; "
      f"load average at the end {m.get('load')}; {m.get('tracer')}; {m.get('perf')}; "
      f"{m.get('bpftrace')}; {m.get('atop')}. Total bench time {m.get('seconds')} s.\n")
for v, why in na.items():
    print(f"- {NAMES.get(v, v)}: n/a ({why})")
labels = ["start"] + wl
if separate:
    nb = max((len(x) for x in bsessions.values()), default=0)
    print(f"- BPF columns and tables: median of {nb} extra, untimed session{'s' if nb != 1 else ''} per "
          "BPF-based recorder with kernel.bpf_stats_enabled=1; the timed rounds ran with it off (its "
          "clock reads would be charged to the BPF recorders only)")
    # a timed round whose BPF programs accumulated run time: the statistics
    # were on anyway (another process holding BPF_ENABLE_STATS, or the sysctl)
    leak = sorted({f"{NAMES[v]} round {r}" for v in BPF for r, sd in sessions.get(v, {}).items()
                   for w in wl if any(rt > 0 for rt, _ in (bpf_delta(sd, w) or {}).values())})
    if leak:
        print("- **BPF statistics were on during timed rounds** (switched on outside bench/run): "
              + ", ".join(leak) + "; those rounds carry their cost")
if os.path.exists(os.path.join(d, "pipeline.skipped")):
    print("- pipeline workload: skipped (" + open(os.path.join(d, "pipeline.skipped")).read().strip() + ")")
print()

for w in (wl if variants else []):
    desc = {
        "exec-seq": f"{n:,} sequential fork+exec of /bin/true (short argv)",
        "exec-par": f"{n:,} fork+exec of /bin/true by 2 parallel workers",
        "fork": f"{n:,} fork + _exit (no exec)",
        "thread": f"{n:,} pthread_create + join (threads, no process events)",
        "mix": f"{mixn:,} rounds x 2 workers of: exec with 1 KiB argv, exec, fork-only child writing 64 KiB, 4 threads, CPU burn",
        "syscall": f"{int(m.get('syscalls', '0')):,} 1-byte read()s of /dev/zero by one process",
        "pipeline": "samples/pipeline/run.sh (bwa, samtools, bcftools)",
    }.get(w, w)
    print(f"### {w}: {desc}\n")
    print("| recorder | wall s (median) | slowdown | workload CPU s | CPU ratio | captured / expected (worst round) | BPF ns / process | BPF ns / prog run |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    base = {r: nums(os.path.join(sd, f"res.{w}")) for r, sd in sessions.get("none", {}).items()}
    for v in [x for x in ORDER if x in variants or x in na]:
        if v not in variants:
            print(f"| {NAMES[v]} | n/a ({na[v]}) | - | - | - | - | - | - |")
            continue
        walls, cpus, sl, cr, caps, bpn, bpr = [], [], [], [], [], [], []
        for r, sd in sorted(sessions[v].items()):
            x = nums(os.path.join(sd, f"res.{w}"))
            if not x:
                continue
            walls.append(x[0] / 1e9)
            cpus.append((x[1] + x[2]) / 1e9)
            b = base.get(r)
            if b:
                sl.append(x[0] / b[0])
                cr.append((x[1] + x[2]) / (b[1] + b[2]))
            for line in lines(os.path.join(sd, "counts")):
                p = line.split()
                if len(p) >= 4 and p[0] == "cap" and p[1] == w:
                    caps.append((p[2], p[3]))
        for r, sd in sorted(bpf_sessions(v).items()):
            dl = bpf_delta(sd, w)
            if v in BPF and dl and procs_of(w):
                rt = sum(x[0] for x in dl.values())
                rc = sum(x[1] for x in dl.values())
                if rc > 0:  # 0: statistics were off (another user of the sysctl)
                    bpn.append(rt / procs_of(w))
                    bpr.append(rt / rc)
        if not walls:
            continue
        e = expected(w)
        capstr = "-"
        if v != "none" and e and caps:
            if v == "atop":
                tot = [int(xt) for _, xt in caps]
                capstr = f"{min(tot):,} / {e[1]:,} exits"
            else:
                tot = [(0 if ex == "-" else int(ex)) + (0 if xt == "-" else int(xt)) for ex, xt in caps]
                capstr = f"{min(tot):,} / {e[0] + e[1]:,}"
        print(f"| {NAMES[v]} | {fmt(med(walls), '{:.3f}')} | "
              f"{fmt(med(sl), '{:.3f}') if v != 'none' else '1'} | {fmt(med(cpus), '{:.3f}')} | "
              f"{fmt(med(cr), '{:.3f}') if v != 'none' else '1'} | {capstr} | "
              f"{fmt(med(bpn), '{:,.0f}') if v in BPF else 'n/a (no BPF)'} | "
              f"{fmt(med(bpr), '{:,.0f}') if v in BPF else '-'} |")
    print()

# p.V.R: untimed sessions under a whole-machine CPU profile (perf record -a
# -g); prof.sum has, per workload, the samples in that workload's window:
# all, idle, in a tracing hook (any task), in the recorder's processes.
psessions = find_sessions("p")


def prof_counts(v, w):
    """(hooks, recorder, rounds, hz) summed over v's profile sessions for w"""
    hk = rc = k = 0
    hz = None
    for r, sd in sorted(psessions.get(v, {}).items()):
        for line in lines(os.path.join(sd, "prof.sum")):
            p = line.split()
            if len(p) >= 2 and p[0] == "w" and p[1] == w:
                x = dict(zip(p[2::2], p[3::2]))
                hk += int(x.get("hooks", 0))
                rc += int(x.get("recorder", 0))
                hz = int(x.get("hz", 0)) or hz
                k += 1
    return hk, rc, k, hz


pw = [x for x in wl if procs_of(x) or x == "syscall"]
if psessions and pw:
    npr = max(len(x) for x in psessions.values())
    print(f"### CPU per workload process, from a whole-machine CPU profile ({npr} untimed session"
          f"{'s' if npr != 1 else ''} per recorder)\n")
    print("perf record -a -g at the rate given, both CPUs, each workload's own window. In the kernel: "
          "samples with a tracing hook on the stack (tracepoint probes, BPF programs, the syscall-tracepoint "
          "slow path, process accounting), in any task, minus the no-recorder session's (other users' "
          "hooks). Recorder: samples of the recorder's processes. A sample stands for 1/rate s of one CPU; "
          "the counts are a share of one run, so the VM's speed from one session to the next does not "
          "move them as it moves the wall ratios.\n")
    for w in pw:
        per = procs_of(w) or int(m.get("syscalls", "0"))
        unit = "us / process" if procs_of(w) else "ns / read()"
        scale = 1e6 if procs_of(w) else 1e9
        bh, _, bk, bhz = prof_counts("none", w)
        base = bh / bk / bhz / per * scale if bk and bhz and per else None
        print(f"#### {w}\n")
        print(f"| recorder | in the kernel's hooks, {unit} | recorder processes, {unit} | total, {unit} (± sampling error, 1 sd) | samples (hooks / recorder) |")
        print("|---|---:|---:|---:|---:|")
        if base is not None:
            print(f"| no recorder (hooks of other users, subtracted below) | {base:.2f} | - | - | {bh:,} / - |")
        else:
            print("| no recorder: no profile session, **nothing subtracted** (other users' hooks included below) | - | - | - | - |")
        for v in [x for x in ORDER if x in psessions and x != "none"]:
            hk, rc, k, hz = prof_counts(v, w)
            if not k or not hz or not per:
                continue
            kern = hk / k / hz / per * scale - (base or 0)
            rec = rc / k / hz / per * scale
            # sampling error (counts are Poisson): one standard deviation
            var = (hk / k / k + rc / k / k + (bh / bk / bk if base is not None else 0))
            sd = var ** 0.5 / hz / per * scale
            print(f"| {NAMES[v]} | {kern:.2f} | {rec:.2f} | **{kern + rec:.2f}** ± {sd:.2f} | {hk:,} / {rc:,} |")
        print()


def prognames(sd):
    """prog id -> (type, name) of a session's BPF programs (bench/run's hook)"""
    out = {}
    for line in lines(os.path.join(sd, "prognames")):
        p = line.split()
        if len(p) >= 4 and p[0] == "name":
            out[p[1]] = (p[2].rstrip(":"), p[3])
    return out


# Per BPF program: mean ns per run, runs per workload process, ns per process
for w in [x for x in wl if procs_of(x)]:
    rows = []
    for v in [x for x in variants if x in BPF]:
        per = {}  # name -> [(ns_per_run, runs_per_proc, ns_per_proc)]
        for r, sd in sorted(bpf_sessions(v).items()):
            names = prognames(sd)
            dl = bpf_delta(sd, w)
            if not dl:
                continue
            # programs of one name (bpftrace's names are cut to 15
            # characters: sched_process_exec and _exit) are summed
            sums = {}  # name -> [run_time_ns, run_cnt, programs]
            for k, (rt, rc) in dl.items():
                nm = names.get(k, ("?", f"id {k}"))
                if rc <= 0:
                    continue
                x = sums.setdefault((nm[1], nm[0]), [0, 0, 0])
                x[0] += rt
                x[1] += rc
                x[2] += 1
            for (nm, ty), (rt, rc, cnt) in sums.items():
                label = f"{nm} ({ty}{f', {cnt} programs' if cnt > 1 else ''})"
                per.setdefault(label, []).append(
                    (rt / rc, rc / procs_of(w), rt / procs_of(w)))
        tot = 0.0
        for nm, xs in sorted(per.items(), key=lambda kv: -med([x[2] for x in kv[1]])):
            a, b, c = (med([x[j] for x in xs]) for j in range(3))
            tot += c
            rows.append(f"| {NAMES[v]} | {nm} | {a:,.0f} | {b:.2f} | {c:,.0f} |")
        if per:
            rows.append(f"| {NAMES[v]} | **all programs** | | | **{tot:,.0f}** |")
    if rows:
        print(f"### BPF programs during {w} ({'median of the statistics sessions' if separate else 'median over rounds'})\n")
        print("| recorder | program (type) | ns / run | runs / workload process | ns / workload process |")
        print("|---|---|---:|---:|---:|")
        print("\n".join(rows))
        print()

if variants:
    print("### Recorder cost over a whole session (all workloads above, one recorder instance)\n")
    print("| recorder | recorder CPU s | % of workload CPU | peak RSS MiB | file bytes | processes in file | bytes / process | lost (recorder's own count) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for v in variants:
        if v == "none":
            continue
        cpu, pct, rss, byt, prc, bpp, lost = [], [], [], [], [], [], []
        for r, sd in sorted(sessions[v].items()):
            h0 = hook(os.path.join(sd, "hook.start"))
            h1 = hook(os.path.join(sd, f"hook.{wl[-1]}")) if wl else None
            wc = 0
            for w in wl:
                if w == "syscall":  # no process events: would dilute the %
                    continue
                x = nums(os.path.join(sd, f"res.{w}"))
                if x:
                    wc += (x[1] + x[2]) / 1e9
            if h0 and h1 and h1[0]:
                c = sum(h1[0][p][0] - h0[0].get(p, (0, 0))[0] for p in h1[0]) / TCK
                cpu.append(c)
                if wc:
                    pct.append(100 * c / wc)
                rss.append(sum(h1[0][p][1] for p in h1[0]) / 1024)
            c = kv(os.path.join(sd, "counts"))
            if "bytes" in c:
                byt.append(int(c["bytes"]))
                prc.append(int(c.get("procs", "0")))
                if int(c.get("procs", "0")):
                    bpp.append(int(c["bytes"]) / int(c["procs"]))
            for k in ("dropped", "tracefs_overrun", "bt_Lost", "perf_lost"):
                if k in c:
                    lost.append(f"{k.split('_')[0]} {c[k]}")
        row = (f"| {NAMES[v]} | {fmt(med(cpu), '{:.2f}')} | {fmt(med(pct), '{:.2f}%')} | "
               f"{fmt(max(rss) if rss else None, '{:.1f}')} | {fmt(med(byt), '{:,.0f}')} | "
               f"{fmt(med(prc), '{:,.0f}')} | {fmt(med(bpp), '{:,.0f}')} | "
               f"{', '.join(sorted(set(lost))) or '-'} |")
        print(row)
        if v == "perf":
            z = os.path.join(sessions["perf"].get(1, ""), "perf.data.zst")
            c = kv(os.path.join(sessions["perf"].get(1, ""), "counts"))
            if os.path.exists(z) and int(c.get("procs", "0")):
                zs = os.path.getsize(z)
                print(f"| perf.data, round 1, zstd -19 | | | | {zs:,} | {int(c['procs']):,} | "
                      f"{zs / int(c['procs']):,.0f} | |")
    print()
    print("Recorder CPU and peak RSS: /proc/PID/stat utime+stime and VmHWM of the recorder "
          "process(es) between the session's first and last hook (execsnoop + exitsnoop summed); "
          "% of the CPU of the workloads with process events (not `syscall`). "
          "Processes in file: process exits the file holds (all processes it recorded, "
          "other users of the machine included for the system-wide peers).\n")

a = os.path.join(d, "ana")
s0 = eqvals(os.path.join(a, "synth.txt"))
if os.path.isdir(a) and not s0.get("events", "").isdigit():
    print("## Analyzer: no results (ana/synth.txt missing: the synthetic trace was not written)\n")
if os.path.isdir(a) and s0.get("events", "").isdigit() and int(s0["events"]) > 0:
    syn = kv(os.path.join(a, "synth.txt"))
    ev = int(s0["events"])
    tzb = int(syn.get("tz_bytes", "0"))

    def runs(prefix):
        out = []
        for f in sorted(glob.glob(os.path.join(a, prefix + ".[0-9]"))):
            x = nums(f)
            if x:
                out.append(x)
        return out

    dec = []
    for f in sorted(glob.glob(os.path.join(a, "decode.[0-9]"))):
        mm = re.search(r"seconds=([0-9.]+)", open(f).read())
        if mm:
            dec.append(float(mm.group(1)))
    dsec = med(dec)
    print(f"## Analyzer: synthetic trace of {ev:,} events, {fmt(int(s0['procs']) if s0.get('procs', '').isdigit() else None, '{:,}')} processes, "
          f"{tzb:,} bytes ({tzb / ev:.1f} bytes/event)\n")
    np_ = int(s0["procs"]) if s0.get("procs", "").isdigit() else 0

    def bpp(rr):  # peak RSS bytes per process of the trace (issue 22: <= 150)
        v = med([x[1] for x in rr])
        return fmt(v * 1024 / np_ if v and np_ else None, '{:.0f}')
    print("| what | seconds (median of up to 3) | events/s | x raw decode time | CPU s (user+sys, all threads) | peak RSS MiB | peak RSS bytes / process |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    wsec = nums_of(s0.get("seconds"))
    print(f"| writer (bench-tzsynth: tz_writer, zstd 3, 1 thread) | {fmt(wsec)} | "
          f"{fmt(ev / wsec if wsec else None, '{:,.0f}')} | | | | |")
    def cpu(rr):
        return fmt(med([x[2] + x[3] for x in rr if len(x) >= 4]))
    drs = runs("decode_rss")
    print(f"| reader raw decode (bench-tzdecode, 1 thread) | {fmt(dsec)} | {fmt(ev / dsec if dsec else None, '{:,.0f}')} | 1 | "
          f"{cpu(drs)} | {fmt(med([x[1] / 1024 for x in drs]), '{:.0f}')} | |")
    def timed_out(pre):
        for f in glob.glob(os.path.join(a, pre + ".[0-9]")):
            t = open(f).read().split()
            if t and t[0] == "timeout":
                return t[1]
        return None

    for name, pre in (("tracer-analyze summary", "summary"), ("tracer-analyze export --format jsonl", "export"),
                      ("tracer-analyze top (1 run)", "top"), ("tracer-analyze critical-path (1 run)", "critpath")):
        rr = runs(pre)
        s = med([x[0] for x in rr])
        if not rr and timed_out(pre):
            print(f"| {name} | > {timed_out(pre)} (stopped) | < {ev / float(timed_out(pre)):,.0f} | "
                  f"> {fmt(float(timed_out(pre)) / dsec if dsec else None, '{:.0f}')} | | | |")
            continue
        if not rr:
            continue
        print(f"| {name} | {fmt(s)} | {fmt(ev / s if s else None, '{:,.0f}')} | "
              f"{fmt(s / dsec if s and dsec else None)} | {cpu(rr)} | {fmt(med([x[1] / 1024 for x in rr]), '{:.0f}')} | {bpp(rr)} |")
    s1 = nums(os.path.join(a, "summary_1cpu"))
    if s1 and len(s1) >= 4:
        print(f"| tracer-analyze summary held to one CPU (taskset -c 0, 1 run) | {s1[0]:.2f} | {ev / s1[0]:,.0f} | "
              f"{fmt(s1[0] / dsec if dsec else None)} | {s1[2] + s1[3]:.2f} | {s1[1] / 1024:.0f} | {bpp([s1])} |")
    wsum = nums(os.path.join(a, "wrap_summary"))
    wdec = lines(os.path.join(a, "wrap_decode"))
    wpm = lines(os.path.join(a, "wrap_pidmax"))
    if wsum and len(wsum) >= 2 and wdec and wpm:
        mm = re.search(r"seconds=([0-9.]+)", wdec[0])
        wd = float(mm.group(1)) if mm else None
        print(f"| same events, pids wrapping at {wpm[0]}: raw decode | {fmt(wd)} | "
              f"{fmt(ev / wd if wd else None, '{:,.0f}')} | 1 | | | |")
        wc = f"{wsum[2] + wsum[3]:.2f}" if len(wsum) >= 4 else ""
        print(f"| same events, pids wrapping at {wpm[0]}: summary (1 run) | {wsum[0]:.2f} | {ev / wsum[0]:,.0f} | "
              f"{fmt(wsum[0] / wd if wd else None)} | {wc} | {wsum[1] / 1024:.0f} | {bpp([wsum])} |")
    elif os.path.exists(os.path.join(a, "wrap_summary")):
        print(f"| same events, pids wrapping: summary | {open(os.path.join(a, 'wrap_summary')).read().strip()} | | | | | |")
    zt = open(os.path.join(a, "zstd.txt")).read() if os.path.exists(os.path.join(a, "zstd.txt")) else ""
    zm = re.findall(r"\(x?\s*([0-9.]+)\),\s*([0-9.]+) MB/s", zt)
    if zm and "raw_bytes" in s0:
        mbs = float(zm[-1][1])
        bpe = int(s0["raw_bytes"]) / ev
        print(f"| zstd -1 on the same raw records ({bpe:.0f} bytes/event, ratio {zm[-1][0]}) | "
              f"{int(s0['raw_bytes']) / (mbs * 1e6):.2f} | {mbs * 1e6 / bpe:,.0f} | | | | |")
    pe = nums(os.path.join(a, "perf_events"))
    for name, pre in (("perf script", "perfscript"), ("perf report --stdio --sort comm", "perfreport")):
        rr = runs(pre)
        s = med([x[0] for x in rr])
        if s and pe:
            print(f"| {name} ({int(pe[0]):,} events: fork + exec storms, 3 sched tracepoints) | {s:.2f} | {pe[0] / s:,.0f} | | "
                  f"{cpu(rr)} | {fmt(med([x[1] / 1024 for x in rr]), '{:.0f}')} | |")
    print()
    rs, rb = nums(os.path.join(a, "rss_small")), nums(os.path.join(a, "rss_big"))
    ss = eqvals(os.path.join(a, "synth_small.txt"))
    sb = eqvals(os.path.join(a, "synth_bigp.txt"))
    for nm, rx in (("rss_small", rs), ("rss_big", rb)):
        if not rx and os.path.exists(os.path.join(a, nm)):
            print(f"- `summary` for the memory row {nm}: " + open(os.path.join(a, nm)).read().strip())
    if rs and rb and len(rs) >= 2 and len(rb) >= 2 and all(
            x.get(k, "").isdigit() for x in (ss, sb) for k in ("events", "procs")):
        print("Peak RSS of `summary` with the same process set (the extra events are the recorder's periodic drop-counter records):\n")
        print("| events | processes | summary seconds | peak RSS MiB |")
        print("|---:|---:|---:|---:|")
        print(f"| {int(ss['events']):,} | {int(ss['procs']):,} | {rs[0]:.2f} | {rs[1] / 1024:.0f} |")
        print(f"| {int(sb['events']):,} | {int(sb['procs']):,} | {rb[0]:.2f} | {rb[1] / 1024:.0f} |")
        print()
