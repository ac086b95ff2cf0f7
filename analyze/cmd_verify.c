/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_verify.c - tracer-analyze verify: check every checksum, name each bad block. */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <string.h>

#include "analyze.h"
#include "fleet.h"
#include "options.h"
#include "report.h"

static const struct tza_cmd_spec verify_spec = {
    .name = "verify",
    .synopsis = "usage: tracer-analyze verify [-v] FILE\n\n"
		"Check a .tz trace completely: the file header, every block header and payload\n"
		"checksum, every chunk decompressed and decoded, metadata, schema and index.\n"
		"Each bad block is named on stderr with its offset:\n"
		"  tracer-analyze: 'run.tz': offset 81920: chunk 12: payload checksum mismatch\n"
		"Bytes after the last whole block (appended to a closed trace, zeros) are\n"
		"named in a note.\n"
		"A multi-host trace ('merge'): its own structure, then every member as a file\n"
		"of its own, named RUN.tz[i].\n\n",
    .notes = "Exit status: 0 every block is good, 1 damaged or unreadable, 2 usage.\n"
	     "A file that was not closed cleanly (no footer; a ring file: final metadata slot\n"
	     "empty) but whose blocks are all good verifies (a note says so); 'tracer-analyze\n"
	     "recover' adds the footer. One a recorder still writes verifies so, its note\n"
	     "saying \"still being written\".\n",
    .examples = "  tracer-analyze verify run.tz\n"
		"  tracer-analyze verify -v run.tz | less\n",
    .col = 17,
    .nfiles = 1,
};

struct vstate {
	tz_reader *r;
	int verbose;
	uint64_t good, bad;
};

/* what a damaged index costs: nothing (FORMAT.md [I2]) */
#define INDEX_NOTE "no data lost (an index: every block is found without it)"

static int on_block(void *ctx, const struct tz_block_info *b)
{
	struct vstate *v = ctx;
	int index = b->no_loss;
	if (b->status) {
		v->bad++;
		if (index)
			tza_err("%s; " INDEX_NOTE, tz_reader_errmsg(v->r));
		else
			tza_err("%s", tz_reader_errmsg(v->r));
	} else {
		v->good++;
	}
	if (v->verbose) {
		printf("offset %-12" PRIu64 " %-8s seq %-8" PRIu64 " %8" PRIu64 " bytes", b->offset,
		       b->what, b->seq, b->size);
		if (!strcmp(b->what, "chunk") || !strcmp(b->what, "state"))
			printf("  %6" PRIu64 " events  ts %" PRIu64 "..%" PRIu64, b->events,
			       b->min_ts_ns, b->max_ts_ns);
		if (!b->status)
			printf("  ok\n");
		else
			printf("  damaged: %s%s\n", tz_strerror(b->status),
			       index ? "; " INDEX_NOTE : "");
	}
	return 0;
}

/* Verify one trace (a file, or a member named PATH[i]): every block; one
 * line of verdict. Returns 1 when a block is bad or the walk failed. */
static int verify_one(tz_reader *r, const char *path, int verbose)
{
	struct vstate v = {.r = r, .verbose = verbose};
	int rc = tz_reader_verify(r, on_block, &v);
	const struct tz_info *in = tz_reader_info(r);
	if (rc < 0) {
		tza_err("%s", tz_reader_errmsg(r));
		return 1;
	}
	/* bytes after the last whole block: appended after the footer, or no
	 * block at all (a cut block is a bad block above) */
	char tail[256];
	if (tza_tail_text(tail, sizeof(tail), in) && (in->tail_after_footer || !in->torn_tail_bytes))
		tza_err("'%s': note: %s", path, tail);
	/* a file a recorder still writes: not abandoned, nothing to recover yet
	 * (tz_info.live, as summary and info say) */
	if (in->live)
		tza_err("'%s': note: still being written (the recorder is running): the blocks "
			"sealed so far were checked; verify it again once recording ends",
			path);
	/* a linear file never closed (a damaged index is a bad block above) */
	else if (!in->ring && !in->has_footer && in->unfinished && !in->tail_after_footer)
		tza_err("'%s': note: no footer index (not closed cleanly); "
			"'tracer-analyze recover' writes a complete copy",
			path);
	else if (in->ring && in->unfinished)
		tza_err("'%s': offset %" PRIu64 ": note: final metadata slot empty (not closed "
			"cleanly); 'tracer-analyze recover' writes a complete copy",
			path, in->unfinished_offset);
	if (rc > 0)
		tza_err("'%s': %d bad block%s, %" PRIu64 " good", path, rc, rc == 1 ? "" : "s",
			v.good);
	else
		printf("'%s': ok, %" PRIu64 " block%s good (%" PRIu64 " chunk%s, %" PRIu64
		       " event%s)\n",
		       path, v.good, tza_plural(v.good), in->chunks, tza_plural(in->chunks),
		       in->events, tza_plural(in->events));
	return rc > 0;
}

/* A multi-host trace (FORMAT.md 18): the container's own damage, then each
 * member as a trace of its own (a later copy of a uuid is read once, [X3]). */
static int verify_multi(tz_multi *mt, const char *path, int verbose)
{
	int bad = 0;
	if (tz_multi_damage(mt)) {
		tza_err("%s (%" PRIu64 " damaged region%s of the multi-host trace)",
			tz_multi_errmsg(mt), tz_multi_damage(mt),
			tz_multi_damage(mt) > 1 ? "s" : "");
		bad = 1;
	}
	for (size_t i = 0; i < tz_multi_count(mt); i++) {
		char name[4200];
		tz_reader *r = NULL;
		snprintf(name, sizeof(name), "%s[%zu]", path, i);
		if (tz_multi_member(mt, i)->dup_of >= 0) {
			printf("'%s': the same recording as member %d (read once)\n", name,
			       tz_multi_member(mt, i)->dup_of);
			continue;
		}
		int rc = tz_multi_reader(mt, i, &r);
		if (rc < 0) {
			const char *msg = r ? tz_reader_errmsg(r) : "";
			tza_err("%s%s%s", *msg ? "" : name, *msg ? msg : ": ",
				*msg ? "" : tz_strerror(rc));
			bad = 1;
		} else {
			bad |= verify_one(r, name, verbose);
		}
		tz_reader_free(r);
	}
	if (!bad)
		printf("'%s': ok, %zu member%s\n", path, tz_multi_count(mt),
		       tza_plural(tz_multi_count(mt)));
	return bad;
}

int cmd_verify(int argc, char **argv)
{
	int verbose = 0;
	const struct tza_option opts[] = {
		OPT_FLAG('v', "verbose", &verbose,
			 "also list every block on stdout, good or damaged"),
		OPT_END_HELP,
	};
	int ret = tza_options_parse(&verify_spec, opts, argc, argv);
	if (ret >= 0)
		return ret;
	const char *path = argv[optind];
	tz_multi *mt;
	int c = tza_open_container(path, NULL, &mt);
	if (c < 0)
		return TZA_EXIT_FAIL;
	if (c) {
		int bad = verify_multi(mt, path, verbose);
		tz_multi_free(mt);
		return bad ? TZA_EXIT_FAIL : TZA_EXIT_OK;
	}
	tz_reader *r = tza_open(path, NULL);
	if (!r)
		return TZA_EXIT_FAIL;
	int rc = verify_one(r, path, verbose);
	tz_reader_free(r);
	return rc ? TZA_EXIT_FAIL : TZA_EXIT_OK;
}
