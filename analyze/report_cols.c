/* SPDX-License-Identifier: BSD-2-Clause */
/* report_cols.c - the report's processes by column, numbers in binary (report_cols.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/strmap.h"
#include "common/vec.h"
#include "json.h"
#include "report_cols.h"

void tza_put_json_lt(FILE *f, const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		size_t k = lt ? (size_t)(lt - s) : (size_t)(end - s);
		fwrite(s, 1, k, f);
		if (!lt)
			break;
		fputs("\\u003c", f);
		s = lt + 1;
	}
}

void tza_report_put_js(FILE *f, const char *js, size_t n, int hosts)
{
	static const char open[] = "/*HOSTS{*/", close[] = "/*}HOSTS*/";
	const char *s = js, *end = js + n;
	while (!hosts && s < end) {
		const char *a = memmem(s, (size_t)(end - s), open, sizeof(open) - 1);
		const char *b = a ? memmem(a, (size_t)(end - a), close, sizeof(close) - 1) : NULL;
		if (!b)
			break;
		b += sizeof(close) - 1;
		if (b < end && *b == '\n') /* a part on lines of its own: the lines */
			b++;
		while (a > s && (a[-1] == '\t' || a[-1] == ' '))
			a--;
		fwrite(s, 1, (size_t)(a - s), f);
		s = b;
	}
	fwrite(s, 1, (size_t)(end - s), f);
}

/* ------------------------------------------------------------ buffer */

static int bb_room(struct tza_bbuf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int bb_put(struct tza_bbuf *b, const void *s, size_t n)
{
	if (!n) /* b->p may still be NULL: memcpy must not see it */
		return 0;
	if (bb_room(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/* zeros up to a multiple of 8; the offset there, or -1 out of memory */
static long long bb_align(struct tza_bbuf *b)
{
	static const unsigned char z[8];
	if (bb_put(b, z, (8 - b->len % 8) % 8) < 0)
		return -1;
	return (long long)b->len;
}

/* v as `bytes` little-endian bytes */
static int bb_le(struct tza_bbuf *b, uint64_t v, int bytes)
{
	unsigned char q[8];
	for (int i = 0; i < bytes; i++)
		q[i] = (unsigned char)(v >> (8 * i));
	return bb_put(b, q, (size_t)bytes);
}

/* ------------------------------------------------------------ columns */

/* How a key is stored: NUM (numbers: u32, i32 or f64 of m, value m /
 * 10^D), ID (a "PID.NS" string as two numbers), LISTS (argv: lists of
 * strings in one UTF-8 text), SHARED (in the shared objects, few distinct),
 * INDEX (an index into the distinct values' JSON). NUM and ID fall back to
 * the values' JSON, LISTS to INDEX, when a value does not fit. */
enum { NUM, ID, LISTS, SHARED, INDEX };
static const struct {
	const char *key;
	int how;
} proc_cols[] = {
	{"id", ID},	       {"parent_id", ID},     {"pid", NUM},	     {"start_s", NUM},
	{"end_s", NUM},	       {"realtime_s", NUM},   {"exe", SHARED},	     {"argv", LISTS},
	{"tool", SHARED},      {"exit_code", SHARED}, {"signal", SHARED},    {"core_dumped", SHARED},
	{"utime_s", NUM},      {"stime_s", NUM},      {"peak_rss_kib", NUM}, {"read_bytes", NUM},
	{"write_bytes", NUM},  {"oom_killed", SHARED}, {"killed_by", SHARED}, {"samples", INDEX},
	{"exit_lost", SHARED}, {"peak_rss_sampled", SHARED},
	/* a run over several hosts only (after NCOL_ONE): each row's host */
	{"host", INDEX},       {"trace_uuid", INDEX},
};
enum { NCOL = sizeof(proc_cols) / sizeof(proc_cols[0]), NCOL_ONE = NCOL - 2 };

/* A value's JSON text in export's output. */
struct span {
	const char *s;
	size_t n;
};

static int is_null(const struct span *v)
{
	return v->n == 4 && !memcmp(v->s, "null", 4);
}

/* Length of the JSON value at s (at most n bytes; well formed): a string,
 * an object/array with its nesting, or a scalar up to ',' '}' or ']'. */
static size_t json_value_len(const char *s, size_t n)
{
	size_t i = 0;
	int depth = 0, in_str = 0;
	for (; i < n; i++) {
		char ch = s[i];
		if (in_str) {
			if (ch == '\\') {
				i++;
			} else if (ch == '"') {
				in_str = 0;
				if (depth == 0)
					return i + 1;
			}
			continue;
		}
		if (ch == '"')
			in_str = 1;
		else if (ch == '{' || ch == '[')
			depth++;
		else if (ch == '}' || ch == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (ch == ',' && depth == 0)
			return i;
	}
	return i;
}

/* Distinct values by their text, in order of first use: copies in v[],
 * indexed by map. */
struct dict {
	struct strmap map;
	uint32_t ndist, cap;
	struct span *v; /* [ndist]: the copies, by index */
};

/* strmap_eq over the copies (ctx: the dict) */
static int dict_eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	const struct dict *d = ctx;
	return d->v[idx].n == n && !memcmp(d->v[idx].s, s, n);
}

/* The index of s[0..n) in d, added when new; -1 out of memory. */
static long dict_intern(struct dict *d, const char *s, size_t n)
{
	char *copy;
	int added;
	if (VEC_ROOM(d->v, d->ndist, d->cap, 32))
		return -1;
	int64_t i = strmap_intern(&d->map, s, n, dict_eq, d, &added);
	if (i < 0 || !added)
		return (long)i;
	if (!(copy = malloc(n ? n : 1)))
		return -1;
	memcpy(copy, s, n);
	d->v[d->ndist++] = (struct span){copy, n};
	return (long)i;
}

static void dict_free(struct dict *d)
{
	for (uint32_t i = 0; i < d->ndist; i++)
		free((char *)d->v[i].s);
	free(d->v);
	strmap_free(&d->map);
}

/* "values":[the distinct values' JSON] */
static void put_values(FILE *f, const struct dict *d)
{
	fputs("\"values\":[", f);
	for (uint32_t i = 0; i < d->ndist; i++) {
		if (i)
			fputc(',', f);
		tza_put_json_lt(f, d->v[i].s, d->v[i].n);
	}
	fputc(']', f);
}

/* A null flag a row (u8: 1 null) when any value of v[] is null: ",\"nulls\":OFF";
 * nothing when none; -1 out of memory. */
static int put_nulls(FILE *f, struct tza_bbuf *b, const struct span *v, size_t n)
{
	size_t i = 0;
	while (i < n && !is_null(&v[i]))
		i++;
	if (i == n)
		return 0;
	long long off = bb_align(b);
	if (off < 0 || bb_room(b, n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		b->p[b->len++] = is_null(&v[i]) ? 1 : 0;
	fprintf(f, ",\"nulls\":%lld", off);
	return 0;
}

#define P53 (1ull << 53)

/* The types an array is stored in: the narrowest that holds its elements. */
enum { U8, I8, U16, I16, U32, I32, F64 };
static const char *const ty_name[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f64"};

/* the narrowest type holding x[0..n) (F64: every |x| below 2^53) */
static int narrowest(const int64_t *x, size_t n)
{
	int64_t lo = 0, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (lo >= 0)
		return hi <= UINT8_MAX ? U8 : hi <= UINT16_MAX ? U16 : hi <= UINT32_MAX ? U32 : F64;
	return lo >= INT8_MIN && hi <= INT8_MAX	    ? I8
	       : lo >= INT16_MIN && hi <= INT16_MAX ? I16
	       : lo >= INT32_MIN && hi <= INT32_MAX ? I32
						    : F64;
}

/* x[0..n) appended to b in their narrowest type (*ty), 8-byte aligned: the
 * offset, or -1 out of memory */
static long long put_typed(struct tza_bbuf *b, const int64_t *x, size_t n, int *ty)
{
	int size = (*ty = narrowest(x, n)) == F64 ? 8 : 1 << (*ty / 2);
	long long off = bb_align(b);
	if (off < 0 || bb_room(b, n * (size_t)size) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t u = (uint64_t)x[i];
		if (*ty == F64) {
			double d = (double)x[i]; /* exact: |x| < 2^53 */
			memcpy(&u, &d, 8);
		}
		bb_le(b, u, size); /* room made above */
	}
	return off;
}

/* x[0..n) by put_typed, as ,"NAME":OFFSET,"NAME_type":"T" to f; 0 or -1 */
static int put_named(FILE *f, struct tza_bbuf *b, const char *name, const int64_t *x, size_t n)
{
	int ty;
	long long off = put_typed(b, x, n, &ty);
	if (off < 0)
		return -1;
	fprintf(f, ",\"%s\":%lld,\"%s_type\":\"%s\"", name, off, name, ty_name[ty]);
	return 0;
}

/* m[0..n) (|m| < 2^53), or with delta the difference of each from the one
 * before (the first from itself: 0; the page starts from NAME_first), into x */
static void stored(const int64_t *m, size_t n, int delta, int64_t *x)
{
	for (size_t i = 0; i < n; i++)
		x[i] = !delta ? m[i] : i ? m[i] - m[i - 1] : 0;
}

/* zlib's level-1 size of the arrays m[0..na) stored with delta or not, in
 * x (scratch of n), or -1 out of memory */
static long long zsize(const int64_t *const *m, int na, size_t n, int delta, int64_t *x)
{
	struct tza_bbuf b = {0};
	long long r = -1;
	int ty;
	for (int k = 0; k < na; k++) {
		stored(m[k], n, delta, x);
		if (put_typed(&b, x, n, &ty) < 0)
			goto out;
	}
	uLongf cap = compressBound(b.len);
	unsigned char *z = malloc(cap);
	if (z && compress2(z, &cap, b.p ? b.p : (const unsigned char *)"", b.len, 1) == Z_OK)
		r = (long long)cap;
	free(z);
out:
	free(b.p);
	return r;
}

/* The end of a column's JSON: its arrays m[0..na) (n elements each, named
 * names[k]) into b by put_typed, as differences (,"delta":true and
 * ,"NAME_first":m[k][0],"NAME_values":"T", the narrowest type of m[k]) when every difference is
 * below 2^53 and they compress smaller so; its null flags (v[], or none)
 * and the closing brace. 0, or -1 out of memory. */
static int put_arrays(FILE *f, struct tza_bbuf *b, const char *const *names, const int64_t *const *m,
		      int na, size_t n, const struct span *v)
{
	int64_t *x = malloc((n ? n : 1) * sizeof(*x));
	int delta = 1, rc = -1;
	if (!x)
		return -1;
	for (int k = 0; k < na; k++)
		for (size_t i = 1; delta && i < n; i++)
			delta = (uint64_t)llabs(m[k][i] - m[k][i - 1]) < P53;
	if (delta) {
		long long zp = zsize(m, na, n, 0, x), zd = zp < 0 ? -1 : zsize(m, na, n, 1, x);
		if (zd < 0)
			goto out;
		delta = zd < zp;
	}
	for (int k = 0; k < na; k++) {
		stored(m[k], n, delta, x);
		if (put_named(f, b, names[k], x, n) < 0)
			goto out;
		if (delta && n) /* where the page's running sums start, and their type */
			fprintf(f, ",\"%s_first\":%lld,\"%s_values\":\"%s\"", names[k], (long long)m[k][0], names[k],
				ty_name[narrowest(m[k], n)]);
	}
	if (delta)
		fputs(",\"delta\":true", f);
	if (v && put_nulls(f, b, v, n) < 0)
		goto out;
	fputc('}', f);
	rc = 0;
out:
	free(x);
	return rc;
}

/* idx[0..n) as int64 (malloc'd), or NULL out of memory */
static int64_t *widen(const uint32_t *idx, size_t n)
{
	int64_t *m = malloc((n ? n : 1) * sizeof(*m));
	for (size_t i = 0; m && i < n; i++)
		m[i] = idx[i];
	return m;
}

/* A JSON number s[0..n) as m / 10^d: no exponent, at most 9 decimals,
 * |m| < 2^53, not -0; 0, or -1 when it does not fit. */
static int dec_parse(const char *s, size_t n, int64_t *m, int *d)
{
	size_t i = 0;
	int neg = 0, dot = 0, nd = 0, digits = 0;
	uint64_t x = 0;
	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	for (; i < n; i++) {
		if (s[i] == '.' && !dot && digits) {
			dot = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || x >= P53 / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
		digits++;
		nd += dot;
	}
	if (!digits || (dot && !nd) || nd > 9 || x >= P53 || (neg && !x))
		return -1;
	*m = neg ? -(int64_t)x : (int64_t)x;
	*d = nd;
	return 0;
}

static const int64_t pow10s[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				 100000000, 1000000000};

/* A NUM column: {"type":"num","array":"u32"|"i32"|"f64","decimals":D,
 * "offset":O[,"delta":true][,"nulls":O]}; 1 when a value does not fit
 * (nothing written), -1 out of memory. */
static int put_num(FILE *f, struct tza_bbuf *b, const struct span *v, size_t n)
{
	int64_t *m = malloc((n ? n : 1) * sizeof(*m));
	int *d = malloc((n ? n : 1) * sizeof(*d)), D = 0, rc = -1;
	if (!m || !d)
		goto out;
	rc = 1;
	for (size_t i = 0; i < n; i++) {
		if (is_null(&v[i])) { /* the value before: a difference of 0 */
			m[i] = i ? m[i - 1] : 0;
			d[i] = i ? d[i - 1] : 0;
		} else if (dec_parse(v[i].s, v[i].n, &m[i], &d[i]) < 0) {
			goto out;
		}
		if (d[i] > D)
			D = d[i];
	}
	for (size_t i = 0; i < n; i++) {
		int64_t k = pow10s[D - d[i]];
		if ((m[i] < 0 ? -m[i] : m[i]) >= (int64_t)(P53 / (uint64_t)k))
			goto out;
		m[i] *= k;
	}
	fprintf(f, "{\"type\":\"num\",\"decimals\":%d", D);
	rc = put_arrays(f, b, (const char *[]){"offset"}, (const int64_t *[]){m}, 1, n, v);
out:
	free(m);
	free(d);
	return rc;
}

/* s[*i..n) decimal digits, no leading zero but "0", below lim, into *x */
static int dec_digits(const char *s, size_t n, size_t *i, uint64_t lim, uint64_t *x)
{
	size_t a = *i;
	*x = 0;
	for (; *i < n && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
		if (*x >= lim / 10 + 1)
			return -1;
		*x = *x * 10 + (uint64_t)(s[*i] - '0');
	}
	if (*i == a || (s[a] == '0' && *i - a > 1) || *x >= lim)
		return -1;
	return 0;
}

/* An ID column: {"type":"id","pid":O (u32),"ns":O (f64, an integer)
 * [,"delta":true][,"nulls":O]}: the string PID "." NS; 1 when a value is
 * not such a string. */
static int put_id(FILE *f, struct tza_bbuf *b, const struct span *v, size_t n)
{
	int64_t *pid = malloc((n ? n : 1) * sizeof(*pid)), *ns = malloc((n ? n : 1) * sizeof(*ns));
	int rc = -1;
	if (!pid || !ns)
		goto out;
	rc = 1;
	for (size_t i = 0; i < n; i++) {
		const char *s = v[i].s;
		size_t k = 1, len = v[i].n;
		uint64_t p = i ? (uint64_t)pid[i - 1] : 0, q = i ? (uint64_t)ns[i - 1] : 0; /* null: as before */
		if (!is_null(&v[i]) &&
		    (len < 5 || s[0] != '"' || s[len - 1] != '"' || dec_digits(s, len - 1, &k, 1ull << 32, &p) < 0 ||
		     s[k++] != '.' || dec_digits(s, len - 1, &k, P53, &q) < 0 || k != len - 1))
			goto out;
		pid[i] = (int64_t)p;
		ns[i] = (int64_t)q;
	}
	fputs("{\"type\":\"id\"", f);
	rc = put_arrays(f, b, (const char *[]){"pid", "ns"}, (const int64_t *[]){pid, ns}, 2, n, v);
out:
	free(pid);
	free(ns);
	return rc;
}

/* The JSON string at s[0..n) (from its opening quote) appended to t as
 * UTF-8, *units its UTF-16 code units; the bytes it took, or 0 when it is
 * not one that fits (a lone surrogate, bytes not UTF-8), -1 out of memory. */
static long jstr_utf8(const char *s, size_t n, struct tza_bbuf *t, uint64_t *units)
{
	size_t i = 1;
	if (!n || s[0] != '"')
		return 0;
	while (i < n && s[i] != '"') {
		unsigned char c = (unsigned char)s[i];
		unsigned char q[4];
		size_t k = 0;
		if (c == '\\') {
			if (i + 1 >= n)
				return 0;
			char e = s[i + 1];
			const char *map = strchr("\"\\/bfnrt", e);
			if (map && e) {
				q[k++] = (unsigned char)"\"\\/\b\f\n\r\t"[map - "\"\\/bfnrt"];
				i += 2;
				(*units)++;
			} else if (e == 'u' && i + 6 <= n) {
				unsigned cp = 0;
				for (int j = 2; j < 6; j++) {
					char h = s[i + j];
					int x = h >= '0' && h <= '9'	 ? h - '0'
						: h >= 'a' && h <= 'f' ? h - 'a' + 10
						: h >= 'A' && h <= 'F' ? h - 'A' + 10
								       : -1;
					if (x < 0)
						return 0;
					cp = cp << 4 | (unsigned)x;
				}
				if (cp >= 0xd800 && cp < 0xe000) /* a surrogate: not export's */
					return 0;
				i += 6;
				(*units)++;
				if (cp < 0x80) {
					q[k++] = (unsigned char)cp;
				} else if (cp < 0x800) {
					q[k++] = (unsigned char)(0xc0 | cp >> 6);
					q[k++] = (unsigned char)(0x80 | (cp & 63));
				} else {
					q[k++] = (unsigned char)(0xe0 | cp >> 12);
					q[k++] = (unsigned char)(0x80 | (cp >> 6 & 63));
					q[k++] = (unsigned char)(0x80 | (cp & 63));
				}
			} else {
				return 0;
			}
			if (bb_put(t, q, k) < 0)
				return -1;
			continue;
		}
		int l = c < 0x80 ? 1 : tza_utf8_len((const uint8_t *)s + i, n - i);
		if (!l)
			return 0;
		if (bb_put(t, s + i, (size_t)l) < 0)
			return -1;
		*units += l == 4 ? 2 : 1;
		i += (size_t)l;
	}
	return i < n ? (long)(i + 1) : 0;
}

/* The distinct lists of strings of d as {"type":"lists",...} (report_cols.h,
 * docs); 1 when one is not a list of strings that fits. */
static int put_lists(FILE *f, struct tza_bbuf *b, const struct dict *d, const uint32_t *idx,
		     const struct span *v, size_t n)
{
	struct tza_bbuf t = {0}, se = {0}, le = {0};
	uint64_t units = 0, nstr = 0, u0, n0;
	int64_t *m = NULL;
	int rc = -1;
	for (uint32_t k = 0; k < d->ndist; k++) {
		const char *s = d->v[k].s;
		size_t len = d->v[k].n, i = 1;
		n0 = nstr;
		if (is_null(&d->v[k]))
			goto put_end;
		if (len < 2 || s[0] != '[') {
			rc = 1;
			goto out;
		}
		while (i < len && s[i] != ']') {
			u0 = units;
			long r = jstr_utf8(s + i, len - i, &t, &units);
			if (r <= 0 || units > UINT32_MAX) {
				rc = r < 0 ? -1 : 1;
				goto out;
			}
			nstr++;
			if (bb_put(&se, &(int64_t){(int64_t)(units - u0)}, 8) < 0) /* lengths: they compress */
				goto out;
			i += (size_t)r;
			if (i < len && s[i] == ',')
				i++;
		}
	put_end:
		if (nstr > UINT32_MAX) {
			rc = 1;
			goto out;
		}
		if (bb_put(&le, &(int64_t){(int64_t)(nstr - n0)}, 8) < 0)
			goto out;
	}
	long long ot = bb_align(b);
	if (ot < 0 || bb_put(b, t.p, t.len) < 0 || !(m = widen(idx, n)))
		goto out;
	fprintf(f, "{\"type\":\"lists\",\"lists\":%u,\"strings\":%llu,\"text\":%lld,\"text_bytes\":%zu", d->ndist,
		(unsigned long long)nstr, ot, t.len);
	/* int64 lengths, from realloc: aligned */
	if (put_named(f, b, "list_lengths", (const int64_t *)(void *)le.p, d->ndist) < 0 ||
	    put_named(f, b, "string_lengths", (const int64_t *)(void *)se.p, (size_t)nstr) < 0)
		goto out;
	rc = put_arrays(f, b, (const char *[]){"index"}, (const int64_t *[]){m}, 1, n, v);
out:
	free(m);
	free(t.p);
	free(se.p);
	free(le.p);
	return rc;
}

/* {"type":"index","values":[...],"index":O[,"delta":true]}: u32 indices into
 * the distinct values; 0 or -1 out of memory */
static int put_index(FILE *f, struct tza_bbuf *b, const struct dict *d, const uint32_t *idx,
		     size_t n)
{
	int64_t *m = widen(idx, n);
	if (!m)
		return -1;
	fputs("{\"type\":\"index\",", f);
	put_values(f, d);
	int rc = put_arrays(f, b, (const char *[]){"index"}, (const int64_t *[]){m}, 1, n, NULL);
	free(m);
	return rc;
}

/* {"type":"json","values":[the N values' JSON]} */
static void put_json_col(FILE *f, const struct span *v, size_t n)
{
	fputs("{\"type\":\"json\",\"values\":[", f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		tza_put_json_lt(f, v[i].s, v[i].n);
	}
	fputs("]}", f);
}

/* Split one jsonl object s[0..n) into val[] (a key it lacks: null) and its
 * SHARED keys' object into sh (scratch, grown); that object's length, or
 * -1 out of memory. */
static long split_proc(const char *s, size_t n, struct span *val, char **sh, size_t *shcap)
{
	size_t i = 1, shlen = 0; /* after '{' */
	for (int k = 0; k < NCOL; k++)
		val[k] = (struct span){"null", 4};
	while (i < n && s[i] == '"') {
		const char *key = s + i + 1, *q = memchr(key, '"', n - i - 1);
		if (!q || (size_t)(q - s) + 2 > n)
			break;
		size_t klen = (size_t)(q - key), vo = (size_t)(q - s) + 2; /* after ':' */
		size_t vl = json_value_len(s + vo, n - vo);
		for (int k = 0; k < NCOL; k++)
			if (proc_cols[k].key[0] == key[0] && !strncmp(proc_cols[k].key, key, klen) &&
			    !proc_cols[k].key[klen]) {
				val[k] = (struct span){s + vo, vl};
				break;
			}
		i = vo + vl + 1; /* past ',' */
	}
	for (int k = 0; k < NCOL; k++) {
		if (proc_cols[k].how != SHARED)
			continue;
		size_t kn = strlen(proc_cols[k].key);
		if (shlen + kn + val[k].n + 8 > *shcap) { /* {"KEY":V or ,"KEY":V and } */
			size_t cap = 2 * (shlen + kn + val[k].n + 8);
			char *p = realloc(*sh, cap);
			if (!p)
				return -1;
			*sh = p;
			*shcap = cap;
		}
		shlen += (size_t)sprintf(*sh + shlen, "%c\"%s\":", shlen ? ',' : '{', proc_cols[k].key);
		memcpy(*sh + shlen, val[k].s, val[k].n);
		shlen += val[k].n;
	}
	(*sh)[shlen++] = '}';
	return (long)shlen;
}

int tza_report_procs(FILE *f, struct tza_bbuf *bin, const char *jsonl, size_t len, int hosts)
{
	struct span *v[NCOL] = {0}, row[NCOL];
	struct dict dict[NCOL] = {0}, shared = {0}; /* LISTS and INDEX: distinct values */
	uint32_t *ix[NCOL] = {0}, *si = NULL;	    /* and each row's index there */
	char *sh = NULL;
	size_t shcap = 0, n = 0, cap = 0;
	int rc = -1;
	const char *s = jsonl, *end = jsonl + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (k) {
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				for (int c = 0; c < NCOL; c++) {
					struct span *p = realloc(v[c], cap * sizeof(*p));
					uint32_t *q = p ? realloc(ix[c], cap * sizeof(*q)) : NULL;
					if (p)
						v[c] = p;
					if (!q)
						goto out;
					ix[c] = q;
				}
				uint32_t *b = realloc(si, cap * sizeof(*b));
				if (!b)
					goto out;
				si = b;
			}
			long shl = split_proc(s, k, row, &sh, &shcap), x;
			if (shl < 0 || (x = dict_intern(&shared, sh, (size_t)shl)) < 0)
				goto out;
			si[n] = (uint32_t)x;
			for (int c = 0; c < NCOL; c++) {
				v[c][n] = row[c];
				int how = proc_cols[c].how;
				if (how != LISTS && how != INDEX)
					continue;
				if ((x = dict_intern(&dict[c], row[c].s, row[c].n)) < 0)
					goto out;
				ix[c][n] = (uint32_t)x;
			}
			n++;
		}
		s += k + 1;
	}
	fprintf(f, "{\"count\":%zu,\"columns\":{", n);
	for (int c = 0, first = 1; c < NCOL; c++) {
		int how = proc_cols[c].how, r = 1;
		if (how == SHARED || (!hosts && c >= NCOL_ONE))
			continue;
		fprintf(f, "%s\n\"%s\":", first ? "" : ",", proc_cols[c].key);
		first = 0;
		if (how == NUM)
			r = put_num(f, bin, v[c], n);
		else if (how == ID)
			r = put_id(f, bin, v[c], n);
		else if (how == LISTS)
			r = put_lists(f, bin, &dict[c], ix[c], v[c], n);
		if (r > 0 && (how == LISTS || how == INDEX))
			r = put_index(f, bin, &dict[c], ix[c], n);
		if (r < 0)
			goto out;
		if (r > 0)
			put_json_col(f, v[c], n);
	}
	fputs(",\n\"shared\":", f);
	if (put_index(f, bin, &shared, si, n) < 0)
		goto out;
	fputs("}}", f);
	rc = bb_align(bin) < 0 ? -1 : 0;
out:
	for (int c = 0; c < NCOL; c++) {
		free(v[c]);
		free(ix[c]);
		dict_free(&dict[c]);
	}
	free(si);
	free(sh);
	dict_free(&shared);
	return rc;
}
