/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_writer.c - the .tz writer: events in, chunk building and interning,
 * sealing, state blocks (blocks out: tz_wblock.c; open and close: tz_wopen.c). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tz_wr.h"

#define EV_MAX_BYTES (16u << 20) /* fixed part + blobs of one event */
#define INDEX_EVERY 64		 /* chunks between periodic index blocks (linear files) */

void wr_set_err(tz_writer *w, int err, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (w->threaded) /* the compression thread reports here too */
		pthread_mutex_lock(&w->mu);
	tz_errmsg_vset(w->errmsg, sizeof(w->errmsg), w->name, off, fmt, ap);
	va_end(ap);
	if (!w->err)
		w->err = err;
	if (w->threaded)
		pthread_mutex_unlock(&w->mu);
}

uint64_t wr_now_boot(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---------------------------------------------------------------- builders */

void wr_cb_reset(struct cbuild *b)
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

void wr_cb_free(struct cbuild *b)
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

/* ---------------------------------------------------------------- head */

int wr_write_meta_block(tz_writer *w, uint64_t at)
{
	struct tz_buf b = {0};
	int rc = tz_meta_encode(&b, w->kv, w->nkv);
	if (!rc)
		rc = wr_write_block(w, TZ_B_META, w->seq++, NULL, b.p, b.len, 0, at);
	tz_buf_free(&b);
	return rc;
}

static int write_schema_block(tz_writer *w)
{
	struct tz_buf b = {0};
	int rc = tz_schema_encode(&b, w->types, w->ntypes);
	if (!rc)
		rc = wr_write_block(w, TZ_B_SCHEMA, w->seq++, NULL, b.p, b.len, 0, UINT64_MAX);
	tz_buf_free(&b);
	w->schema_dirty = 0;
	return rc;
}

/* Metadata and schema go out before the first chunk (drained: the caller
 * thread writes them only when the queue is empty). */
int wr_ensure_head(tz_writer *w)
{
	if (w->head_written && !w->schema_dirty)
		return 0;
	wr_drain(w);
	int rc = 0;
	if (!w->head_written) {
		w->head_written = 1;
		rc = wr_write_meta_block(w, UINT64_MAX);
	}
	if (!rc && w->schema_dirty)
		rc = write_schema_block(w);
	return rc;
}

/* ---------------------------------------------------------------- state blocks */

int wr_write_state(tz_writer *w, uint64_t ts)
{
	int rc = 0;
	w->need_state = 0;
	w->chunks_since_state = 0;
	wr_cb_reset(&w->sb);
	if (w->o.state_fn) {
		w->in_state = 1;
		rc = w->o.state_fn(w->o.state_ctx, w);
		w->in_state = 0;
		if (rc < 0 && !w->err && !w->soft_err) {
			/* not sticky: the state block keeps what was added, the
			 * trace goes on; close() reports it */
			wr_set_err(w, 0, UINT64_MAX, "state callback failed: %s", tz_strerror(rc));
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
		rc = wr_write_block(w, TZ_B_STATE, w->seq++, &ext, raw, len, 1, UINT64_MAX);
		w->in_state = 0;
		free(raw);
		w->need_state = 0;
	} else {
		rc = wr_submit(w, TZ_B_STATE, &ext, raw, len);
	}
	wr_cb_reset(&w->sb);
	return rc;
}

/* ---------------------------------------------------------------- sealing */

int wr_seal(tz_writer *w, int allow_empty)
{
	struct cbuild *b = &w->cb;
	if (!b->events && !(allow_empty && w->dropped_pending))
		return 0;
	int rc = wr_ensure_head(w);
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
	wr_cb_reset(b);
	rc = wr_submit(w, TZ_B_CHUNK, &ext, raw, len);
	if (!rc && !w->ring && ++w->chunks_sealed % INDEX_EVERY == 0)
		rc = wr_submit(w, TZ_B_INDEX, NULL, NULL, 0);
	if (!w->ring && w->o.state_fn && ++w->chunks_since_state >= w->o.state_every)
		w->need_state = 1;
	return rc;
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
		wr_set_err(w, 0, UINT64_MAX, "event type %u: %s", t ? t->id : 0, why);
		return TZ_ERR_INVAL;
	}
	if (w->type_idx[t->id]) {
		wr_set_err(w, 0, UINT64_MAX, "event type %u: registered twice", t->id);
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

/* May events be added (or the open chunk flushed) now? 0 or a tz_err. */
static int check_live(tz_writer *w)
{
	if (!w)
		return TZ_ERR_INVAL;
	int rc = wr_sticky(w);
	if (rc)
		return rc;
	return w->in_state ? TZ_ERR_STATE : 0;
}

int tz_writer_add(tz_writer *w, uint16_t type, uint64_t ts_ns, const void *fixed,
		  uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs)
{
	int rc = check_live(w);
	if (rc)
		return rc;
	rc = check_event(w, type, fixed, fixed_len, blobs, nblobs);
	if (rc)
		return rc;
	if ((rc = wr_ensure_head(w)))
		return rc;
	if ((w->need_state || (w->ring && !w->seg_started)) && (rc = wr_write_state(w, ts_ns)))
		return rc;
	struct cbuild *b = &w->cb;
	if ((rc = cb_add(b, type, ts_ns, fixed, fixed_len, blobs, nblobs)))
		return rc;
	w->st.events++;
	w->last_ts = ts_ns;
	if (b->events == 1)
		b->opened_ns = wr_now_boot();
	if (b->strs.len + b->evs.len >= w->o.chunk_bytes)
		return wr_seal(w, 0);
	if ((b->events & 63) == 0 && wr_now_boot() - b->opened_ns >= w->o.chunk_age_ns)
		return wr_seal(w, 0);
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
	int rc = check_live(w);
	if (rc)
		return rc;
	if (!w->cb.events && !(force && w->dropped_pending))
		return 0;
	if (!force && wr_now_boot() - w->cb.opened_ns < w->o.chunk_age_ns)
		return 0;
	rc = wr_seal(w, force);
	wr_drain(w); /* written (to the page cache) when flush returns */
	return rc ? rc : wr_sticky(w);
}

/* Final metadata, footer index and trailer of a linear file at w->pos (or
 * the final metadata of a ring file). */
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
