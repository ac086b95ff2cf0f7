/* SPDX-License-Identifier: BSD-2-Clause */
/* snapshot.c - the processes alive at the start (-a, -p), read with the
 * snap_tasks task iterator and written as EV_PROC_STATE (recorder.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/tracer.h"
#include "common/vec.h"
#include "recorder.h"
#include "tracer.skel.h"

struct snap {
	struct snap_rec *v; /* exe copied into the fixed struct */
	size_t n, cap;
};

static int snap_read(struct rec *r, struct snap *sn)
{
	struct bpf_link *l = bpf_program__attach_iter(r->skel->progs.snap_tasks, NULL);
	size_t len = 0, cap = 1 << 16, off = 0;
	char *buf = NULL;
	int fd;

	if (!l) {
		rec_err("cannot attach the task iterator: %s", strerror(errno));
		return -1;
	}
	fd = bpf_iter_create(bpf_link__fd(l));
	if (fd < 0) {
		rec_err("cannot create the task iterator: %s", strerror(errno));
		bpf_link__destroy(l);
		return -1;
	}
	buf = malloc(cap);
	if (buf && rec_read_fd(fd, &buf, &cap, 8192, &len)) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	bpf_link__destroy(l);
	if (!buf) {
		rec_err("out of memory");
		return -1;
	}
	const size_t fixed = offsetof(struct snap_rec, exe);
	while (off + fixed <= len) {
		struct snap_rec *s;
		if (VEC_ROOM(sn->v, sn->n, sn->cap, 512))
			break;
		s = &sn->v[sn->n];
		memcpy(s, buf + off, fixed);
		off += fixed;
		if (s->exe_len > EV_PATH_MAX || off + s->exe_len > len)
			break;
		memcpy(s->exe, buf + off, s->exe_len);
		off += s->exe_len;
		sn->n++;
	}
	free(buf);
	return 0;
}

/* is tgid in the subtree rooted at root (by ppid links of the snapshot)? */
static int in_subtree(const struct snap *sn, uint32_t tgid, uint32_t root)
{
	for (int depth = 0; depth < 4096 && tgid > 1; depth++) {
		if (tgid == root)
			return 1;
		size_t i;
		for (i = 0; i < sn->n && sn->v[i].tgid != tgid; i++)
			;
		if (i == sn->n)
			return 0;
		tgid = sn->v[i].ppid;
	}
	return tgid == root;
}

/* Write EV_PROC_STATE (pre-existing) for every selected snapshot process not
 * already seen being born in the events drained so far. */
/* Write snapshot process s as an EV_PROC_STATE (timestamp r->t0_boot) with
 * its /proc cmdline read into argv (EV_ARGV_MAX_LIMIT + 1 bytes), the
 * record built in buf (cap bytes). Returns 1 when written, 0 when it did
 * not fit. */
static int snap_write(struct rec *r, const struct snap_rec *s, char *argv, char *buf, size_t cap)
{
	struct pt_proc p;
	uint32_t size = 0, argc = 0;
	long n = 0;

	memset(&p, 0, sizeof(p));
	p.tgid = s->tgid;
	p.ppid = s->ppid;
	p.start_ns = s->start_ns;
	p.uid = s->uid;
	p.euid = s->euid;
	p.ns_pid = s->ns_pid;
	p.flags = EV_STATE_PRE_EXISTING | (s->kthread ? EV_STATE_KTHREAD : 0) |
		  (s->exited ? EV_STATE_EXITED : 0);
	memcpy(p.comm, s->comm, sizeof(p.comm));
	p.exe = (char *)s->exe;
	p.exe_len = s->exe_len;
	if (!s->kthread) {
		n = rec_read_cmdline(s->tgid, argv, r->o.argv_max, &size, &argc);
		if (n < 0)
			n = 0;
		if (size > (uint32_t)n)
			p.flags |= EV_STATE_ARGV_TRUNCATED;
	}
	p.argv = argv;
	p.argv_len = (uint32_t)n;
	p.argc = argc;
	p.argv_size = size;
	size_t len = ptable_encode_state(&p, r->t0_boot, buf, cap);
	if (!len)
		return 0;
	rec_on_event(r, buf, len);
	return 1;
}

int rec_snapshot(struct rec *r)
{
	size_t cap = sizeof(struct ev_proc_state) + EV_PATH_MAX + EV_ARGV_MAX_LIMIT;
	char *buf = malloc(cap), *argv = malloc(EV_ARGV_MAX_LIMIT + 1);
	int found = 0, rc = 0;
	/* -p: processes of the subtree that forked between a pass and their
	 * tracking are found by the next pass */
	int passes = r->o.mode == MODE_PID ? 3 : 1;

	if (!buf || !argv) {
		rec_err("out of memory");
		rc = -1;
		goto out;
	}
	for (int pass = 0; pass < passes; pass++) {
		struct snap sn = {0};
		size_t added = 0;

		if (snap_read(r, &sn)) {
			rc = -1;
			goto out;
		}
		/* the events so far tell which processes were born after attach */
		ring_buffer__consume(r->rb);
		for (size_t i = 0; i < sn.n; i++) {
			const struct snap_rec *s = &sn.v[i];
			struct pt_proc *have;

			if (r->o.mode == MODE_PID) {
				if (!in_subtree(&sn, s->tgid, r->o.pid))
					continue;
				if (s->tgid == r->o.pid)
					found = 1;
				rec_track_merge(r, s->tgid, s->threads);
			}
			have = ptable_get(&r->pt, s->tgid);
			if (have && have->start_ns == s->start_ns &&
			    (pass > 0 || (have->flags & PT_SEEN_FORK)))
				continue;
			if (snap_write(r, s, argv, buf, cap))
				added++;
		}
		free(sn.v);
		if (pass > 0 && !added)
			break;
	}
	if (r->o.mode == MODE_PID && !found) {
		rec_err("-p %u: no such process", r->o.pid);
		rc = -1;
	}
out:
	free(buf);
	free(argv);
	return rc;
}
