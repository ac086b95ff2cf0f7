/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report.c - shared analysis helpers (report.h): loading a trace and its
 * model, options common to the commands, a process's end, CPU and failure.
 * The CPU profile is in profile.c, the groups in groups.c, text formatting
 * in fmt.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cmp.h"
#include "progress.h"
#include "report.h"
#include "task.h"

/* TRACER_ANALYZE_PARTIAL=1 (set by --partial too): analyze unfinished or
 * damaged traces anyway */
int tza_partial(void)
{
	const char *e = getenv("TRACER_ANALYZE_PARTIAL");
	return e && *e && strcmp(e, "0");
}

int tza_check_whole(tz_reader *r, const char *path, int after_read)
{
	const struct tz_info *in = tz_reader_info(r);
	if (tza_partial())
		return 0;
	char cut[256], n[32];
	if (!after_read && in->tail_after_footer && !in->live) {
		tza_err("'%s': offset %llu: %s byte%s after the footer (appended to the closed "
			"trace); truncated to %llu bytes it is whole again, 'tracer-analyze --partial' "
			"analyzes it as is",
			path, (unsigned long long)in->tail_offset,
			tza_fmt_count(n, sizeof(n), in->tail_bytes), tza_plural(in->tail_bytes),
			(unsigned long long)in->tail_offset);
		return -1;
	}
	if (!after_read && in->unfinished && !in->ring && !in->live && !in->torn_tail_bytes &&
	    in->tail_bytes) {
		tza_err("'%s': offset %llu: unfinished or damaged trace (no footer): its last %s "
			"byte%s are no block (zeros, as a power loss leaves, or damaged bytes); "
			"'tracer-analyze recover' keeps what was sealed, 'tracer-analyze "
			"--partial' analyzes it as is",
			path, (unsigned long long)in->tail_offset,
			tza_fmt_count(n, sizeof(n), in->tail_bytes), tza_plural(in->tail_bytes));
		return -1;
	}
	if (!after_read && in->unfinished && !in->ring && !in->live) {
		tza_err("'%s': %s; 'tracer-analyze recover' keeps what was sealed, "
			"'tracer-analyze --partial' analyzes it as is",
			path, tza_cut_text(cut, sizeof(cut), in)
				      ?: "truncated or unfinished trace (no footer)");
		return -1;
	}
	if (!after_read && !in->has_footer && !in->ring && !in->unfinished) {
		const char *msg = tz_reader_errmsg(r);
		char where[64];
		snprintf(where, sizeof(where), "'%s': index", path);
		tza_err("%s: footer index ignored, blocks found by scanning ('tracer-analyze "
			"verify' checks them, 'tracer-analyze recover' rewrites the index, "
			"'tracer-analyze --partial' analyzes it as is)",
			msg && *msg ? msg : where);
		return -1;
	}
	if (!after_read && in->live) {
		tza_err("'%s': still being written (the recorder is running); analyze it once "
			"recording ends, or now with 'tracer-analyze --partial'",
			path);
		return -1;
	}
	if (!after_read && in->unfinished) {
		tza_err("'%s': offset %llu: unfinished ring trace (final metadata slot empty: the "
			"recorder did not stop cleanly); 'tracer-analyze recover' keeps what was "
			"sealed, 'tracer-analyze --partial' analyzes it as is",
			path, (unsigned long long)in->unfinished_offset);
		return -1;
	}
	if (in->corrupt_blocks) {
		const char *msg = tz_reader_errmsg(r);
		char where[96];
		snprintf(where, sizeof(where), "'%s': offset %llu", path,
			 (unsigned long long)in->corrupt_first_offset);
		tza_err("%s: %llu damaged block%s (see 'tracer-analyze verify'; "
			"'tracer-analyze --partial' analyzes the rest)",
			msg && *msg ? msg : where, (unsigned long long)in->corrupt_blocks,
			in->corrupt_blocks > 1 ? "s" : "");
		return -1;
	}
	return 0;
}

int tza_load(const char *path, tz_reader **r, struct tza_model **m)
{
	return tza_load_ex(path, 0, r, m);
}

int tza_model_read(const char *path, tz_reader *r, uint64_t from_ns, uint64_t to_ns,
		   uint32_t flags, struct tza_model **out)
{
	tza_progress_begin(path, tz_reader_info(r)->chunks);
	int rc = tza_model_build_ex(r, from_ns, to_ns, flags, out);
	tza_progress_end();
	return rc;
}

int tza_load_ex(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m)
{
	*m = NULL;
	*r = tza_open(path, NULL);
	if (!*r)
		return -1;
	return tza_load_reader(path, flags, r, m);
}

int tza_load_reader(const char *path, uint32_t flags, tz_reader **r, struct tza_model **m)
{
	*m = NULL;
	if (tza_check_whole(*r, path, 0) < 0)
		goto fail;
	int rc = tza_model_read(path, *r, 0, UINT64_MAX, flags, m);
	if (rc < 0) {
		const char *msg = tz_reader_errmsg(*r);
		if (msg && *msg)
			tza_err("%s", msg);
		else
			tza_err("'%s': %s", path, tz_strerror(rc));
		goto fail;
	}
	if (tza_check_whole(*r, path, 1) < 0)
		goto fail;
	if (tza_task_wanted() && tza_tasks_for(*m) < 0)
		goto fail;
	return 0;
fail:
	tza_model_free(*m);
	*m = NULL;
	tz_reader_free(*r);
	*r = NULL;
	return -1;
}

int tza_stdout_done(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tza_err("standard output: write failed");
		return TZA_EXIT_FAIL;
	}
	return TZA_EXIT_OK;
}

void tza_bad_option(const char *cmd, int argc, char **argv)
{
	const char *what = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	tza_err("%s: unknown option or missing argument: '%s' (see 'tracer-analyze %s --help')",
		cmd, what, cmd);
}

const char *tza_one_file(const char *cmd, int argc, char **argv)
{
	if (optind + 1 != argc) {
		tza_err("%s: expected one FILE (see 'tracer-analyze %s --help')", cmd, cmd);
		return NULL;
	}
	return argv[optind];
}

void tza_unload(tz_reader *r, struct tza_model *m)
{
	tza_tasks_release(m);
	tza_model_free(m);
	tz_reader_free(r);
}

int tza_parse_by(const char *opt, const char *s, enum tza_by *by)
{
	if (!strcmp(s, "exe"))
		*by = TZA_BY_EXE;
	else if (!strcmp(s, "tool"))
		*by = TZA_BY_TOOL;
	else if (!strcmp(s, "command"))
		*by = TZA_BY_COMMAND;
	else if (!strcmp(s, "task"))
		*by = TZA_BY_TASK;
	else if (!strcmp(s, "rule"))
		*by = TZA_BY_RULE;
	else if (!strcmp(s, "job"))
		*by = TZA_BY_JOB;
	else if (!strcmp(s, "container"))
		*by = TZA_BY_CONTAINER;
	else {
		tza_err("%s: '%s' is not one of exe, tool, command, task, rule, job, container",
			opt, s);
		return -1;
	}
	if (*by >= TZA_BY_TASK)
		tza_task_want();
	return 0;
}

const char *tza_by_header(enum tza_by by)
{
	static const char *const h[] = {"EXE", "TOOL", "COMMAND", "TASK", "RULE", "JOB", "CONTAINER"};
	return (unsigned)by < sizeof(h) / sizeof(h[0]) ? h[by] : "TOOL";
}

const char *tza_meta_any(tz_reader *r, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *v = tz_reader_meta_get(r, *keys);
		if (v && *v)
			return v;
	}
	return NULL;
}

const char *tza_trace_what(tz_reader *r, struct tza_model *m, char *buf, size_t n)
{
	static const char *const cmd_keys[] = {"command", "cmdline", "record_command", NULL};
	const char *v = tza_meta_any(r, cmd_keys), *mode = tz_reader_meta_get(r, "mode");
	if (v)
		return v;
	if (mode && !strcmp(mode, "system"))
		return "whole machine (tracer-record -a)";
	if (mode && !strcmp(mode, "pid")) {
		const char *pid = tz_reader_meta_get(r, "target_pid");
		snprintf(buf, n, "pid %s (tracer-record -p)", pid && *pid ? pid : "?");
		return buf;
	}
	for (uint32_t i = 0; i < m->nroots; i++)
		if (!(m->roots[i]->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD)))
			return tza_proc_key(m->roots[i], TZA_BY_COMMAND);
	return NULL;
}

int tza_realtime(tz_reader *r, uint64_t boot_ns, int64_t *rt)
{
	const char *off = tz_reader_meta_get(r, "realtime_offset_ns");
	if (off && *off) {
		char *end;
		long long v = strtoll(off, &end, 10);
		if (!*end) {
			*rt = (int64_t)boot_ns + v;
			return 0;
		}
	}
	return tz_reader_realtime(r, boot_ns, rt);
}

char *tza_fmt_utc(int64_t rt_ns, char *buf, size_t n)
{
	int64_t sec = rt_ns / 1000000000, ns = rt_ns % 1000000000;
	struct tm tm;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	time_t s = (time_t)sec;
	buf[0] = 0;
	if (!gmtime_r(&s, &tm))
		return buf;
	size_t l = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	if (l)
		snprintf(buf + l, n - l, ".%09ldZ", (long)ns);
	return buf;
}

/* a metadata number: decimal digits only (no sign, no junk), no overflow */
static int meta_u64(const char *v, uint64_t *out)
{
	uint64_t x = 0;
	if (!*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || x > (UINT64_MAX - 9) / 10)
			return 0;
		x = x * 10 + (uint64_t)(*v - '0');
	}
	*out = x;
	return 1;
}

unsigned tza_parse_cpus(const char *v)
{
	uint64_t x;
	return v && meta_u64(v, &x) && x >= 1 && x <= TZA_MAX_CPUS ? (unsigned)x : 0;
}

void tza_machine_get(tz_reader *r, struct tza_machine *mi)
{
	static const char *const cpus[] = {"cpus", "ncpus", "nr_cpus", "cpu_count",
					   "cpus_online", NULL};
	static const char *const memk[] = {"mem_total_kib", "memory_kib", "mem_kib",
					   "memtotal_kib", NULL};
	static const char *const memb[] = {"mem_total_bytes", "memory_bytes", "mem_bytes",
					   "memory", NULL};
	const char *v;
	uint64_t x;
	memset(mi, 0, sizeof(*mi));
	if ((v = tza_meta_any(r, cpus)))
		mi->ncpus = tza_parse_cpus(v);
	if ((v = tza_meta_any(r, memk)) && meta_u64(v, &x))
		mi->mem_kib = x;
	else if ((v = tza_meta_any(r, memb)) && meta_u64(v, &x))
		mi->mem_kib = x / 1024;
}

uint64_t tza_proc_span_start(const struct tza_model *m, const struct tza_proc *p)
{
	return p->start_ns < m->t0_ns && (p->flags & TZA_P_PRE_EXISTING) ? m->t0_ns
									 : tza_proc_charged_from(p);
}

uint64_t tza_proc_end(const struct tza_model *m, const struct tza_proc *p)
{
	/* exit lost: its last event (end_ns), never the end of the trace */
	uint64_t e = (p->flags & TZA_P_NO_EXIT) && !(p->flags & TZA_P_EXIT_LOST) ? m->t1_ns
										: p->end_ns;
	return e < p->start_ns ? p->start_ns : e;
}

double tza_proc_cpu_at(const struct tza_proc *p, uint64_t t)
{
	int ended = !(p->flags & TZA_P_NO_EXIT) && p->end_ns;
	uint64_t t0 = tza_proc_charged_from(p); /* a slice's start for a clipped process */
	double c0 = 0;

	if (t <= t0)
		return 0;
	for (uint32_t i = 0; i <= p->res->nsamples; i++) {
		uint64_t t1;
		double c1;
		if (i < p->res->nsamples) {
			t1 = p->res->samples[i].ts_ns;
			c1 = (double)(p->res->samples[i].utime_ns + p->res->samples[i].stime_ns);
		} else if (ended) {
			t1 = p->end_ns;
			c1 = (double)(p->utime_ns + p->stime_ns);
		} else if (!p->res->nsamples && (p->flags & TZA_P_SAMPLED)) {
			/* samples not kept: the last one, which the model has */
			t1 = p->res->last.ts_ns;
			c1 = (double)(p->utime_ns + p->stime_ns);
		} else {
			return c0;
		}
		if (c1 < c0)
			c1 = c0;
		if (t <= t1)
			return t1 > t0 ? c0 + (c1 - c0) * (double)(t - t0) / (double)(t1 - t0) : c1;
		t0 = t1;
		c0 = c1;
	}
	return c0;
}

double tza_proc_cpu_in(const struct tza_proc *p, uint64_t a, uint64_t b)
{
	return b > a ? tza_proc_cpu_at(p, b) - tza_proc_cpu_at(p, a) : 0;
}

struct rss_step {
	uint64_t t;
	int64_t d; /* KiB */
};

static int cmp_rss_step(const void *a, const void *b)
{
	const struct rss_step *x = a, *y = b;
	CMP_RET(x->t, y->t);
	return (x->d > y->d) - (x->d < y->d); /* at one time, what leaves first */
}

int tza_procs_peak_rss(const struct tza_model *m, uint64_t *kib, uint64_t *t_ns)
{
	return tza_procs_peak_rss_of(m->procs, m->nprocs, kib, t_ns);
}

/* own: leave out each process's samples before its first exec (its copy of
 * its parent's image, tza_proc_own_rss_kib) */
static int procs_peak_rss(struct tza_proc *const *procs, uint32_t np, int own, uint64_t *kib,
			  uint64_t *t_ns)
{
	size_t n = 0, k = 0;
	*kib = 0;
	*t_ns = 0;
	for (uint32_t i = 0; i < np; i++)
		if (procs[i]->res->nsamples)
			n += procs[i]->res->nsamples + 1;
	if (!n)
		return 0;
	struct rss_step *v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < np; i++) {
		const struct tza_proc *p = procs[i];
		int64_t prev = 0;
		uint64_t from = own && p->nexecs && !(p->execs[0].flags & TZA_EXEC_FROM_STATE)
				    ? p->execs[0].ts_ns
				    : 0;
		for (uint32_t j = 0; j < p->res->nsamples; j++) {
			int64_t r = p->res->samples[j].rss_kib;
			if (p->res->samples[j].ts_ns < from)
				continue;
			v[k++] = (struct rss_step){p->res->samples[j].ts_ns, r - prev};
			prev = r;
		}
		/* an exit (or the last event of a lost one) takes it away */
		if (p->res->nsamples && p->end_ns && (!(p->flags & TZA_P_NO_EXIT) ||
						      (p->flags & TZA_P_EXIT_LOST)))
			v[k++] = (struct rss_step){p->end_ns, -prev};
	}
	qsort(v, k, sizeof(*v), cmp_rss_step);
	int64_t sum = 0;
	for (size_t i = 0; i < k; i++) {
		sum += v[i].d;
		if (sum > 0 && (uint64_t)sum > *kib) {
			*kib = (uint64_t)sum;
			*t_ns = v[i].t;
		}
	}
	free(v);
	return 0;
}

int tza_procs_peak_rss_of(struct tza_proc *const *procs, uint32_t n, uint64_t *kib, uint64_t *t_ns)
{
	return procs_peak_rss(procs, n, 0, kib, t_ns);
}

int tza_procs_own_peak_rss_of(struct tza_proc *const *procs, uint32_t n, uint64_t *kib,
			      uint64_t *t_ns)
{
	return procs_peak_rss(procs, n, 1, kib, t_ns);
}

int tza_proc_failed(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_NO_EXIT) && (p->signal || p->exit_code != 0);
}
