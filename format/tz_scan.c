/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_scan.c - the reader's block list: the walker over the file, the scan,
 * the trailer and index, duplicate seqs, metadata and schema blocks. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "tz_rd.h"

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

int rd_cmp_seq(const void *a, const void *b)
{
	const struct rd_blk *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int rd_cmp_chunk(const void *a, const void *b)
{
	const struct rd_blk *x = a, *y = b;
	if (x->ext.min_ts != y->ext.min_ts)
		return x->ext.min_ts < y->ext.min_ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse metadata and schema blocks in sequence order (later wins). */
int rd_load_heads(tz_reader *r)
{
	if (r->nheads > 1)
		qsort(r->heads, r->nheads, sizeof(*r->heads), rd_cmp_seq);
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

/* The first block magic in [from, end), or NULL. The file's holes (sparse
 * regions: zeros that were never written, as a power loss or a truncate -s
 * leaves them) are skipped with SEEK_DATA/SEEK_HOLE instead of read: the
 * magic holds no zero byte, so no match starts or lies in one. */
static const uint8_t *find_magic(const tz_reader *r, uint64_t from, uint64_t end)
{
	while (from < end) {
		uint64_t stop = end;
		if (r->fd >= 0) {
			off_t d = lseek(r->fd, (off_t)from, SEEK_DATA);
			if (d < 0 && errno == ENXIO)
				return NULL; /* a hole to the end of the file */
			if (d >= 0) {
				from = (uint64_t)d;
				off_t h = lseek(r->fd, d, SEEK_HOLE);
				if (h > d && (uint64_t)h < end)
					stop = (uint64_t)h;
			}
			if (from >= end)
				return NULL;
		}
		/* memchr for the first byte runs at memory speed over zeros */
		const uint8_t *p = r->data + from, *e = r->data + stop;
		while ((p = memchr(p, TZ_BMAGIC[0], (size_t)(e - p)))) {
			if ((size_t)(e - p) >= TZ_BMAGIC_LEN && !memcmp(p, TZ_BMAGIC, TZ_BMAGIC_LEN))
				return p;
			if (++p >= e)
				break;
		}
		from = stop;
	}
	return NULL;
}

/* Next offset in [from, end) holding a decodable block header that lies
 * wholly before end and whose seq is above min_seq; end if none. */
static uint64_t resync(tz_reader *r, uint64_t from, uint64_t end, uint64_t min_seq, int ring)
{
	while (from + TZ_BHDR_MIN <= end) {
		const uint8_t *m = find_magic(r, from, end);
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

int rd_scan_visit(tz_reader *r, void *ctx, uint64_t off, const struct tz_bhdr *h, uint64_t size,
		  int status)
{
	(void)ctx;
	if (!h) {
		if (r->ring && off >= r->len) {
			rd_err(r, TZ_ERR_TRUNCATED, off,
			       "ring file cut short: %zu of its %llu bytes", r->len,
			       (unsigned long long)(off + size));
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
	r->blocks_end = off + size;
	if (h->type == TZ_B_TRAILER && h->ext_len >= TZ_TRAILER_EXT &&
	    tz_le64(h->ext + 16) == off + size)
		r->footer_end = off + size;
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

/* fail rd_load_index() with the index found damaged at off */
#define IDX_CHECK(cond, off, ...)                                                                  \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			rd_err(r, TZ_ERR_CORRUPT, off, __VA_ARGS__);                               \
			r->idx_bad = off;                                                          \
			goto bad;                                                                  \
		}                                                                                  \
	} while (0)

/* Does the file end with a valid TRAILER block (was it closed)? */
int rd_trailer_valid(tz_reader *r)
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
int rd_load_index(tz_reader *r)
{
	struct tz_bhdr h, ih;
	if (!rd_trailer_valid(r))
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
			       (h.ext_len >= TZ_CHUNK_EXT && !memcmp(h.ext, e + 32, TZ_CHUNK_EXT))),
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
int rd_drop_duplicates(tz_reader *r)
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
			rd_err(r, TZ_ERR_SEQ, b->off,
			       "%s %llu: same seq as the %s at offset %llu: skipped",
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
