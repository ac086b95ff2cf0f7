// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer.bpf.c - the recorder's BPF programs: fork, exec, exec failure and
 * thread-group exit, taken from tracepoints only (tp_btf and syscall
 * tracepoints), CO-RE, one BPF ring buffer. Layout: bpf/events.h.
 *
 * Filtering happens here: with filter_on, only thread groups in `tracked`
 * emit events; a fork by a tracked process tracks the child. Every failed
 * ring-buffer write and map update bumps a per-CPU counter (`drops`).
 *
 * Included in place: common.bpf.h (maps, drop accounting), cputime.bpf.h,
 * path.bpf.h (names and paths), exit.bpf.h (what handle_exit reads), and at
 * the end sample.bpf.c (the sampler, OOM kill and signal programs: one
 * object, one parse of the kernel's BTF at start-up).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "events.h"
#include "tracer.h"
#include "common.bpf.h" /* shared maps, drop_count, tracked_live, ev_hdr_fill */
#include "cputime.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load (rodata). */
const volatile bool filter_on = true;	     /* false: -a, every process */
/* true: `tracked` is an array indexed by tgid (user space chose it, see
 * TRACKED_ARRAY_MAX): no hashing, no bucket lock, lookups inlined */
const volatile bool by_index = false;
const volatile __u32 argv_max = EV_ARGV_MAX_DEFAULT; /* bytes of argv kept */
const volatile __u32 nr_cpus = 1;	     /* possible CPUs, for rss sums */
const volatile __u32 page_kib = 4;	     /* page size in KiB */
const volatile __u64 wake_bytes = 256 * 1024; /* wake user space above this */
/* bytes a CPU writes between two looks at the ring's fill level (0: every
 * record); user space keeps nr_cpus * wake_check well below the free space */
const volatile __u64 wake_check = 0;
/* the memory controller is mounted on cgroup v1 (hybrid host): exec events
 * carry the task's v1 memory cgroup id (user space decides at start-up) */
const volatile bool memcg_v1 = false;
/* --env: bytes of the new image's environment copied to user space, which
 * keeps the named variables (0: none read, the default) */
const volatile __u32 env_max = 0;


/* tgid -> start of a recorded process that exited and is not yet freed:
 * handle_free then writes its EV_RELEASE. LRU: an entry whose free was
 * never seen makes room (that process keeps its exit's figures). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32768);
} exited SEC(".maps");

/* One scratch record per CPU (too big for a per-CPU map value). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct scratch);
	__uint(max_entries, 1); /* set to the CPU count by user space */
} scratch SEC(".maps");

/* bytes this CPU wrote to rb since its last fill-level check (rb_flags) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} rb_acc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct fail_scratch);
	__uint(max_entries, 1);
} fail_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct snap_scratch);
	__uint(max_entries, 1);
} snap_scratch SEC(".maps");


static const __u32 zero;

/*
 * drop_count(slot), and: a full ring wakes no one (nothing was submitted),
 * so the next record this CPU writes looks at the fill level (rb_flags).
 * (Marked before counting: the same code size as one function body.)
 * Only this file's records are submitted with rb_flags; sample.bpf.c's
 * use the ring's default wake-up and count their drops alone.
 */
static __always_inline void drop(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&rb_acc, &zero);

	if (c)
		*c = ~0ull >> 1;
	drop_count(slot);
}

/* The CPU, switch and fault totals signal_struct holds for the threads
 * already released (EV_EXIT, EV_RELEASE: same field names). */
#define SIG_COUNTERS(e, sig)                                                               \
	do {                                                                               \
		(e)->utime_ns = (sig)->utime;                                              \
		(e)->stime_ns = (sig)->stime;                                              \
		(e)->nvcsw = (sig)->nvcsw;                                                 \
		(e)->nivcsw = (sig)->nivcsw;                                               \
		(e)->min_flt = (sig)->min_flt;                                             \
		(e)->maj_flt = (sig)->maj_flt;                                             \
	} while (0)

/*
 * Wake-up flags for a record of size bytes: user space drains at least once
 * a second anyway and is woken only when the ring holds wake_bytes, this record
 * included. The fill level (a helper call and the consumer's cache line) is
 * looked at once per wake_check bytes this CPU wrote, not per record, and
 * after a drop (drop()).
 */
static __always_inline __u64 rb_flags(__u32 size)
{
	__u64 *acc = bpf_map_lookup_elem(&rb_acc, &zero);

	if (acc) {
		*acc += size;
		if (*acc < wake_check)
			return BPF_RB_NO_WAKEUP;
		*acc = 0;
	}
	/* this record counted (bpf_ringbuf_output's is not in the ring yet) */
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + size >= wake_bytes ? BPF_RB_FORCE_WAKEUP
									      : BPF_RB_NO_WAKEUP;
}

static __always_inline struct scratch *get_scratch(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&scratch, &cpu);
}

/* Stop tracking tgid (t: its entry): an array slot is zeroed, flags first. */
static __always_inline void untrack(__u32 tgid, struct tracked *t)
{
	int i;

	if (!by_index) {
		bpf_map_delete_elem(&tracked, &tgid);
		return;
	}
	t->flags = 0;
	t->threads = 0;
	t->thread_exits = 0;
	for (i = 0; i < IO_N; i++)
		t->io[i] = 0;
}

/* pid of a task's thread group in the task's own pid namespace (direct
 * loads; a variable array index needs a helper read, so only nested
 * namespaces pay one) */
static __always_inline __u32 ns_tgid(struct task_struct *t)
{
	struct pid *p = t->signal->pids[PIDTYPE_TGID];
	unsigned int level = p->level;

	if (!level)
		return p->numbers[0].nr;
	return BPF_CORE_READ(p, numbers[level & 31].nr);
}

/* task->comm, as the kernel keeps it (NUL-padded by __set_task_comm): two
 * direct loads instead of a string helper */
static __always_inline void copy_comm(char *dst, struct task_struct *t)
{
	__u64 *d = (__u64 *)dst;

	d[0] = *(__u64 *)&t->comm[0];
	d[1] = *(__u64 *)&t->comm[8];
}

#include "path.bpf.h"

/*
 * A new thread of thread group child_tgid (tp: that group's entry, or
 * NULL): counted in tp->threads, never emitted. With -a (no filter) a group
 * seen for the first time gets an entry, whose thread count starts at
 * signal->nr_threads.
 */
static __always_inline void fork_thread(struct task_struct *child, __u32 child_tgid,
					struct tracked *tp)
{
	struct tracked nt = {};

	if (!tp && !filter_on && by_index) {
		/* claim a free (zeroed) slot: threads and flags in one
		 * 64-bit compare-and-swap (the union keeps their order
		 * on either byte order) */
		struct tracked *v = bpf_map_lookup_elem(&tracked, &child_tgid);
		union {
			struct {
				__u32 threads, flags;
			};
			__u64 w;
		} nw = {.threads = child->signal->nr_threads, .flags = TRACKED_LIVE};

		if (v && __sync_val_compare_and_swap((__u64 *)v, 0, nw.w) == 0)
			return;
		tp = tracked_live(child_tgid);
	} else if (!tp && !filter_on) {
		nt.threads = BPF_CORE_READ(child, signal, nr_threads);
		nt.flags = TRACKED_LIVE;
		if (bpf_map_update_elem(&tracked, &child_tgid, &nt, BPF_NOEXIST))
			tp = tracked_live(child_tgid);
	}
	if (tp)
		__sync_fetch_and_add(&tp->threads, 1);
}

/* Track a new process child_tgid from its fork (TRACKED_FROM_FORK, one
 * thread); a failure counts in EV_DROP_MAP_FULL. */
static __always_inline void track_child(__u32 child_tgid)
{
	struct tracked nt = {};

	if (by_index) {
		/* the child's slot, written in place (it runs only after this) */
		struct tracked *v = bpf_map_lookup_elem(&tracked, &child_tgid);
		int i;

		if (v) {
			v->threads = 1;
			v->thread_exits = 0;
			for (i = 0; i < IO_N; i++)
				v->io[i] = 0;
			v->flags = TRACKED_LIVE | TRACKED_FROM_FORK;
		} else {
			drop(EV_DROP_MAP_FULL); /* tgid >= pid_max at start */
		}
	} else {
		nt.threads = 1;
		nt.flags = TRACKED_LIVE | TRACKED_FROM_FORK;
		if (bpf_map_update_elem(&tracked, &child_tgid, &nt, BPF_ANY))
			drop(EV_DROP_MAP_FULL);
	}
}

/* A fork or clone by a recorded process: a new process is tracked from
 * here and gets an EV_FORK; a new thread is counted (fork_thread). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *tp_parent, struct task_struct *tp_child)
{
	struct task_struct *parent = UNTRUSTED(tp_parent, struct task_struct);
	struct task_struct *child = UNTRUSTED(tp_child, struct task_struct);
	__u32 caller_tgid = parent->tgid, child_tgid = child->tgid;
	struct tracked *tp = tracked_live(caller_tgid);
	struct ev_fork *e;

	if (child->pid != child_tgid) {
		fork_thread(child, child_tgid, tp);
		return 0;
	}
	if (filter_on && !tp)
		return 0;
	track_child(child_tgid);

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		drop(EV_DROP_FORK);
		return 0;
	}
	ev_hdr_fill(&e->hdr, EV_FORK, sizeof(*e));
	e->parent_tgid = child->real_parent->tgid;
	e->caller_tgid = caller_tgid;
	e->caller_pid = parent->pid;
	e->child_tgid = child_tgid;
	e->child_start_ns = child->start_boottime;
	e->child_ns_pid = ns_tgid(child);
	e->flags = e->parent_tgid != caller_tgid ? EV_FORK_CLONE_PARENT : 0;
	/* CLONE_VM without CLONE_THREAD: vfork, posix_spawn (clone_flags are
	 * gone by now, and vfork_done is set only after this tracepoint) */
	if (child->mm && child->mm == parent->mm)
		e->flags |= EV_FORK_VFORK;
	bpf_ringbuf_submit(e, rb_flags(sizeof(*e)));
	return 0;
}

/*
 * The fixed part of p's EV_EXEC record, the tail lengths and the flags
 * aside: identity, credentials, cgroup, argc and the CPU p's group used
 * before this exec. p is past de_thread(): the only thread of its group,
 * the others' time is in signal_struct.
 */
static __always_inline void exec_fixed(struct ev_exec *e, struct task_struct *p, __u32 tgid,
				       pid_t old_pid, struct linux_binprm *bprm)
{
	struct signal_struct *sig = p->signal;
	__u64 ut, st;

	ev_hdr_fill(&e->hdr, EV_EXEC, sizeof(*e)); /* size: the whole record, at the end */
	e->start_ns = p->group_leader->start_boottime;
	/* bpf_get_current_cgroup_id(): task_dfl_cgroup(current)->kn->id */
	e->cgroup_id = p->cgroups->dfl_cgrp->kn->id;
	e->tgid = tgid;
	e->old_pid = old_pid;
	e->ppid = p->real_parent->tgid;
	e->ns_pid = ns_tgid(p);
	e->uid = p->cred->uid.val;
	e->euid = p->cred->euid.val;
	e->gid = p->cred->gid.val;
	e->egid = p->cred->egid.val;
	e->argc = bprm->argc;
	e->pad0 = 0;
	copy_comm(e->comm, p);
	ut = sig->utime + p->utime;
	st = sig->stime + p->stime;
	cputime_adjust_sig(sig, sig->sum_sched_runtime + p->se.sum_exec_runtime, &ut, &st);
	e->utime_ns = ut;
	e->stime_ns = st;
}

/* The filename as passed (bprm->filename) to dst, which holds EV_PATH_MAX
 * bytes; returns its length, NUL excluded. */
static __always_inline __u32 exec_filename(char *dst, const char *fname)
{
	__u32 n = copy_str_direct(dst, (__u64)fname);

	if (n > FNAME_DIRECT_MAX) {
		long r = bpf_probe_read_kernel_str(dst, EV_PATH_MAX, fname);

		n = r > 0 ? r - 1 : 0;
	}
	return n;
}

/*
 * A #! script (the kernel replaced bprm->interp): the script's path at
 * s->rec + off, the filename made absolute with p's cwd when it was given
 * relative ("./" dropped). Returns its length; *flags gets EV_EXEC_SCRIPT,
 * and EV_EXEC_PATH_TRUNCATED when cwd and filename exceed EV_PATH_MAX - 1.
 */
static __always_inline __u32 exec_script(struct scratch *s, const struct ev_exec *e,
					 struct task_struct *p, __u64 off, __u32 *flags)
{
	char *fn = s->rec + sizeof(*e);
	__u32 fl = e->filename_len, skip = 0, pos, n = 0;

	*flags |= EV_EXEC_SCRIPT;
	if (fl && fn[0] != '/') {
		struct fs_struct *fs = p->fs;
		__u32 f2 = 0;

		pos = resolve_path(fs->pwd.dentry, fs->pwd.mnt, s->path, &f2);
		n = copy_path(s->rec + (off & OFF_MASK), s->path, pos);
		if (n > 1) {
			s->rec[(off + n) & OFF_MASK] = '/';
			n++;
		}
		if (fl > 2 && fn[0] == '.' && fn[1] == '/')
			skip = 2;
	}
	off += n;
	fl -= skip;
	if (n + fl > EV_PATH_MAX - 1) {
		*flags |= EV_EXEC_PATH_TRUNCATED;
		fl = n < EV_PATH_MAX - 1 ? EV_PATH_MAX - 1 - n : 0;
	}
	barrier_var(fl);
	fl &= EV_PATH_MAX - 1;
	bpf_probe_read_kernel(s->rec + (off & OFF_MASK), fl, fn + (skip & 3));
	return n + fl;
}

/* p's working directory at s->rec + off, resolved like exe; returns its
 * length. A path cut by the window or the walk's bound sets
 * EV_EXEC_CWD_TRUNCATED in *flags. */
static __always_inline __u32 exec_cwd(struct scratch *s, struct task_struct *p, __u64 off,
				      __u32 *flags)
{
	struct fs_struct *fs = p->fs;
	__u32 f2 = 0, pos, n;

	pos = resolve_path(fs->pwd.dentry, fs->pwd.mnt, s->path, &f2);
	n = copy_path(s->rec + (off & OFF_MASK), s->path, pos);
	if (f2 & EV_EXEC_PATH_TRUNCATED)
		*flags |= EV_EXEC_CWD_TRUNCATED;
	return n;
}

/* with memcg_v1: p's v1 memory cgroup id
 * (task->cgroups->subsys[memory_cgrp_id]->cgroup->kn->id), else 0 */
static __always_inline __u64 exec_memcg(struct task_struct *p)
{
	struct cgroup_subsys_state *css;

	if (!memcg_v1)
		return 0;
	css = p->cgroups->subsys[bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id)];
	return css ? css->cgroup->kn->id : 0;
}

/*
 * argv of the new image (mm->arg_start..arg_end, user memory) at s->rec +
 * off, at most argv_max bytes (EV_EXEC_ARGV_TRUNCATED in *flags when cut).
 * Sets e->argv_size (the whole argv) and e->argv_len (bytes copied: 0 when
 * the read faults, counted in EV_DROP_ARGV_FAULT); returns argv_len.
 */
static __always_inline __u64 exec_argv(struct scratch *s, struct ev_exec *e, struct mm_struct *mm,
				       __u64 off, __u32 *flags)
{
	__u32 asz = 0;
	__u64 alen = 0;

	if (mm) {
		unsigned long as = mm->arg_start, ae = mm->arg_end;

		asz = ae > as ? ae - as : 0;
		alen = asz;
		if (alen > argv_max) {
			alen = argv_max;
			*flags |= EV_EXEC_ARGV_TRUNCATED;
		}
		barrier_var(alen);
		if (alen > EV_ARGV_MAX_LIMIT)
			alen = 0;
		if (alen && bpf_probe_read_user(s->rec + (off & OFF_MASK), alen, (void *)as)) {
			drop(EV_DROP_ARGV_FAULT);
			alen = 0;
		}
	}
	e->argv_size = asz;
	e->argv_len = alen;
	return alen;
}

/*
 * --env: a window of env_max bytes of the new image's environment
 * (mm->env_start..env_end) at s->rec + off, filtered in user space
 * (EV_EXEC_ENV_TRUNCATED in *flags when cut). Sets and returns e->env_len
 * (0 when off, or the read faults).
 */
static __always_inline __u64 exec_env(struct scratch *s, struct ev_exec *e, struct mm_struct *mm,
				      __u64 off, __u32 *flags)
{
	unsigned long es, ee;
	__u64 el, eo = off;

	e->env_len = 0;
	if (!env_max || !mm)
		return 0;
	es = mm->env_start;
	ee = mm->env_end;
	el = ee > es ? ee - es : 0;
	if (el > env_max) {
		el = env_max;
		*flags |= EV_EXEC_ENV_TRUNCATED;
	}
	barrier_var(el);
	barrier_var(eo);
	if (el <= EV_ENV_MAX_LIMIT && eo <= OFF_MASK + EV_ARGV_MAX_LIMIT && el &&
	    bpf_probe_read_user(s->rec + eo, el, (void *)es) == 0) {
		e->env_len = el;
		return el;
	}
	return 0;
}

/*
 * off, passed through s's memory: the verifier then knows it only as a u64
 * (each use masks it), no longer as the constant or range one branch of the
 * tail copies before left. Without it every branch of every copy (direct or
 * helper, each length class of copy_str_direct and copy_path) is explored
 * with every branch after it: 227,781 instructions verified for handle_exec,
 * about 1.4 s of CPU at each recorder start. The value is unchanged.
 */
static __always_inline __u64 forget_off(struct scratch *s, __u64 off)
{
	*(volatile __u64 *)&s->off = off;
	return *(volatile __u64 *)&s->off;
}

/*
 * One EV_EXEC per successful exec of a recorded process, built in this
 * CPU's scratch: the fixed part, then the tails filename, exe, script, cwd,
 * argv and env (bpf/events.h), copied to the ring sized to its content.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *tp_p, pid_t old_pid, struct linux_binprm *tp_bprm)
{
	struct task_struct *p = UNTRUSTED(tp_p, struct task_struct);
	struct linux_binprm *bprm = UNTRUSTED(tp_bprm, struct linux_binprm);
	__u32 tgid = p->tgid, flags = 0, pos, n;
	__u64 off;
	struct mm_struct *mm = p->mm;
	struct tracked *tp = tracked_live(tgid);
	struct ev_exec *e;
	struct scratch *s;
	struct file *f;

	if (filter_on && !tp)
		return 0;
	s = get_scratch();
	if (!s)
		return 0;
	e = (struct ev_exec *)s->rec;
	exec_fixed(e, p, tgid, old_pid, bprm);

	off = sizeof(*e);
	n = exec_filename(s->rec + off, bprm->filename);
	e->filename_len = n;
	off = forget_off(s, off + (n & (EV_PATH_MAX - 1)));

	/* resolved executable */
	f = bprm->file;
	pos = resolve_path(f->f_path.dentry, f->f_path.mnt, s->path, &flags);
	n = copy_path(s->rec + (off & OFF_MASK), s->path, pos);
	e->exe_len = n;
	off = forget_off(s, off + n);

	n = 0;
	if (bprm->interp != bprm->filename)
		n = exec_script(s, e, p, off, &flags);
	e->script_len = n;
	off = forget_off(s, off + n);

	n = exec_cwd(s, p, off, &flags);
	e->cwd_len = n;
	off = forget_off(s, off + n);
	e->memcg_id = exec_memcg(p);
	e->pad2 = 0;
	/* the replaced image's peak (handle_prepare_exec), taken once */
	e->prev_maxrss_kib = 0;
	if (tp) {
		e->prev_maxrss_kib = (__u64)tp->exec_rss_pages * page_kib;
		tp->exec_rss_pages = 0;
	}
	e->maxrss_before_kib = p->signal->maxrss * page_kib;

	off += exec_argv(s, e, mm, off, &flags);
	off += exec_env(s, e, mm, off, &flags);
	e->flags = flags;
	e->hdr.size = off;
	barrier_var(off);
	if (off > REC_SIZE)
		return 0;
	if (bpf_ringbuf_output(&rb, s->rec, off, rb_flags(off)))
		drop(EV_DROP_EXEC);
	return 0;
}

#include "exit.bpf.h"

/*
 * An exec of a recorded process passed its point of no return; current->mm
 * is still the image it replaces. Its peak RSS in pages goes in the group's
 * `tracked` entry for handle_exec's EV_EXEC (prev_maxrss_kib): the kernel's
 * own figure, get_mm_hiwater_rss() (max(mm->hiwater_rss, the shared RSS
 * counts, each at least 0)), which exec_mmap() folds into signal->maxrss a
 * moment later; the per-CPU deltas are left out, as the kernel leaves them
 * (reading them cost 2-3 times this program's time). One exec of a group at
 * a time passes here (cred_guard_mutex), so the entry's one slot is enough.
 * Loaded only where the kernel has the tracepoint (6.10+).
 */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(handle_prepare_exec, struct task_struct *tp_p, struct linux_binprm *tp_bprm)
{
	struct task_struct *p = UNTRUSTED(tp_p, struct task_struct);
	struct tracked *tp = tracked_live(p->tgid);
	struct mm_struct *mm;
	__u64 hw, rss = 0;
	__s64 c;

	if (!tp)
		return 0;
	mm = p->mm;
	if (!mm)
		return 0;
	/* get_mm_rss(): percpu_counter_read_positive() of each */
	c = mm->rss_stat[MM_FILEPAGES].count;
	rss += c > 0 ? c : 0;
	c = mm->rss_stat[MM_ANONPAGES].count;
	rss += c > 0 ? c : 0;
	c = mm->rss_stat[MM_SHMEMPAGES].count;
	rss += c > 0 ? c : 0;
	hw = mm->hiwater_rss;
	if (rss > hw)
		hw = rss;
	tp->exec_rss_pages = hw < 0xffffffffu ? hw : 0xffffffffu;
	return 0;
}

/*
 * A thread of a recorded process exits. Not the last (not group_dead): the
 * group's counts only (thread_exit). The last: one EV_EXIT with the
 * process's status, CPU, I/O, peak RSS and thread count; the process is
 * untracked and left in `exited` for its release (handle_free).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *tp_p, bool group_dead)
{
	struct task_struct *p = UNTRUSTED(tp_p, struct task_struct);
	__u32 tgid = p->tgid, threads = 1, exits = 1;
	struct signal_struct *sig = p->signal;
	struct task_struct *leader = p->group_leader;
	struct tracked *tp;
	struct ev_exit *e;
	__u64 rt, own[IO_N] = {}, all[IO_N] = {};
	int exact;

	tp = tracked_live(tgid);
	if (!group_dead) {
		if (tp)
			thread_exit(p, tp);
		return 0;
	}
	if (filter_on && !tp)
		return 0;
	exact = tp && (tp->flags & TRACKED_FROM_FORK);

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		drop(EV_DROP_EXIT);
		if (tp)
			untrack(tgid, tp);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	ev_hdr_fill(&e->hdr, EV_EXIT, sizeof(*e));
	e->start_ns = leader->start_boottime;
	e->tgid = tgid;
	e->pid = p->pid;
	e->ppid = p->real_parent->tgid;
	exit_status(e, sig, leader);

	/* CPU: threads already released live in signal_struct, the others
	 * are on its list */
	SIG_COUNTERS(e, sig);
	rt = sig->sum_sched_runtime;
	rt += exit_walk_threads(e, p, sig, exact, own, all, &exits);
	cputime_adjust_sig(sig, rt, &e->utime_ns, &e->stime_ns);
	exit_io(e, tp, sig, exact, own, all, &exits);
	/* a parent tracked by the fallback learns what it will fold in */
	if (e->ppid != tgid) {
		struct tracked *pp = tracked_live(e->ppid);

		if (pp && !(pp->flags & (TRACKED_FROM_FORK | TRACKED_PARENT_ONLY))) {
			if (exact) {
				/* signal->ioac plus the threads this exit
				 * counted (all[]) */
				add_ioac_direct(all, &sig->ioac);
			}
			fallback_parent(p, pp, all);
		}
	}
	exit_maxrss(e, p, sig);
	/* fork-created threads, or every thread that exited (kernel-created
	 * ones such as io_uring workers pass no fork tracepoint) */
	if (tp)
		threads = tp->threads;
	e->threads = exits > threads ? exits : threads;
	/* the process's name, even when its last thread is a worker
	 * ("iou-wrk-N") or renamed itself */
	copy_comm(e->comm, leader);
	bpf_ringbuf_submit(e, rb_flags(sizeof(*e)));
	if (tp)
		untrack(tgid, tp);
	/* its release (handle_free) gives the final figures */
	{
		__u64 start = leader->start_boottime;

		bpf_map_update_elem(&exited, &tgid, &start, BPF_ANY);
	}
	return 0;
}

/* ------------------------------------------------------------ release */

/*
 * The task_struct of a thread-group leader whose exit was recorded is
 * freed: after its reap and its final context switch, so its CPU and
 * switches are final (what wait4() reported), the exit path's included.
 * __exit_signal() has added every thread's counters to signal_struct by
 * then, the leader's too (kernel/exit.c: "Accumulate here the counters for
 * all threads as they die").
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(handle_free, struct task_struct *tp_p)
{
	struct task_struct *p = UNTRUSTED(tp_p, struct task_struct);
	__u32 tgid = p->tgid;
	struct signal_struct *sig;
	struct ev_release *e;
	__u64 *start, rt;

	if (p->pid != tgid)
		return 0; /* a thread, or the old leader an exec replaced */
	start = bpf_map_lookup_elem(&exited, &tgid);
	if (!start)
		return 0;
	if (*start != p->start_boottime) {
		/* an entry whose release was missed (evicted, never seen) */
		bpf_map_delete_elem(&exited, &tgid);
		return 0;
	}
	bpf_map_delete_elem(&exited, &tgid);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		drop(EV_DROP_KEVENT);
		return 0;
	}
	sig = p->signal;
	ev_hdr_fill(&e->hdr, EV_RELEASE, sizeof(*e));
	e->start_ns = p->start_boottime;
	SIG_COUNTERS(e, sig);
	e->tgid = tgid;
	e->flags = 0;
	rt = sig->sum_sched_runtime;
	cputime_adjust_sig(sig, rt, &e->utime_ns, &e->stime_ns);
	bpf_ringbuf_submit(e, rb_flags(sizeof(*e)));
	return 0;
}

/* ------------------------------------------------------------ exec failures */

/*
 * A failed execve/execveat: the filename pointer is still in the syscall's
 * saved user registers at exit, so no entry program or map is needed.
 */
static __always_inline int exec_fail(long ret, const char *uptr)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct ev_exec_fail *e;
	struct fail_scratch *s;
	long n;

	if (ret >= 0 || (filter_on && !tracked_live(tgid)))
		return 0;
	s = bpf_map_lookup_elem(&fail_scratch, &zero);
	if (!s)
		return 0;
	e = (struct ev_exec_fail *)s->rec;
	ev_hdr_fill(&e->hdr, EV_EXEC_FAIL, sizeof(*e)); /* size: the whole record, below */
	e->tgid = tgid;
	e->pid = tid;
	e->err = -ret;
	e->pad0 = 0;
	n = bpf_probe_read_user_str(s->rec + sizeof(*e), EV_PATH_MAX, uptr);
	n = n > 0 ? n - 1 : 0;
	e->filename_len = n;
	e->hdr.size = sizeof(*e) + (n & (EV_PATH_MAX - 1));
	if (bpf_ringbuf_output(&rb, s->rec, sizeof(*e) + (n & (EV_PATH_MAX - 1)),
			       rb_flags(sizeof(*e) + (n & (EV_PATH_MAX - 1)))))
		drop(EV_DROP_EXEC_FAIL);
	return 0;
}

/* syscalls:sys_exit_execve(at) record layout (tracefs format) */
struct sys_exit_args {
	__u64 common;
	__s64 nr;
	__s64 ret;
};

static __always_inline const char *syscall_arg(int i)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	return (const char *)(i == 0 ? PT_REGS_PARM1_CORE_SYSCALL(regs)
				     : PT_REGS_PARM2_CORE_SYSCALL(regs));
}

SEC("tracepoint/syscalls/sys_exit_execve")
int tp_exit_execve(struct sys_exit_args *ctx)
{
	if (ctx->ret >= 0)
		return 0;
	return exec_fail(ctx->ret, syscall_arg(0));
}

SEC("tracepoint/syscalls/sys_exit_execveat")
int tp_exit_execveat(struct sys_exit_args *ctx)
{
	if (ctx->ret >= 0)
		return 0;
	return exec_fail(ctx->ret, syscall_arg(1));
}

/*
 * The raw sys_exit fallback's view of a syscall, per architecture (as
 * libbpf-tools builds with -D__TARGET_ARCH_$(ARCH)): its number as
 * syscall_get_nr() reads it from struct pt_regs (arch/<arch>/include/asm/
 * syscall.h), read through a CO-RE flavour of struct pt_regs so the field
 * need not be in another architecture's vmlinux.h, and the numbers of
 * execve/execveat (x86-64: arch/x86/entry/syscalls/syscall_64.tbl; arm64:
 * include/uapi/asm-generic/unistd.h).
 */
#if defined(__TARGET_ARCH_x86)
struct pt_regs___tr_x86 {
	unsigned long orig_ax;
} __attribute__((preserve_access_index));
#define SYSCALL_NR(regs) ((long)BPF_CORE_READ((struct pt_regs___tr_x86 *)(regs), orig_ax))
#define SYS_EXECVE 59
#define SYS_EXECVEAT 322
#elif defined(__TARGET_ARCH_arm64)
struct pt_regs___tr_arm64 {
	int syscallno;
} __attribute__((preserve_access_index));
#define SYSCALL_NR(regs) ((long)BPF_CORE_READ((struct pt_regs___tr_arm64 *)(regs), syscallno))
#define SYS_EXECVE 221
#define SYS_EXECVEAT 281
#else
#error "tracer.bpf.c: no syscall numbers for this __TARGET_ARCH (x86 and arm64 are known)"
#endif

/* Fallback when tracefs has no syscall events: raw sys_exit, by number. */
SEC("raw_tp/sys_exit")
int BPF_PROG(raw_sys_exit, struct pt_regs *regs, long ret)
{
	long id;

	if (ret >= 0)
		return 0;
	id = SYSCALL_NR(regs);
	if (id == SYS_EXECVE)
		return exec_fail(ret, (const char *)PT_REGS_PARM1_CORE_SYSCALL(regs));
	if (id == SYS_EXECVEAT)
		return exec_fail(ret, (const char *)PT_REGS_PARM2_CORE_SYSCALL(regs));
	return 0;
}

/* ------------------------------------------------------------ snapshot */

/* iter/task: one struct snap_rec per thread-group leader alive now. */
SEC("iter/task")
int snap_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct snap_scratch *s;
	struct snap_rec *r;
	struct mm_struct *mm;
	struct file *f;
	__u32 pos, flags = 0;

	if (!t || t->pid != t->tgid)
		return 0;
	s = bpf_map_lookup_elem(&snap_scratch, &zero);
	if (!s)
		return 0;
	r = &s->r;
	r->tgid = t->tgid;
	r->ppid = t->real_parent->tgid;
	r->start_ns = t->start_boottime;
	r->uid = t->cred->uid.val;
	r->euid = t->cred->euid.val;
	r->ns_pid = ns_tgid(t);
	r->threads = t->signal->nr_threads;
	r->kthread = (t->flags & TR_PF_KTHREAD) ? 1 : 0;
	r->exe_len = 0;
	r->argv_size = 0;
	/* a leader that exited while other threads run is a zombie too:
	 * only with no live thread left has the process exited */
	r->exited = t->exit_state && !t->signal->live.counter;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), t->comm);
	mm = t->mm;
	if (mm && !r->kthread) {
		f = mm->exe_file;
		if (f) {
			pos = resolve_path(f->f_path.dentry, f->f_path.mnt, s->path, &flags);
			r->exe_len = copy_path(r->exe, s->path, pos);
		}
		r->argv_size = mm->arg_end - mm->arg_start;
	}
	r->flags = flags;
	{
		__u32 len = r->exe_len;

		barrier_var(len);
		len &= EV_PATH_MAX - 1;
		bpf_seq_write(seq, r, offsetof(struct snap_rec, exe) + len);
	}
	return 0;
}

#include "sample.bpf.c"
