/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model_finish.c - the model after its last event: processes ordered by
 * (start, pid), exit/lost/orphan flags settled, parents not known at fork
 * time found, children lists, roots and start images made, the cgroup
 * table sorted. model_finish runs its steps in order.
 */
#include <stdlib.h>
#include <string.h>

#include "dropslot.h"
#include "model_int.h"

static int cmp_start(const void *a, const void *b)
{
	const struct pint *x = *(struct pint *const *)a, *y = *(struct pint *const *)b;
	if (x->p.start_ns != y->p.start_ns)
		return x->p.start_ns < y->p.start_ns ? -1 : 1;
	if (x->p.pid != y->p.pid)
		return x->p.pid < y->p.pid ? -1 : 1;
	return x->p.index < y->p.index ? -1 : x->p.index > y->p.index;
}

static inline int start_lt(const struct tza_proc *x, const struct tza_proc *y)
{
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns;
	if (x->pid != y->pid)
		return x->pid < y->pid;
	return x->index < y->index; /* creation order, until finish() sets it */
}

/*
 * Ordering the processes (creation order) by (start_ns, pid, creation):
 * events come in time order, so processes are created nearly in start order.
 * One pass (in finish) keeps the ones in order at the front of v and takes
 * the ones that break it out to x; here x is sorted alone and merged back
 * from the end: O(n + k log k) for k out of order.
 */
static void sort_merge(struct tza_proc **v, uint32_t n, uint32_t nk, struct tza_proc **x,
		       uint32_t nx)
{
	if (nx) {
		qsort(x, nx, sizeof(*x), cmp_start);
		uint32_t w = n, i = nk, j = nx;
		while (j) {
			if (i && start_lt(x[j - 1], v[i - 1]))
				v[--w] = v[--i];
			else
				v[--w] = x[--j];
		}
	}
}

/* Keys (pid << 32 | index in procs), procs ordered by (start, pid, ...):
 * sorted by pid with a stable radix sort, so by (pid, start, ...). NULL: no
 * memory. */
static uint64_t *by_pid(struct tza_proc **procs, uint32_t n)
{
	uint64_t *k = malloc((n ? n : 1) * sizeof(*k)), *t = malloc((n ? n : 1) * sizeof(*t));
	uint32_t *cnt = malloc(65536 * sizeof(*cnt));
	uint32_t maxpid = 0;
	if (!k || !t || !cnt) {
		free(k);
		free(t);
		free(cnt);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		k[i] = (uint64_t)procs[i]->pid << 32 | i;
		if (procs[i]->pid > maxpid)
			maxpid = procs[i]->pid;
	}
	for (int sh = 32; sh < 64 && (sh == 32 || maxpid >> 16); sh += 16) {
		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (uint32_t i = 0; i < n; i++)
			cnt[(k[i] >> sh) & 0xffff]++;
		for (uint32_t d = 0, sum = 0; d < 65536; d++) {
			uint32_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			t[cnt[(k[i] >> sh) & 0xffff]++] = k[i];
		uint64_t *sw = k;
		k = t;
		t = sw;
	}
	free(t);
	free(cnt);
	return k;
}

/* The process with pid alive at time t (started at or before t), or NULL. */
static struct tza_proc *alive_at(struct tza_proc **procs, const uint64_t *bypid, uint32_t n,
				 uint32_t pid, uint64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* first entry with (pid, start) > (pid, t) */
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t xp = (uint32_t)(bypid[mid] >> 32);
		if (xp < pid || (xp == pid && procs[(uint32_t)bypid[mid]]->start_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (uint32_t)(bypid[lo - 1] >> 32) != pid)
		return NULL;
	struct tza_proc *c = procs[(uint32_t)bypid[lo - 1]];
	if (c->end_ns && c->end_ns < t && !(c->flags & TZA_P_NO_EXIT))
		return NULL;
	return c;
}

static int is_ancestor(const struct tza_proc *a, const struct tza_proc *p, uint32_t limit)
{
	for (uint32_t n = 0; p && n <= limit; n++, p = p->parent)
		if (p == a)
			return 1;
	return 0;
}

/* The image parent ran at time t: its last exec at or before t (a state
 * block's image counts from any time), or NULL. */
static const struct tza_exec *image_at(const struct tza_proc *parent, uint64_t t)
{
	for (uint32_t i = parent->nexecs; i-- > 0;)
		if (parent->execs[i].ts_ns <= t || (parent->execs[i].flags & TZA_EXEC_FROM_STATE))
			return &parent->execs[i];
	return NULL;
}

/*
 * start_image of every process: its parent's image at its start, else the
 * parent's own start_image. Each process is computed once, ancestors first
 * (an explicit stack, no recursion): O(processes + images) in all, whatever
 * the depth of the tree, in any order of calls. Parent links are acyclic
 * (finish refuses cycles; a fork links only to a parent started no later),
 * and the walk is bounded by the process count anyway.
 */
struct imgwalk {
	uint8_t *done; /* by tza_proc.index */
	struct tza_proc **stk;
	uint32_t cap, n;
};

static int imgwalk_init(struct imgwalk *w, uint32_t n)
{
	w->n = n;
	w->cap = 256; /* the stack grows with the tree's depth only */
	w->done = calloc(n ? n : 1, 1);
	w->stk = malloc(w->cap * sizeof(*w->stk));
	return w->done && w->stk ? 0 : -1;
}

static void imgwalk_free(struct imgwalk *w)
{
	free(w->done);
	free(w->stk);
}

uint64_t tza_imgwalk_steps;

/* start_image of p and of its ancestors not done yet; -1: no memory */
static int set_start_image(struct imgwalk *w, struct tza_proc *p)
{
	uint32_t sp = 0;
	for (; p && !w->done[p->index] && sp < w->n; p = p->parent) {
		w->done[p->index] = 1; /* on the stack: a cycle ends the walk */
		if (sp == w->cap) {
			struct tza_proc **ns = realloc(w->stk, 2 * (size_t)w->cap * sizeof(*ns));
			if (!ns)
				return -1;
			w->stk = ns;
			w->cap *= 2;
		}
		w->stk[sp++] = p;
	}
	tza_imgwalk_steps += sp;
	while (sp) {
		struct tza_proc *q = w->stk[--sp], *pp = q->parent;
		const struct tza_exec *e = NULL;
		if (pp) {
			e = image_at(pp, q->start_ns);
			if (!e)
				e = pp->start_image;
		}
		q->start_image = e;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* "12 345 6789" -> sorted *out (malloc'd), *n; -1: no memory */
static int parse_pids(const char *s, uint32_t **out, size_t *n)
{
	size_t cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == ' ';
	*out = malloc(cap * sizeof(**out));
	*n = 0;
	if (!*out)
		return -1;
	for (char *end; *s; s = end) {
		unsigned long v = strtoul(s, &end, 10);
		if (end == s) {
			end++;
			continue;
		}
		if (*n < cap && v <= UINT32_MAX)
			(*out)[(*n)++] = (uint32_t)v;
	}
	qsort(*out, *n, sizeof(**out), cmp_u32);
	return 0;
}

/* A process still running at the end: its counters up to its last sample */
static void take_last_sample(struct tza_proc *p)
{
	const struct tza_sample *s = &p->res->last;
	p->flags |= TZA_P_SAMPLED;
	p->utime_ns = s->utime_ns;
	p->stime_ns = s->stime_ns;
	p->rchar = s->rchar;
	p->wchar = s->wchar;
	p->read_bytes = s->read_bytes;
	p->write_bytes = s->write_bytes;
	p->maxrss_kib = p->res->peak_sample_rss_kib;
	if (s->threads > p->threads)
		p->threads = s->threads;
}

/* A file written by recover from an input that lost something (its
 * metadata recovered_damaged_blocks, recovered_unfinished: tz_recover) */
static int recovered_lossy(tz_reader *r)
{
	uint64_t n = 0, u = 0;
	return (!tz_reader_meta_u64(r, "recovered_damaged_blocks", &n) && n) ||
	       (!tz_reader_meta_u64(r, "recovered_unfinished", &u) && u);
}

/* v times the share of [start, end] after t (pro-rata) */
static uint64_t after_share(uint64_t v, uint64_t start, uint64_t end, uint64_t t)
{
	if (end <= t)
		return 0;
	if (t <= start || end <= start)
		return v;
	return (uint64_t)((double)v * (double)(end - t) / (double)(end - start));
}

static uint64_t minus(uint64_t v, uint64_t base)
{
	return v > base ? v - base : 0;
}

/* The six sampled counters of x counted from base */
static void sample_rebase(struct tza_sample *x, const struct tza_sample *base)
{
	x->utime_ns = minus(x->utime_ns, base->utime_ns);
	x->stime_ns = minus(x->stime_ns, base->stime_ns);
	x->rchar = minus(x->rchar, base->rchar);
	x->wchar = minus(x->wchar, base->wchar);
	x->read_bytes = minus(x->read_bytes, base->read_bytes);
	x->write_bytes = minus(x->write_bytes, base->write_bytes);
}

/* A pre-existing process (started before rec_start): its counters from the
 * recording's start (tza_model_build). Its totals are known when it exited
 * in the trace or is counted up to its last sample (TZA_P_SAMPLED). */
static int count_from_start(struct builder *b, struct tza_proc *p, uint64_t rec_start)
{
	int known = !(p->flags & TZA_P_NO_EXIT) || (p->flags & TZA_P_SAMPLED);
	uint64_t end = (p->flags & TZA_P_SAMPLED) ? p->res->last.ts_ns : p->end_ns;
	if (!known && !p->res->nsamples_seen)
		return 0; /* nothing counted: nothing to move */
	struct tza_proc_res *x = model_res_of(b, p);
	if (!x)
		return -1;
	p->flags |= TZA_P_CLIPPED;
	x->charge_ns = rec_start;
	if (x->nsamples_seen) {
		const struct tza_sample *base = &x->first;
		x->charge_ns = base->ts_ns > p->start_ns ? base->ts_ns : p->start_ns;
		for (uint32_t i = 0; i < x->nsamples; i++)
			sample_rebase(&x->samples[i], base);
		sample_rebase(&x->last, base);
		if (known) {
			struct tza_sample t = {.utime_ns = p->utime_ns, .stime_ns = p->stime_ns,
					       .rchar = p->rchar, .wchar = p->wchar,
					       .read_bytes = p->read_bytes,
					       .write_bytes = p->write_bytes};
			sample_rebase(&t, base);
			p->utime_ns = t.utime_ns;
			p->stime_ns = t.stime_ns;
			p->rchar = t.rchar;
			p->wchar = t.wchar;
			p->read_bytes = t.read_bytes;
			p->write_bytes = t.write_bytes;
		}
	} else {
		p->utime_ns = after_share(p->utime_ns, p->start_ns, end, rec_start);
		p->stime_ns = after_share(p->stime_ns, p->start_ns, end, rec_start);
		p->rchar = after_share(p->rchar, p->start_ns, end, rec_start);
		p->wchar = after_share(p->wchar, p->start_ns, end, rec_start);
		p->read_bytes = after_share(p->read_bytes, p->start_ns, end, rec_start);
		p->write_bytes = after_share(p->write_bytes, p->start_ns, end, rec_start);
	}
	if (!known)
		return 0;
	uint64_t *pr[] = {&p->syscr, &p->syscw, &p->cancelled_write_bytes, &p->nvcsw,
			  &p->nivcsw, &p->min_flt, &p->maj_flt};
	for (size_t i = 0; i < sizeof(pr) / sizeof(*pr); i++)
		*pr[i] = after_share(*pr[i], p->start_ns, end, x->charge_ns);
	return 0;
}

/* What the file's metadata says about the recording (read_meta) */
struct fin_meta {
	/* the recording's start: the recorder's (taken once its programs were
	 * attached), else the first event */
	uint64_t rec_start;
	uint64_t clip_ns; /* a window slice's start: crossing processes count
			     from it; 0: not such a slice */
	int exec_rebased; /* with clip_ns: their execs' CPU-before count from it too */
	uint64_t slice_to; /* a slice's window end (its end samples' time), else 0 */
	int alive_known;  /* the recorder listed the processes alive at its stop */
	uint32_t *alive;  /* their pids, sorted (malloc'd) */
	size_t nalive;
};

/* fm from r's metadata: 0, or TZ_ERR_NOMEM */
static int read_meta(tz_reader *r, const struct tza_model *m, struct fin_meta *fm)
{
	memset(fm, 0, sizeof(*fm));
	if (tz_reader_meta_u64(r, "start_boottime_ns", &fm->rec_start) || !fm->rec_start)
		fm->rec_start = m->t0_ns;
	/* the recorder lists the processes alive at its stop (a slice ends
	 * earlier: its processes without an exit may still have been running) */
	const char *alive = tz_reader_meta_get(r, "alive_at_stop");
	if (tz_reader_meta_get(r, "slice_of"))
		alive = NULL;
	/* a slice of this analyzer's: crossing processes count from its start */
	const char *sc = tz_reader_meta_get(r, "slice_counters");
	const char *sf = tz_reader_meta_get(r, "slice_from_boottime_ns");
	fm->clip_ns = sc && sf && !strcmp(sc, "window") ? strtoull(sf, NULL, 10) : 0;
	const char *xc = tz_reader_meta_get(r, "slice_exec_cpu");
	fm->exec_rebased = fm->clip_ns && xc && !strcmp(xc, "window");
	if (!tz_reader_meta_get(r, "slice_of") ||
	    tz_reader_meta_u64(r, "slice_to_boottime_ns", &fm->slice_to))
		fm->slice_to = 0;
	fm->alive_known = alive != NULL;
	if (alive && parse_pids(alive, &fm->alive, &fm->nalive) < 0)
		return TZ_ERR_NOMEM;
	return 0;
}

/* q's end, exit-lost and pre-existing state once every event is in; its
 * counters made relative to the recording's start or the slice's window.
 * 0, or -1: out of memory */
static int settle(struct builder *b, struct pint *q, const struct fin_meta *fm)
{
	struct tza_model *m = b->m;
	/* seen without its fork but started before the recording: alive at
	 * the start, it exited (or exec'd) before the snapshot saw it */
	if ((q->p.flags & TZA_P_NO_FORK) && q->p.start_ns < fm->rec_start) {
		q->p.flags &= ~(uint32_t)TZA_P_NO_FORK;
		q->p.flags |= TZA_P_PRE_EXISTING;
	}
	if (q->p.nexecs == TZA_KEEP_HEAD + TZA_KEEP_TAIL)
		model_keep_unring(q->p.execs, q->p.nexecs, sizeof(*q->p.execs), &pst(b, q)->xring);
	if (q->p.nfailed == TZA_KEEP_HEAD + TZA_KEEP_TAIL)
		model_keep_unring(q->p.failed, q->p.nfailed, sizeof(*q->p.failed), &pst(b, q)->fring);
	if (q->p.start_ns < fm->clip_ns) {
		struct tza_proc_res *x = model_res_of(b, &q->p);
		if (!x)
			return -1;
		x->charge_ns = fm->clip_ns;
		q->p.flags |= TZA_P_CLIPPED | (fm->exec_rebased ? TZA_P_EXEC_REBASED : 0);
	}
	const struct pstate qs_copy = *pst(b, q), *qs = &qs_copy;
	/* the builder's state is done with: the children's links go there */
	memset(&q->p._build, 0, sizeof(q->p._build));
	if (qs->live)
		q->p.flags |= TZA_P_NO_EXIT;
	if (q->p.flags & TZA_P_NO_EXIT)
		q->p.end_ns = 0;
	if (q->p.flags & TZA_P_EXITED_BEFORE) {
		/* a zombie at the start: ended before the recording, its
		 * exit never recordable (not lost, not running) */
		q->p.flags |= TZA_P_NO_EXIT | TZA_P_EXIT_LOST;
		q->p.end_ns = qs->last_ns > q->p.start_ns ? qs->last_ns : q->p.start_ns;
		m->exited_before++;
	} else if ((q->p.flags & TZA_P_NO_EXIT) &&
		   (!qs->live || (fm->alive_known && !bsearch(&q->p.pid, fm->alive, fm->nalive,
							       sizeof(*fm->alive), cmp_u32)))) {
		/* not running at the stop (its pid was reused, or the
		 * recorder did not list it): its exit was lost ([E8]) */
		q->p.flags |= TZA_P_EXIT_LOST;
		q->p.end_ns = qs->last_ns > q->p.start_ns ? qs->last_ns : q->p.start_ns;
		m->exit_lost++;
	}
	if ((q->p.flags & (TZA_P_NO_EXIT | TZA_P_EXIT_LOST)) == TZA_P_NO_EXIT &&
	    q->p.res->nsamples_seen) {
		take_last_sample(&q->p);
		/* a slice's end sample of a process with no sample by then */
		const struct tza_sample *s = &q->p.res->last;
		if (fm->slice_to && s->ts_ns == fm->slice_to && !s->threads &&
		    !q->p.res->peak_sample_rss_kib)
			q->p.flags |= TZA_P_RSS_UNKNOWN;
	}
	if ((q->p.flags & TZA_P_PRE_EXISTING) && !(q->p.flags & TZA_P_CLIPPED) &&
	    q->p.start_ns < fm->rec_start && !(b->flags & TZA_MB_LIFETIME) &&
	    count_from_start(b, &q->p, fm->rec_start) < 0)
		return -1;
	if (!q->p.comm[0] && q->p.nexecs)
		memcpy(q->p.comm, q->p.execs[q->p.nexecs - 1].ctx->comm, sizeof(q->p.comm));
	if ((q->p.flags & TZA_P_NO_FORK) && !(q->p.flags & TZA_P_PRE_EXISTING))
		m->no_fork++;
	if ((q->p.flags & TZA_P_FROM_STATE) && !(q->p.flags & TZA_P_PRE_EXISTING))
		m->from_state++;
	/* a fork's start_boottime precedes its event by microseconds: the
	 * trace starts with the first process started in it */
	if (!(q->p.flags & (TZA_P_NO_FORK | TZA_P_PRE_EXISTING | TZA_P_FROM_STATE)) &&
	    q->p.start_ns < m->t0_ns && m->t0_ns - q->p.start_ns < 1000000000ULL)
		m->t0_ns = q->p.start_ns;
	return 0;
}

/* Settle every process and order them by (start, pid, creation): 0, or
 * TZ_ERR_NOMEM */
static int settle_and_order(struct builder *b, const struct fin_meta *fm)
{
	struct tza_model *m = b->m;
	uint32_t n = m->nprocs;
	struct tza_proc **v = m->procs, **x = malloc((n ? n : 1) * sizeof(*x));
	uint32_t nk = 0, nx = 0; /* in order (front of v), out of order (x) */
	if (!x)
		return TZ_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct pint *q = (struct pint *)v[i];
		if (settle(b, q, fm) < 0) {
			free(x);
			return TZ_ERR_NOMEM;
		}
		if (!nk || !start_lt(&q->p, v[nk - 1]))
			v[nk++] = &q->p;
		else
			x[nx++] = &q->p;
	}
	sort_merge(v, n, nk, x, nx);
	free(x);
	return 0;
}

/* Parents not known at fork time: the process with that pid alive then
 * (the pid table tells which pids the trace has at all; the by-pid index is
 * made only when one is needed). A process's parent is final once its turn
 * is over: roots are counted in the same pass (*nroots), and *root_ppid is
 * the parent pid of the first root forked in the trace. 0, or TZ_ERR_NOMEM. */
static int link_parents(struct builder *b, uint32_t *nroots, uint32_t *root_ppid)
{
	struct tza_model *m = b->m;
	uint32_t n = m->nprocs;
	uint64_t *bypid = NULL;
	*nroots = 0;
	*root_ppid = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		p->index = i;
		if (!p->parent && p->ppid && p->ppid != p->pid && pid_get(b, p->ppid)) {
			if (!bypid && !(bypid = by_pid(m->procs, n)))
				return TZ_ERR_NOMEM;
			struct tza_proc *c = alive_at(m->procs, bypid, n, p->ppid, p->start_ns);
			/* every link runs from an older or same-age parent: only a
			 * same-age one can close a cycle */
			if (c && c != p && (c->start_ns < p->start_ns || !is_ancestor(p, c, n)))
				p->parent = c;
		}
		if (p->parent)
			continue;
		(*nroots)++;
		if (!*root_ppid && !(p->flags & (TZA_P_PRE_EXISTING | TZA_P_NO_FORK |
						 TZA_P_KTHREAD | TZA_P_FROM_STATE)))
			*root_ppid = p->ppid;
	}
	free(bypid);
	return 0;
}

/* m->incomplete and the facts behind it: drops, lost or damaged data, an
 * unfinished file, a wrapped ring */
static void judge_complete(struct tza_model *m, tz_reader *r, uint64_t rec_start)
{
	const struct tz_info *in = tz_reader_info(r);
	if (tza_drops_incomplete(m->drops)) /* dropslot.c says which slots */
		m->incomplete = 1;
	/* unfinished: what was not sealed is lost, unless the recorder still
	 * writes it (live); a wrapped ring overwrote its oldest data by design */
	m->live = in->live;
	uint64_t rw = 0; /* a recovered copy of a wrapped ring (FORMAT.md 9) */
	m->ring_wrapped = (in->ring && in->ring_wrapped) ||
			  (!tz_reader_meta_u64(r, "recovered_ring_wrapped", &rw) && rw);
	if (m->ring_wrapped && rec_start && in->first_ts_ns > rec_start)
		m->overwritten_ns = in->first_ts_ns - rec_start;
	m->recovered_lossy = recovered_lossy(r);
	if (m->dropped_chunks || m->corrupt_blocks || m->no_fork ||
	    (in->ring && m->from_state && !m->ring_wrapped) || m->exit_lost ||
	    (in->unfinished && !in->live) || m->recovered_lossy)
		m->incomplete = 1;
}

/* A root whose parent is not in the trace, unless expected: a pre-existing
 * process or kernel thread, the recorded command (its fork overwritten in a
 * ring), or in a complete trace the parent pid of the first root forked */
static void judge_orphan(struct tza_model *m, struct tza_proc *p, uint32_t root_ppid,
			 uint32_t rec_pid, uint32_t target_pid)
{
	if (!p->ppid || (p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD)))
		return;
	if (p->ppid == rec_pid || (target_pid && p->pid == target_pid))
		return;
	if ((p->flags & TZA_P_NO_FORK) || (m->incomplete && p->ppid != root_ppid)) {
		p->flags |= TZA_P_ORPHAN;
		m->orphans++;
	}
}

/* Children lists and roots, in order (filled from the last); start images
 * (parents are final now); orphans. 0, or TZ_ERR_NOMEM. */
static int link_children(struct tza_model *m, tz_reader *r, uint32_t nroots, uint32_t root_ppid)
{
	uint32_t n = m->nprocs;
	const char *rp = tz_reader_meta_get(r, "recorder_pid"), *tp = NULL;
	uint32_t rec_pid = rp ? (uint32_t)strtoul(rp, NULL, 10) : 0, target_pid = 0;
	if (!rec_pid)
		rec_pid = UINT32_MAX; /* matches no ppid */
	if ((tp = tz_reader_meta_get(r, "target_pid")))
		target_pid = (uint32_t)strtoul(tp, NULL, 10);

	struct imgwalk w = {0};
	m->roots = malloc((nroots ? nroots : 1) * sizeof(*m->roots));
	if (!m->roots || imgwalk_init(&w, n) < 0) {
		imgwalk_free(&w);
		return TZ_ERR_NOMEM;
	}
	m->nroots = nroots;
	for (uint32_t i = n; i-- > 0;) {
		struct tza_proc *p = m->procs[i];
		if (set_start_image(&w, p) < 0) {
			imgwalk_free(&w);
			return TZ_ERR_NOMEM;
		}
		if (p->parent) {
			p->next_sibling = p->parent->first_child;
			p->parent->first_child = p;
			p->parent->nchildren++;
			continue;
		}
		m->roots[--nroots] = p;
		judge_orphan(m, p, root_ppid, rec_pid, target_pid);
	}
	imgwalk_free(&w);
	return 0;
}

int model_finish(struct builder *b, tz_reader *r)
{
	struct tza_model *m = b->m;
	const struct tz_info *in = tz_reader_info(r);
	struct fin_meta fm;
	uint32_t nroots, root_ppid;
	int rc;

	m->dropped_chunks = in->dropped;
	m->corrupt_blocks = in->corrupt_blocks;
	m->duplicate_blocks = in->duplicate_blocks;
	rc = read_meta(r, m, &fm);
	if (!rc)
		rc = settle_and_order(b, &fm);
	free(fm.alive);
	if (!rc)
		rc = link_parents(b, &nroots, &root_ppid);
	if (rc)
		return rc;
	judge_complete(m, r, fm.rec_start);
	return link_children(m, r, nroots, root_ppid);
}

struct cgpos {
	struct tza_cgroup c;
	uint32_t i; /* arrival order */
};

static int cmp_cg(const void *x, const void *y)
{
	const struct cgpos *a = x, *b = y;
	if (a->c.hier != b->c.hier)
		return a->c.hier < b->c.hier ? -1 : 1;
	if (a->c.id != b->c.id)
		return a->c.id < b->c.id ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Sort the cgroup table by (hier, id), keeping the first recorded entry of
 * each key. 0, or -1 out of memory. */
int model_finish_cgroups(struct mint *mi)
{
	uint32_t n = mi->ncg, k = 0;
	if (n < 2)
		return 0;
	struct cgpos *t = malloc((size_t)n * sizeof(*t));
	if (!t)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		t[i] = (struct cgpos){mi->cg[i], i};
	qsort(t, n, sizeof(*t), cmp_cg);
	for (uint32_t i = 0; i < n; i++)
		if (!k || t[i].c.hier != mi->cg[k - 1].hier || t[i].c.id != mi->cg[k - 1].id)
			mi->cg[k++] = t[i].c;
	free(t);
	mi->ncg = k;
	return 0;
}
