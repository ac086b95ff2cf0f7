/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cputime.bpf.h - CPU time helpers shared by the BPF programs
 * (tracer.bpf.c's exit program, sample.bpf.c's sampler). BPF side only.
 */
#ifndef TRACER_CPUTIME_BPF_H
#define TRACER_CPUTIME_BPF_H

/*
 * kernel/sched/cputime.c cputime_adjust(), read-only: the tick-sampled
 * utime/stime (task_struct->utime/stime summed, ns) split the precise
 * runtime rt (se.sum_exec_runtime summed, ns) in their ratio, system time
 * scaled first as the kernel does, then held no lower than what the kernel
 * last reported for the group (signal_struct->prev_cputime: pu, ps, which
 * every getrusage(), wait4(), times() and /proc/PID/stat read moves up).
 * So *ut, *st are what any of those would report now: a release's equal
 * wait4()'s however often the process was looked at while it ran (an
 * earlier read at another tick ratio clamps the kernel's split). A runtime
 * no more than pu + ps gives (pu, ps), as the kernel does.
 *
 * The one difference: with more than 2^32 ns (4.3 s) of tick-sampled time
 * the ratio is taken at 32 bits (both halved until their sum fits; the
 * kernel multiplies at 128 bits): the split may differ by rt / 2^32 ns.
 */
static __always_inline void cputime_adjust_ro(__u64 rt, __u64 pu, __u64 ps, __u64 *ut, __u64 *st)
{
	__u64 u = *ut, s = *st, d;
	int i;

	if (pu + ps >= rt) {
		*ut = pu;
		*st = ps;
		return;
	}
	if (s && !u) {
		s = rt;
	} else if (s) {
		for (i = 0; i < 40 && u + s > 0xffffffffull; i++) {
			u >>= 1;
			s >>= 1;
		}
		d = u + s;
		s = d ? rt / d * s + (rt % d) * s / d : 0;
		if (s > rt)
			s = rt;
	}
	/* s == 0: all of it user time, as the kernel assumes */
	if (s < ps)
		s = ps;
	u = rt - s;
	if (u < pu) {
		u = pu;
		s = rt - u;
	}
	*ut = u;
	*st = s;
}

/* cputime_adjust_ro with the group's last reported pair, read from sig
 * (struct signal_struct *); (0, 0) on a kernel built without it
 * (CONFIG_VIRT_CPU_ACCOUNTING_NATIVE, where the kernel does not scale) */
#define cputime_adjust_sig(sig, rt, ut, st)                                                       \
	do {                                                                                       \
		__u64 pu_ = 0, ps_ = 0;                                                            \
		if (bpf_core_field_exists((sig)->prev_cputime)) {                                  \
			pu_ = BPF_CORE_READ(sig, prev_cputime.utime);                              \
			ps_ = BPF_CORE_READ(sig, prev_cputime.stime);                              \
		}                                                                                  \
		cputime_adjust_ro(rt, pu_, ps_, ut, st);                                          \
	} while (0)

#endif /* TRACER_CPUTIME_BPF_H */
