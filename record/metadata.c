/* SPDX-License-Identifier: BSD-2-Clause */
/* metadata.c - the writer's opening (start metadata, schema, state blocks)
 * and closing (attachments, drops, stop metadata) (recorder.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/timex.h>
#include <unistd.h>

#include "command.h"
#include "recorder.h"
#include "sample.h"
#include "schema.h"

/* A state block: the live processes, then the cgroup table (bounded:
 * CG_RESTATE_MAX), so a wrapped ring still resolves their cgroups. */
static int state_fn(void *ctx, tz_writer *w)
{
	struct rec *r = ctx;
	int rc = ptable_state_fn(&r->pt, w);
	int rc2 = cgt_state(&r->cg, w, rec_boot_ns());
	return rc < 0 ? rc : rc2;
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) * 4 + 3;
	s = p = malloc(len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int plain = *a != 0;
		for (const char *q = a; *q; q++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "-_./=:,+@%",
				    *q))
				plain = 0;
		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, a);
			continue;
		}
		*p++ = '\'';
		for (const char *q = a; *q; q++) {
			if (*q == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *q;
		}
		*p++ = '\'';
	}
	*p = 0;
	return s;
}

/* argv joined for the metadata; with --redact masked argument by argument
 * first (as an exec's argv), then as one string */
static char *meta_args(struct rec *r, int argc, char **argv)
{
	char **m = r->o.redact ? rec_redact_argv(&r->rd, argc, argv) : NULL;
	char *cl;

	if (r->o.redact && !m)
		return NULL;
	cl = join_args(argc, m ? m : argv);
	free(m);
	if (cl && r->o.redact)
		redact_mask(&r->rd, cl, strlen(cl));
	return cl;
}

static void meta_u64(tz_writer *w, const char *k, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	tz_writer_set_meta(w, k, b);
}

/* How far the host's CLOCK_REALTIME may be off, as the kernel's NTP state
 * says (adjtimex(2) read-only: struct timex maxerror, esterror in us; status
 * STA_UNSYNC): what comparing this trace's wall-clock times with another
 * host's is worth (docs/tracer-record.md; summary over many hosts). */
static void meta_clock_sync(tz_writer *w)
{
	struct timex tx;
	memset(&tx, 0, sizeof(tx)); /* modes 0: read only, no privilege */
	int st = adjtimex(&tx);
	if (st < 0)
		return;
	tz_writer_set_meta(w, "clock_sync",
			   st == TIME_ERROR || (tx.status & STA_UNSYNC) ? "unsynchronised"
									: "synchronised");
	meta_u64(w, "clock_maxerror_us", tx.maxerror > 0 ? (uint64_t)tx.maxerror : 0);
	meta_u64(w, "clock_esterror_us", tx.esterror > 0 ? (uint64_t)tx.esterror : 0);
}

/* The start metadata after the host's (docs/tracer-record.md "METADATA"):
 * the command lines, the options that shape the trace, the start times;
 * r->t0_boot and r->t0_real are set here. */
static void set_start_meta(struct rec *r, int argc, char **argv)
{
	tz_writer *w = r->w;
	char b[64];
	char *cl = meta_args(r, argc, argv);

	if (cl)
		tz_writer_set_meta(w, "recorder_cmdline", cl);
	free(cl);
	if (r->o.cmd) {
		int n = 0;
		while (r->o.cmd[n])
			n++;
		cl = meta_args(r, n, r->o.cmd);
		if (cl)
			tz_writer_set_meta(w, "command", cl);
		free(cl);
	}
	if (r->o.redact)
		tz_writer_set_meta(w, "redact", "default patterns (docs/RELIABILITY.md)");
	tz_writer_set_meta(w, "mode", rec_mode_names[r->o.mode]);
	/* COMMAND's parent: its process is no orphan when its fork is gone */
	meta_u64(w, "recorder_pid", (uint64_t)getpid());
	if (r->o.mode == MODE_PID)
		meta_u64(w, "target_pid", r->o.pid);
	meta_u64(w, "argv_max", r->o.argv_max);
	meta_u64(w, "ringbuf_size", r->o.ringbuf_size);
	meta_u64(w, "ring_size", r->o.ring_size);
	meta_u64(w, "compress_level", (uint64_t)r->o.level);
	tz_writer_set_meta(w, "exec_failures", r->syscall_src ? "on" : "off");
	if (r->syscall_src)
		tz_writer_set_meta(w, "syscall_source", r->syscall_src);
	/* an image's own peak RSS (exec prev_maxrss_kib) exists only with it */
	tz_writer_set_meta(w, "image_rss_source",
			   r->prep_attached ? "tp_btf/sched_prepare_exec" : "unavailable");
	tz_writer_set_meta(w, "clock", "CLOCK_BOOTTIME");
	meta_clock_sync(w);
	/* one clock pair read back to back: realtime = boottime + (this - that) */
	uint64_t bt = rec_boot_ns(), rt = rec_real_ns();
	/* the recording starts now that the programs are attached (the BPF load
	 * took ~1 s): the start metadata and the snapshot's time */
	r->t0_boot = bt;
	r->t0_real = rt;
	tz_writer_set_meta(w, "start_realtime", rec_fmt_time(rt, b, sizeof(b)));
	meta_u64(w, "start_realtime_ns", rt);
	meta_u64(w, "start_boottime_ns", bt);
}

int rec_open_writer(struct rec *r, int argc, char **argv)
{
	struct tz_writer_opts wo = {0};
	int rc;

	wo.flags = r->o.force ? TZ_W_OVERWRITE : 0;
	wo.level = r->o.level;
	wo.threads = 1;
	wo.ring_size = r->o.ring_size;
	if (r->o.ring_size) {
		uint64_t cb = r->o.ring_size / 16;
		wo.chunk_bytes = (uint32_t)(cb > (1u << 20) ? (1u << 20) : cb < 65536 ? 65536 : cb);
	}
	wo.state_fn = state_fn;
	wo.state_ctx = r;
	rc = tz_writer_open(&r->w, r->o.output, &wo);
	if (rc == TZ_ERR_EXISTS) {
		rec_err("'%s': file exists (use -f to overwrite)", r->o.output);
		return -1;
	}
	if (rc == TZ_ERR_NOSPC && !r->o.ring_size) {
		/* the header did not fit: no file is left (tz_writer_open) */
		r->open_nospc = 1;
		rec_err("'%s': disk full: nothing recorded%s (free space, or use --ring SIZE)",
			r->o.output,
			r->o.mode == MODE_FOLLOW ? ", the command runs unrecorded" : "");
		tz_writer_free(r->w);
		r->w = NULL;
		return -1;
	}
	if (rc < 0) {
		if (r->w && *tz_writer_errmsg(r->w))
			rec_err("%s", tz_writer_errmsg(r->w));
		else
			rec_err("'%s': %s", r->o.output, tz_strerror(rc));
		tz_writer_free(r->w);
		r->w = NULL;
		return -1;
	}
	rc = rec_meta_host(r->w);
	set_start_meta(r, argc, argv);
	if (rc == 0)
		rc = tracer_schema_register(r->w);
	if (rc < 0) {
		rec_err("%s", tz_writer_errmsg(r->w));
		return -1;
	}
	return 0;
}

/* 1 when path reads back as a finished .tz: a footer, no torn tail, no
 * damaged block (what `tracer-analyze verify` calls sealed) */
static int file_sealed(const char *path)
{
	tz_reader *rd = NULL;
	int ok = 0;

	if (tz_reader_open(&rd, path, NULL) == 0) {
		const struct tz_info *in = tz_reader_info(rd);
		ok = in->has_footer && !in->torn_tail_bytes && !in->corrupt_blocks;
	}
	tz_reader_free(rd);
	return ok;
}

/* The list taken at the stop (rec_run(): before the last drain, the programs
 * still attached, so a process that exits after it is listed and one that
 * exited before it has its exit drained), else now. */
static void note_alive(struct rec *r)
{
	char *s = r->alive_at_stop ? r->alive_at_stop : rec_alive_list(r);
	if (s)
		tz_writer_set_meta(r->w, "alive_at_stop", s);
	free(s);
	r->alive_at_stop = NULL;
}

static int emit_user_record(void *ctx, const void *rec, uint32_t size)
{
	struct rec *r = ctx;
	rec_write_user_record(r, rec, size);
	return r->werr;
}

/* The workflow managers' records found from the recorded working dirs
 * (record/attach.c), and how many */
static void write_attachments(struct rec *r)
{
	if (r->o.no_attach || r->werr)
		return;
	/* A file's mtime is the coarse clock (one tick behind the precise one
	 * t0_real was read with, at most): a record written right after the
	 * start can carry an mtime before t0_real, so "since" is one coarse
	 * tick earlier (it was missed now and then) */
	struct timespec res = {0};
	uint64_t tick = clock_getres(CLOCK_REALTIME_COARSE, &res)
			    ? 10000000
			    : (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	struct att_ctx c = {
	    .since_ns = r->t0_real > tick ? r->t0_real - tick : 0,
	    .max_total = r->o.attach_max ? r->o.attach_max : ATT_TOTAL_DEFAULT,
	    .ts_ns = rec_boot_ns(),
	    .emit = emit_user_record,
	    .ctx = r,
	};
	if (att_collect(&r->att, &c) == -1)
		rec_err("attachments: out of memory: some were not embedded");
	meta_u64(r->w, "attach_files", r->att.files);
	meta_u64(r->w, "attach_bytes", r->att.total);
	meta_u64(r->w, "attach_truncated", r->att.truncated);
	if (r->att.dirs_dropped)
		meta_u64(r->w, "attach_dirs_dropped", r->att.dirs_dropped);
}

int rec_close_writer(struct rec *r, int exit_status)
{
	/* each slot of EV_DROP_SLOTS_DEF (bpf/events.h): its key, and whether
	 * it counts in drops_total */
#define DROP_META(NAME, idx, name, lost_, incomplete, what) [idx] = {"drops_" #name, lost_},
	static const struct {
		const char *key;
		int lost;
	} slots[EV_DROP_SLOTS] = {EV_DROP_SLOTS_DEF(DROP_META)};
#undef DROP_META
	char b[64];
	uint64_t total = 0;
	int rc;

	write_attachments(r);
	rec_write_drops(r, 1);
	for (int i = 0; i < EV_DROP_SLOTS; i++) {
		if (slots[i].key)
			meta_u64(r->w, slots[i].key, r->drops[i]);
		if (slots[i].lost)
			total += r->drops[i];
	}
	meta_u64(r->w, "drops_total", total);
	meta_u64(r->w, "events_recorded", r->events);
	/* the open chunk sealed first, so what did not reach the file is
	 * only what a write error (disk full) lost */
	if (!r->werr)
		rec_note_write_error(r, tz_writer_flush(r->w, 1));
	struct tz_writer_stats ws;
	tz_writer_stats(r->w, &ws);
	meta_u64(r->w, "events_written", ws.events_written);
	meta_u64(r->w, "events_unwritten", ws.events - ws.events_written + r->unwritten);
	if (r->o.redact)
		meta_u64(r->w, "redacted_strings", r->rd.hits);
	note_alive(r);
	uint64_t bt = rec_boot_ns(), rt = rec_real_ns();
	meta_clock_sync(r->w);
	tz_writer_set_meta(r->w, "stop_realtime", rec_fmt_time(rt, b, sizeof(b)));
	meta_u64(r->w, "stop_realtime_ns", rt);
	meta_u64(r->w, "stop_boottime_ns", bt);
	if (r->o.mode == MODE_FOLLOW && r->child_reaped)
		meta_u64(r->w, "exit_status", (uint64_t)exit_status);
	if (r->werr == TZ_ERR_NOSPC)
		tz_writer_set_meta(r->w, "stop_reason", "disk full");
	else if (r->werr)
		tz_writer_set_meta(r->w, "stop_reason", "write error");
	else if (r->rb_err)
		tz_writer_set_meta(r->w, "stop_reason", "ring buffer error");
	else if (rec_stop_sig && !(r->o.mode == MODE_FOLLOW && r->child_reaped && r->pt.count == 0))
		/* not when COMMAND's processes had all exited in the grace */
		tz_writer_set_meta(r->w, "stop_reason", strsignal(rec_stop_sig));
	rc = tz_writer_close(r->w);
	r->w = NULL;
	/* the close after a full disk may or may not have found room for the
	 * index and footer: say "sealed" only when the file reads back so */
	if (r->werr == TZ_ERR_NOSPC)
		rec_err(file_sealed(r->o.output)
			    ? "'%s': disk full: recording stopped, the file is sealed with "
			      "everything written before (free space, or use --ring SIZE)"
			    : "'%s': disk full: recording stopped, the file is not sealed "
			      "(tracer-analyze recover restores what was written)",
			r->o.output);
	else if (rc < 0 && !r->werr)
		rec_err("'%s': %s", r->o.output, tz_strerror(rc));
	if (r->o.verbose) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		rec_err("%llu events, %llu dropped, written to '%s' (recorder cpu %.3f s, peak rss "
			"%ld KiB)",
			(unsigned long long)r->events, (unsigned long long)total, r->o.output,
			(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
			ru.ru_maxrss);
		uint64_t sp, sh, np, ins;
		sample_stats(r->sampler, &sp, &sh, &np, &ins);
		if (np)
			rec_err("%llu process and %llu host samples written; %llu iterator passes, "
				"%.3f ms each on average",
				(unsigned long long)sp, (unsigned long long)sh,
				(unsigned long long)np, (double)ins / (double)np / 1e6);
	}
	return rc;
}
