#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Peak RSS across an exec chain: each image's own peak (export's execs[]
# peak_rss_kib: the next exec's prev_maxrss_kib, the last image's from the
# exit) against VmHWM the image read of itself just before it exec'd (or
# exited), and the process's peak (peak_rss_kib, tree's rss) against the
# ru_maxrss wait4() gave its parent. The chain touches 64, 8, 32 and 4 MiB:
# the 8 MiB image sits below the running maximum (signal->maxrss cannot
# tell its own peak), the last image is small (the process's peak is not
# its last image's). top charges the tool (every image here is casework's)
# with its images' largest own peak.
. "$(dirname "$0")/lib.sh"
need_root casework
need_prepare_exec
C=$H/casework
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

record -o chain.tz --sample-interval 0 -- \
	"$C" reap "$C" hwmexec 64 "$C" hwmexec 8 "$C" hwmexec 32 "$C" hwm 4 >chain.out ||
	fail "record chain"
export_jsonl chain.tz chain.jsonl
# the kernel has the tracepoint (checked above): the recorder says it attached
# its program, in the metadata info lists
src=$("$A" info --json chain.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"].get("image_rss_source"))') ||
	fail "info --json chain.tz"
[ "$src" = tp_btf/sched_prepare_exec ] || fail "metadata image_rss_source: '$src', want tp_btf/sched_prepare_exec"
"$A" info chain.tz >info.txt || fail "info chain.tz"
grep -qE '^  image_rss_source +tp_btf/sched_prepare_exec$' info.txt || fail "info: no image_rss_source line"
cat chain.out
read -r _ rpid _ rumax <<<"$(grep '^reaped' chain.out)"
# one VmHWM per image, in exec order
hwms=$(awk '$1 == "hwmexec" || $1 == "hwm" { printf "%s%s", s, $3; s = "," }' chain.out)
pids=$(awk '$1 == "hwmexec" || $1 == "hwm" { print $2 }' chain.out | sort -u | wc -l)
[ "$pids" = 1 ] || fail "the chain ran in $pids processes, not one"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
"$A" tree chain.tz >tree.txt || fail "tree"
"$A" top --json chain.tz >top.json || fail "top --json"
pycheck chain.jsonl "
import json
hwm = [$hwms]
p = one([q for q in procs if q['pid'] == $rpid], 'chain')
# VmHWM, ru_maxrss and the recorder read the per-CPU RSS counters at
# different moments: they agree within twice the per-CPU batch (as C23)
slack = 2 * max(32, 2 * $ncpu) * 4 * $ncpu
ex = p['execs']
check(len(ex) == 4, '%d images, want 4' % len(ex))
for i, (e, h) in enumerate(zip(ex, hwm)):
    got = e['peak_rss_kib']
    print('  image %d: peak %r KiB, its VmHWM %d' % (i, got, h))
    check(got is not None and abs(got - h) <= slack,
          'image %d: peak %r KiB vs VmHWM %d KiB' % (i, got, h))
check(ex[1]['peak_rss_kib'] is not None and ex[1]['peak_rss_kib'] < 16 * 1024,
      'the 8 MiB image peaks at %r KiB: not its own' % ex[1]['peak_rss_kib'])
got = p['peak_rss_kib']
print('  process: peak %d KiB, wait4 ru_maxrss %d, bound %d' % (got, $rumax, slack))
check(got >= 64 * 1024, 'process peak %d KiB below the 64 MiB touched' % got)
check(abs(got - $rumax) <= slack, 'process peak %d KiB vs ru_maxrss %d KiB' % (got, $rumax))
check(ex[-1]['maxrss_before_kib'] >= 64 * 1024,
      'last exec: maxrss_before_kib %r below 64 MiB' % ex[-1]['maxrss_before_kib'])
# tree prints the process's peak and the last image's beside it
line = [l for l in open('tree.txt') if (' %d ' % $rpid) in ' ' + l]
check(len(line) == 1 and '(last image ' in line[0], 'tree line: %r' % line)
# top: the tool (named by the chain's first image) has the chain's peak
top = json.load(open('top.json'))
rows = top['tools'] if isinstance(top, dict) else top
g = [r for r in rows if r.get('peak_rss_kib', 0) >= 64 * 1024]
check(len(g) == 1 and g[0]['peak_rss_kib'] == ex[0]['peak_rss_kib'],
      'top: tools at >= 64 MiB: %r, want one at %r' % ([(r.get('tool'), r['peak_rss_kib']) for r in g], ex[0]['peak_rss_kib']))
"
echo "ok"
