#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A writer killed with SIGKILL mid-write: info/cat read the file, recover
# restores it, and the loss is at most the open chunk (every event the writer
# had sealed before the kill is there, in order, without gaps).
set -eu
A=${TRACER_ANALYZE:?} H=${TESTS_HELPERS:?}
tmp=$(mktemp -d /tmp/tz-kill.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run_and_kill CHUNKS ARGS...: tzwriter_loop -R ARGS in the background, killed
# with SIGKILL once it logged CHUNKS sealed chunks (or after 10 s); $sealed:
# the events it had sealed by its last log line
run_and_kill() {
	local chunks=$1; shift
	"$H/tzwriter_loop" -R "$@" >"$tmp/log" &
	pid=$!
	for _ in $(seq 100); do
		[ "$(grep -c sealed "$tmp/log" || true)" -ge "$chunks" ] && break
		sleep 0.1
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	sealed=$(tail -n 1 "$tmp/log" | awk '/^sealed/ {print $2}')
}

for mode in "" "-t"; do
	rm -f "$tmp"/*
	run_and_kill 20 -c 16384 $mode "$tmp/k.tz"
	[ -n "$sealed" ] && [ "$sealed" -ge 20000 ] || fail "writer made no progress ($mode)"

	"$A" info "$tmp/k.tz" >"$tmp/info" || fail "info exit $? ($mode)"
	grep -q 'no footer' "$tmp/info" || fail "info: footer claimed on a killed file"
	# cat prints every sealed event and, the file having no footer, exits 1
	# with one line (0 with --partial)
	rc=0; "$A" cat "$tmp/k.tz" >"$tmp/cat" 2>"$tmp/cat.err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/cat.err")" -eq 1 ] ||
		fail "cat exit $rc ($mode): $(cat "$tmp/cat.err")"
	"$A" --partial cat "$tmp/k.tz" 2>/dev/null | cmp -s - "$tmp/cat" || fail "--partial cat differs ($mode)"
	n=$(wc -l <"$tmp/cat")
	[ "$n" -ge "$sealed" ] || fail "cat: $n events, $sealed were sealed before the kill"
	# fork/exec/exit cycle per pid 1000+i/3: no gap, no duplicate, in order
	awk -v want="$n" '{ split($0, f, " "); t = f[2];
		if (t == "fork") { match($0, /child_tgid=[0-9]+/); p = substr($0, RSTART + 11, RLENGTH - 11) }
		else { match($0, / tgid=[0-9]+/); p = substr($0, RSTART + 6, RLENGTH - 6) }
		if (p != 1000 + int((NR - 1) / 3)) { print "gap at line " NR ": " t " " p; exit 1 } }' \
		"$tmp/cat" || fail "events not contiguous ($mode)"

	"$A" recover "$tmp/k.tz" "$tmp/r.tz" >/dev/null || fail "recover exit $?"
	"$A" recover "$tmp/k.tz" "$tmp/r.tz" 2>"$tmp/err" && fail "recover overwrote without -f"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "recover: not one line: $(cat "$tmp/err")"
	"$A" verify "$tmp/r.tz" >/dev/null 2>"$tmp/err" || fail "verify of recovered: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] || fail "verify of recovered printed: $(cat "$tmp/err")"
	"$A" info "$tmp/r.tz" | grep -q 'footer index present' || fail "recovered has no footer"
	"$A" cat "$tmp/r.tz" | cmp -s - "$tmp/cat" || fail "recovered events differ"
done
# ring (flight-recorder) mode: the file stays at its size, the newest events
# survive the kill in order and without gaps, recover unrolls it
ring=1000000
run_and_kill 100 -c 65536 -r $ring "$tmp/ring.tz"
[ "$(stat -c %s "$tmp/ring.tz")" -eq $ring ] || fail "ring file size $(stat -c %s "$tmp/ring.tz")"
"$A" info "$tmp/ring.tz" | grep -q 'ring (flight recorder)' || fail "ring: info"
rc=0; "$A" cat "$tmp/ring.tz" >"$tmp/cat" 2>"$tmp/cat.err" || rc=$?
[ $rc = 1 ] && grep -q 'unfinished ring trace' "$tmp/cat.err" || fail "ring cat: exit $rc: $(cat "$tmp/cat.err")"
n=$(wc -l <"$tmp/cat")
[ "$n" -gt 10000 ] || fail "ring: only $n events"
# the last sealed event (fork/exec/exit of pid 1000 + (sealed-1)/3) is there
last=$((1000 + (sealed - 1) / 3))
grep -qE "( |child_)tgid=$last " "$tmp/cat" || fail "ring: pid $last (sealed before the kill) missing"
awk '{ split($0, f, " "); t = f[2];
	if (t == "fork") { match($0, /child_tgid=[0-9]+/); p = substr($0, RSTART + 11, RLENGTH - 11) }
	else { match($0, / tgid=[0-9]+/); p = substr($0, RSTART + 6, RLENGTH - 6) }
	if (NR > 1 && p != prev && p != prev + 1) { print "gap at line " NR; exit 1 }
	prev = p }' "$tmp/cat" || fail "ring: events not contiguous"
"$A" recover "$tmp/ring.tz" "$tmp/ring-lin.tz" >/dev/null || fail "ring recover"
"$A" cat "$tmp/ring-lin.tz" | cmp -s - "$tmp/cat" || fail "ring: unrolled copy differs"
echo "ok: killed writer recovered (linear, threaded, ring)"
