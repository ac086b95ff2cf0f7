/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * progress.h - one progress line on standard error while a trace is read
 * into a model (tza_load_ex, report.c): "tracer-analyze: 'FILE': reading
 * chunk 1,234 of 5,678 (21%)". One line for the whole process (stderr is
 * one): a second begin while one is shown replaces it.
 *
 * Shown only after TZA_PROGRESS_DELAY_MS of reading (a quick command never
 * flashes a line), then at most every TZA_PROGRESS_EVERY_MS. On a terminal
 * (stderr a tty, or --progress) the line is redrawn in place ("\r", the
 * text cut to the terminal's width, erase to the end of the row) and erased
 * by tza_progress_end: nothing is left behind (SIGINT and SIGTERM meanwhile
 * erase it too, then reach the handler that was there before, or the
 * default action). Off a terminal nothing is
 * written unless --progress asked, then plain lines ("...\n"), no control
 * characters. --no-progress: never.
 *
 * Test hook: TRACER_ANALYZE_PROGRESS_DELAY_MS=N in the environment sets the
 * delay in ms (0: the line from the first update on); documented in
 * docs/tracer-analyze.md.
 */
#ifndef TRACER_PROGRESS_H
#define TRACER_PROGRESS_H

#include <stdint.h>

#define TZA_PROGRESS_DELAY_MS 1500 /* nothing before this much reading */
#define TZA_PROGRESS_EVERY_MS 250  /* at most four updates a second */

/* The global --progress / --no-progress (main.c): AUTO shows the line
 * when stderr is a terminal. */
enum tza_progress_mode { TZA_PROGRESS_AUTO, TZA_PROGRESS_ON, TZA_PROGRESS_OFF };
void tza_progress_set_mode(enum tza_progress_mode mode);

/*
 * Start showing the reading of path (borrowed until tza_progress_end),
 * whose total is `total` chunks (tz_info.chunks: the readable chunks). The
 * clock starts now (CLOCK_MONOTONIC).
 */
void tza_progress_begin(const char *path, uint64_t total);
/*
 * Chunks decoded so far (tz_reader_chunks_decoded: state blocks count too,
 * so the number shown is held to total). Cheap when nothing is due (one
 * clock read): call it every few thousand events. No-op outside
 * begin/end.
 */
void tza_progress_tick(uint64_t done);
/* Done: on a terminal the line, if one was shown, is erased. No-op
 * without a begin. */
void tza_progress_end(void);

#endif /* TRACER_PROGRESS_H */
