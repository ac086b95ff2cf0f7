/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz_same.h - is an event read back (struct tz_event from tz_reader_next)
 * the one written? Shared by test_format.c and test_reader.c, which keep
 * what they wrote in their own structs. Header-only.
 */
#ifndef TESTS_TZ_SAME_H
#define TESTS_TZ_SAME_H

#include <stdint.h>
#include <string.h>

#include "tz.h"

/* 1 when e has the type, timestamp (ns), fixed part (fixed_len bytes) and
 * nblobs blobs (blob[i], blen[i] bytes; blob[i] may be NULL when blen[i] is
 * 0) that were written, bit for bit; else 0. Reads, owns nothing. */
static inline int tz_event_same(const struct tz_event *e, uint16_t type, uint64_t ts,
				const void *fixed, uint32_t fixed_len, uint32_t nblobs,
				const void *const blob[], const uint32_t blen[])
{
	if (type != e->type_id || ts != e->ts_ns || fixed_len != e->fixed_len ||
	    memcmp(fixed, e->fixed, fixed_len) || nblobs != e->nblobs)
		return 0;
	for (uint32_t i = 0; i < nblobs; i++)
		if (blen[i] != e->blobs[i].len ||
		    (blen[i] && memcmp(blob[i], e->blobs[i].data, blen[i])))
			return 0;
	return 1;
}

#endif /* TESTS_TZ_SAME_H */
