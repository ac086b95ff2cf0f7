/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_multi.c - libFuzzer target for the multi-host container reader
 * (FORMAT.md 18): open from memory (without, then with recover's salvage
 * scan, [X5]), list every member and its names, open each member's reader
 * and read its facts and events. Any crash, hang, leak
 * or sanitizer report is a bug. Built by `make fuzz`; replayed over
 * tests/fuzz/corpus_multi and tests/data/bad in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tz.h"

static uint64_t sink;

/* One open: without and with the salvage scan (FORMAT.md [X5], recover's). */
static void one(const uint8_t *data, size_t size, const struct tz_reader_opts *opts)
{
	tz_multi *m = NULL;
	if (tz_multi_open_mem(&m, data, size, "fuzz", opts) == 0) {
		const char *v = tz_multi_meta_get(m, "merged_by");
		sink += tz_multi_damage(m) + (v ? strlen(v) : 0) + strlen(tz_multi_errmsg(m));
		for (size_t i = 0; i < tz_multi_count(m) && i < 64; i++) {
			const struct tz_member *me = tz_multi_member(m, i);
			tz_reader *r = NULL;
			sink += me->off + me->len + strlen(me->source) + strlen(me->hostname) +
				(uint64_t)me->dup_of + (uint64_t)me->salvaged +
				(me->len ? me->data[me->len - 1] : 0);
			if (tz_multi_reader(m, i, &r) == 0) {
				const struct tz_event *ev;
				sink += tz_reader_info(r)->events;
				if (tz_reader_iter(r, 0, UINT64_MAX, 0) == 0)
					for (int n = 0; n < 100000 && tz_reader_next(r, &ev) == 1;
					     n++)
						sink += ev->ts_ns + ev->fixed_len;
			}
			tz_reader_free(r);
		}
	}
	tz_multi_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tz_reader_opts salvage = {.flags = TZ_R_SALVAGE};
	one(data, size, NULL);
	one(data, size, &salvage);
	return 0;
}
