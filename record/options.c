/* SPDX-License-Identifier: BSD-2-Clause */
/* options.c - tracer-record's command line: --help, the options and their
 * range checks, the one voice of its messages, TRACER_RECORD_TIMING's lines
 * (recorder.h). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder.h"
#include "sample.h"

const char *const rec_mode_names[] = {"follow", "system", "pid"};

void rec_err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int timing = -1;
static struct timespec timing_t0, timing_prev, timing_cpu_prev;

static double ts_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) * 1e3 + (double)(a->tv_nsec - b->tv_nsec) / 1e6;
}

int rec_timing_on(void)
{
	if (timing < 0) {
		const char *e = getenv("TRACER_RECORD_TIMING");
		timing = e && *e && strcmp(e, "0") != 0;
	}
	return timing;
}

void rec_timing(const char *phase)
{
	struct timespec now, cpu;

	if (!rec_timing_on())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	if (!timing_t0.tv_sec && !timing_t0.tv_nsec) {
		timing_t0 = timing_prev = now;
		timing_cpu_prev = cpu;
	}
	fprintf(stderr, PROG ": timing: %-22s at %8.1f ms  +%7.1f ms  cpu +%7.1f ms\n",
		phase, ts_ms(&now, &timing_t0), ts_ms(&now, &timing_prev),
		ts_ms(&cpu, &timing_cpu_prev));
	timing_prev = now;
	timing_cpu_prev = cpu;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
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
	    "  -o, --output FILE       trace file (default trace.tz, created mode 0600;\n"
	    "                          a file, not - : the writer seeks in it)\n"
	    "  -f, --force             overwrite FILE if it exists\n"
	    "  -a, --all               record the whole system until SIGINT/SIGTERM\n"
	    "  -p, --pid PID           record PID and its descendants until they exit\n"
	    "  -d, --duration SEC      stop after SEC seconds (any mode; at most 1000000000)\n"
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
	    "The BPF load resolves its CO-RE relocations against a cache made from the\n"
	    "kernel's BTF, /var/cache/tracer-record/vmlinux.btf (TRACER_RECORD_BTF_CACHE=DIR,\n"
	    "or off), built once a boot when missing.\n"
	    "\n"
	    "examples:\n"
	    "  " PROG " -o run.tz -- make -j8\n"
	    "  " PROG " -o pipe.tz -- sh -c 'bwa mem ref.fa r.fq | samtools sort -o out.bam'\n"
	    "  " PROG " -a --duration 60 -o host.tz\n"
	    "  " PROG " -p 4242 -o job.tz\n"
	    "  " PROG " -a --ring 64M -o flight.tz   # kill -USR1 to seal, SIGINT to stop\n",
	    EV_ARGV_MAX_DEFAULT, EV_ARGV_MAX_LIMIT, EV_ENV_MAX_DEFAULT, EV_ENV_MAX_LIMIT);
}

enum {
	OPT_RING = 256,
	OPT_ARGV_MAX,
	OPT_RINGBUF,
	OPT_LEVEL,
	OPT_MAX_PROCS,
	OPT_SAMPLE,
	OPT_REDACT,
	OPT_EXEC_FAILURES,
	OPT_STOP_GRACE,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_ENV,
	OPT_ENV_MAX,
	OPT_NO_ATTACH,
	OPT_ATTACH_MAX
};

static const struct option long_opts[] = {
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

/* A size or count in [min, max] (K/M/G suffixes unless plain) into *out;
 * -1 after "NAME: 'ARG': WHAT". */
static int opt_size(const char *name, const char *arg, uint64_t min, uint64_t max, int plain,
		    const char *what, uint64_t *out)
{
	if (rec_parse_size(arg, min, max, out) || (plain && strpbrk(arg, "kKmMgG"))) {
		rec_err("%s: '%s': %s", name, arg, what);
		return -1;
	}
	return 0;
}

/* opt_size for a value that fits 32 bits (max <= UINT32_MAX). */
static int opt_u32(const char *name, const char *arg, uint64_t min, uint64_t max, int plain,
		   const char *what, uint32_t *out)
{
	uint64_t v;

	if (opt_size(name, arg, min, max, plain, what, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Seconds in [lo, hi] (above lo when lo_open; 0 too when zero_ok) into
 * *out; -1 after "NAME: 'ARG': WHAT", or for a number above hi (infinity
 * too) "NAME: 'ARG': out of range (at most HI seconds)". NaN is refused. */
static int opt_secs(const char *name, const char *arg, double lo, double hi, int lo_open,
		    int zero_ok, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*end && end != arg && (v > hi || (errno == ERANGE && v > 0))) {
		rec_err("%s: '%s': out of range (at most %.15g seconds)", name, arg, hi);
		return -1;
	}
	if (errno || *end || end == arg ||
	    !((zero_ok && v == 0) || ((lo_open ? v > lo : v >= lo) && v <= hi))) {
		rec_err("%s: '%s': %s", name, arg, what);
		return -1;
	}
	*out = v;
	return 0;
}

/* An option with a value (c: its getopt code). Returns 0, -1 after a line,
 * or 1 when c is not one of them. */
static int parse_value(int c, const char *arg, struct opts *o)
{
	char what[64];
	uint64_t v;
	int rc;

	switch (c) {
	case 'o':
		if (!strcmp(arg, "-")) {
			/* the writer seeks back (header, index): no pipe */
			rec_err("-o -: a trace is written to a file it can seek in, not to "
				"standard output: name a file");
			return -1;
		}
		o->output = arg;
		return 0;
	case 'p':
		return opt_u32("-p", arg, 1, INT32_MAX, 1, "not a pid", &o->pid);
	case 'd':
		return opt_secs("--duration", arg, 0, 1e9, 1, 0, "not a positive number of seconds",
				&o->duration);
	case OPT_RING:
		return opt_size("--ring", arg, 1u << 20, 1ull << 50, 0, "not a size of at least 1M",
				&o->ring_size);
	case OPT_ARGV_MAX:
		snprintf(what, sizeof(what), "not a size in 0..%d", EV_ARGV_MAX_LIMIT);
		return opt_u32("--argv-max", arg, 0, EV_ARGV_MAX_LIMIT, 0, what, &o->argv_max);
	case OPT_RINGBUF:
		if (rec_parse_size(arg, 4096, 1u << 30, &v) || (v & (v - 1))) {
			rec_err("--ringbuf-size: '%s': not a power of 2 in 4K..1G", arg);
			return -1;
		}
		o->ringbuf_size = v;
		return 0;
	case OPT_LEVEL:
		rc = opt_size("--compress-level", arg, 1, 19, 1, "not a level in 1..19", &v);
		if (!rc)
			o->level = (int)v;
		return rc;
	case OPT_MAX_PROCS:
		return opt_u32("--max-procs", arg, 16, 1u << 26, 1, "not a count in 16..67108864",
			       &o->max_procs);
	case OPT_ENV:
		env_names_free(&o->env);
		if (env_names_parse(arg, &o->env)) {
			rec_err("--env: '%s': not a list of 1..%d variable names (NAME[,NAME...])",
				arg, ENV_NAMES_MAX);
			return -1;
		}
		return 0;
	case OPT_ENV_MAX:
		snprintf(what, sizeof(what), "not a size in 1..%d", EV_ENV_MAX_LIMIT);
		return opt_u32("--env-max", arg, 1, EV_ENV_MAX_LIMIT, 0, what, &o->env_max);
	case OPT_ATTACH_MAX:
		return opt_size("--attach-max", arg, 1, 1ULL << 30, 0, "not a size in 1..1G",
				&o->attach_max);
	case OPT_SAMPLE:
		return opt_secs("--sample-interval", arg, SAMPLE_INTERVAL_MIN, SAMPLE_INTERVAL_MAX,
				0, 1, "not 0 or a number of seconds in 0.01..3600",
				&o->sample_interval);
	case OPT_STOP_GRACE:
		return opt_secs("--stop-grace", arg, 0, 3600, 0, 0,
				"not a number of seconds in 0..3600", &o->stop_grace);
	}
	return 1;
}

/* An option without a value; -h and -V print and exit. Returns 0, or -1
 * after a line (an unknown option). */
static int parse_flag(int c, char **argv, struct opts *o, int *all)
{
	switch (c) {
	case 'f':
		o->force = 1;
		return 0;
	case 'a':
		*all = 1;
		return 0;
	case OPT_REDACT:
		o->redact = 1;
		return 0;
	case OPT_EXEC_FAILURES:
		o->exec_failures = 1;
		return 0;
	case OPT_NO_ATTACH:
		o->no_attach = 1;
		return 0;
	case OPT_PROGRESS:
		o->progress = REC_PROGRESS_ON;
		return 0;
	case OPT_NO_PROGRESS:
		o->progress = REC_PROGRESS_OFF;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'V':
		printf(PROG " %s\n", TRACER_VERSION);
		exit(0);
	case 'h':
		usage(stdout);
		exit(0);
	}
	if (optopt && optopt < 256)
		rec_err("unknown option '-%c' (see --help)", optopt);
	else
		rec_err("unknown option '%s' (see --help)", argv[optind - 1]);
	return -1;
}

/* The mode from -a / -p, and COMMAND from the operands. */
static int parse_mode(int argc, char **argv, struct opts *o, int all)
{
	if (all && o->pid) {
		rec_err("-a and -p cannot be combined");
		return -1;
	}
	o->mode = all ? MODE_ALL : o->pid ? MODE_PID : MODE_FOLLOW;
	if (optind < argc) {
		if (o->mode != MODE_FOLLOW) {
			rec_err("a COMMAND cannot be given with %s", all ? "-a" : "-p");
			return -1;
		}
		o->cmd = argv + optind;
	} else if (o->mode == MODE_FOLLOW) {
		rec_err("missing COMMAND (or -a, or -p PID); see --help");
		return -1;
	}
	return 0;
}

int rec_parse_args(int argc, char **argv, struct opts *o)
{
	int c, rc, all = 0;

	o->output = "trace.tz";
	o->argv_max = EV_ARGV_MAX_DEFAULT;
	o->ringbuf_size = 8u << 20;
	/* level 1: on recorded storms as small as level 3 (records repeat
	 * within a chunk) at 20-35% less of the recorder's CPU */
	o->level = 1;
	o->sample_interval = SAMPLE_INTERVAL_DEFAULT;
	o->stop_grace = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:fap:d:vVh", long_opts, NULL)) != -1) {
		rc = parse_value(c, optarg, o);
		if (rc == 1)
			rc = parse_flag(c, argv, o, &all);
		if (rc)
			return -1;
	}
	return parse_mode(argc, argv, o, all);
}
