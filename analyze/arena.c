/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arena.c - slabs and a string cache for the process model (arena.h).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xxhash.h>

#include "arena.h"

#define SLAB_FIRST (64u << 10)
#define SLAB_MAX (4u << 20)
/* A transparent huge page (x86-64, arm64 with 4 KiB pages) */
#define HUGE (2u << 20)

struct tza_slab {
	struct tza_slab *next;
	size_t size; /* bytes of data */
	_Alignas(16) char data[];
};

/* A slab's memory, header included: full-size slabs (SLAB_MAX with their
 * header) on huge-page boundaries and advised as such, so that filling one
 * faults in 2 huge pages instead of 1,024 small ones (this VM pays
 * microseconds per fault); where the kernel keeps huge pages for madvise
 * only, or has none, it is an ordinary allocation. Freed with free(). */
static struct tza_slab *slab_mem(size_t bytes)
{
	if (bytes != SLAB_MAX)
		return malloc(bytes);
	struct tza_slab *s = aligned_alloc(HUGE, bytes);
	if (s)
		madvise(s, bytes, MADV_HUGEPAGE); /* advice: failure is harmless */
	return s;
}

/* A new slab of at least size bytes; a big one goes behind the current slab
 * so the space left in that one stays usable. */
static char *slab_new(struct tza_arena *a, size_t size)
{
	if (!a->next)
		a->next = SLAB_FIRST;
	int own = size > a->next / 4;
	size_t sz = own ? size : a->next;
	struct tza_slab *s = NULL;
	if (!own && sz == SLAB_MAX) {
		sz = SLAB_MAX - sizeof(*s); /* the slab with its header: SLAB_MAX */
		s = atomic_exchange(&a->spare, NULL); /* faulted in ahead, zeroed */
		/* zeroed whole, as calloc would: the arena hands out zeroed
		   memory, and aligned_alloc may return memory freed before (a
		   second model in one process: report, bundle) */
		if (!s && (s = slab_mem(SLAB_MAX)))
			memset(s, 0, SLAB_MAX);
	} else {
		s = calloc(1, sizeof(*s) + sz);
	}
	if (!s)
		return NULL;
	s->size = sz;
	a->bytes += sz;
	if (own && a->slabs) {
		s->next = a->slabs->next;
		a->slabs->next = s;
		return s->data;
	}
	s->next = a->slabs;
	a->slabs = s;
	a->cur = s->data + size;
	a->end = s->data + sz;
	if (!own && a->next < SLAB_MAX)
		a->next *= 2;
	return s->data;
}

void *tza_arena_bytes(struct tza_arena *a, size_t size)
{
	if (a->cur && (size_t)(a->end - a->cur) >= size) {
		char *p = a->cur;
		a->cur += size;
		return p;
	}
	return slab_new(a, size);
}

void *tza_arena_alloc(struct tza_arena *a, size_t size)
{
	size_t pad = (size_t)-(uintptr_t)a->cur & 7;
	if (a->cur && (size_t)(a->end - a->cur) >= pad + size) {
		char *p = a->cur + pad;
		a->cur = p + size;
		return p;
	}
	return slab_new(a, size);
}

void tza_arena_prefault(struct tza_arena *a)
{
	if (atomic_load(&a->spare))
		return;
	struct tza_slab *s = slab_mem(SLAB_MAX);
	if (!s)
		return;
	/* zeroing writes every page: what faults them in (calloc would only
	 * map them, fresh pages reading as zero until touched) */
	memset(s, 0, SLAB_MAX);
	struct tza_slab *none = NULL;
	if (!atomic_compare_exchange_strong(&a->spare, &none, s))
		free(s);
}

void tza_arena_free(struct tza_arena *a)
{
	if (!a)
		return;
	free(atomic_exchange(&a->spare, NULL));
	for (struct tza_slab *s = a->slabs, *n; s; s = n) {
		n = s->next;
		free(s);
	}
	memset(a, 0, sizeof(*a));
}

uint64_t tza_strcache_hash(const void *p, size_t len)
{
	return XXH3_64bits(p, len);
}

char *tza_strcache_get(struct tza_strcache *c, struct tza_arena *a, const void *p, size_t len)
{
	return tza_strcache_get_h(c, a, p, len, XXH3_64bits(p, len));
}

char *tza_strcache_get_h(struct tza_strcache *c, struct tza_arena *a, const void *p, size_t len,
			 uint64_t h64)
{
	if (len > UINT32_MAX)
		return NULL;
	if (!c->slot && !(c->slot = calloc(TZA_STRCACHE_SLOTS, sizeof(*c->slot))))
		return NULL;
	uint32_t h = (uint32_t)(h64 >> 32);
	struct tza_istr *e = &c->slot[h64 & (TZA_STRCACHE_SLOTS - 1)];
	if (e->s && e->hash == h && e->len == len && !memcmp(e->s, p, len))
		return (char *)e->s;
	char *s = tza_arena_bytes(a, len + 1);
	if (!s)
		return NULL;
	memcpy(s, p, len);
	s[len] = 0;
	*e = (struct tza_istr){s, (uint32_t)len, h};
	return s;
}

void tza_strcache_free(struct tza_strcache *c)
{
	if (!c)
		return;
	free(c->slot);
	c->slot = NULL;
}
