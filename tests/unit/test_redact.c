/* test_redact.c - common/redact.c: the whole-argv rules (an option name
 * ending in a secret word redacts the next argument, prefixed names
 * included; "Authorization:" "Bearer" X) and the in-string patterns,
 * the same secrets in a joined command line. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/redact.h"

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
	const char *a[] = {"curl", "--x-password=value1", "-H", "Authorization:", "Bearer",
			   "abc", "Bearer", "tok2", "Authorization:", "raw3", "--keyboard", "us",
			   NULL};
	unsigned hits;
	assert_string_equal(mask_argv(a, &hits),
			    "curl|--x-password=******|-H|Authorization:|Bearer|***|Bearer|****|"
			    "Authorization:|****|--keyboard|us");
	assert_int_equal(hits, 4);
}

/* the same secrets joined in one string (sh -c '...', text members) */
static void test_joined(void **state)
{
	(void)state;
	char s[] = "/bin/echo --db-password hunter2 --client-secret s3cr3tval --private-key "
		   "KEYDATA --access-token ATOK Authorization: Bearer abcdefghijk >/dev/null";
	struct redact rd = {0};
	assert_int_equal(redact_init(&rd), 0);
	redact_mask(&rd, s, strlen(s));
	redact_free(&rd);
	assert_string_equal(s, "/bin/echo --db-password ******* --client-secret ********* "
			       "--private-key ******* --access-token **** Authorization: Bearer "
			       "*********** >/dev/null");
	char t[] = "x Authorization: Bearer ab y";
	assert_int_equal(redact_init(&rd), 0);
	redact_mask(&rd, t, strlen(t));
	redact_free(&rd);
	assert_string_equal(t, "x Authorization: Bearer ** y");
}

/* the state machine alone: a non-secret word after a flag is the secret */
static void test_step(void **state)
{
	(void)state;
	struct redact_argv ra;
	int pending = 0;
	assert_int_equal(redact_argv_init(&ra), 0);
	assert_int_equal(redact_argv_step(&ra, &pending, "--client-secret"), 0);
	assert_int_equal(pending, 1);
	assert_int_equal(redact_argv_step(&ra, &pending, "x"), 1);
	assert_int_equal(redact_argv_step(&ra, &pending, "y"), 0);
	assert_int_equal(redact_argv_step(&ra, &pending, "--secretive"), 0);
	assert_int_equal(redact_argv_step(&ra, &pending, "z"), 0);
	redact_argv_free(&ra);
}

/* redact_maybe's first, plain form: the table-driven one must agree */
static int maybe_ref(const uint8_t *p, size_t len)
{
	static const char *const words[] = {
		"pass", "secret", "token", "key", "auth", "cred", "akia", "xox", "bearer",
		"basic", "digest", "begin", "://", "/home/", "/users/", NULL,
	};
	for (size_t i = 0; i < len; i++) {
		int c = tolower(p[i]);
		if (c == 'g' && i + 3 < len && tolower(p[i + 1]) == 'h' && strchr("pousr", tolower(p[i + 2])) &&
		    p[i + 3] == '_')
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

/* The prefilter never says 0 where the patterns find a secret: samples of
 * every pattern in random letter case (the regexes ignore case; a prefilter
 * that did not let "GHP_..." through once left it unmasked). */
static void test_maybe_superset(void **state)
{
	(void)state;
	static const char *const smp[] = {
		"GHP_abcdefghijklmnopqrstuvwxyz0123", "ghs_abcdefghijklmnopqrstuvwxyz0123",
		"password=hunter2", "--token=abc123", "AKIAIOSFODNN7EXAMPLE",
		"xoxb-1234567890-abcdefghij", "Authorization: Bearer abc.def.ghi",
		"https://user:pw@host/x", "/home/alice/data", "/Users/bob/x",
		"-----BEGIN RSA PRIVATE KEY-----", "api_key=zzz", "client_secret=q",
	};
	struct redact rd = {0};
	uint8_t b[128], c[128];
	uint32_t x = 777;
	unsigned masked = 0;
	assert_int_equal(redact_init(&rd), 0);
	for (size_t k = 0; k < sizeof(smp) / sizeof(smp[0]); k++) {
		size_t n = strlen(smp[k]);
		for (int it = 0; it < 64; it++) {
			for (size_t i = 0; i < n; i++) {
				x = x * 1103515245 + 12345;
				b[i] = (uint8_t)((x >> 20) & 1 ? toupper(smp[k][i]) : tolower(smp[k][i]));
			}
			memcpy(c, b, n);
			c[n] = 0;
			if (redact_mask_blob(&rd, c, n, 1)) {
				masked++;
				assert_int_equal(redact_maybe(b, n), 1);
			}
		}
	}
	/* not vacuous: most samples are secrets in every case */
	assert_true(masked > 64 * 8);
	/* bundle --redact's placeholder is not a secret, nor is a '*' run */
	static const char *const done[] = {"aws_secret_access_key=<redacted>",
					   "--password=<redacted>", "/home/<redacted>/x",
					   "password=*******"};
	for (size_t k = 0; k < sizeof(done) / sizeof(done[0]); k++) {
		size_t n = strlen(done[k]);
		memcpy(c, done[k], n + 1);
		assert_int_equal(redact_mask_blob(&rd, c, n, 1), 0);
		assert_memory_equal(c, done[k], n);
	}
	/* the case that was missed */
	memcpy(c, "GHP_abcdefghijklmnopqrstuvwxyz", 31);
	assert_int_equal(redact_maybe(c, 30), 1);
	assert_int_not_equal(redact_mask_blob(&rd, c, 30, 1), 0);
	redact_free(&rd);
}

/* the same answer as the reference on words in every case, cut at every
 * length, and on random bytes drawn mostly from the words' letters */
static void test_maybe(void **state)
{
	(void)state;
	static const char *const w[] = {"pass", "secret", "token", "key", "auth", "cred",
					"akia", "xox", "bearer", "basic", "digest", "begin",
					"://", "/home/", "/users/", "ghp_", "gho_", "ghx_", "gH#_"};
	uint8_t b[64];
	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
		size_t n = strlen(w[k]);
		for (unsigned mask = 0; mask < (1u << n); mask++) {
			memcpy(b, "xx", 2);
			for (size_t i = 0; i < n; i++)
				b[2 + i] = (mask >> i) & 1 ? (uint8_t)toupper(w[k][i]) : (uint8_t)w[k][i];
			for (size_t i = 0; i < n + 2; i++)
				if (b[i] == '#')
					b[i] = 0; /* "gh", NUL, "_" */
			for (size_t len = 0; len <= n + 2; len++)
				assert_int_equal(redact_maybe(b, len), maybe_ref(b, len));
		}
	}
	static const char alpha[] = "passecrtokeyauthcdgiAKIAxobnlPSTHGU:/_ \0-=";
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
		cmocka_unit_test(test_prefixed_option_names),
		cmocka_unit_test(test_key_value_and_authorization),
		cmocka_unit_test(test_joined),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_maybe),
		cmocka_unit_test(test_maybe_superset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
