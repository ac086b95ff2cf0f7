/* test_json.c - JSON strings stay valid and lossless whatever the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/json.h"
#include "analyze/report.h"

static char *str_of(const void *b, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_json_str(f, b, n);
	fclose(f);
	return out;
}

static void expect(const char *in, size_t n, const char *want)
{
	char *got = str_of(in, n);
	assert_string_equal(got, want);
	free(got);
}

static void test_escapes(void **state)
{
	(void)state;
	expect("", 0, "\"\"");
	expect("a b", 3, "\"a b\"");
	expect("q\"b\\", 4, "\"q\\\"b\\\\\"");
	expect("x\ny\t\r\b\f", 7, "\"x\\ny\\t\\r\\b\\f\"");
	expect("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
	expect("nul\0in", 6, "\"nul\\u0000in\"");
	/* valid UTF-8 passes through */
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
	       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	/* C05: "\xff\xfe" */
	expect("\xff\xfe", 2, "\"\\udcff\\udcfe\"");
	/* stray continuation, overlong, encoded surrogate, > U+10FFFF, truncated */
	expect("\x80", 1, "\"\\udc80\"");
	expect("\xc0\xaf", 2, "\"\\udcc0\\udcaf\"");
	expect("\xe0\x80\xaf", 3, "\"\\udce0\\udc80\\udcaf\"");
	expect("\xed\xa0\x80", 3, "\"\\udced\\udca0\\udc80\"");
	expect("\xf4\x90\x80\x80", 4, "\"\\udcf4\\udc90\\udc80\\udc80\"");
	expect("a\xe2\x82", 3, "\"a\\udce2\\udc82\"");
	/* the valid character U+00FF is not confused with the byte 0xff */
	expect("\xc3\xbf", 2, "\"\xc3\xbf\"");
}

static void test_argv(void **state)
{
	(void)state;
	/* C05 argv: ["printf", "a b", "", "x\ny", "\xff\xfe", "\x01", "end"] */
	static const char av[] = "printf\0a b\0\0x\ny\0\xff\xfe\0\x01\0end";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_json_argv(f, (const uint8_t *)av, sizeof(av));
	fclose(f);
	assert_string_equal(out,
			    "[\"printf\",\"a b\",\"\",\"x\\ny\",\"\\udcff\\udcfe\",\"\\u0001\",\"end\"]");
	free(out);
	/* cut without a final NUL: the partial argument is kept */
	f = open_memstream(&out, &len);
	tza_json_argv(f, (const uint8_t *)"ab\0c", 4);
	fclose(f);
	assert_string_equal(out, "[\"ab\",\"c\"]");
	free(out);
}

static void test_numbers(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_json_secs(f, 1500000000);
	fputc(' ', f);
	tza_json_secs(f, 0);
	fputc(' ', f);
	tza_json_secs(f, 123);
	fputc(' ', f);
	tza_json_secs(f, -2000000000);
	fputc(' ', f);
	tza_json_num(f, 12.5);
	fputc(' ', f);
	tza_json_num(f, 3);
	fclose(f);
	assert_string_equal(out, "1.5 0 0.000000123 -2 12.5 3");
	free(out);
}

static void test_text_quoting(void **state)
{
	(void)state;
	static const char av[] = "printf\0a b\0\0x\ny\0\xff\xfe\0\x01\0it's\0end";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_text_argv(f, (const uint8_t *)av, sizeof(av), 0);
	fclose(f);
	assert_string_equal(out, "printf 'a b' '' $'x\\ny' $'\\xff\\xfe' $'\\x01' $'it\\'s' end");
	free(out);
}

static void test_text_shortening(void **state)
{
	(void)state;
	static const char av[] = "sh\0-c\0for i in 1 2 3; do /bin/true $i; done\0x";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_text_argv(f, (const uint8_t *)av, sizeof(av), 20);
	fclose(f);
	/* as much of the long word as fits, then "..." */
	assert_string_equal(out, "sh -c 'for i in 1 2 3'...");
	free(out);
	/* never cut inside a UTF-8 character */
	static const char u[] = "echo\0\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
	f = open_memstream(&out, &len);
	tza_text_argv(f, (const uint8_t *)u, sizeof(u), 14); /* room 9: cut back to 8 */
	fclose(f);
	assert_string_equal(out, "echo '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'...");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_text_quoting),
		cmocka_unit_test(test_text_shortening),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
