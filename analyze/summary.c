/* SPDX-License-Identifier: BSD-2-Clause */
/* summary.c - the computing half of `tracer-analyze summary` (summary.h;
 * cmd_summary.c prints): the window, the counts, the groups, the critical
 * path and the utilisation of one trace. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/redact.h"
#include "dropslot.h"
#include "evq.h"
#include "summary.h"
#include "common/thread.h"

static const char *wall(tz_reader *r, uint64_t ns, char *b, size_t n)
{
	int64_t rt;
	if (tza_realtime(r, ns, &rt) < 0)
		return NULL;
	time_t t = (time_t)(rt / 1000000000LL);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t k = strftime(b, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(b + k, n - k, ".%03lldZ", (long long)(rt % 1000000000LL) / 1000000);
	return b;
}

static const char *meta(tz_reader *r, const char *k)
{
	const char *keys[] = {k, NULL};
	return tza_meta_any(r, keys);
}

/* Execs whose argv holds something the redaction patterns call a secret
 * (common/redact.c): summary warns before the trace is shared. The model
 * keeps one copy of equal argvs, so a storm's repeats of one argv are
 * answered from a small direct-mapped cache by address; only argvs that
 * pass redact_maybe()'s prefilter are copied and run through the regexes. */
#define SECRET_CACHE 4096 /* entries, a power of two */

static uint64_t secret_execs(const struct tza_model *m)
{
	struct redact rd = {0};
	struct seen {
		const uint8_t *argv;
		uint32_t len;
		int secret;
	} *cache = calloc(SECRET_CACHE, sizeof(*cache));
	uint64_t n = 0;
	int ready = 0; /* the patterns are compiled on the first candidate */

	if (!cache)
		return 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		for (uint32_t k = 0; k < p->nexecs; k++) {
			const struct tza_exec *e = &p->execs[k];
			if (!e->argv_len)
				continue;
			uintptr_t a = (uintptr_t)e->argv;
			struct seen *c = &cache[(a ^ a >> 12 ^ e->argv_len) & (SECRET_CACHE - 1)];
			if (c->argv == e->argv && c->len == e->argv_len) {
				n += (uint64_t)c->secret;
				continue;
			}
			int secret = 0;
			if (redact_maybe(e->argv, e->argv_len)) {
				if (!ready && redact_init(&rd))
					goto out;
				ready = 1;
				uint8_t small[4096];
				uint8_t *cp =
				    e->argv_len <= sizeof(small) ? small : malloc(e->argv_len);
				if (!cp)
					continue;
				memcpy(cp, e->argv, e->argv_len);
				secret = redact_mask_blob(&rd, cp, e->argv_len, 1) > 0;
				if (cp != small)
					free(cp);
			}
			*c = (struct seen){e->argv, e->argv_len, secret};
			n += (uint64_t)secret;
		}
	}
out:
	if (ready)
		redact_free(&rd);
	free(cache);
	return n;
}

/* tza_signal_cause()'s kernel causes, in the order summary lists them */
const char *const tza_kernel_causes[8] = {"broken pipe", "file size limit", "cpu time limit",
					  "fault",	 "seccomp",	    "oom",
					  "timer",	 "kernel"};

static void count_sender(struct tza_summary_counts *k, const struct tza_proc *p)
{
	const char *c = tza_signal_cause(p);
	if (!c)
		return;
	if (!p->res->killer_kernel) {
		if (p->res->killer_pid == p->pid && p->res->killer_start_ns == p->start_ns)
			k->by_self++;
		else
			k->by_other++;
		return;
	}
	k->by_kernel++;
	for (int i = 0; i < 8; i++)
		if (!strcmp(c, tza_kernel_causes[i])) {
			k->kcause[i]++;
			return;
		}
	k->kcause[7]++;
}

static void *count_all(void *arg)
{
	struct tza_summary_counts *k = arg;
	const struct tza_model *m = k->m;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		if (p->flags & TZA_P_NO_EXIT)
			k->running += !(p->flags & TZA_P_EXIT_LOST); /* lost: m->exit_lost */
		else if (p->signal) {
			k->sig++;
			count_sender(k, p);
		} else if (p->exit_code)
			k->nz++;
		if (p->core_dumped)
			k->core++;
		if (p->signal == 9)
			k->kill9++;
		if (p->flags & TZA_P_PRE_EXISTING)
			k->pre++;
		if (p->flags & TZA_P_SAMPLED)
			k->sampled++;
		k->cpu_ns += tza_proc_cpu_in(p, k->t0, k->t1);
	}
	if (k->want_secrets)
		k->secrets = secret_execs(m);
	return NULL;
}

/* The recording's window into t0..t1: the recorder's start (once its
 * programs were attached) and stop when known, else the events' span; a
 * slice's window (slice_from/to_boottime_ns) narrows it */
static void summary_window(tz_reader *r, const struct tza_model *m, uint64_t *t0p, uint64_t *t1p)
{
	uint64_t t0 = m->t0_ns, t1 = m->t1_ns;
	/* strictly decimal (FORMAT.md section 5), as the model reads them */
	uint64_t w0_ns = 0, w1_ns = 0;
	if (tz_reader_meta_u64(r, "start_boottime_ns", &w0_ns))
		w0_ns = 0;
	if (tz_reader_meta_u64(r, "stop_boottime_ns", &w1_ns))
		w1_ns = 0;
	int rec = w0_ns && w1_ns > w0_ns;
	if (rec) {
		t0 = w0_ns;
		t1 = w1_ns;
	}
	/* a slice: its window, inside the recording's when that is known (the
	 * events' span of a slice is not its window) */
	const char *f0 = meta(r, "slice_from_boottime_ns"), *f1 = meta(r, "slice_to_boottime_ns");
	w0_ns = f0 ? strtoull(f0, NULL, 10) : 0;
	w1_ns = f1 ? strtoull(f1, NULL, 10) : 0;
	if (w0_ns && w1_ns > w0_ns) {
		uint64_t a = rec && t0 > w0_ns ? t0 : w0_ns, z = rec && t1 < w1_ns ? t1 : w1_ns;
		if (z > a) {
			t0 = a;
			t1 = z;
		}
	}
	*t0p = t0;
	*t1p = t1;
}

void tza_summary_free(struct tza_summary *s)
{
	free(s->g);
	tza_profile_free(s->pr);
	tza_crit_free(&s->cr);
	tza_unload(s->r, s->m);
}

/* The derived figures: CPU utilisation, list lengths, wall clock, drops */
static void summary_derive(struct tza_summary *s, uint64_t limit)
{
	const struct tza_model *m = s->m;
	/* whose machine: in follow and -p mode the recorded processes' CPU
	 * (each inside the window: samples where kept, else its total spread
	 * over its life), with the host's beside it; in whole-machine mode the
	 * host's busy time (host samples) when the trace has them */
	s->cpu_used = s->cnt.cpu_ns;
	s->host_util = tza_host_busy(m, s->t0, s->t1);
	const char *mode = meta(s->r, "mode");
	s->by_host = s->host_util >= 0 && mode && !strcmp(mode, "system");
	s->procs_util =
	    s->duration && s->mi.ncpus ? s->cpu_used / ((double)s->duration * s->mi.ncpus) : 0;
	s->util = s->by_host ? s->host_util : s->procs_util;
	s->drops_total = tza_drops_lost(m->drops);
	s->nshow = limit && limit < s->ng ? (uint32_t)limit : s->ng; /* 0: all */
	s->nc = limit && limit < s->cr.ntools ? (uint32_t)limit : s->cr.ntools;
	s->ws = m->nevents ? wall(s->r, s->t0, s->w0, sizeof(s->w0)) : NULL;
	s->we = m->nevents ? wall(s->r, s->t1, s->w1, sizeof(s->w1)) : NULL;
	/* recorders before 0.2.0 always recorded failed execs and wrote no key */
	const char *xf = meta(s->r, "exec_failures");
	s->xf_recorded = !xf || strcmp(xf, "off");
}

/* Load path and compute s (summary_free frees it); info, when given,
 * receives the reader's facts. Returns TZA_EXIT_OK, else TZA_EXIT_FAIL
 * after saying why (s then holds nothing). */
static int summary_compute(const char *path, enum tza_by by, uint64_t limit, int want_secrets,
			   struct tza_summary *s, struct tz_info *info);

int tza_summary_compute(const char *path, enum tza_by by, uint64_t limit, int want_secrets,
			struct tza_summary *s, struct tz_info *info)
{
	memset(s, 0, sizeof(*s));
	if (tza_load_ex(path, TZA_MB_SAMPLES, &s->r, &s->m) < 0) /* host samples: flags */
		return TZA_EXIT_FAIL;
	return summary_compute(path, by, limit, want_secrets, s, info);
}

int tza_summary_compute_r(const char *name, tz_reader *r, enum tza_by by, uint64_t limit,
			  int want_secrets, struct tza_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->r = r;
	if (tza_load_reader(name, TZA_MB_SAMPLES, &s->r, &s->m) < 0)
		return TZA_EXIT_FAIL;
	return summary_compute(name, by, limit, want_secrets, s, NULL);
}

/* The rest of tza_summary_compute once s->r and s->m are loaded. */
static int summary_compute(const char *path, enum tza_by by, uint64_t limit, int want_secrets,
			   struct tza_summary *s, struct tz_info *info)
{
	s->path = path;
	if (info)
		*info = *tz_reader_info(s->r);
	tza_machine_get(s->r, &s->mi);
	summary_window(s->r, s->m, &s->t0, &s->t1);
	s->duration = s->t1 > s->t0 ? s->t1 - s->t0 : 0;
	s->cnt = (struct tza_summary_counts){
	    .m = s->m, .want_secrets = want_secrets, .t0 = s->t0, .t1 = s->t1};
	pthread_t kth;
	int kbg = tza_evq_useful() && !tr_thread_start(&kth, count_all, &s->cnt);
	/* the window's CPU and the groups' critical processes' windows: one
	 * sweep of the profile answers all */
	s->pr = tza_profile_new(s->m);
	int oom = !s->pr || tza_critpath(s->m, by, &s->cr) < 0 ||
		  tza_groups_ex(s->m, by, &s->cr, &s->mi, s->pr, &s->g, &s->ng) < 0 ||
		  tza_procs_peak_rss(s->m, &s->mem_kib, &s->mem_ns) < 0;
	for (uint32_t i = 0; i < s->m->nprocs; i++)
		s->mem_unknown += tza_proc_rss_known(s->m->procs[i]) ? 0 : 1;
	if (kbg)
		pthread_join(kth, NULL);
	else
		count_all(&s->cnt);
	if (oom) {
		tza_err("out of memory");
		tza_summary_free(s);
		memset(s, 0, sizeof(*s));
		return TZA_EXIT_FAIL;
	}
	s->in = tz_reader_info(s->r);
	summary_derive(s, limit);
	return TZA_EXIT_OK;
}
