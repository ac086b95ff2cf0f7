/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export_procs.c - export's rows of processes: jsonl (the recorder issue's
 * analysis contract) and csv/tsv (Nextflow-style column names). Keys and
 * columns: docs/tracer-analyze.md "export".
 */
#include <string.h>

#include "bpf/events.h"
#include "export.h"
#include "json.h"
#include "report.h"
#include "task.h"
#include "textsafe.h"


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


/* An element of a list of times ("samples", "execs", "failed_execs")
 * opens: ,{"t_s":.. (no comma for the first, i = 0) and, with x, its
 * absolute forms */
static void jsonl_elem(struct tza_line *l, struct tza_model *m, uint32_t i, uint64_t ts_ns,
		       const struct tza_xfleet *x)
{
	if (i)
		lit(l, ",{\"t_s\":");
	else
		lit(l, "{\"t_s\":");
	tza_line_json_secs(l, tza_xrel(m, ts_ns));
	if (x)
		tza_xfleet_time_json(l, x, "t_utc", "t_epoch_ns", 1, ts_ns);
}

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
		kv_secs(l, "\"t_s\":", tza_xrel(m, p->res->kill_ns));
		if (x)
			tza_xfleet_time_json(l, x, "t_utc", "t_epoch_ns", 1, p->res->kill_ns);
		tza_line_putc(l, '}');
	} else {
		lit(l, ",\"killed_by\":null");
	}
	if (!samples)
		return;
	lit(l, ",\"samples\":[");
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		const struct tza_sample *s = &p->res->samples[i];
		jsonl_elem(l, m, i, s->ts_ns, x);
		kv_secs(l, "\"utime_s\":", (int64_t)s->utime_ns);
		kv_secs(l, "\"stime_s\":", (int64_t)s->stime_ns);
		if (tza_sample_rss_known(p, s)) {
			kv_u64(l, "\"rss_kib\":", s->rss_kib);
			kv_u64(l, "\"threads\":", s->threads);
		} else { /* a slice's end sample of a process with none by then */
			lit(l, ",\"rss_kib\":null,\"threads\":null");
		}
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
	jsonl_elem(l, m, i, e->ts_ns, x);
	kv_cstr(l, "\"exe\":", e->ctx->exe);
	lit(l, ",\"argv\":");
	tza_line_json_argv(l, e->argv, e->argv_len);
	kv_cstr(l, "\"filename\":", e->ctx->filename);
	kv_cstr(l, "\"script\":", e->ctx->script);
	lit(l, ",\"comm\":");
	tza_line_json_str(l, e->ctx->comm, strnlen(e->ctx->comm, sizeof(e->ctx->comm)));
	kv_u64(l, "\"argc\":", e->argc);
	kv_u64(l, "\"argv_size\":", e->argv_size);
	kv_tf(l, "\"argv_truncated\":", e->flags & EV_EXEC_ARGV_TRUNCATED);
	kv_u64(l, "\"uid\":", e->ctx->uid);
	kv_u64(l, "\"euid\":", e->ctx->euid);
	key_u64(l, "\"gid\":", e->ctx->gid, !snap);
	key_u64(l, "\"egid\":", e->ctx->egid, !snap);
	kv_tf(l, "\"deleted\":", e->flags & EV_EXEC_EXE_DELETED);
	kv_tf(l, "\"memfd\":", e->flags & EV_EXEC_EXE_MEMFD);
	kv_tf(l, "\"path_truncated\":", e->flags & EV_EXEC_PATH_TRUNCATED);
	kv_tf(l, "\"from_snapshot\":", e->flags & TZA_EXEC_FROM_STATE);
	kv_cstr(l, "\"cwd\":", e->ctx->cwd);
	kv_tf(l, "\"cwd_truncated\":", e->flags & EV_EXEC_CWD_TRUNCATED);
	lit(l, ",\"env\":");
	if (snap)
		lit(l, "null");
	else
		tza_line_json_argv(l, (const uint8_t *)e->ctx->env, e->ctx->env_len);
	kv_tf(l, "\"env_truncated\":", e->flags & EV_EXEC_ENV_TRUNCATED);
	lit(l, ",\"cgroup\":");
	jsonl_cgroup(l, m, TZA_CG_V2, e->ctx->cgroup_id);
	lit(l, ",\"memcg\":");
	jsonl_cgroup(l, m, TZA_CG_V1_MEMORY, e->ctx->memcg_id);
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
	/* this image's own peak RSS (null: unknown) */
	int64_t ir = tza_exec_peak_rss_kib(p, i);
	lit(l, ",\"peak_rss_kib\":");
	if (ir < 0)
		lit(l, "null");
	else
		tza_line_u64(l, (uint64_t)ir);
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
	/* the peak as tree shows it: an exit's, or up to the last sample of
	 * one still running (peak_rss_sampled), else null */
	uint64_t peak;
	int sampled, known = tza_proc_peak_view(p, &peak, &sampled);
	lit(l, ",\"peak_rss_kib\":");
	if (known)
		tza_line_u64(l, peak);
	else
		lit(l, "null");
	lit(l, ",\"peak_rss_sampled\":");
	if (known)
		line_tf(l, sampled);
	else
		lit(l, "null");
	/* the exit's totals in the keys' order (NULL: io_exact), null while it runs */
	const struct {
		const char *key;
		uint64_t v;
	} tot[] = {
		{",\"rchar\":", p->rchar},
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
	kv_secs(l, "\"start_s\":", tza_xrel(m, p->start_ns));
	if (x)
		tza_xfleet_time_json(l, x, "start_utc", "start_epoch_ns", 1, p->start_ns);
	lit(l, ",\"end_s\":");
	if (ended)
		tza_line_json_secs(l, tza_xrel(m, p->end_ns));
	else
		lit(l, "null");
	if (x)
		tza_xfleet_time_json(l, x, "end_utc", "end_epoch_ns", ended, p->end_ns);
	lit(l, ",\"realtime_s\":");
	if (ended)
		tza_line_json_secs(l, (int64_t)(p->end_ns - p->start_ns));
	else
		lit(l, "null");
	kv_cstr(l, "\"exe\":", inh ? inh->ctx->exe : NULL);
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
		jsonl_elem(l, m, i, p->failed[i].ts_ns, x);
		kv_cstr(l, "\"filename\":", p->failed[i].filename);
		lit(l, ",\"errno\":");
		tza_line_i64(l, p->failed[i].err);
		kv_u64(l, "\"tid\":", p->failed[i].tid);
		tza_line_putc(l, '}');
	}
	lit(l, "],\"execs_omitted\":");
	tza_line_u64(l, p->res->nexecs_omitted);
	kv_u64(l, "\"failed_execs_omitted\":", p->res->nfailed_omitted);
	kv_tf(l, "\"exe_deleted\":", (p->flags & TZA_P_EXE_DELETED) || (inh && (inh->flags & EV_EXEC_EXE_DELETED)));
	kv_cstr(l, "\"script\":", img ? img->ctx->script : NULL);
	kv_tf(l, "\"pre_existing\":", p->flags & TZA_P_PRE_EXISTING);
	jsonl_end(l, p);
	kv_u64(l, "\"uid\":", tza_proc_uid(p));
	kv_u64(l, "\"euid\":", tza_proc_euid(p));
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
	tza_sv_str(l, tza_realtime(m->reader, boot_ns, &rt) < 0 ? "" : tza_fmt_utc(rt, b, sizeof(b)),
	       tsv);
}

/* the columns --fleet adds at the end of a process row (csv/tsv) */
static const char *const sv_fleet_cols[] = {"start_epoch_ns", "complete_epoch_ns", "task_id", NULL};

static void sv_fleet_tail(struct tza_line *l, const struct tza_xfleet *x, struct tza_proc *p,
			  int ended, char sep)
{
	if (!x)
		return;
	struct tza_cells c = {l, sep == '\t' ? 2 : 1, 1};
	int64_t rt = 0;
	int has = tza_realtime(x->r, p->start_ns, &rt) == 0;
	tza_cell_i64(&c, "", has, rt);
	has = ended && tza_realtime(x->r, p->end_ns, &rt) == 0;
	tza_cell_i64(&c, "", has, rt);
	tza_cell_i64(&c, "", p->task != NULL, p->task ? p->task->index + 1 : 0);
}

/* The 17 columns realtime_ms .. stime_s of a process that ended, 16
 * separators between them */
static void sv_end(struct tza_line *l, const struct tza_proc *p, char sep)
{
	uint64_t wall = p->end_ns - p->start_ns;
	tza_line_fixed(l, (double)wall / 1e6, 3);
	tza_line_putc(l, sep);
	uint64_t from = tza_proc_charged_from(p); /* its counters' span */
	uint64_t span = p->end_ns > from ? p->end_ns - from : 0;
	tza_line_fixed(l, span ? 100.0 * (double)tza_proc_cpu(p) / (double)span : 0.0, 1);
	const uint64_t v[] = {tza_proc_peak_rss_kib(p), p->rchar, p->wchar, p->syscr, p->syscw,
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
}

/* The same 17 columns of a process without an exit: empty but peak_rss_kib
 * when it has samples (tza_proc_peak_view) */
static void sv_running(struct tza_line *l, const struct tza_proc *p, char sep)
{
	uint64_t peak;
	tza_line_putc(l, sep);
	tza_line_putc(l, sep);
	if (tza_proc_peak_view(p, &peak, NULL))
		tza_line_u64(l, peak);
	for (int i = 0; i < 14; i++)
		tza_line_putc(l, sep);
}

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
	tza_sv_str(l, tza_proc_id(p, idb), tsv);
	tza_line_putc(l, sep);
	tza_sv_str(l, p->parent ? tza_proc_id(p->parent, idb) : "", tsv);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->pid);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->ppid);
	tza_line_putc(l, sep);
	tza_sv_str(l, tza_proc_key(p, by), tsv);
	tza_line_putc(l, sep);
	tza_sv_str(l, inh ? inh->ctx->exe : "", tsv);
	tza_line_putc(l, sep);
	tza_sv_quote(l, cl->n ? cl->p : "", cl->n, tsv); /* quoted already: ASCII-safe */
	tza_line_putc(l, sep);
	tza_line_fixed(l, (double)tza_xrel(m, p->start_ns) / 1e9, 6);
	tza_line_putc(l, sep);
	if (ended)
		tza_line_fixed(l, (double)tza_xrel(m, p->end_ns) / 1e9, 6);
	tza_line_putc(l, sep);
	sv_utc(l, m, p->start_ns, tsv);
	tza_line_putc(l, sep);
	if (ended)
		sv_utc(l, m, p->end_ns, tsv);
	tza_line_putc(l, sep);
	if (ended)
		sv_end(l, p, sep);
	else /* still running: only what is known (peak_rss_kib up to its
		      last sample, as tree) */
		sv_running(l, p, sep);
	tza_line_putc(l, sep);
	tza_line_u64(l, p->nfailed + p->res->nfailed_omitted);
	tza_line_putc(l, sep);
	line_tf(l, p->flags & TZA_P_PRE_EXISTING);
	sv_fleet_tail(l, x, p, ended, sep);
	tza_line_putc(l, '\n');
}

int tza_export_procs(FILE *f, struct tza_model *m, int kind, enum tza_by by, int samples,
		     const struct tza_xfleet *x, int header, tza_xskip_fn *skip, const void *ctx)
{
	struct tza_line line = {0}, cl = {0};
	int lost = 0;
	if (kind && header) {
		if (x)
			fprintf(f, "%s%s", x->head, kind == 2 ? "\t" : ",");
		for (int i = 0; sv_cols[i]; i++)
			fprintf(f, "%s%s", i ? (kind == 2 ? "\t" : ",") : "", sv_cols[i]);
		for (int i = 0; x && sv_fleet_cols[i]; i++)
			fprintf(f, "%s%s", kind == 2 ? "\t" : ",", sv_fleet_cols[i]);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < m->nprocs; i++) {
		if (skip && skip(ctx, m->procs[i]))
			continue;
		if (kind == 0)
			jsonl_proc(&line, m, m->procs[i], by, samples, x);
		else
			sv_proc(&line, &cl, m, m->procs[i], by, kind == 2, x);
		lost |= tza_line_write(&line, f) | cl.err;
	}
	tza_line_free(&line);
	tza_line_free(&cl);
	return lost;
}
