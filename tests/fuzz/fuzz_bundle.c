/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_bundle.c - libFuzzer target for the bundle reader (analyze/bundle.c)
 * on archives: any bytes are read as a .tar.gz/.tgz/.tar/.zip bundle with
 * every check of a real open (paths, links, devices, sparse members, member
 * and total caps, bomb ratio, MANIFEST); a trace member found is then opened
 * and read to the end like `cat` does. Nothing may crash, hang, leak or
 * allocate past the (lowered) cap. Built by `make fuzz`; the replay driver
 * runs it over tests/fuzz/corpus_bundle (seed archives: tracer's own
 * bundles, GNU tar, PAX 0.0/0.1/1.0 sparse, zip) in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>

#include "analyze/bundle.h"
#include "tz.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = NULL;
	size_t len = 0;
	char *member = NULL;
	/* a 16 MiB member cap: libFuzzer's memory limit stays far away */
	setenv("TRACER_BUNDLE_MAX_MB", "16", 0);
	if (tza_bundle_trace_mem("fuzz.tar.gz", data, size, &buf, &len, &member) < 0)
		return 0;
	tz_reader *r = NULL;
	struct tz_reader_opts o = {.max_chunk = 4u << 20};
	if (!tz_reader_open_mem(&r, buf, len, member, &o)) {
		const struct tz_event *ev;
		sink += tz_reader_info(r)->events;
		if (!tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE))
			for (int n = 0; n < 1000000 && tz_reader_next(r, &ev) == 1; n++)
				sink += ev->ts_ns + ev->fixed_len;
	}
	tz_reader_free(r);
	free(buf);
	free(member);
	return 0;
}
