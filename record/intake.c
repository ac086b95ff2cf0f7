/* SPDX-License-Identifier: BSD-2-Clause */
/* intake.c - each ring-buffer record on its way to the writer (--env,
 * --redact, the exit CPU clamp), the process and cgroup tables it feeds,
 * and the drop counters (recorder.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "recorder.h"
#include "sample.h"
#include "schema.h"
#include "tracer.skel.h"

void rec_note_write_error(struct rec *r, int rc)
{
	if (rc >= 0 || r->werr)
		return;
	r->werr = rc;
	/* disk full: rec_close_writer() says whether the file could be sealed */
	if (rc != TZ_ERR_NOSPC)
		rec_err("%s", tz_writer_errmsg(r->w));
}

/* --redact: a copy of the record with every secret in its strings masked
 * in place (same length, so the layout holds; record/redact_event.c); the
 * record itself when its type holds no strings; NULL when out of memory. */
static void *redact_record(struct rec *r, const void *data, uint32_t size)
{
	if (!rec_redact_type(((const struct ev_hdr *)data)->type))
		return (void *)data;
	if (size > r->rbuf_cap) {
		uint8_t *nb = realloc(r->rbuf, size);
		if (!nb)
			return NULL;
		r->rbuf = nb;
		r->rbuf_cap = size;
	}
	memcpy(r->rbuf, data, size);
	rec_redact_event(&r->rd, r->rbuf, size);
	return r->rbuf;
}

/* tgid appended to the stop's alive list (r->alive_at_stop); on no memory
 * the list stays as it was */
static void alive_add(struct rec *r, uint32_t tgid)
{
	size_t len = strlen(r->alive_at_stop);
	char *s = realloc(r->alive_at_stop, len + 12);
	if (!s)
		return;
	snprintf(s + len, 12, "%s%u", len ? " " : "", tgid);
	r->alive_at_stop = s;
}

/* A record made in user space (EV_CGROUP, EV_ATTACH), through --redact
 * like the ring's. Returns the record as written (a redacted copy valid
 * until the next redaction), NULL when not written. */
const void *rec_write_user_record(struct rec *r, const void *rec, uint32_t size)
{
	if (r->werr)
		return NULL;
	if (r->o.redact && !(rec = redact_record(r, rec, size))) {
		rec_note_write_error(r, TZ_ERR_NOMEM);
		return NULL;
	}
	int rc = tracer_event_write(r->w, rec, size);
	rec_note_write_error(r, rc);
	r->events++;
	return rc < 0 ? NULL : rec;
}

/* The cgroup table's entries for the ids an exec names, the first time */
static void note_cgroups(struct rec *r, uint64_t ts, uint64_t cg, uint64_t memcg)
{
	size_t n;
	if (!r->cgbuf)
		return;
	const void *w;
	/* kept as written (redacted) for the state blocks */
	if ((n = cgt_note(&r->cg, EV_CG_V2, cg, ts, r->cgbuf, CGBUF_SIZE)) &&
	    (w = rec_write_user_record(r, r->cgbuf, (uint32_t)n)))
		cgt_keep(&r->cg, w);
	if ((n = cgt_note(&r->cg, EV_CG_V1_MEMORY, memcg, ts, r->cgbuf, CGBUF_SIZE)) &&
	    (w = rec_write_user_record(r, r->cgbuf, (uint32_t)n)))
		cgt_keep(&r->cg, w);
}

/* --env: a copy of an exec record keeping only the named variables of its
 * env tail (the last one); the record itself when it has none; NULL when out
 * of memory */
static void *env_select(struct rec *r, void *data)
{
	const struct ev_exec *e = data;
	if (e->hdr.size < sizeof(*e) || !e->env_len || e->env_len > e->hdr.size - sizeof(*e))
		return data;
	if (e->hdr.size > r->ebuf_cap) {
		uint8_t *nb = realloc(r->ebuf, e->hdr.size);
		if (!nb)
			return NULL;
		r->ebuf = nb;
		r->ebuf_cap = e->hdr.size;
	}
	memcpy(r->ebuf, data, e->hdr.size);
	struct ev_exec *c = (struct ev_exec *)r->ebuf;
	uint32_t at = c->hdr.size - c->env_len;
	uint32_t kept = env_filter(&r->o.env, (char *)r->ebuf + at, c->env_len);
	c->env_len = (uint16_t)kept;
	c->hdr.size = at + kept;
	return r->ebuf;
}

int rec_on_event(void *ctx, void *data, size_t size)
{
	struct rec *r = ctx;
	const struct ev_hdr *h = data;
	int rc;

	if (size < sizeof(*h) || h->size > size)
		return 0;
	if (r->werr) {
		/* recording stopped on a write error: counted as not written */
		r->unwritten++;
		return 0;
	}
	if (h->type == EV_EXEC && !r->o.no_attach)
		att_note_exec(&r->att, data, h->size);
	if (h->type == EV_EXEC && r->o.env.n) {
		data = env_select(r, data);
		if (!data) {
			rec_note_write_error(r, TZ_ERR_NOMEM);
			return 0;
		}
		h = data;
	}
	if (r->o.redact) {
		data = redact_record(r, data, h->size);
		if (!data) {
			rec_note_write_error(r, TZ_ERR_NOMEM);
			return 0;
		}
		h = data;
	}
	struct ev_exit x; /* ring buffer memory is read-only: a copy */
	if (h->type == EV_EXIT && h->size == sizeof(x)) {
		memcpy(&x, data, sizeof(x));
		sample_cpu_clamp(r->sampler, x.tgid, x.start_ns, &x.utime_ns, &x.stime_ns);
		data = &x;
		h = data;
	}
	rc = tracer_event_write(r->w, data, h->size);
	/* skipped; an I/O error is not (it stops the recording) */
	if (rc == TRACER_ERR_MALFORMED) {
		if (r->o.verbose)
			rec_err("skipped a malformed event (type %u, %u bytes)", h->type, h->size);
		return 0;
	}
	rec_note_write_error(r, rc);
	r->events++;
	if (ptable_apply(&r->pt, data, h->size) == 0 && h->type == EV_FORK) {
		const struct ev_fork *e = data;
		struct pt_proc *p = ptable_get(&r->pt, e->child_tgid);
		if (p)
			p->flags |= PT_SEEN_FORK;
		r->procs_seen++;
		/* born after the stop's alive list was taken: alive then too
		 * (its exit, if it comes, is drained) */
		if (r->alive_at_stop)
			alive_add(r, e->child_tgid);
	}
	if (h->type == EV_EXEC && h->size >= sizeof(struct ev_exec)) {
		const struct ev_exec *e = data;
		note_cgroups(r, e->hdr.ts_ns, e->cgroup_id, e->memcg_id);
	}
	return 0;
}

static void read_drops(struct rec *r, uint64_t *out)
{
	uint64_t *vals = calloc((size_t)r->ncpus, sizeof(uint64_t));
	int fd = bpf_map__fd(r->skel->maps.drops);

	memset(out, 0, sizeof(uint64_t) * EV_DROP_SLOTS);
	if (!vals)
		return;
	for (uint32_t k = 0; k < EV_DROP_SLOTS; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < r->ncpus; c++)
			out[k] += vals[c];
	}
	free(vals);
}

/* Write EV_DROPS when the counters moved (or always when force). */
void rec_write_drops(struct rec *r, int force)
{
	uint64_t now[EV_DROP_SLOTS], lost = 0;
	struct ev_drops e;
	int changed = 0;

	read_drops(r, now);
	for (int i = 0; i < EV_DROP_SLOTS; i++) {
		if (now[i] != r->drops[i])
			changed = 1;
		if (i != EV_DROP_MAP_FULL && i != EV_DROP_ARGV_FAULT && now[i] > r->drops[i])
			lost += now[i] - r->drops[i];
	}
	if (!changed && !force)
		return;
	if (lost)
		tz_writer_note_dropped(r->w, lost);
	memcpy(r->drops, now, sizeof(now));
	memset(&e, 0, sizeof(e));
	e.hdr.size = sizeof(e);
	e.hdr.type = EV_DROPS;
	e.hdr.ts_ns = rec_boot_ns();
	memcpy(e.count, now, sizeof(now));
	rec_note_write_error(r, tracer_event_write(r->w, &e, sizeof(e)));
}
