#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 23 item 5: one policy for every output (FILES WRITTEN in
# docs/tracer-analyze.md). Traces, bundles and unredacted exports are 0600;
# plots (PNG, SVG, script) and exports of a redacted trace follow the umask;
# inside a bundle the trace and the text reports are 0600 (0644 with
# --redact), the pictures 0644. A second user (nobody) opens a PNG written by
# plot and cannot open the trace. Every writer refuses an existing OUT with
# the same line, and an output in a missing directory is named as the user
# gave it (never a temporary file).
. "$(dirname "$0")/lib.sh"
need_root
command -v gnuplot >/dev/null || { echo "skip: gnuplot missing"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: setpriv missing"; exit 77; }
cd "$T"
chmod 711 "$T" # the second user may pass through, not list
mode() { stat -c %a "$1"; }
want_mode() { # FILE WANT WHAT
	[ "$(mode "$1")" = "$2" ] || fail "$3: '$1' mode $(mode "$1"), want $2 (umask $(umask))"
}
one_err() { # WANT-LINE CMD...: exit 1 and exactly that one stderr line
	local rc=0 want=$1
	shift
	timeout 120 "$@" >out 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && [ "$(cat err)" = "$want" ] ||
		fail "$*: exit $rc, stderr '$(cat err)', want '$want'"
}

umask 077
record -o t.tz -- sh -c '/bin/true password=hunter2' || fail "record t.tz"
want_mode t.tz 600 "record -o"
record --redact -o red.tz -- sh -c '/bin/true password=hunter2' || fail "record --redact"
want_mode red.tz 600 "record --redact -o"

for um in 022 027; do
	umask $um
	rm -rf o && mkdir o
	derived=$(printf '%o' $((0666 & ~8#$um)))
	# traces: 0600 whatever the umask
	timeout 120 "$A" slice --from 0 --to 10 t.tz o/s.tz >/dev/null || fail "slice"
	want_mode o/s.tz 600 "slice"
	timeout 120 "$A" recover t.tz o/r.tz >/dev/null || fail "recover"
	want_mode o/r.tz 600 "recover"
	# exports copy argv: 0600, the umask's for a redacted trace
	for fmt in csv tsv jsonl chrome; do
		timeout 120 "$A" export --format $fmt -o o/e.$fmt t.tz || fail "export $fmt"
		want_mode o/e.$fmt 600 "export --format $fmt"
		timeout 120 "$A" export --format $fmt -o o/red.$fmt red.tz || fail "export $fmt of red.tz"
		want_mode o/red.$fmt "$derived" "export --format $fmt of a redacted trace"
	done
	grep -q hunter2 o/e.jsonl || fail "the unredacted export lost the argument (test premise)"
	! grep -q hunter2 o/red.jsonl || fail "the redacted trace's export holds the secret"
	# plots: the umask's
	for out in o/p.png o/p.svg; do
		timeout 120 "$A" plot -o $out t.tz || fail "plot -o $out"
		want_mode $out "$derived" "plot -o"
	done
	timeout 120 "$A" plot --kind cpu --script o/p.gp t.tz || fail "plot --script"
	want_mode o/p.gp "$derived" "plot --script"
	# bundles: 0600; inside: trace and reports 0600 (0644 redacted), pictures 0644
	timeout 300 "$A" bundle t.tz -o o/b.tar.gz 2>/dev/null || fail "bundle"
	want_mode o/b.tar.gz 600 "bundle -o"
	timeout 300 "$A" bundle --redact t.tz -o o/rb.tar.gz 2>/dev/null || fail "bundle --redact"
	want_mode o/rb.tar.gz 600 "bundle --redact -o"
	tar tvzf o/b.tar.gz >o/list || fail "tar b.tar.gz"
	tar tvzf o/rb.tar.gz >o/rlist || fail "tar rb.tar.gz"
	for m in trace.tz summary.txt summary.json tree.txt top.txt processes.csv; do
		grep -q "^-rw------- .*/$m\$" o/list || fail "bundle member $m: $(grep "/$m\$" o/list)"
	done
	grep -q "^-rw------- .*/trace.tz\$" o/rlist || fail "redacted bundle: trace.tz: $(grep /trace.tz o/rlist)"
	grep -q "^-rw-r--r-- .*/summary.txt\$" o/rlist || fail "redacted bundle: summary.txt: $(grep /summary.txt o/rlist)"
	for m in timeline.png timeline.svg README.txt MANIFEST; do
		grep -q "^-rw-r--r-- .*/$m\$" o/list || fail "bundle member $m: $(grep "/$m\$" o/list)"
	done
done

# --- a second user opens the PNG (umask 022), and not the trace
umask 022
rm -rf pub && mkdir pub
timeout 120 "$A" plot -o pub/timeline.png t.tz || fail "plot for nobody"
cp -p t.tz pub/t.tz
grp=$(getent group nogroup >/dev/null && echo nogroup || echo nobody)
as_nobody() { timeout 30 setpriv --reuid=nobody --regid="$grp" --clear-groups "$@"; }
magic=$(as_nobody head -c 8 pub/timeline.png | od -An -tx1 | tr -d ' \n') ||
	fail "nobody cannot read the PNG (mode $(mode pub/timeline.png))"
[ "$magic" = 89504e470d0a1a0a ] || fail "nobody read '$magic', not a PNG"
! as_nobody head -c 8 pub/t.tz >/dev/null 2>&1 || fail "nobody can read the trace"

# --- -f: every writer refuses an existing OUT with the same line
echo old >x.tz
echo old >x.png
echo old >x.gp
echo old >x.csv
echo old >x.tgz
one_err "tracer-record: 'x.tz': file exists (use -f to overwrite)" "$R" -o x.tz -- /bin/true
one_err "tracer-analyze: 'x.tz': file exists (use -f to overwrite)" "$A" slice --from 0 --to 1 t.tz x.tz
one_err "tracer-analyze: 'x.tz': file exists (use -f to overwrite)" "$A" recover t.tz x.tz
one_err "tracer-analyze: 'x.tgz': file exists (use -f to overwrite)" "$A" bundle --no-plots t.tz -o x.tgz
one_err "tracer-analyze: 'x.png': file exists (use -f to overwrite)" "$A" plot -o x.png t.tz
one_err "tracer-analyze: 'x.gp': file exists (use -f to overwrite)" "$A" plot --script x.gp t.tz
one_err "tracer-analyze: 'x.csv': file exists (use --force to overwrite)" "$A" export --format csv -o x.csv t.tz
for f in x.tz x.png x.gp x.csv x.tgz; do
	[ "$(cat $f)" = old ] || fail "$f was changed without -f"
done
timeout 120 "$A" plot -f -o x.png t.tz || fail "plot -f"
timeout 120 "$A" export --format csv --force -o x.csv t.tz || fail "export --force"
[ "$(head -c 3 x.csv)" != old ] || fail "export --force kept the old file"

# --- a missing directory: the user's path, never a temporary name
d=/nonexistent-$$/dir
one_err "tracer-record: '$d/x.tz': cannot create: No such file or directory" "$R" -o $d/x.tz -- /bin/true
one_err "tracer-analyze: '$d/x.tz': cannot create: No such file or directory" "$A" slice --from 0 --to 1 t.tz $d/x.tz
one_err "tracer-analyze: '$d/x.tar.gz': No such file or directory" "$A" bundle --no-plots t.tz -o $d/x.tar.gz
one_err "tracer-analyze: '$d/x.png': cannot create: No such file or directory" "$A" plot -o $d/x.png t.tz
one_err "tracer-analyze: '$d/x.gp': cannot create: No such file or directory" "$A" plot --script $d/x.gp t.tz
one_err "tracer-analyze: '$d/x.csv': cannot create: No such file or directory" "$A" export --format csv -o $d/x.csv t.tz
rc=0
timeout 120 "$A" recover t.tz $d/x.tz >out 2>err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -qF "'$d/x.tz': cannot create: No such file or directory" err ||
	fail "recover into a missing directory: exit $rc: $(cat err)"
echo ok
