/* SPDX-License-Identifier: BSD-2-Clause */
/* task_snakemake.c - Snakemake tasks joined with the workflow's records:
 * its .snakemake/metadata attachments (by command, then by output) and its
 * log (job ids, resources, failures, attempts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analyze.h"
#include "common/cmp.h"
#include "report.h"
#include "task_int.h"

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
		task_note(b->t, b->st, "'%s': not a JSON object at byte %zu (%s%s): ignored", a->name,
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
		if (!(r->cmd = task_keep(b->st, task_trim_dup(c, strlen(c)))))
			goto bad;
	}
	char *out = b64dec(rel);
	r->rule = task_keep(b->st, strdup(json_object_get_string(rule)));
	r->output = out ? task_keep(b->st, out) : task_keep(b->st, strdup(rel));
	json_object *inp;
	if (json_object_object_get_ex(o, "input", &inp) && json_object_is_type(inp, json_type_array)) {
		size_t n = json_object_array_length(inp);
		r->input = (const char **)task_keep(b->st, calloc(n + 1, sizeof(*r->input)));
		for (size_t i = 0; r->input && i < n; i++) {
			json_object *v = json_object_array_get_idx(inp, i);
			if (json_object_is_type(v, json_type_string))
				r->input[r->ninput++] = task_keep(b->st, strdup(json_object_get_string(v)));
		}
	}
	json_object *jh;
	if (json_object_object_get_ex(o, "job_hash", &jh) && json_object_is_type(jh, json_type_int)) {
		r->job_hash = json_object_get_int64(jh);
		r->has_hash = 1;
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
	return task_keepn(b->st, d, strcspn(d, "'\" \t\n;"));
}

/* A job c (its life from..to, epoch s; have = the trace has a clock
 * anchor) and record r may be joined: r has c's exact (trimmed) shellcmd,
 * or for a script: job none, or with cmd NULL (a cluster job without a
 * shell) r's rule is c's name; with a clock, r's starttime..endtime overlaps
 * c's life (1 s of slack: endtime is the output's mtime). 0 when not, else 1
 * and *d their distance: |start - starttime| + |end - endtime| (another
 * rule's script: 1e12 more), without a clock r's starttime. */
static int smk_pair(const struct cand *c, const char *cmd, const struct smk_rec *r, int have,
		    double from, double to, double *d)
{
	if (!cmd ? strcmp(r->rule, c->name)
		 : c->script ? r->cmd != NULL : !r->cmd || strcmp(r->cmd, cmd))
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
	CMP_RET(x->d, y->d);
	CMP_RET(x->c, y->c);
	return strcmp(x->output, y->output);
}

/* Name the Snakemake jobs (local ones, and cluster jobs by their child shell) from the embedded metadata records: every
 * possible (job, record) pair, nearest first, each job and record once; a
 * job with several outputs has one record per output (same rule, shellcmd
 * and job_hash, else starttime): its smallest output names it, the others
 * are used with it */
void task_join_snakemake(struct build *b)
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
		if (!smk_parse(b, a, mt + strlen("/.snakemake/metadata/"), &b->smk[nr])) {
			b->smk[nr].dir = task_keepn(b->st, a->name, (size_t)(mt - a->name));
			nr++;
		}
	}
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		const char *sc = c->shellcmd ? c->shellcmd : c->childcmd;
		/* a cluster job without a shell (run:, script:): by its rule
		 * and time, so only with a clock anchor */
		int by_rule = !sc && c->name && in->has_realtime;
		if (c->kind != TZA_TASK_SNAKEMAKE || (!sc && !by_rule))
			continue;
		char *cmd = sc ? task_trim_dup(sc, strlen(sc)) : NULL;
		if (sc && !cmd)
			goto oom;
		c->script = cmd ? smk_script(b, cmd) : NULL;
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
		/* the job's other records: the same job_hash (Snakemake writes
		 * each output's own starttime, ms apart), else without one the
		 * same starttime; always the same rule and shellcmd */
		uint32_t n = 0;
		const struct smk_rec *first = hit; /* the smallest output */
		for (uint32_t r = 0; r < nr; r++) {
			struct smk_rec *o = &b->smk[r];
			int same_job = o->has_hash && hit->has_hash ? o->job_hash == hit->job_hash
								    : hit->start > 0 && o->start == hit->start;
			if ((o->sib = o == hit ||
				      (!o->used && same_job && !strcmp(o->rule, hit->rule) &&
				       (o->cmd && hit->cmd ? !strcmp(o->cmd, hit->cmd)
							   : o->cmd == hit->cmd)))) {
				n++;
				if (strcmp(o->output, first->output) < 0)
					first = o;
			}
		}
		/* the job's outputs: its smallest, then the others in record order */
		c->outputs = (const char **)task_keep(b->st, calloc(n + 1, sizeof(*c->outputs)));
		if (c->outputs)
			c->outputs[c->noutputs++] = first->output;
		for (uint32_t r = 0; r < nr; r++) {
			struct smk_rec *o = &b->smk[r];
			if (o->sib && o != first && c->outputs)
				c->outputs[c->noutputs++] = o->output;
			if (o->sib)
				o->used = 1;
		}
		c->name = hit->rule;
		c->id = first->output;
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
		char *l = task_keepn(b->st, e, n);
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
			k->cmd = task_keep(b->st, task_trim_dup(e, (size_t)(se - e)));
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
				k->rule = task_keepn(b->st, d + skip, (size_t)(colon - d - skip));
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
	task_smk_req(c, k->res);
}

/* mem_mib (else mem_mb, 10^6 bytes) and runtime (minutes) in a Snakemake
 * resources list "k=v, k=v" or "k=v k=v" */
void task_smk_req(struct cand *c, const char *res)
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
void task_join_snakemake_log(struct build *b)
{
	smk_log_read(b);
	uint32_t unnamed = 0;
	for (uint32_t i = 0; i < b->nc; i++) {
		struct cand *c = &b->c[i];
		if (c->kind != TZA_TASK_SNAKEMAKE || !c->shellcmd || c->rec)
			continue;
		char *cmd = task_trim_dup(c->shellcmd, strlen(c->shellcmd));
		for (uint32_t x = 0; cmd && x < b->nblk; x++) {
			struct smk_blk *k = &b->blk[x];
			if (!k->error || k->used || !k->cmd || strcmp(k->cmd, cmd))
				continue;
			k->used = 1;
			c->name = k->rule;
			c->jobid = k->jobid;
			if (k->outputs)
				c->id = task_keepn(b->st, k->outputs, strcspn(k->outputs, ","));
			break;
		}
		free(cmd);
		if (!c->name)
			unnamed++;
	}
	if (unnamed)
		task_note(b->t, b->st,
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
