/* SPDX-License-Identifier: BSD-2-Clause */
/* attach.c - the workflow managers' records embedded at the stop (EV_ATTACH). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "record/schema.h"

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	return h;
}

/* The directory entry for cwd[0..len), added when new; NULL when the set is
 * full or out of memory */
static struct att_dir *dir_get(struct attset *s, const char *cwd, size_t len)
{
	if (!s->slots) {
		s->slots = calloc(ATT_DIRS_MAX * 2, sizeof(*s->slots));
		s->d = calloc(ATT_DIRS_MAX, sizeof(*s->d));
		if (!s->slots || !s->d)
			return NULL;
	}
	size_t k = fnv(cwd, len) & (ATT_DIRS_MAX * 2 - 1);
	while (s->slots[k]) {
		struct att_dir *d = &s->d[s->slots[k] - 1];
		if (strlen(d->path) == len && !memcmp(d->path, cwd, len))
			return d;
		k = (k + 1) & (ATT_DIRS_MAX * 2 - 1);
	}
	if (s->n == ATT_DIRS_MAX) {
		s->dirs_dropped++;
		return NULL;
	}
	char *p = strndup(cwd, len);
	if (!p)
		return NULL;
	s->d[s->n] = (struct att_dir){p, 0};
	s->slots[k] = (uint32_t)++s->n;
	return &s->d[s->n - 1];
}

/* basename of the first string of a blob */
static const char *base(const char *p, size_t len, size_t *bl)
{
	size_t n = strnlen(p, len);
	const char *b = p;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '/')
			b = p + i + 1;
	*bl = n - (size_t)(b - p);
	return b;
}

static int is(const char *b, size_t bl, const char *word)
{
	return bl == strlen(word) && !memcmp(b, word, bl);
}

void att_note_exec(struct attset *s, const void *rec, size_t size)
{
	const void *fixed;
	uint32_t fl;
	struct tz_blob b[TRACER_MAX_BLOBS];
	const struct ev_hdr *h = rec;
	int nb = tracer_event_split(rec, size, &fixed, &fl, b);
	if (h->type != EV_EXEC || nb < 5 || !b[4].len || *(const char *)b[4].data != '/')
		return;
	const struct ev_exec *e = rec;
	if (e->flags & EV_EXEC_CWD_TRUNCATED)
		return; /* not the real directory */
	struct att_dir *d = dir_get(s, b[4].data, b[4].len);
	if (!d)
		return;
	/* a Nextflow launcher: `nextflow ...`, or the JVM it runs (java with a
	 * nextflow class path or main class) */
	size_t bl;
	const char *a0 = b[3].len ? base(b[3].data, b[3].len, &bl) : NULL;
	if (a0 && is(a0, bl, "nextflow"))
		d->flags |= ATT_NEXTFLOW;
	else if (a0 && is(a0, bl, "java") && memmem(b[3].data, b[3].len, "nextflow", 8))
		d->flags |= ATT_NEXTFLOW;
	const char *sc = b[2].len ? base(b[2].data, b[2].len, &bl) : NULL;
	if (sc && is(sc, bl, "nextflow"))
		d->flags |= ATT_NEXTFLOW;
}

void att_free(struct attset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->d[i].path);
	free(s->d);
	free(s->slots);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec;
}

/* One file as an EV_ATTACH: its first min(size, cap, room left) bytes */
static int attach_file(struct attset *s, const char *path, uint64_t cap, const struct att_ctx *c)
{
	size_t nl = strlen(path);
	if (nl > EV_PATH_MAX - 1 || s->total >= c->max_total)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	uint64_t want = (uint64_t)st.st_size, room = c->max_total - s->total;
	uint32_t flags = 0;
	if (want > cap) {
		want = cap;
		flags |= EV_ATTACH_TRUNCATED;
	}
	if (want > room) {
		want = room;
		flags |= EV_ATTACH_TRUNCATED;
	}
	size_t need = sizeof(struct ev_attach) + nl + want;
	if (need > s->bufcap) {
		uint8_t *nb = realloc(s->buf, need);
		if (!nb) {
			close(fd);
			return -1;
		}
		s->buf = nb;
		s->bufcap = need;
	}
	struct ev_attach *e = (struct ev_attach *)s->buf;
	memset(e, 0, sizeof(*e));
	memcpy(s->buf + sizeof(*e), path, nl);
	uint64_t got = 0;
	while (got < want) {
		ssize_t n = read(fd, s->buf + sizeof(*e) + nl + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shrank: what was there */
		got += (uint64_t)n;
	}
	close(fd);
	e->hdr.type = EV_ATTACH;
	e->hdr.ts_ns = c->ts_ns;
	e->hdr.size = (uint32_t)(sizeof(*e) + nl + got);
	e->mtime_ns = mtime_ns(&st);
	e->size = (uint64_t)st.st_size;
	e->data_len = (uint32_t)got;
	e->flags = flags;
	e->name_len = (uint16_t)nl;
	s->total += got;
	s->files++;
	if (flags)
		s->truncated++;
	return c->emit(c->ctx, s->buf, e->hdr.size);
}

/* dir/name fits in out */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
	return (size_t)snprintf(out, cap, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < cap
		       ? 0
		       : -1;
}

/*
 * Every regular file of dir whose name starts with prefix and ends with
 * suffix, modified at or after since: all of them (newest_only 0), or the
 * newest one. Names are taken in sorted order (a stable file).
 */
static int attach_dir(struct attset *s, const char *dir, const char *prefix, const char *suffix,
		      int newest_only, const struct att_ctx *c)
{
	struct dirent **v = NULL;
	int n = scandir(dir, &v, NULL, alphasort), rc = 0, best = -1;
	uint64_t best_t = 0;
	char p[EV_PATH_MAX];
	size_t pl = strlen(prefix), sl = strlen(suffix);
	for (int i = 0; i < n && rc == 0; i++) {
		const char *nm = v[i]->d_name;
		size_t l = strlen(nm);
		struct stat st;
		if (nm[0] == '.' && (!pl || prefix[0] != '.'))
			continue;
		if (l < pl + sl || strncmp(nm, prefix, pl) || strcmp(nm + l - sl, suffix))
			continue;
		if (join(p, sizeof(p), dir, nm) || lstat(p, &st) || !S_ISREG(st.st_mode) ||
		    mtime_ns(&st) < c->since_ns)
			continue;
		if (newest_only) {
			if (best < 0 || mtime_ns(&st) >= best_t) {
				best = i;
				best_t = mtime_ns(&st);
			}
			continue;
		}
		rc = attach_file(s, p, ATT_FILE_MAX, c);
	}
	if (rc == 0 && best >= 0 && join(p, sizeof(p), dir, v[best]->d_name) == 0)
		rc = attach_file(s, p, ATT_FILE_MAX, c);
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return rc;
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return n > 0;
}

/* .../xx/yyyyyy... (2 hex digits, then 6+ hex digits): a Nextflow task dir */
static int nf_task_dir(const char *d)
{
	const char *b = strrchr(d, '/');
	if (!b || b == d)
		return 0;
	const char *pe = b, *pb = pe - 1;
	while (pb > d && *pb != '/')
		pb--;
	return strlen(b + 1) >= 6 && is_hex(b + 1, strlen(b + 1)) && pe - pb - 1 == 2 &&
	       is_hex(pb + 1, 2);
}

int att_collect(struct attset *s, const struct att_ctx *c)
{
	char p[EV_PATH_MAX];
	struct stat st;
	int rc = 0;
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		const char *d = s->d[i].path;
		/* Snakemake: the working directory of a run holds .snakemake */
		if (join(p, sizeof(p), d, ".snakemake") == 0 && lstat(p, &st) == 0 &&
		    S_ISDIR(st.st_mode) && !(s->d[i].flags & ATT_DONE_SNAKEMAKE)) {
			s->d[i].flags |= ATT_DONE_SNAKEMAKE;
			if (join(p, sizeof(p), d, ".snakemake/metadata") == 0)
				rc = attach_dir(s, p, "", "", 0, c);
			if (rc == 0 && join(p, sizeof(p), d, ".snakemake/log") == 0)
				rc = attach_dir(s, p, "", ".log", 1, c);
		}
		/* Nextflow: a task's work dir, and the launch dir's traces */
		if (rc == 0 && nf_task_dir(d) && join(p, sizeof(p), d, ".command.run") == 0 &&
		    lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = attach_file(s, p, ATT_COMMAND_RUN_MAX, c);
			if (rc == 0 && join(p, sizeof(p), d, ".exitcode") == 0)
				rc = attach_file(s, p, ATT_FILE_MAX, c);
		}
		if (rc == 0 && (s->d[i].flags & ATT_NEXTFLOW)) {
			rc = attach_dir(s, d, "trace", ".txt", 0, c);
			if (rc == 0 && join(p, sizeof(p), d, "pipeline_info") == 0)
				rc = attach_dir(s, p, "execution_trace", ".txt", 0, c);
		}
	}
	return rc;
}
