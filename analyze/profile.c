/* SPDX-License-Identifier: BSD-2-Clause */
/* profile.c - the CPU profile of the recorded processes (report.h
 * tza_profile_*): CPU ns used before each asked time, by one sweep. */
#include <pthread.h>
#include <stdlib.h>

#include "evq.h"
#include "report.h"
#include "common/thread.h"

/* ------------------------------------------------------------ profile */

/* A point the profile is asked at: the CPU ns used before x (once swept). */
struct prof_pt {
	uint64_t x;
	double cum;
};

struct tza_profile {
	const struct tza_model *m;
	struct prof_pt *pt; /* [0, nswept): swept, by x, unique; then wanted */
	uint32_t n, nswept, cap;
	pthread_t th;	    /* the sweep of tza_profile_sweep_start, while busy */
	int busy, busy_rc;  /* joined by the next call that needs its answers */
};

struct tza_profile *tza_profile_new(const struct tza_model *m)
{
	struct tza_profile *pr = calloc(1, sizeof(*pr));
	if (pr)
		pr->m = m;
	return pr;
}

static int prof_sweep(struct tza_profile *pr);

/* Wait for a sweep started by tza_profile_sweep_start; its result */
static int prof_join(struct tza_profile *pr)
{
	if (!pr->busy)
		return 0;
	pthread_join(pr->th, NULL);
	pr->busy = 0;
	return pr->busy_rc;
}

static void *sweep_thread(void *arg)
{
	struct tza_profile *pr = arg;
	pr->busy_rc = prof_sweep(pr);
	return NULL;
}

int tza_profile_sweep_start(struct tza_profile *pr)
{
	if (pr->busy)
		return 0;
	if (pr->nswept == pr->n) /* nothing new to answer */
		return 0;
	if (!tza_evq_useful() || tr_thread_start(&pr->th, sweep_thread, pr))
		return prof_sweep(pr); /* here, now */
	pr->busy = 1;
	return 0;
}

void tza_profile_free(struct tza_profile *pr)
{
	if (!pr)
		return;
	prof_join(pr);
	free(pr->pt);
	free(pr);
}

static int want_pt(struct tza_profile *pr, uint64_t x)
{
	if (pr->n == pr->cap) {
		uint32_t cap = pr->cap ? 2 * pr->cap : 16;
		struct prof_pt *p =
			cap > pr->cap ? realloc(pr->pt, (size_t)cap * sizeof(*p)) : NULL;
		if (!p)
			return -1;
		pr->pt = p;
		pr->cap = cap;
	}
	pr->pt[pr->n++] = (struct prof_pt){x, 0};
	return 0;
}

int tza_profile_want(struct tza_profile *pr, uint64_t a, uint64_t b)
{
	if (b <= a)
		return 0;
	if (prof_join(pr) < 0)
		return -1;
	return want_pt(pr, a) < 0 || want_pt(pr, b) < 0 ? -1 : 0;
}

/*
 * The profile is a list of steps: at each process's start its rate (cores)
 * is added, at its end taken away. The sweep takes them in time order, equal
 * times in the order of the list [start of process 0, end of process 0,
 * start of 1, end of 1, ...] (a stable sort of that list: the sums of
 * doubles depend on it), merges equal times into one step, and answers the
 * points as it passes them: cum + rate * (x - t) of the last step at or
 * before x. It starts as a step at 0 with no rate: a point before the
 * first step is 0 (0 + 0 * (x - 0)), a first step at 0 merges with it.
 */
struct sweep {
	uint64_t t;    /* the last step's time */
	double cum;    /* CPU ns used before t */
	double rate;   /* cores in use from t on (clamped at 0) */
	double run;    /* the sum of the rate changes so far (unclamped) */
	uint64_t next; /* x of the next point unanswered (UINT64_MAX: none) */
	struct prof_pt *pt;
	uint32_t npt, q; /* points by x; the next one unanswered */
};

/* Answer the points before t (the step at t comes next). */
static void sweep_answer(struct sweep *w, uint64_t t)
{
	for (; w->q < w->npt && w->pt[w->q].x < t; w->q++)
		w->pt[w->q].cum = w->cum + w->rate * (double)(w->pt[w->q].x - w->t);
	w->next = w->q < w->npt ? w->pt[w->q].x : UINT64_MAX;
}

static inline void sweep_step(struct sweep *w, uint64_t t, double d)
{
	if (t != w->t) {
		if (t > w->next)
			sweep_answer(w, t);
		w->cum += w->rate * (double)(t - w->t);
		w->t = t;
	}
	w->run += d;
	w->rate = w->run < 0 ? 0 : w->run;
}

static void sweep_init(struct sweep *w, struct prof_pt *pt, uint32_t npt)
{
	*w = (struct sweep){.pt = pt, .npt = npt, .next = npt ? pt[0].x : UINT64_MAX};
}

/* A process in the profile: its life [*a, *b) and rate; 0 when it has none
 * (no CPU, or no life: its CPU is in no window). */
static int prof_proc(const struct tza_model *m, const struct tza_proc *p, uint64_t *a,
		     uint64_t *b, double *rate)
{
	*a = tza_proc_charged_from(p); /* pre-existing: from the recording's start */
	*b = tza_proc_end(m, p);
	if ((p->flags & TZA_P_SAMPLED) && p->res->last.ts_ns > *a) /* CPU up to it */
		*b = p->res->last.ts_ns;
	*rate = 0;
	if (*b <= *a || !tza_proc_cpu(p))
		return 0;
	*rate = (double)tza_proc_cpu(p) / (double)(*b - *a);
	return 1;
}

/* An end step waiting in the heap: time, the process's rate and index
 * (equal times: the lower index first). */
struct end_step {
	uint64_t t;
	double d;
	uint32_t j;
};

static int end_before(const struct end_step *x, uint64_t t, uint32_t j)
{
	return x->t < t || (x->t == t && x->j < j);
}

static void heap_up(struct end_step *h, uint32_t i, struct end_step v)
{
	while (i) {
		uint32_t up = (i - 1) / 2;
		if (!end_before(&v, h[up].t, h[up].j))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = v;
}

/* h[0] replaced by v: v goes down to its place. */
static void heap_down(struct end_step *h, uint32_t n, struct end_step v)
{
	uint32_t i = 0, c;
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && end_before(&h[c + 1], h[c].t, h[c].j))
			c++;
		if (!end_before(&h[c], v.t, v.j))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/*
 * The sweep over a model sorted by start (m->procs is): starts in process
 * order, the ends of the processes alive in a heap (their number is all the
 * memory it takes). A start usually follows one end: the start's own end
 * takes that end's place at the top (one sift instead of two). Returns 0,
 * 1 when a start is out of order (nothing answered then), -1 when out of
 * memory.
 */
static int sweep_sorted(const struct tza_model *m, struct sweep *w)
{
	struct end_step *h = NULL;
	uint32_t nh = 0, cap = 0;
	uint64_t last = 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		uint64_t a, b;
		double rate;
		if (!prof_proc(m, m->procs[i], &a, &b, &rate))
			continue;
		if (a < last) {
			free(h);
			return 1;
		}
		last = a;
		struct end_step v = {b, rate, i}; /* b > a: after this start */
		if (nh && end_before(&h[0], a, i)) {
			sweep_step(w, h[0].t, -h[0].d);
			heap_down(h, nh, v);
			while (end_before(&h[0], a, i)) {
				sweep_step(w, h[0].t, -h[0].d);
				nh--;
				heap_down(h, nh, h[nh]);
			}
		} else {
			if (nh == cap) {
				uint32_t nc = cap ? 2 * cap : 256;
				struct end_step *g =
					nc > cap ? realloc(h, (size_t)nc * sizeof(*h)) : NULL;
				if (!g) {
					free(h);
					return -1;
				}
				h = g;
				cap = nc;
			}
			heap_up(h, nh++, v);
		}
		sweep_step(w, a, rate);
	}
	while (nh) {
		sweep_step(w, h[0].t, -h[0].d);
		if (--nh)
			heap_down(h, nh, h[nh]);
	}
	free(h);
	return 0;
}

struct step {
	uint64_t t;
	double d;
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The sweep over a model not sorted by start: the whole list sorted. */
static int sweep_unsorted(const struct tza_model *m, struct sweep *w)
{
	struct step *all = malloc(2 * ((size_t)m->nprocs + 1) * sizeof(*all));
	size_t n = 0;
	if (!all)
		return -1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		uint64_t a, b;
		double rate;
		if (!prof_proc(m, m->procs[i], &a, &b, &rate))
			continue;
		all[n++] = (struct step){a, rate};
		all[n++] = (struct step){b, -rate};
	}
	qsort(all, n, sizeof(*all), cmp_step);
	for (size_t i = 0; i < n; i++)
		sweep_step(w, all[i].t, all[i].d);
	free(all);
	return 0;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct prof_pt *x = a, *y = b;
	return x->x < y->x ? -1 : x->x > y->x;
}

/* Answer every point, swept before or wanted since: one sweep. */
static int prof_sweep(struct tza_profile *pr)
{
	uint32_t n = 0;
	qsort(pr->pt, pr->n, sizeof(*pr->pt), cmp_pt);
	for (uint32_t i = 0; i < pr->n; i++)
		if (!n || pr->pt[i].x != pr->pt[n - 1].x)
			pr->pt[n++] = pr->pt[i];
	struct sweep w;
	sweep_init(&w, pr->pt, n);
	int rc = sweep_sorted(pr->m, &w);
	if (rc == 1) {
		sweep_init(&w, pr->pt, n);
		rc = sweep_unsorted(pr->m, &w);
	}
	pr->n = n;
	if (rc < 0) {
		pr->nswept = 0; /* all wanted again */
		return -1;
	}
	sweep_answer(&w, UINT64_MAX);
	if (w.q < w.npt) /* a point at UINT64_MAX */
		w.pt[w.q].cum = w.cum + w.rate * (double)(w.pt[w.q].x - w.t);
	pr->nswept = n;
	return 0;
}

static const struct prof_pt *prof_find(const struct tza_profile *pr, uint64_t x)
{
	uint32_t lo = 0, hi = pr->nswept;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pr->pt[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pr->nswept && pr->pt[lo].x == x ? &pr->pt[lo] : NULL;
}

int tza_profile_cpu_ns(struct tza_profile *pr, uint64_t a, uint64_t b, double *ns)
{
	*ns = 0;
	if (b <= a)
		return 0;
	if (prof_join(pr) < 0)
		return -1;
	const struct prof_pt *pa = prof_find(pr, a), *pb = prof_find(pr, b);
	if (!pa || !pb) {
		if (tza_profile_want(pr, a, b) < 0 || prof_sweep(pr) < 0)
			return -1;
		pa = prof_find(pr, a);
		pb = prof_find(pr, b);
	}
	*ns = pb->cum - pa->cum;
	return 0;
}
