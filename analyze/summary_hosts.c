/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * summary_hosts.c - `tracer-analyze summary` over a run recorded on several
 * hosts (fleet.h): the run as a whole (hosts, wall-clock span, totals, the
 * top groups across hosts, each host's share), then every host's own
 * summary. Hosts are read one at a time; a process seen by two traces of one
 * host (same boot id, overlapping recordings) counts once (FORMAT.md [X3]).
 * docs/tracer-analyze.md, "MANY HOSTS".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "json.h"
#include "report.h"
#include "summary.h"
#include "textsafe.h"

/* A group (tool, task ...) across hosts. */
struct hgroup {
	char *key;
	uint64_t count, cpu_ns, wall_ns, failed;
	uint32_t hosts;	    /* hosts it ran on (distinct hostnames) */
	uint32_t last_host; /* + 1: the trace that last counted it */
	uint32_t *hostid;   /* [hosts]: those hosts (hline.hostid) */
};

/* One host's line in the run's table. */
struct hline {
	const char *name, *hostname; /* borrowed from the fleet */
	uint32_t hostid; /* the first trace of its host (equal hostname) */
	char boot[33];
	int64_t wall0, wall1; /* its window in wall-clock ns; 0: unknown */
	uint64_t procs, dups, cpu_ns;
	double util; /* its summary's utilisation, < 0 unknown */
	uint32_t cpus;
};

struct run {
	struct tza_fleet f;
	enum tza_by by;
	struct hgroup *g;
	size_t ng, gcap;
	struct hline *h;
	struct tza_host_clock *clk; /* [f.n]: each host's clock state */
	/* every process counted so far, per host: a later trace of the
	 * same boot id skips those */
	struct tza_fleet_seen seen;
	uint64_t procs, dups, execs, failed_execs, nonzero, signaled, cpu_ns;
	int64_t wall0, wall1;
	const char **names; /* [f.n]: each trace's hostname (h[i].hostname) */
	size_t nhosts;	    /* distinct hosts among them (tza_hosts_distinct) */
	int one_clock; /* every host has the same non-zero boot id */
	char **outs;   /* each host's own summary, printed after the run's */
	size_t *outlen;
};

static struct hgroup *group(struct run *u, const char *key)
{
	for (size_t i = 0; i < u->ng; i++) /* a run has tens of groups, not millions */
		if (!strcmp(u->g[i].key, key))
			return &u->g[i];
	if (VEC_ROOM(u->g, u->ng, u->gcap, 64))
		return NULL;
	struct hgroup *g = &u->g[u->ng];
	memset(g, 0, sizeof(*g));
	g->key = strdup(key);
	if (!g->key)
		return NULL;
	u->ng++;
	return g;
}

/* Count host i's processes into the run (skipping ones an earlier trace of
 * its host counted) and keep its ids for the later ones. */
static int count_host(struct run *u, size_t i, struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	struct hline *hl = &u->h[i];
	for (uint32_t k = 0; k < m->nprocs; k++) {
		struct tza_proc *p = m->procs[k];
		if (tza_fleet_seen_add(&u->seen, i, p->pid, p->start_ns))
			return -1;
		if (tza_fleet_seen_before(&u->seen, &u->f, i, p->pid, p->start_ns)) {
			hl->dups++;
			continue;
		}
		uint64_t cpu = p->flags & TZA_P_NO_EXIT ? 0 : p->utime_ns + p->stime_ns;
		struct hgroup *g = group(u, tza_proc_key(p, u->by));
		if (!g)
			return -1;
		uint64_t end = tza_proc_end(m, p);
		g->count++;
		g->cpu_ns += cpu;
		g->wall_ns += end > p->start_ns ? end - p->start_ns : 0;
		g->failed += tza_proc_failed(p) ? 1 : 0;
		if (g->last_host != i + 1) {
			/* a group on two traces of one host ran on one host */
			g->last_host = (uint32_t)i + 1;
			uint32_t h = 0;
			while (h < g->hosts && g->hostid[h] != hl->hostid)
				h++;
			if (h == g->hosts) {
				uint32_t *x = realloc(g->hostid, (h + 1) * sizeof(*x));
				if (!x)
					return -1;
				g->hostid = x;
				x[g->hosts++] = hl->hostid;
			}
		}
		hl->procs++;
		hl->cpu_ns += cpu;
		/* exec events, as each host's own summary counts them: an image
		 * rebuilt from a snapshot or state block (always the first kept)
		 * was no exec in the trace */
		u->execs += p->nexecs + p->res->nexecs_omitted -
			    (p->nexecs && (p->execs[0].flags & TZA_EXEC_FROM_STATE));
		u->failed_execs += p->nfailed + p->res->nfailed_omitted;
		u->nonzero += !(p->flags & TZA_P_NO_EXIT) && p->exit_code > 0;
		u->signaled += !(p->flags & TZA_P_NO_EXIT) && p->signal > 0;
	}
	tza_fleet_seen_seal(&u->seen, i);
	u->procs += hl->procs;
	u->dups += hl->dups;
	u->cpu_ns += hl->cpu_ns;
	return 0;
}

/* Host i: its summary computed, counted into the run, printed into its
 * own buffer (text or JSON) for after the run's part. */
static int one_host(struct run *u, size_t i, uint64_t limit, int json)
{
	struct tza_summary s;
	struct hline *hl = &u->h[i];
	tz_reader *r = tza_fleet_reader(&u->f, i);
	if (!r || tza_summary_compute_r(u->f.h[i].name, r, u->by, limit, !json, &s) != TZA_EXIT_OK)
		return -1;
	hl->name = u->f.h[i].name;
	hl->hostname = strdup(tza_fleet_hostname(&u->f, i, s.r)); /* the reader goes */
	hl->hostid = (uint32_t)i;
	for (size_t k = 0; hl->hostname && *hl->hostname && k < i; k++)
		if (u->h[k].hostname && !strcmp(u->h[k].hostname, hl->hostname)) {
			hl->hostid = u->h[k].hostid;
			break;
		}
	tza_fleet_hex16(hl->boot, u->f.h[i].me->boot_id);
	hl->util = s.util;
	hl->cpus = s.mi.ncpus;
	u->clk[i].hostname = hl->hostname;
	tza_host_clock_read(s.r, &u->clk[i]);
	int64_t w;
	if (s.ws && tz_reader_realtime(s.r, s.t0, &w) == 0)
		hl->wall0 = w;
	if (s.we && tz_reader_realtime(s.r, s.t1, &w) == 0)
		hl->wall1 = w;
	int rc = count_host(u, i, &s);
	FILE *f = open_memstream(&u->outs[i], &u->outlen[i]);
	if (!f || rc) {
		if (f)
			fclose(f);
		tza_summary_free(&s);
		tza_err("out of memory");
		return -1;
	}
	tza_summary_print(f, &s, u->by, json);
	fclose(f);
	tza_summary_free(&s);
	if (hl->wall0 && (!u->wall0 || hl->wall0 < u->wall0))
		u->wall0 = hl->wall0;
	if (hl->wall1 > u->wall1)
		u->wall1 = hl->wall1;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct hgroup *x = a, *y = b;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* What aligning the hosts by wall clock is worth (fleet_clock.h) */
static void clock_note(const struct run *u, char *buf, size_t n, int64_t *bound_us)
{
	tza_clock_note(u->clk, u->f.n, u->one_clock, buf, n, bound_us);
}

/* Host h's share of the run's span covered by its trace (active) and its
 * CPU over its cores for the whole span (run util); < 0: unknown. */
static void run_shares(const struct run *u, const struct hline *h, double *active, double *rutil)
{
	double span = (double)(u->wall1 - u->wall0);
	*active = *rutil = -1;
	if (!u->wall0 || u->wall1 <= u->wall0)
		return;
	if (h->wall0 && h->wall1 >= h->wall0)
		*active = (double)(h->wall1 - h->wall0) / span;
	if (h->cpus)
		*rutil = (double)h->cpu_ns / (span * h->cpus);
}

static void run_text(FILE *o, const struct run *u, uint64_t limit)
{
	char a[64], b[64], d[32], c[32];
	fputs("run           ", o);
	tza_hosts_say(o, u->f.n, u->nhosts);
	fputs(": ", o);
	tza_hosts_names(o, ", ", u->names, u->f.n);
	fputc('\n', o);
	if (u->wall0 && u->wall1 >= u->wall0)
		fprintf(o, "span          %s .. %s (%s)\n", tza_fmt_utc(u->wall0, a, sizeof(a)),
			tza_fmt_utc(u->wall1, b, sizeof(b)),
			tza_fmt_dur(d, sizeof(d), (uint64_t)(u->wall1 - u->wall0)));
	char note[1024];
	int64_t bound;
	clock_note(u, note, sizeof(note), &bound);
	fprintf(o, "clocks        ");
	tza_safe_puts(o, note);
	fputc('\n', o);
	fprintf(o, "processes     %" PRIu64 " (%" PRIu64 " execs, %" PRIu64 " failed execs)",
		u->procs, u->execs, u->failed_execs);
	if (u->dups)
		fprintf(o, "; %" PRIu64 " seen by two traces of one host, counted once", u->dups);
	fprintf(o, "\nfailures      %" PRIu64 " non-zero exits, %" PRIu64 " killed by a signal\n",
		u->nonzero, u->signaled);
	fprintf(o, "cpu           %s\n\n", tza_fmt_dur(c, sizeof(c), u->cpu_ns));
	fprintf(o, "%-20s %10s %12s %7s %9s %7s %7s  %s\n", "host", "processes", "cpu", "util",
		"start", "active", "run%", "trace");
	for (size_t i = 0; i < u->f.n; i++) {
		const struct hline *h = &u->h[i];
		char util[16] = "-", st[32] = "-", act[16] = "-", ru[16] = "-";
		double sa, sr;
		run_shares(u, h, &sa, &sr);
		if (h->util >= 0)
			snprintf(util, sizeof(util), "%.1f%%", 100 * h->util);
		if (h->wall0 && u->wall0)
			snprintf(st, sizeof(st), "+%.1fs", (double)(h->wall0 - u->wall0) / 1e9);
		if (sa >= 0)
			snprintf(act, sizeof(act), "%.1f%%", 100 * sa);
		if (sr >= 0)
			snprintf(ru, sizeof(ru), "%.1f%%", 100 * sr);
		char hn[TZA_SAFE_BUF];
		fprintf(o, "%-20.20s %10" PRIu64 " %12s %7s %9s %7s %7s  ",
			tza_safe_str(hn, sizeof(hn), h->hostname), h->procs,
			tza_fmt_dur(c, sizeof(c), h->cpu_ns), util, st, act, ru);
		tza_safe_puts(o, h->name);
		fputc('\n', o);
	}
	fprintf(o, "\n%-24s %10s %6s %12s %7s\n", tza_by_header(u->by), "processes", "hosts", "cpu",
		"failed");
	for (size_t i = 0; i < u->ng && (!limit || i < limit); i++) {
		const struct hgroup *g = &u->g[i];
		char k[TZA_SAFE_BUF];
		fprintf(o, "%-24.24s %10" PRIu64 " %6u %12s %7" PRIu64 "\n",
			tza_safe_str(k, sizeof(k), g->key), g->count, g->hosts,
			tza_fmt_dur(c, sizeof(c), g->cpu_ns), g->failed);
	}
}

static void run_json(FILE *o, const struct run *u, uint64_t limit)
{
	char a[64];
	fprintf(o, "{\"multi_host\":true,\"run\":{\"hosts\":%zu,\"traces\":%zu,\"start\":",
		u->nhosts, u->f.n);
	if (u->wall0)
		tza_json_cstr(o, tza_fmt_utc(u->wall0, a, sizeof(a)));
	else
		fputs("null", o);
	fputs(",\"end\":", o);
	if (u->wall1)
		tza_json_cstr(o, tza_fmt_utc(u->wall1, a, sizeof(a)));
	else
		fputs("null", o);
	fputs(",\"makespan_s\":", o);
	if (u->wall0 && u->wall1 >= u->wall0)
		tza_json_secs(o, u->wall1 - u->wall0);
	else
		fputs("null", o);
	char note[1024];
	int64_t bound;
	clock_note(u, note, sizeof(note), &bound);
	fprintf(o, ",\"clock\":{\"one_host\":%s,\"bound_s\":", u->one_clock ? "true" : "false");
	if (bound >= 0)
		tza_json_secs(o, bound * 1000);
	else
		fputs("null", o);
	tza_json_key_cstr(o, "note", note);
	fprintf(o,
		"},\"processes\":%" PRIu64 ",\"counted_once\":%" PRIu64 ",\"execs\":%" PRIu64
		",\"failed_execs\":%" PRIu64 ",\"nonzero_exits\":%" PRIu64 ",\"signaled\":%" PRIu64
		",\"cpu_s\":",
		u->procs, u->dups, u->execs, u->failed_execs, u->nonzero, u->signaled);
	tza_json_secs(o, (int64_t)u->cpu_ns);
	fputs(",\"per_host\":[", o);
	for (size_t i = 0; i < u->f.n; i++) {
		const struct hline *h = &u->h[i];
		tza_fleet_json_host(o, i ? "," : "", h->hostname, h->name);
		tza_json_key_cstr(o, "boot_id", h->boot);
		fprintf(o, ",\"processes\":%" PRIu64 ",\"counted_once\":%" PRIu64 ",\"cpu_s\":",
			h->procs, h->dups);
		tza_json_secs(o, (int64_t)h->cpu_ns);
		fputs(",\"utilization\":", o);
		if (h->util >= 0)
			tza_json_num(o, h->util);
		else
			fputs("null", o);
		fputs(",\"clock_sync\":", o);
		const struct tza_host_clock *hc = &u->clk[i];
		fputs(hc->sync < 0 ? "null" : hc->sync ? "true" : "false", o);
		fputs(",\"clock_maxerror_s\":", o);
		if (hc->sync == 1)
			tza_json_secs(o, (int64_t)hc->maxerr_us * 1000);
		else
			fputs("null", o);
		double act, ru;
		run_shares(u, h, &act, &ru);
		fputs(",\"active_share\":", o);
		if (act >= 0)
			tza_json_num(o, act);
		else
			fputs("null", o);
		fputs(",\"run_utilization\":", o);
		if (ru >= 0)
			tza_json_num(o, ru);
		else
			fputs("null", o);
		fputs(",\"start_offset_s\":", o);
		if (h->wall0 && u->wall0)
			tza_json_secs(o, h->wall0 - u->wall0);
		else
			fputs("null", o);
		fputc('}', o);
	}
	fputs("],\"top\":[", o);
	for (size_t i = 0; i < u->ng && (!limit || i < limit); i++) {
		const struct hgroup *g = &u->g[i];
		fputs(i ? ",{\"key\":" : "{\"key\":", o);
		tza_json_cstr(o, g->key);
		fprintf(o, ",\"processes\":%" PRIu64 ",\"hosts\":%u,\"cpu_s\":", g->count,
			g->hosts);
		tza_json_secs(o, (int64_t)g->cpu_ns);
		tza_json_key_secs(o, "wall_s", (int64_t)g->wall_ns);
		fprintf(o, ",\"failed\":%" PRIu64 "}", g->failed);
	}
	fputs("]},\"hosts\":[", o);
}

static void run_free(struct run *u)
{
	for (size_t i = 0; i < u->ng; i++) {
		free(u->g[i].key);
		free(u->g[i].hostid);
	}
	for (size_t i = 0; u->h && i < u->f.n; i++) {
		free((char *)u->h[i].hostname);
		free(u->outs[i]);
	}
	free(u->g);
	free(u->h);
	free(u->clk);
	free(u->names);
	tza_fleet_seen_free(&u->seen);
	free(u->outs);
	free(u->outlen);
	tza_fleet_free(&u->f);
}

int tza_summary_hosts(FILE *o, char **args, int n, enum tza_by by, uint64_t limit, int json)
{
	struct run u = {.by = by};
	int rc = TZA_EXIT_FAIL;
	if (tza_fleet_open("summary", args, n, &u.f))
		goto out;
	u.h = calloc(u.f.n, sizeof(*u.h));
	u.clk = calloc(u.f.n, sizeof(*u.clk));
	u.outs = calloc(u.f.n, sizeof(*u.outs));
	u.outlen = calloc(u.f.n, sizeof(*u.outlen));
	u.names = calloc(u.f.n, sizeof(*u.names));
	if (!u.h || !u.clk || !u.outs || !u.outlen || !u.names || tza_fleet_seen_init(&u.seen, u.f.n)) {
		tza_err("out of memory");
		goto out;
	}
	u.one_clock = tza_fleet_one_clock(&u.f);
	for (size_t i = 0; i < u.f.n; i++) {
		if (one_host(&u, i, limit, json))
			goto out;
		u.names[i] = u.h[i].hostname;
	}
	u.nhosts = tza_hosts_distinct(u.names, u.f.n);
	if (u.ng)
		qsort(u.g, u.ng, sizeof(*u.g), cmp_group);
	if (json) {
		run_json(o, &u, limit);
		for (size_t i = 0; i < u.f.n; i++) {
			size_t l = u.outlen[i];
			while (l && u.outs[i][l - 1] == '\n')
				l--;
			fprintf(o, "%s%.*s", i ? "," : "", (int)l, u.outs[i]);
		}
		fputs("]}\n", o);
	} else {
		run_text(o, &u, limit);
		for (size_t i = 0; i < u.f.n; i++) {
			fputs("\n== host ", o);
			tza_safe_puts(o, u.h[i].hostname);
			fputs(" (", o);
			tza_safe_puts(o, u.h[i].name);
			fputs(") ==\n", o);
			fwrite(u.outs[i], 1, u.outlen[i], o);
		}
	}
	rc = TZA_EXIT_OK;
out:
	run_free(&u);
	return rc;
}
