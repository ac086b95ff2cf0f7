/* test_options.c - a subcommand's option table (analyze/options.c): parsing,
 * ranges, enums, callbacks, unknown options, missing arguments, --help. */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper.h"

#include "analyze/analyze.h"
#include "analyze/options.h"
#include "analyze/report.h"

static uint64_t limit;
static int json, color, seen, calls;
static const char *out;
static enum tza_by by;
static const char *const colors[] = {"red", "green", "blue", NULL};

static int count_cb(const struct tza_option *o, const char *arg)
{
	(void)o;
	calls++;
	if (arg && !strcmp(arg, "bad")) {
		tza_err("--call: 'bad' refused");
		return -1;
	}
	return 0;
}

static const struct tza_option opts[] = {
	OPT_U64_SEEN('n', "limit", "N", &limit, 1, 1000, &seen, "at most N\nrows"),
	OPT_FLAG('j', "json", &json, "JSON"),
	OPT_ENUM('c', "color", "C", &color, colors, "red, green or blue"),
	OPT_STRING('o', "output", "FILE", &out, "write FILE"),
	OPT_BY(&by, "the grouping"),
	OPT_CALL(0, "call", "X", count_cb, NULL, "a callback"),
	OPT_CALL('q', NULL, NULL, count_cb, NULL, "short only, no argument"),
	OPT_HELP,
	OPT_END,
};
static const struct tza_cmd_spec spec = {.name = "t",
					 .synopsis = "usage: t [OPTIONS] FILE\n\n",
					 .examples = "  t x\n",
					 .col = 16,
					 .nfiles = 1};

/* stderr and stdout of the last parse */
static char err[512], out_text[2048];

/* fd's output while fn runs, into buf */
static int capture(int fd, char *buf, size_t n, int (*fn)(void))
{
	fflush(NULL);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved = dup(fd);
	dup2(fileno(tmp), fd);
	int rc = fn();
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	size_t got = fread(buf, 1, n - 1, tmp);
	buf[got] = 0;
	fclose(tmp);
	return rc;
}

static int argc_;
static char *argv_[16];
static const struct tza_cmd_spec *spec_ = &spec;
static int run_parse(void)
{
	return tza_options_parse(spec_, opts, argc_, argv_);
}
static int run_parse_out(void)
{
	return capture(1, out_text, sizeof(out_text), run_parse);
}

static int parse(const char *line)
{
	static char buf[256]; /* argv's strings outlive the parse (STRING rows) */
	snprintf(buf, sizeof(buf), "%s", line);
	argc_ = 0;
	for (char *t = strtok(buf, " "); t && argc_ < 15; t = strtok(NULL, " "))
		argv_[argc_++] = t;
	argv_[argc_] = NULL;
	limit = 30;
	json = color = seen = calls = 0;
	out = NULL;
	by = TZA_BY_TOOL;
	return capture(2, err, sizeof(err), run_parse_out);
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(parse("t -n 5 --json --color blue -o x.txt --by exe f.tz"), -1);
	assert_int_equal(limit, 5);
	assert_int_equal(seen, 1);
	assert_int_equal(json, 1);
	assert_int_equal(color, 2);
	assert_string_equal(out, "x.txt");
	assert_int_equal(by, TZA_BY_EXE);
	assert_string_equal(err, "");
	/* GNU order: the operand may come first; defaults stay when not given */
	assert_int_equal(parse("t f.tz --limit=7"), -1);
	assert_int_equal(limit, 7);
	assert_int_equal(json, 0);
	assert_int_equal(color, 0);
	assert_null(out);
	assert_int_equal(parse("t f.tz"), -1);
	assert_int_equal(limit, 30);
	assert_int_equal(seen, 0);
	/* callbacks, with and without an argument */
	assert_int_equal(parse("t --call ok -q f.tz"), -1);
	assert_int_equal(calls, 2);
}

static void test_ranges(void **state)
{
	(void)state;
	assert_int_equal(parse("t -n 1 f.tz"), -1);
	assert_int_equal(parse("t -n 1000 f.tz"), -1);
	assert_int_equal(parse("t -n 0 f.tz"), TZA_EXIT_USAGE);
	assert_string_equal(err, "tracer-analyze: --limit: 0 is out of range [1, 1000]\n");
	assert_int_equal(parse("t -n 1001 f.tz"), TZA_EXIT_USAGE);
	assert_int_equal(parse("t --limit x f.tz"), TZA_EXIT_USAGE);
	assert_string_equal(err, "tracer-analyze: --limit: 'x' is not a number\n");
	assert_int_equal(parse("t -n -1 f.tz"), TZA_EXIT_USAGE);
	assert_int_equal(parse("t --color pink f.tz"), TZA_EXIT_USAGE);
	assert_string_equal(err, "tracer-analyze: --color: 'pink' is not one of red, green, blue\n");
	assert_int_equal(parse("t --by nope f.tz"), TZA_EXIT_USAGE);
	assert_non_null(strstr(err, "--by: 'nope' is not one of exe, tool"));
	assert_int_equal(parse("t --call bad f.tz"), TZA_EXIT_USAGE);
	assert_string_equal(err, "tracer-analyze: --call: 'bad' refused\n");
	/* the first bad option stops parsing: later ones are not taken */
	assert_int_equal(parse("t -n 0 --json f.tz"), TZA_EXIT_USAGE);
	assert_int_equal(json, 0);
}

static void test_bad_command_lines(void **state)
{
	(void)state;
	assert_int_equal(parse("t --nope f.tz"), TZA_EXIT_USAGE);
	assert_string_equal(err, "tracer-analyze: t: unknown option or missing argument: '--nope' "
				 "(see 'tracer-analyze t --help')\n");
	assert_int_equal(parse("t -z f.tz"), TZA_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option or missing argument: '-z'"));
	assert_int_equal(parse("t f.tz --limit"), TZA_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option or missing argument: '--limit'"));
	assert_int_equal(parse("t f.tz -n"), TZA_EXIT_USAGE);
	assert_non_null(strstr(err, "missing argument: '-n'"));
	/* a flag given an argument */
	assert_int_equal(parse("t --json=1 f.tz"), TZA_EXIT_USAGE);
	/* "--" ends the options */
	assert_int_equal(parse("t -- -n"), -1);
	assert_int_equal(limit, 30);
}

/* The operand count: exactly one FILE (nfiles 1), exactly N named ones */
static void test_operands(void **state)
{
	(void)state;
	static const struct tza_cmd_spec two = {
	    .name = "t2", .synopsis = "usage: t2 IN OUT\n\n", .nfiles = 2, .operands = "IN and OUT"};
	static const struct {
		const struct tza_cmd_spec *spec;
		const char *line, *err; /* err NULL: parsed (-1) */
	} cases[] = {
	    {&spec, "t", "tracer-analyze: t: expected one FILE (see 'tracer-analyze t --help')\n"},
	    {&spec, "t a.tz b.tz", "tracer-analyze: t: expected one FILE (see 'tracer-analyze t --help')\n"},
	    {&two, "t2 a.tz", "tracer-analyze: t2: expected IN and OUT (see 'tracer-analyze t2 --help')\n"},
	    {&two, "t2 a.tz b.tz c.tz",
	     "tracer-analyze: t2: expected IN and OUT (see 'tracer-analyze t2 --help')\n"},
	    {&two, "t2 -n 5 a.tz b.tz", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		spec_ = cases[i].spec;
		assert_int_equal(parse(cases[i].line), cases[i].err ? TZA_EXIT_USAGE : -1);
		if (cases[i].err)
			assert_string_equal(err, cases[i].err);
	}
	assert_int_equal(limit, 5); /* the last line's -n */
	spec_ = &spec;
}

/* tza_options_help's text (free it) */
static char *help_of(const struct tza_cmd_spec *sp, const struct tza_option *rows)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	tza_options_help(sp, rows, f);
	fclose(f);
	return buf;
}

static void test_help(void **state)
{
	(void)state;
	char *buf = help_of(&spec, opts);
	assert_string_equal(buf, "usage: t [OPTIONS] FILE\n\n"
				 "Options:\n"
				 "  -n, --limit N at most N\n"
				 "                rows\n"
				 "  -j, --json    JSON\n"
				 "  -c, --color C red, green or blue\n"
				 "  -o, --output FILE  write FILE\n"
				 "  -b, --by KEY  the grouping\n"
				 "      --call X  a callback\n"
				 "  -q            short only, no argument\n"
				 "  -h, --help    this help\n"
				 "\nExamples:\n  t x\n");
	/* --help prints it on stdout and ends parsing with 0, before FILE checks */
	assert_int_equal(parse("t --help"), TZA_EXIT_OK);
	assert_string_equal(out_text, buf);
	assert_string_equal(err, "");
	assert_int_equal(parse("t -h -n 0"), TZA_EXIT_OK);
	assert_string_equal(out_text, buf);
	free(buf);
}

static void notes_fn(FILE *f) { fputs("Run-time notes.\n", f); }

/* --help after the rows: a blank line, the notes and a blank line (when
 * there are notes, from the text or notes_fn), "Examples:", the examples */
static void test_help_notes(void **state)
{
	(void)state;
	static const struct tza_option rows[] = {OPT_HELP, OPT_END};
	static const struct tza_cmd_spec with_notes = {.name = "t",
						       .synopsis = "usage: t\n\n",
						       .notes = "Notes,\ntwo lines.\n",
						       .examples = "  t x\n  t y\n"};
	static const struct tza_cmd_spec with_fn = {
	    .name = "t", .synopsis = "usage: t\n\n", .examples = "  t x\n", .notes_fn = notes_fn};
	char *buf = help_of(&with_notes, rows);
	assert_string_equal(buf, "usage: t\n\nOptions:\n  -h, --help       this help\n"
				 "\nNotes,\ntwo lines.\n\nExamples:\n  t x\n  t y\n");
	free(buf);
	buf = help_of(&with_fn, rows);
	assert_string_equal(buf, "usage: t\n\nOptions:\n  -h, --help       this help\n"
				 "\nRun-time notes.\n\nExamples:\n  t x\n");
	free(buf);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_values), cmocka_unit_test(test_ranges),
	  cmocka_unit_test(test_bad_command_lines), cmocka_unit_test(test_operands),
	  cmocka_unit_test(test_help),
	  cmocka_unit_test(test_help_notes))
