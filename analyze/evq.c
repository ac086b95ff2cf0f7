/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evq.c - a reader on its own thread (evq.h).
 *
 * The thread fills batches: each event is copied as one record
 *   [u64 record bytes][struct tz_event][fixed part][struct tz_blob x nblobs][blob bytes]
 * (each part 8-byte aligned) whose pointers point into the batch itself, so
 * the consumer hands out the struct tz_event in place. A batch is filled by
 * the thread, then owned by the consumer until it asks for the next one; a
 * batch's buffer only moves (grows) while it is empty and the thread's.
 */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "evq.h"
#include "common/thread.h"

#define EVQ_BATCHES 4

struct evq_batch {
	uint8_t *buf;
	size_t cap, len; /* bytes allocated, bytes of records */
	int last;	 /* the reader's last batch: rc is its final return */
	int rc;
	uint64_t chunks; /* tz_reader_chunks_decoded when it was handed over */
};

struct tza_evq {
	tz_reader *r;
	struct tza_evq_opts o;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t full, empty; /* a batch was filled / released */
	struct evq_batch b[EVQ_BATCHES];
	unsigned nfull;	 /* batches filled and not yet released (under mu) */
	int stop;	 /* the consumer gave up (under mu) */
	unsigned fill;	 /* the thread's next batch to fill */
	/* the consumer's side */
	unsigned take;	 /* next batch to take */
	struct evq_batch *cur;
	size_t pos;	 /* next record in cur */
	uint64_t chunks; /* cur's chunks (kept after the last batch) */
	int ended, end_rc;
};

static inline size_t al8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t rec_bytes(const struct tz_event *ev, int intern)
{
	size_t n = 8 + al8(sizeof(*ev)) + al8(ev->fixed_len) +
		   al8((size_t)ev->nblobs * sizeof(struct tz_blob));
	for (uint32_t i = 0; !intern && i < ev->nblobs; i++)
		n += al8(ev->blobs[i].len);
	return n;
}

/* Copy ev as one record at p (rec_bytes(ev) of room); with o->intern, its
 * blobs are interned instead. -1: out of memory. */
static int rec_put(uint8_t *p, size_t size, const struct tz_event *ev,
		   const struct tza_evq_opts *o)
{
	uint64_t sz = size, h[8];
	/* the strings' hashes and cache slots asked for first: the slots'
	 * misses overlap each other and the copies below */
	for (uint32_t i = 0; o->intern && i < ev->nblobs && i < 8; i++) {
		if (!ev->blobs[i].data)
			continue;
		h[i] = tza_strcache_hash(ev->blobs[i].data, ev->blobs[i].len);
		tza_strcache_prefetch(o->cache, h[i]);
	}
	memcpy(p, &sz, 8);
	struct tz_event *e = (struct tz_event *)(p + 8);
	uint8_t *q = p + 8 + al8(sizeof(*e));
	*e = *ev;
	e->fixed = q;
	if (ev->fixed_len)
		memcpy(q, ev->fixed, ev->fixed_len);
	q += al8(ev->fixed_len);
	struct tz_blob *bl = (struct tz_blob *)q;
	e->blobs = ev->nblobs ? bl : NULL;
	q += al8((size_t)ev->nblobs * sizeof(*bl));
	for (uint32_t i = 0; i < ev->nblobs; i++) {
		const struct tz_blob *in = &ev->blobs[i];
		bl[i].len = in->len;
		if (!in->data) {
			bl[i].data = NULL;
		} else if (o->intern) {
			uint64_t hi = i < 8 ? h[i] : tza_strcache_hash(in->data, in->len);
			if (!(bl[i].data = tza_strcache_get_h(o->cache, o->intern, in->data, in->len,
							      hi)))
				return -1;
		} else {
			bl[i].data = q;
			if (in->len)
				memcpy(q, in->data, in->len);
			q += al8(in->len);
		}
	}
	return 0;
}

/* Hand the batch being filled to the consumer and wait for an empty one;
 * NULL when the consumer gave up. */
static struct evq_batch *publish(struct tza_evq *q)
{
	q->b[q->fill].chunks = tz_reader_chunks_decoded(q->r);
	pthread_mutex_lock(&q->mu);
	q->nfull++;
	q->fill = (q->fill + 1) % EVQ_BATCHES;
	pthread_cond_signal(&q->full);
	while (q->nfull == EVQ_BATCHES && !q->stop) {
		if (q->o.idle) { /* before each wait: it may have work again */
			pthread_mutex_unlock(&q->mu);
			q->o.idle(q->o.idle_arg);
			pthread_mutex_lock(&q->mu);
			if (q->nfull < EVQ_BATCHES || q->stop)
				break;
		}
		pthread_cond_wait(&q->empty, &q->mu);
	}
	struct evq_batch *b = q->stop ? NULL : &q->b[q->fill];
	pthread_mutex_unlock(&q->mu);
	if (b) {
		b->len = 0;
		b->last = 0;
	}
	return b;
}

static void *reader_thread(void *arg)
{
	struct tza_evq *q = arg;
	struct evq_batch *b = &q->b[q->fill];
	const struct tz_event *ev;
	int rc;
	b->len = 0;
	for (;;) {
		rc = tz_reader_next(q->r, &ev);
		if (rc <= 0)
			break;
		size_t need = rec_bytes(ev, q->o.intern != NULL);
		if (b->len + need > b->cap && b->len) {
			if (!(b = publish(q)))
				return NULL;
		}
		if (need > b->cap) { /* empty here: nothing points into it */
			uint8_t *nb = realloc(b->buf, need);
			if (!nb) {
				rc = TZ_ERR_NOMEM;
				break;
			}
			b->buf = nb;
			b->cap = need;
		}
		if (rec_put(b->buf + b->len, need, ev, &q->o) < 0) {
			rc = TZ_ERR_NOMEM;
			break;
		}
		b->len += need;
	}
	b->last = 1;
	b->rc = rc;
	publish(q);
	return NULL;
}

int tza_evq_start(tz_reader *r, struct tza_evq **out)
{
	return tza_evq_start_ex(r, NULL, out);
}

int tza_evq_start_ex(tz_reader *r, const struct tza_evq_opts *o, struct tza_evq **out)
{
	*out = NULL;
	struct tza_evq *q = calloc(1, sizeof(*q));
	if (!q)
		return TZ_ERR_NOMEM;
	q->r = r;
	if (o)
		q->o = *o;
	if (!q->o.intern)
		q->o.cache = NULL;
	else if (!q->o.cache) {
		free(q);
		return TZ_ERR_INVAL;
	}
	size_t batch_bytes = q->o.batch_bytes ? q->o.batch_bytes : TZA_EVQ_BATCH_BYTES;
	for (int i = 0; i < EVQ_BATCHES; i++) {
		q->b[i].buf = malloc(batch_bytes);
		q->b[i].cap = batch_bytes;
		if (!q->b[i].buf)
			goto fail;
	}
	if (pthread_mutex_init(&q->mu, NULL))
		goto fail;
	if (pthread_cond_init(&q->full, NULL)) {
		pthread_mutex_destroy(&q->mu);
		goto fail;
	}
	if (pthread_cond_init(&q->empty, NULL)) {
		pthread_cond_destroy(&q->full);
		pthread_mutex_destroy(&q->mu);
		goto fail;
	}
	if (tr_thread_start(&q->th, reader_thread, q)) {
		pthread_cond_destroy(&q->empty);
		pthread_cond_destroy(&q->full);
		pthread_mutex_destroy(&q->mu);
		goto fail;
	}
	*out = q;
	return 0;
fail:
	for (int i = 0; i < EVQ_BATCHES; i++)
		free(q->b[i].buf);
	free(q);
	return TZ_ERR_NOMEM;
}

int tza_evq_next(struct tza_evq *q, const struct tz_event **ev)
{
	for (;;) {
		struct evq_batch *b = q->cur;
		if (b && q->pos < b->len) {
			uint64_t sz;
			memcpy(&sz, b->buf + q->pos, 8);
			*ev = (const struct tz_event *)(b->buf + q->pos + 8);
			q->pos += sz;
			return 1;
		}
		if (q->ended)
			return q->end_rc;
		pthread_mutex_lock(&q->mu);
		if (b) { /* release it */
			if (b->last) {
				q->ended = 1;
				q->end_rc = b->rc;
			}
			q->nfull--;
			q->cur = NULL;
			pthread_cond_signal(&q->empty);
		}
		if (!q->ended) {
			while (!q->nfull)
				pthread_cond_wait(&q->full, &q->mu);
			q->cur = &q->b[q->take];
			q->chunks = q->cur->chunks;
			q->take = (q->take + 1) % EVQ_BATCHES;
			q->pos = 0;
		}
		pthread_mutex_unlock(&q->mu);
	}
}

uint64_t tza_evq_chunks(const struct tza_evq *q)
{
	return q->chunks;
}

void tza_evq_free(struct tza_evq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->empty);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->empty);
	pthread_cond_destroy(&q->full);
	pthread_mutex_destroy(&q->mu);
	for (int i = 0; i < EVQ_BATCHES; i++)
		free(q->b[i].buf);
	free(q);
}

int tza_evq_useful(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	return CPU_COUNT(&set) >= 2;
}
