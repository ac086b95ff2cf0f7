/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diff_hosts.c - `tracer-analyze diff` when a run was recorded on several
 * hosts (a multi-host trace or a directory of traces, fleet.h): each run's
 * groups summed over its hosts, then compared as two single traces are
 * (diff.h). A process held by two overlapping traces of one host counts
 * once (FORMAT.md [X3]); a run's makespan is its first root start to its
 * last root end on the wall clock (on the one clock of traces that share a
 * boot id), as critical-path over hosts says it.
 * docs/tracer-analyze.md, "MANY HOSTS".
 */
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "diff.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "report.h"

/* One run: its groups over every host (keys owned), its span. */
struct run {
	struct tza_group *g;
	size_t ng, cap;
	size_t hosts;	/* distinct hostnames */
	size_t traces;	/* host traces */
	char **names;	/* the distinct hostnames (owned) */
	int64_t r0, r1; /* wall clock ns, when have_span */
	int have_span;	/* a host had a root */
	uint64_t one_ns; /* a run of one host: its own makespan */
};

static void run_free(struct run *u)
{
	for (size_t i = 0; i < u->ng; i++)
		free((char *)u->g[i].key);
	free(u->g);
	for (size_t i = 0; i < u->hosts; i++)
		free(u->names[i]);
	free(u->names);
	memset(u, 0, sizeof(*u));
}

/* Count hostname hn among u's hosts (two traces of one host: one host; a
 * trace that names none is a host of its own, as tza_hosts_distinct
 * counts). 0, or -1 out of memory. Quadratic in hosts, a few hundred at
 * most. */
static int add_host(struct run *u, const char *hn, size_t cap)
{
	for (size_t i = 0; *hn && i < u->hosts; i++)
		if (!strcmp(u->names[i], hn))
			return 0;
	if (!u->names && !(u->names = calloc(cap ? cap : 1, sizeof(*u->names))))
		return -1;
	if (!(u->names[u->hosts] = strdup(hn)))
		return -1;
	u->hosts++;
	return 0;
}

/* Add host groups g[0..n) to u, keys copied. 0, or -1 out of memory. */
static int add_groups(struct run *u, const struct tza_group *g, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		if (VEC_ROOM(u->g, u->ng, u->cap, 64))
			return -1;
		u->g[u->ng] = g[k];
		if (!(u->g[u->ng].key = strdup(g[k].key)))
			return -1;
		u->ng++;
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct tza_group *)a)->key, ((const struct tza_group *)b)->key);
}

#define MAXV(a, b) ((a) > (b) ? (a) : (b))

/* b added into a: counts and times summed, peaks the larger, spans joined */
static void fold(struct tza_group *a, const struct tza_group *b)
{
	a->count += b->count;
	a->wall_ns += b->wall_ns;
	a->cores_wall_ns += b->cores_wall_ns;
	a->cpu_ns += b->cpu_ns;
	a->max_cores = MAXV(a->max_cores, b->max_cores);
	a->peak_rss_kib = MAXV(a->peak_rss_kib, b->peak_rss_kib);
	a->rss_known += b->rss_known;
	TZA_IO_ADD(a, b);
	a->critical_ns += b->critical_ns;
	a->failed += b->failed;
	a->member_failures += b->member_failures;
	a->execs_failed += b->execs_failed;
	a->flags |= b->flags;
	a->tasks += b->tasks;
	a->task_wall_ns += b->task_wall_ns;
	a->task_peak_rss_kib = MAXV(a->task_peak_rss_kib, b->task_peak_rss_kib);
	a->task_rss_known += b->task_rss_known;
	/* spans are each host's own clock: not comparable across hosts */
	a->first_ns = a->last_ns = 0;
	a->machine_cores = 0;
}

/* u's groups sorted by key, one per key. */
static void fold_all(struct run *u)
{
	size_t n = 0;
	if (u->ng)
		qsort(u->g, u->ng, sizeof(*u->g), cmp_key);
	for (size_t i = 0; i < u->ng; i++) {
		if (n && !strcmp(u->g[n - 1].key, u->g[i].key)) {
			fold(&u->g[n - 1], &u->g[i]);
			free((char *)u->g[i].key);
		} else {
			u->g[n++] = u->g[i];
		}
	}
	u->ng = n;
}

/* Host i of f into u: its groups (without the processes an earlier trace
 * of its host held) and its root's span on the wall clock. */
static int one_host(struct run *u, struct tza_fleet *f, size_t i, struct tza_fleet_seen *seen,
		    enum tza_by by)
{
	tz_reader *r;
	struct tza_model *m;
	const char *hn;
	struct tza_crit c;
	struct tza_machine mi;
	struct tza_group *g = NULL;
	uint32_t ng = 0;
	uint8_t *skip = NULL;
	int rc = -1;
	memset(&c, 0, sizeof(c));
	if (tza_fleet_load(f, i, TZA_MB_SAMPLES, &r, &m, &hn) < 0)
		return -1;
	if (!(skip = calloc(m->nprocs ? m->nprocs : 1, 1)))
		goto oom;
	for (uint32_t k = 0; k < m->nprocs; k++) {
		const struct tza_proc *p = m->procs[k];
		skip[k] = (uint8_t)tza_fleet_seen_before(seen, f, i, p->pid, p->start_ns);
		if (tza_fleet_seen_add(seen, i, p->pid, p->start_ns))
			goto oom;
	}
	tza_fleet_seen_seal(seen, i);
	if (add_host(u, hn ? hn : "", f->n) < 0)
		goto oom;
	tza_machine_get(r, &mi);
	if (tza_critpath(m, by, &c) < 0 || tza_groups_skip(m, by, NULL, &mi, NULL, skip, &g, &ng) < 0 ||
	    add_groups(u, g, ng) < 0)
		goto oom;
	u->one_ns = c.makespan_ns;
	if (c.root) {
		struct tza_host_clock hc;
		int64_t w0 = (int64_t)c.start_ns, w1 = (int64_t)c.end_ns;
		/* one boot id: one clock, compared exactly; else by wall clock */
		if (!tza_fleet_one_clock(f) &&
		    (tza_host_clock_anchor("diff", r, f->h[i].name, hn, c.start_ns, &hc, &w0) < 0 ||
		     tza_host_clock_anchor("diff", r, f->h[i].name, hn, c.end_ns, &hc, &w1) < 0))
			goto out;
		if (!u->have_span || w0 < u->r0)
			u->r0 = w0;
		if (!u->have_span || w1 > u->r1)
			u->r1 = w1;
		u->have_span = 1;
	}
	rc = 0;
	goto out;
oom:
	tza_err("diff: out of memory");
out:
	free(g);
	free(skip);
	tza_crit_free(&c);
	tza_unload(r, m);
	return rc;
}

/* Read the run named by path (a trace, a merge, a directory). 0, or -1
 * after one line. */
static int run_load(const char *path, enum tza_by by, struct run *u)
{
	struct tza_fleet f;
	struct tza_fleet_seen seen;
	char *args[1] = {(char *)path};
	int rc = -1;
	memset(&seen, 0, sizeof(seen));
	if (tza_fleet_open("diff", args, 1, &f))
		goto out;
	if (tza_fleet_seen_init(&seen, f.n)) {
		tza_err("diff: out of memory");
		goto out;
	}
	size_t i = 0;
	while (i < f.n && !one_host(u, &f, i, &seen, by))
		i++;
	if (i < f.n)
		goto out;
	u->traces = f.n;
	fold_all(u);
	rc = 0;
out:
	tza_fleet_seen_free(&seen);
	tza_fleet_free(&f);
	return rc;
}

/* a run's makespan: one host's own (as single-trace diff says it), else
 * its roots' span on the wall clock */
static uint64_t makespan(const struct run *u)
{
	if (u->traces == 1)
		return u->one_ns;
	return u->have_span && u->r1 > u->r0 ? (uint64_t)(u->r1 - u->r0) : 0;
}

int tza_diff_hosts(FILE *o, const char *pa, const char *pb, enum tza_by by, int json,
		   uint64_t limit)
{
	struct run A, B;
	int rc = TZA_EXIT_FAIL;
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	if (!run_load(pa, by, &A) && !run_load(pb, by, &B) && A.ng <= UINT32_MAX &&
	    B.ng <= UINT32_MAX) {
		struct tza_diff_head h = {.a = pa,
					  .b = pb,
					  .makespan_a_ns = makespan(&A),
					  .makespan_b_ns = makespan(&B),
					  .hosts_a = A.hosts,
					  .hosts_b = B.hosts,
					  .traces_a = A.traces,
					  .traces_b = B.traces};
		rc = tza_diff_show(o, &h, by, json, limit, A.g, (uint32_t)A.ng, B.g, (uint32_t)B.ng);
	}
	run_free(&A);
	run_free(&B);
	return rc;
}
