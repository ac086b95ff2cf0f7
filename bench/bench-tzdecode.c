/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-tzdecode.c - bench-tzdecode: the reader's raw decode speed, and event counts
 * for bench/run's lost-event column.
 *
 *   bench-tzdecode [-x NAME] [-c COMM] FILE
 *
 * Iterates every event of FILE in timestamp order with tz_reader_next() and
 * touches every fixed byte (a checksum), no model, no allocation per event.
 * -x NAME counts exec events whose filename's last component is NAME, -c COMM
 * counts exit events whose comm is COMM. Prints one line:
 * "events=N fork=F exec=E exit=X drops=D exec_match=M exit_match=K
 *  dropped=L seconds=S events_per_s=R" (dropped: the last EV_DROPS total
 * plus chunk headers' dropped counts).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/schema.h"

int main(int argc, char **argv)
{
	const char *xname = NULL, *comm = NULL;
	uint64_t n = 0, by[EV_TYPE_MAX] = {0}, xm = 0, cm = 0, sum = 0, dropped = 0;
	const struct tz_field *ffn = NULL, *fcomm = NULL;
	const struct tz_event *ev;
	struct timespec a, b;
	tz_reader *r = NULL;
	int opt, err;

	while ((opt = getopt(argc, argv, "x:c:")) != -1) {
		switch (opt) {
		case 'x': xname = optarg; break;
		case 'c': comm = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: bench-tzdecode [-x NAME] [-c COMM] FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = tz_reader_open(&r, argv[optind], NULL);
	if (!err)
		err = tz_reader_iter(r, 0, UINT64_MAX, 0);
	if (err) {
		fprintf(stderr, "bench-tzdecode: %s\n", r ? tz_reader_errmsg(r) : tz_strerror(err));
		tz_reader_free(r);
		return 1;
	}
	if (tz_reader_type_by_id(r, EV_EXEC))
		ffn = tz_type_field(tz_reader_type_by_id(r, EV_EXEC), "filename");
	if (tz_reader_type_by_id(r, EV_EXIT))
		fcomm = tz_type_field(tz_reader_type_by_id(r, EV_EXIT), "comm");
	while ((err = tz_reader_next(r, &ev)) > 0) {
		n++;
		for (uint32_t i = 0; i < ev->fixed_len; i++)
			sum += ev->fixed[i];
		if (ev->type_id < EV_TYPE_MAX)
			by[ev->type_id]++;
		if (xname && ev->type_id == EV_EXEC) {
			struct tz_blob fb = tz_event_blob(ev, ffn);
			size_t l = strlen(xname);

			if (fb.len >= l && !memcmp((const char *)fb.data + fb.len - l, xname, l) &&
			    (fb.len == l || ((const char *)fb.data)[fb.len - l - 1] == '/'))
				xm++;
		}
		if (comm && ev->type_id == EV_EXIT) {
			uint32_t len;
			const uint8_t *c = tz_event_bytes(ev, fcomm, &len);

			if (c && strnlen((const char *)c, len) == strlen(comm) &&
			    !memcmp(c, comm, strlen(comm)))
				cm++;
		}
		if (ev->type_id == EV_DROPS) {
			uint64_t d = 0;

			for (uint32_t i = 0; i + 8 <= ev->fixed_len && i < 8 * EV_DROP_SLOTS; i += 8)
				if (i / 8 != EV_DROP_ARGV_FAULT) {
					uint64_t v;

					memcpy(&v, ev->fixed + i, 8);
					d += v;
				}
			dropped = d;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (err < 0) {
		fprintf(stderr, "bench-tzdecode: %s\n", tz_reader_errmsg(r));
		tz_reader_free(r);
		return 1;
	}
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("events=%llu fork=%llu exec=%llu exit=%llu drops=%llu exec_match=%llu exit_match=%llu "
	       "dropped=%llu seconds=%.3f events_per_s=%.0f checksum=%llu\n",
	       (unsigned long long)n, (unsigned long long)by[EV_FORK], (unsigned long long)by[EV_EXEC],
	       (unsigned long long)by[EV_EXIT], (unsigned long long)by[EV_DROPS],
	       (unsigned long long)xm, (unsigned long long)cm,
	       (unsigned long long)(dropped + tz_reader_info(r)->dropped), s, s > 0 ? (double)n / s : 0,
	       (unsigned long long)sum);
	tz_reader_free(r);
	return 0;
}
