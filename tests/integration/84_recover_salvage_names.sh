#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# What recover says of the members its salvage scan finds (FORMAT.md [X5]),
# on a multi-host trace merged from three synthetic traces and damaged with
# dd; each checked against the traces themselves (their offsets in the
# merge, their headers' start times, their events):
#   - a member whose MEMBER block is destroyed is named by what is known of
#     it: "salvaged at offset N (host H, started T)", N its offset in the
#     damaged file, T its header's start_real_ns in UTC; recover says so on
#     stdout and OUT's member has that source (the others keep theirs);
#   - a salvaged linear member that runs to the end of the file (the file
#     cut inside it, no MEMBER block after it) is cut: recover says so and
#     marks it partial in OUT (info --json "partial": true), the whole ones
#     not;
#   - a bundle (.tar.gz) holding a multi-host trace whose header is
#     destroyed is recovered as the file itself is: its three members, events
#     identical; a bundle of a plain trace whose header is destroyed is
#     refused in one line (exit 1, no OUT).
. "$(dirname "$0")/synthlib.sh"
cd "$tmp" || exit 1
unset TRACER_ANALYZE_PARTIAL
"$A" merge -o run.tz clip.tz edge.tz pipeline.tz 2>/dev/null || { echo "FAIL merge"; exit 1; }
for f in clip edge pipeline; do
	"$A" cat $f.tz >$f.cat || bad "cat $f.tz"
done

# MEMBER block offset, member offset, member length, from the walk of [X1]
python3 "$TESTS_DIR/integration/member_blocks.py" run.tz >blocks.txt
[ "$(wc -l <blocks.txt)" = 3 ] || { echo "FAIL run.tz: not 3 MEMBER blocks: $(cat blocks.txt)"; exit 1; }
read -r blk1 mem1 _ < <(sed -n 2p blocks.txt)
read -r blk2 mem2 len2 < <(sed -n 3p blocks.txt)
cmp -s <(tail -c +$((mem1 + 1)) run.tz | head -c "$(stat -c %s edge.tz)") edge.tz || bad "member 1 is not edge.tz"
# a trace's start (header start_real_ns) in UTC, to the second
started() {
	python3 -c 'import struct,sys,time; ns = struct.unpack_from("<q", open(sys.argv[1], "rb").read(), 80)[0]; print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns // 10**9)))' "$1"
}
damage() { # OUT OFFSET COUNT: COUNT zero bytes at OFFSET of a copy of run.tz
	[ -e "$1" ] || cp run.tz "$1"
	head -c "$3" /dev/zero | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
members_json() { # OUT: one line per member: source, partial
	"$A" info --json "$1" | python3 -c 'import json,sys; [print("%s|%s" % (m["source"], m["partial"])) for m in json.load(sys.stdin)["members"]]'
}

# 1. a MEMBER block destroyed: its member named by offset, host and start
damage m1.tz "$blk1" 40
name1="salvaged at offset $mem1 (host synth, started $(started edge.tz))"
"$A" recover m1.tz r1.tz >r1.out 2>r1.err || bad "recover m1.tz: $(cat r1.err)"
grep -qxF "'m1.tz[1]': found by its own header at offset $mem1 (its MEMBER block lost): source named '$name1'" r1.out ||
	bad "recover m1.tz did not name the salvaged member: $(cat r1.out)"
[ "$(grep -c "found by its own header" r1.out)" = 1 ] || bad "recover m1.tz: other members said salvaged: $(cat r1.out)"
[ "$(members_json r1.tz)" = "clip.tz|False
$name1|False
pipeline.tz|False" ] || bad "r1.tz's members: $(members_json r1.tz)"
cmp -s <("$A" cat "r1.tz[1]") edge.cat || bad "r1.tz[1]'s events are not edge.tz's"

# 2. the last member's MEMBER block destroyed and the file cut inside it
damage c2.tz "$blk2" 40
truncate -s $((mem2 + len2 / 2)) c2.tz
"$A" recover c2.tz rc2.tz >rc2.out 2>rc2.err || bad "recover c2.tz: $(cat rc2.err)"
grep -qxF "'c2.tz[2]': cut short: the file ends inside it (marked partial in 'rc2.tz[2]')" rc2.out ||
	bad "recover c2.tz did not say the member is cut: $(cat rc2.out)"
[ "$(grep -c "cut short" rc2.out)" = 1 ] || bad "recover c2.tz: whole members said cut: $(cat rc2.out)"
[ "$(members_json rc2.tz)" = "clip.tz|False
edge.tz|False
salvaged at offset $mem2 (host synth, started $(started pipeline.tz))|True" ] ||
	bad "rc2.tz's members: $(members_json rc2.tz)"
# the same member whole (its trailer at the end of the file): not cut
damage w2.tz "$blk2" 40
"$A" recover w2.tz rw2.tz >rw2.out 2>rw2.err || bad "recover w2.tz: $(cat rw2.err)"
! grep -q "cut short" rw2.out || bad "recover w2.tz: a whole member said cut: $(cat rw2.out)"
[ "$(members_json rw2.tz | cut -d'|' -f2 | sort -u)" = False ] || bad "rw2.tz: a whole member marked partial"

# 3. a bundle of the container whose header is destroyed
damage h0.tz 0 128
mkdir b && cp h0.tz b/trace.tz && tar czf hb.tar.gz b || bad "tar"
rc=0
"$A" recover hb.tar.gz rhb.tz >rhb.out 2>rhb.err || rc=$?
[ $rc = 0 ] && grep -qx "'hb.tar.gz': 3 members written to 'rhb.tz'" rhb.out &&
	grep -q "offset 0: file header: bad magic: not trusted, the file read as a multi-host trace" rhb.err ||
	bad "recover hb.tar.gz: exit $rc: $(cat rhb.out rhb.err)"
i=0
for f in clip edge pipeline; do
	cmp -s <("$A" cat "rhb.tz[$i]" 2>/dev/null) $f.cat || bad "rhb.tz[$i]'s events are not $f.tz's"
	i=$((i + 1))
done
# a bundle of a plain trace whose header is destroyed: refused, one line
cp clip.tz p0.tz
head -c 128 /dev/zero | dd of=p0.tz conv=notrunc status=none
mkdir pb && cp p0.tz pb/trace.tz && tar czf pb.tar.gz pb || bad "tar"
rc=0
"$A" recover pb.tar.gz rpb.tz >rpb.out 2>rpb.err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <rpb.err)" = 1 ] && grep -q "bad magic" rpb.err && [ ! -e rpb.tz ] ||
	bad "recover of a bundled plain trace without its header: exit $rc: $(cat rpb.out rpb.err)"

[ $fails = 0 ] && echo "ok: salvaged members named and cut ones marked; a bundle's damaged container recovered"
exit $((fails > 0))
