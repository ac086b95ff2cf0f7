/* SPDX-License-Identifier: BSD-2-Clause */
/* test_zout.c - compressed output streams (analyze/zout.c) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "helper.h"

#include "analyze/zout.h"

/* n bytes of text that compress, but not to nothing: lines with a counter */
static char *text(size_t n)
{
	char *b = malloc(n);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = i % 61 == 60 ? '\n' : (char)('a' + (i * 7 + i / 977) % 26);
	return b;
}

/* the whole of f (rewound), its length in *n (caller frees) */
static unsigned char *slurp(FILE *f, size_t *n)
{
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	unsigned char *b = malloc((size_t)len + 1);
	rewind(f);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	*n = (size_t)len;
	return b;
}

/* write want through a z stream in uneven pieces (fwrite and fprintf),
 * return what reached the file */
static unsigned char *through(enum tza_z z, const char *want, size_t n, size_t *got)
{
	FILE *raw = tmpfile();
	assert_non_null(raw);
	int fd = dup(fileno(raw));
	FILE *f = tza_zout_open(raw, z);
	assert_non_null(f);
	size_t off = 0, step = 1;
	while (off < n) {
		size_t k = n - off < step ? n - off : step;
		if (k == 1)
			assert_int_equal(fprintf(f, "%c", want[off]), 1);
		else
			assert_int_equal(fwrite(want + off, 1, k, f), k);
		off += k;
		step = step * 3 + 1; /* 1, 4, 13, ... up to MiBs */
	}
	assert_int_equal(fclose(f), 0);
	FILE *back = fdopen(fd, "rb");
	unsigned char *b = slurp(back, got);
	fclose(back);
	return b;
}

/* decompress z (got bytes) into out (room for cap): the bytes out, or -1 */
static long unzstd(const unsigned char *z, size_t got, char *out, size_t cap)
{
	assert_int_equal(ZSTD_getFrameContentSize(z, got), ZSTD_CONTENTSIZE_UNKNOWN);
	size_t dn = ZSTD_decompress(out, cap, z, got);
	return ZSTD_isError(dn) ? -1 : (long)dn;
}

static long ungzip(const unsigned char *z, size_t got, char *out, size_t cap)
{
	z_stream s = {0};
	assert_int_equal(z[0], 0x1f); /* RFC 1952 magic */
	assert_int_equal(z[1], 0x8b);
	assert_int_equal(inflateInit2(&s, 15 + 16), Z_OK);
	s.next_in = (unsigned char *)(uintptr_t)z;
	s.avail_in = (uInt)got;
	s.next_out = (unsigned char *)out;
	s.avail_out = (uInt)cap;
	int rc = inflate(&s, Z_FINISH);
	long n = rc == Z_STREAM_END && !s.avail_in ? (long)s.total_out : -1; /* one member */
	inflateEnd(&s);
	return n;
}

/* 3 MiB written in uneven pieces come back whole, compressed */
static void test_roundtrip(void **state)
{
	(void)state;
	size_t n = 3u << 20, got;
	char *want = text(n), *out = malloc(n + 1);
	for (enum tza_z z = TZA_Z_ZSTD; z <= TZA_Z_GZIP; z++) {
		unsigned char *c = through(z, want, n, &got);
		assert_true(got < n / 4);
		long dn = z == TZA_Z_ZSTD ? unzstd(c, got, out, n + 1) : ungzip(c, got, out, n + 1);
		assert_int_equal(dn, (long)n);
		assert_memory_equal(out, want, n);
		free(c);
	}
	free(out);
	free(want);
}

/* an empty stream is still a whole frame / member */
static void test_empty(void **state)
{
	(void)state;
	size_t got;
	unsigned char *z = through(TZA_Z_ZSTD, "", 0, &got);
	char out[4];
	assert_int_equal(ZSTD_decompress(out, sizeof(out), z, got), 0);
	free(z);
	z = through(TZA_Z_GZIP, "", 0, &got);
	assert_int_equal(got, 20); /* header 10 + empty deflate block 2 + trailer 8 */
	free(z);
}

/* a full disk: the error reaches ferror or fclose, never silence */
static void test_write_error(void **state)
{
	(void)state;
	for (enum tza_z z = TZA_Z_ZSTD; z <= TZA_Z_GZIP; z++) {
		FILE *raw = fopen("/dev/full", "w");
		if (!raw)
			skip();
		FILE *f = tza_zout_open(raw, z);
		assert_non_null(f);
		char *b = text(1u << 20);
		fwrite(b, 1, 1u << 20, f);
		int bad = ferror(f);
		bad |= fclose(f) != 0;
		assert_true(bad);
		free(b);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(tza_z_of_name("a.jsonl.zst"), TZA_Z_ZSTD);
	assert_int_equal(tza_z_of_name("a.csv.gz"), TZA_Z_GZIP);
	assert_int_equal(tza_z_of_name("a.csv"), TZA_Z_NONE);
	assert_int_equal(tza_z_of_name(".gz"), TZA_Z_NONE); /* a name, not a suffix */
	assert_int_equal(tza_z_of_name("x.zst.json"), TZA_Z_NONE);
	assert_int_equal(tza_z_of_name(NULL), TZA_Z_NONE);
	FILE *raw = tmpfile();
	assert_ptr_equal(tza_zout_open(raw, TZA_Z_NONE), raw);
	fclose(raw);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_empty),
	  cmocka_unit_test(test_write_error), cmocka_unit_test(test_names))
