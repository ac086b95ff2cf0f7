/* SPDX-License-Identifier: BSD-2-Clause */
/* strmap.c - an index of byte strings (strmap.h). */
#include "strmap.h"

#include <stdlib.h>

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h ^ (h >> 29); /* the low bits index: fold the high ones in */
}

static int grow(struct strmap *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	if (!cap)
		return -1;
	struct strmap_slot *ns = calloc(cap, sizeof(*ns));
	if (!ns)
		return -1;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->slot[i].idx1)
			continue;
		uint32_t j = (uint32_t)m->slot[i].hash & (cap - 1);
		while (ns[j].idx1)
			j = (j + 1) & (cap - 1);
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = cap;
	return 0;
}

int64_t strmap_intern(struct strmap *m, const char *s, size_t n, strmap_eq eq, const void *ctx,
		      int *added)
{
	*added = 0;
	if (2 * ((uint64_t)m->n + 1) > m->cap && (m->n == UINT32_MAX - 1 || grow(m) < 0))
		return -1;
	uint64_t h = hash_bytes(s, n);
	uint32_t j = (uint32_t)h & (m->cap - 1);
	for (; m->slot[j].idx1; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].hash == h && eq(ctx, m->slot[j].idx1 - 1, s, n))
			return m->slot[j].idx1 - 1;
	m->slot[j] = (struct strmap_slot){h, ++m->n};
	*added = 1;
	return m->n - 1;
}

void strmap_free(struct strmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
