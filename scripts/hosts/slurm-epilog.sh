#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# slurm-epilog.sh - stops the recorder slurm-prolog.sh started for this job
# and moves its sealed trace to TRACER_DIR/JOBID/HOST.tz (see slurm-prolog.sh).
set -eu
job=${SLURM_JOB_ID:?slurm-epilog: SLURM_JOB_ID is not set}
run=${TRACER_RUN:-/run/tracer}
dir=${TRACER_DIR:-/var/lib/tracer}
host=$(hostname -s 2>/dev/null || hostname)
[ -f "$run/$job.pid" ] || exit 0 # no recorder for this job on this node
pid=$(cat "$run/$job.pid")
kill -INT "$pid" 2>/dev/null || true
# the recorder seals the file and exits; wait for it, at most 30 s
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	echo "slurm-epilog: tracer-record $pid did not stop; trace left in $run" >&2
	exit 0 # never fail the job's epilog for the recorder
fi
mkdir -p "$dir/$job"
mv -f "$run/$job.$host.tz" "$dir/$job/$host.tz"
rm -f "$run/$job.pid" "$run/$job.log"
exit 0
