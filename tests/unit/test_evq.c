/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_evq.c - the reader on its own thread (analyze/evq.c): the events it
 * hands over are the reader's, byte for byte and in the same order, whatever
 * the batch size (events bigger than a batch, a batch per event); a consumer
 * that stops early gets its reader back; and the model built with it equals
 * the model built on one thread, and with every field read through the
 * schema; and the thread takes none of the process's signals (a handler
 * that removes files must run on the thread that makes them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <time.h>

#include <cmocka.h>

#include "helper.h"
#include <xxhash.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the shared scenarios */
#include "analyze_synth.h"
#pragma GCC diagnostic pop
#include "analyze/arena.h"
#include "analyze/evq.h"
#include "analyze/model.h"
#include "analyze/report.h"

/* Many processes with argv from 2 to ~8000 bytes, pid reuse, a failed exec:
 * several hundred KiB of events in 4 KiB chunks. */
static void scen_many(struct synth *s)
{
	static char argv[8200];
	struct exit_vals v = {0};
	s_fork(s, T0, 1, 10);
	s_exec(s, T0 + 1, 10, T0, 1, "/usr/bin/bash", NULL, "bash|run.sh", "bash");
	for (uint32_t i = 0; i < 600; i++) {
		size_t n = (i * 977) % 8000;
		size_t k = (size_t)snprintf(argv, sizeof(argv), "tool%u|", i % 7);
		for (; k < n; k++)
			argv[k] = (char)('a' + (i + k) % 26);
		argv[k] = 0;
		v.utime = 1000 * (uint64_t)i;
		v.stime = 300 * (uint64_t)i;
		v.rss_kib = 4096 + i;
		v.rchar = 7 * (uint64_t)i;
		v.wchar = 11 * (uint64_t)i;
		v.read_bytes = 4096 * (uint64_t)(i % 5);
		v.write_bytes = 8192 * (uint64_t)(i % 3);
		v.threads = 1 + i % 4;
		v.code = i % 9 == 0 ? 1 : 0;
		v.sig = i % 13 == 0 ? 9 : 0;
		v.core = i % 26 == 0;
		s_proc(s, 10, 100 + i % 250, T0 + (uint64_t)i * MS, T0 + (uint64_t)i * MS + MS / 2,
		       "/usr/bin/tool", argv, "tool", v);
		if (i % 50 == 0)
			s_exec_fail(s, T0 + (uint64_t)i * MS + 10, 10, 2, "/nonexistent");
	}
	s_exit(s, T0 + 700 * MS, 10, T0, 1, "bash", v);
}

/* One line per event: every field a consumer can see, blob bytes hashed */
static char *digest(const struct tz_event *ev)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	fprintf(f, "%u %s %u %llu %u %llx %u %llu", ev->type_id, ev->type ? ev->type->name : "-", ev->flags,
		(unsigned long long)ev->ts_ns, ev->fixed_len,
		(unsigned long long)XXH3_64bits(ev->fixed, ev->fixed_len), ev->nblobs,
		(unsigned long long)ev->chunk_seq);
	for (uint32_t i = 0; i < ev->nblobs; i++)
		fprintf(f, " %d:%u:%llx", ev->blobs[i].data != NULL, ev->blobs[i].len,
			(unsigned long long)(ev->blobs[i].data
						     ? XXH3_64bits(ev->blobs[i].data, ev->blobs[i].len)
						     : 0));
	fclose(f);
	return out;
}

struct trace {
	void *buf;
	size_t len;
	char **ev; /* digests of the reader's own events */
	size_t n;
};

static void trace_make(struct trace *t)
{
	struct synth s = {0};
	scen_many(&s);
	memset(t, 0, sizeof(*t));
	t->buf = synth_file(&s, NULL, &t->len);
	assert_non_null(t->buf);
	synth_free(&s);
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, t->buf, t->len, "many.tz", NULL), 0);
	assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
	const struct tz_event *ev;
	size_t cap = 0;
	int rc;
	while ((rc = tz_reader_next(r, &ev)) > 0) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 1024;
			t->ev = realloc(t->ev, cap * sizeof(*t->ev));
		}
		t->ev[t->n++] = digest(ev);
	}
	assert_int_equal(rc, 0);
	tz_reader_free(r);
	/* 2 + 600 * 3 + 12 failed execs: the scenario's events, all read */
	assert_int_equal(t->n, 2 + 600 * 3 + 12 + 1);
}

static void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->ev[i]);
	free(t->ev);
	free(t->buf);
}

static void test_same_events(void **st)
{
	(void)st;
	struct trace t;
	trace_make(&t);
	/* 1 MiB (all in one batch), 4 KiB (argv outgrow it), 1 byte (a batch
	 * per event, each one grown); blobs copied, then interned */
	const size_t sizes[] = {1u << 20, 4096, 1};
	for (int intern = 0; intern < 2; intern++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			tz_reader *r;
			struct tza_evq *q;
			struct tza_arena a = {0};
			struct tza_strcache c = {0};
			struct tza_evq_opts o = {.batch_bytes = sizes[k]};
			if (intern) {
				o.intern = &a;
				o.cache = &c;
			}
			assert_int_equal(tz_reader_open_mem(&r, t.buf, t.len, "many.tz", NULL), 0);
			assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
			assert_int_equal(tza_evq_start_ex(r, &o, &q), 0);
			const struct tz_event *ev;
			const void *tool = NULL; /* the first exe blob "/usr/bin/tool" */
			size_t i = 0, same = 0;
			uint64_t chunks = 0; /* the progress shown: never going back */
			int rc;
			while ((rc = tza_evq_next(q, &ev)) > 0) {
				assert_true(i < t.n);
				assert_true(tza_evq_chunks(q) >= chunks && tza_evq_chunks(q) > 0);
				chunks = tza_evq_chunks(q);
				char *d = digest(ev);
				assert_string_equal(d, t.ev[i]);
				free(d);
				for (uint32_t j = 0; intern && j < ev->nblobs; j++)
					if (ev->blobs[j].data) /* NUL after the interned bytes */
						assert_int_equal(((const char *)ev->blobs[j].data)[ev->blobs[j].len], 0);
				if (ev->type_id == EV_EXEC && ev->nblobs > 1 && ev->blobs[1].len == 13 &&
				    !memcmp(ev->blobs[1].data, "/usr/bin/tool", 13)) {
					if (!tool)
						tool = ev->blobs[1].data;
					else if (ev->blobs[1].data == tool)
						same++;
				}
				i++;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(i, t.n);
			assert_int_equal(tza_evq_next(q, &ev), 0); /* the end stays the end */
			chunks = tza_evq_chunks(q);
			tza_evq_free(q);
			assert_int_equal(chunks, tz_reader_chunks_decoded(r)); /* all of them */
			tz_reader_free(r);
			if (intern) /* 600 execs of /usr/bin/tool: one copy */
				assert_int_equal(same, 599);
			tza_strcache_free(&c);
			tza_arena_free(&a);
		}
	}
	struct tza_evq *q;
	assert_int_equal(tza_evq_start_ex(NULL, &(struct tza_evq_opts){.intern = (struct tza_arena *)&t}, &q),
			 TZ_ERR_INVAL); /* an arena without its cache */
	trace_free(&t);
}

/* The consumer gives up after a few events, with the thread blocked on full
 * batches or still reading: free returns (the runner's time bound catches a
 * hang) and the reader can be iterated again from the start. */
static void count_idle(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

static void test_early_free(void **st)
{
	(void)st;
	int idles = 0;
	struct trace t;
	trace_make(&t);
	for (size_t stop = 0; stop < 40; stop += 13) {
		tz_reader *r;
		struct tza_evq *q;
		const struct tz_event *ev;
		assert_int_equal(tz_reader_open_mem(&r, t.buf, t.len, "many.tz", NULL), 0);
		assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
		assert_int_equal(tza_evq_start_ex(r, &(struct tza_evq_opts){.batch_bytes = 512, .idle = count_idle, .idle_arg = &idles}, &q), 0);
		if (!stop) { /* nobody takes: the thread fills every batch, then idles */
			for (int w = 0; w < 10000 && !__atomic_load_n(&idles, __ATOMIC_SEQ_CST); w++)
				nanosleep(&(struct timespec){0, 1000000}, NULL);
			assert_true(__atomic_load_n(&idles, __ATOMIC_SEQ_CST) >= 1);
		}
		for (size_t i = 0; i < stop; i++)
			assert_int_equal(tza_evq_next(q, &ev), 1);
		tza_evq_free(q);
		assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
		assert_int_equal(tz_reader_next(r, &ev), 1);
		char *d = digest(ev);
		assert_string_equal(d, t.ev[0]);
		free(d);
		tz_reader_free(r);
	}
	tza_evq_free(NULL);
	trace_free(&t);
}

/* Run on the reader's thread (idle: every batch full): its own signal mask.
 * 1 + 2 * blocks SIGINT and SIGTERM + 4 * does not block SIGSEGV. */
static void mask_idle(void *arg)
{
	sigset_t cur;
	int seen = 1;
	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0)
		seen |= (sigismember(&cur, SIGINT) && sigismember(&cur, SIGTERM) ? 2 : 0) |
			(!sigismember(&cur, SIGSEGV) ? 4 : 0);
	__atomic_store_n((int *)arg, seen, __ATOMIC_SEQ_CST);
}

/* The caller blocks nothing; the reader's thread blocks what a kill(1) or
 * a ^C sends, so the caller's handlers run on the caller's thread. */
static void test_thread_signals(void **st)
{
	(void)st;
	int seen = 0;
	struct trace t;
	trace_make(&t);
	sigset_t none, old;
	sigemptyset(&none);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &none, &old), 0);
	tz_reader *r;
	struct tza_evq *q;
	assert_int_equal(tz_reader_open_mem(&r, t.buf, t.len, "many.tz", NULL), 0);
	assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
	assert_int_equal(tza_evq_start_ex(r, &(struct tza_evq_opts){.batch_bytes = 512, .idle = mask_idle, .idle_arg = &seen}, &q), 0);
	for (int w = 0; w < 10000 && !__atomic_load_n(&seen, __ATOMIC_SEQ_CST); w++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	tza_evq_free(q);
	tz_reader_free(r);
	sigset_t cur;
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &old, &cur), 0);
	assert_false(sigismember(&cur, SIGTERM)); /* the caller's mask is its own */
	assert_int_equal(__atomic_load_n(&seen, __ATOMIC_SEQ_CST), 1 | 2 | 4);
	trace_free(&t);
}

static char *model_dump(const struct tza_model *m)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	fprintf(f, "%u %u %llu %llu %llu %llu\n", m->nprocs, m->nroots,
		(unsigned long long)m->nevents, (unsigned long long)m->t0_ns,
		(unsigned long long)m->t1_ns, (unsigned long long)m->nfailed_execs);
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		const struct tza_exec *x = tza_proc_image(p);
		char i1[TZA_ID_MAX], i2[TZA_ID_MAX];
		fprintf(f, "%s %s %u %u %llu %llu %llu %u %s %llx", tza_proc_id(p, i1),
			p->parent ? tza_proc_id(p->parent, i2) : "-", p->nchildren, p->nexecs,
			(unsigned long long)p->end_ns, (unsigned long long)tza_proc_cpu(p),
			(unsigned long long)p->rchar, p->flags, x ? x->ctx->exe : "-",
			(unsigned long long)(x ? XXH3_64bits(x->argv, x->argv_len) : 0));
		/* every exit total */
		fprintf(f, " %u %d %d %d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %u %u %.16s\n",
			p->status, p->exit_code, p->signal, p->core_dumped,
			(unsigned long long)p->utime_ns, (unsigned long long)p->stime_ns,
			(unsigned long long)p->maxrss_kib, (unsigned long long)p->wchar,
			(unsigned long long)p->syscr, (unsigned long long)p->syscw,
			(unsigned long long)p->read_bytes, (unsigned long long)p->write_bytes,
			(unsigned long long)p->cancelled_write_bytes, (unsigned long long)p->nvcsw,
			(unsigned long long)p->nivcsw, (unsigned long long)p->min_flt,
			(unsigned long long)p->maj_flt, p->threads, p->exit_ppid, p->comm);
	}
	fclose(f);
	return out;
}

static void test_model_same(void **st)
{
	(void)st;
	struct trace t;
	trace_make(&t);
	/* default (a reading thread, the exit layout read in one copy), one
	 * thread, every field through the schema */
	const uint32_t how[3] = {0, TZA_MB_SERIAL, TZA_MB_SERIAL | TZA_MB_GENERIC};
	char *d[3];
	for (int k = 0; k < 3; k++) {
		tz_reader *r;
		struct tza_model *m;
		assert_int_equal(tz_reader_open_mem(&r, t.buf, t.len, "many.tz", NULL), 0);
		assert_int_equal(tza_model_build_ex(r, 0, UINT64_MAX, how[k], &m), 0);
		assert_int_equal(m->nprocs, 1 + 600);
		assert_int_equal(m->nevents, t.n);
		d[k] = model_dump(m);
		tza_model_free(m);
		tz_reader_free(r);
	}
	assert_string_equal(d[0], d[1]);
	assert_string_equal(d[0], d[2]);
	/* the values are the scenario's: process 13 of the loop (i = 13) */
	assert_non_null(strstr(d[0], " 9 -1 9 0 13000 3900 4109 143 "));
	free(d[0]);
	free(d[1]);
	free(d[2]);
	trace_free(&t);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_same_events), cmocka_unit_test(test_early_free),
	  cmocka_unit_test(test_thread_signals),
	  cmocka_unit_test(test_model_same))
