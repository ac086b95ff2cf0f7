/* SPDX-License-Identifier: BSD-2-Clause */
/* redact_event.c - tracer-record --redact: one record's strings (record.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/redact.h"
#include "record.h"
#include "schema.h"

int rec_redact_type(uint16_t type)
{
	switch (type) {
	case EV_EXEC:
	case EV_EXEC_FAIL:
	case EV_EXIT:
	case EV_PROC_STATE:
	case EV_OOM_KILL:
	case EV_SIGNAL:
	case EV_CGROUP:
	case EV_ATTACH:
		return 1;
	default:
		return 0;
	}
}

/* a fixed char array of the record, when the record holds it */
#define COMM_OF(rec, size, T, f)                                                          \
	((size) >= offsetof(T, f) + sizeof(((T *)0)->f) ? (uint8_t *)(rec) + offsetof(T, f) \
							: NULL)

int rec_redact_event(struct redact *rd, void *rec, uint32_t size)
{
	const struct ev_hdr *h = rec;
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob b[TRACER_MAX_BLOBS];
	struct redact_str s[TRACER_MAX_BLOBS + 1]; /* blobs and comm */
	size_t n = 0;
	uint8_t *comm = NULL;
	int nb = tracer_event_split(rec, size, &fixed, &fixed_len, b);

	if (nb < 0)
		return -1;
	for (int i = 0; i < nb; i++)
		s[i] = (struct redact_str){(uint8_t *)b[i].data, b[i].len, REDACT_PATH, 0};
	switch (h->type) {
	case EV_EXEC: {
		const struct ev_exec *e = rec;
		for (int i = 0; i < 3; i++)
			s[i].cut = !!(e->flags & EV_EXEC_PATH_TRUNCATED);
		s[3].kind = REDACT_ARGV;
		s[3].cut = (e->flags & EV_EXEC_ARGV_TRUNCATED) || e->argv_len < e->argv_size;
		s[4].cut = !!(e->flags & EV_EXEC_CWD_TRUNCATED);
		s[5].kind = REDACT_ARGV; /* NAME=VALUE strings, like argv's */
		n = 6;
		comm = COMM_OF(rec, size, struct ev_exec, comm);
		break;
	}
	case EV_EXEC_FAIL:
		n = 1;
		break;
	case EV_PROC_STATE: {
		const struct ev_proc_state *e = rec;
		s[1].kind = REDACT_ARGV;
		s[1].cut = (e->flags & EV_STATE_ARGV_TRUNCATED) || e->argv_len < e->argv_size;
		n = 2;
		comm = COMM_OF(rec, size, struct ev_proc_state, comm);
		break;
	}
	case EV_CGROUP:
		s[0].cut = !!(((const struct ev_cgroup *)rec)->flags & EV_CGROUP_PATH_TRUNCATED);
		n = 1;
		break;
	case EV_ATTACH: {
		/* a file's name and bytes: masked as text; flagged when any was */
		struct ev_attach *e = rec;
		s[1].kind = REDACT_TEXT;
		s[1].cut = !!(e->flags & EV_ATTACH_TRUNCATED);
		unsigned hits = redact_strs(rd, s, 2);
		if (hits)
			e->flags |= EV_ATTACH_REDACTED;
		return (int)hits;
	}
	case EV_EXIT:
		comm = COMM_OF(rec, size, struct ev_exit, comm);
		break;
	case EV_OOM_KILL:
		comm = COMM_OF(rec, size, struct ev_oom_kill, comm);
		break;
	case EV_SIGNAL:
		comm = COMM_OF(rec, size, struct ev_signal, sender_comm);
		break;
	default:
		return 0;
	}
	if (comm)
		s[n++] = (struct redact_str){comm, EV_COMM_LEN, REDACT_COMM, 0};
	return (int)redact_strs(rd, s, n);
}

char **rec_redact_argv(struct redact *rd, int argc, char *const *argv)
{
	size_t len = 0;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char **v = malloc((size_t)(argc + 1) * sizeof(*v) + len + 1);
	if (!v)
		return NULL;
	char *blob = (char *)(v + argc + 1), *p = blob;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;
		memcpy(p, argv[i], n);
		v[i] = p;
		p += n;
	}
	v[argc] = NULL;
	if (redact_maybe((const uint8_t *)blob, len))
		redact_mask_blob(rd, (uint8_t *)blob, len, 1);
	return v;
}
