/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_btfcache.c - libFuzzer target for the recorder's reader of its BTF
 * cache file (record/btfcache.c, btfc_open: the header, the key enum and
 * its names are read before libbpf ever sees the file): any bytes are
 * written as DIR/vmlinux.btf in a private directory (root's, mode 0700,
 * TRACER_RECORD_BTF_CACHE) and the cache is opened, its status and
 * tracepoints asked, and closed. The boot id is pinned
 * (TRACER_RECORD_TEST_BOOT_ID) and the object hashed is empty, so a saved
 * key matches on any machine but for the kernel BTF's size. Not root: the
 * directory is refused before the file is read (nothing to fuzz). Nothing
 * may crash, overrun, leak or leave a descriptor open. Built by `make
 * fuzz`; the replay driver runs it over tests/fuzz/corpus_btfcache (seeds
 * written by tests/fuzz/gen_btfcache_seeds.py) in `make test`.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/btfcache.h"

static char dir[64], file[96];
static uint64_t sink;

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/fuzz_btfcache.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/vmlinux.btf", dir);
	atexit(cleanup);
	setenv("TRACER_RECORD_BTF_CACHE", dir, 1);
	setenv("TRACER_RECORD_TEST_BOOT_ID", "0123456789abcdef0123456789abcdef", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0)
		return 0;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 0;
	ssize_t n = write(fd, data, size);
	fchmod(fd, 0644);
	close(fd);
	if (n != (ssize_t)size)
		return 0;
	struct btfc *c = btfc_open(NULL, 0);
	const char *path = btfc_path(c);
	sink += strlen(btfc_status(c)) + (path ? strlen(path) : 0);
	sink += (uint64_t)(btfc_tp(c, "sched_switch") + btfc_tp(c, "sched_process_exec") + 2);
	btfc_free(c, NULL, 0);
	return 0;
}
