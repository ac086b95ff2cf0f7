/* SPDX-License-Identifier: BSD-2-Clause */
/* task_match.c - which process is a task root: argv and cgroup helpers, the
 * adapters (--task REGEX, Nextflow, Snakemake, Slurm/container cgroups, the
 * recorded command's children), the depth-first walk that applies them */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/vec.h"
#include "report.h"
#include "task_int.h"

/* ------------------------------------------------------------ argv */

/* Argument i of e's argv (NUL-terminated inside the model), or NULL. */
static const char *arg(const struct tza_exec *e, uint32_t i)
{
	if (!e || !e->argv)
		return NULL;
	const char *s = (const char *)e->argv, *end = s + e->argv_len;
	for (; s < end; i--) {
		const char *z = memchr(s, 0, (size_t)(end - s));
		if (!z)
			return NULL; /* cut inside the argument: not whole */
		if (!i)
			return s;
		s = z + 1;
	}
	return NULL;
}

const char *task_base(const char *s)
{
	const char *b = s ? strrchr(s, '/') : NULL;
	return b ? b + 1 : s;
}

int task_is_shell(const struct tza_exec *e)
{
	const char *b = task_base(e && e->ctx->exe ? e->ctx->exe : NULL);
	return b && (!strcmp(b, "bash") || !strcmp(b, "sh") || !strcmp(b, "dash"));
}

/* argv[0], argv[1] (an interpreter's script) or "-m NAME" is snakemake */
static int is_snakemake(const struct tza_exec *e)
{
	for (uint32_t i = 0; i < 3; i++) {
		const char *a = arg(e, i);
		if (!a)
			return 0;
		if (!strcmp(task_base(a), "snakemake"))
			return 1;
		if (i == 1 && !strcmp(a, "-m") && arg(e, 2) && !strcmp(arg(e, 2), "snakemake"))
			return 1;
	}
	return 0;
}

/* The value after option opt in a snakemake argv, or NULL; *at its index */
static const char *smk_opt(const struct tza_exec *e, const char *opt, uint32_t *at)
{
	const char *a;
	for (uint32_t i = 1; (a = arg(e, i)); i++)
		if (!strcmp(a, opt) && arg(e, i + 1)) {
			if (at)
				*at = i + 1;
			return arg(e, i + 1);
		}
	return NULL;
}

/* The rule of a cluster job's snakemake argv: --target-jobs RULE:k=v,k=v
 * (its wildcards in *wc, malloc'd, written as the log writes them: "k=v,
 * k=v"), else --rules / --allowed-rules RULE (*wc NULL); NULL when none */
static char *snakemake_rule(const struct tza_exec *e, char **wc)
{
	const char *a = smk_opt(e, "--target-jobs", NULL);
	*wc = NULL;
	if (a) {
		const char *colon = strchr(a, ':');
		if (colon && colon[1] && (*wc = malloc(2 * strlen(colon)))) {
			char *w = *wc;
			for (const char *c = colon + 1; *c; c++)
				if ((*w++ = *c) == ',')
					*w++ = ' ';
			*w = 0;
		}
		return strndup(a, colon ? (size_t)(colon - a) : strlen(a));
	}
	if (!(a = smk_opt(e, "--rules", NULL)))
		a = smk_opt(e, "--allowed-rules", NULL);
	return a ? strdup(a) : NULL;
}

#define SMK_PREFIX "set -euo pipefail;"

/* A Snakemake local job's shell: sh -c 'set -euo pipefail; CMD' as any
 * kept image of p (bash execs the last command of CMD in place) */
static const char *snakemake_shellcmd(const struct tza_proc *p)
{
	const struct tza_exec *pe;
	if (!p->parent || !(pe = tza_proc_image_inherited(p->parent)) || !is_snakemake(pe))
		return NULL;
	for (uint32_t i = 0; i < p->nexecs; i++) {
		const struct tza_exec *e = &p->execs[i];
		if (task_is_shell(e) && arg(e, 1) && !strcmp(arg(e, 1), "-c") && arg(e, 2) &&
		    !strncmp(arg(e, 2), SMK_PREFIX, strlen(SMK_PREFIX)))
			return arg(e, 2) + strlen(SMK_PREFIX);
	}
	return NULL;
}

/* An argument of e whose basename is name, or NULL */
const char *task_arg_named(const struct tza_exec *e, const char *name)
{
	const char *a;
	for (uint32_t i = 1; (a = arg(e, i)); i++)
		if (!strcmp(task_base(a), name))
			return a;
	return NULL;
}

/* s without the whitespace at its ends, n bytes at most (malloc'd): how
 * Snakemake's shellcmd compares with the shell's argument (its own prefix
 * "set -euo pipefail; " and a space before, the end stripped) */
char *task_trim_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* ------------------------------------------------------------ cgroups */

/* The Slurm job (and step) in a cgroup path: "job_M[/step_K]", or NULL. */
static char *slurm_of(const char *path)
{
	const char *j = strstr(path, "/job_");
	if (!j || !isdigit((unsigned char)j[5]))
		return NULL;
	j++;
	size_t n = strspn(j + 4, "0123456789") + 4;
	const char *s = j + n;
	if (!strncmp(s, "/step_", 6) && s[6]) {
		size_t k = strcspn(s + 1, "/");
		return strndup(j, n + 1 + k);
	}
	return strndup(j, n);
}

/* A container or pod in a cgroup path: the container id (12 hex digits) of
 * docker/containerd/CRI-O/podman, else "pod:UID" of a Kubernetes pod. */
static char *container_of(const char *path)
{
	static const char *const pre[] = {"/docker/", "/docker-", "cri-containerd-", "crio-",
					  "libpod-", "/containerd/", NULL};
	for (const char *const *q = pre; *q; q++) {
		const char *s = strstr(path, *q);
		if (!s)
			continue;
		s += strlen(*q);
		size_t n = strspn(s, "0123456789abcdef");
		if (n >= 12)
			return strndup(s, 12);
	}
	const char *k = strstr(path, "kubepods");
	const char *pd = k ? strstr(k, "pod") : NULL;
	while (pd && pd - path >= 4 && !strncmp(pd - 4, "kube", 4)) /* "kubepods" itself */
		pd = strstr(pd + 3, "pod");
	if (pd) {
		pd += 3;
		size_t n = strspn(pd, "0123456789abcdef-_");
		if (n >= 32) {
			char *u = strndup(pd, n), *r = NULL;
			if (!u)
				return NULL;
			for (char *c = u; *c; c++)
				if (*c == '_')
					*c = '-';
			if (asprintf(&r, "pod:%s", u) < 0)
				r = NULL;
			free(u);
			return r;
		}
	}
	return NULL;
}

/* The value of NAME in an exec's --env block, or NULL (not NUL-safe past len) */
static const char *env_get(const struct tza_exec *e, const char *name)
{
	size_t nl = strlen(name);
	for (uint32_t o = 0; e && e->ctx->env && o < e->ctx->env_len;) {
		const char *s = e->ctx->env + o;
		size_t l = strnlen(s, e->ctx->env_len - o);
		if (l > nl && !strncmp(s, name, nl) && s[nl] == '=' && o + l < e->ctx->env_len)
			return s + nl + 1;
		o += (uint32_t)l + 1;
	}
	return NULL;
}

/* NAME from the first image of p whose --env block has it (a shell may
 * exec its last command under `env -u NAME`), else from the image p started
 * with; NULL */
static const char *proc_env(const struct tza_proc *p, const char *name)
{
	const char *v;
	for (uint32_t i = 0; i < p->nexecs; i++)
		if ((v = env_get(&p->execs[i], name)))
			return v;
	return p->nexecs ? NULL : env_get(p->start_image, name);
}

/* The Slurm job and container of p (malloc'd, NULL when none): from the
 * path of its v1 memory cgroup (hybrid hosts), else of its v2 cgroup, the
 * job else from the first SLURM_JOB_ID of its images (--env). */
void task_cg_ids(const struct tza_task_input *in, const struct tza_proc *p, char **job,
		 char **ct)
{
	const struct tza_exec *e = tza_proc_image_inherited(p);
	const struct tza_cgroup *c[2] = {NULL, NULL};
	*job = *ct = NULL;
	if (in->cgroup && e && e->ctx->memcg_id)
		c[0] = in->cgroup(in->cgroup_ctx, TZA_CG_V1_MEMORY, e->ctx->memcg_id);
	if (in->cgroup && tza_proc_cgroup_id(p))
		c[1] = in->cgroup(in->cgroup_ctx, TZA_CG_V2, tza_proc_cgroup_id(p));
	for (int i = 0; i < 2; i++) {
		if (!c[i] || !c[i]->path)
			continue;
		if (!*job)
			*job = slurm_of(c[i]->path);
		if (!*ct)
			*ct = container_of(c[i]->path);
	}
	const char *sj = proc_env(p, "SLURM_JOB_ID");
	if (!*job && sj)
		*job = strdup(sj);
}

/* ------------------------------------------------------------ build */

static int add_cand(struct build *b, struct tza_proc *p, uint32_t kind)
{
	if (VEC_ROOM(b->c, b->nc, b->capc, 64))
		return -1;
	b->c[b->nc] = (struct cand){.root = p, .kind = kind};
	b->tix[p->index] = (int32_t)b->nc;
	return (int)b->nc++;
}

/* The argv joined by spaces (what --task REGEX sees first) */
static char *argv_line(const struct tza_exec *e)
{
	char *s = malloc(e->argv_len + 1);
	if (!s)
		return NULL;
	memcpy(s, e->argv, e->argv_len);
	s[e->argv_len] = 0;
	for (uint32_t i = 0; i + 1 < e->argv_len; i++)
		if (!s[i])
			s[i] = ' ';
	return s;
}

/* --task REGEX: argv, else exe, else cwd of the final image, then of the
 * earlier ones (latest first); name = first capture, else the match */
static int match_generic(struct build *b, struct tza_proc *p)
{
	for (uint32_t x = p->nexecs; x-- > 0;) {
		const struct tza_exec *e = &p->execs[x];
		char *line = e->argv ? argv_line(e) : NULL;
		const char *hay[3] = {line, e->ctx->exe, e->ctx->cwd};
		regmatch_t mt[2];
		for (int i = 0; i < 3; i++) {
			if (!hay[i] || regexec(&b->re, hay[i], 2, mt, 0))
				continue;
			int g = mt[1].rm_so >= 0 ? 1 : 0;
			int k = add_cand(b, p, TZA_TASK_GENERIC);
			if (k >= 0)
				b->c[k].name = task_keepn(b->st, hay[i] + mt[g].rm_so,
						     (size_t)(mt[g].rm_eo - mt[g].rm_so));
			free(line);
			return k < 0 ? -1 : 1;
		}
		free(line);
	}
	return 0;
}

/* The built-in workflow adapters (Nextflow, Snakemake) at p: 1 matched */
static int match_workflow(struct build *b, struct tza_proc *p)
{
	const struct tza_exec *e = tza_proc_image(p);
	const char *a, *sc;
	int k;
	if (task_is_shell(e) && (a = task_arg_named(e, ".command.run"))) {
		if ((k = add_cand(b, p, TZA_TASK_NEXTFLOW)) < 0)
			return -1;
		if (a[0] == '/')
			b->c[k].workdir = task_keepn(b->st, a, (size_t)(task_base(a) - a - 1));
		else if (e->ctx->cwd)
			b->c[k].workdir = e->ctx->cwd;
		return 1;
	}
	if ((sc = snakemake_shellcmd(p))) {
		if ((k = add_cand(b, p, TZA_TASK_SNAKEMAKE)) < 0)
			return -1;
		b->c[k].shellcmd = sc;
		return 1;
	}
	char *rule, *wc;
	if (p->parent && is_snakemake(e) && (rule = snakemake_rule(e, &wc))) {
		if ((k = add_cand(b, p, TZA_TASK_SNAKEMAKE)) < 0) {
			free(rule);
			free(wc);
			return -1;
		}
		struct cand *c = &b->c[k];
		c->name = task_keep(b->st, rule);
		c->tag = wc ? task_keep(b->st, wc) : NULL;
		/* the job's shell (snakemake runs it as a local job's): the
		 * command that joins the job with its metadata record */
		for (struct tza_proc *q = p->first_child; q && !c->childcmd; q = q->next_sibling)
			c->childcmd = snakemake_shellcmd(q);
		if ((a = smk_opt(e, "--attempt", NULL)))
			c->attempt = (uint32_t)strtoul(a, NULL, 10);
		uint32_t at;
		if (smk_opt(e, "--resources", &at)) {
			/* the k=v arguments up to the next option, as one list */
			char *res = NULL;
			size_t rl = 0;
			FILE *f = open_memstream(&res, &rl);
			for (; f && (a = arg(e, at)) && a[0] != '-'; at++)
				fprintf(f, "%s ", a);
			if (f && !fclose(f) && res)
				task_smk_req(c, res);
			free(res);
		}
		return 1;
	}
	return 0;
}

/* Slurm job / container whose id differs from the parent's: 1 matched */
static int match_cgroup(struct build *b, struct tza_proc *p)
{
	char *job, *ct, *pj = NULL, *pc = NULL;
	int ret = 0;
	task_cg_ids(b->in, p, &job, &ct);
	if (job || ct) {
		if (p->parent)
			task_cg_ids(b->in, p->parent, &pj, &pc);
		int newjob = job && (!pj || strcmp(job, pj)), newct = ct && (!pc || strcmp(ct, pc));
		if (newjob || newct) {
			int k = add_cand(b, p, newct ? TZA_TASK_CONTAINER : TZA_TASK_SLURM);
			if (k < 0) {
				ret = -1;
			} else {
				b->c[k].job = job ? task_keep(b->st, job) : NULL;
				b->c[k].container = ct ? task_keep(b->st, ct) : NULL;
				job = ct = NULL;
				b->c[k].name = newct ? b->c[k].container : b->c[k].job;
				ret = 1;
			}
		}
		free(pj);
		free(pc);
	}
	free(job);
	free(ct);
	return ret;
}

/* The recorded command: a root that was not there before the recording,
 * and not a workflow manager (Snakemake, Nextflow): when none of its jobs
 * ran here (cluster mode: they ran on other nodes), its children are its
 * own helpers (job submission, conda, cbc), no tasks */
static int recorded_root(const struct tza_proc *p)
{
	if (p->parent || (p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD | TZA_P_ORPHAN)))
		return 0;
	const struct tza_exec *e = tza_proc_image(p);
	return !is_snakemake(e) && !task_arg_named(e, "nextflow") &&
	       !task_arg_named(e, "nextflow.cli.Launcher") &&
	       !(arg(e, 0) && !strcmp(task_base(arg(e, 0)), "nextflow"));
}

/* Depth-first from the roots: the outermost match of the pass is a task
 * root; everything below it belongs to it. */
int task_find_roots(struct build *b, enum pass pass)
{
	struct tza_model *m = b->m;
	struct tza_proc **stack = malloc((m->nprocs + 1) * sizeof(*stack));
	if (!stack)
		return -1;
	uint32_t sp = 0;
	for (uint32_t i = m->nroots; i-- > 0;)
		stack[sp++] = m->roots[i];
	int rc = 0;
	while (sp && rc >= 0) {
		struct tza_proc *p = stack[--sp];
		int inside = p->parent && b->tix[p->parent->index] >= 0;
		if (inside)
			b->tix[p->index] = b->tix[p->parent->index];
		else if (pass == PASS_WORKFLOW)
			rc = b->have_re ? match_generic(b, p) : match_workflow(b, p);
		else if (pass == PASS_CGROUP)
			rc = match_cgroup(b, p);
		else if (p->parent && recorded_root(p->parent))
			rc = add_cand(b, p, TZA_TASK_CHILD) < 0 ? -1 : 1;
		/* children in reverse so they pop in start order */
		uint32_t n0 = sp;
		for (struct tza_proc *k = p->first_child; k && sp < m->nprocs; k = k->next_sibling)
			stack[sp++] = k;
		for (uint32_t x = n0, y = sp; x + 1 < y; x++, y--) {
			struct tza_proc *tmp = stack[x];
			stack[x] = stack[y - 1];
			stack[y - 1] = tmp;
		}
	}
	free(stack);
	return rc < 0 ? -1 : 0;
}

