/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sigclean.c - analyze/sigclean.h: registered cleanups run, newest
 * first, when SIGTERM or SIGINT ends the program, and the program then dies
 * by that signal; nothing runs after the last pop, and the dispositions
 * found at the first push are back; an ignored signal stays ignored;
 * tza_sigclean_rm_dir empties a directory and removes it, but leaves a
 * directory that holds a subdirectory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/sigclean.h"

static char dir[64];
static int dfd = -1;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_sigclean.XXXXXX");
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int exists(const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void touch(const char *name)
{
	int fd = openat(dfd, name, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
}

/* a cleanup: write its name's letter at the end of file "order" */
static void mark(void *arg)
{
	int fd = openat(dfd, "order", O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd >= 0) {
		(void)!write(fd, arg, 1);
		close(fd);
	}
}

static void read_order(char *buf, size_t size)
{
	memset(buf, 0, size);
	int fd = openat(dfd, "order", O_RDONLY);
	if (fd >= 0) {
		(void)!read(fd, buf, size - 1);
		close(fd);
	}
}

/* child: push a, b (nested), raise sig; the status it dies with */
static int child_status(int sig, int ignore)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(sig, ignore ? SIG_IGN : SIG_DFL);
		if (tza_sigclean_push(mark, "a") || tza_sigclean_push(mark, "b"))
			_exit(3);
		raise(sig);
		tza_sigclean_pop();
		tza_sigclean_pop();
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void test_signal_runs_newest_first(void **state)
{
	(void)state;
	char order[16];
	for (int k = 0; k < 2; k++) {
		int sig = k ? SIGINT : SIGTERM;
		unlinkat(dfd, "order", 0);
		int st = child_status(sig, 0);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sig);
		read_order(order, sizeof(order));
		assert_string_equal(order, "ba");
	}
}

static void test_ignored_stays_ignored(void **state)
{
	(void)state;
	char order[16];
	unlinkat(dfd, "order", 0);
	int st = child_status(SIGINT, 1);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	read_order(order, sizeof(order));
	assert_string_equal(order, "");
}

static void test_pop_restores(void **state)
{
	(void)state;
	struct sigaction before, after;
	assert_int_equal(sigaction(SIGTERM, NULL, &before), 0);
	assert_int_equal(tza_sigclean_push(mark, "x"), 0);
	for (int i = 1; i < TZA_SIGCLEAN_MAX; i++)
		assert_int_equal(tza_sigclean_push(mark, "y"), 0);
	assert_int_equal(tza_sigclean_push(mark, "z"), -1); /* full: not registered */
	struct sigaction during;
	assert_int_equal(sigaction(SIGTERM, NULL, &during), 0);
	assert_ptr_not_equal(during.sa_handler, before.sa_handler);
	for (int i = 0; i < TZA_SIGCLEAN_MAX; i++)
		tza_sigclean_pop();
	tza_sigclean_pop(); /* one too many: nothing */
	assert_int_equal(sigaction(SIGTERM, NULL, &after), 0);
	assert_ptr_equal(after.sa_handler, before.sa_handler);
}

static void test_rm_dir(void **state)
{
	(void)state;
	/* a work directory with 300 files (more than one getdents buffer) */
	assert_int_equal(mkdirat(dfd, "w", 0700), 0);
	int wfd = openat(dfd, "w", O_RDONLY | O_DIRECTORY);
	assert_true(wfd >= 0);
	char name[64];
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "w/file-with-a-long-name-%04d", i);
		touch(name);
	}
	int dir_pfd = dup(dfd);
	tza_sigclean_rm_dir(dir_pfd, wfd, "w");
	assert_false(exists("w"));
	close(wfd);
	/* one holding a subdirectory: its files go, it stays */
	assert_int_equal(mkdirat(dfd, "v", 0700), 0);
	assert_int_equal(mkdirat(dfd, "v/sub", 0700), 0);
	touch("v/f");
	int vfd = openat(dfd, "v", O_RDONLY | O_DIRECTORY);
	tza_sigclean_rm_dir(dir_pfd, vfd, "v");
	assert_false(exists("v/f"));
	assert_true(exists("v/sub"));
	close(vfd);
	close(dir_pfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_runs_newest_first),
		cmocka_unit_test(test_ignored_stays_ignored),
		cmocka_unit_test(test_pop_restores),
		cmocka_unit_test(test_rm_dir),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
