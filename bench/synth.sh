# shellcheck shell=bash
# SPDX-License-Identifier: BSD-2-Clause
# synth.sh - sourced by the bench scripts that time the analyzer on
# synthetic traces (hosts.sh, report_browser.sh). Before sourcing: set -euo
# pipefail and name (the script's name for messages). Sets here (bench/),
# root, O (the build dir, absolute; env O, default build) and die MSG (one
# line "name: MSG" on stderr, exit 1). synth_build PREFIX then builds the
# analyzer, libtz.a and the schema in O, sets w (env WORK, kept, or a fresh
# /tmp/PREFIX.XXXXXX removed at exit) and builds $w/bench-tzsynth from
# bench/tzsynth.c.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$root/$O ;; esac
die() { echo "${name:?}: $*" >&2; exit 1; }
synth_build() {
	make -C "$root" -s O="$O" "$O/tracer-analyze" "$O/libtz.a" "$O/record/schema.o" >/dev/null ||
		die "make failed"
	if [ -n "${WORK:-}" ]; then
		w=$WORK
		mkdir -p "$w"
	else
		w=$(mktemp -d "/tmp/$1.XXXXXX")
		trap 'rm -rf "$w"' EXIT
	fi
	cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root" -I"$root/format" "$here/tzsynth.c" \
		"$O/record/schema.o" "$O/libtz.a" -lzstd -lxxhash -lpthread -o "$w/bench-tzsynth" ||
		die "cannot build bench/tzsynth.c"
}
