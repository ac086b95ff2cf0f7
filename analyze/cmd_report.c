/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd_report.c - `tracer-analyze report`: one self-contained HTML file (no
 * network at view time) built from the analyzer's own JSON outputs, run
 * in-process: summary --json, top --json, critical-path --json, idle --json
 * and export --format jsonl --samples, plus the plots' tool colours. The page
 * (analyze/report/report.{html,css,js}, compiled in by the Makefile as
 * report_asset.h) reads that data: one JSON object and the processes'
 * columns in binary (report_cols.h), gzip-compressed in base64
 * (docs/plots-and-bundles.md, Data), and
 * draws everything in the browser, so its numbers are those of the commands.
 * Several traces (fleet.h: files, a directory, a merge) are one run over
 * several hosts: the same commands over them, each host's place on the
 * run's axis and the tools' colours from plot's first pass over the hosts
 * (tza_plot_hosts_json), report_version 5; the script's parts for that are
 * between HOSTS markers, left out of one trace's page (tza_report_put_js).
 */
#include <errno.h>
#include <getopt.h> /* optind */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analyze.h"
#include "fleet.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "report_asset.h"
#include "report_cols.h"
#include "task.h"

static const struct tza_cmd_spec report_spec = {
    .name = "report",
    .synopsis = "usage: tracer-analyze report [-o OUT.html] [-f] [--by task|rule|job|container]\n"
		"                             [--task REGEX] FILE...\n\n"
		"Write one HTML file that any current browser opens offline (no network:\n"
		"styles, script and data are inside it): the run's header with drops and\n"
		"damage, summary, top tools, critical path, failures, idle stretches, an\n"
		"interactive timeline (wheel: zoom, drag: pan, hover: the process), CPU,\n"
		"memory and I/O over time, a process table (sort, filter) and tree.\n"
		"The numbers are those of summary --json, top --json, critical-path --json,\n"
		"idle --json and export --format jsonl --samples, embedded as one JSON object\n"
		"and the processes' columns in binary (gzip, base64: the browser unpacks\n"
		"it with its DecompressionStream, in Chrome/Edge 80, Firefox 113, Safari\n"
		"16.4 or newer).\n\n"
		"With --by (or --task) the page also has a Tasks section: one row per task\n"
		"(export --tasks --format jsonl, embedded as \"tasks\") and a table per\n"
		"group of --by (top --json --by KEY, embedded as \"task_groups\").\n\n"
		"Several traces (files, a directory of .tz files, a merge) are one run over\n"
		"several hosts: the page shows the run and each host (the commands' output\n"
		"over the hosts), the critical path chained across hosts by time\n"
		"adjacency, each host's idle share, and a timeline with one band per host\n"
		"on the run's wall-clock axis (docs/tracer-analyze.md, MANY HOSTS).\n\n",
    .notes = "The page holds every command line: it is created mode 0600, or 0666 less\n"
	     "the umask when the trace was redacted (tracer-record --redact, bundle\n"
	     "--redact), as export's files (FILES WRITTEN in docs/tracer-analyze.md).\n",
    .examples = "  tracer-analyze report run.tz                 # writes report.html\n"
		"  tracer-analyze report -o run.html -f run.tz\n"
		"  tracer-analyze report -o r.html report.tar.gz\n"
		"  tracer-analyze report --by rule -o run.html snakemake-run.tz\n"
		"  tracer-analyze report -o run.html node1.tz node2.tz node3.tz\n"
		"  tracer-analyze report -o run.html traces/   # or the merge: run.tz\n",
    .col = 22,
};

/* One handler's standard output, in memory. */
struct out {
	char *p;
	size_t len;
};

/*
 * Run fn(av) with stdout and stderr in temporary files; stdout is kept in
 * *o, stderr is shown only when the handler fails (its drop warnings were
 * already shown once by the first handler). Returns the handler's code, or
 * -1 when the temporary files fail.
 */
static int capture(int (*fn)(int, char **), char **av, struct out *o, int show_err)
{
	FILE *tf = tmpfile(), *ef = show_err ? NULL : tmpfile();
	int rc = -1, saved = -1;
	o->p = NULL;
	o->len = 0;
	if (!tf || (!show_err && !ef)) {
		tza_err("report: temporary file: %s", strerror(errno));
		goto out;
	}
	if (ef) {
		fflush(stderr);
		saved = dup(2);
		if (saved < 0 || dup2(fileno(ef), 2) < 0) {
			tza_err("report: standard error: %s", strerror(errno));
			goto out;
		}
	}
	rc = tza_run_to_fd(fn, av, fileno(tf));
	if (ef) {
		fflush(stderr);
		dup2(saved, 2);
		if (rc != 0) { /* say why it failed */
			char b[4096];
			size_t n;
			rewind(ef);
			while ((n = fread(b, 1, sizeof(b), ef)) > 0)
				fwrite(b, 1, n, stderr);
		}
	}
	if (rc != 0)
		goto out;
	struct stat st;
	if (fstat(fileno(tf), &st) < 0 || !(o->p = malloc((size_t)st.st_size + 1))) {
		tza_err("report: out of memory");
		rc = -1;
		goto out;
	}
	o->len = (size_t)st.st_size;
	rewind(tf);
	if (fread(o->p, 1, o->len, tf) != o->len) {
		tza_err("report: temporary file: cannot read back");
		rc = -1;
	}
	o->p[o->len] = 0;
out:
	if (saved >= 0)
		close(saved);
	if (tf)
		fclose(tf);
	if (ef)
		fclose(ef);
	return rc;
}

/* export jsonl (one object a line) as the elements of a JSON array */
static void put_jsonl_array(FILE *f, const struct out *o)
{
	fputc('[', f);
	const char *s = o->p, *end = o->p + o->len;
	int first = 1;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (k) {
			if (!first)
				fputs(",\n", f);
			tza_put_json_lt(f, s, k);
			first = 0;
		}
		s += k + 1;
	}
	fputc(']', f);
}

/*
 * s[0..n) gzip-compressed (RFC 1952, zlib, level 6; the header's time is 0,
 * so the same data gives the same bytes) into *out (malloc'd, *nout bytes).
 * Returns 0, or -1 out of memory.
 */
static int gzip_mem(const char *s, size_t n, char **out, size_t *nout)
{
	z_stream z = {0};
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, n), done = 0;
	unsigned char *b = malloc(cap);
	int zr = Z_OK;
	z.next_in = (unsigned char *)s;
	z.next_out = b;
	while (b && zr == Z_OK) { /* avail_* are 32-bit: at most 1 GiB a call */
		size_t in = n - (size_t)((const char *)z.next_in - s);
		size_t room = cap - (size_t)(z.next_out - b);
		z.avail_in = in > (1u << 30) ? 1u << 30 : (unsigned)in;
		z.avail_out = room > (1u << 30) ? 1u << 30 : (unsigned)room;
		zr = deflate(&z, z.avail_in == in ? Z_FINISH : Z_NO_FLUSH);
	}
	done = b ? (size_t)(z.next_out - b) : 0;
	deflateEnd(&z);
	if (!b || zr != Z_STREAM_END) {
		free(b);
		return -1;
	}
	*out = (char *)b;
	*nout = done;
	return 0;
}

/* s[0..n) in base64 (RFC 4648, with padding, one line) */
static void put_base64(FILE *f, const char *s, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)s;
	char q[4];
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) |
			     (i + 2 < n ? u[i + 2] : 0);
		q[0] = a[v >> 18];
		q[1] = a[v >> 12 & 63];
		q[2] = i + 1 < n ? a[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? a[v & 63] : '=';
		fwrite(q, 1, 4, f);
	}
}

/* Write the asset up to its marker "@NAME@" (or to its end); returns the
 * rest after the marker, or NULL at the end. */
static const char *put_until(FILE *f, const char *s, const char *name)
{
	char mark[32];
	snprintf(mark, sizeof(mark), "@%s@", name);
	const char *m = strstr(s, mark);
	if (!m) {
		fputs(s, f);
		return NULL;
	}
	fwrite(s, 1, (size_t)(m - s), f);
	return m + strlen(mark);
}

/* room for the JSON's length, filled in by data_seal */
static int bb_json_len(FILE *bf)
{
	return fwrite("\0\0\0\0", 1, 4, bf) == 4 ? 0 : -1;
}

/* After the JSON: its length into the first 4 bytes (u32 LE), zeros to a
 * multiple of 8, then the binary part; *n the memstream's length. 0, or -1
 * (a JSON of 4 GiB or more, or a write failed). */
static int data_seal(FILE *bf, size_t *n, const struct tza_bbuf *bin)
{
	if (fflush(bf))
		return -1;
	size_t j = *n - 4;
	unsigned char le[4] = {(unsigned char)j, (unsigned char)(j >> 8), (unsigned char)(j >> 16),
			       (unsigned char)(j >> 24)};
	static const char zeros[8];
	if (j > UINT32_MAX || fseek(bf, 0, SEEK_SET) || fwrite(le, 1, 4, bf) != 4 ||
	    fseek(bf, (long)*n, SEEK_SET) || fwrite(zeros, 1, (8 - *n % 8) % 8, bf) != (8 - *n % 8) % 8)
		return -1;
	if (bin->len && fwrite(bin->p, 1, bin->len, bf) != bin->len)
		return -1;
	return fflush(bf) ? -1 : 0;
}

enum { O_SUMMARY, O_TOP, O_CRIT, O_IDLE, O_PROCS, O_TASKS, O_GROUPS, NOUT };

struct report_job {
	const char *outp, *by, *regex;
	int force;
	char **in;	   /* the trace, or the host traces (fleet.h) */
	int nin;
	int hosts;	   /* a run over several hosts (tza_fleet_wanted) */
	unsigned mode;	   /* OUT's mode: tza_argv_mode of the trace(s) */
	char *colors;	   /* the tools' colours as JSON (tza_plot_colors_json) */
	size_t ncolors;
	char *bands;	   /* over hosts: each host's place (tza_plot_hosts_json) */
	size_t nbands;
	struct out o[NOUT]; /* each part's captured output */
	int nout;	   /* parts run: O_TASKS without --by, else NOUT */
	char *gz;	   /* the page's data, gzipped */
	size_t ngz;
};

/* --by KEY: a task grouping, into the const char * *o->dest */
static int opt_by(const struct tza_option *o, const char *arg)
{
	if (strcmp(arg, "task") && strcmp(arg, "rule") && strcmp(arg, "job") &&
	    strcmp(arg, "container")) {
		tza_err("--by: '%s' is not one of task, rule, job, container", arg);
		return -1;
	}
	*(const char **)o->dest = arg;
	return 0;
}

/* --task REGEX, checked now, into the const char * *o->dest: set after the
 * colours' load (report_colors) */
static int opt_task(const struct tza_option *o, const char *arg)
{
	regex_t re;
	if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB)) {
		tza_task_set_regex(arg); /* its message */
		return -1;
	}
	regfree(&re);
	*(const char **)o->dest = arg;
	return 0;
}

/* Options into j. Returns -1 with the exit status in *rc when done
 * (--help, or an error printed), else 0. */
static int report_options(int argc, char **argv, struct report_job *j, int *rc)
{
	j->outp = "report.html";
	const struct tza_option opts[] = {
		OPT_STRING('o', "output", "PATH", &j->outp, "the page (default report.html; - standard\noutput)"),
		OPT_CALL('b', "by", "KEY", opt_by, &j->by,
			 "task (default with --task), rule, job or container"),
		OPT_CALL(0, "task", "REGEX", opt_task, &j->regex,
			 "a task per outermost process matching REGEX (docs: Tasks)"),
		OPT_FLAG('f', "force", &j->force,
			 "replace PATH if it exists (never a directory, FIFO\n"
			 "or device)"),
		OPT_END_TRACE,
	};
	*rc = tza_options_parse(&report_spec, opts, argc, argv);
	if (*rc >= 0)
		return -1;
	*rc = TZA_EXIT_USAGE;
	j->hosts = optind < argc && tza_fleet_wanted(argv + optind, argc - optind);
	if (!j->hosts && optind != argc - 1) {
		tza_err("report: expected one FILE (see 'tracer-analyze report --help')");
		return -1;
	}
	if (j->regex && !j->by)
		j->by = "task";
	j->in = argv + optind;
	j->nin = argc - optind;
	return 0;
}

/* an existing OUT is refused before any work, as by every writer */
static int report_out_free(const struct report_job *j)
{
	struct stat ost;
	if (!strcmp(j->outp, "-") || lstat(j->outp, &ost))
		return 0;
	if (!S_ISREG(ost.st_mode) && !S_ISLNK(ost.st_mode)) {
		tza_err("'%s': not a regular file", j->outp);
		return -1;
	}
	if (!j->force) {
		tza_err_exists(j->outp, "-f");
		return -1;
	}
	return 0;
}

/* The trace's mode and the tools' colours (one load of its own); over
 * hosts also each host's place on the run's axis (plot's first pass). */
static int report_colors(struct report_job *j)
{
	if (j->hosts) {
		FILE *cf = open_memstream(&j->colors, &j->ncolors);
		FILE *hf = cf ? open_memstream(&j->bands, &j->nbands) : NULL;
		int crc = hf ? tza_plot_hosts_json(cf, hf, j->in, j->nin, &j->mode) : -2;
		/* both streams closed whatever the first one's result */
		int ce = cf ? fclose(cf) : 0, he = hf ? fclose(hf) : 0;
		if (ce || he)
			crc = -2;
		if (crc == -2)
			tza_err("report: out of memory");
		return crc < 0 ? -1 : 0;
	}
	tz_reader *r;
	struct tza_model *m;
	if (tza_load(j->in[0], &r, &m) < 0)
		return -1;
	j->mode = tza_argv_mode(r);
	FILE *cf = open_memstream(&j->colors, &j->ncolors);
	int crc = cf ? tza_plot_colors_json(cf, m) : -1;
	if (cf && fclose(cf))
		crc = -1;
	tza_unload(r, m);
	if (crc < 0) {
		tza_err("report: out of memory");
		return -1;
	}
	return 0;
}

/* Run every part (the subcommands' JSON) into j->o. Returns 0, or the exit
 * status of the part that failed (message printed). */
static int report_parts(struct report_job *j)
{
	/* tasks from here on: the summary's run shows their notes once */
	if (j->regex)
		tza_task_set_regex(j->regex);
	else if (j->by)
		tza_task_want();
	const char *avs[NOUT][8] = {
		[O_SUMMARY] = {"summary", "--json", NULL},
		[O_TOP] = {"top", "--json", "-n", "0", NULL},
		[O_CRIT] = {"critical-path", "--json", NULL},
		[O_IDLE] = {"idle", "--json", NULL},
		[O_PROCS] = {"export", "--format", "jsonl", "--samples", NULL},
		[O_TASKS] = {"export", "--tasks", "--format", "jsonl", NULL},
		[O_GROUPS] = {"top", "--json", "-n", "0", "--by", j->by, NULL},
	};
	int (*const fns[NOUT])(int, char **) = {cmd_summary, cmd_top,	 cmd_critical_path, cmd_idle,
						cmd_export,  cmd_export, cmd_top};
	j->nout = j->by ? NOUT : O_TASKS;
	char **av = malloc(((size_t)j->nin + 10) * sizeof(*av));
	if (!av) {
		tza_err("report: out of memory");
		return TZA_EXIT_FAIL;
	}
	for (int i = 0; i < j->nout; i++) {
		int k = 0;
		for (; avs[i][k]; k++)
			av[k] = (char *)avs[i][k];
		for (int a = 0; a < j->nin; a++)
			av[k++] = j->in[a];
		av[k] = NULL;
		/* stderr of the first run only: the drop warnings and task
		 * notes once (every run after it says the same) */
		int hr = capture(fns[i], av, &j->o[i], i == O_SUMMARY);
		if (hr != 0) {
			tza_err("report: '%s' failed: no report written", avs[i][0]);
			free(av);
			return hr > 0 ? hr : TZA_EXIT_FAIL;
		}
	}
	free(av);
	return 0;
}

/* The data, in memory: [u32 LE: the JSON's length][the JSON][zeros to a
 * multiple of 8][the processes' arrays] (report_cols.h), then gzip into
 * j->gz. Returns 0 or -1 (message printed). */
static int report_pack(struct report_job *j)
{
	static const char *const keys[NOUT] = {"summary", "top",   "critical_path", "idle",
					       "processes", "tasks", "task_groups"};
	char *blob = NULL;
	size_t nblob = 0;
	struct tza_bbuf bin = {0};
	FILE *bf = open_memstream(&blob, &nblob);
	if (!bf || bb_json_len(bf) < 0) {
		if (bf)
			fclose(bf);
		free(blob);
		tza_err("report: out of memory");
		return -1;
	}
	fprintf(bf, "{\"report_version\":%d,\"analyzer\":\"%s\",\"colors\":", j->hosts ? 5 : 4,
		TRACER_VERSION);
	tza_put_json_lt(bf, j->colors, j->ncolors);
	if (j->hosts) { /* report_version 5: the run's hosts */
		fputs(",\n\"multi_host\":true,\"hosts\":", bf);
		tza_put_json_lt(bf, j->bands, j->nbands);
	}
	if (j->by)
		fprintf(bf, ",\n\"by\":\"%s\"", j->by);
	int brc = 0;
	for (int i = 0; i < j->nout && !brc; i++) {
		fprintf(bf, ",\n\"%s\":", keys[i]);
		if (i == O_PROCS)
			brc = tza_report_procs(bf, &bin, j->o[i].p, j->o[i].len, j->hosts);
		else if (i == O_TASKS)
			put_jsonl_array(bf, &j->o[i]);
		else
			tza_put_json_lt(bf, j->o[i].p, j->o[i].len);
	}
	fputs("}", bf);
	if (!brc && !ferror(bf))
		brc = data_seal(bf, &nblob, &bin);
	int bad = (ferror(bf) | fclose(bf)) || brc || gzip_mem(blob, nblob, &j->gz, &j->ngz) < 0;
	free(blob);
	free(bin.p);
	if (bad) {
		tza_err("report: out of memory");
		return -1;
	}
	return 0;
}

/* The page: the HTML with the CSS, the data (base64) and the script put in. */
static int report_write(const struct report_job *j)
{
	int std = !strcmp(j->outp, "-");
	FILE *f = std ? stdout : tza_create_out(j->outp, j->force, j->mode, "w", "-f");
	if (!f)
		return -1;
	const char *s = put_until(f, (const char *)report_html, "CSS");
	fwrite(report_css, 1, report_css_len, f);
	s = put_until(f, s, "DATA");
	put_base64(f, j->gz, j->ngz);
	s = put_until(f, s, "JS");
	tza_report_put_js(f, (const char *)report_js, report_js_len, j->hosts);
	if (s)
		fputs(s, f);
	if (std) {
		if (ferror(f) | fflush(f)) {
			tza_err("standard output: write failed");
			return -1;
		}
	} else if (ferror(f) | fclose(f)) {
		tza_err("'%s': write failed", j->outp);
		unlink(j->outp);
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_job j = {0};
	int rc;
	if (report_options(argc, argv, &j, &rc) < 0)
		return rc;
	if (report_out_free(&j) < 0 || tza_refuse_out_in_args("report", j.outp, j.in, j.nin) ||
	    report_colors(&j) < 0)
		rc = TZA_EXIT_FAIL;
	else if ((rc = report_parts(&j)) == 0)
		rc = report_pack(&j) < 0 || report_write(&j) < 0 ? TZA_EXIT_FAIL : TZA_EXIT_OK;
	for (int i = 0; i < NOUT; i++)
		free(j.o[i].p);
	free(j.colors);
	free(j.bands);
	free(j.gz);
	return rc;
}
