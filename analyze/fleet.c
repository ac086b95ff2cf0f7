/* SPDX-License-Identifier: BSD-2-Clause */
/* fleet.c - the host traces of a run recorded on several hosts (fleet.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "bundle.h"
#include "common/vec.h"
#include "fleet.h"
#include "json.h"
#include "report.h"
#include "textsafe.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .tz files of directory dir, in name order, appended to f->names;
 * their index range in [*lo, *hi). */
static int list_dir(const char *cmd, struct tza_fleet *f, const char *dir, size_t *lo, size_t *hi)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t dl = strlen(dir);
	if (!d) {
		tza_err("%s: '%s': cannot read the directory: %s", cmd, dir, strerror(errno));
		return -1;
	}
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	*lo = f->nnames;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".tz") || e->d_name[0] == '.')
			continue;
		char *p = malloc(dl + l + 2);
		if (VEC_ROOM(f->names, f->nnames, f->capnames, 16) || !p) {
			free(p);
			closedir(d);
			tza_err("out of memory");
			return -1;
		}
		snprintf(p, dl + l + 2, "%.*s/%s", (int)dl, dir, e->d_name);
		f->names[f->nnames++] = p;
	}
	closedir(d);
	*hi = f->nnames;
	qsort(f->names + *lo, *hi - *lo, sizeof(*f->names), cmp_str);
	if (*hi == *lo) {
		tza_err("%s: '%s': no .tz file in the directory", cmd, dir);
		return -1;
	}
	return 0;
}

void tza_fleet_hex16(char out[33], const uint8_t *b)
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* hostname[i] names a host that hostname[0..i) already named */
static int host_seen(const char *const *hostname, size_t i)
{
	if (!hostname[i] || !*hostname[i])
		return 0;
	for (size_t k = 0; k < i; k++)
		if (hostname[k] && !strcmp(hostname[k], hostname[i]))
			return 1;
	return 0;
}

size_t tza_hosts_distinct(const char *const *hostname, size_t n)
{
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += !host_seen(hostname, i);
	return d;
}

void tza_hosts_say(FILE *o, size_t ntraces, size_t nhosts)
{
	if (ntraces != nhosts)
		fprintf(o, "%zu trace%s on ", ntraces, tza_plural(ntraces));
	fprintf(o, "%zu host%s", nhosts, tza_plural(nhosts));
}

void tza_hosts_names(FILE *o, const char *sep, const char *const *hostname, size_t n)
{
	for (size_t i = 0, k = 0; i < n; i++) {
		if (host_seen(hostname, i))
			continue;
		if (k++)
			fputs(sep, o);
		tza_safe_puts(o, hostname[i] && *hostname[i] ? hostname[i] : "(unsaid)");
	}
}

/* a tz_reader_verify callback counting blocks whose damage loses data
 * into *ctx (an INDEX block loses nothing: FORMAT.md [I2]) */
static int count_lossy(void *ctx, const struct tz_block_info *b)
{
	*(uint64_t *)ctx += b->status && !b->no_loss;
	return 0;
}

/* How whole a copy of a recording is, to keep the best of several (higher
 * is better): 3 with no damage a verifying walk finds (verify set), else 2
 * when whole as the open sees it (closed, index usable, no damaged block,
 * not cut), 1 damaged or unfinished, 0 unreadable; *blocks its readable
 * chunks and states. */
static int copy_rank(tz_multi *mt, size_t i, int verify, uint64_t *blocks)
{
	tz_reader *r = NULL;
	*blocks = 0;
	if (tz_multi_reader(mt, i, &r) < 0) {
		tz_reader_free(r);
		return 0;
	}
	const struct tz_info *in = tz_reader_info(r);
	*blocks = in->chunks + in->state_blocks;
	int rank = in->unfinished || in->live || in->corrupt_blocks ||
			   (!in->has_footer && !in->ring) || tz_multi_member(mt, i)->cut
		       ? 1
		       : 2;
	uint64_t lossy = 0;
	if (rank == 2 && verify && tz_reader_verify(r, count_lossy, &lossy) >= 0 && !lossy)
		rank = 3;
	tz_reader_free(r);
	return rank;
}

/* Host k and member i of mt hold one recording: 1 when i is the better copy
 * (whole where k is not, else more readable blocks; equal: the first one,
 * k, stays), 0 not. Copies that look whole and equal are verified. */
static int better_copy(const struct tza_hostsrc *k, tz_multi *mt, size_t i)
{
	uint64_t bk, bi;
	int rk = copy_rank(k->mt, k->i, 0, &bk), ri = copy_rank(mt, i, 0, &bi);
	if (rk == 2 && ri == 2) {
		rk = copy_rank(k->mt, k->i, 1, &bk);
		ri = copy_rank(mt, i, 1, &bi);
	}
	return ri > rk || (ri == rk && bi > bk);
}

/* Add member i of mt unless its recording is already there (a better copy
 * than the one there takes its place). */
static int add_host(const char *cmd, struct tza_fleet *f, const char *path, tz_multi *mt, size_t i)
{
	const struct tz_member *me = tz_multi_member(mt, i);
	char name[4200];
	if (tz_multi_is_container(mt))
		snprintf(name, sizeof(name), "%s[%zu]", path, i);
	else
		snprintf(name, sizeof(name), "%s", path);
	if (me->dup_of >= 0) { /* read once, as the reader does (FORMAT.md [X3]) */
		tza_err("%s: note: '%s' is the same recording as '%s[%d]': %s once", cmd, name,
			path, me->dup_of, strcmp(cmd, "merge") ? "read" : "merged");
		return 0;
	}
	for (size_t k = 0; k < f->n; k++) {
		if (memcmp(f->h[k].me->uuid, me->uuid, 16))
			continue;
		char u[33];
		tza_fleet_hex16(u, me->uuid);
		struct tza_hostsrc *h = &f->h[k];
		if (!better_copy(h, mt, i)) {
			tza_err("%s: note: '%s' is the same recording as '%s' (uuid %s): %s once, "
				"from '%s'",
				cmd, name, h->name, u, strcmp(cmd, "merge") ? "read" : "merged",
				h->name);
			return 0;
		}
		tza_err("%s: note: '%s' is the same recording as '%s' (uuid %s): %s once, "
			"from '%s' (the other copy is cut, damaged or shorter)",
			cmd, name, h->name, u, strcmp(cmd, "merge") ? "read" : "merged", name);
		h->path = path;
		h->mt = mt;
		h->i = i;
		h->me = me;
		memcpy(h->name, name, sizeof(h->name));
		return 0;
	}
	struct tza_hostsrc *nv = realloc(f->h, (f->n + 1) * sizeof(*nv));
	if (!nv) {
		tza_err("out of memory");
		return -1;
	}
	f->h = nv;
	struct tza_hostsrc *h = &f->h[f->n++];
	memset(h, 0, sizeof(*h));
	h->path = path;
	h->mt = mt;
	h->i = i;
	h->me = me;
	memcpy(h->name, name, sizeof(h->name));
	return 0;
}

/* Open one file (a trace or a multi-host trace) and add its members. */
static int add_file(const char *cmd, struct tza_fleet *f, const char *path)
{
	tz_multi *mt = NULL;
	size_t member = SIZE_MAX; /* RUN.tz[i]: member i alone */
	char *base = tza_member_name(path, &member);
	if (base && tza_fleet_is_container(base)) {
		if (VEC_ROOM(f->names, f->nnames, f->capnames, 16)) {
			free(base);
			tza_err("out of memory");
			return -1;
		}
		f->names[f->nnames++] = base; /* owned by the fleet, as directory entries */
		path = base;
	} else {
		free(base);
		member = SIZE_MAX;
	}
	if (tza_refuse_dir(path, "a trace"))
		return -1;
	/* recover salvages members inside damage (FORMAT.md [X5]) */
	const struct tz_reader_opts salvage = {.flags = TZ_R_SALVAGE};
	int rc = tza_multi_open_path(path, strcmp(cmd, "recover") ? NULL : &salvage, &mt);
	if (VEC_ROOM(f->open, f->nopen, f->capopen, 16)) {
		tz_multi_free(mt);
		tza_err("out of memory");
		return -1;
	}
	f->open[f->nopen++] = mt;
	if (rc < 0) {
		if (rc != TZA_OPEN_SAID)
			tza_err_tz(tz_multi_errmsg(mt), path, rc);
		return -1;
	}
	f->containers += tz_multi_is_container(mt);
	if (tz_multi_damage(mt) && !tza_partial()) {
		tza_err("%s (%" PRIu64 " damaged region%s of the multi-host trace; "
			"'tracer-analyze --partial %s' reads the members that remain)",
			tz_multi_errmsg(mt), tz_multi_damage(mt),
			tz_multi_damage(mt) > 1 ? "s" : "", cmd);
		return -1;
	}
	size_t found = 0;
	for (size_t i = 0; i < tz_multi_count(mt); i++)
		found += tz_multi_member(mt, i)->salvaged;
	if (tz_multi_damage(mt) && strcmp(cmd, "recover")) /* --partial: read what remains */
		tza_err("%s: note: '%s': %" PRIu64 " damaged region%s of the multi-host trace "
			"skipped (a member inside one is not read): %s",
			cmd, path, tz_multi_damage(mt), tz_multi_damage(mt) > 1 ? "s" : "",
			tz_multi_errmsg(mt));
	else if (tz_multi_damage(mt)) /* recover: the salvage scan's finds said */
		tza_err("%s: note: '%s': %" PRIu64 " damaged region%s of the multi-host trace "
			"left out, %s%.0zu member%s in %s found by %s own header: %s",
			cmd, path, tz_multi_damage(mt), tz_multi_damage(mt) > 1 ? "s" : "",
			found ? "" : "no", found, found == 1 || !found ? "" : "s",
			tz_multi_damage(mt) > 1 ? "them" : "it", found > 1 ? "their" : "its",
			tz_multi_errmsg(mt));
	if (tz_multi_is_container(mt) && !tz_multi_count(mt)) {
		tza_err("%s: '%s': a multi-host trace that holds no member trace", cmd, path);
		return -1;
	}
	if (member != SIZE_MAX && member >= tz_multi_count(mt)) {
		tza_err("%s: '%s[%zu]': '%s' holds %zu member traces (0 to %zu)", cmd, path,
			member, path, tz_multi_count(mt), tz_multi_count(mt) - 1);
		return -1;
	}
	for (size_t i = 0; i < tz_multi_count(mt); i++)
		if ((member == SIZE_MAX || i == member) && add_host(cmd, f, path, mt, i))
			return -1;
	return 0;
}

int tza_fleet_expand(const char *cmd, char **args, int n, struct tza_fleet *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (!stat(args[i], &st) && S_ISDIR(st.st_mode)) {
			size_t lo, hi;
			if (list_dir(cmd, f, args[i], &lo, &hi))
				return -1;
			for (size_t k = lo; k < hi; k++)
				if (add_file(cmd, f, f->names[k]))
					return -1;
		} else if (add_file(cmd, f, args[i])) {
			return -1;
		}
	}
	return 0;
}

tz_reader *tza_fleet_reader(const struct tza_fleet *f, size_t i)
{
	tz_reader *r = NULL;
	int rc = tz_multi_reader(f->h[i].mt, f->h[i].i, &r);
	if (rc < 0) {
		tza_err_tz(r ? tz_reader_errmsg(r) : NULL, f->h[i].name, rc);
		tz_reader_free(r);
		return NULL;
	}
	return r;
}

/* The first damaged block a verifying walk meets (an INDEX block loses
 * nothing: FORMAT.md [I2]). */
struct vbad {
	tz_reader *r;
	uint64_t bad;
	char msg[600];
};

static int on_bad(void *ctx, const struct tz_block_info *b)
{
	struct vbad *v = ctx;
	if (b->status && !b->no_loss && !v->bad++)
		snprintf(v->msg, sizeof(v->msg), "%s", tz_reader_errmsg(v->r));
	return 0;
}

/* One host trace checked as the analysis commands check it. */
static int check_one(const char *cmd, struct tza_hostsrc *h, tz_reader *r, int verify)
{
	const struct tz_info *in = tz_reader_info(r);
	/* what tza_check_whole refuses without --partial */
	h->partial = in->unfinished || in->live || in->corrupt_blocks ||
		     (!in->has_footer && !in->ring) || h->me->cut;
	h->first_ns = in->first_ts_ns;
	h->last_ns = in->last_ts_ns;
	if (tza_check_whole(r, h->name, 0) < 0)
		return -1;
	if (!verify)
		return 0;
	struct vbad v = {.r = r};
	int bad = tz_reader_verify(r, on_bad, &v);
	if (bad < 0 || v.bad) {
		h->partial = 1;
		if (!tza_partial()) {
			tza_err("%s: damaged (see 'tracer-analyze verify'; 'tracer-analyze "
				"--partial %s' reads it as it is)",
				bad < 0 ? h->name : v.msg, cmd);
			return -1;
		}
	}
	return 0;
}

int tza_fleet_check(const char *cmd, struct tza_fleet *f, int verify)
{
	size_t kept = 0;
	for (size_t i = 0; i < f->n; i++) {
		tz_reader *r = tza_fleet_reader(f, i);
		if (!r && tza_partial() && f->h[i].mt && tz_multi_is_container(f->h[i].mt)) {
			/* --partial: a member that cannot even be opened is left out,
			 * the others are read (FORMAT.md [X1]) */
			tza_err("%s: note: '%s' left out%s: it cannot be read", cmd, f->h[i].name,
				strcmp(cmd, "recover") ? " (--partial)" : "");
			continue;
		}
		int rc = r ? check_one(cmd, &f->h[i], r, verify) : -1;
		tz_reader_free(r);
		if (rc)
			return -1;
		f->h[kept++] = f->h[i];
	}
	f->n = kept;
	if (!kept) {
		tza_err("%s: no host trace left to read", cmd);
		return -1;
	}
	return 0;
}

void tza_fleet_note_overlaps(const char *cmd, const struct tza_fleet *f)
{
	static const uint8_t zero[16];
	uint64_t more = 0, said = 0;
	for (size_t a = 0; a < f->n; a++)
		for (size_t b = a + 1; b < f->n; b++) {
			const struct tza_hostsrc *x = &f->h[a], *y = &f->h[b];
			if (memcmp(x->me->boot_id, y->me->boot_id, 16) ||
			    !memcmp(x->me->boot_id, zero, 16))
				continue;
			if (x->first_ns > y->last_ns || y->first_ns > x->last_ns)
				continue;
			if (said == TZA_OVERLAP_NOTES) { /* n traces make n^2 pairs */
				more++;
				continue;
			}
			said++;
			tza_err("%s: note: '%s' and '%s' were recorded on one host (same boot "
				"id) at overlapping times: a process in both is one process",
				cmd, x->name, y->name);
		}
	if (more)
		tza_err("%s: note: %" PRIu64 " more pair%s of traces of one host overlap in time "
			"(a process in several is one process)",
			cmd, more, more == 1 ? "" : "s");
}

/* a .tz header (40 bytes) with incompat bit 1, MULTI (FORMAT.md 18) */
static int is_multi_header(const uint8_t *h)
{
	return !memcmp(h, "\x89TZ1\r\n\x1a\n", 8) && (h[32] & 0x2);
}

/* The first bytes of path's trace, up to size, into h: a bundle's trace
 * (read once and kept; also whole in *mem, *memlen), else the file's own
 * (*mem NULL). Returns how many, 0 for none: not a regular file (a
 * directory, FIFO or device is never read), unreadable, a bundle without a
 * trace. */
static size_t trace_head(const char *path, uint8_t *h, size_t size, const void **mem,
			 size_t *memlen)
{
	struct stat st;
	*mem = NULL;
	*memlen = 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (tza_bundle_sniff(path)) {
		const char *member;
		if (tza_bundle_trace(path, mem, memlen, &member) < 0)
			return 0;
		size_t n = *memlen < size ? *memlen : size;
		memcpy(h, *mem, n);
		return n;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, h, size);
	close(fd);
	return got > 0 ? (size_t)got : 0;
}

int tza_fleet_is_container(const char *path)
{
	/* only the header's incompat bit decides the route (the whole file is
	 * opened and checked once, by the command): a big unfinished trace is
	 * not scanned twice */
	uint8_t h[40];
	const void *mem;
	size_t memlen;
	return trace_head(path, h, sizeof(h), &mem, &memlen) == sizeof(h) && is_multi_header(h);
}

int tza_fleet_salvage_wanted(const char *path)
{
	uint8_t h[4096];
	const void *mem;
	size_t memlen, n = trace_head(path, h, sizeof(h), &mem, &memlen);
	/* a header that checks is read as it says */
	if (!n || !tz_header_check(mem ? mem : h, mem ? memlen : n, NULL, NULL))
		return 0;
	tz_multi *mt = NULL;
	const struct tz_reader_opts o = {.flags = TZ_R_SALVAGE};
	int yes = !(mem ? tz_multi_open_mem(&mt, mem, memlen, path, &o)
			: tz_multi_open(&mt, path, &o)) &&
		  tz_multi_is_container(mt);
	tz_multi_free(mt);
	return yes;
}

int tza_fleet_wanted(char **args, int n)
{
	if (n != 1)
		return n > 1;
	struct stat st;
	if (!stat(args[0], &st) && S_ISDIR(st.st_mode))
		return 1;
	return tza_fleet_is_container(args[0]);
}

void tza_fleet_free(struct tza_fleet *f)
{
	for (size_t i = 0; i < f->nopen; i++)
		tz_multi_free(f->open[i]);
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->open);
	free(f->names);
	free(f->h);
	memset(f, 0, sizeof(*f));
}

const char *tza_fleet_source(const struct tza_fleet *f, size_t i)
{
	const struct tza_hostsrc *h = &f->h[i];
	return tz_multi_is_container(h->mt) && !*h->me->source ? h->path : h->me->source;
}

const char *tza_fleet_hostname(const struct tza_fleet *f, size_t i, tz_reader *r)
{
	const char *hn = r ? tz_reader_meta_get(r, "hostname") : NULL;
	return hn && *hn ? hn : f->h[i].me->hostname;
}

void tza_fleet_json_host(FILE *f, const char *sep, const char *hostname, const char *trace)
{
	fprintf(f, "%s{\"hostname\":", sep);
	tza_json_cstr(f, hostname);
	tza_json_key_cstr(f, "trace", trace);
}

int tza_fleet_load(const struct tza_fleet *f, size_t i, uint32_t flags, tz_reader **r,
		   struct tza_model **m, const char **hostname)
{
	*m = NULL;
	*r = tza_fleet_reader(f, i);
	if (!*r || tza_load_reader(f->h[i].name, flags, r, m) < 0)
		return -1;
	*hostname = tza_fleet_hostname(f, i, *r);
	return 0;
}

int tza_fleet_open(const char *cmd, char **args, int n, struct tza_fleet *f)
{
	if (tza_fleet_expand(cmd, args, n, f) || tza_fleet_check(cmd, f, 0))
		return -1;
	tza_fleet_note_overlaps(cmd, f);
	return 0;
}

int tza_fleet_one_clock(const struct tza_fleet *f)
{
	static const uint8_t zero[16];
	if (!f->n || !memcmp(f->h[0].me->boot_id, zero, 16))
		return 0;
	for (size_t i = 1; i < f->n; i++)
		if (memcmp(f->h[i].me->boot_id, f->h[0].me->boot_id, 16))
			return 0;
	return 1;
}

int tza_fleet_seen_init(struct tza_fleet_seen *s, size_t nhosts)
{
	memset(s, 0, sizeof(*s));
	s->ids = calloc(nhosts ? nhosts : 1, sizeof(*s->ids));
	s->nids = calloc(nhosts ? nhosts : 1, sizeof(*s->nids));
	s->cap = calloc(nhosts ? nhosts : 1, sizeof(*s->cap));
	s->n = nhosts;
	return s->ids && s->nids && s->cap ? 0 : -1;
}

int tza_fleet_seen_add(struct tza_fleet_seen *s, size_t host, uint32_t pid, uint64_t start_ns)
{
	if (s->nids[host] == s->cap[host]) {
		size_t nc = s->cap[host] ? 2 * s->cap[host] : 256;
		uint64_t *nv = realloc(s->ids[host], 2 * sizeof(uint64_t) * nc);
		if (!nv)
			return -1;
		s->ids[host] = nv;
		s->cap[host] = nc;
	}
	uint64_t *e = &s->ids[host][2 * s->nids[host]++];
	e[0] = start_ns;
	e[1] = pid;
	return 0;
}

/* (start, pid) pairs in order */
static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

void tza_fleet_seen_seal(struct tza_fleet_seen *s, size_t host)
{
	if (s->ids[host])
		qsort(s->ids[host], s->nids[host], 2 * sizeof(uint64_t), cmp_pair);
}

int tza_fleet_seen_before(const struct tza_fleet_seen *s, const struct tza_fleet *f, size_t host,
			  uint32_t pid, uint64_t start_ns)
{
	static const uint8_t zero[16];
	const uint64_t key[2] = {start_ns, pid};
	if (!memcmp(f->h[host].me->boot_id, zero, 16))
		return 0; /* no boot id: nothing says two traces are one machine */
	for (size_t k = 0; k < host; k++) {
		if (memcmp(f->h[k].me->boot_id, f->h[host].me->boot_id, 16) || !s->ids[k])
			continue;
		const uint64_t *hit = bsearch(key, s->ids[k], s->nids[k], 2 * sizeof(uint64_t),
					      cmp_pair);
		if (hit)
			return 1;
	}
	return 0;
}

void tza_fleet_seen_free(struct tza_fleet_seen *s)
{
	for (size_t i = 0; s->ids && i < s->n; i++)
		free(s->ids[i]);
	free(s->ids);
	free(s->nids);
	free(s->cap);
	memset(s, 0, sizeof(*s));
}
