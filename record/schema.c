/* SPDX-License-Identifier: BSD-2-Clause */
/* schema.c - the .tz schema and the record splitting, generated from the
 * event declarations of bpf/events.h (EV_TYPES and each type's FIELDS and
 * TAIL lists): nothing here names a field. */
#include <string.h>

#include "schema.h"

#define HDR sizeof(struct ev_hdr)

/* One schema row per field of struct ST (defined around each use below);
 * padding has none. */
#define SCALAR(ty, name, unit)                                                                 \
	{#name, ty, offsetof(struct ST, name) - HDR, sizeof(((struct ST *)0)->name), unit},
#define FIELD_U64(name, unit) SCALAR(TZ_F_U64, name, unit)
#define FIELD_U32(name, unit) SCALAR(TZ_F_U32, name, unit)
#define FIELD_U16(name, unit) SCALAR(TZ_F_U16, name, unit)
#define FIELD_I32(name, unit) SCALAR(TZ_F_I32, name, unit)
#define FIELD_I16(name, unit) SCALAR(TZ_F_I16, name, unit)
#define FIELD_CHARS(name, unit) SCALAR(TZ_F_CHARS, name, unit)
#define FIELD_PAD16(name, unit)
#define FIELD_PAD32(name, unit)
#define FIELD(ty, name, unit, src) FIELD_##ty(name, unit)

/* Fields counted (padding is not) */
#define ONE_U64 +1
#define ONE_U32 +1
#define ONE_U16 +1
#define ONE_I32 +1
#define ONE_I16 +1
#define ONE_CHARS +1
#define ONE_PAD16
#define ONE_PAD32
#define COUNT(ty, name, unit, src) ONE_##ty

/* A blob's schema row sits after the fixed fields, at its blob index (the
 * tail lists are in record order, which may differ: exec's cwd) */
#define BLOB(name, ty, idx, len) [NFIXED + (idx)] = {#name, TZ_F_##ty, idx, 0, ""},

/* A tail member's length field, in record order */
struct tail {
	uint16_t len_off;  /* offsetof(struct ST, len) */
	uint8_t len_size;  /* 2 or 4 */
	uint8_t blob;	   /* schema blob index */
};
#define TAIL(name, ty, idx, len)                                                               \
	{offsetof(struct ST, len), sizeof(((struct ST *)0)->len), idx},

/* The schema fields and the tail of one type: name_fields[], name_tail[] */
#define TYPE_TABLES(name, FIELDS, TAILS)                                                       \
	enum { NFIXED_##name = 0 FIELDS(COUNT) };                                              \
	static const struct tz_field name##_fields[] = {FIELDS(FIELD) TAILS(BLOB)};          \
	static const struct tail name##_tail[] = {TAILS(TAIL){0, 0, 0}};

#define ST ev_fork
#define NFIXED NFIXED_fork
TYPE_TABLES(fork, EV_FORK_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_exec
#define NFIXED NFIXED_exec
TYPE_TABLES(exec, EV_EXEC_ALL, EV_EXEC_TAIL)
#undef NFIXED
#undef ST
#define ST ev_exec_fail
#define NFIXED NFIXED_exec_fail
TYPE_TABLES(exec_fail, EV_EXEC_FAIL_FIELDS, EV_EXEC_FAIL_TAIL)
#undef NFIXED
#undef ST
#define ST ev_exit
#define NFIXED NFIXED_exit
TYPE_TABLES(exit, EV_EXIT_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_proc_state
#define NFIXED NFIXED_proc_state
TYPE_TABLES(proc_state, EV_PROC_STATE_FIELDS, EV_PROC_STATE_TAIL)
#undef NFIXED
#undef ST
#define ST ev_sample
#define NFIXED NFIXED_sample
TYPE_TABLES(sample, EV_SAMPLE_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_host_sample
#define NFIXED NFIXED_host_sample
TYPE_TABLES(host_sample, EV_HOST_SAMPLE_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_oom_kill
#define NFIXED NFIXED_oom_kill
TYPE_TABLES(oom_kill, EV_OOM_KILL_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_signal
#define NFIXED NFIXED_signal
TYPE_TABLES(signal, EV_SIGNAL_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_release
#define NFIXED NFIXED_release
TYPE_TABLES(release, EV_RELEASE_FIELDS, EV_NO_TAIL)
#undef NFIXED
#undef ST
#define ST ev_cgroup
#define NFIXED NFIXED_cgroup
TYPE_TABLES(cgroup, EV_CGROUP_FIELDS, EV_CGROUP_TAIL)
#undef NFIXED
#undef ST
#define ST ev_attach
#define NFIXED NFIXED_attach
TYPE_TABLES(attach, EV_ATTACH_FIELDS, EV_ATTACH_TAIL)
#undef NFIXED
#undef ST

/* The drops type: one u64 count per drop slot, by the slot's name */
#define DROP_FIELD(NAME, idx, name, lost, incomplete, what)                                    \
	{#name, TZ_F_U64, offsetof(struct ev_drops, count[idx]) - HDR, sizeof(__u64), "count"},
static const struct tz_field drops_fields[] = {EV_DROP_SLOTS_DEF(DROP_FIELD)};
static const struct tail drops_tail[] = {{0, 0, 0}};

#define NF(a) (uint16_t)(sizeof(a) / sizeof(a[0]))
#define NTAIL(a) (NF(a) - 1)
#define FLAGS_EVENT 0
#define FLAGS_STATE TZ_TYPE_STATE
#define TYPE(id, version, name, st, FIELDS, TAILS, flags)                                      \
	{id,	  version, #name, sizeof(struct st) - HDR, FLAGS_##flags, NF(name##_fields),          \
	 NTAIL(name##_tail), name##_fields},
static const struct tz_event_type types[] = {EV_TYPES(TYPE)};

/* How to split a record of each type id: its struct's size and tail */
struct split {
	uint32_t need;		 /* sizeof the struct: header + fixed part */
	uint32_t ntail;		 /* tail members */
	const struct tail *tail; /* in record order */
};
#define SPLIT(id, version, name, st, FIELDS, TAILS, flags)                                     \
	[id] = {sizeof(struct st), NTAIL(name##_tail), name##_tail},
static const struct split splits[EV_TYPE_MAX] = {EV_TYPES(SPLIT)};
_Static_assert(NTAIL(exec_tail) <= TRACER_MAX_BLOBS, "TRACER_MAX_BLOBS too small");

const struct tz_event_type *tracer_schema(size_t *n)
{
	*n = sizeof(types) / sizeof(types[0]);
	return types;
}

int tracer_schema_register(tz_writer *w)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int rc = tz_writer_add_type(w, &types[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int tracer_event_split(const void *rec, size_t size, const void **fixed, uint32_t *fixed_len,
		       struct tz_blob *blobs)
{
	const struct ev_hdr *h = rec;
	const char *base = rec;

	if (size < sizeof(*h) || h->size > size)
		return -1;
	size = h->size;
	if (h->type >= EV_TYPE_MAX || !splits[h->type].need)
		return -1;
	const struct split *s = &splits[h->type];
	if (size < s->need)
		return -1;
	size_t off = s->need;
	for (uint32_t i = 0; i < s->ntail; i++) {
		const struct tail *t = &s->tail[i];
		uint16_t l16;
		uint32_t len;
		if (t->len_size == 2) {
			memcpy(&l16, base + t->len_off, 2);
			len = l16;
		} else {
			memcpy(&len, base + t->len_off, 4);
		}
		if (len > size - off)
			return -1;
		blobs[t->blob].data = base + off;
		blobs[t->blob].len = len;
		off += len;
	}
	*fixed = base + HDR;
	*fixed_len = (uint32_t)(s->need - HDR);
	return (int)s->ntail;
}

static int write_one(tz_writer *w, const void *rec, size_t size, int state)
{
	const struct ev_hdr *h = rec;
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob blobs[TRACER_MAX_BLOBS];
	int nb = tracer_event_split(rec, size, &fixed, &fixed_len, blobs);
	if (nb < 0)
		return TRACER_ERR_MALFORMED;
	if (state)
		return tz_writer_add_state(w, h->type, h->ts_ns, fixed, fixed_len, blobs,
					   (uint32_t)nb);
	return tz_writer_add(w, h->type, h->ts_ns, fixed, fixed_len, blobs, (uint32_t)nb);
}

int tracer_event_write(tz_writer *w, const void *rec, size_t size)
{
	return write_one(w, rec, size, 0);
}

int tracer_event_write_state(tz_writer *w, const void *rec, size_t size)
{
	return write_one(w, rec, size, 1);
}
