#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Exec records: argv from the new image (C03), long command lines (C04),
# exact argument bytes (C05), failed execs (C09), #! scripts (C10), comm is
# not identity (C11), binary identity edge cases (C12), setuid (C16).
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
chmod 755 "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# --- C03: execve with literal, never-touched argv, 1000 times
record -o c03.tz -- "$W" execls 1000 || fail "record c03"
export_jsonl c03.tz c03.jsonl
pycheck c03.jsonl "
ls = [p for p in procs if p['exe'] == '/usr/bin/ls']
check(len(ls) == 1000, '%d ls, want 1000' % len(ls))
bad = [p['argv'] for p in ls if p['argv'] != ['/bin/ls', '-la', '/tmp']]
check(not bad, '%d bad argv, e.g. %r' % (len(bad), bad[:3]))
"

# --- C04: 100 KiB argument, 5000 arguments, a 300+ character path
big=$(head -c 102400 /dev/zero | tr '\0' x)
many=$(seq 5000 | sed 's/.*/y/' | tr '\n' ' ')
d=$T/$(printf 'd%.0s' $(seq 120))/$(printf 'e%.0s' $(seq 120))/$(printf 'f%.0s' $(seq 100))
mkdir -p "$d"
cp /bin/echo "$d/echo"
cat >c04.sh <<EOS
/bin/echo $big >/dev/null
/bin/echo $many >/dev/null
$d/echo x y z >/dev/null
EOS
for lim in default 128K; do
	opt=(); [ $lim = default ] || opt=(--argv-max $lim)
	record -o c04-$lim.tz "${opt[@]}" -- sh c04.sh || fail "record c04 $lim"
	export_jsonl c04-$lim.tz c04-$lim.jsonl
	pycheck c04-$lim.jsonl "
lim = 4096 if '$lim' == 'default' else 131072
def expect(args):
    real = b''.join(a + b'\0' for a in args)
    pre = real[:lim]
    lst = pre.split(b'\0')
    if lst and lst[-1] == b'' and pre.endswith(b'\0'):
        lst = lst[:-1]
    return real, lst
cases = [[b'/bin/echo', b'x' * 102400], [b'/bin/echo'] + [b'y'] * 5000,
         [b'$d/echo', b'x', b'y', b'z']]
echos = [p for p in procs if p['exe'] in ('/usr/bin/echo', '$d/echo')]
check(len(echos) == 3, '%d echo processes' % len(echos))
for args, p in zip(cases, sorted(echos, key=lambda p: p['start_s'])):
    real, lst = expect(args)
    got = [raw(a) for a in p['argv']]
    ex = p['execs'][-1]
    check(ex['argc'] == len(args), 'argc %r, want %d' % (ex['argc'], len(args)))
    check(ex['argv_size'] == len(real), 'argv_size %r, want %d' % (ex['argv_size'], len(real)))
    trunc = len(real) > lim
    check(p['argv_truncated'] == trunc, 'truncated %r, want %r (%d bytes)' % (p['argv_truncated'], trunc, len(real)))
    check(got == lst, 'argv is not the exact prefix (%d args, want %d)' % (len(got), len(lst)))
p = one(by_exe('$d/echo'), 'long-path echo')
check(p['argv'] == ['$d/echo', 'x', 'y', 'z'], 'long path argv %r' % p['argv'][1:])
"
done

# --- C05: argument bytes survive exactly
record -o c05.tz -- "$W" printf || fail "record c05"
export_jsonl c05.tz c05.jsonl
pycheck c05.jsonl "
p = one(by_exe('/usr/bin/printf'), 'printf')
want = [b'printf', b'a b', b'', b'x\ny', b'\xff\xfe', b'\x01', b'end']
check([raw(a) for a in p['argv']] == want, 'argv bytes %r' % p['argv'])
check(p['execs'][-1]['argc'] == 7, 'argc %r' % p['execs'][-1]['argc'])
"

# --- C09: failed execs are attempts, never images (--exec-failures: syscall
# tracepoints, and the raw sys_exit fallback of kernels without syscall
# events; by default they are not recorded and no syscall hook is attached)
c09='
env = one([p for p in procs if p["execs"] and p["execs"][0]["exe"] == "/usr/bin/env"], "env")
check([e["exe"] for e in env["execs"]] == ["/usr/bin/env", "/usr/bin/sleep"], "env images %r" % [e["exe"] for e in env["execs"]])
fl = [(f["filename"], f["errno"]) for f in env["failed_execs"]]
check(fl == [("/nx1/sleep", 2), ("/nx2/sleep", 2), ("/nx3/sleep", 2)], "env failed execs %r" % fl)
c = one([p for p in procs if p["execs"] and p["execs"][0]["exe"] == W], "execfail")
check([e["exe"] for e in c["execs"]] == [W, "/usr/bin/true"], "images %r" % [e["exe"] for e in c["execs"]])
check([(f["filename"], f["errno"]) for f in c["failed_execs"]] == [("/no/such/file", 2)], "failed %r" % c["failed_execs"])
check(c["exit_code"] == 0, "exit %r" % c["exit_code"])
check(len(procs) == 3, "%d processes, want 3 (a failed exec made a process?)" % len(procs))
'
# syscall_progs [OPTION...]: the syscall-exit programs a recorder run with
# these options attaches (read from its link fds while it records, named by
# bpftool), sorted, on one line
syscall_progs() {
	record -f -o progs.tz "$@" -- sh -c '
		for f in /proc/$PPID/fdinfo/*; do
			grep -qs "^link_type" "$f" && sed -n "s/^prog_id:[[:space:]]*//p" "$f"
		done | while read -r id; do
			bpftool prog show id "$id" | sed -n "s/.* name \([^ ]*\) .*/\1/p"
		done' >progs.txt || fail "record syscall_progs $*"
	{ grep -E '^(tp_exit_exec|raw_sys_exit)' progs.txt || true; } | sort | tr '\n' ' ' | sed 's/ $//'
}
command -v bpftool >/dev/null || fail "bpftool missing (a build dependency)"
for src in tracepoint raw_tp; do
	TRACER_RECORD_SYSCALL_SOURCE=$src record --exec-failures -o c09-$src.tz -- sh -c "env PATH=/nx1:/nx2:/nx3:/usr/bin sleep 0; $W execfail" ||
		fail "record c09 $src"
	"$A" info c09-$src.tz >info.txt || fail "info c09-$src.tz"
	grep -Eq "syscall_source +$src\$" info.txt || fail "c09: syscall source is not $src"
	grep -Eq "exec_failures +on\$" info.txt || fail "c09: exec_failures is not on"
	want=$([ $src = tracepoint ] && echo "tp_exit_execve tp_exit_execveat" || echo raw_sys_exit)
	got=$(TRACER_RECORD_SYSCALL_SOURCE=$src syscall_progs --exec-failures)
	[ "$got" = "$want" ] || fail "c09 $src: syscall programs '$got', want '$want'"
	export_jsonl c09-$src.tz c09-$src.jsonl
	pycheck c09-$src.jsonl "W = '$W'
$c09"
done

# default: the same run records no failed exec and hooks no syscall (a
# syscall tracepoint would slow every syscall of the host); env still has
# exactly its two images
record -o c09-off.tz -- sh -c "env PATH=/nx1:/nx2:/nx3:/usr/bin sleep 0; $W execfail" ||
	fail "record c09 default"
"$A" info c09-off.tz >info.txt || fail "info c09-off.tz"
grep -Eq "exec_failures +off\$" info.txt || fail "c09 default: exec_failures is not off"
! grep -q syscall_source info.txt || fail "c09 default: a syscall source is named"
got=$(syscall_progs)
grep -qx handle_exec progs.txt || fail "c09 default: the recorder's programs were not listed: $(cat progs.txt)"
[ -z "$got" ] || fail "c09 default: syscall programs attached: $got"
"$A" summary c09-off.tz >sum.txt || fail "summary c09-off.tz"
grep -q '^execs .*failed execs not recorded (tracer-record --exec-failures)$' sum.txt ||
	fail "c09 default: summary: $(grep '^execs' sum.txt)"
export_jsonl c09-off.tz c09-off.jsonl
pycheck c09-off.jsonl "W = '$W'
env = one([p for p in procs if p['execs'] and p['execs'][0]['exe'] == '/usr/bin/env'], 'env')
check([e['exe'] for e in env['execs']] == ['/usr/bin/env', '/usr/bin/sleep'], 'env images %r' % env['execs'])
check(all(p['failed_execs'] == [] for p in procs), 'failed execs recorded by default')
c = one([p for p in procs if p['execs'] and p['execs'][0]['exe'] == W], 'execfail')
check([e['exe'] for e in c['execs']] == [W, '/usr/bin/true'], 'images %r' % c['execs'])
"

# --- C10: #! scripts keep interpreter and script
printf '#!/bin/sh\nsleep 0.2\n' >run.sh
printf '#!/usr/bin/env python3\nimport time\ntime.sleep(0.1)\n' >p.py
chmod +x run.sh p.py
record -o c10.tz -- sh -c './run.sh a b; ./p.py' || fail "record c10"
export_jsonl c10.tz c10.jsonl
pycheck c10.jsonl "
r = one([p for p in procs if p['argv'][:2] == ['/bin/sh', './run.sh']], 'run.sh')
check(r['exe'] == '/usr/bin/dash', 'run.sh exe %r' % r['exe'])
check(r['argv'] == ['/bin/sh', './run.sh', 'a', 'b'], 'run.sh argv %r' % r['argv'])
check(r['script'] == '$T/run.sh', 'run.sh script %r' % r['script'])
py = one([p for p in procs if p['argv'][-1:] == ['./p.py']], 'p.py')
ex = py['execs']
check(ex[0]['exe'] == '/usr/bin/env' and ex[0]['script'] == '$T/p.py', 'first image %r' % ex[0])
check(ex[-1]['exe'].startswith('/usr/bin/python3'), 'final image %r' % ex[-1]['exe'])
check(py['argv'] == ['python3', './p.py'], 'final argv %r' % py['argv'])
"

# --- C11: comm truncation and renames never decide identity
cp "$W" x86_64-linux-gnu-as
cp "$W" x86_64-linux-gnu-ld
record -o c11.tz -- sh -c "./x86_64-linux-gnu-as burn 0.5 1; ./x86_64-linux-gnu-ld burn 1 1; $W rename renamed 0.3" || fail "record c11"
export_jsonl c11.tz c11.jsonl
pycheck c11.jsonl "
a = one(by_exe('$T/x86_64-linux-gnu-as'), 'as')
l = one(by_exe('$T/x86_64-linux-gnu-ld'), 'ld')
check(a['comm'] == l['comm'] == 'x86_64-linux-gn', 'comm %r %r' % (a['comm'], l['comm']))
check(near(a['utime_s'] + a['stime_s'], 0.5, 0.2) and near(l['utime_s'] + l['stime_s'], 1.0, 0.2), 'cpu %r %r' % (a['utime_s'], l['utime_s']))
r = one(by_exe('$W'), 'renamer')
check(r['execs'][-1]['comm'] == 'recwork', 'comm at exec %r' % r['execs'][-1]['comm'])
check(r['comm'] == 'renamed', 'comm at exit %r' % r['comm'])
"

# --- C12: binary identity edge cases
cp /usr/bin/sleep "$T/sl"
ld=/lib64/ld-linux-x86-64.so.2
cat >c12.sh <<EOS
(cd /usr/bin && ./true)
$ld /usr/bin/sleep 0.1
$T/sl 1 & p=\$!
while [ "\$(readlink /proc/\$p/exe)" != "$T/sl" ]; do sleep 0.05; done
rm $T/sl; wait
$W memfd
$W emptyargv </dev/null
$W argv0 sshd /usr/bin/sleep 0.1
EOS
record -o c12.tz -- sh c12.sh || fail "record c12"
export_jsonl c12.tz c12.jsonl
pycheck c12.jsonl "
t = one(by_exe('/usr/bin/true'), 'true')
check(t['argv'] == ['./true'], 'a: argv %r' % t['argv'])
ldp = one([p for p in procs if p['argv'][:2] == ['$ld', '/usr/bin/sleep']], 'loader')
check(ldp['exe'] == '$(readlink -f $ld)', 'b: loader exe %r' % ldp['exe'])
sl = one(by_exe('$T/sl'), 'deleted')
check(sl['exit_code'] == 0, 'c: exit %r' % sl['exit_code'])
m = one(by_exe('memfd:job'), 'memfd')
check(m['execs'][-1]['memfd'] is True, 'd: memfd flag %r' % m['execs'][-1])
check(m['exit_code'] == 0, 'd: exit %r' % m['exit_code'])
e = one([p for p in procs if p['execs'] and p['execs'][-1]['filename'] == '/usr/bin/sh' and p['execs'][0]['exe'] == '$W'], 'empty argv')
check(e['exe'] == '/usr/bin/dash' and e['argv'] == [''], 'e: exe %r argv %r' % (e['exe'], e['argv']))
s = one([p for p in procs if p['argv'] == ['sshd', '0.1']], 'argv0')
check(s['exe'] == '/usr/bin/sleep', 'f: exe %r' % s['exe'])
"
# (c) the deleted flag is on the exit record of the process whose file went away
pid=$(python3 -c "import json;print([json.loads(l)['pid'] for l in open('c12.jsonl') if json.loads(l)['exe']=='$T/sl'][0])")
"$A" cat --type exit c12.tz >exit.txt || fail "cat c12.tz"
grep -E " tgid=$pid " exit.txt >exit1.txt || fail "c: no exit of $pid"
grep -q 'flags=0x4' exit1.txt || fail "c: no deleted flag on the exit of $pid"

# (g) deep and long exe paths: copies of true 250, 1,500 and 2,100 one-letter
# directories deep (the first two whole and unflagged; the last over 4,096
# bytes), and one under 20 directories of 250 bytes (over 4,096 bytes): a path
# too long for the window keeps its exact end, flagged, and tree says so
deep=$T/deep
mkdir -p "$deep"
# one process builds it (2,100 mkdir processes take minutes on a loaded machine)
python3 - "$deep" <<'PY' || fail "g: deep tree"
import os, shutil, sys
os.chdir(sys.argv[1])
for i in range(1, 2101):
    os.mkdir("d")
    os.chdir("d")
    if i in (250, 1500, 2100):
        shutil.copy2("/usr/bin/true", "t%d" % i)
PY
long=$T/long
mkdir -p "$long"
(cd "$long" && for i in $(seq 20); do n=$(printf "%0250d" "$i"); mkdir "$n" && cd "$n" || exit 1; done &&
	cp /usr/bin/true t) || fail "g: long tree"
# dash's cd and the kernel's path lookup stop at 4,096 bytes: chdir step by step
cat >c12g.sh <<EOS
for i in 250 1500 2100; do (cd $deep && python3 -c 'import os, sys
for _ in range(int(sys.argv[1])): os.chdir("d")
os.execv("./t" + sys.argv[1], ["./t" + sys.argv[1]])' \$i); done
cd $long && python3 -c 'import os
for i in range(1, 21): os.chdir("%0250d" % i)
os.execv("./t", ["./t"])'
EOS
record -o c12g.tz -- sh c12g.sh || fail "record c12g"
export_jsonl c12g.tz c12g.jsonl
pycheck c12g.jsonl "
import os
def cut_ok(p, real):
    return real.endswith(p['exe']) and p['exe'].startswith('/') and len(p['exe']) <= 4095
for i in (250, 1500, 2100):
    real = os.path.realpath('$deep') + '/d' * i + '/t%d' % i
    p = one([q for q in procs if q['argv'] == ['./t%d' % i]], 't%d' % i)
    fl = p['execs'][-1]['path_truncated']
    if len(real) <= 4095:
        check(p['exe'] == real and not fl, 'g: depth %d: exe of %d bytes (want %d), flag %r' % (i, len(p['exe']), len(real), fl))
    else:
        check(fl and cut_ok(p, real), 'g: depth %d: exe of %d bytes, flag %r: %r ... %r' % (i, len(p['exe']), fl, p['exe'][:20], p['exe'][-20:]))
real = os.path.realpath('$long') + ''.join('/%0250d' % i for i in range(1, 21)) + '/t'
p = one([q for q in procs if q['argv'] == ['./t']], 'long')
fl = p['execs'][-1]['path_truncated']
check(len(real) > 4095 and fl and cut_ok(p, real), 'g: long path: exe of %d bytes, flag %r' % (len(p['exe']), fl))
"
"$A" tree c12g.tz >tree.txt || fail "tree c12g.tz"
[ "$(grep -c '\[path truncated\]' tree.txt)" = 2 ] || fail "g: tree: $(grep -c 'path truncated' tree.txt) [path truncated] notes, want 2"

# --- C16: credentials after a setuid exec
if [ -z "$(findmnt -no OPTIONS --target "$T" | grep -w nosuid)" ] && command -v setpriv >/dev/null; then
	cp /usr/bin/id id-suid
	chmod 4755 id-suid
	record -o c16.tz -- setpriv --reuid=65534 --regid=65534 --clear-groups "$T/id-suid" >/dev/null || fail "record c16"
	export_jsonl c16.tz c16.jsonl
	pycheck c16.jsonl "
p = one(by_exe('$T/id-suid'), 'id')
check(p['uid'] == 65534 and p['euid'] == 0, 'uid %r euid %r, want 65534 0' % (p['uid'], p['euid']))
"
else
	echo "note: C16 not run ($T is nosuid or setpriv missing)"
fi
echo ok
