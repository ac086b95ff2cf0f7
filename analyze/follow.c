/* SPDX-License-Identifier: BSD-2-Clause */
/* follow.c - the refresh loop of top --follow and summary --follow (follow.h). */
#include <errno.h>
#include <getopt.h> /* optind */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "analyze.h"
#include "fleet.h"
#include "follow.h"
#include "report.h"

static volatile sig_atomic_t follow_stop;
static void on_stop(int sig)
{
	(void)sig;
	follow_stop = 1;
}

/* Wait up to ms for 'q' on stdin (keys: a terminal in non-canonical mode);
 * 1 when it came, or stdin ended. Without keys, a plain sleep. */
static int wait_quit(uint64_t ms, int keys)
{
	for (uint64_t t = 0; t < ms && !follow_stop; t += 100) {
		if (!keys) {
			usleep(100000);
			continue;
		}
		struct pollfd p = {.fd = 0, .events = POLLIN};
		if (poll(&p, 1, 100) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
			continue;
		char c;
		ssize_t n = read(0, &c, 1);
		if (n == 0 || (n == 1 && (c == 'q' || c == 'Q')))
			return 1;
	}
	return 0;
}

/* once's output into *out (len bytes, the caller's to free) and its exit
 * code; -1 when no stream could be made (*out NULL), after one line */
static int render(const char *cmd, const char *path, tza_follow_fn once, void *arg,
		  struct tz_info *in, char **out, size_t *len)
{
	FILE *mf = open_memstream(out, len);
	if (!mf) {
		tza_err("%s: out of memory", cmd);
		return -1;
	}
	int rc = once(mf, path, arg, in);
	if (fclose(mf) && rc == TZA_EXIT_OK) {
		tza_err("%s: out of memory", cmd);
		rc = TZA_EXIT_FAIL;
	}
	return rc;
}

int tza_follow(const char *cmd, const char *path, uint64_t interval_ms, tza_follow_fn once,
	       void *arg)
{
	/* the chunks sealed so far, without the footer a finished file has;
	 * the file once finished is read as the command alone reads it */
	int partial = tza_partial();
	if (setenv("TRACER_ANALYZE_PARTIAL", "1", 1)) {
		tza_err("%s: %s", cmd, strerror(errno));
		return TZA_EXIT_FAIL;
	}
	struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* 'q' on a terminal: keys one at a time, not echoed */
	struct termios old_tio, tio;
	int keys = isatty(0) && !tcgetattr(0, &old_tio);
	if (keys) {
		tio = old_tio;
		tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tio.c_cc[VMIN] = 1;
		tio.c_cc[VTIME] = 0;
		keys = !tcsetattr(0, TCSANOW, &tio);
	}
	int tty = isatty(1), rc = TZA_EXIT_OK;
	follow_stop = 0;
	for (;;) {
		struct tz_info in = {0};
		char when[32];
		time_t now = time(NULL);
		struct tm tm;
		strftime(when, sizeof(when), "%H:%M:%S", gmtime_r(&now, &tm));
		/* the output first (it needs the file read), then the screen */
		char *out = NULL;
		size_t len = 0;
		rc = render(cmd, path, once, arg, &in, &out, &len);
		if (rc == TZA_EXIT_OK && !partial &&
		    (in.unfinished ? !in.live
				   : in.corrupt_blocks || (!in.has_footer && !in.ring))) {
			/* closed yet damaged (or its index ignored), or cut and
			 * no writer to finish it: the verdict of CMD without
			 * --follow, its one line and exit code */
			free(out);
			out = NULL;
			unsetenv("TRACER_ANALYZE_PARTIAL");
			rc = render(cmd, path, once, arg, &in, &out, &len);
		}
		if (rc < 0) { /* no stream: nothing to show */
			rc = TZA_EXIT_FAIL;
			break;
		}
		if (rc != TZA_EXIT_OK) {
			free(out);
			break;
		}
		const char *state =
		    !in.unfinished && (in.corrupt_blocks || (!in.has_footer && !in.ring))
			? "finished, damaged: what --partial reads of it"
		    : !in.unfinished ? "finished: the whole trace"
		    : in.live	   ? "recording: sealed chunks only, the newest 1-3 s not yet"
			      : "unfinished and no writer: the recorder stopped without closing it";
		if (tty)
			fputs("\033[H\033[2J", stdout);
		printf("%s --follow '%s'  %s UTC  %llu chunks  %s\n\n", cmd, path, when,
		       (unsigned long long)in.chunks, state);
		fwrite(out, 1, len, stdout);
		free(out);
		if (!tty)
			fputc('\n', stdout);
		fflush(stdout);
		if (!in.unfinished || !in.live || follow_stop || wait_quit(interval_ms, keys) ||
		    follow_stop)
			break;
	}
	if (keys)
		tcsetattr(0, TCSANOW, &old_tio);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

int tza_follow_operands(const char *cmd, int follow, int argc, char **argv, const char **path)
{
	if (optind < argc && tza_fleet_wanted(argv + optind, argc - optind)) {
		if (!follow)
			return TZA_FOLLOW_HOSTS;
		tza_err("%s: --follow reads one trace (not several hosts)", cmd);
		return TZA_EXIT_USAGE;
	}
	*path = tza_one_file(cmd, argc, argv);
	return *path ? TZA_FOLLOW_ONE : TZA_EXIT_USAGE;
}

int tza_follow_interval(const char *arg, uint64_t *ms)
{
	uint64_t s;
	if (tza_parse_u64("--interval", arg, 1, 36000, &s) < 0)
		return -1;
	*ms = s * 1000;
	return 0;
}
