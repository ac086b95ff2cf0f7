# SPDX-License-Identifier: BSD-2-Clause
"""The data a tracer HTML report embeds (docs/plots-and-bundles.md, Data),
read back for the tests: the #tracer-data element's base64 of gzip of
[u32 LE J][J bytes of JSON][zeros to a multiple of 8][binary part], its
"processes" columns (numbers, ids and argv in the binary part, shared
objects) turned back into one dict a process."""
import base64, gzip, itertools, json, re, struct


def unpacked(html):
    """the decompressed data of the data element of page text html (bytes)"""
    m = re.search(r'<script id="tracer-data" type="application/gzip" data-encoding="base64">(.*?)</script>', html, re.S)
    assert m, "no data element"
    return gzip.decompress(base64.b64decode(m.group(1), validate=True))


def split(b):
    """(the JSON text, the binary part) of decompressed data b"""
    (j,) = struct.unpack_from("<I", b, 0)
    base = (4 + j + 7) // 8 * 8
    assert b[4 + j:base] == bytes(base - 4 - j), "padding not zeros"
    return b[4:4 + j].decode("utf-8"), b[base:]


def raw(html):
    """the JSON text of the data, then every text of strings of the binary
    part (argv), one a line: what a grep of the page's data must see"""
    text, bin_ = split(unpacked(html))
    cols = json.loads(text)["processes"]["columns"]
    texts = [bin_[c["text"]:c["text"] + c["text_bytes"]].decode("utf-8") for c in cols.values() if c["type"] == "lists"]
    return "\n".join([text] + texts)


def json_text(html):
    """the JSON text of the data only"""
    return split(unpacked(html))[0]


TYPES = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i", "f64": "d"}


def _arr(bin_, off, n, t):
    assert off % 8 == 0, off
    return list(struct.unpack_from("<%d%s" % (n, TYPES[t]), bin_, off))


def _col(bin_, c, name, n):
    """array NAME of column c (n elements, its type NAME_type); with delta,
    the running sums of the differences there from NAME_first, which must
    fit NAME_values"""
    a = _arr(bin_, c[name], n, c[name + "_type"])
    if not c.get("delta") or not n:
        return a
    assert a[0] == 0, "a first difference not 0"
    s = list(itertools.accumulate(a, initial=c[name + "_first"]))[1:]
    lo, hi = {"B": (0, 2**8), "b": (-2**7, 2**7), "H": (0, 2**16), "h": (-2**15, 2**15), "I": (0, 2**32),
              "i": (-2**31, 2**31), "d": (1 - 2**53, 2**53)}[TYPES[c[name + "_values"]]]
    assert all(lo <= x < hi for x in s), "a sum outside " + c[name + "_values"]
    return s


def column(c, n, bin_):
    """the n values of column description c, as JSON.parse would give them"""
    nulls = _arr(bin_, c["nulls"], n, "u8") if "nulls" in c else [0] * n
    t = c["type"]
    if t == "json":
        v = c["values"]
    elif t == "index":
        v = [c["values"][i] for i in _col(bin_, c, "index", n)]
    elif t == "num":
        sc = 10 ** c["decimals"]
        # int / int: correctly rounded, as the page's m / 10^D and JSON.parse
        v = [int(x) if sc == 1 else int(x) / sc for x in _col(bin_, c, "offset", n)]
    elif t == "id":
        v = ["%d.%d" % (p, q) for p, q in zip(_col(bin_, c, "pid", n), _col(bin_, c, "ns", n))]
    elif t == "lists":
        u16 = bin_[c["text"]:c["text"] + c["text_bytes"]].decode("utf-8").encode("utf-16-le")
        se = list(itertools.accumulate(_arr(bin_, c["string_lengths"], c["strings"], c["string_lengths_type"])))
        le = list(itertools.accumulate(_arr(bin_, c["list_lengths"], c["lists"], c["list_lengths_type"])))
        strs = [u16[2 * (se[i - 1] if i else 0):2 * se[i]].decode("utf-16-le") for i in range(len(se))]
        lists = [strs[(le[k - 1] if k else 0):le[k]] for k in range(len(le))]
        v = [lists[i] for i in _col(bin_, c, "index", n)]
    else:
        raise AssertionError("unknown column type %r" % t)
    assert len(v) == n, "column of %d values, not %d" % (len(v), n)
    return [None if z else x for x, z in zip(v, nulls)]


def load(path):
    """the data of the page at path, "processes" as a list of dicts"""
    text, bin_ = split(unpacked(open(path, encoding="utf-8").read()))
    d = json.loads(text)
    pc = d["processes"]
    n = pc["count"]
    cols = {k: column(c, n, bin_) for k, c in pc["columns"].items()}
    shared = cols.pop("shared")
    d["processes"] = [dict({k: cols[k][i] for k in cols}, **shared[i]) for i in range(n)]
    return d
