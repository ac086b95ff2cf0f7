#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Faults users met in the analyzer's CLI and reader, each against a truth
# made independently (the committed samples/pipeline.tz read whole):
#   - export takes its --format from -o OUT's name (.jsonl/.csv/.tsv, also
#     .zst/.gz): the same rows as with --format; another name without it is a
#     usage error (exit 2);
#   - a directory holding a recording and a cut copy of it (the copy first in
#     name order) reads the whole copy, without --partial, and says which;
#   - a trace followed by zeros (8 GiB, sparse: a power loss's tail; 64 MiB
#     written) is refused in one line naming the offset where the blocks end,
#     within the test's time bound (the old reader took minutes on 8 GiB);
#   - bytes appended to a closed trace are named: "N bytes after the footer"
#     at the trace's size; truncated there, the file is whole again;
#   - info (text: a tail line; JSON: tail_bytes, tail_offset,
#     tail_after_footer) and verify (a note) name both tails, a whole trace
#     has no tail keys;
#   - top/summary --follow on a closed, damaged trace end as top/summary
#     without --follow (its line, exit 1);
#   - recover and slice take -o OUT as well as IN OUT: the same output.
set -u
A=${TRACER_ANALYZE:?}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/tza-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset TRACER_ANALYZE_PARTIAL
cd "$tmp" || exit 1
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
cp "$ROOT/samples/pipeline.tz" run.tz
size=$(stat -c %s run.tz)
procs() { awk '$1 == "processes" { print $2; exit }' "$1"; } # the summary's process count

# 1. export: the format from OUT's name
for f in jsonl:jsonl.zst csv:csv.gz tsv:tsv jsonl:jsonl; do
	k=${f%%:*} ext=${f#*:}
	"$A" export --format "$k" run.tz >want.$k || bad "export --format $k"
	rm -f "out.$ext"
	"$A" export -o "out.$ext" run.tz 2>err || bad "export -o out.$ext: $(cat err)"
	case $ext in
	*.zst) zstd -dcq "out.$ext" >got ;;
	*.gz) gzip -dc "out.$ext" >got ;;
	*) cp "out.$ext" got ;;
	esac
	cmp -s want.$k got || bad "export -o out.$ext: not the rows of --format $k"
done
rc=0
"$A" export -o out.json run.tz 2>err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && [ ! -e out.json ] || bad "export -o out.json: exit $rc: $(cat err)"

# 2. a recording and a cut copy of it in one directory
mkdir d
cp run.tz d/run.tz
head -c $((size / 2)) run.tz >d/a-copy.tz
"$A" summary run.tz >one.out || bad "summary run.tz"
"$A" summary d >dir.out 2>dir.err || bad "summary of a directory with a cut copy: $(cat dir.err)"
[ "$(procs dir.out)" = "$(procs one.out)" ] || bad "cut copy read: '$(procs dir.out)', want '$(procs one.out)'"
grep -q "'d/run.tz' is the same recording as 'd/a-copy.tz' (uuid [0-9a-f]*): read once, from 'd/run.tz'" dir.err ||
	bad "which copy was read is not said: $(cat dir.err)"
"$A" merge -o m.tz d 2>/dev/null || bad "merge of a directory with a cut copy"
[ "$("$A" info --json m.tz | python3 -c 'import json,sys; m=json.load(sys.stdin)["members"]; print(len(m), m[0]["info"]["events"])')" = \
	"1 $("$A" info --json run.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')" ] ||
	bad "merge took the cut copy"

# 3. zeros after the blocks: sparse and written
head -c 128 run.tz >sp.tz
truncate -s 8G sp.tz
head -c 128 run.tz >zw.tz
head -c $((64 << 20)) /dev/zero >>zw.tz
for f in sp.tz zw.tz; do
	rc=0
	timeout 20 "$A" summary $f >out 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && [ ! -s out ] &&
		grep -q "'$f': offset 128: unfinished or damaged trace (no footer): its last [0-9,]* bytes are no block" err ||
		bad "$f: exit $rc: $(head -c 300 err)"
done

# info and verify name the tail: where the blocks end, how many bytes follow
"$A" info --json zw.tz >zw.json 2>/dev/null || bad "info --json zw.tz"
python3 -c 'import json,sys; d=json.load(open("zw.json")); sys.exit(not (d.get("tail_bytes"), d.get("tail_offset"), d.get("tail_after_footer")) == (64 << 20, 128, False))' ||
	bad "info --json zw.tz: tail keys: $(grep -o '"tail[^,]*' zw.json)"
"$A" info zw.tz >zw.txt 2>/dev/null || bad "info zw.tz"
grep -qx "tail          67,108,864 bytes at offset 128 that are no block (zeros, as a power loss leaves, or damaged bytes)" zw.txt ||
	bad "info zw.tz: no tail line: $(grep -v '^ ' zw.txt | head -20)"
"$A" verify zw.tz >/dev/null 2>err
grep -qx "tracer-analyze: 'zw.tz': note: 67,108,864 bytes at offset 128 that are no block (zeros, as a power loss leaves, or damaged bytes)" err ||
	bad "verify zw.tz: the tail not named: $(cat err)"
"$A" info --json run.tz >run.json || bad "info --json run.tz"
! grep -q '"tail_' run.json || bad "info --json of a whole trace has tail keys"

# 4. bytes appended to a closed trace
head -c 5000 /dev/urandom >junk
cat run.tz junk >app.tz
rc=0
"$A" summary app.tz >out 2>err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] &&
	grep -q "'app.tz': offset $size: 5,000 bytes after the footer" err || bad "appended: exit $rc: $(cat err)"
"$A" --partial summary app.tz >app.out 2>/dev/null || bad "appended, --partial"
[ "$(procs app.out)" = "$(procs one.out)" ] || bad "appended, --partial: '$(procs app.out)'"
"$A" info --json app.tz >app.json 2>/dev/null || bad "info --json app.tz"
python3 -c 'import json,sys; d=json.load(open("app.json")); sys.exit(not (d.get("tail_bytes"), d.get("tail_offset"), d.get("tail_after_footer")) == (5000, '"$size"', True))' ||
	bad "info --json app.tz: tail keys: $(grep -o '"tail[^,]*' app.json)"
"$A" info app.tz >app.txt 2>/dev/null || bad "info app.tz"
grep -qx "tail          5,000 bytes at offset $size after the footer (appended to the closed trace; truncated to $size bytes it is whole again)" app.txt ||
	bad "info app.tz: no tail line: $(grep -v '^ ' app.txt | head -20)"
rc=0
"$A" verify app.tz >/dev/null 2>err || rc=$?
[ $rc = 1 ] && grep -qx "tracer-analyze: 'app.tz': note: 5,000 bytes at offset $size after the footer (appended to the closed trace; truncated to $size bytes it is whole again)" err &&
	! grep -q "not closed cleanly" err || bad "verify app.tz: exit $rc: $(cat err)"
truncate -s "$size" app.tz
cmp -s app.tz run.tz || bad "truncated at the offset said, not the trace"

# 5. --follow on a closed, damaged trace: the verdict without --follow
cp run.tz dmg.tz
off=$("$A" verify -v run.tz 2>&1 | awk '$3 == "chunk" && ++n == 3 { print $2 + int($6 / 2); exit }')
[ -n "$off" ] || { echo "no chunk found in run.tz"; exit 1; }
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of=dmg.tz bs=1 seek="$off" conv=notrunc 2>/dev/null
for c in top summary; do
	rc=0
	"$A" $c dmg.tz >/dev/null 2>plain.err || rc=$?
	[ $rc = 1 ] || bad "$c of the damaged trace: exit $rc"
	rc=0
	timeout 30 "$A" $c --follow --interval 1 dmg.tz >f.out 2>f.err || rc=$?
	[ $rc = 1 ] && cmp -s plain.err f.err || bad "$c --follow of a damaged trace: exit $rc: $(cat f.err)"
	rc=0
	timeout 30 "$A" $c --follow --partial dmg.tz >f.out 2>/dev/null || rc=$?
	[ $rc = 0 ] && head -1 f.out | grep -q 'finished, damaged' ||
		bad "$c --follow --partial of a damaged trace: exit $rc: $(head -1 f.out)"
done

# 6. recover and slice: -o OUT
"$A" recover -o r1.tz dmg.tz >/dev/null 2>&1 && "$A" recover dmg.tz r2.tz >/dev/null 2>&1 &&
	cmp -s r1.tz r2.tz || bad "recover -o OUT IN is not recover IN OUT"
"$A" slice --from 10 --to 30 -o s1.tz run.tz 2>/dev/null &&
	"$A" slice --from 10 --to 30 run.tz s2.tz 2>/dev/null &&
	cmp -s <("$A" export --format jsonl s1.tz) <("$A" export --format jsonl s2.tz) ||
	bad "slice -o OUT IN is not slice IN OUT"
for c in "recover -o x.tz" "recover -o x.tz run.tz y.tz" "slice -o x.tz" "slice run.tz"; do
	rc=0
	# shellcheck disable=SC2086
	"$A" $c 2>err || rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || bad "$c: exit $rc: $(cat err)"
done
[ ! -e x.tz ] || bad "a usage error wrote x.tz"

[ $fails = 0 ] && echo "ok: export's format by name, the whole copy, zeros and appended bytes named, --follow's verdict, -o OUT"
exit $((fails > 0))
