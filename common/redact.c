/* redact.c - shared secret patterns and in-place masking (redact.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

const char *const redact_default_patterns[] = {
	/* key=value and key:value secrets */
	"(pass(word|wd|phrase)?|secret|token|api[-_]?key|access[-_]?key|auth|credentials?|"
	"private[-_]?key)[=:]([^[:space:]&;,\"']+)",
	/* "--token VALUE" inside one string (sh -c '...'); see the flag rule for argv */
	"--?([[:alnum:]]+[-_.])*(pass(word|wd|phrase)?|secret|token|api[-_]?key|access[-_]?key|"
	"auth|key|credentials?)[[:space:]]+([^-[:space:]][^[:space:]]*)",
	/* credentials in URLs: scheme://user:PASSWORD@host */
	"://[^/:@[:space:]]+:([^/@[:space:]]+)@",
	/* user names in home directories */
	"/home/([^/[:space:]\"']+)",
	"/Users/([^/[:space:]\"']+)",
	/* well-known key and token shapes */
	"AKIA[0-9A-Z]{16}",
	"gh[pousr]_[A-Za-z0-9]{20,}",
	"xox[abprs]-[A-Za-z0-9-]{10,}",
	/* authorisation values: "Bearer X", "Authorization: X", "Authorization: Bearer X" */
	"(^|[^[:alnum:]])(bearer|basic|digest)[[:space:]]+([^[:space:]\"']+)",
	"authorization:[[:space:]]*((bearer|basic|digest|token)[[:space:]]+)?([^[:space:]\"']+)",
	"-----BEGIN [A-Z ]*PRIVATE KEY-----",
	NULL,
};

const char redact_secret_flag[] =
	"^--?([[:alnum:]]+[-_.])*(pass(word|wd|phrase)?|secret|token|api[-_]?key|access[-_]?key|"
	"auth|key|credentials?)$";

const char redact_secret_scheme[] = "^((proxy-)?authorization:?|bearer|basic|digest|token)$";

int redact_argv_init(struct redact_argv *ra)
{
	memset(ra, 0, sizeof(*ra));
	if (regcomp(&ra->flag, redact_secret_flag, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return -1;
	if (regcomp(&ra->scheme, redact_secret_scheme, REG_EXTENDED | REG_ICASE | REG_NOSUB)) {
		regfree(&ra->flag);
		return -1;
	}
	ra->ok = 1;
	return 0;
}

void redact_argv_free(struct redact_argv *ra)
{
	if (ra->ok) {
		regfree(&ra->flag);
		regfree(&ra->scheme);
	}
	ra->ok = 0;
}

int redact_argv_step(const struct redact_argv *ra, int *pending, const char *arg)
{
	if (!ra->ok)
		return 0;
	int scheme = !regexec(&ra->scheme, arg, 0, NULL, 0);
	if (*pending) {
		if (scheme) /* "Authorization:" "Bearer" X: the secret is X */
			return 0;
		*pending = 0;
		return *arg != 0;
	}
	if (scheme || !regexec(&ra->flag, arg, 0, NULL, 0))
		*pending = 1;
	return 0;
}

int redact_add(struct redact *rd, const char *pattern, char *why, size_t why_len)
{
	if (rd->n == REDACT_MAX) {
		if (why_len)
			snprintf(why, why_len, "more than %d patterns", REDACT_MAX);
		return -1;
	}
	int e = regcomp(&rd->re[rd->n], pattern, REG_EXTENDED | REG_ICASE);
	if (e) {
		if (why_len)
			regerror(e, &rd->re[rd->n], why, why_len);
		return -1;
	}
	rd->n++;
	return 0;
}

int redact_init(struct redact *rd)
{
	for (int i = 0; redact_default_patterns[i]; i++)
		if (redact_add(rd, redact_default_patterns[i], NULL, 0)) {
			redact_free(rd);
			return -1;
		}
	if (redact_argv_init(&rd->argv)) {
		redact_free(rd);
		return -1;
	}
	return 0;
}

void redact_free(struct redact *rd)
{
	for (size_t i = 0; i < rd->n; i++)
		regfree(&rd->re[i]);
	redact_argv_free(&rd->argv);
	rd->n = 0;
}

/* already masked (a --redact trace read again, or a bundle --redact copy's
 * placeholder): not a secret */
static int masked(const char *s, size_t n)
{
	if (n == sizeof(REDACT_PLACEHOLDER) - 1 && !memcmp(s, REDACT_PLACEHOLDER, n))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '*')
			return 0;
	return 1;
}

/* regexec() needs a terminated string: s[len] is saved and restored */
unsigned redact_mask(struct redact *rd, char *s, size_t len)
{
	unsigned hits = 0;
	char save = s[len];

	s[len] = 0;
	for (size_t i = 0; i < rd->n; i++) {
		regmatch_t pm[16];
		size_t ng = rd->re[i].re_nsub < 15 ? rd->re[i].re_nsub : 15;
		size_t off = 0;
		while (off < len && !regexec(&rd->re[i], s + off, ng + 1, pm, off ? REG_NOTBOL : 0)) {
			size_t ms = (size_t)pm[0].rm_so, me = (size_t)pm[0].rm_eo;
			size_t rs = ms, re = me;
			for (size_t g = ng; g >= 1; g--)
				if (pm[g].rm_so >= 0) {
					rs = (size_t)pm[g].rm_so;
					re = (size_t)pm[g].rm_eo;
					break;
				}
			if (me == ms) {
				off += ms + 1;
				continue;
			}
			if (!masked(s + off + rs, re - rs)) {
				memset(s + off + rs, '*', re - rs);
				hits++;
			}
			off += me;
		}
	}
	s[len] = save;
	rd->hits += hits;
	return hits;
}

unsigned redact_mask_blob(struct redact *rd, uint8_t *p, size_t len, int argv)
{
	unsigned hits = 0;
	int pending = 0;

	if (!len)
		return 0;
	if (!argv) {
		/* one byte past the blob may not be ours: mask a terminated copy */
		size_t n = strnlen((const char *)p, len);
		char *tmp = malloc(n + 1);
		if (!tmp)
			return 0;
		memcpy(tmp, p, n);
		tmp[n] = 0;
		hits = redact_mask(rd, tmp, n);
		memcpy(p, tmp, n);
		free(tmp);
		return hits;
	}
	for (size_t i = 0; i < len;) {
		size_t n = strnlen((const char *)p + i, len - i);
		/* a terminated copy: the last element may be unterminated */
		char *tmp = malloc(n + 1);
		if (!tmp)
			return hits;
		memcpy(tmp, p + i, n);
		tmp[n] = 0;
		if (redact_argv_step(&rd->argv, &pending, tmp)) {
			if (!masked(tmp, n)) {
				memset(p + i, '*', n);
				rd->hits++;
				hits++;
			}
		} else if (n) {
			hits += redact_mask(rd, tmp, n);
			memcpy(p + i, tmp, n);
		}
		free(tmp);
		i += n + 1;
	}
	return hits;
}

/* does p[0..n) start with the lowercase word w, ignoring case? */
static int starts_ci(const uint8_t *p, size_t n, const char *w)
{
	size_t i;

	for (i = 0; w[i]; i++)
		if (i >= n || tolower(p[i]) != w[i])
			return 0;
	return 1;
}

/*
 * The prefilter's words, one bit each; W_GH is "gh" + one of "pousr" (either
 * case, like the patterns, or NUL) + "_". Every word is 3 bytes or more, so any
 * occurrence covers an even position i with i + 1 in the word: there, the
 * byte pair is either its first two bytes (c0[p[i]] & c1[p[i + 1]]) or its
 * second and third (c1[p[i]] & c2[p[i + 1]]: it starts at i - 1). Testing
 * the pairs at even positions only, two table lookups each, ends most
 * argvs without a candidate; candidates are then checked in full.
 */
enum {
	W_PASS = 1 << 0, W_SECRET = 1 << 1, W_TOKEN = 1 << 2, W_KEY = 1 << 3, W_AUTH = 1 << 4,
	W_CRED = 1 << 5, W_AKIA = 1 << 6, W_XOX = 1 << 7, W_BEARER = 1 << 8, W_BASIC = 1 << 9,
	W_DIGEST = 1 << 10, W_BEGIN = 1 << 11, W_URL = 1 << 12, W_HOME = 1 << 13,
	W_USERS = 1 << 14, W_GH = 1 << 15,
};

static const char *const maybe_words[15] = {
	"pass", "secret", "token", "key", "auth", "cred", "akia", "xox", "bearer",
	"basic", "digest", "begin", "://", "/home/", "/users/",
};

/* c0, c1, c2: the words whose byte 0, 1, 2 is b (letters in either case) */
#define BOTH(c, v) [c] = (v), [(c) - 'a' + 'A'] = (v)
static const uint16_t maybe_c0[256] = {
	BOTH('p', W_PASS), BOTH('s', W_SECRET), BOTH('t', W_TOKEN), BOTH('k', W_KEY),
	BOTH('a', W_AUTH | W_AKIA), BOTH('c', W_CRED), BOTH('x', W_XOX),
	BOTH('b', W_BEARER | W_BASIC | W_BEGIN), BOTH('d', W_DIGEST), BOTH('g', W_GH),
	[':'] = W_URL, ['/'] = W_HOME | W_USERS,
};
static const uint16_t maybe_c1[256] = {
	BOTH('a', W_PASS | W_BASIC), BOTH('e', W_SECRET | W_KEY | W_BEARER | W_BEGIN),
	BOTH('o', W_TOKEN | W_XOX), BOTH('u', W_AUTH | W_USERS), BOTH('r', W_CRED),
	BOTH('k', W_AKIA), BOTH('i', W_DIGEST), BOTH('h', W_HOME | W_GH), ['/'] = W_URL,
};
static const uint16_t maybe_c2[256] = {
	BOTH('s', W_PASS | W_BASIC | W_USERS | W_GH), BOTH('c', W_SECRET), BOTH('k', W_TOKEN),
	BOTH('y', W_KEY), BOTH('t', W_AUTH), BOTH('e', W_CRED), BOTH('i', W_AKIA),
	BOTH('x', W_XOX), BOTH('a', W_BEARER), BOTH('g', W_DIGEST | W_BEGIN), ['/'] = W_URL,
	BOTH('o', W_HOME | W_GH), BOTH('p', W_GH), BOTH('u', W_GH), BOTH('r', W_GH), [0] = W_GH,
};
#undef BOTH

/* do the words of m start at p[q], within p[0..len)? */
static int maybe_at(const uint8_t *p, size_t len, size_t q, unsigned m)
{
	if ((m & W_GH) && q + 3 < len && tolower(p[q]) == 'g' && tolower(p[q + 1]) == 'h' &&
	    strchr("pousr", tolower(p[q + 2])) /* NUL too */ && p[q + 3] == '_')
		return 1;
	for (m &= ~(unsigned)W_GH; m; m &= m - 1)
		if (starts_ci(p + q, len - q, maybe_words[__builtin_ctz(m)]))
			return 1;
	return 0;
}

int redact_maybe(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2) {
		unsigned here = maybe_c0[p[i]] & maybe_c1[p[i + 1]];
		unsigned before = maybe_c1[p[i]] & maybe_c2[p[i + 1]];
		if (!(here | before))
			continue;
		/* the third byte of a word starting here, the first of one before */
		here = i + 2 < len ? here & maybe_c2[p[i + 2]] : 0;
		before = i ? before & maybe_c0[p[i - 1]] : 0;
		if (here && maybe_at(p, len, i, here))
			return 1;
		if (before && maybe_at(p, len, i - 1, before))
			return 1;
	}
	return 0;
}
