"""The data a tracer HTML report embeds (docs/plots-and-bundles.md, Data),
read back for the tests: the #tracer-data element's base64 of gzip of one
JSON object, its "processes" columns (and shared objects) turned back into
one dict a process."""
import base64, gzip, json, re


def raw(html):
    """the decoded JSON text of the data element of page text html"""
    m = re.search(r'<script id="tracer-data" type="application/gzip" data-encoding="base64">(.*?)</script>', html, re.S)
    assert m, "no data element"
    return gzip.decompress(base64.b64decode(m.group(1), validate=True)).decode("utf-8")


def load(path):
    """the data of the page at path, "processes" as a list of dicts"""
    d = json.loads(raw(open(path, encoding="utf-8").read()))
    pc = d["processes"]
    cols = {k: [pc["values"][k][i] for i in v] if k in pc["values"] else v for k, v in pc["columns"].items()}
    assert all(len(v) == pc["count"] for v in cols.values()), "columns of unequal length"
    shared = cols.pop("shared")
    d["processes"] = [dict({k: cols[k][i] for k in cols}, **shared[i]) for i in range(pc["count"])]
    return d
