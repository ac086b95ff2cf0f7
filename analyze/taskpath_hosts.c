/* SPDX-License-Identifier: BSD-2-Clause */
/* taskpath_hosts.c - the path of tasks across hosts (taskpath_hosts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/cmp.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "json.h"
#include "report.h"
#include "task.h"
#include "taskpath_hosts.h"
#include "textsafe.h"

static char *dup0(const char *s) { return strdup(s ? s : ""); }

/* n paths of v, copied as absolute paths (a relative one under dir: the
 * same name in two workflows' directories is two files; NULL when n is
 * 0); -1 out of memory */
static int dupv(char ***out, const char *const *v, uint32_t n, const char *dir)
{
	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = calloc(n, sizeof(**out))))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const char *p = v[i] ? v[i] : "";
		if (p[0] == '/' || !dir)
			(*out)[i] = strdup(p);
		else if (asprintf(&(*out)[i], "%s/%s", dir, p) < 0)
			(*out)[i] = NULL;
		if (!(*out)[i])
			return -1;
	}
	return 0;
}

static int htask_copy(struct tza_htask *h, uint32_t host, int64_t off, const struct tza_task *k)
{
	h->host = host;
	h->idx = k->index;
	h->w0 = (int64_t)k->start_ns + off;
	h->w1 = (int64_t)k->end_ns + off;
	h->kind = tza_task_kind_name(k->kind);
	h->pid = k->root->pid;
	h->parent = k->root->parent ? (int64_t)k->root->parent->index : -1;
	if (!(h->key = dup0(k->key)) || !(h->id = dup0(k->id)) || !(h->rule = dup0(k->name)))
		return -1;
	uint32_t depth = 0;
	for (const struct tza_proc *p = k->root->parent; p; p = p->parent)
		depth++;
	if (depth && !(h->anc = calloc(depth, sizeof(*h->anc))))
		return -1;
	for (const struct tza_proc *p = k->root->parent; p; p = p->parent)
		h->anc[h->nanc++] = p->index;
	h->io = k->wf_io;
	if (!h->io)
		return 0;
	h->nin = k->wf_ninputs;
	h->nout = k->wf_noutputs;
	if (dupv(&h->in, k->wf_inputs, h->nin, k->wf_dir))
		return -1;
	return dupv(&h->out, k->wf_outputs, h->nout, k->wf_dir);
}

int tza_htasks_add(struct tza_htasks *l, uint32_t host, int64_t off_ns, struct tza_model *m,
		   const uint8_t *skip)
{
	const struct tza_tasks *t = tza_tasks_of(m);
	for (uint32_t i = 0; t && i < t->n; i++) {
		if (skip && skip[i])
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct tza_htask *v = realloc(l->t, cap * sizeof(*v));
			if (!v)
				return -1;
			l->t = v;
			l->cap = cap;
		}
		struct tza_htask *h = &l->t[l->n++];
		memset(h, 0, sizeof(*h));
		if (htask_copy(h, host, off_ns, &t->tasks[i]))
			return -1;
	}
	return 0;
}

void tza_htasks_free(struct tza_htasks *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct tza_htask *h = &l->t[i];
		for (uint32_t k = 0; h->in && k < h->nin; k++)
			free(h->in[k]);
		for (uint32_t k = 0; h->out && k < h->nout; k++)
			free(h->out[k]);
		free(h->in);
		free(h->out);
		free(h->anc);
		free(h->key);
		free(h->id);
		free(h->rule);
	}
	free(l->t);
	memset(l, 0, sizeof(*l));
}

/* start order over the run: wall start, then host, then the host's order */
static int cmp_start(const void *x, const void *y)
{
	const struct tza_htask *a = x, *b = y;
	CMP_RET(a->w0, b->w0);
	CMP_RET(a->host, b->host);
	return (a->idx > b->idx) - (a->idx < b->idx);
}

struct lctx {
	const struct tza_htask *t;
	int64_t slack;	  /* across hosts: the clocks' bound */
	uint32_t *across; /* data edges kept between hosts */
};

/* The edges of taskpath_hosts.h */
static uint32_t link(const void *ctx, uint32_t ia, uint32_t ib, int data)
{
	const struct lctx *c = ctx;
	const struct tza_htask *a = &c->t[ia], *b = &c->t[ib];
	int same = a->host == b->host;
	if (a->w1 > b->w0 + (same ? 0 : c->slack))
		return TZA_EDGE_NONE;
	if (data) {
		*c->across += !same;
		return TZA_EDGE_DATA;
	}
	if (!same)
		return b->io ? TZA_EDGE_NONE : TZA_EDGE_ADJACENT;
	if (a->parent < 0)
		return TZA_EDGE_TIME;
	for (uint32_t k = 0; k < b->nanc; k++)
		if (b->anc[k] == (uint32_t)a->parent)
			return TZA_EDGE_TIME;
	return TZA_EDGE_NONE;
}

/* What the printers need */
struct hp {
	const struct tza_hosts_run *run;
	const struct tza_htask *t;
	struct tza_tp tp;
	uint32_t data_across; /* data edges between hosts */
	uint32_t nhosts_on;   /* hosts with a step */
	uint8_t *on;	      /* per host: a step there */
	int64_t before, after;
};

static double secs(int64_t ns) { return (double)ns / 1e9; }

#define HOW_EDGES                                                                          \
	"edges: a task follows one whose output it read (the workflow's records, on any host: " \
	"data), else on its host by time and the process tree (time), else a task without "   \
	"records follows one on another host by time alone "

static void text(FILE *o, const struct hp *h)
{
	const struct tza_hosts_run *u = h->run;
	char b1[32], b2[32], b3[32], b4[32], b5[32], sk[TZA_SAFE_BUF];
	const struct tza_tp *tp = &h->tp;
	tza_clock_text_head(o, u->nhosts, tza_hosts_distinct(u->hostname, u->nhosts), u->r0, u->r1,
			    u->bound_ns > 0 ? HOW_EDGES "(adjacent, within the clocks' bound)"
					    : HOW_EDGES "(adjacent)",
			    u->note);
	if (!tp->n) {
		fprintf(o, "no tasks in the traces: no task path\n");
		return;
	}
	fprintf(o,
		"task path (%u task%s on %u host%s; edges: %u from the workflow's records (%u "
		"between hosts), %u by time and process tree, %u by time across hosts):\n",
		tp->n, tza_plural(tp->n), h->nhosts_on, tza_plural(h->nhosts_on),
		tp->edges[TZA_EDGE_DATA], h->data_across, tp->edges[TZA_EDGE_TIME],
		tp->edges[TZA_EDGE_ADJACENT]);
	if (tp->late)
		fprintf(o,
			"  (%u edge%s of the records dropped: the task that wrote the file ended "
			"after the one that read it started)\n",
			tp->late, tza_plural(tp->late));
	fprintf(o, "  %10s %10s %10s %10s %8s  %-20s %s\n", "START", "END", "WALL", "WAIT", "EDGE",
		"HOST", u->by == TZA_BY_RULE ? "RULE" : "TASK");
	for (uint32_t i = 0; i < tp->n; i++) {
		const struct tza_tp_step *s = &tp->steps[i];
		const struct tza_htask *k = &h->t[s->node];
		fprintf(o, "  %10.3f %10.3f %10s %10s %8s  %-20.20s ", secs(k->w0 - u->r0),
			secs(k->w1 - u->r0), tza_fmt_dur(b1, sizeof(b1), (uint64_t)(k->w1 - k->w0)),
			i ? tza_fmt_sdur(b2, sizeof(b2), s->wait_ns) : "-",
			tza_task_edge_name(s->edge, "-"),
			tza_safe_str(sk, sizeof(sk), u->hostname[k->host]));
		tza_safe_puts(o, u->by == TZA_BY_RULE ? k->rule : k->key);
		fputc('\n', o);
	}
	for (size_t i = 0; i < u->nhosts; i++)
		if (!h->on[i]) {
			fputs("  off the path: ", o);
			tza_safe_puts(o, u->hostname[i]);
			fputs(" (", o);
			tza_safe_puts(o, u->trace[i]);
			fputs("): no task on the path\n", o);
		}
	fprintf(o,
		"\nmakespan %s = %s before the first task + %s in tasks + %s waiting + %s "
		"after the last\n",
		tza_fmt_dur(b1, sizeof(b1), (uint64_t)(u->r1 - u->r0)),
		tza_fmt_sdur(b2, sizeof(b2), h->before),
		tza_fmt_dur(b3, sizeof(b3), (uint64_t)tp->wall_ns),
		tza_fmt_sdur(b4, sizeof(b4), tp->wait_ns), tza_fmt_sdur(b5, sizeof(b5), h->after));
}

static void json(FILE *o, const struct hp *h)
{
	const struct tza_hosts_run *u = h->run;
	const struct tza_tp *tp = &h->tp;
	tza_clock_json_head(o, "task_edges", u->r0 != 0, u->r0, u->r1, u->bound_ns, u->note);
	fputs(u->by == TZA_BY_RULE ? ",\"by\":\"rule\"" : ",\"by\":\"task\"", o);
	tza_json_key_secs(o, "before_first_s", h->before);
	tza_json_key_secs(o, "after_last_s", h->after);
	tza_json_key_secs(o, "wall_s", tp->wall_ns);
	tza_json_key_secs(o, "wait_s", tp->wait_ns);
	fprintf(o,
		",\"edges\":{\"data\":%u,\"data_between_hosts\":%u,\"time\":%u,\"adjacent\":%u,"
		"\"late\":%u},\"path\":[",
		tp->edges[TZA_EDGE_DATA], h->data_across, tp->edges[TZA_EDGE_TIME],
		tp->edges[TZA_EDGE_ADJACENT], tp->late);
	for (uint32_t i = 0; i < tp->n; i++) {
		const struct tza_tp_step *s = &tp->steps[i];
		const struct tza_htask *k = &h->t[s->node];
		fputs(i ? ",{\"host\":" : "{\"host\":", o);
		tza_json_cstr(o, u->hostname[k->host]);
		tza_json_key_cstr(o, "trace", u->trace[k->host]);
		tza_json_key_cstr(o, "task", k->key);
		tza_json_key_cstr(o, "rule", k->rule);
		tza_json_key_cstr(o, "kind", k->kind);
		tza_json_key_cstr(o, "id", k->id);
		fprintf(o, ",\"pid\":%u", k->pid);
		tza_json_key_secs(o, "start_s", k->w0 - u->r0);
		tza_json_key_secs(o, "end_s", k->w1 - u->r0);
		tza_json_key_secs(o, "wall_s", k->w1 - k->w0);
		tza_json_key_secs(o, "wait_s", s->wait_ns);
		tza_json_key_cstr(o, "edge", tza_task_edge_name(s->edge, NULL));
		fputc('}', o);
	}
	fputs("],\"off_path\":[", o);
	for (size_t i = 0, n = 0; i < u->nhosts; i++)
		if (!h->on[i]) {
			fputs(n++ ? "," : "", o);
			tza_json_cstr(o, u->hostname[i]);
		}
	fputs("]}\n", o);
}

int tza_taskpath_hosts(FILE *o, struct tza_htasks *l, const struct tza_hosts_run *run, int js)
{
	struct hp h = {.run = run, .t = l->t};
	struct tza_tp_node *v = NULL;
	const char **onnames = NULL;
	int rc = TZA_EXIT_FAIL;
	if (l->n > UINT32_MAX - 1) {
		tza_err("critical-path: more than %u tasks", UINT32_MAX - 1);
		return rc;
	}
	if (l->n)
		qsort(l->t, l->n, sizeof(*l->t), cmp_start);
	v = calloc(l->n ? l->n : 1, sizeof(*v));
	h.on = calloc(run->nhosts ? run->nhosts : 1, 1);
	onnames = calloc(run->nhosts ? run->nhosts : 1, sizeof(*onnames));
	if (!v || !h.on || !onnames)
		goto oom;
	for (size_t i = 0; i < l->n; i++) {
		const struct tza_htask *k = &l->t[i];
		v[i] = (struct tza_tp_node){.start_ns = k->w0,
					    .end_ns = k->w1,
					    .in = (const char *const *)k->in,
					    .out = (const char *const *)k->out,
					    .nin = k->nin,
					    .nout = k->nout,
					    .io = k->io};
	}
	struct lctx c = {l->t, run->bound_ns > 0 ? run->bound_ns : 0, &h.data_across};
	if (tza_tp_solve(v, (uint32_t)l->n, link, &c, &h.tp))
		goto oom;
	h.after = run->r1 - run->r0;
	for (uint32_t i = 0; i < h.tp.n; i++)
		h.on[l->t[h.tp.steps[i].node].host] = 1;
	/* hosts, not traces: two traces of one host with a step are one */
	for (size_t i = 0, k = 0; i < run->nhosts; i++)
		if (h.on[i])
			onnames[k++] = run->hostname[i];
	for (size_t i = 0; i < run->nhosts; i++)
		h.nhosts_on += h.on[i];
	h.nhosts_on = (uint32_t)tza_hosts_distinct(onnames, h.nhosts_on);
	if (h.tp.n) {
		h.before = l->t[h.tp.steps[0].node].w0 - run->r0;
		h.after = run->r1 - l->t[h.tp.steps[h.tp.n - 1].node].w1;
	}
	if (js)
		json(o, &h);
	else
		text(o, &h);
	rc = TZA_EXIT_OK;
	goto out;
oom:
	tza_err("out of memory");
out:
	free(h.tp.steps);
	free(v);
	free(h.on);
	free(onnames);
	return rc;
}
