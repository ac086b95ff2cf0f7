/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json.h - a small JSON writer for tracer-analyze's machine outputs
 * (--json, export jsonl/chrome). Output is valid JSON (RFC 8259) whatever
 * bytes a string holds.
 *
 * Byte strings (argv, paths) are written as JSON strings:
 *   - valid UTF-8 passes through unchanged (U+2028/U+2029 too);
 *   - '"' and '\\' and the C0 controls are escaped (\n, \t, ... or \u00XX);
 *   - every byte that is not part of a well-formed UTF-8 sequence (stray
 *     continuation bytes, overlong forms, surrogates encoded as UTF-8, code
 *     points above U+10FFFF, truncated sequences) is written as the lone
 *     low surrogate \uDCXX where XX is the byte (0x80..0xFF). This is
 *     Python's "surrogateescape" convention (PEP 383): it is lossless, since
 *     well-formed UTF-8 never encodes a surrogate, and
 *     json.loads(s).encode("utf-8", "surrogateescape") gives back the exact
 *     original bytes.
 */
#ifndef TRACER_JSON_H
#define TRACER_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write buf[0..len) as a quoted JSON string (rules above). */
void tza_json_str(FILE *f, const void *buf, size_t len);
/* Same for a NUL-terminated string; NULL writes `null`. */
void tza_json_cstr(FILE *f, const char *s);
/*
 * argv bytes (NUL after each argument, possibly cut without a final NUL) as
 * a JSON array of strings. An empty argument is "" and kept.
 */
void tza_json_argv(FILE *f, const uint8_t *argv, uint32_t len);
/* A number of seconds from ns, with 9 decimals, trailing zeros trimmed. */
void tza_json_secs(FILE *f, int64_t ns);
/* A finite double: integers plainly, else up to 6 decimals ("0" for NaN/inf). */
void tza_json_num(FILE *f, double v);

/*
 * Length of the well-formed UTF-8 sequence at s (1..4), or 0 when the byte at
 * s does not start one (used by the text quoting too). n is bytes available.
 */
int tza_utf8_len(const uint8_t *s, size_t n);

#endif /* TRACER_JSON_H */
