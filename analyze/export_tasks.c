/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export_tasks.c - `export --tasks`: one row per task, Nextflow's trace.txt
 * columns and then ours (docs/tracer-analyze.md "export --tasks").
 */
#include <stdio.h>

#include "export.h"
#include "json.h"
#include "report.h"
#include "task.h"

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
		     int header, const struct tza_xfleet *x)
{
	static const struct tza_task none;
	struct tza_cells c = {l, kind, 0};
	if (x)
		tza_xfleet_ids(&c, x, header);
	if (!t)
		t = &none; /* the header: names only */
	int ended = !t->running;
	uint64_t wall = t->end_ns - t->start_ns;
	int64_t ms0 = 0, ms1 = 0;
	int has0 = !header && epoch_ms(m, t->start_ns, &ms0);
	int has1 = !header && ended && epoch_ms(m, t->end_ns, &ms1);
	char idb[TZA_ID_MAX];
	const char *status = t->running ? "RUNNING" : tza_task_failed(t) ? "FAILED" : "COMPLETED";
#define S(name, v) (header ? tza_cell_str(&c, "", name) : tza_cell_str(&c, name, v))
#define I(name, has, v) (header ? tza_cell_str(&c, "", name) : tza_cell_i64(&c, name, has, v))
#define N(name, has, v, d) (header ? tza_cell_str(&c, "", name) : tza_cell_num(&c, name, has, v, d))
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
	/* measured, not held to threads as tza_task_cores is (docs "Tasks") */
	N("%cpu", wall > 0, 100.0 * (double)t->cpu_ns / (double)(wall ? wall : 1), 1);
	I("peak_rss", tza_task_rss_known(t), (int64_t)(t->peak_rss_kib * 1024)); /* 0 is a value */
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
	N("start_s", 1, (double)tza_xrel(m, t->start_ns) / 1e9, 6);
	N("wall_s", 1, (double)wall / 1e9, 6);
	N("cpu_s", 1, (double)t->cpu_ns / 1e9, 6);
	/* a member's unknown RSS: the sum is no bound; the max is over the known */
	I("peak_rss_exit_max", t->rss_unknown < t->nprocs, (int64_t)(t->exit_rss_max_kib * 1024));
	I("peak_rss_exit_sum", tza_task_rss_known(t), (int64_t)(t->exit_rss_sum_kib * 1024));
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
		tza_xfleet_time(&c, x, "start_utc", "start_epoch_ns", 1, t->start_ns, header);
		tza_xfleet_time(&c, x, "complete_utc", "complete_epoch_ns", ended, t->end_ns,
				header);
	}
#undef S
#undef I
#undef N
	if (!header && kind == 0)
		tza_line_putc(l, '}');
	tza_line_putc(l, '\n');
}

int tza_export_tasks(FILE *f, struct tza_model *m, const struct tza_tasks *ts, int kind,
		     const struct tza_xfleet *x, int header, tza_xskip_fn *skip, const void *ctx)
{
	struct tza_line line = {0};
	int lost = 0;
	if (kind && header)
		task_row(&line, m, NULL, kind, 1, x);
	for (uint32_t i = 0; i < ts->n; i++) {
		const struct tza_task *t = &ts->tasks[i];
		if (t->root && skip && skip(ctx, t->root))
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
	tza_line_free(&line);
	return lost;
}
