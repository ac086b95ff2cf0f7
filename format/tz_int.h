/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz_int.h - private to format/: the on-disk constants of docs/FORMAT.md,
 * little-endian and varint helpers, block header encode/decode, and the
 * schema/metadata codecs shared by the writer, the reader and recovery.
 * Nothing here is API; the numbers here ARE the format (change FORMAT.md
 * first).
 */
#ifndef TZ_INT_H
#define TZ_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "tz.h"

/* File header (FORMAT.md "File header") */
#define TZ_MAGIC "\x89TZ1\r\n\x1a\n"
#define TZ_MAGIC_LEN 8
#define TZ_MAJOR 1
#define TZ_MINOR 0
#define TZ_HDR_SIZE 128		/* header size this version writes */
#define TZ_HDR_MAX 4096		/* largest header_size a reader accepts */
#define TZ_INCOMPAT_RING 0x1ull /* ring (flight-recorder) layout */
#define TZ_INCOMPAT_MULTI 0x2ull /* multi-host container (FORMAT.md 18) */
#define TZ_INCOMPAT_KNOWN (TZ_INCOMPAT_RING | TZ_INCOMPAT_MULTI)
#define TZ_RO_KNOWN 0ull

/* Block header (FORMAT.md "Blocks") */
#define TZ_BMAGIC "\xd7TZB"
#define TZ_BMAGIC_LEN 4
#define TZ_BHDR_FIXED 32 /* bytes before ext */
#define TZ_BHDR_MIN 40	 /* fixed part + header checksum, ext_len 0 */
#define TZ_EXT_MAX 4096

enum tz_btype {
	TZ_B_META = 1,
	TZ_B_SCHEMA = 2,
	TZ_B_CHUNK = 3,
	TZ_B_STATE = 4,
	TZ_B_INDEX = 5,
	TZ_B_TRAILER = 6,
	TZ_B_MEMBER = 7, /* a member of a MULTI container (FORMAT.md 18) */
};
#define TZ_MEMBER_EXT 48 /* ext of the MEMBER block */

#define TZ_BF_ZSTD 0x1 /* payload is one zstd frame */
#define TZ_BF_KNOWN TZ_BF_ZSTD

#define TZ_CHUNK_EXT 56				       /* ext of CHUNK and STATE blocks */
#define TZ_TRAILER_EXT 24			       /* ext of the TRAILER block */
#define TZ_TRAILER_SIZE (TZ_BHDR_MIN + TZ_TRAILER_EXT) /* 64 */
#define TZ_INDEX_ENTRY 88			       /* bytes per index entry */

/* Reader limits (FORMAT.md "Limits") */
#define TZ_MAX_TYPES 4096 /* event types per file */
#define TZ_MAX_KEYS 4096  /* distinct metadata keys per file */

/* Ring layout */
#define TZ_RING_HEAD 65536		 /* head area: header, metadata, schema, final slot */
#define TZ_RING_FINAL (TZ_RING_HEAD / 2) /* offset of the final metadata slot */

/* Decoded chunk/state ext */
struct tz_chunk_ext {
	uint64_t min_ts, max_ts;
	uint64_t events;
	uint64_t dropped;	/* since the previous chunk */
	uint64_t dropped_total; /* cumulative since the writer opened */
	uint64_t anchor_boot;
	int64_t anchor_real;
};

/* Decoded block header */
struct tz_bhdr {
	uint8_t type, flags;
	uint16_t ext_len;
	uint32_t payload_len, raw_len;
	uint64_t seq;
	uint64_t payload_csum;
	const uint8_t *ext; /* points into the caller's buffer */
};

/* ---------------------------------------------------------------- bytes */

static inline uint16_t tz_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t tz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t tz_le64(const uint8_t *p)
{
	return (uint64_t)tz_le32(p) | (uint64_t)tz_le32(p + 4) << 32;
}
static inline void tz_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void tz_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void tz_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* LEB128 unsigned varint, at most 10 bytes. Returns bytes written. */
static inline size_t tz_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Decode a varint from [*p, end); 0 on success and *p advanced, -1 when it
 * runs past end or is longer than 10 bytes / overflows 64 bits. */
int tz_get_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *out);
static inline int tz_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	if (*p < end && **p < 0x80) { /* one byte: the common case */
		*out = *(*p)++;
		return 0;
	}
	return tz_get_varint_slow(p, end, out);
}

static inline uint64_t tz_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t tz_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* XXH3-64, seed 0, over len bytes */
uint64_t tz_hash(const void *p, size_t len);

/* ---------------------------------------------------------------- blocks */

/* Encode a block header (+ ext + header checksum) into out (40 + ext_len
 * bytes). */
void tz_bhdr_encode(uint8_t *out, const struct tz_bhdr *h, const uint8_t *ext);

/*
 * Decode the block header at buf[0..avail). Returns 0, TZ_ERR_TRUNCATED when
 * avail is too small for the header, TZ_ERR_MAGIC when there is no block
 * magic, TZ_ERR_CHECKSUM when the header checksum fails, TZ_ERR_CORRUPT when
 * a field is out of range. Does not look at the payload.
 */
int tz_bhdr_decode(const uint8_t *buf, uint64_t avail, struct tz_bhdr *h);

static inline uint64_t tz_bhdr_size(const struct tz_bhdr *h)
{
	return TZ_BHDR_MIN + (uint64_t)h->ext_len;
}
static inline uint64_t tz_block_size(const struct tz_bhdr *h)
{
	return tz_bhdr_size(h) + h->payload_len;
}

void tz_chunk_ext_encode(uint8_t *p, const struct tz_chunk_ext *e);
void tz_chunk_ext_decode(const uint8_t *p, struct tz_chunk_ext *e);

const char *tz_btype_name(unsigned type);

/* The file header this version writes (FORMAT.md "File header"): ring
 * geometry and the ring incompat flag when ring_size is not 0. */
struct tz_fhdr {
	const uint8_t *uuid, *boot_id;		  /* 16 bytes each */
	uint64_t start_boot;			  /* CLOCK_BOOTTIME ns */
	int64_t start_real;			  /* CLOCK_REALTIME ns */
	uint64_t ring_size, ring_start, seg_size; /* bytes */
	uint32_t nseg;
	uint64_t incompat; /* more incompat bits (TZ_INCOMPAT_MULTI) */
};
/* Encode f with its checksum into out (TZ_HDR_SIZE bytes). */
void tz_fhdr_encode(uint8_t *out, const struct tz_fhdr *f);
/* Encode one index entry (TZ_INDEX_ENTRY bytes) for a block of size bytes
 * on disk at off; ext (chunk and state blocks) or NULL (zeros). */
void tz_index_entry_encode(uint8_t *out, uint64_t off, uint64_t seq, uint32_t size,
			   uint32_t raw_len, uint32_t type, const struct tz_chunk_ext *ext);
/* Encode the TRAILER block (TZ_TRAILER_SIZE bytes) for an index block of
 * index_size bytes at index_off, the trailer right after it. */
void tz_trailer_encode(uint8_t *out, uint64_t seq, uint64_t index_off, uint64_t index_size);

/* ------------------------------------------------------------ growing buf */

struct tz_buf {
	uint8_t *p;
	size_t len, cap;
};
int tz_buf_reserve(struct tz_buf *b, size_t more);
int tz_buf_put(struct tz_buf *b, const void *p, size_t len);
int tz_buf_varint(struct tz_buf *b, uint64_t v);
int tz_buf_str(struct tz_buf *b, const char *s, size_t len);
void tz_buf_free(struct tz_buf *b);

/* ---------------------------------------------------------------- schema */

/* An owned event type (reader, writer). */
struct tz_type_own {
	struct tz_event_type t;
	struct tz_field *fields;
	char *strs; /* one allocation holding every name/unit */
};

/* Validate t; 0 or TZ_ERR_INVAL with a reason in *why. */
int tz_type_check(const struct tz_event_type *t, const char **why);
/* Deep copy of t into o. */
int tz_type_copy(struct tz_type_own *o, const struct tz_event_type *t);
void tz_type_free(struct tz_type_own *o);
/* Free n types and the array (NULL fine). */
void tz_types_free(struct tz_type_own *t, size_t n);
/* Encode n types as a SCHEMA payload. */
int tz_schema_encode(struct tz_buf *b, const struct tz_type_own *types, size_t n);
/*
 * Decode a SCHEMA payload. Appends to *types (realloc) and *n; a type id
 * already present is replaced by the newer definition (also within the
 * block: its later definition wins). 0 or TZ_ERR_CORRUPT / TZ_ERR_LIMIT /
 * TZ_ERR_NOMEM with a reason in *why; on any error *types and *n are left
 * as they were (a damaged block defines nothing, FORMAT.md [S2]).
 */
int tz_schema_decode(const uint8_t *p, size_t len, struct tz_type_own **types, size_t *n,
		     const char **why);

/* ---------------------------------------------------------------- meta */

struct tz_kv {
	char *key, *value;
};
/* Set key to value in the list (replace or append). */
int tz_kv_set(struct tz_kv **kv, size_t *n, const char *key, size_t klen, const char *value,
	      size_t vlen);
void tz_kv_free(struct tz_kv *kv, size_t n);
int tz_meta_encode(struct tz_buf *b, const struct tz_kv *kv, size_t n);
/* Decode a METADATA payload into *kv and *n (tz_kv_set: a key present is
 * replaced). 0 or TZ_ERR_CORRUPT / TZ_ERR_LIMIT / TZ_ERR_NOMEM with a reason
 * in *why; on any error *kv and *n are left as they were (a damaged block
 * contributes nothing, FORMAT.md [M1]). */
int tz_meta_decode(const uint8_t *p, size_t len, struct tz_kv **kv, size_t *n, const char **why);

/* A handle's message into out (cap bytes): "'name': offset N: detail", or
 * "'name': detail" when off is UINT64_MAX (STYLE.md: one voice). */
void tz_errmsg_set(char *out, size_t cap, const char *name, uint64_t off, const char *detail);
/* The same with the detail formatted from fmt and ap (printf(3); a detail
 * longer than 399 bytes is cut). */
void tz_errmsg_vset(char *out, size_t cap, const char *name, uint64_t off, const char *fmt,
		    va_list ap) __attribute__((format(printf, 5, 0)));

/* A file mapped whole for reading (tz_map_file). fd and map are owned:
 * tz_map_close() releases them. */
struct tz_map {
	int fd;		   /* open read-only, or -1 */
	void *map;	   /* mmap(2) of the whole file; NULL when len is 0 */
	size_t len;	   /* bytes: st_size at open */
	int writer_locked; /* a writer held the file's flock (LOCK_EX) at open */
};

/* Open path read-only (a FIFO or tty does not block: O_NONBLOCK until it is
 * known to be a regular file), check it is a regular file, note whether a
 * writer holds its lock, and map all of it. Returns 0 with *out filled, or
 * TZ_ERR_IO with *out closed (fd -1, map NULL) and the reason in why (cap
 * bytes), e.g. "cannot open: No such file or directory" or "not a regular
 * file"; errno holds the cause. */
int tz_map_file(const char *path, struct tz_map *out, char *why, size_t cap);

/* Unmap and close what tz_map_file() opened; m is left closed. */
void tz_map_close(struct tz_map *m);

/* A random RFC 4122 version-4 UUID (/dev/urandom; the clocks and pid if it
 * cannot be read). */
void tz_uuid4(uint8_t out[16]);

/* Current CLOCK_BOOTTIME and CLOCK_REALTIME, taken together. */
void tz_clock_pair(uint64_t *boot_ns, int64_t *real_ns);

#endif /* TZ_INT_H */
