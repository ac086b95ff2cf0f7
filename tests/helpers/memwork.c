/* SPDX-License-Identifier: BSD-2-Clause */
/* memwork.c - memory workloads for the sampling tests (issue 6).
 *
 *   memwork peak MIB HOLD AFTER  map and touch MIB MiB, hold them HOLD s,
 *                                unmap, then stay AFTER s more (exit 0)
 *   memwork hog                  touch 1 MiB more every ms until killed
 *                                (the OOM killer's victim)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "peak")) {
		size_t len = strtoull(argv[2], NULL, 10) << 20;
		char *p =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		memset(p, 1, len);
		sleep_s(atof(argv[3]));
		munmap(p, len);
		sleep_s(atof(argv[4]));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "hog")) {
		for (;;) {
			char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				return 2;
			memset(p, 1, 1 << 20);
			sleep_s(0.001);
		}
	}
	fprintf(stderr, "usage: memwork peak MIB HOLD AFTER | memwork hog\n");
	return 2;
}
