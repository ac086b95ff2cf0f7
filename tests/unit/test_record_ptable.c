/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_ptable.c - the recorder's live-process table and small parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ev_fill.h"
#include "helper.h"

#include "record/record.h"
#include "record/schema.h"

/* size zeroed bytes at buf under a header of type and that size */
static void *mk_hdr(void *buf, uint32_t size, uint16_t type)
{
	struct ev_hdr *h = buf;

	memset(buf, 0, size);
	h->size = size;
	h->type = type;
	return buf;
}

static size_t mk_fork(void *buf, uint32_t parent, uint32_t caller, uint32_t child, uint64_t start)
{
	ev_fork_fill(buf, 0, parent, caller, child, start);
	return sizeof(struct ev_fork);
}

static size_t mk_exec(void *buf, uint32_t tgid, uint64_t start, const char *exe, const char *argv,
		      uint32_t argv_len)
{
	struct ev_exec *e = mk_hdr(buf, sizeof(struct ev_exec), EV_EXEC);
	char *t = (char *)buf + sizeof(*e);

	e->tgid = tgid;
	e->start_ns = start;
	e->uid = 1000;
	e->euid = 0;
	e->argc = 2;
	e->argv_size = argv_len;
	e->filename_len = (uint16_t)strlen(exe);
	memcpy(t, exe, e->filename_len);
	t += e->filename_len;
	e->exe_len = (uint16_t)strlen(exe);
	memcpy(t, exe, e->exe_len);
	t += e->exe_len;
	e->argv_len = argv_len;
	memcpy(t, argv, argv_len);
	t += argv_len;
	strcpy(e->comm, "prog");
	e->hdr.size = (uint32_t)(t - (char *)buf);
	return e->hdr.size;
}

static size_t mk_exit(void *buf, uint32_t tgid, uint64_t start)
{
	struct ev_exit *e = mk_hdr(buf, sizeof(struct ev_exit), EV_EXIT);

	e->tgid = tgid;
	e->start_ns = start;
	return sizeof(*e);
}

/* A fresh process table in *state for each test that wants one. */
HEAP_FIXTURE(table, struct ptable, ptable_init, ptable_free)

#define TABLE_TEST(t) cmocka_unit_test_setup_teardown(t, table_setup, table_teardown)

static void test_fork_exec_exit(void **state)
{
	struct ptable *t = *state;
	char buf[1024];
	struct pt_proc *p;

	assert_int_equal(ptable_apply(t, buf, mk_exec(buf, 10, 100, "/bin/sh", "sh\0-c\0", 6)), 0);
	assert_int_equal(ptable_apply(t, buf, mk_fork(buf, 10, 10, 11, 200)), 0);
	assert_int_equal(t->count, 2);
	p = ptable_get(t, 11);
	assert_non_null(p);
	/* a forked child carries its caller's image until it execs */
	assert_int_equal(p->exe_len, 7);
	assert_memory_equal(p->exe, "/bin/sh", 7);
	assert_int_equal(p->argv_len, 6);
	assert_int_equal(p->ppid, 10);
	assert_int_equal(p->start_ns, 200);
	assert_int_equal(ptable_apply(t, buf, mk_exec(buf, 11, 200, "/bin/true", "true\0x\0", 7)),
			 0);
	assert_memory_equal(ptable_get(t, 11)->argv, "true\0x\0", 7);
	assert_int_equal(ptable_get(t, 11)->uid, 1000);
	/* an exit with another start time is another process: ignored */
	assert_int_equal(ptable_apply(t, buf, mk_exit(buf, 11, 999)), 0);
	assert_int_equal(t->count, 2);
	assert_int_equal(ptable_apply(t, buf, mk_exit(buf, 11, 200)), 0);
	assert_null(ptable_get(t, 11));
	assert_int_equal(t->count, 1);
}

static void test_clone_parent_and_reuse(void **state)
{
	struct ptable *t = *state;
	char buf[1024];

	ptable_apply(t, buf, mk_exec(buf, 20, 1, "/a", "a\0", 2));
	/* CLONE_PARENT: the image is the caller's, the parent is the real one */
	ptable_apply(t, buf, mk_fork(buf, 5, 20, 21, 2));
	assert_int_equal(ptable_get(t, 21)->ppid, 5);
	assert_memory_equal(ptable_get(t, 21)->exe, "/a", 2);
	/* a reused tgid with a new start time replaces the stale entry */
	ptable_apply(t, buf, mk_exec(buf, 21, 3, "/b", "b\0", 2));
	assert_int_equal(ptable_get(t, 21)->start_ns, 3);
	assert_int_equal(t->count, 2);
	/* malformed records are refused */
	struct ev_exec *e = (void *)buf;
	mk_exec(buf, 22, 4, "/c", "c\0", 2);
	e->argv_len = 5000;
	assert_int_equal(ptable_apply(t, buf, e->hdr.size), -1);
}

static void test_grow(void **state)
{
	struct ptable *t = *state;
	char buf[256];

	for (uint32_t i = 1; i <= 5000; i++)
		assert_int_equal(ptable_apply(t, buf, mk_fork(buf, 1, 1, i + 1, i)), 0);
	assert_int_equal(t->count, 5000);
	for (uint32_t i = 1; i <= 5000; i++)
		assert_non_null(ptable_get(t, i + 1));
	for (uint32_t i = 1; i <= 5000; i += 2)
		ptable_del(t, i + 1, 0);
	assert_int_equal(t->count, 2500);
}

static void test_encode_state(void **state)
{
	struct pt_proc p = {0};
	char buf[512];
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob b[4];

	(void)state;
	p.tgid = 7;
	p.ppid = 1;
	p.start_ns = 42;
	p.argc = 2;
	p.argv_size = 9;
	p.flags = EV_STATE_PRE_EXISTING;
	p.exe = "/usr/bin/x";
	p.exe_len = 10;
	p.argv = "x\0-\xff\0";
	p.argv_len = 5;
	strcpy(p.comm, "x");
	size_t n = ptable_encode_state(&p, 99, buf, sizeof(buf));
	assert_int_equal(n, sizeof(struct ev_proc_state) + 15);
	assert_int_equal(ptable_encode_state(&p, 99, buf, 20), 0);
	assert_int_equal(tracer_event_split(buf, n, &fixed, &fixed_len, b), 2);
	assert_int_equal(b[0].len, 10);
	assert_memory_equal(b[0].data, "/usr/bin/x", 10);
	assert_int_equal(b[1].len, 5);
	assert_memory_equal(b[1].data, "x\0-\xff\0", 5);
	const struct ev_proc_state *e = (const void *)buf;
	assert_int_equal(e->hdr.ts_ns, 99);
	assert_int_equal(e->flags, EV_STATE_PRE_EXISTING);
	/* and back into a table */
	struct ptable t;
	assert_int_equal(ptable_init(&t), 0);
	assert_int_equal(ptable_apply(&t, buf, n), 0);
	assert_int_equal(ptable_get(&t, 7)->argc, 2);
	assert_int_equal(ptable_get(&t, 7)->start_ns, 42);
	ptable_free(&t);
}

/* State flags never carry EV_EXEC_* bits (EV_EXEC_ARGV_TRUNCATED is 0x1, the
 * bit of EV_STATE_PRE_EXISTING): a cut argv is EV_STATE_ARGV_TRUNCATED, and a
 * child of a pre-existing parent inherits its image, not its pre-existence. */
static void test_state_flags(void **state)
{
	struct pt_proc p = {0};
	char buf[8192], rec[512];
	struct ptable t;
	size_t n;

	(void)state;
	assert_int_equal(ptable_init(&t), 0);
	/* pre-existing parent 7 with a cut argv, from the start-up snapshot */
	p.tgid = 7;
	p.ppid = 1;
	p.start_ns = 42;
	p.argc = 1;
	p.argv_size = 5000;
	p.flags = EV_STATE_PRE_EXISTING | EV_STATE_ARGV_TRUNCATED;
	p.exe = "/bin/sh";
	p.exe_len = 7;
	p.argv = "sh";
	p.argv_len = 3;
	strcpy(p.comm, "sh");
	n = ptable_encode_state(&p, 50, buf, sizeof(buf));
	assert_int_not_equal(n, 0);
	assert_int_equal(ptable_apply(&t, buf, n), 0);
	/* it forks 8: same image (argv cut), not pre-existing */
	assert_int_equal(ptable_apply(&t, rec, mk_fork(rec, 7, 7, 8, 100)), 0);
	n = ptable_encode_state(ptable_get(&t, 8), 200, buf, sizeof(buf));
	assert_int_equal(((const struct ev_proc_state *)buf)->flags, EV_STATE_ARGV_TRUNCATED);
	/* 8 execs with a whole argv: nothing set */
	assert_int_equal(ptable_apply(&t, rec, mk_exec(rec, 8, 100, "/bin/true", "true\0a\0", 7)), 0);
	n = ptable_encode_state(ptable_get(&t, 8), 300, buf, sizeof(buf));
	assert_int_equal(((const struct ev_proc_state *)buf)->flags, 0);
	/* 7 execs with a cut argv: still pre-existing, argv cut */
	n = mk_exec(rec, 7, 42, "/bin/true", "true\0", 5);
	((struct ev_exec *)rec)->flags = EV_EXEC_ARGV_TRUNCATED;
	assert_int_equal(ptable_apply(&t, rec, n), 0);
	n = ptable_encode_state(ptable_get(&t, 7), 400, buf, sizeof(buf));
	assert_int_equal(((const struct ev_proc_state *)buf)->flags,
			 EV_STATE_PRE_EXISTING | EV_STATE_ARGV_TRUNCATED);
	/* and again with a whole one: the cut bit goes, pre-existence stays */
	assert_int_equal(ptable_apply(&t, rec, mk_exec(rec, 7, 42, "/bin/true", "true\0", 5)), 0);
	n = ptable_encode_state(ptable_get(&t, 7), 500, buf, sizeof(buf));
	assert_int_equal(((const struct ev_proc_state *)buf)->flags, EV_STATE_PRE_EXISTING);
	ptable_free(&t);
}

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rec_parse_size("4096", 0, 1u << 30, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rec_parse_size("8M", 0, 1u << 30, &v), 0);
	assert_int_equal(v, 8u << 20);
	assert_int_equal(rec_parse_size("128KiB", 0, 1u << 30, &v), 0);
	assert_int_equal(v, 128u << 10);
	assert_int_equal(rec_parse_size("1G", 0, 1u << 30, &v), 0);
	assert_int_equal(rec_parse_size("2G", 0, 1u << 30, &v), -1);
	assert_int_equal(rec_parse_size("-1", 0, 100, &v), -1);
	assert_int_equal(rec_parse_size("12x", 0, 100, &v), -1);
	assert_int_equal(rec_parse_size("", 0, 100, &v), -1);
	assert_int_equal(rec_parse_size("99999999999999999999", 0, UINT64_MAX, &v), -1);
	assert_int_equal(rec_parse_size("3", 4, 100, &v), -1);
}

static void test_fmt_time(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(rec_fmt_time(1000000000ull * 86400 + 5, b, sizeof(b)),
			    "1970-01-02T00:00:00.000000005Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TABLE_TEST(test_fork_exec_exit),
		TABLE_TEST(test_clone_parent_and_reuse),
		TABLE_TEST(test_grow),
		cmocka_unit_test(test_encode_state),
		cmocka_unit_test(test_state_flags),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_fmt_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
