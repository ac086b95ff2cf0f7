#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Views of one trace agree with each other: where two commands show a
# figure under one name, it is the same number.
#   diff --by rule|task  compares top --by rule's task figures (WALL each
#                        task's wall once, CPU, PEAK RSS the largest combined
#                        peak of one task), checked against top's JSON and
#                        against export --tasks (each task's own row)
#   a process's peak RSS  tree, export jsonl/csv/chrome and the report agree:
#                        a running process's up to its last sample, unknown
#                        "-"/null/empty, never 0
#   top --sort rss       sorts a task grouping by the PEAK RSS it shows (the
#                        combined peak of one task); export --tasks peak_rss
#                        is 0 for a known 0, as top
#   slice tasks          a slice's tasks start at its window, as their
#                        roots' wall in the per-process views
#   a live file          verify, cat, recover say "still being written" as
#                        summary and info do
#   report read/written  the page's top tools and process columns say they
#                        are storage bytes, not top's RCHAR/WCHAR
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
S=${TESTS_DIR:?}/../samples/pipeline.tz
OB=$(cd "${O:-build}" && pwd)
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


# ---- one process's peak RSS: tree, export (jsonl, csv, chrome) and the
# report say the same; unknown is -/null/empty, never 0 (synthetic, exact:
# test_model --write). clip.tz: half (pid 302) runs at the end with 2 MiB
# in its samples; the slice 2..5 s of rss.tz: the root shell and the
# workers have no sample by its end (unknown), zero exited with a peak of 0
mkdir syn
"$OB/tests/test_model" --write syn >/dev/null || fail "test_model --write (make the unit tests first)"
timeout 60 "$A" slice --from 2 --to 5 syn/rss.tz r.tz 2>/dev/null || fail "slice rss.tz"
for t in syn/clip r; do
	b=$(basename $t)
	timeout 60 "$A" tree -c 0 $t.tz > $b.tree || fail "tree $t"
	timeout 60 "$A" export --format jsonl $t.tz > $b.jsonl || fail "export jsonl $t"
	timeout 60 "$A" export --format csv $t.tz > $b.csv || fail "export csv $t"
	timeout 60 "$A" export --format chrome $t.tz > $b.chrome || fail "export chrome $t"
done
pycheck clip.jsonl "
import csv, re
for b, want in (('clip', {302: (2048, True), 300: (0, False), 301: (0, False)}),
                ('r', {299: None, 311: None, 312: None, 313: None, 330: (0, False), 310: (4096, True)})):
    rows = {int(json.loads(l)['pid']): json.loads(l) for l in open(b + '.jsonl')}
    srows = {int(r['pid']): r for r in csv.DictReader(open(b + '.csv'))}
    ev = json.load(open(b + '.chrome'))['traceEvents']
    chrome = {int(e['args']['id'].split('.')[0]): e['args']['peak_rss_kib'] for e in ev if e.get('cat') == 'process'}
    tree = {}
    for l in open(b + '.tree'):
        m = re.match(r'[^0-9]*(\d+) .*  rss (-|[\d.]+ \S+)( \(to its last sample\))?', l)
        if m:
            tree[int(m.group(1))] = (m.group(2), bool(m.group(3)))
    for pid, w in want.items():
        p = rows[pid]
        got = None if p['peak_rss_kib'] is None else (p['peak_rss_kib'], p['peak_rss_sampled'])
        check(got == w, '%s %d: export peak %r, want %r' % (b, pid, got, w))
        check(p['peak_rss_sampled'] is None if w is None else True, '%s %d: sampled %r' % (b, pid, p['peak_rss_sampled']))
        check(srows[pid]['peak_rss_kib'] == ('' if w is None else str(w[0])), '%s %d: csv %r' % (b, pid, srows[pid]['peak_rss_kib']))
        check(chrome[pid] == (None if w is None else w[0]), '%s %d: chrome %r' % (b, pid, chrome[pid]))
        tw = ('-', False) if w is None else (('%.1f MiB' % (w[0] / 1024)) if w[0] >= 1024 else '%d B' % (w[0] * 1024), w[1])
        check(tree.get(pid) == tw, '%s %d: tree %r, want %r' % (b, pid, tree.get(pid), tw))
"
echo "ok   a process's peak RSS: tree, export jsonl/csv/chrome agree (running: to its last sample; unknown: -)"

# the report: its process table and the timeline's hover say - for an
# unknown peak (the slice's root shell is the first bar), the running
# process's sampled peak, a known 0 as 0 B
if command -v node >/dev/null && command -v "${CHROMIUM:-chromium}" >/dev/null; then
	rows='[Array.from(document.querySelectorAll("#pbody .vrow:not([hidden])")).map(function (r) { return Array.from(r.children).map(function (c) { return c.textContent; }); }), Array.from(document.querySelectorAll("#tools-table th")).map(function (c) { return c.textContent; }), Array.from(document.querySelectorAll("#phead div")).map(function (c) { return c.textContent; }), document.getElementById("tools-body").textContent]'
	for t in syn/clip r; do
		b=$(basename $t)
		timeout 120 "$A" report -o $b.html $t.tz 2>/dev/null || fail "report $t"
		timeout 180 node "$TESTS_DIR/browser/cdp_report.js" $b.html $b.png --interact --eval "$rows" > $b.cdp.json ||
			fail "report $t in the browser"
	done
	pycheck clip.jsonl "
for b, want in (('clip', {'302': '2.0 MiB', '301': '0 B'}), ('r', {'299': '-', '311': '-', '330': '0 B', '310': '4.0 MiB'})):
    r = json.load(open(b + '.cdp.json'))
    check(r['errors'] == [] and r['dom']['page_errors'] is None, (r['errors'], r['dom']['page_errors']))
    shown = {row[0]: row[5] for row in r['eval'][0]}
    for pid, w in want.items():
        check(shown.get(pid) == w, '%s: pid %s peak RSS %r in the table, want %r' % (b, pid, shown.get(pid), w))
r = json.load(open('r.cdp.json'))
check(r['hover'] and r['hover'].startswith('pid 299 ') and '\npeak RSS -,' in r['hover'], 'hover: %r' % r['hover'])
# read and written are storage bytes (top --json read_bytes/write_bytes), not
# top's RCHAR/WCHAR: the page says which
rows, th, ph, body = r['eval']
check(th[6:8] == ['storage read', 'storage written'], 'top tools headings: %r' % th)
check('not tracer-analyze top\'s RCHAR and WCHAR' in body, 'top tools: no note on RCHAR/WCHAR: %r' % body[-300:])
check('storage I/O' in ph and ', storage read ' in r['hover'], 'process table %r, hover %r' % (ph, r['hover']))
"
	echo "ok   report: the process table and the hover say - for an unknown peak; read/written said to be storage bytes"
else
	echo "skip report part: node or chromium missing (scripts/deps.sh --test)"
fi

# ---- tasks whose combined peak is not their largest process's (tasks.tz,
# --task 'wide|narrow|nil'): wide's three leaves of 1 MiB at once make 3
# MiB, narrow's one process 2 MiB, nil exited with 0 KiB
TR='wide|narrow|nil'
timeout 60 "$A" top --by rule --task "$TR" --sort rss -n 0 --json syn/tasks.tz > rss.json || fail "top --sort rss --json"
timeout 60 "$A" top --by rule --task "$TR" --sort rss -n 0 syn/tasks.tz > rss.txt || fail "top --sort rss"
timeout 60 "$A" export --tasks --format jsonl --task "$TR" syn/tasks.tz > tt.jsonl || fail "export --tasks jsonl"
timeout 60 "$A" export --tasks --format csv --task "$TR" syn/tasks.tz > tt.csv || fail "export --tasks csv"
pycheck tt.jsonl "
import csv
g = json.load(open('rss.json'))
shown = lambda x: (x['task_peak_rss_kib'] if x['tasks'] else x['peak_rss_kib'])
want = {'wide': 3072, 'narrow': 2048, 'nil': 0, '(none)': 0}
check({x['tool']: shown(x) for x in g} == want, 'top --by rule PEAK RSS: %r, want %r' % ({x['tool']: shown(x) for x in g}, want))
# sorted by what is shown (wide's processes peak at 1 MiB each, below narrow)
v = [-1 if shown(x) is None else shown(x) for x in g]
check(v == sorted(v, reverse=True) and g[0]['tool'] == 'wide', 'top --sort rss --json order: %r' % [(x['tool'], shown(x)) for x in g])
rows = [l.split()[0] for l in open('rss.txt').read().splitlines()[1:]]
check(rows[:2] == ['wide', 'narrow'], 'top --sort rss: %r' % rows)
# export --tasks: nil's known 0 is 0, not empty; the others as top
tasks = {t['name']: t for t in procs}
check({k: t['peak_rss'] for k, t in tasks.items()} == {'wide': 3 << 20, 'narrow': 2 << 20, 'nil': 0}, 'export --tasks peak_rss: %r' % tasks)
srows = {r['name']: r['peak_rss'] for r in csv.DictReader(open('tt.csv'))}
check(srows == {'wide': str(3 << 20), 'narrow': str(2 << 20), 'nil': '0'}, 'export --tasks csv peak_rss: %r' % srows)
"
echo "ok   top --sort rss sorts tasks by the combined peak it shows; export --tasks says 0 for a known 0"


# ---- a slice's tasks are clipped to its window like its processes: wide
# and narrow start 1 s before the window 2..5 s and run through it (truth:
# test_model's times); their tasks' start is the window's, their wall 3 s,
# as the per-process views (top --by tool, tree) count their roots
timeout 60 "$A" slice --from 2 --to 5 syn/tasks.tz ts.tz 2>/dev/null || fail "slice tasks.tz"
timeout 60 "$A" export --tasks --format jsonl --task "$TR" ts.tz > ts.jsonl || fail "export --tasks (slice)"
timeout 60 "$A" top --by rule --json --task "$TR" ts.tz > tsr.json || fail "top --by rule (slice)"
timeout 60 "$A" top --json ts.tz > tsp.json || fail "top (slice)"
timeout 60 "$A" rightsize --json --task "$TR" ts.tz > tsz.json || fail "rightsize (slice)"
pycheck ts.jsonl "
tasks = {t['name']: t for t in procs}
check(set(tasks) == {'wide', 'narrow'}, 'tasks in the window: %r' % list(tasks))
per = {g['tool']: g for g in json.load(open('tsp.json'))}
rule = {g['tool']: g for g in json.load(open('tsr.json'))}
rs = {r['name']: r for r in json.load(open('tsz.json'))['rules']}
for k, t in tasks.items():
    check(t['start_s'] == 0 and t['wall_s'] == 3, '%s: task start_s %r wall_s %r, want 0 and 3 (the window)' % (k, t['start_s'], t['wall_s']))
    check(rule[k]['task_wall_s'] == 3 and rs[k]['max_wall_s'] == 3, '%s: top task_wall_s %r, rightsize max_wall_s %r' % (k, rule[k]['task_wall_s'], rs[k]['max_wall_s']))
    check(abs(t['%cpu'] - round(100 * t['cpu_s'] / 3, 1)) < 0.051, '%s: %%cpu %r over 3 s' % (k, t['%cpu']))
# narrow is one process: its task is its process, in every view
check(per['narrow']['wall_s'] == tasks['narrow']['wall_s'] and per['narrow']['cpu_s'] == tasks['narrow']['cpu_s'],
      'narrow: process wall %r cpu %r, task %r %r' % (per['narrow']['wall_s'], per['narrow']['cpu_s'], tasks['narrow']['wall_s'], tasks['narrow']['cpu_s']))
"
echo "ok   slice: tasks start at the window and last 3 s, as their processes"


# ---- a file a recorder still writes (it holds the file's lock: here this
# shell holds it on a copy of a file without footer) is "still being
# written" in verify, cat and recover, as in summary and info; the same
# file unlocked is an unfinished one, as before
cp "$TESTS_DIR/data/good/no-footer.tz" live.tz
exec 9<live.tz
flock -x 9 || fail "flock"
timeout 60 "$A" info live.tz > info.txt || fail "info (live)"
grep -q "still being written (a recorder holds it)" info.txt || fail "info does not see the lock: $(cat info.txt)"
timeout 60 "$A" verify live.tz > v.out 2> v.err || fail "verify (live): $(cat v.err)"
rc=0; timeout 60 "$A" cat live.tz > /dev/null 2> c.err || rc=$?
[ $rc = 1 ] || fail "cat (live): exit $rc"
rc=0; timeout 60 "$A" recover live.tz rec.tz > r.out 2> r.err || rc=$?
[ $rc = 0 ] && [ -s rec.tz ] || fail "recover (live): exit $rc, $(cat r.err)"
exec 9<&-
grep -qx "tracer-analyze: 'live.tz': note: still being written (the recorder is running): the blocks sealed so far were checked; verify it again once recording ends" v.err &&
	! grep -q "not closed cleanly" v.err || fail "verify (live): $(cat v.err)"
grep -qx "tracer-analyze: 'live.tz': still being written (the recorder is running): every block sealed so far was printed" c.err &&
	[ "$(wc -l < c.err)" = 1 ] || fail "cat (live): $(cat c.err)"
grep -qx "tracer-analyze: 'live.tz': still being written (the recorder is running): 'rec.tz' holds what it had sealed by now; recover it again once recording ends" r.err ||
	fail "recover (live): $(cat r.err)"
# unlocked: abandoned, as before
timeout 60 "$A" verify live.tz 2> v2.err > /dev/null || fail "verify (unfinished)"
grep -q "not closed cleanly" v2.err && ! grep -q "still being written" v2.err || fail "verify (unfinished): $(cat v2.err)"
rc=0; timeout 60 "$A" cat live.tz > /dev/null 2> c2.err || rc=$?
[ $rc = 1 ] && grep -q "truncated or unfinished trace" c2.err || fail "cat (unfinished): $rc $(cat c2.err)"
echo "ok   a live file: verify, cat and recover say still being written (unlocked: unfinished)"

exit 0
