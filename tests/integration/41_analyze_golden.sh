#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze outputs on the synthetic traces (test_model --write) against
# tests/data/golden/*.out. The traces' values are designed (see
# tests/unit/analyze_synth.h): e.g. the 3-stage pipeline's makespan is 8 s,
# of which the serial step holds exactly 5 s, samtools 1.5 s, prep.py 1 s,
# the root's own gaps 0.4 s and stage2.sh's 0.1 s. Wall-clock lines and the
# file-size line depend on when and how the file was written and are left out.
# UPDATE=1 rewrites the golden files (review the diff before committing).
set -u
A=${TRACER_ANALYZE:?}
O=${O:-build}
GEN="$O/tests/test_model"
G="${TESTS_DIR:-tests}/data/golden"
[ -x "$GEN" ] || { echo "skip: $GEN not built"; exit 77; }
tmp=$(mktemp -d /tmp/tza-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$GEN" --write "$tmp" || exit 1
"$A" slice --from 1.26 --to 6.35 "$tmp/pipeline.tz" "$tmp/slice.tz" 2>/dev/null || exit 1
fails=0

check() { # name cmd... (output filtered of volatile lines; the analyzer's
	# own version, which chrome's "generator" names, as X.Y.Z; the UTC
	# times of the synthetic traces, which are anchored at their writing,
	# as UTC)
	local name=$1; shift
	(cd "$tmp" && timeout 60 "$@") 2>&1 | grep -Ev '^(trace|start|end) ' |
		sed -e 's/"generator":"tracer-analyze [^"]*"/"generator":"tracer-analyze X.Y.Z"/' \
		    -e 's/20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]*\.[0-9]*Z/UTC/g' >"$tmp/$name.out"
	if [ "${UPDATE:-0}" = 1 ]; then
		mkdir -p "$G" && cp "$tmp/$name.out" "$G/$name.out"
		return
	fi
	if ! diff -u "$G/$name.out" "$tmp/$name.out" >"$tmp/diff"; then
		echo "FAIL $name"; head -n 40 "$tmp/diff"; fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

check pipeline-summary "$A" summary pipeline.tz
check pipeline-tree "$A" tree pipeline.tz
check pipeline-tree-depth1 "$A" tree --depth 1 --collapse 0 pipeline.tz
check pipeline-top "$A" top pipeline.tz
check pipeline-top-json "$A" top --json pipeline.tz
check pipeline-top-command "$A" top --by command --sort critical pipeline.tz
check pipeline-critical-path "$A" critical-path pipeline.tz
check pipeline-critical-path-json "$A" critical-path --json pipeline.tz
# the path of tasks (the child fallback: edges by time and the tree)
check pipeline-critical-path-task "$A" critical-path --by task pipeline.tz
check pipeline-critical-path-rule-json "$A" critical-path --by rule --json pipeline.tz
check slice-critical-path-task "$A" critical-path --by task slice.tz
check pipeline-export-jsonl "$A" export --format jsonl pipeline.tz
check pipeline-export-csv "$A" export --format csv pipeline.tz
check pipeline-export-tsv "$A" export --format tsv --by exe pipeline.tz
check pipeline-export-chrome "$A" export --format chrome pipeline.tz
check edge-summary "$A" summary edge.tz
check edge-tree "$A" tree edge.tz
check edge-tree-match "$A" tree --full-args --match 'printf|sleep' edge.tz
check edge-top-exe "$A" top --by exe edge.tz
check edge-critical-path "$A" critical-path edge.tz
check drops-summary "$A" summary drops.tz
check drops-tree "$A" tree drops.tz
check slice-tree "$A" tree slice.tz
check slice-critical-path "$A" critical-path slice.tz
check diff "$A" diff pipeline.tz slice.tz
# held to one CPU, the analyzer reads on one thread (no reading thread, no
# background sweep or counts): the same bytes
if command -v taskset >/dev/null && [ "${UPDATE:-0}" != 1 ]; then
	for c in "summary pipeline.tz" "summary edge.tz" "summary drops.tz" "top pipeline.tz" \
		"critical-path pipeline.tz" "export --format jsonl pipeline.tz" "tree edge.tz"; do
		(cd "$tmp" && timeout 60 "$A" $c) >"$tmp/two.out" 2>&1
		(cd "$tmp" && timeout 60 taskset -c 0 "$A" $c) >"$tmp/one.out" 2>&1
		if cmp -s "$tmp/two.out" "$tmp/one.out" && [ -s "$tmp/one.out" ]; then
			echo "ok   one CPU: $c"
		else
			echo "FAIL one CPU: $c differs from two"; diff "$tmp/two.out" "$tmp/one.out" | head -10
			fails=$((fails + 1))
		fi
	done
fi
# the first rows of edge.tz's jsonl (the hostile argv is the second)
"$A" export --format jsonl "$tmp/edge.tz" | head -n 6 >"$tmp/edge-jsonl-head.out"
if [ "${UPDATE:-0}" = 1 ]; then
	cp "$tmp/edge-jsonl-head.out" "$G/"
elif ! diff -u "$G/edge-jsonl-head.out" "$tmp/edge-jsonl-head.out"; then
	echo "FAIL edge-jsonl-head"; fails=$((fails + 1))
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
