/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evq.h - a reader on its own thread: events are decoded (decompression,
 * varints, the time-order merge) by a second thread and handed to the
 * caller in batches, so a consumer such as the model build runs beside the
 * decoding instead of after it.
 *
 * The caller sees the same events, in the same order, with the same fields
 * as tz_reader_next() would give it; only the memory an event points to is
 * the queue's (a copy), valid until the next tza_evq_next().
 */
#ifndef TRACER_EVQ_H
#define TRACER_EVQ_H

#include "tz.h"

struct tza_evq;

/*
 * Start reading r on a new thread. r must have been positioned with
 * tz_reader_iter() and is the thread's until tza_evq_free() returns: the
 * caller must not use r meanwhile (tz_reader_errmsg included). Memory:
 * a few batches of 1 MiB (one event bigger than a batch gets a batch of its
 * size). Returns 0 and *out, or TZ_ERR_NOMEM (no thread could be made).
 */
int tza_evq_start(tz_reader *r, struct tza_evq **out);

/* Bytes of a batch by default */
#define TZA_EVQ_BATCH_BYTES (1u << 20)

struct tza_arena;
struct tza_strcache;

/* tza_evq_start_ex options; zero-initialise, then set what differs */
struct tza_evq_opts {
	size_t batch_bytes; /* bytes of a batch; 0: TZA_EVQ_BATCH_BYTES (tests use
			       small ones: events outgrow their batch and
			       batches change hands often) */
	/* called on the thread each time it would wait for the consumer (every
	 * batch full): work the consumer would otherwise do itself, such as
	 * faulting in memory it will need next; runs concurrently with the
	 * consumer and must be short (it delays the reading). NULL: none */
	void (*idle)(void *);
	void *idle_arg;
	/* non-NULL: every blob (data != NULL) is interned by the thread with
	 * tza_strcache_get(cache, intern, ...) instead of copied into the
	 * batch: the event's blob data then points to that NUL-terminated,
	 * possibly shared copy, which lives as long as the arena. Both belong
	 * to the thread until tza_evq_free() returns, the caller's after. */
	struct tza_arena *intern;
	struct tza_strcache *cache;
};

/* tza_evq_start with options (NULL: the defaults); TZ_ERR_INVAL: intern
 * without cache */
int tza_evq_start_ex(tz_reader *r, const struct tza_evq_opts *o, struct tza_evq **out);

/*
 * The next event: 1 and *ev (owned by the queue, valid until the next call
 * or tza_evq_free), 0 at the end, or the reader's negative tz_err (its
 * message is in tz_reader_errmsg(r) once tza_evq_free() has returned).
 * After 0 or an error, every further call returns the same.
 */
int tza_evq_next(struct tza_evq *q, const struct tz_event **ev);

/* Chunks the reader had decoded (tz_reader_chunks_decoded) when the batch
 * of the last event returned was filled: the consumer's progress, read
 * without touching r. 0 before the first event; after the end, every chunk
 * the reader decoded. */
uint64_t tza_evq_chunks(const struct tza_evq *q);

/* Stop the thread (it may be mid-file: the caller gave up) and free the
 * queue; r is the caller's again. NULL is fine. */
void tza_evq_free(struct tza_evq *q);

/* Whether a second thread is worth it here: 1 when this process may run on
 * at least two CPUs (sched_getaffinity), else 0. */
int tza_evq_useful(void);

#endif /* TRACER_EVQ_H */
