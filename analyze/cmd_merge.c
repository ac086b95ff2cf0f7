/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_merge.c - tracer-analyze merge: several traces (one per host) into one
 * multi-host trace (FORMAT.md 18), each kept byte for byte as a member. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyze.h"
#include "report.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tracer-analyze merge -o OUT [-f] [--partial] TRACE...\n\n"
		   "Write one multi-host trace OUT holding every TRACE as a member, byte for byte\n"
		   "(FORMAT.md section 18): the traces of one run recorded on several nodes, each\n"
		   "by its own tracer-record. A TRACE may be a .tz file, a directory (its *.tz\n"
		   "files, in name order) or an earlier merge (its members are taken one by one).\n"
		   "Each member keeps its own clock, pids and checksums; its host is named by its\n"
		   "metadata (hostname) and identified by its boot id.\n\n"
		   "The same recording given twice (equal uuid: a copy, or a merge that already\n"
		   "holds it) is merged once, with a note. Two traces of one host (equal boot id)\n"
		   "whose times overlap are named in a note.\n"
		   "A trace that is unfinished or damaged is refused unless --partial (given\n"
		   "before or after 'merge'); it is then merged as it is, marked partial, and\n"
		   "read later by the same --partial rules.\n\n"
		   "  -o, --output OUT  the multi-host trace to write\n"
		   "  -f, --force       replace OUT if it exists\n"
		   "  -h, --help        this help\n\n"
		   "Exit status: 0 written, 1 a TRACE unreadable or OUT not written, 2 usage.\n\n"
		   "Examples:\n"
		   "  tracer-analyze merge -o run.tz node1.tz node2.tz node3.tz\n"
		   "  tracer-analyze merge -o run.tz traces/\n"
		   "  tracer-analyze info run.tz\n");
}

/* One input member, what it is and where its bytes are. */
struct msrc {
	struct tz_merge_src s;
	const char *path;	    /* the TRACE it came from */
	uint64_t first_ns, last_ns; /* CLOCK_BOOTTIME range of its events */
};

struct merge_job {
	const char *out;
	int force;
	tz_multi **open; /* every input, open until the write is done */
	size_t nopen;
	struct msrc *v;
	size_t n;
	char **names; /* directory entries' paths (owned) */
	size_t nnames;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .tz files of directory dir, in name order, appended to j->names;
 * their index range in [*lo, *hi). */
static int list_dir(struct merge_job *j, const char *dir, size_t *lo, size_t *hi)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d) {
		tza_err("merge: '%s': cannot read the directory: %s", dir, strerror(errno));
		return -1;
	}
	*lo = j->nnames;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".tz") || e->d_name[0] == '.')
			continue;
		char **nv = realloc(j->names, (j->nnames + 1) * sizeof(*nv));
		char *p = malloc(strlen(dir) + l + 2);
		if (!nv || !p) {
			free(p);
			if (nv)
				j->names = nv;
			closedir(d);
			tza_err("out of memory");
			return -1;
		}
		j->names = nv;
		sprintf(p, "%s/%s", dir, e->d_name);
		j->names[j->nnames++] = p;
	}
	closedir(d);
	*hi = j->nnames;
	qsort(j->names + *lo, *hi - *lo, sizeof(*j->names), cmp_str);
	if (*hi == *lo) {
		tza_err("merge: '%s': no .tz file in the directory", dir);
		return -1;
	}
	return 0;
}

static void hex16(char out[33], const uint8_t *b)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* The first damaged block a verifying walk meets (an INDEX block loses
 * nothing: FORMAT.md [I2]). */
struct vbad {
	tz_reader *r;
	uint64_t bad;
	char msg[600];
};

static int on_bad(void *ctx, const struct tz_block_info *b)
{
	struct vbad *v = ctx;
	if (b->status && !b->no_loss && !v->bad++)
		snprintf(v->msg, sizeof(v->msg), "%s", tz_reader_errmsg(v->r));
	return 0;
}

/* Is member i of mt whole enough to merge (the --partial rules)? Fills its
 * event time range. 1 partial (merged as such), 0 whole, -1 refused. */
static int member_check(tz_multi *mt, size_t i, const char *path, struct msrc *s)
{
	tz_reader *r = NULL;
	int rc = tz_multi_reader(mt, i, &r);
	if (rc < 0) {
		const char *msg = r ? tz_reader_errmsg(r) : "";
		if (msg && *msg)
			tza_err("merge: %s", msg);
		else
			tza_err("merge: '%s': %s", path, tz_strerror(rc));
		tz_reader_free(r);
		return -1;
	}
	const struct tz_info *in = tz_reader_info(r);
	/* what tza_check_whole refuses without --partial */
	int partial =
	    in->unfinished || in->live || in->corrupt_blocks || (!in->has_footer && !in->ring);
	char name[4200];
	if (tz_multi_is_container(mt))
		snprintf(name, sizeof(name), "%s[%zu]", path, i);
	else
		snprintf(name, sizeof(name), "%s", path);
	s->first_ns = in->first_ts_ns;
	s->last_ns = in->last_ts_ns;
	rc = tza_check_whole(r, name, 0);
	if (rc == 0) {
		/* what an analysis finds on reading: every payload checked */
		struct vbad v = {.r = r};
		int bad = tz_reader_verify(r, on_bad, &v);
		if (bad < 0 || v.bad) {
			partial = 1;
			if (!tza_partial()) {
				tza_err("%s: %s (see 'tracer-analyze verify'; 'tracer-analyze "
					"--partial merge' merges it as it is)",
					bad < 0 ? name : v.msg,
					bad < 0 ? tz_strerror(bad) : "damaged");
				rc = -1;
			}
		}
	}
	tz_reader_free(r);
	return rc < 0 ? -1 : partial;
}

static int add_src(struct merge_job *j, const struct msrc *s)
{
	for (size_t k = 0; k < j->n; k++) {
		if (memcmp(j->v[k].s.uuid, s->s.uuid, 16))
			continue;
		char u[33];
		hex16(u, s->s.uuid);
		tza_err("merge: note: '%s' is the same recording as '%s' (uuid %s): merged once",
			s->path, j->v[k].path, u);
		return 0;
	}
	struct msrc *nv = realloc(j->v, (j->n + 1) * sizeof(*nv));
	if (!nv) {
		tza_err("out of memory");
		return -1;
	}
	j->v = nv;
	j->v[j->n++] = *s;
	return 0;
}

/* Open one TRACE (a file or an earlier merge) and add its members. */
static int add_trace(struct merge_job *j, const char *path)
{
	tz_multi *mt = NULL;
	int rc = tz_multi_open(&mt, path, NULL);
	tz_multi **nv = realloc(j->open, (j->nopen + 1) * sizeof(*nv));
	if (!nv) {
		tz_multi_free(mt);
		tza_err("out of memory");
		return -1;
	}
	j->open = nv;
	j->open[j->nopen++] = mt;
	if (rc < 0) {
		const char *msg = tz_multi_errmsg(mt);
		if (msg && *msg)
			tza_err("merge: %s", msg);
		else
			tza_err("merge: '%s': %s", path, tz_strerror(rc));
		return -1;
	}
	if (tz_multi_damage(mt) && !tza_partial()) {
		tza_err("merge: %s (%" PRIu64 " damaged region%s in the multi-host trace; "
			"'tracer-analyze --partial merge' merges the members that remain)",
			tz_multi_errmsg(mt), tz_multi_damage(mt),
			tz_multi_damage(mt) > 1 ? "s" : "");
		return -1;
	}
	for (size_t i = 0; i < tz_multi_count(mt); i++) {
		const struct tz_member *me = tz_multi_member(mt, i);
		struct msrc s = {.s = {.data = me->data,
				       .len = me->len,
				       .uuid = me->uuid,
				       .boot_id = me->boot_id,
				       .flags = me->flags,
				       .source = me->source,
				       .hostname = me->hostname},
				 .path = path};
		if (me->dup_of >= 0)
			continue; /* read once, as the reader does ([X3]) */
		int st = member_check(mt, i, path, &s);
		if (st < 0)
			return -1;
		if (st || me->cut)
			s.s.flags |= TZ_MEMBER_PARTIAL;
		if (tz_multi_is_container(mt) && !*me->source)
			s.s.source = path;
		if (add_src(j, &s))
			return -1;
	}
	return 0;
}

/* Traces of one host (equal boot id) whose event times overlap: named. */
static void note_overlaps(const struct merge_job *j)
{
	for (size_t a = 0; a < j->n; a++)
		for (size_t b = a + 1; b < j->n; b++) {
			const struct msrc *x = &j->v[a], *y = &j->v[b];
			static const uint8_t zero[16];
			if (memcmp(x->s.boot_id, y->s.boot_id, 16) ||
			    !memcmp(x->s.boot_id, zero, 16))
				continue;
			if (x->first_ns > y->last_ns || y->first_ns > x->last_ns)
				continue;
			tza_err("merge: note: '%s' and '%s' were recorded on one host (same boot "
				"id) at overlapping times: a process in both is one process",
				x->s.source ? x->s.source : x->path,
				y->s.source ? y->s.source : y->path);
		}
}

static int merge_write(struct merge_job *j)
{
	char n[32], when[32], err[1024];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(n, sizeof(n), "%zu", j->n);
	snprintf(when, sizeof(when), "%lld",
		 (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec);
	const char *meta[] = {
	    "merged_by", "tracer-analyze " TRACER_VERSION, "merged_real_ns", when, "members", n};
	struct tz_merge_src *src = calloc(j->n ? j->n : 1, sizeof(*src));
	if (!src) {
		tza_err("out of memory");
		return -1;
	}
	for (size_t i = 0; i < j->n; i++)
		src[i] = j->v[i].s;
	int rc = tz_multi_write(j->out, j->force, src, j->n, meta, 3, err, sizeof(err));
	free(src);
	if (rc == TZ_ERR_EXISTS) {
		tza_err_exists(j->out, "-f");
		return -1;
	}
	if (rc < 0) {
		tza_err("merge: %s", err);
		return -1;
	}
	return 0;
}

/* Is OUT one of the inputs (the same file)? */
static int out_is_input(const struct merge_job *j, char **in, int nin)
{
	struct stat so, si;
	if (stat(j->out, &so))
		return 0;
	for (int i = 0; i < nin; i++)
		if (!stat(in[i], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			tza_err("merge: '%s' is also a TRACE to merge: write to another file",
				j->out);
			return 1;
		}
	for (size_t i = 0; i < j->nnames; i++)
		if (!stat(j->names[i], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			tza_err("merge: '%s' is also a TRACE to merge (in its directory): write "
				"to another file",
				j->out);
			return 1;
		}
	return 0;
}

static int merge_inputs(struct merge_job *j, char **in, int nin)
{
	for (int i = 0; i < nin; i++) {
		struct stat st;
		if (!stat(in[i], &st) && S_ISDIR(st.st_mode)) {
			size_t lo, hi;
			if (list_dir(j, in[i], &lo, &hi))
				return -1;
			for (size_t k = lo; k < hi; k++)
				if (add_trace(j, j->names[k]))
					return -1;
		} else if (add_trace(j, in[i])) {
			return -1;
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option lo[] = {{"output", required_argument, NULL, 'o'},
					   {"force", no_argument, NULL, 'f'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	struct merge_job j = {0};
	int c, rc = TZA_EXIT_FAIL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:fh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			j.out = optarg;
			break;
		case 'f':
			j.force = 1;
			break;
		case 'h':
			usage(stdout);
			return TZA_EXIT_OK;
		default:
			tza_bad_option("merge", argc, argv);
			return TZA_EXIT_USAGE;
		}
	}
	if (!j.out || optind >= argc) {
		tza_err("merge: expected -o OUT and at least one TRACE (see 'tracer-analyze merge "
			"--help')");
		return TZA_EXIT_USAGE;
	}
	if (tza_refuse_dir(j.out, "an output file"))
		return TZA_EXIT_FAIL;
	if (!merge_inputs(&j, argv + optind, argc - optind) &&
	    !out_is_input(&j, argv + optind, argc - optind)) {
		note_overlaps(&j);
		if (!merge_write(&j))
			rc = TZA_EXIT_OK;
	}
	for (size_t i = 0; i < j.nopen; i++)
		tz_multi_free(j.open[i]);
	for (size_t i = 0; i < j.nnames; i++)
		free(j.names[i]);
	free(j.open);
	free(j.names);
	free(j.v);
	return rc;
}
