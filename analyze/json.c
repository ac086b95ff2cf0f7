/* SPDX-License-Identifier: BSD-2-Clause */
/* json.c - JSON strings that stay valid whatever the bytes (see json.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int tza_utf8_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	if (c < 0x80)
		return 1;
	int len;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static const char hexd[] = "0123456789abcdef";

/* A byte JSON takes as it is: printable ASCII but the quote and the backslash */
static inline int json_plain(uint8_t c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

/*
 * The JSON form of the bytes at s (len >= 1, s[0] not json_plain) into
 * out (6 bytes at the most), its length into *outn; returns how many bytes
 * of s it stands for. A quote or backslash, \b \t \n \f \r as such; other
 * controls and DEL as \u00XX; a C1 control (UTF-8 c2 80..c2 9f) as \u00XX,
 * never raw on a terminal; valid UTF-8 as it is; a byte that starts no valid
 * UTF-8 as \udcXX (Python's surrogateescape).
 */
static size_t json_esc(const uint8_t *s, size_t len, char *out, size_t *outn)
{
	static const char short_esc[0x20] = {
	    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r'};
	const char *pre = "\\u00";
	uint8_t c = s[0], x = c;
	size_t took = 1;
	if (c == '"' || c == '\\' || (c < 0x20 && short_esc[c])) {
		out[0] = '\\';
		out[1] = c < 0x20 ? short_esc[c] : (char)c;
		*outn = 2;
		return 1;
	}
	if (c >= 0x80) {
		int n = tza_utf8_len(s, len);
		if (n == 2 && c == 0xc2 && s[1] < 0xa0) {
			x = s[1];
			took = 2;
		} else if (n > 0) {
			memcpy(out, s, (size_t)n);
			*outn = (size_t)n;
			return (size_t)n;
		} else {
			pre = "\\udc";
		}
	}
	memcpy(out, pre, 4);
	out[4] = hexd[x >> 4];
	out[5] = hexd[x & 15];
	*outn = 6;
	return took;
}

void tza_json_str(FILE *f, const void *buf, size_t len)
{
	const uint8_t *s = buf;
	size_t i = 0;
	fputc('"', f);
	while (i < len) {
		size_t j = i;
		while (j < len && json_plain(s[j]))
			j++;
		if (j > i) {
			fwrite(s + i, 1, j - i, f);
			i = j;
			continue;
		}
		char e[6];
		size_t en;
		i += json_esc(s + i, len - i, e, &en);
		fwrite(e, 1, en, f);
	}
	fputc('"', f);
}

void tza_json_cstr(FILE *f, const char *s)
{
	if (!s)
		fputs("null", f);
	else
		tza_json_str(f, s, strlen(s));
}

void tza_json_argv(FILE *f, const uint8_t *argv, uint32_t len)
{
	fputc('[', f);
	for (uint32_t i = 0, n; i < len; i += n + 1) {
		n = tza_argv_arglen(argv + i, len - i);
		if (i)
			fputc(',', f);
		tza_json_str(f, argv + i, n);
	}
	fputc(']', f);
}

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930"
				 "31323334353637383940414243444546474849505152535455565758596061"
				 "62636465666768697071727374757677787980818283848586878889909192"
				 "93949596979899";

size_t tza_fmt_u64(char *b, uint64_t v)
{
	char t[20];
	size_t i = sizeof(t), n;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		t[--i] = digits2[2 * r + 1];
		t[--i] = digits2[2 * r];
	}
	if (v >= 10) {
		t[--i] = digits2[2 * v + 1];
		t[--i] = digits2[2 * v];
	} else {
		t[--i] = (char)('0' + v);
	}
	n = sizeof(t) - i;
	for (size_t k = 0; k < n; k++)
		b[k] = t[i + k];
	return n;
}

size_t tza_fmt_i64(char *b, int64_t v)
{
	if (v >= 0)
		return tza_fmt_u64(b, (uint64_t)v);
	b[0] = '-';
	return 1 + tza_fmt_u64(b + 1, (uint64_t)(-(v + 1)) + 1);
}

static const uint64_t pow10_tab[10] = {1,      10,      100,      1000,      10000,
				       100000, 1000000, 10000000, 100000000, 1000000000};

/*
 * printf("%.*f", d, v) for finite |v| < 2^63, d 0..9: |v| = m / 2^sh
 * exactly (m the mantissa, from the bits), so the fraction's digits are
 * frac(|v|) * 10^d rounded half to even in 128-bit integers, as glibc
 * rounds the exact value. Returns the length, or -1 for what it does not
 * handle (the caller asks snprintf).
 */
static int fixed_fmt(char *b, double v, int d)
{
	if (d < 0 || d > 9)
		return -1;
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	int neg = (int)(bits >> 63);
	unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t m = bits & ((1ULL << 52) - 1);
	if (ex == 0x7ff || ex >= 1023 + 63) /* not finite, or |v| >= 2^63 */
		return -1;
	int sh = ex ? 1075 - (int)ex : 1074; /* |v| = m * 2^-sh */
	if (ex)
		m |= 1ULL << 52;
	uint64_t p10 = pow10_tab[d], ip = 0, fr = 0;
	if (sh <= 0) {
		ip = m << -sh;
	} else if (sh < 128 && m) {
		uint64_t fb = m;
		if (sh < 64) {
			ip = m >> sh;
			fb = m & ((1ULL << sh) - 1);
		}
		unsigned __int128 x = (unsigned __int128)fb * p10;
		unsigned __int128 q = x >> sh, rem = x - (q << sh);
		unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
		/* the parity of the whole ip * 10^d + q: q's, or ip's when d is 0 */
		uint64_t odd = (d ? (uint64_t)q : ip) & 1;
		if (rem > half || (rem == half && odd))
			q++;
		fr = (uint64_t)q;
		if (fr == p10) { /* rounded up into the integer part */
			ip++;
			fr = 0;
		}
	} /* else below 2^-74 (or 0): rounds to 0 */
	size_t n = 0;
	if (neg)
		b[n++] = '-';
	n += tza_fmt_u64(b + n, ip);
	if (d) {
		b[n++] = '.';
		for (int i = d - 1; i >= 0; i--, fr /= 10)
			b[n + (size_t)i] = (char)('0' + fr % 10);
		n += (size_t)d;
	}
	return (int)n;
}

size_t tza_fmt_fixed(char *b, double v, int decimals)
{
	int n = fixed_fmt(b, v, decimals);
	if (n >= 0)
		return (size_t)n;
	/* huge or not finite: at most 40 bytes kept (callers never get here) */
	char t[400];
	int k = snprintf(t, sizeof(t), "%.*f", decimals, v);
	if (k < 0)
		k = 0;
	if (k > 40)
		k = 40;
	memcpy(b, t, (size_t)k);
	return (size_t)k;
}

/* seconds from ns, 9 decimals, trailing zeros trimmed; b: 32 bytes */
static size_t secs_fmt(char *b, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	size_t n = 0;
	if (ns < 0)
		b[n++] = '-';
	n += tza_fmt_u64(b + n, a / 1000000000ULL);
	uint32_t fr = (uint32_t)(a % 1000000000ULL);
	if (fr) {
		int digits = 9;
		while (fr % 10 == 0) {
			fr /= 10;
			digits--;
		}
		b[n++] = '.';
		for (int i = digits - 1; i >= 0; i--, fr /= 10)
			b[n + (size_t)i] = (char)('0' + fr % 10);
		n += (size_t)digits;
	}
	return n;
}

void tza_json_secs(FILE *f, int64_t ns)
{
	char b[32];
	fwrite(b, 1, secs_fmt(b, ns), f);
}

/* tza_json_num's text into b (48 bytes); -1: ask snprintf */
static int num_fmt(char *b, double v)
{
	if (!isfinite(v)) {
		b[0] = '0';
		return 1;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		return fixed_fmt(b, v, 0);
	int n = fixed_fmt(b, v, 6);
	if (n < 0)
		return -1;
	while (n > 0 && b[n - 1] == '0')
		n--;
	if (n > 0 && b[n - 1] == '.')
		n--;
	return n;
}

/* What num_fmt leaves: a finite |v| >= 2^63, always an integer (a double
 * from 2^53 on has no fraction), so the "%.6f" of the first form with its
 * zeros and point trimmed is "%.0f". */
static void num_slow(char *b, size_t size, double v)
{
	snprintf(b, size, "%.0f", v);
}

void tza_json_num(FILE *f, double v)
{
	char b[400];
	int n = num_fmt(b, v);
	if (n >= 0) {
		fwrite(b, 1, (size_t)n, f);
		return;
	}
	num_slow(b, sizeof(b), v);
	fputs(b, f);
}

/* ,"key": before a member's value */
static void json_key(FILE *f, const char *key) { fprintf(f, ",\"%s\":", key); }

void tza_json_key_secs(FILE *f, const char *key, int64_t ns)
{
	json_key(f, key);
	tza_json_secs(f, ns);
}

void tza_json_key_num(FILE *f, const char *key, double v)
{
	json_key(f, key);
	tza_json_num(f, v);
}

void tza_json_key_cstr(FILE *f, const char *key, const char *s)
{
	json_key(f, key);
	tza_json_cstr(f, s);
}

/* ------------------------------------------------------------ lines */

void tza_line_grow(struct tza_line *l, size_t more)
{
	if (l->err)
		return;
	size_t cap = l->cap ? l->cap : 512;
	while (cap - l->n < more) {
		if (cap > SIZE_MAX / 2) {
			l->err = 1;
			return;
		}
		cap *= 2;
	}
	if (cap == l->cap)
		return;
	char *p = realloc(l->p, cap);
	if (!p) {
		l->err = 1;
		return;
	}
	l->p = p;
	l->cap = cap;
}

void tza_line_puts(struct tza_line *l, const char *s)
{
	size_t n = strlen(s);
	if (tza_line_room(l, n))
		return;
	memcpy(l->p + l->n, s, n);
	l->n += n;
}

void tza_line_u64(struct tza_line *l, uint64_t v)
{
	if (tza_line_room(l, 20))
		return;
	l->n += tza_fmt_u64(l->p + l->n, v);
}

void tza_line_i64(struct tza_line *l, int64_t v)
{
	if (tza_line_room(l, 21))
		return;
	l->n += tza_fmt_i64(l->p + l->n, v);
}

void tza_line_fixed(struct tza_line *l, double v, int decimals)
{
	char b[400];
	int n = fixed_fmt(b, v, decimals);
	if (n < 0)
		n = snprintf(b, sizeof(b), "%.*f", decimals, v);
	if (n < 0)
		n = 0;
	tza_line_put(l, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

void tza_line_json_secs(struct tza_line *l, int64_t ns)
{
	if (tza_line_room(l, 32))
		return;
	l->n += secs_fmt(l->p + l->n, ns);
}

void tza_line_json_num(struct tza_line *l, double v)
{
	char b[400];
	int n = num_fmt(b, v);
	if (n >= 0) {
		tza_line_put(l, b, (size_t)n);
		return;
	}
	num_slow(b, sizeof(b), v);
	tza_line_puts(l, b);
}

void tza_line_json_str(struct tza_line *l, const void *buf, size_t len)
{
	const uint8_t *s = buf;
	size_t i = 0;
	/* worst case 6 bytes out per byte in, and the quotes */
	if (tza_line_room(l, 6 * len + 2))
		return;
	char *o = l->p + l->n;
	*o++ = '"';
	while (i < len) {
		if (json_plain(s[i])) {
			*o++ = (char)s[i++];
			continue;
		}
		size_t en;
		i += json_esc(s + i, len - i, o, &en);
		o += en;
	}
	*o++ = '"';
	l->n = (size_t)(o - l->p);
}

void tza_line_json_cstr(struct tza_line *l, const char *s)
{
	if (!s)
		tza_line_lit(l, "null");
	else
		tza_line_json_str(l, s, strlen(s));
}

void tza_line_json_argv(struct tza_line *l, const uint8_t *argv, uint32_t len)
{
	tza_line_putc(l, '[');
	for (uint32_t i = 0, n; i < len; i += n + 1) {
		n = tza_argv_arglen(argv + i, len - i);
		if (i)
			tza_line_putc(l, ',');
		tza_line_json_str(l, argv + i, n);
	}
	tza_line_putc(l, ']');
}

int tza_line_write(struct tza_line *l, FILE *f)
{
	int bad = l->err;
	if (l->n && fwrite(l->p, 1, l->n, f) != l->n)
		bad = 1;
	l->n = 0;
	l->err = 0;
	return bad ? -1 : 0;
}

void tza_line_free(struct tza_line *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
}
