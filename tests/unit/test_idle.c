/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_idle.c - `idle`'s computing half (analyze/idle.h): the idle stretches
 * of the recorded processes' CPU and who was alive in each, on a synthetic
 * trace (tests/unit/analyze_synth.h) whose CPU use is designed: 2 CPUs; sh
 * (pid 100, 0..10 s, no CPU) runs busy (pid 101, 0.001..4 s, one core) then
 * light (pid 102, 4..9.5 s, 0.1 core).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "helper.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the shared scenarios */
#include "analyze_synth.h"
#pragma GCC diagnostic pop
#include "synth_model.h"
#include "analyze/idle.h"
#include "analyze/model.h"
#include "analyze/report.h"

/* Write s into memory, free it, and read it back into b with its samples */
static void open_synth(struct synth *s, struct built *b)
{
	build_model(s, NULL, TZA_MB_SAMPLES, b);
	synth_free(s);
}

static void build_two_phase(struct built *b)
{
	struct synth s = {0};
	struct exit_vals z = {0};
	synth_meta(&s, "cpus", "2");
	s_fork(&s, T0, 50, 100);
	s_exec(&s, T0 + 1000, 100, T0, 50, "/usr/bin/dash", NULL, "sh|run.sh", "sh");
	s_proc(&s, 100, 101, T0 + 1 * MS, T0 + 4000 * MS, "/opt/bin/busy", "busy", "busy",
	       (struct exit_vals){.utime = 3999 * MS});
	s_proc(&s, 100, 102, T0 + 4000 * MS, T0 + 9500 * MS, "/opt/bin/light", "light", "light",
	       (struct exit_vals){.utime = 550 * MS});
	s_exit(&s, T0 + 10000 * MS, 100, T0, 50, "sh", z);
	open_synth(&s, b);
	assert_int_equal(b->mi.ncpus, 2);
}

/* The procs-basis stretches of b under pct %: exactly one, [a, z) */
static void one_stretch(const struct built *b, double pct, uint64_t a, uint64_t z,
			struct tza_idle *id)
{
	assert_int_equal(tza_idle_compute(b->m, &b->mi, TZA_IDLE_PROCS, pct, 0, id), 0);
	assert_int_equal(id->nv, 1);
	assert_int_equal(id->v[0].a, a);
	assert_int_equal(id->v[0].b, z);
}

/* under 25 % of 2 cores: the light phase only, as one merged stretch of
 * 100 ms bins; the busy phase (50 %) is not idle */
static void test_light_phase(void **st)
{
	struct built b;
	struct tza_idle id;
	build_two_phase(&b);
	one_stretch(&b, 25, T0 + 4000 * MS, T0 + 10000 * MS, &id);
	assert_int_equal(id.ncpus, 2);
	assert_int_equal(id.span_a, b.m->t0_ns);
	assert_int_equal(id.span_b, b.m->t1_ns);
	/* light's 0.55 CPU-s of 6 s x 2 cores */
	assert_true(fabs(id.v[0].busy_ns - 550e6) < 1e3);
	assert_true(fabs(id.v[0].total_ns - 12e9) < 1);

	/* alive: light (most CPU, started at the stretch's start but gone
	 * before its end) then sh (no CPU, the whole stretch); busy ended at
	 * the stretch's start and is not listed */
	struct tza_idle_who w[8];
	assert_true(b.m->nprocs <= 8);
	uint32_t nw = tza_idle_alive(b.m, &id.v[0], 0, w);
	assert_int_equal(nw, 2);
	assert_int_equal(w[0].p->pid, 102);
	assert_false(w[0].whole);
	assert_true(fabs(w[0].cpu_ns - 550e6) < 1e3);
	assert_int_equal(w[1].p->pid, 100);
	assert_true(w[1].whole);
	tza_idle_free(&id);
	assert_null(id.v);
	unbuild(&b);
}

/* under 1 %: only the last half second, when sh alone was alive */
static void test_threshold_low(void **st)
{
	struct built b;
	struct tza_idle id;
	build_two_phase(&b);
	one_stretch(&b, 1, T0 + 9500 * MS, T0 + 10000 * MS, &id);
	assert_true(id.v[0].busy_ns < 1);
	struct tza_idle_who w[8];
	assert_int_equal(tza_idle_alive(b.m, &id.v[0], 0, w), 1);
	assert_int_equal(w[0].p->pid, 100);
	tza_idle_free(&id);

	/* 100 %: every bin is under it, one stretch over the whole span */
	one_stretch(&b, 100, b.m->t0_ns, b.m->t1_ns, &id);
	tza_idle_free(&id);
	unbuild(&b);
}

/* a trace of one instant (an empty span): no stretch, nothing to free,
 * the metadata's CPU count kept */
static void test_empty_span(void **st)
{
	struct synth s = {0};
	struct built b;
	struct tza_idle id;
	synth_meta(&s, "cpus", "4");
	s_fork(&s, T0, 50, 100);
	open_synth(&s, &b);
	assert_int_equal(tza_idle_compute(b.m, &b.mi, TZA_IDLE_PROCS, 25, 1, &id), 0);
	assert_int_equal(id.ncpus, 4);
	assert_int_equal(id.nv, 0);
	assert_null(id.v);
	tza_idle_free(&id);
	unbuild(&b);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_light_phase), cmocka_unit_test(test_threshold_low),
	  cmocka_unit_test(test_empty_span))
