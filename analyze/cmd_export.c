/* SPDX-License-Identifier: BSD-2-Clause */
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
#include "dropslot.h"
#include "export.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"

static const char export_synopsis[] =
	"usage: tracer-analyze export --format csv|tsv|jsonl|chrome [--by KEY] [--task REGEX]\n"
	"                             [--samples | --tasks | --host] [-o OUT [--force]] FILE\n"
	"\n"
	"Write every process of FILE, ordered by start time:\n"
	"  jsonl   one JSON object per process (keys: docs/tracer-analyze.md)\n"
	"  csv,tsv one row per process, units in the column names (start_s, start_utc,\n"
	"          realtime_ms, peak_rss_kib, utime_s; byte counters in bytes), Nextflow\n"
	"          trace names where they exist (%cpu, rchar, wchar, syscr, syscw,\n"
	"          read_bytes, write_bytes, vol_ctxt, inv_ctxt)\n"
	"  chrome  Chrome trace-event JSON: open in ui.perfetto.dev or chrome://tracing\n"
	"\n";

static const char export_epilog[] =
	"\n"
	"Arguments that are not valid UTF-8 are written in JSON as \\udcXX escapes\n"
	"(Python's surrogateescape); csv/tsv quote argv words like bash $'...' and\n"
	"show control bytes and invalid UTF-8 in names as \\e, \\t, \\xNN (never raw).\n"
	"\n"
	"Examples:\n"
	"  tracer-analyze export --format jsonl trace.tz > procs.jsonl\n"
	"  tracer-analyze export --format csv --by command trace.tz > procs.csv\n"
	"  tracer-analyze export --format chrome -o trace.json trace.tz\n";

static const struct tza_cmd_spec export_spec = {
    .name = "export", .synopsis = export_synopsis, .epilog = export_epilog, .col = 21, .nfiles = 0};

static int64_t rel(const struct tza_model *m, uint64_t ns)
{
	return (int64_t)(ns - m->t0_ns);
}

/*
 * jsonl and csv/tsv build each process's line in memory (struct tza_line,
 * json.h: numbers formatted by hand, the same bytes printf gave) and write
 * it with one fwrite.
 */
#define lit(l, s) tza_line_lit((l), (s))

static void line_tf(struct tza_line *l, int b)
{
	if (b)
		lit(l, "true");
	else
		lit(l, "false");
}

/* ,"k":v; k: a literal with its quotes and colon */
#define kv_u64(l, k, v) (lit((l), "," k), tza_line_u64((l), (v)))
#define kv_tf(l, k, v) (lit((l), "," k), line_tf((l), (v)))
#define kv_secs(l, k, ns) (lit((l), "," k), tza_line_json_secs((l), (ns)))
#define kv_cstr(l, k, s) (lit((l), "," k), tza_line_json_cstr((l), (s)))

/* ,"k":v or ,"k":null; k: a literal with its quotes and colon */
#define key_u64(l, k, v, known)                                                                    \
	do {                                                                                       \
		lit((l), "," k);                                                                   \
		if (known)                                                                         \
			tza_line_u64((l), (v));                                                    \
		else                                                                               \
			lit((l), "null");                                                          \
	} while (0)

/* "oom_killed", "killed_by" and, with --samples, "samples" */
static void jsonl_over_time(struct tza_line *l, struct tza_model *m, struct tza_proc *p,
			    int samples)
{
	int ended = !(p->flags & TZA_P_NO_EXIT);
	kv_tf(l, "\"oom_killed\":", p->res->oom_killed);
	lit(l, ",\"oom_trigger_pid\":");
	if (p->res->oom_killed && p->res->oom_trigger_pid)
		tza_line_u64(l, p->res->oom_trigger_pid);
	else
		lit(l, "null");
	if (ended && p->res->killer_signal && p->res->killer_signal == p->signal) {
		lit(l, ",\"killed_by\":{\"pid\":");
		tza_line_u64(l, p->res->killer_pid);
		lit(l, ",\"signal\":");
		tza_line_i64(l, p->res->killer_signal);
		kv_cstr(l, "\"comm\":", p->res->killer_comm);
		lit(l, ",\"uid\":");
		if (p->res->killer_uid >= 0)
			tza_line_u64(l, (uint64_t)p->res->killer_uid);
		else
			lit(l, "null");
		kv_tf(l, "\"kernel\":", p->res->killer_kernel);
		kv_cstr(l, "\"cause\":", tza_signal_cause(p));
		kv_secs(l, "\"t_s\":", rel(m, p->res->kill_ns));
		tza_line_putc(l, '}');
	} else {
		lit(l, ",\"killed_by\":null");
	}
	if (!samples)
		return;
	lit(l, ",\"samples\":[");
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		const struct tza_sample *s = &p->res->samples[i];
		if (i)
			lit(l, ",{\"t_s\":");
		else
			lit(l, "{\"t_s\":");
		tza_line_json_secs(l, rel(m, s->ts_ns));
		kv_secs(l, "\"utime_s\":", (int64_t)s->utime_ns);
		kv_secs(l, "\"stime_s\":", (int64_t)s->stime_ns);
		kv_u64(l, "\"rss_kib\":", s->rss_kib);
		kv_u64(l, "\"threads\":", s->threads);
		kv_u64(l, "\"read_bytes\":", s->read_bytes);
		kv_u64(l, "\"write_bytes\":", s->write_bytes);
		kv_u64(l, "\"rchar\":", s->rchar);
		kv_u64(l, "\"wchar\":", s->wchar);
		tza_line_putc(l, '}');
	}
	tza_line_putc(l, ']');
}

/* A cgroup as {id, path, mem_limit_bytes, cpu_quota_us, cpu_period_us}
 * (path and limits null when the trace has no table entry), or null for id 0 */
static void jsonl_cgroup(struct tza_line *l, struct tza_model *m, uint32_t hier, uint64_t id)
{
	if (!id) {
		lit(l, "null");
		return;
	}
	const struct tza_cgroup *c = tza_model_cgroup(m, hier, id);
	const int known = c && !(c->flags & EV_CGROUP_UNRESOLVED);
	lit(l, "{\"id\":");
	tza_line_u64(l, id);
	kv_cstr(l, "\"path\":", known ? c->path : NULL);
	const char *key[3] = {",\"mem_limit_bytes\":", ",\"cpu_quota_us\":", ",\"cpu_period_us\":"};
	const uint64_t val[3] = {known ? c->mem_limit_bytes : 0, known ? c->cpu_quota_us : 0,
				 known ? c->cpu_period_us : 0};
	for (int i = 0; i < 3; i++) {
		tza_line_puts(l, key[i]);
		if (known)
			tza_line_u64(l, val[i]);
		else
			lit(l, "null");
	}
	tza_line_putc(l, '}');
}

/* one element of "execs": the image p->execs[i] */
static void jsonl_exec(struct tza_line *l, struct tza_model *m, struct tza_proc *p, uint32_t i)
{
	const struct tza_exec *e = &p->execs[i];
	/* an image from a state block (a snapshot) knows no gid, egid, cwd or
	 * environment: null, never a wrong 0 or [] */
	const int snap = (e->flags & TZA_EXEC_FROM_STATE) != 0;
	if (i)
		lit(l, ",{\"t_s\":");
	else
		lit(l, "{\"t_s\":");
	tza_line_json_secs(l, rel(m, e->ts_ns));
	kv_cstr(l, "\"exe\":", e->exe);
	lit(l, ",\"argv\":");
	tza_line_json_argv(l, e->argv, e->argv_len);
	kv_cstr(l, "\"filename\":", e->filename);
	kv_cstr(l, "\"script\":", e->script);
	lit(l, ",\"comm\":");
	tza_line_json_str(l, e->comm, strnlen(e->comm, sizeof(e->comm)));
	kv_u64(l, "\"argc\":", e->argc);
	kv_u64(l, "\"argv_size\":", e->argv_size);
	kv_tf(l, "\"argv_truncated\":", e->flags & EV_EXEC_ARGV_TRUNCATED);
	kv_u64(l, "\"uid\":", e->uid);
	kv_u64(l, "\"euid\":", e->euid);
	key_u64(l, "\"gid\":", e->gid, !snap);
	key_u64(l, "\"egid\":", e->egid, !snap);
	kv_tf(l, "\"deleted\":", e->flags & EV_EXEC_EXE_DELETED);
	kv_tf(l, "\"memfd\":", e->flags & EV_EXEC_EXE_MEMFD);
	kv_tf(l, "\"path_truncated\":", e->flags & EV_EXEC_PATH_TRUNCATED);
	kv_tf(l, "\"from_snapshot\":", e->flags & TZA_EXEC_FROM_STATE);
	kv_cstr(l, "\"cwd\":", e->cwd);
	kv_tf(l, "\"cwd_truncated\":", e->flags & EV_EXEC_CWD_TRUNCATED);
	lit(l, ",\"env\":");
	if (snap)
		lit(l, "null");
	else
		tza_line_json_argv(l, (const uint8_t *)e->env, e->env_len);
	kv_tf(l, "\"env_truncated\":", e->flags & EV_EXEC_ENV_TRUNCATED);
	lit(l, ",\"cgroup\":");
	jsonl_cgroup(l, m, TZA_CG_V2, e->cgroup_id);
	lit(l, ",\"memcg\":");
	jsonl_cgroup(l, m, TZA_CG_V1_MEMORY, e->memcg_id);
	/* this image's share: wall to the next exec (or the end), CPU
	 * from the exec events' CPU-before-exec (null: unknown) */
	int64_t iw = tza_exec_wall_ns(p, i, m->t1_ns), ic = tza_exec_cpu_ns(p, i);
	lit(l, ",\"wall_s\":");
	if (iw < 0)
		lit(l, "null");
	else
		tza_line_json_secs(l, iw);
	lit(l, ",\"cpu_s\":");
	if (ic < 0)
		lit(l, "null");
	else
		tza_line_json_secs(l, ic);
	/* the exec fields read by name only (EV_EXEC_BYNAME, bpf/events.h):
	 * their schema name, the value as recorded, null when unknown */
#define XB_PUT_U64(v) tza_line_u64(l, v)
#define XB_PUT_U32(v) tza_line_u64(l, v)
#define XB_PUT_U16(v) tza_line_u64(l, v)
#define XB_PUT_I32(v) tza_line_i64(l, (int64_t)(v))
#define XB_PUT_I16(v) tza_line_i64(l, (int64_t)(v))
#define XB_PUT(ty, name, unit, src)                                                            \
	lit(l, ",\"" #name "\":");                                                            \
	if (e->byname_known & (1u << TZA_XB_##name))                                           \
		XB_PUT_##ty(e->name);                                                          \
	else                                                                                   \
		lit(l, "null");
	EV_EXEC_BYNAME(XB_PUT)
	tza_line_putc(l, '}');
}

/* exit_code .. cpu_final: how p ended and what it used (null while it
 * runs) */
static void jsonl_end(struct tza_line *l, struct tza_proc *p)
{
	int ended = !(p->flags & TZA_P_NO_EXIT);
	uint64_t cpu = tza_proc_cpu(p);

	if (ended && !p->signal) {
		lit(l, ",\"exit_code\":");
		tza_line_i64(l, p->exit_code);
		lit(l, ",\"signal\":null");
	} else if (ended) {
		lit(l, ",\"exit_code\":null,\"signal\":");
		tza_line_i64(l, p->signal);
	} else {
		lit(l, ",\"exit_code\":null,\"signal\":null");
	}
	kv_tf(l, "\"core_dumped\":", p->core_dumped);
	if (ended) {
		kv_secs(l, "\"utime_s\":", (int64_t)p->utime_ns);
		kv_secs(l, "\"stime_s\":", (int64_t)p->stime_ns);
		lit(l, ",\"cpu_pct\":");
		uint64_t from = tza_proc_charged_from(p); /* its counters' span */
		uint64_t wall = p->end_ns > from ? p->end_ns - from : 0;
		tza_line_json_num(l, wall ? 100.0 * (double)cpu / (double)wall : 0);
	} else {
		lit(l, ",\"utime_s\":null,\"stime_s\":null,\"cpu_pct\":null");
	}
	/* the exit's totals in the keys' order (NULL: io_exact), null while it runs */
	const struct {
		const char *key;
		uint64_t v;
	} tot[] = {
		{",\"peak_rss_kib\":", p->maxrss_kib}, {",\"rchar\":", p->rchar},
		{",\"wchar\":", p->wchar},		{",\"syscr\":", p->syscr},
		{",\"syscw\":", p->syscw},		{",\"read_bytes\":", p->read_bytes},
		{",\"write_bytes\":", p->write_bytes},
		{",\"cancelled_write_bytes\":", p->cancelled_write_bytes},
		{NULL, 0}, /* io_exact */
		{",\"threads\":", p->threads},	{",\"vol_ctxt\":", p->nvcsw},
		{",\"inv_ctxt\":", p->nivcsw},	{",\"min_flt\":", p->min_flt},
		{",\"maj_flt\":", p->maj_flt},
	};
	for (size_t i = 0; i < sizeof(tot) / sizeof(tot[0]); i++) {
		tza_line_puts(l, tot[i].key ? tot[i].key : ",\"io_exact\":");
		if (!ended)
			lit(l, "null");
		else if (tot[i].key)
			tza_line_u64(l, tot[i].v);
		else
			line_tf(l, !(p->flags & TZA_P_IO_FALLBACK));
	}
	lit(l, ",\"cpu_final\":");
	if (ended)
		line_tf(l, (p->flags & TZA_P_RELEASED) != 0);
	else
		lit(l, "null");
}

static void jsonl_proc(struct tza_line *l, struct tza_model *m, struct tza_proc *p,
		       enum tza_by by, int samples)
{
	const struct tza_exec *img = tza_proc_image(p);
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);

	lit(l, "{\"id\":");
	char idb[TZA_ID_MAX];
	tza_line_json_cstr(l, tza_proc_id(p, idb));
	kv_cstr(l, "\"parent_id\":", p->parent ? tza_proc_id(p->parent, idb) : NULL);
	kv_u64(l, "\"pid\":", p->pid);
	kv_u64(l, "\"ppid\":", p->ppid);
	kv_secs(l, "\"start_s\":", rel(m, p->start_ns));
	lit(l, ",\"end_s\":");
	if (ended)
		tza_line_json_secs(l, rel(m, p->end_ns));
	else
		lit(l, "null");
	lit(l, ",\"realtime_s\":");
	if (ended)
		tza_line_json_secs(l, (int64_t)(p->end_ns - p->start_ns));
	else
		lit(l, "null");
	kv_cstr(l, "\"exe\":", inh ? inh->exe : NULL);
	lit(l, ",\"argv\":");
	if (inh)
		tza_line_json_argv(l, inh->argv, inh->argv_len);
	else
		lit(l, "[]");
	lit(l, ",\"comm\":");
	tza_line_json_str(l, p->comm, strnlen(p->comm, sizeof(p->comm)));
	kv_cstr(l, "\"tool\":", tza_proc_key(p, by));
	lit(l, ",\"execs\":[");
	for (uint32_t i = 0; i < p->nexecs; i++) {
		jsonl_exec(l, m, p, i);
	}
	lit(l, "],\"failed_execs\":[");
	for (uint32_t i = 0; i < p->nfailed; i++) {
		if (i)
			lit(l, ",{\"t_s\":");
		else
			lit(l, "{\"t_s\":");
		tza_line_json_secs(l, rel(m, p->failed[i].ts_ns));
		kv_cstr(l, "\"filename\":", p->failed[i].filename);
		lit(l, ",\"errno\":");
		tza_line_i64(l, p->failed[i].err);
		kv_u64(l, "\"tid\":", p->failed[i].tid);
		tza_line_putc(l, '}');
	}
	lit(l, "],\"execs_omitted\":");
	tza_line_u64(l, p->nexecs_omitted);
	kv_u64(l, "\"failed_execs_omitted\":", p->nfailed_omitted);
	kv_tf(l, "\"exe_deleted\":", (p->flags & TZA_P_EXE_DELETED) || (inh && (inh->flags & EV_EXEC_EXE_DELETED)));
	kv_cstr(l, "\"script\":", img ? img->script : NULL);
	kv_tf(l, "\"pre_existing\":", p->flags & TZA_P_PRE_EXISTING);
	jsonl_end(l, p);
	kv_u64(l, "\"uid\":", p->uid);
	kv_u64(l, "\"euid\":", p->euid);
	kv_u64(l, "\"ns_pid\":", p->ns_pid);
	kv_tf(l, "\"argv_truncated\":", p->flags & TZA_P_ARGV_TRUNCATED);
	key_u64(l, "\"exit_ppid\":", p->exit_ppid, ended && p->exit_ppid);
	jsonl_over_time(l, m, p, samples);
	kv_tf(l, "\"reparented\":", p->flags & TZA_P_REPARENTED);
	kv_tf(l, "\"no_fork\":", p->flags & TZA_P_NO_FORK);
	kv_tf(l, "\"orphan\":", p->flags & TZA_P_ORPHAN);
	kv_tf(l, "\"exit_lost\":", (p->flags & (TZA_P_EXIT_LOST | TZA_P_EXITED_BEFORE)) == TZA_P_EXIT_LOST);
	kv_tf(l, "\"exited_before\":", p->flags & TZA_P_EXITED_BEFORE);
	lit(l, "}\n");
}

/* One csv/tsv field of ASCII-safe text (command_line): csv quotes per RFC
 * 4180; tsv escapes \t \n \r \\. */
static void sv_quote(struct tza_line *l, const char *s, size_t len, int tsv)
{
	if (tsv) {
		for (size_t i = 0; i < len; i++) {
			switch (s[i]) {
			case '\t': lit(l, "\\t"); break;
			case '\n': lit(l, "\\n"); break;
			case '\r': lit(l, "\\r"); break;
			case '\\': lit(l, "\\\\"); break;
			default: tza_line_putc(l, s[i]);
			}
		}
		return;
	}
	size_t k = 0;
	while (k < len && s[k] != ',' && s[k] != '"' && s[k] != '\n' && s[k] != '\r')
		k++;
	if (k == len) {
		tza_line_put(l, s, len);
		return;
	}
	tza_line_putc(l, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			tza_line_putc(l, '"');
		tza_line_putc(l, s[i]);
	}
	tza_line_putc(l, '"');
}

/* One csv/tsv field of trace bytes: their safe form (textsafe.h: control
 * bytes and invalid UTF-8 escaped, \t \n \r \\ among them), then sv_quote */
static void sv_field(struct tza_line *l, const char *s, size_t len, int tsv)
{
	struct tza_line e = {0};
	if (tza_safe_plain(s, len)) {
		sv_quote(l, s, len, tsv);
		return;
	}
	tza_safe_line(&e, s, len);
	if (e.err)
		l->err = 1;
	else if (tsv) /* the safe form holds no tab or newline: a tsv field */
		tza_line_put(l, e.p, e.n);
	else
		sv_quote(l, e.p, e.n, 0);
	tza_line_free(&e);
}

static void sv_str(struct tza_line *l, const char *s, int tsv)
{
	sv_field(l, s ? s : "", s ? strlen(s) : 0, tsv);
}

/* units in the names (docs/tracer-analyze.md "csv, tsv", with the mapping
 * to Nextflow's trace columns) */
static const char *const sv_cols[] = {
	"id", "parent_id", "pid", "ppid", "name", "exe", "command_line", "start_s", "complete_s",
	"start_utc", "complete_utc", "realtime_ms", "%cpu", "peak_rss_kib", "rchar", "wchar",
	"syscr", "syscw", "read_bytes", "write_bytes", "vol_ctxt", "inv_ctxt", "exit", "signal",
	"core_dumped", "threads", "utime_s", "stime_s", "failed_execs", "pre_existing", NULL,
};

/* an absolute time column: UTC, or empty when the file has no clock anchor */
static void sv_utc(struct tza_line *l, struct tza_model *m, uint64_t boot_ns, int tsv)
{
	char b[48];
	int64_t rt;
	sv_str(l, tza_realtime(m->reader, boot_ns, &rt) < 0 ? "" : tza_fmt_utc(rt, b, sizeof(b)),
	       tsv);
}

/* cl: scratch line for the command line */
static void sv_proc(struct tza_line *l, struct tza_line *cl, struct tza_model *m,
		    struct tza_proc *p, enum tza_by by, int tsv)
{
	char sep = tsv ? '\t' : ',';
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);
	cl->n = 0;
	if (inh)
		tza_line_text_argv(cl, inh->argv, inh->argv_len);
	char idb[TZA_ID_MAX];
	sv_str(l, tza_proc_id(p, idb), tsv);
	tza_line_putc(l, sep);
	sv_str(l, p->parent ? tza_proc_id(p->parent, idb) : "", tsv);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->pid);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->ppid);
	tza_line_putc(l, sep);
	sv_str(l, tza_proc_key(p, by), tsv);
	tza_line_putc(l, sep);
	sv_str(l, inh ? inh->exe : "", tsv);
	tza_line_putc(l, sep);
	sv_quote(l, cl->n ? cl->p : "", cl->n, tsv); /* quoted already: ASCII-safe */
	tza_line_putc(l, sep);
	tza_line_fixed(l, (double)rel(m, p->start_ns) / 1e9, 6);
	tza_line_putc(l, sep);
	if (ended)
		tza_line_fixed(l, (double)rel(m, p->end_ns) / 1e9, 6);
	tza_line_putc(l, sep);
	sv_utc(l, m, p->start_ns, tsv);
	tza_line_putc(l, sep);
	if (ended)
		sv_utc(l, m, p->end_ns, tsv);
	tza_line_putc(l, sep);
	if (!ended) {
		/* still running: only what is known */
		for (int i = 0; i < 17; i++)
			tza_line_putc(l, sep);
		tza_line_u64(l, p->nfailed + p->nfailed_omitted);
		tza_line_putc(l, sep);
		line_tf(l, p->flags & TZA_P_PRE_EXISTING);
		tza_line_putc(l, '\n');
		return;
	}
	uint64_t wall = p->end_ns - p->start_ns;
	tza_line_fixed(l, (double)wall / 1e6, 3);
	tza_line_putc(l, sep);
	uint64_t from = tza_proc_charged_from(p); /* its counters' span */
	uint64_t span = p->end_ns > from ? p->end_ns - from : 0;
	tza_line_fixed(l, span ? 100.0 * (double)tza_proc_cpu(p) / (double)span : 0.0, 1);
	const uint64_t v[] = {p->maxrss_kib, p->rchar, p->wchar, p->syscr, p->syscw,
			      p->read_bytes, p->write_bytes, p->nvcsw, p->nivcsw};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tza_line_putc(l, sep);
		tza_line_u64(l, v[i]);
	}
	tza_line_putc(l, sep);
	if (p->signal) {
		tza_line_putc(l, sep);
		tza_line_i64(l, p->signal);
	} else {
		tza_line_i64(l, p->exit_code);
		tza_line_putc(l, sep);
	}
	tza_line_putc(l, sep);
	line_tf(l, p->core_dumped);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->threads);
	tza_line_putc(l, sep);
	tza_line_fixed(l, (double)p->utime_ns / 1e9, 6);
	tza_line_putc(l, sep);
	tza_line_fixed(l, (double)p->stime_ns / 1e9, 6);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->nfailed + p->nfailed_omitted);
	tza_line_putc(l, sep);
	line_tf(l, p->flags & TZA_P_PRE_EXISTING);
	tza_line_putc(l, '\n');
}

/* ------------------------------------------------------------ tasks table */

/* One cell of the tasks table: "name":value in jsonl, value in csv/tsv
 * (kind: 0 jsonl, 1 csv, 2 tsv); a NULL string or has = 0 is null / empty. */
struct cells {
	struct tza_line *l;
	int kind, n;
};

static void cell_sep(struct cells *c, const char *name)
{
	if (c->kind == 0) {
		tza_line_puts(c->l, c->n++ ? ",\"" : "{\"");
		tza_line_puts(c->l, name);
		lit(c->l, "\":");
	} else if (c->n++) {
		tza_line_putc(c->l, c->kind == 2 ? '\t' : ',');
	}
}

static void cell_str(struct cells *c, const char *name, const char *v)
{
	cell_sep(c, name);
	if (c->kind)
		sv_str(c->l, v, c->kind == 2);
	else if (v)
		tza_line_json_cstr(c->l, v);
	else
		lit(c->l, "null");
}

static void cell_i64(struct cells *c, const char *name, int has, int64_t v)
{
	cell_sep(c, name);
	if (has)
		tza_line_i64(c->l, v);
	else if (!c->kind)
		lit(c->l, "null");
}

static void cell_num(struct cells *c, const char *name, int has, double v, int decimals)
{
	cell_sep(c, name);
	if (has)
		tza_line_fixed(c->l, v, decimals);
	else if (!c->kind)
		lit(c->l, "null");
}

/* epoch ms of a CLOCK_BOOTTIME time, as Nextflow's raw trace */
static int epoch_ms(struct tza_model *m, uint64_t boot_ns, int64_t *ms)
{
	int64_t rt;
	if (tza_realtime(m->reader, boot_ns, &rt) < 0)
		return 0;
	*ms = rt / 1000000;
	return 1;
}

/* A workflow record's epoch seconds worth printing: after 1970, before the
 * year 5000 (TZA_WF_TIME_MAX); a record's 1e300 is not a time. */
static int wf_time_ok(double s)
{
	return s > 0 && s < TZA_WF_TIME_MAX;
}

/* One task's row (header = 1: the names only, csv/tsv). Columns and units:
 * docs/tracer-analyze.md "export --tasks". */
static void task_row(struct tza_line *l, struct tza_model *m, const struct tza_task *t, int kind,
		     int header)
{
	static const struct tza_task none;
	struct cells c = {l, kind, 0};
	if (!t)
		t = &none; /* the header: names only */
	int ended = !t->running;
	uint64_t wall = t->end_ns - t->start_ns;
	int64_t ms0 = 0, ms1 = 0;
	int has0 = !header && epoch_ms(m, t->start_ns, &ms0);
	int has1 = !header && ended && epoch_ms(m, t->end_ns, &ms1);
	char idb[TZA_ID_MAX];
	const char *status = t->running ? "RUNNING" : tza_task_failed(t) ? "FAILED" : "COMPLETED";
#define S(name, v) (header ? cell_str(&c, "", name) : cell_str(&c, name, v))
#define I(name, has, v) (header ? cell_str(&c, "", name) : cell_i64(&c, name, has, v))
#define N(name, has, v, d) (header ? cell_str(&c, "", name) : cell_num(&c, name, has, v, d))
	I("task_id", 1, t->index + 1);
	S("hash", t->hash);
	S("native_id", t->native_id);
	S("name", t->name);
	S("tag", t->tag);
	S("status", status);
	I("exit", t->exit_code != -2, t->exit_code);
	I("start", has0, ms0);
	I("complete", has1, ms1);
	I("duration", ended, (int64_t)(wall / 1000000));
	I("realtime", ended, (int64_t)(wall / 1000000));
	N("%cpu", wall > 0, 100.0 * (double)t->cpu_ns / (double)(wall ? wall : 1), 1);
	I("peak_rss", t->peak_rss_kib > 0, (int64_t)(t->peak_rss_kib * 1024));
	I("rchar", 1, (int64_t)t->rchar);
	I("wchar", 1, (int64_t)t->wchar);
	I("syscr", 1, (int64_t)t->syscr);
	I("syscw", 1, (int64_t)t->syscw);
	I("read_bytes", 1, (int64_t)t->read_bytes);
	I("write_bytes", 1, (int64_t)t->write_bytes);
	/* ours */
	S("kind", tza_task_kind_name(t->kind));
	S("key", t->key);
	S("id", t->id);
	S("root", tza_proc_id(t->root, idb));
	S("job", t->job);
	S("container", t->container);
	I("procs", 1, t->nprocs);
	I("running", 1, t->running);
	N("start_s", 1, (double)rel(m, t->start_ns) / 1e9, 6);
	N("wall_s", 1, (double)wall / 1e9, 6);
	N("cpu_s", 1, (double)t->cpu_ns / 1e9, 6);
	I("peak_rss_exit_max", 1, (int64_t)(t->exit_rss_max_kib * 1024));
	I("peak_rss_exit_sum", 1, (int64_t)(t->exit_rss_sum_kib * 1024));
	I("signal", t->signal != 0, t->signal); /* null unless signalled, as per process */
	S("failed", t->failed ? tza_proc_id(t->failed, idb) : NULL);
	I("mem_limit", t->mem_limit_bytes > 0, (int64_t)t->mem_limit_bytes);
	N("cpu_limit", t->cpu_period_us > 0,
	  t->cpu_period_us ? (double)t->cpu_quota_us / (double)t->cpu_period_us : 0, 2);
	I("attempt", t->attempt > 0, t->attempt);
	N("req_cpus", t->req_cpus > 0, t->req_cpus, 2);
	I("req_memory", t->req_mem_bytes > 0, (int64_t)t->req_mem_bytes);
	I("req_time", t->req_time_ms > 0, (int64_t)t->req_time_ms);
	S("wf_status", t->status);
	N("wf_start", wf_time_ok(t->wf_start_s), t->wf_start_s, 3);
	N("wf_end", wf_time_ok(t->wf_end_s), t->wf_end_s, 3);
#undef S
#undef I
#undef N
	if (!header && kind == 0)
		tza_line_putc(l, '}');
	tza_line_putc(l, '\n');
}

/* What the command line asked for (export_options). */
struct export_opts {
	const char *outp; /* -o, or NULL: standard output */
	enum tza_by by;
	int kind; /* 0 jsonl, 1 csv, 2 tsv, 3 chrome */
	int samples, force, tasks, host;
};

/* --tasks: a flag into the int *o->dest that also asks for tasks (task.h) */
static int opt_tasks(const struct tza_option *o, const char *arg)
{
	(void)arg;
	*(int *)o->dest = 1;
	tza_task_want();
	return 0;
}

/* --format's words, by export_opts.kind */
static const char *const format_words[] = {"jsonl", "csv", "tsv", "chrome", NULL};

/* Parse argv into o. Returns -1 when done (error printed) with *rc the exit
 * code (TZA_EXIT_OK after --help), else 0: argv[optind] is the one FILE. */
static int export_options(int argc, char **argv, struct export_opts *o, int *rc)
{
	*o = (struct export_opts){.by = TZA_BY_TOOL, .kind = -1};
	const struct tza_option opts[] = {
		OPT_ENUM('f', "format", "FMT", &o->kind, format_words,
			 "output format (required)"),
		OPT_BY(&o->by, "naming of the 'tool' column/key: exe, tool (default), command\n"
			       "or task, rule, job, container (docs: Tasks)"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_CALL(0, "tasks", NULL, opt_tasks, &o->tasks,
			 "csv/tsv/jsonl: one row per task (Nextflow trace.txt columns:\n"
			 "task_id, hash, native_id, name, tag, status, exit, start,\n"
			 "complete, duration, realtime, %cpu, peak_rss, rchar, wchar,\n"
			 "syscr, syscw, read_bytes, write_bytes; then ours), instead\n"
			 "of one per process"),
		OPT_FLAG(0, "host", &o->host,
			 "csv/tsv/jsonl: one row per host sample (t_s, t_utc, then\n"
			 "every recorded field in its unit: cpu_*_ns, mem_*_kib,\n"
			 "psi_*_us, disk_/net_*_bytes, load*_milli...), instead\n"
			 "of one per process"),
		OPT_STRING('o', "output", "OUT", &o->outp,
			   "write to OUT instead of standard output (mode 0600: it\n"
			   "copies argv; 0666 less the umask for a redacted trace)"),
		OPT_FLAG(0, "force", &o->force, "replace OUT if it exists (-f is --format)"),
		OPT_FLAG(0, "samples", &o->samples,
			 "jsonl: add each process's samples (t_s, utime_s, stime_s,\n"
			 "rss_kib, threads, read_bytes, write_bytes, rchar, wchar)"),
		OPT_END_TRACE,
	};
	*rc = tza_options_parse(&export_spec, opts, argc, argv);
	if (*rc >= 0)
		return -1;
	*rc = TZA_EXIT_USAGE;
	if (o->kind < 0) {
		tza_err("export: --format is required (csv, tsv, jsonl or chrome)");
		return -1;
	}
	if (!tza_one_file("export", argc, argv))
		return -1;
	if (o->tasks && (o->kind == 3 || o->samples)) {
		tza_err("export: --tasks writes csv, tsv or jsonl, without --samples");
		return -1;
	}
	if (o->host && (o->kind == 3 || o->samples || o->tasks)) {
		tza_err("export: --host writes csv, tsv or jsonl, without --samples or --tasks");
		return -1;
	}
	if (o->samples && o->kind != 0) {
		tza_err("export: --samples needs --format jsonl");
		return -1;
	}
	return 0;
}

/* Write the rows o asks for (tasks, or processes as jsonl, chrome or
 * csv/tsv) to f. Returns nonzero when a line could not be built or
 * written. */
static int export_rows(FILE *f, struct tza_model *m, const struct export_opts *o)
{
	struct tza_line line = {0}, cl = {0};
	int lost = 0, kind = o->kind;
	const struct tza_tasks *ts = o->tasks ? tza_tasks_of(m) : NULL;
	if (o->host) {
		lost |= tza_export_host(f, m, kind);
	} else if (ts) {
		if (kind)
			task_row(&line, m, NULL, kind, 1);
		for (uint32_t i = 0; i < ts->n; i++) {
			const struct tza_task *t = &ts->tasks[i];
			if ((t->wf_start_s && !wf_time_ok(t->wf_start_s)) ||
			    (t->wf_end_s && !wf_time_ok(t->wf_end_s)))
				fprintf(stderr, "note: task_id %u: its workflow record's start/end "
						"time is out of range (not 1970 to 5000): left empty\n",
					i + 1);
			task_row(&line, m, t, kind, 0);
			lost |= tza_line_write(&line, f);
		}
		lost |= tza_line_write(&line, f);
	} else if (kind == 0) {
		for (uint32_t i = 0; i < m->nprocs; i++) {
			jsonl_proc(&line, m, m->procs[i], o->by, o->samples);
			lost |= tza_line_write(&line, f);
		}
	} else if (kind == 3) {
		tza_export_chrome(f, m, o->by);
	} else {
		for (int i = 0; sv_cols[i]; i++)
			fprintf(f, "%s%s", i ? (kind == 2 ? "\t" : ",") : "", sv_cols[i]);
		fputc('\n', f);
		for (uint32_t i = 0; i < m->nprocs; i++) {
			sv_proc(&line, &cl, m, m->procs[i], o->by, kind == 2);
			lost |= tza_line_write(&line, f) | cl.err;
		}
	}
	tza_line_free(&line);
	tza_line_free(&cl);
	return lost;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	int rc;
	if (export_options(argc, argv, &o, &rc) < 0)
		return rc;
	tz_reader *r;
	struct tza_model *m;
	/* chrome draws the samples as counter tracks; tasks' combined peaks sum them */
	if (tza_load_ex(argv[optind], o.samples || o.kind == 3 || o.tasks ? TZA_MB_SAMPLES : 0, &r,
			&m) < 0)
		return TZA_EXIT_FAIL;
	FILE *f = stdout;
	if (o.outp) {
		/* a fresh file (never the old inode, never through a symlink):
		 * 0600, as it copies argv, unless the trace was redacted */
		f = tza_create_out(o.outp, o.force, tza_argv_mode(r), "w", "--force");
		if (!f) {
			tza_unload(r, m);
			return TZA_EXIT_FAIL;
		}
	}
	/* the rows are processes: what the recorder lost is said beside them */
	uint64_t dl = tza_drops_lost(m->drops);
	if (dl) {
		fprintf(stderr, "tracer-analyze: '%s': %llu event%s dropped by the recorder (",
			argv[optind], (unsigned long long)dl, tza_plural(dl));
		tza_drops_list(stderr, m->drops);
		fprintf(stderr, ")%s: see 'tracer-analyze summary'\n",
			m->incomplete ? ", tree incomplete" : "");
	}
	int bad = export_rows(f, m, &o);
	bad |= ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	tza_unload(r, m);
	if (bad) {
		tza_err("'%s': write failed", o.outp ? o.outp : "standard output");
		return TZA_EXIT_FAIL;
	}
	return TZA_EXIT_OK;
}
