/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numfmt.h - numbers as people read them, for the messages of both binaries
 * (the recorder's status line, the analyzer's tables). libc only.
 */
#ifndef TRACER_NUMFMT_H
#define TRACER_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* n in decimal with a comma between groups of three digits ("1,234,567")
 * into buf (size bytes, NUL-terminated; the digits that do not fit are left
 * off). Returns buf. */
const char *numfmt_count(char *buf, size_t size, uint64_t n);

#endif /* TRACER_NUMFMT_H */
