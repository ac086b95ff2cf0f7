/*
 * model.c - rebuild processes from a trace's events (model.h). Events come
 * from the reader in timestamp order; every field is read by name through
 * the file's own schema, so traces from newer recorders still read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "model.h"

/* A process plus what only the builder needs. */
struct pint {
	struct tza_proc p;
	struct pint *hnext;	 /* live-by-pid hash chain */
	struct pint *dnext;	 /* dead-by-pid hash chain (last exited instance) */
	struct tza_proc *last_child;
	uint64_t seq;		 /* creation order: stable tie-break */
	int live;
	uint32_t xring, fring;	 /* next tail slot to overwrite once capped */
	uint64_t last_ns;	 /* its last event (fork, exec, sample, state, ...) */
};

static void seen(struct pint *q, uint64_t ts)
{
	if (ts > q->last_ns)
		q->last_ns = ts;
}

/* Fields of the types the model reads, looked up by name once. */
struct fields {
	const struct tz_field *f_parent, *f_child, *f_cstart, *f_cns;
	const struct tz_field *x_start, *x_cg, *x_tgid, *x_ppid, *x_nspid, *x_uid, *x_euid,
		*x_gid, *x_egid, *x_argc, *x_argvsz, *x_flags, *x_comm, *x_fname, *x_exe,
		*x_script, *x_argv;
	const struct tz_field *xf_tgid, *xf_err, *xf_fname;
	const struct tz_field *e_start, *e_ut, *e_st, *e_rss, *e_rchar, *e_wchar, *e_syscr,
		*e_syscw, *e_rb, *e_wb, *e_cwb, *e_nvcsw, *e_nivcsw, *e_minflt, *e_majflt, *e_tgid,
		*e_ppid, *e_status, *e_code, *e_sig, *e_threads, *e_flags, *e_comm;
	const struct tz_field *s_start, *s_tgid, *s_ppid, *s_uid, *s_euid, *s_nspid, *s_argc,
		*s_argvsz, *s_flags, *s_comm, *s_exe, *s_argv;
	const struct tz_field *d[EV_DROP_SLOTS];
	const struct tz_field *sm_start, *sm_tgid, *sm_ut, *sm_st, *sm_anon, *sm_file, *sm_shmem,
		*sm_rb, *sm_wb, *sm_threads, *sm_rchar, *sm_wchar;
	const struct tz_field *h_user, *h_nice, *h_sys, *h_idle, *h_iow, *h_irq, *h_soft,
		*h_steal, *h_total, *h_avail, *h_used, *h_rd, *h_wr, *h_rx, *h_tx, *h_ncpus, *h_load1;
	const struct tz_field *o_start, *o_tgid, *o_anon, *o_file, *o_shmem, *o_memcg;
	const struct tz_field *g_tstart, *g_ttgid, *g_sstart, *g_stgid, *g_sig, *g_flags, *g_comm;
};

struct builder {
	struct tza_model *m;
	struct pint **hash;
	size_t hsize, hcount;
	struct pint **dead; /* dsize buckets: the last exited instance per pid */
	size_t dsize, dcount; /* buckets (power of 2), distinct pids held */
	size_t cap;
	uint64_t seq;
	struct fields f;
	uint32_t flags; /* TZA_MB_* */
	uint32_t host_cap;
};

static const char *const drop_names[EV_DROP_SLOTS] = {
	"fork", "exec", "exec_fail", "exit", "map_full", "argv_fault", "kevent", NULL,
};

static void lookup_fields(tz_reader *r, struct fields *f)
{
	const struct tz_event_type *t;
	memset(f, 0, sizeof(*f));
#define FLD(var, name) var = t ? tz_type_field(t, name) : NULL
	t = tz_reader_type_by_id(r, EV_FORK);
	FLD(f->f_parent, "parent_tgid");
	FLD(f->f_child, "child_tgid");
	FLD(f->f_cstart, "child_start_ns");
	FLD(f->f_cns, "child_ns_pid");
	t = tz_reader_type_by_id(r, EV_EXEC);
	FLD(f->x_start, "start_ns");
	FLD(f->x_cg, "cgroup_id");
	FLD(f->x_tgid, "tgid");
	FLD(f->x_ppid, "ppid");
	FLD(f->x_nspid, "ns_pid");
	FLD(f->x_uid, "uid");
	FLD(f->x_euid, "euid");
	FLD(f->x_gid, "gid");
	FLD(f->x_egid, "egid");
	FLD(f->x_argc, "argc");
	FLD(f->x_argvsz, "argv_size");
	FLD(f->x_flags, "flags");
	FLD(f->x_comm, "comm");
	FLD(f->x_fname, "filename");
	FLD(f->x_exe, "exe");
	FLD(f->x_script, "script");
	FLD(f->x_argv, "argv");
	t = tz_reader_type_by_id(r, EV_EXEC_FAIL);
	FLD(f->xf_tgid, "tgid");
	FLD(f->xf_err, "err");
	FLD(f->xf_fname, "filename");
	t = tz_reader_type_by_id(r, EV_EXIT);
	FLD(f->e_start, "start_ns");
	FLD(f->e_ut, "utime_ns");
	FLD(f->e_st, "stime_ns");
	FLD(f->e_rss, "maxrss_kib");
	FLD(f->e_rchar, "rchar");
	FLD(f->e_wchar, "wchar");
	FLD(f->e_syscr, "syscr");
	FLD(f->e_syscw, "syscw");
	FLD(f->e_rb, "read_bytes");
	FLD(f->e_wb, "write_bytes");
	FLD(f->e_cwb, "cancelled_write_bytes");
	FLD(f->e_nvcsw, "nvcsw");
	FLD(f->e_nivcsw, "nivcsw");
	FLD(f->e_minflt, "min_flt");
	FLD(f->e_majflt, "maj_flt");
	FLD(f->e_tgid, "tgid");
	FLD(f->e_ppid, "ppid");
	FLD(f->e_status, "status");
	FLD(f->e_code, "exit_code");
	FLD(f->e_sig, "signal");
	FLD(f->e_threads, "threads");
	FLD(f->e_flags, "flags");
	FLD(f->e_comm, "comm");
	t = tz_reader_type_by_id(r, EV_PROC_STATE);
	FLD(f->s_start, "start_ns");
	FLD(f->s_tgid, "tgid");
	FLD(f->s_ppid, "ppid");
	FLD(f->s_uid, "uid");
	FLD(f->s_euid, "euid");
	FLD(f->s_nspid, "ns_pid");
	FLD(f->s_argc, "argc");
	FLD(f->s_argvsz, "argv_size");
	FLD(f->s_flags, "flags");
	FLD(f->s_comm, "comm");
	FLD(f->s_exe, "exe");
	FLD(f->s_argv, "argv");
	t = tz_reader_type_by_id(r, EV_SAMPLE);
	FLD(f->sm_start, "start_ns");
	FLD(f->sm_tgid, "tgid");
	FLD(f->sm_ut, "utime_ns");
	FLD(f->sm_st, "stime_ns");
	FLD(f->sm_anon, "rss_anon_kib");
	FLD(f->sm_file, "rss_file_kib");
	FLD(f->sm_shmem, "rss_shmem_kib");
	FLD(f->sm_rb, "read_bytes");
	FLD(f->sm_wb, "write_bytes");
	FLD(f->sm_threads, "threads");
	FLD(f->sm_rchar, "rchar");
	FLD(f->sm_wchar, "wchar");
	t = tz_reader_type_by_id(r, EV_HOST_SAMPLE);
	FLD(f->h_user, "cpu_user_ns");
	FLD(f->h_nice, "cpu_nice_ns");
	FLD(f->h_sys, "cpu_system_ns");
	FLD(f->h_idle, "cpu_idle_ns");
	FLD(f->h_iow, "cpu_iowait_ns");
	FLD(f->h_irq, "cpu_irq_ns");
	FLD(f->h_soft, "cpu_softirq_ns");
	FLD(f->h_steal, "cpu_steal_ns");
	FLD(f->h_total, "mem_total_kib");
	FLD(f->h_avail, "mem_available_kib");
	FLD(f->h_used, "mem_used_kib");
	FLD(f->h_rd, "disk_read_bytes");
	FLD(f->h_wr, "disk_write_bytes");
	FLD(f->h_rx, "net_rx_bytes");
	FLD(f->h_tx, "net_tx_bytes");
	FLD(f->h_ncpus, "ncpus");
	FLD(f->h_load1, "load1_milli");
	t = tz_reader_type_by_id(r, EV_OOM_KILL);
	FLD(f->o_start, "start_ns");
	FLD(f->o_tgid, "tgid");
	FLD(f->o_anon, "rss_anon_kib");
	FLD(f->o_file, "rss_file_kib");
	FLD(f->o_shmem, "rss_shmem_kib");
	FLD(f->o_memcg, "memcg_id");
	t = tz_reader_type_by_id(r, EV_SIGNAL);
	FLD(f->g_tstart, "target_start_ns");
	FLD(f->g_ttgid, "target_tgid");
	FLD(f->g_sstart, "sender_start_ns");
	FLD(f->g_stgid, "sender_tgid");
	FLD(f->g_sig, "sig");
	FLD(f->g_flags, "flags");
	FLD(f->g_comm, "sender_comm");
	t = tz_reader_type_by_id(r, EV_DROPS);
	for (int i = 0; i < EV_DROP_SLOTS; i++)
		f->d[i] = t && drop_names[i] ? tz_type_field(t, drop_names[i]) : NULL;
#undef FLD
}

static inline uint32_t u32(const struct tz_event *ev, const struct tz_field *f)
{
	return (uint32_t)tz_event_u64(ev, f);
}

static void get_comm(const struct tz_event *ev, const struct tz_field *f, char out[16])
{
	uint32_t n = 0;
	const uint8_t *b = f ? tz_event_bytes(ev, f, &n) : NULL;
	memset(out, 0, 16);
	if (b && n)
		memcpy(out, b, n < 15 ? n : 15);
}

static char *blob_str(const struct tz_event *ev, const struct tz_field *f)
{
	struct tz_blob b = f ? tz_event_blob(ev, f) : (struct tz_blob){NULL, 0};
	if (!b.data)
		return NULL;
	return strndup(b.data, b.len);
}

/* Double the dead table when it holds more pids than buckets (chains stay
 * short whatever the pid range); on allocation failure keep the old one,
 * which is still correct, only slower. */
static void dead_grow(struct builder *b)
{
	size_t ns = b->dsize * 2;
	struct pint **nd = calloc(ns, sizeof(*nd));
	if (!nd)
		return;
	for (size_t i = 0; i < b->dsize; i++)
		for (struct pint *x = b->dead[i], *nx; x; x = nx) {
			nx = x->dnext;
			size_t s = (x->p.pid * 2654435761u) & (ns - 1);
			x->dnext = nd[s];
			nd[s] = x;
		}
	free(b->dead);
	b->dead = nd;
	b->dsize = ns;
}

/* Remember q as the last exited instance of its pid. */
static void dead_put(struct builder *b, struct pint *q)
{
	struct pint **pp = &b->dead[(q->p.pid * 2654435761u) & (b->dsize - 1)];
	int replaced = 0;
	for (struct pint **x = pp; *x; x = &(*x)->dnext)
		if ((*x)->p.pid == q->p.pid) {
			*x = (*x)->dnext;
			replaced = 1;
			break;
		}
	q->dnext = *pp;
	*pp = q;
	if (!replaced && ++b->dcount > b->dsize)
		dead_grow(b);
}

/* Did the instance (pid, start) already exit? */
static int dead_has(struct builder *b, uint32_t pid, uint64_t start)
{
	for (struct pint *x = b->dead[(pid * 2654435761u) & (b->dsize - 1)]; x; x = x->dnext)
		if (x->p.pid == pid)
			return x->p.start_ns == start;
	return 0;
}

static size_t hslot(const struct builder *b, uint32_t pid)
{
	return (pid * 2654435761u) & (b->hsize - 1);
}

static struct pint *live_get(struct builder *b, uint32_t pid)
{
	for (struct pint *q = b->hash[hslot(b, pid)]; q; q = q->hnext)
		if (q->p.pid == pid)
			return q;
	return NULL;
}

static void live_del(struct builder *b, struct pint *q)
{
	struct pint **pp = &b->hash[hslot(b, q->p.pid)];
	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == q) {
			*pp = q->hnext;
			b->hcount--;
			q->live = 0;
			q->hnext = NULL;
			return;
		}
}

static int live_put(struct builder *b, struct pint *q)
{
	if (b->hcount + 1 > b->hsize) {
		size_t ns = b->hsize * 2;
		struct pint **nh = calloc(ns, sizeof(*nh));
		if (!nh)
			return -1;
		for (size_t i = 0; i < b->hsize; i++)
			for (struct pint *x = b->hash[i], *nx; x; x = nx) {
				nx = x->hnext;
				size_t s = (x->p.pid * 2654435761u) & (ns - 1);
				x->hnext = nh[s];
				nh[s] = x;
			}
		free(b->hash);
		b->hash = nh;
		b->hsize = ns;
	}
	size_t s = hslot(b, q->p.pid);
	q->hnext = b->hash[s];
	b->hash[s] = q;
	b->hcount++;
	q->live = 1;
	return 0;
}

/* A new process instance for pid; an older live instance of pid is ended. */
static struct pint *new_proc(struct builder *b, uint32_t pid, uint64_t start_ns, uint32_t flags)
{
	struct tza_model *m = b->m;
	struct pint *old = live_get(b, pid);
	if (old) {
		old->p.flags |= TZA_P_NO_EXIT;
		live_del(b, old);
	}
	if (m->nprocs == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct tza_proc **np = realloc(m->procs, nc * sizeof(*np));
		if (!np)
			return NULL;
		m->procs = np;
		b->cap = nc;
	}
	struct pint *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->p.pid = pid;
	q->p.start_ns = start_ns;
	q->p.flags = flags;
	q->p.exit_code = -1;
	q->seq = b->seq++;
	snprintf(q->p.id, sizeof(q->p.id), "%u.%llu", pid, (unsigned long long)start_ns);
	if (live_put(b, q) < 0) {
		free(q);
		return NULL;
	}
	m->procs[m->nprocs++] = &q->p;
	return q;
}

/* The live instance of pid whose identity is start_ns (0: any), or a new one. */
static struct pint *find_or_new(struct builder *b, uint32_t pid, uint64_t start_ns, uint64_t ts,
				uint32_t flags)
{
	struct pint *q = live_get(b, pid);
	if (q && (!start_ns || !q->p.start_ns || q->p.start_ns == start_ns)) {
		if (!q->p.start_ns && start_ns) {
			q->p.start_ns = start_ns;
			snprintf(q->p.id, sizeof(q->p.id), "%u.%llu", pid,
				 (unsigned long long)start_ns);
		}
		return q;
	}
	return new_proc(b, pid, start_ns ? start_ns : ts, flags);
}

static void exec_free(struct tza_exec *e)
{
	free(e->exe);
	free(e->filename);
	free(e->script);
	free(e->argv);
}

/*
 * Slot for the next of n stored entries (size bytes each) in *arr: appended
 * while fewer than TZA_KEEP_HEAD + TZA_KEEP_TAIL are stored, else the oldest
 * of the tail (a ring at [TZA_KEEP_HEAD, +TZA_KEEP_TAIL) advanced by *ring;
 * *omitted counts it; the caller frees what the slot held). NULL: no memory.
 */
static void *keep_slot(void **arr, uint32_t *n, size_t size, uint32_t *ring, uint64_t *omitted,
		       int *reused)
{
	*reused = 0;
	if (*n == TZA_KEEP_HEAD + TZA_KEEP_TAIL) {
		char *slot = (char *)*arr + (TZA_KEEP_HEAD + *ring) * size;
		*ring = (*ring + 1) % TZA_KEEP_TAIL;
		(*omitted)++;
		*reused = 1;
		return slot;
	}
	if ((*n & (*n - 1)) == 0) { /* grow at powers of two */
		uint32_t nc = *n ? *n * 2 : 1;
		void *na = realloc(*arr, nc * size);
		if (!na)
			return NULL;
		*arr = na;
	}
	return (char *)*arr + (*n)++ * size;
}

/* Index of the newest of n stored entries while building (ring at ring) */
static uint32_t last_slot(uint32_t n, uint32_t ring)
{
	if (n < TZA_KEEP_HEAD + TZA_KEEP_TAIL)
		return n - 1;
	return TZA_KEEP_HEAD + (ring + TZA_KEEP_TAIL - 1) % TZA_KEEP_TAIL;
}

/* Put the tail ring back in time order (oldest first) */
static void keep_unring(void *arr, uint32_t n, size_t size, uint32_t *ring)
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

static int add_image(struct pint *q, struct tza_exec *e)
{
	struct tza_proc *p = &q->p;
	int reused;
	struct tza_exec *slot = keep_slot((void **)&p->execs, &p->nexecs, sizeof(*slot), &q->xring,
					  &p->nexecs_omitted, &reused);
	if (!slot)
		return -1;
	if (reused)
		exec_free(slot);
	*slot = *e;
	return 0;
}

static int on_fork(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t child = u32(ev, f->f_child), parent = u32(ev, f->f_parent);
	uint64_t start = tz_event_u64(ev, f->f_cstart);
	if (!child)
		return 0;
	if (!start)
		start = ev->ts_ns;
	struct pint *q = live_get(b, child);
	if (q && q->p.start_ns == start) {
		/* already known from a snapshot/state: the same process */
		q->p.flags &= ~(uint32_t)TZA_P_NO_FORK;
	} else {
		q = new_proc(b, child, start, 0);
		if (!q)
			return -1;
	}
	q->p.ppid = parent;
	q->p.ns_pid = u32(ev, f->f_cns);
	seen(q, ev->ts_ns);
	struct pint *pp = parent != child ? live_get(b, parent) : NULL;
	if (pp)
		seen(pp, ev->ts_ns);
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
	struct pint *q = find_or_new(b, tgid, tz_event_u64(ev, f->x_start), ev->ts_ns,
				     TZA_P_NO_FORK);
	if (!q)
		return -1;
	seen(q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	struct tza_exec e;
	memset(&e, 0, sizeof(e));
	e.ts_ns = ev->ts_ns;
	e.exe = blob_str(ev, f->x_exe);
	e.filename = blob_str(ev, f->x_fname);
	e.script = blob_str(ev, f->x_script);
	if (e.script && !*e.script) {
		free(e.script);
		e.script = NULL;
	}
	struct tz_blob av = f->x_argv ? tz_event_blob(ev, f->x_argv) : (struct tz_blob){NULL, 0};
	if (av.len) {
		e.argv = malloc(av.len);
		if (e.argv)
			memcpy(e.argv, av.data, av.len);
		e.argv_len = e.argv ? av.len : 0;
	}
	e.argc = u32(ev, f->x_argc);
	e.argv_size = u32(ev, f->x_argvsz);
	e.flags = u32(ev, f->x_flags) & ~TZA_EXEC_FROM_STATE;
	e.uid = u32(ev, f->x_uid);
	e.euid = u32(ev, f->x_euid);
	e.gid = u32(ev, f->x_gid);
	e.egid = u32(ev, f->x_egid);
	e.cgroup_id = tz_event_u64(ev, f->x_cg);
	get_comm(ev, f->x_comm, e.comm);
	if (add_image(q, &e) < 0) {
		exec_free(&e);
		return -1;
	}
	b->m->nexecs++;
	if (!p->ppid)
		p->ppid = u32(ev, f->x_ppid);
	if (f->x_nspid)
		p->ns_pid = u32(ev, f->x_nspid);
	p->uid = e.uid;
	p->euid = e.euid;
	p->cgroup_id = e.cgroup_id;
	memcpy(p->comm, e.comm, sizeof(p->comm));
	if (e.flags & EV_EXEC_ARGV_TRUNCATED)
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
	struct pint *q = find_or_new(b, tgid, 0, ev->ts_ns, TZA_P_NO_FORK);
	if (!q)
		return -1;
	seen(q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	int reused;
	struct tza_failed_exec *nf = keep_slot((void **)&p->failed, &p->nfailed, sizeof(*nf),
					       &q->fring, &p->nfailed_omitted, &reused);
	if (!nf)
		return -1;
	if (reused)
		free(nf->filename);
	nf->ts_ns = ev->ts_ns;
	nf->filename = blob_str(ev, f->xf_fname);
	nf->err = (int)tz_event_i64(ev, f->xf_err);
	b->m->nfailed_execs++;
	return 0;
}

static int on_exit_ev(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->e_tgid);
	if (!tgid)
		return 0;
	struct pint *q = find_or_new(b, tgid, tz_event_u64(ev, f->e_start), ev->ts_ns,
				     TZA_P_NO_FORK);
	if (!q)
		return -1;
	struct tza_proc *p = &q->p;
	p->end_ns = ev->ts_ns < p->start_ns ? p->start_ns : ev->ts_ns;
	p->flags &= ~(uint32_t)TZA_P_NO_EXIT;
	p->utime_ns = tz_event_u64(ev, f->e_ut);
	p->stime_ns = tz_event_u64(ev, f->e_st);
	p->maxrss_kib = tz_event_u64(ev, f->e_rss);
	p->rchar = tz_event_u64(ev, f->e_rchar);
	p->wchar = tz_event_u64(ev, f->e_wchar);
	p->syscr = tz_event_u64(ev, f->e_syscr);
	p->syscw = tz_event_u64(ev, f->e_syscw);
	p->read_bytes = tz_event_u64(ev, f->e_rb);
	p->write_bytes = tz_event_u64(ev, f->e_wb);
	p->cancelled_write_bytes = tz_event_u64(ev, f->e_cwb);
	p->nvcsw = tz_event_u64(ev, f->e_nvcsw);
	p->nivcsw = tz_event_u64(ev, f->e_nivcsw);
	p->min_flt = tz_event_u64(ev, f->e_minflt);
	p->maj_flt = tz_event_u64(ev, f->e_majflt);
	p->status = u32(ev, f->e_status);
	uint32_t fl = u32(ev, f->e_flags);
	if (f->e_code) {
		p->exit_code = (int32_t)tz_event_i64(ev, f->e_code);
		p->signal = (int32_t)tz_event_i64(ev, f->e_sig);
	} else { /* decode the raw wait status */
		p->signal = p->status & 0x7f;
		p->exit_code = p->signal ? -1 : (int32_t)((p->status >> 8) & 0xff);
	}
	p->core_dumped = (fl & EV_EXIT_CORE_DUMPED) || (!f->e_flags && (p->status & 0x80));
	if (fl & EV_EXIT_EXE_DELETED) {
		p->flags |= TZA_P_EXE_DELETED;
		if (p->nexecs) /* the image it exits with: the last one stored */
			p->execs[last_slot(p->nexecs, q->xring)].flags |= EV_EXEC_EXE_DELETED;
	}
	p->threads = u32(ev, f->e_threads);
	get_comm(ev, f->e_comm, p->comm);
	p->exit_ppid = u32(ev, f->e_ppid);
	if (!p->ppid)
		p->ppid = p->exit_ppid;
	if (p->exit_ppid && p->ppid && p->exit_ppid != p->ppid)
		p->flags |= TZA_P_REPARENTED;
	if (p->killer_signal && p->killer_signal != p->signal)
		p->killer_signal = 0; /* the signal it got is not what ended it */
	live_del(b, q);
	dead_put(b, q);
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
	struct tza_proc *p = live_proc(b, u32(ev, f->sm_tgid), tz_event_u64(ev, f->sm_start));
	b->m->nsamples++;
	if (!p)
		return 0;
	uint64_t rss = tz_event_u64(ev, f->sm_anon) + tz_event_u64(ev, f->sm_file) +
		       tz_event_u64(ev, f->sm_shmem);
	seen((struct pint *)p, ev->ts_ns);
	p->nsamples_seen++;
	if (rss > p->peak_sample_rss_kib)
		p->peak_sample_rss_kib = rss;
	if (!(b->flags & TZA_MB_SAMPLES))
		return 0;
	if ((p->nsamples & (p->nsamples - 1)) == 0) { /* grow at powers of two */
		uint32_t nc = p->nsamples ? p->nsamples * 2 : 4;
		struct tza_sample *ns = realloc(p->samples, nc * sizeof(*ns));
		if (!ns)
			return -1;
		p->samples = ns;
	}
	struct tza_sample *s = &p->samples[p->nsamples++];
	s->ts_ns = ev->ts_ns;
	s->utime_ns = tz_event_u64(ev, f->sm_ut);
	s->stime_ns = tz_event_u64(ev, f->sm_st);
	s->read_bytes = tz_event_u64(ev, f->sm_rb);
	s->write_bytes = tz_event_u64(ev, f->sm_wb);
	s->rchar = tz_event_u64(ev, f->sm_rchar);
	s->wchar = tz_event_u64(ev, f->sm_wchar);
	s->rss_kib = rss > UINT32_MAX ? UINT32_MAX : (uint32_t)rss;
	s->threads = u32(ev, f->sm_threads);
	return 0;
}

static int on_host_sample(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_model *m = b->m;
	uint64_t used = tz_event_u64(ev, f->h_used);
	m->nhost_samples++;
	m->host_mem_total_kib = tz_event_u64(ev, f->h_total);
	if (used > m->host_peak_mem_used_kib) {
		m->host_peak_mem_used_kib = used;
		m->host_peak_mem_ns = ev->ts_ns;
	}
	if (!(b->flags & TZA_MB_SAMPLES))
		return 0;
	if (m->nhost == b->host_cap) {
		uint32_t nc = b->host_cap ? b->host_cap * 2 : 64;
		struct tza_host_sample *nh = realloc(m->host, nc * sizeof(*nh));
		if (!nh)
			return -1;
		m->host = nh;
		b->host_cap = nc;
	}
	struct tza_host_sample *h = &m->host[m->nhost++];
	uint64_t idle = tz_event_u64(ev, f->h_idle) + tz_event_u64(ev, f->h_iow);
	uint64_t busy = tz_event_u64(ev, f->h_user) + tz_event_u64(ev, f->h_nice) +
			tz_event_u64(ev, f->h_sys) + tz_event_u64(ev, f->h_irq) +
			tz_event_u64(ev, f->h_soft) + tz_event_u64(ev, f->h_steal);
	h->ts_ns = ev->ts_ns;
	h->busy_ns = busy;
	h->total_ns = busy + idle;
	h->mem_used_kib = used;
	h->mem_total_kib = m->host_mem_total_kib;
	h->mem_available_kib = tz_event_u64(ev, f->h_avail);
	h->disk_read_bytes = tz_event_u64(ev, f->h_rd);
	h->disk_write_bytes = tz_event_u64(ev, f->h_wr);
	h->net_rx_bytes = tz_event_u64(ev, f->h_rx);
	h->net_tx_bytes = tz_event_u64(ev, f->h_tx);
	h->ncpus = u32(ev, f->h_ncpus);
	h->load1_milli = u32(ev, f->h_load1);
	return 0;
}

static void on_oom_kill(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_proc *p = live_proc(b, u32(ev, f->o_tgid), tz_event_u64(ev, f->o_start));
	if (!p)
		return;
	if (!p->oom_killed)
		b->m->noom_kills++;
	p->oom_killed = 1;
	p->oom_ns = ev->ts_ns;
	p->oom_rss_kib = tz_event_u64(ev, f->o_anon) + tz_event_u64(ev, f->o_file) +
			 tz_event_u64(ev, f->o_shmem);
	p->oom_memcg_id = tz_event_u64(ev, f->o_memcg);
}

/* A fatal signal sent to a live process: remembered as its killer; the
 * exit keeps it only when the exit signal is this one. */
static void on_signal(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct tza_proc *p = live_proc(b, u32(ev, f->g_ttgid), tz_event_u64(ev, f->g_tstart));
	int sig = (int)tz_event_i64(ev, f->g_sig);
	if (!p || sig <= 0)
		return;
	/* the first fatal signal wins: later ones hit a process already dying */
	if (p->killer_signal == sig)
		return;
	p->killer_signal = sig;
	p->killer_pid = u32(ev, f->g_stgid);
	p->killer_start_ns = tz_event_u64(ev, f->g_sstart);
	p->killer_kernel = (u32(ev, f->g_flags) & EV_SIGNAL_KERNEL) != 0;
	get_comm(ev, f->g_comm, p->killer_comm);
	p->kill_ns = ev->ts_ns;
}

static int on_state(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->s_tgid);
	uint64_t start = tz_event_u64(ev, f->s_start);
	uint32_t sfl = u32(ev, f->s_flags);
	if (!tgid)
		return 0;
	struct pint *q = live_get(b, tgid);
	if (!q && start && dead_has(b, tgid, start))
		return 0; /* a state block written before the writer saw the exit */
	if (!q || (start && q->p.start_ns != start)) {
		uint32_t pf = TZA_P_FROM_STATE;
		if (sfl & EV_STATE_PRE_EXISTING)
			pf = TZA_P_PRE_EXISTING;
		q = new_proc(b, tgid, start ? start : ev->ts_ns, pf);
		if (!q)
			return -1;
	}
	struct tza_proc *p = &q->p;
	seen(q, ev->ts_ns);
	if (sfl & EV_STATE_PRE_EXISTING)
		p->flags |= TZA_P_PRE_EXISTING;
	if (sfl & EV_STATE_KTHREAD)
		p->flags |= TZA_P_KTHREAD;
	if (!p->ppid)
		p->ppid = u32(ev, f->s_ppid);
	if (!p->ns_pid)
		p->ns_pid = u32(ev, f->s_nspid);
	if (!p->comm[0])
		get_comm(ev, f->s_comm, p->comm);
	/* a process forked in the trace runs its parent's image until it execs */
	if (p->nexecs || !(p->flags & (TZA_P_FROM_STATE | TZA_P_PRE_EXISTING)))
		return 0;
	p->uid = u32(ev, f->s_uid);
	p->euid = u32(ev, f->s_euid);
	struct tza_exec e;
	memset(&e, 0, sizeof(e));
	e.ts_ns = ev->ts_ns;
	e.exe = blob_str(ev, f->s_exe);
	struct tz_blob av = f->s_argv ? tz_event_blob(ev, f->s_argv) : (struct tz_blob){NULL, 0};
	if (!e.exe && !av.len)
		return 0;
	if (av.len) {
		e.argv = malloc(av.len);
		if (e.argv)
			memcpy(e.argv, av.data, av.len);
		e.argv_len = e.argv ? av.len : 0;
	}
	e.argc = u32(ev, f->s_argc);
	e.argv_size = u32(ev, f->s_argvsz);
	e.flags = (sfl & EV_EXEC_ARGV_TRUNCATED) | TZA_EXEC_FROM_STATE;
	e.uid = p->uid;
	e.euid = p->euid;
	memcpy(e.comm, p->comm, sizeof(e.comm));
	if (add_image(q, &e) < 0) {
		exec_free(&e);
		return -1;
	}
	if (sfl & EV_EXEC_ARGV_TRUNCATED)
		p->flags |= TZA_P_ARGV_TRUNCATED;
	return 0;
}

static void on_drops(struct builder *b, const struct tz_event *ev)
{
	for (int i = 0; i < EV_DROP_SLOTS; i++)
		if (b->f.d[i])
			b->m->drops[i] = tz_event_u64(ev, b->f.d[i]);
}

static int cmp_start(const void *a, const void *b)
{
	const struct pint *x = *(struct pint *const *)a, *y = *(struct pint *const *)b;
	if (x->p.start_ns != y->p.start_ns)
		return x->p.start_ns < y->p.start_ns ? -1 : 1;
	if (x->p.pid != y->p.pid)
		return x->p.pid < y->p.pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct tza_proc *x = *(struct tza_proc *const *)a, *y = *(struct tza_proc *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The process with pid alive at time t (started at or before t), or NULL. */
static struct tza_proc *alive_at(struct tza_proc **bypid, uint32_t n, uint32_t pid, uint64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* first entry with (pid, start) > (pid, t) */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct tza_proc *x = bypid[mid];
		if (x->pid < pid || (x->pid == pid && x->start_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || bypid[lo - 1]->pid != pid)
		return NULL;
	struct tza_proc *c = bypid[lo - 1];
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
 * the depth of the tree. Parent links are acyclic (finish refuses cycles;
 * a fork links only to a parent started no later), and the walk is bounded
 * by the process count anyway.
 */
static int set_start_images(struct tza_model *m)
{
	uint32_t n = m->nprocs;
	uint8_t *done = calloc(n ? n : 1, 1);
	struct tza_proc **stk = malloc((n ? n : 1) * sizeof(*stk));
	if (!done || !stk) {
		free(done);
		free(stk);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t sp = 0;
		for (struct tza_proc *p = m->procs[i]; p && !done[p->index] && sp < n; p = p->parent) {
			done[p->index] = 1; /* on the stack: a cycle ends the walk */
			stk[sp++] = p;
		}
		while (sp) {
			struct tza_proc *p = stk[--sp], *pp = p->parent;
			const struct tza_exec *e = NULL;
			if (pp) {
				e = image_at(pp, p->start_ns);
				if (!e)
					e = pp->start_image;
			}
			p->start_image = e;
		}
	}
	free(done);
	free(stk);
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

static int finish(struct builder *b, tz_reader *r)
{
	struct tza_model *m = b->m;
	const struct tz_info *in = tz_reader_info(r);
	uint32_t n = m->nprocs;

	m->dropped_chunks = in->dropped;
	m->corrupt_blocks = in->corrupt_blocks;
	/* the recording's start: the recorder's (taken once its programs were
	 * attached), else the first event */
	const char *sb = tz_reader_meta_get(r, "start_boottime_ns");
	uint64_t rec_start = sb ? strtoull(sb, NULL, 10) : 0;
	if (!rec_start)
		rec_start = m->t0_ns;
	/* the recorder lists the processes alive at its stop (a slice ends
	 * earlier: its processes without an exit may still have been running) */
	const char *alive = tz_reader_meta_get(r, "alive_at_stop");
	uint32_t *al = NULL;
	size_t nal = 0;
	if (tz_reader_meta_get(r, "slice_of"))
		alive = NULL;
	if (alive && parse_pids(alive, &al, &nal) < 0)
		return TZ_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct pint *q = (struct pint *)m->procs[i];
		/* seen without its fork but started before the recording: alive at
		 * the start, it exited (or exec'd) before the snapshot saw it */
		if ((q->p.flags & TZA_P_NO_FORK) && q->p.start_ns < rec_start) {
			q->p.flags &= ~(uint32_t)TZA_P_NO_FORK;
			q->p.flags |= TZA_P_PRE_EXISTING;
		}
		keep_unring(q->p.execs, q->p.nexecs, sizeof(*q->p.execs), &q->xring);
		keep_unring(q->p.failed, q->p.nfailed, sizeof(*q->p.failed), &q->fring);
		if (q->live)
			q->p.flags |= TZA_P_NO_EXIT;
		if (q->p.flags & TZA_P_NO_EXIT)
			q->p.end_ns = 0;
		if (alive && (q->p.flags & TZA_P_NO_EXIT) &&
		    !(q->live && bsearch(&q->p.pid, al, nal, sizeof(*al), cmp_u32))) {
			/* not running at the stop: its exit was lost */
			q->p.flags |= TZA_P_EXIT_LOST;
			q->p.end_ns = q->last_ns > q->p.start_ns ? q->last_ns : q->p.start_ns;
			m->exit_lost++;
		}
		if (!q->p.comm[0] && q->p.nexecs)
			memcpy(q->p.comm, q->p.execs[q->p.nexecs - 1].comm, sizeof(q->p.comm));
		if ((q->p.flags & TZA_P_NO_FORK) && !(q->p.flags & TZA_P_PRE_EXISTING))
			m->no_fork++;
		if ((q->p.flags & TZA_P_FROM_STATE) && !(q->p.flags & TZA_P_PRE_EXISTING))
			m->from_state++;
		/* a fork's start_boottime precedes its event by microseconds: the
		 * trace starts with the first process started in it */
		if (!(q->p.flags & (TZA_P_NO_FORK | TZA_P_PRE_EXISTING | TZA_P_FROM_STATE)) &&
		    q->p.start_ns < m->t0_ns && m->t0_ns - q->p.start_ns < 1000000000ULL)
			m->t0_ns = q->p.start_ns;
	}
	free(al);
	if (n) /* procs is NULL in an empty model: qsort/memcpy need a pointer */
		qsort(m->procs, n, sizeof(*m->procs), cmp_start);

	/* parents not known at fork time: the process with that pid alive then */
	struct tza_proc **bypid = malloc((n ? n : 1) * sizeof(*bypid));
	if (!bypid)
		return TZ_ERR_NOMEM;
	if (n)
		memcpy(bypid, m->procs, n * sizeof(*bypid));
	qsort(bypid, n, sizeof(*bypid), cmp_pid);
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		if (p->parent || !p->ppid || p->ppid == p->pid)
			continue;
		struct tza_proc *c = alive_at(bypid, n, p->ppid, p->start_ns);
		/* every link runs from an older or same-age parent: only a
		 * same-age one can close a cycle */
		if (c && c != p && (c->start_ns < p->start_ns || !is_ancestor(p, c, n)))
			p->parent = c;
	}
	free(bypid);

	for (uint32_t i = 0; i < n; i++)
		m->procs[i]->index = i;
	if (set_start_images(m) < 0)
		return TZ_ERR_NOMEM;
	uint32_t nroots = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		if (!p->parent) {
			nroots++;
			continue;
		}
		struct pint *pq = (struct pint *)p->parent;
		if (pq->last_child)
			pq->last_child->next_sibling = p;
		else
			p->parent->first_child = p;
		pq->last_child = p;
		p->parent->nchildren++;
	}
	m->roots = malloc((nroots ? nroots : 1) * sizeof(*m->roots));
	if (!m->roots)
		return TZ_ERR_NOMEM;
	uint32_t root_ppid = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		if (p->parent)
			continue;
		m->roots[m->nroots++] = p;
		if (!root_ppid && !(p->flags & (TZA_P_PRE_EXISTING | TZA_P_NO_FORK | TZA_P_KTHREAD |
						TZA_P_FROM_STATE)))
			root_ppid = p->ppid;
	}

	for (int i = 0; i < EV_DROP_SLOTS; i++)
		if (m->drops[i] && i != EV_DROP_ARGV_FAULT) /* argv faults keep the record */
			m->incomplete = 1;
	if (m->dropped_chunks || m->corrupt_blocks || m->no_fork || (in->ring && m->from_state) ||
	    m->exit_lost)
		m->incomplete = 1;
	for (uint32_t i = 0; i < m->nroots; i++) {
		struct tza_proc *p = m->roots[i];
		if (!p->ppid || (p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD)))
			continue;
		if ((p->flags & TZA_P_NO_FORK) || (m->incomplete && p->ppid != root_ppid)) {
			p->flags |= TZA_P_ORPHAN;
			m->orphans++;
		}
	}
	return 0;
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
	b.m = calloc(1, sizeof(*b.m));
	b.hsize = 1024;
	b.hash = calloc(b.hsize, sizeof(*b.hash));
	b.dsize = 4096;
	b.dead = calloc(b.dsize, sizeof(*b.dead));
	if (!b.m || !b.hash || !b.dead) {
		free(b.m);
		free(b.hash);
		free(b.dead);
		return TZ_ERR_NOMEM;
	}
	b.m->reader = r;
	lookup_fields(r, &b.f);
	rc = tz_reader_iter(r, from_ns, to_ns, TZ_IT_STATE);
	const struct tz_event *ev;
	while (rc >= 0 && (rc = tz_reader_next(r, &ev)) > 0) {
		struct tza_model *m = b.m;
		if (!m->nevents || ev->ts_ns < m->t0_ns)
			m->t0_ns = ev->ts_ns;
		if (ev->ts_ns > m->t1_ns)
			m->t1_ns = ev->ts_ns;
		m->nevents++;
		int e = 0;
		switch (ev->type ? ev->type_id : 0) {
		case EV_FORK:
			e = on_fork(&b, ev);
			break;
		case EV_EXEC:
			e = on_exec(&b, ev);
			break;
		case EV_EXEC_FAIL:
			e = on_exec_fail(&b, ev);
			break;
		case EV_EXIT:
			e = on_exit_ev(&b, ev);
			break;
		case EV_PROC_STATE:
			e = on_state(&b, ev);
			break;
		case EV_DROPS:
			on_drops(&b, ev);
			break;
		case EV_SAMPLE:
			e = on_sample(&b, ev);
			break;
		case EV_HOST_SAMPLE:
			e = on_host_sample(&b, ev);
			break;
		case EV_OOM_KILL:
			on_oom_kill(&b, ev);
			break;
		case EV_SIGNAL:
			on_signal(&b, ev);
			break;
		default:
			m->unknown_events++;
		}
		if (e < 0) {
			rc = TZ_ERR_NOMEM;
			break;
		}
	}
	if (rc >= 0)
		rc = finish(&b, r);
	free(b.hash);
	free(b.dead);
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
		for (uint32_t k = 0; k < p->nexecs; k++)
			exec_free(&p->execs[k]);
		free(p->execs);
		for (uint32_t k = 0; k < p->nfailed; k++)
			free(p->failed[k].filename);
		free(p->failed);
		free(p->tool);
		free(p->command);
		free(p->samples);
		free((struct pint *)p);
	}
	free(m->procs);
	free(m->roots);
	free(m->host);
	free(m);
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
	for (; lo < m->nprocs && m->procs[lo]->start_ns == start && m->procs[lo]->pid == pid; lo++)
		if (!strcmp(m->procs[lo]->id, id))
			return m->procs[lo];
	return NULL;
}

const struct tza_exec *tza_proc_image(const struct tza_proc *p)
{
	return p->nexecs ? &p->execs[p->nexecs - 1] : NULL;
}

const struct tza_exec *tza_proc_image_inherited(const struct tza_proc *p)
{
	if (p->nexecs)
		return &p->execs[p->nexecs - 1];
	return p->start_image;
}
