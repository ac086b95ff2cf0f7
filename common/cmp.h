/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmp.h - the one step of a qsort comparator that orders by several keys:
 *
 *	static int cmp_bar(const void *a, const void *b)
 *	{
 *		const struct bar *x = a, *y = b;
 *		CMP_RET(x->row, y->row);	-- first by row,
 *		CMP_RET(x->start, y->start);	-- then by start,
 *		return strcmp(x->name, y->name);
 *	}
 *
 * a and b are plain numbers (evaluated twice: no side effects); when they
 * differ the comparator returns -1 or 1, else it goes on to the next key.
 */
#ifndef TRACER_CMP_H
#define TRACER_CMP_H

#define CMP_RET(a, b)                                                                             \
	do {                                                                                       \
		if ((a) != (b))                                                                    \
			return (a) < (b) ? -1 : 1;                                                 \
	} while (0)

#endif
