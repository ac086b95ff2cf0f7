#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Disk full (issue 8.2, issue 15 point 3). A linear trace on a 2 MiB tmpfs:
# the recorder stops recording with one line on stderr, leaves a sealed file
# (footer, verify clean, every exec it kept forms an unbroken prefix of the
# storm), and the traced command runs on to its end unharmed: the recorder
# waits for it, passes on a SIGTERM sent to it, and exits with its status.
# A filesystem full at start: one line, no file, the command runs anyway. A ring trace preallocated on
# that tmpfs, with the rest of the tmpfs then filled up, never fails while
# it wraps several times; a ring larger than the free space is refused at
# start with one line and no file left behind.
. "$(dirname "$0")/rlib.sh"
need_root
cd "$T"
mkdir mnt
mount -t tmpfs -o size=2m,mode=0700 tracer-rel-full "$T/mnt" || { echo "skip: cannot mount a tmpfs"; exit 77; }
on_exit 'umount -l "$T/mnt"'

# --- linear: the disk fills up mid-storm; the recorder stops recording but
# not COMMAND: it waits for it and exits with its status (issue 15 point 3)
N=3000
rc=0
record -o mnt/full.tz -- sh -c "$S -n $N -a 4000 -d $T/done; exit 7" || rc=$?
[ $rc = 7 ] || fail "disk full: recorder exit $rc, want COMMAND's 7"
[ -e done ] || fail "the recorder exited before COMMAND"
[ "$(wc -l <rec.err)" = 1 ] || fail "disk full: not one line on stderr: $(cat rec.err)"
# the line says "sealed" only when the file is (space for the footer is
# reserved ahead, so it normally is); otherwise it says so, and recover
# restores every complete chunk
f=mnt/full.tz
if ! grep -qx "tracer-record: 'mnt/full.tz': disk full: recording stopped, the file is sealed with everything written before (free space, or use --ring SIZE)" rec.err; then
	grep -qx "tracer-record: 'mnt/full.tz': disk full: recording stopped, the file is not sealed (tracer-analyze recover restores what was written)" rec.err ||
		fail "disk full message: $(cat rec.err)"
	! "$A" verify $f >/dev/null 2>&1 || fail "'not sealed' but verify is clean"
	"$A" recover $f rec.tz 2>recover.err || fail "recover: $(cat recover.err)"
	f=rec.tz
	"$A" verify $f >/dev/null 2>verify.err || fail "verify of the recovered file: $(cat verify.err)"
	echo "linear: the file was not sealed (the line said so); recovered"
else
	"$A" verify $f >/dev/null 2>verify.err || fail "verify of the full disk's file: $(cat verify.err)"
	"$A" info $f >info.txt || fail "info"
	grep -q 'footer index present' info.txt || fail "the file is not sealed (no footer)"
	[ "$(meta info.txt stop_reason)" = disk ] || fail "stop_reason: $(grep stop_reason info.txt)"
	# what reached the file is counted exactly; what did not is said
	ev=$(awk '$1 == "events" { print $2; exit }' info.txt)
	[ "$(meta info.txt events_written)" = "$ev" ] || fail "events_written $(meta info.txt events_written), the file holds $ev"
	[ "$(meta info.txt events_unwritten)" -gt 0 ] || fail "events_unwritten: $(meta info.txt events_unwritten)"
	# summary says so (it said "0 events dropped" and nothing of the stop)
	"$A" summary $f >sum.txt || fail "summary"
	grep -q "^lost .*$(meta info.txt events_unwritten) recorded but not written" sum.txt || fail "summary lost line: $(grep ^lost sum.txt)"
	grep -qx 'stopped    disk full: recording ended early, later events were not recorded' sum.txt || fail "summary: no stopped line: $(head -12 sum.txt)"
	"$A" summary --json $f | python3 -c "import json,sys; r=json.load(sys.stdin)['recorder']; sys.exit(0 if r['stop_reason'] == 'disk full' and r['events_unwritten'] > 0 else 1)" ||
		fail "summary --json: recorder stop_reason/events_unwritten"
	grep -q '^  write_error  *no space left on device$' info.txt || fail "no write_error metadata"
fi
k=$(exec_ids $f 0 | prefix_len) || fail "execs kept are not a prefix of the storm"
[ "$k" -ge 50 ] && [ "$k" -lt $N ] || fail "kept $k execs of $N"
# the traced command is not harmed: it ran to its end with every exec ok
[ "$(cat done)" = "$N 0" ] || fail "the storm after the recorder stopped: $(cat done), want '$N 0'"
rm -f done
echo "linear: $k of $N execs kept"
rm -f mnt/full.tz

# --- ring: preallocated, then the disk is filled by someone else
rm -f go
"$R" --ring 1M -o mnt/ring.tz -- sh -c "while [ ! -e $T/go ]; do sleep 0.05; done; exec $S -n 1500 -a 4000" \
	2>ring.err &
rp=$!
bg_track $rp
for _ in $(seq 100); do [ -s mnt/ring.tz ] && break; sleep 0.1; done
[ "$(stat -c %s mnt/ring.tz)" = 1048576 ] || fail "ring file not preallocated: $(stat -c %s mnt/ring.tz) bytes"
dd if=/dev/zero of=mnt/filler bs=64k 2>/dev/null && fail "the filler did not fill the tmpfs"
[ "$(df --output=avail "$T/mnt" | tail -1)" -lt 64 ] || fail "tmpfs not full: $(df "$T/mnt")"
: >go
rc=0
wait $rp || rc=$?
[ $rc = 0 ] || fail "ring on a full disk: recorder exit $rc: $(cat ring.err)"
[ ! -s ring.err ] || fail "ring on a full disk printed: $(cat ring.err)"
[ "$(stat -c %s mnt/ring.tz)" = 1048576 ] || fail "ring file grew: $(stat -c %s mnt/ring.tz)"
"$A" verify mnt/ring.tz >/dev/null 2>verify.err || fail "verify ring: $(cat verify.err)"
ids=$(exec_ids mnt/ring.tz 0 | tail -n 1)
[ "$ids" = 1499 ] || fail "ring: newest exec kept is $ids, want 1499"
first=$(exec_ids mnt/ring.tz 0 | head -n 1)
[ "$first" -gt 0 ] || fail "ring: did not wrap (oldest exec kept $first)"
echo "ring: execs $first..1499 kept after wrapping on a full disk"

# --- SIGTERM to the recorder after the disk filled up is passed on to
# COMMAND (the recorder only stands in for it now); a terminal's signal
# would have reached COMMAND's process group itself and is not sent twice
rm -f mnt/full.tz
"$R" -o mnt/full.tz -- "$S" -n 100000 -a 4000 -d "$T/done2" 2>term.err &
rp=$!
bg_track $rp
for _ in $(seq 600); do grep -q 'disk full' term.err 2>/dev/null && break; sleep 0.1; done
grep -q 'disk full' term.err || fail "SIGTERM after disk full: the disk did not fill: $(cat term.err)"
kill -TERM $rp
rc=0; wait $rp || rc=$?
[ $rc = 143 ] || fail "SIGTERM after disk full: recorder exit $rc, want 143 (COMMAND killed by SIGTERM)"
[ ! -e done2 ] || fail "SIGTERM after disk full: COMMAND ran to its end"
[ "$(wc -l <term.err)" = 1 ] || fail "SIGTERM after disk full: $(cat term.err)"
rm -f mnt/full.tz

# --- a filesystem already full at start: the same one-line message, no
# file left behind, COMMAND runs (unrecorded) and gives the status
dd if=/dev/zero of=mnt/filler bs=64k 2>/dev/null && fail "the filler did not fill the tmpfs"
dd if=/dev/zero of=mnt/filler2 bs=4k 2>/dev/null && fail "the filler did not fill the tmpfs"
rc=0
record -o mnt/none.tz -- sh -c "echo ran >$T/ran; exit 5" || rc=$?
[ $rc = 5 ] || fail "full at start: recorder exit $rc, want COMMAND's 5"
[ "$(cat ran)" = ran ] || fail "full at start: COMMAND did not run"
[ ! -e mnt/none.tz ] || fail "full at start: a file was left behind"
[ "$(wc -l <rec.err)" = 1 ] || fail "full at start: not one line: $(cat rec.err)"
grep -qx "tracer-record: 'mnt/none.tz': disk full: nothing recorded, the command runs unrecorded (free space, or use --ring SIZE)" rec.err ||
	fail "full at start: $(cat rec.err)"
rm -f mnt/filler mnt/filler2

# --- ring larger than the free space: refused at start, nothing left
rm -f mnt/ring.tz mnt/filler
rc=0
record --ring 4M -o mnt/big.tz -- true || rc=$?
[ $rc = 1 ] || fail "ring larger than the disk: exit $rc, want 1"
[ "$(wc -l <rec.err)" = 1 ] || fail "ring larger than the disk: $(cat rec.err)"
grep -q "cannot preallocate 4194304 bytes: No space left on device" rec.err || fail "message: $(cat rec.err)"
[ ! -e mnt/big.tz ] || fail "a failed ring preallocation left a file"

# --- the analyzer's writers on a full disk: slice and recover of a trace and
# of a run on several hosts (each host written into a hidden file beside OUT
# first) fail with one line naming OUT (a host: OUT[i]) once, and leave no
# file, neither OUT nor a hidden one (a partial recover looked like a result)
mkdir mnt2
mount -t tmpfs -o size=64k,mode=0700 tracer-rel-full2 "$T/mnt2" || fail "cannot mount a second tmpfs"
on_exit 'umount -l "$T/mnt2"'
cp "${TESTS_DIR:?}/../samples/pipeline.tz" p.tz # 87 KB: more than the disk
"$A" merge -o run.tz p.tz "$TESTS_DIR/data/good/small.tz" 2>merge.err || fail "merge: $(cat merge.err)"
for c in "slice p.tz mnt2/o.tz" "recover p.tz mnt2/o.tz" "slice run.tz mnt2/o.tz" "recover run.tz mnt2/o.tz"; do
	rc=0
	# shellcheck disable=SC2086 # the words of $c
	"$A" $c >/dev/null 2>w.err || rc=$?
	[ $rc = 1 ] || fail "$c on a full disk: exit $rc, want 1: $(cat w.err)"
	[ "$(wc -l <w.err)" = 1 ] || fail "$c on a full disk: not one line: $(cat w.err)"
	case $c in *run.tz*) name="mnt2/o.tz\[0\]" ;; *) name=mnt2/o.tz ;; esac
	grep -q "'$name.*No space left on device" w.err || fail "$c: does not name OUT: $(cat w.err)"
	[ "$(grep -o "mnt2/o.tz" w.err | wc -l)" = 1 ] || fail "$c: OUT named more than once: $(cat w.err)"
	[ -z "$(ls -A mnt2)" ] || fail "$c on a full disk left: $(ls -A mnt2)"
done
echo ok
