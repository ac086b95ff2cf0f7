/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_critical_path.c - the chain of processes (or, --by task|rule, of
 * tasks) that set the makespan. */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"

static const struct tza_cmd_spec critical_path_spec = {
    .name = "critical-path",
    .synopsis = "usage: tracer-analyze critical-path [--by KEY] [--task REGEX] [--json] FILE...\n"
		"\n"
		"The chain of processes that determined the makespan of the recorded command:\n"
		"from the root's end, walk back through the child whose end released its\n"
		"waiting parent (the latest-ending child), down into that child, and back up\n"
		"to the parent at the child's start. Every nanosecond of the makespan is given\n"
		"to exactly one process, so the per-tool attribution sums to the makespan.\n"
		"Pipelines: a process's own time goes to a sibling forked within 20 ms of it\n"
		"while that sibling ran, when the sibling lived beside it for at least half\n"
		"of its life (not a short helper, as Snakemake's cbc beside a job) and its CPU\n"
		"rate is at least twice the process's and at least a tenth of the trace's\n"
		"top rate (`a | b`: the shell waits for b, the busier a sets the pace).\n"
		"\n"
		"--by task|rule: the chain of TASKS instead (labelled by task or by rule):\n"
		"B follows A when B read a file A wrote (Snakemake's .snakemake/metadata\n"
		"records), else (no records) when A ended before B started and A's parent is\n"
		"B's parent or its ancestor. A task is ready when the last of its predecessors\n"
		"ended (its binding predecessor). The path ends at the task that ended last\n"
		"and goes back through each step's binding predecessor; each step's wait is\n"
		"its start minus its ready time. before first + walls + waits + after last\n"
		"= the makespan, exactly.\n"
		"\n"
		"Several FILEs, a directory or a merge (a run on several hosts): each host's\n"
		"own path, chained across hosts by time adjacency (the part that ended last\n"
		"before a host's part started comes before it). --by task|rule: one chain\n"
		"over every host's tasks: by the workflow's records on any host (data), on\n"
		"one host by time and process tree, else into a task without records by\n"
		"time alone from another host (adjacent); docs: MANY HOSTS.\n"
		"\n",
    .examples = "  tracer-analyze critical-path trace.tz\n"
		"  tracer-analyze critical-path --by command --json trace.tz | jq .by_tool\n"
		"  tracer-analyze critical-path --by rule trace.tz\n",
    .col = 17,
};

/* --by task|rule: the path of tasks (task.h tza_task_path) over the run's
 * span from c (the root's). 0, or -1 out of memory. */
static int task_path(FILE *f, const struct tza_model *m, const struct tza_crit *c,
		     enum tza_by by, int json)
{
	struct tza_task_path tp;
	if (tza_task_path(tza_tasks_of(m), &tp) < 0)
		return -1;
	/* before the first task and after the last: signed (a task may start
	 * before a slice's root or outlive the root) */
	int64_t before = 0, after = (int64_t)c->makespan_ns;
	if (tp.n) {
		before = (int64_t)(tp.steps[0].task->start_ns - c->start_ns);
		after = (int64_t)(c->end_ns - tp.steps[tp.n - 1].task->end_ns);
	}
	/* shares of a zero makespan are 0 */
	double ms = c->makespan_ns ? (double)c->makespan_ns : HUGE_VAL;
	if (json) {
		fputs("{\"makespan_s\":", f);
		tza_json_secs(f, (int64_t)c->makespan_ns);
		fputs(by == TZA_BY_RULE ? ",\"by\":\"rule\"" : ",\"by\":\"task\"", f);
		tza_json_key_secs(f, "before_first_s", before);
		tza_json_key_secs(f, "after_last_s", after);
		tza_json_key_secs(f, "wall_s", (int64_t)tp.wall_ns);
		tza_json_key_secs(f, "wait_s", (int64_t)tp.wait_ns);
		fprintf(f, ",\"edges\":{\"data\":%u,\"time\":%u,\"late\":%u},\"path\":[",
			tp.data_edges, tp.time_edges, tp.late);
		for (uint32_t i = 0; i < tp.n; i++) {
			const struct tza_task_step *s = &tp.steps[i];
			const struct tza_task *k = s->task;
			fputs(i ? ",{\"task\":" : "{\"task\":", f);
			tza_json_cstr(f, k->key);
			tza_json_key_cstr(f, "rule", k->name);
			tza_json_key_cstr(f, "kind", tza_task_kind_name(k->kind));
			tza_json_key_cstr(f, "id", k->id);
			fprintf(f, ",\"pid\":%u,\"start_s\":", k->root->pid);
			tza_json_secs(f, (int64_t)(k->start_ns - m->t0_ns));
			tza_json_key_secs(f, "end_s", (int64_t)(k->end_ns - m->t0_ns));
			tza_json_key_secs(f, "wall_s", (int64_t)(k->end_ns - k->start_ns));
			tza_json_key_secs(f, "wait_s", (int64_t)s->wait_ns);
			tza_json_key_cstr(f, "edge", tza_task_edge_name(s->edge, NULL));
			tza_json_key_num(f, "share", (double)(k->end_ns - k->start_ns) / ms);
			fputc('}', f);
		}
		fputs("]}\n", f);
	} else if (!c->root) {
		fprintf(f, "no processes in the trace: no critical path\n");
	} else {
		char b1[32], b2[32], b3[32], b4[32], b5[32], sk[TZA_SAFE_BUF];
		fprintf(f, "makespan %s (root pid %u)%s\n\n",
			tza_fmt_dur(b1, sizeof(b1), c->makespan_ns), c->root->pid,
			m->incomplete ? "  [tree incomplete: see summary]" : "");
		if (!tp.n) {
			fprintf(f, "no tasks in the trace: no task path\n");
		} else {
			fprintf(f, "task path (%u task%s; edges: %u from the workflow's records, "
				   "%u by time and process tree):\n",
				tp.n, tp.n == 1 ? "" : "s", tp.data_edges, tp.time_edges);
			if (tp.late)
				fprintf(f, "  (%u edge%s of the records dropped: the task that wrote the "
					   "file ended after the one that read it started)\n",
					tp.late, tp.late == 1 ? "" : "s");
			fprintf(f, "  %10s %10s %10s %10s %6s %5s  %s\n", "START", "END", "WALL",
				"WAIT", "SHARE", "EDGE", by == TZA_BY_RULE ? "RULE" : "TASK");
			for (uint32_t i = 0; i < tp.n; i++) {
				const struct tza_task_step *s = &tp.steps[i];
				const struct tza_task *k = s->task;
				uint64_t w = k->end_ns - k->start_ns;
				fprintf(f, "  %10.3f %10.3f %10s %10s %5.1f%% %5s  %s\n",
					(double)(int64_t)(k->start_ns - m->t0_ns) / 1e9,
					(double)(int64_t)(k->end_ns - m->t0_ns) / 1e9,
					tza_fmt_dur(b1, sizeof(b1), w),
					i ? tza_fmt_dur(b2, sizeof(b2), s->wait_ns) : "-",
					100.0 * (double)w / ms, tza_task_edge_name(s->edge, "-"),
					tza_safe_str(sk, sizeof(sk),
						     by == TZA_BY_RULE ? k->name : k->key));
			}
		}
		fprintf(f, "\nmakespan %s = %s before the first task + %s in tasks + %s waiting "
			   "+ %s after the last\n",
			tza_fmt_dur(b1, sizeof(b1), c->makespan_ns), tza_fmt_sdur(b2, sizeof(b2), before),
			tza_fmt_dur(b3, sizeof(b3), tp.wall_ns), tza_fmt_dur(b4, sizeof(b4), tp.wait_ns),
			tza_fmt_sdur(b5, sizeof(b5), after));
	}
	tza_task_path_free(&tp);
	return 0;
}

/* The process path as JSON: makespan, path (by start), time by tool. */
static void path_json(FILE *f, const struct tza_model *m, const struct tza_crit *c, enum tza_by by)
{
	const struct tza_crit cr = *c;
	fputs("{\"makespan_s\":", f);
	tza_json_secs(f, (int64_t)cr.makespan_ns);
	fputs(",\"path\":[", f);
	for (uint32_t i = 0; i < cr.npath; i++) {
		struct tza_proc *p = cr.path[i];
		char idb[TZA_ID_MAX];
		fputs(i ? ",{\"id\":" : "{\"id\":", f);
		tza_json_cstr(f, tza_proc_id(p, idb));
		fprintf(f, ",\"pid\":%u,\"tool\":", p->pid);
		tza_json_cstr(f, tza_proc_key(p, by));
		tza_json_key_secs(f, "start_s", (int64_t)(p->start_ns - m->t0_ns));
		tza_json_key_secs(f, "end_s", (int64_t)(tza_proc_end(m, p) - m->t0_ns));
		tza_json_key_secs(f, "critical_s", (int64_t)cr.proc_ns[p->index]);
		fputc('}', f);
	}
	fputs("],\"by_tool\":[", f);
	for (uint32_t i = 0; i < cr.ntools; i++) {
		fputs(i ? ",{\"tool\":" : "{\"tool\":", f);
		tza_json_cstr(f, cr.by_tool[i].tool);
		tza_json_key_secs(f, "seconds", (int64_t)cr.by_tool[i].ns);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

/* The process path as text: runs of one tool under one parent in one line,
 * then the attribution by tool (it sums to the makespan). */
static void path_text(FILE *f, const struct tza_model *m, const struct tza_crit *c, enum tza_by by)
{
	const struct tza_crit cr = *c;
	if (!cr.root) {
		fprintf(f, "no processes in the trace: no critical path\n");
		return;
	}
	char b1[32], b2[32], sk[TZA_SAFE_BUF];
	fprintf(f, "makespan %s (root pid %u, %s)%s\n\n",
		tza_fmt_dur(b1, sizeof(b1), cr.makespan_ns), cr.root->pid,
		tza_safe_str(sk, sizeof(sk), tza_proc_key(cr.root, by)),
		m->incomplete ? "  [tree incomplete: see summary]" : "");
	fprintf(f, "path (%u process%s, by start; runs of one tool under one parent "
		   "in one line):\n",
		cr.npath, cr.npath == 1 ? "" : "es");
	fprintf(f, "  %10s %10s %10s %8s  %s\n", "START", "END", "ON PATH", "PID", "TOOL");
	for (uint32_t i = 0; i < cr.npath;) {
		struct tza_proc *p = cr.path[i];
		const char *key = tza_proc_key(p, by);
		uint64_t on = cr.proc_ns[p->index], end = tza_proc_end(m, p);
		uint32_t j = i + 1;
		while (j < cr.npath && cr.path[j]->parent == p->parent && p->parent &&
		       !cr.path[j]->first_child && !p->first_child &&
		       !strcmp(tza_proc_key(cr.path[j], by), key)) {
			on += cr.proc_ns[cr.path[j]->index];
			if (tza_proc_end(m, cr.path[j]) > end)
				end = tza_proc_end(m, cr.path[j]);
			j++;
		}
		fprintf(f, "  %10.3f %10.3f %10s ", (double)(int64_t)(p->start_ns - m->t0_ns) / 1e9,
			(double)(end - m->t0_ns) / 1e9, tza_fmt_dur(b2, sizeof(b2), on));
		tza_safe_str(sk, sizeof(sk), key);
		if (j - i > 1)
			fprintf(f, "%8s  %u\xc3\x97 %s\n", "-", j - i, sk);
		else
			fprintf(f, "%8u  %s\n", p->pid, sk);
		i = j;
	}
	fprintf(f, "\nattribution (sums to the makespan):\n");
	for (uint32_t i = 0; i < cr.ntools; i++)
		fprintf(f, "  %10s %5.1f%%  %s\n",
			tza_fmt_dur(b1, sizeof(b1), cr.by_tool[i].ns),
			cr.makespan_ns ? 100.0 * (double)cr.by_tool[i].ns /
						 (double)cr.makespan_ns
				       : 0.0,
			tza_safe_str(sk, sizeof(sk), cr.by_tool[i].tool));
}

int cmd_critical_path(int argc, char **argv)
{
	enum tza_by by = TZA_BY_TOOL;
	int json = 0;
	const struct tza_option opts[] = {
		OPT_BY(&by, "group the attribution by exe, tool (default) or command\n"
			    "or job, container (docs: Tasks); task, rule: the task path"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_FLAG('j', "json", &json,
			 "{\"makespan_s\", \"path\": [{\"id\",\"pid\",\"tool\",\"start_s\",\n"
			 "\"end_s\",\"critical_s\"}...], \"by_tool\": [{\"tool\",\"seconds\"}...]}\n"
			 "--by task|rule: {\"makespan_s\", \"by\", \"before_first_s\",\n"
			 "\"after_last_s\", \"wall_s\", \"wait_s\", \"edges\", \"path\": [{\"task\",\n"
			 "\"rule\", \"kind\", \"id\", \"pid\", \"start_s\", \"end_s\", \"wall_s\",\n"
			 "\"wait_s\", \"edge\", \"share\"}...]} (docs: critical-path)\n"
			 "several hosts: {\"multi_host\", \"order\", \"start\", \"clock\", ...,\n"
			 "\"parts\" (by process) or \"path\" with a \"host\" per step (--by\n"
			 "task|rule), \"off_path\"} (docs: MANY HOSTS)"),
		OPT_END_TRACE,
	};
	tz_reader *r;
	struct tza_model *m;
	struct tza_crit cr;
	int ret = tza_options_parse(&critical_path_spec, opts, argc, argv);
	if (ret >= 0)
		return ret;
	if (optind < argc && tza_fleet_wanted(argv + optind, argc - optind))
		return tza_critpath_hosts(stdout, argv + optind, argc - optind, by, json);
	if (!tza_one_file("critical-path", argc, argv))
		return TZA_EXIT_USAGE;
	if (tza_load_ex(argv[optind], 0, &r, &m) < 0)
		return TZA_EXIT_FAIL;
	if (tza_critpath(m, by, &cr) < 0) {
		tza_err("out of memory");
		tza_unload(r, m);
		return TZA_EXIT_FAIL;
	}
	FILE *f = stdout;
	if (by == TZA_BY_TASK || by == TZA_BY_RULE) {
		int rc = task_path(f, m, &cr, by, json);
		if (rc < 0)
			tza_err("out of memory");
		tza_crit_free(&cr);
		tza_unload(r, m);
		return rc < 0 ? TZA_EXIT_FAIL : TZA_EXIT_OK;
	}
	if (json)
		path_json(f, m, &cr, by);
	else
		path_text(f, m, &cr, by);
	tza_crit_free(&cr);
	tza_unload(r, m);
	return TZA_EXIT_OK;
}
