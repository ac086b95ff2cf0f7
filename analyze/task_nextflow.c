/* SPDX-License-Identifier: BSD-2-Clause */
/* task_nextflow.c - Nextflow tasks joined with the run's trace.txt
 * attachment (by work directory hash): names, tags, requests, status */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "report.h"
#include "task_int.h"

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
				task_note(b->t, b->st, "'%s': no 'hash' column in its header: ignored",
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
				c->native_id = task_keep(b->st, strdup(v));
			if ((v = field(f, col[C_STATUS])))
				c->status = task_keep(b->st, strdup(v));
			if ((v = field(f, col[C_TAG])) && !c->tag)
				c->tag = task_keep(b->st, strdup(v));
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
		task_note(b->t, b->st, "'%s': %d row(s) without the header's %d columns%s: ignored",
		     a->name, bad, ncols, a->flags & TZA_ATT_TRUNCATED ? " (cut by the recorder)" : "");
	free(txt);
}

/* The directory of an absolute .command.sh that p or a descendant runs
 * (the wrapper launches it by its full path), or NULL */
static const char *nf_script_dir(struct build *b, struct tza_proc *p, int depth)
{
	const char *a = task_arg_named(tza_proc_image(p), ".command.sh");
	if (a && a[0] == '/')
		return task_keepn(b->st, a, (size_t)(task_base(a) - a - 1));
	for (struct tza_proc *k = p->first_child; k && depth < 4; k = k->next_sibling)
		if ((a = nf_script_dir(b, k, depth + 1)))
			return a;
	return NULL;
}

/* Nextflow: name and tag from the .command.run header, hash from the work
 * dir (.../xx/yyyy...), then the trace.txt join */
void task_join_nextflow(struct build *b)
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
				c->name = task_keepn(b->st, d, (size_t)(par - d - (par[-1] == ' ')));
				c->tag = task_keepn(b->st, par + 1, (size_t)(d + n - par - 2));
			} else {
				c->name = task_keepn(b->st, d, n);
			}
		} else {
			nameless++;
		}
		c->id = c->hash;
	}
	if (nameless)
		task_note(b->t, b->st,
		     "%u Nextflow task(s) without a '# NEXTFLOW TASK:' header in the trace: "
		     "named by their command",
		     nameless);
	for (uint32_t i = 0; i < in->natt; i++) {
		const char *bn = task_base(in->att[i].name);
		if (bn && (!strncmp(bn, "trace", 5) || !strncmp(bn, "execution_trace", 15)) &&
		    strlen(bn) > 4 && !strcmp(bn + strlen(bn) - 4, ".txt"))
			join_trace(b, &in->att[i]);
	}
}

