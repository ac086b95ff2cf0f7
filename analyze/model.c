/*
 * model.c - rebuild processes from a trace's events (model.h). Events come
 * from the reader in timestamp order; every field is read by name through
 * the file's own schema, so traces from newer recorders still read.
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "arena.h"
#include "dropslot.h"
#include "evq.h"
#include "model.h"
#include "progress.h"

/* A process plus what only the builder needs; allocated from the arena.
 * Until finish() sorts the processes, p.index is the creation order (the
 * position in the build's procs): the sort's tie-break. */
struct pint {
	struct tza_proc p;
	uint64_t last_ns; /* its last event (fork, exec, sample, state, ...) */
	uint8_t live;	  /* the live instance of its pid */
	uint8_t xring, fring; /* next tail slot to overwrite once capped */
	uint8_t start_guess;  /* made by exec_fail: start_ns is that event's time,
				 until an exec or exit gives the real one ([E15]) */
};

/* Processes without samples, OOM kill or killer share this one */
static const struct tza_proc_res res_none;

/* The model plus its memory: procs, exec records and strings live in arena. */
struct mint {
	struct tza_model m;
	struct tza_arena arena;
	struct tza_arena strs; /* strings interned by the reading thread (evq.h) */
	struct tza_cgroup *cg;	/* EV_CGROUP entries: arrival order while building,
				   then sorted by (hier, id), first of equal kept */
	uint32_t ncg, cgcap;
	struct tza_attachment *att; /* EV_ATTACH entries in order */
	uint32_t natt, attcap;
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
		*x_ut, *x_st,
		*x_script, *x_argv, *x_cwd, *x_env, *x_memcg;
	const struct tz_field *c_id, *c_hier, *c_flags, *c_mem, *c_quota, *c_period, *c_path;
	const struct tz_field *a_mtime, *a_size, *a_flags, *a_name, *a_data;
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
	const struct tz_field *o_start, *o_tgid, *o_anon, *o_file, *o_shmem, *o_memcg, *o_trig;
	const struct tz_field *g_tstart, *g_ttgid, *g_sstart, *g_stgid, *g_sig, *g_flags, *g_comm,
		*g_code;
	const struct tz_field *r_start, *r_tgid, *r_ut, *r_st, *r_nvcsw, *r_nivcsw, *r_minflt,
		*r_majflt;
	int e_native; /* the exit type's fields are struct ev_exit's, at its offsets */
};

/* Linux's PID_MAX_LIMIT: pids below it index an array, others (corrupt or
 * foreign traces) a hash table */
#define PID_DIRECT (1u << 22)

/* pid -> its newest instance (live or exited), open addressing */
struct pslot {
	uint32_t pid;
	uint32_t idx1; /* 1 + index in the build's procs, | PID_LIVE; 0: empty slot */
};

/* In a pid's cell (direct[] or pslot.idx1) beside 1 + the index: its newest
 * instance is alive (pint.live), so the liveness of a pid is known without
 * touching the instance (cold in memory when the pid is being reused) */
#define PID_LIVE 0x80000000u
#define PID_IDX 0x7fffffffu

struct builder {
	struct tza_model *m;
	struct tza_arena *arena;
	struct tza_strcache strs; /* strings recently copied to the arena */
	int interned;		  /* blobs come interned (evq.h): store() keeps them */
	/* pid -> 1 + index in m->procs (creation order) of its newest instance,
	 * | PID_LIVE while that one is alive */
	uint32_t *direct;	/* pids < min(dlen, PID_DIRECT) */
	uint32_t dlen;
	struct pslot *pids;	/* pids >= PID_DIRECT */
	uint32_t pmask, pcount; /* slots - 1 (power of 2), pids held */
	uint32_t pshift;	/* 32 - log2(slots) */
	size_t cap;
	struct fields f;
	uint32_t flags; /* TZA_MB_* */
	uint32_t host_cap;
};

/* f is the member of this build's struct at offset off (after the header),
 * of size bytes and type ty: a file of the recorder's own layout */
static int native(const struct tz_field *f, size_t off, size_t size, uint16_t ty)
{
	return f && f->offset == off && f->size == size && f->type == ty;
}

#define NATIVE(fld, st, mem, ty)                                                             \
	native(fld, offsetof(struct st, mem) - sizeof(struct ev_hdr),                        \
	       sizeof(((struct st *)0)->mem), ty)

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
	FLD(f->x_ut, "utime_ns");
	FLD(f->x_st, "stime_ns");
	FLD(f->x_fname, "filename");
	FLD(f->x_exe, "exe");
	FLD(f->x_script, "script");
	FLD(f->x_argv, "argv");
	FLD(f->x_cwd, "cwd");
	FLD(f->x_env, "env");
	FLD(f->x_memcg, "memcg_id");
	t = tz_reader_type_by_id(r, EV_CGROUP);
	FLD(f->c_id, "id");
	FLD(f->c_hier, "hier");
	FLD(f->c_flags, "flags");
	FLD(f->c_mem, "mem_limit_bytes");
	FLD(f->c_quota, "cpu_quota_us");
	FLD(f->c_period, "cpu_period_us");
	FLD(f->c_path, "path");
	t = tz_reader_type_by_id(r, EV_ATTACH);
	FLD(f->a_mtime, "mtime_ns");
	FLD(f->a_size, "size");
	FLD(f->a_flags, "flags");
	FLD(f->a_name, "name");
	FLD(f->a_data, "data");
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
	f->e_native = t && t->fixed_size >= sizeof(struct ev_exit) - sizeof(struct ev_hdr) &&
		NATIVE(f->e_start, ev_exit, start_ns, TZ_F_U64) &&
		NATIVE(f->e_ut, ev_exit, utime_ns, TZ_F_U64) &&
		NATIVE(f->e_st, ev_exit, stime_ns, TZ_F_U64) &&
		NATIVE(f->e_rss, ev_exit, maxrss_kib, TZ_F_U64) &&
		NATIVE(f->e_rchar, ev_exit, rchar, TZ_F_U64) &&
		NATIVE(f->e_wchar, ev_exit, wchar, TZ_F_U64) &&
		NATIVE(f->e_syscr, ev_exit, syscr, TZ_F_U64) &&
		NATIVE(f->e_syscw, ev_exit, syscw, TZ_F_U64) &&
		NATIVE(f->e_rb, ev_exit, read_bytes, TZ_F_U64) &&
		NATIVE(f->e_wb, ev_exit, write_bytes, TZ_F_U64) &&
		NATIVE(f->e_cwb, ev_exit, cancelled_write_bytes, TZ_F_U64) &&
		NATIVE(f->e_nvcsw, ev_exit, nvcsw, TZ_F_U64) &&
		NATIVE(f->e_nivcsw, ev_exit, nivcsw, TZ_F_U64) &&
		NATIVE(f->e_minflt, ev_exit, min_flt, TZ_F_U64) &&
		NATIVE(f->e_majflt, ev_exit, maj_flt, TZ_F_U64) &&
		NATIVE(f->e_tgid, ev_exit, tgid, TZ_F_U32) &&
		NATIVE(f->e_ppid, ev_exit, ppid, TZ_F_U32) &&
		NATIVE(f->e_status, ev_exit, status, TZ_F_U32) &&
		NATIVE(f->e_code, ev_exit, exit_code, TZ_F_I32) &&
		NATIVE(f->e_sig, ev_exit, signal, TZ_F_I32) &&
		NATIVE(f->e_threads, ev_exit, threads, TZ_F_U32) &&
		NATIVE(f->e_flags, ev_exit, flags, TZ_F_U32) &&
		NATIVE(f->e_comm, ev_exit, comm, TZ_F_CHARS);
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
	FLD(f->o_trig, "trigger_tgid");
	t = tz_reader_type_by_id(r, EV_RELEASE);
	FLD(f->r_start, "start_ns");
	FLD(f->r_tgid, "tgid");
	FLD(f->r_ut, "utime_ns");
	FLD(f->r_st, "stime_ns");
	FLD(f->r_nvcsw, "nvcsw");
	FLD(f->r_nivcsw, "nivcsw");
	FLD(f->r_minflt, "min_flt");
	FLD(f->r_majflt, "maj_flt");
	t = tz_reader_type_by_id(r, EV_SIGNAL);
	FLD(f->g_tstart, "target_start_ns");
	FLD(f->g_ttgid, "target_tgid");
	FLD(f->g_sstart, "sender_start_ns");
	FLD(f->g_stgid, "sender_tgid");
	FLD(f->g_sig, "sig");
	FLD(f->g_flags, "flags");
	FLD(f->g_comm, "sender_comm");
	FLD(f->g_code, "code");
	t = tz_reader_type_by_id(r, EV_DROPS);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		f->d[tza_drop_slots[i].slot] = t ? tz_type_field(t, tza_drop_slots[i].name) : NULL;
#undef FLD
}

/* tz_event_u64/_i64/_blob (tz.h), inlined for the hot path: the same rules
 * (NULL field or one past the fixed part reads 0, a non-scalar 0). */
static inline uint64_t fu64(const struct tz_event *ev, const struct tz_field *f)
{
	return tz_event_u64_inline(ev, f);
}

static inline int64_t fi64(const struct tz_event *ev, const struct tz_field *f)
{
	return (int64_t)fu64(ev, f);
}

static inline uint32_t u32(const struct tz_event *ev, const struct tz_field *f)
{
	return (uint32_t)fu64(ev, f);
}

static inline struct tz_blob fblob(const struct tz_event *ev, const struct tz_field *f)
{
	if (f && (f->type == TZ_F_STR || f->type == TZ_F_STRV) && f->offset < ev->nblobs)
		return ev->blobs[f->offset];
	return (struct tz_blob){NULL, 0};
}

static void get_comm(const struct tz_event *ev, const struct tz_field *f, char out[16])
{
	memset(out, 0, 16);
	if (!f || (f->type != TZ_F_CHARS && f->type != TZ_F_BYTES) ||
	    (uint64_t)f->offset + f->size > ev->fixed_len || !f->size)
		return;
	memcpy(out, ev->fixed + f->offset, f->size < 15 ? f->size : 15);
}

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

static inline struct pint *proc_at(const struct builder *b, uint32_t idx1)
{
	return (struct pint *)b->m->procs[idx1 - 1];
}

static inline uint32_t pid_home(const struct builder *b, uint32_t pid)
{
	return (pid * 2654435761u) >> b->pshift;
}

/* Slot of pid, or the empty slot where it would go */
static struct pslot *pid_slot(const struct builder *b, uint32_t pid)
{
	uint32_t i = pid_home(b, pid);
	while (b->pids[i].idx1 && b->pids[i].pid != pid)
		i = (i + 1) & b->pmask;
	return &b->pids[i];
}

/* Double the pid table (or make the first one); -1 when out of memory */
static int pid_grow(struct builder *b)
{
	uint32_t nslots = b->pids ? (b->pmask + 1) * 2 : 4096;
	struct pslot *old = b->pids;
	uint32_t oslots = old ? b->pmask + 1 : 0;
	struct pslot *nt = calloc(nslots, sizeof(*nt));
	if (!nt)
		return -1;
	b->pids = nt;
	b->pmask = nslots - 1;
	b->pshift = 32 - (uint32_t)__builtin_ctz(nslots);
	for (uint32_t i = 0; i < oslots; i++)
		if (old[i].idx1)
			*pid_slot(b, old[i].pid) = old[i];
	free(old);
	return 0;
}

/* pid's cell value (1 + creation index of its newest instance | PID_LIVE),
 * 0 if none */
static uint32_t pid_val(const struct builder *b, uint32_t pid)
{
	if (pid < PID_DIRECT)
		return pid < b->dlen ? b->direct[pid] : 0;
	return b->pids ? pid_slot(b, pid)->idx1 : 0;
}

/* 1 + creation index of pid's newest instance, 0 if none */
static uint32_t pid_get(const struct builder *b, uint32_t pid)
{
	return pid_val(b, pid) & PID_IDX;
}

/* The cell of pid (0 while it has no instance), made when absent; NULL: no
 * memory */
static uint32_t *pid_cell(struct builder *b, uint32_t pid)
{
	if (pid < PID_DIRECT) {
		if (pid >= b->dlen) {
			uint32_t nl = b->dlen ? b->dlen : 4096;
			while (nl <= pid)
				nl *= 2;
			uint32_t *nd = realloc(b->direct, nl * sizeof(*nd));
			if (!nd)
				return NULL;
			memset(nd + b->dlen, 0, (nl - b->dlen) * sizeof(*nd));
			b->direct = nd;
			b->dlen = nl;
		}
		return &b->direct[pid];
	}
	if ((!b->pids || (b->pcount + 1) * 4 > (b->pmask + 1) * 3) && pid_grow(b) < 0)
		return NULL;
	struct pslot *s = pid_slot(b, pid);
	if (!s->idx1) {
		s->pid = pid;
		b->pcount++;
	}
	return &s->idx1;
}

/* The newest instance of pid (live or exited), or NULL */
static struct pint *pid_last(const struct builder *b, uint32_t pid)
{
	uint32_t i1 = pid_get(b, pid);
	return i1 ? proc_at(b, i1) : NULL;
}

static struct pint *live_get(struct builder *b, uint32_t pid)
{
	uint32_t v = pid_val(b, pid);
	return v & PID_LIVE ? proc_at(b, v & PID_IDX) : NULL;
}

/* Did the instance (pid, start) already exit? Asked only while pid has no
 * live instance: its newest instance is then the last one that exited. */
static int dead_has(struct builder *b, uint32_t pid, uint64_t start)
{
	struct pint *q = pid_last(b, pid);
	return q && !q->live && q->p.start_ns == start;
}

/* A new process instance for pid; an older live instance of pid is ended. */
static struct pint *new_proc(struct builder *b, uint32_t pid, uint64_t start_ns, uint32_t flags)
{
	struct tza_model *m = b->m;
	uint32_t *cell = pid_cell(b, pid);
	if (!cell)
		return NULL;
	if (m->nprocs == b->cap) {
		if (m->nprocs == PID_IDX - 1)
			return NULL;
		size_t nc = b->cap ? b->cap * 2 : 256;
		if (nc > PID_IDX - 1)
			nc = PID_IDX - 1;
		struct tza_proc **np = realloc(m->procs, nc * sizeof(*np));
		if (!np)
			return NULL;
		m->procs = np;
		b->cap = nc;
	}
	struct pint *q = tza_arena_alloc(b->arena, sizeof(*q));
	if (!q)
		return NULL;
	if (*cell & PID_LIVE) {
		struct pint *old = proc_at(b, *cell & PID_IDX);
		old->p.flags |= TZA_P_NO_EXIT;
		old->live = 0;
	}
	q->p.pid = pid;
	q->p.start_ns = start_ns;
	q->p.flags = flags;
	q->p.exit_code = -1;
	q->p.res = &res_none;
	q->p.index = m->nprocs;
	q->live = 1;
	m->procs[m->nprocs++] = &q->p;
	*cell = m->nprocs | PID_LIVE;
	return q;
}

/* The live instance of pid whose identity is start_ns (0: any), or a new one. */
static struct pint *find_or_new(struct builder *b, uint32_t pid, uint64_t start_ns, uint64_t ts,
				uint32_t flags)
{
	struct pint *q = live_get(b, pid);
	/* one made by exec_fail started at or before that event: a real start
	 * not after it is the same process's ([E15]) */
	int guess = q && q->start_guess && start_ns && start_ns <= q->p.start_ns;
	if (q && (!start_ns || !q->p.start_ns || q->p.start_ns == start_ns || guess)) {
		if ((!q->p.start_ns || guess) && start_ns) {
			q->p.start_ns = start_ns;
			q->start_guess = 0;
		}
		return q;
	}
	return new_proc(b, pid, start_ns ? start_ns : ts, flags);
}

/* Free the private strings of a tail slot (owned_slot) */
static void exec_free(struct tza_exec *e)
{
	free(e->cwd);
	free(e->env);
	free(e->exe);
	free(e->filename);
	free(e->script);
	free(e->argv);
}

/*
 * Slot for the next of n stored entries (size bytes each) in *arr: appended
 * while fewer than TZA_KEEP_HEAD + TZA_KEEP_TAIL are stored, else the oldest
 * of the tail (a ring at [TZA_KEEP_HEAD, +TZA_KEEP_TAIL) advanced by *ring;
 * *omitted counts it; the caller frees what the slot held). *idx: its index.
 * The first entry comes from the arena, more (n > 1) from malloc. NULL: no
 * memory.
 */
static void *keep_slot(struct builder *b, void **arr, uint32_t *n, size_t size, uint8_t *ring,
		       uint64_t *omitted, int *reused, uint32_t *idx)
{
	*reused = 0;
	if (*n == TZA_KEEP_HEAD + TZA_KEEP_TAIL) {
		*idx = TZA_KEEP_HEAD + *ring;
		*ring = (uint8_t)((*ring + 1) % TZA_KEEP_TAIL);
		(*omitted)++;
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
static void keep_unring(void *arr, uint32_t n, size_t size, uint8_t *ring)
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
					  &q->xring, &p->nexecs_omitted, &reused, &idx);
	if (!slot)
		return NULL;
	if (reused) {
		exec_free(slot);
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
	struct pint *q = find_or_new(b, tgid, fu64(ev, f->x_start), ev->ts_ns,
				     TZA_P_NO_FORK);
	if (!q)
		return -1;
	seen(q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	int own, ok = 1;
	struct tza_exec *e = image_slot(b, q, &own);
	if (!e)
		return -1;
	e->ts_ns = ev->ts_ns;
	e->exe = blob_str(b, own, ev, f->x_exe, &ok);
	e->filename = blob_str(b, own, ev, f->x_fname, &ok);
	struct tz_blob sc = fblob(ev, f->x_script);
	if (sc.data && sc.len && *(const char *)sc.data)
		e->script = store(b, own, sc.data, strnlen(sc.data, sc.len), &ok);
	struct tz_blob av = fblob(ev, f->x_argv);
	if (av.len) {
		e->argv = (uint8_t *)store(b, own, av.data, av.len, &ok);
		e->argv_len = e->argv ? av.len : 0;
	}
	if (!ok)
		return -1;
	e->argc = u32(ev, f->x_argc);
	e->argv_size = u32(ev, f->x_argvsz);
	e->flags = u32(ev, f->x_flags) & ~(TZA_EXEC_FROM_STATE | TZA_EXEC_CPU);
	e->uid = u32(ev, f->x_uid);
	e->euid = u32(ev, f->x_euid);
	e->gid = u32(ev, f->x_gid);
	e->egid = u32(ev, f->x_egid);
	e->cgroup_id = fu64(ev, f->x_cg);
	e->memcg_id = fu64(ev, f->x_memcg);
	struct tz_blob cw = fblob(ev, f->x_cwd);
	if (cw.data && cw.len)
		e->cwd = store(b, own, cw.data, strnlen(cw.data, cw.len), &ok);
	struct tz_blob en = fblob(ev, f->x_env);
	if (en.data && en.len) {
		e->env = store(b, own, en.data, en.len, &ok);
		e->env_len = e->env ? en.len : 0;
	}
	if (!ok)
		return -1;
	get_comm(ev, f->x_comm, e->comm);
	if (f->x_ut && f->x_st) {
		e->utime_before_ns = fu64(ev, f->x_ut);
		e->stime_before_ns = fu64(ev, f->x_st);
		e->flags |= TZA_EXEC_CPU;
	}
	b->m->nexecs++;
	if (!p->ppid)
		p->ppid = u32(ev, f->x_ppid);
	if (f->x_nspid)
		p->ns_pid = u32(ev, f->x_nspid);
	p->uid = e->uid;
	p->euid = e->euid;
	p->cgroup_id = e->cgroup_id;
	if (e->comm[0]) /* empty: not in the event (a shorter fixed part) */
		memcpy(p->comm, e->comm, sizeof(p->comm));
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
	struct pint *q = find_or_new(b, tgid, 0, ev->ts_ns, TZA_P_NO_FORK);
	if (!q)
		return -1;
	if (made)
		q->start_guess = 1;
	seen(q, ev->ts_ns);
	struct tza_proc *p = &q->p;
	int reused, ok = 1;
	uint32_t idx;
	struct tza_failed_exec *nf = keep_slot(b, (void **)&p->failed, &p->nfailed, sizeof(*nf),
					       &q->fring, &p->nfailed_omitted, &reused, &idx);
	if (!nf)
		return -1;
	if (reused)
		free(nf->filename);
	nf->ts_ns = ev->ts_ns;
	nf->filename = blob_str(b, owned_slot(idx), ev, f->xf_fname, &ok);
	nf->err = (int)fi64(ev, f->xf_err);
	b->m->nfailed_execs++;
	return ok ? 0 : -1;
}

/* An exit event's values, read either way (exit_read) */
struct exit_in {
	uint64_t start, ut, st, rss, rchar, wchar, syscr, syscw, rb, wb, cwb, nvcsw, nivcsw,
		minflt, majflt;
	uint32_t tgid, ppid, status, flags, threads;
	int32_t code, sig;
	int has_code; /* exit_code and signal are in the file (else from status) */
	char comm[16];
};

static void exit_read(const struct fields *f, const struct tz_event *ev, struct exit_in *x)
{
	if (f->e_native && ev->fixed_len >= sizeof(struct ev_exit) - sizeof(struct ev_hdr)) {
		/* the recorder's own layout: one copy, no per-field lookups */
		struct ev_exit e;
		memcpy((char *)&e + sizeof(e.hdr), ev->fixed, sizeof(e) - sizeof(e.hdr));
		x->start = le64toh(e.start_ns);
		x->ut = le64toh(e.utime_ns);
		x->st = le64toh(e.stime_ns);
		x->rss = le64toh(e.maxrss_kib);
		x->rchar = le64toh(e.rchar);
		x->wchar = le64toh(e.wchar);
		x->syscr = le64toh(e.syscr);
		x->syscw = le64toh(e.syscw);
		x->rb = le64toh(e.read_bytes);
		x->wb = le64toh(e.write_bytes);
		x->cwb = le64toh(e.cancelled_write_bytes);
		x->nvcsw = le64toh(e.nvcsw);
		x->nivcsw = le64toh(e.nivcsw);
		x->minflt = le64toh(e.min_flt);
		x->majflt = le64toh(e.maj_flt);
		x->tgid = le32toh(e.tgid);
		x->ppid = le32toh(e.ppid);
		x->status = le32toh(e.status);
		x->flags = le32toh(e.flags);
		x->threads = le32toh(e.threads);
		x->code = (int32_t)le32toh((uint32_t)e.exit_code);
		x->sig = (int32_t)le32toh((uint32_t)e.signal);
		x->has_code = 1;
		memcpy(x->comm, e.comm, 15);
		x->comm[15] = 0;
		return;
	}
	x->start = fu64(ev, f->e_start);
	x->ut = fu64(ev, f->e_ut);
	x->st = fu64(ev, f->e_st);
	x->rss = fu64(ev, f->e_rss);
	x->rchar = fu64(ev, f->e_rchar);
	x->wchar = fu64(ev, f->e_wchar);
	x->syscr = fu64(ev, f->e_syscr);
	x->syscw = fu64(ev, f->e_syscw);
	x->rb = fu64(ev, f->e_rb);
	x->wb = fu64(ev, f->e_wb);
	x->cwb = fu64(ev, f->e_cwb);
	x->nvcsw = fu64(ev, f->e_nvcsw);
	x->nivcsw = fu64(ev, f->e_nivcsw);
	x->minflt = fu64(ev, f->e_minflt);
	x->majflt = fu64(ev, f->e_majflt);
	x->tgid = u32(ev, f->e_tgid);
	x->ppid = u32(ev, f->e_ppid);
	x->status = u32(ev, f->e_status);
	x->flags = u32(ev, f->e_flags);
	x->threads = u32(ev, f->e_threads);
	x->has_code = f->e_code != NULL;
	x->code = (int32_t)fi64(ev, f->e_code);
	x->sig = (int32_t)fi64(ev, f->e_sig);
	get_comm(ev, f->e_comm, x->comm);
}

static int on_exit_ev(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct exit_in x;
	exit_read(f, ev, &x);
	if (!x.tgid)
		return 0;
	struct pint *q = find_or_new(b, x.tgid, x.start, ev->ts_ns, TZA_P_NO_FORK);
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
			p->execs[last_slot(p->nexecs, q->xring)].flags |= EV_EXEC_EXE_DELETED;
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
	/* the signal it got is not what ended it (never so in res_none) */
	if (p->res->killer_signal && p->res->killer_signal != p->signal)
		((struct tza_proc_res *)p->res)->killer_signal = 0;
	q->live = 0; /* stays its pid's newest instance: dead_has */
	if (p->pid < PID_DIRECT) /* q was live: its pid has a cell */
		b->direct[p->pid] &= ~PID_LIVE;
	else
		pid_slot(b, p->pid)->idx1 &= ~PID_LIVE;
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
	if (!q || q->live || q->p.start_ns != fu64(ev, f->r_start) ||
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

/* p's own resource block (made on first use); NULL: no memory */
static struct tza_proc_res *res_of(struct builder *b, struct tza_proc *p)
{
	if (p->res == &res_none) {
		struct tza_proc_res *r = tza_arena_alloc(b->arena, sizeof(*r));
		if (!r)
			return NULL;
		p->res = r;
	}
	return (struct tza_proc_res *)p->res;
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
	seen((struct pint *)p, ev->ts_ns);
	struct tza_proc_res *x = res_of(b, p);
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
	if (m->nhost == b->host_cap) {
		uint32_t nc = b->host_cap ? b->host_cap * 2 : 64;
		struct tza_host_sample *nh = realloc(m->host, nc * sizeof(*nh));
		if (!nh)
			return -1;
		m->host = nh;
		b->host_cap = nc;
	}
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
	struct tza_proc_res *x = res_of(b, p);
	if (!x)
		return -1;
	if (!x->oom_killed)
		b->m->noom_kills++;
	x->oom_killed = 1;
	x->oom_ns = ev->ts_ns;
	x->oom_rss_kib = fu64(ev, f->o_anon) + fu64(ev, f->o_file) + fu64(ev, f->o_shmem);
	x->oom_memcg_id = fu64(ev, f->o_memcg);
	x->oom_trigger_pid = u32(ev, f->o_trig);
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
	struct tza_proc_res *x = res_of(b, p);
	if (!x)
		return -1;
	x->killer_signal = sig;
	x->killer_pid = u32(ev, f->g_stgid);
	x->killer_start_ns = fu64(ev, f->g_sstart);
	x->killer_flags = u32(ev, f->g_flags);
	x->killer_kernel = (x->killer_flags & EV_SIGNAL_KERNEL) != 0;
	x->killer_code = (int32_t)fi64(ev, f->g_code);
	get_comm(ev, f->g_comm, x->killer_comm);
	x->kill_ns = ev->ts_ns;
	return 0;
}

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

static int on_state(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	uint32_t tgid = u32(ev, f->s_tgid);
	uint64_t start = fu64(ev, f->s_start);
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
	if ((sfl & (EV_STATE_PRE_EXISTING | EV_STATE_EXITED)) ==
	    (EV_STATE_PRE_EXISTING | EV_STATE_EXITED))
		p->flags |= TZA_P_EXITED_BEFORE;
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
	struct tz_blob exe = fblob(ev, f->s_exe), av = fblob(ev, f->s_argv);
	if (!exe.data && !av.len)
		return 0;
	int own, ok = 1;
	struct tza_exec *e = image_slot(b, q, &own);
	if (!e)
		return -1;
	e->ts_ns = ev->ts_ns;
	if (exe.data)
		e->exe = store(b, own, exe.data, strnlen(exe.data, exe.len), &ok);
	if (av.len) {
		e->argv = (uint8_t *)store(b, own, av.data, av.len, &ok);
		e->argv_len = e->argv ? av.len : 0;
	}
	if (!ok)
		return -1;
	e->argc = u32(ev, f->s_argc);
	e->argv_size = u32(ev, f->s_argvsz);
	/* EV_STATE_ARGV_TRUNCATED; older recorders' 0x1 is EV_STATE_PRE_EXISTING */
	e->flags = ((sfl & EV_STATE_ARGV_TRUNCATED) ? EV_EXEC_ARGV_TRUNCATED : 0) |
		   TZA_EXEC_FROM_STATE;
	e->uid = p->uid;
	e->euid = p->euid;
	memcpy(e->comm, p->comm, sizeof(e->comm));
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
static void count_from_start(struct tza_proc *p, uint64_t rec_start)
{
	int known = !(p->flags & TZA_P_NO_EXIT) || (p->flags & TZA_P_SAMPLED);
	uint64_t end = (p->flags & TZA_P_SAMPLED) ? p->res->last.ts_ns : p->end_ns;
	if (!known && !p->res->nsamples_seen)
		return; /* nothing counted: nothing to move */
	p->flags |= TZA_P_CLIPPED;
	p->charge_ns = rec_start;
	if (p->res->nsamples_seen) {
		struct tza_proc_res *x = (struct tza_proc_res *)p->res;
		const struct tza_sample *base = &x->first;
		p->charge_ns = base->ts_ns > p->start_ns ? base->ts_ns : p->start_ns;
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
		return;
	uint64_t *pr[] = {&p->syscr, &p->syscw, &p->cancelled_write_bytes, &p->nvcsw,
			  &p->nivcsw, &p->min_flt, &p->maj_flt};
	for (size_t i = 0; i < sizeof(pr) / sizeof(*pr); i++)
		*pr[i] = after_share(*pr[i], p->start_ns, end, p->charge_ns);
}

static int finish(struct builder *b, tz_reader *r)
{
	struct tza_model *m = b->m;
	const struct tz_info *in = tz_reader_info(r);
	uint32_t n = m->nprocs;

	m->dropped_chunks = in->dropped;
	m->corrupt_blocks = in->corrupt_blocks;
	m->duplicate_blocks = in->duplicate_blocks;
	/* the recording's start: the recorder's (taken once its programs were
	 * attached), else the first event */
	uint64_t rec_start = 0;
	if (tz_reader_meta_u64(r, "start_boottime_ns", &rec_start) || !rec_start)
		rec_start = m->t0_ns;
	/* the recorder lists the processes alive at its stop (a slice ends
	 * earlier: its processes without an exit may still have been running) */
	const char *alive = tz_reader_meta_get(r, "alive_at_stop");
	uint32_t *al = NULL;
	size_t nal = 0;
	if (tz_reader_meta_get(r, "slice_of"))
		alive = NULL;
	/* a slice of this analyzer's: crossing processes count from its start */
	const char *sc = tz_reader_meta_get(r, "slice_counters");
	const char *sf = tz_reader_meta_get(r, "slice_from_boottime_ns");
	uint64_t clip_ns = sc && sf && !strcmp(sc, "window") ? strtoull(sf, NULL, 10) : 0;
	if (alive && parse_pids(alive, &al, &nal) < 0)
		return TZ_ERR_NOMEM;
	struct tza_proc **v = m->procs, **x = malloc((n ? n : 1) * sizeof(*x));
	uint32_t nk = 0, nx = 0; /* in order (front of v), out of order (x) */
	if (!x) {
		free(al);
		return TZ_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct pint *q = (struct pint *)v[i];
		/* seen without its fork but started before the recording: alive at
		 * the start, it exited (or exec'd) before the snapshot saw it */
		if ((q->p.flags & TZA_P_NO_FORK) && q->p.start_ns < rec_start) {
			q->p.flags &= ~(uint32_t)TZA_P_NO_FORK;
			q->p.flags |= TZA_P_PRE_EXISTING;
		}
		if (q->p.nexecs == TZA_KEEP_HEAD + TZA_KEEP_TAIL)
			keep_unring(q->p.execs, q->p.nexecs, sizeof(*q->p.execs), &q->xring);
		if (q->p.nfailed == TZA_KEEP_HEAD + TZA_KEEP_TAIL)
			keep_unring(q->p.failed, q->p.nfailed, sizeof(*q->p.failed), &q->fring);
		q->p.charge_ns = q->p.start_ns;
		if (q->p.start_ns < clip_ns) {
			q->p.charge_ns = clip_ns;
			q->p.flags |= TZA_P_CLIPPED;
		}
		if (q->live)
			q->p.flags |= TZA_P_NO_EXIT;
		if (q->p.flags & TZA_P_NO_EXIT)
			q->p.end_ns = 0;
		if (q->p.flags & TZA_P_EXITED_BEFORE) {
			/* a zombie at the start: ended before the recording, its
			 * exit never recordable (not lost, not running) */
			q->p.flags |= TZA_P_NO_EXIT | TZA_P_EXIT_LOST;
			q->p.end_ns = q->last_ns > q->p.start_ns ? q->last_ns : q->p.start_ns;
			m->exited_before++;
		} else if ((q->p.flags & TZA_P_NO_EXIT) &&
			   (!q->live ||
			    (alive && !bsearch(&q->p.pid, al, nal, sizeof(*al), cmp_u32)))) {
			/* not running at the stop (its pid was reused, or the
			 * recorder did not list it): its exit was lost ([E8]) */
			q->p.flags |= TZA_P_EXIT_LOST;
			q->p.end_ns = q->last_ns > q->p.start_ns ? q->last_ns : q->p.start_ns;
			m->exit_lost++;
		}
		if ((q->p.flags & (TZA_P_NO_EXIT | TZA_P_EXIT_LOST)) == TZA_P_NO_EXIT &&
		    q->p.res->nsamples_seen)
			take_last_sample(&q->p);
		if ((q->p.flags & TZA_P_PRE_EXISTING) && !(q->p.flags & TZA_P_CLIPPED) &&
		    q->p.start_ns < rec_start && !(b->flags & TZA_MB_LIFETIME))
			count_from_start(&q->p, rec_start);
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
		if (!nk || !start_lt(&q->p, v[nk - 1]))
			v[nk++] = &q->p;
		else
			x[nx++] = &q->p;
	}
	free(al);
	sort_merge(v, n, nk, x, nx);
	free(x);

	/* parents not known at fork time: the process with that pid alive then
	 * (the pid table tells which pids the trace has at all; the by-pid
	 * index is made only when one is needed). A process's parent is final
	 * once its turn is over: roots are counted in the same pass. */
	uint64_t *bypid = NULL;
	uint32_t nroots = 0, root_ppid = 0;
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
		nroots++;
		if (!root_ppid && !(p->flags & (TZA_P_PRE_EXISTING | TZA_P_NO_FORK | TZA_P_KTHREAD |
						TZA_P_FROM_STATE)))
			root_ppid = p->ppid;
	}
	free(bypid);

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

	const char *rp = tz_reader_meta_get(r, "recorder_pid"), *tp = NULL;
	uint32_t rec_pid = rp ? (uint32_t)strtoul(rp, NULL, 10) : 0, target_pid = 0;
	if (!rec_pid)
		rec_pid = UINT32_MAX; /* matches no ppid */
	if ((tp = tz_reader_meta_get(r, "target_pid")))
		target_pid = (uint32_t)strtoul(tp, NULL, 10);

	/* children lists and roots, in order: filled from the last; start
	 * images (parents are final now) */
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
		if (!p->ppid || (p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD)))
			continue;
		/* the recorded command (its fork overwritten in a ring) */
		if (p->ppid == rec_pid || (target_pid && p->pid == target_pid))
			continue;
		if ((p->flags & TZA_P_NO_FORK) || (m->incomplete && p->ppid != root_ppid)) {
			p->flags |= TZA_P_ORPHAN;
			m->orphans++;
		}
	}
	imgwalk_free(&w);
	return 0;
}

/* The reader's thread, while it waits for the builder: the arena's next
 * slab, faulted in there instead of on the builder's thread */
static void prefault(void *arena)
{
	tza_arena_prefault(arena);
}

/* Room for one more element of a growing array: 0, or -1 out of memory */
static int grow(void **arr, uint32_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	uint32_t nc = *cap ? *cap * 2 : 16;
	void *na = nc > *cap ? realloc(*arr, (size_t)nc * size) : NULL;
	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

static int on_cgroup(struct builder *b, const struct tz_event *ev)
{
	const struct fields *f = &b->f;
	struct mint *mi = (struct mint *)b->m;
	int ok = 1;
	if (grow((void **)&mi->cg, mi->ncg, &mi->cgcap, sizeof(*mi->cg)) < 0)
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
	if (grow((void **)&mi->att, mi->natt, &mi->attcap, sizeof(*mi->att)) < 0)
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
static int finish_cgroups(struct mint *mi)
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

/* One event into the model: 0, or -1 when out of memory. */
static int consume(struct builder *b, const struct tz_event *ev)
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
	lookup_fields(r, &b.f);
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
		if (consume(&b, ev) < 0) {
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
		rc = finish(&b, r);
	if (rc >= 0 && finish_cgroups(mi) < 0)
		rc = TZ_ERR_NOMEM;
	free(b.direct);
	free(b.pids);
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
			exec_free(&p->execs[k]);
		if (p->nexecs > 1) /* the first one is in the arena */
			free(p->execs);
		for (uint32_t k = TZA_KEEP_HEAD; k < p->nfailed; k++)
			free(p->failed[k].filename);
		if (p->nfailed > 1)
			free(p->failed);
		if (p->res && p->res != &res_none)
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
	return !(p->nexecs_omitted && i + 1 == TZA_KEEP_HEAD);
}

int64_t tza_exec_cpu_ns(const struct tza_proc *p, uint32_t i)
{
	if (i >= p->nexecs || !(p->execs[i].flags & TZA_EXEC_CPU))
		return -1;
	const struct tza_exec *e = &p->execs[i];
	uint64_t a = e->utime_before_ns + e->stime_before_ns, z;
	if (i + 1 < p->nexecs) {
		if (!exec_next_kept(p, i) || !(p->execs[i + 1].flags & TZA_EXEC_CPU))
			return -1;
		z = p->execs[i + 1].utime_before_ns + p->execs[i + 1].stime_before_ns;
	} else if ((!(p->flags & TZA_P_NO_EXIT) || (p->flags & TZA_P_SAMPLED)) &&
		   !(p->flags & TZA_P_CLIPPED)) { /* clipped: totals from a slice's window */
		z = p->utime_ns + p->stime_ns;
	} else {
		return -1;
	}
	return z >= a ? (int64_t)(z - a) : 0;
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
