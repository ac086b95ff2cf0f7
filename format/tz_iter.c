/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_iter.c - the reader's chunk decoding, its chunk pool and the merge
 * iteration in time order. */
#include <stdlib.h>

#include "tz_rd.h"

/* ---------------------------------------------------------------- decode */

struct devt {
	uint64_t ts;
	const uint8_t *fixed;
	uint32_t fixed_len;
	uint32_t nblobs;
	uint32_t blob0;
	uint32_t pos;
	uint16_t type;
};

struct dchunk {
	uint8_t *own; /* decompressed payload buffer (kept when stored raw) */
	size_t ocap;  /* bytes in own */
	struct devt *ev;
	size_t cap; /* entries in ev */
	size_t n, cur;
	struct tz_blob *blobs;
	size_t bcap; /* entries in blobs */
	uint64_t seq;
	int state;
	size_t bytes;	     /* memory held: own + ev + blobs, by capacity */
	struct dchunk *next; /* in the reader's pool */
};

/* decoded chunks kept for reuse per reader, and bytes they may hold (a
 * 32 MiB chunk with its arrays fits); string table scratch entries kept
 * between chunks (12 bytes each) */
#define RD_POOL 4
#define RD_POOL_BYTES (64u << 20)
#define RD_SCRATCH_KEEP 65536

static void dchunk_free(struct dchunk *c)
{
	if (!c)
		return;
	free(c->own);
	free(c->ev);
	free(c->blobs);
	free(c);
}

static size_t dchunk_bytes(const struct dchunk *c)
{
	return c->ocap + c->cap * sizeof(*c->ev) + c->bcap * sizeof(*c->blobs);
}

/* Give c (may be NULL) back to r's pool, or free it when the pool is full. */
static void dchunk_put(tz_reader *r, struct dchunk *c)
{
	if (!c)
		return;
	c->bytes = dchunk_bytes(c);
	if (r->npool >= RD_POOL || c->bytes > RD_POOL_BYTES - r->pooled) {
		dchunk_free(c);
		return;
	}
	c->n = c->cur = 0;
	c->next = r->pool;
	r->pool = c;
	r->npool++;
	r->pooled += c->bytes;
}

/* A chunk from r's pool (buffers kept) or a new empty one; NULL when out of
 * memory. */
static struct dchunk *dchunk_get(tz_reader *r)
{
	struct dchunk *c = r->pool;
	if (!c)
		return calloc(1, sizeof(*c));
	r->pool = c->next;
	r->npool--;
	r->pooled -= c->bytes;
	c->next = NULL;
	return c;
}

static void pool_free(tz_reader *r)
{
	while (r->pool) {
		struct dchunk *c = r->pool;
		r->pool = c->next;
		dchunk_free(c);
	}
	r->npool = r->pooled = 0;
}

/*
 * Make *arr (*cap entries of sz bytes) hold at least want entries: reused
 * when it does and is not larger than twice want plus 64 KiB, else replaced
 * without copying (*arr NULL and *cap 0 when that allocation fails). 0 or -1.
 */
static int arr_fit(void **arr, size_t *cap, size_t want, size_t sz)
{
	if (want > SIZE_MAX / 2 / sz - (64u << 10))
		return -1;
	if (*arr && *cap >= want && *cap * sz <= 2 * want * sz + (64u << 10))
		return 0;
	free(*arr);
	*arr = NULL;
	*cap = 0;
	if (!want)
		return 0;
	if (!(*arr = malloc(want * sz)))
		return -1;
	*cap = want;
	return 0;
}

/* Double *arr (contents kept, at least 256 entries); 0 or -1 (*arr and
 * *cap unchanged). */
static int arr_grow(void **arr, size_t *cap, size_t sz)
{
	size_t nc = *cap ? *cap * 2 : 256;
	if (nc > SIZE_MAX / sz)
		return -1;
	void *p = realloc(*arr, nc * sz);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}

/* Free the string table scratch when a chunk made it large. */
static void scratch_trim(tz_reader *r)
{
	if (r->scap <= RD_SCRATCH_KEEP)
		return;
	free(r->sp);
	free(r->sl);
	r->sp = NULL;
	r->sl = NULL;
	r->scap = 0;
}

static int cmp_devt(const void *a, const void *b)
{
	const struct devt *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* A block being decoded: its payload p..end, the cursor q and the events
 * counted so far (npos, before filtering). */
struct dec {
	const struct rd_blk *b;
	struct dchunk *c;
	const uint8_t *p, *q, *end;
	uint64_t nstr;
	size_t npos;
};

/* dec_*(): the payload is not a valid encoding at d->q (message not set;
 * positive: never a tz_err) */
#define DEC_BAD 2

/* Decode the header of block b into h and check it against the index or
 * scan: 0, 1 for a block with unknown flags, or a tz_err (message set). */
static int dec_header(tz_reader *r, const struct rd_blk *b, struct tz_bhdr *h)
{
	const char *what = tz_btype_name(b->type);
	unsigned long long seq = b->seq;
	uint64_t off = b->off;
	CHECK(off < r->len, TZ_ERR_TRUNCATED, off, "%s %llu: beyond the end of the file", what,
	      seq);
	int rc = tz_bhdr_decode(r->data + off, r->len - off, h);
	CHECK(!rc, rc, off, "%s %llu: bad block header: %s", what, seq, tz_strerror(rc));
	CHECK(h->type == b->type && h->seq == b->seq && tz_block_size(h) == b->size &&
		  h->ext_len >= TZ_CHUNK_EXT,
	      TZ_ERR_CORRUPT, off, "%s %llu: block header does not match the index", what, seq);
	if (h->flags & ~TZ_BF_KNOWN)
		return 1; /* a future encoding: skipped, not damage */
	struct tz_chunk_ext hx;
	tz_chunk_ext_decode(h->ext, &hx);
	CHECK(hx.min_ts == b->ext.min_ts && hx.max_ts == b->ext.max_ts &&
		  hx.events == b->ext.events,
	      TZ_ERR_CORRUPT, off, "%s %llu: block header does not match the index", what, seq);
	return 0;
}

/*
 * Read the string table's count and size the chunk's arrays and r's string
 * scratch for a payload of raw_len bytes (a recycled chunk: every buffer's
 * capacity is right whatever the contents a failed decode left).
 * 0, DEC_BAD or TZ_ERR_NOMEM.
 */
static int dec_prepare(tz_reader *r, struct dec *d, uint32_t raw_len)
{
	struct dchunk *c = d->c;
	if (tz_get_varint(&d->q, d->end, &d->nstr) || d->nstr > (uint64_t)(d->end - d->q))
		return DEC_BAD;
	/* an event takes at least 4 payload bytes and a blob reference 1: the
	 * header's count (checked after decoding) is only a capacity hint */
	uint64_t hint = d->b->ext.events < raw_len / 4 ? d->b->ext.events : raw_len / 4;
	void *a = c->ev;
	int rc = arr_fit(&a, &c->cap, (size_t)hint, sizeof(*c->ev)) ? TZ_ERR_NOMEM : 0;
	c->ev = a;
	if (rc)
		return rc;
	if (c->bcap > raw_len + 4096) { /* more than any payload this size refers to */
		free(c->blobs);
		c->blobs = NULL;
		c->bcap = 0;
	}
	if (r->scap < d->nstr) {
		size_t ns = (size_t)d->nstr + (size_t)d->nstr / 8;
		free(r->sp);
		free(r->sl);
		r->scap = 0;
		r->sp = malloc(ns * sizeof(*r->sp));
		r->sl = malloc(ns * sizeof(*r->sl));
		if (!r->sp || !r->sl)
			return TZ_ERR_NOMEM;
		r->scap = ns;
	}
	return 0;
}

/* Read the string table into r's scratch: 0 or DEC_BAD. */
static int dec_strings(tz_reader *r, struct dec *d)
{
	const uint8_t *q = d->q, *end = d->end;
	uint64_t v;
	int rc = 0;
	for (uint64_t i = 0; i < d->nstr; i++) {
		if (tz_get_varint(&q, end, &v) || v > (uint64_t)(end - q)) {
			rc = DEC_BAD;
			break;
		}
		r->sp[i] = q;
		r->sl[i] = (uint32_t)v;
		q += v;
	}
	d->q = q;
	return rc;
}

/* Read nbl blob references at *qp into c->blobs from *nb on: 0, DEC_BAD or
 * TZ_ERR_NOMEM. */
static int dec_blobs(tz_reader *r, struct dec *d, const uint8_t **qp, uint64_t nbl, size_t *nb)
{
	struct dchunk *c = d->c;
	uint64_t v;
	for (uint64_t i = 0; i < nbl; i++) {
		if (tz_get_varint(qp, d->end, &v) || v > d->nstr)
			return DEC_BAD;
		if (*nb == c->bcap) {
			void *a = c->blobs;
			if (arr_grow(&a, &c->bcap, sizeof(*c->blobs)))
				return TZ_ERR_NOMEM;
			c->blobs = a;
		}
		c->blobs[*nb].data = v ? r->sp[v - 1] : NULL;
		c->blobs[*nb].len = v ? r->sl[v - 1] : 0;
		(*nb)++;
	}
	return 0;
}

/*
 * Read the events after the string table, keeping those in [from, to] and
 * (unless keep_unknown) of known types: 0, DEC_BAD, TZ_ERR_NOMEM, or
 * TZ_ERR_CORRUPT with the message set.
 */
static int dec_events(tz_reader *r, struct dec *d, uint64_t from, uint64_t to, int keep_unknown)
{
	const struct rd_blk *b = d->b;
	struct dchunk *c = d->c;
	const uint8_t *q = d->q, *end = d->end;
	size_t nb = 0;
	uint64_t ts = 0;
	int rc = 0;
	while (q < end) {
		uint64_t type, dts, flen, nbl;
		if (tz_get_varint(&q, end, &type) || tz_get_varint(&q, end, &dts) ||
		    tz_get_varint(&q, end, &flen) || type > 0xffff || flen > (uint64_t)(end - q)) {
			rc = DEC_BAD;
			break;
		}
		ts += (uint64_t)tz_unzigzag(dts);
		if (ts < b->ext.min_ts || ts > b->ext.max_ts) {
			rc = rd_err(r, TZ_ERR_CORRUPT, b->off,
				    "%s %llu: event time outside the block's range",
				    tz_btype_name(b->type), (unsigned long long)b->seq);
			break;
		}
		const uint8_t *fixed = q;
		q += flen;
		if (tz_get_varint(&q, end, &nbl) || nbl > (uint64_t)(end - q)) {
			rc = DEC_BAD;
			break;
		}
		size_t b0 = nb;
		if ((rc = dec_blobs(r, d, &q, nbl, &nb)))
			break;
		d->npos++;
		if (ts < from || ts > to || (!keep_unknown && !r->type_idx[type])) {
			nb = b0;
			continue;
		}
		if (c->n == c->cap) {
			void *a = c->ev;
			if (arr_grow(&a, &c->cap, sizeof(*c->ev))) {
				rc = TZ_ERR_NOMEM;
				break;
			}
			c->ev = a;
		}
		struct devt *e = &c->ev[c->n++];
		e->ts = ts;
		e->fixed = fixed;
		e->fixed_len = (uint32_t)flen;
		e->nblobs = (uint32_t)nbl;
		e->blob0 = (uint32_t)b0;
		e->pos = (uint32_t)d->npos;
		e->type = (uint16_t)type;
	}
	d->q = q;
	return rc;
}

/* Decode the payload of d (string table, events) and check the count. */
static int dec_payload(tz_reader *r, struct dec *d, uint32_t raw_len, uint64_t from, uint64_t to,
		       int keep_unknown)
{
	int rc = dec_prepare(r, d, raw_len);
	if (!rc)
		rc = dec_strings(r, d);
	if (!rc)
		rc = dec_events(r, d, from, to, keep_unknown);
	if (!rc && d->npos != d->b->ext.events)
		rc = rd_err(r, TZ_ERR_CORRUPT, d->b->off, "%s %llu: %zu events, header says %llu",
			    tz_btype_name(d->b->type), (unsigned long long)d->b->seq, d->npos,
			    (unsigned long long)d->b->ext.events);
	return rc;
}

int rd_decode(tz_reader *r, const struct rd_blk *b, uint64_t from, uint64_t to, int keep_unknown,
	      struct dchunk **out)
{
	struct tz_bhdr h;
	uint64_t off = b->off;
	*out = NULL;
	int rc = dec_header(r, b, &h);
	if (rc)
		return rc;
	struct dchunk *c = dchunk_get(r);
	CHECK(c, TZ_ERR_NOMEM, off, "out of memory");
	struct dec d = {.b = b, .c = c};
	if ((rc = rd_payload_into(r, off, &h, &d.p, &c->own, &c->ocap))) {
		dchunk_put(r, c);
		return rc;
	}
	r->decoded++;
	d.q = d.p;
	d.end = d.p + h.raw_len;
	c->seq = b->seq;
	c->state = b->type == TZ_B_STATE;
	rc = dec_payload(r, &d, h.raw_len, from, to, keep_unknown);
	if (rc == DEC_BAD)
		rc = rd_err(r, TZ_ERR_CORRUPT, off,
			    "%s %llu: bad event encoding at payload byte %llu",
			    tz_btype_name(b->type), (unsigned long long)b->seq,
			    (unsigned long long)(d.q - d.p));
	else if (rc == TZ_ERR_NOMEM)
		rd_err(r, rc, off, "out of memory");
	if (rc) {
		scratch_trim(r);
		dchunk_put(r, c);
		return rc;
	}
	c->bytes = dchunk_bytes(c);
	int sorted = 1;
	for (size_t i = 1; i < c->n && sorted; i++)
		sorted = c->ev[i - 1].ts <= c->ev[i].ts;
	if (!sorted)
		if (c->n > 1)
			qsort(c->ev, c->n, sizeof(*c->ev), cmp_devt);
	scratch_trim(r);
	*out = c;
	return 0;
}

void rd_dchunk_free(struct dchunk *c) { dchunk_free(c); }

/* ---------------------------------------------------------------- iterate */

/* End an iteration: every decoded chunk, the pool and the scratch freed. */
void rd_free_iter(tz_reader *r)
{
	for (size_t i = 0; i < r->nheap; i++)
		dchunk_free(r->heap[i]);
	r->nheap = 0;
	r->held = 0;
	dchunk_free(r->pre);
	r->pre = NULL;
	dchunk_free(r->done);
	r->done = NULL;
	r->ncand = r->icand = 0;
	pool_free(r);
	free(r->sp);
	free(r->sl);
	r->sp = NULL;
	r->sl = NULL;
	r->scap = 0;
}

static int heap_less(const struct dchunk *a, const struct dchunk *b)
{
	const struct devt *x = &a->ev[a->cur], *y = &b->ev[b->cur];
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return x->pos < y->pos;
}

static void heap_down(tz_reader *r, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < r->nheap && heap_less(r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && heap_less(r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		struct dchunk *t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

static void heap_push(tz_reader *r, struct dchunk *c)
{
	size_t i = r->nheap++;
	r->heap[i] = c;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!heap_less(r->heap[i], r->heap[p]))
			break;
		struct dchunk *t = r->heap[i];
		r->heap[i] = r->heap[p];
		r->heap[p] = t;
		i = p;
	}
}

static int cmp_cand(const void *a, const void *b)
{
	const struct rd_blk *x = *(const struct rd_blk *const *)a,
			    *y = *(const struct rd_blk *const *)b;
	return rd_cmp_chunk(x, y);
}

int tz_reader_iter(tz_reader *r, uint64_t from_ns, uint64_t to_ns, uint32_t flags)
{
	if (!r || from_ns > to_ns)
		return TZ_ERR_INVAL;
	if (r->fatal)
		return r->fatal;
	rd_free_iter(r);
	r->from = from_ns;
	r->to = to_ns;
	r->iflags = flags;
	size_t max = r->nchunks + r->nstates;
	free(r->cand);
	free(r->heap);
	r->cand = malloc((max ? max : 1) * sizeof(*r->cand));
	r->heap = malloc((max ? max : 1) * sizeof(*r->heap));
	if (!r->cand || !r->heap)
		return rd_err(r, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
	/* chunks sorted by min_ts: [lo, hi) may overlap; prefmax is monotonic */
	size_t lo = 0, hi = r->nchunks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->prefmax[mid] < from_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t a = 0, bnd = r->nchunks;
	while (a < bnd) {
		size_t mid = (a + bnd) / 2;
		if (r->chunks[mid].ext.min_ts <= to_ns)
			a = mid + 1;
		else
			bnd = mid;
	}
	for (size_t i = lo; i < a; i++)
		if (r->chunks[i].ext.max_ts >= from_ns && !r->chunks[i].bad)
			r->cand[r->ncand++] = &r->chunks[i];
	if (flags & TZ_IT_STATE) {
		/* the state block just before the first chunk read (by sequence)
		 * comes first; later ones are merged by time */
		const struct rd_blk *pre = NULL;
		uint64_t minseq = UINT64_MAX;
		for (size_t i = 0; i < r->ncand; i++)
			if (r->cand[i]->seq < minseq)
				minseq = r->cand[i]->seq;
		for (size_t i = 0; i < r->nstates; i++) {
			const struct rd_blk *s = &r->states[i];
			if (s->bad)
				continue;
			if (minseq != UINT64_MAX ? s->seq < minseq : s->ext.max_ts <= from_ns)
				if (!pre || s->seq > pre->seq)
					pre = s;
		}
		size_t nc = r->ncand;
		for (size_t i = 0; i < r->nstates; i++) {
			const struct rd_blk *s = &r->states[i];
			if (!s->bad && s != pre && (!pre || s->seq > pre->seq) &&
			    s->ext.max_ts >= from_ns && s->ext.min_ts <= to_ns)
				r->cand[nc++] = (struct rd_blk *)s;
		}
		r->ncand = nc;
		if (pre) {
			struct dchunk *c;
			int rc = rd_decode(r, pre, 0, UINT64_MAX, flags & TZ_IT_UNKNOWN, &c);
			if (rc == TZ_ERR_NOMEM)
				return r->fatal = rc;
			if (rc < 0) {
				((struct rd_blk *)pre)->bad = 1;
				rd_corrupt(r, pre->off);
			} else if (rc == 0) {
				r->pre = c;
			}
		}
	}
	if (r->ncand > 1)
		qsort(r->cand, r->ncand, sizeof(*r->cand), cmp_cand);
	return 0;
}

static void fill(tz_reader *r, struct dchunk *c, const struct tz_event **ev)
{
	const struct devt *d = &c->ev[c->cur];
	struct tz_event *e = &r->ev;
	e->type_id = d->type;
	e->type = tz_reader_type_by_id(r, d->type);
	e->flags = c->state ? TZ_EVF_STATE : 0;
	e->ts_ns = d->ts;
	e->fixed = d->fixed;
	e->fixed_len = d->fixed_len;
	e->nblobs = d->nblobs;
	e->blobs = d->nblobs ? c->blobs + d->blob0 : NULL;
	e->chunk_seq = c->seq;
	*ev = e;
}

int tz_reader_next(tz_reader *r, const struct tz_event **ev)
{
	if (!r || !ev)
		return TZ_ERR_INVAL;
	if (r->fatal)
		return r->fatal;
	if (!r->cand)
		return 0;
	dchunk_put(r, r->done);
	r->done = NULL;
	if (r->pre) {
		if (r->pre->cur < r->pre->n) {
			fill(r, r->pre, ev);
			r->pre->cur++;
			return 1;
		}
		dchunk_put(r, r->pre); /* its last event was the previous one */
		r->pre = NULL;
	}
	while (r->icand < r->ncand &&
	       (!r->nheap || r->cand[r->icand]->ext.min_ts <= r->heap[0]->ev[r->heap[0]->cur].ts)) {
		struct rd_blk *b = r->cand[r->icand++];
		struct dchunk *c;
		int rc = rd_decode(r, b, r->from, r->to, r->iflags & TZ_IT_UNKNOWN, &c);
		if (rc == TZ_ERR_NOMEM)
			return r->fatal = rc;
		if (rc < 0) {
			b->bad = 1;
			rd_corrupt(r, b->off);
			continue;
		}
		if (rc > 0)
			continue;
		if (!c->n) {
			dchunk_put(r, c);
			continue;
		}
		/* decoded bytes held at once: at most 1024 x the file (a legitimate
		 * trace compresses far less), at least 256 MiB, at most 16 chunks
		 * of the largest size; the pool counts too, and goes first */
		uint64_t cap = 1024 * (uint64_t)r->len;
		if (cap < (256ull << 20))
			cap = 256ull << 20;
		if (cap > 16 * r->max_chunk)
			cap = 16 * r->max_chunk;
		if (r->held + r->pooled + c->bytes > cap)
			pool_free(r);
		if (r->held + c->bytes > cap) {
			/* the total this chunk would make, not what is held */
			unsigned long long would = (unsigned long long)(r->held + c->bytes);
			dchunk_free(c);
			rd_err(r, TZ_ERR_LIMIT, b->off,
			       "chunk %llu: too many chunks overlap in time (%llu bytes decoded at "
			       "once, over the limit of %llu)",
			       (unsigned long long)b->seq, would, (unsigned long long)cap);
			return r->fatal = TZ_ERR_LIMIT;
		}
		r->held += c->bytes;
		heap_push(r, c);
	}
	if (!r->nheap)
		return 0;
	struct dchunk *c = r->heap[0];
	fill(r, c, ev);
	if (++c->cur == c->n) {
		r->heap[0] = r->heap[--r->nheap];
		r->held -= c->bytes;
		r->done = c;
	}
	if (r->nheap)
		heap_down(r, 0);
	return 1;
}
