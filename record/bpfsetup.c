/* SPDX-License-Identifier: BSD-2-Clause */
/* bpfsetup.c - the BPF object's lifecycle (libbpf's open, configure, load,
 * attach; teardown) and the tracked-process map (recorder.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/tracer.h"
#include "btfcache.h"
#include "recorder.h"
#include "sample.h"
#include "tracer.skel.h"

/* -v count for libbpf's messages (its print callback takes no context) */
static int verbose_level;
static int libbpf_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (verbose_level < 2 && lvl != LIBBPF_WARN)
		return 0;
	if (verbose_level < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int have_syscall_tps(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char p[128];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events/syscalls/sys_exit_execve/id", dirs[i]);
		if (access(p, R_OK) == 0)
			return 1;
	}
	return 0;
}

static int attach(struct rec *r, struct bpf_program *p)
{
	struct bpf_link *l = bpf_program__attach(p);

	if (!l) {
		rec_err("cannot attach BPF program '%s': %s", bpf_program__name(p),
			strerror(errno));
		return -1;
	}
	r->links[r->nlinks++] = l;
	return 0;
}

/* The capabilities loading tracepoint programs needs that this process
 * lacks (effective set, /proc/self/status), as "capability CAP_BPF";
 * "" when none is missing (CAP_SYS_ADMIN covers both). */
static const char *missing_caps(void)
{
	char line[256];
	unsigned long long eff = ~0ull;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return "";
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	int bpf = !(eff >> 39 & 1), perfmon = !(eff >> 38 & 1);
	if (eff >> 21 & 1) /* CAP_SYS_ADMIN */
		return "";
	return bpf && perfmon ? "capabilities CAP_BPF and CAP_PERFMON"
	       : bpf	      ? "capability CAP_BPF"
	       : perfmon      ? "capability CAP_PERFMON"
			      : "";
}

/* The kernel has BTF and this process the capabilities: 0, or -1 after a
 * line. */
static int check_host(void)
{
	/* test-only: pretend the kernel's BTF is elsewhere (docs/tracer-record.md) */
	const char *btf = getenv("TRACER_RECORD_TEST_BTF");
	const char *caps = missing_caps();

	if (!btf || !*btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (access(btf, R_OK)) {
		rec_err(
		    "this kernel has no BTF ('%s'): a kernel built with CONFIG_DEBUG_INFO_BTF=y "
		    "is needed",
		    btf);
		return -1;
	}
	if (*caps) {
		rec_err("missing %s (uid %u): run as root, or grant them with "
			"'setcap cap_bpf,cap_perfmon+ep tracer-record'",
			caps, (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/*
 * Failed execs need a syscall tracepoint (no other hook sees an execve
 * that fails), and attaching any syscall tracepoint or raw sys_exit
 * sets SYSCALL_WORK_SYSCALL_TRACEPOINT on every task of the host: each
 * syscall of each process, recorded or not, then takes the slow path.
 * So they are recorded only when asked for (docs/tracer-record.md).
 * Sets r->syscall_src; returns 1 for the syscalls: tracepoints, 0 for
 * raw_syscalls:sys_exit (or not recorded).
 */
static int pick_syscall_source(struct rec *r)
{
	int use_tp = 0;

	if (r->o.exec_failures) {
		use_tp = have_syscall_tps();
		if (!use_tp && mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
			use_tp = have_syscall_tps();
		/* tests force the fallback that kernels without syscall events use */
		const char *src = getenv("TRACER_RECORD_SYSCALL_SOURCE");
		if (src && !strcmp(src, "raw_tp"))
			use_tp = 0;
		r->syscall_src = use_tp ? "tracepoint" : "raw_tp";
	}
	return use_tp;
}

/* The opened object's rodata and map sizes from r->o and the host, and
 * which failed-exec programs load (libbpf's "configure" step). */
static void configure(struct rec *r, struct tracer_bpf *s, int use_tp)
{
	s->rodata->filter_on = r->o.mode != MODE_ALL;
	s->rodata->argv_max = r->o.argv_max;
	s->rodata->memcg_v1 = cgt_memcg_v1(&r->cg);
	s->rodata->env_max = r->o.env.n ? (r->o.env_max ? r->o.env_max : EV_ENV_MAX_DEFAULT) : 0;
	s->rodata->nr_cpus = (uint32_t)r->ncpus;
	s->rodata->page_kib = (uint32_t)(sysconf(_SC_PAGESIZE) / 1024);
	s->rodata->wake_bytes = r->o.ringbuf_size / 4;
	/* each CPU looks at the fill level once per wake_check bytes: at most
	 * ringbuf_size / 8 written unseen, over all CPUs */
	s->rodata->wake_check = r->o.ringbuf_size / 8 / (uint64_t)r->ncpus;
	uint32_t pid_max = rec_pid_max();
	bpf_map__set_max_entries(s->maps.rb, (uint32_t)r->o.ringbuf_size);
	bpf_map__set_max_entries(s->maps.tracked, r->o.max_procs ? r->o.max_procs : pid_max);
	/* small maps are preallocated: an insert is then a free-list pop, not
	 * an allocation, on every fork and execve */
	if ((r->o.max_procs ? r->o.max_procs : pid_max) <= 131072)
		bpf_map__set_map_flags(s->maps.tracked, 0);
	/* without --max-procs and with a small pid_max, an array indexed by
	 * tgid: a slot per pid never fills up, and a lookup is an address
	 * computation instead of a hash, a bucket walk and a bucket lock */
	if (!r->o.max_procs && pid_max <= TRACKED_ARRAY_MAX) {
		bpf_map__set_type(s->maps.tracked, BPF_MAP_TYPE_ARRAY);
		s->rodata->by_index = true;
	}
	bpf_map__set_max_entries(s->maps.scratch, (uint32_t)r->ncpus);
	bool xf_tp = r->syscall_src && use_tp, xf_raw = r->syscall_src && !use_tp;
	bpf_program__set_autoload(s->progs.tp_exit_execve, xf_tp);
	bpf_program__set_autoload(s->progs.tp_exit_execveat, xf_tp);
	bpf_program__set_autoload(s->progs.raw_sys_exit, xf_raw);
	/* the start-up snapshot's iterator: -a and -p only (COMMAND starts
	 * after the programs are attached: every process of it is seen
	 * being born) */
	bpf_program__set_autoload(s->progs.snap_tasks, r->o.mode != MODE_FOLLOW);
	/* the replaced images' peak RSS: where the kernel has the tracepoint */
	bpf_program__set_autoload(s->progs.handle_prepare_exec,
				  sample_have_prepare_exec(r->sampler));
}

/* Attach the loaded programs; 0, or -1 after a line. */
static int attach_all(struct rec *r, struct tracer_bpf *s, int use_tp)
{
	bool xf_tp = r->syscall_src && use_tp, xf_raw = r->syscall_src && !use_tp;

	/* later events first: a process whose fork is recorded has its exec
	 * and exit recorded too (attaching takes ms; a short process forked
	 * after the fork program but ending before the exit program would
	 * read as an exit lost) */
	if (attach(r, s->progs.handle_exit) || attach(r, s->progs.handle_free) ||
	    attach(r, s->progs.handle_exec) || attach(r, s->progs.handle_fork))
		return -1;
	if (bpf_program__autoload(s->progs.handle_prepare_exec)) {
		if (attach(r, s->progs.handle_prepare_exec))
			return -1;
		r->prep_attached = true;
	}
	if (xf_tp) {
		if (attach(r, s->progs.tp_exit_execve) || attach(r, s->progs.tp_exit_execveat))
			return -1;
	} else if (xf_raw && attach(r, s->progs.raw_sys_exit)) {
		return -1;
	}
	return 0;
}

/* TRACER_RECORD_TIMING: the instructions the verifier processed for each
 * loaded program of obj (bpf_prog_info.verified_insns, kernel 5.16+) */
static void timing_verified(struct bpf_object *obj)
{
	struct bpf_program *p;

	if (!rec_timing_on() || !obj)
		return;
	bpf_object__for_each_program(p, obj)
	{
		struct bpf_prog_info info = {0};
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			fprintf(stderr, PROG ": timing:   %-20s %6u insns, %8u verified\n",
				bpf_program__name(p), info.xlated_prog_len / 8, info.verified_insns);
	}
}

/* Open and configure the object; the sampler's programs load with it when
 * with_sampler; its CO-RE relocations resolved against the BTF cache when
 * it is usable. 0, or -1 after a line. */
static int open_object(struct rec *r, int use_tp, bool with_sampler)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btfc_path(r->btfc));
	struct tracer_bpf *s = tracer_bpf__open_opts(&oo);

	if (!s) {
		rec_err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	r->skel = s;
	configure(r, s, use_tp);
	sample_configure(r->sampler, s, with_sampler);
	return 0;
}

/* Load the opened object; with the BTF cache, once more without it when
 * the load failed. 0 or libbpf's negative error (errno set). */
static int load_object(struct rec *r, int use_tp, bool with_sampler)
{
	int rc = tracer_bpf__load(r->skel);

	if (rc && btfc_path(r->btfc)) {
		btfc_reject(r->btfc);
		tracer_bpf__destroy(r->skel);
		r->skel = NULL;
		if (open_object(r, use_tp, with_sampler))
			return -ENOMEM;
		rc = tracer_bpf__load(r->skel);
	}
	return rc;
}

int rec_bpf_setup(struct rec *r)
{
	int use_tp, rc;

	if (check_host())
		return -1;
	rec_timing("host checked");
	verbose_level = r->o.verbose;
	libbpf_set_print(libbpf_print);
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		r->ncpus = 1;
	use_tp = pick_syscall_source(r);
	size_t obj_size;
	const void *obj = tracer_bpf__elf_bytes(&obj_size);
	r->btfc = btfc_open(obj, obj_size);
	rec_timing("BTF cache checked");
	int have[SAMPLE_TPS];
	for (int i = 0; i < SAMPLE_TPS; i++)
		have[i] = btfc_tp(r->btfc, sample_tps[i]);
	r->sampler = sample_new((uint64_t)(r->o.sample_interval * 1e9 + 0.5), have);
	rec_timing("sampler made");
	if (open_object(r, use_tp, true))
		return -1;
	rec_timing("object opened");
	rc = load_object(r, use_tp, true);
	if (rc && rc != -EPERM && errno != EPERM && r->sampler) {
		/* The sampler's programs may be what failed: the recording goes on
		 * without them when the rest loads alone (a second open and load,
		 * on this failure only). */
		int err = rc;
		tracer_bpf__destroy(r->skel);
		r->skel = NULL;
		if (open_object(r, use_tp, false))
			return -1;
		rc = load_object(r, use_tp, false);
		if (!rc)
			rec_err("warning: no samples, OOM kills or signals: cannot load their BPF "
				"programs: %s (-vv shows the verifier log)",
				strerror(-err));
	}
	if (rc) {
		if (rc == -EPERM || errno == EPERM)
			rec_err("loading BPF programs needs root (or CAP_BPF, CAP_PERFMON and "
				"CAP_SYS_RESOURCE): run as root");
		else
			rec_err(
			    "cannot load the BPF programs: %s (run with -vv for the verifier log)",
			    strerror(-rc));
		return -1;
	}
	rec_timing("programs loaded");
	if (r->o.verbose)
		rec_err("BTF cache: %s", btfc_status(r->btfc));
	timing_verified(r->skel->obj);
	if (attach_all(r, r->skel, use_tp))
		return -1;
	rec_timing("programs attached");
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.rb), rec_on_event, r, NULL);
	if (!r->rb) {
		rec_err("cannot map the BPF ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* how: BPF_ANY or BPF_NOEXIST (an array slot has no "exists": the caller
 * looked it up first) */
static int track_how(struct rec *r, uint32_t tgid, uint32_t threads, uint32_t flags, uint64_t how)
{
	struct tracked t = {.threads = threads ? threads : 1, .flags = flags | TRACKED_LIVE};

	if (r->skel->rodata->by_index)
		how = BPF_ANY;
	return bpf_map_update_elem(bpf_map__fd(r->skel->maps.tracked), &tgid, &t, how);
}

/* Track tgid, keeping what the BPF side already counts for it; threads is
 * at least the snapshot's live thread count. */
void rec_track_merge(struct rec *r, uint32_t tgid, uint32_t threads)
{
	int fd = bpf_map__fd(r->skel->maps.tracked);
	struct tracked t;

	if (bpf_map_lookup_elem(fd, &tgid, &t) == 0 && (t.flags & TRACKED_LIVE)) {
		if (t.threads < threads) {
			t.threads = threads;
			bpf_map_update_elem(fd, &tgid, &t, BPF_EXIST);
		}
		return;
	}
	track_how(r, tgid, threads, 0, BPF_NOEXIST);
}

/* Stop tracking tgid: delete its entry, or zero its array slot. */
void rec_untrack(struct rec *r, uint32_t tgid)
{
	int fd = bpf_map__fd(r->skel->maps.tracked);
	struct tracked z = {0};

	if (r->skel->rodata->by_index)
		bpf_map_update_elem(fd, &tgid, &z, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &tgid);
}

int rec_track(struct rec *r, uint32_t tgid, uint32_t threads, uint32_t flags)
{
	return track_how(r, tgid, threads, flags, BPF_ANY);
}

void rec_btf_cache_build(struct rec *r)
{
	if (r->skel &&
	    btfc_build_start(r->btfc, bpf_object__btf(r->skel->obj), sample_tps, SAMPLE_TPS) &&
	    r->o.verbose)
		rec_err("BTF cache: cannot start its build");
}

/* Stop recording: the programs detached, the maps and ring freed (the
 * sampler's links before the object its programs belong to); a build of
 * the BTF cache waited for. */
void rec_bpf_teardown(struct rec *r)
{
	char built[160];

	btfc_free(r->btfc, built, sizeof(built));
	r->btfc = NULL;
	if (*built && r->o.verbose)
		rec_err("BTF cache: %s", built);
	sample_stop(r->sampler);
	r->sampler = NULL;
	for (int i = 0; i < r->nlinks; i++)
		bpf_link__destroy(r->links[i]);
	r->nlinks = 0;
	ring_buffer__free(r->rb);
	r->rb = NULL;
	tracer_bpf__destroy(r->skel);
	r->skel = NULL;
}
