/* SPDX-License-Identifier: BSD-2-Clause */
/* test_reader.c - the reader's recycled decode memory: chunks of very
 * different sizes, restarted iterations and damaged chunks between good ones
 * read exactly what was written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "schema.h"
#include "tz.h"
#include "tz_int.h"
#include "tz_same.h"

/* One event as written, compared bit-exactly with what is read. */
struct wev {
	uint16_t type;
	uint64_t ts;
	uint8_t fixed[256];
	uint32_t fixed_len;
	uint32_t nblobs;
	char blob[4][64];
	uint32_t blen[4];
};

struct wset {
	struct wev *ev;
	size_t n;
};

/* events per chunk, sealed by hand: small after large so that recycled
 * buffers are reused, grown and replaced */
static const size_t chunk_events[] = {40, 700, 3, 1, 2500, 9, 300, 1, 2500, 50, 120, 7, 900, 2};
#define NCHUNK (sizeof(chunk_events) / sizeof(chunk_events[0]))

/* Event i: fork, exit or exec (4 blobs of varying length); i in the fixed part. */
static void gen(struct wev *e, size_t i)
{
	memset(e, 0, sizeof(*e));
	e->ts = 5000000000ull + i * 1000;
	switch (i % 3) {
	case 0: {
		struct ev_fork x;
		memset(&x, 0, sizeof(x));
		x.parent_tgid = (uint32_t)(i / 2);
		x.child_tgid = (uint32_t)i;
		x.child_start_ns = e->ts;
		e->type = EV_FORK;
		e->fixed_len = sizeof(x) - sizeof(struct ev_hdr);
		memcpy(e->fixed, (uint8_t *)&x + sizeof(struct ev_hdr), e->fixed_len);
		break;
	}
	case 1: {
		struct ev_exit x;
		memset(&x, 0, sizeof(x));
		x.start_ns = e->ts - 500;
		x.utime_ns = i * 7;
		x.tgid = (uint32_t)i;
		e->type = EV_EXIT;
		e->fixed_len = sizeof(x) - sizeof(struct ev_hdr);
		memcpy(e->fixed, (uint8_t *)&x + sizeof(struct ev_hdr), e->fixed_len);
		break;
	}
	default: {
		struct ev_exec x;
		memset(&x, 0, sizeof(x));
		x.start_ns = e->ts;
		x.tgid = (uint32_t)i;
		e->type = EV_EXEC;
		e->fixed_len = sizeof(x) - sizeof(struct ev_hdr);
		memcpy(e->fixed, (uint8_t *)&x + sizeof(struct ev_hdr), e->fixed_len);
		e->nblobs = 4;
		/* a few distinct strings per chunk, and some unique ones */
		e->blen[0] = (uint32_t)snprintf(e->blob[0], 64, "/usr/bin/p%zu", i % 7);
		e->blen[1] = (uint32_t)snprintf(e->blob[1], 64, "/usr/bin/p%zu", i % 7);
		e->blen[2] = (uint32_t)(i % 5 ? snprintf(e->blob[2], 64, "/home/u%zu", i % 3) : 0);
		e->blen[3] = (uint32_t)snprintf(e->blob[3], 64, "p%zu%c-n%c%zu", i % 7, 0, 0, i);
		break;
	}
	}
}

/* The fixture: NCHUNK chunks sealed by hand, events in ts order. */
static void *make_file(struct wset *s, size_t *len)
{
	size_t n = 0;
	for (size_t c = 0; c < NCHUNK; c++)
		n += chunk_events[c];
	s->ev = calloc(n, sizeof(*s->ev));
	assert_non_null(s->ev);
	s->n = n;
	struct tz_writer_opts o = {.chunk_bytes = 8u << 20, .flags = TZ_W_NO_FSYNC};
	tz_writer *w;
	assert_int_equal(tz_writer_open_mem(&w, &o), 0);
	assert_int_equal(tracer_schema_register(w), 0);
	size_t i = 0;
	for (size_t c = 0; c < NCHUNK; c++) {
		for (size_t k = 0; k < chunk_events[c]; k++, i++) {
			struct wev *e = &s->ev[i];
			struct tz_blob b[4];
			gen(e, i);
			for (uint32_t j = 0; j < e->nblobs; j++) {
				b[j].data = e->blob[j];
				b[j].len = e->blen[j];
			}
			assert_int_equal(
			    tz_writer_add(w, e->type, e->ts, e->fixed, e->fixed_len, b, e->nblobs),
			    0);
		}
		assert_int_equal(tz_writer_flush(w, 1), 0);
	}
	void *buf;
	assert_int_equal(tz_writer_mem_take(w, &buf, len), 0);
	return buf;
}

static int same(const struct wev *x, const struct tz_event *e)
{
	const void *blob[4] = {x->blob[0], x->blob[1], x->blob[2], x->blob[3]};
	return tz_event_same(e, x->type, x->ts, x->fixed, x->fixed_len, x->nblobs, blob, x->blen);
}

/* The chunk blocks of a file, in file order. */
struct chunks {
	uint64_t off[64], size[64], min_ts[64], max_ts[64], events[64];
	size_t n;
};

static int chunk_cb(void *ctx, const struct tz_block_info *b)
{
	struct chunks *l = ctx;
	if (b->type == TZ_B_CHUNK && l->n < 64) {
		l->off[l->n] = b->offset;
		l->size[l->n] = b->size;
		l->min_ts[l->n] = b->min_ts_ns;
		l->max_ts[l->n] = b->max_ts_ns;
		l->events[l->n] = b->events;
		l->n++;
	}
	return 0;
}

static void list_chunks(const void *buf, size_t len, struct chunks *l)
{
	tz_reader *r;
	memset(l, 0, sizeof(*l));
	assert_int_equal(tz_reader_open_mem(&r, buf, len, "list", NULL), 0);
	assert_int_equal(tz_reader_verify(r, chunk_cb, l), 0);
	tz_reader_free(r);
}

/*
 * Iterate [from, to] (flags TZ_IT_*) and assert the events read are exactly
 * s's events inside the window whose ts is not in a skipped range
 * [skip_lo[k], skip_hi[k]], in order. Returns the events read.
 */
static size_t expect(tz_reader *r, const struct wset *s, uint64_t from, uint64_t to,
		     const uint64_t *skip_lo, const uint64_t *skip_hi, size_t nskip)
{
	const struct tz_event *e;
	size_t i = 0, got = 0;
	int rc;
	assert_int_equal(tz_reader_iter(r, from, to, 0), 0);
	while ((rc = tz_reader_next(r, &e)) == 1) {
		for (;;) {
			assert_true(i < s->n);
			int skip = s->ev[i].ts < from || s->ev[i].ts > to;
			for (size_t k = 0; k < nskip; k++)
				if (s->ev[i].ts >= skip_lo[k] && s->ev[i].ts <= skip_hi[k])
					skip = 1;
			if (!skip)
				break;
			i++;
		}
		if (!same(&s->ev[i], e))
			fail_msg("event %zu differs (ts %llu vs %llu)", i,
				 (unsigned long long)s->ev[i].ts, (unsigned long long)e->ts_ns);
		i++;
		got++;
	}
	assert_int_equal(rc, 0);
	return got;
}

/* Rewrite the header of the chunk at off with ext fields changed by fn. */
static void patch_ext(uint8_t *buf, uint64_t off, void (*fn)(struct tz_chunk_ext *x))
{
	struct tz_bhdr h;
	struct tz_chunk_ext x;
	uint8_t ext[TZ_CHUNK_EXT];
	assert_int_equal(tz_bhdr_decode(buf + off, TZ_BHDR_MIN + TZ_CHUNK_EXT, &h), 0);
	assert_int_equal(h.ext_len, TZ_CHUNK_EXT);
	tz_chunk_ext_decode(h.ext, &x);
	fn(&x);
	tz_chunk_ext_encode(ext, &x);
	tz_bhdr_encode(buf + off, &h, ext);
}

static void max_ts_early(struct tz_chunk_ext *x) { x->max_ts--; }
static void events_short(struct tz_chunk_ext *x) { x->events = 1; }
static void events_long(struct tz_chunk_ext *x) { x->events += 3; }

/*
 * Replace the chunk at off (size bytes) of buf[0..*len) by the same chunk
 * with its uncompressed payload cut by cut bytes (a valid frame, checksums
 * right, the last event encoding broken). Returns the new file.
 */
static uint8_t *cut_payload(const uint8_t *buf, size_t *len, uint64_t off, uint64_t size,
			    uint32_t cut)
{
	struct tz_bhdr h;
	assert_int_equal(tz_bhdr_decode(buf + off, size, &h), 0);
	assert_true(h.flags & TZ_BF_ZSTD);
	uint8_t *raw = malloc(h.raw_len);
	size_t n = ZSTD_decompress(raw, h.raw_len, buf + off + tz_bhdr_size(&h), h.payload_len);
	assert_int_equal(n, h.raw_len);
	assert_true(cut < h.raw_len);
	h.raw_len -= cut;
	size_t bound = ZSTD_compressBound(h.raw_len);
	uint8_t *z = malloc(bound);
	size_t zl = ZSTD_compress(z, bound, raw, h.raw_len, 3);
	assert_false(ZSTD_isError(zl));
	h.payload_len = (uint32_t)zl;
	h.payload_csum = tz_hash(z, zl);
	uint8_t ext[TZ_CHUNK_EXT];
	memcpy(ext, h.ext, TZ_CHUNK_EXT);
	size_t nlen = *len - size + tz_bhdr_size(&h) + zl;
	uint8_t *out = malloc(nlen);
	memcpy(out, buf, off);
	tz_bhdr_encode(out + off, &h, ext);
	memcpy(out + off + tz_bhdr_size(&h), z, zl);
	memcpy(out + off + tz_bhdr_size(&h) + zl, buf + off + size, *len - off - size);
	*len = nlen;
	free(raw);
	free(z);
	return out;
}

/* The file every test starts from (make_file) and its chunks, written by
 * wfile_setup and freed by wfile_teardown: the cmocka state of each test. */
struct wfile {
	struct wset s;
	size_t len;
	uint8_t *buf;
	struct chunks l;
};

static int wfile_setup(void **st)
{
	struct wfile *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	*st = w;
	w->buf = make_file(&w->s, &w->len);
	list_chunks(w->buf, w->len, &w->l);
	return 0;
}

static int wfile_teardown(void **st)
{
	struct wfile *w = *st;
	free(w->buf);
	free(w->s.ev);
	free(w);
	return 0;
}

/* ---------------------------------------------------------------- tests */

/* A good file read twice, restarted half way, and through windows. */
static void t_restart(void **st)
{
	struct wfile *w = *st;
	assert_int_equal(w->l.n, NCHUNK);
	for (size_t c = 0; c < NCHUNK; c++)
		assert_int_equal(w->l.events[c], chunk_events[c]);
	for (int scan = 0; scan < 2; scan++) {
		struct tz_reader_opts ro = {.flags = scan ? TZ_R_SCAN : 0};
		tz_reader *r;
		assert_int_equal(tz_reader_open_mem(&r, w->buf, w->len, "rs", &ro), 0);
		assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, NULL, NULL, 0), w->s.n);
		assert_int_equal(tz_reader_chunks_decoded(r), NCHUNK);
		assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, NULL, NULL, 0), w->s.n);
		assert_int_equal(tz_reader_chunks_decoded(r), 2 * NCHUNK);
		/* restart in the middle of the large chunk, then read all */
		const struct tz_event *e;
		assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, 0), 0);
		for (size_t i = 0; i < 1000; i++) {
			assert_int_equal(tz_reader_next(r, &e), 1);
			assert_true(same(&w->s.ev[i], e));
		}
		assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, NULL, NULL, 0), w->s.n);
		/* a window inside chunk 6: 10 of its 300 events kept */
		uint64_t from = w->s.ev[3300].ts, to = w->s.ev[3309].ts;
		assert_int_equal(expect(r, &w->s, from, to, NULL, NULL, 0), 10);
		/* a window over chunks 4..9 after the small one */
		from = w->l.min_ts[4] + 1000;
		to = w->l.max_ts[9] - 1000;
		assert_int_equal(expect(r, &w->s, from, to, NULL, NULL, 0), (to - from) / 1000 + 1);
		assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, NULL, NULL, 0), w->s.n);
		assert_int_equal(tz_reader_info(r)->corrupt_blocks, 0);
		tz_reader_free(r);
	}
}

/*
 * Damaged chunks between good ones, each failing at a different stage of the
 * decode (payload checksum, event time range after most events, event count
 * too small for the buffers and too large, a cut event encoding): skipped
 * and counted once; every other event read exactly, twice.
 */
static void t_damaged_between(void **st)
{
	struct wfile *w = *st;
	assert_int_equal(w->l.n, NCHUNK);
	/* chunk 4 and 8 hold 2500 events, 5 and 9 follow them */
	static const size_t bad[] = {1, 4, 6, 8, 12};
	uint64_t lo[5], hi[5];
	size_t lost = 0;
	for (size_t k = 0; k < 5; k++) {
		lo[k] = w->l.min_ts[bad[k]];
		hi[k] = w->l.max_ts[bad[k]];
		lost += chunk_events[bad[k]];
	}
	w->buf[w->l.off[1] + w->l.size[1] - 5] ^= 0x10; /* payload checksum */
	patch_ext(w->buf, w->l.off[4], max_ts_early);
	patch_ext(w->buf, w->l.off[6], events_short);
	patch_ext(w->buf, w->l.off[8], events_long);
	/* last: it changes the size of the block, offsets above stay valid */
	uint8_t *f = cut_payload(w->buf, &w->len, w->l.off[12], w->l.size[12], 1);
	/* the index no longer matches: read by scanning */
	struct tz_reader_opts ro = {.flags = TZ_R_SCAN};
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, f, w->len, "bad", &ro), 0);
	assert_int_equal(tz_reader_info(r)->chunks, NCHUNK);
	assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, lo, hi, 5), w->s.n - lost);
	assert_int_equal(tz_reader_info(r)->corrupt_blocks, 5);
	assert_int_equal(tz_reader_chunks_decoded(r), NCHUNK - 1); /* checksum: not decoded */
	/* again: the damaged ones are known and not decoded again */
	assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, lo, hi, 5), w->s.n - lost);
	assert_int_equal(tz_reader_info(r)->corrupt_blocks, 5);
	assert_int_equal(tz_reader_chunks_decoded(r), 2 * (NCHUNK - 1) - 4);
	tz_reader_free(r);
	/* a fresh reader meets them in a window starting in chunk 5 */
	assert_int_equal(tz_reader_open_mem(&r, f, w->len, "bad", &ro), 0);
	uint64_t from = w->l.min_ts[5], to = UINT64_MAX;
	size_t want = 0;
	for (size_t c = 5; c < NCHUNK; c++)
		if (c != 6 && c != 8 && c != 12)
			want += chunk_events[c];
	assert_int_equal(expect(r, &w->s, from, to, lo, hi, 5), want);
	assert_int_equal(tz_reader_info(r)->corrupt_blocks, 3);
	tz_reader_free(r);
	free(f);
}

/*
 * A chunk replayed with its seq (inserted right after itself, footer dropped
 * so the file is read by scan):
 * read once, counted as one damaged duplicate, named by verify. A chunk whose
 * payload_len was inflated (header checksum fixed) over the next chunk: the
 * inflated one is damage, the next one is read.
 */
static void t_duplicate(void **st)
{
	struct wfile *w = *st;
	/* the index block starts where the last chunk ends (no state blocks) */
	size_t body = (size_t)(w->l.off[NCHUNK - 1] + w->l.size[NCHUNK - 1]);
	size_t c = 2, dl = (size_t)w->l.size[c];
	uint8_t *d = malloc(body + dl);
	assert_non_null(d);
	memcpy(d, w->buf, (size_t)(w->l.off[c] + dl));
	memcpy(d + w->l.off[c] + dl, w->buf + w->l.off[c], body - (size_t)w->l.off[c]);
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, d, body + dl, "dup", NULL), 0);
	const struct tz_info *in = tz_reader_info(r);
	assert_int_equal(in->duplicate_blocks, 1);
	assert_int_equal(in->corrupt_blocks, 1);
	assert_int_equal(in->chunks, NCHUNK);
	assert_int_equal(in->events, w->s.n);
	assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, NULL, NULL, 0), w->s.n);
	assert_int_equal(tz_reader_verify(r, NULL, NULL), 1);
	assert_non_null(strstr(tz_reader_errmsg(r), "same seq"));
	tz_reader_free(r);

	/* inflate chunk 2 by the size of chunk 3: chunk 3 is still read */
	memcpy(d, w->buf, body);
	struct tz_bhdr h;
	assert_int_equal(tz_bhdr_decode(d + w->l.off[c], body - w->l.off[c], &h), 0);
	uint8_t ext[TZ_CHUNK_EXT];
	memcpy(ext, h.ext, sizeof(ext));
	h.payload_len += (uint32_t)w->l.size[c + 1];
	tz_bhdr_encode(d + w->l.off[c], &h, ext);
	assert_int_equal(tz_reader_open_mem(&r, d, body, "inflated", NULL), 0);
	in = tz_reader_info(r);
	assert_int_equal(in->corrupt_blocks, 1);
	assert_int_equal(in->chunks, NCHUNK - 1);
	assert_int_equal(in->events, w->s.n - chunk_events[c]);
	uint64_t lo[1] = {w->l.min_ts[c]}, hi[1] = {w->l.max_ts[c]};
	assert_int_equal(expect(r, &w->s, 0, UINT64_MAX, lo, hi, 1), w->s.n - chunk_events[c]);
	assert_int_equal(tz_reader_verify(r, NULL, NULL), 1);
	tz_reader_free(r);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(t_restart, wfile_setup, wfile_teardown),
	    cmocka_unit_test_setup_teardown(t_damaged_between, wfile_setup, wfile_teardown),
	    cmocka_unit_test_setup_teardown(t_duplicate, wfile_setup, wfile_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
