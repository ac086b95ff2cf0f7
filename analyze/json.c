/* json.c - JSON strings that stay valid whatever the bytes (see json.h). */
#include <math.h>
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

void tza_json_str(FILE *f, const void *buf, size_t len)
{
	const uint8_t *s = buf;
	size_t i = 0;
	fputc('"', f);
	while (i < len) {
		uint8_t c = s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			size_t j = i + 1;
			while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
				j++;
			fwrite(s + i, 1, j - i, f);
			i = j;
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (c < 0x20) {
				fprintf(f, "\\u%04x", c);
			} else {
				int n = tza_utf8_len(s + i, len - i);
				if (n == 0) {
					fprintf(f, "\\udc%02x", c);
				} else {
					fwrite(s + i, 1, (size_t)n, f);
					i += (size_t)n;
					continue;
				}
			}
		}
		i++;
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
	uint32_t i = 0;
	int first = 1;
	fputc('[', f);
	while (i < len) {
		const uint8_t *e = memchr(argv + i, 0, len - i);
		uint32_t n = e ? (uint32_t)(e - (argv + i)) : len - i;
		if (!first)
			fputc(',', f);
		first = 0;
		tza_json_str(f, argv + i, n);
		i += n + 1;
	}
	fputc(']', f);
}

void tza_json_secs(FILE *f, int64_t ns)
{
	char b[48];
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	int n = snprintf(b, sizeof(b), "%s%llu.%09llu", ns < 0 ? "-" : "",
			 (unsigned long long)(a / 1000000000ULL),
			 (unsigned long long)(a % 1000000000ULL));
	while (n > 0 && b[n - 1] == '0')
		b[--n] = 0;
	if (n > 0 && b[n - 1] == '.')
		b[--n] = 0;
	fputs(b, f);
}

void tza_json_num(FILE *f, double v)
{
	if (!isfinite(v)) {
		fputs("0", f);
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		fprintf(f, "%.0f", v);
		return;
	}
	char b[64];
	snprintf(b, sizeof(b), "%.6f", v);
	size_t n = strlen(b);
	while (n > 0 && b[n - 1] == '0')
		b[--n] = 0;
	if (n > 0 && b[n - 1] == '.')
		b[--n] = 0;
	fputs(b, f);
}
