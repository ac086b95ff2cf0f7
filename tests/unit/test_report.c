/*
 * test_report.c - report.c helpers of the text outputs: the "cpus" metadata
 * parsed with a range check (cpus=-5 is unknown, not 4294967291 CPUs) and
 * the key column of top/summary/diff (widens to the data up to 60 bytes,
 * longer keys keep their end behind "...").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the shared scenarios */
#include "analyze_synth.h"
#pragma GCC diagnostic pop
#include "analyze/model.h"
#include "analyze/report.h"

static void test_parse_cpus(void **st)
{
	(void)st;
	assert_int_equal(tza_parse_cpus("8"), 8);
	assert_int_equal(tza_parse_cpus("1"), 1);
	assert_int_equal(tza_parse_cpus("65536"), 65536);
	assert_int_equal(tza_parse_cpus("65537"), 0);
	assert_int_equal(tza_parse_cpus("-5"), 0);
	assert_int_equal(tza_parse_cpus("0"), 0);
	assert_int_equal(tza_parse_cpus(""), 0);
	assert_int_equal(tza_parse_cpus("4x"), 0);
	assert_int_equal(tza_parse_cpus(" 4"), 0);
	assert_int_equal(tza_parse_cpus("99999999999999999999999"), 0);
	assert_int_equal(tza_parse_cpus(NULL), 0);
}

static void machine(const char *cpus, const char *mem, struct tza_machine *mi)
{
	struct synth s = {0};
	synth_meta(&s, "cpus", cpus);
	synth_meta(&s, "memory_kib", mem);
	s_fork(&s, T0, 1, 2);
	size_t len = 0;
	void *buf = synth_file(&s, NULL, &len);
	assert_non_null(buf);
	tz_reader *r = NULL;
	assert_int_equal(tz_reader_open_mem(&r, buf, len, "synth.tz", NULL), 0);
	tza_machine_get(r, mi);
	tz_reader_free(r);
	free(buf);
	synth_free(&s);
}

static void test_machine_get(void **st)
{
	(void)st;
	struct tza_machine mi;
	machine("4", "1024", &mi);
	assert_int_equal(mi.ncpus, 4);
	assert_int_equal(mi.mem_kib, 1024);
	machine("-5", "-1", &mi);
	assert_int_equal(mi.ncpus, 0);
	assert_true(mi.mem_kib != UINT64_MAX); /* junk is skipped, never read as -1 */
}

static void test_key_column(void **st)
{
	(void)st;
	const char *keys[] = {"short", "/a/path/of/exactly/forty/bytes/long/tool", NULL};
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 1), 28);
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 2), 40);
	char longk[100];
	memset(longk, 'x', sizeof(longk) - 6);
	strcpy(longk + sizeof(longk) - 6, "/true");
	keys[2] = longk;
	assert_int_equal(tza_key_width(keys, sizeof(keys[0]), 3), TZA_KEY_MAX);
	char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");
	tza_put_key(f, longk, TZA_KEY_MAX);
	tza_put_key(f, "ab", 4);
	fclose(f);
	assert_int_equal(strlen(out), TZA_KEY_MAX + 4);
	assert_memory_equal(out, "...xxx", 6);
	assert_memory_equal(out + TZA_KEY_MAX - 5, "/trueab  ", 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cpus),
		cmocka_unit_test(test_machine_get),
		cmocka_unit_test(test_key_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
