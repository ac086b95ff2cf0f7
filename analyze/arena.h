/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arena.h - bump allocation from slabs and a cache of repeated strings for
 * the process model (model.c): one malloc per slab instead of one per
 * process, exec record or string, and one free per slab at the end.
 *
 * Nothing allocated from an arena is freed on its own: an arena only grows
 * until tza_arena_free. Use it for what lives as long as its owner (the
 * model) and is never replaced; memory that can be dropped while the owner
 * lives (a capped ring's evicted entries) belongs in malloc.
 */
#ifndef TRACER_ARENA_H
#define TRACER_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct tza_slab;

/* An arena; zero-initialise it ({0} or memset) before the first use. */
struct tza_arena {
	struct tza_slab *slabs; /* newest first */
	char *cur, *end;	/* free space in the newest slab */
	size_t next;		/* bytes of the next slab (grows to a cap) */
	size_t bytes;		/* bytes of every slab, for reports */
	/* a full-size slab made ahead by tza_arena_prefault (maybe on another
	 * thread), taken by the next slab the arena needs; NULL: none */
	struct tza_slab *_Atomic spare;
};

/* size bytes, zeroed, 8-byte aligned (enough for every struct of the model),
 * valid until tza_arena_free. NULL when out of memory (the arena is
 * unchanged). size 0 gives a valid unique pointer. */
void *tza_arena_alloc(struct tza_arena *a, size_t size);

/* The same without alignment, for strings. */
void *tza_arena_bytes(struct tza_arena *a, size_t size);

/*
 * Make the arena's next full-size slab (4 MiB) ahead and fault its pages in,
 * unless one is waiting already. The one call that may run on another
 * thread, concurrently with the arena's user: a kernel that is slow to fault
 * pages in (a VM's first touch of its memory) then costs that thread, not
 * the user's. Out of memory: nothing is made, the arena is unchanged.
 */
void tza_arena_prefault(struct tza_arena *a);

/* Free every slab (the spare too); the arena is then empty and reusable.
 * No tza_arena_prefault may be running. NULL is fine. */
void tza_arena_free(struct tza_arena *a);

/* One cached string: its bytes (NUL-terminated after len) and hash. */
struct tza_istr {
	const char *s; /* NULL: empty slot */
	uint32_t len;  /* bytes, without the added NUL */
	uint32_t hash; /* bits of XXH3 of the bytes */
};

/* Slots of a string cache: 256 KiB, fixed whatever the input (small enough
 * to stay in a CPU's L2 cache) */
#define TZA_STRCACHE_SLOTS 16384

/*
 * A direct-mapped cache of the strings last copied into an arena, by hash:
 * repeated strings (exe paths, argv of an exec storm) share one copy without
 * a table that grows with distinct strings. A string whose slot was taken by
 * another since is copied again: memory is at most one copy per call, and
 * one per distinct string while fewer than the slots are hot.
 * Zero-initialise it.
 */
struct tza_strcache {
	struct tza_istr *slot; /* TZA_STRCACHE_SLOTS, made on first use */
};

/*
 * A copy of the len bytes at p (which may hold NULs) in a, followed by a
 * NUL (so bytes without NUL read as a C string); the copy made by an earlier
 * call with equal bytes when the cache still holds it. NULL when out of
 * memory. Never modify or free the result: it lives until tza_arena_free(a),
 * and other calls may return the same pointer.
 */
char *tza_strcache_get(struct tza_strcache *c, struct tza_arena *a, const void *p, size_t len);

/* The same in two steps, for a caller with several strings at hand: their
 * hashes (tza_strcache_hash: XXH3 of the bytes) and the prefetch of their
 * slots first, the lookups after, so the slots' cache misses overlap. */
uint64_t tza_strcache_hash(const void *p, size_t len);
static inline void tza_strcache_prefetch(const struct tza_strcache *c, uint64_t h)
{
	if (c->slot)
		__builtin_prefetch(&c->slot[h & (TZA_STRCACHE_SLOTS - 1)]);
}
char *tza_strcache_get_h(struct tza_strcache *c, struct tza_arena *a, const void *p, size_t len,
			 uint64_t h);

/* Free the cache's slots (not the strings, which live in the arena). */
void tza_strcache_free(struct tza_strcache *c);

#endif /* TRACER_ARENA_H */
