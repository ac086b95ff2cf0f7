#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Stopping: SIGINT and SIGTERM leave a valid sealed file; SIGUSR1 seals the
# open chunk so a SIGKILLed recorder leaves a file `recover` restores up to
# it; --ring keeps the file under its size with the newest data.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

sealed() { # file: verifies and has its footer
	"$A" verify "$1" >/dev/null 2>&1 || fail "$1 does not verify"
	"$A" info "$1" >info.txt 2>&1 || fail "info $1"
	grep -q 'footer index present' info.txt || fail "$1 has no footer"
}

for sig in INT TERM; do
	"$R" -o $sig.tz -- sh -c "echo \$\$ >sh.pid; /bin/true first; : >first.done; exec $W sleep 30" 2>rec.err &
	rp=$!
	bg_track $rp
	for _ in $(seq 300); do [ -e first.done ] && break; sleep 0.1; done
	[ -e first.done ] || fail "SIG$sig: the command did not run"
	rm -f first.done
	bg_track "$(cat sh.pid)"
	sleep 0.3
	kill -$sig $rp
	rc=0; wait $rp || rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	[ $rc = $want ] || fail "SIG$sig: recorder exit $rc, want $want"
	kill -9 "$(cat sh.pid)" 2>/dev/null || true
	rm -f sh.pid
	sealed $sig.tz
	export_jsonl $sig.tz $sig.jsonl
	pycheck $sig.jsonl "
t = one(by_exe('/usr/bin/true'), 'true')
check(t['argv'] == ['/bin/true', 'first'] and t['exit_code'] == 0, 'true %r' % t)
s = one(by_exe('$W'), 'sleeper')
check(s['end_s'] is None and s['exit_code'] is None, 'the running sleeper has an end')
"
done

# --- SIGUSR1 seals; SIGKILL leaves a file recover restores up to the seal
"$R" -o kill.tz -- sh -c "echo \$\$ >sh.pid; for i in \$(seq 50); do /bin/true k\$i; done; : >loop.done; exec $W sleep 30" 2>rec.err &
rp=$!
bg_track $rp
for _ in $(seq 300); do [ -e loop.done ] && break; sleep 0.1; done
[ -e loop.done ] || fail "the command did not run"
bg_track "$(cat sh.pid)"
sleep 0.3
kill -USR1 $rp
sleep 0.5
kill -9 $rp
wait $rp 2>/dev/null || true
kill -9 "$(cat sh.pid)" 2>/dev/null || true
"$A" info kill.tz >info.txt 2>&1 || true
grep -q 'footer index present' info.txt && fail "a SIGKILLed recorder wrote a footer?"
"$A" recover kill.tz rec.tz >/dev/null 2>&1 || fail "recover failed"
sealed rec.tz
export_jsonl rec.tz rec.jsonl
pycheck rec.jsonl "
t = by_exe('/usr/bin/true')
check(sorted(p['argv'][1] for p in t) == sorted('k%d' % i for i in range(1, 51)), '%d true runs recovered' % len(t))
"

# --- --ring: the file never exceeds its size and keeps the newest data
record --ring 1M --argv-max 128K -o ring.tz -- sh -c "
big=\$(head -c 60000 /dev/zero | tr '\\\\0' x)
for i in \$(seq 400); do /bin/true \$i \$big; done; /bin/true last" || fail "record ring"
size=$(stat -c %s ring.tz)
[ "$size" -le 1048576 ] || fail "ring file is $size bytes, over 1 MiB"
"$A" verify ring.tz >/dev/null 2>&1 || fail "ring.tz does not verify"
"$A" cat --type exec ring.tz >ring.txt || fail "cat ring.tz"
grep -q '"/bin/true", "last"' ring.txt || fail "the newest exec is not in the ring file"
grep -q '"/bin/true", "1", ' ring.txt && fail "the oldest exec survived a full ring"
echo ok
