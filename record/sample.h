/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sample.h - resource use over time: per-process samples from the
 * iter/task program of bpf/sample.bpf.c, host samples from /proc, OOM kills
 * and fatal signals (tracepoints of the same object, written into the
 * recorder's own ring buffer). A sampler is an opaque handle (struct
 * sampler, record/sample.c) that owns its BPF links, buffers and /proc
 * files; its programs and the map sample_last live in the recorder's BPF
 * object (tracer.bpf.c includes sample.bpf.c), which it does not own. Every function takes NULL (the
 * handle's allocation failed): sampling is then off, and sample_start
 * says "out of memory".
 *
 * Order of calls (record/bpfsetup.c, record/main.c, record/drain.c):
 * sample_new() and sample_configure() once the recorder's skeleton (whose
 * object holds the sampler's programs, bpf/sample.bpf.c) is opened and
 * configured, before it is loaded; sample_start() once the writer is open,
 * before any recorded process starts; sample_poll() from the drain loop;
 * sample_stop() after the loop, before the skeleton is destroyed.
 */
#ifndef TRACER_SAMPLE_H
#define TRACER_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/events.h"
#include "tz.h"

struct tracer_bpf;
struct sampler;
struct host_sampler;

/* Default and bounds of --sample-interval, seconds (0 disables sampling). */
#define SAMPLE_INTERVAL_DEFAULT 1.0
#define SAMPLE_INTERVAL_MIN 0.01
#define SAMPLE_INTERVAL_MAX 3600.0

/* The optional tp_btf tracepoints, looked for together (SAMPLE_TPS of
 * them): oom:mark_victim and signal:signal_generate, which the sampler
 * attaches to when the kernel has them, and sched:sched_prepare_exec
 * (6.10+), where handle_prepare_exec reads the peak RSS of an image an
 * exec replaces (sample_have_prepare_exec). */
#define SAMPLE_TPS 3
extern const char *const sample_tps[SAMPLE_TPS];

/*
 * A new sampler taking samples every interval_ns (0: none, OOM kills and
 * signals only), or NULL when out of memory. have[i] says whether the
 * kernel has sample_tps[i] (a kernel without one cannot load its program),
 * -1 when not known: then it is looked for in the string section of
 * /sys/kernel/btf/vmlinux. have may be NULL (none known).
 */
struct sampler *sample_new(uint64_t interval_ns, const int *have);
/* Whether this kernel has tp_btf/sched_prepare_exec (sample_tps[2]): 1 or
 * 0; 0 when sm is NULL. */
int sample_have_prepare_exec(const struct sampler *sm);

/*
 * Before skel is loaded: with on, the sampler's programs that this kernel
 * and interval_ns allow load with it (autoload), else none does; sizes the
 * iterator's sample_last map as skel's tracked map (set that first) and
 * sets its min_age_ns rodata. sm records skel (not owned: it must outlive
 * sm) and, with on, that the programs are loaded (the caller configures
 * again with on false when the load failed and is retried). sm NULL: the
 * programs are off.
 */
void sample_configure(struct sampler *sm, struct tracer_bpf *skel, bool on);

/*
 * Attach the OOM and signal programs and the sampler iterator (a missing
 * one is a warning), set the metadata keys sample_interval_ns,
 * process_samples, oom_source and signal_source on w. Returns 0, or -1
 * when out of memory (message printed; sm NULL counts as out of memory).
 */
int sample_start(struct sampler *sm, tz_writer *w, int verbose);

/*
 * Take the samples when interval_ns has passed since the last ones (or now
 * when force): one EV_HOST_SAMPLE, and one EV_SAMPLE per recorded process
 * older than one interval whose values changed since its previous sample.
 * now_ns is CLOCK_BOOTTIME. Returns 0 or the first negative tz_err of the
 * writer.
 */
int sample_poll(struct sampler *sm, tz_writer *w, uint64_t now_ns, int force);

/*
 * CLOCK_BOOTTIME (ns) at which sample_poll() takes the next samples: the
 * drain loop sleeps until then at the latest. 0 when sampling is off or
 * never started; a time already passed when samples are due now.
 */
uint64_t sample_next_ns(const struct sampler *sm);

/* Detach and free everything sm owns (its links, buffers, /proc files), sm
 * itself too, not the skeleton (safe when sample_start failed or never
 * ran; NULL is fine). */
void sample_stop(struct sampler *sm);
/* Make (*ut, *st) (ns) no less than the previous pair (put, pst), keeping
 * their sum, as kernel/sched/cputime.c cputime_adjust does; a sum below the
 * previous one gives the previous pair. */
void sample_cpu_monotonic(__u64 put, __u64 pst, __u64 *ut, __u64 *st);
/* Make an exit's CPU times (ns) of the process (tgid, start_ns) no less than
 * its last written sample's (the sum kept, as cputime_adjust does); no-op
 * without a sample of it. */
void sample_cpu_clamp(const struct sampler *sm, __u32 tgid, __u64 start_ns, __u64 *ut, __u64 *st);

/* Samples written so far (for -v); zeros for NULL. iter_ns: ns spent in
 * the iterator passes, CLOCK_MONOTONIC. */
void sample_stats(const struct sampler *sm, uint64_t *procs, uint64_t *hosts, uint64_t *passes,
		  uint64_t *iter_ns);

/* ------------------------------------------------------------ /proc parsers
 * (record/hostsample.c). Each takes a file's text (NUL-terminated) and fills
 * its part of h; returns 0, or -1 when the text does not have the expected
 * shape (h is then left partly filled). */

/* /proc/stat first line ("cpu  user nice system idle iowait irq softirq
 * steal ..."), ticks of hz per second, into cpu_*_ns. */
int host_parse_stat(const char *text, long hz, struct ev_host_sample *h);
/* /proc/meminfo into mem_* and swap_used_kib. */
int host_parse_meminfo(const char *text, struct ev_host_sample *h);
/* /proc/loadavg into load*_milli and nr_running. */
int host_parse_loadavg(const char *text, struct ev_host_sample *h);
/* One /proc/pressure/X file: avg10 (1/100 %) and total (us) of its "some"
 * and "full" lines; *has_full is 0 when there is no full line. */
int host_parse_psi(const char *text, __u32 *some_avg10, __u64 *some_us, __u32 *full_avg10,
		   __u64 *full_us, int *has_full);
/* /proc/diskstats: sectors read/written * 512 summed over the devices for
 * which is_disk(ctx, name) is true (NULL: every device). */
int host_parse_diskstats(const char *text, int (*is_disk)(void *ctx, const char *name), void *ctx,
			 struct ev_host_sample *h);
/* /proc/net/dev: receive/transmit bytes summed over every interface but lo. */
int host_parse_netdev(const char *text, struct ev_host_sample *h);

/*
 * The host sampler (record/hostsample.c): the /proc files it reads, kept
 * open (O_CLOEXEC) between samples and read again from offset 0, and which
 * /proc/diskstats names are whole disks, looked up once per name. One per
 * sampler; nothing shared between handles.
 */
/* A new host sampler (no file open yet), or NULL when out of memory. */
struct host_sampler *host_sample_new(void);
/* Read every source above from /proc (PSI where present) into h, timestamp
 * ts_ns (CLOCK_BOOTTIME). Returns 0, or -1 when /proc/stat or /proc/meminfo
 * is unreadable (h is then partly filled). A file that cannot be opened is
 * tried again on the next call. */
int host_sample_read(struct host_sampler *hs, struct ev_host_sample *h, uint64_t ts_ns);
/* Close the files and free hs (NULL is fine). */
void host_sample_free(struct host_sampler *hs);

#endif /* TRACER_SAMPLE_H */
