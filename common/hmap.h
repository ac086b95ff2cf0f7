/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hmap.h - one open-addressing hash table from 64-bit keys to 64-bit values,
 * for the tables record/ and analyze/ keep in memory (the recorder's live
 * processes, its set of cgroups written). libc only.
 *
 * Linear probing over a power-of-two slot array, grown (doubled) before it
 * is three quarters full; deletion shifts the following run back, so there
 * are no tombstones and a lookup stops at the first empty slot. The hash is
 * Fibonacci hashing (the key times 2^64 / phi, high bits), so keys that
 * differ only in high or only in low bits both spread.
 *
 * Use:
 *	struct hmap m = {0};		   // an empty table: no allocation yet
 *	uint64_t *v = hmap_put(&m, key, &added);   // NULL: out of memory
 *	*v = value;
 *	uint64_t *w = hmap_get(&m, key);    // NULL: absent
 *	hmap_del(&m, key);
 *	for (size_t i = 0; hmap_next(&m, &i, &k, &v);) ...
 *	hmap_free(&m);			   // m is empty again and reusable
 *
 * A value pointer stays valid until the next hmap_put or hmap_del on the
 * table (either may move slots). Not thread-safe.
 */
#ifndef TRACER_HMAP_H
#define TRACER_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* The one key a table cannot hold (it marks an empty slot inside). */
#define HMAP_NO_KEY UINT64_MAX

struct hmap_slot {
	uint64_t key; /* HMAP_NO_KEY: empty */
	uint64_t val;
};

/* Zero-initialise for an empty table. Members are read-only to users. */
struct hmap {
	struct hmap_slot *slot; /* cap slots, owned; NULL while cap is 0 */
	size_t cap;		/* 0 or a power of two */
	size_t n;		/* keys held */
	unsigned shift;		/* 64 - log2(cap): the hash's high bits index */
};

/* Free the slots; the table is empty (and usable) again. m may be empty. */
void hmap_free(struct hmap *m);

/* The value of key, or NULL when key is absent (or is HMAP_NO_KEY). */
uint64_t *hmap_get(const struct hmap *m, uint64_t key);

/*
 * The value of key, made (value 0) when absent; *added (may be NULL) is 1
 * when it was made, else 0. NULL when out of memory (the table is then
 * unchanged) or key is HMAP_NO_KEY.
 */
uint64_t *hmap_put(struct hmap *m, uint64_t key, int *added);

/* Remove key: 1 when it was there, 0 when absent. Never allocates. */
int hmap_del(struct hmap *m, uint64_t key);

/*
 * Walk: from *pos (0 to start) to the next key held; stores it and its
 * value (key and val may be NULL), advances *pos past it and returns 1, or
 * returns 0 at the end. The order is the slot order (not insertion order).
 * A walk that deletes the key it stands on with hmap_del must step back
 * (--*pos) to see the key shifted into that slot; it may then see a key
 * twice (one that wrapped round the end), never miss one. Adding keys
 * during a walk is not allowed.
 */
int hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
