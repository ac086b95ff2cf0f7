/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * common.bpf.h - helpers all the recorder's BPF programs use alike
 * (tracer.bpf.c, sample.bpf.c): the drop counters, the tracked-process
 * check and the record header. Includes maps.bpf.h (the shared maps) and
 * needs vmlinux.h, bpf_helpers.h, events.h and tracer.h before it.
 * BPF side only.
 */
#ifndef TRACER_COMMON_BPF_H
#define TRACER_COMMON_BPF_H

#include "maps.bpf.h" /* rb, tracked, thread_claims, drops */

/* kfunc: a number as an untrusted BTF pointer (the verifier makes it a move) */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/*
 * A program's trusted argument ptr (of type TYPE *) as an untrusted pointer:
 * its loads are the same fault-safe loads, but the verifier no longer asks,
 * for each pointer it loads through it, whether the field keeps the trust
 * (btf_nested_type_is_trusted: up to three linear searches of the kernel's
 * 126,000 BTF types by name per load checked, 19% of the recorder's start-up
 * CPU). Only for pointers no helper or kfunc needs trusted.
 */
#define UNTRUSTED(ptr, TYPE) ((TYPE *)bpf_rdonly_cast((ptr), bpf_core_type_id_kernel(TYPE)))

/*
 * Count one lost record or failed map update in this CPU's slot of `drops`
 * (enum ev_drop_slot; user space sums the CPUs into the trace). A slot
 * outside the map is not counted (the lookup fails).
 */
static __always_inline void drop_count(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&drops, &slot);

	if (c)
		*c += 1;
}

/*
 * The `tracked` entry of thread group tgid (task->tgid), or NULL when the
 * group is not recorded. In the array form of the map every pid has a
 * slot: one without TRACKED_LIVE is free, so NULL too.
 */
static __always_inline struct tracked *tracked_live(__u32 tgid)
{
	struct tracked *t = bpf_map_lookup_elem(&tracked, &tgid);

	return t && (t->flags & TRACKED_LIVE) ? t : NULL;
}

/*
 * Fill the common header of a record of size bytes and type EV_*: the CPU
 * writing it (bpf_get_smp_processor_id()) and ts_ns (ns since boot,
 * bpf_ktime_get_boot_ns(): CLOCK_BOOTTIME, the clock of every *_ns field).
 */
static __always_inline void ev_hdr_fill(struct ev_hdr *h, __u32 type, __u32 size)
{
	h->size = size;
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->ts_ns = bpf_ktime_get_boot_ns();
}

#endif /* TRACER_COMMON_BPF_H */
