#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Samples of issue 6: a program that touches 200 MiB, holds it 2 s, frees
# it and runs 3 s more has samples that show the peak near its start and
# little after the free, and its exit-time peak RSS equals the largest
# sample within one page; a 3-thread burner's samples count its threads and
# sum their CPU; plots draw the samples; host samples are present with sane
# values; --sample-interval 0 writes none.
. "$(dirname "$0")/lib.sh"
need_root memwork
M=$H/memwork
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
page_kib=$(( $(getconf PAGESIZE) / 1024 ))

record -o peak.tz --sample-interval 0.25 -- $M peak 200 2 3 || fail "recording exited $?"
timeout 60 "$A" export --format jsonl --samples peak.tz >peak.jsonl || fail "export --samples"
pycheck peak.jsonl "
p = one(by_exe('$M'), 'memwork')
s = p['samples']
# written only on change: at least the held peak and one after the free
check(len(s) >= 2, 'only %d samples' % len(s))
ts = [x['t_s'] for x in s]
check(ts == sorted(ts), 'samples out of order')
check(all(p['start_s'] + 0.25 <= t <= p['end_s'] for t in ts), 'a sample outside the life (or younger than one interval)')
top = max(s, key=lambda x: x['rss_kib'])
check(top['rss_kib'] >= 200 * 1024, 'largest sample %d KiB < 200 MiB' % top['rss_kib'])
check(abs(p['peak_rss_kib'] - top['rss_kib']) <= $page_kib,
      'exit peak %d KiB vs largest sample %d KiB' % (p['peak_rss_kib'], top['rss_kib']))
# the peak is near the start: before the last 3 s (after the free)
check(top['t_s'] < p['end_s'] - 3, 'peak sample at %.2f s, process ended at %.2f s' % (top['t_s'], p['end_s']))
after = [x for x in s if x['t_s'] > top['t_s']]
check(after and after[-1]['rss_kib'] < 16 * 1024, 'samples after the peak: %r' % [x['rss_kib'] for x in after])
check(all(x['threads'] == 1 for x in s), 'threads')
cpu = [x['utime_s'] + x['stime_s'] for x in s]
check(cpu == sorted(cpu), 'cumulative CPU went down')
check(cpu[-1] <= p['utime_s'] + p['stime_s'] + 1e-9, 'sampled CPU above the exit total')
# samples are written only on change: no two consecutive samples equal
keys = [(x['utime_s'], x['stime_s'], x['rss_kib'], x['threads'], x['read_bytes'], x['write_bytes']) for x in s]
check(all(a != b for a, b in zip(keys, keys[1:])), 'an unchanged sample was written')
"
# without --samples the key is absent
"$A" export --format jsonl peak.tz | grep -q '"samples"' && fail "samples without --samples"

# host samples: present, sane
"$A" cat --type host_sample peak.tz >host.txt || fail "cat host_sample"
python3 - host.txt "$(nproc)" "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" <<'PY' || fail "host samples"
import re, sys
rows = []
for l in open(sys.argv[1]):
    d = dict(re.findall(r'(\w+)=(\d+)', l))
    rows.append({k: int(v) for k, v in d.items()})
ncpu, total = int(sys.argv[2]), int(sys.argv[3])
assert len(rows) >= 10, "only %d host samples" % len(rows)
for r in rows:
    assert r['mem_total_kib'] == total, r
    assert 0 < r['mem_available_kib'] <= total and 0 < r['mem_used_kib'] < total, r
    # (MemFree may exceed MemAvailable: available subtracts the kernel's reserves)
    assert 0 < r['mem_free_kib'] <= total, r
    assert r['ncpus'] == ncpu, r
for a, b in zip(rows, rows[1:]):
    for k in ('cpu_user_ns', 'cpu_system_ns', 'cpu_idle_ns', 'disk_read_bytes', 'net_rx_bytes'):
        assert b[k] >= a[k], (k, a[k], b[k])
# CPU time advances by about ncpus x wall time between the first and last
busy = lambda r: sum(r[k] for k in r if k.startswith('cpu_') and k.endswith('_ns'))
assert busy(rows[-1]) > busy(rows[0]), "cpu counters do not move"
# (host memory use is not compared with the 200 MiB: other jobs share the host)
PY
"$A" summary peak.tz >summary.txt || fail "summary"
grep -q '^memory     host peak ' summary.txt || fail "no host memory line: $(cat summary.txt)"

# plots draw the samples: the mem plot's peak is the sampled 200 MiB
"$A" plot --kind mem --script mem.gp -o mem.png peak.tz || fail "plot mem"
grep -q 'from periodic samples' mem.gp || fail "mem plot does not use the samples"
awk '/^\$S << EOD/ {on = 1; next} /^EOD/ {on = 0} on && $3 > m {m = $3} END {exit !(m > 195 && m < 215)}' mem.gp ||
	fail "mem plot peak not near 200 MiB"
"$A" plot --kind cpu --script cpu.gp -o cpu.png peak.tz || fail "plot cpu"
grep -q 'from periodic samples' cpu.gp || fail "cpu plot does not use the samples"

# a process of 3 threads burning 1.5 CPU-s each: samples count the live
# threads and sum their CPU (cumulative, never above the exit total)
record -o burn.tz --sample-interval 0.25 -- $W burn 1.5 3 || fail "recording the burner exited $?"
timeout 60 "$A" export --format jsonl --samples burn.tz >burn.jsonl || fail "export burn"
pycheck burn.jsonl "
p = one(by_exe('$W'), 'burner')
s = p['samples']
check(len(s) >= 2, 'only %d samples' % len(s))
check(max(x['threads'] for x in s) == 3, 'threads %r' % [x['threads'] for x in s])
cpu = [x['utime_s'] + x['stime_s'] for x in s]
check(cpu == sorted(cpu), 'cumulative CPU went down: %r' % cpu)
total = p['utime_s'] + p['stime_s']
check(4.4 <= total <= 4.8, 'exit CPU %r' % total)
check(cpu[-1] <= total + 1e-9, 'sampled CPU %r above the exit total %r' % (cpu[-1], total))
# while all three burn, CPU grows faster than one core (2 CPUs here; others may share them)
check(cpu[-1] > 1.0, 'last sample only %r CPU-s' % cpu[-1])
"

# chrome export: the samples as an rss counter track, host counters
timeout 60 "$A" export --format chrome peak.tz >peak.json || fail "export chrome"
python3 - peak.json <<'PY' || fail "chrome counters"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rss = [e["args"]["rss"] for e in ev if e["ph"] == "C" and e["name"] == "rss MiB"]
assert rss and 200 <= max(rss) <= 210, rss
host = [e for e in ev if e["ph"] == "C" and e["name"] == "host memory used MiB"]
assert len(host) >= 10, len(host)
PY

# --sample-interval 0: no samples at all, OOM/signal events still armed
record -o none.tz --sample-interval 0 -- $M peak 1 0.3 0.3 || fail "recording exited $?"
n=$("$A" cat --type sample,host_sample none.tz | wc -l)
[ "$n" = 0 ] || fail "--sample-interval 0 wrote $n samples"
"$A" plot --kind mem --script none.gp -o none.png none.tz || fail "plot mem without samples"
grep -q 'no periodic samples' none.gp || fail "a trace without samples is not drawn from exit totals"
"$A" info none.tz >info.txt || fail "info"
grep -Eq '^ +sample_interval_ns +0$' info.txt || fail "no sample_interval_ns 0 metadata"
# bad values are usage errors
for bad in -1 0.001 abc 4000; do
	rc=0; "$R" -o bad.tz --sample-interval "$bad" -- true 2>/dev/null || rc=$?
	[ $rc = 2 ] || fail "--sample-interval $bad: exit $rc, want 2"
	[ ! -e bad.tz ] || fail "--sample-interval $bad left a file"
done
echo ok
