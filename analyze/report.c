/* report.c - shared analysis helpers (report.h). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evq.h"
#include "json.h"
#include "progress.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"

/* TRACER_ANALYZE_PARTIAL=1 (set by --partial too): analyze unfinished or
 * damaged traces anyway */
int tza_partial(void)
{
	const char *e = getenv("TRACER_ANALYZE_PARTIAL");
	return e && *e && strcmp(e, "0");
}

int tza_check_whole(tz_reader *r, const char *path, int after_read)
{
	const struct tz_info *in = tz_reader_info(r);
	if (tza_partial())
		return 0;
	char cut[256];
	if (!after_read && in->unfinished && !in->ring && !in->live) {
		tza_err("'%s': %s; 'tracer-analyze recover' keeps what was sealed, "
			"'tracer-analyze --partial' analyzes it as is",
			path, tza_cut_text(cut, sizeof(cut), in)
				      ?: "truncated or unfinished trace (no footer)");
		return -1;
	}
	if (!after_read && !in->has_footer && !in->ring && !in->unfinished) {
		const char *msg = tz_reader_errmsg(r);
		char where[64];
		snprintf(where, sizeof(where), "'%s': index", path);
		tza_err("%s: footer index ignored, blocks found by scanning ('tracer-analyze "
			"verify' checks them, 'tracer-analyze recover' rewrites the index, "
			"'tracer-analyze --partial' analyzes it as is)",
			msg && *msg ? msg : where);
		return -1;
	}
	if (!after_read && in->live) {
		tza_err("'%s': still being written (the recorder is running); analyze it once "
			"recording ends, or now with 'tracer-analyze --partial'",
			path);
		return -1;
	}
	if (!after_read && in->unfinished) {
		tza_err("'%s': offset %llu: unfinished ring trace (final metadata slot empty: the "
			"recorder did not stop cleanly); 'tracer-analyze recover' keeps what was "
			"sealed, 'tracer-analyze --partial' analyzes it as is",
			path, (unsigned long long)in->unfinished_offset);
		return -1;
	}
	if (in->corrupt_blocks) {
		const char *msg = tz_reader_errmsg(r);
		char where[96];
		snprintf(where, sizeof(where), "'%s': offset %llu", path,
			 (unsigned long long)in->corrupt_first_offset);
		tza_err("%s: %llu damaged block%s (see 'tracer-analyze verify'; "
			"'tracer-analyze --partial' analyzes the rest)",
			msg && *msg ? msg : where, (unsigned long long)in->corrupt_blocks,
			in->corrupt_blocks > 1 ? "s" : "");
		return -1;
	}
	return 0;
}

int tza_load(const char *path, tz_reader **r, struct tza_model **m)
{
	return tza_load_ex(path, 0, r, m);
}

int tza_model_read(const char *path, tz_reader *r, uint64_t from_ns, uint64_t to_ns,
		   uint32_t flags, struct tza_model **out)
{
	tza_progress_begin(path, tz_reader_info(r)->chunks);
	int rc = tza_model_build_ex(r, from_ns, to_ns, flags, out);
	tza_progress_end();
	return rc;
}

int tza_load_ex(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m)
{
	*m = NULL;
	*r = tza_open(path, NULL);
	if (!*r)
		return -1;
	if (tza_check_whole(*r, path, 0) < 0)
		goto fail;
	int rc = tza_model_read(path, *r, 0, UINT64_MAX, flags, m);
	if (rc < 0) {
		const char *msg = tz_reader_errmsg(*r);
		if (msg && *msg)
			tza_err("%s", msg);
		else
			tza_err("'%s': %s", path, tz_strerror(rc));
		goto fail;
	}
	if (tza_check_whole(*r, path, 1) < 0)
		goto fail;
	if (tza_task_wanted() && tza_tasks_for(*m) < 0)
		goto fail;
	return 0;
fail:
	tza_model_free(*m);
	*m = NULL;
	tz_reader_free(*r);
	*r = NULL;
	return -1;
}

int tza_stdout_done(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tza_err("standard output: write failed");
		return TZA_EXIT_FAIL;
	}
	return TZA_EXIT_OK;
}

void tza_bad_option(const char *cmd, int argc, char **argv)
{
	const char *what = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	tza_err("%s: unknown option or missing argument: '%s' (see 'tracer-analyze %s --help')",
		cmd, what, cmd);
}

const char *tza_one_file(const char *cmd, int argc, char **argv)
{
	if (optind + 1 != argc) {
		tza_err("%s: expected one FILE (see 'tracer-analyze %s --help')", cmd, cmd);
		return NULL;
	}
	return argv[optind];
}

void tza_unload(tz_reader *r, struct tza_model *m)
{
	tza_tasks_release(m);
	tza_model_free(m);
	tz_reader_free(r);
}

int tza_parse_by(const char *opt, const char *s, enum tza_by *by)
{
	if (!strcmp(s, "exe"))
		*by = TZA_BY_EXE;
	else if (!strcmp(s, "tool"))
		*by = TZA_BY_TOOL;
	else if (!strcmp(s, "command"))
		*by = TZA_BY_COMMAND;
	else if (!strcmp(s, "task"))
		*by = TZA_BY_TASK;
	else if (!strcmp(s, "rule"))
		*by = TZA_BY_RULE;
	else if (!strcmp(s, "job"))
		*by = TZA_BY_JOB;
	else if (!strcmp(s, "container"))
		*by = TZA_BY_CONTAINER;
	else {
		tza_err("%s: '%s' is not one of exe, tool, command, task, rule, job, container",
			opt, s);
		return -1;
	}
	if (*by >= TZA_BY_TASK)
		tza_task_want();
	return 0;
}

const char *tza_by_header(enum tza_by by)
{
	static const char *const h[] = {"EXE", "TOOL", "COMMAND", "TASK", "RULE", "JOB", "CONTAINER"};
	return (unsigned)by < sizeof(h) / sizeof(h[0]) ? h[by] : "TOOL";
}

const char *tza_meta_any(tz_reader *r, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *v = tz_reader_meta_get(r, *keys);
		if (v && *v)
			return v;
	}
	return NULL;
}

const char *tza_trace_what(tz_reader *r, struct tza_model *m, char *buf, size_t n)
{
	static const char *const cmd_keys[] = {"command", "cmdline", "record_command", NULL};
	const char *v = tza_meta_any(r, cmd_keys), *mode = tz_reader_meta_get(r, "mode");
	if (v)
		return v;
	if (mode && !strcmp(mode, "system"))
		return "whole machine (tracer-record -a)";
	if (mode && !strcmp(mode, "pid")) {
		const char *pid = tz_reader_meta_get(r, "target_pid");
		snprintf(buf, n, "pid %s (tracer-record -p)", pid && *pid ? pid : "?");
		return buf;
	}
	for (uint32_t i = 0; i < m->nroots; i++)
		if (!(m->roots[i]->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD)))
			return tza_proc_key(m->roots[i], TZA_BY_COMMAND);
	return NULL;
}

int tza_realtime(tz_reader *r, uint64_t boot_ns, int64_t *rt)
{
	const char *off = tz_reader_meta_get(r, "realtime_offset_ns");
	if (off && *off) {
		char *end;
		long long v = strtoll(off, &end, 10);
		if (!*end) {
			*rt = (int64_t)boot_ns + v;
			return 0;
		}
	}
	return tz_reader_realtime(r, boot_ns, rt);
}

char *tza_fmt_utc(int64_t rt_ns, char *buf, size_t n)
{
	int64_t sec = rt_ns / 1000000000, ns = rt_ns % 1000000000;
	struct tm tm;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	time_t s = (time_t)sec;
	buf[0] = 0;
	if (!gmtime_r(&s, &tm))
		return buf;
	size_t l = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	if (l)
		snprintf(buf + l, n - l, ".%09ldZ", (long)ns);
	return buf;
}

/* a metadata number: decimal digits only (no sign, no junk), no overflow */
static int meta_u64(const char *v, uint64_t *out)
{
	uint64_t x = 0;
	if (!*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || x > (UINT64_MAX - 9) / 10)
			return 0;
		x = x * 10 + (uint64_t)(*v - '0');
	}
	*out = x;
	return 1;
}

unsigned tza_parse_cpus(const char *v)
{
	uint64_t x;
	return v && meta_u64(v, &x) && x >= 1 && x <= TZA_MAX_CPUS ? (unsigned)x : 0;
}

void tza_machine_get(tz_reader *r, struct tza_machine *mi)
{
	static const char *const cpus[] = {"cpus", "ncpus", "nr_cpus", "cpu_count",
					   "cpus_online", NULL};
	static const char *const memk[] = {"mem_total_kib", "memory_kib", "mem_kib",
					   "memtotal_kib", NULL};
	static const char *const memb[] = {"mem_total_bytes", "memory_bytes", "mem_bytes",
					   "memory", NULL};
	const char *v;
	uint64_t x;
	memset(mi, 0, sizeof(*mi));
	if ((v = tza_meta_any(r, cpus)))
		mi->ncpus = tza_parse_cpus(v);
	if ((v = tza_meta_any(r, memk)) && meta_u64(v, &x))
		mi->mem_kib = x;
	else if ((v = tza_meta_any(r, memb)) && meta_u64(v, &x))
		mi->mem_kib = x / 1024;
}

uint64_t tza_proc_end(const struct tza_model *m, const struct tza_proc *p)
{
	/* exit lost: its last event (end_ns), never the end of the trace */
	uint64_t e = (p->flags & TZA_P_NO_EXIT) && !(p->flags & TZA_P_EXIT_LOST) ? m->t1_ns
										: p->end_ns;
	return e < p->start_ns ? p->start_ns : e;
}

double tza_proc_cpu_at(const struct tza_proc *p, uint64_t t)
{
	int ended = !(p->flags & TZA_P_NO_EXIT) && p->end_ns;
	uint64_t t0 = tza_proc_charged_from(p); /* a slice's start for a clipped process */
	double c0 = 0;

	if (t <= t0)
		return 0;
	for (uint32_t i = 0; i <= p->res->nsamples; i++) {
		uint64_t t1;
		double c1;
		if (i < p->res->nsamples) {
			t1 = p->res->samples[i].ts_ns;
			c1 = (double)(p->res->samples[i].utime_ns + p->res->samples[i].stime_ns);
		} else if (ended) {
			t1 = p->end_ns;
			c1 = (double)(p->utime_ns + p->stime_ns);
		} else if (!p->res->nsamples && (p->flags & TZA_P_SAMPLED)) {
			/* samples not kept: the last one, which the model has */
			t1 = p->res->last.ts_ns;
			c1 = (double)(p->utime_ns + p->stime_ns);
		} else {
			return c0;
		}
		if (c1 < c0)
			c1 = c0;
		if (t <= t1)
			return t1 > t0 ? c0 + (c1 - c0) * (double)(t - t0) / (double)(t1 - t0) : c1;
		t0 = t1;
		c0 = c1;
	}
	return c0;
}

double tza_proc_cpu_in(const struct tza_proc *p, uint64_t a, uint64_t b)
{
	return b > a ? tza_proc_cpu_at(p, b) - tza_proc_cpu_at(p, a) : 0;
}

struct rss_step {
	uint64_t t;
	int64_t d; /* KiB */
};

static int cmp_rss_step(const void *a, const void *b)
{
	const struct rss_step *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d); /* at one time, what leaves first */
}

int tza_procs_peak_rss(const struct tza_model *m, uint64_t *kib, uint64_t *t_ns)
{
	return tza_procs_peak_rss_of(m->procs, m->nprocs, kib, t_ns);
}

int tza_procs_peak_rss_of(struct tza_proc *const *procs, uint32_t np, uint64_t *kib,
			  uint64_t *t_ns)
{
	size_t n = 0, k = 0;
	*kib = 0;
	*t_ns = 0;
	for (uint32_t i = 0; i < np; i++)
		if (procs[i]->res->nsamples)
			n += procs[i]->res->nsamples + 1;
	if (!n)
		return 0;
	struct rss_step *v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < np; i++) {
		const struct tza_proc *p = procs[i];
		int64_t prev = 0;
		for (uint32_t j = 0; j < p->res->nsamples; j++) {
			int64_t r = p->res->samples[j].rss_kib;
			v[k++] = (struct rss_step){p->res->samples[j].ts_ns, r - prev};
			prev = r;
		}
		/* an exit (or the last event of a lost one) takes it away */
		if (p->res->nsamples && p->end_ns && (!(p->flags & TZA_P_NO_EXIT) ||
						      (p->flags & TZA_P_EXIT_LOST)))
			v[k++] = (struct rss_step){p->end_ns, -prev};
	}
	qsort(v, k, sizeof(*v), cmp_rss_step);
	int64_t sum = 0;
	for (size_t i = 0; i < k; i++) {
		sum += v[i].d;
		if (sum > 0 && (uint64_t)sum > *kib) {
			*kib = (uint64_t)sum;
			*t_ns = v[i].t;
		}
	}
	free(v);
	return 0;
}

int tza_proc_failed(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_NO_EXIT) && (p->signal || p->exit_code != 0);
}

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
	if (!tza_evq_useful() || pthread_create(&pr->th, NULL, sweep_thread, pr))
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
	return g->wall_ns ? (double)g->cpu_ns / (double)g->wall_ns : 0;
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
	if (g->wall_ns >= SEC && cores < 0.3 && io / ((double)g->wall_ns / 1e9) >= 4.0 * 1048576)
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

/* Group index by key: open addressing over the key's hash, grown at half full. */
struct gmap {
	struct gslot {
		uint64_t hash;
		uint32_t g; /* group index + 1; 0: empty */
	} *s;
	uint32_t cap; /* a power of two */
};

static uint64_t key_hash(const char *k)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (; *k; k++)
		h = (h ^ (uint8_t)*k) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int gmap_grow(struct gmap *mp)
{
	uint32_t cap = mp->cap ? mp->cap * 2 : 64;
	struct gslot *ns = calloc(cap, sizeof(*ns));
	if (!ns)
		return -1;
	for (uint32_t i = 0; i < mp->cap; i++) {
		if (!mp->s[i].g)
			continue;
		uint32_t j = (uint32_t)mp->s[i].hash & (cap - 1);
		while (ns[j].g)
			j = (j + 1) & (cap - 1);
		ns[j] = mp->s[i];
	}
	free(mp->s);
	mp->s = ns;
	mp->cap = cap;
	return 0;
}

/* A process's span in its group: start (a pre-existing one's at the trace
 * start), end; returns its wall time (0: unknown, its exit was lost). */
static uint64_t group_span(const struct tza_model *m, const struct tza_proc *p, uint64_t *s,
			   uint64_t *e)
{
	*s = p->start_ns < m->t0_ns && (p->flags & TZA_P_PRE_EXISTING) ? m->t0_ns : tza_proc_charged_from(p);
	*e = tza_proc_end(m, p);
	return *e > *s && !(p->flags & TZA_P_EXIT_LOST) ? *e - *s : 0;
}

/* The group of key in g (made when new, its slot in mp). Returns its index,
 * or -1 when memory ran out (*g, *ng, *gcap as they were, or grown). */
static int64_t group_of(struct gmap *mp, struct tza_group **gp, uint32_t *ng, uint32_t *gcap,
			const char *key)
{
	struct tza_group *g = *gp;
	uint64_t h = key_hash(key);
	uint32_t j = (uint32_t)h & (mp->cap - 1);
	for (; mp->s[j].g; j = (j + 1) & (mp->cap - 1))
		if (mp->s[j].hash == h && !strcmp(g[mp->s[j].g - 1].key, key))
			return mp->s[j].g - 1;
	if (*ng == *gcap) {
		struct tza_group *ngp = realloc(g, 2 * (size_t)*gcap * sizeof(*g));
		if (!ngp)
			return -1;
		*gp = g = ngp;
		*gcap *= 2;
	}
	memset(&g[*ng], 0, sizeof(g[*ng]));
	g[*ng].key = key;
	g[*ng].first_ns = UINT64_MAX;
	mp->s[j] = (struct gslot){h, ++*ng};
	if (2 * (uint64_t)*ng > mp->cap && gmap_grow(mp) < 0)
		return -1;
	return *ng - 1;
}

/* p's figures added to its group x ([s, e] and wall: group_span). */
static void group_add(struct tza_group *x, const struct tza_proc *p, enum tza_by by, uint64_t s,
		      uint64_t e, uint64_t wall)
{
	x->count++;
	if (by >= TZA_BY_TASK && p->task && p->task->root == p) {
		x->tasks++;
		x->task_wall_ns += p->task->end_ns - p->task->start_ns;
		if (p->task->peak_rss_kib > x->task_peak_rss_kib)
			x->task_peak_rss_kib = p->task->peak_rss_kib;
	}
	x->wall_ns += wall;
	if (s < x->first_ns)
		x->first_ns = s;
	if (e > x->last_ns)
		x->last_ns = e;
	x->cpu_ns += tza_proc_cpu(p);
	if (wall) {
		double cores = (double)tza_proc_cpu(p) / (double)wall;
		/* never more cores than threads: the CPU of a process's
		 * release includes its exit path, after its wall time
		 * ends (docs/tracer-record.md EXIT TIMING) */
		if (p->threads && cores > p->threads)
			cores = p->threads;
		if (cores > x->max_cores)
			x->max_cores = cores;
	}
	if (p->maxrss_kib > x->peak_rss_kib)
		x->peak_rss_kib = p->maxrss_kib;
	x->rchar += p->rchar;
	x->wchar += p->wchar;
	x->syscr += p->syscr;
	x->syscw += p->syscw;
	x->read_bytes += p->read_bytes;
	x->write_bytes += p->write_bytes;
	if (by < TZA_BY_TASK)
		x->failed += tza_proc_failed(p) ? 1 : 0;
	else if (tza_proc_failed(p) || p->res->oom_killed)
		x->member_failures++;
	if (by >= TZA_BY_TASK && p->task && p->task->root == p && tza_task_failed(p->task))
		x->failed++;
	x->execs_failed += p->nfailed + p->nfailed_omitted;
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
	struct gmap mp = {NULL, 0};
	/* the critical processes' machine_cores terms, in index order: added to
	 * their groups after the sweep (the sums in the same order as ever) */
	struct crit_term {
		uint32_t g;	  /* group index */
		int prof;	  /* the term is v * (the CPU ns of [s, e]) / wall */
		double v;	  /* the term, or cns when prof */
		uint64_t s, e, wall;
	} *ct = NULL;
	uint32_t nct = 0;
	if (!g || gmap_grow(&mp) < 0)
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
	free(mp.s);
	free(ct);
	tza_profile_free(own);
	*out = g;
	*nout = ng;
	return 0;
fail:
	free(g);
	free(mp.s);
	free(ct);
	tza_profile_free(own);
	return -1;
}

/* ---------------------------------------------------------- formatting */

const char *tza_fmt_dur(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 3600 * SEC)
		snprintf(buf, size, "%lluh%02llum%02llus", (unsigned long long)(ns / (3600 * SEC)),
			 (unsigned long long)(ns / (60 * SEC) % 60),
			 (unsigned long long)(ns / SEC % 60));
	else if (ns >= 60 * SEC)
		snprintf(buf, size, "%llum%02llus", (unsigned long long)(ns / (60 * SEC)),
			 (unsigned long long)(ns / SEC % 60));
	else if (ns >= SEC)
		snprintf(buf, size, "%.3fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, size, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%lluus", (unsigned long long)(ns / 1000));
	return buf;
}

const char *tza_fmt_bytes(char *buf, size_t size, uint64_t b)
{
	static const char *const u[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	if (b < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)b);
		return buf;
	}
	double v = (double)b / 1024;
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, size, "%.1f %s", v, u[i]);
	return buf;
}

const char *tza_fmt_count(char *buf, size_t size, uint64_t n)
{
	char t[32];
	int len = snprintf(t, sizeof(t), "%llu", (unsigned long long)n), o = 0;
	for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = t[i];
	}
	buf[o] = 0;
	return buf;
}

double tza_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* bytes a word may hold and stay unquoted: [A-Za-z0-9] and "_./:=+,@%^-" */
static const uint8_t safe_tab[256] = {
	['_'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1, ['='] = 1, ['+'] = 1, [','] = 1,
	['@'] = 1, ['%'] = 1, ['^'] = 1, ['-'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

static int safe_char(uint8_t c)
{
	return safe_tab[c];
}

/* shell-quoted form of one argument appended to a line (see tza_text_arg) */
static void line_text_arg(struct tza_line *l, const uint8_t *s, size_t len);

size_t tza_text_arg(FILE *f, const uint8_t *s, size_t len)
{
	struct tza_line l = {0};
	size_t out;

	line_text_arg(&l, s, len);
	if (l.err) { /* out of memory: the bytes as they are, never nothing */
		tza_line_free(&l);
		fwrite(s, 1, len, f);
		return len;
	}
	out = l.n;
	tza_line_write(&l, f);
	tza_line_free(&l);
	return out;
}

void tza_text_argv(FILE *f, const uint8_t *argv, uint32_t len, size_t max)
{
	uint32_t i = 0;
	size_t out = 0;
	while (i < len) {
		const uint8_t *e = memchr(argv + i, 0, len - i);
		uint32_t n = e ? (uint32_t)(e - (argv + i)) : len - i;
		if (i) {
			fputc(' ', f);
			out++;
		}
		if (max && out + n > max) {
			/* as much of this word as fits, cut on a character boundary */
			size_t room = out < max ? max - out : 0;
			if (room >= 8 || !out) {
				if (room > n)
					room = n;
				while (room > 0 && room < n && (argv[i + room] & 0xc0) == 0x80)
					room--;
				tza_text_arg(f, argv + i, room);
			}
			fputs("...", f);
			return;
		}
		out += tza_text_arg(f, argv + i, n);
		i += n + 1;
	}
}

/* a C1 control (U+0080..U+009F) encoded in n UTF-8 bytes at s */
static int is_c1(const uint8_t *s, int n)
{
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

/* tza_text_argv (no limit) appending to a line; tza_text_arg writes the same */
static void line_text_arg(struct tza_line *l, const uint8_t *s, size_t len)
{
	size_t i;
	int plain = len > 0, printable = 1;
	for (i = 0; i < len; i++) {
		if (!s[i] || !safe_char(s[i]))
			plain = 0;
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\'')
			printable = 0;
		else if (s[i] >= 0x80) {
			int n = tza_utf8_len(s + i, len - i);
			if (!n || is_c1(s + i, n))
				printable = 0;
			else
				i += (size_t)n - 1;
		}
	}
	if (plain) {
		tza_line_put(l, s, len);
		return;
	}
	if (printable) {
		tza_line_putc(l, '\'');
		tza_line_put(l, s, len);
		tza_line_putc(l, '\'');
		return;
	}
	static const char hex[] = "0123456789abcdef";
	tza_line_lit(l, "$'");
	for (i = 0; i < len; i++) {
		uint8_t c = s[i];
		if (c == '\n') {
			tza_line_lit(l, "\\n");
		} else if (c == '\t') {
			tza_line_lit(l, "\\t");
		} else if (c == '\\' || c == '\'') {
			tza_line_putc(l, '\\');
			tza_line_putc(l, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			tza_line_put(l, x, 4);
		} else if (c >= 0x80) {
			int n = tza_utf8_len(s + i, len - i);
			if (!n || is_c1(s + i, n)) { /* C1: both bytes as \xHH */
				char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
				tza_line_put(l, x, 4);
			} else {
				tza_line_put(l, s + i, (size_t)n);
				i += (size_t)n - 1;
			}
		} else {
			tza_line_putc(l, (char)c);
		}
	}
	tza_line_putc(l, '\'');
}

void tza_line_text_argv(struct tza_line *l, const uint8_t *argv, uint32_t len)
{
	uint32_t i = 0;
	while (i < len) {
		const uint8_t *e = memchr(argv + i, 0, len - i);
		uint32_t n = e ? (uint32_t)(e - (argv + i)) : len - i;
		if (i)
			tza_line_putc(l, ' ');
		line_text_arg(l, argv + i, n);
		i += n + 1;
	}
}

const char *tza_cut_text(char *buf, size_t size, const struct tz_info *in)
{
	char a[32], b[32], e[32];
	size_t n = 0;
	if (!in->torn_tail_bytes)
		return NULL;
	if (in->torn_tail_what)
		n = (size_t)snprintf(buf, size,
				     "the file ends inside %s %" PRIu64 " at offset %" PRIu64
				     " (%s of its %s bytes",
				     in->torn_tail_what, in->torn_tail_seq, in->torn_tail_offset,
				     tza_fmt_count(a, sizeof(a), in->torn_tail_bytes),
				     tza_fmt_count(b, sizeof(b), in->torn_tail_block_bytes));
	else
		n = (size_t)snprintf(buf, size,
				     "the file ends inside a block at offset %" PRIu64
				     " (%s bytes, its header cut",
				     in->torn_tail_offset,
				     tza_fmt_count(a, sizeof(a), in->torn_tail_bytes));
	if (in->torn_tail_events && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; its %s event%s lost",
				      tza_fmt_count(e, sizeof(e), in->torn_tail_events),
				      tza_plural(in->torn_tail_events));
	if (n < size)
		snprintf(buf + n, size - n, "): cut or still being written");
	return buf;
}

void tza_print_recovered_loss(FILE *f, tz_reader *r)
{
	uint64_t n = 0, u = 0, off = 0, ev = 0;
	tz_reader_meta_u64(r, "recovered_damaged_blocks", &n);
	tz_reader_meta_u64(r, "recovered_unfinished", &u);
	const char *blk = tz_reader_meta_get(r, "recovered_cut_block");
	int cut = blk && !tz_reader_meta_u64(r, "recovered_cut_offset", &off);
	if (!n) { /* unfinished only: nothing left out, what was never sealed is missing */
		fputs("recovered from an unfinished file: what its recorder had not sealed was "
		      "not in it", f);
		return;
	}
	fprintf(f, "recover left out %" PRIu64 " damaged block%s of its input", n, tza_plural(n));
	if (cut) {
		fprintf(f, ", which ended inside %s at offset %" PRIu64, blk, off);
		if (!tz_reader_meta_u64(r, "recovered_cut_events", &ev) && ev)
			fprintf(f, " (its %" PRIu64 " event%s lost)", ev, tza_plural(ev));
	} else if (u) {
		fputs(", unfinished: what its recorder had not sealed was not in it", f);
	}
}
