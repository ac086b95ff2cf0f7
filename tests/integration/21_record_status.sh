#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Exit status versus terminating signal (C02), threads are not processes
# (C01), CPU time summed over threads, bytes written, peak RSS of the image
# itself (a /bin/true child of a 100 MiB process is small).
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"

# --- C02: exit(77); SIGKILL while sleeping; SIGSEGV with a core; exit(259)
cat >c02.sh <<EOS
ulimit -c unlimited
$W exit 77
$W sleep 30 & p=\$!
while [ "\$(readlink /proc/\$p/exe)" != "$W" ]; do sleep 0.05; done
kill -9 \$p; wait \$p
$W segv
$W exit 259
exit 0
EOS
record -o c02.tz -- sh c02.sh || fail "record c02"
export_jsonl c02.tz c02.jsonl
pycheck c02.jsonl "
w = by_exe('$W')
check(len(w) == 4, '%d recwork processes, want 4' % len(w))
r = {p['argv'][1]: p for p in w}
check(r['exit']['exit_code'] is not None, 'exit missing')
e77 = one([p for p in w if p['argv'] == ['$W', 'exit', '77']])
check(e77['exit_code'] == 77 and e77['signal'] is None and not e77['core_dumped'], 'exit 77: %r' % e77)
k = r['sleep']
check(k['signal'] == 9 and k['exit_code'] is None and not k['core_dumped'], 'SIGKILL: %r %r' % (k['signal'], k['exit_code']))
s = r['segv']
check(s['signal'] == 11 and s['exit_code'] is None and s['core_dumped'] is True, 'SIGSEGV: %r %r %r' % (s['signal'], s['exit_code'], s['core_dumped']))
e3 = one([p for p in w if p['argv'] == ['$W', 'exit', '259']])
check(e3['exit_code'] == 3 and e3['signal'] is None, 'exit 259: %r' % e3['exit_code'])
"

# --- C01: 50 short threads: one process, threads = 51, no children
record -o c01.tz -- "$W" threads 50 || fail "record c01"
export_jsonl c01.tz c01.jsonl
pycheck c01.jsonl "
p = one(procs, 'threads')
check(p['threads'] == 51, 'threads %r, want 51' % p['threads'])
check(p['exit_code'] == 0, 'exit %r' % p['exit_code'])
check(kids(p) == [], 'threads became child processes')
"

# --- exec from a non-leader thread; a leader that exits before the process
record -o thr.tz -- sh -c "$W threadexec; $W leaderexit 6; exit 0" || fail "record thr"
export_jsonl thr.tz thr.jsonl
pycheck thr.jsonl "
te = one([p for p in procs if p['argv'] == ['$W', 'threadexec']] + by_exe('/usr/bin/true'), 'thread exec')
check([e['exe'] for e in te['execs']] == ['$W', '/usr/bin/true'], 'images %r' % te['execs'])
check(te['exit_code'] == 0 and te['threads'] == 2, 'exit %r threads %r' % (te['exit_code'], te['threads']))
le = one([p for p in procs if p['argv'] == ['$W', 'leaderexit', '6']], 'leader exit')
check(le['exit_code'] == 6 and le['signal'] is None, 'exit %r, want 6 (the group exit, not the leader)' % le['exit_code'])
check(le['end_s'] - le['start_s'] >= 0.29, 'ended at the leader exit: %r' % (le['end_s'] - le['start_s']))
check(le['threads'] == 2, 'threads %r' % le['threads'])
"
"$A" cat --type exec thr.tz >thr.txt || fail "cat thr.tz"
grep '"/usr/bin/true"' thr.txt >thr1.txt || fail "no exec of true"
python3 - thr1.txt <<'PY' || fail "exec from a thread: old_pid is the tgid"
import re, sys
l = open(sys.argv[1]).read()
tgid = int(re.search(r' tgid=(\d+)', l).group(1))
old = int(re.search(r' old_pid=(\d+)', l).group(1))
assert old != tgid, (old, tgid)
PY

# --- CPU burner: 4 threads x 0.5 s of user CPU (2 cores: takes ~1 s)
record -o burn.tz -- "$W" burn 0.5 4 || fail "record burn"
export_jsonl burn.tz burn.jsonl
pycheck burn.jsonl "
p = one(procs, 'burner')
check(p['threads'] == 4, 'threads %r, want 4' % p['threads'])
cpu = p['utime_s'] + p['stime_s']
check(near(cpu, 2.0, 0.10), 'utime+stime %.3f s, want 2.0 +-10%%' % cpu)
check(near(p['utime_s'], 2.0, 0.15), 'utime %.3f s, want ~2.0' % p['utime_s'])
"

# --- bytes written: wchar is exactly what write(2) moved; syscw the calls
record -o write.tz -- "$W" write 10000000 "$T/out.bin" || fail "record write"
export_jsonl write.tz write.jsonl
pycheck write.jsonl "
p = one(procs, 'writer')
check(p['wchar'] == 10000000, 'wchar %r, want 10000000' % p['wchar'])
check(p['syscw'] == 153, 'syscw %r, want 153 (10e6 / 64 KiB rounded up)' % p['syscw'])
"

# --- a child's I/O is not its parent's (the kernel folds it in at wait4)
record -o io.tz -- sh -c "$W write 3000000 $T/o1; $W write 1000000 $T/o2" || fail "record io"
export_jsonl io.tz io.jsonl
pycheck io.jsonl "
sh = one(by_exe('/usr/bin/dash'), 'sh')
check(sh['wchar'] == 0, 'sh wchar %r includes its children' % sh['wchar'])
got = sorted(p['wchar'] for p in by_exe('$W'))
check(got == [1000000, 3000000], 'children wchar %r' % got)
"

# --- peak RSS: 100 MiB touched; its /bin/true child's image has its own few
# MiB, the child's process peak is the 100 MiB of its fork's copy of the
# parent before the exec (the kernel's ru_maxrss, which wait4 reports)
record -o rss.tz -- "$W" touch 100 /bin/true || fail "record rss"
export_jsonl rss.tz rss.jsonl
pycheck rss.jsonl "
big = one(by_exe('$W'), 'toucher')
t = one(by_exe('/usr/bin/true'), 'true')
check(102400 <= big['peak_rss_kib'] <= 102400 + 8192, 'peak rss %r KiB, want 100 MiB + a few' % big['peak_rss_kib'])
own = t['execs'][-1]['peak_rss_kib']
check(own is not None and 256 <= own <= 4096, 'true image peak rss %r KiB, want its own 1-4 MiB' % own)
check(102400 <= t['peak_rss_kib'] <= 102400 + 8192, 'true process peak rss %r KiB, want the fork copy 100 MiB + a few' % t['peak_rss_kib'])
check(t['parent_id'] == big['id'], 'parent of true')
"
echo ok
