/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ev_fill.h - raw event records (struct ev_* of bpf/events.h) filled as the
 * BPF side writes them, for the tests that build records by hand: the
 * analyzer's synthetic traces (analyze_synth.h), the recorder's process
 * table (test_record_ptable.c) and the hostile-file writer
 * (tests/helpers/tzwriter_hostile.c). Header-only.
 */
#ifndef EV_FILL_H
#define EV_FILL_H

#include <stdint.h>
#include <string.h>

#include "bpf/events.h"

/* *e zeroed, then an EV_FORK at ts (ns, CLOCK_BOOTTIME; header cpu 0):
 * caller (its tgid and thread id) forked child, whose parent is parent
 * (the caller but for CLONE_PARENT), started at start (ns); the child's
 * pid in its namespace is child. */
static inline void ev_fork_fill(struct ev_fork *e, uint64_t ts, uint32_t parent, uint32_t caller,
				uint32_t child, uint64_t start)
{
	memset(e, 0, sizeof(*e));
	e->hdr = (struct ev_hdr){sizeof(*e), EV_FORK, 0, ts};
	e->parent_tgid = parent;
	e->caller_tgid = e->caller_pid = caller;
	e->child_tgid = child;
	e->child_start_ns = start;
	e->child_ns_pid = child;
}

#endif /* EV_FILL_H */
