/* SPDX-License-Identifier: BSD-2-Clause */
/* test_format_seek.c - seeking a 1 GiB trace touches only the chunks of the window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "schema.h"
#include "tz.h"
#include "tz_int.h"

static tz_writer *mem_writer(const struct tz_writer_opts *o)
{
	tz_writer *w;
	assert_int_equal(tz_writer_open_mem(&w, o), 0);
	assert_int_equal(tracer_schema_register(w), 0);
	return w;
}

static int count_overlap_cb(void *ctx, const struct tz_block_info *b)
{
	uint64_t *c = ctx; /* c[0] from, c[1] to, c[2] count */
	if (b->type == TZ_B_CHUNK && b->max_ts_ns >= c[0] && b->min_ts_ns <= c[1])
		c[2]++;
	return 0;
}

static void t_seek(void **st)
{
	(void)st;
	/* a 1 GiB (uncompressed) trace: 3.6 hours, an event every 2 ms, 256 KiB chunks */
	struct tz_writer_opts o = {.chunk_bytes = 262144, .flags = TZ_W_NO_FSYNC, .level = 1};
	tz_writer *w = mem_writer(&o);
	uint64_t n = 6500000;
	for (uint64_t i = 0; i < n; i++) {
		struct ev_exit x;
		memset(&x, 0, sizeof(x));
		x.tgid = (uint32_t)i;
		x.utime_ns = i * 7;
		assert_int_equal(tz_writer_add(w, EV_EXIT, i * 2000000, (uint8_t *)&x + 16,
					       sizeof(x) - 16, NULL, 0),
				 0);
	}
	void *buf;
	size_t len;
	assert_int_equal(tz_writer_mem_take(w, &buf, &len), 0);
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, buf, len, "big", NULL), 0);
	uint64_t chunks = tz_reader_info(r)->chunks;
	assert_true(chunks > 4000);
	assert_true(tz_reader_info(r)->bytes_uncompressed >= 1ull << 30);
	uint64_t c[3] = {3000ull * 1000000000, 3001ull * 1000000000, 0};
	/* verify decodes everything: count on a second handle */
	tz_reader *r2;
	assert_int_equal(tz_reader_open_mem(&r2, buf, len, "big", NULL), 0);
	assert_int_equal(tz_reader_verify(r2, count_overlap_cb, c), 0);
	tz_reader_free(r2);
	assert_true(c[2] >= 1 && c[2] <= 3);
	const struct tz_event *e;
	uint64_t got = 0;
	assert_int_equal(tz_reader_iter(r, c[0], c[1], 0), 0);
	while (tz_reader_next(r, &e) == 1) {
		assert_true(e->ts_ns >= c[0] && e->ts_ns <= c[1]);
		got++;
	}
	assert_int_equal(got, 501);
	assert_int_equal(tz_reader_chunks_decoded(r), c[2]);
	tz_reader_free(r);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(t_seek),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
