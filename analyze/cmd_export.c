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
#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"
#include "zout.h"

static const char export_synopsis[] =
	"usage: tracer-analyze export --format csv|tsv|jsonl|chrome [--by KEY] [--task REGEX]\n"
	"                             [--samples | --tasks | --host] [--fleet] [--compress ALG]\n"
	"                             [-o OUT [--force]] FILE...\n"
	"\n"
	"Write every process of FILE, ordered by start time (several FILEs, a\n"
	"directory of .tz files or a merge: every host's rows in one stream, host by\n"
	"host, with the fleet columns; a process two traces of one host hold, once):\n"
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
	"  tracer-analyze export --format chrome -o trace.json trace.tz\n"
	"  tracer-analyze export --format jsonl -o run.jsonl.zst node1.tz node2.tz\n"
	"  tracer-analyze export --format csv --tasks -o tasks.csv.gz run.tz   # a merge\n";

static const struct tza_cmd_spec export_spec = {
    .name = "export", .synopsis = export_synopsis, .epilog = export_epilog, .col = 21, .nfiles = 0};

static int64_t rel(const struct tza_model *m, uint64_t ns)
{
	return (int64_t)(ns - m->t0_ns);
}

/* ,"K_utc":..,"K_epoch_ns":.. (below, with the tasks table's cells) */
static void x_time_json(struct tza_line *l, const struct tza_xfleet *x, const char *utc_key,
			const char *ns_key, int has, uint64_t boot_ns);

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
			    int samples, const struct tza_xfleet *x)
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
		if (x)
			x_time_json(l, x, "t_utc", "t_epoch_ns", 1, p->res->kill_ns);
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
		if (x)
			x_time_json(l, x, "t_utc", "t_epoch_ns", 1, s->ts_ns);
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
static void jsonl_exec(struct tza_line *l, struct tza_model *m, struct tza_proc *p, uint32_t i,
		       const struct tza_xfleet *x)
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
	if (x)
		x_time_json(l, x, "t_utc", "t_epoch_ns", 1, e->ts_ns);
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
		       enum tza_by by, int samples, const struct tza_xfleet *x)
{
	const struct tza_exec *img = tza_proc_image(p);
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);

	if (x) {
		tza_line_put(l, x->pre.p, x->pre.n);
		lit(l, ",\"id\":");
	} else {
		lit(l, "{\"id\":");
	}
	char idb[TZA_ID_MAX];
	tza_line_json_cstr(l, tza_proc_id(p, idb));
	kv_cstr(l, "\"parent_id\":", p->parent ? tza_proc_id(p->parent, idb) : NULL);
	kv_u64(l, "\"pid\":", p->pid);
	kv_u64(l, "\"ppid\":", p->ppid);
	kv_secs(l, "\"start_s\":", rel(m, p->start_ns));
	if (x)
		x_time_json(l, x, "start_utc", "start_epoch_ns", 1, p->start_ns);
	lit(l, ",\"end_s\":");
	if (ended)
		tza_line_json_secs(l, rel(m, p->end_ns));
	else
		lit(l, "null");
	if (x)
		x_time_json(l, x, "end_utc", "end_epoch_ns", ended, p->end_ns);
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
	if (x)
		key_u64(l, "\"task_id\":", p->task ? p->task->index + 1 : 0, p->task != NULL);
	lit(l, ",\"execs\":[");
	for (uint32_t i = 0; i < p->nexecs; i++) {
		jsonl_exec(l, m, p, i, x);
	}
	lit(l, "],\"failed_execs\":[");
	for (uint32_t i = 0; i < p->nfailed; i++) {
		if (i)
			lit(l, ",{\"t_s\":");
		else
			lit(l, "{\"t_s\":");
		tza_line_json_secs(l, rel(m, p->failed[i].ts_ns));
		if (x)
			x_time_json(l, x, "t_utc", "t_epoch_ns", 1, p->failed[i].ts_ns);
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
	jsonl_over_time(l, m, p, samples, x);
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

/* the columns --fleet adds at the end of a process row (csv/tsv) */
static const char *const sv_fleet_cols[] = {"start_epoch_ns", "complete_epoch_ns", "task_id", NULL};

static void sv_fleet_tail(struct tza_line *l, const struct tza_xfleet *x, struct tza_proc *p,
			  int ended, char sep);

/* cl: scratch line for the command line */
static void sv_proc(struct tza_line *l, struct tza_line *cl, struct tza_model *m,
		    struct tza_proc *p, enum tza_by by, int tsv, const struct tza_xfleet *x)
{
	char sep = tsv ? '\t' : ',';
	const struct tza_exec *inh = tza_proc_image_inherited(p);
	int ended = !(p->flags & TZA_P_NO_EXIT);
	cl->n = 0;
	if (inh)
		tza_line_text_argv(cl, inh->argv, inh->argv_len);
	char idb[TZA_ID_MAX];
	if (x) {
		tza_line_put(l, x->pre.p, x->pre.n);
		tza_line_putc(l, sep);
	}
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
		sv_fleet_tail(l, x, p, ended, sep);
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
	sv_fleet_tail(l, x, p, ended, sep);
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

/* The absolute forms of a time column, two cells: UTC ISO-8601 with ns and
 * epoch ns (tza_realtime); null/empty when !has or the trace has no clock
 * anchor. header: their names. */
static void x_time(struct cells *c, const struct tza_xfleet *x, const char *utc_key,
		   const char *ns_key, int has, uint64_t boot_ns, int header)
{
	char b[48];
	int64_t rt = 0;
	if (header) {
		cell_str(c, "", utc_key);
		cell_str(c, "", ns_key);
		return;
	}
	has = has && tza_realtime(x->r, boot_ns, &rt) == 0;
	const char *utc = has ? tza_fmt_utc(rt, b, sizeof(b)) : NULL;
	cell_str(c, utc_key, utc && *utc ? utc : NULL);
	cell_i64(c, ns_key, has, rt);
}

static void x_time_json(struct tza_line *l, const struct tza_xfleet *x, const char *utc_key,
			const char *ns_key, int has, uint64_t boot_ns)
{
	struct cells c = {l, 0, 1};
	x_time(&c, x, utc_key, ns_key, has, boot_ns, 0);
}

/* The three cells that say where a row comes from (header: their names). */
static void x_ids(struct cells *c, const struct tza_xfleet *x, int header)
{
	static const char *const name[3] = {"host", "boot_id", "trace_uuid"};
	const char *v[3] = {x->host, *x->boot_id ? x->boot_id : NULL,
			    *x->trace_uuid ? x->trace_uuid : NULL};
	for (int i = 0; i < 3; i++)
		if (header)
			cell_str(c, "", name[i]);
		else
			cell_str(c, name[i], v[i]);
}

static void sv_fleet_tail(struct tza_line *l, const struct tza_xfleet *x, struct tza_proc *p,
			  int ended, char sep)
{
	if (!x)
		return;
	struct cells c = {l, sep == '\t' ? 2 : 1, 1};
	int64_t rt = 0;
	int has = tza_realtime(x->r, p->start_ns, &rt) == 0;
	cell_i64(&c, "", has, rt);
	has = ended && tza_realtime(x->r, p->end_ns, &rt) == 0;
	cell_i64(&c, "", has, rt);
	cell_i64(&c, "", p->task != NULL, p->task ? p->task->index + 1 : 0);
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
		     int header, const struct tza_xfleet *x)
{
	static const struct tza_task none;
	struct cells c = {l, kind, 0};
	if (x)
		x_ids(&c, x, header);
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
	if (x) {
		x_time(&c, x, "start_utc", "start_epoch_ns", 1, t->start_ns, header);
		x_time(&c, x, "complete_utc", "complete_epoch_ns", ended, t->end_ns, header);
	}
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
	int samples, force, tasks, host, fleet;
	int compress; /* enum tza_z; -1: by OUT's name */
};

/* --tasks, --fleet: a flag into the int *o->dest that also asks for tasks
 * (task.h: the rows, or the processes' task_id) */
static int opt_tasks(const struct tza_option *o, const char *arg)
{
	(void)arg;
	*(int *)o->dest = 1;
	tza_task_want();
	return 0;
}

/* --format's words, by export_opts.kind */
static const char *const format_words[] = {"jsonl", "csv", "tsv", "chrome", NULL};
/* --compress's words, by enum tza_z */
static const char *const compress_words[] = {"none", "zstd", "gzip", NULL};

/* Parse argv into o. Returns -1 when done (error printed) with *rc the exit
 * code (TZA_EXIT_OK after --help), else 0: argv[optind..] are the traces. */
static int export_options(int argc, char **argv, struct export_opts *o, int *rc)
{
	*o = (struct export_opts){.by = TZA_BY_TOOL, .kind = -1, .compress = -1};
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
		OPT_CALL(0, "fleet", NULL, opt_tasks, &o->fleet,
			 "csv/tsv/jsonl: add the fleet columns that join rows of\n"
			 "many hosts and runs: host, boot_id, trace_uuid first,\n"
			 "each time also as *_utc and *_epoch_ns, processes' task_id\n"
			 "(always on with several traces)"),
		OPT_STRING('o', "output", "OUT", &o->outp,
			   "write to OUT instead of standard output (mode 0600: it\n"
			   "copies argv; 0666 less the umask for a redacted trace);\n"
			   "OUT ending in .zst or .gz is compressed (zstd, gzip)"),
		OPT_ENUM(0, "compress", "ALG", &o->compress, compress_words,
			 "none, zstd or gzip, whatever OUT's name (also to\n"
			 "standard output)"),
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
	if (optind >= argc) {
		tza_one_file("export", argc, argv);
		return -1;
	}
	if (o->kind == 3 && tza_fleet_wanted(argv + optind, argc - optind)) {
		tza_err("export: --format chrome writes one host's trace, not several "
			"(csv, tsv and jsonl take several)");
		return -1;
	}
	if (o->tasks && (o->kind == 3 || o->samples)) {
		tza_err("export: --tasks writes csv, tsv or jsonl, without --samples");
		return -1;
	}
	if (o->host && (o->kind == 3 || o->samples || o->tasks)) {
		tza_err("export: --host writes csv, tsv or jsonl, without --samples or --tasks");
		return -1;
	}
	if (o->fleet && o->kind == 3) {
		tza_err("export: --fleet writes csv, tsv or jsonl");
		return -1;
	}
	if (o->samples && o->kind != 0) {
		tza_err("export: --samples needs --format jsonl");
		return -1;
	}
	return 0;
}

/* The fleet columns of trace r (host: its hostname, "" or NULL unknown) for
 * format kind. 0, or -1 out of memory (free x->pre either way). */
static int xfleet_init(struct tza_xfleet *x, tz_reader *r, const char *host,
		       const uint8_t uuid[16], const uint8_t boot[16], int kind)
{
	static const uint8_t zero[16];
	memset(x, 0, sizeof(*x));
	x->r = r;
	x->host = host && *host ? host : NULL;
	if (memcmp(boot, zero, 16))
		tza_fleet_hex16(x->boot_id, boot);
	if (memcmp(uuid, zero, 16))
		tza_fleet_hex16(x->trace_uuid, uuid);
	x->head = kind == 2 ? "host\tboot_id\ttrace_uuid" : "host,boot_id,trace_uuid";
	struct cells c = {&x->pre, kind, 0};
	x_ids(&c, x, 0);
	return x->pre.err ? -1 : 0;
}

/* Several host traces written as one stream (export_hosts). */
struct xhosts {
	struct tza_fleet fl;
	struct tza_fleet_seen seen; /* processes written, per host */
	size_t i;		    /* the host being written */
};

/* p was written already, from an earlier trace of its host */
static int written(const struct xhosts *h, const struct tza_proc *p)
{
	return h && tza_fleet_seen_before(&h->seen, &h->fl, h->i, p->pid, p->start_ns);
}

/* Write the rows o asks for (tasks, host samples, or processes as jsonl,
 * chrome or csv/tsv) of m to f, with x's fleet columns (NULL: none). Over
 * several hosts (h): the table's header only before the first host's rows,
 * and no process (or task of a root) an earlier trace of its host wrote.
 * head: the --host header so far. Returns 0, 1 when a line could not be
 * built or written, 2 after one line on stderr (name: the trace). */
static int export_rows(FILE *f, struct tza_model *m, const struct export_opts *o,
		       const struct tza_xfleet *x, const struct xhosts *h, struct tza_line *head,
		       const char *name)
{
	struct tza_line line = {0}, cl = {0};
	int lost = 0, kind = o->kind, first = !h || !h->i;
	const struct tza_tasks *ts = o->tasks ? tza_tasks_of(m) : NULL;
	if (o->host) {
		int rc = tza_export_host(f, m, kind, x, head);
		if (rc == -2) {
			tza_err("export: '%s': its host samples have other fields than the first "
				"host's (export --host them one by one, or as jsonl)",
				name);
			return 2;
		}
		lost |= rc < 0;
	} else if (ts) {
		if (kind && first)
			task_row(&line, m, NULL, kind, 1, x);
		for (uint32_t i = 0; i < ts->n; i++) {
			const struct tza_task *t = &ts->tasks[i];
			if (t->root && written(h, t->root))
				continue;
			if ((t->wf_start_s && !wf_time_ok(t->wf_start_s)) ||
			    (t->wf_end_s && !wf_time_ok(t->wf_end_s)))
				fprintf(stderr, "note: task_id %u: its workflow record's start/end "
						"time is out of range (not 1970 to 5000): left empty\n",
					i + 1);
			task_row(&line, m, t, kind, 0, x);
			lost |= tza_line_write(&line, f);
		}
		lost |= tza_line_write(&line, f);
	} else if (kind == 0) {
		for (uint32_t i = 0; i < m->nprocs; i++) {
			if (written(h, m->procs[i]))
				continue;
			jsonl_proc(&line, m, m->procs[i], o->by, o->samples, x);
			lost |= tza_line_write(&line, f);
		}
	} else if (kind == 3) {
		tza_export_chrome(f, m, o->by);
	} else {
		if (first) {
			if (x)
				fprintf(f, "%s%s", x->head, kind == 2 ? "\t" : ",");
			for (int i = 0; sv_cols[i]; i++)
				fprintf(f, "%s%s", i ? (kind == 2 ? "\t" : ",") : "", sv_cols[i]);
			for (int i = 0; x && sv_fleet_cols[i]; i++)
				fprintf(f, "%s%s", kind == 2 ? "\t" : ",", sv_fleet_cols[i]);
			fputc('\n', f);
		}
		for (uint32_t i = 0; i < m->nprocs; i++) {
			if (written(h, m->procs[i]))
				continue;
			sv_proc(&line, &cl, m, m->procs[i], o->by, kind == 2, x);
			lost |= tza_line_write(&line, f) | cl.err;
		}
	}
	tza_line_free(&line);
	tza_line_free(&cl);
	return lost;
}

/* What the recorder lost is said beside the rows (name: the trace). */
static void drops_note(const char *name, const struct tza_model *m)
{
	uint64_t dl = tza_drops_lost(m->drops);
	if (!dl)
		return;
	fprintf(stderr, "tracer-analyze: '%s': %llu event%s dropped by the recorder (", name,
		(unsigned long long)dl, tza_plural(dl));
	tza_drops_list(stderr, m->drops);
	fprintf(stderr, ")%s: see 'tracer-analyze summary'\n",
		m->incomplete ? ", tree incomplete" : "");
}

/* The output o names, compressed as it asks: a fresh OUT of mode (never
 * the old inode, never through a symlink) or standard output; NULL after
 * one line. */
static FILE *open_out(const struct export_opts *o, unsigned mode)
{
	FILE *raw = stdout;
	if (o->outp && !(raw = tza_create_out(o->outp, o->force, mode, "w", "--force")))
		return NULL;
	FILE *f = tza_zout_open(raw, o->compress >= 0 ? (enum tza_z)o->compress
						      : tza_z_of_name(o->outp));
	if (!f) {
		tza_err("out of memory");
		if (raw != stdout) {
			fclose(raw);
			unlink(o->outp);
		}
	}
	return f;
}

/* Close f (flush standard output); bad: a write failed already. Returns
 * TZA_EXIT_OK, or TZA_EXIT_FAIL after "write failed". */
static int close_out(FILE *f, const struct export_opts *o, int bad)
{
	bad |= ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	if (!bad)
		return TZA_EXIT_OK;
	tza_err("'%s': write failed", o->outp ? o->outp : "standard output");
	return TZA_EXIT_FAIL;
}

/* chrome draws the samples as counter tracks; tasks' combined peaks sum them */
static uint32_t load_flags(const struct export_opts *o)
{
	return o->samples || o->kind == 3 || o->tasks ? TZA_MB_SAMPLES : 0;
}

/* export of several host traces (fleet.h) as one stream, host by host,
 * every row with its fleet columns. A failed export removes OUT. */
static int export_hosts(char **args, int n, const struct export_opts *o)
{
	struct xhosts h = {0};
	struct tza_line head = {0};
	FILE *f = NULL;
	int bad = 0, failed = 1, created = 0;
	unsigned mode = TZA_MODE_UMASK;
	if (tza_fleet_expand("export", args, n, &h.fl) || tza_fleet_check("export", &h.fl, 0))
		goto out;
	tza_fleet_note_overlaps("export", &h.fl);
	if (tza_fleet_seen_init(&h.seen, h.fl.n)) {
		tza_err("out of memory");
		goto out;
	}
	/* 0600 unless every trace was redacted: the rows copy argv */
	for (size_t i = 0; i < h.fl.n; i++) {
		tz_reader *r = tza_fleet_reader(&h.fl, i);
		if (!r)
			goto out;
		if (tza_argv_mode(r) != TZA_MODE_UMASK)
			mode = TZA_MODE_PRIVATE;
		tz_reader_free(r);
	}
	if (!(f = open_out(o, mode)))
		goto out;
	created = o->outp != NULL;
	for (h.i = 0; h.i < h.fl.n; h.i++) {
		const struct tza_hostsrc *hs = &h.fl.h[h.i];
		tz_reader *r;
		struct tza_model *m;
		const char *hn;
		if (tza_fleet_load(&h.fl, h.i, load_flags(o), &r, &m, &hn) < 0)
			goto out;
		struct tza_xfleet x;
		int rc = xfleet_init(&x, r, hn, hs->me->uuid,
				     hs->me->boot_id, o->kind);
		drops_note(hs->name, m);
		rc = rc ? 1 : export_rows(f, m, o, &x, &h, &head, hs->name);
		for (uint32_t k = 0; k < m->nprocs && rc != 2; k++)
			if (tza_fleet_seen_add(&h.seen, h.i, m->procs[k]->pid, m->procs[k]->start_ns))
				rc = 1;
		tza_fleet_seen_seal(&h.seen, h.i);
		tza_line_free(&x.pre);
		tza_unload(r, m);
		if (rc == 2)
			goto out;
		bad |= rc;
	}
	failed = close_out(f, o, bad) != TZA_EXIT_OK;
	f = NULL;
out:
	if (f && f != stdout)
		fclose(f);
	if (failed && created)
		unlink(o->outp);
	tza_line_free(&head);
	tza_fleet_seen_free(&h.seen);
	tza_fleet_free(&h.fl);
	return failed ? TZA_EXIT_FAIL : TZA_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	int rc;
	if (export_options(argc, argv, &o, &rc) < 0)
		return rc;
	if (tza_fleet_wanted(argv + optind, argc - optind)) {
		tza_task_want(); /* the processes' task_id */
		o.fleet = 1;
		return export_hosts(argv + optind, argc - optind, &o);
	}
	tz_reader *r;
	struct tza_model *m;
	if (tza_load_ex(argv[optind], load_flags(&o), &r, &m) < 0)
		return TZA_EXIT_FAIL;
	struct tza_xfleet x = {0};
	if (o.fleet) {
		const struct tz_info *in = tz_reader_info(r);
		if (xfleet_init(&x, r, tz_reader_meta_get(r, "hostname"), in->uuid, in->boot_id,
				o.kind)) {
			tza_line_free(&x.pre);
			tza_unload(r, m);
			tza_err("out of memory");
			return TZA_EXIT_FAIL;
		}
	}
	/* a fresh file: 0600, as it copies argv, unless the trace was redacted */
	FILE *f = open_out(&o, tza_argv_mode(r));
	if (!f) {
		tza_line_free(&x.pre);
		tza_unload(r, m);
		return TZA_EXIT_FAIL;
	}
	drops_note(argv[optind], m);
	struct tza_line head = {0};
	int bad = export_rows(f, m, &o, o.fleet ? &x : NULL, NULL, &head, argv[optind]);
	rc = close_out(f, &o, bad != 0);
	tza_line_free(&head);
	tza_line_free(&x.pre);
	tza_unload(r, m);
	return rc;
}
