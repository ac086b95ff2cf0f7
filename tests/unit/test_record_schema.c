/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_schema.c - tracer_event_write's errors: a malformed record is
 * TRACER_ERR_MALFORMED (never TZ_ERR_IO, which stops a recording), nothing
 * is written and the writer goes on; the record splitting and the schema
 * generated from bpf/events.h: every tail member lands in its schema blob,
 * and the exec schema is the one files of version 2 have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helper.h"

#include "record/schema.h"

static tz_writer *open_mem(void)
{
	tz_writer *w = NULL;
	struct tz_writer_opts o;

	memset(&o, 0, sizeof(o));
	o.flags = TZ_W_NO_FSYNC;
	assert_int_equal(tz_writer_open_mem(&w, &o), 0);
	assert_int_equal(tracer_schema_register(w), 0);
	return w;
}

static void t_malformed_is_its_own_code(void **state)
{
	(void)state;
	assert_true(TRACER_ERR_MALFORMED < 0);
	assert_int_not_equal(TRACER_ERR_MALFORMED, TZ_ERR_IO);
	for (int e = 0; e > -TZ_ERR__COUNT; e--)
		assert_int_not_equal(TRACER_ERR_MALFORMED, e);
}

static void t_malformed_records(void **state)
{
	(void)state;
	tz_writer *w = open_mem();
	struct ev_exit x;
	struct ev_cgroup cg;
	struct tz_writer_stats st;

	memset(&x, 0, sizeof(x));
	x.hdr = (struct ev_hdr){sizeof(x), EV_EXIT, 0, 1000};
	/* shorter than its struct */
	assert_int_equal(tracer_event_write(w, &x, sizeof(x) - 1), TRACER_ERR_MALFORMED);
	assert_int_equal(tracer_event_write_state(w, &x, 4), TRACER_ERR_MALFORMED);
	/* a tail beyond the record */
	memset(&cg, 0, sizeof(cg));
	cg.hdr = (struct ev_hdr){sizeof(cg), EV_CGROUP, 0, 1000};
	cg.path_len = 10;
	assert_int_equal(tracer_event_write(w, &cg, sizeof(cg)), TRACER_ERR_MALFORMED);
	/* a type tracer does not know */
	struct ev_hdr h = {sizeof(h), 60000, 0, 1000};
	assert_int_equal(tracer_event_write(w, &h, sizeof(h)), TRACER_ERR_MALFORMED);
	/* nothing written, and the writer is not in a failed state */
	tz_writer_stats(w, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(tracer_event_write(w, &x, sizeof(x)), 0);
	tz_writer_stats(w, &st);
	assert_int_equal(st.events, 1);
	tz_writer_free(w);
}

/* An exec record's tail is filename, exe, script, cwd, argv, env (record
 * order); the schema's blobs are filename 0, exe 1, script 2, argv 3, cwd 4,
 * env 5 */
static void t_split_exec_tail(void **state)
{
	(void)state;
	static const char tail[] = "FFEEESSSSCCCCCAAAAAANNNNNNN";
	char rec[sizeof(struct ev_exec) + sizeof(tail)];
	struct ev_exec *e = (struct ev_exec *)rec;
	memset(rec, 0, sizeof(rec));
	memcpy(rec + sizeof(*e), tail, sizeof(tail) - 1);
	e->hdr.type = EV_EXEC;
	e->hdr.size = (uint32_t)(sizeof(*e) + sizeof(tail) - 1);
	e->filename_len = 2, e->exe_len = 3, e->script_len = 4, e->cwd_len = 5;
	e->argv_len = 6, e->env_len = 7;
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob b[TRACER_MAX_BLOBS];
	assert_int_equal(tracer_event_split(rec, sizeof(rec), &fixed, &fixed_len, b), 6);
	assert_ptr_equal(fixed, rec + sizeof(struct ev_hdr));
	assert_int_equal(fixed_len, sizeof(*e) - sizeof(struct ev_hdr));
	const char *want[6] = {"FF", "EEE", "SSSS", "AAAAAA", "CCCCC", "NNNNNNN"};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(b[i].len, strlen(want[i]));
		assert_memory_equal(b[i].data, want[i], b[i].len);
	}
	/* a tail longer than the record is malformed */
	e->env_len = 8;
	assert_int_equal(tracer_event_split(rec, sizeof(rec), &fixed, &fixed_len, b), -1);
	/* an unknown type id is malformed */
	e->hdr.type = EV_TYPE_MAX;
	assert_int_equal(tracer_event_split(rec, sizeof(rec), &fixed, &fixed_len, b), -1);
}

/* The generated exec schema holds version 2's fields and blobs unchanged,
 * in order (FORMAT.md section 15: fields are only appended, so fields and
 * blobs appended later are skipped here): a reordered, retyped or removed
 * row of EV_EXEC_FIELDS or EV_EXEC_TAIL fails. */
static void t_exec_schema_frozen(void **state)
{
	(void)state;
	static const char *const want =
		"exec: start_ns u64 0 8 ns, cgroup_id u64 8 8 , tgid u32 16 4 , "
		"old_pid u32 20 4 , ppid u32 24 4 , ns_pid u32 28 4 , uid u32 32 4 , euid u32 36 4 , "
		"gid u32 40 4 , egid u32 44 4 , argc u32 48 4 count, argv_size u32 52 4 bytes, "
		"argv_len u32 56 4 bytes, filename_len u16 60 2 bytes, exe_len u16 62 2 bytes, "
		"script_len u16 64 2 bytes, flags u32 68 4 , comm chars 72 16 , utime_ns u64 88 8 ns, "
		"stime_ns u64 96 8 ns, memcg_id u64 104 8 , cwd_len u16 112 2 bytes, "
		"env_len u16 114 2 bytes, filename str 0 0 , exe str 1 0 , script str 2 0 , "
		"argv strv 3 0 , cwd str 4 0 , env strv 5 0 , ";
	static const char *const tn[] = {[TZ_F_U16] = "u16",   [TZ_F_U32] = "u32",
					 [TZ_F_U64] = "u64",   [TZ_F_CHARS] = "chars",
					 [TZ_F_STR] = "str",   [TZ_F_STRV] = "strv"};
	size_t n;
	const struct tz_event_type *t = tracer_schema(&n);
	while (n && t->id != EV_EXEC)
		t++, n--;
	assert_true(n > 0);
	char got[2048];
	assert_true(t->version >= 2 && t->fixed_size >= 120 && t->nblobs >= 6);
	int k = snprintf(got, sizeof(got), "exec: ");
	for (uint16_t i = 0; i < t->nfields; i++) {
		const struct tz_field *f = &t->fields[i];
		int blob = f->type == TZ_F_STR || f->type == TZ_F_STRV;
		if (blob ? f->offset >= 6 : f->offset >= 120)
			continue; /* appended after version 2 */
		assert_true(f->type < sizeof(tn) / sizeof(tn[0]) && tn[f->type]);
		k += snprintf(got + k, sizeof(got) - (size_t)k, "%s %s %u %u %s, ", f->name,
			      tn[f->type], (unsigned)f->offset, (unsigned)f->size, f->unit);
	}
	assert_string_equal(got, want);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(t_malformed_is_its_own_code),
	  cmocka_unit_test(t_malformed_records), cmocka_unit_test(t_split_exec_tail),
	  cmocka_unit_test(t_exec_schema_frozen))
