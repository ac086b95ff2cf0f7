#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 17, the cgroup table and the attachments outlive what holds them: a
# --ring recording that wraps after the cgroup entry was written still
# resolves the cgroup path and limit of a later exec (the entry re-stated in
# every state block, --redact applied: the job's name is an AWS-key shape),
# and keeps the attachment written at the stop; a slice whose window starts
# after the entry carries the entry and the attachments.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
trap cg_cleanup EXIT

key=AKIAABCDEFGHIJKLMNOP
job=tracer-test-$$/slurm/uid_0/job_29/$key
masked=tracer-test-$$/slurm/uid_0/job_29/${key//?/*}
cg_job "$job"
mkdir -p wf/.snakemake/metadata
# the entry is written at `first`'s exec; then ~2 MB of random argv wraps
# the 1M ring; `last` names the same ids (no new entry)
cat >ring.sh <<EOS
for d in $memd $v2d; do echo \$\$ >"\$d/cgroup.procs"; done
cd wf
printf '{"rule": "ring29"}\n' >.snakemake/metadata/cmluZzI5
/bin/true first
head -c 1500000 /dev/urandom | base64 -w 200 | xargs -n 5 /bin/true
/bin/true last
EOS
record --ring 1M --redact -o ring.tz -- sh ring.sh || fail "record --ring"
export_jsonl ring.tz ring.jsonl

# the ring wrapped past the entry's chunk: `first` and the chunk's cgroup
# events are gone, so only a state block can give the entry
cgcheck() { # cgcheck JSONL PATH: the `last` exec's cgroups are PATH
	pycheck "$1" "
check(not [e for p in procs for e in p['execs'] if e['argv'] == ['/bin/true', 'first']],
      'the first exec is still there (no wrap, or the window starts too early)')
e = [e for p in procs for e in p['execs'] if e['argv'] == ['/bin/true', 'last']]
check(len(e) == 1, '%d last execs' % len(e))
e = e[0]
if '$memd':
    m = e['memcg']
    check(m is not None and m['path'] == '/$2', 'v1 memory cgroup %r' % m)
    check(m['mem_limit_bytes'] == $want_mem, 'v1 limit %r, want $want_mem' % m['mem_limit_bytes'])
if '$v2d':
    c = e['cgroup']
    check(c is not None and c['path'] == '/$2', 'v2 cgroup %r' % c)
    check(c['mem_limit_bytes'] == (${v2mem:-0}), 'v2 memory.max %r' % c['mem_limit_bytes'])
"
}
cgcheck ring.jsonl "$masked"
"$A" cat ring.tz --type cgroup >chunk.txt || fail "cat ring.tz"
! grep -qF "job_29/" chunk.txt || fail "the chunk holding the cgroup entry was not overwritten"
"$A" cat ring.tz --state --type cgroup >state.txt || fail "cat --state ring.tz"
grep -qF "job_29/${key//?/*}" state.txt || fail "no cgroup entry in a state block: $(head -3 state.txt)"
! grep -qF "$key" state.txt || fail "a state block holds the cgroup path unredacted"

# the attachment, written at the stop, survives the wrap
attcheck() { # attcheck TZ
	"$H/tzdecode" "$1" >"$1.dec" || fail "tzdecode $1"
	grep -q "^attach: \"$T/wf/.snakemake/metadata/cmluZzI5\" .*ring29" "$1.dec" ||
		fail "$1: the attachment is missing: $(grep -c '^attach:' "$1.dec") attach events"
	[ "$(grep -c '^attach:' "$1.dec")" = 1 ] || fail "$1: attachments not exactly one"
}
attcheck ring.tz

# start_s and end_s of the process that ran `/bin/true last`, from an export
life_of_last() {
	python3 - "$1" <<'EOF'
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
q = [q for q in p if any(e['argv'] == ['/bin/true', 'last'] for e in q['execs'])][0]
print(q['start_s'], q['end_s'])
EOF
}

# a slice of `last`'s life: the entry (from a state block) and the
# attachment (written at the stop, after the window) come along
read -r from to < <(life_of_last ring.jsonl)
timeout 60 "$A" slice --from "$from" --to "$to" ring.tz sl.tz 2>sl.err || fail "slice: $(cat sl.err)"
export_jsonl sl.tz sl.jsonl
cgcheck sl.jsonl "$masked"
attcheck sl.tz

# the same on a linear file, where the entry is in a chunk before the window
cat >lin.sh <<EOS
for d in $memd $v2d; do echo \$\$ >"\$d/cgroup.procs"; done
cd wf
printf '{"rule": "ring29"}\n' >.snakemake/metadata/cmluZzI5
/bin/true first
/bin/sleep 0.2
/bin/true last
EOS
record -o lin.tz -- sh lin.sh || fail "record linear"
export_jsonl lin.tz lin.jsonl
read -r from to < <(life_of_last lin.jsonl)
timeout 60 "$A" slice --from "$from" --to "$to" lin.tz lsl.tz 2>sl.err || fail "slice linear: $(cat sl.err)"
export_jsonl lsl.tz lsl.jsonl
cgcheck lsl.jsonl "$job"
attcheck lsl.tz

cg_cleanup
trap - EXIT
for d in "${CGDIRS[@]}"; do [ ! -d "$d" ] || fail "$d left behind"; done
echo "ok: cgroup entries and attachments through a ring wrap and slices"
