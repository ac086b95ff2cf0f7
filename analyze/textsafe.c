// SPDX-License-Identifier: BSD-2-Clause
/* textsafe.c - trace bytes made safe for a terminal (textsafe.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "textsafe.h"

static const char hex[] = "0123456789abcdef";

/* the letter of a C0 control's short escape, or 0 (then \xNN) */
static char c0_letter(uint8_t c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\t': return 't';
	case '\n': return 'n';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\r': return 'r';
	case 0x1b: return 'e';
	default: return 0;
	}
}

#define SAFE_QUOTE 1 /* '"' escaped too */
#define SAFE_KEEP_BS 2 /* a backslash kept as it is (messages) */

/* the safe form of s[0..n) appended to l, as mode (SAFE_*) says */
static void safe_line(struct tza_line *l, const void *buf, size_t n, int mode)
{
	int quote = mode & SAFE_QUOTE, bs = mode & SAFE_KEEP_BS ? 0 : '\\';
	const uint8_t *s = buf;
	size_t i = 0;
	while (i < n) {
		size_t run = i; /* a run of bytes kept as they are */
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != bs &&
		       (!quote || s[run] != '"'))
			run++;
		tza_line_put(l, s + i, run - i);
		i = run;
		if (i == n)
			break;
		uint8_t c = s[i];
		if (c == '\\' && !bs) {
			tza_line_putc(l, '\\');
			i++;
		} else if (c == '\\' || c == '"') {
			tza_line_putc(l, '\\');
			tza_line_putc(l, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char e = c0_letter(c);
			char x[4] = {'\\', e ? e : 'x', hex[c >> 4], hex[c & 15]};
			tza_line_put(l, x, e ? 2 : 4);
			i++;
		} else { /* c >= 0x80 */
			int u = tza_utf8_len(s + i, n - i);
			if (!u) {
				char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
				tza_line_put(l, x, 4);
				i++;
			} else if (u == 2 && c == 0xc2 && s[i + 1] < 0xa0) { /* C1 */
				char x[6] = {'\\', 'u', '0', '0', hex[s[i + 1] >> 4],
					     hex[s[i + 1] & 15]};
				tza_line_put(l, x, 6);
				i += 2;
			} else {
				tza_line_put(l, s + i, (size_t)u);
				i += (size_t)u;
			}
		}
	}
}

void tza_safe_line(struct tza_line *l, const void *s, size_t n)
{
	safe_line(l, s, n, 0);
}

void tza_safe_line_quoted(struct tza_line *l, const void *s, size_t n)
{
	tza_line_putc(l, '"');
	safe_line(l, s, n, SAFE_QUOTE);
	tza_line_putc(l, '"');
}

static size_t cols_n(const void *buf, size_t n)
{
	const uint8_t *s = buf;
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += (s[i] & 0xc0) != 0x80;
	return c;
}

size_t tza_text_cols(const char *s)
{
	return s ? cols_n(s, strlen(s)) : 0;
}

int tza_safe_plain(const void *buf, size_t n)
{
	const uint8_t *s = buf;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
			return 0;
		if (s[i] >= 0x80) {
			int u = tza_utf8_len(s + i, n - i);
			if (!u || (u == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0))
				return 0;
			i += (size_t)u - 1;
		}
	}
	return 1;
}

size_t tza_safe_put(FILE *f, const void *s, size_t n)
{
	if (!n) /* s may be NULL then */
		return 0;
	if (tza_safe_plain(s, n)) { /* the common case: no copy */
		fwrite(s, 1, n, f);
		return cols_n(s, n);
	}
	struct tza_line l = {0};
	tza_safe_line(&l, s, n);
	tza_line_putc(&l, 0);
	size_t cols;
	if (l.err) {
		for (size_t i = 0; i < n; i++)
			fputc('?', f);
		cols = n;
	} else {
		fputs(l.p, f);
		cols = tza_text_cols(l.p);
	}
	tza_line_free(&l);
	return cols;
}

void tza_safe_quoted(FILE *f, const void *s, size_t n)
{
	struct tza_line l = {0};
	if (!n) { /* s may be NULL then (an empty blob) */
		fputs("\"\"", f);
		return;
	}
	if (tza_safe_plain(s, n) && !memchr(s, '"', n)) { /* the common case: no copy */
		fputc('"', f);
		fwrite(s, 1, n, f);
		fputc('"', f);
		return;
	}
	tza_safe_line_quoted(&l, s, n);
	if (l.err) /* out of memory: still safe */
		fputs("\"?\"", f);
	else
		tza_line_write(&l, f);
	tza_line_free(&l);
}

size_t tza_safe_puts(FILE *f, const char *s)
{
	return s ? tza_safe_put(f, s, strlen(s)) : 0;
}

char *tza_safe_dup(const char *s)
{
	struct tza_line l = {0};
	if (s)
		tza_safe_line(&l, s, strlen(s));
	tza_line_putc(&l, 0);
	if (l.err) {
		tza_line_free(&l);
		return NULL;
	}
	return l.p;
}

size_t tza_safe_cols(const char *s)
{
	char *d;
	size_t c;
	if (!s || tza_safe_plain(s, strlen(s)))
		return tza_text_cols(s);
	d = tza_safe_dup(s);
	c = d ? tza_text_cols(d) : strlen(s);
	free(d);
	return c;
}

const char *tza_safe_str(char *buf, size_t size, const char *s)
{
	struct tza_line l = {0};
	size_t n = s ? strlen(s) : 0;
	if (n < size && tza_safe_plain(s, n)) { /* the common case: no copy */
		memcpy(buf, s ? s : "", n + 1);
		return buf;
	}
	/* no more input than can show */
	tza_safe_line(&l, s, n < size ? n : size);
	if (l.err) {
		snprintf(buf, size, "?");
		tza_line_free(&l);
		return buf;
	}
	if (n < size && l.n < size) {
		memcpy(buf, l.p, l.n);
		buf[l.n] = 0;
	} else { /* cut on a character boundary, never inside an escape */
		size_t k = 0, room = size - 4;
		while (k < l.n) {
			size_t step = 1;
			uint8_t c = (uint8_t)l.p[k];
			if (c == '\\')
				step = l.p[k + 1] == 'x' ? 4 : l.p[k + 1] == 'u' ? 6 : 2;
			else if (c >= 0x80)
				step = (size_t)tza_utf8_len((const uint8_t *)l.p + k, l.n - k);
			if (!step)
				step = 1;
			if (k + step > room)
				break;
			k += step;
		}
		memcpy(buf, l.p, k);
		memcpy(buf + k, "...", 4);
	}
	tza_line_free(&l);
	return buf;
}

void tza_safe_msg(FILE *f, const char *s)
{
	struct tza_line l = {0};
	safe_line(&l, s, strlen(s), SAFE_KEEP_BS);
	if (l.err)
		fputs(s, f); /* out of memory: better the message than none */
	else
		tza_line_write(&l, f);
	tza_line_free(&l);
}
