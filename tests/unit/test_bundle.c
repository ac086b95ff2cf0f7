/* SPDX-License-Identifier: BSD-2-Clause */
/* test_bundle.c - bundle.c: sniffing, writing, reading the trace member back,
 * the registry, and refusing hostile archives. */
#include <archive.h>
#include <archive_entry.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/bundle.h"

static char dir[64];

static const char *tmp(const char *name)
{
	static char buf[8][256];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* An archive with raw entries: name, type (AE_IF*), link target, data. */
struct ent {
	const char *name;
	unsigned type;
	const char *link;
	const void *data;
	size_t len;
};

static void raw_archive(const char *path, int zip, const struct ent *e, size_t n)
{
	struct archive *a = archive_write_new();
	if (zip) {
		archive_write_set_format_zip(a);
	} else {
		archive_write_add_filter_gzip(a);
		archive_write_set_format_pax_restricted(a);
	}
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *ae = archive_entry_new();
		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_filetype(ae, e[i].type);
		archive_entry_set_perm(ae, 0644);
		if (e[i].type == AE_IFLNK)
			archive_entry_set_symlink(ae, e[i].link);
		if (e[i].type == AE_IFCHR)
			archive_entry_set_rdev(ae, 0x103);
		archive_entry_set_size(ae, e[i].type == AE_IFREG ? (la_int64_t)e[i].len : 0);
		assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
		if (e[i].type == AE_IFREG && e[i].len)
			assert_int_equal(archive_write_data(a, e[i].data, e[i].len), (ssize_t)e[i].len);
		archive_entry_free(ae);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static uint8_t *payload(size_t n, unsigned seed)
{
	uint8_t *p = malloc(n);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
	return p;
}

static void test_sniff(void **state)
{
	(void)state;
	put(tmp("text"), "hello world\n", 12);
	assert_int_equal(tza_bundle_sniff(tmp("text")), 0);
	assert_int_equal(tza_bundle_sniff(tmp("does-not-exist")), 0);
	put(tmp("gz"), "\x1f\x8b\x08\x00", 4);
	assert_int_equal(tza_bundle_sniff(tmp("gz")), 1);
	put(tmp("zip"), "PK\x03\x04rest", 8);
	assert_int_equal(tza_bundle_sniff(tmp("zip")), 1);
	put(tmp("pk-other"), "PK\x01\x02rest", 8);
	assert_int_equal(tza_bundle_sniff(tmp("pk-other")), 0);
	/* an uncompressed ustar archive */
	struct archive *a = archive_write_new();
	archive_write_set_format_ustar(a);
	assert_int_equal(archive_write_open_filename(a, tmp("plain.tar")), ARCHIVE_OK);
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, "x/trace.tz");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 5);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, "TZ123", 5), 5);
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
	assert_int_equal(tza_bundle_sniff(tmp("plain.tar")), 1);
	const void *buf;
	size_t len;
	const char *m;
	assert_int_equal(tza_bundle_trace(tmp("plain.tar"), &buf, &len, &m), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, "TZ123", 5);
	assert_string_equal(m, "x/trace.tz");
}

static void roundtrip(const char *out)
{
	size_t n = 300000;
	uint8_t *tr = payload(n, 7);
	put(tmp("in.tz"), tr, n);
	put(tmp("readme"), "read me\n", 8);
	const struct tza_bundle_file files[] = {{"trace.tz", tmp("in.tz"), 0600}, {"README.txt", tmp("readme"), 0}};
	assert_int_equal(tza_bundle_write(out, NULL, "rep", files, 2, 0), 0);
	assert_int_equal(tza_bundle_sniff(out), 1);
	const void *buf, *buf2;
	size_t len, len2;
	const char *m, *m2;
	assert_int_equal(tza_bundle_trace(out, &buf, &len, &m), 0);
	assert_int_equal(len, n);
	assert_memory_equal(buf, tr, n);
	assert_string_equal(m, "rep/trace.tz");
	/* the registry hands out the same copy for the same unchanged file */
	assert_int_equal(tza_bundle_trace(out, &buf2, &len2, &m2), 0);
	assert_ptr_equal(buf, buf2);
	assert_int_equal(len2, n);
	free(tr);
}

static void test_roundtrip_tgz(void **state)
{
	(void)state;
	roundtrip(tmp("r.tar.gz"));
	/* no temporary file left beside the output */
	char tmpname[300];
	snprintf(tmpname, sizeof(tmpname), "%s.tmp.%ld", tmp("r.tar.gz"), (long)getpid());
	assert_int_not_equal(access(tmpname, F_OK), 0);
}

static void test_roundtrip_zip(void **state)
{
	(void)state;
	roundtrip(tmp("r.zip"));
}

static void test_write_refuses_unknown_type(void **state)
{
	(void)state;
	put(tmp("f"), "x", 1);
	const struct tza_bundle_file files[] = {{"f", tmp("f"), 0}};
	assert_int_equal(tza_bundle_out_ok("a.tar.gz"), 1);
	assert_int_equal(tza_bundle_out_ok("a.tgz"), 1);
	assert_int_equal(tza_bundle_out_ok("a.zip"), 1);
	assert_int_equal(tza_bundle_out_ok("a.rar"), 0);
	assert_int_equal(tza_bundle_write(tmp("x.rar"), NULL, "t", files, 1, 0), -1);
	assert_int_not_equal(access(tmp("x.rar"), F_OK), 0);
	/* a missing input: no archive left behind */
	const struct tza_bundle_file bad[] = {{"f", tmp("missing"), 0}};
	assert_int_equal(tza_bundle_write(tmp("bad.tar.gz"), NULL, "t", bad, 1, 0), -1);
	assert_int_not_equal(access(tmp("bad.tar.gz"), F_OK), 0);
}

static void test_which_member(void **state)
{
	(void)state;
	const struct ent two[] = {
		{"r/a.tz", AE_IFREG, NULL, "AAAA", 4},
		{"r/trace.tz", AE_IFREG, NULL, "TTTTTT", 6},
		{"r/z.tz", AE_IFREG, NULL, "ZZ", 2},
	};
	raw_archive(tmp("two.tar.gz"), 0, two, 3);
	const void *buf;
	size_t len;
	const char *m;
	assert_int_equal(tza_bundle_trace(tmp("two.tar.gz"), &buf, &len, &m), 0);
	assert_string_equal(m, "r/trace.tz");
	assert_int_equal(len, 6);
	const struct ent first[] = {
		{"r/", AE_IFDIR, NULL, NULL, 0},
		{"r/b.tz", AE_IFREG, NULL, "BBB", 3},
		{"r/c.tz", AE_IFREG, NULL, "CC", 2},
	};
	raw_archive(tmp("first.zip"), 1, first, 3);
	assert_int_equal(tza_bundle_trace(tmp("first.zip"), &buf, &len, &m), 0);
	assert_string_equal(m, "r/b.tz");
	assert_memory_equal(buf, "BBB", 3);
}

static void refuse(const char *name, int zip, const struct ent *e, size_t n)
{
	raw_archive(tmp(name), zip, e, n);
	const void *buf = NULL;
	size_t len = 0;
	const char *m = NULL;
	assert_int_equal(tza_bundle_trace(tmp(name), &buf, &len, &m), -1);
	assert_null(buf);
}

static void test_hostile(void **state)
{
	(void)state;
	const struct ent trav[] = {{"r/../../x", AE_IFREG, NULL, "x", 1},
				   {"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("trav.tar.gz", 0, trav, 2);
	refuse("trav.zip", 1, trav, 2);
	const struct ent trav2[] = {{"..", AE_IFDIR, NULL, NULL, 0},
				    {"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("trav2.tar.gz", 0, trav2, 2);
	const struct ent abs[] = {{"/tmp/x", AE_IFREG, NULL, "x", 1},
				  {"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("abs.tar.gz", 0, abs, 2);
	const struct ent sym[] = {{"r/trace.tz", AE_IFLNK, "/etc/passwd", NULL, 0}};
	refuse("sym.tar.gz", 0, sym, 1);
	const struct ent dev[] = {{"r/trace.tz", AE_IFREG, NULL, "T", 1},
				  {"r/null", AE_IFCHR, NULL, NULL, 0}};
	refuse("dev.tar.gz", 0, dev, 2);
	const struct ent fifo[] = {{"r/p", AE_IFIFO, NULL, NULL, 0},
				   {"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("fifo.tar.gz", 0, fifo, 2);
	const struct ent none[] = {{"r/README.txt", AE_IFREG, NULL, "hi", 2}};
	refuse("none.tar.gz", 0, none, 1);
	refuse("none.zip", 1, none, 1);
	refuse("empty.tar.gz", 0, none, 0);
}

static void test_cap(void **state)
{
	(void)state;
	size_t n = (2u << 20) + 1;
	uint8_t *big = payload(n, 3);
	const struct ent e[] = {{"r/trace.tz", AE_IFREG, NULL, big, n}};
	setenv("TRACER_BUNDLE_MAX_MB", "2", 1);
	refuse("big.tar.gz", 0, e, 1);
	refuse("big.zip", 1, e, 1);
	/* a non-trace member over the cap is refused too */
	const struct ent e2[] = {{"r/blob.bin", AE_IFREG, NULL, big, n},
				 {"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("bigother.tar.gz", 0, e2, 2);
	/* just under the cap is fine */
	const struct ent ok[] = {{"r/trace.tz", AE_IFREG, NULL, big, n - 2}};
	raw_archive(tmp("under.tar.gz"), 0, ok, 1);
	const void *buf;
	size_t len;
	const char *m;
	assert_int_equal(tza_bundle_trace(tmp("under.tar.gz"), &buf, &len, &m), 0);
	assert_int_equal(len, n - 2);
	unsetenv("TRACER_BUNDLE_MAX_MB");
	free(big);
}

static void test_bomb(void **state)
{
	(void)state;
	/* 80 MiB of zeros in a non-trace member: over 64 MiB at > 200:1 */
	size_t n = 80u << 20;
	uint8_t *z = calloc(1, n);
	assert_non_null(z);
	const struct ent e[] = {{"r/zeros.bin", AE_IFREG, NULL, z, n},
				{"r/trace.tz", AE_IFREG, NULL, "T", 1}};
	refuse("bomb.tar.gz", 0, e, 2);
	refuse("bomb.zip", 1, e, 2);
	free(z);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_bundle.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_roundtrip_tgz),
		cmocka_unit_test(test_roundtrip_zip),
		cmocka_unit_test(test_write_refuses_unknown_type),
		cmocka_unit_test(test_which_member),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_bomb),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
