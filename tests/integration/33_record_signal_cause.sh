#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Who sent a signal (issue 15 point 6): a signal the kernel raises for a
# process's own action (SIGPIPE of a write to a broken pipe, SIGXFSZ, SIGXCPU,
# a fault's SIGSEGV/SIGBUS/SIGFPE/SIGILL, seccomp's SIGSYS) is kernel-sent
# with its cause; kill(getpid()), raise() and abort() stay self-kills; a
# handler that lets the fault repeat, or queues the kernel's own siginfo
# again, keeps the kernel as the sender. The truth is strace of the same
# helper run separately: a signal is the kernel's when its si_code is a
# kernel one (SI_KERNEL, a fault's code), or SI_USER with no kill-like
# syscall sending it (send_sig(sig, current, 0)).
. "$(dirname "$0")/lib.sh"
need_root
SW=$H/sigwork
[ -x "$SW" ] || { echo "skip: $SW not built"; exit 77; }
command -v strace >/dev/null || { echo "skip: strace missing"; exit 77; }
cd "$T"
ulimit -c 0
modes="pipe xfsz xcpu segv bus fpe ill seccomp refault requeue kill raise abort"

for m in $modes; do
	# (the subshell reports the death quietly, not the test's shell)
	(rc=0; timeout 60 strace -f -qq -e trace=kill,tgkill,tkill,rt_sigqueueinfo,rt_tgsigqueueinfo \
		-e signal=all -o st.$m "$SW" $m || rc=$?; exit $rc) 2>/dev/null && fail "$m: survived under strace"
	grep -q '+++ killed by' st.$m || fail "$m: strace saw no killing signal: $(tail -n 3 st.$m)"
done
record -o sig.tz -- sh -c "for m in $modes; do $SW \$m 2>/dev/null; done; exit 0" || fail "record failed"
export_jsonl sig.tz sig.jsonl
"$A" summary sig.tz >sum.txt || fail "summary"
"$A" summary --json sig.tz >sum.json || fail "summary --json"
"$A" tree --collapse 0 sig.tz >tree.txt || fail "tree"

pycheck sig.jsonl "
import re, signal
want_cause = {'pipe': 'broken pipe', 'xfsz': 'file size limit', 'xcpu': 'cpu time limit',
              'segv': 'fault', 'bus': 'fault', 'fpe': 'fault', 'ill': 'fault',
              'seccomp': 'seccomp', 'refault': 'fault', 'requeue': 'fault',
              'kill': 'kill', 'raise': 'tkill', 'abort': 'tkill'}
user_codes = {'SI_USER', 'SI_TKILL', 'SI_QUEUE', 'SI_TIMER', 'SI_MESGQ', 'SI_ASYNCIO', 'SI_SIGIO'}
for m in '$modes'.split():
    st = open('st.' + m).read()
    sig = re.search(r'\+\+\+ killed by (SIG[A-Z0-9]+)', st).group(1)
    code = re.findall(r'--- %s \{si_signo=%s, si_code=([A-Z_0-9]+)' % (sig, sig), st)[-1]
    sent = re.search(r'(kill|tgkill|tkill|rt_t?g?sigqueueinfo)\([^)]*%s' % sig, st)
    kernel = code not in user_codes or (code == 'SI_USER' and not sent)
    p = one(by_argv(['$SW', m]), m)
    kb = p['killed_by']
    check(p['signal'] == signal.Signals[sig].value, '%s: signal %r, strace %s' % (m, p['signal'], sig))
    check(kb is not None, '%s: killed_by null' % m)
    check(kb['signal'] == p['signal'], '%s: killed_by %r' % (m, kb))
    check(kb['kernel'] is kernel, '%s: kernel %r, strace says %s (si_code %s)' % (m, kb['kernel'], 'kernel' if kernel else 'a process', code))
    check(kb['cause'] == want_cause[m], '%s: cause %r, want %r' % (m, kb['cause'], want_cause[m]))
    # the kernel acts in the process's own context; a self-kill is its own
    check(kb['pid'] == p['pid'], '%s: sender %r, not the process %d' % (m, kb['pid'], p['pid']))
"
grep -q '^signals    10 sent by the kernel (1 broken pipe, 1 file size limit, 1 cpu time limit, 6 fault, 1 seccomp), 3 by the process itself, 0 by another process$' sum.txt ||
	fail "summary: $(grep '^signals' sum.txt || echo no signals line)"
python3 -c "
import json, sys
s = json.load(open('sum.json'))['signal_senders']
assert s['kernel'] == 10 and s['self'] == 3 and s['other'] == 0, s
assert s['kernel_causes']['fault'] == 6 and s['kernel_causes']['broken pipe'] == 1, s
" || fail "summary --json signal_senders"
grep -q 'SIGPIPE \[kernel: broken pipe\]' tree.txt || fail "tree: no SIGPIPE [kernel: broken pipe]"
grep -q 'SIGTERM \[' tree.txt && fail "tree: the self-kill is shown as the kernel's"
echo ok
