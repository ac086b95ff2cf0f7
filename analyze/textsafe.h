/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * textsafe.h - trace bytes made safe for a terminal. Every string a trace
 * carries (a tool name from exe, argv or comm, a task or rule name from a
 * workflow record, a cgroup path, a cwd, an environment value, a file name)
 * was written by whoever ran the traced processes: the reader treats every
 * byte as hostile. Every human-readable writer of tracer-analyze (the text
 * tables, YAML and config blocks, gnuplot strings, messages) passes such a
 * string through here; JSON has its own escaping (json.h), CSV/TSV their
 * quoting (cmd_export.c).
 *
 * The safe form ("escaped text"):
 *   - printable, well-formed UTF-8 is kept as it is (any script, emoji);
 *   - a backslash is doubled: "\\", so the escapes below are unambiguous;
 *   - the C0 controls and DEL are shown visibly: \a \b \t \n \v \f \r \e,
 *     others \xNN (NUL \x00, DEL \x7f);
 *   - the C1 controls (U+0080..U+009F, valid UTF-8 that terminals obey,
 *     e.g. U+009B CSI) are shown as \u0080..\u009f;
 *   - every byte not part of a well-formed UTF-8 sequence (tza_utf8_len)
 *     is shown as \xNN.
 * It never holds a byte < 0x20, 0x7f, or a C1 control. Its width in columns
 * is counted in code points (every escape is ASCII).
 */
#ifndef TRACER_TEXTSAFE_H
#define TRACER_TEXTSAFE_H

#include <stddef.h>
#include <stdio.h>

struct tza_line;

/* Append the safe form of s[0..n) to l (json.h: out of memory sets l->err). */
void tza_safe_line(struct tza_line *l, const void *s, size_t n);
/*
 * s[0..n) in double quotes, its safe form with '"' written \" too: a C
 * string literal and a YAML double-quoted scalar at once (YAML reads \xNN
 * as U+00NN: a byte of invalid UTF-8 shows, it is not given back).
 */
void tza_safe_line_quoted(struct tza_line *l, const void *s, size_t n);
void tza_safe_quoted(FILE *f, const void *s, size_t n);
/* Write the safe form of s[0..n) to f; returns its width in columns. On out
 * of memory writes "?" per byte instead (still safe). */
size_t tza_safe_put(FILE *f, const void *s, size_t n);
/* The same for a NUL-terminated string; NULL writes nothing. */
size_t tza_safe_puts(FILE *f, const char *s);
/*
 * The safe form of NUL-terminated s (NULL: "") into buf of size bytes
 * (>= 4), NUL-terminated, for a printf "%s": cut at a character boundary
 * with "..." when it does not fit (never inside an escape). Returns buf.
 */
const char *tza_safe_str(char *buf, size_t size, const char *s);
/* A buffer for tza_safe_str that holds any name a table shows. */
#define TZA_SAFE_BUF 1024
/* The safe form of s (NULL: "") in a malloc'd string, or NULL when out of
 * memory. The caller frees. */
char *tza_safe_dup(const char *s);
/* A message (tza_err) with its control bytes and invalid UTF-8 escaped as
 * above but a backslash kept as it is (an option's regex reads as typed). */
void tza_safe_msg(FILE *f, const char *s);
/* Width in columns (code points) of the safe form of NUL-terminated s. */
size_t tza_safe_cols(const char *s);
/* 1 when s[0..n) is its own safe form (nothing to escape), else 0. */
int tza_safe_plain(const void *s, size_t n);
/* Width in columns (code points) of UTF-8 text s (already safe). */
size_t tza_text_cols(const char *s);

#endif /* TRACER_TEXTSAFE_H */
