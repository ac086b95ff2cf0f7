/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_strmap.c - common/strmap.h: each distinct byte string gets the next
 * index in order of first use; an equal string (bytes and length) its
 * earlier index, through growth; the caller's eq decides equality.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/strmap.h"
#include "helper.h"

/* the caller's strings: copies by index */
struct keys {
	char *s[20000];
	size_t n[20000];
	uint32_t count;
	unsigned eq_calls;
};

static int keys_eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	struct keys *k = (struct keys *)ctx;
	k->eq_calls++;
	return k->n[idx] == n && !memcmp(k->s[idx], s, n);
}

static int64_t intern(struct strmap *m, struct keys *k, const char *s, size_t n)
{
	int added;
	int64_t i = strmap_intern(m, s, n, keys_eq, k, &added);
	assert_true(i >= 0);
	if (added) {
		assert_int_equal(i, k->count);
		k->s[i] = malloc(n ? n : 1);
		memcpy(k->s[i], s, n);
		k->n[i] = n;
		k->count++;
	}
	assert_int_equal(m->n, k->count);
	return i;
}

static void test_order_and_growth(void **st)
{
	(void)st;
	static struct keys k;
	struct strmap m = {0};
	char buf[32];
	/* 10,000 strings, each met twice (the second time after many others) */
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 10000; i++) {
			int len = snprintf(buf, sizeof(buf), "key-%d", i * 7919 % 10000);
			assert_int_equal(intern(&m, &k, buf, (size_t)len), i);
		}
	assert_int_equal(k.count, 10000);
	assert_true(m.cap >= 2 * m.n);
	/* bytes, not C strings: an embedded NUL, a prefix, the empty string */
	int64_t a = intern(&m, &k, "a\0b", 3), b = intern(&m, &k, "a", 1);
	int64_t e = intern(&m, &k, "", 0);
	assert_true(a != b && b != e && a != e);
	assert_int_equal(intern(&m, &k, "a\0b", 3), a);
	assert_int_equal(intern(&m, &k, "", 0), e);
	/* the caller's eq is asked (an equal hash alone never decides) */
	assert_true(k.eq_calls >= 10000);
	for (uint32_t i = 0; i < k.count; i++)
		free(k.s[i]);
	strmap_free(&m);
	assert_int_equal(m.n, 0);
	assert_null(m.slot);
	/* usable again after free */
	k.count = 0;
	assert_int_equal(intern(&m, &k, "x", 1), 0);
	free(k.s[0]);
	strmap_free(&m);
}

/* an eq that says "equal" to everything with the same hash slot's index:
 * the map returns what eq accepts, so a caller's rule (e.g. case-blind)
 * is the map's */
static int always_eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	(void)ctx, (void)idx, (void)s, (void)n;
	return 1;
}

static void test_eq_decides(void **st)
{
	(void)st;
	struct strmap m = {0};
	int added;
	assert_int_equal(strmap_intern(&m, "same", 4, always_eq, NULL, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(strmap_intern(&m, "same", 4, always_eq, NULL, &added), 0);
	assert_int_equal(added, 0);
	strmap_free(&m);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_order_and_growth), cmocka_unit_test(test_eq_decides))
