/* SPDX-License-Identifier: BSD-2-Clause */
/* test_hmap.c - common/hmap.c: put/get/del against a plain array kept
 * alongside, growth, backward-shift deletion across the table's end, walks
 * that delete, the reserved key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/hmap.h"

static void test_empty(void **st)
{
	(void)st;
	struct hmap m = {0};
	size_t pos = 0;
	assert_null(hmap_get(&m, 1));
	assert_int_equal(hmap_del(&m, 1), 0);
	assert_int_equal(hmap_next(&m, &pos, NULL, NULL), 0);
	hmap_free(&m);
	assert_int_equal(m.n, 0);
}

static void test_put_get_del(void **st)
{
	(void)st;
	struct hmap m = {0};
	int added = -1;
	uint64_t *v = hmap_put(&m, 0, &added);
	assert_non_null(v);
	assert_int_equal(added, 1);
	assert_int_equal(*v, 0);
	*v = 42;
	v = hmap_put(&m, 0, &added);
	assert_int_equal(added, 0);
	assert_int_equal(*v, 42);
	assert_non_null(hmap_put(&m, HMAP_NO_KEY - 1, NULL));
	assert_int_equal(m.n, 2);
	assert_null(hmap_get(&m, 1));
	assert_int_equal(*hmap_get(&m, 0), 42);
	assert_int_equal(hmap_del(&m, 0), 1);
	assert_int_equal(hmap_del(&m, 0), 0);
	assert_null(hmap_get(&m, 0));
	assert_non_null(hmap_get(&m, HMAP_NO_KEY - 1));
	assert_int_equal(m.n, 1);
	hmap_free(&m);
}

static void test_reserved_key(void **st)
{
	(void)st;
	struct hmap m = {0};
	assert_null(hmap_put(&m, HMAP_NO_KEY, NULL));
	assert_null(hmap_get(&m, HMAP_NO_KEY));
	assert_int_equal(hmap_del(&m, HMAP_NO_KEY), 0);
	assert_int_equal(m.n, 0);
	hmap_free(&m);
}

/* Random puts and deletes over a small key range (long probe runs that wrap
 * round the table's end), checked after every step against a plain array. */
static void test_against_array(void **st)
{
	(void)st;
	enum { NKEYS = 300, STEPS = 200000 };
	uint64_t ref[NKEYS];
	int in[NKEYS] = {0};
	size_t count = 0;
	struct hmap m = {0};
	srand(16);
	for (int s = 0; s < STEPS; s++) {
		int k = rand() % NKEYS;
		uint64_t key = (uint64_t)k << (k % 3 ? 40 : 0); /* high and low bits */
		if (rand() % 3) {
			int added;
			uint64_t *v = hmap_put(&m, key, &added);
			assert_non_null(v);
			assert_int_equal(added, !in[k]);
			count += (size_t)added;
			in[k] = 1;
			*v = ref[k] = (uint64_t)s;
		} else {
			assert_int_equal(hmap_del(&m, key), in[k]);
			count -= (size_t)in[k];
			in[k] = 0;
		}
		assert_int_equal(m.n, count);
		int j = rand() % NKEYS;
		uint64_t *v = hmap_get(&m, (uint64_t)j << (j % 3 ? 40 : 0));
		if (in[j])
			assert_true(v && *v == ref[j]);
		else
			assert_null(v);
	}
	for (int k = 0; k < NKEYS; k++) {
		uint64_t *v = hmap_get(&m, (uint64_t)k << (k % 3 ? 40 : 0));
		if (in[k])
			assert_true(v && *v == ref[k]);
		else
			assert_null(v);
	}
	assert_true(m.cap >= 64 && (m.cap & (m.cap - 1)) == 0);
	assert_true(m.n * 4 <= m.cap * 3);
	hmap_free(&m);
}

/* A walk sees every key once; a walk deleting the odd keys (stepping back
 * as hmap.h says) leaves exactly the even ones and misses none. */
static void test_walk_and_delete(void **st)
{
	(void)st;
	enum { N = 5000 };
	struct hmap m = {0};
	for (uint64_t k = 0; k < N; k++)
		*hmap_put(&m, k * 7919, NULL) = k;
	static unsigned char seen[N];
	size_t pos = 0, n = 0;
	uint64_t key, val;
	while (hmap_next(&m, &pos, &key, &val)) {
		assert_int_equal(key, val * 7919);
		assert_int_equal(seen[val]++, 0);
		n++;
	}
	assert_int_equal(n, N);
	for (pos = 0; hmap_next(&m, &pos, &key, &val);)
		if (val & 1) {
			assert_int_equal(hmap_del(&m, key), 1);
			pos--;
		}
	assert_int_equal(m.n, N / 2);
	for (uint64_t k = 0; k < N; k++)
		assert_true((hmap_get(&m, k * 7919) != NULL) == !(k & 1));
	hmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_del),
		cmocka_unit_test(test_reserved_key),
		cmocka_unit_test(test_against_array),
		cmocka_unit_test(test_walk_and_delete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
