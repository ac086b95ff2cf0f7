#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""pngdiff.py - coarse visual comparison of two PNG pictures (stdlib only:
zlib + struct, no imaging library).

  pngdiff.py REF.png NEW.png [--block N] [--tol T] [--max-frac F]
      exit 0 when NEW looks like REF, 1 when it does not (one line says why),
      2 on unreadable input
  pngdiff.py --perturb IN.png OUT.png
      OUT = IN with a black square over its middle (to prove the check fails)

Same width and height are required. Both pictures are cut into N x N pixel
blocks (default 8) and each block's mean R, G, B compared: a block differs
when a channel's mean is more than T apart (default 40 of 255). Font
rendering noise (anti-aliasing, hinting) moves a few blocks a little; a
real change (a bar, a row, a series, a shifted axis) moves many a lot. The
pictures match when at most F of the blocks differ (default 0.002: 46 of
the 23,100 blocks of a 1400x1054 timeline).
"""
import struct
import sys
import zlib


def read_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, plte, ihdr = 8, [], None, None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            plte = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if not ihdr:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    chans = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or interlace or not chans:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = w * chans
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - chans] if i >= chans else 0
            b = prev[i]
            c = prev[i - chans] if i >= chans else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 0xff
            elif f != 0:
                raise ValueError("bad filter %d in row %d" % (f, y))
        prev = line
        rgb = bytearray(w * 3)
        for x in range(w):
            px = line[x * chans:(x + 1) * chans]
            if ctype == 3:
                rgb[x * 3:x * 3 + 3] = plte[px[0] * 3:px[0] * 3 + 3]
            elif chans <= 2:
                rgb[x * 3:x * 3 + 3] = bytes([px[0]] * 3)
            else:
                rgb[x * 3:x * 3 + 3] = px[:3]
        rows.append(rgb)
    return w, h, rows


def write_png(path, w, h, rows):
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def blocks(w, h, rows, n):
    out = []
    for by in range(0, h, n):
        for bx in range(0, w, n):
            s = [0, 0, 0]
            cnt = 0
            for y in range(by, min(by + n, h)):
                r = rows[y]
                for x in range(bx, min(bx + n, w)):
                    s[0] += r[x * 3]
                    s[1] += r[x * 3 + 1]
                    s[2] += r[x * 3 + 2]
                    cnt += 1
            out.append((s[0] / cnt, s[1] / cnt, s[2] / cnt))
    return out


def main(argv):
    if len(argv) == 4 and argv[1] == "--perturb":
        w, h, rows = read_png(argv[2])
        side = min(w, h) // 8
        for y in range(h // 2 - side // 2, h // 2 + side // 2):
            for x in range(w // 2 - side // 2, w // 2 + side // 2):
                rows[y][x * 3:x * 3 + 3] = b"\x00\x00\x00"
        write_png(argv[3], w, h, rows)
        return 0
    args, opts = [], {"--block": 8, "--tol": 40.0, "--max-frac": 0.002}
    i = 1
    while i < len(argv):
        if argv[i] in opts and i + 1 < len(argv):
            opts[argv[i]] = type(opts[argv[i]])(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        a, b = read_png(args[0]), read_png(args[1])
    except (OSError, ValueError, zlib.error) as e:
        print("pngdiff: %s" % e, file=sys.stderr)
        return 2
    if a[:2] != b[:2]:
        print("pngdiff: '%s' is %dx%d, '%s' is %dx%d" % (args[0], a[0], a[1], args[1], b[0], b[1]))
        return 1
    n = opts["--block"]
    ba, bb = blocks(*a, n), blocks(*b, n)
    bad = sum(1 for p, q in zip(ba, bb) if max(abs(p[k] - q[k]) for k in range(3)) > opts["--tol"])
    frac = bad / len(ba)
    ok = frac <= opts["--max-frac"]
    print("pngdiff: %s: %d of %d blocks of %dx%d px differ (%.2f%%, at most %.2f%% allowed)"
          % ("same" if ok else "DIFFERENT", bad, len(ba), n, n, frac * 100, opts["--max-frac"] * 100))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
