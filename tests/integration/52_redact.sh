#!/usr/bin/env bash
# bundle --redact: a recorded workload whose argv holds passwords, tokens,
# keys, a home directory and a custom pattern; no member of the bundle (the
# trace decoded included) keeps any of them, and the trace still holds every
# process.
set -euo pipefail
A=${TRACER_ANALYZE:?}
R=${TRACER_RECORD:?}
[ "$(id -u)" = 0 ] || { echo "skip: recording needs root"; exit 77; }
t=$(mktemp -d /tmp/tracer-t52.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$t"

secrets=(hunter2xyz s3cr3tTok tracer_t52_user SEPARATEtok99 pw12345 AKIAABCDEFGHIJKLMNOP
	ghp_abcdefghijklmnopqrstuvwxyz012345 xoxb-1234567890-abcdef project-4242 argvSecret77)
# the same secrets as separate arguments (true) and inside one sh -c string
timeout 60 "$R" -f -o sec.tz -- sh -c '/bin/true --password=hunter2xyz token=s3cr3tTok \
	/home/tracer_t52_user/data --token SEPARATEtok99 https://bob:pw12345@example.org/x \
	AKIAABCDEFGHIJKLMNOP ghp_abcdefghijklmnopqrstuvwxyz012345 xoxb-1234567890-abcdef \
	project-4242 --api-key argvSecret77; /bin/true done' > /dev/null
"$A" export --format jsonl sec.tz > orig.jsonl
for s in "${secrets[@]}"; do
	grep -q -- "$s" orig.jsonl || fail "the recorded trace lacks '$s' (the test would prove nothing)"
done

timeout 120 "$A" bundle --redact --redact-pattern 'project-[0-9]+' sec.tz -o red.tar.gz 2> err
grep -q 'string(s) redacted' err || fail "no redaction count: $(cat err)"
timeout 120 "$A" bundle --redact --redact-pattern 'project-[0-9]+' sec.tz -o red.zip 2> /dev/null
python3 - <<'PY' || fail "unpacking"
import tarfile, zipfile, os
for src, dst in (('red.tar.gz', 'x.tar'), ('red.zip', 'x.zip')):
    os.makedirs(dst)
    if src.endswith('.zip'):
        with zipfile.ZipFile(src) as z:
            for n in z.namelist():
                open(os.path.join(dst, os.path.basename(n)), 'wb').write(z.read(n))
    else:
        with tarfile.open(src) as tf:
            for m in tf.getmembers():
                open(os.path.join(dst, os.path.basename(m.name)), 'wb').write(tf.extractfile(m).read())
PY
[ -s x.tar/trace.tz ] && [ -s x.tar/summary.txt ] && [ -s x.tar/README.txt ] || fail "members missing"
# the trace decoded, every way the analyzer shows it
for d in x.tar x.zip; do
	"$A" export --format jsonl "$d/trace.tz" > "$d/decoded.jsonl"
	"$A" export --format chrome "$d/trace.tz" > "$d/decoded.chrome.json"
	"$A" info "$d/trace.tz" > "$d/decoded.info" 2>&1 || true
	"$A" tree --full-args "$d/trace.tz" > "$d/decoded.tree"
done
"$A" summary red.tar.gz > x.tar/decoded.summary
for s in "${secrets[@]}"; do
	hits=$(grep -ral -- "$s" x.tar x.zip || true)
	[ -z "$hits" ] || fail "'$s' survives in: $hits"
done
grep -q '<redacted>' x.tar/decoded.jsonl || fail "no <redacted> marker in the trace"
grep -q '/home/<redacted>/data' x.tar/decoded.jsonl || fail "home directory not redacted to /home/<redacted>"
grep -q -- '--password=<redacted>' x.tar/decoded.jsonl || fail "key of key=value not kept"
grep -q 'REDACTED: matches of these patterns' x.tar/README.txt || fail "README does not say it is redacted"
# nothing lost: same processes, same exit codes
[ "$(wc -l < x.tar/decoded.jsonl)" = "$(wc -l < orig.jsonl)" ] || fail "process count changed"
diff <(python3 -c 'import json,sys; [print(json.loads(l)["pid"], json.loads(l)["exit_code"]) for l in open(sys.argv[1])]' orig.jsonl) \
	<(python3 -c 'import json,sys; [print(json.loads(l)["pid"], json.loads(l)["exit_code"]) for l in open(sys.argv[1])]' x.tar/decoded.jsonl) ||
	fail "pids or exit codes changed"
# a bad pattern is a usage error
set +e
"$A" bundle --redact-pattern '(' sec.tz -o bad.tar.gz 2> err; rc=$?
set -e
[ "$rc" = 2 ] && [ ! -e bad.tar.gz ] || fail "bad pattern: exit $rc"
echo ok
