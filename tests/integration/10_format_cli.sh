#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze info/verify/recover/cat on good and bad .tz files: exit
# codes, one-line errors naming file and offset, exact output.
set -u
A=${TRACER_ANALYZE:?} H=${TESTS_HELPERS:?} D=${TESTS_DIR:?}/data
tmp=$(mktemp -d /tmp/tz-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
errors=0
fail() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }
expect() { # expect RC cmd... : run, compare exit code
	local want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq "$want" ] || fail "exit $rc, want $want: $* ($(head -c 300 "$tmp/err"))"
}
one_line() { # stderr is exactly one line matching $1
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$1" "$tmp/err" ||
		fail "stderr is not one line matching '$1': $(cat "$tmp/err")"
}

for f in "$D"/good/*.tz; do
	expect 0 "$A" info "$f"
	expect 0 "$A" info --json "$f"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" 2>/dev/null ||
		fail "info --json $f: invalid JSON"
	expect 0 "$A" verify "$f"
	# cat prints every event of a file without a footer too, but exits 1
	# with one line (the exit-status table: truncated); --partial: 0
	case $f in
	*/no-footer.tz)
		expect 1 "$A" cat "$f"
		one_line "'$f': truncated or unfinished trace (no footer)"
		[ "$(wc -l <"$tmp/out")" -gt 0 ] || fail "cat $f printed nothing"
		expect 0 "$A" --partial cat "$f" ;;
	*) expect 0 "$A" cat "$f" ;;
	esac
done

# exact numbers of the small golden file (3000 events written by tzwriter_loop)
S=$D/good/small.tz
expect 0 "$A" info "$S"
grep -q '^events        3000 in ' "$tmp/out" || fail "info: event count: $(grep events "$tmp/out")"
grep -q 'footer index present' "$tmp/out" || fail "info: footer"
grep -q 'argv                     strv   blob 3' "$tmp/out" || fail "info: schema field"
grep -q 'maxrss_kib.*\[KiB\]' "$tmp/out" || fail "info: unit"
expect 0 "$A" cat "$S"
[ "$(wc -l <"$tmp/out")" -eq 3000 ] || fail "cat: $(wc -l <"$tmp/out") lines"
# C05: argument bytes survive exactly and are quoted unambiguously
grep -qF 'argv=["printf", "a b", "", "x\ny", "\xff\xfe", "\x01", "end"]' "$tmp/out" ||
	fail "cat: argv quoting: $(grep -m1 printf "$tmp/out")"
head -n 1 "$tmp/out" | grep -q '^0.000000000 fork parent_tgid=1 .*child_tgid=1000 ' ||
	fail "cat: first line: $(head -n 1 "$tmp/out")"
# time window and type filter: events at 1 s + i us, 3 types cycling
expect 0 "$A" cat --from 0.001 --to 0.0011 --type exec,exit "$S"
[ "$(wc -l <"$tmp/out")" -eq 68 ] || fail "cat window: $(wc -l <"$tmp/out") lines, want 68"
grep -q ' fork ' "$tmp/out" && fail "cat --type let a fork through"
expect 0 "$A" cat --state --from 0.002 --to 0.002 "$S"
head -n 1 "$tmp/out" | grep -q ' state:proc_state ' || fail "cat --state: no state first"
expect 2 "$A" cat --type nosuch "$S"
one_line "'nosuch' is not an event type"
expect 2 "$A" cat --from banana "$S"
one_line "not a time"
expect 2 "$A" cat
expect 2 "$A" info
expect 2 "$A" verify --bogus "$S"
# an unknown option: one line in the house voice, no usage dump (fault 15)
for c in info verify recover cat; do
	expect 2 "$A" $c --x "$S"
	one_line "^tracer-analyze: $c: unknown option .*'--x' (see 'tracer-analyze $c --help')$"
	[ -s "$tmp/out" ] && fail "$c --x: wrote to stdout"
done
expect 2 "$A" recover "$S"
expect 0 "$A" info --help
tail -n 1 "$tmp/out" | grep -q 'tracer-analyze info' || fail "info --help ends without an example"
for c in verify recover cat; do
	expect 0 "$A" $c --help
	grep -q "^Examples:" "$tmp/out" || fail "$c --help has no examples"
done

# bad files: verify names each bad block with its offset, exit 1
expect 1 "$A" verify "$D/bad/chunk-payload-flip.tz"
grep -q "chunk-payload-flip.tz': offset [0-9]*: chunk [0-9]*: payload checksum mismatch" "$tmp/err" ||
	fail "verify: $(cat "$tmp/err")"
expect 1 "$A" verify "$D/bad/chunk-header-flip.tz"
grep -q "offset [0-9]*: damaged data" "$tmp/err" || fail "verify header flip: $(cat "$tmp/err")"
# a periodic INDEX block with a bad payload (FORMAT.md [I2]): verify names
# it, its offset and that no data is lost, and -v lists it in its place
# among the good blocks; every other command reads the file whole
pi="$D/conformance/periodic-index-bad.tz"
expect 1 "$A" verify -v "$pi"
note="no data lost (an index: every block is found without it)"
[ "$(head -n 1 "$tmp/err")" = "tracer-analyze: '$pi': offset 2274: index 6: payload checksum mismatch; $note" ] ||
	fail "verify periodic index: $(cat "$tmp/err")"
[ "$(tail -n 1 "$tmp/err")" = "tracer-analyze: '$pi': 1 bad block, 9 good" ] ||
	fail "verify periodic index count: $(cat "$tmp/err")"
[ "$(sed -n 6p "$tmp/out")" = "offset 2274         index    seq 6             480 bytes  damaged: checksum mismatch; $note" ] ||
	fail "verify -v periodic index: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "verify -v periodic index: not every block: $(cat "$tmp/out")"
for c in summary cat; do
	expect 0 "$A" $c "$pi"
	[ -s "$tmp/err" ] && fail "$c periodic index: $(cat "$tmp/err")"
done
for f in header-checksum incompat-flag text-mode header-only; do
	expect 1 "$A" info "$D/bad/$f.tz"
	one_line "^tracer-analyze: '.*$f.tz': offset [0-9]*: "
	expect 1 "$A" verify "$D/bad/$f.tz"
	expect 1 "$A" cat "$D/bad/$f.tz"
done
expect 1 "$A" info "$D/bad/incompat-flag.tz"
one_line "unknown incompatible feature flags 0x20000"
expect 1 "$A" info /nonexistent.tz
one_line "'/nonexistent.tz'"
echo "plain text" >"$tmp/t.tz"
expect 1 "$A" info "$tmp/t.tz"
one_line "not a .tz file"

# damage never loses the rest: a flipped chunk costs that chunk only
expect 1 "$A" cat "$D/bad/chunk-payload-flip.tz"
n=$(wc -l <"$tmp/out")
[ "$n" -ge 2900 ] && [ "$n" -lt 3000 ] || fail "cat after a flip: $n events"
expect 0 "$A" recover "$D/bad/chunk-payload-flip.tz" "$tmp/fixed.tz"
# the count said is what was written (it counted the damaged chunk's events)
grep -q " $n events written to " "$tmp/out" || fail "recover's count: $(cat "$tmp/out"), cat read $n"
expect 0 "$A" verify "$tmp/fixed.tz"
expect 0 "$A" cat "$tmp/fixed.tz"
[ "$(wc -l <"$tmp/out")" -eq "$n" ] || fail "recovered file lost events"
expect 1 "$A" recover "$D/bad/chunk-payload-flip.tz" "$tmp/fixed.tz"
one_line "exists (use -f"
expect 0 "$A" recover -f "$D/bad/truncated-mid-chunk.tz" "$tmp/fixed.tz"
expect 0 "$A" verify "$tmp/fixed.tz"
# a torn last block (crash): cat prints the rest, says so in one line and
# exits 1 (issue 19: it exited 0); --partial makes it 0
expect 1 "$A" cat "$D/bad/truncated-mid-chunk.tz"
one_line "offset 3088: incomplete block at the end (50 bytes) (1 damaged block skipped)"
[ "$(wc -l <"$tmp/out")" -eq 120 ] || fail "cat of a torn file: $(wc -l <"$tmp/out") events, want 120"
expect 0 "$A" --partial cat "$D/bad/truncated-mid-chunk.tz"

# ring file: newest events, unrolled by recover
expect 0 "$A" info "$D/good/ring.tz"
grep -q 'ring (flight recorder)' "$tmp/out" || fail "ring: not shown as ring"
expect 0 "$A" recover "$D/good/ring.tz" "$tmp/lin.tz"
expect 0 "$A" info "$tmp/lin.tz"
grep -q 'linear, footer index present' "$tmp/out" || fail "ring recover: not linear"
"$A" cat "$D/good/ring.tz" >"$tmp/a" && "$A" cat "$tmp/lin.tz" >"$tmp/b" && cmp -s "$tmp/a" "$tmp/b" ||
	fail "ring and unrolled copy differ"
tail -n 1 "$tmp/a" | grep -q ' exit .* tgid=20999 ' || fail "ring: newest event missing: $(tail -n 1 "$tmp/a")"

# counts in words agree with their number (issue 23: "1 corrupt blocks")
expect 0 "$A" info "$D/good/one-event.tz"
grep -qx "events        1 in 1 chunk, 1 state block" "$tmp/out" || fail "info one-event: $(grep '^events' "$tmp/out")"
grep -qx "dropped       0 events" "$tmp/out" || fail "info one-event: $(grep '^dropped' "$tmp/out")"
expect 0 "$A" verify "$D/good/one-event.tz"
grep -qx "'$D/good/one-event.tz': ok, [0-9]* blocks good (1 chunk, 1 event)" "$tmp/out" ||
	fail "verify one-event: $(cat "$tmp/out")"

# bytes per event: a ring file is its full size from the start, so its
# figure is the chunk payloads' (info --json's own counts), not the size's
expect 0 "$A" info "$D/good/ring.tz"
want=$("$A" info --json "$D/good/ring.tz" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % (d["bytes_compressed"] / d["events"]))')
grep -q "^bytes/event   $want in chunk payloads" "$tmp/out" ||
	fail "info ring: bytes/event not $want from the chunks: $(grep '^bytes/event' "$tmp/out")"
expect 0 "$A" info "$D/good/one-event.tz"
size=$(stat -c %s "$D/good/one-event.tz")
grep -qx "bytes/event   $size.0 on disk" "$tmp/out" || fail "info one-event: $(grep '^bytes/event' "$tmp/out")"

[ $errors -eq 0 ] || exit 1
echo "ok"
