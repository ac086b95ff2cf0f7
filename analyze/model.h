/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model.h - the process model every analysis is built on: processes (thread
 * groups) rebuilt from a trace's events, with their exec chains, failed
 * execs, exit totals and fork-time tree.
 *
 * Identity: pid + start time (task start_boottime), since pids are reused.
 * Events are consumed in timestamp order with a stable tie-break (the reader
 * guarantees it), never by arrival. Threads are folded into their process by
 * the recorder. Incomplete data is flagged (TZA_P_*), never guessed silently.
 *
 * Memory grows with the number of processes, not with events.
 */
#ifndef TRACER_MODEL_H
#define TRACER_MODEL_H

#include <stdint.h>

#include "bpf/events.h"
#include "tz.h"

/* The fields of EV_EXEC_BYNAME (bpf/events.h): their number, a member of
 * struct tza_exec each, a bit of tza_exec.byname_known each (TZA_XB_name) */
#define TZA_XB_ONE(ty, name, unit, src) +1
#define TZA_EXEC_NBYNAME (0 EV_EXEC_BYNAME(TZA_XB_ONE))
#define TZA_XB_MEMBER(ty, name, unit, src) uint64_t name;
#define TZA_XB_BIT(ty, name, unit, src) TZA_XB_##name,
enum { EV_EXEC_BYNAME(TZA_XB_BIT) TZA_XB_COUNT };
_Static_assert(TZA_XB_COUNT <= 32, "byname_known holds 32 fields");

/*
 * What an image shares with the other images of an exec storm: its paths,
 * environment, credentials, cgroups and comm. Owned by the model,
 * read-only, and shared: every image of the model with equal values may
 * point to one copy (interned by the builder), so never compare these by
 * address to tell images apart. Strings as in struct tza_exec's comments.
 */
struct tza_exec_ctx {
	char *exe;	  /* resolved absolute path of the image ("memfd:NAME" for memfd) */
	char *filename;	  /* as passed to execve by user space; NULL for an image
			     from a state block (TZA_EXEC_FROM_STATE) */
	char *script;	  /* #! script path, or NULL */
	/* Working directory at exec, absolute (task->fs->pwd, resolved like
	 * exe); NULL: not recorded (older files, images from state blocks).
	 * EV_EXEC_CWD_TRUNCATED in the image's flags when cut. */
	char *cwd;
	/* The --env variables present in the new image's environment:
	 * "NAME=VALUE\0NAME=VALUE\0", env_len bytes; NULL when none (or the
	 * trace was recorded without --env) */
	char *env;
	uint32_t env_len;
	uint32_t uid, euid, gid, egid; /* credentials after exec */
	uint64_t cgroup_id; /* cgroup v2 id */
	/* On a host with the memory controller on cgroup v1 (hybrid): the
	 * kernfs node id of the task's v1 memory cgroup (ev_exec memcg_id); 0
	 * when memory is on v2 or not recorded. Its path: tza_model_cgroup(m,
	 * TZA_CG_V1_MEMORY, memcg_id). */
	uint64_t memcg_id;
	char comm[16];	  /* comm right after exec, NUL-terminated */
};

/* One successful exec: a new image of a process. Strings owned by the model,
 * read-only: equal strings may share one copy (interned). What it shares
 * with other images (paths, credentials, cgroups, comm) is in *ctx, never
 * NULL for an image of a built model: 48 bytes an image instead of 136
 * when each held its own (docs/PERFORMANCE.md, issue 22 item 2). */
struct tza_exec {
	uint64_t ts_ns;	  /* CLOCK_BOOTTIME ns */
	uint8_t *argv;	  /* exact argv bytes, NUL after each argument */
	const struct tza_exec_ctx *ctx; /* exe, filename, cwd, uid, comm, ... */
	uint32_t argv_len; /* bytes in argv */
	uint32_t argc;	  /* original argc (kernel's bprm->argc) */
	uint32_t argv_size; /* original argv bytes (may exceed argv_len) */
	uint32_t flags;	  /* EV_EXEC_* (bpf/events.h): truncated, deleted, memfd, script */
	/* CPU ns the process used before this exec, user + system (ev_exec
	 * utime_ns + stime_ns, summed as uint64_t: only the sum is asked),
	 * valid with TZA_EXEC_CPU: see tza_exec_cpu_ns */
	uint64_t cpu_before_ns;
	/* The appended exec fields read with no code of their own
	 * (EV_EXEC_BYNAME, bpf/events.h): one member per field, named as the
	 * field, its value as recorded (signed fields sign-extended). Bit
	 * TZA_XB_<name> of byname_known is set when this image's exec record
	 * had the field: never for a file without it, nor for an image from
	 * a state block (export prints null then). */
	EV_EXEC_BYNAME(TZA_XB_MEMBER)
#if TZA_EXEC_NBYNAME
	uint32_t byname_known;
#endif
};

/* One failed exec attempt (never an image). */
struct tza_failed_exec {
	uint64_t ts_ns; /* CLOCK_BOOTTIME ns of the failing return */
	char *filename; /* as passed by user space; owned by the model */
	int err;	/* positive errno */
	uint32_t tid;	/* the thread that called it (ev_exec_fail pid); the
			   process's pid for a single-threaded caller */
};

/* Images and failed execs kept per process: the first and the last */
#define TZA_KEEP_HEAD 64
#define TZA_KEEP_TAIL 64

/* Process flags */
#define TZA_P_PRE_EXISTING 0x01 /* alive when recording started (snapshot) */
#define TZA_P_NO_FORK 0x02	/* first seen without a fork event (state/exec/exit only)
				   and started after the recording began; one started
				   before it (metadata start_boottime_ns, else the first
				   event) is TZA_P_PRE_EXISTING instead: it exited or
				   exec'd before the start-up snapshot saw it */
#define TZA_P_NO_EXIT 0x04	/* still running at the end of the trace (or exit lost) */
#define TZA_P_REPARENTED 0x08	/* parent at exit differs from fork-time parent */
#define TZA_P_FROM_STATE 0x10	/* known only from a state block (ring mode, slice) */
#define TZA_P_ARGV_TRUNCATED 0x20 /* final image's argv was cut (--argv-max) */
#define TZA_P_ORPHAN 0x40	/* parent pid known but its process is not in the trace
				   (see tza_model_build for the exact rule) */
#define TZA_P_KTHREAD 0x80	/* kernel thread (EV_STATE_KTHREAD in a snapshot) */
#define TZA_P_EXIT_LOST 0x200	/* with TZA_P_NO_EXIT: not alive when the recorder
				   stopped (its pid was reused, or metadata
				   alive_at_stop does not list it), so its exit event
				   was lost; end_ns is then its last event's time,
				   exit totals unknown (docs/EVENTS.md [E8], [E11]) */
#define TZA_P_RELEASED 0x2000	/* its CPU, switches and faults are its release's
				   (EV_RELEASE: final, as wait4 reported them),
				   not its exit's */
#define TZA_P_EXITED_BEFORE 0x4000 /* with TZA_P_PRE_EXISTING, TZA_P_NO_EXIT and
				   TZA_P_EXIT_LOST (its exit totals are unknown, end_ns
				   is the snapshot's time): it had already exited when
				   the recording started (a zombie in the snapshot,
				   EV_STATE_EXITED), so no exit event could be
				   recorded; counted in exited_before, not in exit_lost */
#define TZA_P_IO_FALLBACK 0x1000	/* its exit's I/O counters are the fallback, not
				   summed per thread: it was not seen from its fork
				   (EV_EXIT_IO_FALLBACK, docs/tracer-record.md) */
#define TZA_P_SAMPLED 0x400	/* with TZA_P_NO_EXIT, not TZA_P_EXIT_LOST: still
				   running at the end, with samples: its CPU, I/O
				   (utime/stime, rchar/wchar, read/write_bytes)
				   and threads are its last sample's (res->last,
				   at res->last.ts_ns), maxrss_kib its largest
				   sampled RSS; the other exit totals stay 0 */
#define TZA_P_CLIPPED 0x800	/* its counters count from charge_ns, not from
				   its start: it started before a slice's window
				   (metadata slice_counters "window"; charge_ns is
				   the window's start), or it was alive when the
				   recording started (TZA_P_PRE_EXISTING, started
				   before the metadata start_boottime_ns; charge_ns
				   is that start): see tza_model_build */
#define TZA_P_EXEC_REBASED 0x8000 /* with TZA_P_CLIPPED by a slice: its execs'
				   CPU before them (cpu_before_ns) count from
				   charge_ns too, like its totals, so the per-image
				   CPU of images exec'd in the window is known
				   (metadata slice_exec_cpu "window"; slices
				   written before it left them whole-life) */
#define TZA_P_RSS_UNKNOWN 0x10000 /* with TZA_P_SAMPLED: its RSS is unknown, its
				   maxrss_kib 0 means unknown, not 0: its only
				   sample is a slice's at the window's end that
				   says threads 0 (a process with no sample by
				   then: docs/tracer-analyze.md, slice) */
#define TZA_P_EXE_DELETED 0x100	/* its image's file was unlinked by exit time
				   (EV_EXIT_EXE_DELETED; its own final image, if
				   any, then has EV_EXEC_EXE_DELETED too) */

/* tza_exec.flags bit beside EV_EXEC_*: the image is known from a snapshot or
 * state block (EV_PROC_STATE), not from an exec event; ts_ns is then the
 * state event's time and filename is NULL. */
#define TZA_EXEC_FROM_STATE 0x80000000u
/* tza_exec.flags bit beside EV_EXEC_*: cpu_before_ns is known (the
 * file's exec events carry them; older recorders did not write them) */
#define TZA_EXEC_CPU 0x40000000u

/*
 * One per-process sample (EV_SAMPLE), kept only when the model is built with
 * TZA_MB_SAMPLES. Compact: 64 bytes. Cumulative counters are self-only.
 */
struct tza_sample {
	uint64_t ts_ns;		/* CLOCK_BOOTTIME ns */
	uint64_t utime_ns, stime_ns; /* cumulative CPU ns */
	uint64_t read_bytes, write_bytes; /* cumulative storage I/O bytes */
	uint64_t rchar, wchar;	/* cumulative bytes via read/write syscalls */
	uint32_t rss_kib;	/* anon + file + shmem RSS now, KiB (saturates at 4 TiB) */
	uint32_t threads;	/* live threads now */
};

/* One host sample (EV_HOST_SAMPLE), kept only with TZA_MB_SAMPLES. */
struct tza_host_sample {
	uint64_t ts_ns;		/* CLOCK_BOOTTIME ns */
	uint64_t busy_ns;	/* cumulative CPU ns not idle nor iowait, all CPUs */
	uint64_t total_ns;	/* cumulative CPU ns in every state, all CPUs */
	uint64_t mem_used_kib, mem_total_kib, mem_available_kib;
	uint64_t disk_read_bytes, disk_write_bytes, net_rx_bytes, net_tx_bytes;
	uint32_t ncpus;		/* online CPUs */
	uint32_t load1_milli;	/* 1-minute load average x 1000 */
};

/*
 * Resource use over time of one process (EV_SAMPLE, EV_OOM_KILL, EV_SIGNAL),
 * and its other rare facts (omitted execs, a clipped start), apart from
 * struct tza_proc since most processes have none (p->res).
 */
struct tza_proc_res {
	struct tza_sample *samples; /* in time order; only with TZA_MB_SAMPLES */
	uint32_t nsamples;
	uint32_t nsamples_seen;	/* EV_SAMPLE events of this process (kept or not) */
	uint64_t peak_sample_rss_kib; /* largest sampled RSS, KiB (0: no sample) */
	struct tza_sample last;	/* its last sample (always kept; valid when
				   nsamples_seen): a process still running at
				   the stop is counted up to it (TZA_P_SAMPLED) */
	struct tza_sample first; /* its first sample as the file has it (always
				   kept; valid when nsamples_seen): for a
				   pre-existing process, what it had used before
				   the recording (the sampler's first pass), the
				   baseline its counters are counted from */
	int oom_killed;		/* chosen by the OOM killer (EV_OOM_KILL) */
	/* the fatal signal that killed it (EV_SIGNAL matching the exit signal),
	 * valid when killer_signal != 0 */
	int killer_signal;
	uint64_t oom_ns;	/* when oom_killed; CLOCK_BOOTTIME ns */
	uint64_t oom_rss_kib;	/* its RSS then, KiB */
	uint64_t oom_memcg_id;	/* its memory cgroup id */
	uint64_t oom_total_vm_kib; /* its virtual memory then, KiB (mm->total_vm) */
	uint32_t oom_uid;	/* its owner's uid (EV_OOM_KILL uid) */
	int32_t oom_score_adj;	/* its oom_score_adj, -1000..1000 */
	uint32_t oom_trigger_pid; /* tgid whose allocation ran the OOM killer
				     (EV_OOM_KILL trigger_tgid: current then);
				     0: not recorded */
	uint32_t killer_pid;	/* sender tgid (the running task for kernel signals) */
	int killer_kernel;	/* sent by the kernel (fault, OOM killer) */
	int killer_code;	/* its si_code as the kernel passed it (0 for
				   SEND_SIG_NOINFO: see killer_flags) */
	uint32_t killer_flags;	/* EV_SIGNAL_* */
	uint64_t killer_start_ns; /* sender's start: with killer_pid, its identity */
	char killer_comm[16];	/* sender comm, NUL-terminated */
	uint64_t kill_ns;	/* when the signal was sent */
	int64_t killer_uid;	/* the sender's real uid (EV_SIGNAL sender_uid:
				   task_struct->cred->uid of the sending task);
				   -1: not in the file's schema */
	/* Images and failed execs between the kept head and tail of
	 * tza_proc.execs and .failed (counted, not stored): rare, so here */
	uint64_t nexecs_omitted, nfailed_omitted;
	/* The credentials of a state block (EV_PROC_STATE uid, euid) that
	 * gave the process no image (neither exe nor argv: a kernel thread):
	 * tza_proc_uid reads them when it has no image */
	uint32_t state_uid, state_euid;
	/* Where its counters (CPU, I/O) and its charged wall time start when
	 * that is not its start (TZA_P_CLIPPED: a slice's window start or the
	 * recording's start), else 0: read it with tza_proc_charged_from */
	uint64_t charge_ns;
};

/*
 * One process: a thread group from its fork (or first sight) to its exit.
 * Fields are ordered to leave no padding; every string and array is owned
 * by the model and read-only for its users.
 */
struct tza_task;
/* What only the model builder needs of a process while it reads the events
 * (analyze/model_int.h, pst()), kept where the finished process has its
 * children's links: never read it, it is zero once tza_model_build returns */
struct tza_proc_build {
	uint64_t last_ns; /* its last event (fork, exec, sample, state, ...) */
	uint8_t live;	  /* the live instance of its pid */
	uint8_t xring, fring; /* next tail slot to overwrite once capped */
	uint8_t start_guess;  /* made by exec_fail: start_ns is that event's time,
				 until an exec or exit gives the real one ([E15]) */
};
struct tza_proc {
	uint32_t pid;	    /* tgid (host pid namespace) */
	uint32_t ppid;	    /* fork-time parent's tgid; 0 if unknown */
	uint32_t ns_pid;    /* pid in its own pid namespace (0 if unknown) */
	uint32_t exit_ppid; /* real parent at exit (after reparenting); 0 if unknown */
	uint64_t start_ns;  /* fork time (start_boottime), CLOCK_BOOTTIME ns */
	uint64_t end_ns;    /* exit time; 0 while TZA_P_NO_EXIT (TZA_P_EXIT_LOST:
			       its last event's time) */
	uint32_t flags;	    /* TZA_P_* */

	uint32_t nchildren;
	struct tza_proc *parent;       /* fork-time parent process, or NULL */
	union {
		struct {
			struct tza_proc *first_child; /* children ordered by start time */
			struct tza_proc *next_sibling;
		};
		struct tza_proc_build _build; /* the builder's, while it runs */
	};

	/* Stored images and failed execs are capped so memory grows with
	 * processes, not events: the first TZA_KEEP_HEAD and the last
	 * TZA_KEEP_TAIL are kept (in order), the ones between are only counted
	 * in res->*_omitted. Totals: nexecs + res->nexecs_omitted, nfailed +
	 * res->nfailed_omitted. */
	struct tza_exec *execs;	       /* images in order; nexecs may be 0 */
	uint32_t nexecs;
	uint32_t nfailed;
	struct tza_failed_exec *failed; /* failed exec attempts in order */

	/* exit totals (valid when !(flags & TZA_P_NO_EXIT); the sampled ones
	 * also with TZA_P_SAMPLED); see struct ev_exit */
	uint32_t status;	/* raw wait status */
	int32_t exit_code;	/* WEXITSTATUS, or -1 when signaled */
	int32_t signal;		/* WTERMSIG, or 0 */
	int core_dumped;
	uint64_t utime_ns, stime_ns;
	uint64_t maxrss_kib;	/* peak RSS of the last image, KiB (the process's
				   over all its images: tza_proc_peak_rss_kib) */
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
	uint64_t nvcsw, nivcsw, min_flt, maj_flt;
	/* threads (exit total): after the tool.c block below, for alignment */

	/* its last known credentials: tza_proc_uid, tza_proc_euid */
	char comm[16];		/* latest non-empty comm of its exec/exit events, else
				   a state event's while empty (docs/EVENTS.md [E14]) */
	/* its cgroup v2 id: tza_proc_cgroup_id (its last image's) */

	/* The image it ran when it started (its fork-time parent's image then,
	 * and so on up), or NULL; computed once by tza_model_build after the
	 * tree is built. tza_proc_image_inherited reads it in O(1). */
	const struct tza_exec *start_image;

	uint32_t index;		/* position in tza_model.procs */

	uint32_t threads;	/* threads ever in the group (exit total) */
	/* Derived lazily by tool.c: tza_proc_key's tool and command strings
	 * as one id of tool.c's table of (tool, command) pairs, interned and
	 * shared by every process with the same names (never freed with the
	 * model); 0 until first asked */
	uint32_t key_pair;
	/* Samples, OOM kill, killer, omitted execs and a clipped start
	 * (res->charge_ns): never NULL; a shared all-zero block for the (many)
	 * processes without any of them. */
	const struct tza_proc_res *res;
	/* The task it belongs to (analyze/task.h), NULL: none or not built */
	struct tza_task *task;
};

/* p's last known credentials (uid, euid): its last image's (after exec;
 * an image from a state block holds the block's), else those of a state
 * block that gave it no image, else 0. O(1). */
static inline uint32_t tza_proc_uid(const struct tza_proc *p)
{
	return p->nexecs ? p->execs[p->nexecs - 1].ctx->uid : p->res->state_uid;
}
static inline uint32_t tza_proc_euid(const struct tza_proc *p)
{
	return p->nexecs ? p->execs[p->nexecs - 1].ctx->euid : p->res->state_euid;
}

/* p's cgroup v2 id (ev_exec cgroup_id): its last image's, 0 when it has
 * none or that image is from a state block (which records none). O(1). */
static inline uint64_t tza_proc_cgroup_id(const struct tza_proc *p)
{
	return p->nexecs ? p->execs[p->nexecs - 1].ctx->cgroup_id : 0;
}

/* The whole model of one trace. */
struct tza_model {
	struct tza_proc **procs; /* every process, ordered by (start_ns, pid) */
	uint32_t nprocs;
	struct tza_proc **roots; /* processes without a parent in the trace */
	uint32_t nroots;
	uint64_t t0_ns, t1_ns;	 /* trace start and end (CLOCK_BOOTTIME): first and last
				    event, t0 moved back to the start of a process forked
				    within 1 s before its fork event (start_boottime is
				    taken before the fork tracepoint fires) */
	uint64_t nevents;	 /* events consumed */
	uint64_t nexecs, nfailed_execs;
	uint64_t drops[8];	 /* last EV_DROPS counters (enum ev_drop_slot) */
	uint64_t dropped_chunks; /* tz_info.dropped: events lost before the writer */
	uint64_t corrupt_blocks; /* tz_info.corrupt_blocks */
	uint64_t duplicate_blocks; /* tz_info.duplicate_blocks (among corrupt_blocks) */
	int incomplete;		 /* something was lost or damaged: a tree drop (dropslot.h),
				    dropped chunks, corruption, a process without its
				    fork, an exit lost, or an unfinished file whose
				    writer is gone; never for a live file, a wrapped
				    ring or processes that exited before recording */
	int recovered_lossy;	 /* written by `recover` from an input that lost
				    blocks or was unfinished (metadata
				    recovered_*: tz_recover); incomplete too */
	uint64_t orphans;	 /* processes flagged TZA_P_ORPHAN */
	tz_reader *reader;	 /* borrowed: metadata, clock anchors */
	uint64_t no_fork;	 /* processes flagged TZA_P_NO_FORK (not pre-existing) */
	uint64_t unknown_events; /* events of types this build does not know (skipped) */
	uint64_t exit_lost;	 /* processes flagged TZA_P_EXIT_LOST, not
				    TZA_P_EXITED_BEFORE: exits really lost */
	uint64_t exited_before;	 /* processes flagged TZA_P_EXITED_BEFORE */
	int live;		 /* tz_info.live: the file is still being written
				    (its recorder runs): not sealed yet is not lost */
	int ring_wrapped;	 /* tz_info.ring_wrapped: the flight recorder
				    overwrote its oldest data */
	uint64_t overwritten_ns; /* ring_wrapped: time lost at the start, the
				    first remaining event's time (tz_info
				    first_ts_ns) minus the metadata
				    start_boottime_ns (0 when unknown) */
	uint64_t from_state;	 /* processes known only from state blocks (not
				    pre-existing): their start is older than the
				    trace's data (ring mode overwrote it, or a slice) */

	/* Resource use over time (always aggregated; arrays only with TZA_MB_SAMPLES) */
	uint64_t nsamples;	 /* EV_SAMPLE events */
	uint64_t nhost_samples;	 /* EV_HOST_SAMPLE events */
	uint64_t noom_kills;	 /* EV_OOM_KILL events of processes in the model */
	uint64_t host_mem_total_kib; /* from the last host sample (0: none) */
	uint64_t host_peak_mem_used_kib; /* largest mem_used_kib of any host sample */
	uint64_t host_peak_mem_ns; /* when (CLOCK_BOOTTIME ns) */
	struct tza_host_sample *host; /* host samples in time order */
	uint32_t nhost;
};

/* Cgroup hierarchies (the values of EV_CG_*, bpf/events.h) */
enum tza_cg_hier { TZA_CG_V2 = 0, TZA_CG_V1_MEMORY = 1, TZA_CG_V1_CPU = 2 };

/* One cgroup seen in the trace (EV_CGROUP), written once per (hier, id) by
 * the recorder. Owned by the model, read-only. */
struct tza_cgroup {
	uint64_t id;		  /* as in tza_exec.cgroup_id (v2) or memcg_id (v1 memory) */
	uint32_t hier;		  /* enum tza_cg_hier */
	uint32_t flags;		  /* EV_CGROUP_* (unresolved, path truncated) */
	char *path;		  /* path inside its hierarchy's mount, "/" for the root;
				     "" when unresolved (EV_CGROUP_UNRESOLVED) */
	uint64_t mem_limit_bytes; /* memory.max / memory.limit_in_bytes; 0 = none or unknown */
	uint64_t cpu_quota_us, cpu_period_us; /* cpu.max / cfs_quota_us + cfs_period_us;
						 0 = none */
};

/* The trace's entry for (hier, id), or NULL when it has none (not recorded,
 * older recorder). When a damaged or merged file holds two, the first wins.
 * O(log n). */
const struct tza_cgroup *tza_model_cgroup(const struct tza_model *m, uint32_t hier, uint64_t id);

/* Every cgroup entry, ordered by (hier, id); *out points to the model's
 * array. Returns the count. */
uint32_t tza_model_cgroups(const struct tza_model *m, const struct tza_cgroup **out);

/*
 * A file the recorder embedded at the stop (EV_ATTACH: workflow manager
 * records, docs/tracer-record.md "Attachments"): name is the path as found
 * on the recording host (absolute), data its bytes (possibly cut:
 * TZA_ATT_TRUNCATED; rewritten by --redact: TZA_ATT_REDACTED). Owned by the
 * model, read-only; data is not NUL-terminated (len bytes).
 */
#define TZA_ATT_TRUNCATED 0x1 /* EV_ATTACH_TRUNCATED */
#define TZA_ATT_REDACTED 0x2  /* EV_ATTACH_REDACTED */
struct tza_attachment {
	const char *name;
	const uint8_t *data;
	uint64_t len;	   /* bytes in data */
	uint32_t flags;	   /* TZA_ATT_* */
	uint64_t mtime_ns; /* CLOCK_REALTIME ns of the file's mtime */
	uint64_t size;	   /* the file's size when it was read */
};
/* Number of attachments, in the order recorded; *out points to the model's
 * array (owned by the model; NULL when none). */
uint32_t tza_model_attachments(const struct tza_model *m, const struct tza_attachment **out);

/* tza_model_build_ex flags */
#define TZA_MB_SAMPLES 0x1 /* keep every per-process and host sample in memory */
#define TZA_MB_SERIAL 0x2  /* decode on the caller's thread; by default, with two
			      or more CPUs, the reader runs on a second thread
			      (evq.h) while the model is built: same result */
#define TZA_MB_GENERIC 0x4 /* read every field through the file's schema, also
			      where its layout is this build's own (which is
			      otherwise read in one copy): same result; tests */
#define TZA_MB_LIFETIME 0x8 /* keep pre-existing processes' whole-life counters
			       (as the file has them: slice, which rebases them
			       itself): no TZA_P_CLIPPED at the recording start */

/*
 * Build the model from r over [from_ns, to_ns] (0 and UINT64_MAX for all).
 * Returns 0 and *out (free with tza_model_free), or a negative tz_err with a
 * one-line message in tz_reader_errmsg(r) or printed by the caller. Corrupt
 * chunks are skipped and counted, not fatal.
 *
 * Rules: a fork starts a process (pid, child_start_ns) under the fork-time
 * parent (parent_tgid); exec/exit/state events find it by pid and start_ns,
 * and one that matches no living process starts a new one (TZA_P_NO_FORK,
 * or TZA_P_FROM_STATE / TZA_P_PRE_EXISTING for state events); one made by
 * exec_fail takes the start_ns of a later exec or exit not after it. A new
 * process on a pid still "alive" ends the old instance (TZA_P_NO_EXIT |
 * TZA_P_EXIT_LOST: its pid was reused, it cannot be running). Parents not
 * known at fork time are resolved at the end to the process with that pid
 * alive at the child's start; a link that would make a cycle is refused.
 * TZA_P_ORPHAN: no parent in the trace, ppid != 0, not pre-existing, and
 * either first seen without a fork or the trace is incomplete and its ppid
 * differs from the recording root's; never the recorded command itself (a
 * root whose parent is the metadata recorder_pid, or -p's target_pid). The
 * model is incomplete when a drop slot that makes the tree incomplete
 * (dropslot.h) is non-zero, chunks were dropped or corrupt, a process was
 * seen without its fork, an exit was lost, a ring file that has not wrapped
 * still has processes known only from state blocks, or the file was never
 * finished and no writer holds it (the recorder was killed: what it had not
 * sealed is lost), or the file was written by `recover` from one that had
 * lost something (recovered_lossy). A live file (still being written), a wrapped ring (the
 * flight recorder overwrote its oldest data by design: overwritten_ns) and
 * zombies at the start (TZA_P_EXITED_BEFORE) are facts, not losses.
 *
 * Pre-existing processes count from the recording's start (TZA_P_CLIPPED,
 * charge_ns = metadata start_boottime_ns, else the first event): one with a
 * sample has its first sample (the sampler's first pass samples every
 * pre-existing process, bpf/sample.bpf.c young_from_ns) subtracted from its
 * CPU and I/O exit totals (utime_ns, stime_ns, rchar, wchar, read_bytes,
 * write_bytes) and from each of its samples; the counters samples do not
 * carry (syscr, syscw, cancelled_write_bytes, nvcsw, nivcsw, min_flt,
 * maj_flt), and all of them for one without a sample that exited in the
 * trace, are pro-rata: the exit total times the share of its life after
 * the recording's start. Without TZA_MB_LIFETIME; a slice's clipped
 * processes are already counted from its window.
 */
int tza_model_build(tz_reader *r, uint64_t from_ns, uint64_t to_ns, struct tza_model **out);
/* The same with TZA_MB_* flags (tza_model_build is flags 0: samples are
 * counted and aggregated but not kept). */
int tza_model_build_ex(tz_reader *r, uint64_t from_ns, uint64_t to_ns, uint32_t flags,
		       struct tza_model **out);
/* Free m, its processes, images, samples and strings (every pointer taken
 * from it dies with it; free tasks built on it first); NULL is fine. */
void tza_model_free(struct tza_model *m);

/* Bytes of the longest process id with its NUL: "4294967295.18446744073709551615" */
#define TZA_ID_MAX 32

/* The process's id, "PID.START_NS" (pid and start_ns in decimal), unique in
 * the trace (export's `id`): formatted into buf, which is returned. */
const char *tza_proc_id(const struct tza_proc *p, char buf[TZA_ID_MAX]);

/* Process by id ("PID.START_NS"), or NULL. */
struct tza_proc *tza_model_find(const struct tza_model *m, const char *id);

/* Where p's counters and charged wall time start: its start, or a slice's
 * window start for a process that crossed it (TZA_P_CLIPPED). */
static inline uint64_t tza_proc_charged_from(const struct tza_proc *p)
{
	return p->res->charge_ns > p->start_ns ? p->res->charge_ns : p->start_ns;
}

/* The final image (last exec) or NULL when the process never exec'd. */
const struct tza_exec *tza_proc_image(const struct tza_proc *p);

/*
 * Per image of an exec chain (p->execs[i]): the CPU ns (user + system) the
 * process used in that image, from its exec to the next one (the last: to
 * the exit totals, or to the last sample of one still running,
 * TZA_P_SAMPLED), from the exec events' CPU-before-exec fields and the exit
 * totals. -1 when unknown: a file whose exec events lack those fields, an
 * image known from a snapshot, images omitted between i and i + 1
 * (nexecs_omitted), or no totals to end the last image.
 */
int64_t tza_exec_cpu_ns(const struct tza_proc *p, uint32_t i);

/*
 * Per image of an exec chain (p->execs[i]): its own peak RSS, KiB. Not the
 * last image: the next exec's prev_maxrss_kib (the replaced image's
 * max(mm->hiwater_rss, RSS) at sched_prepare_exec); the last: the exit's
 * maxrss_kib. -1 when unknown: a file whose exec events lack the field
 * (or a kernel without sched_prepare_exec: recorded 0), images omitted
 * between i and i + 1 (nexecs_omitted), or the last image of a process
 * with no exit (still running, or its exit lost).
 */
int64_t tza_exec_peak_rss_kib(const struct tza_proc *p, uint32_t i);

/*
 * p's peak RSS over all its images, KiB: getrusage(RUSAGE_SELF) ru_maxrss,
 * and wait4()'s for a process that reaped no bigger child. The larger of
 * its last image's peak (maxrss_kib) and its last exec's maxrss_before_kib
 * (signal->maxrss then: every earlier image, the ones before the recording
 * and the omitted ones too). A file without that field: maxrss_kib.
 */
uint64_t tza_proc_peak_rss_kib(const struct tza_proc *p);

/*
 * p's own peak RSS, KiB: the peak over the images it ran from its first exec
 * on, what a task, rule, job or tool group is charged with (task.c, rightsize;
 * docs/tracer-analyze.md "Tasks"). A fork starts in a copy of its parent's
 * image (its page tables copied at fork: a 75 MiB Python's child is a 75 MiB
 * process until it execs), and the kernel's process peak
 * (tza_proc_peak_rss_kib, signal->maxrss, wait4's ru_maxrss) includes that
 * copy; this one leaves it out. The largest of: the last image's peak (the
 * exit's maxrss_kib, mm->hiwater_rss at exit; for a process still running,
 * TZA_P_SAMPLED, its largest kept sample at or after its first exec, or
 * maxrss_kib when no kept sample is earlier) and each replaced image's after
 * the first exec (the next exec's prev_maxrss_kib, the replaced mm's
 * max(hiwater_rss, RSS) at sched_prepare_exec; images omitted between the
 * kept ones (res->nexecs_omitted) count only when the exec after them was
 * kept). A process that never exec'd: tza_proc_peak_rss_kib (it only ever
 * ran its parent's copy). A file whose exec events lack prev_maxrss_kib
 * (exec schema before v3): the last image's peak. An image known from a
 * snapshot (TZA_EXEC_FROM_STATE) counts as exec'd: its earlier images were
 * not seen. 0 with TZA_P_RSS_UNKNOWN and nothing else known
 * (tza_proc_rss_known).
 */
uint64_t tza_proc_own_rss_kib(const struct tza_proc *p);

/*
 * p's RSS is known: 1, else 0 when p has TZA_P_RSS_UNKNOWN (a slice's
 * process with no sample by the window's end) and nothing else gave it a
 * peak (tza_proc_peak_rss_kib 0). Then its peak RSS is unknown, not 0:
 * views show "-", JSON null, and sums and maxima over processes leave it
 * out (docs/tracer-analyze.md, slice).
 */
int tza_proc_rss_known(const struct tza_proc *p);

/*
 * p's peak RSS as a view of one process shows it (tree, export jsonl, csv,
 * chrome, the report), KiB: 1 with *kib when known, an exit's peak
 * (tza_proc_peak_rss_kib) or, for a process without an exit that has
 * samples (TZA_P_SAMPLED: still running at the end), the largest RSS up to
 * its last sample, *sampled then 1 (tree's "(to its last sample)", export's
 * peak_rss_sampled); 0 with *kib 0 when unknown: no exit and no sample (a
 * process running unsampled, an exit lost), or !tza_proc_rss_known.
 * sampled may be NULL.
 */
int tza_proc_peak_view(const struct tza_proc *p, uint64_t *kib, int *sampled);

/*
 * Sample s of p says p's RSS and threads: 1, else 0 for a slice's end
 * sample of a process with no sample by then (TZA_P_RSS_UNKNOWN; threads 0,
 * rss_kib 0 mean unknown, docs/EVENTS.md sample). A view draws such a
 * sample as a gap, exports it as null, never as 0.
 */
static inline int tza_sample_rss_known(const struct tza_proc *p, const struct tza_sample *s)
{
	return !(p->flags & TZA_P_RSS_UNKNOWN) || s->threads || s->rss_kib;
}

/* Wall ns of p's image i: from its exec to the next one (the last: to the
 * process's end, or the trace's end t1_ns while running); -1 when images
 * were omitted between i and i + 1. */
int64_t tza_exec_wall_ns(const struct tza_proc *p, uint32_t i, uint64_t t1_ns);

/* The image the process runs: its own final image, else (a fork that never
 * exec'd, e.g. a subshell) the image its parent ran when it forked it (and so
 * on up); NULL when none is known. O(1): precomputed (start_image). */
const struct tza_exec *tza_proc_image_inherited(const struct tza_proc *p);

/*
 * Why the signal that killed p was sent, from its si_code and flags (EV_SIGNAL):
 * sent by the kernel for the process's own action: "broken pipe" (SIGPIPE of
 * a write to a pipe or socket without readers), "file size limit" (SIGXFSZ,
 * RLIMIT_FSIZE), "cpu time limit" (SIGXCPU, RLIMIT_CPU), "fault" (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP with a fault's si_code), "seccomp" (SIGSYS
 * with SYS_SECCOMP), "oom" (the OOM killer's SIGKILL), "timer" (an interval
 * timer or alarm), else "kernel"; sent by a process (killed_by names it):
 * "kill" (kill(2), SI_USER), "tkill" (tgkill/tkill: raise(), abort()),
 * "sigqueue", "timer" (a POSIX timer), "message queue", "aio", "sigio", or
 * "other". NULL when p was not killed by a recorded signal. Static strings.
 */
const char *tza_signal_cause(const struct tza_proc *p);

/* Grouping keys (see tool.c's rule table). Strings owned by the model.
 * TZA_BY_EXE: the final image's path; tool and command: an exec chain is
 * named by its first image that is not a pass-through wrapper (env, nice,
 * sh -c ... that forked nothing; docs/tracer-analyze.md "Exec chains"),
 * else its last. */
enum tza_by { TZA_BY_EXE, TZA_BY_TOOL, TZA_BY_COMMAND,
	      /* task.h: p->task's key, name, Slurm job, container ("(none)"
		 outside tasks); only once tasks were built */
	      TZA_BY_TASK, TZA_BY_RULE, TZA_BY_JOB, TZA_BY_CONTAINER };
/* p's key for by: never NULL ("?" when out of memory, "(none)" outside
 * tasks); not to be freed, valid while the model (and its tasks) live. */
const char *tza_proc_key(struct tza_proc *p, enum tza_by by);

/* The image whose tool and command name p (tool.c, the same rule as
 * tza_proc_key): p's only image, or for an exec chain the one that names it
 * (a shell job's bash -c image, env's program); NULL when p never exec'd.
 * Points into p->execs. */
const struct tza_exec *tza_proc_naming_image(const struct tza_proc *p);

/* The peak RSS, KiB, of the images p ran as its tool (tza_proc_key): the
 * largest own peak (tza_exec_peak_rss_kib) of its first image that is not
 * a launcher and the images after it, the launchers before it (env, a
 * wrapper script that execs its program) left out; maxrss_kib (the last image's) when the earlier images' peaks are
 * not known (older files). What top and summary charge a tool with. */
uint64_t tza_proc_tool_peak_rss_kib(const struct tza_proc *p);

#endif /* TRACER_MODEL_H */
