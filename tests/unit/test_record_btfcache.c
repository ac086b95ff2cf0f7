/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_btfcache.c - the BTF cache's checks (record/btfcache.h) on
 * cache files made by the test: used only when well-formed, of this boot
 * and kernel, in a directory of root's alone; libbpf's flavour rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#define XXH_INLINE_ALL
#include <cmocka.h>
#include <xxhash.h>

#include "helper.h"

#include "record/btfcache.h"

#define BOOT "01234567-89ab-cdef-0123-456789abcdef"
static char root[256];

static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/test_btfcache.%d", (int)getpid());
	assert_int_equal(mkdir(root, 0700), 0);
	setenv("TRACER_RECORD_BTF_CACHE", root, 1);
	setenv("TRACER_RECORD_TEST_BOOT_ID", BOOT, 1);
	return 0;
}

/* the directory holds the cache file at most */
static int teardown(void **st)
{
	char p[512];

	(void)st;
	snprintf(p, sizeof(p), "%s/vmlinux.btf", root);
	unlink(p);
	return rmdir(root);
}

static void test_essential_len(void **st)
{
	(void)st;
	assert_int_equal(btfc_essential_len("task_struct"), 11);
	assert_int_equal(btfc_essential_len("task_struct___old"), 11);
	assert_int_equal(btfc_essential_len("a___b"), 1);
	assert_int_equal(btfc_essential_len("x___"), 4);
	assert_int_equal(btfc_essential_len("___x"), 4);
	assert_int_equal(btfc_essential_len("x____y"), 6);
	assert_int_equal(btfc_essential_len(""), 0);
}

/* the BPF object the tests' caches are for */
static const char obj_bytes[] = "an object";
static char obj_key[24];

/* a cache file: a struct, then the key enum with these values (boot, obj:
 * NULL for none) */
static void put_cache(int format, const char *boot, const char *obj, long long btf_size)
{
	struct btf *b = btf__new_empty();
	char p[512];
	uint32_t size;

	assert_non_null(b);
	/* the key first (type 1, its names first), as the build writes it */
	assert_int_equal(btf__add_enum(b, "tracer_record_btf_cache", 4), 1);
	assert_int_equal(btf__add_enum_value(b, "format", format), 0);
	if (boot)
		assert_int_equal(btf__add_enum_value(b, boot, 0), 0);
	if (obj)
		assert_int_equal(btf__add_enum_value(b, obj, 0), 0);
	assert_int_equal(btf__add_enum_value(b, "btf_size", btf_size), 0);
	assert_int_equal(btf__add_enum_value(b, "tp_mark_victim", 1), 0);
	assert_int_equal(btf__add_enum_value(b, "tp_signal_generate", 0), 0);
	assert_true(btf__add_int(b, "int", 4, BTF_INT_SIGNED) > 0);
	assert_true(btf__add_struct(b, "task_struct", 4) > 0);
	assert_int_equal(btf__add_field(b, "pid", 2, 0, 0), 0);
	const void *raw = btf__raw_data(b, &size);
	snprintf(p, sizeof(p), "%s/vmlinux.btf", root);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(raw, 1, size, f), size);
	fclose(f);
	chmod(p, 0600);
	btf__free(b);
}

/* btfc_open's verdict on the cache as it is now, for obj_bytes */
static void expect(const char *status)
{
	struct btfc *c = btfc_open(obj_bytes, sizeof(obj_bytes));
	assert_non_null(c);
	assert_string_equal(btfc_status(c), status);
	if (!strcmp(status, "used")) {
		assert_non_null(btfc_path(c));
		assert_int_equal(strncmp(btfc_path(c), "/proc/self/fd/", 14), 0);
		assert_int_equal(btfc_tp(c, "mark_victim"), 1);
		assert_int_equal(btfc_tp(c, "signal_generate"), 0);
		assert_int_equal(btfc_tp(c, "sched_switch"), -1);
		btfc_reject(c);
		assert_null(btfc_path(c));
	} else {
		assert_null(btfc_path(c));
		assert_int_equal(btfc_tp(c, "mark_victim"), -1);
	}
	btfc_free(c, NULL, 0);
}

static void test_checks(void **st)
{
	struct stat kst;
	char p[512];
	(void)st;

	if (stat("/sys/kernel/btf/vmlinux", &kst) || getuid() != 0) {
		/* the key needs the kernel's BTF; ownership checks need root */
		expect(getuid() ? "directory not root's alone" : "no boot id or kernel BTF");
		return;
	}
	const char *boot = "boot_0123456789abcdef0123456789abcdef";
	snprintf(obj_key, sizeof(obj_key), "obj_%016llx",
		 (unsigned long long)XXH3_64bits(obj_bytes, sizeof(obj_bytes)));
	expect("none");
	put_cache(1, boot, obj_key, kst.st_size);
	expect("used");
	put_cache(2, boot, obj_key, kst.st_size);
	expect("another format");
	put_cache(1, "boot_00000000000000000000000000000000", obj_key, kst.st_size);
	expect("stale: another boot or kernel");
	put_cache(1, NULL, obj_key, kst.st_size);
	expect("stale: another boot or kernel");
	put_cache(1, boot, obj_key, kst.st_size + 1);
	expect("stale: another boot or kernel");
	put_cache(1, boot, "obj_0000000000000000", kst.st_size);
	expect("stale: another recorder");
	put_cache(1, boot, NULL, kst.st_size);
	expect("stale: another recorder");

	/* not BTF; cut short */
	snprintf(p, sizeof(p), "%s/vmlinux.btf", root);
	FILE *f = fopen(p, "w");
	fputs("not a BTF file at all", f);
	fclose(f);
	expect("malformed");
	put_cache(1, boot, obj_key, kst.st_size);
	assert_int_equal(truncate(p, 40), 0);
	expect("malformed");

	/* writable by others: file, then directory */
	put_cache(1, boot, obj_key, kst.st_size);
	chmod(p, 0666);
	expect("not a regular file of root's");
	chmod(p, 0600);
	expect("used");
	chmod(root, 0777);
	expect("directory not root's alone");
	chmod(root, 0700);

	/* the cache off */
	setenv("TRACER_RECORD_BTF_CACHE", "off", 1);
	expect("off");
	setenv("TRACER_RECORD_BTF_CACHE", root, 1);
	expect("used");
}

TEST_MAIN(setup, teardown, cmocka_unit_test(test_essential_len), cmocka_unit_test(test_checks))
