/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fleet_rewrite.c - a run on several hosts made anew host by host (slice,
 * recover of a multi-host trace): each host trace written by the command's
 * own single-trace code into a hidden file beside OUT, then those files
 * copied byte for byte into OUT as the members of one multi-host trace
 * (FORMAT.md section 18). The hidden files are removed whatever happens,
 * also on SIGINT or SIGTERM meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "fleet.h"
#include "sigclean.h"

/* One host's hidden file. */
struct part {
	char tmp[4200]; /* "" none */
	int kept;	/* holds a trace for OUT */
	tz_multi *mt;	/* tmp opened, for its bytes */
};

/* The hidden files of the rewrite under way, removed on SIGINT/SIGTERM
 * (sigclean.h). */
struct live {
	struct part *p;
	size_t n;
};

static void unlink_parts(void *arg)
{
	const struct live *l = arg;
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].tmp[0])
			unlink(l->p[i].tmp);
}

/* A hidden file beside out for host i. 0, or -1 after one line. */
static int make_tmp(const char *cmd, const char *out, size_t i, struct part *p)
{
	const char *slash = strrchr(out, '/');
	int dl = slash ? (int)(slash - out) : 1;
	snprintf(p->tmp, sizeof(p->tmp), "%.*s/.%s.%s%zu.XXXXXX", dl, slash ? out : ".",
		 slash ? slash + 1 : out, cmd, i);
	int fd = mkstemp(p->tmp);
	if (fd < 0) {
		tza_err("'%s': cannot create: %m", out);
		p->tmp[0] = 0;
		return -1;
	}
	close(fd);
	return 0;
}

/* The kept files as members of out. 0, or -1 after one line. */
static int write_out(const struct tza_rewrite *w, const struct tza_fleet *f, struct part *p,
		     size_t kept)
{
	struct tz_merge_src *src = calloc(kept ? kept : 1, sizeof(*src));
	size_t k = 0;
	if (!src) {
		tza_err("out of memory");
		return -1;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (!p[i].kept)
			continue;
		int rc = tz_multi_open(&p[i].mt, p[i].tmp, NULL);
		if (rc < 0 || tz_multi_is_container(p[i].mt) || tz_multi_count(p[i].mt) != 1) {
			tza_err("%s: '%s': %s", w->cmd, p[i].tmp,
				rc < 0 ? tz_multi_errmsg(p[i].mt) : "not one trace");
			free(src);
			return -1;
		}
		const struct tz_member *me = tz_multi_member(p[i].mt, 0);
		src[k++] = (struct tz_merge_src){.data = me->data,
						 .len = me->len,
						 .uuid = me->uuid,
						 .boot_id = me->boot_id,
						 .flags = w->mark_partial && f->h[i].partial
							      ? TZ_MEMBER_PARTIAL
							      : 0,
						 .source = w->no_source ? NULL : tza_fleet_source(f, i),
						 /* what the new bytes say (a redacted
						    rewrite's masked one) */
						 .hostname = me->hostname};
	}
	int rc = tza_merge_write(w->cmd, w->out, w->force, src, k, w->extra, w->nextra);
	free(src);
	return rc;
}

int tza_rewrite_out_ok(const char *out, int force)
{
	struct stat st;
	if (lstat(out, &st))
		return 0;
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		tza_err_not_file(out, "a trace");
		return -1;
	}
	if (!force) {
		tza_err_exists(out, "-f");
		return -1;
	}
	return 0;
}

int tza_fleet_rewrite(const struct tza_rewrite *w, const struct tza_fleet *f, size_t *kept)
{
	struct part *p = calloc(f->n ? f->n : 1, sizeof(*p));
	int rc = -1;
	*kept = 0;
	if (!p) {
		tza_err("out of memory");
		return -1;
	}
	struct live l = {p, f->n};
	int guarded = !tza_sigclean_push(unlink_parts, &l);
	for (size_t i = 0; i < f->n; i++) {
		char label[4300];
		snprintf(label, sizeof(label), "%s[%zu]", w->out, *kept);
		if (make_tmp(w->cmd, w->out, i, &p[i]) < 0)
			goto out;
		int r = w->fn(w->ctx, f, i, p[i].tmp, label);
		if (r < 0)
			goto out;
		p[i].kept = r == 1;
		*kept += (size_t)p[i].kept;
	}
	rc = *kept ? write_out(w, f, p, *kept) : 0;
out:
	for (size_t i = 0; i < f->n; i++) {
		tz_multi_free(p[i].mt);
		if (p[i].tmp[0])
			unlink(p[i].tmp);
	}
	if (guarded)
		tza_sigclean_pop();
	free(p);
	return rc;
}
