/* SPDX-License-Identifier: BSD-2-Clause */
/* recwork.c - workloads for the recorder's integration tests, one per
 * subcommand. Each prints nothing unless asked and exits with a known code.
 *
 *   recwork exit N            exit(N) (259 -> status 3)
 *   recwork segv              write through NULL (SIGSEGV)
 *   recwork sleep SEC         sleep
 *   recwork burn SEC THREADS  THREADS threads each burning SEC s of user CPU
 *   recwork burnexec SEC THREADS PROG [ARG..]  burn as burn, join the threads,
 *                             then execv(PROG, {PROG, ARG..}) (exec chains: CPU per image)
 *   recwork threads N         create and join N short threads (C01)
 *   recwork touch MIB [CMD..] touch MIB MiB, then fork+exec CMD and wait
 *   recwork write BYTES FILE  write BYTES bytes to FILE (64 KiB writes)
 *   recwork execls N          N x fork + execve("/bin/ls", literal argv) (C03)
 *   recwork execfail          execve("/no/such/file") then execve("/usr/bin/true") (C09)
 *   recwork spawn             fork, vfork, clone3, posix_spawn, clone(CLONE_PARENT)
 *                             children, each execs /bin/true (C06)
 *   recwork memfd [NAME ARGV0] fexecve /bin/true from memfd NAME (default "job")
 *                             with argv[0] ARGV0 (default "job"; "FD": the memfd's
 *                             /proc/self/fd/N path) (C12d)
 *   recwork emptyargv         execve("/usr/bin/sh", {NULL}) with -c-less stdin /dev/null (C12e)
 *   recwork argv0 NAME PROG.. execve(PROG, {NAME, ARGS...}) (C12f)
 *   recwork rename NAME SEC   prctl(PR_SET_NAME, NAME), burn SEC (C11)
 *   recwork storm N           N sequential fork + execve("/bin/true") + wait
 *   recwork sleepers N SEC    N children sleeping SEC s concurrently (each from
 *                             the moment all N exist), waited
 *   recwork printf            exec /usr/bin/printf with odd bytes (C05)
 *   recwork threadexec        a second thread execs /bin/true (de_thread)
 *   recwork leaderexit N      the main thread exits first; another thread
 *                             exits the process with N after 0.3 s
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void burn(double sec)
{
	double t0 = cpu_now();
	volatile unsigned long x = 0;

	while (cpu_now() - t0 < sec)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
}

static void *burn_thread(void *arg)
{
	burn(*(double *)arg);
	return NULL;
}

/* n threads (this one among them) each burn sec of CPU, then are joined;
 * -1 when n is out of 1..256 */
static int burn_threads(double sec, int n)
{
	pthread_t t[256];

	if (n < 1 || n > 256)
		return -1;
	for (int i = 1; i < n; i++)
		pthread_create(&t[i], NULL, burn_thread, &sec);
	burn(sec);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void *nop_thread(void *arg)
{
	return arg;
}

static void run_true(void);

static void *exec_thread(void *arg)
{
	(void)arg;
	run_true();
	return NULL;
}

static void *late_exit_thread(void *arg)
{
	struct timespec ts = {0, 300000000};

	nanosleep(&ts, NULL);
	exit(*(int *)arg);
	return NULL;
}

static int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

static void run_true(void)
{
	char *const av[] = {"/bin/true", NULL};

	execve("/bin/true", av, environ);
	_exit(127);
}

static int child_true_fn(void *arg)
{
	(void)arg;
	run_true();
	return 0;
}

static int cmd_spawn(void)
{
	pid_t pids[5];
	int n = 0;

	/* fork */
	pids[n] = fork();
	if (pids[n] == 0)
		run_true();
	n++;
	/* vfork */
	pids[n] = vfork();
	if (pids[n] == 0)
		run_true();
	n++;
	/* clone3 */
	{
		struct clone_args ca;
		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		long r = syscall(SYS_clone3, &ca, sizeof(ca));
		if (r == 0)
			run_true();
		pids[n++] = (pid_t)r;
	}
	/* posix_spawn */
	{
		char *const av[] = {"/bin/true", NULL};
		pid_t p;
		if (posix_spawn(&p, "/bin/true", NULL, NULL, av, environ) == 0)
			pids[n++] = p;
	}
	for (int i = 0; i < n; i++)
		wait_child(pids[i]);
	/* clone(CLONE_PARENT): the child is our parent's, not ours */
	{
		static char stack[64 * 1024];
		pid_t p = clone(child_true_fn, stack + sizeof(stack), CLONE_PARENT | SIGCHLD, NULL);
		if (p < 0)
			return 1;
		printf("%d\n", p);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "exit") && argc > 2)
		exit(atoi(argv[2]));
	if (!strcmp(c, "segv")) {
		volatile int *p = NULL;
		*p = 1;
		return 1;
	}
	if (!strcmp(c, "sleep") && argc > 2) {
		double s = atof(argv[2]);
		struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		return 0;
	}
	if (!strcmp(c, "burn") && argc > 3)
		return burn_threads(atof(argv[2]), atoi(argv[3])) ? 2 : 0;
	if (!strcmp(c, "burnexec") && argc > 4) {
		if (burn_threads(atof(argv[2]), atoi(argv[3])))
			return 2;
		execv(argv[4], argv + 4);
		return 127;
	}
	if (!strcmp(c, "threads") && argc > 2) {
		int n = atoi(argv[2]);
		for (int i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, nop_thread, NULL))
				return 1;
			pthread_join(t, NULL);
		}
		return 0;
	}
	if (!strcmp(c, "touch") && argc > 2) {
		size_t len = (size_t)atol(argv[2]) << 20;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < len; i += 4096)
			p[i] = 1;
		if (argc > 3) {
			pid_t pid = fork();
			if (pid == 0) {
				execv(argv[3], argv + 3);
				_exit(127);
			}
			wait_child(pid);
		}
		return 0;
	}
	if (!strcmp(c, "write") && argc > 3) {
		long total = atol(argv[2]);
		static char buf[65536];
		int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			return 1;
		while (total > 0) {
			long n = total < (long)sizeof(buf) ? total : (long)sizeof(buf);
			ssize_t w = write(fd, buf, (size_t)n);
			if (w <= 0)
				return 1;
			total -= w;
		}
		close(fd);
		return 0;
	}
	if (!strcmp(c, "execls") && argc > 2) {
		int n = atoi(argv[2]);
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				int fd = open("/dev/null", O_WRONLY);
				dup2(fd, 1);
				execve("/bin/ls", (char *const[]){"/bin/ls", "-la", "/tmp", NULL}, environ);
				_exit(127);
			}
			wait_child(pid);
		}
		return 0;
	}
	if (!strcmp(c, "execfail")) {
		execve("/no/such/file", (char *const[]){"/no/such/file", NULL}, environ);
		execve("/usr/bin/true", (char *const[]){"/usr/bin/true", NULL}, environ);
		return 1;
	}
	if (!strcmp(c, "spawn"))
		return cmd_spawn();
	if (!strcmp(c, "memfd")) {
		const char *name = argc > 3 ? argv[2] : "job";
		int in = open("/bin/true", O_RDONLY), fd = memfd_create(name, MFD_CLOEXEC);
		char a0[64];
		char buf[65536];
		ssize_t n;
		if (in < 0 || fd < 0)
			return 1;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(fd, buf, (size_t)n) != n)
				return 1;
		snprintf(a0, sizeof(a0), "/proc/self/fd/%d", fd);
		if (argc > 3 && strcmp(argv[3], "FD"))
			snprintf(a0, sizeof(a0), "%s", argv[3]);
		else if (argc <= 3)
			snprintf(a0, sizeof(a0), "job");
		fexecve(fd, (char *const[]){a0, NULL}, environ);
		return 1;
	}
	if (!strcmp(c, "emptyargv")) {
		char *const av[] = {NULL};
		execve("/usr/bin/sh", av, environ);
		return 1;
	}
	if (!strcmp(c, "argv0") && argc > 3) {
		const char *prog = argv[3];
		argv[3] = argv[2];
		execve(prog, argv + 3, environ);
		return 1;
	}
	if (!strcmp(c, "rename") && argc > 3) {
		prctl(PR_SET_NAME, argv[2]);
		burn(atof(argv[3]));
		return 0;
	}
	if (!strcmp(c, "storm") && argc > 2) {
		int n = atoi(argv[2]);
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			if (pid == 0)
				run_true();
			if (pid < 0 || wait_child(pid) != 0)
				return 1;
		}
		return 0;
	}
	if (!strcmp(c, "sleepers") && argc > 3) {
		int n = atoi(argv[2]);
		double s = atof(argv[3]);
		/* every child lives until all N were forked (it reads the pipe
		 * to its end, which comes when the parent closes it after the
		 * last fork), then SEC s: N at once however slow the forks */
		int gate[2];
		if (pipe(gate) < 0)
			return 1;
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				char b;
				close(gate[1]);
				while (read(gate[0], &b, 1) < 0 && errno == EINTR)
					;
				struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
				nanosleep(&ts, NULL);
				_exit(0);
			}
		}
		close(gate[0]);
		close(gate[1]);
		while (wait(NULL) > 0 || errno == EINTR)
			;
		return 0;
	}
	if (!strcmp(c, "printf")) {
		char *const av[] = {"printf", "a b", "", "x\ny", "\xff\xfe", "\x01", "end", NULL};
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execve("/usr/bin/printf", av, environ);
		return 1;
	}
	if (!strcmp(c, "threadexec")) {
		pthread_t t;
		pthread_create(&t, NULL, exec_thread, NULL);
		pthread_join(t, NULL);
		return 1;
	}
	if (!strcmp(c, "leaderexit") && argc > 2) {
		static int code;
		pthread_t t;
		code = atoi(argv[2]);
		pthread_create(&t, NULL, late_exit_thread, &code);
		pthread_exit(NULL);
	}
	fprintf(stderr, "recwork: bad arguments (see the comment at the top of recwork.c)\n");
	return 2;
}
