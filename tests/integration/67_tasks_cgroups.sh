#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tasks (issue 17) from cgroup paths made by the test: a Slurm-like job step
# (.../slurm/uid_0/job_77/step_0, in the v1 memory hierarchy with a limit
# where the host has it, else in v2) and a Docker-like container
# (.../docker/<64 hex>, in v2), each entered by a shell that then execs its
# work. --by job and --by container name them, export --tasks gives their
# kind and the job's memory limit; the cgroups are removed afterwards.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	V2=/sys/fs/cgroup
elif [ -f /sys/fs/cgroup/unified/cgroup.procs ]; then
	V2=/sys/fs/cgroup/unified
else
	echo "skip: no cgroup v2 hierarchy"
	exit 77
fi
V1M=
[ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] && V1M=/sys/fs/cgroup/memory
top="tracer-test-h17a-$$"
hex=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
ct=$V2/$top/docker/$hex
if [ -n "$V1M" ]; then
	job=$V1M/$top/slurm/uid_0/job_77/step_0
	limit=536870912
else
	job=$V2/$top/slurm/uid_0/job_77/step_0
	limit=
fi
cg_cleanup() {
	local d
	for d in "$job" "$ct"; do
		# the members exited; rmdir deepest first, only what this test made
		while [ "$d" != "${d%/$top*}" ] && [ -d "$d" ]; do
			rmdir "$d" 2>/dev/null || break
			d=${d%/*}
		done
	done
}
trap 'cg_cleanup; _cleanup' EXIT
mkdir -p "$job" "$ct" || { echo "skip: cannot make cgroups here"; exit 77; }
[ -n "$limit" ] && echo $limit > "$job/memory.limit_in_bytes"
cat > work.sh <<EOF
#!/bin/bash
sh -c 'echo \$\$ > $job/cgroup.procs && exec sh -c "seq 200000 | sort -n > /dev/null"' &
sh -c 'echo \$\$ > $ct/cgroup.procs && exec sh -c "seq 100000 | sort > /dev/null"' &
wait
EOF
chmod +x work.sh
record -o x.tz -- ./work.sh || fail "record"
timeout 60 "$A" top --by job --json x.tz > job.json 2>/dev/null || fail "top --by job"
timeout 60 "$A" top --by container --json x.tz > ct.json 2>/dev/null || fail "top --by container"
timeout 60 "$A" export --tasks --format jsonl x.tz > tasks.jsonl 2>/dev/null || fail "export --tasks"
export_jsonl x.tz procs.jsonl
LIMIT=${limit:-0} pycheck procs.jsonl "
import os
jobs = {r['tool']: r for r in json.load(open('job.json'))}
cts = {r['tool']: r for r in json.load(open('ct.json'))}
check(sorted(jobs) == ['(none)', 'job_77/step_0'] and jobs['job_77/step_0']['tasks'] == 1, '--by job %r' % sorted(jobs))
check(sorted(cts) == ['(none)', '0123456789ab'] and cts['0123456789ab']['tasks'] == 1, '--by container %r' % sorted(cts))
tasks = {t['kind']: t for t in map(json.loads, open('tasks.jsonl'))}
check(sorted(tasks) == ['container', 'slurm'], 'kinds %r' % sorted(tasks))
s, c = tasks['slurm'], tasks['container']
check(s['job'] == 'job_77/step_0' and c['container'] == '0123456789ab', 'ids %r %r' % (s['job'], c['container']))
# the shell that entered the cgroup and everything it ran (sh -c, seq, sort)
check(s['procs'] == 3 and c['procs'] == 3, 'members %r %r' % (s['procs'], c['procs']))
lim = int(os.environ['LIMIT'])
check(s['mem_limit'] == (lim or None), 'job memory limit %r, set %r' % (s['mem_limit'], lim))
"
exit 0
