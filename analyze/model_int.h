/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model_int.h - the model builder's private parts, shared by its rooms:
 *   model_schema.c  the trace's fields bound by name (one table), exit reads
 *   model_pid.c     the pid index: pid -> newest process instance
 *   model_events.c  one handler per event type (the model's rules)
 *   model_finish.c  after the last event: order, parents, flags, tree
 *   model.c         tza_model_build_ex and the public queries (model.h)
 * Not for callers outside the model: they use model.h. The hot lookups
 * (field reads, pid -> instance) are inline here.
 */
#ifndef TRACER_MODEL_INT_H
#define TRACER_MODEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/events.h"
#include "arena.h"
#include "model.h"

/* A process as the builder holds it; allocated from the arena. Until
 * finish() sorts the processes, p.index is the creation order (the position
 * in the build's procs): the sort's tie-break. */
struct pint {
	struct tza_proc p;
};

/* What only the builder needs of a process: in the process itself, where
 * the children's links go once it is settled (model_finish.c settle() zeroes
 * it), so it costs no memory of its own (issue 22 item 2) */
#define pstate tza_proc_build

/* Processes without samples, OOM kill or killer share this one (model_pid.c) */
extern const struct tza_proc_res tza_res_none;
/* Processes pushed by the start_image walk (model_finish.c), summed over
 * every model built in this process: each process is pushed once per build,
 * whatever the tree's depth. Read by tests (test_model: a 100k-deep fork
 * chain costs one step per process, not one per ancestor), never reset. */
extern uint64_t tza_imgwalk_steps;

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

/* Fields of the types the model reads, looked up by name once (the table in
 * model_schema.c binds each member). */
struct fields {
	const struct tz_field *f_parent, *f_child, *f_cstart, *f_cns;
	const struct tz_field *x_start, *x_cg, *x_tgid, *x_ppid, *x_nspid, *x_uid, *x_euid,
		*x_gid, *x_egid, *x_argc, *x_argvsz, *x_flags, *x_comm, *x_fname, *x_exe,
		*x_ut, *x_st,
		*x_script, *x_argv, *x_cwd, *x_env, *x_memcg;
	const struct tz_field *c_id, *c_hier, *c_flags, *c_mem, *c_quota, *c_period, *c_path;
	const struct tz_field *a_mtime, *a_size, *a_flags, *a_name, *a_data;
	const struct tz_field *xf_tgid, *xf_err, *xf_fname, *xf_pid;
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
	const struct tz_field *o_start, *o_tgid, *o_anon, *o_file, *o_shmem, *o_memcg, *o_trig,
		*o_vm, *o_uid, *o_adj;
	const struct tz_field *g_tstart, *g_ttgid, *g_sstart, *g_stgid, *g_sig, *g_flags, *g_comm,
		*g_code, *g_suid;
	const struct tz_field *r_start, *r_tgid, *r_ut, *r_st, *r_nvcsw, *r_nivcsw, *r_minflt,
		*r_majflt;
	int e_native; /* the exit type's fields are struct ev_exit's, at its offsets */
	/* the exec fields read by name only (EV_EXEC_BYNAME): xb_<name> */
#define XB_FIELD(ty, name, unit, src) const struct tz_field *xb_##name;
	EV_EXEC_BYNAME(XB_FIELD)
#undef XB_FIELD
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
#define BUILDER_CTX_SLOTS 4096
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
	size_t cap;	   /* entries of m->procs */
	/* the image contexts last made in the arena, by hash (model_events.c
	 * ctx_store): BUILDER_CTX_SLOTS, made on first use */
	const struct tza_exec_ctx **ctxc;
	struct fields f;
	uint32_t flags; /* TZA_MB_* */
	uint32_t host_cap;
};

/* q's builder state (until settle()) */
static inline struct pstate *pst(const struct builder *b, struct pint *q)
{
	(void)b;
	return &q->p._build;
}

static inline void seen(const struct builder *b, struct pint *q, uint64_t ts)
{
	struct pstate *s = pst(b, q);
	if (ts > s->last_ns)
		s->last_ns = ts;
}

/* Field reads: tz_event_u64/_i64/_blob (tz.h), inlined for the hot path: the
 * same rules (NULL field or one past the fixed part reads 0, a non-scalar 0). */
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

static inline struct pint *proc_at(const struct builder *b, uint32_t idx1)
{
	return (struct pint *)b->m->procs[idx1 - 1];
}

static inline uint32_t pid_home(const struct builder *b, uint32_t pid)
{
	return (pid * 2654435761u) >> b->pshift;
}

/* Slot of pid, or the empty slot where it would go */
static inline struct pslot *pid_slot(const struct builder *b, uint32_t pid)
{
	uint32_t i = pid_home(b, pid);
	while (b->pids[i].idx1 && b->pids[i].pid != pid)
		i = (i + 1) & b->pmask;
	return &b->pids[i];
}

/* pid's cell value (1 + creation index of its newest instance | PID_LIVE),
 * 0 if none */
static inline uint32_t pid_val(const struct builder *b, uint32_t pid)
{
	if (pid < PID_DIRECT)
		return pid < b->dlen ? b->direct[pid] : 0;
	return b->pids ? pid_slot(b, pid)->idx1 : 0;
}

/* 1 + creation index of pid's newest instance, 0 if none */
static inline uint32_t pid_get(const struct builder *b, uint32_t pid)
{
	return pid_val(b, pid) & PID_IDX;
}

/* The newest instance of pid (live or exited), or NULL */
static inline struct pint *pid_last(const struct builder *b, uint32_t pid)
{
	uint32_t i1 = pid_get(b, pid);
	return i1 ? proc_at(b, i1) : NULL;
}

static inline struct pint *live_get(struct builder *b, uint32_t pid)
{
	uint32_t v = pid_val(b, pid);
	return v & PID_LIVE ? proc_at(b, v & PID_IDX) : NULL;
}

/* An exit event's values, read either way (model_exit_read) */
struct exit_in {
	uint64_t start, ut, st, rss, rchar, wchar, syscr, syscw, rb, wb, cwb, nvcsw, nivcsw,
		minflt, majflt;
	uint32_t tgid, ppid, status, flags, threads;
	int32_t code, sig;
	int has_code; /* exit_code and signal are in the file (else from status) */
	char comm[16];
};

/* model_schema.c: bind f to r's schema (absent types/fields: NULL); copy a
 * comm field (NUL-padded, at most 15 bytes); read an exit event */
void model_bind_fields(tz_reader *r, struct fields *f);
void model_get_comm(const struct tz_event *ev, const struct tz_field *f, char out[16]);
void model_exit_read(const struct fields *f, const struct tz_event *ev, struct exit_in *x);

/* model_pid.c: the pid index's writes and the process instances (NULL, -1:
 * out of memory) */
int model_dead_has(struct builder *b, uint32_t pid, uint64_t start);
struct pint *model_new_proc(struct builder *b, uint32_t pid, uint64_t start_ns, uint32_t flags);
struct pint *model_find_or_new(struct builder *b, uint32_t pid, uint64_t start_ns, uint64_t ts,
			       uint32_t flags);
void model_pid_exited(struct builder *b, struct pint *q);
/* p's own resource block (made on first use: p->res is then no longer
 * tza_res_none); NULL: no memory */
struct tza_proc_res *model_res_of(struct builder *b, struct tza_proc *p);

/* model_events.c: one event into the model (0, -1: out of memory); free a
 * tail slot's private strings; put a tail ring back in time order */
int model_consume(struct builder *b, const struct tz_event *ev);
void model_exec_free(struct tza_exec *e);
void model_keep_unring(void *arr, uint32_t n, size_t size, uint8_t *ring);

/* model_finish.c: after the last event (0 or TZ_ERR_NOMEM); the cgroup
 * table sorted by (hier, id) (0, -1: out of memory) */
int model_finish(struct builder *b, tz_reader *r);
int model_finish_cgroups(struct mint *mi);

#endif
