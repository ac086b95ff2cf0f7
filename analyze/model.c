/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model.c - rebuild processes from a trace's events (model.h): the build's
 * driver and the public queries. Its rooms (model_int.h): model_schema.c
 * binds the fields by name through the file's own schema, model_pid.c
 * holds the pid index, model_events.c the per-event rules, model_finish.c
 * the steps after the last event.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "model_int.h"
#include "progress.h"

const char *tza_signal_cause(const struct tza_proc *p)
{
	const struct tza_proc_res *x = p->res;
	int sig = x->killer_signal, code = x->killer_code;

	if (!sig || sig != p->signal || (p->flags & TZA_P_NO_EXIT))
		return NULL;
	if (x->killer_flags & EV_SIGNAL_NOINFO) /* send_sig(sig, task, 0) */
		return sig == SIGPIPE ? "broken pipe" : sig == SIGXFSZ ? "file size limit" : "kernel";
	if (code > 0 && code != SI_KERNEL) { /* a fault's or a subsystem's code */
		if (sig == SIGSYS && code == 1 /* SYS_SECCOMP */)
			return "seccomp";
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
		    sig == SIGTRAP)
			return "fault";
		return "kernel";
	}
	if (code == SI_KERNEL || x->killer_kernel) {
		if (sig == SIGKILL && x->oom_killed)
			return "oom";
		if (sig == SIGXCPU)
			return "cpu time limit";
		if (sig == SIGALRM || sig == SIGVTALRM || sig == SIGPROF)
			return "timer";
		return "kernel";
	}
	switch (code) {
	case SI_USER:
		return "kill";
	case SI_TKILL:
		return "tkill";
	case SI_QUEUE:
		return "sigqueue";
	case SI_TIMER:
		return "timer";
	case SI_MESGQ:
		return "message queue";
	case SI_ASYNCIO:
		return "aio";
	case SI_SIGIO:
		return "sigio";
	}
	return "other";
}

/* The reader's thread, while it waits for the builder: the arena's next
 * slab, faulted in there instead of on the builder's thread */
static void prefault(void *arena)
{
	tza_arena_prefault(arena);
}

const struct tza_cgroup *tza_model_cgroup(const struct tza_model *m, uint32_t hier, uint64_t id)
{
	const struct mint *mi = (const struct mint *)m;
	uint32_t lo = 0, hi = mi->ncg;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct tza_cgroup *c = &mi->cg[mid];
		if (c->hier < hier || (c->hier == hier && c->id < id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < mi->ncg && mi->cg[lo].hier == hier && mi->cg[lo].id == id)
		return &mi->cg[lo];
	return NULL;
}

uint32_t tza_model_cgroups(const struct tza_model *m, const struct tza_cgroup **out)
{
	const struct mint *mi = (const struct mint *)m;
	*out = mi->cg;
	return mi->ncg;
}

uint32_t tza_model_attachments(const struct tza_model *m, const struct tza_attachment **out)
{
	const struct mint *mi = (const struct mint *)m;
	*out = mi->att;
	return mi->natt;
}

int tza_model_build(tz_reader *r, uint64_t from_ns, uint64_t to_ns, struct tza_model **out)
{
	return tza_model_build_ex(r, from_ns, to_ns, 0, out);
}

int tza_model_build_ex(tz_reader *r, uint64_t from_ns, uint64_t to_ns, uint32_t flags,
		       struct tza_model **out)
{
	struct builder b;
	int rc;
	memset(&b, 0, sizeof(b));
	b.flags = flags;
	*out = NULL;
	struct mint *mi = calloc(1, sizeof(*mi));
	if (!mi)
		return TZ_ERR_NOMEM;
	b.m = &mi->m;
	b.arena = &mi->arena;
	b.m->reader = r;
	model_bind_fields(r, &b.f);
	if (flags & TZA_MB_GENERIC) /* every field through the schema (tests) */
		b.f.e_native = 0;
	rc = tz_reader_iter(r, from_ns, to_ns, TZ_IT_STATE);
	/* decoding on a second thread when there is a CPU for it: the events
	 * and their order are the same either way */
	struct tza_evq *q = NULL;
	struct tza_strcache qstrs = {0}; /* the thread's, then freed here */
	struct tza_evq_opts qo = {.idle = prefault, .idle_arg = b.arena, .intern = &mi->strs,
				  .cache = &qstrs};
	if (rc >= 0 && !(flags & TZA_MB_SERIAL) && tza_evq_useful() &&
	    tza_evq_start_ex(r, &qo, &q) < 0)
		q = NULL; /* no thread: read here */
	b.interned = q != NULL;
	const struct tz_event *ev;
	uint32_t n = 0;
	while (rc >= 0 && (rc = q ? tza_evq_next(q, &ev) : tz_reader_next(r, &ev)) > 0) {
		if (model_consume(&b, ev) < 0) {
			rc = TZ_ERR_NOMEM;
			break;
		}
		if (!(++n & 4095)) /* progress.h: a no-op unless a load shows it */
			tza_progress_tick(q ? tza_evq_chunks(q) : tz_reader_chunks_decoded(r));
	}
	tza_evq_free(q); /* r is ours again: its errmsg, info and meta */
	tza_strcache_free(&qstrs);
	b.interned = 0;
	if (rc >= 0)
		rc = model_finish(&b, r);
	if (rc >= 0 && model_finish_cgroups(mi) < 0)
		rc = TZ_ERR_NOMEM;
	free(b.direct);
	free(b.pids);
	free(b.ctxc);
	tza_strcache_free(&b.strs);
	if (rc < 0) {
		tza_model_free(b.m);
		return rc;
	}
	*out = b.m;
	return 0;
}

void tza_model_free(struct tza_model *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		for (uint32_t k = TZA_KEEP_HEAD; k < p->nexecs; k++)
			model_exec_free(&p->execs[k]);
		if (p->nexecs > 1) /* the first one is in the arena */
			free(p->execs);
		for (uint32_t k = TZA_KEEP_HEAD; k < p->nfailed; k++)
			free(p->failed[k].filename);
		if (p->nfailed > 1)
			free(p->failed);
		if (p->res && p->res != &tza_res_none)
			free(p->res->samples);
	}
	free(m->procs);
	free(m->roots);
	free(m->host);
	struct mint *mi = (struct mint *)m;
	free(mi->cg);
	free(mi->att);
	tza_arena_free(&mi->arena);
	tza_arena_free(&mi->strs);
	free(mi);
}

const char *tza_proc_id(const struct tza_proc *p, char buf[TZA_ID_MAX])
{
	static const char d2[] = "00010203040506070809101112131415161718192021222324"
				 "25262728293031323334353637383940414243444546474849"
				 "50515253545556575859606162636465666768697071727374"
				 "75767778798081828384858687888990919293949596979899";
	char tmp[TZA_ID_MAX], *e = tmp + sizeof(tmp), *c = e;
	uint64_t start = p->start_ns;
	uint32_t pid = p->pid;
	for (; start >= 100; start /= 100) { /* two digits a step */
		c -= 2;
		memcpy(c, d2 + 2 * (start % 100), 2);
	}
	if (start >= 10) {
		c -= 2;
		memcpy(c, d2 + 2 * start, 2);
	} else {
		*--c = (char)('0' + start);
	}
	*--c = '.';
	do
		*--c = (char)('0' + pid % 10);
	while (pid /= 10);
	memcpy(buf, c, (size_t)(e - c));
	buf[e - c] = 0;
	return buf;
}

struct tza_proc *tza_model_find(const struct tza_model *m, const char *id)
{
	char *end;
	unsigned long pid = strtoul(id, &end, 10);
	if (*end != '.')
		return NULL;
	unsigned long long start = strtoull(end + 1, &end, 10);
	if (*end)
		return NULL;
	uint32_t lo = 0, hi = m->nprocs; /* procs are ordered by (start, pid) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct tza_proc *p = m->procs[mid];
		if (p->start_ns < start || (p->start_ns == start && p->pid < pid))
			lo = mid + 1;
		else
			hi = mid;
	}
	char buf[TZA_ID_MAX];
	if (lo < m->nprocs && m->procs[lo]->start_ns == start && m->procs[lo]->pid == pid &&
	    !strcmp(tza_proc_id(m->procs[lo], buf), id)) /* the canonical spelling only */
		return m->procs[lo];
	return NULL;
}

const struct tza_exec *tza_proc_image(const struct tza_proc *p)
{
	return p->nexecs ? &p->execs[p->nexecs - 1] : NULL;
}

/* Stored images i and i + 1 are consecutive: none omitted between them */
static int exec_next_kept(const struct tza_proc *p, uint32_t i)
{
	return !(p->res->nexecs_omitted && i + 1 == TZA_KEEP_HEAD);
}

int64_t tza_exec_cpu_ns(const struct tza_proc *p, uint32_t i)
{
	if (i >= p->nexecs || !(p->execs[i].flags & TZA_EXEC_CPU))
		return -1;
	const struct tza_exec *e = &p->execs[i];
	uint64_t a = e->cpu_before_ns, z;
	if (i + 1 < p->nexecs) {
		if (!exec_next_kept(p, i) || !(p->execs[i + 1].flags & TZA_EXEC_CPU))
			return -1;
		z = p->execs[i + 1].cpu_before_ns;
	} else if ((!(p->flags & TZA_P_NO_EXIT) || (p->flags & TZA_P_SAMPLED)) &&
		   (!(p->flags & TZA_P_CLIPPED) || (p->flags & TZA_P_EXEC_REBASED))) {
		/* clipped: totals from a slice's window, its execs' too or not */
		z = p->utime_ns + p->stime_ns;
	} else {
		return -1;
	}
	return z >= a ? (int64_t)(z - a) : 0;
}

int64_t tza_exec_peak_rss_kib(const struct tza_proc *p, uint32_t i)
{
	if (i >= p->nexecs)
		return -1;
	if (i + 1 < p->nexecs) {
		const struct tza_exec *n = &p->execs[i + 1];
		if (!exec_next_kept(p, i) || !(n->byname_known & (1u << TZA_XB_prev_maxrss_kib)) ||
		    !n->prev_maxrss_kib)
			return -1;
		return (int64_t)n->prev_maxrss_kib;
	}
	if (p->flags & TZA_P_NO_EXIT) /* a sampled peak may be an earlier image's */
		return -1;
	return (int64_t)p->maxrss_kib;
}

uint64_t tza_proc_peak_rss_kib(const struct tza_proc *p)
{
	uint64_t kib = p->maxrss_kib;
	if (p->nexecs) {
		const struct tza_exec *e = &p->execs[p->nexecs - 1];
		if ((e->byname_known & (1u << TZA_XB_maxrss_before_kib)) &&
		    e->maxrss_before_kib > kib)
			kib = e->maxrss_before_kib;
	}
	return kib;
}

uint64_t tza_proc_own_rss_kib(const struct tza_proc *p)
{
	if (!p->nexecs)
		return tza_proc_peak_rss_kib(p);
	uint64_t kib = p->maxrss_kib;
	const struct tza_exec *e0 = &p->execs[0];
	if ((p->flags & TZA_P_NO_EXIT) && !(e0->flags & TZA_EXEC_FROM_STATE) && p->res->nsamples &&
	    p->res->samples[0].ts_ns < e0->ts_ns) {
		/* its largest sample may be the fork's copy: the kept ones after */
		kib = 0;
		for (uint32_t j = 0; j < p->res->nsamples; j++)
			if (p->res->samples[j].ts_ns >= e0->ts_ns &&
			    p->res->samples[j].rss_kib > kib)
				kib = p->res->samples[j].rss_kib;
	}
	for (uint32_t j = 1; j < p->nexecs; j++)
		if ((p->execs[j].byname_known & (1u << TZA_XB_prev_maxrss_kib)) &&
		    p->execs[j].prev_maxrss_kib > kib)
			kib = p->execs[j].prev_maxrss_kib;
	return kib;
}

int tza_proc_rss_known(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_RSS_UNKNOWN) || tza_proc_peak_rss_kib(p);
}

int tza_proc_peak_view(const struct tza_proc *p, uint64_t *kib, int *sampled)
{
	int ended = !(p->flags & TZA_P_NO_EXIT);
	int known = (ended || (p->flags & TZA_P_SAMPLED)) && tza_proc_rss_known(p);
	*kib = known ? tza_proc_peak_rss_kib(p) : 0;
	if (sampled)
		*sampled = known && !ended;
	return known;
}

int64_t tza_exec_wall_ns(const struct tza_proc *p, uint32_t i, uint64_t t1_ns)
{
	if (i >= p->nexecs)
		return -1;
	uint64_t a = p->execs[i].ts_ns, z;
	if (i + 1 < p->nexecs) {
		if (!exec_next_kept(p, i))
			return -1;
		z = p->execs[i + 1].ts_ns;
	} else {
		z = p->end_ns ? p->end_ns : t1_ns;
	}
	return z >= a ? (int64_t)(z - a) : 0;
}

const struct tza_exec *tza_proc_image_inherited(const struct tza_proc *p)
{
	if (p->nexecs)
		return &p->execs[p->nexecs - 1];
	return p->start_image;
}

