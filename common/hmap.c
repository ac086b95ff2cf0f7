/* SPDX-License-Identifier: BSD-2-Clause */
/* hmap.c - open-addressing u64 -> u64 hash table (hmap.h). */
#include <stdlib.h>

#include "hmap.h"

static size_t home(const struct hmap *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> m->shift);
}

/* The slot of key, or the empty slot where it would go; m->cap > 0 */
static size_t find(const struct hmap *m, uint64_t key)
{
	size_t i = home(m, key);
	while (m->slot[i].key != HMAP_NO_KEY && m->slot[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct hmap_slot *s = malloc(cap * sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < cap; i++)
		s[i].key = HMAP_NO_KEY;
	struct hmap o = *m;
	m->slot = s;
	m->cap = cap;
	m->shift = 64 - (unsigned)__builtin_ctzll(cap);
	for (size_t i = 0; i < o.cap; i++)
		if (o.slot[i].key != HMAP_NO_KEY)
			m->slot[find(m, o.slot[i].key)] = o.slot[i];
	free(o.slot);
	return 0;
}

void hmap_free(struct hmap *m)
{
	free(m->slot);
	*m = (struct hmap){0};
}

uint64_t *hmap_get(const struct hmap *m, uint64_t key)
{
	if (!m->cap || key == HMAP_NO_KEY)
		return NULL;
	size_t i = find(m, key);
	return m->slot[i].key == key ? &m->slot[i].val : NULL;
}

uint64_t *hmap_put(struct hmap *m, uint64_t key, int *added)
{
	if (key == HMAP_NO_KEY)
		return NULL;
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return NULL;
	size_t i = find(m, key);
	int add = m->slot[i].key != key;
	if (add) {
		m->slot[i] = (struct hmap_slot){key, 0};
		m->n++;
	}
	if (added)
		*added = add;
	return &m->slot[i].val;
}

int hmap_del(struct hmap *m, uint64_t key)
{
	if (!m->cap || key == HMAP_NO_KEY)
		return 0;
	size_t mask = m->cap - 1, i = find(m, key);
	if (m->slot[i].key != key)
		return 0;
	/* shift back each later key of the run whose home is not in (i, j] */
	for (size_t j = (i + 1) & mask; m->slot[j].key != HMAP_NO_KEY; j = (j + 1) & mask) {
		size_t h = home(m, m->slot[j].key);
		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i].key = HMAP_NO_KEY;
	m->n--;
	return 1;
}

int hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (size_t i = *pos; i < m->cap; i++) {
		if (m->slot[i].key == HMAP_NO_KEY)
			continue;
		if (key)
			*key = m->slot[i].key;
		if (val)
			*val = m->slot[i].val;
		*pos = i + 1;
		return 1;
	}
	*pos = m->cap;
	return 0;
}
