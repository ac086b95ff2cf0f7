#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze plot on the committed sample trace: PNG (magic and exact
# dimensions), SVG (well-formed XML), PDF, every kind, windows, gnuplot's
# exit status and a missing gnuplot reported clearly.
set -euo pipefail
A=${TRACER_ANALYZE:?}
S=${TESTS_DIR:?}/../samples/pipeline.tz
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed (gnuplot-nox)"; exit 77; }
t=$(mktemp -d /tmp/tracer-t50.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# "W H" of a PNG, or nothing when it is not one
png_dims() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read(33)
if b[:8] == b'\x89PNG\r\n\x1a\n' and b[12:16] == b'IHDR':
    print(*struct.unpack('>II', b[16:24]))
PY
}

# default: gantt, 1400 px wide; one row per command group, 26 px each + 170
timeout 60 "$A" plot "$S" -o "$t/timeline.png"
read -r w h < <(png_dims "$t/timeline.png")
[ "$w" = 1400 ] || fail "timeline.png width $w, want 1400"
# rows = distinct commands of the recorded processes (from the script itself)
timeout 60 "$A" plot "$S" -o "$t/timeline.png" --script "$t/g.gp"
rows=$(grep -c '^set ytics' "$t/g.gp" || true)
[ "$rows" = 1 ] || fail "expected one ytics line, got $rows"
nrows=$(grep '^set ytics' "$t/g.gp" | grep -o '" [0-9]*' | wc -l)
[ "$nrows" -ge 20 ] || fail "only $nrows rows for the pipeline (bwa mem, samtools sort, ...)"
[ "$h" = $((170 + 26 * nrows)) ] || fail "timeline.png height $h, want $((170 + 26 * nrows))"
for c in '"bwa mem  x' '"samtools sort  x' '"bcftools call  x' '"samtools index  x'; do
	grep -q "$c" "$t/g.gp" || fail "no row $c in the gantt"
done
# exactly one failed process in the sample (grep -c finding nothing exits 1)
nfail=$(sed -n '/^\$FAIL << EOD$/,/^EOD$/p' "$t/g.gp" | grep -vc 'EOD')
[ "$nfail" = 1 ] || fail "$nfail failure marks, want 1"
grep -q "non-zero exit or signal (1)" "$t/g.gp" || fail "legend does not count the failure"

# an explicit size is honoured exactly
timeout 60 "$A" plot "$S" --size 800x600 -o "$t/small.png"
[ "$(png_dims "$t/small.png")" = "800 600" ] || fail "--size 800x600 gave $(png_dims "$t/small.png")"

# per-process rows when there are few processes: --rows above the count
timeout 60 "$A" plot "$S" --rows 2000 --script - -o "$t/p.png" > "$t/p.gp"
grep -q 'one bar per process' "$t/p.gp" || fail "--rows 2000 did not give one bar per process"

# every kind, every format
for k in cpu mem io; do
	timeout 60 "$A" plot --kind "$k" "$S" -o "$t/$k.png"
	[ "$(png_dims "$t/$k.png")" = "1400 650" ] || fail "$k.png: $(png_dims "$t/$k.png")"
done
grep -q 'spread evenly' <("$A" plot --kind cpu "$S" --script - -o x.png) || fail "cpu plot does not say it is derived"
grep -q "with lines dt 2 lw 2 lc rgb '#222222' title '2 CPUs'" <("$A" plot --kind cpu "$S" --script - -o x.png) ||
	fail "cpu plot has no CPU-count line"
timeout 60 "$A" plot "$S" -o "$t/t.svg" --time wall
python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"' "$t/t.svg" ||
	fail "SVG is not well-formed XML"
timeout 60 "$A" plot --kind mem "$S" -o "$t/m.pdf"
[ "$(head -c 5 "$t/m.pdf")" = "%PDF-" ] || fail "PDF output is not a PDF"

# a window: fewer processes than the whole run
all=$("$A" plot "$S" --script - -o x.png | grep -o '[0-9]* processes' | head -1)
win=$("$A" plot "$S" --from 1s --to 3s --script - -o x.png | grep -o '[0-9]* processes' | head -1)
[ "${win% *}" -lt "${all% *}" ] || fail "--from 1s --to 3s: $win, whole run: $all"
timeout 60 "$A" plot "$S" --from 1s --to 3s -o "$t/w.png"
png_dims "$t/w.png" | grep -q '^1400 ' || fail "window plot"

# usage errors: exit 2 with a message
for args in "--kind pie" "--by colour" "--time later" "--size 10x10" "--rows 0" "--from 5 --to 2"; do
	set +e
	# shellcheck disable=SC2086
	"$A" plot $args "$S" -o "$t/u.png" 2> "$t/err" && fail "'plot $args' succeeded"
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "'plot $args' exit $rc, want 2"
	grep -q '^tracer-analyze: ' "$t/err" || fail "'plot $args': no message"
done
set +e
"$A" plot "$S" -o "$t/u.jpg" 2> "$t/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "unknown output type" "$t/err" || fail "-o .jpg: exit $rc"

# gnuplot failing: its exit status is reported, no picture left behind
printf '#!/bin/sh\ncat >/dev/null\nexit 3\n' > "$t/bad-gnuplot"
chmod +x "$t/bad-gnuplot"
set +e
TRACER_GNUPLOT="$t/bad-gnuplot" "$A" plot "$S" -o "$t/bad.png" 2> "$t/err"; rc=$?
set -e
[ "$rc" = 1 ] || fail "failing gnuplot: exit $rc, want 1"
grep -q "failed (exit 3" "$t/err" || fail "failing gnuplot: $(cat "$t/err")"
[ ! -e "$t/bad.png" ] || fail "failing gnuplot left bad.png"

# no gnuplot: one line naming the package
set +e
TRACER_GNUPLOT=/nonexistent/gnuplot "$A" plot "$S" -o "$t/none.png" 2> "$t/err"; rc=$?
set -e
[ "$rc" = 1 ] || fail "missing gnuplot: exit $rc"
grep -q 'gnuplot-nox' "$t/err" || fail "missing gnuplot: $(cat "$t/err")"
[ "$(wc -l < "$t/err")" = 1 ] || fail "missing gnuplot: more than one line"

# bad input: one line, exit 1, no picture (plot and bundle alike)
sz=$(stat -c %s "$S")
: > "$t/empty.tz"
echo hello > "$t/text.tz"
head -c $((sz / 2)) "$S" > "$t/trunc.tz"
cp "$S" "$t/corrupt.tz"
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$t/corrupt.tz" bs=1 seek=$((sz / 3)) conv=notrunc 2>/dev/null
head -c 4096 /dev/urandom > "$t/random.tz"
for f in empty text trunc corrupt random missing; do
	for cmd in "plot -o $t/bad-$f.png" "plot --kind cpu -o $t/bad-$f.png" "bundle -o $t/bad-$f.tar.gz"; do
		set +e
		# shellcheck disable=SC2086
		timeout 60 "$A" $cmd "$t/$f.tz" > "$t/out" 2> "$t/err"; rc=$?
		set -e
		[ "$rc" = 1 ] || fail "$cmd on $f: exit $rc, want 1: $(cat "$t/err")"
		[ "$(wc -l < "$t/err")" = 1 ] && grep -q '^tracer-analyze: ' "$t/err" ||
			fail "$cmd on $f: not one line: $(cat "$t/err")"
		[ ! -s "$t/out" ] || fail "$cmd on $f: wrote to stdout"
		[ ! -e "$t/bad-$f.png" ] && [ ! -e "$t/bad-$f.tar.gz" ] || fail "$cmd on $f: left an output"
	done
done
# unknown option: one line, exit 2
set +e
"$A" plot --bogus "$S" 2> "$t/err"; rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l < "$t/err")" = 1 ] || fail "plot --bogus: exit $rc: $(cat "$t/err")"
echo ok
