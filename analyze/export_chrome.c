/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export_chrome.c - `tracer-analyze export --format chrome`: the processes
 * as a Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing). Keys:
 * docs/tracer-analyze.md "export".
 */
#include <stdlib.h>

#include "dropslot.h"
#include "export.h"
#include "json.h"
#include "report.h"

static void us(FILE *f, int64_t ns)
{
	fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)((ns < 0 ? -ns : ns) % 1000));
}

struct cstep {
	uint64_t t;
	int d;	    /* +1 start, -1 end */
	double rate; /* cores, signed like d */
};

static int cmp_cstep(const void *a, const void *b)
{
	const struct cstep *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Counter tracks on pid 0: processes running, and CPU cores in use (each
 * process's self CPU spread evenly over its life: an estimate). */
static void chrome_counters(FILE *f, struct tza_model *m)
{
	struct cstep *st = malloc((2 * (size_t)m->nprocs + 1) * sizeof(*st));
	if (!st)
		return;
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		uint64_t s = p->start_ns < m->t0_ns ? m->t0_ns : p->start_ns, e = tza_proc_end(m, p);
		double r = e > tza_proc_charged_from(p) ? (double)tza_proc_cpu(p) / (double)(e - tza_proc_charged_from(p)) : 0;
		st[n++] = (struct cstep){s, 1, r};
		st[n++] = (struct cstep){e, -1, -r};
	}
	qsort(st, n, sizeof(*st), cmp_cstep);
	fputs(",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,"
	      "\"args\":{\"name\":\"machine\"}}",
	      f);
	long running = 0;
	double cores = 0;
	for (uint32_t i = 0; i < n;) {
		uint64_t t = st[i].t;
		for (; i < n && st[i].t == t; i++) {
			running += st[i].d;
			cores += st[i].rate;
		}
		if (cores < 1e-9)
			cores = 0;
		fputs(",\n{\"ph\":\"C\",\"name\":\"processes running\",\"pid\":0,\"tid\":0,\"ts\":", f);
		us(f, tza_xrel(m, t));
		fprintf(f, ",\"args\":{\"processes\":%ld}}", running);
		fputs(",\n{\"ph\":\"C\",\"name\":\"cpu cores (estimate)\",\"pid\":0,\"tid\":0,\"ts\":", f);
		us(f, tza_xrel(m, t));
		fputs(",\"args\":{\"cores\":", f);
		tza_json_num(f, cores);
		fputs("}}", f);
	}
	free(st);
}

/* Process p = m->procs[i]: its track (named "tool [pid]", ordered by
 * start), a complete event for its life, instants for its execs, OOM kill
 * and failed execs, and a counter track of its resident memory. */
static void chrome_proc(FILE *f, struct tza_model *m, uint32_t i, enum tza_by by)
{
	struct tza_proc *p = m->procs[i];
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	const char *tool = tza_proc_key(p, by);
	uint32_t track = i + 1;
	uint64_t s = p->start_ns < m->t0_ns ? m->t0_ns : p->start_ns;
	uint64_t e = tza_proc_end(m, p);
	if (i)
		fputs(",\n", f);
	/* track name and order */
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":%u,"
		   "\"args\":{\"name\":",
		track, p->pid);
	{
		char *nm = NULL;
		size_t nl = 0;
		FILE *mf = open_memstream(&nm, &nl);
		if (mf) {
			fprintf(mf, "%s [%u]", tool, p->pid);
			fclose(mf);
		}
		tza_json_str(f, nm ? nm : "", nm ? nl : 0);
		free(nm);
	}
	fprintf(f, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,"
		   "\"tid\":%u,\"args\":{\"sort_index\":%u}},\n",
		track, p->pid, i);
	fputs("{\"ph\":\"X\",\"cat\":\"process\",\"name\":", f);
	tza_json_cstr(f, tool);
	fputs(",\"ts\":", f);
	us(f, tza_xrel(m, s));
	fputs(",\"dur\":", f);
	us(f, (int64_t)(e - s));
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"id\":", track, p->pid);
	char idb[TZA_ID_MAX];
	tza_json_cstr(f, tza_proc_id(p, idb));
	tza_json_key_cstr(f, "parent_id", p->parent ? tza_proc_id(p->parent, idb) : NULL);
	tza_json_key_cstr(f, "exe", inh ? inh->ctx->exe : NULL);
	fputs(",\"argv\":", f);
	if (inh)
		tza_json_argv(f, inh->argv, inh->argv_len);
	else
		fputs("[]", f);
	if (p->flags & TZA_P_EXITED_BEFORE) /* a zombie at the start */
		fputs(",\"exited_before\":true", f);
	else if (p->flags & TZA_P_EXIT_LOST) /* the slice ends at its last event */
		fputs(",\"exit_lost\":true", f);
	else if (p->flags & TZA_P_NO_EXIT)
		fputs(",\"running\":true", f);
	else if (p->signal)
		fprintf(f, ",\"signal\":%d", p->signal);
	else
		fprintf(f, ",\"exit_code\":%d", p->exit_code);
	tza_json_key_secs(f, "cpu_s", (int64_t)tza_proc_cpu(p));
	uint64_t peak; /* as tree: an exit's, a running one's to its last sample */
	if (tza_proc_peak_view(p, &peak, NULL))
		fprintf(f, ",\"peak_rss_kib\":%llu}}", (unsigned long long)peak);
	else
		fputs(",\"peak_rss_kib\":null}}", f);
	for (uint32_t k = 0; k < p->nexecs; k++) {
		const struct tza_exec *x = &p->execs[k];
		fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"exec\",\"name\":", f);
		tza_json_cstr(f, x->ctx->exe ? x->ctx->exe : "exec");
		fputs(",\"ts\":", f);
		us(f, tza_xrel(m, x->ts_ns < s ? s : x->ts_ns));
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"argv\":", track, p->pid);
		tza_json_argv(f, x->argv, x->argv_len);
		fputs("}}", f);
	}
	/* periodic samples: resident memory and cumulative CPU of this process */
	for (uint32_t k = 0; k < p->res->nsamples; k++) {
		const struct tza_sample *x = &p->res->samples[k];
		if (!tza_sample_rss_known(p, x))
			continue; /* no point on the track: unknown, not 0 */
		fputs(",\n{\"ph\":\"C\",\"name\":\"rss MiB\",\"ts\":", f);
		us(f, tza_xrel(m, x->ts_ns));
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"rss\":", track, p->pid);
		tza_json_num(f, x->rss_kib / 1024.0);
		fputs("}}", f);
	}
	if (p->res->oom_killed) {
		fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"oom_kill\",\"name\":\"OOM kill\","
		      "\"ts\":",
		      f);
		us(f, tza_xrel(m, p->res->oom_ns));
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"rss_kib\":%llu}}", track, p->pid,
			(unsigned long long)p->res->oom_rss_kib);
	}
	for (uint32_t k = 0; k < p->nfailed; k++) {
		fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"exec_failed\",\"name\":", f);
		tza_json_cstr(f, p->failed[k].filename ? p->failed[k].filename : "exec");
		fputs(",\"ts\":", f);
		us(f, tza_xrel(m, p->failed[k].ts_ns));
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"errno\":%d}}", track, p->pid,
			p->failed[k].err);
	}
}

/* Counter tracks of the host samples: CPU cores busy between two samples
 * and memory in use; first: nothing written before in traceEvents. */
static void chrome_host(FILE *f, struct tza_model *m, int first)
{
	for (uint32_t i = 1; i < m->nhost; i++) {
		const struct tza_host_sample *a = &m->host[i - 1], *b = &m->host[i];
		if (b->ts_ns <= a->ts_ns || b->busy_ns < a->busy_ns)
			continue;
		fputs(first ? "{" : ",\n{", f);
		first = 0;
		fputs("\"ph\":\"C\",\"name\":\"host cpu cores busy\",\"pid\":0,\"tid\":0,\"ts\":", f);
		us(f, tza_xrel(m, a->ts_ns));
		fputs(",\"args\":{\"cores\":", f);
		tza_json_num(f, (double)(b->busy_ns - a->busy_ns) / (double)(b->ts_ns - a->ts_ns));
		fputs("}},\n{\"ph\":\"C\",\"name\":\"host memory used MiB\",\"pid\":0,\"tid\":0,"
		      "\"ts\":",
		      f);
		us(f, tza_xrel(m, b->ts_ns));
		fputs(",\"args\":{\"used\":", f);
		tza_json_num(f, b->mem_used_kib / 1024.0);
		fputs("}}", f);
	}
}

void tza_export_chrome(FILE *f, struct tza_model *m, enum tza_by by)
{
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"tracer-analyze " TRACER_VERSION
	      "\",\"drops\":{",
	      f);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		fprintf(f, "\"%s\":%llu,", tza_drop_slots[i].name,
			(unsigned long long)m->drops[tza_drop_slots[i].slot]);
	fprintf(f, "\"total\":%llu},\"incomplete\":%s},\"traceEvents\":[\n",
		(unsigned long long)tza_drops_lost(m->drops), m->incomplete ? "true" : "false");
	for (uint32_t i = 0; i < m->nprocs; i++)
		chrome_proc(f, m, i, by);
	if (m->nprocs)
		chrome_counters(f, m);
	chrome_host(f, m, m->nprocs == 0);
	fputs("\n]}\n", f);
}

