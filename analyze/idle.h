/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * idle.h - the computing half of `tracer-analyze idle` (cmd_idle.c prints):
 * the stretches where the machine used under a share of its cores, and the
 * recorded processes alive in each. docs/tracer-analyze.md, "idle".
 */
#ifndef TZA_IDLE_H
#define TZA_IDLE_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* whose CPU judges a moment idle */
enum tza_idle_basis {
	TZA_IDLE_HOST = 0,  /* the host samples' busy/total CPU ns (every process) */
	TZA_IDLE_PROCS = 1, /* the recorded processes' CPU (tza_proc_cpu_at) in 100 ms bins */
};

/* One idle stretch [a, b): adjacent idle intervals merged. */
struct tza_idle_stretch {
	uint64_t a, b;	 /* CLOCK_BOOTTIME ns (host sample or bin edges) */
	double busy_ns;	 /* CPU ns used in it by the basis */
	double total_ns; /* CPU ns available in it (cores x duration) */
};

/* A process alive during a stretch (tza_idle_alive) */
struct tza_idle_who {
	const struct tza_proc *p; /* borrowed from the model */
	double cpu_ns;		  /* its CPU ns inside the stretch (tza_proc_cpu_at) */
	int whole;		  /* alive over the whole stretch */
};

/* The idle stretches of a model (tza_idle_compute; free with tza_idle_free) */
struct tza_idle {
	enum tza_idle_basis basis;
	unsigned ncpus;		    /* cores: the last host sample's with basis host, else
				       the metadata's "cpus", 1 when unknown */
	uint64_t span_a, span_b;    /* the window judged, CLOCK_BOOTTIME ns: the host
				       samples' first and last, or the model's t0..t1 */
	struct tza_idle_stretch *v; /* owned, in time order; every length, not
				       filtered by a minimum duration */
	uint32_t nv;
};

/*
 * Fill out with the stretches of m where the basis used under
 * threshold_pct % (0 < pct <= 100) of the cores. basis TZA_IDLE_HOST needs
 * m->nhost >= 2 (the caller checks; m built with TZA_MB_SAMPLES). all: count
 * pre-existing, kernel and state-block processes too (basis procs). mi: the
 * trace's machine (tza_machine_get). Returns 0, or -1 when out of memory
 * (out then holds nothing to free).
 */
int tza_idle_compute(const struct tza_model *m, const struct tza_machine *mi,
		     enum tza_idle_basis basis, double threshold_pct, int all,
		     struct tza_idle *out);
void tza_idle_free(struct tza_idle *x);

/*
 * The processes of m alive during x (selected as tza_idle_compute's all
 * says) into w (room for m->nprocs entries, caller's), sorted by CPU in the
 * stretch (most first), then alive over the whole stretch first, then by
 * start. Returns how many.
 */
uint32_t tza_idle_alive(const struct tza_model *m, const struct tza_idle_stretch *x, int all,
			struct tza_idle_who *w);

/* idle's options (cmd_idle.c) */
struct tza_idle_opts {
	double threshold;	/* percent of the cores, (0, 100] */
	uint64_t min_ns, limit; /* shortest stretch shown (ns); processes listed */
	int json, all;
	int basis; /* -1: by the trace's mode, else enum tza_idle_basis */
};

/*
 * `idle` of one trace (r, m: its model with TZA_MB_SAMPLES; path names it)
 * to f, text or JSON as o says; the basis chosen (o->basis -1: host for a
 * whole-machine trace with host samples, else procs). *idle_ns gets the
 * stretches' total shown (those of at least o->min_ns), *span_a and *span_b
 * the window judged (CLOCK_BOOTTIME ns), *basis the basis used; each may be
 * NULL. Returns TZA_EXIT_OK, or TZA_EXIT_FAIL after one line (--basis host
 * without host samples; out of memory).
 */
int tza_idle_trace(FILE *f, const char *path, tz_reader *r, const struct tza_model *m,
		   const struct tza_idle_opts *o, uint64_t *idle_ns, uint64_t *span_a,
		   uint64_t *span_b, enum tza_idle_basis *basis);

/*
 * `idle` of a run recorded on several hosts (idle_hosts.c; the host traces
 * args[0..n): fleet.h): the run's span (the earliest host's first event to
 * the latest one's last, by wall clock), one line per host (its idle time
 * over the run's span; the time outside its trace counted apart: not
 * recorded), then each host's own idle (tza_idle_trace) after a line naming
 * it. o->json: {"multi_host":true,"run":{...},"hosts":[...]}. Returns the
 * exit code (messages printed).
 */
int tza_idle_hosts(FILE *f, char **args, int n, const struct tza_idle_opts *o);

#endif
