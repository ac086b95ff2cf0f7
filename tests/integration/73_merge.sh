#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21, the multi-host trace (FORMAT.md 18): three real recordings made as
# three "hosts" (each recorder in its own UTS namespace with its own hostname;
# simulated: one machine, so one boot id and one clock) are merged into one
# file. Checked against the inputs themselves:
#   - info --json lists the three members with their hostnames, and each
#     member's bytes, read at the offset info gives, equal its input exactly;
#     each member's own info (events, uuid) equals the input's info;
#   - verify passes the container and every member;
#   - the same recording twice (a trace given twice, a merge merged again with
#     one of its inputs) is merged once, with one note line;
#   - a damaged input (a flipped payload byte) and a cut one are refused with
#     one line naming the file and offset, merged with --partial and marked
#     partial; OUT never replaced without -f, never one of its inputs;
#   - a merge of merges is flat (members, never nested);
#   - recover of a merge is the recover of each member, as one merge; of a
#     merge with a member that cannot be opened, the others, named.
. "$(dirname "$0")/lib.sh"
need_hosts

host_record node1 a.tz sh -c 'seq 2000 | sort -rn >/dev/null; true'
host_record node2 b.tz sh -c 'for i in 1 2 3; do ls / >/dev/null; done'
host_record node3 c.tz sh -c 'seq 100 | wc -l >/dev/null; /bin/false; true'
for f in a b c; do
	[ "$("$A" info --json $f.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"] > 0)')" = True ] ||
		fail "$f.tz has no events"
done

"$A" merge -o run.tz a.tz b.tz c.tz 2>merge.err || fail "merge: $(cat merge.err)"
[ ! -s merge.err ] || fail "merge of three distinct traces said: $(cat merge.err)"
[ "$(stat -c %a run.tz)" = 600 ] || fail "run.tz mode $(stat -c %a run.tz), want 600"
"$A" info --json run.tz >info.json
for f in a b c; do "$A" info --json $f.tz >$f.json; done
python3 - <<'PY' || fail "members differ from their inputs"
import json
d = json.load(open("info.json"))
assert d["multi_host"] is True and d["container_damage"] == 0, d.keys()
m = d["members"]
assert [x["hostname"] for x in m] == ["node1", "node2", "node3"], [x["hostname"] for x in m]
assert [x["source"] for x in m] == ["a.tz", "b.tz", "c.tz"]
run = open("run.tz", "rb").read()
for x, name in zip(m, "abc"):
    src = open(name + ".tz", "rb").read()
    assert x["bytes"] == len(src), (name, x["bytes"], len(src))
    assert run[x["offset"]:x["offset"] + x["bytes"]] == src, name + ": bytes differ"
    assert not x["partial"] and not x["cut"] and x["duplicate_of"] is None
    own = json.load(open(name + ".json"))
    for k in ("uuid", "boot_id", "events", "chunks", "first_ts_ns", "last_ts_ns"):
        assert x["info"][k] == own[k], (name, k, x["info"][k], own[k])
    assert x["info"]["file"] == "run.tz[%d]" % "abc".index(name)
PY
"$A" verify run.tz >verify.out || fail "verify run.tz failed"
grep -qx "'run.tz': ok, 3 members" verify.out || fail "verify: $(cat verify.out)"
[ "$(grep -c "^'run.tz\[[0-2]\]': ok" verify.out)" = 3 ] || fail "verify per member: $(cat verify.out)"

# the same recording twice: merged once, one note
"$A" merge -o twice.tz a.tz a.tz 2>twice.err || fail "merge a a"
[ "$(wc -l <twice.err)" = 1 ] && grep -q "is the same recording as 'a.tz'.*merged once" twice.err ||
	fail "a twice: $(cat twice.err)"
[ "$("$A" info --json twice.tz | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))')" = 1 ] ||
	fail "a twice: not one member"
"$A" merge -o again.tz run.tz b.tz 2>again.err || fail "merge run b"
grep -q "'b.tz' is the same recording as 'run.tz\[1\]'" again.err || fail "run+b: $(cat again.err)"
cmp -s <("$A" info --json again.tz | python3 -c 'import json,sys; print([m["info"]["uuid"] for m in json.load(sys.stdin)["members"]])') \
	<(python3 -c 'import json; print([json.load(open(f + ".json"))["uuid"] for f in "abc"])') ||
	fail "a merge of a merge is not its members, flat"

# OUT: never replaced without -f, never an input
cp run.tz keep.tz
rc=0; "$A" merge -o run.tz a.tz 2>out.err || rc=$?
[ $rc = 1 ] && grep -q "file exists" out.err && cmp -s run.tz keep.tz || fail "OUT replaced without -f"
rc=0; "$A" merge -f -o a.tz a.tz b.tz 2>out.err || rc=$?
[ $rc = 1 ] && grep -q "is also a TRACE" out.err && "$A" verify a.tz >/dev/null ||
	fail "OUT = an input: rc $rc, $(cat out.err)"

# damaged and cut inputs: refused (one line, file and offset), --partial merges
python3 - <<'PY'
import json
b = bytearray(open("b.tz", "rb").read())
# a byte in the middle of the first chunk's payload (after header and head blocks)
import struct
pos = 128
while True:
    typ = b[pos + 4]
    ext, plen = struct.unpack_from("<HI", b, pos + 6)
    if typ == 3:
        b[pos + 40 + ext + plen // 2] ^= 0xFF
        break
    pos += 40 + ext + plen
open("bd.tz", "wb").write(bytes(b))
open("cc.tz", "wb").write(open("c.tz", "rb").read()[:-100])
PY
for f in bd cc; do
	rc=0; "$A" merge -o m-$f.tz a.tz $f.tz 2>m.err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <m.err)" = 1 ] && grep -q "'$f.tz'" m.err && [ ! -e m-$f.tz ] ||
		fail "$f refused? rc $rc: $(cat m.err)"
	grep -q "offset [0-9]" m.err || [ $f = cc ] || fail "$f: no offset named: $(cat m.err)"
	"$A" --partial merge -o m-$f.tz a.tz $f.tz 2>/dev/null || fail "--partial merge $f"
	"$A" info --json m-$f.tz | python3 -c 'import json,sys
m = json.load(sys.stdin)["members"]
assert [x["partial"] for x in m] == [False, True], m' || fail "$f not marked partial"
	cmp -s <(tail -c "$(stat -c %s $f.tz)" m-$f.tz) $f.tz || fail "$f: member not kept byte for byte"
done

# a directory: its .tz files in name order
mkdir d && cp a.tz d/1.tz && cp c.tz d/2.tz && cp b.tz d/3.tz
"$A" merge -o dir.tz d 2>/dev/null || fail "merge of a directory"
[ "$("$A" info --json dir.tz | python3 -c 'import json,sys; print(",".join(m["hostname"] for m in json.load(sys.stdin)["members"]))')" = node1,node3,node2 ] ||
	fail "directory order"

# recover of a merge: every member recovered as recover of its file, one
# multi-host trace; a cut merge: the whole members, the cut one's sealed part
files=(a b c)
"$A" recover run.tz rec.tz >rec.out 2>rec.err || fail "recover run.tz: $(cat rec.err)"
grep -qx "'run.tz': 3 members written to 'rec.tz'" rec.out || fail "recover said: $(cat rec.out)"
"$A" info rec.tz >rec-info.txt || fail "info of the recovered merge"
grep -qx "recovery of   run.tz" rec-info.txt || fail "info of the recovered merge: $(head -3 rec-info.txt)"
for i in 0 1 2; do
	"$A" recover "${files[$i]}.tz" "rec$i.tz" >/dev/null || fail "recover of file $i"
	cmp -s <("$A" cat "rec.tz[$i]") <("$A" cat "rec$i.tz") || fail "recover's member $i differs from recover of its file"
done
"$A" verify rec.tz >/dev/null || fail "verify of the recovered merge"
# cat prints each member's events after a line naming it, exactly as cat of
# the member (and of the file it was merged from) prints them
"$A" cat run.tz >cat-run.txt || fail "cat run.tz"
files=(a b c)
for i in 0 1 2; do
	echo "== run.tz[$i]: host node$((i + 1)) =="
	"$A" cat "${files[$i]}.tz"
done >cat-want.txt
cmp -s cat-run.txt cat-want.txt || fail "cat run.tz differs from cat of its three files: $(diff cat-run.txt cat-want.txt | head -5)"
"$A" cat --type exit 'run.tz[2]' >cat-m2.txt && "$A" cat --type exit c.tz | cmp -s - cat-m2.txt ||
	fail "cat --type exit of member 2 differs from c.tz's"
rc=0; "$A" cat --type nosuch run.tz >/dev/null 2>s.err || rc=$?
[ $rc = 2 ] && grep -q "'nosuch' is not an event type of 'run.tz\[0\]'" s.err || fail "cat --type nosuch: rc $rc $(cat s.err)"
# ... and reads a member named RUN.tz[i] as the trace it was
"$A" rightsize --json 'run.tz[1]' >m1.json || fail "rightsize run.tz[1]"
"$A" rightsize --json b.tz >b1.json
cmp -s m1.json b1.json || fail "rightsize of member 1 differs from rightsize b.tz"
rc=0; "$A" rightsize 'run.tz[3]' >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] && grep -q "^tracer-analyze: 'run.tz\[3\]': 'run.tz' holds 3 member traces (0 to 2)" s.err ||
	fail "member 3 of 3: rc $rc $(cat s.err)"
# members named RUN.tz[i] among several arguments: those members alone
"$A" summary --json 'run.tz[0]' 'run.tz[2]' >m02.json || fail "summary of two members"
"$A" summary --json a.tz c.tz >ac.json
python3 -c '
import json
x, y = json.load(open("m02.json")), json.load(open("ac.json"))
assert [h["hostname"] for h in x["run"]["per_host"]] == ["node1", "node3"], x["run"]["per_host"]
assert x["run"]["processes"] == y["run"]["processes"] and x["run"]["cpu_s"] == y["run"]["cpu_s"]
' || fail "members named among several arguments"
rc=0; "$A" summary a.tz 'run.tz[3]' >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] && grep -q "^tracer-analyze: summary: 'run.tz\[3\]': 'run.tz' holds 3 member traces (0 to 2)$" s.err ||
	fail "member 3 of 3 among several: rc $rc $(cat s.err)"
# a merge cut exactly at a member's end: damage (FORMAT.md [X4]), not fewer hosts
m1end=$("$A" info --json run.tz | python3 -c 'import json,sys; m=json.load(sys.stdin)["members"][0]; print(m["offset"] + m["bytes"])')
head -c "$m1end" run.tz >cutb.tz
rc=0; "$A" verify cutb.tz >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] && grep -q "the merge metadata says 3 members, the file holds 1" s.err || fail "verify of a merge cut at a member's end: rc $rc $(cat s.err)"
rc=0; "$A" summary cutb.tz >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] || fail "summary of a merge cut at a member's end: rc $rc"
"$A" --partial summary --json cutb.tz >cutb.json 2>/dev/null || fail "--partial summary of the cut merge"
python3 -c 'import json; assert json.load(open("cutb.json"))["run"]["hosts"] == 1' || fail "--partial: the member that remains"
# a merge with no member at all is refused
head -c "$("$A" info --json run.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["members"][0]["offset"] - 80)')" run.tz >nomem.tz
rc=0; "$A" --partial summary nomem.tz >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] && grep -q "a multi-host trace that holds no member trace" s.err || fail "empty merge: rc $rc $(cat s.err)"
# --partial leaves out a member that cannot be opened (its magic broken) and reads the others
cp run.tz bad0.tz
off=$("$A" info --json run.tz | python3 -c 'import json,sys; print(json.load(sys.stdin)["members"][0]["offset"])')
printf 'X' | dd of=bad0.tz bs=1 seek="$off" conv=notrunc 2>/dev/null
"$A" --partial summary --json bad0.tz >bad0.json 2>s.err || fail "--partial over an unreadable member: $(cat s.err)"
grep -q "note: 'bad0.tz\[0\]' left out (--partial): it cannot be read" s.err || fail "left-out note: $(cat s.err)"
python3 -c '
import json; d = json.load(open("bad0.json"))
assert [h["hostname"] for h in d["run"]["per_host"]] == ["node2", "node3"], d["run"]["per_host"]' || fail "--partial: the other members"
"$A" recover bad0.tz rec-bad0.tz >/dev/null 2>s.err || fail "recover over an unreadable member: $(cat s.err)"
grep -q "recover: note: 'bad0.tz\[0\]' left out: it cannot be read" s.err || fail "recover's left-out note: $(cat s.err)"
[ "$("$A" info --json rec-bad0.tz | python3 -c 'import json,sys; print(",".join(m["hostname"] for m in json.load(sys.stdin)["members"]))')" = node2,node3 ] ||
	fail "recover of bad0.tz: not the two readable members"
# damage in a MEMBER block: refused; --partial reads the other members and
# says what it skipped
cp run.tz badm.tz
printf 'X' | dd of=badm.tz bs=1 seek="$((off - 100))" conv=notrunc 2>/dev/null
rc=0; "$A" summary badm.tz >/dev/null 2>s.err || rc=$?
[ $rc = 1 ] && grep -q "damaged region.*--partial" s.err || fail "damaged MEMBER block: rc $rc $(cat s.err)"
"$A" --partial summary --json badm.tz >badm.json 2>s.err || fail "--partial over a damaged MEMBER block: $(cat s.err)"
grep -q "^tracer-analyze: summary: note: 'badm.tz': 1 damaged region of the multi-host trace skipped" s.err ||
	fail "--partial: the skipped region not said: $(cat s.err)"
# a member that repeats an earlier one's recording (same uuid): read once,
# and said (recover's OUT has one member fewer than IN)
cp "$TESTS_DIR/data/conformance/multi-duplicate.tz" dupm.tz
"$A" recover dupm.tz dupr.tz >/dev/null 2>d.err || fail "recover of a container with a duplicate member: $(cat d.err)"
grep -qx "tracer-analyze: recover: note: 'dupm.tz\[2\]' is the same recording as 'dupm.tz\[0\]': read once" d.err ||
	fail "duplicate member not said: $(cat d.err)"
[ "$("$A" info --json dupr.tz | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))')" = 2 ] ||
	fail "recover of a duplicate member: not 2 members"
echo "ok: 3 hosts merged byte for byte; duplicates once; damaged/cut refused, --partial marked; flat; directory"
