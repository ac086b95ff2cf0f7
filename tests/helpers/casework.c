/* SPDX-License-Identifier: BSD-2-Clause */
/* casework.c - workloads of the reported-fault cases (../shared/cases,
 * tests/integration/27_record_cases.sh) that print their own truth: what
 * the kernel told the process itself or its parent, never what tracer saw.
 *
 *   casework rusage          C25: a child sleeps 200 x 1 ms, faults in
 *                            20 MiB and burns 0.3 s of CPU, reading its
 *                            own getrusage() after each ms; the parent
 *                            reaps it with wait4() and prints
 *                            "rusage PID UTIME_US STIME_US MAXRSS_KIB
 *                             MINFLT MAJFLT NVCSW NIVCSW"
 *   casework hwm MIB         C23: touches MIB MiB, then prints
 *                            "hwm PID VMHWM_KIB" from /proc/self/status
 *                            (its last act: nothing is touched after it)
 *                            and exits; run as a child of "casework reap"
 *                            to get wait4's ru_maxrss as well
 *   casework hwmexec MIB CMD...
 *                            an image of an exec chain: touches MIB MiB,
 *                            prints "hwmexec PID VMHWM_KIB RU_MAXRSS_KIB"
 *                            (/proc/self/status, getrusage(RUSAGE_SELF):
 *                            its last reads before the exec) and execs CMD
 *   casework reap CMD...     fork+exec CMD, wait4() it, print
 *                            "reaped PID STATUS MAXRSS_KIB"
 *   casework reaplate        C22: a child exits after 0.25 s; the parent
 *                            sees it a zombie (waitid WNOWAIT), waits 3 s
 *                            more, then reaps it. Prints
 *                            "late CHILD T_EXIT_NS T_ZOMBIE_NS T_REAP_NS":
 *                            CLOCK_BOOTTIME read by the child just before
 *                            _exit(), by the parent once the child was a
 *                            zombie, and by the parent just before wait4()
 *
 * Lines go to stdout, unbuffered writes, one per line. Exit 0, or 99 with a
 * message on stderr when a system call fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static unsigned long long now_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		die("clock_gettime");
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void nap_ns(long long ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* one line, one write(2) */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char b[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(b) || write(1, b, (size_t)n) != n)
		die("write");
}

static void touch(size_t mib)
{
	size_t len = mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	/* kept mapped: the peak is the resident set at exit */
}

static void burn_cpu_ns(unsigned long long ns)
{
	unsigned long long t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	volatile unsigned long x = 0;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < ns)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

/* fork, run fn(arg) in the child (it never returns), reap it with wait4 */
static pid_t run_child(void (*fn)(void *), void *arg, int *status, struct rusage *ru)
{
	pid_t r, c = fork();

	if (c < 0)
		die("fork");
	if (!c) {
		fn(arg);
		_exit(98);
	}
	while ((r = wait4(c, status, 0, ru)) < 0 && errno == EINTR)
		;
	if (r < 0)
		die("wait4");
	return c;
}

static void rusage_child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		nap_ns(1000000);
	touch(20);
	/* its own getrusage() between 1 ms slices: each moves the kernel's
	 * signal->prev_cputime, which then holds wait4's split (C25) */
	for (int i = 0; i < 300; i++) {
		struct rusage ru;
		burn_cpu_ns(1000000ull);
		if (getrusage(RUSAGE_SELF, &ru))
			die("getrusage");
	}
	_exit(0);
}

static int do_rusage(void)
{
	struct rusage ru;
	int st;
	pid_t c = run_child(rusage_child, NULL, &st, &ru);

	say("rusage %d %lld %lld %ld %ld %ld %ld %ld\n", (int)c,
	    (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_maxrss,
	    ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw);
	return 0;
}

static int do_hwm(size_t mib)
{
	char b[4096];
	const char *h;

	touch(mib);
	read_once("/proc/self/status", b, sizeof(b));
	h = strstr(b, "VmHWM:");
	if (!h)
		die("no VmHWM");
	say("hwm %d %lld\n", (int)getpid(), strtoll(h + 6, NULL, 10));
	_exit(0);
}

static int do_hwmexec(size_t mib, char **cmd)
{
	char b[4096];
	const char *h;
	struct rusage ru;

	touch(mib);
	read_once("/proc/self/status", b, sizeof(b));
	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	h = strstr(b, "VmHWM:");
	if (!h)
		die("no VmHWM");
	say("hwmexec %d %lld %ld\n", (int)getpid(), strtoll(h + 6, NULL, 10), ru.ru_maxrss);
	execvp(cmd[0], cmd);
	die(cmd[0]);
	return 99;
}

static void exec_child(void *arg)
{
	char **cmd = arg;

	execvp(cmd[0], cmd);
	die(cmd[0]);
}

static int do_reap(char **cmd)
{
	struct rusage ru;
	int st;
	pid_t c = run_child(exec_child, cmd, &st, &ru);

	say("reaped %d %d %ld\n", (int)c, st, ru.ru_maxrss);
	return 0;
}

static int do_reaplate(void)
{
	int pfd[2];
	unsigned long long t_exit = 0, t_zombie, t_reap;
	siginfo_t si;
	int st;
	pid_t c;

	if (pipe(pfd))
		die("pipe");
	c = fork();
	if (c < 0)
		die("fork");
	if (!c) {
		unsigned long long t;

		close(pfd[0]);
		nap_ns(250000000);
		t = now_ns(CLOCK_BOOTTIME);
		if (write(pfd[1], &t, sizeof(t)) != sizeof(t))
			die("write pipe");
		_exit(0);
	}
	close(pfd[1]);
	while (waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT))
		if (errno != EINTR)
			die("waitid");
	t_zombie = now_ns(CLOCK_BOOTTIME);
	if (read(pfd[0], &t_exit, sizeof(t_exit)) != sizeof(t_exit))
		die("read pipe");
	nap_ns(3000000000ll);
	t_reap = now_ns(CLOCK_BOOTTIME);
	while (waitpid(c, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	say("late %d %llu %llu %llu\n", (int)c, t_exit, t_zombie, t_reap);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "rusage"))
		return do_rusage();
	if (argc == 3 && !strcmp(argv[1], "hwm"))
		return do_hwm((size_t)strtoul(argv[2], NULL, 10));
	if (argc >= 4 && !strcmp(argv[1], "hwmexec"))
		return do_hwmexec((size_t)strtoul(argv[2], NULL, 10), argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "reap"))
		return do_reap(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "reaplate"))
		return do_reaplate();
	fprintf(stderr, "usage: casework rusage | hwm MIB | hwmexec MIB CMD... | reap CMD... | "
			"reaplate\n");
	return 2;
}
