/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot.h - gnuplot pictures of a process model (`tracer-analyze plot`,
 * docs/plots-and-bundles.md). The model is turned into one gnuplot script
 * with inline data (datablocks); the script is piped to gnuplot at run time
 * (no library link), or written out with --script.
 *
 * Kinds:
 *   gantt  one bar per process (or, past max_rows processes, one row per
 *          --by group with up to 4 lanes for concurrency), coloured by tool,
 *          non-zero exits marked with a red cross, long processes labelled;
 *   cpu    cores in use over time, stacked by the top tools, with the
 *          machine's CPU count as a dashed line;
 *   mem    resident memory over time, stacked by tool;
 *   io     read and write bytes per second (syscall level and storage).
 * Until traces hold periodic samples, cpu/mem/io are derived from exact
 * exit totals: a process's CPU time and I/O bytes are spread evenly over its
 * lifetime and its peak RSS is held over its lifetime; the plot says so.
 */
#ifndef TRACER_PLOT_H
#define TRACER_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

enum tza_plot_kind { TZA_PLOT_GANTT, TZA_PLOT_CPU, TZA_PLOT_MEM, TZA_PLOT_IO };

/* An end of the window of a plot over several hosts, as given
 * (tza_parse_when): no clock of one trace converts it before the run's start
 * is known. */
struct tza_plot_when {
	int kind;	 /* 0 not given, 1 seconds from the run's start, 2 wall clock */
	int64_t wall_ns; /* kind 2: epoch ns */
	uint64_t rel_ns; /* kind 1: ns after the run's start */
};
enum tza_plot_fmt { TZA_PLOT_PNG, TZA_PLOT_SVG, TZA_PLOT_PDF };

struct tza_plot_opts {
	enum tza_plot_kind kind;
	enum tza_by by;		/* gantt row grouping (colours are always by tool) */
	enum tza_plot_fmt fmt;
	int wall;		/* x axis in wall-clock time (UTC) instead of seconds */
	uint64_t from_ns, to_ns; /* window, CLOCK_BOOTTIME ns; 0/0 = the model's range */
	unsigned width, height; /* pixels (pdf: 1/100 inch); 0 = automatic */
	unsigned max_rows;	/* gantt: one row per process up to this many; 0 = 60 */
	const char *out;	/* output path written by gnuplot's `set output` */
	const char *host;	/* for the title; NULL = "unknown host" */
	const char *what;	/* what was recorded, for the title (tza_trace_what); may be NULL */
	char what_buf[64];	/* storage tza_trace_what may use for what */
	int64_t rt0_ns;		/* CLOCK_REALTIME ns of the window start; INT64_MIN = unknown */
	unsigned ncpus;		/* machine's CPUs (cpu plot's line); 0 = unknown */
	int all;		/* also processes alive before recording began and
				   kernel threads (default: the recorded run only) */
	struct tza_plot_when hfrom, hto; /* over several hosts: --from, --to
					    (from_ns, to_ns are per trace) */
};

/*
 * Fill o's title facts from the trace: host, CPU count, what was recorded
 * (tza_trace_what: the command, or the recording mode) and the wall-clock time
 * of the window start (o->from_ns, else m->t0_ns). Strings borrowed from r/m.
 */
void tza_plot_facts(tz_reader *r, struct tza_model *m, struct tza_plot_opts *o);

/* Output format from a path's extension (.png .svg .pdf); -1 if none fits. */
int tza_plot_fmt_of(const char *path);

/*
 * Write the whole gnuplot script for model m to f. Returns 0, or -1 when
 * out of memory (message printed). Never runs gnuplot.
 */
int tza_plot_script(FILE *f, struct tza_model *m, const struct tza_plot_opts *o);

/*
 * Write the script of a run recorded on several hosts to f: the host
 * traces args[0..n) (fleet.h: files, directories, multi-host traces'
 * members), x from the run's start (the earliest host's first event, by
 * wall clock; each host placed with one offset: its anchor at its first
 * event), or wall clock with o->wall; tools coloured across hosts (ranked
 * by their CPU time over all hosts, in the window). The gantt: one band per
 * trace (a heading row "== host NAME (TRACE), +S.SSSs ==", then its rows as
 * tza_plot_script makes them for that trace alone). cpu, mem, io: one panel
 * per trace, one above the other on the run's x axis, each with the
 * series tza_plot_script draws for that trace alone (plot_hosts_series.c).
 * o->hfrom/hto: a window on the run's axis, clipped to the run (each
 * trace's part of it, in its own clock, is drawn as that trace's plot with
 * --from/--to over it); o->from_ns/to_ns are ignored. Hosts are read one at
 * a time, twice (three times for a gantt with a window). Returns 0, or -1
 * after one line on stderr.
 */
int tza_plot_hosts_script(FILE *f, char **args, int n, const struct tza_plot_opts *o);
/*
 * For the report over several hosts (cmd_report.c): what plot of args[0..n)
 * (as tza_plot_hosts_script takes them) colours and where it puts each host,
 * from the same first pass over the hosts. To colors: the tools' colours
 * across hosts in tza_plot_colors_json's form. To hosts: one JSON array, an
 * object per host trace in the order given, {"hostname", "trace" (its name,
 * "run.tz[1]" for a member), "trace_uuid" (32 hex digits, export's
 * trace_uuid), "offset_s" (its first event after the run's start, seconds,
 * wall clock: the x where plot starts its band, export's start_s 0 there),
 * "span_s" (its first to last event)}. *mode: TZA_MODE_UMASK when every
 * trace was redacted, else TZA_MODE_PRIVATE (tza_argv_mode). Reads every
 * host once. Returns 0, or -1 after one line on stderr.
 */
int tza_plot_hosts_json(FILE *colors, FILE *hosts, char **args, int n, unsigned *mode);

/*
 * Run gnuplot (the binary named by $TRACER_GNUPLOT, else `gnuplot` found in
 * PATH) with script[0..len) on its standard input. Returns 0 when gnuplot
 * exited 0; else prints one line (gnuplot missing: names the Debian package
 * gnuplot-nox; gnuplot failed: its exit status) and returns -1.
 */
int tza_plot_run(const char *script, size_t len);

/*
 * Write the gantt's colour of each tool as one JSON object to f:
 * {"other":"#bab0ac","fail":"#d62728","tools":{"bwa":"#4e79a7",...}}, the
 * tools that get their own colour in `plot` of the whole trace (ranked by CPU
 * time, then wall time, then name; the rest are "other"), so that the HTML
 * report (cmd_report.c) colours each tool as the PNG plots do. Returns 0, or
 * -1 when out of memory (nothing written).
 */
int tza_plot_colors_json(FILE *f, struct tza_model *m);

#endif /* TRACER_PLOT_H */
