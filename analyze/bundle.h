/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bundle.h - bug-report bundles (.tar.gz, .tgz, .zip) made by
 * `tracer-analyze bundle`, and reading a trace straight out of one with
 * libarchive: no extraction to disk, nothing is ever written.
 *
 * Reading is hostile-input safe. The whole archive is walked and refused
 * with one message when any member
 *   - has an absolute path, a ".." component, or no name;
 *   - is not a regular file or a directory (symlinks, hard links, devices,
 *     fifos, sockets);
 *   - is sparse (GNU tar's sparse formats, PAX 0.0, 0.1, 1.0; or data
 *     blocks that leave a hole): holes are not stored, so a cap counted on
 *     stored bytes would not see them; tracer never writes one;
 *   - claims (header) or turns out (while reading) to be larger than the
 *     member cap (TRACER_BUNDLE_MAX_MB MiB, default 1024);
 * and when the archive holds more than 10,000 members, decompresses to more
 * than 2 x cap + 256 MiB in total, or past 64 MiB decompresses to more than
 * 200 times the bytes read from the file (a zip or gzip bomb). With no
 * holes, every byte counted is a byte decompressed, hashed and (for the
 * trace) kept: memory is the trace member (at most the cap) plus
 * libarchive's buffers, CPU time is linear in the bytes counted (at most
 * 2 x cap + 256 MiB) and in the members (at most 10,000).
 *
 * The trace is the first regular member whose name ends in ".tz", or the
 * one named "trace.tz" when there are several.
 */
#ifndef TRACER_BUNDLE_H
#define TRACER_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Does path start like an archive (gzip, zip or tar magic)? 1 yes, 0 no or
 * unreadable (the caller's open then names the error).
 */
int tza_bundle_sniff(const char *path);

/*
 * Read the trace member of bundle path into memory. On success returns 0,
 * *buf and *len hold the member and *member its name inside the archive; all
 * three are owned by a registry that keeps them until exit (readers made
 * with tz_reader_open_mem() on them stay valid), and a second call for the
 * same unchanged file returns the same copy. On failure prints one line
 * ("tracer-analyze: 'r.tar.gz': member '../x': path leaves the bundle") and
 * returns -1; a later call for the same unchanged file returns -1 again
 * without a second line.
 */
int tza_bundle_trace(const char *path, const void **buf, size_t *len, const char **member);

/*
 * Forget every trace tza_bundle_trace() kept (their memory freed): for the
 * fuzz target (tests/fuzz/fuzz_cmd.c), between inputs written to one path,
 * once no reader or multi-host handle made on one is used again.
 */
void tza_bundle_cache_clear(void);

/*
 * The same checks and result on an archive held in memory (data, size
 * bytes), for the fuzz target (tests/fuzz/fuzz_bundle.c): name only labels
 * messages; nothing is cached: *buf and *member are the caller's to free.
 */
int tza_bundle_trace_mem(const char *name, const void *data, size_t size, void **buf,
			 size_t *len, char **member);

/* One file to put in a bundle. */
struct tza_bundle_file {
	const char *name; /* name inside the bundle, below its top directory */
	const char *path; /* file on disk to copy in */
	unsigned mode;	  /* permission bits in the archive; 0 = 0644 */
};

/*
 * Write files[0..n) into a new archive at out (.tar.gz/.tgz: gzip'd pax tar;
 * .zip: deflate), each under the directory top/ with its mode (0644 when
 * 0), owner 0, mtime now. The archive itself is mode 0600 (it holds a trace). The archive is written to a temporary name beside out
 * (out.tmp.PID) and renamed to out when complete: over an existing regular
 * file or symlink only with overwrite (else "file exists"); a directory,
 * FIFO or device at out is refused. Messages name shown (the path as the
 * user gave it; out when NULL), never the temporary name. Returns 0, or -1
 * with one line printed.
 */
int tza_bundle_write(const char *out, const char *shown, const char *top,
		     const struct tza_bundle_file *files, size_t n, int overwrite);

/* Does the output path name a bundle type we write (.tar.gz, .tgz, .zip)? */
int tza_bundle_out_ok(const char *out);

#endif /* TRACER_BUNDLE_H */
