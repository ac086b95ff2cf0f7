/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * zout.h - a compressed output stream: a stdio FILE whose bytes reach
 * another FILE as one zstd frame (libzstd) or one gzip member (zlib), for
 * writers whose output other tools read compressed (export -o run.jsonl.zst).
 */
#ifndef TZA_ZOUT_H
#define TZA_ZOUT_H

#include <stdio.h>

enum tza_z {
	TZA_Z_NONE = 0,
	TZA_Z_ZSTD, /* RFC 8878 frame, level 3, content checksum */
	TZA_Z_GZIP, /* RFC 1952 member, zlib level 6 */
};

/* The compression a file name asks for: ".zst" zstd, ".gz" gzip, else none. */
enum tza_z tza_z_of_name(const char *path);

/*
 * A FILE (write only) that compresses what is written to it into raw, which
 * it takes: fclose of the result ends the stream (the zstd epilogue or the
 * gzip trailer) and fcloses raw (only fflushes it when raw is stdout).
 * Errors of the compressor or of raw set the result's error flag (ferror)
 * and make its fclose return EOF. z TZA_Z_NONE returns raw itself. NULL
 * when out of memory (raw is then not closed).
 */
FILE *tza_zout_open(FILE *raw, enum tza_z z);

#endif
