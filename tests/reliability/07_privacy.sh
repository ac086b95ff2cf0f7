#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Privacy (issue 8.7): traces are created 0600 whatever the umask (recorder,
# recover, slice); tracer-record --redact masks every secret of the default
# pattern list (common/redact.c) in argv, paths and the command-line
# metadata, keeping every process and the argv lengths; summary warns about
# credential-looking argv in a plain trace and not in a redacted one.
# (bundle --redact: tests/integration/52_redact.sh.)
. "$(dirname "$0")/rlib.sh"
need_root
cd "$T"
umask 000
secrets=(hunter2xyz s3cr3tTok tracer_rel_user SEPARATEtok99 pw12345 AKIAABCDEFGHIJKLMNOP
	ghp_abcdefghijklmnopqrstuvwxyz012345 xoxb-1234567890-abcdef argvSecret77)
script='/bin/true --password=hunter2xyz token=s3cr3tTok /home/tracer_rel_user/data --token SEPARATEtok99 https://bob:pw12345@example.org/x AKIAABCDEFGHIJKLMNOP ghp_abcdefghijklmnopqrstuvwxyz012345 xoxb-1234567890-abcdef --api-key argvSecret77; /bin/true done'

record -o plain.tz -- sh -c "$script" || fail "record plain"
record --redact -o red.tz -- sh -c "$script" || fail "record --redact"
"$A" recover plain.tz rec.tz >/dev/null || fail "recover"
"$A" slice --from 0 --to 1h plain.tz sl.tz >/dev/null 2>&1 || fail "slice"
for f in plain.tz red.tz rec.tz sl.tz; do
	[ "$(stat -c %a $f)" = 600 ] || fail "$f created with mode $(stat -c %a $f) under umask 000"
done

dump() { # everything a reader shows of a trace
	"$A" info "$1" && "$A" cat "$1" && "$A" export --format jsonl "$1"
}
dump plain.tz >plain.txt || fail "reading plain.tz"
dump red.tz >red.txt || fail "reading red.tz"
for s in "${secrets[@]}"; do
	grep -q -- "$s" plain.txt || fail "the plain trace lacks '$s' (the test would prove nothing)"
	if grep -q -- "$s" red.txt; then
		fail "--redact kept '$s': $(grep -m2 -- "$s" red.txt)"
	fi
done
grep -q -- '--password=\*\*\*\*\*\*\*\*\*\*' red.txt || fail "--password= value not masked in place"
[ "$(meta <("$A" info red.tz) redacted_strings)" -ge 20 ] || fail "redacted_strings: $("$A" info red.tz | grep redact)"
# the same processes and argv lengths
"$A" export --format jsonl plain.tz >p.jsonl
"$A" export --format jsonl red.tz >r.jsonl
pycheck r.jsonl "
plain = [json.loads(l) for l in open('p.jsonl')]
check(len(plain) == len(procs) == 3, 'process counts %d %d' % (len(plain), len(procs)))
for a, b in zip(plain, procs):
    check([len(x) for x in a['argv']] == [len(x) for x in b['argv']], 'argv lengths differ: %s' % b['argv'])
"
# summary warns on the plain trace only
"$A" summary plain.tz >sum.txt || fail "summary"
grep -q "^warning: 2 execs have arguments that look like credentials" sum.txt ||
	fail "no credential warning: $(grep -i warn sum.txt)"
"$A" summary red.tz >sum.txt || fail "summary red"
if grep -qi "credentials" sum.txt; then fail "a redacted trace still warns"; fi
echo ok
