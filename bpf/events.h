/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * events.h - the one event layout shared by the BPF programs (bpf/NAME.bpf.c),
 * the recorder (record/) and the .tz schema (record/schema.c builds the
 * schema from these structs with offsetof/sizeof, and a unit test checks it).
 *
 * Rules:
 *  - fixed-width __u8..__u64 only, explicit padding, every struct a multiple
 *    of 8 bytes; _Static_assert pins every size;
 *  - every event starts with struct ev_hdr;
 *  - variable-length data (paths, argv) follows the fixed part as a tail; the
 *    fixed part holds each tail member's length in bytes, and members are laid
 *    out in the order documented at each struct, without NUL terminators
 *    (argv keeps the NUL *between and after* each argument exactly as the
 *    kernel stores it in the new mm);
 *  - all timestamps are CLOCK_BOOTTIME nanoseconds (bpf_ktime_get_boot_ns(),
 *    task_struct->start_boottime), the one clock of a trace;
 *  - ids are append-only: a type id or a field is never reused or removed.
 *
 * Host pids: every tgid/pid here is in the initial pid namespace
 * (task_struct->tgid / ->pid); ns_pid is the pid in the task's own namespace.
 */
#ifndef TRACER_EVENTS_H
#define TRACER_EVENTS_H

#ifdef __BPF__
/* vmlinux.h provides __u8..__u64 */
#else
#include <linux/types.h>
#include <stddef.h>
#endif

/* Event type ids: stable forever, also the .tz schema type ids. */
enum ev_type {
	EV_FORK = 1,	   /* a new process (thread group) was created */
	EV_EXEC = 2,	   /* a successful exec committed a new image */
	EV_EXEC_FAIL = 3,  /* execve/execveat returned an error */
	EV_EXIT = 4,	   /* the last thread of a thread group exited */
	EV_PROC_STATE = 5, /* a living process, from a snapshot or a state block */
	EV_DROPS = 6,	   /* cumulative drop counters (user space, periodic) */
	EV_TYPE_MAX,	   /* one past the last type id known to this build */
};

/* Tail length caps (bytes). argv is capped at run time by --argv-max. */
#define EV_PATH_MAX 4096 /* filename, exe, script: longer paths are cut, flagged */
#define EV_COMM_LEN 16	 /* task_struct->comm, NUL-padded */
#define EV_ARGV_MAX_LIMIT (128 * 1024) /* hard upper bound of --argv-max */
#define EV_ARGV_MAX_DEFAULT 4096       /* default --argv-max */

/* Common header before every payload: 16 bytes. */
struct ev_hdr {
	__u32 size;  /* total bytes of this record, header + fixed + tail */
	__u16 type;  /* enum ev_type */
	__u16 cpu;   /* CPU the BPF program ran on (bpf_get_smp_processor_id) */
	__u64 ts_ns; /* CLOCK_BOOTTIME ns when the tracepoint fired */
};

/* EV_FORK flags */
#define EV_FORK_VFORK 0x1	 /* child created with CLONE_VFORK */
#define EV_FORK_CLONE_PARENT 0x2 /* real parent is not the caller (CLONE_PARENT) */

/*
 * EV_FORK: tp_btf/sched_process_fork for a new thread group only (thread
 * creation is counted in EV_EXIT.threads, never emitted). No tail.
 */
struct ev_fork {
	struct ev_hdr hdr;
	__u32 parent_tgid;    /* child->real_parent->tgid: the fork-time parent */
	__u32 caller_tgid;    /* current->tgid (differs under CLONE_PARENT) */
	__u32 caller_pid;     /* current->pid: the thread that forked */
	__u32 child_tgid;     /* child->tgid (== child->pid for a new process) */
	__u64 child_start_ns; /* child->start_boottime, CLOCK_BOOTTIME ns */
	__u32 child_ns_pid;   /* child's pid in its own pid namespace */
	__u32 flags;	      /* EV_FORK_* */
};

/* EV_EXEC flags */
#define EV_EXEC_ARGV_TRUNCATED 0x1 /* argv tail is a prefix of the real argv */
#define EV_EXEC_EXE_DELETED 0x2	   /* exe file was unlinked (d_unlinked) */
#define EV_EXEC_EXE_MEMFD 0x4	   /* exe is a memfd; exe tail holds "memfd:NAME" */
#define EV_EXEC_SCRIPT 0x8	   /* binfmt_script: script tail holds the script */
#define EV_EXEC_PATH_TRUNCATED 0x10 /* a path tail was cut at EV_PATH_MAX */

/*
 * EV_EXEC: tp_btf/sched_process_exec, after the new image is committed.
 * Tail, in order: filename[filename_len] (bprm->filename, as passed by user
 * space), exe[exe_len] (resolved absolute path of mm->exe_file),
 * script[script_len] (the #! script when EV_EXEC_SCRIPT, else empty),
 * argv[argv_len] (bytes mm->arg_start..arg_start+argv_len of the new mm).
 */
struct ev_exec {
	struct ev_hdr hdr;
	__u64 start_ns;	    /* task->group_leader->start_boottime: process identity */
	__u64 cgroup_id;    /* bpf_get_current_cgroup_id(), cgroup v2 id */
	__u32 tgid;	    /* current->tgid after exec */
	__u32 old_pid;	    /* pid that called exec (a non-leader thread's tid) */
	__u32 ppid;	    /* current->real_parent->tgid */
	__u32 ns_pid;	    /* tgid in the task's own pid namespace */
	__u32 uid, euid;    /* cred->uid / cred->euid after exec (setuid applied) */
	__u32 gid, egid;    /* cred->gid / cred->egid after exec */
	__u32 argc;	    /* bprm->argc: original argument count */
	__u32 argv_size;    /* mm->arg_end - mm->arg_start: original argv bytes */
	__u32 argv_len;	    /* argv bytes in the tail (<= argv_size, <= --argv-max) */
	__u16 filename_len; /* bytes of filename in the tail */
	__u16 exe_len;	    /* bytes of exe in the tail */
	__u16 script_len;   /* bytes of script in the tail */
	__u16 pad0;
	__u32 flags;	    /* EV_EXEC_* */
	char comm[EV_COMM_LEN]; /* task->comm after exec */
};

/*
 * EV_EXEC_FAIL: an execve/execveat that returned an error (failed attempt,
 * never an image). Tail: filename[filename_len] as passed by user space.
 */
struct ev_exec_fail {
	struct ev_hdr hdr;
	__u32 tgid;	    /* current->tgid */
	__u32 pid;	    /* current->pid */
	__s32 err;	    /* positive errno (ENOENT, EACCES, ...) */
	__u16 filename_len; /* bytes of filename in the tail */
	__u16 pad0;
};

/* EV_EXIT flags */
#define EV_EXIT_CORE_DUMPED 0x1 /* WCOREDUMP(status) */
#define EV_EXIT_SIGNALED 0x2	/* WIFSIGNALED(status) */
#define EV_EXIT_EXE_DELETED 0x4 /* the image's file was unlinked by exit time */

/*
 * EV_EXIT: tp_btf/sched_process_exit with group_dead set (the last thread of
 * the group). All counters are *self* (this process, every thread, never its
 * children), summed over the thread group: signal_struct totals of threads
 * already gone plus the exiting thread's own. No tail.
 */
struct ev_exit {
	struct ev_hdr hdr;
	__u64 start_ns;	      /* group_leader->start_boottime: process identity */
	__u64 utime_ns;	      /* user CPU ns (signal->utime + each thread's utime, scaled
				 to the precise sum_exec_runtime like getrusage()) */
	__u64 stime_ns;	      /* system CPU ns (same, from stime) */
	__u64 maxrss_kib;     /* peak RSS of the last image, KiB (mm->hiwater_rss / rss_stat) */
	__u64 rchar, wchar;   /* bytes via read/write syscalls (task_io_accounting) */
	__u64 syscr, syscw;   /* read/write syscall counts */
	__u64 read_bytes;     /* bytes fetched from storage (ioac.read_bytes) */
	__u64 write_bytes;    /* bytes sent to storage (ioac.write_bytes) */
	__u64 cancelled_write_bytes; /* ioac.cancelled_write_bytes */
	__u64 nvcsw, nivcsw;  /* voluntary / involuntary context switches */
	__u64 min_flt, maj_flt; /* minor / major page faults */
	__u32 tgid;	      /* exiting thread group */
	__u32 pid;	      /* the last thread's pid */
	__u32 ppid;	      /* real_parent->tgid at exit (after any reparenting) */
	__u32 status;	      /* raw wait status: (code & 0xff) << 8 | sig | 0x80 core */
	__s32 exit_code;      /* WEXITSTATUS, or -1 when signaled */
	__s32 signal;	      /* WTERMSIG, or 0 when exited */
	__u32 threads;	      /* threads ever in the group, main thread included */
	__u32 flags;	      /* EV_EXIT_* */
	char comm[EV_COMM_LEN]; /* task->comm at exit */
};

/* EV_PROC_STATE flags */
#define EV_STATE_PRE_EXISTING 0x1 /* alive before recording started (snapshot) */
#define EV_STATE_KTHREAD 0x2	  /* kernel thread (PF_KTHREAD) */

/*
 * EV_PROC_STATE: one living process. Written for the start-up snapshot
 * (pre-existing processes) and in .tz state blocks (every process alive when
 * the block was written), so a reader starting at any chunk knows them.
 * Tail, in order: exe[exe_len], argv[argv_len] (like EV_EXEC).
 */
struct ev_proc_state {
	struct ev_hdr hdr;
	__u64 start_ns;	   /* start_boottime, CLOCK_BOOTTIME ns */
	__u32 tgid;	   /* process */
	__u32 ppid;	   /* real_parent->tgid */
	__u32 uid, euid;   /* cred uid / euid */
	__u32 ns_pid;	   /* tgid in its own pid namespace */
	__u32 argc;	   /* number of NUL-terminated strings in argv (may be cut) */
	__u32 argv_size;   /* original argv bytes */
	__u32 argv_len;	   /* argv bytes in the tail */
	__u16 exe_len;	   /* bytes of exe in the tail */
	__u16 pad0;
	__u32 flags;	   /* EV_STATE_* | EV_EXEC_ARGV_TRUNCATED ... */
	char comm[EV_COMM_LEN];
};

/* Drop counter slots, one per cause (BPF per-CPU array index). */
enum ev_drop_slot {
	EV_DROP_FORK = 0,      /* ring buffer full on EV_FORK */
	EV_DROP_EXEC = 1,      /* ring buffer full on EV_EXEC */
	EV_DROP_EXEC_FAIL = 2, /* ring buffer full on EV_EXEC_FAIL */
	EV_DROP_EXIT = 3,      /* ring buffer full on EV_EXIT */
	EV_DROP_MAP_FULL = 4,  /* a BPF hash map update failed (tracking lost) */
	EV_DROP_ARGV_FAULT = 5, /* argv could not be read (record kept, argv empty) */
	EV_DROP_SLOTS = 8,
};

/*
 * EV_DROPS: cumulative counters since recording started, summed over CPUs,
 * written by user space periodically and at stop. No tail.
 */
struct ev_drops {
	struct ev_hdr hdr;
	__u64 count[EV_DROP_SLOTS]; /* indexed by enum ev_drop_slot */
};

#ifndef __BPF__
_Static_assert(sizeof(struct ev_hdr) == 16, "ev_hdr layout");
_Static_assert(sizeof(struct ev_fork) == 48, "ev_fork layout");
_Static_assert(sizeof(struct ev_exec) == 104, "ev_exec layout");
_Static_assert(sizeof(struct ev_exec_fail) == 32, "ev_exec_fail layout");
_Static_assert(sizeof(struct ev_exit) == 184, "ev_exit layout");
_Static_assert(sizeof(struct ev_proc_state) == 80, "ev_proc_state layout");
_Static_assert(sizeof(struct ev_drops) == 80, "ev_drops layout");
#endif

#endif /* TRACER_EVENTS_H */
