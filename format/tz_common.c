/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_common.c - error strings, checksums, block headers, schema and metadata codecs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "tz_int.h"

static const char *const errstr[TZ_ERR__COUNT] = {
    [0] = "success",
    [1] = "i/o error",
    [2] = "out of memory",
    [3] = "invalid argument",
    [4] = "not a .tz file (bad magic)",
    [5] = "unsupported format version",
    [6] = "unknown incompatible feature",
    [7] = "corrupt data",
    [8] = "truncated file",
    [9] = "checksum mismatch",
    [10] = "zstd error",
    [11] = "limit exceeded",
    [12] = "invalid call in this state",
    [13] = "no space left on device",
    [14] = "file exists",
    [15] = "unknown event type",
    [16] = "block out of sequence (same seq as another, out of place, or overlapping the next)",
    [17] = "a multi-host trace (read its members)",
};

const char *tz_strerror(int err)
{
	if (err > 0 || err <= -TZ_ERR__COUNT)
		return "unknown error";
	return errstr[-err];
}

int tz_get_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	const uint8_t *q = *p;
	for (int shift = 0; shift < 64; shift += 7) {
		if (q >= end)
			return -1;
		uint8_t b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*out = v;
			return 0;
		}
	}
	return -1;
}

int tz_create_file(const char *path, int overwrite)
{
	return tz_create_file_mode(path, overwrite, 0600);
}

int tz_create_file_mode(const char *path, int overwrite, unsigned mode)
{
	struct stat st;
	if (!path || !*path) {
		errno = EINVAL;
		return TZ_ERR_INVAL;
	}
	if (!lstat(path, &st)) {
		/* a directory, FIFO, device or socket is refused with or
		 * without overwrite: "file exists" would not say what is wrong */
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
			return TZ_ERR_INVAL;
		}
		/* the name goes, not the inode's contents: a symlink's target and
		 * other hard links of the old file are left as they were */
		if (overwrite && unlink(path) && errno != ENOENT)
			return TZ_ERR_IO;
	}
	/* O_EXCL: never an existing inode, never through a symlink (even one
	 * planted between the unlink and here) */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)(mode & 0666));
	if (fd < 0)
		return errno == EEXIST ? TZ_ERR_EXISTS : TZ_ERR_IO;
	return fd;
}

int tz_map_file(const char *path, struct tz_map *out, char *why, size_t cap)
{
	struct stat st;
	const char *step = "cannot open";
	*out = (struct tz_map){.fd = -1};
	out->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (out->fd < 0)
		goto fail;
	step = "cannot stat";
	if (fstat(out->fd, &st))
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, cap, "not a regular file");
		tz_map_close(out);
		errno = EINVAL;
		return TZ_ERR_IO;
	}
	step = "cannot open";
	int fl = fcntl(out->fd, F_GETFL);
	if (fl < 0 || fcntl(out->fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		goto fail;
	/* a writer holds LOCK_EX while it writes (tz_writer_open): a shared
	 * lock refused means the file is still being written */
	if (flock(out->fd, LOCK_SH | LOCK_NB) == 0)
		flock(out->fd, LOCK_UN);
	else if (errno == EWOULDBLOCK)
		out->writer_locked = 1;
	out->len = (size_t)st.st_size;
	if (out->len) {
		step = "cannot map";
		void *m = mmap(NULL, out->len, PROT_READ, MAP_PRIVATE, out->fd, 0);
		if (m == MAP_FAILED)
			goto fail;
		out->map = m;
	}
	return 0;
fail:
	snprintf(why, cap, "%s: %s", step, strerror(errno));
	int e = errno;
	tz_map_close(out);
	errno = e;
	return TZ_ERR_IO;
}

void tz_map_close(struct tz_map *m)
{
	if (m->map)
		munmap(m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
	*m = (struct tz_map){.fd = -1};
}

uint64_t tz_hash(const void *p, size_t len) { return XXH3_64bits(p, len); }

void tz_clock_pair(uint64_t *boot_ns, int64_t *real_ns)
{
	struct timespec b, r;
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_REALTIME, &r);
	*boot_ns = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
	*real_ns = (int64_t)r.tv_sec * 1000000000ll + r.tv_nsec;
}

void tz_errmsg_set(char *out, size_t cap, const char *name, uint64_t off, const char *detail)
{
	if (off != UINT64_MAX)
		snprintf(out, cap, "'%s': offset %llu: %s", name, (unsigned long long)off, detail);
	else
		snprintf(out, cap, "'%s': %s", name, detail);
}

void tz_errmsg_vset(char *out, size_t cap, const char *name, uint64_t off, const char *fmt,
		    va_list ap)
{
	char d[400];
	vsnprintf(d, sizeof(d), fmt, ap);
	tz_errmsg_set(out, cap, name, off, d);
}

static int hdr_bad(const char **why, const char *w, int rc)
{
	if (why)
		*why = w;
	return rc;
}

int tz_header_check(const void *buf, size_t len, uint32_t *hdr_size, const char **why)
{
	const uint8_t *d = buf;
	if (!d || len < TZ_MAGIC_LEN || memcmp(d, TZ_MAGIC, TZ_MAGIC_LEN)) {
		if (d && len < TZ_MAGIC_LEN && !memcmp(d, TZ_MAGIC, len))
			return hdr_bad(why, "cut inside the header", TZ_ERR_TRUNCATED);
		return hdr_bad(why, "bad magic", TZ_ERR_MAGIC);
	}
	if (len < TZ_HDR_SIZE)
		return hdr_bad(why, "cut inside the header", TZ_ERR_TRUNCATED);
	if (tz_le16(d + 8) != TZ_MAJOR)
		return hdr_bad(why, "unknown major version", TZ_ERR_VERSION);
	uint32_t hs = tz_le32(d + 12);
	if (hs < TZ_HDR_SIZE || hs > TZ_HDR_MAX || hs % 8)
		return hdr_bad(why, "bad header size", TZ_ERR_CORRUPT);
	if (hs > len)
		return hdr_bad(why, "cut inside the header", TZ_ERR_TRUNCATED);
	if (tz_hash(d, hs - 8) != tz_le64(d + hs - 8))
		return hdr_bad(why, "header checksum mismatch", TZ_ERR_CHECKSUM);
	if (hdr_size)
		*hdr_size = hs;
	return hdr_bad(why, "", 0);
}

/* ---------------------------------------------------------------- blocks */

void tz_bhdr_encode(uint8_t *out, const struct tz_bhdr *h, const uint8_t *ext)
{
	memcpy(out, TZ_BMAGIC, TZ_BMAGIC_LEN);
	out[4] = h->type;
	out[5] = h->flags;
	tz_put16(out + 6, h->ext_len);
	tz_put32(out + 8, h->payload_len);
	tz_put32(out + 12, h->raw_len);
	tz_put64(out + 16, h->seq);
	tz_put64(out + 24, h->payload_csum);
	if (h->ext_len)
		memcpy(out + TZ_BHDR_FIXED, ext, h->ext_len);
	tz_put64(out + TZ_BHDR_FIXED + h->ext_len, tz_hash(out, TZ_BHDR_FIXED + h->ext_len));
}

int tz_bhdr_decode(const uint8_t *buf, uint64_t avail, struct tz_bhdr *h)
{
	if (avail < TZ_BHDR_MIN)
		return TZ_ERR_TRUNCATED;
	if (memcmp(buf, TZ_BMAGIC, TZ_BMAGIC_LEN))
		return TZ_ERR_MAGIC;
	h->type = buf[4];
	h->flags = buf[5];
	h->ext_len = tz_le16(buf + 6);
	if (h->ext_len > TZ_EXT_MAX || h->ext_len % 8)
		return TZ_ERR_CORRUPT;
	if (avail < tz_bhdr_size(h))
		return TZ_ERR_TRUNCATED;
	if (tz_hash(buf, TZ_BHDR_FIXED + h->ext_len) != tz_le64(buf + TZ_BHDR_FIXED + h->ext_len))
		return TZ_ERR_CHECKSUM;
	h->payload_len = tz_le32(buf + 8);
	h->raw_len = tz_le32(buf + 12);
	h->seq = tz_le64(buf + 16);
	h->payload_csum = tz_le64(buf + 24);
	h->ext = buf + TZ_BHDR_FIXED;
	if (!(h->flags & TZ_BF_ZSTD) && h->raw_len != h->payload_len)
		return TZ_ERR_CORRUPT;
	return 0;
}

void tz_chunk_ext_encode(uint8_t *p, const struct tz_chunk_ext *e)
{
	tz_put64(p, e->min_ts);
	tz_put64(p + 8, e->max_ts);
	tz_put64(p + 16, e->events);
	tz_put64(p + 24, e->dropped);
	tz_put64(p + 32, e->dropped_total);
	tz_put64(p + 40, e->anchor_boot);
	tz_put64(p + 48, (uint64_t)e->anchor_real);
}

void tz_chunk_ext_decode(const uint8_t *p, struct tz_chunk_ext *e)
{
	e->min_ts = tz_le64(p);
	e->max_ts = tz_le64(p + 8);
	e->events = tz_le64(p + 16);
	e->dropped = tz_le64(p + 24);
	e->dropped_total = tz_le64(p + 32);
	e->anchor_boot = tz_le64(p + 40);
	e->anchor_real = (int64_t)tz_le64(p + 48);
}

void tz_fhdr_encode(uint8_t *out, const struct tz_fhdr *f)
{
	memset(out, 0, TZ_HDR_SIZE);
	memcpy(out, TZ_MAGIC, TZ_MAGIC_LEN);
	tz_put16(out + 8, TZ_MAJOR);
	tz_put16(out + 10, TZ_MINOR);
	tz_put32(out + 12, TZ_HDR_SIZE);
	tz_put64(out + 32, (f->ring_size ? TZ_INCOMPAT_RING : 0) | f->incompat);
	memcpy(out + 40, f->uuid, 16);
	memcpy(out + 56, f->boot_id, 16);
	tz_put64(out + 72, f->start_boot);
	tz_put64(out + 80, (uint64_t)f->start_real);
	if (f->ring_size) {
		tz_put64(out + 88, f->ring_size);
		tz_put64(out + 96, f->ring_start);
		tz_put64(out + 104, f->seg_size);
		tz_put32(out + 112, f->nseg);
		tz_put32(out + 116, TZ_RING_FINAL);
	}
	tz_put64(out + 120, tz_hash(out, 120));
}

void tz_index_entry_encode(uint8_t *out, uint64_t off, uint64_t seq, uint32_t size,
			   uint32_t raw_len, uint32_t type, const struct tz_chunk_ext *ext)
{
	memset(out, 0, TZ_INDEX_ENTRY);
	tz_put64(out, off);
	tz_put64(out + 8, seq);
	tz_put32(out + 16, size);
	tz_put32(out + 20, raw_len);
	tz_put32(out + 24, type);
	if (ext)
		tz_chunk_ext_encode(out + 32, ext);
}

void tz_trailer_encode(uint8_t *out, uint64_t seq, uint64_t index_off, uint64_t index_size)
{
	uint8_t ext[TZ_TRAILER_EXT];
	struct tz_bhdr h = {0};
	h.type = TZ_B_TRAILER;
	h.ext_len = TZ_TRAILER_EXT;
	h.seq = seq;
	h.payload_csum = tz_hash(NULL, 0);
	tz_put64(ext, index_off);
	tz_put64(ext + 8, index_size);
	tz_put64(ext + 16, index_off + index_size + TZ_TRAILER_SIZE);
	tz_bhdr_encode(out, &h, ext);
}

const char *tz_btype_name(unsigned type)
{
	switch (type) {
	case TZ_B_META:
		return "metadata";
	case TZ_B_SCHEMA:
		return "schema";
	case TZ_B_CHUNK:
		return "chunk";
	case TZ_B_STATE:
		return "state";
	case TZ_B_INDEX:
		return "index";
	case TZ_B_TRAILER:
		return "trailer";
	case TZ_B_MEMBER:
		return "member";
	}
	return "unknown";
}

/* ---------------------------------------------------------------- buffers */

int tz_buf_reserve(struct tz_buf *b, size_t more)
{
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return TZ_ERR_NOMEM;
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return TZ_ERR_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int tz_buf_put(struct tz_buf *b, const void *p, size_t len)
{
	if (tz_buf_reserve(b, len))
		return TZ_ERR_NOMEM;
	if (len)
		memcpy(b->p + b->len, p, len);
	b->len += len;
	return 0;
}

int tz_buf_varint(struct tz_buf *b, uint64_t v)
{
	if (tz_buf_reserve(b, 10))
		return TZ_ERR_NOMEM;
	b->len += tz_put_varint(b->p + b->len, v);
	return 0;
}

int tz_buf_str(struct tz_buf *b, const char *s, size_t len)
{
	if (tz_buf_varint(b, len))
		return TZ_ERR_NOMEM;
	return tz_buf_put(b, s, len);
}

void tz_buf_free(struct tz_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---------------------------------------------------------------- schema */

static int scalar_size(uint8_t type)
{
	switch (type) {
	case TZ_F_U8:
	case TZ_F_I8:
		return 1;
	case TZ_F_U16:
	case TZ_F_I16:
		return 2;
	case TZ_F_U32:
	case TZ_F_I32:
		return 4;
	case TZ_F_U64:
	case TZ_F_I64:
		return 8;
	case TZ_F_CHARS:
	case TZ_F_BYTES:
		return 0;
	}
	return -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tz_type_check(const struct tz_event_type *t, const char **why)
{
	uint16_t nblobs = 0;
	*why = "";
	if (!t || t->id == 0 || t->id >= 0xff00) {
		*why = "type id out of range";
		return TZ_ERR_INVAL;
	}
	if (!t->name || !*t->name || strlen(t->name) > 255) {
		*why = "bad type name";
		return TZ_ERR_INVAL;
	}
	if (t->fixed_size > 65536 || (t->nfields && !t->fields)) {
		*why = "bad fixed size or fields";
		return TZ_ERR_INVAL;
	}
	for (uint16_t i = 0; i < t->nfields; i++) {
		const struct tz_field *f = &t->fields[i];
		if (!f->name || !*f->name || strlen(f->name) > 255 ||
		    (f->unit && strlen(f->unit) > 255)) {
			*why = "bad field name";
			return TZ_ERR_INVAL;
		}
		if (f->type == TZ_F_STR || f->type == TZ_F_STRV) {
			nblobs++;
			if (f->size != 0) {
				*why = "blob field with a size";
				return TZ_ERR_INVAL;
			}
			continue;
		}
		int ss = scalar_size(f->type);
		if (ss < 0 || (ss > 0 && (int)f->size != ss) || (ss == 0 && f->size == 0)) {
			*why = "bad field type or size";
			return TZ_ERR_INVAL;
		}
		if ((uint64_t)f->offset + f->size > t->fixed_size) {
			*why = "field beyond the fixed part";
			return TZ_ERR_INVAL;
		}
	}
	if (t->nfields > 1) {
		/* duplicate names: sort pointers, compare neighbours (O(n log n)) */
		const char **names = malloc(t->nfields * sizeof(*names));
		if (!names) {
			*why = "out of memory";
			return TZ_ERR_NOMEM;
		}
		for (uint16_t i = 0; i < t->nfields; i++)
			names[i] = t->fields[i].name;
		qsort(names, t->nfields, sizeof(*names), cmp_name);
		int dup = 0;
		for (uint16_t i = 1; i < t->nfields && !dup; i++)
			dup = !strcmp(names[i - 1], names[i]);
		free(names);
		if (dup) {
			*why = "duplicate field name";
			return TZ_ERR_INVAL;
		}
	}
	if (nblobs != t->nblobs) {
		*why = "nblobs does not match the blob fields";
		return TZ_ERR_INVAL;
	}
	for (uint16_t i = 0; i < t->nfields; i++) {
		const struct tz_field *f = &t->fields[i];
		if ((f->type == TZ_F_STR || f->type == TZ_F_STRV) && f->offset >= nblobs) {
			*why = "blob index out of range";
			return TZ_ERR_INVAL;
		}
	}
	return 0;
}

int tz_type_copy(struct tz_type_own *o, const struct tz_event_type *t)
{
	size_t slen = strlen(t->name) + 1;
	for (uint16_t i = 0; i < t->nfields; i++)
		slen += strlen(t->fields[i].name) + 1 +
			(t->fields[i].unit ? strlen(t->fields[i].unit) : 0) + 1;
	memset(o, 0, sizeof(*o));
	o->strs = malloc(slen);
	o->fields = calloc(t->nfields ? t->nfields : 1, sizeof(*o->fields));
	if (!o->strs || !o->fields) {
		tz_type_free(o);
		return TZ_ERR_NOMEM;
	}
	char *s = o->strs;
#define CP(dst, src)                                                                               \
	do {                                                                                       \
		size_t l_ = strlen(src) + 1;                                                       \
		memcpy(s, src, l_);                                                                \
		dst = s;                                                                           \
		s += l_;                                                                           \
	} while (0)
	o->t = *t;
	CP(o->t.name, t->name);
	for (uint16_t i = 0; i < t->nfields; i++) {
		o->fields[i] = t->fields[i];
		CP(o->fields[i].name, t->fields[i].name);
		CP(o->fields[i].unit, t->fields[i].unit ? t->fields[i].unit : "");
	}
#undef CP
	o->t.fields = o->fields;
	return 0;
}

void tz_type_free(struct tz_type_own *o)
{
	free(o->fields);
	free(o->strs);
	memset(o, 0, sizeof(*o));
}

void tz_types_free(struct tz_type_own *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tz_type_free(&t[i]);
	free(t);
}

int tz_schema_encode(struct tz_buf *b, const struct tz_type_own *types, size_t n)
{
	int rc = tz_buf_varint(b, n);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct tz_event_type *t = &types[i].t;
		rc = tz_buf_varint(b, t->id) ?: tz_buf_varint(b, t->version) ?:
			tz_buf_varint(b, t->flags) ?: tz_buf_varint(b, t->fixed_size) ?:
			tz_buf_str(b, t->name, strlen(t->name)) ?: tz_buf_varint(b, t->nfields);
		for (uint16_t j = 0; j < t->nfields && !rc; j++) {
			const struct tz_field *f = &t->fields[j];
			rc = tz_buf_str(b, f->name, strlen(f->name)) ?: tz_buf_varint(b, f->type) ?:
				tz_buf_varint(b, f->offset) ?: tz_buf_varint(b, f->size) ?:
				tz_buf_str(b, f->unit, strlen(f->unit));
		}
	}
	return rc;
}

/* Read a length-prefixed string of at most 255 bytes without NUL inside. */
static int get_str(const uint8_t **p, const uint8_t *end, char *out, size_t max)
{
	uint64_t len;
	if (tz_get_varint(p, end, &len) || len >= max || len > (uint64_t)(end - *p))
		return -1;
	if (memchr(*p, 0, len))
		return -1;
	memcpy(out, *p, len);
	out[len] = 0;
	*p += len;
	return 0;
}

static int schema_decode_into(const uint8_t *p, size_t len, struct tz_type_own **types, size_t *n,
			      const char **why)
{
	const uint8_t *end = p + len;
	uint64_t count, v[4];
	struct tz_field *fields = NULL;
	char(*names)[256] = NULL;
	int rc = TZ_ERR_CORRUPT;

	*why = "bad schema encoding";
	if (tz_get_varint(&p, end, &count) || count > len)
		return TZ_ERR_CORRUPT;
	for (uint64_t i = 0; i < count; i++) {
		struct tz_event_type t;
		char tname[256];
		uint64_t nf;
		memset(&t, 0, sizeof(t));
		for (int k = 0; k < 4; k++)
			if (tz_get_varint(&p, end, &v[k]))
				goto out;
		if (v[0] > 0xffff || v[1] > 0xffff || v[2] > 0xffffffff || v[3] > 0xffffffff)
			goto out;
		if (get_str(&p, end, tname, sizeof(tname)) || tz_get_varint(&p, end, &nf) ||
		    nf > 0xffff || nf > (uint64_t)(end - p))
			goto out;
		t.id = (uint16_t)v[0];
		t.version = (uint16_t)v[1];
		t.flags = (uint32_t)v[2];
		t.fixed_size = (uint32_t)v[3];
		t.name = tname;
		t.nfields = (uint16_t)nf;
		fields = calloc(nf ? nf : 1, sizeof(*fields));
		names = calloc(nf ? nf * 2 : 1, sizeof(*names));
		if (!fields || !names) {
			rc = TZ_ERR_NOMEM;
			goto out;
		}
		for (uint64_t j = 0; j < nf; j++) {
			uint64_t ft, fo, fs;
			if (get_str(&p, end, names[2 * j], 256) || tz_get_varint(&p, end, &ft) ||
			    tz_get_varint(&p, end, &fo) || tz_get_varint(&p, end, &fs) ||
			    get_str(&p, end, names[2 * j + 1], 256))
				goto out;
			if (ft > 255 || fo > 0xffffffff || fs > 0xffffffff)
				goto out;
			fields[j].name = names[2 * j];
			fields[j].unit = names[2 * j + 1];
			fields[j].type = (uint8_t)ft;
			fields[j].offset = (uint32_t)fo;
			fields[j].size = (uint32_t)fs;
			if (ft == TZ_F_STR || ft == TZ_F_STRV)
				t.nblobs++;
		}
		t.fields = fields;
		if (tz_type_check(&t, why)) {
			rc = TZ_ERR_CORRUPT;
			goto out;
		}
		struct tz_type_own own;
		if (tz_type_copy(&own, &t)) {
			rc = TZ_ERR_NOMEM;
			goto out;
		}
		size_t k;
		for (k = 0; k < *n; k++)
			if ((*types)[k].t.id == t.id)
				break;
		if (k == *n && *n >= TZ_MAX_TYPES) {
			tz_type_free(&own);
			*why = "too many event types";
			rc = TZ_ERR_LIMIT;
			goto out;
		}
		if (k < *n) {
			tz_type_free(&(*types)[k]);
			(*types)[k] = own;
		} else {
			struct tz_type_own *nt = realloc(*types, (*n + 1) * sizeof(*nt));
			if (!nt) {
				tz_type_free(&own);
				rc = TZ_ERR_NOMEM;
				goto out;
			}
			*types = nt;
			nt[(*n)++] = own;
		}
		free(fields);
		free(names);
		fields = NULL;
		names = NULL;
	}
	rc = p == end ? 0 : TZ_ERR_CORRUPT;
	if (rc)
		*why = "trailing bytes after the schema";
out:
	free(fields);
	free(names);
	return rc;
}

/* A damaged block contributes nothing (FORMAT.md [S2], [M1]): decode into a
 * copy of the list, keep it only when the whole payload checks. */
int tz_schema_decode(const uint8_t *p, size_t len, struct tz_type_own **types, size_t *n,
		     const char **why)
{
	struct tz_type_own *c = malloc((*n ? *n : 1) * sizeof(*c));
	size_t nc = 0;
	int rc = c ? 0 : TZ_ERR_NOMEM;
	while (!rc && nc < *n) {
		if (tz_type_copy(&c[nc], &(*types)[nc].t))
			rc = TZ_ERR_NOMEM; /* c[nc] not made: not freed below */
		else
			nc++;
	}
	if (!rc)
		rc = schema_decode_into(p, len, &c, &nc, why);
	struct tz_type_own *drop = rc ? c : *types;
	size_t ndrop = rc ? nc : *n;
	tz_types_free(drop, ndrop);
	if (!rc) {
		*types = c;
		*n = nc;
	}
	if (rc == TZ_ERR_NOMEM)
		*why = "out of memory";
	return rc;
}

/* ---------------------------------------------------------------- meta */

int tz_kv_set(struct tz_kv **kv, size_t *n, const char *key, size_t klen, const char *value,
	      size_t vlen)
{
	char *v = strndup(value, vlen);
	if (!v)
		return TZ_ERR_NOMEM;
	for (size_t i = 0; i < *n; i++)
		if (strlen((*kv)[i].key) == klen && !memcmp((*kv)[i].key, key, klen)) {
			free((*kv)[i].value);
			(*kv)[i].value = v;
			return 0;
		}
	char *k = strndup(key, klen);
	struct tz_kv *nk = realloc(*kv, (*n + 1) * sizeof(*nk));
	if (!k || !nk) {
		free(k);
		free(v);
		if (nk)
			*kv = nk;
		return TZ_ERR_NOMEM;
	}
	*kv = nk;
	nk[*n].key = k;
	nk[*n].value = v;
	(*n)++;
	return 0;
}

void tz_kv_free(struct tz_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int tz_meta_encode(struct tz_buf *b, const struct tz_kv *kv, size_t n)
{
	int rc = tz_buf_varint(b, n);
	for (size_t i = 0; i < n && !rc; i++)
		rc = tz_buf_str(b, kv[i].key, strlen(kv[i].key))
			 ?: tz_buf_str(b, kv[i].value, strlen(kv[i].value));
	return rc;
}

static int meta_decode_into(const uint8_t *p, size_t len, struct tz_kv **kv, size_t *n,
			    const char **why)
{
	const uint8_t *end = p + len;
	uint64_t count, kl, vl;
	*why = "bad metadata encoding";
	if (tz_get_varint(&p, end, &count) || count > len)
		return TZ_ERR_CORRUPT;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *k, *v;
		if (tz_get_varint(&p, end, &kl) || kl > (uint64_t)(end - p))
			return TZ_ERR_CORRUPT;
		k = p;
		p += kl;
		if (tz_get_varint(&p, end, &vl) || vl > (uint64_t)(end - p))
			return TZ_ERR_CORRUPT;
		v = p;
		p += vl;
		if (!kl || memchr(k, 0, kl) || memchr(v, 0, vl))
			return TZ_ERR_CORRUPT;
		if (*n >= TZ_MAX_KEYS) {
			*why = "too many metadata keys";
			return TZ_ERR_LIMIT;
		}
		if (tz_kv_set(kv, n, (const char *)k, kl, (const char *)v, vl))
			return TZ_ERR_NOMEM;
	}
	if (p != end) {
		*why = "trailing bytes after the metadata";
		return TZ_ERR_CORRUPT;
	}
	return 0;
}

int tz_meta_decode(const uint8_t *p, size_t len, struct tz_kv **kv, size_t *n, const char **why)
{
	struct tz_kv *c = NULL;
	size_t nc = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < *n; i++)
		rc = tz_kv_set(&c, &nc, (*kv)[i].key, strlen((*kv)[i].key), (*kv)[i].value,
			       strlen((*kv)[i].value));
	if (!rc)
		rc = meta_decode_into(p, len, &c, &nc, why);
	if (rc) {
		tz_kv_free(c, nc);
		if (rc == TZ_ERR_NOMEM)
			*why = "out of memory";
		return rc;
	}
	tz_kv_free(*kv, *n);
	*kv = c;
	*n = nc;
	return 0;
}

/* ---------------------------------------------------------------- events */

const struct tz_field *tz_type_field(const struct tz_event_type *t, const char *name)
{
	if (!t || !name)
		return NULL;
	for (uint16_t i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

uint64_t tz_event_u64(const struct tz_event *ev, const struct tz_field *f)
{
	return tz_event_u64_inline(ev, f);
}

int64_t tz_event_i64(const struct tz_event *ev, const struct tz_field *f)
{
	return (int64_t)tz_event_u64(ev, f);
}

struct tz_blob tz_event_blob(const struct tz_event *ev, const struct tz_field *f)
{
	struct tz_blob b = {NULL, 0};
	if (ev && f && (f->type == TZ_F_STR || f->type == TZ_F_STRV) && f->offset < ev->nblobs)
		b = ev->blobs[f->offset];
	return b;
}

const uint8_t *tz_event_bytes(const struct tz_event *ev, const struct tz_field *f, uint32_t *len)
{
	*len = 0;
	if (!ev || !f || (f->type != TZ_F_CHARS && f->type != TZ_F_BYTES) ||
	    (uint64_t)f->offset + f->size > ev->fixed_len)
		return NULL;
	*len = f->size;
	return ev->fixed + f->offset;
}

void tz_uuid4(uint8_t out[16])
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
