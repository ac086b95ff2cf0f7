/* tz_wblock.c - the writer's blocks out: file or memory output, the disk
 * reserve, block encoding, the compression thread, ring placement. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "tz_wr.h"

#define QUEUE_MAX 4 /* sealed chunks waiting for the compression thread */
#define SYNC_EVERY_NS 5000000000ull
#define FOOTER_RESERVE (64u << 10) /* + the index: kept allocated for the footer */
#define RESERVE_STEP (1u << 20)	   /* disk space allocated ahead at a time */

/* ---------------------------------------------------------------- output */

/*
 * Keep disk space allocated beyond the end of a linear file for the block
 * about to be written at [.., end) plus the footer (metadata, index,
 * trailer), so that a full disk stops the trace at a block boundary with
 * room left to seal it. Runs on the writing thread.
 */
static int reserve(tz_writer *w, uint64_t off, uint64_t end)
{
	uint64_t need = end + FOOTER_RESERVE + w->index.len + 4 * TZ_INDEX_ENTRY;

	if (w->is_mem || w->ring || w->no_reserve || w->finishing || need <= w->reserved_to)
		return 0;
	uint64_t from = w->reserved_to > off ? w->reserved_to : off;
	for (int exact = 0; exact < 2; exact++) {
		uint64_t to = exact ? need : need + RESERVE_STEP;
		if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(to - from)) == 0) {
			w->reserved_to = to;
			return 0;
		}
		if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) {
			w->no_reserve = 1; /* fall back: a torn block is cut off at close */
			return 0;
		}
		if (errno == EINTR) {
			exact--;
			continue;
		}
		if (errno != ENOSPC && errno != EDQUOT)
			break;
	}
	int e = errno;
	wr_set_err(w, e == ENOSPC || e == EDQUOT ? TZ_ERR_NOSPC : TZ_ERR_IO, off, "write: %s",
		   strerror(e));
	return w->err;
}

int wr_out_write(tz_writer *w, uint64_t off, const struct iovec *iov, int n)
{
	if (w->is_mem) {
		size_t total = 0;
		for (int i = 0; i < n; i++)
			total += iov[i].iov_len;
		if (off + total > w->mem.cap) {
			if (w->ring)
				return TZ_ERR_LIMIT;
			if (tz_buf_reserve(&w->mem, off + total - w->mem.len))
				return TZ_ERR_NOMEM;
		}
		for (int i = 0; i < n; i++) {
			memcpy(w->mem.p + off, iov[i].iov_base, iov[i].iov_len);
			off += iov[i].iov_len;
		}
		if (off > w->mem.len)
			w->mem.len = off;
		return 0;
	}
	struct iovec v[4];
	memcpy(v, iov, n * sizeof(*iov));
	struct iovec *p = v;
	while (n > 0) {
		ssize_t r = pwritev(w->fd, p, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			wr_set_err(w, e == ENOSPC || e == EDQUOT ? TZ_ERR_NOSPC : TZ_ERR_IO, off,
				   "write: %s", strerror(e));
			return w->err;
		}
		off += (uint64_t)r;
		while (n > 0 && (size_t)r >= p->iov_len) {
			r -= (ssize_t)p->iov_len;
			p++;
			n--;
		}
		if (n > 0) {
			p->iov_base = (char *)p->iov_base + r;
			p->iov_len -= (size_t)r;
		}
	}
	return 0;
}

static void maybe_sync(tz_writer *w, int force)
{
	if (w->is_mem || (w->o.flags & TZ_W_NO_FSYNC))
		return;
	uint64_t now = wr_now_boot();
	if (force || now - w->last_sync_ns >= SYNC_EVERY_NS) {
		fdatasync(w->fd);
		w->last_sync_ns = now;
	}
}

int wr_write_header(tz_writer *w)
{
	uint8_t h[TZ_HDR_SIZE];
	struct tz_fhdr f = {w->uuid, w->boot_id, w->start_boot, w->start_real, 0, 0, 0, 0, 0};
	if (w->ring) {
		f.ring_size = w->o.ring_size;
		f.ring_start = w->ring_start;
		f.seg_size = w->seg_size;
		f.nseg = w->nseg;
	}
	tz_fhdr_encode(h, &f);
	struct iovec iov = {h, sizeof(h)};
	return wr_out_write(w, 0, &iov, 1);
}

static int wr_place_ring(tz_writer *w, uint8_t type, uint64_t size, uint64_t *off);

int wr_write_block(tz_writer *w, uint8_t type, uint64_t seq, const struct tz_chunk_ext *ext,
		   const uint8_t *raw, size_t raw_len, int zstd, uint64_t at)
{
	struct tz_bhdr h;
	uint8_t hdr[TZ_BHDR_MIN + TZ_CHUNK_EXT], extb[TZ_CHUNK_EXT];
	const uint8_t *payload = raw;
	size_t plen = raw_len;

	if (w->err)
		return w->err;
	if (zstd) {
		size_t bound = ZSTD_compressBound(raw_len);
		if (tz_buf_reserve(&w->cbuf, bound))
			return TZ_ERR_NOMEM;
		size_t r = ZSTD_compressCCtx(w->cctx, w->cbuf.p, bound, raw, raw_len, w->o.level);
		if (ZSTD_isError(r)) {
			wr_set_err(w, TZ_ERR_ZSTD, UINT64_MAX, "block %llu: zstd: %s",
				   (unsigned long long)seq, ZSTD_getErrorName(r));
			return w->err;
		}
		payload = w->cbuf.p;
		plen = r;
	}
	memset(&h, 0, sizeof(h));
	h.type = type;
	h.flags = zstd ? TZ_BF_ZSTD : 0;
	h.ext_len = ext ? TZ_CHUNK_EXT : 0;
	h.payload_len = (uint32_t)plen;
	h.raw_len = (uint32_t)raw_len;
	h.seq = seq;
	h.payload_csum = tz_hash(payload, plen);
	if (ext)
		tz_chunk_ext_encode(extb, ext);
	tz_bhdr_encode(hdr, &h, extb);

	uint64_t hsize = tz_bhdr_size(&h), size = hsize + plen, off = 0;
	if (at != UINT64_MAX) {
		off = at;
	} else if (w->ring) {
		int rc = wr_place_ring(w, type, size, &off);
		if (rc)
			return rc;
	} else {
		off = w->pos;
		if (at == UINT64_MAX) {
			int rc = reserve(w, off, off + size);
			if (rc)
				return rc;
		}
	}
	struct iovec iov[2] = {{hdr, hsize}, {(void *)payload, plen}};
	int rc = wr_out_write(w, off, iov, 2);
	if (rc) {
		if (!w->err)
			wr_set_err(w, rc, off, "block %llu: %s", (unsigned long long)seq,
				   tz_strerror(rc));
		return w->err;
	}
	if (!w->ring && at == UINT64_MAX)
		w->pos += size;

	uint8_t e[TZ_INDEX_ENTRY];
	tz_index_entry_encode(e, off, seq, (uint32_t)size, (uint32_t)raw_len, type, ext);
	if (!w->ring && type != TZ_B_INDEX && tz_buf_put(&w->index, e, sizeof(e)))
		return TZ_ERR_NOMEM;
	if (w->threaded)
		pthread_mutex_lock(&w->mu);
	w->st.bytes_out += size;
	if (type == TZ_B_CHUNK) {
		w->st.chunks++;
		if (ext)
			w->st.events_written += ext->events;
	}
	if (w->threaded)
		pthread_mutex_unlock(&w->mu);
	maybe_sync(w, 0);
	return 0;
}

/* ---------------------------------------------------------------- thread */

/* A periodic index: the entries of the blocks written since the last one. */
static int write_periodic_index(tz_writer *w, uint64_t seq)
{
	size_t from = w->index_mark, len = w->index.len - from;
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		return TZ_ERR_NOMEM;
	if (len)
		memcpy(copy, w->index.p + from, len);
	int rc = wr_write_block(w, TZ_B_INDEX, seq, NULL, copy, len, 0, UINT64_MAX);
	free(copy);
	w->index_mark = w->index.len;
	return rc;
}

static int run_job(tz_writer *w, struct job *j)
{
	if (j->type == TZ_B_INDEX)
		return write_periodic_index(w, j->seq);
	return wr_write_block(w, j->type, j->seq, &j->ext, j->raw, j->raw_len, 1, UINT64_MAX);
}

void *wr_thread_main(void *arg)
{
	tz_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->qhead && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->qhead || w->abandon)
			break;
		struct job *j = w->qhead;
		w->qhead = j->next;
		if (!w->qhead)
			w->qtail = NULL;
		w->busy = 1;
		pthread_mutex_unlock(&w->mu);
		run_job(w, j);
		free(j->raw);
		free(j);
		pthread_mutex_lock(&w->mu);
		w->busy = 0;
		w->qlen--;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Hand a sealed chunk/state payload to the writing thread (takes raw). */
int wr_submit(tz_writer *w, uint8_t type, const struct tz_chunk_ext *ext, uint8_t *raw,
	      size_t raw_len)
{
	uint64_t seq = w->seq++;
	if (!w->threaded) {
		int rc = type == TZ_B_INDEX
			     ? write_periodic_index(w, seq)
			     : wr_write_block(w, type, seq, ext, raw, raw_len, 1, UINT64_MAX);
		free(raw);
		return rc;
	}
	struct job *j = calloc(1, sizeof(*j));
	if (!j) {
		free(raw);
		return TZ_ERR_NOMEM;
	}
	j->type = type;
	j->seq = seq;
	if (ext)
		j->ext = *ext;
	j->raw = raw;
	j->raw_len = raw_len;
	pthread_mutex_lock(&w->mu);
	while (w->qlen >= QUEUE_MAX)
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->qtail)
		w->qtail->next = j;
	else
		w->qhead = j;
	w->qtail = j;
	w->qlen++;
	pthread_cond_broadcast(&w->cv);
	int err = w->err;
	pthread_mutex_unlock(&w->mu);
	return err;
}

/* Wait until the writing thread has written everything queued. */
void wr_drain(tz_writer *w)
{
	if (!w->threaded)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->qlen > 0)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* ---------------------------------------------------------------- ring */

/*
 * Choose where a block of size bytes goes in ring mode. Head blocks (meta,
 * schema) follow the header; chunks and state blocks go into the current
 * segment; a block that does not fit starts the next segment (which begins
 * with a state block).
 */
static int wr_place_ring(tz_writer *w, uint8_t type, uint64_t size, uint64_t *off)
{
	if (type == TZ_B_META || type == TZ_B_SCHEMA) {
		if (w->head_pos + size > TZ_RING_FINAL) {
			wr_set_err(w, TZ_ERR_LIMIT, w->head_pos,
				   "metadata and schema exceed the ring head area (%u bytes)",
				   TZ_RING_FINAL);
			return w->err;
		}
		*off = w->head_pos;
		w->head_pos += size;
		return 0;
	}
	if (type == TZ_B_STATE && w->in_state == 2) {
		/* the state block that opens a new segment */
		if (size > w->seg_size) {
			wr_set_err(
			    w, TZ_ERR_LIMIT, UINT64_MAX,
			    "state block of %llu bytes exceeds the ring segment (%llu bytes)",
			    (unsigned long long)size, (unsigned long long)w->seg_size);
			return w->err;
		}
		*off = w->ring_start + (uint64_t)w->seg_cur * w->seg_size;
		w->seg_pos = size;
		return 0;
	}
	if (!w->seg_started || w->seg_pos + size > w->seg_size) {
		if (w->seg_started && w->seg_pos == 0)
			goto toobig;
		/* the block being placed lives in cbuf: give the state block its own */
		struct tz_buf saved = w->cbuf;
		w->cbuf = (struct tz_buf){0};
		int rc = wr_write_state(w, w->last_ts);
		tz_buf_free(&w->cbuf);
		w->cbuf = saved;
		if (rc)
			return rc;
		if (w->seg_pos + size > w->seg_size)
			goto toobig;
	}
	*off = w->ring_start + (uint64_t)w->seg_cur * w->seg_size + w->seg_pos;
	w->seg_pos += size;
	/* room for the next chunk? estimated from the largest so far; when the
	 * estimate fails, wr_place_ring() opens the segment itself (above) */
	if (size > w->max_block)
		w->max_block = size;
	uint64_t need =
	    2 * w->max_block + 4096 < w->blockmax ? 2 * w->max_block + 4096 : w->blockmax;
	if (w->seg_size - w->seg_pos < need)
		w->need_state = 1;
	return 0;
toobig:
	wr_set_err(w, TZ_ERR_LIMIT, UINT64_MAX, "block of %llu bytes does not fit a ring segment",
		   (unsigned long long)size);
	return w->err;
}
