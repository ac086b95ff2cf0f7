#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Views of one trace agree with each other: where two commands show a
# figure under one name, it is the same number.
#   diff --by rule|task  compares top --by rule's task figures (WALL each
#                        task's wall once, CPU, PEAK RSS the largest combined
#                        peak of one task), checked against top's JSON and
#                        against export --tasks (each task's own row)
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
S=${TESTS_DIR:?}/../samples/pipeline.tz
[ -f "$S" ] || fail "no $S"
cd "$T"

# ---- diff --by rule/task: top's figures, export --tasks' tasks
for by in rule task; do
	timeout 120 "$A" top --by $by --json -n 0 "$S" > top.$by.json || fail "top --by $by"
	timeout 120 "$A" diff --by $by --json -n 0 "$S" "$S" > diff.$by.json || fail "diff --by $by"
	timeout 120 "$A" diff --by $by -n 0 "$S" "$S" > diff.$by.txt || fail "diff --by $by (text)"
	timeout 120 "$A" top --by $by -n 0 "$S" > top.$by.txt || fail "top --by $by (text)"
done
timeout 120 "$A" export --format jsonl --tasks "$S" > tasks.jsonl || fail "export --tasks"
pycheck tasks.jsonl "
import collections
for by, name in (('rule', 'name'), ('task', 'key')):
    top = {g['tool']: g for g in json.load(open('top.%s.json' % by))}
    diff = {g['tool']: g for g in json.load(open('diff.%s.json' % by))['groups']}
    check(set(top) == set(diff), '%s: groups differ' % by)
    tw, tp, tn = collections.Counter(), {}, collections.Counter()
    for t in procs:
        tw[t[name]] += t['wall_s']
        tn[t[name]] += 1
        tp[t[name]] = max(tp.get(t[name], 0), t['peak_rss'] or 0)
    checked = 0
    for k, g in top.items():
        d = diff[k]
        for s in 'ab':
            check(d['cpu_%s_s' % s] == g['cpu_s'], '%s %r: cpu %r, top %r' % (by, k, d['cpu_%s_s' % s], g['cpu_s']))
            if not g['tasks']:
                continue
            check(d['tasks_%s' % s] == g['tasks'] == tn[k], '%s %r: tasks' % (by, k))
            check(d['wall_%s_s' % s] == g['task_wall_s'], '%s %r: wall %r, top task_wall_s %r' % (by, k, d['wall_%s_s' % s], g['task_wall_s']))
            check(abs(d['wall_%s_s' % s] - tw[k]) <= 1e-6 * (tn[k] + 1), '%s %r: wall %r, tasks %r' % (by, k, d['wall_%s_s' % s], tw[k]))
            check(d['peak_rss_%s_kib' % s] == g['task_peak_rss_kib'], '%s %r: peak %r, top %r' % (by, k, d['peak_rss_%s_kib' % s], g['task_peak_rss_kib']))
            check(d['peak_rss_%s_kib' % s] * 1024 == tp[k], '%s %r: peak %r KiB, tasks %r B' % (by, k, d['peak_rss_%s_kib' % s], tp[k]))
            checked += 1
    # the sample has groups whose processes' wall sum is not their tasks'
    # wall (wrapper shells, parallel members): a sum would fail above
    check(checked > 10, '%s: %d groups of tasks checked' % (by, checked))
    check(any(g['tasks'] and abs(g['wall_s'] - g['task_wall_s']) > 1 for g in top.values()),
          '%s: no group whose process wall sum differs from its tasks wall: a weak test' % by)
# the text shows the same: each group's WALL A, CPU A and PEAK RSS A are
# top's WALL, CPU and PEAK RSS (keys may hold spaces: matched whole)
import re
top = {g['tool']: g for g in json.load(open('top.rule.json'))}
keys = sorted(top, key=len, reverse=True)
def rows(f, pat):
    out = {}
    for l in open(f).read().splitlines():
        for k in keys:
            if l.startswith(k + ' '):
                m = re.match(pat, l[len(k):])
                check(m, '%s: cannot parse %r' % (f, l))
                out[k] = m.groups()
                break
    return out
tt = rows('top.rule.txt', r'\s+\d+\s+(\S+)\s+\S+\s+(\S+)\s+[\d.]+\s+[\d.]+\s+(-|[\d.]+ \S+)\s')
dt = rows('diff.rule.txt', r'\s+\d+/\d+\s+(\S+)/\S+\s+\S+\s+(\S+)/\S+\s+\S+\s+(-|[\d.]+ \S+)/')
check(len(tt) == len(top) and set(dt) == set(tt), 'text rows: top %d, diff %d' % (len(tt), len(dt)))
for k in tt:
    check(dt[k] == tt[k], 'text %r: diff WALL, CPU, PEAK RSS A %r, top %r' % (k, dt[k], tt[k]))
"
exit 0
