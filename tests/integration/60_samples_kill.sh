#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Kernel events of issue 6: a `kill -TERM` from one recorded process to
# another names the sender (killed_by), a handled SIGTERM names nobody, and
# a process the OOM killer chooses inside a memory-limited cgroup (cgroup v2
# memory.max, or the v1 memory controller where v2 has no memory
# controller, as on hybrid hosts) is recorded as OOM-killed with its pid;
# C19: the victim is not the trigger, and a kill -9 is not an OOM kill.
. "$(dirname "$0")/lib.sh"
need_root memwork
M=$H/memwork
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# --- kill -TERM from a recorded /usr/bin/kill to a recorded sleeper
record -o kill.tz --sample-interval 0 -- sh -c "
	$H/recwork sleep 30 & echo \$! >victim.pid
	sleep 0.3
	/usr/bin/kill -TERM \$(cat victim.pid)
	wait
	# a handled SIGTERM does not kill: no sender named
	sh -c 'trap \"exit 3\" TERM; echo \$\$ >handler.pid; while :; do sleep 0.05; done' &
	while [ ! -s handler.pid ]; do sleep 0.05; done
	sleep 0.2
	/usr/bin/kill -TERM \$(cat handler.pid)
	wait
" || fail "recording the kill exited $?"
bg_track "$(cat victim.pid)" "$(cat handler.pid)"
export_jsonl kill.tz kill.jsonl
pycheck kill.jsonl "
v = [p for p in procs if p['pid'] == $(cat victim.pid) and p['exe'] == '$H/recwork']
v = one(v, 'victim')
k = [p for p in procs if p['exe'] == '/usr/bin/kill']
check(len(k) == 2, 'two kill processes, got %d' % len(k))
check(v['signal'] == 15 and v['exit_code'] is None, 'victim status %r %r' % (v['signal'], v['exit_code']))
kb = v['killed_by']
check(kb is not None, 'killed_by missing')
check(kb['pid'] == k[0]['pid'] and kb['signal'] == 15 and kb['comm'] == 'kill' and kb['kernel'] is False,
      'killed_by %r, kill pid %d' % (kb, k[0]['pid']))
check(k[0]['start_s'] <= kb['t_s'] <= k[0]['end_s'], 'signal time %r outside the kill process' % kb['t_s'])
check(v['oom_killed'] is False, 'victim oom_killed')
h = one([p for p in procs if p['pid'] == $(cat handler.pid) and p['exe'] == '/usr/bin/dash'], 'handler')
check(h['exit_code'] == 3 and h['signal'] is None and h['killed_by'] is None,
      'handled TERM: exit %r signal %r killed_by %r' % (h['exit_code'], h['signal'], h['killed_by']))
others = [p for p in procs if p['killed_by'] is not None]
check(len(others) == 1, 'only the victim has killed_by: %r' % [(p['pid'], p['exe']) for p in others])
"
"$A" cat --type signal kill.tz >sig.txt || fail "cat --type signal failed"
n=$(grep -c ' signal ' sig.txt || true)
[ "$n" = 1 ] || fail "expected 1 signal event (the handled SIGTERM is filtered in the kernel), got $n"

# --- OOM kill inside a memory-limited cgroup
CG=
ENABLED=
cg_cleanup() {
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
		for _ in $(seq 50); do rmdir "$CG" 2>/dev/null && break; sleep 0.1; done
	fi
	# leave the controller as found (fails harmlessly when others use it)
	[ -n "$ENABLED" ] && { echo -memory >"$ENABLED" 2>/dev/null || true; }
	_cleanup
}
trap cg_cleanup EXIT
cg2=$(mount -t cgroup2 | awk '{print $3; exit}')
if [ -n "$cg2" ] && grep -qw memory "$cg2/cgroup.controllers" 2>/dev/null; then
	if ! grep -qw memory "$cg2/cgroup.subtree_control"; then
		echo +memory >"$cg2/cgroup.subtree_control"
		ENABLED=$cg2/cgroup.subtree_control
	fi
	CG=$cg2/tracer-test-oom-$$
	mkdir "$CG"
	echo $((64 << 20)) >"$CG/memory.max"
	echo 0 >"$CG/memory.swap.max" 2>/dev/null || true
	LIMIT_FILE=memory.max
elif [ -d /sys/fs/cgroup/memory ] && [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	CG=/sys/fs/cgroup/memory/tracer-test-oom-$$
	mkdir "$CG"
	echo $((64 << 20)) >"$CG/memory.limit_in_bytes"
	LIMIT_FILE=memory.limit_in_bytes
else
	echo "skip: no memory cgroup controller (v2 or v1)"
	exit 77
fi
echo "  oom cgroup: $CG ($LIMIT_FILE = 64 MiB)" >&2
rc=0
record -o oom.tz --sample-interval 0 -- sh -c "echo \$\$ >$CG/cgroup.procs; echo \$\$ >hog.pid; exec $M hog" || rc=$?
[ $rc = 137 ] || fail "recorder exit $rc, want 137 (the hog killed by SIGKILL)"
hog=$(cat hog.pid)
export_jsonl oom.tz oom.jsonl
pycheck oom.jsonl "
h = one([p for p in procs if p['exe'] == '$M'], 'hog')
check(h['pid'] == $hog, 'hog pid %d, want $hog' % h['pid'])
check(h['oom_killed'] is True, 'hog not oom_killed')
check(h['signal'] == 9, 'hog signal %r' % h['signal'])
check(h['killed_by'] is not None and h['killed_by']['signal'] == 9 and h['killed_by']['kernel'] is True,
      'killed_by %r' % h['killed_by'])
check(h['peak_rss_kib'] > 32 * 1024 and h['peak_rss_kib'] <= 64 * 1024 + 4096,
      'hog peak rss %d KiB with a 64 MiB limit' % h['peak_rss_kib'])
check(sum(1 for p in procs if p['oom_killed']) == 1, 'one OOM kill')
"
"$A" cat oom.tz | grep ' oom_kill ' >oom.txt || fail "no oom_kill event"
[ "$(wc -l <oom.txt)" = 1 ] || fail "expected one oom_kill event: $(cat oom.txt)"
grep -q " tgid=$hog " oom.txt || fail "oom_kill names another pid: $(cat oom.txt)"
"$A" summary oom.tz >summary.txt || fail "summary failed"
grep -q "^OOM kills  1$" summary.txt || fail "summary has no OOM kill line: $(cat summary.txt)"
grep -q "^  memwork (pid $hog): .*, its own allocation$" summary.txt ||
	fail "summary does not name the victim: $(cat summary.txt)"

# --- C19: the victim is not the trigger. A holds 50 MiB and sleeps; B then
# allocates 30 MiB in the same 64 MiB cgroup: the OOM killer chooses A (the
# largest) on B's allocation; B goes on and exits 0. A plain kill -9 of a
# third process is never an OOM kill.
rc=0
record -o c19.tz --sample-interval 0 -- sh -c "echo \$\$ >$CG/cgroup.procs
	$M peak 50 60 0 & echo \$! >a.pid
	while [ \$(awk '/^VmRSS/ {print \$2}' /proc/\$(cat a.pid)/status) -lt 51200 ]; do sleep 0.02; done
	$M peak 30 0.2 0 & echo \$! >b.pid
	sleep 60 & echo \$! >c.pid; kill -9 \$!
	wait" || rc=$?
bg_track "$(cat a.pid)" "$(cat b.pid)"
export_jsonl c19.tz c19.jsonl
pycheck c19.jsonl "
a = one([p for p in procs if p['pid'] == $(cat a.pid)], 'A')
b = one([p for p in procs if p['pid'] == $(cat b.pid)], 'B')
c = one([p for p in procs if p['pid'] == $(cat c.pid)], 'C')
check(a['oom_killed'] is True and a['signal'] == 9, 'A: oom_killed %r signal %r' % (a['oom_killed'], a['signal']))
check(a['killed_by'] and a['killed_by']['kernel'] is True and a['killed_by']['cause'] == 'oom', 'A killed_by %r' % a['killed_by'])
check(a['oom_trigger_pid'] == b['pid'], 'A: trigger %r, want B %d' % (a['oom_trigger_pid'], b['pid']))
check(b['oom_killed'] is False and b['exit_code'] == 0 and b['oom_trigger_pid'] is None, 'B: %r %r' % (b['oom_killed'], b['exit_code']))
check(c['signal'] == 9 and c['oom_killed'] is False and c['oom_trigger_pid'] is None, 'C (kill -9): %r %r' % (c['signal'], c['oom_killed']))
check(c['killed_by'] is None or c['killed_by']['cause'] != 'oom', 'C killed_by %r' % c['killed_by'])
"
timeout 60 "$A" summary c19.tz >c19.txt || fail "summary c19"
grep -q "^  memwork (pid $(cat a.pid)): .*, on an allocation by memwork (pid $(cat b.pid))$" c19.txt ||
	fail "C19: summary does not name the trigger: $(grep -A2 '^OOM' c19.txt)"
echo ok
