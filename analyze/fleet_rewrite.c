/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fleet_rewrite.c - a run on several hosts made anew host by host (slice,
 * recover of a multi-host trace): each host trace written by the command's
 * own single-trace code into a hidden file beside OUT, then those files
 * copied byte for byte into OUT as the members of one multi-host trace
 * (FORMAT.md section 18). The hidden files are removed whatever happens,
 * also on SIGINT or SIGTERM meanwhile.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "fleet.h"

/* One host's hidden file. */
struct part {
	char tmp[4200]; /* "" none */
	int kept;	/* holds a trace for OUT */
	tz_multi *mt;	/* tmp opened, for its bytes */
};

/* The hidden files of the rewrite under way, for the signal handler. */
static struct part *volatile live;
static volatile size_t nlive;
static struct sigaction old_int, old_term;

/* SIGINT/SIGTERM during a rewrite (when not ignored): remove the hidden
 * files, then what was there before (a handler is called, SIG_DFL dies) */
static void on_signal(int sig)
{
	struct part *p = live;
	for (size_t i = 0; p && i < nlive; i++)
		if (p[i].tmp[0])
			unlink(p[i].tmp);
	const struct sigaction *o = sig == SIGINT ? &old_int : &old_term;
	if (o->sa_handler != SIG_DFL && !(o->sa_flags & SA_SIGINFO)) {
		o->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
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
	/* an ignored signal stays ignored (a background job's SIGINT) */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	live = p;
	nlive = f->n;
	int on_int = !sigaction(SIGINT, NULL, &old_int) && old_int.sa_handler != SIG_IGN &&
		     !sigaction(SIGINT, &sa, NULL);
	int on_term = !sigaction(SIGTERM, NULL, &old_term) && old_term.sa_handler != SIG_IGN &&
		      !sigaction(SIGTERM, &sa, NULL);
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
	if (on_int)
		sigaction(SIGINT, &old_int, NULL);
	if (on_term)
		sigaction(SIGTERM, &old_term, NULL);
	live = NULL;
	nlive = 0;
	free(p);
	return rc;
}
