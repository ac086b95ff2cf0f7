/* report.c - shared analysis helpers (report.h). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* TRACER_ANALYZE_PARTIAL=1 (set by --partial too): analyze unfinished or
 * damaged traces anyway */
static int partial_ok(void)
{
	const char *e = getenv("TRACER_ANALYZE_PARTIAL");
	return e && *e && strcmp(e, "0");
}

int tza_check_whole(tz_reader *r, const char *path, int after_read)
{
	const struct tz_info *in = tz_reader_info(r);
	if (partial_ok())
		return 0;
	if (!after_read && !in->has_footer && !in->ring) { /* ring files have none */
		tza_err("'%s': truncated or unfinished trace (no footer); 'tracer-analyze recover' "
			"keeps what was sealed, 'tracer-analyze --partial' analyzes it as is",
			path);
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

int tza_load_ex(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m)
{
	*m = NULL;
	*r = tza_open(path, NULL);
	if (!*r)
		return -1;
	if (tza_check_whole(*r, path, 0) < 0)
		goto fail;
	int rc = tza_model_build_ex(*r, 0, UINT64_MAX, flags, m);
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
	return 0;
fail:
	tza_model_free(*m);
	*m = NULL;
	tz_reader_free(*r);
	*r = NULL;
	return -1;
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
	else {
		tza_err("%s: '%s' is not one of exe, tool, command", opt, s);
		return -1;
	}
	return 0;
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

int tza_proc_failed(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_NO_EXIT) && (p->signal || p->exit_code != 0);
}

/* ------------------------------------------------------------ profile */

struct tza_profile {
	uint64_t *t;
	double *cum;  /* CPU ns used before t[i] */
	double *rate; /* cores in use from t[i] to t[i+1] */
	uint32_t n;
};

struct step {
	uint64_t t;
	double d;
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* An end step: its time, and j, the position of its process among the
 * profiled ones (its rate is -start[j].d). */
struct end_step {
	uint64_t t;
	uint32_t j;
};

static int cmp_end(const void *a, const void *b)
{
	const struct end_step *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

/*
 * Sort e[0..n) by t, keeping the order of equal times (LSD radix sort on
 * t - min, 11-bit digits; digits that are the same in every key are
 * skipped). tmp has room for n. Returns the sorted array (e or tmp).
 */
static struct end_step *radix_ends(struct end_step *e, struct end_step *tmp, uint32_t n)
{
	enum { BITS = 11, NB = 1 << BITS };
	uint64_t min = UINT64_MAX, max = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (e[i].t < min)
			min = e[i].t;
		if (e[i].t > max)
			max = e[i].t;
	}
	if (!n || min == max)
		return e;
	int passes = 0;
	for (uint64_t span = max - min; span; span >>= BITS)
		passes++;
	uint32_t (*cnt)[NB] = calloc((size_t)passes, sizeof(*cnt));
	if (!cnt) { /* a stable sort without the counts */
		qsort(e, n, sizeof(*e), cmp_end);
		return e;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = e[i].t - min;
		for (int d = 0; d < passes; d++, k >>= BITS)
			cnt[d][k & (NB - 1)]++;
	}
	for (int d = 0; d < passes; d++) {
		uint32_t *c = cnt[d], sum = 0;
		int shift = d * BITS;
		if (c[((e[0].t - min) >> shift) & (NB - 1)] == n)
			continue; /* one value of this digit everywhere */
		for (uint32_t b = 0; b < NB; b++) {
			uint32_t x = c[b];
			c[b] = sum;
			sum += x;
		}
		for (uint32_t i = 0; i < n; i++)
			tmp[c[((e[i].t - min) >> shift) & (NB - 1)]++] = e[i];
		struct end_step *sw = e;
		e = tmp;
		tmp = sw;
	}
	free(cnt);
	return e;
}

/* Add one step at t (rate change d) to the profile being built. */
static void prof_step(struct tza_profile *pr, uint32_t *k, double *rate, double *cum, uint64_t t,
		      double d)
{
	uint32_t n = *k;
	if (n && pr->t[n - 1] == t) {
		*rate += d;
		pr->rate[n - 1] = *rate < 0 ? 0 : *rate;
		return;
	}
	if (n)
		*cum += pr->rate[n - 1] * (double)(t - pr->t[n - 1]);
	*rate += d;
	pr->t[n] = t;
	pr->cum[n] = *cum;
	pr->rate[n] = *rate < 0 ? 0 : *rate;
	*k = n + 1;
}

/*
 * The steps are taken in time order, equal times in the order of the list
 * [start of process 0, end of process 0, start of 1, end of 1, ...] (what a
 * stable sort of that list gives: the sums of doubles depend on it).
 * Processes come sorted by start, so only the ends are sorted (radix), then
 * merged with the starts; a model not sorted by start takes the stable
 * sort of the whole list.
 */
struct tza_profile *tza_profile_new(const struct tza_model *m)
{
	struct tza_profile *pr = calloc(1, sizeof(*pr));
	struct step *s = malloc(((size_t)m->nprocs + 1) * sizeof(*s));
	struct end_step *e = malloc(((size_t)m->nprocs + 1) * sizeof(*e));
	struct end_step *tmp = malloc(((size_t)m->nprocs + 1) * sizeof(*tmp));
	struct step *all = NULL;
	if (!pr || !s || !e || !tmp)
		goto fail;
	uint32_t n = 0;
	int sorted = 1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		uint64_t a = p->start_ns; /* pre-existing: CPU prorated over the whole life */
		uint64_t b = tza_proc_end(m, p);
		if (b <= a || !tza_proc_cpu(p))
			continue;
		double rate = (double)tza_proc_cpu(p) / (double)(b - a);
		if (n && a < s[n - 1].t)
			sorted = 0;
		s[n] = (struct step){a, rate};
		e[n] = (struct end_step){b, n};
		n++;
	}
	uint32_t ns = 2 * n;
	pr->t = malloc((ns + 1) * sizeof(*pr->t));
	pr->cum = malloc((ns + 1) * sizeof(*pr->cum));
	pr->rate = malloc((ns + 1) * sizeof(*pr->rate));
	if (!pr->t || !pr->cum || !pr->rate)
		goto fail;
	double rate = 0, cum = 0;
	uint32_t k = 0;
	if (sorted) {
		struct end_step *se = radix_ends(e, tmp, n);
		uint32_t i = 0, j = 0;
		while (i < n || j < n) {
			if (j == n || (i < n && (s[i].t < se[j].t || (s[i].t == se[j].t && i <= se[j].j)))) {
				prof_step(pr, &k, &rate, &cum, s[i].t, s[i].d);
				i++;
			} else {
				prof_step(pr, &k, &rate, &cum, se[j].t, -s[se[j].j].d);
				j++;
			}
		}
	} else {
		all = malloc(((size_t)ns + 1) * sizeof(*all));
		if (!all)
			goto fail;
		for (uint32_t i = 0; i < n; i++) {
			all[2 * i] = s[i];
			all[2 * i + 1] = (struct step){e[i].t, -s[i].d};
		}
		qsort(all, ns, sizeof(*all), cmp_step);
		for (uint32_t i = 0; i < ns; i++)
			prof_step(pr, &k, &rate, &cum, all[i].t, all[i].d);
	}
	pr->n = k;
	free(s);
	free(e);
	free(tmp);
	free(all);
	return pr;
fail:
	free(s);
	free(e);
	free(tmp);
	free(all);
	tza_profile_free(pr);
	return NULL;
}

static double prof_at(const struct tza_profile *pr, uint64_t x)
{
	uint32_t lo = 0, hi = pr->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pr->t[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	return pr->cum[lo - 1] + pr->rate[lo - 1] * (double)(x - pr->t[lo - 1]);
}

double tza_profile_cpu_ns(const struct tza_profile *pr, uint64_t a, uint64_t b)
{
	return b > a ? prof_at(pr, b) - prof_at(pr, a) : 0;
}

void tza_profile_free(struct tza_profile *pr)
{
	if (!pr)
		return;
	free(pr->t);
	free(pr->cum);
	free(pr->rate);
	free(pr);
}

/* ------------------------------------------------------------- groups */

int tza_key_width(const char *const *keys, size_t stride, uint32_t n)
{
	int w = 28;
	for (uint32_t i = 0; i < n; i++) {
		const char *k = *(const char *const *)((const char *)keys + i * stride);
		size_t l = k ? strlen(k) : 0;
		if ((int)l > w)
			w = l > TZA_KEY_MAX ? TZA_KEY_MAX : (int)l;
	}
	return w;
}

void tza_put_key(FILE *f, const char *key, int width)
{
	size_t l = strlen(key);
	if (l > TZA_KEY_MAX)
		fprintf(f, "...%s", key + l - (TZA_KEY_MAX - 3));
	else
		fprintf(f, "%-*s", width, key);
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

/* The host's busy fraction of all its CPUs over [a, b] from the host
 * samples; -1 when they do not cover it (fewer than two, or none inside or
 * around the window). */
static double host_busy(const struct tza_model *m, uint64_t a, uint64_t b)
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

int tza_groups(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
	       const struct tza_machine *mi, struct tza_group **out, uint32_t *nout)
{
	return tza_groups_ex(m, by, c, mi, NULL, out, nout);
}

int tza_groups_ex(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
		  const struct tza_machine *mi, const struct tza_profile *prof,
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
	struct tza_profile *own = NULL; /* built on first need when prof is NULL */
	struct gmap mp = {NULL, 0};
	if (!g || gmap_grow(&mp) < 0)
		goto fail;
	/* processes in index order: each group sums its members in that order
	 * (the double sums depend on it) */
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		const char *key = tza_proc_key(p, by);
		uint64_t h = key_hash(key);
		uint32_t j = (uint32_t)h & (mp.cap - 1);
		for (; mp.s[j].g; j = (j + 1) & (mp.cap - 1))
			if (mp.s[j].hash == h && !strcmp(g[mp.s[j].g - 1].key, key))
				break;
		if (!mp.s[j].g) {
			if (ng == gcap) {
				struct tza_group *ngp = realloc(g, 2 * (size_t)gcap * sizeof(*g));
				if (!ngp)
					goto fail;
				g = ngp;
				gcap *= 2;
			}
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng].key = key;
			g[ng].first_ns = UINT64_MAX;
			mp.s[j] = (struct gslot){h, ++ng};
			if (2 * (uint64_t)ng > mp.cap && gmap_grow(&mp) < 0)
				goto fail;
			/* the slot moved with the growth: look the key up again */
			j = (uint32_t)h & (mp.cap - 1);
			while (mp.s[j].g != ng)
				j = (j + 1) & (mp.cap - 1);
		}
		struct tza_group *x = &g[mp.s[j].g - 1];
		uint64_t s = p->start_ns < m->t0_ns && (p->flags & TZA_P_PRE_EXISTING) ? m->t0_ns
										      : p->start_ns;
		uint64_t e = tza_proc_end(m, p);
		uint64_t wall = e > s && !(p->flags & TZA_P_EXIT_LOST) ? e - s : 0; /* unknown */
		x->count++;
		x->wall_ns += wall;
		if (s < x->first_ns)
			x->first_ns = s;
		if (e > x->last_ns)
			x->last_ns = e;
		x->cpu_ns += tza_proc_cpu(p);
		if (wall) {
			double cores = (double)tza_proc_cpu(p) / (double)wall;
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
		x->failed += tza_proc_failed(p) ? 1 : 0;
		x->execs_failed += p->nfailed + p->nfailed_omitted;
		uint64_t cns = c && c->proc_ns ? c->proc_ns[p->index] : 0;
		if (cns) {
			x->critical_ns += cns;
			double hb = host ? host_busy(m, s, e) : -1;
			if (hb >= 0) {
				x->machine_cores += (double)cns * hb * ncpus;
			} else if (wall) {
				if (!prof && !(prof = own = tza_profile_new(m)))
					goto fail;
				x->machine_cores += (double)cns * tza_profile_cpu_ns(prof, s, e) /
						    (double)wall;
			}
		}
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
	tza_profile_free(own);
	*out = g;
	*nout = ng;
	return 0;
fail:
	free(g);
	free(mp.s);
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
			if (!n)
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
			if (!n) {
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
