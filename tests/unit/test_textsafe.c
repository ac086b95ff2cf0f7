/* SPDX-License-Identifier: BSD-2-Clause */
/* test_textsafe.c - the terminal-safe form of trace bytes (analyze/textsafe.c) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helper.h"

#include "analyze/json.h"
#include "analyze/textsafe.h"

/* the safe form of s[0..n) as tza_safe_line builds it (caller frees) */
static char *safe(const char *s, size_t n)
{
	struct tza_line l = {0};
	tza_safe_line(&l, s, n);
	tza_line_putc(&l, 0);
	assert_false(l.err);
	return l.p;
}

/* what writer(f) wrote, NUL-terminated (caller frees) */
static char *captured(FILE *f)
{
	long n = ftell(f);
	char *b = calloc(1, (size_t)n + 1);
	rewind(f);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return b;
}

static void no_controls(const char *s)
{
	for (const uint8_t *p = (const uint8_t *)s; *p; p++) {
		assert_true(*p >= 0x20 && *p != 0x7f);
		if (p[0] == 0xc2) /* no C1 control in UTF-8 */
			assert_true(p[1] >= 0xa0);
	}
}

static void test_escapes(void **state)
{
	(void)state;
#define S(lit) lit, sizeof(lit) - 1
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} c[] = {
		{S("plain tool"), "plain tool"},
		{S("zz\x1b[2Jq"), "zz\\e[2Jq"},
		{S("\x1b]0;pwned\a"), "\\e]0;pwned\\a"},
		{S("a\tb\nc\rd\b\f\v"), "a\\tb\\nc\\rd\\b\\f\\v"},
		{S("nul\0x"), "nul\\x00x"},
		{S("\x01\x1f\x7f"), "\\x01\\x1f\\x7f"},
		{S("back\\slash"), "back\\\\slash"},
		{S("quote\"'"), "quote\"'"},
		/* printable UTF-8 kept: é, →, an emoji */
		{S("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"),
		 "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"},
		/* C1 controls (U+009B CSI, U+0085 NEL) are valid UTF-8, shown */
		{S("\xc2\x9b" "2J\xc2\x85"), "\\u009b2J\\u0085"},
		{S("\xc2\xa0nbsp"), "\xc2\xa0nbsp"}, /* U+00A0 is not C1 */
		/* invalid UTF-8: stray continuation, overlong, surrogate, cut */
		{S("\x80"), "\\x80"},
		{S("\xc0\xaf"), "\\xc0\\xaf"},
		{S("\xed\xa0\x80"), "\\xed\\xa0\\x80"},
		{S("\xff\xe2\x86"), "\\xff\\xe2\\x86"},
		{S(""), ""},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *s = safe(c[i].in, c[i].n);
		assert_string_equal(s, c[i].out);
		no_controls(s);
		assert_int_equal(tza_safe_plain(c[i].in, c[i].n), !strcmp(c[i].in, c[i].out) &&
								      strlen(c[i].in) == c[i].n);
		free(s);
	}
}

/* every byte value, alone and after a lead byte: never a raw control */
static void test_all_bytes(void **state)
{
	(void)state;
	char in[512];
	for (int i = 0; i < 256; i++) {
		in[2 * i] = (char)i;
		in[2 * i + 1] = (char)0xc2;
	}
	char *s = safe(in, sizeof(in));
	no_controls(s);
	free(s);
}

static void test_quoted(void **state)
{
	(void)state;
	struct memout m;
	tza_safe_quoted(memout_open(&m), "a\"b\\c\x1b", 6);
	memout_expect(&m, "\"a\\\"b\\\\c\\e\"");
}

static void test_str_and_cols(void **state)
{
	(void)state;
	char buf[16];
	assert_string_equal(tza_safe_str(buf, sizeof(buf), "x\x1by"), "x\\ey");
	assert_string_equal(tza_safe_str(buf, sizeof(buf), NULL), "");
	/* too long: cut on a boundary with "...", never inside an escape */
	assert_string_equal(tza_safe_str(buf, sizeof(buf), "abcdefghij\x1b\x1b\x1b"),
			    "abcdefghij\\e...");
	assert_string_equal(tza_safe_str(buf, sizeof(buf), "abcdefghijklmn\x1b"),
			    "abcdefghijkl...");
	assert_string_equal(tza_safe_str(buf, sizeof(buf), "abcdefghij\xc3\xa9zzzzz"),
			    "abcdefghij\xc3\xa9...");
	assert_true(strlen(tza_safe_str(buf, sizeof(buf), "\x01\x02\x03\x04\x05")) < 16);
	no_controls(buf);
	/* widths in code points of the escaped text */
	assert_int_equal(tza_safe_cols("zz\x1b[2Jq"), 8);
	assert_int_equal(tza_safe_cols("caf\xc3\xa9"), 4);
	assert_int_equal(tza_safe_cols(NULL), 0);
	assert_int_equal(tza_text_cols("\xe2\x86\x92x"), 2);
	FILE *f = tmpfile();
	assert_int_equal(tza_safe_puts(f, "a\tb"), 4);
	assert_int_equal(tza_safe_put(f, "\xc3\xa9", 2), 1);
	char *s = captured(f);
	assert_string_equal(s, "a\\tb\xc3\xa9");
	free(s);
}

static void test_msg(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	tza_safe_msg(f, "--match: '\\d+' \x1b[2J\n");
	char *s = captured(f);
	assert_string_equal(s, "--match: '\\d+' \\e[2J\\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),	  cmocka_unit_test(test_all_bytes),
		cmocka_unit_test(test_quoted),	  cmocka_unit_test(test_str_and_cols),
		cmocka_unit_test(test_msg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
