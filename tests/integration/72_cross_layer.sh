#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The cross-layer test of issue 16 (docs/HACKING.md): every field of every
# event type and every drop slot the recorder writes is surfaced by the
# analyzer (export --format jsonl --samples, export --host, summary --json),
# and every recorded value is the one the analyzer prints. The recordings
# between them write every event type: fork (one by vfork), exec with --env
# and a working directory, a failed exec, exit and release, per-process and
# host samples, a signal that kills, an OOM kill in a 64 MiB memory cgroup,
# cgroup table entries, a workflow record attached (.snakemake/metadata), and
# proc_state (-p of a running process). A field added to the recorder and
# left out of the analyzer fails here, named (tests/integration/cross_layer.py).
. "$(dirname "$0")/lib.sh"
need_root
M=$H/memwork
[ -x "$M" ] || fail "$M not built"
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
trap cg_cleanup EXIT
cg_job "tracer-test-xl-$$/job"
CGP=${memd:-$v2d}

check() { # TRACE: the cross-layer check of one trace
	timeout 60 "$A" info --json "$1" >"$1.info" || fail "info --json $1"
	timeout 60 "$A" cat --abs --state "$1" >"$1.cat" || fail "cat $1"
	timeout 60 "$A" export --format jsonl --samples "$1" >"$1.jsonl" || fail "export $1"
	timeout 60 "$A" export --format jsonl --host "$1" >>"$1.jsonl" || fail "export --host $1"
	timeout 60 "$A" summary --json "$1" >"$1.sum" || fail "summary --json $1"
	timeout 120 python3 "$TESTS_DIR/integration/cross_layer.py" "$1.info" "$1.cat" "$1.jsonl" \
		"$1.sum" >"$1.out" 2>&1 || { cat "$1.out"; fail "cross-layer check of $1"; }
	sed 's/^/  /' "$1.out"
}

# --- one run with every event type of a followed command
# (a workflow record is attached when written during the recording)
mkdir -p wf/.snakemake/metadata
cd wf
rc=0
FOO=bar record -o ../x.tz --exec-failures --env FOO --sample-interval 0.2 -- sh -c "
	echo '{\"rule\": \"x\", \"starttime\": 1}' >.snakemake/metadata/b3V0
	head -c 3000000 /dev/zero | cat >/dev/null &
	/nonexistent/cmd 2>/dev/null
	python3 -c 'import subprocess; subprocess.run([\"true\"])'
	sleep 30 & v=\$!; sleep 0.5; kill -TERM \$v
	sh -c 'echo \$\$ >$CGP/cgroup.procs; exec $M hog' 
	wait; true" || rc=$?
cd ..
[ $rc = 0 ] || fail "recording exited $rc"
grep -q ' oom_kill ' <("$A" cat x.tz) || fail "no OOM kill recorded in $CGP"
grep -q ' attach ' <("$A" cat x.tz) || fail "no attach event: $("$A" cat --type attach x.tz | head -3)"
check x.tz

# --- proc_state: -p of a running shell and its child
sh -c 'sleep 300 & echo $! >child; wait' &
sp=$!
disown $sp # killed by pid at the end (bg_track), without a job report
bg_track $sp
for _ in $(seq 100); do [ -s child ] && break; sleep 0.1; done
bg_track "$(cat child)"
record -o p.tz -d 1 -p $sp || fail "-p $sp exited $?"
grep -q ' proc_state ' <("$A" cat --state p.tz) || fail "no proc_state in p.tz"
check p.tz
echo ok
