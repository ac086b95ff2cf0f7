#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-analyze bundle: .tar.gz and .zip bundles of the sample trace hold
# every file README.txt names, MANIFEST sizes and checksums are right, and
# every subcommand reads the bundle in place with the same output as on the
# bare .tz (only the file name given on the command line differs); a
# SIGTERM or SIGINT mid-bundle leaves no work directory.
. "$(dirname "$0")/lib.sh"
S=${TESTS_DIR:?}/../samples/pipeline.tz
t=$T
cp "$S" "$t/trace.tz"
before=$(find /tmp -maxdepth 1 -name 'tracer-bundle.*' | sort)
cd "$t"

timeout 120 "$A" bundle trace.tz -o report.tar.gz
timeout 120 "$A" bundle trace.tz -o report.zip
[ -s report.tar.gz ] && [ -s report.zip ] || fail "no bundle written"
ls ./*.tmp.* 2>/dev/null && fail "temporary file left behind"

want="MANIFEST README.txt cpu.png io.png mem.png processes.csv report.html summary.json summary.txt timeline.png timeline.svg top.txt trace.tz tree.txt"
command -v gnuplot >/dev/null ||
	want="MANIFEST README.txt processes.csv report.html summary.json summary.txt top.txt trace.tz tree.txt"
# list members, check names/types, unpack into x.tar/ and x.zip/ for checks
python3 - "$want" <<'PY' || fail "bundle members"
import sys, tarfile, zipfile, os
want = sorted(sys.argv[1].split())
with tarfile.open('report.tar.gz') as tf:
    ms = tf.getmembers()
    names = sorted(m.name for m in ms)
    assert names == sorted('report/' + w for w in want), names
    # FILES WRITTEN: the trace and the text reports private, the rest 0644
    private = {'trace.tz', 'summary.txt', 'summary.json', 'tree.txt', 'top.txt', 'processes.csv',
               'report.html'}
    bad = [(m.name, oct(m.mode)) for m in ms if not m.isfile() or
           m.mode != (0o600 if os.path.basename(m.name) in private else 0o644)]
    assert not bad, 'member modes: %s' % bad
    for m in ms:
        os.makedirs('x.tar', exist_ok=True)
        open('x.tar/' + os.path.basename(m.name), 'wb').write(tf.extractfile(m).read())
with zipfile.ZipFile('report.zip') as zf:
    names = sorted(zf.namelist())
    assert names == sorted('report/' + w for w in want), names
    os.makedirs('x.zip', exist_ok=True)
    for n in names:
        open('x.zip/' + os.path.basename(n), 'wb').write(zf.read(n))
PY
cmp trace.tz x.tar/trace.tz || fail "the bundled trace differs from the input"
cmp trace.tz x.zip/trace.tz || fail "the zip's trace differs from the input"

# MANIFEST: one line per other file, exact sizes; xxh64 checked with xxhsum when present
n=0
while read -r size hash name; do
	[ "${size:0:1}" = "#" ] && continue
	n=$((n + 1))
	[ "$(stat -c %s "x.tar/$name")" = "$size" ] || fail "MANIFEST size of $name"
	[[ "$hash" =~ ^[0-9a-f]{16}$ ]] || fail "MANIFEST hash of $name: '$hash'"
	if command -v xxhsum >/dev/null; then
		[ "$(xxhsum -H1 "x.tar/$name" | cut -d' ' -f1)" = "$hash" ] || fail "xxh64 of $name"
	fi
done < x.tar/MANIFEST
[ "$n" = $(($(wc -w <<< "$want") - 1)) ] || fail "MANIFEST lists $n files"
for f in $want; do
	[ "$f" = MANIFEST ] || [ "$f" = README.txt ] || grep -q "^  $f " x.tar/README.txt ||
		fail "README.txt does not describe $f"
done

# the text members are what the subcommands print for the bundled trace
"$A" tree trace.tz | cmp - x.tar/tree.txt || fail "tree.txt differs from 'tree'"
"$A" top trace.tz | cmp - x.tar/top.txt || fail "top.txt differs from 'top'"
"$A" export --format csv trace.tz | cmp - x.tar/processes.csv || fail "processes.csv differs"
"$A" summary trace.tz | cmp - x.tar/summary.txt || fail "summary.txt differs"
"$A" report -o r.html trace.tz && cmp r.html x.tar/report.html || fail "report.html differs from 'report'"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' x.tar/summary.json || fail "summary.json is not JSON"

# every subcommand on the bundle = on the bare .tz; summary names the file it
# was given, so that name is replaced by FILE on both sides
for b in report.tar.gz report.zip; do
	for cmd in "summary" "summary --json" "tree" "tree --depth 2" "top" "top --json" \
		"critical-path" "export --format jsonl" "export --format csv"; do
		# shellcheck disable=SC2086
		diff <("$A" $cmd trace.tz | sed 's/trace\.tz/FILE/g') \
			<("$A" $cmd "$b" | sed "s/${b//./\\.}/FILE/g") > /dev/null ||
			fail "'$cmd' differs on $b"
	done
	"$A" summary "$b" | head -1 | grep -q "$b" || fail "summary does not name $b"
	diff <("$A" plot trace.tz --script - -o p.png) <("$A" plot "$b" --script - -o p.png) ||
		fail "plot script differs on $b"
	if command -v gnuplot >/dev/null; then
		"$A" plot "$b" -o "p-$b.png"
		[ "$(head -c 4 "p-$b.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "plot of $b"
	fi
done

# a bundle of a bundle carries the same trace
timeout 120 "$A" bundle report.zip -o again.tar.gz --no-plots
python3 -c 'import tarfile; tarfile.open("again.tar.gz").extractfile("again/trace.tz").read() == open("trace.tz","rb").read() or exit(1)' ||
	fail "bundle of a bundle changed the trace"

# without gnuplot: the pictures are left out after one message, README says so
TRACER_GNUPLOT=/nonexistent/gnuplot timeout 120 "$A" bundle trace.tz -o nogp.tar.gz 2> err
grep -q 'gnuplot-nox' err || fail "no gnuplot: no message naming the package"
python3 - <<'PY' || fail "bundle without gnuplot"
import tarfile
tf = tarfile.open('nogp.tar.gz')
names = sorted(n.split('/', 1)[1] for n in tf.getnames())
assert names == ['MANIFEST', 'README.txt', 'processes.csv', 'report.html', 'summary.json',
                 'summary.txt', 'top.txt', 'trace.tz', 'tree.txt'], names
readme = tf.extractfile('nogp/README.txt').read().decode()
assert 'Left out' in readme and 'timeline.png' in readme and 'io.png' in readme, readme
PY

# usage and failure
set +e
"$A" bundle trace.tz -o out.rar 2> err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q 'unknown bundle type' err || fail "-o out.rar: exit $rc"
set +e
"$A" bundle trace.tz 2> err; rc=$?
set -e
[ "$rc" = 2 ] || fail "no -o: exit $rc"
echo hello > not.tz
set +e
"$A" bundle not.tz -o bad.tar.gz 2> err; rc=$?
set -e
[ "$rc" = 1 ] && [ ! -e bad.tar.gz ] || fail "non-trace input: exit $rc"
# a member that differs from MANIFEST (gzip's CRC is not checked on read:
# damaged deflate data can decode to other bytes) is damage: exit 1, one
# line naming it; a listed member missing too; a tar of a bare .tz (no
# MANIFEST) still reads
mkdir -p m/report && tar -xzf report.tar.gz -C m
echo extra >> m/report/README.txt
tar -czf damaged.tar.gz -C m report
set +e
timeout 60 "$A" summary damaged.tar.gz > out 2> err; rc=$?
set -e
[ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	grep -q "bundle member 'report/README.txt': damaged: its size or XXH64 differs from MANIFEST" err ||
	fail "member unlike MANIFEST: exit $rc: $(cat err)"
rm m/report/README.txt
tar -czf missing.tar.gz -C m report
set +e
timeout 60 "$A" summary missing.tar.gz > out 2> err; rc=$?
set -e
[ "$rc" = 1 ] && grep -q "bundle member 'README.txt': listed in MANIFEST but not in the bundle" err ||
	fail "member missing: exit $rc: $(cat err)"
tar -czf bare.tar.gz trace.tz
timeout 60 "$A" summary bare.tar.gz > bare.out || fail "a tar of a bare .tz does not read"
grep -q '^processes ' bare.out || fail "bare .tz bundle: no summary"
# SIGTERM and SIGINT while a bundle is made (its work directory holds the
# trace, the reports are still being written): the work directory goes too,
# and the command ends by the signal. A private TMPDIR makes the check exact;
# job control (set -m) keeps SIGINT from being ignored in a background job.
if [ -x "$H/tzwriter_loop" ]; then
	timeout 120 "$H/tzwriter_loop" -n 300000 -c 4096 big.tz >/dev/null || fail "tzwriter_loop failed"
	for sig in TERM INT; do
		rm -rf wd && mkdir wd
		set -m
		TMPDIR=$t/wd timeout 300 "$A" bundle -f big.tz -o big.tar.gz 2> sig.err &
		bp=$!
		set +m
		for _ in $(seq 3000); do # until the trace is in the work directory (30 s at most)
			ls wd/tracer-bundle.*/trace.tz > /dev/null 2>&1 && break
			sleep 0.01
		done
		kill -s "$sig" "$bp" 2> /dev/null
		set +e
		wait "$bp"
		rc=$?
		set -e
		want=$((128 + $(kill -l "$sig")))
		[ "$rc" = "$want" ] || fail "SIG$sig mid-bundle: exit $rc, not $want (finished first?): $(cat sig.err)"
		[ -z "$(ls -A wd)" ] || fail "SIG$sig mid-bundle left its work directory: $(ls -R wd)"
		! ls big.tar.gz* 2> /dev/null || fail "SIG$sig mid-bundle left an archive"
	done
fi
after=$(find /tmp -maxdepth 1 -name 'tracer-bundle.*' | sort)
[ "$before" = "$after" ] || fail "work directories left behind: $after"
echo ok
