#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Visual regression of the plots (issue 23 item 3): the committed sample's
# pictures rendered now against committed references, by dimensions and a
# coarse pixel diff (tests/visual/pngdiff.py: 8x8 blocks, a block differs
# when a channel's mean moves by more than 40 of 255, at most 0.2% may):
# font rendering noise passes, a real change (a bar, a row, a series, an
# axis) fails. The check is shown to fail on a perturbed reference and on
# a different picture of the same size.
#   references: samples/pipeline.timeline.png, samples/pipeline.cpu.png (the
#   sample's own pictures, so they stay true), tests/data/visual/pipeline.{mem,io}.png
#   UPDATE=1 rewrites them from the current build (look at them before committing).
set -euo pipefail
A=${TRACER_ANALYZE:?}
D=${TESTS_DIR:?}/..
S=$D/samples/pipeline.tz
DIFF=$D/tests/visual/pngdiff.py
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (gnuplot-nox)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
# the references are drawn with DejaVu Sans; another font is not noise
fc-match 'DejaVu Sans' 2>/dev/null | grep -q '^DejaVuSans' ||
	{ echo "skip: font DejaVu Sans not installed (fonts-dejavu-core)"; exit 77; }
t=$(mktemp -d /tmp/tracer-t56.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ref_of() { # kind -> reference path
	case $1 in
	gantt) echo "$D/samples/pipeline.timeline.png" ;;
	cpu) echo "$D/samples/pipeline.cpu.png" ;;
	*) echo "$D/tests/data/visual/pipeline.$1.png" ;;
	esac
}

for k in gantt cpu mem io; do
	ref=$(ref_of $k)
	timeout 120 "$A" plot --kind $k "$S" -o "$t/$k.png" || fail "plot --kind $k"
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$t/$k.png" "$ref" && chmod 0644 "$ref"
		echo "updated $ref"
		continue
	fi
	[ -f "$ref" ] || fail "no reference $ref (UPDATE=1 writes it)"
	timeout 120 python3 "$DIFF" "$ref" "$t/$k.png" > "$t/out" ||
		fail "$k: $(cat "$t/out") (against $ref; UPDATE=1 after checking the new picture $t/$k.png)"
	echo "ok   $k: $(cat "$t/out")"
done
[ "${UPDATE:-0}" = 1 ] && exit 0

# the check itself fails on a real change: a black square on a copy of the
# reference, and another picture of the same size (rows by tool, not command;
# the cpu plot of a window starting half a second later)
python3 "$DIFF" --perturb "$(ref_of gantt)" "$t/perturbed.png"
! python3 "$DIFF" "$(ref_of gantt)" "$t/perturbed.png" > "$t/out" || fail "a perturbed reference passes: $(cat "$t/out")"
grep -q DIFFERENT "$t/out" || fail "perturbed: $(cat "$t/out")"
read -r w h < <(python3 -c 'import struct,sys; print(*struct.unpack(">II", open(sys.argv[1],"rb").read(24)[16:24]))' "$(ref_of gantt)")
timeout 120 "$A" plot --by tool --size "${w}x$h" "$S" -o "$t/bytool.png" || fail "plot --by tool"
! python3 "$DIFF" "$(ref_of gantt)" "$t/bytool.png" > "$t/out" || fail "gantt by tool passes as by command: $(cat "$t/out")"
timeout 120 "$A" plot --kind cpu --from 0.5 "$S" -o "$t/late.png" || fail "plot --from 0.5"
! python3 "$DIFF" "$(ref_of cpu)" "$t/late.png" > "$t/out" || fail "a shifted cpu plot passes: $(cat "$t/out")"
# a different size is a failure, named
timeout 120 "$A" plot --size 800x600 "$S" -o "$t/small.png" || fail "plot --size"
! python3 "$DIFF" "$(ref_of gantt)" "$t/small.png" > "$t/out" && grep -q 'is 1400x[0-9]*, .* is 800x600' "$t/out" ||
	fail "a size change: $(cat "$t/out")"
echo ok
