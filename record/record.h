/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * record.h - tracer-record's internal interfaces that need no libbpf: the
 * table of live tracked processes (record/ptable.c), the cgroup table
 * (cgtable.c), --env (envsel.c), the attachments (attach.c), the host facts
 * for the trace metadata (sysinfo.c) and --redact (redact_event.c); each is
 * unit-tested alone. The recorder's own state and rooms: recorder.h.
 */
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/events.h"
#include "common/hmap.h"
#include "tz.h"

/* Exit codes of tracer-record (docs/tracer-record.md "EXIT STATUS"). */
#define REC_EXIT_FAIL 1	 /* runtime failure: BPF, output file, I/O */
#define REC_EXIT_USAGE 2 /* bad command line */

/* ------------------------------------------------------------- ptable */

/* One live process as user space knows it from events. */
struct pt_proc {
	uint32_t tgid, ppid;
	uint64_t start_ns; /* CLOCK_BOOTTIME ns: with tgid, the identity */
	uint32_t uid, euid, ns_pid;
	uint32_t argc;	    /* strings in argv */
	uint32_t argv_size; /* original argv bytes (may exceed argv_len) */
	uint32_t flags;	    /* EV_STATE_* (argv cut: EV_STATE_ARGV_TRUNCATED) */
	char comm[EV_COMM_LEN];
	char *exe;	    /* owned, exe_len bytes, not NUL-terminated */
	uint32_t exe_len;
	char *argv;	    /* owned, argv_len bytes, NULs kept */
	uint32_t argv_len;
};

struct ptable {
	struct hmap procs; /* tgid -> struct pt_proc * (owned), as uintptr_t */
	size_t count;	   /* live processes (procs.n) */
};

/* Initialise an empty table. Returns 0 or -ENOMEM. */
int ptable_init(struct ptable *t);
/* Free every entry and the table; t may be reused after ptable_init(). */
void ptable_free(struct ptable *t);
/* Entry of tgid, or NULL. */
struct pt_proc *ptable_get(const struct ptable *t, uint32_t tgid);
/*
 * Walk the live processes: from *pos (0 to start), the next one, or NULL at
 * the end; in no particular order. A walk may ptable_del the one just
 * returned and then step back (--*pos): it then sees every other one, some
 * maybe twice (hmap_next); adding is not allowed.
 */
struct pt_proc *ptable_next(const struct ptable *t, size_t *pos);
/* Remove tgid if present (its start_ns must match unless start_ns is 0). */
void ptable_del(struct ptable *t, uint32_t tgid, uint64_t start_ns);

/*
 * Apply one raw ring-buffer record (struct ev_hdr first): EV_FORK adds the
 * child with the caller's image, EV_EXEC replaces the image, EV_EXIT removes,
 * EV_PROC_STATE adds. Other types are ignored. Returns 0, -1 when the record
 * is malformed, -ENOMEM.
 */
int ptable_apply(struct ptable *t, const void *rec, size_t size);

/*
 * Write one EV_PROC_STATE per live process with tracer_event_write_state():
 * a tz_state_fn (ctx is the struct ptable). ts_ns of each record is the
 * CLOCK_BOOTTIME now. Returns 0 or a negative tz_err.
 */
int ptable_state_fn(void *ctx, tz_writer *w);

/*
 * Encode p as an EV_PROC_STATE record into buf (cap bytes) with timestamp
 * ts_ns. Returns the record size, or 0 when cap is too small.
 */
size_t ptable_encode_state(const struct pt_proc *p, uint64_t ts_ns, void *buf, size_t cap);

/* ------------------------------------------------------------- cgtable */

/*
 * The cgroup table of a trace (record/cgtable.c): one EV_CGROUP per
 * (hierarchy, id) the first time an exec event names the id. An id is
 * resolved to a path with a cache of the hierarchy's directories (inode
 * number = kernfs node id = cgroup id) built by walking its mount, rebuilt
 * on a miss (a cgroup made since the last walk); an id still missing after
 * the re-walk is written EV_CGROUP_UNRESOLVED. Limits are read from the
 * cgroup's own files then (docs/tracer-record.md "Cgroups").
 */
#define CG_NHIER 3 /* EV_CG_V2, EV_CG_V1_MEMORY, EV_CG_V1_CPU */
struct cg_ent {
	uint64_t ino;	/* directory inode number (the cgroup id) */
	char *path;	/* below the mount, "" for it, "/a/b" below; owned */
};
struct cg_hier {
	char *mnt;	/* where it is mounted (owned), NULL: not mounted */
	char *root;	/* mountinfo root when not "/" (a namespaced mount), owned */
	struct cg_ent *ent; /* the cache of its last walk */
	size_t n, cap;
	uint64_t walks; /* walks made (tests, --verbose) */
};
struct cgtable {
	struct cg_hier h[CG_NHIER]; /* by EV_CG_* */
	struct hmap seen;	    /* keys (id << 2 | hier) written; values unused */
	void **kept;   /* copies of the first CG_RESTATE_MAX EV_CGROUP records, owned */
	size_t nkept;  /* re-stated by cgt_state_fn in every state block */
};
/* Entries of the table re-stated in each state block (ring mode keeps them
 * through a wrap); later ones are written once, in their chunk only. */
#define CG_RESTATE_MAX 1024

/* Find the hierarchies' mounts in mountinfo (NULL: /proc/self/mountinfo):
 * the cgroup2 mount, the v1 mounts holding the memory and cpu controllers.
 * Returns 0 or -errno (the file unreadable); t is usable either way. */
int cgt_init(struct cgtable *t, const char *mountinfo);
/* The memory controller is on a v1 hierarchy (a hybrid or v1 host): exec
 * events should carry memcg_id. */
int cgt_memcg_v1(const struct cgtable *t);
/*
 * The first time (hier, id) is noted, encode its EV_CGROUP (timestamp ts_ns)
 * into buf (cap bytes, at least sizeof(struct ev_cgroup) + EV_PATH_MAX) and
 * return its size; 0 when seen before, id 0, the hierarchy not mounted, cap
 * too small or out of memory.
 */
size_t cgt_note(struct cgtable *t, uint32_t hier, uint64_t id, uint64_t ts_ns, void *buf,
		size_t cap);
/* Fill e's limits from the files of the cgroup at rel (below h's mount). */
struct ev_cgroup;
void cgt_read_limits(const struct cg_hier *h, uint32_t hier, const char *rel,
		     struct ev_cgroup *e);
void cgt_free(struct cgtable *t);
/*
 * Keep a copy of e (an EV_CGROUP record as written to the trace, --redact
 * applied) for cgt_state while fewer than CG_RESTATE_MAX are kept; out of
 * memory: not kept (its chunk still has it).
 */
void cgt_keep(struct cgtable *t, const struct ev_cgroup *e);
/*
 * Write the kept EV_CGROUP records (at most CG_RESTATE_MAX, in first-seen
 * order) with tracer_event_write_state(), timestamp ts_ns (CLOCK_BOOTTIME):
 * the table as a wrapped ring or a later window still needs it. Returns 0 or
 * a negative tz_err.
 */
int cgt_state(struct cgtable *t, tz_writer *w, uint64_t ts_ns);

/* ------------------------------------------------------------- envsel */

/* --env NAME[,NAME...]: the variables kept from each exec's environment */
#define ENV_NAMES_MAX 64  /* names in one --env */
#define ENV_NAME_MAX 255  /* bytes of one name */
struct env_names {
	char *name[ENV_NAMES_MAX]; /* owned */
	size_t len[ENV_NAMES_MAX];
	size_t n;
};
/* Parse "A,B,C" into out. -1 (out empty) on an empty name, a name with '='
 * or a blank or control byte, more than ENV_NAMES_MAX names or no memory. */
int env_names_parse(const char *spec, struct env_names *out);
void env_names_free(struct env_names *s);
/*
 * Keep, in place and in order, the entries "NAME=VALUE\0" of env[0..len)
 * whose NAME is in s; an entry without its NUL (cut by the window) is
 * dropped, and so is one without '='. Returns the bytes kept.
 */
uint32_t env_filter(const struct env_names *s, char *env, uint32_t len);

/* ------------------------------------------------------------- attach */

/*
 * Attachments (record/attach.c; docs/tracer-record.md "ATTACHMENTS"): the
 * distinct working directories of the recorded execs are remembered
 * (att_note_exec, from the record before --redact); at the stop,
 * att_collect embeds the workflow managers' records found from them as
 * EV_ATTACH events: Snakemake's .snakemake/metadata/ files and newest
 * .snakemake/log/ *.log file modified since the start, a Nextflow task dir's
 * .command.run (first ATT_COMMAND_RUN_MAX bytes) and .exitcode, and a
 * Nextflow launch dir's trace*.txt and pipeline_info/execution_trace*.txt
 * modified since the start. Each file at most ATT_FILE_MAX bytes, all at
 * most max_total; cut files are flagged EV_ATTACH_TRUNCATED.
 */
#define ATT_DIRS_MAX 4096		/* distinct working directories remembered */
#define ATT_FILE_MAX (1u << 20)		/* bytes kept of one file */
#define ATT_COMMAND_RUN_MAX 4096	/* bytes kept of a .command.run (its header) */
#define ATT_TOTAL_DEFAULT (64u << 20)	/* default --attach-max */
#define ATT_NEXTFLOW 0x1		/* a nextflow launcher ran here */
#define ATT_DONE_SNAKEMAKE 0x2		/* its .snakemake was collected */
struct att_dir {
	char *path; /* owned, absolute */
	uint32_t flags; /* ATT_* */
};
struct attset {
	struct att_dir *d;   /* ATT_DIRS_MAX entries once used */
	uint32_t *slots;     /* hash: 1 + index in d, 0 empty */
	size_t n;
	uint64_t dirs_dropped; /* distinct directories beyond ATT_DIRS_MAX */
	uint64_t files, total, truncated; /* embedded: files, data bytes, cut files */
	uint8_t *buf;	     /* the record being built */
	size_t bufcap;
};
struct att_ctx {
	uint64_t since_ns;  /* CLOCK_REALTIME ns: files modified at or after it are
			       taken (the recording's start, less one tick of the
			       coarse clock file times are stamped with) */
	uint64_t max_total; /* bytes of data at most, all files */
	uint64_t ts_ns;	    /* CLOCK_BOOTTIME ns of the records */
	/* writes one record; non-zero stops the collection (returned) */
	int (*emit)(void *ctx, const void *rec, uint32_t size);
	void *ctx;
};
/* Remember the working directory of an EV_EXEC record (any other type, an
 * empty, relative or cut cwd: ignored). */
void att_note_exec(struct attset *s, const void *rec, size_t size);
/* Embed the files found (see above). 0, -1 out of memory, or emit's value. */
int att_collect(struct attset *s, const struct att_ctx *c);
void att_free(struct attset *s);

/* ------------------------------------------------------------- sysinfo */

/* CLOCK_BOOTTIME / CLOCK_REALTIME now, ns. */
uint64_t rec_boot_ns(void);
uint64_t rec_real_ns(void);

/*
 * Set the host metadata keys (docs/tracer-record.md "METADATA"): hostname,
 * kernel, kernel_version, arch, cpus, memory_kib, page_size, pid_max,
 * boot_id, recorder_version. Returns 0 or the first negative tz_err.
 */
int rec_meta_host(tz_writer *w);

/* /proc/sys/kernel/pid_max, or 4194304 when unreadable. */
uint32_t rec_pid_max(void);

/* Format ns since the epoch as "2026-11-29T17:00:00.123456789Z" into buf
 * (at least 40 bytes). Returns buf. */
char *rec_fmt_time(uint64_t real_ns, char *buf, size_t cap);

/*
 * Parse a size with an optional K/M/G suffix (powers of 1024) into *out,
 * within [min, max]. Returns 0 or -1.
 */
int rec_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Read /proc/PID/cmdline (at most cap bytes) into buf. *size gets the
 * original length (may exceed cap), *argc the strings kept. Returns the
 * bytes stored, or -1 when the process is gone.
 */
long rec_read_cmdline(uint32_t pid, char *buf, size_t cap, uint32_t *size, uint32_t *argc);

/*
 * Read fd to its end (a BPF iterator's output) after the *len bytes already
 * in *buf (malloc'd, *cap bytes), doubling *buf whenever less than slack
 * bytes are free; EINTR is retried, a read error ends the reading like the
 * end of file. Returns 0, or -1 when out of memory: *buf, *cap and *len
 * then still hold what was read. *buf stays the caller's.
 */
int rec_read_fd(int fd, char **buf, size_t *cap, size_t slack, size_t *len);

/* ------------------------------------------------------------- redact */

struct redact; /* common/redact.h */

/* Does a record of this type carry strings --redact looks at (paths,
 * argv, comm)? 1 or 0. */
int rec_redact_type(uint16_t type);

/*
 * --redact (record/redact_event.c): mask every secret in the strings of
 * the raw record rec[0..size) in place, with common/redact.c's redact_strs:
 * filename, exe, script and argv of EV_EXEC (the cut flags say which may be
 * cut), EV_EXEC_FAIL's filename, EV_PROC_STATE's exe and argv, and the comm
 * of EV_EXEC, EV_EXIT, EV_PROC_STATE, EV_OOM_KILL and EV_SIGNAL (sender).
 * Lengths stay exact. Returns the number masked, or -1 for a malformed
 * record (left as it is).
 */
int rec_redact_event(struct redact *rd, void *rec, uint32_t size);

/* A masked copy of argv[0..argc) (argument by argument, as an exec's argv),
 * NULL-terminated, in one allocation the caller frees; NULL when out of
 * memory. */
char **rec_redact_argv(struct redact *rd, int argc, char *const *argv);

#endif /* TRACER_RECORD_H */
