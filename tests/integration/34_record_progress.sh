#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-record's live status line (record/status.c), through a pty made by
# script(1) (util-linux) and sized by stty: on a terminal the line appears
# about once a second on the last row (a scroll region of the rows above it
# is set once; each update is ESC 7, row 24, erase, "tracer-record: ...",
# ESC 8 in one write, so COMMAND's output never lands inside it), and the
# last thing written resets the region and erases the row;
# absent when stderr is a file; --progress off a terminal writes plain lines
# (no control characters); --no-progress silences it on a terminal. The
# counts shown are checked against the sealed trace, never against timing.
source "$(dirname "$0")/lib.sh"
need_root
command -v script >/dev/null || { echo "skip: script (util-linux) missing"; exit 77; }
cd "$T"
# a run of about 3.5 s with 3 children, on a pty: stdin, stdout, stderr
timeout -k 5 120 script -qfec "stty rows 24 cols 200; $R -f -o tty.tz -- sh -c '/bin/echo before; /bin/true; /bin/sleep 3.5; /bin/echo after'" tty.out \
	>/dev/null </dev/null || fail "recording on a pty failed"
timeout 60 python3 - <<'PY' || fail "status line on a tty: $(od -c tty.out | head -20)"
import re
out = open("tty.out", "rb").read()
out = re.sub(rb"^Script started.*?\n", b"", out)   # util-linux header, if any
out = re.sub(rb"\r?\nScript done.*$", b"", out, flags=re.S)
assert out.count(b"\x1b[1;23r") == 1, "scroll region rows 1..23 set once"
ups = re.findall(rb"\x1b7\x1b\[24;1H\x1b\[2Ktracer-record: (\d+)s  procs (\d+) seen, (\d+) live  ([\d,]+) ev/s  drops (\d+)  ([\d.]+ [KMG]?i?B)  chunks (\d+)\x1b8", out)
assert len(ups) >= 2, ("updates", ups, out[:600])
assert len(ups) == out.count(b"tracer-record: "), "a status text outside ESC 7 ... ESC 8"
secs = [int(u[0]) for u in ups]
assert secs == sorted(secs) and secs[0] >= 1, secs
assert all(int(u[4]) == 0 for u in ups), "drops shown"
assert max(int(u[1]) for u in ups) <= 5, ups   # sh and its 3 children (+ echo after)
# COMMAND's own output is all there, outside the status writes
assert b"before" in out and b"after" in out, out
# the end: the region reset and the status row erased, nothing after
end = b"\x1b7\x1b[r\x1b[24;1H\x1b[2K\x1b8"
assert out.rstrip(b"\r\n").endswith(end) or out.rfind(end) > out.rfind(b"tracer-record: "), out[-200:]
assert out[out.rfind(end) + len(end):].strip() in (b"",), out[out.rfind(end):]
PY

# stderr to a file: no status at all
timeout -k 5 120 script -qfec "stty rows 24 cols 200; $R -f -o file.tz -- /bin/sleep 2.5 2>err.txt" /dev/null >/dev/null </dev/null ||
	fail "recording with stderr to a file failed"
[ ! -s err.txt ] || fail "stderr to a file got: $(od -c err.txt | head)"
# --progress off a terminal: plain lines
timeout -k 5 120 "$R" --progress -f -o prog.tz -- /bin/sleep 2.5 2>prog.txt </dev/null >/dev/null ||
	fail "recording with --progress failed"
grep -q $'[\r\033]' prog.txt && fail "--progress off a tty wrote control characters"
n=$(grep -c '^tracer-record: [0-9]*s  procs [0-9]* seen, [0-9]* live  [0-9,]* ev/s  drops 0  .*  chunks [0-9]*$' prog.txt || true)
[ "$n" -ge 1 ] || fail "--progress: no status line: $(cat prog.txt)"
[ "$n" = "$(wc -l <prog.txt)" ] || fail "--progress: other lines: $(cat prog.txt)"
# --no-progress on a terminal: nothing
timeout -k 5 120 script -qfec "stty rows 24 cols 200; $R --no-progress -f -o quiet.tz -- /bin/sleep 2.5" quiet.out >/dev/null </dev/null ||
	fail "recording with --no-progress failed"
grep -q 'tracer-record:' quiet.out && fail "--no-progress on a tty: $(cat -v quiet.out)"
# the traces are whole
for f in tty.tz file.tz prog.tz quiet.tz; do
	timeout 60 "$A" verify "$f" >/dev/null || fail "$f does not verify"
done
echo "ok"
