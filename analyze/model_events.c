/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model_events.c - the model's rules: one handler per event type, taking
 * events in timestamp order (model_consume), plus the storage of each
 * process's images and failed execs (the first TZA_KEEP_HEAD, then a ring of
 * the last TZA_KEEP_TAIL).
 */
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "model_int.h"

/*
 * Strings of stored images and failed execs. Entries that can be evicted
 * (slot index >= TZA_KEEP_HEAD: the tail ring) get a private malloc'd copy,
 * freed when evicted, so a process's memory stays capped whatever the number
 * of distinct strings it execs; the others go to the arena, shared with an
 * equal string copied shortly before (tza_strcache_get).
 */
static int owned_slot(uint32_t idx)
{
	return idx >= TZA_KEEP_HEAD;
}

/* bytes [p, p+len) as a NUL-terminated copy; *ok = 0 when out of memory */
static char *store(struct builder *b, int own, const void *p, size_t len, int *ok)
{
	char *s;
	if (b->interned && !own) /* p is the blob's interned copy: NUL-terminated
				    after the blob; a string field reads up to
				    its first NUL, as the copy of len would */
		return (char *)p;
	if (own) {
		s = malloc(len + 1);
		if (s) {
			memcpy(s, p, len);
			s[len] = 0;
		}
	} else {
		s = tza_strcache_get(&b->strs, b->arena, p, len);
	}
	if (!s)
		*ok = 0;
	return s;
}

/* A blob field as a C string (up to its first NUL), or NULL when absent */
static char *blob_str(struct builder *b, int own, const struct tz_event *ev,
		      const struct tz_field *f, int *ok)
{
	struct tz_blob bl = fblob(ev, f);
	if (!bl.data)
		return NULL;
	if (b->interned && !own) /* store() keeps the interned copy: no length needed */
		return (char *)bl.data;
	return store(b, own, bl.data, strnlen(bl.data, bl.len), ok);
}

/* Free the private strings of a context that is not the arena's */
static void ctx_strings_free(struct tza_exec_ctx *c)
{
	free(c->cwd);
	free(c->env);
	free(c->exe);
	free(c->filename);
	free(c->script);
}

/* Free the private strings and context of a tail slot (owned_slot) */
void model_exec_free(struct tza_exec *e)
{
	struct tza_exec_ctx *c = (struct tza_exec_ctx *)e->ctx;
	if (c) {
		ctx_strings_free(c);
		free(c);
	}
	free(e->argv);
}

/*
 * *c (its padding zeroed) as an image's context: for a tail slot (own) a
 * private malloc'd copy, which then owns c's strings; else an equal one
 * made shortly before, found by XXH3 of its bytes in a direct-mapped cache
 * of the last ones made (an exec storm's images share one), or a new copy
 * in the arena. NULL: no memory (c's private strings are then freed).
 * Equal string pointers are equal strings, so comparing bytes is enough;
 * equal strings at different addresses only cost a second copy.
 */
static const struct tza_exec_ctx *ctx_store(struct builder *b, int own,
					    const struct tza_exec_ctx *c)
{
	struct tza_exec_ctx *n;
	if (own) {
		n = malloc(sizeof(*n));
		if (n)
			memcpy(n, c, sizeof(*n));
		else
			ctx_strings_free((struct tza_exec_ctx *)c);
		return n;
	}
	if (!b->ctxc && !(b->ctxc = calloc(BUILDER_CTX_SLOTS, sizeof(*b->ctxc))))
		return NULL;
	uint64_t h = tza_strcache_hash(c, sizeof(*c));
	const struct tza_exec_ctx **slot = &b->ctxc[h & (BUILDER_CTX_SLOTS - 1)];
	if (*slot && !memcmp(*slot, c, sizeof(*c)))
		return *slot;
	n = tza_arena_alloc(b->arena, sizeof(*n));
	if (!n)
		return NULL;
	memcpy(n, c, sizeof(*n));
	*slot = n;
	return n;
}

/*
 * Slot for the next of n stored entries (size bytes each) in *arr: appended
 * while fewer than TZA_KEEP_HEAD + TZA_KEEP_TAIL are stored, else the oldest
 * of the tail (a ring at [TZA_KEEP_HEAD, +TZA_KEEP_TAIL) advanced by *ring;
 * *reused is then 1: the caller counts it in p->res's *_omitted and frees
 * what the slot held). *idx: its index.
 * The first entry comes from the arena, more (n > 1) from malloc. NULL: no
 * memory.
 */
static void *keep_slot(struct builder *b, void **arr, uint32_t *n, size_t size, uint8_t *ring,
		       int *reused, uint32_t *idx)
{
	*reused = 0;
	if (*n == TZA_KEEP_HEAD + TZA_KEEP_TAIL) {
		*idx = TZA_KEEP_HEAD + *ring;
		*ring = (uint8_t)((*ring + 1) % TZA_KEEP_TAIL);
		*reused = 1;
		return (char *)*arr + *idx * size;
	}
	if (*n == 0) {
		*arr = tza_arena_alloc(b->arena, size);
		if (!*arr)
			return NULL;
	} else if (*n == 1) {
		void *na = malloc(2 * size);
		if (!na)
			return NULL;
		memcpy(na, *arr, size);
		*arr = na;
	} else if ((*n & (*n - 1)) == 0) { /* grow at powers of two */
		void *na = realloc(*arr, *n * 2 * size);
		if (!na)
			return NULL;
		*arr = na;
	}
	*idx = (*n)++;
	char *slot = (char *)*arr + *idx * size;
	memset(slot, 0, size);
	return slot;
}

/* Index of the newest of n stored entries while building (ring at ring) */
static uint32_t last_slot(uint32_t n, uint32_t ring)
{
	if (n < TZA_KEEP_HEAD + TZA_KEEP_TAIL)
		return n - 1;
	return TZA_KEEP_HEAD + (ring + TZA_KEEP_TAIL - 1) % TZA_KEEP_TAIL;
}

/* Put the tail ring back in time order (oldest first) */
void model_keep_unring(void *arr, uint32_t n, size_t size, uint8_t *ring)
{
	if (!*ring || n < TZA_KEEP_HEAD + TZA_KEEP_TAIL)
		return;
	char tmp[TZA_KEEP_TAIL * sizeof(struct tza_exec)];
	char *tail = (char *)arr + TZA_KEEP_HEAD * size;
	size_t a = *ring * size, all = TZA_KEEP_TAIL * size;
	memcpy(tmp, tail + a, all - a);
	memcpy(tmp + all - a, tail, a);
	memcpy(tail, tmp, all);
	*ring = 0;
}

/* A zeroed slot for q's next image; *own: its strings are private */
static struct tza_exec *image_slot(struct builder *b, struct pint *q, int *own)
{
	struct tza_proc *p = &q->p;
	int reused;
	uint32_t idx;
	struct tza_exec *slot = keep_slot(b, (void **)&p->execs, &p->nexecs, sizeof(*slot),
					  &pst(b, q)->xring, &reused, &idx);
	if (!slot)
		return NULL;
	if (reused) {
		struct tza_proc_res *x = model_res_of(b, p);
		if (!x)
			return NULL;
		x->nexecs_omitted++;
		model_exec_free(slot);
		memset(slot, 0, sizeof(*slot));
	}
	*own = owned_slot(idx);
	return slot;
}

static int on_fork(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t child = u32(ev, f->f_child), parent = u32(ev, f->f_parent);
	uint64_t start = fu64(ev, f->f_cstart);
	if (!child)
		return 0;
	if (!start)
		start = ev->ts_ns;
	struct pint *q = live_get(b, child);
	if (q && q->p.start_ns == start) {
		/* already known from a snapshot/state: the same process */
		q->p.flags &= ~(uint32_t)TZA_P_NO_FORK;
	} else {
		q = model_new_proc(b, child, start, 0);
		if (!q)
			return -1;
	}
	q->p.ppid = parent;
	q->p.ns_pid = u32(ev, f->f_cns);
	seen(b, q, ev->ts_ns);
	struct pint *pp = parent != child ? live_get(b, parent) : NULL;
	if (pp)
		seen(b, pp, ev->ts_ns);
	if (pp && !q->p.parent && pp->p.start_ns <= q->p.start_ns)
		q->p.parent = &pp->p;
	return 0;
}

static int on_exec(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->x_tgid);
	if (!tgid)
		return 0;
	struct pint *q = model_find_or_new(b, tgid, fu64(ev, f->x_start), ev->ts_ns,
				     TZA_P_NO_FORK);
	if (!q)
		return -1;
	seen(b, q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	int own, ok = 1;
	struct tza_exec *e = image_slot(b, q, &own);
	if (!e)
		return -1;
	e->ts_ns = ev->ts_ns;
	struct tza_exec_ctx c;
	memset(&c, 0, sizeof(c)); /* its padding too: ctx_store compares bytes */
	c.exe = blob_str(b, own, ev, f->x_exe, &ok);
	c.filename = blob_str(b, own, ev, f->x_fname, &ok);
	struct tz_blob sc = fblob(ev, f->x_script);
	if (sc.data && sc.len && *(const char *)sc.data)
		c.script = store(b, own, sc.data, strnlen(sc.data, sc.len), &ok);
	struct tz_blob av = fblob(ev, f->x_argv);
	if (av.len) {
		e->argv = (uint8_t *)store(b, own, av.data, av.len, &ok);
		e->argv_len = e->argv ? av.len : 0;
	}
	e->argc = u32(ev, f->x_argc);
	e->argv_size = u32(ev, f->x_argvsz);
	e->flags = u32(ev, f->x_flags) & ~(TZA_EXEC_FROM_STATE | TZA_EXEC_CPU);
	c.uid = u32(ev, f->x_uid);
	c.euid = u32(ev, f->x_euid);
	c.gid = u32(ev, f->x_gid);
	c.egid = u32(ev, f->x_egid);
	c.cgroup_id = fu64(ev, f->x_cg);
	c.memcg_id = fu64(ev, f->x_memcg);
	struct tz_blob cw = fblob(ev, f->x_cwd);
	if (cw.data && cw.len)
		c.cwd = store(b, own, cw.data, strnlen(cw.data, cw.len), &ok);
	struct tz_blob en = fblob(ev, f->x_env);
	if (en.data && en.len) {
		c.env = store(b, own, en.data, en.len, &ok);
		c.env_len = c.env ? en.len : 0;
	}
	model_get_comm(ev, f->x_comm, c.comm);
	if (!ok) {
		if (own)
			ctx_strings_free(&c);
		return -1;
	}
	if (!(e->ctx = ctx_store(b, own, &c)))
		return -1;
	/* the fields read by name only (EV_EXEC_BYNAME): as recorded */
#define XB_READ(ty, name, unit, src)                                                           \
	if (f->xb_##name) {                                                                    \
		e->name = fu64(ev, f->xb_##name);                                              \
		e->byname_known |= 1u << TZA_XB_##name;                                        \
	}
	EV_EXEC_BYNAME(XB_READ)
#undef XB_READ
	if (f->x_ut && f->x_st) {
		e->cpu_before_ns = fu64(ev, f->x_ut) + fu64(ev, f->x_st);
		e->flags |= TZA_EXEC_CPU;
	}
	b->m->nexecs++;
	if (!p->ppid)
		p->ppid = u32(ev, f->x_ppid);
	if (f->x_nspid)
		p->ns_pid = u32(ev, f->x_nspid);
	if (c.comm[0]) /* empty: not in the event (a shorter fixed part) */
		memcpy(p->comm, c.comm, sizeof(p->comm));
	if (e->flags & EV_EXEC_ARGV_TRUNCATED)
		p->flags |= TZA_P_ARGV_TRUNCATED;
	else
		p->flags &= ~(uint32_t)TZA_P_ARGV_TRUNCATED;
	return 0;
}

static int on_exec_fail(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->xf_tgid);
	if (!tgid)
		return 0;
	int made = !live_get(b, tgid);
	struct pint *q = model_find_or_new(b, tgid, 0, ev->ts_ns, TZA_P_NO_FORK);
	if (!q)
		return -1;
	if (made)
		pst(b, q)->start_guess = 1;
	seen(b, q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	int reused, ok = 1;
	uint32_t idx;
	struct tza_failed_exec *nf = keep_slot(b, (void **)&p->failed, &p->nfailed, sizeof(*nf),
					       &pst(b, q)->fring, &reused, &idx);
	if (!nf)
		return -1;
	if (reused) {
		struct tza_proc_res *x = model_res_of(b, p);
		if (!x)
			return -1;
		x->nfailed_omitted++;
		free(nf->filename);
	}
	nf->ts_ns = ev->ts_ns;
	nf->filename = blob_str(b, owned_slot(idx), ev, f->xf_fname, &ok);
	nf->err = (int)fi64(ev, f->xf_err);
	nf->tid = u32(ev, f->xf_pid);
	b->m->nfailed_execs++;
	return ok ? 0 : -1;
}

static int on_exit_ev(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct exit_in x;
	model_exit_read(f, ev, &x);
	if (!x.tgid)
		return 0;
	struct pint *q = model_find_or_new(b, x.tgid, x.start, ev->ts_ns, TZA_P_NO_FORK);
	if (!q)
		return -1;
	struct tza_proc *p = &q->p;
	p->end_ns = ev->ts_ns < p->start_ns ? p->start_ns : ev->ts_ns;
	p->flags &= ~(uint32_t)TZA_P_NO_EXIT;
	p->utime_ns = x.ut;
	p->stime_ns = x.st;
	p->maxrss_kib = x.rss;
	p->rchar = x.rchar;
	p->wchar = x.wchar;
	p->syscr = x.syscr;
	p->syscw = x.syscw;
	p->read_bytes = x.rb;
	p->write_bytes = x.wb;
	p->cancelled_write_bytes = x.cwb;
	p->nvcsw = x.nvcsw;
	p->nivcsw = x.nivcsw;
	p->min_flt = x.minflt;
	p->maj_flt = x.majflt;
	p->status = x.status;
	uint32_t fl = x.flags;
	if (x.has_code) {
		p->exit_code = x.code;
		p->signal = x.sig;
	} else { /* decode the raw wait status */
		p->signal = p->status & 0x7f;
		p->exit_code = p->signal ? -1 : (int32_t)((p->status >> 8) & 0xff);
	}
	p->core_dumped = (fl & EV_EXIT_CORE_DUMPED) || (!f->e_flags && (p->status & 0x80));
	if (fl & EV_EXIT_EXE_DELETED) {
		p->flags |= TZA_P_EXE_DELETED;
		if (p->nexecs) /* the image it exits with: the last one stored */
			p->execs[last_slot(p->nexecs, pst(b, q)->xring)].flags |= EV_EXEC_EXE_DELETED;
	}
	if (fl & EV_EXIT_IO_FALLBACK)
		p->flags |= TZA_P_IO_FALLBACK;
	p->threads = x.threads;
	if (x.comm[0]) /* empty: not in the event; the known comm stays */
		memcpy(p->comm, x.comm, sizeof(p->comm));
	p->exit_ppid = x.ppid;
	if (!p->ppid)
		p->ppid = p->exit_ppid;
	if (p->exit_ppid && p->ppid && p->exit_ppid != p->ppid)
		p->flags |= TZA_P_REPARENTED;
	/* the signal it got is not what ended it (never so in tza_res_none) */
	if (p->res->killer_signal && p->res->killer_signal != p->signal)
		((struct tza_proc_res *)p->res)->killer_signal = 0;
	model_pid_exited(b, q);
	return 0;
}

/* The process's final CPU, switches and faults once its last task was freed
 * (after its reap): they replace its exit's, which miss what the exit path
 * spent after the exit event. Only for the exited instance (tgid, start)
 * that is still its pid's newest (a pid is not reused before its release),
 * and only when no figure goes down (else the event is not this process's
 * release: ignored). */
static int on_release(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->r_tgid);
	struct pint *q = tgid ? pid_last(b, tgid) : NULL;
	if (!q || pst(b, q)->live || q->p.start_ns != fu64(ev, f->r_start) ||
	    (q->p.flags & (TZA_P_NO_EXIT | TZA_P_RELEASED)))
		return 0;
	struct tza_proc *p = &q->p;
	uint64_t ut = fu64(ev, f->r_ut), st = fu64(ev, f->r_st), nv = fu64(ev, f->r_nvcsw),
		 niv = fu64(ev, f->r_nivcsw), mi = fu64(ev, f->r_minflt), ma = fu64(ev, f->r_majflt);
	if (ut + st < p->utime_ns + p->stime_ns || nv < p->nvcsw || niv < p->nivcsw || mi < p->min_flt || ma < p->maj_flt)
		return 0;
	p->utime_ns = ut;
	p->stime_ns = st;
	p->nvcsw = nv;
	p->nivcsw = niv;
	p->min_flt = mi;
	p->maj_flt = ma;
	p->flags |= TZA_P_RELEASED;
	return 0;
}

/* The live process (tgid, start_ns), or NULL: samples and kernel events
 * never create a process. */
static struct tza_proc *live_proc(struct builder *b, uint32_t tgid, uint64_t start_ns)
{
	struct pint *q = tgid ? live_get(b, tgid) : NULL;
	if (!q || (start_ns && q->p.start_ns && q->p.start_ns != start_ns))
		return NULL;
	return &q->p;
}

static int on_sample(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_proc *p = live_proc(b, u32(ev, f->sm_tgid), fu64(ev, f->sm_start));
	b->m->nsamples++;
	if (!p)
		return 0;
	uint64_t rss = fu64(ev, f->sm_anon) + fu64(ev, f->sm_file) +
		       fu64(ev, f->sm_shmem);
	seen(b, (struct pint *)p, ev->ts_ns);
	struct tza_proc_res *x = model_res_of(b, p);
	if (!x)
		return -1;
	x->nsamples_seen++;
	if (rss > x->peak_sample_rss_kib)
		x->peak_sample_rss_kib = rss;
	struct tza_sample *s = &x->last;
	s->ts_ns = ev->ts_ns;
	s->utime_ns = fu64(ev, f->sm_ut);
	s->stime_ns = fu64(ev, f->sm_st);
	s->read_bytes = fu64(ev, f->sm_rb);
	s->write_bytes = fu64(ev, f->sm_wb);
	s->rchar = fu64(ev, f->sm_rchar);
	s->wchar = fu64(ev, f->sm_wchar);
	s->rss_kib = rss > UINT32_MAX ? UINT32_MAX : (uint32_t)rss;
	s->threads = u32(ev, f->sm_threads);
	if (x->nsamples_seen == 1)
		x->first = *s;
	if (!(b->flags & TZA_MB_SAMPLES))
		return 0;
	if ((x->nsamples & (x->nsamples - 1)) == 0) { /* grow at powers of two */
		uint32_t nc = x->nsamples ? x->nsamples * 2 : 4;
		struct tza_sample *ns = realloc(x->samples, nc * sizeof(*ns));
		if (!ns)
			return -1;
		x->samples = ns;
	}
	x->samples[x->nsamples++] = x->last;
	return 0;
}

static int on_host_sample(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_model *m = b->m;
	uint64_t used = fu64(ev, f->h_used);
	m->nhost_samples++;
	m->host_mem_total_kib = fu64(ev, f->h_total);
	if (used > m->host_peak_mem_used_kib) {
		m->host_peak_mem_used_kib = used;
		m->host_peak_mem_ns = ev->ts_ns;
	}
	if (!(b->flags & TZA_MB_SAMPLES))
		return 0;
	if (VEC_ROOM(m->host, m->nhost, b->host_cap, 64))
		return -1;
	struct tza_host_sample *h = &m->host[m->nhost++];
	uint64_t idle = fu64(ev, f->h_idle) + fu64(ev, f->h_iow);
	uint64_t busy = fu64(ev, f->h_user) + fu64(ev, f->h_nice) +
			fu64(ev, f->h_sys) + fu64(ev, f->h_irq) +
			fu64(ev, f->h_soft) + fu64(ev, f->h_steal);
	h->ts_ns = ev->ts_ns;
	h->busy_ns = busy;
	h->total_ns = busy + idle;
	h->mem_used_kib = used;
	h->mem_total_kib = m->host_mem_total_kib;
	h->mem_available_kib = fu64(ev, f->h_avail);
	h->disk_read_bytes = fu64(ev, f->h_rd);
	h->disk_write_bytes = fu64(ev, f->h_wr);
	h->net_rx_bytes = fu64(ev, f->h_rx);
	h->net_tx_bytes = fu64(ev, f->h_tx);
	h->ncpus = u32(ev, f->h_ncpus);
	h->load1_milli = u32(ev, f->h_load1);
	return 0;
}

static int on_oom_kill(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_proc *p = live_proc(b, u32(ev, f->o_tgid), fu64(ev, f->o_start));
	if (!p)
		return 0;
	struct tza_proc_res *x = model_res_of(b, p);
	if (!x)
		return -1;
	if (!x->oom_killed)
		b->m->noom_kills++;
	x->oom_killed = 1;
	x->oom_ns = ev->ts_ns;
	x->oom_rss_kib = fu64(ev, f->o_anon) + fu64(ev, f->o_file) + fu64(ev, f->o_shmem);
	x->oom_memcg_id = fu64(ev, f->o_memcg);
	x->oom_trigger_pid = u32(ev, f->o_trig);
	x->oom_total_vm_kib = fu64(ev, f->o_vm);
	x->oom_uid = u32(ev, f->o_uid);
	x->oom_score_adj = (int16_t)fi64(ev, f->o_adj);
	return 0;
}

/* A fatal signal sent to a live process: remembered as its killer; the
 * exit keeps it only when the exit signal is this one. */
static int on_signal(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_proc *p = live_proc(b, u32(ev, f->g_ttgid), fu64(ev, f->g_tstart));
	int sig = (int)fi64(ev, f->g_sig);
	if (!p || sig <= 0)
		return 0;
	/* the first fatal signal wins: later ones hit a process already dying */
	if (p->res->killer_signal == sig)
		return 0;
	struct tza_proc_res *x = model_res_of(b, p);
	if (!x)
		return -1;
	x->killer_signal = sig;
	x->killer_pid = u32(ev, f->g_stgid);
	x->killer_start_ns = fu64(ev, f->g_sstart);
	x->killer_flags = u32(ev, f->g_flags);
	x->killer_kernel = (x->killer_flags & EV_SIGNAL_KERNEL) != 0;
	x->killer_code = (int32_t)fi64(ev, f->g_code);
	model_get_comm(ev, f->g_comm, x->killer_comm);
	x->killer_uid = f->g_suid ? (int64_t)u32(ev, f->g_suid) : -1;
	x->kill_ns = ev->ts_ns;
	return 0;
}

static int on_state(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->s_tgid);
	uint64_t start = fu64(ev, f->s_start);
	uint32_t sfl = u32(ev, f->s_flags);
	if (!tgid)
		return 0;
	struct pint *q = live_get(b, tgid);
	if (!q && start && model_dead_has(b, tgid, start))
		return 0; /* a state block written before the writer saw the exit */
	if (!q || (start && q->p.start_ns != start)) {
		uint32_t pf = TZA_P_FROM_STATE;
		if (sfl & EV_STATE_PRE_EXISTING)
			pf = TZA_P_PRE_EXISTING;
		q = model_new_proc(b, tgid, start ? start : ev->ts_ns, pf);
		if (!q)
			return -1;
	}
	struct tza_proc *p = &q->p;
	seen(b, q, ev->ts_ns);
	if (sfl & EV_STATE_PRE_EXISTING)
		p->flags |= TZA_P_PRE_EXISTING;
	if (sfl & EV_STATE_KTHREAD)
		p->flags |= TZA_P_KTHREAD;
	if ((sfl & (EV_STATE_PRE_EXISTING | EV_STATE_EXITED)) ==
	    (EV_STATE_PRE_EXISTING | EV_STATE_EXITED))
		p->flags |= TZA_P_EXITED_BEFORE;
	if (!p->ppid)
		p->ppid = u32(ev, f->s_ppid);
	if (!p->ns_pid)
		p->ns_pid = u32(ev, f->s_nspid);
	if (!p->comm[0])
		model_get_comm(ev, f->s_comm, p->comm);
	/* a process forked in the trace runs its parent's image until it execs */
	if (p->nexecs || !(p->flags & (TZA_P_FROM_STATE | TZA_P_PRE_EXISTING)))
		return 0;
	uint32_t uid = u32(ev, f->s_uid), euid = u32(ev, f->s_euid);
	struct tz_blob exe = fblob(ev, f->s_exe), av = fblob(ev, f->s_argv);
	if (!exe.data && !av.len) { /* no image to hold them: in p's res */
		if ((uid || euid || p->res != &tza_res_none)) {
			struct tza_proc_res *x = model_res_of(b, p);
			if (!x)
				return -1;
			x->state_uid = uid;
			x->state_euid = euid;
		}
		return 0;
	}
	int own, ok = 1;
	struct tza_exec *e = image_slot(b, q, &own);
	if (!e)
		return -1;
	e->ts_ns = ev->ts_ns;
	struct tza_exec_ctx c;
	memset(&c, 0, sizeof(c)); /* its padding too: ctx_store compares bytes */
	if (exe.data)
		c.exe = store(b, own, exe.data, strnlen(exe.data, exe.len), &ok);
	if (av.len) {
		e->argv = (uint8_t *)store(b, own, av.data, av.len, &ok);
		e->argv_len = e->argv ? av.len : 0;
	}
	if (!ok) {
		if (own)
			ctx_strings_free(&c);
		return -1;
	}
	e->argc = u32(ev, f->s_argc);
	e->argv_size = u32(ev, f->s_argvsz);
	/* EV_STATE_ARGV_TRUNCATED; older recorders' 0x1 is EV_STATE_PRE_EXISTING */
	e->flags = ((sfl & EV_STATE_ARGV_TRUNCATED) ? EV_EXEC_ARGV_TRUNCATED : 0) |
		   TZA_EXEC_FROM_STATE;
	c.uid = uid;
	c.euid = euid;
	memcpy(c.comm, p->comm, sizeof(c.comm));
	if (!(e->ctx = ctx_store(b, own, &c)))
		return -1;
	if (sfl & EV_STATE_ARGV_TRUNCATED)
		p->flags |= TZA_P_ARGV_TRUNCATED;
	return 0;
}

static void on_drops(struct builder *b, const struct tz_event *ev)
{
	for (int i = 0; i < EV_DROP_SLOTS; i++)
		if (b->f.d[i])
			b->m->drops[i] = fu64(ev, b->f.d[i]);
}

static int on_cgroup(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct mint *mi = (struct mint *)b->m;
	int ok = 1;
	if (VEC_ROOM(mi->cg, mi->ncg, mi->cgcap, 16) < 0)
		return -1;
	struct tza_cgroup *c = &mi->cg[mi->ncg];
	memset(c, 0, sizeof(*c));
	c->id = fu64(ev, f->c_id);
	c->hier = u32(ev, f->c_hier);
	c->flags = u32(ev, f->c_flags);
	c->mem_limit_bytes = fu64(ev, f->c_mem);
	c->cpu_quota_us = fu64(ev, f->c_quota);
	c->cpu_period_us = fu64(ev, f->c_period);
	c->path = blob_str(b, 0, ev, f->c_path, &ok);
	if (!ok)
		return -1;
	if (!c->path)
		c->path = (char *)"";
	mi->ncg++;
	return 0;
}

static int on_attach(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct mint *mi = (struct mint *)b->m;
	struct tz_blob nm = fblob(ev, f->a_name), d = fblob(ev, f->a_data);
	int ok = 1;
	if (!nm.data || !nm.len)
		return 0; /* nameless: nothing to name it by */
	if (VEC_ROOM(mi->att, mi->natt, mi->attcap, 16) < 0)
		return -1;
	struct tza_attachment *a = &mi->att[mi->natt];
	memset(a, 0, sizeof(*a));
	a->name = store(b, 0, nm.data, strnlen(nm.data, nm.len), &ok);
	a->data = d.len ? (const uint8_t *)store(b, 0, d.data, d.len, &ok) : (const uint8_t *)"";
	a->len = d.len;
	a->flags = u32(ev, f->a_flags) & (TZA_ATT_TRUNCATED | TZA_ATT_REDACTED);
	a->mtime_ns = fu64(ev, f->a_mtime);
	a->size = fu64(ev, f->a_size);
	if (!ok)
		return -1;
	mi->natt++;
	return 0;
}
/* One event into the model: 0, or -1 when out of memory. */
int model_consume(struct builder *b, const struct tz_event *ev)
{
	struct tza_model *m = b->m;
	if (!m->nevents || ev->ts_ns < m->t0_ns)
		m->t0_ns = ev->ts_ns;
	if (ev->ts_ns > m->t1_ns)
		m->t1_ns = ev->ts_ns;
	m->nevents++;
	int e = 0;
	switch (ev->type ? ev->type_id : 0) {
	case EV_FORK:
		e = on_fork(b, ev);
		break;
	case EV_EXEC:
		e = on_exec(b, ev);
		break;
	case EV_EXEC_FAIL:
		e = on_exec_fail(b, ev);
		break;
	case EV_EXIT:
		e = on_exit_ev(b, ev);
		break;
	case EV_PROC_STATE:
		e = on_state(b, ev);
		break;
	case EV_DROPS:
		on_drops(b, ev);
		break;
	case EV_SAMPLE:
		e = on_sample(b, ev);
		break;
	case EV_HOST_SAMPLE:
		e = on_host_sample(b, ev);
		break;
	case EV_OOM_KILL:
		e = on_oom_kill(b, ev);
		break;
	case EV_SIGNAL:
		e = on_signal(b, ev);
		break;
	case EV_RELEASE:
		e = on_release(b, ev);
		break;
	case EV_CGROUP:
		e = on_cgroup(b, ev);
		break;
	case EV_ATTACH:
		e = on_attach(b, ev);
		break;
	default:
		m->unknown_events++;
	}
	return e;
}
