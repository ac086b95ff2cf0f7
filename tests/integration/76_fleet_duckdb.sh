#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21 item 4: fleet data for an existing engine. Three recordings made as
# three "hosts" (UTS namespaces with their own hostnames, as 74 does; simulated:
# one machine, so one boot id and one clock, but three recorders, three uuids)
# are merged; the merge is exported as jsonl.zst and csv.gz and loaded into
# DuckDB (the npm package @duckdb/node-api, installed once into
# /var/cache/tracer-test-duckdb); its queries must give what `summary --json`
# of the same merge says:
#   - CPU seconds per host (run.per_host[].cpu_s) and in total,
#   - the top tool by CPU (run.top[0]),
#   - processes per host and in total;
# and the export itself:
#   - every host's rows are byte for byte `export --fleet` of its own trace;
#   - (boot_id, id) is unique; start_epoch_ns is start_utc, exactly;
#   - two overlapping traces of one host (tests/data multi-basic.tz) write a
#     process once: the rows are summary's processes (counted_once left out).
# Skips (77) only when node is missing or the npm registry cannot be reached.
. "$(dirname "$0")/lib.sh"
need_hosts
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "SKIP: node/npm missing (scripts/deps.sh --test installs nodejs)"; exit 77; }

# DuckDB for node, pinned; a run that finds it installed needs no network
DK=/var/cache/tracer-test-duckdb
DKV=1.5.6-r.1
DKM=$DK/node_modules/@duckdb/node-api
if ! grep -q "\"version\": \"$DKV\"" "$DKM/package.json" 2>/dev/null; then
	mkdir -p "$DK"
	if ! timeout 300 flock "$DK.lock" npm install --prefix "$DK" --no-audit --no-fund \
		--no-save "@duckdb/node-api@$DKV" >npm.log 2>&1; then
		if ! timeout 30 npm ping >/dev/null 2>&1; then
			echo "SKIP: the npm registry is unreachable (npm ping failed): no @duckdb/node-api"
			exit 77
		fi
		cat npm.log >&2
		fail "npm install @duckdb/node-api@$DKV"
	fi
fi

# three hosts with different work
host_record node1 a.tz sh -c 'seq 300000 | sort -rn >/dev/null; seq 100000 | sort >/dev/null'
host_record node2 b.tz sh -c 'for i in 1 2 3; do ls / >/dev/null; done; /bin/false; true'
host_record node3 c.tz sh -c 'seq 20000 | sort >/dev/null; head -c 100000 /dev/zero | wc -c >/dev/null'
"$A" merge -o run.tz a.tz b.tz c.tz || fail merge
"$A" summary --json run.tz >sum.json || fail "summary of the merge"
timeout 120 "$A" export --format jsonl -o run.jsonl.zst run.tz || fail "export jsonl.zst"
timeout 120 "$A" export --format csv -o run.csv.gz run.tz || fail "export csv.gz"
zstd -t -q run.jsonl.zst || fail "run.jsonl.zst is not a zstd stream"
gzip -t run.csv.gz || fail "run.csv.gz is not a gzip stream"

# each host's rows: export --fleet of its own trace, in host order
for f in a b c; do "$A" export --format jsonl --fleet $f.tz >>own.jsonl; done
zstd -dc run.jsonl.zst | cmp - own.jsonl || fail "the merge's rows differ from the hosts' own"
"$A" export --format csv --fleet a.tz >own.csv
for f in b c; do "$A" export --format csv --fleet $f.tz | tail -n +2 >>own.csv; done
gzip -dc run.csv.gz | cmp - own.csv || fail "the merge's csv rows differ from the hosts' own"
# several files and the merge give the same stream
"$A" export --format jsonl a.tz b.tz c.tz | cmp - own.jsonl || fail "files and merge differ"

# DuckDB: the three questions, from the jsonl and from the csv
cat >q.js <<'JS'
const { DuckDBInstance } = require(process.argv[2]);
const q = (src, tool, cpu) => ({
  per_host: `select host, count(*)::BIGINT as n, sum(${cpu})::BIGINT as cpu_ns
             from ${src} group by host order by host`,
  total: `select count(*)::BIGINT as n, sum(${cpu})::BIGINT as cpu_ns from ${src}`,
  top: `select ${tool} as tool, sum(${cpu})::BIGINT as cpu_ns from ${src}
        group by ${tool} order by cpu_ns desc, ${tool} limit 1`,
  ids: `select count(*)::BIGINT as n, count(distinct boot_id || '/' || id)::BIGINT as u,
        count(distinct trace_uuid)::BIGINT as traces from ${src}`,
});
// whole-life self CPU of an ended process (null: still running, exit lost)
const cpu = "coalesce(round(utime_s * 1e9), 0) + coalesce(round(stime_s * 1e9), 0)";
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const out = {};
  for (const [name, src, tool] of [
      ["jsonl", "read_json_auto('run.jsonl.zst')", "tool"],
      ["csv", `read_csv('run.csv.gz', header = true, types = {'id': 'VARCHAR', 'parent_id': 'VARCHAR',
             'boot_id': 'VARCHAR', 'trace_uuid': 'VARCHAR', 'start_epoch_ns': 'BIGINT'})`, "name"]]) {
    out[name] = {};
    for (const [k, sql] of Object.entries(q(src, tool, cpu)))
      out[name][k] = (await c.runAndReadAll(sql)).getRowObjectsJson();
  }
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e.message); process.exit(1); });
JS
timeout 120 node q.js "$DKM" >duck.json || fail "DuckDB queries"

python3 - <<'PY' || fail "DuckDB's answers differ from summary --json"
import json, calendar
run = json.load(open("sum.json"))["run"]
duck = json.load(open("duck.json"))
ns = lambda s: round(s * 1e9)
for fmt, d in duck.items():
    # jsonl's seconds have 9 decimals (exact ns), csv's utime_s/stime_s 6
    tol = 1 if fmt == "jsonl" else 1000 * run["processes"]
    per = {r["host"]: r for r in d["per_host"]}
    assert sorted(per) == ["node1", "node2", "node3"], (fmt, sorted(per))
    for h in run["per_host"]:
        r = per[h["hostname"]]
        assert int(r["n"]) == h["processes"], (fmt, h["hostname"], r, h["processes"])
        assert abs(int(r["cpu_ns"]) - ns(h["cpu_s"])) <= tol, (fmt, h["hostname"], r, h["cpu_s"])
    t = d["total"][0]
    assert int(t["n"]) == run["processes"], (fmt, t, run["processes"])
    assert abs(int(t["cpu_ns"]) - ns(run["cpu_s"])) <= tol, (fmt, t, run["cpu_s"])
    top = d["top"][0]
    assert top["tool"] == run["top"][0]["key"], (fmt, top, run["top"][0])
    assert abs(int(top["cpu_ns"]) - ns(run["top"][0]["cpu_s"])) <= tol, (fmt, top)
    assert int(top["cpu_ns"]) > 0, (fmt, top)
    i = d["ids"][0]
    assert int(i["n"]) == int(i["u"]) and int(i["traces"]) == 3, (fmt, i)
# the absolute times: start_epoch_ns is start_utc exactly; the fleet's ids
import subprocess
rows = [json.loads(l) for l in subprocess.run(["zstd", "-dc", "run.jsonl.zst"],
        capture_output=True, check=True).stdout.splitlines()]
for p in rows:
    u = p["start_utc"]
    sec = calendar.timegm(__import__("time").strptime(u[:19], "%Y-%m-%dT%H:%M:%S"))
    assert sec * 10**9 + int(u[20:29]) == p["start_epoch_ns"], p["id"]
    assert len(p["boot_id"]) == 32 and len(p["trace_uuid"]) == 32, p["id"]
    assert (p["end_epoch_ns"] is None) == (p["end_s"] is None), p["id"]
assert len({p["boot_id"] for p in rows}) == 1  # one machine: simulated hosts
PY

# two overlapping traces of one host: a process in both is written once
M=$TESTS_DIR/data/conformance/multi-basic.tz
"$A" summary --json "$M" >mb.json 2>/dev/null || fail "summary of multi-basic"
"$A" export --format jsonl "$M" >mb.jsonl 2>mb.err || fail "export of multi-basic: $(cat mb.err)"
grep -q "were recorded on one host (same boot id) at overlapping times" mb.err ||
	fail "overlap not named: $(cat mb.err)"
python3 - <<'PY' || fail "overlapping traces: a process exported twice"
import json
run = json.load(open("mb.json"))["run"]
rows = [json.loads(l) for l in open("mb.jsonl")]
assert run["counted_once"] > 0, run
assert len(rows) == run["processes"], (len(rows), run["processes"])
assert len({(p["boot_id"], p["id"]) for p in rows}) == len(rows)
PY
# chrome over several hosts: one line, exit 2
rc=0; "$A" export --format chrome run.tz >/dev/null 2>ch.err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <ch.err)" = 1 ] || fail "chrome over hosts: rc $rc $(cat ch.err)"
# an existing OUT is refused without --force, and kept
rc=0; "$A" export --format jsonl -o run.jsonl.zst run.tz 2>ex.err || rc=$?
[ $rc = 1 ] && grep -q "file exists" ex.err && zstd -t -q run.jsonl.zst || fail "existing OUT: rc $rc"
echo "ok: 3 hosts merged, exported (jsonl.zst, csv.gz) and queried in DuckDB as summary says"
