/* SPDX-License-Identifier: BSD-2-Clause */
/* taskpath.c - the critical path of tasks (task.h: the DAG, the rule): the
 * solver over nodes on one clock, and one host's path of tasks with it. */
#include <stdlib.h>
#include <string.h>

#include "task.h"

const char *tza_task_edge_name(enum tza_task_edge e, const char *none)
{
	static const char *const name[TZA_EDGE_N] = {
	    [TZA_EDGE_DATA] = "data", [TZA_EDGE_TIME] = "time", [TZA_EDGE_ADJACENT] = "adjacent"};
	return (unsigned)e < TZA_EDGE_N && name[e] ? name[e] : none;
}

/* One output of a node, for the data edges */
struct out {
	const char *path;
	uint32_t node;
};

static int cmp_out(const void *a, const void *b)
{
	const struct out *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct out *)a)->path, ((const struct out *)b)->path);
}

struct dp {
	int64_t pred; /* the binding predecessor: the one that ended last, -1 none */
	uint32_t edge;
};

/* Offer A as B's predecessor over an edge of kind `edge`: kept when it
 * ended later than the one B has (ties: the first in start order) */
static void offer(struct dp *d, const struct tza_tp_node *v, uint32_t a, uint32_t b,
		  uint32_t edge)
{
	int64_t p = d[b].pred;
	if (p >= 0 && (v[a].end_ns < v[p].end_ns || (v[a].end_ns == v[p].end_ns && a >= (uint32_t)p)))
		return;
	d[b].pred = a;
	d[b].edge = edge;
}

/* The data edges into b: every writer a < b of one of its inputs, once */
static void data_edges(struct dp *d, const struct tza_tp_node *v, uint32_t b, const struct out *o,
		       uint32_t no, uint8_t *seen, tza_tp_link link, const void *ctx,
		       struct tza_tp *out)
{
	const struct tza_tp_node *vb = &v[b];
	memset(seen, 0, b);
	for (uint32_t k = 0; k < vb->nin; k++) {
		struct out key = {vb->in[k], 0};
		const struct out *hit = bsearch(&key, o, no, sizeof(*o), cmp_path);
		if (!hit)
			continue;
		size_t lo = (size_t)(hit - o);
		while (lo && !strcmp(o[lo - 1].path, key.path))
			lo--; /* the first node that wrote it */
		for (; lo < no && !strcmp(o[lo].path, key.path); lo++) {
			uint32_t a = o[lo].node;
			if (a >= b || seen[a])
				continue;
			seen[a] = 1;
			if (link(ctx, a, b, 1) != TZA_EDGE_DATA) {
				out->late++;
				continue;
			}
			out->edges[TZA_EDGE_DATA]++;
			offer(d, v, a, b, TZA_EDGE_DATA);
		}
	}
}

int tza_tp_solve(const struct tza_tp_node *v, uint32_t n, tza_tp_link link, const void *ctx,
		 struct tza_tp *out)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	uint32_t no = 0;
	for (uint32_t i = 0; i < n; i++)
		no += v[i].io ? v[i].nout : 0;
	struct dp *d = calloc(n, sizeof(*d));
	struct out *o = malloc((no + 1) * sizeof(*o));
	uint8_t *seen = calloc(n, 1); /* per b: predecessor offered (data edges) */
	if (!d || !o || !seen)
		goto fail;
	no = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; v[i].io && k < v[i].nout; k++)
			o[no++] = (struct out){v[i].out[k], i};
	qsort(o, no, sizeof(*o), cmp_out);

	/* every edge into every node, each keeping the one that ended last */
	for (uint32_t b = 0; b < n; b++) {
		d[b] = (struct dp){-1, TZA_EDGE_NONE};
		for (uint32_t a = 0; a < b; a++) {
			if (v[b].io && v[a].io)
				continue; /* data edges below */
			uint32_t e = link(ctx, a, b, 0);
			if (e != TZA_EDGE_NONE && e < TZA_EDGE_N) {
				out->edges[e]++;
				offer(d, v, a, b, e);
			}
		}
		if (v[b].io)
			data_edges(d, v, b, o, no, seen, link, ctx, out);
	}

	/* the node that ended last (ties: the first in start order) */
	uint32_t last = 0;
	for (uint32_t i = 1; i < n; i++)
		if (v[i].end_ns > v[last].end_ns)
			last = i;
	uint32_t len = 0;
	for (int64_t i = last; i >= 0; i = d[i].pred)
		len++;
	if (!(out->steps = calloc(len, sizeof(*out->steps))))
		goto fail;
	out->n = len;
	for (int64_t i = last, k = len; i >= 0; i = d[i].pred) {
		struct tza_tp_step *s = &out->steps[--k];
		int64_t p = d[i].pred;
		s->node = (uint32_t)i;
		s->edge = d[i].edge;
		s->wait_ns = p >= 0 ? v[i].start_ns - v[p].end_ns : 0;
		out->wall_ns += v[i].end_ns - v[i].start_ns;
		out->wait_ns += s->wait_ns;
	}
	free(d);
	free(o);
	free(seen);
	return 0;
fail:
	free(d);
	free(o);
	free(seen);
	free(out->steps);
	memset(out, 0, sizeof(*out));
	return -1;
}

/* a is p or one of its ancestors */
static int ancestor_or_self(const struct tza_proc *a, const struct tza_proc *p)
{
	for (; p; p = p->parent)
		if (p == a)
			return 1;
	return 0;
}

/* One host's edges (task.h): data when A ended at or before B started;
 * else by time and the process tree */
static uint32_t host_link(const void *ctx, uint32_t ia, uint32_t ib, int data)
{
	const struct tza_task *a = &((const struct tza_task *)ctx)[ia];
	const struct tza_task *b = &((const struct tza_task *)ctx)[ib];
	if (a->end_ns > b->start_ns)
		return TZA_EDGE_NONE;
	if (data)
		return TZA_EDGE_DATA;
	const struct tza_proc *ap = a->root->parent;
	return !ap || ancestor_or_self(ap, b->root->parent) ? TZA_EDGE_TIME : TZA_EDGE_NONE;
}

int tza_task_path(const struct tza_tasks *t, struct tza_task_path *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || !t->n)
		return 0;
	const struct tza_task *ts = t->tasks;
	struct tza_tp_node *v = calloc(t->n, sizeof(*v));
	struct tza_tp tp;
	if (!v)
		return -1;
	for (uint32_t i = 0; i < t->n; i++)
		v[i] = (struct tza_tp_node){.start_ns = (int64_t)ts[i].start_ns,
					    .end_ns = (int64_t)ts[i].end_ns,
					    .in = ts[i].wf_inputs,
					    .out = ts[i].wf_outputs,
					    .nin = ts[i].wf_io ? ts[i].wf_ninputs : 0,
					    .nout = ts[i].wf_io ? ts[i].wf_noutputs : 0,
					    .io = ts[i].wf_io};
	int rc = tza_tp_solve(v, t->n, host_link, ts, &tp);
	free(v);
	if (rc)
		return -1;
	if (!(out->steps = calloc(tp.n ? tp.n : 1, sizeof(*out->steps)))) {
		free(tp.steps);
		return -1;
	}
	out->n = tp.n;
	for (uint32_t i = 0; i < tp.n; i++)
		out->steps[i] = (struct tza_task_step){.task = &ts[tp.steps[i].node],
						       .wait_ns = (uint64_t)tp.steps[i].wait_ns,
						       .edge = tp.steps[i].edge};
	out->wall_ns = (uint64_t)tp.wall_ns;
	out->wait_ns = (uint64_t)tp.wait_ns;
	out->data_edges = tp.edges[TZA_EDGE_DATA];
	out->time_edges = tp.edges[TZA_EDGE_TIME];
	out->late = tp.late;
	free(tp.steps);
	return 0;
}

void tza_task_path_free(struct tza_task_path *p)
{
	free(p->steps);
	memset(p, 0, sizeof(*p));
}
