/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recorder.h - tracer-record's own state and its rooms, one job each
 * (docs/tracer-record.md is the contract of everything they do):
 *
 *   options.c   the command line: struct opts, --help, messages (rec_err)
 *   bpfsetup.c  BPF open, configure, load, attach; the tracked-process map
 *   intake.c    each ring-buffer record on its way to the writer; drops
 *   snapshot.c  the processes alive at the start (-a, -p)
 *   metadata.c  the writer's opening and closing: metadata, attachments
 *   drain.c     the drain loop and what it knows of the live processes
 *   main.c      the lifecycle: set up, launch COMMAND, run, end as it ended
 *
 * The order of calls (main.c): rec_parse_args, rec_bpf_setup,
 * rec_open_writer, sample_start, then COMMAND's launch (follow mode) or
 * rec_snapshot (-a, -p), rec_run, rec_close_writer, rec_bpf_teardown.
 * Everything runs on the main thread (but a build of the BTF cache,
 * btfcache.h, and the writer's compression). No libbpf header here: the BPF
 * objects are opaque pointers.
 */
#ifndef TRACER_RECORDER_H
#define TRACER_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/events.h"
#include "common/redact.h"
#include "record.h"
#include "status.h"
#include "tz.h"

#define PROG "tracer-record"
/* ptable flag: born after attach (not in the start-up snapshot) */
#define PT_SEEN_FORK 0x80000000u
/* bytes of one EV_CGROUP record being built (struct + the longest path) */
#define CGBUF_SIZE (sizeof(struct ev_cgroup) + EV_PATH_MAX)

/* What is recorded: COMMAND's tree (follow), every process (-a), the
 * subtree of a running process (-p). */
enum mode { MODE_FOLLOW, MODE_ALL, MODE_PID };
/* The metadata key "mode"'s values, by enum mode. */
extern const char *const rec_mode_names[];

/*
 * How a recording failed (main.c); rec_failures[] is the one table of what
 * each kind means: its exit code (docs/tracer-record.md "EXIT STATUS",
 * unless the recorder ends as COMMAND ended), whether the output file is
 * kept, and a phrase saying so.
 */
enum rec_failure {
	REC_OK = 0,
	REC_FAIL_SETUP, /* before recording began: no file is left */
	REC_FAIL_RUN,	/* recording stopped early: the file is sealed with what it got */
};
struct rec_failure_kind {
	int exit_code;	  /* 0 for REC_OK: the exit status is COMMAND's or the signal's */
	int keep_file;	  /* seal the output (1) or remove it (0) */
	const char *what; /* e.g. "set-up failed: nothing recorded, no file left" */
};
/* main.c's rec_failures[] holds one per enum rec_failure. */

/* The command line, as parsed (options.c). Strings point into argv. */
struct opts {
	const char *output; /* -o: the .tz path ("trace.tz") */
	int force;	    /* -f: overwrite */
	enum mode mode;
	uint32_t pid;		/* -p PID, else 0 */
	double duration;	/* s; 0 = none */
	uint64_t ring_size;	/* --ring: bytes, 0 = not a ring */
	uint64_t ringbuf_size;	/* --ringbuf-size: bytes, a power of 2 */
	uint32_t argv_max;	/* --argv-max: bytes of argv per exec */
	uint32_t max_procs;	/* tracked-map entries; 0 = pid_max */
	double sample_interval; /* s; 0 = no samples (sample.h) */
	double stop_grace; /* s: after a stop signal, how long COMMAND's tree may take to exit */
	int level;	   /* --compress-level, 1..19 */
	int verbose;	   /* -v count */
	int redact;	   /* --redact: mask secrets in every string before writing */
	int exec_failures; /* --exec-failures: attach the execve syscall exit */
	enum rec_progress progress; /* --progress / --no-progress (status.h) */
	struct env_names env;	    /* --env: names kept from each exec's environment (owned) */
	uint32_t env_max;	    /* --env-max: bytes of the environment read per exec */
	int no_attach;		    /* --no-attach */
	uint64_t attach_max;	    /* --attach-max: bytes embedded at most (0: default) */
	char **cmd;		    /* COMMAND and its arguments, NULL-terminated; NULL: none */
};

struct tracer_bpf;
struct ring_buffer;
struct sampler;
struct bpf_link;
struct btfc;

/* The recorder: everything one recording owns. Zero-initialised, then
 * filled by the rooms above; released by main.c's rec_free(). */
struct rec {
	struct opts o;
	char *alive_at_stop; /* metadata alive_at_stop, taken while still attached */
	struct tracer_bpf *skel;
	struct ring_buffer *rb;
	struct sampler *sampler; /* sample.h: owned, freed by rec_bpf_teardown */
	struct btfc *btfc;	 /* btfcache.h: owned, freed by rec_bpf_teardown */
	tz_writer *w;
	struct ptable pt;
	int ncpus;
	pid_t child;
	int child_status;
	bool child_reaped;
	int werr;	/* first writer error */
	int rb_err;	/* the ring buffer or poll() failed: recording stopped */
	int open_nospc; /* the output's filesystem was full at start */
	uint64_t events;
	uint64_t unwritten; /* events drained after a write error stopped recording */
	uint64_t drops[EV_DROP_SLOTS];
	uint64_t t0_boot;
	const char *syscall_src; /* failed execs from: "tracepoint", "raw_tp"; NULL: not recorded */
	bool prep_attached;	 /* tp_btf/sched_prepare_exec attached (handle_prepare_exec:
				    the exec's prev_maxrss_kib, an image's own peak RSS);
				    metadata image_rss_source */
	struct bpf_link *links[16];
	struct redact rd; /* --redact */
	uint8_t *rbuf;	  /* --redact: the record being masked */
	size_t rbuf_cap;
	int nlinks;
	struct rec_status status; /* the live status line (status.c) */
	uint64_t procs_seen;	  /* tracked at the start + forks recorded */
	struct cgtable cg;	  /* the trace's cgroup table (EV_CGROUP) */
	struct attset att;	  /* working directories, for the attachments */
	uint64_t t0_real;	  /* CLOCK_REALTIME ns of the start (metadata) */
	uint8_t *ebuf;		  /* --env: the exec record being filtered */
	size_t ebuf_cap;
	uint8_t *cgbuf; /* one EV_CGROUP record being written (CGBUF_SIZE) */
};

/* ------------------------------------------------------------ options.c */

/* One line on stderr: "tracer-record: " fmt "\n" (STYLE.md "one voice"). */
void rec_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse the command line into o (defaults first). -h and -V print and
 * exit(0). Returns 0, or -1 after one line naming the bad option (the
 * caller exits REC_EXIT_USAGE). o->env is owned by o afterwards, either way.
 */
int rec_parse_args(int argc, char **argv, struct opts *o);

/*
 * TRACER_RECORD_TIMING=1 (docs/tracer-record.md ENVIRONMENT): one line on
 * stderr per start-up and stop phase, "timing: PHASE" with the wall time
 * since main() began (CLOCK_MONOTONIC, ms), the wall time and the process
 * CPU time (CLOCK_PROCESS_CPUTIME_ID: user + kernel, which includes the BPF
 * verifier's work in bpf(BPF_PROG_LOAD)) since the previous phase. Nothing
 * when unset. rec_timing_on() says whether it is set.
 */
void rec_timing(const char *phase);
int rec_timing_on(void);

/* ------------------------------------------------------------ bpfsetup.c */

/*
 * Check BTF and capabilities, make the sampler (r->sampler), open the BPF
 * object (the recorder's and the sampler's programs: one object, one parse
 * of the kernel's BTF), size and configure it from r->o and the host (CPUs,
 * pid_max, the cgroup layout in r->cg), load, attach the recorder's
 * programs (later events first; sample_start() attaches the sampler's) and
 * map the ring buffer with rec_on_event as its callback. When the load
 * fails, it is tried once more without the sampler's programs (a warning:
 * no samples, OOM kills or signals). The CO-RE relocations are resolved
 * against the cached BTF when it is usable (btfcache.h), else against the
 * kernel's; a load that fails with the cache is tried again without it.
 * Returns 0, or -1 after one line; what was made is left in r for
 * rec_bpf_teardown().
 */
int rec_bpf_setup(struct rec *r);
/* Once COMMAND runs (or the snapshot is taken): when the BTF cache was not
 * used, build it in a thread for the next recordings (btfcache.h). */
void rec_btf_cache_build(struct rec *r);
/* Detach every program, free the ring and the object (and the sampler);
 * wait for a build of the BTF cache. Safe on a partial or repeated
 * set-up. */
void rec_bpf_teardown(struct rec *r);

/* Track tgid in the BPF map with threads (at least 1) live threads and the
 * TRACKED_* flags. Returns 0, or a negative errno of the map update. */
int rec_track(struct rec *r, uint32_t tgid, uint32_t threads, uint32_t flags);
/* Track tgid, keeping what the BPF side already counts for it; threads is
 * at least the snapshot's live thread count. Failures are ignored (the
 * process then goes unrecorded, as a full map would leave it). */
void rec_track_merge(struct rec *r, uint32_t tgid, uint32_t threads);
/* Stop tracking tgid: delete its entry, or zero its array slot. */
void rec_untrack(struct rec *r, uint32_t tgid);

/* ------------------------------------------------------------ intake.c */

/*
 * ring_buffer__new()'s callback (ctx: the struct rec): one raw record of
 * size bytes (read-only ring memory) through --env, --redact and the exit
 * CPU clamp to the writer, then into the process table and the cgroup
 * table. A malformed record is skipped (a line with -v); a write error is
 * kept in r->werr and later records are counted in r->unwritten. Returns 0
 * (never stops the ring's consume).
 */
int rec_on_event(void *ctx, void *data, size_t size);
/* Keep the first writer error rc (a negative tz_err; rc >= 0 is ignored)
 * in r->werr and print it, except disk full, which rec_close_writer()
 * reports once it knows whether the file is sealed. */
void rec_note_write_error(struct rec *r, int rc);
/*
 * Write a record made in user space (EV_CGROUP, EV_ATTACH), through
 * --redact like the ring's. Returns the record as written (a redacted copy
 * valid until the next redaction), or NULL when not written (r->werr set,
 * or already set before).
 */
const void *rec_write_user_record(struct rec *r, const void *rec, uint32_t size);
/* Read the per-CPU drop counters (bpf/tracer.h maps.drops) and write
 * EV_DROPS when they moved since the last call (or always when force);
 * the lost ones are noted on the writer (tz_writer_note_dropped). */
void rec_write_drops(struct rec *r, int force);

/* ------------------------------------------------------------ snapshot.c */

/*
 * The start-up snapshot (-a, -p): read the live tasks with the snap_tasks
 * iterator, and write EV_PROC_STATE (EV_STATE_PRE_EXISTING, timestamp
 * r->t0_boot) for every selected process not already seen being born in
 * the events drained so far. -p tracks the subtree of r->o.pid too, in up
 * to three passes. Returns 0, or -1 after one line (iterator failure, out
 * of memory, -p's process gone).
 */
int rec_snapshot(struct rec *r);

/* ------------------------------------------------------------ metadata.c */

/*
 * Open r->o.output (mode, level, ring from r->o; the state blocks from the
 * process and cgroup tables), set the start metadata (docs/tracer-record.md
 * "METADATA"; argc/argv: the recorder's own command line) and register the
 * schema; r->t0_boot and r->t0_real become the recording's start. Returns 0,
 * or -1 after one line: r->w is then NULL when the open failed (disk full
 * at the open also sets r->open_nospc), else left for the caller to free.
 */
int rec_open_writer(struct rec *r, int argc, char **argv);
/*
 * Embed the attachments, write the last EV_DROPS, set the stop metadata
 * (counts, alive_at_stop, stop times, exit_status: COMMAND's exit code or
 * 128 + signal, stop_reason), close the writer (r->w becomes NULL) and say
 * so when the disk was full; -v adds the recorder's own costs. Returns 0 or
 * the negative tz_err of the close.
 */
int rec_close_writer(struct rec *r, int exit_status);

/* ------------------------------------------------------------ drain.c */

/*
 * The drain loop: wait on the ring, the self-pipe and the timers; write the
 * records, the drops every second, the samples; stop on --duration, a stop
 * signal (after the grace in follow mode), a write error, or when the
 * recorded processes have all exited. Then take alive_at_stop, wait for the
 * kernel's last releases and drain once more. Returns 0, or -1 when the
 * ring buffer or poll() failed (r->rb_err, a line printed).
 */
int rec_run(struct rec *r);
/* COMMAND and every process it started have exited (follow mode). */
int rec_tree_done(struct rec *r);
/* Forget the processes of the table that are gone although no exit event
 * said so (drops): kill(pid, 0) fails with ESRCH. */
void rec_sweep_dead(struct rec *r);
/*
 * Metadata alive_at_stop: the tgids of the tracked processes still alive
 * now, space-separated ("" when none), malloc'd; NULL when out of memory.
 */
char *rec_alive_list(struct rec *r);
/* One line naming what a stop left running (follow mode): the tracked
 * processes still alive, COMMAND first, at most 8 named. why opens it. */
void rec_say_left_running(struct rec *r, const char *why);

#endif /* TRACER_RECORDER_H */
