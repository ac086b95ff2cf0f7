/*
 * cmd_report.c - `tracer-analyze report`: one self-contained HTML file (no
 * network at view time) built from the analyzer's own JSON outputs, run
 * in-process: summary --json, top --json, critical-path --json, idle --json
 * and export --format jsonl --samples, plus the plots' tool colours. The page
 * (analyze/report/report.{html,css,js}, compiled in by the Makefile as
 * report_asset.h) reads that one JSON blob (the processes by column, the
 * whole gzip-compressed in base64: docs/plots-and-bundles.md, Data) and
 * draws everything in the browser, so its numbers are those of the commands.
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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
	      "idle --json and export --format jsonl --samples, embedded as one JSON blob\n"
	      "(processes by column; gzip, base64: the browser unpacks it with its\n"
	      "DecompressionStream, in Chrome/Edge 80, Firefox 113, Safari 16.4 or newer).\n\n"
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
 * 200,000-process page small. RAW: a column of the values; DICT: a column of
 * indices into a table of the distinct values; SHARED: the key is in one
 * object of the SHARED keys a process, and the "shared" column holds indices
 * into a table of those distinct objects (few: one per tool and outcome). */
enum { RAW, DICT, SHARED };
static const struct {
	const char *key;
	int how;
} proc_cols[] = {
	{"id", RAW},	       {"parent_id", RAW},    {"pid", RAW},	    {"start_s", RAW},
	{"end_s", RAW},	       {"realtime_s", RAW},   {"exe", SHARED},	    {"argv", DICT},
	{"tool", SHARED},      {"exit_code", SHARED}, {"signal", SHARED},   {"core_dumped", SHARED},
	{"utime_s", RAW},      {"stime_s", RAW},      {"peak_rss_kib", RAW}, {"read_bytes", RAW},
	{"write_bytes", RAW},  {"oom_killed", SHARED}, {"killed_by", SHARED}, {"samples", RAW},
	{"exit_lost", SHARED},
};
enum { NCOL = sizeof(proc_cols) / sizeof(proc_cols[0]) };

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

/* One column of the processes: its values' JSON text, comma separated (a
 * DICT or the shared column: indices into its distinct values, written to df
 * and kept, copied, in an open-addressing hash). */
struct col {
	char *buf, *dbuf;
	size_t len, dlen;
	FILE *f, *df;
	struct {
		char *s;
		size_t n;
		unsigned idx;
	} *ht;
	size_t cap, ndist;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The index of value s[0..n) in c's table, added when new; -1 when out of
 * memory. */
static long col_intern(struct col *c, const char *s, size_t n)
{
	if (2 * (c->ndist + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		__typeof__(c->ht) ht = calloc(cap, sizeof(*ht));
		if (!ht)
			return -1;
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->ht[i].s)
				continue;
			size_t j = hash_bytes(c->ht[i].s, c->ht[i].n) & (cap - 1);
			while (ht[j].s)
				j = (j + 1) & (cap - 1);
			ht[j] = c->ht[i];
		}
		free(c->ht);
		c->ht = ht;
		c->cap = cap;
	}
	size_t j = hash_bytes(s, n) & (c->cap - 1);
	for (; c->ht[j].s; j = (j + 1) & (c->cap - 1))
		if (c->ht[j].n == n && !memcmp(c->ht[j].s, s, n))
			return c->ht[j].idx;
	if (!(c->ht[j].s = malloc(n ? n : 1)))
		return -1;
	memcpy(c->ht[j].s, s, n);
	c->ht[j].n = n;
	c->ht[j].idx = (unsigned)c->ndist;
	if (c->ndist)
		fputc(',', c->df);
	put_json(c->df, s, n);
	return (long)c->ndist++;
}

/* Append v to c's column: the value, or its index (intern). */
static int col_put(struct col *c, size_t row, int how, const char *v, size_t n)
{
	if (row)
		fputc(',', c->f);
	if (how == RAW) {
		put_json(c->f, v, n);
		return 0;
	}
	long x = col_intern(c, v, n);
	if (x < 0)
		return -1;
	fprintf(c->f, "%ld", x);
	return 0;
}

/* Split one jsonl object into the columns, cols[NCOL] the shared one (a key
 * it lacks: null); sh is scratch space for the shared object. */
static int put_proc(struct col *cols, size_t row, const char *s, size_t n, char **sh, size_t *shcap)
{
	const char *val[NCOL] = {0};
	size_t vlen[NCOL] = {0}, i = 1; /* after '{' */
	while (i < n && s[i] == '"') {
		const char *key = s + i + 1, *q = memchr(key, '"', n - i - 1);
		if (!q || (size_t)(q - s) + 2 > n)
			break;
		size_t klen = (size_t)(q - key), v = (size_t)(q - s) + 2; /* after ':' */
		size_t vl = json_value_len(s + v, n - v);
		for (int k = 0; k < NCOL; k++)
			if (proc_cols[k].key[0] == key[0] && !strncmp(proc_cols[k].key, key, klen) &&
			    !proc_cols[k].key[klen]) {
				val[k] = s + v;
				vlen[k] = vl;
				break;
			}
		i = v + vl + 1; /* past ',' */
	}
	size_t shlen = 0;
	for (int k = 0; k < NCOL; k++) {
		const char *vs = val[k] ? val[k] : "null";
		size_t vn = val[k] ? vlen[k] : 4, kn = strlen(proc_cols[k].key);
		if (proc_cols[k].how != SHARED) {
			if (col_put(&cols[k], row, proc_cols[k].how, vs, vn) < 0)
				return -1;
			continue;
		}
		if (shlen + kn + vn + 8 > *shcap) { /* {"KEY":V, or ,"KEY":V and } */
			size_t cap = 2 * (shlen + kn + vn + 8);
			char *p = realloc(*sh, cap);
			if (!p)
				return -1;
			*sh = p;
			*shcap = cap;
		}
		shlen += (size_t)sprintf(*sh + shlen, "%c\"%s\":", shlen ? ',' : '{', proc_cols[k].key);
		memcpy(*sh + shlen, vs, vn);
		shlen += vn;
	}
	(*sh)[shlen++] = '}';
	return col_put(&cols[NCOL], row, SHARED, *sh, shlen);
}

/*
 * export jsonl as the processes' columns (docs/plots-and-bundles.md, Data):
 * {"count":N,"columns":{KEY:[...]...,"shared":[...]},"values":{KEY:[distinct
 * values]...,"shared":[distinct objects]}}. Values byte for byte, '<'
 * escaped. Returns 0, or -1 out of memory.
 */
static int put_proc_columns(FILE *f, const struct out *o)
{
	struct col cols[NCOL + 1] = {{0}};
	char *sh = NULL;
	size_t shcap = 0, row = 0;
	int rc = -1;
	for (int k = 0; k <= NCOL; k++) {
		if (!(cols[k].f = open_memstream(&cols[k].buf, &cols[k].len)))
			goto out;
		if ((k == NCOL || proc_cols[k].how == DICT) &&
		    !(cols[k].df = open_memstream(&cols[k].dbuf, &cols[k].dlen)))
			goto out;
	}
	const char *s = o->p, *end = o->p + o->len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (k && put_proc(cols, row++, s, k, &sh, &shcap) < 0)
			goto out;
		s += k + 1;
	}
	for (int k = 0; k <= NCOL; k++) {
		if (fclose(cols[k].f) | (cols[k].df && fclose(cols[k].df)))
			goto out;
		cols[k].f = cols[k].df = NULL;
	}
	fprintf(f, "{\"count\":%zu,\"columns\":{", row);
	for (int k = 0; k <= NCOL; k++)
		if (k == NCOL || proc_cols[k].how != SHARED)
			fprintf(f, "%s\n\"%s\":[%.*s]", k ? "," : "", k < NCOL ? proc_cols[k].key : "shared",
				(int)cols[k].len, cols[k].buf);
	fputs("},\n\"values\":{", f);
	for (int k = 0, first = 1; k <= NCOL; k++) {
		if (!cols[k].dbuf)
			continue;
		fprintf(f, "%s\n\"%s\":[%.*s]", first ? "" : ",", k < NCOL ? proc_cols[k].key : "shared",
			(int)cols[k].dlen, cols[k].dbuf);
		first = 0;
	}
	fputs("}}", f);
	rc = 0;
out:
	for (int k = 0; k <= NCOL; k++) {
		if (cols[k].f)
			fclose(cols[k].f);
		if (cols[k].df)
			fclose(cols[k].df);
		free(cols[k].buf);
		free(cols[k].dbuf);
		for (size_t i = 0; i < cols[k].cap; i++)
			free(cols[k].ht[i].s);
		free(cols[k].ht);
	}
	free(sh);
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
			put_json(f, s, k);
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

	/* the data, in memory, then gzip + base64 into the page */
	char *blob = NULL, *gz = NULL;
	size_t nblob = 0, ngz = 0;
	FILE *bf = open_memstream(&blob, &nblob);
	if (!bf) {
		tza_err("report: out of memory");
		goto out;
	}
	fprintf(bf, "{\"report_version\":2,\"analyzer\":\"%s\",\"colors\":", TRACER_VERSION);
	put_json(bf, colors, ncolors);
	static const char *const keys[NOUT] = {"summary", "top",   "critical_path", "idle",
					       "processes", "tasks", "task_groups"};
	if (by)
		fprintf(bf, ",\n\"by\":\"%s\"", by);
	int brc = 0;
	for (int i = 0; i < nout && !brc; i++) {
		fprintf(bf, ",\n\"%s\":", keys[i]);
		if (i == O_PROCS)
			brc = put_proc_columns(bf, &o[i]);
		else if (i == O_TASKS)
			put_jsonl_array(bf, &o[i]);
		else
			put_json(bf, o[i].p, o[i].len);
	}
	fputs("}", bf);
	if ((ferror(bf) | fclose(bf)) || brc || gzip_mem(blob, nblob, &gz, &ngz) < 0) {
		free(blob);
		tza_err("report: out of memory");
		goto out;
	}
	free(blob);

	FILE *f = tza_create_out(outp, force, mode, "w", "-f");
	if (!f) {
		free(gz);
		goto out;
	}
	const char *s = put_until(f, (const char *)report_html, "CSS");
	fwrite(report_css, 1, report_css_len, f);
	s = put_until(f, s, "DATA");
	put_base64(f, gz, ngz);
	free(gz);
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
