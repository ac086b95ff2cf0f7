#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A task's memory is its tools', not its launcher's: a python3 parent that
# holds ~100 MiB starts two small tools (casework hwm: touches N MiB, prints
# its own VmHWM from /proc/self/status), one with subprocess.run (vfork +
# exec, as Snakemake's and cwltool's Popen) and one with os.fork, a 1.5 s
# pause in the forked copy of the 100 MiB parent (sampled every 0.2 s), then
# os.execv. The kernel's process peak of each tool (wait4's ru_maxrss)
# includes the parent's image it ran before its exec; the task (--task
# casework: one task per tool) must not: its combined peak (top --by task
# task_peak_rss_kib, export --tasks peak_rss and peak_rss_exit_max) equals
# the tool's own VmHWM within twice the per-CPU RSS batch (as 26), far below
# the parent's 100 MiB, and rightsize's peak for the task name is that too;
# diff --by task shows top's task peak.
# The per-process views keep the kernel's peak (export peak_rss_kib >= the
# parent's 100 MiB for the forked tool): a contract (wait4's ru_maxrss).
. "$(dirname "$0")/lib.sh"
need_root casework
need_prepare_exec
C=$H/casework
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

cat > parent.py <<EOF
import os, subprocess, sys, time
big = bytearray(b"\1") * (100 << 20)   # written: resident
sys.stdout.flush()
subprocess.run(["$C", "hwm", "8"], check=True)
pid = os.fork()
if pid == 0:
    time.sleep(1.5)                     # samples see the 100 MiB copy
    os.execv("$C", ["$C", "hwm", "16"])
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
EOF
record -o own.tz --sample-interval 0.2 -- python3 parent.py >own.out || fail "record"
cat own.out
[ "$(grep -c '^hwm ' own.out)" = 2 ] || fail "want two hwm lines: $(cat own.out)"
export_jsonl own.tz procs.jsonl
timeout 120 "$A" export --tasks --task casework --format jsonl own.tz >tasks.jsonl 2>tasks.err ||
	fail "export --tasks: $(cat tasks.err)"
timeout 120 "$A" top --by task --task casework --json own.tz >top.json 2>/dev/null || fail "top --by task"
timeout 120 "$A" rightsize --task casework --json own.tz >rs.json 2>rs.err || fail "rightsize: $(cat rs.err)"
timeout 120 "$A" diff --by task --task casework --json own.tz own.tz >diff.json 2>/dev/null || fail "diff --by task"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
hwms=$(awk '$1 == "hwm" { printf "%s(%s,%s)", s, $2, $3; s = "," }' own.out)
pycheck procs.jsonl "
import json
slack = 2 * max(32, 2 * $ncpu) * 4 * $ncpu
hwm = dict([$hwms])
tasks = {byid[t['root']]['pid']: t for t in map(json.loads, open('tasks.jsonl'))}
check(sorted(tasks) == sorted(hwm), 'task roots %r, want the tools %r' % (sorted(tasks), sorted(hwm)))
top = {r['tool']: r for r in json.load(open('top.json'))}
rs = json.load(open('rs.json'))['rules']
for pid, h in hwm.items():
    t = tasks.get(pid)
    if t is None:
        continue
    p = one([q for q in procs if q['pid'] == pid], 'tool %d' % pid)
    print('  tool %d: VmHWM %d KiB; process peak %r KiB; task peak_rss %r B, exit max %r B' %
          (pid, h, p['peak_rss_kib'], t['peak_rss'], t['peak_rss_exit_max']))
    check(p['peak_rss_kib'] >= 100 * 1024,
          'tool %d: process peak %r KiB: not the kernel peak with the parent copy' % (pid, p['peak_rss_kib']))
    for k in ('peak_rss', 'peak_rss_exit_max', 'peak_rss_exit_sum'):
        check(t[k] is not None and abs(t[k] // 1024 - h) <= slack,
              'tool %d: task %s %r KiB vs its VmHWM %d KiB' % (pid, k, t[k] and t[k] // 1024, h))
    r = top.get(t['key'])
    check(r is not None and abs(r['task_peak_rss_kib'] - h) <= slack,
          'top --by task %r: %r vs VmHWM %d KiB' % (t['key'], r, h))
    d = [g for g in json.load(open('diff.json'))['groups'] if g['tool'] == t['key']]
    check(len(d) == 1 and r is not None and d[0]['peak_rss_a_kib'] == r['task_peak_rss_kib'],
          'diff --by task %r: %r, want top task_peak_rss_kib %r' % (t['key'], d, r and r['task_peak_rss_kib']))
check(len(rs) >= 1, 'rightsize: no rule: %r' % rs)
for r in rs:
    check(r['peak_rss_bytes'] is not None and r['peak_rss_bytes'] // 1024 <= max(hwm.values()) + slack,
          'rightsize %r: peak %r B above the tools VmHWM %r KiB' % (r['name'], r['peak_rss_bytes'], hwm))
"
echo "ok"
