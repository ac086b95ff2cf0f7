/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_bundle.c - `tracer-analyze bundle`: one archive with the trace, summaries and plots. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h> /* optind */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "analyze.h"
#include "bpf/events.h"
#include "bundle.h"
#include "common/redact.h"
#include "fleet.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "sigclean.h"

#define MAX_EXTRA 32 /* --redact-pattern; with the built-in ones <= REDACT_MAX */

/* Redaction is common/redact.c's engine, the one tracer-record --redact
 * uses: secrets become runs of '*' of their own length, everywhere. */

/* ---------------------------------------------------------------- the trace */

/* A copied event (for the first state block). */
struct saved_ev {
	uint16_t type;
	uint64_t ts;
	uint8_t *fixed;
	uint32_t fixed_len, nblobs;
	struct tz_blob blobs[8];
};

struct rewrite {
	struct saved_ev *state;
	size_t nstate;
	int state_written;
};

static int state_cb(void *ctx, tz_writer *w)
{
	struct rewrite *rw = ctx;
	if (rw->state_written)
		return 0;
	rw->state_written = 1;
	for (size_t i = 0; i < rw->nstate; i++) {
		struct saved_ev *s = &rw->state[i];
		int rc = tz_writer_add_state(w, s->type, s->ts, s->fixed, s->fixed_len, s->blobs,
					     s->nblobs);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* an unsigned field of ev by name, 0 when absent */
static uint64_t ev_u64(const struct tz_event *ev, const char *name)
{
	return tz_event_u64(ev, tz_type_field(ev->type, name));
}

/*
 * Redact one event into *sv (owning copies): its blobs (STRV as argv, STR
 * as paths, a blob without a field as text) and CHARS fields (as comm)
 * together, with redact_strs(), so a comm follows its exe's mask. Lengths
 * do not change.
 */
static int redact_event(struct redact *rd, const struct tz_event *ev, struct saved_ev *sv)
{
	const struct tz_event_type *t = ev->type;
	struct redact_str st[8 + 8];
	size_t n = 0;
	int exec = t->name && !strcmp(t->name, "exec");
	int argv_cut = ev_u64(ev, "argv_len") < ev_u64(ev, "argv_size") ||
		       (exec && (ev_u64(ev, "flags") & EV_EXEC_ARGV_TRUNCATED));
	int path_cut = exec && (ev_u64(ev, "flags") & EV_EXEC_PATH_TRUNCATED);

	memset(sv, 0, sizeof(*sv));
	sv->type = ev->type_id;
	sv->ts = ev->ts_ns;
	sv->fixed_len = ev->fixed_len;
	sv->fixed = malloc(ev->fixed_len ? ev->fixed_len : 1);
	if (!sv->fixed)
		return -1;
	memcpy(sv->fixed, ev->fixed, ev->fixed_len);
	sv->nblobs = ev->nblobs < 8 ? ev->nblobs : 8;
	for (uint32_t b = 0; b < sv->nblobs; b++) {
		const struct tz_blob *in = &ev->blobs[b];
		uint8_t *cp = malloc(in->len ? in->len : 1);
		if (!cp)
			return -1;
		if (in->len)
			memcpy(cp, in->data, in->len);
		sv->blobs[b] = (struct tz_blob){cp, in->len};
		st[n] = (struct redact_str){cp, in->len, REDACT_TEXT, 0};
		for (uint16_t k = 0; k < t->nfields; k++)
			if (t->fields[k].offset == b && t->fields[k].type == TZ_F_STRV)
				st[n] = (struct redact_str){cp, in->len, REDACT_ARGV, (uint8_t)argv_cut};
			else if (t->fields[k].offset == b && t->fields[k].type == TZ_F_STR)
				st[n] = (struct redact_str){cp, in->len, REDACT_PATH, (uint8_t)path_cut};
		n++;
	}
	for (uint16_t k = 0; k < t->nfields && n < sizeof(st) / sizeof(st[0]); k++) {
		const struct tz_field *f = &t->fields[k];
		if (f->type == TZ_F_CHARS && f->size && f->offset + f->size <= sv->fixed_len)
			st[n++] = (struct redact_str){sv->fixed + f->offset, f->size, REDACT_COMM, 0};
	}
	redact_strs(rd, st, n);
	return 0;
}

static void saved_free(struct saved_ev *s)
{
	free(s->fixed);
	for (uint32_t b = 0; b < s->nblobs; b++)
		free((void *)s->blobs[b].data);
}

/*
 * Write a redacted copy of the trace at in to out: metadata values, every
 * path and argv blob, comm fields; live events and the first state block
 * (the snapshot). Returns 0 or -1 (message printed).
 */
static int rewrite_trace(const char *in, const char *out, struct redact *rd)
{
	tz_reader *r = tza_open(in, NULL);
	if (!r)
		return -1;
	struct rewrite rw = {0};
	tz_writer *w = NULL;
	int rc = -1;
	const struct tz_event *ev;
	uint64_t first_state_seq = UINT64_MAX;
	size_t cap = 0;
	/* pass 1: the first state block */
	int it = tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE);
	while (it >= 0 && (it = tz_reader_next(r, &ev)) > 0) {
		if (!(ev->flags & TZ_EVF_STATE) || !ev->type)
			continue;
		if (first_state_seq == UINT64_MAX)
			first_state_seq = ev->chunk_seq;
		if (ev->chunk_seq != first_state_seq)
			continue;
		if (rw.nstate == cap) {
			cap = cap ? cap * 2 : 256;
			struct saved_ev *ns = realloc(rw.state, cap * sizeof(*ns));
			if (!ns)
				goto oom;
			rw.state = ns;
		}
		if (redact_event(rd, ev, &rw.state[rw.nstate]) < 0) {
			saved_free(&rw.state[rw.nstate]);
			goto oom;
		}
		rw.nstate++;
	}
	if (it < 0) {
		tza_err("%s", tz_reader_errmsg(r));
		goto out;
	}
	struct tz_writer_opts wo = {.flags = TZ_W_OVERWRITE | TZ_W_NO_FSYNC,
				    .state_every = UINT32_MAX,
				    .state_fn = rw.nstate ? state_cb : NULL,
				    .state_ctx = &rw};
	int e = tz_writer_open(&w, out, &wo);
	if (e < 0) {
		tza_err("'%s': %s", out, w ? tz_writer_errmsg(w) : tz_strerror(e));
		goto out;
	}
	for (size_t i = 0; i < tz_reader_meta_count(r); i++) {
		const char *k, *v;
		if (tz_reader_meta_at(r, i, &k, &v) < 0)
			continue;
		char *cp = strdup(v);
		if (!cp)
			goto oom;
		redact_mask(rd, cp, strlen(cp));
		e = tz_writer_set_meta(w, k, cp);
		free(cp);
		if (e < 0)
			goto werr;
	}
	if (tz_writer_set_meta(w, "redacted", "yes") < 0)
		goto werr;
	for (size_t i = 0; i < tz_reader_type_count(r); i++)
		if ((e = tz_writer_add_type(w, tz_reader_type_at(r, i))) < 0)
			goto werr;
	const struct tz_info *info = tz_reader_info(r);
	if (info->dropped)
		tz_writer_note_dropped(w, info->dropped);
	it = tz_reader_iter(r, 0, UINT64_MAX, 0);
	while (it >= 0 && (it = tz_reader_next(r, &ev)) > 0) {
		if (!ev->type)
			continue; /* a type without schema cannot be written back */
		struct saved_ev sv;
		if (redact_event(rd, ev, &sv) < 0) {
			saved_free(&sv);
			goto oom;
		}
		e = tz_writer_add(w, sv.type, sv.ts, sv.fixed, sv.fixed_len, sv.blobs, sv.nblobs);
		saved_free(&sv);
		if (e < 0)
			goto werr;
	}
	if (it < 0) {
		tza_err("%s", tz_reader_errmsg(r));
		goto out;
	}
	e = tz_writer_close(w);
	w = NULL;
	if (e < 0) {
		tza_err("'%s': %s", out, tz_strerror(e));
		goto out;
	}
	rc = 0;
	goto out;
werr:
	tza_err("'%s': %s", out, w ? tz_writer_errmsg(w) : "write failed");
	goto out;
oom:
	tza_err("bundle: out of memory");
out:
	tz_writer_free(w);
	for (size_t i = 0; i < rw.nstate; i++)
		saved_free(&rw.state[i]);
	free(rw.state);
	tz_reader_free(r);
	return rc;
}

/* ---------------------------------------------------------------- outputs */

/* Run a subcommand's handler in-process with stdout sent to path (NULL:
 * /dev/null). */
static int run_to_file(int (*fn)(int, char **), char **av, const char *path)
{
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (path && fd < 0) {
		tza_err("'%s': %s", path, strerror(errno));
		return -1;
	}
	int rc = tza_run_to_fd(fn, av, fd);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int read_all(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	struct tza_line b = {0}; /* json.h: a growing buffer */
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		tza_line_put(&b, tmp, n);
	int err = ferror(f) || b.err;
	fclose(f);
	if (err) {
		tza_line_free(&b);
		return -1;
	}
	*buf = b.p ? b.p : strdup("");
	*len = b.n;
	return *buf ? 0 : -1;
}

/* Redact a text file in place, every NUL-free piece as text. */
static int redact_file(struct redact *rd, const char *path)
{
	char *buf;
	size_t len;
	if (read_all(path, &buf, &len) < 0) {
		tza_err("'%s': cannot read for redaction", path);
		return -1;
	}
	redact_mask_blob(rd, (uint8_t *)buf, len, 0);
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(buf, 1, len, f) == len && !fclose(f) ? 0 : -1;
	if (rc)
		tza_err("'%s': cannot write the redacted copy", path);
	free(buf);
	return rc;
}

static int xxh64_file(const char *path, uint64_t *h, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	XXH64_state_t *st = XXH64_createState();
	if (!st) {
		close(fd);
		return -1;
	}
	XXH64_reset(st, 0);
	char buf[65536];
	ssize_t n;
	*size = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		XXH64_update(st, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	*h = XXH64_digest(st);
	XXH64_freeState(st);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Remove the flat work directory dir (sigclean's removal, also what a
 * signal runs) */
static void rm_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	tza_sigclean_rm_dir(-1, fd, NULL);
	if (fd >= 0)
		close(fd);
	rmdir(dir);
}

/* --help after the options, before the examples: the default patterns are redact.h's */
static void bundle_notes(FILE *f)
{
	fputs("The archive is created mode 0600 (it holds the trace); inside it trace.tz is\n"
	      "0600, the text reports and report.html 0600 (0644 with --redact), pictures,\n"
	      "README.txt and MANIFEST 0644 (FILES WRITTEN in docs/tracer-analyze.md).\n\n"
	      "Default patterns (POSIX extended; \"(@\" opens the secret part, the '@' is\n"
	      "not in the regex; without one the whole match is masked; docs/RELIABILITY.md,\n"
	      "\"Privacy\"):\n",
	      f);
	redact_print_patterns(f, "  ");
	fputs("A comm is masked where the executable name it was cut from is, and\n"
	      "wherever an equal comm was masked before (exit events).\n",
	      f);
}

static const struct tza_cmd_spec bundle_spec = {
    .name = "bundle",
    .synopsis =
	"usage: tracer-analyze bundle [OPTIONS] FILE -o report.tar.gz|report.tgz|report.zip\n\n"
	"Write one archive for a bug report: the trace, summary.txt, summary.json,\n"
	"tree.txt, top.txt, processes.csv, report.html (tracer-analyze report),\n"
	"timeline.png/.svg, cpu.png, mem.png, io.png,\n"
	"README.txt (what each file is) and MANIFEST (sizes and XXH64 checksums).\n"
	"Every subcommand reads the archive in place: tracer-analyze summary report.tar.gz\n"
	"FILE a run on several hosts (a multi-host trace, a directory of traces): trace.tz\n"
	"is the run's merge and the reports are over its hosts (docs: MANY HOSTS).\n\n",
    .examples =
	"  tracer-analyze bundle run.tz -o report.tar.gz\n"
	"  tracer-analyze bundle --redact --redact-pattern 'project-[0-9]+' run.tz -o r.zip\n"
	"  tracer-analyze tree report.tar.gz\n",
    .col = 28,
    .notes_fn = bundle_notes,
};

struct member {
	const char *name;
	const char *what;
	int (*fn)(int, char **);
	const char *args[6]; /* handler argv before the trace; NULL-terminated */
	int text;	     /* redact as text */
	int plot;
	int own;	     /* writes its file itself (-o): stdout to /dev/null */
};

static const struct member members[] = {
	{"summary.txt", "what ran, what it cost, drops (tracer-analyze summary)", cmd_summary,
	 {"summary", NULL}, 1, 0, 0},
	{"summary.json", "the same for machines (summary --json)", cmd_summary,
	 {"summary", "--json", NULL}, 1, 0, 0},
	{"tree.txt", "the process tree (tracer-analyze tree)", cmd_tree, {"tree", NULL}, 1, 0, 0},
	{"top.txt", "bottleneck binaries per tool (tracer-analyze top)", cmd_top, {"top", NULL}, 1,
	 0, 0},
	{"processes.csv", "one row per process, Nextflow-style columns (export --format csv)",
	 cmd_export, {"export", "--format", "csv", NULL}, 1, 0, 0},
	{"report.html", "all of it in one page for a browser, offline (tracer-analyze report)",
	 cmd_report, {"report", "-o", "report.html", NULL}, 1, 0, 1},
	{"timeline.png", "one bar per process over time, coloured by tool (plot)", cmd_plot,
	 {"plot", "-o", "timeline.png", NULL}, 0, 1, 0},
	{"timeline.svg", "the same as a zoomable SVG", cmd_plot, {"plot", "-o", "timeline.svg", NULL},
	 1, 1, 0},
	{"cpu.png", "cores in use over time by tool, with the CPU count (plot --kind cpu)", cmd_plot,
	 {"plot", "--kind", "cpu", "-o", "cpu.png", NULL}, 0, 1, 0},
	{"mem.png", "resident memory over time by tool (plot --kind mem)", cmd_plot,
	 {"plot", "--kind", "mem", "-o", "mem.png", NULL}, 0, 1, 0},
	{"io.png", "read/write bytes per second (plot --kind io)", cmd_plot,
	 {"plot", "--kind", "io", "-o", "io.png", NULL}, 0, 1, 0},
};
#define NMEMBERS (sizeof(members) / sizeof(members[0]))

/* One bundle being made: the command line, the work directory and the
 * files gathered in it so far. */
struct bundle_job {
	const char *in, *out; /* FILE and -o as given */
	const char *extra[MAX_EXTRA]; /* --redact-pattern */
	size_t nextra;
	int redact, plots, force;
	int hosts;	   /* FILE is a run on several hosts (a multi-host trace,
			      a directory, a bundle of one): trace.tz is a merge */
	struct redact *rd; /* compiled when redact */
	char abs_in[PATH_MAX], abs_out[PATH_MAX];
	char *dir; /* the work directory, or NULL */
	/* the work directory and its parent, open for the SIGINT/SIGTERM
	   cleanup (sigclean.h); -1 none; guarded: a cleanup is registered */
	int dir_fd, parent_fd, guarded;
	char dir_name[64];
	struct tza_bundle_file files[NMEMBERS + 3];
	size_t nf;
	const char *left_out[NMEMBERS];
	size_t nleft;
};

/* --redact-pattern RE: one more pattern for the struct bundle_job *o->dest */
static int opt_pattern(const struct tza_option *o, const char *arg)
{
	struct bundle_job *j = o->dest;
	if (j->nextra == MAX_EXTRA) {
		tza_err("bundle: too many --redact-pattern options");
		return -1;
	}
	j->extra[j->nextra++] = arg;
	j->redact = 1;
	return 0;
}

/* Parse argv into j. Returns -1 to go on, else the exit code. */
static int bundle_options(int argc, char **argv, struct bundle_job *j)
{
	const struct tza_option opts[] = {
		OPT_STRING('o', "output", "PATH", &j->out, "the archive (.tar.gz, .tgz or .zip)"),
		OPT_FLAG('f', "force", &j->force,
			 "replace PATH if it exists (never a directory,\n"
			 "FIFO or device)"),
		OPT_FLAG(0, "redact", &j->redact,
			 "mask secrets in every file, the trace included:\n"
			 "each byte of a secret becomes '*' (lengths kept,\n"
			 "as tracer-record --redact does), by the patterns below"),
		OPT_CALL(0, "redact-pattern", "RE", opt_pattern, j,
			 "also mask this POSIX extended regex (case-\n"
			 "insensitive; repeatable; implies --redact). With\n"
			 "groups, only the last matching group is masked"),
		OPT_SET_INT(0, "no-plots", &j->plots, 0, "leave the pictures out (no gnuplot needed)"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&bundle_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (optind != argc - 1 || !j->out) {
		tza_err("bundle: expected FILE and -o OUT (see 'tracer-analyze bundle --help')");
		return TZA_EXIT_USAGE;
	}
	j->in = argv[optind];
	return -1;
}

/* Before any work: OUT is a bundle name and, if it exists, a file that
 * -f may replace (the same rule as every output; tza_bundle_write checks
 * again when it renames). Then compile the redaction patterns. Returns -1
 * to go on, else the exit code. */
static int bundle_check(struct bundle_job *j)
{
	struct stat ost;
	int exists = !lstat(j->out, &ost);
	if (exists && !S_ISREG(ost.st_mode) && !S_ISLNK(ost.st_mode)) {
		tza_err_not_file(j->out, "a bundle (name a .tar.gz, .tgz or .zip file)");
		return TZA_EXIT_FAIL;
	}
	if (!tza_bundle_out_ok(j->out)) {
		tza_err("'%s': unknown bundle type (use .tar.gz, .tgz or .zip)", j->out);
		return TZA_EXIT_USAGE;
	}
	if (exists && !j->force) {
		tza_err_exists(j->out, "-f");
		return TZA_EXIT_FAIL;
	}
	if (tza_refuse_out_in_args("bundle", j->out, (char **)&j->in, 1))
		return TZA_EXIT_FAIL;
	if (!j->redact)
		return -1;
	if (redact_init(j->rd) < 0) {
		tza_err("bundle: cannot compile the redaction patterns");
		return TZA_EXIT_FAIL;
	}
	for (size_t i = 0; i < j->nextra; i++) {
		char why[256];
		if (redact_add(j->rd, j->extra[i], why, sizeof(why)) < 0) {
			tza_err("bundle: --redact-pattern: '%s': %s", j->extra[i], why);
			return TZA_EXIT_USAGE;
		}
	}
	return -1;
}

/* j->abs_in and j->abs_out, then check the trace loads whole (one line and
 * nothing made if not). Returns 0 or -1 (message printed). */
static int bundle_paths(struct bundle_job *j)
{
	size_t member;
	char *base = tza_member_name(j->in, &member);
	int is_member = base && tza_fleet_is_container(base);
	free(base);
	if (is_member) {
		tza_err("bundle: '%s' is a member of a multi-host trace, not a file: bundle the "
			"whole run, or that host's own trace",
			j->in);
		return -1;
	}
	if (!realpath(j->in, j->abs_in)) {
		tza_err("'%s': %s", j->in, strerror(errno));
		return -1;
	}
	if (j->out[0] == '/') {
		snprintf(j->abs_out, sizeof(j->abs_out), "%s", j->out);
	} else {
		char here[PATH_MAX];
		if (!getcwd(here, sizeof(here))) {
			tza_err("bundle: getcwd: %s", strerror(errno));
			return -1;
		}
		if ((size_t)snprintf(j->abs_out, sizeof(j->abs_out), "%s/%s", here, j->out) >=
		    sizeof(j->abs_out)) {
			tza_err("'%s': path too long", j->out);
			return -1;
		}
	}
	char *in[1] = {(char *)j->in};
	if ((j->hosts = tza_fleet_wanted(in, 1))) {
		struct tza_fleet f;
		int rc = tza_fleet_open("bundle", in, 1, &f);
		tza_fleet_free(&f);
		return rc ? -1 : 0;
	}
	tz_reader *chk_r;
	struct tza_model *chk_m;
	if (tza_load(j->in, &chk_r, &chk_m) < 0)
		return -1;
	tza_unload(chk_r, chk_m);
	return 0;
}

/* tza_rewrite_fn: host i of the run redacted into tmp */
static int redact_host(void *ctx, const struct tza_fleet *f, size_t i, const char *tmp,
		       const char *label)
{
	(void)label;
	return rewrite_trace(f->h[i].name, tmp, ctx) < 0 ? -1 : 1;
}

/* trace.tz at path for a run on several hosts: every host redacted (as
 * one trace is), or a directory's traces merged, into one multi-host
 * trace. 0, or -1 (message printed). */
static int bundle_hosts_trace(struct bundle_job *j, const char *path)
{
	struct tza_fleet f;
	char *args[1] = {(char *)j->in}; /* (sources as given, as merge keeps them) */
	int rc = -1;
	if (!tza_fleet_open("bundle", args, 1, &f)) {
		size_t kept;
		struct tza_rewrite w = {.cmd = "bundle", .out = path, .force = 1,
					.fn = redact_host, .ctx = j->rd, .no_source = 1};
		if (j->redact)
			rc = tza_fleet_rewrite(&w, &f, &kept) < 0 || kept != f.n ? -1 : 0;
		else
			rc = tza_fleet_merge("bundle", path, 1, &f);
	}
	tza_fleet_free(&f);
	return rc;
}

/* The trace as trace.tz in the work directory: a redacted rewrite, the
 * trace member of a bundle given as FILE, or a symlink to FILE. Returns 0
 * or -1 (message printed). */
static int bundle_trace(struct bundle_job *j)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/trace.tz", j->dir);
	if (j->hosts && (j->redact || !tza_fleet_is_container(j->abs_in)))
		return bundle_hosts_trace(j, path);
	if (j->redact)
		return rewrite_trace(j->abs_in, path, j->rd);
	if (tza_bundle_sniff(j->abs_in)) {
		const void *buf;
		size_t len;
		const char *member;
		if (tza_bundle_trace(j->abs_in, &buf, &len, &member) < 0)
			return -1;
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			tza_err("'%s': cannot write", path);
			return -1;
		}
		return 0;
	}
	if (symlink(j->abs_in, path) < 0) {
		tza_err("'%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Run every member's subcommand on trace.tz in the work directory (the
 * current one), redacting the text ones; a failed one is left out (the
 * first failed plot leaves the other plots out). Returns 0, or -1 when a
 * redaction failed. */
static int bundle_members(struct bundle_job *j)
{
	/* extracted, the trace stays private; the reports copy argv: private
	 * unless redacted; the pictures, README and MANIFEST are 0644 */
	j->files[j->nf++] = (struct tza_bundle_file){"trace.tz", "trace.tz", 0600};
	for (size_t i = 0; i < NMEMBERS; i++) {
		const struct member *mb = &members[i];
		if (mb->plot && !j->plots) {
			j->left_out[j->nleft++] = mb->name;
			continue;
		}
		char *av[8];
		int k = 0;
		for (; mb->args[k]; k++)
			av[k] = (char *)mb->args[k];
		av[k++] = (char *)"trace.tz";
		av[k] = NULL;
		int hr = run_to_file(mb->fn, av, mb->plot || mb->own ? NULL : mb->name);
		struct stat st;
		if (hr != 0 || stat(mb->name, &st) < 0) {
			tza_err("bundle: %s left out ('%s' failed)", mb->name, mb->args[0]);
			unlink(mb->name);
			j->left_out[j->nleft++] = mb->name;
			if (mb->plot) {
				/* no gnuplot: one message is enough, skip the other plots */
				j->plots = 0;
			}
			continue;
		}
		if (j->redact && mb->text && redact_file(j->rd, mb->name) < 0)
			return -1;
		j->files[j->nf++] = (struct tza_bundle_file){mb->name, mb->name,
							     mb->plot || j->redact ? 0644 : 0600};
	}
	return 0;
}

/* Create name (a literal: README.txt, MANIFEST) in the bundle's directory,
 * the working one; NULL after one line naming it. */
static FILE *job_create(const struct bundle_job *j, const char *name)
{
	FILE *f = fopen(name, "w");
	if (!f)
		tza_err("'%s/%s': %s", j->dir, name, strerror(errno));
	return f;
}

/* Close f, made by job_create(j, name), and list it in the bundle (mode
 * 0644): 0, or -1 after one line when a write failed. */
static int job_add(struct bundle_job *j, FILE *f, const char *name)
{
	if (fclose(f)) {
		tza_err("%s: write failed", name);
		return -1;
	}
	j->files[j->nf++] = (struct tza_bundle_file){name, name, 0644};
	return 0;
}

/* README.txt: what made the bundle, each file, what was left out and, when
 * redacted, the patterns. Returns 0 or -1 (message printed). */
static int bundle_readme(struct bundle_job *j)
{
	FILE *f = job_create(j, "README.txt");
	if (!f)
		return -1;
	time_t now = time(NULL);
	struct tm tm;
	char date[64];
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	const char *slash = strrchr(j->abs_in, '/');
	char in_name[PATH_MAX];
	snprintf(in_name, sizeof(in_name), "%s", slash ? slash + 1 : j->abs_in);
	if (j->redact)
		redact_mask(j->rd, in_name, strlen(in_name));
	fprintf(f, "tracer bug-report bundle\n========================\n\n"
		   "Made by tracer-analyze %s on %s from '%s'.\n\n"
		   "Nothing needs unpacking: every tracer-analyze command reads this archive in\n"
		   "place, for example\n\n"
		   "  tracer-analyze summary THIS-ARCHIVE\n"
		   "  tracer-analyze tree --depth 3 THIS-ARCHIVE\n"
		   "  tracer-analyze %s\n\n"
		   "Files:\n"
		   "  trace.tz       the trace itself (tracer .tz format; docs/FORMAT.md)%s\n",
		TRACER_VERSION, date, in_name,
		j->hosts ? "plot THIS-ARCHIVE -o timeline.svg   # one band per host"
			 : "plot --kind cpu THIS-ARCHIVE -o cpu.svg",
		j->hosts ? ",\n                 a run on several hosts: each host's trace a member" : "");
	for (size_t i = 1; i < j->nf; i++)
		for (size_t k = 0; k < NMEMBERS; k++)
			if (!strcmp(j->files[i].name, members[k].name))
				fprintf(f, "  %-14s %s\n", members[k].name, members[k].what);
	fputs("  README.txt     this file\n"
	      "  MANIFEST       size and XXH64 checksum of every file (check: xxhsum -H1 FILE,\n"
	      "                 Debian package xxhash)\n\n"
	      "Open report.html in a web browser (it needs no network), the .png files in\n"
	      "any image viewer, the .svg in a web browser,\n"
	      "processes.csv in a spreadsheet (its columns follow Nextflow's trace report).\n",
	      f);
	fprintf(f,
		"cpu/mem/io pictures are derived from exact per-process exit totals (CPU time\n"
		"and bytes spread evenly over each process's life, peak RSS held over it)%s.\n",
		j->hosts ? ",\none panel per host on the run's time axis" : "");
	if (j->nleft) {
		fputs("\nLeft out (the command failed or was not asked for):", f);
		for (size_t i = 0; i < j->nleft; i++)
			fprintf(f, " %s", j->left_out[i]);
		fputc('\n', f);
	}
	if (j->redact) {
		fputs("\nREDACTED: every byte of a match of these patterns (POSIX extended;\n"
		      "of its \"(@...)\" part when it has one) became '*' in every file, the\n"
		      "trace included (its argv, paths, comm and metadata; the trace was\n"
		      "rewritten, keeping its live events and first state block); lengths\n"
		      "are kept:\n",
		      f);
		redact_print_patterns(f, "  ");
		fprintf(f, "  (%zu pattern(s) given with --redact-pattern, not listed)\n", j->nextra);
	}
	return job_add(j, f, "README.txt");
}

/* MANIFEST: size and XXH64 of every file so far. Returns 0 or -1. */
static int bundle_manifest(struct bundle_job *j)
{
	FILE *f = job_create(j, "MANIFEST");
	if (!f)
		return -1;
	fputs("# size_bytes  xxh64  name   (xxh64 as printed by: xxhsum -H1 NAME)\n", f);
	for (size_t i = 0; i < j->nf; i++) {
		uint64_t h, sz;
		if (xxh64_file(j->files[i].path, &h, &sz) < 0) {
			tza_err("'%s': cannot read", j->files[i].path);
			fclose(f);
			return -1;
		}
		fprintf(f, "%llu  %016llx  %s\n", (unsigned long long)sz, (unsigned long long)h,
			j->files[i].name);
	}
	return job_add(j, f, "MANIFEST");
}

/* The archive's top directory: OUT's base name without .tar.gz (or its
 * last extension); "report" when that leaves nothing usable. */
static void bundle_top(const char *abs_out, char *top, size_t size)
{
	const char *ob = strrchr(abs_out, '/');
	snprintf(top, size, "%.200s", ob ? ob + 1 : abs_out);
	char *dot = strstr(top, ".tar.gz");
	if (!dot)
		dot = strrchr(top, '.');
	if (dot && dot != top)
		*dot = 0;
	if (!top[0] || !strcmp(top, ".") || !strcmp(top, ".."))
		snprintf(top, size, "report");
}

/* SIGINT/SIGTERM while the bundle is made: its work directory is removed */
static void rm_work_dir(void *arg)
{
	const struct bundle_job *j = arg;
	tza_sigclean_rm_dir(j->parent_fd, j->dir_fd, j->dir_name);
}

/* Open j->dir and its parent for rm_work_dir and register it; without them
 * (or a free slot) the bundle goes on, only not cleaned on a signal. */
static void guard_work_dir(struct bundle_job *j)
{
	const char *slash = strrchr(j->dir, '/');
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - j->dir) : 1,
		 slash ? (slash == j->dir ? "/" : j->dir) : ".");
	snprintf(j->dir_name, sizeof(j->dir_name), "%s", slash ? slash + 1 : j->dir);
	j->dir_fd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	j->parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	j->guarded = j->dir_fd >= 0 && j->parent_fd >= 0 && !tza_sigclean_push(rm_work_dir, j);
}

/* Make the bundle of a checked j: a work directory, the trace and the
 * members in it, README.txt, MANIFEST, then the archive. Returns 0 or -1
 * (message printed). The caller removes j->dir. */
static int bundle_make(struct bundle_job *j)
{
	char tmpl[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/tracer-bundle.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (bundle_paths(j) < 0)
		return -1;
	j->dir = mkdtemp(tmpl);
	if (!j->dir) {
		tza_err("'%s': %s", tmpl, strerror(errno));
		return -1;
	}
	j->dir = strdup(j->dir);
	if (!j->dir) {
		rm_tree(tmpl);
		tza_err("bundle: out of memory");
		return -1;
	}
	guard_work_dir(j);
	if (bundle_trace(j) < 0)
		return -1;
	/* the outputs, made in the work directory from "trace.tz" */
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;
	if (cwd < 0 || chdir(j->dir) < 0) {
		tza_err("'%s': %s", j->dir, strerror(errno));
		goto out;
	}
	char top[256];
	bundle_top(j->abs_out, top, sizeof(top));
	if (bundle_members(j) < 0 || bundle_readme(j) < 0 || bundle_manifest(j) < 0 ||
	    tza_bundle_write(j->abs_out, j->out, top, j->files, j->nf, j->force) < 0)
		goto out;
	rc = 0;
out:
	if (cwd >= 0) {
		if (fchdir(cwd) < 0)
			tza_err("bundle: cannot return to the working directory");
		close(cwd);
	}
	return rc;
}

int cmd_bundle(int argc, char **argv)
{
	static struct redact rd;	/* large; cmd_bundle is not reentrant */
	static struct bundle_job j; /* the same */
	memset(&rd, 0, sizeof(rd));
	memset(&j, 0, sizeof(j));
	j.dir_fd = j.parent_fd = -1;
	j.rd = &rd;
	j.plots = 1;
	int rc = bundle_options(argc, argv, &j);
	if (rc < 0)
		rc = bundle_check(&j);
	if (rc < 0) {
		rc = bundle_make(&j) < 0 ? TZA_EXIT_FAIL : TZA_EXIT_OK;
		if (rc == TZA_EXIT_OK && j.redact)
			fprintf(stderr, "tracer-analyze: bundle: %llu string(s) redacted\n",
				(unsigned long long)rd.hits);
	}
	if (j.dir) {
		rm_tree(j.dir);
		free(j.dir);
	}
	if (j.guarded)
		tza_sigclean_pop();
	if (j.dir_fd >= 0)
		close(j.dir_fd);
	if (j.parent_fd >= 0)
		close(j.parent_fd);
	redact_free(&rd);
	return rc;
}
