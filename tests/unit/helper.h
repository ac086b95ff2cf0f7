/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helper.h - small helpers shared by the cmocka unit tests. Header-only;
 * include after <cmocka.h>: every step is asserted.
 */
#ifndef TEST_HELPER_H
#define TEST_HELPER_H

#include <stdio.h>
#include <stdlib.h>

/* What a writer printed, caught in memory: memout_open() gives the FILE to
 * write to; memout_expect() (or memout_close()) ends it. buf is owned by
 * the struct until memout_close() hands it over. */
struct memout {
	char *buf;  /* the text written, NUL-terminated once closed */
	size_t len; /* bytes written, once closed */
	FILE *f;    /* open_memstream(3) over buf */
};

/* Start catching output in m; returns the FILE to write to. */
static inline FILE *memout_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

/* Close m's FILE; returns the text written (the caller's to free). */
static inline char *memout_close(struct memout *m)
{
	fclose(m->f);
	m->f = NULL;
	return m->buf;
}

/* Close m, assert the text written is want, free it. */
static inline void memout_expect(struct memout *m, const char *want)
{
	char *got = memout_close(m);
	assert_string_equal(got, want);
	free(got);
}

/* Per-test fixture functions NAME_setup and NAME_teardown for
 * cmocka_unit_test_setup_teardown: setup puts a zeroed, calloc'd TYPE in
 * *state and asserts that INIT(it) returns 0; teardown calls FINI(it) and
 * frees it, also after a failed test. */
#define HEAP_FIXTURE(name, type, init, fini)                                                       \
	static int name##_setup(void **state)                                                      \
	{                                                                                          \
		type *x_ = calloc(1, sizeof(*x_));                                                 \
		assert_non_null(x_);                                                               \
		assert_int_equal(init(x_), 0);                                                     \
		*state = x_;                                                                       \
		return 0;                                                                          \
	}                                                                                          \
	static int name##_teardown(void **state)                                                   \
	{                                                                                          \
		fini(*state);                                                                      \
		free(*state);                                                                      \
		return 0;                                                                          \
	}

/* A test file's main(): runs the cmocka test cases given (cmocka_unit_test(...),
 * FX_TEST(...), ...) as one group with group_setup and group_teardown (NULL
 * for none); exits 0 when every case passes, else the number that failed. */
#define TEST_MAIN(group_setup, group_teardown, ...)                                                \
	int main(void)                                                                             \
	{                                                                                          \
		const struct CMUnitTest tests_[] = {__VA_ARGS__};                                  \
		return cmocka_run_group_tests(tests_, group_setup, group_teardown);                \
	}

#endif /* TEST_HELPER_H */
