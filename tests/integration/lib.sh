# SPDX-License-Identifier: BSD-2-Clause
# lib.sh - shared helpers of the integration tests (source it; bash).
#
#   need_root [HELPER...] skip (exit 77) unless root with BTF, the recorder, python3
#                         and these workload helpers of $H
#   T                     a private temp dir, removed at exit with every process
#                         registered by bg_track
#   bg_track PID...       kill these at exit (cleanup on failure)
#   record ARGS...        tracer-record with a time bound (REC_TIMEOUT, default 120 s);
#                         its exit status is returned, stderr goes to $T/rec.err
#   export_jsonl TZ OUT   tracer-analyze export --format jsonl TZ > OUT
#   pycheck JSONL CODE    run python3 CODE with `procs` (list of dicts, export order),
#                         helpers by_exe(), by_argv(), one(), kids(), subtree(), near(),
#                         check()
#                         and argv bytes via raw(); non-zero exit fails the test
#   host_record NAME OUT CMD...  tracer-record -o OUT -- CMD as host NAME (its own UTS
#                         namespace and hostname: a "host" of a multi-host run on
#                         this machine); fails the test when the recording fails
#   need_hosts [CMD...]   need_root, then skip (77) unless unshare (for host_record)
#                         and each CMD are on PATH; unsets TRACER_ANALYZE_PARTIAL
#                         and enters $T
#   snakefile_fan FILE B INPUTS  write a Snakefile: rule src, one branch job per key of
#                         the Python dict B (sleeping its value), rule join over
#                         them; rule all wants INPUTS (Python list items)
#   fail MSG              print and exit 1
#   cg_job REL            make cgroup REL (every level) on the v1 memory hierarchy
#                         (limit 64M: $memd, $want_mem) and on v2 when it takes
#                         processes ($v2d; memory.max 96M: $v2mem); skip (77) when
#                         neither; needs `trap cg_cleanup EXIT` (removes them, then
#                         _cleanup)
#
# Tests use exact values and bound their own time; every script sets
# `set -euo pipefail` via this file.
set -euo pipefail

R=${TRACER_RECORD:?TRACER_RECORD not set (run through tests/run.sh)}
A=${TRACER_ANALYZE:?TRACER_ANALYZE not set}
H=${TESTS_HELPERS:?TESTS_HELPERS not set}
W=$H/recwork
REC_TIMEOUT=${REC_TIMEOUT:-120}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# skip (77) unless the kernel has tp_btf/sched_prepare_exec (6.10+), where
# the recorder reads each image's peak RSS (docs/EVENTS.md [E19])
need_prepare_exec() {
	grep -qw btf_trace_sched_prepare_exec /proc/kallsyms 2>/dev/null ||
		[ -n "$(grep -a -o 'btf_trace_sched_prepare_exec' /sys/kernel/btf/vmlinux | head -n1)" ] ||
		{ echo "skip: no tp_btf/sched_prepare_exec on this kernel (6.10+)"; exit 77; }
}

need_root() {
	[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
	[ -r /sys/kernel/btf/vmlinux ] || { echo "skip: kernel without BTF"; exit 77; }
	[ -x "$R" ] || { echo "skip: $R not built"; exit 77; }
	[ -x "$W" ] || { echo "skip: $W not built"; exit 77; }
	command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
	local h
	for h in "$@"; do
		[ -x "$H/$h" ] || { echo "skip: $H/$h not built"; exit 77; }
	done
}

T=$(mktemp -d /tmp/tracer-rec-test.XXXXXX)
_bg_pids=()
bg_track() { _bg_pids+=("$@"); }
_cleanup() {
	local p
	for p in "${_bg_pids[@]+"${_bg_pids[@]}"}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	cd /
	rm -rf "$T"
}
trap _cleanup EXIT

record() {
	local rc=0
	timeout -k 5 "$REC_TIMEOUT" "$R" "$@" 2>"$T/rec.err" || rc=$?
	[ -s "$T/rec.err" ] && sed 's/^/  rec: /' "$T/rec.err" >&2
	return $rc
}

host_record() {
	local name=$1 out=$2
	shift 2
	timeout -k 5 "$REC_TIMEOUT" unshare -u sh -c 'hostname "$0" && exec "$@"' \
		"$name" "$R" -o "$out" -- "$@" 2>"$T/rec.err" ||
		{ cat "$T/rec.err" >&2; fail "recording $name"; }
}

need_hosts() {
	need_root
	local c
	for c in unshare "$@"; do
		command -v "$c" >/dev/null || { echo "skip: $c missing (scripts/deps.sh)"; exit 77; }
	done
	unset TRACER_ANALYZE_PARTIAL
	cd "$T"
}

snakefile_fan() {
	cat >"$1" <<SMK
B = $2
rule all:
    input: $3
rule src:
    output: "src.txt"
    shell: "sleep 1; echo src > {output}"
rule branch:
    input: "src.txt"
    output: "b/{b}.txt"
    params: s=lambda w: B[w.b]
    shell: "sleep {params.s}; cat {input} > {output}"
rule join:
    input: expand("b/{b}.txt", b=B)
    output: "joined.txt"
    shell: "sleep 1; cat {input} > {output}"
SMK
}

export_jsonl() {
	timeout 120 "$A" export --format jsonl "$1" >"$2" || fail "export of $1 failed"
}

cat >"$T/check.py" <<'PY'
import json, sys
procs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
byid = {p["id"]: p for p in procs}
def raw(s):
    """argv string -> exact bytes (export uses surrogateescape for non-UTF-8)"""
    return s.encode("utf-8", "surrogateescape")
def by_exe(exe):
    return [p for p in procs if p.get("exe") == exe]
def by_argv(argv):
    return [p for p in procs if p.get("argv") == argv]
def one(lst, what=""):
    if len(lst) != 1:
        raise AssertionError("expected exactly one process %s, got %d: %s" % (
            what, len(lst), [(p["pid"], p.get("exe"), p.get("argv")) for p in lst][:10]))
    return lst[0]
def kids(p):
    return [c for c in procs if c.get("parent_id") == p["id"]]
def subtree(pid_id):
    """the process of that id and all its descendants (export order)"""
    out, todo = [], [byid[pid_id]]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids(p)
    return out
def near(v, want, rel):
    return v is not None and abs(v - want) <= rel * want
def check(cond, msg):
    if not cond:
        raise AssertionError(msg)
code = sys.argv[2]
try:
    exec(compile(code, "<check>", "exec"))
except AssertionError as e:
    print("assertion failed:", e, file=sys.stderr)
    sys.exit(1)
PY

pycheck() {
	timeout 120 python3 "$T/check.py" "$1" "$2" || fail "check on $1"
}

# cgroups made by cg_job/mk_cg, removed by cg_cleanup even on failure:
# processes moved out first, then the directories deepest first
CGDIRS=()
cg_cleanup() {
	local i d
	for ((i = ${#CGDIRS[@]} - 1; i >= 0; i--)); do
		d=${CGDIRS[i]}
		[ -d "$d" ] || continue
		if [ -r "$d/cgroup.procs" ]; then
			while read -r p; do
				echo "$p" >"$(dirname "$d")/cgroup.procs" 2>/dev/null || true
			done <"$d/cgroup.procs"
		fi
		rmdir "$d" 2>/dev/null || echo "warning: could not remove $d" >&2
	done
	_cleanup
}
mk_cg() { # mk_cg ROOT REL: every level of REL under ROOT, remembered; the
	  # deepest in $CG (not through $(...): CGDIRS must grow in this shell)
	local d=$1 part parts
	IFS=/ read -ra parts <<<"$2"
	for part in "${parts[@]}"; do
		d=$d/$part
		mkdir "$d"
		CGDIRS+=("$d")
	done
	CG=$d
}
cg_job() {
	local v1=/sys/fs/cgroup/memory v2=
	if grep -q ' - cgroup2 ' /proc/self/mountinfo; then
		v2=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
	fi
	memd= v2d= v2mem= want_mem=0
	if [ -w "$v1/cgroup.procs" ] && grep -q ' - cgroup .*memory' /proc/self/mountinfo; then
		mk_cg "$v1" "$1"
		memd=$CG
		echo $((64 << 20)) >"$memd/memory.limit_in_bytes"
		want_mem=$(cat "$memd/memory.limit_in_bytes")
	fi
	if [ -n "$v2" ] && [ -w "$v2/cgroup.procs" ]; then
		mk_cg "$v2" "$1"
		v2d=$CG
		if [ -w "$v2d/memory.max" ]; then
			echo $((96 << 20)) >"$v2d/memory.max"
			v2mem=$((96 << 20))
		fi
	fi
	[ -n "$memd$v2d" ] || { echo "skip: no cgroup hierarchy takes processes"; exit 77; }
}

# record_overlap ALL OUT COMMAND...: one host recorded twice at once, a
# whole-machine (-a) recording ALL around the recording OUT of COMMAND (the
# -a recorder is stopped by SIGINT once COMMAND's recording ended: no time
# decides the overlap; -v says when it records). In $T.
record_overlap() {
	local all=$1 out=$2 rpid
	shift 2
	"$R" -a -v -o "$all" 2>"$T/$all.err" &
	rpid=$!
	bg_track "$rpid"
	for _ in $(seq 600); do grep -q "^tracer-record: recording to" "$T/$all.err" && break; sleep 0.1; done
	grep -q "^tracer-record: recording to" "$T/$all.err" || fail "the -a recorder did not start: $(cat "$T/$all.err")"
	record -o "$out" -- "$@" || fail "recording inside -a"
	kill -INT "$rpid"
	wait "$rpid" || fail "the -a recorder: $(cat "$T/$all.err")"
}
