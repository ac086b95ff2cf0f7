/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_record_status.c - the recorder's status line (record/status.c): the
 * text, the mode chosen per --progress and descriptor, one update a second,
 * plain lines off a terminal. The terminal drawing is tested through a pty
 * by tests/integration/34_record_progress.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/status.h"

#define S 1000000000ull

static void test_format(void **state)
{
	(void)state;
	char b[256];
	struct rec_status_facts f = {.now_ns = 10 * S + 65 * S, .procs_seen = 1234567, .procs_live = 6,
				     .events = 0, .drops = 3, .file_bytes = 5 * 1024 * 1024 / 2,
				     .chunks = 12};
	size_t n = rec_status_format(b, sizeof(b), &f, 10 * S, 2 * S, 6421);
	assert_string_equal(b, "tracer-record: 1m05s  procs 1,234,567 seen, 6 live  3,211 ev/s  "
			       "drops 3  2.5 MiB  chunks 12");
	assert_int_equal(n, strlen(b));
	f.now_ns = 10 * S + 3 * 3600 * S + 7;
	f.file_bytes = 999;
	rec_status_format(b, sizeof(b), &f, 10 * S, 0, 5);
	assert_string_equal(b, "tracer-record: 3h00m00s  procs 1,234,567 seen, 6 live  0 ev/s  "
			       "drops 3  999 B  chunks 12");
	/* cut to the buffer, NUL-terminated */
	n = rec_status_format(b, 20, &f, 10 * S, 0, 5);
	assert_int_equal(n, 19);
	assert_int_equal(strlen(b), 19);
}

static void test_modes_and_rate(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct rec_status s;
	rec_status_init(&s, p[1], REC_PROGRESS_AUTO, S);
	assert_int_equal(s.mode, REC_STATUS_OFF); /* a pipe is no terminal */
	rec_status_init(&s, p[1], REC_PROGRESS_OFF, S);
	assert_int_equal(s.mode, REC_STATUS_OFF);
	rec_status_init(&s, p[1], REC_PROGRESS_ON, S);
	assert_int_equal(s.mode, REC_STATUS_LINES);

	struct rec_status_facts f = {.now_ns = S + S / 2, .events = 100};
	assert_false(rec_status_due(&s, f.now_ns));
	rec_status_tick(&s, &f); /* 0.5 s: nothing */
	f.now_ns = 2 * S;
	f.events = 400;
	rec_status_tick(&s, &f); /* 1 s: a line, 400 events in 1 s */
	f.now_ns = 2 * S + S / 3;
	rec_status_tick(&s, &f); /* too soon */
	f.now_ns = 4 * S;
	f.events = 1400;
	rec_status_tick(&s, &f); /* 2 s later: 500 ev/s */
	rec_status_end(&s);	 /* LINES: writes nothing */
	close(p[1]);
	char b[512] = {0};
	ssize_t n = read(p[0], b, sizeof(b) - 1);
	close(p[0]);
	assert_true(n > 0);
	assert_string_equal(b, "tracer-record: 1s  procs 0 seen, 0 live  400 ev/s  drops 0  0 B  chunks 0\n"
			       "tracer-record: 3s  procs 0 seen, 0 live  500 ev/s  drops 0  0 B  chunks 0\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_modes_and_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
