/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot_int.h - what the plot files share (not a public interface: plot.h is).
 *
 *   plot.c         palette, tool ranking, gnuplot strings, the title and
 *                  x axis (plot_header), tza_plot_script, the gnuplot driver;
 *   plot_layout.c  the gantt's rows and lanes (plot_gantt_layout);
 *   plot_gantt.c   the gantt drawn from them (plot_gantt);
 *   plot_series.c  cpu, mem and io: series binned over time
 *                  (plot_stack_compute), then drawn.
 *
 * Times are CLOCK_BOOTTIME ns as in the model (model.h); x positions are in
 * the script's x units (seconds from the window start, or Unix seconds with
 * --time wall: plot_x).
 */
#ifndef TRACER_PLOT_INT_H
#define TRACER_PLOT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "plot.h"

#define PLOT_NCOLORS 11
#define PLOT_MAX_LANES 4     /* gantt: lanes per group row */
#define PLOT_NBINS 400	     /* cpu/mem/io: bins across the window */
#define PLOT_XPAD_GANTT 0.09 /* gantt: room right of the last bar for labels */
#ifdef TZA_P_KTHREAD
#define PLOT_KTHREAD_FLAG TZA_P_KTHREAD
#else
#define PLOT_KTHREAD_FLAG 0
#endif

/* Tool colours ("#rrggbb"): red is kept for failures, grey for "other". */
extern const char *const plot_palette[PLOT_NCOLORS];
#define PLOT_OTHER_COLOR "#bab0ac"
#define PLOT_FAIL_COLOR "#d62728"
#define PLOT_HOST_COLOR "#c0392b" /* cpu plot: the host's busy cores beside the stack */
#define PLOT_LOST_COLOR "#333333" /* open circle: exit lost, bar ends at the last event */

/* One tool (tza_proc_key(p, TZA_BY_TOOL)), ranked by plot_rank_tools. */
struct plot_tool {
	const char *name;     /* borrowed from the model */
	double cpu_s, wall_s; /* CPU and wall seconds of its processes in the window */
	int color;	      /* plot_palette index, or -1 = other */
	int first;	      /* index in order of first sight (ranking tie-break) */
};

/* One plot in the making: the model, options, window and tool ranking. */
struct plot_ctx {
	struct tza_model *m;	       /* borrowed */
	const struct tza_plot_opts *o; /* borrowed */
	uint64_t t0, t1;	       /* window, ns; t1 > t0 */
	double span_s;		       /* (t1 - t0) in seconds */
	struct plot_tool *tools;       /* owned: ntools, best first */
	size_t ntools;
	int *proc_tool; /* owned: per process index, its tools[] index */
	int ncolored;	/* tools[0..ncolored) have a palette colour */
	double xoff;	/* seconds added to every relative x (a host's start in
			   a run over several hosts, plot_hosts.c); 0 otherwise */
	int row0;	/* gantt: the first row of this host's band; 0 otherwise */
};

/* The start of p, clipped to the window start. */
static inline uint64_t plot_p_start(const struct plot_ctx *c, const struct tza_proc *p)
{
	return p->start_ns < c->t0 ? c->t0 : p->start_ns;
}

/* Its exit; its last event when the exit was lost (TZA_P_EXIT_LOST), or
 * UINT64_MAX while it runs. */
static inline uint64_t plot_p_last(const struct tza_proc *p)
{
	if (p->flags & TZA_P_EXIT_LOST)
		return p->end_ns > p->start_ns ? p->end_ns : p->start_ns;
	return (p->flags & TZA_P_NO_EXIT) || !p->end_ns ? UINT64_MAX : p->end_ns;
}

/* The end of p (plot_p_last) clipped to the window, never before its start. */
static inline uint64_t plot_p_end(const struct plot_ctx *c, const struct tza_proc *p)
{
	uint64_t e = plot_p_last(p);
	if (e > c->t1)
		e = c->t1;
	return e < plot_p_start(c, p) ? plot_p_start(c, p) : e;
}

/* Its exit was lost and its last event is in the window: the bar ends
 * there, marked (one that goes on past the window is drawn to its end) */
static inline int plot_p_lost(const struct plot_ctx *c, const struct tza_proc *p)
{
	return (p->flags & TZA_P_EXIT_LOST) && plot_p_last(p) <= c->t1;
}

static inline int plot_p_failed(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_NO_EXIT) && (p->exit_code != 0 || p->signal != 0);
}

/* p is drawn: in the window, and of the recorded run unless --all. */
static inline int plot_p_in_window(const struct plot_ctx *c, const struct tza_proc *p)
{
	if (!c->o->all && (p->flags & (TZA_P_PRE_EXISTING | PLOT_KTHREAD_FLAG)))
		return 0;
	return p->start_ns <= c->t1 && plot_p_last(p) >= c->t0;
}

/* x position (script units) of time ns. */
static inline double plot_x(const struct plot_ctx *c, uint64_t ns)
{
	double rel = (double)(ns - c->t0) / 1e9;
	if (c->o->wall && c->o->rt0_ns != INT64_MIN)
		return (double)c->o->rt0_ns / 1e9 + rel;
	return c->xoff + rel;
}

/* String -> index map (open addressing, FNV-1a): groups by name in O(1).
 * Keys are borrowed. plot_nm_init: 0, or -1 out of memory (then still
 * call plot_nm_free). */
struct plot_namemap {
	const char **keys;
	int *vals;
	size_t cap; /* power of two, at least twice the entries */
};
int plot_nm_init(struct plot_namemap *nm, size_t entries);
void plot_nm_free(struct plot_namemap *nm);
/* The value of key, or val (stored) when key is new. */
int plot_nm_get_or_add(struct plot_namemap *nm, const char *key, int val);

/*
 * Group c->m's processes by tool, rank by CPU time (then wall, then name),
 * colour the top PLOT_NCOLORS: fills c->tools, ntools, proc_tool, ncolored
 * (the caller frees tools and proc_tool). Returns 0, or -1 out of memory.
 */
int plot_rank_tools(struct plot_ctx *c);
/* qsort order of struct plot_tool: CPU time, then wall time (both most
 * first), then name. */
int plot_cmp_tool(const void *a, const void *b);

/* The tool named name among (*tools)[0..*n) (tens a run: a linear search),
 * added with nothing counted when new (*tools grown, capacity *cap; the
 * name copied, the caller's to free); NULL when out of memory. The runs
 * over hosts fold every host's tools into one such list. */
struct plot_tool *plot_tool_find(struct plot_tool **tools, size_t *n, size_t *cap,
				 const char *name);

/* The colour of tools[t]: its palette entry, or PLOT_OTHER_COLOR. */
const char *plot_tool_color(const struct plot_ctx *c, int t);

/* s as a gnuplot double-quoted string, cut at max bytes (plot.c). */
void plot_gp_str(FILE *f, const char *s, size_t max);

/* d as "12 ms", "3.4 s", "2.5 min" or "1.2 h". */
void plot_fmt_dur(char *buf, size_t n, double s);

/*
 * The terminal, output, title (kind_title, what was traced, host, date,
 * span, process count; note on the next lines) and x axis, for a picture of
 * w x h pixels. xpad: room right of the window, a fraction of it. left_px,
 * right_px: about how much of the width the row labels and a key at the
 * right take (the title is centred and wrapped between them).
 */
void plot_header(FILE *f, const struct plot_ctx *c, unsigned w, unsigned h, const char *kind_title,
		 const char *note, double xpad, unsigned left_px, unsigned right_px);

/* The parts of plot_header, for a picture of several hosts (plot_hosts.c):
 * the terminal and output; rt_ns as "2026-12-01 22:24:05 UTC" ("unknown
 * date" for INT64_MIN); the title (title then note, each wrapped, centred
 * over the plot area; title cut at 1024 bytes); the border, grid and x axis
 * [x0, x1] plus xpad of it (wall-clock format with o->wall). */
void plot_terminal(FILE *f, const struct tza_plot_opts *o, unsigned w, unsigned h);
void plot_fmt_date(char *buf, size_t n, int64_t rt_ns);
void plot_title(FILE *f, const char *title, const char *note, unsigned w, unsigned left_px,
		unsigned right_px);
void plot_xaxis(FILE *f, const struct tza_plot_opts *o, double x0, double x1, double xpad,
		double span_s);

/* ---------------------------------------------------------------- hosts */

/* The run's hosts for a title, into buf (n bytes, cut): "3 hosts (node1,
 * node2, node3)", or "4 traces on 3 hosts (...)" (each name once; fleet.h,
 * Hosts and traces) of the nh traces' hostnames hn. */
void plot_run_names(char *buf, size_t n, const char *const *hn, size_t nh);

/* The window over several hosts (o->hfrom, o->hto) on the wall clock of a
 * run spanning [r0, r1] (epoch ns), clipped to it, into [*w0, *w1]: the
 * whole run when neither is given. 1 when a window was given, 0 when not,
 * -1 after one line when it misses the run or ends before it begins. */
int plot_run_window(const struct tza_plot_opts *o, int64_t r0, int64_t r1, int64_t *w0,
		    int64_t *w1);

/* A host's part of the wall-clock window [w0, w1] in its own clock, into
 * [*b0, *b1]: the host's time boot is rt0 + (boot - boot0) on the wall clock,
 * its trace spans [boot0, boot1]. 1, or 0 when its trace misses the
 * window. */
int plot_host_window(int64_t w0, int64_t w1, int64_t rt0, uint64_t boot0, uint64_t boot1,
		     uint64_t *b0, uint64_t *b1);

/* tza_plot_hosts_script for cpu, mem and io (plot_hosts_series.c). */
int plot_hosts_series(FILE *f, char **args, int n, const struct tza_plot_opts *o);

/* ---------------------------------------------------------------- gantt */

struct plot_row {
	const char *label; /* borrowed from the model or the layout's labels */
	int tool;	   /* colour of the label's group (tools[] index), -1 mixed */
	uint32_t count;	   /* processes in the row */
	double wall_s;	   /* their wall time in the window, s */
	uint64_t lane_end[PLOT_MAX_LANES]; /* ns: where each lane is free again */
	int nlanes;			   /* lanes in use, 1..PLOT_MAX_LANES */
	uint64_t first;			   /* ns: the first start in the row */
};

struct plot_bar {
	uint32_t proc; /* process index */
	int row, lane;
	uint64_t start; /* ns, for drawing order */
	double x0, x1;	/* as drawn (x units): its label's free space */
};

/* Where each process of the window goes in the gantt. */
struct plot_gantt_layout {
	uint32_t n;	       /* bars: the processes in the window */
	struct plot_bar *bars; /* n, in tree order (depth-first, children by start) */
	struct plot_row *rows; /* nrows, top to bottom */
	int nrows;
	int per_proc;  /* one row per process (n <= max_rows), else per --by group */
	char **labels; /* owned strings: n + 1; labels[n] is the "other" row's */
};

/*
 * Compute the gantt's rows and lanes: with at most max_rows processes one
 * row each (label "PID KEY"), else one row per --by group in order of first
 * start, groups beyond max_rows - 1 (the least wall time) folded into one
 * "other (N groups)" row, each bar in the earliest free of up to
 * PLOT_MAX_LANES lanes (all busy: the lane that frees first). Returns 0, or
 * -1 out of memory (g freed). Free with plot_gantt_layout_free.
 */
int plot_gantt_layout(const struct plot_ctx *c, struct plot_gantt_layout *g);
void plot_gantt_layout_free(struct plot_gantt_layout *g);

/* The whole gantt script after the first line. 0, or -1 out of memory
 * (message printed). */
int plot_gantt(FILE *f, struct plot_ctx *c);

/* The key (below the plot: as many columns as fit plot_px pixels; any_lost:
 * an exit-lost entry is drawn) and the plot command with the failure and
 * exit-lost entries and counts, of c's tools (their colour, name). */
void plot_gantt_key(FILE *f, const struct plot_ctx *c, int any_lost, double plot_px);
void plot_gantt_cmd(FILE *f, const struct plot_ctx *c, int nfail, int nrun, int nlost);

/* Where one host's band of a gantt over several hosts goes: each stream
 * gets lines of one part of the script (plot_hosts.c assembles them). */
struct plot_band_out {
	FILE *ytics;		/* ", \"LABEL\" ROW" per row (c->row0 + row) */
	FILE *bars;		/* $BARS lines */
	FILE *labels;		/* `set label` lines */
	FILE *fail;		/* $FAIL lines */
	FILE *lost;		/* $LOST lines */
	int nfail, nlost, nrun; /* counts, added to */
};

/*
 * Draw layout g of c (a host's model; c->row0 and c->xoff place it in the
 * run) into b's streams as plot_gantt draws one trace: px is one pixel and
 * xmax the plot's right edge, in x units. 0, or -1 out of memory.
 */
int plot_gantt_band(struct plot_ctx *c, const struct plot_gantt_layout *g, double px, double xmax,
		    struct plot_band_out *b);

/* ---------------------------------------------------------------- series */

/* cpu or mem series: one per coloured tool plus "other"; io: 4 series
 * (plot_io_compute). PLOT_NBINS bins each. */
struct plot_stack {
	double *bins;	   /* owned: ns * nb; series s, bin b at [s * nb + b]; cpu:
			      cores in use (CPU-ns per ns), mem: MiB, io: bytes per ns */
	int ns;		   /* series: c->ncolored, plus one "other" if more tools */
	unsigned nb;	   /* bins across [t0, t1) */
	uint32_t running;  /* processes left out: still running (no exit totals) */
	uint32_t lost;	   /* processes left out: exit lost, never sampled */
	uint32_t sampled;  /* processes drawn from periodic samples */
	uint32_t rss_unknown; /* mem: sampled processes with a sample whose RSS is
			      unknown (tza_sample_rss_known), not drawn there */
	unsigned nclamped; /* cpu: bins scaled down to the CPU count */
	double clamped_s;  /* cpu: CPU-s removed by that */
};

/*
 * Bin the cpu (is_cpu) or mem series of c's window: samples where a process
 * has them, else its exit totals (CPU spread over its life, peak RSS held).
 * cpu bins above c->o->ncpus (when known) are scaled down to it. Returns 0,
 * or -1 out of memory. Free s->bins.
 */
int plot_stack_compute(const struct plot_ctx *c, int is_cpu, struct plot_stack *s);

/*
 * Bin the io series of c's window: 4 series (rchar, wchar, read_bytes,
 * write_bytes), bytes per ns; samples where a process has them, else its
 * exit totals spread over its life (running processes are left out and not
 * counted here). Returns 0, or -1 out of memory. Free s->bins.
 */
int plot_io_compute(const struct plot_ctx *c, struct plot_stack *s);

/* The cpu or mem script (c->o->kind) / the io script after the first line.
 * 0, or -1 out of memory (message printed). */
int plot_stacked(FILE *f, struct plot_ctx *c);
int plot_io(FILE *f, struct plot_ctx *c);

/*
 * For tests: a plot_ctx for model m and options o (the window as
 * tza_plot_script sets it, tools ranked). 0, or -1 out of memory. Free
 * with plot_ctx_free.
 */
int plot_ctx_init(struct plot_ctx *c, struct tza_model *m, const struct tza_plot_opts *o);
void plot_ctx_free(struct plot_ctx *c);

#endif /* TRACER_PLOT_INT_H */
