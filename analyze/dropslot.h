/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dropslot.h - the recorder's drop slots (EV_DROP_SLOTS_DEF, bpf/events.h:
 * name, counts as lost, makes the tree incomplete), for every output of tracer-analyze: summary (text and
 * --json), info, slice, export and the "TREE INCOMPLETE" banner all walk
 * tza_drop_slots[] and nothing else.
 *
 * Where the counts come from: the recorder writes them as cumulative
 * EV_DROPS events (fields named by `name`, summed over CPUs from the BPF
 * per-CPU `drops` map) while it records, and once more at its stop as the
 * metadata keys "drops_<name>" (record/main.c close_writer). The model keeps
 * the last EV_DROPS event's counters (tza_model.drops); info reads the
 * metadata keys, since it decodes no event.
 */
#ifndef TRACER_DROPSLOT_H
#define TRACER_DROPSLOT_H

#include <stdint.h>
#include <stdio.h>

#include "bpf/events.h"
#include "tz.h"

struct tza_drop_slot {
	int slot;	  /* enum ev_drop_slot: index into a drops[EV_DROP_SLOTS] */
	const char *name; /* EV_DROPS field name and summary --json "drops" key;
			     metadata key "drops_" + name */
	const char *what; /* what the recorder could not keep, for docs and text */
	int lost;	  /* counts in "total": records (or a process's tracking) lost */
	int incomplete;	  /* makes the process tree incomplete ("TREE INCOMPLETE") */
};

/* Every slot the recorder defines, in slot order; TZA_NDROP_SLOTS of them. */
#define TZA_NDROP_SLOTS EV_DROP_NDEFINED
extern const struct tza_drop_slot tza_drop_slots[TZA_NDROP_SLOTS];

/* Sum of the slots that count as lost (drops[] indexed by enum ev_drop_slot). */
uint64_t tza_drops_lost(const uint64_t drops[EV_DROP_SLOTS]);

/* 1 when a slot that makes the tree incomplete is non-zero, else 0. */
int tza_drops_incomplete(const uint64_t drops[EV_DROP_SLOTS]);

/* The non-zero slots that count as lost as "fork 3, kevent 1" on f (nothing
 * when none is non-zero); returns how many were printed. */
int tza_drops_list(FILE *f, const uint64_t drops[EV_DROP_SLOTS]);

/* The metadata keys "drops_<name>" of r into drops (0 for an absent or
 * malformed key). Returns how many keys were present (0: a recorder that
 * wrote none, or a file not closed by its recorder). */
int tza_drops_from_meta(tz_reader *r, uint64_t drops[EV_DROP_SLOTS]);

#endif /* TRACER_DROPSLOT_H */
