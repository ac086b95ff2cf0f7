/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_idle.c - `tracer-analyze idle`: stretches where the machine used under
 * a share of its cores, and which processes were alive then (the "waiting
 * on one thing" view). docs/tracer-analyze.md. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "fleet.h"
#include "idle.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "textsafe.h"

static const struct tza_cmd_spec idle_spec = {
    .name = "idle",
    .synopsis =
	"usage: tracer-analyze idle [--threshold PCT] [--min-duration DUR] [--basis host|procs]\n"
	"                           [-n N] [--all] [--json] FILE...\n"
	"\n"
	"List the stretches where the machine used under PCT% of its cores for at least\n"
	"DUR, and the recorded processes alive during each (who the run was waiting on).\n"
	"\n",
    .notes = "Several traces (files, a directory of .tz files, a merge) are one run on\n"
	     "several hosts: one line per host, its idle time as a share of the run's span\n"
	     "(the run outside its trace counted apart: not recorded), then each host's own\n"
	     "idle (docs/tracer-analyze.md, MANY HOSTS).\n",
    .examples = "  tracer-analyze idle trace.tz\n"
		"  tracer-analyze idle --threshold 10 --min-duration 1m trace.tz\n"
		"  tracer-analyze idle node1.tz node2.tz node3.tz\n",
    .col = 26,
};

/* "30", "1.5s", "500ms", "2m", "1h" -> ns; -1 when malformed */
static int parse_dur(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end), mul = 1e9;

	if (end == s || !(v >= 0) || v > 1e7)
		return -1;
	if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "m"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else if (*end && strcmp(end, "s"))
		return -1;
	*ns = (uint64_t)(v * mul + 0.5);
	return 0;
}

static int cmp_who(const void *x, const void *y)
{
	const struct tza_idle_who *a = x, *b = y;
	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns < b->cpu_ns ? 1 : -1;
	if (a->whole != b->whole)
		return b->whole - a->whole;
	return a->p->start_ns < b->p->start_ns ? -1 : a->p->start_ns > b->p->start_ns;
}

static int proc_selected(const struct tza_proc *p, int all)
{
	return all || !(p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD | TZA_P_FROM_STATE));
}

/* Last instant p was alive: its exit, its last event when its exit was lost,
 * else (still running) UINT64_MAX. */
static uint64_t alive_until(const struct tza_proc *p)
{
	if (p->flags & TZA_P_EXIT_LOST)
		return p->end_ns > p->start_ns ? p->end_ns : p->start_ns;
	return (p->flags & TZA_P_NO_EXIT) || !p->end_ns ? UINT64_MAX : p->end_ns;
}

/* Append [a, b) with its busy and available CPU, merging into the last
 * stretch when adjacent. */
static int add_idle(struct tza_idle *x, uint32_t *cap, uint64_t a, uint64_t b, double busy,
		    double total)
{
	if (x->nv && x->v[x->nv - 1].b == a) {
		x->v[x->nv - 1].b = b;
		x->v[x->nv - 1].busy_ns += busy;
		x->v[x->nv - 1].total_ns += total;
		return 0;
	}
	if (VEC_ROOM(x->v, x->nv, *cap, 16))
		return -1;
	x->v[x->nv++] = (struct tza_idle_stretch){a, b, busy, total};
	return 0;
}

/* basis host: consecutive host samples whose busy share is under frac */
static int idle_host(const struct tza_model *m, double frac, struct tza_idle *x)
{
	uint32_t cap = 0;
	x->span_a = m->host[0].ts_ns;
	x->span_b = m->host[m->nhost - 1].ts_ns;
	for (uint32_t i = 1; i < m->nhost; i++) {
		const struct tza_host_sample *h0 = &m->host[i - 1], *h1 = &m->host[i];
		if (h1->total_ns <= h0->total_ns || h1->ts_ns <= h0->ts_ns)
			continue;
		double busy = (double)(h1->busy_ns - h0->busy_ns);
		double tot = (double)(h1->total_ns - h0->total_ns);
		if (busy < frac * tot && add_idle(x, &cap, h0->ts_ns, h1->ts_ns, busy, tot) < 0)
			return -1;
	}
	if (m->host[m->nhost - 1].ncpus)
		x->ncpus = m->host[m->nhost - 1].ncpus;
	return 0;
}

/* basis procs: bins of 100 ms (up to 100,000 bins) of the recorded
 * processes' CPU whose share of the cores is under frac */
static int idle_procs(const struct tza_model *m, double frac, int all, struct tza_idle *x)
{
	uint64_t span_a = x->span_a, span_b = x->span_b;
	uint64_t bw = (span_b - span_a) / 100000 + 1;
	if (bw < 100000000ull)
		bw = 100000000ull;
	uint32_t nb = (uint32_t)((span_b - span_a + bw - 1) / bw), cap = 0;
	double *bins = calloc(nb, sizeof(double));
	if (!bins)
		return -1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		if (!proc_selected(p, all))
			continue;
		uint64_t a = p->start_ns > span_a ? p->start_ns : span_a;
		uint64_t b = alive_until(p);
		if (b > span_b)
			b = span_b;
		for (uint64_t k = (a - span_a) / bw; b > a && k < nb; k++) {
			uint64_t ba = span_a + k * bw, bb = ba + bw;
			if (ba >= b)
				break;
			bins[k] += tza_proc_cpu_at(p, bb < b ? bb : b) -
				   tza_proc_cpu_at(p, ba > a ? ba : a);
		}
	}
	int rc = 0;
	for (uint32_t k = 0; k < nb && !rc; k++) {
		uint64_t ba = span_a + k * bw, bb = ba + bw > span_b ? span_b : ba + bw;
		double tot = (double)(bb - ba) * x->ncpus;
		if (bins[k] < frac * tot)
			rc = add_idle(x, &cap, ba, bb, bins[k], tot);
	}
	free(bins);
	return rc;
}

int tza_idle_compute(const struct tza_model *m, const struct tza_machine *mi,
		     enum tza_idle_basis basis, double threshold_pct, int all, struct tza_idle *out)
{
	*out = (struct tza_idle){.basis = basis,
				 .ncpus = mi->ncpus ? mi->ncpus : 1,
				 .span_a = m->t0_ns,
				 .span_b = m->t1_ns};
	double frac = threshold_pct / 100.0;
	int rc = 0;
	if (basis == TZA_IDLE_HOST)
		rc = idle_host(m, frac, out);
	else if (out->span_b > out->span_a)
		rc = idle_procs(m, frac, all, out);
	if (rc < 0)
		tza_idle_free(out);
	return rc;
}

void tza_idle_free(struct tza_idle *x)
{
	free(x->v);
	x->v = NULL;
	x->nv = 0;
}

uint32_t tza_idle_alive(const struct tza_model *m, const struct tza_idle_stretch *x, int all,
			struct tza_idle_who *w)
{
	uint32_t nw = 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		uint64_t e = alive_until(p);
		if (!proc_selected(p, all) || p->start_ns >= x->b || e <= x->a)
			continue;
		w[nw].p = p;
		w[nw].cpu_ns = tza_proc_cpu_at(p, x->b) - tza_proc_cpu_at(p, x->a);
		w[nw].whole = p->start_ns <= x->a && e >= x->b;
		nw++;
	}
	qsort(w, nw, sizeof(*w), cmp_who);
	return nw;
}

/* --threshold PCT into the double *o->dest: in (0, 100] */
static int opt_threshold(const struct tza_option *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0 && v <= 100)) {
		tza_err("--threshold: '%s' is not a percentage in (0, 100]", arg);
		return -1;
	}
	*(double *)o->dest = v;
	return 0;
}

/* --min-duration DUR into the uint64_t ns *o->dest */
static int opt_min_duration(const struct tza_option *o, const char *arg)
{
	if (parse_dur(arg, o->dest) < 0) {
		tza_err("--min-duration: '%s' is not a duration (30, 1.5s, 500ms, 2m)", arg);
		return -1;
	}
	return 0;
}

/* --basis words, by enum tza_idle_basis */
static const char *const basis_words[] = {"host", "procs", NULL};

/* Parse argv into o; returns -1 to go on (the traces: argv[optind..]),
 * else the exit code */
static int idle_parse(int argc, char **argv, struct tza_idle_opts *o)
{
	*o =
	    (struct tza_idle_opts){.threshold = 25, .min_ns = 10000000000ull, .limit = 10, .basis = -1};
	const struct tza_option opts[] = {
		OPT_CALL('t', "threshold", "PCT", opt_threshold, &o->threshold,
			 "busy share of all cores under which a moment is idle\n"
			 "(default 25)"),
		OPT_CALL('d', "min-duration", "DUR", opt_min_duration, &o->min_ns,
			 "shortest stretch reported: 30, 1.5s, 500ms, 2m\n"
			 "(default 10s)"),
		OPT_ENUM('b', "basis", "B", &o->basis, basis_words,
			 "host: the host samples' CPU time (every process of the\n"
			 "machine; the default for whole-machine (-a) traces with\n"
			 "host samples); procs: the recorded processes' CPU\n"
			 "(samples where present, else exit totals spread over\n"
			 "each life; the default otherwise, the host's shown beside)"),
		OPT_U64('n', NULL, "N", &o->limit, 0, 1000000,
			"processes listed per stretch (default 10, by CPU in it)"),
		OPT_FLAG(0, "all", &o->all, "also processes alive before recording began"),
		OPT_FLAG('j', "json", &o->json, "one JSON object (keys: docs/tracer-analyze.md)"),
		OPT_END_TRACE,
	};
	return tza_options_parse(&idle_spec, opts, argc, argv);
}

/* One stretch as a JSON object (the "stretches" array's element k) */
static void stretch_json(FILE *f, const struct tza_model *m, const struct tza_idle *id,
			 const struct tza_idle_stretch *x, const struct tza_idle_who *w,
			 uint32_t nw, uint32_t nl, uint32_t k)
{
	double cores = (double)x->busy_ns / (double)(x->b - x->a);
	double hb = id->basis ? tza_host_busy(m, x->a, x->b) : -1;
	fputs(k ? ",{\"start_s\":" : "{\"start_s\":", f);
	tza_json_secs(f, (int64_t)(x->a - m->t0_ns));
	tza_json_key_secs(f, "end_s", (int64_t)(x->b - m->t0_ns));
	tza_json_key_secs(f, "duration_s", (int64_t)(x->b - x->a));
	tza_json_key_num(f, "mean_cores", round(cores * 1000) / 1000);
	fputs(",\"host_cores\":", f); /* the host beside the procs basis */
	if (hb >= 0)
		tza_json_num(f, round(hb * id->ncpus * 1000) / 1000);
	else
		fputs("null", f);
	fprintf(f, ",\"processes_alive\":%u,\"processes\":[", nw);
	for (uint32_t i = 0; i < nl; i++) {
		const struct tza_proc *p = w[i].p;
		char idb[TZA_ID_MAX];
		fputs(i ? ",{\"id\":" : "{\"id\":", f);
		tza_json_cstr(f, tza_proc_id(p, idb));
		fprintf(f, ",\"pid\":%u,\"name\":", p->pid);
		tza_json_cstr(f, tza_proc_key((struct tza_proc *)p, TZA_BY_TOOL));
		tza_json_key_secs(f, "cpu_s", (int64_t)w[i].cpu_ns);
		fprintf(f, ",\"whole\":%s}", w[i].whole ? "true" : "false");
	}
	fputs("]}", f);
}

/* One stretch as text: its line, the host's beside, its processes */
static void stretch_text(FILE *f, const struct tza_model *m, const struct tza_idle *id,
			 const struct tza_idle_stretch *x, const struct tza_idle_who *w,
			 uint32_t nw, uint32_t nl)
{
	char b1[40], b2[40], b3[40];
	double cores = (double)x->busy_ns / (double)(x->b - x->a);
	double hb = id->basis ? tza_host_busy(m, x->a, x->b) : -1;
	fprintf(f, "\n  %s - %s  (%s)  %.2f cores busy on average, %u process%s alive\n",
		tza_fmt_dur(b1, sizeof(b1), x->a - m->t0_ns),
		tza_fmt_dur(b2, sizeof(b2), x->b - m->t0_ns),
		tza_fmt_dur(b3, sizeof(b3), x->b - x->a), cores, nw, nw == 1 ? "" : "es");
	if (hb >= 0)
		fprintf(f, "    host: %.2f cores busy (host samples, every process)\n",
			hb * id->ncpus);
	for (uint32_t i = 0; i < nl; i++) {
		const struct tza_proc *p = w[i].p;
		char sk[TZA_SAFE_BUF];
		fprintf(
		    f, "    pid %-7u %-28s %8.3f CPU-s%s%s\n", p->pid,
		    tza_safe_str(sk, sizeof(sk), tza_proc_key((struct tza_proc *)p, TZA_BY_TOOL)),
		    w[i].cpu_ns / 1e9, w[i].whole ? "  (the whole stretch)" : "",
		    (p->flags & (TZA_P_EXIT_LOST | TZA_P_EXITED_BEFORE)) == TZA_P_EXIT_LOST
			? "  (exit lost)"
			: "");
	}
	if (nw > nl)
		fprintf(f, "    ... %u more\n", nw - nl);
}

/* The whole output: head, the stretches of at least o->min_ns, the total.
 * w: room for m->nprocs entries. */
static uint64_t idle_print(FILE *f, const char *path, const struct tza_model *m,
			   const struct tza_idle *id, const struct tza_idle_opts *o,
			   struct tza_idle_who *w)
{
	char b1[40], b2[40];
	uint64_t idle_ns = 0;
	uint32_t shown = 0;
	if (o->json) {
		fprintf(f, "{\"file\":");
		tza_json_cstr(f, path);
		tza_json_key_num(f, "threshold_pct", o->threshold);
		tza_json_key_secs(f, "min_duration_s", (int64_t)o->min_ns);
		fprintf(f, ",\"basis\":\"%s\",\"cpus\":%u,\"stretches\":[",
			id->basis ? "procs" : "host", id->ncpus);
	} else {
		fprintf(f, "idle: under %g%% of %u CPUs for at least %s (%s)\n", o->threshold,
			id->ncpus, tza_fmt_dur(b1, sizeof(b1), o->min_ns),
			id->basis ? "CPU of the recorded processes"
				  : "host CPU from the host samples");
	}
	for (uint32_t s = 0; s < id->nv; s++) {
		const struct tza_idle_stretch *x = &id->v[s];
		if (x->b - x->a < o->min_ns)
			continue;
		idle_ns += x->b - x->a;
		uint32_t nw = tza_idle_alive(m, x, o->all, w);
		uint32_t nl = nw < o->limit ? nw : (uint32_t)o->limit;
		if (o->json)
			stretch_json(f, m, id, x, w, nw, nl, shown);
		else
			stretch_text(f, m, id, x, w, nw, nl);
		shown++;
	}
	uint64_t span = id->span_b > id->span_a ? id->span_b - id->span_a : 0;
	if (o->json) {
		fputs("],\"idle_s\":", f);
		tza_json_secs(f, (int64_t)idle_ns);
		tza_json_key_secs(f, "span_s", (int64_t)span);
		fputs("}\n", f);
	} else {
		fprintf(f, "%s%u stretch%s, %s idle of %s (%.1f%%)\n", shown ? "\n" : "", shown,
			shown == 1 ? "" : "es", tza_fmt_dur(b1, sizeof(b1), idle_ns),
			tza_fmt_dur(b2, sizeof(b2), span),
			span ? 100.0 * (double)idle_ns / (double)span : 0);
	}
	return idle_ns;
}

int tza_idle_trace(FILE *f, const char *path, tz_reader *r, const struct tza_model *m,
		   const struct tza_idle_opts *opts, uint64_t *idle_ns, uint64_t *span_a,
		   uint64_t *span_b, enum tza_idle_basis *basis)
{
	struct tza_idle_opts o = *opts;
	struct tza_machine mi;
	tza_machine_get(r, &mi);
	if (o.basis == TZA_IDLE_HOST && m->nhost < 2) {
		tza_err("'%s': --basis host: the trace has no host samples (recorded with "
			"--sample-interval 0, or by an older recorder); use --basis procs",
			path);
		return TZA_EXIT_FAIL;
	}
	/* whose machine: a whole-machine recording is judged by the host, a
	 * followed command or -p pids by the recorded processes */
	const char *const mode_keys[] = {"mode", NULL};
	const char *mode = tza_meta_any(r, mode_keys);
	if (o.basis < 0)
		o.basis = m->nhost >= 2 && mode && !strcmp(mode, "system") ? TZA_IDLE_HOST
									   : TZA_IDLE_PROCS;
	struct tza_idle id;
	struct tza_idle_who *w = NULL;
	if (tza_idle_compute(m, &mi, (enum tza_idle_basis)o.basis, o.threshold, o.all, &id) < 0 ||
	    !(w = calloc(m->nprocs ? m->nprocs : 1, sizeof(*w)))) {
		tza_err("out of memory");
		tza_idle_free(&id);
		return TZA_EXIT_FAIL;
	}
	uint64_t t = idle_print(f, path, m, &id, &o, w);
	if (idle_ns)
		*idle_ns = t;
	if (span_a)
		*span_a = id.span_a;
	if (span_b)
		*span_b = id.span_b;
	if (basis)
		*basis = id.basis;
	free(w);
	tza_idle_free(&id);
	return TZA_EXIT_OK;
}

int cmd_idle(int argc, char **argv)
{
	struct tza_idle_opts o;
	tz_reader *r;
	struct tza_model *m;
	int rc = idle_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (optind < argc && tza_fleet_wanted(argv + optind, argc - optind))
		return tza_idle_hosts(stdout, argv + optind, argc - optind, &o);
	if (!tza_one_file("idle", argc, argv))
		return TZA_EXIT_USAGE;
	if (tza_load_ex(argv[optind], TZA_MB_SAMPLES, &r, &m) < 0)
		return TZA_EXIT_FAIL;
	rc = tza_idle_trace(stdout, argv[optind], r, m, &o, NULL, NULL, NULL, NULL);
	tza_unload(r, m);
	return rc == TZA_EXIT_OK ? tza_stdout_done() : rc;
}
