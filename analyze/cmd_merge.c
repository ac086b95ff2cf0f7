/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_merge.c - tracer-analyze merge: several traces (one per host) into one
 * multi-host trace (FORMAT.md 18), each kept byte for byte as a member. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyze.h"
#include "fleet.h"
#include "options.h"
#include "report.h"

static const struct tza_cmd_spec merge_spec = {
    .name = "merge",
    .synopsis = "usage: tracer-analyze merge -o OUT [-f] [--partial] TRACE...\n\n"
		"Write one multi-host trace OUT holding every TRACE as a member, byte for byte\n"
		"(FORMAT.md section 18): the traces of one run recorded on several nodes, each\n"
		"by its own tracer-record. A TRACE may be a .tz file, a directory (its *.tz\n"
		"files, in name order) or an earlier merge (its members are taken one by one).\n"
		"Each member keeps its own clock, pids and checksums; its host is named by its\n"
		"metadata (hostname) and identified by its boot id.\n\n"
		"The same recording given twice (equal uuid: a copy, or a merge that already\n"
		"holds it) is merged once, from its whole copy (closed, not cut or damaged;\n"
		"else the one with more readable blocks, else the first), with a note. Two\n"
		"traces of one host (equal boot id) whose times overlap are named in a note.\n"
		"A trace that is unfinished or damaged is refused unless --partial (given\n"
		"before or after 'merge'); it is then merged as it is, marked partial, and\n"
		"read later by the same --partial rules.\n\n",
    .notes = "Exit status: 0 written, 1 a TRACE unreadable or OUT not written, 2 usage.\n",
    .examples = "  tracer-analyze merge -o run.tz node1.tz node2.tz node3.tz\n"
		"  tracer-analyze merge -o run.tz traces/\n"
		"  tracer-analyze info run.tz\n",
    .col = 20,
};

int tza_merge_write(const char *cmd, const char *out, int force, const struct tz_merge_src *src, size_t n,
		    const char *const *extra, size_t nextra)
{
	char nb[32], when[32], err[1024];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(nb, sizeof(nb), "%zu", n);
	snprintf(when, sizeof(when), "%lld",
		 (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec);
	const char *meta[6 + 2 * TZA_MERGE_EXTRA_MAX] = {
	    "merged_by", "tracer-analyze " TRACER_VERSION, "merged_real_ns", when, "members", nb};
	size_t nm = 3;
	for (size_t k = 0; k < nextra && k < TZA_MERGE_EXTRA_MAX; k++, nm++) {
		meta[2 * nm] = extra[2 * k];
		meta[2 * nm + 1] = extra[2 * k + 1];
	}
	int rc = tz_multi_write(out, force, src, n, meta, nm, err, sizeof(err));
	if (rc == TZ_ERR_EXISTS) {
		tza_err_exists(out, "-f");
		return -1;
	}
	if (rc < 0) {
		tza_err("%s: %s", cmd, err);
		return -1;
	}
	return 0;
}

int tza_fleet_merge(const char *cmd, const char *out, int force, const struct tza_fleet *f)
{
	struct tz_merge_src *src = calloc(f->n ? f->n : 1, sizeof(*src));
	if (!src) {
		tza_err("out of memory");
		return -1;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct tza_hostsrc *h = &f->h[i];
		src[i] = (struct tz_merge_src){
		    .data = h->me->data,
		    .len = h->me->len,
		    .uuid = h->me->uuid,
		    .boot_id = h->me->boot_id,
		    .flags = h->me->flags | (h->partial ? TZ_MEMBER_PARTIAL : 0),
		    .source = tza_fleet_source(f, i),
		    .hostname = h->me->hostname};
	}
	int rc = tza_merge_write(cmd, out, force, src, f->n, NULL, 0);
	free(src);
	return rc;
}

int tza_fleet_out_is_input(const char *cmd, const char *out, const struct tza_fleet *f)
{
	struct stat so, si;
	if (stat(out, &so))
		return 0;
	for (size_t i = 0; i < f->n; i++)
		if (!stat(f->h[i].path, &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			tza_err("%s: '%s' is also a TRACE to read: write to another file", cmd, out);
			return 1;
		}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	int force = 0, rc = TZA_EXIT_FAIL;
	const struct tza_option opts[] = {
		OPT_STRING('o', "output", "OUT", &out, "the multi-host trace to write"),
		OPT_FLAG('f', "force", &force, "replace OUT if it exists"),
		OPT_END_TRACE,
	};
	int ret = tza_options_parse(&merge_spec, opts, argc, argv);
	if (ret >= 0)
		return ret;
	if (!out || optind >= argc) {
		tza_err("merge: expected -o OUT and at least one TRACE (see 'tracer-analyze merge "
			"--help')");
		return TZA_EXIT_USAGE;
	}
	if (tza_refuse_stdout_name("merge", "-o", out))
		return TZA_EXIT_USAGE;
	if (tza_refuse_dir(out, "an output file"))
		return TZA_EXIT_FAIL;
	struct tza_fleet f;
	if (!tza_fleet_expand("merge", argv + optind, argc - optind, &f) &&
	    !tza_fleet_out_is_input("merge", out, &f) && !tza_fleet_check("merge", &f, 1)) {
		tza_fleet_note_overlaps("merge", &f);
		if (!tza_fleet_merge("merge", out, force, &f))
			rc = TZA_EXIT_OK;
	}
	tza_fleet_free(&f);
	return rc;
}
