/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * follow.h - `top --follow` and `summary --follow`: the output of a command
 * on the sealed chunks of a trace being written, again every interval, like
 * top(1). One loop for both (follow.c); each command gives its one-shot
 * output as a callback.
 */
#ifndef TRACER_FOLLOW_H
#define TRACER_FOLLOW_H

#include <stdint.h>
#include <stdio.h>

#include "tz.h"

/*
 * One refresh: write the command's whole output for path to f (a memory
 * stream: nothing reaches the screen before it is complete) and copy the
 * reader's facts into *info (tz_reader_info: unfinished, live, chunks).
 * arg is the caller's. Returns an exit code (TZA_EXIT_*): anything but
 * TZA_EXIT_OK ends the loop with it (the callback said why, one line).
 */
typedef int (*tza_follow_fn)(FILE *f, const char *path, void *arg, struct tz_info *info);

/*
 * Follow path: call once() every interval_ms (CLOCK_MONOTONIC, 100 ms
 * steps) with TRACER_ANALYZE_PARTIAL=1 set (the sealed chunks, no footer
 * yet), and print under one heading line
 *   "CMD --follow 'PATH'  HH:MM:SS UTC  N chunks  STATE"
 * the output it made. On a terminal (stdout a tty) each refresh replaces
 * the last (cursor home, erase the screen), else refreshes follow each
 * other a blank line apart. Stops after the refresh that finds the file
 * finished (its writer closed it: STATE "finished: the whole trace"; a
 * closed file that is damaged or whose index is ignored is read once more
 * without TRACER_ANALYZE_PARTIAL unless the caller had set it, so that the
 * command's verdict is the one without --follow: its line and exit code;
 * with it, STATE "finished, damaged: what --partial reads of it") or
 * unfinished with no writer (the recorder died, or a cut copy: read again
 * without TRACER_ANALYZE_PARTIAL in the same way, so CMD's line and exit
 * code; with it, STATE "unfinished and no writer: ..."), on SIGINT/SIGTERM, or when
 * 'q' is typed on a terminal stdin (read unbuffered, without echo, while
 * following; the terminal's modes are restored before returning).
 * Returns TZA_EXIT_OK, or once()'s failure, or TZA_EXIT_FAIL (out of
 * memory, one line naming cmd).
 */
int tza_follow(const char *cmd, const char *path, uint64_t interval_ms, tza_follow_fn once,
	       void *arg);

/* The operands of a command that takes --follow (argv[optind..argc)):
 * one FILE (returns TZA_FOLLOW_ONE, *path = it), a run on several hosts
 * (TZA_FOLLOW_HOSTS), or an exit code after one line: with follow, several
 * hosts ("CMD: --follow reads one trace (not several hosts)"); not one
 * FILE (tza_one_file). */
#define TZA_FOLLOW_ONE (-1)
#define TZA_FOLLOW_HOSTS (-2)
int tza_follow_operands(const char *cmd, int follow, int argc, char **argv, const char **path);

/* --interval SEC (1..36000 whole seconds) into *ms; -1 + one line on a
 * bad value. */
int tza_follow_interval(const char *arg, uint64_t *ms);

#endif /* TRACER_FOLLOW_H */
