#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Run every test: cmocka unit binaries, fuzz-corpus replays, the fuzz smoke, integration
# scripts, reliability scripts (tests/reliability/, docs/RELIABILITY.md).
# Usage: O=build tests/run.sh [unit|integration|reliability|fuzz|all|long|asan]
# `fuzz` (part of `all`) builds the libFuzzer targets and runs each briefly
# (tests/fuzz/smoke.sh).
# `long` runs the long variants (tests/reliability/long_*.sh, make test-long);
# `asan` (make test-asan's default) runs unit, fuzz replays and the tests of
# the analyzer on hostile input (bad files, hostile bundles, files and names).
# Each entry runs under a time bound; the last line is "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
what=${1:-all}
export O TRACER_RECORD="$PWD/$O/tracer-record" TRACER_ANALYZE="$PWD/$O/tracer-analyze"
export TESTS_HELPERS="$PWD/$O/tests/helpers" TESTS_DIR="$PWD/tests"
pass=0 fail=0 skip=0 failed=()
logdir=$(mktemp -d /tmp/tracer-tests.XXXXXX)

run() { # name timeout cmd...
	local name=$1 t=$2; shift 2
	local log="$logdir/${name//\//_}.log" rc
	local t0=$SECONDS
	timeout -k 5 "$t" "$@" >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  PASS  %-44s %3ds\n' "$name" $((SECONDS - t0))
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); printf '  SKIP  %-44s %s\n' "$name" "$(tail -n1 "$log")"
	else
		fail=$((fail + 1)); failed+=("$name")
		printf '  FAIL  %-44s rc=%d (log: %s)\n' "$name" $rc "$log"
		tail -n 30 "$log" | sed 's/^/        | /'
	fi
}

if [ "$what" = all ] || [ "$what" = unit ] || [ "$what" = asan ]; then
	for t in "$O"/tests/test_*; do
		[ -x "$t" ] || continue
		run "unit/$(basename "$t")" 300 "$t"
	done
	for t in "$O"/tests/fuzz_*-replay; do
		[ -x "$t" ] || continue
		n=$(basename "$t" -replay)
		# each target replays its own corpus, tests/fuzz/corpus_NAME (a
		# missing one fails the replay); the .tz targets the crashes kept
		# in tests/data/bad too
		c=tests/fuzz/corpus_${n#fuzz_}
		case $n in fuzz_bundle | fuzz_btfcache) ;; *) c="$c tests/data/bad" ;; esac
		# shellcheck disable=SC2086
		run "fuzz-replay/$n" 300 "$t" $c
	done
fi
if [ "$what" = all ] || [ "$what" = fuzz ]; then
	# the libFuzzer build (clang) and a fixed-seed, fixed-count run of every
	# target over its corpus: fuzz targets that no longer build fail here
	run "fuzz-smoke" 600 bash tests/fuzz/smoke.sh
fi
if [ "$what" = all ] || [ "$what" = integration ]; then
	for t in tests/integration/[0-9]*.sh; do
		[ -f "$t" ] || continue
		run "integration/$(basename "$t" .sh)" 600 bash "$t"
	done
fi
if [ "$what" = all ] || [ "$what" = reliability ]; then
	for t in tests/reliability/[0-9]*.sh; do
		[ -f "$t" ] || continue
		run "reliability/$(basename "$t" .sh)" 600 bash "$t"
	done
fi
if [ "$what" = asan ]; then
	for t in tests/integration/40_analyze_bad_input.sh tests/integration/53_hostile_bundle.sh \
		tests/integration/54_bundle_sparse.sh tests/integration/12_format_replay.sh \
		tests/integration/46_hostile_names.sh \
		tests/reliability/05_hostile_files.sh; do
		[ -f "$t" ] || continue
		run "asan/$(basename "$t" .sh)" 900 bash "$t"
	done
fi
if [ "$what" = long ]; then
	for t in tests/reliability/long_*.sh; do
		[ -f "$t" ] || continue
		run "long/$(basename "$t" .sh)" 7200 bash "$t"
	done
fi
echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
[ $skip -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
