#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21: slice, diff and bundle read a run on several hosts (a merge, a
# directory) as they read one trace. Three "hosts" (UTS namespaces with their own
# hostnames; simulated: one machine, one boot id) record at the same time,
# each starting a little after the other, so that a window cuts all three.
#   - slice of the merge, whole: every host, each member what slice of that
#     host's own file writes (cat of the events equal); the run's processes
#     and CPU are the merge's;
#   - slice with --from/--to from the run's start: each member equals the
#     single-trace slice of its host over the same wall-clock window, each
#     converted independently here from the host's own first event
#     (info --json first_wall/first_ts_ns); a host that begins after the
#     window, or ends before it, is left out with a note; a window holding
#     nothing on any host is refused; OUT is never the file read (a member's
#     run included), nor a FIFO; malformed or out-of-range times are refused;
#   - diff of two runs on several hosts: each group's processes and CPU are
#     the sums of the hosts' exports; a merge against the directory of its
#     files differs in nothing; a process held by two overlapping traces of
#     one host (a whole-machine recording and a command inside it) counts
#     once, as the union of their exports by (pid, start) says;
#   - bundle of the run holds the merge byte for byte and the run's reports,
#     reads in place as the run; --redact rewrites each member exactly as
#     the redacted bundle of that host's own trace, without source paths.
. "$(dirname "$0")/lib.sh"
need_hosts mkfifo tar

# three recorders at once; each host's command waits for the go file, so the
# three recordings overlap however slowly the recorders start
work='while [ ! -e go ]; do sleep 0.05; done; sleep "$1"; for i in 1 2 3 4 5 6; do seq 3000 | sort -rn >/dev/null; sleep 0.15; done'
pids=()
for n in 1 2 3; do
	timeout -k 5 "$REC_TIMEOUT" unshare -u sh -c 'hostname "$0" && exec "$@"' \
		"node$n" "$R" -v -o "h$n.tz" -- sh -c "$work" sh "$((n / 2)).$((n % 2 * 5))" 2>"rec$n.err" &
	pids+=($!)
	bg_track $!
done
for n in 1 2 3; do
	for _ in $(seq 600); do grep -q "^tracer-record: recording to" "rec$n.err" && break; sleep 0.1; done
done
touch go
for n in 0 1 2; do wait "${pids[$n]}" || fail "recording node$((n + 1)): $(cat rec$((n + 1)).err)"; done

"$A" merge -o run.tz h1.tz h2.tz h3.tz 2>/dev/null || fail merge

# the whole run: every member what slice of its host writes
"$A" slice run.tz all.tz 2>all.err || fail "slice of the merge: $(cat all.err)"
grep -qx "tracer-analyze: 'all.tz': 3 hosts of 3" all.err || fail "slice said: $(cat all.err)"
for n in 1 2 3; do
	"$A" slice "h$n.tz" "one$n.tz" 2>/dev/null || fail "slice h$n.tz"
	cmp -s <("$A" cat "one$n.tz") <("$A" cat "all.tz[$((n - 1))]") ||
		fail "member $((n - 1)) of the whole slice differs from slice h$n.tz"
done
"$A" summary --json run.tz >run.json && "$A" summary --json all.tz >all.json || fail "summary"
python3 - <<'PY' || fail "the whole slice's totals differ from the merge's"
import json
a, b = json.load(open("run.json"))["run"], json.load(open("all.json"))["run"]
assert a["processes"] == b["processes"] and a["processes"] > 30, (a["processes"], b["processes"])
assert abs(a["cpu_s"] - b["cpu_s"]) < 1e-6, (a["cpu_s"], b["cpu_s"])
assert [h["hostname"] for h in b["per_host"]] == ["node1", "node2", "node3"]
PY

# a window from the run's start, converted here host by host
for n in 1 2 3; do "$A" info --json "h$n.tz" >"i$n.json"; done
python3 - <<'PY' >win.sh || fail "the window"
import json, re
def wall_ns(s):  # 2026-12-02T06:08:04.099244327Z, exactly
    import calendar
    m = re.fullmatch(r"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d{9})Z", s)
    y, mo, d, h, mi, se, ns = map(int, m.groups())
    return calendar.timegm((y, mo, d, h, mi, se)) * 10**9 + ns
info = [json.load(open("i%d.json" % n)) for n in (1, 2, 3)]
first = [wall_ns(i["first_wall"]) for i in info]
last = [wall_ns(i["last_wall"]) for i in info]
run0 = min(first)
# from: just after the last host's first event; to: before the first host ends
frm = max(first) + 100_000_000 - run0
to = min(last) - 100_000_000 - run0
assert to > frm, (frm, to)
print("FROM=%dns TO=%dns" % (frm, to))
for n in range(3):
    # that window in host n's own clock, as single-trace slice takes it
    print("F%d=%dns T%d=%dns" % (n + 1, run0 + frm - first[n], n + 1, run0 + to - first[n]))
# a window after the host that ended first ended, while the others run on
# (50 ms after its last event: info's wall times interpolate between the
# recording's clock anchors, slice converts as one trace's slice does, by the
# offset at the first event; the two differ by the drift, microseconds)
k = last.index(min(last))
gap = sorted(last)[1] - last[k]
print("LATE=%dns LATE_HOST=%d LATE_GAP_MS=%d" % (last[k] + 50_000_000 - run0, k, gap // 10**6))
# a window of 1 ns at the run's start: the hosts whose first event is later
print("EARLY_KEPT=%d" % first.index(run0))
PY
. ./win.sh
"$A" slice --from "$FROM" --to "$TO" run.tz w.tz 2>w.err || fail "slice --from --to of the merge: $(cat w.err)"
"$A" info --json w.tz | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["slice_of"] == "run.tz" and int(d["slice_to_real_ns"]) > int(d["slice_from_real_ns"]) > 0, d
assert "recovered_from" not in d' || fail "info of the slice: its slice_of and window"
[ "$("$A" info --json w.tz | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))')" = 3 ] ||
	fail "the window misses a host: $(cat w.err)"
for n in 1 2 3; do
	eval "f=\$F$n t=\$T$n"
	"$A" slice --from "$f" --to "$t" "h$n.tz" "w$n.tz" 2>/dev/null || fail "slice of h$n.tz over its window"
	cmp -s <("$A" cat "w$n.tz") <("$A" cat "w.tz[$((n - 1))]") ||
		fail "member $((n - 1)) differs from slice of h$n.tz over the same wall-clock window"
	[ "$("$A" info --json "w.tz[$((n - 1))]" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["slice_of"])')" = "run.tz[$((n - 1))]" ] ||
		fail "member $((n - 1)): slice_of"
done
# a host that ended before the window: left out, named
# (the hosts' work ends 0.5 s apart by design; a loaded machine may undo it)
if [ "$LATE_GAP_MS" -lt 100 ]; then
	echo "note: the first host to end ended ${LATE_GAP_MS} ms before the next: the late window is not tried"
else
"$A" slice --from "$LATE" run.tz late.tz 2>late.err || fail "slice --from LATE: $(cat late.err)"
grep -q "^tracer-analyze: slice: 'run.tz\[$LATE_HOST\]', host node$((LATE_HOST + 1)): ends before the window; left out" late.err ||
	fail "node$((LATE_HOST + 1)) after its end: $(cat late.err)"
want=$(for n in 0 1 2; do [ $n = "$LATE_HOST" ] || echo "node$((n + 1))"; done | paste -sd,)
[ "$("$A" info --json late.tz | python3 -c 'import json,sys; print(",".join(m["hostname"] for m in json.load(sys.stdin)["members"]))')" = "$want" ] ||
	fail "late.tz members: want $want"
fi
# hosts that begin after the window: left out, named
"$A" slice --to 1ns run.tz early.tz 2>early.err || fail "slice --to 1ns: $(cat early.err)"
[ "$(grep -c "begins after the window; left out" early.err)" = 2 ] &&
	! grep -q "'run.tz\[$EARLY_KEPT\]', host" early.err || fail "early: $(cat early.err)"
[ "$("$A" info --json early.tz | python3 -c 'import json,sys; print([m["hostname"] for m in json.load(sys.stdin)["members"]])')" = "['node$((EARLY_KEPT + 1))']" ] ||
	fail "early.tz members"
# nothing anywhere: refused, nothing written; OUT never an input; bad times
rc=0; "$A" slice --from 1h run.tz none.tz 2>none.err || rc=$?
[ $rc = 1 ] && [ ! -e none.tz ] && grep -q "nothing in the window on any host" none.err || fail "empty window: rc $rc $(cat none.err)"
cp run.tz keep.tz
for args in "run.tz run.tz" "run.tz[0] run.tz" "h1.tz h1.tz"; do
	set -- $args
	rc=0; "$A" slice -f "$1" "$2" 2>self.err || rc=$?
	[ $rc = 1 ] && grep -qF "is the file '$1' is read from" self.err || fail "slice -f $1 $2: rc $rc $(cat self.err)"
	rc=0; "$A" recover -f "$1" "$2" >/dev/null 2>self.err || rc=$?
	[ $rc = 1 ] && grep -qF "is the file '$1' is read from" self.err || fail "recover -f $1 $2: rc $rc $(cat self.err)"
done
cmp -s run.tz keep.tz || fail "run.tz changed by a refused slice or recover"
mkfifo ff.tz
for c in slice recover; do
	rc=0; timeout 20 "$A" $c -f run.tz ff.tz >/dev/null 2>ff.err || rc=$?
	[ $rc = 1 ] && [ "$(cat ff.err)" = "tracer-analyze: 'ff.tz': not a regular file" ] || fail "$c to a FIFO: rc $rc $(cat ff.err)"
done
# the widest wall-clock window there is: every host, whole (no overflow)
"$A" slice --from 1678-01-01T00:00:01Z --to 2262-04-10T00:00:00Z run.tz wide.tz 2>wide.err ||
	fail "the widest window: $(cat wide.err)"
grep -qx "tracer-analyze: 'wide.tz': 3 hosts of 3" wide.err || fail "the widest window: $(cat wide.err)"
for t in nan inf 1e3 2300-01-01T00:00:00Z; do
	rc=0; "$A" slice --from "$t" run.tz x.tz 2>bad.err || rc=$?
	[ $rc = 2 ] && [ ! -e x.tz ] || fail "--from $t: rc $rc $(cat bad.err)"
done
rc=0; "$A" slice --from 2s --to 1s run.tz x.tz 2>bad.err || rc=$?
[ $rc = 2 ] && grep -q "before --from" bad.err && [ ! -e x.tz ] || fail "--to before --from: rc $rc $(cat bad.err)"
rc=0; "$A" slice run.tz all.tz 2>ex.err || rc=$?
[ $rc = 1 ] && grep -q "file exists" ex.err || fail "OUT exists: rc $rc $(cat ex.err)"
ls -a | grep -q '^\.all\.tz\.slice' && fail "a hidden part file was left beside OUT"

# diff: a run on several hosts against itself, its directory, another run
mkdir d && cp h1.tz h2.tz h3.tz d/
"$A" diff --json -n 0 run.tz d >self.json || fail "diff run.tz d"
"$A" diff --json -n 0 run.tz w.tz >dw.json || fail "diff run.tz w.tz"
for n in 1 2 3; do "$A" export --format jsonl "h$n.tz" >"h$n.jsonl"; done
python3 - <<'PY' || fail "diff over hosts differs from the exports"
import json, collections
procs = [json.loads(l) for n in (1, 2, 3) for l in open("h%d.jsonl" % n)]
count, cpu = collections.Counter(), collections.Counter()
for p in procs:
    count[p["tool"]] += 1
    cpu[p["tool"]] += (p["utime_s"] or 0) + (p["stime_s"] or 0)
d = json.load(open("self.json"))
assert d["multi_host"] is True and d["hosts_a"] == 3 and d["hosts_b"] == 3, d
assert d["traces_a"] == 3 and d["traces_b"] == 3, d
assert d["makespan_a_s"] == d["makespan_b_s"] > 0
g = {r["tool"]: r for r in d["groups"]}
assert set(g) == set(count), (set(g), set(count))
for t, r in g.items():
    assert r["in"] == "both" and r["count_a"] == r["count_b"] == count[t], (t, r, count[t])
    assert abs(r["cpu_a_s"] - cpu[t]) < 1e-6 * (count[t] + 1), (t, r["cpu_a_s"], cpu[t])
    assert r["cpu_a_s"] == r["cpu_b_s"] and r["wall_a_s"] == r["wall_b_s"]
w = json.load(open("dw.json"))
assert w["hosts_b"] == 3 and w["makespan_b_s"] <= w["makespan_a_s"]
assert sum(r["count_b"] for r in w["groups"]) < sum(r["count_a"] for r in w["groups"])
PY
"$A" diff run.tz w.tz >dw.txt || fail "diff text"
grep -q "^A: run.tz (3 hosts, makespan " dw.txt && grep -q "^B: w.tz (3 hosts, makespan " dw.txt ||
	fail "diff text head: $(head -2 dw.txt)"
# two traces of one host at once: a process in both counts once
record_overlap whole.tz cmd.tz sh -c 'seq 2000 | sort >/dev/null; ls / >/dev/null'
mkdir ov && cp whole.tz cmd.tz ov/
"$A" diff --json -n 0 whole.tz ov >ov.json 2>ov.err || fail "diff whole ov: $(cat ov.err)"
"$A" diff -n 0 whole.tz ov >ov.txt 2>ov.err || fail "diff whole ov (text): $(cat ov.err)"
grep -q "^B: ov (2 traces on 1 host, makespan " ov.txt || fail "diff text, 2 traces of 1 host: $(head -2 ov.txt)"
"$A" export --format jsonl whole.tz >whole.jsonl && "$A" export --format jsonl cmd.tz >cmd.jsonl ||
	fail "exports"
python3 - <<'PY' || fail "overlapping traces in diff: a process counted twice"
import json, collections
def procs(f):
    return {p["id"]: p for p in map(json.loads, open(f))}
w, c = procs("whole.jsonl"), procs("cmd.jsonl")
shared = set(w) & set(c)
assert len(shared) >= 3, ("the command's processes are not in the -a trace", len(shared))
union = dict(c)
union.update(w)
want_a, want_b = collections.Counter(p["tool"] for p in w.values()), collections.Counter(p["tool"] for p in union.values())
d = json.load(open("ov.json"))
# two traces of one host: one host, two traces
assert d["hosts_a"] == 1 and d["hosts_b"] == 1 and d["traces_a"] == 1 and d["traces_b"] == 2, d
got_a = {r["tool"]: r["count_a"] for r in d["groups"] if r["count_a"]}
got_b = {r["tool"]: r["count_b"] for r in d["groups"] if r["count_b"]}
assert got_a == dict(want_a), (got_a, want_a)
assert got_b == dict(want_b), (got_b, want_b)
PY
# bundle of the run: trace.tz is the merge, the reports the run's; read in
# place as the run; --redact rewrites every member as one trace's bundle does
"$A" bundle --no-plots run.tz -o b.tgz 2>b.err || fail "bundle run.tz: $(cat b.err)"
mkdir bx && tar xzf b.tgz -C bx || fail "tar of the bundle"
cmp -s bx/b/trace.tz run.tz || fail "the bundle's trace.tz is not run.tz byte for byte"
"$A" summary --json b.tgz >bs.json || fail "summary of the bundle"
python3 - <<'PY' || fail "the bundle's summaries differ from the run's"
import json
a, b, c = json.load(open("run.json"))["run"], json.load(open("bs.json"))["run"], json.load(open("bx/b/summary.json"))["run"]
for x in (b, c):
    assert x["processes"] == a["processes"] and x["cpu_s"] == a["cpu_s"], (x["processes"], a["processes"])
    assert [h["hostname"] for h in x["per_host"]] == ["node1", "node2", "node3"]
PY
cmp -s <("$A" tree 'b.tgz[1]') <("$A" tree h2.tz) || fail "tree of the bundle's member 1 differs from tree h2.tz"
"$A" bundle --no-plots d -o bd.tgz 2>/dev/null || fail "bundle of a directory"
[ "$("$A" info --json bd.tgz | python3 -c 'import json,sys; print(",".join("/".join(m["source"].split("/")[-2:]) for m in json.load(sys.stdin)["members"]))')" = d/h1.tz,d/h2.tz,d/h3.tz ] ||
	fail "bundle of a directory: its trace is not the merge of d"
"$A" bundle --no-plots --redact run.tz -o br.tgz 2>/dev/null || fail "bundle --redact run.tz"
for n in 1 2 3; do
	"$A" bundle --no-plots --redact "h$n.tz" -o "br$n.tgz" 2>/dev/null || fail "bundle --redact h$n.tz"
	cmp -s <("$A" cat "br.tgz[$((n - 1))]") <("$A" cat "br$n.tgz") ||
		fail "redacted member $((n - 1)) differs from the redacted bundle of h$n.tz"
done
[ "$("$A" info --json br.tgz | python3 -c 'import json,sys; print([m["source"] for m in json.load(sys.stdin)["members"]])')" = "['', '', '']" ] ||
	fail "a redacted bundle keeps the members' source paths"
# a hostname the patterns mask is masked in the MEMBER blocks too
"$A" bundle --no-plots --redact-pattern 'node([0-9])' run.tz -o bh.tgz 2>/dev/null || fail "bundle --redact-pattern"
[ "$("$A" info --json bh.tgz | python3 -c 'import json,sys; print(",".join(m["hostname"] for m in json.load(sys.stdin)["members"]))')" = "node*,node*,node*" ] ||
	fail "a masked hostname is kept in the redacted bundle's members: $("$A" info bh.tgz | grep '^member')"
echo "ok: slice of a merge = its hosts' slices over one wall-clock window; diff of runs on several hosts = the sums of their exports, overlaps once; bundle of a run = its merge and reports, redacted member by member"
