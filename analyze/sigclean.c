/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigclean.c - see sigclean.h.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigclean.h"

static struct {
	void (*fn)(void *arg);
	void *arg;
} clean[TZA_SIGCLEAN_MAX];
static volatile sig_atomic_t depth;
static struct sigaction old_int, old_term;
static int on_int, on_term;

static void on_signal(int sig)
{
	for (sig_atomic_t i = depth; i > 0; i--)
		clean[i - 1].fn(clean[i - 1].arg);
	depth = 0;
	const struct sigaction *o = sig == SIGINT ? &old_int : &old_term;
	if (o->sa_handler != SIG_DFL && !(o->sa_flags & SA_SIGINFO)) {
		o->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int tza_sigclean_push(void (*fn)(void *arg), void *arg)
{
	if (depth >= TZA_SIGCLEAN_MAX)
		return -1;
	clean[depth].fn = fn;
	clean[depth].arg = arg;
	if (depth++ > 0)
		return 0;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	on_int = !sigaction(SIGINT, NULL, &old_int) && old_int.sa_handler != SIG_IGN &&
		 !sigaction(SIGINT, &sa, NULL);
	on_term = !sigaction(SIGTERM, NULL, &old_term) && old_term.sa_handler != SIG_IGN &&
		  !sigaction(SIGTERM, &sa, NULL);
	return 0;
}

void tza_sigclean_pop(void)
{
	if (depth <= 0 || --depth > 0)
		return;
	if (on_int)
		sigaction(SIGINT, &old_int, NULL);
	if (on_term)
		sigaction(SIGTERM, &old_term, NULL);
	on_int = on_term = 0;
}

void tza_sigclean_unlink(void *arg)
{
	unlink(arg);
}

/* The kernel's record of getdents64(2) (not in glibc 2.36's headers). */
struct dent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

void tza_sigclean_rm_dir(int parentfd, int dirfd, const char *name)
{
	unsigned long long buf[512]; /* aligned for struct dent64 */
	/* entries removed while reading: read again until a pass removes none */
	for (int pass = 0, gone = 1; dirfd >= 0 && gone && pass < 4; pass++) {
		long n;
		gone = 0;
		if (lseek(dirfd, 0, SEEK_SET) != 0)
			break;
		while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				struct dent64 *d = (struct dent64 *)((char *)buf + off);
				if (d->d_reclen == 0)
					break;
				off += d->d_reclen;
				if (d->d_type != DT_DIR && !unlinkat(dirfd, d->d_name, 0))
					gone = 1;
			}
	}
	if (parentfd >= 0 && name)
		unlinkat(parentfd, name, AT_REMOVEDIR);
}
