/* main.c - tracer-record: attach the BPF programs, run or find the processes
 * to record, drain the ring buffer into a .tz file. docs/tracer-record.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/tracer.h"
#include "command.h"
#include "common/redact.h"
#include "record.h"
#include "sample.h"
#include "schema.h"
#include "status.h"
#include "tracer.skel.h"

#define PROG "tracer-record"
#define PT_SEEN_FORK 0x80000000u /* ptable flag: born after attach (not in snapshot) */

enum mode { MODE_FOLLOW, MODE_ALL, MODE_PID };
static const char *const mode_names[] = {"follow", "system", "pid"};

struct opts {
	const char *output;
	int force;
	enum mode mode;
	uint32_t pid;
	double duration; /* s; 0 = none */
	uint64_t ring_size, ringbuf_size;
	uint32_t argv_max;
	uint32_t max_procs; /* tracked-map entries; 0 = pid_max */
	double sample_interval; /* s; 0 = no samples (sample.h) */
	double stop_grace; /* s: after a stop signal, how long COMMAND's tree may take to exit */
	int level;
	int verbose;
	int redact; /* --redact: mask secrets in every string before writing */
	int exec_failures; /* --exec-failures: attach the execve syscall exit */
	enum rec_progress progress; /* --progress / --no-progress (status.h) */
	struct env_names env; /* --env: names kept from each exec's environment */
	uint32_t env_max;  /* --env-max: bytes of the environment read per exec */
	int no_attach;	   /* --no-attach */
	uint64_t attach_max; /* --attach-max: bytes embedded at most (0: default) */
	char **cmd;
};

struct rec {
	struct opts o;
	char *alive_at_stop; /* metadata alive_at_stop, taken while still attached */
	struct tracer_bpf *skel;
	struct ring_buffer *rb;
	tz_writer *w;
	struct ptable pt;
	int ncpus;
	pid_t child;
	int child_status;
	bool child_reaped;
	int werr; /* first writer error */
	int rb_err; /* the ring buffer or poll() failed: recording stopped */
	int open_nospc; /* the output's filesystem was full at start */
	uint64_t events;
	uint64_t unwritten; /* events drained after a write error stopped recording */
	uint64_t drops[EV_DROP_SLOTS];
	uint64_t t0_boot;
	const char *syscall_src; /* failed execs from: "tracepoint", "raw_tp"; NULL: not recorded */
	struct bpf_link *links[16];
	struct redact rd;     /* --redact */
	uint8_t *rbuf;	      /* --redact: the record being masked */
	size_t rbuf_cap;
	int nlinks;
	struct rec_status status; /* the live status line (status.c) */
	uint64_t procs_seen;	  /* tracked at the start + forks recorded */
	struct cgtable cg;    /* the trace's cgroup table (EV_CGROUP) */
	struct attset att;    /* working directories, for the attachments */
	uint64_t t0_real;     /* CLOCK_REALTIME ns of the start (metadata) */
	uint8_t *ebuf;	      /* --env: the exec record being filtered */
	size_t ebuf_cap;
	uint8_t *cgbuf;	      /* one EV_CGROUP record being written */
};

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int verbose_level;
static int libbpf_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (verbose_level < 2 && lvl != LIBBPF_WARN)
		return 0;
	if (verbose_level < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-o FILE] [OPTIONS] [--] COMMAND [ARG...]\n"
		"       " PROG " -a [-o FILE] [--duration SEC] [OPTIONS]\n"
		"       " PROG " -p PID [-o FILE] [OPTIONS]\n"
		"\n"
		"Record every process of COMMAND and its descendants (or of the whole system,\n"
		"or of PID and its descendants) with eBPF tracepoints into a .tz trace:\n"
		"fork, exec (argv, exe, script, credentials) and exit (status, CPU time,\n"
		"peak RSS, I/O, context switches, faults, threads); failed execs on request.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE       trace file (default trace.tz, created mode 0600)\n"
		"  -f, --force             overwrite FILE if it exists\n"
		"  -a, --all               record the whole system until SIGINT/SIGTERM\n"
		"  -p, --pid PID           record PID and its descendants until they exit\n"
		"  -d, --duration SEC      stop after SEC seconds (any mode)\n"
		"      --ring SIZE         flight recorder: FILE never exceeds SIZE, newest kept\n"
		"      --argv-max BYTES    argv bytes kept per exec (default %d, max %d)\n"
		"      --ringbuf-size BYTES  BPF ring buffer size (default 8M, power of 2)\n"
		"      --compress-level N  zstd level 1..19 (default 1)\n"
		"      --max-procs N       processes tracked at once (default pid_max)\n"
		"      --redact            mask secrets (passwords, tokens, keys, /home/USER)\n"
		"                          in argv, paths and comm with '*' before writing\n"
		"      --sample-interval SEC  per-process and host samples (default 1, 0 = off)\n"
		"      --stop-grace SEC    after SIGINT/SIGTERM/SIGHUP/SIGQUIT, keep recording\n"
		"                          until COMMAND's processes have exited, at most SEC\n"
		"                          (default 2; a second signal stops at once)\n"
		"      --exec-failures     also record failed execve/execveat (pid, filename,\n"
		"                          errno); costs every syscall on the host ~60 ns\n"
		"      --progress          the status line also off a terminal (one line a second)\n"
		"      --no-progress       no status line, also on a terminal\n"
		"      --env NAME[,NAME...]  record these environment variables of each exec\n"
		"                          (e.g. SLURM_JOB_ID,NXF_TASK_WORKDIR)\n"
		"      --env-max BYTES     environment bytes read per exec with --env\n"
		"                          (default %d, max %d)\n"
		"      --no-attach         do not embed the workflow managers' records\n"
		"                          (Snakemake .snakemake/metadata, Nextflow .command.run,\n"
		"                          trace.txt) found from the recorded working dirs\n"
		"      --attach-max BYTES  embedded bytes at most, all files (default 64M)\n"
		"  -v, --verbose           progress on stderr (twice: libbpf messages)\n"
		"  -V, --version           print the version\n"
		"  -h, --help              this help\n"
		"\n"
		"On a terminal, stderr shows one status line, redrawn each second and erased at\n"
		"the end (elapsed, processes seen and live, events/s, drops, file size, chunks).\n"
		"SIGINT/SIGTERM/SIGHUP/SIGQUIT stop and seal the file (with COMMAND: once its\n"
		"processes have exited, see --stop-grace); SIGUSR1 seals the open chunk now.\n"
		"COMMAND starts with the signal dispositions, mask, fds, limits and terminal\n"
		"the recorder inherited. Exit status: COMMAND's (killed by signal N: the\n"
		"recorder ends by N too), also when recording failed (disk full) once COMMAND\n"
		"started; 128+N when stopped by signal N with COMMAND left running; 1 runtime\n"
		"error; 2 usage.\n"
		"\n"
		"examples:\n"
		"  " PROG " -o run.tz -- make -j8\n"
		"  " PROG " -o pipe.tz -- sh -c 'bwa mem ref.fa r.fq | samtools sort -o out.bam'\n"
		"  " PROG " -a --duration 60 -o host.tz\n"
		"  " PROG " -p 4242 -o job.tz\n"
		"  " PROG " -a --ring 64M -o flight.tz   # kill -USR1 to seal, SIGINT to stop\n",
		EV_ARGV_MAX_DEFAULT, EV_ARGV_MAX_LIMIT, EV_ENV_MAX_DEFAULT, EV_ENV_MAX_LIMIT);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_RING = 256, OPT_ARGV_MAX, OPT_RINGBUF, OPT_LEVEL, OPT_MAX_PROCS, OPT_SAMPLE,
	       OPT_REDACT, OPT_EXEC_FAILURES, OPT_STOP_GRACE, OPT_PROGRESS, OPT_NO_PROGRESS,
	       OPT_ENV, OPT_ENV_MAX,
	       OPT_NO_ATTACH, OPT_ATTACH_MAX };
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'f'},
		{"all", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"duration", required_argument, NULL, 'd'},
		{"ring", required_argument, NULL, OPT_RING},
		{"argv-max", required_argument, NULL, OPT_ARGV_MAX},
		{"ringbuf-size", required_argument, NULL, OPT_RINGBUF},
		{"compress-level", required_argument, NULL, OPT_LEVEL},
		{"max-procs", required_argument, NULL, OPT_MAX_PROCS},
		{"redact", no_argument, NULL, OPT_REDACT},
		{"exec-failures", no_argument, NULL, OPT_EXEC_FAILURES},
		{"sample-interval", required_argument, NULL, OPT_SAMPLE},
		{"stop-grace", required_argument, NULL, OPT_STOP_GRACE},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"env", required_argument, NULL, OPT_ENV},
		{"env-max", required_argument, NULL, OPT_ENV_MAX},
		{"no-attach", no_argument, NULL, OPT_NO_ATTACH},
		{"attach-max", required_argument, NULL, OPT_ATTACH_MAX},
		{"verbose", no_argument, NULL, 'v'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	uint64_t v;
	char *end;
	int c, all = 0;

	o->output = "trace.tz";
	o->argv_max = EV_ARGV_MAX_DEFAULT;
	o->ringbuf_size = 8u << 20;
	/* level 1: on recorded storms as small as level 3 (records repeat
	 * within a chunk) at 20-35% less of the recorder's CPU */
	o->level = 1;
	o->sample_interval = SAMPLE_INTERVAL_DEFAULT;
	o->stop_grace = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:fap:d:vVh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'a':
			all = 1;
			break;
		case 'p':
			if (rec_parse_size(optarg, 1, INT32_MAX, &v) || strpbrk(optarg, "kKmMgG")) {
				err("-p: '%s': not a pid", optarg);
				return -1;
			}
			o->pid = (uint32_t)v;
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || *end || !(o->duration > 0) || o->duration > 1e9) {
				err("--duration: '%s': not a positive number of seconds", optarg);
				return -1;
			}
			break;
		case OPT_RING:
			if (rec_parse_size(optarg, 1u << 20, 1ull << 50, &o->ring_size)) {
				err("--ring: '%s': not a size of at least 1M", optarg);
				return -1;
			}
			break;
		case OPT_ARGV_MAX:
			if (rec_parse_size(optarg, 0, EV_ARGV_MAX_LIMIT, &v)) {
				err("--argv-max: '%s': not a size in 0..%d", optarg, EV_ARGV_MAX_LIMIT);
				return -1;
			}
			o->argv_max = (uint32_t)v;
			break;
		case OPT_RINGBUF:
			if (rec_parse_size(optarg, 4096, 1u << 30, &v) || (v & (v - 1))) {
				err("--ringbuf-size: '%s': not a power of 2 in 4K..1G", optarg);
				return -1;
			}
			o->ringbuf_size = v;
			break;
		case OPT_LEVEL:
			if (rec_parse_size(optarg, 1, 19, &v) || strpbrk(optarg, "kKmMgG")) {
				err("--compress-level: '%s': not a level in 1..19", optarg);
				return -1;
			}
			o->level = (int)v;
			break;
		case OPT_MAX_PROCS:
			if (rec_parse_size(optarg, 16, 1u << 26, &v) || strpbrk(optarg, "kKmMgG")) {
				err("--max-procs: '%s': not a count in 16..67108864", optarg);
				return -1;
			}
			o->max_procs = (uint32_t)v;
			break;
		case OPT_REDACT:
			o->redact = 1;
			break;
		case OPT_EXEC_FAILURES:
			o->exec_failures = 1;
			break;
		case OPT_ENV:
			env_names_free(&o->env);
			if (env_names_parse(optarg, &o->env)) {
				err("--env: '%s': not a list of 1..%d variable names (NAME[,NAME...])",
				    optarg, ENV_NAMES_MAX);
				return -1;
			}
			break;
		case OPT_ENV_MAX:
			if (rec_parse_size(optarg, 1, EV_ENV_MAX_LIMIT, &v)) {
				err("--env-max: '%s': not a size in 1..%d", optarg, EV_ENV_MAX_LIMIT);
				return -1;
			}
			o->env_max = (uint32_t)v;
			break;
		case OPT_NO_ATTACH:
			o->no_attach = 1;
			break;
		case OPT_ATTACH_MAX:
			if (rec_parse_size(optarg, 1, 1ULL << 30, &v)) {
				err("--attach-max: '%s': not a size in 1..1G", optarg);
				return -1;
			}
			o->attach_max = v;
			break;
		case OPT_SAMPLE:
			errno = 0;
			o->sample_interval = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o->sample_interval == 0 || (o->sample_interval >= SAMPLE_INTERVAL_MIN &&
							  o->sample_interval <= SAMPLE_INTERVAL_MAX))) {
				err("--sample-interval: '%s': not 0 or a number of seconds in 0.01..3600",
				    optarg);
				return -1;
			}
			break;
		case OPT_STOP_GRACE:
			errno = 0;
			o->stop_grace = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o->stop_grace >= 0 && o->stop_grace <= 3600)) {
				err("--stop-grace: '%s': not a number of seconds in 0..3600", optarg);
				return -1;
			}
			break;
		case OPT_PROGRESS:
			o->progress = REC_PROGRESS_ON;
			break;
		case OPT_NO_PROGRESS:
			o->progress = REC_PROGRESS_OFF;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			printf(PROG " %s\n", TRACER_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		case '?':
		default:
			if (optopt && optopt < 256)
				err("unknown option '-%c' (see --help)", optopt);
			else
				err("unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (all && o->pid) {
		err("-a and -p cannot be combined");
		return -1;
	}
	o->mode = all ? MODE_ALL : o->pid ? MODE_PID : MODE_FOLLOW;
	if (optind < argc) {
		if (o->mode != MODE_FOLLOW) {
			err("a COMMAND cannot be given with %s", all ? "-a" : "-p");
			return -1;
		}
		o->cmd = argv + optind;
	} else if (o->mode == MODE_FOLLOW) {
		err("missing COMMAND (or -a, or -p PID); see --help");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ events */

static void note_write_error(struct rec *r, int rc)
{
	if (rc >= 0 || r->werr)
		return;
	r->werr = rc;
	/* disk full: close_writer() says whether the file could be sealed */
	if (rc != TZ_ERR_NOSPC)
		err("%s", tz_writer_errmsg(r->w));
}

/* tracer_event_write() returns -1 both for a malformed record and for
 * TZ_ERR_IO: only the first is skipped */
static int malformed(const void *rec, size_t size)
{
	const void *fixed;
	uint32_t len;
	struct tz_blob b[TRACER_MAX_BLOBS];

	return tracer_event_split(rec, size, &fixed, &len, b) < 0;
}

/* --redact: a copy of the record with every secret in its strings masked
 * in place (same length, so the layout holds; record/redact_event.c); the
 * record itself when its type holds no strings; NULL when out of memory. */
static void *redact_record(struct rec *r, const void *data, uint32_t size)
{
	if (!rec_redact_type(((const struct ev_hdr *)data)->type))
		return (void *)data;
	if (size > r->rbuf_cap) {
		uint8_t *nb = realloc(r->rbuf, size);
		if (!nb)
			return NULL;
		r->rbuf = nb;
		r->rbuf_cap = size;
	}
	memcpy(r->rbuf, data, size);
	rec_redact_event(&r->rd, r->rbuf, size);
	return r->rbuf;
}

/* tgid appended to the stop's alive list (r->alive_at_stop); on no memory
 * the list stays as it was */
static void alive_add(struct rec *r, uint32_t tgid)
{
	size_t len = strlen(r->alive_at_stop);
	char *s = realloc(r->alive_at_stop, len + 12);
	if (!s)
		return;
	snprintf(s + len, 12, "%s%u", len ? " " : "", tgid);
	r->alive_at_stop = s;
}

/* A record made in user space (EV_CGROUP, EV_ATTACH), through --redact
 * like the ring's. Returns the record as written (a redacted copy valid
 * until the next redaction), NULL when not written. */
static const void *write_user_record(struct rec *r, const void *rec, uint32_t size)
{
	if (r->werr)
		return NULL;
	if (r->o.redact && !(rec = redact_record(r, rec, size))) {
		note_write_error(r, TZ_ERR_NOMEM);
		return NULL;
	}
	int rc = tracer_event_write(r->w, rec, size);
	note_write_error(r, rc);
	r->events++;
	return rc < 0 ? NULL : rec;
}

#define CGBUF_SIZE (sizeof(struct ev_cgroup) + EV_PATH_MAX)

/* The cgroup table's entries for the ids an exec names, the first time */
static void note_cgroups(struct rec *r, uint64_t ts, uint64_t cg, uint64_t memcg)
{
	size_t n;
	if (!r->cgbuf)
		return;
	const void *w;
	/* kept as written (redacted) for the state blocks */
	if ((n = cgt_note(&r->cg, EV_CG_V2, cg, ts, r->cgbuf, CGBUF_SIZE)) &&
	    (w = write_user_record(r, r->cgbuf, (uint32_t)n)))
		cgt_keep(&r->cg, w);
	if ((n = cgt_note(&r->cg, EV_CG_V1_MEMORY, memcg, ts, r->cgbuf, CGBUF_SIZE)) &&
	    (w = write_user_record(r, r->cgbuf, (uint32_t)n)))
		cgt_keep(&r->cg, w);
}

/* --env: a copy of an exec record keeping only the named variables of its
 * env tail (the last one); the record itself when it has none; NULL when out
 * of memory */
static void *env_select(struct rec *r, void *data)
{
	const struct ev_exec *e = data;
	if (e->hdr.size < sizeof(*e) || !e->env_len || e->env_len > e->hdr.size - sizeof(*e))
		return data;
	if (e->hdr.size > r->ebuf_cap) {
		uint8_t *nb = realloc(r->ebuf, e->hdr.size);
		if (!nb)
			return NULL;
		r->ebuf = nb;
		r->ebuf_cap = e->hdr.size;
	}
	memcpy(r->ebuf, data, e->hdr.size);
	struct ev_exec *c = (struct ev_exec *)r->ebuf;
	uint32_t at = c->hdr.size - c->env_len;
	uint32_t kept = env_filter(&r->o.env, (char *)r->ebuf + at, c->env_len);
	c->env_len = (uint16_t)kept;
	c->hdr.size = at + kept;
	return r->ebuf;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rec *r = ctx;
	const struct ev_hdr *h = data;
	int rc;

	if (size < sizeof(*h) || h->size > size)
		return 0;
	if (r->werr) {
		/* recording stopped on a write error: counted as not written */
		r->unwritten++;
		return 0;
	}
	if (h->type == EV_EXEC && !r->o.no_attach)
		att_note_exec(&r->att, data, h->size);
	if (h->type == EV_EXEC && r->o.env.n) {
		data = env_select(r, data);
		if (!data) {
			note_write_error(r, TZ_ERR_NOMEM);
			return 0;
		}
		h = data;
	}
	if (r->o.redact) {
		data = redact_record(r, data, h->size);
		if (!data) {
			note_write_error(r, TZ_ERR_NOMEM);
			return 0;
		}
		h = data;
	}
	struct ev_exit x; /* ring buffer memory is read-only: a copy */
	if (h->type == EV_EXIT && h->size == sizeof(x)) {
		memcpy(&x, data, sizeof(x));
		sample_cpu_clamp(x.tgid, x.start_ns, &x.utime_ns, &x.stime_ns);
		data = &x;
		h = data;
	}
	rc = tracer_event_write(r->w, data, h->size);
	if (rc == -1 && malformed(data, h->size)) {
		if (r->o.verbose)
			err("skipped a malformed event (type %u, %u bytes)", h->type, h->size);
		return 0;
	}
	note_write_error(r, rc);
	r->events++;
	if (ptable_apply(&r->pt, data, h->size) == 0 && h->type == EV_FORK) {
		const struct ev_fork *e = data;
		struct pt_proc *p = ptable_get(&r->pt, e->child_tgid);
		if (p)
			p->flags |= PT_SEEN_FORK;
		r->procs_seen++;
		/* born after the stop's alive list was taken: alive then too
		 * (its exit, if it comes, is drained) */
		if (r->alive_at_stop)
			alive_add(r, e->child_tgid);
	}
	if (h->type == EV_EXEC && h->size >= sizeof(struct ev_exec)) {
		const struct ev_exec *e = data;
		note_cgroups(r, e->hdr.ts_ns, e->cgroup_id, e->memcg_id);
	}
	return 0;
}

static void read_drops(struct rec *r, uint64_t *out)
{
	uint64_t *vals = calloc((size_t)r->ncpus, sizeof(uint64_t));
	int fd = bpf_map__fd(r->skel->maps.drops);

	memset(out, 0, sizeof(uint64_t) * EV_DROP_SLOTS);
	if (!vals)
		return;
	for (uint32_t k = 0; k < EV_DROP_SLOTS; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < r->ncpus; c++)
			out[k] += vals[c];
	}
	free(vals);
}

/* Write EV_DROPS when the counters moved (or always when force). */
static void write_drops(struct rec *r, int force)
{
	uint64_t now[EV_DROP_SLOTS], lost = 0;
	struct ev_drops e;
	int changed = 0;

	read_drops(r, now);
	for (int i = 0; i < EV_DROP_SLOTS; i++) {
		if (now[i] != r->drops[i])
			changed = 1;
		if (i != EV_DROP_MAP_FULL && i != EV_DROP_ARGV_FAULT && now[i] > r->drops[i])
			lost += now[i] - r->drops[i];
	}
	if (!changed && !force)
		return;
	if (lost)
		tz_writer_note_dropped(r->w, lost);
	memcpy(r->drops, now, sizeof(now));
	memset(&e, 0, sizeof(e));
	e.hdr.size = sizeof(e);
	e.hdr.type = EV_DROPS;
	e.hdr.ts_ns = rec_boot_ns();
	memcpy(e.count, now, sizeof(now));
	note_write_error(r, tracer_event_write(r->w, &e, sizeof(e)));
}

/* ------------------------------------------------------------ BPF setup */

static int have_syscall_tps(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char p[128];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events/syscalls/sys_exit_execve/id", dirs[i]);
		if (access(p, R_OK) == 0)
			return 1;
	}
	return 0;
}

static int attach(struct rec *r, struct bpf_program *p)
{
	struct bpf_link *l = bpf_program__attach(p);

	if (!l) {
		err("cannot attach BPF program '%s': %s", bpf_program__name(p), strerror(errno));
		return -1;
	}
	r->links[r->nlinks++] = l;
	return 0;
}

/* The capabilities loading tracepoint programs needs that this process
 * lacks (effective set, /proc/self/status), as "capability CAP_BPF";
 * "" when none is missing (CAP_SYS_ADMIN covers both). */
static const char *missing_caps(void)
{
	char line[256];
	unsigned long long eff = ~0ull;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return "";
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	int bpf = !(eff >> 39 & 1), perfmon = !(eff >> 38 & 1);
	if (eff >> 21 & 1) /* CAP_SYS_ADMIN */
		return "";
	return bpf && perfmon ? "capabilities CAP_BPF and CAP_PERFMON"
	       : bpf	      ? "capability CAP_BPF"
	       : perfmon      ? "capability CAP_PERFMON"
			      : "";
}

static int bpf_setup(struct rec *r)
{
	struct tracer_bpf *s;
	int use_tp, rc;
	/* test-only: pretend the kernel's BTF is elsewhere (docs/tracer-record.md) */
	const char *btf = getenv("TRACER_RECORD_TEST_BTF");
	const char *caps = missing_caps();

	if (!btf || !*btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (access(btf, R_OK)) {
		err("this kernel has no BTF ('%s'): a kernel built with CONFIG_DEBUG_INFO_BTF=y "
		    "is needed",
		    btf);
		return -1;
	}
	if (*caps) {
		err("missing %s (uid %u): run as root, or grant them with "
		    "'setcap cap_bpf,cap_perfmon+ep tracer-record'",
		    caps, (unsigned)geteuid());
		return -1;
	}
	libbpf_set_print(libbpf_print);
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		r->ncpus = 1;
	/*
	 * Failed execs need a syscall tracepoint (no other hook sees an execve
	 * that fails), and attaching any syscall tracepoint or raw sys_exit
	 * sets SYSCALL_WORK_SYSCALL_TRACEPOINT on every task of the host: each
	 * syscall of each process, recorded or not, then takes the slow path.
	 * So they are recorded only when asked for (docs/tracer-record.md).
	 */
	use_tp = 0;
	if (r->o.exec_failures) {
		use_tp = have_syscall_tps();
		if (!use_tp && mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
			use_tp = have_syscall_tps();
		/* tests force the fallback that kernels without syscall events use */
		const char *src = getenv("TRACER_RECORD_SYSCALL_SOURCE");
		if (src && !strcmp(src, "raw_tp"))
			use_tp = 0;
		r->syscall_src = use_tp ? "tracepoint" : "raw_tp";
	}

	s = tracer_bpf__open();
	if (!s) {
		err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	r->skel = s;
	s->rodata->filter_on = r->o.mode != MODE_ALL;
	s->rodata->argv_max = r->o.argv_max;
	s->rodata->memcg_v1 = cgt_memcg_v1(&r->cg);
	s->rodata->env_max = r->o.env.n ? (r->o.env_max ? r->o.env_max : EV_ENV_MAX_DEFAULT) : 0;
	s->rodata->nr_cpus = (uint32_t)r->ncpus;
	s->rodata->page_kib = (uint32_t)(sysconf(_SC_PAGESIZE) / 1024);
	s->rodata->wake_bytes = r->o.ringbuf_size / 4;
	/* each CPU looks at the fill level once per wake_check bytes: at most
	 * ringbuf_size / 8 written unseen, over all CPUs */
	s->rodata->wake_check = r->o.ringbuf_size / 8 / (uint64_t)r->ncpus;
	uint32_t pid_max = rec_pid_max();
	bpf_map__set_max_entries(s->maps.rb, (uint32_t)r->o.ringbuf_size);
	bpf_map__set_max_entries(s->maps.tracked, r->o.max_procs ? r->o.max_procs : pid_max);
	/* small maps are preallocated: an insert is then a free-list pop, not
	 * an allocation, on every fork and execve */
	if ((r->o.max_procs ? r->o.max_procs : pid_max) <= 131072)
		bpf_map__set_map_flags(s->maps.tracked, 0);
	/* without --max-procs and with a small pid_max, an array indexed by
	 * tgid: a slot per pid never fills up, and a lookup is an address
	 * computation instead of a hash, a bucket walk and a bucket lock */
	if (!r->o.max_procs && pid_max <= TRACKED_ARRAY_MAX) {
		bpf_map__set_type(s->maps.tracked, BPF_MAP_TYPE_ARRAY);
		s->rodata->by_index = true;
	}
	bpf_map__set_max_entries(s->maps.scratch, (uint32_t)r->ncpus);
	bool xf_tp = r->syscall_src && use_tp, xf_raw = r->syscall_src && !use_tp;
	bpf_program__set_autoload(s->progs.tp_exit_execve, xf_tp);
	bpf_program__set_autoload(s->progs.tp_exit_execveat, xf_tp);
	bpf_program__set_autoload(s->progs.raw_sys_exit, xf_raw);
	rc = tracer_bpf__load(s);
	if (rc) {
		if (rc == -EPERM || errno == EPERM)
			err("loading BPF programs needs root (or CAP_BPF, CAP_PERFMON and "
			    "CAP_SYS_RESOURCE): run as root");
		else
			err("cannot load the BPF programs: %s (run with -vv for the verifier log)",
			    strerror(-rc));
		return -1;
	}
	/* later events first: a process whose fork is recorded has its exec
	 * and exit recorded too (attaching takes ms; a short process forked
	 * after the fork program but ending before the exit program would
	 * read as an exit lost) */
	if (attach(r, s->progs.handle_exit) || attach(r, s->progs.handle_free) ||
	    attach(r, s->progs.handle_exec) || attach(r, s->progs.handle_fork))
		return -1;
	if (xf_tp) {
		if (attach(r, s->progs.tp_exit_execve) || attach(r, s->progs.tp_exit_execveat))
			return -1;
	} else if (xf_raw && attach(r, s->progs.raw_sys_exit)) {
		return -1;
	}
	sample_load(s, r->o.mode != MODE_ALL, (uint64_t)(r->o.sample_interval * 1e9 + 0.5));
	r->rb = ring_buffer__new(bpf_map__fd(s->maps.rb), on_event, r, NULL);
	if (!r->rb) {
		err("cannot map the BPF ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* how: BPF_ANY or BPF_NOEXIST (an array slot has no "exists": the caller
 * looked it up first) */
static int track_how(struct rec *r, uint32_t tgid, uint32_t threads, uint32_t flags, uint64_t how)
{
	struct tracked t = {.threads = threads ? threads : 1, .flags = flags | TRACKED_LIVE};

	if (r->skel->rodata->by_index)
		how = BPF_ANY;
	return bpf_map_update_elem(bpf_map__fd(r->skel->maps.tracked), &tgid, &t, how);
}

/* Track tgid, keeping what the BPF side already counts for it; threads is
 * at least the snapshot's live thread count. */
static void track_merge(struct rec *r, uint32_t tgid, uint32_t threads)
{
	int fd = bpf_map__fd(r->skel->maps.tracked);
	struct tracked t;

	if (bpf_map_lookup_elem(fd, &tgid, &t) == 0 && (t.flags & TRACKED_LIVE)) {
		if (t.threads < threads) {
			t.threads = threads;
			bpf_map_update_elem(fd, &tgid, &t, BPF_EXIST);
		}
		return;
	}
	track_how(r, tgid, threads, 0, BPF_NOEXIST);
}

/* Stop tracking tgid: delete its entry, or zero its array slot. */
static void untrack(struct rec *r, uint32_t tgid)
{
	int fd = bpf_map__fd(r->skel->maps.tracked);
	struct tracked z = {0};

	if (r->skel->rodata->by_index)
		bpf_map_update_elem(fd, &tgid, &z, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &tgid);
}

static int track(struct rec *r, uint32_t tgid, uint32_t threads, uint32_t flags)
{
	return track_how(r, tgid, threads, flags, BPF_ANY);
}

/* ------------------------------------------------------------ snapshot */

struct snap {
	struct snap_rec *v; /* exe copied into the fixed struct */
	size_t n, cap;
};

static int snap_read(struct rec *r, struct snap *sn)
{
	struct bpf_link *l = bpf_program__attach_iter(r->skel->progs.snap_tasks, NULL);
	size_t len = 0, cap = 1 << 16, off = 0;
	char *buf = NULL;
	ssize_t n;
	int fd;

	if (!l) {
		err("cannot attach the task iterator: %s", strerror(errno));
		return -1;
	}
	fd = bpf_iter_create(bpf_link__fd(l));
	if (fd < 0) {
		err("cannot create the task iterator: %s", strerror(errno));
		bpf_link__destroy(l);
		return -1;
	}
	buf = malloc(cap);
	while (buf) {
		if (cap - len < 8192) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	bpf_link__destroy(l);
	if (!buf) {
		err("out of memory");
		return -1;
	}
	const size_t fixed = offsetof(struct snap_rec, exe);
	while (off + fixed <= len) {
		struct snap_rec *s;
		if (sn->n == sn->cap) {
			size_t nc = sn->cap ? sn->cap * 2 : 512;
			struct snap_rec *nv = realloc(sn->v, nc * sizeof(*nv));
			if (!nv)
				break;
			sn->v = nv;
			sn->cap = nc;
		}
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
static int snapshot(struct rec *r)
{
	struct pt_proc p;
	size_t cap = sizeof(struct ev_proc_state) + EV_PATH_MAX + EV_ARGV_MAX_LIMIT;
	char *buf = malloc(cap), *argv = malloc(EV_ARGV_MAX_LIMIT + 1);
	int found = 0, rc = 0;
	/* -p: processes of the subtree that forked between a pass and their
	 * tracking are found by the next pass */
	int passes = r->o.mode == MODE_PID ? 3 : 1;

	if (!buf || !argv) {
		err("out of memory");
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
			uint32_t size = 0, argc = 0;
			long n = 0;

			if (r->o.mode == MODE_PID) {
				if (!in_subtree(&sn, s->tgid, r->o.pid))
					continue;
				if (s->tgid == r->o.pid)
					found = 1;
				track_merge(r, s->tgid, s->threads);
			}
			have = ptable_get(&r->pt, s->tgid);
			if (have && have->start_ns == s->start_ns &&
			    (pass > 0 || (have->flags & PT_SEEN_FORK)))
				continue;
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
				continue;
			on_event(r, buf, len);
			added++;
		}
		free(sn.v);
		if (pass > 0 && !added)
			break;
	}
	if (r->o.mode == MODE_PID && !found) {
		err("-p %u: no such process", r->o.pid);
		rc = -1;
	}
out:
	free(buf);
	free(argv);
	return rc;
}

/* ------------------------------------------------------------ command */

/* A state block: the live processes, then the cgroup table (bounded:
 * CG_RESTATE_MAX), so a wrapped ring still resolves their cgroups. */
static int state_fn(void *ctx, tz_writer *w)
{
	struct rec *r = ctx;
	int rc = ptable_state_fn(&r->pt, w);
	int rc2 = cgt_state(&r->cg, w, rec_boot_ns());
	return rc < 0 ? rc : rc2;
}

/*
 * Resolve COMMAND through PATH here, before the fork, the way execvp would,
 * so the recorded child does not show execvp's PATH misses as failed execs
 * of its own. Returns a malloc'd path, or NULL to leave it to execvp.
 */
static char *resolve_command(const char *cmd)
{
	const char *path = getenv("PATH");
	if (strchr(cmd, '/') || !*cmd)
		return NULL;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		size_t dl = (size_t)(end - path);
		char *cand = NULL;
		if (asprintf(&cand, "%.*s%s%s", (int)dl, path, dl ? "/" : "", cmd) < 0)
			return NULL;
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path = *end ? end + 1 : end;
	}
	return NULL;
}

/* Start COMMAND held on a pipe; released once tracked. Returns 0 or -1. */
static int start_command(struct rec *r)
{
	char *resolved = resolve_command(r->o.cmd[0]);
	uint32_t self = (uint32_t)getpid();
	int release_fd;
	pid_t pid;

	/* the next process this one forks is tracked by the fork program */
	if (track(r, self, 1, TRACKED_PARENT_ONLY)) {
		err("cannot update the BPF map: %s", strerror(errno));
		free(resolved);
		return -1;
	}
	pid = rec_command_fork(r->o.cmd, resolved, &release_fd);
	free(resolved);
	untrack(r, self);
	if (pid < 0) {
		err("fork: %s", strerror(errno));
		return -1;
	}
	r->child = pid;
	if (rec_command_release(release_fd)) {
		err("cannot release the command: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Processes whose exit event was lost (drops): forget the ones now gone. */
static void sweep_dead(struct rec *r)
{
	for (size_t i = 0; i < r->pt.nslots; i++) {
		struct pt_proc *p = r->pt.slots[i], *n;
		for (; p; p = n) {
			n = p->next;
			if (kill((pid_t)p->tgid, 0) && errno == ESRCH)
				ptable_del(&r->pt, p->tgid, 0);
		}
	}
}

/* ------------------------------------------------------------ writer */

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) * 4 + 3;
	s = p = malloc(len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int plain = *a != 0;
		for (const char *q = a; *q; q++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "-_./=:,+@%", *q))
				plain = 0;
		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, a);
			continue;
		}
		*p++ = '\'';
		for (const char *q = a; *q; q++) {
			if (*q == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *q;
		}
		*p++ = '\'';
	}
	*p = 0;
	return s;
}

/* argv joined for the metadata; with --redact masked argument by argument
 * first (as an exec's argv), then as one string */
static char *meta_args(struct rec *r, int argc, char **argv)
{
	char **m = r->o.redact ? rec_redact_argv(&r->rd, argc, argv) : NULL;
	char *cl;

	if (r->o.redact && !m)
		return NULL;
	cl = join_args(argc, m ? m : argv);
	free(m);
	if (cl && r->o.redact)
		redact_mask(&r->rd, cl, strlen(cl));
	return cl;
}

static void meta_u64(tz_writer *w, const char *k, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	tz_writer_set_meta(w, k, b);
}

static int open_writer(struct rec *r, int argc, char **argv)
{
	struct tz_writer_opts wo = {0};
	char b[64];
	int rc;

	wo.flags = r->o.force ? TZ_W_OVERWRITE : 0;
	wo.level = r->o.level;
	wo.threads = 1;
	wo.ring_size = r->o.ring_size;
	if (r->o.ring_size) {
		uint64_t cb = r->o.ring_size / 16;
		wo.chunk_bytes = (uint32_t)(cb > (1u << 20) ? (1u << 20) : cb < 65536 ? 65536 : cb);
	}
	wo.state_fn = state_fn;
	wo.state_ctx = r;
	rc = tz_writer_open(&r->w, r->o.output, &wo);
	if (rc == TZ_ERR_EXISTS) {
		err("'%s': file exists (use -f to overwrite)", r->o.output);
		return -1;
	}
	if (rc == TZ_ERR_NOSPC && !r->o.ring_size) {
		/* the header did not fit: no file is left (tz_writer_open) */
		r->open_nospc = 1;
		err("'%s': disk full: nothing recorded%s (free space, or use --ring SIZE)",
		    r->o.output, r->o.mode == MODE_FOLLOW ? ", the command runs unrecorded" : "");
		tz_writer_free(r->w);
		r->w = NULL;
		return -1;
	}
	if (rc < 0) {
		if (r->w && *tz_writer_errmsg(r->w))
			err("%s", tz_writer_errmsg(r->w));
		else
			err("'%s': %s", r->o.output, tz_strerror(rc));
		tz_writer_free(r->w);
		r->w = NULL;
		return -1;
	}
	rc = rec_meta_host(r->w);
	char *cl = meta_args(r, argc, argv);
	if (cl)
		tz_writer_set_meta(r->w, "recorder_cmdline", cl);
	free(cl);
	if (r->o.cmd) {
		int n = 0;
		while (r->o.cmd[n])
			n++;
		cl = meta_args(r, n, r->o.cmd);
		if (cl)
			tz_writer_set_meta(r->w, "command", cl);
		free(cl);
	}
	if (r->o.redact)
		tz_writer_set_meta(r->w, "redact", "default patterns (docs/RELIABILITY.md)");
	tz_writer_set_meta(r->w, "mode", mode_names[r->o.mode]);
	/* COMMAND's parent: its process is no orphan when its fork is gone */
	snprintf(b, sizeof(b), "%u", (unsigned)getpid());
	tz_writer_set_meta(r->w, "recorder_pid", b);
	if (r->o.mode == MODE_PID) {
		snprintf(b, sizeof(b), "%u", r->o.pid);
		tz_writer_set_meta(r->w, "target_pid", b);
	}
	snprintf(b, sizeof(b), "%u", r->o.argv_max);
	tz_writer_set_meta(r->w, "argv_max", b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)r->o.ringbuf_size);
	tz_writer_set_meta(r->w, "ringbuf_size", b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)r->o.ring_size);
	tz_writer_set_meta(r->w, "ring_size", b);
	snprintf(b, sizeof(b), "%d", r->o.level);
	tz_writer_set_meta(r->w, "compress_level", b);
	tz_writer_set_meta(r->w, "exec_failures", r->syscall_src ? "on" : "off");
	if (r->syscall_src)
		tz_writer_set_meta(r->w, "syscall_source", r->syscall_src);
	tz_writer_set_meta(r->w, "clock", "CLOCK_BOOTTIME");
	/* one clock pair read back to back: realtime = boottime + (this - that) */
	uint64_t bt = rec_boot_ns(), rt = rec_real_ns();
	/* the recording starts now that the programs are attached (the BPF load
	 * took ~1 s): the start metadata and the snapshot's time */
	r->t0_boot = bt;
	r->t0_real = rt;
	tz_writer_set_meta(r->w, "start_realtime", rec_fmt_time(rt, b, sizeof(b)));
	meta_u64(r->w, "start_realtime_ns", rt);
	meta_u64(r->w, "start_boottime_ns", bt);
	if (rc == 0)
		rc = tracer_schema_register(r->w);
	if (rc < 0) {
		err("%s", tz_writer_errmsg(r->w));
		return -1;
	}
	return 0;
}

/* 1 when path reads back as a finished .tz: a footer, no torn tail, no
 * damaged block (what `tracer-analyze verify` calls sealed) */
static int file_sealed(const char *path)
{
	tz_reader *rd = NULL;
	int ok = 0;

	if (tz_reader_open(&rd, path, NULL) == 0) {
		const struct tz_info *in = tz_reader_info(rd);
		ok = in->has_footer && !in->torn_tail_bytes && !in->corrupt_blocks;
	}
	tz_reader_free(rd);
	return ok;
}

/*
 * Metadata alive_at_stop: the tgids of the tracked processes still alive at
 * the stop, space-separated (empty: none). A process of the trace without an
 * exit that is not listed lost its exit event (ring buffer full): the
 * analyzer says so instead of "still running".
 */
static char *alive_list(struct rec *r)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = 0;
	sweep_dead(r);
	for (size_t i = 0; i < r->pt.nslots; i++)
		for (struct pt_proc *p = r->pt.slots[i]; p; p = p->next) {
			if (len + 12 > cap) {
				char *ns = realloc(s, cap *= 2);
				if (!ns) {
					free(s);
					return NULL;
				}
				s = ns;
			}
			len += (size_t)snprintf(s + len, cap - len, "%s%u", len ? " " : "", p->tgid);
		}
	return s;
}

/* The list taken at the stop (run(): before the last drain, the programs
 * still attached, so a process that exits after it is listed and one that
 * exited before it has its exit drained), else now. */
static void note_alive(struct rec *r)
{
	char *s = r->alive_at_stop ? r->alive_at_stop : alive_list(r);
	if (s)
		tz_writer_set_meta(r->w, "alive_at_stop", s);
	free(s);
	r->alive_at_stop = NULL;
}

static int emit_user_record(void *ctx, const void *rec, uint32_t size)
{
	struct rec *r = ctx;
	write_user_record(r, rec, size);
	return r->werr;
}

/* The workflow managers' records found from the recorded working dirs
 * (record/attach.c), and how many */
static void write_attachments(struct rec *r)
{
	if (r->o.no_attach || r->werr)
		return;
	struct att_ctx c = {
		.since_ns = r->t0_real,
		.max_total = r->o.attach_max ? r->o.attach_max : ATT_TOTAL_DEFAULT,
		.ts_ns = rec_boot_ns(),
		.emit = emit_user_record,
		.ctx = r,
	};
	if (att_collect(&r->att, &c) == -1)
		err("attachments: out of memory: some were not embedded");
	meta_u64(r->w, "attach_files", r->att.files);
	meta_u64(r->w, "attach_bytes", r->att.total);
	meta_u64(r->w, "attach_truncated", r->att.truncated);
	if (r->att.dirs_dropped)
		meta_u64(r->w, "attach_dirs_dropped", r->att.dirs_dropped);
}

static int close_writer(struct rec *r, int exit_status)
{
	static const char *const names[EV_DROP_SLOTS] = {
		"drops_fork", "drops_exec", "drops_exec_fail", "drops_exit",
		"drops_map_full", "drops_argv_fault", "drops_kevent", NULL};
	char b[64];
	uint64_t total = 0;
	int rc;

	write_attachments(r);
	write_drops(r, 1);
	for (int i = 0; i < EV_DROP_SLOTS; i++) {
		if (names[i])
			meta_u64(r->w, names[i], r->drops[i]);
		if (i != EV_DROP_ARGV_FAULT)
			total += r->drops[i];
	}
	meta_u64(r->w, "drops_total", total);
	meta_u64(r->w, "events_recorded", r->events);
	/* the open chunk sealed first, so what did not reach the file is
	 * only what a write error (disk full) lost */
	if (!r->werr)
		note_write_error(r, tz_writer_flush(r->w, 1));
	struct tz_writer_stats ws;
	tz_writer_stats(r->w, &ws);
	meta_u64(r->w, "events_written", ws.events_written);
	meta_u64(r->w, "events_unwritten", ws.events - ws.events_written + r->unwritten);
	if (r->o.redact)
		meta_u64(r->w, "redacted_strings", r->rd.hits);
	note_alive(r);
	uint64_t bt = rec_boot_ns(), rt = rec_real_ns();
	tz_writer_set_meta(r->w, "stop_realtime", rec_fmt_time(rt, b, sizeof(b)));
	meta_u64(r->w, "stop_realtime_ns", rt);
	meta_u64(r->w, "stop_boottime_ns", bt);
	if (r->o.mode == MODE_FOLLOW && r->child_reaped)
		meta_u64(r->w, "exit_status", (uint64_t)exit_status);
	if (r->werr == TZ_ERR_NOSPC)
		tz_writer_set_meta(r->w, "stop_reason", "disk full");
	else if (r->werr)
		tz_writer_set_meta(r->w, "stop_reason", "write error");
	else if (r->rb_err)
		tz_writer_set_meta(r->w, "stop_reason", "ring buffer error");
	else if (rec_stop_sig && !(r->o.mode == MODE_FOLLOW && r->child_reaped && r->pt.count == 0))
		/* not when COMMAND's processes had all exited in the grace */
		tz_writer_set_meta(r->w, "stop_reason", strsignal(rec_stop_sig));
	rc = tz_writer_close(r->w);
	r->w = NULL;
	/* the close after a full disk may or may not have found room for the
	 * index and footer: say "sealed" only when the file reads back so */
	if (r->werr == TZ_ERR_NOSPC)
		err(file_sealed(r->o.output)
			    ? "'%s': disk full: recording stopped, the file is sealed with "
			      "everything written before (free space, or use --ring SIZE)"
			    : "'%s': disk full: recording stopped, the file is not sealed "
			      "(tracer-analyze recover restores what was written)",
		    r->o.output);
	else if (rc < 0 && !r->werr)
		err("'%s': %s", r->o.output, tz_strerror(rc));
	if (r->o.verbose) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		err("%llu events, %llu dropped, written to '%s' (recorder cpu %.3f s, peak rss %ld KiB)",
		    (unsigned long long)r->events, (unsigned long long)total, r->o.output,
		    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		    ru.ru_maxrss);
		uint64_t sp, sh, np, ins;
		sample_stats(&sp, &sh, &np, &ins);
		if (np)
			err("%llu process and %llu host samples written; %llu iterator passes, "
			    "%.3f ms each on average",
			    (unsigned long long)sp, (unsigned long long)sh, (unsigned long long)np,
			    (double)ins / (double)np / 1e6);
	}
	return rc;
}

/* ------------------------------------------------------------ main */

/* COMMAND and every process it started have exited (follow mode) */
static int tree_done(struct rec *r)
{
	return r->child_reaped && r->pt.count == 0;
}

/*
 * How long the drain loop may sleep (ms): until the next 1 s tick, the next
 * samples, the end of --duration or of the stop grace, whichever comes
 * first. The BPF side wakes the loop when the ring holds a quarter of its
 * size, a signal or COMMAND's exit through the self-pipe. Waiting for
 * processes that are not our children (-p, COMMAND's descendants after
 * COMMAND itself exited, the stop grace) has no wake-up: their exits are
 * looked for every 100 ms.
 */
static int drain_timeout_ms(const struct rec *r, uint64_t now, uint64_t last_tick, uint64_t end)
{
	uint64_t due = last_tick + 1000000000ull, s = sample_next_ns(), cap = 1000;

	if (s && s < due)
		due = s;
	if (end && end < due)
		due = end;
	if (r->o.mode == MODE_PID || (r->o.mode == MODE_FOLLOW && (r->child_reaped || rec_stop_sig)))
		cap = 100;
	if (due <= now)
		return 0;
	due = (due - now + 999999) / 1000000;
	return (int)(due < cap ? due : cap);
}

/*
 * Whether the drain loop stops now. A stop signal stops -a and -p at once;
 * with COMMAND, the loop goes on until COMMAND's processes have exited (a
 * Ctrl-C reached them too: their deaths are what the user wants recorded),
 * for at most --stop-grace, or until a second stop signal.
 */
static int should_stop(struct rec *r, uint64_t now, uint64_t *grace_end)
{
	if (!rec_stop_sig)
		return 0;
	if (r->o.mode != MODE_FOLLOW || rec_stop_count > 1)
		return 1;
	if (!*grace_end)
		*grace_end = now + (uint64_t)(r->o.stop_grace * 1e9);
	if (r->child_reaped)
		sweep_dead(r);
	return tree_done(r) || now >= *grace_end;
}

/* exited processes whose release (EV_RELEASE) is still to come although
 * they were reaped: /proc no longer has them, the kernel frees them after
 * an RCU grace period */
static size_t releases_pending(struct rec *r)
{
	int fd = bpf_map__fd(r->skel->maps.exited);
	uint32_t key, next, *prev = NULL;
	size_t n = 0;
	char path[32];

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		snprintf(path, sizeof(path), "/proc/%u", key);
		if (access(path, F_OK) != 0) /* reaped (a zombie is still there) */
			n++;
	}
	return n;
}

/*
 * At the stop: the processes reaped lately (COMMAND itself, reaped by the
 * recorder, always) are freed by the kernel a grace period later, and only
 * then is their CPU final (EV_RELEASE). Wait for those releases, draining,
 * for at most RELEASE_WAIT_MS; a process not released by then keeps its
 * exit's figures (docs/tracer-record.md EXIT TIMING).
 */
#define RELEASE_WAIT_MS 1000
static void wait_releases(struct rec *r)
{
	for (int waited = 0; waited < RELEASE_WAIT_MS; waited += 5) {
		ring_buffer__consume(r->rb);
		if (!releases_pending(r))
			return;
		usleep(5000);
	}
	ring_buffer__consume(r->rb);
	if (r->o.verbose)
		err("%zu processes not released by the kernel within %d ms: their CPU is their "
		    "exit's",
		    releases_pending(r), RELEASE_WAIT_MS);
}

/* The status line's update, when one is due (status.h). */
static void status_update(struct rec *r, uint64_t now)
{
	if (!rec_status_due(&r->status, now))
		return;
	struct rec_status_facts f = {.now_ns = now, .procs_seen = r->procs_seen,
				     .procs_live = r->pt.count, .events = r->events};
	for (int i = 0; i < EV_DROP_SLOTS; i++)
		f.drops += r->drops[i];
	struct tz_writer_stats ws;
	tz_writer_stats(r->w, &ws);
	f.chunks = ws.chunks;
	struct stat st;
	if (!stat(r->o.output, &st))
		f.file_bytes = (uint64_t)st.st_size;
	rec_status_tick(&r->status, &f);
}

static int run(struct rec *r)
{
	uint64_t start = rec_boot_ns(), last_tick = start, grace_end = 0;
	uint64_t dur_ns = (uint64_t)(r->o.duration * 1e9);
	struct pollfd pf[2] = {
		{.fd = ring_buffer__epoll_fd(r->rb), .events = POLLIN},
		{.fd = rec_wake_fd(), .events = POLLIN},
	};
	r->procs_seen += r->pt.count;
	rec_status_init(&r->status, 2, r->o.progress, start);

	while (!r->werr && !should_stop(r, rec_boot_ns(), &grace_end)) {
		uint64_t end = dur_ns ? start + dur_ns : 0;
		if (grace_end && (!end || grace_end < end))
			end = grace_end;
		int n = poll(pf, 2, drain_timeout_ms(r, rec_boot_ns(), last_tick, end));

		if (n < 0 && errno != EINTR) {
			err("poll: %s", strerror(errno));
			r->rb_err = 1;
			break;
		}
		if (n > 0 && (pf[1].revents & POLLIN))
			rec_wake_clear();
		/* whatever woke us (the BPF side only when the ring fills up) */
		n = ring_buffer__consume(r->rb);
		if (n < 0 && n != -EINTR) {
			err("ring buffer: %s", strerror(-n));
			r->rb_err = 1;
			break;
		}
		if (r->o.mode == MODE_FOLLOW && !r->child_reaped) {
			pid_t w = waitpid(r->child, &r->child_status, WNOHANG);
			if (w == r->child)
				r->child_reaped = true;
		}
		uint64_t now = rec_boot_ns();
		if (rec_usr1) {
			rec_usr1 = 0;
			ring_buffer__consume(r->rb);
			int rc = tz_writer_flush(r->w, 1);
			note_write_error(r, rc);
			if (r->o.verbose && rc >= 0)
				err("SIGUSR1: %llu events recorded so far, all sealed",
				    (unsigned long long)r->events);
		}
		/* 100 ms early at most: the tick then shares the samples' wake-up */
		if (now - last_tick >= 900000000ull) {
			last_tick = now;
			write_drops(r, 0);
			note_write_error(r, tz_writer_flush(r->w, 0));
			if (r->drops[EV_DROP_EXIT] || r->drops[EV_DROP_MAP_FULL] || r->child_reaped)
				sweep_dead(r);
		}
		note_write_error(r, sample_poll(r->w, now, 0));
		status_update(r, now);
		if (dur_ns && now - start >= dur_ns)
			break;
		if ((r->o.mode == MODE_FOLLOW && r->child_reaped) || r->o.mode == MODE_PID) {
			if (r->pt.count == 0) {
				ring_buffer__consume(r->rb);
				if (r->pt.count == 0)
					break;
			}
		}
	}
	rec_status_end(&r->status);
	if (r->rb_err)
		return -1;
	/* who is alive at the stop: taken before the last drain */
	r->alive_at_stop = alive_list(r);
	if (!r->werr && rec_stop_count < 2)
		wait_releases(r);
	ring_buffer__consume(r->rb);
	if (!r->werr)
		note_write_error(r, sample_poll(r->w, rec_boot_ns(), 1));
	return 0;
}

/*
 * One line naming what a stop left running (follow mode): the tracked
 * processes still alive, COMMAND first, at most 8 named.
 */
static void say_left_running(struct rec *r, const char *why)
{
	char line[512];
	size_t len = 0, n = 0, shown = 0;

	sweep_dead(r);
	for (size_t i = 0; i < r->pt.nslots; i++)
		for (struct pt_proc *p = r->pt.slots[i]; p; p = p->next)
			n++;
	if (!n && r->child_reaped)
		return;
	line[0] = 0;
	if (!r->child_reaped) {
		struct pt_proc *c = ptable_get(&r->pt, (uint32_t)r->child);
		len += (size_t)snprintf(line, sizeof(line), "%d (%.*s)", (int)r->child,
					c ? (int)strnlen(c->comm, EV_COMM_LEN) : 7,
					c ? c->comm : "command");
		shown++;
		if (c)
			n--;
	}
	for (size_t i = 0; i < r->pt.nslots && shown < 8; i++)
		for (struct pt_proc *p = r->pt.slots[i]; p && shown < 8; p = p->next) {
			if (p->tgid == (uint32_t)r->child || len >= sizeof(line))
				continue;
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%u (%.*s)",
						shown ? ", " : "", p->tgid,
						(int)strnlen(p->comm, EV_COMM_LEN), p->comm);
			shown++;
			n--;
		}
	if (n && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " and %zu more", n);
	err("%s: left running: %s", why, line);
}

/* Stop recording: the programs detached, the maps and ring freed. */
static void bpf_teardown(struct rec *r)
{
	sample_stop();
	for (int i = 0; i < r->nlinks; i++)
		bpf_link__destroy(r->links[i]);
	r->nlinks = 0;
	ring_buffer__free(r->rb);
	r->rb = NULL;
	tracer_bpf__destroy(r->skel);
	r->skel = NULL;
}

static void rec_free(struct rec *r)
{
	bpf_teardown(r);
	ptable_free(&r->pt);
	cgt_free(&r->cg);
	free(r->cgbuf);
	r->cgbuf = NULL;
	free(r->ebuf);
	r->ebuf = NULL;
	att_free(&r->att);
	env_names_free(&r->o.env);
	redact_free(&r->rd);
	free(r->rbuf);
	r->rbuf = NULL;
}

/*
 * The output's filesystem was full before anything was recorded: run
 * COMMAND unrecorded rather than not at all, and end as it ends.
 */
static void run_unrecorded(struct rec *r)
{
	char *resolved = resolve_command(r->o.cmd[0]);
	int release_fd, st;
	pid_t pid;

	rec_free(r);
	pid = rec_command_fork(r->o.cmd, resolved, &release_fd);
	free(resolved);
	if (pid < 0) {
		err("fork: %s", strerror(errno));
		exit(REC_EXIT_FAIL);
	}
	if (rec_command_release(release_fd) || rec_command_wait(pid, &st))
		exit(REC_EXIT_FAIL);
	rec_exit_as(st);
}

int main(int argc, char **argv)
{
	struct rec r = {0};
	struct stat st;
	int status = 0, failed = 0;

	/* first: the dispositions and mask COMMAND is to inherit */
	if (rec_signals_init()) {
		err("pipe: %s", strerror(errno));
		return REC_EXIT_FAIL;
	}
	if (parse_args(argc, argv, &r.o))
		return REC_EXIT_USAGE;
	verbose_level = r.o.verbose;
	if (lstat(r.o.output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* with -f too: a directory, FIFO or device is never replaced */
		err("'%s': not a regular file", r.o.output);
		return REC_EXIT_FAIL;
	}
	if (!r.o.force && lstat(r.o.output, &st) == 0) {
		err("'%s': file exists (use -f to overwrite)", r.o.output);
		return REC_EXIT_FAIL;
	}
	if (r.o.redact && redact_init(&r.rd)) {
		err("--redact: cannot compile the patterns");
		return REC_EXIT_FAIL;
	}
	if (ptable_init(&r.pt)) {
		err("out of memory");
		return REC_EXIT_FAIL;
	}
	/* no mountinfo: no cgroup table (the ids are still recorded) */
	int cgrc = cgt_init(&r.cg, NULL);
	if (cgrc < 0 && r.o.verbose)
		err("/proc/self/mountinfo: %s: no cgroup table", strerror(-cgrc));
	r.cgbuf = malloc(CGBUF_SIZE);

	/* before any BPF or file work (a pid above pid_max would otherwise
	 * fail as a map update) */
	if (r.o.mode == MODE_PID && kill((pid_t)r.o.pid, 0) && errno == ESRCH) {
		err("-p %u: no such process", r.o.pid);
		failed = 1;
		goto out;
	}
	if (bpf_setup(&r) || open_writer(&r, argc, argv) ||
	    sample_start(r.w, r.o.verbose)) {
		failed = 1;
		goto out;
	}
	if (r.o.mode == MODE_FOLLOW) {
		if (start_command(&r))
			failed = 1;
	} else {
		if (r.o.mode == MODE_PID && track(&r, r.o.pid, 1, 0)) {
			err("cannot update the BPF map: %s", strerror(errno));
			failed = 1;
		} else if (snapshot(&r)) {
			failed = 1;
		}
	}
	if (r.o.verbose && !failed)
		err("recording to '%s' (%s mode; failed execs %s)", r.o.output, mode_names[r.o.mode],
		    r.syscall_src ? (strcmp(r.syscall_src, "raw_tp") ? "from syscalls:sys_exit_execve"
								 : "from raw_syscalls:sys_exit")
				  : "not recorded, see --exec-failures");
	if (!failed && run(&r))
		failed = 2;
out:
	if (r.child_reaped) {
		if (WIFEXITED(r.child_status))
			status = WEXITSTATUS(r.child_status);
		else if (WIFSIGNALED(r.child_status))
			status = 128 + WTERMSIG(r.child_status);
	} else if (rec_stop_sig) {
		/* stopped early by a signal: COMMAND is left running */
		status = r.o.mode == MODE_FOLLOW ? 128 + rec_stop_sig : 0;
	}
	int follow = r.o.mode == MODE_FOLLOW && r.child > 0 && failed != 1;
	if (follow && !failed && !r.werr && !tree_done(&r)) {
		char why[64];
		if (rec_stop_sig)
			snprintf(why, sizeof(why), "stopped by SIG%s", sigabbrev_np(rec_stop_sig));
		else
			snprintf(why, sizeof(why), "stopped after --duration %g s", r.o.duration);
		say_left_running(&r, why);
	}
	if (r.w) {
		if (failed == 1) {
			/* set-up failed: leave no file that looks like a trace */
			tz_writer_free(r.w);
			r.w = NULL;
			unlink(r.o.output);
		} else if (close_writer(&r, status) < 0 || r.werr) {
			failed = 2;
		}
	}
	if (failed == 1 && r.open_nospc && r.o.mode == MODE_FOLLOW)
		run_unrecorded(&r);
	bpf_teardown(&r);
	if (follow) {
		/* recording stopped on a failure (disk full): COMMAND goes on
		 * unharmed, the recorder stands in for it until it ends */
		if (failed && !r.child_reaped && rec_command_wait(r.child, &r.child_status) == 0)
			r.child_reaped = true;
		if (r.child_reaped) {
			rec_free(&r);
			rec_exit_as(r.child_status);
		}
	}
	rec_free(&r);
	if (failed)
		return REC_EXIT_FAIL;
	return status;
}
