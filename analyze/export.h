/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export.h - the writers of `tracer-analyze export` that live outside
 * cmd_export.c. Keys and columns are public contracts: docs/tracer-analyze.md
 * "export".
 */
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdio.h>

#include "model.h"

/*
 * Write the whole Chrome trace-event JSON of m to f: "otherData" (generator,
 * the recorder's drop counters and "incomplete"), then per process (in m's
 * start order, track i + 1) its name and sort index, a complete event from
 * its start (clipped to the trace start) to its end (tza_proc_end), an
 * instant per exec, OOM kill and failed exec and a counter of its resident
 * memory (MiB) per sample; then on track 0 the processes running and the CPU
 * cores in use (each process's CPU spread evenly over its life), and the
 * host samples' busy cores and used memory. Times are microseconds from
 * m->t0_ns with three decimals. m must be loaded with TZA_MB_SAMPLES. Write
 * errors are left in f's error flag (ferror); an allocation failure leaves
 * the counter tracks out.
 */
void tza_export_chrome(FILE *f, struct tza_model *m, enum tza_by by);

#endif
