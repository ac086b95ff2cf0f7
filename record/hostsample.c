/* SPDX-License-Identifier: BSD-2-Clause */
/* hostsample.c - host samples from /proc (sample.h, EV_HOST_SAMPLE). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"

int host_parse_stat(const char *text, long hz, struct ev_host_sample *h)
{
	unsigned long long v[8] = {0};
	int n;

	if (hz <= 0 || strncmp(text, "cpu ", 4))
		return -1;
	n = sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -1;
	__u64 *out[8] = {&h->cpu_user_ns,   &h->cpu_nice_ns, &h->cpu_system_ns,	 &h->cpu_idle_ns,
			 &h->cpu_iowait_ns, &h->cpu_irq_ns,  &h->cpu_softirq_ns, &h->cpu_steal_ns};
	for (int i = 0; i < 8; i++)
		*out[i] = (uint64_t)(v[i] / (unsigned long long)hz * 1000000000ull +
				     v[i] % (unsigned long long)hz * 1000000000ull /
					 (unsigned long long)hz);
	return 0;
}

int host_parse_meminfo(const char *text, struct ev_host_sample *h)
{
	unsigned long long total = 0, avail = 0, fr = 0, buf = 0, cached = 0, srecl = 0, stot = 0,
			   sfree = 0;
	int seen = 0;

	/* "Key:   value kB" lines; only the keys below are parsed (a sscanf of
	 * every one of ~55 lines was a quarter of a host sample's cost) */
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':'), *nl = strchr(l, '\n'), *end;
		unsigned long long v;
		char key[32];
		size_t n;

		if (!colon || (nl && colon > nl) || (n = (size_t)(colon - l)) >= sizeof(key) ||
		    !strchr("MBCS", *l))
			continue;
		memcpy(key, l, n);
		key[n] = 0;
		v = strtoull(colon + 1, (char **)&end, 10);
		if (end == colon + 1)
			continue;
		if (!strcmp(key, "MemTotal"))
			total = v, seen |= 1;
		else if (!strcmp(key, "MemAvailable"))
			avail = v, seen |= 2;
		else if (!strcmp(key, "MemFree"))
			fr = v, seen |= 4;
		else if (!strcmp(key, "Buffers"))
			buf = v;
		else if (!strcmp(key, "Cached"))
			cached = v;
		else if (!strcmp(key, "SReclaimable"))
			srecl = v;
		else if (!strcmp(key, "SwapTotal"))
			stot = v;
		else if (!strcmp(key, "SwapFree"))
			sfree = v;
	}
	if ((seen & 5) != 5)
		return -1;
	h->mem_total_kib = total;
	h->mem_available_kib = (seen & 2) ? avail : fr;
	h->mem_free_kib = fr;
	h->mem_cached_kib = cached + srecl;
	h->mem_used_kib = total > fr + buf + cached + srecl ? total - fr - buf - cached - srecl : 0;
	h->swap_used_kib = stot > sfree ? stot - sfree : 0;
	return 0;
}

/* "12.34" -> 12340 (thousandths), without floating point */
static uint32_t milli(const char *s)
{
	unsigned long long ip = strtoull(s, (char **)&s, 10), fp = 0;
	int digits = 0;

	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (digits < 3) {
				fp = fp * 10 + (unsigned long long)(*s - '0');
				digits++;
			}
	while (digits++ < 3)
		fp *= 10;
	return (uint32_t)(ip * 1000 + fp);
}

int host_parse_loadavg(const char *text, struct ev_host_sample *h)
{
	char a[32], b[32], c[32];
	unsigned int run, all;

	if (sscanf(text, "%31s %31s %31s %u/%u", a, b, c, &run, &all) != 5)
		return -1;
	h->load1_milli = milli(a);
	h->load5_milli = milli(b);
	h->load15_milli = milli(c);
	h->nr_running = run;
	return 0;
}

int host_parse_psi(const char *text, __u32 *some_avg10, __u64 *some_us, __u32 *full_avg10,
		   __u64 *full_us, int *has_full)
{
	int got = 0;

	*has_full = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char kind[8], avg[32];
		unsigned long long total;

		if (sscanf(l, "%7s avg10=%31s avg60=%*s avg300=%*s total=%llu", kind, avg,
			   &total) != 3)
			continue;
		if (!strcmp(kind, "some")) {
			*some_avg10 = milli(avg) / 10;
			*some_us = total;
			got |= 1;
		} else if (!strcmp(kind, "full")) {
			*full_avg10 = milli(avg) / 10;
			*full_us = total;
			*has_full = 1;
		}
	}
	return got ? 0 : -1;
}

int host_parse_diskstats(const char *text, int (*is_disk)(void *ctx, const char *name), void *ctx,
			 struct ev_host_sample *h)
{
	uint64_t rd = 0, wr = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned int maj, min;
		char name[64];
		unsigned long long rio, rmerge, rsec, rms, wio, wmerge, wsec;

		if (sscanf(l, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu", &maj, &min, name,
			   &rio, &rmerge, &rsec, &rms, &wio, &wmerge, &wsec) != 10)
			continue;
		if (is_disk && !is_disk(ctx, name))
			continue;
		rd += rsec * 512;
		wr += wsec * 512;
	}
	h->disk_read_bytes = rd;
	h->disk_write_bytes = wr;
	return 0;
}

int host_parse_netdev(const char *text, struct ev_host_sample *h)
{
	uint64_t rx = 0, tx = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':'), *nl = strchr(l, '\n');
		unsigned long long v[9];
		char name[64];
		size_t n;

		if (!colon || (nl && colon > nl))
			continue;
		while (*l == ' ')
			l++;
		n = (size_t)(colon - l);
		if (n == 0 || n >= sizeof(name))
			continue;
		memcpy(name, l, n);
		name[n] = 0;
		if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 9)
			continue;
		if (!strcmp(name, "lo"))
			continue;
		rx += v[0];
		tx += v[8];
	}
	h->net_rx_bytes = rx;
	h->net_tx_bytes = tx;
	return 0;
}

/* The files of a host sample, opened once and read again from offset 0
 * (procfs regenerates them on every read at 0): no open, path walk and
 * close per file per sample. O_CLOEXEC: COMMAND does not inherit them. */
enum {
	HF_STAT,
	HF_MEMINFO,
	HF_LOADAVG,
	HF_PSI_CPU,
	HF_PSI_MEM,
	HF_PSI_IO,
	HF_DISKSTATS,
	HF_NETDEV,
	HF_N
};
static const char *const host_files[HF_N] = {
    "/proc/stat",	  "/proc/meminfo",	   "/proc/loadavg",
    "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io",
    "/proc/diskstats",	  "/proc/net/dev",
};

/* Which /proc/diskstats names are whole disks, kept by name (a path walk
 * per line, every sample, was most of a host sample's cost): a device that
 * appears later is looked at once; beyond DISK_CACHE names, every time. */
#define DISK_CACHE 64

struct host_sampler {
	int fd[HF_N]; /* -1: not open (tried again next time) */
	struct {
		char name[32];
		int is_disk;
	} disk[DISK_CACHE];
	int ndisk;
	long hz; /* USER_HZ of /proc/stat */
	char buf[65536];
};

/* a whole disk with a device behind it (not a partition, loop, dm, md, ram) */
static int real_disk(void *ctx, const char *name)
{
	struct host_sampler *hs = ctx;
	char p[128];
	int r;

	if (strchr(name, '/'))
		return 0;
	for (int i = 0; i < hs->ndisk; i++)
		if (!strcmp(hs->disk[i].name, name))
			return hs->disk[i].is_disk;
	snprintf(p, sizeof(p), "/sys/block/%s/device", name);
	r = access(p, F_OK) == 0;
	if (hs->ndisk < DISK_CACHE && strlen(name) < sizeof(hs->disk[0].name)) {
		strcpy(hs->disk[hs->ndisk].name, name);
		hs->disk[hs->ndisk++].is_disk = r;
	}
	return r;
}

/* File id's text into hs->buf (at most cap - 1 bytes, NUL-terminated);
 * 0, or -1 when unreadable or empty. */
static int read_text(struct host_sampler *hs, int id, size_t cap)
{
	size_t len = 0;
	int fd = hs->fd[id];

	if (fd < 0) {
		fd = open(host_files[id], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1; /* tried again next time (not cached) */
		hs->fd[id] = fd;
	}
	while (len < cap - 1) {
		ssize_t n = pread(fd, hs->buf + len, cap - 1 - len, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	hs->buf[len] = 0;
	return len ? 0 : -1;
}

struct host_sampler *host_sample_new(void)
{
	struct host_sampler *hs = calloc(1, sizeof(*hs));

	if (!hs)
		return NULL;
	for (int i = 0; i < HF_N; i++)
		hs->fd[i] = -1;
	hs->hz = sysconf(_SC_CLK_TCK);
	return hs;
}

void host_sample_free(struct host_sampler *hs)
{
	if (!hs)
		return;
	for (int i = 0; i < HF_N; i++)
		if (hs->fd[i] >= 0)
			close(hs->fd[i]);
	free(hs);
}

/* The pressure files: CPU first, memory and I/O only when it is there. */
static void read_psi(struct host_sampler *hs, struct ev_host_sample *h)
{
	char *buf = hs->buf;
	int has_full;

	if (read_text(hs, HF_PSI_CPU, sizeof(hs->buf)) ||
	    host_parse_psi(buf, &h->psi_cpu_some_avg10, &h->psi_cpu_some_us, &h->psi_cpu_full_avg10,
			   &h->psi_cpu_full_us, &has_full))
		return;
	h->flags |= EV_HOST_PSI | (has_full ? EV_HOST_PSI_CPU_FULL : 0);
	if (read_text(hs, HF_PSI_MEM, sizeof(hs->buf)) == 0)
		host_parse_psi(buf, &h->psi_mem_some_avg10, &h->psi_mem_some_us,
			       &h->psi_mem_full_avg10, &h->psi_mem_full_us, &has_full);
	if (read_text(hs, HF_PSI_IO, sizeof(hs->buf)) == 0)
		host_parse_psi(buf, &h->psi_io_some_avg10, &h->psi_io_some_us,
			       &h->psi_io_full_avg10, &h->psi_io_full_us, &has_full);
}

int host_sample_read(struct host_sampler *hs, struct ev_host_sample *h, uint64_t ts_ns)
{
	char *buf = hs->buf;
	int rc = 0;

	memset(h, 0, sizeof(*h));
	h->hdr.size = sizeof(*h);
	h->hdr.type = EV_HOST_SAMPLE;
	h->hdr.ts_ns = ts_ns;
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	h->ncpus = nc > 0 ? (uint32_t)nc : 1;
	/* /proc/stat's first line is all we need: a small read is enough */
	if (read_text(hs, HF_STAT, 4096) || host_parse_stat(buf, hs->hz, h))
		rc = -1;
	if (read_text(hs, HF_MEMINFO, sizeof(hs->buf)) || host_parse_meminfo(buf, h))
		rc = -1;
	if (read_text(hs, HF_LOADAVG, sizeof(hs->buf)) == 0)
		host_parse_loadavg(buf, h);
	read_psi(hs, h);
	if (read_text(hs, HF_DISKSTATS, sizeof(hs->buf)) == 0)
		host_parse_diskstats(buf, real_disk, hs, h);
	if (read_text(hs, HF_NETDEV, sizeof(hs->buf)) == 0)
		host_parse_netdev(buf, h);
	return rc;
}
