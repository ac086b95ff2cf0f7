/* SPDX-License-Identifier: BSD-2-Clause */
/* test_exit_lost_views.c - processes whose exit event was lost
 * (TZA_P_EXIT_LOST) in the views beside summary/tree: `plot` (gantt bars end
 * at the last event and are marked; cpu/mem stop there), `idle` (not alive
 * past the last event) and `export --format chrome` (slice ends there, args
 * say exit_lost). One synthetic trace through the real writer, reader and
 * model (analyze_synth.h); the commands run in-process on a temporary file. */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze_synth.h"
#include "analyze/analyze.h"
#include "analyze/model.h"
#include "analyze/plot.h"

static char dir[64], trace[128];

/*
 * 2 CPUs, 20 s. sh job.sh (100) runs 0..20 s; worker (101) forks at 2 s,
 * is sampled at 4 s (1.5 CPU-s, 1 GiB) and its exit is lost: it ends at 4 s;
 * lost (103) forks at 5 s, execs at 5.5 s, exit lost: ends at 5.5 s;
 * server (102) forks at 10 s and is still running at the stop (listed in
 * alive_at_stop): it runs to 20 s.
 */
static void scen(struct synth *s)
{
	struct exit_vals z = {0};
	synth_meta(s, "cpus", "2");
	synth_meta(s, "hostname", "synth");
	synth_meta(s, "alive_at_stop", "102");
	s_fork(s, T0, 1, 100);
	s_exec(s, T0 + MS, 100, T0, 1, "/bin/sh", NULL, "sh|job.sh", "sh");
	s_fork(s, T0 + 2 * SEC_NS, 100, 101);
	s_exec(s, T0 + 2 * SEC_NS + MS, 101, T0 + 2 * SEC_NS, 100, "/usr/bin/worker", NULL,
	       "worker|-x", "worker");
	s_sample_cpu(s, T0 + 4 * SEC_NS, 101, T0 + 2 * SEC_NS, 1500 * MS, 1048576);
	s_fork(s, T0 + 5 * SEC_NS, 100, 103);
	s_exec(s, T0 + 5500 * MS, 103, T0 + 5 * SEC_NS, 100, "/usr/bin/lost", NULL, "lost", "lost");
	s_fork(s, T0 + 10 * SEC_NS, 100, 102);
	s_exec(s, T0 + 10 * SEC_NS + MS, 102, T0 + 10 * SEC_NS, 100, "/usr/bin/server", NULL,
	       "server", "server");
	s_exit(s, T0 + 20 * SEC_NS, 100, T0, 1, "sh", z);
}

static int setup(void **st)
{
	(void)st;
	struct synth s = {0};
	size_t len;
	scen(&s);
	void *buf = synth_file(&s, NULL, &len);
	synth_free(&s);
	snprintf(dir, sizeof(dir), "/tmp/test_exit_lost.XXXXXX");
	if (!buf || !mkdtemp(dir))
		return -1;
	snprintf(trace, sizeof(trace), "%s/lost.tz", dir);
	FILE *f = fopen(trace, "wb");
	int bad = !f || fwrite(buf, 1, len, f) != len;
	bad |= f && fclose(f);
	free(buf);
	return bad ? -1 : 0;
}

static int teardown(void **st)
{
	(void)st;
	char p[192];
	const char *names[] = {"lost.tz", "out.txt", "chrome.json"};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return 0;
}

/* The whole of path, NUL-terminated (malloc'd). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = NULL;
	size_t cap = 0, n = 0, k;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		k = fread(buf + n, 1, 4096, f);
		n += k;
	} while (k);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* Run a command handler in-process with stdout in dir/out.txt; its output. */
static char *run(int (*fn)(int, char **), char **av, int want_rc)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	int rc = tza_run_to_fd(fn, av, fd);
	close(fd);
	assert_int_equal(rc, want_rc);
	return slurp(path);
}

/* The trace (the file at trace) read into memory and built: a test's *state
 * from loaded_setup, freed by loaded_teardown. */
struct loaded {
	void *buf;	     /* the file's bytes */
	tz_reader *r;	     /* reads buf */
	struct tza_model *m; /* built with samples */
};

static int loaded_setup(void **st)
{
	struct loaded *l = calloc(1, sizeof(*l));
	assert_non_null(l);
	FILE *f = fopen(trace, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	l->buf = malloc((size_t)len);
	assert_int_equal(fread(l->buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_int_equal(tz_reader_open_mem(&l->r, l->buf, (size_t)len, "lost.tz", NULL), 0);
	assert_int_equal(tza_model_build_ex(l->r, 0, UINT64_MAX, TZA_MB_SAMPLES, &l->m), 0);
	assert_int_equal(l->m->exit_lost, 2);
	*st = l;
	return 0;
}

static int loaded_teardown(void **st)
{
	struct loaded *l = *st;
	tza_model_free(l->m);
	tz_reader_free(l->r);
	free(l->buf);
	free(l);
	return 0;
}

#define LOADED_TEST(t) cmocka_unit_test_setup_teardown(t, loaded_setup, loaded_teardown)

/* to_ns: window end, CLOCK_BOOTTIME ns (0: the trace's end) */
static char *script(tz_reader *r, struct tza_model *m, enum tza_plot_kind kind, uint64_t to_ns)
{
	struct tza_plot_opts o = {.kind = kind, .by = TZA_BY_TOOL, .fmt = TZA_PLOT_PNG,
				  .out = "/dev/null", .to_ns = to_ns};
	tza_plot_facts(r, m, &o);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(tza_plot_script(f, m, &o), 0);
	fclose(f);
	return plot_unwrap(out);
}

/* The rows of datablock name, each "\n"-terminated (malloc'd). */
static char *block(const char *s, const char *name)
{
	char head[32];
	snprintf(head, sizeof(head), "%s << EOD\n", name);
	const char *p = strstr(s, head);
	assert_non_null(p);
	p += strlen(head);
	const char *e = strstr(p, "EOD\n");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p));
}

/* Field k (0-based; -1: the last) of row b of datablock name. */
static double cell(const char *s, const char *name, int b, int k)
{
	char *all = block(s, name), *p = all;
	for (int i = 0; i < b; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	char *e = strchr(p, '\n'), *save = NULL, *tok, *got = NULL;
	assert_non_null(e);
	*e = 0;
	tok = strtok_r(p, " ", &save);
	for (int i = 0; tok; i++, tok = strtok_r(NULL, " ", &save))
		if (i == k || k < 0)
			got = tok;
	assert_non_null(got);
	double v = strtod(got, NULL);
	free(all);
	return v;
}

/* gantt: the lost ones' bars end at their last event and are marked; the
 * running server's bar goes to the end */
static void test_plot_gantt(void **st)
{
	struct loaded *l = *st;
	tz_reader *r = l->r;
	struct tza_model *m = l->m;
	char *c = script(r, m, TZA_PLOT_GANTT, 0);
	assert_non_null(strstr(c, "\"100 job.sh\" 0, \"101 worker\" 1, \"103 lost\" 2, "
				  "\"102 server\" 3)"));
	/* colours by wall time (no CPU known): sh, server, worker, lost */
	char *b = block(c, "$BARS");
	assert_string_equal(b, "0.000000 20.000000 -0.4000 0.4000 5142951\n"
			       "2.000000 4.000000 0.6000 1.4000 5873999\n"
			       "5.000000 5.500000 1.6000 2.4000 7780274\n"
			       "10.000000 20.000000 2.6000 3.4000 15896107\n");
	free(b);
	b = block(c, "$LOST");
	assert_string_equal(b, "4.000000 1.0000\n5.500000 2.0000\n");
	free(b);
	assert_non_null(strstr(c, "title 'exit lost: ends at its last event (2)'"));
	assert_non_null(strstr(c, "# 1 process still running at the end of the window\n"));
	/* the worker's label: ends at 4 s, 2 s long */
	assert_non_null(strstr(c, "set label \"worker  2.0 s  (exit lost)\" at 4.000000,1.0000 "));
	free(c);
	/* a window ending at 3 s, before the worker's last event: it is drawn to
	 * the window's end, unmarked, as running then */
	c = script(r, m, TZA_PLOT_GANTT, T0 + 3 * SEC_NS);
	b = block(c, "$BARS");
	assert_string_equal(b, "0.000000 3.000000 -0.4000 0.4000 5142951\n"
			       "2.000000 3.000000 0.6000 1.4000 15896107\n");
	free(b);
	assert_null(strstr(c, "$LOST"));
	assert_null(strstr(c, "exit lost"));
	assert_non_null(strstr(c, "# 1 process still running at the end of the window\n"));
	free(c);
}

/* cpu and mem: the worker's sampled CPU and RSS stop at its last event; the
 * lost one without samples is counted apart from the running one */
static void test_plot_series(void **st)
{
	struct loaded *l = *st;
	tz_reader *r = l->r;
	struct tza_model *m = l->m;
	/* 400 bins of 50 ms: bin 60 is 3.00..3.05 s, bin 100 is 5.00..5.05 s */
	char *c = script(r, m, TZA_PLOT_MEM, 0);
	assert_float_equal(cell(c, "$S", 60, 0), 3.025, 1e-9);
	assert_float_equal(cell(c, "$S", 60, -1), 1024.0, 1e-6); /* the worker's, the others 0 */
	assert_float_equal(cell(c, "$S", 79, -1), 1024.0, 1e-6); /* 3.95..4.00 s */
	assert_float_equal(cell(c, "$S", 80, -1), 0.0, 1e-9);	/* 4.00..4.05 s: gone */
	assert_float_equal(cell(c, "$S", 100, -1), 0.0, 1e-9);
	assert_non_null(strstr(c, "; 1 still running and 1 with a lost exit, not counted\""));
	free(c);
	c = script(r, m, TZA_PLOT_CPU, 0);
	assert_float_equal(cell(c, "$S", 60, -1), 0.75, 1e-9); /* 1.5 CPU-s over 2..4 s */
	assert_float_equal(cell(c, "$S", 80, -1), 0.0, 1e-9);
	assert_non_null(strstr(c, "; 1 still running and 1 with a lost exit, not counted\""));
	free(c);
}

/* idle (procs basis: 0.75 cores from 2 to 4 s, nothing else): 0..2 s and
 * 4..20 s; the worker is not alive in the second, lost only 5..5.5 s */
static void test_idle(void **st)
{
	(void)st;
	char *av[] = {"idle", "--json", "--min-duration", "1s", trace, NULL};
	char *out = run(cmd_idle, av, TZA_EXIT_OK);
	char want[2048];
	snprintf(want, sizeof(want),
		 "{\"file\":\"%s\",\"threshold_pct\":25,\"min_duration_s\":1,\"basis\":\"procs\","
		 "\"cpus\":2,\"stretches\":["
		 "{\"start_s\":0,\"end_s\":2,\"duration_s\":2,\"mean_cores\":0,\"host_cores\":null,"
		 "\"processes_alive\":1,\"processes\":[{\"id\":\"100.1000000000000\",\"pid\":100,"
		 "\"name\":\"job.sh\",\"cpu_s\":0,\"whole\":true}]},"
		 "{\"start_s\":4,\"end_s\":20,\"duration_s\":16,\"mean_cores\":0,\"host_cores\":null,"
		 "\"processes_alive\":3,\"processes\":[{\"id\":\"100.1000000000000\",\"pid\":100,"
		 "\"name\":\"job.sh\",\"cpu_s\":0,\"whole\":true},"
		 "{\"id\":\"103.1005000000000\",\"pid\":103,\"name\":\"lost\",\"cpu_s\":0,"
		 "\"whole\":false},"
		 "{\"id\":\"102.1010000000000\",\"pid\":102,\"name\":\"server\",\"cpu_s\":0,"
		 "\"whole\":false}]}],"
		 "\"idle_s\":18,\"span_s\":20}\n",
		 trace);
	assert_string_equal(out, want);
	free(out);
	/* text: the worker is not listed in the second stretch */
	char *av2[] = {"idle", "--min-duration", "1s", trace, NULL};
	out = run(cmd_idle, av2, TZA_EXIT_OK);
	assert_non_null(strstr(out, "(16.000s)  0.00 cores busy on average, 3 processes alive\n"));
	assert_null(strstr(out, "worker"));
	assert_non_null(strstr(out, "\n    pid 103     lost                            0.000 CPU-s  (exit lost)\n"));
	free(out);
}

/* chrome: slices end at the last event, args say exit_lost (peak RSS null:
 * no exit, no sample, as export jsonl and tree), the counter of
 * processes running drops then */
static void test_chrome(void **st)
{
	(void)st;
	char path[192];
	snprintf(path, sizeof(path), "%s/chrome.json", dir);
	char *av[] = {"export", "--format", "chrome", "-o", path, trace, NULL};
	free(run(cmd_export, av, TZA_EXIT_OK));
	char *out = slurp(path);
	assert_non_null(strstr(out,
		"{\"ph\":\"X\",\"cat\":\"process\",\"name\":\"worker\",\"ts\":2000000.000,"
		"\"dur\":2000000.000,\"pid\":2,\"tid\":101,\"args\":{\"id\":\"101.1002000000000\","
		"\"parent_id\":\"100.1000000000000\",\"exe\":\"/usr/bin/worker\","
		"\"argv\":[\"worker\",\"-x\"],\"exit_lost\":true,\"cpu_s\":0,\"peak_rss_kib\":null}}"));
	assert_non_null(strstr(out,
		"{\"ph\":\"X\",\"cat\":\"process\",\"name\":\"lost\",\"ts\":5000000.000,"
		"\"dur\":500000.000,\"pid\":3,\"tid\":103,\"args\":{\"id\":\"103.1005000000000\","
		"\"parent_id\":\"100.1000000000000\",\"exe\":\"/usr/bin/lost\","
		"\"argv\":[\"lost\"],\"exit_lost\":true,\"cpu_s\":0,\"peak_rss_kib\":null}}"));
	/* the server is still running: to the end, and says so */
	assert_non_null(strstr(out, "\"ts\":10000000.000,\"dur\":10000000.000,\"pid\":4,"
				    "\"tid\":102,"));
	assert_non_null(strstr(out, "\"argv\":[\"server\"],\"running\":true,"));
	/* running: 2 from 2 s, 1 at 4 s, 2 at 5 s, 1 at 5.5 s, 2 at 10 s, 0 at 20 s */
	const char *ts[] = {"4000000.000", "5500000.000", "20000000.000"};
	const int n[] = {1, 1, 0};
	for (int i = 0; i < 3; i++) {
		char want[160];
		snprintf(want, sizeof(want),
			 "{\"ph\":\"C\",\"name\":\"processes running\",\"pid\":0,\"tid\":0,"
			 "\"ts\":%s,\"args\":{\"processes\":%d}}",
			 ts[i], n[i]);
		assert_non_null(strstr(out, want));
	}
	free(out);
}

int main(int argc, char **argv)
{
	/* --write DIR: leave the trace there as DIR/lost.tz (for a look by hand) */
	if (argc == 3 && !strcmp(argv[1], "--write")) {
		struct synth s = {0};
		size_t len;
		scen(&s);
		void *buf = synth_file(&s, NULL, &len);
		snprintf(trace, sizeof(trace), "%s/lost.tz", argv[2]);
		FILE *f = fopen(trace, "wb");
		int bad = !buf || !f || fwrite(buf, 1, len, f) != len;
		bad |= f && fclose(f);
		free(buf);
		synth_free(&s);
		return bad;
	}
	const struct CMUnitTest tests[] = {
		LOADED_TEST(test_plot_gantt), LOADED_TEST(test_plot_series),
		cmocka_unit_test(test_idle), cmocka_unit_test(test_chrome),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
