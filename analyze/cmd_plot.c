/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_plot.c - `tracer-analyze plot`: gantt, cpu, mem and io pictures via gnuplot. */
#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "fleet.h"
#include "model.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "task.h"

static const struct tza_cmd_spec plot_spec = {
    .name = "plot",
    .synopsis = "usage: tracer-analyze plot [OPTIONS] FILE\n"
		"       tracer-analyze plot [OPTIONS] FILE... (several hosts: one run)\n\n"
		"Draw a trace (or a bundle holding one) with gnuplot (Debian: gnuplot-nox).\n\n",
    .notes = "Pictures and scripts are created mode 0666 less the umask (shown to others;\n"
	     "their labels are short tool and command names: record with --redact when\n"
	     "command lines hold secrets). See FILES WRITTEN in docs/tracer-analyze.md.\n"
	     "\ncpu/mem/io draw the periodic samples where the trace has them (CPU time and\n"
	     "bytes between two samples spread evenly, RSS held between samples); a trace\n"
	     "without samples, or a process never sampled, falls back to the exact exit\n"
	     "totals: CPU time and bytes spread evenly over the process's lifetime, peak RSS\n"
	     "held over it. Every such plot says which. A process whose exit event was lost\n"
	     "(exit lost: not alive when the recorder stopped) ends at its last event: its\n"
	     "gantt bar is marked there with an open circle; cpu/mem/io stop there too.\n\n"
	     "Several traces (files, a directory of .tz files, a merge) are one run on\n"
	     "several hosts, drawn on the run's time axis (seconds from the earliest\n"
	     "host's first event, or --time wall), tools coloured across hosts: the gantt\n"
	     "draws one band per host (a heading row, then its rows as for its trace\n"
	     "alone), cpu/mem/io one panel per host (its series as for its trace alone,\n"
	     "its own CPU count). --from/--to are then a window on the run's axis\n"
	     "(seconds from the run's start, or wall clock), clipped to the run; each\n"
	     "host's part of it is drawn as --from/--to of its trace would draw it.\n",
    .examples = "  tracer-analyze plot run.tz -o timeline.png\n"
		"  tracer-analyze plot --kind cpu --time wall run.tz -o cpu.svg\n"
		"  tracer-analyze plot --by command --from 10 --to 1m report.tar.gz -o zoom.pdf\n"
		"  tracer-analyze plot node1.tz node2.tz node3.tz -o run.png\n"
		"  tracer-analyze plot --kind cpu --from 1m --to 2m traces/ -o cpu.png\n",
    .col = 25,
};

/* Fill the title facts (host, CPUs, recorded command, wall-clock start). */
void tza_plot_facts(tz_reader *r, struct tza_model *m, struct tza_plot_opts *o)
{
	static const char *const host_keys[] = {"hostname", "host", "nodename", NULL};
	static const char *const cpu_keys[] = {"ncpus", "cpus", "nr_cpus", "cpus_online",
					       "online_cpus", "nproc", NULL};
	o->host = tza_meta_any(r, host_keys);
	const char *cpus = tza_meta_any(r, cpu_keys);
	o->ncpus = tza_parse_cpus(cpus); /* 0: unknown */
	o->what = tza_trace_what(r, m, o->what_buf, sizeof(o->what_buf));
	int64_t rt;
	uint64_t t0 = o->from_ns ? o->from_ns : m->t0_ns;
	o->rt0_ns = tz_reader_realtime(r, t0, &rt) == 0 ? rt : INT64_MIN;
}

/* What the command line asks for. */
struct plot_args {
	struct tza_plot_opts o;
	const char *from, *to; /* --from, --to as given, or NULL */
	const char *script;    /* --script PATH ("-": stdout), or NULL */
	const char *path;      /* the trace */
	char **paths;	       /* several host traces (hosts), else NULL */
	int npaths;
	int force;
};

/* --kind NAME into the enum tza_plot_kind *o->dest; -1 (message printed)
 * when unknown. */
static int opt_kind(const struct tza_option *o, const char *arg)
{
	enum tza_plot_kind *kind = o->dest;
	static const char *const names[] = {"gantt", "cpu", "mem", "io"};
	static const enum tza_plot_kind kinds[] = {TZA_PLOT_GANTT, TZA_PLOT_CPU, TZA_PLOT_MEM,
						   TZA_PLOT_IO};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(arg, names[i])) {
			*kind = kinds[i];
			return 0;
		}
	tza_err("plot: --kind: '%s' is not one of gantt, cpu, mem, io", arg);
	return -1;
}

/* --size WxH into the struct tza_plot_opts *opt->dest; -1 (message printed)
 * when malformed or out of range. */
static int opt_size(const struct tza_option *opt, const char *arg)
{
	struct tza_plot_opts *o = opt->dest;
	unsigned w, h;
	char extra;
	if (sscanf(arg, "%ux%u%c", &w, &h, &extra) != 2 || w < 200 || h < 150 || w > 10000 ||
	    h > 10000) {
		tza_err("plot: --size: '%s' is not WxH within 200x150..10000x10000", arg);
		return -1;
	}
	o->width = w;
	o->height = h;
	return 0;
}

/* --by KEY into the enum tza_by *o->dest */
static int opt_by(const struct tza_option *o, const char *arg)
{
	return tza_parse_by("plot: --by", arg, o->dest);
}

/* --time rel|wall into the int *o->dest (1: wall) */
static int opt_time(const struct tza_option *o, const char *arg)
{
	if (strcmp(arg, "wall") && strcmp(arg, "rel")) {
		tza_err("plot: --time: '%s' is not one of rel, wall", arg);
		return -1;
	}
	*(int *)o->dest = !strcmp(arg, "wall");
	return 0;
}

/* The command line into a. Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct plot_args *a)
{
	const char *out = NULL;
	uint64_t rows = a->o.max_rows;
	const struct tza_option opts[] = {
		OPT_STRING('o', "output", "PATH", &out,
			   "out.png, out.svg or out.pdf (default timeline.png,\n"
			   "or KIND.png for other kinds)"),
		OPT_CALL('k', "kind", "KIND", opt_kind, &a->o.kind,
			 "gantt (default): one bar per process over time, coloured\n"
			 "by tool, non-zero exits marked, long ones labelled; past\n"
			 "--rows processes, one row per --by group\n"
			 "cpu: cores in use, stacked by tool, with the CPU count\n"
			 "mem: resident memory by tool; io: bytes per second"),
		OPT_CALL(0, "by", "KEY", opt_by, &a->o.by,
			 "gantt row groups: exe, tool, command (default), or\n"
			 "task, rule, job, container (docs: Tasks)"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_CALL(0, "time", "rel|wall", opt_time, &a->o.wall,
			 "x axis: seconds from start (default) or UTC wall clock"),
		OPT_STRING(0, "from", "T", &a->from,
			   "window: seconds from start (90, 1m30s) or wall clock\n"
			   "(2026-11-29T10:00:00); the whole trace is read, the\n"
			   "picture is clipped; after the trace's end: exit 1"),
		OPT_STRING(0, "to", "T", &a->to, "the window's end (as --from)"),
		OPT_U64(0, "rows", "N", &rows, 1, 2000,
			"gantt: one row per process up to N processes (default 60)"),
		OPT_CALL(0, "size", "WxH", opt_size, &a->o,
			 "picture size in pixels (default: automatic)"),
		OPT_FLAG(0, "all", &a->o.all, "also processes alive before recording began"),
		OPT_STRING(0, "script", "PATH", &a->script,
			   "write the gnuplot script there instead of running gnuplot"),
		OPT_FLAG('f', "force", &a->force,
			 "replace PATH (or the --script file) if it exists"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&plot_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	a->o.max_rows = (unsigned)rows;
	if (optind < argc && tza_fleet_wanted(argv + optind, argc - optind)) {
		a->paths = argv + optind;
		a->npaths = argc - optind;
		/* the window's ends: on the run's clock, known once every host is
		 * read (plot_run_window) */
		struct tza_plot_when *w[2] = {&a->o.hfrom, &a->o.hto};
		const char *given[2] = {a->from, a->to}, *opt[2] = {"--from", "--to"};
		for (int k = 0; k < 2; k++) {
			int wk = given[k] ? tza_parse_when(opt[k], given[k], &w[k]->wall_ns,
							   &w[k]->rel_ns)
					  : -1;
			if (given[k] && wk < 0)
				return TZA_EXIT_USAGE;
			w[k]->kind = wk + 1;
		}
		if (a->from && a->to && a->o.hfrom.kind == a->o.hto.kind &&
		    (a->o.hfrom.kind == 2 ? a->o.hto.wall_ns <= a->o.hfrom.wall_ns
				     : a->o.hto.rel_ns <= a->o.hfrom.rel_ns)) {
			tza_err("plot: --to must be later than --from");
			return TZA_EXIT_USAGE;
		}
	} else if (optind != argc - 1) {
		tza_err("plot: expected exactly one FILE (see 'tracer-analyze plot --help')");
		return TZA_EXIT_USAGE;
	}
	a->path = argv[optind];
	static const char *const defaults[] = {"timeline.png", "cpu.png", "mem.png", "io.png"};
	a->o.out = out ? out : defaults[a->o.kind];
	int fmt = tza_plot_fmt_of(a->o.out);
	if (fmt < 0) {
		tza_err("plot: '%s': unknown output type (use .png, .svg or .pdf)", a->o.out);
		return TZA_EXIT_USAGE;
	}
	a->o.fmt = (enum tza_plot_fmt)fmt;
	return -1;
}

/*
 * The window (--from, --to) and the model of the whole trace r into *m.
 * Returns -1 to go on, or the exit code (message printed).
 */
static int load(tz_reader *r, struct plot_args *a, struct tza_model **m)
{
	const char *path = a->path;
	if (tza_check_whole(r, path, 0) < 0)
		return TZA_EXIT_FAIL;
	if ((a->from && tza_parse_time(r, "--from", a->from, &a->o.from_ns) < 0) ||
	    (a->to && tza_parse_time(r, "--to", a->to, &a->o.to_ns) < 0))
		return TZA_EXIT_USAGE;
	if (a->from && a->to && a->o.to_ns <= a->o.from_ns) {
		tza_err("plot: --to must be later than --from");
		return TZA_EXIT_USAGE;
	}
	const struct tz_info *in = tz_reader_info(r);
	if (a->from && a->o.from_ns > in->last_ts_ns) {
		/* past the last event: nothing to draw (slice's verdict, exit 1) */
		char f[40], t[48] = "", e[40];
		if (a->to)
			snprintf(t, sizeof(t), " and --to %s",
				 tza_fmt_dur(e, sizeof(e), a->o.to_ns - in->first_ts_ns));
		tza_err("'%s': plot: nothing %s --from %s%s (the trace ends at %s); '%s' not "
			"written",
			path, a->to ? "between" : "after",
			tza_fmt_dur(f, sizeof(f), a->o.from_ns - in->first_ts_ns), t,
			tza_fmt_dur(e, sizeof(e), in->last_ts_ns - in->first_ts_ns),
			a->script ? a->script : a->o.out);
		return TZA_EXIT_FAIL;
	}
	/*
	 * The model always covers the whole trace; a window only clips the
	 * picture. So processes that began before --from keep their names and
	 * those still running at --to keep their exit totals (whose share in the
	 * window is drawn).
	 */
	/* cpu, mem and io draw the periodic samples where the trace has them */
	int err = tza_model_read(path, r, 0, UINT64_MAX,
				 a->o.kind == TZA_PLOT_GANTT ? 0 : TZA_MB_SAMPLES, m);
	if (err < 0) {
		tza_err_tz(tz_reader_errmsg(r), path, err);
		return TZA_EXIT_FAIL;
	}
	if (tza_check_whole(r, path, 1) < 0)
		return TZA_EXIT_FAIL;
	if (tza_task_wanted() && tza_tasks_for(*m) < 0)
		return TZA_EXIT_FAIL;
	return -1;
}

/* The script buf[0..len) to --script, else run through gnuplot into the
 * picture. Returns the exit code. */
static int put_out(const struct plot_args *a, const char *buf, size_t len)
{
	const char *script = a->script;
	if (script) {
		/* the script holds the picture's labels: shared like it (umask) */
		FILE *sf = !strcmp(script, "-") ? stdout
						: tza_create_out(script, a->force, TZA_MODE_UMASK,
								 "w", "-f");
		if (!sf)
			return TZA_EXIT_FAIL;
		if (sf == stdout) {
			if (fwrite(buf, 1, len, sf) != len || fflush(sf)) {
				tza_err("standard output: write failed");
				return TZA_EXIT_FAIL;
			}
			return TZA_EXIT_OK;
		}
		int bad = fwrite(buf, 1, len, sf) != len;
		if ((fclose(sf) != 0) | bad) {
			tza_err("'%s': cannot write the script", script);
			unlink(script);
			return TZA_EXIT_FAIL;
		}
		return TZA_EXIT_OK;
	}
	/* gnuplot writes into a fresh file made here, mode per the umask (a
	 * picture is made to be shown): never into an old file's inode
	 * (keeping its mode) and never through a symlink */
	FILE *of = tza_create_out(a->o.out, a->force, TZA_MODE_UMASK, "w", "-f");
	if (!of)
		return TZA_EXIT_FAIL;
	fclose(of);
	if (tza_plot_run(buf, len) < 0) {
		remove(a->o.out);
		return TZA_EXIT_FAIL;
	}
	return TZA_EXIT_OK;
}

/* The gantt of several hosts (tza_plot_hosts_script). Returns the exit
 * code. */
static int plot_hosts(struct plot_args *a)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = TZA_EXIT_FAIL;
	FILE *mf = open_memstream(&buf, &len);
	if (!mf) {
		tza_err("plot: out of memory");
		return rc;
	}
	int err = tza_plot_hosts_script(mf, a->paths, a->npaths, &a->o);
	if (fclose(mf)) {
		if (!err)
			tza_err("plot: out of memory");
	} else if (!err) {
		rc = put_out(a, buf, len);
	}
	free(buf);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a = {.o = {.kind = TZA_PLOT_GANTT, .by = TZA_BY_COMMAND}};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	const char *wr = a.script ? a.script : a.o.out;
	if (tza_refuse_out_in_args("plot", wr, a.paths ? a.paths : (char **)&a.path,
				   a.paths ? a.npaths : 1))
		return TZA_EXIT_FAIL;
	if (a.paths)
		return plot_hosts(&a);
	tz_reader *r = tza_open(a.path, NULL);
	if (!r)
		return TZA_EXIT_FAIL;
	struct tza_model *m = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = NULL;
	rc = load(r, &a, &m);
	if (rc >= 0)
		goto out;
	rc = TZA_EXIT_FAIL;
	tza_plot_facts(r, m, &a.o);
	mf = open_memstream(&buf, &len);
	if (!mf || tza_plot_script(mf, m, &a.o) < 0)
		goto out;
	if (fclose(mf)) {
		mf = NULL;
		tza_err("plot: out of memory");
		goto out;
	}
	mf = NULL;
	rc = put_out(&a, buf, len);
out:
	if (mf)
		fclose(mf);
	free(buf);
	tza_tasks_release(m);
	tza_model_free(m);
	tz_reader_free(r);
	return rc;
}
