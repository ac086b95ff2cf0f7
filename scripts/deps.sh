#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Install, with apt-get, only the Debian packages tracer needs that are missing.
# Usage: scripts/deps.sh [--demo] [--test]
#   --demo adds the sample pipelines' tools (samples/pipeline, samples/snakemake); --test what tests run: the browser the HTML
#   report's tests open it in (chromium, driven by node), snakemake, and for the
#   many-host recipes' test yamllint, shellcheck and python3-yaml; npm (unless the
#   nodejs installed has its own) for the fleet test's DuckDB package
set -euo pipefail
pkgs=(make gcc clang llvm libbpf-dev bpftool libzstd-dev zstd libarchive-dev libcmocka-dev
      gnuplot-nox libelf-dev zlib1g-dev libxxhash-dev pkg-config python3 libjson-c-dev)
for a in "$@"; do
	case $a in
	--demo) pkgs+=(bwa samtools bcftools bowtie2-examples snakemake fastp) ;;
	--test)
		pkgs+=(chromium nodejs snakemake yamllint shellcheck python3-yaml)
		# NodeSource's nodejs carries npm; Debian's needs its npm package
		command -v npm >/dev/null || pkgs+=(npm)
		;;
	*) echo "deps: unknown option '$a' (--demo, --test)" >&2; exit 2 ;;
	esac
done
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages (${missing[*]}) and not root: run as root or install them" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
