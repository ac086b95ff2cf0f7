/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer.h - private layouts shared by bpf/tracer.bpf.c and record/: map
 * values, scratch buffers, the task-iterator snapshot record. Not part of
 * the trace format (that is bpf/events.h).
 */
#ifndef TRACER_BPF_H
#define TRACER_BPF_H

#include "events.h"

/* Indices of the I/O counters kept per process (struct task_io_accounting,
 * include/linux/task_io_accounting.h), in struct tracked and the exit program. */
enum io_idx {
	IO_RCHAR = 0,		 /* bytes via read-like syscalls */
	IO_WCHAR = 1,		 /* bytes via write-like syscalls */
	IO_SYSCR = 2,		 /* read-like syscalls */
	IO_SYSCW = 3,		 /* write-like syscalls */
	IO_READ_BYTES = 4,	 /* bytes fetched from storage */
	IO_WRITE_BYTES = 5,	 /* bytes sent to storage */
	IO_CANCELLED_WRITE = 6,	 /* cancelled_write_bytes */
	IO_N = 7,
};

/* Value of the `tracked` map (key: tgid). */
struct tracked {
	__u32 threads;	    /* threads created by fork/clone in the group (fork
			       tracepoint), main thread included */
	__u32 flags;	    /* TRACKED_* */
	__u32 thread_exits; /* threads that passed sched_process_exit without
			       group_dead (any thread, kernel-created included) */
	/* peak RSS of the image an exec of this group is replacing, pages:
	 * get_mm_hiwater_rss() of the old mm at sched_prepare_exec,
	 * taken (and zeroed) by the exec's sched_process_exec; 0: not read */
	__u32 exec_rss_pages;
	/*
	 * TRACKED_FROM_FORK: the own task->ioac of every thread of the group
	 * that passed sched_process_exit without group_dead and claimed its
	 * exit (thread_claims). Else: I/O that wait4() will fold into this
	 * process's signal->ioac from its exited children (kernel/exit.c
	 * wait_task_zombie), subtracted at exit (the fallback). By enum io_idx.
	 */
	__u64 io[IO_N];
};
#define TRACKED_PARENT_ONLY 0x1 /* the recorder itself: track its next child only */
#define TRACKED_LIVE 0x2	/* the entry holds a tracked process: set on every
				   entry, needed by the array form of the map
				   (one slot per pid, never deleted, zeroed) */
#define TRACKED_FROM_FORK 0x4	/* tracked since its fork (the fork program made
				   the entry): I/O is summed per thread, exactly */
#define TRACKED_ARRAY_MAX 131072 /* pid_max up to which `tracked` is an array
				    indexed by tgid (72 bytes a pid: 9 MiB) */

/* Key of `thread_claims`: one exited (or exiting) thread, unique forever. A
 * thread that execs takes over the leader's tid and start time
 * (kernel/exec.c de_thread()), but its exec raised its self_exec_id above
 * the leader's. */
struct thread_key {
	__u64 start_ns; /* task->start_boottime */
	__u64 exec_id;	/* task->self_exec_id */
	__u32 tid;	/* task->pid */
	__u32 pad0;
};
#define THREAD_CLAIMS_MAX 16384 /* LRU entries: an entry matters only from a
				   thread's exit to its release (microseconds
				   for a non-leader thread) */

#define PATH_WIN 4096	   /* path resolution window (bytes, power of 2) */
/* dentry/mount steps walked per path: a name takes 2+ bytes of the window,
 * so the window cuts a deep path before this does (a walk that reaches the
 * limit without a root is flagged cut) */
#define PATH_DEPTH 4096
#define THREAD_WALK_MAX 64 /* unreaped threads summed at group exit */
#define MAX_CPUS_EXACT 64  /* above this, rss per-CPU deltas are not summed */
#define OFF_MASK 32767	   /* bound of the tail offset before argv: the fixed
			      part and four paths (filename, exe, script, cwd) */
#define REC_SIZE (OFF_MASK + 1 + EV_ARGV_MAX_LIMIT + EV_ENV_MAX_LIMIT + 1)

/* kernel macros that BTF does not carry (include/linux/sched{,/signal}.h) */
#define TR_SIGNAL_GROUP_EXIT 0x00000004
#define TR_PF_KTHREAD 0x00200000
#define TR_SA_NOCLDWAIT 0x00000002
#define SIGCHLD_NR 17

/* Per-CPU scratch of the exec program: the record is built here, then copied
 * into the ring buffer sized to its content. */
struct scratch {
	char rec[REC_SIZE];
	char path[2 * PATH_WIN]; /* a window plus slack for the verifier */
	__u64 off;		 /* the record's length so far (forget_off) */
};

/* Per-CPU scratch of the exec-failure programs (syscall tracepoints). */
struct fail_scratch {
	char rec[sizeof(struct ev_exec_fail) + EV_PATH_MAX];
};

/* One pre-existing process, written by the iter/task program. */
struct snap_rec {
	__u64 start_ns;	 /* group_leader->start_boottime */
	__u32 tgid, ppid; /* ppid: real_parent->tgid */
	__u32 uid, euid;
	__u32 ns_pid;
	__u32 threads;	 /* signal->nr_threads now */
	__u32 argv_size; /* mm->arg_end - mm->arg_start */
	__u32 flags;	 /* EV_EXEC_EXE_* */
	__u16 exe_len;
	__u16 kthread;	 /* PF_KTHREAD */
	char comm[EV_COMM_LEN];
	__u32 exited;	 /* 1: every thread has exited (group leader's
			    exit_state set and signal->live 0): a zombie
			    its parent has not reaped yet */
	char exe[EV_PATH_MAX];
};

/* Per-CPU scratch of the iterator. */
struct snap_scratch {
	char path[2 * PATH_WIN]; /* a window plus slack for the verifier */
	struct snap_rec r;
};

#endif /* TRACER_BPF_H */
