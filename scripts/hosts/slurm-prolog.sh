#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# slurm-prolog.sh / slurm-epilog.sh - a whole-node flight recorder per Slurm
# job (docs/many-hosts.md, "Slurm"): Prolog= starts `tracer-record -a --ring`
# on each node of the job (as root, before the job's processes exist),
# Epilog= stops it and moves the sealed trace into the job's directory.
# For nodes given whole to one job (--exclusive): -a records the node, so
# the trace holds the job and whatever else ran there.
#
#   slurm.conf:  Prolog=/usr/local/libexec/tracer/slurm-prolog.sh
#                Epilog=/usr/local/libexec/tracer/slurm-epilog.sh
#
# Environment: SLURM_JOB_ID (set by slurmd); TRACER_DIR (where traces go,
# default /var/lib/tracer), TRACER_RING (ring size, default 512M),
# TRACER_RUN (state directory, default /run/tracer), TRACER_RECORD.
set -eu
job=${SLURM_JOB_ID:?slurm-prolog: SLURM_JOB_ID is not set}
run=${TRACER_RUN:-/run/tracer}
dir=${TRACER_DIR:-/var/lib/tracer}
rec=${TRACER_RECORD:-tracer-record}
mkdir -p "$run" "$dir/$job"
host=$(hostname -s 2>/dev/null || hostname)
out="$run/$job.$host.tz"
# detached from slurmd: its own session, output to a log; the pid is kept
setsid "$rec" -a -v --ring "${TRACER_RING:-512M}" --no-progress -f -o "$out" \
	</dev/null >"$run/$job.log" 2>&1 &
echo $! >"$run/$job.pid"
# started once the recorder says it records (-v: its probes are attached and
# the start-up snapshot taken), at most 30 s
i=0
while ! grep -q '^tracer-record: recording to' "$run/$job.log" 2>/dev/null && [ $i -lt 300 ]; do
	kill -0 "$(cat "$run/$job.pid")" 2>/dev/null || { cat "$run/$job.log" >&2; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
exit 0
