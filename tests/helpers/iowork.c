/* SPDX-License-Identifier: BSD-2-Clause */
/* iowork.c - I/O of a process is its own (issue 15 point 4): processes that
 * do known I/O and are reaped in every way the kernel allows. Each process
 * reads its own /proc/self/io after its last I/O and before it reaps any
 * child (wait4() folds a reaped child's I/O into the reaper's), then appends
 * one line to REPORT and exits:
 *
 *   io PID RCHAR WCHAR SYSCR SYSCW READ_BYTES WRITE_BYTES CANCELLED
 *
 * The values are what the process's counters hold at its exit: the truth
 * plus the report's own read of /proc/self/io (one read) and write (one
 * write of the fixed-length line). REPORT must be on tmpfs (no write_bytes).
 * DIR is a directory on a disk file system: each process writes a file there
 * (write_bytes) besides reading /dev/zero and writing /dev/null.
 *
 *   iowork MODE REPORT DIR
 *   MODE reap        the parent reaps its child (waitpid)
 *        subreaper   PR_SET_CHILD_SUBREAPER reaps a grandchild whose parent
 *                    exited first
 *        orphan      the parent exits first; init (or the nearest subreaper)
 *                    reaps the child
 *        execnowait  the parent execs "iowork nowait", which never waits: its
 *                    child stays a zombie until the parent exits
 *        sigign      SIGCHLD set to SIG_IGN: the child is reaped by the kernel
 *        nocldwait   SA_NOCLDWAIT: likewise
 *        clonesig    clone() with exit signal SIGUSR1, reaped with __WALL
 *        threads     4 threads do I/O: 2 are joined, 2 are still alive at
 *                    exit_group()
 *        leaderfirst the main thread does I/O and exits first (pthread_exit);
 *                    another thread exits the process
 *        execthread  a second thread does I/O and execs "iowork leaderfirst"
 *                    (it takes over the main thread's tid and start time)
 *        mmap        C17: maps a 16 MiB file of its own in DIR MAP_SHARED,
 *                    fills it, msync(MS_SYNC)s it: storage writes without
 *                    write syscalls
 *        unlinkself  C18a: writes 16 MiB to a file in DIR and unlinks it
 *                    before writeback (cancelled_write_bytes on itself)
 *        unlinkother C18b: a child writes 16 MiB to a file and exits; a
 *                    second child unlinks it (cancelled on the unlinker,
 *                    never on the writer); the parent reports before
 *                    reaping either
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static int rep_fd = -1;
static const char *dir;

/* n reads of sz bytes from /dev/zero, m writes of sz to /dev/null, and
 * fbytes bytes written and fsynced to a file of its own in dir */
static void do_io(int n, int m, size_t sz, size_t fbytes)
{
	static __thread char buf[65536];
	char path[4096];
	int z = open("/dev/zero", O_RDONLY), nul = open("/dev/null", O_WRONLY), f, i;

	if (z < 0 || nul < 0 || sz > sizeof(buf))
		die("open /dev/zero or /dev/null");
	for (i = 0; i < n; i++)
		if (read(z, buf, sz) != (ssize_t)sz)
			die("read");
	for (i = 0; i < m; i++)
		if (write(nul, buf, sz) != (ssize_t)sz)
			die("write");
	close(z);
	close(nul);
	if (!fbytes)
		return;
	snprintf(path, sizeof(path), "%s/f.%d.%ld", dir, getpid(), (long)syscall(SYS_gettid));
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (f < 0)
		die(path);
	memset(buf, 'x', sizeof(buf));
	while (fbytes) {
		size_t k = fbytes < sizeof(buf) ? fbytes : sizeof(buf);

		if (write(f, buf, k) != (ssize_t)k)
			die("write file");
		fbytes -= k;
	}
	if (fsync(f))
		die("fsync");
	close(f);
}

/* bytes written to a new file of its own in dir, left dirty (no fsync):
 * the name is returned in path */
static void dirty_file(char *path, size_t cap, size_t bytes)
{
	static char buf[65536];
	int f;

	snprintf(path, cap, "%s/f.%d.%ld", dir, getpid(), (long)syscall(SYS_gettid));
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (f < 0)
		die(path);
	memset(buf, 'y', sizeof(buf));
	for (size_t done = 0; done < bytes; done += sizeof(buf))
		if (write(f, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write file");
	close(f);
}

/* a file of its own in dir, grown to bytes, mapped shared, filled through
 * the mapping and synced to storage: no write syscall moves a byte */
static void map_write(size_t bytes)
{
	char path[4096];
	char *p;
	int f;

	snprintf(path, sizeof(path), "%s/m.%d", dir, getpid());
	f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0)
		die(path);
	if (ftruncate(f, (off_t)bytes))
		die("ftruncate");
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 'z', bytes);
	if (msync(p, bytes, MS_SYNC))
		die("msync");
	munmap(p, bytes);
	close(f);
}

static unsigned long long field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ull;
}

/* Read /proc/self/io (one read), append the line (one write). Nothing that
 * counts as I/O may follow in this process: every page it has mapped is
 * made resident first (mlockall), so the code its exit runs is never read
 * from storage after the report (read_bytes), even when another test
 * dropped the page cache meanwhile. */
static void report(void)
{
	char b[1024], line[256];
	ssize_t n;
	int len;

	if (mlockall(MCL_CURRENT))
		die("mlockall");
	n = read_once("/proc/self/io", b, sizeof(b));
	/* fixed width: the line's length is known before it is written */
	len = snprintf(line, sizeof(line),
		       "io %10d %20llu %20llu %20llu %20llu %20llu %20llu %20llu\n", getpid(),
		       field(b, "rchar: ") + (unsigned long long)n, field(b, "wchar: ") + 161,
		       field(b, "syscr: ") + 1, field(b, "syscw: ") + 1, field(b, "read_bytes: "),
		       field(b, "write_bytes: "), field(b, "cancelled_write_bytes: "));
	if (len != 161)
		die("report line length");
	if (write(rep_fd, line, (size_t)len) != len)
		die("write report");
}

static pid_t fork_or_die(void)
{
	pid_t p = fork();

	if (p < 0)
		die("fork");
	return p;
}

/* wait until pid is a zombie, without reaping it */
static void wait_zombie(pid_t pid, int flags)
{
	siginfo_t si;

	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | flags))
		if (errno != EINTR)
			die("waitid");
}

static void on_usr1(int sig) { (void)sig; }

static void reap_all(void)
{
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
}

/* a child: its own I/O, its report, exit */
static void child_work(int n)
{
	do_io(n, n + 1, 4096, 8192);
	report();
	_exit(0);
}

/* ------------------------------------------------------------ threads */

static pthread_barrier_t bar;

static void *io_thread(void *arg)
{
	long i = (long)arg;

	do_io(3 + (int)i, 2, 8192, 4096 * (size_t)(i + 1));
	if (i >= 2) {
		/* done; stays alive until exit_group() kills it */
		pthread_barrier_wait(&bar);
		for (;;)
			pause();
	}
	return NULL;
}

static pid_t leader_tid;

static void *last_thread(void *arg)
{
	char path[64], st[512];
	(void)arg;

	/* the leader is a zombie once its task state says so */
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", leader_tid);
	for (int k = 0; k < 1000; k++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, st, sizeof(st) - 1);
		char *c;

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			break;
		st[n] = 0;
		c = strrchr(st, ')');
		if (c && (c[2] == 'Z' || c[2] == 'X'))
			break;
		nap_ms(5);
	}
	do_io(2, 5, 4096, 4096);
	report();
	exit(0);
}

static char *const *exec_argv;

static void *exec_thread(void *arg)
{
	(void)arg;
	do_io(3, 1, 4096, 4096);
	execv("/proc/self/exe", exec_argv);
	die("exec");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode;
	pid_t c, m;

	if (argc != 4) {
		fprintf(stderr, "usage: iowork MODE REPORT DIR\n");
		return 2;
	}
	mode = argv[1];
	dir = argv[3];
	rep_fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (rep_fd < 0)
		die(argv[2]);

	if (!strcmp(mode, "reap")) {
		do_io(5, 7, 4096, 12288);
		c = fork_or_die();
		if (!c)
			child_work(9);
		wait_zombie(c, 0);
		report();
		waitpid(c, NULL, 0);
	} else if (!strcmp(mode, "subreaper")) {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1))
			die("PR_SET_CHILD_SUBREAPER");
		do_io(4, 4, 4096, 4096);
		m = fork_or_die();
		if (!m) {
			pid_t me = getpid();

			c = fork_or_die();
			if (!c) {
				/* reparented to the subreaper once the middle exits */
				while (getppid() == me)
					nap_ms(5);
				child_work(6);
			}
			child_work(3);
		}
		report();
		reap_all();
	} else if (!strcmp(mode, "orphan")) {
		do_io(6, 2, 4096, 0);
		m = getpid();
		c = fork_or_die();
		if (!c) {
			while (getppid() == m)
				nap_ms(5);
			child_work(7);
		}
		report();
	} else if (!strcmp(mode, "execnowait")) {
		do_io(3, 3, 4096, 4096);
		c = fork_or_die();
		if (!c)
			child_work(11);
		execl("/proc/self/exe", "iowork", "nowait", argv[2], argv[3], (char *)NULL);
		die("exec");
	} else if (!strcmp(mode, "nowait")) {
		/* the child of execnowait exits now and stays a zombie */
		do_io(2, 8, 4096, 8192);
		nap_ms(300);
		report();
	} else if (!strcmp(mode, "sigign") || !strcmp(mode, "nocldwait")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		if (!strcmp(mode, "sigign")) {
			sa.sa_handler = SIG_IGN;
		} else {
			sa.sa_handler = SIG_DFL;
			sa.sa_flags = SA_NOCLDWAIT;
		}
		if (sigaction(SIGCHLD, &sa, NULL))
			die("sigaction");
		do_io(8, 1, 4096, 4096);
		c = fork_or_die();
		if (!c)
			child_work(5);
		/* returns ECHILD once the kernel has reaped it */
		while (waitpid(c, NULL, 0) >= 0 || errno == EINTR)
			;
		report();
	} else if (!strcmp(mode, "clonesig")) {
		struct sigaction sa;

		/* the child's exit signal must not kill this parent */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		if (sigaction(SIGUSR1, &sa, NULL))
			die("sigaction");
		do_io(2, 6, 4096, 4096);
		c = (pid_t)syscall(SYS_clone, (unsigned long)SIGUSR1, NULL, NULL, NULL, NULL);
		if (c < 0)
			die("clone");
		if (!c)
			child_work(4);
		wait_zombie(c, __WALL);
		report();
		if (waitpid(c, NULL, __WALL) != c)
			die("waitpid __WALL");
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[4];
		long i;

		pthread_barrier_init(&bar, NULL, 3);
		do_io(1, 1, 4096, 4096);
		for (i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, io_thread, (void *)i))
				die("pthread_create");
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		pthread_barrier_wait(&bar);
		report();
		exit(0);
	} else if (!strcmp(mode, "leaderfirst")) {
		pthread_t t;

		do_io(4, 2, 4096, 8192);
		leader_tid = getpid();
		if (pthread_create(&t, NULL, last_thread, NULL))
			die("pthread_create");
		pthread_exit(NULL);
	} else if (!strcmp(mode, "execthread")) {
		static char *av[5];
		pthread_t t;

		av[0] = "iowork";
		av[1] = "leaderfirst";
		av[2] = argv[2];
		av[3] = argv[3];
		exec_argv = av;
		do_io(2, 2, 4096, 4096);
		if (pthread_create(&t, NULL, exec_thread, NULL))
			die("pthread_create");
		for (;;)
			pause(); /* the exec ends this thread */
	} else if (!strcmp(mode, "mmap")) {
		map_write(16 << 20);
		report();
	} else if (!strcmp(mode, "unlinkself")) {
		char path[4096];

		dirty_file(path, sizeof(path), 16 << 20);
		if (unlink(path))
			die("unlink");
		report();
	} else if (!strcmp(mode, "unlinkother")) {
		char path[4096];
		pid_t w, u;

		w = fork_or_die();
		if (!w) {
			dirty_file(path, sizeof(path), 16 << 20);
			report();
			_exit(0);
		}
		wait_zombie(w, 0);
		/* the writer's file: its name carries the writer's pid and tid */
		snprintf(path, sizeof(path), "%s/f.%d.%d", dir, (int)w, (int)w);
		u = fork_or_die();
		if (!u) {
			if (unlink(path))
				die("unlink");
			report();
			_exit(0);
		}
		wait_zombie(u, 0);
		report();
		reap_all();
	} else {
		fprintf(stderr, "iowork: unknown mode '%s'\n", mode);
		return 2;
	}
	_exit(0);
}
