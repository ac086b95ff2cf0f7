/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * exit.bpf.h - what handle_exit reads: RSS from the per-CPU page counters, BSD accounting levels, the thread walk, I/O and the exit status.
 * Part of tracer.bpf.c, included in place (one BPF object): it uses the
 * maps, scratch and helpers defined above its #include there.
 */
#ifndef TRACER_EXIT_BPF_H
#define TRACER_EXIT_BPF_H

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

/* io[] += a, the exiting task's own task->ioac or its signal->ioac (the
 * threads already released, and every child wait4() reaped): direct (BTF)
 * loads */
static __always_inline void add_ioac_direct(__u64 *io, struct task_io_accounting *a)
{
	io[IO_RCHAR] += a->rchar;
	io[IO_WCHAR] += a->wchar;
	io[IO_SYSCR] += a->syscr;
	io[IO_SYSCW] += a->syscw;
	io[IO_READ_BYTES] += a->read_bytes;
	io[IO_WRITE_BYTES] += a->write_bytes;
	io[IO_CANCELLED_WRITE] += a->cancelled_write_bytes;
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

/* the thread walk's state (a bpf_loop callback's context: the kernel
 * pointers kept as numbers, bpf_rdonly_cast gives their type back) */
struct thread_walk {
	__u64 pos;  /* struct list_head * of the next entry */
	__u64 head; /* &signal->thread_head: the list's end */
	__u64 self; /* the exiting task (struct task_struct *) */
	struct ev_exit *e;
	__u64 *own, *all;
	__u64 rt;
	__u32 exits;
	int exact;
};

/* One entry of the walk (a bpf_loop callback): 0 goes on, 1 stops. One
 * callback instead of an unrolled loop: the verifier checks its body once,
 * not THREAD_WALK_MAX times (61,000 instructions verified for handle_exit
 * before, about 100 ms of CPU at each recorder start). */
static long thread_walk_step(__u32 i, void *arg)
{
	struct thread_walk *c = arg;
	struct list_head *pos;
	struct task_struct *t;

	if (c->pos == c->head)
		return 1;
	pos = bpf_rdonly_cast((void *)c->pos, bpf_core_type_id_kernel(struct list_head));
	if (c->pos == c->self + bpf_core_field_offset(struct task_struct, thread_node)) {
		t = bpf_rdonly_cast((void *)c->self, bpf_core_type_id_kernel(struct task_struct));
		c->rt += add_self_counters(c->e, t);
		add_ioac_direct(c->all, &t->ioac);
		c->pos = (__u64)pos->next;
		return 0;
	}
	t = bpf_rdonly_cast((void *)(c->pos - bpf_core_field_offset(struct task_struct, thread_node)),
			    bpf_core_type_id_kernel(struct task_struct));
	c->rt += add_task_counters(c->e, t);
	c->pos = (__u64)pos->next;
	if (!c->exact) {
		add_ioac(c->all, &t->ioac);
		return 0;
	}
	/* no mm: past exit_mm(), so past its own exit tracepoint, which
	 * claimed it */
	if (!BPF_CORE_READ(t, mm) ||
	    !claim_thread(BPF_CORE_READ(t, start_boottime), BPF_CORE_READ(t, self_exec_id),
			  BPF_CORE_READ(t, pid)))
		return 0;
	add_ioac(c->own, &t->ioac);
	c->exits++;
	return 0;
}

/*
 * CPU: e's counters get each thread still on signal->thread_head (exiting,
 * not yet released; the first THREAD_WALK_MAX entries) and p itself;
 * returns their se.sum_exec_runtime (ns). I/O: all[] gets each thread's own
 * task->ioac, except, with exact (tracked from its fork), the other
 * threads: own[] gets those this exit claims (thread_claims; *exits counts
 * them), never one whose own exit claimed it.
 */
static __always_inline __u64 exit_walk_threads(struct ev_exit *e, struct task_struct *p,
					       struct signal_struct *sig, int exact, __u64 *own,
					       __u64 *all, __u32 *exits)
{
	struct thread_walk c = {
	    .pos = (__u64)sig->thread_head.next,
	    .head = (__u64)&sig->thread_head,
	    .self = (__u64)p,
	    .e = e,
	    .own = own,
	    .all = all,
	    .exits = *exits,
	    .exact = exact,
	};

	bpf_loop(THREAD_WALK_MAX, thread_walk_step, &c, 0);
	*exits = c.exits;
	return c.rt;
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
		add_ioac_direct(all, &sig->ioac);
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
 * per-CPU deltas included, rss_pages), or signal->maxrss (pages, like
 * hiwater_rss) once the mm is gone; EV_EXIT_EXE_DELETED when the
 * executable was unlinked */
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
		e->maxrss_kib = sig->maxrss * page_kib;
	}
}

#endif
