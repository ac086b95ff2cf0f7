#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A slice's process with no sample by the window's end has an unknown RSS
# (its end sample says threads 0: docs/tracer-analyze.md, slice). Every view
# shows it as unknown, never as 0, and leaves it out of maxima.
#
# Synthetic (test_model --write rss.tz; exact values), sliced at 2..5 s:
# big (4 MiB in samples), three workers and two of three mixed started at
# 4.5 s without samples (unknown), zero (exited in the window with a peak of
# 0 KiB: known), the root shell (no samples: unknown). Truth: the values
# test_model wrote.
. "$(dirname "$0")/synthlib.sh"

timeout 60 "$A" slice --from 2 --to 5 "$tmp/rss.tz" "$tmp/r.tz" 2>/dev/null || bad "slice 2..5"

# tree --collapse: a run's max RSS is over its known members
timeout 60 "$A" tree "$tmp/r.tz" >"$tmp/tree.txt" || bad "tree"
grep -q "3× worker .* max rss -$" "$tmp/tree.txt" || bad "tree: workers' max rss: $(grep worker "$tmp/tree.txt")"
grep -q "3× mixed .* max rss 1.0 MiB (2 unknown)$" "$tmp/tree.txt" ||
	bad "tree: mixed max rss: $(grep mixed "$tmp/tree.txt")"
grep -q " zero .* rss 0 B$" "$tmp/tree.txt" || bad "tree: zero's known 0: $(grep zero "$tmp/tree.txt")"
[ $fails = 0 ] && echo "ok   tree: a run of unknown RSS says -, a mixed run its known max and how many are unknown"

exit $((fails > 0))
