#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Rebuild the .tz conformance corpus (tests/data/conformance/README.md).

Writes every byte itself from docs/FORMAT.md (no tracer code), so damage is
exact. XXH3-64 and zstd come from the system's libxxhash and libzstd through
ctypes (the same Debian packages tracer builds with). Deterministic: the same
libzstd gives the same bytes.

usage: gen.py [OUTDIR]     (default: this script's directory)
"""
import ctypes
import ctypes.util
import os
import struct
import sys

_xx = ctypes.CDLL(ctypes.util.find_library('xxhash') or 'libxxhash.so.0')
_xx.XXH3_64bits.restype = ctypes.c_uint64
_xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_zs = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
_zs.ZSTD_compressBound.restype = ctypes.c_size_t
_zs.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
_zs.ZSTD_compress.restype = ctypes.c_size_t
_zs.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                              ctypes.c_size_t, ctypes.c_int]


def xxh3(b):
    return _xx.XXH3_64bits(bytes(b), len(b))


def zstd(b):
    cap = _zs.ZSTD_compressBound(len(b))
    out = ctypes.create_string_buffer(cap)
    n = _zs.ZSTD_compress(out, cap, bytes(b), len(b), 3)
    assert n < cap
    return out.raw[:n]


MAGIC = b'\x89TZ1\r\n\x1a\n'
BMAGIC = b'\xd7TZB'
METADATA, SCHEMA, CHUNK, STATE, INDEX, TRAILER = 1, 2, 3, 4, 5, 6
ZSTD = 1
UUID = bytes(range(0x10, 0x20))
BOOT_ID = bytes(range(0xa0, 0xb0))
T0 = 10_000_000_000         # CLOCK_BOOTTIME of the recordings' start (10 s after boot)
REAL0 = 1_796_000_000_000_000_000


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def s(x):
    x = x.encode() if isinstance(x, str) else x
    return varint(len(x)) + x


def zigzag(v):
    v = (v + 2**63) % 2**64 - 2**63     # the difference modulo 2^64 as an i64
    return ((v << 1) ^ (v >> 63)) & (2**64 - 1)


# ------------------------------------------------------------ schema
U8, U16, U32, U64, I8, I16, I32, I64, CHARS, BYTES, STR, STRV = range(1, 13)
SIZES = {U8: 1, U16: 2, U32: 4, U64: 8, I8: 1, I16: 2, I32: 4, I64: 8}
PACK = {U8: '<B', U16: '<H', U32: '<I', U64: '<Q', I8: '<b', I16: '<h', I32: '<i', I64: '<q'}


def fields(spec):
    """spec: [(name, ftype, size_for_chars_or_None, unit)], laid out in order
    with natural alignment like bpf/events.h (C struct rules)"""
    out, off, blob = [], 0, 0
    for name, ft, size, unit in spec:
        if ft in (STR, STRV):
            out.append((name, ft, blob, 0, unit))
            blob += 1
            continue
        sz = SIZES.get(ft, size)
        al = sz if ft in SIZES else 1
        off = (off + al - 1) // al * al
        out.append((name, ft, off, sz, unit))
        off += sz
    return out, (off + 7) // 8 * 8


TYPES = {}


def deftype(tid, name, spec, state=False, version=1):
    fl, size = fields(spec)
    TYPES[name] = dict(id=tid, name=name, fields=fl, fixed=size, state=state, version=version)


deftype(1, 'fork', [('parent_tgid', U32, 0, ''), ('caller_tgid', U32, 0, ''),
                    ('caller_pid', U32, 0, ''), ('child_tgid', U32, 0, ''),
                    ('child_start_ns', U64, 0, 'ns'), ('child_ns_pid', U32, 0, ''),
                    ('flags', U32, 0, '')])
EXEC_SPEC = [('start_ns', U64, 0, 'ns'), ('cgroup_id', U64, 0, ''),
             ('tgid', U32, 0, ''), ('old_pid', U32, 0, ''), ('ppid', U32, 0, ''),
             ('ns_pid', U32, 0, ''), ('uid', U32, 0, ''), ('euid', U32, 0, ''),
             ('gid', U32, 0, ''), ('egid', U32, 0, ''), ('argc', U32, 0, 'count'),
             ('argv_size', U32, 0, 'bytes'), ('argv_len', U32, 0, 'bytes'),
             ('filename_len', U16, 0, 'bytes'), ('exe_len', U16, 0, 'bytes'),
             ('script_len', U16, 0, 'bytes'), ('pad0', U16, 0, ''),
             ('flags', U32, 0, ''), ('comm', CHARS, 16, '')]
EXEC_BLOBS = [('filename', STR, 0, ''), ('exe', STR, 0, ''), ('script', STR, 0, ''),
              ('argv', STRV, 0, '')]
deftype(2, 'exec', EXEC_SPEC + EXEC_BLOBS)
TYPES['exec']['fields'] = [f for f in TYPES['exec']['fields'] if f[0] != 'pad0']
deftype(3, 'exec_fail', [('tgid', U32, 0, ''), ('pid', U32, 0, ''), ('err', I32, 0, 'errno'),
                         ('filename_len', U16, 0, 'bytes'), ('filename', STR, 0, '')])
deftype(4, 'exit', [(n, U64, 0, u) for n, u in (
    ('start_ns', 'ns'), ('utime_ns', 'ns'), ('stime_ns', 'ns'), ('maxrss_kib', 'KiB'),
    ('rchar', 'bytes'), ('wchar', 'bytes'), ('syscr', 'count'), ('syscw', 'count'),
    ('read_bytes', 'bytes'), ('write_bytes', 'bytes'), ('cancelled_write_bytes', 'bytes'),
    ('nvcsw', 'count'), ('nivcsw', 'count'), ('min_flt', 'count'), ('maj_flt', 'count'))] +
    [('tgid', U32, 0, ''), ('pid', U32, 0, ''), ('ppid', U32, 0, ''), ('status', U32, 0, ''),
     ('exit_code', I32, 0, ''), ('signal', I32, 0, ''), ('threads', U32, 0, 'count'),
     ('flags', U32, 0, ''), ('comm', CHARS, 16, '')])
deftype(5, 'proc_state', [('start_ns', U64, 0, 'ns'), ('tgid', U32, 0, ''), ('ppid', U32, 0, ''),
                          ('uid', U32, 0, ''), ('euid', U32, 0, ''), ('ns_pid', U32, 0, ''),
                          ('argc', U32, 0, 'count'), ('argv_size', U32, 0, 'bytes'),
                          ('argv_len', U32, 0, 'bytes'), ('exe_len', U16, 0, 'bytes'),
                          ('pad0', U16, 0, ''), ('flags', U32, 0, ''), ('comm', CHARS, 16, ''),
                          ('exe', STR, 0, ''), ('argv', STRV, 0, '')], state=True)
TYPES['proc_state']['fields'] = [f for f in TYPES['proc_state']['fields'] if f[0] != 'pad0']
deftype(6, 'drops', [(n, U64, 0, 'count') for n in (
    'fork', 'exec', 'exec_fail', 'exit', 'map_full', 'argv_fault', 'kevent', 'slot7')])
TYPES['drops']['fields'] = [f for f in TYPES['drops']['fields'] if f[0] != 'slot7']
BASE = ['fork', 'exec', 'exec_fail', 'exit', 'proc_state', 'drops']
deftype(11, 'release', [(n, U64, 0, u) for n, u in (
    ('start_ns', 'ns'), ('utime_ns', 'ns'), ('stime_ns', 'ns'), ('nvcsw', 'count'),
    ('nivcsw', 'count'), ('min_flt', 'count'), ('maj_flt', 'count'))] +
    [('tgid', U32, 0, ''), ('flags', U32, 0, '')])
# issue 17: exec version 2 (utime/stime, memcg_id, cwd_len, env_len appended,
# blobs cwd and env), cgroup (12), attach (13); docs/EVENTS.md [E17], [E18]
deftype(2, 'exec2', EXEC_SPEC + [('utime_ns', U64, 0, 'ns'), ('stime_ns', U64, 0, 'ns'),
                                  ('memcg_id', U64, 0, ''), ('cwd_len', U16, 0, 'bytes'),
                                  ('env_len', U16, 0, 'bytes')] +
        EXEC_BLOBS + [('cwd', STR, 0, ''), ('env', STRV, 0, '')], version=2)
TYPES['exec2']['name'] = 'exec'
TYPES['exec2']['fields'] = [f for f in TYPES['exec2']['fields'] if f[0] != 'pad0']
# exec version 3: prev_maxrss_kib and maxrss_before_kib appended (docs/EVENTS.md [E19])
deftype(2, 'exec3', EXEC_SPEC + [('utime_ns', U64, 0, 'ns'), ('stime_ns', U64, 0, 'ns'),
                                  ('memcg_id', U64, 0, ''), ('cwd_len', U16, 0, 'bytes'),
                                  ('env_len', U16, 0, 'bytes'),
                                  ('prev_maxrss_kib', U64, 0, 'KiB'),
                                  ('maxrss_before_kib', U64, 0, 'KiB')] +
        EXEC_BLOBS + [('cwd', STR, 0, ''), ('env', STRV, 0, '')], version=3)
TYPES['exec3']['name'] = 'exec'
TYPES['exec3']['fields'] = [f for f in TYPES['exec3']['fields'] if f[0] != 'pad0']
deftype(12, 'cgroup', [('id', U64, 0, ''), ('mem_limit_bytes', U64, 0, 'bytes'),
                       ('cpu_quota_us', U64, 0, 'us'), ('cpu_period_us', U64, 0, 'us'),
                       ('hier', U32, 0, ''), ('flags', U32, 0, ''),
                       ('path_len', U16, 0, 'bytes'), ('path', STR, 0, '')])
deftype(13, 'attach', [('mtime_ns', U64, 0, 'ns'), ('size', U64, 0, 'bytes'),
                       ('data_len', U32, 0, 'bytes'), ('flags', U32, 0, ''),
                       ('name_len', U16, 0, 'bytes'), ('name', STR, 0, ''),
                       ('data', STR, 0, '')])


def schema_payload(names, override=None):
    out = bytearray(varint(len(names)))
    for n in names:
        t = dict(TYPES[n], **(override or {}).get(n, {}))
        out += varint(t['id']) + varint(t['version']) + varint(1 if t['state'] else 0)
        out += varint(t['fixed']) + s(t['name']) + varint(len(t['fields']))
        for fn, ft, off, size, unit in t['fields']:
            out += s(fn) + varint(ft) + varint(off) + varint(size) + s(unit)
    return bytes(out)


def meta_payload(kv):
    out = bytearray(varint(len(kv)))
    for k, v in kv:
        out += s(k) + s(v)
    return bytes(out)


META = [('hostname', 'conformance'), ('kernel', '6.18.0'), ('arch', 'x86_64'), ('cpus', '2'),
        ('page_size', '4096'), ('mem_bytes', '8589934592'), ('recorder', 'gen.py'),
        ('start_boottime_ns', str(T0))]


# ------------------------------------------------------------ events
class Ev:
    """one event: type name (or int id for an unknown type), ts, fields,
    blobs {name: bytes}; fixed=bytes overrides the fixed part"""

    def __init__(self, typ, ts, blobs=None, fixed=None, extra=b'', nblobs=None, **f):
        self.typ, self.ts, self.f, self.blobs = typ, ts, f, blobs or {}
        self.fixed, self.extra, self.nblobs = fixed, extra, nblobs

    def encode(self):
        if isinstance(self.typ, int):
            return self.typ, self.fixed or b'', [self.blobs.get(i, b'') for i in
                                                 range(self.nblobs or 0)]
        t = TYPES[self.typ]
        fx = bytearray(t['fixed'])
        bl = []
        for fn, ft, off, size, unit in t['fields']:
            if ft in (STR, STRV):
                bl.append(self.blobs.get(fn, b''))
            elif ft in (CHARS, BYTES):
                v = self.f.get(fn, b'')
                v = v.encode() if isinstance(v, str) else v
                fx[off:off + size] = v[:size].ljust(size, b'\0')
            else:
                struct.pack_into(PACK[ft], fx, off, self.f.get(fn, 0))
        fx = bytes(fx) + self.extra if self.fixed is None else self.fixed
        if self.nblobs is not None:
            bl = (bl + [b''] * self.nblobs)[:self.nblobs]
        return t['id'], fx, bl


def chunk_payload(events, strings_first=()):
    table, refs = list(strings_first), []
    enc = []
    for e in events:
        tid, fx, bl = e.encode()
        r = []
        for b in bl:
            if not b:
                r.append(0)
                continue
            if b not in table:
                table.append(b)
            r.append(table.index(b) + 1)
        enc.append((tid, e.ts, fx, r))
    out = bytearray(varint(len(table)))
    for b in table:
        out += varint(len(b)) + b
    prev = 0
    for tid, ts, fx, r in enc:
        out += varint(tid) + varint(zigzag(ts - prev)) + varint(len(fx)) + fx
        out += varint(len(r)) + b''.join(varint(x) for x in r)
        prev = ts
    return bytes(out)


# ------------------------------------------------------------ blocks
def block(typ, seq, payload=b'', ext=b'', flags=0, compress=None, raw_len=None,
          payload_len=None):
    raw = payload
    if compress is None:
        compress = bool(flags & ZSTD)
    if compress:
        flags |= ZSTD
        payload = zstd(payload)
    hdr = BMAGIC + struct.pack('<BBHIIQQ', typ, flags, len(ext),
                               len(payload) if payload_len is None else payload_len,
                               len(raw) if raw_len is None else raw_len, seq, xxh3(payload))
    hdr += ext
    return hdr + struct.pack('<Q', xxh3(hdr)) + payload


def cext(events, dropped=0, dropped_total=0, anchor=None, min_ts=None, max_ts=None, n=None,
         extra=b''):
    ts = [e.ts for e in events]
    lo = min(ts) if ts else (anchor or T0)
    hi = max(ts) if ts else lo
    a = anchor if anchor is not None else hi
    return struct.pack('<QQQQQQq', lo if min_ts is None else min_ts,
                       hi if max_ts is None else max_ts, len(events) if n is None else n,
                       dropped, dropped_total, a, REAL0 + (a - T0) if a else 0) + extra


def chunk(seq, events, compress=True, **kw):
    ext_extra = kw.pop('ext_extra', b'')
    return block(CHUNK, seq, chunk_payload(events), cext(events, extra=ext_extra, **kw),
                 compress=compress)


def state(seq, events, compress=True, **kw):
    return block(STATE, seq, chunk_payload(events), cext(events, **kw), compress=compress)


def header(major=1, minor=0, header_size=128, compat=0, ro=0, incompat=0, ring=None,
           extra=b'', anchor=(T0, REAL0), uuid=UUID, boot_id=BOOT_ID):
    rs = ring or (0, 0, 0, 0, 0)
    h = MAGIC + struct.pack('<HHIQQQ', major, minor, header_size, compat, ro, incompat)
    h += uuid + boot_id + struct.pack('<Qq', *anchor)
    h += struct.pack('<QQQII', *rs) + extra
    h = h.ljust(header_size - 8, b'\0')
    return h + struct.pack('<Q', xxh3(h))


def parse_blocks(data, start):
    """(offset, size, type, seq, ext) of blocks back to back from start"""
    out, p = [], start
    while p + 40 <= len(data) and data[p:p + 4] == BMAGIC:
        typ, fl, el, pl, rl, seq = struct.unpack_from('<BBHIIQ', data, p + 4)
        size = 40 + el + pl
        out.append((p, size, typ, seq, rl, data[p + 32:p + 32 + el]))
        p += size
    return out


def index_entries(data, blocks):
    out = bytearray()
    for off, size, typ, seq, rl, ext in blocks:
        e = ext[:56] if typ in (CHUNK, STATE) else b''
        out += struct.pack('<QQIII4x', off, seq, size, rl, typ) + e.ljust(56, b'\0')
    return bytes(out)


def linear(blocks, seq_next, meta_final=None, close=True, hdr=None, periodic=False):
    """a linear file: header, blocks, then (close) final metadata, index, trailer.
    periodic: INDEX blocks among `blocks` are left out of the final index"""
    data = bytearray(hdr or header())
    for b in blocks:
        data += b
    if not close:
        return bytes(data)
    hs = struct.unpack_from('<I', data, 12)[0]
    data += block(METADATA, seq_next, meta_payload(meta_final or META + [
        ('stop_anchor_boot_ns', str(T0 + 9_000_000)),
        ('stop_anchor_real_ns', str(REAL0 + 9_000_000))]))
    listed = [b for b in parse_blocks(data, hs) if b[2] != INDEX]
    idx_off = len(data)
    data += block(INDEX, seq_next + 1, index_entries(data, listed))
    idx_size = len(data) - idx_off
    data += block(TRAILER, seq_next + 2, b'',
                  struct.pack('<QQQ', idx_off, idx_size, len(data) + 64))
    return bytes(data)


# ------------------------------------------------------------ workloads
def exec_ev(ts, tgid, start, argv, exe=None, ppid=1, old_pid=0, flags=0, argv_size=None):
    exe = (exe or argv[0]).encode()
    av = b''.join(a.encode() + b'\0' for a in argv)
    return Ev('exec', ts, blobs={'filename': exe, 'exe': exe, 'argv': av}, start_ns=start,
              tgid=tgid, old_pid=old_pid, ppid=ppid, argc=len(argv),
              argv_size=len(av) if argv_size is None else argv_size, argv_len=len(av),
              filename_len=len(exe), exe_len=len(exe), flags=flags,
              comm=os.path.basename(exe)[:15])


def exit_ev(ts, tgid, start, code=0, sig=0, core=False, ppid=1, ut=0, st=0, comm='',
            pid=None):
    status = (sig | (0x80 if core else 0)) if sig else (code & 0xff) << 8
    flags = (1 if core else 0) | (2 if sig else 0)
    return Ev('exit', ts, start_ns=start, utime_ns=ut, stime_ns=st, tgid=tgid,
              pid=pid or tgid, ppid=ppid, status=status, exit_code=-1 if sig else code,
              signal=sig, threads=1, flags=flags, comm=comm)


def release_ev(ts, tgid, start, ut, st, nvcsw=0, nivcsw=0):
    return Ev('release', ts, start_ns=start, utime_ns=ut, stime_ns=st, nvcsw=nvcsw,
              nivcsw=nivcsw, tgid=tgid)


def fork_ev(ts, parent, child, start=None, flags=0):
    return Ev('fork', ts, parent_tgid=parent, caller_tgid=parent, caller_pid=parent,
              child_tgid=child, child_start_ns=ts if start is None else start,
              child_ns_pid=child, flags=flags)


def state_ev(ts, tgid, start, argv, exe, ppid=1, flags=0, comm=None):
    av = b''.join(a.encode() + b'\0' for a in argv)
    return Ev('proc_state', ts, blobs={'exe': exe.encode(), 'argv': av}, start_ns=start,
              tgid=tgid, ppid=ppid, argc=len(argv), argv_size=len(av), argv_len=len(av),
              exe_len=len(exe), flags=flags, comm=comm or os.path.basename(exe)[:15])


def us(n):
    return T0 + n * 1000


def shell_state():
    return [state_ev(us(0), 100, T0 - 5_000_000_000, ['bash'], '/usr/bin/bash', flags=1)]


def pipeline():
    """bash (100, alive before) forks 200 which execs make; make forks 201
    (cc, exit 0) and 202 (cc killed by SIGSEGV with a core); 201's pid is
    reused by a later process; 203 execs from a non-leader thread 204"""
    return [
        fork_ev(us(10), 100, 200),
        exec_ev(us(11), 200, us(10), ['make', '-j2'], '/usr/bin/make', ppid=100),
        fork_ev(us(20), 200, 201),
        exec_ev(us(21), 201, us(20), ['cc', '-c', 'a.c'], '/usr/bin/cc', ppid=200),
        fork_ev(us(22), 200, 202),
        exec_ev(us(23), 202, us(22), ['cc', '-c', 'b.c'], '/usr/bin/cc', ppid=200),
        exit_ev(us(30), 201, us(20), code=0, ppid=200, ut=5000, comm='cc'),
        exit_ev(us(31), 202, us(22), sig=11, core=True, ppid=200, ut=1000, comm='cc'),
        fork_ev(us(40), 200, 201),
        exec_ev(us(41), 201, us(40), ['ld', '-o', 'prog', 'a.o'], '/usr/bin/ld', ppid=200),
        exit_ev(us(45), 201, us(40), code=1, ppid=200, comm='ld'),
        fork_ev(us(50), 200, 203),
        exec_ev(us(52), 203, us(50), ['./prog', ''], '/tmp/prog', ppid=200, old_pid=204),
        exit_ev(us(60), 203, us(50), code=3, ppid=200, comm='prog'),
        exit_ev(us(70), 200, us(10), code=2, ppid=100, comm='make'),
    ]


def head_blocks(meta=None, types=None, mflags=0):
    return [block(METADATA, 1, meta_payload(meta or META), flags=mflags),
            block(SCHEMA, 2, schema_payload(types or BASE), flags=mflags)]


# ------------------------------------------------------------ corpus
CORPUS = {}


def corpus(name):
    def reg(fn):
        CORPUS[name] = fn
        return fn
    return reg


@corpus('linear-basic')
def _():
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:8]), chunk(5, ev[8:])],
                  6)


@corpus('chunks-overlap')
def _():
    """chunks overlap in time and events inside a chunk are out of order:
    ts_delta is negative, the reader merges by (ts, chunk seq, position)"""
    ev = pipeline()
    a = [ev[1], ev[0], ev[3], ev[2], ev[6]]
    b = [e for e in ev if e not in a]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, b), chunk(5, a)], 6)


@corpus('argv-edge')
def _():
    """argv: a real empty last argument; an argv cut by --argv-max (no final
    NUL, flag ARGV_TRUNCATED); an empty argv (argv_len 0)"""
    e1 = exec_ev(us(11), 200, us(10), ['printf', 'x', ''], '/usr/bin/printf', ppid=100)
    cut = b'grep\0-e\0pat'
    e2 = Ev('exec', us(21), blobs={'filename': b'/usr/bin/grep', 'exe': b'/usr/bin/grep',
                                   'argv': cut}, start_ns=us(20), tgid=201, ppid=100, argc=4,
            argv_size=40, argv_len=len(cut), filename_len=13, exe_len=13, flags=1, comm='grep')
    e3 = Ev('exec', us(31), blobs={'filename': b'/bin/true', 'exe': b'/usr/bin/true'},
            start_ns=us(30), tgid=202, ppid=100, argc=0, argv_size=0, argv_len=0,
            filename_len=9, exe_len=13, comm='true')
    ev = [fork_ev(us(10), 100, 200), e1, exit_ev(us(12), 200, us(10), ppid=100, comm='printf'),
          fork_ev(us(20), 100, 201), e2, exit_ev(us(22), 201, us(20), code=1, ppid=100),
          fork_ev(us(30), 100, 202), e3, exit_ev(us(32), 202, us(30), ppid=100)]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('unknown-type-field')
def _():
    """an event of a type id the schema lacks (skipped, still counted in
    ext.events); an exit whose fixed part is longer than the schema's (an
    appended field: ignored) and one shorter (missing fields read as 0);
    an exec with a fifth blob the schema does not know (ignored) and a fork
    with fewer blobs than... none (fork has no blobs)"""
    ev = pipeline()[:8]
    ev.insert(2, Ev(200, us(15), fixed=b'\x01\x02\x03\x04', blobs={0: b'opaque'}, nblobs=1))
    long_exit = exit_ev(us(30), 201, us(20), code=0, ppid=200, ut=5000, comm='cc')
    long_exit.extra = b'\xee' * 16
    ev[7] = long_exit
    short = exit_ev(us(31), 202, us(22), sig=11, core=True, ppid=200, ut=1000, comm='cc')
    short.fixed = short.encode()[1][:132]       # up to status: exit_code, signal ... read as 0
    ev[8] = short
    ex = exec_ev(us(21), 201, us(20), ['cc', '-c', 'a.c'], '/usr/bin/cc', ppid=200)
    ex.blobs[4] = b'appended'
    ex.nblobs = 5
    orig = ex.encode

    def enc5():
        tid, fx, bl = orig()
        return tid, fx, bl[:4] + [b'appended-blob']
    ex.encode = enc5
    ev[4] = ex
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('late-schema')
def _():
    """a type learnt after the first chunk: a second SCHEMA block before the
    chunk that uses it; the same id defined twice: the highest seq wins"""
    TYPES['oom_kill'] = dict(id=9, name='oom_kill', version=1, state=False, fixed=16,
                             fields=[('start_ns', U64, 0, 8, 'ns'), ('tgid', U32, 8, 4, ''),
                                     ('pid', U32, 12, 4, '')])
    ev = pipeline()
    s1 = schema_payload(BASE + ['oom_kill'], {'oom_kill': dict(name='old_name')})
    s2 = schema_payload(['oom_kill'])
    oom = Ev('oom_kill', us(29), start_ns=us(20), tgid=201, pid=201)
    late = [b for b in head_blocks()[:1]] + [block(SCHEMA, 2, s1), state(3, shell_state()),
                                             chunk(4, ev[:6]), block(SCHEMA, 5, s2),
                                             chunk(6, ev[6:] + [oom])]
    del TYPES['oom_kill']
    return linear(late, 7)


@corpus('compressed-meta')
def _():
    """METADATA and SCHEMA blocks with the ZSTD flag; a key written again in
    the final metadata (highest seq wins); an empty value; UTF-8 values"""
    meta = META + [('command', 'make -j2'), ('note', ''), ('label', 'caf\u00e9 \u2713')]
    final = META + [('command', 'make -j2 all'), ('stop_reason', 'child exited')]
    ev = pipeline()
    return linear(head_blocks(meta, mflags=ZSTD) + [state(3, shell_state()), chunk(4, ev)], 5,
                  meta_final=final)


@corpus('periodic-index')
def _():
    """a periodic INDEX block after chunks 4-5 lists the blocks since the
    file start; the final index skips it (a gap holding only INDEX blocks)"""
    ev = pipeline()
    pre = header() + b''.join(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]),
                                               chunk(5, ev[5:10])])
    listed = parse_blocks(pre, 128)
    per = block(INDEX, 6, index_entries(pre, listed))
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]), chunk(5, ev[5:10]),
                                   per, chunk(7, ev[10:])], 8)


@corpus('periodic-index-bad')
def _():
    """periodic-index with a flipped byte in the periodic INDEX block's payload
    (I2): damage, counted in corrupt_blocks whether the final index is used
    (here) or not; no data is lost: every block is found without it"""
    ev = pipeline()
    pre = header() + b''.join(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]),
                                               chunk(5, ev[5:10])])
    per = bytearray(block(INDEX, 6, index_entries(pre, parse_blocks(pre, 128))))
    per[-5] ^= 0xff
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]), chunk(5, ev[5:10]),
                                   bytes(per), chunk(7, ev[10:])], 8)


@corpus('drops-every-slot')
def _():
    """drops counted in chunk headers (dropped, dropped_total) and a drops
    event with every slot non-zero; the file's drop count is the largest
    dropped_total; an empty chunk sealed at close carries late drops"""
    ev = pipeline()
    d = Ev('drops', us(69), fork=1, exec=2, exec_fail=3, exit=4, map_full=5, argv_fault=6,
           kevent=7)
    return linear(head_blocks() + [state(3, shell_state()),
                                   chunk(4, ev[:7], dropped=3, dropped_total=3),
                                   chunk(5, ev[7:] + [d], dropped=2, dropped_total=5),
                                   chunk(6, [], anchor=us(80), dropped=1, dropped_total=6)], 7)


@corpus('unknown-block')
def _():
    """a block of unknown type 8 and a chunk with an unknown flag bit (0x80):
    both skipped by length, not damage"""
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:8]),
                                   block(8, 5, b'future block payload'),
                                   block(CHUNK, 6, chunk_payload(ev[8:]), cext(ev[8:]),
                                         flags=0x80),
                                   chunk(7, ev[8:])], 8)


@corpus('newer-minor')
def _():
    """minor 1 with a 136-byte header (8 extra bytes), compat and ro_compat
    bits set, a chunk extension of 64 bytes: all read as 1.0"""
    ev = pipeline()
    h = header(minor=1, header_size=136, compat=0x8000, ro=0x4, extra=b'')
    return linear(head_blocks() + [state(3, shell_state()),
                                   chunk(4, ev, ext_extra=b'\x77' * 8)], 5, hdr=h)


@corpus('killed-writer')
def _():
    """the writer was SIGKILLed after its second chunk: no final metadata,
    index nor trailer; processes without an exit are running at the end"""
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]),
                                   chunk(5, ev[5:9])], 6, close=False)


@corpus('torn-tail')
def _():
    """as killed-writer, plus the first 100 bytes of a third chunk (a write
    cut by the crash): a torn tail, one damaged region"""
    ev = pipeline()
    third = chunk(6, ev[9:])
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:5]),
                                   chunk(5, ev[5:9]), third[:100]], 6, close=False)


@corpus('state-merge')
def _():
    """state blocks before the first chunk and after chunk 5: a process known
    only from state (300, started before the recording: pre-existing flag 0);
    a later state block repeats live ones and still lists 201 which the
    chunk before it saw exit (a stale entry: ignored)"""
    ev = pipeline()
    st1 = shell_state() + [state_ev(us(0), 300, T0 - 1_000_000, ['sleep', '100'],
                                    '/usr/bin/sleep', ppid=100)]
    st2 = [state_ev(us(35), 100, T0 - 5_000_000_000, ['bash'], '/usr/bin/bash', flags=1),
           state_ev(us(35), 200, us(10), ['make', '-j2'], '/usr/bin/make', ppid=100),
           state_ev(us(35), 201, us(20), ['cc', '-c', 'a.c'], '/usr/bin/cc', ppid=200),
           state_ev(us(35), 300, T0 - 1_000_000, ['sleep', '100'], '/usr/bin/sleep', ppid=100)]
    return linear(head_blocks() + [state(3, st1), chunk(4, ev[:4]), chunk(5, ev[4:8]),
                                   state(6, st2), chunk(7, ev[8:])], 8)


@corpus('exit-lost')
def _():
    """final metadata alive_at_stop lists only bash (100): make (200) never
    exited in the trace, so its exit was lost; cc 201 is ended by a second
    fork of pid 201 while still live (pid reuse: the first instance's exit
    was lost); 202 exits with ppid 1 (reparented: its parent died first)"""
    ev = [fork_ev(us(10), 100, 200),
          exec_ev(us(11), 200, us(10), ['make'], '/usr/bin/make', ppid=100),
          fork_ev(us(20), 200, 201),
          exec_ev(us(21), 201, us(20), ['cc', 'a.c'], '/usr/bin/cc', ppid=200),
          fork_ev(us(22), 200, 202),
          fork_ev(us(30), 200, 201),
          exec_ev(us(31), 201, us(30), ['cc', 'b.c'], '/usr/bin/cc', ppid=200),
          exit_ev(us(40), 201, us(30), code=0, ppid=200, comm='cc'),
          exit_ev(us(50), 202, us(22), sig=9, ppid=1, comm='make')]
    final = META + [('alive_at_stop', '100')]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5, meta_final=final)


@corpus('cgroup-attach')
def _():
    """issue 17 (docs/EVENTS.md exec, [E17], [E18]): exec version 2 carries
    cwd, env and the v1 memory cgroup id; 201's cwd is flagged cut (0x20).
    The cgroup table: v2 id 5 with memory and CPU limits, v1-memory id 77
    (a second entry for it later is ignored: the first wins), v2 id 9
    unresolved (flag 0x1, empty path). Attachments: metadata with a NUL and
    a non-UTF-8 byte kept byte-exact; one whose data_len (9999) lies about
    its blob (2 bytes: the blob's length wins) and is flagged truncated;
    one with an empty name (ignored)"""
    def ex2(ts, tgid, start, argv, exe, cwd, env=b'', memcg=0, cg=0, flags=0):
        e = exec_ev(ts, tgid, start, argv, exe, ppid=100, flags=flags)
        e.typ = 'exec2'
        e.blobs.update(cwd=cwd.encode(), env=env)
        e.f.update(memcg_id=memcg, cgroup_id=cg, cwd_len=len(cwd), env_len=len(env),
                   utime_ns=1000, stime_ns=2000)
        return e

    def cg(ts, hier, cid, path, mem=0, quota=0, period=0, flags=0):
        return Ev('cgroup', ts, blobs={'path': path.encode()}, id=cid, hier=hier,
                  mem_limit_bytes=mem, cpu_quota_us=quota, cpu_period_us=period,
                  flags=flags, path_len=len(path))

    def att(ts, name, data, flags=0, data_len=None):
        return Ev('attach', ts, blobs={'name': name.encode(), 'data': data},
                  mtime_ns=REAL0 + 5_000_000, size=len(data), flags=flags,
                  data_len=len(data) if data_len is None else data_len, name_len=len(name))
    meta = b'{"rule": "align", "x": 1}\x00\xff'
    ev = [fork_ev(us(10), 100, 200),
          ex2(us(11), 200, us(10), ['make'], '/usr/bin/make', '/work/run',
              env=b'SLURM_JOB_ID=42\0', memcg=77, cg=5),
          cg(us(11), 0, 5, '/user.slice', mem=1 << 30, quota=50000, period=100000),
          cg(us(11), 1, 77, '/slurm/uid_0/job_42/step_0', mem=2 << 30),
          fork_ev(us(20), 200, 201),
          ex2(us(21), 201, us(20), ['cc'], '/usr/bin/cc', '/deep/tail', memcg=77, cg=9,
              flags=0x20),
          cg(us(21), 0, 9, '', flags=1),
          cg(us(22), 1, 77, '/other'),
          exit_ev(us(30), 201, us(20), ppid=200, comm='cc'),
          exit_ev(us(40), 200, us(10), ppid=100, comm='make'),
          att(us(50), '/work/run/.snakemake/metadata/YWxpZ24=', meta),
          att(us(50), '/work/xy/0123456789/.exitcode', b'0\n', flags=1, data_len=9999),
          att(us(50), '', b'ignored')]
    return linear(head_blocks(types=['fork', 'exec2', 'exec_fail', 'exit', 'proc_state',
                                     'drops', 'cgroup', 'attach']) +
                  [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('exec-rss')
def _():
    """exec version 3 ([E19]): 200 runs make, python, sleep; each exec
    carries the replaced image's peak (prev_maxrss_kib) and signal->maxrss
    (maxrss_before_kib): images peak at 1000, 400000 and 1800 (the exit's)
    KiB, the process at 400100 (the last exec's maxrss_before_kib: more than
    its images' own, the fork's copy of its parent counts). 201's first exec
    has prev 0 (not read) and its second too: its first image's peak is
    unknown; its process peak is its exit's 700 below maxrss_before 3000. 202
    is still running: its last image's peak is unknown, its process peak is
    its exec's maxrss_before_kib"""
    def ex3(ts, tgid, start, argv, exe, prev, before):
        e = exec_ev(ts, tgid, start, argv, exe, ppid=100)
        e.typ = 'exec3'
        e.blobs.update(cwd=b'', env=b'')
        e.f.update(prev_maxrss_kib=prev, maxrss_before_kib=before, utime_ns=1000,
                   stime_ns=2000)
        return e

    def ex(ts, tgid, start, rss, ppid=100):
        e = exit_ev(ts, tgid, start, ppid=ppid)
        e.f.update(maxrss_kib=rss)
        return e
    ev = [fork_ev(us(10), 100, 200),
          ex3(us(11), 200, us(10), ['make'], '/usr/bin/make', 5000, 5200),
          ex3(us(12), 200, us(10), ['python3', 'big.py'], '/usr/bin/python3', 1000, 5200),
          ex3(us(13), 200, us(10), ['sleep', '1'], '/usr/bin/sleep', 400000, 400100),
          fork_ev(us(20), 200, 201),
          ex3(us(21), 201, us(20), ['sh', '-c', 'x'], '/usr/bin/sh', 0, 3000),
          ex3(us(22), 201, us(20), ['true'], '/usr/bin/true', 0, 3000),
          fork_ev(us(30), 200, 202),
          ex3(us(31), 202, us(30), ['cat'], '/usr/bin/cat', 2000, 2100),
          ex(us(40), 201, us(20), 700, ppid=200),
          ex(us(50), 200, us(10), 1800)]
    return linear(head_blocks(types=['fork', 'exec3', 'exec_fail', 'exit', 'proc_state',
                                     'drops']) +
                  [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('release')
def _():
    """release events (docs/EVENTS.md [E13]): 201's release, after its exit,
    replaces its CPU (cpu_final); a second release of 201 is ignored; 202's
    release has less CPU than its exit (not its release: ignored); a release
    of 203, still running, and of a start no process has are ignored"""
    ev = [fork_ev(us(10), 100, 200),
          exec_ev(us(11), 200, us(10), ['make'], '/usr/bin/make', ppid=100),
          fork_ev(us(20), 200, 201),
          fork_ev(us(21), 200, 202),
          fork_ev(us(22), 200, 203),
          exit_ev(us(30), 201, us(20), ppid=200, ut=5000, st=1000, comm='make'),
          exit_ev(us(31), 202, us(21), ppid=200, ut=5000, st=1000, comm='make'),
          release_ev(us(40), 201, us(20), 6000, 1500, 3, 1),
          release_ev(us(41), 201, us(20), 9000, 1500, 3, 1),
          release_ev(us(42), 202, us(21), 4000, 1000),
          release_ev(us(43), 203, us(22), 9000, 1000),
          release_ev(us(44), 204, us(23), 9000, 1000)]
    return linear(head_blocks(types=BASE + ['release']) + [state(3, shell_state()),
                                                           chunk(4, ev)], 5)


@corpus('state-flags')
def _():
    """proc_state flags (docs/EVENTS.md [E9], [E11]): the start-up snapshot
    lists bash (100), kthreadd (2, flags 0x1|0x2: kthread), a zombie 150
    (0x1|0x8: exited before the recording, `exited_before`, its last event
    the snapshot) and 300 (pre-existing) which execs later: the snapshot's
    image stays its first image, the exec adds a second (execs=2); a later
    state event of 300 adds nothing"""
    st = shell_state() + [
        state_ev(us(0), 2, T0 - 9_000_000_000, [], '', ppid=0, flags=0x3, comm='kthreadd'),
        state_ev(us(0), 150, T0 - 2_000_000, ['defunct'], '/usr/bin/defunct', ppid=100,
                 flags=0x9),
        state_ev(us(0), 300, T0 - 1_000_000, ['sh', '-c', 'x'], '/usr/bin/sh', ppid=100,
                 flags=0x1)]
    ev = [exec_ev(us(10), 300, T0 - 1_000_000, ['x'], '/usr/bin/x', ppid=100),
          state_ev(us(20), 300, T0 - 1_000_000, ['x'], '/usr/bin/x', ppid=100)]
    return linear(head_blocks() + [state(3, st), chunk(4, ev)], 5)


@corpus('argv-truncated')
def _():
    """argv_truncated (docs/EVENTS.md §5 rule 10): 300's snapshot has flag 0x4
    and it never execs (truncated); 301's snapshot has 0x4 but it execs with
    an exec flag 0 (not truncated: the latest image decides); 200 execs with
    exec flag 0x1 (truncated); 202 execs with an argv cut short (no final
    NUL) but exec flag 0 (not truncated: only the flags count)"""
    st = shell_state() + [
        state_ev(us(0), 300, T0 - 1_000_000, ['sleep', '10'], '/usr/bin/sleep', ppid=100,
                 flags=0x5),
        state_ev(us(0), 301, T0 - 1_000_000, ['sh'], '/usr/bin/sh', ppid=100, flags=0x5)]
    cut = exec_ev(us(23), 202, us(22), ['cc'], '/usr/bin/cc', ppid=100)
    cut.blobs['argv'] = b'cc\0-Dxy'
    cut.f['argv_len'] = 8
    cut.f['argc'] = 2
    ev = [exec_ev(us(5), 301, T0 - 1_000_000, ['true'], '/usr/bin/true', ppid=100),
          fork_ev(us(10), 100, 200),
          exec_ev(us(11), 200, us(10), ['make', 'all'], '/usr/bin/make', ppid=100, flags=0x1,
                  argv_size=4096),
          fork_ev(us(22), 100, 202),
          cut]
    return linear(head_blocks() + [state(3, st), chunk(4, ev)], 5)


@corpus('pid-reuse')
def _():
    """pid reuse without alive_at_stop (docs/EVENTS.md [E8], [E11]): 201,
    ended by a second fork of pid 201, lost its exit (its pid was reused, so
    it cannot be running); 200, which never exits, is `running` (the final
    metadata has no alive_at_stop)"""
    ev = [fork_ev(us(10), 100, 200),
          fork_ev(us(20), 200, 201),
          fork_ev(us(30), 200, 201),
          exit_ev(us(40), 201, us(30), code=0, ppid=200)]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('release-fields')
def _():
    """release [E13] compares the CPU as a sum and the other figures one by
    one: 201's release has less utime but more stime (the sum grows: applied,
    cpu_final); 202's has fewer nvcsw only; 203's fewer min_flt only (both
    ignored)"""
    def rel(ts, tgid, start, **f):
        return Ev('release', ts, start_ns=start, tgid=tgid, **f)

    def ex(ts, tgid, start):
        e = exit_ev(ts, tgid, start, ppid=100, ut=5000, st=1000)
        e.f.update(nvcsw=4, nivcsw=2, min_flt=100, maj_flt=1)
        return e
    ev = [fork_ev(us(20), 100, 201), fork_ev(us(21), 100, 202), fork_ev(us(22), 100, 203),
          ex(us(30), 201, us(20)), ex(us(31), 202, us(21)), ex(us(32), 203, us(22)),
          rel(us(40), 201, us(20), utime_ns=4000, stime_ns=2500, nvcsw=4, nivcsw=2,
              min_flt=100, maj_flt=1),
          rel(us(41), 202, us(21), utime_ns=6000, stime_ns=1000, nvcsw=3, nivcsw=2,
              min_flt=100, maj_flt=1),
          rel(us(42), 203, us(22), utime_ns=6000, stime_ns=1000, nvcsw=4, nivcsw=2,
              min_flt=99, maj_flt=1)]
    return linear(head_blocks(types=BASE + ['release']) + [state(3, shell_state()),
                                                           chunk(4, ev)], 5)


@corpus('exec-fail-new')
def _():
    """exec_fail (docs/EVENTS.md §5 rule 2): of live 100 it adds nothing to the
    table; of 400, with no live process, it starts a new process 400 whose
    start is the event's time (no_fork, no image, empty comm)"""
    ev = [Ev('exec_fail', us(10), blobs={'filename': b'/nope'}, tgid=100, pid=100, err=2,
             filename_len=5),
          Ev('exec_fail', us(20), blobs={'filename': b'/nope'}, tgid=400, pid=401, err=13,
             filename_len=5)]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('exec-fail-start')
def _():
    """a process made by exec_fail takes the real start of a later exit
    ([E15]): 400's exit says it started at 15 us, before its exec_fail at 20
    us, so it is one process 400.15 us; 500's exit says 25 us, after its
    exec_fail at 20 us, so that is a second process and the first, ended by
    pid reuse, lost its exit ([E8])"""
    fail = [Ev('exec_fail', us(20), blobs={'filename': b'/nope'}, tgid=t, pid=t, err=2,
               filename_len=5) for t in (400, 500)]
    ev = fail + [exit_ev(us(30), 400, us(15), code=1, ppid=100, comm='sh'),
                 exit_ev(us(31), 500, us(25), code=2, ppid=100, comm='sh')]
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev)], 5)


@corpus('meta-order')
def _():
    """merged metadata and schema types are ordered by block seq, not file
    order ([M1], [S3]): a METADATA block with seq 1 (keys zz_first and
    hostname) and a SCHEMA block with seq 2 (release only) lie after the
    chunk; the head blocks have seq 3 and 4. zz_first comes first, hostname
    keeps the value of seq 3 (higher), release is the first type"""
    ev = pipeline()
    return linear([block(METADATA, 3, meta_payload(META)),
                   block(SCHEMA, 4, schema_payload(BASE)), state(5, shell_state()),
                   chunk(6, ev), block(METADATA, 1, meta_payload([('zz_first', '1'),
                                                                  ('hostname', 'old')])),
                   block(SCHEMA, 2, schema_payload(['release']))], 7)


@corpus('anchor-bad-payload')
def _():
    """[H7]: a chunk whose payload checksum fails still gives its anchor (the
    header is valid): chunk 4 (anchor at +100 us, wall clock 1 s ahead) is
    damaged, chunk 5 has no anchor (0); chunk 5's events nearer +100 us than
    the header's anchor take their wall time from chunk 4's anchor"""
    ev = pipeline()
    ext = bytearray(cext(ev[:8], anchor=us(100)))
    struct.pack_into('<q', ext, 48, REAL0 + 100_000 + 1_000_000_000)
    c4 = bytearray(block(CHUNK, 4, chunk_payload(ev[:8]), bytes(ext), compress=True))
    c4[-3] ^= 0xff
    return linear(head_blocks() + [state(3, shell_state()), bytes(c4),
                                   chunk(5, ev[8:], anchor=0)], 6)


@corpus('comm-empty')
def _():
    """an empty comm never replaces a known one (docs/EVENTS.md [E14]): 300,
    known from the snapshot with comm "daemon" and no image (empty exe and
    argv), exits with an exit whose fixed part ends before comm; 200 execs
    make, then execs again with an empty comm and exits with an empty comm:
    it keeps "make" while its latest image is the second exec's"""
    ex = exit_ev(us(40), 300, T0 - 1_000_000, ppid=100)
    off = next(f[2] for f in TYPES['exit']['fields'] if f[0] == 'comm')
    ex.fixed = ex.encode()[1][:off]
    second = exec_ev(us(20), 200, us(10), ['sh', '-c', 'true'], '/usr/bin/sh', ppid=100)
    second.f['comm'] = ''
    ev = [fork_ev(us(10), 100, 200),
          exec_ev(us(11), 200, us(10), ['make'], '/usr/bin/make', ppid=100),
          second,
          exit_ev(us(30), 200, us(10), ppid=100),
          ex]
    st = shell_state() + [state_ev(us(0), 300, T0 - 1_000_000, [], '', ppid=100, flags=0x1,
                                   comm='daemon')]
    return linear(head_blocks() + [state(3, st), chunk(4, ev)], 5)


@corpus('anchors')
def _():
    """clock anchors that disagree (the wall clock was stepped): header
    (T0 -> REAL0), chunk 4 sealed at 20 us with the clock 1 s ahead, chunk 5
    at 60 us with it 2 s ahead, the stop anchor at 80 us 3 s ahead. Each
    event's wall time uses the nearest anchor; the event at 40 us is exactly
    between 20 and 60: the smaller boot wins"""
    ev = [fork_ev(us(10), 100, 200), exec_ev(us(15), 200, us(10), ['a'], '/a', ppid=100),
          exit_ev(us(20), 200, us(10), ppid=100, comm='a'),
          fork_ev(us(40), 100, 201), exit_ev(us(60), 201, us(40), ppid=100),
          fork_ev(us(75), 100, 202)]

    def anch(seq, evs, boot, step):
        return block(CHUNK, seq, chunk_payload(evs),
                     cext(evs)[:40] + struct.pack('<Qq', boot, REAL0 + (boot - T0) + step),
                     compress=True)
    final = META + [('stop_anchor_boot_ns', str(us(80))),
                    ('stop_anchor_real_ns', str(REAL0 + 80_000 + 3_000_000_000))]
    return linear(head_blocks() + [state(3, shell_state(), anchor=0),
                                   anch(4, ev[:3], us(20), 1_000_000_000),
                                   anch(5, ev[3:], us(60), 2_000_000_000)], 6, meta_final=final)


@corpus('exit-status-only')
def _():
    """an older writer's exit type without exit_code, signal and flags: the
    analyzer decodes the raw wait status (137 = SIGKILL; 139 = SIGSEGV with
    a core; 768 = exit 3)"""
    fl = [f for f in TYPES['exit']['fields'] if f[0] not in ('exit_code', 'signal', 'flags')]
    sch = schema_payload(BASE, {'exit': dict(fields=fl)})
    ev = [fork_ev(us(10), 100, 200), exit_ev(us(20), 200, us(10), sig=9, ppid=100),
          fork_ev(us(30), 100, 201), exit_ev(us(40), 201, us(30), sig=11, core=True, ppid=100),
          fork_ev(us(50), 100, 202), exit_ev(us(60), 202, us(50), code=3, ppid=100)]
    return linear([block(METADATA, 1, meta_payload(META)), block(SCHEMA, 2, sch),
                   state(3, shell_state()), chunk(4, ev)], 5)


@corpus('bad-min-max-index')
def _():
    """as bad-min-max in a closed file: the index lists chunk 4 with its
    inconsistent ext; that chunk is damage, the index is used for the rest"""
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state()),
                                   chunk(4, ev[:8], min_ts=us(40), max_ts=us(10)),
                                   chunk(5, ev[8:])], 6)


@corpus('head-ext')
def _():
    """METADATA and SCHEMA blocks with an 8-byte ext (covered by the header
    checksum): ignored, the blocks read as usual"""
    ev = pipeline()
    return linear([block(METADATA, 1, meta_payload(META), b'\x01' * 8),
                   block(SCHEMA, 2, schema_payload(BASE), b'\x02' * 8),
                   state(3, shell_state()), chunk(4, ev)], 5)


# ------------------------------------------------------------ ring files
RING_START, FINAL_OFF, SEG = 4096, 2048, 2048


def ring_file(nseg, segs, closed=True, cut=None, head_meta=None):
    """segs: {segment index: bytes written at its start (blocks back to back)}.
    Each segment is first filled with `leftover` bytes if given as a tuple."""
    size = RING_START + nseg * SEG
    data = bytearray(size)
    h = header(incompat=1, ring=(size, RING_START, SEG, nseg, FINAL_OFF))
    data[:128] = h
    hb = b''.join(head_blocks(head_meta))
    data[128:128 + len(hb)] = hb
    if closed:
        fm = block(METADATA, 99, meta_payload(META + [('stop_anchor_boot_ns', str(us(90))),
                                                      ('stop_anchor_real_ns',
                                                       str(REAL0 + 90_000))]))
        data[FINAL_OFF:FINAL_OFF + len(fm)] = fm
    for i, content in segs.items():
        for off, b in content:
            p = RING_START + i * SEG + off
            assert off + len(b) <= SEG, (i, off, len(b))
            data[p:p + len(b)] = b
    return bytes(data[:cut] if cut else data)


def seg(*blocks, at=0):
    out, p = [], at
    for b in blocks:
        out.append((p, b))
        p += len(b)
    return out


def wrapped_segments():
    """3 segments, written 0,1,2 then 0 again: segment 0 holds the newest
    lap (seq 20..22) followed by leftovers of the first lap (seq 3..5's tail
    region: a block with seq 5, older than every segment start)"""
    ev = pipeline()
    live = shell_state()
    old0 = seg(state(3, live), chunk(4, ev[0:2]), chunk(5, ev[2:4]))
    s1 = seg(state(6, live + [state_ev(us(20), 200, us(10), ['make', '-j2'], '/usr/bin/make',
                                       ppid=100)]),
             chunk(7, ev[4:6]), chunk(8, ev[6:8]))
    s2 = seg(state(9, live + [state_ev(us(31), 200, us(10), ['make', '-j2'], '/usr/bin/make',
                                       ppid=100)]),
             chunk(10, ev[8:11]))
    new0_blocks = [state(11, live + [state_ev(us(45), 200, us(10), ['make', '-j2'],
                                              '/usr/bin/make', ppid=100)]),
                   chunk(12, ev[11:])]
    new0 = seg(*new0_blocks)
    # the old lap's chunk 5 stays after the new lap's end if it started later
    end_new = sum(len(b) for b in new0_blocks)
    old_tail = [(p, b) for p, b in old0 if p >= end_new]
    if not old_tail:   # place an old-lap block explicitly after the new chain
        old_tail = [(end_new, chunk(5, ev[2:4]))]
    return {0: old_tail + new0, 1: s1, 2: s2}


@corpus('ring-wrapped')
def _():
    """a closed ring of 3 segments that wrapped: segment 0 was rewritten
    (seq 11-12), the first lap's segment 0 (seq 3-5) is gone but a block of
    it (seq 5) lies after the new chain: below lap (6), it ends the chain
    silently. Processes alive before segment 1 are known from its state
    block (make 200 with its image)"""
    return ring_file(3, wrapped_segments())


@corpus('ring-unfinished')
def _():
    """the same ring whose writer was killed: the final slot is all zero"""
    return ring_file(3, wrapped_segments(), closed=False)


@corpus('ring-short')
def _():
    """the same ring copied short: the file ends inside segment 2; the
    missing bytes are one damaged region (TRUNCATED)"""
    return ring_file(3, wrapped_segments(), cut=RING_START + 2 * SEG + 300)


@corpus('ring-out-of-place')
def _():
    """a copy of chunk 7 (seq 7 >= lap) written after segment 2's chain end:
    out of place, damage, never read twice"""
    segs = wrapped_segments()
    ev = pipeline()
    end = sum(len(b) for _, b in segs[2])
    segs[2] = segs[2] + [(end, chunk(7, ev[4:6]))]
    return ring_file(3, segs)


@corpus('ring-late-schema')
def _():
    """a ring whose head chain holds a second SCHEMA block (seq 98, type 9
    oom_kill learnt late) after the first; chunk 12 has an oom_kill event"""
    TYPES['oom_kill'] = dict(id=9, name='oom_kill', version=1, state=False, fixed=16,
                             fields=[('start_ns', U64, 0, 8, 'ns'), ('tgid', U32, 8, 4, ''),
                                     ('pid', U32, 12, 4, '')])
    try:
        segs = wrapped_segments()
        ev = pipeline()
        oom = Ev('oom_kill', us(59), start_ns=us(50), tgid=203, pid=203)
        c12 = chunk(12, sorted(ev[11:] + [oom], key=lambda e: e.ts))
        st11 = segs[0][-2][1]
        segs[0] = seg(st11, c12)
        extra = block(SCHEMA, 98, schema_payload(['oom_kill']))
        data = bytearray(ring_file(3, segs))
        hb = len(b''.join(head_blocks()))
        data[128 + hb:128 + hb + len(extra)] = extra
        return bytes(data)
    finally:
        del TYPES['oom_kill']


@corpus('ring-bad-segment-start')
def _():
    """ring-wrapped with segment 1's opening state block damaged (a flipped
    header byte): segment 1 gives no lap candidate (lap = 9, segment 2's);
    its bytes up to chunk 7 are one damaged region, and chunk 7, found by
    resynchronisation, is read although its seq is below lap, then chunk 8"""
    data = bytearray(ring_file(3, wrapped_segments()))
    data[RING_START + SEG + 20] ^= 0x01
    return bytes(data)


@corpus('ring-edges')
def _():
    """what ends a ring chain silently (section 9, [R1], [R8]): non-zero
    bytes after the head chain's last block with no valid block after them
    in the head area; non-zero bytes after the final slot's METADATA block;
    non-zero bytes after segment 2's last block with no valid block after
    them in the segment; 30 non-zero bytes (less than a block header) at
    the very end of segment 1. None of them is damage"""
    data = bytearray(ring_file(3, wrapped_segments()))
    hb = 128 + len(b''.join(head_blocks()))
    data[hb:hb + 64] = b'\x5a' * 64
    fm = FINAL_OFF + len(block(METADATA, 99, meta_payload(META + [
        ('stop_anchor_boot_ns', str(us(90))), ('stop_anchor_real_ns', str(REAL0 + 90_000))])))
    data[fm:fm + 64] = b'\xa5' * 64
    end2 = RING_START + 2 * SEG + sum(len(b) for _, b in wrapped_segments()[2])
    data[end2:end2 + 100] = b'\x5a' * 100
    data[RING_START + 2 * SEG - 30:RING_START + 2 * SEG] = b'\x77' * 30
    return bytes(data)


# ------------------------------------------------------------ damage
def good_linear():
    return CORPUS['linear-basic']()


def reheader(data, **kw):
    return header(**kw) + data[128:]


@corpus('bad-magic')
def _():
    return b'\x89TZ2\r\n\x1a\n' + good_linear()[8:]


@corpus('bad-version')
def _():
    """major 2 with a correct header checksum: refused as VERSION"""
    return reheader(good_linear(), major=2)


@corpus('bad-version-flip')
def _():
    """major 1 -> 3 by a flipped bit (checksum not updated): major is checked
    before the checksum, so it reads VERSION, not CHECKSUM"""
    d = bytearray(good_linear())
    d[8] ^= 0x02
    return bytes(d)


@corpus('bad-header-checksum')
def _():
    d = bytearray(good_linear())
    d[60] ^= 0x01          # inside boot_id
    return bytes(d)


@corpus('bad-incompat')
def _():
    return reheader(good_linear(), incompat=0x4)


@corpus('short-header')
def _():
    return good_linear()[:100]


@corpus('short-magic')
def _():
    return MAGIC[:5]


@corpus('linear-ring-fields')
def _():
    """a linear file whose ring fields are non-zero: ignored"""
    d = good_linear()
    return reheader(d, ring=(123, 456, 789, 3, 1000))


def _damage_chunk(mut):
    """linear-basic with chunk 4 mutated by mut(bytearray of the file, offset, size)"""
    d = bytearray(good_linear())
    for off, size, typ, seq, rl, ext in parse_blocks(d, 128):
        if typ == CHUNK and seq == 4:
            mut(d, off, size)
            return bytes(d)
    raise AssertionError


@corpus('bad-payload-checksum')
def _():
    """chunk 4's payload has a flipped byte: that chunk is damage, the rest
    reads; the index stays valid (its entry describes the header)"""
    return _damage_chunk(lambda d, o, n: d.__setitem__(o + n - 3, d[o + n - 3] ^ 0xff))


@corpus('bad-block-header')
def _():
    """chunk 4's header checksum fails: the index is not used (its entry
    no longer matches a valid header), the scan resynchronises at chunk 5"""
    return _damage_chunk(lambda d, o, n: d.__setitem__(o + 20, d[o + 20] ^ 0x01))


def _rebuild(blocks_fn):
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state())] + blocks_fn(ev), 6)


@corpus('bad-event-ts')
def _():
    """chunk 4 claims max_ts below one of its events: the whole chunk is damage"""
    return _rebuild(lambda ev: [chunk(4, ev[:8], max_ts=us(20)), chunk(5, ev[8:])])


@corpus('bad-event-count')
def _():
    """chunk 4's ext.events is one more than its payload holds: damage"""
    return _rebuild(lambda ev: [chunk(4, ev[:8], n=9), chunk(5, ev[8:])])


@corpus('bad-min-max')
def _():
    """chunk 4 has min_ts > max_ts: damage on the scan path too (no index)"""
    ev = pipeline()
    return linear(head_blocks() + [state(3, shell_state()),
                                   chunk(4, ev[:8], min_ts=us(40), max_ts=us(10)),
                                   chunk(5, ev[8:])], 6, close=False)


@corpus('bad-blob-ref')
def _():
    """an exec in chunk 4 refers to string 9 of a table of 2: damage"""
    ev = pipeline()
    p = bytearray(chunk_payload(ev[:8]))
    raw = bytes(p)
    # the first exec's first ref byte: find the varint 1 after its fixed part
    tid, fx, bl = ev[1].encode()
    pos = raw.index(fx) + len(fx)
    assert raw[pos] == 4            # nblobs
    p[pos + 1] = 9
    bad = block(CHUNK, 4, bytes(p), cext(ev[:8]), compress=True)
    return linear(head_blocks() + [state(3, shell_state()), bad, chunk(5, ev[8:])], 6)


@corpus('duplicate-seq')
def _():
    """chunk 5 appears twice (a replayed block): the second is damage and
    duplicate_blocks counts it; its events are read once"""
    ev = pipeline()
    c5 = chunk(5, ev[8:])
    return linear(head_blocks() + [state(3, shell_state()), chunk(4, ev[:8]), c5, c5], 6)


@corpus('stale-index')
def _():
    """a valid trailer whose index lists one block less than the file has:
    the index is ignored and the file is read by the scan rule"""
    d = bytearray(good_linear())
    ioff, isz, fsz = struct.unpack_from('<QQQ', d, len(d) - 64 + 32)
    entries = d[ioff + 40:ioff + isz]
    newidx = block(INDEX, 7, bytes(entries[88:]))
    assert len(newidx) == isz - 88
    out = d[:ioff] + newidx
    out += block(TRAILER, 8, b'', struct.pack('<QQQ', ioff, len(newidx), len(out) + 64))
    return bytes(out)


@corpus('bad-trailer')
def _():
    """the trailer's header checksum fails: the file is unfinished and read
    by the scan rule (the INDEX block before it is a valid block)"""
    d = bytearray(good_linear())
    d[-10] ^= 0x01
    return bytes(d)


@corpus('inflated-length')
def _():
    """chunk 4's payload_len was inflated by 200 and its header checksum
    recomputed: its payload fails and chunk 5's header starts inside it, so
    chunk 4 is one damaged region and reading resumes at chunk 5"""
    ev = pipeline()
    c4 = bytearray(chunk(4, ev[:8]))
    struct.pack_into('<I', c4, 8, struct.unpack_from('<I', c4, 8)[0] + 200)
    struct.pack_into('<Q', c4, 88, xxh3(bytes(c4[:88])))
    return linear(head_blocks() + [state(3, shell_state()), bytes(c4), chunk(5, ev[8:])], 6,
                  close=False) + b'\0' * 200


@corpus('bad-schema')
def _():
    """a second SCHEMA block whose field lies past fixed_size: that block
    is damage (the first schema stays in force)"""
    bad = schema_payload(['fork'], {'fork': dict(fixed=8)})
    ev = pipeline()
    return linear(head_blocks() + [block(SCHEMA, 3, bad), state(4, shell_state()),
                                   chunk(5, ev)], 6)

# an empty zstd skippable frame (RFC 8878 section 3.1.2)
SKIPPABLE = struct.pack('<II', 0x184D2A50, 0)


@corpus('bad-zstd')
def _():
    """three ZSTD chunks whose payload checksum is right: chunk 4's frame is
    damaged inside (status ZSTD); chunk 5 is a good frame followed by an
    empty skippable frame (a payload is exactly one frame: ZSTD); chunk 6's frame header
    records a content size other than raw_len (CORRUPT). None is read; all
    three count (their headers are valid and consistent, [L6])"""
    ev = pipeline()
    raw4 = chunk_payload(ev[:8])
    f4 = bytearray(zstd(raw4))
    f4[len(f4) // 2] ^= 0xff
    f4[len(f4) // 2 + 1] ^= 0xff
    raw5 = chunk_payload(ev[8:12])
    raw6 = chunk_payload(ev[12:])
    return linear(head_blocks() + [
        state(3, shell_state()),
        block(CHUNK, 4, bytes(f4), cext(ev[:8]), flags=ZSTD, compress=False,
              raw_len=len(raw4)),
        block(CHUNK, 5, zstd(raw5) + SKIPPABLE, cext(ev[8:12]), flags=ZSTD, compress=False,
              raw_len=len(raw5)),
        block(CHUNK, 6, zstd(raw6), cext(ev[12:]), flags=ZSTD, compress=False,
              raw_len=len(raw6) + 1)], 7)


@corpus('over-limit')
def _():
    """chunk 4 says raw_len 64 MiB + 1 (a ZSTD block, so raw_len may exceed
    payload_len), above the reader's limit (FORMAT.md section 14): status
    LIMIT, not counted, its seq not claimed: a later chunk 4 is counted.
    The index lists both and is used ([I1])"""
    ev = pipeline()
    big = block(CHUNK, 4, zstd(chunk_payload(ev[:8])), cext(ev[:8]), flags=ZSTD,
                compress=False, raw_len=64 * 1024 * 1024 + 1)
    return linear(head_blocks() + [state(3, shell_state()), big, chunk(4, ev[:8]),
                                   chunk(5, ev[8:])], 6)


@corpus('short-ext')
def _():
    """chunk 4 and state block 3 have ext_len 48 (< 56): damage of status
    CORRUPT, their line shows events=0 ts=0..0, not counted, seq not claimed;
    without state block 3 the processes of chunk 5 are new"""
    ev = pipeline()
    st = shell_state()
    return linear(head_blocks() + [
        block(STATE, 3, chunk_payload(st), cext(st)[:48], compress=True),
        block(CHUNK, 4, chunk_payload(ev[:8]), cext(ev[:8])[:48], compress=True),
        chunk(5, ev[8:])], 6, close=False)


@corpus('no-anchor')
def _():
    """no clock anchor at all: the header's start_boot_ns is 0 (no anchor),
    the chunks' anchor_boot_ns are 0, and the final metadata's
    stop_anchor_boot_ns is not a plain decimal (leading '+'), so it is no
    anchor either: every event's WALL is '-'"""
    ev = pipeline()
    meta_final = META + [('stop_anchor_boot_ns', '+' + str(T0 + 9_000_000)),
                         ('stop_anchor_real_ns', str(REAL0 + 9_000_000))]
    return linear(head_blocks() + [state(3, shell_state(), anchor=0),
                                   chunk(4, ev[:8], anchor=0), chunk(5, ev[8:], anchor=0)],
                  6, meta_final=meta_final, hdr=header(anchor=(0, REAL0)))


deftype(200, 'opaque', [('tag', BYTES, 4, ''), ('label', CHARS, 8, ''),
                        ('count', U32, 0, 'count')])


@corpus('bytes-field')
def _():
    """a type of its own (id 200) with a bytes, a chars and a u32 field:
    bytes print as lowercase hex (all-zero bytes too), chars up to the first
    NUL; an event whose fixed part ends before a field reads it as absent:
    bytes '-', chars "", integers 0"""
    ev = [Ev('opaque', us(5), tag=b'\xde\xad\xbe\xef', label=b'ab\x01cd', count=7),
          Ev('opaque', us(6), tag=b'\0\0\0\0', label=b'', count=0),
          Ev('opaque', us(7), fixed=b'\x01\x02'),
          Ev('opaque', us(8), fixed=b'\x01\x02\x03\x04abc')]
    return linear(head_blocks(types=BASE + ['opaque']) + [state(3, shell_state()),
                                                          chunk(4, ev)], 5)


@corpus('meta-partway')
def _():
    """metadata blocks that fail partway contribute nothing, not even the
    pairs before the fault ([M1], section 5): block 3 sets hostname and a new
    key, then a key with a NUL; block 4 says 3 pairs and holds 2 (hostname
    and another new key); block 5 sets hostname then a value cut short. No
    key of theirs is in the merged metadata; block 6, valid, adds one"""
    ev = pipeline()
    good = meta_payload([('hostname', 'evil'), ('extra', 'x')])
    nul = varint(3) + good[1:] + s(b'bad\0key') + s('v')
    short = varint(3) + meta_payload([('hostname', 'evil2'), ('extra2', 'y')])[1:]
    cut = meta_payload([('hostname', 'evil3'), ('extra3', 'zzzz')])[:-2]
    return linear(head_blocks() + [block(METADATA, 3, nul), block(METADATA, 4, short),
                                   block(METADATA, 5, cut),
                                   block(METADATA, 6, meta_payload([('kept', 'yes')])),
                                   state(7, shell_state()), chunk(8, ev)], 9)


@corpus('head-damaged')
def _():
    """metadata block 3 sets hostname and a new key, then has one byte after
    its last pair: damage, it contributes nothing (no key extra). Schema
    block 4 redefines fork (valid) and then a type whose field lies past its
    fixed_size: damage, fork keeps its first definition. Schema block 5
    defines type 200 twice: the later definition (opaque) wins"""
    ev = pipeline()
    meta = meta_payload([('hostname', 'evil'), ('extra', 'x')]) + b'\0'
    bad = schema_payload(['fork', 'opaque'], {'fork': dict(name='fork2'),
                                              'opaque': dict(fixed=4)})
    first = schema_payload(['opaque'], {'opaque': dict(name='first')})
    twice = varint(2) + first[1:] + schema_payload(['opaque'])[1:]
    return linear(head_blocks() + [block(METADATA, 3, meta), block(SCHEMA, 4, bad),
                                   block(SCHEMA, 5, twice), state(6, shell_state()),
                                   chunk(7, ev + [Ev('opaque', us(71), tag=b'abcd',
                                                     label=b'l', count=1)])], 8)


# ------------------------------------------------------------ multi-host (section 18)
MULTI, MEMBER = 2, 7


def host_trace(n, boot_id=BOOT_ID):
    """a small whole trace of host n: its own uuid, hostname nodeN"""
    meta = [('hostname', 'node%d' % n)] + [kv for kv in META if kv[0] != 'hostname']
    ev = pipeline()
    return linear(head_blocks(meta) + [state(3, shell_state()), chunk(4, ev)], 5,
                  meta_final=meta, hdr=header(uuid=bytes([0x40 + n] * 16), boot_id=boot_id))


def member(seq, data, source, hostname, flags=0):
    ext = struct.pack('<Q16s16sII', len(data), data[40:56], data[56:72], flags, 0)
    names = meta_payload([('source', source), ('hostname', hostname)])
    return block(MEMBER, seq, names, ext) + data


def multi(members, meta=None):
    """a container: header (MULTI, no anchor), merge metadata, the members"""
    data = header(incompat=MULTI, uuid=bytes([0x77] * 16), boot_id=bytes(16),
                  anchor=(0, REAL0))
    data += block(METADATA, 1, meta_payload(meta or [('merged_by', 'gen.py'), ('members',
                                                                               str(len(members)))]))
    for i, m in enumerate(members):
        data += member(2 + i, *m)
    return data


@corpus('multi-basic')
def _():
    """[X1] three hosts: node0 and node1 share a boot id (one machine), node2
    another; each member is a whole trace of its own"""
    return multi([(host_trace(0), 'n0.tz', 'node0'), (host_trace(1), 'n1.tz', 'node1'),
                  (host_trace(2, bytes(range(0xc0, 0xd0))), 'n2.tz', 'node2', 1)])


@corpus('multi-damaged-member')
def _():
    """[X1] the second MEMBER block's header checksum is wrong: that member is
    lost (one damaged region), the walk resumes at the third MEMBER block"""
    m = [host_trace(n) for n in range(3)]
    data = bytearray(multi([(m[0], 'n0.tz', 'node0'), (m[1], 'n1.tz', 'node1'),
                            (m[2], 'n2.tz', 'node2')]))
    at = data.find(BMAGIC + bytes([MEMBER]), 128)
    at = data.find(BMAGIC + bytes([MEMBER]), at + 1)
    data[at + 16] ^= 0x01  # its seq: the header checksum no longer matches
    return bytes(data)


@corpus('multi-cut')
def _():
    """[X1] the file ends inside its second member: that member is cut
    (unfinished, read by the scan rule), one damaged region"""
    m1 = host_trace(1)
    data = multi([(host_trace(0), 'n0.tz', 'node0'), (m1, 'n1.tz', 'node1')])
    return data[:len(data) - len(m1) // 2]


@corpus('multi-nested')
def _():
    """[X2] a member that is itself a container is damage (CORRUPT), not read;
    the member after it is read"""
    inner = multi([(host_trace(0), 'n0.tz', 'node0')])
    return multi([(inner, 'inner.tz', ''), (host_trace(1), 'n1.tz', 'node1')])


@corpus('multi-duplicate')
def _():
    """[X3] the same recording (uuid) twice: the later copy is listed, not read"""
    m0 = host_trace(0)
    return multi([(m0, 'n0.tz', 'node0'), (host_trace(1), 'n1.tz', 'node1'),
                  (m0, 'copy-of-n0.tz', 'node0')])


@corpus('multi-uuid-copy')
def _():
    """[X2] the second MEMBER block's uuid copy names the first member's
    recording (header checksum fixed): the member's own header decides, the
    copy is damage, and the member is read (no false duplicate)"""
    m0, m1 = host_trace(0), host_trace(1)
    ext = struct.pack('<Q16s16sII', len(m1), m0[40:56], m1[56:72], 0, 0)
    names = meta_payload([('source', 'n1.tz'), ('hostname', 'node1')])
    data = multi([(m0, 'n0.tz', 'node0')],
                 meta=[('merged_by', 'gen.py'), ('members', '2')])
    return data + block(MEMBER, 3, names, ext) + m1


@corpus('multi-cut-boundary')
def _():
    """[X4] the file ends exactly after its first member: the walk finds no
    damaged block, but the merge metadata says 2 members: one damaged region"""
    m0 = host_trace(0)
    data = multi([(m0, 'n0.tz', 'node0'), (host_trace(1), 'n1.tz', 'node1')])
    return data[:data.find(m0) + len(m0)]


@corpus('salvage-member-block')
def _():
    """[X5] the second MEMBER block's header checksum is wrong (as
    multi-damaged-member): the walk loses its member, the salvage scan finds
    it by its own header, between the first member and the third MEMBER
    block; then the third's is wrong too: one region, two members found"""
    m = [host_trace(n) for n in range(3)]
    data = bytearray(multi([(m[0], 'n0.tz', 'node0'), (m[1], 'n1.tz', 'node1'),
                            (m[2], 'n2.tz', 'node2')]))
    at = data.find(BMAGIC + bytes([MEMBER]), 128)
    at = data.find(BMAGIC + bytes([MEMBER]), at + 1)
    data[at + 16] ^= 0x01
    return bytes(data)


@corpus('salvage-two-member-blocks')
def _():
    """[X5] the second and third MEMBER blocks' headers do not check: one
    damaged region holding two members, each found by its own header"""
    m = [host_trace(n) for n in range(3)]
    data = bytearray(multi([(m[0], 'n0.tz', 'node0'), (m[1], 'n1.tz', 'node1'),
                            (m[2], 'n2.tz', 'node2')]))
    at = data.find(BMAGIC + bytes([MEMBER]), 128)
    for _ in range(2):
        at = data.find(BMAGIC + bytes([MEMBER]), at + 1)
        data[at + 16] ^= 0x01
    return bytes(data)


@corpus('salvage-header')
def _():
    """[X5] the container's header is zeros and its first MEMBER block's header
    does not check: read as a container from what follows (the header one
    damaged region with the first member, found by its own header, in it);
    the merge metadata is left out"""
    m = [host_trace(n) for n in range(2)]
    data = bytearray(multi([(m[0], 'n0.tz', 'node0'), (m[1], 'n1.tz', 'node1')]))
    data[0:128] = bytes(128)
    at = data.find(BMAGIC + bytes([MEMBER]), 128)
    data[at + 16] ^= 0x01
    return bytes(data)


@corpus('salvage-no-false-member')
def _():
    """[X5] in a damaged region: a member header whose checksum fails, noise
    sown with both magics, and a whole trace as the payload of a block of an
    unknown type whose header and payload check (an embedded file, not a
    member): no member is found in it; the member after it is read"""
    m0, m1, m2 = host_trace(0), host_trace(1), host_trace(2)
    bad = bytearray(m1[:400])
    bad[44] ^= 0x01  # its uuid: the header checksum no longer matches
    noise = bytearray((i * 151 + 7) % 251 for i in range(600))
    for p in range(5, 560, 53):
        noise[p:p + 8] = MAGIC if p % 2 else BMAGIC + bytes(4)
    region = bytes(16) + bytes(bad) + bytes(noise) + block(200, 90, m1)
    data = multi([(m0, 'n0.tz', 'node0')], meta=[('merged_by', 'gen.py'), ('members', '2')])
    return data + region + member(3, m2, 'n2.tz', 'node2')


@corpus('salvage-cut')
def _():
    """[X5] the second MEMBER block's header does not check and the file ends
    inside that member: found by its own header, it runs to the end of the
    file without its trailer and is cut (unfinished, read by the scan rule)"""
    m = [host_trace(n) for n in range(2)]
    data = bytearray(multi([(m[0], 'n0.tz', 'node0'), (m[1], 'n1.tz', 'node1')]))
    at = data.find(BMAGIC + bytes([MEMBER]), 128)
    at = data.find(BMAGIC + bytes([MEMBER]), at + 1)
    data[at + 16] ^= 0x01
    return bytes(data[:len(data) - len(m[1]) // 3])


@corpus('salvage-plain-header')
def _():
    """[X5] a plain trace whose header checksum fails: nothing follows it that
    makes it a container; the header's error stands"""
    data = bytearray(host_trace(0))
    data[44] ^= 0x01
    return bytes(data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, fn in sorted(CORPUS.items()):
        with open(os.path.join(out, name + '.tz'), 'wb') as f:
            f.write(fn())


if __name__ == '__main__':
    main()
