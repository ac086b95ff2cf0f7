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

#include "helper.h"

#include "analyze/report_cols.h"

/* One test's columns (COLS_TEST): the "processes" JSON and its binary part,
 * as procs_h made them last; freed by the teardown. */
struct cols {
	char *j;
	struct tza_bbuf b;
};

static void cols_free(struct cols *c)
{
	free(c->j);
	free(c->b.p);
	memset(c, 0, sizeof(*c));
}

static int cols_init(struct cols *c)
{
	(void)c;
	return 0;
}

HEAP_FIXTURE(cols, struct cols, cols_init, cols_free)
#define COLS_TEST(t) cmocka_unit_test_setup_teardown(t, cols_setup, cols_teardown)

/* The "processes" JSON of jsonl (hosts: with the host columns) into c->j
 * (returned), its binary part in c->b; what c held before is freed. */
static const char *procs_h(struct cols *c, const char *jsonl, int hosts)
{
	struct memout m;
	cols_free(c);
	FILE *f = memout_open(&m);
	assert_int_equal(tza_report_procs(f, &c->b, jsonl, strlen(jsonl), hosts), 0);
	c->j = memout_close(&m);
	assert_int_equal(c->b.len % 8, 0);
	return c->j;
}

static const char *procs(struct cols *c, const char *jsonl) { return procs_h(c, jsonl, 0); }

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
	struct cols *c = *state;
	const char *j = procs(c, "{\"pid\":7,\"start_s\":1.5,\"end_s\":null}\n"
				 "{\"pid\":9,\"start_s\":2,\"end_s\":0.000000001}\n");
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"num\",\"decimals\":0,\"offset\":"));
	const char *s = strstr(j, "\"start_s\":{\"type\":\"num\",\"decimals\":1,\"offset\":");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"offset_type\":\"u8\"}")); /* 15 and 20: bytes, no differences */
	size_t off = field(s, "offset");
	assert_int_equal(c->b.p[off], 15); /* 1.5: 15 / 10^1 */
	assert_int_equal(c->b.p[off + 1], 20);
	/* a null: a flag, the column stays binary */
	assert_non_null(strstr(j, "\"end_s\":{\"type\":\"num\",\"decimals\":9,"));
	assert_non_null(strstr(strstr(j, "\"end_s\""), "\"nulls\":"));
}

static void misfits_fall_back_to_json(void **state)
{
	struct cols *c = *state;
	/* an exponent; 10 decimals; 2^53; an id with a leading zero */
	const char *j = procs(c, "{\"id\":\"12.034\",\"pid\":1e5,\"start_s\":0.0000000001,"
				 "\"end_s\":9007199254740992}\n");
	assert_non_null(strstr(j, "\"id\":{\"type\":\"json\",\"values\":[\"12.034\"]}"));
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"json\",\"values\":[1e5]}"));
	assert_non_null(strstr(j, "\"start_s\":{\"type\":\"json\",\"values\":[0.0000000001]}"));
	assert_non_null(strstr(j, "\"end_s\":{\"type\":\"json\",\"values\":[9007199254740992]}"));
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
	struct cols *c = *state;
	const char *j = procs(c, "{\"id\":\"3265.1582699221199\",\"pid\":-3,\"start_s\":-0.25}\n"
				 "{\"id\":\"3266.1582699221299\",\"pid\":-300,\"start_s\":2}\n");
	const char *id = strstr(j, "\"id\":{\"type\":\"id\""), *pid = strstr(j, "\"pid\":{\"type\":\"num\""),
		   *st = strstr(j, "\"start_s\":{\"type\":\"num\"");
	assert_non_null(id);
	assert_non_null(pid);
	assert_non_null(st);
	assert_int_equal(elem(&c->b, pid, "offset", 0), -3);
	assert_int_equal(elem(&c->b, pid, "offset", 1), -300);
	assert_int_equal(elem(&c->b, st, "offset", 0), -25); /* -0.25: -25 / 10^2 */
	assert_int_equal(elem(&c->b, st, "offset", 1), 200);
	assert_int_equal(elem(&c->b, id, "pid", 1), 3266);
	assert_int_equal(elem(&c->b, id, "ns", 0), 1582699221199); /* above 2^32 */
	assert_int_equal(elem(&c->b, id, "ns", 1), 1582699221299);
}

static void argv_lists_in_utf16_units(void **state)
{
	struct cols *c = *state;
	/* é (1 unit), U+1F600 (2 units, 4 bytes), an escape; one list twice */
	const char *j = procs(c, "{\"argv\":[\"a\\u00e9\",\"\xf0\x9f\x98\x80\",\"<\\n\"]}\n"
				 "{\"argv\":[\"a\\u00e9\",\"\xf0\x9f\x98\x80\",\"<\\n\"]}\n"
				 "{\"argv\":null}\n");
	const char *s = strstr(j, "\"argv\":{\"type\":\"lists\"");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"lists\":2,"));
	assert_non_null(strstr(s, "\"strings\":3,"));
	assert_non_null(strstr(s, "\"text_bytes\":9"));
	assert_non_null(strstr(s, "\"string_lengths_type\":\"u8\""));
	size_t sl = field(s, "string_lengths");
	assert_int_equal(c->b.p[sl], 2);
	assert_int_equal(c->b.p[sl + 1], 2);
	assert_int_equal(c->b.p[sl + 2], 2);
	size_t ll = field(s, "list_lengths");
	assert_int_equal(c->b.p[ll], 3);
	assert_int_equal(c->b.p[ll + 1], 0); /* null: no strings, and a null flag */
	size_t ix = field(s, "index");
	assert_int_equal(c->b.p[ix + 1], 0);
	assert_non_null(strstr(s, "\"nulls\":"));
	size_t t = field(s, "text");
	assert_memory_equal(c->b.p + t, "a\xc3\xa9\xf0\x9f\x98\x80<\n", 9);
}

static void argv_lone_surrogate_as_index(void **state)
{
	struct cols *c = *state;
	const char *j = procs(c, "{\"argv\":[\"x\\ud800<\"]}\n");
	/* its JSON byte for byte, '<' escaped */
	assert_non_null(strstr(
	    j, "\"argv\":{\"type\":\"index\",\"values\":[[\"x\\ud800\\u003c\"]],\"index\":"));
}

/* 1,000 rising pids 100000, 100003, ...: stored as differences from the
 * first (one byte each), their sums fit a u32; the page's running sums from
 * the first give them back */
static void rising_values_as_differences(void **state)
{
	struct cols *c = *state;
	size_t cap = 1000 * 64, len = 0;
	char *jl = malloc(cap);
	assert_non_null(jl);
	for (int i = 0; i < 1000; i++)
		len += (size_t)snprintf(jl + len, cap - len, "{\"pid\":%d,\"argv\":[\"x%d\"]}\n", 100000 + 3 * i, i);
	const char *j = procs(c, jl);
	const char *s = strstr(j, "\"pid\":{\"type\":\"num\"");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"offset_type\":\"u8\",\"offset_first\":100000,\"offset_values\":\"u32\",\"delta\":true}"));
	size_t off = field(s, "offset");
	uint32_t sum = 100000;
	for (int i = 0; i < 1000; i++) {
		sum += c->b.p[off + (size_t)i];
		assert_int_equal(sum, 100000 + 3 * i);
	}
	/* argv: each list new, its index 0, 1, 2, ...: differences of 1, bytes */
	s = strstr(j, "\"argv\":{\"type\":\"lists\"");
	assert_non_null(strstr(s, "\"index_type\":\"u8\",\"index_first\":0,\"index_values\":\"u16\",\"delta\":true"));
	free(jl);
}

/* the host columns: kept over several hosts only, as indexes into their
 * distinct values in order of first sight */
static void host_columns_over_hosts_only(void **state)
{
	struct cols *c = *state;
	static const char rows[] = "{\"host\":\"n2\",\"trace_uuid\":\"bb\",\"pid\":1}\n"
				   "{\"host\":\"n1\",\"trace_uuid\":\"aa\",\"pid\":2}\n"
				   "{\"host\":\"n2\",\"trace_uuid\":\"bb\",\"pid\":3}\n";
	const char *j = procs_h(c, rows, 0);
	assert_null(strstr(j, "\"host\""));
	assert_null(strstr(j, "\"trace_uuid\""));
	j = procs_h(c, rows, 1);
	const char *h = strstr(j, "\"host\":{\"type\":\"index\",\"values\":[\"n2\",\"n1\"],");
	assert_non_null(h);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(elem(&c->b, h, "index", i), i == 1);
	assert_non_null(strstr(j, "\"trace_uuid\":{\"type\":\"index\",\"values\":[\"bb\",\"aa\"],"));
	assert_null(strstr(j, "\"shared\":{\"type\":\"index\",\"values\":[{\"host\""));
}

/* the script for one trace: the HOSTS parts and their lines left out */
static void script_without_host_parts(void **state)
{
	(void)state;
	static const char js[] = "a();\n\t/*HOSTS{*/\n\tif (HM) x();\n\t/*}HOSTS*/\nb();\n"
				 "c(); /*HOSTS{*/y();/*}HOSTS*/ d();\n"
				 "/*HOSTS{*/ open only\n";
	struct memout m;
	tza_report_put_js(memout_open(&m), js, sizeof(js) - 1, 0);
	memout_expect(&m, "a();\nb();\nc(); d();\n/*HOSTS{*/ open only\n");
	tza_report_put_js(memout_open(&m), js, sizeof(js) - 1, 1);
	memout_expect(&m, js);
}

TEST_MAIN(NULL, NULL, COLS_TEST(numbers_as_integers_with_decimals),
	  COLS_TEST(misfits_fall_back_to_json), COLS_TEST(negative_numbers_and_ids),
	  COLS_TEST(argv_lists_in_utf16_units), COLS_TEST(argv_lone_surrogate_as_index),
	  COLS_TEST(rising_values_as_differences), COLS_TEST(host_columns_over_hosts_only),
	  cmocka_unit_test(script_without_host_parts))
