/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export.h - the writers of `tracer-analyze export` that live outside
 * cmd_export.c. Keys and columns are public contracts: docs/tracer-analyze.md
 * "export".
 */
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdio.h>

#include "json.h"
#include "model.h"

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

#endif
