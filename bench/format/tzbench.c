/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tzbench.c - .tz writer/reader throughput against raw zstd on the same bytes.
 * Built and run by bench/format/run; prints one table.
 *
 * usage: tzbench [EVENTS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "tests/unit/xorshift.h"
#include "schema.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return xorshift64(&rng); }

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct trace {
	uint8_t *buf; /* raw records back to back, as the ring buffer delivers them */
	size_t len, n;
};

/* mix 0: exec/exit heavy (fork, exec with paths+argv, exit); 1: fixed-size exits only */
static void gen(struct trace *t, size_t n, int mix)
{
	static char exes[64][64];
	for (int i = 0; i < 64; i++)
		snprintf(exes[i], sizeof(exes[i]), "/usr/lib/toolchain/bin/tool-%02d", i);
	t->buf = malloc(n * 400);
	t->len = 0;
	t->n = n;
	uint64_t ts = 1000000000;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = t->buf + t->len;
		uint32_t pid = (uint32_t)(10000 + i / 3);
		int k = mix ? 2 : (int)(i % 3);
		ts += 1000 + rnd() % 20000;
		if (k == 0) {
			struct ev_fork *f = (void *)p;
			memset(f, 0, sizeof(*f));
			f->hdr.type = EV_FORK;
			f->hdr.size = sizeof(*f);
			f->hdr.cpu = (uint16_t)(rnd() & 1);
			f->parent_tgid = pid / 2;
			f->caller_tgid = pid / 2;
			f->caller_pid = pid / 2;
			f->child_tgid = pid;
			f->child_start_ns = ts;
			f->child_ns_pid = pid;
			t->len += sizeof(*f);
		} else if (k == 1) {
			struct ev_exec *e = (void *)p;
			memset(e, 0, sizeof(*e));
			const char *x = exes[rnd() % 64];
			char argv[400];
			int al = snprintf(
			    argv, sizeof(argv),
			    "%s%c-O2%c-c%csrc/module%03u/file%04u.c%c-o%cbuild/obj%04u.o%c", x, 0,
			    0, 0, (unsigned)(rnd() % 200), (unsigned)(rnd() % 5000), 0, 0,
			    (unsigned)(rnd() % 5000), 0);
			size_t xl = strlen(x);
			e->hdr.type = EV_EXEC;
			e->start_ns = ts - 5000;
			e->cgroup_id = 4242;
			e->tgid = pid;
			e->old_pid = pid;
			e->ppid = pid / 2;
			e->ns_pid = pid;
			e->uid = e->euid = e->gid = e->egid = 1000;
			e->argc = 6;
			e->argv_size = e->argv_len = (uint32_t)al;
			e->filename_len = e->exe_len = (uint16_t)xl;
			strcpy(e->comm, "tool");
			uint8_t *tail = (uint8_t *)(e + 1);
			memcpy(tail, x, xl);
			memcpy(tail + xl, x, xl);
			memcpy(tail + 2 * xl, argv, (size_t)al);
			e->hdr.size = (uint32_t)(sizeof(*e) + 2 * xl + (size_t)al);
			t->len += e->hdr.size;
		} else {
			struct ev_exit *e = (void *)p;
			memset(e, 0, sizeof(*e));
			e->hdr.type = EV_EXIT;
			e->hdr.size = sizeof(*e);
			e->start_ns = ts - 100000;
			e->utime_ns = rnd() % 1000000000;
			e->stime_ns = rnd() % 100000000;
			e->maxrss_kib = 1000 + rnd() % 500000;
			e->rchar = rnd() % 10000000;
			e->wchar = rnd() % 1000000;
			e->syscr = rnd() % 10000;
			e->syscw = rnd() % 1000;
			e->nvcsw = rnd() % 1000;
			e->nivcsw = rnd() % 100;
			e->min_flt = rnd() % 100000;
			e->tgid = e->pid = pid;
			e->ppid = pid / 2;
			e->threads = 1;
			strcpy(e->comm, "tool");
			t->len += sizeof(*e);
		}
		((struct ev_hdr *)p)->ts_ns = ts;
	}
}

struct wres {
	double secs;
	size_t out;
};

static struct wres write_trace(const struct trace *t, int level, int threads, void **file)
{
	struct tz_writer_opts o = {.level = level, .threads = threads, .flags = TZ_W_NO_FSYNC};
	tz_writer *w;
	struct wres r;
	double t0 = now();
	if (tz_writer_open_mem(&w, &o) || tracer_schema_register(w))
		exit(1);
	for (size_t off = 0; off < t->len;) {
		const struct ev_hdr *h = (const void *)(t->buf + off);
		if (tracer_event_write(w, h, h->size))
			exit(1);
		off += h->size;
	}
	void *buf;
	size_t len;
	if (tz_writer_mem_take(w, &buf, &len))
		exit(1);
	r.secs = now() - t0;
	r.out = len;
	if (file)
		*file = buf;
	else
		free(buf);
	return r;
}

static double read_trace(void *buf, size_t len, size_t want)
{
	tz_reader *r;
	const struct tz_event *ev;
	double t0 = now();
	if (tz_reader_open_mem(&r, buf, len, "bench", NULL))
		exit(1);
	size_t n = 0;
	uint64_t sum = 0;
	tz_reader_iter(r, 0, UINT64_MAX, 0);
	while (tz_reader_next(r, &ev) == 1) {
		n++;
		sum += ev->ts_ns;
	}
	tz_reader_free(r);
	double s = now() - t0;
	if (n != want) {
		fprintf(stderr, "tzbench: read %zu events, wrote %zu\n", n, want);
		exit(1);
	}
	return s + (double)(sum & 1) * 0;
}

/* raw zstd over the same bytes, 1 MiB at a time (one frame each, like chunks) */
static void raw_zstd(const struct trace *t, int level, double *csecs, double *dsecs, size_t *out)
{
	size_t blk = 1 << 20, cap = ZSTD_compressBound(blk);
	size_t nblk = (t->len + blk - 1) / blk;
	uint8_t *c = malloc(nblk * cap), *d = malloc(blk);
	size_t *cl = malloc(nblk * sizeof(*cl));
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	double t0 = now();
	*out = 0;
	for (size_t i = 0; i < nblk; i++) {
		size_t l = t->len - i * blk < blk ? t->len - i * blk : blk;
		cl[i] = ZSTD_compressCCtx(cc, c + i * cap, cap, t->buf + i * blk, l, level);
		*out += cl[i];
	}
	*csecs = now() - t0;
	t0 = now();
	for (size_t i = 0; i < nblk; i++)
		ZSTD_decompressDCtx(dc, d, blk, c + i * cap, cl[i]);
	*dsecs = now() - t0;
	ZSTD_freeCCtx(cc);
	ZSTD_freeDCtx(dc);
	free(c);
	free(d);
	free(cl);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	struct trace t, tf;
	gen(&t, n, 0);
	gen(&tf, n, 1);
	double mb = (double)t.len / 1e6;
	/* best of 3 for every figure: the machine may be busy with other work */
	double zc1 = 1e9, zd1 = 1e9, zc3 = 1e9, zd3 = 1e9, rd1 = 1e9, rd3 = 1e9, a, b;
	size_t zo1, zo3;
	struct wres w1 = {1e9, 0}, w3 = {1e9, 0}, wt = {1e9, 0}, wf = {1e9, 0}, x;
	for (int rep = 0; rep < 3; rep++) {
		void *file;
		raw_zstd(&t, 1, &a, &b, &zo1);
		zc1 = a < zc1 ? a : zc1;
		zd1 = b < zd1 ? b : zd1;
		raw_zstd(&t, 3, &a, &b, &zo3);
		zc3 = a < zc3 ? a : zc3;
		zd3 = b < zd3 ? b : zd3;
		x = write_trace(&t, 1, 0, &file);
		w1 = x.secs < w1.secs ? x : w1;
		a = read_trace(file, x.out, n);
		rd1 = a < rd1 ? a : rd1;
		free(file);
		x = write_trace(&t, 3, 0, &file);
		w3 = x.secs < w3.secs ? x : w3;
		a = read_trace(file, x.out, n);
		rd3 = a < rd3 ? a : rd3;
		free(file);
		x = write_trace(&t, 3, 1, NULL);
		wt = x.secs < wt.secs ? x : wt;
		x = write_trace(&tf, 3, 0, NULL);
		wf = x.secs < wf.secs ? x : wf;
	}

	printf("tzbench: %zu events, %.1f MB of raw records (exec/exit-heavy mix: fork, exec with\n"
	       "paths and argv, exit), one core unless noted, best of 3 runs;\n"
	       "MB = 10^6 bytes of raw records.\n\n",
	       n, mb);
	printf("%-34s %12s %10s %14s\n", "what", "events/s", "MB/s", "vs raw zstd");
	printf("%-34s %12s %10.0f %14s\n", "raw zstd -1 compress (1 MiB frames)", "-", mb / zc1,
	       "1.00");
	printf("%-34s %12.0f %10.0f %13.2fx\n", "tz writer, level 1", (double)n / w1.secs,
	       mb / w1.secs, (mb / w1.secs) / (mb / zc1));
	printf("%-34s %12s %10.0f %14s\n", "raw zstd -3 compress", "-", mb / zc3, "1.00");
	printf("%-34s %12.0f %10.0f %13.2fx\n", "tz writer, level 3 (default)", (double)n / w3.secs,
	       mb / w3.secs, (mb / w3.secs) / (mb / zc3));
	printf("%-34s %12.0f %10.0f %13.2fx\n", "tz writer, level 3, thread=1", (double)n / wt.secs,
	       mb / wt.secs, (mb / wt.secs) / (mb / zc3));
	printf("%-34s %12s %10.0f %14s\n", "raw zstd -1 decompress", "-", mb / zd1, "1.00");
	printf("%-34s %12.0f %10.0f %13.2fx\n", "tz reader, full decode (level 1)", (double)n / rd1,
	       mb / rd1, (mb / rd1) / (mb / zd1));
	printf("%-34s %12.0f %10.0f %13.2fx\n", "tz reader, full decode (level 3)", (double)n / rd3,
	       mb / rd3, (mb / rd3) / (mb / zd3));
	printf("(vs raw zstd: tz MB/s / raw zstd MB/s on the same bytes in this run; the\n"
	       " target is >= 0.50x, i.e. within 2x of raw zstd)\n");
	printf("\n%-34s %10s %10s\n", "bytes per event on disk", "tz", "raw zstd");
	printf("%-34s %10.1f %10.1f\n", "exec/exit-heavy mix, level 1", (double)w1.out / (double)n,
	       (double)zo1 / (double)n);
	printf("%-34s %10.1f %10.1f\n", "exec/exit-heavy mix, level 3", (double)w3.out / (double)n,
	       (double)zo3 / (double)n);
	printf("%-34s %10.1f %10s\n", "fixed-size mix (exit only), lvl 3",
	       (double)wf.out / (double)n, "-");
	printf("%-34s %10.1f\n", "raw record size, exec/exit mix", (double)t.len / (double)n);
	free(t.buf);
	free(tf.buf);
	return 0;
}
