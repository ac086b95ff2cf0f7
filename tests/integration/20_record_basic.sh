#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tracer-record basics: N /bin/true runs all present with argv, the recorder's
# exit status is the command's (exit code, 128+signal), a 3-level pipeline
# tree with exact parents, bad usage and bad output paths; the sampler's
# programs failing to load leave the rest recording.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"

# --- N runs of /bin/true with their arguments, exit status passed through
N=200
rc=0
record -o loop.tz -- sh -c "for i in \$(seq $N); do /bin/true a\$i; done; exit 5" || rc=$?
[ $rc = 5 ] || fail "recorder exit status $rc, want 5 (the command's)"
[ "$(stat -c %a loop.tz)" = 600 ] || fail "trace mode $(stat -c %a loop.tz), want 600"
export_jsonl loop.tz loop.jsonl
pycheck loop.jsonl "
N = $N
sh = one([p for p in procs if p['argv'][:2] == ['sh', '-c']], 'sh')
check(sh['exit_code'] == 5, 'sh exit code %r' % sh['exit_code'])
trues = by_exe('/usr/bin/true')
check(len(trues) == N, '%d true processes, want %d' % (len(trues), N))
got = sorted(p['argv'][1] for p in trues)
check(got == sorted('a%d' % i for i in range(1, N + 1)), 'argv of the true runs differ')
for p in trues:
    check(p['argv'][0] == '/bin/true' and len(p['argv']) == 2, 'argv %r' % p['argv'])
    check(p['parent_id'] == sh['id'] and p['ppid'] == sh['pid'], 'parent of %d' % p['pid'])
    check(p['exit_code'] == 0 and p['signal'] is None, 'true exit %r' % p['exit_code'])
    check(p['start_s'] <= p['end_s'], 'negative duration')
# seq is a separate process: N trues + sh + seq
check(len(procs) == N + 2, '%d processes, want %d' % (len(procs), N + 2))
"
"$A" verify loop.tz >/dev/null || fail "verify loop.tz"

# --- killed command: 128 + signal
rc=0
record -o kill.tz -- sh -c 'kill -9 $$' || rc=$?
[ $rc = 137 ] || fail "recorder exit status $rc for a SIGKILLed command, want 137"
export_jsonl kill.tz kill.jsonl
pycheck kill.jsonl "
p = one(procs)
check(p['signal'] == 9 and p['exit_code'] is None, 'signal %r exit %r' % (p['signal'], p['exit_code']))
"

# --- --duration ends a follow-mode recording; the command goes on
rc=0
record --duration 0.5 -o dur.tz -- sh -c "echo \$\$ >dur.pid; exec sleep 5" || rc=$?
bg_track "$(cat dur.pid)"
[ $rc = 0 ] || fail "--duration: exit $rc, want 0"
"$A" verify dur.tz >/dev/null || fail "dur.tz does not verify"
# it stopped while the command still ran (no wall-clock bound: a loaded
# machine starts the recorder slowly), after recording at least 0.5 s
kill "$(cat dur.pid)" 2>/dev/null || fail "the command did not outlive the recording"
timeout 60 "$A" summary --json dur.tz >dur.json || fail "summary dur"
export_jsonl dur.tz dur.jsonl
python3 - dur.json dur.jsonl "$(cat dur.pid)" <<'PY' || fail "--duration 0.5"
import json, sys
d = json.load(open(sys.argv[1]))
p = [json.loads(l) for l in open(sys.argv[2])]
s = [q for q in p if q["pid"] == int(sys.argv[3])]
assert d["duration_s"] >= 0.5, d["duration_s"]
assert len(s) == 1 and s[0]["end_s"] is None and s[0]["argv"] == ["sleep", "5"], s
PY

# --- a 3-level pipeline: sh -> (sh -> (sleep | cat)) | wc
record -o pipe.tz -- sh -c 'sh -c "sleep 0.1 | cat" | wc -c >/dev/null' || fail "pipeline record"
export_jsonl pipe.tz pipe.jsonl
pycheck pipe.jsonl "
top = one([p for p in procs if p['argv'] == ['sh', '-c', 'sh -c \"sleep 0.1 | cat\" | wc -c >/dev/null']], 'top sh')
check(top['parent_id'] is None, 'top has a parent in the trace')
wc = one(by_exe('/usr/bin/wc'), 'wc')
mid = one([p for p in procs if p['argv'] == ['sh', '-c', 'sleep 0.1 | cat']], 'mid sh')
check(mid['parent_id'] == top['id'] and wc['parent_id'] == top['id'], 'level 2 parents')
sl = one(by_exe('/usr/bin/sleep'), 'sleep')
ct = one(by_exe('/usr/bin/cat'), 'cat')
check(sl['parent_id'] == mid['id'] and ct['parent_id'] == mid['id'], 'level 3 parents')
check(sl['argv'] == ['sleep', '0.1'] and ct['argv'] == ['cat'], 'level 3 argv')
check(len(procs) == 5, '%d processes, want 5' % len(procs))
for p in procs:
    check(p['exit_code'] == 0, '%s exit %r' % (p['exe'], p['exit_code']))
"

# --- bad usage: exit 2 and one line
rc=0; "$R" --no-such-option -- true 2>err.txt || rc=$?
[ $rc = 2 ] || fail "unknown option: exit $rc, want 2"
[ "$(wc -l <err.txt)" = 1 ] || fail "unknown option: not one line: $(cat err.txt)"
grep -q "^tracer-record: unknown option" err.txt || fail "message: $(cat err.txt)"
rc=0; "$R" -o x.tz 2>err.txt || rc=$?
[ $rc = 2 ] || fail "missing command: exit $rc, want 2"
grep -q "missing COMMAND" err.txt || fail "message: $(cat err.txt)"
[ ! -e x.tz ] || fail "a file was left by a usage error"
rc=0; "$R" --argv-max 1G -- true 2>err.txt || rc=$?
[ $rc = 2 ] || fail "bad --argv-max: exit $rc, want 2"
"$R" --help >help.txt || fail "--help failed"
tail -n 3 help.txt | grep -q "tracer-record" || fail "--help does not end with examples"

# --- existing output without -f: exit 1, file untouched; -f overwrites
echo keep >exists.tz
rc=0; "$R" -o exists.tz -- true 2>err.txt || rc=$?
[ $rc = 1 ] || fail "existing output: exit $rc, want 1"
grep -q "use -f" err.txt || fail "message: $(cat err.txt)"
[ "$(cat exists.tz)" = keep ] || fail "existing output was modified"
record -f -o exists.tz -- true || fail "-f did not overwrite"
"$A" verify exists.tz >/dev/null || fail "overwritten trace does not verify"

# --- the sampler's programs (one BPF object with the recorder's) fail to
# load (test-only TRACER_RECORD_TEST_SAMPLER_FAIL): one warning, the object
# loads again without them, and fork/exec/exit are recorded as always
rc=0
TRACER_RECORD_TEST_SAMPLER_FAIL=1 timeout -k 5 "$REC_TIMEOUT" "$R" -o nosampler.tz -- \
	sh -c '/bin/true x; exit 6' 2>err.txt || rc=$?
[ $rc = 6 ] || fail "sampler load failure: exit $rc, want 6 (the command's): $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] || fail "sampler load failure: not one line: $(cat err.txt)"
grep -q "^tracer-record: warning: no samples, OOM kills or signals: cannot load their BPF programs" \
	err.txt || fail "sampler load failure message: $(cat err.txt)"
"$A" info nosampler.tz >info.txt || fail "info of the trace without the sampler"
for k in "oom_source unavailable" "signal_source unavailable" "process_samples none"; do
	grep -Eq "^ *${k% *} +${k#* }\$" info.txt || fail "no '$k' in: $(grep source info.txt)"
done
export_jsonl nosampler.tz nosampler.jsonl
pycheck nosampler.jsonl "
sh = one([p for p in procs if p['argv'][:2] == ['sh', '-c']], 'sh')
check(sh['exit_code'] == 6, 'sh exit code %r' % sh['exit_code'])
t = one(by_exe('/usr/bin/true'), 'true')
check(t['argv'] == ['/bin/true', 'x'] and t['exit_code'] == 0, 'true %r %r' % (t['argv'], t['exit_code']))
check(t['parent_id'] == sh['id'], 'parent of true')
"
# the same object without the fault: the sampler's programs load and attach
record -f -o nosampler.tz -- true || fail "recording with the sampler"
"$A" info nosampler.tz >info.txt || fail "info of the trace with the sampler"
grep -Eq "^ *process_samples +iter/task\$" info.txt || fail "no samples: $(grep -E 'source|samples' info.txt)"

# --- unwritable output: exit 1, nothing left behind
rc=0; "$R" -o /nonexistent-dir/x.tz -- true 2>err.txt || rc=$?
[ $rc = 1 ] || fail "unwritable output: exit $rc, want 1"
[ "$(wc -l <err.txt)" = 1 ] || fail "unwritable output: not one line: $(cat err.txt)"
echo "ok"
