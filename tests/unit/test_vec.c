/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_vec.c - common/vec.h: VEC_ROOM grows by doubling, keeps what was
 * appended, and refuses a capacity that overflows its type or the byte
 * count with the array and its capacity unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/vec.h"
#include "helper.h"

struct item {
	uint64_t a, b;
};

static void test_grow(void **st)
{
	(void)st;
	struct item *v = NULL;
	uint32_t n = 0, cap = 0;
	uint32_t caps[40];
	for (uint32_t i = 0; i < 40; i++) {
		assert_int_equal(VEC_ROOM(v, n, cap, 4), 0);
		v[n++] = (struct item){i, 3 * i};
		caps[i] = cap;
	}
	/* 4 first, then doubling: 4 8 16 32 64 */
	assert_int_equal(caps[0], 4);
	assert_int_equal(caps[4], 8);
	assert_int_equal(caps[8], 16);
	assert_int_equal(caps[16], 32);
	assert_int_equal(caps[39], 64);
	for (uint32_t i = 0; i < 40; i++) {
		assert_int_equal(v[i].a, i);
		assert_int_equal(v[i].b, 3 * i);
	}
	free(v);

	/* a size_t capacity the same way */
	uint64_t *w = NULL;
	size_t wn = 0, wcap = 0;
	for (size_t i = 0; i < 100; i++) {
		assert_int_equal(VEC_ROOM(w, wn, wcap, 1), 0);
		w[wn++] = i;
	}
	assert_int_equal(wcap, 128);
	assert_int_equal(w[99], 99);
	free(w);
}

static void test_refused(void **st)
{
	(void)st;
	/* a uint32_t capacity that would pass 2^32 - 1 */
	char *v = malloc(1);
	assert_non_null(v);
	char *keep = v;
	uint32_t cap = 0x80000000u, n = cap;
	assert_int_equal(VEC_ROOM(v, n, cap, 4), -1);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, 0x80000000u);
	/* elements so large that twice the capacity overflows the bytes
	 * (VEC_ROOM's growing called with such an element size) */
	size_t big_cap = 2;
	char *h = v;
	assert_int_equal(vec_grow(&h, &big_cap, sizeof(big_cap), SIZE_MAX / 3, 1), -1);
	assert_ptr_equal(h, keep);
	assert_int_equal(big_cap, 2);
	/* no first capacity: nothing to grow to */
	char *e = NULL;
	size_t en = 0, ecap = 0;
	assert_int_equal(VEC_ROOM(e, en, ecap, 0), -1);
	assert_null(e);
	assert_int_equal(ecap, 0);
	/* room left: nothing done */
	size_t rn = 0, rcap = 1;
	assert_int_equal(VEC_ROOM(v, rn, rcap, 4), 0);
	assert_ptr_equal(v, keep);
	free(v);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_grow), cmocka_unit_test(test_refused))
