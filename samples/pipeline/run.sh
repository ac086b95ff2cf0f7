#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# samples/pipeline/run.sh - a small real variant-calling pipeline on the lambda
# phage data that Debian's bowtie2-examples package ships (reference genome,
# 10,000 simulated Illumina read pairs, 6,000 long reads).
#
# Usage: samples/pipeline/run.sh [OUTDIR]      (default: ./pipeline-out)
#   LANES=4      how many lanes the paired reads are split into (aligned one by one)
#   REPLICATES=16 technical replicates: every lane is aligned once per replicate
#   REGIONS=16   the genome is cut into this many windows, called 2 at a time
#   THREADS=2    bwa mem threads
#   BT2_EXAMPLES=/usr/share/doc/bowtie2/examples
#
# Stages: unpack (zcat), split reads into lanes (awk), bwa index, samtools
# faidx, per lane and replicate: bwa mem | samtools fixmate | samtools sort,
# samtools markdup; samtools merge + index; long reads aligned alone;
# per-region calling in parallel (xargs -P 2: bcftools mpileup | bcftools
# call); bcftools concat, norm, filter, index, stats; samtools flagstat,
# stats, depth; a QC step whose grep finds nothing exits 1 (a real non-zero
# exit for the trace to show). About 20-60 s on 2 cores.
set -euo pipefail

out=${1:-pipeline-out}
ex=${BT2_EXAMPLES:-/usr/share/doc/bowtie2/examples}
lanes=${LANES:-4}
reps=${REPLICATES:-16}
regions=${REGIONS:-16}
threads=${THREADS:-2}

die() { echo "pipeline: $*" >&2; exit 1; }
for t in bwa samtools bcftools awk xargs; do
	command -v "$t" >/dev/null || die "'$t' not found: run scripts/deps.sh --demo (Debian packages bwa samtools bcftools)"
done
for f in reference/lambda_virus.fa.gz reads/reads_1.fq.gz reads/reads_2.fq.gz reads/longreads.fq.gz; do
	[ -r "$ex/$f" ] || die "'$ex/$f' not found: install the Debian package bowtie2-examples (scripts/deps.sh --demo)"
done

mkdir -p "$out"
cd "$out"
rm -rf ref lanes bam vcf qc
mkdir -p ref lanes bam vcf qc
log() { printf 'pipeline: %3ds %s\n' "$SECONDS" "$*" >&2; }

log "unpacking reference and reads"
zcat "$ex/reference/lambda_virus.fa.gz" > ref/lambda.fa
zcat "$ex/reads/longreads.fq.gz" > lanes/long.fq &
# split the pairs into lanes: record i (4 lines) goes to lane i % LANES
for m in 1 2; do
	zcat "$ex/reads/reads_$m.fq.gz" |
		awk -v n="$lanes" -v m="$m" '{ f = sprintf("lanes/L%d_%d.fq", int((NR - 1) / 4) % n, m); print > f }' &
done
wait

log "indexing the reference"
bwa index ref/lambda.fa 2> qc/bwa-index.log
samtools faidx ref/lambda.fa
contig=$(cut -f1 ref/lambda.fa.fai)
length=$(cut -f2 ref/lambda.fa.fai)

log "aligning $lanes lanes x $reps replicates (bwa mem -t $threads)"
for r in $(seq 1 "$reps"); do
	for l in $(seq 0 $((lanes - 1))); do
		id=R${r}L$l
		bwa mem -t "$threads" -R "@RG\tID:$id\tSM:lambda\tLB:rep$r" ref/lambda.fa \
			"lanes/L${l}_1.fq" "lanes/L${l}_2.fq" 2> "qc/$id.bwa.log" |
			samtools fixmate -m - - |
			samtools sort -@ 1 -o "bam/$id.sorted.bam" - 2> /dev/null
		samtools markdup -s "bam/$id.sorted.bam" "bam/$id.md.bam" 2> "qc/$id.markdup.txt"
		rm -f "bam/$id.sorted.bam"
	done
done

log "aligning the long reads"
bwa mem -t "$threads" -R '@RG\tID:long\tSM:lambda_long' ref/lambda.fa lanes/long.fq \
	2> qc/long.bwa.log | samtools sort -o bam/long.bam - 2> /dev/null
samtools index bam/long.bam

log "merging and indexing"
samtools merge -f -@ 2 bam/lambda.bam bam/R*.md.bam
samtools index bam/lambda.bam
samtools flagstat bam/lambda.bam > qc/flagstat.txt
samtools stats bam/lambda.bam > qc/stats.txt &
samtools depth -a bam/lambda.bam | awk '{ s += $3; n++ } END { printf "mean depth %.1f over %d bp\n", s / n, n }' > qc/depth.txt &

log "calling variants in $regions regions, 2 at a time"
step=$(( (length + regions - 1) / regions ))
for i in $(seq 0 $((regions - 1))); do
	a=$((i * step + 1)); b=$(((i + 1) * step)); [ "$b" -gt "$length" ] && b=$length
	printf '%s:%d-%d\n' "$contig" "$a" "$b"
done > vcf/regions.txt
# shellcheck disable=SC2016
xargs -P 2 -I{} sh -c 'n=$(echo "$1" | tr ":-" "__"); bcftools mpileup -a AD,DP -d 100000 -r "$1" -f ref/lambda.fa bam/lambda.bam bam/long.bam 2>/dev/null | bcftools call -mv --ploidy 1 -Oz -o "vcf/$n.vcf.gz" 2>/dev/null && bcftools index "vcf/$n.vcf.gz"' _ {} < vcf/regions.txt
wait

log "merging calls"
ls vcf/*_*.vcf.gz | sort -t_ -k3,3n > vcf/parts.txt
bcftools concat -a -f vcf/parts.txt -Oz -o vcf/raw.vcf.gz 2>/dev/null
bcftools norm -f ref/lambda.fa vcf/raw.vcf.gz -Oz -o vcf/norm.vcf.gz 2>/dev/null
bcftools filter -e 'QUAL<20' -s LowQual vcf/norm.vcf.gz -Oz -o vcf/lambda.vcf.gz
bcftools index vcf/lambda.vcf.gz
bcftools stats vcf/lambda.vcf.gz > qc/bcftools-stats.txt

# QC: count multi-allelic sites; grep exits 1 when there are none (a real,
# harmless non-zero exit that the trace shows as a failed process)
multi=$(bcftools view -H vcf/lambda.vcf.gz | cut -f5 | grep -c , || true)
nvar=$(bcftools view -H vcf/lambda.vcf.gz | wc -l)
log "done: $nvar variants ($multi multi-allelic) in $out/vcf/lambda.vcf.gz; $(cat qc/depth.txt)"
