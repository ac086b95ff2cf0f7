#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bundle --redact: a recorded workload whose argv holds passwords, tokens,
# keys, a home directory and a custom pattern; no member of the bundle (the
# trace decoded included) keeps any of them, and the trace still holds every
# process. One mask style with tracer-record --redact: each byte of a
# secret becomes '*' (this test expected "<redacted>" before the engines
# were made one).
. "$(dirname "$0")/lib.sh"
need_root
t=$T
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
	# report.html's data is gzip + base64: unpacked, for the grep below
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import report_data
open(sys.argv[3], "w").write(report_data.raw(open(sys.argv[2], encoding="utf-8").read()))' \
		"${TESTS_DIR:?}/browser" "$d/report.html" "$d/decoded.report.json" || fail "$d/report.html: no data"
done
"$A" summary red.tar.gz > x.tar/decoded.summary
for s in "${secrets[@]}"; do
	hits=$(grep -ral -- "$s" x.tar x.zip || true)
	[ -z "$hits" ] || fail "'$s' survives in: $hits"
done
grep -q '\*\*\*\*' x.tar/decoded.jsonl || fail "no '*' mask in the trace"
grep -q '/home/\*\{15\}/data' x.tar/decoded.jsonl || fail "home directory not masked to /home/***.../data"
grep -q -- '--password=\*\{10\}"' x.tar/decoded.jsonl || fail "key of key=value not kept, or length changed"
grep -q 'REDACTED: every byte of a match of these patterns' x.tar/README.txt || fail "README does not say it is redacted"
# the redacted copy's placeholders are not secrets any more: no warning
! grep -q 'look like credentials' x.tar/decoded.summary ||
	fail "summary of the redacted bundle still warns: $(grep credentials x.tar/decoded.summary)"
"$A" summary sec.tz | grep -q 'look like credentials' || fail "summary of the original trace does not warn"
# nothing lost: same processes, same exit codes
[ "$(wc -l < x.tar/decoded.jsonl)" = "$(wc -l < orig.jsonl)" ] || fail "process count changed"
diff <(python3 -c 'import json,sys; [print(json.loads(l)["pid"], json.loads(l)["exit_code"]) for l in open(sys.argv[1])]' orig.jsonl) \
	<(python3 -c 'import json,sys; [print(json.loads(l)["pid"], json.loads(l)["exit_code"]) for l in open(sys.argv[1])]' x.tar/decoded.jsonl) ||
	fail "pids or exit codes changed"

# argv as a whole (the tester's command): prefixed option names redact the
# next argument, "Authorization:" "Bearer" X redacts X; in every member, the
# bundled trace decoded (export, tree --full-args, cat) and a trace recorded
# with tracer-record --redact
secrets2=(hunter2 s3cr3tval KEYDATA ATOK abcdefghijk)
cmd2='/bin/echo --db-password hunter2 --client-secret s3cr3tval --private-key KEYDATA --access-token ATOK Authorization: Bearer abcdefghijk >/dev/null'
timeout 60 "$R" -f -o sec2.tz -- sh -c "$cmd2" > /dev/null
timeout 60 "$R" --redact -f -o sec2r.tz -- sh -c "$cmd2" > /dev/null
"$A" export --format jsonl sec2.tz > orig2.jsonl
for s in "${secrets2[@]}"; do
	grep -q -- "$s" orig2.jsonl || fail "the recorded trace lacks '$s'"
done
timeout 120 "$A" bundle --redact --no-plots sec2.tz -o red2.tar.gz 2> /dev/null
mkdir y
tar -xzf red2.tar.gz -C y
tz2=$(find y -name trace.tz | head -1)
[ -s "$tz2" ] || fail "no trace member"
for src in red2.tar.gz "$tz2" sec2r.tz; do
	o=y/decoded.$(basename "$src")
	"$A" export --format jsonl "$src" > "$o.jsonl"
	"$A" tree --full-args "$src" > "$o.tree"
	"$A" cat "$src" > "$o.cat"
	grep -q -- '--db-password' "$o.tree" || fail "$src: option names lost: $(cat "$o.tree")"
done
for s in "${secrets2[@]}"; do
	hits=$(grep -ral -- "$s" y sec2r.tz || true)
	[ -z "$hits" ] || fail "'$s' survives in: $hits"
done
grep -q -- "--db-password '\*\{7\}' --client-secret '\*\{9\}'" y/decoded.red2.tar.gz.tree ||
	fail "bundle: argv not redacted per argument: $(cat y/decoded.red2.tar.gz.tree)"
grep -q "Authorization: Bearer '\*\{11\}'" y/decoded.red2.tar.gz.tree ||
	fail "bundle: bearer value: $(cat y/decoded.red2.tar.gz.tree)"
grep -q -- "--private-key '\*\*\*\*\*\*\*'" y/decoded.sec2r.tz.tree ||
	fail "record --redact: argv not masked per argument: $(cat y/decoded.sec2r.tz.tree)"

# a bad pattern is a usage error
set +e
"$A" bundle --redact-pattern '(' sec.tz -o bad.tar.gz 2> err; rc=$?
set -e
[ "$rc" = 2 ] && [ ! -e bad.tar.gz ] || fail "bad pattern: exit $rc"
echo ok
