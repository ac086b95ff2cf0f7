/* SPDX-License-Identifier: BSD-2-Clause */
/* test_report_cols.c - the report's process columns: binary when every value
 * fits, JSON byte for byte when one does not (report_cols.h). */
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
static char *procs(const char *jsonl, struct tza_bbuf *bin)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	memset(bin, 0, sizeof(*bin));
	assert_int_equal(tza_report_procs(f, bin, jsonl, strlen(jsonl)), 0);
	fclose(f);
	assert_int_equal(bin->len % 8, 0);
	return out;
}

static uint32_t u32_at(const struct tza_bbuf *b, size_t off)
{
	assert_true(off + 4 <= b->len);
	return (uint32_t)b->p[off] | (uint32_t)b->p[off + 1] << 8 | (uint32_t)b->p[off + 2] << 16 |
	       (uint32_t)b->p[off + 3] << 24;
}

static void numbers_as_integers_with_decimals(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"pid\":7,\"start_s\":1.5,\"end_s\":null}\n"
			"{\"pid\":9,\"start_s\":2,\"end_s\":0.000000001}\n",
			&b);
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"num\",\"array\":\"u32\",\"offset\":"));
	const char *s = strstr(j, "\"start_s\":{\"type\":\"num\",\"array\":\"u32\",\"offset\":");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"decimals\":1}"));
	size_t off = strtoul(strstr(s, "\"offset\":") + 9, NULL, 10);
	assert_int_equal(u32_at(&b, off), 15); /* 1.5: 15 / 10^1 */
	assert_int_equal(u32_at(&b, off + 4), 20);
	/* a null: a flag, the column stays binary */
	assert_non_null(strstr(j, "\"end_s\":{\"type\":\"num\",\"array\":\"u32\""));
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

static void negative_numbers_and_ids(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"id\":\"3265.1582699221199\",\"pid\":-3,\"start_s\":-0.25}\n", &b);
	assert_non_null(strstr(j, "\"id\":{\"type\":\"id\",\"pid\":"));
	assert_non_null(strstr(j, "\"pid\":{\"type\":\"num\",\"array\":\"i32\""));
	assert_non_null(strstr(j, "\"start_s\":{\"type\":\"num\",\"array\":\"i32\""));
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
	size_t sl = strtoul(strstr(s, "\"string_lengths\":") + 17, NULL, 10);
	assert_int_equal(u32_at(&b, sl), 2);
	assert_int_equal(u32_at(&b, sl + 4), 2);
	assert_int_equal(u32_at(&b, sl + 8), 2);
	size_t ll = strtoul(strstr(s, "\"list_lengths\":") + 15, NULL, 10);
	assert_int_equal(u32_at(&b, ll), 3);
	assert_int_equal(u32_at(&b, ll + 4), 0); /* null: no strings, and a null flag */
	size_t ix = strtoul(strstr(s, "\"index\":") + 8, NULL, 10);
	assert_int_equal(u32_at(&b, ix + 4), 0);
	assert_non_null(strstr(s, "\"nulls\":"));
	size_t t = strtoul(strstr(s, "\"text\":") + 7, NULL, 10);
	assert_memory_equal(b.p + t, "a\xc3\xa9\xf0\x9f\x98\x80<\n", 9);
	free(j);
	free(b.p);
}

static void argv_lone_surrogate_as_index(void **state)
{
	(void)state;
	struct tza_bbuf b;
	char *j = procs("{\"argv\":[\"x\\ud800<\"]}\n", &b);
	const char *s = strstr(j, "\"argv\":{\"type\":\"index\",\"index\":");
	assert_non_null(s); /* its JSON byte for byte, '<' escaped */
	assert_non_null(strstr(s, ",\"values\":[[\"x\\ud800\\u003c\"]]}"));
	free(j);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_as_integers_with_decimals),
		cmocka_unit_test(misfits_fall_back_to_json),
		cmocka_unit_test(negative_numbers_and_ids),
		cmocka_unit_test(argv_lists_in_utf16_units),
		cmocka_unit_test(argv_lone_surrogate_as_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
