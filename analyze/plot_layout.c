/* SPDX-License-Identifier: BSD-2-Clause */
/* plot_layout.c - where the gantt puts each process: rows (per process, or per
 * --by group with an "other" row) and up to four lanes a row (plot_int.h). */
#include <stdlib.h>
#include <string.h>

#include "plot_int.h"

/* Depth-first, children by start: the tree read top to bottom. */
static void dfs(const struct plot_ctx *c, struct tza_proc *p, uint32_t *order, uint32_t *n,
		unsigned depth)
{
	for (; p; p = p->next_sibling) {
		if (plot_p_in_window(c, p))
			order[(*n)++] = p->index;
		if (p->first_child && depth < 100000)
			dfs(c, p->first_child, order, n, depth + 1);
	}
}

static int cmp_row_first(const void *a, const void *b)
{
	const struct plot_row *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The processes of the window in tree order into order[]; *n of them.
 * 0, or -1 out of memory. */
static int tree_order(const struct plot_ctx *c, uint32_t *order, uint32_t *n)
{
	struct tza_model *m = c->m;
	*n = 0;
	for (uint32_t i = 0; i < m->nroots; i++) {
		struct tza_proc *r = m->roots[i];
		/* roots are a list of tops, not siblings of each other */
		if (plot_p_in_window(c, r))
			order[(*n)++] = r->index;
		if (r->first_child)
			dfs(c, r->first_child, order, n, 1);
	}
	/* any process not reached from a root (should not happen): append */
	if (*n < m->nprocs) {
		char *seen = calloc(m->nprocs, 1);
		if (!seen)
			return -1;
		for (uint32_t i = 0; i < *n; i++)
			seen[order[i]] = 1;
		for (uint32_t i = 0; i < m->nprocs && *n < m->nprocs; i++)
			if (!seen[i] && plot_p_in_window(c, m->procs[i]))
				order[(*n)++] = i;
		free(seen);
	}
	return 0;
}

/* One row per process: "PID KEY". */
static int rows_per_proc(const struct plot_ctx *c, struct plot_gantt_layout *g,
			 const uint32_t *order)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct tza_proc *p = c->m->procs[order[i]];
		char buf[256];
		snprintf(buf, sizeof(buf), "%u %s", p->pid, tza_proc_key(p, c->o->by));
		g->labels[i] = strdup(buf);
		if (!g->labels[i])
			return -1;
		g->rows[i].label = g->labels[i];
		g->bars[i] = (struct plot_bar){.proc = order[i], .row = (int)i};
		g->rows[i].nlanes = 1;
	}
	g->nrows = (int)g->n;
	return 0;
}

/* One row per --by group, in order of first sight. */
static int rows_per_group(const struct plot_ctx *c, struct plot_gantt_layout *g,
			  const uint32_t *order)
{
	struct plot_namemap groups;
	if (plot_nm_init(&groups, g->n) < 0) {
		plot_nm_free(&groups);
		return -1;
	}
	struct plot_row *rows = g->rows;
	for (uint32_t i = 0; i < g->n; i++) {
		struct tza_proc *p = c->m->procs[order[i]];
		const char *k = tza_proc_key(p, c->o->by);
		int r = plot_nm_get_or_add(&groups, k, g->nrows);
		if (r == g->nrows) {
			rows[g->nrows].label = k;
			rows[g->nrows].first = plot_p_start(c, p);
			rows[g->nrows].tool = c->proc_tool[order[i]];
			g->nrows++;
		}
		rows[r].count++;
		rows[r].wall_s += (double)(plot_p_end(c, p) - plot_p_start(c, p)) / 1e9;
		if (rows[r].tool != c->proc_tool[order[i]])
			rows[r].tool = -1;
		g->bars[i] = (struct plot_bar){.proc = order[i], .row = r};
	}
	plot_nm_free(&groups);
	return 0;
}

/* More than max_rows groups: keep the max_rows - 1 with the most wall
 * time, the rest share the last row, "other (N groups)". */
static int fold_other(struct plot_gantt_layout *g, unsigned max_rows)
{
	int nrows = g->nrows, rc = -1;
	struct plot_row *rows = g->rows;
	double *w = malloc(sizeof(double) * (size_t)nrows);
	int *map = malloc(sizeof(int) * (size_t)nrows);
	struct plot_row *nr = calloc(max_rows, sizeof(*nr));
	if (!w || !map || !nr)
		goto out;
	for (int r = 0; r < nrows; r++)
		w[r] = rows[r].wall_s;
	for (unsigned keep = 0; keep < max_rows - 1; keep++) {
		int best = -1;
		for (int r = 0; r < nrows; r++)
			if (w[r] >= 0 && (best < 0 || w[r] > w[best]))
				best = r;
		w[best] = -1 - (double)keep; /* marks kept */
	}
	int k = 0;
	uint32_t other_groups = 0;
	int other = (int)max_rows - 1;
	nr[other].tool = -1;
	nr[other].first = UINT64_MAX;
	for (int r = 0; r < nrows; r++) {
		if (w[r] < 0) {
			nr[k] = rows[r];
			map[r] = k++;
		} else {
			map[r] = other;
			nr[other].count += rows[r].count;
			nr[other].wall_s += rows[r].wall_s;
			if (rows[r].first < nr[other].first)
				nr[other].first = rows[r].first;
			other_groups++;
		}
	}
	char buf[64];
	snprintf(buf, sizeof(buf), "other (%u groups)", other_groups);
	g->labels[g->n] = strdup(buf);
	if (!g->labels[g->n])
		goto out;
	nr[other].label = g->labels[g->n];
	for (uint32_t i = 0; i < g->n; i++)
		g->bars[i].row = map[g->bars[i].row];
	memcpy(rows, nr, sizeof(*nr) * max_rows);
	g->nrows = (int)max_rows;
	rc = 0;
out:
	free(w);
	free(map);
	free(nr);
	return rc;
}

/* Rows in order of first start (the bars follow their row). */
static int sort_rows(struct plot_gantt_layout *g)
{
	int nrows = g->nrows;
	struct plot_row *rows = g->rows;
	int *perm = malloc(sizeof(int) * (size_t)nrows);
	struct plot_row *sorted = malloc(sizeof(*sorted) * (size_t)nrows);
	if (!perm || !sorted) {
		free(perm);
		free(sorted);
		return -1;
	}
	for (int r = 0; r < nrows; r++)
		rows[r].nlanes = r; /* remember the old index */
	memcpy(sorted, rows, sizeof(*sorted) * (size_t)nrows);
	qsort(sorted, (size_t)nrows, sizeof(*sorted), cmp_row_first);
	for (int r = 0; r < nrows; r++)
		perm[sorted[r].nlanes] = r;
	for (int r = 0; r < nrows; r++)
		sorted[r].nlanes = 0;
	memcpy(rows, sorted, sizeof(*sorted) * (size_t)nrows);
	free(sorted);
	for (uint32_t i = 0; i < g->n; i++)
		g->bars[i].row = perm[g->bars[i].row];
	free(perm);
	return 0;
}

/* Each bar (in tree order) into its row's earliest free lane; all busy:
 * the lane that frees first. */
static void pack_lanes(const struct plot_ctx *c, struct plot_gantt_layout *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct tza_proc *p = c->m->procs[g->bars[i].proc];
		struct plot_row *r = &g->rows[g->bars[i].row];
		uint64_t s = plot_p_start(c, p);
		int lane = -1;
		for (int l = 0; l < r->nlanes; l++)
			if (r->lane_end[l] <= s) {
				lane = l;
				break;
			}
		if (lane < 0) {
			if (r->nlanes < PLOT_MAX_LANES) {
				lane = r->nlanes++;
			} else { /* all busy: the lane that frees first */
				lane = 0;
				for (int l = 1; l < PLOT_MAX_LANES; l++)
					if (r->lane_end[l] < r->lane_end[lane])
						lane = l;
			}
		}
		uint64_t e = plot_p_end(c, p);
		if (e > r->lane_end[lane])
			r->lane_end[lane] = e;
		g->bars[i].lane = lane;
	}
}

void plot_gantt_layout_free(struct plot_gantt_layout *g)
{
	if (g->labels)
		for (uint32_t i = 0; i <= g->n; i++)
			free(g->labels[i]);
	free(g->labels);
	free(g->bars);
	free(g->rows);
	*g = (struct plot_gantt_layout){0};
}

int plot_gantt_layout(const struct plot_ctx *c, struct plot_gantt_layout *g)
{
	struct tza_model *m = c->m;
	unsigned max_rows = c->o->max_rows ? c->o->max_rows : 60;
	*g = (struct plot_gantt_layout){0};
	uint32_t *order = calloc(m->nprocs ? m->nprocs : 1, sizeof(*order));
	g->bars = calloc(m->nprocs ? m->nprocs : 1, sizeof(*g->bars));
	g->rows = calloc((m->nprocs ? m->nprocs : 1) + 1, sizeof(*g->rows));
	int rc = -1;
	if (!order || !g->bars || !g->rows || tree_order(c, order, &g->n) < 0)
		goto out;
	g->per_proc = g->n <= max_rows;
	g->labels = calloc(g->n + 1, sizeof(*g->labels));
	if (!g->labels)
		goto out;
	if (g->per_proc) {
		rc = rows_per_proc(c, g, order);
		goto out;
	}
	/* one row per group; the smallest groups share an "other" row */
	if (rows_per_group(c, g, order) < 0 ||
	    ((unsigned)g->nrows > max_rows && fold_other(g, max_rows) < 0) || sort_rows(g) < 0)
		goto out;
	pack_lanes(c, g);
	rc = 0;
out:
	free(order);
	if (rc)
		plot_gantt_layout_free(g);
	return rc;
}
