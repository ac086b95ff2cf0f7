#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze top --follow and summary --follow (one loop: analyze/follow.c)
# on a trace being written, linear and ring: a process that starts only
# after the follower printed its first refresh (the recorded command waits
# for a file the test creates then) shows up (top's row, summary's top tools
# row) in a refresh while the recording still runs (sealed chunks only); the
# follower ends by itself when the recorder closes the file, and its last
# refresh is `top` / `summary` of the finished trace. On a terminal, 'q'
# stops summary --follow of a trace still being written (exit 0, the
# terminal's modes restored). --follow with --json is a usage error.
source "$(dirname "$0")/lib.sh"
need_root
cd "$T"
cp /bin/sleep ./latecomer
follow() { # CMD MODE
	local cmd=$1 mode=$2 opt=() rp tp rc
	[ "$mode" = ring ] && opt=(--ring 8M)
	rm -f go "$mode.tz"
	timeout -k 5 120 "$R" "${opt[@]}" -f -o "$mode.tz" -- \
		sh -c 'while [ ! -e go ]; do sleep 0.1; done; ./latecomer 4' 2>"rec-$mode.err" &
	rp=$!
	bg_track $rp
	for _ in $(seq 100); do [ -s "$mode.tz" ] && break; sleep 0.1; done
	timeout 120 "$A" "$cmd" --follow --interval 1 "$mode.tz" >"$cmd-$mode.out" 2>"$cmd-$mode.err" &
	tp=$!
	bg_track $tp
	for _ in $(seq 300); do grep -q "^$cmd --follow" "$cmd-$mode.out" && break; sleep 0.1; done
	grep -q "^$cmd --follow" "$cmd-$mode.out" || fail "$cmd $mode: no first refresh"
	touch go
	rc=0
	wait $tp || rc=$?
	[ $rc = 0 ] || fail "$cmd $mode: --follow exit $rc: $(cat "$cmd-$mode.err")"
	wait $rp || fail "$cmd $mode: the recorder failed: $(cat "rec-$mode.err")"
	[ ! -s "$cmd-$mode.err" ] || fail "$cmd $mode: stderr: $(cat "$cmd-$mode.err")"
	timeout 60 python3 - "$cmd" "$mode" <<'PY' || fail "$cmd $mode: refreshes: $(cat "$cmd-$mode.out")"
import re, sys, subprocess, os
cmd, mode = sys.argv[1], sys.argv[2]
out = open("%s-%s.out" % (cmd, mode)).read()
tables = re.split(r"(?m)^(?=%s --follow )" % cmd, out)[1:]
assert len(tables) >= 3, len(tables)
heads = [t.split("\n", 1)[0] for t in tables]
row = r"(?m)^ *latecomer +1 " # summary's "traced" line names it from the start
assert not re.search(row, tables[0]), "latecomer before it started"
live = [t for t in tables if "  recording: " in t.split("\n", 1)[0]]
assert any(re.search(row, t) for t in live), "no live refresh shows latecomer"
assert "  finished: the whole trace" in heads[-1] and all("finished" not in h for h in heads[:-1]), heads
# the last refresh is `CMD` of the finished file (after its heading and blank line)
last = tables[-1].split("\n", 2)[2].rstrip("\n")
want = subprocess.run([os.environ["TRACER_ANALYZE"], cmd, "%s.tz" % mode], capture_output=True,
                      text=True, check=True).stdout.rstrip("\n")
assert last == want, (last, want)
PY
}
for mode in linear ring; do
	follow top $mode
	follow summary $mode
done
# 'q' on a terminal stops summary --follow while the recorder still runs
if command -v script >/dev/null; then
	rm -f q.tz
	timeout -k 5 120 "$R" -f -o q.tz -- sleep 60 2>rec-q.err &
	rp=$!
	bg_track $rp
	for _ in $(seq 100); do [ -s q.tz ] && break; sleep 0.1; done
	rc=0
	# (on a terminal each refresh starts with ESC [H ESC [2J: no ^ here)
	{ for _ in $(seq 600); do grep -q 'summary --follow' q.out 2>/dev/null && break; sleep 0.1; done
	  printf q; sleep 5; } |
		timeout -k 5 60 script -qfec "stty rows 40 cols 200; $A summary --follow -i 1 q.tz; stty -a >stty.txt" q.out \
			>/dev/null || rc=$?
	[ $rc = 0 ] || fail "q: summary --follow on a pty: exit $rc: $(cat -v q.out | tail -5)"
	kill -0 $rp 2>/dev/null || fail "q: the recorder ended first: $(cat rec-q.err)"
	grep -q 'recording: sealed chunks only' q.out || fail "q: no live refresh: $(cat -v q.out | head)"
	grep -q 'finished' q.out && fail "q: went on to the end"
	grep -qw icanon stty.txt && grep -qw echo stty.txt || fail "q: terminal modes not restored: $(cat stty.txt)"
	kill -INT $rp # its status is the stopped command's: not this test's subject
	wait $rp || true
fi
for cmd in top summary; do
	rc=0
	"$A" $cmd --follow --json linear.tz >/dev/null 2>err || rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || fail "$cmd --follow --json: exit $rc: $(cat err)"
done
echo ok
