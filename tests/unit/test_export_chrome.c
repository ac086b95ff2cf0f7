/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_export_chrome.c - tza_export_chrome (analyze/export_chrome.c) on the
 * synthetic 3-stage pipeline: one track per process in start order, a
 * complete event per life with exact microseconds, an instant per exec, the
 * machine's counter tracks, and a closed JSON document.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze/export.h"
#include "analyze_synth.h"

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *chrome_of(struct synth *s, enum tza_by by, uint32_t *nprocs)
{
	size_t len;
	void *file = synth_file(s, NULL, &len);
	assert_non_null(file);
	tz_reader *r = NULL;
	struct tza_model *m = NULL;
	assert_int_equal(tz_reader_open_mem(&r, file, len, "pipe.tz", NULL), 0);
	assert_int_equal(tza_model_build_ex(r, 0, UINT64_MAX, TZA_MB_SAMPLES, &m), 0);
	char *out = NULL;
	size_t olen = 0;
	FILE *f = open_memstream(&out, &olen);
	assert_non_null(f);
	tza_export_chrome(f, m, by);
	assert_int_equal(ferror(f), 0);
	fclose(f);
	*nprocs = m->nprocs;
	tza_model_free(m);
	tz_reader_free(r);
	free(file);
	return out;
}

static void test_pipeline(void **state)
{
	(void)state;
	struct synth s = {0};
	scen_pipeline(&s);
	uint32_t n;
	char *out = chrome_of(&s, TZA_BY_TOOL, &n);
	assert_int_equal(n, 9);
	/* a whole document: header with the drop counters, closed array */
	assert_non_null(strstr(out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":"));
	assert_non_null(strstr(out, "\"drops\":{"));
	assert_non_null(strstr(out, "\"incomplete\":false},\"traceEvents\":[\n"));
	size_t olen = strlen(out);
	assert_true(olen > 4);
	assert_string_equal(out + olen - 4, "\n]}\n");
	/* one track, one life and one exec per process */
	assert_int_equal(count(out, "\"name\":\"process_name\",\"pid\":"), n + 1); /* + machine */
	assert_int_equal(count(out, "\"ph\":\"X\""), n);
	assert_int_equal(count(out, "\"cat\":\"exec\""), n);
	/* tracks in start order: samtools (pid 108, started last) is track 9,
	 * its life 1.5 s from 6.4 s, in microseconds */
	assert_non_null(strstr(out, "\"name\":\"process_name\",\"pid\":9,\"tid\":108,"));
	assert_non_null(strstr(out, "\"ts\":6400000.000,\"dur\":1500000.000,\"pid\":9,\"tid\":108,"));
	/* the root's life is the whole run: 8 s */
	assert_non_null(strstr(out, "\"ts\":0.000,\"dur\":8000000.000,\"pid\":1,\"tid\":100,"));
	assert_non_null(strstr(out, "\"exit_code\":0"));
	/* the machine's counter tracks: after the last process's events */
	const char *run = strstr(out, "\"name\":\"processes running\"");
	assert_non_null(run);
	assert_true(run > strstr(out, "\"tid\":108,\"args\":{\"argv\""));
	assert_non_null(strstr(out, "\"name\":\"cpu cores (estimate)\""));
	free(out);
	synth_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
