/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_diff.c - `diff`'s computing half (analyze/diff.h): groups of two runs
 * matched by key, "only in" rows, the order by change (|wall B - wall A| +
 * |CPU B - CPU A|, largest first, ties by key). The wall is the one top
 * shows (cores_wall_ns: wall_ns, or with a task grouping each task's wall
 * once), never the processes' sum of a task grouping.
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
	    {.key = "sort", .cores_wall_ns = 2 * S, .cpu_ns = 2 * S},
	    {.key = "cc", .cores_wall_ns = 10 * S, .cpu_ns = 8 * S},
	    {.key = "gone", .cores_wall_ns = 1 * S, .cpu_ns = 0},
	    {.key = "same", .cores_wall_ns = 3 * S, .cpu_ns = 3 * S},
	};
	struct tza_group b[] = {
	    {.key = "same", .cores_wall_ns = 3 * S, .cpu_ns = 3 * S},
	    {.key = "new", .cores_wall_ns = 1 * S, .cpu_ns = 0},
	    {.key = "cc", .cores_wall_ns = 4 * S, .cpu_ns = 4 * S},
	    {.key = "sort", .cores_wall_ns = 7 * S, .cpu_ns = 2 * S},
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
	assert_int_equal(rows[0].a->cores_wall_ns, 10 * S);
	assert_int_equal(rows[0].b->cores_wall_ns, 4 * S);
	assert_non_null(rows[2].a); /* gone: only in A */
	assert_null(rows[2].b);
	assert_null(rows[3].a); /* new: only in B */
	assert_non_null(rows[3].b);
	assert_string_equal(rows[4].a->key, "same");
	assert_string_equal(rows[4].b->key, "same");
	free(rows);
}

/* a task grouping: wrapper shells waiting on their tool add to the
 * processes' sum (wall_ns), not to the tasks' wall top shows */
static void test_task_wall(void **st)
{
	(void)st;
	struct tza_group a[] = {
	    {.key = "align", .wall_ns = 30 * S, .cores_wall_ns = 10 * S, .cpu_ns = 1 * S, .tasks = 1},
	    {.key = "sort", .wall_ns = 3 * S, .cores_wall_ns = 3 * S, .cpu_ns = 1 * S, .tasks = 1},
	};
	struct tza_group b[] = {
	    {.key = "align", .wall_ns = 90 * S, .cores_wall_ns = 11 * S, .cpu_ns = 1 * S, .tasks = 1},
	    {.key = "sort", .wall_ns = 6 * S, .cores_wall_ns = 6 * S, .cpu_ns = 1 * S, .tasks = 1},
	};
	struct tza_diff_row *rows;
	uint32_t nr;
	assert_int_equal(tza_diff_rows(a, 2, b, 2, &rows, &nr), 0);
	assert_int_equal(nr, 2);
	/* sort changed 3 s, align 1 s of task wall (60 s of the processes' sum) */
	assert_string_equal(rows[0].key, "sort");
	assert_true(rows[0].change == 3.0 * S);
	assert_true(rows[1].change == 1.0 * S);
	free(rows);
}

static void test_one_side_empty(void **st)
{
	struct tza_group b[] = {
	    {.key = "x", .cores_wall_ns = 1 * S, .cpu_ns = 1 * S},
	    {.key = "y", .cores_wall_ns = 2 * S, .cpu_ns = 0},
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

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_rows), cmocka_unit_test(test_task_wall),
	  cmocka_unit_test(test_one_side_empty))
