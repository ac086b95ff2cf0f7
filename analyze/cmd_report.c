/*
 * cmd_report.c - `tracer-analyze report`: one self-contained HTML file (no
 * network at view time) built from the analyzer's own JSON outputs, run
 * in-process: summary --json, top --json, critical-path --json, idle --json
 * and export --format jsonl --samples, plus the plots' tool colours. The page
 * (analyze/report/report.{html,css,js}, compiled in by the Makefile as
 * report_asset.h) reads that one JSON blob and draws everything in the
 * browser, so its numbers are those of the commands.
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "plot.h"
#include "report.h"
#include "report_asset.h"
#include "task.h"

static void usage(FILE *f)
{
	fputs("usage: tracer-analyze report [-o OUT.html] [-f] [--by task|rule|job|container]\n"
	      "                             [--task REGEX] FILE\n\n"
	      "Write one HTML file that any current browser opens offline (no network:\n"
	      "styles, script and data are inside it): the run's header with drops and\n"
	      "damage, summary, top tools, critical path, failures, idle stretches, an\n"
	      "interactive timeline (wheel: zoom, drag: pan, hover: the process), CPU,\n"
	      "memory and I/O over time, a process table (sort, filter) and tree.\n"
	      "The numbers are those of summary --json, top --json, critical-path --json,\n"
	      "idle --json and export --format jsonl --samples, embedded as one JSON blob.\n\n"
	      "With --by (or --task) the page also has a Tasks section: one row per task\n"
	      "(export --tasks --format jsonl, embedded as \"tasks\") and a table per\n"
	      "group of --by (top --json --by KEY, embedded as \"task_groups\").\n\n"
	      "  -o, --output PATH   the page (default report.html)\n"
	      "  -b, --by KEY        task (default with --task), rule, job or container\n"
	      "      --task REGEX    a task per outermost process matching REGEX (docs: Tasks)\n"
	      "  -f, --force         replace PATH if it exists (never a directory, FIFO\n"
	      "                      or device)\n"
	      "  -h, --help          this help\n\n"
	      "The page holds every command line: it is created mode 0600, or 0666 less\n"
	      "the umask when the trace was redacted (tracer-record --redact, bundle\n"
	      "--redact), as export's files (FILES WRITTEN in docs/tracer-analyze.md).\n\n"
	      "Examples:\n"
	      "  tracer-analyze report run.tz                 # writes report.html\n"
	      "  tracer-analyze report -o run.html -f run.tz\n"
	      "  tracer-analyze report -o r.html report.tar.gz\n"
	      "  tracer-analyze report --by rule -o run.html snakemake-run.tz\n",
	      f);
}

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

/*
 * JSON text into a <script> element: every '<' becomes \u003c. A '<' only
 * occurs inside JSON strings, where the escape means the same character, so
 * no "</script>" or "<!--" in an argv can end or change the element.
 */
static void put_json(FILE *f, const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		size_t k = lt ? (size_t)(lt - s) : (size_t)(end - s);
		fwrite(s, 1, k, f);
		if (!lt)
			break;
		fputs("\\u003c", f);
		s = lt + 1;
	}
}

/* The keys of export's jsonl objects the page uses; the others (every exec,
 * failed execs, context switches, faults, ...) are left out to keep a
 * 200,000-process page small. Values are copied byte for byte. */
static const char *const proc_keys[] = {
	"id", "parent_id", "pid", "ppid", "start_s", "end_s", "realtime_s", "exe", "argv", "tool",
	"pre_existing", "exit_code", "signal", "core_dumped", "utime_s", "stime_s", "peak_rss_kib",
	"rchar", "wchar", "read_bytes", "write_bytes", "threads", "oom_killed", "killed_by", "samples",
	"exit_lost", NULL,
};

/* Length of the JSON value at s (at most n bytes; export's own output, so
 * well formed): a string, or an object/array with its nesting, or a scalar
 * up to the next ',' '}' or ']'. */
static size_t json_value_len(const char *s, size_t n)
{
	size_t i = 0;
	int depth = 0, in_str = 0;
	for (; i < n; i++) {
		char ch = s[i];
		if (in_str) {
			if (ch == '\\') {
				i++;
			} else if (ch == '"') {
				in_str = 0;
				if (depth == 0)
					return i + 1;
			}
			continue;
		}
		if (ch == '"')
			in_str = 1;
		else if (ch == '{' || ch == '[')
			depth++;
		else if (ch == '}' || ch == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (ch == ',' && depth == 0)
			return i;
	}
	return i;
}

/* One jsonl object with only proc_keys, '<' escaped (put_json). */
static void put_proc(FILE *f, const char *s, size_t n)
{
	size_t i = 1; /* after '{' */
	int first = 1;
	fputc('{', f);
	while (i < n && s[i] == '"') {
		const char *key = s + i + 1, *q = memchr(key, '"', n - i - 1);
		if (!q || (size_t)(q - s) + 2 > n)
			break;
		size_t klen = (size_t)(q - key), v = (size_t)(q - s) + 2; /* after ':' */
		size_t vlen = json_value_len(s + v, n - v);
		int keep = 0;
		for (const char *const *k = proc_keys; *k && !keep; k++)
			keep = strlen(*k) == klen && !memcmp(*k, key, klen);
		if (keep) {
			if (!first)
				fputc(',', f);
			put_json(f, key - 1, klen + 3 + vlen);
			first = 0;
		}
		i = v + vlen + 1; /* past ',' */
	}
	fputc('}', f);
}

/* export jsonl (one object a line) as the elements of a JSON array; whole:
 * every key, else only proc_keys */
static void put_jsonl_array(FILE *f, const struct out *o, int whole)
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
			if (whole)
				put_json(f, s, k);
			else
				put_proc(f, s, k);
			first = 0;
		}
		s += k + 1;
	}
	fputc(']', f);
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

enum { O_SUMMARY, O_TOP, O_CRIT, O_IDLE, O_PROCS, O_TASKS, O_GROUPS, NOUT };

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'f'},
		{"by", required_argument, NULL, 'b'},
		{"task", required_argument, NULL, TZA_OPT_TASK},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *outp = "report.html", *by = NULL, *regex = NULL;
	int force = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:fb:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (strcmp(optarg, "task") && strcmp(optarg, "rule") && strcmp(optarg, "job") &&
			    strcmp(optarg, "container")) {
				tza_err("--by: '%s' is not one of task, rule, job, container", optarg);
				return TZA_EXIT_USAGE;
			}
			by = optarg;
			break;
		case TZA_OPT_TASK: { /* set after the colours' load (below) */
			regex_t re;
			if (regcomp(&re, optarg, REG_EXTENDED | REG_NOSUB))
				return tza_task_set_regex(optarg) < 0 ? TZA_EXIT_USAGE : TZA_EXIT_FAIL;
			regfree(&re);
			regex = optarg;
			break;
		}
		case 'o':
			outp = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout);
			return TZA_EXIT_OK;
		default:
			tza_bad_option("report", argc, argv);
			return TZA_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		tza_err("report: expected one FILE (see 'tracer-analyze report --help')");
		return TZA_EXIT_USAGE;
	}
	if (regex && !by)
		by = "task";
	char *in = argv[optind];
	/* an existing OUT is refused before any work, as by every writer */
	struct stat ost;
	if (!lstat(outp, &ost)) {
		if (!S_ISREG(ost.st_mode) && !S_ISLNK(ost.st_mode)) {
			tza_err("'%s': not a regular file", outp);
			return TZA_EXIT_FAIL;
		}
		if (!force) {
			tza_err_exists(outp, "-f");
			return TZA_EXIT_FAIL;
		}
	}
	tz_reader *r;
	struct tza_model *m;
	if (tza_load(in, &r, &m) < 0)
		return TZA_EXIT_FAIL;
	unsigned mode = tza_argv_mode(r);
	char *colors = NULL;
	size_t ncolors = 0;
	FILE *cf = open_memstream(&colors, &ncolors);
	int crc = cf ? tza_plot_colors_json(cf, m) : -1;
	if (cf && fclose(cf))
		crc = -1;
	tza_unload(r, m);
	if (crc < 0) {
		free(colors);
		tza_err("report: out of memory");
		return TZA_EXIT_FAIL;
	}

	/* tasks from here on: the summary's run shows their notes once */
	if (regex)
		tza_task_set_regex(regex);
	else if (by)
		tza_task_want();
	const char *avs[NOUT][8] = {
		[O_SUMMARY] = {"summary", "--json", NULL},
		[O_TOP] = {"top", "--json", "-n", "0", NULL},
		[O_CRIT] = {"critical-path", "--json", NULL},
		[O_IDLE] = {"idle", "--json", NULL},
		[O_PROCS] = {"export", "--format", "jsonl", "--samples", NULL},
		[O_TASKS] = {"export", "--tasks", "--format", "jsonl", NULL},
		[O_GROUPS] = {"top", "--json", "-n", "0", "--by", by, NULL},
	};
	int (*const fns[NOUT])(int, char **) = {cmd_summary, cmd_top,	 cmd_critical_path, cmd_idle,
						cmd_export,  cmd_export, cmd_top};
	struct out o[NOUT] = {{0}};
	int rc = TZA_EXIT_FAIL;
	int nout = by ? NOUT : O_TASKS;
	for (int i = 0; i < nout; i++) {
		char *av[10];
		int k = 0;
		for (; avs[i][k]; k++)
			av[k] = (char *)avs[i][k];
		av[k++] = in;
		av[k] = NULL;
		/* stderr of the first run only: the drop warnings and task
		 * notes once (every run after it says the same) */
		int hr = capture(fns[i], av, &o[i], i == O_SUMMARY);
		if (hr != 0) {
			tza_err("report: '%s' failed: no report written", avs[i][0]);
			rc = hr > 0 ? hr : TZA_EXIT_FAIL;
			goto out;
		}
	}

	FILE *f = tza_create_out(outp, force, mode, "w", "-f");
	if (!f)
		goto out;
	const char *s = put_until(f, (const char *)report_html, "CSS");
	fwrite(report_css, 1, report_css_len, f);
	s = put_until(f, s, "DATA");
	fprintf(f, "{\"report_version\":1,\"analyzer\":\"%s\",\"colors\":", TRACER_VERSION);
	put_json(f, colors, ncolors);
	static const char *const keys[NOUT] = {"summary", "top",   "critical_path", "idle",
					       "processes", "tasks", "task_groups"};
	if (by)
		fprintf(f, ",\n\"by\":\"%s\"", by);
	for (int i = 0; i < nout; i++) {
		fprintf(f, ",\n\"%s\":", keys[i]);
		if (i == O_PROCS || i == O_TASKS)
			put_jsonl_array(f, &o[i], i == O_TASKS);
		else
			put_json(f, o[i].p, o[i].len);
	}
	fputs("}", f);
	s = put_until(f, s, "JS");
	fwrite(report_js, 1, report_js_len, f);
	if (s)
		fputs(s, f);
	if (ferror(f) | fclose(f)) {
		tza_err("'%s': write failed", outp);
		unlink(outp);
		goto out;
	}
	rc = TZA_EXIT_OK;
out:
	for (int i = 0; i < NOUT; i++)
		free(o[i].p);
	free(colors);
	return rc;
}
