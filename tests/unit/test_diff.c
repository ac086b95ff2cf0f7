/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_diff.c - `diff`'s computing half (analyze/diff.h): groups of two runs
 * matched by key, "only in" rows, the order by change (|wall B - wall A| +
 * |CPU B - CPU A|, largest first, ties by key).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helper.h"

#include "analyze/diff.h"

#define S 1000000000ULL

static void test_rows(void **st)
{
	/* deliberately not sorted by key: tza_diff_rows sorts them */
	struct tza_group a[] = {
	    {.key = "sort", .wall_ns = 2 * S, .cpu_ns = 2 * S},
	    {.key = "cc", .wall_ns = 10 * S, .cpu_ns = 8 * S},
	    {.key = "gone", .wall_ns = 1 * S, .cpu_ns = 0},
	    {.key = "same", .wall_ns = 3 * S, .cpu_ns = 3 * S},
	};
	struct tza_group b[] = {
	    {.key = "same", .wall_ns = 3 * S, .cpu_ns = 3 * S},
	    {.key = "new", .wall_ns = 1 * S, .cpu_ns = 0},
	    {.key = "cc", .wall_ns = 4 * S, .cpu_ns = 4 * S},
	    {.key = "sort", .wall_ns = 7 * S, .cpu_ns = 2 * S},
	};
	struct tza_diff_row *rows;
	uint32_t nr;
	assert_int_equal(tza_diff_rows(a, 4, b, 4, &rows, &nr), 0);
	assert_int_equal(nr, 5);
	/* cc: 6 + 4 s; sort: 5 s; gone and new: 1 s each (by key); same: 0 */
	const char *want[] = {"cc", "sort", "gone", "new", "same"};
	for (uint32_t i = 0; i < nr; i++)
		assert_string_equal(rows[i].key, want[i]);
	assert_true(rows[0].change == 10.0 * S);
	assert_true(rows[1].change == 5.0 * S);
	assert_true(rows[4].change == 0);
	assert_non_null(rows[0].a);
	assert_non_null(rows[0].b);
	assert_int_equal(rows[0].a->wall_ns, 10 * S);
	assert_int_equal(rows[0].b->wall_ns, 4 * S);
	assert_non_null(rows[2].a); /* gone: only in A */
	assert_null(rows[2].b);
	assert_null(rows[3].a); /* new: only in B */
	assert_non_null(rows[3].b);
	assert_string_equal(rows[4].a->key, "same");
	assert_string_equal(rows[4].b->key, "same");
	free(rows);
}

static void test_one_side_empty(void **st)
{
	struct tza_group b[] = {
	    {.key = "x", .wall_ns = 1 * S, .cpu_ns = 1 * S},
	    {.key = "y", .wall_ns = 2 * S, .cpu_ns = 0},
	};
	struct tza_diff_row *rows;
	uint32_t nr;
	assert_int_equal(tza_diff_rows(NULL, 0, b, 2, &rows, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(rows[0].key, "x"); /* 2 s each: by key */
	assert_string_equal(rows[1].key, "y");
	assert_null(rows[0].a);
	assert_null(rows[1].a);
	free(rows);
	assert_int_equal(tza_diff_rows(NULL, 0, NULL, 0, &rows, &nr), 0);
	assert_int_equal(nr, 0);
	free(rows);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_rows), cmocka_unit_test(test_one_side_empty))
