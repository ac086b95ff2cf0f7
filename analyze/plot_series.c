/* SPDX-License-Identifier: BSD-2-Clause */
/* plot_series.c - cpu, mem and io over time: series binned, then drawn. */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "plot_int.h"
#include "report.h"

/* ---------------------------------------------------------------- series */

/* Add rate (per ns) * overlap to bins over [s, e); zero-length: a point mass. */
static void spread(double *bins, unsigned nb, const struct plot_ctx *c, uint64_t s, uint64_t e,
		   double total)
{
	double bw = (double)(c->t1 - c->t0) / nb;
	if (bw <= 0)
		return;
	if (e <= s) {
		unsigned b = (unsigned)((double)(s - c->t0) / bw);
		bins[b < nb ? b : nb - 1] += total / bw;
		return;
	}
	double rate = total / (double)(e - s);
	unsigned b0 = (unsigned)((double)(s - c->t0) / bw), b1 = (unsigned)((double)(e - c->t0) / bw);
	if (b1 >= nb)
		b1 = nb - 1;
	for (unsigned b = b0; b <= b1 && b < nb; b++) {
		double lo = c->t0 + b * bw, hi = lo + bw;
		double ov = (e < hi ? (double)e : hi) - (s > lo ? (double)s : lo);
		if (ov > 0)
			bins[b] += rate * ov / bw;
	}
}

/* Same, but a level held over [s, e) (time-weighted average per bin). */
static void hold(double *bins, unsigned nb, const struct plot_ctx *c, uint64_t s, uint64_t e, double v)
{
	spread(bins, nb, c, s, e, v * (double)(e - s));
}

/* spread v over [a, b] clipped to the window */
static void spread_clip(double *bins, unsigned nb, const struct plot_ctx *c, uint64_t a, uint64_t b,
			double v)
{
	if (b < a || b < c->t0 || a > c->t1)
		return;
	uint64_t wa = a < c->t0 ? c->t0 : a, we = b > c->t1 ? c->t1 : b;
	spread(bins, nb, c, wa, we, b > a ? v * (double)(we - wa) / (double)(b - a) : v);
}

/* A cumulative counter of a sample (what: 0 CPU ns, 1 rchar, 2 wchar,
 * 3 read_bytes, 4 write_bytes). */
static double sample_val(const struct tza_sample *s, int what)
{
	switch (what) {
	case 0: return (double)(s->utime_ns + s->stime_ns);
	case 1: return (double)s->rchar;
	case 2: return (double)s->wchar;
	case 3: return (double)s->read_bytes;
	default: return (double)s->write_bytes;
	}
}

/*
 * A cumulative counter of p drawn from its samples: each increase spread
 * over the interval it happened in (start to first sample, between samples,
 * last sample to exit with the exit total). total: the exit value (ignored
 * when the process has not exited: drawn up to its last sample).
 */
static void spread_sampled(double *bins, unsigned nb, const struct plot_ctx *c,
			   const struct tza_proc *p, int what, double total)
{
	uint64_t t = tza_proc_charged_from(p);
	double prev = 0;
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		double v = sample_val(&p->res->samples[i], what);
		if (v > prev)
			spread_clip(bins, nb, c, t, p->res->samples[i].ts_ns, v - prev);
		if (v > prev)
			prev = v;
		t = p->res->samples[i].ts_ns;
	}
	if (!(p->flags & TZA_P_NO_EXIT) && p->end_ns && total > prev)
		spread_clip(bins, nb, c, t, p->end_ns, total - prev);
}

/* RSS of p from its samples, in MiB: each sample's value held until the
 * next (samples are written on change); the first also back to the start.
 * A sample whose RSS is unknown (tza_sample_rss_known) is a gap, not 0.
 * Returns 1 when p had such a sample, else 0. */
static int hold_sampled(double *bins, unsigned nb, const struct plot_ctx *c, const struct tza_proc *p)
{
	uint64_t end = plot_p_last(p) > c->t1 ? c->t1 : plot_p_last(p);
	int gap = 0;
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		if (!tza_sample_rss_known(p, &p->res->samples[i])) {
			gap = 1;
			continue;
		}
		uint64_t a = i ? p->res->samples[i].ts_ns : p->start_ns;
		uint64_t b = i + 1 < p->res->nsamples ? p->res->samples[i + 1].ts_ns : end;
		if (a < c->t0)
			a = c->t0;
		if (b > c->t1)
			b = c->t1;
		if (b > a)
			hold(bins, nb, c, a, b, p->res->samples[i].rss_kib / 1024.0);
	}
	return gap;
}

/* The share of p's exit totals in the window: they were charged over
 * [charged_from, end); [*wa, *we) is its part in the window, returned as a
 * fraction of it (1 for an instant). */
static double window_share(const struct plot_ctx *c, const struct tza_proc *p, uint64_t *wa,
			   uint64_t *we)
{
	uint64_t a = tza_proc_charged_from(p), e = p->end_ns;
	*wa = a < c->t0 ? c->t0 : a;
	*we = e > c->t1 ? c->t1 : e;
	return e > a ? (double)(*we - *wa) / (double)(e - a) : 1;
}

/* Process i's series: its tool's colour, or the last ("other"). */
static int series_of(const struct plot_ctx *c, int ns, uint32_t i)
{
	int t = c->proc_tool[i];
	return c->tools[t].color >= 0 ? c->tools[t].color : ns - 1;
}

/*
 * CPU spread evenly over an interval (between two samples, or a whole
 * life without samples) can put more cores in a bin than the machine
 * has, when the process really ran in bursts. No bin is drawn above
 * the CPU count: such a bin's series are scaled down together to it,
 * and the note says how many bins and how much CPU time that removed.
 */
static void clamp_to_cpus(const struct plot_ctx *c, struct plot_stack *s)
{
	unsigned nb = s->nb, ncpus = c->o->ncpus;
	double bw_s = (c->t1 - c->t0) / 1e9 / nb;
	for (unsigned b = 0; ncpus && b < nb; b++) {
		double acc = 0;
		for (int k = 0; k < s->ns; k++)
			acc += s->bins[(size_t)k * nb + b];
		if (acc <= ncpus)
			continue;
		for (int k = 0; k < s->ns; k++)
			s->bins[(size_t)k * nb + b] *= ncpus / acc;
		s->nclamped++;
		s->clamped_s += (acc - ncpus) * bw_s;
	}
}

/* *s empty, ns series of PLOT_NBINS zeroed bins. 0, or -1 out of memory. */
static int stack_init(struct plot_stack *s, int ns)
{
	*s = (struct plot_stack){.nb = PLOT_NBINS, .ns = ns};
	s->bins = calloc((size_t)s->nb * (size_t)(ns ? ns : 1), sizeof(double));
	return s->bins ? 0 : -1;
}

int plot_stack_compute(const struct plot_ctx *c, int is_cpu, struct plot_stack *s)
{
	struct tza_model *m = c->m;
	/* top tools + other */
	if (stack_init(s, c->ncolored + ((size_t)c->ncolored < c->ntools)) < 0)
		return -1;
	unsigned nb = s->nb;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		if (!plot_p_in_window(c, p))
			continue;
		double *bins = s->bins + (size_t)series_of(c, s->ns, i) * nb;
		if (p->res->nsamples) {
			s->sampled++;
			if (is_cpu)
				spread_sampled(bins, nb, c, p, 0, (double)(p->utime_ns + p->stime_ns));
			else
				s->rss_unknown += (uint32_t)hold_sampled(bins, nb, c, p);
			continue;
		}
		if ((p->flags & TZA_P_NO_EXIT) || !p->end_ns) {
			if (p->flags & TZA_P_EXIT_LOST)
				s->lost++;
			else
				s->running++;
			continue; /* no exit totals */
		}
		/* totals are over the whole life; the window keeps its share */
		uint64_t wa, we;
		double frac = window_share(c, p, &wa, &we);
		if (is_cpu)
			spread(bins, nb, c, wa, we, (double)(p->utime_ns + p->stime_ns) * frac);
		else
			hold(bins, nb, c, wa, we, (double)p->maxrss_kib / 1024.0);
	}
	/* cpu bins are CPU-ns per ns = cores in use; mem bins are MiB */
	if (is_cpu)
		clamp_to_cpus(c, s);
	return 0;
}

/* $S: per bin its x and the stacked series (0, then running sums).
 * Returns the highest stack. */
static double stack_data(FILE *f, const struct plot_ctx *c, const struct plot_stack *s)
{
	double peak = 0, bw_s = (c->t1 - c->t0) / 1e9 / s->nb;
	fputs("$S << EOD\n", f);
	for (unsigned b = 0; b < s->nb; b++) {
		double x = plot_x(c, c->t0) + (b + 0.5) * bw_s;
		fprintf(f, "%.6f 0", x);
		double acc = 0;
		for (int k = 0; k < s->ns; k++) {
			acc += s->bins[(size_t)k * s->nb + b];
			fprintf(f, " %.6g", acc);
		}
		if (acc > peak)
			peak = acc;
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	return peak;
}

/* $H: the host beside the recorded processes, its busy cores per bin;
 * raises *peak. */
static void host_data(FILE *f, const struct plot_ctx *c, unsigned nb, double *peak)
{
	struct tza_model *m = c->m;
	double bw_s = (c->t1 - c->t0) / 1e9 / nb;
	unsigned hc = m->host[m->nhost - 1].ncpus ? m->host[m->nhost - 1].ncpus : c->o->ncpus;
	fputs("$H << EOD\n", f);
	for (unsigned b = 0; b < nb; b++) {
		uint64_t a = c->t0 + (uint64_t)((double)(c->t1 - c->t0) * b / nb);
		uint64_t z = c->t0 + (uint64_t)((double)(c->t1 - c->t0) * (b + 1) / nb);
		double hb = tza_host_busy(m, a, z);
		if (hb < 0)
			continue;
		fprintf(f, "%.6f %.6g\n", plot_x(c, c->t0) + (b + 0.5) * bw_s, hb * hc);
		if (hb * hc > *peak)
			*peak = hb * hc;
	}
	fputs("EOD\n", f);
}

/* The note under the title: where the numbers come from, what is left out
 * and what the CPU count clamped. buf: room for it. */
static const char *stack_note(const struct plot_ctx *c, const struct plot_stack *s, int is_cpu,
			      char *buf, size_t size)
{
	const char *note = is_cpu ? "derived from exact exit totals: each process's CPU time spread "
				    "evenly over its lifetime (no periodic samples in this trace)"
				  : "derived from exit totals: each process's peak RSS held over its whole "
				    "lifetime (an upper bound; no periodic samples in this trace)";
	if (s->sampled)
		note = is_cpu ? "from periodic samples where present (CPU between samples spread "
				"evenly), else from exact exit totals spread over the lifetime"
			      : "from periodic samples where present (RSS held between samples), "
				"else each process's peak RSS held over its lifetime";
	size_t l = (size_t)snprintf(buf, size, "%s", note);
	if (s->running && s->lost && l < size)
		l += (size_t)snprintf(buf + l, size - l,
				      "; %u still running and %u with a lost exit, not counted",
				      s->running, s->lost);
	else if ((s->running || s->lost) && l < size)
		l += (size_t)snprintf(buf + l, size - l, "; %u %s, not counted", s->running + s->lost,
				      s->running ? "still running" : "with a lost exit");
	if (s->rss_unknown && l < size)
		l += (size_t)snprintf(buf + l, size - l,
				      "; %u with RSS unknown (a slice's end), not drawn there",
				      s->rss_unknown);
	if (s->nclamped && l < size)
		snprintf(buf + l, size - l,
			 "; %u of %u bins held to %u CPUs (%.3g CPU-s spread there beyond the machine)",
			 s->nclamped, s->nb, c->o->ncpus, s->clamped_s);
	return buf;
}

int plot_stacked(FILE *f, struct plot_ctx *c)
{
	const struct tza_plot_opts *o = c->o;
	int is_cpu = o->kind == TZA_PLOT_CPU;
	struct plot_stack s;
	if (plot_stack_compute(c, is_cpu, &s) < 0) {
		tza_err("plot: out of memory");
		return -1;
	}
	double peak = stack_data(f, c, &s);
	int host = is_cpu && c->m->nhost >= 2;
	if (host)
		host_data(f, c, s.nb, &peak);
	char note[480];
	stack_note(c, &s, is_cpu, note, sizeof(note));
	/* the key at the right: its longest title (tool names cut at 30 bytes,
	 * the host line), the sample, about 6.5 px a character at font 8 */
	size_t keylen = strlen("host: every process (host samples)");
	for (int t = 0; t < c->ncolored; t++) {
		size_t l = strlen(c->tools[t].name);
		l = l > 30 ? 33 : l;
		if (l > keylen)
			keylen = l;
	}
	plot_header(f, c, o->width ? o->width : 1400, o->height ? o->height : 650,
		    is_cpu ? "CPU: cores in use by tool" : "memory: resident set by tool", note, 0,
		    70, (unsigned)(6.5 * (double)(keylen + 6) + 20));
	double top = peak;
	if (is_cpu && o->ncpus && o->ncpus > top)
		top = o->ncpus;
	fprintf(f, "set yrange [0:%.6g]\n", top > 0 ? top * 1.12 : 1);
	fprintf(f, "set ylabel '%s'\n", is_cpu ? "cores in use" : "resident memory (MiB)");
	fputs("set key outside right top vertical font ',8'\nset style fill solid 0.85 noborder\n", f);
	fputs("plot ", f);
	for (int k = 0; k < s.ns; k++) {
		if (k)
			fputs(", ", f);
		const char *name = k < c->ncolored ? c->tools[k].name : "other tools";
		const char *col = k < c->ncolored ? plot_palette[k] : PLOT_OTHER_COLOR;
		fprintf(f, "$S using 1:%d:%d with filledcurves lc rgb '%s' title ", k + 2, k + 3, col);
		plot_gp_str(f, name, 30);
	}
	if (!s.ns)
		fputs("$S using 1:2 with lines notitle", f);
	if (host)
		fputs(", $H using 1:2 with lines lw 2 lc rgb '" PLOT_HOST_COLOR
		      "' title 'host: every process (host samples)'",
		      f);
	if (is_cpu && o->ncpus)
		fprintf(f, ", %u with lines dt 2 lw 2 lc rgb '#222222' title '%u CPUs'", o->ncpus,
			o->ncpus);
	fputc('\n', f);
	free(s.bins);
	return 0;
}

int plot_io_compute(const struct plot_ctx *c, struct plot_stack *s)
{
	struct tza_model *m = c->m;
	if (stack_init(s, 4) < 0)
		return -1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		if (!plot_p_in_window(c, p))
			continue;
		const double v[4] = {(double)p->rchar, (double)p->wchar, (double)p->read_bytes,
				     (double)p->write_bytes};
		if (p->res->nsamples) {
			for (int k = 0; k < 4; k++)
				spread_sampled(s->bins + (size_t)k * s->nb, s->nb, c, p, k + 1, v[k]);
			s->sampled++;
			continue;
		}
		if ((p->flags & TZA_P_NO_EXIT) || !p->end_ns)
			continue;
		uint64_t wa, we;
		double frac = window_share(c, p, &wa, &we);
		for (int k = 0; k < 4; k++)
			spread(s->bins + (size_t)k * s->nb, s->nb, c, wa, we, v[k] * frac);
	}
	return 0;
}

int plot_io(FILE *f, struct plot_ctx *c)
{
	const struct tza_plot_opts *o = c->o;
	struct plot_stack s;
	if (plot_io_compute(c, &s) < 0) {
		tza_err("plot: out of memory");
		return -1;
	}
	/* bins are bytes per ns: x 1e9 / 2^20 = MiB/s */
	unsigned nb = s.nb;
	double bw_s = (c->t1 - c->t0) / 1e9 / nb, peak = 0;
	fputs("$IO << EOD\n", f);
	for (unsigned b = 0; b < nb; b++) {
		fprintf(f, "%.6f", plot_x(c, c->t0) + (b + 0.5) * bw_s);
		for (int k = 0; k < 4; k++) {
			double v = s.bins[(size_t)k * nb + b] * 1e9 / 1048576.0;
			if (v > peak)
				peak = v;
			fprintf(f, " %.6g", v);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	free(s.bins);
	plot_header(f, c, o->width ? o->width : 1400, o->height ? o->height : 650,
		    "I/O: bytes per second",
		    s.sampled ? "from periodic samples where present (bytes between samples spread "
				"evenly), else from exact exit totals spread over the lifetime"
			      : "derived from exact exit totals: each process's bytes spread evenly "
				"over its lifetime (no periodic samples in this trace)",
		    0, 70, (unsigned)(6.5 * (double)(strlen("write (syscalls, wchar)") + 6) + 20));
	fprintf(f, "set yrange [0:%.6g]\n", peak > 0 ? peak * 1.12 : 1);
	fputs("set ylabel 'MiB/s'\nset key outside right top vertical font ',8'\n", f);
	fputs("plot $IO using 1:2 with lines lw 2 lc rgb '#4e79a7' title 'read (syscalls, rchar)', "
	      "$IO using 1:3 with lines lw 2 lc rgb '#f28e2b' title 'write (syscalls, wchar)', "
	      "$IO using 1:4 with lines lw 1 dt 2 lc rgb '#1f3f77' title 'read from storage', "
	      "$IO using 1:5 with lines lw 1 dt 2 lc rgb '#a0520b' title 'written to storage'\n",
	      f);
	return 0;
}
