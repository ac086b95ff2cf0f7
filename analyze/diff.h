/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diff.h - the computing half of `tracer-analyze diff` (cmd_diff.c prints):
 * the groups of two runs matched by key and ordered by how much they
 * changed. docs/tracer-analyze.md, "diff".
 */
#ifndef TZA_DIFF_H
#define TZA_DIFF_H

#include <stdint.h>

#include "report.h"

/* One group of run A and/or run B */
struct tza_diff_row {
	const char *key;	       /* the group's key, borrowed from a or b */
	const struct tza_group *a, *b; /* borrowed; NULL: not in that run */
	double change;		       /* |wall B - wall A| + |CPU B - CPU A|, ns */
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

#endif
