/* SPDX-License-Identifier: BSD-2-Clause */
/* tzwriter_hostile.c - valid but hostile .tz files for the reliability tests
 * (tests/reliability/05_hostile_files.sh): every block checks out, the
 * content is built to make a reader allocate or loop without bound.
 *
 * usage: tzwriter_hostile OUT KIND [N]
 *   overlap N   N chunks of 32 MiB uncompressed each (the writer's largest),
 *               identical fork events all at one timestamp: every chunk
 *               overlaps every other, the file is tiny (a zstd bomb made of
 *               valid events)
 *   cycle N     parent links that loop: N forks where child i+1 is the parent
 *               of child i and the first is the child of the last, a process
 *               that is its own parent, and state blocks with a ppid cycle
 *   procs N     N forks of distinct pids (a process count linear in the file)
 *   chain N     a tree N processes deep: process i forks process i+1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/ev_fill.h"
#include "bpf/events.h"
#include "schema.h"
#include "tz.h"

static int fork_ev(tz_writer *w, uint64_t ts, uint32_t parent, uint32_t child, uint64_t start)
{
	struct ev_fork e;

	ev_fork_fill(&e, ts, parent, parent, child, start);
	return tracer_event_write(w, &e, sizeof(e));
}

static uint32_t ncycle;

/* state block: 1000 -> 1001 -> 1000 and 1002 -> 1002 */
static int state_fn(void *ctx, tz_writer *w)
{
	struct ev_proc_state s;
	(void)ctx;
	for (uint32_t i = 0; i < 3; i++) {
		memset(&s, 0, sizeof(s));
		s.hdr.size = sizeof(s);
		s.hdr.type = EV_PROC_STATE;
		s.hdr.ts_ns = 1000;
		s.tgid = 1000 + i;
		s.ppid = i == 0 ? 1001 : i == 1 ? 1000 : 1002;
		s.start_ns = 500;
		s.flags = EV_STATE_PRE_EXISTING;
		int rc = tracer_event_write_state(w, &s, sizeof(s));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tz_writer_opts o = {0};
	tz_writer *w;
	long n = argc > 3 ? atol(argv[3]) : 10;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: tzwriter_hostile OUT overlap|cycle|procs [N]\n");
		return 2;
	}
	o.flags = TZ_W_OVERWRITE | TZ_W_NO_FSYNC;
	o.level = 19;
	if (!strcmp(argv[2], "overlap"))
		o.chunk_bytes = 32u << 20;
	if (!strcmp(argv[2], "cycle"))
		o.state_fn = state_fn;
	rc = tz_writer_open(&w, argv[1], &o);
	if (rc || (rc = tracer_schema_register(w))) {
		fprintf(stderr, "tzwriter_hostile: %s\n", tz_writer_errmsg(w));
		return 1;
	}
	if (!strcmp(argv[2], "overlap")) {
		for (long c = 0; c < n && !rc; c++) {
			for (long i = 0; i < 900000 && !rc; i++)
				rc = fork_ev(w, 5000, 1, 2, 4000);
			if (!rc)
				rc = tz_writer_flush(w, 1);
		}
	} else if (!strcmp(argv[2], "cycle")) {
		ncycle = (uint32_t)n;
		/* child 2000+i has parent 2000+i+1; 2000+n-1 has parent 2000 */
		for (uint32_t i = 0; i < ncycle && !rc; i++)
			rc = fork_ev(w, 2000 + i, 2000 + (i + 1) % ncycle, 2000 + i, 1500);
		rc = rc ?: fork_ev(w, 9000, 3000, 3000, 1500); /* its own parent */
	} else if (!strcmp(argv[2], "chain")) {
		for (long i = 0; i < n && !rc; i++)
			rc = fork_ev(w, 1000 + (uint64_t)i, (uint32_t)(10 + i), (uint32_t)(11 + i),
				     900 + (uint64_t)i);
	} else if (!strcmp(argv[2], "procs")) {
		for (long i = 0; i < n && !rc; i++)
			rc = fork_ev(w, 1000 + (uint64_t)i, 1, (uint32_t)(10 + i), 900 + (uint64_t)i);
	} else {
		fprintf(stderr, "tzwriter_hostile: unknown kind '%s'\n", argv[2]);
		return 2;
	}
	if (rc) {
		fprintf(stderr, "tzwriter_hostile: %s\n", tz_writer_errmsg(w));
		return 1;
	}
	rc = tz_writer_close(w);
	if (rc) {
		fprintf(stderr, "tzwriter_hostile: close: %s\n", tz_strerror(rc));
		return 1;
	}
	return 0;
}
