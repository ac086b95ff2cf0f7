#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Outputs and CLI faults a new user hit, each against a truth made
# independently (a byte copy of the committed samples/pipeline.tz, the
# commands' own output without the option under test):
#   - no writer replaces a file it reads, -f or not: report, export, plot
#     (-o and --script), bundle, slice, recover, merge, through the same
#     name, a hard link, a symlink, a directory input's entry and a member
#     RUN.tz[i]: exit 1, one line, the input byte for byte as it was;
#   - -o -: export and report write standard output (the same bytes as to a
#     file or without -o), no file named "-"; slice, recover, merge and
#     tracer-record refuse it (exit 2, one line naming the option);
#   - every command writing to a full standard output says so in one line,
#     exit 1 (cat said nothing);
#   - top/summary --follow on a cut file with no writer end as without
#     --follow (its line, exit 1); with --partial the table, exit 0;
#   - tracer-record -d out of range names the option and its maximum;
#     'help top' is top's help; --version is in both binaries' --help;
#     top --task without --by is --by task, with --by exe a usage error;
#     top --by job's (none) counts the tasks in no job (--by task's: 0);
#     plot of a window after the trace's end is refused as slice refuses it.
set -u
A=${TRACER_ANALYZE:?}
R=${TRACER_RECORD:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/tza-out.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset TRACER_ANALYZE_PARTIAL
cd "$tmp" || exit 1
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
cp "$ROOT/samples/pipeline.tz" orig.tz
cp orig.tz run.tz

# 1. an output that is an input: refused, the input untouched
ln run.tz hard.tz
ln run.tz hard.png
ln run.tz hard.tar.gz
ln -s run.tz sym.tz
mkdir d
cp orig.tz d/a.tz
"$A" merge -o m.tz run.tz 2>/dev/null || bad "merge -o m.tz"
cp m.tz m.orig
refused() { # what file... -- command line
	local what=$1 rc=0
	shift
	"$A" "$@" >/dev/null 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] &&
		grep -q "is read from: write to another file\|is also a TRACE to read: write to another file" err ||
		bad "$*: exit $rc: $(cat err)"
	cmp -s "$what" orig.tz || cmp -s "$what" m.orig || bad "$*: $what was written"
}
refused run.tz report -f -o run.tz run.tz
refused run.tz report -f -o hard.tz run.tz
refused run.tz report -f -o sym.tz run.tz
refused d/a.tz report -f -o d/a.tz run.tz d
refused run.tz export --format jsonl --force -o run.tz run.tz
refused run.tz export --format csv --force -o hard.tz run.tz
refused run.tz export --format jsonl --force -o sym.tz run.tz
refused d/a.tz export --format jsonl --force -o d/a.tz d
refused m.tz export --format jsonl --force -o m.tz 'm.tz[0]'
refused run.tz plot -f --script run.tz run.tz
refused run.tz plot -f -o hard.png run.tz
refused run.tz bundle --no-plots -f -o hard.tar.gz run.tz
refused run.tz slice -f -o hard.tz run.tz
refused run.tz recover -f -o sym.tz run.tz
refused run.tz merge -f -o hard.tz run.tz
[ ! -e sym.tz ] || [ -L sym.tz ] || bad "the symlink sym.tz was replaced"
cmp -s run.tz orig.tz || { bad "run.tz changed"; cp orig.tz run.tz; }

# 2. -o -: text to standard output, a trace refused
"$A" export --format jsonl run.tz >want.jsonl || bad "export"
"$A" export --format jsonl -o - run.tz >got.jsonl || bad "export -o -"
cmp -s want.jsonl got.jsonl || bad "export -o -: not the rows of export"
"$A" report -o r.html run.tz 2>/dev/null || bad "report -o r.html"
"$A" report -o - run.tz >r-std.html 2>/dev/null || bad "report -o -"
cmp -s r.html r-std.html || bad "report -o -: not the page of report -o r.html"
for c in "slice -o - run.tz" "recover -o - run.tz" "merge -o - run.tz" "recover run.tz -"; do
	rc=0
	# shellcheck disable=SC2086
	"$A" $c >/dev/null 2>err || rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- " -: a trace is written to a file it can seek in" err ||
		bad "$c: exit $rc: $(cat err)"
done
if [ -x "$R" ]; then
	rc=0
	"$R" -o - -- true >/dev/null 2>err || rc=$?
	[ $rc = 2 ] && grep -qx "tracer-record: -o -: a trace is written to a file it can seek in, not to standard output: name a file" err ||
		bad "tracer-record -o -: exit $rc: $(cat err)"
fi
[ ! -e ./- ] || bad "a file named - was made"

# 3. standard output full: one line, exit 1
for c in info verify cat summary tree top critical-path "export --format csv" rightsize idle "plot --script -" "report -o -"; do
	rc=0
	# shellcheck disable=SC2086
	"$A" $c run.tz >/dev/full 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -qx "tracer-analyze: standard output: write failed" err ||
		bad "$c > /dev/full: exit $rc: $(cat err)"
done

# 4. --follow on a cut file that nothing writes
size=$(stat -c %s run.tz)
head -c $((size / 2)) run.tz >cut.tz
for c in top summary; do
	rc=0
	"$A" $c cut.tz >/dev/null 2>plain.err || rc=$?
	[ $rc = 1 ] && [ -s plain.err ] || bad "$c of the cut file: exit $rc"
	rc=0
	timeout 30 "$A" $c --follow --interval 1 cut.tz >f.out 2>f.err || rc=$?
	[ $rc = 1 ] && cmp -s plain.err f.err || bad "$c --follow of a cut file: exit $rc: $(cat f.err)"
	rc=0
	timeout 30 "$A" $c --follow --partial cut.tz >f.out 2>/dev/null || rc=$?
	[ $rc = 0 ] && head -1 f.out | grep -q 'unfinished and no writer' ||
		bad "$c --follow --partial of a cut file: exit $rc: $(head -1 f.out)"
done

# 5. small ones
if [ -x "$R" ]; then
	rc=0
	"$R" -d 99999999999999999999 -- true 2>err || rc=$?
	[ $rc = 2 ] && grep -qx "tracer-record: --duration: '99999999999999999999': out of range (at most 1000000000 seconds)" err ||
		bad "record -d huge: exit $rc: $(cat err)"
	"$R" --help | grep -q -- "--version" || bad "tracer-record --help: no --version"
fi
"$A" --help | grep -q -- "--version" || bad "tracer-analyze --help: no --version"
"$A" top --help >top.help || bad "top --help"
"$A" help top >help.top || bad "help top"
cmp -s top.help help.top || bad "'help top' is not top's help"
rc=0
"$A" help nope >/dev/null 2>err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || bad "help nope: exit $rc: $(cat err)"
"$A" top --by task --task sort run.tz >want.top || bad "top --by task --task"
"$A" top --task sort run.tz >got.top || bad "top --task"
cmp -s want.top got.top || bad "top --task without --by is not --by task"
rc=0
"$A" top --by exe --task sort run.tz >/dev/null 2>err || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] || bad "top --by exe --task: exit $rc: $(cat err)"
ntasks=$("$A" export --tasks --format jsonl run.tz | wc -l)
njob=$("$A" top --by job --json run.tz | python3 -c 'import json,sys; g=json.load(sys.stdin); print(len(g), g[0]["tool"], g[0]["tasks"])')
[ "$njob" = "1 (none) $ntasks" ] || bad "top --by job: '$njob', want '1 (none) $ntasks' (no job in the trace)"
ntask=$("$A" top --by task --json -n 0 run.tz | python3 -c 'import json,sys; print([g["tasks"] for g in json.load(sys.stdin) if g["tool"] == "(none)"])')
[ "$ntask" = "[0]" ] || bad "top --by task: (none) has tasks: $ntask"
grep -q "with \`--by job\`" "$ROOT/docs/tracer-analyze.md" || bad "docs: (none) of --by job not described"
for w in "--from 500 --to 600" "--from 500"; do
	rc=0
	# shellcheck disable=SC2086
	"$A" plot -o w.png $w run.tz >/dev/null 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "'run.tz': plot: nothing \(between\|after\) --from 8m20s" err &&
		[ ! -e w.png ] || bad "plot $w: exit $rc: $(cat err)"
done

[ $fails = 0 ] && echo "ok: no output replaces an input, -o -, full stdout, --follow of a cut file, small faults"
exit $((fails > 0))
