/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_reader.c - the .tz reader: open, header, metadata, types and clocks
 * (the block list is tz_scan.c's, iteration tz_iter.c's). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "tz_rd.h"

int rd_err(tz_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tz_errmsg_vset(r->errmsg, sizeof(r->errmsg), r->name, off, fmt, ap);
	va_end(ap);
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
int rd_payload_into(tz_reader *r, uint64_t off, const struct tz_bhdr *h, const uint8_t **out,
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
	int rc = rd_payload_into(r, off, h, out, &b, &cap);
	if (rc || *out != b) {
		free(b);
		b = NULL;
	}
	*own = b;
	return rc;
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
	if (r->info.incompat_flags & TZ_INCOMPAT_MULTI) {
		r->hdr_size = hs;
		CHECK(!(r->info.incompat_flags & TZ_INCOMPAT_RING), TZ_ERR_CORRUPT, 32,
		      "incompatible feature flags RING and MULTI together");
		return rd_err(r, TZ_ERR_MULTI, UINT64_MAX,
			      "a multi-host trace: it holds member traces (FORMAT.md 18)");
	}
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

static int finish_open(tz_reader *r)
{
	int rc = rd_drop_duplicates(r);
	if (rc)
		return rc;
	rc = rd_load_heads(r);
	if (rc)
		return rc;
	if (r->nchunks > 1)
		qsort(r->chunks, r->nchunks, sizeof(*r->chunks), rd_cmp_chunk);
	if (r->nstates > 1)
		qsort(r->states, r->nstates, sizeof(*r->states), rd_cmp_seq);
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
		rc = rd_load_index(r);
		if (rc == TZ_ERR_NOMEM)
			return rd_err(r, rc, UINT64_MAX, "out of memory");
		if (!rc)
			r->info.has_footer = 1;
		else if (rc > 0)
			r->info.unfinished = 1;
	} else if (!rd_trailer_valid(r)) {
		r->info.unfinished = 1;
	}
	if (r->info.unfinished && !r->ring)
		r->info.unfinished_offset = r->len;
	r->info.live = r->info.unfinished && r->writer_locked;
	if (!r->info.has_footer) {
		r->errmsg[0] = 0;
		r->blocks_end = r->hdr_size;
		rc = rd_walk(r, rd_scan_visit, NULL);
		if (rc)
			return rc;
		if (!r->ring && r->info.unfinished && r->blocks_end < r->len) {
			r->info.tail_offset = r->blocks_end;
			r->info.tail_bytes = r->len - r->blocks_end;
			r->info.tail_after_footer = r->footer_end && r->footer_end == r->blocks_end;
		}
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
	if (!out || !path)
		return TZ_ERR_INVAL;
	*out = NULL;
	tz_reader *r = ralloc(path, opts);
	if (!r)
		return TZ_ERR_NOMEM;
	*out = r;
	struct tz_map f;
	char why[256];
	if (tz_map_file(path, &f, why, sizeof(why)))
		return rd_err(r, TZ_ERR_IO, UINT64_MAX, "%s", why);
	r->fd = f.fd;
	r->map = f.map;
	r->len = f.len;
	r->writer_locked = f.writer_locked;
	r->data = f.map ? f.map : (const uint8_t *)"";
	return ropen(r);
}

void tz_reader_free(tz_reader *r)
{
	if (!r)
		return;
	rd_free_iter(r);
	if (r->map)
		munmap(r->map, r->len);
	if (r->fd >= 0)
		close(r->fd);
	tz_types_free(r->types, r->ntypes);
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
