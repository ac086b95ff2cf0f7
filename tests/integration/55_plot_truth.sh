#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Plots against what ran (issue 23 items 2 and 3), on real recordings:
# - 4 back-to-back runs of one tool in one gantt lane are 4 bars (never
#   merged), each where its process ran, a pixel apart or in alternate
#   shades; no label overlaps a bar of its row;
# - the stacked CPU plot of a saturated run (4 burners) never exceeds the
#   CPU count, and what it draws plus what it says it held back is the
#   processes' CPU time;
# - a whole-machine recording (-a) is titled by its mode, never by a
#   kernel thread ([kthreadd]) as "the command".
. "$(dirname "$0")/lib.sh"
need_root
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (gnuplot-nox)"; exit 77; }
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# --- 4 back-to-back sleeps in one lane (--rows 2: group rows, as for big runs)
record -o lane.tz -- sh -c 'for i in 1 2 3 4; do sleep 0.4; done' || fail "record lane"
export_jsonl lane.tz lane.jsonl
timeout 60 "$A" plot --rows 2 --script lane.gp -o lane.png lane.tz || fail "plot lane"
python3 - lane.jsonl lane.gp <<'PY' || fail "gantt of 4 back-to-back sleeps"
import json, re, sys
procs = [json.loads(l) for l in open(sys.argv[1])]
gp = open(sys.argv[2]).read()
truth = sorted((p["start_s"], p["end_s"]) for p in procs if p["tool"] == "sleep")
assert len(truth) == 4, "recorded %d sleeps" % len(truth)
yt = re.search(r'^set ytics .*"sleep  x4" (\d+)', gp, re.M)
assert yt, "no 'sleep  x4' row"
row = int(yt.group(1))
bars = [tuple(float(v) for v in l.split()) for l in
        re.search(r"^\$BARS << EOD\n(.*?)^EOD$", gp, re.M | re.S).group(1).splitlines()]
mine = sorted(b for b in bars if abs((b[2] + b[3]) / 2 - row) < 0.4)
assert len(mine) == 4, "%d bars in the sleep row, want 4: %s" % (len(mine), mine)
xr = [float(v) for v in re.search(r"^set xrange \[(.*):(.*)\]", gp, re.M).groups()]
tol = (xr[1] - xr[0]) / 200  # well under the pixels the bars are apart
for (s, e), b in zip(truth, mine):
    assert abs(b[0] - s) < tol and e - tol < b[1] <= e + tol, "bar %s for a sleep at %s..%s" % (b, s, e)
for a, b in zip(mine, mine[1:]):
    # each bar ends before the next starts; touching ones alternate shades
    assert a[1] < b[0], "bars %s and %s touch or overlap" % (a, b)
    px = (xr[1] - xr[0]) / 1400  # at most one pixel of the 1400 px picture
    assert b[0] - a[1] >= px or a[4] != b[4], "bars %s and %s look like one" % (a, b)
# labels: none overlaps a bar of its row (about 6 px a character, the
# plot's width as the script's own estimate bounds it from above)
for m in re.finditer(r'^set label "(.*?)" at ([-0-9.e]+),([-0-9.e]+)', gp, re.M):
    text, x, y = m.group(1), float(m.group(2)), float(m.group(3))
    w = len(text) * 6 * (xr[1] - xr[0]) / 1000
    for b in bars:
        if abs((b[2] + b[3]) / 2 - y) < 0.45 and b[0] < x + w and b[1] > x + 1e-9:
            raise AssertionError("label %r at %g overlaps bar %s" % (text, x, b))
print("lane ok:", len(mine), "bars")
PY

# --- a saturated 2-CPU run: the CPU stack never exceeds the CPU count
record -o cpu.tz -- sh -c 'for i in 1 2 3 4; do timeout 3 sh -c "while :; do :; done" & done; wait' ||
	[ $? = 124 ] || fail "record cpu"
export_jsonl cpu.tz cpu.jsonl
timeout 60 "$A" plot --kind cpu --script cpu.gp -o cpu.png cpu.tz || fail "plot cpu"
python3 - cpu.jsonl cpu.gp <<'PY' || fail "cpu plot of a saturated run"
import json, re, sys
procs = [json.loads(l) for l in open(sys.argv[1])]
gp = open(sys.argv[2]).read().replace('\\n', ' ')  # titles wrapped to fit: one line
ncpus = int(re.search(r"title '(\d+) CPUs'", gp).group(1))
rows = [[float(v) for v in l.split()] for l in
        re.search(r"^\$S << EOD\n(.*?)^EOD$", gp, re.M | re.S).group(1).splitlines()]
top = max(r[-1] for r in rows)
assert top <= ncpus * (1 + 1e-6), "stack reaches %g cores on %d CPUs" % (top, ncpus)
bw = rows[1][0] - rows[0][0]
# the burners are in the stack: every bin wholly inside the 4 burners' common
# life holds CPU (how much depends on the machine's load: no figure asserted)
burn = [p for p in procs if p["utime_s"] + p["stime_s"] > 0.05]
assert burn, "no burner recorded"
lo, hi = max(p["start_s"] for p in burn), min(p["end_s"] for p in burn)
inside = [r for r in rows if r[0] - bw / 2 >= lo and r[0] + bw / 2 <= hi]  # bins by centre
assert inside and all(r[-1] > 0 for r in inside), "the burners are not in the stack: %s" % inside
# drawn CPU-s (bins x width) + what the note says was held back = the truth
bw = rows[1][0] - rows[0][0]
drawn = sum(r[-1] for r in rows) * bw
held = re.search(r"\(([0-9.e+]+) CPU-s spread there beyond the machine\)", gp)
held = float(held.group(1)) if held else 0.0
cpu = sum(p["utime_s"] + p["stime_s"] for p in procs)
assert abs(drawn + held - cpu) <= 0.02 * cpu + 0.05, "drawn %g + held %g, processes used %g" % (drawn, held, cpu)
print("cpu ok: peak %.3f of %d CPUs, %.2f CPU-s drawn, %.2f held back" % (top, ncpus, drawn, held))
PY

# --- -a: the mode names what was recorded, never [kthreadd]
record -a --duration 1 -o all.tz || fail "record -a"
timeout 120 "$A" summary all.tz >all.txt || fail "summary -a"
grep -qx 'traced     whole machine (tracer-record -a)' all.txt || fail "summary -a: $(grep -m1 traced all.txt)"
timeout 120 "$A" summary --json all.tz | python3 -c '
import json, sys
t = json.load(sys.stdin)["recorder"]["traced"]
assert t == "whole machine (tracer-record -a)", t' || fail "summary --json -a: traced"
for k in gantt cpu; do
	timeout 120 "$A" plot --kind $k --script all-$k.gp -o all.png all.tz || fail "plot -a $k"
	grep -q "^set title \"[a-z]*.*: 'whole machine (tracer-record -a)' on " all-$k.gp ||
		fail "-a $k title: $(grep -m1 '^set title' all-$k.gp)"
	! grep '^set title' all-$k.gp | grep -q 'kthreadd' || fail "-a $k title names kthreadd"
done
echo ok
