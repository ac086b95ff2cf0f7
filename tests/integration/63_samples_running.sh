#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Processes still running at the stop count, and whose machine (issue 15
# points 8 and 10).
#
# 1. `tracer-record -a --duration 5` while two CPU burners run (started
#    before, frozen with SIGSTOP 4 s after the recorder was started, so
#    before its stop): summary's utilisation (the host's, from the host
#    samples, in whole-machine mode) is the busy share between the first and
#    last host sample of the trace; those samples' counters lie between
#    /proc/stat read just before and after the recording (each counter, and
#    the busy time outside the samples at most the time outside), the
#    recorded processes' share is part of it, each burner is running with its CPU
#    counted from the recording's start (issue 23: not its whole life): tree
#    shows its last sample minus its first (the sampler's first pass), which
#    lies between what /proc/PID/stat says it used from a read after that
#    first sample and from a read before the recording, to the stop (the
#    burners have used CPU before the recording, so whole-life CPU would be
#    above that), and the text says how many were still running.
# 2. Follow mode, the two burners outside the recording: the recorded
#    command's utilisation is its own CPU (exact exit totals from export)
#    over the window, not the busy host; the host's figure is beside it, in
#    summary and as a line on the CPU plot.
# 3. The recorded processes' peak memory together: two memwork processes
#    holding 64 MiB each at once: the peak of the sum of their sampled RSS
#    is at least 128 MiB and at most the sum of their peaks (export).
. "$(dirname "$0")/lib.sh"
need_root memwork
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
M=$H/memwork

sh -c 'while :; do :; done' &
b1=$!
sh -c 'while :; do :; done' &
b2=$!
bg_track "$b1" "$b2"

stat() { head -1 /proc/stat; }
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks
boot_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'; }
hz=$(getconf CLK_TCK)
# the burners have used CPU before the recording (a measured amount: whole-life
# CPU would then differ from CPU in the window)
for i in $(seq 300); do
	[ "$(cpu_of "$b1")" -ge "$hz" ] && [ "$(cpu_of "$b2")" -ge "$hz" ] && break
	sleep 0.1
done
s0=$(stat)
a1=$(cpu_of "$b1") a2=$(cpu_of "$b2")
[ "$a1" -ge "$hz" ] && [ "$a2" -ge "$hz" ] || fail "burners used under 1 s CPU in 30 s: $a1 $a2"
record -a --duration 5 -o all.tz &
rec=$!
bg_track "$rec"
# samples of pid sealed so far in the file being written (0 before its first chunk)
nsamples() {
	timeout 30 "$A" --partial cat --type sample all.tz 2>/dev/null | grep -c " tgid=$1 " || true
}
# a read of their CPU within the recording, once the trace has a sample of
# each: the bound from below holds when it came after the burner's first
# sample (checked against the trace); no sleep decides it (a loaded machine
# may take seconds to start the recorder)
for _ in $(seq 600); do
	[ "$(nsamples "$b1")" -ge 1 ] && [ "$(nsamples "$b2")" -ge 1 ] && break
	kill -0 "$rec" 2>/dev/null || break
	sleep 0.1
done
m1=$(cpu_of "$b1") m2=$(cpu_of "$b2") mt=$(boot_ns)
# freeze the burners once each has a second sample, before the recorder's
# stop if it still runs: their last sample, at the stop, is then their /proc
# CPU (if the stop came first, /proc's delta to the stop only grows: the
# bound from above still holds)
for _ in $(seq 600); do
	[ "$(nsamples "$b1")" -ge 2 ] && [ "$(nsamples "$b2")" -ge 2 ] && break
	kill -0 "$rec" 2>/dev/null || break
	sleep 0.1
done
kill -STOP "$b1" "$b2"
wait "$rec" || fail "record -a"
s1=$(stat)
c1=$(cpu_of "$b1") c2=$(cpu_of "$b2")
timeout 120 "$A" cat --abs --type sample all.tz >samples.txt || fail "cat samples"
timeout 120 "$A" summary --json all.tz >all.json || fail "summary --json"
timeout 120 "$A" summary all.tz >all.txt || fail "summary"
timeout 120 "$A" cat --type host_sample all.tz >host.txt || fail "cat host samples"
python3 - all.json "$s0" "$s1" "$(getconf CLK_TCK)" host.txt <<'PY' || fail "whole machine: $(grep '^cpu' all.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
hz = int(sys.argv[4])
def busy_total(v):  # user nice system idle iowait irq softirq steal
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])
# /proc/stat before and after, in ns (the recorder scales the same ticks)
b0, t0 = busy_total([int(x) * 10**9 // hz for x in sys.argv[2].split()[1:9]])
b1, t1 = busy_total([int(x) * 10**9 // hz for x in sys.argv[3].split()[1:9]])
keys = ["cpu_user_ns", "cpu_nice_ns", "cpu_system_ns", "cpu_idle_ns", "cpu_iowait_ns",
        "cpu_irq_ns", "cpu_softirq_ns", "cpu_steal_ns"]
samples = []
for line in open(sys.argv[5]):
    f = dict(kv.split("=", 1) for kv in line.split()[2:])
    samples.append(busy_total([int(f[k]) for k in keys]))
assert len(samples) >= 2, samples
(sb0, st0), (sb1, st1) = samples[0], samples[-1]
c = d["cpu"]
want = (sb1 - sb0) / (st1 - st0)
print(f"  host samples busy {want:.4f} ({len(samples)} samples), summary {c['utilisation']:.4f} "
      f"({c['basis']}), /proc/stat around {(b1 - b0) / (t1 - t0):.4f}, "
      f"recorded processes {c['procs_utilisation']:.4f}, running sampled {c['running_sampled']}")
assert d["recorder"]["mode"] == "system", d["recorder"]
assert c["basis"] == "host" and c["utilisation"] == c["host_utilisation"], c
# the window is the samples' (the first at the start, the last at the stop)
assert abs(c["utilisation"] - want) <= 0.0005, (c, want)
# the recorder read the real /proc/stat: its counters lie between ours,
# and outside its samples the machine was busy at most all the time
for a, b in zip(samples, samples[1:]):
    assert a[0] <= b[0] and a[1] <= b[1], (a, b)
assert b0 <= sb0 and sb1 <= b1 and t0 <= st0 and st1 <= t1, (b0, sb0, sb1, b1, t0, st0, st1, t1)
assert (b1 - b0) - (sb1 - sb0) <= (t1 - t0) - (st1 - st0), "busy outside > time outside"
# the burners ran on both CPUs for most of the window (frozen near its end)
assert want > 0.3, want
# the processes' CPU is part of the busy time: pre-existing ones are sampled
# at the start, so only what they used inside the window counts
assert 0 < c["procs_utilisation"] <= c["utilisation"] + 0.02, c
assert c["running_sampled"] >= 2, c
PY
# each burner: running, its CPU in the window (its last sample minus its
# first), bracketed by /proc's deltas to the stop
for b in "$b1:$a1:$m1:$c1" "$b2:$a2:$m2:$c2"; do
	IFS=: read -r pid before mid end <<<"$b"
	line=$(timeout 60 "$A" tree --pid "$pid" all.tz | grep "^$pid " | head -1)
	python3 - "$line" "$pid" "$before" "$mid" "$mt" "$end" "$hz" samples.txt <<'PY' ||
import re, sys
line = sys.argv[1]
pid, before, mid, mt, end, hz = map(int, sys.argv[2:8])
cpu = []  # (ts, utime + stime) of this burner's samples, in file order
for l in open(sys.argv[8]):
    f = dict(kv.split("=", 1) for kv in l.split()[2:] if "=" in kv)
    if int(f.get("tgid", -1)) == pid:
        cpu.append((int(l.split()[0]), int(f["utime_ns"]) + int(f["stime_ns"])))
assert len(cpu) >= 2, cpu
m = re.search(r" running  cpu ([0-9.]+)(ms|s) .*\(to its last sample\)", line)
assert m, line
assert "[pre-existing: counted from the start]" in line, line
got = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
window = (cpu[-1][1] - cpu[0][1]) / 1e9
lo, hi = (end - mid) / hz, (end - before) / hz
first_before_mid = cpu[0][0] <= mt
print(f"  burner {pid}: tree cpu {got:.3f} s, samples last - first {window:.3f} s, "
      f"/proc delta from inside the recording {lo:.3f} s "
      f"({'after' if first_before_mid else 'NOT after'} the first sample), "
      f"from before it {hi:.3f} s, whole life {end / hz:.3f} s")
assert abs(got - window) <= 0.006 + 0.002 * window, (got, window)
assert got <= hi + 2 / hz, ("more than /proc's delta over the recording", got, hi)
if first_before_mid:
    assert got >= lo - 0.05 - 2 / hz, ("less than /proc's delta after the first sample", got, lo)
PY
		fail "burner $pid: $line"
done
grep -Eq '^ +[0-9,]+ still running at the end: CPU, memory and I/O counted up to their last sample$' all.txt ||
	fail "no 'still running' line: $(cat all.txt)"
grep -q "utilisation of the host (host samples; recorded processes" all.txt ||
	fail "cpu line: $(grep '^cpu' all.txt)"
kill -CONT "$b1" "$b2"

# follow mode: the recorded processes, the host beside
record -o follow.tz --sample-interval 0.25 -- "$W" burn 1.5 1 || fail "record follow"
export_jsonl follow.tz follow.jsonl
timeout 120 "$A" summary --json follow.tz >follow.json || fail "summary follow"
python3 - follow.json follow.jsonl <<'PY' || fail "follow mode utilisation"
import json, sys
d = json.load(open(sys.argv[1]))
ncpus = d["host"]["cpus"]
procs = [json.loads(l) for l in open(sys.argv[2])]
cpu = sum(p["utime_s"] + p["stime_s"] for p in procs if p["utime_s"] is not None)
c = d["cpu"]
want = cpu / (d["duration_s"] * ncpus)
print(f"  follow: utilisation {c['utilisation']:.3f} ({c['basis']}), exact {want:.3f}, "
      f"host {c['host_utilisation']}")
assert d["recorder"]["mode"] == "follow" and c["basis"] == "procs", c
assert c["utilisation"] == c["procs_utilisation"], c
assert abs(c["utilisation"] - want) <= 0.01, (c, want)
assert c["host_utilisation"] is not None and c["host_utilisation"] > c["utilisation"], c
PY
# the CPU plot stacks the recorded processes, the host's busy cores beside
# (the two burners outside the recording keep it near 2 cores)
timeout 120 "$A" plot --kind cpu --script - -o cpu.png follow.tz >cpu.gp || fail "plot cpu"
grep -q "title 'host: every process (host samples)'" cpu.gp || fail "cpu plot: no host line"
python3 - cpu.gp <<'PY' || fail "cpu plot: host line values"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("$H << EOD")
v = [float(l.split()[1]) for l in lines[i + 1:lines.index("EOD", i)]]
print(f"  cpu plot: host line, {len(v)} points, mean {sum(v) / len(v):.2f} cores")
assert v and all(0 <= x <= 2.05 for x in v) and sum(v) / len(v) > 1.2, v
PY
kill -9 "$b1" "$b2" 2>/dev/null || true

# the recorded processes' peak memory together
record -o mem.tz --sample-interval 0.1 -- sh -c "$M peak 64 1.5 0 & $M peak 64 1.5 0; wait" ||
	fail "record memwork"
export_jsonl mem.tz mem.jsonl
timeout 120 "$A" summary --json mem.tz >mem.json || fail "summary mem"
timeout 120 "$A" summary mem.tz >mem.txt || fail "summary mem text"
python3 - mem.json mem.jsonl <<'PY' || fail "peak memory together"
import json, sys
d = json.load(open(sys.argv[1]))
procs = [json.loads(l) for l in open(sys.argv[2])]
peaks = sum(p["peak_rss_kib"] or 0 for p in procs)
m = d["procs_memory"]
print(f"  procs peak together {m['peak_rss_kib']} KiB, sum of the peaks {peaks} KiB")
assert 2 * 64 * 1024 <= m["peak_rss_kib"] <= peaks, (m, peaks)
assert 0 <= m["peak_t_s"] <= d["duration_s"], m
PY
grep -q "recorded processes together peak" mem.txt || fail "memory line: $(grep -A1 '^memory' mem.txt)"
echo "ok"
