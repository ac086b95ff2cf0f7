#!/usr/bin/env bash
# Issue 21 item 3: the many-host recipes of docs/many-hosts.md, run here as
# far as one machine allows (what is simulated is said):
#   - scripts/hosts/tracer-srun under a simulated Slurm task (SLURM_* set by
#     hand, two "nodes" as UTS namespaces): one trace per step, task and node
#     in DIR/JOBID, COMMAND's exit status kept, the Slurm variables recorded;
#     summary of the job's directory reads both nodes;
#   - scripts/hosts/slurm-prolog.sh / slurm-epilog.sh as slurmd would call
#     them (SLURM_JOB_ID in the environment, run as root): the prolog leaves a
#     whole-node flight recorder running, a process started after it is in
#     the trace the epilog seals and moves to DIR/JOBID/HOST.tz;
#   - the Kubernetes DaemonSet manifest: yamllint, and the fields a BPF
#     recorder needs (host pid namespace, privileged, the traces on a
#     hostPath, SIGTERM reaching the recorder as pid 1);
#   - every script passes shellcheck (tracer-fanout needs ssh to other hosts:
#     checked statically only).
. "$(dirname "$0")/lib.sh"
need_root
S=$(cd "$(dirname "$0")/../../scripts/hosts" && pwd)
cd "$T"
unset TRACER_ANALYZE_PARTIAL
for c in unshare yamllint shellcheck; do
	command -v $c >/dev/null || fail "$c missing (scripts/deps.sh --test installs it)"
done
host=$(hostname -s 2>/dev/null || hostname)

# --- tracer-srun: a job step's task 0 and 1 on two nodes
for n in 0 1; do
	rc=0
	timeout -k 5 120 unshare -u env SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SLURM_PROCID=$n \
		SLURM_JOB_NAME=align TRACER_RECORD="$R" \
		sh -c 'hostname "node$0" && exec "$@"' $n "$S/tracer-srun" -d "$T/traces" -- \
		sh -c "seq 100 | sort >/dev/null; exit $((3 + n))" 2>srun.err || rc=$?
	[ $rc = $((3 + n)) ] || fail "tracer-srun task $n: exit $rc, want $((3 + n)): $(cat srun.err)"
	[ -s "traces/4242/0.$n.node$n.tz" ] || fail "tracer-srun: no traces/4242/0.$n.node$n.tz: $(ls -R traces)"
	"$A" export --format jsonl "traces/4242/0.$n.node$n.tz" >srun$n.jsonl
	python3 - "$n" <<'PY' || fail "tracer-srun task $n: the Slurm variables are not recorded"
import json, sys
n = sys.argv[1]
envs = [e for l in open("srun%s.jsonl" % n) for x in json.loads(l)["execs"] for e in x["env"]]
for want in ("SLURM_JOB_ID=4242", "SLURM_STEP_ID=0", "SLURM_PROCID=" + n, "SLURM_JOB_NAME=align"):
    assert want in envs, (want, envs[:8])
PY
done
"$A" summary --json traces/4242 >job.json || fail "summary of the job's directory"
python3 -c 'import json; r = json.load(open("job.json"))["run"]
assert [h["hostname"] for h in r["per_host"]] == ["node0", "node1"], r["per_host"]' ||
	fail "the job's summary does not read both nodes"

# --- Slurm Prolog/Epilog: a whole-node flight recorder for job 77
export TRACER_RUN=$T/run TRACER_DIR=$T/lib TRACER_RECORD=$R TRACER_RING=8M
SLURM_JOB_ID=77 timeout 60 sh "$S/slurm-prolog.sh" || fail "prolog failed"
pid=$(cat "$T/run/77.pid")
bg_track "$pid"
kill -0 "$pid" || fail "no recorder after the prolog"
sh -c ': job-77-marker; true'
SLURM_JOB_ID=77 timeout 60 sh "$S/slurm-epilog.sh" || fail "epilog failed"
! kill -0 "$pid" 2>/dev/null || fail "the recorder still runs after the epilog"
[ -s "$T/lib/77/$host.tz" ] || fail "epilog: no lib/77/$host.tz: $(ls -R "$T/lib" "$T/run")"
[ ! -e "$T/run/77.pid" ] || fail "epilog left its pid file"
"$A" verify "$T/lib/77/$host.tz" >/dev/null || fail "the epilog's trace does not verify"
"$A" export --format jsonl "$T/lib/77/$host.tz" >job77.jsonl || fail "export of the epilog's trace"
grep -q 'job-77-marker' job77.jsonl || fail "a process run between prolog and epilog is not in the trace"
SLURM_JOB_ID=78 sh "$S/slurm-epilog.sh" || fail "epilog without a prolog must be a no-op"
unset TRACER_RUN TRACER_DIR TRACER_RECORD TRACER_RING

# --- the DaemonSet manifest
yamllint -d '{extends: default, rules: {line-length: {max: 100}, document-start: disable}}' \
	"$S/tracer-daemonset.yaml" || fail "yamllint"
python3 - "$S/tracer-daemonset.yaml" <<'PY' || fail "DaemonSet manifest"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "DaemonSet" and d["apiVersion"] == "apps/v1"
spec = d["spec"]["template"]["spec"]
assert spec["hostPID"] is True
c = spec["containers"][0]
assert c["securityContext"]["privileged"] is True
cmd = " ".join(c["command"] + c["args"])
assert "exec tracer-record -a --ring" in cmd, cmd
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
vols = {v["name"]: v for v in spec["volumes"]}
assert "hostPath" in vols["traces"] and mounts["traces"] + "/" in cmd, (mounts, cmd)
assert vols["sys"]["hostPath"]["path"] == "/sys"
env = {e["name"]: e for e in c["env"]}
assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
assert d["spec"]["selector"]["matchLabels"].items() <= d["spec"]["template"]["metadata"]["labels"].items()
PY

shellcheck "$S/tracer-srun" "$S/slurm-prolog.sh" "$S/slurm-epilog.sh" "$S/tracer-fanout" ||
	fail shellcheck
echo "ok: tracer-srun on two simulated nodes, prolog/epilog flight recorder, DaemonSet manifest, shellcheck"
