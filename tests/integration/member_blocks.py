#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""member_blocks.py FILE: the walk of docs/FORMAT.md [X1] over a multi-host
trace, written from the spec (not the library): one line per MEMBER block,
"BLOCK_OFFSET MEMBER_OFFSET MEMBER_LENGTH" (bytes), in file order. Used by
the recover tests to name, independently of tracer, where each member is."""
import struct
import sys

b = open(sys.argv[1], "rb").read()
pos = struct.unpack_from("<I", b, 12)[0]  # the header's first-block offset
while pos < len(b):
    typ, ext, plen = b[pos + 4], *struct.unpack_from("<HI", b, pos + 6)
    size = 40 + ext + plen
    if typ == 7:  # MEMBER: the member's bytes follow the block
        mlen = struct.unpack_from("<Q", b, pos + 32)[0]
        print(pos, pos + size, mlen)
        pos += size + mlen
    else:
        pos += size
