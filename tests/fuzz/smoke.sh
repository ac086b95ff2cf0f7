#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# fuzz smoke (tests/run.sh, part of make test-fast): build every libFuzzer
# target with clang (`make fuzz`: $O/fuzz/, objects in $O/fuzz/obj/) so that
# none can rot, then run each over its corpus (tests/fuzz/corpus_NAME, the
# .tz targets with tests/data/bad) and a fixed number of mutations from a
# fixed seed (-runs, -seed: the same inputs every time; no time limit but the
# per-input -timeout). Passes when every target builds and no input crashes,
# leaks, hangs or trips ASan/UBSan. New inputs go to a temporary directory
# (removed); a crash's input is kept as $O/fuzz/artifacts/NAME-crash-* and
# named in the log. About a minute on 2 cores, most of it the build.
# Usage: O=build tests/fuzz/smoke.sh [NAME...]   (default: every target)
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
tmp=$(mktemp -d /tmp/fuzz-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

jobs=$(nproc 2>/dev/null || echo 2)
if ! make --no-print-directory -j"$jobs" O="$O" fuzz; then
	echo "fuzz-smoke: 'make O=$O fuzz' failed (clang, -fsanitize=fuzzer)" >&2
	exit 1
fi

# mutations per target: about 5-20 s each on a loaded core
runs_of() {
	case $1 in
	cmd) echo 600 ;;
	analyze) echo 1000 ;;
	btfcache) echo 5000 ;;
	*) echo 2000 ;;
	esac
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=$(basename "$f" .c)
		names+=("${n#fuzz_}")
	done
fi
mkdir -p "$O/fuzz/artifacts"
rc=0
for n in "${names[@]}"; do
	bin=$O/fuzz/fuzz_$n
	seeds=(tests/fuzz/corpus_$n)
	case $n in bundle | btfcache) ;; *) seeds+=(tests/data/bad) ;; esac
	if [ ! -d "tests/fuzz/corpus_$n" ]; then
		echo "fuzz-smoke: $n: no corpus tests/fuzz/corpus_$n" >&2
		rc=1
		continue
	fi
	mkdir -p "$tmp/$n"
	echo "== fuzz_$n: $(runs_of "$n") runs, seed 1"
	if ! "$bin" -runs="$(runs_of "$n")" -seed=1 -timeout=60 -rss_limit_mb=2048 \
		-malloc_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$O/fuzz/artifacts/$n-" "$tmp/$n" "${seeds[@]}" \
		>"$tmp/$n.log" 2>&1; then
		tail -n 60 "$tmp/$n.log"
		echo "fuzz-smoke: fuzz_$n failed; input kept: $(ls "$O/fuzz/artifacts/$n-"* 2>/dev/null | head -n 3 | tr '\n' ' ')" >&2
		rc=1
		continue
	fi
	grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss_mb)' "$tmp/$n.log"
done
[ $rc -eq 0 ] && echo "fuzz-smoke: ${#names[@]} targets built and ran"
exit $rc
