/* SPDX-License-Identifier: BSD-2-Clause */
/* ptable.c - live tracked processes, kept from events, for state blocks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "schema.h"

int ptable_init(struct ptable *t)
{
	*t = (struct ptable){0};
	return 0;
}

static void proc_free(struct pt_proc *p)
{
	free(p->exe);
	free(p->argv);
	free(p);
}

static struct pt_proc *as_proc(uint64_t v)
{
	return (struct pt_proc *)(uintptr_t)v;
}

void ptable_free(struct ptable *t)
{
	uint64_t v;
	for (size_t i = 0; hmap_next(&t->procs, &i, NULL, &v);)
		proc_free(as_proc(v));
	hmap_free(&t->procs);
	t->count = 0;
}

struct pt_proc *ptable_get(const struct ptable *t, uint32_t tgid)
{
	uint64_t *v = hmap_get(&t->procs, tgid);
	return v ? as_proc(*v) : NULL;
}

struct pt_proc *ptable_next(const struct ptable *t, size_t *pos)
{
	uint64_t v;
	return hmap_next(&t->procs, pos, NULL, &v) ? as_proc(v) : NULL;
}

void ptable_del(struct ptable *t, uint32_t tgid, uint64_t start_ns)
{
	struct pt_proc *p = ptable_get(t, tgid);
	if (!p || (start_ns && p->start_ns && p->start_ns != start_ns))
		return;
	hmap_del(&t->procs, tgid);
	proc_free(p);
	t->count--;
}

/* Entry for tgid, created empty when absent (a reused tgid is reset), its
 * parent ppid and ns_pid set. NULL when out of memory. */
static struct pt_proc *get_or_add(struct ptable *t, uint32_t tgid, uint64_t start_ns,
				  uint32_t ppid, uint32_t ns_pid)
{
	struct pt_proc *p = ptable_get(t, tgid);

	if (p && start_ns && p->start_ns && p->start_ns != start_ns) {
		ptable_del(t, tgid, 0);
		p = NULL;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		uint64_t *v = p ? hmap_put(&t->procs, tgid, NULL) : NULL;
		if (!v) {
			free(p);
			return NULL;
		}
		p->tgid = tgid;
		p->start_ns = start_ns;
		*v = (uintptr_t)p;
		t->count++;
	}
	p->ppid = ppid;
	p->ns_pid = ns_pid;
	return p;
}

static int set_bytes(char **dst, uint32_t *dst_len, const void *src, uint32_t len)
{
	char *n = NULL;

	if (len) {
		n = malloc(len);
		if (!n)
			return -ENOMEM;
		memcpy(n, src, len);
	}
	free(*dst);
	*dst = n;
	*dst_len = len;
	return 0;
}

static uint32_t count_strings(const char *a, uint32_t len)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < len; i++)
		if (!a[i])
			n++;
	if (len && a[len - 1])
		n++;
	return n;
}

/* The image facts of p (what a state block repeats): credentials, argv,
 * exe, comm, flags. exe/argv are copied. Returns 0 or -ENOMEM. */
static int set_image(struct pt_proc *p, uint32_t uid, uint32_t euid, uint32_t argc,
		     uint32_t argv_size, uint32_t flags, const char *comm, const void *exe,
		     uint32_t exe_len, const void *argv, uint32_t argv_len)
{
	p->uid = uid;
	p->euid = euid;
	p->argc = argc;
	p->argv_size = argv_size;
	p->flags = flags;
	memcpy(p->comm, comm, sizeof(p->comm));
	if (set_bytes(&p->exe, &p->exe_len, exe, exe_len) ||
	    set_bytes(&p->argv, &p->argv_len, argv, argv_len))
		return -ENOMEM;
	return 0;
}

int ptable_apply(struct ptable *t, const void *rec, size_t size)
{
	const struct ev_hdr *h = rec;
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob b[TRACER_MAX_BLOBS];
	struct pt_proc *p;

	if (tracer_event_split(rec, size, &fixed, &fixed_len, b) < 0)
		return -1;
	switch (h->type) {
	case EV_FORK: {
		const struct ev_fork *e = rec;
		const struct pt_proc *par = ptable_get(t, e->caller_tgid);
		p = get_or_add(t, e->child_tgid, e->child_start_ns, e->parent_tgid,
			       e->child_ns_pid);
		if (!p)
			return -ENOMEM;
		if (par && par != p)
			return set_image(p, par->uid, par->euid, par->argc, par->argv_size,
					 par->flags & EV_STATE_ARGV_TRUNCATED, par->comm, par->exe,
					 par->exe_len, par->argv, par->argv_len);
		return 0;
	}
	case EV_EXEC: {
		const struct ev_exec *e = rec;
		p = get_or_add(t, e->tgid, e->start_ns, e->ppid, e->ns_pid);
		if (!p)
			return -ENOMEM;
		return set_image(p, e->uid, e->euid, e->argc, e->argv_size,
				 (p->flags & ~EV_STATE_ARGV_TRUNCATED) |
					 ((e->flags & EV_EXEC_ARGV_TRUNCATED) ? EV_STATE_ARGV_TRUNCATED
									      : 0),
				 e->comm, b[1].data, b[1].len, b[3].data, b[3].len);
	}
	case EV_EXIT: {
		const struct ev_exit *e = rec;
		ptable_del(t, e->tgid, e->start_ns);
		return 0;
	}
	case EV_PROC_STATE: {
		const struct ev_proc_state *e = rec;
		p = get_or_add(t, e->tgid, e->start_ns, e->ppid, e->ns_pid);
		if (!p)
			return -ENOMEM;
		if (set_image(p, e->uid, e->euid, e->argc, e->argv_size, e->flags, e->comm,
			      b[0].data, b[0].len, b[1].data, b[1].len))
			return -ENOMEM;
		if (!p->argc)
			p->argc = count_strings(p->argv, p->argv_len);
		return 0;
	}
	default:
		return 0;
	}
}

size_t ptable_encode_state(const struct pt_proc *p, uint64_t ts_ns, void *buf, size_t cap)
{
	struct ev_proc_state *e = buf;
	size_t need = sizeof(*e) + p->exe_len + p->argv_len;

	if (need > cap || need > UINT32_MAX)
		return 0;
	memset(e, 0, sizeof(*e));
	e->hdr.size = (uint32_t)need;
	e->hdr.type = EV_PROC_STATE;
	e->hdr.ts_ns = ts_ns;
	e->start_ns = p->start_ns;
	e->tgid = p->tgid;
	e->ppid = p->ppid;
	e->uid = p->uid;
	e->euid = p->euid;
	e->ns_pid = p->ns_pid;
	e->argc = p->argc;
	e->argv_size = p->argv_size;
	e->argv_len = p->argv_len;
	e->exe_len = (uint16_t)p->exe_len;
	e->flags = p->flags;
	memcpy(e->comm, p->comm, sizeof(e->comm));
	if (p->exe_len)
		memcpy((char *)buf + sizeof(*e), p->exe, p->exe_len);
	if (p->argv_len)
		memcpy((char *)buf + sizeof(*e) + p->exe_len, p->argv, p->argv_len);
	return need;
}

int ptable_state_fn(void *ctx, tz_writer *w)
{
	struct ptable *t = ctx;
	uint64_t now = rec_boot_ns();
	size_t cap = sizeof(struct ev_proc_state) + EV_PATH_MAX + EV_ARGV_MAX_LIMIT;
	char *buf = malloc(cap);

	if (!buf)
		return TZ_ERR_NOMEM;
	size_t pos = 0;
	for (struct pt_proc *p; (p = ptable_next(t, &pos));) {
		size_t n = ptable_encode_state(p, now, buf, cap);
		if (!n)
			continue;
		int rc = tracer_event_write_state(w, buf, n);
		if (rc < 0) {
			free(buf);
			return rc == -1 ? TZ_ERR_INVAL : rc;
		}
	}
	free(buf);
	return 0;
}
