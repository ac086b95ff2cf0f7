#!/usr/bin/env bash
# tracer-analyze top --follow on a trace being written, linear and ring: a
# process that starts only after top --follow printed its first table (the
# recorded command waits for a file the test creates then) shows up in a
# table while the recording still runs (sealed chunks only); top --follow
# ends by itself when the recorder closes the file, and its last table is
# `top` of the finished trace. --follow with --json is a usage error.
source "$(dirname "$0")/lib.sh"
need_root
cd "$T"
cp /bin/sleep ./latecomer
for mode in linear ring; do
	opt=()
	[ $mode = ring ] && opt=(--ring 8M)
	rm -f go "$mode.tz"
	timeout -k 5 120 "$R" "${opt[@]}" -f -o "$mode.tz" -- \
		sh -c 'while [ ! -e go ]; do sleep 0.1; done; ./latecomer 4' 2>"rec-$mode.err" &
	rp=$!
	bg_track $rp
	for _ in $(seq 100); do [ -s "$mode.tz" ] && break; sleep 0.1; done
	timeout 120 "$A" top --follow --interval 1 "$mode.tz" >"top-$mode.out" 2>"top-$mode.err" &
	tp=$!
	bg_track $tp
	for _ in $(seq 300); do grep -q '^top --follow' "top-$mode.out" && break; sleep 0.1; done
	grep -q '^top --follow' "top-$mode.out" || fail "$mode: no first table"
	touch go
	rc=0
	wait $tp || rc=$?
	[ $rc = 0 ] || fail "$mode: top --follow exit $rc: $(cat "top-$mode.err")"
	wait $rp || fail "$mode: the recorder failed: $(cat "rec-$mode.err")"
	[ ! -s "top-$mode.err" ] || fail "$mode: stderr: $(cat "top-$mode.err")"
	timeout 60 python3 - "$mode" <<'PY' || fail "$mode: tables: $(cat "top-$mode.out")"
import re, sys, subprocess, os
mode = sys.argv[1]
out = open("top-%s.out" % mode).read()
tables = re.split(r"(?m)^(?=top --follow )", out)[1:]
assert len(tables) >= 3, len(tables)
heads = [t.split("\n", 1)[0] for t in tables]
assert "latecomer" not in tables[0], "latecomer before it started"
live = [t for t in tables if "  recording: " in t.split("\n", 1)[0]]
assert any(re.search(r"(?m)^latecomer +1 ", t) for t in live), "no live table shows latecomer"
assert "  finished: the whole trace" in heads[-1] and all("finished" not in h for h in heads[:-1]), heads
# the last table is `top` of the finished file (after its heading and blank line)
last = tables[-1].split("\n", 2)[2].rstrip("\n")
want = subprocess.run([os.environ["TRACER_ANALYZE"], "top", "%s.tz" % mode], capture_output=True,
                      text=True, check=True).stdout.rstrip("\n")
assert last == want, (last, want)
PY
done
rc=0
"$A" top --follow --json linear.tz >/dev/null 2>err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || fail "--follow --json: exit $rc: $(cat err)"
echo ok
