#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# I/O of a process is its own (issue 15 point 4): rchar, wchar, syscr, syscw,
# read_bytes, write_bytes and cancelled_write_bytes of every recorded process
# equal what the process read from its own /proc/self/io just before exiting
# and before reaping any child (tests/helpers/iowork.c), whoever reaps its
# children and whenever: the parent, a subreaper, init after the parent
# exited, nobody while the parent runs (it exec'd into a program that never
# waits), the kernel (SIGCHLD ignored, SA_NOCLDWAIT), a child with a
# non-SIGCHLD exit signal; and threads that exit before, after or together
# with the main thread, and a process whose second thread exec'd (it takes
# over the main thread's tid and start time) and then exits before another.
# C17: writes through a shared mapping are write_bytes, not wchar; C18:
# cancelled_write_bytes go to whoever truncates the dirty pages.
. "$(dirname "$0")/lib.sh"
need_root
IW=$H/iowork
[ -x "$IW" ] || { echo "skip: $IW not built"; exit 77; }
cd "$T"
SHM=$(mktemp -d /dev/shm/tracer-io.XXXXXX)
trap '_cleanup; rm -rf "$SHM"' EXIT
mkdir data

# mode, number of processes that report
for spec in reap:2 subreaper:3 orphan:2 execnowait:2 sigign:2 nocldwait:2 clonesig:2 \
	threads:1 leaderfirst:1 execthread:1 mmap:1 unlinkself:1 unlinkother:3; do
	mode=${spec%:*} want=${spec#*:}
	rep=$SHM/$mode.txt
	rm -f "$rep"
	# the command ends when every process reported and exited (orphans
	# outlive iowork itself)
	record -o $mode.tz -- sh -c "$IW $mode $rep $T/data || exit 1
		for i in \$(seq 500); do
			[ \$(grep -c '^io' $rep) -ge $want ] && break; sleep 0.02
		done
		sleep 0.3" || fail "$mode: record failed"
	[ "$(grep -c '^io' "$rep")" = "$want" ] || fail "$mode: $(grep -c '^io' "$rep") reports, want $want"
	export_jsonl $mode.tz $mode.jsonl
	pycheck $mode.jsonl "
keys = ['rchar', 'wchar', 'syscr', 'syscw', 'read_bytes', 'write_bytes', 'cancelled_write_bytes']
lines = [l.split() for l in open('$rep') if l.startswith('io')]
for f in lines:
    pid = int(f[1])
    truth = dict(zip(keys, map(int, f[2:9])))
    p = one([q for q in procs if q['pid'] == pid and q['exit_code'] is not None], 'pid %d' % pid)
    got = {k: p[k] for k in keys}
    check(got == truth, '$mode: pid %d (%s): recorded %r, its /proc/self/io %r' % (pid, p['argv'], got, truth))
    check(p['io_exact'] is True, '$mode: pid %d: io_exact %r' % (pid, p.get('io_exact')))
# at least one process wrote a file: write_bytes are never another's
check(sum(int(f[7]) for f in lines) > 0, '$mode: no write_bytes at all')
MiB16 = 16 << 20
mine = {int(f[1]): dict(zip(keys, map(int, f[2:9]))) for f in lines}
if '$mode' == 'mmap':
    # C17: storage writes through a shared mapping, no write syscall but
    # the report's own line
    (io,) = mine.values()
    check(io['write_bytes'] >= MiB16 and io['wchar'] == 161 and io['syscw'] == 1,
          'mmap: write_bytes %d wchar %d syscw %d' % (io['write_bytes'], io['wchar'], io['syscw']))
if '$mode' == 'unlinkself':
    # C18a: the writer truncated its own dirty pages
    (io,) = mine.values()
    check(io['cancelled_write_bytes'] == MiB16, 'unlinkself: cancelled %d' % io['cancelled_write_bytes'])
if '$mode' == 'unlinkother':
    # C18b: the unlinker is charged, never the writer (nor the parent)
    got = sorted(io['cancelled_write_bytes'] for io in mine.values())
    wr = sorted(io['write_bytes'] for io in mine.values())
    check(got == [0, 0, MiB16], 'unlinkother: cancelled %r' % got)
    check(wr[-1] >= MiB16, 'unlinkother: the writer wrote %r' % wr)
"
done
echo ok
