/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fleet.h - a run recorded on several hosts: the host traces named by the
 * command line (files, directories of .tz files, multi-host traces' members:
 * docs/FORMAT.md section 18), each opened on demand by its own reader.
 * merge writes them as one file; summary reads them host by host
 * (docs/tracer-analyze.md, "MANY HOSTS").
 */
#ifndef TZA_FLEET_H
#define TZA_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tz.h"

struct tza_model;

/* One host trace: a file, or member i of a multi-host trace. */
struct tza_hostsrc {
	char name[4200];	    /* for messages: "PATH" or "PATH[i]" */
	const char *path;	    /* the argument (or directory entry) it came from */
	tz_multi *mt;		    /* its file, owned by the fleet */
	size_t i;		    /* member index in mt */
	const struct tz_member *me; /* mt's member i: bytes, uuid, boot id, names */
	uint64_t first_ns, last_ns; /* CLOCK_BOOTTIME range of its events
				       (tza_fleet_check) */
	int partial;		    /* unfinished or damaged (--partial) */
};

struct tza_fleet {
	struct tza_hostsrc *h; /* in command-line order, each uuid once */
	size_t n;
	tz_multi **open; /* every file opened, freed with the fleet */
	size_t nopen, capopen;
	char **names; /* directory entries' paths (owned) */
	size_t nnames, capnames;
	int containers; /* how many multi-host traces were among the inputs */
};

/*
 * Expand the n arguments into host traces: a .tz file, a directory (its
 * *.tz files in name order, dot files skipped), a multi-host trace (its
 * members, flat). A recording met twice (equal uuid) is kept once, with a
 * note on stderr naming both and the one read (cmd names the command): the
 * whole copy (closed, not cut, no damaged block at open; a verifying walk
 * between copies that look whole), else the one with more readable blocks,
 * else the first, at the first one's place in the order. A damaged
 * multi-host container is refused unless --partial. cmd "recover" opens the
 * files with the salvage scan (TZ_R_SALVAGE: members inside damage found by
 * their own headers, FORMAT.md [X5]). Returns 0, or -1 after one line on
 * stderr; free f either way.
 */
int tza_fleet_expand(const char *cmd, char **args, int n, struct tza_fleet *f);
/*
 * Check every host trace as the analysis commands would (tza_check_whole,
 * and with verify every payload: merge copies bytes it never decodes) and
 * fill first_ns/last_ns and partial. Returns 0, or -1 after one line.
 */
int tza_fleet_check(const char *cmd, struct tza_fleet *f, int verify);
/* Name, on stderr, host traces of one host (equal non-zero boot id) whose
 * event times overlap (after tza_fleet_check): the first TZA_OVERLAP_NOTES
 * pairs by name, then how many more. */
#define TZA_OVERLAP_NOTES 10
void tza_fleet_note_overlaps(const char *cmd, const struct tza_fleet *f);
/* tza_fleet_expand, tza_fleet_check (no verify) and
 * tza_fleet_note_overlaps: a command's opening over several hosts. 0, or -1
 * after one line (free f either way). */
int tza_fleet_open(const char *cmd, char **args, int n, struct tza_fleet *f);
/* Do all host traces share one clock (one non-zero boot id)? 1 yes, 0 no. */
int tza_fleet_one_clock(const struct tza_fleet *f);
/* Open host i's reader (tz_reader_free it); NULL after one line. */
tz_reader *tza_fleet_reader(const struct tza_fleet *f, size_t i);
/* Host i's name: its metadata hostname, else the member's (borrowed from r,
 * host i's reader, or the fleet). */
const char *tza_fleet_hostname(const struct tza_fleet *f, size_t i, tz_reader *r);
/* Open a host's object in a many-host JSON list: sep (",", ",\n" or "" for
 * the first), then {"hostname":H,"trace":T (tza_json_cstr: null for NULL);
 * the caller writes its other members and the '}'. */
void tza_fleet_json_host(FILE *f, const char *sep, const char *hostname, const char *trace);
/* Host i read as one trace is (tza_load_reader: the --partial checks,
 * flags TZA_MB_*, tasks when wanted) into *r and *m, and its name
 * (tza_fleet_hostname, valid until tza_unload(*r, *m)) into *hostname. 0, or
 * -1 after one line with nothing to free. */
int tza_fleet_load(const struct tza_fleet *f, size_t i, uint32_t flags, tz_reader **r,
		   struct tza_model **m, const char **hostname);
/* Is path a multi-host trace (its header's MULTI bit; nothing printed, the
 * file not checked further)? */
int tza_fleet_is_container(const char *path);
/* Is path a regular file, or a bundle's trace (tza_bundle_trace: a bad
 * bundle's one line is printed then, and a later open says nothing more),
 * whose header does not check (tz_header_check; a header read so short is
 * "does not check" too) and which the salvage scan opens as a multi-host
 * trace (TZ_R_SALVAGE, FORMAT.md [X5]: MEMBER blocks or member headers
 * follow)? Otherwise nothing printed. For recover: such a file is
 * recovered as a multi-host trace. */
int tza_fleet_salvage_wanted(const char *path);
/* Do the arguments name several host traces (more than one argument, a
 * directory, or a multi-host trace)? */
int tza_fleet_wanted(char **args, int n);
void tza_fleet_free(struct tza_fleet *f);
/* Host i's source as a merge names it (tz_merge_src.source): the member's
 * own, else for a member of a multi-host trace the path it was given by
 * (borrowed from f). */
const char *tza_fleet_source(const struct tza_fleet *f, size_t i);

/* f's host traces as one multi-host trace out, each byte for byte (what
 * `merge` writes; a partial one marked so). 0, or -1 after one line. */
int tza_fleet_merge(const char *cmd, const char *out, int force, const struct tza_fleet *f);

/* Is out one of f's input files (same device and inode)? 1 after "CMD:
 * 'OUT' is also a TRACE to read...", else 0. */
int tza_fleet_out_is_input(const char *cmd, const char *out, const struct tza_fleet *f);

/* At most this many extra metadata pairs for tza_merge_write. */
#define TZA_MERGE_EXTRA_MAX 8
/*
 * Write the multi-host trace out from src[0..n) (tz_multi_write: refused
 * when out exists unless force) with the merge metadata merged_by,
 * merged_real_ns (now), members (n), then the nextra key/value pairs of
 * extra (extra[2k], extra[2k+1]; at most TZA_MERGE_EXTRA_MAX). cmd names
 * the command in messages. Returns 0, or -1 after one line.
 */
int tza_merge_write(const char *cmd, const char *out, int force, const struct tz_merge_src *src,
		    size_t n, const char *const *extra, size_t nextra);

/*
 * A run on several hosts made anew host by host (fleet_rewrite.c): fn
 * writes host i of f into the file tmp (a hidden file beside out, made
 * empty for it; label names that host's part of out in messages,
 * "OUT[k]") and returns 1 (keep it), 0 (leave the host out: fn said
 * why) or -1 (fail: fn printed one line). The kept files become the
 * members of the multi-host trace out, in f's order (tza_merge_write with
 * extra), each named by the hostname its new bytes hold. The hidden files
 * are removed in every case (also on SIGINT and SIGTERM).
 */
typedef int (*tza_rewrite_fn)(void *ctx, const struct tza_fleet *f, size_t i, const char *tmp,
			      const char *label);
struct tza_rewrite {
	const char *cmd, *out; /* the command (messages, hidden names); OUT */
	int force;	       /* replace out if it exists */
	tza_rewrite_fn fn;
	void *ctx;		  /* fn's */
	const char *const *extra; /* merge metadata pairs (tza_merge_write) */
	size_t nextra;
	int no_source; /* members without a source (a redacted bundle: the
			  paths the traces came from are not said) */
	int mark_partial; /* members whose host trace was partial (unfinished,
			     damaged or cut: tza_hostsrc.partial) flagged
			     TZ_MEMBER_PARTIAL in out, as merge flags them */
};
/* Returns 0 with *kept the members written (0: out not written, nothing
 * printed), or -1 after one line (out not written). */
int tza_fleet_rewrite(const struct tza_rewrite *w, const struct tza_fleet *f, size_t *kept);
/* Before any work: may out be written (a new path, or with force a regular
 * file or symlink)? 0, or -1 after "'OUT': not a regular file" or "'OUT':
 * file exists (use -f to overwrite)", as the single-trace writers say. */
int tza_rewrite_out_ok(const char *out, int force);

/*
 * Hosts and traces. A run's size counts hosts, not host traces: two traces
 * of one host (a whole-machine recording and a per-job one, or one host
 * recorded twice) are one host. A host is its hostname, as every command
 * names it (tza_fleet_hostname); a trace that names none (NULL or "") is
 * a host of its own (nothing says it is another's).
 */
/* How many hosts the n traces named hostname[0..n) are of (O(n^2) string
 * compares: hundreds of traces). */
size_t tza_hosts_distinct(const char *const *hostname, size_t n);
/* "3 hosts", or "4 traces on 3 hosts" when ntraces != nhosts, to o. */
void tza_hosts_say(FILE *o, size_t ntraces, size_t nhosts);
/* The distinct names among hostname[0..n) in order of first use, sep
 * before each but the first (text-safe: tza_safe_puts); "(unsaid)" for a
 * trace that names none. */
void tza_hosts_names(FILE *o, const char *sep, const char *const *hostname, size_t n);

/* 16 bytes (a uuid, a boot id) as 32 lowercase hex digits and a NUL. */
void tza_fleet_hex16(char out[33], const uint8_t *b);

/*
 * The processes already read from earlier host traces, so that a process
 * seen by two traces of one host (equal boot id: overlapping recordings)
 * counts once (FORMAT.md [X3]: identity is boot id, pid, start time).
 * Read the hosts in order: for host i, ask tza_fleet_seen_before for each
 * process (it looks at hosts 0..i-1 of the same boot id), add every one of
 * i's processes (also those seen before), then seal i. Memory: 16 bytes per
 * process.
 */
struct tza_fleet_seen {
	uint64_t **ids;	  /* per host: (start ns, pid) pairs, sorted once sealed */
	size_t *nids, *cap;
	size_t n;	  /* hosts */
};
/* For nhosts host traces. Returns 0, or -1 when out of memory (nothing
 * printed; free s either way). */
int tza_fleet_seen_init(struct tza_fleet_seen *s, size_t nhosts);
/* Add host's process (pid, CLOCK_BOOTTIME start ns). 0, or -1 out of memory. */
int tza_fleet_seen_add(struct tza_fleet_seen *s, size_t host, uint32_t pid, uint64_t start_ns);
/* Sort host's processes: it is done (before asking for a later host). */
void tza_fleet_seen_seal(struct tza_fleet_seen *s, size_t host);
/* 1 when an earlier host trace of f with host's boot id holds (pid,
 * start_ns), else 0 (always 0 for an all-zero boot id: not recorded, so
 * nothing says two traces are one machine; as tza_fleet_note_overlaps). */
int tza_fleet_seen_before(const struct tza_fleet_seen *s, const struct tza_fleet *f, size_t host,
			  uint32_t pid, uint64_t start_ns);
void tza_fleet_seen_free(struct tza_fleet_seen *s);

#endif
