/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_rightsize.c - per rule / Nextflow process: what its tasks asked for
 * against what they used, flags, and a configuration block to paste
 * (docs/tracer-analyze.md "rightsize"). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"

static const struct tza_cmd_spec rightsize_spec = {
    .name = "rightsize",
    .synopsis =
	"usage: tracer-analyze rightsize [--by rule|task] [--task REGEX] [--headroom PCT]\n"
	"                                [--config nextflow|snakemake|both|none] [--json] FILE...\n"
	"\n"
	"Per rule (Snakemake rule, Nextflow process, --task name; --by task: per task):\n"
	"what was requested (Nextflow trace.txt cpus/memory/time of first attempts, else\n"
	"the cgroup limits recorded) against what was used (the largest combined peak\n"
	"RSS of one task, its members' own from their first exec on, not the workflow\n"
	"manager's copy a job's shell runs until it execs; the highest and the mean\n"
	"cores, the longest wall), flags, and\n"
	"a suggested configuration:\n"
	"  memory  the largest combined peak + PCT%, rounded up to 64 MiB; none when\n"
	"          a task's peak is unknown (a slice's member with no sample by its\n"
	"          end: PEAK -, JSON null)\n"
	"  cpus    the busiest task's mean cores, rounded up (0.1 core tolerance), >= 1\n"
	"  time    twice the longest wall, rounded up to a minute\n"
	"Flags: over_memory (requested > 2 x suggested), under_memory (peak above 90%\n"
	"of the request, or an OOM kill), over_cpus (requested >= 2 x and >= 1 more\n"
	"than the highest cores), under_cpus (highest cores > 1.1 x requested),\n"
	"under_time (longest wall > 80% of the request), oom_retry (a task OOM-killed\n"
	"or exiting 137 was run again), failed (a task failed and was not retried).\n"
	"RETRIES: tasks with attempt > 1, or (attempt unknown) after a failed task\n"
	"of the same name and tag (no tag: id). MAX: a task's cores are at most its\n"
	"members' threads (a process's last CPU includes its exit path).\n"
	"A warning follows the table when the host was over 90% busy (all CPUs,\n"
	"host samples) from the first task's start to the last one's end.\n"
	"Several FILEs, a directory or a merge (a run on several hosts): each rule's\n"
	"tasks on every host together (docs: MANY HOSTS).\n"
	"\n",
    .examples = "  tracer-analyze rightsize trace.tz\n"
		"  tracer-analyze rightsize --config nextflow trace.tz >> nextflow.config\n",
    .col = 22,
};

/* One rule's figures */
struct rs {
	const char *name;
	uint32_t tasks, retries, oom_retries, failed;
	uint32_t kinds; /* 1 << kind */
	double req_cpus;
	uint64_t req_mem, req_time_ms;
	double max_cores, cpu_s, wall_s, max_wall_s;
	uint64_t peak_kib;	/* the largest combined peak of a task whose peak is known */
	uint32_t rss_unknown;	/* tasks whose combined peak is unknown (a member's
				   RSS unknown: tza_task_rss_known): then no
				   memory is suggested (sug_mem 0) */
	uint32_t sug_cpus;
	uint64_t sug_mem, sug_time_s;
	uint32_t flags;
};

enum {
	F_OVER_MEM,
	F_UNDER_MEM,
	F_OVER_CPUS,
	F_UNDER_CPUS,
	F_UNDER_TIME,
	F_OOM_RETRY,
	F_FAILED,
	NF
};
static const char *const flag_names[NF] = {"over_memory", "under_memory", "over_cpus",
					   "under_cpus",  "under_time",	  "oom_retry", "failed"};

static int oom_like(const struct tza_task *t)
{
	return t->oom_killed || t->exit_code == 137 || t->signal == 9;
}

/* The same work run twice: the same name and the same tag (Nextflow tag,
 * Snakemake wildcards), or without tags the same id (a Snakemake job's first
 * output; a fallback task's PID.START never repeats) */
static int same_work(const struct tza_task *t, const struct tza_task *u)
{
	if (strcmp(u->name, t->name) || (!t->tag) != (!u->tag))
		return 0;
	return t->tag ? !strcmp(t->tag, u->tag) : !strcmp(t->id, u->id);
}

/* A later task of the same work: t was run again */
static int retried(const struct tza_tasks *ts, const struct tza_task *t)
{
	for (uint32_t i = t->index + 1; i < ts->n; i++)
		if (same_work(t, &ts->tasks[i]))
			return 1;
	return 0;
}

/* t is a retry: its attempt (trace.txt) is above 1, or, attempt unknown
 * (Snakemake's metadata has none), an earlier task of the same work failed */
static int is_retry(const struct tza_tasks *ts, const struct tza_task *t)
{
	if (t->attempt)
		return t->attempt > 1;
	for (uint32_t i = 0; i < t->index; i++)
		if (same_work(t, &ts->tasks[i]) && tza_task_failed(&ts->tasks[i]))
			return 1;
	return 0;
}

static int cmp_task_name(const void *a, const void *b)
{
	const struct tza_task *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);
	return c ? c : ((*x)->index > (*y)->index) - ((*x)->index < (*y)->index);
}

static void suggest(struct rs *r, double headroom)
{
	const uint64_t q = 64ULL << 20;
	double mem = (double)r->peak_kib * 1024.0 * (1.0 + headroom);
	r->sug_mem = ((uint64_t)ceil(mem / (double)q)) * q;
	if (!r->sug_mem)
		r->sug_mem = q;
	if (r->rss_unknown) /* a task's peak unknown: never a memory from the rest */
		r->sug_mem = 0;
	double c = ceil(r->max_cores - 0.1);
	r->sug_cpus = c < 1 ? 1 : (uint32_t)c;
	double t = ceil(2.0 * r->max_wall_s / 60.0);
	r->sug_time_s = (uint64_t)(t < 1 ? 1 : t) * 60;
	if (r->req_mem && r->sug_mem && r->req_mem > 2 * r->sug_mem)
		r->flags |= 1u << F_OVER_MEM;
	if (r->req_mem && (double)r->peak_kib * 1024.0 > 0.9 * (double)r->req_mem)
		r->flags |= 1u << F_UNDER_MEM;
	if (r->req_cpus >= 2 * r->max_cores && r->req_cpus - r->max_cores >= 1)
		r->flags |= 1u << F_OVER_CPUS;
	if (r->req_cpus > 0 && r->max_cores > 1.1 * r->req_cpus)
		r->flags |= 1u << F_UNDER_CPUS;
	if (r->req_time_ms && r->max_wall_s * 1000.0 > 0.8 * (double)r->req_time_ms)
		r->flags |= 1u << F_UNDER_TIME;
	if (r->oom_retries)
		r->flags |= (1u << F_OOM_RETRY) | (1u << F_UNDER_MEM);
	if (r->failed)
		r->flags |= 1u << F_FAILED;
}

/* Fold task t into r */
static void add(struct rs *r, const struct tza_tasks *ts, const struct tza_task *t)
{
	double wall = (double)(t->end_ns - t->start_ns) / 1e9;
	/* never more cores than threads (EXIT TIMING in docs/tracer-record.md) */
	double cores = tza_task_cores(t);
	int first_attempt = !is_retry(ts, t);
	r->tasks++;
	r->kinds |= 1u << t->kind;
	if (!first_attempt)
		r->retries++;
	int again = tza_task_failed(t) && retried(ts, t);
	if (again && oom_like(t))
		r->oom_retries++;
	else if (!again && tza_task_failed(t))
		r->failed++;
	/* requested: the first attempts' (retries may scale them) */
	if (first_attempt) {
		if (t->req_cpus > r->req_cpus)
			r->req_cpus = t->req_cpus;
		if (t->req_time_ms > r->req_time_ms)
			r->req_time_ms = t->req_time_ms;
	}
	uint64_t mem = t->req_mem_bytes ? t->req_mem_bytes : t->mem_limit_bytes;
	if (first_attempt && mem > r->req_mem)
		r->req_mem = mem;
	if (!t->req_cpus && t->cpu_period_us && first_attempt) {
		double q = (double)t->cpu_quota_us / (double)t->cpu_period_us;
		if (q > r->req_cpus)
			r->req_cpus = q;
	}
	if (cores > r->max_cores)
		r->max_cores = cores;
	if (wall > r->max_wall_s)
		r->max_wall_s = wall;
	r->cpu_s += cores * wall; /* the CPU, held to threads x wall as above */
	r->wall_s += wall;
	if (!tza_task_rss_known(t))
		r->rss_unknown++;
	else if (t->peak_rss_kib > r->peak_kib)
		r->peak_kib = t->peak_rss_kib;
}

static void flags_out(FILE *f, uint32_t fl, int json)
{
	int first = 1;
	for (int i = 0; i < NF; i++)
		if (fl & (1u << i)) {
			fprintf(f, json ? "%s\"%s\"" : "%s%s", first ? "" : ",", flag_names[i]);
			first = 0;
		}
	if (first && !json)
		fputc('-', f);
}

/* a Nextflow memory string: whole MB (Nextflow's MB are MiB) */
static void nf_block(FILE *f, const struct rs *r, uint32_t n, double h)
{
	fprintf(f, "\n// Nextflow (nextflow.config): memory = the largest combined peak + %g%%,\n"
		   "// cpus = the busiest task's cores rounded up, time = 2 x the longest wall\n"
		   "process {\n",
		h * 100);
	for (uint32_t i = 0; i < n; i++) {
		/* the name's safe form (textsafe.h) as a Groovy '...' literal */
		char sn[TZA_SAFE_BUF];
		fprintf(f, "    withName: '");
		for (const char *c = tza_safe_str(sn, sizeof(sn), r[i].name); *c; c++)
			fprintf(f, *c == '\'' || *c == '\\' ? "\\%c" : "%c", *c);
		fprintf(f, "' {\n        cpus = %u\n", r[i].sug_cpus);
		if (r[i].sug_mem)
			fprintf(f, "        memory = '%llu MB'\n", (unsigned long long)(r[i].sug_mem >> 20));
		else
			fprintf(f, "        // memory: not suggested, %u task%s' peak RSS unknown\n",
				r[i].rss_unknown, tza_plural(r[i].rss_unknown));
		fprintf(f, "        time = '%llum'\n    }\n", (unsigned long long)(r[i].sug_time_s / 60));
	}
	fprintf(f, "}\n");
}

/* A Snakemake rule name: a Python identifier (ASCII), the only names
 * --set-threads RULE=N / --set-resources RULE:RES=N can carry */
static int smk_rule_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	return !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")];
}

/* mem_mb is megabytes (10^6 bytes), rounded up */
static unsigned long long smk_mem_mb(const struct rs *r)
{
	return (unsigned long long)((r->sug_mem + 999999) / 1000000);
}

/* The Snakemake items of the rules with a rule name, each as pre ITEM post:
 * RULE=THREADS, or with resources RULE:mem_mb=MB and RULE:runtime=MINUTES */
static void smk_items(FILE *f, const struct rs *r, uint32_t n, int resources, const char *pre,
		      const char *post)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!smk_rule_name(r[i].name))
			continue;
		if (!resources) {
			fprintf(f, "%s%s=%u%s", pre, r[i].name, r[i].sug_cpus, post);
			continue;
		}
		if (r[i].sug_mem) /* else unknown: not suggested */
			fprintf(f, "%s%s:mem_mb=%llu%s", pre, r[i].name, smk_mem_mb(&r[i]), post);
		fprintf(f, "%s%s:runtime=%llu%s", pre, r[i].name,
			(unsigned long long)(r[i].sug_time_s / 60), post);
	}
}

/* The Snakemake block: a profile config.yaml in the list form Snakemake's
 * argument parser takes (RULE=N, RULE:RES=N items, as on the command line),
 * and the same as command-line options. */
static void smk_block(FILE *f, const struct rs *r, uint32_t n, double h)
{
	uint32_t skipped = 0;
	for (uint32_t i = 0; i < n; i++)
		skipped += !smk_rule_name(r[i].name);
	if (skipped == n) { /* an empty list would be YAML null */
		fprintf(f, "\n# Snakemake: no name above is a rule name (an identifier): nothing to set\n");
		return;
	}
	fprintf(f, "\n# Snakemake profile (DIR/config.yaml, snakemake --profile DIR):\n"
		   "# mem_mb = the largest combined peak + %g%% in MB (10^6 bytes), threads = the\n"
		   "# busiest job's cores rounded up, runtime = 2 x the longest wall (minutes)\n"
		   "set-threads:\n",
		h * 100);
	smk_items(f, r, n, 0, "  - ", "\n");
	fputs("set-resources:\n", f);
	smk_items(f, r, n, 1, "  - ", "\n");
	fputs("# or on the command line:\n# --set-threads", f);
	smk_items(f, r, n, 0, " ", "");
	fputs(" \\\n#   --set-resources", f);
	smk_items(f, r, n, 1, " ", "");
	fputc('\n', f);
	if (skipped)
		fprintf(f, "# %u name(s) above are not Snakemake rule names (not identifiers): left out\n",
			skipped);
	uint32_t nomem = 0;
	for (uint32_t i = 0; i < n; i++)
		nomem += smk_rule_name(r[i].name) && !r[i].sug_mem;
	if (nomem)
		fprintf(f, "# %u rule(s) without mem_mb: a task's peak RSS unknown\n", nomem);
}

/* Above this busy fraction of all the host's CPUs while the tasks ran, the
 * cores they used were measured under contention (they got what was left) */
#define BUSY_WARN 0.90

static void json_out(FILE *f, const struct rs *r, uint32_t n, double h, double busy,
		     uint64_t dups)
{
	fprintf(f, "{\"headroom_pct\":");
	tza_json_num(f, h * 100);
	fputs(",\"host_busy_pct\":", f);
	if (busy >= 0)
		tza_json_num(f, busy * 100);
	else
		fputs("null", f);
	fprintf(f, ",\"counted_once\":%" PRIu64, dups);
	fputs(",\"rules\":[", f);
	for (uint32_t i = 0; i < n; i++) {
		const struct rs *x = &r[i];
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		tza_json_cstr(f, x->name);
		fprintf(f, ",\"tasks\":%u,\"retries\":%u,\"oom_retries\":%u,\"failed\":%u,\"req_cpus\":",
			x->tasks, x->retries, x->oom_retries, x->failed);
		if (x->req_cpus > 0)
			tza_json_num(f, x->req_cpus);
		else
			fputs("null", f);
		if (x->req_mem)
			fprintf(f, ",\"req_memory_bytes\":%llu", (unsigned long long)x->req_mem);
		else
			fputs(",\"req_memory_bytes\":null", f);
		fputs(",\"req_time_s\":", f);
		if (x->req_time_ms)
			tza_json_num(f, (double)x->req_time_ms / 1e3);
		else
			fputs("null", f);
		tza_json_key_num(f, "max_cores", x->max_cores);
		tza_json_key_num(f, "mean_cores", x->wall_s > 0 ? x->cpu_s / x->wall_s : 0);
		if (x->rss_unknown)
			fputs(",\"peak_rss_bytes\":null,\"max_wall_s\":", f);
		else
			fprintf(f, ",\"peak_rss_bytes\":%llu,\"max_wall_s\":",
				(unsigned long long)x->peak_kib * 1024);
		tza_json_num(f, x->max_wall_s);
		tza_json_key_num(f, "mean_wall_s", x->tasks ? x->wall_s / x->tasks : 0);
		fprintf(f, ",\"suggest\":{\"cpus\":%u,\"memory_bytes\":", x->sug_cpus);
		if (x->sug_mem)
			fprintf(f, "%llu", (unsigned long long)x->sug_mem);
		else
			fputs("null", f);
		fprintf(f, ",\"time_s\":%llu},\"flags\":[", (unsigned long long)x->sug_time_s);
		flags_out(f, x->flags, 1);
		fputs("]}", f);
	}
	fputs(n ? "\n]}\n" : "]}\n", f);
}

static void text_out(FILE *f, const struct rs *r, uint32_t n)
{
	int w = tza_key_width(&r[0].name, sizeof(*r), n);
	if (w < 4)
		w = 4;
	fprintf(f, "%-*s %5s %7s %5s %5s %5s %9s %9s %8s %8s  %s\n", w, "RULE", "TASKS", "RETRIES",
		"CPUS", "MAX", "MEAN", "MEMORY", "PEAK", "TIME", "MAXWALL", "FLAGS");
	for (uint32_t i = 0; i < n; i++) {
		const struct rs *x = &r[i];
		char b[4][32], cpus[16];
		snprintf(cpus, sizeof(cpus), x->req_cpus > 0 ? "%g" : "-", x->req_cpus);
		tza_put_key(f, x->name, w);
		fprintf(f, " %5u %7u %5s %5.2f %5.2f %9s %9s %8s %8s  ", x->tasks, x->retries, cpus,
			x->max_cores, x->wall_s > 0 ? x->cpu_s / x->wall_s : 0,
			x->req_mem ? tza_fmt_bytes(b[0], 32, x->req_mem) : "-",
			x->rss_unknown ? "-" : tza_fmt_bytes(b[1], 32, x->peak_kib * 1024),
			x->req_time_ms ? tza_fmt_dur(b[2], 32, x->req_time_ms * 1000000) : "-",
			tza_fmt_dur(b[3], 32, (uint64_t)(x->max_wall_s * 1e9)));
		flags_out(f, x->flags, 0);
		fputc('\n', f);
	}
	fprintf(f, "(CPUS, MEMORY, TIME: requested; MAX, MEAN: cores; PEAK: combined peak RSS)\n");
	uint32_t unk = 0;
	for (uint32_t i = 0; i < n; i++)
		unk += r[i].rss_unknown;
	if (unk)
		fprintf(f, "(PEAK -: %u task%s' peak RSS unknown, a slice's member with no sample by\n"
			   "its end: no memory suggested for that rule)\n",
			unk, tza_plural(unk));
}

/* The host's busy fraction over the tasks' span [first start, last end]
 * (tza_host_busy: host samples); -1 unknown */
static double tasks_busy(const struct tza_model *m, const struct tza_tasks *ts)
{
	uint64_t s = UINT64_MAX, e = 0;
	for (uint32_t i = 0; i < ts->n; i++) {
		if (ts->tasks[i].start_ns < s)
			s = ts->tasks[i].start_ns;
		if (ts->tasks[i].end_ns > e)
			e = ts->tasks[i].end_ns;
	}
	return ts->n && e > s ? tza_host_busy(m, s, e) : -1;
}

struct rs_opts {
	int json, per_task; /* --json; --by task (else by rule) */
	int cfg;	    /* --config: -1 auto, 0 none, 1 nextflow, 2 snakemake, 3 both */
	uint64_t pct;	    /* --headroom, percent */
};

static const char *const by_words[] = {"rule", "task", NULL};		/* per_task */
static const char *const config_words[] = {"none", "nextflow", "snakemake", "both", NULL};

/* Open the one FILE of argv (options into o) with its model. Returns -1 to
 * go on with *r and *m set (*m NULL: several hosts, argv[optind..] names
 * them), else the exit code after the message. */
static int rs_load(int argc, char **argv, struct rs_opts *o, tz_reader **r,
		   struct tza_model **m)
{
	*o = (struct rs_opts){.cfg = -1, .pct = 20};
	const struct tza_option opts[] = {
		OPT_ENUM('b', "by", "KEY", &o->per_task, by_words, "rule (default) or task"),
		OPT_TASK("a task per outermost process matching REGEX (docs: Tasks)"),
		OPT_U64('H', "headroom", "PCT", &o->pct, 0, 1000,
			"memory headroom in percent (default 20, 0 to 1000)"),
		OPT_ENUM('c', "config", "WHAT", &o->cfg, config_words,
			 "the block(s) printed after the table (default: by the\n"
			 "tasks' kind; both when neither Nextflow nor Snakemake)"),
		OPT_FLAG('j', "json", &o->json,
			 "{\"headroom_pct\", \"host_busy_pct\", \"rules\": [{\"name\", \"tasks\", \"retries\",\n"
			 "\"oom_retries\", \"failed\", \"req_cpus\", \"req_memory_bytes\",\n"
			 "\"req_time_s\", \"max_cores\", \"mean_cores\", \"peak_rss_bytes\",\n"
			 "\"max_wall_s\", \"mean_wall_s\", \"suggest\": {\"cpus\",\n"
			 "\"memory_bytes\", \"time_s\"}, \"flags\": [...]}]}"),
		OPT_END_TRACE,
	};
	tza_task_want();
	*m = NULL;
	int rc = tza_options_parse(&rightsize_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (optind < argc && tza_fleet_wanted(argv + optind, argc - optind))
		return -1; /* several hosts: *m stays NULL (rightsize_hosts) */
	if (!tza_one_file("rightsize", argc, argv))
		return TZA_EXIT_USAGE;
	/* combined peaks: samples */
	return tza_load_ex(argv[optind], TZA_MB_SAMPLES, r, m) < 0 ? TZA_EXIT_FAIL : -1;
}

/* The rows: the tasks grouped by rule name (or one per task), each with its
 * suggestion at headroom h. rs holds ts->n + 1 zeroed rows. Returns the
 * number of rows, *kinds the task kinds seen (1 << TZA_TASK_*); -1 when
 * memory ran out. */
static int rs_rows(const struct tza_tasks *ts, const uint8_t *skip, int per_task, double h,
		   struct rs *rs, uint32_t *kinds)
{
	const struct tza_task **v = malloc((ts->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	uint32_t nv = 0;
	for (uint32_t i = 0; i < ts->n; i++)
		if (!skip || !skip[i])
			v[nv++] = &ts->tasks[i];
	if (!per_task)
		qsort(v, nv, sizeof(*v), cmp_task_name);
	uint32_t n = 0;
	for (uint32_t i = 0; i < nv; i++) {
		const char *name = per_task ? v[i]->key : v[i]->name;
		if (!n || per_task || strcmp(rs[n - 1].name, name))
			rs[n++].name = name;
		add(&rs[n - 1], ts, v[i]);
	}
	*kinds = 0;
	for (uint32_t i = 0; i < n; i++) {
		suggest(&rs[i], h);
		*kinds |= rs[i].kinds;
	}
	free(v);
	return (int)n;
}

static void rs_print(FILE *f, struct rs_opts *o, const struct rs *rs, uint32_t n, uint32_t kinds,
		     double h, double busy, const char *host, size_t ntraces, size_t nhosts,
		     uint64_t dups);

/* Fold row x (host i's) into the run's rows u[0..*n) by name: counts and
 * sums added, requests and peaks the largest; flags again from the sums. */
static int fold_row(struct rs **u, uint32_t *n, uint32_t *cap, const struct rs *x)
{
	uint32_t j = 0;
	while (j < *n && strcmp((*u)[j].name, x->name))
		j++;
	if (j == *n) {
		if (VEC_ROOM(*u, *n, *cap, 64))
			return -1;
		(*u)[j] = *x;
		if (!((*u)[j].name = strdup(x->name)))
			return -1;
		(*n)++;
		return 0;
	}
	struct rs *r = &(*u)[j];
	r->tasks += x->tasks;
	r->retries += x->retries;
	r->oom_retries += x->oom_retries;
	r->failed += x->failed;
	r->kinds |= x->kinds;
	r->req_cpus = x->req_cpus > r->req_cpus ? x->req_cpus : r->req_cpus;
	r->req_mem = x->req_mem > r->req_mem ? x->req_mem : r->req_mem;
	r->req_time_ms = x->req_time_ms > r->req_time_ms ? x->req_time_ms : r->req_time_ms;
	r->max_cores = x->max_cores > r->max_cores ? x->max_cores : r->max_cores;
	r->cpu_s += x->cpu_s;
	r->wall_s += x->wall_s;
	r->max_wall_s = x->max_wall_s > r->max_wall_s ? x->max_wall_s : r->max_wall_s;
	r->peak_kib = x->peak_kib > r->peak_kib ? x->peak_kib : r->peak_kib;
	r->rss_unknown += x->rss_unknown;
	return 0;
}

static int cmp_rs_name(const void *a, const void *b)
{
	return strcmp(((const struct rs *)a)->name, ((const struct rs *)b)->name);
}

/* rightsize over a run on several hosts (fleet.h): every host's rows folded
 * by name (a rule's tasks on every node); the busy warning for the busiest
 * host. A retry is recognised among one host's tasks. */
static int rightsize_hosts(char **args, int nargs, struct rs_opts *o)
{
	struct tza_fleet fl;
	struct rs *u = NULL;
	uint32_t n = 0, cap = 0, kinds = 0;
	double h = (double)o->pct / 100.0, busy = -1;
	char *busy_host = NULL;
	char **names = NULL; /* each trace's hostname, for the count of hosts */
	struct tza_fleet_seen seen = {0};
	uint64_t dups = 0; /* tasks seen by two traces of one host */
	int rc = TZA_EXIT_FAIL;
	if (tza_fleet_open("rightsize", args, nargs, &fl))
		goto out;
	if (tza_fleet_seen_init(&seen, fl.n)) {
		tza_err("out of memory");
		goto out;
	}
	if (!(names = calloc(fl.n ? fl.n : 1, sizeof(*names)))) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < fl.n; i++) {
		tz_reader *r;
		struct tza_model *m;
		const char *hn;
		if (tza_fleet_load(&fl, i, TZA_MB_SAMPLES, &r, &m, &hn) < 0)
			goto out;
		const struct tza_tasks *ts = tza_tasks_of(m);
		struct rs *rs = calloc((ts ? ts->n : 0) + 1, sizeof(*rs));
		uint8_t *skip = calloc((ts ? ts->n : 0) + 1, 1);
		uint32_t k = 0;
		int nr = ts && rs && skip ? 0 : -1;
		/* a task whose root an earlier trace of this host (same boot
		 * id: overlapping recordings) held was counted there */
		for (uint32_t t = 0; !nr && t < ts->n; t++) {
			const struct tza_proc *root = ts->tasks[t].root;
			if ((skip[t] = (uint8_t)tza_fleet_seen_before(&seen, &fl, i, root->pid,
								      root->start_ns)))
				dups++;
		}
		for (uint32_t p = 0; !nr && p < m->nprocs; p++)
			if (tza_fleet_seen_add(&seen, i, m->procs[p]->pid, m->procs[p]->start_ns))
				nr = -1;
		tza_fleet_seen_seal(&seen, i);
		if (!nr)
			nr = rs_rows(ts, skip, o->per_task, h, rs, &k);
		free(skip);
		for (int j = 0; j < nr; j++)
			if (fold_row(&u, &n, &cap, &rs[j]) < 0)
				nr = -1;
		kinds |= k;
		double b = ts ? tasks_busy(m, ts) : -1;
		if (b > busy) {
			free(busy_host);
			busy_host = strdup(hn);
			busy = busy_host ? b : -1;
		}
		free(rs);
		if (!(names[i] = strdup(hn)))
			nr = -1;
		tza_unload(r, m);
		if (nr < 0) {
			tza_err("out of memory");
			goto out;
		}
	}
	if (n)
		qsort(u, n, sizeof(*u), cmp_rs_name);
	for (uint32_t i = 0; i < n; i++) {
		u[i].flags = 0;
		suggest(&u[i], h);
	}
	rs_print(stdout, o, u, n, kinds, h, busy, busy_host, fl.n,
		 tza_hosts_distinct((const char *const *)names, fl.n), dups);
	rc = tza_stdout_done();
out:
	for (uint32_t i = 0; i < n; i++)
		free((char *)u[i].name);
	free(u);
	free(busy_host);
	for (size_t i = 0; names && i < fl.n; i++)
		free(names[i]);
	free(names);
	tza_fleet_seen_free(&seen);
	tza_fleet_free(&fl);
	return rc;
}

/* The table or JSON of rows r[0..n) and the configuration blocks; host: the
 * busiest host's name over several hosts (nhosts > 1), else NULL. */
static void rs_print(FILE *f, struct rs_opts *o, const struct rs *rs, uint32_t n, uint32_t kinds,
		     double h, double busy, const char *host, size_t ntraces, size_t nhosts,
		     uint64_t dups)
{
	if (o->cfg == -1) {
		int nf = !!(kinds & (1u << TZA_TASK_NEXTFLOW)), smk = !!(kinds & (1u << TZA_TASK_SNAKEMAKE));
		o->cfg = nf && !smk ? 1 : smk && !nf ? 2 : 3;
	}
	if (o->json) {
		json_out(f, rs, n, h, busy, dups);
		return;
	}
	if (host) {
		tza_hosts_say(f, ntraces, nhosts);
		fputs(": each rule's tasks on every host together", f);
		if (dups)
			fprintf(f, "; %" PRIu64 " task%s seen by two traces of one host, counted once",
				dups, tza_plural(dups));
		fputc('\n', f);
	}
	text_out(f, rs, n);
	if (busy > BUSY_WARN) {
		fprintf(f, "warning: the host");
		if (host) {
			fputc(' ', f);
			tza_safe_puts(f, host);
		}
		fprintf(f, " was %.1f%% busy (all CPUs) while the tasks ran: "
			   "the cores they used were\nmeasured under contention; cpus "
			   "suggested from them may be too few\n",
			busy * 100);
	}
	if (!n)
		fprintf(f, "no tasks: nothing to suggest\n");
	if (n && (o->cfg & 1))
		nf_block(f, rs, n, h);
	if (n && (o->cfg & 2))
		smk_block(f, rs, n, h);
}

int cmd_rightsize(int argc, char **argv)
{
	struct rs_opts o;
	int rc;
	tz_reader *r;
	struct tza_model *m;
	rc = rs_load(argc, argv, &o, &r, &m);
	if (rc >= 0)
		return rc;
	if (!m)
		return rightsize_hosts(argv + optind, argc - optind, &o);
	const struct tza_tasks *ts = tza_tasks_of(m);
	struct rs *rs = calloc((ts ? ts->n : 0) + 1, sizeof(*rs));
	double h = (double)o.pct / 100.0;
	uint32_t kinds = 0;
	int n = ts && rs ? rs_rows(ts, NULL, o.per_task, h, rs, &kinds) : -1;
	if (n < 0) {
		tza_err("out of memory");
		free(rs);
		tza_unload(r, m);
		return TZA_EXIT_FAIL;
	}
	rs_print(stdout, &o, rs, (uint32_t)n, kinds, h, tasks_busy(m, ts), NULL, 1, 1, 0);
	free(rs);
	tza_unload(r, m);
	return tza_stdout_done();
}
