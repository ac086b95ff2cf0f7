/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz_rd.h - private to format/: the reader handle, shared by tz_reader.c
 * (open, header, metadata and types), tz_scan.c (the block list: walker,
 * scan, index), tz_iter.c (chunk decoding, merge iteration) and tz_verify.c
 * (verify, recover).
 */
#ifndef TZ_RD_H
#define TZ_RD_H

#include <zstd.h>

#include "tz_int.h"

/* A chunk, state, metadata or schema block as found by the index or scan. */
struct rd_blk {
	uint64_t off; /* file offset of the block header */
	uint64_t seq;
	uint64_t size; /* bytes on disk, header included */
	uint32_t payload_len, raw_len;
	uint8_t type;
	uint8_t bad; /* found damaged while decoding (counted once) */
	struct tz_chunk_ext ext;
};

struct rd_anchor {
	uint64_t boot;
	int64_t real;
};

struct dchunk;

struct tz_reader {
	char *name;
	int fd;
	void *map;
	const uint8_t *data;
	size_t len;
	struct tz_reader_opts opts;
	uint64_t max_chunk;
	struct tz_info info;
	char errmsg[512];
	int fatal; /* sticky error of iteration */
	int writer_locked; /* at open, a writer held the file's flock */

	uint32_t hdr_size;
	uint64_t start_boot;
	int64_t start_real;
	int ring;
	uint64_t ring_start, seg_size, final_off, ring_size;
	uint32_t nseg;
	uint64_t saw_trailer;
	uint64_t blocks_end;  /* scan: end of the last whole block visited */
	uint64_t footer_end;  /* scan: end of a TRAILER whose file size field
				 says the file ends there, 0 if none */
	/* the trailer was valid but its index was not (load_index): the
	 * index's (or trailer's) offset, 0 if not; idxmsg says why */
	uint64_t idx_bad;
	char idxmsg[512];

	struct tz_kv *kv;
	size_t nkv;
	struct tz_type_own *types;
	size_t ntypes;
	uint16_t *type_idx; /* id -> index + 1 */

	struct rd_blk *chunks, *states, *heads;
	size_t nchunks, cchunks, nstates, cstates, nheads, cheads;
	/* chunk and state blocks dropped at open because an earlier one has
	 * the same seq (drop_duplicates): their offsets, ascending */
	uint64_t *dups;
	size_t ndups;
	uint64_t *prefmax; /* running max of max_ts over chunks sorted by min_ts */
	struct rd_anchor *anchors;
	size_t nanchors, canchors;

	ZSTD_DCtx *dctx;
	uint64_t decoded;

	/* iteration */
	uint64_t from, to;
	uint32_t iflags;
	struct rd_blk **cand;
	size_t ncand, icand;
	struct dchunk **heap;
	size_t nheap;
	struct dchunk *pre, *done;
	size_t held; /* bytes held by the decoded chunks in the heap */
	/* decode memory kept for the next chunk (tz_reader.c; freed by
	 * free_iter and tz_reader_free): npool decoded chunks with their
	 * buffers, linked by next, holding pooled bytes (at most RD_POOL and
	 * RD_POOL_BYTES); the string table scratch, scap entries each */
	struct dchunk *pool;
	size_t npool, pooled;
	const uint8_t **sp;
	uint32_t *sl;
	size_t scap;
	struct tz_event ev;
};

/* one-line check: fail with code and a message when cond does not hold */
#define CHECK(cond, code, off, ...)                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return rd_err(r, code, off, __VA_ARGS__);                                  \
	} while (0)

/* ---------------------------------------------------------------- tz_reader.c */

/* Set r's message ("'name': offset N: detail", or without the offset when
 * off is UINT64_MAX) and return code. */
int rd_err(tz_reader *r, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Count a damaged block at off in r->info (first offset kept). */
void rd_corrupt(tz_reader *r, uint64_t off);
/*
 * Check the payload of the block at off (header h) and return its
 * uncompressed bytes in *out: the mapped file when stored raw, else *buf
 * (*cap bytes, caller's; replaced by a larger one when raw_len does not fit).
 * 0 or a tz_err with the message set; *buf and *cap stay consistent.
 */
int rd_payload_into(tz_reader *r, uint64_t off, const struct tz_bhdr *h, const uint8_t **out,
		    uint8_t **buf, size_t *cap);
/* The same into a buffer of its own: *own is the allocation to free (NULL
 * when *out points into the file). */
int rd_payload(tz_reader *r, uint64_t off, const struct tz_bhdr *h, const uint8_t **out,
	       uint8_t **own);

/* ---------------------------------------------------------------- tz_scan.c */

/* qsort orders of struct rd_blk: by seq; by (min_ts, seq) for chunks */
int rd_cmp_seq(const void *a, const void *b);
int rd_cmp_chunk(const void *a, const void *b);
/* Parse the metadata and schema blocks in seq order (later wins): 0 or a
 * tz_err (message set). */
int rd_load_heads(tz_reader *r);
/* Does the file end with a valid TRAILER block (was it closed)? */
int rd_trailer_valid(tz_reader *r);
/* Load the block list from the trailer and index: 0; 1 when there is no
 * valid trailer (scan instead); TZ_ERR_CORRUPT when the trailer is valid but
 * the index is not (r->idx_bad, r->idxmsg set: scan instead); TZ_ERR_NOMEM. */
int rd_load_index(tz_reader *r);
/* rd_walk() visitor of the open scan: registers blocks, counts damage. */
int rd_scan_visit(tz_reader *r, void *ctx, uint64_t off, const struct tz_bhdr *h, uint64_t size,
		  int status);
/* Drop chunk and state blocks whose seq an earlier block has (FORMAT.md
 * 11), listing them in r->dups: 0 or TZ_ERR_NOMEM. */
int rd_drop_duplicates(tz_reader *r);
/* Was the block at off dropped at open as a duplicate seq? */
int rd_is_dup(const tz_reader *r, uint64_t off);

typedef int (*rd_visit_fn)(tz_reader *r, void *ctx, uint64_t off, const struct tz_bhdr *h,
			   uint64_t size, int status);
int rd_walk(tz_reader *r, rd_visit_fn visit, void *ctx);

/* ---------------------------------------------------------------- tz_iter.c */

/*
 * Decode block b. Events outside [from, to] and (unless keep_unknown) of
 * types not in the schema are dropped; the rest are sorted by (ts, pos).
 * Returns 0 and *out, 1 (*out NULL) for a block with unknown flags (skipped
 * by the compatibility rules), or a tz_err (message set).
 */
int rd_decode(tz_reader *r, const struct rd_blk *b, uint64_t from, uint64_t to, int keep_unknown,
	      struct dchunk **out);
void rd_dchunk_free(struct dchunk *c);
/* End an iteration: every decoded chunk, the pool and the scratch freed. */
void rd_free_iter(tz_reader *r);

#endif /* TZ_RD_H */
