/* SPDX-License-Identifier: BSD-2-Clause */
/* command.c - COMMAND's launch with its inherited state, the recorder's
 * signal handling and its exit as COMMAND's (command.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"

volatile sig_atomic_t rec_stop_sig, rec_stop_count, rec_stop_from_tty;
volatile sig_atomic_t rec_usr1;

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSTOP (int)(sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* what the recorder inherited, restored in COMMAND */
static struct sigaction inherited[NSIG];
static unsigned char saved[NSIG];
static sigset_t inherited_mask;

/*
 * The kernel's struct sigaction, for the signals glibc keeps for itself and
 * refuses in sigaction() (32 and 33: thread cancellation, setxid): an
 * ignored one is passed on too. Only SIG_IGN/SIG_DFL are ever set with it.
 */
struct ksigaction {
	unsigned long handler, flags, restorer, mask;
};
static unsigned char raw_ign[NSIG];

/* self-pipe: a handler writes one byte; the drain loop polls the read end */
static int wake[2] = {-1, -1};
/* stop signals a process sent while rec_command_wait() stands in for
 * COMMAND: one bit per stop_sigs[] entry, forwarded by the waiting loop */
static volatile sig_atomic_t fwd_pending;

static int stop_index(int sig)
{
	for (int i = 0; i < NSTOP; i++)
		if (stop_sigs[i] == sig)
			return i;
	return -1;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int e = errno, i = stop_index(sig);

	(void)uc;
	if (sig == SIGUSR1) {
		rec_usr1 = 1;
	} else if (i >= 0) {
		if (!rec_stop_sig) {
			rec_stop_sig = sig;
			rec_stop_from_tty = si && si->si_code == SI_KERNEL;
		}
		rec_stop_count++;
		if (si && si->si_code <= 0)
			__atomic_fetch_or(&fwd_pending, 1 << i, __ATOMIC_SEQ_CST);
	}
	if (wake[1] >= 0 && write(wake[1], "", 1) < 0) {
		/* pipe full: a wake-up is pending already */
	}
	errno = e;
}

int rec_signals_init(void)
{
	struct sigaction sa;

	sigprocmask(SIG_SETMASK, NULL, &inherited_mask);
	for (int s = 1; s < NSIG; s++) {
		struct ksigaction k;
		if (sigaction(s, NULL, &inherited[s]) == 0)
			saved[s] = 1;
		else if (syscall(SYS_rt_sigaction, s, NULL, &k, sizeof(k.mask)) == 0)
			raw_ign[s] = k.handler == (unsigned long)SIG_IGN;
	}
	if (pipe2(wake, O_NONBLOCK | O_CLOEXEC))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	/* SA_RESTART: the writer's and libbpf's syscalls in any thread go on */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int rec_wake_fd(void)
{
	return wake[0];
}

void rec_wake_clear(void)
{
	char junk[64];

	while (read(wake[0], junk, sizeof(junk)) > 0)
		;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void restore_inherited(void)
{
	for (int s = 1; s < NSIG; s++) {
		if (saved[s] && s != SIGKILL && s != SIGSTOP) {
			sigaction(s, &inherited[s], NULL);
		} else if (!saved[s]) {
			/* glibc's own: its handler goes at exec, an ignored one stays */
			struct ksigaction k = {.handler = raw_ign[s] ? (unsigned long)SIG_IGN
								     : (unsigned long)SIG_DFL};
			syscall(SYS_rt_sigaction, s, &k, NULL, sizeof(k.mask));
		}
	}
	sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
}

pid_t rec_command_fork(char *const *argv, const char *path, int *release_fd)
{
	sigset_t all, old;
	int pfd[2];
	pid_t pid;
	char c;

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(NULL);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		close(pfd[1]);
		restore_inherited();
		if (read(pfd[0], &c, 1) != 1)
			_exit(127);
		if (path)
			execv(path, argv);
		execvp(argv[0], argv);
		int e = errno;
		dprintf(2, "tracer-record: '%s': %s\n", argv[0], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[0]);
	if (pid < 0) {
		close(pfd[1]);
		errno = e;
		return -1;
	}
	*release_fd = pfd[1];
	return pid;
}

int rec_command_release(int release_fd)
{
	int rc = write(release_fd, "x", 1) == 1 ? 0 : -1, e = errno;

	close(release_fd);
	errno = e;
	return rc;
}

int rec_command_wait(pid_t child, int *status)
{
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);

	for (;;) {
		struct pollfd pf[2] = {{.fd = pidfd, .events = POLLIN},
				       {.fd = wake[0], .events = POLLIN}};
		/* a signal landing after this sets its bit again and writes to
		 * the self-pipe, which ends the poll below */
		int fwd = __atomic_exchange_n(&fwd_pending, 0, __ATOMIC_SEQ_CST);
		for (int i = 0; i < NSTOP; i++)
			if (fwd & (1 << i))
				kill(child, stop_sigs[i]);
		pid_t w = waitpid(child, status, WNOHANG);
		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			int e = errno;
			if (pidfd >= 0)
				close(pidfd);
			errno = e;
			return -1;
		}
		/* no pidfd (kernel < 5.3): look every 100 ms */
		if (poll(pf + (pidfd < 0), 2 - (pidfd < 0), pidfd < 0 ? 100 : -1) > 0 &&
		    (pf[1].revents & POLLIN))
			rec_wake_clear();
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

void rec_exit_as(int status)
{
	fflush(NULL);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = {0, 0};
		struct sigaction dfl;
		sigset_t one;

		setrlimit(RLIMIT_CORE, &no_core);
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
		/* a signal whose default action does not kill: say it the shell's way */
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
