/*
 * cmd_export.c - processes as jsonl (the recorder issue's analysis
 * contract), csv/tsv (Nextflow-style column names) or a Chrome trace-event
 * JSON for ui.perfetto.dev / chrome://tracing. Keys are public contracts:
 * docs/tracer-analyze.md "export".
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/events.h"
#include "json.h"
#include "report.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer-analyze export --format csv|tsv|jsonl|chrome [--by exe|tool|command]\n"
		"                             [--samples] [-o OUT] FILE\n\n"
		"Write every process of FILE, ordered by start time:\n"
		"  jsonl   one JSON object per process (keys: docs/tracer-analyze.md)\n"
		"  csv,tsv one row per process, Nextflow trace column names where they exist\n"
		"          (realtime, %%cpu, peak_rss, rchar, wchar, syscr, syscw, read_bytes,\n"
		"          write_bytes, vol_ctxt, inv_ctxt)\n"
		"  chrome  Chrome trace-event JSON: open in ui.perfetto.dev or chrome://tracing\n\n"
		"Options:\n"
		"  -f, --format FMT   output format (required)\n"
		"  -b, --by KEY       naming of the 'tool' column/key: exe, tool (default), command\n"
		"  -o, --output OUT   write to OUT instead of standard output\n"
		"      --samples      jsonl: add each process's samples (t_s, utime_s, stime_s,\n"
		"                     rss_kib, threads, read_bytes, write_bytes)\n"
		"  -h, --help         this help\n\n"
		"Arguments that are not valid UTF-8 are written in JSON as \\udcXX escapes\n"
		"(Python's surrogateescape); csv/tsv quote argv words like bash $'...'.\n\n"
		"Examples:\n"
		"  tracer-analyze export --format jsonl trace.tz > procs.jsonl\n"
		"  tracer-analyze export --format csv --by command trace.tz > procs.csv\n"
		"  tracer-analyze export --format chrome -o trace.json trace.tz\n");
}

static int64_t rel(const struct tza_model *m, uint64_t ns)
{
	return (int64_t)(ns - m->t0_ns);
}

static void key_u64(FILE *f, const char *k, uint64_t v, int known)
{
	if (known)
		fprintf(f, ",\"%s\":%llu", k, (unsigned long long)v);
	else
		fprintf(f, ",\"%s\":null", k);
}

/* "oom_killed", "killed_by" and, with --samples, "samples" */
static void jsonl_over_time(FILE *f, struct tza_model *m, struct tza_proc *p, int samples)
{
	int ended = !(p->flags & TZA_P_NO_EXIT);
	fprintf(f, ",\"oom_killed\":%s", p->oom_killed ? "true" : "false");
	if (ended && p->killer_signal && p->killer_signal == p->signal) {
		fprintf(f, ",\"killed_by\":{\"pid\":%u,\"signal\":%d,\"comm\":", p->killer_pid,
			p->killer_signal);
		tza_json_cstr(f, p->killer_comm);
		fprintf(f, ",\"kernel\":%s,\"t_s\":", p->killer_kernel ? "true" : "false");
		tza_json_secs(f, rel(m, p->kill_ns));
		fputc('}', f);
	} else {
		fputs(",\"killed_by\":null", f);
	}
	if (!samples)
		return;
	fputs(",\"samples\":[", f);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct tza_sample *s = &p->samples[i];
		fputs(i ? ",{\"t_s\":" : "{\"t_s\":", f);
		tza_json_secs(f, rel(m, s->ts_ns));
		fputs(",\"utime_s\":", f);
		tza_json_secs(f, (int64_t)s->utime_ns);
		fputs(",\"stime_s\":", f);
		tza_json_secs(f, (int64_t)s->stime_ns);
		fprintf(f, ",\"rss_kib\":%u,\"threads\":%u,\"read_bytes\":%llu,\"write_bytes\":%llu}",
			s->rss_kib, s->threads, (unsigned long long)s->read_bytes,
			(unsigned long long)s->write_bytes);
	}
	fputc(']', f);
}

static void jsonl_proc(FILE *f, struct tza_model *m, struct tza_proc *p, enum tza_by by,
		       int samples)
{
	const struct tza_exec *img = tza_proc_image(p);
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);
	uint64_t cpu = tza_proc_cpu(p);

	fputs("{\"id\":", f);
	tza_json_cstr(f, p->id);
	fputs(",\"parent_id\":", f);
	tza_json_cstr(f, p->parent ? p->parent->id : NULL);
	fprintf(f, ",\"pid\":%u,\"ppid\":%u,\"start_s\":", p->pid, p->ppid);
	tza_json_secs(f, rel(m, p->start_ns));
	fputs(",\"end_s\":", f);
	if (ended)
		tza_json_secs(f, rel(m, p->end_ns));
	else
		fputs("null", f);
	fputs(",\"realtime_s\":", f);
	if (ended)
		tza_json_secs(f, (int64_t)(p->end_ns - p->start_ns));
	else
		fputs("null", f);
	fputs(",\"exe\":", f);
	tza_json_cstr(f, inh ? inh->exe : NULL);
	fputs(",\"argv\":", f);
	if (inh)
		tza_json_argv(f, inh->argv, inh->argv_len);
	else
		fputs("[]", f);
	fputs(",\"comm\":", f);
	tza_json_str(f, p->comm, strnlen(p->comm, sizeof(p->comm)));
	fputs(",\"tool\":", f);
	tza_json_cstr(f, tza_proc_key(p, by));
	fputs(",\"execs\":[", f);
	for (uint32_t i = 0; i < p->nexecs; i++) {
		const struct tza_exec *e = &p->execs[i];
		fputs(i ? ",{\"t_s\":" : "{\"t_s\":", f);
		tza_json_secs(f, rel(m, e->ts_ns));
		fputs(",\"exe\":", f);
		tza_json_cstr(f, e->exe);
		fputs(",\"argv\":", f);
		tza_json_argv(f, e->argv, e->argv_len);
		fputs(",\"filename\":", f);
		tza_json_cstr(f, e->filename);
		fputs(",\"script\":", f);
		tza_json_cstr(f, e->script);
		fputs(",\"comm\":", f);
		tza_json_str(f, e->comm, strnlen(e->comm, sizeof(e->comm)));
		fprintf(f, ",\"argc\":%u,\"argv_size\":%u,\"argv_truncated\":%s,\"uid\":%u,"
			   "\"euid\":%u,\"gid\":%u,\"egid\":%u,\"deleted\":%s,\"memfd\":%s,"
			   "\"from_snapshot\":%s}",
			e->argc, e->argv_size, e->flags & EV_EXEC_ARGV_TRUNCATED ? "true" : "false",
			e->uid, e->euid, e->gid, e->egid,
			e->flags & EV_EXEC_EXE_DELETED ? "true" : "false",
			e->flags & EV_EXEC_EXE_MEMFD ? "true" : "false",
			e->flags & TZA_EXEC_FROM_STATE ? "true" : "false");
	}
	fputs("],\"failed_execs\":[", f);
	for (uint32_t i = 0; i < p->nfailed; i++) {
		fputs(i ? ",{\"t_s\":" : "{\"t_s\":", f);
		tza_json_secs(f, rel(m, p->failed[i].ts_ns));
		fputs(",\"filename\":", f);
		tza_json_cstr(f, p->failed[i].filename);
		fprintf(f, ",\"errno\":%d}", p->failed[i].err);
	}
	fprintf(f, "],\"execs_omitted\":%llu,\"failed_execs_omitted\":%llu,\"exe_deleted\":%s,"
		   "\"script\":",
		(unsigned long long)p->nexecs_omitted, (unsigned long long)p->nfailed_omitted,
		(p->flags & TZA_P_EXE_DELETED) || (inh && (inh->flags & EV_EXEC_EXE_DELETED))
			? "true"
			: "false");
	tza_json_cstr(f, img ? img->script : NULL);
	fprintf(f, ",\"pre_existing\":%s", p->flags & TZA_P_PRE_EXISTING ? "true" : "false");
	if (ended && !p->signal)
		fprintf(f, ",\"exit_code\":%d,\"signal\":null", p->exit_code);
	else if (ended)
		fprintf(f, ",\"exit_code\":null,\"signal\":%d", p->signal);
	else
		fputs(",\"exit_code\":null,\"signal\":null", f);
	fprintf(f, ",\"core_dumped\":%s", p->core_dumped ? "true" : "false");
	if (ended) {
		fputs(",\"utime_s\":", f);
		tza_json_secs(f, (int64_t)p->utime_ns);
		fputs(",\"stime_s\":", f);
		tza_json_secs(f, (int64_t)p->stime_ns);
		fputs(",\"cpu_pct\":", f);
		uint64_t wall = p->end_ns - p->start_ns;
		tza_json_num(f, wall ? 100.0 * (double)cpu / (double)wall : 0);
	} else {
		fputs(",\"utime_s\":null,\"stime_s\":null,\"cpu_pct\":null", f);
	}
	key_u64(f, "peak_rss_kib", p->maxrss_kib, ended);
	key_u64(f, "rchar", p->rchar, ended);
	key_u64(f, "wchar", p->wchar, ended);
	key_u64(f, "syscr", p->syscr, ended);
	key_u64(f, "syscw", p->syscw, ended);
	key_u64(f, "read_bytes", p->read_bytes, ended);
	key_u64(f, "write_bytes", p->write_bytes, ended);
	key_u64(f, "cancelled_write_bytes", p->cancelled_write_bytes, ended);
	key_u64(f, "threads", p->threads, ended);
	key_u64(f, "vol_ctxt", p->nvcsw, ended);
	key_u64(f, "inv_ctxt", p->nivcsw, ended);
	key_u64(f, "min_flt", p->min_flt, ended);
	key_u64(f, "maj_flt", p->maj_flt, ended);
	fprintf(f, ",\"uid\":%u,\"euid\":%u,\"ns_pid\":%u,\"argv_truncated\":%s", p->uid, p->euid,
		p->ns_pid, p->flags & TZA_P_ARGV_TRUNCATED ? "true" : "false");
	key_u64(f, "exit_ppid", p->exit_ppid, ended && p->exit_ppid);
	jsonl_over_time(f, m, p, samples);
	fprintf(f, ",\"reparented\":%s,\"no_fork\":%s,\"orphan\":%s,\"exit_lost\":%s}\n",
		p->flags & TZA_P_REPARENTED ? "true" : "false",
		p->flags & TZA_P_NO_FORK ? "true" : "false",
		p->flags & TZA_P_ORPHAN ? "true" : "false",
		p->flags & TZA_P_EXIT_LOST ? "true" : "false");
}

/* One csv/tsv field: csv quotes per RFC 4180; tsv escapes \t \n \r \\. */
static void sv_field(FILE *f, const char *s, size_t len, int tsv)
{
	if (tsv) {
		for (size_t i = 0; i < len; i++) {
			switch (s[i]) {
			case '\t': fputs("\\t", f); break;
			case '\n': fputs("\\n", f); break;
			case '\r': fputs("\\r", f); break;
			case '\\': fputs("\\\\", f); break;
			default: fputc(s[i], f);
			}
		}
		return;
	}
	if (!memchr(s, ',', len) && !memchr(s, '"', len) && !memchr(s, '\n', len) &&
	    !memchr(s, '\r', len)) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void sv_str(FILE *f, const char *s, int tsv)
{
	sv_field(f, s ? s : "", s ? strlen(s) : 0, tsv);
}

static const char *const sv_cols[] = {
	"id", "parent_id", "pid", "ppid", "name", "exe", "command_line", "start", "complete",
	"realtime", "%cpu", "peak_rss", "rchar", "wchar", "syscr", "syscw", "read_bytes",
	"write_bytes", "vol_ctxt", "inv_ctxt", "exit", "signal", "core_dumped", "threads",
	"utime", "stime", "failed_execs", "pre_existing", NULL,
};

static void sv_proc(FILE *f, struct tza_model *m, struct tza_proc *p, enum tza_by by, int tsv)
{
	char sep = tsv ? '\t' : ',';
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);
	char *cl = NULL;
	size_t cll = 0;
	FILE *mf = open_memstream(&cl, &cll);
	if (mf) {
		if (inh)
			tza_text_argv(mf, inh->argv, inh->argv_len, 0);
		fclose(mf);
	}
	sv_str(f, p->id, tsv);
	fputc(sep, f);
	sv_str(f, p->parent ? p->parent->id : "", tsv);
	fprintf(f, "%c%u%c%u%c", sep, p->pid, sep, p->ppid, sep);
	sv_str(f, tza_proc_key(p, by), tsv);
	fputc(sep, f);
	sv_str(f, inh ? inh->exe : "", tsv);
	fputc(sep, f);
	sv_field(f, cl ? cl : "", cl ? cll : 0, tsv);
	free(cl);
	fprintf(f, "%c%.6f%c", sep, (double)rel(m, p->start_ns) / 1e9, sep);
	if (!ended) {
		/* still running: only what is known */
		for (int i = 0; i < 18; i++)
			fputc(sep, f);
		fprintf(f, "%llu%c%s\n", (unsigned long long)(p->nfailed + p->nfailed_omitted), sep,
			p->flags & TZA_P_PRE_EXISTING ? "true" : "false");
		return;
	}
	uint64_t wall = p->end_ns - p->start_ns;
	fprintf(f, "%.6f%c%.3f%c%.1f%c%llu%c%llu%c%llu%c%llu%c%llu%c%llu%c%llu%c%llu%c%llu%c",
		(double)rel(m, p->end_ns) / 1e9, sep, (double)wall / 1e6, sep,
		wall ? 100.0 * (double)tza_proc_cpu(p) / (double)wall : 0.0, sep,
		(unsigned long long)p->maxrss_kib * 1024, sep, (unsigned long long)p->rchar, sep,
		(unsigned long long)p->wchar, sep, (unsigned long long)p->syscr, sep,
		(unsigned long long)p->syscw, sep, (unsigned long long)p->read_bytes, sep,
		(unsigned long long)p->write_bytes, sep, (unsigned long long)p->nvcsw, sep,
		(unsigned long long)p->nivcsw, sep);
	if (p->signal)
		fprintf(f, "%c%d", sep, p->signal);
	else
		fprintf(f, "%d%c", p->exit_code, sep);
	fprintf(f, "%c%s%c%u%c%.6f%c%.6f%c%llu%c%s\n", sep, p->core_dumped ? "true" : "false", sep,
		p->threads, sep, (double)p->utime_ns / 1e9, sep, (double)p->stime_ns / 1e9, sep,
		(unsigned long long)(p->nfailed + p->nfailed_omitted), sep, p->flags & TZA_P_PRE_EXISTING ? "true" : "false");
}

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
		double r = e > p->start_ns ? (double)tza_proc_cpu(p) / (double)(e - p->start_ns) : 0;
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
		us(f, rel(m, t));
		fprintf(f, ",\"args\":{\"processes\":%ld}}", running);
		fputs(",\n{\"ph\":\"C\",\"name\":\"cpu cores (estimate)\",\"pid\":0,\"tid\":0,\"ts\":", f);
		us(f, rel(m, t));
		fputs(",\"args\":{\"cores\":", f);
		tza_json_num(f, cores);
		fputs("}}", f);
	}
	free(st);
}

static void chrome(FILE *f, struct tza_model *m, enum tza_by by)
{
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"tracer-analyze " TRACER_VERSION
	      "\"},\"traceEvents\":[\n",
	      f);
	int first = 1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		const struct tza_exec *inh = tza_proc_image_inherited(p);
		const char *tool = tza_proc_key(p, by);
		uint32_t track = i + 1;
		uint64_t s = p->start_ns < m->t0_ns ? m->t0_ns : p->start_ns;
		uint64_t e = tza_proc_end(m, p);
		if (!first)
			fputs(",\n", f);
		first = 0;
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
		us(f, rel(m, s));
		fputs(",\"dur\":", f);
		us(f, (int64_t)(e - s));
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"id\":", track, p->pid);
		tza_json_cstr(f, p->id);
		fputs(",\"parent_id\":", f);
		tza_json_cstr(f, p->parent ? p->parent->id : NULL);
		fputs(",\"exe\":", f);
		tza_json_cstr(f, inh ? inh->exe : NULL);
		fputs(",\"argv\":", f);
		if (inh)
			tza_json_argv(f, inh->argv, inh->argv_len);
		else
			fputs("[]", f);
		if (p->flags & TZA_P_EXIT_LOST) /* the slice ends at its last event */
			fputs(",\"exit_lost\":true", f);
		else if (p->flags & TZA_P_NO_EXIT)
			fputs(",\"running\":true", f);
		else if (p->signal)
			fprintf(f, ",\"signal\":%d", p->signal);
		else
			fprintf(f, ",\"exit_code\":%d", p->exit_code);
		fputs(",\"cpu_s\":", f);
		tza_json_secs(f, (int64_t)tza_proc_cpu(p));
		fprintf(f, ",\"peak_rss_kib\":%llu}}", (unsigned long long)p->maxrss_kib);
		for (uint32_t k = 0; k < p->nexecs; k++) {
			const struct tza_exec *x = &p->execs[k];
			fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"exec\",\"name\":", f);
			tza_json_cstr(f, x->exe ? x->exe : "exec");
			fputs(",\"ts\":", f);
			us(f, rel(m, x->ts_ns < s ? s : x->ts_ns));
			fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"argv\":", track, p->pid);
			tza_json_argv(f, x->argv, x->argv_len);
			fputs("}}", f);
		}
		/* periodic samples: resident memory and cumulative CPU of this process */
		for (uint32_t k = 0; k < p->nsamples; k++) {
			const struct tza_sample *x = &p->samples[k];
			fputs(",\n{\"ph\":\"C\",\"name\":\"rss MiB\",\"ts\":", f);
			us(f, rel(m, x->ts_ns));
			fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"rss\":", track, p->pid);
			tza_json_num(f, x->rss_kib / 1024.0);
			fputs("}}", f);
		}
		if (p->oom_killed) {
			fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"oom_kill\",\"name\":\"OOM kill\","
			      "\"ts\":",
			      f);
			us(f, rel(m, p->oom_ns));
			fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"rss_kib\":%llu}}", track, p->pid,
				(unsigned long long)p->oom_rss_kib);
		}
		for (uint32_t k = 0; k < p->nfailed; k++) {
			fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"exec_failed\",\"name\":", f);
			tza_json_cstr(f, p->failed[k].filename ? p->failed[k].filename : "exec");
			fputs(",\"ts\":", f);
			us(f, rel(m, p->failed[k].ts_ns));
			fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"errno\":%d}}", track, p->pid,
				p->failed[k].err);
		}
	}
	if (m->nprocs)
		chrome_counters(f, m);
	/* host samples: CPU cores busy between samples and memory in use */
	for (uint32_t i = 1; i < m->nhost; i++) {
		const struct tza_host_sample *a = &m->host[i - 1], *b = &m->host[i];
		if (b->ts_ns <= a->ts_ns || b->busy_ns < a->busy_ns)
			continue;
		fputs(first ? "{" : ",\n{", f);
		first = 0;
		fputs("\"ph\":\"C\",\"name\":\"host cpu cores busy\",\"pid\":0,\"tid\":0,\"ts\":", f);
		us(f, rel(m, a->ts_ns));
		fputs(",\"args\":{\"cores\":", f);
		tza_json_num(f, (double)(b->busy_ns - a->busy_ns) / (double)(b->ts_ns - a->ts_ns));
		fputs("}},\n{\"ph\":\"C\",\"name\":\"host memory used MiB\",\"pid\":0,\"tid\":0,"
		      "\"ts\":",
		      f);
		us(f, rel(m, b->ts_ns));
		fputs(",\"args\":{\"used\":", f);
		tza_json_num(f, b->mem_used_kib / 1024.0);
		fputs("}}", f);
	}
	fputs("\n]}\n", f);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'}, {"by", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{"samples", no_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	const char *fmt = NULL, *outp = NULL;
	enum tza_by by = TZA_BY_TOOL;
	int c, samples = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:b:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fmt = optarg;
			break;
		case 'b':
			if (tza_parse_by("--by", optarg, &by) < 0)
				return TZA_EXIT_USAGE;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'S':
			samples = 1;
			break;
		case 'h':
			usage(stdout);
			return TZA_EXIT_OK;
		default:
			tza_bad_option("export", argc, argv);
			return TZA_EXIT_USAGE;
		}
	}
	if (!fmt) {
		tza_err("export: --format is required (csv, tsv, jsonl or chrome)");
		return TZA_EXIT_USAGE;
	}
	int kind = !strcmp(fmt, "jsonl") ? 0 : !strcmp(fmt, "csv") ? 1 : !strcmp(fmt, "tsv") ? 2
				      : !strcmp(fmt, "chrome") ? 3 : -1;
	if (kind < 0) {
		tza_err("--format: '%s' is not one of csv, tsv, jsonl, chrome", fmt);
		return TZA_EXIT_USAGE;
	}
	if (optind + 1 != argc) {
		tza_err("export: expected one FILE (see 'tracer-analyze export --help')");
		return TZA_EXIT_USAGE;
	}
	tz_reader *r;
	struct tza_model *m;
	if (samples && kind != 0) {
		tza_err("export: --samples needs --format jsonl");
		return TZA_EXIT_USAGE;
	}
	/* chrome draws the samples as counter tracks */
	if (tza_load_ex(argv[optind], samples || kind == 3 ? TZA_MB_SAMPLES : 0, &r, &m) < 0)
		return TZA_EXIT_FAIL;
	FILE *f = stdout;
	if (outp) {
		/* a fresh 0600 file: never the old file's inode, never through a symlink */
		int fd = tz_create_file(outp, 1);
		if (fd == TZ_ERR_INVAL)
			tza_err("'%s': not a regular file", outp);
		else if (fd < 0 || !(f = fdopen(fd, "w")))
			tza_err("'%s': cannot create: %m", outp);
		if (fd < 0 || !f) {
			if (fd >= 0)
				close(fd);
			tza_unload(r, m);
			return TZA_EXIT_FAIL;
		}
	}
	if (kind == 0) {
		for (uint32_t i = 0; i < m->nprocs; i++)
			jsonl_proc(f, m, m->procs[i], by, samples);
	} else if (kind == 3) {
		chrome(f, m, by);
	} else {
		for (int i = 0; sv_cols[i]; i++)
			fprintf(f, "%s%s", i ? (kind == 2 ? "\t" : ",") : "", sv_cols[i]);
		fputc('\n', f);
		for (uint32_t i = 0; i < m->nprocs; i++)
			sv_proc(f, m, m->procs[i], by, kind == 2);
	}
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	tza_unload(r, m);
	if (bad) {
		tza_err("'%s': write failed", outp ? outp : "standard output");
		return TZA_EXIT_FAIL;
	}
	return TZA_EXIT_OK;
}
