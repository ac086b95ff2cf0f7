/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_schema.c - tracer_event_write's errors: a malformed record is
 * TRACER_ERR_MALFORMED (never TZ_ERR_IO, which stops a recording), nothing
 * is written and the writer goes on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/schema.h"

static tz_writer *open_mem(void)
{
	tz_writer *w = NULL;
	struct tz_writer_opts o;

	memset(&o, 0, sizeof(o));
	o.flags = TZ_W_NO_FSYNC;
	assert_int_equal(tz_writer_open_mem(&w, &o), 0);
	assert_int_equal(tracer_schema_register(w), 0);
	return w;
}

static void t_malformed_is_its_own_code(void **state)
{
	(void)state;
	assert_true(TRACER_ERR_MALFORMED < 0);
	assert_int_not_equal(TRACER_ERR_MALFORMED, TZ_ERR_IO);
	for (int e = 0; e > -TZ_ERR__COUNT; e--)
		assert_int_not_equal(TRACER_ERR_MALFORMED, e);
}

static void t_malformed_records(void **state)
{
	(void)state;
	tz_writer *w = open_mem();
	struct ev_exit x;
	struct ev_cgroup cg;
	struct tz_writer_stats st;

	memset(&x, 0, sizeof(x));
	x.hdr = (struct ev_hdr){sizeof(x), EV_EXIT, 0, 1000};
	/* shorter than its struct */
	assert_int_equal(tracer_event_write(w, &x, sizeof(x) - 1), TRACER_ERR_MALFORMED);
	assert_int_equal(tracer_event_write_state(w, &x, 4), TRACER_ERR_MALFORMED);
	/* a tail beyond the record */
	memset(&cg, 0, sizeof(cg));
	cg.hdr = (struct ev_hdr){sizeof(cg), EV_CGROUP, 0, 1000};
	cg.path_len = 10;
	assert_int_equal(tracer_event_write(w, &cg, sizeof(cg)), TRACER_ERR_MALFORMED);
	/* a type tracer does not know */
	struct ev_hdr h = {sizeof(h), 60000, 0, 1000};
	assert_int_equal(tracer_event_write(w, &h, sizeof(h)), TRACER_ERR_MALFORMED);
	/* nothing written, and the writer is not in a failed state */
	tz_writer_stats(w, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(tracer_event_write(w, &x, sizeof(x)), 0);
	tz_writer_stats(w, &st);
	assert_int_equal(st.events, 1);
	tz_writer_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(t_malformed_is_its_own_code),
	    cmocka_unit_test(t_malformed_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
