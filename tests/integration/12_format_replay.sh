#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Duplicated, copied and overlong blocks (issue 19, FORMAT.md section 11):
# a chunk replayed with its seq, a ring slot overwritten by a copy of another
# chunk, a payload_len inflated (header checksum recomputed) so that the block
# swallows the next one. Each must be found by the reader: verify names it
# and exits 1, cat prints every other event once and exits 1 with one line,
# the analysis refuses it without --partial and flags it with, recover writes
# each chunk once. The files are made here from the golden files with
# tests/helpers/tzwriter_mutate; the truth is the golden file's own events.
H=${TESTS_HELPERS:?} D=${TESTS_DIR:?}/data
M=$H/tzwriter_mutate
. "$(dirname "$0")/checklib.sh"
lines() { wc -l <out; }

# --- a chunk replayed with the same seq, in a file without a footer
# (the tester's case: verify said ok, events and processes counted twice)
"$M" "$D/good/small.tz" nf.tz nofooter && "$M" nf.tz dup.tz dup 3 || fail "mutate dup"
"$A" --partial cat nf.tz >truth.txt 2>/dev/null
[ "$(wc -l <truth.txt)" -eq 3000 ] || fail "truth: $(wc -l <truth.txt) events"
expect 1 "$A" verify dup.tz
grep -q "offset [0-9]*: chunk [0-9]*: same seq as an earlier chunk or state block" err ||
	fail "verify dup.tz: $(cat err)"
expect 1 "$A" cat dup.tz
one_line "chunk [0-9]*: same seq as the chunk at offset [0-9]*: skipped (1 damaged block skipped, 1 of them duplicate)"
cmp -s out truth.txt || fail "cat dup.tz: not the events of the file once each ($(lines) lines)"
expect 0 "$A" info --json dup.tz
grep -q '"corrupt_blocks":1' out || fail "info --json dup.tz: $(head -c 300 out)"
expect 0 "$A" info dup.tz
grep -q '^damaged       1 block ' out || fail "info dup.tz: $(grep damaged out)"
expect 1 "$A" summary dup.tz
one_line "no footer"
expect 0 "$A" --partial summary dup.tz
grep -q '1 corrupt block (1 duplicate, skipped)' out || fail "summary banner: $(grep '\*\*\*' out)"
# the model counts each process once: the same export as the undamaged file
"$A" --partial export --format jsonl nf.tz >e1.jsonl 2>/dev/null
expect 0 "$A" --partial export --format jsonl dup.tz
cmp -s out e1.jsonl || fail "export of dup.tz differs from the file without the duplicate"
expect 0 "$A" recover dup.tz rec.tz
expect 0 "$A" verify rec.tz
expect 0 "$A" cat rec.tz
cmp -s out truth.txt || fail "recover dup.tz: not each chunk once ($(lines) events)"

# --- the same with the footer kept: the index is stale (verify said so, but
# cat exited 0 without a word)
"$M" "$D/good/small.tz" dupf.tz dup 3 || fail "mutate dup (footer)"
expect 1 "$A" verify dupf.tz
grep -q "same seq" err && grep -q "trailer: file size" err || fail "verify dupf.tz: $(cat err)"
expect 1 "$A" cat dupf.tz
one_line "trailer: file size 45886, the file has 46370 bytes (1 damaged block skipped, 1 of them duplicate)"
cmp -s out truth.txt || fail "cat dupf.tz: $(lines) events"
expect 1 "$A" summary dupf.tz
one_line "footer index ignored"

# --- a stale index alone (a block appended after the trailer would be a torn
# tail; here the trailer's file size is wrong): cat says so and exits 1
"$M" "$D/good/small.tz" stale.tz flip 45870 || fail "mutate stale"
expect 1 "$A" cat stale.tz
[ "$(wc -l <err)" -eq 1 ] || fail "cat stale.tz: not one line: $(cat err)"

# --- ring: a chunk slot overwritten by a copy of another (older-segment) chunk
"$A" cat "$D/good/ring.tz" >ring.txt
[ "$(wc -l <ring.txt)" -eq 838 ] || fail "ring truth: $(wc -l <ring.txt)"
"$M" "$D/good/ring.tz" rcopy.tz copy 10 2 || fail "mutate copy"
expect 1 "$A" verify rcopy.tz
grep -q "offset 66647: damaged data (487 bytes): block out of sequence" err ||
	fail "verify rcopy.tz: $(cat err)"
expect 0 "$A" info rcopy.tz
grep -q '^damaged       1 block ' out || fail "info rcopy.tz: $(grep damaged out)"
expect 1 "$A" cat rcopy.tz
one_line "offset 66647: damaged data (487 bytes) skipped: block out of sequence"
# the copy covered chunk 1590 and the first bytes of 1591 (41 + 28 events)
[ "$(lines)" -eq 769 ] || fail "cat rcopy.tz: $(lines) events, want 769"
grep -vxFf ring.txt out | head -n 1 | grep -q . && fail "cat rcopy.tz printed an event twice or a new one"
[ "$(sort out | uniq -d | wc -l)" -eq "$(sort ring.txt | uniq -d | wc -l)" ] ||
	fail "cat rcopy.tz: duplicated lines"
# a copy of a chunk of the same lap at a segment start: a duplicate seq
"$M" "$D/good/ring.tz" rdup.tz copy 12 0 || fail "mutate copy to slot 0"
expect 1 "$A" verify rdup.tz
expect 1 "$A" cat rdup.tz
[ "$(sort out | uniq -d | wc -l)" -eq "$(sort ring.txt | uniq -d | wc -l)" ] ||
	fail "cat rdup.tz: an event printed twice"

# --- ring: payload_len of chunk 1589 inflated to swallow chunk 1590
"$M" "$D/good/ring.tz" rinfl.tz inflate 1 485 || fail "mutate inflate (ring)"
expect 1 "$A" verify rinfl.tz
grep -q "offset 66163: damaged data (484 bytes): block out of sequence" err ||
	fail "verify rinfl.tz: $(cat err)"
expect 1 "$A" cat rinfl.tz
[ "$(lines)" -eq 798 ] || fail "cat rinfl.tz: $(lines) events, want 838 - 40 (1590 and 1591 kept)"
expect 0 "$A" recover rinfl.tz rinfl-rec.tz
expect 0 "$A" info rinfl-rec.tz
grep -q '^events        798 in 20 chunks' out || fail "recover rinfl.tz: $(grep '^events' out)"

# --- linear without footer: chunk 5 inflated over chunk 6
"$M" "$D/good/no-footer.tz" linfl.tz inflate 1 486 || fail "mutate inflate (linear)"
expect 1 "$A" verify linfl.tz
grep -q "offset 2127: damaged data (486 bytes): block out of sequence" err ||
	fail "verify linfl.tz: $(cat err)"
"$A" --partial cat "$D/good/no-footer.tz" >nf2.txt 2>/dev/null
expect 1 "$A" cat linfl.tz
[ "$(lines)" -eq $(($(wc -l <nf2.txt) - 40)) ] || fail "cat linfl.tz: $(lines) events"

# the golden files themselves are clean: no false alarm
for f in "$D"/good/*.tz; do
	timeout 60 "$A" verify "$f" >/dev/null 2>err || fail "verify $f: $(cat err)"
done

[ $errors -eq 0 ] || exit 1
echo "ok"
