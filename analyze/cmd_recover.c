/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_recover.c - tracer-analyze recover: a clean linear file from a damaged or ring one. */
#include <getopt.h> /* optind */
#include <inttypes.h>

#include "analyze.h"
#include "options.h"
#include "report.h"

static const char recover_synopsis[] =
	"usage: tracer-analyze recover [-f] IN OUT\n\n"
	"Write every readable block of IN as a clean linear .tz file OUT: damaged\n"
	"blocks are left out (and named), a file cut short by a crash gets its index\n"
	"and footer, a ring (flight-recorder) file is unrolled in write order. Chunks\n"
	"are copied byte for byte; metadata and schema are merged into one block each.\n\n";

static const char recover_epilog[] =
	"\nExit status: 0 written, 1 IN unreadable or OUT not written, 2 usage.\n\n"
	"Examples:\n"
	"  tracer-analyze recover crashed.tz fixed.tz\n"
	"  tracer-analyze recover -f flight.tz linear.tz\n";

static const struct tza_cmd_spec recover_spec = {.name = "recover",
						 .synopsis = recover_synopsis,
						 .epilog = recover_epilog,
						 .col = 16,
						 .nfiles = 0};

int cmd_recover(int argc, char **argv)
{
	int force = 0;
	const struct tza_option opts[] = {
		OPT_FLAG('f', "force", &force, "replace OUT if it exists"),
		OPT_END_HELP,
	};
	int ret = tza_options_parse(&recover_spec, opts, argc, argv);
	if (ret >= 0)
		return ret;
	if (optind != argc - 2) {
		tza_err("recover: expected IN and OUT (see 'tracer-analyze recover --help')");
		return TZA_EXIT_USAGE;
	}
	const char *in = argv[optind], *out = argv[optind + 1];
	if (tza_refuse_dir(out, "an output file"))
		return TZA_EXIT_FAIL;
	tz_reader *r = tza_open(in, NULL);
	if (!r)
		return TZA_EXIT_FAIL;
	uint64_t before = tz_reader_info(r)->corrupt_blocks;
	int rc = tz_recover(r, out, force);
	if (rc < 0) {
		if (rc == TZ_ERR_EXISTS)
			tza_err_exists(out, "-f");
		else
			tza_err("%s", tz_reader_errmsg(r));
		tz_reader_free(r);
		return TZA_EXIT_FAIL;
	}
	const struct tz_info *i = tz_reader_info(r);
	/* what was lost, said as what it is: a cut end apart from damage */
	uint64_t damaged = i->corrupt_blocks - (i->torn_tail_bytes && i->corrupt_blocks ? 1 : 0);
	if (damaged)
		tza_err("'%s': %" PRIu64 " damaged block%s left out (last: %s)", in, damaged,
			tza_plural(damaged), tz_reader_errmsg(r));
	if (i->torn_tail_bytes) {
		char cut[256];
		tza_err("'%s': %s, left out", in, tza_cut_text(cut, sizeof(cut), i));
	} else if (i->unfinished && !i->live) {
		tza_err("'%s': unfinished (%s): what its recorder had not sealed is not in it", in,
			i->ring ? "final metadata slot empty" : "no trailer");
	}
	(void)before;
	printf("'%s': %d chunk%s, %" PRIu64 " event%s written to '%s'%s\n", in, rc, tza_plural(rc),
	       i->events, tza_plural(i->events), out,
	       i->corrupt_blocks || (i->unfinished && !i->live) ? " (the losses are in its metadata)"
								 : "");
	tz_reader_free(r);
	return TZA_EXIT_OK;
}
