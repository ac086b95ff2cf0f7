/* tz_writer.c - the .tz writer: chunk building, interning, compression, ring mode. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include "tz_int.h"

#define EV_MAX_BYTES (16u << 20) /* fixed part + blobs of one event */
#define QUEUE_MAX 4		 /* sealed chunks waiting for the compression thread */
#define SYNC_EVERY_NS 5000000000ull
#define INDEX_EVERY 64 /* chunks between periodic index blocks (linear files) */
#define FOOTER_RESERVE (64u << 10) /* + the index: kept allocated for the footer */
#define RESERVE_STEP (1u << 20)	   /* disk space allocated ahead at a time */

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

static void set_err(tz_writer *w, int err, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_err(tz_writer *w, int err, uint64_t off, const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (w->threaded) /* the compression thread reports here too */
		pthread_mutex_lock(&w->mu);
	if (off != UINT64_MAX)
		snprintf(w->errmsg, sizeof(w->errmsg), "'%s': offset %llu: %s", w->name,
			 (unsigned long long)off, detail);
	else
		snprintf(w->errmsg, sizeof(w->errmsg), "'%s': %s", w->name, detail);
	if (!w->err)
		w->err = err;
	if (w->threaded)
		pthread_mutex_unlock(&w->mu);
}

static uint64_t now_boot(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

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
	set_err(w, e == ENOSPC || e == EDQUOT ? TZ_ERR_NOSPC : TZ_ERR_IO, off, "write: %s",
		strerror(e));
	return w->err;
}

static int out_write(tz_writer *w, uint64_t off, const struct iovec *iov, int n)
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
			set_err(w, e == ENOSPC || e == EDQUOT ? TZ_ERR_NOSPC : TZ_ERR_IO, off,
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
	uint64_t now = now_boot();
	if (force || now - w->last_sync_ns >= SYNC_EVERY_NS) {
		fdatasync(w->fd);
		w->last_sync_ns = now;
	}
}

static int write_header(tz_writer *w)
{
	uint8_t h[TZ_HDR_SIZE];
	memset(h, 0, sizeof(h));
	memcpy(h, TZ_MAGIC, TZ_MAGIC_LEN);
	tz_put16(h + 8, TZ_MAJOR);
	tz_put16(h + 10, TZ_MINOR);
	tz_put32(h + 12, TZ_HDR_SIZE);
	tz_put64(h + 32, w->ring ? TZ_INCOMPAT_RING : 0);
	memcpy(h + 40, w->uuid, 16);
	memcpy(h + 56, w->boot_id, 16);
	tz_put64(h + 72, w->start_boot);
	tz_put64(h + 80, (uint64_t)w->start_real);
	if (w->ring) {
		tz_put64(h + 88, w->o.ring_size);
		tz_put64(h + 96, w->ring_start);
		tz_put64(h + 104, w->seg_size);
		tz_put32(h + 112, w->nseg);
		tz_put32(h + 116, TZ_RING_FINAL);
	}
	tz_put64(h + 120, tz_hash(h, 120));
	struct iovec iov = {h, sizeof(h)};
	return out_write(w, 0, &iov, 1);
}

/*
 * Write one block (compressing payload when zstd != 0) at the right place:
 * appended in a linear file; in the head area (meta, schema) or the current
 * ring segment in ring mode. Runs on the writing thread.
 */
static int write_block(tz_writer *w, uint8_t type, uint64_t seq, const struct tz_chunk_ext *ext,
		       const uint8_t *raw, size_t raw_len, int zstd, uint64_t at);

static int place_ring(tz_writer *w, uint8_t type, uint64_t size, uint64_t *off);

static int write_block(tz_writer *w, uint8_t type, uint64_t seq, const struct tz_chunk_ext *ext,
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
			set_err(w, TZ_ERR_ZSTD, UINT64_MAX, "block %llu: zstd: %s",
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
		int rc = place_ring(w, type, size, &off);
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
	int rc = out_write(w, off, iov, 2);
	if (rc) {
		if (!w->err)
			set_err(w, rc, off, "block %llu: %s", (unsigned long long)seq,
				tz_strerror(rc));
		return w->err;
	}
	if (!w->ring && at == UINT64_MAX)
		w->pos += size;

	uint8_t e[TZ_INDEX_ENTRY];
	memset(e, 0, sizeof(e));
	tz_put64(e, off);
	tz_put64(e + 8, seq);
	tz_put32(e + 16, (uint32_t)size);
	tz_put32(e + 20, (uint32_t)raw_len);
	tz_put32(e + 24, type);
	if (ext)
		memcpy(e + 32, extb, TZ_CHUNK_EXT);
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

/* ---------------------------------------------------------------- builders */

static void cb_reset(struct cbuild *b)
{
	b->strs.len = 0;
	b->evs.len = 0;
	b->nstr = 0;
	if (b->ht)
		memset(b->ht, 0, b->htcap * sizeof(*b->ht));
	b->events = 0;
	b->min_ts = UINT64_MAX;
	b->max_ts = 0;
	b->prev_ts = 0;
	b->opened_ns = 0;
}

static void cb_free(struct cbuild *b)
{
	tz_buf_free(&b->strs);
	tz_buf_free(&b->evs);
	free(b->ht);
	free(b->hhash);
	free(b->soff);
	free(b->slen);
	memset(b, 0, sizeof(*b));
}

static int cb_grow_ht(struct cbuild *b)
{
	uint32_t cap = b->htcap ? b->htcap * 2 : 1024;
	uint32_t *ht = calloc(cap, sizeof(*ht));
	if (!ht)
		return TZ_ERR_NOMEM;
	for (uint32_t i = 0; i < b->nstr; i++) {
		uint32_t k = (uint32_t)b->hhash[i] & (cap - 1);
		while (ht[k])
			k = (k + 1) & (cap - 1);
		ht[k] = i + 1;
	}
	free(b->ht);
	b->ht = ht;
	b->htcap = cap;
	return 0;
}

/* String id + 1 of blob (interned), or 0 for an empty blob; negative on error. */
static int64_t cb_intern(struct cbuild *b, const void *data, uint32_t len)
{
	if (!len)
		return 0;
	if (b->nstr * 2 >= b->htcap && cb_grow_ht(b))
		return TZ_ERR_NOMEM;
	uint64_t h = tz_hash(data, len);
	uint32_t k = (uint32_t)h & (b->htcap - 1);
	while (b->ht[k]) {
		uint32_t i = b->ht[k] - 1;
		if (b->hhash[i] == h && b->slen[i] == len &&
		    !memcmp(b->strs.p + b->soff[i], data, len))
			return (int64_t)i + 1;
		k = (k + 1) & (b->htcap - 1);
	}
	if (b->nstr == b->scap) {
		uint32_t cap = b->scap ? b->scap * 2 : 256;
		uint64_t *hh = realloc(b->hhash, cap * sizeof(*hh));
		if (hh)
			b->hhash = hh;
		uint32_t *so = realloc(b->soff, cap * sizeof(*so));
		if (so)
			b->soff = so;
		uint32_t *sl = realloc(b->slen, cap * sizeof(*sl));
		if (sl)
			b->slen = sl;
		if (!hh || !so || !sl)
			return TZ_ERR_NOMEM;
		b->scap = cap;
	}
	if (tz_buf_varint(&b->strs, len))
		return TZ_ERR_NOMEM;
	b->soff[b->nstr] = (uint32_t)b->strs.len;
	if (tz_buf_put(&b->strs, data, len))
		return TZ_ERR_NOMEM;
	b->hhash[b->nstr] = h;
	b->slen[b->nstr] = len;
	b->ht[k] = b->nstr + 1;
	return (int64_t)++b->nstr;
}

static int cb_add(struct cbuild *b, uint16_t type, uint64_t ts, const void *fixed,
		  uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs)
{
	uint64_t refs[64];
	for (uint32_t i = 0; i < nblobs; i++) {
		int64_t id = cb_intern(b, blobs[i].data, blobs[i].len);
		if (id < 0)
			return (int)id;
		refs[i] = (uint64_t)id;
	}
	if (tz_buf_reserve(&b->evs, 40 + fixed_len + 10 * (size_t)nblobs))
		return TZ_ERR_NOMEM;
	uint8_t *p = b->evs.p + b->evs.len;
	p += tz_put_varint(p, type);
	p += tz_put_varint(p, tz_zigzag((int64_t)(ts - b->prev_ts)));
	p += tz_put_varint(p, fixed_len);
	if (fixed_len)
		memcpy(p, fixed, fixed_len);
	p += fixed_len;
	p += tz_put_varint(p, nblobs);
	for (uint32_t i = 0; i < nblobs; i++)
		p += tz_put_varint(p, refs[i]);
	b->evs.len = (size_t)(p - b->evs.p);
	b->prev_ts = ts;
	if (ts < b->min_ts)
		b->min_ts = ts;
	if (ts > b->max_ts)
		b->max_ts = ts;
	b->events++;
	return 0;
}

/* Raw chunk payload: varint nstr, strings, events. malloc'd. */
static uint8_t *cb_payload(struct cbuild *b, size_t *len)
{
	uint8_t v[10];
	size_t vl = tz_put_varint(v, b->nstr);
	*len = vl + b->strs.len + b->evs.len;
	uint8_t *p = malloc(*len ? *len : 1);
	if (!p)
		return NULL;
	memcpy(p, v, vl);
	if (b->strs.len)
		memcpy(p + vl, b->strs.p, b->strs.len);
	if (b->evs.len)
		memcpy(p + vl + b->strs.len, b->evs.p, b->evs.len);
	return p;
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
	int rc = write_block(w, TZ_B_INDEX, seq, NULL, copy, len, 0, UINT64_MAX);
	free(copy);
	w->index_mark = w->index.len;
	return rc;
}

static int run_job(tz_writer *w, struct job *j)
{
	if (j->type == TZ_B_INDEX)
		return write_periodic_index(w, j->seq);
	return write_block(w, j->type, j->seq, &j->ext, j->raw, j->raw_len, 1, UINT64_MAX);
}

static void *thread_main(void *arg)
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
static int submit(tz_writer *w, uint8_t type, const struct tz_chunk_ext *ext, uint8_t *raw,
		  size_t raw_len)
{
	uint64_t seq = w->seq++;
	if (!w->threaded) {
		int rc = type == TZ_B_INDEX
			     ? write_periodic_index(w, seq)
			     : write_block(w, type, seq, ext, raw, raw_len, 1, UINT64_MAX);
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
static void drain(tz_writer *w)
{
	if (!w->threaded)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->qlen > 0)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

static int sticky(tz_writer *w)
{
	if (!w->threaded)
		return w->err;
	pthread_mutex_lock(&w->mu);
	int e = w->err;
	pthread_mutex_unlock(&w->mu);
	return e;
}

/* ---------------------------------------------------------------- head */

static int write_meta_block(tz_writer *w, uint64_t at)
{
	struct tz_buf b = {0};
	int rc = tz_meta_encode(&b, w->kv, w->nkv);
	if (!rc)
		rc = write_block(w, TZ_B_META, w->seq++, NULL, b.p, b.len, 0, at);
	tz_buf_free(&b);
	return rc;
}

static int write_schema_block(tz_writer *w)
{
	struct tz_buf b = {0};
	int rc = tz_schema_encode(&b, w->types, w->ntypes);
	if (!rc)
		rc = write_block(w, TZ_B_SCHEMA, w->seq++, NULL, b.p, b.len, 0, UINT64_MAX);
	tz_buf_free(&b);
	w->schema_dirty = 0;
	return rc;
}

/* Metadata and schema go out before the first chunk (drained: the caller
 * thread writes them only when the queue is empty). */
static int ensure_head(tz_writer *w)
{
	if (w->head_written && !w->schema_dirty)
		return 0;
	drain(w);
	int rc = 0;
	if (!w->head_written) {
		w->head_written = 1;
		rc = write_meta_block(w, UINT64_MAX);
	}
	if (!rc && w->schema_dirty)
		rc = write_schema_block(w);
	return rc;
}

/* ---------------------------------------------------------------- ring */

static int write_state(tz_writer *w, uint64_t ts);

/*
 * Choose where a block of size bytes goes in ring mode. Head blocks (meta,
 * schema) follow the header; chunks and state blocks go into the current
 * segment; a block that does not fit starts the next segment (which begins
 * with a state block).
 */
static int place_ring(tz_writer *w, uint8_t type, uint64_t size, uint64_t *off)
{
	if (type == TZ_B_META || type == TZ_B_SCHEMA) {
		if (w->head_pos + size > TZ_RING_FINAL) {
			set_err(w, TZ_ERR_LIMIT, w->head_pos,
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
			set_err(w, TZ_ERR_LIMIT, UINT64_MAX,
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
		int rc = write_state(w, w->last_ts);
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
	 * estimate fails, place_ring() opens the segment itself (above) */
	if (size > w->max_block)
		w->max_block = size;
	uint64_t need =
	    2 * w->max_block + 4096 < w->blockmax ? 2 * w->max_block + 4096 : w->blockmax;
	if (w->seg_size - w->seg_pos < need)
		w->need_state = 1;
	return 0;
toobig:
	set_err(w, TZ_ERR_LIMIT, UINT64_MAX, "block of %llu bytes does not fit a ring segment",
		(unsigned long long)size);
	return w->err;
}

/* Build and write a state block (calls opts.state_fn). In ring mode it opens
 * the next segment. ts is used for the block's time when it has no events. */
static int write_state(tz_writer *w, uint64_t ts)
{
	int rc = 0;
	w->need_state = 0;
	w->chunks_since_state = 0;
	cb_reset(&w->sb);
	if (w->o.state_fn) {
		w->in_state = 1;
		rc = w->o.state_fn(w->o.state_ctx, w);
		w->in_state = 0;
		if (rc < 0 && !w->err && !w->soft_err) {
			/* not sticky: the state block keeps what was added, the
			 * trace goes on; close() reports it */
			set_err(w, 0, UINT64_MAX, "state callback failed: %s", tz_strerror(rc));
			w->soft_err = rc;
		}
		rc = 0;
	}
	struct tz_chunk_ext ext = {0};
	ext.events = w->sb.events;
	ext.min_ts = w->sb.events ? w->sb.min_ts : ts;
	ext.max_ts = w->sb.events ? w->sb.max_ts : ts;
	ext.dropped_total = w->dropped_total;
	tz_clock_pair(&ext.anchor_boot, &ext.anchor_real);
	size_t len;
	uint8_t *raw = cb_payload(&w->sb, &len);
	if (!raw)
		return TZ_ERR_NOMEM;
	w->st.bytes_in += len;
	if (w->ring) {
		/* ring mode is synchronous: the state block is written at once */
		w->seg_cur = w->seg_started ? (w->seg_cur + 1) % w->nseg : 0;
		w->seg_started = 1;
		w->seg_pos = 0;
		w->in_state = 2;
		rc = write_block(w, TZ_B_STATE, w->seq++, &ext, raw, len, 1, UINT64_MAX);
		w->in_state = 0;
		free(raw);
		w->need_state = 0;
	} else {
		rc = submit(w, TZ_B_STATE, &ext, raw, len);
	}
	cb_reset(&w->sb);
	return rc;
}

/* ---------------------------------------------------------------- sealing */

static int seal(tz_writer *w, int allow_empty)
{
	struct cbuild *b = &w->cb;
	if (!b->events && !(allow_empty && w->dropped_pending))
		return 0;
	int rc = ensure_head(w);
	if (rc)
		return rc;
	struct tz_chunk_ext ext = {0};
	ext.events = b->events;
	ext.min_ts = b->events ? b->min_ts : w->last_ts;
	ext.max_ts = b->events ? b->max_ts : w->last_ts;
	ext.dropped = w->dropped_pending;
	ext.dropped_total = w->dropped_total;
	w->dropped_pending = 0;
	tz_clock_pair(&ext.anchor_boot, &ext.anchor_real);
	size_t len;
	uint8_t *raw = cb_payload(b, &len);
	if (!raw)
		return TZ_ERR_NOMEM;
	w->st.bytes_in += len;
	cb_reset(b);
	rc = submit(w, TZ_B_CHUNK, &ext, raw, len);
	if (!rc && !w->ring && ++w->chunks_sealed % INDEX_EVERY == 0)
		rc = submit(w, TZ_B_INDEX, NULL, NULL, 0);
	if (!w->ring && w->o.state_fn && ++w->chunks_since_state >= w->o.state_every)
		w->need_state = 1;
	return rc;
}

/* ---------------------------------------------------------------- open */

static void read_boot_id(uint8_t out[16])
{
	char s[64] = "";
	memset(out, 0, 16);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f)
		return;
	if (fgets(s, sizeof(s), f)) {
		int n = 0;
		for (char *p = s; *p && n < 32; p++) {
			int v;
			if (*p >= '0' && *p <= '9')
				v = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				v = *p - 'a' + 10;
			else
				continue;
			out[n / 2] |= (uint8_t)(n % 2 ? v : v << 4);
			n++;
		}
	}
	fclose(f);
}

static void make_uuid(uint8_t out[16])
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, 16) : -1;
	if (fd >= 0)
		close(fd);
	if (n != 16) {
		uint64_t b;
		int64_t r;
		tz_clock_pair(&b, &r);
		tz_put64(out, b ^ (uint64_t)getpid());
		tz_put64(out + 8, (uint64_t)r);
	}
	out[6] = (out[6] & 0x0f) | 0x40; /* RFC 4122 version 4 */
	out[8] = (out[8] & 0x3f) | 0x80;
}

static void default_meta(tz_writer *w)
{
	struct utsname u;
	char buf[64];
	char host[256];
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		tz_writer_set_meta(w, "hostname", host);
	}
	if (uname(&u) == 0) {
		tz_writer_set_meta(w, "kernel", u.release);
		tz_writer_set_meta(w, "arch", u.machine);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	tz_writer_set_meta(w, "cpus", buf);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	tz_writer_set_meta(w, "page_size", buf);
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)sysconf(_SC_PHYS_PAGES) *
		     (unsigned long long)sysconf(_SC_PAGESIZE));
	tz_writer_set_meta(w, "mem_bytes", buf);
}

static int wopen(tz_writer **out, const char *path, const struct tz_writer_opts *opts)
{
	*out = NULL;
	tz_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return TZ_ERR_NOMEM;
	w->fd = -1;
	if (opts)
		w->o = *opts;
	if (!w->o.chunk_bytes)
		w->o.chunk_bytes = 1u << 20;
	if (!w->o.chunk_age_ns)
		w->o.chunk_age_ns = 1000000000ull;
	if (!w->o.level)
		w->o.level = 3;
	if (!w->o.state_every)
		w->o.state_every = 64;
	w->name = strdup(path ? path : "<memory>");
	w->type_idx = calloc(65536, sizeof(*w->type_idx));
	w->cctx = ZSTD_createCCtx();
	if (!w->name || !w->type_idx || !w->cctx) {
		tz_writer_free(w);
		return TZ_ERR_NOMEM;
	}
	cb_reset(&w->cb);
	cb_reset(&w->sb);
	*out = w;
	if (w->o.chunk_bytes > (32u << 20) || w->o.chunk_bytes < 64 || w->o.threads < 0 ||
	    w->o.threads > 1) {
		set_err(w, TZ_ERR_INVAL, UINT64_MAX, "bad writer options");
		return TZ_ERR_INVAL;
	}
	if (w->o.ring_size) {
		w->ring = 1;
		w->blockmax = TZ_BHDR_MIN + TZ_CHUNK_EXT + ZSTD_compressBound(w->o.chunk_bytes);
		if (w->o.ring_size < TZ_RING_HEAD + 4ull * w->o.chunk_bytes ||
		    w->o.ring_size < TZ_RING_HEAD + 4 * w->blockmax) {
			set_err(
			    w, TZ_ERR_INVAL, UINT64_MAX,
			    "ring size %llu is too small (at least %llu bytes with %u-byte chunks)",
			    (unsigned long long)w->o.ring_size,
			    (unsigned long long)(TZ_RING_HEAD + 4 * w->blockmax), w->o.chunk_bytes);
			return TZ_ERR_INVAL;
		}
		uint64_t area = w->o.ring_size - TZ_RING_HEAD;
		uint64_t n = area / (4 * w->blockmax);
		if (n > 64)
			n = 64;
		if (n < 2)
			n = 2;
		w->nseg = (uint32_t)n;
		w->seg_size = area / n;
		if (w->seg_size > 65536)
			w->seg_size &= ~4095ull;
		w->ring_start = TZ_RING_HEAD;
		w->head_pos = TZ_HDR_SIZE;
		w->o.threads = 0; /* ring mode compresses in the caller (FORMAT.md) */
	}
	make_uuid(w->uuid);
	read_boot_id(w->boot_id);
	tz_clock_pair(&w->start_boot, &w->start_real);
	w->last_sync_ns = w->start_boot;
	w->need_state = w->o.state_fn != NULL;
	default_meta(w);
	return 0;
}

static int start(tz_writer *w)
{
	int rc = write_header(w);
	if (rc)
		return rc;
	w->pos = TZ_HDR_SIZE;
	w->seq = 1;
	if (w->o.threads == 1) {
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->cv, NULL);
		if (pthread_create(&w->thr, NULL, thread_main, w)) {
			pthread_mutex_destroy(&w->mu);
			pthread_cond_destroy(&w->cv);
			set_err(w, TZ_ERR_NOMEM, UINT64_MAX, "cannot start the compression thread");
			return TZ_ERR_NOMEM;
		}
		w->threaded = 1;
	}
	return 0;
}

int tz_writer_open(tz_writer **out, const char *path, const struct tz_writer_opts *opts)
{
	if (!out || !path)
		return TZ_ERR_INVAL;
	int rc = wopen(out, path, opts);
	tz_writer *w = *out;
	if (rc)
		return rc;
	/* a fresh 0600 inode, never a FIFO, device or a symlink's target */
	int fd = tz_create_file(path, !!(w->o.flags & TZ_W_OVERWRITE));
	if (fd < 0) {
		int e = errno;
		if (fd == TZ_ERR_INVAL) {
			set_err(w, TZ_ERR_IO, UINT64_MAX, "not a regular file");
			return TZ_ERR_IO;
		}
		set_err(w, fd, UINT64_MAX, "cannot create: %s", strerror(e));
		return fd;
	}
	w->fd = fd;
	/* held until close: readers tell a file being written from an
	 * abandoned one (tz_info.live); advisory, so a failure is harmless */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if (w->ring) {
		int e = posix_fallocate(w->fd, 0, (off_t)w->o.ring_size);
		if (e == EOPNOTSUPP || e == EINVAL)
			e = ftruncate(w->fd, (off_t)w->o.ring_size) ? errno : 0;
		if (e) {
			rc = e == ENOSPC ? TZ_ERR_NOSPC : TZ_ERR_IO;
			set_err(w, rc, UINT64_MAX, "cannot preallocate %llu bytes: %s",
				(unsigned long long)w->o.ring_size, strerror(e));
			/* leave nothing behind that looks like a trace */
			close(w->fd);
			w->fd = -1;
			unlink(path);
			return rc;
		}
	}
	rc = start(w);
	if (rc) {
		/* the header could not be written (a full disk): the 0-byte
		 * file this call created goes too */
		close(w->fd);
		w->fd = -1;
		unlink(path);
	}
	return rc;
}

int tz_writer_open_mem(tz_writer **out, const struct tz_writer_opts *opts)
{
	if (!out)
		return TZ_ERR_INVAL;
	int rc = wopen(out, NULL, opts);
	tz_writer *w = *out;
	if (rc)
		return rc;
	w->is_mem = 1;
	if (w->ring) {
		w->mem.p = calloc(1, w->o.ring_size);
		if (!w->mem.p)
			return TZ_ERR_NOMEM;
		w->mem.cap = w->o.ring_size;
		w->mem.len = w->o.ring_size;
	}
	return start(w);
}

/* ---------------------------------------------------------------- API */

int tz_writer_set_meta(tz_writer *w, const char *key, const char *value)
{
	if (!w || !key || !*key || !value)
		return TZ_ERR_INVAL;
	return tz_kv_set(&w->kv, &w->nkv, key, strlen(key), value, strlen(value));
}

int tz_writer_add_type(tz_writer *w, const struct tz_event_type *t)
{
	const char *why;
	if (!w)
		return TZ_ERR_INVAL;
	if (tz_type_check(t, &why)) {
		set_err(w, 0, UINT64_MAX, "event type %u: %s", t ? t->id : 0, why);
		return TZ_ERR_INVAL;
	}
	if (w->type_idx[t->id]) {
		set_err(w, 0, UINT64_MAX, "event type %u: registered twice", t->id);
		return TZ_ERR_INVAL;
	}
	struct tz_type_own *nt = realloc(w->types, (w->ntypes + 1) * sizeof(*nt));
	if (!nt)
		return TZ_ERR_NOMEM;
	w->types = nt;
	if (tz_type_copy(&nt[w->ntypes], t))
		return TZ_ERR_NOMEM;
	w->type_idx[t->id] = (uint16_t)++w->ntypes;
	w->schema_dirty = 1;
	return 0;
}

static int check_event(tz_writer *w, uint16_t type, const void *fixed, uint32_t fixed_len,
		       const struct tz_blob *blobs, uint32_t nblobs)
{
	if (!w->type_idx[type])
		return TZ_ERR_UNKNOWN_TYPE;
	if (nblobs > 64 || (nblobs && !blobs) || (fixed_len && !fixed) || fixed_len > 65536)
		return TZ_ERR_INVAL;
	uint64_t total = fixed_len;
	for (uint32_t i = 0; i < nblobs; i++) {
		if (blobs[i].len && !blobs[i].data)
			return TZ_ERR_INVAL;
		total += blobs[i].len;
	}
	return total > EV_MAX_BYTES ? TZ_ERR_INVAL : 0;
}

int tz_writer_add(tz_writer *w, uint16_t type, uint64_t ts_ns, const void *fixed,
		  uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs)
{
	if (!w)
		return TZ_ERR_INVAL;
	int rc = sticky(w);
	if (rc)
		return rc;
	if (w->in_state)
		return TZ_ERR_STATE;
	rc = check_event(w, type, fixed, fixed_len, blobs, nblobs);
	if (rc)
		return rc;
	if ((rc = ensure_head(w)))
		return rc;
	if ((w->need_state || (w->ring && !w->seg_started)) && (rc = write_state(w, ts_ns)))
		return rc;
	struct cbuild *b = &w->cb;
	if ((rc = cb_add(b, type, ts_ns, fixed, fixed_len, blobs, nblobs)))
		return rc;
	w->st.events++;
	w->last_ts = ts_ns;
	if (b->events == 1)
		b->opened_ns = now_boot();
	if (b->strs.len + b->evs.len >= w->o.chunk_bytes)
		return seal(w, 0);
	if ((b->events & 63) == 0 && now_boot() - b->opened_ns >= w->o.chunk_age_ns)
		return seal(w, 0);
	return 0;
}

int tz_writer_add_state(tz_writer *w, uint16_t type, uint64_t ts_ns, const void *fixed,
			uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs)
{
	if (!w)
		return TZ_ERR_INVAL;
	if (w->in_state != 1)
		return TZ_ERR_STATE;
	int rc = check_event(w, type, fixed, fixed_len, blobs, nblobs);
	if (rc)
		return rc;
	if (!(w->types[w->type_idx[type] - 1].t.flags & TZ_TYPE_STATE))
		return TZ_ERR_INVAL;
	return cb_add(&w->sb, type, ts_ns, fixed, fixed_len, blobs, nblobs);
}

void tz_writer_note_dropped(tz_writer *w, uint64_t n)
{
	if (!w)
		return;
	w->dropped_pending += n;
	w->dropped_total += n;
	w->st.dropped += n;
}

int tz_writer_flush(tz_writer *w, int force)
{
	if (!w)
		return TZ_ERR_INVAL;
	int rc = sticky(w);
	if (rc)
		return rc;
	if (w->in_state)
		return TZ_ERR_STATE;
	if (!w->cb.events && !(force && w->dropped_pending))
		return 0;
	if (!force && now_boot() - w->cb.opened_ns < w->o.chunk_age_ns)
		return 0;
	rc = seal(w, force);
	drain(w); /* written (to the page cache) when flush returns */
	return rc ? rc : sticky(w);
}

/* Final metadata, footer index and trailer of a linear file at w->pos (or
 * the final metadata of a ring file). */
static int write_footer(tz_writer *w)
{
	/* the stop clock anchor travels in the final metadata */
	uint64_t sb;
	int64_t sr;
	char num[32];
	int rc;
	tz_clock_pair(&sb, &sr);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)sb);
	tz_writer_set_meta(w, "stop_anchor_boot_ns", num);
	snprintf(num, sizeof(num), "%lld", (long long)sr);
	tz_writer_set_meta(w, "stop_anchor_real_ns", num);
	if (w->ring)
		return write_meta_block(w, TZ_RING_FINAL);
	rc = write_meta_block(w, UINT64_MAX);
	if (rc)
		return rc;
	uint64_t ioff = w->pos;
	uint64_t iseq = w->seq++;
	struct tz_buf idx = w->index; /* the index does not list itself */
	w->index = (struct tz_buf){0};
	rc = write_block(w, TZ_B_INDEX, iseq, NULL, idx.p, idx.len, 0, UINT64_MAX);
	tz_buf_free(&idx);
	if (rc)
		return rc;
	uint8_t t[TZ_TRAILER_SIZE], ext[TZ_TRAILER_EXT];
	struct tz_bhdr h = {0};
	h.type = TZ_B_TRAILER;
	h.ext_len = TZ_TRAILER_EXT;
	h.seq = w->seq++;
	h.payload_csum = tz_hash(NULL, 0);
	tz_put64(ext, ioff);
	tz_put64(ext + 8, w->pos - ioff);
	tz_put64(ext + 16, w->pos + TZ_TRAILER_SIZE);
	tz_bhdr_encode(t, &h, ext);
	struct iovec iov = {t, sizeof(t)};
	rc = out_write(w, w->pos, &iov, 1);
	if (!rc) {
		w->pos += TZ_TRAILER_SIZE;
		w->st.bytes_out += TZ_TRAILER_SIZE;
	}
	return rc;
}

/*
 * The disk filled up (TZ_ERR_NOSPC): cut a torn block off, then seal the
 * file in the space reserve() kept free: every block written before the
 * error stays readable with a footer; the open chunk and what was queued
 * after the error are lost. Returns TZ_ERR_NOSPC (sealed) or the error of
 * the footer (the file then ends at the last whole block).
 */
static int finish_nospc(tz_writer *w)
{
	uint64_t end = w->pos;

	if (ftruncate(w->fd, (off_t)end))
		return w->err;
	w->err = 0;
	w->finishing = 1;
	tz_writer_set_meta(w, "write_error", "no space left on device");
	int rc = write_footer(w);
	if (rc) {
		if (ftruncate(w->fd, (off_t)end)) {
			/* nothing more to do: the reader resynchronises */
		}
		w->err = TZ_ERR_NOSPC;
		return rc;
	}
	if (!(w->o.flags & TZ_W_NO_FSYNC))
		fsync(w->fd);
	w->err = TZ_ERR_NOSPC;
	return TZ_ERR_NOSPC;
}

static int finish(tz_writer *w)
{
	int rc = sticky(w);
	if (rc && !(rc == TZ_ERR_NOSPC && !w->is_mem && !w->ring))
		return rc;
	if (w->in_state)
		return TZ_ERR_STATE;
	if (!rc)
		rc = ensure_head(w) ?: seal(w, 1);
	drain(w);
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thr, NULL);
		w->threaded = 0;
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
	}
	if (w->err == TZ_ERR_NOSPC && !w->is_mem && !w->ring)
		return finish_nospc(w);
	if (rc || w->err)
		return w->err ? w->err : rc;
	w->finishing = 1;
	rc = write_footer(w);
	/* give back the disk reserve() allocated beyond the end */
	if (!rc && !w->is_mem && !w->ring && w->reserved_to > w->pos &&
	    ftruncate(w->fd, (off_t)w->pos)) {
		set_err(w, TZ_ERR_IO, UINT64_MAX, "ftruncate: %s", strerror(errno));
		rc = w->err;
	}
	if (!rc && !w->is_mem && !(w->o.flags & TZ_W_NO_FSYNC) && fsync(w->fd)) {
		set_err(w, TZ_ERR_IO, UINT64_MAX, "fsync: %s", strerror(errno));
		rc = w->err;
	}
	return rc ? rc : w->err ? w->err : w->soft_err;
}

int tz_writer_close(tz_writer *w)
{
	if (!w)
		return TZ_ERR_INVAL;
	if (w->is_mem) {
		tz_writer_free(w);
		return TZ_ERR_STATE;
	}
	int rc = finish(w);
	if (w->fd >= 0 && close(w->fd) && !rc)
		rc = TZ_ERR_IO;
	w->fd = -1;
	tz_writer_free(w);
	return rc;
}

int tz_writer_mem_take(tz_writer *w, void **buf, size_t *len)
{
	if (!w || !buf || !len)
		return TZ_ERR_INVAL;
	if (!w->is_mem) {
		tz_writer_free(w);
		return TZ_ERR_STATE;
	}
	int rc = finish(w);
	*buf = w->mem.p;
	*len = w->mem.len;
	w->mem = (struct tz_buf){0};
	tz_writer_free(w);
	return rc;
}

int tz_writer_mem_peek(tz_writer *w, const void **buf, size_t *len)
{
	if (!w || !buf || !len || !w->is_mem)
		return TZ_ERR_INVAL;
	drain(w);
	*buf = w->mem.p;
	*len = w->mem.len;
	return 0;
}

void tz_writer_free(tz_writer *w)
{
	if (!w)
		return;
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		w->abandon = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thr, NULL);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
	}
	while (w->qhead) {
		struct job *j = w->qhead;
		w->qhead = j->next;
		free(j->raw);
		free(j);
	}
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->ntypes; i++)
		tz_type_free(&w->types[i]);
	free(w->types);
	tz_kv_free(w->kv, w->nkv);
	free(w->type_idx);
	cb_free(&w->cb);
	cb_free(&w->sb);
	tz_buf_free(&w->index);
	tz_buf_free(&w->cbuf);
	tz_buf_free(&w->mem);
	ZSTD_freeCCtx(w->cctx);
	free(w->name);
	free(w);
}

const char *tz_writer_errmsg(const tz_writer *w) { return w ? w->errmsg : ""; }

void tz_writer_stats(const tz_writer *w, struct tz_writer_stats *st)
{
	if (!w || !st)
		return;
	tz_writer *m = (tz_writer *)w;
	if (m->threaded)
		pthread_mutex_lock(&m->mu);
	*st = w->st;
	if (m->threaded)
		pthread_mutex_unlock(&m->mu);
}
