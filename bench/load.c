/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * load.c - bench-load: the workloads of bench/run, and a small rusage wrapper.
 *
 *   bench-load [-r FILE] [-c COMM] [-C COMM] exec N J PROG   N fork+exec of PROG
 *   bench-load [-r FILE] [-c COMM] [-C COMM] fork N J        N fork+_exit
 *   bench-load [-r FILE] [-c COMM] thread N J                N pthread create+join
 *   bench-load [-r FILE] [-c COMM] [-C COMM] mix N J PROG    N rounds of a steady mix
 *   bench-load [-r FILE] [-c COMM] syscall N J               N 1-byte read()s of /dev/zero
 *   bench-load rusage FILE -- CMD [ARG...]                   run CMD, write its rusage
 *   bench-load bpfstats                                      hold BPF run-time stats on
 *
 * N is the total over J parallel workers (forked processes, or for `thread`
 * J threads alive at once; `syscall` is meant for J = 1: one process
 * making small syscalls, which costs nothing extra unless a recorder
 * attached a syscall tracepoint and put every task on the slow path). -c sets the comm of the workload (inherited by
 * the workers), -C the comm a fork-only child sets before it exits, so a
 * recorder's output can be matched against the expected count. PROG is run
 * as `PROG a<i>` (a short argv). -r FILE receives one line
 * "wall_ns utime_ns stime_ns start_ns end_ns" of the timed part: the
 * workload's own CPU time (self and all its children, RUSAGE_SELF +
 * RUSAGE_CHILDREN), and when it began and ended on CLOCK_MONOTONIC (the
 * window bench/run attributes a whole-machine CPU profile by). After FILE is
 * written, the environment variable BENCH_HOOK (if set) is run with
 * system(3) (bench/run uses it to read BPF run-time statistics while a
 * recorder that stops with its command is still attached).
 *
 * `rusage` forwards SIGINT/SIGTERM/SIGHUP to CMD and writes
 * "wall_ns utime_ns stime_ns maxrss_kib status" for CMD (wait4(2): CMD and
 * its waited-for descendants; maxrss is the largest of them).
 *
 * `bpfstats` enables BPF run-time statistics with BPF_ENABLE_STATS and holds
 * the fd until SIGTERM/SIGINT: unlike the kernel.bpf_stats_enabled sysctl
 * alone, another user switching the sysctl off meanwhile does not stop them.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *child_comm;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void wait_ok(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
}

static void run_exec(const char *prog, long i)
{
	char arg[32];
	pid_t pid;

	snprintf(arg, sizeof(arg), "a%ld", i);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	wait_ok(pid);
}

static void run_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (child_comm)
			prctl(PR_SET_NAME, child_comm, 0, 0, 0);
		_exit(0);
	}
	wait_ok(pid);
}

static volatile uint64_t sink;

static void *thread_fn(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;

	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink += x;
	return NULL;
}

static void burn(long iters)
{
	uint64_t x = 1;

	for (long i = 0; i < iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink += x;
}

/* One round of the steady mix: an exec with a long argv, an exec with a
 * short one, a fork-only child that writes 64 KiB to a file, 4 threads, a
 * short CPU burn in the worker itself. */
static void run_mix(const char *prog, long i)
{
	static char buf[65536];
	char arg[1100];
	pthread_t t[4];
	pid_t pid;

	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = 0;
	snprintf(arg, 16, "long%ld", i);
	arg[strlen(arg)] = '-';
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl(prog, prog, arg, "--flag", "value", (char *)NULL);
		_exit(127);
	}
	wait_ok(pid);
	run_exec(prog, i);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (child_comm)
			prctl(PR_SET_NAME, child_comm, 0, 0, 0);
		if (fd >= 0 && write(fd, buf, sizeof(buf)) < 0)
			_exit(1);
		_exit(0);
	}
	wait_ok(pid);
	for (int k = 0; k < 4; k++)
		if (pthread_create(&t[k], NULL, thread_fn, (void *)(uintptr_t)k))
			die("pthread_create");
	for (int k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	burn(100000);
}

struct tjob {
	long n;
};

static void *thread_worker(void *arg)
{
	struct tjob *j = arg;

	for (long i = 0; i < j->n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_fn, (void *)(uintptr_t)i))
			die("pthread_create");
		pthread_join(t, NULL);
	}
	return NULL;
}

/* n read()s of one byte from /dev/zero: the small-read loop of a tool that
 * reads unbuffered (dd bs=1, a byte-at-a-time parser). */
static void run_syscalls(long n)
{
	char b;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("/dev/zero");
	for (long i = 0; i < n; i++)
		if (read(fd, &b, 1) != 1)
			die("read /dev/zero");
	close(fd);
}

static void worker(const char *mode, long from, long to, const char *prog)
{
	if (!strcmp(mode, "syscall")) {
		run_syscalls(to - from);
		return;
	}
	for (long i = from; i < to; i++) {
		if (!strcmp(mode, "exec"))
			run_exec(prog, i);
		else if (!strcmp(mode, "fork"))
			run_fork();
		else
			run_mix(prog, i);
	}
}

static pid_t rusage_child;

static void forward(int sig)
{
	if (rusage_child > 0)
		kill(rusage_child, sig);
}

static int cmd_rusage(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = forward};
	struct rusage ru;
	uint64_t t0;
	FILE *f;
	int st;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: bench-load rusage FILE -- CMD [ARG...]\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	t0 = now_ns();
	rusage_child = fork();
	if (rusage_child < 0)
		die("fork");
	if (rusage_child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "bench-load: '%s': %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	while (wait4(rusage_child, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "%llu %llu %llu %ld %d\n", (unsigned long long)(now_ns() - t0),
		(unsigned long long)tv_ns(ru.ru_utime), (unsigned long long)tv_ns(ru.ru_stime),
		ru.ru_maxrss, st);
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmd_bpfstats(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = (int)syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0)
		die("BPF_ENABLE_STATS");
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *comm = NULL, *mode, *prog = NULL, *hook;
	struct rusage self, kids;
	long n, j;
	uint64_t t0, t1, wall;
	int opt;

	if (argc > 1 && !strcmp(argv[1], "rusage"))
		return cmd_rusage(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "bpfstats"))
		return cmd_bpfstats();
	while ((opt = getopt(argc, argv, "r:c:C:")) != -1) {
		switch (opt) {
		case 'r': out = optarg; break;
		case 'c': comm = optarg; break;
		case 'C': child_comm = optarg; break;
		default: return 2;
		}
	}
	if (argc - optind < 3) {
		fprintf(stderr, "usage: bench-load [-r FILE] [-c COMM] [-C COMM] exec|fork|thread|mix|syscall N J [PROG]\n");
		return 2;
	}
	mode = argv[optind];
	n = atol(argv[optind + 1]);
	j = atol(argv[optind + 2]);
	if (optind + 3 < argc)
		prog = argv[optind + 3];
	if (n < 1 || j < 1 || ((!strcmp(mode, "exec") || !strcmp(mode, "mix")) && !prog)) {
		fprintf(stderr, "bench-load: bad arguments\n");
		return 2;
	}
	if (comm)
		prctl(PR_SET_NAME, comm, 0, 0, 0);
	t0 = now_ns();
	if (!strcmp(mode, "thread")) {
		pthread_t *t = calloc((size_t)j, sizeof(*t));
		struct tjob *jb = calloc((size_t)j, sizeof(*jb));

		if (!t || !jb)
			die("calloc");
		for (long k = 0; k < j; k++) {
			jb[k].n = n / j + (k < n % j);
			if (pthread_create(&t[k], NULL, thread_worker, &jb[k]))
				die("pthread_create");
		}
		for (long k = 0; k < j; k++)
			pthread_join(t[k], NULL);
		free(t);
		free(jb);
	} else if (!strcmp(mode, "exec") || !strcmp(mode, "fork") || !strcmp(mode, "mix") ||
		   !strcmp(mode, "syscall")) {
		if (j == 1) {
			worker(mode, 0, n, prog);
		} else {
			pid_t *w = calloc((size_t)j, sizeof(*w));

			if (!w)
				die("calloc");
			for (long k = 0, from = 0; k < j; k++) {
				long cnt = n / j + (k < n % j);

				w[k] = fork();
				if (w[k] < 0)
					die("fork");
				if (w[k] == 0) {
					worker(mode, from, from + cnt, prog);
					_exit(0);
				}
				from += cnt;
			}
			for (long k = 0; k < j; k++)
				wait_ok(w[k]);
			free(w);
		}
	} else {
		fprintf(stderr, "bench-load: '%s': unknown mode\n", mode);
		return 2;
	}
	t1 = now_ns();
	wall = t1 - t0;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f)
			die(out);
		fprintf(f, "%llu %llu %llu %llu %llu\n", (unsigned long long)wall,
			(unsigned long long)(tv_ns(self.ru_utime) + tv_ns(kids.ru_utime)),
			(unsigned long long)(tv_ns(self.ru_stime) + tv_ns(kids.ru_stime)),
			(unsigned long long)t0, (unsigned long long)t1);
		fclose(f);
	}
	hook = getenv("BENCH_HOOK");
	if (hook && *hook && system(hook) != 0)
		fprintf(stderr, "bench-load: BENCH_HOOK failed\n");
	return 0;
}
