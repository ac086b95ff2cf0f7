#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Outputs and CLI faults a new user hit, each against a truth made
# independently (a byte copy of the committed samples/pipeline.tz, the
# commands' own output without the option under test):
#   - every command writing to a full standard output says so in one line,
#     exit 1 (cat said nothing);
set -u
A=${TRACER_ANALYZE:?}
R=${TRACER_RECORD:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/tza-out.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset TRACER_ANALYZE_PARTIAL
cd "$tmp" || exit 1
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
cp "$ROOT/samples/pipeline.tz" orig.tz
cp orig.tz run.tz

# 3. standard output full: one line, exit 1
for c in info verify cat summary tree top critical-path "export --format csv" rightsize idle "plot --script -"; do
	rc=0
	# shellcheck disable=SC2086
	"$A" $c run.tz >/dev/full 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -qx "tracer-analyze: standard output: write failed" err ||
		bad "$c > /dev/full: exit $rc: $(cat err)"
done

[ $fails = 0 ] && echo "ok: full stdout"
exit $((fails > 0))
