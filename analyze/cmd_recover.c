/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_recover.c - tracer-analyze recover: a clean linear file from a damaged or ring one. */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h> /* setenv */

#include "analyze.h"
#include "fleet.h"
#include "options.h"
#include "report.h"
#include "textsafe.h"

static const struct tza_cmd_spec recover_spec = {
    .name = "recover",
    .synopsis = "usage: tracer-analyze recover [-f] -o OUT IN\n"
		"       tracer-analyze recover [-f] IN OUT\n\n"
		"Write every readable block of IN as a clean linear .tz file OUT: damaged\n"
		"blocks are left out (and named), a file cut short by a crash gets its index\n"
		"and footer, a ring (flight-recorder) file is unrolled in write order. Chunks\n"
		"are copied byte for byte; metadata and schema are merged into one block each.\n"
		"A multi-host trace (or a directory of traces): every member that can be\n"
		"opened is recovered so, and OUT is a multi-host trace of them (a member\n"
		"that cannot be opened, and damage between members, left out and named).\n"
		"A member whose MEMBER block is damaged, and the members of a multi-host\n"
		"trace whose header is damaged (also in a bundle), are found by their own\n"
		"headers (the salvage scan, docs/FORMAT.md [X5]); such a member's source,\n"
		"which its MEMBER block held, is named 'salvaged at offset N (host H,\n"
		"started T)', and one the file ends inside is said cut and marked partial\n"
		"in OUT.\n\n",
    .notes = "Exit status: 0 written, 1 IN unreadable or OUT not written, 2 usage.\n"
	     "IN still being written (a recorder holds it): OUT is what was sealed by\n"
	     "then, exit 0, and a line on stderr says so.\n",
    .examples = "  tracer-analyze recover -o fixed.tz crashed.tz\n"
		"  tracer-analyze recover crashed.tz fixed.tz\n"
		"  tracer-analyze recover -f flight.tz linear.tz\n",
    .col = 21,
};

/* Recover the trace r (named in) into out_path, named out in messages; the
 * losses on stderr, the result on stdout. 0, or -1 after one line. */
static int recover_one(const char *in, tz_reader *r, const char *out_path, const char *out,
		       int force)
{
	uint64_t events = 0;
	struct tz_recover_opts o = {.overwrite = force, .name = out, .events = &events};
	int rc = tz_recover(r, out_path, &o);
	if (rc < 0) {
		if (rc == TZ_ERR_EXISTS)
			tza_err_exists(out, "-f");
		else
			tza_err("%s", tz_reader_errmsg(r));
		return -1;
	}
	const struct tz_info *i = tz_reader_info(r);
	/* what was lost, said as what it is: a cut end apart from damage */
	uint64_t damaged = i->corrupt_blocks - (i->torn_tail_bytes && i->corrupt_blocks ? 1 : 0);
	if (damaged)
		tza_err("'%s': %" PRIu64 " damaged block%s left out (last: %s)", in, damaged,
			tza_plural(damaged), tz_reader_errmsg(r));
	if (i->live) { /* not abandoned: its end is being written (as summary says) */
		tza_err("'%s': still being written (the recorder is running): '%s' holds what it "
			"had sealed by now; recover it again once recording ends",
			in, out);
	} else if (i->torn_tail_bytes) {
		char cut[256];
		tza_err("'%s': %s, left out", in, tza_cut_text(cut, sizeof(cut), i));
	} else if (i->unfinished && !i->live) {
		tza_err("'%s': unfinished (%s): what its recorder had not sealed is not in it", in,
			i->ring ? "final metadata slot empty" : "no trailer");
	}
	printf("'%s': %d chunk%s, %" PRIu64 " event%s written to '%s'%s\n", in, rc, tza_plural(rc),
	       events, tza_plural(events), out,
	       i->corrupt_blocks || (i->unfinished && !i->live) ? " (the losses are in its metadata)"
								 : "");
	return 0;
}

/* tza_rewrite_fn: host i recovered into tmp */
static int recover_host(void *ctx, const struct tza_fleet *f, size_t i, const char *tmp,
			const char *label)
{
	(void)ctx;
	const struct tz_member *me = f->h[i].me;
	tz_reader *r = tza_fleet_reader(f, i);
	int rc = r ? recover_one(f->h[i].name, r, tmp, label, 1) : -1;
	tz_reader_free(r);
	if (rc < 0)
		return -1;
	/* what only the container knew of it (FORMAT.md [X5]) */
	char src[TZA_SAFE_BUF];
	if (me->salvaged)
		printf("'%s': found by its own header at offset %" PRIu64
		       " (its MEMBER block lost): source named '%s'\n",
		       f->h[i].name, me->off, tza_safe_str(src, sizeof(src), me->source));
	if (me->cut)
		printf("'%s': cut short: the file ends inside it (marked partial in '%s')\n",
		       f->h[i].name, label);
	return 1;
}

/* recover of a multi-host trace (or a directory of traces): every member
 * that can be opened recovered, OUT a multi-host trace of them. Damage is
 * what recover is for: the members are found as --partial finds them. */
static int recover_hosts(const char *in, const char *out, int force)
{
	struct tza_fleet f;
	char *args[1] = {(char *)in};
	size_t kept = 0;
	int rc = TZA_EXIT_FAIL;
	if (tza_rewrite_out_ok(out, force))
		return TZA_EXIT_FAIL;
	setenv("TRACER_ANALYZE_PARTIAL", "1", 1);
	if (!tza_fleet_open("recover", args, 1, &f) && !tza_fleet_out_is_input("recover", out, &f)) {
		const char *extra[2] = {"recovered_from", in};
		struct tza_rewrite w = {.cmd = "recover",
					.out = out,
					.force = force,
					.fn = recover_host,
					.extra = extra,
					.nextra = 1,
					.mark_partial = 1};
		if (!tza_fleet_rewrite(&w, &f, &kept) && kept) {
			printf("'%s': %zu member%s written to '%s'\n", in, kept, tza_plural(kept), out);
			rc = TZA_EXIT_OK;
		}
	}
	tza_fleet_free(&f);
	return rc;
}

int cmd_recover(int argc, char **argv)
{
	int force = 0;
	const char *o_out = NULL, *in, *out;
	const struct tza_option opts[] = {
		OPT_STRING('o', "output", "OUT", &o_out,
			   "write OUT (as the second operand does: IN OUT)"),
		OPT_FLAG('f', "force", &force, "replace OUT if it exists"),
		OPT_END_HELP,
	};
	int ret = tza_options_parse(&recover_spec, opts, argc, argv);
	if (ret >= 0)
		return ret;
	if ((ret = tza_in_out(&recover_spec, argc, argv, o_out, &in, &out)) >= 0)
		return ret;
	if (tza_refuse_dir(out, "an output file"))
		return TZA_EXIT_FAIL;
	if (tza_refuse_out_is_in("recover", out, in))
		return TZA_EXIT_FAIL;
	/* a multi-host trace, also one whose header is damaged (FORMAT.md [X5]) */
	if (tza_fleet_wanted(argv + optind, 1) || tza_fleet_salvage_wanted(in))
		return recover_hosts(in, out, force);
	tz_reader *r = tza_open(in, NULL);
	if (!r)
		return TZA_EXIT_FAIL;
	ret = recover_one(in, r, out, out, force) < 0 ? TZA_EXIT_FAIL : TZA_EXIT_OK;
	tz_reader_free(r);
	return ret;
}
