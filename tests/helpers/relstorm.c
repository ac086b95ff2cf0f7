/* SPDX-License-Identifier: BSD-2-Clause */
/* relstorm.c - exec storms with known counts for the reliability tests
 * (tests/reliability/). Each exec is execve("/bin/true", {"true", "J-I",
 * [PAD]}) followed by a wait, so the trace can be checked against the
 * exact sequence that ran.
 *
 *   relstorm [-n N] [-j JOBS] [-r RATE] [-a BYTES] [-l LOG] [-d DONE] [-P N]
 *
 *   -n N      execs per job (default 1000; 0 = until killed)
 *   -j JOBS   parallel jobs (default 1): with more than one, JOBS children
 *             are forked (no exec) and each runs the storm; JOBS=1 runs it
 *             in this process
 *   -r RATE   execs per second per job, paced on an absolute schedule
 *             (default 0: as fast as possible)
 *   -a BYTES  a third argument of BYTES pseudo-random hex characters (so
 *             the trace does not compress away)
 *   -l LOG    job 0 appends "REALTIME_NS COUNT" to LOG after every exec has
 *             been waited for (COUNT execs done)
 *   -d DONE   write "COUNT STATUS\n" (total execs done; 0, or 1 if an exec
 *             failed) to DONE at the end
 *   -P N      after the storm, N more execs "true 9-I" paced at 50/s (the
 *             recorder must have caught up with them)
 *
 * Counts, for `tracer-record -- relstorm -n N -j J -P P`: execs 1 + J*N + P;
 * forks and exits 1 + J*N + P, plus J when J > 1. Exits 0, or 1 if an exec
 * failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int storm(int job, long n, double rate, size_t abytes, int logfd, long *done)
{
	char id[48], line[64];
	char *pad = NULL;
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(job + 1) * 0x632be59bd9b4e019ull;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	int bad = 0;

	if (abytes) {
		pad = malloc(abytes + 1);
		if (!pad)
			return 1;
		pad[abytes] = 0;
	}
	for (long i = 0; n == 0 || i < n; i++) {
		if (rate > 0) {
			uint64_t due = t0 + (uint64_t)((double)i * 1e9 / rate);
			uint64_t now = now_ns(CLOCK_MONOTONIC);
			if (due > now) {
				struct timespec ts = {(time_t)((due - now) / 1000000000ull),
						      (long)((due - now) % 1000000000ull)};
				while (nanosleep(&ts, &ts) && errno == EINTR)
					;
			}
		}
		snprintf(id, sizeof(id), "%d-%ld", job, i);
		for (size_t k = 0; k < abytes; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pad[k] = "0123456789abcdef"[x & 15];
		}
		char *argv[] = {"true", id, pad, NULL};
		pid_t p = fork();
		if (p < 0) {
			bad = 1;
			break;
		}
		if (p == 0) {
			execve("/bin/true", argv, (char *[]){NULL});
			_exit(127);
		}
		int st;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
		(*done)++;
		if (logfd >= 0) {
			int len = snprintf(line, sizeof(line), "%llu %ld\n",
					   (unsigned long long)now_ns(CLOCK_REALTIME), *done);
			if (write(logfd, line, (size_t)len) != len)
				bad = 1;
		}
	}
	free(pad);
	return bad;
}

int main(int argc, char **argv)
{
	long n = 1000, done = 0;
	int jobs = 1, c, logfd = -1, bad = 0;
	double rate = 0;
	size_t abytes = 0;
	const char *donef = NULL;

	long after = 0;

	while ((c = getopt(argc, argv, "n:j:r:a:l:d:P:")) != -1) {
		switch (c) {
		case 'n':
			n = atol(optarg);
			break;
		case 'j':
			jobs = atoi(optarg);
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'a':
			abytes = (size_t)atol(optarg);
			break;
		case 'l':
			logfd = open(optarg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (logfd < 0) {
				perror(optarg);
				return 2;
			}
			break;
		case 'd':
			donef = optarg;
			break;
		case 'P':
			after = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: relstorm [-n N] [-j JOBS] [-r RATE] [-a BYTES] "
					"[-l LOG] [-d DONE]\n");
			return 2;
		}
	}
	if (jobs < 1 || n < 0 || abytes > 100000)
		return 2;
	if (jobs == 1) {
		bad = storm(0, n, rate, abytes, logfd, &done);
	} else {
		for (int j = 0; j < jobs; j++) {
			pid_t p = fork();
			if (p < 0)
				return 1;
			if (p == 0) {
				long d = 0;
				_exit(storm(j, n, rate, abytes, j == 0 ? logfd : -1, &d));
			}
		}
		for (int j = 0; j < jobs; j++) {
			int st;
			if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				bad = 1;
		}
		done = n * jobs;
	}
	if (after > 0) {
		long d = 0;
		bad |= storm(9, after, 50, 0, -1, &d);
	}
	if (donef) { /* written whole, then renamed: pollers never see half */
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", donef);
		FILE *f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%ld %d\n", done, bad);
			if (fclose(f) == 0)
				rename(tmp, donef);
		}
	}
	return bad;
}
