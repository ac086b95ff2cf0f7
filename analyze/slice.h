/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * slice.h - `tracer-analyze slice`: a time window of a trace as a new
 * self-contained trace (cmd_slice.c), and of a run on several hosts as a
 * new multi-host trace, each host sliced over the same wall-clock window
 * (slice_hosts.c). docs/tracer-analyze.md, "slice" and "MANY HOSTS".
 */
#ifndef TZA_SLICE_H
#define TZA_SLICE_H

#include <stdint.h>

/* tza_slice_write's result when quiet_empty and the window holds nothing
 * (no event, no process alive): OUT not written, nothing printed. */
#define TZA_SLICE_EMPTY 3

/* One slice of one trace. */
struct tza_slice_req {
	const char *in;		/* a trace, or a member "RUN.tz[i]" (tza_open) */
	const char *out;	/* the file to write (removed on failure) */
	const char *label;	/* OUT in the closing line on stderr; NULL: out */
	int force;		/* replace OUT if it exists */
	int allow_empty;	/* write OUT even when the window holds nothing */
	int quiet_empty;	/* an empty window: TZA_SLICE_EMPTY, no message */
	int have_from, have_to; /* else the trace's first / last event */
	uint64_t from, to;	/* the window, CLOCK_BOOTTIME ns of IN, inclusive */
};

/* Write the slice q asks for (as `slice IN OUT`, the window given in IN's
 * own clock). Returns TZA_EXIT_OK, TZA_SLICE_EMPTY (quiet_empty), or
 * TZA_EXIT_FAIL after one line on stderr. */
int tza_slice_write(const struct tza_slice_req *q);

/*
 * slice of a run on several hosts: in is a multi-host trace or a directory
 * of traces (fleet.h). The window's texts (NULL: the run's start / end) are
 * wall clock or seconds from the run's start (its earliest trace start on
 * the wall clock); each host trace is sliced over that window, converted to
 * its own CLOCK_BOOTTIME by its clock anchors, and the slices are written
 * as one multi-host trace out (FORMAT.md section 18). A host whose
 * recording begins after the window, or (unless allow_empty) whose window
 * holds nothing, is left out with a note; none left is an error. Returns the exit code
 * (TZA_EXIT_OK, TZA_EXIT_USAGE or TZA_EXIT_FAIL after one line).
 */
int tza_slice_hosts(const char *in, const char *out, int force, int allow_empty,
		    const char *from_s, const char *to_s);

#endif
