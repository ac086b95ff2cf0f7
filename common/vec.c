/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vec.c - growing arrays by doubling (vec.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

int vec_grow(void *pv, void *pcap, size_t capsz, size_t elsz, size_t first)
{
	size_t cap, max = capsz == sizeof(uint32_t) ? UINT32_MAX : SIZE_MAX;
	void *v;
	if (capsz == sizeof(uint32_t)) {
		uint32_t c32;
		memcpy(&c32, pcap, sizeof(c32));
		cap = c32;
	} else {
		memcpy(&cap, pcap, sizeof(cap));
	}
	size_t nc = cap ? cap * 2 : first;
	if (!nc || nc <= cap || nc > max || nc > SIZE_MAX / elsz)
		return -1;
	memcpy(&v, pv, sizeof(v));
	void *nv = realloc(v, nc * elsz);
	if (!nv)
		return -1;
	memcpy(pv, &nv, sizeof(nv));
	if (capsz == sizeof(uint32_t)) {
		uint32_t c32 = (uint32_t)nc;
		memcpy(pcap, &c32, sizeof(c32));
	} else {
		memcpy(pcap, &nc, sizeof(nc));
	}
	return 0;
}
