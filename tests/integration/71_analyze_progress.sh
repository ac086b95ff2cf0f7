#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze's progress line while a trace is read (analyze/progress.c,
# shared by every command through tza_load_ex), through a pty made by
# script(1) and sized by stty, on a synthetic trace of ~8,700 chunks
# (tzwriter_loop). TRACER_ANALYZE_PROGRESS_DELAY_MS=0 (the documented test
# hook) shows it from the first update whatever the machine's speed:
#   - summary, export, report and slice on a tty: "\r" + "tracer-analyze:
#     'big.tz': reading chunk N of TOTAL (P%)" + ESC [K, N never above the
#     total and never going back within one read (report reads the trace
#     more than once), and each read ends with "\r" ESC [K (erased), the
#     last thing written (slice: before its own closing line);
#   - stdout (report: the page; slice: the events it wrote) is byte for
#     byte the same as without a terminal;
#   - stderr a file: nothing (slice: its own line only); --no-progress on a tty: nothing; the default
#     delay pushed out of reach (an hour): nothing (no flash);
#   - --progress off a terminal: plain lines, no control characters;
#   - SIGINT mid-read (a 3,000,000-event trace) erases the line first.
# Nothing here depends on how long the reading takes.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "skip: script (util-linux) missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
[ -x "$H/tzwriter_loop" ] || { echo "skip: $H/tzwriter_loop not built"; exit 77; }
cd "$T"
timeout 120 "$H/tzwriter_loop" -n 300000 -c 4096 big.tz >/dev/null || fail "tzwriter_loop failed"
# the chunk count as info reads it (it follows the record sizes of the
# current schema: about 8,400-8,700), the total every progress line names
NCH=$(timeout 60 "$A" info big.tz | sed -n 's/^events .* in \([0-9]*\) chunks.*/\1/p')
[ -n "$NCH" ] && [ "$NCH" -ge 4000 ] || fail "big.tz: $NCH chunks: $(timeout 60 "$A" info big.tz)"
NCHS=$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$NCH")
export NCH NCHS
export TRACER_ANALYZE_PROGRESS_DELAY_MS=0
check_tty() { # NAME [LAST]: NAME.out (the pty's bytes) holds a progress line, erased
	# at the end, before the command's own last stderr line LAST (a prefix) if given
	timeout 60 python3 - "$1.out" "${2:-}" <<'PY'
import re, sys
out = open(sys.argv[1], "rb").read()
out = re.sub(rb"^Script started.*?\n", b"", out)
out = re.sub(rb"\r?\nScript done.*$", b"", out, flags=re.S)
if sys.argv[2]:
    last = out.rfind(sys.argv[2].encode())
    assert last > 0 and b"\n" not in out[last:].rstrip(b"\r\n"), ("no last line", out[-200:])
    out = out[:last]
# each read (report reads the trace more than once): its updates, then one erase
import os
NCH, NCHS = int(os.environ["NCH"]), os.environ["NCHS"].encode()
toks = re.findall(rb"\r(?:tracer-analyze: 'big\.tz': reading chunk ([\d,]+) of " + re.escape(NCHS) + rb" \((\d+)%\))?\x1b\[K", out)
assert toks and toks[-1] == (b"", b""), ("not erased at the end", out[-200:])
assert sum(1 for t in toks if t[0]) == out.count(b"tracer-analyze: "), ("other text", out[:400])
reads, cur = [], []
for c, p in toks:
    if not c:
        assert cur, ("an erase without a line", toks)
        reads.append(cur)
        cur = []
        continue
    k = int(c.replace(b",", b""))
    assert k <= NCH and int(p) == k * 100 // NCH, (c, p)
    cur.append(k)
for n in reads:
    assert n == sorted(n), n
end = b"\r\x1b[K"
assert out.rstrip(b"\r\n").endswith(end), out[-120:]
PY
}
for cmd in summary export report slice; do
	case $cmd in
	summary) args=(summary big.tz) ;;
	export) args=(export --format jsonl big.tz) ;;
	report) args=(report -f -o page.html big.tz) ;; # stdout empty, the page compared
	slice) args=(slice -f --from 0 --to 1h big.tz out.tz) ;; # its own line last
	esac
	timeout -k 5 120 script -qfec "stty rows 24 cols 200; $A ${args[*]} >$cmd.tty" "$cmd.out" \
		>/dev/null </dev/null || fail "$cmd on a pty failed"
	last=; [ $cmd = slice ] && last="tracer-analyze: 'out.tz': 300000 events"
	check_tty "$cmd" "$last" || fail "$cmd: progress on a tty: $(od -c "$cmd.out" | head -20)"
	case $cmd in report) mv page.html page.tty.html ;; slice) mv out.tz out.tty.tz ;; esac
	timeout 120 "$A" "${args[@]}" >"$cmd.plain" 2>"$cmd.err" || fail "$cmd failed: $(cat "$cmd.err")"
	if [ $cmd = slice ]; then # its own line only
		grep -q $'[\r\033]' "$cmd.err" && fail "slice: control characters in stderr: $(od -c "$cmd.err" | head)"
		[ "$(wc -l <"$cmd.err")" = 1 ] || fail "slice: stderr a file got: $(cat -v "$cmd.err")"
	else
		[ ! -s "$cmd.err" ] || fail "$cmd: stderr a file got: $(od -c "$cmd.err" | head)"
	fi
	cmp -s "$cmd.tty" "$cmd.plain" || fail "$cmd: stdout differs with the progress line"
	if [ $cmd = report ]; then
		[ -s page.html ] && cmp -s page.html page.tty.html || fail "report: the page differs"
	elif [ $cmd = slice ]; then
		# (each written trace has its own uuid and stop anchor: its events compared)
		timeout 120 "$A" cat out.tz >out.cat && timeout 120 "$A" cat out.tty.tz >out.tty.cat &&
			[ -s out.cat ] && cmp -s out.cat out.tty.cat || fail "slice: the events differ"
	else
		[ -s "$cmd.plain" ] || fail "$cmd: no output"
	fi
done
# --no-progress on a tty, and the default delay out of reach: nothing
timeout -k 5 120 script -qfec "stty rows 24 cols 200; $A --no-progress summary big.tz >/dev/null" quiet.out \
	>/dev/null </dev/null || fail "--no-progress on a pty failed"
grep -q 'tracer-analyze:' quiet.out && fail "--no-progress on a tty: $(cat -v quiet.out)"
TRACER_ANALYZE_PROGRESS_DELAY_MS=3600000 timeout -k 5 120 \
	script -qfec "stty rows 24 cols 200; $A summary big.tz >/dev/null" late.out \
	>/dev/null </dev/null || fail "summary with an hour's delay failed"
grep -q 'tracer-analyze:' late.out && fail "a line before the delay: $(cat -v late.out)"
# --progress off a terminal: plain lines only
timeout 120 "$A" --progress summary big.tz >forced.txt 2>forced.err || fail "--progress summary failed"
cmp -s forced.txt summary.plain || fail "--progress: stdout differs"
grep -q $'[\r\033]' forced.err && fail "--progress off a tty wrote control characters"
n=$(grep -c "^tracer-analyze: 'big.tz': reading chunk [0-9,]* of $NCHS ([0-9]*%)$" forced.err || true)
[ "$n" -ge 1 ] && [ "$n" = "$(wc -l <forced.err)" ] || fail "--progress off a tty: $(cat forced.err)"
# Ctrl-C mid-read: the line is erased, then the signal's default action.
# A trace of 3,000,000 events takes seconds to read; SIGINT goes once the
# first line is on the pty. Should the read have ended first (nothing to
# interrupt), only the erase is checked.
timeout 120 "$H/tzwriter_loop" -n 3000000 -c 4096 huge.tz >/dev/null || fail "tzwriter_loop (huge) failed"
rm -f apid
timeout -k 5 120 script -qfec "stty rows 24 cols 200; sh -c 'echo \$\$ >apid; exec $A summary huge.tz >/dev/null'; echo \"status \$?\"" int.out \
	>/dev/null </dev/null &
sp=$!
bg_track $sp
for _ in $(seq 600); do grep -q 'reading chunk' int.out 2>/dev/null && [ -s apid ] && break; sleep 0.1; done
grep -q 'reading chunk' int.out || fail "huge: no progress line: $(cat -v int.out | head -5)"
kill -INT "$(cat apid)" 2>/dev/null || true
wait $sp || fail "huge: script failed"
timeout 60 python3 - <<'PY' || fail "huge: Ctrl-C left the line: $(od -c int.out | tail -12)"
import re
out = open("int.out", "rb").read()
out = re.sub(rb"\r?\nScript done.*$", b"", out, flags=re.S)
st = re.search(rb"status (\d+)", out)
assert st, out[-200:]
last = out.rfind(b"reading chunk")
assert last >= 0 and out.find(b"\r\x1b[K", last) > last, out[-200:]
assert st.group(1) in (b"130", b"0"), st.group(1)   # SIGINT, or the read was over first
PY
# a global option without a command is a usage error
rc=0
"$A" --progress >/dev/null 2>err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || fail "--progress alone: exit $rc: $(cat err)"
echo ok
