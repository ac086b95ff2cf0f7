/* SPDX-License-Identifier: BSD-2-Clause */
/* cgtable.c - the trace's cgroup table: one EV_CGROUP per (hierarchy, id). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/vec.h"
#include "record.h"
#include "schema.h"

/* v1 memory.limit_in_bytes reads PAGE_COUNTER_MAX pages when unlimited
 * (9223372036854771712 with 4 KiB pages): anything from 2^62 is "none" */
#define CG_UNLIMITED (1ULL << 62)
#define CG_WALK_DEPTH 64 /* directory levels walked below a mount */

/* "\040" and friends of /proc/self/mountinfo, in place */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* the comma-separated super options of a mount hold tok */
static int has_opt(const char *opts, const char *tok)
{
	char buf[512], *save = NULL;
	if (strlen(opts) >= sizeof(buf))
		return 0;
	strcpy(buf, opts);
	for (char *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save))
		if (!strcmp(o, tok))
			return 1;
	return 0;
}

static void set_mount(struct cg_hier *h, const char *mnt, const char *root)
{
	if (h->mnt)
		return; /* the first mount of a hierarchy wins */
	h->mnt = strdup(mnt);
	h->root = strcmp(root, "/") ? strdup(root) : NULL;
}

int cgt_init(struct cgtable *t, const char *mountinfo)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		char *fld[6], *save = NULL, *fstype, *super = NULL;
		int n = 0;
		line[strcspn(line, "\n")] = 0;
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = 0;
		for (char *tok = strtok_r(line, " ", &save); tok && n < 6;
		     tok = strtok_r(NULL, " ", &save))
			fld[n++] = tok;
		fstype = strtok_r(sep + 3, " ", &save);
		if (fstype && strtok_r(NULL, " ", &save)) /* SOURCE */
			super = strtok_r(NULL, " ", &save);
		if (n < 6 || !fstype)
			continue;
		unescape(fld[3]);
		unescape(fld[4]);
		if (!strcmp(fstype, "cgroup2"))
			set_mount(&t->h[EV_CG_V2], fld[4], fld[3]);
		else if (!strcmp(fstype, "cgroup") && super && has_opt(super, "memory"))
			set_mount(&t->h[EV_CG_V1_MEMORY], fld[4], fld[3]);
		else if (!strcmp(fstype, "cgroup") && super && has_opt(super, "cpu"))
			set_mount(&t->h[EV_CG_V1_CPU], fld[4], fld[3]);
	}
	free(line);
	fclose(f);
	return 0;
}

int cgt_memcg_v1(const struct cgtable *t)
{
	return t->h[EV_CG_V1_MEMORY].mnt != NULL;
}

static void cache_clear(struct cg_hier *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->ent[i].path);
	free(h->ent);
	h->ent = NULL;
	h->n = h->cap = 0;
}

void cgt_free(struct cgtable *t)
{
	for (int i = 0; i < CG_NHIER; i++) {
		cache_clear(&t->h[i]);
		free(t->h[i].mnt);
		free(t->h[i].root);
	}
	hmap_free(&t->seen);
	for (size_t i = 0; i < t->nkept; i++)
		free(t->kept[i]);
	free(t->kept);
	memset(t, 0, sizeof(*t));
}

static int cache_add(struct cg_hier *h, uint64_t ino, const char *path)
{
	if (VEC_ROOM(h->ent, h->n, h->cap, 64))
		return -1;
	char *p = strdup(path);
	if (!p)
		return -1;
	h->ent[h->n++] = (struct cg_ent){ino, p};
	return 0;
}

/* Every directory under dfd (its path rel, "" for the mount) into the cache */
static int walk(struct cg_hier *h, int dfd, char *rel, size_t len, size_t cap, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		size_t nl = strlen(de->d_name);
		if (len + 1 + nl + 1 > cap)
			continue; /* deeper than a path the record can hold */
		rel[len] = '/';
		memcpy(rel + len + 1, de->d_name, nl + 1);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			rc = cache_add(h, (uint64_t)st.st_ino, rel);
			int sub = depth < CG_WALK_DEPTH && rc == 0
					  ? openat(dirfd(d), de->d_name,
						   O_RDONLY | O_DIRECTORY | O_CLOEXEC)
					  : -1;
			if (sub >= 0)
				rc = walk(h, sub, rel, len + 1 + nl, cap, depth + 1);
		}
		rel[len] = 0;
	}
	closedir(d);
	return rc;
}

/* Rebuild h's id -> path cache from its mount. 0, or -1 out of memory. */
static int rewalk(struct cg_hier *h)
{
	static char rel[EV_PATH_MAX];
	struct stat st;
	cache_clear(h);
	h->walks++;
	if (stat(h->mnt, &st) < 0)
		return 0;
	if (cache_add(h, (uint64_t)st.st_ino, "") < 0)
		return -1;
	int dfd = open(h->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	rel[0] = 0;
	return walk(h, dfd, rel, 0, sizeof(rel), 0);
}

static const char *cache_find(const struct cg_hier *h, uint64_t id)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->ent[i].ino == id)
			return h->ent[i].path;
	return NULL;
}

/* the first line of mnt/rel/file as text, or -1 */
static int read_small(const struct cg_hier *h, const char *rel, const char *file, char *buf,
		      size_t cap)
{
	char p[EV_PATH_MAX + 64];
	if ((size_t)snprintf(p, sizeof(p), "%s%s/%s", h->mnt, rel, file) >= sizeof(p))
		return -1;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* a decimal number, the whole string; 0 when not one */
static uint64_t dec(const char *s)
{
	char *e;
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 10);
	return errno || *e ? 0 : v;
}

void cgt_read_limits(const struct cg_hier *h, uint32_t hier, const char *rel, struct ev_cgroup *e)
{
	char b[128];
	if (hier == EV_CG_V2) {
		if (read_small(h, rel, "memory.max", b, sizeof(b)) == 0)
			e->mem_limit_bytes = dec(b); /* "max": 0 */
		if (read_small(h, rel, "cpu.max", b, sizeof(b)) == 0) {
			char *sp = strchr(b, ' ');
			if (sp) {
				*sp = 0;
				e->cpu_quota_us = dec(b);
				e->cpu_period_us = e->cpu_quota_us ? dec(sp + 1) : 0;
			}
		}
	} else if (hier == EV_CG_V1_MEMORY) {
		if (read_small(h, rel, "memory.limit_in_bytes", b, sizeof(b)) == 0) {
			uint64_t v = dec(b);
			e->mem_limit_bytes = v >= CG_UNLIMITED ? 0 : v;
		}
	} else if (hier == EV_CG_V1_CPU) {
		if (read_small(h, rel, "cpu.cfs_quota_us", b, sizeof(b)) == 0)
			e->cpu_quota_us = dec(b); /* "-1": none, 0 */
		if (e->cpu_quota_us && read_small(h, rel, "cpu.cfs_period_us", b, sizeof(b)) == 0)
			e->cpu_period_us = dec(b);
		if (!e->cpu_period_us)
			e->cpu_quota_us = 0;
	}
}

/* (hier, id) seen before; else remembered. -1 out of memory. */
static int seen(struct cgtable *t, uint32_t hier, uint64_t id)
{
	int added;
	if (!hmap_put(&t->seen, id << 2 | hier, &added)) /* ids are far below 2^62 */
		return -1;
	return !added;
}

void cgt_keep(struct cgtable *t, const struct ev_cgroup *e)
{
	if (t->nkept >= CG_RESTATE_MAX || e->hdr.type != EV_CGROUP || e->hdr.size < sizeof(*e))
		return;
	if (!t->kept && !(t->kept = calloc(CG_RESTATE_MAX, sizeof(*t->kept))))
		return;
	void *c = malloc(e->hdr.size);
	if (!c)
		return;
	memcpy(c, e, e->hdr.size);
	t->kept[t->nkept++] = c;
}

size_t cgt_note(struct cgtable *t, uint32_t hier, uint64_t id, uint64_t ts_ns, void *buf,
		size_t cap)
{
	if (hier >= CG_NHIER || !id || !t->h[hier].mnt || seen(t, hier, id) != 0)
		return 0;
	struct cg_hier *h = &t->h[hier];
	const char *rel = cache_find(h, id);
	if (!rel && rewalk(h) == 0)
		rel = cache_find(h, id);
	struct ev_cgroup *e = buf;
	if (cap < sizeof(*e))
		return 0;
	memset(e, 0, sizeof(*e));
	e->hdr.type = EV_CGROUP;
	e->hdr.ts_ns = ts_ns;
	e->id = id;
	e->hier = hier;
	char path[2 * EV_PATH_MAX];
	size_t len = 0;
	if (!rel) {
		e->flags |= EV_CGROUP_UNRESOLVED;
	} else {
		cgt_read_limits(h, hier, rel, e);
		/* the path inside the hierarchy: the mount's root, then rel */
		len = (size_t)snprintf(path, sizeof(path), "%s%s", h->root ? h->root : "", rel);
		if (len >= sizeof(path))
			len = sizeof(path) - 1;
		if (!len) {
			path[0] = '/';
			len = 1;
		}
		if (len > EV_PATH_MAX - 1) {
			len = EV_PATH_MAX - 1;
			e->flags |= EV_CGROUP_PATH_TRUNCATED;
		}
	}
	if (cap < sizeof(*e) + len)
		return 0;
	memcpy((char *)buf + sizeof(*e), path, len);
	e->path_len = (uint16_t)len;
	e->hdr.size = (uint32_t)(sizeof(*e) + len);
	return e->hdr.size;
}

int cgt_state(struct cgtable *t, tz_writer *w, uint64_t ts_ns)
{
	for (size_t i = 0; i < t->nkept; i++) {
		struct ev_cgroup *e = t->kept[i];
		e->hdr.ts_ns = ts_ns;
		int rc = tracer_event_write_state(w, e, e->hdr.size);
		if (rc < 0)
			return rc == -1 ? TZ_ERR_INVAL : rc;
	}
	return 0;
}
