/* SPDX-License-Identifier: BSD-2-Clause */
/* bundle.c - reading a trace out of a .tar.gz/.zip bundle (bounded), writing bundles. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "analyze.h"
#include "bundle.h"
#include "sigclean.h"

#define MAX_ENTRIES 10000
#define BOMB_FLOOR (64ull << 20) /* ratio checked past this many bytes out */
#define BOMB_RATIO 200
#define DEFAULT_CAP_MB 1024

/* ---------------------------------------------------------------- sniff */

int tza_bundle_sniff(const char *path)
{
	unsigned char b[512];
	struct stat st;
	/* O_NONBLOCK: a FIFO must not hang the open; only a regular file is
	 * sniffed (the .tz reader then refuses the rest in one line) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	ssize_t n = read(fd, b, sizeof(b));
	close(fd);
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return 1; /* gzip */
	if (n >= 4 && b[0] == 'P' && b[1] == 'K' &&
	    ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6)))
		return 1; /* zip (local header, or an empty archive) */
	if (n >= 262 && !memcmp(b + 257, "ustar", 5))
		return 1; /* tar */
	return 0;
}

/* ---------------------------------------------------------------- registry */

/* Traces read out of bundles live until exit: readers point into them. */
struct cached {
	char *path, *member;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	void *buf;   /* NULL: it failed (its message was printed then) */
	size_t len;
};
static struct cached *cache;
static size_t ncache;

static void cache_free(void)
{
	for (size_t i = 0; i < ncache; i++) {
		free(cache[i].path);
		free(cache[i].member);
		free(cache[i].buf);
	}
	free(cache);
	cache = NULL;
	ncache = 0;
}

void tza_bundle_cache_clear(void) { cache_free(); }

static uint64_t member_cap(void)
{
	const char *e = getenv("TRACER_BUNDLE_MAX_MB");
	unsigned long long mb = DEFAULT_CAP_MB;
	if (e && *e) {
		char *end;
		unsigned long long v = strtoull(e, &end, 10);
		if (!*end && v > 0 && v <= (1ull << 20))
			mb = v;
	}
	return mb << 20;
}

/* A member name that could leave a directory, or is no name at all. */
static const char *bad_path(const char *p)
{
	if (!p || !*p)
		return "member without a name";
	if (p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':'))
		return "absolute path";
	for (const char *s = p; *s;) {
		size_t n = strcspn(s, "/\\");
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return "path leaves the bundle (..)";
		s += n;
		if (*s)
			s++;
	}
	return NULL;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Print "'path': member 'm': why" with the member name made printable. */
static void member_err(const char *path, const char *m, const char *why)
{
	char clean[256];
	size_t j = 0;
	for (const unsigned char *s = (const unsigned char *)(m ? m : ""); *s && j < sizeof(clean) - 4; s++)
		clean[j++] = *s < 0x20 || *s == 0x7f ? '?' : (char)*s;
	if (m && strlen(m) > j)
		clean[j++] = '.', clean[j++] = '.', clean[j++] = '.';
	clean[j] = 0;
	tza_err("'%s': bundle member '%s': %s", path, clean, why);
}

/* What a member held: for the check against the bundle's MANIFEST */
struct seen_member {
	char *name;
	uint64_t size, xxh64;
};

/* MANIFEST bytes kept at most (a bundle's lists a dozen files) */
#define MANIFEST_MAX (1u << 20)

/*
 * The bundle's own MANIFEST ("SIZE  XXH64  NAME" per file, names relative to
 * the MANIFEST's directory) against what its members held: a member whose
 * size or checksum differs, or one listed but absent, is damage (gzip's CRC
 * is not checked by libarchive, so damaged deflate data can decode to other
 * bytes). 0, or -1 with the message printed.
 */
static int check_manifest(const char *path, const char *mname, const char *text,
			  const struct seen_member *m, size_t nm)
{
	size_t dir = (size_t)(base_name(mname) - mname);
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[1024];
		unsigned long long sz, h;
		int off = 0;
		if (len && *l != '#' && len < sizeof(line)) {
			memcpy(line, l, len);
			line[len] = 0;
			if (sscanf(line, "%llu %llx %n", &sz, &h, &off) != 2 || !line[off]) {
				member_err(path, mname, "malformed line");
				return -1;
			}
			const char *name = line + off;
			size_t i = 0;
			for (; i < nm; i++)
				if (!strncmp(m[i].name, mname, dir) && !strcmp(m[i].name + dir, name))
					break;
			if (i == nm) {
				member_err(path, name, "listed in MANIFEST but not in the bundle");
				return -1;
			}
			if (m[i].size != sz || m[i].xxh64 != h) {
				member_err(path, m[i].name, "damaged: its size or XXH64 differs from MANIFEST");
				return -1;
			}
		} else if (len >= sizeof(line)) {
			member_err(path, mname, "line too long");
			return -1;
		}
		l = e ? e + 1 : l + len;
	}
	return 0;
}

/* One bundle being read (read_trace): the archive, the caps, the trace
 * member chosen so far, what every member held and the MANIFEST. */
#define BUNDLE_BLOCK (64 * 1024) /* bytes libarchive reads of the file at a time */

struct bundle_read {
	const char *path; /* the bundle, for messages */
	struct archive *a;
	XXH64_state_t *xs;
	uint64_t cap, total_cap, total; /* bytes: per member, all members, read */
	void *best, *cur;		/* the chosen trace, the one being read */
	size_t best_len;
	char *best_name;
	struct seen_member *seen; /* every member's name, size, XXH64 */
	size_t nseen;
	char *manifest, *manifest_name; /* the bundle's MANIFEST, NUL-ended */
	size_t manifest_len;
	uint64_t size; /* bytes of the bundle itself (file or memory) */
};

/* Where a damaged bundle failed, for its message: " (at or before byte N
 * of its M)": N the bundle's bytes libarchive had read by then (it reads
 * ahead in blocks of BUNDLE_BLOCK, so the fault is at or before N), M its
 * size; before its first member (no count yet): its first block, N =
 * min(M, BUNDLE_BLOCK), or its end for a cut gzip stream. Empty when M is
 * unknown. */
static const char *damage_at(struct bundle_read *br, char *buf, size_t size)
{
	la_int64_t n = archive_filter_count(br->a) > 0 ? archive_filter_bytes(br->a, -1) : -1;
	if (!br->size) {
		buf[0] = 0;
		return buf;
	}
	if (n <= 0) {
		const char *e = archive_error_string(br->a);
		n = (la_int64_t)(br->size < BUNDLE_BLOCK ? br->size : BUNDLE_BLOCK);
		if (e && strstr(e, "truncated"))
			n = (la_int64_t)br->size;
	}
	snprintf(buf, size, " (at or before byte %lld of its %llu)", (long long)n,
		 (unsigned long long)br->size);
	return buf;
}

/* Whether member e (named name) may be read: 1 yes, 0 skip it (a
 * directory), -1 refused (message printed): unsafe path, link, device,
 * sparse, or a size over the cap. */
static int member_ok(struct bundle_read *br, struct archive_entry *e, const char *name)
{
	const char *why = bad_path(name);
	if (why) {
		member_err(br->path, name, why);
		return -1;
	}
	if (archive_entry_symlink(e) || archive_entry_filetype(e) == AE_IFLNK) {
		member_err(br->path, name, "symbolic link (bundles hold plain files only)");
		return -1;
	}
	if (archive_entry_hardlink(e)) {
		member_err(br->path, name, "hard link (bundles hold plain files only)");
		return -1;
	}
	mode_t type = archive_entry_filetype(e);
	if (type == AE_IFDIR)
		return 0;
	if (type != AE_IFREG) {
		member_err(br->path, name, "device, fifo or socket (bundles hold plain files only)");
		return -1;
	}
	/* tracer writes no sparse member; a sparse one (GNU tar, PAX 0.0,
	 * 0.1, 1.0) would expand its holes past every cap counted on
	 * stored bytes: refused before any of its data is read */
	if (archive_entry_sparse_count(e) > 0) {
		member_err(br->path, name, "sparse file (bundles hold plain files only)");
		return -1;
	}
	if (archive_entry_size_is_set(e) && (uint64_t)archive_entry_size(e) > br->cap) {
		char why2[128];
		snprintf(why2, sizeof(why2), "claims %lld bytes, over the %llu MiB cap "
			 "(TRACER_BUNDLE_MAX_MB)", (long long)archive_entry_size(e),
			 (unsigned long long)(br->cap >> 20));
		member_err(br->path, name, why2);
		return -1;
	}
	return 1;
}

/* Keep one block of a wanted member in br->cur (grown by doubling up to
 * the cap). Returns 0 or -1 (message printed). */
static int keep_block(struct bundle_read *br, const char *name, size_t *alloc, const void *blk,
		      size_t sz, uint64_t off)
{
	uint64_t end = off + sz;
	if (end > *alloc) {
		size_t na = *alloc ? *alloc : 1 << 20;
		while (na < end)
			na *= 2;
		if (na > br->cap)
			na = (size_t)br->cap;
		void *nb = realloc(br->cur, na);
		if (!nb) {
			tza_err("'%s': out of memory reading '%s'", br->path, name);
			return -1;
		}
		br->cur = nb;
		*alloc = na;
	}
	memcpy((char *)br->cur + off, blk, sz);
	return 0;
}

/* Read the current member's data: its XXH64 into br->xs, its bytes into
 * br->cur when want, into br->manifest when is_manifest. *pos: the bytes
 * read. Returns 0 or -1 (message printed): damaged, a hole, over a cap, or a
 * decompression bomb. */
static int read_member(struct bundle_read *br, const char *name, int want, int is_manifest,
		       uint64_t *pos)
{
	size_t alloc = 0;
	*pos = 0; /* blocks follow each other, no hole */
	XXH64_reset(br->xs, 0);
	for (;;) {
		const void *blk;
		size_t sz;
		la_int64_t off;
		int r = archive_read_data_block(br->a, &blk, &sz, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN) {
			char at[96];
			tza_err("'%s': bundle member '%s': damaged%s: %s", br->path, name,
				damage_at(br, at, sizeof(at)), archive_error_string(br->a));
			return -1;
		}
		if (!sz)
			continue;
		/* every byte of a member is stored: a block that does not
		 * start where the one before ended is a hole (a sparse
		 * member the header did not declare), refused */
		if (off < 0 || (uint64_t)off != *pos) {
			member_err(br->path, name, "sparse file (bundles hold plain files only)");
			return -1;
		}
		uint64_t end = (uint64_t)off + sz;
		if (end > br->cap) {
			member_err(br->path, name, "larger than the member cap (TRACER_BUNDLE_MAX_MB)");
			return -1;
		}
		br->total += sz;
		la_int64_t raw = archive_filter_bytes(br->a, -1);
		if (br->total > br->total_cap ||
		    (br->total > BOMB_FLOOR && raw > 0 && br->total / (uint64_t)raw > BOMB_RATIO)) {
			tza_err("'%s': decompresses to over %llu MiB%s: refusing (a zip or gzip "
				"bomb?)", br->path, (unsigned long long)(br->total >> 20),
				br->total > br->total_cap ? "" : " at more than 200:1");
			return -1;
		}
		XXH64_update(br->xs, blk, sz);
		*pos = end;
		if (is_manifest) {
			if (end > MANIFEST_MAX) {
				member_err(br->path, name, "larger than 1 MiB: not a bundle's MANIFEST");
				return -1;
			}
			memcpy(br->manifest + off, blk, sz);
			if (end > br->manifest_len)
				br->manifest_len = (size_t)end;
		}
		if (want && keep_block(br, name, &alloc, blk, sz, (uint64_t)off) < 0)
			return -1;
	}
}

/* After a member was read: remember its name, size and XXH64 for the
 * MANIFEST check; a wanted one becomes the trace. Returns 0 or -1 (out of
 * memory, message printed). */
static int note_member(struct bundle_read *br, const char *name, uint64_t size, int want,
		       int is_manifest)
{
	if (br->nseen % 64 == 0) {
		struct seen_member *ns = realloc(br->seen, (br->nseen + 64) * sizeof(*ns));
		if (!ns)
			goto nomem;
		br->seen = ns;
	}
	br->seen[br->nseen] = (struct seen_member){strdup(name), size, XXH64_digest(br->xs)};
	if (!br->seen[br->nseen++].name)
		goto nomem;
	if (is_manifest && !(br->manifest_name = strdup(name)))
		goto nomem;
	if (want) {
		free(br->best);
		free(br->best_name);
		br->best = br->cur;
		br->best_len = (size_t)size;
		br->cur = NULL;
		br->best_name = strdup(name);
		if (!br->best_name)
			goto nomem;
	}
	return 0;
nomem:
	tza_err("'%s': out of memory", br->path);
	return -1;
}

/* Walk every member of the open br->a: check it, read it, note it. Returns
 * 0 or -1 (message printed). */
static int read_members(struct bundle_read *br)
{
	struct archive_entry *e;
	int entries = 0;
	for (;;) {
		int r = archive_read_next_header(br->a, &e);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN) {
			char at[96];
			tza_err("'%s': damaged bundle%s: %s", br->path, damage_at(br, at, sizeof(at)),
				archive_error_string(br->a));
			return -1;
		}
		if (++entries > MAX_ENTRIES) {
			tza_err("'%s': more than %d members: refusing", br->path, MAX_ENTRIES);
			return -1;
		}
		const char *name = archive_entry_pathname(e);
		int ok = member_ok(br, e, name);
		if (ok <= 0) {
			if (ok < 0)
				return -1;
			continue;
		}
		int want = ends_with(name, ".tz") &&
			   (!br->best || !strcmp(base_name(name), "trace.tz"));
		/* the MANIFEST at the top: "MANIFEST" or "DIR/MANIFEST" */
		const char *slash = strchr(name, '/');
		int is_manifest = !strcmp(base_name(name), "MANIFEST") && !br->manifest &&
				  base_name(name) == (slash ? slash + 1 : name);
		if (is_manifest && !(br->manifest = calloc(1, MANIFEST_MAX + 1))) {
			tza_err("'%s': out of memory", br->path);
			return -1;
		}
		uint64_t pos;
		if (read_member(br, name, want, is_manifest, &pos) < 0 ||
		    note_member(br, name, pos, want, is_manifest) < 0)
			return -1;
	}
}

/* path names the bundle in messages; mem (memlen bytes) is read instead of
 * the file when not NULL */
static int read_trace(const char *path, const void *mem, size_t memlen, void **out_buf,
		      size_t *out_len, char **out_member)
{
	struct bundle_read br = {.path = path, .cap = member_cap()};
	br.total_cap = 2 * br.cap + (256ull << 20);
	br.a = archive_read_new();
	br.xs = XXH64_createState();
	int rc = -1;
	if (!br.a || !br.xs) {
		tza_err("'%s': out of memory", path);
		goto out;
	}
	struct stat st;
	br.size = mem ? memlen : !stat(path, &st) ? (uint64_t)st.st_size : 0;
	archive_read_support_filter_gzip(br.a);
	archive_read_support_format_tar(br.a);
	archive_read_support_format_zip(br.a);
	if ((mem ? archive_read_open_memory(br.a, mem, memlen)
		 : archive_read_open_filename(br.a, path, BUNDLE_BLOCK)) != ARCHIVE_OK) {
		char at[96];
		tza_err("'%s': not a readable bundle%s: %s", path, damage_at(&br, at, sizeof(at)),
			archive_error_string(br.a));
		goto out;
	}
	if (read_members(&br) < 0)
		goto out;
	if (!br.best) {
		tza_err("'%s': no trace (*.tz member) inside the bundle", path);
		goto out;
	}
	if (br.manifest && br.manifest_name) {
		br.manifest[br.manifest_len] = 0;
		if (check_manifest(path, br.manifest_name, br.manifest, br.seen, br.nseen) < 0)
			goto out;
	}
	*out_buf = br.best;
	*out_len = br.best_len;
	*out_member = br.best_name;
	br.best = NULL;
	br.best_name = NULL;
	rc = 0;
out:
	free(br.cur);
	free(br.best);
	free(br.best_name);
	for (size_t i = 0; i < br.nseen; i++)
		free(br.seen[i].name);
	free(br.seen);
	free(br.manifest);
	free(br.manifest_name);
	XXH64_freeState(br.xs);
	archive_read_free(br.a);
	return rc;
}

int tza_bundle_trace(const char *path, const void **buf, size_t *len, const char **member)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		tza_err("'%s': %s", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < ncache; i++) {
		struct cached *c = &cache[i];
		if (c->dev == st.st_dev && c->ino == st.st_ino && c->size == st.st_size &&
		    c->mtime.tv_sec == st.st_mtim.tv_sec && c->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			if (!c->buf)
				return -1; /* said the first time */
			*buf = c->buf;
			*len = c->len;
			*member = c->member;
			return 0;
		}
	}
	struct cached c = {.dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
			   .mtime = st.st_mtim};
	int failed = read_trace(path, NULL, 0, &c.buf, &c.len, &c.member) < 0;
	if (failed) {
		free(c.buf);
		free(c.member);
		c.buf = NULL;
		c.member = NULL;
	}
	struct cached *nc = realloc(cache, (ncache + 1) * sizeof(*cache));
	c.path = strdup(path);
	if (!nc || !c.path) {
		if (nc)
			cache = nc;
		free(c.buf);
		free(c.member);
		free(c.path);
		tza_err("'%s': out of memory", path);
		return -1;
	}
	static int at_exit;
	if (!at_exit)
		at_exit = !atexit(cache_free);
	cache = nc;
	cache[ncache++] = c;
	if (failed)
		return -1;
	*buf = c.buf;
	*len = c.len;
	*member = c.member;
	return 0;
}

int tza_bundle_trace_mem(const char *name, const void *data, size_t size, void **buf,
			 size_t *len, char **member)
{
	return read_trace(name, data ? data : "", size, buf, len, member);
}

/* ---------------------------------------------------------------- writing */

int tza_bundle_out_ok(const char *out)
{
	return ends_with(out, ".tar.gz") || ends_with(out, ".tgz") || ends_with(out, ".zip");
}

static int copy_in(struct archive *a, const char *out, const char *top,
		   const struct tza_bundle_file *f, time_t now)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		tza_err("'%s': %s", f->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct archive_entry *e = archive_entry_new();
	char name[4096];
	snprintf(name, sizeof(name), "%s/%s", top, f->name);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, f->mode ? f->mode : 0644);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, now, 0);
	int rc = -1;
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		tza_err("'%s': %s", out, archive_error_string(a));
		goto out;
	}
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			tza_err("'%s': %s", f->path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (archive_write_data(a, buf, (size_t)n) != n) {
			tza_err("'%s': %s", out, archive_error_string(a));
			goto out;
		}
	}
	rc = 0;
out:
	archive_entry_free(e);
	close(fd);
	return rc;
}

int tza_bundle_write(const char *out, const char *shown, const char *top,
		     const struct tza_bundle_file *files, size_t n, int overwrite)
{
	if (!shown)
		shown = out;
	if (!tza_bundle_out_ok(out)) {
		tza_err("'%s': unknown bundle type (use .tar.gz, .tgz or .zip)", shown);
		return -1;
	}
	size_t tl = strlen(out) + 32;
	char *tmp = malloc(tl);
	if (!tmp) {
		tza_err("bundle: out of memory");
		return -1;
	}
	snprintf(tmp, tl, "%s.tmp.%ld", out, (long)getpid());
	struct archive *a = archive_write_new();
	int rc = -1, fd = -2; /* -2: tmp not created (not ours to unlink) */
	int guarded = 0;      /* tmp removed on SIGINT/SIGTERM (sigclean.h) */
	if (!a) {
		tza_err("bundle: out of memory");
		free(tmp);
		return -1;
	}
	if (ends_with(out, ".zip")) {
		archive_write_set_format_zip(a);
	} else {
		archive_write_add_filter_gzip(a);
		archive_write_set_format_pax_restricted(a);
	}
	/* a fresh 0600 file (never through a symlink planted at the name),
	 * renamed over out when complete */
	struct stat st;
	if (!lstat(out, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		tza_err_not_file(shown, "a bundle");
		goto out;
	}
	fd = tz_create_file(tmp, 1);
	if (fd < 0) {
		/* the user's path, not the temporary name beside it */
		tza_err("'%s': %s", shown,
			fd == TZ_ERR_INVAL ? "not a regular file" : strerror(errno));
		fd = -2;
		goto out;
	}
	guarded = !tza_sigclean_push(tza_sigclean_unlink, tmp);
	if (archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		tza_err("'%s': %s", shown, archive_error_string(a));
		goto out;
	}
	time_t now = time(NULL);
	for (size_t i = 0; i < n; i++)
		if (copy_in(a, shown, top, &files[i], now) < 0)
			goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		tza_err("'%s': %s", shown, archive_error_string(a));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		tza_err("'%s': %s", shown, strerror(errno));
		goto out;
	}
	fd = -1;
	/* without overwrite: link() fails if out appeared meanwhile */
	if (overwrite ? rename(tmp, out) < 0 : link(tmp, out) < 0) {
		if (errno == EEXIST)
			tza_err_exists(shown, "-f");
		else
			tza_err("'%s': %s", shown, strerror(errno));
		goto out;
	}
	if (!overwrite)
		unlink(tmp);
	rc = 0;
out:
	archive_write_free(a);
	if (fd >= 0)
		close(fd);
	if (rc && fd != -2)
		unlink(tmp);
	if (guarded)
		tza_sigclean_pop();
	free(tmp);
	return rc;
}
