/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diff.h - the computing half of `tracer-analyze diff` (cmd_diff.c prints):
 * the groups of two runs matched by key and ordered by how much they
 * changed. docs/tracer-analyze.md, "diff".
 */
#ifndef TZA_DIFF_H
#define TZA_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* One group of run A and/or run B */
struct tza_diff_row {
	const char *key;	       /* the group's key, borrowed from a or b */
	const struct tza_group *a, *b; /* borrowed; NULL: not in that run */
	double change;		       /* |wall B - wall A| + |CPU B - CPU A|, ns;
					  wall: top's WALL (cores_wall_ns: task
					  groupings each task's wall once) */
};

/*
 * Match the groups a[na] and b[nb] by key (both arrays are sorted by key in
 * place; keys are unique within each run, as tza_groups makes them) into
 * *rows (malloc'd, the caller frees; *nr = how many, na + nb at most),
 * sorted by change (largest first), then by key. The rows borrow a and b.
 * Returns 0, or -1 when out of memory (*rows NULL).
 */
int tza_diff_rows(struct tza_group *a, uint32_t na, struct tza_group *b, uint32_t nb,
		  struct tza_diff_row **rows, uint32_t *nr);

/* What diff prints above the rows: the two runs. */
struct tza_diff_head {
	const char *a, *b;		     /* the arguments, as given */
	uint64_t makespan_a_ns, makespan_b_ns; /* each run's, ns (on several
						 hosts: first root start to
						 last root end, wall clock) */
	size_t hosts_a, hosts_b; /* 0 and 0: two single traces (the output
				    says no hosts); else each run's hosts
				    (distinct hostnames) */
	size_t traces_a, traces_b; /* each run's host traces (two traces of
				      one host count 2); with hosts_* */
};

/* Match the groups a[na] and b[nb] (tza_diff_rows: sorted by key in place)
 * and print the diff (text, or JSON when json), the first limit (0: all)
 * rows, to f. Returns TZA_EXIT_OK, or TZA_EXIT_FAIL after "out of memory". */
int tza_diff_show(FILE *f, const struct tza_diff_head *h, enum tza_by by, int json,
		  uint64_t limit, struct tza_group *a, uint32_t na, struct tza_group *b,
		  uint32_t nb);

/*
 * diff of two runs when either is a run on several hosts (a multi-host
 * trace, a directory of traces; diff_hosts.c): each run's groups summed
 * over its hosts (a process two overlapping traces of one host hold counted
 * once; peak RSS the largest of one process), its makespan on the wall
 * clock. Prints to o; returns the exit code (TZA_EXIT_OK, or TZA_EXIT_FAIL
 * after one line).
 */
int tza_diff_hosts(FILE *o, const char *pa, const char *pb, enum tza_by by, int json,
		   uint64_t limit);

#endif
