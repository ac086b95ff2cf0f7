/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * synth_model.h - a synthetic trace (analyze_synth.h) opened with the real
 * reader and built into a model, for the analyzer's unit tests. Header-only;
 * include after <cmocka.h> and analyze_synth.h: every step is asserted.
 */
#ifndef SYNTH_MODEL_H
#define SYNTH_MODEL_H

#include "analyze/model.h"
#include "analyze/report.h"

/* A built synthetic trace: the file bytes, the reader over them, the model. */
struct built {
	void *buf;	    /* owned: the .tz bytes */
	tz_reader *r;	    /* owned: reads buf */
	struct tza_model *m; /* owned */
	struct tza_machine mi; /* the recording machine (tza_machine_get) */
};

/* Write s into memory (records in the order of order[], NULL: as pushed),
 * open it and build its model over the whole trace with TZA_MB_* flags.
 * s stays the caller's. */
static inline void build_model(struct synth *s, const size_t *order, uint32_t mb_flags,
			       struct built *b)
{
	size_t len = 0;
	memset(b, 0, sizeof(*b));
	b->buf = synth_file(s, order, &len);
	assert_non_null(b->buf);
	assert_int_equal(tz_reader_open_mem(&b->r, b->buf, len, "synth.tz", NULL), 0);
	assert_int_equal(tza_model_build_ex(b->r, 0, UINT64_MAX, mb_flags, &b->m), 0);
	tza_machine_get(b->r, &b->mi);
}

/* Free what build_model made. */
static inline void unbuild(struct built *b)
{
	tza_model_free(b->m);
	tz_reader_free(b->r);
	free(b->buf);
}

/* The nth (0: first) process instance of pid in model order, or NULL. */
static inline struct tza_proc *by_pid(const struct tza_model *m, uint32_t pid, int nth)
{
	for (uint32_t i = 0; i < m->nprocs; i++)
		if (m->procs[i]->pid == pid && nth-- == 0)
			return m->procs[i];
	return NULL;
}

/* The critical path of m by key (tza_critpath, asserted to succeed) into c,
 * whose per-key times are asserted to add up to its makespan: returns the
 * makespan (ns). */
static inline uint64_t critpath_sum(struct tza_model *m, enum tza_by by, struct tza_crit *c)
{
	uint64_t sum = 0;
	assert_int_equal(tza_critpath(m, by, c), 0);
	for (uint32_t i = 0; i < c->ntools; i++)
		sum += c->by_tool[i].ns;
	assert_int_equal(sum, c->makespan_ns);
	return c->makespan_ns;
}

/* The state of a test run with fx_setup/fx_teardown (FX_TEST): its synthetic
 * trace, the model built from it (build_model) and a clean exit's values
 * (all zero) for s_exit/s_proc. The teardown frees what the test built. */
struct fx {
	struct synth s;
	struct built b;
	struct exit_vals v;
	char start[32]; /* a metadata value's text the test keeps here */
};

static inline int fx_setup(void **st)
{
	*st = calloc(1, sizeof(struct fx));
	return *st ? 0 : -1;
}

static inline int fx_teardown(void **st)
{
	struct fx *f = *st;
	unbuild(&f->b);
	synth_free(&f->s);
	free(f);
	return 0;
}

/* Free what the test built so far and start again from an empty trace (the
 * next case of the same test). */
static inline void fx_reset(struct fx *f)
{
	unbuild(&f->b);
	memset(&f->b, 0, sizeof(f->b));
	synth_free(&f->s);
}

/* Build f's trace (records as pushed) into f->b with TZA_MB_* flags
 * (build_model); returns the model, f's like the rest. */
static inline struct tza_model *fx_build(struct fx *f, uint32_t mb_flags)
{
	build_model(&f->s, NULL, mb_flags, &f->b);
	return f->b.m;
}

#define FX_TEST(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

#endif
