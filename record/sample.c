/* SPDX-License-Identifier: BSD-2-Clause */
/* sample.c - the sampler: bpf/sample.bpf.c driven from the recorder (sample.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/tracer.h"
#include "record.h"
#include "sample.h"
#include "schema.h"
#include "tracer.skel.h"

/* Last sample written per process, to write only changes. */
struct last {
	struct ev_sample s;
	uint64_t gen; /* pass that last saw the process */
};

struct sampler {
	struct tracer_bpf *skel; /* the recorder's (not owned); its programs
				  * sample_tasks, on_mark_victim, on_signal_generate */
	struct bpf_link *links[3];
	int nlinks;
	struct bpf_link *iter;
	uint64_t interval_ns, next_ns; /* next_ns: when the next samples are due */
	int loaded, have_oom, have_sig, have_prep;
	int started;
	char *buf;
	size_t cap;
	struct host_sampler *host; /* the /proc files of the host samples */
	struct hmap last; /* tgid -> struct last * (owned), as uintptr_t */
	uint64_t gen;
	uint64_t nprocs, nhosts, npasses, iter_ns;
};

static void serr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void serr(const char *fmt, ...)
{
	va_list ap;

	fputs("tracer-record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int attach(struct sampler *sm, struct bpf_program *p, const char *what)
{
	struct bpf_link *l = bpf_program__attach(p);

	if (!l) {
		serr("cannot attach the %s program: %s", what, strerror(errno));
		return -1;
	}
	sm->links[sm->nlinks++] = l;
	return 0;
}

static void meta_u64(tz_writer *w, const char *k, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	tz_writer_set_meta(w, k, b);
}

/*
 * Does this kernel's BTF name the tp_btf tracepoints names[0..n) (the
 * typedef btf_trace_NAME of each)? found[i] gets 1 or 0. The names are
 * looked for in the string section of /sys/kernel/btf/vmlinux, read in
 * pieces: no parse of the 5 MB of types, which libbpf does again for the
 * load (a parse cost 70 ms of CPU here, mostly page faults).
 */
#define BTF_PIECE 65536
#define TP_MAX 4
static void have_tp_btf(const char *const *names, int *found, int n)
{
	struct btf_header h;
	char pat[TP_MAX][96], *buf;
	size_t plen[TP_MAX], keep = 0;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);

	for (int i = 0; i < n && i < TP_MAX; i++) {
		found[i] = 0;
		/* NUL before and after: the whole string, not a suffix */
		snprintf(pat[i], sizeof(pat[i]), "%cbtf_trace_%s", 0, names[i]);
		plen[i] = strlen(pat[i] + 1) + 2;
	}
	buf = malloc(BTF_PIECE + 128);
	if (fd < 0 || !buf || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != BTF_MAGIC)
		goto out;
	for (uint64_t off = 0; off < h.str_len;) {
		size_t want = h.str_len - off < BTF_PIECE ? h.str_len - off : BTF_PIECE;
		ssize_t got = pread(fd, buf + keep, want, (off_t)(h.hdr_len + h.str_off + off));
		if (got <= 0)
			break;
		off += (uint64_t)got;
		size_t len = keep + (size_t)got;
		for (int i = 0; i < n && i < TP_MAX; i++)
			found[i] |= memmem(buf, len, pat[i], plen[i]) != NULL;
		/* a name cut by the piece's end is whole in the next */
		keep = len < 96 ? len : 96;
		memmove(buf, buf + len - keep, keep);
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
}

const char *const sample_tps[SAMPLE_TPS] = {"mark_victim", "signal_generate",
						   "sched_prepare_exec"};

struct sampler *sample_new(uint64_t interval_ns, const int *known)
{
	struct sampler *sm = calloc(1, sizeof(*sm));
	int have[SAMPLE_TPS];

	if (!sm)
		return NULL;
	if (known && known[0] >= 0 && known[1] >= 0 && known[2] >= 0)
		memcpy(have, known, sizeof(have));
	else
		have_tp_btf(sample_tps, have, SAMPLE_TPS);
	sm->interval_ns = interval_ns;
	sm->have_oom = have[0];
	sm->have_sig = have[1];
	sm->have_prep = have[2];
	return sm;
}

int sample_have_prepare_exec(const struct sampler *sm)
{
	return sm ? sm->have_prep : 0;
}

void sample_configure(struct sampler *sm, struct tracer_bpf *skel, bool on)
{
	bool iter = on && sm && sm->interval_ns > 0;

	bpf_program__set_autoload(skel->progs.on_mark_victim, on && sm && sm->have_oom);
	bpf_program__set_autoload(skel->progs.on_signal_generate, on && sm && sm->have_sig);
	bpf_program__set_autoload(skel->progs.sample_tasks, iter);
	/* test-only: make the sampler's programs fail to load (the verifier
	 * rejects them as socket filters), for the recording without them
	 * (docs/tracer-record.md) */
	if (on && getenv("TRACER_RECORD_TEST_SAMPLER_FAIL")) {
		bpf_program__set_type(skel->progs.on_mark_victim, BPF_PROG_TYPE_SOCKET_FILTER);
		bpf_program__set_type(skel->progs.on_signal_generate, BPF_PROG_TYPE_SOCKET_FILTER);
		bpf_program__set_type(skel->progs.sample_tasks, BPF_PROG_TYPE_SOCKET_FILTER);
	}
	/* only the iterator uses it */
	bpf_map__set_autocreate(skel->maps.sample_last, iter);
	bpf_map__set_max_entries(skel->maps.sample_last, bpf_map__max_entries(skel->maps.tracked));
	if (sm) {
		skel->rodata->min_age_ns = sm->interval_ns;
		sm->skel = skel;
		sm->loaded = on;
	}
}

int sample_start(struct sampler *sm, tz_writer *w, int verbose)
{
	int oom = 0, sig = 0;

	if (!sm) {
		serr("out of memory");
		return -1;
	}
	if (sm->loaded) {
		struct tracer_bpf *s = sm->skel;

		oom = sm->have_oom &&
		      attach(sm, s->progs.on_mark_victim, "OOM (oom:mark_victim)") == 0;
		sig = sm->have_sig && attach(sm, s->progs.on_signal_generate,
					     "signal (signal:signal_generate)") == 0;
		if (!oom)
			serr("warning: OOM kills are not recorded (no tp_btf/mark_victim here)");
		if (!sig)
			serr("warning: fatal signals are not recorded (no tp_btf/signal_generate "
			     "here)");
		if (sm->interval_ns) {
			s->bss->young_from_ns = rec_boot_ns();
			sm->iter = bpf_program__attach_iter(s->progs.sample_tasks, NULL);
			if (!sm->iter)
				serr("warning: no per-process samples: cannot attach the task "
				     "iterator: %s",
				     strerror(errno));
		}
	}
	tz_writer_set_meta(w, "oom_source", oom ? "tp_btf/mark_victim" : "unavailable");
	tz_writer_set_meta(w, "signal_source", sig ? "tp_btf/signal_generate" : "unavailable");
	meta_u64(w, "sample_interval_ns", sm->interval_ns);
	tz_writer_set_meta(w, "process_samples", sm->iter ? "iter/task" : "none");
	if (sm->interval_ns) {
		sm->cap = 1 << 16;
		sm->buf = malloc(sm->cap);
		sm->host = host_sample_new();
		if (!sm->buf || !sm->host) {
			serr("out of memory");
			return -1;
		}
	}
	sm->started = 1;
	if (verbose && sm->interval_ns)
		serr("sampling every %.3f s (%s), OOM kills and fatal signals",
		     (double)sm->interval_ns / 1e9,
		     sm->iter ? "per process and host" : "host only");
	return 0;
}

static struct last *last_of(const struct sampler *sm, uint32_t tgid)
{
	uint64_t *v = hmap_get(&sm->last, tgid);
	return v ? (struct last *)(uintptr_t)*v : NULL;
}

/*
 * utime/stime never below the previous ones (kernel/sched/cputime.c
 * cputime_adjust does the same): the BPF side splits the precise runtime by
 * the tick-sampled ratio, which moves between samples. The sum (runtime) is
 * kept; when it went backwards, the previous pair stays.
 */
void sample_cpu_monotonic(__u64 put, __u64 pst, __u64 *ut, __u64 *st)
{
	__u64 rt = *ut + *st;

	if (rt < put + pst) {
		*ut = put;
		*st = pst;
	} else if (*st < pst) {
		*st = pst;
		*ut = rt - pst;
	} else if (*ut < put) {
		*ut = put;
		*st = rt - put;
	}
}

void sample_cpu_clamp(const struct sampler *sm, __u32 tgid, __u64 start_ns, __u64 *ut, __u64 *st)
{
	struct last *l = sm ? last_of(sm, tgid) : NULL;
	if (l && l->s.start_ns == start_ns)
		sample_cpu_monotonic(l->s.utime_ns, l->s.stime_ns, ut, st);
}

/* Has e changed since the process's previous sample? Remembers e, its CPU
 * times made monotonic first. */
static int changed(struct sampler *sm, struct ev_sample *e)
{
	struct last *l = last_of(sm, e->tgid);

	if (l && l->s.start_ns == e->start_ns)
		sample_cpu_monotonic(l->s.utime_ns, l->s.stime_ns, &e->utime_ns, &e->stime_ns);
	if (!l) {
		uint64_t *v;
		if (!(l = malloc(sizeof(*l))))
			return 1;
		if (!(v = hmap_put(&sm->last, e->tgid, NULL))) {
			free(l);
			return 1;
		}
		*v = (uintptr_t)l;
	} else if (l->s.start_ns == e->start_ns &&
		   !memcmp((const char *)&l->s + sizeof(l->s.hdr), (const char *)e + sizeof(e->hdr),
			   sizeof(*e) - sizeof(e->hdr))) {
		l->gen = sm->gen;
		return 0;
	}
	l->s = *e;
	l->gen = sm->gen;
	return 1;
}

/* Forget processes the last pass did not see (exited). */
static void sweep(struct sampler *sm)
{
	uint64_t tgid, v;
	for (size_t pos = 0; hmap_next(&sm->last, &pos, &tgid, &v);) {
		struct last *l = (struct last *)(uintptr_t)v;
		if (l->gen != sm->gen) {
			hmap_del(&sm->last, tgid);
			free(l);
			pos--; /* what moved into its slot is next (hmap_next) */
		}
	}
}

static int sample_procs(struct sampler *sm, tz_writer *w)
{
	size_t len = 0;
	int fd, rc = 0;
	uint64_t t0 = mono_ns();

	fd = bpf_iter_create(bpf_link__fd(sm->iter));
	if (fd < 0)
		return 0; /* transient: try again next interval */
	/* out of memory: what was read so far is used */
	rec_read_fd(fd, &sm->buf, &sm->cap, 4096, &len);
	close(fd);
	sm->gen++;
	for (size_t off = 0; off + sizeof(struct ev_sample) <= len;
	     off += sizeof(struct ev_sample)) {
		struct ev_sample e;

		memcpy(&e, sm->buf + off, sizeof(e));
		if (!changed(sm, &e))
			continue;
		rc = tracer_event_write(w, &e, sizeof(e));
		if (rc < 0)
			break;
		sm->nprocs++;
	}
	sweep(sm);
	sm->npasses++;
	sm->iter_ns += mono_ns() - t0;
	return rc;
}

int sample_poll(struct sampler *sm, tz_writer *w, uint64_t now_ns, int force)
{
	struct ev_host_sample h;
	int rc = 0;

	if (!sm || !sm->started || !sm->interval_ns)
		return 0;
	if (!force && sm->next_ns && now_ns < sm->next_ns)
		return 0;
	/* due times advance by the interval (no drift from the drain loop's
	 * wake-ups); after a stall, restart from now */
	if (sm->next_ns && now_ns >= sm->next_ns && now_ns - sm->next_ns < sm->interval_ns)
		sm->next_ns += sm->interval_ns;
	else
		sm->next_ns = now_ns + sm->interval_ns;
	if (sm->host && host_sample_read(sm->host, &h, rec_boot_ns()) == 0) {
		rc = tracer_event_write(w, &h, sizeof(h));
		sm->nhosts++;
	}
	if (rc >= 0 && sm->iter)
		rc = sample_procs(sm, w);
	return rc < 0 ? rc : 0;
}

uint64_t sample_next_ns(const struct sampler *sm)
{
	if (!sm || !sm->started || !sm->interval_ns)
		return 0;
	return sm->next_ns ? sm->next_ns : 1;
}

void sample_stats(const struct sampler *sm, uint64_t *procs, uint64_t *hosts, uint64_t *passes,
		  uint64_t *iter_ns)
{
	if (!sm) {
		*procs = *hosts = *passes = *iter_ns = 0;
		return;
	}
	*procs = sm->nprocs;
	*hosts = sm->nhosts;
	*passes = sm->npasses;
	*iter_ns = sm->iter_ns;
}

void sample_stop(struct sampler *sm)
{
	if (!sm)
		return;
	host_sample_free(sm->host);
	for (int i = 0; i < sm->nlinks; i++)
		bpf_link__destroy(sm->links[i]);
	bpf_link__destroy(sm->iter);
	uint64_t v;
	for (size_t pos = 0; hmap_next(&sm->last, &pos, NULL, &v);)
		free((struct last *)(uintptr_t)v);
	hmap_free(&sm->last);
	free(sm->buf);
	free(sm);
}
