/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model_pid.c - the builder's pid index (pid -> newest instance, live or
 * exited: a direct array below PID_DIRECT, open addressing above) and the
 * process instances it points to. Reads are inline in model_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

const struct tza_proc_res tza_res_none;

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
struct tza_proc_res *model_res_of(struct builder *b, struct tza_proc *p)
{
	if (p->res == &tza_res_none) {
		struct tza_proc_res *r = tza_arena_alloc(b->arena, sizeof(*r));
		if (!r)
			return NULL;
		p->res = r;
	}
	return (struct tza_proc_res *)p->res;
}

/* Did the instance (pid, start) already exit? Asked only while pid has no
 * live instance: its newest instance is then the last one that exited. */
int model_dead_has(struct builder *b, uint32_t pid, uint64_t start)
{
	struct pint *q = pid_last(b, pid);
	return q && !pst(b, q)->live && q->p.start_ns == start;
}

/* A new process instance for pid; an older live instance of pid is ended. */
struct pint *model_new_proc(struct builder *b, uint32_t pid, uint64_t start_ns, uint32_t flags)
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
		pst(b, old)->live = 0;
	}
	q->p.pid = pid;
	q->p.start_ns = start_ns;
	q->p.flags = flags;
	q->p.exit_code = -1;
	q->p.res = &tza_res_none;
	q->p.index = m->nprocs;
	q->p._build.live = 1; /* the rest of it zero, as the arena gives it */
	m->procs[m->nprocs++] = &q->p;
	*cell = m->nprocs | PID_LIVE;
	return q;
}

/* The live instance of pid whose identity is start_ns (0: any), or a new one. */
struct pint *model_find_or_new(struct builder *b, uint32_t pid, uint64_t start_ns, uint64_t ts,
				uint32_t flags)
{
	struct pint *q = live_get(b, pid);
	/* one made by exec_fail started at or before that event: a real start
	 * not after it is the same process's ([E15]) */
	int guess = q && pst(b, q)->start_guess && start_ns && start_ns <= q->p.start_ns;
	if (q && (!start_ns || !q->p.start_ns || q->p.start_ns == start_ns || guess)) {
		if ((!q->p.start_ns || guess) && start_ns) {
			q->p.start_ns = start_ns;
			pst(b, q)->start_guess = 0;
		}
		return q;
	}
	return model_new_proc(b, pid, start_ns ? start_ns : ts, flags);
}

/* q (live) exited: it stays its pid's newest instance (model_dead_has) */
void model_pid_exited(struct builder *b, struct pint *q)
{
	pst(b, q)->live = 0;
	if (q->p.pid < PID_DIRECT) /* q was live: its pid has a cell */
		b->direct[q->p.pid] &= ~PID_LIVE;
	else
		pid_slot(b, q->p.pid)->idx1 &= ~PID_LIVE;
}
