/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tz_multi.c - multi-host traces (FORMAT.md section 18): a container of
 * member traces, each a complete .tz file kept byte for byte after the
 * MEMBER block that names it. Opening walks the container's blocks ([X1]);
 * each member is then read by its own tz_reader over its bytes; writing
 * copies the members after a header and a METADATA block.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tz_int.h"

struct mem_own {
	struct tz_member m;
	char *source, *hostname;
};

struct tz_multi {
	char *path;
	struct tz_reader_opts opts;
	int fd;
	const uint8_t *data;
	size_t len;
	void *map;
	int container;
	int mem_backed; /* tz_multi_open_mem: the caller's buffer */
	uint32_t hdr_size;
	struct mem_own *mem;
	size_t n, cap;
	struct tz_kv *kv; /* the container's metadata, [M1] by seq */
	size_t nkv;
	uint64_t kv_seq;
	uint64_t damage;
	uint64_t hashed; /* payload bytes the salvage scan hashed (bounded) */
	char errmsg[512];
};

static int merr(tz_multi *m, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int merr(tz_multi *m, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tz_errmsg_vset(m->errmsg, sizeof(m->errmsg), m->path, off, fmt, ap);
	va_end(ap);
	return code;
}

/* The first damage is named; every damaged region is counted. */
static void mdamage(tz_multi *m, uint64_t off, const char *what)
{
	if (!m->damage++)
		merr(m, TZ_ERR_CORRUPT, off, "%s", what);
}

static void member_ids(tz_multi *m, struct tz_member *me, uint64_t block_off);

/* A member at off, len bytes, named by MEMBER block h (at block_off; a plain
 * trace: h made from its own header, payload_ok NULL). */
static int add_member(tz_multi *m, const struct tz_bhdr *h, uint64_t block_off, uint64_t off,
		      uint64_t len, const uint8_t *payload_ok)
{
	if (m->n == TZ_MULTI_MAX)
		return merr(m, TZ_ERR_LIMIT, block_off, "more than %d members", TZ_MULTI_MAX);
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 8;
		struct mem_own *nv = realloc(m->mem, nc * sizeof(*nv));
		if (!nv)
			return merr(m, TZ_ERR_NOMEM, UINT64_MAX, "out of memory");
		m->mem = nv;
		m->cap = nc;
	}
	struct mem_own *o = &m->mem[m->n];
	memset(o, 0, sizeof(*o));
	o->m.off = off;
	o->m.len = len;
	o->m.data = m->data + off;
	memcpy(o->m.uuid, h->ext + 8, 16);
	memcpy(o->m.boot_id, h->ext + 24, 16);
	o->m.flags = tz_le32(h->ext + 40);
	o->m.dup_of = -1;
	if (m->container)
		member_ids(m, &o->m, block_off);
	if (payload_ok) {
		struct tz_kv *kv = NULL;
		size_t nkv = 0;
		const char *why;
		if (tz_meta_decode(payload_ok, h->raw_len, &kv, &nkv, &why) == 0) {
			for (size_t i = 0; i < nkv; i++) {
				char **dst = !strcmp(kv[i].key, "source")     ? &o->source
					     : !strcmp(kv[i].key, "hostname") ? &o->hostname
									      : NULL;
				if (dst && !*dst)
					*dst = strdup(kv[i].value);
			}
		} else {
			mdamage(m, off, "member's MEMBER block: its names do not decode");
		}
		tz_kv_free(kv, nkv);
	}
	for (size_t i = 0; i < m->n; i++)
		if (!memcmp(m->mem[i].m.uuid, o->m.uuid, 16)) {
			o->m.dup_of = (int)i;
			break;
		}
	m->n++;
	return 0;
}

/* FORMAT.md [X2]: the member's own header decides its uuid and boot id.
 * When its header checks (magic, header_size, checksum), copies in the
 * MEMBER block that differ from it are damage, and the header's are used;
 * a member whose header does not check keeps the copies (it fails when it
 * is opened). */
static void member_ids(tz_multi *m, struct tz_member *me, uint64_t block_off)
{
	const uint8_t *d = me->data;
	if (me->len < TZ_HDR_SIZE || memcmp(d, TZ_MAGIC, TZ_MAGIC_LEN))
		return;
	uint32_t hs = tz_le32(d + 12);
	if (hs < TZ_HDR_SIZE || hs > TZ_HDR_MAX || hs % 8 || hs > me->len ||
	    tz_hash(d, hs - 8) != tz_le64(d + hs - 8))
		return;
	if (!memcmp(me->uuid, d + 40, 16) && !memcmp(me->boot_id, d + 56, 16))
		return;
	mdamage(m, block_off,
		"MEMBER block: its uuid or boot id differs from the member's own header "
		"(the header's are used)");
	memcpy(me->uuid, d + 40, 16);
	memcpy(me->boot_id, d + 56, 16);
}

/* A MEMBER block's payload, trusted when its checksum matches and it is
 * stored plain (tracer never compresses it); NULL otherwise. */
static const uint8_t *member_payload(tz_multi *m, uint64_t pos, const struct tz_bhdr *h)
{
	const uint8_t *p = m->data + pos + tz_bhdr_size(h);
	if ((h->flags & TZ_BF_ZSTD) || tz_hash(p, h->payload_len) != h->payload_csum) {
		mdamage(m, pos,
			"MEMBER block: payload checksum mismatch (the member is still read)");
		return NULL;
	}
	return p;
}

/* The next offset after from where a valid MEMBER block header starts, or
 * len (FORMAT.md [X1]: resynchronisation). */
static uint64_t next_member(const tz_multi *m, uint64_t from)
{
	while (from < m->len) {
		const uint8_t *q = memmem(m->data + from, m->len - from, TZ_BMAGIC, TZ_BMAGIC_LEN);
		if (!q)
			break;
		uint64_t c = (uint64_t)(q - m->data);
		struct tz_bhdr h;
		if (!tz_bhdr_decode(q, m->len - c, &h) && h.type == TZ_B_MEMBER &&
		    h.ext_len >= TZ_MEMBER_EXT)
			return c;
		from = c + 1;
	}
	return m->len;
}

/* ------------------------------------------------ salvage (FORMAT.md [X5]) */

static int salvaging(const tz_multi *m) { return !!(m->opts.flags & TZ_R_SALVAGE); }

/* The first offset in [from, end) where the len bytes of pat start, or end. */
static uint64_t find(const tz_multi *m, const char *pat, size_t len, uint64_t from, uint64_t end)
{
	if (from >= end)
		return end;
	const uint8_t *q = memmem(m->data + from, end - from, pat, len);
	return q ? (uint64_t)(q - m->data) : end;
}

/* Does a member start at off (its bytes ending by end)? Its header checks
 * ([H1] 1-5), its incompat bits are known and MULTI is not one of them (a
 * member is never a container), a RING header's geometry is consistent
 * ([H1] 7) and a valid block header starts at header_size (its first
 * block). *hs: its header_size. */
static int salvage_header(const tz_multi *m, uint64_t off, uint64_t end, uint32_t *hs)
{
	const uint8_t *d = m->data + off;
	struct tz_bhdr h;
	if (tz_header_check(d, end - off, hs, NULL))
		return 0;
	uint64_t inc = tz_le64(d + 32);
	if (inc & ~TZ_INCOMPAT_RING)
		return 0;
	if (inc & TZ_INCOMPAT_RING) {
		uint64_t rs = tz_le64(d + 88), start = tz_le64(d + 96), seg = tz_le64(d + 104);
		uint32_t nseg = tz_le32(d + 112), fin = tz_le32(d + 116);
		if (!(start >= *hs && fin >= *hs && fin <= start && seg >= TZ_BHDR_MIN &&
		      nseg >= 1 && nseg <= 1u << 20 && start <= rs && seg <= (rs - start) / nseg))
			return 0;
	}
	return !tz_bhdr_decode(d + *hs, end - off - *hs, &h);
}

/* The bytes the salvage scan may hash in all, block payloads and member
 * header checks: each byte of honest input is hashed about once; hostile
 * input (many valid block headers over one payload that does not check, or
 * magic after magic claiming a 4 KiB header) would otherwise cost quadratic
 * time, or hundreds of times the file. Past it, no more members are looked
 * for. */
#define SALVAGE_HASH_MAX(len) (4 * (uint64_t)(len) + (64u << 20))

/* The next offset in [from, end) where salvage_header() finds a member
 * (*hs set), or end. Bytes inside a block whose header and payload check are
 * that block's (a trace embedded in a payload is not a member): the scan
 * steps over such a block when the next file magic lies inside it. */
static uint64_t next_header(tz_multi *m, uint64_t from, uint64_t end, uint32_t *hs)
{
	uint64_t pos = from, fm = find(m, TZ_MAGIC, TZ_MAGIC_LEN, from, end),
		 bm = find(m, TZ_BMAGIC, TZ_BMAGIC_LEN, from, end);
	while (pos < end) {
		if (fm < pos)
			fm = find(m, TZ_MAGIC, TZ_MAGIC_LEN, pos, end);
		if (bm < pos)
			bm = find(m, TZ_BMAGIC, TZ_BMAGIC_LEN, pos, end);
		if (fm >= end)
			break;
		if (fm < bm) {
			/* a header check hashes up to its header_size: charged to
			 * the same bound (a file of nothing but magics claiming
			 * 4 KiB headers cost ~250 hashed bytes per byte) */
			if (m->hashed > SALVAGE_HASH_MAX(m->len))
				break;
			m->hashed += end - fm >= 16 ? tz_le32(m->data + fm + 12) % (TZ_HDR_MAX + 1) : 0;
			if (salvage_header(m, fm, end, hs))
				return fm;
			pos = fm + 1;
			continue;
		}
		struct tz_bhdr h;
		const uint8_t *b = m->data + bm;
		pos = bm + 1;
		if (tz_bhdr_decode(b, end - bm, &h) || tz_block_size(&h) > end - bm ||
		    fm >= bm + tz_block_size(&h) || m->hashed > SALVAGE_HASH_MAX(m->len))
			continue;
		m->hashed += h.payload_len;
		if (tz_hash(b + tz_bhdr_size(&h), h.payload_len) == h.payload_csum)
			pos = bm + tz_block_size(&h);
	}
	return end;
}

/* Where the member salvaged at off (header_size hs) ends, its region ending
 * at end: a ring member after ring_size bytes; a linear one after its
 * TRAILER block when its blocks lead there back to back, else at the next
 * member header found, else at end. *cut: the file ends inside it. */
static uint64_t salvage_end(tz_multi *m, uint64_t off, uint32_t hs, uint64_t end, int *cut)
{
	const uint8_t *d = m->data + off;
	*cut = 0;
	if (tz_le64(d + 32) & TZ_INCOMPAT_RING) {
		uint64_t rs = tz_le64(d + 88);
		if (rs <= end - off)
			return off + rs;
		*cut = end == m->len;
		return end;
	}
	uint64_t pos = off + hs;
	struct tz_bhdr h;
	while (pos < end && !tz_bhdr_decode(m->data + pos, end - pos, &h) &&
	       tz_block_size(&h) <= end - pos) {
		pos += tz_block_size(&h);
		if (h.type == TZ_B_TRAILER)
			return pos;
	}
	uint32_t next_hs;
	uint64_t e = next_header(m, pos, end, &next_hs);
	/* no trailer, and no member after it: the file ends inside it */
	*cut = e == m->len;
	return e;
}

/* FORMAT.md [X5]: the members inside the damaged region [from, end), found
 * by their own headers, in file order. 0 or a tz_err (TZ_ERR_LIMIT ...). */
static int salvage(tz_multi *m, uint64_t from, uint64_t end)
{
	uint32_t hs;
	while ((from = next_header(m, from, end, &hs)) < end) {
		int cut;
		uint64_t e = salvage_end(m, from, hs, end, &cut);
		uint8_t ext[TZ_MEMBER_EXT] = {0};
		memcpy(ext + 8, m->data + from + 40, 16);
		memcpy(ext + 24, m->data + from + 56, 16);
		struct tz_bhdr self = {.ext = ext};
		int rc = add_member(m, &self, from, from, e - from, NULL);
		if (rc)
			return rc;
		m->mem[m->n - 1].m.salvaged = 1;
		m->mem[m->n - 1].m.cut = cut;
		from = e;
	}
	return 0;
}

/* A salvaged member's names (FORMAT.md [X5] 4): the hostname its own
 * metadata says (NULL if unsaid), and for the source its MEMBER block held,
 * which is lost, what is known of it: "salvaged at offset N (host H,
 * started 2026-12-02T16:26:31Z)", its offset in the container, that
 * hostname and its header's start_real_ns (each left out when unknown). */
static void salvaged_names(const tz_multi *m, struct mem_own *o)
{
	const struct tz_member *me = &o->m;
	tz_reader *r = NULL;
	if (!tz_reader_open_mem(&r, me->data, me->len, m->path, &m->opts)) {
		const char *v = tz_reader_meta_get(r, "hostname");
		o->hostname = v ? strdup(v) : NULL;
	}
	tz_reader_free(r);
	char when[40] = "", src[600];
	int64_t real = (int64_t)tz_le64(me->data + 80); /* checked by salvage_header() */
	time_t sec = (time_t)(real / 1000000000);
	struct tm tm;
	if (real > 0 && gmtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	int host = o->hostname && *o->hostname;
	snprintf(src, sizeof(src), "salvaged at offset %llu%s%s%.200s%s%s%s",
		 (unsigned long long)me->off, host || *when ? " (" : "", host ? "host " : "",
		 host ? o->hostname : "", host && *when ? ", " : "", *when ? "started " : "", when);
	size_t l = strlen(src);
	if ((host || *when) && l + 1 < sizeof(src))
		memcpy(src + l, ")", 2);
	o->source = strdup(src);
}

static void container_meta(tz_multi *m, uint64_t pos, const struct tz_bhdr *h)
{
	const uint8_t *p = m->data + pos + tz_bhdr_size(h);
	struct tz_kv *kv = NULL;
	size_t nkv = 0;
	const char *why;

	if ((h->flags & TZ_BF_ZSTD) || tz_hash(p, h->payload_len) != h->payload_csum ||
	    tz_meta_decode(p, h->raw_len, &kv, &nkv, &why)) {
		mdamage(m, pos, "container METADATA block does not check");
		tz_kv_free(kv, nkv);
		return;
	}
	if (m->kv && h->seq < m->kv_seq) { /* an older block: keys it alone has */
		for (size_t i = 0; i < nkv; i++) {
			size_t j;
			for (j = 0; j < m->nkv && strcmp(m->kv[j].key, kv[i].key); j++)
				;
			if (j == m->nkv)
				tz_kv_set(&m->kv, &m->nkv, kv[i].key, strlen(kv[i].key),
					  kv[i].value, strlen(kv[i].value));
		}
		tz_kv_free(kv, nkv);
		return;
	}
	for (size_t i = 0; i < nkv; i++)
		tz_kv_set(&m->kv, &m->nkv, kv[i].key, strlen(kv[i].key), kv[i].value,
			  strlen(kv[i].value));
	m->kv_seq = h->seq;
	tz_kv_free(kv, nkv);
}

/* FORMAT.md [X4]: a walk without damage that found another number of
 * MEMBER blocks than the merge metadata's `members` says (a strict decimal)
 * lost members whole: a container cut at a member's end. */
static void count_check(tz_multi *m)
{
	const char *v = tz_multi_meta_get(m, "members");
	if (m->damage || !v || !*v || strlen(v) > 9 || v[strspn(v, "0123456789")])
		return;
	unsigned long want = strtoul(v, NULL, 10);
	if (want != m->n) {
		char what[160];
		snprintf(what, sizeof(what),
			 "the merge metadata says %lu members, the file holds %zu (cut at a "
			 "member's end?)",
			 want, m->n);
		mdamage(m, m->len, what);
	}
}

/* FORMAT.md [X1]: walk the container's blocks from the header; a MEMBER
 * block is followed by member_len bytes of member; other valid blocks are
 * skipped by length (METADATA read); damage resynchronises on the next
 * valid MEMBER block header. */
static int walk(tz_multi *m, uint64_t pos)
{
	while (pos < m->len) {
		struct tz_bhdr h;
		int st = tz_bhdr_decode(m->data + pos, m->len - pos, &h);
		if (st || (h.type == TZ_B_MEMBER && h.ext_len < TZ_MEMBER_EXT)) {
			mdamage(m, pos,
				st ? "not a valid block header"
				   : "MEMBER block with an extension under 48 bytes");
			uint64_t next = next_member(m, pos + 1);
			if (salvaging(m) && (st = salvage(m, pos, next)))
				return st;
			pos = next;
			continue;
		}
		uint64_t bs = tz_block_size(&h);
		if (bs > m->len - pos) {
			mdamage(m, pos, "the file ends inside a block");
			break;
		}
		if (h.type != TZ_B_MEMBER) {
			if (h.type == TZ_B_META)
				container_meta(m, pos, &h);
			pos += bs;
			continue;
		}
		uint64_t off = pos + bs, want = tz_le64(h.ext), have = m->len - off;
		int rc = add_member(m, &h, pos, off, want < have ? want : have,
				    member_payload(m, pos, &h));
		if (rc)
			return rc;
		if (want > have) {
			m->mem[m->n - 1].m.cut = 1;
			mdamage(m, pos, "the file ends inside a member");
			break;
		}
		pos = off + want;
	}
	count_check(m);
	for (size_t i = 0; i < m->n; i++) {
		if (m->mem[i].m.salvaged)
			salvaged_names(m, &m->mem[i]);
		m->mem[i].m.source = m->mem[i].source ? m->mem[i].source : "";
		m->mem[i].m.hostname = m->mem[i].hostname ? m->mem[i].hostname : "";
	}
	return 0;
}

static tz_multi *multi_alloc(const char *name, const struct tz_reader_opts *opts)
{
	tz_multi *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->fd = -1;
	if (opts)
		m->opts = *opts;
	m->path = strdup(name ? name : "<memory>");
	if (!m->path) {
		free(m);
		return NULL;
	}
	return m;
}

/* After the reader's verdict on the header (rc: 0 plain, TZ_ERR_MULTI a
 * container): the members of m->data. hostname: a plain trace's (owned). */
static int members(tz_multi *m, int rc, char *hostname)
{
	m->container = rc == TZ_ERR_MULTI;
	if (m->container) {
		free(hostname);
		m->hdr_size = tz_le32(m->data + 12); /* checked by the reader */
		return walk(m, m->hdr_size);
	}
	/* a plain trace: one member, the whole file, its names its own */
	uint8_t ext[TZ_MEMBER_EXT] = {0};
	if (m->len >= TZ_HDR_SIZE) {
		memcpy(ext + 8, m->data + 40, 16);
		memcpy(ext + 24, m->data + 56, 16);
	}
	struct tz_bhdr self = {.ext = ext};
	if ((rc = add_member(m, &self, 0, 0, m->len, NULL))) {
		free(hostname);
		return rc;
	}
	m->mem[0].hostname = hostname;
	m->mem[0].source = strdup(m->path);
	m->mem[0].m.source = m->mem[0].source ? m->mem[0].source : "";
	m->mem[0].m.hostname = hostname ? hostname : "";
	return 0;
}

/* FORMAT.md [X5]: a file whose header does not check (the reader's error
 * rc) read as a container when a valid MEMBER block or a member header
 * follows the header's first byte; else rc, the reader's message kept. */
static int salvage_open(tz_multi *m, int rc)
{
	const char *why;
	if (!tz_header_check(m->data, m->len, NULL, &why) || rc == TZ_ERR_TRUNCATED)
		return rc;
	char keep[sizeof(m->errmsg)];
	memcpy(keep, m->errmsg, sizeof(keep));
	char what[200];
	snprintf(what, sizeof(what),
		 "file header: %s: not trusted, the file read as a multi-host trace from the "
		 "members that follow (its merge metadata left out)",
		 why);
	mdamage(m, 0, what);
	m->container = 1;
	uint64_t next = next_member(m, 1);
	int st = salvage(m, 0, next);
	if (st)
		return st;
	if (!m->n && next == m->len) { /* nothing follows: not a container */
		m->container = 0;
		m->damage = 0;
		memcpy(m->errmsg, keep, sizeof(keep));
		return rc;
	}
	return walk(m, next);
}

/* The reader's checks of the header; a plain trace's hostname in *host. */
static int header(tz_multi *m, tz_reader *r, int rc, char **host)
{
	if (rc && rc != TZ_ERR_MULTI)
		snprintf(m->errmsg, sizeof(m->errmsg), "%s", tz_reader_errmsg(r));
	const char *h = rc ? NULL : tz_reader_meta_get(r, "hostname");
	*host = rc ? NULL : strdup(h ? h : "");
	tz_reader_free(r);
	if (!rc && !*host)
		return TZ_ERR_NOMEM;
	return rc;
}

int tz_multi_open(tz_multi **out, const char *path, const struct tz_reader_opts *opts)
{
	if (!out || !path)
		return TZ_ERR_INVAL;
	tz_multi *m = *out = multi_alloc(path, opts);
	if (!m)
		return TZ_ERR_NOMEM;
	tz_reader *r = NULL;
	char *host = NULL;
	int rc = tz_reader_open(&r, path, opts);
	rc = header(m, r, rc, &host);
	int salvage =
	    rc && rc != TZ_ERR_MULTI && salvaging(m) && rc != TZ_ERR_IO && rc != TZ_ERR_NOMEM;
	if (rc && rc != TZ_ERR_MULTI && !salvage)
		return rc;

	/* a member's bytes are read from the map: a file without any (the
	 * reader refused it above) is not a container either */
	struct tz_map f;
	char why[256];
	int bad = tz_map_file(path, &f, why, sizeof(why));
	if (!bad && !f.map)
		snprintf(why, sizeof(why), "cannot map: the file is empty");
	if (bad || !f.map) {
		tz_map_close(&f);
		free(host);
		return salvage ? rc : merr(m, TZ_ERR_IO, UINT64_MAX, "%s", why);
	}
	m->fd = f.fd;
	m->map = f.map;
	m->len = f.len;
	m->data = f.map;
	return salvage ? salvage_open(m, rc) : members(m, rc, host);
}

int tz_multi_open_mem(tz_multi **out, const void *buf, size_t len, const char *name,
		      const struct tz_reader_opts *opts)
{
	if (!out || (!buf && len))
		return TZ_ERR_INVAL;
	tz_multi *m = *out = multi_alloc(name, opts);
	if (!m)
		return TZ_ERR_NOMEM;
	m->data = buf ? buf : (const uint8_t *)"";
	m->len = len;
	m->mem_backed = 1;
	tz_reader *r = NULL;
	char *host = NULL;
	int rc = tz_reader_open_mem(&r, m->data, len, m->path, opts);
	rc = header(m, r, rc, &host);
	if (rc && rc != TZ_ERR_MULTI && salvaging(m) && rc != TZ_ERR_NOMEM)
		return salvage_open(m, rc);
	if (rc && rc != TZ_ERR_MULTI)
		return rc;
	return members(m, rc, host);
}

int tz_multi_is_container(const tz_multi *m) { return m ? m->container : 0; }
size_t tz_multi_count(const tz_multi *m) { return m ? m->n : 0; }
const struct tz_member *tz_multi_member(const tz_multi *m, size_t i)
{
	return m && i < m->n ? &m->mem[i].m : NULL;
}
uint64_t tz_multi_damage(const tz_multi *m) { return m ? m->damage : 0; }
const char *tz_multi_errmsg(const tz_multi *m) { return m ? m->errmsg : ""; }

const char *tz_multi_meta_get(const tz_multi *m, const char *key)
{
	for (size_t i = 0; m && key && i < m->nkv; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].value;
	return NULL;
}

int tz_multi_reader(tz_multi *m, size_t i, tz_reader **out)
{
	if (!m || !out || i >= m->n)
		return TZ_ERR_INVAL;
	if (!m->container && !m->mem_backed) /* keeps the path's checks (live) */
		return tz_reader_open(out, m->path, &m->opts);
	if (!m->container)
		return tz_reader_open_mem(out, m->data, m->len, m->path, &m->opts);
	char name[600];
	snprintf(name, sizeof(name), "%s[%zu]", m->path, i);
	int rc = tz_reader_open_mem(out, m->mem[i].m.data, m->mem[i].m.len, name, &m->opts);
	if (rc == TZ_ERR_MULTI) /* FORMAT.md [X2]: members are never containers */
		return TZ_ERR_CORRUPT;
	return rc;
}

void tz_multi_free(tz_multi *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->mem[i].source);
		free(m->mem[i].hostname);
	}
	free(m->mem);
	tz_kv_free(m->kv, m->nkv);
	if (m->map)
		munmap(m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
	free(m);
}

/* ------------------------------------------------------------------ write */

static int put_all(int fd, const void *p, uint64_t len)
{
	const uint8_t *q = p;
	while (len) {
		size_t step = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t w = write(fd, q, step);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return errno == ENOSPC ? TZ_ERR_NOSPC : TZ_ERR_IO;
		q += w;
		len -= (uint64_t)w;
	}
	return 0;
}

/* A block with a plain payload: header (+ ext) then the payload. */
static int put_block(int fd, uint8_t type, uint64_t seq, const uint8_t *ext, uint16_t ext_len,
		     const struct tz_buf *payload)
{
	uint8_t hdr[TZ_BHDR_MIN + TZ_MEMBER_EXT];
	struct tz_bhdr h = {.type = type,
			    .ext_len = ext_len,
			    .payload_len = (uint32_t)payload->len,
			    .raw_len = (uint32_t)payload->len,
			    .seq = seq,
			    .payload_csum = tz_hash(payload->p, payload->len)};
	tz_bhdr_encode(hdr, &h, ext);
	int rc = put_all(fd, hdr, TZ_BHDR_MIN + ext_len);
	return rc ? rc : put_all(fd, payload->p, payload->len);
}

static int kv_payload(struct tz_buf *b, const char *const *kvs, size_t n)
{
	struct tz_kv *kv = NULL;
	size_t nkv = 0;
	int rc = 0;
	for (size_t i = 0; i + 1 < 2 * n && !rc; i += 2)
		if (kvs[i] && kvs[i + 1] && *kvs[i])
			rc = tz_kv_set(&kv, &nkv, kvs[i], strlen(kvs[i]), kvs[i + 1],
				       strlen(kvs[i + 1]));
	if (!rc)
		rc = tz_meta_encode(b, kv, nkv);
	tz_kv_free(kv, nkv);
	return rc ? TZ_ERR_NOMEM : 0;
}

static int write_members(int fd, const struct tz_merge_src *src, size_t n, const char *const *meta,
			 size_t nmeta)
{
	uint8_t hdr[TZ_HDR_SIZE], uuid[16], zero[16] = {0};
	uint64_t boot;
	int64_t real;
	struct tz_buf b = {0};
	int rc;

	tz_uuid4(uuid);
	tz_clock_pair(&boot, &real);
	/* no anchor in the header (boot 0): the members carry the clocks */
	struct tz_fhdr f = {uuid, zero, 0, real, 0, 0, 0, 0, TZ_INCOMPAT_MULTI};
	tz_fhdr_encode(hdr, &f);
	if ((rc = put_all(fd, hdr, sizeof(hdr))))
		return rc;
	if ((rc = kv_payload(&b, meta, nmeta)) || (rc = put_block(fd, TZ_B_META, 1, NULL, 0, &b)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint8_t ext[TZ_MEMBER_EXT] = {0};
		const char *names[] = {"source", src[i].source, "hostname", src[i].hostname};
		tz_put64(ext, src[i].len);
		memcpy(ext + 8, src[i].uuid, 16);
		memcpy(ext + 24, src[i].boot_id, 16);
		tz_put32(ext + 40, src[i].flags);
		b.len = 0;
		if ((rc = kv_payload(&b, names, 2)) ||
		    (rc = put_block(fd, TZ_B_MEMBER, 2 + i, ext, TZ_MEMBER_EXT, &b)) ||
		    (rc = put_all(fd, src[i].data, src[i].len)))
			goto out;
	}
	if (fsync(fd))
		rc = TZ_ERR_IO;
out:
	tz_buf_free(&b);
	return rc;
}

int tz_multi_write(const char *out_path, int overwrite, const struct tz_merge_src *src, size_t n,
		   const char *const *meta, size_t nmeta, char *err, size_t cap)
{
	if (!out_path || (n && !src) || n > TZ_MULTI_MAX) {
		snprintf(err, cap, "'%s': bad arguments", out_path ? out_path : "");
		return TZ_ERR_INVAL;
	}
	int fd = tz_create_file(out_path, overwrite);
	if (fd < 0) {
		snprintf(
		    err, cap, "'%s': %s%s%s", out_path,
		    fd == TZ_ERR_EXISTS ? "file exists (use -f to overwrite)" : "cannot create",
		    fd == TZ_ERR_EXISTS ? "" : ": ", fd == TZ_ERR_EXISTS ? "" : strerror(errno));
		return fd;
	}
	int rc = write_members(fd, src, n, meta, nmeta);
	int e = errno;
	if (close(fd) && !rc)
		rc = TZ_ERR_IO;
	if (rc) {
		unlink(out_path);
		snprintf(err, cap, "'%s': cannot write: %s", out_path,
			 rc == TZ_ERR_NOMEM ? "out of memory" : strerror(e));
	}
	return rc;
}
