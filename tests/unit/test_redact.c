/* test_redact.c - common/redact.c: the whole-argv rules (an option name
 * ending in a secret word redacts the next argument, prefixed names
 * included; "Authorization:" "Bearer" X) and the in-string patterns,
 * the same secrets in a joined command line. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefixed_option_names),
		cmocka_unit_test(test_key_value_and_authorization),
		cmocka_unit_test(test_joined),
		cmocka_unit_test(test_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
