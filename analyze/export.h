/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export.h - the writers of `tracer-analyze export` (cmd_export.c holds
 * its options and output): export_procs.c processes, export_tasks.c tasks,
 * export_host.c host samples, export_chrome.c the Chrome trace, and
 * export_cells.c the cells and fleet columns they share. Keys and columns
 * are public contracts: docs/tracer-analyze.md "export".
 */
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdio.h>

#include "json.h"
#include "model.h"

struct tza_tasks; /* task.h */

/*
 * The fleet columns of one host trace's rows (export --fleet, and every
 * export over several hosts; docs/tracer-analyze.md "Fleet columns"): the
 * host, boot and recording a row comes from, so rows of many runs join, and
 * with r the absolute forms of its times. Writers take NULL for none.
 */
struct tza_xfleet {
	const char *host;		  /* hostname: metadata "hostname", else the
					     multi-host member's; NULL unknown */
	char boot_id[33], trace_uuid[33]; /* 32 lowercase hex (header / MEMBER
					     block); "" when all zero */
	tz_reader *r;			  /* the trace: CLOCK_BOOTTIME to epoch ns
					     (tza_realtime, its clock anchors) */
	struct tza_line pre;		  /* the row's first cells rendered for the
					     format: jsonl `{"host":..,"boot_id":..,
					     "trace_uuid":..` (no comma after),
					     csv/tsv `host,boot_id,trace_uuid` (no
					     separator after); owned */
	const char *head;		  /* csv/tsv: the header's first names */
};

/*
 * Write the whole Chrome trace-event JSON of m to f: "otherData" (generator,
 * the recorder's drop counters and "incomplete"), then per process (in m's
 * start order, track i + 1) its name and sort index, a complete event from
 * its start (clipped to the trace start) to its end (tza_proc_end), an
 * instant per exec, OOM kill and failed exec and a counter of its resident
 * memory (MiB) per sample; then on track 0 the processes running and the CPU
 * cores in use (each process's CPU spread evenly over its life), and the
 * host samples' busy cores and used memory. Times are microseconds from
 * m->t0_ns with three decimals. m must be loaded with TZA_MB_SAMPLES. Write
 * errors are left in f's error flag (ferror); an allocation failure leaves
 * the counter tracks out.
 */
void tza_export_chrome(FILE *f, struct tza_model *m, enum tza_by by);

/*
 * Write one row per host sample (EV_HOST_SAMPLE) of m's trace to f, in time
 * order: `t_s` (seconds from m->t0_ns, 9 decimals, exact), `t_utc` (UTC
 * ISO-8601 with nanoseconds from the trace's clock anchors; null/empty when
 * it has none), then every field of the trace's `host_sample` schema under
 * its own name, in the unit it was recorded in (the names carry it:
 * cpu_user_ns, mem_used_kib, psi_io_full_us, load1_milli, ...; the values of
 * /proc/stat, /proc/meminfo, /proc/pressure (cpu, memory, io), /proc/diskstats,
 * /proc/net/dev and /proc/loadavg as docs/EVENTS.md says). The columns come
 * from the file's schema, not from this code: a field a newer recorder adds
 * is written too. kind: 0 jsonl (one object per line), 1 csv, 2 tsv (a header
 * row first, always, also with no sample). Integers are written exactly;
 * a text field, should a schema have one, as a JSON string (jsonl) or its
 * safe form in quotes (csv/tsv). Reads m->reader again (the model keeps no
 * raw host samples). Returns 0, or -1 when writing to f failed or memory ran
 * out (the caller names the file); a damaged chunk is skipped as every
 * reader skips it (the model's load said so already).
 * With x, each row starts with x->pre (the header with x->head) and
 * `t_epoch_ns` (epoch ns, null/empty without a clock anchor) follows
 * `t_utc`. head (csv/tsv): empty, the header is rendered into it and
 * written; else it holds an earlier host's header and this trace's must be
 * the same, or -2 is returned before any row (its host samples have other
 * fields: the columns would not line up).
 */
int tza_export_host(FILE *f, struct tza_model *m, int kind, const struct tza_xfleet *x,
		    struct tza_line *head);

/* ns, a CLOCK_BOOTTIME time, as ns from m's start (m->t0_ns): the times of
 * export's rows */
static inline int64_t tza_xrel(const struct tza_model *m, uint64_t ns)
{
	return (int64_t)(ns - m->t0_ns);
}

/*
 * The rows of processes (export_procs.c), in m's start order: kind 0 jsonl
 * (one object per process, with samples != 0 its "samples"), 1 csv, 2 tsv
 * (with header, the names row first). by: what the "tool" key / "name"
 * column says. x: the fleet columns, NULL for none. A process skip(ctx, p)
 * says yes to is left out (skip NULL: none is). Each row is built in memory
 * and written with one fwrite. Returns 0, or 1 when a row could not be built
 * (out of memory) or written.
 */
typedef int tza_xskip_fn(const void *ctx, const struct tza_proc *p);
int tza_export_procs(FILE *f, struct tza_model *m, int kind, enum tza_by by, int samples,
		     const struct tza_xfleet *x, int header, tza_xskip_fn *skip, const void *ctx);

/*
 * The rows of tasks ts of m (export --tasks, export_tasks.c): kind 0 jsonl,
 * 1 csv, 2 tsv (with header, the names row first); Nextflow's trace.txt
 * columns, then ours (docs/tracer-analyze.md "export --tasks"). A task whose
 * root process skip(ctx, root) says yes to is left out. A workflow record's
 * start/end out of 1970..5000 is left empty, with a note on stderr. Returns
 * 0, or 1 when a row could not be built or written.
 */
int tza_export_tasks(FILE *f, struct tza_model *m, const struct tza_tasks *ts, int kind,
		     const struct tza_xfleet *x, int header, tza_xskip_fn *skip, const void *ctx);

/* -------------------------------------------- cells (export_cells.c) */

/* One csv/tsv field of ASCII-safe text (command_line): csv quotes per RFC
 * 4180; tsv escapes \t \n \r \\. */
void tza_sv_quote(struct tza_line *l, const char *s, size_t len, int tsv);
/* One csv/tsv field of trace bytes s (NULL: empty): their safe form
 * (textsafe.h: control bytes and invalid UTF-8 escaped, \t \n \r \\ among
 * them), then tza_sv_quote. */
void tza_sv_str(struct tza_line *l, const char *s, int tsv);

/* One cell of a row: "name":value in jsonl, value in csv/tsv (kind: 0
 * jsonl, 1 csv, 2 tsv); a NULL string or has = 0 is null / empty. n: the
 * cells written so far (0: a jsonl row opens with '{'). */
struct tza_cells {
	struct tza_line *l;
	int kind, n;
};
void tza_cell_str(struct tza_cells *c, const char *name, const char *v);
void tza_cell_i64(struct tza_cells *c, const char *name, int has, int64_t v);
/* v with decimals digits after the point */
void tza_cell_num(struct tza_cells *c, const char *name, int has, double v, int decimals);

/* The absolute forms of a time column, two cells: UTC ISO-8601 with ns and
 * epoch ns (tza_realtime over x->r); null/empty when !has or the trace has
 * no clock anchor. header: their names. */
void tza_xfleet_time(struct tza_cells *c, const struct tza_xfleet *x, const char *utc_key,
		     const char *ns_key, int has, uint64_t boot_ns, int header);
/* The same two in jsonl after other keys: ,"K_utc":..,"K_epoch_ns":.. */
void tza_xfleet_time_json(struct tza_line *l, const struct tza_xfleet *x, const char *utc_key,
			  const char *ns_key, int has, uint64_t boot_ns);
/* The three cells that say where a row comes from: host, boot_id,
 * trace_uuid (header: their names). */
void tza_xfleet_ids(struct tza_cells *c, const struct tza_xfleet *x, int header);
/* Fill x, the fleet columns of trace r (host: its hostname, "" or NULL
 * unknown; uuid, boot: the trace's, all zero unknown) for format kind.
 * Returns 0, or -1 out of memory; the caller frees x->pre either way
 * (tza_line_free). */
int tza_xfleet_init(struct tza_xfleet *x, tz_reader *r, const char *host,
		    const uint8_t uuid[16], const uint8_t boot[16], int kind);

#endif
