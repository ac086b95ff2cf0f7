#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A second, independent reader written from docs/FORMAT.md alone (Python, the
# zstd command line tool for decompression; checksums are not verified: no
# XXH3 in the standard library). It must read the golden files exactly like
# the C library does: same events, same order, same schema names.
set -eu
A=${TRACER_ANALYZE:?} D=${TESTS_DIR:?}/data
command -v python3 >/dev/null && command -v zstd >/dev/null || { echo "no python3/zstd"; exit 77; }
tmp=$(mktemp -d /tmp/tz-spec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/spec.py" <<'EOF'
import struct, subprocess, sys

def varint(b, p):
    v = s = 0
    while True:
        c = b[p]; p += 1
        v |= (c & 0x7f) << s; s += 7
        if not c & 0x80:
            return v, p

def string(b, p):
    n, p = varint(b, p)
    return b[p:p + n], p + n

data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89TZ1\r\n\x1a\n'
major, minor, hsize = struct.unpack_from('<HHI', data, 8)
incompat = struct.unpack_from('<Q', data, 32)[0]
assert major == 1 and incompat & ~1 == 0

def block(p, end):
    """(type, flags, seq, ext, payload, size) of a block at p, or None"""
    if p + 40 > end or data[p:p + 4] != b'\xd7TZB':
        return None
    typ, flags, ext_len, plen, rlen, seq = struct.unpack_from('<BBHIIQ', data, p + 4)
    size = 40 + ext_len + plen
    if p + size > end:
        return None
    ext = data[p + 32:p + 32 + ext_len]
    payload = data[p + 40 + ext_len:p + size]
    if flags & 1:
        payload = subprocess.run(['zstd', '-q', '-d', '-c'], input=payload,
                                 capture_output=True, check=True).stdout
    assert len(payload) == rlen
    return typ, flags, seq, ext, payload, size

blocks = []
if incompat & 1:  # ring: head chain, final slot, segments chained by seq
    ring_start, seg_size, nseg, final_off = struct.unpack_from('<QQII', data, 96)
    for s, e, chain in [(hsize, final_off, False), (final_off, ring_start, False)] + \
            [(ring_start + i * seg_size, ring_start + (i + 1) * seg_size, True) for i in range(nseg)]:
        p, prev = s, None
        while True:
            b = block(p, min(e, len(data)))
            if b is None or (chain and prev is not None and b[2] != prev + 1):
                break
            blocks.append(b); prev = b[2]; p += b[5]
else:  # linear: blocks back to back (the golden files have no damage)
    p = hsize
    while p < len(data):
        b = block(p, len(data))
        assert b is not None, p
        blocks.append(b); p += b[5]

types = {}
for b in sorted((b for b in blocks if b[0] == 2), key=lambda b: b[2]):
    pl = b[4]
    n, p = varint(pl, 0)
    for _ in range(n):
        tid, p = varint(pl, p); ver, p = varint(pl, p); fl, p = varint(pl, p)
        fsz, p = varint(pl, p); name, p = string(pl, p); nf, p = varint(pl, p)
        for _ in range(nf):
            _, p = string(pl, p); _, p = varint(pl, p); _, p = varint(pl, p)
            _, p = varint(pl, p); _, p = string(pl, p)
        types[tid] = name.decode()

events = []
for b in blocks:
    if b[0] != 3:
        continue
    pl = b[4]
    min_ts, max_ts, count = struct.unpack_from('<QQQ', b[3], 0)
    nstr, p = varint(pl, 0)
    for _ in range(nstr):
        _, p = string(pl, p)
    ts, pos = 0, 0
    while p < len(pl):
        tid, p = varint(pl, p); d, p = varint(pl, p)
        ts += (d >> 1) ^ -(d & 1)
        flen, p = varint(pl, p); p += flen
        nb, p = varint(pl, p)
        for _ in range(nb):
            _, p = varint(pl, p)
        assert min_ts <= ts <= max_ts
        events.append((ts, b[2], pos, tid)); pos += 1
    assert pos == count
for ts, _, _, tid in sorted(events):
    if tid in types:
        print(ts, types[tid])
EOF
for f in small ring no-footer one-event; do
	python3 "$tmp/spec.py" "$D/good/$f.tz" >"$tmp/py"
	"$A" cat --abs "$D/good/$f.tz" | cut -d' ' -f1,2 >"$tmp/c"
	[ -s "$tmp/c" ] || { echo "FAIL: $f: no events"; exit 1; }
	cmp -s "$tmp/py" "$tmp/c" || { echo "FAIL: $f: spec reader and library differ"; diff "$tmp/py" "$tmp/c" | head; exit 1; }
done
echo "ok: the spec-only reader agrees with the library on every golden file"
