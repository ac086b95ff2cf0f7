/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_reader.c - libFuzzer target for the .tz reader: open from memory, read
 * every fact, iterate everything (with and without state and unknown types,
 * and a time window), convert times, verify every block. Any crash, hang,
 * leak or sanitizer report is a bug. Built by `make fuzz`; replayed over
 * tests/fuzz/corpus_reader and tests/data/bad in `make test`.
 *
 * Every input is read twice: as it is, and "fixed up" - every checksum
 * recomputed and compressed payloads declared raw - so that mutations reach
 * the schema, metadata, index and event decoders instead of stopping at a
 * checksum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tz.h"
#include "tz_int.h"

static uint64_t sink;

static void drain(tz_reader *r, uint64_t from, uint64_t to, uint32_t flags)
{
	const struct tz_event *ev;
	if (tz_reader_iter(r, from, to, flags) < 0)
		return;
	for (int n = 0; n < 1000000 && tz_reader_next(r, &ev) == 1; n++) {
		sink += ev->ts_ns + ev->fixed_len + ev->type_id;
		if (ev->fixed_len)
			sink += ev->fixed[ev->fixed_len - 1];
		for (uint32_t i = 0; i < ev->nblobs; i++)
			if (ev->blobs[i].len)
				sink += ((const uint8_t *)ev->blobs[i].data)[ev->blobs[i].len - 1];
		if (ev->type)
			for (uint16_t i = 0; i < ev->type->nfields; i++) {
				const struct tz_field *f = &ev->type->fields[i];
				uint32_t len;
				struct tz_blob b = tz_event_blob(ev, f);
				const uint8_t *p = tz_event_bytes(ev, f, &len);
				sink += tz_event_u64(ev, f) + b.len + (p && len ? p[len - 1] : 0);
			}
	}
}

static int on_block(void *ctx, const struct tz_block_info *b)
{
	(void)ctx;
	sink += b->offset + b->size + (uint64_t)b->status;
	return 0;
}

/* Make every block of b look valid: payloads raw, checksums recomputed. */
static void fixup(uint8_t *b, size_t n)
{
	if (n < TZ_HDR_SIZE || memcmp(b, TZ_MAGIC, TZ_MAGIC_LEN))
		return;
	uint32_t hs = tz_le32(b + 12);
	if (hs < TZ_HDR_SIZE || hs > TZ_HDR_MAX || hs % 8 || hs > n)
		return;
	tz_put64(b + hs - 8, tz_hash(b, hs - 8));
	for (size_t pos = hs; pos + TZ_BHDR_MIN <= n;) {
		uint8_t *h = b + pos;
		uint16_t ext = tz_le16(h + 6);
		uint64_t plen = tz_le32(h + 8);
		if (memcmp(h, TZ_BMAGIC, TZ_BMAGIC_LEN) || ext % 8 || ext > TZ_EXT_MAX ||
		    TZ_BHDR_MIN + ext + plen > n - pos) {
			pos++;
			continue;
		}
		h[5] &= (uint8_t)~TZ_BF_ZSTD;
		tz_put32(h + 12, (uint32_t)plen);
		tz_put64(h + 24, tz_hash(h + TZ_BHDR_MIN + ext, plen));
		tz_put64(h + TZ_BHDR_FIXED + ext, tz_hash(h, TZ_BHDR_FIXED + ext));
		pos += TZ_BHDR_MIN + ext + plen;
	}
}

static void run(const uint8_t *data, size_t size, int passes);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, 2);
	uint8_t *b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	fixup(b, size);
	run(b, size, 1);
	free(b);
	return 0;
}

static void run(const uint8_t *data, size_t size, int passes)
{
	struct tz_reader_opts o = {.max_chunk = 4u << 20};
	for (int pass = 0; pass < passes; pass++) {
		tz_reader *r = NULL;
		if (pass)
			o.flags = TZ_R_SCAN;
		if (tz_reader_open_mem(&r, data, size, "fuzz", &o) < 0) {
			sink += strlen(tz_reader_errmsg(r));
			tz_reader_free(r);
			return;
		}
		const struct tz_info *in = tz_reader_info(r);
		for (size_t i = 0; i < tz_reader_meta_count(r); i++) {
			const char *k, *v;
			tz_reader_meta_at(r, i, &k, &v);
			sink += strlen(k) + strlen(v);
		}
		for (size_t i = 0; i < tz_reader_type_count(r); i++) {
			const struct tz_event_type *t = tz_reader_type_at(r, i);
			sink += strlen(t->name) + (tz_type_field(t, "tgid") != NULL);
			sink += tz_reader_type_by_id(r, t->id) == t;
		}
		int64_t rt;
		tz_reader_realtime(r, in->first_ts_ns, &rt);
		drain(r, 0, UINT64_MAX, 0);
		drain(r, 0, UINT64_MAX, TZ_IT_STATE | TZ_IT_UNKNOWN);
		uint64_t mid = in->first_ts_ns / 2 + in->last_ts_ns / 2;
		drain(r, mid, mid + 1000000, TZ_IT_STATE);
		tz_reader_verify(r, on_block, NULL);
		sink += tz_reader_chunks_decoded(r) + in->corrupt_blocks;
		tz_reader_free(r);
	}
}
