/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xorshift.h - Marsaglia's xorshift64 (13, 7, 17): the reproducible
 * pseudo-random numbers of the unit tests and bench/format. *state is the
 * generator (never 0); the same seed gives the same sequence on every run.
 */
#ifndef TESTS_XORSHIFT_H
#define TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif
