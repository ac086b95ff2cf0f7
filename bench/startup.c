/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * startup.c - the clock readings of bench/startup.sh (built by it).
 *
 *   bench-startup --stamp FILE
 *       COMMAND: append CLOCK_BOOTTIME ns (one line) to FILE and exit 0.
 *   bench-startup RECORDER-ARGV... -- (the last "--" ends the recorder's
 *       argv; COMMAND is appended by the caller as usual)
 *       fork; the child reads CLOCK_BOOTTIME just before it execs the
 *       argv; the parent reads it again once the child is reaped. Prints
 *       "EXEC_NS END_NS STATUS CPU_NS" on stdout: CPU_NS is the child's
 *       user + system time (wait4; the processes it reaped included).
 *
 * With COMMAND = "bench-startup --stamp F": F's line minus EXEC_NS is the
 * time from the recorder's exec to COMMAND's first instructions (COMMAND's
 * own exec and dynamic loading included, which the "none" row measures on
 * its own), END_NS minus it the time from COMMAND's exit to the recorder's
 * exit (its file sealed).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t t0, t1, cpu;
	struct rusage ru;
	int st, p[2];
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--stamp")) {
		FILE *f = fopen(argv[2], "a");

		t0 = boot_ns();
		if (!f)
			return 1;
		fprintf(f, "%llu\n", (unsigned long long)t0);
		return fclose(f) ? 1 : 0;
	}
	if (argc < 2 || pipe(p)) {
		fprintf(stderr, "usage: bench-startup --stamp FILE | bench-startup ARGV...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		t0 = boot_ns();
		close(p[0]);
		if (write(p[1], &t0, sizeof(t0)) != sizeof(t0))
			_exit(127);
		close(p[1]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &t0, sizeof(t0)) != sizeof(t0))
		t0 = 0;
	close(p[0]);
	if (wait4(pid, &st, 0, &ru) != pid)
		return 1;
	t1 = boot_ns();
	cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	      ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	printf("%llu %llu %d %llu\n", (unsigned long long)t0, (unsigned long long)t1,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), (unsigned long long)cpu);
	return 0;
}
