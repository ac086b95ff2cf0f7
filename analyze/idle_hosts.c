/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * idle_hosts.c - `tracer-analyze idle` over a run recorded on several hosts
 * (fleet.h; docs/tracer-analyze.md "MANY HOSTS"): each host's own idle
 * stretches (tza_idle_trace, exactly as idle of its trace alone), and each
 * host's idle time as a share of the run's span. The run spans the earliest
 * host's first event to the latest one's last, by wall clock (summary's
 * span); the time of the run outside a host's trace is not recorded (the
 * node may have sat idle, or run something else) and is counted apart,
 * never as idle. Hosts are read one at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_clock.h"
#include "idle.h"
#include "json.h"
#include "report.h"
#include "textsafe.h"

/* One host: its idle output and what the run's lines need. */
struct ihost {
	char *hostname; /* owned */
	const char *trace;
	int64_t w0, w1;	    /* its trace's first and last event, wall-clock ns */
	uint64_t idle_ns;   /* its stretches of at least --min-duration */
	uint64_t judged_ns; /* the window idle judged (host samples or the trace) */
	enum tza_idle_basis basis;
	char *out; /* its own idle output (owned) */
	size_t outlen;
};

struct irun {
	struct tza_fleet f;
	struct ihost *h;
	struct tza_host_clock *clk;
	const char **names; /* [f.n]: each trace's hostname (h[i].hostname) */
	size_t nhosts;	    /* distinct hosts among them (tza_hosts_distinct) */
	int64_t w0, w1; /* the run's span, wall-clock ns */
	char note[1024];
	int64_t bound_us;
};

/* Host i: its idle into its own buffer. 0, or the exit code after one line. */
static int one_host(struct irun *u, size_t i, const struct tza_idle_opts *o)
{
	struct ihost *h = &u->h[i];
	struct tza_model *m;
	tz_reader *r;
	const char *hn;
	h->trace = u->f.h[i].name;
	if (tza_fleet_load(&u->f, i, TZA_MB_SAMPLES, &r, &m, &hn) < 0)
		return TZA_EXIT_FAIL;
	int rc = TZA_EXIT_FAIL;
	FILE *f = NULL;
	if (!(h->hostname = strdup(hn)) ||
	    !(f = open_memstream(&h->out, &h->outlen))) {
		tza_err("out of memory");
		goto out;
	}
	if (tza_host_clock_anchor("idle", r, h->trace, h->hostname, m->t0_ns, &u->clk[i], &h->w0))
		goto out;
	h->w1 = h->w0 + (int64_t)(m->t1_ns - m->t0_ns);
	uint64_t a = 0, b = 0;
	rc = tza_idle_trace(f, h->trace, r, m, o, &h->idle_ns, &a, &b, &h->basis);
	h->judged_ns = b > a ? b - a : 0;
out:
	if (f && fclose(f) && rc == TZA_EXIT_OK) {
		tza_err("out of memory");
		rc = TZA_EXIT_FAIL;
	}
	tza_unload(r, m);
	return rc;
}

static double share(uint64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

/* The time of the run outside host h's trace, ns. */
static uint64_t outside(const struct irun *u, const struct ihost *h)
{
	int64_t in = h->w1 - h->w0, span = u->w1 - u->w0;
	return span > in ? (uint64_t)(span - in) : 0;
}

static void text(FILE *f, const struct irun *u, const struct tza_idle_opts *o)
{
	char a[64], b[64], d1[40], d2[40], sk[TZA_SAFE_BUF];
	int64_t span = u->w1 - u->w0;
	fputs("run           ", f);
	tza_hosts_say(f, u->f.n, u->nhosts);
	fputs(": ", f);
	tza_hosts_names(f, ", ", u->names, u->f.n);
	fprintf(f, "\nspan          %s .. %s (%s)\n", tza_fmt_utc(u->w0, a, sizeof(a)),
		tza_fmt_utc(u->w1, b, sizeof(b)), tza_fmt_dur(d1, sizeof(d1), (uint64_t)span));
	fputs("clocks        ", f);
	tza_safe_puts(f, u->note);
	fprintf(f,
		"\nidle          under %g%% of each host's CPUs for at least %s, each host "
		"judged as idle of its trace alone; the run outside a host's trace is not "
		"recorded (idle or unknown), counted apart\n\n",
		o->threshold, tza_fmt_dur(d1, sizeof(d1), o->min_ns));
	for (size_t i = 0; i < u->f.n; i++) {
		const struct ihost *h = &u->h[i];
		fprintf(
		    f,
		    "%s idle %.1f%% of the run (%s of %s); %.1f%% of the run outside its trace\n",
		    tza_safe_str(sk, sizeof(sk), h->hostname), 100 * share(h->idle_ns, span),
		    tza_fmt_dur(d1, sizeof(d1), h->idle_ns),
		    tza_fmt_dur(d2, sizeof(d2), (uint64_t)span), 100 * share(outside(u, h), span));
	}
	for (size_t i = 0; i < u->f.n; i++) {
		const struct ihost *h = &u->h[i];
		fputs("\n== host ", f);
		tza_safe_puts(f, h->hostname);
		fputs(" (", f);
		tza_safe_puts(f, h->trace);
		fprintf(f, "), from +%.3fs into the run ==\n", (double)(h->w0 - u->w0) / 1e9);
		fwrite(h->out, 1, h->outlen, f);
	}
}

static void json(FILE *f, const struct irun *u, const struct tza_idle_opts *o)
{
	char t[64];
	int64_t span = u->w1 - u->w0;
	fprintf(f, "{\"multi_host\":true,\"run\":{\"hosts\":%zu,\"traces\":%zu,\"start\":",
		u->nhosts, u->f.n);
	tza_json_cstr(f, tza_fmt_utc(u->w0, t, sizeof(t)));
	tza_json_key_cstr(f, "end", tza_fmt_utc(u->w1, t, sizeof(t)));
	tza_json_key_secs(f, "span_s", span);
	fputs(",\"clock\":{\"bound_s\":", f);
	if (u->bound_us >= 0)
		tza_json_secs(f, u->bound_us * 1000);
	else
		fputs("null", f);
	tza_json_key_cstr(f, "note", u->note);
	fputs("},\"threshold_pct\":", f);
	tza_json_num(f, o->threshold);
	tza_json_key_secs(f, "min_duration_s", (int64_t)o->min_ns);
	fputs(",\"per_host\":[", f);
	for (size_t i = 0; i < u->f.n; i++) {
		const struct ihost *h = &u->h[i];
		tza_fleet_json_host(f, i ? "," : "", h->hostname, h->trace);
		fprintf(f, ",\"basis\":\"%s\",\"start_offset_s\":",
			h->basis == TZA_IDLE_HOST ? "host" : "procs");
		tza_json_secs(f, h->w0 - u->w0);
		tza_json_key_secs(f, "trace_s", h->w1 - h->w0);
		tza_json_key_secs(f, "judged_s", (int64_t)h->judged_ns);
		tza_json_key_secs(f, "idle_s", (int64_t)h->idle_ns);
		tza_json_key_num(f, "idle_share", share(h->idle_ns, span));
		tza_json_key_secs(f, "outside_s", (int64_t)outside(u, h));
		tza_json_key_num(f, "outside_share", share(outside(u, h), span));
		fputc('}', f);
	}
	fputs("]},\"hosts\":[", f);
	for (size_t i = 0; i < u->f.n; i++) {
		const struct ihost *h = &u->h[i];
		size_t len = h->outlen;
		while (len && h->out[len - 1] == '\n')
			len--;
		if (i)
			fputc(',', f);
		fwrite(h->out, 1, len, f);
	}
	fputs("]}\n", f);
}

int tza_idle_hosts(FILE *f, char **args, int n, const struct tza_idle_opts *o)
{
	struct irun u = {0};
	int rc = TZA_EXIT_FAIL;
	if (tza_fleet_open("idle", args, n, &u.f))
		goto out;
	u.h = calloc(u.f.n ? u.f.n : 1, sizeof(*u.h));
	u.clk = calloc(u.f.n ? u.f.n : 1, sizeof(*u.clk));
	u.names = calloc(u.f.n ? u.f.n : 1, sizeof(*u.names));
	if (!u.h || !u.clk || !u.names) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < u.f.n; i++) {
		if ((rc = one_host(&u, i, o)) != TZA_EXIT_OK)
			goto out;
		rc = TZA_EXIT_FAIL;
		u.names[i] = u.h[i].hostname;
		if (!i || u.h[i].w0 < u.w0)
			u.w0 = u.h[i].w0;
		if (!i || u.h[i].w1 > u.w1)
			u.w1 = u.h[i].w1;
	}
	u.nhosts = tza_hosts_distinct(u.names, u.f.n);
	tza_clock_note(u.clk, u.f.n, tza_fleet_one_clock(&u.f), u.note, sizeof(u.note),
		       &u.bound_us);
	if (o->json)
		json(f, &u, o);
	else
		text(f, &u, o);
	rc = tza_stdout_done();
out:
	for (size_t i = 0; u.h && i < u.f.n; i++) {
		free(u.h[i].hostname);
		free(u.h[i].out);
	}
	free(u.h);
	free(u.clk);
	free(u.names);
	tza_fleet_free(&u.f);
	return rc;
}
