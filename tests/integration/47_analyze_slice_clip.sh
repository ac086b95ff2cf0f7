#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# slice clips (issue 15 point 9): processes crossing the window's edges are
# charged only their wall time and their CPU/I/O inside it, from samples
# where present, else pro-rata; an empty window is refused unless
# --allow-empty.
#
# 1. Synthetic (test_model --write clip.tz; exact values): in 0..12 s, burn
#    uses one core 0..10 s (samples each second, rchar 1 MB/s), nosample 4 s
#    of CPU over 0..10 s (no samples), half half a core from 1 s on, still
#    running at the end (samples from 2 s), under a root shell. The slice
#    2..5 s charges each 3 s of wall; CPU 3 s, 1.2 s (4 x 3/10) and 1.5 s.
# 2. A real recording (root): one thread burning CPU for 3 s, samples every
#    0.1 s; the slice from 1 s to 2 s charges it 1 s of wall and the CPU its
#    own samples in the original say it used between 1 s and 2 s.
# 3. A real recording (root): a process burning 2 s, exec'ing into one
#    burning 1 s; a slice from 1.05 s to past its exit charges it its final
#    CPU (release) less its samples' at --from, and its exec'd image the CPU
#    it had in the original (exit, release and exec rebased alike).
. "$(dirname "$0")/synthlib.sh"

timeout 60 "$A" slice --from 2 --to 5 "$tmp/clip.tz" "$tmp/c.tz" 2>"$tmp/slice.err" || bad "slice 2..5"
# its count is what the file holds (info's), its parts add up to it
timeout 60 "$A" info --json "$tmp/c.tz" >"$tmp/c.info" || bad "info"
python3 - "$tmp/slice.err" "$tmp/c.info" <<'EOF' || bad "slice's count: $(cat "$tmp/slice.err")"
import json, re, sys
m = re.search(r": (\d+) events? written: (\d+) in the window, (\d+) process(?:es)? alive at the start, "
              r"(\d+) end samples?, (\d+) more", open(sys.argv[1]).read())
assert m, "no count line"
n = [int(x) for x in m.groups()]
info = json.load(open(sys.argv[2]))["events"]
assert n[0] == info and sum(n[1:]) == n[0] and n[1] > 0 and n[2] > 0, (n, info)
print("ok   slice's count: %d events, info's %d" % (n[0], info))
EOF
timeout 60 "$A" top --json "$tmp/c.tz" >"$tmp/top.json" || bad "top"
timeout 60 "$A" summary --json "$tmp/c.tz" >"$tmp/sum.json" || bad "summary"
timeout 60 "$A" export --format jsonl --samples "$tmp/c.tz" >"$tmp/c.jsonl" || bad "export"
python3 - "$tmp/top.json" "$tmp/sum.json" "$tmp/c.jsonl" <<'EOF' || bad "synthetic clipping"
import json, sys
top = {g["tool"]: g for g in json.load(open(sys.argv[1]))}
s = json.load(open(sys.argv[2]))
procs = {json.loads(l)["pid"]: json.loads(l) for l in open(sys.argv[3])}
want = {"burn": 3.0, "nosample": 1.2, "half": 1.5, "clip.sh": 0.0}
for tool, cpu in want.items():
    g = top[tool]
    assert abs(g["wall_s"] - 3) < 1e-6, (tool, g)
    assert abs(g["cpu_s"] - cpu) < 1e-6, (tool, g, cpu)
assert abs(s["cpu"]["cpu_s"] - 5.7) < 1e-6 and abs(s["cpu"]["utilisation"] - 0.95) < 1e-6, s["cpu"]
# burn's samples count from the window's start: rchar 1 MB/s from 0 at 2 s
smp = procs[300]["samples"]
assert smp and smp[0]["t_s"] == 0 and smp[0]["utime_s"] == 0, smp[:2]
assert abs(smp[-1]["utime_s"] - 3) < 1e-6, smp[-1]
print("ok   synthetic: wall 3 s each, CPU 3 / 1.2 / 1.5 s, utilisation 0.95")
EOF
# the sample at --to says what is known: nosample (no sample by 5 s) has an
# unknown RSS ("-", null), never an invented 0; half's is its last sample's
timeout 60 "$A" tree "$tmp/c.tz" >"$tmp/tree.txt" || bad "tree"
timeout 60 "$A" export --format jsonl --samples "$tmp/clip.tz" >"$tmp/clip.jsonl" || bad "export clip"
python3 - "$tmp/top.json" "$tmp/tree.txt" "$tmp/clip.jsonl" "$tmp/sum.json" <<'EOF' || bad "RSS at --to"
import json, sys
top = {g["tool"]: g for g in json.load(open(sys.argv[1]))}
assert top["nosample"]["peak_rss_kib"] is None, top["nosample"]
tools = {g["tool"]: g for g in json.load(open(sys.argv[4]))["top_tools"]}
assert tools["nosample"]["peak_rss_kib"] is None, tools["nosample"]
line = [l for l in open(sys.argv[2]) if " nosample" in l][0]
assert line.rstrip().endswith(" rss -"), line  # unknown: no "(to its last sample)"
orig = {json.loads(l)["comm"]: json.loads(l) for l in open(sys.argv[3])}
last = [s for s in orig["half"]["samples"] if s["t_s"] <= 5 + 1e-9]
win = [s["rss_kib"] for s in last if s["t_s"] >= 2 - 1e-9] + [last[-1]["rss_kib"]]
assert last and top["half"]["peak_rss_kib"] == max(win) > 0, (top["half"], last[-1])
print(f"ok   RSS at --to: nosample unknown, half {top['half']['peak_rss_kib']} KiB as its samples")
EOF
# a slice of the slice (3..4 s of the recording): clipped again, from its start
timeout 60 "$A" slice --from 1 --to 2 "$tmp/c.tz" "$tmp/cc.tz" 2>/dev/null || bad "slice of a slice"
python3 - <<EOF || bad "slice of a slice"
import json, subprocess
top = {g["tool"]: g for g in json.loads(subprocess.check_output(["$A", "top", "--json", "$tmp/cc.tz"]))}
for tool, cpu in {"burn": 1.0, "nosample": 0.4, "half": 0.5}.items():
    assert abs(top[tool]["wall_s"] - 1) < 1e-6 and abs(top[tool]["cpu_s"] - cpu) < 1e-6, top[tool]
print("ok   slice of a slice: wall 1 s each, CPU 1 / 0.4 / 0.5 s")
EOF
# the whole trace as a slice: nothing clipped
timeout 60 "$A" slice "$tmp/clip.tz" "$tmp/all.tz" 2>/dev/null || bad "slice whole"
python3 - <<EOF || bad "whole slice"
import json, subprocess
top = {g["tool"]: g for g in json.loads(subprocess.check_output(["$A", "top", "--json", "$tmp/all.tz"]))}
assert abs(top["burn"]["cpu_s"] - 10) < 1e-5 and abs(top["burn"]["wall_s"] - 10) < 1e-5, top["burn"]
print("ok   whole slice: burn 10 s of CPU in 10 s")
EOF
# empty windows
rc=0
timeout 60 "$A" slice --from 20 --to 21 "$tmp/clip.tz" "$tmp/e.tz" 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || bad "empty window: exit $rc"
[ ! -e "$tmp/e.tz" ] || bad "empty window: file written"
grep -q "^tracer-analyze: '.*clip.tz': slice: nothing between --from 20.000s and --to 21.000s" "$tmp/err" ||
	bad "empty window message: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" = 1 ] || bad "empty window: not one line"
timeout 60 "$A" slice --allow-empty --from 20 --to 21 "$tmp/clip.tz" "$tmp/e.tz" 2>/dev/null ||
	bad "--allow-empty"
[ -s "$tmp/e.tz" ] || bad "--allow-empty wrote nothing"
[ $fails = 0 ] && echo "ok   empty window refused, --allow-empty writes it"

# a real recording
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && [ -n "${TRACER_RECORD:-}" ] &&
	[ -x "${TESTS_HELPERS:-}/recwork" ]; then
	timeout -k 5 120 "$TRACER_RECORD" -o "$tmp/real.tz" --sample-interval 0.1 -- \
		"$TESTS_HELPERS/recwork" burn 3 1 2>"$tmp/rec.err" || { cat "$tmp/rec.err"; bad "record"; }
	timeout 60 "$A" export --format jsonl --samples "$tmp/real.tz" >"$tmp/real.jsonl" || bad "export real"
	python3 - "$tmp/real.jsonl" >"$tmp/win" <<'EOF' || bad "real: no window"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["comm"] == "recwork"][0]
a = p["start_s"] + 1
print(f"{a:.6f} {a + 1:.6f}")
EOF
	read -r from to <"$tmp/win"
	timeout 60 "$A" slice --from "$from" --to "$to" "$tmp/real.tz" "$tmp/rs.tz" 2>/dev/null || bad "slice real"
	timeout 60 "$A" top --json "$tmp/rs.tz" >"$tmp/rtop.json" || bad "top real"
	python3 - "$tmp/real.jsonl" "$tmp/rtop.json" "$from" "$to" <<'EOF' || bad "real clipping"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["comm"] == "recwork"][0]
g = [x for x in json.load(open(sys.argv[2])) if x["tool"] == "recwork"][0]
a, b = float(sys.argv[3]), float(sys.argv[4])
pts = [(p["start_s"], 0.0)] + [(s["t_s"], s["utime_s"] + s["stime_s"]) for s in p["samples"]]
pts.append((p["end_s"], p["utime_s"] + p["stime_s"]))
def at(t):
    for (t0, c0), (t1, c1) in zip(pts, pts[1:]):
        if t <= t1:
            return c0 if t1 <= t0 else c0 + (max(c1, c0) - c0) * (t - t0) / (t1 - t0)
    return pts[-1][1]
want = at(b) - at(a)
print(f"ok   real: wall {g['wall_s']} s, CPU {g['cpu_s']:.4f} s (its samples: {want:.4f} s)")
assert abs(g["wall_s"] - 1) < 1e-5, g
assert abs(g["cpu_s"] - want) < 0.002, (g, want)
EOF
	# a process crossing --from that execs and exits inside the window: every
	# event carrying its cumulative counters (exec's CPU before it, exit,
	# release, samples) counts from --from. Truth: the original's own
	# counters, its samples at --from (every 0.1 s) and its final CPU (the
	# release's, what wait4 reported) at the end.
	timeout -k 5 120 "$TRACER_RECORD" -o "$tmp/rx.tz" --sample-interval 0.1 -- \
		"$TESTS_HELPERS/recwork" burnexec 2 1 "$TESTS_HELPERS/recwork" burn 1 1 \
		2>"$tmp/rec.err" || { cat "$tmp/rec.err"; bad "record burnexec"; }
	timeout 60 "$A" export --format jsonl --samples "$tmp/rx.tz" >"$tmp/rx.jsonl" || bad "export rx"
	read -r from to < <(python3 - "$tmp/rx.jsonl" <<'EOF'
import json, sys
p = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["comm"] == "recwork"][0]
print(f"{p['start_s'] + 1.05:.6f} {p['end_s'] + 0.5:.6f}")
EOF
)
	timeout 60 "$A" slice --from "$from" --to "$to" "$tmp/rx.tz" "$tmp/rxs.tz" 2>/dev/null ||
		bad "slice rx"
	timeout 60 "$A" export --format jsonl "$tmp/rxs.tz" >"$tmp/rxs.jsonl" || bad "export rxs"
	timeout 60 "$A" top --json "$tmp/rxs.tz" >"$tmp/rxtop.json" || bad "top rxs"
	python3 - "$tmp/rx.jsonl" "$tmp/rxs.jsonl" "$tmp/rxtop.json" "$from" <<'EOF' || bad "real clipping: exit, release and exec inside the window"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["comm"] == "recwork"][0]
q = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["pid"] == p["pid"]][0]
g = [x for x in json.load(open(sys.argv[3])) if x["tool"] == "recwork"][0]
a = float(sys.argv[4])
smp = [(s["t_s"], s["utime_s"] + s["stime_s"]) for s in p["samples"]]
pts = [(p["start_s"], 0.0)] + smp
at_a = None
for (t0, c0), (t1, c1) in zip(pts, pts[1:]):
    if t0 <= a <= t1:
        at_a = c0 + (max(c1, c0) - c0) * (a - t0) / (t1 - t0) if t1 > t0 else c1
        gap = t1 - t0
        break
assert at_a is not None, ("no samples around --from", a, smp[:3])
final = p["utime_s"] + p["stime_s"]  # the original's: release, else exit
assert p.get("cpu_final", True), p
want = final - at_a
got = q["utime_s"] + q["stime_s"]
# interpolation between two samples 0.1 s apart of a process burning one
# core: off by no more than what one sample interval can hold
tol = max(0.02, gap * 0.2)
assert abs(got - want) < tol, (got, want, tol)
assert abs(g["cpu_s"] - got) < 1e-6, (g, got)
print(f"ok   real, exit inside: CPU {got:.4f} s (its own counters: {final:.4f} - {at_a:.4f} = {want:.4f} s)")
# the image exec'd inside the window: its CPU the same in the slice as in
# the original (its CPU before the exec rebased like the totals)
assert len(p["execs"]) == 2 and len(q["execs"]) >= 2, (p["execs"], q["execs"])
po, qo = p["execs"][-1]["cpu_s"], q["execs"][-1]["cpu_s"]
assert po is not None and qo is not None and abs(po - qo) < 1e-6, (po, qo)
print(f"ok   real, exec inside: its last image's CPU {qo:.4f} s as in the original")
EOF
else
	echo "skip real recording: needs root, BTF and the recorder"
fi
# a wrapped ring whose state block is newer than the oldest events of the
# chunk after it (a chunk holds up to 1 s of events; the state block is
# written when the segment opens): a window starting between the two is
# sliced, never refused with "invalid argument"
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && [ -n "${TRACER_RECORD:-}" ]; then
	timeout -k 5 300 "$TRACER_RECORD" --ring 1M -o "$tmp/ring.tz" -- sh -c \
		'for i in $(seq 3000); do /bin/true $(head -c 600 /dev/urandom | base64 -w0); done' \
		2>"$tmp/rec.err" || { cat "$tmp/rec.err"; bad "record ring"; }
	timeout 60 "$A" verify -v "$tmp/ring.tz" >"$tmp/ring.v" 2>&1 || bad "verify ring"
	# a state block followed by a chunk older than it: --from between them
	win=$(python3 - "$tmp/ring.v" <<'EOF'
import re, sys
blocks = []
for l in open(sys.argv[1]):
    m = re.search(r"^offset +\d+ +(state|chunk) +seq +(\d+) .* ts (\d+)\.\.(\d+)", l)
    if m:
        blocks.append((int(m.group(2)), m.group(1), int(m.group(3)), int(m.group(4))))
blocks.sort()
first = min(b[2] for b in blocks if b[1] == "chunk")
for a, b in zip(blocks, blocks[1:]):
    if a[1] == "state" and b[1] == "chunk" and b[2] < a[2]:
        mid = b[2] + max(1, (min(a[2], b[3]) - b[2]) // 2)  # after first, before the state
        print("%.9f %.9f" % ((mid - first) / 1e9, (b[3] - first) / 1e9))
        break
EOF
)
	if [ -n "$win" ]; then
		read -r wf wt <<<"$win"
		timeout 60 "$A" slice --from "$wf" --to "$wt" "$tmp/ring.tz" "$tmp/ringslice.tz" 2>"$tmp/err" ||
			bad "slice of a wrapped ring from $wf (before its state block): $(cat "$tmp/err")"
		timeout 60 "$A" summary "$tmp/ringslice.tz" >/dev/null 2>&1 || bad "summary of the ring's slice"
		[ $fails = 0 ] && echo "ok   a window before the state block of its first chunk: sliced"
	else
		echo "note: no state block newer than its chunk's oldest event in this ring (nothing to check)"
	fi
fi
exit $((fails > 0))
