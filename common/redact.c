/* SPDX-License-Identifier: BSD-2-Clause */
/* redact.c - the one redaction engine (redact.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

/* ---------------------------------------------------------------- prefilter */

/*
 * The words, lowercase, every one of 3 bytes or more, that every pattern
 * and rule above needs one of (any case); "gh?_" is "gh" + one of "pousr" +
 * "_". Keep them in step with the patterns: test_redact.c checks that every
 * secret of its corpus passes.
 */
static const char *const maybe_words[] = {
	"pass",	 "pwd",	   "secret", "token", "key",	"auth",	  "cred",  "akia", "asia",
	"xox",    "bearer", "basic", "digest", "begin", "://",  "/home/",
	"/users/", "github_pat", "glpat", "slack", "eyj", "aiza", "k_live", "k_test", "sk-",
	"npm_",	 "pypi-",  "hf_",    "dckr_", "sg.",	"shp",	  ":aa",   "mysql", "mariadb",
	"gh?_",
};
#define NWORDS (sizeof(maybe_words) / sizeof(maybe_words[0]))

/*
 * Every word is 3 bytes or more, so any occurrence covers an even position
 * i with i + 1 in the word: there the byte pair is either its first two
 * bytes (c0[p[i]] & c1[p[i + 1]]) or its second and third (c1[p[i]] &
 * c2[p[i + 1]]: it starts at i - 1). Testing the pairs at even positions
 * only, two table lookups each, ends most argvs without a candidate;
 * candidates are then checked in full. The tables are built once.
 */
static uint64_t maybe_c[3][256];

static int word_byte(const char *w, size_t k, int c)
{
	if (w[k] == '?')
		return c && strchr("pousr", tolower(c)) != NULL;
	return tolower(c) == w[k];
}

__attribute__((constructor)) static void maybe_build(void)
{
	for (size_t w = 0; w < NWORDS; w++)
		for (size_t k = 0; k < 3; k++)
			for (int c = 0; c < 256; c++)
				if (word_byte(maybe_words[w], k, c))
					maybe_c[k][c] |= 1ull << w;
}

/* do the words of m start at p[q], within p[0..len)? */
static int maybe_at(const uint8_t *p, size_t len, size_t q, uint64_t m)
{
	for (; m; m &= m - 1) {
		const char *w = maybe_words[__builtin_ctzll(m)];
		size_t k;
		for (k = 0; w[k]; k++)
			if (q + k >= len || !word_byte(w, k, p[q + k]))
				break;
		if (!w[k])
			return 1;
	}
	return 0;
}

/* which words of m start at p[q], within p[0..len) */
static uint64_t words_at(const uint8_t *p, size_t len, size_t q, uint64_t m)
{
	uint64_t found = 0;

	for (; m; m &= m - 1)
		if (maybe_at(p, len, q, m & -m))
			found |= m & -m;
	return found;
}

/* every word in p[0..len), as a set (bit w: maybe_words[w]) */
static uint64_t word_set(const uint8_t *p, size_t len)
{
	uint64_t set = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint64_t here = maybe_c[0][p[i]] & maybe_c[1][p[i + 1]];
		uint64_t before = maybe_c[1][p[i]] & maybe_c[2][p[i + 1]];
		if (!(here | before))
			continue;
		here = i + 2 < len ? here & maybe_c[2][p[i + 2]] & ~set : 0;
		before = i ? before & maybe_c[0][p[i - 1]] & ~set : 0;
		if (here)
			set |= words_at(p, len, i, here);
		if (before)
			set |= words_at(p, len, i - 1, before);
	}
	return set;
}

/* the set of the space-separated words in list; 0 when one is unknown */
static uint64_t words_of(const char *list)
{
	uint64_t set = 0;

	while (*list) {
		size_t n = strcspn(list, " ");
		size_t w;
		for (w = 0; w < NWORDS; w++)
			if (strlen(maybe_words[w]) == n && !memcmp(maybe_words[w], list, n))
				break;
		if (w == NWORDS)
			return 0;
		set |= 1ull << w;
		list += n;
		list += strspn(list, " ");
	}
	return set;
}

int redact_maybe(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2) {
		uint64_t here = maybe_c[0][p[i]] & maybe_c[1][p[i + 1]];
		uint64_t before = maybe_c[1][p[i]] & maybe_c[2][p[i + 1]];
		if (!(here | before))
			continue;
		/* the third byte of a word starting here, the first of one before */
		here = i + 2 < len ? here & maybe_c[2][p[i + 2]] : 0;
		before = i ? before & maybe_c[0][p[i - 1]] : 0;
		if (here && maybe_at(p, len, i, here))
			return 1;
		if (before && maybe_at(p, len, i - 1, before))
			return 1;
	}
	return 0;
}

/*
 * Key names whose value is a secret. Glued: anything may come before the
 * word (PGPASSWORD, csrftoken, db_api_key). Separated: the word alone or
 * after a '-', '_' or '.' (pass, db-pass, auth); pwd and key only after one
 * (MYSQL_PWD, SSH_KEY; not PWD, monkey).
 */
#define KEY_GLUED                                                                          \
	"[[:alnum:]_.-]*(passw(or)?d|passphrase|secret|token|credentials?|sshpass|"        \
	"(api|access|private|secret|account|client|signing|encryption|master|session)[-_]?" \
	"key)"
#define KEY_SEP "([[:alnum:]]+[-_.])*(pass|auth)|([[:alnum:]]+[-_.])+(pwd|key)"
#define KEYNAME "(" KEY_GLUED "|" KEY_SEP ")"
/* an option name ending in a secret word */
#define FLAGWORD                                                                    \
	"--?([[:alnum:]]+[-_.])*(pass(word|wd|phrase)?|secret|token|api[-_]?key|" \
	"access[-_]?key|auth|key|credentials?)"

const struct redact_pattern redact_default_patterns[] = {
	/* key=value, key: value, "key": "value", key = 'value' */
	{"(^|[^[:alnum:]])" KEYNAME "\\\\?[\"']?[[:space:]]*[=:][[:space:]]*"
	 "(\\\\?\"(@([^\"\\\\]|\\\\.)*)|'(@[^']*)|(@[^[:space:]&;,\"'}]+))",
	 1, "password=x, MYSQL_PWD=x, {\"api_key\": \"x\"}, token = 'x'", "pass pwd secret token key auth cred"},
	/* "--token VALUE" inside one string (sh -c '...', text files) */
	{"(^|[^[:alnum:]-])" FLAGWORD "[[:space:]]+"
	 "(\"(@[^\"]*)|'(@[^']*)|(@[^-[:space:]\"'][^[:space:]]*))",
	 1, "--db-password x", "pass secret token key auth cred"},
	{"[[:alpha:]][[:alnum:]+.-]*://[^/:@[:space:]]*:(@[^/[:space:]]+)@", 1,
	 "https://user:x@host", "://"},
	{"/home/(@[^/[:space:]\"']+)", 1, "/home/alice", "/home/"},
	{"/Users/(@[^/[:space:]\"']+)", 1, "/Users/alice", "/users/"},
	/* well-known token shapes, case as issued */
	{"(AKIA|ASIA)[0-9A-Z]{16}", 0, "AWS access key id", "akia asia"},
	{"gh[pousr]_[A-Za-z0-9]{20,}", 0, "GitHub token ghp_", "gh?_"},
	{"github_pat_[A-Za-z0-9_]{20,}", 0, "GitHub fine-grained token", "github_pat"},
	{"glpat-[A-Za-z0-9_-]{20,}", 0, "GitLab token", "glpat"},
	{"xox[abcprse]-[A-Za-z0-9-]{10,}", 0, "Slack token", "xox"},
	{"hooks\\.slack\\.com/services/(@[A-Za-z0-9/_-]+)", 0, "Slack webhook", "slack"},
	{"eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*", 0, "JWT", "eyj"},
	{"AIza[0-9A-Za-z_-]{35}", 0, "Google API key", "aiza"},
	{"[sr]k_(live|test)_[0-9A-Za-z]{10,}", 0, "Stripe secret key", "k_live k_test"},
	{"(^|[^[:alnum:]])(@sk-[A-Za-z0-9_-]{20,})", 0, "OpenAI/Anthropic key sk-", "sk-"},
	{"npm_[A-Za-z0-9]{36}", 0, "npm token", "npm_"},
	{"pypi-[A-Za-z0-9_-]{50,}", 0, "PyPI token", "pypi-"},
	{"hf_[A-Za-z0-9]{30,}", 0, "Hugging Face token", "hf_"},
	{"dckr_pat_[A-Za-z0-9_-]{20,}", 0, "Docker Hub token", "dckr_"},
	{"SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}", 0, "SendGrid key", "sg."},
	{"shp(at|ca|pa|ss)_[a-fA-F0-9]{32}", 0, "Shopify token", "shp"},
	{"[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}", 0, "Telegram bot token", ":aa"},
	{"AGE-SECRET-KEY-1[0-9A-Z]{50,}", 0, "age secret key", "secret"},
	{"key-[0-9a-f]{32}", 0, "Mailgun key", "key"},
	{"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----[A-Za-z0-9+/=[:space:]]*", 0,
	 "PEM private key, header and body", "begin"},
	/* authorisation values */
	{"(^|[^[:alnum:]])bearer[[:space:]]+(@[^[:space:]\"']+)", 1, "Bearer x", "bearer"},
	{"(^|[^[:alnum:]])Basic[[:space:]]+(@[A-Za-z0-9+/]{8,}={0,2})", 0, "Basic dXNlcjpwdw==", "basic"},
	{"authorization:[[:space:]]*((bearer|basic|digest|token)[[:space:]]+)?(@[^[:space:]\"']+)",
	 1, "Authorization: x", "auth"},
	/* programs whose -p is a password */
	{"(^|[/[:space:]])(mysql[a-z]*|mariadb[a-z-]*)[[:space:]]([^;|&]*[[:space:]])?-p"
	 "(@[^[:space:];|&]+)",
	 0, "mysql -u root -px", "mysql mariadb"},
	{"(^|[/[:space:]])sshpass[[:space:]]([^;|&]*[[:space:]])?-p[[:space:]]*"
	 "(@[^-[:space:];|&][^[:space:];|&]*)",
	 0, "sshpass -p x", "pass"},
	{NULL, 0, NULL, NULL},
};

const char redact_secret_flag[] = "^" FLAGWORD "$";

const char redact_secret_scheme[] = "^((proxy-)?authorization:?|bearer|basic|digest|token)$";

/* an argument --KEY=value or KEY=value: everything after '=' */
static const char secret_kv[] = "^-{0,2}" KEYNAME "=";

/* The beginning of a token at the end of a string that may have been cut
 * (case-sensitive; the whole match is masked). */
static const char tail_re[] =
	"((AKIA|ASIA)[0-9A-Z]*|gh[pousr]_[A-Za-z0-9]*|github_pat_[A-Za-z0-9_]*|"
	"glpat-[A-Za-z0-9_-]*|xox[abcprse]-[A-Za-z0-9-]*|eyJ[A-Za-z0-9_.-]{4,}|"
	"AIza[0-9A-Za-z_-]*|[sr]k_(live|test)_[0-9A-Za-z]*|(^|[^[:alnum:]])sk-[A-Za-z0-9_-]{4,}|"
	"npm_[A-Za-z0-9]{4,}|pypi-[A-Za-z0-9_-]{4,}|hf_[A-Za-z0-9]{4,}|dckr_pat_[A-Za-z0-9_-]*|"
	"SG\\.[A-Za-z0-9_.-]{4,}|shp(at|ca|pa|ss)_[a-fA-F0-9]*|AGE-SECRET-KEY-1[0-9A-Z]*|"
	"://[^/:@[:space:]]*:[^/@[:space:]]*|-----BEGIN [A-Z0-9 ]*PRIVATE[A-Z ]*-*"
	"[A-Za-z0-9+/=[:space:]]*)$";

/* Copy the built-in pattern src to dst without its "(@" markers; *groups
 * gets the marked groups. Bracket expressions and escapes are skipped. */
static void unmark(const char *src, char *dst, size_t cap, uint32_t *groups)
{
	size_t o = 0;
	unsigned g = 0;

	*groups = 0;
	for (const char *s = src; *s && o + 2 < cap; s++) {
		if (*s == '\\' && s[1]) {
			dst[o++] = *s++;
			dst[o++] = *s;
			continue;
		}
		if (*s == '[') {
			const char *e = s + 1;
			if (*e == '^')
				e++;
			if (*e == ']')
				e++;
			while (*e && *e != ']') {
				if (*e == '[' && (e[1] == ':' || e[1] == '.' || e[1] == '=')) {
					const char *c = strchr(e + 2, e[1]);
					e = c && c[1] == ']' ? c + 2 : e + 1;
				} else {
					e++;
				}
			}
			while (s < e && o + 2 < cap)
				dst[o++] = *s++;
			if (*s)
				dst[o++] = *s;
			else
				s--;
			continue;
		}
		if (*s == '(') {
			g++;
			dst[o++] = '(';
			if (s[1] == '@') {
				if (g < 32)
					*groups |= 1u << g;
				s++;
			}
			continue;
		}
		dst[o++] = *s;
	}
	dst[o] = 0;
}

void redact_print_patterns(FILE *f, const char *indent)
{
	for (int i = 0; redact_default_patterns[i].re; i++)
		fprintf(f, "%s%s   (%s%s)\n", indent, redact_default_patterns[i].re,
			redact_default_patterns[i].catches,
			redact_default_patterns[i].icase ? "; any case" : "");
	fprintf(f, "%sin an argv (any case): the argument after one matching %s\n", indent,
		redact_secret_flag);
	fprintf(f, "%s  or %s;\n%s  after '=' in an argument matching %s;\n", indent,
		redact_secret_scheme, indent, secret_kv);
	fprintf(f, "%s  -pX after mysql/mariadb, -pX and -p X after sshpass\n", indent);
}

int redact_argv_init(struct redact_argv *ra)
{
	memset(ra, 0, sizeof(*ra));
	if (regcomp(&ra->flag, redact_secret_flag, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return -1;
	if (regcomp(&ra->scheme, redact_secret_scheme, REG_EXTENDED | REG_ICASE | REG_NOSUB)) {
		regfree(&ra->flag);
		return -1;
	}
	if (regcomp(&ra->kv, secret_kv, REG_EXTENDED | REG_ICASE)) {
		regfree(&ra->flag);
		regfree(&ra->scheme);
		return -1;
	}
	ra->wkey = words_of("pass pwd secret token key auth cred");
	ra->wscheme = words_of("auth bearer basic digest token");
	ra->ok = 1;
	return 0;
}

void redact_argv_free(struct redact_argv *ra)
{
	if (ra->ok) {
		regfree(&ra->flag);
		regfree(&ra->scheme);
		regfree(&ra->kv);
	}
	ra->ok = 0;
}

enum { PROG_MYSQL = 1, PROG_SSHPASS = 2 };

/* mysql, mysqldump, mariadb-dump...: -pX is a password; sshpass: -p X too */
static int password_prog(const char *arg)
{
	const char *b = strrchr(arg, '/');
	const char *rest;

	b = b ? b + 1 : arg;
	if (!strcmp(b, "sshpass"))
		return PROG_SSHPASS;
	if (!strncmp(b, "mysql", 5))
		rest = b + 5;
	else if (!strncmp(b, "mariadb", 7))
		rest = b + 7;
	else
		return 0;
	for (; *rest; rest++)
		if (!islower((unsigned char)*rest) && *rest != '-')
			return 0;
	return PROG_MYSQL;
}

int redact_argv_step(const struct redact_argv *ra, struct redact_argv_state *st, const char *arg,
		     size_t len)
{
	regmatch_t m;
	int prog;

	st->idx++;
	if (!ra->ok)
		return -1;
	uint64_t w = word_set((const uint8_t *)arg, len);
	int scheme = (w & ra->wscheme) && !regexec(&ra->scheme, arg, 0, NULL, 0);
	if (st->pending) {
		if (scheme) /* "Authorization:" "Bearer" X: the secret is X */
			return -1;
		st->pending = 0;
		return len ? 0 : -1;
	}
	if ((prog = password_prog(arg))) {
		st->prog = (uint8_t)prog;
		return -1;
	}
	if (st->prog && arg[0] == '-' && arg[1] == 'p') {
		if (len > 2)
			return 2;
		if (st->prog == PROG_SSHPASS)
			st->pending = 1;
		return -1;
	}
	if (scheme) {
		st->pending = 1;
		return -1;
	}
	if (!(w & ra->wkey))
		return -1;
	if (!regexec(&ra->flag, arg, 0, NULL, 0)) {
		st->pending = 1;
		return -1;
	}
	if (!regexec(&ra->kv, arg, 1, &m, 0) && (size_t)m.rm_eo < len)
		return (int)m.rm_eo;
	return -1;
}

static int compile(struct redact *rd, const char *re, int icase, uint32_t groups, int last,
		   uint64_t need)
{
	int e = regcomp(&rd->re[rd->n].re, re, REG_EXTENDED | (icase ? REG_ICASE : 0));
	if (e)
		return e;
	rd->re[rd->n].need = need;
	rd->added += !need;
	rd->re[rd->n].groups = groups;
	rd->re[rd->n].last = last;
	rd->n++;
	return 0;
}

int redact_add(struct redact *rd, const char *pattern, char *why, size_t why_len)
{
	if (rd->n == REDACT_MAX) {
		if (why_len)
			snprintf(why, why_len, "more than %d patterns", REDACT_MAX);
		return -1;
	}
	int e = compile(rd, pattern, 1, 0, 1, 0);
	if (e) {
		if (why_len)
			regerror(e, &rd->re[rd->n].re, why, why_len);
		return -1;
	}
	return 0;
}

int redact_init(struct redact *rd)
{
	char b[1024];
	uint32_t g;

	for (int i = 0; redact_default_patterns[i].re; i++) {
		const struct redact_pattern *d = &redact_default_patterns[i];
		uint64_t need = words_of(d->words);
		unmark(d->re, b, sizeof(b), &g);
		if (!need || rd->n == REDACT_MAX || compile(rd, b, d->icase, g, 0, need)) {
			redact_free(rd);
			return -1;
		}
	}
	if (regcomp(&rd->tail, tail_re, REG_EXTENDED)) {
		redact_free(rd);
		return -1;
	}
	rd->tail_ok = 1;
	if (redact_argv_init(&rd->argv)) {
		redact_free(rd);
		return -1;
	}
	return 0;
}

void redact_free(struct redact *rd)
{
	for (size_t i = 0; i < rd->n; i++)
		regfree(&rd->re[i].re);
	if (rd->tail_ok)
		regfree(&rd->tail);
	rd->tail_ok = 0;
	redact_argv_free(&rd->argv);
	rd->n = 0;
	rd->added = 0;
	rd->ncomm = rd->comm_next = 0;
}

/* already masked (a run of '*', or an older bundle's "<redacted>"): not a
 * secret */
static int masked(const char *s, size_t n)
{
	static const char old[] = "<redacted>";

	if (n == sizeof(old) - 1 && !memcmp(s, old, n))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '*')
			return 0;
	return 1;
}

/* mask s[a..b) unless it is masked already; 1 when it was not */
static int mask_range(char *s, size_t a, size_t b)
{
	if (b <= a || masked(s + a, b - a))
		return 0;
	memset(s + a, '*', b - a);
	return 1;
}

/* one pattern over s (terminated at len); returns the matches masked */
static unsigned mask_re(const struct redact_re *r, char *s, size_t len)
{
	regmatch_t pm[32];
	size_t ng = r->re.re_nsub < 31 ? r->re.re_nsub : 31;
	size_t off = 0;
	unsigned hits = 0;

	while (off < len && !regexec(&r->re, s + off, ng + 1, pm, off ? REG_NOTBOL : 0)) {
		size_t ms = (size_t)pm[0].rm_so, me = (size_t)pm[0].rm_eo;
		int hit = 0;

		if (me == ms) {
			off += ms + 1;
			continue;
		}
		if (r->last) {
			size_t g = ng;
			while (g >= 1 && pm[g].rm_so < 0)
				g--;
			hit = mask_range(s + off, (size_t)pm[g].rm_so, (size_t)pm[g].rm_eo);
		} else if (!r->groups) {
			hit = mask_range(s + off, ms, me);
		} else {
			for (size_t g = 1; g <= ng; g++)
				if ((r->groups >> g & 1) && pm[g].rm_so >= 0)
					hit |= mask_range(s + off, (size_t)pm[g].rm_so,
							  (size_t)pm[g].rm_eo);
		}
		hits += (unsigned)hit;
		off += me;
	}
	return hits;
}

unsigned redact_mask(struct redact *rd, char *s, size_t len)
{
	unsigned hits = 0;
	char save = s[len];
	uint64_t w = word_set((const uint8_t *)s, len);

	s[len] = 0;
	for (size_t i = 0; i < rd->n; i++)
		if (!rd->re[i].need || (rd->re[i].need & w))
			hits += mask_re(&rd->re[i], s, len);
	s[len] = save;
	rd->hits += hits;
	return hits;
}

/* the beginning of a token at the end of s[0..len) (terminated), masked */
static unsigned mask_tail(struct redact *rd, char *s, size_t len)
{
	regmatch_t m;

	if (!rd->tail_ok || !len || regexec(&rd->tail, s, 1, &m, 0))
		return 0;
	if (!mask_range(s, (size_t)m.rm_so, (size_t)m.rm_eo))
		return 0;
	rd->hits++;
	return 1;
}

/* Mask p[0..n) (NUL-free) as text, through a terminated copy; with tail,
 * also a token beginning at its end. */
static unsigned mask_piece(struct redact *rd, uint8_t *p, size_t n, int tail)
{
	char small[512];
	char *tmp = n < sizeof(small) ? small : malloc(n + 1);
	unsigned hits;

	if (!tmp)
		return 0;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	hits = redact_mask(rd, tmp, n);
	if (tail)
		hits += mask_tail(rd, tmp, n);
	memcpy(p, tmp, n);
	if (tmp != small)
		free(tmp);
	return hits;
}

static unsigned mask_argv(struct redact *rd, uint8_t *p, size_t len, int cut)
{
	struct redact_argv_state st = {0};
	unsigned hits = 0;

	for (size_t i = 0; i < len;) {
		size_t n = strnlen((const char *)p + i, len - i);
		char small[512];
		char *tmp = n < sizeof(small) ? small : malloc(n + 1);
		if (!tmp)
			return hits;
		memcpy(tmp, p + i, n);
		tmp[n] = 0;
		int off = redact_argv_step(&rd->argv, &st, tmp, n);
		if (off >= 0 && mask_range((char *)p + i, (size_t)off, n)) {
			rd->hits++;
			hits++;
		}
		if (tmp != small)
			free(tmp);
		if (n)
			hits += mask_piece(rd, p + i, n, cut && i + n >= len);
		i += n + 1;
	}
	return hits;
}

/* every NUL-separated piece of p[0..len) as text */
static unsigned mask_pieces(struct redact *rd, uint8_t *p, size_t len, int cut)
{
	unsigned hits = 0;

	for (size_t i = 0; i < len;) {
		size_t n = strnlen((const char *)p + i, len - i);
		if (n)
			hits += mask_piece(rd, p + i, n, cut && i + n >= len);
		i += n + 1;
	}
	return hits;
}

unsigned redact_mask_blob(struct redact *rd, uint8_t *p, size_t len, int argv)
{
	return argv ? mask_argv(rd, p, len, 0) : mask_pieces(rd, p, len, 0);
}

/* ---------------------------------------------------------------- records */

/* may p[0..len) hold a secret: a prefilter word, or added patterns */
static int worth(const struct redact *rd, const uint8_t *p, size_t len)
{
	return rd->added || redact_maybe(p, len);
}

/* a basename a comm may be the beginning of, before and after masking */
struct comm_src {
	const uint8_t *now; /* in the string, masked in place */
	char orig[REDACT_COMM_SIZE];
	size_t n;
};

static void src_add(struct comm_src *src, size_t *nsrc, const uint8_t *p, size_t len)
{
	size_t n = strnlen((const char *)p, len);
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (p[i] == '/')
			b = p + i + 1;
	n -= (size_t)(b - p);
	if (!n)
		return;
	src[*nsrc].now = b;
	src[*nsrc].n = n < REDACT_COMM_SIZE ? n : REDACT_COMM_SIZE;
	memcpy(src[*nsrc].orig, b, src[*nsrc].n);
	(*nsrc)++;
}

static void comm_learn(struct redact *rd, const char *orig, const char *now)
{
	unsigned k;

	for (k = 0; k < rd->ncomm; k++)
		if (!memcmp(rd->comm[k].orig, orig, REDACT_COMM_SIZE))
			break;
	if (k == rd->ncomm) {
		if (rd->ncomm < REDACT_COMMS) {
			rd->ncomm++;
		} else {
			k = rd->comm_next;
			rd->comm_next = (rd->comm_next + 1) % REDACT_COMMS;
		}
	}
	memcpy(rd->comm[k].orig, orig, REDACT_COMM_SIZE);
	memcpy(rd->comm[k].masked, now, REDACT_COMM_SIZE);
}

/* one comm array p[0..size): its first REDACT_COMM_SIZE - 1 bytes count */
static unsigned mask_comm(struct redact *rd, uint8_t *p, size_t size, const struct comm_src *src,
			  size_t nsrc)
{
	char orig[REDACT_COMM_SIZE] = {0}, tmp[REDACT_COMM_SIZE] = {0};
	size_t n = strnlen((const char *)p, size);
	unsigned hits = 0;

	if (n > REDACT_COMM_SIZE - 1)
		n = REDACT_COMM_SIZE - 1;
	if (!n || (!nsrc && !rd->ncomm && !worth(rd, p, n)))
		return 0;
	memcpy(orig, p, n);
	memcpy(tmp, p, n);
	/* the bytes masked in the basename this comm is the beginning of */
	for (size_t s = 0; s < nsrc; s++)
		if (n <= src[s].n && !memcmp(tmp, src[s].orig, n))
			for (size_t i = 0; i < n; i++)
				if (src[s].now[i] != (uint8_t)src[s].orig[i])
					tmp[i] = '*';
	/* the mask of an equal comm masked before */
	for (unsigned k = 0; k < rd->ncomm; k++)
		if (!memcmp(rd->comm[k].orig, orig, REDACT_COMM_SIZE)) {
			for (size_t i = 0; i < n; i++)
				if (rd->comm[k].masked[i] != orig[i])
					tmp[i] = '*';
			break;
		}
	if (worth(rd, (const uint8_t *)tmp, n)) {
		hits += redact_mask(rd, tmp, n);
		if (n == REDACT_COMM_SIZE - 1) /* full: the kernel may have cut it */
			hits += mask_tail(rd, tmp, n);
	}
	if (memcmp(tmp, orig, n)) {
		if (!hits) {
			hits = 1;
			rd->hits++;
		}
		memcpy(p, tmp, n);
		comm_learn(rd, orig, tmp);
	}
	return hits;
}

unsigned redact_strs(struct redact *rd, struct redact_str *s, size_t n)
{
	struct comm_src src[8];
	size_t nsrc = 0;
	unsigned hits = 0;

	for (size_t i = 0; i < n; i++) {
		if (!s[i].p || !s[i].len || s[i].kind == REDACT_COMM)
			continue;
		if (!worth(rd, s[i].p, s[i].len))
			continue;
		/* only a string that may be masked can mask a comm */
		if (nsrc < 8 && (s[i].kind == REDACT_PATH || s[i].kind == REDACT_ARGV))
			src_add(src, &nsrc, s[i].p, s[i].len);
		if (s[i].kind == REDACT_ARGV)
			hits += mask_argv(rd, s[i].p, s[i].len, s[i].cut);
		else
			hits += mask_pieces(rd, s[i].p, s[i].len, s[i].cut);
	}
	for (size_t i = 0; i < n; i++)
		if (s[i].p && s[i].len && s[i].kind == REDACT_COMM)
			hits += mask_comm(rd, s[i].p, s[i].len, src, nsrc);
	return hits;
}

