#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# bench/profsum.py - reduce one profile session of bench/run to counts.
#
# usage: profsum.py SESSION_DIR HZ WORKLOAD...
#
# SESSION_DIR holds prof.data (perf record -a -g -k CLOCK_MONOTONIC at HZ
# per CPU, taken around the whole session), recpids (the recorder's
# processes) and res.WORKLOAD (bench-load -r: fields 4 and 5 are the timed
# part's start and end on CLOCK_MONOTONIC, in ns). Prints, per workload, the
# CPU samples of the whole machine in that window:
#
#   w WORKLOAD all N idle N hooks N recorder N seconds S
#
# all: every sample, both CPUs; idle: the idle task's; hooks: samples with a
# tracing hook on their kernel stack (a tracepoint's probes, a BPF program,
# the syscall-tracepoint slow path, BSD process accounting: where a
# recorder's in-kernel work runs, in whichever task fired the event), the
# recorder's own processes excepted; recorder: samples of the recorder's own
# processes (user and kernel time, hooks in them included).
# The no-recorder session's hooks (other users' programs, the kernel's own
# probes) are subtracted by report.py.
import os
import re
import subprocess
import sys

HOOK = re.compile(
    r"^(__traceiter_\w+|bpf_trace_run\d+|perf_trace_\w+|perf_syscall_(enter|exit)"
    r"|ftrace_syscall_(enter|exit)|trace_event_raw_event_\w+|trace_call_bpf"
    r"|syscall_trace_enter|syscall_exit_work|acct_process|do_acct_process"
    r"|__bpf_prog_enter\w*|bpf_prog_\w+|bpf_ringbuf_\w+"
    # perf's side-band records (comm, fork/exit, mmap of each exec) are
    # written by the workload's tasks outside any tracepoint
    r"|perf_event_(task|comm|mmap)_output|perf_iterate_sb)$")
HEAD = re.compile(r"^\s*(\d+)\s+(\d+\.\d+):")


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: profsum.py SESSION_DIR HZ WORKLOAD...")
    d, hz, wls = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rec = set(open(os.path.join(d, "recpids")).read().split()) if os.path.exists(
        os.path.join(d, "recpids")) else set()
    win = {}
    for w in wls:
        try:
            x = open(os.path.join(d, f"res.{w}")).read().split()
            # bench-load -r files only (fields 4, 5: the window); the
            # pipeline's rusage file has maxrss and status there
            if len(x) >= 5 and int(x[3]) > 0 and int(x[3]) < int(x[4]):
                win[w] = (int(x[3]) / 1e9, int(x[4]) / 1e9)
        except (OSError, ValueError):
            pass
    cnt = {w: {"all": 0, "idle": 0, "hooks": 0, "recorder": 0} for w in win}
    p = subprocess.Popen(["perf", "script", "-i", os.path.join(d, "prof.data"),
                          "-F", "pid,time,ip,sym"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    cur = None  # [pid, time, hooked]

    def flush():
        if not cur:
            return
        for w, (lo, hi) in win.items():
            if lo <= cur[1] <= hi:
                c = cnt[w]
                c["all"] += 1
                c["idle"] += cur[0] == "0"
                # a hook in the recorder's own process (tracer's sampler
                # iterator) is the recorder's: counted once, there
                if cur[0] in rec:
                    c["recorder"] += 1
                else:
                    c["hooks"] += cur[2]
    for line in p.stdout:
        m = HEAD.match(line)
        if m:
            flush()
            cur = [m.group(1), float(m.group(2)), False]
            continue
        if cur and not cur[2]:
            f = line.split()
            if len(f) >= 2 and HOOK.match(f[1]):
                cur[2] = True
    flush()
    if p.wait() != 0 or (win and not any(c["all"] for c in cnt.values())):
        # a recorder must not come out as costing nothing
        sys.exit(f"profsum.py: {d}/prof.data: perf script failed or no sample in any window")
    for w, (lo, hi) in win.items():
        c = cnt[w]
        print(f"w {w} all {c['all']} idle {c['idle']} hooks {c['hooks']} "
              f"recorder {c['recorder']} seconds {hi - lo:.3f} hz {hz}")


main()
