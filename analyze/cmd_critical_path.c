/* cmd_critical_path.c - the chain of processes that set the makespan. */
#include <getopt.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "task.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer-analyze critical-path [--by KEY] [--task REGEX] [--json] FILE\n\n"
		"The chain of processes that determined the makespan of the recorded command:\n"
		"from the root's end, walk back through the child whose end released its\n"
		"waiting parent (the latest-ending child), down into that child, and back up\n"
		"to the parent at the child's start. Every nanosecond of the makespan is given\n"
		"to exactly one process, so the per-tool attribution sums to the makespan.\n"
		"Pipelines: a process's own time goes to a sibling forked within 20 ms of it\n"
		"while that sibling ran, when the sibling lived beside it for at least half\n"
		"of its life (not a short helper, as Snakemake's cbc beside a job) and its CPU\n"
		"rate is at least twice the process's and at least a tenth of the trace's\n"
		"top rate (`a | b`: the shell waits for b, the busier a sets the pace).\n\n"
		"Options:\n"
		"  -b, --by KEY   group the attribution by exe, tool (default) or command\n"
		"                 or task, rule, job, container (docs: Tasks)\n"
		"      --task REGEX\n"
		"                 a task per outermost process matching REGEX\n"
		"  -j, --json     {\"makespan_s\", \"path\": [{\"id\",\"pid\",\"tool\",\"start_s\",\n"
		"                 \"end_s\",\"critical_s\"}...], \"by_tool\": [{\"tool\",\"seconds\"}...]}\n"
		"  -h, --help     this help\n\n"
		"Examples:\n"
		"  tracer-analyze critical-path trace.tz\n"
		"  tracer-analyze critical-path --by command --json trace.tz | jq .by_tool\n");
}

int cmd_critical_path(int argc, char **argv)
{
	static const struct option opts[] = {
		{"by", required_argument, NULL, 'b'},
		{"task", required_argument, NULL, TZA_OPT_TASK},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	enum tza_by by = TZA_BY_TOOL;
	int json = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:jh", opts, NULL)) != -1) {
		switch (c) {
		case TZA_OPT_TASK:
			if (tza_task_set_regex(optarg) < 0)
				return TZA_EXIT_USAGE;
			break;
		case 'b':
			if (tza_parse_by("--by", optarg, &by) < 0)
				return TZA_EXIT_USAGE;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return TZA_EXIT_OK;
		default:
			tza_bad_option("critical-path", argc, argv);
			return TZA_EXIT_USAGE;
		}
	}
	if (!tza_one_file("critical-path", argc, argv))
		return TZA_EXIT_USAGE;
	tz_reader *r;
	struct tza_model *m;
	struct tza_crit cr;
	if (tza_load(argv[optind], &r, &m) < 0)
		return TZA_EXIT_FAIL;
	if (tza_critpath(m, by, &cr) < 0) {
		tza_err("out of memory");
		tza_unload(r, m);
		return TZA_EXIT_FAIL;
	}
	FILE *f = stdout;
	if (json) {
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
			fputs(",\"start_s\":", f);
			tza_json_secs(f, (int64_t)(p->start_ns - m->t0_ns));
			fputs(",\"end_s\":", f);
			tza_json_secs(f, (int64_t)(tza_proc_end(m, p) - m->t0_ns));
			fputs(",\"critical_s\":", f);
			tza_json_secs(f, (int64_t)cr.proc_ns[p->index]);
			fputc('}', f);
		}
		fputs("],\"by_tool\":[", f);
		for (uint32_t i = 0; i < cr.ntools; i++) {
			fputs(i ? ",{\"tool\":" : "{\"tool\":", f);
			tza_json_cstr(f, cr.by_tool[i].tool);
			fputs(",\"seconds\":", f);
			tza_json_secs(f, (int64_t)cr.by_tool[i].ns);
			fputc('}', f);
		}
		fputs("]}\n", f);
	} else if (!cr.root) {
		fprintf(f, "no processes in the trace: no critical path\n");
	} else {
		char b1[32], b2[32];
		fprintf(f, "makespan %s (root pid %u, %s)%s\n\n",
			tza_fmt_dur(b1, sizeof(b1), cr.makespan_ns), cr.root->pid,
			tza_proc_key(cr.root, by),
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
			if (j - i > 1)
				fprintf(f, "%8s  %u\xc3\x97 %s\n", "-", j - i, key);
			else
				fprintf(f, "%8u  %s\n", p->pid, key);
			i = j;
		}
		fprintf(f, "\nattribution (sums to the makespan):\n");
		for (uint32_t i = 0; i < cr.ntools; i++)
			fprintf(f, "  %10s %5.1f%%  %s\n",
				tza_fmt_dur(b1, sizeof(b1), cr.by_tool[i].ns),
				cr.makespan_ns ? 100.0 * (double)cr.by_tool[i].ns /
							 (double)cr.makespan_ns
					       : 0.0,
				cr.by_tool[i].tool);
	}
	tza_crit_free(&cr);
	tza_unload(r, m);
	return TZA_EXIT_OK;
}
