/* SPDX-License-Identifier: BSD-2-Clause */
/* groups.c - processes grouped by a key (report.h tza_groups*): totals,
 * flags, the host's busy share. */
#include <stdlib.h>
#include <string.h>

#include "common/strmap.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"

/* ------------------------------------------------------------- groups */

int tza_key_width(const char *const *keys, size_t stride, uint32_t n)
{
	int w = 28;
	for (uint32_t i = 0; i < n; i++) {
		const char *k = *(const char *const *)((const char *)keys + i * stride);
		size_t l = tza_safe_cols(k); /* the escaped text's width */
		if ((int)l > w)
			w = l > TZA_KEY_MAX ? TZA_KEY_MAX : (int)l;
	}
	return w;
}

void tza_put_key(FILE *f, const char *key, int width)
{
	char *d = tza_safe_dup(key);
	const char *s = d ? d : "?";
	size_t cols = tza_text_cols(s);
	if (cols > TZA_KEY_MAX) { /* keep the end: ".../bin/tool" */
		size_t skip = cols - (TZA_KEY_MAX - 3);
		while (skip)
			skip -= (*++s & 0xc0) != 0x80;
		fprintf(f, "...%s", s);
	} else {
		fputs(s, f);
		for (int i = (int)cols; i < width; i++)
			fputc(' ', f);
	}
	free(d);
}

const char *const tza_flag_names[5] = {"serial_bottleneck", "io_bound", "memory_heavy",
				       "spawn_overhead", "failed"};

double tza_group_cores(const struct tza_group *g)
{
	return g->cores_wall_ns ? (double)g->cpu_ns / (double)g->cores_wall_ns : 0;
}

int tza_group_peak(const struct tza_group *g, uint64_t *kib)
{
	int known = g->tasks ? g->task_rss_known != 0 : g->rss_known || !g->count;
	*kib = !known ? 0 : g->tasks ? g->task_peak_rss_kib : g->peak_rss_kib;
	return known;
}

static int cmp_group_cpu(const void *a, const void *b)
{
	const struct tza_group *x = a, *y = b;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	if (x->wall_ns != y->wall_ns)
		return x->wall_ns > y->wall_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

#define SEC 1000000000ULL

static void decide_flags(struct tza_group *g, const struct tza_crit *c,
			 const struct tza_machine *mi, unsigned ncpus)
{
	double cores = tza_group_cores(g);
	/* long on the critical path, about one core (a sleeper waits, it is no
	 * bottleneck), the machine mostly idle */
	if (c && c->makespan_ns && g->critical_ns >= SEC &&
	    (double)g->critical_ns >= 0.20 * (double)c->makespan_ns && cores >= 0.5 &&
	    cores <= 1.5 && ncpus >= 2 && g->machine_cores <= 0.6 * ncpus)
		g->flags |= TZA_G_SERIAL;
	/* low CPU%, high storage I/O: under 30% of a core, at least 4 MiB/s read
	 * or written to storage (pipe traffic in rchar/wchar is waiting on a
	 * partner process, not I/O-bound) */
	double io = (double)(g->read_bytes + g->write_bytes);
	if (g->cores_wall_ns >= SEC && cores < 0.3 &&
	    io / ((double)g->cores_wall_ns / 1e9) >= 4.0 * 1048576)
		g->flags |= TZA_G_IO;
	if (mi->mem_kib && g->peak_rss_kib * 2 >= mi->mem_kib)
		g->flags |= TZA_G_MEM;
	if (g->count >= 1000 && g->wall_ns / g->count <= 50000000ULL)
		g->flags |= TZA_G_SPAWN;
	if (g->failed)
		g->flags |= TZA_G_FAILED;
}

/* Cumulative host CPU ns (busy and total, all CPUs) at x, interpolated
 * between the host samples around it (clamped to the first and last). */
static void host_at(const struct tza_model *m, uint64_t x, double *busy, double *total)
{
	const struct tza_host_sample *h = m->host;
	uint32_t lo = 0, hi = m->nhost;
	while (lo < hi) { /* first sample after x */
		uint32_t mid = lo + (hi - lo) / 2;
		if (h[mid].ts_ns <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == m->nhost) {
		const struct tza_host_sample *e = &h[lo ? m->nhost - 1 : 0];
		*busy = (double)e->busy_ns;
		*total = (double)e->total_ns;
		return;
	}
	const struct tza_host_sample *a = &h[lo - 1], *b = &h[lo];
	double f = b->ts_ns > a->ts_ns ? (double)(x - a->ts_ns) / (double)(b->ts_ns - a->ts_ns) : 0;
	*busy = (double)a->busy_ns + f * ((double)b->busy_ns - (double)a->busy_ns);
	*total = (double)a->total_ns + f * ((double)b->total_ns - (double)a->total_ns);
}

double tza_host_busy(const struct tza_model *m, uint64_t a, uint64_t b)
{
	if (m->nhost < 2 || b <= a || b < m->host[0].ts_ns || a > m->host[m->nhost - 1].ts_ns)
		return -1;
	double b0, t0, b1, t1;
	if (a < m->host[0].ts_ns) /* a window around the first sample: the first interval */
		a = m->host[0].ts_ns;
	if (b > m->host[m->nhost - 1].ts_ns)
		b = m->host[m->nhost - 1].ts_ns;
	if (b <= a) { /* inside one interval's edge: that interval */
		uint32_t i = a <= m->host[0].ts_ns ? 1 : m->nhost - 1;
		a = m->host[i - 1].ts_ns;
		b = m->host[i].ts_ns;
	}
	host_at(m, a, &b0, &t0);
	host_at(m, b, &b1, &t1);
	return t1 > t0 ? (b1 - b0) / (t1 - t0) : -1;
}

/* strmap_eq over the groups' keys (ctx: the group array) */
static int group_eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	const struct tza_group *g = ctx;
	return !strncmp(g[idx].key, s, n) && !g[idx].key[n];
}

/* A process's span in its group: start (a pre-existing one's at the trace
 * start), end; returns its wall time (0: unknown, its exit was lost). */
static uint64_t group_span(const struct tza_model *m, const struct tza_proc *p, uint64_t *s,
			   uint64_t *e)
{
	*s = tza_proc_span_start(m, p);
	*e = tza_proc_end(m, p);
	return *e > *s && !(p->flags & TZA_P_EXIT_LOST) ? *e - *s : 0;
}

/* The group of key in g (made when new, indexed in mp). Returns its index,
 * or -1 when memory ran out (*g, *ng, *gcap as they were, or grown). */
static int64_t group_of(struct strmap *mp, struct tza_group **gp, uint32_t *ng, uint32_t *gcap,
			const char *key)
{
	int added;
	int64_t i = strmap_intern(mp, key, strlen(key), group_eq, *gp, &added);
	if (i < 0 || !added)
		return i;
	if (*ng == *gcap) {
		struct tza_group *ngp = realloc(*gp, 2 * (size_t)*gcap * sizeof(**gp));
		if (!ngp)
			return -1;
		*gp = ngp;
		*gcap *= 2;
	}
	struct tza_group *g = &(*gp)[*ng];
	memset(g, 0, sizeof(*g));
	g->key = key;
	g->first_ns = UINT64_MAX;
	return (*ng)++;
}

/* p's figures added to its group x ([s, e] and wall: group_span). */
static void group_add(struct tza_group *x, const struct tza_proc *p, enum tza_by by, uint64_t s,
		      uint64_t e, uint64_t wall)
{
	x->count++;
	if (by >= TZA_BY_TASK && p->task && p->task->root == p) {
		x->tasks++;
		x->task_wall_ns += p->task->end_ns - p->task->start_ns;
		x->cores_wall_ns += p->task->end_ns - p->task->start_ns;
		if (tza_task_rss_known(p->task)) {
			x->task_rss_known++;
			if (p->task->peak_rss_kib > x->task_peak_rss_kib)
				x->task_peak_rss_kib = p->task->peak_rss_kib;
		}
	}
	/* a task's members count once, in its wall: a job's wrapper shells
	 * waiting on its tool do not dilute its cores */
	if (by < TZA_BY_TASK || !p->task)
		x->cores_wall_ns += wall;
	x->wall_ns += wall;
	if (s < x->first_ns)
		x->first_ns = s;
	if (e > x->last_ns)
		x->last_ns = e;
	x->cpu_ns += tza_proc_cpu(p);
	if (by >= TZA_BY_TASK && p->task) {
		/* task groupings: the cores of one task, its root standing for it */
		double cores = p->task->root == p ? tza_task_cores(p->task) : 0;
		if (cores > x->max_cores)
			x->max_cores = cores;
	} else if (wall) {
		double cores = (double)tza_proc_cpu(p) / (double)wall;
		/* never more cores than threads: the CPU of a process's
		 * release includes its exit path, after its wall time
		 * ends (docs/tracer-record.md EXIT TIMING) */
		if (p->threads && cores > p->threads)
			cores = p->threads;
		if (cores > x->max_cores)
			x->max_cores = cores;
	}
	uint64_t rss = tza_proc_tool_peak_rss_kib(p); /* its tool's images' */
	if (rss > x->peak_rss_kib)
		x->peak_rss_kib = rss;
	if (!(p->flags & TZA_P_RSS_UNKNOWN) || rss)
		x->rss_known++;
	TZA_IO_ADD(x, p);
	if (by < TZA_BY_TASK)
		x->failed += tza_proc_failed(p) ? 1 : 0;
	else if (tza_proc_failed(p) || p->res->oom_killed)
		x->member_failures++;
	if (by >= TZA_BY_TASK && p->task && p->task->root == p && tza_task_failed(p->task))
		x->failed++;
	x->execs_failed += p->nfailed + p->res->nfailed_omitted;
}

int tza_groups(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
	       const struct tza_machine *mi, struct tza_group **out, uint32_t *nout)
{
	return tza_groups_ex(m, by, c, mi, NULL, out, nout);
}

int tza_groups_ex(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
		  const struct tza_machine *mi, struct tza_profile *prof,
		  struct tza_group **out, uint32_t *nout)
{
	return tza_groups_skip(m, by, c, mi, prof, NULL, out, nout);
}

int tza_groups_skip(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
		    const struct tza_machine *mi, struct tza_profile *prof, const uint8_t *skip,
		    struct tza_group **out, uint32_t *nout)
{
	/* the machine's CPUs: host samples (when kept: TZA_MB_SAMPLES) say how
	 * busy the whole machine was; without them, the traced processes' CPU
	 * is all we know */
	unsigned ncpus = mi->ncpus;
	int host = m->nhost >= 2;
	if (host && m->host[m->nhost - 1].ncpus)
		ncpus = m->host[m->nhost - 1].ncpus;
	uint32_t n = m->nprocs, ng = 0, gcap = 16;
	struct tza_group *g = malloc(gcap * sizeof(*g));
	struct tza_profile *own = NULL; /* made on first need when prof is NULL */
	struct strmap mp = {0}; /* key -> group index */
	/* the critical processes' machine_cores terms, in index order: added to
	 * their groups after the sweep (the sums in the same order as ever) */
	struct crit_term {
		uint32_t g;	  /* group index */
		int prof;	  /* the term is v * (the CPU ns of [s, e]) / wall */
		double v;	  /* the term, or cns when prof */
		uint64_t s, e, wall;
	} *ct = NULL;
	uint32_t nct = 0;
	if (!g)
		goto fail;
	if (c && c->proc_ns && c->npath && !(ct = malloc(c->npath * sizeof(*ct))))
		goto fail;
	/* the windows of the critical processes that take the profile (below),
	 * wanted first: the first answer sweeps once for all */
	for (uint32_t i = 0; c && c->proc_ns && i < c->npath; i++) {
		const struct tza_proc *p = c->path[i];
		uint64_t s, e, wall = group_span(m, p, &s, &e);
		if (!c->proc_ns[p->index] || !wall || (host && tza_host_busy(m, s, e) >= 0))
			continue;
		if (!prof && !(prof = own = tza_profile_new(m)))
			goto fail;
		if (tza_profile_want(prof, s, e) < 0)
			goto fail;
	}
	/* answered on a second thread while the groups are summed */
	if (prof && tza_profile_sweep_start(prof) < 0)
		goto fail;
	/* processes in index order: each group sums its members in that order
	 * (the double sums depend on it) */
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		if (skip && skip[i])
			continue;
		int64_t gi = group_of(&mp, &g, &ng, &gcap, tza_proc_key(p, by));
		if (gi < 0)
			goto fail;
		struct tza_group *x = &g[gi];
		uint64_t s, e, wall = group_span(m, p, &s, &e);
		group_add(x, p, by, s, e, wall);
		uint64_t cns = c && c->proc_ns ? c->proc_ns[p->index] : 0;
		if (cns) {
			x->critical_ns += cns;
			double hb = host ? tza_host_busy(m, s, e) : -1;
			if (hb >= 0)
				ct[nct++] = (struct crit_term){(uint32_t)(x - g), 0,
							       (double)cns * hb * ncpus, 0, 0, 0};
			else if (wall)
				ct[nct++] = (struct crit_term){(uint32_t)(x - g), 1, (double)cns,
							       s, e, wall};
		}
	}
	for (uint32_t i = 0; i < nct; i++) {
		double v = ct[i].v;
		if (ct[i].prof) {
			double cpu;
			if (!prof && !(prof = own = tza_profile_new(m)))
				goto fail;
			if (tza_profile_cpu_ns(prof, ct[i].s, ct[i].e, &cpu) < 0)
				goto fail;
			v = v * cpu / (double)ct[i].wall;
		}
		g[ct[i].g].machine_cores += v;
	}
	for (uint32_t i = 0; i < ng; i++) {
		if (g[i].critical_ns)
			g[i].machine_cores /= (double)g[i].critical_ns;
		if (g[i].first_ns == UINT64_MAX)
			g[i].first_ns = 0;
		decide_flags(&g[i], c, mi, ncpus);
	}
	qsort(g, ng, sizeof(*g), cmp_group_cpu);
	strmap_free(&mp);
	free(ct);
	tza_profile_free(own);
	*out = g;
	*nout = ng;
	return 0;
fail:
	free(g);
	strmap_free(&mp);
	free(ct);
	tza_profile_free(own);
	return -1;
}
