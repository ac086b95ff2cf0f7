/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_redact.c - tracer-record --redact on raw records
 * (record/redact_event.c): every string of an exec, its comm and the comm
 * of the exit, signal and OOM records that follow, lengths kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/redact.h"
#include "record/record.h"

/* an EV_EXEC with filename = exe = path, argv (argv_len bytes), comm */
static size_t mk_exec(void *buf, const char *path, const char *argv, uint32_t argv_len,
		      uint32_t argv_size, const char *comm)
{
	struct ev_exec *e = buf;
	char *t = (char *)buf + sizeof(*e);
	uint16_t pl = (uint16_t)strlen(path);

	memset(e, 0, sizeof(*e));
	e->hdr.type = EV_EXEC;
	e->tgid = 42;
	e->filename_len = pl;
	e->exe_len = pl;
	e->argv_len = argv_len;
	e->argv_size = argv_size;
	strncpy(e->comm, comm, sizeof(e->comm) - 1);
	memcpy(t, path, pl);
	memcpy(t + pl, path, pl);
	memcpy(t + 2 * pl, argv, argv_len);
	e->hdr.size = (uint32_t)(sizeof(*e) + 2 * pl + argv_len);
	return e->hdr.size;
}

/* A fixed-size record of type (size bytes at ev, zeroed by the caller) whose
 * comm field holds in: rec_redact_event returns rc and leaves want there. */
static void redact_comm(struct redact *rd, void *ev, uint32_t size, uint16_t type, char *comm,
			const char *in, int rc, const char *want)
{
	struct ev_hdr *h = ev;
	h->type = type;
	h->size = size;
	strcpy(comm, in);
	assert_int_equal(rec_redact_event(rd, ev, size), rc);
	assert_string_equal(comm, want);
}

static void test_exec_then_exit(void **state)
{
	(void)state;
	static struct redact rd;
	uint8_t buf[1024], orig[1024];
	const char argv[] = "AKIAIOSFODNN7EXAMPLE\0--password=hunter2\0plain";

	memset(&rd, 0, sizeof(rd));
	assert_int_equal(redact_init(&rd), 0);
	assert_true(rec_redact_type(EV_EXEC) && rec_redact_type(EV_EXIT) &&
		    rec_redact_type(EV_SIGNAL) && !rec_redact_type(EV_SAMPLE) &&
		    !rec_redact_type(EV_FORK));
	size_t n = mk_exec(buf, "/tmp/x/AKIAIOSFODNN7EXAMPLE", argv, sizeof(argv) - 1,
			   sizeof(argv) - 1, "AKIAIOSFODNN7EX");
	memcpy(orig, buf, n);
	assert_true(rec_redact_event(&rd, buf, (uint32_t)n) >= 3);
	/* the layout holds: same size, same fixed fields */
	const struct ev_exec *e = (const void *)buf;
	assert_int_equal(e->hdr.size, n);
	assert_memory_equal(buf, orig, offsetof(struct ev_exec, comm));
	assert_string_equal(e->comm, "***************");
	const char *t = (const char *)buf + sizeof(*e);
	assert_memory_equal(t, "/tmp/x/********************", 27);
	assert_memory_equal(t + 54, "********************\0--password=*******\0plain", sizeof(argv) - 1);
	assert_null(memmem(buf, n, "AKIAIOSF", 8));

	/* the exit, the signal sent by it and an OOM kill: their comm too */
	struct ev_exit x = {0};
	redact_comm(&rd, &x, sizeof(x), EV_EXIT, x.comm, "AKIAIOSFODNN7EX", 1, "***************");
	struct ev_signal s = {0};
	s.sig = 9;
	redact_comm(&rd, &s, sizeof(s), EV_SIGNAL, s.sender_comm, "AKIAIOSFODNN7EX", 1,
		    "***************");
	assert_int_equal(s.sig, 9);
	struct ev_oom_kill o = {0};
	redact_comm(&rd, &o, sizeof(o), EV_OOM_KILL, o.comm, "bash", 0, "bash");

	/* an argv cut at --argv-max (argv_len < argv_size) ending in a token's
	 * beginning */
	const char cut[] = "curl\0-d\0ghp_0123456789";
	n = mk_exec(buf, "/usr/bin/curl", cut, sizeof(cut) - 1, 4096, "curl");
	assert_int_equal(rec_redact_event(&rd, buf, (uint32_t)n), 1);
	assert_null(memmem(buf, n, "ghp_0", 5));
	n = mk_exec(buf, "/usr/bin/curl", cut, sizeof(cut) - 1, sizeof(cut) - 1, "curl");
	assert_int_equal(rec_redact_event(&rd, buf, (uint32_t)n), 0);

	/* malformed: left as it is */
	assert_int_equal(rec_redact_event(&rd, buf, 8), -1);
	redact_free(&rd);
}

/* issue 17: an exec's cwd (before argv) and env (last), a cgroup path and an
 * attachment's name and bytes are masked in place; the attachment is flagged */
static void test_issue17_strings(void **state)
{
	(void)state;
	static struct redact rd;
	uint8_t buf[1024];
	const char cwd[] = "/home/alice/run", argv[] = "make\0";
	const char env[] = "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\0";

	memset(&rd, 0, sizeof(rd));
	assert_int_equal(redact_init(&rd), 0);
	assert_true(rec_redact_type(EV_CGROUP) && rec_redact_type(EV_ATTACH));
	struct ev_exec *e = (struct ev_exec *)buf;
	memset(e, 0, sizeof(*e));
	char *t = (char *)buf + sizeof(*e);
	memcpy(t, cwd, sizeof(cwd) - 1);
	memcpy(t + sizeof(cwd) - 1, argv, sizeof(argv) - 1);
	memcpy(t + sizeof(cwd) - 1 + sizeof(argv) - 1, env, sizeof(env) - 1);
	e->hdr.type = EV_EXEC;
	e->cwd_len = sizeof(cwd) - 1;
	e->argv_len = e->argv_size = sizeof(argv) - 1;
	e->env_len = sizeof(env) - 1;
	e->hdr.size = (uint32_t)(sizeof(*e) + e->cwd_len + e->argv_len + e->env_len);
	assert_true(rec_redact_event(&rd, buf, e->hdr.size) >= 2);
	assert_memory_equal(t, "/home/*****/run", e->cwd_len);
	assert_memory_equal(t + e->cwd_len, "make", 4); /* argv untouched */
	const char *ev = t + e->cwd_len + e->argv_len;
	assert_memory_equal(ev, "GITHUB_TOKEN=", 13);
	assert_null(memmem(ev, e->env_len, "ghp_0123", 8));

	struct ev_attach *a = (struct ev_attach *)buf;
	const char name[] = "/w/.snakemake/metadata/YQ==";
	const char data[] = "{\"shellcmd\": \"mysql --password=hunter2 db\"}";
	memset(a, 0, sizeof(*a));
	a->hdr.type = EV_ATTACH;
	a->name_len = sizeof(name) - 1;
	a->data_len = sizeof(data) - 1;
	memcpy(buf + sizeof(*a), name, a->name_len);
	memcpy(buf + sizeof(*a) + a->name_len, data, a->data_len);
	a->hdr.size = (uint32_t)(sizeof(*a) + a->name_len + a->data_len);
	assert_true(rec_redact_event(&rd, buf, a->hdr.size) >= 1);
	assert_int_equal(a->flags, EV_ATTACH_REDACTED);
	assert_int_equal(a->hdr.size, sizeof(*a) + sizeof(name) - 1 + sizeof(data) - 1);
	const char *d = (const char *)buf + sizeof(*a) + a->name_len;
	assert_null(memmem(d, a->data_len, "hunter2", 7));
	assert_memory_equal(buf + sizeof(*a), name, a->name_len);
	/* nothing secret: not flagged */
	memset(buf + sizeof(*a) + a->name_len, 'a', a->data_len);
	a->flags = 0;
	rec_redact_event(&rd, buf, a->hdr.size);
	assert_int_equal(a->flags, 0);
	redact_free(&rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_then_exit),
		cmocka_unit_test(test_issue17_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
