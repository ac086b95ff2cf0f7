/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * thread.h - start a helper thread that never takes the process's signals.
 *
 * A signal sent to the process (kill(1), a terminal's ^C, timeout(1)) goes
 * to any one thread that does not block it. The handlers here expect to run
 * on the thread that made the work they undo: analyze/sigclean.h removes a
 * work directory, and must not run beside the thread still creating files in
 * it (the files created after its pass would keep the directory). So every
 * helper thread (the reader, counting, compression and BTF threads) starts
 * with every signal blocked but the ones a fault raises, and the signals
 * reach the thread that started it.
 */
#ifndef TRACER_THREAD_H
#define TRACER_THREAD_H

#include <pthread.h>
#include <signal.h>

/* pthread_create(t, NULL, fn, arg) with the new thread's signal mask full
 * but for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and SIGABRT (raised by
 * the thread itself: blocking them would not stop them, only change how
 * they kill); the caller's own mask is as it was on return. Returns 0, or
 * pthread_create's or pthread_sigmask's error number (no thread then). */
static inline int tr_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT};
	sigset_t all, old;
	sigfillset(&all);
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	int rc = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (rc)
		return rc;
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

#endif
