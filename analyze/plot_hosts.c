/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot_hosts.c - `tracer-analyze plot` (gantt) of a run recorded on several
 * hosts (fleet.h; docs/tracer-analyze.md "MANY HOSTS"): one band per host,
 * its rows as plot of that trace alone makes them (plot_layout.c), on the
 * run's time axis, one tool colouring for the whole run.
 *
 * Each host's times are put on the wall clock with one offset (its anchor at
 * its trace start, where export's start_s is 0; summary's start_offset_s is
 * of the recorders' windows, close to it), so its own durations stay exact;
 * the run starts at the earliest host's trace start. Hosts are read one at a
 * time, twice: first for the tools' ranking across hosts (the colours) and
 * the bands' sizes, then to draw each band; the script's parts are gathered
 * in memory streams and written at the end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/vec.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "json.h"
#include "plot_int.h"
#include "report.h"
#include "task.h"

/* One host's band. */
struct hband {
	char *hostname; /* owned */
	const char *trace;
	int64_t rt0, rt1; /* wall clock at its first and last event, ns */
	uint64_t boot0, boot1; /* its first and last event, CLOCK_BOOTTIME ns */
	int in;		       /* its trace meets the window (always without one) */
	uint64_t w0, w1;       /* with a window: its part, in its clock */
	int row0;	  /* its heading's row; its rows follow */
	int nrows;
	uint32_t nprocs; /* processes drawn */
	int incomplete;
	unsigned mode; /* tza_argv_mode of its trace */
};

struct hplot {
	struct tza_fleet f;
	struct hband *b;
	struct tza_host_clock *clk;
	struct plot_tool *tools; /* across hosts, names owned; ranked after pass 1 */
	size_t ntools, captools;
	int64_t r0, r1; /* the run: first first event, last last event (wall ns) */
	size_t maxlab;	/* the longest row label (characters, capped at 63) */
	int nrows;	/* every band's heading and rows */
	const char *cmd; /* the command, in messages: "plot" or "report" */
	int windowed;	 /* --from or --to: w0, w1 and each band's part */
	int64_t w0, w1;	 /* the window drawn (wall ns): the run without one */
};

/* Host i's model into *r, *m (tasks too when --task was given). 0, or -1
 * after one line. */
static int load_host(struct hplot *u, size_t i, tz_reader **r, struct tza_model **m)
{
	const char *hn;
	return tza_fleet_load(&u->f, i, 0, r, m, &hn);
}

/* The run's tool named name (added with nothing counted when new); NULL
 * when out of memory. Tens of tools a host: a linear search. */
static struct plot_tool *run_tool(struct hplot *u, const char *name)
{
	return plot_tool_find(&u->tools, &u->ntools, &u->captools, name);
}

/* The heading row's label of band b. */
static void heading(char *buf, size_t n, const struct hband *b, int64_t r0)
{
	snprintf(buf, n, "== host %s (%s), +%.3fs%s ==", b->hostname, b->trace,
		 (double)(b->rt0 - r0) / 1e9, b->in ? "" : ": its trace is outside the window");
}

/* Pass 1 (bo NULL), host i of c's model: its wall-clock range, its tools
 * into the run's, its band's size. 0, or -1 after one line. */
static int measure(struct hplot *u, size_t i, tz_reader *r, struct plot_ctx *c,
		   const struct plot_gantt_layout *g)
{
	struct hband *b = &u->b[i];
	if (!u->windowed) {
		if (tza_host_clock_anchor(u->cmd, r, b->trace, b->hostname, c->t0, &u->clk[i],
					  &b->rt0))
			return -1;
		b->rt1 = b->rt0 + (int64_t)(c->t1 - c->t0);
		b->boot0 = c->t0;
	}
	b->nrows = b->in ? g->nrows : 0;
	b->nprocs = b->in ? g->n : 0;
	b->incomplete = c->m->incomplete;
	for (size_t t = 0; b->in && t < c->ntools; t++) {
		struct plot_tool *rt = run_tool(u, c->tools[t].name);
		if (!rt) {
			tza_err("%s: out of memory", u->cmd);
			return -1;
		}
		rt->cpu_s += c->tools[t].cpu_s;
		rt->wall_s += c->tools[t].wall_s;
	}
	for (int k = 0; k < g->nrows; k++) {
		size_t l = strlen(g->rows[k].label) + (g->per_proc ? 0 : 6);
		if (l > u->maxlab)
			u->maxlab = l > 63 ? 63 : l;
	}
	return 0;
}

/* Pass 2, host i of c's model: its band drawn into bo (the run's colours,
 * rows from its heading, x from the run's start). 0, or -1 after one line. */
static int draw(struct hplot *u, size_t i, struct plot_ctx *c, const struct plot_gantt_layout *g,
		double px, double xmax, struct plot_band_out *bo)
{
	const struct hband *b = &u->b[i];
	if (g->nrows != b->nrows) { /* the same trace read twice */
		tza_err("%s: '%s': changed while it was read", u->cmd, b->trace);
		return -1;
	}
	c->xoff = (double)(b->rt0 + (int64_t)(c->t0 - b->boot0) - u->r0) / 1e9;
	c->row0 = b->row0 + 1;
	c->span_s = (double)(u->w1 - u->w0) / 1e9; /* labels: long against the run */
	/* measure added every tool of a band in the window: found, not added */
	for (size_t t = 0; b->in && t < c->ntools; t++) {
		const struct plot_tool *rt = run_tool(u, c->tools[t].name);
		c->tools[t].color = rt ? rt->color : -1;
	}
	char h[600];
	heading(h, sizeof(h), b, u->r0);
	fputs(", ", bo->ytics);
	plot_gp_str(bo->ytics, h, 120);
	fprintf(bo->ytics, " %d", b->row0);
	fputs("# host ", bo->bars);
	plot_gp_str(bo->bars, b->hostname, 200);
	fputc('\n', bo->bars);
	if (b->row0)
		fprintf(bo->labels,
			"set arrow from graph 0, first %.1f to graph 1, first %.1f nohead "
			"lc rgb '#888888' back\n",
			b->row0 - 0.5, b->row0 - 0.5);
	if (b->in && plot_gantt_band(c, g, px, xmax, bo) < 0) {
		tza_err("plot: out of memory");
		return -1;
	}
	return 0;
}

/* With a window, host i's place first (before pass 1): its range and its
 * anchor at its first event, as measure finds them without one. 0, or -1
 * after one line. */
static int place(struct hplot *u, size_t i)
{
	struct hband *b = &u->b[i];
	tz_reader *r;
	struct tza_model *m;
	if (load_host(u, i, &r, &m) < 0)
		return -1;
	b->trace = u->f.h[i].name;
	b->hostname = strdup(tza_fleet_hostname(&u->f, i, r));
	b->mode = tza_argv_mode(r);
	b->boot0 = m->t0_ns;
	b->boot1 = m->t1_ns;
	int rc = -1;
	if (!b->hostname)
		tza_err("%s: out of memory", u->cmd);
	else if (!tza_host_clock_anchor(u->cmd, r, b->trace, b->hostname, b->boot0, &u->clk[i],
					&b->rt0))
		rc = 0;
	b->rt1 = b->rt0 + (int64_t)(b->boot1 - b->boot0);
	tza_unload(r, m);
	return rc;
}

/* Host i read into its model and laid out, then measured (pass 1: bo NULL)
 * or drawn into bo. 0, or -1 after one line. */
static int one_band(struct hplot *u, size_t i, struct tza_plot_opts *o, double px, double xmax,
		    struct plot_band_out *bo)
{
	struct hband *b = &u->b[i];
	tz_reader *r;
	struct tza_model *m;
	struct plot_ctx c = {0};
	struct plot_gantt_layout g = {0};
	int rc = -1;
	if (load_host(u, i, &r, &m) < 0)
		return -1;
	if (!bo && !u->windowed) {
		b->trace = u->f.h[i].name;
		b->hostname = strdup(tza_fleet_hostname(&u->f, i, r));
		b->mode = tza_argv_mode(r);
		b->in = 1;
	}
	o->from_ns = o->to_ns = 0;
	if (u->windowed) /* the host's part of the window, drawn as --from/--to of it */
		b->in = plot_host_window(u->w0, u->w1, b->rt0, b->boot0, b->boot1, &o->from_ns,
					 &o->to_ns);
	/* --time wall: this host's own clock at its window's start */
	o->rt0_ns = bo ? b->rt0 + (int64_t)((b->in && o->from_ns ? o->from_ns : b->boot0) - b->boot0)
		       : INT64_MIN;
	if (!b->hostname || plot_ctx_init(&c, m, o) < 0 ||
	    (b->in && plot_gantt_layout(&c, &g) < 0))
		tza_err("%s: out of memory", u->cmd);
	else
		rc = bo ? draw(u, i, &c, &g, px, xmax, bo) : measure(u, i, r, &c, &g);
	plot_gantt_layout_free(&g);
	plot_ctx_free(&c);
	tza_unload(r, m);
	return rc;
}

/* The script's parts, as memory streams. */
struct parts {
	char *buf[5];
	size_t len[5];
	struct plot_band_out bo;
};

static int parts_open(struct parts *p)
{
	FILE **fp[5] = {&p->bo.ytics, &p->bo.bars, &p->bo.labels, &p->bo.fail, &p->bo.lost};
	for (int k = 0; k < 5; k++)
		if (!(*fp[k] = open_memstream(&p->buf[k], &p->len[k])))
			return -1;
	return 0;
}

/* Close the streams (the buffers stay); -1 when one failed. */
static int parts_close(struct parts *p)
{
	FILE **fp[5] = {&p->bo.ytics, &p->bo.bars, &p->bo.labels, &p->bo.fail, &p->bo.lost};
	int rc = 0;
	for (int k = 0; k < 5; k++) {
		if (*fp[k] && fclose(*fp[k]))
			rc = -1;
		*fp[k] = NULL;
	}
	return rc;
}

void plot_run_names(char *buf, size_t n, const char *const *hn, size_t nh)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	snprintf(buf, n, "%zu hosts", nh);
	if (!f)
		return;
	tza_hosts_say(f, nh, tza_hosts_distinct(hn, nh));
	fputs(" (", f);
	tza_hosts_names(f, ", ", hn, nh);
	fputc(')', f);
	if (!fclose(f))
		snprintf(buf, n, "%s", s);
	free(s);
}

/* An end of the window on the wall clock: seconds count from the run's
 * start r0 (held at the end of time, no overflow) */
static int64_t when_wall(const struct tza_plot_when *w, int64_t r0)
{
	int64_t t;
	if (w->kind == 2)
		return w->wall_ns;
	if (w->rel_ns > INT64_MAX || __builtin_add_overflow(r0, (int64_t)w->rel_ns, &t))
		return INT64_MAX;
	return t;
}

int plot_run_window(const struct tza_plot_opts *o, int64_t r0, int64_t r1, int64_t *w0,
		    int64_t *w1)
{
	*w0 = r0;
	*w1 = r1;
	if (!o->hfrom.kind && !o->hto.kind)
		return 0;
	int64_t a = !o->hfrom.kind ? r0 : when_wall(&o->hfrom, r0);
	int64_t b = !o->hto.kind ? r1 : when_wall(&o->hto, r0);
	if (o->hfrom.kind && o->hto.kind && b <= a) {
		tza_err("plot: --to must be later than --from");
		return -1;
	}
	*w0 = a > r0 ? a : r0;
	*w1 = b < r1 ? b : r1;
	if (*w1 <= *w0) {
		char x[64], y[64];
		tza_err("plot: the window (--from, --to) misses the run, %s .. %s: nothing to draw",
			tza_fmt_utc(r0, x, sizeof(x)), tza_fmt_utc(r1, y, sizeof(y)));
		return -1;
	}
	return 1;
}

int plot_host_window(int64_t w0, int64_t w1, int64_t rt0, uint64_t boot0, uint64_t boot1,
		     uint64_t *b0, uint64_t *b1)
{
	int64_t d0 = tza_sub_sat(w0, rt0), d1 = tza_sub_sat(w1, rt0);
	uint64_t len = boot1 - boot0;
	if (d1 <= 0 || (d0 > 0 && (uint64_t)d0 >= len))
		return 0;
	*b0 = d0 <= 0 ? boot0 : boot0 + (uint64_t)d0;
	*b1 = (uint64_t)d1 >= len ? boot1 : boot0 + (uint64_t)d1;
	return 1;
}

/* The whole script from the parts. */
static void assemble(FILE *f, struct hplot *u, struct tza_plot_opts *o, struct parts *p, unsigned w,
		     double plot_px, const char *note)
{
	unsigned h = o->height ? o->height : 170 + 16 * (unsigned)(u->nrows < 12 ? 12 : u->nrows);
	if (h > 4000)
		h = 4000;
	uint32_t nprocs = 0;
	int incomplete = 0;
	char names[400], date[64], dur[32], title[1024];
	for (size_t i = 0; i < u->f.n; i++) {
		nprocs += u->b[i].nprocs;
		incomplete |= u->b[i].incomplete;
	}
	const char **hn = calloc(u->f.n ? u->f.n : 1, sizeof(*hn));
	for (size_t i = 0; hn && i < u->f.n; i++)
		hn[i] = u->b[i].hostname;
	if (hn)
		plot_run_names(names, sizeof(names), hn, u->f.n);
	else
		snprintf(names, sizeof(names), "%zu hosts", u->f.n);
	free(hn);
	plot_fmt_date(date, sizeof(date), u->w0);
	plot_fmt_dur(dur, sizeof(dur), (double)(u->w1 - u->w0) / 1e9);
	snprintf(title, sizeof(title), "timeline: run over %s, %s, %s, %u process%s%s", names, date,
		 dur, nprocs, nprocs == 1 ? "" : "es",
		 incomplete ? " (TRACE INCOMPLETE: drops or damage)" : "");
	fputs("# tracer-analyze plot: gnuplot script with inline data\n", f);
	fputs("# clocks: ", f);
	for (const char *s = note; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
	plot_terminal(f, o, w, h);
	char sub[400], win[160] = "";
	if (u->windowed)
		snprintf(win, sizeof(win), "; the window +%.3fs to +%.3fs of the run",
			 (double)(u->w0 - u->r0) / 1e9, (double)(u->w1 - u->r0) / 1e9);
	snprintf(sub, sizeof(sub),
		 "one band per host (its rows as in plot of its trace alone), from the run's "
		 "start (its first event on any host)%s; hosts aligned by wall clock; colour = "
		 "tool across hosts",
		 win);
	plot_title(f, title, sub, w, (unsigned)(6 * u->maxlab + 50), 10);
	o->rt0_ns = u->w0;
	double span = (double)(u->w1 - u->w0) / 1e9;
	double x0 = o->wall ? (double)u->w0 / 1e9 : (double)(u->w0 - u->r0) / 1e9;
	plot_xaxis(f, o, x0, x0 + span, PLOT_XPAD_GANTT, span);
	fprintf(f, "set yrange [%f:%f]\n", u->nrows - 0.4, -0.6);
	fputs("set ytics scale 0 font ',8' (", f);
	/* the ytics part starts ", " */
	fwrite(p->buf[0] + 2, 1, p->len[0] > 2 ? p->len[0] - 2 : 0, f);
	fputs(")\n", f);
	fputs("set style fill solid 1.0 noborder\n", f);
	struct plot_ctx gc = {.tools = u->tools,
			      .ntools = u->ntools,
			      .ncolored = u->ntools < PLOT_NCOLORS ? (int)u->ntools : PLOT_NCOLORS};
	plot_gantt_key(f, &gc, p->bo.nlost > 0, plot_px);
	fputs("$BARS << EOD\n", f);
	fwrite(p->buf[1], 1, p->len[1], f);
	if (!nprocs) /* an empty datablock is an error in gnuplot */
		fputs("NaN NaN NaN NaN 0\n", f);
	fputs("EOD\n", f);
	fwrite(p->buf[2], 1, p->len[2], f);
	fputs("$FAIL << EOD\n", f);
	fwrite(p->buf[3], 1, p->len[3], f);
	fputs(p->bo.nfail ? "EOD\n" : "NaN NaN\nEOD\n", f);
	if (p->bo.nlost) {
		fputs("$LOST << EOD\n", f);
		fwrite(p->buf[4], 1, p->len[4], f);
		fputs("EOD\n", f);
	}
	plot_gantt_cmd(f, &gc, p->bo.nfail, p->bo.nrun, p->bo.nlost);
	fputs("unset output\n", f);
}

static void hplot_free(struct hplot *u)
{
	for (size_t i = 0; u->b && i < u->f.n; i++)
		free(u->b[i].hostname);
	for (size_t t = 0; t < u->ntools; t++)
		free((char *)u->tools[t].name);
	free(u->tools);
	free(u->b);
	free(u->clk);
	tza_fleet_free(&u->f);
}

/* Pass 1 over every host of args[0..n) (cmd names the command in
 * messages): the bands' ranges and sizes, the run's range, its tools ranked
 * and coloured. 0, or -1 after one line. */
static int measure_all(struct hplot *u, char **args, int n, struct tza_plot_opts *o,
		       const char *cmd)
{
	u->cmd = cmd;
	if (tza_fleet_open(cmd, args, n, &u->f))
		return -1;
	u->b = calloc(u->f.n ? u->f.n : 1, sizeof(*u->b));
	u->clk = calloc(u->f.n ? u->f.n : 1, sizeof(*u->clk));
	if (!u->b || !u->clk) {
		tza_err("%s: out of memory", cmd);
		return -1;
	}
	u->windowed = o->hfrom.kind || o->hto.kind;
	for (size_t i = 0; u->windowed && i < u->f.n; i++) {
		if (place(u, i) < 0)
			return -1;
		struct hband *b = &u->b[i];
		if (!i || b->rt0 < u->r0)
			u->r0 = b->rt0;
		if (!i || b->rt1 > u->r1)
			u->r1 = b->rt1;
	}
	if (u->windowed && plot_run_window(o, u->r0, u->r1, &u->w0, &u->w1) < 0)
		return -1;
	for (size_t i = 0; i < u->f.n; i++) {
		if (one_band(u, i, o, 0, 0, NULL) < 0)
			return -1;
		struct hband *b = &u->b[i];
		if (!u->windowed && (!i || b->rt0 < u->r0))
			u->r0 = b->rt0;
		if (!u->windowed && (!i || b->rt1 > u->r1))
			u->r1 = b->rt1;
		b->row0 = u->nrows;
		u->nrows += 1 + b->nrows;
	}
	if (!u->windowed) {
		u->w0 = u->r0;
		u->w1 = u->r1;
	}
	/* the run's colours: its tools ranked as plot ranks one trace's */
	if (u->ntools)
		qsort(u->tools, u->ntools, sizeof(*u->tools), plot_cmp_tool);
	for (size_t t = 0; t < u->ntools; t++)
		u->tools[t].color = t < PLOT_NCOLORS ? (int)t : -1;
	return 0;
}

int tza_plot_hosts_json(FILE *colors, FILE *hosts, char **args, int n, unsigned *mode)
{
	struct hplot u = {0};
	struct tza_plot_opts o = {0};
	int rc = -1;
	*mode = TZA_MODE_UMASK;
	if (measure_all(&u, args, n, &o, "report") < 0)
		goto out;
	fputs("{\"other\":\"" PLOT_OTHER_COLOR "\",\"fail\":\"" PLOT_FAIL_COLOR "\",\"tools\":{",
	      colors);
	for (size_t t = 0; t < u.ntools && u.tools[t].color >= 0; t++) {
		if (t)
			fputc(',', colors);
		tza_json_cstr(colors, u.tools[t].name);
		fprintf(colors, ":\"%s\"", plot_palette[u.tools[t].color]);
	}
	fputs("}}", colors);
	fputc('[', hosts);
	for (size_t i = 0; i < u.f.n; i++) {
		const struct hband *b = &u.b[i];
		char uuid[33];
		tza_fleet_hex16(uuid, u.f.h[i].me->uuid);
		tza_fleet_json_host(hosts, i ? ",\n" : "", b->hostname, b->trace);
		int64_t off = b->rt0 - u.r0, span = b->rt1 - b->rt0; /* both >= 0 */
		fprintf(hosts,
			",\"trace_uuid\":\"%s\",\"offset_s\":%" PRId64 ".%09" PRId64
			",\"span_s\":%" PRId64 ".%09" PRId64 "}",
			uuid, off / 1000000000, off % 1000000000, span / 1000000000, span % 1000000000);
		if (b->mode != TZA_MODE_UMASK)
			*mode = TZA_MODE_PRIVATE;
	}
	fputc(']', hosts);
	rc = 0;
out:
	hplot_free(&u);
	return rc;
}

int tza_plot_hosts_script(FILE *f, char **args, int n, const struct tza_plot_opts *opts)
{
	struct hplot u = {0};
	struct parts p = {0};
	struct tza_plot_opts o = *opts;
	int rc = -1;
	if (o.kind != TZA_PLOT_GANTT)
		return plot_hosts_series(f, args, n, opts);
	o.from_ns = o.to_ns = 0;
	if (measure_all(&u, args, n, &o, "plot") < 0)
		goto out;
	char note[1024];
	int64_t bound_us;
	tza_clock_note(u.clk, u.f.n, tza_fleet_one_clock(&u.f), note, sizeof(note), &bound_us);
	for (size_t i = 0; i < u.f.n; i++) {
		char h[600];
		heading(h, sizeof(h), &u.b[i], u.r0);
		size_t l = strlen(h);
		if (l > u.maxlab)
			u.maxlab = l > 63 ? 63 : l;
	}
	unsigned w = o.width ? o.width : 1400;
	double plot_px = (double)w - 6.0 * (double)u.maxlab - 60;
	if (plot_px < 200)
		plot_px = 200;
	double span = (double)(u.w1 - u.w0) / 1e9;
	if (span <= 0)
		span = 1;
	double px = span * (1 + PLOT_XPAD_GANTT) / plot_px;
	double xmax = (o.wall ? (double)u.w0 / 1e9 : (double)(u.w0 - u.r0) / 1e9) +
		      span * (1 + PLOT_XPAD_GANTT);
	if (parts_open(&p) < 0)
		goto oom;
	for (size_t i = 0; i < u.f.n; i++)
		if (one_band(&u, i, &o, px, xmax, &p.bo) < 0)
			goto out;
	if (parts_close(&p) < 0)
		goto oom;
	assemble(f, &u, &o, &p, w, plot_px, note);
	rc = 0;
	goto out;
oom:
	tza_err("plot: out of memory");
out:
	parts_close(&p);
	for (int k = 0; k < 5; k++)
		free(p.buf[k]);
	hplot_free(&u);
	return rc;
}
