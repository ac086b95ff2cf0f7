/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strmap.h - an index of byte strings: each distinct string gets the next
 * index (0, 1, 2, ...) in order of first use. The strings are the caller's
 * (an array it grows beside the map, by index): the map keeps each one's
 * 64-bit hash and index, and asks the caller's eq to compare. Open
 * addressing with linear probing over a power-of-two slot array, grown
 * (doubled) at half full without touching the strings again. libc only.
 *
 * Use (keys[] the caller's, grown when *added):
 *	struct strmap m = {0};
 *	int64_t i = strmap_intern(&m, s, n, eq, keys, &added);  // -1: no memory
 *	if (added) keys[i] = copy of s;
 *	strmap_free(&m);
 */
#ifndef TRACER_STRMAP_H
#define TRACER_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	uint64_t hash;
	uint32_t idx1; /* index + 1; 0: empty */
};

/* Zero-initialise for an empty map. Members are read-only to users. */
struct strmap {
	struct strmap_slot *slot; /* cap slots, owned; NULL while cap is 0 */
	uint32_t cap;		  /* 0 or a power of two */
	uint32_t n;		  /* strings held: the next index */
};

/* Does the caller's string idx equal s[0..n)? (ctx: strmap_intern's) */
typedef int (*strmap_eq)(const void *ctx, uint32_t idx, const char *s, size_t n);

/*
 * The index of s[0..n): an earlier one's (*added 0) or, when new, the next
 * index m->n (*added 1; the caller stores the string at it before the next
 * call). -1 when out of memory or at 2^32 - 1 strings (the map unchanged).
 */
int64_t strmap_intern(struct strmap *m, const char *s, size_t n, strmap_eq eq, const void *ctx,
		      int *added);

/* Free the slots; the map is empty (and usable) again. */
void strmap_free(struct strmap *m);

#endif
