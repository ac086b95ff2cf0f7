#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Threads the kernel creates inside a process (issue 15 point 5): io_uring's
# io-wq workers (iou-wrk-N) and SQPOLL thread (iou-sqp-N) pass no fork
# tracepoint, yet count in `threads` (every thread passes the exit
# tracepoint), their CPU is the process's, and the exit event names the
# process (its main thread's comm) even when such a thread exits last.
# Truth (tests/helpers/uringwork.c): the distinct thread ids the process saw
# in /proc/self/task, and utime + stime of its /proc/self/stat just before
# it exits.
. "$(dirname "$0")/lib.sh"
need_root
UW=$H/uringwork
[ -x "$UW" ] || { echo "skip: $UW not built"; exit 77; }
cd "$T"
hz=$(getconf CLK_TCK)

for mode in wq sqpoll; do
	rm -f rep.txt
	rc=0
	record -o $mode.tz -- "$UW" $mode "$T/rep.txt" || rc=$?
	[ $rc = 77 ] && { echo "skip: io_uring unavailable"; exit 77; }
	[ $rc = 0 ] || fail "$mode: record failed ($rc)"
	read -r tag pid n ticks <rep.txt || fail "$mode: no report"
	[ "$tag" = threads ] || fail "$mode: bad report $(cat rep.txt)"
	export_jsonl $mode.tz $mode.jsonl
	pycheck $mode.jsonl "
p = one([q for q in procs if q['pid'] == $pid], 'uringwork')
check(p['threads'] == $n, '$mode: threads %r, the process saw %d in /proc/self/task' % (p['threads'], $n))
check($n >= (3 if '$mode' == 'wq' else 4), '$mode: only %d threads seen: no kernel-created thread' % $n)
check(p['comm'] == 'uringwork', '$mode: comm at exit %r' % p['comm'])
cpu = p['utime_s'] + p['stime_s']
# /proc/self/stat's ticks are cut down to whole ticks, and the threads
# still ran after it was read
check(cpu >= $ticks / $hz - 2.0 / $hz, '$mode: CPU %.3f s, /proc/self/stat said %.3f s' % (cpu, $ticks / $hz))
"
done
echo ok
