/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot_hosts_series.c - `tracer-analyze plot --kind cpu|mem|io` of a run
 * recorded on several hosts (fleet.h; docs/tracer-analyze.md "MANY HOSTS"):
 * one panel per host trace, one above the other on the run's time axis,
 * each with the series `plot --kind K` of that trace alone draws (its bins,
 * its CPU count, its host samples' line), the tools coloured across hosts.
 *
 * A host's bins are computed as for its trace alone (plot_series.c) with one
 * series per tool, kept, and folded into the run's coloured tools once every
 * host was read (the colours need every host's tools): hosts are read once
 * (twice with a window: the first time for the run's start). Each host's
 * times are put on the run's axis with one offset, its anchor at its first
 * event, as the gantt over hosts puts them (plot_hosts.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/vec.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "plot_int.h"
#include "report.h"

/* One host trace's panel. */
struct spanel {
	char *hostname; /* owned */
	const char *trace;
	uint64_t boot0, boot1; /* its model's first and last event, CLOCK_BOOTTIME */
	int64_t rt0;	       /* boot0 on the wall clock (its anchor there) */
	int in;		       /* its trace meets the window */
	uint64_t t0, t1;       /* its window (plot_ctx t0, t1) */
	unsigned ncpus;	       /* its CPU count (0 unknown) */
	uint32_t nprocs;       /* processes drawn */
	int incomplete;
	struct plot_stack st; /* one series per tool (cpu, mem), or io's 4 */
	char **tool;	      /* [st.ns] cpu, mem: each series' tool (owned) */
	int *run_series;      /* [st.ns] its series in the run's (after ranking) */
	double *host;	      /* [st.nb] cpu: busy cores by host samples, NAN none */
};

struct srun {
	struct tza_fleet f;
	struct spanel *p;
	struct tza_host_clock *clk;
	struct plot_tool *tools; /* across hosts, names owned; ranked */
	size_t ntools, captools;
	int ncolored;
	int64_t r0, r1; /* the run: first first event, last last event (wall ns) */
	int64_t w0, w1; /* the window drawn (wall ns) */
	int windowed;
};

static struct plot_tool *run_tool(struct srun *u, const char *name)
{
	return plot_tool_find(&u->tools, &u->ntools, &u->captools, name);
}

/* Host i's place: hostname, its range and its anchor at its first event. */
static int place(struct srun *u, size_t i, tz_reader *r, const struct tza_model *m)
{
	struct spanel *p = &u->p[i];
	p->trace = u->f.h[i].name;
	if (!p->hostname && !(p->hostname = strdup(tza_fleet_hostname(&u->f, i, r)))) {
		tza_err("plot: out of memory");
		return -1;
	}
	p->boot0 = m->t0_ns;
	p->boot1 = m->t1_ns;
	return tza_host_clock_anchor("plot", r, p->trace, p->hostname, p->boot0, &u->clk[i],
				     &p->rt0);
}

/* Host i read with its samples: its bins over its part of the window, one
 * series per tool; its tools counted into the run's. 0, or -1 after one
 * line. */
static int one_panel(struct srun *u, size_t i, const struct tza_plot_opts *opts)
{
	struct spanel *p = &u->p[i];
	tz_reader *r;
	struct tza_model *m;
	const char *hn;
	struct plot_ctx c = {0};
	struct tza_plot_opts o = *opts;
	int rc = -1;
	if (tza_fleet_load(&u->f, i, TZA_MB_SAMPLES, &r, &m, &hn) < 0)
		return -1;
	if (!u->windowed && place(u, i, r, m) < 0)
		goto out;
	p->incomplete = m->incomplete;
	o.from_ns = o.to_ns = 0; /* whole: as plot of the trace alone */
	p->in = 1;
	if (u->windowed)
		p->in = plot_host_window(u->w0, u->w1, p->rt0, p->boot0, p->boot1, &o.from_ns,
					 &o.to_ns);
	tza_plot_facts(r, m, &o);
	p->ncpus = o.ncpus;
	if (!p->in) {
		rc = 0;
		goto out;
	}
	if (plot_ctx_init(&c, m, &o) < 0)
		goto oom;
	p->t0 = c.t0;
	p->t1 = c.t1;
	for (uint32_t k = 0; k < m->nprocs; k++)
		p->nprocs += plot_p_in_window(&c, m->procs[k]) != 0;
	if (o.kind == TZA_PLOT_IO) {
		if (plot_io_compute(&c, &p->st) < 0)
			goto oom;
		rc = 0;
		goto out;
	}
	/* every tool its own series: folded into the run's colours later */
	for (size_t t = 0; t < c.ntools; t++)
		c.tools[t].color = (int)t;
	c.ncolored = (int)c.ntools;
	if (plot_stack_compute(&c, o.kind == TZA_PLOT_CPU, &p->st) < 0)
		goto oom;
	p->tool = calloc(c.ntools ? c.ntools : 1, sizeof(*p->tool));
	if (!p->tool)
		goto oom;
	for (size_t t = 0; t < c.ntools; t++) {
		struct plot_tool *rt = run_tool(u, c.tools[t].name);
		if (!rt || !(p->tool[t] = strdup(c.tools[t].name)))
			goto oom;
		rt->cpu_s += c.tools[t].cpu_s;
		rt->wall_s += c.tools[t].wall_s;
	}
	if (o.kind == TZA_PLOT_CPU && m->nhost >= 2) {
		unsigned hc = m->host[m->nhost - 1].ncpus ? m->host[m->nhost - 1].ncpus : o.ncpus;
		if (!(p->host = malloc(p->st.nb * sizeof(*p->host))))
			goto oom;
		for (unsigned b = 0; b < p->st.nb; b++) {
			uint64_t a = c.t0 + (uint64_t)((double)(c.t1 - c.t0) * b / p->st.nb);
			uint64_t z = c.t0 + (uint64_t)((double)(c.t1 - c.t0) * (b + 1) / p->st.nb);
			double hb = tza_host_busy(m, a, z);
			p->host[b] = hb < 0 ? NAN : hb * hc;
		}
	}
	rc = 0;
	goto out;
oom:
	tza_err("plot: out of memory");
out:
	plot_ctx_free(&c);
	tza_unload(r, m);
	return rc;
}

/* The run's tools ranked as plot ranks one trace's (CPU in the window, then
 * wall), the first PLOT_NCOLORS coloured; each host's series mapped to the
 * run's: its tool's colour, else "other" (the last). */
static int rank(struct srun *u)
{
	if (u->ntools)
		qsort(u->tools, u->ntools, sizeof(*u->tools), plot_cmp_tool);
	for (size_t t = 0; t < u->ntools; t++)
		u->tools[t].color = t < PLOT_NCOLORS ? (int)t : -1;
	u->ncolored = u->ntools < PLOT_NCOLORS ? (int)u->ntools : PLOT_NCOLORS;
	for (size_t i = 0; i < u->f.n; i++) {
		struct spanel *p = &u->p[i];
		if (!p->tool)
			continue;
		if (!(p->run_series = calloc(p->st.ns ? (size_t)p->st.ns : 1, sizeof(int))))
			return -1;
		for (int k = 0; k < p->st.ns; k++) {
			const struct plot_tool *rt = run_tool(u, p->tool[k]);
			p->run_series[k] = rt && rt->color >= 0 ? rt->color : u->ncolored;
		}
	}
	return 0;
}

/* The run's series count: the coloured tools, and "other" when more. */
static int run_ns(const struct srun *u)
{
	return u->ncolored + ((size_t)u->ncolored < u->ntools);
}

/* x of host p's bin b (its middle), in the script's units */
static double bin_x(const struct srun *u, const struct spanel *p, const struct tza_plot_opts *o,
		    unsigned b)
{
	int64_t w = p->rt0 + (int64_t)(p->t0 - p->boot0); /* its window's start */
	double bw_s = (double)(p->t1 - p->t0) / 1e9 / p->st.nb;
	double base = o->wall ? (double)w / 1e9 : (double)(w - u->r0) / 1e9;
	return base + (b + 0.5) * bw_s;
}

/* Host k's datablocks ($Sk stacked as plot_stacked's $S, or $IOk; $Hk its
 * host samples' line); its highest value. */
static double panel_data(FILE *f, const struct srun *u, size_t k, const struct tza_plot_opts *o)
{
	const struct spanel *p = &u->p[k];
	int ns = o->kind == TZA_PLOT_IO ? 4 : run_ns(u);
	double peak = 0, *v = calloc(ns ? (size_t)ns : 1, sizeof(double));
	fprintf(f, o->kind == TZA_PLOT_IO ? "$IO%zu << EOD\n" : "$S%zu << EOD\n", k);
	for (unsigned b = 0; p->in && v && b < p->st.nb; b++) {
		memset(v, 0, (size_t)ns * sizeof(double));
		for (int s = 0; s < p->st.ns; s++)
			v[o->kind == TZA_PLOT_IO ? s : p->run_series[s]] +=
			    p->st.bins[(size_t)s * p->st.nb + b];
		fprintf(f, "%.6f", bin_x(u, p, o, b));
		double acc = 0;
		if (o->kind == TZA_PLOT_IO) {
			for (int s = 0; s < 4; s++) { /* bytes per ns: MiB/s */
				double x = v[s] * 1e9 / 1048576.0;
				peak = x > peak ? x : peak;
				fprintf(f, " %.6g", x);
			}
		} else {
			fputs(" 0", f);
			for (int s = 0; s < ns; s++) {
				acc += v[s];
				fprintf(f, " %.6g", acc);
			}
		}
		peak = acc > peak ? acc : peak;
		fputc('\n', f);
	}
	if (!p->in || !v) /* an empty datablock is an error in gnuplot */
		fputs(o->kind == TZA_PLOT_IO ? "NaN NaN NaN NaN NaN\n" : "NaN 0\n", f);
	fputs("EOD\n", f);
	free(v);
	if (p->host) {
		fprintf(f, "$H%zu << EOD\n", k);
		for (unsigned b = 0; b < p->st.nb; b++)
			if (!isnan(p->host[b])) {
				fprintf(f, "%.6f %.6g\n", bin_x(u, p, o, b), p->host[b]);
				peak = p->host[b] > peak ? p->host[b] : peak;
			}
		fputs("EOD\n", f);
	}
	return peak;
}

/* Host k's heading over its panel: "== host NAME (TRACE), +S.SSSs, N CPUs:
 * WHERE FROM; LEFT OUT ==" */
static void heading(char *buf, size_t n, const struct srun *u, size_t k, int kind)
{
	const struct spanel *p = &u->p[k];
	const struct plot_stack *s = &p->st;
	size_t l = (size_t)snprintf(buf, n, "== host %s (%s), +%.3fs", p->hostname, p->trace,
				    (double)(p->rt0 - u->r0) / 1e9);
	if (kind == TZA_PLOT_CPU && p->ncpus && l < n)
		l += (size_t)snprintf(buf + l, n - l, ", %u CPUs", p->ncpus);
	if (!p->in) {
		if (l < n)
			snprintf(buf + l, n - l, ": its trace is outside the window ==");
		return;
	}
	if (l < n)
		l += (size_t)snprintf(buf + l, n - l, ": %u process%s, %s", p->nprocs,
				      p->nprocs == 1 ? "" : "es",
				      s->sampled  ? "periodic samples where present, else exit totals"
				      : kind == TZA_PLOT_MEM ? "peak RSS held over lifetimes"
							     : "exit totals spread over lifetimes");
	if ((s->running || s->lost) && l < n)
		l += (size_t)snprintf(buf + l, n - l, "; %u still running, %u exit lost: not counted",
				      s->running, s->lost);
	if (s->rss_unknown && l < n)
		l += (size_t)snprintf(buf + l, n - l, "; %u with RSS unknown: not drawn",
				      s->rss_unknown);
	if (s->nclamped && l < n)
		l += (size_t)snprintf(buf + l, n - l, "; %u of %u bins held to %u CPUs (%.3g CPU-s)",
				      s->nclamped, s->nb, p->ncpus, s->clamped_s);
	if (l < n)
		snprintf(buf + l, n - l, " ==");
}

/* The plot command of one panel: the stacked tools (titled in the first
 * panel, which holds the key), its host line and CPU count. */
static void panel_plot(FILE *f, const struct srun *u, size_t k, const struct tza_plot_opts *o)
{
	const struct spanel *p = &u->p[k];
	int key = k == 0;
	fputs("plot ", f);
	if (o->kind == TZA_PLOT_IO) {
		static const char *const io[4][3] = {
		    {"lw 2", "#4e79a7", "read (syscalls, rchar)"},
		    {"lw 2", "#f28e2b", "write (syscalls, wchar)"},
		    {"lw 1 dt 2", "#1f3f77", "read from storage"},
		    {"lw 1 dt 2", "#a0520b", "written to storage"}};
		for (int s = 0; s < 4; s++)
			fprintf(f, "%s$IO%zu using 1:%d with lines %s lc rgb '%s' %s%s%s", s ? ", " : "",
				k, s + 2, io[s][0], io[s][1], key ? "title '" : "notitle",
				key ? io[s][2] : "", key ? "'" : "");
		fputc('\n', f);
		return;
	}
	int ns = run_ns(u);
	for (int s = 0; s < ns; s++) {
		const char *col = s < u->ncolored ? plot_palette[s] : PLOT_OTHER_COLOR;
		fprintf(f, "%s$S%zu using 1:%d:%d with filledcurves lc rgb '%s' ", s ? ", " : "", k,
			s + 2, s + 3, col);
		if (key) {
			fputs("title ", f);
			plot_gp_str(f, s < u->ncolored ? u->tools[s].name : "other tools", 30);
		} else {
			fputs("notitle", f);
		}
	}
	if (!ns)
		fprintf(f, "$S%zu using 1:2 with lines notitle", k);
	if (p->host)
		fprintf(f, ", $H%zu using 1:2 with lines lw 2 lc rgb '" PLOT_HOST_COLOR "' notitle", k);
	if (o->kind == TZA_PLOT_CPU && p->ncpus)
		fprintf(f, ", %u with lines dt 2 lw 2 lc rgb '#222222' notitle", p->ncpus);
	if (key && o->kind == TZA_PLOT_CPU) /* the key's entries of every panel's lines */
		fputs(", NaN with lines lw 2 lc rgb '" PLOT_HOST_COLOR
		      "' title 'host: every process (host samples)', NaN with lines dt 2 lw 2 lc rgb "
		      "'#222222' title \"the host's CPUs\"",
		      f);
	fputc('\n', f);
}

/* The picture's layout: the title above the panels, the x axis below; a
 * panel PANEL_H px high under a heading PANEL_GAP px high, at least
 * PANEL_MIN; the picture at most PANEL_MAXPX high (cairo draws up to 32767) */
#define PANEL_TOP 100
#define PANEL_BOTTOM 60
#define PANEL_GAP 24
#define PANEL_H 170
#define PANEL_MIN 20
#define PANEL_MAXPX 30000

/* The picture's height for n panels: --size's, else PANEL_H each, at most
 * PANEL_MAXPX. */
static unsigned panels_height(const struct tza_plot_opts *o, size_t n)
{
	if (o->height)
		return o->height;
	double h = PANEL_TOP + PANEL_BOTTOM + (double)n * (PANEL_H + PANEL_GAP);
	return h > PANEL_MAXPX ? PANEL_MAXPX : (unsigned)h;
}

/* Do n panels fit (PANEL_MIN px each at least)? 0, or -1 after one line. */
static int panels_fit(const struct tza_plot_opts *o, size_t n)
{
	unsigned h = panels_height(o, n);
	if ((double)h - PANEL_TOP - PANEL_BOTTOM >= (double)n * (PANEL_MIN + PANEL_GAP))
		return 0;
	double need = PANEL_TOP + PANEL_BOTTOM + (double)n * (PANEL_MIN + PANEL_GAP);
	if (need > 10000 || !o->height)
		tza_err("plot: %zu panels (one per host trace) do not fit one picture: plot fewer "
			"hosts at a time (their files, or 'RUN.tz[i]')",
			n);
	else
		tza_err("plot: %zu panels (one per host trace) do not fit %u pixels high: --size "
			"WxH with H of at least %.0f",
			n, h, need);
	return -1;
}

/* The whole script: datablocks, then one panel per host in a multiplot. */
static void script(FILE *f, struct srun *u, struct tza_plot_opts *o)
{
	size_t n = u->f.n;
	int kind = o->kind;
	double *peak = calloc(n ? n : 1, sizeof(double));
	char note[1024];
	int64_t bound_us;
	tza_clock_note(u->clk, n, tza_fleet_one_clock(&u->f), note, sizeof(note), &bound_us);
	fputs("# tracer-analyze plot: gnuplot script with inline data\n# clocks: ", f);
	for (const char *s = note; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
	for (size_t k = 0; k < n; k++) {
		double pk = panel_data(f, u, k, o);
		if (peak)
			peak[k] = pk;
	}
	/* the key at the right (as plot_stacked sizes it), the panels' labels
	 * at the left; a panel 170 px high under a 22 px heading */
	size_t keylen = strlen(kind == TZA_PLOT_IO ? "write (syscalls, wchar)"
						    : "host: every process (host samples)");
	for (int t = 0; kind != TZA_PLOT_IO && t < u->ncolored; t++) {
		size_t l = strlen(u->tools[t].name);
		l = l > 30 ? 33 : l;
		keylen = l > keylen ? l : keylen;
	}
	unsigned w = o->width ? o->width : 1400, right = (unsigned)(6.5 * (double)(keylen + 6) + 20);
	unsigned h = panels_height(o, n), top = PANEL_TOP, bottom = PANEL_BOTTOM, gap = PANEL_GAP;
	double ph = ((double)h - top - bottom) / (double)(n ? n : 1) - gap;
	plot_terminal(f, o, w, h);
	uint32_t nprocs = 0;
	int incomplete = 0;
	const char **hn = calloc(n ? n : 1, sizeof(*hn));
	for (size_t k = 0; k < n; k++) {
		nprocs += u->p[k].nprocs;
		incomplete |= u->p[k].incomplete;
		if (hn)
			hn[k] = u->p[k].hostname;
	}
	char names[400], date[64], dur[32], title[1024], sub[1400];
	if (hn)
		plot_run_names(names, sizeof(names), hn, n);
	else
		snprintf(names, sizeof(names), "%zu hosts", n);
	free(hn);
	double span = (double)(u->w1 - u->w0) / 1e9;
	plot_fmt_date(date, sizeof(date), u->w0);
	plot_fmt_dur(dur, sizeof(dur), span);
	static const char *const what[] = {"", "CPU: cores in use by tool",
					   "memory: resident set by tool", "I/O: bytes per second"};
	snprintf(title, sizeof(title), "%s, run over %s, %s, %s, %u process%s%s", what[kind], names,
		 date, dur, nprocs, nprocs == 1 ? "" : "es",
		 incomplete ? " (TRACE INCOMPLETE: drops or damage)" : "");
	char win[160] = "";
	if (u->windowed)
		snprintf(win, sizeof(win), "; the window +%.3fs to +%.3fs of the run",
			 (double)(u->w0 - u->r0) / 1e9, (double)(u->w1 - u->r0) / 1e9);
	snprintf(sub, sizeof(sub),
		 "one panel per host (each as plot --kind %s of its trace alone), from the run's "
		 "start (its first event on any host)%s; hosts aligned by wall clock%s",
		 kind == TZA_PLOT_CPU ? "cpu" : kind == TZA_PLOT_MEM ? "mem" : "io", win,
		 kind == TZA_PLOT_IO ? "" : "; colour = tool across hosts");
	o->rt0_ns = u->w0;
	double x0 = o->wall ? (double)u->w0 / 1e9 : (double)(u->w0 - u->r0) / 1e9;
	fprintf(f, "set multiplot\n");
	fprintf(f, "set lmargin at screen %.6f\nset rmargin at screen %.6f\n", 80.0 / w,
		1 - (double)right / w);
	fputs("set style fill solid 0.85 noborder\nset ytics font ',8'\n", f);
	for (size_t k = 0; k < n; k++) {
		const struct spanel *p = &u->p[k];
		double t = (double)h - top - (double)k * (ph + gap);
		fprintf(f, "set tmargin at screen %.6f\nset bmargin at screen %.6f\n", t / h,
			(t - ph) / h);
		if (k == 0)
			plot_title(f, title, sub, w, 80, right);
		else
			fputs("unset title\n", f);
		fputs("set format x '% h'\n", f); /* plot_xaxis sets it for wall clock */
		plot_xaxis(f, o, x0, x0 + span, 0, span);
		if (k + 1 < n)
			fputs("set format x ''\nunset xlabel\n", f);
		double pk = peak ? peak[k] : 0;
		if (kind == TZA_PLOT_CPU && p->ncpus > pk)
			pk = p->ncpus;
		fprintf(f, "set yrange [0:%.6g]\n", pk > 0 ? pk * 1.12 : 1);
		fprintf(f, "set ylabel '%s' font ',8'\n",
			kind == TZA_PLOT_CPU ? "cores" : kind == TZA_PLOT_MEM ? "MiB" : "MiB/s");
		char hd[1200];
		heading(hd, sizeof(hd), u, k, kind);
		fputs("set label 1 ", f);
		plot_gp_str(f, hd, 400);
		fputs(" at graph 0, graph 1 left offset 0,0.7 font ',8' front\n", f);
		if (k == 0)
			fprintf(f, "set key at screen %.6f, screen %.6f left top vertical Left reverse font ',8'\n",
				1 - (double)right / w + 10.0 / w, t / h);
		else
			fputs("unset key\n", f);
		panel_plot(f, u, k, o);
	}
	fputs("unset multiplot\nunset output\n", f);
	free(peak);
}

static void srun_free(struct srun *u)
{
	for (size_t i = 0; u->p && i < u->f.n; i++) {
		struct spanel *p = &u->p[i];
		for (int k = 0; p->tool && k < p->st.ns; k++)
			free(p->tool[k]);
		free(p->tool);
		free(p->run_series);
		free(p->host);
		free(p->st.bins);
		free(p->hostname);
	}
	for (size_t t = 0; t < u->ntools; t++)
		free((char *)u->tools[t].name);
	free(u->tools);
	free(u->p);
	free(u->clk);
	tza_fleet_free(&u->f);
}

int plot_hosts_series(FILE *f, char **args, int n, const struct tza_plot_opts *opts)
{
	struct srun u = {0};
	struct tza_plot_opts o = *opts;
	int rc = -1;
	u.windowed = o.hfrom.kind || o.hto.kind;
	if (tza_fleet_open("plot", args, n, &u.f) || panels_fit(&o, u.f.n) < 0)
		goto out;
	u.p = calloc(u.f.n ? u.f.n : 1, sizeof(*u.p));
	u.clk = calloc(u.f.n ? u.f.n : 1, sizeof(*u.clk));
	if (!u.p || !u.clk)
		goto oom;
	/* with a window, first the run's start (seconds count from it) */
	for (size_t i = 0; u.windowed && i < u.f.n; i++) {
		tz_reader *r;
		struct tza_model *m;
		const char *hn;
		if (tza_fleet_load(&u.f, i, 0, &r, &m, &hn) < 0)
			goto out;
		int bad = place(&u, i, r, m);
		tza_unload(r, m);
		if (bad)
			goto out;
	}
	for (size_t i = 0; u.windowed && i < u.f.n; i++) {
		const struct spanel *p = &u.p[i];
		int64_t e = p->rt0 + (int64_t)(p->boot1 - p->boot0);
		if (!i || p->rt0 < u.r0)
			u.r0 = p->rt0;
		if (!i || e > u.r1)
			u.r1 = e;
	}
	if (u.windowed && plot_run_window(&o, u.r0, u.r1, &u.w0, &u.w1) < 0)
		goto out;
	for (size_t i = 0; i < u.f.n; i++) {
		if (one_panel(&u, i, &o) < 0)
			goto out;
		const struct spanel *p = &u.p[i];
		int64_t e = p->rt0 + (int64_t)(p->boot1 - p->boot0);
		if (!u.windowed && (!i || p->rt0 < u.r0))
			u.r0 = p->rt0;
		if (!u.windowed && (!i || e > u.r1))
			u.r1 = e;
	}
	if (!u.windowed) {
		u.w0 = u.r0;
		u.w1 = u.r1 > u.r0 ? u.r1 : u.r0 + 1000000000LL; /* one instant: a 1 s frame */
	}
	if (rank(&u) < 0)
		goto oom;
	script(f, &u, &o);
	rc = 0;
	goto out;
oom:
	tza_err("plot: out of memory");
out:
	srun_free(&u);
	return rc;
}
