#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The conformance corpus (tests/data/conformance/README.md): every NAME.tz has
# its expected decoding NAME.expect and our reader reproduces it exactly; every
# rule id that docs/FORMAT.md and docs/EVENTS.md state is exercised by at least
# one corpus file listed in the README's rule table; gen.py rebuilds the corpus
# byte for byte; tracer-analyze verify agrees with each decoding's verdict.
set -euo pipefail
A=${TRACER_ANALYZE:?} H=${TESTS_HELPERS:?} D=${TESTS_DIR:?}/data/conformance
DOCS=${TESTS_DIR}/../docs
DEC=$H/tzdecode
[ -x "$DEC" ] || { echo "FAIL: $DEC not built"; exit 1; }
tmp=$(mktemp -d /tmp/tz-conf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

n=0
for f in "$D"/*.tz; do
	b=${f%.tz}
	[ -f "$b.expect" ] || fail "$(basename "$f") has no expected decoding $(basename "$b").expect"
	timeout 60 "$DEC" "$f" >"$tmp/out" || fail "tzdecode $(basename "$f") exited $?"
	diff -u "$b.expect" "$tmp/out" >"$tmp/diff" ||
		{ head -40 "$tmp/diff"; fail "$(basename "$f"): decoding differs from $(basename "$b").expect"; }
	# the CLI's verdict agrees: verify exits 0 exactly for "verify: ok"
	rc=0; timeout 60 "$A" verify "$f" >/dev/null 2>&1 || rc=$?
	if grep -qx 'open: SALVAGE' "$b.expect"; then
		# a recoverer's salvage reading ([X5]) is of a damaged file:
		# verify, which has no salvage scan, fails it
		[ $rc -eq 1 ] || fail "$(basename "$f"): verify exit $rc on a damaged file"
	elif grep -qx 'open: MULTI' "$b.expect"; then
		# a multi-host trace is good when its walk found no damage and
		# every decoded member opened and verified (README)
		good=1
		grep -qx 'multi: members=[0-9]* damage=0' "$b.expect" || good=0
		! grep -E '^(open: [A-Z]+|verify: [a-z]+)$' "$b.expect" |
			grep -vqxE 'open: (ok|MULTI)|verify: ok' || good=0
		if [ $good = 1 ]; then
			[ $rc -eq 0 ] || fail "$(basename "$f"): verify exit $rc, decoding says ok"
		else
			[ $rc -eq 1 ] || fail "$(basename "$f"): verify exit $rc, decoding says not ok"
		fi
	elif grep -qx 'verify: ok' "$b.expect"; then
		[ $rc -eq 0 ] || fail "$(basename "$f"): verify exit $rc, decoding says ok"
	else
		[ $rc -eq 1 ] || fail "$(basename "$f"): verify exit $rc, decoding says not ok"
	fi
	n=$((n + 1))
done
for e in "$D"/*.expect; do
	[ -f "${e%.expect}.tz" ] || fail "$(basename "$e") has no corpus file"
done
[ $n -ge 30 ] || fail "only $n corpus files"

# every rule id of the spec has a row in the README's table naming existing files
grep -oh '\[[A-Z]\{1,2\}[0-9]\{1,2\}\]' "$DOCS/FORMAT.md" "$DOCS/EVENTS.md" | tr -d '[]' | sort -u >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" -ge 40 ] || fail "fewer rule ids than expected in FORMAT.md/EVENTS.md"
while read -r id; do
	row=$(grep -E "^\| $id \|" "$D/README.md" || true)
	[ -n "$row" ] || fail "rule $id has no row in tests/data/conformance/README.md"
	files=$(echo "$row" | awk -F'|' '{print $3}' | tr ',' ' ')
	[ -n "${files// /}" ] || fail "rule $id: no corpus file"
	for c in $files; do
		[ -f "$D/$c.tz" ] || fail "rule $id: corpus file $c.tz missing"
	done
done <"$tmp/ids"
# and no row names a rule the spec does not state
grep -oE '^\| [A-Z]{1,2}[0-9]{1,2} \|' "$D/README.md" | tr -d '| ' | sort -u >"$tmp/rows"
extra=$(comm -13 "$tmp/ids" "$tmp/rows")
[ -z "$extra" ] || fail "README rows for rules the spec lacks: $extra"

# the generator rebuilds the corpus byte for byte
if command -v python3 >/dev/null; then
	mkdir "$tmp/gen"
	timeout 120 python3 "$D/gen.py" "$tmp/gen" || fail "gen.py failed"
	for f in "$D"/*.tz; do
		cmp -s "$f" "$tmp/gen/$(basename "$f")" || fail "gen.py does not rebuild $(basename "$f")"
	done
	[ "$(ls "$tmp/gen" | wc -l)" -eq $n ] || fail "gen.py writes files the corpus lacks"
fi
echo "ok: $n corpus files, $(wc -l <"$tmp/ids") rules"
