/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * schema.h - the .tz schema of tracer's events, built from bpf/events.h with
 * offsetof/sizeof so the file describes the structs truthfully. Used by the
 * recorder to write traces and by tests to synthesise them. No libbpf here.
 */
#ifndef TRACER_SCHEMA_H
#define TRACER_SCHEMA_H

#include <stddef.h>

#include "bpf/events.h"
#include "tz.h"

/*
 * Every event type tracer writes, ordered by id; *n receives the count.
 * Static storage, never freed. The fixed part of an event in the .tz file is
 * the struct *without* struct ev_hdr (type and ts_ns travel in the event
 * encoding), so field offsets are relative to the byte after the header.
 */
const struct tz_event_type *tracer_schema(size_t *n);

/* Register every type with w. Returns 0 or the first negative tz_err. */
int tracer_schema_register(tz_writer *w);

/*
 * Split a raw ring-buffer record (header + fixed + tail, as the BPF side
 * wrote it) into the fixed part and blobs for tz_writer_add(). blobs must
 * hold TRACER_MAX_BLOBS entries; blob i is the schema's blob number i (an
 * exec record carries its cwd before argv, blob 4 after argv 3, then env 5). Returns the blob count (>= 0), or -1 when the record is
 * malformed (size smaller than its struct, tail lengths beyond size).
 */
#define TRACER_MAX_BLOBS 6 /* most blobs of one event type (exec) */
int tracer_event_split(const void *rec, size_t size, const void **fixed, uint32_t *fixed_len,
		       struct tz_blob *blobs);

/* tracer_event_write()'s "malformed record" (tracer_event_split() refused
 * it: nothing was written, the writer is unharmed): outside enum tz_err's
 * range, so it is never mistaken for TZ_ERR_IO (-1). */
#define TRACER_ERR_MALFORMED (-1000)

/* Write one raw record (as above) with tz_writer_add(); the state variant
 * uses tz_writer_add_state(). Returns 0, TRACER_ERR_MALFORMED, or a
 * negative tz_err of the writer (TZ_ERR_IO, TZ_ERR_NOSPC: sticky). */
int tracer_event_write(tz_writer *w, const void *rec, size_t size);
int tracer_event_write_state(tz_writer *w, const void *rec, size_t size);

#endif /* TRACER_SCHEMA_H */
