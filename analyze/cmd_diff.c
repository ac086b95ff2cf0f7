/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_diff.c - compare two traces per tool: what got slower, bigger, new. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"

static const struct tza_cmd_spec diff_spec = {
    .name = "diff",
    .synopsis = "usage: tracer-analyze diff [--by KEY] [--task REGEX] [-n N] [--json] A.tz B.tz\n"
		"\n"
		"Per group: processes, wall time (sum), self CPU, peak RSS and I/O (rchar +\n"
		"wchar) of run A and run B with ratios B/A, sorted by the largest change\n"
		"(|wall B - wall A| + |CPU B - CPU A|). Groups present in one run only are\n"
		"listed as \"only in A\" / \"only in B\". A peak RSS is \"-\" (null) where no\n"
		"process of the group has a known RSS (a slice's, no sample by its end).\n"
		"Task groupings (--by task|rule|job|container) compare top's figures:\n"
		"TASKS, WALL each task's wall once (root start to last member end), the\n"
		"tasks' CPU, PEAK RSS the largest combined peak of one task.\n"
		"A or B a run on several hosts (a multi-host trace or a directory of traces):\n"
		"its groups summed over its hosts, its makespan on the wall clock.\n"
		"\n",
    .examples = "  tracer-analyze diff before.tz after.tz\n"
		"  tracer-analyze diff --by command --json run1.tz run2.tz\n",
    .col = 19,
    .nfiles = 2,
    .operands = "two files A and B",
};

struct side {
	tz_reader *r;
	struct tza_model *m;
	struct tza_crit c;
	struct tza_group *g;
	uint32_t ng;
};

static void unload(struct side *s)
{
	free(s->g);
	tza_crit_free(&s->c);
	tza_unload(s->r, s->m);
}

static int load(const char *path, enum tza_by by, struct side *s)
{
	struct tza_machine mi;
	memset(s, 0, sizeof(*s));
	if (tza_load_ex(path, TZA_MB_SAMPLES, &s->r, &s->m) < 0) /* host samples: flags */
		return -1;
	tza_machine_get(s->r, &mi);
	if (tza_critpath(s->m, by, &s->c) < 0 || tza_groups(s->m, by, &s->c, &mi, &s->g, &s->ng) < 0) {
		tza_err("out of memory");
		return -1;
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct tza_group *)a)->key, ((const struct tza_group *)b)->key);
}

static int cmp_row(const void *a, const void *b)
{
	const struct tza_diff_row *x = a, *y = b;
	if (x->change != y->change)
		return x->change > y->change ? -1 : 1;
	return strcmp(x->key, y->key);
}

int tza_diff_rows(struct tza_group *a, uint32_t na, struct tza_group *b, uint32_t nb,
		  struct tza_diff_row **rows, uint32_t *nr)
{
	uint32_t i = 0, j = 0, n = 0;
	if (na)
		qsort(a, na, sizeof(*a), cmp_key);
	if (nb)
		qsort(b, nb, sizeof(*b), cmp_key);
	struct tza_diff_row *v = malloc(((size_t)na + nb + 1) * sizeof(*v));
	*rows = v;
	*nr = 0;
	if (!v)
		return -1;
	while (i < na || j < nb) {
		int k = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].key, b[j].key);
		struct tza_diff_row rw = {NULL, NULL, NULL, 0};
		if (k <= 0)
			rw.a = &a[i++];
		if (k >= 0)
			rw.b = &b[j++];
		rw.key = rw.a ? rw.a->key : rw.b->key;
		/* the wall top shows (tza_group: cores_wall_ns) */
		double wa = rw.a ? (double)rw.a->cores_wall_ns : 0;
		double wb = rw.b ? (double)rw.b->cores_wall_ns : 0;
		double ca = rw.a ? (double)rw.a->cpu_ns : 0, cb = rw.b ? (double)rw.b->cpu_ns : 0;
		rw.change = fabs(wb - wa) + fabs(cb - ca);
		v[n++] = rw;
	}
	qsort(v, n, sizeof(*v), cmp_row);
	*nr = n;
	return 0;
}

static double ratio(uint64_t a, uint64_t b)
{
	return a ? (double)b / (double)a : NAN;
}

static void jratio(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		tza_json_num(f, v);
}

static const char *tratio(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2fx", v);
	return buf;
}

/* diff's options (cmd_diff) */
struct diff_opts {
	enum tza_by by;
	uint64_t limit; /* 0: all */
	int json;
};

/* Parse argv into o; returns -1 to go on, else the exit code */
static int diff_parse(int argc, char **argv, struct diff_opts *o)
{
	int limit_set = 0;
	*o = (struct diff_opts){.by = TZA_BY_TOOL, .limit = 30};
	const struct tza_option opts[] = {
		OPT_BY(&o->by, "exe, tool (default) or command\n"
			       "or task, rule, job, container (docs: Tasks)"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_U64_SEEN('n', "limit", "N", &o->limit, 0, 1000000000, &limit_set,
			     "show the first N groups (text default 30, 0 = all)"),
		OPT_FLAG('j', "json", &o->json,
			 "{\"a\": FILE, \"b\": FILE, \"makespan_a_s\", \"makespan_b_s\",\n"
			 "\"groups\": [{\"tool\", \"in\": \"both\"|\"a\"|\"b\", \"count_a\",\n"
			 "\"count_b\", \"wall_a_s\", \"wall_b_s\", \"cpu_a_s\", \"cpu_b_s\",\n"
			 "\"peak_rss_a_kib\", \"peak_rss_b_kib\", \"io_a_bytes\",\n"
			 "\"io_b_bytes\", \"wall_ratio\", \"cpu_ratio\"}...]}; task groupings\n"
			 "add \"tasks_a\", \"tasks_b\" (the text's TASKS A/B column) and\n"
			 "their wall_*_s and peak_rss_*_kib are the tasks' (as the text's)"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&diff_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (o->json && !limit_set)
		o->limit = 0;
	return -1;
}

static const struct tza_group zero_group;

/* ",\"KEY\":" and g's peak RSS as top shows it (tza_group_peak: a task
 * grouping's the largest combined peak of one task), KiB, or null when
 * unknown; a side without the group has none, 0 */
static void json_rss(FILE *f, const char *key, const struct tza_group *g)
{
	uint64_t kib;
	if (!tza_group_peak(g, &kib))
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%llu", key, (unsigned long long)kib);
}

/* The JSON object: the files, the makespans, the first show rows */
static void diff_json(FILE *f, const struct tza_diff_head *h, enum tza_by by,
		      const struct tza_diff_row *rows, uint32_t show)
{
	fputs("{\"a\":", f);
	tza_json_cstr(f, h->a);
	fputs(",\"b\":", f);
	tza_json_cstr(f, h->b);
	if (h->hosts_a || h->hosts_b)
		fprintf(f,
			",\"multi_host\":true,\"hosts_a\":%zu,\"hosts_b\":%zu,\"traces_a\":%zu,"
			"\"traces_b\":%zu",
			h->hosts_a, h->hosts_b, h->traces_a, h->traces_b);
	fputs(",\"makespan_a_s\":", f);
	tza_json_secs(f, (int64_t)h->makespan_a_ns);
	fputs(",\"makespan_b_s\":", f);
	tza_json_secs(f, (int64_t)h->makespan_b_ns);
	fputs(",\"groups\":[", f);
	for (uint32_t k = 0; k < show; k++) {
		const struct tza_group *a = rows[k].a ? rows[k].a : &zero_group;
		const struct tza_group *b = rows[k].b ? rows[k].b : &zero_group;
		fputs(k ? ",\n{\"tool\":" : "\n{\"tool\":", f);
		tza_json_cstr(f, rows[k].key);
		fprintf(f, ",\"in\":\"%s\",\"count_a\":%llu,\"count_b\":%llu,\"wall_a_s\":",
			rows[k].a && rows[k].b ? "both"
			: rows[k].a	       ? "a"
					       : "b",
			(unsigned long long)a->count, (unsigned long long)b->count);
		tza_json_secs(f, (int64_t)a->cores_wall_ns); /* top's WALL */
		fputs(",\"wall_b_s\":", f);
		tza_json_secs(f, (int64_t)b->cores_wall_ns);
		fputs(",\"cpu_a_s\":", f);
		tza_json_secs(f, (int64_t)a->cpu_ns);
		fputs(",\"cpu_b_s\":", f);
		tza_json_secs(f, (int64_t)b->cpu_ns);
		if (by >= TZA_BY_TASK)
			fprintf(f, ",\"tasks_a\":%llu,\"tasks_b\":%llu",
				(unsigned long long)a->tasks, (unsigned long long)b->tasks);
		json_rss(f, "peak_rss_a_kib", a);
		json_rss(f, "peak_rss_b_kib", b);
		fprintf(f, ",\"io_a_bytes\":%llu,\"io_b_bytes\":%llu,\"wall_ratio\":",
			(unsigned long long)(a->rchar + a->wchar),
			(unsigned long long)(b->rchar + b->wchar));
		jratio(f, ratio(a->cores_wall_ns, b->cores_wall_ns));
		fputs(",\"cpu_ratio\":", f);
		jratio(f, ratio(a->cpu_ns, b->cpu_ns));
		fputc('}', f);
	}
	fputs(show ? "\n]}\n" : "]}\n", f);
}

/* One text row: key, counts (tasks for task groupings, as top's COUNT),
 * wall, CPU, peak RSS and I/O of A/B with the ratios */
static void diff_text_row(FILE *f, const struct tza_diff_row *row, enum tza_by by, int w)
{
	const struct tza_group *a = row->a ? row->a : &zero_group;
	const struct tza_group *b = row->b ? row->b : &zero_group;
	char x[12][32], cnt[40], wall[48], cpu[48], rss[48], io[48];
	snprintf(cnt, sizeof(cnt), "%llu/%llu",
		 (unsigned long long)(by >= TZA_BY_TASK ? a->tasks : a->count),
		 (unsigned long long)(by >= TZA_BY_TASK ? b->tasks : b->count));
	uint64_t ka, kb;
	int known_a = tza_group_peak(a, &ka), known_b = tza_group_peak(b, &kb);
	/* WALL and PEAK RSS as top shows them (task groupings: the tasks') */
	snprintf(wall, sizeof(wall), "%s/%s", tza_fmt_dur(x[0], 32, a->cores_wall_ns),
		 tza_fmt_dur(x[1], 32, b->cores_wall_ns));
	snprintf(cpu, sizeof(cpu), "%s/%s", tza_fmt_dur(x[2], 32, a->cpu_ns),
		 tza_fmt_dur(x[3], 32, b->cpu_ns));
	snprintf(rss, sizeof(rss), "%s/%s", !known_a ? "-" : tza_fmt_bytes(x[4], 32, ka * 1024),
		 !known_b ? "-" : tza_fmt_bytes(x[5], 32, kb * 1024));
	snprintf(io, sizeof(io), "%s/%s", tza_fmt_bytes(x[6], 32, a->rchar + a->wchar),
		 tza_fmt_bytes(x[7], 32, b->rchar + b->wchar));
	tza_put_key(f, row->key, w);
	fprintf(f, " %13s %21s %7s %21s %7s %21s %21s%s\n", cnt, wall,
		tratio(x[8], 32, ratio(a->cores_wall_ns, b->cores_wall_ns)), cpu,
		tratio(x[9], 32, ratio(a->cpu_ns, b->cpu_ns)), rss, io,
		!row->a	  ? "  only in B"
		: !row->b ? "  only in A"
			  : "");
}

/* "A: FILE (makespan 1.2s)", or for a run on several hosts "A: FILE (3
 * hosts, makespan 1.2s)", "A: FILE (4 traces on 3 hosts, makespan 1.2s)" */
static void diff_side(FILE *f, char ab, const char *path, size_t hosts, size_t traces,
		      uint64_t makespan_ns)
{
	char x[32];
	fprintf(f, "%c: %s (", ab, path);
	if (hosts && traces != hosts)
		fprintf(f, "%zu trace%s on ", traces, tza_plural(traces));
	if (hosts)
		fprintf(f, "%zu host%s, ", hosts, tza_plural(hosts));
	fprintf(f, "makespan %s)\n", tza_fmt_dur(x, sizeof(x), makespan_ns));
}

/* The text table: the files with their makespans, the first show of nr rows */
static void diff_text(FILE *f, const struct tza_diff_head *h, enum tza_by by,
		      const struct tza_diff_row *rows, uint32_t nr, uint32_t show)
{
	diff_side(f, 'A', h->a, h->hosts_a, h->traces_a, h->makespan_a_ns);
	diff_side(f, 'B', h->b, h->hosts_b, h->traces_b, h->makespan_b_ns);
	fputc('\n', f);
	int w = tza_key_width(&rows[0].key, sizeof(*rows), show);
	fprintf(f, "%-*s %13s %21s %7s %21s %7s %21s %21s\n", w, tza_by_header(by),
		by >= TZA_BY_TASK ? "TASKS A/B" : "COUNT A/B", "WALL A/B", "RATIO", "CPU A/B",
		"RATIO", "PEAK RSS A/B", "I/O A/B");
	for (uint32_t k = 0; k < show; k++)
		diff_text_row(f, &rows[k], by, w);
	if (show < nr)
		fprintf(f, "... %u more (-n 0 shows all)\n", nr - show);
}

int tza_diff_show(FILE *f, const struct tza_diff_head *h, enum tza_by by, int json,
		  uint64_t limit, struct tza_group *a, uint32_t na, struct tza_group *b,
		  uint32_t nb)
{
	struct tza_diff_row *rows = NULL;
	uint32_t nr = 0;
	if (tza_diff_rows(a, na, b, nb, &rows, &nr) < 0) {
		tza_err("out of memory");
		return TZA_EXIT_FAIL;
	}
	uint32_t show = limit && limit < nr ? (uint32_t)limit : nr;
	if (json)
		diff_json(f, h, by, rows, show);
	else
		diff_text(f, h, by, rows, nr, show);
	free(rows);
	return TZA_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	int rc = diff_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	const char *pa = argv[optind], *pb = argv[optind + 1];
	if (tza_fleet_wanted(argv + optind, 1) || tza_fleet_wanted(argv + optind + 1, 1))
		return tza_diff_hosts(stdout, pa, pb, o.by, o.json, o.limit);
	struct side A, B;
	memset(&B, 0, sizeof(B));
	rc = TZA_EXIT_FAIL;
	if (!load(pa, o.by, &A) && !load(pb, o.by, &B)) {
		struct tza_diff_head h = {.a = pa,
					  .b = pb,
					  .makespan_a_ns = A.c.makespan_ns,
					  .makespan_b_ns = B.c.makespan_ns};
		rc = tza_diff_show(stdout, &h, o.by, o.json, o.limit, A.g, A.ng, B.g, B.ng);
	}
	unload(&A);
	unload(&B);
	return rc;
}
