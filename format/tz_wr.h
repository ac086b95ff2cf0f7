/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz_wr.h - private to format/: the writer handle, shared by tz_writer.c
 * (events, chunk building, sealing, state blocks), tz_wblock.c (blocks out:
 * output, the compression thread, ring placement) and tz_wopen.c (open,
 * footer, close).
 */
#ifndef TZ_WR_H
#define TZ_WR_H

#include <pthread.h>
#include <sys/uio.h>
#include <zstd.h>

#include "tz_int.h"

/* Per-chunk builder: string table + encoded events. */
struct cbuild {
	struct tz_buf strs, evs;
	uint32_t nstr;
	uint32_t *ht;	 /* open addressing: string index + 1, 0 = empty */
	uint64_t *hhash; /* hash of each string, by index */
	uint32_t *soff;	 /* offset of each string's bytes in strs */
	uint32_t *slen;
	uint32_t htcap, scap;
	uint64_t events, min_ts, max_ts, prev_ts;
	uint64_t opened_ns; /* CLOCK_BOOTTIME when the first event came */
};

struct job {
	uint8_t type;
	uint64_t seq;
	struct tz_chunk_ext ext;
	uint8_t *raw;
	size_t raw_len;
	struct job *next;
};

struct tz_writer {
	int fd;
	int is_mem;
	char *name;
	struct tz_buf mem;
	struct tz_writer_opts o;
	uint64_t pos; /* linear: next append offset (bytes) */
	uint64_t seq;
	uint8_t uuid[16], boot_id[16];
	uint64_t start_boot;
	int64_t start_real;

	struct tz_kv *kv;
	size_t nkv;
	struct tz_type_own *types;
	size_t ntypes;
	uint16_t *type_idx; /* id -> index + 1 */
	int head_written, schema_dirty;

	struct cbuild cb, sb; /* chunk, state */
	int in_state, need_state;
	uint64_t chunks_since_state;
	uint64_t dropped_pending, dropped_total;
	uint64_t last_ts;

	/* written by the writing thread (caller, or compression thread) */
	struct tz_buf index; /* TZ_INDEX_ENTRY bytes per block */
	size_t index_mark;   /* entries before it are in a periodic index */
	uint64_t chunks_sealed;
	ZSTD_CCtx *cctx;
	struct tz_buf cbuf;
	uint64_t last_sync_ns;
	/* linear files: disk allocated (FALLOC_FL_KEEP_SIZE) up to here, so the
	 * footer always fits even when the disk fills up (docs/RELIABILITY.md) */
	uint64_t reserved_to;
	int no_reserve; /* the filesystem cannot preallocate */
	int finishing;	/* writing the footer: it uses the reserve */

	/* ring */
	int ring;
	uint64_t ring_start, seg_size, seg_pos, head_pos, blockmax, max_block;
	uint32_t nseg, seg_cur;
	int seg_started;

	/* thread */
	int threaded;
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *qhead, *qtail;
	int qlen, busy, stop, abandon;

	int err;      /* first error, sticky */
	int soft_err; /* first state callback error (not sticky) */
	char errmsg[512];
	struct tz_writer_stats st;
};

/* ---------------------------------------------------------------- tz_writer.c */

/* Set w's message ("'name': offset N: detail", without the offset when off
 * is UINT64_MAX) and, when err is not 0 and none is set, the sticky error.
 * Takes w->mu when the compression thread runs (it reports here too). */
void wr_set_err(tz_writer *w, int err, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* CLOCK_BOOTTIME in ns */
uint64_t wr_now_boot(void);
/* Empty a chunk builder (its buffers kept); free its buffers. */
void wr_cb_reset(struct cbuild *b);
void wr_cb_free(struct cbuild *b);
/* Write the metadata block at at (UINT64_MAX: where blocks go). 0 or a
 * tz_err. */
int wr_write_meta_block(tz_writer *w, uint64_t at);
/* Metadata and schema out before the first chunk (drained first). */
int wr_ensure_head(tz_writer *w);
/* Build and write a state block (calls opts.state_fn); in ring mode it opens
 * the next segment. ts is the block's time when it has no events. */
int wr_write_state(tz_writer *w, uint64_t ts);
/* Seal the open chunk (or, allow_empty, an empty one carrying pending drop
 * counts) and hand it to the writing thread. 0 or a tz_err. */
int wr_seal(tz_writer *w, int allow_empty);

/* ---------------------------------------------------------------- tz_wblock.c */

/* Write iov[0, n) (n <= 4) at off of the file or memory buffer: 0 or a
 * tz_err (TZ_ERR_NOSPC, TZ_ERR_IO with the message set; TZ_ERR_NOMEM,
 * TZ_ERR_LIMIT for memory). */
int wr_out_write(tz_writer *w, uint64_t off, const struct iovec *iov, int n);
/* The file header (FORMAT.md "File header") at offset 0. */
int wr_write_header(tz_writer *w);
/*
 * Write one block (compressing payload when zstd != 0) at the right place:
 * at at when not UINT64_MAX; else appended in a linear file, in the head
 * area (meta, schema) or the current ring segment in ring mode. Runs on the
 * writing thread. 0 or a tz_err (sticky ones set on w).
 */
int wr_write_block(tz_writer *w, uint8_t type, uint64_t seq, const struct tz_chunk_ext *ext,
		   const uint8_t *raw, size_t raw_len, int zstd, uint64_t at);
/* The compression thread (pthread_create argument: the writer). */
void *wr_thread_main(void *arg);
/* Hand a sealed chunk/state payload (or, type TZ_B_INDEX, a periodic
 * index) to the writing thread; takes raw. 0 or the sticky error. */
int wr_submit(tz_writer *w, uint8_t type, const struct tz_chunk_ext *ext, uint8_t *raw,
	      size_t raw_len);
/* Wait until the writing thread has written everything queued. */
void wr_drain(tz_writer *w);

/* The sticky error, read under w->mu when the compression thread runs. */
static inline int wr_sticky(tz_writer *w)
{
	if (!w->threaded)
		return w->err;
	pthread_mutex_lock(&w->mu);
	int e = w->err;
	pthread_mutex_unlock(&w->mu);
	return e;
}

#endif /* TZ_WR_H */
