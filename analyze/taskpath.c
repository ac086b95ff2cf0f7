/* SPDX-License-Identifier: BSD-2-Clause */
/* taskpath.c - the critical path of tasks (task.h: the DAG, the rule). */
#include <stdlib.h>
#include <string.h>

#include "task.h"

/* One output of a task, for the data edges */
struct out {
	const char *path;
	uint32_t task;
};

static int cmp_out(const void *a, const void *b)
{
	const struct out *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->task > y->task) - (x->task < y->task);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct out *)a)->path, ((const struct out *)b)->path);
}

/* a is p or one of its ancestors */
static int ancestor_or_self(const struct tza_proc *a, const struct tza_proc *p)
{
	for (; p; p = p->parent)
		if (p == a)
			return 1;
	return 0;
}

/* The time edge A -> B (task.h) */
static int time_edge(const struct tza_task *a, const struct tza_task *b)
{
	const struct tza_proc *ap = a->root->parent;
	return a->end_ns <= b->start_ns && (!ap || ancestor_or_self(ap, b->root->parent));
}

struct dp {
	uint64_t best;	/* largest sum of walls of a chain ending here */
	int64_t pred;	/* predecessor on that chain, -1 none */
	uint32_t edge;
};

/* Offer A as B's predecessor over an edge of kind `edge` */
static void offer(struct dp *d, const struct tza_task *ts, uint32_t a, uint32_t b, uint32_t edge)
{
	uint64_t v = d[a].best + (ts[b].end_ns - ts[b].start_ns);
	int64_t p = d[b].pred;
	if (p >= 0 && (v < d[b].best || (v == d[b].best && (ts[a].end_ns < ts[p].end_ns ||
				(ts[a].end_ns == ts[p].end_ns && a >= (uint32_t)p)))))
		return;
	d[b].best = v;
	d[b].pred = a;
	d[b].edge = edge;
}

int tza_task_path(const struct tza_tasks *t, struct tza_task_path *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || !t->n)
		return 0;
	uint32_t n = t->n, no = 0;
	const struct tza_task *ts = t->tasks;
	for (uint32_t i = 0; i < n; i++)
		no += ts[i].wf_io ? ts[i].wf_noutputs : 0;
	struct dp *d = calloc(n, sizeof(*d));
	struct out *o = malloc((no + 1) * sizeof(*o));
	uint8_t *seen = calloc(n, 1); /* per B: predecessor offered (data edges) */
	if (!d || !o || !seen)
		goto fail;
	no = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; ts[i].wf_io && k < ts[i].wf_noutputs; k++)
			o[no++] = (struct out){ts[i].wf_outputs[k], i};
	qsort(o, no, sizeof(*o), cmp_out);

	/* in start order: every edge goes forward, so each A is final before B */
	for (uint32_t b = 0; b < n; b++) {
		const struct tza_task *tb = &ts[b];
		d[b] = (struct dp){tb->end_ns - tb->start_ns, -1, TZA_EDGE_NONE};
		for (uint32_t a = 0; a < b; a++) {
			if (tb->wf_io && ts[a].wf_io)
				continue; /* data edges below */
			if (time_edge(&ts[a], tb)) {
				out->time_edges++;
				offer(d, ts, a, b, TZA_EDGE_TIME);
			}
		}
		if (!tb->wf_io)
			continue;
		memset(seen, 0, b);
		for (uint32_t k = 0; k < tb->wf_ninputs; k++) {
			struct out key = {tb->wf_inputs[k], 0};
			const struct out *hit = bsearch(&key, o, no, sizeof(*o), cmp_path);
			if (!hit)
				continue;
			size_t lo = (size_t)(hit - o);
			while (lo && !strcmp(o[lo - 1].path, key.path))
				lo--; /* the first task that wrote it */
			for (; lo < no && !strcmp(o[lo].path, key.path); lo++) {
				uint32_t a = o[lo].task;
				if (a >= b || seen[a])
					continue;
				seen[a] = 1;
				if (ts[a].end_ns > tb->start_ns) {
					out->late++;
					continue;
				}
				out->data_edges++;
				offer(d, ts, a, b, TZA_EDGE_DATA);
			}
		}
	}

	/* the task that ended last */
	uint32_t last = 0;
	for (uint32_t i = 1; i < n; i++)
		if (ts[i].end_ns > ts[last].end_ns ||
		    (ts[i].end_ns == ts[last].end_ns && d[i].best > d[last].best))
			last = i;
	uint32_t len = 0;
	for (int64_t i = last; i >= 0; i = d[i].pred)
		len++;
	if (!(out->steps = calloc(len, sizeof(*out->steps))))
		goto fail;
	out->n = len;
	for (int64_t i = last, k = len; i >= 0; i = d[i].pred) {
		struct tza_task_step *s = &out->steps[--k];
		int64_t p = d[i].pred;
		s->task = &ts[i];
		s->edge = d[i].edge;
		s->wait_ns = p >= 0 ? ts[i].start_ns - ts[p].end_ns : 0;
		out->wall_ns += ts[i].end_ns - ts[i].start_ns;
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
	tza_task_path_free(out);
	return -1;
}

void tza_task_path_free(struct tza_task_path *p)
{
	free(p->steps);
	memset(p, 0, sizeof(*p));
}
