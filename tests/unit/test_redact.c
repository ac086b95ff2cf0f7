/* SPDX-License-Identifier: BSD-2-Clause */
/* test_redact.c - common/redact.c, the one redaction engine: the corpus of
 * secret shapes and look-alikes (tests/data/redact/corpus.tsv) as exec
 * records and as joined text, the comm rules, cut strings, the whole-argv
 * rules and the prefilter. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper.h"
#include "common/redact.h"

/* ------------------------------------------------------------ the corpus */

#define MAX_LINES 256
#define MAX_ARGS 16

struct line {
	char kind;		/* 'S' secret, 'L' look-alike */
	char *needle;		/* S: must vanish */
	char *arg[MAX_ARGS];	/* arg[0] is the program */
	int nargs;
};

static struct line lines[MAX_LINES];
static int nlines;

static void load_corpus(void)
{
	const char *dir = getenv("TESTS_DIR");
	char path[4096];
	char buf[4096];

	if (nlines)
		return;
	snprintf(path, sizeof(path), "%s/data/redact/corpus.tsv", dir && *dir ? dir : "tests");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		if (buf[0] == '#' || !buf[0])
			continue;
		assert_true(nlines < MAX_LINES);
		struct line *l = &lines[nlines++];
		char *save = NULL, *tok = strtok_r(buf, "\t", &save);
		l->kind = tok[0];
		l->needle = strdup(strtok_r(NULL, "\t", &save));
		while ((tok = strtok_r(NULL, "\t", &save)) && l->nargs < MAX_ARGS)
			l->arg[l->nargs++] = strdup(tok);
		assert_true(l->nargs >= 1);
	}
	fclose(f);
}

/* does the needle, or for a long one its first half (10 bytes at least),
 * occur in p? */
static int leaks(const uint8_t *p, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (n >= 12)
		n = n / 2 > 10 ? n / 2 : 10;
	return memmem(p, len, needle, n) != NULL;
}

/* An exec record of l (filename /tmp/bin/PROG, exe /usr/local/bin/PROG,
 * argv, comm) then an exit record (comm), through one engine. */
struct rec {
	uint8_t filename[256], exe[256], argv[2048], comm[16], exit_comm[16];
	size_t filename_len, exe_len, argv_len;
};

static void make_rec(const struct line *l, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->filename_len = (size_t)snprintf((char *)r->filename, sizeof(r->filename), "/tmp/bin/%s",
					   l->arg[0]);
	r->exe_len = (size_t)snprintf((char *)r->exe, sizeof(r->exe), "/usr/local/bin/%s", l->arg[0]);
	for (int i = 0; i < l->nargs; i++) {
		size_t n = strlen(l->arg[i]);
		assert_true(r->argv_len + n + 1 <= sizeof(r->argv));
		memcpy(r->argv + r->argv_len, l->arg[i], n + 1);
		r->argv_len += n + 1;
	}
	strncpy((char *)r->comm, l->arg[0], 15);
	memcpy(r->exit_comm, r->comm, 16);
}

static unsigned redact_rec(struct redact *rd, struct rec *r)
{
	struct redact_str s[] = {
		{r->filename, r->filename_len, REDACT_PATH, 0},
		{r->exe, r->exe_len, REDACT_PATH, 0},
		{r->argv, r->argv_len, REDACT_ARGV, 0},
		{r->comm, sizeof(r->comm), REDACT_COMM, 0},
	};
	struct redact_str x = {r->exit_comm, sizeof(r->exit_comm), REDACT_COMM, 0};
	unsigned hits = redact_strs(rd, s, 4);
	return hits + redact_strs(rd, &x, 1);
}

/* An initialised engine with the built-in patterns in *state for each test
 * that wants one (REDACT_TEST); freed after it. */
HEAP_FIXTURE(rd, struct redact, redact_init, redact_free)

#define REDACT_TEST(t) cmocka_unit_test_setup_teardown(t, rd_setup, rd_teardown)

/* Every secret of the corpus vanishes from every string of its exec and
 * exit records (the comm too); every look-alike is left as it is. */
static void test_corpus_records(void **state)
{
	struct redact *rd = *state;
	int ns = 0, nl = 0;

	load_corpus();
	for (int i = 0; i < nlines; i++) {
		struct rec r, o;
		make_rec(&lines[i], &r);
		o = r;
		unsigned hits = redact_rec(rd, &r);
		if (lines[i].kind == 'S') {
			ns++;
			/* not vacuous: the record held it */
			const uint8_t *parts[] = {o.filename, o.exe, o.argv, o.comm};
			size_t lens[] = {o.filename_len, o.exe_len, o.argv_len, 16};
			int had = 0;
			for (int k = 0; k < 4; k++)
				had |= leaks(parts[k], lens[k], lines[i].needle);
			assert_true(had);
			const uint8_t *now[] = {r.filename, r.exe, r.argv, r.comm, r.exit_comm};
			size_t nlens[] = {r.filename_len, r.exe_len, r.argv_len, 16, 16};
			for (int k = 0; k < 5; k++)
				if (leaks(now[k], nlens[k], lines[i].needle))
					fail_msg("secret '%s' (line %d) survives in part %d", lines[i].needle,
						 i, k);
			assert_true(hits > 0);
			/* lengths kept, only '*' written */
			for (size_t k = 0; k < r.argv_len; k++)
				assert_true(r.argv[k] == o.argv[k] || r.argv[k] == '*');
		} else {
			nl++;
			if (hits || memcmp(&r, &o, sizeof(r)))
				fail_msg("look-alike line %d (%s %s) was masked: argv '%.*s'", i,
					 lines[i].arg[0], lines[i].nargs > 1 ? lines[i].arg[1] : "",
					 (int)r.argv_len, r.argv);
		}
	}
	assert_true(ns >= 50);
	assert_true(nl >= 20);
}

/* The same argvs joined by spaces (sh -c '...', text files, the command
 * metadata): the in-string patterns alone catch every secret. */
static void test_corpus_joined(void **state)
{
	struct redact *rd = *state;

	load_corpus();
	for (int i = 0; i < nlines; i++) {
		char s[4096], o[4096];
		size_t len = 0;
		for (int k = 0; k < lines[i].nargs; k++)
			len += (size_t)snprintf(s + len, sizeof(s) - len, "%s%s", k ? " " : "",
						lines[i].arg[k]);
		memcpy(o, s, len + 1);
		int maybe = redact_maybe((const uint8_t *)s, len);
		unsigned hits = redact_mask(rd, s, len);
		if (lines[i].kind == 'S') {
			if (leaks((const uint8_t *)s, len, lines[i].needle))
				fail_msg("joined: secret '%s' survives in '%s'", lines[i].needle, s);
			assert_true(maybe); /* the prefilter let it through */
		} else if (hits || strcmp(s, o)) {
			fail_msg("joined: look-alike masked: '%s' -> '%s'", o, s);
		}
	}
}

/* -------------------------------------------------------------- the comm */

/* exe (a path) and its 16-byte comm (comm's bytes, NUL-padded) masked
 * together as an exec's are: returns what redact_strs does; the comm is then
 * want_comm, the exe want_exe (NULL: not checked) */
static unsigned exe_comm(struct redact *rd, const char *exe, const char *comm, const char *want_exe,
			 const char *want_comm)
{
	char e[256], c[16] = {0};
	assert_true(strlen(exe) < sizeof(e) && strlen(comm) < sizeof(c));
	strcpy(e, exe);
	strcpy(c, comm);
	struct redact_str s[] = {{(uint8_t *)e, strlen(e), REDACT_PATH, 0},
				 {(uint8_t *)c, 16, REDACT_COMM, 0}};
	unsigned n = redact_strs(rd, s, 2);
	if (want_exe)
		assert_string_equal(e, want_exe);
	assert_string_equal(c, want_comm);
	return n;
}

/* a 16-byte comm masked alone (an exit's, a prctl name): returns what
 * redact_strs does; the comm is then want */
static unsigned comm_alone(struct redact *rd, const char *comm, const char *want)
{
	char c[16] = {0};
	assert_true(strlen(comm) < sizeof(c));
	strcpy(c, comm);
	struct redact_str s = {(uint8_t *)c, 16, REDACT_COMM, 0};
	unsigned n = redact_strs(rd, &s, 1);
	assert_string_equal(c, want);
	return n;
}

static void test_comm_from_exe(void **state)
{
	struct redact *rd = *state;

	/* exe named like an AWS key: the 15-byte comm is cut from it */
	assert_true(exe_comm(rd, "/tmp/x/AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EX",
			     "/tmp/x/********************", "***************") >= 2);
	/* the exit event: only the comm, masked as before */
	assert_int_equal(comm_alone(rd, "AKIAIOSFODNN7EX", "***************"), 1);
	/* a key=value name keeps its key in the comm, as in the exe */
	exe_comm(rd, "/bin/password=hunter2x", "password=hunter", "/bin/password=********",
		 "password=******");
	/* a comm that is not the beginning of the masked name stays */
	exe_comm(rd, "/usr/bin/ghp_abcdefghijklmnopqrstuvwxyz", "bash", NULL, "bash");
	/* a full comm ending in a token's beginning, with nothing to derive it
	 * from (prctl, an exit whose exec was not seen): masked there */
	comm_alone(rd, "run-ghp_abcdefg", "run-***********");
	/* a short comm is not cut: "ghp_ab" is not a token */
	assert_int_equal(comm_alone(rd, "ghp_ab", "ghp_ab"), 0);
}

/* an argv cut at --argv-max may end in a token's beginning */
static void test_cut_argv(void **state)
{
	struct redact *rd = *state;
	char a[] = "curl\0-d\0x=1 ghp_abcdefgh";
	size_t n = sizeof(a) - 1;
	struct redact_str s = {(uint8_t *)a, n, REDACT_ARGV, 0};
	assert_int_equal(redact_strs(rd, &s, 1), 0);
	s.cut = 1;
	assert_int_equal(redact_strs(rd, &s, 1), 1);
	assert_memory_equal(a, "curl\0-d\0x=1 ************", n);
}

/* ------------------------------------------------------ the argv rules */

/* Mask an argv given as a NUL-separated blob; returns the blob with NULs
 * shown as '|' for comparison. */
static const char *mask_argv(const char *const *args, unsigned *hits)
{
	static char buf[1024];
	size_t len = 0;
	for (int i = 0; args[i]; i++) {
		size_t n = strlen(args[i]);
		memcpy(buf + len, args[i], n + 1);
		len += n + 1;
	}
	struct redact rd = {0};
	assert_int_equal(redact_init(&rd), 0);
	*hits = redact_mask_blob(&rd, (uint8_t *)buf, len, 1);
	redact_free(&rd);
	for (size_t i = 0; i + 1 < len; i++)
		if (!buf[i])
			buf[i] = '|';
	return buf;
}

static void test_prefixed_option_names(void **state)
{
	(void)state;
	const char *a[] = {"/bin/echo", "--db-password", "hunter2", "--client-secret", "s3cr3tval",
			   "--private-key", "KEYDATA", "--access-token", "ATOK", "--api-key",
			   "K1", "-password", "pw", "--verbose", "plain", NULL};
	unsigned hits;
	assert_string_equal(mask_argv(a, &hits),
			    "/bin/echo|--db-password|*******|--client-secret|*********|"
			    "--private-key|*******|--access-token|****|--api-key|**|"
			    "-password|**|--verbose|plain");
	assert_int_equal(hits, 6);
}

static void test_key_value_and_authorization(void **state)
{
	(void)state;
	const char *a[] = {"curl", "--x-password=value1,b", "-H", "Authorization:", "Bearer",
			   "abc", "Bearer", "tok2", "Authorization:", "raw3", "--keyboard", "us",
			   NULL};
	unsigned hits;
	/* everything after '=' in --KEY=value, commas included */
	assert_string_equal(mask_argv(a, &hits),
			    "curl|--x-password=********|-H|Authorization:|Bearer|***|Bearer|****|"
			    "Authorization:|****|--keyboard|us");
	assert_int_equal(hits, 4);
}

static void test_password_programs(void **state)
{
	(void)state;
	unsigned hits;
	const char *a[] = {"/usr/bin/mysql", "-h", "db", "-pS3cret", "-P", "3306", NULL};
	assert_string_equal(mask_argv(a, &hits), "/usr/bin/mysql|-h|db|-p******|-P|3306");
	const char *b[] = {"sshpass", "-p", "pw1", "ssh", "h", NULL};
	assert_string_equal(mask_argv(b, &hits), "sshpass|-p|***|ssh|h");
	/* -p elsewhere is not a password */
	const char *c[] = {"ssh", "-p", "22", "-pxyz", NULL};
	assert_string_equal(mask_argv(c, &hits), "ssh|-p|22|-pxyz");
	assert_int_equal(hits, 0);
}

/* the same secrets joined in one string (sh -c '...', text members) */
static void test_joined(void **state)
{
	struct redact *rd = *state;
	char s[] = "/bin/echo --db-password hunter2 --client-secret s3cr3tval --private-key "
		   "KEYDATA --access-token ATOK Authorization: Bearer abcdefghijk >/dev/null";
	redact_mask(rd, s, strlen(s));
	assert_string_equal(s, "/bin/echo --db-password ******* --client-secret ********* "
			       "--private-key ******* --access-token **** Authorization: Bearer "
			       "*********** >/dev/null");
	char t[] = "x Authorization: Bearer ab y";
	redact_mask(rd, t, strlen(t));
	assert_string_equal(t, "x Authorization: Bearer ** y");
	/* JSON, quoted and escaped values keep their quotes */
	char j[] = "{\"password\": \"a b\", \"n\": 1} token='c d' {\\\"secret\\\":\\\"e\\\"}";
	redact_mask(rd, j, strlen(j));
	assert_string_equal(j, "{\"password\": \"***\", \"n\": 1} token='***' "
			       "{\\\"secret\\\":\\\"****");
}

/* a --redact-pattern: case-insensitive, its last matched group */
static void test_added_pattern(void **state)
{
	struct redact *rd = *state;
	char why[128];
	assert_int_equal(redact_add(rd, "project-([0-9]+)", why, sizeof(why)), 0);
	assert_int_equal(redact_add(rd, "(", why, sizeof(why)), -1);
	assert_true(why[0] != 0);
	char s[] = "PROJECT-4242 x";
	assert_int_equal(redact_mask(rd, s, strlen(s)), 1);
	assert_string_equal(s, "PROJECT-**** x");
	/* in a record too, though no prefilter word is there */
	char a[] = "tool\0project-77";
	struct redact_str st = {(uint8_t *)a, sizeof(a) - 1, REDACT_ARGV, 0};
	assert_int_equal(redact_strs(rd, &st, 1), 1);
	assert_memory_equal(a, "tool\0project-**", sizeof(a) - 1);
}

/* the state machine alone: a non-secret word after a flag is the secret */
static void test_step(void **state)
{
	(void)state;
	struct redact_argv ra;
	struct redact_argv_state st = {0};
	assert_int_equal(redact_argv_init(&ra), 0);
	assert_int_equal(redact_argv_step(&ra, &st, "--client-secret", 15), -1);
	assert_int_equal(st.pending, 1);
	assert_int_equal(redact_argv_step(&ra, &st, "x", 1), 0);
	assert_int_equal(redact_argv_step(&ra, &st, "y", 1), -1);
	assert_int_equal(redact_argv_step(&ra, &st, "--secretive", 11), -1);
	assert_int_equal(redact_argv_step(&ra, &st, "z", 1), -1);
	assert_int_equal(redact_argv_step(&ra, &st, "DB_PASSWORD=x", 13), 12);
	assert_int_equal(redact_argv_step(&ra, &st, "PWD=/x", 6), -1);
	redact_argv_free(&ra);
}

/* ---------------------------------------------------------- the prefilter */

/* the words of redact.c, scanned plainly: the table-driven one must agree */
static const char *const words[] = {
	"pass",	 "pwd",	   "secret", "token", "key",	"auth",	  "cred",  "akia", "asia",
	"xox",    "bearer", "basic", "digest", "begin", "://",  "/home/",
	"/users/", "github_pat", "glpat", "slack", "eyj", "aiza", "k_live", "k_test", "sk-",
	"npm_",	 "pypi-",  "hf_",    "dckr_", "sg.",	"shp",	  ":aa",   "mysql", "mariadb",
	NULL,
};

static int maybe_ref(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		int c = tolower(p[i]);
		if (c == 'g' && i + 3 < len && tolower(p[i + 1]) == 'h' && p[i + 2] &&
		    strchr("pousr", tolower(p[i + 2])) && p[i + 3] == '_')
			return 1;
		for (int k = 0; words[k]; k++) {
			size_t j = 0;
			while (words[k][j] && i + j < len && tolower(p[i + j]) == words[k][j])
				j++;
			if (!words[k][j])
				return 1;
		}
	}
	return 0;
}

/* The prefilter never says 0 where the patterns find a secret: the corpus
 * secrets and samples of every shape, in random letter case where the
 * pattern ignores case. Masked text is not a secret again. */
static void test_maybe_superset(void **state)
{
	struct redact *rd = *state;
	static const char *const smp[] = {
		"GHP_abcdefghijklmnopqrstuvwxyz0123", "ghs_abcdefghijklmnopqrstuvwxyz0123",
		"password=hunter2", "--token=abc123", "AKIAIOSFODNN7EXAMPLE",
		"xoxb-1234567890-abcdefghij", "Authorization: Bearer abc.def.ghi",
		"https://user:pw@host/x", "/home/alice/data", "/Users/bob/x",
		"-----BEGIN RSA PRIVATE KEY-----", "api_key=zzz", "client_secret=q",
	};
	uint8_t b[128], c[128];
	uint32_t x = 777;
	unsigned masked = 0;
	for (size_t k = 0; k < sizeof(smp) / sizeof(smp[0]); k++) {
		size_t n = strlen(smp[k]);
		for (int it = 0; it < 64; it++) {
			for (size_t i = 0; i < n; i++) {
				x = x * 1103515245 + 12345;
				b[i] = (uint8_t)((x >> 20) & 1 ? toupper(smp[k][i]) : tolower(smp[k][i]));
			}
			memcpy(c, b, n);
			c[n] = 0;
			if (redact_mask_blob(rd, c, n, 1)) {
				masked++;
				assert_int_equal(redact_maybe(b, n), 1);
			}
		}
	}
	assert_true(masked > 64 * 6);
	load_corpus();
	for (int i = 0; i < nlines; i++)
		for (int k = 0; k < lines[i].nargs; k++) {
			size_t n = strlen(lines[i].arg[k]);
			uint8_t *cp = (uint8_t *)strdup(lines[i].arg[k]);
			if (redact_mask_blob(rd, cp, n, 0))
				assert_int_equal(redact_maybe((const uint8_t *)lines[i].arg[k], n), 1);
			free(cp);
		}
	static const char *const done[] = {"aws_secret_access_key=<redacted>",
					   "--password=<redacted>", "/home/*****/x",
					   "password=*******", "AKIA****************"};
	for (size_t k = 0; k < sizeof(done) / sizeof(done[0]); k++) {
		size_t n = strlen(done[k]);
		memcpy(c, done[k], n + 1);
		assert_int_equal(redact_mask_blob(rd, c, n, 1), 0);
		assert_memory_equal(c, done[k], n);
	}
}

/* the same answer as the reference on words in every case, cut at every
 * length, and on random bytes drawn mostly from the words' letters */
static void test_maybe(void **state)
{
	(void)state;
	uint8_t b[64];
	const char *extra[] = {"ghp_", "gho_", "ghx_", "gH#_", NULL};
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; (pass ? extra : words)[k]; k++) {
			const char *w = (pass ? extra : words)[k];
			size_t n = strlen(w);
			for (unsigned mask = 0; mask < (1u << n); mask++) {
				memcpy(b, "xx", 2);
				for (size_t i = 0; i < n; i++)
					b[2 + i] = (mask >> i) & 1 ? (uint8_t)toupper(w[i]) : (uint8_t)w[i];
				for (size_t i = 0; i < n + 2; i++)
					if (b[i] == '#')
						b[i] = 0; /* "gh", NUL, "_" */
				for (size_t len = 0; len <= n + 2; len++)
					assert_int_equal(redact_maybe(b, len), maybe_ref(b, len));
			}
		}
	static const char alpha[] = "passecrtokeyauthcdgiAKIAxobnlPSTHGU:/_ \0-=wymqjzf.";
	uint32_t x = 12345;
	for (int it = 0; it < 200000; it++) {
		size_t len = (x = x * 1103515245 + 12345) >> 16 & 31;
		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245 + 12345;
			b[i] = (x >> 24) < 16 ? (uint8_t)(x >> 16) : (uint8_t)alpha[(x >> 16) % (sizeof(alpha) - 1)];
		}
		assert_int_equal(redact_maybe(b, len), maybe_ref(b, len));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		REDACT_TEST(test_corpus_records),
		REDACT_TEST(test_corpus_joined),
		REDACT_TEST(test_comm_from_exe),
		REDACT_TEST(test_cut_argv),
		cmocka_unit_test(test_prefixed_option_names),
		cmocka_unit_test(test_key_value_and_authorization),
		cmocka_unit_test(test_password_programs),
		REDACT_TEST(test_joined),
		REDACT_TEST(test_added_pattern),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_maybe),
		REDACT_TEST(test_maybe_superset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
