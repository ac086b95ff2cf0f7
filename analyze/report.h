/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report.h - analysis helpers shared by the reporting subcommands: loading a
 * trace into a model, machine facts from the metadata, per-group totals
 * (top, summary, diff), the critical path (critpath.c) and text formatting.
 */
#ifndef TRACER_REPORT_H
#define TRACER_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze.h"
#include "model.h"

/*
 * Open path and build its model over the whole trace. On failure prints one
 * line ("tracer-analyze: 'x.tz': ...") and returns -1 with nothing to free.
 * A long read shows the progress line of progress.h meanwhile (erased
 * before this returns).
 */
int tza_load(const char *path, tz_reader **r, struct tza_model **m);
/* The same with tza_model_build_ex flags (TZA_MB_SAMPLES). */
int tza_load_ex(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m);
/* The same for a reader already open (*r, taken: freed and NULL on
 * failure), named path in messages (a multi-host trace's member). */
int tza_load_reader(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m);
/*
 * tza_model_build_ex(r, from_ns, to_ns, flags, out) with the progress line
 * (progress.h) naming path, the file r reads: every command's read of a
 * trace into a model goes through it (tza_load_ex, plot, slice). Returns
 * and owns as tza_model_build_ex.
 */
int tza_model_read(const char *path, tz_reader *r, uint64_t from_ns, uint64_t to_ns,
		   uint32_t flags, struct tza_model **out);
/*
 * Refuse a trace without a footer (crashed or truncated: 'recover' it first)
 * and one with damaged blocks (after_read: once the events were read), with
 * one line; -1 then. TRACER_ANALYZE_PARTIAL=1 in the environment accepts
 * both: the model then counts the damage and flags itself incomplete.
 */
int tza_check_whole(tz_reader *r, const char *path, int after_read);

/* Was --partial (or TRACER_ANALYZE_PARTIAL=1) given? 1 yes, 0 no. */
int tza_partial(void);
void tza_unload(tz_reader *r, struct tza_model *m);

/* One line for a getopt '?' (opterr = 0): the offending word and where help is. */
/* Flush standard output: TZA_EXIT_OK, or TZA_EXIT_FAIL with "standard
 * output: write failed" when it (or an earlier write) failed. */
int tza_stdout_done(void);
void tza_bad_option(const char *cmd, int argc, char **argv);
/* After getopt: the one FILE operand argv[optind], or NULL when there is
 * not exactly one (the one-line usage error for cmd is then printed). */
const char *tza_one_file(const char *cmd, int argc, char **argv);

/* "exe", "tool" or "command" into *by; -1 + message (naming opt) otherwise. */
int tza_parse_by(const char *opt, const char *s, enum tza_by *by);
/* The column header of a grouping: "EXE", "TOOL", ..., "CONTAINER". */
const char *tza_by_header(enum tza_by by);

/* Machine facts from the metadata (0 when absent). */
struct tza_machine {
	unsigned ncpus;	  /* online CPUs (0: unknown, absent or out of range) */
	uint64_t mem_kib; /* MemTotal, KiB (0: unknown) */
};
#define TZA_MAX_CPUS 65536 /* a CPU count above this (or a sign, junk) is unknown */
/* A "cpus" metadata value: 1..TZA_MAX_CPUS, else 0 (unknown). */
unsigned tza_parse_cpus(const char *v);
void tza_machine_get(tz_reader *r, struct tza_machine *mi);
/*
 * CLOCK_BOOTTIME ns of the trace to CLOCK_REALTIME ns: with the metadata
 * "realtime_offset_ns" (written by slice, whose own clock anchors are those of
 * the machine that cut it) realtime = boot + offset, else the file's clock
 * anchors (tz_reader_realtime). Returns 0 or a negative tz_err.
 */
int tza_realtime(tz_reader *r, uint64_t boot_ns, int64_t *rt);

/*
 * CLOCK_REALTIME ns as UTC ISO-8601 with nanoseconds into buf (at least 32
 * bytes): "2026-12-01T06:07:48.817786827Z"; "" when out of range. Returns buf.
 */
char *tza_fmt_utc(int64_t rt_ns, char *buf, size_t n);

/* First metadata value present among NULL-terminated keys, or NULL. */
const char *tza_meta_any(tz_reader *r, const char *const *keys);

/*
 * What the trace recorded, for titles and headers (plot titles, summary's
 * "traced" line): the recorded command (metadata "command"); in a
 * whole-machine recording (metadata mode "system") "whole machine
 * (tracer-record -a)"; with -p (mode "pid") "pid N (tracer-record -p)";
 * else (no mode: an older or synthetic file) the command of the first root
 * that is neither pre-existing nor a kernel thread, and NULL when there is
 * none. Never a kernel thread's [comm]. Returns a metadata string, buf
 * (n bytes), or a string owned by tool.c.
 */
const char *tza_trace_what(tz_reader *r, struct tza_model *m, char *buf, size_t n);

/* Effective end of a process: its exit, or the trace's end while running. */
uint64_t tza_proc_end(const struct tza_model *m, const struct tza_proc *p);
/* Effective start of a process's span in the views that count its wall (top
 * WALL, tree's duration, a task's start): its start, or the slice window's
 * start for one that began before the window (tza_proc_charged_from), or the
 * recording's start (m->t0_ns) for a pre-existing one that began before it.
 * CLOCK_BOOTTIME ns. */
uint64_t tza_proc_span_start(const struct tza_model *m, const struct tza_proc *p);
/* utime + stime, ns */
static inline uint64_t tza_proc_cpu(const struct tza_proc *p)
{
	return p->utime_ns + p->stime_ns;
}
/* Add the I/O exit totals of p (rchar, wchar, syscr, syscw, read_bytes,
 * write_bytes: /proc/PID/io, model.h), a process or an aggregate, to agg, an
 * aggregate with the same members (struct tza_group below, struct tza_task
 * in task.h). */
#define TZA_IO_ADD(agg, p)                                                                         \
	do {                                                                                       \
		(agg)->rchar += (p)->rchar;                                                        \
		(agg)->wchar += (p)->wchar;                                                        \
		(agg)->syscr += (p)->syscr;                                                        \
		(agg)->syscw += (p)->syscw;                                                        \
		(agg)->read_bytes += (p)->read_bytes;                                              \
		(agg)->write_bytes += (p)->write_bytes;                                            \
	} while (0)
/*
 * Cumulative CPU ns (utime + stime) of p at time t (CLOCK_BOOTTIME ns):
 * linear between (start, 0), its kept samples (TZA_MB_SAMPLES) and (end,
 * exit total); a process without an exit (running, or its exit lost) stays
 * at its last kept sample, so one without samples has none. Without samples
 * an exited process's total is thus spread evenly over its life.
 */
double tza_proc_cpu_at(const struct tza_proc *p, uint64_t t);
/* CPU ns of p over [a, b]: tza_proc_cpu_at(b) - tza_proc_cpu_at(a); 0 when b <= a. */
double tza_proc_cpu_in(const struct tza_proc *p, uint64_t a, uint64_t b);
/* The host's busy fraction of all its CPUs over [a, b] (CLOCK_BOOTTIME ns)
 * from the host samples (EV_HOST_SAMPLE: /proc/stat time not idle nor
 * iowait), interpolated between them; -1 when they do not cover it (fewer
 * than two kept, or none inside or around the window). */
double tza_host_busy(const struct tza_model *m, uint64_t a, uint64_t b);
/*
 * The recorded processes' peak memory together: the largest sum over time of
 * their resident memory (RSS anon + file + shmem, KiB) from the kept samples
 * (TZA_MB_SAMPLES), each process's last sampled value held until its next
 * sample (samples are written on change) and taken away at its exit; into
 * *kib and *t_ns (when, CLOCK_BOOTTIME ns). 0 and *kib = 0 without samples,
 * -1 when out of memory. Shared pages count once per process that maps them.
 */
int tza_procs_peak_rss(const struct tza_model *m, uint64_t *kib, uint64_t *t_ns);
/* The same over procs[0..n) only. */
int tza_procs_peak_rss_of(struct tza_proc *const *procs, uint32_t n, uint64_t *kib,
			  uint64_t *t_ns);
/* The same over procs[0..n) with each process's samples before its first exec
 * left out (they are its copy of its parent's image, model.h
 * tza_proc_own_rss_kib; a process that never exec'd, or whose first image is
 * a snapshot's, keeps them all): a task's members' combined peak (task.c). */
int tza_procs_own_peak_rss_of(struct tza_proc *const *procs, uint32_t n, uint64_t *kib,
			      uint64_t *t_ns);
/* Exited with a non-zero code or killed by a signal. */
int tza_proc_failed(const struct tza_proc *p);

/* ------------------------------------------------------- critical path */

/* Attribution of one tool (group key) on the critical path. */
struct tza_crit_tool {
	const char *tool; /* group key, owned by the model */
	uint64_t ns;
};

/*
 * The critical path (critpath.c, definition in docs/tracer-analyze.md):
 * starting at the root's end, the time is walked backwards; inside a process
 * P over (lo, t], the child of P with the latest end e in (lo, t] released P
 * at e: (e, t] is P's own, and the walk continues inside that child over
 * (max(child start, lo), e], then in P again below the child's start. With no
 * such child, (lo, t] is P's. Every ns of [root start, root end] goes to
 * exactly one process, so the attribution sums to the makespan exactly.
 */
struct tza_crit {
	struct tza_proc *root;	      /* the recorded command's root, or NULL */
	uint64_t start_ns, end_ns;    /* CLOCK_BOOTTIME span of the root */
	uint64_t makespan_ns;	      /* end_ns - start_ns */
	uint64_t *proc_ns;	      /* [model->nprocs]: ns attributed per process index */
	struct tza_proc **path;	      /* processes on the path, by start time */
	uint32_t npath;
	struct tza_crit_tool *by_tool; /* by seconds, largest first (ties: by name) */
	uint32_t ntools;
};
/* Compute for m, grouping by `by`. Returns 0 or -1 (out of memory). */
int tza_critpath(struct tza_model *m, enum tza_by by, struct tza_crit *c);
void tza_crit_free(struct tza_crit *c);
/*
 * critical-path over a run on several hosts (critpath_hosts.c; args as
 * fleet.h's tza_fleet_expand takes them): each host's own path chained
 * across hosts by time adjacency, printed to o (text or JSON). Returns the
 * exit code (TZA_EXIT_OK, or TZA_EXIT_FAIL after one line).
 */
int tza_critpath_hosts(FILE *o, char **args, int n, enum tza_by by, int json);

/* ------------------------------------------------------------- groups */

/* Group flags (top's "flags") */
#define TZA_G_SERIAL 0x01 /* serial_bottleneck */
#define TZA_G_IO 0x02	  /* io_bound */
#define TZA_G_MEM 0x04	  /* memory_heavy */
#define TZA_G_SPAWN 0x08  /* spawn_overhead */
#define TZA_G_FAILED 0x10 /* failed */

/* Totals of the processes of one group (tool, exe or command). */
struct tza_group {
	const char *key;	  /* owned by the model */
	uint64_t count;		  /* processes */
	uint64_t wall_ns;	  /* sum of process durations */
	uint64_t cores_wall_ns;	  /* the wall its cores are over (tza_group_cores):
				     wall_ns; task groupings: each task's wall
				     once (root start to last member end) plus
				     the durations of its processes outside
				     every task */
	uint64_t first_ns, last_ns; /* span: first start, last end */
	uint64_t cpu_ns;	  /* self utime + stime */
	double max_cores;	  /* highest cpu/wall of one process */
	uint64_t peak_rss_kib;	  /* highest peak RSS of one process */
	uint64_t rss_known;	  /* processes whose peak RSS is known (not
				     TZA_P_RSS_UNKNOWN): 0 with count > 0 means
				     peak_rss_kib is unknown, not 0 */
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
	uint64_t critical_ns;	  /* time on the critical path */
	uint64_t failed;	  /* processes with a non-zero exit or a signal;
				     task groupings: tasks that failed
				     (tza_task_failed: the root, i.e. the job) */
	uint64_t member_failures; /* task groupings: members that exited
				     non-zero, were signalled or OOM-killed
				     (a `readlink` exiting 1 in a wrapper);
				     not a failed task by itself */
	uint64_t execs_failed;	  /* failed exec attempts */
	double machine_cores;	  /* machine's mean cores in use while the
				     group's critical processes ran (host
				     samples when the model kept them,
				     TZA_MB_SAMPLES; else the traced
				     processes' CPU), weighted by critical ns */
	uint32_t flags;		  /* TZA_G_* */
	/* task groupings (TZA_BY_TASK and after; task.h): the tasks whose root
	 * is in the group, their summed wall (root start to last member end)
	 * and the largest combined peak RSS of one of them (KiB) */
	uint64_t tasks, task_wall_ns, task_peak_rss_kib;
	uint64_t task_rss_known;  /* tasks whose combined peak is known
				     (tza_task_rss_known); task_peak_rss_kib is
				     the largest of theirs, unknown when 0 */
};

/*
 * Group m's processes by `by`, with critical-path shares from c (may be
 * NULL) and flags decided against mi (see docs "top"). *out is malloc'd,
 * sorted by self CPU, largest first. Returns 0 or -1 (out of memory).
 */
int tza_groups(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
	       const struct tza_machine *mi, struct tza_group **out, uint32_t *n);
/* The same with m's CPU profile when the caller has one (borrowed: the
 * critical processes' windows are wanted in it and answered, with any the
 * caller wanted before, by one sweep; NULL: made here if a group needs it). */
struct tza_profile;
int tza_groups_ex(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
		  const struct tza_machine *mi, struct tza_profile *prof,
		  struct tza_group **out, uint32_t *n);
/* The same leaving out the processes i with skip[i] non-zero (skip:
 * m->nprocs bytes by m->procs order, or NULL): a run on several hosts
 * counts a process two overlapping traces of one host hold once. */
int tza_groups_skip(struct tza_model *m, enum tza_by by, const struct tza_crit *c,
		    const struct tza_machine *mi, struct tza_profile *prof, const uint8_t *skip,
		    struct tza_group **out, uint32_t *n);
/* Text tables: the width in characters of the key column for keys[0..n)
 * (at least 28, at most TZA_KEY_MAX), and one key printed in it, in its
 * safe form (textsafe.h: control bytes and invalid UTF-8 escaped; widths
 * are those of the escaped text): a key longer than TZA_KEY_MAX keeps its
 * end, "..." in front: /very/long/.../bin/tool. */
#define TZA_KEY_MAX 60
int tza_key_width(const char *const *keys, size_t stride, uint32_t n);
void tza_put_key(FILE *f, const char *key, int width);
/* Flag names, in TZA_G_* bit order, for JSON and text. */
extern const char *const tza_flag_names[5];
/* mean cores used by the group: cpu_ns / cores_wall_ns (0 when that is 0).
 * Task groupings: its tasks' CPU over their walls, as export --tasks %cpu
 * of one task, not diluted by a job's waiting wrapper shells. */
double tza_group_cores(const struct tza_group *g);
/* g's PEAK RSS as top shows it (the one definition top's column, its
 * --sort rss and diff's PEAK RSS A/B use), KiB: a group of tasks (a task
 * grouping, tasks > 0) the largest combined peak of one of its tasks
 * (task_peak_rss_kib), else the highest peak of one process (peak_rss_kib).
 * Returns 1 with *kib, or 0 with *kib 0 when unknown (no task's, or no
 * process's, peak is known: views show "-", JSON null). A group of no
 * process (a run without it, diff) is known, 0. */
int tza_group_peak(const struct tza_group *g, uint64_t *kib);

/*
 * CPU ns used over a window [a, b] (CLOCK_BOOTTIME ns) by all the traced
 * processes, each one's utime + stime spread evenly over its life [start,
 * tza_proc_end) (a pre-existing one's over the whole of it). The windows
 * are wanted first and answered together by one sweep over the processes'
 * starts and ends in time order, which holds only the ends of the processes
 * alive at the time (24 bytes each); a model not sorted by start (m->procs
 * is) is swept from the whole list sorted, 32 bytes a process meanwhile.
 *
 *	pr = tza_profile_new(m);		m is borrowed, read at each sweep
 *	tza_profile_want(pr, a, b);		every window to be asked
 *	tza_profile_cpu_ns(pr, a, b, &ns);	the first one sweeps
 *	tza_profile_free(pr);			NULL is fine
 *
 * tza_profile_sweep_start(pr) answers what was wanted so far on a second
 * thread (when this process may use two CPUs, else here and now): the
 * caller goes on with other work, without changing m, and the next call on
 * pr waits for the answers. 0, or -1 when out of memory (no thread: the
 * sweep then runs here).
 *
 * tza_profile_new does no work; NULL when out of memory.
 * tza_profile_want: 0, or -1 when out of memory (b <= a: nothing to want).
 * tza_profile_cpu_ns: *ns = CPU ns over [a, b] (0 when b <= a); a window not
 * wanted before the last sweep is answered by a sweep of its own. 0, or -1
 * when out of memory (*ns = 0 then).
 */
struct tza_profile;
struct tza_profile *tza_profile_new(const struct tza_model *m);
int tza_profile_want(struct tza_profile *pr, uint64_t a, uint64_t b);
int tza_profile_sweep_start(struct tza_profile *pr);
int tza_profile_cpu_ns(struct tza_profile *pr, uint64_t a, uint64_t b, double *ns);
void tza_profile_free(struct tza_profile *pr);

/* ---------------------------------------------------------- losses */

/*
 * A file that ends inside a block (tz_info torn_tail_bytes: a copy cut
 * short, a crash in mid-write, or a block still being written), into buf:
 * "the file ends inside chunk 19 at offset 146132 (3,868 of its 6,908
 * bytes; its 320 events lost): cut or still being written" (256 bytes are
 * enough). NULL when the file does not end inside a block.
 */
const char *tza_cut_text(char *buf, size_t size, const struct tz_info *in);
/*
 * The bytes after a linear file's last whole block (tz_info tail_bytes:
 * FORMAT.md 11, the scan of an unfinished file), into buf: "20 bytes at
 * offset 6713 after the footer (appended to the closed trace; truncated to
 * 6713 bytes it is whole again)", "4,096 bytes at offset 6713 that are no
 * block (zeros, as a power loss leaves, or damaged bytes)", or for a file
 * that ends inside a block "20 bytes at offset 6713: the block the file
 * ends inside" (256 bytes are enough). NULL when there are none.
 */
const char *tza_tail_text(char *buf, size_t size, const struct tz_info *in);
/*
 * What a file written by `recover` says its input lost (metadata
 * recovered_*, tz_recover), no newline: "recover left out 1 damaged block of
 * its input, which ended inside chunk 19 at offset 146132 (its 320 events
 * lost)", "... of its input, unfinished: what its recorder had not
 * sealed was not in it", or with no block left out "recovered from an
 * unfinished file: what its recorder had not sealed was not in it". For a
 * model with recovered_lossy only.
 */
void tza_print_recovered_loss(FILE *f, tz_reader *r);
/* "s" unless n is 1: "1 block", "2 blocks" */
static inline const char *tza_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* ---------------------------------------------------------- formatting */

/* "1h02m03s", "3m05s", "12.345s", "45.2ms", "120us" into buf. */
const char *tza_fmt_dur(char *buf, size_t size, uint64_t ns);
/* The same for a signed duration ("-3us"); size at least 2. */
const char *tza_fmt_sdur(char *buf, size_t size, int64_t ns);
/* "1.2 GiB", "512 B" */
const char *tza_fmt_bytes(char *buf, size_t size, uint64_t bytes);
/* "12,345" */
const char *tza_fmt_count(char *buf, size_t size, uint64_t n);
/* Seconds since trace start, 3 decimals: "12.345" */
double tza_secs(uint64_t ns);

/*
 * One argument for text output, quoted unambiguously: plain when made of
 * safe characters, '...' when printable UTF-8 without "'", else $'...' with
 * \n \t \\ \' \xHH escapes (bash ANSI-C quoting). Returns bytes written.
 */
size_t tza_text_arg(FILE *f, const uint8_t *s, size_t len);
/* argv (NUL after each) as quoted words separated by spaces, cut with "..."
 * after about max bytes (0 = no limit). */
void tza_text_argv(FILE *f, const uint8_t *argv, uint32_t len, size_t max);
/* The same without a limit, appended to a line (json.h): the same bytes. */
struct tza_line;
void tza_line_text_argv(struct tza_line *l, const uint8_t *argv, uint32_t len);

#endif /* TRACER_REPORT_H */
