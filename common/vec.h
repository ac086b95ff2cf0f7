/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vec.h - room for one more element at the end of a growing array, for the
 * tables record/ and analyze/ append to (candidates, cgroups, host samples,
 * tools of a run...). libc only.
 *
 * The capacity doubles (first when it was 0), so n appends cost O(n)
 * copies in all. Use, with v an array pointer, n its elements and cap its
 * capacity (a size_t or a uint32_t lvalue):
 *
 *	struct item *v = NULL;
 *	uint32_t n = 0, cap = 0;
 *	if (VEC_ROOM(v, n, cap, 64))	// -1: out of memory, v and cap intact
 *		return -1;
 *	v[n++] = item;
 *	free(v);
 *
 * Not thread-safe (it reallocs v).
 */
#ifndef TRACER_VEC_H
#define TRACER_VEC_H

#include <stddef.h>

/*
 * 0 when v has room for element n (n < cap), else grow v to twice cap
 * (first when cap is 0) and return 0, or -1 when out of memory or the new
 * capacity overflows cap's type or the byte count (v and cap unchanged).
 * v and cap are evaluated more than once: plain lvalues only.
 */
#define VEC_ROOM(v, n, cap, first)                                                                 \
	((n) < (cap) ? 0 : vec_grow(&(v), &(cap), sizeof(cap), sizeof(*(v)), (first)))

/*
 * VEC_ROOM's growing: *pv (a pointer to an array of elsz-byte elements,
 * NULL when empty) reallocated to the new capacity, written to *pcap (an
 * unsigned integer of capsz bytes, 4 or 8). 0, or -1 (nothing changed).
 */
int vec_grow(void *pv, void *pcap, size_t capsz, size_t elsz, size_t first);

#endif
