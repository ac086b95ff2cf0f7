#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# summary's window (fault 12, fault 7): a slice's summary covers the slice's
# own window (slice_from/to_boottime_ns), not the original recording's; a
# recording's covers the recorder's start..stop metadata, not the earliest
# process start. On the synthetic 8 s pipeline (test_model --write).
. "$(dirname "$0")/synthlib.sh"
fails=0
dur() { timeout 60 "$A" summary --json "$1" | grep -o '"duration_s":[0-9.e+-]*' | cut -d: -f2; }
expect() { # what got want
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: duration_s $2, want $3"; fails=$((fails + 1))
	else
		echo "ok   $1: duration_s $2"
	fi
}
expect pipeline "$(dur "$tmp/pipeline.tz")" 8
timeout 60 "$A" slice --from 1.26 --to 6.35 "$tmp/pipeline.tz" "$tmp/s1.tz" 2>/dev/null || exit 1
expect "slice 1.26..6.35" "$(dur "$tmp/s1.tz")" 5.09
timeout 60 "$A" slice --from 2 "$tmp/pipeline.tz" "$tmp/s2.tz" 2>/dev/null || exit 1
expect "slice 2.." "$(dur "$tmp/s2.tz")" 6
# a slice of a slice: the inner window
timeout 60 "$A" slice --from 0.5 --to 1.5 "$tmp/s1.tz" "$tmp/s3.tz" 2>/dev/null || exit 1
expect "slice of a slice" "$(dur "$tmp/s3.tz")" 1
exit $((fails > 0))
