/* SPDX-License-Identifier: BSD-2-Clause */
/* sigwork.c - who sent a signal (issue 15 point 6): one process killed by a
 * signal in each way, the kernel's or its own.
 *
 *   sigwork MODE
 *   MODE pipe     write to a pipe without readers (SIGPIPE, kernel)
 *        xfsz     write past RLIMIT_FSIZE (SIGXFSZ, kernel)
 *        xcpu     spin past RLIMIT_CPU's soft limit of 1 s (SIGXCPU, kernel),
 *                 writing its own CPU time (CLOCK_PROCESS_CPUTIME_ID, ns, one
 *                 native uint64 at offset 0) to xcpu.cpu about every 0.1 ms
 *                 of CPU: the last value is what it had used just before
 *        segv     write through NULL (SIGSEGV, fault)
 *        bus      touch a shared mapping past the end of its file (SIGBUS)
 *        fpe      divide by zero (SIGFPE)
 *        ill      ud2 (SIGILL)
 *        seccomp  a seccomp filter returns SECCOMP_RET_TRAP for getppid()
 *                 (SIGSYS)
 *        refault  a SIGSEGV handler restores SIG_DFL and returns: the fault
 *                 repeats and kills
 *        requeue  a SIGSEGV handler restores SIG_DFL and queues the signal
 *                 again to itself with the kernel's own siginfo
 *                 (rt_tgsigqueueinfo)
 *        kill     kill(getpid(), SIGTERM)
 *        raise    raise(SIGUSR1)
 *        abort    abort()
 * Files go to the current directory. Exit 1 when the signal did not kill.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HELPER_DIE_RC 2
#define HELPER_DIE_EXIT exit
#include "helper.h"

static void on_segv_return(int sig) { signal(sig, SIG_DFL); }

static void on_segv_requeue(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	signal(sig, SIG_DFL);
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), sig, si))
		die("rt_tgsigqueueinfo");
	/* the queued signal is delivered when the handler returns */
}

static void seccomp_trap_getppid(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		die("PR_SET_SECCOMP");
}

int main(int argc, char **argv)
{
	const char *m;
	static char buf[8192];
	int fd[2];

	if (argc != 2) {
		fprintf(stderr, "usage: sigwork MODE\n");
		return 2;
	}
	m = argv[1];
	if (!strcmp(m, "pipe")) {
		signal(SIGPIPE, SIG_DFL);
		if (pipe(fd))
			die("pipe");
		close(fd[0]);
		if (write(fd[1], "x", 1) < 0 && errno != EPIPE)
			die("write");
	} else if (!strcmp(m, "xfsz")) {
		struct rlimit rl = {4096, 4096};

		signal(SIGXFSZ, SIG_DFL);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			die("setrlimit");
		int f = open("xfsz.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (f < 0)
			die("open");
		if (write(f, buf, sizeof(buf)) < 0 || write(f, buf, sizeof(buf)) < 0)
			die("write");
	} else if (!strcmp(m, "xcpu")) {
		struct rlimit rl = {1, 10};
		volatile unsigned long x = 0;
		int f = open("xcpu.cpu", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (f < 0)
			die("open");
		signal(SIGXCPU, SIG_DFL);
		if (setrlimit(RLIMIT_CPU, &rl))
			die("setrlimit");
		for (;;) {
			struct timespec ts;
			uint64_t ns;

			for (int i = 0; i < 100000; i++)
				x++;
			if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
				die("clock_gettime");
			ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			if (pwrite(f, &ns, sizeof(ns), 0) != (ssize_t)sizeof(ns))
				die("pwrite");
		}
	} else if (!strcmp(m, "segv")) {
		*(volatile int *)(uintptr_t)0 = 1;
	} else if (!strcmp(m, "bus")) {
		int f = open("bus.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
		volatile char *p;

		if (f < 0)
			die("open");
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
		if (p == MAP_FAILED)
			die("mmap");
		p[0] = 1; /* the file is empty */
	} else if (!strcmp(m, "fpe")) {
		volatile int a = 1, b = 0;

		a = a / b;
	} else if (!strcmp(m, "ill")) {
		__builtin_trap();
	} else if (!strcmp(m, "seccomp")) {
		seccomp_trap_getppid();
		syscall(SYS_getppid);
	} else if (!strcmp(m, "refault")) {
		signal(SIGSEGV, on_segv_return);
		*(volatile int *)(uintptr_t)0 = 1;
	} else if (!strcmp(m, "requeue")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv_requeue;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		if (sigaction(SIGSEGV, &sa, NULL))
			die("sigaction");
		*(volatile int *)(uintptr_t)0 = 1;
	} else if (!strcmp(m, "kill")) {
		kill(getpid(), SIGTERM);
	} else if (!strcmp(m, "raise")) {
		raise(SIGUSR1);
	} else if (!strcmp(m, "abort")) {
		abort();
	} else {
		fprintf(stderr, "sigwork: unknown mode '%s'\n", m);
		return 2;
	}
	fprintf(stderr, "sigwork: %s: still alive\n", m);
	return 1;
}
