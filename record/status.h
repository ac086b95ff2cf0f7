/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * status.h - tracer-record's live status line (record/status.c): about once
 * a second, on stderr, what the recording has seen so far:
 *
 *   tracer-record: 1m05s  procs 412 seen, 6 live  3,210 ev/s  drops 0  2.4 MiB  chunks 7
 *
 * On a terminal the line lives on the terminal's last row, kept out of the
 * scrolling area (a scroll region of rows 1..rows-1, as apt's progress bar
 * does), so COMMAND's output on the same terminal scrolls above it and never
 * mixes with it; each update saves the cursor (ESC 7), writes the last row
 * (cut to the width) and restores the cursor (ESC 8). At the end the scroll
 * region is reset and the row erased. A terminal whose size is unknown or
 * under 3 rows gets no line. Off a terminal it is off unless asked (--progress): then each
 * update is a plain line ending in "\n" (no control characters), for logs.
 * --no-progress turns it off on a terminal too. No libbpf here: unit-tested
 * alone (tests/unit/test_record_status.c).
 */
#ifndef TRACER_RECORD_STATUS_H
#define TRACER_RECORD_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* What the recorder knows at an update; every count since the start. */
struct rec_status_facts {
	uint64_t now_ns;     /* CLOCK_BOOTTIME now (rec_boot_ns) */
	uint64_t procs_seen; /* processes tracked at the start + forks recorded */
	uint64_t procs_live; /* tracked processes alive now (ptable count) */
	uint64_t events;     /* events written (struct rec events) */
	uint64_t drops;	     /* events lost so far, every drop slot summed */
	uint64_t file_bytes; /* the output file's size now, bytes (stat st_size) */
	uint64_t chunks;     /* chunks sealed (tz_writer_stats) */
};

enum rec_status_mode {
	REC_STATUS_OFF,	  /* nothing is written */
	REC_STATUS_TTY,	  /* one line redrawn in place, erased at the end */
	REC_STATUS_LINES, /* one plain line per update (--progress off a terminal) */
};

struct rec_status {
	enum rec_status_mode mode;
	int fd;			/* where the line goes (2) */
	uint64_t t0_ns;		/* start of the recording, for the elapsed time */
	uint64_t last_ns;	/* last update; 0 = none yet */
	uint64_t last_events;	/* events at the last update, for events/s */
	unsigned rows;		/* TTY: the terminal's rows when the scroll region was
				   set (the status is on the last row); 0 = not set */
};

/* The --progress / --no-progress choice. */
enum rec_progress { REC_PROGRESS_AUTO, REC_PROGRESS_ON, REC_PROGRESS_OFF };

/*
 * Choose the mode for fd: AUTO: TTY when isatty(fd), else OFF; ON: TTY on a
 * terminal, LINES elsewhere; OFF: OFF. t0_ns starts the elapsed time.
 */
void rec_status_init(struct rec_status *s, int fd, enum rec_progress p, uint64_t t0_ns);

/* Is an update due at now_ns (not OFF, 1 s since the last)? Lets the caller
 * skip gathering the facts. */
int rec_status_due(const struct rec_status *s, uint64_t now_ns);

/*
 * Write an update when at least 1 s passed since the last one (or none was
 * written yet and 1 s passed since t0). Cheap otherwise; write errors are
 * ignored (the status is best effort, the trace is what counts).
 */
void rec_status_tick(struct rec_status *s, const struct rec_status_facts *f);

/* TTY mode: reset the scroll region and erase the status row. */
void rec_status_end(struct rec_status *s);

/*
 * The status text without control characters or newline, into buf (size n,
 * NUL-terminated, cut to fit): elapsed (now - t0), events/s over the last
 * dt_ns. Returns the length written.
 */
size_t rec_status_format(char *buf, size_t n, const struct rec_status_facts *f, uint64_t t0_ns,
			 uint64_t dt_ns, uint64_t dev);

#endif /* TRACER_RECORD_STATUS_H */
