/* SPDX-License-Identifier: BSD-2-Clause */
/* sysinfo.c - host facts for the trace metadata, clocks, small parsers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rec_boot_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t rec_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

char *rec_fmt_time(uint64_t real_ns, char *buf, size_t cap)
{
	time_t s = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char tmp[32];

	gmtime_r(&s, &tm);
	strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%09lluZ", tmp, (unsigned long long)(real_ns % 1000000000ull));
	return buf;
}

/* First line of a small file, newline stripped; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

uint32_t rec_pid_max(void)
{
	char b[32];
	unsigned long v;

	read_line("/proc/sys/kernel/pid_max", b, sizeof(b));
	v = strtoul(b, NULL, 10);
	return v ? (uint32_t)v : 4194304;
}

int rec_meta_host(tz_writer *w)
{
	struct utsname u;
	struct sysinfo si;
	char b[256];
	int rc = 0;

#define SET(k, v)                                                  \
	do {                                                       \
		int r_ = tz_writer_set_meta(w, k, v);              \
		if (r_ < 0 && !rc)                                 \
			rc = r_;                                   \
	} while (0)

	if (gethostname(b, sizeof(b)) == 0) {
		b[sizeof(b) - 1] = 0;
		SET("hostname", b);
	}
	if (uname(&u) == 0) {
		SET("kernel", u.release);
		SET("kernel_version", u.version);
		SET("arch", u.machine);
	}
	snprintf(b, sizeof(b), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	SET("cpus", b);
	if (sysinfo(&si) == 0) {
		snprintf(b, sizeof(b), "%llu",
			 (unsigned long long)si.totalram * si.mem_unit / 1024);
		SET("memory_kib", b);
	}
	snprintf(b, sizeof(b), "%ld", sysconf(_SC_PAGESIZE));
	SET("page_size", b);
	snprintf(b, sizeof(b), "%u", rec_pid_max());
	SET("pid_max", b);
	read_line("/proc/sys/kernel/random/boot_id", b, sizeof(b));
	if (b[0])
		SET("boot_id", b);
	SET("recorder_version", TRACER_VERSION);
#undef SET
	return rc;
}

int rec_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mul = 1ull << 10; break;
		case 'm': case 'M': mul = 1ull << 20; break;
		case 'g': case 'G': mul = 1ull << 30; break;
		default: return -1;
		}
		end++;
		if (*end == 'i')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
	}
	if (v > UINT64_MAX / mul)
		return -1;
	v *= mul;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long rec_read_cmdline(uint32_t pid, char *buf, size_t cap, uint32_t *size, uint32_t *argc)
{
	char path[64], tmp[4096];
	size_t kept = 0, total = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		size_t c = (size_t)n;
		if (kept < cap) {
			size_t k = c < cap - kept ? c : cap - kept;
			memcpy(buf + kept, tmp, k);
			kept += k;
		}
		total += c;
	}
	close(fd);
	*size = (uint32_t)total;
	*argc = 0;
	for (size_t i = 0; i < kept; i++)
		if (!buf[i])
			(*argc)++;
	if (kept && buf[kept - 1])
		(*argc)++;
	return (long)kept;
}

int rec_read_fd(int fd, char **buf, size_t *cap, size_t slack, size_t *len)
{
	for (;;) {
		if (*cap - *len < slack) {
			char *nb = realloc(*buf, *cap * 2);
			if (!nb)
				return -1;
			*buf = nb;
			*cap *= 2;
		}
		ssize_t n = read(fd, *buf + *len, *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		*len += (size_t)n;
	}
}
