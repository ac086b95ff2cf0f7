// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sample.bpf.c - resource use over time: the per-process sampler (an
 * iter/task program the recorder reads every --sample-interval), OOM kills
 * (tp_btf/mark_victim) and fatal signals (tp_btf/signal_generate).
 * Layout: bpf/events.h (EV_SAMPLE, EV_OOM_KILL, EV_SIGNAL).
 *
 * Included in place at the end of tracer.bpf.c, not an object of its own:
 * one object is one parse of the kernel's BTF and one set of CO-RE
 * candidate searches at start-up instead of two (docs/PERFORMANCE.md).
 * So it uses tracer.bpf.c's maps `rb` (one ring buffer: OOM kills and
 * signals are ordered with exits), `tracked` (the same filter), `drops`
 * (the same counters) and `thread_claims` (threads whose I/O their process
 * already counted), and its read-only filter_on (false: -a, every process)
 * and page_kib (page size in KiB). User space turns these programs' autoload
 * off when they are not wanted (record/sample.c).
 */

/* Set by user space before load (rodata). */
const volatile __u64 min_age_ns = 1000000000ull; /* sample processes older than this */

/* Set by user space before the first pass (bss): CLOCK_BOOTTIME ns when
 * sampling started. Processes that began before it are sampled at once,
 * whatever their age: their first sample, at the start, is what their CPU,
 * memory and I/O were before the recording (else the analyzer could only
 * spread it over their life). Only processes born since wait min_age_ns. */
volatile __u64 young_from_ns;

/* tgid -> what its last sample held (so unchanged processes cost no
 * output); max_entries set to the tracked map's by user space. */
struct last_sample {
	__u64 start_ns;	 /* identity: a reused pid has another start */
	__u64 digest;	 /* mix of every sampled value */
	__u64 leader_rt; /* leader's se.sum_exec_runtime then (single-threaded) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct last_sample);
	__uint(max_entries, 32768);
} sample_last SEC(".maps");

/* signals whose default action terminates (with or without a core dump) */
#define FATAL_MASK                                                                                 \
	(0x1fffeull /* 1..16 */ | 0xf000000ull /* XCPU XFSZ VTALRM PROF */ |                       \
	 0xe0000000ull /* IO PWR SYS */ | 0xffffffff00000000ull /* 32..63 */)
#define SIG_KILL 9
#define SI_KERNEL_CODE 0x80

/* ------------------------------------------------------------ RSS */

/*
 * Pages of one rss_stat counter as the kernel's own readers see it
 * (get_mm_counter: percpu_counter_read_positive, the shared count without
 * the per-CPU deltas still below the batch): what /proc/PID/status VmRSS
 * shows and what update_hiwater_rss() records as the peak the exit event
 * reports, so a sample and the exit-time peak agree.
 */
static __always_inline __s64 rss_counter(struct mm_struct *mm, int idx)
{
	/* constant indices: direct loads, no helper call */
	if (idx == MM_FILEPAGES)
		return mm->rss_stat[MM_FILEPAGES].count;
	if (idx == MM_ANONPAGES)
		return mm->rss_stat[MM_ANONPAGES].count;
	return mm->rss_stat[MM_SHMEMPAGES].count;
}

static __always_inline __u64 pages_kib(__s64 pages)
{
	return pages > 0 ? (__u64)pages * page_kib : 0;
}

/* ------------------------------------------------------------ sampler */

/*
 * Fast path for the common idle case, touching only task_struct: true when
 * t is single-threaded and has not run since its last sample (same
 * se.sum_exec_runtime), so nothing a sample holds changed (its RSS and I/O
 * move only when it runs; reclaim aside). Single-threaded: its thread_node
 * is the only entry of signal->thread_head, compared by address without
 * reading the signal_struct. *single and *leader_rt (ns) are set either way.
 */
static __always_inline bool sample_idle(struct task_struct *t, __u32 tgid, int *single,
					__u64 *leader_rt)
{
	unsigned long head_addr =
	    (unsigned long)t->signal + bpf_core_field_offset(struct signal_struct, thread_head);
	struct last_sample *ls = bpf_map_lookup_elem(&sample_last, &tgid);

	*single = (unsigned long)t->thread_node.next == head_addr &&
		  (unsigned long)t->thread_node.prev == head_addr;
	*leader_rt = t->se.sum_exec_runtime;
	return *single && ls && ls->start_ns == t->start_boottime && ls->leader_rt == *leader_rt;
}

/* the thread walk's state (a bpf_loop callback's context; the list
 * pointers kept as numbers, bpf_rdonly_cast gives their type back) */
struct sample_walk {
	__u64 pos;  /* struct list_head * of the next entry */
	__u64 head; /* &signal->thread_head: the list's end */
	struct ev_sample *e;
	__u64 rt;
	int exact;
};

/* One thread of the walk (a bpf_loop callback): 0 goes on, 1 stops. A
 * callback, not an unrolled loop: the verifier checks its body once, not
 * THREAD_WALK_MAX times (59,000 instructions verified before). */
static long sample_walk_step(__u32 i, void *arg)
{
	struct sample_walk *c = arg;
	struct ev_sample *e = c->e;
	struct list_head *pos;
	struct task_struct *th;

	if (c->pos == c->head)
		return 1;
	pos = bpf_rdonly_cast((void *)c->pos, bpf_core_type_id_kernel(struct list_head));
	th = bpf_rdonly_cast((void *)(c->pos - bpf_core_field_offset(struct task_struct, thread_node)),
			     bpf_core_type_id_kernel(struct task_struct));
	e->utime_ns += BPF_CORE_READ(th, utime);
	e->stime_ns += BPF_CORE_READ(th, stime);
	c->rt += BPF_CORE_READ(th, se.sum_exec_runtime);
	c->pos = (__u64)pos->next;
	if (c->exact) {
		/* exited (no mm) or claimed: in tp->io already */
		struct thread_key k = {.start_ns = BPF_CORE_READ(th, start_boottime),
				       .exec_id = BPF_CORE_READ(th, self_exec_id),
				       .tid = BPF_CORE_READ(th, pid)};

		if (!BPF_CORE_READ(th, mm) || bpf_map_lookup_elem(&thread_claims, &k))
			return 0;
	}
	e->rchar += BPF_CORE_READ(th, ioac.rchar);
	e->wchar += BPF_CORE_READ(th, ioac.wchar);
	e->read_bytes += BPF_CORE_READ(th, ioac.read_bytes);
	e->write_bytes += BPF_CORE_READ(th, ioac.write_bytes);
	return 0;
}

/*
 * e's CPU (signal_struct's released threads plus each thread on the list,
 * scaled to the precise runtime) and I/O as the exit event will count it:
 * tracked from its fork (exact), each thread's own (exited ones in tp->io,
 * the others on the list unless their exit already counted them); else
 * signal->ioac (the fallback). e->threads is set.
 */
static __always_inline void sample_sum(struct ev_sample *e, struct task_struct *t,
				       struct signal_struct *sig, struct tracked *tp, int exact)
{
	struct sample_walk c = {.e = e, .exact = exact};

	e->utime_ns = sig->utime;
	e->stime_ns = sig->stime;
	e->rchar = sig->ioac.rchar;
	e->wchar = sig->ioac.wchar;
	e->read_bytes = sig->ioac.read_bytes;
	e->write_bytes = sig->ioac.write_bytes;
	if (exact) {
		e->rchar = tp->io[IO_RCHAR];
		e->wchar = tp->io[IO_WCHAR];
		e->read_bytes = tp->io[IO_READ_BYTES];
		e->write_bytes = tp->io[IO_WRITE_BYTES];
	}
	c.rt = sig->sum_sched_runtime;
	c.head = (__u64)&sig->thread_head;
	c.pos = (__u64)BPF_CORE_READ(&sig->thread_head, next);
	if (e->threads == 1) {
		/* the common case: the leader is the only thread; direct loads */
		e->utime_ns += t->utime;
		e->stime_ns += t->stime;
		e->rchar += t->ioac.rchar;
		e->wchar += t->ioac.wchar;
		e->read_bytes += t->ioac.read_bytes;
		e->write_bytes += t->ioac.write_bytes;
		c.rt += t->se.sum_exec_runtime;
	} else {
		bpf_loop(THREAD_WALK_MAX, sample_walk_step, &c, 0);
	}
	cputime_adjust_sig(sig, c.rt, &e->utime_ns, &e->stime_ns);
}

/* the fallback's own I/O: minus what wait4() folded in from its children
 * (tp->io), never below 0 */
static __always_inline void sample_own_io(struct ev_sample *e, struct tracked *tp)
{
	e->rchar = e->rchar > tp->io[IO_RCHAR] ? e->rchar - tp->io[IO_RCHAR] : 0;
	e->wchar = e->wchar > tp->io[IO_WCHAR] ? e->wchar - tp->io[IO_WCHAR] : 0;
	e->read_bytes =
	    e->read_bytes > tp->io[IO_READ_BYTES] ? e->read_bytes - tp->io[IO_READ_BYTES] : 0;
	e->write_bytes =
	    e->write_bytes > tp->io[IO_WRITE_BYTES] ? e->write_bytes - tp->io[IO_WRITE_BYTES] : 0;
}

/* values mixed into struct last_sample's digest */
#define SAMPLE_DIGEST_N 11

/*
 * True when e holds what tgid's previous sample held (same start, same
 * digest of every sampled value): then only its leader_rt is refreshed and
 * nothing leaves the kernel. Else sample_last takes e's digest. leader_rt:
 * the leader's runtime (ns) when single-threaded, else 0.
 */
static __always_inline bool sample_unchanged(const struct ev_sample *e, __u32 tgid, __u64 leader_rt)
{
	__u64 d = 0xcbf29ce484222325ull,
	      v[SAMPLE_DIGEST_N] = {e->utime_ns,      e->stime_ns, e->rss_anon_kib, e->rss_file_kib,
				    e->rss_shmem_kib, e->rchar,	   e->wchar,	    e->read_bytes,
				    e->write_bytes,   e->threads,  e->start_ns};
	struct last_sample *ls, nl;
	int i;

	for (i = 0; i < SAMPLE_DIGEST_N; i++)
		d = (d ^ v[i]) * 0x100000001b3ull + (d >> 29);
	ls = bpf_map_lookup_elem(&sample_last, &tgid);
	if (ls && ls->start_ns == e->start_ns && ls->digest == d) {
		ls->leader_rt = leader_rt;
		return true;
	}
	if (ls) {
		ls->start_ns = e->start_ns;
		ls->digest = d;
		ls->leader_rt = leader_rt;
	} else {
		nl.start_ns = e->start_ns;
		nl.digest = d;
		nl.leader_rt = leader_rt;
		bpf_map_update_elem(&sample_last, &tgid, &nl, BPF_ANY);
	}
	return false;
}

/* iter/task: one struct ev_sample per recorded process older than min_age_ns. */
SEC("iter/task")
int sample_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t;
	struct tracked *tp;
	struct mm_struct *mm;
	struct ev_sample e;
	__u64 now, leader_rt;
	__u32 tgid;
	int single, exact;

	if (!ctx->task)
		return 0; /* the pass's end */
	t = UNTRUSTED(ctx->task, struct task_struct);
	if (t->pid != t->tgid || (t->flags & TR_PF_KTHREAD))
		return 0;
	tgid = t->tgid;
	if (sample_idle(t, tgid, &single, &leader_rt))
		return 0;
	tp = tracked_live(tgid); /* NULL: untracked, or a free slot of the array form */
	if (filter_on && (!tp || (tp->flags & TRACKED_PARENT_ONLY)))
		return 0;
	now = bpf_ktime_get_boot_ns();
	if (t->start_boottime >= young_from_ns && now - t->start_boottime < min_age_ns)
		return 0;
	mm = t->mm;
	if (!mm)
		return 0; /* exiting: its exit event has the totals */

	__builtin_memset(&e, 0, sizeof(e));
	e.hdr.size = sizeof(e);
	e.hdr.type = EV_SAMPLE;
	e.hdr.cpu = bpf_get_smp_processor_id();
	e.hdr.ts_ns = now;
	e.start_ns = t->start_boottime;
	e.tgid = tgid;
	e.threads = t->signal->nr_threads;
	exact = tp && (tp->flags & TRACKED_FROM_FORK);
	sample_sum(&e, t, t->signal, tp, exact);
	if (tp && !exact)
		sample_own_io(&e, tp);
	e.rss_file_kib = pages_kib(rss_counter(mm, MM_FILEPAGES));
	e.rss_anon_kib = pages_kib(rss_counter(mm, MM_ANONPAGES));
	e.rss_shmem_kib = pages_kib(rss_counter(mm, MM_SHMEMPAGES));
	/* only what changed since this process's previous sample leaves the kernel */
	if (sample_unchanged(&e, tgid, single ? leader_rt : 0))
		return 0;
	bpf_seq_write(seq, &e, sizeof(e));
	return 0;
}

/* ------------------------------------------------------------ OOM kills */

SEC("tp_btf/mark_victim")
int BPF_PROG(on_mark_victim, struct task_struct *task, uid_t uid)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	struct ev_oom_kill *e;
	struct mm_struct *mm;

	if (filter_on && !tracked_live(tgid))
		return 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		drop_count(EV_DROP_KEVENT);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	ev_hdr_fill(&e->hdr, EV_OOM_KILL, sizeof(*e));
	e->start_ns = BPF_CORE_READ(task, group_leader, start_boottime);
	e->tgid = tgid;
	e->pid = task->pid;
	e->trigger_tgid = cur->tgid;
	e->trigger_pid = cur->pid;
	e->uid = uid;
	e->oom_score_adj = BPF_CORE_READ(task, signal, oom_score_adj);
	{
		int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
		struct css_set *cs = BPF_CORE_READ(task, cgroups);
		struct cgroup_subsys_state *css = NULL;

		if (cs && id >= 0 && id < 16)
			bpf_probe_read_kernel(&css, sizeof(css), &cs->subsys[id & 15]);
		if (css)
			e->memcg_id = BPF_CORE_READ(css, cgroup, kn, id);
	}
	mm = task->mm;
	if (mm) {
		e->total_vm_kib = BPF_CORE_READ(mm, total_vm) * page_kib;
		e->rss_file_kib = pages_kib(rss_counter(mm, MM_FILEPAGES));
		e->rss_anon_kib = pages_kib(rss_counter(mm, MM_ANONPAGES));
		e->rss_shmem_kib = pages_kib(rss_counter(mm, MM_SHMEMPAGES));
	}
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), task->comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* ------------------------------------------------------------ signals */

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct task_struct *cur;
	__u32 tgid, flags = 0;
	struct ev_signal *e;
	int code = 0;

	/* cheap tests first: most signals are SIGCHLD and friends */
	if (sig <= 0 || sig > 64 || (sig < 64 && !((FATAL_MASK >> sig) & 1)))
		return 0;
	if (result != 0 /* DELIVERED */ && result != 4 /* LOSE_INFO */)
		return 0;
	tgid = task->tgid;
	if (filter_on && !tracked_live(tgid))
		return 0;
	if (sig != SIG_KILL) {
		/* a handled or ignored signal does not kill */
		unsigned long sh = (unsigned long)task->sighand, h = 1;

		if (!sh)
			return 0;
		sh += bpf_core_field_offset(struct sighand_struct, action) +
		      (__u64)((sig - 1) & 63) * bpf_core_type_size(struct k_sigaction) +
		      bpf_core_field_offset(struct k_sigaction, sa.sa_handler);
		bpf_probe_read_kernel(&h, sizeof(h), (void *)sh);
		if (h != 0 /* SIG_DFL */)
			return 0;
	}
	/* kernel/signal.c __send_signal_locked() passes the caller's info on
	 * unchanged: SEND_SIG_NOINFO (NULL) from send_sig(sig, t, 0) (pipe_write()'s
	 * SIGPIPE, generic_write_check_limits()'s SIGXFSZ), SEND_SIG_PRIV (1),
	 * else a siginfo (kill(2): SI_USER with the caller's pid) */
	if ((unsigned long)info == 1 /* SEND_SIG_PRIV */) {
		code = SI_KERNEL_CODE;
	} else if (info) {
		code = BPF_CORE_READ(info, si_code);
	} else {
		flags |= EV_SIGNAL_NOINFO | EV_SIGNAL_KERNEL;
	}
	if (code == SI_KERNEL_CODE || code > 0)
		flags |= EV_SIGNAL_KERNEL;
	if (group)
		flags |= EV_SIGNAL_GROUP;

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		drop_count(EV_DROP_KEVENT);
		return 0;
	}
	cur = bpf_get_current_task_btf();
	ev_hdr_fill(&e->hdr, EV_SIGNAL, sizeof(*e));
	e->target_start_ns = BPF_CORE_READ(task, group_leader, start_boottime);
	e->sender_start_ns = BPF_CORE_READ(cur, group_leader, start_boottime);
	e->target_tgid = tgid;
	e->target_pid = task->pid;
	e->sender_tgid = cur->tgid;
	e->sender_pid = cur->pid;
	e->sig = sig;
	e->code = code;
	e->sender_uid = BPF_CORE_READ(cur, cred, uid.val);
	e->flags = flags;
	bpf_probe_read_kernel_str(e->sender_comm, sizeof(e->sender_comm), cur->comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
