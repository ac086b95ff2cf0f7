/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tzsynth.c - bench-tzsynth: write a synthetic .tz trace of a pipeline-like
 * workload with the real writer (format/tz.h) and schema (record/schema.h).
 *
 *   bench-tzsynth -o FILE -e EVENTS [-p PROCS] [-m PIDMAX] [-l LEVEL] [-r RAWFILE]
 *
 * Without -p: tasks of 2 processes (a `sh -c` wrapper that forks a tool; 6
 * events: fork, exec, fork, exec, exit, exit), 64 tasks alive at a time,
 * until EVENTS events are written. With -p PROCS: only that many processes
 * (the same tasks), the remaining events are periodic EV_DROPS records (the
 * recorder's own counters), so two traces of different sizes hold the same
 * process set: the analyzer's memory should not differ. -r also writes the
 * ring-buffer records (header + fixed + tail, as the BPF side emits them) to
 * RAWFILE: the same bytes, for a raw `zstd -1` reference. Pids run from
 * 1000 up to PIDMAX (default 4194304, systemd's pid_max on large hosts) and
 * are then reused. Prints
 * "events=N procs=P seconds=S bytes=B raw_bytes=R".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/schema.h"

static const char *tools[] = {
	"/usr/bin/samtools", "/usr/bin/bwa", "/usr/bin/bcftools", "/usr/bin/python3.11",
	"/usr/bin/gzip", "/usr/bin/awk", "/usr/bin/sort", "/usr/bin/minimap2",
};
static const char *subs[] = {"sort", "mem", "call", "qc.py", "-dc", "{print}", "-k1,1", "-ax"};

struct pend {
	uint64_t ts;
	uint32_t task;
	uint32_t step;
};

static struct pend heap[1024];
static size_t nheap;

static void hpush(struct pend p)
{
	size_t i = nheap++;

	while (i && heap[(i - 1) / 2].ts > p.ts) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = p;
}

static struct pend hpop(void)
{
	struct pend top = heap[0], last = heap[--nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= nheap)
			break;
		if (c + 1 < nheap && heap[c + 1].ts < heap[c].ts)
			c++;
		if (heap[c].ts >= last.ts)
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = last;
	return top;
}

static FILE *raw;
static uint64_t raw_bytes;
static uint8_t rec[8192];

static int emit(tz_writer *w, size_t size)
{
	((struct ev_hdr *)rec)->size = (uint32_t)size;
	if (raw) {
		fwrite(rec, 1, size, raw);
		raw_bytes += size;
	}
	return tracer_event_write(w, rec, size);
}

static uint32_t pid_tasks = 2096000; /* tasks before pids wrap: (PIDMAX - 1000) / 2 */

/* Task t: wrapper pid 1000 + 2t, tool pid 1001 + 2t; step offsets in ns. */
static const uint64_t step_off[6] = {0, 40000, 900000, 950000, 0, 0};

static uint64_t task_dur(uint32_t t)
{
	return 2000000 + (uint64_t)(t * 2654435761u % 50) * 400000; /* 2..22 ms */
}

static int emit_step(tz_writer *w, uint32_t t, uint32_t step, uint64_t ts, uint64_t t0)
{
	uint32_t sh = 1000 + 2 * (t % pid_tasks), tool = sh + 1;
	uint64_t sh_start = t0, tool_start = t0 + step_off[2];
	unsigned k = t % 8;

	memset(rec, 0, sizeof(struct ev_exit) + 256);
	((struct ev_hdr *)rec)->ts_ns = ts;
	if (step == 0 || step == 2) {
		struct ev_fork *e = (void *)rec;

		e->hdr.type = EV_FORK;
		e->parent_tgid = step ? sh : 1;
		e->caller_tgid = e->parent_tgid;
		e->caller_pid = e->parent_tgid;
		e->child_tgid = step ? tool : sh;
		e->child_start_ns = step ? tool_start : sh_start;
		e->child_ns_pid = e->child_tgid;
		return emit(w, sizeof(*e));
	}
	if (step == 1 || step == 3) {
		struct ev_exec *e = (void *)rec;
		char *tail = (char *)(e + 1);
		const char *exe = step == 1 ? "/usr/bin/dash" : tools[k];
		char argv[256];
		int an;

		if (step == 1)
			an = snprintf(argv, sizeof(argv), "sh%c-c%c%s %s -o out_%u.bam in_%u.bam", 0, 0,
				      tools[k] + 9, subs[k], t, t);
		else
			an = snprintf(argv, sizeof(argv), "%s%c%s%c-o%cout_%u.bam%cin_%u.bam", tools[k] + 9,
				      0, subs[k], 0, 0, t, 0, t);
		an++;
		e->hdr.type = EV_EXEC;
		e->start_ns = step == 1 ? sh_start : tool_start;
		e->cgroup_id = 4242;
		e->tgid = step == 1 ? sh : tool;
		e->old_pid = e->tgid;
		e->ppid = step == 1 ? 1 : sh;
		e->ns_pid = e->tgid;
		e->argc = step == 1 ? 3 : 5;
		e->argv_size = e->argv_len = (uint32_t)an;
		e->filename_len = e->exe_len = (uint16_t)strlen(exe);
		e->script_len = 0;
		memcpy(e->comm, strrchr(exe, '/') + 1, strlen(strrchr(exe, '/') + 1) > 15 ? 15 : strlen(strrchr(exe, '/') + 1));
		memcpy(tail, exe, e->filename_len);
		memcpy(tail + e->filename_len, exe, e->exe_len);
		memcpy(tail + 2 * e->filename_len, argv, (size_t)an);
		return emit(w, sizeof(*e) + 2 * e->filename_len + (size_t)an);
	}
	{
		struct ev_exit *e = (void *)rec;
		int is_tool = step == 4;

		e->hdr.type = EV_EXIT;
		e->start_ns = is_tool ? tool_start : sh_start;
		e->utime_ns = is_tool ? (ts - tool_start) * 9 / 10 : 300000;
		e->stime_ns = is_tool ? (ts - tool_start) / 20 : 200000;
		e->maxrss_kib = is_tool ? 20000 + k * 1000 : 1500;
		e->rchar = e->read_bytes = is_tool ? 1 << 20 : 4096;
		e->wchar = e->write_bytes = is_tool ? 1 << 19 : 0;
		e->syscr = 40;
		e->syscw = 20;
		e->nvcsw = 3;
		e->nivcsw = 1;
		e->min_flt = 300;
		e->tgid = e->pid = is_tool ? tool : sh;
		e->ppid = is_tool ? sh : 1;
		e->threads = 1;
		memcpy(e->comm, is_tool ? "tool" : "sh", is_tool ? 4 : 2);
		return emit(w, sizeof(*e));
	}
}

int main(int argc, char **argv)
{
	struct tz_writer_opts o = {.flags = TZ_W_OVERWRITE | TZ_W_NO_FSYNC, .threads = 1};
	const char *out = NULL, *rawpath = NULL;
	uint64_t events = 0, procs = 0, n = 0, tasks_started = 0, t_next = 1000000000ull;
	uint64_t ndrop = 0, last_ts = 0;
	struct tz_writer_stats st;
	struct timespec a, b;
	tz_writer *w;
	int opt, err;

	const char *host = "bench-synthetic";
	uint8_t boot[16] = {0};

	while ((opt = getopt(argc, argv, "o:e:p:m:l:r:H:")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'e': events = strtoull(optarg, NULL, 10); break;
		case 'p': procs = strtoull(optarg, NULL, 10); break;
		case 'm': pid_tasks = (uint32_t)((strtoul(optarg, NULL, 10) - 1000) / 2); break;
		case 'l': o.level = atoi(optarg); break;
		case 'r': rawpath = optarg; break;
		case 'H': /* a "host" of a multi-host run: its name, a boot id of its own */
			host = optarg;
			for (size_t i = 0; optarg[i]; i++)
				boot[i % 16] = (uint8_t)(boot[i % 16] * 31 + (uint8_t)optarg[i] + 1);
			o.boot_id = boot;
			break;
		default: return 2;
		}
	}
	if (!out || !events || pid_tasks < 1) {
		fprintf(stderr, "usage: bench-tzsynth -o FILE -e EVENTS [-p PROCS] [-l LEVEL] [-r RAW] "
				"[-H HOST]\n");
		return 2;
	}
	if (rawpath && !(raw = fopen(rawpath, "w"))) {
		perror(rawpath);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = tz_writer_open(&w, out, &o);
	if (!err)
		err = tracer_schema_register(w);
	if (err) {
		fprintf(stderr, "bench-tzsynth: '%s': %s\n", out, tz_strerror(err));
		return 1;
	}
	tz_writer_set_meta(w, "hostname", host);
	tz_writer_set_meta(w, "recorder_version", "bench-tzsynth");
	uint64_t max_tasks = procs ? procs / 2 : UINT64_MAX;
	/* a task starts every 250 us and lives 2..22 ms: about 50 in flight */
	for (; n < events;) {
		if (tasks_started < max_tasks && (nheap == 0 || heap[0].ts >= t_next)) {
			uint32_t t = (uint32_t)tasks_started++;

			hpush((struct pend){t_next, t, 0});
			t_next += 250000;
			continue;
		}
		if (!nheap && procs) {
			/* all processes done: fill with drop counters */
			struct ev_drops *e = (void *)rec;

			memset(rec, 0, sizeof(*e));
			if (t_next <= last_ts)
				t_next = last_ts + 1;
			e->hdr.type = EV_DROPS;
			e->hdr.ts_ns = t_next;
			t_next += 1000;
			if (emit(w, sizeof(*e)))
				break;
			n++;
			ndrop++;
			continue;
		}
		struct pend p = hpop();
		uint64_t t0 = 1000000000ull + (uint64_t)p.task * 250000, d = task_dur(p.task);

		if (emit_step(w, p.task, p.step, p.ts, t0))
			break;
		last_ts = p.ts;
		n++;
		if (p.step < 5) {
			uint64_t next = p.step < 3 ? t0 + step_off[p.step + 1]
				       : p.step == 3 ? t0 + d : t0 + d + 300000;
			hpush((struct pend){next, p.task, p.step + 1});
		}
	}
	tz_writer_stats(w, &st);
	err = tz_writer_close(w);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (raw)
		fclose(raw);
	if (err) {
		fprintf(stderr, "bench-tzsynth: '%s': %s\n", out, tz_strerror(err));
		return 1;
	}
	printf("events=%llu procs=%llu drops_events=%llu seconds=%.3f bytes_in=%llu raw_bytes=%llu\n",
	       (unsigned long long)n, (unsigned long long)(tasks_started * 2), (unsigned long long)ndrop,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
	       (unsigned long long)st.bytes_in, (unsigned long long)raw_bytes);
	return 0;
}
