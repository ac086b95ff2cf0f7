/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * maps.bpf.h - the maps tracer.bpf.c and sample.bpf.c (included in place
 * by tracer.bpf.c: one object) both use; sizes set at run time (ring
 * buffer, tracked-pid map and its type) by record/bpfsetup.c.
 * BPF side only.
 */
#ifndef TRACER_MAPS_BPF_H
#define TRACER_MAPS_BPF_H

/* every record to user space (struct ev_* of events.h); size set at run time */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} rb SEC(".maps");

/* tgid -> struct tracked; max_entries set from pid_max at run time; an
 * array indexed by tgid when by_index (entries without TRACKED_LIVE are
 * free slots). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct tracked);
	__uint(max_entries, 32768);
} tracked SEC(".maps");

/* threads whose own I/O a TRACKED_FROM_FORK process already counted: the
 * exiting thread claims itself, or the group's last thread claims it while
 * summing the threads still on signal->thread_head (BPF_NOEXIST: exactly one
 * of them counts it) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct thread_key);
	__type(value, __u8);
	__uint(max_entries, THREAD_CLAIMS_MAX);
} thread_claims SEC(".maps");

/* per-CPU drop counters, by enum ev_drop_slot */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, EV_DROP_SLOTS);
} drops SEC(".maps");

#endif
