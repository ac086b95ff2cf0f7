/* SPDX-License-Identifier: BSD-2-Clause */
/* test_json.c - JSON strings stay valid and lossless whatever the bytes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/json.h"
#include "analyze/report.h"
#include "helper.h"
#include "xorshift.h"

static char *str_of(const void *b, size_t n)
{
	struct memout m;
	tza_json_str(memout_open(&m), b, n);
	return memout_close(&m);
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
	expect("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	/* C1 controls (U+0080..U+009F) escaped too, U+00A0 kept */
	expect("\xc2\x9b\xc2\x80\xc2\xa0", 6, "\"\\u009b\\u0080\xc2\xa0\"");
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
	struct memout m;
	tza_json_argv(memout_open(&m), (const uint8_t *)av, sizeof(av));
	memout_expect(&m,
		      "[\"printf\",\"a b\",\"\",\"x\\ny\",\"\\udcff\\udcfe\",\"\\u0001\",\"end\"]");
	/* cut without a final NUL: the partial argument is kept */
	tza_json_argv(memout_open(&m), (const uint8_t *)"ab\0c", 4);
	memout_expect(&m, "[\"ab\",\"c\"]");
}

static void test_numbers(void **state)
{
	(void)state;
	struct memout m;
	FILE *f = memout_open(&m);
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
	memout_expect(&m, "1.5 0 0.000000123 -2 12.5 3");
}

static void test_text_quoting(void **state)
{
	(void)state;
	static const char av[] = "printf\0a b\0\0x\ny\0\xff\xfe\0\x01\0it's\0end";
	struct memout m;
	tza_text_argv(memout_open(&m), (const uint8_t *)av, sizeof(av), 0);
	memout_expect(&m, "printf 'a b' '' $'x\\ny' $'\\xff\\xfe' $'\\x01' $'it\\'s' end");
}

static void test_text_shortening(void **state)
{
	(void)state;
	static const char av[] = "sh\0-c\0for i in 1 2 3; do /bin/true $i; done\0x";
	struct memout m;
	tza_text_argv(memout_open(&m), (const uint8_t *)av, sizeof(av), 20);
	/* as much of the long word as fits, then "..." */
	memout_expect(&m, "sh -c 'for i in 1 2 3'...");
	/* never cut inside a UTF-8 character */
	static const char u[] = "echo\0\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
	tza_text_argv(memout_open(&m), (const uint8_t *)u, sizeof(u),
		      14); /* room 9: cut back to 8 */
	memout_expect(&m, "echo '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'...");
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) { return xorshift64(&rnd_state); }

static void check_fixed(double v, int d)
{
	char want[512], got[64];
	snprintf(want, sizeof(want), "%.*f", d, v);
	size_t n = tza_fmt_fixed(got, v, d);
	got[n] = 0;
	if (strcmp(want, got))
		fail_msg("%%.%df of %a: want '%s' got '%s'", d, v, want, got);
}

/* tza_fmt_fixed is printf's "%.*f": random doubles of every size below 2^63,
 * exact ties (k / 2^j), the ns / 1e9 and ns / 1e6 that export writes, -0 */
static void test_fixed(void **state)
{
	(void)state;
	for (int d = 0; d <= 9; d++) {
		check_fixed(0.0, d);
		check_fixed(-0.0, d);
		check_fixed(0.5, d);
		check_fixed(1.5, d);
		check_fixed(2.5, d);
		check_fixed(-2.5, d);
		check_fixed(9.9999999996, d);
		check_fixed(0.0000000004, d);
		check_fixed(9223372036854775807.0 / 2, d);
	}
	for (int it = 0; it < 300000; it++) {
		uint64_t r = rnd();
		int d = (int)(r % 10);
		double v;
		switch ((r >> 4) % 4) {
		case 0: { /* any bits with an exponent below 2^63 */
			uint64_t bits = rnd();
			unsigned ex = (unsigned)((r >> 8) % (1023 + 63));
			bits = (bits & 0x800fffffffffffffULL) | (uint64_t)ex << 52;
			memcpy(&v, &bits, sizeof(v));
			break;
		}
		case 1: /* exact ties and near ties */
			v = ldexp((double)(rnd() % 100000), -(int)((r >> 8) % 40));
			break;
		case 2: /* export's seconds and milliseconds from ns */
			v = (double)(int64_t)(rnd() % 100000000000000ULL - 50000000000000ULL) / 1e9;
			break;
		default:
			v = (double)(rnd() % 10000000000ULL) / 1e6;
			break;
		}
		check_fixed(v, d);
	}
}

static void secs_ref(char *b, size_t size, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	int n = snprintf(b, size, "%s%llu.%09llu", ns < 0 ? "-" : "",
			 (unsigned long long)(a / 1000000000ULL),
			 (unsigned long long)(a % 1000000000ULL));
	while (n > 0 && b[n - 1] == '0')
		b[--n] = 0;
	if (n > 0 && b[n - 1] == '.')
		b[--n] = 0;
}

static void num_ref(char *b, size_t size, double v)
{
	if (!isfinite(v)) {
		snprintf(b, size, "0");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(b, size, "%.0f", v);
		return;
	}
	snprintf(b, size, "%.6f", v);
	size_t n = strlen(b);
	while (n > 0 && b[n - 1] == '0')
		b[--n] = 0;
	if (n > 0 && b[n - 1] == '.')
		b[--n] = 0;
}

/* the line writers give the bytes of the FILE writers and of the first,
 * snprintf-based forms */
static void test_line(void **state)
{
	(void)state;
	struct tza_line l = {0};
	char want[512];
	const int64_t fixed_ns[] = {0, 1, -1, 999999999, 1000000000, -1500000000, INT64_MAX,
				    INT64_MIN, 123000, 100};
	for (int it = 0; it < 100000; it++) {
		int64_t ns = it < 10 ? fixed_ns[it] : (int64_t)rnd() >> (rnd() % 64);
		secs_ref(want, sizeof(want), ns);
		l.n = 0;
		tza_line_json_secs(&l, ns);
		assert_int_equal(l.n, strlen(want));
		assert_memory_equal(l.p, want, l.n);
	}
	const double fixed_v[] = {0.0, -0.0, 3, 12.5, 1e15, -1e15, 1e300, -1e300, 1.0 / 0.0,
				  0.0 / 0.0, 0.0000001, -0.0000004, 99.9999999};
	for (int it = 0; it < 100000; it++) {
		double v;
		if (it < 13) {
			v = fixed_v[it];
		} else {
			uint64_t bits = rnd();
			memcpy(&v, &bits, sizeof(v));
			if (it % 2)
				v = (double)(rnd() % 100000000) / (double)(1 + rnd() % 1000000);
		}
		num_ref(want, sizeof(want), v);
		l.n = 0;
		tza_line_json_num(&l, v);
		assert_int_equal(l.n, strlen(want));
		assert_memory_equal(l.p, want, l.n);
	}
	/* strings, argv and the text quoting over random bytes */
	uint8_t b[64];
	for (int it = 0; it < 50000; it++) {
		size_t n = rnd() % sizeof(b);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = rnd();
			b[i] = r % 4 ? (uint8_t)(' ' + r % 96) : (uint8_t)(r >> 8);
		}
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		tza_json_str(f, b, n);
		tza_json_argv(f, b, (uint32_t)n);
		tza_text_argv(f, b, (uint32_t)n, 0);
		fclose(f);
		l.n = 0;
		tza_line_json_str(&l, b, n);
		tza_line_json_argv(&l, b, (uint32_t)n);
		tza_line_text_argv(&l, b, (uint32_t)n);
		assert_int_equal(l.n, len);
		assert_memory_equal(l.p, out, len);
		free(out);
	}
	assert_int_equal(l.err, 0);
	tza_line_free(&l);
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
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
