/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cputime.bpf.h - CPU time helpers shared by the BPF programs
 * (tracer.bpf.c's exit program, sample.bpf.c's sampler). BPF side only.
 */
#ifndef TRACER_CPUTIME_BPF_H
#define TRACER_CPUTIME_BPF_H

/*
 * Scale tick-sampled utime/stime (task_struct->utime/stime, ns) to the
 * precise runtime rt (se.sum_exec_runtime, ns), keeping their ratio, as
 * kernel/sched/cputime.c cputime_adjust() does for getrusage() and /proc.
 * rt == 0 leaves both unchanged.
 */
static __always_inline void cputime_scale(__u64 rt, __u64 *ut, __u64 *st)
{
	__u64 u = *ut, s = *st, d;
	int i;

	if (!rt)
		return;
	if (!s) {
		*ut = rt;
		return;
	}
	if (!u) {
		*st = rt;
		return;
	}
	for (i = 0; i < 40 && u + s > 0xffffffffull; i++) {
		u >>= 1;
		s >>= 1;
	}
	d = u + s;
	if (!d)
		return;
	u = rt / d * u + (rt % d) * u / d;
	if (u > rt)
		u = rt;
	*ut = u;
	*st = rt - u;
}

#endif /* TRACER_CPUTIME_BPF_H */
