/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tzwriter_loop.c - writes a synthetic .tz trace with the real schema, for the
 * format's integration tests and golden files.
 *
 * usage: tzwriter_loop [-n COUNT] [-c CHUNK_BYTES] [-r RING_BYTES] [-t] [-k] [-R] OUT
 *   -n COUNT   events to write (default 0 = forever, until killed)
 *   -c BYTES   chunk size (default 65536)
 *   -r BYTES   ring mode with this file size
 *   -t         background compression thread
 *   -k         do not close: exit leaving no footer (as a crash would)
 *   -R         real CLOCK_BOOTTIME timestamps (default: synthetic, 1 s + i us)
 * Event i: fork of pid 1000+i, then exec of it (argv with a shared path), then
 * its exit; field tgid always holds 1000+i/3 so gaps are detectable. Every 1000
 * events it seals the chunk and prints "sealed N" (N events durably written,
 * as far as a SIGKILL is concerned) on stdout, line-buffered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schema.h"

static uint64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int state_fn(void *ctx, tz_writer *w)
{
	uint64_t *next = ctx;
	struct ev_proc_state s;
	memset(&s, 0, sizeof(s));
	s.hdr.type = EV_PROC_STATE;
	s.hdr.size = sizeof(s);
	s.hdr.ts_ns = 1000000000ull + *next * 1000;
	s.tgid = (uint32_t)(1000 + *next / 3);
	strcpy(s.comm, "worker");
	return tracer_event_write_state(w, &s, sizeof(s));
}

int main(int argc, char **argv)
{
	uint64_t count = 0, i = 0;
	struct tz_writer_opts o = {.chunk_bytes = 65536,
				   .flags = TZ_W_OVERWRITE,
				   .state_fn = state_fn,
				   .state_ctx = &i,
				   .state_every = 16};
	int keep = 0, real = 0, c;
	while ((c = getopt(argc, argv, "n:c:r:tkR")) != -1) {
		switch (c) {
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			o.chunk_bytes = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			o.ring_size = strtoull(optarg, NULL, 10);
			break;
		case 't':
			o.threads = 1;
			break;
		case 'k':
			keep = 1;
			break;
		case 'R':
			real = 1;
			break;
		default:
			fprintf(stderr,
				"usage: tzwriter_loop [-n N] [-c B] [-r B] [-t] [-k] [-R] OUT\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: tzwriter_loop [-n N] [-c B] [-r B] [-t] [-k] [-R] OUT\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tz_writer *w;
	int rc = tz_writer_open(&w, argv[optind], &o);
	if (rc || tracer_schema_register(w) || tz_writer_set_meta(w, "recorder", "tzwriter_loop")) {
		fprintf(stderr, "tzwriter_loop: %s\n", tz_writer_errmsg(w));
		return 1;
	}
	static const char args[] = "/usr/bin/cc\0-c\0-O2\0main.c\0";
	for (i = 0; !count || i < count; i++) {
		uint64_t ts = real ? now() : 1000000000ull + i * 1000;
		uint32_t pid = (uint32_t)(1000 + i / 3);
		union {
			struct ev_fork f;
			struct ev_exit x;
			uint8_t exec[sizeof(struct ev_exec) + 256];
		} u;
		memset(&u, 0, sizeof(u));
		size_t size;
		if (i % 3 == 0) {
			u.f.hdr.type = EV_FORK;
			u.f.child_tgid = pid;
			u.f.parent_tgid = 1;
			u.f.child_start_ns = ts;
			size = sizeof(u.f);
		} else if (i % 3 == 1) {
			struct ev_exec *e = (struct ev_exec *)u.exec;
			e->hdr.type = EV_EXEC;
			e->tgid = pid;
			e->ppid = 1;
			e->exe_len = 11;
			e->filename_len = 11;
			e->argv_len = sizeof(args) - 1;
			e->argc = 4;
			e->argv_size = sizeof(args) - 1;
			strcpy(e->comm, "cc");
			char *t = (char *)(e + 1);
			memcpy(t, "/usr/bin/cc", 11);
			memcpy(t + 11, "/usr/bin/cc", 11);
			memcpy(t + 22, args, sizeof(args) - 1);
			size = sizeof(*e) + 22 + sizeof(args) - 1;
			if (i == 1) { /* C05: argument bytes that must survive exactly */
				static const char odd[] =
				    "printf\0a b\0\0x\ny\0\xff\xfe\0\x01\0end\0";
				memcpy(t + 22, odd, sizeof(odd) - 1);
				e->argv_len = e->argv_size = sizeof(odd) - 1;
				e->argc = 7;
				size = sizeof(*e) + 22 + sizeof(odd) - 1;
			}
		} else {
			u.x.hdr.type = EV_EXIT;
			u.x.tgid = pid;
			u.x.pid = pid;
			u.x.ppid = 1;
			u.x.utime_ns = i * 1000;
			u.x.exit_code = (int32_t)(i % 7);
			strcpy(u.x.comm, "cc");
			size = sizeof(u.x);
		}
		struct ev_hdr *h = (struct ev_hdr *)&u;
		h->size = (uint32_t)size;
		h->ts_ns = ts;
		if ((rc = tracer_event_write(w, &u, size))) {
			fprintf(stderr, "tzwriter_loop: %s\n", tz_writer_errmsg(w));
			return 1;
		}
		if ((i + 1) % 1000 == 0) {
			if ((rc = tz_writer_flush(w, 1))) {
				fprintf(stderr, "tzwriter_loop: %s\n", tz_writer_errmsg(w));
				return 1;
			}
			printf("sealed %llu\n", (unsigned long long)(i + 1));
		}
	}
	if (keep) {
		tz_writer_flush(w, 1);
		tz_writer_free(w); /* no footer */
		return 0;
	}
	rc = tz_writer_close(w);
	if (rc)
		fprintf(stderr, "tzwriter_loop: %s\n", tz_strerror(rc));
	return rc ? 1 : 0;
}
