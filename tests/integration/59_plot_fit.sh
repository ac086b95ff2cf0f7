#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Plots fit their picture (h23b items 6-8), drawn and then read back:
# - the CPU plot's title and subtitle are wrapped to fit: nothing is drawn in
#   the picture's outer columns (a centred line wider than the picture is cut
#   at both edges);
# - the gantt legend fits: nothing in the outer columns, and the failure
#   marker's red is drawn in the legend band below the x axis;
# - a failed process's label starts after its failure marker (✗), not on it.
. "$(dirname "$0")/lib.sh"
need_root
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (gnuplot-nox)"; exit 77; }
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
S=${TESTS_DIR:?}/../samples/pipeline.tz

# a failed process long enough for a label: sleep killed by timeout's SIGTERM
record -o f.tz -- sh -c "$W sleep 0.3; timeout 1 sleep 5; true" || fail "record"
timeout 60 "$A" plot --kind gantt --script f.gp -o f.png f.tz || fail "plot gantt (script)"
python3 - f.gp <<'PY' || fail "label of the failed sleep: $(grep -n 'set label' f.gp)"
import re, sys
labs = [l for l in open(sys.argv[1]) if l.startswith('set label "sleep ')]
assert labs, 'no label for the failed sleep'
for l in labs:
    off = float(re.search(r'offset char ([0-9.]+),', l).group(1))
    # the marker (pt 2, ps 1.3) is about a character wide, centred on the end
    assert off >= 1.2, 'label at %.1f chars from the bar end, on its failure marker: %s' % (off, l)
PY

timeout 60 "$A" plot --kind cpu --size 700x400 -o cpu.png "$S" || fail "plot cpu"
timeout 60 "$A" plot --kind gantt --size 800x700 -o g.png "$S" || fail "plot gantt"
python3 - "${TESTS_DIR:?}/visual" cpu.png g.png <<'PY' || fail "plots cut at their edges"
import sys
sys.path.insert(0, sys.argv[1])
from pngdiff import read_png
def ink(px):
    return min(px) < 200  # darker than the anti-aliasing fringe
for path in sys.argv[2:]:
    w, h, rows = read_png(path)
    for y, r in enumerate(rows):
        for x in (0, 1, 2, w - 3, w - 2, w - 1):
            assert not ink(r[x * 3:x * 3 + 3]), '%s: drawn at its edge (x %d, y %d): cut' % (path, x, y)
# the legend's failure marker: red (#d62728) below the plot area (the
# lower fifth of the picture, under the x axis labels)
w, h, rows = read_png(sys.argv[3])
red = sum(1 for r in rows[h * 4 // 5:] for x in range(w)
          if r[x * 3] > 180 and r[x * 3 + 1] < 90 and r[x * 3 + 2] < 90)
assert red >= 4, 'gantt: no failure marker in the legend (%d red pixels)' % red
PY
echo ok
