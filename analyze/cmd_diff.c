/* cmd_diff.c - compare two traces per tool: what got slower, bigger, new. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "task.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer-analyze diff [--by KEY] [--task REGEX] [-n N] [--json] A.tz B.tz\n\n"
		"Per group: processes, wall time (sum), self CPU, peak RSS and I/O (rchar +\n"
		"wchar) of run A and run B with ratios B/A, sorted by the largest change\n"
		"(|wall B - wall A| + |CPU B - CPU A|). Groups present in one run only are\n"
		"listed as \"only in A\" / \"only in B\".\n\n"
		"Options:\n"
		"  -b, --by KEY     exe, tool (default) or command\n"
		"                   or task, rule, job, container (docs: Tasks)\n"
		"      --task REGEX a task per outermost process matching REGEX\n"
		"  -n, --limit N    show the first N groups (text default 30, 0 = all)\n"
		"  -j, --json       {\"a\": FILE, \"b\": FILE, \"makespan_a_s\", \"makespan_b_s\",\n"
		"                   \"groups\": [{\"tool\", \"in\": \"both\"|\"a\"|\"b\", \"count_a\",\n"
		"                   \"count_b\", \"wall_a_s\", \"wall_b_s\", \"cpu_a_s\", \"cpu_b_s\",\n"
		"                   \"peak_rss_a_kib\", \"peak_rss_b_kib\", \"io_a_bytes\",\n"
		"                   \"io_b_bytes\", \"wall_ratio\", \"cpu_ratio\"}...]}; task groupings\n"
		"                   add \"tasks_a\", \"tasks_b\" (the text's TASKS A/B column)\n"
		"  -h, --help       this help\n\n"
		"Examples:\n"
		"  tracer-analyze diff before.tz after.tz\n"
		"  tracer-analyze diff --by command --json run1.tz run2.tz\n");
}

struct side {
	tz_reader *r;
	struct tza_model *m;
	struct tza_crit c;
	struct tza_group *g;
	uint32_t ng;
};

struct row {
	const char *key;
	const struct tza_group *a, *b;
	double change;
};

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

static void unload(struct side *s)
{
	free(s->g);
	tza_crit_free(&s->c);
	tza_unload(s->r, s->m);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct tza_group *)a)->key, ((const struct tza_group *)b)->key);
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->change != y->change)
		return x->change > y->change ? -1 : 1;
	return strcmp(x->key, y->key);
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

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{"by", required_argument, NULL, 'b'},
		{"task", required_argument, NULL, TZA_OPT_TASK},
		{"limit", required_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum tza_by by = TZA_BY_TOOL;
	uint64_t limit = 30;
	int json = 0, c, limit_set = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:n:jh", opts, NULL)) != -1) {
		switch (c) {
		case TZA_OPT_TASK:
			if (tza_task_set_regex(optarg) < 0)
				return TZA_EXIT_USAGE;
			break;
		case 'b':
			if (tza_parse_by("--by", optarg, &by) < 0)
				return TZA_EXIT_USAGE;
			break;
		case 'n':
			if (tza_parse_u64("--limit", optarg, 0, 1000000000, &limit) < 0)
				return TZA_EXIT_USAGE;
			limit_set = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return TZA_EXIT_OK;
		default:
			tza_bad_option("diff", argc, argv);
			return TZA_EXIT_USAGE;
		}
	}
	if (optind + 2 != argc) {
		tza_err("diff: expected two files A and B (see 'tracer-analyze diff --help')");
		return TZA_EXIT_USAGE;
	}
	if (json && !limit_set)
		limit = 0;
	struct side A, B;
	memset(&B, 0, sizeof(B));
	if (load(argv[optind], by, &A) < 0) {
		unload(&A);
		return TZA_EXIT_FAIL;
	}
	if (load(argv[optind + 1], by, &B) < 0) {
		unload(&A);
		unload(&B);
		return TZA_EXIT_FAIL;
	}
	qsort(A.g, A.ng, sizeof(*A.g), cmp_key);
	qsort(B.g, B.ng, sizeof(*B.g), cmp_key);
	struct row *rows = malloc(((size_t)A.ng + B.ng + 1) * sizeof(*rows));
	uint32_t nr = 0, i = 0, j = 0;
	if (!rows) {
		tza_err("out of memory");
		unload(&A);
		unload(&B);
		return TZA_EXIT_FAIL;
	}
	while (i < A.ng || j < B.ng) {
		int k = i >= A.ng ? 1 : j >= B.ng ? -1 : strcmp(A.g[i].key, B.g[j].key);
		struct row rw = {NULL, NULL, NULL, 0};
		if (k <= 0)
			rw.a = &A.g[i++];
		if (k >= 0)
			rw.b = &B.g[j++];
		rw.key = rw.a ? rw.a->key : rw.b->key;
		double wa = rw.a ? (double)rw.a->wall_ns : 0, wb = rw.b ? (double)rw.b->wall_ns : 0;
		double ca = rw.a ? (double)rw.a->cpu_ns : 0, cb = rw.b ? (double)rw.b->cpu_ns : 0;
		rw.change = fabs(wb - wa) + fabs(cb - ca);
		rows[nr++] = rw;
	}
	qsort(rows, nr, sizeof(*rows), cmp_row);
	uint32_t show = limit && limit < nr ? (uint32_t)limit : nr;
	static const struct tza_group zero;
	FILE *f = stdout;
	if (json) {
		fputs("{\"a\":", f);
		tza_json_cstr(f, argv[optind]);
		fputs(",\"b\":", f);
		tza_json_cstr(f, argv[optind + 1]);
		fputs(",\"makespan_a_s\":", f);
		tza_json_secs(f, (int64_t)A.c.makespan_ns);
		fputs(",\"makespan_b_s\":", f);
		tza_json_secs(f, (int64_t)B.c.makespan_ns);
		fputs(",\"groups\":[", f);
		for (uint32_t k = 0; k < show; k++) {
			const struct tza_group *a = rows[k].a ? rows[k].a : &zero;
			const struct tza_group *b = rows[k].b ? rows[k].b : &zero;
			fputs(k ? ",\n{\"tool\":" : "\n{\"tool\":", f);
			tza_json_cstr(f, rows[k].key);
			fprintf(f, ",\"in\":\"%s\",\"count_a\":%llu,\"count_b\":%llu,\"wall_a_s\":",
				rows[k].a && rows[k].b ? "both" : rows[k].a ? "a" : "b",
				(unsigned long long)a->count, (unsigned long long)b->count);
			tza_json_secs(f, (int64_t)a->wall_ns);
			fputs(",\"wall_b_s\":", f);
			tza_json_secs(f, (int64_t)b->wall_ns);
			fputs(",\"cpu_a_s\":", f);
			tza_json_secs(f, (int64_t)a->cpu_ns);
			fputs(",\"cpu_b_s\":", f);
			tza_json_secs(f, (int64_t)b->cpu_ns);
			if (by >= TZA_BY_TASK)
				fprintf(f, ",\"tasks_a\":%llu,\"tasks_b\":%llu",
					(unsigned long long)a->tasks, (unsigned long long)b->tasks);
			fprintf(f, ",\"peak_rss_a_kib\":%llu,\"peak_rss_b_kib\":%llu,"
				   "\"io_a_bytes\":%llu,\"io_b_bytes\":%llu,\"wall_ratio\":",
				(unsigned long long)a->peak_rss_kib, (unsigned long long)b->peak_rss_kib,
				(unsigned long long)(a->rchar + a->wchar),
				(unsigned long long)(b->rchar + b->wchar));
			jratio(f, ratio(a->wall_ns, b->wall_ns));
			fputs(",\"cpu_ratio\":", f);
			jratio(f, ratio(a->cpu_ns, b->cpu_ns));
			fputc('}', f);
		}
		fputs(show ? "\n]}\n" : "]}\n", f);
	} else {
		char x[12][32];
		fprintf(f, "A: %s (makespan %s)\nB: %s (makespan %s)\n\n", argv[optind],
			tza_fmt_dur(x[0], 32, A.c.makespan_ns), argv[optind + 1],
			tza_fmt_dur(x[1], 32, B.c.makespan_ns));
		int w = tza_key_width(&rows[0].key, sizeof(*rows), show);
		fprintf(f, "%-*s %13s %21s %7s %21s %7s %21s %21s\n", w,
			tza_by_header(by),
			by >= TZA_BY_TASK ? "TASKS A/B" : "COUNT A/B", "WALL A/B", "RATIO", "CPU A/B", "RATIO", "PEAK RSS A/B", "I/O A/B");
		for (uint32_t k = 0; k < show; k++) {
			const struct tza_group *a = rows[k].a ? rows[k].a : &zero;
			const struct tza_group *b = rows[k].b ? rows[k].b : &zero;
			char cnt[40], wall[48], cpu[48], rss[48], io[48];
			/* task groupings: tasks, as top's COUNT */
			snprintf(cnt, sizeof(cnt), "%llu/%llu",
				 (unsigned long long)(by >= TZA_BY_TASK ? a->tasks : a->count),
				 (unsigned long long)(by >= TZA_BY_TASK ? b->tasks : b->count));
			snprintf(wall, sizeof(wall), "%s/%s", tza_fmt_dur(x[0], 32, a->wall_ns),
				 tza_fmt_dur(x[1], 32, b->wall_ns));
			snprintf(cpu, sizeof(cpu), "%s/%s", tza_fmt_dur(x[2], 32, a->cpu_ns),
				 tza_fmt_dur(x[3], 32, b->cpu_ns));
			snprintf(rss, sizeof(rss), "%s/%s", tza_fmt_bytes(x[4], 32, a->peak_rss_kib * 1024),
				 tza_fmt_bytes(x[5], 32, b->peak_rss_kib * 1024));
			snprintf(io, sizeof(io), "%s/%s", tza_fmt_bytes(x[6], 32, a->rchar + a->wchar),
				 tza_fmt_bytes(x[7], 32, b->rchar + b->wchar));
			tza_put_key(f, rows[k].key, w);
			fprintf(f, " %13s %21s %7s %21s %7s %21s %21s%s\n", cnt, wall,
				tratio(x[8], 32, ratio(a->wall_ns, b->wall_ns)), cpu,
				tratio(x[9], 32, ratio(a->cpu_ns, b->cpu_ns)), rss, io,
				!rows[k].a ? "  only in B" : !rows[k].b ? "  only in A" : "");
		}
		if (show < nr)
			fprintf(f, "... %u more (-n 0 shows all)\n", nr - show);
	}
	free(rows);
	unload(&A);
	unload(&B);
	return TZA_EXIT_OK;
}
