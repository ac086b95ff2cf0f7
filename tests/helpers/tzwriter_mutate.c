/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tzwriter_mutate.c - damage a .tz file on purpose, for the format's CLI tests
 * and the bad golden files.
 *
 * usage: tzwriter_mutate IN OUT OP [ARG]
 *   flip OFFSET      invert the low bit of the byte at OFFSET
 *   cut LENGTH       keep only the first LENGTH bytes
 *   flag WORD BIT    set BIT (0-63) in header word at WORD (16 compat, 24
 *                    ro-compat, 32 incompat) and fix the header checksum
 *   crlf             what a text-mode transfer does: every LF becomes CR LF
 *   chunk N          offset of the N-th chunk block (printed, OUT untouched)
 *   dup N            insert a byte copy of the N-th chunk right after it (same
 *                    seq: a replayed chunk)
 *   nofooter         drop the final INDEX and TRAILER (what a crash leaves)
 *   copy SRC DST     overwrite the DST-th chunk in place with a copy of the
 *                    SRC-th (a ring slot holding another chunk)
 *   inflate N DELTA  add DELTA to the N-th chunk's payload_len and fix its
 *                    header checksum, so that it swallows what follows
 * Chunks are counted from 0 in the order verify walks them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tz.h"
#include "tz_int.h"

static int nth, want;
static unsigned long long found = ~0ull;
static int cb(void *ctx, const struct tz_block_info *b)
{
	(void)ctx;
	if (b->type == TZ_B_CHUNK && nth++ == want) {
		found = b->offset;
		return 1;
	}
	return 0;
}

/* offset and size of the n-th chunk of b[0, len); -1 if none */
static int chunk_at(uint8_t *b, long len, const char *name, int n, long *off, long *size)
{
	tz_reader *r;
	struct tz_bhdr h;
	nth = 0;
	want = n;
	found = ~0ull;
	if (tz_reader_open_mem(&r, b, (size_t)len, name, NULL) < 0)
		return -1;
	tz_reader_verify(r, cb, NULL);
	tz_reader_free(r);
	if (found == ~0ull || tz_bhdr_decode(b + found, (uint64_t)len - found, &h))
		return -1;
	*off = (long)found;
	*size = (long)tz_block_size(&h);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
			"usage: tzwriter_mutate IN OUT flip|cut|flag|crlf|chunk|dup|nofooter|copy|"
			"inflate [ARG...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return perror(argv[1]), 1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)n * 2 + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		return 1;
	fclose(f);
	const char *op = argv[3];
	if (!strcmp(op, "flip") && argc == 5) {
		long off = strtol(argv[4], NULL, 0);
		if (off < 0 || off >= n)
			return 2;
		b[off] ^= 1;
	} else if (!strcmp(op, "cut") && argc == 5) {
		long l = strtol(argv[4], NULL, 0);
		if (l >= 0 && l < n)
			n = l;
	} else if (!strcmp(op, "flag") && argc == 6) {
		int word = atoi(argv[4]), bit = atoi(argv[5]);
		tz_put64(b + word, tz_le64(b + word) | 1ull << bit);
		tz_put64(b + 120, tz_hash(b, 120));
	} else if (!strcmp(op, "crlf")) {
		uint8_t *o = b + n;
		long m = 0;
		memmove(o, b, (size_t)n); /* o overlaps: rebuild from a copy */
		uint8_t *c = malloc((size_t)n);
		memcpy(c, b, (size_t)n);
		for (long i = 0; i < n; i++) {
			if (c[i] == '\n')
				b[m++] = '\r';
			if (m >= 2 * n)
				break;
			b[m++] = c[i];
		}
		free(c);
		n = m;
	} else if (!strcmp(op, "chunk") && argc == 5) {
		tz_reader *r;
		want = atoi(argv[4]);
		if (tz_reader_open_mem(&r, b, (size_t)n, argv[1], NULL) < 0)
			return 1;
		tz_reader_verify(r, cb, NULL);
		tz_reader_free(r);
		if (found == ~0ull)
			return 1;
		printf("%llu\n", found);
		return 0;
	} else if (!strcmp(op, "dup") && argc == 5) {
		long off, size;
		if (chunk_at(b, n, argv[1], atoi(argv[4]), &off, &size))
			return 1;
		memmove(b + off + 2 * size, b + off + size, (size_t)(n - off - size));
		memcpy(b + off + size, b + off, (size_t)size);
		n += size;
	} else if (!strcmp(op, "nofooter")) {
		struct tz_bhdr h;
		if (n < TZ_TRAILER_SIZE || tz_bhdr_decode(b + n - TZ_TRAILER_SIZE, TZ_TRAILER_SIZE, &h) ||
		    h.type != TZ_B_TRAILER)
			return 1;
		n = (long)tz_le64(h.ext);
	} else if (!strcmp(op, "copy") && argc == 6) {
		long so, ss, d_off, ds;
		if (chunk_at(b, n, argv[1], atoi(argv[4]), &so, &ss) ||
		    chunk_at(b, n, argv[1], atoi(argv[5]), &d_off, &ds) || d_off + ss > n)
			return 1;
		memmove(b + d_off, b + so, (size_t)ss);
	} else if (!strcmp(op, "inflate") && argc == 6) {
		long off, size;
		struct tz_bhdr h;
		if (chunk_at(b, n, argv[1], atoi(argv[4]), &off, &size))
			return 1;
		tz_bhdr_decode(b + off, (uint64_t)size, &h);
		h.payload_len += (uint32_t)atol(argv[5]);
		uint8_t ext[4096];
		memcpy(ext, b + off + TZ_BHDR_FIXED, h.ext_len);
		tz_bhdr_encode(b + off, &h, ext);
	} else {
		fprintf(stderr, "tzwriter_mutate: bad operation\n");
		return 2;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(b, 1, (size_t)n, f) != (size_t)n || fclose(f))
		return perror(argv[2]), 1;
	free(b);
	return 0;
}
