/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dropslot.c - the analyzer's table of the recorder's drop slots (dropslot.h),
 * generated from their one declaration in bpf/events.h.
 */
#include <stdlib.h>
#include <string.h>

#include "dropslot.h"

_Static_assert(TZA_NDROP_SLOTS == EV_DROP_NDEFINED, "TZA_NDROP_SLOTS is not the slots defined");
_Static_assert(TZA_NDROP_SLOTS <= EV_DROP_SLOTS, "more slots than EV_DROPS holds");

/* Generated from the one declaration, EV_DROP_SLOTS_DEF (bpf/events.h) */
#define SLOT(NAME, idx, name, lost, incomplete, what) {EV_DROP_##NAME, #name, what, lost, incomplete},
const struct tza_drop_slot tza_drop_slots[TZA_NDROP_SLOTS] = {EV_DROP_SLOTS_DEF(SLOT)};

uint64_t tza_drops_lost(const uint64_t drops[EV_DROP_SLOTS])
{
	uint64_t n = 0;
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		if (tza_drop_slots[i].lost)
			n += drops[tza_drop_slots[i].slot];
	return n;
}

int tza_drops_incomplete(const uint64_t drops[EV_DROP_SLOTS])
{
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		if (tza_drop_slots[i].incomplete && drops[tza_drop_slots[i].slot])
			return 1;
	return 0;
}

int tza_drops_list(FILE *f, const uint64_t drops[EV_DROP_SLOTS])
{
	int k = 0;
	for (int i = 0; i < TZA_NDROP_SLOTS; i++) {
		const struct tza_drop_slot *d = &tza_drop_slots[i];
		if (d->lost && drops[d->slot])
			fprintf(f, "%s%s %llu", k++ ? ", " : "", d->name,
				(unsigned long long)drops[d->slot]);
	}
	return k;
}

int tza_drops_from_meta(tz_reader *r, uint64_t drops[EV_DROP_SLOTS])
{
	int n = 0;
	memset(drops, 0, sizeof(uint64_t) * EV_DROP_SLOTS);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++) {
		char key[64], *end;
		snprintf(key, sizeof(key), "drops_%s", tza_drop_slots[i].name);
		const char *v = tz_reader_meta_get(r, key);
		if (!v)
			continue;
		n++;
		unsigned long long x = strtoull(v, &end, 10);
		if (end != v && !*end && *v != '-')
			drops[tza_drop_slots[i].slot] = x;
	}
	return n;
}
