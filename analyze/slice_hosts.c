/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * slice_hosts.c - `tracer-analyze slice` of a run on several hosts (a
 * multi-host trace or a directory of traces): every host trace sliced over
 * one wall-clock window, the slices written as one multi-host trace
 * (tza_fleet_rewrite). Each host's window is its own CLOCK_BOOTTIME, from
 * its clock anchors (FORMAT.md [H7]); each slice is what `slice` writes for
 * that host alone (cmd_slice.c). docs/tracer-analyze.md, "MANY HOSTS".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "fleet.h"
#include "report.h"
#include "slice.h"

/* One end of the window as given: absent, wall clock, or from the run's
 * start. */
struct when {
	int kind; /* -2 absent, 1 wall clock, 0 relative (tza_parse_when) */
	int64_t wall_ns;
	uint64_t rel_ns;
};

/* One host trace's range and clock. */
struct part {
	uint64_t first, last; /* its events, CLOCK_BOOTTIME ns */
	int64_t rt0;	      /* first as epoch ns (its clock anchor) */
	int have_rt;
};

struct job {
	const char *in, *out;
	int force, allow_empty;
	struct when from, to;
	struct tza_fleet f;
	struct part *p; /* [f.n] */
	int64_t run0;	/* the run's start: earliest rt0 */
	int64_t wfrom, wto; /* the window on the wall clock (when known) */
};

static int parse_end(const char *opt, const char *s, struct when *w)
{
	w->kind = -2;
	if (!s)
		return 0;
	w->kind = tza_parse_when(opt, s, &w->wall_ns, &w->rel_ns);
	return w->kind < 0 ? -1 : 0;
}

/* An end of the window on the wall clock: a relative time counts from the
 * run's start. */
static int64_t wall_of(const struct job *j, const struct when *w)
{
	if (w->kind == 1)
		return w->wall_ns;
	/* far past any recording: held at the end of time, no overflow */
	int64_t t;
	if (w->rel_ns > INT64_MAX || __builtin_add_overflow(j->run0, (int64_t)w->rel_ns, &t))
		return INT64_MAX;
	return t;
}

/* Each host's range and clock anchor, and the run's start. A host without
 * an anchor is refused when a window end is given (its times could not be
 * placed); without --from and --to every host is sliced whole. */
static int read_parts(struct job *j)
{
	int need = j->from.kind != -2 || j->to.kind != -2;
	for (size_t i = 0; i < j->f.n; i++) {
		struct part *p = &j->p[i];
		tz_reader *r = tza_fleet_reader(&j->f, i);
		if (!r)
			return -1;
		const struct tz_info *info = tz_reader_info(r);
		p->first = info->first_ts_ns;
		p->last = info->last_ts_ns;
		p->have_rt = tz_reader_realtime(r, p->first, &p->rt0) == 0;
		tz_reader_free(r);
		if (!p->have_rt && need) {
			tza_err("slice: '%s': no clock anchor: its times cannot be put beside the "
				"other hosts' (slice it alone, by its own times)",
				j->f.h[i].name);
			return -1;
		}
		if (p->have_rt && (!i || p->rt0 < j->run0))
			j->run0 = p->rt0;
	}
	return 0;
}

/* Host i's window in its own clock into q: 1, or else where the window
 * misses the host's recording: -1 it ends before the host's first event,
 * -2 it starts after the host's last. */
static int host_window(const struct job *j, size_t i, struct tza_slice_req *q)
{
	const struct part *p = &j->p[i];
	if (j->from.kind != -2) {
		int64_t d = tza_sub_sat(j->wfrom, p->rt0);
		q->have_from = 1;
		q->from = d <= 0 ? p->first : p->first + (uint64_t)d;
		if (q->from > p->last)
			return -2;
	}
	if (j->to.kind != -2) {
		int64_t d = tza_sub_sat(j->wto, p->rt0);
		if (d < 0)
			return -1;
		q->have_to = 1;
		q->to = p->first + (uint64_t)d;
	}
	return 1;
}

/* tza_rewrite_fn: host i sliced over the window into tmp. */
static int slice_host(void *ctx, const struct tza_fleet *f, size_t i, const char *tmp,
		      const char *label)
{
	const struct job *j = ctx;
	const char *hn = f->h[i].me->hostname;
	char from[4400];
	snprintf(from, sizeof(from), "%s <- %s", label, f->h[i].name);
	struct tza_slice_req q = {.in = f->h[i].name,
				  .out = tmp,
				  .label = from,
				  .force = 1,
				  .allow_empty = j->allow_empty,
				  .quiet_empty = !j->allow_empty};
	int w = host_window(j, i, &q);
	if (w < 0) {
		tza_err("slice: '%s'%s%s: %s the window; left out",
			f->h[i].name, *hn ? ", host " : "", hn,
			w == -1 ? "begins after" : "ends before");
		return 0;
	}
	int rc = tza_slice_write(&q);
	if (rc == TZA_SLICE_EMPTY)
		tza_err("slice: '%s'%s%s: nothing in the window (no event, no process alive); "
			"left out",
			f->h[i].name, *hn ? ", host " : "", hn);
	return rc == TZA_EXIT_OK ? 1 : rc == TZA_SLICE_EMPTY ? 0 : -1;
}

/* Every host sliced, OUT written. 0, or -1 after one line. */
static int slice_all(struct job *j)
{
	char a[32], b[32];
	const char *extra[6] = {"slice_of", j->in};
	size_t nextra = 1, kept;
	if (j->from.kind != -2) {
		snprintf(a, sizeof(a), "%lld", (long long)j->wfrom);
		extra[2 * nextra] = "slice_from_real_ns";
		extra[2 * nextra++ + 1] = a;
	}
	if (j->to.kind != -2) {
		snprintf(b, sizeof(b), "%lld", (long long)j->wto);
		extra[2 * nextra] = "slice_to_real_ns";
		extra[2 * nextra++ + 1] = b;
	}
	struct tza_rewrite w = {.cmd = "slice",
				.out = j->out,
				.force = j->force,
				.fn = slice_host,
				.ctx = j,
				.extra = extra,
				.nextra = nextra};
	if (tza_fleet_rewrite(&w, &j->f, &kept) < 0)
		return -1;
	if (!kept) {
		tza_err("'%s': slice: nothing in the window on any host; '%s' not written%s", j->in,
			j->out,
			j->allow_empty ? " (every host's recording ends before it or begins after it)"
				       : " (--allow-empty writes it)");
		return -1;
	}
	const char **hn = calloc(j->f.n, sizeof(*hn));
	for (size_t i = 0; hn && i < j->f.n; i++)
		hn[i] = j->f.h[i].me->hostname;
	size_t nh = hn ? tza_hosts_distinct(hn, j->f.n) : j->f.n;
	free(hn);
	/* members are traces: two of one host are one host (fleet.h) */
	if (nh == j->f.n)
		tza_err("'%s': %zu host%s of %zu", j->out, kept, kept == 1 ? "" : "s", j->f.n);
	else
		tza_err("'%s': %zu trace%s of %zu (the run's traces on %zu host%s)", j->out, kept,
			kept == 1 ? "" : "s", j->f.n, nh, nh == 1 ? "" : "s");
	return 0;
}

static void job_free(struct job *j)
{
	free(j->p);
	tza_fleet_free(&j->f);
}

/* The window on the wall clock, checked. -1 to go on, else the exit code. */
static int window(struct job *j)
{
	j->wfrom = j->from.kind != -2 ? wall_of(j, &j->from) : 0;
	j->wto = j->to.kind != -2 ? wall_of(j, &j->to) : 0;
	if (j->from.kind != -2 && j->to.kind != -2 && j->wto < j->wfrom) {
		tza_err("slice: --to is before --from");
		return TZA_EXIT_USAGE;
	}
	return -1;
}

int tza_slice_hosts(const char *in, const char *out, int force, int allow_empty,
		    const char *from_s, const char *to_s)
{
	struct job j = {.in = in, .out = out, .force = force, .allow_empty = allow_empty};
	if (parse_end("--from", from_s, &j.from) < 0 || parse_end("--to", to_s, &j.to) < 0)
		return TZA_EXIT_USAGE;
	if (tza_rewrite_out_ok(out, force))
		return TZA_EXIT_FAIL;
	int ret = TZA_EXIT_FAIL;
	char *args[1] = {(char *)in};
	if (tza_fleet_open("slice", args, 1, &j.f) || tza_fleet_out_is_input("slice", out, &j.f))
		goto out;
	if (!(j.p = calloc(j.f.n ? j.f.n : 1, sizeof(*j.p)))) {
		tza_err("out of memory");
		goto out;
	}
	if (read_parts(&j) < 0)
		goto out;
	if ((ret = window(&j)) >= 0)
		goto out;
	ret = slice_all(&j) < 0 ? TZA_EXIT_FAIL : TZA_EXIT_OK;
out:
	job_free(&j);
	return ret;
}
