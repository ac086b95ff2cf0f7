/* SPDX-License-Identifier: BSD-2-Clause */
/* stateprobe.c - print every piece of process state a child inherits, in a
 * form that is identical for two runs of the same command from the same
 * shell (issue 15 point 1: COMMAND under tracer-record starts exactly as it
 * would without it). Pid-valued facts are printed as relations (is the
 * process group in the terminal's foreground, is the session the caller's)
 * because the pids themselves differ from run to run.
 *
 *   stateprobe [SID]   SID: the session id the probe is expected to share
 *
 * Prints: the signal masks and dispositions of /proc/self/status (SigBlk,
 * SigIgn, SigCgt, with ShdPnd/SigPnd), every open file descriptor with its
 * flags and a run-independent description of what it is, /proc/self/limits,
 * umask, nice value, I/O priority, CPU affinity, NoNewPrivs, Seccomp,
 * capabilities, the cgroup, cwd, the environment (sorted, without the
 * shell's "_"), the session relation, the controlling terminal, whether the
 * process group is the terminal's foreground one, and the oom_score_adj.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void print_file(const char *path, const char *const *keep)
{
	char line[4096];
	FILE *f = fopen(path, "re");

	if (!f) {
		printf("%s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (keep) {
			int ok = 0;
			for (const char *const *k = keep; *k; k++)
				if (!strncmp(line, *k, strlen(*k)))
					ok = 1;
			if (!ok)
				continue;
		}
		printf("%s: %s", path, line);
	}
	fclose(f);
}

/* what an fd is, without inode numbers or pids */
static void describe_fd(int fd, char *out, size_t n)
{
	char p[64], t[4096];
	ssize_t l;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	l = readlink(p, t, sizeof(t) - 1);
	if (l < 0) {
		snprintf(out, n, "? (%s)", strerror(errno));
		return;
	}
	t[l] = 0;
	if (!strncmp(t, "pipe:", 5))
		snprintf(out, n, "pipe");
	else if (!strncmp(t, "socket:", 7))
		snprintf(out, n, "socket");
	else
		snprintf(out, n, "%s", t);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
	static const char *const status_keys[] = {"SigQ",   "SigPnd", "ShdPnd",	    "SigBlk",
						  "SigIgn", "SigCgt", "NoNewPrivs", "Seccomp",
						  "CapInh", "CapPrm", "CapEff",	    "CapBnd",
						  "CapAmb", "Umask",  "Cpus_allowed_list",
						  "Mems_allowed_list", NULL};
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char desc[4096], cwd[4096];
	int dfd = d ? dirfd(d) : -1;

	/* SigQ is "queued/limit": the queued count is the user's, not ours */
	print_file("/proc/self/status", status_keys + 1);
	print_file("/proc/self/limits", NULL);
	print_file("/proc/self/cgroup", NULL);
	print_file("/proc/self/oom_score_adj", NULL);
	print_file("/proc/self/attr/current", NULL);

	/* fds in order; the directory's own fd is skipped */
	int fds[1024], nfd = 0;
	while (d && (de = readdir(d)) != NULL && nfd < 1024) {
		if (de->d_name[0] == '.')
			continue;
		int fd = atoi(de->d_name);
		if (fd != dfd)
			fds[nfd++] = fd;
	}
	if (d)
		closedir(d);
	for (int i = 0; i < nfd; i++)
		for (int j = i + 1; j < nfd; j++)
			if (fds[j] < fds[i]) {
				int x = fds[i];
				fds[i] = fds[j];
				fds[j] = x;
			}
	for (int i = 0; i < nfd; i++) {
		int fl = fcntl(fds[i], F_GETFL), fdf = fcntl(fds[i], F_GETFD);
		describe_fd(fds[i], desc, sizeof(desc));
		printf("fd %d: %s flags=0%o cloexec=%d\n", fds[i], desc, fl, fdf & FD_CLOEXEC);
	}

	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	printf("nice: %d\n", errno ? -1000 : nice);
	printf("ioprio: %ld\n", syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0));
	cpu_set_t cs;
	if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
		printf("affinity: %d cpus\n", CPU_COUNT(&cs));
	printf("sched_policy: %d\n", sched_getscheduler(0));
	printf("cwd: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");

	/* session: the same as the caller's; terminal; foreground group */
	pid_t sid = getsid(0);
	if (argc > 1)
		printf("session: %s\n", sid == (pid_t)atol(argv[1]) ? "caller's" : "other");
	printf("session_leader: %d\n", sid == getpid());
	char *tty = ttyname(0);
	printf("tty: %s\n", tty ? tty : "none");
	int fg = -1;
	int tfd = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (tfd >= 0) {
		fg = tcgetpgrp(tfd) == getpgrp();
		close(tfd);
	}
	printf("controlling_tty: %s\n", tfd >= 0 ? "yes" : "no");
	printf("foreground: %d\n", fg);

	size_t ne = 0;
	for (char **e = environ; *e; e++)
		ne++;
	char **env = calloc(ne + 1, sizeof(*env));
	if (!env)
		return 1;
	for (size_t i = 0; i < ne; i++)
		env[i] = environ[i];
	qsort(env, ne, sizeof(*env), cmp_str);
	for (size_t i = 0; i < ne; i++)
		if (strncmp(env[i], "_=", 2))
			printf("env: %s\n", env[i]);
	free(env);
	return 0;
}
