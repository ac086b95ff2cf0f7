/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helper.h - what the workload helpers (tests/helpers/X.c) share; header
 * only, libc only.
 *
 *   die(what)    "NAME: what: strerror(errno)" on stderr, then end the
 *                process with HELPER_DIE_RC (define it before including;
 *                default 99) through HELPER_DIE_EXIT (default _exit: no
 *                stdio flush, no atexit handlers, so a forked child that
 *                dies does not replay its parent's buffers)
 *   nap_ms(ms)   sleep ms milliseconds, resumed across signals
 *   read_once(path, buf, size)
 *                open path, read(2) it once (at most size - 1 bytes) into
 *                buf, NUL-terminate, close; returns the bytes read (> 0);
 *                dies with "open PATH" or "read PATH" (nothing or an error
 *                read). One read: what a /proc/self file's counters see.
 */
#ifndef TESTS_HELPER_H
#define TESTS_HELPER_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HELPER_DIE_RC
#define HELPER_DIE_RC 99
#endif
#ifndef HELPER_DIE_EXIT
#define HELPER_DIE_EXIT _exit
#endif

extern char *program_invocation_short_name;

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	HELPER_DIE_EXIT(HELPER_DIE_RC);
}

static inline void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* die("VERB PATH") with the errno of the failure */
static inline void die_path(const char *verb, const char *path)
{
	char what[300];
	int e = errno;

	snprintf(what, sizeof(what), "%s %s", verb, path);
	errno = e;
	die(what);
}

static inline ssize_t read_once(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die_path("open", path);
	n = read(fd, buf, size - 1);
	if (n <= 0)
		die_path("read", path);
	buf[n] = 0;
	close(fd);
	return n;
}

#endif
