#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Files that look whole but are not (tester's F2-F5, FORMAT.md sections 9, 10,
# 14): a ring recording cut short or whose recorder was killed, a closed file
# whose index (checksums right) does not describe its blocks, a chunk over the
# reader's size limit, and the overlap limit's message. Each is refused by the
# analysis commands with one line naming file and offset (exit 1), read with
# --partial, and recover still works.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export -n TRACER_ANALYZE_PARTIAL 2>/dev/null || true
unset TRACER_ANALYZE_PARTIAL
D=${TESTS_DIR:?}/data/good

expect_err() { # want-rc want-stderr-line cmd... : exact exit status and one stderr line
	local rc=0 want=$1 line=$2
	shift 2
	timeout 60 "$@" >out 2>err || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$*: not one line: $(cat err)"
	[ "$(cat err)" = "$line" ] || fail "$*: got '$(cat err)', want '$line'"
}

work='for j in $(seq 40); do for i in $(seq 20); do /bin/true & done; wait; done'

# --- F2: a finished ring recording, then a copy cut 5000 bytes into segment 0
record --ring 1M -o ring.tz -- sh -c "$work" || fail "record --ring"
[ "$(stat -c %s ring.tz)" = 1048576 ] || fail "ring.tz is $(stat -c %s ring.tz) bytes"
timeout 60 "$A" summary ring.tz >/dev/null 2>err || fail "summary of the finished ring: $(cat err)"
head -c $((65536 + 5000)) ring.tz >t.tz
cut="tracer-analyze: 't.tz': offset 70536: ring file cut short: 70536 of its 1048576 bytes"
expect_err 1 "$cut: 1 damaged block (see 'tracer-analyze verify'; 'tracer-analyze --partial' analyzes the rest)" \
	"$A" summary t.tz
timeout 60 "$A" verify t.tz >out 2>err && fail "verify of the cut ring said ok"
[ "$(head -n 1 err)" = "$cut" ] || fail "verify: $(cat err)"
# the good ones: the blocks of the whole file that end before the cut (how
# many chunks fit depends on how fast the workload ran: 1 s chunks)
good=$(timeout 60 "$A" verify -v ring.tz | awk '$1 == "offset" && $2 + $6 <= 70536 { n++ } END { print n + 0 }')
[ "$(tail -n 1 err)" = "tracer-analyze: 't.tz': 1 bad block, $good good" ] || fail "verify: $(cat err) (want $good good)"
timeout 60 "$A" --partial summary t.tz >out 2>err || fail "--partial summary t.tz: $(cat err)"
grep -q '^\*\*\* TREE INCOMPLETE: .*1 corrupt block[; ]' out || fail "--partial: not flagged: $(cat out)"
timeout 60 "$A" recover t.tz t-rec.tz >/dev/null 2>err || fail "recover t.tz: $(cat err)"
timeout 60 "$A" verify t-rec.tz >/dev/null 2>err || fail "verify of recovered t.tz: $(cat err)"

# --- F2: the recorder killed: the final metadata slot stays zero
# (COMMAND runs until the test says stop: on a loaded machine any fixed
# amount of work could end before a chunk was sealed)
"$R" --ring 1M -o k.tz -- sh -c "echo \$\$ >wpid; while [ ! -e stop ]; do $work; done" 2>/dev/null &
rp=$!
bg_track $rp
# killed once it has sealed a chunk of COMMAND's events (a loaded machine
# may take seconds to start it)
for _ in $(seq 600); do
	# (into a file: grep -q ending the pipe early would make cat's SIGPIPE
	# fail the pipeline under pipefail once the output passes 64 KiB)
	[ -s wpid ] && { timeout 10 "$A" --partial cat --type exec k.tz >kcat.out 2>/dev/null || true; } &&
		grep -q ' exec ' kcat.out && break
	sleep 0.1
done
kill -9 $rp || fail "the recorder ended before it was killed"
wait $rp 2>/dev/null || true
: >stop
[ -s wpid ] && { bg_track "$(cat wpid)"; kill "$(cat wpid)" 2>/dev/null || true; }
dd if=k.tz bs=32768 skip=1 count=1 2>/dev/null | cmp -s - <(head -c 32768 /dev/zero) || fail "final slot not empty"
msg="tracer-analyze: 'k.tz': offset 32768: unfinished ring trace (final metadata slot empty: the recorder did not stop cleanly); 'tracer-analyze recover' keeps what was sealed, 'tracer-analyze --partial' analyzes it as is"
expect_err 1 "$msg" "$A" summary k.tz
expect_err 1 "$msg" "$A" tree k.tz
expect_err 0 "tracer-analyze: 'k.tz': offset 32768: note: final metadata slot empty (not closed cleanly); 'tracer-analyze recover' writes a complete copy" \
	"$A" verify k.tz
timeout 60 "$A" info k.tz >out || fail "info k.tz"
# (a slow machine may run COMMAND long enough to wrap the 1 MiB ring first)
grep -Eqx 'format        1.0, ring \(flight recorder\)( \(wrapped: its oldest data was overwritten\))?, not closed cleanly \(final metadata slot empty\)' out ||
	fail "info k.tz: $(head -n 3 out)"
timeout 60 "$A" --partial summary k.tz >/dev/null 2>err || fail "--partial summary k.tz: $(cat err)"
# cat prints every sealed block but exits 1 on an unfinished file (issue 19);
# with --partial it accepts the file as it is
rc=0; timeout 60 "$A" cat k.tz >cat.k1 2>err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] || fail "cat k.tz: exit $rc: $(cat err)"
timeout 60 "$A" --partial cat k.tz >cat.k 2>err || fail "--partial cat k.tz: $(cat err)"
cmp -s cat.k cat.k1 || fail "cat and --partial cat of k.tz print different events"
timeout 60 "$A" recover k.tz k-rec.tz >/dev/null 2>err || fail "recover k.tz: $(cat err)"
grep -qx "tracer-analyze: 'k.tz': unfinished (final metadata slot empty): what its recorder had not sealed is not in it" err ||
	fail "recover k.tz: $(cat err)"
timeout 60 "$A" summary k-rec.tz >out 2>err || fail "summary of recovered k.tz: $(cat err)"
# the copy says what its input lost (issue 23: it said "lost none")
grep -Eq "^lost       .*(recovered from an unfinished file|of its input, unfinished): what its recorder had not sealed was not in it" out ||
	fail "recovered k.tz: $(grep '^lost' out)"
grep -Eq "^\*\*\* TREE INCOMPLETE: .*(recovered from an unfinished file|of its input, unfinished)" out ||
	fail "recovered k.tz: no banner: $(grep -A1 '^lost' out)"
timeout 60 "$A" cat k-rec.tz | cmp -s - cat.k || fail "recovered k.tz reads differently"

# --- F3, F4: index entries rewritten with their checksums right
cat >mut.py <<'PY'
import ctypes, struct, sys
x = ctypes.CDLL("libxxhash.so.0")
x.XXH3_64bits.restype = ctypes.c_uint64
H = lambda b: x.XXH3_64bits(bytes(b), len(b))
d = bytearray(open(sys.argv[1], "rb").read())
t = len(d) - 64
io, isz = struct.unpack_from("<QQ", d, t + 32)
p = io + 40
n = (isz - 40) // 88
ch = [i for i in range(n) if struct.unpack_from("<I", d, p + i * 88 + 24)[0] == 3]
k = ch[len(ch) // 2]
e = p + k * 88
off = struct.unpack_from("<Q", d, e)[0]
if sys.argv[3] == "type":      # the entry's type CHUNK -> 35
    struct.pack_into("<I", d, e + 24, 35)
elif sys.argv[3] == "delete":  # the entry deleted (index and trailer rewritten)
    nxt = struct.unpack_from("<Q", d, e + 88)[0]
    del d[e:e + 88]
    isz -= 88
    struct.pack_into("<II", d, io + 8, isz - 40, isz - 40)
    t = len(d) - 64
    struct.pack_into("<QQ", d, t + 40, isz, len(d))
    struct.pack_into("<Q", d, t + 56, H(d[t:t + 56]))
    off = nxt  # printed: the end of the unlisted bytes
elif sys.argv[3] == "big":     # the chunk (header and entry) claims 70,000,000 bytes
    struct.pack_into("<I", d, off + 12, 70000000)
    struct.pack_into("<Q", d, off + 88, H(d[off:off + 88]))
    struct.pack_into("<I", d, e + 20, 70000000)
struct.pack_into("<Q", d, io + 24, H(d[p:io + isz]))
struct.pack_into("<Q", d, io + 32, H(d[io:io + 32]))
open(sys.argv[2], "wb").write(d)
print(k, off, struct.unpack_from("<Q", d, e + 8)[0], io, struct.unpack_from("<Q", d, io + 16)[0])
PY
cp "$D/small.tz" s.tz
timeout 60 "$A" summary s.tz >good.txt 2>err || fail "summary small.tz: $(cat err)"
read -r k off seq io iseq < <(python3 mut.py s.tz r2.tz type) || fail "mut.py type"
line="tracer-analyze: 'r2.tz': offset $io: index $iseq: entry $k (type 35, seq $seq) does not match the block at $off (chunk)"
expect_err 1 "$line: footer index ignored, blocks found by scanning ('tracer-analyze verify' checks them, 'tracer-analyze recover' rewrites the index, 'tracer-analyze --partial' analyzes it as is)" \
	"$A" summary r2.tz
timeout 60 "$A" verify r2.tz >out 2>err && fail "verify r2.tz said ok"
grep -qxF "$line" err || fail "verify r2.tz: $(cat err)"
# with --partial every event is there: the same summary as the intact file
timeout 60 "$A" --partial summary r2.tz 2>err | sed 's/r2\.tz/s.tz/' | sed '1s/, [0-9.]* [KM]iB$//' >p.txt ||
	fail "--partial summary r2.tz: $(cat err)"
sed '1s/, [0-9.]* [KM]iB$//' good.txt | cmp -s - p.txt || fail "--partial r2.tz: $(diff good.txt p.txt | head)"
timeout 60 "$A" info r2.tz >out 2>err || fail "info r2.tz: $(cat err)"
grep -q 'footer index unusable (damaged or stale' out || fail "info r2.tz: $(head -n 3 out)"
[ "$(cat err)" = "${line#tracer-analyze: }" ] || [ "$(cat err)" = "$line" ] || fail "info r2.tz stderr: $(cat err)"
timeout 60 "$A" recover r2.tz r2-rec.tz >/dev/null 2>err || fail "recover r2.tz: $(cat err)"
timeout 60 "$A" summary r2-rec.tz >/dev/null 2>err || fail "summary of recovered r2.tz: $(cat err)"

read -r _ koff _ _ _ < <(python3 mut.py s.tz r2.tz type) || fail "mut.py type"
read -r k next seq io iseq < <(python3 mut.py s.tz r3.tz delete) || fail "mut.py delete"
expect_err 1 "tracer-analyze: 'r3.tz': offset $io: index $iseq: entry $k: bytes $koff..$next before it are not listed: footer index ignored, blocks found by scanning ('tracer-analyze verify' checks them, 'tracer-analyze recover' rewrites the index, 'tracer-analyze --partial' analyzes it as is)" \
	"$A" summary r3.tz

# F4: the real cause, not 'no footer'
read -r k off seq io iseq < <(python3 mut.py s.tz big.tz big) || fail "mut.py big"
expect_err 1 "tracer-analyze: 'big.tz': offset $off: chunk $seq: 70000000 uncompressed bytes exceed the reader's limit (67108864): 1 damaged block (see 'tracer-analyze verify'; 'tracer-analyze --partial' analyzes the rest)" \
	"$A" summary big.tz

# --- a linear file cut inside a chunk (`head -c`; issue 23): said as what it
# is, "the file ends inside chunk N at offset X", not as a recorder that
# stopped without closing it; recover writes what was lost into its copy and
# the copy's summary says it (it said "lost none")
record -o lin.tz -- sh -c 'for j in $(seq 6); do for i in $(seq 20); do /bin/true & done; wait; sleep 1.1; done' ||
	fail "record lin.tz"
# the last chunk with events: its offset, seq, size and events
read -r coff cseq csize cev < <(timeout 60 "$A" verify -v lin.tz |
	awk '$1 == "offset" && $3 == "chunk" && $8 > 0 { o = $2; s = $5; z = $6; e = $8 } END { print o, s, z, e }')
[ -n "$cev" ] && [ "$csize" -gt 200 ] || fail "no chunk to cut in lin.tz: $(timeout 60 "$A" verify -v lin.tz)"
kept=$((csize / 2))
head -c $((coff + kept)) lin.tz >cutc.tz
fmt() { python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$1"; }
plural() { [ "$1" = 1 ] && echo "" || echo s; }
cutline="the file ends inside chunk $cseq at offset $coff ($(fmt $kept) of its $(fmt "$csize") bytes; its $(fmt "$cev") event$(plural "$cev") lost): cut or still being written"
expect_err 1 "tracer-analyze: 'cutc.tz': $cutline; 'tracer-analyze recover' keeps what was sealed, 'tracer-analyze --partial' analyzes it as is" \
	"$A" summary cutc.tz
timeout 60 "$A" info cutc.tz >out 2>err || fail "info cutc.tz: $(cat err)"
grep -qxF "cut           $cutline" out || fail "info cutc.tz: $(grep -A1 '^damaged' out)"
timeout 60 "$A" info --json cutc.tz >out 2>err || fail "info --json cutc.tz: $(cat err)"
python3 - out "$coff" "$cseq" "$csize" "$cev" "$kept" <<'PY' || fail "info --json cutc.tz: $(head -c 600 out)"
import json, sys
d = json.load(open(sys.argv[1]))
off, seq, size, ev, kept = map(int, sys.argv[2:])
assert d["torn_tail_offset"] == off and d["torn_tail_block"] == f"chunk {seq}", d
assert d["torn_tail_block_bytes"] == size and d["torn_tail_events"] == ev, d
assert d["torn_tail_bytes"] == kept, d
PY
timeout 60 "$A" --partial summary cutc.tz >out 2>err || fail "--partial summary cutc.tz: $(cat err)"
grep -qxF "lost       $cutline" out || fail "cut file: lost line: $(grep '^lost' out) (want: $cutline)"
grep -qxF "*** TREE INCOMPLETE: $cutline ***" out || fail "cut file: banner: $(grep 'INCOMPLETE' out)"
grep -q "without closing\|corrupt block" out && fail "cut file called a crash or corrupt: $(cat out)"
rc=0
timeout 60 "$A" recover cutc.tz recc.tz >out 2>err || rc=$?
[ $rc = 0 ] || fail "recover cutc.tz: exit $rc: $(cat err)"
[ "$(cat err)" = "tracer-analyze: 'cutc.tz': $cutline, left out" ] || fail "recover cutc.tz: stderr $(cat err)"
grep -q "(the losses are in its metadata)\$" out || fail "recover cutc.tz: $(cat out)"
timeout 60 "$A" summary recc.tz >out 2>err || fail "summary of the recovered copy: $(cat err)"
rline="recover left out 1 damaged block of its input, which ended inside chunk $cseq at offset $coff (its $cev event$(plural "$cev") lost)"
grep -qxF "lost       $rline" out || fail "recovered copy: lost line: $(grep '^lost' out) (want: $rline)"
grep -qxF "*** TREE INCOMPLETE: $rline ***" out || fail "recovered copy: banner: $(grep 'INCOMPLETE' out)"
timeout 60 "$A" summary --json recc.tz | python3 -c 'import json, sys; assert json.load(sys.stdin)["incomplete"] is True' ||
	fail "recovered copy: summary --json not incomplete"
# a whole file's copy lost nothing and says so
timeout 60 "$A" recover lin.tz recw.tz >out 2>err || fail "recover lin.tz: $(cat err)"
[ ! -s err ] && ! grep -q "losses" out || fail "recover of a whole file: $(cat out err)"
timeout 60 "$A" summary recw.tz | grep -qx "lost       none" || fail "whole file's copy: $(grep '^lost' out)"

# --- F5: the overlap limit names the total that would have been held
G=$H/tzwriter_hostile
if [ -x "$G" ]; then
	"$G" ov.tz overlap 8 || fail "generating ov.tz"
	rc=0
	timeout 120 "$A" cat ov.tz >/dev/null 2>err || rc=$?
	[ $rc = 1 ] || fail "cat ov.tz: exit $rc: $(head -c 300 err)"
	read -r held lim < <(sed -n 's/.*too many chunks overlap in time (\([0-9]*\) bytes decoded at once, over the limit of \([0-9]*\))$/\1 \2/p' err)
	[ "$lim" = 268435456 ] || fail "overlap limit: $(cat err)"
	[ "$held" -gt "$lim" ] || fail "overlap: $held bytes reported, not over $lim"
fi
echo ok
