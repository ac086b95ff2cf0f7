/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze_synth.h - synthetic traces for the analyzer's tests: raw event
 * records (struct ev_* of bpf/events.h, as the BPF side writes them) are
 * collected in a list, then written in any order through the real writer
 * (tracer_event_write) into memory and opened with the real reader.
 * Header-only (static functions); included by tests/unit/test_model.c and
 * test_analyze_*.c.
 */
#ifndef ANALYZE_SYNTH_H
#define ANALYZE_SYNTH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "ev_fill.h"
#include "record/schema.h"
#include "tz.h"

#define MS 1000000ULL
#define SEC_NS 1000000000ULL
#define T0 (1000 * SEC_NS) /* boot time of the synthetic recording's start */

struct synth_rec {
	void *buf;
	size_t len;
};

struct synth {
	struct synth_rec *v;
	size_t n, cap;
	const char *meta[16][2];
	int nmeta;
};

static void synth_push(struct synth *s, const void *rec, size_t len)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
	}
	void *b = malloc(len);
	memcpy(b, rec, len);
	s->v[s->n++] = (struct synth_rec){b, len};
}

static void synth_meta(struct synth *s, const char *k, const char *v)
{
	s->meta[s->nmeta][0] = k;
	s->meta[s->nmeta][1] = v;
	s->nmeta++;
}

/* "a|b|c" -> "a\0b\0c\0" in out; returns bytes */
static uint32_t synth_argv(const char *spec, char *out)
{
	size_t n = strlen(spec);
	memcpy(out, spec, n);
	for (size_t i = 0; i < n; i++)
		if (out[i] == '|')
			out[i] = 0;
	out[n] = 0;
	return n ? (uint32_t)n + 1 : 0;
}

static void s_fork(struct synth *s, uint64_t ts, uint32_t parent, uint32_t child)
{
	struct ev_fork e;
	ev_fork_fill(&e, ts, parent, parent, child, ts);
	synth_push(s, &e, sizeof(e));
}

/* exec of tgid (identity start), argv as "a|b|c"; script may be NULL */
static void s_exec(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint32_t ppid,
		   const char *exe, const char *script, const char *argv, const char *comm)
{
	static char buf[sizeof(struct ev_exec) + 3 * EV_PATH_MAX + 8192];
	struct ev_exec *e = (struct ev_exec *)buf;
	memset(e, 0, sizeof(*e));
	char *t = buf + sizeof(*e);
	size_t fl = strlen(exe), sl = script ? strlen(script) : 0;
	memcpy(t, exe, fl); /* filename as passed: the exe here */
	t += fl;
	memcpy(t, exe, fl);
	t += fl;
	if (sl)
		memcpy(t, script, sl);
	t += sl;
	uint32_t al = synth_argv(argv, t);
	t += al;
	e->hdr = (struct ev_hdr){(uint32_t)(t - buf), EV_EXEC, 0, ts};
	e->start_ns = start;
	e->tgid = e->old_pid = tgid;
	e->ppid = ppid;
	e->ns_pid = tgid;
	e->uid = e->euid = e->gid = e->egid = 1000;
	e->argc = 0;
	for (uint32_t i = 0; i < al; i++)
		e->argc += t[(int)i - (int)al] == 0;
	e->argv_size = e->argv_len = al;
	e->filename_len = (uint16_t)fl;
	e->exe_len = (uint16_t)fl;
	e->script_len = (uint16_t)sl;
	e->flags = sl ? EV_EXEC_SCRIPT : 0;
	strncpy(e->comm, comm, sizeof(e->comm) - 1);
	synth_push(s, buf, e->hdr.size);
}

static void s_exec_fail(struct synth *s, uint64_t ts, uint32_t tgid, int err, const char *file)
{
	char buf[sizeof(struct ev_exec_fail) + 256];
	struct ev_exec_fail *e = (struct ev_exec_fail *)buf;
	memset(e, 0, sizeof(*e));
	size_t n = strlen(file);
	memcpy(buf + sizeof(*e), file, n);
	e->hdr = (struct ev_hdr){(uint32_t)(sizeof(*e) + n), EV_EXEC_FAIL, 0, ts};
	e->tgid = e->pid = tgid;
	e->err = err;
	e->filename_len = (uint16_t)n;
	synth_push(s, buf, e->hdr.size);
}

struct exit_vals {
	int code, sig, core;
	uint64_t utime, stime, rss_kib, rchar, wchar, read_bytes, write_bytes;
	uint32_t threads;
	uint32_t flags; /* more EV_EXIT_* bits (EV_EXIT_EXE_DELETED) */
};

static void s_exit(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint32_t ppid,
		   const char *comm, struct exit_vals v)
{
	struct ev_exit e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_EXIT, 1, ts};
	e.start_ns = start;
	e.utime_ns = v.utime;
	e.stime_ns = v.stime;
	e.maxrss_kib = v.rss_kib;
	e.rchar = v.rchar;
	e.wchar = v.wchar;
	e.syscr = v.rchar ? 10 : 0;
	e.syscw = v.wchar ? 10 : 0;
	e.read_bytes = v.read_bytes;
	e.write_bytes = v.write_bytes;
	e.nvcsw = 3;
	e.nivcsw = 2;
	e.tgid = e.pid = tgid;
	e.ppid = ppid;
	e.status = v.sig ? (uint32_t)v.sig | (v.core ? 0x80u : 0u) : ((uint32_t)v.code & 0xff) << 8;
	e.exit_code = v.sig ? -1 : (v.code & 0xff);
	e.signal = v.sig;
	e.threads = v.threads ? v.threads : 1;
	e.flags = (v.sig ? EV_EXIT_SIGNALED : 0) | (v.core ? EV_EXIT_CORE_DUMPED : 0) | v.flags;
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	synth_push(s, &e, sizeof(e));
}

/* An EV_RELEASE of tgid (identity start): final CPU ns and switches */
static void s_release(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint64_t utime,
		      uint64_t stime, uint64_t nvcsw, uint64_t nivcsw)
{
	struct ev_release e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_RELEASE, 0, ts};
	e.start_ns = start;
	e.utime_ns = utime;
	e.stime_ns = stime;
	e.nvcsw = nvcsw;
	e.nivcsw = nivcsw;
	e.tgid = tgid;
	synth_push(s, &e, sizeof(e));
}

static void s_state(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint32_t ppid,
		    const char *exe, const char *argv, uint32_t flags, const char *comm)
{
	char buf[sizeof(struct ev_proc_state) + EV_PATH_MAX + 4096];
	struct ev_proc_state *e = (struct ev_proc_state *)buf;
	memset(e, 0, sizeof(*e));
	size_t n = strlen(exe);
	memcpy(buf + sizeof(*e), exe, n);
	uint32_t al = synth_argv(argv, buf + sizeof(*e) + n);
	e->hdr = (struct ev_hdr){(uint32_t)(sizeof(*e) + n + al), EV_PROC_STATE, 0, ts};
	e->start_ns = start;
	e->tgid = tgid;
	e->ppid = ppid;
	e->ns_pid = tgid;
	e->argv_size = e->argv_len = al;
	e->exe_len = (uint16_t)n;
	e->flags = flags;
	strncpy(e->comm, comm, sizeof(e->comm) - 1);
	synth_push(s, buf, e->hdr.size);
}

static void s_drops(struct synth *s, uint64_t ts, uint64_t fork, uint64_t exec, uint64_t exit_)
{
	struct ev_drops e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_DROPS, 0, ts};
	e.count[EV_DROP_FORK] = fork;
	e.count[EV_DROP_EXEC] = exec;
	e.count[EV_DROP_EXIT] = exit_;
	synth_push(s, &e, sizeof(e));
}

/* An EV_SAMPLE of tgid (identity start): cumulative CPU ns (as utime), RSS KiB (anon) */
static void s_sample_cpu(struct synth *s, uint64_t ts, uint32_t tgid, uint64_t start, uint64_t cpu_ns,
			 uint64_t rss_kib)
{
	struct ev_sample e;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct ev_hdr){sizeof(e), EV_SAMPLE, 0, ts};
	e.start_ns = start;
	e.tgid = tgid;
	e.utime_ns = cpu_ns;
	e.rss_anon_kib = rss_kib;
	e.threads = 1;
	synth_push(s, &e, sizeof(e));
}

/* An EV_HOST_SAMPLE at ts: busy (as user) and idle CPU ns since boot over
 * all CPUs; memory total, used and available KiB; online CPUs; load x 1000.
 * Inline: not every includer uses it. */
static inline void s_host(struct synth *s, uint64_t ts, uint64_t busy, uint64_t idle,
			  uint64_t total_kib, uint64_t used_kib, uint64_t avail_kib, uint32_t ncpus,
			  uint32_t load1_milli)
{
	struct ev_host_sample h;
	memset(&h, 0, sizeof(h));
	h.hdr = (struct ev_hdr){sizeof(h), EV_HOST_SAMPLE, 0, ts};
	h.cpu_user_ns = busy;
	h.cpu_idle_ns = idle;
	h.mem_total_kib = total_kib;
	h.mem_used_kib = used_kib;
	h.mem_available_kib = avail_kib;
	h.ncpus = ncpus;
	h.load1_milli = load1_milli;
	synth_push(s, &h, sizeof(h));
}

/* A whole process: fork, exec, exit (argv "a|b"); returns nothing. */
static void s_proc(struct synth *s, uint32_t parent, uint32_t pid, uint64_t t_start, uint64_t t_end,
		   const char *exe, const char *argv, const char *comm, struct exit_vals v)
{
	s_fork(s, t_start, parent, pid);
	uint64_t d = (t_end - t_start) / 100;
	s_exec(s, t_start + (d < 100000 ? d : 100000), pid, t_start, parent, exe, NULL, argv, comm);
	s_exit(s, t_end, pid, t_start, parent, comm, v);
}

/*
 * Write the records in the order given by order[] (NULL: as pushed) into a
 * memory .tz with small chunks (so events cross chunk boundaries). Returns
 * the malloc'd file bytes.
 */
static void *synth_file(struct synth *s, const size_t *order, size_t *len)
{
	tz_writer *w = NULL;
	struct tz_writer_opts o;
	memset(&o, 0, sizeof(o));
	o.chunk_bytes = 4096;
	o.flags = TZ_W_NO_FSYNC;
	if (tz_writer_open_mem(&w, &o) < 0)
		return NULL;
	for (int i = 0; i < s->nmeta; i++)
		tz_writer_set_meta(w, s->meta[i][0], s->meta[i][1]);
	if (tracer_schema_register(w) < 0)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct synth_rec *r = &s->v[order ? order[i] : i];
		if (tracer_event_write(w, r->buf, r->len) < 0) {
			fprintf(stderr, "synth: write failed: %s\n", tz_writer_errmsg(w));
			tz_writer_free(w);
			return NULL;
		}
	}
	void *buf = NULL;
	if (tz_writer_mem_take(w, &buf, len) < 0)
		return NULL;
	return buf;
}

static void synth_free(struct synth *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].buf);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ scenarios */

/*
 * The 3-stage pipeline: root sh (pid 100, 0..8 s) runs stage 1 (prep.py,
 * 0.1..1.1 s), then stage 2 (bash stage2.sh, 1.2..6.3 s) which runs a
 * single-threaded 5 s step (serial_step, 1.25..6.25 s, 5 s CPU) beside four
 * parallel 1 s steps (par_step, 1.3..2.3 s, 1 s CPU each), then stage 3
 * (samtools index, 6.4..7.9 s). 8 CPUs, 16 GiB.
 */
static void scen_pipeline(struct synth *s)
{
	struct exit_vals z = {0};
	synth_meta(s, "cpus", "8");
	synth_meta(s, "memory_kib", "16777216");
	synth_meta(s, "hostname", "synth");
	synth_meta(s, "kernel", "6.18.0-synth");
	synth_meta(s, "recorder_version", "0.1.0");
	synth_meta(s, "recorder_cmdline", "tracer-record -o pipe.tz -- sh pipeline.sh");
	s_fork(s, T0, 50, 100);
	s_exec(s, T0 + 1000, 100, T0, 50, "/usr/bin/dash", NULL, "sh|pipeline.sh", "sh");
	struct exit_vals v1 = {.utime = 900 * MS, .stime = 50 * MS, .rss_kib = 20000,
			       .rchar = 1000000, .wchar = 500000};
	s_proc(s, 100, 101, T0 + 100 * MS, T0 + 1100 * MS, "/usr/bin/python3.11",
	       "python3|prep.py|in.txt", "python3", v1);
	s_fork(s, T0 + 1200 * MS, 100, 102);
	s_exec(s, T0 + 1201 * MS, 102, T0 + 1200 * MS, 100, "/usr/bin/bash", NULL,
	       "bash|stage2.sh", "bash");
	struct exit_vals vs = {.utime = 4900 * MS, .stime = 100 * MS, .rss_kib = 50000};
	s_proc(s, 102, 103, T0 + 1250 * MS, T0 + 6250 * MS, "/opt/bin/serial_step",
	       "serial_step|--big", "serial_step", vs);
	for (uint32_t i = 0; i < 4; i++) {
		struct exit_vals vp = {.utime = 1000 * MS, .rss_kib = 10000};
		s_proc(s, 102, 104 + i, T0 + 1300 * MS, T0 + 2300 * MS, "/opt/bin/par_step",
		       "par_step|chunk", "par_step", vp);
	}
	s_exit(s, T0 + 6300 * MS, 102, T0 + 1200 * MS, 100, "bash", (struct exit_vals){.utime = 10 * MS});
	struct exit_vals v3 = {.utime = 1400 * MS, .rss_kib = 8000, .rchar = 300000000,
			       .wchar = 1000};
	s_proc(s, 100, 108, T0 + 6400 * MS, T0 + 7900 * MS, "/usr/bin/samtools",
	       "samtools|index|x.bam", "samtools", v3);
	s_exit(s, T0 + 8000 * MS, 100, T0, 50, "sh", z);
}

/* A plot script's titles read as one line: they are wrapped to the
 * picture's width at spaces ("\n" inside the gnuplot string). In place. */
static inline char *plot_unwrap(char *script)
{
	for (char *q = script; q && (q = strstr(q, "\\n")); q++) {
		q[0] = ' ';
		memmove(q + 1, q + 2, strlen(q + 2) + 1);
	}
	return script;
}

#endif /* ANALYZE_SYNTH_H */
