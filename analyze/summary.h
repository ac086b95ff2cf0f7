/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * summary.h - the computing half of `tracer-analyze summary`
 * (analyze/summary.c; cmd_summary.c prints it as text or JSON): everything
 * summary says about one trace, computed before any of it is printed.
 * docs/tracer-analyze.md, "summary".
 */
#ifndef TZA_SUMMARY_H
#define TZA_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* What summary counts over every process and exec, apart from the groups:
 * on a second thread while the critical path and the groups are made (it
 * reads exit totals, flags and argv; they write only the tool keys) */
struct tza_summary_counts {
	const struct tza_model *m;
	int want_secrets;
	uint64_t nz, sig, core, kill9, running, pre, secrets;
	/* fatal signals whose sending was recorded: by the kernel (by cause,
	 * kcause[] in the order of tza_kernel_causes[]), the process itself, another */
	uint64_t by_kernel, by_self, by_other, kcause[8];
	uint64_t sampled; /* running with samples: counted to the last (TZA_P_SAMPLED) */
	double cpu_ns;	  /* the processes' CPU ns inside [t0, t1] */
	uint64_t t0, t1;
};

/* tza_signal_cause()'s kernel causes, in the order summary lists them
 * (tza_summary_counts.kcause[]) */
extern const char *const tza_kernel_causes[8];

/* Everything summary says about one trace, computed before any of it is
 * printed (tza_summary_compute; tza_summary_free) */
struct tza_summary {
	const char *path; /* as given */
	tz_reader *r;
	struct tza_model *m;
	const struct tz_info *in; /* the reader's */
	struct tza_machine mi;
	struct tza_crit cr;
	struct tza_profile *pr;
	struct tza_group *g; /* ng groups by s->by, most self CPU first */
	uint32_t ng;
	uint32_t nshow, nc; /* groups and critical-path tools to list (--limit) */
	struct tza_summary_counts cnt;
	uint64_t t0, t1, duration; /* the window (summary_window), CLOCK_BOOTTIME ns */
	double cpu_used;	   /* the recorded processes' CPU ns in the window */
	double host_util;	   /* the host's busy share, < 0: no host samples */
	double procs_util, util;   /* util: by_host ? host_util : procs_util */
	int by_host;		   /* whole-machine mode with host samples */
	uint64_t mem_kib, mem_ns;  /* the recorded processes' summed peak RSS, when */
	uint64_t mem_unknown;	   /* processes whose RSS is unknown (tza_proc_rss_known:
				      a slice's), not in mem_kib: a lower bound then */
	uint64_t drops_total;	   /* recorder drops that lost events */
	char w0[64], w1[64];
	const char *ws, *we; /* wall-clock start and end (in w0, w1), NULL: unknown */
	int xf_recorded;     /* failed execs recorded (exec_failures not off) */
	char whatb[64];
};

/*
 * Load path and compute s (tza_summary_free frees it; s->path borrows
 * path). by: the grouping; limit: groups and critical-path tools to list
 * (0: all); want_secrets: count the execs whose argv looks like a
 * credential (common/redact.c; costly, text only). info, when given,
 * receives the reader's facts (summary --follow). Returns TZA_EXIT_OK,
 * else TZA_EXIT_FAIL after saying why on stderr (s then holds nothing).
 */
int tza_summary_compute(const char *path, enum tza_by by, uint64_t limit, int want_secrets,
			struct tza_summary *s, struct tz_info *info);
/* The same over a reader already open (taken: freed by tza_summary_free,
 * or on failure), named name in messages and output (a host of a
 * multi-host run, "run.tz[1]"). */
int tza_summary_compute_r(const char *name, tz_reader *r, enum tza_by by, uint64_t limit,
			  int want_secrets, struct tza_summary *s);
void tza_summary_free(struct tza_summary *s);
/* Print s as summary prints one trace: text (by: the grouping's header) or
 * JSON (one object and a newline). */
void tza_summary_print(FILE *f, struct tza_summary *s, enum tza_by by, int json);
/*
 * summary over a run recorded on several hosts (fleet.h): args[0..n) are
 * traces, directories or multi-host traces. Prints the run (hosts,
 * wall-clock span, totals, top groups across hosts, each host's share)
 * then each host's summary, to o. Returns TZA_EXIT_OK, else TZA_EXIT_FAIL
 * after one line on stderr.
 */
int tza_summary_hosts(FILE *o, char **args, int n, enum tza_by by, uint64_t limit, int json);

#endif
