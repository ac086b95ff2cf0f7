/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * events.h - the one declaration of every event, field and drop slot, shared
 * by the BPF programs (bpf/NAME.bpf.c), the recorder (record/) and the
 * analyzer (analyze/): each event is an X-macro list of its fields (see "How
 * an event is declared" below) from which come its struct, the .tz schema
 * and record splitting (record/schema.c, with offsetof/sizeof, checked by a
 * unit test) and the analyzer's generic readers.
 *
 * Rules:
 *  - fixed-width __u8..__u64 only, explicit padding, every struct a multiple
 *    of 8 bytes; _Static_assert pins every size;
 *  - every event starts with struct ev_hdr;
 *  - variable-length data (paths, argv) follows the fixed part as a tail; the
 *    fixed part holds each tail member's length in bytes, and members are laid
 *    out in the order of the event's TAIL list, without NUL terminators
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
	EV_SAMPLE = 7,	   /* periodic per-process resource sample (iter/task) */
	EV_HOST_SAMPLE = 8, /* periodic host sample (/proc, user space) */
	EV_OOM_KILL = 9,   /* the OOM killer chose a recorded process */
	EV_SIGNAL = 10,	   /* a fatal-by-default signal was sent to a recorded process */
	EV_RELEASE = 11,   /* a recorded process's final CPU, once its last task is freed */
	EV_CGROUP = 12,	   /* a cgroup seen in the trace: path and limits (user space, once per id) */
	EV_ATTACH = 13,	   /* a file embedded at the stop (workflow manager records, user space) */
	EV_TYPE_MAX,	   /* one past the last type id known to this build */
};

/* Tail length caps (bytes). argv is capped at run time by --argv-max. */
#define EV_PATH_MAX 4096 /* filename, exe, script: longer paths are cut, flagged */
#define EV_COMM_LEN 16	 /* task_struct->comm, NUL-padded */
#define EV_ARGV_MAX_LIMIT (128 * 1024) /* hard upper bound of --argv-max */
#define EV_ARGV_MAX_DEFAULT 4096       /* default --argv-max */
#define EV_ENV_MAX_LIMIT 32767	       /* hard upper bound of --env-max */
#define EV_ENV_MAX_DEFAULT 16384       /* default --env-max (with --env) */

/* Common header before every payload: 16 bytes. */
struct ev_hdr {
	__u32 size;  /* total bytes of this record, header + fixed + tail */
	__u16 type;  /* enum ev_type */
	__u16 cpu;   /* CPU the BPF program ran on (bpf_get_smp_processor_id) */
	__u64 ts_ns; /* CLOCK_BOOTTIME ns when the tracepoint fired */
};

/*
 * How an event is declared: once, as an X-macro list of its fixed fields
 * after the header, in record order, one row per field:
 *
 *	X(TYPE, name, "unit", "kernel source")
 *
 * TYPE is one of U64 U32 U16 I32 I16 (the .tz TZ_F_* of the same name and the
 * __u64.. __s16 C type), CHARS (char name[EV_COMM_LEN], TZ_F_CHARS), or PAD16
 * / PAD32 (explicit padding: in the struct, never in the schema). "unit" is
 * the schema unit ("ns", "KiB", "bytes", "count", "us", "" ...); the last
 * column says where the value comes from in the kernel (or user space).
 * A tail (variable-length data after the fixed part) is a second list, in
 * record order, one row per member:
 *
 *	B(name, STR|STRV, schema blob index, its length field)
 *
 * From these lists come: the struct below (EV_STRUCT, shared by BPF and user
 * space), the schema the recorder writes and the record splitting
 * (record/schema.c), and the analyzer's generic readers (analyze/). The
 * event's schema version and flags are in EV_TYPES at the end of this file.
 * A new field is appended to the end of its list (never inserted): the
 * type's version in EV_TYPES goes up by one, and docs/EVENTS.md and
 * docs/FORMAT.md section 16 say so (docs/HACKING.md "Adding an event or a
 * field").
 */
#define EV_CT_U64 __u64
#define EV_CT_U32 __u32
#define EV_CT_U16 __u16
#define EV_CT_I32 __s32
#define EV_CT_I16 __s16
#define EV_CT_CHARS char
#define EV_CT_PAD16 __u16
#define EV_CT_PAD32 __u32
#define EV_DIM_U64
#define EV_DIM_U32
#define EV_DIM_U16
#define EV_DIM_I32
#define EV_DIM_I16
#define EV_DIM_CHARS [EV_COMM_LEN]
#define EV_DIM_PAD16
#define EV_DIM_PAD32
#define EV_MEMBER(ty, name, unit, src) EV_CT_##ty name EV_DIM_##ty;
#define EV_STRUCT(st, FIELDS)                                                                      \
	struct st {                                                                                \
		struct ev_hdr hdr;                                                                 \
		FIELDS(EV_MEMBER)                                                                  \
	}
#define EV_NO_TAIL(B)

/* EV_FORK flags */
#define EV_FORK_VFORK 0x1	 /* child shares the parent's mm (CLONE_VM: vfork, posix_spawn) */
#define EV_FORK_CLONE_PARENT 0x2 /* real parent is not the caller (CLONE_PARENT) */

/*
 * EV_FORK: tp_btf/sched_process_fork for a new thread group only (thread
 * creation is counted in EV_EXIT.threads, never emitted). No tail.
 */
#define EV_FORK_FIELDS(X)                                                                          \
	X(U32, parent_tgid, "", "child->real_parent->tgid: the fork-time parent")                  \
	X(U32, caller_tgid, "", "current->tgid (differs under CLONE_PARENT)")                      \
	X(U32, caller_pid, "", "current->pid: the thread that forked")                             \
	X(U32, child_tgid, "", "child->tgid (== child->pid for a new process)")                    \
	X(U64, child_start_ns, "ns", "child->start_boottime, CLOCK_BOOTTIME ns")                   \
	X(U32, child_ns_pid, "", "child's pid in its own pid namespace")                           \
	X(U32, flags, "", "EV_FORK_*")
EV_STRUCT(ev_fork, EV_FORK_FIELDS);

/* EV_EXEC flags */
#define EV_EXEC_ARGV_TRUNCATED 0x1 /* argv tail is a prefix of the real argv */
#define EV_EXEC_EXE_DELETED 0x2	   /* exe file was unlinked (d_unlinked) */
#define EV_EXEC_EXE_MEMFD 0x4	   /* exe is a memfd; exe tail holds "memfd:NAME" */
#define EV_EXEC_SCRIPT 0x8	   /* binfmt_script: script tail holds the script */
#define EV_EXEC_PATH_TRUNCATED 0x10 /* a path tail was cut at EV_PATH_MAX */
#define EV_EXEC_CWD_TRUNCATED 0x20 /* the cwd tail was cut: deeper than the walk or
				      longer than EV_PATH_MAX (a suffix is kept) */
#define EV_EXEC_ENV_TRUNCATED 0x40 /* --env: the environment was longer than the
				      window read (--env-max): variables after it
				      were not seen */

/*
 * EV_EXEC: tp_btf/sched_process_exec, after the new image is committed.
 * Tail (EV_EXEC_TAIL), in record order: filename (bprm->filename, as passed
 * by user space), exe (resolved absolute path of mm->exe_file), script (the
 * #! script when EV_EXEC_SCRIPT, else empty), cwd (appended field, see
 * cwd_len), argv (bytes mm->arg_start..arg_start+argv_len of the new mm), env
 * (appended). The cwd sits before argv in the record so every path lies
 * within the bounded offset window; in the .tz schema it is blob 4
 * (filename 0, exe 1, script 2, argv 3), env blob 5.
 *
 * Fields up to env_len are read by the analyzer's own code (analyze/
 * model_schema.c binds them by name). Fields appended after them go in
 * EV_EXEC_BYNAME: `export --format jsonl` prints each in every execs[] entry
 * under its schema name, as recorded (null when the trace or the image does
 * not know it), with no analyzer code of its own.
 */
#define EV_EXEC_FIELDS(X)                                                                          \
	X(U64, start_ns, "ns", "task->group_leader->start_boottime: process identity")             \
	X(U64, cgroup_id, "", "bpf_get_current_cgroup_id(), cgroup v2 id")                         \
	X(U32, tgid, "", "current->tgid after exec")                                               \
	X(U32, old_pid, "", "pid that called exec (a non-leader thread's tid)")                    \
	X(U32, ppid, "", "current->real_parent->tgid")                                             \
	X(U32, ns_pid, "", "tgid in the task's own pid namespace")                                 \
	X(U32, uid, "", "cred->uid after exec (setuid applied)")                                   \
	X(U32, euid, "", "cred->euid after exec (setuid applied)")                                 \
	X(U32, gid, "", "cred->gid after exec")                                                    \
	X(U32, egid, "", "cred->egid after exec")                                                  \
	X(U32, argc, "count", "bprm->argc: original argument count")                               \
	X(U32, argv_size, "bytes", "mm->arg_end - mm->arg_start: original argv bytes")             \
	X(U32, argv_len, "bytes", "argv bytes in the tail (<= argv_size, <= --argv-max)")          \
	X(U16, filename_len, "bytes", "bytes of filename in the tail")                             \
	X(U16, exe_len, "bytes", "bytes of exe in the tail")                                       \
	X(U16, script_len, "bytes", "bytes of script in the tail")                                 \
	X(PAD16, pad0, "", "")                                                                     \
	X(U32, flags, "", "EV_EXEC_*")                                                             \
	X(CHARS, comm, "", "task->comm after exec")                                                \
	/* Appended after recorder 0.3.0 (docs/FORMAT.md, version changes): the                    \
	 * CPU the process (thread group) used up to this exec, in all its                         \
	 * earlier images; the exit's utime_ns/stime_ns less these is the CPU of                   \
	 * the images from here on (a file without these fields in its schema                      \
	 * does not know the split). At sched_process_exec de_thread() has                         \
	 * released every other thread, so this is signal->utime/stime +                           \
	 * task->utime/stime scaled to signal->sum_sched_runtime +                                 \
	 * task->se.sum_exec_runtime (cputime_adjust_ro, as for ev_exit). */                       \
	X(U64, utime_ns, "ns", "user CPU ns before this exec")                                     \
	X(U64, stime_ns, "ns", "system CPU ns before this exec")                                   \
	/* Appended after recorder 0.3.x (issue 17; docs/FORMAT.md, version                        \
	 * changes). */                                                                            \
	X(U64, memcg_id, "", "on a host whose memory controller is mounted on cgroup v1 "          \
	  "(hybrid): cgroup->kn->id of task->cgroups->subsys[memory_cgrp_id], the task's v1 "      \
	  "memory cgroup (the inode number of its directory under the v1 memory mount); 0 "        \
	  "when memory is on v2 or not recorded")                                                  \
	X(U16, cwd_len, "bytes", "bytes of cwd in the tail: task->fs->pwd resolved like exe "      \
	  "(absolute, up to EV_PATH_MAX - 1 bytes, EV_EXEC_CWD_TRUNCATED when cut)")               \
	X(U16, env_len, "bytes", "bytes of env in the tail: with --env, the named variables "      \
	  "found in mm->env_start..env_end (read up to --env-max bytes, filtered by user "         \
	  "space), each \"NAME=VALUE\" followed by a NUL; 0 without")                              \
	X(PAD32, pad2, "", "")
/* Appended fields that export --format jsonl prints by name (see above):
 * add a new exec field here, at the end. */
#define EV_EXEC_BYNAME(X)                                                                          \
	/* Appended after recorder 0.3.x (docs/FORMAT.md, version changes):                        \
	 * the peak RSS of the images before this one. */                                          \
	X(U64, prev_maxrss_kib, "KiB", "peak RSS of the image this exec replaced: "                \
	  "get_mm_hiwater_rss() of the old mm (max(mm->hiwater_rss, the shared RSS counts)), "     \
	  "read at tp_btf/sched_prepare_exec (current->mm is still the old image there); 0 when "  \
	  "not read (no sched_prepare_exec on this kernel, or the process was not tracked "        \
	  "when it passed it)")                                                                    \
	X(U64, maxrss_before_kib, "KiB", "signal->maxrss (pages, times the page size) at "         \
	  "sched_process_exec: the process's peak RSS over all its images before this one, "       \
	  "the replaced one included (exec_mmap folds the old mm into it): getrusage() "           \
	  "RUSAGE_SELF ru_maxrss at that moment")
#define EV_EXEC_ALL(X) EV_EXEC_FIELDS(X) EV_EXEC_BYNAME(X)
#define EV_EXEC_TAIL(B)                                                                            \
	B(filename, STR, 0, filename_len)                                                          \
	B(exe, STR, 1, exe_len)                                                                    \
	B(script, STR, 2, script_len)                                                              \
	B(cwd, STR, 4, cwd_len)                                                                    \
	B(argv, STRV, 3, argv_len)                                                                 \
	B(env, STRV, 5, env_len)
EV_STRUCT(ev_exec, EV_EXEC_ALL);

/*
 * EV_EXEC_FAIL: an execve/execveat that returned an error (failed attempt,
 * never an image). Tail: filename as passed by user space.
 */
#define EV_EXEC_FAIL_FIELDS(X)                                                                     \
	X(U32, tgid, "", "current->tgid")                                                          \
	X(U32, pid, "", "current->pid")                                                            \
	X(I32, err, "errno", "positive errno (ENOENT, EACCES, ...)")                               \
	X(U16, filename_len, "bytes", "bytes of filename in the tail")                             \
	X(PAD16, pad0, "", "")
#define EV_EXEC_FAIL_TAIL(B) B(filename, STR, 0, filename_len)
EV_STRUCT(ev_exec_fail, EV_EXEC_FAIL_FIELDS);

/* EV_EXIT flags */
#define EV_EXIT_CORE_DUMPED 0x1 /* WCOREDUMP(status) */
#define EV_EXIT_SIGNALED 0x2	/* WIFSIGNALED(status) */
#define EV_EXIT_EXE_DELETED 0x4 /* the image's file was unlinked by exit time */
#define EV_EXIT_IO_FALLBACK 0x8 /* I/O is not per thread: the process was not
				   seen from its fork (start-up snapshot, -p, -a
				   pre-existing, map full); the I/O fields are
				   signal->ioac plus its threads' own, less what
				   its children added at their exits (the
				   fallback of docs/tracer-record.md) */

/*
 * EV_EXIT: tp_btf/sched_process_exit with group_dead set (the last thread of
 * the group). All counters are *self* (this process, every thread, never its
 * children), summed over the thread group. CPU, switches and faults:
 * signal_struct totals of threads already released plus each thread still on
 * signal->thread_head. I/O (a process tracked from its fork): the own
 * task->ioac of every thread, added at each thread's exit, never
 * signal->ioac (wait4() folds reaped children into it); else
 * EV_EXIT_IO_FALLBACK. No tail.
 */
#define EV_EXIT_FIELDS(X)                                                                          \
	X(U64, start_ns, "ns", "group_leader->start_boottime: process identity")                   \
	X(U64, utime_ns, "ns", "user CPU ns (signal->utime + each thread's utime, scaled "         \
	  "to the precise sum_exec_runtime like getrusage())")                                     \
	X(U64, stime_ns, "ns", "system CPU ns (same, from stime)")                                 \
	X(U64, maxrss_kib, "KiB", "peak RSS of the last image, KiB (mm->hiwater_rss / "            \
	  "rss_stat)")                                                                             \
	X(U64, rchar, "bytes", "bytes via read syscalls (task_io_accounting)")                     \
	X(U64, wchar, "bytes", "bytes via write syscalls (task_io_accounting)")                    \
	X(U64, syscr, "count", "read syscall count")                                               \
	X(U64, syscw, "count", "write syscall count")                                              \
	X(U64, read_bytes, "bytes", "bytes fetched from storage (ioac.read_bytes)")                \
	X(U64, write_bytes, "bytes", "bytes sent to storage (ioac.write_bytes)")                   \
	X(U64, cancelled_write_bytes, "bytes", "ioac.cancelled_write_bytes")                       \
	X(U64, nvcsw, "count", "voluntary context switches")                                       \
	X(U64, nivcsw, "count", "involuntary context switches")                                    \
	X(U64, min_flt, "count", "minor page faults")                                              \
	X(U64, maj_flt, "count", "major page faults")                                              \
	X(U32, tgid, "", "exiting thread group")                                                   \
	X(U32, pid, "", "the last thread's pid")                                                   \
	X(U32, ppid, "", "real_parent->tgid at exit (after any reparenting)")                      \
	X(U32, status, "", "raw wait status: (code & 0xff) << 8 | sig | 0x80 core")                \
	X(I32, exit_code, "", "WEXITSTATUS, or -1 when signaled")                                  \
	X(I32, signal, "", "WTERMSIG, or 0 when exited")                                           \
	X(U32, threads, "count", "threads ever in the group, main thread included: the "           \
	  "larger of the threads created by fork/clone and the threads that exited "               \
	  "(kernel-created ones, io_uring workers, pass no fork tracepoint)")                      \
	X(U32, flags, "", "EV_EXIT_*")                                                             \
	X(CHARS, comm, "", "group_leader->comm at exit (the process's name, also when the "        \
	  "last thread is a worker)")
EV_STRUCT(ev_exit, EV_EXIT_FIELDS);

/* EV_PROC_STATE flags */
#define EV_STATE_PRE_EXISTING 0x1 /* alive before recording started (snapshot) */
#define EV_STATE_KTHREAD 0x2	  /* kernel thread (PF_KTHREAD) */
#define EV_STATE_ARGV_TRUNCATED 0x4 /* argv tail is a prefix of the real argv.
				       Recorders before 0.1.1 set 0x1 for this,
				       the bit of EV_STATE_PRE_EXISTING: in their
				       files 0x1 reads as pre-existing only */
#define EV_STATE_EXITED 0x8	  /* with EV_STATE_PRE_EXISTING: it had already
				     exited when the start-up snapshot saw it (a
				     zombie its parent had not reaped: the group
				     leader's exit_state set, signal->live 0), so
				     its exit precedes the recording and no exit
				     event can follow. Older recorders never
				     set it (the zombie then reads as alive, or
				     as an exit lost once reaped) */

/*
 * EV_PROC_STATE: one living process. Written for the start-up snapshot
 * (pre-existing processes) and in .tz state blocks (every process alive when
 * the block was written), so a reader starting at any chunk knows them.
 * Tail, in order: exe, argv (like EV_EXEC).
 */
#define EV_PROC_STATE_FIELDS(X)                                                                    \
	X(U64, start_ns, "ns", "start_boottime, CLOCK_BOOTTIME ns")                                \
	X(U32, tgid, "", "process")                                                                \
	X(U32, ppid, "", "real_parent->tgid")                                                      \
	X(U32, uid, "", "cred uid")                                                                \
	X(U32, euid, "", "cred euid")                                                              \
	X(U32, ns_pid, "", "tgid in its own pid namespace")                                        \
	X(U32, argc, "count", "number of NUL-terminated strings in argv (may be cut)")             \
	X(U32, argv_size, "bytes", "original argv bytes")                                          \
	X(U32, argv_len, "bytes", "argv bytes in the tail")                                        \
	X(U16, exe_len, "bytes", "bytes of exe in the tail")                                       \
	X(PAD16, pad0, "", "")                                                                     \
	X(U32, flags, "", "EV_STATE_* (never EV_EXEC_*: their bits overlap)")                      \
	X(CHARS, comm, "", "task->comm")
#define EV_PROC_STATE_TAIL(B)                                                                      \
	B(exe, STR, 0, exe_len)                                                                    \
	B(argv, STRV, 1, argv_len)
EV_STRUCT(ev_proc_state, EV_PROC_STATE_FIELDS);

/*
 * Drop counter slots, one per cause (BPF per-CPU array index), declared once:
 *
 *	D(NAME, index, name, lost, incomplete, "what")
 *
 * gives enum ev_drop_slot (EV_DROP_NAME = index), the EV_DROPS schema field
 * `name` (record/schema.c), the metadata key "drops_<name>" and the
 * analyzer's table (analyze/dropslot.c): `lost` 1 when it counts in
 * summary's "total" (records, or a process's tracking, lost), `incomplete` 1
 * when a non-zero count makes the process tree incomplete ("TREE
 * INCOMPLETE"), "what" the words for text output and docs. Indexes are
 * stable forever and below EV_DROP_SLOTS.
 */
#define EV_DROP_SLOTS_DEF(D)                                                                       \
	D(FORK, 0, fork, 1, 1, "fork events (ring buffer full): processes seen without a fork")    \
	D(EXEC, 1, exec, 1, 1, "exec events (ring buffer full): images missing")                   \
	D(EXEC_FAIL, 2, exec_fail, 1, 1, "failed-exec events (ring buffer full)")                  \
	D(EXIT, 3, exit, 1, 1, "exit events (ring buffer full): exits and totals missing")         \
	/* a BPF hash map update failed (tracking lost) */                                         \
	D(MAP_FULL, 4, map_full, 1, 1, "processes not tracked (a BPF map was full)")               \
	/* argv could not be read: the exec record is kept, only its argv is empty */              \
	D(ARGV_FAULT, 5, argv_fault, 0, 0, "argvs unreadable (exec kept, argv empty)")             \
	/* ring buffer full on EV_OOM_KILL, EV_SIGNAL or EV_RELEASE: the tree is whole;            \
	 * OOM kills and signal senders may be missing */                                          \
	D(KEVENT, 6, kevent, 1, 0, "OOM-kill, signal and release events (ring buffer full)")

#define EV_DROP_ENUM(NAME, idx, name, lost, incomplete, what) EV_DROP_##NAME = idx,
#define EV_DROP_COUNT(NAME, idx, name, lost, incomplete, what) +1
enum ev_drop_slot {
	EV_DROP_SLOTS_DEF(EV_DROP_ENUM)
	EV_DROP_SLOTS = 8, /* capacity of EV_DROPS: slots defined are fewer */
};
/* How many slots EV_DROP_SLOTS_DEF defines (a constant expression). */
#define EV_DROP_NDEFINED (0 EV_DROP_SLOTS_DEF(EV_DROP_COUNT))

/*
 * EV_DROPS: cumulative counters since recording started, summed over CPUs,
 * written by user space periodically and at stop. No tail. Its schema fields
 * are the slots of EV_DROP_SLOTS_DEF, by name.
 */
struct ev_drops {
	struct ev_hdr hdr;
	__u64 count[EV_DROP_SLOTS]; /* indexed by enum ev_drop_slot */
};

/*
 * EV_SAMPLE: one process's resource use now, taken by the iter/task program
 * of bpf/sample.bpf.c every --sample-interval for every recorded process
 * older than one interval, written by user space only when a value changed
 * since the process's previous sample. Cumulative counters are self-only
 * like EV_EXIT (every thread, live and exited, never children). No tail.
 */
#define EV_SAMPLE_FIELDS(X)                                                                        \
	X(U64, start_ns, "ns", "group_leader->start_boottime: process identity")                   \
	X(U64, utime_ns, "ns", "cumulative user CPU ns (as EV_EXIT, scaled to runtime)")           \
	X(U64, stime_ns, "ns", "cumulative system CPU ns")                                         \
	X(U64, rss_anon_kib, "KiB", "mm->rss_stat[MM_ANONPAGES] now, KiB, as VmRSS and "           \
	  "hiwater_rss see it (shared count, get_mm_counter)")                                     \
	X(U64, rss_file_kib, "KiB", "mm->rss_stat[MM_FILEPAGES] now, KiB")                         \
	X(U64, rss_shmem_kib, "KiB", "mm->rss_stat[MM_SHMEMPAGES] now, KiB")                       \
	X(U64, rchar, "bytes", "cumulative bytes via read syscalls")                               \
	X(U64, wchar, "bytes", "cumulative bytes via write syscalls")                              \
	X(U64, read_bytes, "bytes", "cumulative bytes fetched from storage")                       \
	X(U64, write_bytes, "bytes", "cumulative bytes sent to storage")                           \
	X(U32, tgid, "", "process")                                                                \
	X(U32, threads, "count", "live threads now (signal->nr_threads)")
EV_STRUCT(ev_sample, EV_SAMPLE_FIELDS);

/* EV_HOST_SAMPLE flags */
#define EV_HOST_PSI 0x1	     /* /proc/pressure/{cpu,memory,io} were read */
#define EV_HOST_PSI_CPU_FULL 0x2 /* cpu has a "full" line (5.13+) */

/*
 * EV_HOST_SAMPLE: the machine now, from /proc in user space, every
 * --sample-interval. CPU times and byte counters are cumulative since boot
 * (differences between samples give rates). No tail.
 */
#define EV_HOST_SAMPLE_FIELDS(X)                                                                   \
	X(U64, cpu_user_ns, "ns", "/proc/stat cpu: user, ns (USER_HZ ticks scaled)")               \
	X(U64, cpu_nice_ns, "ns", "/proc/stat cpu: nice")                                          \
	X(U64, cpu_system_ns, "ns", "/proc/stat cpu: system")                                      \
	X(U64, cpu_idle_ns, "ns", "/proc/stat cpu: idle")                                          \
	X(U64, cpu_iowait_ns, "ns", "/proc/stat cpu: iowait")                                      \
	X(U64, cpu_irq_ns, "ns", "/proc/stat cpu: irq")                                            \
	X(U64, cpu_softirq_ns, "ns", "/proc/stat cpu: softirq")                                    \
	X(U64, cpu_steal_ns, "ns", "/proc/stat cpu: steal")                                        \
	X(U64, mem_total_kib, "KiB", "/proc/meminfo MemTotal")                                     \
	X(U64, mem_available_kib, "KiB", "/proc/meminfo MemAvailable")                             \
	X(U64, mem_used_kib, "KiB", "MemTotal - MemFree - Buffers - Cached - SReclaimable "        \
	  "(free(1))")                                                                             \
	X(U64, mem_cached_kib, "KiB", "Cached + SReclaimable")                                     \
	X(U64, mem_free_kib, "KiB", "MemFree")                                                     \
	X(U64, swap_used_kib, "KiB", "SwapTotal - SwapFree")                                       \
	X(U64, psi_cpu_some_us, "us", "/proc/pressure/cpu some total=")                            \
	X(U64, psi_cpu_full_us, "us", "/proc/pressure/cpu full total=")                            \
	X(U64, psi_mem_some_us, "us", "/proc/pressure/memory some total=")                         \
	X(U64, psi_mem_full_us, "us", "/proc/pressure/memory full total=")                         \
	X(U64, psi_io_some_us, "us", "/proc/pressure/io some total=")                              \
	X(U64, psi_io_full_us, "us", "/proc/pressure/io full total=")                              \
	X(U64, disk_read_bytes, "bytes", "/proc/diskstats sectors read * 512, whole disks "        \
	  "only")                                                                                  \
	X(U64, disk_write_bytes, "bytes", "sectors written * 512, whole disks only")               \
	X(U64, net_rx_bytes, "bytes", "/proc/net/dev receive bytes, every interface but lo")       \
	X(U64, net_tx_bytes, "bytes", "transmit bytes, every interface but lo")                    \
	X(U32, load1_milli, "1/1000", "/proc/loadavg 1 min x 1000")                                \
	X(U32, load5_milli, "1/1000", "/proc/loadavg 5 min x 1000")                                \
	X(U32, load15_milli, "1/1000", "/proc/loadavg 15 min x 1000")                              \
	X(U32, psi_cpu_some_avg10, "1/100 %", "/proc/pressure/cpu some avg10")                     \
	X(U32, psi_cpu_full_avg10, "1/100 %", "/proc/pressure/cpu full avg10")                     \
	X(U32, psi_mem_some_avg10, "1/100 %", "/proc/pressure/memory some avg10")                  \
	X(U32, psi_mem_full_avg10, "1/100 %", "/proc/pressure/memory full avg10")                  \
	X(U32, psi_io_some_avg10, "1/100 %", "/proc/pressure/io some avg10")                       \
	X(U32, psi_io_full_avg10, "1/100 %", "/proc/pressure/io full avg10")                       \
	X(U32, nr_running, "count", "/proc/loadavg runnable entities now")                         \
	X(U32, ncpus, "count", "online CPUs (sysconf)")                                            \
	X(U32, flags, "", "EV_HOST_*")
EV_STRUCT(ev_host_sample, EV_HOST_SAMPLE_FIELDS);

/*
 * EV_OOM_KILL: tp_btf/mark_victim, the OOM killer chose this process (a
 * recorded one). Values at the moment of the choice. No tail.
 */
#define EV_OOM_KILL_FIELDS(X)                                                                      \
	X(U64, start_ns, "ns", "victim group_leader->start_boottime")                              \
	X(U64, memcg_id, "", "victim's memory cgroup: cgroup->kn->id of its memory css (the "      \
	  "cgroup v2 id when memory is on the v2 hierarchy)")                                      \
	X(U64, total_vm_kib, "KiB", "mm->total_vm, KiB")                                           \
	X(U64, rss_anon_kib, "KiB", "mm->rss_stat[MM_ANONPAGES], KiB (percpu_counter count)")      \
	X(U64, rss_file_kib, "KiB", "MM_FILEPAGES, KiB")                                           \
	X(U64, rss_shmem_kib, "KiB", "MM_SHMEMPAGES, KiB")                                         \
	X(U32, tgid, "", "victim process")                                                         \
	X(U32, pid, "", "victim thread chosen")                                                    \
	X(U32, trigger_tgid, "", "current->tgid: whose allocation ran the OOM killer")             \
	X(U32, trigger_pid, "", "current->pid")                                                    \
	X(U32, uid, "", "victim's uid (tracepoint argument)")                                      \
	X(I16, oom_score_adj, "", "victim signal->oom_score_adj")                                  \
	X(PAD16, pad0, "", "")                                                                     \
	X(CHARS, comm, "", "victim comm")
EV_STRUCT(ev_oom_kill, EV_OOM_KILL_FIELDS);

/* EV_SIGNAL flags */
#define EV_SIGNAL_GROUP 0x1  /* sent to the whole thread group (kill, not tgkill) */
#define EV_SIGNAL_KERNEL 0x2 /* sent by the kernel (SEND_SIG_PRIV / SI_KERNEL /
				si_code > 0: a fault, the OOM killer...); sender is
				the task that was running */
#define EV_SIGNAL_NOINFO 0x4 /* sent by kernel code with SEND_SIG_NOINFO
				(send_sig(sig, task, 0): SIGPIPE of a write to a
				broken pipe, SIGXFSZ past RLIMIT_FSIZE, the parent
				death signal): the target's siginfo says SI_USER
				from the running task, but no process asked; set
				with EV_SIGNAL_KERNEL. Older recorders wrote these
				as code 0 without a flag */

/*
 * EV_SIGNAL: tp_btf/signal_generate of a signal whose default action kills
 * (SIGKILL, or any terminating/core-dumping signal whose handler is SIG_DFL)
 * to a recorded process, and queued (result DELIVERED or LOSE_INFO). The
 * analyzer names the sender of the one that matches the exit signal. No tail.
 */
#define EV_SIGNAL_FIELDS(X)                                                                        \
	X(U64, target_start_ns, "ns", "target group_leader->start_boottime")                       \
	X(U64, sender_start_ns, "ns", "current->group_leader->start_boottime")                     \
	X(U32, target_tgid, "", "receiving process")                                               \
	X(U32, target_pid, "", "receiving thread")                                                 \
	X(U32, sender_tgid, "", "current: the sending process")                                    \
	X(U32, sender_pid, "", "current: the sending thread")                                      \
	X(I32, sig, "", "signal number")                                                           \
	X(I32, code, "", "siginfo si_code (SI_USER 0, SI_KERNEL 0x80, ...)")                       \
	X(U32, sender_uid, "", "current's cred uid")                                               \
	X(U32, flags, "", "EV_SIGNAL_*")                                                           \
	X(CHARS, sender_comm, "", "current->comm")
EV_STRUCT(ev_signal, EV_SIGNAL_FIELDS);

/*
 * EV_RELEASE: tp_btf/sched_process_free of a thread-group leader whose
 * process has an EV_EXIT in this trace: its task_struct is freed after the
 * reap (or the kernel's auto-reap) and after its final context switch, so
 * its CPU and switches are final, the figures wait4() reported, including
 * what the exit path spent after EV_EXIT (tearing down the address space,
 * closing files). Self only, like EV_EXIT: the signal_struct totals, to
 * which __exit_signal() added every thread as it was released, the leader
 * last; CPU scaled to the precise runtime as for EV_EXIT. A process not
 * freed while recording has none: its EV_EXIT figures stand. No tail.
 */
#define EV_RELEASE_FIELDS(X)                                                                       \
	X(U64, start_ns, "ns", "group_leader->start_boottime: process identity")                   \
	X(U64, utime_ns, "ns", "user CPU ns (signal->utime, scaled to "                            \
	  "signal->sum_sched_runtime)")                                                            \
	X(U64, stime_ns, "ns", "system CPU ns (same, from stime)")                                 \
	X(U64, nvcsw, "count", "voluntary context switches (signal->nvcsw)")                       \
	X(U64, nivcsw, "count", "involuntary context switches (signal->nivcsw)")                   \
	X(U64, min_flt, "count", "minor page faults (signal->min_flt)")                            \
	X(U64, maj_flt, "count", "major page faults (signal->maj_flt)")                            \
	X(U32, tgid, "", "the process")                                                            \
	X(U32, flags, "", "none defined: 0")
EV_STRUCT(ev_release, EV_RELEASE_FIELDS);

/* EV_CGROUP hierarchies */
#define EV_CG_V2 0	  /* the unified (v2) hierarchy: ids as ev_exec.cgroup_id */
#define EV_CG_V1_MEMORY 1 /* the v1 memory hierarchy: ids as ev_exec.memcg_id */
#define EV_CG_V1_CPU 2	  /* the v1 cpu hierarchy (limits only, by path) */

/* EV_CGROUP flags */
#define EV_CGROUP_UNRESOLVED 0x1     /* no directory with this id was found in the
					hierarchy's mount (removed before the look-up):
					path is empty, limits 0 */
#define EV_CGROUP_PATH_TRUNCATED 0x2 /* path cut at EV_PATH_MAX - 1 bytes */

/*
 * EV_CGROUP: one cgroup that an exec or state event of the trace names,
 * written by user space once per (hier, id), the first time the id is seen
 * (record/cgtable.c: the hierarchy's mount is walked, directory inode number =
 * kernfs node id, and re-walked on a miss). Limits as the kernel enforced them
 * when the id was looked up, from the cgroup's own files (not its ancestors').
 * Tail: path, inside the hierarchy's mount, "/" for its root.
 */
#define EV_CGROUP_FIELDS(X)                                                                        \
	X(U64, id, "", "kernfs node id (cgroup->kn->id = directory inode)")                        \
	X(U64, mem_limit_bytes, "bytes", "v2 memory.max, v1 memory.limit_in_bytes; 0 = none "      \
	  "(\"max\", or v1's PAGE_COUNTER_MAX) or unknown")                                        \
	X(U64, cpu_quota_us, "us", "v2 cpu.max quota, v1 cpu.cfs_quota_us; 0 = none")              \
	X(U64, cpu_period_us, "us", "v2 cpu.max period, v1 cpu.cfs_period_us; 0 with no "          \
	  "quota")                                                                                 \
	X(U32, hier, "", "EV_CG_*")                                                                \
	X(U32, flags, "", "EV_CGROUP_*")                                                           \
	X(U16, path_len, "bytes", "bytes of path in the tail")                                     \
	X(PAD16, pad0, "", "")                                                                     \
	X(PAD32, pad1, "", "")
#define EV_CGROUP_TAIL(B) B(path, STR, 0, path_len)
EV_STRUCT(ev_cgroup, EV_CGROUP_FIELDS);

/* EV_ATTACH flags */
#define EV_ATTACH_TRUNCATED 0x1 /* data is the file's first data_len bytes only
				   (per-file or total bound, --attach-max) */
#define EV_ATTACH_REDACTED 0x2	/* --redact rewrote data (docs/tracer-record.md) */

/*
 * EV_ATTACH: a file the recorder embedded when it stopped (a workflow
 * manager's records: Snakemake .snakemake/metadata, Nextflow .command.run
 * headers, trace.txt; docs/tracer-record.md "Attachments"), written by user
 * space. Tail: name (the file's absolute path on the recording host), data
 * (its bytes, read once at the stop).
 */
#define EV_ATTACH_FIELDS(X)                                                                        \
	X(U64, mtime_ns, "ns", "the file's st_mtim, CLOCK_REALTIME ns")                            \
	X(U64, size, "bytes", "the file's st_size when read, bytes")                               \
	X(U32, data_len, "bytes", "bytes of data in the tail (<= size unless it grew)")            \
	X(U32, flags, "", "EV_ATTACH_*")                                                           \
	X(U16, name_len, "bytes", "bytes of name in the tail")                                     \
	X(PAD16, pad0, "", "")                                                                     \
	X(PAD32, pad1, "", "")
#define EV_ATTACH_TAIL(B)                                                                          \
	B(name, STR, 0, name_len)                                                                  \
	B(data, STR, 1, data_len)
EV_STRUCT(ev_attach, EV_ATTACH_FIELDS);

/*
 * Every event type the recorder writes, in schema order:
 *
 *	T(EV_ID, schema version, name, struct, FIELDS, TAIL, EVENT|STATE)
 *
 * The version goes up by one each time fields are appended (docs/FORMAT.md
 * section 15); STATE: the type may appear in .tz state blocks. EV_DROPS has
 * its fields from EV_DROP_SLOTS_DEF (record/schema.c).
 */
#define EV_TYPES(T)                                                                                \
	T(EV_FORK, 1, fork, ev_fork, EV_FORK_FIELDS, EV_NO_TAIL, EVENT)                            \
	T(EV_EXEC, 3, exec, ev_exec, EV_EXEC_ALL, EV_EXEC_TAIL, EVENT)                             \
	T(EV_EXEC_FAIL, 1, exec_fail, ev_exec_fail, EV_EXEC_FAIL_FIELDS, EV_EXEC_FAIL_TAIL,        \
	  EVENT)                                                                                   \
	T(EV_EXIT, 1, exit, ev_exit, EV_EXIT_FIELDS, EV_NO_TAIL, EVENT)                            \
	T(EV_PROC_STATE, 1, proc_state, ev_proc_state, EV_PROC_STATE_FIELDS,                       \
	  EV_PROC_STATE_TAIL, STATE)                                                               \
	T(EV_DROPS, 2, drops, ev_drops, EV_NO_FIELDS, EV_NO_TAIL, EVENT)                           \
	T(EV_SAMPLE, 1, sample, ev_sample, EV_SAMPLE_FIELDS, EV_NO_TAIL, EVENT)                    \
	T(EV_HOST_SAMPLE, 1, host_sample, ev_host_sample, EV_HOST_SAMPLE_FIELDS, EV_NO_TAIL,       \
	  EVENT)                                                                                   \
	T(EV_OOM_KILL, 1, oom_kill, ev_oom_kill, EV_OOM_KILL_FIELDS, EV_NO_TAIL, EVENT)            \
	T(EV_SIGNAL, 1, signal, ev_signal, EV_SIGNAL_FIELDS, EV_NO_TAIL, EVENT)                    \
	T(EV_RELEASE, 1, release, ev_release, EV_RELEASE_FIELDS, EV_NO_TAIL, EVENT)                \
	T(EV_CGROUP, 1, cgroup, ev_cgroup, EV_CGROUP_FIELDS, EV_CGROUP_TAIL, STATE)                \
	T(EV_ATTACH, 1, attach, ev_attach, EV_ATTACH_FIELDS, EV_ATTACH_TAIL, EVENT)
#define EV_NO_FIELDS(X)

#ifndef __BPF__
_Static_assert(sizeof(struct ev_cgroup) == 64, "ev_cgroup layout");
_Static_assert(sizeof(struct ev_attach) == 48, "ev_attach layout");
_Static_assert(sizeof(struct ev_hdr) == 16, "ev_hdr layout");
_Static_assert(sizeof(struct ev_release) == 80, "ev_release layout");
_Static_assert(sizeof(struct ev_fork) == 48, "ev_fork layout");
_Static_assert(sizeof(struct ev_exec) == 152, "ev_exec layout");
_Static_assert(sizeof(struct ev_exec_fail) == 32, "ev_exec_fail layout");
_Static_assert(sizeof(struct ev_exit) == 184, "ev_exit layout");
_Static_assert(sizeof(struct ev_proc_state) == 80, "ev_proc_state layout");
_Static_assert(sizeof(struct ev_drops) == 80, "ev_drops layout");
_Static_assert(sizeof(struct ev_sample) == 104, "ev_sample layout");
_Static_assert(sizeof(struct ev_host_sample) == 256, "ev_host_sample layout");
_Static_assert(sizeof(struct ev_oom_kill) == 104, "ev_oom_kill layout");
_Static_assert(sizeof(struct ev_signal) == 80, "ev_signal layout");
#endif

#endif /* TRACER_EVENTS_H */
