/* SPDX-License-Identifier: BSD-2-Clause */
/* test_plot.c - plot.c: exact cpu/mem/io series from exit totals, gantt rows
 * (per process, per group, "other"), failure marks, string escaping, and
 * gnuplot accepting the script. Synthetic traces through the real writer,
 * reader and model (analyze_synth.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze_synth.h"
#include "synth_model.h"
#include "analyze/analyze.h"
#include "analyze/model.h"
#include "analyze/plot.h"

static char *script(struct built *b, enum tza_plot_kind kind, unsigned max_rows)
{
	struct tza_plot_opts o = {.kind = kind, .by = TZA_BY_TOOL, .fmt = TZA_PLOT_PNG,
				  .out = "/dev/null", .max_rows = max_rows};
	tza_plot_facts(b->r, b->m, &o);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(tza_plot_script(f, b->m, &o), 0);
	fclose(f);
	return plot_unwrap(out);
}

/* Row b (0-based) of datablock name in the script, as a string. */
static char *row(const char *s, const char *name, int b)
{
	char head[32];
	snprintf(head, sizeof(head), "%s << EOD\n", name);
	const char *p = strstr(s, head);
	assert_non_null(p);
	p += strlen(head);
	for (int i = 0; i < b; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	const char *e = strchr(p, '\n');
	return strndup(p, (size_t)(e - p));
}

/* Last field of a whitespace-separated row; field k (0-based) with k >= 0. */
static double field(const char *r, int k)
{
	char *dup = strdup(r), *save = NULL, *tok;
	double v = -1;
	int i = 0;
	for (tok = strtok_r(dup, " ", &save); tok; tok = strtok_r(NULL, " ", &save), i++)
		if (k < 0 || i == k)
			v = strtod(tok, NULL);
	free(dup);
	return v;
}

/*
 * root sh 0..10 s (no CPU); worker 2..4 s with 4 s CPU, 1 GiB peak RSS,
 * 2 GiB read, 1 GiB written. 400 bins of 25 ms: bin 120 covers 3.000..3.025 s.
 */
static void test_series_exact(void **state)
{
	struct fx *f = *state;
	synth_meta(&f->s, "cpus", "8");
	synth_meta(&f->s, "hostname", "synth");
	struct exit_vals w = {.utime = 3 * SEC_NS, .stime = SEC_NS, .rss_kib = 1048576,
			      .rchar = 2ull << 30, .wchar = 1ull << 30};
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh|-c|worker", "sh", f->v);
	s_proc(&f->s, 100, 101, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/worker", "worker",
	       "worker", w);
	fx_build(f, 0);

	char *c = script(&f->b, TZA_PLOT_CPU, 0);
	char *r = row(c, "$S", 120);
	assert_true(field(r, 0) > 3.0 && field(r, 0) < 3.025);
	assert_float_equal(field(r, -1), 2.0, 1e-9); /* 4 CPU-s over 2 s = 2 cores */
	free(r);
	r = row(c, "$S", 20); /* 0.5 s: nothing runs but the idle shell */
	assert_float_equal(field(r, -1), 0.0, 1e-9);
	free(r);
	assert_non_null(strstr(c, "title '8 CPUs'"));
	assert_non_null(strstr(c, "spread evenly"));
	free(c);

	c = script(&f->b, TZA_PLOT_MEM, 0);
	r = row(c, "$S", 120);
	/* worker's 1024 MiB plus the shell's 0 */
	assert_float_equal(field(r, -1), 1024.0, 1e-6);
	free(r);
	assert_non_null(strstr(c, "peak RSS held"));
	free(c);

	c = script(&f->b, TZA_PLOT_IO, 0);
	r = row(c, "$IO", 120);
	assert_float_equal(field(r, 1), 1024.0, 1e-6); /* 2 GiB / 2 s = 1024 MiB/s read */
	assert_float_equal(field(r, 2), 512.0, 1e-6);  /* 1 GiB / 2 s written */
	free(r);
	free(c);

	c = script(&f->b, TZA_PLOT_GANTT, 0);
	assert_non_null(strstr(c, "one bar per process"));
	assert_non_null(strstr(c, "\"100 sh\" 0, \"101 worker\" 1)"));
	assert_non_null(strstr(c, "on synth,"));
	/* the worker's bar: 2..4 s on row 1 */
	r = row(c, "$BARS", 1);
	assert_float_equal(field(r, 0), 2.0, 1e-6);
	assert_float_equal(field(r, 1), 4.0, 1e-6);
	free(r);
	free(c);
}

/*
 * CPU time spread over a life that puts more cores in a bin than the
 * machine has (8 CPU-s in 2 s on 2 CPUs) is held to the CPU count, and the
 * subtitle says how much: 80 bins of 25 ms, 4 CPU-s beyond the machine.
 */
static void test_cpu_clamp(void **state)
{
	struct fx *f = *state;
	synth_meta(&f->s, "cpus", "2");
	struct exit_vals w = {.utime = 8 * SEC_NS};
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh|-c|worker", "sh", f->v);
	s_proc(&f->s, 100, 101, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/worker", "worker",
	       "worker", w);
	fx_build(f, 0);
	char *c = script(&f->b, TZA_PLOT_CPU, 0);
	for (int k = 0; k < 400; k++) {
		char *r = row(c, "$S", k);
		assert_true(field(r, -1) <= 2.0 + 1e-9);
		if (k == 120)
			assert_float_equal(field(r, -1), 2.0, 1e-9);
		free(r);
	}
	assert_non_null(strstr(c, "80 of 400 bins held to 2 CPUs (4 CPU-s spread there beyond the machine)"));
	free(c);
}

/* 3000 short processes collapse into one row per tool; failures are marked. */
static void test_gantt_many(void **state)
{
	struct fx *f = *state;
	struct exit_vals bad = {.code = 1};
	s_proc(&f->s, 1, 100, T0, T0 + 20 * SEC_NS, "/bin/sh", "sh|run.sh", "sh", f->v);
	for (uint32_t i = 0; i < 3000; i++)
		s_proc(&f->s, 100, 1000 + i, T0 + SEC_NS + i * 5 * MS,
		       T0 + SEC_NS + i * 5 * MS + MS, "/bin/true", "true", "true", f->v);
	s_proc(&f->s, 100, 5000, T0 + 18 * SEC_NS, T0 + 19 * SEC_NS, "/bin/false", "false", "false",
	       bad);
	s_proc(&f->s, 100, 5001, T0 + 18 * SEC_NS, T0 + 19 * SEC_NS, "/bin/false", "false", "false",
	       bad);
	fx_build(f, 0);
	char *c = script(&f->b, TZA_PLOT_GANTT, 0);
	assert_non_null(strstr(c, "one row per group"));
	assert_non_null(strstr(c, "\"true  x3000\""));
	assert_non_null(strstr(c, "\"false  x2\""));
	assert_non_null(strstr(c, "non-zero exit or signal (2)"));
	char *r = row(c, "$FAIL", 2);
	assert_string_equal(r, "EOD");
	free(r);
	/* 3000 back-to-back 1 ms processes (4 ms apart, under a 1/1500 of the 20 s
	 * window) are drawn as one box: sh + true + 2 overlapping false = 4 boxes */
	const char *bs = strstr(c, "$BARS << EOD\n"), *be = bs ? strstr(bs, "\nEOD\n") : NULL;
	assert_non_null(be);
	int boxes = 0;
	for (const char *q = bs; q < be; q++)
		boxes += *q == '\n';
	assert_int_equal(boxes, 4);
	/* three rows: the script, true, false */
	assert_non_null(strstr(c, "\"run.sh\" 0, \"true  x3000\" 1, \"false  x2\" 2)"));
	free(c);
}

/* More groups than rows: the smallest share an "other" row. */
static void test_gantt_other(void **state)
{
	struct fx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 200 * SEC_NS, "/bin/sh", "sh", "sh", f->v);
	for (uint32_t i = 0; i < 100; i++) {
		char exe[64], argv[64];
		snprintf(exe, sizeof(exe), "/usr/bin/tool%03u", i);
		snprintf(argv, sizeof(argv), "tool%03u", i);
		/* tool i runs i+1 seconds: the longest 9 keep their rows with --rows 10 */
		s_proc(&f->s, 100, 200 + i, T0 + SEC_NS, T0 + (2 + i) * SEC_NS, exe, argv, "tool",
		       f->v);
	}
	fx_build(f, 0);
	char *c = script(&f->b, TZA_PLOT_GANTT, 10);
	assert_non_null(strstr(c, "\"other (92 groups)\" 9)"));
	assert_non_null(strstr(c, "\"tool099\""));
	assert_null(strstr(c, "\"tool000\""));
	free(c);
}

/* Quotes, backslashes and control bytes in names cannot break the script. */
static void test_escaping(void **state)
{
	struct fx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 2 * SEC_NS, "/bin/sh", "sh", "sh", f->v);
	s_proc(&f->s, 100, 101, T0 + MS, T0 + SEC_NS, "/tmp/we\"ird\\x\x01y", "we\"ird", "w", f->v);
	fx_build(f, 0);
	char *c = script(&f->b, TZA_PLOT_GANTT, 0);
	/* the safe form (textsafe.h), then gnuplot's escapes */
	assert_non_null(strstr(c, "\"101 we\\\"ird\\\\\\\\x\\\\x01y\""));
	assert_null(strchr(c, '\x01'));
	free(c);
	if (access("/usr/bin/gnuplot", X_OK) == 0) {
		char dir[] = "/tmp/test_plot.XXXXXX";
		assert_non_null(mkdtemp(dir));
		char out[64];
		snprintf(out, sizeof(out), "%s/e.png", dir);
		struct tza_plot_opts o = {.kind = TZA_PLOT_GANTT, .by = TZA_BY_TOOL,
					  .fmt = TZA_PLOT_PNG, .out = out};
		tza_plot_facts(f->b.r, f->b.m, &o);
		char *buf = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&buf, &len);
		assert_int_equal(tza_plot_script(mf, f->b.m, &o), 0);
		fclose(mf);
		assert_int_equal(tza_plot_run(buf, len), 0);
		FILE *p = fopen(out, "rb");
		assert_non_null(p);
		unsigned char magic[8];
		assert_int_equal(fread(magic, 1, 8, p), 8);
		fclose(p);
		assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
		free(buf);
		unlink(out);
		rmdir(dir);
	}
}

/* The picture format by the output's name: its suffix, any case */
static const struct {
	const char *name;
	int fmt; /* -1: none */
} fmt_cases[] = {
    {"a.png", TZA_PLOT_PNG}, {"a.SVG", TZA_PLOT_SVG}, {"dir.x/a.pdf", TZA_PLOT_PDF},
    {"a.jpg", -1},	     {"png", -1},
};

static void test_fmt_of(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fmt_cases) / sizeof(fmt_cases[0]); i++)
		assert_int_equal(tza_plot_fmt_of(fmt_cases[i].name), fmt_cases[i].fmt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    FX_TEST(test_series_exact), FX_TEST(test_cpu_clamp), FX_TEST(test_gantt_many),
	    FX_TEST(test_gantt_other),	FX_TEST(test_escaping),	 cmocka_unit_test(test_fmt_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
