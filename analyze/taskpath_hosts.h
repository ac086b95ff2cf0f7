/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * taskpath_hosts.h - `critical-path --by task|rule` over several hosts
 * (docs/tracer-analyze.md "MANY HOSTS"): one path of tasks over every
 * host's tasks on the wall clock (task.h tza_tp_solve), its edges:
 *   - data: B read a file A wrote (the workflow's records, e.g. Snakemake
 *     .snakemake/metadata, on any host), A ended before B started (across
 *     hosts: within the clocks' bound);
 *   - time: on one host, by time and the process tree (task.h);
 *   - adjacent: across hosts by time alone, when B has no records (its
 *     inputs are unknown): A ended before B started, within the bound.
 * A task with records takes its predecessors from them alone.
 */
#ifndef TRACER_TASKPATH_HOSTS_H
#define TRACER_TASKPATH_HOSTS_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct tza_model;

/* One host's task, copied out of its model (every string owned). Times:
 * wall-clock ns (the host's CLOCK_BOOTTIME plus its one offset). */
struct tza_htask {
	uint32_t host;	/* index into the run's hosts */
	uint32_t idx;	/* its index on its host (start order) */
	int64_t w0, w1; /* task.h start_ns, end_ns on the wall clock */
	char *key, *id, *rule;
	const char *kind; /* tza_task_kind_name (static) */
	uint32_t pid;	  /* its root's */
	int64_t parent;	  /* its root's parent's process index, -1 none */
	uint32_t *anc;	  /* its root's parent and that one's ancestors */
	uint32_t nanc;
	char **in, **out; /* workflow inputs, outputs (io) */
	uint32_t nin, nout, io;
};

struct tza_htasks {
	struct tza_htask *t;
	size_t n, cap;
};

/* Append every task of m (host `host`, wall = boot + off_ns) but those
 * whose skip[task index] is set (skip NULL: none; a task an earlier trace of
 * the same host holds). 0, or -1 out of memory (what was added stays, for
 * tza_htasks_free). */
int tza_htasks_add(struct tza_htasks *l, uint32_t host, int64_t off_ns, struct tza_model *m,
		   const uint8_t *skip);
void tza_htasks_free(struct tza_htasks *l);

/* The run the path is printed for (every pointer borrowed). */
struct tza_hosts_run {
	const char *const *hostname, *const *trace; /* per host */
	size_t nhosts;
	int64_t r0, r1;	  /* first root start, last root end (wall ns); r0 0: none */
	int64_t bound_ns; /* the clocks' bound (fleet_clock.h), -1 unknown */
	const char *note; /* the clock note */
	enum tza_by by;	  /* TZA_BY_TASK or TZA_BY_RULE */
};

/* Solve and print (text, or JSON when json). TZA_EXIT_OK, or TZA_EXIT_FAIL
 * after one line (out of memory). Sorts l->t. */
int tza_taskpath_hosts(FILE *o, struct tza_htasks *l, const struct tza_hosts_run *run, int json);

#endif /* TRACER_TASKPATH_HOSTS_H */
