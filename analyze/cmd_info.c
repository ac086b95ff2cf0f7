/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_info.c - tracer-analyze info: header, metadata, schema, chunks, sizes. */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "dropslot.h"
#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "textsafe.h"

static const struct tza_cmd_spec info_spec = {
    .name = "info",
    .synopsis = "usage: tracer-analyze info [--json] [--scan] FILE\n\n"
		"Print what a .tz trace holds: format version and flags, identity (uuid, boot\n"
		"id), metadata, the schema (event types with their fields and units), chunk\n"
		"and event counts, the time range in wall-clock time, sizes and compression\n"
		"ratio, dropped events, the recorder's drop counters per slot (metadata\n"
		"drops_*), damaged blocks, a cut end (the file ends inside a block) and a\n"
		"tail (bytes after the last whole block: appended to a closed trace, zeros).\n"
		"A multi-host trace ('merge'): the container, then each member's info, named\n"
		"RUN.tz[i].\n\n",
    .notes = "Exit status: 0 ok (also when damaged blocks were skipped), 1 unreadable, 2 usage.\n",
    .examples = "  tracer-analyze info run.tz\n"
		"  tracer-analyze info --json run.tz | jq .events\n",
    .col = 15,
    .nfiles = 1,
};

static const char *ftype_name(unsigned t)
{
	static const char *n[] = {"?",	 "u8",	"u16",	 "u32",	  "u64", "i8",	"i16",
				  "i32", "i64", "chars", "bytes", "str", "strv"};
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

/* "2026-11-29T10:00:00.123456789Z" for CLOCK_BOOTTIME ns, or "-" without anchor. */
static void wall(tz_reader *r, uint64_t boot, char *buf, size_t n)
{
	int64_t rt;
	if (tz_reader_realtime(r, boot, &rt) < 0) {
		snprintf(buf, n, "-");
		return;
	}
	int64_t sec = rt / 1000000000, ns = rt % 1000000000;
	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	time_t s = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&s, &tm)) {
		snprintf(buf, n, "-");
		return;
	}
	size_t l = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + l, n - l, ".%09ldZ", (long)ns);
}

static void hex(FILE *f, const uint8_t *p, int n, int uuid)
{
	for (int i = 0; i < n; i++) {
		if (uuid && (i == 4 || i == 6 || i == 8 || i == 10))
			fputc('-', f);
		fprintf(f, "%02x", p[i]);
	}
}

static int scanned; /* --scan: the footer was not read, by request */

static void text(tz_reader *r, const char *path)
{
	const struct tz_info *in = tz_reader_info(r);
	char a[64], b[64];
	printf("file          %s\n", path);
	printf("size          %" PRIu64 " byte%s\n", in->file_size, tza_plural(in->file_size));
	printf("format        %u.%u, %s%s, %s\n", in->major, in->minor,
	       in->ring ? "ring (flight recorder)" : "linear",
	       in->ring_wrapped ? " (wrapped: its oldest data was overwritten)" : "",
	       in->live		      ? "still being written (a recorder holds it)"
	       : in->ring && in->unfinished
		       ? "not closed cleanly (final metadata slot empty)"
	       : in->ring	? "no footer (ring files have none)"
	       : in->has_footer ? "footer index present"
	       : in->unfinished ? "no footer (not closed cleanly; index rebuilt by scan)"
	       : scanned	? "footer not read (--scan; index rebuilt by scan)"
				: "footer index unusable (damaged or stale; index rebuilt by scan)");
	printf("flags         compat 0x%" PRIx64 ", ro-compat 0x%" PRIx64 ", incompat 0x%" PRIx64
	       "\n",
	       in->compat_flags, in->ro_flags, in->incompat_flags);
	printf("uuid          ");
	hex(stdout, in->uuid, 16, 1);
	printf("\nboot id       ");
	hex(stdout, in->boot_id, 16, 1);
	printf("\n");
	wall(r, in->first_ts_ns, a, sizeof(a));
	wall(r, in->last_ts_ns, b, sizeof(b));
	printf("time range    %s .. %s (%.3f s)\n", a, b,
	       (double)(in->last_ts_ns - in->first_ts_ns) / 1e9);
	printf("boottime      %" PRIu64 " .. %" PRIu64 " ns\n", in->first_ts_ns, in->last_ts_ns);
	printf("events        %" PRIu64 " in %" PRIu64 " chunk%s, %" PRIu64 " state block%s\n",
	       in->events, in->chunks, tza_plural(in->chunks), in->state_blocks,
	       tza_plural(in->state_blocks));
	printf("chunk bytes   %" PRIu64 " compressed, %" PRIu64 " uncompressed",
	       in->bytes_compressed, in->bytes_uncompressed);
	if (in->bytes_compressed)
		printf(", ratio %.2f",
		       (double)in->bytes_uncompressed / (double)in->bytes_compressed);
	printf("\n");
	if (in->events && in->ring) /* its size is the ring's, allocated at the start */
		printf("bytes/event   %.1f in chunk payloads (a ring file is its full size from the "
		       "start)\n",
		       (double)in->bytes_compressed / (double)in->events);
	else if (in->events)
		printf("bytes/event   %.1f on disk\n", (double)in->file_size / (double)in->events);
	printf("dropped       %" PRIu64 " event%s%s\n", in->dropped, tza_plural(in->dropped),
	       in->dropped ? " (lost before reaching the writer)" : "");
	uint64_t d[EV_DROP_SLOTS];
	if (tza_drops_from_meta(r, d)) {
		printf("drop slots    ");
		for (int i = 0; i < TZA_NDROP_SLOTS; i++)
			printf("%s%s %" PRIu64, i ? ", " : "", tza_drop_slots[i].name,
			       d[tza_drop_slots[i].slot]);
		printf(" (%" PRIu64 " lost)\n", tza_drops_lost(d));
	} else {
		printf("drop slots    not in the metadata (the recorder did not close the file)\n");
	}
	printf("damaged       %" PRIu64 " block%s found while opening", in->corrupt_blocks,
	       tza_plural(in->corrupt_blocks));
	if (in->corrupt_blocks)
		printf(" (first at offset %" PRIu64 ")", in->corrupt_first_offset);
	printf("; 'tracer-analyze verify' checks every payload");
	char cut[256];
	if (tza_cut_text(cut, sizeof(cut), in))
		printf("\ncut           %s", cut);
	if (tza_tail_text(cut, sizeof(cut), in))
		printf("\ntail          %s", cut);
	printf("\n\nmetadata\n");
	for (size_t i = 0; i < tz_reader_meta_count(r); i++) {
		const char *k, *v;
		tz_reader_meta_at(r, i, &k, &v);
		char sk[TZA_SAFE_BUF], sv[TZA_SAFE_BUF * 4];
		printf("  %-20s %s\n", tza_safe_str(sk, sizeof(sk), k),
		       tza_safe_str(sv, sizeof(sv), v));
	}
	printf("\nschema\n");
	for (size_t i = 0; i < tz_reader_type_count(r); i++) {
		const struct tz_event_type *t = tz_reader_type_at(r, i);
		char sn[TZA_SAFE_BUF], su[TZA_SAFE_BUF];
		printf("  %u %s (version %u, %u fixed bytes, %u blobs%s)\n", t->id,
		       tza_safe_str(sn, sizeof(sn), t->name),
		       t->version, t->fixed_size, t->nblobs,
		       t->flags & TZ_TYPE_STATE ? ", state" : "");
		for (uint16_t j = 0; j < t->nfields; j++) {
			const struct tz_field *f = &t->fields[j];
			if (f->type == TZ_F_STR || f->type == TZ_F_STRV)
				printf("    %-24s %-6s blob %u", tza_safe_str(sn, sizeof(sn), f->name),
				       ftype_name(f->type),
				       f->offset);
			else
				printf("    %-24s %-6s @%-4u %u bytes",
				       tza_safe_str(sn, sizeof(sn), f->name),
				       ftype_name(f->type), f->offset, f->size);
			if (*f->unit)
				printf("  [%s]", tza_safe_str(su, sizeof(su), f->unit));
			printf("\n");
		}
	}
}

static void json(tz_reader *r, const char *path)
{
	const struct tz_info *in = tz_reader_info(r);
	char a[64], b[64];
	FILE *f = stdout;
	fputs("{\"file\":", f);
	tza_json_cstr(f, path);
	fprintf(f, ",\"size\":%" PRIu64 ",\"version\":\"%u.%u\",\"ring\":%s,\"footer\":%s",
		in->file_size, in->major, in->minor, in->ring ? "true" : "false",
		in->has_footer ? "true" : "false");
	fprintf(f,
		",\"compat_flags\":%" PRIu64 ",\"ro_compat_flags\":%" PRIu64
		",\"incompat_flags\":%" PRIu64,
		in->compat_flags, in->ro_flags, in->incompat_flags);
	fputs(",\"uuid\":\"", f);
	hex(f, in->uuid, 16, 1);
	fputs("\",\"boot_id\":\"", f);
	hex(f, in->boot_id, 16, 1);
	wall(r, in->first_ts_ns, a, sizeof(a));
	wall(r, in->last_ts_ns, b, sizeof(b));
	fprintf(f,
		"\",\"first_ts_ns\":%" PRIu64 ",\"last_ts_ns\":%" PRIu64
		",\"first_wall\":\"%s\",\"last_wall\":\"%s\"",
		in->first_ts_ns, in->last_ts_ns, a, b);
	fprintf(f,
		",\"events\":%" PRIu64 ",\"chunks\":%" PRIu64 ",\"state_blocks\":%" PRIu64
		",\"bytes_compressed\":%" PRIu64 ",\"bytes_uncompressed\":%" PRIu64
		",\"dropped\":%" PRIu64 ",\"corrupt_blocks\":%" PRIu64,
		in->events, in->chunks, in->state_blocks, in->bytes_compressed,
		in->bytes_uncompressed, in->dropped, in->corrupt_blocks);
	uint64_t d[EV_DROP_SLOTS];
	if (tza_drops_from_meta(r, d)) {
		fputs(",\"drops\":{", f);
		for (int i = 0; i < TZA_NDROP_SLOTS; i++)
			fprintf(f, "\"%s\":%" PRIu64 ",", tza_drop_slots[i].name,
				d[tza_drop_slots[i].slot]);
		fprintf(f, "\"total\":%" PRIu64 "}", tza_drops_lost(d));
	} else {
		fputs(",\"drops\":null", f);
	}
	if (in->corrupt_blocks)
		fprintf(f, ",\"corrupt_first_offset\":%" PRIu64, in->corrupt_first_offset);
	if (in->torn_tail_bytes) {
		fprintf(f, ",\"torn_tail_bytes\":%" PRIu64 ",\"torn_tail_offset\":%" PRIu64,
			in->torn_tail_bytes, in->torn_tail_offset);
		if (in->torn_tail_what)
			fprintf(f, ",\"torn_tail_block\":\"%s %" PRIu64 "\",\"torn_tail_block_bytes\":%" PRIu64,
				in->torn_tail_what, in->torn_tail_seq, in->torn_tail_block_bytes);
		if (in->torn_tail_events)
			fprintf(f, ",\"torn_tail_events\":%" PRIu64, in->torn_tail_events);
	}
	if (in->tail_bytes)
		fprintf(f, ",\"tail_bytes\":%" PRIu64 ",\"tail_offset\":%" PRIu64
			",\"tail_after_footer\":%s",
			in->tail_bytes, in->tail_offset, in->tail_after_footer ? "true" : "false");
	if (in->ring && in->unfinished)
		fputs(",\"unfinished\":true", f);
	if (in->live)
		fputs(",\"live\":true", f);
	if (in->ring_wrapped)
		fputs(",\"ring_wrapped\":true", f);
	fputs(",\"metadata\":{", f);
	for (size_t i = 0; i < tz_reader_meta_count(r); i++) {
		const char *k, *v;
		tz_reader_meta_at(r, i, &k, &v);
		if (i)
			fputc(',', f);
		tza_json_cstr(f, k);
		fputc(':', f);
		tza_json_cstr(f, v);
	}
	fputs("},\"schema\":[", f);
	for (size_t i = 0; i < tz_reader_type_count(r); i++) {
		const struct tz_event_type *t = tz_reader_type_at(r, i);
		if (i)
			fputc(',', f);
		fprintf(f, "{\"id\":%u,\"name\":", t->id);
		tza_json_cstr(f, t->name);
		fprintf(f, ",\"version\":%u,\"fixed_size\":%u,\"state\":%s,\"fields\":[",
			t->version, t->fixed_size, t->flags & TZ_TYPE_STATE ? "true" : "false");
		for (uint16_t j = 0; j < t->nfields; j++) {
			const struct tz_field *fl = &t->fields[j];
			if (j)
				fputc(',', f);
			fputs("{\"name\":", f);
			tza_json_cstr(f, fl->name);
			fprintf(f, ",\"type\":\"%s\",\"offset\":%u,\"size\":%u,\"unit\":",
				ftype_name(fl->type), fl->offset, fl->size);
			tza_json_cstr(f, fl->unit);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/* The merge metadata a slice or recover of a run adds (tza_merge_write's
 * extra), each a line or a JSON member when present. */
static const char *const run_keys[][2] = {{"slice_of", "slice of"},
					  {"slice_from_real_ns", "slice from"},
					  {"slice_to_real_ns", "slice to"},
					  {"recovered_from", "recovery of"}};

static void run_meta(tz_multi *mt, int as_json)
{
	char safe[TZA_SAFE_BUF];
	for (size_t k = 0; k < sizeof(run_keys) / sizeof(run_keys[0]); k++) {
		const char *v = tz_multi_meta_get(mt, run_keys[k][0]);
		if (!v)
			continue;
		if (as_json) {
			printf(",\"%s\":", run_keys[k][0]);
			tza_json_cstr(stdout, v);
		} else {
			char *end, iso[40];
			long long ns = strtoll(v, &end, 10);
			/* the window's ends (epoch ns) as UTC, else as written */
			if (strstr(run_keys[k][0], "_real_ns") && *v && !*end &&
			    *tza_fmt_utc(ns, iso, sizeof(iso)))
				v = iso;
			printf("%-13s %s\n", run_keys[k][1], tza_safe_str(safe, sizeof(safe), v));
		}
	}
}

/* A multi-host trace (FORMAT.md 18): the container, then each member's info
 * as a plain trace's, named PATH[i]. Returns 1 when a member could not be
 * opened (named on stderr), 0 otherwise. */
static int multi(tz_multi *mt, const char *path, int as_json, const struct tz_reader_opts *ro)
{
	const char *by = tz_multi_meta_get(mt, "merged_by");
	int bad = 0;
	if (as_json) {
		fputs("{\"file\":", stdout);
		tza_json_cstr(stdout, path);
		printf(",\"multi_host\":true,\"merged_by\":");
		tza_json_cstr(stdout, by ? by : "");
		run_meta(mt, 1);
		printf(",\"container_damage\":%" PRIu64 ",\"members\":[", tz_multi_damage(mt));
	} else {
		printf("file          %s\n", path);
		printf("format        multi-host trace of %zu member%s (FORMAT.md 18)%s%s\n",
		       tz_multi_count(mt), tza_plural(tz_multi_count(mt)), by ? ", merged by " : "",
		       by ? by : "");
		run_meta(mt, 0);
	}
	for (size_t i = 0; i < tz_multi_count(mt); i++) {
		const struct tz_member *me = tz_multi_member(mt, i);
		char name[4200];
		tz_reader *r = NULL;
		snprintf(name, sizeof(name), "%s[%zu]", path, i);
		if (as_json) {
			printf("%s{\"member\":%zu,\"source\":", i ? "," : "", i);
			tza_json_cstr(stdout, me->source);
			tza_json_key_cstr(stdout, "hostname", me->hostname);
			printf(",\"offset\":%" PRIu64 ",\"bytes\":%" PRIu64
			       ",\"partial\":%s,\"cut\":%s,\"duplicate_of\":",
			       me->off, me->len, me->flags & TZ_MEMBER_PARTIAL ? "true" : "false",
			       me->cut ? "true" : "false");
			if (me->dup_of >= 0)
				printf("%d", me->dup_of);
			else
				fputs("null", stdout);
		} else {
			char src[TZA_SAFE_BUF], hn[TZA_SAFE_BUF];
			printf("\nmember %zu      %s, host %s, %" PRIu64 " bytes at offset %" PRIu64
			       "%s%s",
			       i, *me->source ? tza_safe_str(src, sizeof(src), me->source) : "(source unsaid)",
			       *me->hostname ? tza_safe_str(hn, sizeof(hn), me->hostname) : "(unsaid)", me->len,
			       me->off, me->flags & TZ_MEMBER_PARTIAL ? ", partial" : "",
			       me->cut ? ", cut short" : "");
			if (me->dup_of >= 0)
				printf(", the same recording as member %d (read once)", me->dup_of);
			putchar('\n');
		}
		if (tz_multi_reader(mt, i, &r) < 0) {
			tza_err("%s", r ? tz_reader_errmsg(r) : name);
			bad = 1;
		} else if (as_json) {
			fputs(",\"info\":", stdout);
			json(r, name);
		} else {
			text(r, name);
		}
		tz_reader_free(r);
		if (as_json)
			putchar('}');
	}
	if (as_json)
		fputs("]}\n", stdout);
	if (tz_multi_damage(mt))
		tza_err("%s", tz_multi_errmsg(mt));
	return bad;
}

int cmd_info(int argc, char **argv)
{
	int as_json = 0;
	struct tz_reader_opts ro = {0};
	scanned = 0;
	const struct tza_option opts[] = {
		OPT_FLAG('j', "json", &as_json, "one JSON object instead of text"),
		OPT_FLAG('s', "scan", &scanned,
			 "ignore the footer index and scan the blocks (as after a crash)"),
		OPT_END_HELP,
	};
	int rc = tza_options_parse(&info_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (scanned)
		ro.flags |= TZ_R_SCAN;
	tz_multi *mt;
	int c = tza_open_container(argv[optind], &ro, &mt);
	if (c < 0)
		return TZA_EXIT_FAIL;
	if (c) {
		int bad = multi(mt, argv[optind], as_json, &ro);
		tz_multi_free(mt);
		return bad ? TZA_EXIT_FAIL : TZA_EXIT_OK;
	}
	tz_reader *r = tza_open(argv[optind], &ro);
	if (!r)
		return TZA_EXIT_FAIL;
	if (as_json) {
		json(r, argv[optind]);
		putchar('\n');
	} else
		text(r, argv[optind]);
	const struct tz_info *in = tz_reader_info(r);
	if (in->corrupt_blocks || (!in->ring && !in->has_footer && !in->unfinished && !scanned))
		tza_err("%s", tz_reader_errmsg(r));
	tz_reader_free(r);
	return TZA_EXIT_OK; /* a write that failed: main says so (out_done) */
}
