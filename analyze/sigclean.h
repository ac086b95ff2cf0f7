/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigclean.h - temporary files removed when SIGINT or SIGTERM ends
 * tracer-analyze part way (the hidden files of a rewrite, a bundle's work
 * directory).
 *
 * While at least one cleanup is registered, SIGINT and SIGTERM (each unless
 * it was ignored when the first cleanup was registered: a background job's
 * SIGINT stays ignored) run every registered cleanup, the newest first, then
 * what was there before: a handler is called, SIG_DFL ends the program by the
 * same signal (the exit status a shell expects).
 */
#ifndef TZA_SIGCLEAN_H
#define TZA_SIGCLEAN_H

#define TZA_SIGCLEAN_MAX 4 /* cleanups registered at once (nesting depth) */

/* Register fn(arg) to run from the signal handler: fn must use only
 * async-signal-safe calls (unlink, unlinkat, rmdir, getdents64, close) and
 * arg must stay valid until the matching tza_sigclean_pop(). Returns 0, or
 * -1 when TZA_SIGCLEAN_MAX are registered already (nothing registered; the
 * caller goes on without the guarantee). Not thread-safe: call from the
 * main thread. */
int tza_sigclean_push(void (*fn)(void *arg), void *arg);

/* Unregister the newest cleanup (every push that returned 0 has one pop);
 * the last pop puts SIGINT and SIGTERM back as they were. */
void tza_sigclean_pop(void);

/* A cleanup: unlink(arg), arg the path (a string that outlives the pop). */
void tza_sigclean_unlink(void *arg);

/* Remove every entry but subdirectories from the directory open for
 * reading as dirfd, then the (now empty) directory `name` under the directory
 * open as parentfd (O_PATH is enough for that one); -1 skips either step.
 * Async-signal-safe, for a cleanup. One level only: a subdirectory is left,
 * and then so is the directory. */
void tza_sigclean_rm_dir(int parentfd, int dirfd, const char *name);

#endif
