/* SPDX-License-Identifier: BSD-2-Clause */
/* test_plot_layout.c - the plot's compute steps (plot_int.h): the gantt's
 * rows and lanes (plot_gantt_layout), the cpu/mem series
 * (plot_stack_compute) and the io series (plot_io_compute), checked as
 * structs, not through the script. Synthetic traces through the real
 * writer, reader and model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "helper.h"

#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze_synth.h"
#include "synth_model.h"
#include "analyze/analyze.h"
#include "analyze/model.h"
#include "analyze/plot_int.h"

struct layout {
	struct built t;
	struct tza_plot_opts o;
	struct plot_ctx c;
};

/* s's model, and a plot context over its whole range with opts o. */
static void build(struct synth *s, struct layout *b, struct tza_plot_opts o)
{
	build_model(s, NULL, 0, &b->t);
	b->o = o;
	assert_int_equal(plot_ctx_init(&b->c, b->t.m, &b->o), 0);
}

static void unbuild_layout(struct layout *b)
{
	plot_ctx_free(&b->c);
	unbuild(&b->t);
}

/* The bar of the process with this pid. */
static const struct plot_bar *bar_of(const struct layout *b, const struct plot_gantt_layout *g,
				     uint32_t pid)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (b->t.m->procs[g->bars[i].proc]->pid == pid)
			return &g->bars[i];
	fail_msg("no bar for pid %u", pid);
	return NULL;
}

/* The state of one test (lfx_setup/lfx_teardown, LFX_TEST): its synthetic
 * trace, a clean exit's values (all zero), the model and plot context built
 * last (gantt, stack) and what they computed; the teardown frees it all. */
struct lfx {
	struct synth s;
	struct exit_vals z;
	struct layout b;
	int built;
	struct plot_gantt_layout g;
	int has_g;
	struct plot_stack st;
};

static int lfx_setup(void **state)
{
	*state = calloc(1, sizeof(struct lfx));
	return *state ? 0 : -1;
}

static int lfx_teardown(void **state)
{
	struct lfx *f = *state;
	if (f->has_g)
		plot_gantt_layout_free(&f->g);
	free(f->st.bins);
	if (f->built)
		unbuild_layout(&f->b);
	synth_free(&f->s);
	free(f);
	return 0;
}

#define LFX_TEST(t) cmocka_unit_test_setup_teardown(t, lfx_setup, lfx_teardown)

/* f's trace built again (a model and plot context) with opts o. */
static void lfx_build(struct lfx *f, struct tza_plot_opts o)
{
	if (f->built)
		unbuild_layout(&f->b);
	build(&f->s, &f->b, o);
	f->built = 1;
}

/* The gantt's rows and lanes of f's trace with opts o (asserted to succeed). */
static const struct plot_gantt_layout *gantt(struct lfx *f, struct tza_plot_opts o)
{
	lfx_build(f, o);
	assert_int_equal(plot_gantt_layout(&f->b.c, &f->g), 0);
	f->has_g = 1;
	return &f->g;
}

/* The series of f's trace with opts o: cpu (is_cpu 1), mem (0) or, for
 * is_cpu -1, io (plot_io_compute); asserted to succeed. */
static const struct plot_stack *stack(struct lfx *f, struct tza_plot_opts o, int is_cpu)
{
	free(f->st.bins);
	f->st.bins = NULL;
	lfx_build(f, o);
	if (is_cpu < 0)
		assert_int_equal(plot_io_compute(&f->b.c, &f->st), 0);
	else
		assert_int_equal(plot_stack_compute(&f->b.c, is_cpu, &f->st), 0);
	return &f->st;
}

/*
 * Few processes: one row each, in tree order (depth-first, children by
 * start), labelled "PID KEY", one lane each.
 */
static void test_rows_per_process(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	s_proc(&f->s, 100, 101, T0 + 1 * SEC_NS, T0 + 5 * SEC_NS, "/bin/make", "make", "make",
	       f->z);
	s_proc(&f->s, 100, 102, T0 + 2 * SEC_NS, T0 + 3 * SEC_NS, "/usr/bin/ls", "ls", "ls", f->z);
	s_proc(&f->s, 101, 103, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/cc", "cc", "cc", f->z);
	const struct plot_gantt_layout *g =
	    gantt(f, (struct tza_plot_opts){.by = TZA_BY_TOOL, .max_rows = 4});
	assert_int_equal(g->n, 4);
	assert_true(g->per_proc);
	assert_int_equal(g->nrows, 4);
	static const uint32_t tree[] = {100, 101, 103, 102}; /* make's child before ls */
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(f->b.t.m->procs[g->bars[i].proc]->pid, tree[i]);
		assert_int_equal(g->bars[i].row, (int)i);
		assert_int_equal(g->bars[i].lane, 0);
		assert_int_equal(g->rows[i].nlanes, 1);
	}
	assert_string_equal(g->rows[0].label, "100 sh");
	assert_string_equal(g->rows[2].label, "103 cc");
}

/*
 * Past max_rows processes, one row per group; a group's bars go to the
 * earliest free lane, at most 4; a fifth at once takes the lane that
 * frees first; a later one the first free lane again.
 */
static void test_lanes(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 20 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	/* cc: 1-5, 2-6, 3-7, 4-8 (four lanes), 4.5-9 (all busy: lane 0 frees
	 * first, at 5), 10-11 (lane 0 is free again at 9, the earliest) */
	static const uint64_t se[][2] = {{1000, 5000}, {2000, 6000}, {3000, 7000},
					 {4000, 8000}, {4500, 9000}, {10000, 11000}};
	static const int lane[] = {0, 1, 2, 3, 0, 0};
	for (uint32_t i = 0; i < 6; i++)
		s_proc(&f->s, 100, 200 + i, T0 + se[i][0] * MS, T0 + se[i][1] * MS, "/usr/bin/cc",
		       "cc", "cc", f->z);
	const struct plot_gantt_layout *g =
	    gantt(f, (struct tza_plot_opts){.by = TZA_BY_TOOL, .max_rows = 2});
	assert_false(g->per_proc);
	assert_int_equal(g->nrows, 2);
	assert_string_equal(g->rows[0].label, "sh");
	assert_string_equal(g->rows[1].label, "cc");
	assert_int_equal(g->rows[1].count, 6);
	assert_int_equal(g->rows[1].nlanes, 4);
	assert_int_equal(g->rows[0].nlanes, 1);
	/* 4 + 4 + 4 + 4 + 4.5 + 1 s */
	assert_float_equal(g->rows[1].wall_s, 21.5, 1e-9);
	assert_int_equal(g->rows[1].lane_end[0], T0 + 11000 * MS);
	assert_int_equal(g->rows[1].lane_end[3], T0 + 8000 * MS);
	for (uint32_t i = 0; i < 6; i++) {
		const struct plot_bar *x = bar_of(&f->b, g, 200 + i);
		assert_int_equal(x->row, 1);
		assert_int_equal(x->lane, lane[i]);
	}
}

/*
 * More groups than rows: the max_rows - 1 with the most wall time keep
 * their rows, the rest share "other (N groups)"; rows are in order of
 * first start, the "other" row's first start its earliest group's.
 */
static void test_fold_other(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 30 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	/* a: 1 s from 1; b: 8 s from 2; c: 2 s from 3; d: 9 s from 4 */
	s_proc(&f->s, 100, 201, T0 + 1 * SEC_NS, T0 + 2 * SEC_NS, "/usr/bin/a", "a", "a", f->z);
	s_proc(&f->s, 100, 202, T0 + 2 * SEC_NS, T0 + 10 * SEC_NS, "/usr/bin/b", "b", "b", f->z);
	s_proc(&f->s, 100, 203, T0 + 3 * SEC_NS, T0 + 5 * SEC_NS, "/usr/bin/c", "c", "c", f->z);
	s_proc(&f->s, 100, 204, T0 + 4 * SEC_NS, T0 + 13 * SEC_NS, "/usr/bin/d", "d", "d", f->z);
	const struct plot_gantt_layout *g =
	    gantt(f, (struct tza_plot_opts){.by = TZA_BY_TOOL, .max_rows = 4});
	/* kept: sh (30 s), d (9 s), b (8 s); a and c fold into "other" */
	assert_int_equal(g->nrows, 4);
	assert_string_equal(g->rows[0].label, "sh");
	assert_string_equal(g->rows[1].label, "other (2 groups)");
	assert_ptr_equal(g->rows[1].label, g->labels[g->n]);
	assert_int_equal(g->rows[1].first, T0 + 1 * SEC_NS);
	assert_int_equal(g->rows[1].count, 2);
	assert_int_equal(g->rows[1].tool, -1);
	assert_float_equal(g->rows[1].wall_s, 3.0, 1e-9);
	assert_string_equal(g->rows[2].label, "b");
	assert_string_equal(g->rows[3].label, "d");
	assert_int_equal(bar_of(&f->b, g, 201)->row, 1);
	assert_int_equal(bar_of(&f->b, g, 203)->row, 1);
	assert_int_equal(bar_of(&f->b, g, 202)->row, 2);
	assert_int_equal(bar_of(&f->b, g, 204)->row, 3);
	/* a (1-2) and c (3-5) do not overlap: one lane */
	assert_int_equal(g->rows[1].nlanes, 1);
}

/*
 * cpu series: one per coloured tool, each bin cores in use, so the bins
 * of a series add up to its CPU time; a process without an exit is left
 * out and counted; bins above the CPU count are held to it.
 */
static void test_stack_cpu(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	s_proc(&f->s, 100, 101, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/w", "w", "w",
	       (struct exit_vals){.utime = 3 * SEC_NS, .stime = SEC_NS});
	s_proc(&f->s, 100, 102, T0 + 5 * SEC_NS, T0 + 6 * SEC_NS, "/usr/bin/v", "v", "v",
	       (struct exit_vals){.utime = SEC_NS / 2});
	/* still running at the end: no exit totals */
	s_fork(&f->s, T0 + 7 * SEC_NS, 100, 103);
	s_exec(&f->s, T0 + 7 * SEC_NS + MS, 103, T0 + 7 * SEC_NS, 100, "/usr/bin/r", NULL, "r",
	       "r");
	const struct plot_stack *st = stack(f, (struct tza_plot_opts){.kind = TZA_PLOT_CPU}, 1);
	assert_int_equal(st->nb, PLOT_NBINS);
	assert_int_equal(st->ns, f->b.c.ncolored);
	assert_int_equal(st->running, 1);
	assert_int_equal(st->lost, 0);
	assert_int_equal(st->sampled, 0);
	assert_int_equal(st->nclamped, 0);
	double bw_s = f->b.c.span_s / st->nb, sum[8] = {0};
	for (int k = 0; k < st->ns && k < 8; k++)
		for (unsigned i = 0; i < st->nb; i++)
			sum[k] += st->bins[(size_t)k * st->nb + i] * bw_s;
	/* ranked by CPU: w (4 s) first, v (0.5 s) second */
	assert_string_equal(f->b.c.tools[0].name, "w");
	assert_float_equal(sum[0], 4.0, 1e-6);
	assert_string_equal(f->b.c.tools[1].name, "v");
	assert_float_equal(sum[1], 0.5, 1e-6);

	/* one CPU: w's 2 cores over 2 s are held to 1, 2 CPU-s removed */
	st = stack(f, (struct tza_plot_opts){.kind = TZA_PLOT_CPU, .ncpus = 1}, 1);
	assert_int_equal(st->nclamped, 80); /* 2 s of 25 ms bins */
	assert_float_equal(st->clamped_s, 2.0, 1e-6);
	for (unsigned i = 0; i < st->nb; i++) {
		double acc = 0;
		for (int k = 0; k < st->ns; k++)
			acc += st->bins[(size_t)k * st->nb + i];
		assert_true(acc <= 1.0 + 1e-9);
	}
}

/* mem series: each process's peak RSS (MiB) held over its life. */
static void test_stack_mem(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	s_proc(&f->s, 100, 101, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/w", "w", "w",
	       (struct exit_vals){.utime = SEC_NS, .rss_kib = 512 * 1024});
	const struct plot_stack *st = stack(f, (struct tza_plot_opts){.kind = TZA_PLOT_MEM}, 0);
	assert_string_equal(f->b.c.tools[0].name, "w");
	/* bin 120: 3.000..3.025 s, inside w's life; bin 20 (0.5 s) before it */
	assert_float_equal(st->bins[120], 512.0, 1e-6);
	assert_float_equal(st->bins[20], 0.0, 1e-9);
}

/* io series: each process's bytes spread over its life; the bins of a
 * series add up to its bytes. */
static void test_io(void **state)
{
	struct lfx *f = *state;
	s_proc(&f->s, 1, 100, T0, T0 + 10 * SEC_NS, "/bin/sh", "sh", "sh", f->z);
	s_proc(&f->s, 100, 101, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS, "/usr/bin/w", "w", "w",
	       (struct exit_vals){
		   .rchar = 2ull << 30, .wchar = 1ull << 30, .write_bytes = 1ull << 20});
	const struct plot_stack *st = stack(f, (struct tza_plot_opts){.kind = TZA_PLOT_IO}, -1);
	assert_int_equal(st->ns, 4);
	assert_int_equal(st->sampled, 0);
	double bw_ns = f->b.c.span_s * 1e9 / st->nb, sum[4] = {0};
	for (int k = 0; k < 4; k++)
		for (unsigned i = 0; i < st->nb; i++)
			sum[k] += st->bins[(size_t)k * st->nb + i] * bw_ns;
	assert_float_equal(sum[0], (double)(2ull << 30), 1);
	assert_float_equal(sum[1], (double)(1ull << 30), 1);
	assert_float_equal(sum[2], 0.0, 1e-9);
	assert_float_equal(sum[3], (double)(1ull << 20), 1e-3);
	/* bin 120 (3.000..3.025 s): 1 GiB/s read = 1.0737 bytes per ns */
	assert_float_equal(st->bins[120], (double)(2ull << 30) / 2e9, 1e-9);
}

TEST_MAIN(NULL, NULL, LFX_TEST(test_rows_per_process), LFX_TEST(test_lanes),
	  LFX_TEST(test_fold_other), LFX_TEST(test_stack_cpu), LFX_TEST(test_stack_mem),
	  LFX_TEST(test_io))
