/* SPDX-License-Identifier: BSD-2-Clause */
/* test_report_cols.c - the report's process columns: binary when every value
 * fits (in the narrowest type, as differences when smaller), JSON byte for
 * byte when one does not (report_cols.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/report_cols.h"

/* The "processes" JSON of jsonl, its binary part in *bin. */
static char *procs_h(const char *jsonl, struct tza_bbuf *bin, int hosts)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	memset(bin, 0, sizeof(*bin));
	assert_int_equal(tza_report_procs(f, bin, jsonl, strlen(jsonl), hosts), 0);
	fclose(f);
	assert_int_equal(bin->len % 8, 0);
	return out;
}

static char *procs(const char *jsonl, struct tza_bbuf *bin)
{
	return procs_h(jsonl, bin, 0);
}

/* the number after "KEY": in s */
static size_t field(const char *s, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":", key);
	const char *p = strstr(s, k);
	assert_non_null(p);
	return strtoul(p + strlen(k), NULL, 10);
}

static void numbers_as_integers_with_decimals(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"pid\":7,\"start_s\":1.5,\"end_s\":null}\n"
			"{\"pid\":9,\"start_s\":2,\"end_s\":0.000000001}\n",
			&b);
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"num\",\"decimals\":0,\"offset\":"));
	const char *s = strstr(j, "\"start_s\":{\"type\":\"num\",\"decimals\":1,\"offset\":");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"offset_type\":\"u8\"}")); /* 15 and 20: bytes, no differences */
	size_t off = field(s, "offset");
	assert_int_equal(b.p[off], 15); /* 1.5: 15 / 10^1 */
	assert_int_equal(b.p[off + 1], 20);
	/* a null: a flag, the column stays binary */
	assert_non_null(strstr(j, "\"end_s\":{\"type\":\"num\",\"decimals\":9,"));
	assert_non_null(strstr(strstr(j, "\"end_s\""), "\"nulls\":"));
	free(j);
	free(b.p);
}

static void misfits_fall_back_to_json(void **state)
{
	(void)state;
	struct tza_bbuf b;
	/* an exponent; 10 decimals; 2^53; an id with a leading zero */
	char *j = procs("{\"id\":\"12.034\",\"pid\":1e5,\"start_s\":0.0000000001,"
			"\"end_s\":9007199254740992}\n",
			&b);
	assert_non_null(strstr(j, "\"id\":{\"type\":\"json\",\"values\":[\"12.034\"]}"));
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"json\",\"values\":[1e5]}"));
	assert_non_null(strstr(j, "\"start_s\":{\"type\":\"json\",\"values\":[0.0000000001]}"));
	assert_non_null(strstr(j, "\"end_s\":{\"type\":\"json\",\"values\":[9007199254740992]}"));
	free(j);
	free(b.p);
}

/* element i of array NAME of the column whose JSON starts at col, as the
 * page reads it: its type NAME_type, with "delta" the running sum from
 * NAME_first (docs/plots-and-bundles.md, Data) */
static int64_t elem(const struct tza_bbuf *b, const char *col, const char *name, size_t i)
{
	static const char *const ty[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f64"};
	char k[64];
	const char *end = strchr(col, '}'), *t;
	snprintf(k, sizeof(k), "\"%s_type\":\"", name);
	assert_non_null(t = strstr(col, k));
	assert_true(t < end);
	t += strlen(k);
	size_t off = field(col, name), w = 0;
	int d = strstr(col, "\"delta\":true") && strstr(col, "\"delta\":true") < end, x = 0;
	while (x < 7 && strncmp(t, ty[x], strlen(ty[x])))
		x++;
	assert_true(x < 7);
	w = x == 6 ? 8 : 1u << (x / 2);
	int64_t sum = 0;
	if (d) {
		snprintf(k, sizeof(k), "%s_first", name);
		sum = strtoll(strstr(col, k) + strlen(k) + 2, NULL, 10);
	}
	for (size_t j = d ? 0 : i; j <= i; j++) {
		uint64_t u = 0;
		int64_t v;
		assert_true(off + (j + 1) * w <= b->len);
		for (size_t q = 0; q < w; q++)
			u |= (uint64_t)b->p[off + j * w + q] << (8 * q);
		if (x == 6) {
			double f;
			memcpy(&f, &u, 8);
			v = (int64_t)f;
		} else {
			v = x % 2 ? (int64_t)(u << (64 - 8 * w)) >> (64 - 8 * w) : (int64_t)u; /* sign-extended */
		}
		sum = d ? sum + v : v;
	}
	return sum;
}

static void negative_numbers_and_ids(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"id\":\"3265.1582699221199\",\"pid\":-3,\"start_s\":-0.25}\n"
			"{\"id\":\"3266.1582699221299\",\"pid\":-300,\"start_s\":2}\n",
			&b);
	const char *id = strstr(j, "\"id\":{\"type\":\"id\""), *pid = strstr(j, "\"pid\":{\"type\":\"num\""),
		   *st = strstr(j, "\"start_s\":{\"type\":\"num\"");
	assert_non_null(id);
	assert_non_null(pid);
	assert_non_null(st);
	assert_int_equal(elem(&b, pid, "offset", 0), -3);
	assert_int_equal(elem(&b, pid, "offset", 1), -300);
	assert_int_equal(elem(&b, st, "offset", 0), -25); /* -0.25: -25 / 10^2 */
	assert_int_equal(elem(&b, st, "offset", 1), 200);
	assert_int_equal(elem(&b, id, "pid", 1), 3266);
	assert_int_equal(elem(&b, id, "ns", 0), 1582699221199); /* above 2^32 */
	assert_int_equal(elem(&b, id, "ns", 1), 1582699221299);
	free(j);
	free(b.p);
}

static void argv_lists_in_utf16_units(void **state)
{
	(void)state;
	struct tza_bbuf b;
	/* é (1 unit), U+1F600 (2 units, 4 bytes), an escape; one list twice */
	char *j = procs("{\"argv\":[\"a\\u00e9\",\"\xf0\x9f\x98\x80\",\"<\\n\"]}\n"
			"{\"argv\":[\"a\\u00e9\",\"\xf0\x9f\x98\x80\",\"<\\n\"]}\n"
			"{\"argv\":null}\n",
			&b);
	const char *s = strstr(j, "\"argv\":{\"type\":\"lists\"");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"lists\":2,"));
	assert_non_null(strstr(s, "\"strings\":3,"));
	assert_non_null(strstr(s, "\"text_bytes\":9"));
	assert_non_null(strstr(s, "\"string_lengths_type\":\"u8\""));
	size_t sl = field(s, "string_lengths");
	assert_int_equal(b.p[sl], 2);
	assert_int_equal(b.p[sl + 1], 2);
	assert_int_equal(b.p[sl + 2], 2);
	size_t ll = field(s, "list_lengths");
	assert_int_equal(b.p[ll], 3);
	assert_int_equal(b.p[ll + 1], 0); /* null: no strings, and a null flag */
	size_t ix = field(s, "index");
	assert_int_equal(b.p[ix + 1], 0);
	assert_non_null(strstr(s, "\"nulls\":"));
	size_t t = field(s, "text");
	assert_memory_equal(b.p + t, "a\xc3\xa9\xf0\x9f\x98\x80<\n", 9);
	free(j);
	free(b.p);
}

static void argv_lone_surrogate_as_index(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"argv\":[\"x\\ud800<\"]}\n", &b);
	/* its JSON byte for byte, '<' escaped */
	assert_non_null(strstr(j, "\"argv\":{\"type\":\"index\",\"values\":[[\"x\\ud800\\u003c\"]],\"index\":"));
	free(j);
	free(b.p);
}

/* 1,000 rising pids 100000, 100003, ...: stored as differences from the
 * first (one byte each), their sums fit a u32; the page's running sums from
 * the first give them back */
static void rising_values_as_differences(void **state)
{
	(void)state;
	struct tza_bbuf b;
	size_t cap = 1000 * 64, len = 0;
	char *jl = malloc(cap);
	assert_non_null(jl);
	for (int i = 0; i < 1000; i++)
		len += (size_t)snprintf(jl + len, cap - len, "{\"pid\":%d,\"argv\":[\"x%d\"]}\n", 100000 + 3 * i, i);
	char *j = procs(jl, &b);
	const char *s = strstr(j, "\"pid\":{\"type\":\"num\"");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"offset_type\":\"u8\",\"offset_first\":100000,\"offset_values\":\"u32\",\"delta\":true}"));
	size_t off = field(s, "offset");
	uint32_t sum = 100000;
	for (int i = 0; i < 1000; i++) {
		sum += b.p[off + (size_t)i];
		assert_int_equal(sum, 100000 + 3 * i);
	}
	/* argv: each list new, its index 0, 1, 2, ...: differences of 1, bytes */
	s = strstr(j, "\"argv\":{\"type\":\"lists\"");
	assert_non_null(strstr(s, "\"index_type\":\"u8\",\"index_first\":0,\"index_values\":\"u16\",\"delta\":true"));
	free(jl);
	free(j);
	free(b.p);
}

/* the host columns: kept over several hosts only, as indexes into their
 * distinct values in order of first sight */
static void host_columns_over_hosts_only(void **state)
{
	(void)state;
	static const char rows[] = "{\"host\":\"n2\",\"trace_uuid\":\"bb\",\"pid\":1}\n"
				   "{\"host\":\"n1\",\"trace_uuid\":\"aa\",\"pid\":2}\n"
				   "{\"host\":\"n2\",\"trace_uuid\":\"bb\",\"pid\":3}\n";
	struct tza_bbuf b;
	char *j = procs_h(rows, &b, 0);
	assert_null(strstr(j, "\"host\""));
	assert_null(strstr(j, "\"trace_uuid\""));
	free(j);
	free(b.p);
	j = procs_h(rows, &b, 1);
	const char *h = strstr(j, "\"host\":{\"type\":\"index\",\"values\":[\"n2\",\"n1\"],");
	assert_non_null(h);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(elem(&b, h, "index", i), i == 1);
	assert_non_null(strstr(j, "\"trace_uuid\":{\"type\":\"index\",\"values\":[\"bb\",\"aa\"],"));
	assert_null(strstr(j, "\"shared\":{\"type\":\"index\",\"values\":[{\"host\""));
	free(j);
	free(b.p);
}

/* the script for one trace: the HOSTS parts and their lines left out */
static void script_without_host_parts(void **state)
{
	(void)state;
	static const char js[] = "a();\n\t/*HOSTS{*/\n\tif (HM) x();\n\t/*}HOSTS*/\nb();\n"
				 "c(); /*HOSTS{*/y();/*}HOSTS*/ d();\n"
				 "/*HOSTS{*/ open only\n";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tza_report_put_js(f, js, sizeof(js) - 1, 0);
	fclose(f);
	assert_string_equal(out, "a();\nb();\nc(); d();\n/*HOSTS{*/ open only\n");
	free(out);
	f = open_memstream(&out, &len);
	tza_report_put_js(f, js, sizeof(js) - 1, 1);
	fclose(f);
	assert_string_equal(out, js);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_as_integers_with_decimals),
		cmocka_unit_test(misfits_fall_back_to_json),
		cmocka_unit_test(negative_numbers_and_ids),
		cmocka_unit_test(argv_lists_in_utf16_units),
		cmocka_unit_test(argv_lone_surrogate_as_index),
		cmocka_unit_test(rising_values_as_differences),
		cmocka_unit_test(host_columns_over_hosts_only),
		cmocka_unit_test(script_without_host_parts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
