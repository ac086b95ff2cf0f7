/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_cat.c - tracer-analyze cat: events one per line. */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "textsafe.h"

static const struct tza_cmd_spec cat_spec = {
    .name = "cat",
    .synopsis = "usage: tracer-analyze cat [--from T] [--to T] [--type NAME[,NAME...]] [--state]\n"
		"                          [--abs] FILE\n\n"
		"Print events one per line in timestamp order:\n"
		"  TIME TYPE field=value ...\n"
		"TIME is seconds since the first event (--abs: CLOCK_BOOTTIME ns). Fields come\n"
		"from the trace's schema. Strings are double-quoted with C escapes (\\\\ \\\" \\n\n"
		"\\t \\r \\e, other control and invalid UTF-8 bytes as \\xHH with exactly two hex\n"
		"digits, C1 controls as \\u0080..\\u009f); argv is a list [\"arg0\", \"arg1\"];\n"
		"a list that ends without its final NUL (cut by --argv-max) is followed by\n"
		"'...'. A multi-host trace (merge): each member's events in turn, after a\n"
		"line '== RUN.tz[i]: host NAME =='.\n\n",
    .notes = "Every readable event is printed. Exit status: 0 the file is whole, 1 unreadable,\n"
	     "or not whole: damaged or duplicated blocks skipped, truncated or unfinished (no\n"
	     "footer), still being written (a recorder holds it), a footer index that does\n"
	     "not describe the file (one line on stderr says which; --partial makes these\n"
	     "0), 2 usage.\n",
    .examples = "  tracer-analyze cat run.tz | head\n"
		"  tracer-analyze cat --type exec --from 10 --to 12.5 run.tz\n"
		"  tracer-analyze cat --from 2026-11-29T10:00:00 --type exec,exit run.tz\n",
    .col = 19,
    .nfiles = 1,
};

/* C-quoted byte string: textsafe.h's safe form in double quotes */
static void quote(FILE *f, const uint8_t *p, size_t n)
{
	tza_safe_quoted(f, p, n);
}

static void print_argv(FILE *f, const uint8_t *p, size_t n)
{
	fputc('[', f);
	size_t i = 0;
	int first = 1;
	while (i < n) {
		const uint8_t *z = memchr(p + i, 0, n - i);
		size_t l = z ? (size_t)(z - (p + i)) : n - i;
		if (!first)
			fputs(", ", f);
		quote(f, p + i, l);
		first = 0;
		i += l + (z ? 1 : 0);
		if (!z) {
			fputs("...", f);
			break;
		}
	}
	fputc(']', f);
}

static void print_field(FILE *f, const struct tz_event *ev, const struct tz_field *fl)
{
	uint32_t len;
	const uint8_t *b;
	struct tz_blob bl;
	switch (fl->type) {
	case TZ_F_I8:
	case TZ_F_I16:
	case TZ_F_I32:
	case TZ_F_I64:
		fprintf(f, "%" PRId64, tz_event_i64(ev, fl));
		break;
	case TZ_F_CHARS:
		b = tz_event_bytes(ev, fl, &len);
		if (b) {
			const uint8_t *z = memchr(b, 0, len);
			quote(f, b, z ? (size_t)(z - b) : len);
		} else {
			fputs("\"\"", f);
		}
		break;
	case TZ_F_BYTES:
		b = tz_event_bytes(ev, fl, &len);
		for (uint32_t i = 0; i < len; i++)
			fprintf(f, "%02x", b[i]);
		if (!len)
			fputc('-', f);
		break;
	case TZ_F_STR:
		bl = tz_event_blob(ev, fl);
		quote(f, bl.data, bl.len);
		break;
	case TZ_F_STRV:
		bl = tz_event_blob(ev, fl);
		print_argv(f, bl.data, bl.len);
		break;
	default:
		if (strstr(fl->name, "flags"))
			fprintf(f, "0x%" PRIx64, tz_event_u64(ev, fl));
		else
			fprintf(f, "%" PRIu64, tz_event_u64(ev, fl));
	}
}

/* Is name in the comma-separated list? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !strncmp(p, name, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* cat's options (cmd_cat) */
struct cat_opts {
	const char *from_s, *to_s, *types; /* as given, NULL: not given */
	int state, abs_ts;
};

/* Parse argv into o; returns -1 to go on (argv[optind] the FILE), else the
 * exit code */
static int cat_parse(int argc, char **argv, struct cat_opts *o)
{
	*o = (struct cat_opts){0};
	const struct tza_option opts[] = {
		OPT_STRING('f', "from", "T", &o->from_s,
			   "first time to print: seconds from the start (90, 1.5,\n"
			   "1m30s, 250ms) or wall clock (2026-11-29T10:00:00, local;\n"
			   "add Z for UTC)"),
		OPT_STRING('t', "to", "T", &o->to_s, "last time to print (same forms)"),
		OPT_STRING('T', "type", "N", &o->types,
			   "only these event types (comma-separated names: exec,exit)"),
		OPT_FLAG('s', "state", &o->state,
			 "also print process-state snapshot events (marked 'state:')"),
		OPT_FLAG('a', "abs", &o->abs_ts, "absolute CLOCK_BOOTTIME ns instead of relative seconds"),
		OPT_END_TRACE,
	};
	return tza_options_parse(&cat_spec, opts, argc, argv);
}

/* Every name of the comma-separated types is an event type of r's schema?
 * A file cut before its schema block (recorder killed at start-up) has no
 * types and no events: every filter then matches nothing, which is not an
 * error. Returns 0, or -1 after saying which name is not. */
static int check_types(tz_reader *r, const char *path, const char *types)
{
	if (!tz_reader_type_count(r))
		return 0;
	for (const char *p = types; *p;) {
		const char *cm = strchr(p, ',');
		size_t l = cm ? (size_t)(cm - p) : strlen(p);
		int found = 0;
		for (size_t i = 0; i < tz_reader_type_count(r); i++) {
			const char *n = tz_reader_type_at(r, i)->name;
			if (strlen(n) == l && !strncmp(n, p, l))
				found = 1;
		}
		if (!found) {
			tza_err("cat: --type: '%.*s' is not an event type of '%s'", (int)l, p,
				path);
			return -1;
		}
		p = cm ? cm + 1 : p + l;
	}
	return 0;
}

/* One event's line: time (relative to base, or absolute), type, fields */
static void print_event(FILE *f, const struct tz_event *ev, uint64_t base, int abs_ts)
{
	if (abs_ts)
		fprintf(f, "%" PRIu64, ev->ts_ns);
	else if (ev->ts_ns >= base)
		fprintf(f, "%" PRIu64 ".%09" PRIu64, (ev->ts_ns - base) / 1000000000,
			(ev->ts_ns - base) % 1000000000);
	else
		fprintf(f, "-%" PRIu64 ".%09" PRIu64, (base - ev->ts_ns) / 1000000000,
			(base - ev->ts_ns) % 1000000000);
	fputs(ev->flags & TZ_EVF_STATE ? " state:" : " ", f);
	tza_safe_puts(f, ev->type->name); /* the file's schema: its bytes */
	for (uint16_t i = 0; i < ev->type->nfields; i++) {
		const struct tz_field *fl = &ev->type->fields[i];
		fputc(' ', f);
		tza_safe_puts(f, fl->name);
		fputc('=', f);
		print_field(f, ev, fl);
	}
	fputc('\n', f);
}

/* After every readable event was printed: a file that is not whole says so
 * in one line and exits 1 (0 with --partial), as the help's table says.
 * rc: the iteration's last result (< 0: a read error). */
static int cat_verdict(tz_reader *r, const char *path, int rc)
{
	int ret = TZA_EXIT_OK;
	const struct tz_info *in = tz_reader_info(r);
	if (rc < 0) {
		tza_err("%s", tz_reader_errmsg(r));
		ret = TZA_EXIT_FAIL;
	} else if (in->corrupt_blocks) {
		char dup[48] = "";
		if (in->duplicate_blocks)
			snprintf(dup, sizeof(dup), ", %" PRIu64 " of them duplicate",
				 in->duplicate_blocks);
		tza_err("%s (%" PRIu64 " damaged block%s skipped%s)", tz_reader_errmsg(r),
			in->corrupt_blocks, in->corrupt_blocks == 1 ? "" : "s", dup);
		ret = TZA_EXIT_FAIL;
	} else if (in->live) { /* not abandoned: as summary and info say */
		tza_err("'%s': still being written (the recorder is running): every block sealed "
			"so far was printed", path);
		ret = TZA_EXIT_FAIL;
	} else if (in->unfinished && !in->ring) {
		tza_err("'%s': truncated or unfinished trace (no footer): every sealed block "
			"was printed; 'tracer-analyze recover' writes a complete copy", path);
		ret = TZA_EXIT_FAIL;
	} else if (in->unfinished) {
		tza_err("'%s': offset %" PRIu64 ": unfinished ring trace (final metadata slot "
			"empty): every sealed block was printed", path, in->unfinished_offset);
		ret = TZA_EXIT_FAIL;
	} else if (!in->ring && !in->has_footer) {
		tza_err("%s: footer index ignored, blocks found by scanning ('tracer-analyze "
			"verify' checks them, 'tracer-analyze recover' rewrites the index)",
			tz_reader_errmsg(r));
		ret = TZA_EXIT_FAIL;
	}
	if (ret == TZA_EXIT_FAIL && rc >= 0 && tza_partial())
		ret = TZA_EXIT_OK;
	return ret;
}

/* One trace's events as o asks, then its verdict (cat_verdict); path names
 * it in messages. */
static int cat_one(tz_reader *r, const char *path, const struct cat_opts *o)
{
	uint64_t from = 0, to = UINT64_MAX;
	if ((o->from_s && tza_parse_time(r, "--from", o->from_s, &from) < 0) ||
	    (o->to_s && tza_parse_time(r, "--to", o->to_s, &to) < 0))
		return TZA_EXIT_USAGE;
	if (from > to) {
		tza_err("cat: --from is after --to");
		return TZA_EXIT_USAGE;
	}
	if (o->types && check_types(r, path, o->types) < 0)
		return TZA_EXIT_USAGE;
	uint64_t base = tz_reader_info(r)->first_ts_ns;
	const struct tz_event *ev;
	int rc = tz_reader_iter(r, from, to, o->state ? TZ_IT_STATE : 0);
	while (rc == 0 && (rc = tz_reader_next(r, &ev)) == 1) {
		rc = 0;
		if (!o->types || in_list(o->types, ev->type->name))
			print_event(stdout, ev, base, o->abs_ts);
	}
	return cat_verdict(r, path, rc);
}

/* A multi-host trace: each member's events after a line naming it (a
 * member that repeats an earlier one's recording is named, not printed
 * again). The worst exit of the members; a usage error stops at once. */
static int cat_members(tz_multi *mt, const char *path, const struct cat_opts *o)
{
	int ret = TZA_EXIT_OK;
	char sk[TZA_SAFE_BUF], sh[TZA_SAFE_BUF];
	for (size_t i = 0; i < tz_multi_count(mt); i++) {
		const struct tz_member *me = tz_multi_member(mt, i);
		char name[4096];
		snprintf(name, sizeof(name), "%s[%zu]", path, i);
		printf("== %s: host %s ==\n", tza_safe_str(sk, sizeof(sk), name),
		       me->hostname && *me->hostname ? tza_safe_str(sh, sizeof(sh), me->hostname)
						     : "(unsaid)");
		if (me->dup_of >= 0) {
			printf("(the same recording as %s[%d]: printed once)\n",
			       tza_safe_str(sk, sizeof(sk), path), me->dup_of);
			continue;
		}
		tz_reader *r = NULL;
		int rc = tz_multi_reader(mt, i, &r), one;
		if (rc < 0) {
			tza_err_tz(r ? tz_reader_errmsg(r) : NULL, name, rc);
			one = TZA_EXIT_FAIL;
		} else {
			one = cat_one(r, name, o);
		}
		tz_reader_free(r);
		if (one == TZA_EXIT_USAGE)
			return one;
		if (one != TZA_EXIT_OK)
			ret = one;
	}
	if (tz_multi_damage(mt)) {
		tza_err("%s", tz_multi_errmsg(mt));
		if (!tza_partial())
			ret = TZA_EXIT_FAIL;
	}
	return ret;
}

int cmd_cat(int argc, char **argv)
{
	struct cat_opts o;
	int rc = cat_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	const char *path = argv[optind];
	tz_multi *mt;
	int ret;
	switch (tza_open_container(path, NULL, &mt)) {
	case 1:
		ret = cat_members(mt, path, &o);
		tz_multi_free(mt);
		break;
	case 0: {
		tz_reader *r = tza_open(path, NULL);
		if (!r)
			return TZA_EXIT_FAIL;
		ret = cat_one(r, path, &o);
		tz_reader_free(r);
		break;
	}
	default:
		return TZA_EXIT_FAIL;
	}
	if (fflush(stdout))
		ret = TZA_EXIT_FAIL;
	return ret;
}
