#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze on bad input: every subcommand on an empty, non-.tz, tiny,
# truncated, corrupt and missing file prints exactly one line on stderr
# ("tracer-analyze: ..."), nothing on stdout, exits 1, never crashes; bad
# command lines exit 2. Synthetic traces come from test_model --write.
. "$(dirname "$0")/synthlib.sh"
good="$tmp/edge.tz"
sz=$(stat -c %s "$good")
: >"$tmp/empty.tz"
printf 'this is not a trace\n' >"$tmp/text.tz"
head -c 10 "$good" >"$tmp/tiny.tz"
head -c $((sz / 2)) "$good" >"$tmp/trunc.tz"
head -c $((sz - 1)) "$good" >"$tmp/trunc1.tz"
cp "$good" "$tmp/corrupt.tz"
# inside a chunk's payload (the middle of the tenth chunk), wherever the
# schema's size puts the blocks
off=$("$A" verify -v "$good" 2>&1 | awk '$3 == "chunk" && ++n == 10 { print $2 + int($6 / 2); exit }')
[ -n "$off" ] || { echo "cannot find a chunk in $good"; exit 1; }
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$tmp/corrupt.tz" bs=1 seek="$off" conv=notrunc 2>/dev/null
head -c 4096 /dev/urandom >"$tmp/random.tz"
fails=0

expect() { # want_rc name cmd...
	local want=$1 name=$2; shift 2
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? nl
	nl=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"; cat "$tmp/err"; fails=$((fails + 1)); return
	fi
	if [ "$want" -eq 1 ]; then
		if [ "$nl" -ne 1 ] || ! grep -q '^tracer-analyze: ' "$tmp/err" || [ -s "$tmp/out" ]; then
			echo "FAIL $name: want one 'tracer-analyze:' line and no output, got:"
			cat "$tmp/err"; head -c 300 "$tmp/out"; fails=$((fails + 1)); return
		fi
	fi
	if [ "$want" -eq 2 ] && ! grep -q 'tracer-analyze: ' "$tmp/err"; then
		echo "FAIL $name: usage error without a message"; fails=$((fails + 1)); return
	fi
	echo "ok   $name: $(head -n1 "$tmp/err")"
}

for f in empty text tiny trunc trunc1 corrupt random missing; do
	in="$tmp/$f.tz"
	expect 1 "summary $f" "$A" summary "$in"
	expect 1 "summary --json $f" "$A" summary --json "$in"
	expect 1 "tree $f" "$A" tree "$in"
	expect 1 "top $f" "$A" top "$in"
	expect 1 "top --json $f" "$A" top --json "$in"
	expect 1 "critical-path $f" "$A" critical-path "$in"
	for fmt in jsonl csv tsv chrome; do
		expect 1 "export $fmt $f" "$A" export --format $fmt "$in"
	done
	expect 1 "slice $f" "$A" slice --from 0 --to 1 "$in" "$tmp/slice-$f.tz"
	if [ -e "$tmp/slice-$f.tz" ]; then
		echo "FAIL slice $f: left an output file"; fails=$((fails + 1))
	fi
	expect 1 "diff A=$f" "$A" diff "$in" "$good"
	expect 1 "diff B=$f" "$A" diff "$good" "$in"
done

# a damaged trace is analyzed when asked, with the damage shown
TRACER_ANALYZE_PARTIAL=1 timeout 60 "$A" summary "$tmp/corrupt.tz" >"$tmp/out" 2>&1
if [ $? -ne 0 ] || ! grep -q 'TREE INCOMPLETE' "$tmp/out" || ! grep -q '1 corrupt block[; ]' "$tmp/out"; then
	echo "FAIL partial summary of a corrupt trace"; cat "$tmp/out"; fails=$((fails + 1))
fi

# the same with the --partial option, and without either it is refused
timeout 60 "$A" --partial summary "$tmp/corrupt.tz" >"$tmp/out2" 2>&1
if [ $? -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/out2"; then
	echo "FAIL --partial summary differs from TRACER_ANALYZE_PARTIAL=1"; diff "$tmp/out" "$tmp/out2"; fails=$((fails + 1))
fi
# --partial after the command (every command's table has it) is the same
timeout 60 "$A" summary --partial "$tmp/corrupt.tz" >"$tmp/out3" 2>&1
if ! cmp -s "$tmp/out" "$tmp/out3"; then
	echo "FAIL summary --partial differs from --partial summary"; diff "$tmp/out" "$tmp/out3"; fails=$((fails + 1))
fi
expect 1 "summary of a corrupt trace without --partial" "$A" summary "$tmp/corrupt.tz"
expect 2 "--partial without a command" "$A" --partial

# a file cut right after its header (recorder killed at start-up, before the
# schema block): cat --type accepts any name (no schema), prints nothing and
# says in one line that the file is truncated: exit 1, as the exit-status
# table says for a file without a footer
head -c 128 "$good" >"$tmp/header-only.tz"
expect 1 "cat --type exec of a header-only file" "$A" cat --type exec "$tmp/header-only.tz"
grep -q "truncated or unfinished trace (no footer)" "$tmp/err" ||
	{ echo "FAIL cat of a header-only file: $(cat "$tmp/err")"; fails=$((fails + 1)); }
# --partial: the same line, exit 0
expect 0 "--partial cat of a header-only file" "$A" --partial cat "$tmp/header-only.tz"
expect 0 "cat --partial of a header-only file" "$A" cat --partial "$tmp/header-only.tz"

# usage errors: exit 2 with a message
expect 2 "no file" "$A" summary
expect 2 "two files" "$A" cat "$good" "$good"
expect 2 "unknown option" "$A" top --bogus "$good"
expect 2 "bad --by" "$A" top --by comm "$good"
expect 2 "bad --sort" "$A" top --sort nonsense "$good"
expect 2 "bad --limit" "$A" top -n -3 "$good"
expect 2 "bad --depth" "$A" tree --depth x "$good"
expect 2 "bad --pid" "$A" tree --pid 0 "$good"
expect 2 "bad regex" "$A" tree --match '(' "$good"
expect 2 "bad --min-duration" "$A" tree --min-duration 5parsecs "$good"
expect 2 "export no format" "$A" export "$good"
expect 2 "export bad format" "$A" export --format xml "$good"
expect 2 "slice bad time" "$A" slice --from yesterday --to 1 "$good" "$tmp/x.tz"
expect 2 "slice reversed" "$A" slice --from 2 --to 1 "$good" "$tmp/x.tz"
expect 2 "diff one file" "$A" diff "$good"
expect 2 "unknown command" "$A" frobnicate "$good"
# an existing slice output is never overwritten without -f
: >"$tmp/exists.tz"
expect 1 "slice onto existing" "$A" slice --from 0 --to 1 "$good" "$tmp/exists.tz"
[ -s "$tmp/exists.tz" ] && { echo "FAIL slice overwrote"; fails=$((fails + 1)); }
# output that cannot be written (a full disk): exit 1 with one line, never 0
for c in summary "summary --json" tree top "top --json" critical-path verify info idle \
	"export --format jsonl" "export --format csv" "diff $good" --version "summary --help"; do
	timeout 60 "$A" $c "$good" >/dev/full 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
	   ! grep -q '^tracer-analyze: .*write failed' "$tmp/err"; then
		echo "FAIL $c > /dev/full: exit $rc, want 1 and one 'write failed' line:"; cat "$tmp/err"
		fails=$((fails + 1))
	else
		echo "ok   $c > /dev/full: $(cat "$tmp/err")"
	fi
done
# --help of every subcommand lists its options (one table: analyze/options.h),
# ends with examples and exits 0; a bad value names the option
for c in info verify recover cat summary tree top critical-path export slice diff plot \
	bundle report rightsize idle; do
	"$A" $c --help >"$tmp/out" 2>&1 || { echo "FAIL $c --help exit"; fails=$((fails + 1)); }
	grep -q '^Examples:' "$tmp/out" || { echo "FAIL $c --help has no examples"; fails=$((fails + 1)); }
	grep -q '^Options:$' "$tmp/out" && grep -q '^  -h, --help  *this help$' "$tmp/out" ||
		{ echo "FAIL $c --help: no Options: with -h, --help"; fails=$((fails + 1)); }
done
"$A" top --sort nope "$good" 2>"$tmp/err"
grep -qx "tracer-analyze: --sort: 'nope' is not one of cpu, wall, span, count, cores, max_cores, rss, read, write, io, critical, name" "$tmp/err" ||
	{ echo "FAIL top --sort nope: $(cat "$tmp/err")"; fails=$((fails + 1)); }

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
