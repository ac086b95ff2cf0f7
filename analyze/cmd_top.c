/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_top.c - bottleneck binaries: per-group totals and flags a user acts on. */
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "follow.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"

static const struct tza_cmd_spec top_spec = {
    .name = "top",
    .synopsis =
	"usage: tracer-analyze top [--by KEY] [--task REGEX] [--sort COL] [-n N] [--json] FILE...\n"
	"       tracer-analyze top --follow [--interval SEC] [--by KEY] [--task REGEX]\n"
	"                          [--sort COL] [-n N] FILE\n\n"
	"Per group: processes, wall time (sum and span), self CPU, mean and max cores,\n"
	"peak RSS, I/O, share of the critical path, and flags:\n"
	"  serial_bottleneck  >= 1 s and >= 20% of the makespan on the critical path,\n"
	"                     0.5 to 1.5 cores (a sleeper waits, it is no bottleneck),\n"
	"                     machine <= 60% busy meanwhile (host samples when the\n"
	"                     trace has them, else the traced processes' CPU)\n"
	"  io_bound           wall >= 1 s, < 0.3 cores, >= 4 MiB/s of storage I/O\n"
	"  memory_heavy       peak RSS >= half the machine's memory\n"
	"  spawn_overhead     >= 1000 processes averaging <= 50 ms each\n"
	"  failed             a non-zero exit or a fatal signal (task groupings:\n"
	"                     of a task's root, the job; not of another member)\n\n"
	"Several hosts (each host's trace, a directory of them, or their 'merge'):\n"
	"one table of (host, group) rows, a HOST column first, each host's groups\n"
	"and CRIT% as top of its trace alone; --json rows add \"host\" and \"trace\".\n\n",
    .notes = "With --by task|rule|job|container, COUNT is TASKS (tasks whose root is in\n"
	     "the group), WALL each task's wall once (root start to last member end),\n"
	     "CORES its CPU over that wall (a task's cores, at most its members' threads,\n"
	     "as rightsize; export --tasks %cpu is the measured value), MAX the highest of one task, and PEAK RSS the largest combined\n"
	     "peak of one task, its members' own from their first exec on (not the copy of\n"
	     "the workflow manager a job's shell runs until it execs; \"-\" when no task's\n"
	     "is known); --json (wall_s: the\n"
	     "processes' sum) adds\n"
	     "\"tasks\", \"task_wall_s\", \"task_peak_rss_kib\", \"failed_tasks\" and\n"
	     "\"member_failures\" (members that failed in any task; docs: Tasks)\n",
    .examples =
	"  tracer-analyze top trace.tz\n"
	"  tracer-analyze top --by command --sort critical trace.tz\n"
	"  tracer-analyze top --follow run.tz      # while tracer-record -o run.tz runs\n"
	"  tracer-analyze top --json trace.tz | jq '.[] | select(.flags | index(\"failed\"))'\n"
	"  tracer-analyze top node1.tz node2.tz    # one run on two hosts\n",
    .col = 19,
};

static int sort_col;
static const char *const cols[] = {"cpu",  "wall",  "span", "count",    "cores", "max_cores",
				   "rss",  "read",  "write", "io",      "critical", "name", NULL};

static double colval(const struct tza_group *g)
{
	switch (sort_col) {
	case 0: return (double)g->cpu_ns;
	case 1: return (double)g->cores_wall_ns; /* WALL as shown */
	case 2: return (double)(g->last_ns - g->first_ns);
	case 3: return (double)g->count;
	case 4: return tza_group_cores(g);
	case 5: return g->max_cores;
	case 6: { /* PEAK RSS as shown (a group of tasks: the largest combined
		     peak of one task); unknown after every known, 0 too */
		uint64_t kib;
		return tza_group_peak(g, &kib) ? (double)kib : -1.0;
	}
	case 7: return (double)g->read_bytes;
	case 8: return (double)g->write_bytes;
	case 9: return (double)(g->rchar + g->wchar);
	case 10: return (double)g->critical_ns;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	const struct tza_group *x = a, *y = b;
	if (sort_col == 11)
		return strcmp(x->key, y->key);
	double u = colval(x), v = colval(y);
	if (u != v)
		return u > v ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void flags_text(FILE *f, uint32_t fl)
{
	int first = 1;
	for (int i = 0; i < 5; i++)
		if (fl & (1u << i)) {
			fprintf(f, "%s%s", first ? "" : ",", tza_flag_names[i]);
			first = 0;
		}
}

/* One row of top: a group, and for a run on several hosts the host it ran
 * on (NULL for one trace) and that host's makespan (CRIT%). */
struct top_row {
	struct tza_group g;
	const char *host, *trace;
	uint64_t makespan_ns;
};

static int cmp_row(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	int c = cmp(&x->g, &y->g);
	return c ? c : (x->host && y->host ? strcmp(x->host, y->host) : 0);
}

static void json_row(FILE *f, const struct top_row *row, enum tza_by by, int first)
{
	const struct tza_group *x = &row->g;
	fputs(first ? "\n{" : ",\n{", f);
	if (row->host) {
		fputs("\"host\":", f);
		tza_json_cstr(f, row->host);
		tza_json_key_cstr(f, "trace", row->trace);
		fputc(',', f);
	}
	fputs("\"tool\":", f);
	tza_json_cstr(f, x->key);
	fprintf(f, ",\"count\":%llu,\"wall_s\":", (unsigned long long)x->count);
	tza_json_secs(f, (int64_t)x->wall_ns);
	tza_json_key_secs(f, "cpu_s", (int64_t)x->cpu_ns);
	tza_json_key_num(f, "max_cores", x->max_cores);
	if (x->rss_known)
		fprintf(f, ",\"peak_rss_kib\":%llu", (unsigned long long)x->peak_rss_kib);
	else /* every process's RSS unknown (a slice's) */
		fputs(",\"peak_rss_kib\":null", f);
	fprintf(f, ",\"read_bytes\":%llu,\"write_bytes\":%llu,\"critical_s\":",
		(unsigned long long)x->read_bytes, (unsigned long long)x->write_bytes);
	tza_json_secs(f, (int64_t)x->critical_ns);
	if (by >= TZA_BY_TASK) {
		fprintf(f, ",\"tasks\":%llu,\"task_wall_s\":", (unsigned long long)x->tasks);
		tza_json_secs(f, (int64_t)x->task_wall_ns);
		if (x->tasks && !x->task_rss_known) /* every task's peak unknown */
			fputs(",\"task_peak_rss_kib\":null", f);
		else
			fprintf(f, ",\"task_peak_rss_kib\":%llu",
				(unsigned long long)x->task_peak_rss_kib);
		fprintf(f, ",\"failed_tasks\":%llu,\"member_failures\":%llu",
			(unsigned long long)x->failed, (unsigned long long)x->member_failures);
	}
	fputs(",\"flags\":[", f);
	int fst = 1;
	for (int k = 0; k < 5; k++)
		if (x->flags & (1u << k)) {
			fprintf(f, "%s\"%s\"", fst ? "" : ",", tza_flag_names[k]);
			fst = 0;
		}
	fputs("]}", f);
}

static void text_row(FILE *f, const struct top_row *row, enum tza_by by, int hw, int w)
{
	const struct tza_group *x = &row->g;
	char b[8][32];
	uint64_t peak;
	if (row->host) {
		tza_put_key(f, row->host, hw);
		fputc(' ', f);
	}
	tza_put_key(f, x->key, w);
	fprintf(f, " %7s %10s %10s %10s %5.2f %5.2f %9s %9s %9s %5.1f%%  ",
		tza_fmt_count(b[0], 32, by >= TZA_BY_TASK ? x->tasks : x->count),
		tza_fmt_dur(b[1], 32, x->cores_wall_ns), tza_fmt_dur(b[2], 32, x->last_ns - x->first_ns),
		tza_fmt_dur(b[3], 32, x->cpu_ns), tza_group_cores(x), x->max_cores,
		!tza_group_peak(x, &peak) ? "-" : tza_fmt_bytes(b[4], 32, peak * 1024),
		tza_fmt_bytes(b[5], 32, x->rchar), tza_fmt_bytes(b[6], 32, x->wchar),
		row->makespan_ns ? 100.0 * (double)x->critical_ns / (double)row->makespan_ns : 0.0);
	flags_text(f, x->flags);
	fputc('\n', f);
}

/* The table of n rows (sorted), the first limit (0: all). */
static void print_rows(FILE *f, const struct top_row *rows, uint32_t n, enum tza_by by, int json,
		       uint64_t limit, int incomplete)
{
	uint32_t show = limit && limit < n ? (uint32_t)limit : n;
	if (json) {
		fputc('[', f);
		for (uint32_t i = 0; i < show; i++)
			json_row(f, &rows[i], by, !i);
		fputs(show ? "\n]\n" : "]\n", f);
		return;
	}
	/* the first columns fit the longest host and key shown */
	int hw = rows && rows[0].host ? tza_key_width(&rows[0].host, sizeof(*rows), show) : 0;
	int w = rows ? tza_key_width(&rows[0].g.key, sizeof(*rows), show) : 4;
	if (hw && hw < 4)
		hw = 4;
	if (hw)
		fprintf(f, "%-*s ", hw, "HOST");
	fprintf(f, "%-*s %7s %10s %10s %10s %5s %5s %9s %9s %9s %6s  %s\n", w, tza_by_header(by),
		by >= TZA_BY_TASK ? "TASKS" : "COUNT", "WALL", "SPAN", "CPU", "CORES", "MAX",
		"PEAK RSS", "RCHAR", "WCHAR", "CRIT%", "FLAGS");
	for (uint32_t i = 0; i < show; i++)
		text_row(f, &rows[i], by, hw, w);
	if (show < n)
		fprintf(f, "... %u more (-n 0 shows all)\n", n - show);
	if (incomplete)
		fprintf(f, "note: tree incomplete (drops or damage): see 'summary'\n");
}

/* One trace's rows appended to *rows (keys copied when host is given: the
 * model goes). Returns 0, or -1 after one line. */
static int trace_rows(tz_reader *r, struct tza_model *m, enum tza_by by, const char *host,
		      const char *trace, struct top_row **rows, uint32_t *n)
{
	struct tza_crit cr;
	struct tza_machine mi;
	struct tza_group *g = NULL;
	uint32_t ng = 0;
	tza_machine_get(r, &mi);
	if (tza_critpath(m, by, &cr) < 0 || tza_groups(m, by, &cr, &mi, &g, &ng) < 0) {
		tza_err("out of memory");
		tza_crit_free(&cr);
		return -1;
	}
	struct top_row *nv = realloc(*rows, ((size_t)*n + ng + 1) * sizeof(*nv));
	if (!nv) {
		free(g);
		tza_crit_free(&cr);
		tza_err("out of memory");
		return -1;
	}
	*rows = nv;
	for (uint32_t i = 0; i < ng; i++) {
		struct top_row *row = &nv[(*n)++];
		row->g = g[i];
		row->host = host;
		row->trace = trace;
		row->makespan_ns = cr.makespan_ns;
		if (host && !(row->g.key = strdup(g[i].key))) {
			(*n)--;
			free(g);
			tza_crit_free(&cr);
			tza_err("out of memory");
			return -1;
		}
	}
	free(g);
	tza_crit_free(&cr);
	return 0;
}

/* One table of path (the whole text or JSON output of top); info, when
 * given, receives the reader's facts (unfinished, live, chunks). */
static int top_once(FILE *f, const char *path, enum tza_by by, int json, uint64_t limit,
		    struct tz_info *info)
{
	tz_reader *r;
	struct tza_model *m;
	struct top_row *rows = NULL;
	uint32_t n = 0;
	if (tza_load_ex(path, TZA_MB_SAMPLES, &r, &m) < 0) /* host samples: flags */
		return TZA_EXIT_FAIL;
	if (info)
		*info = *tz_reader_info(r);
	int rc = trace_rows(r, m, by, NULL, NULL, &rows, &n);
	if (!rc) {
		if (n)
			qsort(rows, n, sizeof(*rows), cmp_row);
		print_rows(f, rows, n, by, json, limit, m->incomplete);
	}
	free(rows);
	tza_unload(r, m);
	return rc ? TZA_EXIT_FAIL : TZA_EXIT_OK;
}

/* top over a run on several hosts (fleet.h): every host's groups as rows
 * with the host beside them, in one table. */
static int top_hosts(FILE *f, char **args, int nargs, enum tza_by by, int json, uint64_t limit)
{
	struct tza_fleet fl;
	struct top_row *rows = NULL;
	uint32_t n = 0;
	int rc = -1, incomplete = 0;
	char **hosts = NULL;
	if (tza_fleet_open("top", args, nargs, &fl))
		goto out;
	if (!(hosts = calloc(fl.n ? fl.n : 1, sizeof(*hosts))))
		goto out;
	for (size_t i = 0; i < fl.n; i++) {
		tz_reader *r;
		struct tza_model *m;
		const char *hn;
		if (tza_fleet_load(&fl, i, TZA_MB_SAMPLES, &r, &m, &hn) < 0)
			goto out;
		hosts[i] = strdup(hn);
		incomplete |= m->incomplete;
		int bad = !hosts[i] || trace_rows(r, m, by, hosts[i], fl.h[i].name, &rows, &n);
		tza_unload(r, m);
		if (bad)
			goto out;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row);
	print_rows(f, rows, n, by, json, limit, incomplete);
	rc = 0;
out:
	for (uint32_t i = 0; i < n; i++)
		free((char *)rows[i].g.key);
	for (size_t i = 0; hosts && i < fl.n; i++)
		free(hosts[i]);
	free(hosts);
	free(rows);
	tza_fleet_free(&fl);
	return rc ? TZA_EXIT_FAIL : TZA_EXIT_OK;
}

/* top --follow's refresh (follow.h) */
struct top_args {
	enum tza_by by;
	uint64_t limit;
};
static int top_refresh(FILE *f, const char *path, void *arg, struct tz_info *info)
{
	const struct top_args *a = arg;
	return top_once(f, path, a->by, 0, a->limit, info);
}

/* --by not given: a value no --by sets */
#define TZA_BY_NONE_GIVEN ((enum tza_by)99)

/* --task REGEX given to this top (not only to a report running it): the
 * int *o->dest set */
static int opt_task_here(const struct tza_option *o, const char *arg)
{
	*(int *)o->dest = 1;
	return tza_task_set_regex(arg);
}

int cmd_top(int argc, char **argv)
{
	int follow = 0, json = 0, limit_set = 0, task_given = 0;
	uint64_t interval_ms = 2000, limit = 30;
	enum tza_by by = TZA_BY_NONE_GIVEN;
	sort_col = 0;
	const struct tza_option opts[] = {
		OPT_BY(&by, "exe, tool (default) or command\n"
			    "or task, rule, job, container (docs: Tasks)"),
		OPT_CALL(0, "task", "REGEX", opt_task_here, &task_given,
			 "a task per outermost process matching REGEX\n"
			 "(without --by: --by task; with exe, tool or command:\n"
			 "a usage error)"),
		OPT_ENUM('s', "sort", "COL", &sort_col, cols,
			 "cpu (default), wall, span, count, cores, max_cores, rss\n"
			 "(PEAK RSS as shown, an unknown last), read, write, io,\n"
			 "critical, name"),
		OPT_U64_SEEN('n', "limit", "N", &limit, 0, 1000000000, &limit_set,
			     "show the first N groups (text default 30, 0 = all)"),
		OPT_FLAG('j', "json", &json,
			 "an array of {\"tool\",\"count\",\"wall_s\",\"cpu_s\",\"max_cores\",\n"
			 "\"peak_rss_kib\",\"read_bytes\",\"write_bytes\",\"critical_s\",\"flags\"}"),
		OPT_FOLLOW(&follow,
			 "a trace being written: the table of its sealed chunks again\n"
			 "every --interval, like top(1), until the recorder closes\n"
			 "the file (the last table is the whole trace's; damaged:\n"
			 "the error and exit code of top without --follow), or the\n"
			 "writer is gone (a cut file: the same error and exit\n"
			 "code, unless --partial), or Ctrl-C (the newest 1-3 s are in no\n"
			 "sealed chunk yet; kill -USR1 the recorder to seal now);\n"
			 "q on a terminal stops too"),
		OPT_INTERVAL(&interval_ms, "seconds between tables with --follow (default 2)"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&top_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (by == TZA_BY_NONE_GIVEN) {
		by = task_given ? TZA_BY_TASK : TZA_BY_TOOL;
	} else if (by < TZA_BY_TASK && task_given) {
		tza_err("top: --task REGEX groups by task: use it with --by task, rule, job or "
			"container, or without --by");
		return TZA_EXIT_USAGE;
	}
	if (json && !limit_set)
		limit = 0;
	if (follow && json) {
		tza_err("top: --follow shows a table; --json is not followed (run top --json again)");
		return TZA_EXIT_USAGE;
	}
	const char *path;
	rc = tza_follow_operands("top", follow, argc, argv, &path);
	if (rc == TZA_FOLLOW_HOSTS)
		return top_hosts(stdout, argv + optind, argc - optind, by, json, limit);
	if (rc != TZA_FOLLOW_ONE)
		return rc;
	if (follow)
		return tza_follow("top", path, interval_ms, top_refresh,
				  &(struct top_args){.by = by, .limit = limit});
	return top_once(stdout, path, by, json, limit, NULL);
}
