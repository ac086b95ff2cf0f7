/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_record_cpuclamp.c - per-process utime/stime written by the recorder
 * never go backwards (fault 13): sample_cpu_monotonic, the rule applied to
 * every sample and exit against the process's previous sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/sample.h"

static void check(__u64 put, __u64 pst, __u64 ut, __u64 st, __u64 wut, __u64 wst)
{
	sample_cpu_monotonic(put, pst, &ut, &st);
	assert_int_equal(ut, wut);
	assert_int_equal(st, wst);
}

static void test_monotonic(void **state)
{
	(void)state;
	check(100, 50, 120, 60, 120, 60);	/* both grew: kept */
	check(100, 50, 90, 80, 100, 70);	/* utime fell: kept, stime gives */
	check(100, 50, 140, 40, 130, 50);	/* stime fell: kept, utime gives */
	check(100, 50, 0, 150, 100, 50);	/* same sum, utime 0 (the exit case) */
	check(1240000, 0, 0, 1300000, 1240000, 60000);
	check(100, 50, 60, 60, 100, 50);	/* sum fell: the previous pair */
	check(0, 0, 7, 3, 7, 3);		/* no previous sample */
}

/* a random walk of tick-ratio splits of a growing runtime stays monotonic */
static void test_walk(void **state)
{
	(void)state;
	__u64 put = 0, pst = 0, rt = 0, seed = 12345;
	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		rt += (seed >> 40) % 1000000;
		__u64 ut = rt * ((seed >> 20) % 101) / 100, st = rt - ut;
		sample_cpu_monotonic(put, pst, &ut, &st);
		assert_true(ut >= put);
		assert_true(st >= pst);
		assert_int_equal(ut + st, rt);
		put = ut;
		pst = st;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
