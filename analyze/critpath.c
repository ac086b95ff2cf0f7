/* SPDX-License-Identifier: BSD-2-Clause */
/* critpath.c - the critical path of the recorded command (report.h). */
#include <stdlib.h>
#include <string.h>

#include "common/cmp.h"
#include "report.h"

/* The recorded command's root: the first root that was started during the
 * recording, else the pre-existing root with the most children. */
static struct tza_proc *pick_root(const struct tza_model *m)
{
	struct tza_proc *best = NULL;
	for (uint32_t i = 0; i < m->nroots; i++) {
		struct tza_proc *p = m->roots[i];
		if (!(p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD | TZA_P_FROM_STATE)))
			return p;
	}
	for (uint32_t i = 0; i < m->nroots; i++) {
		struct tza_proc *p = m->roots[i];
		if (p->flags & TZA_P_KTHREAD)
			continue;
		if (!best || p->nchildren > best->nchildren)
			best = p;
	}
	return best;
}

struct frame {
	struct tza_proc *p;
	uint64_t lo, t;
};

#define PIPE_WINDOW_NS 20000000ULL /* siblings forked within 20 ms: a pipeline */
#define PIPE_SCAN 16		   /* neighbours in start order looked at, each side */
#define PIPE_MIN_LIFE_NS 100000000ULL /* processes whose rate sets the trace's top rate */

/* The highest CPU rate (cores) of a process that lived at least
 * PIPE_MIN_LIFE_NS (of any process when none did): the scale a pipeline
 * partner's rate is measured against, whatever the machine's load.
 * top_rate_add() for every process, then top_rate_get(). */
struct top_rate {
	double top, any;
};

static void top_rate_add(struct top_rate *tr, const struct tza_model *m, const struct tza_proc *p)
{
	if (p->flags & TZA_P_KTHREAD)
		return;
	uint64_t d = tza_proc_end(m, p) - tza_proc_charged_from(p); /* a slice: from its start */
	double r = d ? (double)tza_proc_cpu(p) / (double)d : 0;
	if (r > tr->any)
		tr->any = r;
	if (d >= PIPE_MIN_LIFE_NS && r > tr->top)
		tr->top = r;
}

static double top_rate_get(const struct top_rate *tr)
{
	return tr->top > 0 ? tr->top : tr->any;
}

static double rate(const struct tza_model *m, const struct tza_proc *p)
{
	uint64_t d = tza_proc_end(m, p) - tza_proc_charged_from(p); /* a slice: from its start */
	return d ? (double)tza_proc_cpu(p) / (double)d : 0;
}

/* s lived beside p for at least half of p's life: a pipeline's stages run
 * together (the upstream feeds p until it ends); a short helper an
 * orchestrator forked beside a long job (Snakemake's cbc solver next to a
 * shell job) does not */
static int shares_life(const struct tza_model *m, const struct tza_proc *p,
		       const struct tza_proc *s)
{
	uint64_t pe = tza_proc_end(m, p), se = tza_proc_end(m, s);
	uint64_t lo = p->start_ns > s->start_ns ? p->start_ns : s->start_ns;
	uint64_t hi = pe < se ? pe : se;
	return hi > lo && 2 * (hi - lo) >= pe - p->start_ns;
}

/*
 * Give P's own time (a, b] on the path. When P has a pipeline partner (a
 * sibling forked within PIPE_WINDOW_NS of it that lived beside it for at
 * least half of P's life (shares_life): `bwa mem | samtools sort`, where
 * the shell waits for the last stage but the busiest stage sets the pace)
 * that used at least twice P's CPU rate and at least a tenth of the trace's
 * top rate (top_rate_get(): relative, so a loaded machine, where no process gets
 * a whole core, still has pipeline partners), the overlap of (a, b] with
 * that partner's life goes to the partner instead.
 */
static void attribute(struct tza_crit *c, const struct tza_model *m, struct tza_proc *p,
		      uint64_t a, uint64_t b, uint8_t *onpath, double top)
{
	if (b <= a)
		return;
	struct tza_proc *best = NULL;
	if (p->parent) {
		double pr = rate(m, p), br = 0;
		/* a pipeline's stages are forked one after another: neighbours in
		 * start order (at most PIPE_SCAN each side) */
		uint32_t i = p->index > PIPE_SCAN ? p->index - PIPE_SCAN : 0;
		uint32_t end = m->nprocs - p->index > PIPE_SCAN ? p->index + PIPE_SCAN + 1 : m->nprocs;
		for (; i < end; i++) {
			struct tza_proc *s = m->procs[i];
			if (s->start_ns + PIPE_WINDOW_NS < p->start_ns ||
			    s->start_ns > p->start_ns + PIPE_WINDOW_NS)
				continue;
			if (s == p || s->parent != p->parent || tza_proc_end(m, s) <= a ||
			    s->start_ns >= b || !shares_life(m, p, s))
				continue;
			double sr = rate(m, s);
			if (sr > 0 && sr >= 0.1 * top && sr >= 2 * pr && sr > br) {
				best = s;
				br = sr;
			}
		}
	}
	if (!best) {
		c->proc_ns[p->index] += b - a;
		return;
	}
	uint64_t x = best->start_ns > a ? best->start_ns : a;
	uint64_t y = tza_proc_end(m, best) < b ? tza_proc_end(m, best) : b;
	c->proc_ns[best->index] += y - x;
	c->proc_ns[p->index] += (b - a) - (y - x);
	if (!onpath[best->index]) {
		onpath[best->index] = 1;
		c->path[c->npath++] = best;
	}
}

static const struct tza_model *sort_model;
/* kids[] holds indices into sort_model's procs */
static int cmp_end_desc(const void *a, const void *b)
{
	const struct tza_proc *x = sort_model->procs[*(const uint32_t *)a],
			      *y = sort_model->procs[*(const uint32_t *)b];
	uint64_t ex = tza_proc_end(sort_model, x), ey = tza_proc_end(sort_model, y);
	if (ex != ey)
		return ex > ey ? -1 : 1;
	/* same end: the one that ran longer released the waiter */
	CMP_RET(x->start_ns, y->start_ns);
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_start(const void *a, const void *b)
{
	const struct tza_proc *x = *(struct tza_proc *const *)a, *y = *(struct tza_proc *const *)b;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_tool(const void *a, const void *b)
{
	const struct tza_crit_tool *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->tool, y->tool);
}

static int cmp_tool_name(const void *a, const void *b)
{
	const struct tza_crit_tool *x = a, *y = b;
	return strcmp(x->tool, y->tool);
}

/* The path's time by group key (c->by_tool, c->ntools): largest first,
 * then by name. Returns 0 or -1 (out of memory). */
static int by_group(struct tza_crit *c, enum tza_by by)
{
	c->by_tool = calloc(c->npath ? c->npath : 1, sizeof(*c->by_tool));
	if (!c->by_tool)
		return -1;
	struct tza_crit_tool *tmp = c->by_tool;
	for (uint32_t i = 0; i < c->npath; i++)
		tmp[i] = (struct tza_crit_tool){tza_proc_key(c->path[i], by),
						c->proc_ns[c->path[i]->index]};
	qsort(tmp, c->npath, sizeof(*tmp), cmp_tool_name);
	uint32_t nt = 0;
	for (uint32_t i = 0; i < c->npath; i++) {
		if (nt && !strcmp(tmp[nt - 1].tool, tmp[i].tool))
			tmp[nt - 1].ns += tmp[i].ns;
		else
			tmp[nt++] = tmp[i];
	}
	c->ntools = nt;
	qsort(c->by_tool, nt, sizeof(*c->by_tool), cmp_tool);
	return 0;
}

int tza_critpath(struct tza_model *m, enum tza_by by, struct tza_crit *c)
{
	uint32_t n = m->nprocs;
	memset(c, 0, sizeof(*c));
	c->proc_ns = calloc(n ? n : 1, sizeof(*c->proc_ns));
	if (!c->proc_ns)
		return -1;
	c->root = pick_root(m);
	if (!c->root)
		return 0;
	struct tza_proc *root = c->root;
	c->start_ns = root->start_ns < m->t0_ns ? m->t0_ns : root->start_ns;
	c->end_ns = tza_proc_end(m, root);
	if (c->end_ns < c->start_ns)
		c->end_ns = c->start_ns;
	c->makespan_ns = c->end_ns - c->start_ns;

	/* children of every process (their indices in m->procs), by end
	 * (latest first); one cursor each. One pass over the processes to
	 * count children and sum the top rate, one to place them (4 bytes a
	 * process each: off, cur, kids); the rest works on arrays. */
	uint32_t *off = calloc((size_t)n + 1, sizeof(*off)), *cur = calloc(n ? n : 1, sizeof(*cur));
	uint32_t *kids = malloc((n ? n : 1) * sizeof(*kids));
	struct frame *st = malloc((n + 1) * sizeof(*st));
	uint8_t *onpath = calloc(n ? n : 1, 1);
	c->path = malloc((n ? n : 1) * sizeof(*c->path));
	if (!off || !cur || !kids || !st || !onpath || !c->path)
		goto fail;
	struct top_rate tr = {0, 0};
	for (uint32_t i = 0; i < n; i++) {
		const struct tza_proc *p = m->procs[i];
		if (p->parent)
			off[p->parent->index + 1]++;
		top_rate_add(&tr, m, p);
	}
	for (uint32_t i = 0; i < n; i++)
		off[i + 1] += off[i];
	for (uint32_t i = 0; i < n; i++)
		cur[i] = off[i];
	for (uint32_t i = 0; i < n; i++)
		if (m->procs[i]->parent)
			kids[cur[m->procs[i]->parent->index]++] = i;
	sort_model = m;
	for (uint32_t i = 0; i < n; i++) {
		if (off[i + 1] - off[i] > 1)
			qsort(kids + off[i], off[i + 1] - off[i], sizeof(*kids), cmp_end_desc);
		cur[i] = off[i];
	}

	double top = top_rate_get(&tr);
	uint32_t sp = 0;
	st[sp++] = (struct frame){root, c->start_ns, c->end_ns};
	c->path[c->npath++] = root;
	onpath[root->index] = 1;
	while (sp) {
		struct frame *fr = &st[sp - 1];
		uint32_t pi = fr->p->index;
		struct tza_proc *next = NULL;
		uint64_t e = 0;
		while (cur[pi] < off[pi + 1]) {
			struct tza_proc *k = m->procs[kids[cur[pi]]];
			e = tza_proc_end(m, k);
			/* exit lost: its end is unknown, never on the path */
			if (e > fr->t || k->start_ns >= e || (k->flags & TZA_P_EXIT_LOST)) {
				cur[pi]++;
				continue;
			}
			if (e > fr->lo)
				next = k;
			break;
		}
		if (!next) {
			attribute(c, m, fr->p, fr->lo, fr->t, onpath, top);
			sp--;
			continue;
		}
		cur[pi]++;
		attribute(c, m, fr->p, e, fr->t, onpath, top);
		uint64_t lo = next->start_ns > fr->lo ? next->start_ns : fr->lo;
		fr->t = lo;
		st[sp++] = (struct frame){next, lo, e};
		if (!onpath[next->index]) {
			onpath[next->index] = 1;
			c->path[c->npath++] = next;
		}
	}
	qsort(c->path, c->npath, sizeof(*c->path), cmp_start);

	if (by_group(c, by) < 0)
		goto fail;
	free(off);
	free(cur);
	free(kids);
	free(st);
	free(onpath);
	return 0;
fail:
	free(off);
	free(cur);
	free(kids);
	free(st);
	free(onpath);
	tza_crit_free(c);
	return -1;
}

void tza_crit_free(struct tza_crit *c)
{
	free(c->proc_ns);
	free(c->path);
	free(c->by_tool);
	memset(c, 0, sizeof(*c));
}
