/* SPDX-License-Identifier: BSD-2-Clause */
/* test_multi.c - multi-host traces (FORMAT.md 18): members kept byte for
 * byte, the container walk ([X1]) over damage, cuts, duplicates ([X3]) and
 * nested containers ([X2]). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper.h"

#include "tz.h"
#include "tz_int.h"

#define NM 3

struct fixture {
	void *buf[NM]; /* three plain traces, hostnames node0..node2 */
	size_t len[NM];
	uint8_t uuid[NM][16], boot[NM][16];
	char dir[64], path[96];
};

static void *one_trace(const char *host, size_t *len)
{
	tz_writer *w;
	void *buf;
	struct tz_field f = {.name = "v", .type = TZ_F_U64, .offset = 0, .size = 8, .unit = ""};
	struct tz_event_type t = {
	    .id = 1, .version = 1, .name = "tick", .fixed_size = 8, .nfields = 1, .fields = &f};
	assert_int_equal(tz_writer_open_mem(&w, NULL), 0);
	assert_int_equal(tz_writer_add_type(w, &t), 0);
	assert_int_equal(tz_writer_set_meta(w, "hostname", host), 0);
	for (uint64_t i = 1; i <= 50; i++) {
		uint8_t v[8];
		tz_put64(v, i * 7);
		assert_int_equal(tz_writer_add(w, 1, 1000 * i, v, 8, NULL, 0), 0);
	}
	assert_int_equal(tz_writer_mem_take(w, &buf, len), 0);
	return buf;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char host[16];
	for (int i = 0; i < NM; i++) {
		snprintf(host, sizeof(host), "node%d", i);
		fx->buf[i] = one_trace(host, &fx->len[i]);
		memcpy(fx->uuid[i], (uint8_t *)fx->buf[i] + 40, 16);
		memcpy(fx->boot[i], (uint8_t *)fx->buf[i] + 56, 16);
	}
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_multi.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/run.tz", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	for (int i = 0; i < NM; i++)
		free(fx->buf[i]);
	unlink(fx->path);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* Write the container of members order[0..n) (indexes into the fixture). */
static void write_multi(struct fixture *fx, const int *order, size_t n, int overwrite)
{
	struct tz_merge_src src[8];
	char err[512], src_name[8][16];
	const char *meta[] = {"merged_by", "test_multi"};
	for (size_t i = 0; i < n; i++) {
		int k = order[i];
		snprintf(src_name[i], sizeof(src_name[i]), "n%d.tz", k);
		src[i] = (struct tz_merge_src){.data = fx->buf[k],
					       .len = fx->len[k],
					       .uuid = fx->uuid[k],
					       .boot_id = fx->boot[k],
					       .flags = k == 2 ? TZ_MEMBER_PARTIAL : 0,
					       .source = src_name[i],
					       .hostname = NULL};
	}
	int rc = tz_multi_write(fx->path, overwrite, src, n, meta, 1, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	uint8_t *b = malloc((size_t)st.st_size + 1);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/* Each member is its input byte for byte and reads as that trace. */
static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	tz_multi *m;
	tz_reader *r;

	write_multi(fx, order, NM, 0);
	assert_int_equal(tz_reader_open(&r, fx->path, NULL), TZ_ERR_MULTI);
	tz_reader_free(r);
	assert_int_equal(tz_multi_open(&m, fx->path, NULL), 0);
	assert_int_equal(tz_multi_is_container(m), 1);
	assert_int_equal(tz_multi_count(m), NM);
	assert_int_equal(tz_multi_damage(m), 0);
	assert_string_equal(tz_multi_meta_get(m, "merged_by"), "test_multi");
	for (size_t i = 0; i < NM; i++) {
		const struct tz_member *me = tz_multi_member(m, i);
		char want[16];
		assert_int_equal(me->len, fx->len[i]);
		assert_memory_equal(me->data, fx->buf[i], fx->len[i]);
		assert_memory_equal(me->uuid, fx->uuid[i], 16);
		assert_memory_equal(me->boot_id, fx->boot[i], 16);
		assert_int_equal(me->flags, i == 2 ? TZ_MEMBER_PARTIAL : 0);
		assert_int_equal(me->dup_of, -1);
		assert_int_equal(me->cut, 0);
		snprintf(want, sizeof(want), "n%zu.tz", i);
		assert_string_equal(me->source, want);
		assert_string_equal(me->hostname, "");
		assert_int_equal(tz_multi_reader(m, i, &r), 0);
		snprintf(want, sizeof(want), "node%zu", i);
		assert_string_equal(tz_reader_meta_get(r, "hostname"), want);
		assert_int_equal(tz_reader_info(r)->events, 50);
		assert_int_equal(tz_reader_info(r)->has_footer, 1);
		tz_reader_free(r);
	}
	assert_null(tz_multi_member(m, NM));
	tz_multi_free(m);

	/* an existing output is kept without overwrite */
	struct tz_merge_src one = {
	    .data = fx->buf[0], .len = fx->len[0], .uuid = fx->uuid[0], .boot_id = fx->boot[0]};
	char err[512];
	assert_int_equal(tz_multi_write(fx->path, 0, &one, 1, NULL, 0, err, sizeof(err)),
			 TZ_ERR_EXISTS);
}

/* A plain trace opens as one member, itself, named by its metadata. */
static void test_plain(void **state)
{
	struct fixture *fx = *state;
	tz_multi *m;
	tz_reader *r;
	assert_int_equal(tz_multi_open_mem(&m, fx->buf[1], fx->len[1], "plain.tz", NULL), 0);
	assert_int_equal(tz_multi_is_container(m), 0);
	assert_int_equal(tz_multi_count(m), 1);
	assert_string_equal(tz_multi_member(m, 0)->hostname, "node1");
	assert_string_equal(tz_multi_member(m, 0)->source, "plain.tz");
	assert_null(tz_multi_meta_get(m, "merged_by"));
	assert_int_equal(tz_multi_reader(m, 0, &r), 0);
	assert_int_equal(tz_reader_info(r)->events, 50);
	tz_reader_free(r);
	tz_multi_free(m);
	/* not a trace at all: the reader's error, named */
	assert_int_equal(tz_multi_open_mem(&m, "hello", 5, "x", NULL), TZ_ERR_MAGIC);
	assert_non_null(strstr(tz_multi_errmsg(m), "'x'"));
	tz_multi_free(m);
}

/* [X1]: a damaged MEMBER block header loses that member only; the walk
 * resynchronises on the next MEMBER block, past the lost member's blocks. */
static void test_damaged_member_block(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	size_t len;
	tz_multi *m;

	write_multi(fx, order, NM, 1);
	uint8_t *b = slurp(fx->path, &len);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", NULL), 0);
	/* member 1's MEMBER block starts where member 0 ends: flip its seq */
	size_t blk = (size_t)(tz_multi_member(m, 0)->off + tz_multi_member(m, 0)->len);
	tz_multi_free(m);
	struct tz_bhdr h;
	assert_int_equal(tz_bhdr_decode(b + blk, len - blk, &h), 0);
	assert_int_equal(h.type, TZ_B_MEMBER);
	b[blk + 16] ^= 0x40;
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", NULL), 0);
	assert_int_equal(tz_multi_damage(m), 1);
	assert_non_null(strstr(tz_multi_errmsg(m), "offset"));
	assert_int_equal(tz_multi_count(m), 2);
	assert_memory_equal(tz_multi_member(m, 0)->data, fx->buf[0], fx->len[0]);
	assert_memory_equal(tz_multi_member(m, 1)->data, fx->buf[2], fx->len[2]);
	tz_multi_free(m);
	free(b);
}

/* A file cut inside its last member: the member is cut (read by its own
 * scan rule); a cut inside the member's bytes keeps the chunks before it. */
static void test_cut(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1};
	size_t len;
	tz_multi *m;
	tz_reader *r;

	write_multi(fx, order, 2, 1);
	uint8_t *b = slurp(fx->path, &len);
	size_t cut = len - fx->len[1] / 3;
	assert_int_equal(tz_multi_open_mem(&m, b, cut, "run.tz", NULL), 0);
	assert_int_equal(tz_multi_count(m), 2);
	assert_int_equal(tz_multi_member(m, 1)->cut, 1);
	assert_int_equal(tz_multi_damage(m), 1);
	assert_int_equal(tz_multi_member(m, 1)->len, fx->len[1] - fx->len[1] / 3);
	assert_int_equal(tz_multi_reader(m, 1, &r), 0);
	assert_int_equal(tz_reader_info(r)->unfinished, 1);
	tz_reader_free(r);
	tz_multi_free(m);
	free(b);
}

/* [X3]: the same recording twice is one member read once; [X2]: a member
 * that is itself a container is damage. */
static void test_duplicate_and_nested(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 0};
	size_t len;
	tz_multi *m;
	tz_reader *r;

	write_multi(fx, order, 3, 1);
	assert_int_equal(tz_multi_open(&m, fx->path, NULL), 0);
	assert_int_equal(tz_multi_count(m), 3);
	assert_int_equal(tz_multi_member(m, 2)->dup_of, 0);
	assert_int_equal(tz_multi_member(m, 1)->dup_of, -1);
	tz_multi_free(m);

	/* the container just written as a member of another */
	uint8_t *inner = slurp(fx->path, &len);
	struct tz_merge_src src = {
	    .data = inner, .len = len, .uuid = inner + 40, .boot_id = inner + 56};
	char err[512];
	assert_int_equal(tz_multi_write(fx->path, 1, &src, 1, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(tz_multi_open(&m, fx->path, NULL), 0);
	assert_int_equal(tz_multi_count(m), 1);
	assert_int_equal(tz_multi_reader(m, 0, &r), TZ_ERR_CORRUPT);
	tz_reader_free(r);
	tz_multi_free(m);
	free(inner);
}

/* A header with RING and MULTI together is corrupt. */
static void test_ring_and_multi(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0};
	size_t len;
	tz_reader *r;
	write_multi(fx, order, 1, 1);
	uint8_t *b = slurp(fx->path, &len);
	tz_put64(b + 32, tz_le64(b + 32) | 1);
	tz_put64(b + 120, tz_hash(b, 120));
	assert_int_equal(tz_reader_open_mem(&r, b, len, "x", NULL), TZ_ERR_CORRUPT);
	tz_reader_free(r);
	free(b);
}

/* ------------------------------------------ salvage scan (FORMAT.md [X5]) */

static const struct tz_reader_opts salvage_opts = {.flags = TZ_R_SALVAGE};

/* The offset of member i's MEMBER block in the undamaged container b. */
static size_t member_block(const uint8_t *b, size_t len, size_t i)
{
	tz_multi *m;
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", NULL), 0);
	assert_true(i < tz_multi_count(m));
	size_t off = i ? (size_t)(tz_multi_member(m, i - 1)->off + tz_multi_member(m, i - 1)->len)
		       : (size_t)(tz_multi_member(m, 0)->off);
	if (!i) { /* after the container's METADATA block */
		struct tz_bhdr h;
		assert_int_equal(tz_bhdr_decode(b + TZ_HDR_SIZE, len - TZ_HDR_SIZE, &h), 0);
		off = TZ_HDR_SIZE + (size_t)tz_block_size(&h);
	}
	tz_multi_free(m);
	return off;
}

/* Member k of m is fixture trace t, byte for byte, with its own identity. */
static void is_member(const struct fixture *fx, tz_multi *m, size_t k, int t, int salvaged)
{
	const struct tz_member *me = tz_multi_member(m, k);
	char host[16];
	assert_non_null(me);
	assert_int_equal(me->len, fx->len[t]);
	assert_memory_equal(me->data, fx->buf[t], fx->len[t]);
	assert_memory_equal(me->uuid, fx->uuid[t], 16);
	assert_memory_equal(me->boot_id, fx->boot[t], 16);
	assert_int_equal(me->salvaged, salvaged);
	assert_int_equal(me->cut, 0);
	snprintf(host, sizeof(host), "node%d", t);
	if (salvaged) { /* its own metadata's; the source its MEMBER block held is
			   lost: named by its offset, host and start (UTC) */
		char want[200], when[40];
		time_t sec = (time_t)((int64_t)tz_le64(me->data + 80) / 1000000000);
		struct tm tm;
		assert_non_null(gmtime_r(&sec, &tm));
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		snprintf(want, sizeof(want), "salvaged at offset %llu (host %s, started %s)",
			 (unsigned long long)me->off, host, when);
		assert_string_equal(me->hostname, host);
		assert_string_equal(me->source, want);
	}
	tz_reader *r;
	assert_int_equal(tz_multi_reader(m, k, &r), 0);
	assert_int_equal(tz_reader_info(r)->events, 50);
	assert_int_equal(tz_reader_info(r)->corrupt_blocks, 0);
	tz_reader_free(r);
}

/* A damaged MEMBER block header: the walk loses its member, the salvage
 * scan finds it by its own header, in order; two damaged in a row too. */
static void test_salvage_member_blocks(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	size_t len;
	tz_multi *m;

	write_multi(fx, order, NM, 1);
	uint8_t *b = slurp(fx->path, &len);
	size_t blk1 = member_block(b, len, 1), blk2 = member_block(b, len, 2);
	memset(b + blk1, 0, 40); /* the MEMBER block's fixed header */
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", NULL), 0);
	assert_int_equal(tz_multi_count(m), 2); /* without: lost */
	tz_multi_free(m);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_damage(m), 1);
	assert_int_equal(tz_multi_count(m), 3);
	is_member(fx, m, 0, 0, 0);
	is_member(fx, m, 1, 1, 1);
	is_member(fx, m, 2, 2, 0);
	tz_multi_free(m);

	b[blk2 + 30] ^= 0x01; /* member 2's MEMBER block too: its payload checksum field */
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_damage(m), 1); /* one region */
	assert_int_equal(tz_multi_count(m), 3);
	is_member(fx, m, 0, 0, 0);
	is_member(fx, m, 1, 1, 1);
	is_member(fx, m, 2, 2, 1);
	tz_multi_free(m);
	free(b);
}

/* A salvaged linear member that runs to the end of the file without its
 * trailer is cut, as a member whose MEMBER block says more bytes than the
 * file holds is ([X1]); one that ends with its trailer is not. */
static void test_salvage_cut(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	size_t len;
	tz_multi *m;

	write_multi(fx, order, NM, 1);
	uint8_t *b = slurp(fx->path, &len);
	size_t blk2 = member_block(b, len, 2);
	memset(b + blk2, 0, 40);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 3);
	is_member(fx, m, 2, 2, 1); /* whole, to the end: not cut */
	tz_multi_free(m);
	size_t cut = len - fx->len[2] / 3;
	assert_int_equal(tz_multi_open_mem(&m, b, cut, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 3);
	assert_int_equal(tz_multi_member(m, 2)->salvaged, 1);
	assert_int_equal(tz_multi_member(m, 2)->cut, 1);
	assert_int_equal(tz_multi_member(m, 2)->len, fx->len[2] - fx->len[2] / 3);
	assert_int_equal(tz_multi_member(m, 1)->cut, 0);
	tz_multi_free(m);
	/* the cut member followed by a MEMBER block: damaged, not cut */
	static const int two[] = {2, 0};
	write_multi(fx, two, 2, 1);
	free(b);
	b = slurp(fx->path, &len);
	size_t blk0 = member_block(b, len, 0), blk1 = member_block(b, len, 1);
	memset(b + blk0, 0, 40);
	memset(b + blk1 - 200, 0, 200); /* member 0's index and trailer */
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 2);
	assert_int_equal(tz_multi_member(m, 0)->salvaged, 1);
	assert_int_equal(tz_multi_member(m, 0)->cut, 0);
	tz_multi_free(m);
	free(b);
}

/* A container whose header does not check: read from the MEMBER blocks and
 * member headers that follow, the header named; a plain trace whose header
 * does not check is still refused as before. */
static void test_salvage_header(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	size_t len;
	tz_multi *m;

	write_multi(fx, order, NM, 1);
	uint8_t *b = slurp(fx->path, &len);
	size_t blk0 = member_block(b, len, 0);
	memset(b, 0, TZ_HDR_SIZE);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", NULL), TZ_ERR_MAGIC);
	tz_multi_free(m);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_is_container(m), 1);
	assert_int_equal(tz_multi_damage(m), 1);
	assert_non_null(strstr(tz_multi_errmsg(m), "'run.tz': offset 0: file header: bad magic"));
	assert_null(tz_multi_meta_get(m, "merged_by")); /* not trusted: left out */
	assert_int_equal(tz_multi_count(m), 3);
	for (int i = 0; i < NM; i++)
		is_member(fx, m, (size_t)i, i, 0);
	tz_multi_free(m);

	/* and member 0's MEMBER block: found by its header */
	memset(b + blk0 + 8, 0xff, 8);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 3);
	is_member(fx, m, 0, 0, 1);
	is_member(fx, m, 1, 1, 0);
	tz_multi_free(m);
	free(b);

	/* a plain trace with a flipped header byte: its own error, nothing found */
	b = malloc(fx->len[1]);
	memcpy(b, fx->buf[1], fx->len[1]);
	b[50] ^= 0x10;
	char want[512];
	assert_int_equal(tz_multi_open_mem(&m, b, fx->len[1], "one.tz", NULL), TZ_ERR_CHECKSUM);
	snprintf(want, sizeof(want), "%s", tz_multi_errmsg(m));
	tz_multi_free(m);
	assert_int_equal(tz_multi_open_mem(&m, b, fx->len[1], "one.tz", &salvage_opts),
			 TZ_ERR_CHECKSUM);
	assert_string_equal(tz_multi_errmsg(m), want);
	tz_multi_free(m);
	free(b);
}

/* xorshift64 bytes */
static void noise(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = (uint8_t)seed;
	}
}

/* No member is invented: garbage full of magics, a header that does not
 * check, and a whole trace inside a block whose header and payload check
 * (an embedded file, not a member) give nothing. */
static void test_salvage_no_false_member(void **state)
{
	struct fixture *fx = *state;
	static const int order[] = {0, 1, 2};
	size_t len;
	tz_multi *m;

	write_multi(fx, order, NM, 1);
	uint8_t *b = slurp(fx->path, &len);
	size_t blk1 = member_block(b, len, 1), blk2 = member_block(b, len, 2);
	/* member 1 and its MEMBER block: noise sown with both magics, and a
	 * copy of member 1's header with one byte of it changed */
	noise(b + blk1, blk2 - blk1, 42);
	for (size_t p = blk1 + 7; p + 200 < blk2; p += 97)
		memcpy(b + p, p % 2 ? TZ_MAGIC : TZ_BMAGIC, p % 2 ? TZ_MAGIC_LEN : TZ_BMAGIC_LEN);
	memcpy(b + blk1 + 300, fx->buf[1], TZ_HDR_SIZE + 64);
	b[blk1 + 300 + 44] ^= 1;
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 2);
	is_member(fx, m, 0, 0, 0);
	is_member(fx, m, 1, 2, 0);
	tz_multi_free(m);
	/* the same with the container's header gone */
	memset(b, 0xa5, TZ_HDR_SIZE);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 2);
	tz_multi_free(m);
	free(b);

	/* members 0 and 2 with, between them, 16 bytes of damage and then a
	 * block of an unknown type whose payload is trace 1, whole */
	static const int two[] = {0, 2};
	write_multi(fx, two, 2, 1);
	b = slurp(fx->path, &len);
	size_t at = member_block(b, len, 1), blen = TZ_BHDR_MIN + fx->len[1];
	uint8_t *c = malloc(len + 16 + blen);
	memcpy(c, b, at);
	memset(c + at, 0x5a, 16);
	struct tz_bhdr h = {.type = 200,
			    .payload_len = (uint32_t)fx->len[1],
			    .raw_len = (uint32_t)fx->len[1],
			    .seq = 99,
			    .payload_csum = tz_hash(fx->buf[1], fx->len[1])};
	tz_bhdr_encode(c + at + 16, &h, NULL);
	memcpy(c + at + 16 + TZ_BHDR_MIN, fx->buf[1], fx->len[1]);
	memcpy(c + at + 16 + blen, b + at, len - at);
	assert_int_equal(tz_multi_open_mem(&m, c, len + 16 + blen, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_damage(m), 1);
	assert_int_equal(tz_multi_count(m), 2);
	is_member(fx, m, 0, 0, 0);
	is_member(fx, m, 1, 2, 0);
	tz_multi_free(m);
	/* its payload checksum broken: the block is not trusted, trace 1 is found */
	c[at + 16 + TZ_BHDR_MIN + 200] ^= 1;
	assert_int_equal(tz_multi_open_mem(&m, c, len + 16 + blen, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 3);
	assert_int_equal(tz_multi_member(m, 1)->salvaged, 1);
	assert_memory_equal(tz_multi_member(m, 1)->uuid, fx->uuid[1], 16);
	tz_multi_free(m);
	free(c);
	free(b);
}

/* A ring member found by its header spans its ring_size; one cut by the
 * end of the file is cut. */
static void test_salvage_ring(void **state)
{
	struct fixture *fx = *state;
	char rp[128];
	size_t rlen, len;
	tz_writer *w;
	tz_multi *m;
	struct tz_field f = {.name = "v", .type = TZ_F_U64, .offset = 0, .size = 8, .unit = ""};
	struct tz_event_type t = {
	    .id = 1, .version = 1, .name = "tick", .fixed_size = 8, .nfields = 1, .fields = &f};
	struct tz_writer_opts o = {.chunk_bytes = 4096, .ring_size = 200000};
	snprintf(rp, sizeof(rp), "%s/ring.tz", fx->dir);
	assert_int_equal(tz_writer_open(&w, rp, &o), 0);
	assert_int_equal(tz_writer_add_type(w, &t), 0);
	assert_int_equal(tz_writer_set_meta(w, "hostname", "ringhost"), 0);
	for (uint64_t i = 1; i <= 3000; i++) {
		uint8_t v[8];
		tz_put64(v, i);
		assert_int_equal(tz_writer_add(w, 1, 1000 * i, v, 8, NULL, 0), 0);
	}
	assert_int_equal(tz_writer_close(w), 0);
	uint8_t *ring = slurp(rp, &rlen);
	unlink(rp);
	assert_int_equal(rlen, 200000);

	struct tz_merge_src src[2] = {
	    {.data = ring, .len = rlen, .uuid = ring + 40, .boot_id = ring + 56},
	    {.data = fx->buf[0], .len = fx->len[0], .uuid = fx->uuid[0], .boot_id = fx->boot[0]}};
	char err[512];
	assert_int_equal(tz_multi_write(fx->path, 1, src, 2, NULL, 0, err, sizeof(err)), 0);
	uint8_t *b = slurp(fx->path, &len);
	size_t blk0 = TZ_HDR_SIZE;
	{
		struct tz_bhdr h;
		assert_int_equal(tz_bhdr_decode(b + blk0, len - blk0, &h), 0);
		if (h.type != TZ_B_MEMBER)
			blk0 += (size_t)tz_block_size(&h);
	}
	memset(b + blk0, 0, 8);
	assert_int_equal(tz_multi_open_mem(&m, b, len, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 2);
	assert_int_equal(tz_multi_member(m, 0)->salvaged, 1);
	assert_int_equal(tz_multi_member(m, 0)->len, rlen);
	assert_memory_equal(tz_multi_member(m, 0)->data, ring, rlen);
	assert_string_equal(tz_multi_member(m, 0)->hostname, "ringhost");
	is_member(fx, m, 1, 0, 0);
	tz_multi_free(m);
	/* cut inside the ring member */
	size_t cut = blk0 + 200 + rlen / 2;
	assert_int_equal(tz_multi_open_mem(&m, b, cut, "run.tz", &salvage_opts), 0);
	assert_int_equal(tz_multi_count(m), 1);
	assert_int_equal(tz_multi_member(m, 0)->cut, 1);
	tz_multi_free(m);
	free(b);
	free(ring);
}

TEST_MAIN(setup, teardown, cmocka_unit_test(test_round_trip), cmocka_unit_test(test_plain),
	  cmocka_unit_test(test_damaged_member_block), cmocka_unit_test(test_cut),
	  cmocka_unit_test(test_duplicate_and_nested), cmocka_unit_test(test_ring_and_multi),
	  cmocka_unit_test(test_salvage_member_blocks), cmocka_unit_test(test_salvage_cut),
	  cmocka_unit_test(test_salvage_header),
	  cmocka_unit_test(test_salvage_no_false_member), cmocka_unit_test(test_salvage_ring))
