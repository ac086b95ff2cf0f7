/* SPDX-License-Identifier: BSD-2-Clause */
/* progress.c - the progress line of long reads (progress.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "report.h"

static enum tza_progress_mode mode;
static struct {
	const char *path; /* NULL: no read in progress */
	uint64_t total;
	uint64_t t0_ms, next_ms;     /* begin, and the earliest next update */
	int tty;		     /* redraw in place (else plain lines) */
	volatile sig_atomic_t shown; /* a line is on the terminal */
	int sigs;		     /* on_signal installed: old_int, old_term */
} pg;
static struct sigaction old_int, old_term;

/* SIGINT/SIGTERM while a line is on the terminal: erase it, then what was
 * there before (a handler is called, SIG_IGN ignores, SIG_DFL dies) */
static void on_signal(int sig)
{
	if (pg.shown && write(2, "\r\033[K", 4) == 4)
		pg.shown = 0;
	const struct sigaction *o = sig == SIGINT ? &old_int : &old_term;
	if (o->sa_handler == SIG_IGN)
		return;
	if (o->sa_handler != SIG_DFL && !(o->sa_flags & SA_SIGINFO)) {
		o->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void tza_progress_set_mode(enum tza_progress_mode m) { mode = m; }

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return; /* best effort: the next update redraws */
		s += w;
		n -= (size_t)w;
	}
}

void tza_progress_begin(const char *path, uint64_t total)
{
	tza_progress_end();
	int tty = isatty(2);
	if (mode == TZA_PROGRESS_OFF || (mode == TZA_PROGRESS_AUTO && !tty))
		return;
	uint64_t delay = TZA_PROGRESS_DELAY_MS;
	const char *e = getenv("TRACER_ANALYZE_PROGRESS_DELAY_MS");
	if (e && *e)
		delay = strtoull(e, NULL, 10);
	pg.path = path;
	pg.total = total;
	pg.tty = tty;
	pg.shown = 0;
	pg.t0_ms = now_ms();
	pg.next_ms = pg.t0_ms + delay;
	if (tty) { /* Ctrl-C mid-read leaves no line behind either */
		struct sigaction sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		pg.sigs = !sigaction(SIGINT, &sa, &old_int) && !sigaction(SIGTERM, &sa, &old_term);
	}
}

void tza_progress_tick(uint64_t done)
{
	if (!pg.path)
		return;
	uint64_t t = now_ms();
	if (t < pg.next_ms)
		return;
	pg.next_ms = t + TZA_PROGRESS_EVERY_MS;
	if (done > pg.total)
		done = pg.total;
	char line[512], a[32], b[32];
	/* "\r" first on a terminal: the text always starts at column 0 */
	int n =
	    snprintf(line, sizeof(line), "%stracer-analyze: '%s': reading chunk %s of %s (%u%%)",
		     pg.tty ? "\r" : "", pg.path, tza_fmt_count(a, sizeof(a), done),
		     tza_fmt_count(b, sizeof(b), pg.total),
		     pg.total ? (unsigned)(done * 100 / pg.total) : 100u);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(line) - 8 ? (size_t)n : sizeof(line) - 8;
	if (pg.tty) {
		/* never wider than the row: a wrapped line could not be erased */
		struct winsize ws;
		unsigned cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
		if (len > cols) /* cols - 1 characters after the "\r" */
			len = cols;
		memcpy(line + len, "\033[K", 3);
		len += 3;
	} else {
		line[len++] = '\n';
	}
	put(line, len);
	pg.shown = 1;
}

void tza_progress_end(void)
{
	if (pg.path && pg.tty && pg.shown)
		put("\r\033[K", 4);
	if (pg.sigs) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		pg.sigs = 0;
	}
	pg.path = NULL;
	pg.shown = 0;
}
