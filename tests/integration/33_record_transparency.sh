#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The recorded run is untouched (issue 15 points 1-2): COMMAND inherits
# exactly what it would have without the recorder, from an interactive
# shell on a terminal (job control) and from scripts (background jobs with
# SIGINT/SIGQUIT ignored, nohup); pipelines whose status depends on SIGPIPE
# end the same under `pipefail`; the recorder ends as COMMAND ended (same
# exit code, or death by the same signal); Ctrl-C on the terminal reaches
# COMMAND's processes and the recorder records their deaths before it
# exits; a stop signal to the recorder alone seals the file and names, in
# one line, what it left running.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
P=$H/stateprobe
[ -x "$P" ] || fail "$P not built"

# --- the probe, bare and recorded, from an interactive shell on a pty
cat >drive.py <<'PY'
import os, pty, re, signal, sys, time

R, P, T = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, PS1="$ ", PS2="", TERM="dumb", HISTFILE="/dev/null")
pid, fd = pty.fork()
if pid == 0:
    os.chdir(T)
    # a state the recorder must pass on untouched: nice, affinity, ignored
    # and blocked signals are set in the shell below
    os.execvpe("nice", ["nice", "-n", "3", "taskset", "-c", "0",
                        "bash", "--norc", "--noprofile", "-i"], env)
buf = b""
def send(s):
    os.write(fd, s.encode())
def expect(pat, timeout=90):
    global buf
    end = time.time() + timeout
    while True:
        m = re.search(pat.encode(), buf)
        if m:
            out = buf[:m.end()]
            buf = buf[m.end():]
            return out.decode(errors="replace")
        left = end - time.time()
        if left <= 0:
            raise SystemExit("timeout waiting for %r; got %r" % (pat, buf[-2000:]))
        import select
        r, _, _ = select.select([fd], [], [], min(left, 1))
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                raise SystemExit("shell ended early; got %r" % buf[-2000:])
n = [0]
def run(cmd, timeout=90):
    n[0] += 1
    # the status on a line of its own: an interactive bash abandons the
    # rest of a line whose job died of SIGINT
    send(cmd + "\n")
    send("echo \"@@done$?-%d@@\"\n" % n[0])
    out = expect(r"@@done(\d+)-%d@@\r?\n" % n[0], timeout)
    return int(re.search(r"@@done(\d+)-%d@@" % n[0], out).group(1))
def wait_file(path, timeout=60):
    end = time.time() + timeout
    while not os.path.exists(path):
        if time.time() > end:
            raise SystemExit("timeout waiting for " + path)
        time.sleep(0.05)
def ctrl_c(cmd, pidfile):
    """run cmd as the foreground job, Ctrl-C it once it started; returns
    what the terminal showed, up to the next line's "@@rcN@@" status"""
    send(cmd + "\n")
    wait_file(os.path.join(T, pidfile))
    time.sleep(0.5)
    send("\x03")
    time.sleep(0.2)
    send("echo \"@@rc$?@@\"\n")
    return expect(r"@@rc\d+@@\r?\n")
def alive(p):
    try:
        os.kill(p, 0)
        return True
    except ProcessLookupError:
        return False
def check(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)
try:
    expect(r"\$ ")
    run("stty -echo")
    run("trap '' USR2; ulimit -l 4321; ulimit -n 777; umask 027; exec 7</etc/hostname")
    sid = os.getsid(pid)
    # the same output file for both: the probe prints its fds' paths
    check(run("%s %d >out.txt && mv out.txt bare.txt" % (P, sid)) == 0, "bare probe")
    check(run("%s -o probe.tz -- %s %d >out.txt && mv out.txt rec.txt" % (R, P, sid)) == 0,
          "recorded probe")
    # a shell loop is stopped by a command killed by SIGINT only when the
    # shell sees the death by SIGINT: the recorder must die the same way
    check(run("%s -o int.tz -- sh -c 'kill -INT $$'" % R) == 130, "rc after SIGINT")

    # Ctrl-C: every process of the foreground job gets SIGINT; the
    # recorder keeps recording until they are gone, then dies by SIGINT
    out = ctrl_c("%s -o cc.tz -- sh -c 'echo $$ >cc.pid; /bin/sleep 40 | /bin/cat'" % R, "cc.pid")
    check(re.search(r"@@rc130@@", out), "Ctrl-C: recorder status: %r" % out)
    check("left running" not in out, "Ctrl-C: the job was not gone: %r" % out)

    # Ctrl-C on a job that ignores SIGINT: sealed after --stop-grace with
    # one line naming what was left running; the recorder's status is then
    # 128+2 (COMMAND still runs)
    out = ctrl_c("%s --stop-grace 0.5 -o ig.tz -- sh -c 'trap \"\" INT; echo $$ >ig.pid; /bin/sleep 40'" % R,
                 "ig.pid")
    igpid = int(open(os.path.join(T, "ig.pid")).read())
    check(re.search(r"@@rc130@@", out), "ignored Ctrl-C: recorder status: %r" % out)
    lines = [l for l in out.splitlines() if "tracer-record:" in l]
    check(len(lines) == 1 and re.search(r"tracer-record: stopped by SIGINT: left running: %d \(sh\), \d+ \(sleep\)" % igpid, lines[0]),
          "ignored Ctrl-C: message %r" % lines)
    check(alive(igpid), "the job that ignores SIGINT was harmed")
    os.kill(igpid, signal.SIGKILL)
finally:
    # everything of the pty's session, whatever happened
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.getsid(int(p)) == pid and int(p) != os.getpid():
                    os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
PY
timeout -k 5 240 python3 drive.py "$R" "$P" "$T" || fail "pty session"
diff bare.txt rec.txt >probe.diff || fail "COMMAND's inherited state differs under the recorder: $(cat probe.diff)"
grep -q 'SigIgn:.*' bare.txt || fail "the probe printed no signal state"
grep -q '^fd 7: /etc/hostname' bare.txt || fail "the probe did not see the shell's fd 7"
grep -q '^foreground: 1$' rec.txt || fail "COMMAND is not in the terminal's foreground"
grep -q 'Max locked memory *4424704 *4424704 *bytes' rec.txt || fail "ulimit -l not passed on: $(grep 'locked' rec.txt)"
grep -q 'Max open files *777 *777 *files' rec.txt || fail "ulimit -n not passed on: $(grep 'open files' rec.txt)"
grep -q 'Umask:.*0027' rec.txt || fail "umask not passed on: $(grep Umask rec.txt)"
grep -q '^nice: 3$' rec.txt || fail "nice not passed on: $(grep nice rec.txt)"

# the Ctrl-C'ed job: every process recorded with its death by SIGINT
export_jsonl cc.tz cc.jsonl
pycheck cc.jsonl "
sh = one([p for p in procs if p.get('comm') == 'sh'], 'sh')
for name in ('sh', 'sleep', 'cat'):
    p = one([q for q in procs if q.get('comm') == name], name)
    check(p['end_s'] is not None and p['signal'] == 2,
          '%s not recorded as killed by SIGINT: end %r signal %r' % (name, p['end_s'], p['signal']))
    # the terminal's SIGINT (kernel-sent); dash re-raises SIGINT on itself
    # once its foreground job died of it
    check(p['killed_by'] is not None and p['killed_by']['signal'] == 2 and
          (p['killed_by']['kernel'] or (name == 'sh' and p['killed_by']['pid'] == p['pid'])),
          '%s: killed_by %r' % (name, p['killed_by']))
"
"$A" verify cc.tz >/dev/null || fail "cc.tz does not verify"
"$A" verify ig.tz >/dev/null || fail "ig.tz does not verify"

# --- from a script: a background job ignores SIGINT and SIGQUIT; nohup
# ignores SIGHUP; the recorder passes each on
sigign() { # file signal-number: 0 when the probe saw it ignored
	python3 -c "import sys; m = [l for l in open(sys.argv[1]) if 'SigIgn:' in l][0].split()[-1]
sys.exit(0 if int(m, 16) >> (int(sys.argv[2]) - 1) & 1 else 1)" "$1" "$2"
}
bash -c "$P >out.txt & wait; mv out.txt bg_bare.txt; $R -o bg.tz -- $P >out.txt & wait; mv out.txt bg_rec.txt"
diff bg_bare.txt bg_rec.txt >bg.diff || fail "background job: $(cat bg.diff)"
sigign bg_rec.txt 2 && sigign bg_rec.txt 3 || fail "background job: SIGINT/SIGQUIT not ignored: $(grep SigIgn bg_rec.txt)"
nohup "$P" >out.txt 2>/dev/null; mv out.txt nh_bare.txt
nohup "$R" -o nh.tz -- "$P" >out.txt 2>/dev/null; mv out.txt nh_rec.txt
diff nh_bare.txt nh_rec.txt >nh.diff || fail "nohup: $(cat nh.diff)"
sigign nh_rec.txt 1 || fail "nohup: SIGHUP not ignored: $(grep SigIgn nh_rec.txt)"
# a blocked signal stays blocked
python3 -c "
import os, signal, subprocess, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2, signal.SIGWINCH})
a = subprocess.run(['$P'], stdout=subprocess.PIPE).stdout
b = subprocess.run(['$R', '-o', 'mask.tz', '--', '$P'], stdout=subprocess.PIPE).stdout
blk = [l for l in b.decode().splitlines() if l.endswith(tuple('0123456789abcdef')) and 'SigBlk:' in l][0]
m = int(blk.split()[-1], 16)
sys.exit(0 if a == b and m >> 11 & 1 and m >> 27 & 1 else 1)
" || fail "a blocked signal mask is not passed on"

# --- pipelines whose status depends on SIGPIPE, under pipefail
for pl in 'yes | head -1' 'seq 1000000 | head -1' 'cat /dev/zero | head -c 10'; do
	bare=$(bash -c "set -o pipefail; $pl >/dev/null 2>&1; echo \$?")
	rec=$("$R" -f -o pipe.tz -- bash -c "set -o pipefail; $pl >/dev/null 2>&1; echo \$?" 2>/dev/null)
	[ "$bare" = "$rec" ] || fail "'$pl' under pipefail: bare $bare, recorded $rec"
	[ "$bare" = 141 ] || fail "'$pl': bare status $bare, want 141"
done

# --- the recorder ends as COMMAND ended: code, or death by the same signal
python3 - "$R" <<'PY' || fail "exit status"
import subprocess, sys
R = sys.argv[1]
for sh, want in (("exit 7", 7), ("kill -TERM $$", -15), ("kill -SEGV $$", -11),
                 ("kill -INT $$", -2), ("kill -KILL $$", -9), ("exit 0", 0)):
    bare = subprocess.run(["sh", "-c", sh]).returncode
    rec = subprocess.run([R, "-f", "-o", "st.tz", "--", "sh", "-c", sh]).returncode
    if bare != want or rec != want:
        sys.exit("'%s': bare %d, recorded %d, want %d" % (sh, bare, rec, want))
PY

# --- SIGINT to the recorder alone: COMMAND goes on, one line names it
"$R" --stop-grace 0.3 -o lone.tz -- sh -c "echo \$\$ >lone.pid; exec /bin/sleep 40" 2>lone.err &
rp=$!
bg_track $rp
for _ in $(seq 300); do [ -s lone.pid ] && break; sleep 0.1; done
[ -s lone.pid ] || fail "lone: COMMAND did not start"
lp=$(cat lone.pid)
bg_track "$lp"
sleep 0.3
kill -INT $rp
rc=0; wait $rp || rc=$?
[ $rc = 130 ] || fail "lone SIGINT: recorder exit $rc, want 130"
kill -0 "$lp" 2>/dev/null || fail "lone SIGINT: COMMAND was harmed"
[ "$(wc -l <lone.err)" = 1 ] || fail "lone SIGINT: not one line: $(cat lone.err)"
grep -qx "tracer-record: stopped by SIGINT: left running: $lp (sleep)" lone.err || fail "lone SIGINT: $(cat lone.err)"
"$A" verify lone.tz >/dev/null || fail "lone.tz does not verify"
kill -9 "$lp"
echo ok
