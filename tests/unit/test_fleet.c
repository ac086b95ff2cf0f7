/* SPDX-License-Identifier: BSD-2-Clause */
/* test_fleet.c - the processes already read from earlier host traces
 * (analyze/fleet.c, tza_fleet_seen): one process per (boot id, pid, start);
 * a run made anew host by host (analyze/fleet_rewrite.c) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/fleet.h"
#pragma GCC diagnostic ignored "-Wunused-function" /* the helpers this file does not use */
#include "analyze_synth.h"

/* hosts 0 and 2 are one boot (overlapping traces of one machine), 1 another,
 * 3 one whose boot id was not recorded (all zero), like 4 */
static struct tz_member mem[5];
static struct tza_hostsrc hs[5];
static struct tza_fleet fl = {.h = hs, .n = 5};

static void setup_fleet(void)
{
	memset(mem, 0, sizeof(mem));
	memset(mem[0].boot_id, 0xaa, 16);
	memset(mem[1].boot_id, 0xbb, 16);
	memset(mem[2].boot_id, 0xaa, 16);
	for (int i = 0; i < 5; i++)
		hs[i].me = &mem[i];
}

static void test_seen(void **state)
{
	(void)state;
	struct tza_fleet_seen s;
	setup_fleet();
	assert_int_equal(tza_fleet_seen_init(&s, 5), 0);
	/* host 0: 1000 processes, added in no order */
	for (uint32_t k = 0; k < 1000; k++) {
		uint32_t pid = (k * 7919) % 1000 + 100;
		assert_false(tza_fleet_seen_before(&s, &fl, 0, pid, 5000 + pid));
		assert_int_equal(tza_fleet_seen_add(&s, 0, pid, 5000 + pid), 0);
	}
	tza_fleet_seen_seal(&s, 0);
	/* host 1, another boot: the same (pid, start) is another process */
	assert_false(tza_fleet_seen_before(&s, &fl, 1, 150, 5150));
	assert_int_equal(tza_fleet_seen_add(&s, 1, 150, 5150), 0);
	tza_fleet_seen_seal(&s, 1);
	/* host 2, host 0's boot: its processes were seen; a pid reused later
	 * (another start) and another start of a pid are not */
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 150, 5150));
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 100, 5100));
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 1099, 6099));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 150, 9999));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 151, 5150));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 1100, 6100));
	/* the start is compared before the pid: no mix of the two words */
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 5150, 150));
	tza_fleet_seen_seal(&s, 2); /* nothing added: sealing is harmless */
	/* unknown boot ids never join: nothing proves one machine */
	assert_int_equal(tza_fleet_seen_add(&s, 3, 7, 70), 0);
	tza_fleet_seen_seal(&s, 3);
	assert_false(tza_fleet_seen_before(&s, &fl, 4, 7, 70));
	/* a host sees only the hosts before it */
	assert_false(tza_fleet_seen_before(&s, &fl, 0, 150, 5150));
	tza_fleet_seen_free(&s);
	tza_fleet_seen_free(&s); /* free twice: a no-op */
}

static void test_hex(void **state)
{
	(void)state;
	char out[33];
	const uint8_t b[16] = {0x00, 0x01, 0xab, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7e};
	tza_fleet_hex16(out, b);
	assert_string_equal(out, "0001abff10000000000000000000007e");
}

/* ---------------------------------------------------------- rewrite */

static char dir[64];

/* Three small traces h0.tz h1.tz h2.tz in a new directory, each one process
 * (pid 100 + i). */
static void write_hosts(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_fleet.XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		struct synth s = {0};
		char path[128];
		size_t len;
		s_proc(&s, 1, 100 + (uint32_t)i, T0 + MS, T0 + 50 * MS, "/bin/true", "true", "true",
		       (struct exit_vals){0});
		void *buf = synth_file(&s, NULL, &len);
		snprintf(path, sizeof(path), "%s/h%d.tz", dir, i);
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		free(buf);
		synth_free(&s);
	}
}

/* entries of dir whose name starts with a dot but . and .. */
static int hidden_files(void)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* fn: keep what the plan says for host i: 'k' a copy of its bytes, 'o' left
 * out, 'f' failure (after writing part of the file, as a failing command may) */
static int plan_fn(void *ctx, const struct tza_fleet *f, size_t i, const char *tmp,
		   const char *label)
{
	const char *plan = ctx;
	assert_non_null(strstr(label, "[")); /* "OUT[k]" */
	FILE *o = fopen(tmp, "wb");
	assert_non_null(o);
	size_t len = plan[i] == 'k' ? f->h[i].me->len : 10;
	assert_int_equal(fwrite(f->h[i].me->data, 1, len, o), len);
	fclose(o);
	return plan[i] == 'k' ? 1 : plan[i] == 'o' ? 0 : -1;
}

static int rewrite(const char *plan, const char *out, size_t *kept)
{
	struct tza_fleet f;
	char *args[1] = {dir};
	const char *extra[2] = {"test", "yes"};
	struct tza_rewrite w = {.cmd = "test", .out = out, .fn = plan_fn, .ctx = (void *)plan,
				.extra = extra, .nextra = 1};
	assert_int_equal(tza_fleet_open("test", args, 1, &f), 0);
	assert_int_equal(f.n, 3);
	int rc = tza_fleet_rewrite(&w, &f, kept);
	tza_fleet_free(&f);
	return rc;
}

static void test_rewrite(void **state)
{
	(void)state;
	char out[128];
	size_t kept = 99;
	write_hosts();
	snprintf(out, sizeof(out), "%s/out.tz", dir);
	/* host 1 left out: the other two, byte for byte, in order */
	assert_int_equal(rewrite("kok", out, &kept), 0);
	assert_int_equal(kept, 2);
	assert_int_equal(hidden_files(), 0);
	tz_multi *mt = NULL;
	assert_int_equal(tz_multi_open(&mt, out, NULL), 0);
	assert_true(tz_multi_is_container(mt));
	assert_int_equal(tz_multi_count(mt), 2);
	assert_string_equal(tz_multi_meta_get(mt, "test"), "yes");
	assert_string_equal(tz_multi_meta_get(mt, "members"), "2");
	for (int k = 0; k < 2; k++) {
		char src[128];
		snprintf(src, sizeof(src), "%s/h%d.tz", dir, 2 * k);
		assert_string_equal(tz_multi_member(mt, (size_t)k)->source, src);
	}
	tz_multi_free(mt);
	/* OUT exists: refused without force, kept as it was */
	struct stat before, after;
	assert_int_equal(stat(out, &before), 0);
	assert_int_equal(rewrite("kkk", out, &kept), -1);
	assert_int_equal(stat(out, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(hidden_files(), 0);
	unlink(out);
	/* a failure on host 1: nothing written, no hidden file left */
	assert_int_equal(rewrite("kfk", out, &kept), -1);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(hidden_files(), 0);
	/* every host left out: 0 kept, nothing written */
	assert_int_equal(rewrite("ooo", out, &kept), 0);
	assert_int_equal(kept, 0);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(hidden_files(), 0);
}

/* the directory goes also after a failed assertion */
static int rewrite_teardown(void **state)
{
	(void)state;
	remove_dir();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_hex),
		cmocka_unit_test_teardown(test_rewrite, rewrite_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
