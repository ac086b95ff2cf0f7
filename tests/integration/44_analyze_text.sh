#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Text output details (breaker report, fault 15): top/summary/diff key
# columns stay aligned for long exe paths (the column widens up to 60, a
# longer key keeps its end behind "..."), `summary -n 0` lists every tool
# like `top -n 0`, and counts of one say "1 process".
. "$(dirname "$0")/lib.sh"
need_root
t=$T
cd "$t"

mid=$t/mid_$(printf 'm%.0s' $(seq 20))          # a path of about 50 bytes
long=$t/long_$(printf 'x%.0s' $(seq 70))        # a path over 60 bytes
mkdir -p "$mid" "$long"
cp /bin/true "$mid/true"
cp /bin/true "$long/true"
timeout 60 "$R" -f -o t.tz -- sh -c "$mid/true; $long/true; /bin/true" > /dev/null
timeout 60 "$R" -f -o one.tz -- /bin/true > /dev/null

# top --by exe: the CRIT% column ends at the same place on every line
"$A" top --by exe t.tz > top.txt
end=$(head -1 top.txt | awk '{ print index($0, "CRIT%") + 4 }')
tail -n +2 top.txt | grep -v '^\.\.\. \|^note' | while IFS= read -r l; do
	c=$(printf '%s\n' "$l" | awk '{ print match($0, /[0-9.]+%  /) + RLENGTH - 3 }')
	[ "$c" = "$end" ] || fail "column misaligned (CRIT% ends at $c, header at $end): '$l'"
done
grep -q "^$mid/true " top.txt || fail "a 50-byte path is not shown whole: $(cat top.txt)"
grep -q "^\.\.\..*x/true " top.txt || fail "a long path is not cut at the start: $(cat top.txt)"
"$A" top --by exe --json t.tz | grep -q "\"$long/true\"" || fail "json key cut"
"$A" summary --by exe t.tz > sum.txt
grep -q "^  \.\.\..*x/true " sum.txt || fail "summary: long path: $(cat sum.txt)"
"$A" diff --by exe t.tz t.tz > diff.txt
grep -q "^\.\.\..*x/true " diff.txt || fail "diff: long path: $(cat diff.txt)"

# summary -n 0 = all, like top -n 0
ntop=$("$A" top -n 0 t.tz | tail -n +2 | grep -vc '^\.\.\. \|^note' || true)
nsum=$("$A" summary -n 0 t.tz | sed -n '/^top tools/,/^$/p' | grep -c '^  ' || true)
[ "$ntop" -ge 2 ] && [ "$nsum" = $((ntop + 1)) ] || fail "summary -n 0: $nsum lines, top -n 0: $ntop tools"
n1=$("$A" summary -n 1 t.tz | sed -n '/^top tools/,/^$/p' | grep -c '^  ' || true)
[ "$n1" = 2 ] || fail "summary -n 1: $n1 lines"

# one process: singular
"$A" critical-path one.tz | grep -q '^path (1 process, by start' ||
	fail "critical-path: $("$A" critical-path one.tz)"
echo ok
