/* SPDX-License-Identifier: BSD-2-Clause */
/* tz_wopen.c - the writer's open (options, ring geometry, identity, default
 * metadata, the compression thread) and close (footer, full disk, free). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include "tz_wr.h"
#include "common/thread.h"

/* ---------------------------------------------------------------- open */

static void read_boot_id(uint8_t out[16])
{
	char s[64] = "";
	memset(out, 0, 16);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f)
		return;
	if (fgets(s, sizeof(s), f)) {
		int n = 0;
		for (char *p = s; *p && n < 32; p++) {
			int v;
			if (*p >= '0' && *p <= '9')
				v = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				v = *p - 'a' + 10;
			else
				continue;
			out[n / 2] |= (uint8_t)(n % 2 ? v : v << 4);
			n++;
		}
	}
	fclose(f);
}

static void default_meta(tz_writer *w)
{
	struct utsname u;
	char buf[64];
	char host[256];
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		tz_writer_set_meta(w, "hostname", host);
	}
	if (uname(&u) == 0) {
		tz_writer_set_meta(w, "kernel", u.release);
		tz_writer_set_meta(w, "arch", u.machine);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	tz_writer_set_meta(w, "cpus", buf);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	tz_writer_set_meta(w, "page_size", buf);
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)sysconf(_SC_PHYS_PAGES) *
		     (unsigned long long)sysconf(_SC_PAGESIZE));
	tz_writer_set_meta(w, "mem_bytes", buf);
}

static int wopen(tz_writer **out, const char *path, const struct tz_writer_opts *opts)
{
	*out = NULL;
	tz_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return TZ_ERR_NOMEM;
	w->fd = -1;
	if (opts)
		w->o = *opts;
	if (!w->o.chunk_bytes)
		w->o.chunk_bytes = 1u << 20;
	if (!w->o.chunk_age_ns)
		w->o.chunk_age_ns = 1000000000ull;
	if (!w->o.level)
		w->o.level = 3;
	if (!w->o.state_every)
		w->o.state_every = 64;
	w->name = strdup(opts && opts->name ? opts->name : path ? path : "<memory>");
	w->type_idx = calloc(65536, sizeof(*w->type_idx));
	w->cctx = ZSTD_createCCtx();
	if (!w->name || !w->type_idx || !w->cctx) {
		tz_writer_free(w);
		return TZ_ERR_NOMEM;
	}
	wr_cb_reset(&w->cb);
	wr_cb_reset(&w->sb);
	*out = w;
	if (w->o.chunk_bytes > (32u << 20) || w->o.chunk_bytes < 64 || w->o.threads < 0 ||
	    w->o.threads > 1) {
		wr_set_err(w, TZ_ERR_INVAL, UINT64_MAX, "bad writer options");
		return TZ_ERR_INVAL;
	}
	if (w->o.ring_size) {
		w->ring = 1;
		w->blockmax = TZ_BHDR_MIN + TZ_CHUNK_EXT + ZSTD_compressBound(w->o.chunk_bytes);
		if (w->o.ring_size < TZ_RING_HEAD + 4ull * w->o.chunk_bytes ||
		    w->o.ring_size < TZ_RING_HEAD + 4 * w->blockmax) {
			wr_set_err(
			    w, TZ_ERR_INVAL, UINT64_MAX,
			    "ring size %llu is too small (at least %llu bytes with %u-byte chunks)",
			    (unsigned long long)w->o.ring_size,
			    (unsigned long long)(TZ_RING_HEAD + 4 * w->blockmax), w->o.chunk_bytes);
			return TZ_ERR_INVAL;
		}
		uint64_t area = w->o.ring_size - TZ_RING_HEAD;
		uint64_t n = area / (4 * w->blockmax);
		if (n > 64)
			n = 64;
		if (n < 2)
			n = 2;
		w->nseg = (uint32_t)n;
		w->seg_size = area / n;
		if (w->seg_size > 65536)
			w->seg_size &= ~4095ull;
		w->ring_start = TZ_RING_HEAD;
		w->head_pos = TZ_HDR_SIZE;
		w->o.threads = 0; /* ring mode compresses in the caller (FORMAT.md) */
	}
	tz_uuid4(w->uuid);
	if (w->o.boot_id)
		memcpy(w->boot_id, w->o.boot_id, 16);
	else
		read_boot_id(w->boot_id);
	tz_clock_pair(&w->start_boot, &w->start_real);
	w->last_sync_ns = w->start_boot;
	w->need_state = w->o.state_fn != NULL;
	default_meta(w);
	return 0;
}

static int start(tz_writer *w)
{
	int rc = wr_write_header(w);
	if (rc)
		return rc;
	w->pos = TZ_HDR_SIZE;
	w->seq = 1;
	if (w->o.threads == 1) {
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->cv, NULL);
		if (tr_thread_start(&w->thr, wr_thread_main, w)) {
			pthread_mutex_destroy(&w->mu);
			pthread_cond_destroy(&w->cv);
			wr_set_err(w, TZ_ERR_NOMEM, UINT64_MAX,
				   "cannot start the compression thread");
			return TZ_ERR_NOMEM;
		}
		w->threaded = 1;
	}
	return 0;
}

int tz_writer_open(tz_writer **out, const char *path, const struct tz_writer_opts *opts)
{
	if (!out || !path)
		return TZ_ERR_INVAL;
	int rc = wopen(out, path, opts);
	tz_writer *w = *out;
	if (rc)
		return rc;
	/* a fresh 0600 inode, never a FIFO, device or a symlink's target */
	int fd = tz_create_file(path, !!(w->o.flags & TZ_W_OVERWRITE));
	if (fd < 0) {
		int e = errno;
		if (fd == TZ_ERR_INVAL) {
			wr_set_err(w, TZ_ERR_IO, UINT64_MAX, "not a regular file");
			return TZ_ERR_IO;
		}
		wr_set_err(w, fd, UINT64_MAX, "cannot create: %s", strerror(e));
		return fd;
	}
	w->fd = fd;
	/* held until close: readers tell a file being written from an
	 * abandoned one (tz_info.live); advisory, so a failure is harmless */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if (w->ring) {
		int e = posix_fallocate(w->fd, 0, (off_t)w->o.ring_size);
		if (e == EOPNOTSUPP || e == EINVAL)
			e = ftruncate(w->fd, (off_t)w->o.ring_size) ? errno : 0;
		if (e) {
			rc = e == ENOSPC ? TZ_ERR_NOSPC : TZ_ERR_IO;
			wr_set_err(w, rc, UINT64_MAX, "cannot preallocate %llu bytes: %s",
				   (unsigned long long)w->o.ring_size, strerror(e));
			/* leave nothing behind that looks like a trace */
			close(w->fd);
			w->fd = -1;
			unlink(path);
			return rc;
		}
	}
	rc = start(w);
	if (rc) {
		/* the header could not be written (a full disk): the 0-byte
		 * file this call created goes too */
		close(w->fd);
		w->fd = -1;
		unlink(path);
	}
	return rc;
}

int tz_writer_open_mem(tz_writer **out, const struct tz_writer_opts *opts)
{
	if (!out)
		return TZ_ERR_INVAL;
	int rc = wopen(out, NULL, opts);
	tz_writer *w = *out;
	if (rc)
		return rc;
	w->is_mem = 1;
	if (w->ring) {
		w->mem.p = calloc(1, w->o.ring_size);
		if (!w->mem.p)
			return TZ_ERR_NOMEM;
		w->mem.cap = w->o.ring_size;
		w->mem.len = w->o.ring_size;
	}
	return start(w);
}

/* ---------------------------------------------------------------- close */

/* Final metadata, footer index and trailer of a linear file at w->pos (or
 * the final metadata of a ring file). */
static int write_footer(tz_writer *w)
{
	/* the stop clock anchor travels in the final metadata */
	uint64_t sb;
	int64_t sr;
	char num[32];
	int rc;
	tz_clock_pair(&sb, &sr);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)sb);
	tz_writer_set_meta(w, "stop_anchor_boot_ns", num);
	snprintf(num, sizeof(num), "%lld", (long long)sr);
	tz_writer_set_meta(w, "stop_anchor_real_ns", num);
	if (w->ring)
		return wr_write_meta_block(w, TZ_RING_FINAL);
	rc = wr_write_meta_block(w, UINT64_MAX);
	if (rc)
		return rc;
	uint64_t ioff = w->pos;
	uint64_t iseq = w->seq++;
	struct tz_buf idx = w->index; /* the index does not list itself */
	w->index = (struct tz_buf){0};
	rc = wr_write_block(w, TZ_B_INDEX, iseq, NULL, idx.p, idx.len, 0, UINT64_MAX);
	tz_buf_free(&idx);
	if (rc)
		return rc;
	uint8_t t[TZ_TRAILER_SIZE];
	tz_trailer_encode(t, w->seq++, ioff, w->pos - ioff);
	struct iovec iov = {t, sizeof(t)};
	rc = wr_out_write(w, w->pos, &iov, 1);
	if (!rc) {
		w->pos += TZ_TRAILER_SIZE;
		w->st.bytes_out += TZ_TRAILER_SIZE;
	}
	return rc;
}

/*
 * The disk filled up (TZ_ERR_NOSPC): cut a torn block off, then seal the
 * file in the space reserve() kept free: every block written before the
 * error stays readable with a footer; the open chunk and what was queued
 * after the error are lost. Returns TZ_ERR_NOSPC (sealed) or the error of
 * the footer (the file then ends at the last whole block).
 */
static int finish_nospc(tz_writer *w)
{
	uint64_t end = w->pos;

	if (ftruncate(w->fd, (off_t)end))
		return w->err;
	w->err = 0;
	w->finishing = 1;
	tz_writer_set_meta(w, "write_error", "no space left on device");
	int rc = write_footer(w);
	if (rc) {
		if (ftruncate(w->fd, (off_t)end)) {
			/* nothing more to do: the reader resynchronises */
		}
		w->err = TZ_ERR_NOSPC;
		return rc;
	}
	if (!(w->o.flags & TZ_W_NO_FSYNC))
		fsync(w->fd);
	w->err = TZ_ERR_NOSPC;
	return TZ_ERR_NOSPC;
}

/* End the compression thread, if any: after what is queued is written, or
 * (abandon) at once, the queue left to the caller. */
static void stop_thread(tz_writer *w, int abandon)
{
	if (!w->threaded)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	if (abandon)
		w->abandon = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thr, NULL);
	w->threaded = 0;
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
}

static int finish(tz_writer *w)
{
	int rc = wr_sticky(w);
	if (rc && !(rc == TZ_ERR_NOSPC && !w->is_mem && !w->ring))
		return rc;
	if (w->in_state)
		return TZ_ERR_STATE;
	if (!rc)
		rc = wr_ensure_head(w) ?: wr_seal(w, 1);
	wr_drain(w);
	stop_thread(w, 0);
	if (w->err == TZ_ERR_NOSPC && !w->is_mem && !w->ring)
		return finish_nospc(w);
	if (rc || w->err)
		return w->err ? w->err : rc;
	w->finishing = 1;
	rc = write_footer(w);
	/* give back the disk reserve() allocated beyond the end */
	if (!rc && !w->is_mem && !w->ring && w->reserved_to > w->pos &&
	    ftruncate(w->fd, (off_t)w->pos)) {
		wr_set_err(w, TZ_ERR_IO, UINT64_MAX, "ftruncate: %s", strerror(errno));
		rc = w->err;
	}
	if (!rc && !w->is_mem && !(w->o.flags & TZ_W_NO_FSYNC) && fsync(w->fd)) {
		wr_set_err(w, TZ_ERR_IO, UINT64_MAX, "fsync: %s", strerror(errno));
		rc = w->err;
	}
	return rc ? rc : w->err ? w->err : w->soft_err;
}

int tz_writer_close(tz_writer *w)
{
	if (!w)
		return TZ_ERR_INVAL;
	if (w->is_mem) {
		tz_writer_free(w);
		return TZ_ERR_STATE;
	}
	int rc = finish(w);
	if (w->fd >= 0 && close(w->fd) && !rc)
		rc = TZ_ERR_IO;
	w->fd = -1;
	tz_writer_free(w);
	return rc;
}

int tz_writer_mem_take(tz_writer *w, void **buf, size_t *len)
{
	if (!w || !buf || !len)
		return TZ_ERR_INVAL;
	if (!w->is_mem) {
		tz_writer_free(w);
		return TZ_ERR_STATE;
	}
	int rc = finish(w);
	*buf = w->mem.p;
	*len = w->mem.len;
	w->mem = (struct tz_buf){0};
	tz_writer_free(w);
	return rc;
}

int tz_writer_mem_peek(tz_writer *w, const void **buf, size_t *len)
{
	if (!w || !buf || !len || !w->is_mem)
		return TZ_ERR_INVAL;
	wr_drain(w);
	*buf = w->mem.p;
	*len = w->mem.len;
	return 0;
}

void tz_writer_free(tz_writer *w)
{
	if (!w)
		return;
	stop_thread(w, 1);
	while (w->qhead) {
		struct job *j = w->qhead;
		w->qhead = j->next;
		free(j->raw);
		free(j);
	}
	if (w->fd >= 0)
		close(w->fd);
	tz_types_free(w->types, w->ntypes);
	tz_kv_free(w->kv, w->nkv);
	free(w->type_idx);
	wr_cb_free(&w->cb);
	wr_cb_free(&w->sb);
	tz_buf_free(&w->index);
	tz_buf_free(&w->cbuf);
	tz_buf_free(&w->mem);
	ZSTD_freeCCtx(w->cctx);
	free(w->name);
	free(w);
}
