/* SPDX-License-Identifier: BSD-2-Clause */
/* options.c - a subcommand's option table into getopt_long, checks and --help. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "follow.h"
#include "options.h"
#include "report.h"
#include "task.h"

/* getopt_long's value for a long-only row i */
#define LONG_ONLY_BASE 0x200

int tza_opt_by(const struct tza_option *o, const char *arg)
{
	return tza_parse_by("--by", arg, o->dest);
}

int tza_opt_task(const struct tza_option *o, const char *arg)
{
	(void)o;
	return tza_task_set_regex(arg);
}

int tza_opt_partial(const struct tza_option *o, const char *arg)
{
	(void)o;
	(void)arg;
	/* read by tza_check_whole() (report.c), as the global --partial is */
	if (setenv("TRACER_ANALYZE_PARTIAL", "1", 1)) {
		tza_err("--partial: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int tza_opt_interval(const struct tza_option *o, const char *arg)
{
	return tza_follow_interval(arg, o->dest);
}

/* "--long", or "-s" for a short-only row, into buf (for messages) */
static const char *opt_name(const struct tza_option *o, char *buf, size_t n)
{
	if (o->long_name)
		snprintf(buf, n, "--%s", o->long_name);
	else
		snprintf(buf, n, "-%c", o->short_name);
	return buf;
}

static int set_enum(const struct tza_option *o, const char *name, const char *arg)
{
	char list[256] = "";
	size_t len = 0;
	for (int i = 0; o->words[i]; i++) {
		if (!strcmp(o->words[i], arg)) {
			*(int *)o->dest = i;
			return 0;
		}
		len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
					"%s%s", i ? ", " : "", o->words[i]);
	}
	tza_err("%s: '%s' is not one of %s", name, arg, list);
	return -1;
}

/* Row o given with arg: store it. Returns -1 to go on, else the exit code. */
static int take(const struct tza_cmd_spec *spec, const struct tza_option *opts,
		const struct tza_option *o, const char *arg)
{
	char name[64];
	opt_name(o, name, sizeof(name));
	if (o->seen)
		*o->seen = 1;
	switch (o->kind) {
	case TZA_OPTK_FLAG:
		*(int *)o->dest = o->value;
		return -1;
	case TZA_OPTK_U64:
		return tza_parse_u64(name, arg, o->min, o->max, o->dest) < 0 ? TZA_EXIT_USAGE : -1;
	case TZA_OPTK_STRING:
		*(const char **)o->dest = arg;
		return -1;
	case TZA_OPTK_ENUM:
		return set_enum(o, name, arg) < 0 ? TZA_EXIT_USAGE : -1;
	case TZA_OPTK_CALL:
		return o->cb(o, arg) < 0 ? TZA_EXIT_USAGE : -1;
	case TZA_OPTK_HELP:
		tza_options_help(spec, opts, stdout);
		return TZA_EXIT_OK;
	case TZA_OPTK_END:
		break;
	}
	return TZA_EXIT_USAGE;
}

/* spec's rows as getopt_long's short string and long table; the number of
 * rows, or -1 when there are more than TZA_OPTS_MAX */
static int build(const struct tza_option *opts, char *shorts, struct option *longs)
{
	int n = 0, ns = 0, nl = 0;
	for (; opts[n].kind != TZA_OPTK_END; n++) {
		const struct tza_option *o = &opts[n];
		if (n == TZA_OPTS_MAX)
			return -1;
		int has_arg = o->argh ? required_argument : no_argument;
		if (o->short_name) {
			shorts[ns++] = (char)o->short_name;
			if (has_arg)
				shorts[ns++] = ':';
		}
		if (o->long_name)
			longs[nl++] = (struct option){o->long_name, has_arg, NULL,
						      o->short_name ? o->short_name
								    : LONG_ONLY_BASE + n};
	}
	shorts[ns] = 0;
	longs[nl] = (struct option){0};
	return n;
}

int tza_options_parse(const struct tza_cmd_spec *spec, const struct tza_option *opts, int argc,
		      char **argv)
{
	char shorts[3 * TZA_OPTS_MAX + 1];
	struct option longs[TZA_OPTS_MAX + 1];
	int n = build(opts, shorts, longs), c;
	if (n < 0) {
		tza_err("%s: more than %d options", spec->name, TZA_OPTS_MAX);
		return TZA_EXIT_USAGE;
	}
	optind = 0; /* glibc: a full reset (a parse before may have stopped mid-way) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct tza_option *o = NULL;
		if (c >= LONG_ONLY_BASE && c < LONG_ONLY_BASE + n)
			o = &opts[c - LONG_ONLY_BASE];
		for (int i = 0; !o && c != '?' && c != ':' && i < n; i++)
			if (opts[i].short_name == c)
				o = &opts[i];
		if (!o) {
			tza_bad_option(spec->name, argc, argv);
			return TZA_EXIT_USAGE;
		}
		int rc = take(spec, opts, o, optarg);
		if (rc >= 0)
			return rc;
	}
	if (spec->nfiles == 1 && !tza_one_file(spec->name, argc, argv))
		return TZA_EXIT_USAGE;
	if (spec->nfiles > 1 && argc - optind != spec->nfiles) {
		tza_err("%s: expected %s (see 'tracer-analyze %s --help')", spec->name,
			spec->operands, spec->name);
		return TZA_EXIT_USAGE;
	}
	return -1;
}

int tza_in_out(const struct tza_cmd_spec *spec, int argc, char **argv, const char *o_out,
	       const char **in, const char **out)
{
	int n = argc - optind;
	if (n != (o_out ? 1 : 2)) {
		tza_err("%s: expected IN and OUT, or -o OUT and IN (see 'tracer-analyze %s "
			"--help')",
			spec->name, spec->name);
		return TZA_EXIT_USAGE;
	}
	*in = argv[optind];
	*out = o_out ? o_out : argv[optind + 1];
	if (tza_refuse_stdout_name(spec->name, o_out ? "-o" : "OUT", *out))
		return TZA_EXIT_USAGE;
	return -1;
}

/* Text s with each '\n' followed by col spaces */
static void put_indented(FILE *f, const char *s, int col)
{
	for (; *s; s++) {
		fputc(*s, f);
		if (*s == '\n' && s[1])
			fprintf(f, "%*s", col, "");
	}
}

void tza_options_help(const struct tza_cmd_spec *spec, const struct tza_option *opts, FILE *f)
{
	int col = spec->col ? spec->col : 19;
	fputs(spec->synopsis, f);
	fputs("Options:\n", f);
	for (const struct tza_option *o = opts; o->kind != TZA_OPTK_END; o++) {
		char head[96];
		int len;
		if (o->short_name && o->long_name)
			len = snprintf(head, sizeof(head), "  -%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			len = snprintf(head, sizeof(head), "  -%c", o->short_name);
		else
			len = snprintf(head, sizeof(head), "      --%s", o->long_name);
		if (o->argh)
			len += snprintf(head + len, sizeof(head) - (size_t)len, " %s", o->argh);
		fprintf(f, "%s%*s", head, len < col ? col - len : 2, "");
		put_indented(f, o->help, col);
		fputc('\n', f);
	}
	fputc('\n', f);
	if (spec->notes_fn || spec->notes) {
		if (spec->notes_fn)
			spec->notes_fn(f);
		else
			fputs(spec->notes, f);
		fputc('\n', f);
	}
	fputs("Examples:\n", f);
	fputs(spec->examples, f);
}

int tza_cmd_load(const struct tza_cmd_spec *spec, const struct tza_option *opts, int argc,
		 char **argv, uint32_t flags, tz_reader **r, struct tza_model **m)
{
	int rc = tza_options_parse(spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (spec->nfiles != 1 && !tza_one_file(spec->name, argc, argv))
		return TZA_EXIT_USAGE;
	return tza_load_ex(argv[optind], flags, r, m) < 0 ? TZA_EXIT_FAIL : -1;
}
