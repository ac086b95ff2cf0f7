/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json.h - a small JSON writer for tracer-analyze's machine outputs
 * (--json, export jsonl/chrome). Output is valid JSON (RFC 8259) whatever
 * bytes a string holds.
 *
 * Byte strings (argv, paths) are written as JSON strings:
 *   - valid UTF-8 passes through unchanged (U+2028/U+2029 too);
 *   - '"' and '\\', the C0 controls, DEL and the C1 controls (U+0080..
 *     U+009F, which terminals obey) are escaped (\n, \t, ... or \u00XX):
 *     the same code points, never a raw control on a terminal;
 *   - every byte that is not part of a well-formed UTF-8 sequence (stray
 *     continuation bytes, overlong forms, surrogates encoded as UTF-8, code
 *     points above U+10FFFF, truncated sequences) is written as the lone
 *     low surrogate \uDCXX where XX is the byte (0x80..0xFF). This is
 *     Python's "surrogateescape" convention (PEP 383): it is lossless, since
 *     well-formed UTF-8 never encodes a surrogate, and
 *     json.loads(s).encode("utf-8", "surrogateescape") gives back the exact
 *     original bytes.
 */
#ifndef TRACER_JSON_H
#define TRACER_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Write buf[0..len) as a quoted JSON string (rules above). */
void tza_json_str(FILE *f, const void *buf, size_t len);
/* Same for a NUL-terminated string; NULL writes `null`. */
void tza_json_cstr(FILE *f, const char *s);
/*
 * argv bytes (NUL after each argument, possibly cut without a final NUL) as
 * a JSON array of strings. An empty argument is "" and kept.
 */
void tza_json_argv(FILE *f, const uint8_t *argv, uint32_t len);
/* The length of the argument at p in argv bytes (above), left bytes from p
 * to the end: up to its NUL, or all that is left when it was cut. The next
 * argument starts n + 1 bytes on. */
static inline uint32_t tza_argv_arglen(const uint8_t *p, uint32_t left)
{
	const uint8_t *e = memchr(p, 0, left);
	return e ? (uint32_t)(e - p) : left;
}
/* A number of seconds from ns, with 9 decimals, trailing zeros trimmed. */
void tza_json_secs(FILE *f, int64_t ns);
/* A member after an object's first: ,"key":SECONDS (tza_json_secs). key is
 * written as it is (a name of ours, nothing to escape). */
void tza_json_key_secs(FILE *f, const char *key, int64_t ns);
/* Likewise ,"key":NUMBER (tza_json_num) and ,"key":STRING (tza_json_cstr:
 * null for NULL). */
void tza_json_key_num(FILE *f, const char *key, double v);
void tza_json_key_cstr(FILE *f, const char *key, const char *s);
/* A finite double: integers plainly, else up to 6 decimals ("0" for NaN/inf). */
void tza_json_num(FILE *f, double v);

/*
 * Length of the well-formed UTF-8 sequence at s (1..4), or 0 when the byte at
 * s does not start one (used by the text quoting too). n is bytes available.
 */
int tza_utf8_len(const uint8_t *s, size_t n);

/*
 * v with `decimals` (0..9) digits after the point, exactly as printf's
 * "%.*f" writes it (the decimal value of the double, rounded half to even;
 * "-" for any negative value, -0.0 too), into b (at least 40 bytes); no
 * NUL. Returns the bytes written.
 */
size_t tza_fmt_fixed(char *b, double v, int decimals);
/* v in decimal into b (at least 20 / 21 bytes); no NUL. Returns the bytes. */
size_t tza_fmt_u64(char *b, uint64_t v);
size_t tza_fmt_i64(char *b, int64_t v);

/*
 * One output line built in memory and written whole (export writes one per
 * process instead of a stdio call per field). Appends cannot fail: out of
 * memory sets err, drops what follows and makes tza_line_write fail. Start
 * from {0}; tza_line_free releases the buffer.
 */
struct tza_line {
	char *p;
	size_t n, cap; /* bytes used, allocated */
	int err;       /* an allocation failed */
};

/* Make room for `more` bytes (sets err when it cannot). */
void tza_line_grow(struct tza_line *l, size_t more);
/* Room for `more` bytes after the used ones: 0, or -1 when it could not be
 * made (err set; the caller writes nothing). */
static inline int tza_line_room(struct tza_line *l, size_t more)
{
	if (l->cap - l->n >= more)
		return 0;
	tza_line_grow(l, more);
	return l->err ? -1 : 0;
}

static inline void tza_line_put(struct tza_line *l, const void *s, size_t n)
{
	if (tza_line_room(l, n))
		return;
	if (n) {
		char *d = l->p + l->n;
		for (size_t i = 0; i < n; i++) /* short pieces: no memcpy call */
			d[i] = ((const char *)s)[i];
		l->n += n;
	}
}
static inline void tza_line_putc(struct tza_line *l, char c)
{
	if (tza_line_room(l, 1))
		return;
	l->p[l->n++] = c;
}
/* A string literal (its size known at compile time). */
#define tza_line_lit(l, s) tza_line_put((l), (s), sizeof(s) - 1)
void tza_line_puts(struct tza_line *l, const char *s);
void tza_line_u64(struct tza_line *l, uint64_t v);
void tza_line_i64(struct tza_line *l, int64_t v);
/* printf("%.*f", decimals, v): tza_fmt_fixed */
void tza_line_fixed(struct tza_line *l, double v, int decimals);
/* The tza_json_* writers above, appending to a line (same bytes). */
void tza_line_json_str(struct tza_line *l, const void *buf, size_t len);
void tza_line_json_cstr(struct tza_line *l, const char *s);
void tza_line_json_argv(struct tza_line *l, const uint8_t *argv, uint32_t len);
void tza_line_json_secs(struct tza_line *l, int64_t ns);
void tza_line_json_num(struct tza_line *l, double v);
/* Write the line to f and empty it. Returns 0, or -1 when the line lost
 * bytes (err) or f failed. */
int tza_line_write(struct tza_line *l, FILE *f);
void tza_line_free(struct tza_line *l);

#endif /* TRACER_JSON_H */
