#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# samples/pipeline/record.sh - re-record samples/pipeline.tz, the committed
# trace of the sample pipeline (readers without root use it; so do the tests
# tests/integration/5*.sh). Run as root after `make`; O=build-dir (default build).
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
work=$(mktemp -d /tmp/tracer-pipeline.XXXXXX)
trap 'rm -rf "$work"' EXIT
scripts/deps.sh --demo
"$O/tracer-record" -f -o samples/pipeline.tz -- samples/pipeline/run.sh "$work/out"
chmod 0644 samples/pipeline.tz
echo "samples/pipeline.tz: $(stat -c %s samples/pipeline.tz) bytes" >&2
