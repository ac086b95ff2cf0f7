/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz.h - the .tz trace file library: writer, reader, index, recovery.
 * Depends on libc, pthreads, libzstd and libxxhash. docs/FORMAT.md is the byte-level
 * specification; this header is the C interface to it.
 *
 * How to write a trace
 *   1. tz_writer_open() (a fresh file, mode 0600, see tz_create_file()) or
 *      tz_writer_open_mem() (in memory, for tests and fuzz seeds).
 *   2. tz_writer_set_meta() for every key/value (hostname, kernel, ...).
 *   3. tz_writer_add_type() for every event type (schema).
 *   4. tz_writer_add() per event, in any timestamp order. Chunks are sealed by
 *      size (opts.chunk_bytes) or age (opts.chunk_age_ns); compression runs in
 *      a background thread when opts.threads > 0.
 *   5. tz_writer_close(): seals the open chunk, writes the final metadata, the
 *      index and the footer, fsyncs and frees. Its return value is the first
 *      error the writer met.
 *
 * How to read a trace
 *   1. tz_reader_open() / tz_reader_open_mem(). A file without a valid footer
 *      (crash, truncation) is opened by scanning block headers forward; bad
 *      blocks are skipped (resynchronising on the block magic) and counted.
 *   2. tz_reader_info(), tz_reader_meta_get(), tz_reader_type_by_id().
 *   3. tz_reader_iter(from, to, flags) then tz_reader_next() until it returns
 *      0: events in timestamp order (stable tie-break: chunk sequence, then
 *      position in chunk), touching only chunks that overlap [from, to].
 *   4. tz_reader_free().
 *
 * Errors: functions return 0 (or a positive count) on success and a negative
 * enum tz_err on failure; tz_strerror() names the code and
 * tz_writer_errmsg()/tz_reader_errmsg() give a one-line detail such as
 * "'run.tz': offset 81920: chunk 12: checksum mismatch". The library never
 * prints and never exits. All handles accept NULL in their free functions.
 */
#ifndef TZ_H
#define TZ_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pinned error codes: values never change. */
enum tz_err {
	TZ_OK = 0,
	TZ_ERR_IO = -1,	       /* read/write/open failed (errno in the message) */
	TZ_ERR_NOMEM = -2,     /* allocation failed */
	TZ_ERR_INVAL = -3,     /* bad argument from the caller */
	TZ_ERR_MAGIC = -4,     /* not a .tz file, or mangled (text-mode transfer) */
	TZ_ERR_VERSION = -5,   /* major version this library does not know */
	TZ_ERR_INCOMPAT = -6,  /* an unknown incompatible feature flag is set */
	TZ_ERR_CORRUPT = -7,   /* a structure is inconsistent */
	TZ_ERR_TRUNCATED = -8, /* the file ends inside a structure */
	TZ_ERR_CHECKSUM = -9,  /* a checksum does not match */
	TZ_ERR_ZSTD = -10,     /* zstd failed to (de)compress */
	TZ_ERR_LIMIT = -11,    /* a size or count exceeds the reader's limits */
	TZ_ERR_STATE = -12,    /* call not valid in the handle's state (sticky error) */
	TZ_ERR_NOSPC = -13,    /* no space left on the device */
	TZ_ERR_EXISTS = -14,   /* output exists and TZ_W_OVERWRITE not given */
	TZ_ERR_UNKNOWN_TYPE = -15, /* event type not in the schema */
	TZ_ERR_SEQ = -16,      /* a block that does not fit its neighbours: the
				  same seq as another chunk or state block, out
				  of place in a ring segment, or a length that
				  runs over the next block (FORMAT.md 11) */
	TZ_ERR_MULTI = -17,    /* a multi-host trace (incompat bit MULTI): a
				  tz_reader reads one member; open the file
				  with tz_multi_open (FORMAT.md 18) */
	TZ_ERR__COUNT = 18
};

/* Static string for an error code ("checksum mismatch"); never NULL. */
const char *tz_strerror(int err);

/*
 * Create path as a new, empty regular file of mode 0600 (less the umask) and
 * open it write-only, close-on-exec. Never writes into an existing inode and
 * never follows a symlink at path: an existing FIFO, device, socket or
 * directory fails with TZ_ERR_INVAL without being opened (errno EISDIR for a
 * directory, else EINVAL), with or without overwrite; without overwrite any
 * other existing path (a dangling symlink too) fails with TZ_ERR_EXISTS;
 * with overwrite an existing regular file or symlink is unlinked first (the
 * link itself, never its target; the old file's mode, owner and other hard
 * links are not reused). Returns the fd (>= 0) or a negative
 * tz_err; errno holds the cause of TZ_ERR_IO. Used by tz_writer_open(),
 * tz_recover() and the analyzer's output files.
 */
int tz_create_file(const char *path, int overwrite);
/* The same with the new file's permission bits: mode & 0666, less the
 * process's umask (open(2)); tz_create_file() is mode 0600 (traces). */
int tz_create_file_mode(const char *path, int overwrite, unsigned mode);

/* ---------------------------------------------------------------- schema */

/* Field types. Scalars are little-endian in the fixed part of an event. */
enum tz_ftype {
	TZ_F_U8 = 1,
	TZ_F_U16 = 2,
	TZ_F_U32 = 3,
	TZ_F_U64 = 4,
	TZ_F_I8 = 5,
	TZ_F_I16 = 6,
	TZ_F_I32 = 7,
	TZ_F_I64 = 8,
	TZ_F_CHARS = 9, /* fixed char array, NUL-padded (comm) */
	TZ_F_BYTES = 10, /* fixed opaque bytes */
	TZ_F_STR = 11,	 /* blob: a variable-length byte string (path) */
	TZ_F_STRV = 12,	 /* blob: NUL-separated strings (argv), bytes exact */
};

/*
 * One field of an event type. Fixed fields (U8..BYTES) live at [offset,
 * offset+size) of the event's fixed part. Blob fields (STR, STRV) are the
 * event's variable-length members: offset is the blob index, size is 0.
 */
struct tz_field {
	const char *name; /* "utime_ns"; unique within its type */
	uint8_t type;	  /* enum tz_ftype */
	uint32_t offset;  /* byte offset in the fixed part, or blob index */
	uint32_t size;	  /* bytes in the fixed part (0 for blobs) */
	const char *unit; /* "ns", "KiB", "bytes", "count", "" */
};

/* Event type flags */
#define TZ_TYPE_STATE 0x1 /* may appear in state blocks (process state) */

/*
 * One event type of the schema. Type ids are never reused; newer versions
 * only append fields (fixed_size grows) and blobs. Readers skip unknown types
 * by length and read missing trailing fields of older files as 0.
 */
struct tz_event_type {
	uint16_t id;	     /* 1..0xfeff; 0 and 0xff00.. are reserved */
	uint16_t version;    /* bumped when fields are appended */
	const char *name;    /* "exec" */
	uint32_t fixed_size; /* bytes of the fixed part */
	uint32_t flags;	     /* TZ_TYPE_* */
	uint16_t nfields;    /* entries in fields[] */
	uint16_t nblobs;     /* how many of them are blobs */
	const struct tz_field *fields;
};

/* Field lookup by name; NULL when absent. */
const struct tz_field *tz_type_field(const struct tz_event_type *t, const char *name);

/* --------------------------------------------------------------- events */

/* A variable-length member of an event. Borrowed, never owned. */
struct tz_blob {
	const void *data;
	uint32_t len; /* bytes */
};

/* Event flags (reader side) */
#define TZ_EVF_STATE 0x1 /* from a state block, not a live event */

/* One decoded event; valid until the next tz_reader_next()/iter/free. */
struct tz_event {
	const struct tz_event_type *type; /* NULL for a type not in the schema */
	uint16_t type_id;
	uint32_t flags;	     /* TZ_EVF_* */
	uint64_t ts_ns;	     /* CLOCK_BOOTTIME ns */
	const uint8_t *fixed; /* fixed part, little-endian */
	uint32_t fixed_len;  /* bytes; may be shorter or longer than type->fixed_size */
	uint32_t nblobs;
	const struct tz_blob *blobs;
	uint64_t chunk_seq;  /* sequence number of the chunk that held it */
};

/*
 * Scalar field value, zero- or sign-extended to 64 bits. A field beyond
 * fixed_len (older writer) or f == NULL reads as 0.
 */
uint64_t tz_event_u64(const struct tz_event *ev, const struct tz_field *f);
int64_t tz_event_i64(const struct tz_event *ev, const struct tz_field *f);
/* tz_event_u64 inlined, for loops over millions of events (the analyzer's
 * model build): the same rules and results. Non-scalar fields read as 0;
 * the reader has checked that a scalar field's size matches its type. */
static inline uint64_t tz_event_u64_inline(const struct tz_event *ev, const struct tz_field *f)
{
	if (!ev || !f || (uint64_t)f->offset + f->size > ev->fixed_len)
		return 0;
	const uint8_t *p = ev->fixed + f->offset;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;
	switch (f->type) {
	case TZ_F_U8:
		return p[0];
	case TZ_F_I8:
		return (uint64_t)(int64_t)(int8_t)p[0];
	case TZ_F_U16:
		memcpy(&v16, p, 2);
		return le16toh(v16);
	case TZ_F_I16:
		memcpy(&v16, p, 2);
		return (uint64_t)(int64_t)(int16_t)le16toh(v16);
	case TZ_F_U32:
		memcpy(&v32, p, 4);
		return le32toh(v32);
	case TZ_F_I32:
		memcpy(&v32, p, 4);
		return (uint64_t)(int64_t)(int32_t)le32toh(v32);
	case TZ_F_U64:
	case TZ_F_I64:
		memcpy(&v64, p, 8);
		return le64toh(v64);
	default:
		return 0;
	}
}
/* Blob by field (STR/STRV); an absent blob is {NULL, 0}. */
struct tz_blob tz_event_blob(const struct tz_event *ev, const struct tz_field *f);
/* CHARS/BYTES field: pointer into ev->fixed and its length (0 when absent). */
const uint8_t *tz_event_bytes(const struct tz_event *ev, const struct tz_field *f, uint32_t *len);

/* --------------------------------------------------------------- writer */

typedef struct tz_writer tz_writer;

/* Writer flags */
#define TZ_W_OVERWRITE 0x1 /* replace an existing regular file or symlink
				      (else TZ_ERR_EXISTS) */
#define TZ_W_NO_FSYNC 0x2  /* do not fsync on seal/close (tests, benchmarks) */

struct tz_writer;
/*
 * Called by the writer when it starts a state block (see FORMAT.md "state
 * blocks"): the callee adds one event per living process with
 * tz_writer_add_state(). Runs on the thread that called tz_writer_add() or
 * tz_writer_flush(). Return 0 or a negative tz_err: an error is not sticky
 * (the block keeps the events added so far and writing goes on); it is
 * returned by tz_writer_close().
 */
typedef int (*tz_state_fn)(void *ctx, tz_writer *w);

struct tz_writer_opts {
	uint32_t flags;		/* TZ_W_* */
	uint32_t chunk_bytes;	/* seal when uncompressed payload reaches this; 0 = 1 MiB */
	uint64_t chunk_age_ns;	/* seal when the chunk is this old (by the
				   CLOCK_BOOTTIME now); 0 = 1 s */
	int level;		/* zstd level; 0 = 3 */
	int threads;		/* 0 = compress in the caller, 1 = a background
				   compression thread (bounded queue of 4
				   chunks; ignored in ring mode, which
				   compresses in the caller) */
	uint64_t ring_size;	/* bytes; 0 = linear file; else flight-recorder
				   mode: the file never exceeds ring_size */
	uint32_t state_every;	/* chunks between state blocks in a linear
				   file; 0 = 64 (ring mode writes one per segment) */
	tz_state_fn state_fn;	/* may be NULL: no state blocks */
	void *state_ctx;
	const uint8_t *boot_id; /* 16 bytes written as the header's boot id
				   instead of this host's (synthetic traces,
				   tests: a "host" of a multi-host run); NULL:
				   /proc/sys/kernel/random/boot_id */
	const char *name;	/* the file's name in tz_writer_errmsg() (a
				   rewrite's hidden file shown as the output
				   it becomes); NULL: path. Copied. */
};

/*
 * Create a trace at path (a fresh file of mode 0600, never through a symlink:
 * tz_create_file(); TZ_W_OVERWRITE replaces an existing regular file or
 * symlink) and write the file header. opts may be NULL for defaults. On
 * success *out owns the handle (tz_writer_close or tz_writer_free). Errors:
 * TZ_ERR_EXISTS, TZ_ERR_IO (also: path is a FIFO, device, directory or
 * socket: "not a regular file"), TZ_ERR_NOMEM,
 * TZ_ERR_INVAL (bad options; ring_size too small: under 64 KiB + 4 times the
 * compressed bound of chunk_bytes, about 64 KiB + 4.02 chunk_bytes).
 */
int tz_writer_open(tz_writer **out, const char *path, const struct tz_writer_opts *opts);
/* Same, into a growing memory buffer; see tz_writer_mem_take(). */
int tz_writer_open_mem(tz_writer **out, const struct tz_writer_opts *opts);

/* Metadata key/value (UTF-8, no NUL inside). A key set again replaces the
 * value; values set after the first event land in the final metadata block
 * written at close. */
int tz_writer_set_meta(tz_writer *w, const char *key, const char *value);

/* Register an event type. Copied; call before the first tz_writer_add() of
 * that type. Errors: TZ_ERR_INVAL (bad id, duplicate, field out of bounds). */
int tz_writer_add_type(tz_writer *w, const struct tz_event_type *t);

/*
 * Append one event. fixed is copied (fixed_len bytes, normally the type's
 * fixed_size); blobs[0..nblobs) are copied and interned per chunk. ts_ns is
 * CLOCK_BOOTTIME. Errors: TZ_ERR_UNKNOWN_TYPE, TZ_ERR_IO/NOSPC (sticky),
 * TZ_ERR_NOMEM.
 */
int tz_writer_add(tz_writer *w, uint16_t type, uint64_t ts_ns, const void *fixed,
		  uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs);

/* From inside a tz_state_fn only: one event of a TZ_TYPE_STATE type. */
int tz_writer_add_state(tz_writer *w, uint16_t type, uint64_t ts_ns, const void *fixed,
			uint32_t fixed_len, const struct tz_blob *blobs, uint32_t nblobs);

/* Events lost before reaching the writer (ring buffer full...); stored in
 * the next chunk's header as "dropped since previous chunk". */
void tz_writer_note_dropped(tz_writer *w, uint64_t n);

/* Seal the open chunk now, if it has events and is older than chunk_age_ns
 * (force != 0: regardless of age). Call periodically from an idle loop.
 * When it returns, every sealed chunk has been written to the file (with
 * threads = 1 it waits for the compression queue), so a SIGKILL after it
 * loses nothing sealed. */
int tz_writer_flush(tz_writer *w, int force);

/* Seal, write final metadata, index and footer, fsync, free. Returns the
 * first error met during the writer's life (0 if none). w is freed always.
 * A linear file keeps disk space allocated ahead of its end for the footer,
 * so after TZ_ERR_NOSPC (disk full) close still seals the file: every block
 * written before the error is kept with metadata (write_error), index and
 * trailer; the open chunk is lost; the return value is TZ_ERR_NOSPC. */
int tz_writer_close(tz_writer *w);

/* Free without finishing the file (what a crash leaves; used by tests). */
void tz_writer_free(tz_writer *w);

/* Memory writers only: the bytes written so far, as a crash would leave
 * them (waits for the compression thread). Borrowed from w, valid until
 * the next call on w. Errors: TZ_ERR_INVAL (not a memory writer). */
int tz_writer_mem_peek(tz_writer *w, const void **buf, size_t *len);

/* After tz_writer_close() of a memory writer: not possible, so memory
 * writers are finished with this instead: seals and finishes like close,
 * hands the buffer (malloc'd, caller frees) and frees w. */
int tz_writer_mem_take(tz_writer *w, void **buf, size_t *len);

/* One-line detail of the last error ("" if none); owned by w. */
const char *tz_writer_errmsg(const tz_writer *w);

/* Writer statistics (for the recorder's summary and bench). */
struct tz_writer_stats {
	uint64_t events;	     /* events accepted */
	uint64_t events_written;     /* events of the chunks written to the file
					(ring mode: also those overwritten since);
					events - events_written are in the open
					chunk or were lost to a write error */
	uint64_t chunks;	     /* chunks sealed */
	uint64_t bytes_in;	     /* uncompressed payload bytes */
	uint64_t bytes_out;	     /* bytes written to the file */
	uint64_t dropped;	     /* sum of tz_writer_note_dropped() */
};
void tz_writer_stats(const tz_writer *w, struct tz_writer_stats *st);

/* --------------------------------------------------------------- reader */

typedef struct tz_reader tz_reader;

/* Reader flags */
#define TZ_R_SCAN 0x1	/* ignore the footer index; rebuild by scanning */
#define TZ_R_SALVAGE 0x2 /* tz_multi_open*: the salvage scan (FORMAT.md
			    [X5]): members inside the container's damaged
			    regions found by their own headers, and a file
			    whose header does not check read as a container
			    when MEMBER blocks or member headers follow it;
			    for `recover`. Ignored by tz_reader_open*. */

struct tz_reader_opts {
	uint32_t flags;	   /* TZ_R_* */
	uint64_t max_chunk; /* largest uncompressed chunk accepted; 0 = 64 MiB */
};

/*
 * Open path (or a caller-owned buffer that must outlive the reader) and
 * read header, metadata, schema and index (from the footer, else by scan).
 * name is used in messages. On failure *out is still set when a handle
 * could be made, so tz_reader_errmsg() can be read; free it either way.
 * Errors: TZ_ERR_IO, TZ_ERR_MAGIC, TZ_ERR_VERSION, TZ_ERR_INCOMPAT,
 * TZ_ERR_TRUNCATED (not even a header), TZ_ERR_NOMEM.
 */
int tz_reader_open(tz_reader **out, const char *path, const struct tz_reader_opts *opts);
int tz_reader_open_mem(tz_reader **out, const void *buf, size_t len, const char *name,
		       const struct tz_reader_opts *opts);
void tz_reader_free(tz_reader *r);
const char *tz_reader_errmsg(const tz_reader *r);

/* Whole-file facts. */
struct tz_info {
	uint16_t major, minor;	/* format version of the file */
	uint64_t compat_flags;	/* ignorable feature flags */
	uint64_t ro_flags;	/* read-only-compatible feature flags */
	uint64_t incompat_flags;
	uint8_t uuid[16];	/* file UUID */
	uint8_t boot_id[16];	/* /proc/sys/kernel/random/boot_id */
	int ring;		/* 1 if written in ring (flight-recorder) mode */
	int has_footer;		/* 0: crashed or truncated, index rebuilt by scan */
	uint64_t file_size;	/* bytes */
	uint64_t chunks;	/* readable chunks */
	uint64_t state_blocks;	/* readable state blocks */
	uint64_t events;	/* events in readable chunks (from chunk headers) */
	uint64_t bytes_compressed, bytes_uncompressed; /* chunk payloads */
	uint64_t first_ts_ns, last_ts_ns; /* CLOCK_BOOTTIME range of events */
	uint64_t dropped;	/* events lost before reaching the writer: the
				   largest cumulative count in a chunk header
				   (the sum of all chunks' counts in a linear
				   file; kept in ring mode when old chunks are
				   overwritten) */
	uint64_t corrupt_blocks; /* blocks skipped as damaged */
	uint64_t duplicate_blocks; /* chunk and state blocks skipped because
				      an earlier one (file order) has the same
				      seq: a replayed or copied block; also
				      counted in corrupt_blocks */
	uint64_t corrupt_first_offset; /* file offset of the first one */
	uint64_t torn_tail_bytes; /* bytes at the end forming no complete block
				     (a write cut short by a crash, a copy
				     cut short, a block still being written);
				     also counted in corrupt_blocks */
	uint64_t torn_tail_offset; /* with torn_tail_bytes: file offset of
				      that incomplete block */
	const char *torn_tail_what; /* with torn_tail_bytes: "chunk", "state"...
				       when its block header is whole (static
				       string), NULL when the header is cut too */
	uint64_t torn_tail_seq;	/* with torn_tail_what: its header's seq */
	uint64_t torn_tail_events; /* with torn_tail_what "chunk": the events its
				      header says it holds (all lost) */
	uint64_t torn_tail_block_bytes; /* with torn_tail_what: its whole size per
					   its header, bytes */
	uint64_t tail_bytes;	/* linear, unfinished: bytes after the last
				   whole block the scan found, to the end of
				   the file (a torn block, zeros a power loss
				   left, bytes appended); 0 when the file ends
				   with a whole block */
	uint64_t tail_offset;	/* with tail_bytes: file offset where they
				   start (the end of the last whole block) */
	int tail_after_footer;	/* with tail_bytes: they follow a valid
				   TRAILER whose file size is tail_offset:
				   the trace was closed, then bytes were
				   appended (truncating the file to
				   tail_offset restores it) */
	int unfinished;		/* the writer never closed the file (killed,
				   or still writing): linear: no valid
				   trailer at the end (has_footer is 0 too);
				   ring: the final-metadata slot holds no
				   METADATA block. Its blocks are read all
				   the same. A linear file whose trailer is
				   valid but whose index does not describe
				   its blocks (damaged or stale) has
				   has_footer and unfinished both 0: it was
				   read by scan and tz_reader_errmsg() says
				   what is wrong with the index. */
	uint64_t unfinished_offset; /* ring: offset of the empty final slot;
				       linear: the file size */
	int live;		/* with unfinished: a writer holds the file's
				   lock (tz_writer_open takes flock LOCK_EX
				   until tz_writer_close): it is still being
				   written, not abandoned. 0 for a file read
				   from memory, a copy, or one written by a
				   writer before this field (no lock) */
	int ring_wrapped;	/* ring: the writer came round to segment 0
				   again, so its oldest data was overwritten
				   (the oldest segment still readable is not
				   segment 0); 0 for linear files */
};
const struct tz_info *tz_reader_info(const tz_reader *r);

/* Metadata: count, by index, by key (NULL if absent); strings owned by r.
 * Later values of a key (final metadata) win. */
size_t tz_reader_meta_count(const tz_reader *r);
int tz_reader_meta_at(const tz_reader *r, size_t i, const char **key, const char **value);
const char *tz_reader_meta_get(const tz_reader *r, const char *key);
/* A metadata value that is a number (stop_anchor_*, start_boottime_ns ...):
 * strictly decimal as docs/FORMAT.md section 5 says: u64 one or more digits
 * 0-9 and nothing else (no sign, space or other byte) within 0..2^64-1;
 * i64 the same with an optional leading '-', within INT64_MIN..INT64_MAX.
 * 0 and *out set (out may be NULL); TZ_ERR_INVAL when the key is absent,
 * the value is malformed or out of range (*out untouched). */
int tz_reader_meta_u64(const tz_reader *r, const char *key, uint64_t *out);
int tz_reader_meta_i64(const tz_reader *r, const char *key, int64_t *out);

/* Schema: count, by index, by id (NULL if unknown); owned by r. */
size_t tz_reader_type_count(const tz_reader *r);
const struct tz_event_type *tz_reader_type_at(const tz_reader *r, size_t i);
const struct tz_event_type *tz_reader_type_by_id(const tz_reader *r, uint16_t id);

/* Convert CLOCK_BOOTTIME ns to CLOCK_REALTIME ns with the nearest clock
 * anchor (header, chunk headers, footer). Returns 0, or TZ_ERR_INVAL when
 * the file has no anchor. */
int tz_reader_realtime(const tz_reader *r, uint64_t boot_ns, int64_t *realtime_ns);

/* Iteration flags */
#define TZ_IT_STATE 0x1	  /* also yield state-block events (TZ_EVF_STATE) */
#define TZ_IT_UNKNOWN 0x2 /* also yield events of types not in the schema
			     (ev->type == NULL); skipped by default */

/*
 * Start an iteration over events with from_ns <= ts_ns <= to_ns (0 and
 * UINT64_MAX for all), in timestamp order. Only chunks whose time range
 * overlaps the window are decompressed. With TZ_IT_STATE, the events of the
 * state block written just before the first chunk read (the newest state
 * block whose sequence number is below every chunk of the window; with no
 * chunk in the window, the newest state block at or before from_ns) come
 * first whatever their timestamps, then every later state block inside the
 * window merged in timestamp order. Returns 0 or TZ_ERR_INVAL (from > to),
 * TZ_ERR_NOMEM.
 */
int tz_reader_iter(tz_reader *r, uint64_t from_ns, uint64_t to_ns, uint32_t flags);

/*
 * Next event: 1 and *ev set; 0 at the end; negative on a fatal error. A
 * damaged chunk met during iteration is skipped and counted in
 * info->corrupt_blocks (the detail stays in tz_reader_errmsg()), never fatal.
 */
int tz_reader_next(tz_reader *r, const struct tz_event **ev);

/* Chunks decompressed since open (to prove seeks touch only what they must). */
uint64_t tz_reader_chunks_decoded(const tz_reader *r);

/* A block as found in the file, for `verify` and `info`. */
struct tz_block_info {
	uint64_t offset;    /* file offset of the block header */
	uint32_t type;	    /* block type (FORMAT.md) */
	uint64_t size;	    /* bytes on disk, header included */
	uint64_t seq;	    /* chunk sequence number, if a chunk */
	uint64_t events;    /* events, if a chunk */
	uint64_t min_ts_ns, max_ts_ns;
	int status;	    /* 0 ok, else the tz_err that makes it unreadable */
	const char *what;   /* "chunk", "state", "index", ...; static */
	int no_loss;	    /* status != 0 on an INDEX block met in the walk (a
			     * periodic or the final one): redundant, no data
			     * lost, not in corrupt_blocks (FORMAT.md [I2]); 0
			     * on the report of an unusable final index */
};
/* Walk every block, checking all checksums and decompressing chunks.
 * cb returns non-zero to stop. Returns the number of bad blocks (>= 0) or a
 * negative tz_err when the file cannot be walked at all. */
int tz_reader_verify(tz_reader *r, int (*cb)(void *ctx, const struct tz_block_info *b),
		     void *ctx);

/*
 * Write every readable block of r as a clean linear file at out_path (ring
 * files are unrolled in sequence order; the index and footer are rebuilt).
 * What the input lost is written in a last METADATA block (FORMAT.md
 * "recover"): recovered_damaged_blocks (blocks left out), recovered_unfinished
 * ("1": the input had no trailer, what its writer had not sealed is not in
 * it), and for an input that ends inside a block recovered_cut_offset,
 * recovered_cut_block ("chunk 12", or "block" when its header is cut too) and
 * recovered_cut_events (a chunk's event count from its header).
 * out_path is created like tz_writer_open() does (tz_create_file()): fails
 * with TZ_ERR_EXISTS unless opts->overwrite; a failure after it was created
 * (a full disk ...) removes it. opts may be NULL (no overwrite, messages
 * name out_path). Returns chunks written (>= 0) or a negative tz_err;
 * detail in tz_reader_errmsg(r), which names the output as opts->name.
 */
struct tz_recover_opts {
	int overwrite;	  /* replace an existing regular file or symlink */
	const char *name; /* out_path as messages show it (a rewrite's hidden
			     file shown as the output it becomes, as
			     tz_writer_opts.name); NULL: out_path. Borrowed for
			     the call. */
	uint64_t *events; /* non-NULL: set to the events in the chunks written
			     (their headers' counts, each chunk decoded and
			     checked before it is copied); not tz_info.events,
			     which counts chunks a checksum later fails */
};
int tz_recover(tz_reader *r, const char *out_path, const struct tz_recover_opts *opts);

/*
 * Does buf (the first len bytes of a file, or of a member) start with a file
 * header that checks: FORMAT.md [H1] steps 1-5 (magic, major 1, header_size
 * in range and within len, header checksum)? 0 and *hdr_size set (may be
 * NULL), else the tz_err the reader's open would return for it (MAGIC,
 * TRUNCATED, VERSION, CORRUPT, CHECKSUM) with *why (may be NULL) a static
 * reason ("header checksum mismatch"). Flags and ring geometry are not
 * looked at.
 */
int tz_header_check(const void *buf, size_t len, uint32_t *hdr_size, const char **why);

/* ----------------------------------------------------------- multi-host */

/*
 * A multi-host trace (FORMAT.md section 18, incompat bit MULTI) holds N
 * member traces, each a complete .tz file kept byte for byte after a MEMBER
 * block that names it. tz_multi opens any path as a list of members: a plain
 * trace is one member (the file itself), a MULTI file its members, each read
 * with its own tz_reader. tz_reader_open() on a MULTI file fails with
 * TZ_ERR_MULTI.
 */
typedef struct tz_multi tz_multi;

#define TZ_MEMBER_PARTIAL 0x1 /* merged from a file that was unfinished or damaged */

/* One member. Strings and bytes owned by the handle, valid until
 * tz_multi_free(). */
struct tz_member {
	uint64_t off, len;	       /* the member's bytes in the file (len as
					  stored: less than written when cut) */
	uint8_t uuid[16], boot_id[16]; /* the MEMBER block's copies of the
					  member header's uuid and boot_id */
	uint32_t flags;		       /* TZ_MEMBER_* */
	const char *source;	       /* file it was merged from; "" if unsaid */
	const char *hostname;	       /* its recorder's hostname (a plain
					  trace: its metadata's); "" if unsaid */
	int cut;		       /* the file ends inside the member */
	int dup_of;		       /* -1, or an earlier member with this uuid
					  (FORMAT.md [X3]: read once) */
	int salvaged;		       /* found by its own header inside damage
					  (TZ_R_SALVAGE, FORMAT.md [X5]): no
					  MEMBER block; uuid and boot_id from its
					  header, hostname from its metadata,
					  source "salvaged at offset N (host H,
					  started YYYY-MM-DDTHH:MM:SSZ)" (N: off;
					  H: that hostname; the time: its
					  header's start_real_ns, UTC; each
					  left out when unknown); cut when it is
					  linear, has no trailer and no member
					  follows it (it runs to the end of the
					  file) */
	const uint8_t *data;	       /* the member's bytes, mapped (a plain
					  trace: the whole file) */
};

/*
 * Open path: a plain .tz (one member) or a MULTI container (its members,
 * found by the walk of FORMAT.md [X1]). Damage in the container's own
 * blocks is counted (tz_multi_damage) and the first one named in
 * tz_multi_errmsg(); members after it are still found when a MEMBER block
 * follows; with TZ_R_SALVAGE in opts->flags also members inside damage
 * found by their own headers, and a file whose header does not check is
 * opened as a container when the salvage scan finds a member in it (the
 * header named as the first damage; else the header's error is returned).
 * Errors: those of tz_reader_open() for the header, TZ_ERR_NOMEM,
 * TZ_ERR_LIMIT (more than TZ_MULTI_MAX members). On failure *out is still set
 * when a handle could be made (for the message); free it either way.
 */
#define TZ_MULTI_MAX 4096
int tz_multi_open(tz_multi **out, const char *path, const struct tz_reader_opts *opts);
/* The same over a caller-owned buffer that must outlive the handle and its
 * members' readers; name is used in messages. */
int tz_multi_open_mem(tz_multi **out, const void *buf, size_t len, const char *name,
		      const struct tz_reader_opts *opts);
/* 1 for a MULTI container, 0 for a plain trace. */
int tz_multi_is_container(const tz_multi *m);
size_t tz_multi_count(const tz_multi *m);
const struct tz_member *tz_multi_member(const tz_multi *m, size_t i);
/* Damaged regions in the container's own structure (not inside members). */
uint64_t tz_multi_damage(const tz_multi *m);
/* The container's merge metadata (its METADATA blocks, [M1] rules), or
 * NULL for a plain trace or an absent key. */
const char *tz_multi_meta_get(const tz_multi *m, const char *key);
const char *tz_multi_errmsg(const tz_multi *m);
/* Open member i with its own reader (messages name "PATH[i]" and offsets
 * inside the member). The reader must be freed before tz_multi_free(m).
 * Returns what tz_reader_open()/tz_reader_open_mem() return. */
int tz_multi_reader(tz_multi *m, size_t i, tz_reader **out);
void tz_multi_free(tz_multi *m);

/* One input of tz_multi_write(): a member's bytes and what names it. */
struct tz_merge_src {
	const uint8_t *data; /* the member's bytes (a complete .tz file, not MULTI) */
	uint64_t len;
	const uint8_t *uuid, *boot_id; /* 16 bytes each: the member header's */
	uint32_t flags;		       /* TZ_MEMBER_* */
	const char *source, *hostname; /* NULL: not said */
};
/*
 * Write a MULTI container at out_path (created like tz_create_file(); fails
 * with TZ_ERR_EXISTS unless overwrite) holding the n sources in order, with
 * the merge metadata meta[0..nmeta) (key, value pairs). The caller refuses
 * duplicate uuids first. On failure the partial file is removed. Returns 0
 * or a negative tz_err with a one-line reason in err (cap bytes).
 */
int tz_multi_write(const char *out_path, int overwrite, const struct tz_merge_src *src, size_t n,
		   const char *const *meta, size_t nmeta, char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TZ_H */
