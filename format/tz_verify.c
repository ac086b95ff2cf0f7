/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_verify.c - verify every block; recover a clean linear file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tz_rd.h"

#define STOP 1000 /* visit() result meaning "the callback asked to stop" */

struct vctx {
	int (*cb)(void *ctx, const struct tz_block_info *b);
	void *ctx;
	int bad;
};

/* Check one block completely: payload checksum, decompression, decoding. */
static int check_block(tz_reader *r, uint64_t off, const struct tz_bhdr *h,
		       struct tz_block_info *bi)
{
	const uint8_t *p;
	uint8_t *own = NULL;
	const char *why;
	int rc = 0;

	if (h->flags & ~TZ_BF_KNOWN)
		return 0; /* a future encoding: not ours to judge */
	if (h->type == TZ_B_CHUNK || h->type == TZ_B_STATE) {
		if (h->ext_len < TZ_CHUNK_EXT)
			return rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: short header", bi->what,
				      (unsigned long long)h->seq);
		struct rd_blk b;
		struct dchunk *c;
		memset(&b, 0, sizeof(b));
		b.off = off;
		b.seq = h->seq;
		b.type = h->type;
		b.size = tz_block_size(h);
		tz_chunk_ext_decode(h->ext, &b.ext);
		bi->events = b.ext.events;
		bi->min_ts_ns = b.ext.min_ts;
		bi->max_ts_ns = b.ext.max_ts;
		if (b.ext.min_ts > b.ext.max_ts)
			return rd_err(r, TZ_ERR_CORRUPT, off, "%s %llu: min_ts after max_ts",
				      bi->what, (unsigned long long)h->seq);
		/* rd_decode decodes and bounds-checks every event */
		rc = rd_decode(r, &b, 0, UINT64_MAX, 1, &c);
		if (rc > 0)
			return 0;
		if (!rc)
			rd_dchunk_free(c);
		return rc;
	}
	if (h->type == TZ_B_TRAILER)
		return 0;
	if ((rc = rd_payload(r, off, h, &p, &own)))
		return rc;
	if (h->type == TZ_B_META) {
		struct tz_kv *kv = NULL;
		size_t n = 0;
		rc = tz_meta_decode(p, h->raw_len, &kv, &n, &why);
		tz_kv_free(kv, n);
	} else if (h->type == TZ_B_SCHEMA) {
		struct tz_type_own *t = NULL;
		size_t n = 0;
		rc = tz_schema_decode(p, h->raw_len, &t, &n, &why);
		tz_types_free(t, n);
	} else if (h->type == TZ_B_INDEX && h->raw_len % TZ_INDEX_ENTRY) {
		why = "size is not a multiple of the entry size";
		rc = TZ_ERR_CORRUPT;
	}
	free(own);
	if (rc)
		rd_err(r, rc, off, "%s %llu: %s", bi->what, (unsigned long long)h->seq,
		       rc == TZ_ERR_NOMEM ? "out of memory" : why);
	return rc;
}

static int verify_visit(tz_reader *r, void *ctx, uint64_t off, const struct tz_bhdr *h,
			uint64_t size, int status)
{
	struct vctx *v = ctx;
	struct tz_block_info bi;
	memset(&bi, 0, sizeof(bi));
	bi.offset = off;
	bi.size = size;
	if (!h) {
		bi.status = status ? status : TZ_ERR_CORRUPT;
		bi.what = status == TZ_ERR_TRUNCATED ? "incomplete block" : "damaged data";
		if (r->ring && off >= r->len) {
			bi.what = "missing data";
			rd_err(r, bi.status, off, "ring file cut short: %zu of its %llu bytes",
			       r->len, (unsigned long long)(off + size));
		} else {
			rd_err(r, bi.status, off, "%s (%llu bytes): %s", bi.what,
			       (unsigned long long)size, tz_strerror(bi.status));
		}
	} else {
		bi.type = h->type;
		bi.seq = h->seq;
		bi.what = tz_btype_name(h->type);
		bi.status = check_block(r, off, h, &bi);
		if (bi.status == TZ_ERR_NOMEM)
			return TZ_ERR_NOMEM;
		bi.no_loss = bi.status && h->type == TZ_B_INDEX;
		if (!bi.status && rd_is_dup(r, off)) {
			bi.status = TZ_ERR_SEQ;
			rd_err(r, bi.status, off, "%s %llu: same seq as an earlier chunk or state block",
			       bi.what, (unsigned long long)h->seq);
		}
	}
	if (bi.status)
		v->bad++;
	if (v->cb && v->cb(v->ctx, &bi))
		return -STOP;
	return 0;
}

int tz_reader_verify(tz_reader *r, int (*cb)(void *ctx, const struct tz_block_info *b), void *ctx)
{
	if (!r)
		return TZ_ERR_INVAL;
	struct vctx v = {cb, ctx, 0};
	int rc = rd_walk(r, verify_visit, &v);
	if (rc < 0 && rc != -STOP)
		return rc;
	if (!r->ring && !r->info.has_footer && !(r->opts.flags & TZ_R_SCAN) &&
	    (r->idx_bad || r->saw_trailer)) {
		/* a trailer exists but did not lead to a usable index (the
		 * reason found at open, else the trailer is not at the end) */
		struct tz_block_info bi = {0};
		int idx = r->idx_bad && r->idx_bad != r->len - TZ_TRAILER_SIZE;
		bi.offset = r->idx_bad ? r->idx_bad : r->saw_trailer;
		bi.type = idx ? TZ_B_INDEX : TZ_B_TRAILER;
		bi.size = idx ? r->len - TZ_TRAILER_SIZE - r->idx_bad : TZ_TRAILER_SIZE;
		bi.what = idx ? "index" : "trailer";
		bi.status = TZ_ERR_CORRUPT;
		v.bad++;
		if (r->idx_bad)
			memcpy(r->errmsg, r->idxmsg, sizeof(r->errmsg));
		else
			rd_err(r, TZ_ERR_CORRUPT, r->saw_trailer,
			       "trailer does not point at a valid index");
		if (cb && rc != -STOP)
			cb(ctx, &bi);
	}
	return v.bad;
}

/* ---------------------------------------------------------------- recover */

struct sink {
	tz_reader *r;
	const char *path;
	const char *name; /* path as messages show it */
	int fd;
	uint64_t pos;
	struct tz_buf index;
};

static int sink_write(struct sink *s, const void *p, size_t len)
{
	const uint8_t *b = p;
	while (len) {
		ssize_t n = pwrite(s->fd, b, len, (off_t)s->pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			return rd_err(s->r, e == ENOSPC ? TZ_ERR_NOSPC : TZ_ERR_IO, UINT64_MAX,
				      "'%s': write: %s", s->name, strerror(e));
		}
		b += n;
		len -= (size_t)n;
		s->pos += (uint64_t)n;
	}
	return 0;
}

static int sink_entry(struct sink *s, uint64_t off, uint64_t seq, uint32_t size, uint32_t raw,
		      uint32_t type, const struct tz_chunk_ext *ext)
{
	uint8_t e[TZ_INDEX_ENTRY];
	tz_index_entry_encode(e, off, seq, size, raw, type, ext);
	return tz_buf_put(&s->index, e, sizeof(e)) ? TZ_ERR_NOMEM : 0;
}

/* Write a new raw (uncompressed) block and index it. */
static int sink_block(struct sink *s, uint8_t type, uint64_t seq, const uint8_t *p, size_t len,
		      int indexed)
{
	uint8_t hdr[TZ_BHDR_MIN];
	struct tz_bhdr h = {0};
	h.type = type;
	h.payload_len = h.raw_len = (uint32_t)len;
	h.seq = seq;
	h.payload_csum = tz_hash(p, len);
	tz_bhdr_encode(hdr, &h, NULL);
	uint64_t off = s->pos;
	int rc = sink_write(s, hdr, sizeof(hdr)) ?: sink_write(s, p, len);
	if (!rc && indexed)
		rc = sink_entry(s, off, seq, (uint32_t)(TZ_BHDR_MIN + len), (uint32_t)len, type,
				NULL);
	return rc;
}

static int cmp_ptr_seq(const void *a, const void *b)
{
	const struct rd_blk *x = *(const struct rd_blk *const *)a;
	const struct rd_blk *y = *(const struct rd_blk *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A METADATA block (seq) saying what r lost (tz_recover); b is scratch.
 * 0 or a tz_err. */
static int recover_losses(tz_reader *r, struct sink *s, struct tz_buf *b, uint64_t seq)
{
	const struct tz_info *in = &r->info;
	struct tz_kv *kv = NULL;
	size_t n = 0;
	char v[64];
	int rc = 0;
#define KV(k, ...)                                                                            \
	do {                                                                                  \
		int l_ = snprintf(v, sizeof(v), __VA_ARGS__);                                 \
		if (!rc && tz_kv_set(&kv, &n, k, strlen(k), v, (size_t)l_))                   \
			rc = TZ_ERR_NOMEM;                                                    \
	} while (0)
	KV("recovered_damaged_blocks", "%llu", (unsigned long long)in->corrupt_blocks);
	KV("recovered_unfinished", "%d", in->unfinished ? 1 : 0);
	if (in->ring && in->ring_wrapped) /* by design, not a loss: said, not counted */
		KV("recovered_ring_wrapped", "1");
	if (in->torn_tail_bytes) {
		KV("recovered_cut_offset", "%llu", (unsigned long long)in->torn_tail_offset);
		if (in->torn_tail_what)
			KV("recovered_cut_block", "%s %llu", in->torn_tail_what,
			   (unsigned long long)in->torn_tail_seq);
		else
			KV("recovered_cut_block", "block");
		if (in->torn_tail_events)
			KV("recovered_cut_events", "%llu", (unsigned long long)in->torn_tail_events);
	}
#undef KV
	b->len = 0;
	if (!rc)
		rc = tz_meta_encode(b, kv, n) ? TZ_ERR_NOMEM : 0;
	if (!rc)
		rc = sink_block(s, TZ_B_META, seq, b->p, b->len, 1);
	tz_kv_free(kv, n);
	return rc;
}

/* Create the output (a fresh 0600 inode, never a FIFO, device or a
 * symlink's target, never the input): 0 with s->fd set, or a tz_err. */
static int recover_create(tz_reader *r, struct sink *s, int overwrite)
{
	struct stat in_st, out_st;
	if (r->fd >= 0 && !fstat(r->fd, &in_st) && !stat(s->path, &out_st) &&
	    in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
		return rd_err(r, TZ_ERR_INVAL, UINT64_MAX, "'%s': output is the input file",
			      s->name);
	s->fd = tz_create_file(s->path, overwrite);
	if (s->fd < 0) {
		int e = errno, fd = s->fd;
		if (fd == TZ_ERR_INVAL)
			return rd_err(r, TZ_ERR_IO, UINT64_MAX, "'%s': not a regular file",
				      s->name);
		return rd_err(r, fd, UINT64_MAX, "'%s': cannot create: %s", s->name,
			      strerror(e));
	}
	return 0;
}

/* The header (the input's identity and start anchor, linear layout), then
 * the merged metadata and schema at sequence 0: every later block wins.
 * b is scratch. 0 or a tz_err. */
static int recover_head(tz_reader *r, struct sink *s, struct tz_buf *b)
{
	uint8_t h[TZ_HDR_SIZE];
	struct tz_fhdr f = {r->info.uuid, r->info.boot_id, r->start_boot, r->start_real, 0, 0, 0,
			    0, 0};
	tz_fhdr_encode(h, &f);
	int rc = sink_write(s, h, sizeof(h));
	if (rc)
		return rc;
	rc = tz_meta_encode(b, r->kv, r->nkv) ? TZ_ERR_NOMEM : 0;
	if (!rc)
		rc = sink_block(s, TZ_B_META, 0, b->p, b->len, 1);
	b->len = 0;
	if (!rc)
		rc = tz_schema_encode(b, r->types, r->ntypes) ? TZ_ERR_NOMEM : 0;
	if (!rc)
		rc = sink_block(s, TZ_B_SCHEMA, 0, b->p, b->len, 1);
	return rc;
}

/* Copy block k as it is when it decodes (a damaged one is counted, one of
 * an unknown encoding skipped): 1 copied, 0 not, or a tz_err. */
static int recover_block(tz_reader *r, struct sink *s, struct rd_blk *k)
{
	struct dchunk *c;
	int rc = rd_decode(r, k, 0, UINT64_MAX, 1, &c);
	if (rc == TZ_ERR_NOMEM)
		return rc;
	if (rc > 0) /* unknown encoding: not ours to copy */
		return 0;
	if (rc) {
		k->bad = 1;
		rd_corrupt(r, k->off);
		return 0;
	}
	rd_dchunk_free(c);
	uint64_t off = s->pos;
	if ((rc = sink_write(s, r->data + k->off, k->size)))
		return rc;
	struct tz_bhdr bh;
	tz_bhdr_decode(r->data + k->off, k->size, &bh);
	rc = sink_entry(s, off, k->seq, (uint32_t)k->size, bh.raw_len, k->type, &k->ext);
	return rc ? rc : 1;
}

/* Copy every chunk and state block that decodes, in seq order: the chunks
 * copied, or a tz_err; *maxseq the largest seq copied (else unchanged),
 * *events the events of the chunks copied. */
static int recover_blocks(tz_reader *r, struct sink *s, uint64_t *maxseq, uint64_t *events)
{
	size_t n = r->nchunks + r->nstates;
	struct rd_blk **all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return rd_err(r, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
	for (size_t i = 0; i < r->nchunks; i++)
		all[i] = &r->chunks[i];
	for (size_t i = 0; i < r->nstates; i++)
		all[r->nchunks + i] = &r->states[i];
	if (n > 1)
		qsort(all, n, sizeof(*all), cmp_ptr_seq);
	int rc = 0, written = 0;
	for (size_t i = 0; i < n; i++) {
		struct rd_blk *k = all[i];
		if (k->bad)
			continue;
		if ((rc = recover_block(r, s, k)) < 0)
			break;
		if (!rc)
			continue;
		if (k->seq > *maxseq)
			*maxseq = k->seq;
		if (k->type == TZ_B_CHUNK) {
			written++;
			*events += k->ext.events;
		}
	}
	free(all);
	return rc < 0 ? rc : written;
}

/* What the input lost (or a wrapped ring overwrote), after what the copy
 * found (later values win), then the index and trailer, synced. */
static int recover_footer(tz_reader *r, struct sink *s, struct tz_buf *b, uint64_t maxseq)
{
	int rc;
	if ((r->info.corrupt_blocks || r->info.unfinished ||
	     (r->info.ring && r->info.ring_wrapped)) &&
	    (rc = recover_losses(r, s, b, ++maxseq)))
		return rc;
	uint64_t ioff = s->pos;
	if ((rc = sink_block(s, TZ_B_INDEX, maxseq + 1, s->index.p, s->index.len, 0)))
		return rc;
	uint8_t t[TZ_TRAILER_SIZE];
	tz_trailer_encode(t, maxseq + 2, ioff, s->pos - ioff);
	if ((rc = sink_write(s, t, sizeof(t))))
		return rc;
	if (fsync(s->fd))
		return rd_err(r, TZ_ERR_IO, UINT64_MAX, "'%s': fsync: %s", s->name,
			      strerror(errno));
	return 0;
}

int tz_recover(tz_reader *r, const char *out_path, const struct tz_recover_opts *opts)
{
	if (!r || !out_path)
		return TZ_ERR_INVAL;
	int overwrite = opts && opts->overwrite;
	const char *name = opts && opts->name ? opts->name : out_path;
	struct sink s = {r, out_path, name, -1, 0, {0}};
	struct tz_buf b = {0};
	uint64_t maxseq = 0, events = 0;
	int written = 0;
	int rc = recover_create(r, &s, overwrite);
	if (rc)
		return rc;
	rc = recover_head(r, &s, &b);
	if (!rc && (written = recover_blocks(r, &s, &maxseq, &events)) < 0)
		rc = written;
	if (!rc)
		rc = recover_footer(r, &s, &b, maxseq);
	tz_buf_free(&b);
	tz_buf_free(&s.index);
	if (close(s.fd) && !rc)
		rc = rd_err(r, TZ_ERR_IO, UINT64_MAX, "'%s': close: %s", name, strerror(errno));
	if (rc == TZ_ERR_NOMEM)
		rd_err(r, rc, UINT64_MAX, "out of memory");
	if (rc)
		unlink(out_path); /* never a partial file that looks like a result */
	if (opts && opts->events)
		*opts->events = rc ? 0 : events;
	return rc ? rc : written;
}
