/* SPDX-License-Identifier: BSD-2-Clause */
/* task.c - the task model (task.h): the build's driver (adapters in
 * task_match.c, the joins with the workflow's records in task_snakemake.c and
 * task_nextflow.c), each task's numbers, the per-run task sets */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/cmp.h"
#include "common/vec.h"
#include "report.h"
#include "task_int.h"

/* ------------------------------------------------------------ storage */

/* Keep a malloc'd string (freed with the set); NULL (and oom) on failure. */
char *task_keep(struct store *st, char *s)
{
	if (!s) {
		st->oom = 1;
		return NULL;
	}
	if (VEC_ROOM(st->s, st->n, st->cap, 64)) {
		free(s);
		st->oom = 1;
		return NULL;
	}
	return st->s[st->n++] = s;
}

static char *vkeepf(struct store *st, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static char *vkeepf(struct store *st, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return task_keep(st, s);
}

static char *keepf(struct store *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *keepf(struct store *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vkeepf(st, fmt, ap);
	va_end(ap);
	return s;
}

char *task_keepn(struct store *st, const char *s, size_t n)
{
	return task_keep(st, strndup(s, n));
}

void task_note(struct tza_tasks *t, struct store *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vkeepf(st, fmt, ap);
	va_end(ap);
	if (!s)
		return;
	char **v = realloc(t->notes, (t->nnotes + 1) * sizeof(*v));
	if (!v) {
		st->oom = 1;
		return;
	}
	t->notes = v;
	t->notes[t->nnotes++] = s;
}

/* ------------------------------------------------------------ numbers */

static int cmp_task(const void *a, const void *b)
{
	const struct tza_task *x = a, *y = b;
	CMP_RET(x->start_ns, y->start_ns);
	return (x->root->pid > y->root->pid) - (x->root->pid < y->root->pid);
}

/* Each task's members' totals (task.h), p->task set */
static int numbers(struct build *b)
{
	struct tza_model *m = b->m;
	struct tza_tasks *t = b->t;
	uint32_t *cnt = calloc(t->n + 1, sizeof(*cnt)), *pos = calloc(t->n + 1, sizeof(*pos));
	struct tza_proc **mem = malloc((m->nprocs + 1) * sizeof(*mem));
	int rc = -1;
	if (!cnt || !pos || !mem)
		goto out;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		if (!p->task)
			continue;
		struct tza_task *k = p->task;
		cnt[k->index]++;
		k->nprocs++;
		uint64_t end = tza_proc_end(m, p);
		if (end > k->end_ns)
			k->end_ns = end;
		k->cpu_ns += tza_proc_cpu(p);
		k->threads += p->threads;
		TZA_IO_ADD(k, p);
		uint64_t peak = tza_proc_own_rss_kib(p); /* not its fork's copy */
		k->rss_unknown += tza_proc_rss_known(p) ? 0 : 1;
		k->exit_rss_sum_kib += peak;
		if (peak > k->exit_rss_max_kib)
			k->exit_rss_max_kib = peak;
		if (p->flags & TZA_P_NO_EXIT)
			k->running++;
		if (!k->failed && (tza_proc_failed(p) || p->res->oom_killed))
			k->failed = p;
		k->oom_killed += p->res->oom_killed ? 1 : 0;
	}
	for (uint32_t i = 1; i <= t->n; i++)
		pos[i] = pos[i - 1] + cnt[i - 1];
	for (uint32_t i = 0; i < m->nprocs; i++)
		if (m->procs[i]->task)
			mem[pos[m->procs[i]->task->index]++] = m->procs[i];
	for (uint32_t i = 0, o = 0; i < t->n; o += cnt[i], i++) {
		struct tza_task *k = &t->tasks[i];
		int rc2 =
		    tza_procs_own_peak_rss_of(mem + o, cnt[i], &k->peak_rss_kib, &k->peak_rss_ns);
		if (rc2 < 0)
			goto out;
		/* a member's own exit peak is a floor the samples may have missed */
		if (k->exit_rss_max_kib > k->peak_rss_kib) {
			k->peak_rss_kib = k->exit_rss_max_kib;
			k->peak_rss_ns = 0;
		}
		struct tza_proc *r = k->root;
		k->exit_code = r->flags & TZA_P_NO_EXIT ? -2 : r->exit_code;
		k->signal = r->flags & TZA_P_NO_EXIT ? 0 : r->signal;
	}
	rc = 0;
out:
	free(cnt);
	free(pos);
	free(mem);
	return rc;
}

/* Name a task without a record: a script: job by its script's name; a
 * shell (its naming image: bash -c, not the command it exec'd last) by its
 * first child's command, else (builtins only) by its command's first word;
 * else its root's command */
static const char *cmd_name(struct build *b, const struct cand *c)
{
	struct tza_proc *p = c->root;
	if (c->script)
		return c->script;
	if (task_is_shell(tza_proc_naming_image(p))) {
		if (p->first_child)
			return tza_proc_key(p->first_child, TZA_BY_COMMAND);
		const char *s = c->shellcmd;
		if (s && *(s += strspn(s, " \t\n")))
			return task_keepn(b->st, s, strcspn(s, " \t\n;|&<>()"));
	}
	return tza_proc_key(p, TZA_BY_COMMAND);
}

static int finish(struct build *b)
{
	struct tza_tasks *t = b->t;
	struct store *st = b->st;
	t->tasks = calloc(b->nc + 1, sizeof(*t->tasks));
	if (!t->tasks)
		return -1;
	t->n = b->nc;
	char id[TZA_ID_MAX];
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		struct tza_task *k = &t->tasks[i];
		const struct tza_cgroup *cg = NULL;
		const struct tza_exec *e = tza_proc_image_inherited(c->root);
		k->kind = c->kind;
		k->root = c->root;
		/* clipped like its root's wall (a slice's window start): its
		 * wall and cores over the window, as the per-process views */
		k->start_ns = tza_proc_span_start(b->m, c->root);
		k->name = c->name ? c->name : cmd_name(b, c);
		k->id = c->id ? c->id : task_keep(st, strdup(tza_proc_id(c->root, id)));
		k->tag = c->tag;
		k->hash = c->hash;
		k->native_id = c->native_id;
		k->status = c->status;
		k->attempt = c->attempt;
		k->req_cpus = c->req_cpus;
		k->req_mem_bytes = c->req_mem;
		k->req_time_ms = c->req_time_ms;
		if (c->rec) {
			k->wf_start_s = c->rec->start;
			k->wf_end_s = c->rec->end;
			k->wf_inputs = c->rec->input;
			k->wf_ninputs = c->rec->ninput;
			k->wf_outputs = c->outputs;
			k->wf_noutputs = c->noutputs;
			k->wf_io = c->outputs != NULL;
			k->wf_dir = c->rec->dir;
		}
		if (c->kind == TZA_TASK_SLURM || c->kind == TZA_TASK_CONTAINER) {
			k->job = c->job;
			k->container = c->container;
		} else {
			char *j, *ct;
			task_cg_ids(b->in, c->root, &j, &ct);
			k->job = j ? task_keep(st, j) : NULL;
			k->container = ct ? task_keep(st, ct) : NULL;
		}
		if (b->in->cgroup && e && e->ctx->memcg_id)
			cg = b->in->cgroup(b->in->cgroup_ctx, TZA_CG_V1_MEMORY, e->ctx->memcg_id);
		if (cg)
			k->mem_limit_bytes = cg->mem_limit_bytes;
		if (b->in->cgroup && tza_proc_cgroup_id(c->root) &&
		    (cg = b->in->cgroup(b->in->cgroup_ctx, TZA_CG_V2,
					tza_proc_cgroup_id(c->root)))) {
			if (!k->mem_limit_bytes)
				k->mem_limit_bytes = cg->mem_limit_bytes;
			k->cpu_quota_us = cg->cpu_quota_us;
			k->cpu_period_us = cg->cpu_period_us;
		}
		if (k->kind == TZA_TASK_NEXTFLOW && k->tag && k->hash)
			k->key = keepf(st, "%s (%s) %.9s", k->name, k->tag, k->hash);
		else if (k->kind == TZA_TASK_NEXTFLOW && k->tag)
			k->key = keepf(st, "%s (%s)", k->name, k->tag);
		else if (k->kind == TZA_TASK_SNAKEMAKE && k->attempt > 1)
			k->key = keepf(st, "%s %s attempt %u", k->name, k->tag ? k->tag : k->id,
				       k->attempt);
		else if (k->kind == TZA_TASK_SNAKEMAKE && k->tag)
			k->key = keepf(st, "%s %s", k->name, k->tag);
		else
			k->key = keepf(st, "%s %s", k->name, k->id);
		if (!k->name || !k->id || !k->key)
			return -1;
	}
	/* start order; remember each candidate's new place */
	for (uint32_t i = 0; i < t->n; i++)
		t->tasks[i].index = i;
	qsort(t->tasks, t->n, sizeof(*t->tasks), cmp_task);
	uint32_t *place = malloc((t->n + 1) * sizeof(*place));
	if (!place)
		return -1;
	for (uint32_t i = 0; i < t->n; i++) {
		place[t->tasks[i].index] = i;
		t->tasks[i].index = i;
	}
	for (uint32_t i = 0; i < b->m->nprocs; i++) {
		struct tza_proc *p = b->m->procs[i];
		int32_t x = b->tix[p->index];
		p->task = x >= 0 ? &t->tasks[place[x]] : NULL;
	}
	free(place);
	return numbers(b);
}

int tza_tasks_build_in(struct tza_model *m, const struct tza_task_input *in,
		       struct tza_tasks **out)
{
	struct tza_tasks *t = calloc(1, sizeof(*t));
	struct store *st = calloc(1, sizeof(*st));
	struct build b = {.m = m, .in = in, .t = t, .st = st};
	int rc = -2;
	*out = NULL;
	if (!t || !st) {
		free(t);
		free(st);
		return -2;
	}
	t->priv = st;
	if (in->regex) {
		int e = regcomp(&b.re, in->regex, REG_EXTENDED);
		if (e) {
			char msg[128];
			regerror(e, &b.re, msg, sizeof(msg));
			tza_err("--task: '%s' is not an extended regular expression: %s", in->regex,
				msg);
			tza_tasks_free(t);
			return -1;
		}
		b.have_re = 1;
	}
	if (!(b.tix = malloc((m->nprocs + 1) * sizeof(*b.tix))))
		goto out;
	for (enum pass ps = PASS_WORKFLOW; ps <= PASS_CHILD && !b.nc; ps++) {
		for (uint32_t i = 0; i < m->nprocs; i++)
			b.tix[m->procs[i]->index] = -1;
		if (task_find_roots(&b, ps) < 0)
			goto out;
		if (b.have_re)
			break; /* --task alone names the tasks */
	}
	task_join_snakemake(&b);
	task_join_snakemake_log(&b);
	task_join_nextflow(&b);
	if (st->oom || finish(&b) < 0 || st->oom)
		goto out;
	*out = t;
	t = NULL;
	rc = 0;
out:
	if (b.have_re)
		regfree(&b.re);
	free(b.tix);
	free(b.c);
	free(b.smk);
	free(b.blk);
	if (t) {
		for (uint32_t i = 0; i < m->nprocs; i++)
			m->procs[i]->task = NULL;
		tza_tasks_free(t);
	}
	return rc;
}

static const struct tza_cgroup *model_cgroup(const void *ctx, uint32_t hier, uint64_t id)
{
	return tza_model_cgroup(ctx, hier, id);
}

int tza_tasks_build(struct tza_model *m, const char *regex, struct tza_tasks **out)
{
	struct tza_task_input in = {.regex = regex, .cgroup = model_cgroup, .cgroup_ctx = m};
	int64_t rt;
	in.natt = tza_model_attachments(m, &in.att);
	if (m->reader && tza_realtime(m->reader, m->t0_ns, &rt) == 0) {
		in.has_realtime = 1;
		in.realtime_off_ns = rt - (int64_t)m->t0_ns;
	}
	return tza_tasks_build_in(m, &in, out);
}

void tza_tasks_free(struct tza_tasks *t)
{
	if (!t)
		return;
	struct store *st = t->priv;
	if (st) {
		for (size_t i = 0; i < st->n; i++)
			free(st->s[i]);
		free(st->s);
		free(st);
	}
	free(t->notes);
	free(t->tasks);
	free(t);
}

int tza_task_failed(const struct tza_task *t)
{
	return t->exit_code > 0 || t->exit_code == -1 || t->signal || t->oom_killed;
}

double tza_task_cores(const struct tza_task *t)
{
	uint64_t wall = t->end_ns > t->start_ns ? t->end_ns - t->start_ns : 0;
	double c = wall ? (double)t->cpu_ns / (double)wall : 0;
	return t->threads && c > (double)t->threads ? (double)t->threads : c;
}

const char *tza_task_kind_name(uint32_t kind)
{
	static const char *const n[] = {"?",	   "snakemake", "nextflow", "slurm",
					"container", "generic",   "child"};
	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : "?";
}

void tza_tasks_notes(FILE *f, const struct tza_tasks *t)
{
	for (uint32_t i = 0; t && i < t->nnotes; i++)
		fprintf(f, "note: %s\n", t->notes[i]);
}

/* ------------------------------------------------------------ CLI */

/* One run of tracer-analyze analyses at most two traces (diff) */
static struct {
	const char *regex;
	int want;
	struct {
		const struct tza_model *m;
		struct tza_tasks *t;
	} built[4];
} cli;

int tza_task_set_regex(const char *regex)
{
	regex_t re;
	int e = regcomp(&re, regex, REG_EXTENDED);
	if (e) {
		char msg[128];
		regerror(e, &re, msg, sizeof(msg));
		tza_err("--task: '%s' is not an extended regular expression: %s", regex, msg);
		return -1;
	}
	regfree(&re);
	cli.regex = regex;
	cli.want = 1;
	return 0;
}

void tza_task_want(void)
{
	cli.want = 1;
}

int tza_task_wanted(void)
{
	return cli.want;
}

struct tza_tasks *tza_tasks_of(const struct tza_model *m)
{
	for (int i = 0; i < 4; i++)
		if (cli.built[i].m == m && m)
			return cli.built[i].t;
	return NULL;
}

int tza_tasks_for(struct tza_model *m)
{
	int slot = -1;
	for (int i = 0; i < 4 && slot < 0; i++)
		if (!cli.built[i].m)
			slot = i;
	if (slot < 0) {
		tza_err("internal: more than 4 traces with tasks");
		return -1;
	}
	struct tza_tasks *t;
	int rc = tza_tasks_build(m, cli.regex, &t);
	if (rc == -2)
		tza_err("out of memory");
	if (rc < 0)
		return -1;
	cli.built[slot].m = m;
	cli.built[slot].t = t;
	tza_tasks_notes(stderr, t);
	return 0;
}

void tza_tasks_release(const struct tza_model *m)
{
	for (int i = 0; i < 4; i++)
		if (m && cli.built[i].m == m) {
			tza_tasks_free(cli.built[i].t);
			cli.built[i].m = NULL;
			cli.built[i].t = NULL;
		}
}

