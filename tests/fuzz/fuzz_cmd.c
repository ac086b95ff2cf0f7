/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_cmd.c - libFuzzer target for tracer-analyze's commands over a file:
 * the input's first byte picks a command line (below; bit 7 also sets
 * TRACER_ANALYZE_PARTIAL, as --partial does), the rest is written to a file
 * and the command runs on it in process, as main() would run it: the
 * readers of .tz and multi-host files behind info, verify, recover, slice,
 * merge, cat, the model commands and their JSON, CSV, Chrome and HTML
 * writers, plot's gnuplot scripts (gnuplot is not run), fleets of two,
 * top and summary --follow (bounded without a sleep: it waits between
 * refreshes only while a writer holds the file's lock, and none does, so
 * it renders once, twice for a closed damaged file, and returns). An input
 * that is an archive (tar, gzip, zip) is a bundle: every command reads the
 * trace out of it as it would from a bug report (bundle.c; its cache is
 * cleared after each input, so no input sees the last one's trace).
 * Standard output goes to /dev/null, standard input is /dev/null (no
 * terminal for --follow's keys), files are written to a private directory
 * removed at exit. Nothing may crash, loop or leak. Built by `make fuzz`;
 * the replay driver runs it over tests/fuzz/corpus_cmd (seeds: the
 * conformance traces, each with one command byte, three traces with every
 * command byte, and bundles of a trace and of a multi-host trace whose
 * header is damaged) and tests/data/bad in `make test`.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/bundle.h"

/* IN: the input file, OUT: an output file (both in the private directory) */
static const struct line {
	int (*run)(int argc, char **argv);
	const char *argv[10];
} lines[] = {
	{cmd_info, {"info", "IN"}},
	{cmd_info, {"info", "--json", "IN"}},
	{cmd_info, {"info", "--scan", "IN"}},
	{cmd_verify, {"verify", "-v", "IN"}},
	{cmd_recover, {"recover", "-f", "IN", "OUT"}},
	{cmd_cat, {"cat", "--state", "--abs", "IN"}},
	{cmd_cat, {"cat", "--from", "1", "--to", "2", "--type", "exec,exit", "IN"}},
	{cmd_summary, {"summary", "--json", "IN"}},
	{cmd_summary, {"summary", "--by", "command", "IN"}},
	{cmd_summary, {"summary", "IN", "IN"}},
	{cmd_tree, {"tree", "--full-args", "IN"}},
	{cmd_top, {"top", "--json", "--by", "exe", "IN"}},
	{cmd_critical_path, {"critical-path", "--json", "IN"}},
	{cmd_critical_path, {"critical-path", "--by", "rule", "IN"}},
	{cmd_export, {"export", "--format", "jsonl", "IN"}},
	{cmd_export, {"export", "--format", "chrome", "IN"}},
	{cmd_export, {"export", "--format", "jsonl", "--samples", "IN"}},
	{cmd_export, {"export", "--format", "csv", "IN"}},
	{cmd_export, {"export", "--format", "jsonl", "--tasks", "IN"}},
	{cmd_slice, {"slice", "--allow-empty", "-f", "IN", "OUT"}},
	{cmd_merge, {"merge", "-o", "OUT", "-f", "IN", "IN"}},
	{cmd_diff, {"diff", "--json", "IN", "IN"}},
	{cmd_report, {"report", "-o", "OUT", "-f", "IN"}},
	{cmd_rightsize, {"rightsize", "--json", "--config", "both", "IN"}},
	{cmd_idle, {"idle", "--all", "--json", "IN"}},
	{cmd_plot, {"plot", "--script", "OUT", "-f", "--all", "IN"}},
	{cmd_plot, {"plot", "--script", "OUT", "-f", "-k", "cpu", "IN"}},
	{cmd_plot, {"plot", "--script", "OUT", "-f", "-k", "mem", "--time", "wall", "IN"}},
	{cmd_plot, {"plot", "--script", "OUT", "-f", "-k", "io", "--by", "tool", "IN"}},
	{cmd_top, {"top", "--follow", "IN"}},
	{cmd_summary, {"summary", "--follow", "--interval", "1", "IN"}},
};
#define NLINES (sizeof(lines) / sizeof(lines[0]))

static char dir[64], in[96], out[96];

static void cleanup(void)
{
	unlink(in);
	unlink(out);
	rmdir(dir);
}

static int setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz_cmd.XXXXXX", base);
	if (!mkdtemp(dir))
		return -1;
	snprintf(in, sizeof(in), "%s/in.tz", dir);
	snprintf(out, sizeof(out), "%s/out.tz", dir);
	atexit(cleanup);
	return freopen("/dev/null", "w", stdout) && freopen("/dev/null", "r", stdin) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0 || size < 1)
		return 0;
	const struct line *l = &lines[(data[0] & 0x7f) % NLINES];
	int fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	ssize_t n = write(fd, data + 1, size - 1);
	close(fd);
	if (n != (ssize_t)(size - 1))
		return 0;
	char *argv[11];
	int argc = 0;
	for (; argc < 10 && l->argv[argc]; argc++) {
		const char *a = l->argv[argc];
		argv[argc] = (char *)(!strcmp(a, "IN") ? in : !strcmp(a, "OUT") ? out : a);
	}
	argv[argc] = NULL;
	if (data[0] & 0x80)
		setenv("TRACER_ANALYZE_PARTIAL", "1", 1);
	else
		unsetenv("TRACER_ANALYZE_PARTIAL");
	l->run(argc, argv);
	fflush(stdout);
	clearerr(stdout);
	unlink(out);
	tza_bundle_cache_clear(); /* the command's readers are gone */
	return 0;
}
