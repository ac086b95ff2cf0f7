/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_arena.c - analyze/arena.h: every allocation is zeroed and aligned,
 * through the slab sizes up to the cap, with a prefaulted spare slab, and
 * after memory of the slabs' size and alignment was dirtied and freed.
 * (Full-size slabs come from aligned_alloc, which does not zero: a second
 * model built in one process, as report does, read the first one's bytes
 * and crashed. Whether glibc hands the same memory back here depends on
 * its thresholds; test 68's report of 200,000 processes is where that
 * crash was seen.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/arena.h"

/* n allocations of size bytes: each zeroed and 8-byte aligned, then dirtied */
static void fill(struct tza_arena *a, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *p = tza_arena_alloc(a, size);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 8, 0);
		for (size_t k = 0; k < size; k++)
			if (p[k]) {
				fail_msg("allocation %zu of %zu bytes: byte %zu is %u, not 0", i, size, k,
					 p[k]);
			}
		memset(p, 0xa5, size);
	}
}

static void test_zeroed_after_reuse(void **state)
{
	(void)state;
	/* 40 MiB of 136-byte records (an exec image's size): past the first
	 * slabs into several full-size ones, dirtied, freed, three times over */
	/* memory the arena's full-size slabs will get again: blocks of their
	   size and alignment, dirtied and freed (a block above them keeps it
	   from going back to the system) */
	void *old[12], *top;
	for (int i = 0; i < 12; i++) {
		old[i] = aligned_alloc(2u << 20, 4u << 20);
		assert_non_null(old[i]);
		memset(old[i], 0x5a, 4u << 20);
	}
	top = malloc(4096);
	for (int i = 0; i < 12; i++)
		free(old[i]);
	void *pin[4] = {0};
	for (int round = 0; round < 4; round++) {
		struct tza_arena a = {0};
		if (round == 3)
			tza_arena_prefault(&a); /* a spare slab taken first */
		fill(&a, 40u << 20 >> 7, 136);
		assert_true(a.bytes >= 40u << 20);
		/* a block above the slabs keeps malloc from giving their
		   memory back to the system: the next round gets it again */
		pin[round] = malloc(4096);
		assert_non_null(pin[round]);
		tza_arena_free(&a);
	}
	for (int round = 0; round < 4; round++)
		free(pin[round]);
	free(top);
}

static void test_big_and_bytes(void **state)
{
	(void)state;
	for (int round = 0; round < 2; round++) {
		struct tza_arena a = {0};
		fill(&a, 3, 5u << 20); /* bigger than a slab: their own */
		fill(&a, 1000, 24);
		unsigned char *s = tza_arena_bytes(&a, 7);
		assert_non_null(s);
		for (int k = 0; k < 7; k++)
			assert_int_equal(s[k], 0);
		memset(s, 0xff, 7);
		tza_arena_free(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed_after_reuse),
		cmocka_unit_test(test_big_and_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
