/* SPDX-License-Identifier: BSD-2-Clause */
/* task.c - the task model (task.h): adapters, the join with the workflow's
 * embedded records, and each task's numbers. */
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analyze.h"
#include "report.h"
#include "task.h"

/* ------------------------------------------------------------ storage */

struct store {
	char **s;
	size_t n, cap;
	int oom;
};

/* Keep a malloc'd string (freed with the set); NULL (and oom) on failure. */
static char *keep(struct store *st, char *s)
{
	if (!s) {
		st->oom = 1;
		return NULL;
	}
	if (st->n == st->cap) {
		size_t c = st->cap ? st->cap * 2 : 64;
		char **v = realloc(st->s, c * sizeof(*v));
		if (!v) {
			free(s);
			st->oom = 1;
			return NULL;
		}
		st->s = v;
		st->cap = c;
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
	return keep(st, s);
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

static char *keepn(struct store *st, const char *s, size_t n)
{
	return keep(st, strndup(s, n));
}

static void note(struct tza_tasks *t, struct store *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct tza_tasks *t, struct store *st, const char *fmt, ...)
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

static const char *base(const char *s)
{
	const char *b = s ? strrchr(s, '/') : NULL;
	return b ? b + 1 : s;
}

static int is_shell(const struct tza_exec *e)
{
	const char *b = base(e && e->exe ? e->exe : NULL);
	return b && (!strcmp(b, "bash") || !strcmp(b, "sh") || !strcmp(b, "dash"));
}

/* argv[0], argv[1] (an interpreter's script) or "-m NAME" is snakemake */
static int is_snakemake(const struct tza_exec *e)
{
	for (uint32_t i = 0; i < 3; i++) {
		const char *a = arg(e, i);
		if (!a)
			return 0;
		if (!strcmp(base(a), "snakemake"))
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
		if (is_shell(e) && arg(e, 1) && !strcmp(arg(e, 1), "-c") && arg(e, 2) &&
		    !strncmp(arg(e, 2), SMK_PREFIX, strlen(SMK_PREFIX)))
			return arg(e, 2) + strlen(SMK_PREFIX);
	}
	return NULL;
}

/* An argument of e whose basename is name, or NULL */
static const char *arg_named(const struct tza_exec *e, const char *name)
{
	const char *a;
	for (uint32_t i = 1; (a = arg(e, i)); i++)
		if (!strcmp(base(a), name))
			return a;
	return NULL;
}

/* s without the whitespace at its ends, n bytes at most (malloc'd): how
 * Snakemake's shellcmd compares with the shell's argument (its own prefix
 * "set -euo pipefail; " and a space before, the end stripped) */
static char *trim_dup(const char *s, size_t n)
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
	for (uint32_t o = 0; e && e->env && o < e->env_len;) {
		const char *s = e->env + o;
		size_t l = strnlen(s, e->env_len - o);
		if (l > nl && !strncmp(s, name, nl) && s[nl] == '=' && o + l < e->env_len)
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
static void cg_ids(const struct tza_task_input *in, const struct tza_proc *p, char **job,
		   char **ct)
{
	const struct tza_exec *e = tza_proc_image_inherited(p);
	const struct tza_cgroup *c[2] = {NULL, NULL};
	*job = *ct = NULL;
	if (in->cgroup && e && e->memcg_id)
		c[0] = in->cgroup(in->cgroup_ctx, TZA_CG_V1_MEMORY, e->memcg_id);
	if (in->cgroup && p->cgroup_id)
		c[1] = in->cgroup(in->cgroup_ctx, TZA_CG_V2, p->cgroup_id);
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

struct smk_rec {
	const char *cmd;    /* shellcmd, whitespace trimmed at both ends (store);
			       NULL for script:/run: jobs */
	const char *rule;   /* store */
	const char *output; /* store */
	const char **input; /* the record's "input" list (store), NULL: none */
	uint32_t ninput;
	double start, end;
	int used, sib; /* sib: scratch, another output of the job being joined */
};

/* A block of a Snakemake log: a job's start ("rule NAME:") or its failure
 * ("Error in rule NAME:"); strings in the store */
struct smk_blk {
	int error;
	const char *rule, *jobid, *outputs, *wild, *threads, *res;
	const char *cmd; /* Error: the shell command, trimmed */
	int used;
};

struct cand {
	struct tza_proc *root;
	uint32_t kind;
	const char *name, *id; /* may be NULL until joined */
	const char *shellcmd;  /* Snakemake local job */
	const char *script;    /* its script: rule's NAME (tmpXXXX.NAME) */
	const char *jobid;     /* Snakemake log's */
	const char *workdir;   /* Nextflow */
	const char *job, *container;
	const struct smk_rec *rec; /* Snakemake metadata joined */
	const char **outputs;	   /* every record of the job (store) */
	uint32_t noutputs;
	const char *tag, *hash, *native_id, *status;
	uint32_t attempt;
	double req_cpus;
	uint64_t req_mem, req_time_ms;
};

static void smk_req(struct cand *c, const char *res);

struct build {
	struct tza_model *m;
	const struct tza_task_input *in;
	struct tza_tasks *t;
	struct store *st;
	regex_t re;
	int have_re;
	struct cand *c;
	uint32_t nc, capc;
	int32_t *tix; /* per p->index: candidate index, -1 none */
	struct smk_rec *smk;
	struct smk_blk *blk;
	uint32_t nblk;
};

static int add_cand(struct build *b, struct tza_proc *p, uint32_t kind)
{
	if (b->nc == b->capc) {
		uint32_t cap = b->capc ? b->capc * 2 : 64;
		struct cand *v = realloc(b->c, cap * sizeof(*v));
		if (!v)
			return -1;
		b->c = v;
		b->capc = cap;
	}
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
		const char *hay[3] = {line, e->exe, e->cwd};
		regmatch_t mt[2];
		for (int i = 0; i < 3; i++) {
			if (!hay[i] || regexec(&b->re, hay[i], 2, mt, 0))
				continue;
			int g = mt[1].rm_so >= 0 ? 1 : 0;
			int k = add_cand(b, p, TZA_TASK_GENERIC);
			if (k >= 0)
				b->c[k].name = keepn(b->st, hay[i] + mt[g].rm_so,
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
	if (is_shell(e) && (a = arg_named(e, ".command.run"))) {
		if ((k = add_cand(b, p, TZA_TASK_NEXTFLOW)) < 0)
			return -1;
		if (a[0] == '/')
			b->c[k].workdir = keepn(b->st, a, (size_t)(base(a) - a - 1));
		else if (e->cwd)
			b->c[k].workdir = e->cwd;
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
		c->name = keep(b->st, rule);
		c->tag = wc ? keep(b->st, wc) : NULL;
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
				smk_req(c, res);
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
	cg_ids(b->in, p, &job, &ct);
	if (job || ct) {
		if (p->parent)
			cg_ids(b->in, p->parent, &pj, &pc);
		int newjob = job && (!pj || strcmp(job, pj)), newct = ct && (!pc || strcmp(ct, pc));
		if (newjob || newct) {
			int k = add_cand(b, p, newct ? TZA_TASK_CONTAINER : TZA_TASK_SLURM);
			if (k < 0) {
				ret = -1;
			} else {
				b->c[k].job = job ? keep(b->st, job) : NULL;
				b->c[k].container = ct ? keep(b->st, ct) : NULL;
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

enum pass { PASS_WORKFLOW, PASS_CGROUP, PASS_CHILD };

/* The recorded command: a root that was not there before the recording */
static int recorded_root(const struct tza_proc *p)
{
	return !p->parent && !(p->flags & (TZA_P_PRE_EXISTING | TZA_P_KTHREAD | TZA_P_ORPHAN));
}

/* Depth-first from the roots: the outermost match of the pass is a task
 * root; everything below it belongs to it. */
static int find_roots(struct build *b, enum pass pass)
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

/* ------------------------------------------------------------ records */

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Snakemake names a metadata file by its output path in (URL-safe) base64 */
static char *b64dec(const char *s)
{
	size_t n = strlen(s);
	char *o = malloc(n + 1), *w = o;
	unsigned acc = 0;
	int bits = 0;
	if (!o)
		return NULL;
	for (; *s && *s != '='; s++) {
		int v = b64val((unsigned char)*s);
		if (v < 0) {
			free(o);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			*w++ = (char)((acc >> bits) & 0xff);
		}
	}
	*w = 0;
	return o;
}


/* Parse one .snakemake/metadata attachment; 0 ok, -1 skipped (noted) */
static int smk_parse(struct build *b, const struct tza_attachment *a, const char *rel,
		     struct smk_rec *r)
{
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return -1;
	json_object *o = json_tokener_parse_ex(tok, (const char *)a->data, (int)a->len);
	enum json_tokener_error err = json_tokener_get_error(tok);
	if (!o || err != json_tokener_success || !json_object_is_type(o, json_type_object)) {
		note(b->t, b->st, "'%s': not a JSON object at byte %zu (%s%s): ignored", a->name,
		     json_tokener_get_parse_end(tok),
		     err != json_tokener_success ? json_tokener_error_desc(err) : "not an object",
		     a->flags & TZA_ATT_TRUNCATED ? "; cut by the recorder" : "");
		json_object_put(o);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	json_object *rule, *cmd = NULL, *st, *en;
	if (!json_object_object_get_ex(o, "rule", &rule) ||
	    !json_object_is_type(rule, json_type_string)) {
		json_object_put(o);
		return -1;
	}
	/* run:/script: jobs have shellcmd null: joined by time alone */
	if (json_object_object_get_ex(o, "shellcmd", &cmd) &&
	    json_object_is_type(cmd, json_type_string)) {
		const char *c = json_object_get_string(cmd);
		if (!(r->cmd = keep(b->st, trim_dup(c, strlen(c)))))
			goto bad;
	}
	char *out = b64dec(rel);
	r->rule = keep(b->st, strdup(json_object_get_string(rule)));
	r->output = out ? keep(b->st, out) : keep(b->st, strdup(rel));
	json_object *inp;
	if (json_object_object_get_ex(o, "input", &inp) && json_object_is_type(inp, json_type_array)) {
		size_t n = json_object_array_length(inp);
		r->input = (const char **)keep(b->st, calloc(n + 1, sizeof(*r->input)));
		for (size_t i = 0; r->input && i < n; i++) {
			json_object *v = json_object_array_get_idx(inp, i);
			if (json_object_is_type(v, json_type_string))
				r->input[r->ninput++] = keep(b->st, strdup(json_object_get_string(v)));
		}
	}
	r->start = json_object_object_get_ex(o, "starttime", &st) ? json_object_get_double(st) : 0;
	r->end = json_object_object_get_ex(o, "endtime", &en) ? json_object_get_double(en) : 0;
bad:
	json_object_put(o);
	return r->rule && r->output ? 0 : -1;
}

/* The script a Snakemake `script:` job runs: .snakemake/scripts/tmpXXXX.NAME
 * (a temporary file) gives NAME, the rule's script's file name; NULL */
static const char *smk_script(struct build *b, const char *cmd)
{
	const char *s = strstr(cmd, ".snakemake/scripts/tmp");
	if (!s)
		return NULL;
	s += strlen(".snakemake/scripts/tmp");
	const char *d = strchr(s, '.');
	if (!d || d[1] == 0)
		return NULL;
	d++;
	return keepn(b->st, d, strcspn(d, "'\" \t\n;"));
}

/* A job c (its life from..to, epoch s; have = the trace has a clock
 * anchor) and record r may be joined: r has c's exact (trimmed) shellcmd,
 * or for a script: job none; with a clock, r's starttime..endtime overlaps
 * c's life (1 s of slack: endtime is the output's mtime). 0 when not, else 1
 * and *d their distance: |start - starttime| + |end - endtime| (another
 * rule's script: 1e12 more), without a clock r's starttime. */
static int smk_pair(const struct cand *c, const char *cmd, const struct smk_rec *r, int have,
		    double from, double to, double *d)
{
	if (c->script ? r->cmd != NULL : !r->cmd || strcmp(r->cmd, cmd))
		return 0;
	/* a time outside 1970..5000 (a damaged record: 1e300) is no time:
	 * the record is joined by its command alone, after every timed one */
	int start_ok = r->start > 0 && r->start < TZA_WF_TIME_MAX;
	int end_ok = r->end > 0 && r->end < TZA_WF_TIME_MAX;
	if (have && start_ok) {
		if (r->start - 1 > to || (end_ok && r->end + 1 < from))
			return 0;
		*d = (r->start > from ? r->start - from : from - r->start) +
		     (!end_ok ? 0 : r->end > to ? r->end - to : to - r->end);
	} else {
		*d = start_ok ? r->start : TZA_WF_TIME_MAX;
	}
	if (c->script) {
		size_t rl = strlen(r->rule);
		if (strncmp(c->script, r->rule, rl) || (c->script[rl] && c->script[rl] != '.'))
			*d += 1e12; /* another rule's script: only when nothing else */
	}
	return 1;
}

struct smk_pair {
	double d;
	uint32_t c, r;
	const char *output;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct smk_pair *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return strcmp(x->output, y->output);
}

/* Name the Snakemake local jobs from the embedded metadata records: every
 * possible (job, record) pair, nearest first, each job and record once; a
 * job with several outputs has one record per output (same rule, shellcmd
 * and starttime): its first output names it, the others are used with it */
static void join_snakemake(struct build *b)
{
	const struct tza_task_input *in = b->in;
	uint32_t nr = 0, np = 0, capp = 0;
	struct smk_pair *pr = NULL;
	if (!(b->smk = calloc(in->natt + 1, sizeof(*b->smk)))) {
		b->st->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < in->natt; i++) {
		const struct tza_attachment *a = &in->att[i];
		const char *mt = a->name ? strstr(a->name, "/.snakemake/metadata/") : NULL;
		if (!mt)
			continue;
		if (!smk_parse(b, a, mt + strlen("/.snakemake/metadata/"), &b->smk[nr]))
			nr++;
	}
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		if (c->kind != TZA_TASK_SNAKEMAKE || !c->shellcmd)
			continue;
		char *cmd = trim_dup(c->shellcmd, strlen(c->shellcmd));
		if (!cmd)
			goto oom;
		c->script = smk_script(b, cmd);
		double from = 0, to = 0, d;
		if (in->has_realtime) {
			from = ((double)c->root->start_ns + (double)in->realtime_off_ns) / 1e9;
			to = ((double)tza_proc_end(b->m, c->root) + (double)in->realtime_off_ns) / 1e9;
		}
		for (uint32_t r = 0; r < nr; r++) {
			if (!smk_pair(c, cmd, &b->smk[r], in->has_realtime, from, to, &d))
				continue;
			if (np == capp) {
				capp = capp ? capp * 2 : 64;
				struct smk_pair *v = realloc(pr, capp * sizeof(*v));
				if (!v) {
					free(cmd);
					goto oom;
				}
				pr = v;
			}
			pr[np++] = (struct smk_pair){.d = d, .c = i, .r = r, .output = b->smk[r].output};
		}
		free(cmd);
	}
	if (np)
		qsort(pr, np, sizeof(*pr), cmp_pair);
	for (uint32_t i = 0; i < np; i++) {
		struct cand *c = &b->c[pr[i].c];
		struct smk_rec *hit = &b->smk[pr[i].r];
		if (c->rec || hit->used)
			continue;
		uint32_t n = 0;
		for (uint32_t r = 0; r < nr; r++) {
			struct smk_rec *o = &b->smk[r];
			if ((o->sib = o == hit ||
				      (hit->start > 0 && !o->used && o->start == hit->start &&
				       !strcmp(o->rule, hit->rule) &&
				       (o->cmd && hit->cmd ? !strcmp(o->cmd, hit->cmd)
							   : o->cmd == hit->cmd))))
				n++;
		}
		/* the job's outputs: its first, then the others in record order */
		c->outputs = (const char **)keep(b->st, calloc(n + 1, sizeof(*c->outputs)));
		if (c->outputs)
			c->outputs[c->noutputs++] = hit->output;
		for (uint32_t r = 0; r < nr; r++) {
			struct smk_rec *o = &b->smk[r];
			if (o->sib && o != hit && c->outputs)
				c->outputs[c->noutputs++] = o->output;
			if (o->sib)
				o->used = 1;
		}
		c->name = hit->rule;
		c->id = hit->output;
		c->rec = hit;
	}
	free(pr);
	return;
oom:
	free(pr);
	b->st->oom = 1;
}

/* A "key: value" line of a log block (indented), or NULL */
static const char *blk_val(char *l, const char *key)
{
	size_t n = strlen(key);
	l += strspn(l, " ");
	return !strncmp(l, key, n) && l[n] == ':' && l[n + 1] == ' ' ? l + n + 2 : NULL;
}

/* Parse the block after a "rule NAME:" / "Error in rule NAME:" line (text
 * d..end: its indented lines; an error's "shell:" is followed by the command
 * as is, then "(one of the commands exited...") into k; returns its end */
static const char *smk_blk_parse(struct build *b, const char *d, const char *end,
				 struct smk_blk *k)
{
	static const char shell_end[] = "\n        (one of the commands exited";
	const char *e = d;
	while (e < end && *e == ' ') {
		const char *nl = memchr(e, '\n', (size_t)(end - e));
		size_t n = nl ? (size_t)(nl - e) : (size_t)(end - e);
		char *l = keepn(b->st, e, n);
		const char *v, *se;
		if (!l)
			return end;
		e = nl ? nl + 1 : end;
		if ((v = blk_val(l, "output")))
			k->outputs = v;
		else if ((v = blk_val(l, "jobid")))
			k->jobid = v;
		else if ((v = blk_val(l, "wildcards")))
			k->wild = v;
		else if ((v = blk_val(l, "threads")))
			k->threads = v;
		else if ((v = blk_val(l, "resources")))
			k->res = v;
		else if (k->error && !strcmp(l, "    shell:") && e < end &&
			 (se = memmem(e, (size_t)(end - e), shell_end, strlen(shell_end)))) {
			k->cmd = keep(b->st, trim_dup(e, (size_t)(se - e)));
			nl = memchr(se + 1, '\n', (size_t)(end - se - 1));
			e = nl ? nl + 1 : end;
		}
	}
	return e;
}

/* The job and error blocks of the embedded .snakemake/log/ files (a run
 * without -q), in log order */
static void smk_log_read(struct build *b)
{
	for (uint32_t i = 0; i < b->in->natt; i++) {
		const struct tza_attachment *a = &b->in->att[i];
		if (!a->name || !strstr(a->name, "/.snakemake/log/"))
			continue;
		const char *d = (const char *)a->data, *end = d + a->len;
		while (d < end) {
			const char *nl = memchr(d, '\n', (size_t)(end - d));
			const char *next = nl ? nl + 1 : end;
			size_t n = (size_t)(next - d), skip = 0;
			int error = 0;
			if (!strncmp(d, "rule ", 5))
				skip = 5;
			else if (!strncmp(d, "localrule ", 10))
				skip = 10;
			else if (!strncmp(d, "checkpoint ", 11))
				skip = 11;
			else if (!strncmp(d, "Error in rule ", 14))
				skip = 14, error = 1;
			const char *colon = skip ? memchr(d, ':', n) : NULL;
			if (colon && colon > d + skip) {
				struct smk_blk *v = realloc(b->blk, (b->nblk + 1) * sizeof(*v));
				if (!v) {
					b->st->oom = 1;
					return;
				}
				b->blk = v;
				struct smk_blk *k = &v[b->nblk++];
				*k = (struct smk_blk){.error = error};
				k->rule = keepn(b->st, d + skip, (size_t)(colon - d - skip));
				next = smk_blk_parse(b, next, end, k);
			}
			d = next;
		}
	}
}

/* outputs ("a, b") has out as one of its items */
static int has_output(const char *outputs, const char *out)
{
	size_t il = strlen(out);
	for (const char *o = outputs; o && il;) {
		if (!strncmp(o, out, il) && (!o[il] || o[il] == ','))
			return 1;
		o = strstr(o, ", ");
		o = o ? o + 2 : NULL;
	}
	return 0;
}

/* Requested threads/memory/runtime and wildcards of a job block */
static void smk_blk_apply(struct cand *c, const struct smk_blk *k)
{
	if (k->wild)
		c->tag = k->wild;
	/* Snakemake writes threads only when not 1 */
	c->req_cpus = k->threads ? strtod(k->threads, NULL) : 1;
	smk_req(c, k->res);
}

/* mem_mib (else mem_mb, 10^6 bytes) and runtime (minutes) in a Snakemake
 * resources list "k=v, k=v" or "k=v k=v" */
static void smk_req(struct cand *c, const char *res)
{
	const char *mib = res ? strstr(res, "mem_mib=") : NULL, *mb = res ? strstr(res, "mem_mb=") : NULL;
	const char *rt = res ? strstr(res, "runtime=") : NULL;
	if (mib)
		c->req_mem = strtoull(mib + 8, NULL, 10) << 20;
	else if (mb)
		c->req_mem = strtoull(mb + 7, NULL, 10) * 1000000ULL;
	if (rt)
		c->req_time_ms = strtoull(rt + 8, NULL, 10) * 60000ULL;
}

/* Snakemake local jobs (indexes into the candidates cs) by rule, id,
 * start, pid */
static int cmp_attempt(const void *a, const void *b, void *cs)
{
	const struct cand *x = (const struct cand *)cs + *(const uint32_t *)a;
	const struct cand *y = (const struct cand *)cs + *(const uint32_t *)b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->id, y->id);
	if (!c && x->root->start_ns != y->root->start_ns)
		c = x->root->start_ns < y->root->start_ns ? -1 : 1;
	return c ? c : (x->root->pid > y->root->pid) - (x->root->pid < y->root->pid);
}

/* The Snakemake local jobs of one rule and id are attempts 1, 2... in start
 * order (retries:) */
static void smk_attempts(struct build *b)
{
	uint32_t *ix = malloc((b->nc + 1) * sizeof(*ix)), n = 0;
	if (!ix) {
		b->st->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < b->nc; i++)
		if (b->c[i].kind == TZA_TASK_SNAKEMAKE && b->c[i].shellcmd && b->c[i].name &&
		    b->c[i].id)
			ix[n++] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_attempt, b->c);
	for (uint32_t i = 0; i < n; i++) {
		struct cand *c = &b->c[ix[i]], *prev = i ? &b->c[ix[i - 1]] : NULL;
		c->attempt = prev && !strcmp(prev->name, c->name) && !strcmp(prev->id, c->id)
				     ? prev->attempt + 1
				     : 1;
	}
	free(ix);
}

/* The log's blocks: a job without a metadata record (it failed) takes the
 * rule, first output and jobid of the first unused "Error in rule" block
 * with its exact (trimmed) shell command, in start order; then every job
 * takes wildcards and requests from its job block (by jobid, else the
 * first block listing its output); attempts count the jobs of one rule and
 * output in start order. */
static void join_snakemake_log(struct build *b)
{
	smk_log_read(b);
	uint32_t unnamed = 0;
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		if (c->kind != TZA_TASK_SNAKEMAKE || !c->shellcmd || c->rec)
			continue;
		char *cmd = trim_dup(c->shellcmd, strlen(c->shellcmd));
		for (uint32_t x = 0; cmd && x < b->nblk; x++) {
			struct smk_blk *k = &b->blk[x];
			if (!k->error || k->used || !k->cmd || strcmp(k->cmd, cmd))
				continue;
			k->used = 1;
			c->name = k->rule;
			c->jobid = k->jobid;
			if (k->outputs)
				c->id = keepn(b->st, k->outputs, strcspn(k->outputs, ","));
			break;
		}
		free(cmd);
		if (!c->name)
			unnamed++;
	}
	if (unnamed)
		note(b->t, b->st,
		     "%u Snakemake job(s) without a .snakemake/metadata record in the trace: "
		     "named by the shell's first command",
		     unnamed);
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		if (c->kind != TZA_TASK_SNAKEMAKE || !c->id || !c->shellcmd)
			continue;
		const struct smk_blk *hit = NULL;
		for (uint32_t x = 0; x < b->nblk && !hit; x++) {
			const struct smk_blk *k = &b->blk[x];
			if (k->error || strcmp(k->rule, c->name))
				continue;
			if (c->jobid ? k->jobid && !strcmp(k->jobid, c->jobid)
				     : k->outputs && has_output(k->outputs, c->id))
				hit = k;
		}
		if (hit)
			smk_blk_apply(c, hit);
	}
	smk_attempts(b);
}

/* The attachment named DIR/FILE, or NULL */
static const struct tza_attachment *att_in(const struct tza_task_input *in, const char *dir,
					   const char *file)
{
	size_t dl = strlen(dir);
	for (uint32_t i = 0; i < in->natt; i++) {
		const char *n = in->att[i].name;
		if (n && !strncmp(n, dir, dl) && n[dl] == '/' && !strcmp(n + dl + 1, file))
			return &in->att[i];
	}
	return NULL;
}

/* Nextflow memory ("2 GB", "512 MB") in bytes; 0 when not understood */
static uint64_t nf_mem(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	while (*end == ' ')
		end++;
	static const char *const u[] = {"B", "KB", "MB", "GB", "TB", NULL};
	double f = 1;
	for (int i = 0; u[i]; i++, f *= 1024)
		if (!strcmp(end, u[i]))
			return v > 0 ? (uint64_t)(v * f) : 0;
	return 0;
}

/* Nextflow duration ("1h", "30m", "1d 2h", "1.5s", "250ms") in ms; 0 unknown */
static uint64_t nf_time(const char *s)
{
	double ms = 0;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		if (end == s)
			return 0;
		double f = !strncmp(end, "ms", 2) ? 1 : *end == 's' ? 1e3 : *end == 'm' ? 60e3
			 : *end == 'h' ? 3600e3 : *end == 'd' ? 86400e3 : 0;
		if (!f)
			return 0;
		ms += v * f;
		s = end + (!strncmp(end, "ms", 2) ? 2 : 1);
		while (*s == ' ')
			s++;
	}
	return (uint64_t)ms;
}

/* The short hash trace.txt shows ("ab/cdef12") is a prefix of the work dir's */
static int hash_match(const char *full, const char *shown)
{
	size_t n = strlen(shown);
	return n >= 4 && !strncmp(full, shown, n);
}

/* Field i of a trace.txt row, NULL when absent or "-" */
static const char *field(char *const *f, int i)
{
	return i >= 0 && strcmp(f[i], "-") ? f[i] : NULL;
}

/* Join the Nextflow tasks with one trace.txt (tab-separated, header first) */
static void join_trace(struct build *b, const struct tza_attachment *a)
{
	char *txt = strndup((const char *)a->data, a->len), *save = NULL;
	if (!txt) {
		b->st->oom = 1;
		return;
	}
	enum { C_HASH, C_NATIVE, C_STATUS, C_ATTEMPT, C_CPUS, C_MEM, C_TIME, C_TAG, NCOL };
	static const char *const names[NCOL] = {"hash", "native_id", "status", "attempt",
						"cpus", "memory", "time", "tag"};
	int col[NCOL], ncols = 0, bad = 0;
	uint32_t line = 0;
	for (int i = 0; i < NCOL; i++)
		col[i] = -1;
	for (char *l = strtok_r(txt, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[64];
		int nf = 0;
		line++;
		for (char *c = l, *t; nf < 64; c = t + 1) {
			f[nf++] = c;
			if (!(t = strchr(c, '\t')))
				break;
			*t = 0;
		}
		if (line == 1) {
			ncols = nf;
			for (int i = 0; i < nf; i++)
				for (int k = 0; k < NCOL; k++)
					if (!strcmp(f[i], names[k]))
						col[k] = i;
			if (col[C_HASH] < 0) {
				note(b->t, b->st, "'%s': no 'hash' column in its header: ignored",
				     a->name);
				break;
			}
			continue;
		}
		if (nf != ncols) {
			bad++;
			continue;
		}
		for (uint32_t i = 0; i < b->nc; i++) {
			struct cand *c = &b->c[i];
			if (c->kind != TZA_TASK_NEXTFLOW || !c->hash ||
			    !hash_match(c->hash, f[col[C_HASH]]))
				continue;
			const char *v;
			if ((v = field(f, col[C_NATIVE])))
				c->native_id = keep(b->st, strdup(v));
			if ((v = field(f, col[C_STATUS])))
				c->status = keep(b->st, strdup(v));
			if ((v = field(f, col[C_TAG])) && !c->tag)
				c->tag = keep(b->st, strdup(v));
			if ((v = field(f, col[C_ATTEMPT])))
				c->attempt = (uint32_t)strtoul(v, NULL, 10);
			if ((v = field(f, col[C_CPUS])))
				c->req_cpus = strtod(v, NULL);
			if ((v = field(f, col[C_MEM])))
				c->req_mem = nf_mem(v);
			if ((v = field(f, col[C_TIME])))
				c->req_time_ms = nf_time(v);
		}
	}
	if (bad)
		note(b->t, b->st, "'%s': %d row(s) without the header's %d columns%s: ignored",
		     a->name, bad, ncols, a->flags & TZA_ATT_TRUNCATED ? " (cut by the recorder)" : "");
	free(txt);
}

/* The directory of an absolute .command.sh that p or a descendant runs
 * (the wrapper launches it by its full path), or NULL */
static const char *nf_script_dir(struct build *b, struct tza_proc *p, int depth)
{
	const char *a = arg_named(tza_proc_image(p), ".command.sh");
	if (a && a[0] == '/')
		return keepn(b->st, a, (size_t)(base(a) - a - 1));
	for (struct tza_proc *k = p->first_child; k && depth < 4; k = k->next_sibling)
		if ((a = nf_script_dir(b, k, depth + 1)))
			return a;
	return NULL;
}

/* Nextflow: name and tag from the .command.run header, hash from the work
 * dir (.../xx/yyyy...), then the trace.txt join */
static void join_nextflow(struct build *b)
{
	const struct tza_task_input *in = b->in;
	uint32_t nameless = 0;
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		if (c->kind != TZA_TASK_NEXTFLOW)
			continue;
		if (!c->workdir)
			c->workdir = nf_script_dir(b, c->root, 0);
		const char *w = c->workdir;
		if (w) {
			const char *s = w + strlen(w);
			int slashes = 0;
			while (s > w && slashes < 2)
				if (*--s == '/')
					slashes++;
			if (slashes == 2)
				c->hash = s + 1;
		}
		const struct tza_attachment *h = w ? att_in(in, w, ".command.run") : NULL;
		const char *tagline = "# NEXTFLOW TASK: ";
		const char *d = h ? memmem(h->data, h->len, tagline, strlen(tagline)) : NULL;
		if (d) {
			d += strlen(tagline);
			const char *e = memchr(d, '\n', h->len - (size_t)(d - (const char *)h->data));
			size_t n = e ? (size_t)(e - d) : h->len - (size_t)(d - (const char *)h->data);
			const char *par = memchr(d, '(', n);
			if (par && d[n - 1] == ')' && par > d) {
				c->name = keepn(b->st, d, (size_t)(par - d - (par[-1] == ' ')));
				c->tag = keepn(b->st, par + 1, (size_t)(d + n - par - 2));
			} else {
				c->name = keepn(b->st, d, n);
			}
		} else {
			nameless++;
		}
		c->id = c->hash;
	}
	if (nameless)
		note(b->t, b->st,
		     "%u Nextflow task(s) without a '# NEXTFLOW TASK:' header in the trace: "
		     "named by their command",
		     nameless);
	for (uint32_t i = 0; i < in->natt; i++) {
		const char *bn = base(in->att[i].name);
		if (bn && (!strncmp(bn, "trace", 5) || !strncmp(bn, "execution_trace", 15)) &&
		    strlen(bn) > 4 && !strcmp(bn + strlen(bn) - 4, ".txt"))
			join_trace(b, &in->att[i]);
	}
}

/* ------------------------------------------------------------ numbers */

static int cmp_task(const void *a, const void *b)
{
	const struct tza_task *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
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
		k->rchar += p->rchar;
		k->wchar += p->wchar;
		k->syscr += p->syscr;
		k->syscw += p->syscw;
		k->read_bytes += p->read_bytes;
		k->write_bytes += p->write_bytes;
		k->exit_rss_sum_kib += p->maxrss_kib;
		if (p->maxrss_kib > k->exit_rss_max_kib)
			k->exit_rss_max_kib = p->maxrss_kib;
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
		if (tza_procs_peak_rss_of(mem + o, cnt[i], &k->peak_rss_kib, &k->peak_rss_ns) < 0)
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
	if (is_shell(tza_proc_naming_image(p))) {
		if (p->first_child)
			return tza_proc_key(p->first_child, TZA_BY_COMMAND);
		const char *s = c->shellcmd;
		if (s && *(s += strspn(s, " \t\n")))
			return keepn(b->st, s, strcspn(s, " \t\n;|&<>()"));
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
		k->start_ns = c->root->start_ns;
		k->name = c->name ? c->name : cmd_name(b, c);
		k->id = c->id ? c->id : keep(st, strdup(tza_proc_id(c->root, id)));
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
		}
		if (c->kind == TZA_TASK_SLURM || c->kind == TZA_TASK_CONTAINER) {
			k->job = c->job;
			k->container = c->container;
		} else {
			char *j, *ct;
			cg_ids(b->in, c->root, &j, &ct);
			k->job = j ? keep(st, j) : NULL;
			k->container = ct ? keep(st, ct) : NULL;
		}
		if (b->in->cgroup && e && e->memcg_id)
			cg = b->in->cgroup(b->in->cgroup_ctx, TZA_CG_V1_MEMORY, e->memcg_id);
		if (cg)
			k->mem_limit_bytes = cg->mem_limit_bytes;
		if (b->in->cgroup && c->root->cgroup_id &&
		    (cg = b->in->cgroup(b->in->cgroup_ctx, TZA_CG_V2, c->root->cgroup_id))) {
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
		if (find_roots(&b, ps) < 0)
			goto out;
		if (b.have_re)
			break; /* --task alone names the tasks */
	}
	join_snakemake(&b);
	join_snakemake_log(&b);
	join_nextflow(&b);
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
