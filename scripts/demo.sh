#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# scripts/demo.sh - the README's first command (`make demo`): install what is
# missing, build, record the sample pipeline (samples/pipeline/run.sh) with
# tracer-record, print `summary` and `top`, write demo-out/timeline.png, the
# HTML report demo-out/pipeline.html (its path printed) and the bug-report
# bundle demo-out/report.tar.gz; then record the README's Snakemake example
# (samples/snakemake/Snakefile, --cores 2) and print `top --by rule` and
# `rightsize` of it.
#
# Usage: scripts/demo.sh            (as root; O=build-dir, default build)
#   DEMO_OUT=demo-out   where the trace, the plots, the report and the bundle go
#   DEMO_SKIP_DEPS=1    do not run scripts/deps.sh --demo
# Exit status: 0 when every step worked, 1 on the first failure (named).
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
out=${DEMO_OUT:-demo-out}
rec=$O/tracer-record
ana=$O/tracer-analyze

step() { printf '\n==> %s\n' "$*"; }
die() { trap - EXIT; printf 'demo: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; [ $rc -eq 0 ] || printf "demo: failed (exit %d) at: %s\n" "$rc" "$BASH_COMMAND" >&2' EXIT

[ "$(id -u)" -eq 0 ] || die "run as root: recording uses eBPF and installing packages uses apt-get (try: sudo make demo)"
[ -e /sys/kernel/btf/vmlinux ] || die "this kernel has no BTF (/sys/kernel/btf/vmlinux): tracer-record needs a BTF kernel"

if [ -z "${DEMO_SKIP_DEPS:-}" ]; then
	step "installing missing Debian packages (scripts/deps.sh --demo)"
	scripts/deps.sh --demo || die "installing packages failed (see above); retry or install them by hand"
fi

step "building ($O/tracer-record, $O/tracer-analyze)"
make --no-print-directory O="$O" all || die "the build failed (see above)"

mkdir -p "$out"
step "recording the sample pipeline: $rec -f -o $out/pipeline.tz -- samples/pipeline/run.sh $out/work"
"$rec" -f -o "$out/pipeline.tz" -- samples/pipeline/run.sh "$out/work" ||
	die "recording or the pipeline failed (see above)"

step "tracer-analyze summary $out/pipeline.tz"
"$ana" summary "$out/pipeline.tz" || die "summary failed"

step "tracer-analyze top $out/pipeline.tz"
"$ana" top "$out/pipeline.tz" || die "top failed"

step "plotting: $out/timeline.png (gantt), $out/cpu.png (cores in use)"
"$ana" plot -f "$out/pipeline.tz" -o "$out/timeline.png" || die "plot failed"
"$ana" plot -f --kind cpu "$out/pipeline.tz" -o "$out/cpu.png" || die "plot --kind cpu failed"

step "the HTML report: $out/pipeline.html"
"$ana" report -f -o "$out/pipeline.html" "$out/pipeline.tz" || die "report failed"

step "bundling: $out/report.tar.gz"
"$ana" bundle -f "$out/pipeline.tz" -o "$out/report.tar.gz" || die "bundle failed"
"$ana" summary "$out/report.tar.gz" > /dev/null || die "reading the bundle back failed"

smk=$out/snakemake
step "recording the sample Snakemake workflow (samples/snakemake/Snakefile): (cd $smk && $rec -f -o ../snakemake.tz -- snakemake --cores 2)"
here=$(pwd)
arec=$(realpath "$rec")
rm -rf "$smk"
mkdir -p "$smk"
(cd "$smk" && "$arec" -f -o ../snakemake.tz -- snakemake --cores 2 -s "$here/samples/snakemake/Snakefile" > ../snakemake.log 2>&1) ||
	die "recording the Snakemake workflow or the workflow failed (its log: $out/snakemake.log)"

step "tracer-analyze top --by rule $out/snakemake.tz"
"$ana" top --by rule "$out/snakemake.tz" || die "top --by rule failed"

step "tracer-analyze rightsize $out/snakemake.tz"
"$ana" rightsize "$out/snakemake.tz" || die "rightsize failed"

cat <<EOF

Done. In $out/:
  pipeline.tz      the trace           (tracer-analyze tree $out/pipeline.tz)
  timeline.png     one bar per process over time, coloured by tool
  cpu.png          cores in use over time by tool, with the machine's CPU count
  pipeline.html    everything in one page: open it in a browser (no network needed)
  report.tar.gz    a bug-report bundle: trace, summaries, report.html, plots, README.txt
                   (every subcommand reads it directly: tracer-analyze summary $out/report.tar.gz)
  snakemake.tz     the Snakemake example's trace (tracer-analyze report --by rule $out/snakemake.tz)

The report: $(realpath "$out/pipeline.html")
EOF
