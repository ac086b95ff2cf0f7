/* tz_reader.c - the .tz reader: header, index or scan, merge iteration. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "tz_rd.h"

/* one-line check: fail with code and a message when cond does not hold */
#define CHECK(cond, code, off, ...)                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return rd_err(r, code, off, __VA_ARGS__);                                  \
	} while (0)

int rd_err(tz_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	char d[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	if (off != UINT64_MAX)
		snprintf(r->errmsg, sizeof(r->errmsg), "'%s': offset %llu: %s", r->name,
			 (unsigned long long)off, d);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "'%s': %s", r->name, d);
	return code;
}

void rd_corrupt(tz_reader *r, uint64_t off)
{
	if (!r->info.corrupt_blocks || off < r->info.corrupt_first_offset)
		r->info.corrupt_first_offset = off;
	r->info.corrupt_blocks++;
}

/* ---------------------------------------------------------------- payloads */

/*
 * Check the payload of the block at off (header h) and return its
 * uncompressed bytes in *out: the mapped file when stored raw, else *buf
 * (*cap bytes, caller's; replaced by a larger one when raw_len does not fit,
 * after raw_len was checked against the reader's limit). 0 or a tz_err with
 * the message set; *buf and *cap stay consistent on every return.
 */
static int payload_into(tz_reader *r, uint64_t off, const struct tz_bhdr *h, const uint8_t **out,
			uint8_t **buf, size_t *cap)
{
	const char *what = tz_btype_name(h->type);
	uint64_t poff = off + tz_bhdr_size(h);
	CHECK(poff <= r->len && h->payload_len <= r->len - poff, TZ_ERR_TRUNCATED, off,
	      "%s %llu: payload runs past the end of the file", what, (unsigned long long)h->seq);
	const uint8_t *p = r->data + poff;
	CHECK(tz_hash(p, h->payload_len) == h->payload_csum, TZ_ERR_CHECKSUM, off,
	      "%s %llu: payload checksum mismatch", what, (unsigned long long)h->seq);
	CHECK(h->raw_len <= r->max_chunk, TZ_ERR_LIMIT, off,
	      "%s %llu: %u uncompressed bytes exceed the reader's limit (%llu)", what,
	      (unsigned long long)h->seq, h->raw_len, (unsigned long long)r->max_chunk);
	if (!(h->flags & TZ_BF_ZSTD)) {
		*out = p;
		return 0;
	}
	unsigned long long fcs = ZSTD_getFrameContentSize(p, h->payload_len);
	CHECK(fcs == h->raw_len, TZ_ERR_CORRUPT, off,
	      "%s %llu: zstd frame size does not match the header", what,
	      (unsigned long long)h->seq);
	/* exactly one frame: zstd would also decode a skippable or a second
	 * (empty) frame after it */
	CHECK(ZSTD_findFrameCompressedSize(p, h->payload_len) == h->payload_len, TZ_ERR_ZSTD, off,
	      "%s %llu: zstd: the payload is not exactly one frame", what,
	      (unsigned long long)h->seq);
	if (!*buf || *cap < h->raw_len) {
		/* contents are not kept: free first, no copy; 1/8 headroom so
		 * that chunks of about the same size reuse the buffer */
		size_t nc = (size_t)h->raw_len + h->raw_len / 8;
		free(*buf);
		*cap = 0;
		*buf = malloc(nc ? nc : 1);
		CHECK(*buf, TZ_ERR_NOMEM, off, "out of memory");
		*cap = nc;
	}
	if (!r->dctx)
		r->dctx = ZSTD_createDCtx();
	size_t n = r->dctx ? ZSTD_decompressDCtx(r->dctx, *buf, h->raw_len, p, h->payload_len) : 0;
	if (!r->dctx || ZSTD_isError(n) || n != h->raw_len)
		return rd_err(r, TZ_ERR_ZSTD, off, "%s %llu: zstd: %s", what,
			      (unsigned long long)h->seq,
			      r->dctx && ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame");
	*out = *buf;
	return 0;
}

/*
 * Check the payload of the block at off (header h) and return its
 * uncompressed bytes in *out (*own set when malloc'd, the caller frees it).
 * 0 or a tz_err with the message set.
 */
int rd_payload(tz_reader *r, uint64_t off, const struct tz_bhdr *h, const uint8_t **out,
	       uint8_t **own)
{
	uint8_t *b = NULL;
	size_t cap = 0;
	int rc = payload_into(r, off, h, out, &b, &cap);
	if (rc || *out != b) {
		free(b);
		b = NULL;
	}
	*own = b;
	return rc;
}

/* ---------------------------------------------------------------- blocks */

static int push_blk(tz_reader *r, struct rd_blk **arr, size_t *n, size_t *cap,
		    const struct rd_blk *b)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct rd_blk *a = realloc(*arr, c * sizeof(*a));
		if (!a)
			return TZ_ERR_NOMEM;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = *b;
	return 0;
}

/* Register a chunk/state/meta/schema block found at off (scan or index). */
static int add_block(tz_reader *r, uint64_t off, const struct tz_bhdr *h,
		     const struct tz_chunk_ext *ext)
{
	struct rd_blk b;
	memset(&b, 0, sizeof(b));
	b.off = off;
	b.seq = h->seq;
	b.type = h->type;
	b.size = tz_block_size(h);
	b.payload_len = h->payload_len;
	b.raw_len = h->raw_len;
	if (ext)
		b.ext = *ext;
	switch (h->type) {
	case TZ_B_CHUNK:
	case TZ_B_STATE:
		if (h->raw_len > r->max_chunk) {
			rd_err(r, TZ_ERR_LIMIT, off,
			       "%s %llu: %u uncompressed bytes exceed the reader's limit (%llu)",
			       tz_btype_name(h->type), (unsigned long long)h->seq, h->raw_len,
			       (unsigned long long)r->max_chunk);
			rd_corrupt(r, off);
			return 0;
		}
		if (b.ext.min_ts > b.ext.max_ts || b.ext.events > h->raw_len) {
			rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: inconsistent header",
			       tz_btype_name(h->type), (unsigned long long)h->seq);
			rd_corrupt(r, off);
			return 0;
		}
		if (h->type == TZ_B_CHUNK)
			return push_blk(r, &r->chunks, &r->nchunks, &r->cchunks, &b);
		return push_blk(r, &r->states, &r->nstates, &r->cstates, &b);
	case TZ_B_META:
	case TZ_B_SCHEMA:
		return push_blk(r, &r->heads, &r->nheads, &r->cheads, &b);
	}
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rd_blk *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct rd_blk *x = a, *y = b;
	if (x->ext.min_ts != y->ext.min_ts)
		return x->ext.min_ts < y->ext.min_ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse metadata and schema blocks in sequence order (later wins). */
static int load_heads(tz_reader *r)
{
	if (r->nheads > 1)
		qsort(r->heads, r->nheads, sizeof(*r->heads), cmp_seq);
	for (size_t i = 0; i < r->nheads; i++) {
		struct rd_blk *b = &r->heads[i];
		struct tz_bhdr h;
		const uint8_t *p;
		uint8_t *own;
		const char *why;
		int rc = tz_bhdr_decode(r->data + b->off, r->len - b->off, &h);
		if (!rc)
			rc = rd_payload(r, b->off, &h, &p, &own);
		else
			rd_err(r, rc, b->off, "%s: bad block header", tz_btype_name(b->type));
		if (rc == TZ_ERR_NOMEM)
			return rc;
		if (rc) {
			rd_corrupt(r, b->off);
			continue;
		}
		if (h.type == TZ_B_META)
			rc = tz_meta_decode(p, h.raw_len, &r->kv, &r->nkv, &why);
		else
			rc = tz_schema_decode(p, h.raw_len, &r->types, &r->ntypes, &why);
		free(own);
		if (rc == TZ_ERR_NOMEM)
			return rd_err(r, rc, b->off, "out of memory");
		if (rc) {
			rd_err(r, rc, b->off, "%s %llu: %s", tz_btype_name(h.type),
			       (unsigned long long)h.seq, why);
			rd_corrupt(r, b->off);
		}
	}
	memset(r->type_idx, 0, 65536 * sizeof(*r->type_idx));
	for (size_t i = 0; i < r->ntypes; i++)
		r->type_idx[r->types[i].t.id] = (uint16_t)(i + 1);
	return 0;
}

/* ---------------------------------------------------------------- walker */

/*
 * Walk every block of the file in file order (linear) or segment order
 * (ring), resynchronising on the block magic after damage. visit() gets
 * each valid block (h != NULL) and each damaged region (h == NULL, status
 * the reason, size its length). Returns 0 or the first negative visit()
 * result.
 */
typedef rd_visit_fn visit_fn;

/* Next offset in [from, end) holding a decodable block header that lies
 * wholly before end and whose seq is above min_seq; end if none. */
static uint64_t resync(tz_reader *r, uint64_t from, uint64_t end, uint64_t min_seq, int ring)
{
	while (from + TZ_BHDR_MIN <= end) {
		const uint8_t *m = memmem(r->data + from, end - from, TZ_BMAGIC, TZ_BMAGIC_LEN);
		if (!m)
			break;
		uint64_t c = (uint64_t)(m - r->data);
		struct tz_bhdr h;
		if (!tz_bhdr_decode(m, end - c, &h) && tz_block_size(&h) <= end - c &&
		    (!ring || h.seq > min_seq))
			return c;
		from = c + 1;
	}
	return end;
}

/*
 * A block whose stated length swallowed the blocks after it (payload_len
 * inflated, header checksum recomputed): its payload does not check (payload
 * checksum, or a zstd frame that does not fill the payload exactly) and a
 * valid block header (seq above min_seq in a ring) starts inside it. Returns
 * that header's offset, else 0 (the block is taken at its length; a bad
 * payload is then damage found when it is read).
 */
static uint64_t swallowed(tz_reader *r, uint64_t pos, const struct tz_bhdr *h, uint64_t end,
			  uint64_t min_seq, int ring)
{
	const uint8_t *p = r->data + pos + tz_bhdr_size(h);
	if (tz_hash(p, h->payload_len) == h->payload_csum &&
	    (!(h->flags & TZ_BF_ZSTD) ||
	     ZSTD_findFrameCompressedSize(p, h->payload_len) == h->payload_len))
		return 0;
	uint64_t q = resync(r, pos + 1, end, min_seq, ring);
	return q < pos + tz_block_size(h) ? q : 0;
}

static int all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Linear walk of [pos, end). */
static int walk_linear(tz_reader *r, uint64_t pos, uint64_t end, visit_fn visit, void *ctx)
{
	int rc;
	while (pos < end) {
		struct tz_bhdr h;
		int st = tz_bhdr_decode(r->data + pos, end - pos, &h);
		if (!st && tz_block_size(&h) > end - pos)
			st = TZ_ERR_TRUNCATED;
		uint64_t q = st ? 0 : swallowed(r, pos, &h, end, 0, 0);
		if (q) {
			if ((rc = visit(r, ctx, pos, NULL, q - pos, TZ_ERR_SEQ)) < 0)
				return rc;
			pos = q;
			continue;
		}
		if (!st) {
			if ((rc = visit(r, ctx, pos, &h, tz_block_size(&h), 0)) < 0)
				return rc;
			pos += tz_block_size(&h);
			continue;
		}
		uint64_t next = resync(r, pos + 1, end, 0, 0);
		if (st == TZ_ERR_MAGIC)
			st = TZ_ERR_CORRUPT; /* bytes that are no block */
		if ((rc = visit(r, ctx, pos, NULL, next - pos, st)) < 0)
			return rc;
		pos = next;
	}
	return 0;
}

/*
 * Ring walk of one area [s, e): blocks chained by size with consecutive
 * sequence numbers (seqchain: segments). Zero bytes, or a valid block older
 * than every segment's first block (seq below lap: left from an older lap),
 * end the chain silently; a valid block with any other seq is out of place
 * and damage, as is damage followed by a newer block, and a block whose
 * length swallowed the next one.
 */
static int walk_chain(tz_reader *r, uint64_t s, uint64_t e, int seqchain, uint64_t lap,
		      visit_fn visit, void *ctx)
{
	uint64_t pos = s, prev = 0;
	int rc, have = 0;
	while (pos + TZ_BHDR_MIN <= e) {
		struct tz_bhdr h;
		int st = tz_bhdr_decode(r->data + pos, e - pos, &h);
		if (!st && tz_block_size(&h) > e - pos)
			st = TZ_ERR_TRUNCATED;
		if (!st && (!have || !seqchain || h.seq == prev + 1)) {
			uint64_t q = seqchain ? swallowed(r, pos, &h, e, h.seq, 1) : 0;
			if (q) {
				if ((rc = visit(r, ctx, pos, NULL, q - pos, TZ_ERR_SEQ)) < 0)
					return rc;
				pos = q;
				have = 0;
				continue;
			}
			if ((rc = visit(r, ctx, pos, &h, tz_block_size(&h), 0)) < 0)
				return rc;
			prev = h.seq;
			have = 1;
			pos += tz_block_size(&h);
			continue;
		}
		if (!st && h.seq < lap)
			return 0; /* an older lap's block: the chain ends here */
		if (!st) {
			/* newer than some segment's start, yet not next: a block
			 * copied or replayed here; the chain goes on at the next
			 * block newer than prev, if any */
			uint64_t next = resync(r, pos + 1, e, prev, 1);
			uint64_t len = next < e ? next - pos : tz_block_size(&h);
			if ((rc = visit(r, ctx, pos, NULL, len, TZ_ERR_SEQ)) < 0)
				return rc;
			if (next == e)
				return 0;
			pos = next;
			have = 0;
			continue;
		}
		if (all_zero(r->data + pos, TZ_BHDR_MIN))
			return 0; /* never written */
		uint64_t next = resync(r, pos + 1, e, have && seqchain ? prev : 0, 1);
		if (next == e)
			return 0; /* the rest of the area is older data */
		if ((rc = visit(r, ctx, pos, NULL, next - pos, st)) < 0)
			return rc;
		pos = next;
		have = 0;
	}
	return 0;
}

int rd_walk(tz_reader *r, rd_visit_fn visit, void *ctx)
{
	if (!r->ring)
		return walk_linear(r, r->hdr_size, r->len, visit, ctx);
	uint64_t e = r->final_off < r->len ? r->final_off : r->len;
	int rc = walk_chain(r, r->hdr_size, e, 0, 0, visit, ctx);
	if (rc < 0)
		return rc;
	e = r->ring_start < r->len ? r->ring_start : r->len;
	if (r->final_off < e && (rc = walk_chain(r, r->final_off, e, 0, 0, visit, ctx)) < 0)
		return rc;
	/* lap: the oldest seq a segment starts with. Segments are rewritten in
	 * turn, so what is left of an older lap in a segment is older than
	 * every segment's first block */
	uint64_t lap = UINT64_MAX;
	uint32_t lap_seg = 0;
	for (uint32_t i = 0; i < r->nseg; i++) {
		uint64_t s = r->ring_start + (uint64_t)i * r->seg_size;
		struct tz_bhdr h;
		if (s >= r->len)
			break;
		e = s + r->seg_size < r->len ? s + r->seg_size : r->len;
		if (!tz_bhdr_decode(r->data + s, e - s, &h) && tz_block_size(&h) <= e - s &&
		    h.seq < lap) {
			lap = h.seq;
			lap_seg = i;
		}
	}
	/* segments are filled from 0 in turn after the head blocks (seq 1,
	 * 2, ...): unless the oldest segment is 0 and its first block comes
	 * right after the head's, older segments were overwritten */
	uint64_t nhead = 0;
	for (uint64_t pos = r->hdr_size, he = r->final_off < r->len ? r->final_off : r->len;
	     pos < he;) {
		struct tz_bhdr h;
		if (tz_bhdr_decode(r->data + pos, he - pos, &h) || tz_block_size(&h) > he - pos)
			break;
		nhead += h.seq < lap;
		pos += tz_block_size(&h);
	}
	r->info.ring_wrapped = lap != UINT64_MAX && (lap_seg != 0 || lap != nhead + 1);
	for (uint32_t i = 0; i < r->nseg; i++) {
		uint64_t s = r->ring_start + (uint64_t)i * r->seg_size;
		if (s >= r->len)
			break;
		e = s + r->seg_size < r->len ? s + r->seg_size : r->len;
		if ((rc = walk_chain(r, s, e, 1, lap, visit, ctx)) < 0)
			return rc;
	}
	/* a ring file keeps its size from creation: shorter was cut short */
	if (r->len < r->ring_size &&
	    (rc = visit(r, ctx, r->len, NULL, r->ring_size - r->len, TZ_ERR_TRUNCATED)) < 0)
		return rc;
	return 0;
}

static int scan_visit(tz_reader *r, void *ctx, uint64_t off, const struct tz_bhdr *h, uint64_t size,
		      int status)
{
	(void)ctx;
	if (!h) {
		if (r->ring && off >= r->len) {
			rd_err(r, TZ_ERR_TRUNCATED, off,
			       "ring file cut short: %zu of its %llu bytes",
			       r->len, (unsigned long long)(off + size));
		} else if (status == TZ_ERR_TRUNCATED && off + size == r->len && !r->ring) {
			struct tz_bhdr th;
			r->info.torn_tail_bytes = size;
			r->info.torn_tail_offset = off;
			if (!tz_bhdr_decode(r->data + off, size, &th)) { /* its header is whole */
				r->info.torn_tail_what = tz_btype_name(th.type);
				r->info.torn_tail_seq = th.seq;
				r->info.torn_tail_block_bytes = tz_block_size(&th);
				if (th.type == TZ_B_CHUNK && th.ext_len >= TZ_CHUNK_EXT) {
					struct tz_chunk_ext ext;
					tz_chunk_ext_decode(th.ext, &ext);
					r->info.torn_tail_events = ext.events;
				}
			}
			rd_err(r, TZ_ERR_TRUNCATED, off, "incomplete block at the end (%llu bytes)",
			       (unsigned long long)size);
		} else {
			rd_err(r, status, off, "damaged data (%llu bytes) skipped: %s",
			       (unsigned long long)size, tz_strerror(status));
		}
		rd_corrupt(r, off);
		return 0;
	}
	if (h->flags & ~TZ_BF_KNOWN)
		return 0; /* a future encoding: skipped by length */
	if (h->type == TZ_B_CHUNK || h->type == TZ_B_STATE) {
		if (h->ext_len < TZ_CHUNK_EXT) {
			rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: short header",
			       tz_btype_name(h->type), (unsigned long long)h->seq);
			rd_corrupt(r, off);
			return 0;
		}
		struct tz_chunk_ext ext;
		tz_chunk_ext_decode(h->ext, &ext);
		return add_block(r, off, h, &ext);
	}
	if (h->type == TZ_B_INDEX &&
	    tz_hash(r->data + off + tz_bhdr_size(h), h->payload_len) != h->payload_csum)
		return 0; /* an index loses no data: verify reports it ([I2]) */
	if (h->type == TZ_B_TRAILER)
		r->saw_trailer = off;
	return add_block(r, off, h, NULL);
}

/* ---------------------------------------------------------------- index */

static void reset_blocks(tz_reader *r) { r->nchunks = r->nstates = r->nheads = 0; }

/* fail load_index() with the index found damaged at off */
#define IDX_CHECK(cond, off, ...)                                                                  \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			rd_err(r, TZ_ERR_CORRUPT, off, __VA_ARGS__);                               \
			r->idx_bad = off;                                                          \
			goto bad;                                                                  \
		}                                                                                  \
	} while (0)

/* Does the file end with a valid TRAILER block (was it closed)? */
static int trailer_valid(tz_reader *r)
{
	struct tz_bhdr h;
	if (r->len < r->hdr_size + TZ_TRAILER_SIZE)
		return 0;
	uint64_t toff = r->len - TZ_TRAILER_SIZE;
	return !tz_bhdr_decode(r->data + toff, TZ_TRAILER_SIZE, &h) && h.type == TZ_B_TRAILER &&
	       h.ext_len == TZ_TRAILER_EXT && !h.payload_len;
}

/* Is [pos, end) exactly a run of valid INDEX blocks (periodic indexes, which
 * the final index does not list)? */
static int index_blocks_only(tz_reader *r, uint64_t pos, uint64_t end)
{
	while (pos < end) {
		struct tz_bhdr h;
		if (tz_bhdr_decode(r->data + pos, end - pos, &h) || h.type != TZ_B_INDEX ||
		    tz_block_size(&h) > end - pos)
			return 0;
		pos += tz_block_size(&h);
	}
	return 1;
}

/*
 * Load the block list from the trailer and index (section 10 of FORMAT.md).
 * 0 on success; 1 when the file does not end with a valid trailer (not
 * closed: the caller scans); TZ_ERR_CORRUPT when the trailer is valid but
 * the index is not usable (r->idx_bad and r->idxmsg set: the caller ignores
 * the footer and scans); TZ_ERR_NOMEM. Blocks the index lists that are
 * themselves inconsistent or over the size limit are counted as damaged.
 */
static int load_index(tz_reader *r)
{
	struct tz_bhdr h, ih;
	if (!trailer_valid(r))
		return 1;
	uint64_t toff = r->len - TZ_TRAILER_SIZE;
	tz_bhdr_decode(r->data + toff, TZ_TRAILER_SIZE, &h);
	/* the writer closed the file: from here on, what fails is damage */
	uint64_t corrupt = r->info.corrupt_blocks, corrupt_off = r->info.corrupt_first_offset;
	const uint8_t *p = NULL;
	uint8_t *own = NULL;
	int rc = TZ_ERR_CORRUPT;
	uint64_t ioff = tz_le64(h.ext), isize = tz_le64(h.ext + 8), fsize = tz_le64(h.ext + 16);
	IDX_CHECK(fsize == r->len, toff, "trailer: file size %llu, the file has %zu bytes",
		  (unsigned long long)fsize, r->len);
	IDX_CHECK(ioff >= r->hdr_size && ioff <= toff && isize == toff - ioff, toff,
		  "trailer: index at %llu (%llu bytes) does not end at the trailer",
		  (unsigned long long)ioff, (unsigned long long)isize);
	IDX_CHECK(!tz_bhdr_decode(r->data + ioff, isize, &ih) && ih.type == TZ_B_INDEX &&
			  tz_block_size(&ih) == isize,
		  ioff, "index: bad block header");
	if ((rc = rd_payload(r, ioff, &ih, &p, &own))) {
		if (rc == TZ_ERR_NOMEM)
			goto bad;
		r->idx_bad = ioff;
		rc = TZ_ERR_CORRUPT;
		goto bad;
	}
	rc = TZ_ERR_CORRUPT;
	IDX_CHECK(ih.raw_len % TZ_INDEX_ENTRY == 0, ioff,
		  "index %llu: size is not a multiple of the entry size",
		  (unsigned long long)ih.seq);
	/* entries in file order tile [header_size, index_offset): each block
	 * starts where the one before ended, or after periodic INDEX blocks */
	uint64_t pos = r->hdr_size, n = ih.raw_len / TZ_INDEX_ENTRY;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = p + i * TZ_INDEX_ENTRY;
		uint64_t off = tz_le64(e), seq = tz_le64(e + 8);
		uint32_t size = tz_le32(e + 16), raw_len = tz_le32(e + 20), type = tz_le32(e + 24);
		IDX_CHECK(off >= pos && off <= ioff && size >= TZ_BHDR_MIN && size <= ioff - off,
			  ioff, "index %llu: entry %llu: block at %llu (%u bytes) %s",
			  (unsigned long long)ih.seq, (unsigned long long)i,
			  (unsigned long long)off, size,
			  off < pos ? "overlaps the one before" : "out of range");
		IDX_CHECK(index_blocks_only(r, pos, off), ioff,
			  "index %llu: entry %llu: bytes %llu..%llu before it are not listed",
			  (unsigned long long)ih.seq, (unsigned long long)i,
			  (unsigned long long)pos, (unsigned long long)off);
		int hrc = tz_bhdr_decode(r->data + off, size, &h);
		IDX_CHECK(!hrc && h.type == type && h.seq == seq && tz_block_size(&h) == size &&
				  h.raw_len == raw_len &&
				  ((type != TZ_B_CHUNK && type != TZ_B_STATE) ||
				   (h.ext_len >= TZ_CHUNK_EXT &&
				    !memcmp(h.ext, e + 32, TZ_CHUNK_EXT))),
			  ioff,
			  "index %llu: entry %llu (type %u, seq %llu) does not match the block at "
			  "%llu (%s)",
			  (unsigned long long)ih.seq, (unsigned long long)i, type,
			  (unsigned long long)seq, (unsigned long long)off,
			  hrc ? "no valid block header" : tz_btype_name(h.type));
		pos = off + size;
		if (h.flags & ~TZ_BF_KNOWN)
			continue; /* a future encoding: skipped by length */
		struct tz_chunk_ext ext;
		int ce = type == TZ_B_CHUNK || type == TZ_B_STATE;
		if (ce)
			tz_chunk_ext_decode(h.ext, &ext);
		if ((rc = add_block(r, off, &h, ce ? &ext : NULL)))
			goto bad; /* out of memory */
		rc = TZ_ERR_CORRUPT;
	}
	IDX_CHECK(index_blocks_only(r, pos, ioff), ioff,
		  "index %llu: bytes %llu..%llu before it are not listed",
		  (unsigned long long)ih.seq, (unsigned long long)pos, (unsigned long long)ioff);
	free(own);
	return 0;
bad:
	free(own);
	reset_blocks(r);
	r->info.corrupt_blocks = corrupt;
	r->info.corrupt_first_offset = corrupt_off;
	if (rc == TZ_ERR_NOMEM)
		return rc;
	memcpy(r->idxmsg, r->errmsg, sizeof(r->idxmsg));
	return TZ_ERR_CORRUPT;
}

/* ---------------------------------------------------------------- open */

static int parse_header(tz_reader *r)
{
	const uint8_t *d = r->data;
	if (r->len < TZ_MAGIC_LEN || memcmp(d, TZ_MAGIC, TZ_MAGIC_LEN)) {
		size_t n = r->len < TZ_MAGIC_LEN ? r->len : TZ_MAGIC_LEN;
		CHECK(n == TZ_MAGIC_LEN || memcmp(d, TZ_MAGIC, n), TZ_ERR_TRUNCATED, 0,
		      "file ends inside the header (%zu bytes)", r->len);
		CHECK(!(r->len >= 7 && !memcmp(d, "\x89TZ1\n\x1a\n", 7)), TZ_ERR_MAGIC, 0,
		      "not a .tz file: magic mangled by a text-mode transfer (CRLF became LF)");
		CHECK(!(r->len >= 7 && !memcmp(d, "\x89TZ1\r\r\n", 7)), TZ_ERR_MAGIC, 0,
		      "not a .tz file: magic mangled by a text-mode transfer (LF became CR LF)");
		CHECK(!(r->len >= 4 && !memcmp(d, "\x89TZ1", 4)), TZ_ERR_MAGIC, 0,
		      "not a .tz file: magic mangled (text-mode transfer?)");
		CHECK(!(r->len >= 3 && !memcmp(d + 1, "TZ", 2)), TZ_ERR_MAGIC, 0,
		      "not a .tz file: magic mangled (8th bit stripped?)");
		return rd_err(r, TZ_ERR_MAGIC, 0, "not a .tz file (bad magic)");
	}
	CHECK(r->len >= 16, TZ_ERR_TRUNCATED, 0, "file ends inside the header (%zu bytes)", r->len);
	r->info.major = tz_le16(d + 8);
	r->info.minor = tz_le16(d + 10);
	CHECK(r->info.major == TZ_MAJOR, TZ_ERR_VERSION, 8,
	      "format version %u.%u is not supported (this reader reads %u.x)", r->info.major,
	      r->info.minor, TZ_MAJOR);
	uint32_t hs = tz_le32(d + 12);
	CHECK(hs >= TZ_HDR_SIZE && hs <= TZ_HDR_MAX && hs % 8 == 0, TZ_ERR_CORRUPT, 12,
	      "bad header size %u", hs);
	CHECK(r->len >= hs, TZ_ERR_TRUNCATED, 0, "file ends inside the header (%zu of %u bytes)",
	      r->len, hs);
	CHECK(tz_hash(d, hs - 8) == tz_le64(d + hs - 8), TZ_ERR_CHECKSUM, 0,
	      "file header checksum mismatch");
	r->hdr_size = hs;
	r->info.compat_flags = tz_le64(d + 16);
	r->info.ro_flags = tz_le64(d + 24);
	r->info.incompat_flags = tz_le64(d + 32);
	CHECK(!(r->info.incompat_flags & ~TZ_INCOMPAT_KNOWN), TZ_ERR_INCOMPAT, 32,
	      "unknown incompatible feature flags 0x%llx: written by a newer tracer, "
	      "this reader cannot read it",
	      (unsigned long long)(r->info.incompat_flags & ~TZ_INCOMPAT_KNOWN));
	memcpy(r->info.uuid, d + 40, 16);
	memcpy(r->info.boot_id, d + 56, 16);
	r->start_boot = tz_le64(d + 72);
	r->start_real = (int64_t)tz_le64(d + 80);
	if (r->info.incompat_flags & TZ_INCOMPAT_RING) {
		r->ring = 1;
		r->info.ring = 1;
		uint64_t rs = tz_le64(d + 88);
		r->ring_size = rs;
		r->ring_start = tz_le64(d + 96);
		r->seg_size = tz_le64(d + 104);
		r->nseg = tz_le32(d + 112);
		r->final_off = tz_le32(d + 116);
		CHECK(r->ring_start >= hs && r->final_off >= hs && r->final_off <= r->ring_start &&
			  r->seg_size >= TZ_BHDR_MIN && r->nseg >= 1 && r->nseg <= 1u << 20 &&
			  r->ring_start <= rs && r->seg_size <= (rs - r->ring_start) / r->nseg,
		      TZ_ERR_CORRUPT, 88, "inconsistent ring layout in the header");
	}
	return 0;
}

static int add_anchor(tz_reader *r, uint64_t boot, int64_t real)
{
	if (!boot)
		return 0;
	if (r->nanchors == r->canchors) {
		size_t c = r->canchors ? r->canchors * 2 : 64;
		struct rd_anchor *a = realloc(r->anchors, c * sizeof(*a));
		if (!a)
			return TZ_ERR_NOMEM;
		r->anchors = a;
		r->canchors = c;
	}
	r->anchors[r->nanchors].boot = boot;
	r->anchors[r->nanchors].real = real;
	r->nanchors++;
	return 0;
}

static int cmp_anchor(const void *a, const void *b)
{
	const struct rd_anchor *x = a, *y = b;
	return x->boot < y->boot ? -1 : x->boot > y->boot;
}

static int cmp_seq_off(const void *a, const void *b)
{
	const struct rd_blk *x = *(const struct rd_blk *const *)a;
	const struct rd_blk *y = *(const struct rd_blk *const *)b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int rd_is_dup(const tz_reader *r, uint64_t off)
{
	return r->ndups && bsearch(&off, r->dups, r->ndups, sizeof(*r->dups), cmp_u64);
}

/* keep the blocks of arr[0, *n) whose type is not 0 */
static void compact(struct rd_blk *arr, size_t *n)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (arr[i].type)
			arr[k++] = arr[i];
	*n = k;
}

/*
 * No two chunk or state blocks share a seq (FORMAT.md 11): of each group
 * with one seq the first in file order is kept, the others (a replayed or
 * copied block) are damage, counted in duplicate_blocks and corrupt_blocks
 * and listed in r->dups for verify.
 */
static int drop_duplicates(tz_reader *r)
{
	size_t n = r->nchunks + r->nstates, nd = 0;
	if (n < 2)
		return 0;
	struct rd_blk **all = malloc(n * sizeof(*all));
	CHECK(all, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
	for (size_t i = 0; i < r->nchunks; i++)
		all[i] = &r->chunks[i];
	for (size_t i = 0; i < r->nstates; i++)
		all[r->nchunks + i] = &r->states[i];
	qsort(all, n, sizeof(*all), cmp_seq_off);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (all[i]->seq != all[first]->seq) {
			first = i;
			continue;
		}
		nd++;
	}
	if (!nd) {
		free(all);
		return 0;
	}
	r->dups = malloc(nd * sizeof(*r->dups));
	if (!r->dups) {
		free(all);
		return rd_err(r, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
	}
	for (size_t i = 1, first = 0; i < n; i++) {
		struct rd_blk *b = all[i];
		if (b->seq != all[first]->seq) {
			first = i;
			continue;
		}
		if (!r->idx_bad) /* else the message says why the index was ignored */
			rd_err(r, TZ_ERR_SEQ, b->off, "%s %llu: same seq as the %s at offset %llu: skipped",
			       tz_btype_name(b->type), (unsigned long long)b->seq,
			       tz_btype_name(all[first]->type),
			       (unsigned long long)all[first]->off);
		rd_corrupt(r, b->off);
		r->info.duplicate_blocks++;
		r->dups[r->ndups++] = b->off;
		b->type = 0;
	}
	free(all);
	qsort(r->dups, r->ndups, sizeof(*r->dups), cmp_u64);
	compact(r->chunks, &r->nchunks);
	compact(r->states, &r->nstates);
	return 0;
}

static int finish_open(tz_reader *r)
{
	int rc = drop_duplicates(r);
	if (rc)
		return rc;
	rc = load_heads(r);
	if (rc)
		return rc;
	if (r->nchunks > 1)
		qsort(r->chunks, r->nchunks, sizeof(*r->chunks), cmp_chunk);
	if (r->nstates > 1)
		qsort(r->states, r->nstates, sizeof(*r->states), cmp_seq);
	r->prefmax = malloc((r->nchunks ? r->nchunks : 1) * sizeof(*r->prefmax));
	CHECK(r->prefmax, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
	struct tz_info *in = &r->info;
	in->first_ts_ns = UINT64_MAX;
	if ((rc = add_anchor(r, r->start_boot, r->start_real)))
		return rc;
	uint64_t sb;
	int64_t sr;
	if (!tz_reader_meta_u64(r, "stop_anchor_boot_ns", &sb) &&
	    !tz_reader_meta_i64(r, "stop_anchor_real_ns", &sr) && (rc = add_anchor(r, sb, sr)))
		return rc;
	uint64_t pm = 0;
	for (size_t i = 0; i < r->nchunks; i++) {
		struct rd_blk *b = &r->chunks[i];
		in->chunks++;
		in->events += b->ext.events;
		in->bytes_compressed += b->payload_len;
		in->bytes_uncompressed += b->raw_len;
		if (b->ext.events) {
			if (b->ext.min_ts < in->first_ts_ns)
				in->first_ts_ns = b->ext.min_ts;
			if (b->ext.max_ts > in->last_ts_ns)
				in->last_ts_ns = b->ext.max_ts;
		}
		if (b->ext.dropped_total > in->dropped)
			in->dropped = b->ext.dropped_total;
		pm = b->ext.max_ts > pm ? b->ext.max_ts : pm;
		r->prefmax[i] = pm;
		if ((rc = add_anchor(r, b->ext.anchor_boot, b->ext.anchor_real)))
			return rc;
	}
	for (size_t i = 0; i < r->nstates; i++) {
		struct rd_blk *b = &r->states[i];
		in->state_blocks++;
		if (b->ext.dropped_total > in->dropped)
			in->dropped = b->ext.dropped_total;
		if ((rc = add_anchor(r, b->ext.anchor_boot, b->ext.anchor_real)))
			return rc;
	}
	if (in->first_ts_ns == UINT64_MAX) {
		in->first_ts_ns = 0;
		for (size_t i = 0; i < r->nstates; i++) {
			if (!i || r->states[i].ext.min_ts < in->first_ts_ns)
				in->first_ts_ns = r->states[i].ext.min_ts;
			if (r->states[i].ext.max_ts > in->last_ts_ns)
				in->last_ts_ns = r->states[i].ext.max_ts;
		}
	}
	if (r->nanchors > 1)
		qsort(r->anchors, r->nanchors, sizeof(*r->anchors), cmp_anchor);
	return 0;
}

static int ropen(tz_reader *r)
{
	int rc = parse_header(r);
	if (rc)
		return rc;
	r->info.file_size = r->len;
	if (r->ring) {
		/* the final slot holds a METADATA block once the writer closed */
		struct tz_bhdr fh;
		uint64_t e = r->ring_start < r->len ? r->ring_start : r->len;
		if (r->final_off >= e || tz_bhdr_decode(r->data + r->final_off, e - r->final_off, &fh) ||
		    fh.type != TZ_B_META || tz_block_size(&fh) > e - r->final_off) {
			r->info.unfinished = 1;
			r->info.unfinished_offset = r->final_off;
		}
	} else if (!(r->opts.flags & TZ_R_SCAN)) {
		rc = load_index(r);
		if (rc == TZ_ERR_NOMEM)
			return rd_err(r, rc, UINT64_MAX, "out of memory");
		if (!rc)
			r->info.has_footer = 1;
		else if (rc > 0)
			r->info.unfinished = 1;
	} else if (!trailer_valid(r)) {
		r->info.unfinished = 1;
	}
	if (r->info.unfinished && !r->ring)
		r->info.unfinished_offset = r->len;
	r->info.live = r->info.unfinished && r->writer_locked;
	if (!r->info.has_footer) {
		r->errmsg[0] = 0;
		rc = rd_walk(r, scan_visit, NULL);
		if (rc)
			return rc;
		/* a closed file whose index does not describe it: the footer
		 * is ignored (not a lost block: the scan found the blocks) */
		if (r->idx_bad)
			memcpy(r->errmsg, r->idxmsg, sizeof(r->errmsg));
	}
	return finish_open(r);
}

static tz_reader *ralloc(const char *name, const struct tz_reader_opts *opts)
{
	tz_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	if (opts)
		r->opts = *opts;
	r->max_chunk = r->opts.max_chunk ? r->opts.max_chunk : 64ull << 20;
	if (r->max_chunk > 0xffffffffull)
		r->max_chunk = 0xffffffffull;
	r->name = strdup(name ? name : "<memory>");
	r->type_idx = calloc(65536, sizeof(*r->type_idx));
	if (!r->name || !r->type_idx) {
		tz_reader_free(r);
		return NULL;
	}
	return r;
}

int tz_reader_open_mem(tz_reader **out, const void *buf, size_t len, const char *name,
		       const struct tz_reader_opts *opts)
{
	if (!out)
		return TZ_ERR_INVAL;
	*out = NULL;
	tz_reader *r = ralloc(name, opts);
	if (!r)
		return TZ_ERR_NOMEM;
	*out = r;
	if (!buf && len)
		return rd_err(r, TZ_ERR_INVAL, UINT64_MAX, "no buffer");
	r->data = buf ? buf : (const uint8_t *)"";
	r->len = len;
	return ropen(r);
}

int tz_reader_open(tz_reader **out, const char *path, const struct tz_reader_opts *opts)
{
	struct stat st;
	if (!out || !path)
		return TZ_ERR_INVAL;
	*out = NULL;
	tz_reader *r = ralloc(path, opts);
	if (!r)
		return TZ_ERR_NOMEM;
	*out = r;
	/* O_NONBLOCK: opening a FIFO (or a tty) must not wait for a writer */
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0)
		return rd_err(r, TZ_ERR_IO, UINT64_MAX, "cannot open: %s", strerror(errno));
	if (fstat(r->fd, &st))
		return rd_err(r, TZ_ERR_IO, UINT64_MAX, "cannot stat: %s", strerror(errno));
	CHECK(S_ISREG(st.st_mode), TZ_ERR_IO, UINT64_MAX, "not a regular file");
	int fl = fcntl(r->fd, F_GETFL);
	if (fl < 0 || fcntl(r->fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return rd_err(r, TZ_ERR_IO, UINT64_MAX, "cannot open: %s", strerror(errno));
	/* a writer holds LOCK_EX while it writes (tz_writer_open): a shared
	 * lock refused means the file is still being written */
	if (flock(r->fd, LOCK_SH | LOCK_NB) == 0)
		flock(r->fd, LOCK_UN);
	else if (errno == EWOULDBLOCK)
		r->writer_locked = 1;
	r->len = (size_t)st.st_size;
	if (r->len) {
		void *m = mmap(NULL, r->len, PROT_READ, MAP_PRIVATE, r->fd, 0);
		CHECK(m != MAP_FAILED, TZ_ERR_IO, UINT64_MAX, "cannot map: %s", strerror(errno));
		r->map = m;
		r->data = m;
	} else {
		r->data = (const uint8_t *)"";
	}
	return ropen(r);
}

static void free_iter(tz_reader *r);

void tz_reader_free(tz_reader *r)
{
	if (!r)
		return;
	free_iter(r);
	if (r->map)
		munmap(r->map, r->len);
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->ntypes; i++)
		tz_type_free(&r->types[i]);
	free(r->types);
	tz_kv_free(r->kv, r->nkv);
	free(r->type_idx);
	free(r->chunks);
	free(r->states);
	free(r->dups);
	free(r->heads);
	free(r->prefmax);
	free(r->anchors);
	free(r->cand);
	free(r->heap);
	ZSTD_freeDCtx(r->dctx);
	free(r->name);
	free(r);
}

const char *tz_reader_errmsg(const tz_reader *r) { return r ? r->errmsg : ""; }

const struct tz_info *tz_reader_info(const tz_reader *r) { return r ? &r->info : NULL; }

size_t tz_reader_meta_count(const tz_reader *r) { return r ? r->nkv : 0; }

int tz_reader_meta_at(const tz_reader *r, size_t i, const char **key, const char **value)
{
	if (!r || i >= r->nkv)
		return TZ_ERR_INVAL;
	if (key)
		*key = r->kv[i].key;
	if (value)
		*value = r->kv[i].value;
	return 0;
}

const char *tz_reader_meta_get(const tz_reader *r, const char *key)
{
	if (!r || !key)
		return NULL;
	for (size_t i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, key))
			return r->kv[i].value;
	return NULL;
}

/* digits only, at least one, value <= max: 0, else TZ_ERR_INVAL */
static int dec_digits(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s)
		return TZ_ERR_INVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return TZ_ERR_INVAL;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return TZ_ERR_INVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int tz_reader_meta_u64(const tz_reader *r, const char *key, uint64_t *out)
{
	uint64_t v;
	int rc = dec_digits(tz_reader_meta_get(r, key), UINT64_MAX, &v);
	if (!rc && out)
		*out = v;
	return rc;
}

int tz_reader_meta_i64(const tz_reader *r, const char *key, int64_t *out)
{
	const char *s = tz_reader_meta_get(r, key);
	int neg = s && *s == '-';
	uint64_t v;
	int rc = dec_digits(s ? s + neg : NULL, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &v);
	if (!rc && out)
		*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return rc;
}

size_t tz_reader_type_count(const tz_reader *r) { return r ? r->ntypes : 0; }

const struct tz_event_type *tz_reader_type_at(const tz_reader *r, size_t i)
{
	return r && i < r->ntypes ? &r->types[i].t : NULL;
}

const struct tz_event_type *tz_reader_type_by_id(const tz_reader *r, uint16_t id)
{
	if (!r || !r->type_idx[id])
		return NULL;
	return &r->types[r->type_idx[id] - 1].t;
}

int tz_reader_realtime(const tz_reader *r, uint64_t boot_ns, int64_t *realtime_ns)
{
	if (!r || !realtime_ns || !r->nanchors)
		return TZ_ERR_INVAL;
	size_t lo = 0, hi = r->nanchors;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (r->anchors[mid].boot <= boot_ns)
			lo = mid;
		else
			hi = mid;
	}
#define DIST(x, y) ((x) > (y) ? (x) - (y) : (y) - (x))
	const struct rd_anchor *a = &r->anchors[lo];
	if (lo + 1 < r->nanchors && DIST(r->anchors[lo + 1].boot, boot_ns) < DIST(a->boot, boot_ns))
		a = &r->anchors[lo + 1];
#undef DIST
	/* unsigned arithmetic: hostile anchors wrap instead of overflowing */
	*realtime_ns = (int64_t)((uint64_t)a->real + (boot_ns - a->boot));
	return 0;
}

uint64_t tz_reader_chunks_decoded(const tz_reader *r) { return r ? r->decoded : 0; }

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

/*
 * Decode block b. Events outside [from, to] and (unless keep_unknown) of
 * types not in the schema are dropped; the rest are sorted by (ts, pos).
 * Returns 0 and *out, 1 (*out NULL) for a block with unknown flags (skipped
 * by the compatibility rules), or a tz_err (message set).
 */
int rd_decode(tz_reader *r, const struct rd_blk *b, uint64_t from, uint64_t to, int keep_unknown,
	      struct dchunk **out);

int rd_decode(tz_reader *r, const struct rd_blk *b, uint64_t from, uint64_t to, int keep_unknown,
	      struct dchunk **out)
{
	struct tz_bhdr h;
	const uint8_t *p;
	const char *what = tz_btype_name(b->type);
	unsigned long long seq = b->seq;
	uint64_t off = b->off;
	*out = NULL;
	CHECK(off < r->len, TZ_ERR_TRUNCATED, off, "%s %llu: beyond the end of the file", what,
	      seq);
	int rc = tz_bhdr_decode(r->data + off, r->len - off, &h);
	CHECK(!rc, rc, off, "%s %llu: bad block header: %s", what, seq, tz_strerror(rc));
	CHECK(h.type == b->type && h.seq == b->seq && tz_block_size(&h) == b->size &&
		  h.ext_len >= TZ_CHUNK_EXT,
	      TZ_ERR_CORRUPT, off, "%s %llu: block header does not match the index", what, seq);
	if (h.flags & ~TZ_BF_KNOWN)
		return 1; /* a future encoding: skipped, not damage */
	struct tz_chunk_ext hx;
	tz_chunk_ext_decode(h.ext, &hx);
	CHECK(hx.min_ts == b->ext.min_ts && hx.max_ts == b->ext.max_ts &&
		  hx.events == b->ext.events,
	      TZ_ERR_CORRUPT, off, "%s %llu: block header does not match the index", what, seq);
	/* a recycled chunk: every buffer's capacity is right whatever the
	 * contents a failed decode left */
	struct dchunk *c = dchunk_get(r);
	CHECK(c, TZ_ERR_NOMEM, off, "out of memory");
	if ((rc = payload_into(r, off, &h, &p, &c->own, &c->ocap))) {
		dchunk_put(r, c);
		return rc;
	}
	r->decoded++;
	const uint8_t *q = p, *end = p + h.raw_len;
	uint64_t nstr, v;
	size_t nb = 0, npos = 0;
	c->seq = b->seq;
	c->state = b->type == TZ_B_STATE;
	rc = TZ_ERR_CORRUPT;
	if (tz_get_varint(&q, end, &nstr) || nstr > (uint64_t)(end - q))
		goto bad;
	/* an event takes at least 4 payload bytes and a blob reference 1: the
	 * header's count (checked after decoding) is only a capacity hint */
	uint64_t hint = b->ext.events < h.raw_len / 4 ? b->ext.events : h.raw_len / 4;
	void *a = c->ev;
	rc = arr_fit(&a, &c->cap, (size_t)hint, sizeof(*c->ev)) ? TZ_ERR_NOMEM : 0;
	c->ev = a;
	if (rc)
		goto fail;
	if (c->bcap > h.raw_len + 4096) { /* more than any payload this size refers to */
		free(c->blobs);
		c->blobs = NULL;
		c->bcap = 0;
	}
	if (r->scap < nstr) {
		size_t ns = (size_t)nstr + (size_t)nstr / 8;
		free(r->sp);
		free(r->sl);
		r->scap = 0;
		r->sp = malloc(ns * sizeof(*r->sp));
		r->sl = malloc(ns * sizeof(*r->sl));
		if (!r->sp || !r->sl) {
			rc = TZ_ERR_NOMEM;
			goto fail;
		}
		r->scap = ns;
	}
	const uint8_t **sp = r->sp;
	uint32_t *sl = r->sl;
	rc = TZ_ERR_CORRUPT;
	for (uint64_t i = 0; i < nstr; i++) {
		if (tz_get_varint(&q, end, &v) || v > (uint64_t)(end - q))
			goto bad;
		sp[i] = q;
		sl[i] = (uint32_t)v;
		q += v;
	}
	uint64_t ts = 0;
	while (q < end) {
		uint64_t type, dts, flen, nbl;
		if (tz_get_varint(&q, end, &type) || tz_get_varint(&q, end, &dts) ||
		    tz_get_varint(&q, end, &flen) || type > 0xffff || flen > (uint64_t)(end - q))
			goto bad;
		ts += (uint64_t)tz_unzigzag(dts);
		if (ts < b->ext.min_ts || ts > b->ext.max_ts) {
			rd_err(r, TZ_ERR_CORRUPT, off,
			       "%s %llu: event time outside the block's range", what, seq);
			goto fail;
		}
		const uint8_t *fixed = q;
		q += flen;
		if (tz_get_varint(&q, end, &nbl) || nbl > (uint64_t)(end - q))
			goto bad;
		size_t b0 = nb;
		for (uint64_t i = 0; i < nbl; i++) {
			if (tz_get_varint(&q, end, &v) || v > nstr)
				goto bad;
			if (nb == c->bcap) {
				a = c->blobs;
				if (arr_grow(&a, &c->bcap, sizeof(*c->blobs))) {
					rc = TZ_ERR_NOMEM;
					goto fail;
				}
				c->blobs = a;
			}
			c->blobs[nb].data = v ? sp[v - 1] : NULL;
			c->blobs[nb].len = v ? sl[v - 1] : 0;
			nb++;
		}
		npos++;
		if (ts < from || ts > to || (!keep_unknown && !r->type_idx[type])) {
			nb = b0;
			continue;
		}
		if (c->n == c->cap) {
			a = c->ev;
			if (arr_grow(&a, &c->cap, sizeof(*c->ev))) {
				rc = TZ_ERR_NOMEM;
				goto fail;
			}
			c->ev = a;
		}
		struct devt *e = &c->ev[c->n++];
		e->ts = ts;
		e->fixed = fixed;
		e->fixed_len = (uint32_t)flen;
		e->nblobs = (uint32_t)nbl;
		e->blob0 = (uint32_t)b0;
		e->pos = (uint32_t)npos;
		e->type = (uint16_t)type;
	}
	if (npos != b->ext.events) {
		rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: %zu events, header says %llu", what, seq,
		       npos, (unsigned long long)b->ext.events);
		goto fail;
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
bad:
	rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: bad event encoding at payload byte %llu", what,
	       seq, (unsigned long long)(q - p));
fail:
	if (rc == TZ_ERR_NOMEM)
		rd_err(r, rc, off, "out of memory");
	scratch_trim(r);
	dchunk_put(r, c);
	return rc;
}

void rd_dchunk_free(struct dchunk *c) { dchunk_free(c); }

/* ---------------------------------------------------------------- iterate */

/* End an iteration: every decoded chunk, the pool and the scratch freed. */
static void free_iter(tz_reader *r)
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
	return cmp_chunk(x, y);
}

int tz_reader_iter(tz_reader *r, uint64_t from_ns, uint64_t to_ns, uint32_t flags)
{
	if (!r || from_ns > to_ns)
		return TZ_ERR_INVAL;
	if (r->fatal)
		return r->fatal;
	free_iter(r);
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
