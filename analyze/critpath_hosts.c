/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * critpath_hosts.c - `tracer-analyze critical-path` over a run recorded on
 * several hosts (fleet.h; docs/tracer-analyze.md "MANY HOSTS"): each host's
 * own critical path (its recorded command, critpath.c), chained across
 * hosts by time adjacency. With --by task|rule the hosts' tasks are copied
 * out instead, for one path of tasks over every host (taskpath_hosts.h:
 * the workflow's records link tasks across hosts).
 *
 * The process tree holds no dependency between hosts, so the chain of
 * processes is by time and says so: it ends at the host whose command ended last; before a host's
 * part comes the part of another host that ended last at or before it
 * started (within the clocks' bound, fleet_clock.h). Hosts that ran beside
 * one on the chain did not hold the run back and are not on it. In wall-
 * clock ns the run's makespan (the first command's start to the last one's
 * end) splits exactly:
 *
 *   makespan = before_first + sum(parts) + sum(waits)
 *
 * Hosts are read one at a time; what a part needs is copied out of its model
 * before the next is read.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_clock.h"
#include "json.h"
#include "report.h"
#include "task.h"
#include "taskpath_hosts.h"
#include "textsafe.h"

/* One step of a host's own path: a process (on_ns: its share of the
 * path). Times: wall-clock ns. */
struct crow {
	char *key;	 /* group key (tool ...) */
	char *id;	 /* process id "PID.START" */
	uint32_t pid;	 /* its pid on its host */
	int64_t w0, w1;	 /* start, end */
	uint64_t on_ns;	 /* on the path */
	int fold;	 /* process text: joins the row before it (a run of one
			    tool under one parent, as critical-path prints) */
};

/* One host's part: its recorded command's span and its path. */
struct cpart {
	const char *trace;   /* the fleet's name for it */
	char *hostname;
	int64_t w0, w1;	     /* its root's span, wall-clock ns */
	int64_t off_ns;	     /* wall clock minus CLOCK_BOOTTIME on its host */
	int has_root;
	int incomplete;	     /* its model says so */
	uint32_t root_pid;
	char *root_key;
	struct crow *rows;
	uint32_t nrows;
	struct tza_crit_tool *tools; /* keys owned (strdup) */
	uint32_t ntools;
	int64_t wait_ns;     /* on the chain: its start minus its predecessor's end */
	int next;	     /* on the chain: the part after it, -1 last; -2 off */
};

struct chain {
	struct tza_fleet f;
	struct cpart *p;
	struct tza_host_clock *clk;
	enum tza_by by;
	int tasks;	     /* --by task|rule */
	struct tza_htasks tl; /* --by task|rule: every host's tasks */
	struct tza_fleet_seen seen; /* --by task|rule: processes of earlier hosts */
	int first;	     /* the chain's first part, -1 none */
	int64_t r0, r1;	     /* the run: first root start, last root end */
	int64_t bound_ns;    /* the clocks' bound, ns (0 one host; -1 unknown) */
	char note[1024];
	size_t nhosts; /* distinct hosts of the f.n traces (tza_hosts_distinct) */
};

/* A time of p's host on the wall clock: one offset per host (its anchor
 * nearest its root's start), so that the host's own durations stay exact. */
static int64_t wall(const struct cpart *p, uint64_t boot)
{
	return (int64_t)boot + p->off_ns;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The processes on m's path (cr), as rows. */
static int proc_rows(struct cpart *pt, const struct tza_model *m,
		     const struct tza_crit *cr, enum tza_by by)
{
	pt->rows = calloc(cr->npath ? cr->npath : 1, sizeof(*pt->rows));
	if (!pt->rows)
		return -1;
	for (uint32_t i = 0; i < cr->npath; i++) {
		struct tza_proc *p = cr->path[i];
		struct crow *w = &pt->rows[pt->nrows++];
		char idb[TZA_ID_MAX];
		w->key = dup_or_empty(tza_proc_key(p, by));
		w->id = dup_or_empty(tza_proc_id(p, idb));
		if (!w->key || !w->id)
			return -1;
		w->pid = p->pid;
		w->w0 = wall(pt, p->start_ns);
		w->w1 = wall(pt, tza_proc_end(m, p));
		w->on_ns = cr->proc_ns[p->index];
		const struct tza_proc *q = i ? cr->path[i - 1] : NULL;
		w->fold = q && q->parent == p->parent && p->parent && !q->first_child &&
			  !p->first_child && !strcmp(pt->rows[i - 1].key, w->key);
	}
	return 0;
}

/* Host i's tasks into u->tl, but those an earlier trace of its host (same
 * boot id, overlapping) already gave: a task is counted once. 0 or -1. */
static int host_tasks(struct chain *u, size_t i, struct tza_model *m)
{
	const struct tza_tasks *t = tza_tasks_of(m);
	uint8_t *skip = calloc(t && t->n ? t->n : 1, 1);
	int rc = -1;
	if (!skip)
		return -1;
	for (uint32_t k = 0; t && k < t->n; k++) {
		const struct tza_proc *p = t->tasks[k].root;
		skip[k] = (uint8_t)tza_fleet_seen_before(&u->seen, &u->f, i, p->pid, p->start_ns);
	}
	for (uint32_t k = 0; k < m->nprocs; k++)
		if (tza_fleet_seen_add(&u->seen, i, m->procs[k]->pid, m->procs[k]->start_ns))
			goto out;
	tza_fleet_seen_seal(&u->seen, i);
	rc = tza_htasks_add(&u->tl, (uint32_t)i, u->p[i].off_ns, m, skip);
out:
	free(skip);
	return rc;
}

/* Host i's part: load, compute its path, copy out, unload. 0, or -1 after
 * one line. */
static int one_part(struct chain *u, size_t i)
{
	struct cpart *pt = &u->p[i];
	struct tza_model *m = NULL;
	struct tza_crit cr = {0};
	const char *name = u->f.h[i].name;
	int rc = -1;
	tz_reader *r;
	const char *hn;
	pt->trace = name;
	pt->next = -2;
	if (tza_fleet_load(&u->f, i, 0, &r, &m, &hn) < 0)
		return -1;
	pt->hostname = strdup(hn);
	if (!pt->hostname || tza_critpath(m, u->by, &cr) < 0)
		goto oom;
	u->clk[i].hostname = pt->hostname;
	tza_host_clock_read(r, &u->clk[i]);
	pt->incomplete = m->incomplete;
	if (!cr.root) {
		rc = 0;
		goto out;
	}
	int64_t w;
	if (tz_reader_realtime(r, cr.start_ns, &w)) {
		tza_err("critical-path: '%s': no clock anchor: its times cannot be put beside "
			"the other hosts'",
			name);
		goto out;
	}
	pt->off_ns = w - (int64_t)cr.start_ns;
	pt->w0 = wall(pt, cr.start_ns);
	pt->w1 = wall(pt, cr.end_ns);
	pt->has_root = 1;
	pt->root_pid = cr.root->pid;
	/* the root is named by its tool: in a task path it is no task's member */
	pt->root_key = dup_or_empty(tza_proc_key(cr.root, u->tasks ? TZA_BY_TOOL : u->by));
	if (!pt->root_key)
		goto oom;
	if (u->tasks ? host_tasks(u, i, m) : proc_rows(pt, m, &cr, u->by))
		goto oom;
	if (!u->tasks) {
		pt->tools = calloc(cr.ntools ? cr.ntools : 1, sizeof(*pt->tools));
		if (!pt->tools)
			goto oom;
		for (uint32_t k = 0; k < cr.ntools; k++, pt->ntools++) {
			pt->tools[k].ns = cr.by_tool[k].ns;
			if (!(pt->tools[k].tool = strdup(cr.by_tool[k].tool)))
				goto oom;
		}
	}
	rc = 0;
	goto out;
oom:
	tza_err("out of memory");
out:
	tza_crit_free(&cr);
	tza_unload(r, m);
	return rc;
}

/* Chain the parts: the last to end, then back by time adjacency. */
static void link_parts(struct chain *u)
{
	int last = -1;
	u->first = -1;
	for (size_t i = 0; i < u->f.n; i++) {
		const struct cpart *p = &u->p[i];
		if (!p->has_root)
			continue;
		if (last < 0 || p->w1 > u->p[last].w1 ||
		    (p->w1 == u->p[last].w1 && p->w0 < u->p[last].w0))
			last = (int)i;
		if (!u->r0 || p->w0 < u->r0)
			u->r0 = p->w0;
		if (p->w1 > u->r1)
			u->r1 = p->w1;
	}
	int cur = last, next = -1;
	while (cur >= 0) {
		u->p[cur].next = next;
		u->first = cur;
		int pred = -1;
		for (size_t i = 0; i < u->f.n; i++) {
			const struct cpart *p = &u->p[i];
			if (!p->has_root || p->next != -2 || (int)i == cur ||
			    p->w1 > u->p[cur].w0 + (u->bound_ns > 0 ? u->bound_ns : 0))
				continue;
			if (pred < 0 || p->w1 > u->p[pred].w1 ||
			    (p->w1 == u->p[pred].w1 && p->w1 - p->w0 > u->p[pred].w1 - u->p[pred].w0))
				pred = (int)i;
		}
		u->p[cur].wait_ns = pred < 0 ? 0 : u->p[cur].w0 - u->p[pred].w1;
		next = cur;
		cur = pred;
	}
}

/* The path's time by group across its parts (process paths), into *out
 * (sorted by ns, then name; keys borrowed). */
static int tools_sum(const struct chain *u, struct tza_crit_tool **out, uint32_t *n)
{
	uint32_t cap = 0;
	*out = NULL;
	*n = 0;
	for (int i = u->first; i >= 0; i = u->p[i].next)
		cap += u->p[i].ntools;
	if (!(*out = calloc(cap ? cap : 1, sizeof(**out))))
		return -1;
	for (int i = u->first; i >= 0; i = u->p[i].next)
		for (uint32_t k = 0; k < u->p[i].ntools; k++) {
			uint32_t j = 0;
			while (j < *n && strcmp((*out)[j].tool, u->p[i].tools[k].tool))
				j++;
			if (j == *n)
				(*out)[(*n)++].tool = u->p[i].tools[k].tool;
			(*out)[j].ns += u->p[i].tools[k].ns;
		}
	for (uint32_t a = 1; a < *n; a++) /* tens of tools: insertion sort */
		for (uint32_t b = a; b > 0; b--) {
			struct tza_crit_tool *x = &(*out)[b - 1], *y = &(*out)[b];
			if (x->ns > y->ns || (x->ns == y->ns && strcmp(x->tool, y->tool) <= 0))
				break;
			struct tza_crit_tool t = *x;
			*x = *y;
			*y = t;
		}
	return 0;
}

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

static void text_rows(FILE *o, const struct chain *u, const struct cpart *p)
{
	char b1[32], sk[TZA_SAFE_BUF];
	fprintf(o, "  %10s %10s %10s %8s  %s\n", "START", "END", "ON PATH", "PID", "TOOL");
	for (uint32_t i = 0; i < p->nrows;) {
		const struct crow *w = &p->rows[i];
		uint64_t on = w->on_ns;
		int64_t end = w->w1;
		uint32_t j = i + 1;
		for (; j < p->nrows && p->rows[j].fold; j++) {
			on += p->rows[j].on_ns;
			if (p->rows[j].w1 > end)
				end = p->rows[j].w1;
		}
		fprintf(o, "  %10.3f %10.3f %10s ", secs(w->w0 - u->r0), secs(end - u->r0),
			tza_fmt_dur(b1, sizeof(b1), on));
		tza_safe_str(sk, sizeof(sk), w->key);
		if (j - i > 1)
			fprintf(o, "%8s  %u\xc3\x97 %s\n", "-", j - i, sk);
		else
			fprintf(o, "%8u  %s\n", w->pid, sk);
		i = j;
	}
}

#define HOW_TIME                                                                           \
	"across hosts by time adjacency: the traces hold no dependency between hosts, so a "  \
	"host's part follows the part that ended last before it started"

static void text(FILE *o, const struct chain *u, const struct tza_crit_tool *tools,
		 uint32_t ntools)
{
	char b1[32], b2[32], b3[32], sk[TZA_SAFE_BUF], t0[64];
	uint64_t mk = (uint64_t)(u->r1 - u->r0);
	int64_t parts = 0, waits = 0, nparts = 0;
	for (int i = u->first; i >= 0; i = u->p[i].next, nparts++) {
		parts += u->p[i].w1 - u->p[i].w0;
		waits += i == u->first ? 0 : u->p[i].wait_ns;
	}
	int64_t before = u->first >= 0 ? u->p[u->first].w0 - u->r0 : 0;
	tza_clock_text_head(o, u->f.n, u->nhosts, u->r0, u->r1,
			    u->bound_ns > 0 ? HOW_TIME " (within the clocks' bound)" : HOW_TIME,
			    u->note);
	fprintf(o, "  %10s %10s %10s %10s  %-20s %s\n", "START", "END", "PART", "WAIT", "HOST",
		"ROOT");
	for (int i = u->first; i >= 0; i = u->p[i].next) {
		const struct cpart *p = &u->p[i];
		char w[32] = "-";
		if (i != u->first)
			tza_fmt_sdur(w, sizeof(w), p->wait_ns);
		fprintf(o, "  %10.3f %10.3f %10s %10s  %-20.20s ", secs(p->w0 - u->r0),
			secs(p->w1 - u->r0), tza_fmt_dur(b1, sizeof(b1), (uint64_t)(p->w1 - p->w0)),
			w, tza_safe_str(sk, sizeof(sk), p->hostname));
		fprintf(o, "%s (pid %u)%s\n", tza_safe_str(sk, sizeof(sk), p->root_key), p->root_pid,
			p->incomplete ? "  [tree incomplete]" : "");
	}
	for (size_t i = 0; i < u->f.n; i++)
		if (u->p[i].next == -2)
			fprintf(o, "  off the path: %s (%s)%s\n",
				tza_safe_str(sk, sizeof(sk), u->p[i].hostname), u->p[i].trace,
				u->p[i].has_root ? ": ran beside a host on the path"
						 : ": no processes");
	for (int i = u->first; i >= 0; i = u->p[i].next) {
		const struct cpart *p = &u->p[i];
		fputs("\n== host ", o);
		tza_safe_puts(o, p->hostname);
		fputs(" (", o);
		tza_safe_puts(o, p->trace);
		fputs(") ==\n", o);
		text_rows(o, u, p);
	}
	fprintf(o, "\nmakespan %s = %s before the first host's part + %s in %" PRId64
		   " part%s + %s waiting between hosts\n",
		tza_fmt_dur(b1, sizeof(b1), mk), tza_fmt_dur(b2, sizeof(b2), (uint64_t)before),
		tza_fmt_dur(b3, sizeof(b3), (uint64_t)parts), nparts, tza_plural((uint64_t)nparts),
		tza_fmt_dur(t0, sizeof(t0), (uint64_t)(waits < 0 ? 0 : waits)));
	fprintf(o, "\nattribution (sums to the makespan):\n");
	for (uint32_t i = 0; i < ntools; i++)
		fprintf(o, "  %10s %5.1f%%  %s\n", tza_fmt_dur(b1, sizeof(b1), tools[i].ns),
			mk ? 100.0 * (double)tools[i].ns / (double)mk : 0.0,
			tza_safe_str(sk, sizeof(sk), tools[i].tool));
	if (before + waits > 0)
		fprintf(o, "  %10s %5.1f%%  (no host's part: before the first, between hosts)\n",
			tza_fmt_dur(b1, sizeof(b1), (uint64_t)(before + waits)),
			mk ? 100.0 * (double)(before + waits) / (double)mk : 0.0);
}

static void json_rows(FILE *o, const struct chain *u, const struct cpart *p)
{
	for (uint32_t i = 0; i < p->nrows; i++) {
		const struct crow *w = &p->rows[i];
		fputs(i ? ",{\"id\":" : "{\"id\":", o);
		tza_json_cstr(o, w->id);
		fprintf(o, ",\"pid\":%u,\"tool\":", w->pid);
		tza_json_cstr(o, w->key);
		tza_json_key_secs(o, "start_s", w->w0 - u->r0);
		tza_json_key_secs(o, "end_s", w->w1 - u->r0);
		tza_json_key_secs(o, "critical_s", (int64_t)w->on_ns);
		fputc('}', o);
	}
}

static void json(FILE *o, const struct chain *u, const struct tza_crit_tool *tools,
		 uint32_t ntools)
{
	int64_t waits = 0;
	for (int i = u->first; i >= 0; i = u->p[i].next)
		waits += i == u->first ? 0 : u->p[i].wait_ns;
	tza_clock_json_head(o, "time_adjacency", u->first >= 0, u->r0, u->r1, u->bound_ns, u->note);
	tza_json_key_secs(o, "before_first_s", u->first >= 0 ? u->p[u->first].w0 - u->r0 : 0);
	tza_json_key_secs(o, "wait_s", waits);
	fputs(",\"by\":", o);
	fputs("\"process\"", o);
	fputs(",\"parts\":[", o);
	for (int i = u->first, k = 0; i >= 0; i = u->p[i].next, k++) {
		const struct cpart *p = &u->p[i];
		fputs(k ? ",{\"host\":" : "{\"host\":", o);
		tza_json_cstr(o, p->hostname);
		tza_json_key_cstr(o, "trace", p->trace);
		tza_json_key_secs(o, "start_s", p->w0 - u->r0);
		tza_json_key_secs(o, "end_s", p->w1 - u->r0);
		tza_json_key_secs(o, "makespan_s", p->w1 - p->w0);
		tza_json_key_secs(o, "wait_s", i == u->first ? 0 : p->wait_ns);
		fprintf(o, ",\"root_pid\":%u,\"root\":", p->root_pid);
		tza_json_cstr(o, p->root_key);
		fprintf(o, ",\"incomplete\":%s,\"path\":[", p->incomplete ? "true" : "false");
		json_rows(o, u, p);
		fputs("]}", o);
	}
	fputs("],\"off_path\":[", o);
	for (size_t i = 0, k = 0; i < u->f.n; i++)
		if (u->p[i].next == -2) {
			fputs(k++ ? "," : "", o);
			tza_json_cstr(o, u->p[i].hostname);
		}
	fputs("],\"by_tool\":[", o);
	for (uint32_t i = 0; i < ntools; i++) {
		fputs(i ? ",{\"tool\":" : "{\"tool\":", o);
		tza_json_cstr(o, tools[i].tool);
		tza_json_key_secs(o, "seconds", (int64_t)tools[i].ns);
		fputc('}', o);
	}
	fputs("]}\n", o);
}

/* --by task|rule: one path over every host's tasks (taskpath_hosts.h) */
static int task_path(FILE *o, struct chain *u, int json_out)
{
	const char **names = calloc(u->f.n ? u->f.n : 1, sizeof(*names));
	const char **traces = calloc(u->f.n ? u->f.n : 1, sizeof(*traces));
	int rc = TZA_EXIT_FAIL;
	if (!names || !traces) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < u->f.n; i++) {
		names[i] = u->p[i].hostname;
		traces[i] = u->p[i].trace;
	}
	struct tza_hosts_run run = {.hostname = names, .trace = traces, .nhosts = u->f.n,
				    .r0 = u->r0, .r1 = u->r1, .bound_ns = u->bound_ns,
				    .note = u->note, .by = u->by};
	rc = tza_taskpath_hosts(o, &u->tl, &run, json_out);
out:
	free(names);
	free(traces);
	return rc;
}

static void chain_free(struct chain *u)
{
	for (size_t i = 0; u->p && i < u->f.n; i++) {
		struct cpart *p = &u->p[i];
		for (uint32_t k = 0; k < p->nrows; k++) {
			free(p->rows[k].key);
			free(p->rows[k].id);
		}
		for (uint32_t k = 0; k < p->ntools; k++)
			free((char *)p->tools[k].tool);
		free(p->rows);
		free(p->tools);
		free(p->hostname);
		free(p->root_key);
	}
	free(u->p);
	free(u->clk);
	tza_htasks_free(&u->tl);
	tza_fleet_seen_free(&u->seen);
	tza_fleet_free(&u->f);
}

int tza_critpath_hosts(FILE *o, char **args, int n, enum tza_by by, int json_out)
{
	struct chain u = {.by = by, .tasks = by == TZA_BY_TASK || by == TZA_BY_RULE};
	int rc = TZA_EXIT_FAIL;
	struct tza_crit_tool *tools = NULL;
	uint32_t ntools = 0;
	if (tza_fleet_open("critical-path", args, n, &u.f))
		goto out;
	u.p = calloc(u.f.n ? u.f.n : 1, sizeof(*u.p));
	u.clk = calloc(u.f.n ? u.f.n : 1, sizeof(*u.clk));
	if (!u.p || !u.clk || (u.tasks && tza_fleet_seen_init(&u.seen, u.f.n))) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < u.f.n; i++) {
		if (one_part(&u, i))
			goto out;
	}
	const char **names = calloc(u.f.n ? u.f.n : 1, sizeof(*names));
	if (!names) {
		tza_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < u.f.n; i++)
		names[i] = u.p[i].hostname;
	u.nhosts = tza_hosts_distinct(names, u.f.n);
	free(names);
	int64_t bound_us;
	tza_clock_note(u.clk, u.f.n, tza_fleet_one_clock(&u.f), u.note, sizeof(u.note), &bound_us);
	u.bound_ns = bound_us < 0 ? -1 : bound_us * 1000;
	link_parts(&u);
	if (u.tasks) {
		rc = task_path(o, &u, json_out);
		goto out;
	}
	if (tools_sum(&u, &tools, &ntools) < 0) {
		tza_err("out of memory");
		goto out;
	}
	if (json_out)
		json(o, &u, tools, ntools);
	else if (u.first < 0)
		fprintf(o, "no processes in the traces: no critical path\n");
	else
		text(o, &u, tools, ntools);
	rc = TZA_EXIT_OK;
out:
	free(tools);
	chain_free(&u);
	return rc;
}
