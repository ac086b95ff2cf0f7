/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * options.h - one option table per subcommand (the idea of git's
 * parse-options.h; our own code): each row says short and long name,
 * argument kind, destination and help text once, and from the table come
 * the getopt_long parsing, the range checks with one-line errors naming
 * the option, and the "Options:" part of `--help`.
 *
 * A subcommand:
 *
 *	uint64_t limit = 30;
 *	int json = 0;
 *	const struct tza_option opts[] = {
 *		OPT_U64('n', "limit", "N", &limit, 0, 1000000, "show N rows"),
 *		OPT_FLAG('j', "json", &json, "JSON instead of text"),
 *		OPT_END_TRACE,		-- --partial, --help, the end
 *	};
 *	static const struct tza_cmd_spec top_spec = {
 *		.name = "top",
 *		.synopsis = "usage: tracer-analyze top [-n N] [--json] FILE\n\n...",
 *		.examples = "  tracer-analyze top run.tz\n",
 *		.col = 19, .nfiles = 1,
 *	};
 *	int rc = tza_options_parse(&top_spec, opts, argc, argv);
 *	if (rc >= 0)
 *		return rc;		-- --help printed (0) or a usage error (2)
 *	... argv[optind] is the one FILE (spec.nfiles == 1) ...
 *
 * Destinations keep the value they had when an option is not given, so
 * defaults are set before parsing. Options are handled in argv order; the
 * first bad one stops parsing with its message.
 */
#ifndef TRACER_ANALYZE_OPTIONS_H
#define TRACER_ANALYZE_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "tz.h"

struct tza_model;

/* What a row's argument is, and where it goes. */
enum tza_opt_kind {
	TZA_OPTK_END = 0, /* the table's last row */
	TZA_OPTK_FLAG,	  /* no argument: *(int *)dest = value */
	TZA_OPTK_U64,	  /* *(uint64_t *)dest, a decimal in [min, max] */
	TZA_OPTK_STRING,  /* *(const char **)dest = the argument (argv's, borrowed) */
	TZA_OPTK_ENUM,	  /* *(int *)dest = index of the argument in words */
	TZA_OPTK_CALL,	  /* cb(row, argument); argument NULL when argh is NULL */
	TZA_OPTK_HELP,	  /* print the help on stdout; parsing ends with exit 0 */
};

struct tza_option;
/* A callback row's handler: 0, or -1 after one line naming the option. */
typedef int (*tza_opt_cb)(const struct tza_option *o, const char *arg);

/* One row of a subcommand's table. */
struct tza_option {
	enum tza_opt_kind kind;
	int short_name;		/* 'n', or 0 for a long-only option */
	const char *long_name;	/* "limit", or NULL for a short-only option */
	const char *argh;	/* the argument's name in --help ("N"); NULL: none */
	void *dest;		/* per kind above; a callback's own use */
	const char *help;	/* lines split by '\n', each indented to the column */
	uint64_t min, max;	/* TZA_OPTK_U64: the accepted range, inclusive */
	const char *const *words; /* TZA_OPTK_ENUM: NULL-terminated allowed words */
	tza_opt_cb cb;		/* TZA_OPTK_CALL */
	int value;		/* TZA_OPTK_FLAG: what is stored (1 unless set) */
	int *seen;		/* when not NULL: set to 1 when the option is given */
};

#define OPT_FLAG(s, l, d, h) {.kind = TZA_OPTK_FLAG, .short_name = (s), .long_name = (l), \
			      .dest = (d), .help = (h), .value = 1}
/* a flag that stores v (e.g. 0 for a --no-X) */
#define OPT_SET_INT(s, l, d, v, h) {.kind = TZA_OPTK_FLAG, .short_name = (s), \
				    .long_name = (l), .dest = (d), .help = (h), .value = (v)}
#define OPT_U64(s, l, a, d, lo, hi, h) {.kind = TZA_OPTK_U64, .short_name = (s),	\
					.long_name = (l), .argh = (a), .dest = (d),	\
					.help = (h), .min = (lo), .max = (hi)}
/* OPT_U64 that also sets *st to 1 when given (a default that depends on it) */
#define OPT_U64_SEEN(s, l, a, d, lo, hi, st, h) {.kind = TZA_OPTK_U64, .short_name = (s), \
						 .long_name = (l), .argh = (a), .dest = (d),  \
						 .help = (h), .min = (lo), .max = (hi),	      \
						 .seen = (st)}
#define OPT_STRING(s, l, a, d, h) {.kind = TZA_OPTK_STRING, .short_name = (s), \
				   .long_name = (l), .argh = (a), .dest = (d), .help = (h)}
#define OPT_ENUM(s, l, a, d, w, h) {.kind = TZA_OPTK_ENUM, .short_name = (s),	       \
				    .long_name = (l), .argh = (a), .dest = (d), .words = (w), \
				    .help = (h)}
#define OPT_CALL(s, l, a, fn, d, h) {.kind = TZA_OPTK_CALL, .short_name = (s),	\
				     .long_name = (l), .argh = (a), .cb = (fn), .dest = (d), \
				     .help = (h)}
#define OPT_END {.kind = TZA_OPTK_END}

/* The rows several subcommands share, declared once. */
#define OPT_HELP {.kind = TZA_OPTK_HELP, .short_name = 'h', .long_name = "help", \
		  .help = "this help"}
/* --by KEY into an enum tza_by (report.h: tza_parse_by's words and message) */
#define OPT_BY(d, h) OPT_CALL('b', "by", "KEY", tza_opt_by, (d), (h))
/* --task REGEX: a task per outermost process matching it (task.h) */
#define OPT_TASK(h) OPT_CALL(0, "task", "REGEX", tza_opt_task, NULL, (h))
/* --partial: as `tracer-analyze --partial COMMAND` (the environment's
 * TRACER_ANALYZE_PARTIAL=1): analyze an unfinished or damaged trace as it is */
#define OPT_PARTIAL OPT_CALL(0, "partial", NULL, tza_opt_partial, NULL, \
			     "analyze an unfinished or damaged trace as it is\n"	\
			     "(as 'tracer-analyze --partial COMMAND')")
/* A table's last rows: --partial (a command that reads a trace's events)
 * and --help, or --help alone */
#define OPT_END_TRACE OPT_PARTIAL, OPT_HELP, OPT_END
#define OPT_END_HELP OPT_HELP, OPT_END
/* -F, --follow into an int: the command's view of a trace being written,
 * again every --interval (follow.h) */
#define OPT_FOLLOW(d, h) OPT_FLAG('F', "follow", (d), (h))
/* -i, --interval SEC of --follow, in ms into a uint64_t (follow.h) */
#define OPT_INTERVAL(d, h) OPT_CALL('i', "interval", "SEC", tza_opt_interval, (d), (h))

int tza_opt_by(const struct tza_option *o, const char *arg);
int tza_opt_task(const struct tza_option *o, const char *arg);
int tza_opt_partial(const struct tza_option *o, const char *arg);
int tza_opt_interval(const struct tza_option *o, const char *arg);

/* A subcommand's command line but its table (whose rows point at the
 * handler's variables): name, the help around the rows, FILE count.
 * --help is: synopsis, "Options:" and the rows, a blank line, the notes
 * and a blank line when there are notes, "Examples:" and the examples. */
struct tza_cmd_spec {
	const char *name;		/* "top": messages and the usage hint */
	const char *synopsis;		/* --help before "Options:" (usage, description) */
	const char *notes;		/* paragraphs after the rows, each line ending
					   in '\n'; NULL: none */
	const char *examples;		/* the lines under "Examples:" ("  tracer-analyze
					   top run.tz\n" ...), each ending in '\n' */
	int col;			/* help text column (0: 19) */
	int nfiles;			/* 1: exactly one FILE; N > 1: exactly N
					   operands, named by operands; 0: the
					   caller checks */
	const char *operands;		/* nfiles > 1: the usage error's words
					   for them ("IN and OUT") */
	void (*notes_fn)(FILE *f);	/* when not NULL: writes the notes instead
					   (text known at run time) */
};

/* At most this many rows in a table (a larger one is a usage error). */
#define TZA_OPTS_MAX 40

/*
 * Parse argv (argv[0] the subcommand's name) by opts (rows ending with
 * OPT_END) and spec with getopt_long
 * (GNU order: options and operands mixed; "--" ends options). Returns -1
 * to go on, with the operands argv[optind..argc-1]; TZA_EXIT_OK after
 * --help was printed; TZA_EXIT_USAGE after one line on stderr: an unknown
 * option or missing argument ("CMD: unknown option or missing argument:
 * 'ARG' (see 'tracer-analyze CMD --help')"), a bad value (the row's own
 * message, e.g. "--limit: 'x' is not a number"), or, with nfiles 1, not
 * exactly one FILE ("CMD: expected one FILE (see ...)"), with nfiles N > 1
 * not exactly N operands ("CMD: expected OPERANDS (see ...)").
 */
int tza_options_parse(const struct tza_cmd_spec *spec, const struct tza_option *opts, int argc,
		      char **argv);

/*
 * The IN and OUT operands of a command that writes one file (recover,
 * slice) after tza_options_parse with spec->nfiles 0: with o_out (its
 * -o/--output value, NULL: not given) exactly one operand, IN; without it
 * exactly two, IN OUT (the older form). Sets *in and *out (pointers into
 * argv or o_out) and returns -1 to go on, else TZA_EXIT_USAGE after one
 * line ("CMD: expected IN and OUT, or -o OUT and IN (see ...)", or OUT
 * "-": tza_refuse_stdout_name).
 */
int tza_in_out(const struct tza_cmd_spec *spec, int argc, char **argv, const char *o_out,
	       const char **in, const char **out);

/* Write spec's --help to f: synopsis, "Options:", one entry per row
 * ("  -n, --limit N" padded to the column, then the help's lines), notes,
 * "Examples:" and the examples (the layout above struct tza_cmd_spec). */
void tza_options_help(const struct tza_cmd_spec *spec, const struct tza_option *opts, FILE *f);

/*
 * The shared opening of a subcommand that reads one trace: parse argv by
 * opts and spec, then open argv[optind], apply the --partial rules and
 * build the model (tza_load_ex with flags, TZA_MB_*). Returns -1 to go on
 * with *r and *m set (the caller frees both with tza_unload); else the
 * exit code after the message: tza_options_parse's, or TZA_EXIT_FAIL when
 * the trace could not be read.
 */
int tza_cmd_load(const struct tza_cmd_spec *spec, const struct tza_option *opts, int argc,
		 char **argv, uint32_t flags, tz_reader **r, struct tza_model **m);

#endif /* TRACER_ANALYZE_OPTIONS_H */
