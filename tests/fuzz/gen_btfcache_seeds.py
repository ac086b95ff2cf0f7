#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write the seeds of tests/fuzz/corpus_btfcache: small raw BTF files laid
out as record/btfcache.c writes its cache (type 1 the key enum
tracer_record_btf_cache, its names first in the strings), with the key
fuzz_btfcache.c checks against (boot id pinned, the empty object's hash,
this machine's kernel BTF size), and a few near misses.
Usage: tests/fuzz/gen_btfcache_seeds.py OUTDIR"""
import os
import struct
import sys

BOOT = "boot_0123456789abcdef0123456789abcdef"
OBJ = "obj_2d06800538d394c2"  # XXH3_64bits of no bytes
KIND_INT, KIND_ENUM = 1, 6


def btf(values, extra_int=True, magic=0xEB9F, version=1, enum_name="tracer_record_btf_cache",
        kind=KIND_ENUM):
    strs = b"\0"
    offs = {}

    def s(name):
        nonlocal strs
        if name not in offs:
            offs[name] = len(strs)
            strs += name.encode() + b"\0"
        return offs[name]

    tname = s(enum_name)
    ents = [(s(n), v) for n, v in values]
    types = struct.pack("<III", tname, (kind << 24) | len(ents), 4)
    for o, v in ents:
        types += struct.pack("<Ii", o, v)
    if extra_int:  # type 2: a 4-byte signed int, as a real cache holds more
        types += struct.pack("<IIII", s("int"), KIND_INT << 24, 4, (1 << 24) | 32)
    hdr = struct.pack("<HBBIIIII", magic, version, 0, 24, 0, len(types), len(types), len(strs))
    return hdr + types + strs


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    size = os.stat("/sys/kernel/btf/vmlinux").st_size if os.path.exists(
        "/sys/kernel/btf/vmlinux") else 0
    size = size if size < 2**31 else size - 2**32
    key = [("format", 1), (BOOT, 0), (OBJ, 0), ("btf_size", size)]
    tps = [("tp_sched_switch", 1), ("tp_sched_process_exec", 0)]
    seeds = {
        "valid": btf(key),
        "valid-tps": btf(key + tps),
        "other-boot": btf([("format", 1), ("boot_" + "f" * 32, 0), (OBJ, 0), ("btf_size", size)]),
        "other-obj": btf([("format", 1), (BOOT, 0), ("obj_0000000000000000", 0),
                          ("btf_size", size)]),
        "format-2": btf([("format", 2)] + key[1:]),
        "no-format": btf(key[1:] + tps),
        "tp-bad-value": btf(key + [("tp_x", 7)] + [("tp_%d" % i, 1) for i in range(9)]),
        "not-enum": btf(key, kind=KIND_INT),
        "other-name": btf(key, enum_name="something_else"),
        "bad-magic": btf(key, magic=0x9FEB),
        "version-2": btf(key, version=2),
        "header-only": btf(key)[:24],
    }
    for name, data in seeds.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
