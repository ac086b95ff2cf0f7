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

static const struct tza_cmd_spec export_spec = {
    .name = "export",
    .synopsis =
	"usage: tracer-analyze export [--format csv|tsv|jsonl|chrome] [--by KEY] [--task REGEX]\n"
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
	"\n",
    .notes = "Arguments that are not valid UTF-8 are written in JSON as \\udcXX escapes\n"
	     "(Python's surrogateescape); csv/tsv quote argv words like bash $'...' and\n"
	     "show control bytes and invalid UTF-8 in names as \\e, \\t, \\xNN (never raw).\n",
    .examples = "  tracer-analyze export --format jsonl trace.tz > procs.jsonl\n"
		"  tracer-analyze export --format csv --by command trace.tz > procs.csv\n"
		"  tracer-analyze export --format chrome -o trace.json trace.tz\n"
		"  tracer-analyze export --format jsonl -o run.jsonl.zst node1.tz node2.tz\n"
		"  tracer-analyze export --fleet -o fleet.jsonl.zst traces/   # jsonl, by OUT's name\n"
		"  tracer-analyze export --format csv --tasks -o tasks.csv.gz run.tz   # a merge\n",
    .col = 21,
};

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

/* The --format OUT's name asks for (export_opts.kind): NAME.jsonl, .csv or
 * .tsv, each also with .zst or .gz after it; -1 for any other name (.json
 * is either jsonl or chrome: not guessed). */
static int kind_of_name(const char *path)
{
	size_t n = strlen(path);
	enum tza_z z = tza_z_of_name(path);
	n -= z == TZA_Z_GZIP ? 3 : z == TZA_Z_ZSTD ? 4 : 0;
	static const char *const ext[] = {".jsonl", ".csv", ".tsv"};
	for (int k = 0; k < 3; k++) {
		size_t l = strlen(ext[k]);
		if (n > l && !strncmp(path + n - l, ext[k], l))
			return k;
	}
	return -1;
}

/* Parse argv into o. Returns -1 when done (error printed) with *rc the exit
 * code (TZA_EXIT_OK after --help), else 0: argv[optind..] are the traces. */
static int export_options(int argc, char **argv, struct export_opts *o, int *rc)
{
	*o = (struct export_opts){.by = TZA_BY_TOOL, .kind = -1, .compress = -1};
	const struct tza_option opts[] = {
		OPT_ENUM('f', "format", "FMT", &o->kind, format_words,
			 "output format (required unless -o OUT ends in .jsonl,\n"
			 ".csv or .tsv, also with .zst or .gz: that format)"),
		OPT_BY(&o->by, "naming of the 'tool' column/key: exe, tool (default), command\n"
			       "or task, rule, job, container (docs: Tasks)"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_CALL(0, "tasks", NULL, opt_tasks, &o->tasks,
			 "csv/tsv/jsonl: one row per task (Nextflow trace.txt columns:\n"
			 "task_id, hash, native_id, name, tag, status, exit, start,\n"
			 "complete, duration, realtime, %cpu, peak_rss, rchar, wchar,\n"
			 "syscr, syscw, read_bytes, write_bytes; then ours), instead\n"
			 "of one per process; %cpu is measured, 100 x cpu_s / wall_s,\n"
			 "not held to the members' threads as rightsize's cores are;\n"
			 "peak_rss is the members' own, from their first exec on"),
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
			   "write to OUT instead of standard output (OUT - is\n"
			   "standard output; a file is mode 0600: it copies argv;\n"
			   "0666 less the umask for a redacted trace); OUT ending\n"
			   "in .zst or .gz is compressed (zstd, gzip)"),
		OPT_ENUM(0, "compress", "ALG", &o->compress, compress_words,
			 "none, zstd or gzip, whatever OUT's name (also to\n"
			 "standard output)"),
		OPT_FLAG(0, "force", &o->force, "replace OUT if it exists (-f is --format)"),
		OPT_FLAG(0, "samples", &o->samples,
			 "jsonl: add each process's samples (t_s, utime_s, stime_s,\n"
			 "rss_kib, threads, read_bytes, write_bytes, rchar, wchar;\n"
			 "rss_kib and threads null where unknown: slice)"),
		OPT_END_TRACE,
	};
	*rc = tza_options_parse(&export_spec, opts, argc, argv);
	if (*rc >= 0)
		return -1;
	*rc = TZA_EXIT_USAGE;
	if (o->outp && !strcmp(o->outp, "-"))
		o->outp = NULL; /* -o -: standard output */
	if (o->kind < 0 && o->outp)
		o->kind = kind_of_name(o->outp);
	if (o->kind < 0) {
		tza_err("export: --format is required (csv, tsv, jsonl or chrome) unless -o "
			"OUT ends in .jsonl, .csv or .tsv (also with .zst or .gz)");
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

/* Several host traces written as one stream (export_hosts). */
struct xhosts {
	struct tza_fleet fl;
	struct tza_fleet_seen seen; /* processes written, per host */
	size_t i;		    /* the host being written */
};

/* p was written already, from an earlier trace of its host (ctx: the
 * struct xhosts, NULL with one trace); a tza_xskip_fn */
static int written(const void *ctx, const struct tza_proc *p)
{
	const struct xhosts *h = ctx;
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
	int kind = o->kind, first = !h || !h->i;
	const struct tza_tasks *ts = o->tasks ? tza_tasks_of(m) : NULL;
	if (o->host) {
		int rc = tza_export_host(f, m, kind, x, head);
		if (rc == -2) {
			tza_err("export: '%s': its host samples have other fields than the first "
				"host's (export --host them one by one, or as jsonl)",
				name);
			return 2;
		}
		return rc < 0;
	}
	if (ts)
		return tza_export_tasks(f, m, ts, kind, x, first, written, h);
	if (kind == 3) {
		tza_export_chrome(f, m, o->by);
		return 0;
	}
	return tza_export_procs(f, m, kind, o->by, o->samples, x, first, written, h);
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
	if (o->outp)
		tza_err("'%s': write failed", o->outp);
	else
		tza_err("standard output: write failed");
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
		int rc = tza_xfleet_init(&x, r, hn, hs->me->uuid,
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
	if (tza_refuse_out_in_args("export", o.outp, argv + optind, argc - optind))
		return TZA_EXIT_FAIL;
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
		if (tza_xfleet_init(&x, r, tz_reader_meta_get(r, "hostname"), in->uuid, in->boot_id,
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
