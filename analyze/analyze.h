/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze.h - shared declarations of tracer-analyze: the subcommand table and
 * the small helpers every subcommand uses (opening a trace, messages, time
 * and number parsing). One file per subcommand: analyze/cmd_<name>.c.
 */
#ifndef TRACER_ANALYZE_H
#define TRACER_ANALYZE_H

#include <stdint.h>
#include <stdio.h>

#include "tz.h"

/* Exit codes of tracer-analyze (docs/tracer-analyze.md). */
#define TZA_EXIT_OK 0
#define TZA_EXIT_FAIL 1	 /* runtime failure: unreadable input, bad trace, I/O */
#define TZA_EXIT_USAGE 2 /* bad command line */

/* A subcommand: argv[0] is the subcommand name; returns an exit code. */
struct tza_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for the top-level --help */
};

int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_critical_path(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_rightsize(int argc, char **argv);

/* Print "tracer-analyze: <formatted>" and a newline to stderr. */
void tza_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* How many lines tza_err (tza_err_tz, ...) printed so far. */
unsigned tza_err_count(void);
/* The line of a failed format/ call: the handle's detail msg (its errmsg,
 * which names the file and offset) when it has one, else "'path': " and
 * tz_strerror(rc). */
void tza_err_tz(const char *msg, const char *path, int rc);

/*
 * Open a trace for reading: a .tz file (or, once bundles exist, a bundle
 * holding one). On failure prints one line naming the file and what is wrong
 * and returns NULL. The caller frees with tz_reader_free().
 */
tz_reader *tza_open(const char *path, const struct tz_reader_opts *opts);
/* "RUN.tz[i]" where no file has that name: RUN.tz (malloc'd; the caller
 * frees it) and *i; else NULL. Whether RUN.tz is a multi-host trace is not
 * checked. */
char *tza_member_name(const char *path, size_t *i);
/* Would writing out replace the file the trace in is read from (in itself,
 * or for a member "RUN.tz[i]" its RUN.tz: same device and inode)? 1 after
 * "CMD: 'OUT' is the file 'IN' is read from: write to another file", else 0. */
int tza_refuse_out_is_in(const char *cmd, const char *out, const char *in);
/* The same for every one of the n inputs of a command (files, members
 * "RUN.tz[i]", bundles, directories: each *.tz file in them that a command
 * reads; compared by device and inode, so through hard links and symlinks).
 * out NULL, "-" (standard output) or not existing: 0. */
int tza_refuse_out_in_args(const char *cmd, const char *out, char *const *in, int n);
/* A trace output named "-": 1 after "CMD: OPT -: a trace is written to a
 * file it can seek in, not to standard output: name a file", else 0. */
int tza_refuse_stdout_name(const char *cmd, const char *opt, const char *out);
/* Is path a multi-host trace (FORMAT.md 18)? 1: yes, opened into *mt (the
 * caller frees it); 0: no (*mt NULL); -1: it is one that cannot be opened,
 * after one line (file and offset). */
int tza_open_container(const char *path, const struct tz_reader_opts *opts, tz_multi **mt);
/*
 * path as a list of member traces (tz_multi_open): a trace file, or the
 * trace inside a bundle (tza_bundle_trace: its memory lives until exit;
 * messages name path). Returns what tz_multi_open returns, or
 * TZA_OPEN_SAID when the bundle could not be read (one line printed, *mt
 * NULL).
 */
#define TZA_OPEN_SAID (-1000)
int tza_multi_open_path(const char *path, const struct tz_reader_opts *opts, tz_multi **mt);

/*
 * Output files (docs/tracer-analyze.md, FILES WRITTEN): a trace's copy or
 * anything holding unredacted argv is private (0600); a derived output
 * follows the user's umask (0666 & ~umask).
 */
#define TZA_MODE_PRIVATE 0600u
#define TZA_MODE_UMASK 0666u
/*
 * Create path for writing as a fresh file of mode (TZA_MODE_*; never the old
 * file's inode or mode, never through a symlink: tz_create_file_mode) and
 * return it open with fopen mode fmode. An existing path is refused unless
 * force, with "'PATH': file exists (use HINT to overwrite)" (HINT "-f", or
 * "--force" for export, whose -f is --format); a directory, FIFO or device
 * with "'PATH': not a regular file"; any other failure with "'PATH': cannot
 * create: REASON". The message (one line, always naming path as given) is
 * printed and NULL returned.
 */
FILE *tza_create_out(const char *path, int force, unsigned mode, const char *fmode,
		     const char *hint);
/* The "'PATH': file exists (use HINT to overwrite)" line of every writer. */
void tza_err_exists(const char *path, const char *hint);
/* path exists and is not a regular file: "'d' is a directory, not WHAT"
 * (what: "a trace or bundle", "a bundle"...) for a directory, else "'p': not
 * a regular file" (FIFO, device, socket) */
void tza_err_not_file(const char *path, const char *what);
/* 1 (after that line) when path is a directory, else 0 */
int tza_refuse_dir(const char *path, const char *what);
/* TZA_MODE_UMASK when the trace's strings were redacted (metadata "redact"
 * from tracer-record --redact, or "redacted" from bundle --redact), else
 * TZA_MODE_PRIVATE: for outputs that copy argv (exports). */
unsigned tza_argv_mode(tz_reader *r);

/*
 * Run a subcommand's handler (fn, av NULL-terminated, av[0] the command
 * name) in-process with its standard output on fd (fd < 0: /dev/null);
 * stdout is flushed before and after and restored. Returns the handler's
 * exit code, or -1 with one line when stdout cannot be redirected. Used by
 * bundle and report to include exactly what `tracer-analyze CMD` prints.
 */
int tza_run_to_fd(int (*fn)(int, char **), char **av, int fd);

/*
 * Parse a time given on the command line into CLOCK_BOOTTIME ns of trace r:
 * seconds from trace start ("90", "1.5", "1m30s", "2h", "250ms") or wall
 * clock ("2026-11-29T10:00:00", local time, optional ".frac" and "Z").
 * Returns 0, or -1 (with a message naming opt) when malformed.
 */
int tza_parse_time(tz_reader *r, const char *opt, const char *s, uint64_t *out_ns);
/*
 * The same time without a trace: wall clock into *wall_ns (epoch ns,
 * returns 1) or seconds from a start into *rel_ns (ns, returns 0); -1 with
 * the same message as tza_parse_time when malformed.
 */
int tza_parse_when(const char *opt, const char *s, int64_t *wall_ns, uint64_t *rel_ns);
/* a - b, held at INT64_MIN / INT64_MAX instead of overflowing (wall-clock
 * times from 1678 to 2262 minus a trace's epoch ns) */
static inline int64_t tza_sub_sat(int64_t a, int64_t b)
{
	int64_t d;
	return __builtin_sub_overflow(a, b, &d) ? (b < 0 ? INT64_MAX : INT64_MIN) : d;
}

/* Parse an unsigned integer in [min, max] for option opt; -1 + message on error. */
int tza_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif /* TRACER_ANALYZE_H */
