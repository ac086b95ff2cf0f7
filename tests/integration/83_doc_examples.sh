#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Every tracer-analyze example the documentation shows runs: the command
# lines of README.md's code blocks (build/tracer-analyze ...), the indented
# examples of docs/*.md and samples/README.md, and the "Examples:" of
# `tracer-analyze --help` and of every command's --help. Each runs in a fresh
# copy of a directory of fixtures named as the examples name them (run.tz,
# trace.tz, node1.tz..., traces/, a bundle report.tar.gz: the committed
# samples/pipeline.tz and slices of it, so a few hosts with their own uuids;
# what an example writes removed first) and must exit 0 (a pipe into jq:
# every part). What cannot run here is skipped by rule (a shell variable, a
# window of minutes: the fixture is 77 s long; jq or gnuplot missing), and the count of examples run is checked against a floor
# so that an extraction that finds nothing fails. Synopsis lines ([OPTIONS],
# FILE..., a|b) are not examples.
set -u
A=${TRACER_ANALYZE:?}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/tza-docex.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export TRACER_ANALYZE_PARTIAL=0 # the examples' own verdicts
fails=0 ran=0 skipped=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# fixtures
fx=$tmp/fx
mkdir -p "$fx/traces" "$fx/samples"
cp "$ROOT/samples/pipeline.tz" "$fx/samples/pipeline.tz"
for n in run trace build crashed flight yesterday today before after run1 run2 snakemake-run; do
	cp "$ROOT/samples/pipeline.tz" "$fx/$n.tz"
done
# three "hosts" (own uuids): thirds of the sample's 77 s
"$A" slice --from 0 --to 25 -o "$fx/node1.tz" "$fx/run.tz" 2>/dev/null &&
	"$A" slice --from 25 --to 50 -o "$fx/node2.tz" "$fx/run.tz" 2>/dev/null &&
	"$A" slice --from 50 --to 77 -o "$fx/node3.tz" "$fx/run.tz" 2>/dev/null ||
	{ echo "cannot slice the fixtures"; exit 1; }
cp "$fx/node1.tz" "$fx/node2.tz" "$fx/traces/"
head -c 40000 "$fx/run.tz" >"$fx/killed-recorder.tz" # --partial's example
"$A" bundle -o "$fx/report.tar.gz" "$fx/run.tz" >/dev/null 2>&1 || { echo "cannot bundle"; exit 1; }
cp "$fx/report.tar.gz" "$fx/report.zip" 2>/dev/null # only named; bundle decides its format
"$A" bundle -o "$fx/report.zip" -f "$fx/run.tz" >/dev/null 2>&1 || rm -f "$fx/report.zip"

# the examples: "SOURCE<TAB>command line" (the command starts with tracer-analyze)
list=$tmp/list
{
	awk '/^```/ { inb = !inb; next }
	     inb && /^(\$ )?build\/tracer-analyze / { sub(/^\$ /, ""); sub(/^build\//, ""); print FILENAME "\t" $0 }' \
		"$ROOT/README.md" "$ROOT/samples/README.md"
	awk '/^    (\$ )?tracer-analyze [a-z-]/ { sub(/^    (\$ )?/, ""); print FILENAME "\t" $0 }' \
		"$ROOT"/docs/*.md
	for c in "" $("$A" --help | awk '/^Read .tz traces/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }'); do
		# shellcheck disable=SC2086
		"$A" $c --help | awk -v c="--help of ${c:-tracer-analyze}" \
			'/^Examples:/ { on = 1; next } on && /^  tracer-analyze / { sub(/^  /, ""); print c "\t" $0 }'
	done
} | sed 's/[[:space:]]\+#.*$//' >"$list"

# the extraction finds README's examples (the fleet export was broken once)
grep -q "/README.md"$'\t'"tracer-analyze export --fleet -o fleet.jsonl.zst traces/$" "$list" ||
	bad "README's fleet export example not found among the examples"
have_jq=0
command -v jq >/dev/null && have_jq=1
have_gnuplot=0
command -v gnuplot >/dev/null && have_gnuplot=1
not_run='[[]|FILE|[.][.][.]|[|][^ ]|[<]|[$]|--from [0-9]+m '
while IFS=$'\t' read -r src cmd; do
	# a synopsis ([OPTIONS], FILE..., a|b), a shell variable, or a window of
	# a long run (--from 10m: the fixture is 77 s); --follow runs (on a
	# closed file it makes one refresh)
	if [[ $cmd =~ $not_run ]]; then
		skipped=$((skipped + 1))
		continue
	fi
	case $cmd in *'| jq'*) [ $have_jq = 1 ] || { skipped=$((skipped + 1)); continue; } ;; esac
	case $cmd in *' plot '* | *' bundle '* | *' report '*) [ $have_gnuplot = 1 ] || { skipped=$((skipped + 1)); continue; } ;; esac
	w=$tmp/w
	rm -rf "$w"
	cp -r "$fx" "$w"
	# what the example writes does not exist yet (-o OUT; IN OUT of recover
	# and slice)
	# shellcheck disable=SC2086
	set -- $cmd
	out=
	for a; do
		[ "$out" = next ] && { out=$a; break; }
		[ "$a" = -o ] && out=next
	done
	case $2 in recover | slice) [ -n "$out" ] || out=${*: -1} ;; esac
	[ -n "$out" ] && [ "$out" != next ] && rm -rf "${w:?}/$out"
	ran=$((ran + 1))
	(cd "$w" && PATH="$(dirname "$A"):$PATH" timeout 120 bash -o pipefail -c "$cmd" >out 2>err)
	rc=$?
	# 141: a command cut short by `| head` (SIGPIPE) ran
	[ $rc = 0 ] || [ $rc = 141 ] || bad "$src: '$cmd': exit $rc: $(head -c 400 "$w/err")"
done <"$list"
echo "$ran examples run, $skipped skipped"
[ $ran -ge 60 ] || bad "only $ran examples found and run (the extraction broke?)"
[ $fails = 0 ] && echo "ok: every documented example runs"
exit $((fails > 0))
