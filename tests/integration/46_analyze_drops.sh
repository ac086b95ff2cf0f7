#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Every drop slot counts (issue 15 point 7): one synthetic trace per slot
# (test_model --write: drop-NAME.tz, 5 drops in that slot only, an EV_DROPS
# event at 2 s and the recorder's drops_* metadata), and every output that
# reports drops is checked for it: summary text (the "lost" line, the TREE
# INCOMPLETE banner) and --json, info text and --json, export (chrome's
# otherData, the note on stderr beside jsonl) and slice (the counters reached
# by the slice's start are carried, and its metadata says what it holds).
# Which slots count as lost and which make the tree incomplete is the table
# of analyze/dropslot.c, written out here again on purpose.
. "$(dirname "$0")/synthlib.sh"

# slot lost incomplete
for row in "fork 1 1" "exec 1 1" "exec_fail 1 1" "exit 1 1" "map_full 1 1" \
	"argv_fault 0 0" "kevent 1 0"; do
	set -- $row
	s=$1 lost=$2 inc=$3 f="$tmp/drop-$1.tz"
	[ -f "$f" ] || { bad "$s: $f not written"; continue; }
	total=$((lost * 5))
	j=$(timeout 60 "$A" summary --json "$f") || { bad "$s: summary --json failed"; continue; }
	i=$(timeout 60 "$A" info --json "$f") || { bad "$s: info --json failed"; continue; }
	c=$(timeout 60 "$A" export --format chrome "$f" 2>/dev/null) || { bad "$s: export chrome"; continue; }
	timeout 60 "$A" slice --from 3 "$f" "$tmp/after-$s.tz" 2>/dev/null || { bad "$s: slice"; continue; }
	timeout 60 "$A" slice --to 1 "$f" "$tmp/before-$s.tz" 2>/dev/null || { bad "$s: slice"; continue; }
	ja=$(timeout 60 "$A" summary --json "$tmp/after-$s.tz")
	ia=$(timeout 60 "$A" info --json "$tmp/after-$s.tz")
	jb=$(timeout 60 "$A" summary --json "$tmp/before-$s.tz")
	ib=$(timeout 60 "$A" info --json "$tmp/before-$s.tz")
	out=$(python3 - "$s" "$total" "$inc" "$j" "$i" "$c" "$ja" "$ia" "$jb" "$ib" <<'EOF'
import json, sys
s, total, inc = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
j, i, c, ja, ia, jb, ib = (json.loads(x) for x in sys.argv[4:11])
slots = ["fork", "exec", "exec_fail", "exit", "map_full", "argv_fault", "kevent"]
errs = []
def want(what, d, n, tot):
    for k in slots:
        v = d.get(k)
        if v != (n if k == s else 0):
            errs.append(f"{what}: {k} = {v}, want {n if k == s else 0}")
    if d.get("total") != tot:
        errs.append(f"{what}: total = {d.get('total')}, want {tot}")
want("summary --json drops", j["drops"], 5, total)
want("info --json drops", i["drops"], 5, total)
want("export chrome otherData.drops", c["otherData"]["drops"], 5, total)
want("slice after: summary --json drops", ja["drops"], 5, total)
want("slice after: info --json drops", ia["drops"], 5, total)
want("slice before: summary --json drops", jb["drops"], 0, 0)
want("slice before: info --json drops", ib["drops"], 0, 0)
if j["incomplete"] != inc:
    errs.append(f"summary --json incomplete = {j['incomplete']}, want {inc}")
if c["otherData"]["incomplete"] != inc:
    errs.append(f"chrome incomplete = {c['otherData']['incomplete']}, want {inc}")
if jb["incomplete"]:
    errs.append("slice before the drops: incomplete")
print("\n".join(errs))
EOF
)
	[ -z "$out" ] || { bad "$s:"; echo "$out"; }
	t=$(timeout 60 "$A" summary "$f")
	it=$(timeout 60 "$A" info "$f")
	e=$(timeout 60 "$A" export --format jsonl "$f" 2>&1 >/dev/null)
	if [ "$lost" = 1 ]; then
		grep -qx "lost       5 events dropped by the recorder ($s 5)" <<<"$t" ||
			bad "$s: summary's lost line: $(grep '^lost' <<<"$t")"
		grep -q "^tracer-analyze: '.*': 5 events dropped by the recorder ($s 5)" <<<"$e" ||
			bad "$s: export's note: '$e'"
	else
		grep -qx "lost       none" <<<"$t" || bad "$s: summary's lost line: $(grep '^lost' <<<"$t")"
		grep -q "^note: 5 execs have an empty argv" <<<"$t" || bad "$s: no argv note"
		[ -z "$e" ] || bad "$s: export says '$e'"
	fi
	if [ "$inc" = 1 ]; then
		grep -q "^\*\*\* TREE INCOMPLETE: 5 events dropped by the recorder ($s 5)" <<<"$t" ||
			bad "$s: no banner"
	else
		! grep -q "TREE INCOMPLETE" <<<"$t" || bad "$s: banner without a tree loss"
	fi
	grep -q "^drop slots .*$s 5" <<<"$it" || bad "$s: info text: $(grep '^drop' <<<"$it")"
	[ $fails = 0 ] && echo "ok   $s"
done
# a trace whose recorder wrote no drops_* keys (not closed by it): info says so
grep -q "^drop slots    not in the metadata" <<<"$(timeout 60 "$A" info "$tmp/pipeline.tz")" ||
	bad "info without drops_* keys"
grep -qx "lost       none" <<<"$(timeout 60 "$A" summary "$tmp/pipeline.tz")" ||
	bad "summary of a trace without loss: no 'lost       none'"
exit $((fails > 0))
