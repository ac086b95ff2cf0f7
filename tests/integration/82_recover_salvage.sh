#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# recover's salvage scan (FORMAT.md [X5]) over real merged recordings: three
# recordings made as three "hosts" (one a ring file) are merged, then the
# merge is damaged with dd and recovered. Checked against the recordings
# themselves:
#   - a MEMBER block header destroyed (one, then two in a row): recover writes
#     all three members, in order, each one's events (`cat`) byte-identical
#     to its own recording's, its uuid and hostname its own; a note says the
#     damage and how many members were found by their own headers;
#   - the container's header destroyed (zeros, then one flipped byte): the
#     file is recovered as a multi-host trace of its three members, one line
#     saying the header was not trusted; with a MEMBER block destroyed too;
#   - no member invented: a member and its MEMBER block overwritten with
#     random bytes sown with both magics and a copy of a header with one byte
#     changed: recover writes the two others only; a plain trace whose
#     header is destroyed is refused as before (one line, exit 1, no OUT).
. "$(dirname "$0")/lib.sh"
need_hosts

host_record node1 a.tz sh -c 'seq 2000 | sort -rn >/dev/null; true'
# a ring (flight-recorder) file: host_record with --ring
timeout -k 5 "$REC_TIMEOUT" unshare -u sh -c 'hostname "$0" && exec "$@"' node2 "$R" --ring 8M \
	-o b.tz -- sh -c 'for i in 1 2 3; do ls / >/dev/null; done' 2>rec.err || fail "recording node2: $(cat rec.err)"
[ "$("$A" info --json b.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["ring"])')" = True ] ||
	fail "b.tz is not a ring file"

host_record node3 c.tz sh -c 'seq 100 | wc -l >/dev/null; /bin/false; true'
"$A" merge -o run.tz a.tz b.tz c.tz 2>merge.err || fail "merge: $(cat merge.err)"
for f in a b c; do
	"$A" cat $f.tz >$f.cat || fail "cat $f.tz"
	[ -s $f.cat ] || fail "$f.tz has no events"
done

# MEMBER block offsets and the member each names, from the walk of [X1]
python3 "$TESTS_DIR/integration/member_blocks.py" run.tz >blocks.txt
[ "$(wc -l <blocks.txt)" = 3 ] || fail "run.tz: not 3 MEMBER blocks: $(cat blocks.txt)"
read -r blk0 _ _ < <(sed -n 1p blocks.txt)
read -r blk1 mem1 len1 < <(sed -n 2p blocks.txt)
read -r blk2 mem2 _ < <(sed -n 3p blocks.txt)
cmp -s <(tail -c +$((mem1 + 1)) run.tz | head -c "$len1") b.tz || fail "member 1 is not b.tz"

# damage: dd of COUNT bytes of BYTE (hex) at OFFSET into a copy of run.tz
damage() { # OUT OFFSET COUNT [BYTE]
	[ -e "$1" ] || cp run.tz "$1"
	head -c "$3" /dev/zero | tr '\0' "\\${4:-000}" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# recover IN OUT: exit 0, three members written, each member's events, uuid
# and hostname its own recording's
recovered3() {
	local in=$1 out=$2
	"$A" recover "$in" "$out" >"$out.out" 2>"$out.err" || fail "recover $in: $(cat "$out.err")"
	grep -qx "'$in': 3 members written to '$out'" "$out.out" || fail "recover $in said: $(cat "$out.out")"
	local i=0
	for f in a b c; do
		cmp -s <("$A" cat "$out[$i]") $f.cat || fail "recover $in: member $i's events differ from $f.tz's"
		i=$((i + 1))
	done
	"$A" info --json "$out" >"$out.json" || fail "info $out"
	for f in a b c; do "$A" info --json $f.tz; done >own.json
	python3 - "$out.json" <<'PY' || fail "recover $in: identities"
import json, sys
d = json.load(open(sys.argv[1]))
own = [json.loads(l) for l in open("own.json").read().replace("}\n{", "}\x00{").split("\x00")]
m = d["members"]
assert [x["hostname"] for x in m] == ["node1", "node2", "node3"], [x["hostname"] for x in m]
assert [x["info"]["uuid"] for x in m] == [o["uuid"] for o in own]
assert [x["info"]["boot_id"] for x in m] == [o["boot_id"] for o in own]
assert [x["info"]["events"] for x in m] == [o["events"] for o in own]
PY
	"$A" verify "$out" >/dev/null || fail "verify of $out"
}

# a MEMBER block header destroyed: its member is found by its own header
damage m1.tz "$blk1" 40
recovered3 m1.tz r1.tz
grep -qx "tracer-analyze: recover: note: 'm1.tz': 1 damaged region of the multi-host trace left out, 1 member in it found by its own header: 'm1.tz': offset $blk1: not a valid block header" r1.tz.err ||
	fail "recover m1.tz: the note: $(cat r1.tz.err)"
# two in a row
damage m12.tz "$blk1" 40
damage m12.tz "$((blk2 + 8))" 16 377
recovered3 m12.tz r12.tz
grep -q "1 damaged region of the multi-host trace left out, 2 members in it found by their own header" r12.tz.err ||
	fail "recover m12.tz: $(cat r12.tz.err)"

# the container's header destroyed: recognised from what follows
damage h0.tz 0 128
rc=0; "$A" info h0.tz >/dev/null 2>h0.err || rc=$?
[ $rc = 1 ] || fail "info of a container without its header: rc $rc"
recovered3 h0.tz rh0.tz
[ "$(wc -l <rh0.tz.err)" = 1 ] &&
	grep -qx "tracer-analyze: recover: note: 'h0.tz': 1 damaged region of the multi-host trace left out, no member in it found by its own header: 'h0.tz': offset 0: file header: bad magic: not trusted, the file read as a multi-host trace from the members that follow (its merge metadata left out)" rh0.tz.err ||
	fail "recover h0.tz: $(cat rh0.tz.err)"
damage h1.tz 45 1 377 # a byte of its uuid: the header checksum fails
recovered3 h1.tz rh1.tz
grep -q "offset 0: file header: header checksum mismatch: not trusted" rh1.tz.err || fail "recover h1.tz: $(cat rh1.tz.err)"
cp h0.tz h0m0.tz
damage h0m0.tz "$blk0" 40
recovered3 h0m0.tz rh0m0.tz
grep -q "1 member in it found by its own header" rh0m0.tz.err || fail "recover h0m0.tz: $(cat rh0m0.tz.err)"

# no member invented from garbage
python3 - "$blk1" "$blk2" <<'PY'
import random, sys
b = bytearray(open("run.tz", "rb").read())
lo, hi = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(7)
b[lo:hi] = bytes(rnd.getrandbits(8) for _ in range(hi - lo))
for p in range(lo + 5, hi - 300, 211):
    b[p:p + 8] = b"\x89TZ1\r\n\x1a\n" if p % 2 else b"\xd7TZB" + bytes(4)
hdr = bytearray(open("b.tz", "rb").read()[:4096])
hdr[40] ^= 1 # its uuid: the header no longer checks
b[lo + 1000:lo + 1000 + len(hdr)] = hdr
open("g.tz", "wb").write(bytes(b))
PY
"$A" recover g.tz rg.tz >rg.out 2>rg.err || fail "recover g.tz: $(cat rg.err)"
grep -qx "'g.tz': 2 members written to 'rg.tz'" rg.out || fail "recover g.tz said: $(cat rg.out) $(cat rg.err)"
grep -q "left out, no member in it found by its own header" rg.err || fail "recover g.tz: $(cat rg.err)"
cmp -s <("$A" cat "rg.tz[0]") a.cat && cmp -s <("$A" cat "rg.tz[1]") c.cat ||
	fail "recover g.tz: the two members are not a.tz and c.tz"

# a plain trace whose header is destroyed: refused as before, no container
cp a.tz pa.tz
damage pa.tz 0 128
rc=0; "$A" recover pa.tz rpa.tz >pa.out 2>pa.err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <pa.err)" = 1 ] && grep -q "'pa.tz'.*bad magic" pa.err && [ ! -e rpa.tz ] ||
	fail "recover of a plain trace without its header: rc $rc: $(cat pa.out pa.err)"

echo "ok: MEMBER blocks and the container header destroyed: every member recovered, events identical; no member invented"
