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

/* EV_FORK flags */
#define EV_FORK_VFORK 0x1	 /* child shares the parent's mm (CLONE_VM: vfork, posix_spawn) */
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
#define EV_EXEC_CWD_TRUNCATED 0x20 /* the cwd tail was cut: deeper than the walk or
				      longer than EV_PATH_MAX (a suffix is kept) */
#define EV_EXEC_ENV_TRUNCATED 0x40 /* --env: the environment was longer than the
				      window read (--env-max): variables after it
				      were not seen */

/*
 * EV_EXEC: tp_btf/sched_process_exec, after the new image is committed.
 * Tail, in order: filename[filename_len] (bprm->filename, as passed by user
 * space), exe[exe_len] (resolved absolute path of mm->exe_file),
 * script[script_len] (the #! script when EV_EXEC_SCRIPT, else empty),
 * cwd[cwd_len] (appended field, see below), argv[argv_len] (bytes
 * mm->arg_start..arg_start+argv_len of the new mm), env[env_len] (appended).
 * The cwd sits before argv in the record so every path lies within the
 * bounded offset window; in the .tz schema it is blob 4 (filename 0, exe 1,
 * script 2, argv 3), env blob 5.
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
	/* Appended after recorder 0.3.0 (docs/FORMAT.md, version changes): the
	 * CPU the process (thread group) used up to this exec, in all its
	 * earlier images; the exit's utime_ns/stime_ns less these is the CPU
	 * of the images from here on (a file without these fields in its
	 * schema does not know the split). At sched_process_exec de_thread()
	 * has released every other thread, so this is signal->utime/stime +
	 * task->utime/stime scaled to signal->sum_sched_runtime +
	 * task->se.sum_exec_runtime (cputime_scale, as for ev_exit). */
	__u64 utime_ns;	    /* user CPU ns before this exec */
	__u64 stime_ns;	    /* system CPU ns before this exec */
	/* Appended after recorder 0.3.x (issue 17; docs/FORMAT.md, version
	 * changes). */
	__u64 memcg_id;	    /* on a host whose memory controller is mounted on
			       cgroup v1 (hybrid): cgroup->kn->id of
			       task->cgroups->subsys[memory_cgrp_id], the task's v1
			       memory cgroup (the inode number of its directory
			       under the v1 memory mount); 0 when memory is on v2
			       or not recorded */
	__u16 cwd_len;	    /* bytes of cwd in the tail: task->fs->pwd resolved like
			       exe (absolute, up to EV_PATH_MAX - 1 bytes,
			       EV_EXEC_CWD_TRUNCATED when cut) */
	__u16 env_len;	    /* bytes of env in the tail: with --env, the named
			       variables found in mm->env_start..env_end (read
			       up to --env-max bytes, filtered by user space),
			       each "NAME=VALUE" followed by a NUL; 0 without */
	__u32 pad2;
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
	__u32 threads;	      /* threads ever in the group, main thread included:
				 the larger of the threads created by fork/clone
				 and the threads that exited (kernel-created ones,
				 io_uring workers, pass no fork tracepoint) */
	__u32 flags;	      /* EV_EXIT_* */
	char comm[EV_COMM_LEN]; /* group_leader->comm at exit (the process's
				   name, also when the last thread is a worker) */
};

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
	__u32 flags;	   /* EV_STATE_* (never EV_EXEC_*: their bits overlap) */
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
	EV_DROP_KEVENT = 6,    /* ring buffer full on EV_OOM_KILL, EV_SIGNAL or EV_RELEASE */
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

/*
 * EV_SAMPLE: one process's resource use now, taken by the iter/task program
 * of bpf/sample.bpf.c every --sample-interval for every recorded process
 * older than one interval, written by user space only when a value changed
 * since the process's previous sample. Cumulative counters are self-only
 * like EV_EXIT (every thread, live and exited, never children). No tail.
 */
struct ev_sample {
	struct ev_hdr hdr;
	__u64 start_ns;	      /* group_leader->start_boottime: process identity */
	__u64 utime_ns;	      /* cumulative user CPU ns (as EV_EXIT, scaled to runtime) */
	__u64 stime_ns;	      /* cumulative system CPU ns */
	__u64 rss_anon_kib;   /* mm->rss_stat[MM_ANONPAGES] now, KiB, as VmRSS and
				 hiwater_rss see it (shared count, get_mm_counter) */
	__u64 rss_file_kib;   /* mm->rss_stat[MM_FILEPAGES] now, KiB */
	__u64 rss_shmem_kib;  /* mm->rss_stat[MM_SHMEMPAGES] now, KiB */
	__u64 rchar, wchar;   /* cumulative bytes via read/write syscalls */
	__u64 read_bytes;     /* cumulative bytes fetched from storage */
	__u64 write_bytes;    /* cumulative bytes sent to storage */
	__u32 tgid;	      /* process */
	__u32 threads;	      /* live threads now (signal->nr_threads) */
};

/* EV_HOST_SAMPLE flags */
#define EV_HOST_PSI 0x1	     /* /proc/pressure/{cpu,memory,io} were read */
#define EV_HOST_PSI_CPU_FULL 0x2 /* cpu has a "full" line (5.13+) */

/*
 * EV_HOST_SAMPLE: the machine now, from /proc in user space, every
 * --sample-interval. CPU times and byte counters are cumulative since boot
 * (differences between samples give rates). No tail.
 */
struct ev_host_sample {
	struct ev_hdr hdr;
	__u64 cpu_user_ns;    /* /proc/stat cpu: user, ns (USER_HZ ticks scaled) */
	__u64 cpu_nice_ns;    /* nice */
	__u64 cpu_system_ns;  /* system */
	__u64 cpu_idle_ns;    /* idle */
	__u64 cpu_iowait_ns;  /* iowait */
	__u64 cpu_irq_ns;     /* irq */
	__u64 cpu_softirq_ns; /* softirq */
	__u64 cpu_steal_ns;   /* steal */
	__u64 mem_total_kib;  /* /proc/meminfo MemTotal */
	__u64 mem_available_kib; /* MemAvailable */
	__u64 mem_used_kib;   /* MemTotal - MemFree - Buffers - Cached - SReclaimable (free(1)) */
	__u64 mem_cached_kib; /* Cached + SReclaimable */
	__u64 mem_free_kib;   /* MemFree */
	__u64 swap_used_kib;  /* SwapTotal - SwapFree */
	__u64 psi_cpu_some_us, psi_cpu_full_us; /* /proc/pressure/cpu total= (us) */
	__u64 psi_mem_some_us, psi_mem_full_us; /* /proc/pressure/memory total= */
	__u64 psi_io_some_us, psi_io_full_us;	/* /proc/pressure/io total= */
	__u64 disk_read_bytes;	/* /proc/diskstats sectors read * 512, whole disks only */
	__u64 disk_write_bytes; /* sectors written * 512, whole disks only */
	__u64 net_rx_bytes;	/* /proc/net/dev receive bytes, every interface but lo */
	__u64 net_tx_bytes;	/* transmit bytes, every interface but lo */
	__u32 load1_milli, load5_milli, load15_milli; /* /proc/loadavg x 1000 */
	__u32 psi_cpu_some_avg10, psi_cpu_full_avg10; /* avg10 in 1/100 % */
	__u32 psi_mem_some_avg10, psi_mem_full_avg10;
	__u32 psi_io_some_avg10, psi_io_full_avg10;
	__u32 nr_running;     /* /proc/loadavg runnable entities now */
	__u32 ncpus;	      /* online CPUs (sysconf) */
	__u32 flags;	      /* EV_HOST_* */
};

/*
 * EV_OOM_KILL: tp_btf/mark_victim, the OOM killer chose this process (a
 * recorded one). Values at the moment of the choice. No tail.
 */
struct ev_oom_kill {
	struct ev_hdr hdr;
	__u64 start_ns;	      /* victim group_leader->start_boottime */
	__u64 memcg_id;	      /* victim's memory cgroup: cgroup->kn->id of its memory css
				 (the cgroup v2 id when memory is on the v2 hierarchy) */
	__u64 total_vm_kib;   /* mm->total_vm, KiB */
	__u64 rss_anon_kib;   /* mm->rss_stat[MM_ANONPAGES], KiB (percpu_counter count) */
	__u64 rss_file_kib;   /* MM_FILEPAGES, KiB */
	__u64 rss_shmem_kib;  /* MM_SHMEMPAGES, KiB */
	__u32 tgid;	      /* victim process */
	__u32 pid;	      /* victim thread chosen */
	__u32 trigger_tgid;   /* current->tgid: whose allocation ran the OOM killer */
	__u32 trigger_pid;    /* current->pid */
	__u32 uid;	      /* victim's uid (tracepoint argument) */
	__s16 oom_score_adj;  /* victim signal->oom_score_adj */
	__u16 pad0;
	char comm[EV_COMM_LEN]; /* victim comm */
};

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
struct ev_signal {
	struct ev_hdr hdr;
	__u64 target_start_ns; /* target group_leader->start_boottime */
	__u64 sender_start_ns; /* current->group_leader->start_boottime */
	__u32 target_tgid, target_pid; /* receiving process and thread */
	__u32 sender_tgid, sender_pid; /* current: the sending process and thread */
	__s32 sig;	       /* signal number */
	__s32 code;	       /* siginfo si_code (SI_USER 0, SI_KERNEL 0x80, ...) */
	__u32 sender_uid;      /* current's cred uid */
	__u32 flags;	       /* EV_SIGNAL_* */
	char sender_comm[EV_COMM_LEN];
};

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
struct ev_release {
	struct ev_hdr hdr;
	__u64 start_ns;	 /* group_leader->start_boottime: process identity */
	__u64 utime_ns;	 /* user CPU ns (signal->utime, scaled to
			    signal->sum_sched_runtime) */
	__u64 stime_ns;	 /* system CPU ns (same, from stime) */
	__u64 nvcsw, nivcsw; /* voluntary / involuntary context switches
				(signal->nvcsw, nivcsw) */
	__u64 min_flt, maj_flt; /* minor / major page faults (signal->min_flt, maj_flt) */
	__u32 tgid;	 /* the process */
	__u32 flags;	 /* none defined: 0 */
};

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
 * Tail: path[path_len], inside the hierarchy's mount, "/" for its root.
 */
struct ev_cgroup {
	struct ev_hdr hdr;
	__u64 id;		/* kernfs node id (cgroup->kn->id = directory inode) */
	__u64 mem_limit_bytes;	/* v2 memory.max, v1 memory.limit_in_bytes; 0 = none
				   ("max", or v1's PAGE_COUNTER_MAX) or unknown */
	__u64 cpu_quota_us;	/* v2 cpu.max quota, v1 cpu.cfs_quota_us; 0 = none */
	__u64 cpu_period_us;	/* v2 cpu.max period, v1 cpu.cfs_period_us; 0 with
				   no quota */
	__u32 hier;		/* EV_CG_* */
	__u32 flags;		/* EV_CGROUP_* */
	__u16 path_len;		/* bytes of path in the tail */
	__u16 pad0;
	__u32 pad1;
};

/* EV_ATTACH flags */
#define EV_ATTACH_TRUNCATED 0x1 /* data is the file's first data_len bytes only
				   (per-file or total bound, --attach-max) */
#define EV_ATTACH_REDACTED 0x2	/* --redact rewrote data (docs/tracer-record.md) */

/*
 * EV_ATTACH: a file the recorder embedded when it stopped (a workflow
 * manager's records: Snakemake .snakemake/metadata, Nextflow .command.run
 * headers, trace.txt; docs/tracer-record.md "Attachments"), written by user
 * space. Tail: name[name_len] (the file's absolute path on the recording
 * host), data[data_len] (its bytes, read once at the stop).
 */
struct ev_attach {
	struct ev_hdr hdr;
	__u64 mtime_ns;	  /* the file's st_mtim, CLOCK_REALTIME ns */
	__u64 size;	  /* the file's st_size when read, bytes */
	__u32 data_len;	  /* bytes of data in the tail (<= size unless it grew) */
	__u32 flags;	  /* EV_ATTACH_* */
	__u16 name_len;	  /* bytes of name in the tail */
	__u16 pad0;
	__u32 pad1;
};

#ifndef __BPF__
_Static_assert(sizeof(struct ev_cgroup) == 64, "ev_cgroup layout");
_Static_assert(sizeof(struct ev_attach) == 48, "ev_attach layout");
_Static_assert(sizeof(struct ev_hdr) == 16, "ev_hdr layout");
_Static_assert(sizeof(struct ev_release) == 80, "ev_release layout");
_Static_assert(sizeof(struct ev_fork) == 48, "ev_fork layout");
_Static_assert(sizeof(struct ev_exec) == 136, "ev_exec layout");
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
