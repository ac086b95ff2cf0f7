/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_report.c - report.c helpers of the text outputs: the "cpus" metadata
 * parsed with a range check (cpus=-5 is unknown, not 4294967291 CPUs), the
 * key column of top/summary/diff (widens to the data up to 60 bytes, longer
 * keys keep their end behind "..."), and the CPU profile (tza_profile_*)
 * over hand-made models, to the last bit of each double.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the shared scenarios */
#include "analyze_synth.h"
#pragma GCC diagnostic pop
#include "analyze/model.h"
#include "analyze/report.h"

static void test_parse_cpus(void **st)
{
	(void)st;
	assert_int_equal(tza_parse_cpus("8"), 8);
	assert_int_equal(tza_parse_cpus("1"), 1);
	assert_int_equal(tza_parse_cpus("65536"), 65536);
	assert_int_equal(tza_parse_cpus("65537"), 0);
	assert_int_equal(tza_parse_cpus("-5"), 0);
	assert_int_equal(tza_parse_cpus("0"), 0);
	assert_int_equal(tza_parse_cpus(""), 0);
	assert_int_equal(tza_parse_cpus("4x"), 0);
	assert_int_equal(tza_parse_cpus(" 4"), 0);
	assert_int_equal(tza_parse_cpus("99999999999999999999999"), 0);
	assert_int_equal(tza_parse_cpus(NULL), 0);
}

static void machine(const char *cpus, const char *mem, struct tza_machine *mi)
{
	struct synth s = {0};
	synth_meta(&s, "cpus", cpus);
	synth_meta(&s, "memory_kib", mem);
	s_fork(&s, T0, 1, 2);
	size_t len = 0;
	void *buf = synth_file(&s, NULL, &len);
	assert_non_null(buf);
	tz_reader *r = NULL;
	assert_int_equal(tz_reader_open_mem(&r, buf, len, "synth.tz", NULL), 0);
	tza_machine_get(r, mi);
	tz_reader_free(r);
	free(buf);
	synth_free(&s);
}

static void test_machine_get(void **st)
{
	(void)st;
	struct tza_machine mi;
	machine("4", "1024", &mi);
	assert_int_equal(mi.ncpus, 4);
	assert_int_equal(mi.mem_kib, 1024);
	machine("-5", "-1", &mi);
	assert_int_equal(mi.ncpus, 0);
	assert_true(mi.mem_kib != UINT64_MAX); /* junk is skipped, never read as -1 */
}

static void test_key_column(void **st)
{
	(void)st;
	const char *keys[] = {"short", "/a/path/of/exactly/forty/bytes/long/tool", NULL};
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 1), 28);
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 2), 40);
	char longk[100];
	memset(longk, 'x', sizeof(longk) - 6);
	strcpy(longk + sizeof(longk) - 6, "/true");
	keys[2] = longk;
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 3), TZA_KEY_MAX);
	char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");
	tza_put_key(f, longk, TZA_KEY_MAX);
	tza_put_key(f, "ab", 4);
	fclose(f);
	assert_int_equal(strlen(out), TZA_KEY_MAX + 4);
	assert_memory_equal(out, "...xxx", 6);
	assert_memory_equal(out + TZA_KEY_MAX - 5, "/trueab  ", 9);
}

/* ------------------------------------------------------------ profile */

/* A model made by hand: only what the profile reads. */
struct hand {
	struct tza_model m;
	struct tza_proc p[8];
	struct tza_proc *v[8];
};

/* The all-zero resource block of every hand-made process */
static const struct tza_proc_res hand_res;

static void hand_init(struct hand *h, uint64_t t0, uint64_t t1)
{
	memset(h, 0, sizeof(*h));
	h->m.t0_ns = t0;
	h->m.t1_ns = t1;
	h->m.procs = h->v;
}

/* The next process in h->m.procs: cpu ns split over utime and stime. */
static void hand_proc(struct hand *h, uint64_t start, uint64_t end, uint64_t cpu, uint32_t flags)
{
	uint32_t i = h->m.nprocs++;
	struct tza_proc *p = &h->p[i];
	p->start_ns = start;
	p->end_ns = end;
	p->utime_ns = cpu / 3;
	p->stime_ns = cpu - cpu / 3;
	p->flags = flags;
	p->index = i;
	p->res = &hand_res; /* never NULL in a model (model.h) */
	h->v[i] = p;
}

/* Exactly the same double (bits), with both printed when not. */
#define assert_same_double(got, want)                                                      \
	do {                                                                               \
		double g_ = (got), w_ = (want);                                            \
		if (memcmp(&g_, &w_, sizeof(g_)))                                          \
			fail_msg("%s: got %a (%.17g), want %a (%.17g)", #got, g_, g_, w_, w_); \
	} while (0)

static double cpu_ns(struct tza_profile *pr, uint64_t a, uint64_t b)
{
	double v = -1;
	assert_int_equal(tza_profile_cpu_ns(pr, a, b, &v), 0);
	return v;
}

/*
 * Rates (cores) over time of the model below, the CPU of each process spread
 * over its life: [50, 100) 2, [100, 200) 3.5, [200, 300) 4.5, [300, 400) 4,
 * [400, 500) 2, [500, 600) 3, [600, 1000) 2, then 0. CPU used before x:
 * 50: 0, 100: 100, 200: 450, 300: 900, 400: 1300, 500: 1500, 600: 1800,
 * 1000 and after: 2600.
 */
static void steps_model(struct hand *h)
{
	hand_init(h, 100, 1000);
	/* pre-existing, still running: from its real start to the trace's end */
	hand_proc(h, 50, 0, 1900, TZA_P_PRE_EXISTING | TZA_P_NO_EXIT);
	hand_proc(h, 100, 300, 100, 0); /* 0.5, starts with the next */
	hand_proc(h, 100, 200, 100, 0); /* 1 */
	hand_proc(h, 200, 300, 0, 0);	/* no CPU: no steps */
	hand_proc(h, 200, 400, 400, 0); /* 2, starts where the one before ends */
	hand_proc(h, 300, 300, 10, 0);	/* no life: no steps */
	/* exit lost: it ends at its last event (end_ns), not the trace's end */
	hand_proc(h, 500, 600, 100, TZA_P_NO_EXIT | TZA_P_EXIT_LOST);
}

static const struct {
	uint64_t a, b;
	double ns;
} steps_want[] = {
	{0, 10, 0},		    /* before the first step */
	{0, 50, 0},		    /* up to the first step */
	{0, 75, 50},
	{100, 1000, 2500},	    /* summary's window */
	{150, 250, 400},	    /* across a step */
	{1000, 2000, 0},	    /* after the last step */
	{900, 5000, 200},
	{0, UINT64_MAX, 2600},
	{250, 250, 0},		    /* empty */
	{300, 200, 0},		    /* backwards */
	{500, 600, 300},	    /* the exit-lost one's life */
};

/* bg: the wanted windows are swept by tza_profile_sweep_start (on a second
 * thread when there are two CPUs), then asked: the same answers */
static void check_steps_ex(struct hand *h, int bg)
{
	struct tza_profile *pr = tza_profile_new(&h->m);
	assert_non_null(pr);
	for (size_t i = 0; i < sizeof(steps_want) / sizeof(steps_want[0]); i++)
		assert_int_equal(tza_profile_want(pr, steps_want[i].a, steps_want[i].b), 0);
	if (bg) {
		assert_int_equal(tza_profile_sweep_start(pr), 0);
		assert_int_equal(tza_profile_sweep_start(pr), 0); /* busy or done: no-op */
	}
	for (size_t i = 0; i < sizeof(steps_want) / sizeof(steps_want[0]); i++)
		assert_same_double(cpu_ns(pr, steps_want[i].a, steps_want[i].b), steps_want[i].ns);
	/* not wanted: a sweep of its own, the others still answered */
	assert_same_double(cpu_ns(pr, 550, 650), 250);
	assert_same_double(cpu_ns(pr, 150, 250), 400);
	assert_same_double(cpu_ns(pr, 350, 450), 300);
	if (bg) { /* wanted while nobody asks, then freed: the thread is joined */
		assert_int_equal(tza_profile_want(pr, 120, 130), 0);
		assert_int_equal(tza_profile_sweep_start(pr), 0);
	}
	tza_profile_free(pr);
}

static void check_steps(struct hand *h)
{
	check_steps_ex(h, 0);
	check_steps_ex(h, 1);
}

static void test_profile_steps(void **st)
{
	(void)st;
	struct hand h;
	steps_model(&h);
	check_steps(&h);
}

/* A model not sorted by start takes the other way (the whole list sorted):
 * the same answers. */
static void test_profile_unsorted(void **st)
{
	(void)st;
	struct hand h;
	steps_model(&h);
	struct tza_proc *x = h.v[1];
	h.v[1] = h.v[6];
	h.v[6] = x;
	check_steps(&h);
}

/*
 * The doubles depend on the order of the steps: 0.3 + 0.6 - 0.3 - 0.6 is
 * -1.1e-16 (clamped to 0 cores, but the sum goes on from there), - 0.6
 * first would be -5.6e-17; the end at 1000015 comes before the start at
 * the same time. The values are those of the profile before it swept
 * (one array per step), which the outputs of summary and top were made with.
 */
static void test_profile_float_order(void **st)
{
	(void)st;
	struct hand h;
	hand_init(&h, 0, 2000015);
	hand_proc(&h, 0, 10, 3, 0);			  /* 0.3 */
	hand_proc(&h, 0, 10, 6, 0);			  /* 0.6, ends after 0.3 */
	hand_proc(&h, 15, 1000015, 200000, 0);		  /* 0.2 */
	hand_proc(&h, 1000015, 2000015, 500000, 0);	  /* 0.5 */
	struct tza_profile *pr = tza_profile_new(&h.m);
	assert_non_null(pr);
	assert_int_equal(tza_profile_want(pr, 10, 15), 0);
	assert_int_equal(tza_profile_want(pr, 15, 1000015), 0);
	assert_same_double(cpu_ns(pr, 0, 10), 9.0);
	assert_same_double(cpu_ns(pr, 10, 15), 0.0); /* not -5.6e-16 */
	assert_same_double(cpu_ns(pr, 15, 1000015), 0x1.869fffffffffdp+17);
	assert_same_double(cpu_ns(pr, 1000015, 2000015), 0x1.e847ffffffffep+18);
	assert_same_double(cpu_ns(pr, 0, 2000015), 0x1.55cd1fffffffep+19);
	assert_same_double(cpu_ns(pr, 500000, 1500000), 0x1.55cadffffffffp+18);
	assert_same_double(cpu_ns(pr, 2000015, 3000000), 0.0);
	tza_profile_free(pr);
}

static void test_profile_empty(void **st)
{
	(void)st;
	struct hand h;
	hand_init(&h, 100, 200);
	struct tza_profile *pr = tza_profile_new(&h.m);
	assert_non_null(pr);
	assert_same_double(cpu_ns(pr, 0, 300), 0.0);
	hand_proc(&h, 100, 200, 0, 0); /* no CPU */
	assert_same_double(cpu_ns(pr, 50, 150), 0.0);
	tza_profile_free(pr);
	tza_profile_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cpus),
		cmocka_unit_test(test_machine_get),
		cmocka_unit_test(test_key_column),
		cmocka_unit_test(test_profile_steps),
		cmocka_unit_test(test_profile_unsorted),
		cmocka_unit_test(test_profile_float_order),
		cmocka_unit_test(test_profile_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
