/* SPDX-License-Identifier: BSD-2-Clause */
/* zout.c - a FILE that writes zstd or gzip (zout.h), over fopencookie. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include "zout.h"

#define ZOUT_BUF (64 * 1024)

struct zout {
	FILE *raw;
	enum tza_z z;
	ZSTD_CCtx *zc;
	z_stream gz;
	int bad;
	unsigned char buf[ZOUT_BUF];
};

static int put(struct zout *c, size_t n)
{
	if (n && fwrite(c->buf, 1, n, c->raw) != n)
		c->bad = 1;
	return c->bad ? -1 : 0;
}

/* Compress n bytes of p (end: finish the stream). 0, or -1 on an error. */
static int push(struct zout *c, const char *p, size_t n, int end)
{
	if (c->bad)
		return -1;
	if (c->z == TZA_Z_ZSTD) {
		ZSTD_inBuffer in = {p, n, 0};
		size_t left;
		do {
			ZSTD_outBuffer out = {c->buf, sizeof(c->buf), 0};
			left = ZSTD_compressStream2(c->zc, &out, &in,
						    end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left) || put(c, out.pos))
				return c->bad = -1;
		} while (end ? left != 0 : in.pos < in.size);
		return 0;
	}
	c->gz.next_in = (unsigned char *)(uintptr_t)p;
	c->gz.avail_in = (uInt)n;
	int rc;
	do {
		c->gz.next_out = c->buf;
		c->gz.avail_out = sizeof(c->buf);
		rc = deflate(&c->gz, end ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_ERROR || put(c, sizeof(c->buf) - c->gz.avail_out))
			return c->bad = -1;
	} while (end ? rc != Z_STREAM_END : c->gz.avail_in > 0 || c->gz.avail_out == 0);
	return 0;
}

static ssize_t zwrite(void *cookie, const char *p, size_t n)
{
	struct zout *c = cookie;
	/* zlib counts in uInt: feed at most 1 GiB at a time */
	for (size_t off = 0; off < n;) {
		size_t k = n - off > (1u << 30) ? (1u << 30) : n - off;
		if (push(c, p + off, k, 0))
			return -1;
		off += k;
	}
	return (ssize_t)n;
}

static int zclose(void *cookie)
{
	struct zout *c = cookie;
	int bad = push(c, "", 0, 1) != 0;
	if (c->z == TZA_Z_ZSTD)
		ZSTD_freeCCtx(c->zc);
	else
		deflateEnd(&c->gz);
	if (c->raw == stdout)
		bad |= fflush(c->raw) != 0 || ferror(c->raw);
	else
		bad |= fclose(c->raw) != 0;
	free(c);
	return bad ? EOF : 0;
}

enum tza_z tza_z_of_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n > 4 && !strcmp(path + n - 4, ".zst"))
		return TZA_Z_ZSTD;
	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		return TZA_Z_GZIP;
	return TZA_Z_NONE;
}

FILE *tza_zout_open(FILE *raw, enum tza_z z)
{
	if (z == TZA_Z_NONE)
		return raw;
	struct zout *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->raw = raw;
	c->z = z;
	int ok;
	if (z == TZA_Z_ZSTD) {
		c->zc = ZSTD_createCCtx();
		ok = c->zc &&
		     !ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, 3)) &&
		     !ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_checksumFlag, 1));
		if (!ok)
			ZSTD_freeCCtx(c->zc);
	} else {
		/* windowBits 15 + 16: a gzip header and trailer, not zlib's */
		ok = deflateInit2(&c->gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
	}
	FILE *f =
	    ok ? fopencookie(c, "w", (cookie_io_functions_t){.write = zwrite, .close = zclose})
	       : NULL;
	if (!f) {
		if (ok && z == TZA_Z_ZSTD)
			ZSTD_freeCCtx(c->zc);
		else if (ok)
			deflateEnd(&c->gz);
		free(c);
	}
	return f;
}
