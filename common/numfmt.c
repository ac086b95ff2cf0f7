/* SPDX-License-Identifier: BSD-2-Clause */
/* numfmt.c - numbers as people read them (numfmt.h). */
#include <stdio.h>

#include "numfmt.h"

const char *numfmt_count(char *buf, size_t size, uint64_t n)
{
	char t[32];
	int len = snprintf(t, sizeof(t), "%llu", (unsigned long long)n), o = 0;
	for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = t[i];
	}
	buf[o] = 0;
	return buf;
}
