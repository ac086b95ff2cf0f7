/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_tree.c - the process tree with exit status, CPU and RSS. */
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/events.h"
#include "fleet.h"
#include "options.h"
#include "report.h"
#include "textsafe.h"

static const struct tza_cmd_spec tree_spec = {
    .name = "tree",
    .synopsis = "usage: tracer-analyze tree [OPTIONS] FILE...\n"
		"\n"
		"The fork-time process tree: pid, tool, argv, start offset, duration, exit\n"
		"status, self CPU, peak RSS (over all its images; \"(last image N)\" when an\n"
		"earlier image had it; \"-\" when unknown: a slice's process with no sample\n"
		"by its end). Orphans stay under the parent that forked them (\"reparented\"\n"
		"notes where they ended up). Leaf siblings with the same command and outcome\n"
		"are collapsed into one line (\"2,000x true\") with totals, the max RSS over\n"
		"the members whose RSS is known.\n"
		"Several FILEs, a directory or a merge (a run on several hosts): each host's\n"
		"tree after a line naming it (docs: MANY HOSTS).\n"
		"\n",
    .examples = "  tracer-analyze tree trace.tz\n"
		"  tracer-analyze tree --depth 2 --min-duration 1s trace.tz\n"
		"  tracer-analyze tree --match 'samtools (sort|index)' --full-args trace.tz\n",
    .col = 27,
};

struct agg {
	uint32_t n, failed;
	uint32_t rss_unknown; /* members whose RSS is unknown (tza_proc_rss_known) */
	uint64_t first, last, wall, cpu, rss; /* rss: the largest known peak */
};

struct opts {
	int full, depth_set;
	uint64_t depth, min_ns, collapse;
	enum tza_by by;
};

struct ctx {
	struct tza_model *m;
	struct opts o;
	uint8_t *keep;	 /* [index] */
	uint32_t *gsize; /* [index] 0: hidden in a collapsed run; 1: alone; >1: run head */
	struct agg *agg; /* [index] totals of a run, at its head */
};

/* runs are collapsed by command under --by tool: "bwa mem" and "bwa index"
 * are not the same thing */
static enum tza_by collapse_by(enum tza_by by)
{
	return by == TZA_BY_TOOL ? TZA_BY_COMMAND : by;
}

/* its wall time: in a slice, a process that crossed the start from there */
static uint64_t dur(const struct tza_model *m, const struct tza_proc *p)
{
	uint64_t e = tza_proc_end(m, p);
	return e > tza_proc_charged_from(p) ? e - tza_proc_charged_from(p) : 0;
}

static void status(FILE *f, const struct tza_proc *p)
{
	if (p->flags & TZA_P_EXIT_LOST) {
		fputs(p->flags & TZA_P_EXITED_BEFORE ? "exited before recording" : "exit lost", f);
		return;
	}
	if (p->flags & TZA_P_NO_EXIT) {
		fputs("running", f);
		return;
	}
	if (!p->signal) {
		fprintf(f, "exit %d", p->exit_code);
		return;
	}
	const char *ab = sigabbrev_np(p->signal);
	if (ab)
		fprintf(f, "SIG%s", ab);
	else
		fprintf(f, "signal %d", p->signal);
	if (p->core_dumped)
		fputs(" (core dumped)", f);
	/* a signal the kernel raised for the process's own action */
	if (p->res->killer_signal == p->signal && p->res->killer_kernel)
		fprintf(f, " [kernel: %s]", tza_signal_cause(p));
}

static void line(FILE *f, struct ctx *c, struct tza_proc *p)
{
	const struct tza_model *m = c->m;
	char b1[32], b2[32], b3[32], b4[32];
	if (c->gsize[p->index] > 1) {
		const struct agg *a = &c->agg[p->index];
		fprintf(f, "%s\xc3\x97 ", tza_fmt_count(b1, sizeof(b1), a->n));
		tza_safe_puts(f, tza_proc_key(p, collapse_by(c->o.by)));
		fprintf(f, "  %+.3fs..%+.3fs  wall %s  cpu %s  max rss %s",
			(double)(int64_t)(a->first - m->t0_ns) / 1e9,
			(double)(int64_t)(a->last - m->t0_ns) / 1e9,
			tza_fmt_dur(b2, sizeof(b2), a->wall), tza_fmt_dur(b3, sizeof(b3), a->cpu),
			a->rss_unknown == a->n ? "-" : tza_fmt_bytes(b4, sizeof(b4), a->rss * 1024));
		/* the peak is over the members whose RSS is known */
		if (a->rss_unknown && a->rss_unknown < a->n)
			fprintf(f, " (%u unknown)", a->rss_unknown);
		if (a->failed)
			fprintf(f, "  (%u failed)", a->failed);
		fputc('\n', f);
		return;
	}
	const struct tza_exec *e = tza_proc_image_inherited(p);
	const struct tza_exec *ne = tza_proc_naming_image(p);
	fprintf(f, "%u ", p->pid);
	tza_safe_puts(f, tza_proc_key(p, c->o.by));
	if (ne && ne != e && ne->argv_len) {
		/* named by an earlier image (a shell job that exec'd its last
		 * command): its argv, then what it became */
		fputs("  ", f);
		tza_text_argv(f, ne->argv, ne->argv_len, c->o.full ? 0 : 40);
		fputs(" \xe2\x86\x92", f);
	}
	if (e && e->argv_len) {
		fputs(ne && ne != e && ne->argv_len ? " " : "  ", f);
		tza_text_argv(f, e->argv, e->argv_len, c->o.full ? 0 : 60);
		if (c->o.full && (p->flags & TZA_P_ARGV_TRUNCATED))
			fputs(" [argv truncated]", f);
	}
	fprintf(f, "  %+.3fs %s ", (double)(int64_t)(p->start_ns - m->t0_ns) / 1e9,
		tza_fmt_dur(b1, sizeof(b1), dur(m, p)));
	status(f, p);
	if (!(p->flags & TZA_P_NO_EXIT) || (p->flags & TZA_P_SAMPLED)) {
		uint64_t peak; /* the one definition: export's peak_rss_kib */
		int known = tza_proc_peak_view(p, &peak, NULL);
		fprintf(f, "  cpu %s  rss %s%s", tza_fmt_dur(b2, sizeof(b2), tza_proc_cpu(p)),
			!known ? "-" : tza_fmt_bytes(b3, sizeof(b3), peak * 1024),
			known && (p->flags & TZA_P_SAMPLED) ? " (to its last sample)" : "");
		/* an earlier image had the peak: the last one's own */
		if (peak > p->maxrss_kib)
			fprintf(f, " (last image %s)",
				tza_fmt_bytes(b4, sizeof(b4), p->maxrss_kib * 1024));
	}
	if (p->threads > 1)
		fprintf(f, "  [%u threads]", p->threads);
	if ((e && (e->flags & EV_EXEC_EXE_DELETED)) || (p->flags & TZA_P_EXE_DELETED))
		fputs("  [exe deleted]", f);
	if (e && (e->flags & EV_EXEC_EXE_MEMFD))
		fputs("  [memfd]", f);
	if (e && (e->flags & EV_EXEC_PATH_TRUNCATED))
		fputs("  [path truncated]", f);
	uint64_t nfail = p->nfailed + p->res->nfailed_omitted, nexec = p->nexecs + p->res->nexecs_omitted;
	if (nfail)
		fprintf(f, "  [%llu failed exec%s]", (unsigned long long)nfail, nfail > 1 ? "s" : "");
	if (nexec > 1)
		fprintf(f, "  [%llu execs]", (unsigned long long)nexec);
	if ((p->flags & (TZA_P_PRE_EXISTING | TZA_P_CLIPPED)) == (TZA_P_PRE_EXISTING | TZA_P_CLIPPED))
		fputs(p->res->nsamples_seen ? "  [pre-existing: counted from the start]"
					    : "  [pre-existing: pro-rata from the start]", f);
	else if (p->flags & TZA_P_PRE_EXISTING)
		fputs("  [pre-existing]", f);
	if (p->flags & TZA_P_REPARENTED)
		fprintf(f, "  [reparented to %u]", p->exit_ppid);
	if (p->flags & TZA_P_NO_FORK)
		fputs("  [no fork seen]", f);
	if (p->flags & TZA_P_ORPHAN)
		fprintf(f, "  [orphan: parent %u not in trace]", p->ppid);
	fputc('\n', f);
}

/* keep[i]: shown by the filters (itself, or a descendant, passes) */
static void filter(struct ctx *c, regex_t *re)
{
	struct tza_model *m = c->m;
	for (uint32_t i = m->nprocs; i-- > 0;) { /* children start after parents */
		struct tza_proc *p = m->procs[i];
		int ok = 1;
		if (c->o.min_ns && dur(m, p) < c->o.min_ns)
			ok = 0;
		if (ok && re) {
			const struct tza_exec *e = tza_proc_image_inherited(p);
			ok = !regexec(re, tza_proc_key(p, TZA_BY_COMMAND), 0, NULL, 0) ||
			     (e && e->ctx->exe && !regexec(re, e->ctx->exe, 0, NULL, 0));
			if (!ok && e && e->argv_len) {
				char *s = malloc(e->argv_len + 1);
				if (s) {
					for (uint32_t k = 0; k < e->argv_len; k++)
						s[k] = e->argv[k] ? (char)e->argv[k] : ' ';
					s[e->argv_len] = 0;
					ok = !regexec(re, s, 0, NULL, 0);
					free(s);
				}
			}
		}
		if (ok)
			c->keep[i] = 1;
		if (c->keep[i] && p->parent)
			c->keep[p->parent->index] = 1;
	}
}

struct cand {
	struct tza_proc *p;
	const char *key;
	int failed;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int r = strcmp(x->key, y->key);
	if (r)
		return r;
	if (x->failed != y->failed)
		return x->failed - y->failed;
	return x->p->index < y->p->index ? -1 : 1;
}

static int has_kept_child(struct ctx *c, struct tza_proc *p)
{
	for (struct tza_proc *k = p->first_child; k; k = k->next_sibling)
		if (c->keep[k->index])
			return 1;
	return 0;
}

/* Decide collapsed runs among p's kept children; returns the shown items. */
static struct tza_proc **items_of(struct ctx *c, struct tza_proc *p, uint32_t *nitems)
{
	uint32_t n = 0, nc = 0;
	struct tza_proc **it = malloc((p->nchildren ? p->nchildren : 1) * sizeof(*it));
	struct cand *cd = malloc((p->nchildren ? p->nchildren : 1) * sizeof(*cd));
	if (!it || !cd) {
		free(it);
		free(cd);
		*nitems = 0;
		return NULL;
	}
	for (struct tza_proc *k = p->first_child; k; k = k->next_sibling) {
		if (!c->keep[k->index])
			continue;
		c->gsize[k->index] = 1;
		if (c->o.collapse && !has_kept_child(c, k))
			cd[nc++] = (struct cand){k, tza_proc_key(k, collapse_by(c->o.by)),
						 tza_proc_failed(k)};
	}
	qsort(cd, nc, sizeof(*cd), cmp_cand);
	for (uint32_t i = 0; i < nc;) {
		uint32_t j = i + 1;
		while (j < nc && !strcmp(cd[j].key, cd[i].key) && cd[j].failed == cd[i].failed)
			j++;
		if (j - i >= c->o.collapse && j - i > 1) {
			struct agg *a = &c->agg[cd[i].p->index];
			memset(a, 0, sizeof(*a));
			a->first = UINT64_MAX;
			for (uint32_t k = i; k < j; k++) {
				struct tza_proc *q = cd[k].p;
				c->gsize[q->index] = 0;
				a->n++;
				a->failed += cd[k].failed ? 1 : 0;
				if (q->start_ns < a->first)
					a->first = q->start_ns;
				if (tza_proc_end(c->m, q) > a->last)
					a->last = tza_proc_end(c->m, q);
				a->wall += dur(c->m, q);
				a->cpu += tza_proc_cpu(q);
				if (!tza_proc_rss_known(q))
					a->rss_unknown++;
				else if (tza_proc_peak_rss_kib(q) > a->rss)
					a->rss = tza_proc_peak_rss_kib(q);
			}
			c->gsize[cd[i].p->index] = j - i;
		}
		i = j;
	}
	for (struct tza_proc *k = p->first_child; k; k = k->next_sibling)
		if (c->keep[k->index] && c->gsize[k->index])
			it[n++] = k;
	free(cd);
	*nitems = n;
	return it;
}

struct frame {
	struct tza_proc **it;
	uint32_t n, next;
};

static void print_tree(FILE *f, struct ctx *c, struct tza_proc *root)
{
	uint64_t cap = 16;
	struct frame *st = malloc(cap * sizeof(*st));
	uint8_t *last = malloc(cap);
	if (!st || !last)
		goto out;
	line(f, c, root);
	uint64_t sp = 0;
	if (c->o.depth_set && c->o.depth == 0)
		goto out;
	st[sp].it = items_of(c, root, &st[sp].n);
	st[sp].next = 0;
	sp++;
	while (sp) {
		struct frame *fr = &st[sp - 1];
		if (fr->next >= fr->n) {
			free(fr->it);
			sp--;
			continue;
		}
		struct tza_proc *p = fr->it[fr->next++];
		int is_last = fr->next == fr->n;
		last[sp - 1] = (uint8_t)is_last;
		if (sp > 64) {
			fprintf(f, "[depth %llu] ", (unsigned long long)sp);
		} else {
			for (uint64_t d = 0; d + 1 < sp; d++)
				fputs(last[d] ? "   " : "\xe2\x94\x82  ", f);
		}
		fputs(is_last ? "\xe2\x94\x94\xe2\x94\x80 " : "\xe2\x94\x9c\xe2\x94\x80 ", f);
		line(f, c, p);
		if (c->gsize[p->index] > 1 || (c->o.depth_set && sp >= c->o.depth) ||
		    !p->first_child)
			continue;
		if (sp == cap) {
			cap *= 2;
			struct frame *ns = realloc(st, cap * sizeof(*st));
			uint8_t *nl = realloc(last, cap);
			if (ns)
				st = ns;
			if (nl)
				last = nl;
			if (!ns || !nl)
				break;
		}
		st[sp].it = items_of(c, p, &st[sp].n);
		st[sp].next = 0;
		sp++;
	}
	while (sp)
		free(st[--sp].it);
out:
	free(st);
	free(last);
}

/* What tree's command line asks for, beside c.o */
struct tree_args {
	struct ctx c;
	const char *min_s; /* --min-duration as given, or NULL */
	regex_t re;	   /* --match, compiled when has_re */
	int has_re, pid_set;
	int hosts; /* several host traces (fleet.h): no model loaded here */
	uint64_t pid;
};

/* --match REGEX into the struct tree_args *o->dest, compiled */
static int opt_match(const struct tza_option *o, const char *arg)
{
	struct tree_args *a = o->dest;
	if (a->has_re)
		regfree(&a->re);
	a->has_re = 0;
	int rc = regcomp(&a->re, arg, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char eb[128];
		regerror(rc, &a->re, eb, sizeof(eb));
		tza_err("--match: '%s': %s", arg, eb);
		return -1;
	}
	a->has_re = 1;
	return 0;
}

/* Parse argv into a and load its one FILE into *r and a->c.m. Returns -1 to
 * go on, else the exit code (a->re then freed). */
static int tree_load(int argc, char **argv, struct tree_args *a, tz_reader **r)
{
	struct ctx *c = &a->c;
	memset(a, 0, sizeof(*a));
	c->o.collapse = 3;
	c->o.by = TZA_BY_TOOL;
	const struct tza_option opts[] = {
		OPT_U64_SEEN('p', "pid", "PID", &a->pid, 1, UINT32_MAX, &a->pid_set,
			     "only the subtrees of processes with this pid"),
		OPT_U64_SEEN('d', "depth", "N", &c->o.depth, 0, 1000000, &c->o.depth_set,
			     "at most N levels below the roots"),
		OPT_STRING('m', "min-duration", "T", &a->min_s,
			   "hide processes shorter than T (90, 1.5s, 250ms)\n"
			   "unless a descendant is shown"),
		OPT_CALL('e', "match", "REGEX", opt_match, a,
			 "show processes whose tool, exe or argv matches\n"
			 "(extended regex), with their ancestors"),
		OPT_FLAG('a', "full-args", &c->o.full, "do not shorten argv"),
		OPT_U64('c', "collapse", "N", &c->o.collapse, 0, 1000000000,
			"collapse runs of N or more identical leaf siblings\n"
			"(default 3; 0 = never)"),
		OPT_BY(&c->o.by, "name processes by exe, tool (default) or command,\n"
				 "or by their task, rule, job, container (docs: Tasks)"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&tree_spec, opts, argc, argv);
	if (rc < 0 && optind < argc && tza_fleet_wanted(argv + optind, argc - optind)) {
		a->hosts = 1;
		return -1;
	}
	if (rc < 0 && !tza_one_file("tree", argc, argv))
		rc = TZA_EXIT_USAGE;
	if (rc < 0 && tza_load_ex(argv[optind], 0, r, &c->m) < 0)
		rc = TZA_EXIT_FAIL;
	if (rc >= 0 && a->has_re)
		regfree(&a->re);
	return rc;
}

/* Print the tree of one trace (r, m) by a's options; *shown counts the
 * roots printed. Returns the exit code. */
static int tree_one(struct tree_args *a, tz_reader *r, struct tza_model *m, uint32_t *shown)
{
	struct ctx c = a->c;
	int ret = TZA_EXIT_OK;
	c.m = m;
	if (a->min_s) {
		/* a duration: parse it relative to the trace start */
		uint64_t t;
		if (tza_parse_time(r, "--min-duration", a->min_s, &t) < 0)
			return TZA_EXIT_USAGE;
		c.o.min_ns = t - tz_reader_info(r)->first_ts_ns;
	}
	uint32_t n = m->nprocs;
	c.keep = calloc(n ? n : 1, 1);
	c.gsize = calloc(n ? n : 1, sizeof(*c.gsize));
	c.agg = calloc(n ? n : 1, sizeof(*c.agg));
	if (!c.keep || !c.gsize || !c.agg) {
		tza_err("out of memory");
		ret = TZA_EXIT_FAIL;
		goto out;
	}
	filter(&c, a->has_re ? &a->re : NULL);
	if (m->incomplete)
		printf("note: tree incomplete (drops or damage; orphaned pids marked): see 'summary'\n");
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[i];
		if (a->pid_set ? p->pid != a->pid : p->parent != NULL)
			continue;
		if (!c.keep[i])
			continue;
		c.gsize[i] = 1;
		print_tree(stdout, &c, p);
		(*shown)++;
	}
out:
	free(c.keep);
	free(c.gsize);
	free(c.agg);
	return ret;
}

/* tree over a run on several hosts (fleet.h): each host's tree after a
 * line naming it and where it starts in the run (wall clock). */
static int tree_hosts(struct tree_args *a, char **args, int nargs, uint32_t *shown)
{
	struct tza_fleet fl;
	int ret = TZA_EXIT_FAIL;
	int64_t *w0 = NULL, r0 = 0;
	uint32_t sections = 0;
	if (tza_fleet_open("tree", args, nargs, &fl))
		goto out;
	if (!(w0 = calloc(fl.n ? fl.n : 1, sizeof(*w0)))) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < fl.n; i++) { /* the run's start: the first trace's */
		tz_reader *r = tza_fleet_reader(&fl, i);
		if (!r)
			goto out;
		if (tz_reader_realtime(r, tz_reader_info(r)->first_ts_ns, &w0[i]) == 0 &&
		    (!r0 || w0[i] < r0))
			r0 = w0[i];
		tz_reader_free(r);
	}
	for (size_t i = 0; i < fl.n; i++) {
		tz_reader *r;
		struct tza_model *m;
		const char *hn;
		if (tza_fleet_load(&fl, i, 0, &r, &m, &hn) < 0)
			goto out;
		uint32_t has = !a->pid_set;
		for (uint32_t k = 0; !has && k < m->nprocs; k++)
			has = m->procs[k]->pid == a->pid;
		if (!has) { /* --pid: a host without that pid has no section */
			tza_unload(r, m);
			continue;
		}
		printf("%s== host ", *shown || sections++ ? "\n" : "");
		tza_safe_puts(stdout, hn && *hn ? hn : fl.h[i].me->hostname);
		fputs(" (", stdout);
		tza_safe_puts(stdout, fl.h[i].name);
		if (w0[i] && r0)
			printf("), from +%.3fs into the run ==\n", (double)(w0[i] - r0) / 1e9);
		else
			fputs("), its start in the run unknown (no clock anchor) ==\n", stdout);
		int rc = tree_one(a, r, m, shown);
		tza_unload(r, m);
		if (rc != TZA_EXIT_OK) {
			ret = rc;
			goto out;
		}
	}
	ret = TZA_EXIT_OK;
out:
	free(w0);
	tza_fleet_free(&fl);
	return ret;
}

int cmd_tree(int argc, char **argv)
{
	struct tree_args a;
	tz_reader *r = NULL;
	uint32_t shown = 0;
	int ret = tree_load(argc, argv, &a, &r);
	if (ret >= 0)
		return ret;
	if (a.hosts)
		ret = tree_hosts(&a, argv + optind, argc - optind, &shown);
	else
		ret = tree_one(&a, r, a.c.m, &shown);
	if (ret == TZA_EXIT_OK && a.pid_set && !shown) {
		tza_err("--pid: no process %llu in '%s'%s", (unsigned long long)a.pid, argv[optind],
			a.hosts ? " nor the other traces" : "");
		ret = TZA_EXIT_FAIL;
	}
	if (!a.hosts)
		tza_unload(r, a.c.m);
	if (a.has_re)
		regfree(&a.re);
	return ret;
}
