/* SPDX-License-Identifier: BSD-2-Clause */
/* report_cols.c - the report's processes by column, numbers in binary (report_cols.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
 * JSON (the values' text). Each but SHARED falls back to JSON (LISTS to an
 * index into its distinct values' JSON) when a value does not fit. */
enum { NUM, ID, LISTS, SHARED, JSON };
static const struct {
	const char *key;
	int how;
} proc_cols[] = {
	{"id", ID},	       {"parent_id", ID},     {"pid", NUM},	     {"start_s", NUM},
	{"end_s", NUM},	       {"realtime_s", NUM},   {"exe", SHARED},	     {"argv", LISTS},
	{"tool", SHARED},      {"exit_code", SHARED}, {"signal", SHARED},    {"core_dumped", SHARED},
	{"utime_s", NUM},      {"stime_s", NUM},      {"peak_rss_kib", NUM}, {"read_bytes", NUM},
	{"write_bytes", NUM},  {"oom_killed", SHARED}, {"killed_by", SHARED}, {"samples", JSON},
	{"exit_lost", SHARED},
};
enum { NCOL = sizeof(proc_cols) / sizeof(proc_cols[0]) };

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

/* Distinct values by their text: an open-addressing hash of copies, in
 * order of first use in v[]. */
struct dict {
	struct slot {
		char *s;
		size_t n;
		uint32_t idx;
	} *ht;
	size_t cap;
	uint32_t ndist;
	struct span *v; /* [ndist]: the copies, by index */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The index of s[0..n) in d, added when new; -1 out of memory. */
static long dict_intern(struct dict *d, const char *s, size_t n)
{
	if (2 * ((size_t)d->ndist + 1) > d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct slot *ht = calloc(cap, sizeof(*ht));
		struct span *v = realloc(d->v, cap / 2 * sizeof(*v));
		if (!ht || !v) {
			free(ht);
			if (v)
				d->v = v;
			return -1;
		}
		d->v = v;
		for (size_t i = 0; i < d->cap; i++) {
			if (!d->ht[i].s)
				continue;
			size_t j = hash_bytes(d->ht[i].s, d->ht[i].n) & (cap - 1);
			while (ht[j].s)
				j = (j + 1) & (cap - 1);
			ht[j] = d->ht[i];
		}
		free(d->ht);
		d->ht = ht;
		d->cap = cap;
	}
	size_t j = hash_bytes(s, n) & (d->cap - 1);
	for (; d->ht[j].s; j = (j + 1) & (d->cap - 1))
		if (d->ht[j].n == n && !memcmp(d->ht[j].s, s, n))
			return d->ht[j].idx;
	if (!(d->ht[j].s = malloc(n ? n : 1)))
		return -1;
	memcpy(d->ht[j].s, s, n);
	d->ht[j].n = n;
	d->ht[j].idx = d->ndist;
	d->v[d->ndist] = (struct span){d->ht[j].s, n};
	return (long)d->ndist++;
}

static void dict_free(struct dict *d)
{
	for (size_t i = 0; i < d->cap; i++)
		free(d->ht[i].s);
	free(d->ht);
	free(d->v);
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

/* idx[0..n) as a u32 array; its offset, or -1 */
static long long put_u32s(struct tza_bbuf *b, const uint32_t *idx, size_t n)
{
	long long off = bb_align(b);
	for (size_t i = 0; off >= 0 && i < n; i++)
		if (bb_le(b, idx[i], 4) < 0)
			return -1;
	return off;
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

/* A NUM column: {"type":"num","array":"u32"|"i32"|"f64","offset":O,
 * "decimals":D[,"nulls":O]}; 1 when a value does not fit (nothing
 * written), -1 out of memory. */
static int put_num(FILE *f, struct tza_bbuf *b, const struct span *v, size_t n)
{
	int64_t *m = malloc((n ? n : 1) * sizeof(*m)), lo = 0, hi = 0;
	int *d = malloc((n ? n : 1) * sizeof(*d)), D = 0, rc = -1;
	if (!m || !d)
		goto out;
	rc = 1;
	for (size_t i = 0; i < n; i++) {
		if (is_null(&v[i])) {
			m[i] = 0;
			d[i] = 0;
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
		if (m[i] < lo)
			lo = m[i];
		if (m[i] > hi)
			hi = m[i];
	}
	const char *ty = lo >= 0 && hi <= UINT32_MAX		 ? "u32"
			 : lo >= INT32_MIN && hi <= INT32_MAX ? "i32"
							      : "f64";
	rc = -1;
	long long off = bb_align(b);
	if (off < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		int e;
		if (ty[0] == 'f') {
			double x = (double)m[i]; /* exact: |m| < 2^53 */
			memcpy(&u, &x, 8);
			e = bb_le(b, u, 8);
		} else {
			e = bb_le(b, (uint64_t)m[i], 4);
		}
		if (e < 0)
			goto out;
	}
	fprintf(f, "{\"type\":\"num\",\"array\":\"%s\",\"offset\":%lld,\"decimals\":%d", ty, off, D);
	if (put_nulls(f, b, v, n) < 0)
		goto out;
	fputc('}', f);
	rc = 0;
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

/* An ID column: {"type":"id","pid":O (u32),"ns":O (f64, an integer)[,"nulls":O]}:
 * the string PID "." NS; 1 when a value is not such a string. */
static int put_id(FILE *f, struct tza_bbuf *b, const struct span *v, size_t n)
{
	uint64_t *pid = malloc((n ? n : 1) * sizeof(*pid)), *ns = malloc((n ? n : 1) * sizeof(*ns));
	int rc = -1;
	if (!pid || !ns)
		goto out;
	rc = 1;
	for (size_t i = 0; i < n; i++) {
		const char *s = v[i].s;
		size_t k = 1, len = v[i].n;
		pid[i] = ns[i] = 0;
		if (is_null(&v[i]))
			continue;
		if (len < 5 || s[0] != '"' || s[len - 1] != '"' ||
		    dec_digits(s, len - 1, &k, 1ull << 32, &pid[i]) < 0 || s[k++] != '.' ||
		    dec_digits(s, len - 1, &k, P53, &ns[i]) < 0 || k != len - 1)
			goto out;
	}
	rc = -1;
	long long op = bb_align(b);
	for (size_t i = 0; op >= 0 && i < n; i++)
		if (bb_le(b, pid[i], 4) < 0)
			goto out;
	long long on = op < 0 ? -1 : bb_align(b);
	for (size_t i = 0; on >= 0 && i < n; i++) {
		double x = (double)ns[i];
		uint64_t u;
		memcpy(&u, &x, 8);
		if (bb_le(b, u, 8) < 0)
			goto out;
	}
	if (on < 0)
		goto out;
	fprintf(f, "{\"type\":\"id\",\"pid\":%lld,\"ns\":%lld", op, on);
	if (put_nulls(f, b, v, n) < 0)
		goto out;
	fputc('}', f);
	rc = 0;
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
			if (bb_le(&se, units - u0, 4) < 0) /* lengths: they compress */
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
		if (bb_le(&le, nstr - n0, 4) < 0)
			goto out;
	}
	long long oi = put_u32s(b, idx, n), ol = oi < 0 ? -1 : bb_align(b);
	if (ol < 0 || bb_put(b, le.p, le.len) < 0)
		goto out;
	long long os = bb_align(b);
	if (os < 0 || bb_put(b, se.p, se.len) < 0)
		goto out;
	long long ot = bb_align(b);
	if (ot < 0 || bb_put(b, t.p, t.len) < 0)
		goto out;
	fprintf(f,
		"{\"type\":\"lists\",\"index\":%lld,\"lists\":%u,\"list_lengths\":%lld,"
		"\"strings\":%llu,\"string_lengths\":%lld,\"text\":%lld,\"text_bytes\":%zu",
		oi, d->ndist, ol, (unsigned long long)nstr, os, ot, t.len);
	if (put_nulls(f, b, v, n) < 0)
		goto out;
	fputc('}', f);
	rc = 0;
out:
	free(t.p);
	free(se.p);
	free(le.p);
	return rc;
}

/* {"type":"index","index":O,"values":[...]}: u32 indices into the distinct values */
static int put_index(FILE *f, struct tza_bbuf *b, const struct dict *d, const uint32_t *idx,
		     size_t n)
{
	long long off = put_u32s(b, idx, n);
	if (off < 0)
		return -1;
	fprintf(f, "{\"type\":\"index\",\"index\":%lld,", off);
	put_values(f, d);
	fputc('}', f);
	return 0;
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

int tza_report_procs(FILE *f, struct tza_bbuf *bin, const char *jsonl, size_t len)
{
	struct span *v[NCOL] = {0}, row[NCOL];
	struct dict argv = {0}, shared = {0};
	uint32_t *ai = NULL, *si = NULL;
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
					if (!p)
						goto out;
					v[c] = p;
				}
				uint32_t *a = realloc(ai, cap * sizeof(*a)), *b = a ? realloc(si, cap * sizeof(*b)) : NULL;
				if (a)
					ai = a;
				if (!a || !b)
					goto out;
				si = b;
			}
			long shl = split_proc(s, k, row, &sh, &shcap), x, y;
			if (shl < 0 || (x = dict_intern(&shared, sh, (size_t)shl)) < 0)
				goto out;
			for (int c = 0; c < NCOL; c++)
				v[c][n] = row[c];
			if ((y = dict_intern(&argv, row[7].s, row[7].n)) < 0) /* proc_cols[7]: argv */
				goto out;
			si[n] = (uint32_t)x;
			ai[n] = (uint32_t)y;
			n++;
		}
		s += k + 1;
	}
	fprintf(f, "{\"count\":%zu,\"columns\":{", n);
	for (int c = 0, first = 1; c < NCOL; c++) {
		int how = proc_cols[c].how, r = 1;
		if (how == SHARED)
			continue;
		fprintf(f, "%s\n\"%s\":", first ? "" : ",", proc_cols[c].key);
		first = 0;
		if (how == NUM)
			r = put_num(f, bin, v[c], n);
		else if (how == ID)
			r = put_id(f, bin, v[c], n);
		else if (how == LISTS && (r = put_lists(f, bin, &argv, ai, v[c], n)) > 0)
			r = put_index(f, bin, &argv, ai, n);
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
	for (int c = 0; c < NCOL; c++)
		free(v[c]);
	free(ai);
	free(si);
	free(sh);
	dict_free(&argv);
	dict_free(&shared);
	return rc;
}
