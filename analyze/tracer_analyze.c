/* SPDX-License-Identifier: BSD-2-Clause */
/* tracer_analyze.c - tracer-analyze's main(): one binary, a dispatch table of subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "progress.h"

static const struct tza_cmd cmds[] = {
	{"info", cmd_info, "header, metadata, schema, chunks, time range, sizes"},
	{"verify", cmd_verify, "check every checksum; name each bad block and offset"},
	{"recover", cmd_recover, "write a clean linear file from a damaged or ring file"},
	{"cat", cmd_cat, "print events one per line (--from/--to, --type)"},
	{"summary", cmd_summary, "what ran, what it cost, drops, critical path (--json)"},
	{"tree", cmd_tree, "the process tree with exit status, CPU, RSS"},
	{"top", cmd_top, "bottleneck binaries per tool/exe/command (--json)"},
	{"critical-path", cmd_critical_path, "the chain of processes that set the makespan"},
	{"export", cmd_export, "processes as csv, tsv, jsonl or a Chrome/Perfetto trace"},
	{"slice", cmd_slice, "cut a time window into a new self-contained .tz"},
	{"merge", cmd_merge, "the traces of several hosts into one multi-host .tz"},
	{"diff", cmd_diff, "compare two traces per tool"},
	{"plot", cmd_plot, "gnuplot timelines: gantt, cpu, mem, io"},
	{"bundle", cmd_bundle, "a bug-report archive: trace, summaries, plots"},
	{"report", cmd_report, "one offline HTML report: timeline, tables, tree, charts"},
	{"rightsize", cmd_rightsize, "per rule: requested vs used cpus, memory, time; a config to paste"},
	{"idle", cmd_idle, "stretches where the machine used under X% of its cores, and who ran"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tracer-analyze [--partial] [--progress | --no-progress] COMMAND [OPTIONS]\n"
		   "                      FILE...\n"
		   "       tracer-analyze help [COMMAND] | --help | --version\n\n"
		   "Read .tz traces written by tracer-record. Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-14s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'tracer-analyze COMMAND --help' (or 'tracer-analyze help COMMAND')\n"
		   "describes each command; --version (-V) prints the version.\n"
		   "--partial (before COMMAND) analyzes unfinished or damaged traces as they are\n"
		   "(damaged blocks skipped and counted, the model flagged incomplete); the same\n"
		   "as TRACER_ANALYZE_PARTIAL=1 in the environment.\n"
		   "Reading a trace for longer than about 1.5 s shows one progress line on\n"
		   "stderr when it is a terminal (chunks read of the total, percent), erased\n"
		   "once read; --progress shows it off a terminal too (plain lines),\n"
		   "--no-progress never.\n"
		   "Exit status: 0 ok, 1 runtime failure (unreadable or damaged input), 2 usage.\n\n"
		   "Examples:\n"
		   "  tracer-analyze summary trace.tz\n"
		   "  tracer-analyze tree --depth 3 trace.tz\n"
		   "  tracer-analyze export --format jsonl trace.tz > procs.jsonl\n"
		   "  tracer-analyze --partial summary killed-recorder.tz\n");
}

/* Output that could not be written (a full disk, a closed descriptor) is a
 * failure whatever the command made of it: rc, or TZA_EXIT_FAIL, with
 * "standard output: write failed" unless the command failed and said why
 * (nerr0: tza_err's count before it ran). */
static int out_done(int rc, unsigned nerr0)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc == TZA_EXIT_OK || tza_err_count() == nerr0)
		tza_err("standard output: write failed");
	return rc == TZA_EXIT_OK ? TZA_EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
	/* global options before COMMAND, in any order */
	while (argc >= 2 && argv[1][0] == '-' && argv[1][1] == '-') {
		if (!strcmp(argv[1], "--partial")) {
			/* read by tza_check_whole() (report.c), as the variable is */
			if (setenv("TRACER_ANALYZE_PARTIAL", "1", 1)) {
				tza_err("--partial: %s", strerror(errno));
				return TZA_EXIT_FAIL;
			}
		} else if (!strcmp(argv[1], "--progress")) {
			tza_progress_set_mode(TZA_PROGRESS_ON);
		} else if (!strcmp(argv[1], "--no-progress")) {
			tza_progress_set_mode(TZA_PROGRESS_OFF);
		} else {
			break;
		}
		const char *opt = argv[1];
		argc--;
		argv++;
		if (argc < 2) {
			tza_err("%s: expected a COMMAND (see 'tracer-analyze --help')", opt);
			return TZA_EXIT_USAGE;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return TZA_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc == 3 && argv[2][0] != '-') {
		/* help COMMAND: COMMAND --help */
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name)) {
				char *av[] = {argv[2], "--help", NULL};
				return out_done(cmds[i].run(2, av), 0);
			}
		tza_err("help: unknown command '%s' (see 'tracer-analyze --help')", argv[2]);
		return TZA_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return out_done(TZA_EXIT_OK, 0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("tracer-analyze %s\n", TRACER_VERSION);
		return out_done(TZA_EXIT_OK, 0);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			unsigned nerr0 = tza_err_count();
			return out_done(cmds[i].run(argc - 1, argv + 1), nerr0);
		}
	tza_err("unknown command '%s' (see 'tracer-analyze --help')", argv[1]);
	return TZA_EXIT_USAGE;
}
