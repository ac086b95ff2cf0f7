// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer.bpf.c - the recorder's BPF programs: fork, exec, exec failure and
 * thread-group exit, taken from tracepoints only (tp_btf and syscall
 * tracepoints), CO-RE, one BPF ring buffer. Layout: bpf/events.h.
 *
 * Filtering happens here: with filter_on, only thread groups in `tracked`
 * emit events; a fork by a tracked process tracks the child. Every failed
 * ring-buffer write and map update bumps a per-CPU counter (`drops`).
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

/* kfunc: a number as an untrusted BTF pointer (the verifier makes it a move) */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

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
 * Only this object's records are submitted with rb_flags; sample.bpf.c's
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

/* names up to this many bytes are copied by direct loads, not a helper call */
#define NAME_DIRECT_MAX 32
/* filenames up to this many bytes (NUL excluded) likewise */
#define FNAME_DIRECT_MAX 63
/* resolved paths up to this many bytes are copied out of the walk's window
 * by 8-byte loads and stores */
#define PATH_DIRECT_MAX 64

/* the 8 bytes at kernel address addr by a direct (fault-safe) load: struct
 * rb_node starts with an unsigned long; a fault reads 0 */
static __always_inline __u64 load_word(__u64 addr)
{
	struct rb_node *w = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct rb_node));

	return w->__rb_parent_color;
}

/*
 * Copy the string at kernel address src to dst by direct loads of 8-byte
 * words, NUL included (dst gets whole words: up to 7 bytes past the NUL).
 * Returns its length, or FNAME_DIRECT_MAX + 1 when it is longer or a word
 * reads as all zero (a fault, or a NUL at a word start): then the caller
 * reads it with the helper.
 */
static __always_inline __u32 copy_str_direct(char *dst, __u64 src)
{
	__u64 w, m;
	int k;

#pragma unroll
	for (k = 0; k < (FNAME_DIRECT_MAX + 1) / 8; k++) {
		w = load_word(src + 8 * k);
		if (!w)
			break;
		*(__u64 *)(dst + 8 * k) = w;
		/* the first zero byte, as the kernel's word-at-a-time
		 * has_zero()/find_zero() find it (little-endian) */
		m = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
		if (m)
			return 8 * k + ((((m - 1) & ~m) >> 7) * 0x0001020304050608ull >> 56);
	}
	return FNAME_DIRECT_MAX + 1;
}

/* the walk's pointers, kept as numbers (a bpf_loop callback's context loses
 * their BTF type; bpf_rdonly_cast gives it back for direct loads) */
struct walk_ctx {
	__u64 dentry;
	__u64 mnt; /* struct mount * */
	char *buf;
	__u32 pos;
	__u32 flags;
	__u32 done; /* the walk reached a root (not cut by PATH_DEPTH) */
};

/* One step of the upward walk (a bpf_loop callback): 0 goes on, 1 stops.
 * Direct (fault-safe) loads; a helper call only for a name longer than
 * NAME_DIRECT_MAX. */
static long walk_step(__u32 i, void *arg)
{
	struct walk_ctx *c = arg;
	struct dentry *dentry, *parent;
	struct mount *mnt;
	const unsigned char *name;
	char *buf = c->buf;
	__u32 len, pos = c->pos;

	dentry = bpf_rdonly_cast((void *)c->dentry, bpf_core_type_id_kernel(struct dentry));
	mnt = bpf_rdonly_cast((void *)c->mnt, bpf_core_type_id_kernel(struct mount));
	parent = dentry->d_parent;
	if (dentry == mnt->mnt.mnt_root) {
		struct mount *up = mnt->mnt_parent;

		if (up == mnt || !up) {
			c->done = 1;
			return 1;
		}
		c->dentry = (__u64)mnt->mnt_mountpoint;
		c->mnt = (__u64)up;
		return 0;
	}
	if (dentry == parent) {
		c->done = 1;
		return 1;
	}
	name = dentry->d_name.name;
	len = dentry->d_name.len;
	/* the name and its '/' must leave pos >= 1: the kept tail (at most
	 * EV_PATH_MAX - 1 bytes, '/' first) is then never cut at its end */
	if (len + 2 > pos || pos > PATH_WIN) {
		c->flags |= EV_EXEC_PATH_TRUNCATED;
		return 1;
	}
	pos -= len;
	if (len <= NAME_DIRECT_MAX && pos >= 8) {
		/* right-aligned 8-byte words: the bytes before the name land
		 * left of pos, where the '/' and the parent's name go (or
		 * outside the result). A whole zero word is a fault (a name's
		 * last byte is never 0): the helper reads it again. */
		__u64 end = (__u64)name + len, w;
		__u32 k;

		for (k = 8; k <= NAME_DIRECT_MAX; k += 8) {
			if (k - 8 >= len)
				break;
			w = load_word(end - k);
			if (!w)
				goto slow;
			*(__u64 *)(buf + ((pos + len - k) & (PATH_WIN - 1))) = w;
		}
	} else {
slow:
		bpf_probe_read_kernel(buf + (pos & (PATH_WIN - 1)), len & (PATH_WIN - 1), name);
	}
	pos -= 1;
	buf[pos & (PATH_WIN - 1)] = '/';
	c->pos = pos;
	c->dentry = (__u64)parent;
	return 0;
}

/*
 * Resolve a struct path into buf[pos..PATH_WIN) by walking dentries and
 * mounts upwards (bpf_d_path is not allowed on tracepoints). Returns pos; the
 * path is buf[pos..PATH_WIN). *flags gets EV_EXEC_EXE_DELETED/_MEMFD/
 * _PATH_TRUNCATED. buf holds 2 * PATH_WIN bytes.
 */
static __always_inline __u32 resolve_path(struct dentry *dentry, struct vfsmount *vfsmnt,
					  char *buf, __u32 *flags)
{
	struct walk_ctx c = {
		.dentry = (__u64)dentry,
		.mnt = (__u64)vfsmnt - bpf_core_field_offset(struct mount, mnt),
		.buf = buf,
		.pos = PATH_WIN,
	};
	struct dentry *parent;
	__u32 pos, len;

	if (!dentry)
		return PATH_WIN;
	parent = dentry->d_parent;
	if (dentry == parent && dentry != vfsmnt->mnt_root) {
		/* pseudo file (memfd, anon inode): its name alone */
		const unsigned char *name = dentry->d_name.name;

		len = dentry->d_name.len;
		if (len > PATH_WIN - 1)
			len = PATH_WIN - 1;
		pos = PATH_WIN - len;
		bpf_probe_read_kernel(buf + (pos & (PATH_WIN - 1)), len & (PATH_WIN - 1), name);
		if (len > 6 && buf[pos & (PATH_WIN - 1)] == 'm' &&
		    buf[(pos + 5) & (PATH_WIN - 1)] == ':')
			*flags |= EV_EXEC_EXE_MEMFD;
		return pos;
	}
	if (!dentry->d_hash.pprev)
		*flags |= EV_EXEC_EXE_DELETED;
	/* a walk that stops at its last allowed step is complete, not cut */
	bpf_loop(PATH_DEPTH, walk_step, &c, 0);
	if (!c.done)
		c.flags |= EV_EXEC_PATH_TRUNCATED;
	*flags |= c.flags;
	pos = c.pos;
	if (pos >= PATH_WIN) {
		pos = PATH_WIN - 1;
		buf[pos] = '/';
	}
	return pos;
}

/* Copy buf[pos..PATH_WIN) to dst; returns the length. A path up to
 * PATH_DIRECT_MAX bytes goes by 8-byte words (dst gets up to 7 bytes more,
 * which later fields overwrite or the record leaves out). */
static __always_inline __u32 copy_path(char *dst, const char *buf, __u32 pos)
{
	__u32 len = PATH_WIN - pos;
	int k;

	if (len <= PATH_DIRECT_MAX) {
#pragma unroll
		for (k = 0; k < PATH_DIRECT_MAX / 8; k++) {
			if (8 * k >= len)
				break;
			*(__u64 *)(dst + 8 * k) =
			    *(const __u64 *)(buf + ((pos + 8 * k) & (PATH_WIN - 1)));
		}
		return len;
	}
	if (len > EV_PATH_MAX - 1)
		len = EV_PATH_MAX - 1;
	barrier_var(len);
	len &= EV_PATH_MAX - 1;
	bpf_probe_read_kernel(dst, len, buf + (pos & (PATH_WIN - 1)));
	return len;
}

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
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
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
	cputime_scale(sig->sum_sched_runtime + p->se.sum_exec_runtime, &ut, &st);
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
 * One EV_EXEC per successful exec of a recorded process, built in this
 * CPU's scratch: the fixed part, then the tails filename, exe, script, cwd,
 * argv and env (bpf/events.h), copied to the ring sized to its content.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid, flags = 0, pos, n;
	__u64 off;
	struct mm_struct *mm = p->mm;
	struct ev_exec *e;
	struct scratch *s;
	struct file *f;

	if (filter_on && !tracked_live(tgid))
		return 0;
	s = get_scratch();
	if (!s)
		return 0;
	e = (struct ev_exec *)s->rec;
	exec_fixed(e, p, tgid, old_pid, bprm);

	off = sizeof(*e);
	n = exec_filename(s->rec + off, bprm->filename);
	e->filename_len = n;
	off += n & (EV_PATH_MAX - 1);

	/* resolved executable */
	f = bprm->file;
	pos = resolve_path(f->f_path.dentry, f->f_path.mnt, s->path, &flags);
	n = copy_path(s->rec + (off & OFF_MASK), s->path, pos);
	e->exe_len = n;
	off += n;

	n = 0;
	if (bprm->interp != bprm->filename)
		n = exec_script(s, e, p, off, &flags);
	e->script_len = n;
	off += n;

	n = exec_cwd(s, p, off, &flags);
	e->cwd_len = n;
	off += n;
	e->memcg_id = exec_memcg(p);
	e->pad2 = 0;

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

/*
 * The raw per-CPU pointer of drops[0]. Its per-CPU copies (from
 * bpf_map_lookup_percpu_elem) minus this give each CPU's per-CPU offset,
 * which turns mm->rss_stat[].counters into per-CPU addresses. The map's own
 * address comes from an empty list head inside it (it points to itself).
 */
static __always_inline unsigned long drops_pcpu_base(void)
{
	struct bpf_array *arr = (struct bpf_array *)&drops;
	unsigned long self, base = 0;

	self = (unsigned long)arr->map.freeze_mutex.wait_list.next;
	self -= bpf_core_field_offset(struct bpf_map, freeze_mutex) +
		bpf_core_field_offset(struct mutex, wait_list);
	bpf_probe_read_kernel(&base, sizeof(base),
			      (void *)(self + bpf_core_field_offset(struct bpf_array, pptrs)));
	return base;
}

/* raw values of the page counters that make up RSS (file + anon + shmem) */
/* per-CPU offsets, found once (they never change while the system runs) */
__u64 pcpu_off[MAX_CPUS_EXACT];
__u32 pcpu_ready;

static __always_inline int pcpu_init(void)
{
	unsigned long base = drops_pcpu_base();
	__u32 cpu;

	if (!base)
		return -1;
	for (cpu = 0; cpu < MAX_CPUS_EXACT && cpu < nr_cpus; cpu++) {
		void *addr = bpf_map_lookup_percpu_elem(&drops, &zero, cpu);
		unsigned long a = 0;

		if (!addr)
			return -1;
		/* the map value address as a plain number */
		bpf_probe_read_kernel(&a, sizeof(a), &addr);
		pcpu_off[cpu] = a - base;
	}
	pcpu_ready = 1;
	return 0;
}

static __always_inline __s64 rss_pages(struct mm_struct *mm)
{
	static const int idx[3] = {MM_FILEPAGES, MM_ANONPAGES, MM_SHMEMPAGES};
	int exact = nr_cpus <= MAX_CPUS_EXACT && (pcpu_ready || pcpu_init() == 0);
	__s64 total = 0;
	int i;

	for (i = 0; i < 3; i++) {
		unsigned long ctr = (unsigned long)mm->rss_stat[idx[i]].counters;
		__u32 cpu;

		total += mm->rss_stat[idx[i]].count;
		if (!exact)
			continue;
		for (cpu = 0; cpu < MAX_CPUS_EXACT && cpu < nr_cpus; cpu++) {
			/* the s32 at that address by a direct (fault-safe) load:
			 * struct kref is one int at offset 0 */
			struct kref *k = bpf_rdonly_cast((void *)(ctr + pcpu_off[cpu]),
							 bpf_core_type_id_kernel(struct kref));

			total += (__s32)k->refcount.refs.counter;
		}
	}
	return total;
}

/*
 * BSD process accounting writes one record per pid namespace level with
 * accounting on, as the exiting task, after sched_process_exit: the parent's
 * wait4() folds those bytes into its I/O too. Returns the levels. pin0: the
 * initial namespace's bacct, loaded by the caller (acct_pin0()).
 */
static __always_inline __u32 acct_levels(struct task_struct *p, struct fs_pin *pin0)
{
	struct pid *pid = p->thread_pid;
	unsigned int level = pid->level;
	struct pid_namespace *ns;
	__u32 n = 0;
	int i;

	/* the initial namespace alone (level 0): direct loads */
	if (!level) {
		if (!pin0)
			return 0;
		return BPF_CORE_READ(container_of(pin0, struct bsd_acct_struct, pin), active) ? 1 : 0;
	}
	ns = BPF_CORE_READ(pid, numbers[level & 31].ns);
	for (i = 0; i < 8 && ns; i++) {
		struct fs_pin *pin = BPF_CORE_READ(ns, bacct);

		if (pin) {
			struct bsd_acct_struct *a = container_of(pin, struct bsd_acct_struct, pin);

			if (BPF_CORE_READ(a, active))
				n++;
		}
		ns = BPF_CORE_READ(ns, parent);
	}
	return n;
}

/*
 * The exiting task's namespace's bacct (its level-0 one), loaded early: that
 * cache line (struct pid_namespace's refcount is in it) moves to whichever CPU
 * forked or reaped last, and a miss started before the ring reservation
 * overlaps the others instead of stalling the acct_levels() test.
 */
static __always_inline struct fs_pin *acct_pin0(struct task_struct *p)
{
	struct fs_pin *pin = p->thread_pid->numbers[0].ns->bacct;

	barrier_var(pin);
	return pin;
}

/* CPU and fault counters of the exiting task itself: direct (BTF) loads */
static __always_inline __u64 add_self_counters(struct ev_exit *e, struct task_struct *t)
{
	e->utime_ns += t->utime;
	e->stime_ns += t->stime;
	e->nvcsw += t->nvcsw;
	e->nivcsw += t->nivcsw;
	e->min_flt += t->min_flt;
	e->maj_flt += t->maj_flt;
	return t->se.sum_exec_runtime;
}

/* the same for another thread of the group */
static __always_inline __u64 add_task_counters(struct ev_exit *e, struct task_struct *t)
{
	e->utime_ns += BPF_CORE_READ(t, utime);
	e->stime_ns += BPF_CORE_READ(t, stime);
	e->nvcsw += BPF_CORE_READ(t, nvcsw);
	e->nivcsw += BPF_CORE_READ(t, nivcsw);
	e->min_flt += BPF_CORE_READ(t, min_flt);
	e->maj_flt += BPF_CORE_READ(t, maj_flt);
	return BPF_CORE_READ(t, se.sum_exec_runtime);
}

/* io[] += the exiting task's own task->ioac: direct (BTF) loads */
static __always_inline void add_self_ioac(__u64 *io, struct task_struct *t)
{
	io[IO_RCHAR] += t->ioac.rchar;
	io[IO_WCHAR] += t->ioac.wchar;
	io[IO_SYSCR] += t->ioac.syscr;
	io[IO_SYSCW] += t->ioac.syscw;
	io[IO_READ_BYTES] += t->ioac.read_bytes;
	io[IO_WRITE_BYTES] += t->ioac.write_bytes;
	io[IO_CANCELLED_WRITE] += t->ioac.cancelled_write_bytes;
}

/* io[] += signal->ioac: the threads already released, and every child
 * wait4() reaped (direct loads) */
static __always_inline void add_sig_ioac(__u64 *io, struct signal_struct *sig)
{
	io[IO_RCHAR] += sig->ioac.rchar;
	io[IO_WCHAR] += sig->ioac.wchar;
	io[IO_SYSCR] += sig->ioac.syscr;
	io[IO_SYSCW] += sig->ioac.syscw;
	io[IO_READ_BYTES] += sig->ioac.read_bytes;
	io[IO_WRITE_BYTES] += sig->ioac.write_bytes;
	io[IO_CANCELLED_WRITE] += sig->ioac.cancelled_write_bytes;
}

/* the same for another thread of the group */
static __always_inline void add_ioac(__u64 *io, struct task_io_accounting *a)
{
	io[IO_RCHAR] += BPF_CORE_READ(a, rchar);
	io[IO_WCHAR] += BPF_CORE_READ(a, wchar);
	io[IO_SYSCR] += BPF_CORE_READ(a, syscr);
	io[IO_SYSCW] += BPF_CORE_READ(a, syscw);
	io[IO_READ_BYTES] += BPF_CORE_READ(a, read_bytes);
	io[IO_WRITE_BYTES] += BPF_CORE_READ(a, write_bytes);
	io[IO_CANCELLED_WRITE] += BPF_CORE_READ(a, cancelled_write_bytes);
}

/* Claim the exit of thread tid (start_ns, exec_id: struct thread_key) for
 * its process's count: 1 when this caller is the one to count it (first to
 * claim), 0 when it was claimed already. */
static __always_inline int claim_thread(__u64 start_ns, __u64 exec_id, __u32 tid)
{
	struct thread_key k = {.start_ns = start_ns, .exec_id = exec_id, .tid = tid};
	static const __u8 one = 1;
	long r = bpf_map_update_elem(&thread_claims, &k, &one, BPF_NOEXIST);

	if (r == -17 /* EEXIST */)
		return 0;
	if (r)
		drop(EV_DROP_MAP_FULL); /* counted, but unclaimed: may count twice */
	return 1;
}

/*
 * A thread of a tracked process exits while others live on (not
 * group_dead): count the exit and, for a process tracked from its fork, add
 * the thread's own I/O, unless the group's last thread already counted it
 * (it sums the threads still on the list when it exits first).
 */
static __always_inline void thread_exit(struct task_struct *p, struct tracked *tp)
{
	struct task_io_accounting *a = &p->ioac;

	if (!(tp->flags & TRACKED_FROM_FORK)) {
		__sync_fetch_and_add(&tp->thread_exits, 1);
		return;
	}
	if (!claim_thread(p->start_boottime, p->self_exec_id, p->pid))
		return;
	__sync_fetch_and_add(&tp->io[IO_RCHAR], a->rchar);
	__sync_fetch_and_add(&tp->io[IO_WCHAR], a->wchar);
	__sync_fetch_and_add(&tp->io[IO_SYSCR], a->syscr);
	__sync_fetch_and_add(&tp->io[IO_SYSCW], a->syscw);
	__sync_fetch_and_add(&tp->io[IO_READ_BYTES], a->read_bytes);
	__sync_fetch_and_add(&tp->io[IO_WRITE_BYTES], a->write_bytes);
	__sync_fetch_and_add(&tp->io[IO_CANCELLED_WRITE], a->cancelled_write_bytes);
	__sync_fetch_and_add(&tp->thread_exits, 1);
}

/*
 * The fallback parent (tracked, not from its fork: its I/O is signal->ioac,
 * which wait4() grows by each reaped child's total) learns what the exiting
 * child will add: kio (the child's signal->ioac plus its threads' own) and
 * the BSD accounting records written after this tracepoint. Not when the
 * child will be auto-reaped (SIGCHLD ignored or SA_NOCLDWAIT: nothing is
 * folded).
 */
static __always_inline void fallback_parent(struct task_struct *p, struct tracked *pp,
					    __u64 *kio)
{
	struct task_struct *par = p->real_parent;
	struct k_sigaction *ka;
	unsigned long h, fl;
	__u32 na;
	int i;

	ka = &par->sighand->action[SIGCHLD_NR - 1];
	h = (unsigned long)ka->sa.sa_handler;
	fl = ka->sa.sa_flags;
	if (h == 1 /* SIG_IGN */ || (fl & TR_SA_NOCLDWAIT))
		return;
	na = acct_levels(p, acct_pin0(p));
	__sync_fetch_and_add(&pp->io[IO_WCHAR],
			     kio[IO_WCHAR] + na * bpf_core_field_size(struct bsd_acct_struct, ac));
	__sync_fetch_and_add(&pp->io[IO_SYSCW], kio[IO_SYSCW] + na);
	__sync_fetch_and_add(&pp->io[IO_RCHAR], kio[IO_RCHAR]);
	__sync_fetch_and_add(&pp->io[IO_SYSCR], kio[IO_SYSCR]);
	for (i = IO_READ_BYTES; i < IO_N; i++)
		__sync_fetch_and_add(&pp->io[i], kio[i]);
}

/* e's wait status as wait4() will report it (kernel/exit.c
 * wait_task_zombie: the group's exit code, else the leader's), decoded
 * into exit_code or signal and EV_EXIT_SIGNALED/_CORE_DUMPED */
static __always_inline void exit_status(struct ev_exit *e, struct signal_struct *sig,
					struct task_struct *leader)
{
	__u32 status;

	if (sig->flags & TR_SIGNAL_GROUP_EXIT)
		status = sig->group_exit_code;
	else
		status = leader->exit_code;
	e->status = status;
	if (status & 0x7f) {
		e->signal = status & 0x7f;
		e->exit_code = -1;
		e->flags = EV_EXIT_SIGNALED | ((status & 0x80) ? EV_EXIT_CORE_DUMPED : 0);
	} else {
		e->exit_code = (status >> 8) & 0xff;
	}
}

/*
 * CPU: e's counters get each thread still on signal->thread_head (exiting,
 * not yet released) and p itself; returns their se.sum_exec_runtime (ns).
 * I/O: all[] gets each thread's own task->ioac, except, with exact (tracked
 * from its fork), the other threads: own[] gets those this exit claims
 * (thread_claims; *exits counts them), never one whose own exit claimed it.
 */
static __always_inline __u64 exit_walk_threads(struct ev_exit *e, struct task_struct *p,
					       struct signal_struct *sig, int exact, __u64 *own,
					       __u64 *all, __u32 *exits)
{
	struct list_head *head = &sig->thread_head, *pos = sig->thread_head.next;
	__u64 rt = 0;
	int i;

	for (i = 0; i < THREAD_WALK_MAX && pos != head; i++) {
		struct task_struct *t;

		if (pos == &p->thread_node) {
			rt += add_self_counters(e, p);
			add_self_ioac(all, p);
			pos = pos->next;
			continue;
		}
		t = container_of(pos, struct task_struct, thread_node);
		rt += add_task_counters(e, t);
		pos = pos->next;
		if (!exact) {
			add_ioac(all, &t->ioac);
			continue;
		}
		/* no mm: past exit_mm(), so past its own exit tracepoint,
		 * which claimed it */
		if (!BPF_CORE_READ(t, mm) ||
		    !claim_thread(BPF_CORE_READ(t, start_boottime), BPF_CORE_READ(t, self_exec_id),
				  BPF_CORE_READ(t, pid)))
			continue;
		add_ioac(own, &t->ioac);
		(*exits)++;
	}
	return rt;
}

/*
 * e's I/O fields from the walk's all[] and own[] (own[] is then the
 * process's I/O by enum io_idx). Exact: the threads the walk saw plus those
 * whose exits tp->io summed; all[] keeps what the walk counted. Else the
 * fallback: the kernel's totals (signal->ioac) minus what this process's
 * children will have added when it reaped them (tp->io; all of it when
 * untracked, -a). *exits gets the thread exits tp counted.
 */
static __always_inline void exit_io(struct ev_exit *e, struct tracked *tp,
				    struct signal_struct *sig, int exact, __u64 *own, __u64 *all,
				    __u32 *exits)
{
	int i;

	if (exact) {
		/* read after the walk: threads that claimed themselves have
		 * added their share by now */
		for (i = 0; i < IO_N; i++) {
			all[i] += own[i]; /* the threads this exit counted */
			own[i] = all[i] + tp->io[i];
		}
		*exits += tp->thread_exits;
	} else {
		e->flags |= EV_EXIT_IO_FALLBACK;
		add_sig_ioac(all, sig);
		for (i = 0; i < IO_N; i++)
			own[i] = tp && all[i] > tp->io[i] ? all[i] - tp->io[i] : (tp ? 0 : all[i]);
		if (tp)
			*exits += tp->thread_exits;
	}
	e->rchar = own[IO_RCHAR];
	e->wchar = own[IO_WCHAR];
	e->syscr = own[IO_SYSCR];
	e->syscw = own[IO_SYSCW];
	e->read_bytes = own[IO_READ_BYTES];
	e->write_bytes = own[IO_WRITE_BYTES];
	e->cancelled_write_bytes = own[IO_CANCELLED_WRITE];
}

/* e's peak RSS in KiB: the larger of mm->hiwater_rss and the RSS now (its
 * per-CPU deltas included, rss_pages), or signal->maxrss once the mm is
 * gone; EV_EXIT_EXE_DELETED when the executable was unlinked */
static __always_inline void exit_maxrss(struct ev_exit *e, struct task_struct *p,
					struct signal_struct *sig)
{
	struct mm_struct *mm = p->mm;

	if (mm) {
		struct file *xf = mm->exe_file;
		struct dentry *d = xf ? xf->f_path.dentry : NULL;
		__s64 rss = rss_pages(mm);
		__u64 hw = mm->hiwater_rss;

		if (d && !d->d_hash.pprev && d->d_parent != d)
			e->flags |= EV_EXIT_EXE_DELETED;

		if (rss < 0)
			rss = 0;
		e->maxrss_kib = ((__u64)rss > hw ? (__u64)rss : hw) * page_kib;
	} else {
		e->maxrss_kib = sig->maxrss;
	}
}

/*
 * A thread of a recorded process exits. Not the last (not group_dead): the
 * group's counts only (thread_exit). The last: one EV_EXIT with the
 * process's status, CPU, I/O, peak RSS and thread count; the process is
 * untracked and left in `exited` for its release (handle_free).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *p, bool group_dead)
{
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
	cputime_scale(rt, &e->utime_ns, &e->stime_ns);
	exit_io(e, tp, sig, exact, own, all, &exits);
	/* a parent tracked by the fallback learns what it will fold in */
	if (e->ppid != tgid) {
		struct tracked *pp = tracked_live(e->ppid);

		if (pp && !(pp->flags & (TRACKED_FROM_FORK | TRACKED_PARENT_ONLY))) {
			if (exact) {
				/* signal->ioac plus the threads this exit
				 * counted (all[]) */
				add_sig_ioac(all, sig);
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
int BPF_PROG(handle_free, struct task_struct *p)
{
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
	cputime_scale(rt, &e->utime_ns, &e->stime_ns);
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
