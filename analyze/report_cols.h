/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_cols.h - the processes of `tracer-analyze report`'s page by column,
 * with their numbers and command lines in binary (report_version 4;
 * docs/plots-and-bundles.md, Data).
 *
 * The page's data is one buffer (gzip-compressed, then base64, by
 * cmd_report.c):
 *
 *   [u32 LE J][J bytes of JSON text][zeros to a multiple of 8][binary part]
 *
 * The JSON object holds summary, top, ... as before, and "processes", which
 * describes columns whose arrays lie in the binary part, at offsets (bytes,
 * from its start, multiples of 8) given in that JSON. tza_report_procs writes
 * that "processes" value and appends the arrays. Every number of a column is
 * export's JSON text turned into an integer m and a column-wide count of
 * decimals D, the value being m / 10^D: an integer divided by a power of ten
 * below 2^53 is the correctly rounded value of the decimal, as JSON.parse
 * gives it, so the page shows exactly what export wrote. A value that does
 * not fit (an exponent, more than 9 decimals, 2^53 or more) makes its column
 * fall back to JSON, byte for byte. Each array is stored in the narrowest
 * of u8, i8, u16, i16, u32, i32 and f64 that holds it, and a column's
 * arrays as differences from the row before ("delta") when zlib (level 1)
 * makes those smaller: the page reads fewer bytes and inflates less.
 */
#ifndef TRACER_REPORT_COLS_H
#define TRACER_REPORT_COLS_H

#include <stddef.h>
#include <stdio.h>

/* A growing byte buffer (the binary part); free(p) releases it. */
struct tza_bbuf {
	unsigned char *p;
	size_t len, cap;
};

/*
 * JSON text s[0..n) to f with every '<' written \u003c (the same character
 * to JSON), so no "</script>" or "<!--" inside a string can end or change
 * a <script> element.
 */
void tza_put_json_lt(FILE *f, const char *s, size_t n);

/*
 * The objects of `export --format jsonl --samples` (jsonl[0..n), one a
 * line, export's own output: well formed) as the "processes" value, written
 * to f, with their arrays appended to bin (8-byte aligned; offsets in the
 * JSON are from bin's start). Only the keys the page uses are kept. The
 * output depends on the input only (the same bytes for the same trace).
 * With hosts (a run over several hosts: export's rows with its fleet
 * columns) the columns "host" and "trace_uuid" are kept too, as indexes into
 * their distinct values (report_version 5); without it they are not written.
 * Returns 0, or -1 out of memory (f and bin then hold a partial value).
 */
int tza_report_procs(FILE *f, struct tza_bbuf *bin, const char *jsonl, size_t n, int hosts);

/*
 * The page's script js[0..n) to f: whole with hosts (a run over several
 * hosts); else without its parts for several hosts, each between the
 * comments "/" "*HOSTS{*" "/" and "/" "*}HOSTS*" "/": from the blanks before
 * the first marker to the newline after the second (a part on lines of its
 * own leaves no line behind), so one trace's page is byte for byte what it
 * was before those parts were written. An opening marker without its
 * closing one, and what follows it, is kept.
 */
void tza_report_put_js(FILE *f, const char *js, size_t n, int hosts);

#endif
