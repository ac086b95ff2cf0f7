/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_samples.c - issue 6 in the analyzer: per-process and host samples,
 * OOM kills and killing signals attached to the right processes by the
 * model, on synthetic traces written with the real writer and schema and
 * read back with the real reader; a trace from an older recorder (no such
 * types in its schema) still reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze/model.h"
#include "analyze_synth.h"
#include "synth_model.h"

static void s_sample(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint64_t cpu,
		     uint64_t anon, uint64_t file, uint64_t rb, uint32_t threads)
{
	struct ev_sample e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_SAMPLE, 0, ts};
	e.start_ns = start;
	e.utime_ns = cpu;
	e.stime_ns = cpu / 10;
	e.rss_anon_kib = anon;
	e.rss_file_kib = file;
	e.rss_shmem_kib = 4;
	e.rchar = rb * 2;
	e.wchar = 7;
	e.read_bytes = rb;
	e.write_bytes = 3;
	e.tgid = tgid;
	e.threads = threads;
	synth_push(s, &e, sizeof(e));
}

/* a host sample at ts: busy and idle CPU ns since boot, used of 1000000 KiB */
static void host(struct synth *s, uint64_t ts, uint64_t busy, uint64_t idle, uint64_t used)
{
	s_host(s, ts, busy, idle, 1000000, used, 1000000 - used, 2, 1500);
}

static void s_oom(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint64_t anon)
{
	struct ev_oom_kill e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_OOM_KILL, 0, ts};
	e.start_ns = start;
	e.memcg_id = 4242;
	e.rss_anon_kib = anon;
	e.rss_file_kib = 100;
	e.tgid = e.pid = tgid;
	e.trigger_tgid = e.trigger_pid = tgid;
	strcpy(e.comm, "hog");
	synth_push(s, &e, sizeof(e));
}

static void s_signal(struct synth *s, uint64_t ts, uint32_t target, uint64_t tstart,
		     uint32_t sender, uint64_t sstart, int sig, uint32_t flags, const char *comm)
{
	struct ev_signal e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_SIGNAL, 0, ts};
	e.target_start_ns = tstart;
	e.sender_start_ns = sstart;
	e.target_tgid = e.target_pid = target;
	e.sender_tgid = e.sender_pid = sender;
	e.sig = sig;
	e.flags = flags;
	strncpy(e.sender_comm, comm, sizeof(e.sender_comm) - 1);
	synth_push(s, &e, sizeof(e));
}

/* root 10 (0..10 s) forks 11 (sampled, killed by 12's SIGTERM), 12 (kill),
 * 13 (OOM-killed), 14 (got SIGTERM but exited 3: handled) */
static void scenario(struct synth *s)
{
	struct exit_vals z = {0};
	host(s, T0, 0, 0, 5000);
	s_fork(s, T0, 1, 10);
	s_exec(s, T0 + 1 * MS, 10, T0, 1, "/usr/bin/sh", NULL, "sh|run", "sh");
	s_fork(s, T0 + 10 * MS, 10, 11);
	s_exec(s, T0 + 11 * MS, 11, T0 + 10 * MS, 10, "/usr/bin/work", NULL, "work", "work");
	s_sample(s, T0 + 1 * SEC_NS, 11, T0 + 10 * MS, 900 * MS, 1000, 200, 0, 1);
	host(s, T0 + 1 * SEC_NS, 1 * SEC_NS, 1 * SEC_NS, 9000);
	s_sample(s, T0 + 2 * SEC_NS, 11, T0 + 10 * MS, 1800 * MS, 204800, 200, 4096, 4);
	host(s, T0 + 2 * SEC_NS, 3 * SEC_NS, 1 * SEC_NS, 250000);
	s_sample(s, T0 + 3 * SEC_NS, 11, T0 + 10 * MS, 2700 * MS, 1000, 200, 8192, 4);
	/* a sample of a pid that is not alive (start differs): ignored */
	s_sample(s, T0 + 3 * SEC_NS, 11, T0 + 5 * MS, 1, 1, 1, 1, 1);
	host(s, T0 + 3 * SEC_NS, 3 * SEC_NS + 100 * MS, 3 * SEC_NS - 100 * MS, 6000);
	s_fork(s, T0 + 3500 * MS, 10, 12);
	s_exec(s, T0 + 3510 * MS, 12, T0 + 3500 * MS, 10, "/usr/bin/kill", NULL, "kill|11", "kill");
	s_signal(s, T0 + 3520 * MS, 11, T0 + 10 * MS, 12, T0 + 3500 * MS, 15, EV_SIGNAL_GROUP,
		 "kill");
	s_exit(s, T0 + 3530 * MS, 12, T0 + 3500 * MS, 10, "kill", z);
	s_exit(s, T0 + 3540 * MS, 11, T0 + 10 * MS, 10, "work",
	       (struct exit_vals){.sig = 15, .utime = 2800 * MS, .rss_kib = 206000});
	s_fork(s, T0 + 4 * SEC_NS, 10, 13);
	s_exec(s, T0 + 4001 * MS, 13, T0 + 4 * SEC_NS, 10, "/usr/bin/hog", NULL, "hog", "hog");
	s_oom(s, T0 + 5 * SEC_NS, 13, T0 + 4 * SEC_NS, 65000);
	s_signal(s, T0 + 5 * SEC_NS + 1, 13, T0 + 4 * SEC_NS, 13, T0 + 4 * SEC_NS, 9,
		 EV_SIGNAL_GROUP | EV_SIGNAL_KERNEL, "hog");
	s_exit(s, T0 + 5 * SEC_NS + 2 * MS, 13, T0 + 4 * SEC_NS, 10, "hog",
	       (struct exit_vals){.sig = 9, .rss_kib = 65100});
	s_fork(s, T0 + 6 * SEC_NS, 10, 14);
	s_exec(s, T0 + 6001 * MS, 14, T0 + 6 * SEC_NS, 10, "/usr/bin/trapper", NULL, "trapper",
	       "trapper");
	s_signal(s, T0 + 6500 * MS, 14, T0 + 6 * SEC_NS, 10, T0, 15, EV_SIGNAL_GROUP, "sh");
	s_exit(s, T0 + 6600 * MS, 14, T0 + 6 * SEC_NS, 10, "trapper",
	       (struct exit_vals){.code = 3});
	s_exit(s, T0 + 10 * SEC_NS, 10, T0, 1, "sh", z);
}

static void t_samples_kept(void **st)
{
	struct fx *f = *st;
	scenario(&f->s);
	struct tza_model *m = fx_build(f, TZA_MB_SAMPLES);
	assert_int_equal(m->unknown_events, 0);
	assert_int_equal(m->nsamples, 4); /* the stray one is counted, not attached */
	assert_int_equal(m->nhost_samples, 4);
	assert_int_equal(m->nhost, 4);
	assert_int_equal(m->host_peak_mem_used_kib, 250000);
	assert_int_equal(m->host_peak_mem_ns, T0 + 2 * SEC_NS);
	assert_int_equal(m->host_mem_total_kib, 1000000);
	assert_int_equal(m->host[1].busy_ns, 1 * SEC_NS);
	assert_int_equal(m->host[1].total_ns, 2 * SEC_NS);
	assert_int_equal(m->host[3].ncpus, 2);
	assert_int_equal(m->host[3].load1_milli, 1500);
	struct tza_proc *p = by_pid(m, 11, 0);
	assert_non_null(p);
	assert_int_equal(p->res->nsamples, 3);
	assert_int_equal(p->res->nsamples_seen, 3);
	assert_int_equal(p->res->samples[1].ts_ns, T0 + 2 * SEC_NS);
	assert_int_equal(p->res->samples[1].rss_kib, 204800 + 200 + 4);
	assert_int_equal(p->res->samples[1].utime_ns, 1800 * MS);
	assert_int_equal(p->res->samples[1].stime_ns, 180 * MS);
	assert_int_equal(p->res->samples[1].threads, 4);
	assert_int_equal(p->res->samples[2].read_bytes, 8192);
	assert_int_equal(p->res->samples[2].rchar, 16384);
	assert_int_equal(p->res->samples[2].wchar, 7);
	assert_int_equal(p->res->samples[2].write_bytes, 3);
	assert_int_equal(p->res->peak_sample_rss_kib, 205004);
	assert_int_equal(by_pid(m, 10, 0)->res->nsamples, 0);
}

static void t_samples_not_kept(void **st)
{
	struct fx *f = *st;
	scenario(&f->s);
	struct tza_model *m = fx_build(f, 0);
	struct tza_proc *p = by_pid(m, 11, 0);
	assert_int_equal(p->res->nsamples, 0);
	assert_null(p->res->samples);
	assert_int_equal(p->res->nsamples_seen, 3);
	assert_int_equal(p->res->peak_sample_rss_kib, 205004);
	assert_null(m->host);
	assert_int_equal(m->nhost_samples, 4);
	assert_int_equal(m->host_peak_mem_used_kib, 250000);
}

static void t_oom_and_signals(void **st)
{
	struct fx *f = *st;
	scenario(&f->s);
	struct tza_model *m = fx_build(f, 0);
	assert_int_equal(m->noom_kills, 1);
	/* killed by another recorded process: the sender named */
	struct tza_proc *w = by_pid(m, 11, 0);
	assert_int_equal(w->signal, 15);
	assert_int_equal(w->res->killer_signal, 15);
	assert_int_equal(w->res->killer_pid, 12);
	assert_int_equal(w->res->killer_start_ns, T0 + 3500 * MS);
	assert_string_equal(w->res->killer_comm, "kill");
	assert_int_equal(w->res->killer_kernel, 0);
	assert_int_equal(w->res->kill_ns, T0 + 3520 * MS);
	assert_int_equal(w->res->oom_killed, 0);
	assert_string_equal(tza_signal_cause(w), "kill");
	/* OOM: victim, rss, memcg; killed by the kernel's SIGKILL */
	struct tza_proc *h = by_pid(m, 13, 0);
	assert_int_equal(h->res->oom_killed, 1);
	assert_int_equal(h->res->oom_ns, T0 + 5 * SEC_NS);
	assert_int_equal(h->res->oom_rss_kib, 65100);
	assert_int_equal(h->res->oom_memcg_id, 4242);
	assert_int_equal(h->res->killer_signal, 9);
	assert_int_equal(h->res->killer_kernel, 1);
	assert_string_equal(tza_signal_cause(h), "oom");
	/* a signal that did not end the process names nobody */
	struct tza_proc *t = by_pid(m, 14, 0);
	assert_int_equal(t->exit_code, 3);
	assert_int_equal(t->res->killer_signal, 0);
	assert_null(tza_signal_cause(t));
	assert_int_equal(by_pid(m, 10, 0)->res->killer_signal, 0);
	assert_int_equal(by_pid(m, 12, 0)->res->oom_killed, 0);
}

/* Each signal cause from the si_code and flags the recorder writes: one
 * process per case, killed by its own signal (pid 20 + i, sender itself). */
static void t_signal_causes(void **state)
{
	static const struct {
		int sig, code;
		uint32_t flags;
		const char *cause;
	} c[] = {
	    {13, 0, EV_SIGNAL_NOINFO | EV_SIGNAL_KERNEL, "broken pipe"},
	    {25, 0, EV_SIGNAL_NOINFO | EV_SIGNAL_KERNEL, "file size limit"},
	    {15, 0, EV_SIGNAL_NOINFO | EV_SIGNAL_KERNEL, "kernel"},
	    {24, 0x80, EV_SIGNAL_KERNEL, "cpu time limit"},
	    {11, 1 /* SEGV_MAPERR */, EV_SIGNAL_KERNEL, "fault"},
	    {7, 2 /* BUS_ADRERR */, EV_SIGNAL_KERNEL, "fault"},
	    {31, 1 /* SYS_SECCOMP */, EV_SIGNAL_KERNEL, "seccomp"},
	    {14, 0x80, EV_SIGNAL_KERNEL, "timer"},
	    {2, 0x80, EV_SIGNAL_KERNEL, "kernel"},
	    {15, 0 /* SI_USER */, EV_SIGNAL_GROUP, "kill"},
	    {6, -6 /* SI_TKILL */, 0, "tkill"},
	    {10, -1 /* SI_QUEUE */, 0, "sigqueue"},
	    {10, -2 /* SI_TIMER */, 0, "timer"},
	    {10, -60, 0, "other"},
	};
	const int n = (int)(sizeof(c) / sizeof(c[0]));
	struct fx *f = *state;
	struct synth *s = &f->s;
	s_fork(s, T0, 1, 10);
	for (int i = 0; i < n; i++) {
		uint32_t pid = 20 + (uint32_t)i;
		uint64_t st = T0 + (uint64_t)(i + 1) * MS, t = st + 100 * MS;
		struct ev_signal e;
		s_fork(s, st, 10, pid);
		memset(&e, 0, sizeof(e));
		e.hdr = (struct ev_hdr){sizeof(e), EV_SIGNAL, 0, t};
		e.target_start_ns = e.sender_start_ns = st;
		e.target_tgid = e.target_pid = e.sender_tgid = e.sender_pid = pid;
		e.sig = c[i].sig;
		e.code = c[i].code;
		e.flags = c[i].flags;
		synth_push(s, &e, sizeof(e));
		s_exit(s, t + MS, pid, st, 10, "w", (struct exit_vals){.sig = c[i].sig});
	}
	s_exit(s, T0 + SEC_NS, 10, T0, 1, "sh", (struct exit_vals){0});
	struct tza_model *m = fx_build(f, 0);
	for (int i = 0; i < n; i++) {
		struct tza_proc *p = by_pid(m, 20 + (uint32_t)i, 0);
		assert_non_null(p);
		assert_int_equal(p->res->killer_kernel, (c[i].flags & EV_SIGNAL_KERNEL) != 0);
		assert_string_equal(tza_signal_cause(p), c[i].cause);
	}
}

/* A trace whose schema predates issue 6 (types 1..6 only) reads as before. */
static void t_old_schema(void **state)
{
	(void)state;
	tz_writer *w = NULL;
	struct tz_writer_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = TZ_W_NO_FSYNC;
	assert_int_equal(tz_writer_open_mem(&w, &o), 0);
	size_t n;
	const struct tz_event_type *ts = tracer_schema(&n);
	assert_int_equal(n, EV_TYPE_MAX - 1);
	for (size_t i = 0; i < n && ts[i].id <= EV_DROPS; i++)
		assert_int_equal(tz_writer_add_type(w, &ts[i]), 0);
	struct synth s = {0};
	struct exit_vals z = {0};
	s_proc(&s, 1, 50, T0, T0 + SEC_NS, "/usr/bin/true", "true", "true", z);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(tracer_event_write(w, s.v[i].buf, s.v[i].len), 0);
	/* a sample cannot be written without its type */
	struct ev_sample e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_SAMPLE, 0, T0};
	assert_int_equal(tracer_event_write(w, &e, sizeof(e)), TZ_ERR_UNKNOWN_TYPE);
	void *buf = NULL;
	size_t len = 0;
	assert_int_equal(tz_writer_mem_take(w, &buf, &len), 0);
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, buf, len, "old.tz", NULL), 0);
	assert_null(tz_reader_type_by_id(r, EV_SAMPLE));
	struct tza_model *m = NULL;
	assert_int_equal(tza_model_build_ex(r, 0, UINT64_MAX, TZA_MB_SAMPLES, &m), 0);
	assert_int_equal(m->nprocs, 1);
	assert_int_equal(m->nsamples, 0);
	assert_int_equal(m->nhost_samples, 0);
	assert_int_equal(m->procs[0]->res->oom_killed, 0);
	assert_int_equal(m->procs[0]->res->killer_signal, 0);
	tza_model_free(m);
	tz_reader_free(r);
	free(buf);
	synth_free(&s);
}

/* The schema describes the new structs truthfully. */
static void t_schema(void **state)
{
	(void)state;
	size_t n;
	const struct tz_event_type *ts = tracer_schema(&n);
	const struct tz_event_type *smp = NULL, *host = NULL, *oom = NULL, *sig = NULL;
	for (size_t i = 0; i < n; i++) {
		if (ts[i].id == EV_SAMPLE)
			smp = &ts[i];
		if (ts[i].id == EV_HOST_SAMPLE)
			host = &ts[i];
		if (ts[i].id == EV_OOM_KILL)
			oom = &ts[i];
		if (ts[i].id == EV_SIGNAL)
			sig = &ts[i];
	}
	assert_non_null(smp);
	assert_int_equal(smp->fixed_size, sizeof(struct ev_sample) - sizeof(struct ev_hdr));
	assert_int_equal(tz_type_field(smp, "threads")->offset,
			 offsetof(struct ev_sample, threads) - sizeof(struct ev_hdr));
	assert_string_equal(tz_type_field(smp, "rss_anon_kib")->unit, "KiB");
	assert_int_equal(host->fixed_size, sizeof(struct ev_host_sample) - sizeof(struct ev_hdr));
	assert_int_equal(tz_type_field(host, "flags")->offset,
			 offsetof(struct ev_host_sample, flags) - sizeof(struct ev_hdr));
	assert_int_equal(oom->fixed_size, sizeof(struct ev_oom_kill) - sizeof(struct ev_hdr));
	assert_int_equal(tz_type_field(oom, "oom_score_adj")->type, TZ_F_I16);
	assert_int_equal(sig->fixed_size, sizeof(struct ev_signal) - sizeof(struct ev_hdr));
	assert_int_equal(tz_type_field(sig, "sig")->type, TZ_F_I32);
	assert_int_equal(tz_type_field(sig, "sender_comm")->size, EV_COMM_LEN);
	/* the drops type gained its kevent slot at the end */
	const struct tz_event_type *d = NULL;
	for (size_t i = 0; i < n; i++)
		if (ts[i].id == EV_DROPS)
			d = &ts[i];
	assert_int_equal(tz_type_field(d, "kevent")->offset,
			 offsetof(struct ev_drops, count[EV_DROP_KEVENT]) - sizeof(struct ev_hdr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    FX_TEST(t_samples_kept),  FX_TEST(t_samples_not_kept),    FX_TEST(t_oom_and_signals),
	    FX_TEST(t_signal_causes), cmocka_unit_test(t_old_schema), cmocka_unit_test(t_schema),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
