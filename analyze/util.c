/* SPDX-License-Identifier: BSD-2-Clause */
/* util.c - messages, opening traces, parsing times and numbers. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze.h"
#include "bundle.h"
#include "fleet.h"
#include "textsafe.h"

static unsigned nerr; /* lines tza_err printed */

unsigned tza_err_count(void)
{
	return nerr;
}

void tza_err(const char *fmt, ...)
{
	va_list ap;
	char buf[4096];
	nerr++;
	/* a message names paths, options and trace data: escaped (textsafe.h) */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("tracer-analyze: ", stderr);
	tza_safe_msg(stderr, buf);
	fputc('\n', stderr);
}

void tza_err_tz(const char *msg, const char *path, int rc)
{
	if (msg && *msg)
		tza_err("%s", msg);
	else
		tza_err("'%s': %s", path, tz_strerror(rc));
}

void tza_err_exists(const char *path, const char *hint)
{
	tza_err("'%s': file exists (use %s to overwrite)", path, hint);
}

void tza_err_not_file(const char *path, const char *what)
{
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		tza_err("'%s' is a directory, not %s", path, what);
	else
		tza_err("'%s': not a regular file", path);
}

int tza_refuse_dir(const char *path, const char *what)
{
	struct stat st;
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	tza_err_not_file(path, what);
	return 1;
}

FILE *tza_create_out(const char *path, int force, unsigned mode, const char *fmode,
		     const char *hint)
{
	int fd = tz_create_file_mode(path, force, mode);
	FILE *f = NULL;
	if (fd == TZ_ERR_EXISTS)
		tza_err_exists(path, hint);
	else if (fd == TZ_ERR_INVAL)
		tza_err_not_file(path, "an output file");
	else if (fd < 0 || !(f = fdopen(fd, fmode)))
		tza_err("'%s': cannot create: %s", path, strerror(errno));
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

unsigned tza_argv_mode(tz_reader *r)
{
	const char *a = tz_reader_meta_get(r, "redact"), *b = tz_reader_meta_get(r, "redacted");
	return (a && *a) || (b && *b) ? TZA_MODE_UMASK : TZA_MODE_PRIVATE;
}

int tza_run_to_fd(int (*fn)(int, char **), char **av, int fd)
{
	int argc = 0;
	while (av[argc])
		argc++;
	fflush(stdout);
	int saved = dup(1);
	if (saved < 0) {
		tza_err("standard output: %s", strerror(errno));
		return -1;
	}
	int dn = fd < 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	if (dup2(fd >= 0 ? fd : dn, 1) < 0) {
		tza_err("standard output: %s", strerror(errno));
		if (dn >= 0)
			close(dn);
		close(saved);
		return -1;
	}
	if (dn >= 0)
		close(dn);
	optind = 0;
	int rc = fn(argc, av);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	clearerr(stdout);
	return rc;
}

/* analyze.h */
char *tza_member_name(const char *path, size_t *i)
{
	size_t len = strlen(path), k;
	struct stat st;
	if (len < 4 || path[len - 1] != ']' || stat(path, &st) == 0)
		return NULL;
	for (k = len - 1; k > 0 && path[k - 1] >= '0' && path[k - 1] <= '9'; k--)
		;
	if (k < 2 || k == len - 1 || path[k - 1] != '[' || len - 1 - k > 6)
		return NULL;
	char *base = strndup(path, k - 1);
	if (base)
		*i = strtoul(path + k, NULL, 10);
	return base;
}

int tza_multi_open_path(const char *path, const struct tz_reader_opts *opts, tz_multi **mt)
{
	*mt = NULL;
	if (tza_bundle_sniff(path)) {
		const void *buf;
		size_t len;
		const char *member;
		if (tza_bundle_trace(path, &buf, &len, &member) < 0)
			return TZA_OPEN_SAID;
		return tz_multi_open_mem(mt, buf, len, path, opts);
	}
	return tz_multi_open(mt, path, opts);
}

int tza_refuse_out_is_in(const char *cmd, const char *out, const char *in)
{
	struct stat so, si;
	size_t i;
	char *base = tza_member_name(in, &i);
	int same = !stat(out, &so) && !stat(base ? base : in, &si) && so.st_dev == si.st_dev &&
		   so.st_ino == si.st_ino;
	free(base);
	if (same)
		tza_err("%s: '%s' is the file '%s' is read from: write to another file", cmd, out, in);
	return same;
}

/* Is out (stat'd into *so) the file path names: itself, or for "RUN.tz[i]"
 * its RUN.tz, or for a directory one of the *.tz entries it is read for
 * (fleet.h)? The file read into *hit (malloc'd, or NULL). */
static int out_is(const struct stat *so, const char *path, char **hit)
{
	struct stat si;
	size_t i;
	char *base = tza_member_name(path, &i);
	const char *p = base ? base : path;
	*hit = NULL;
	if (stat(p, &si)) {
		free(base);
		return 0;
	}
	if (so->st_dev == si.st_dev && so->st_ino == si.st_ino) {
		*hit = strdup(path);
		free(base);
		return 1;
	}
	free(base);
	if (!S_ISDIR(si.st_mode))
		return 0;
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n < 4 || strcmp(de->d_name + n - 3, ".tz"))
			continue;
		char *e = malloc(strlen(path) + n + 2);
		if (!e)
			break;
		sprintf(e, "%s/%s", path, de->d_name);
		if (!stat(e, &si) && so->st_dev == si.st_dev && so->st_ino == si.st_ino) {
			*hit = e;
			break;
		}
		free(e);
	}
	if (d)
		closedir(d);
	return *hit != NULL;
}

int tza_refuse_out_in_args(const char *cmd, const char *out, char *const *in, int n)
{
	struct stat so;
	if (!out || !strcmp(out, "-") || stat(out, &so))
		return 0;
	for (int k = 0; k < n; k++) {
		char *hit;
		if (out_is(&so, in[k], &hit)) {
			tza_err("%s: '%s' is the file '%s' is read from: write to another file", cmd,
				out, hit ? hit : in[k]);
			free(hit);
			return 1;
		}
	}
	return 0;
}

int tza_refuse_stdout_name(const char *cmd, const char *opt, const char *out)
{
	if (!out || strcmp(out, "-"))
		return 0;
	tza_err("%s: %s -: a trace is written to a file it can seek in, not to standard output: "
		"name a file",
		cmd, opt);
	return 1;
}

/* "RUN.tz[i]" where no file has that name and RUN.tz is a multi-host trace:
 * member i's reader into *r (messages name "RUN.tz[i]"; the container stays
 * open until exit, as a bundle's memory does). 1 when path is such a name
 * (*rc: its open's result, or 1 when there is no member i, after one line),
 * 0 when it is not. */
static int open_member(const char *path, const struct tz_reader_opts *opts, tz_reader **r,
		       int *rc)
{
	static tz_multi *held[16]; /* a command opens one or two traces */
	static size_t nheld;
	size_t i = 0;
	if (nheld == sizeof(held) / sizeof(held[0]))
		return 0;
	char *base = tza_member_name(path, &i);
	tz_multi *mt = NULL;
	if (!base || !tza_fleet_is_container(base) || tza_multi_open_path(base, opts, &mt) < 0 ||
	    !tz_multi_is_container(mt)) {
		tz_multi_free(mt);
		free(base);
		return 0;
	}
	if (i >= tz_multi_count(mt)) {
		tza_err("'%s': '%s' holds %zu member traces (0 to %zu): 'tracer-analyze info' "
			"lists them",
			path, base, tz_multi_count(mt), tz_multi_count(mt) ? tz_multi_count(mt) - 1 : 0);
		tz_multi_free(mt);
		free(base);
		*rc = 1;
		*r = NULL;
		return 1;
	}
	*rc = tz_multi_reader(mt, i, r);
	held[nheld++] = mt;
	free(base);
	return 1;
}

int tza_open_container(const char *path, const struct tz_reader_opts *opts, tz_multi **mt)
{
	*mt = NULL;
	if (!tza_fleet_is_container(path))
		return 0;
	int rc = tza_multi_open_path(path, opts, mt);
	if (rc < 0) {
		if (rc != TZA_OPEN_SAID)
			tza_err_tz(tz_multi_errmsg(*mt), path, rc);
		tz_multi_free(*mt);
		*mt = NULL;
		return -1;
	}
	if (tz_multi_is_container(*mt))
		return 1;
	tz_multi_free(*mt);
	*mt = NULL;
	return 0;
}

tz_reader *tza_open(const char *path, const struct tz_reader_opts *opts)
{
	tz_reader *r = NULL;
	int rc;
	if (open_member(path, opts, &r, &rc)) {
		if (rc > 0)
			return NULL;
	} else if (tza_refuse_dir(path, "a trace or bundle")) {
		return NULL;
	} else if (tza_bundle_sniff(path)) {
		/* a bundle: the trace is read into memory that lives until exit */
		const void *buf;
		size_t len;
		const char *member;
		if (tza_bundle_trace(path, &buf, &len, &member) < 0)
			return NULL;
		char name[4096];
		snprintf(name, sizeof(name), "%s:%s", path, member);
		rc = tz_reader_open_mem(&r, buf, len, name, opts);
	} else {
		rc = tz_reader_open(&r, path, opts);
	}
	if (rc < 0) {
		const char *m = r ? tz_reader_errmsg(r) : "";
		if (rc == TZ_ERR_MULTI)
			tza_err("%s; name one as '%s[0]' ('tracer-analyze info' lists them)", m,
				path);
		else
			tza_err_tz(m, path, rc);
		tz_reader_free(r);
		return NULL;
	}
	return r;
}

int tza_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-') {
		tza_err("%s: '%s' is not a number", opt, s ? s : "");
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end) {
		tza_err("%s: '%s' is not a number", opt, s);
		return -1;
	}
	if (v < min || v > max) {
		tza_err("%s: %llu is out of range [%llu, %llu]", opt, v, (unsigned long long)min,
			(unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

/* "90", "1.5", "1m30s", "2h", "250ms", "3us", "10ns" -> ns; -1 if malformed. */
static int parse_rel(const char *s, uint64_t *out)
{
	long double total = 0;
	const char *p = s;
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		/* decimal digits and a point only: not "nan", "inf", hex or 1e3 */
		size_t k = strspn(p, "0123456789.");
		errno = 0;
		long double v = k ? strtold(p, &end) : 0;
		if (!k || end != p + k || errno || v < 0)
			return -1;
		p = end;
		long double mul = 1e9L;
		if (!strncmp(p, "ns", 2)) {
			mul = 1;
			p += 2;
		} else if (!strncmp(p, "us", 2)) {
			mul = 1e3L;
			p += 2;
		} else if (!strncmp(p, "ms", 2)) {
			mul = 1e6L;
			p += 2;
		} else if (*p == 's') {
			p++;
		} else if (*p == 'm') {
			mul = 60e9L;
			p++;
		} else if (*p == 'h') {
			mul = 3600e9L;
			p++;
		} else if (*p == 'd') {
			mul = 86400e9L;
			p++;
		} else if (*p) {
			return -1;
		}
		total += v * mul;
	}
	if (total > 1.8e19L)
		return -1;
	*out = (uint64_t)total;
	return 0;
}

int tza_parse_when(const char *opt, const char *s, int64_t *wall_ns, uint64_t *rel_ns)
{
	if (s && strchr(s, 'T') && strchr(s, '-')) {
		struct tm tm;
		memset(&tm, 0, sizeof(tm));
		const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		long double frac = 0;
		if (end && *end == '.') {
			char *e2;
			frac = strtold(end, &e2);
			end = e2;
		}
		int utc = end && *end == 'Z';
		if (utc)
			end++;
		if (!end || *end) {
			tza_err("%s: '%s' is not a time (try 90, 1m30s or 2026-11-29T10:00:00)", opt, s);
			return -1;
		}
		tm.tm_isdst = -1;
		time_t t = utc ? timegm(&tm) : mktime(&tm);
		/* epoch ns in an int64_t: 1677-09-21 to 2262-04-11 */
		if (t <= INT64_MIN / 1000000000LL || t >= INT64_MAX / 1000000000LL) {
			tza_err("%s: '%s' is out of range (years 1678 to 2262)", opt, s);
			return -1;
		}
		*wall_ns = (int64_t)t * 1000000000LL + (int64_t)(frac * 1e9L);
		return 1;
	}
	if (!s || parse_rel(s, rel_ns) < 0) {
		tza_err("%s: '%s' is not a time (try 90, 1m30s or 2026-11-29T10:00:00)", opt,
			s ? s : "");
		return -1;
	}
	return 0;
}

int tza_parse_time(tz_reader *r, const char *opt, const char *s, uint64_t *out_ns)
{
	const struct tz_info *in = tz_reader_info(r);
	uint64_t rel;
	int64_t want, first_rt;
	int k = tza_parse_when(opt, s, &want, &rel);
	if (k < 0)
		return -1;
	if (k == 1) {
		if (tz_reader_realtime(r, in->first_ts_ns, &first_rt) < 0) {
			tza_err("%s: the trace has no clock anchor to convert wall-clock time", opt);
			return -1;
		}
		int64_t d = tza_sub_sat(want, first_rt);
		*out_ns = d <= 0 ? in->first_ts_ns : in->first_ts_ns + (uint64_t)d;
		return 0;
	}
	*out_ns = in->first_ts_ns + rel;
	return 0;
}
