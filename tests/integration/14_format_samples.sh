#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# samples/ is readable and consistent with the current spec (docs/FORMAT.md,
# docs/EVENTS.md), whatever recorder wrote it: read-only checks on every
# samples/*.tz through its decoding (tests/data/conformance/README.md form):
# whole and undamaged, counts that match the events read, events in time
# order, argv lists per FORMAT.md [S1], exit status per EVENTS.md [E6], type
# ids named as EVENTS.md names them, a process table that is a forest.
set -euo pipefail
A=${TRACER_ANALYZE:?} H=${TESTS_HELPERS:?} T=${TESTS_DIR:?}
S=$T/../samples
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -x "$H/tzdecode" ] || { echo "FAIL: $H/tzdecode not built"; exit 1; }
tmp=$(mktemp -d /tmp/tz-samples.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in "$S"/*.tz; do
	timeout 120 "$A" verify "$f" >/dev/null || { echo "FAIL: verify $f"; exit 1; }
	timeout 120 "$H/tzdecode" "$f" >"$tmp/dec"
	timeout 60 python3 - "$tmp/dec" "$T/../docs/EVENTS.md" "$f" <<'PY'
import re, sys
dec, events_md, name = sys.argv[1:]
lines = open(dec, encoding='ascii').read().splitlines()
def fail(msg):
    sys.exit(f'FAIL: {name}: {msg}')
def one(key):
    v = [l[len(key) + 2:] for l in lines if l.startswith(key + ': ')]
    if len(v) != 1:
        fail(f'{len(v)} "{key}:" lines')
    return v[0]
def kv(s):
    return dict(x.split('=', 1) for x in s.split() if '=' in x)
if one('open') != 'ok': fail('does not open')
fi = kv(one('file'))
if fi['footer'] != '1' or fi['unfinished'] != '0': fail(f'not a whole file: {fi}')
if one('verify') != 'ok': fail('verify finds damage')
if any(l.startswith(('iter:', 'model:')) for l in lines): fail('reading stopped')
c = {k: int(v) for k, v in kv(one('counts')).items()}
if c['corrupt_blocks'] or c['duplicate_blocks'] or c['torn_tail_bytes']: fail(f'damage: {c}')

# type ids carry the names of docs/EVENTS.md's table
names = dict(re.findall(r'^\| (\d+) \| (\w+) \|', open(events_md).read(), re.M))
if len(names) < 10: fail('EVENTS.md type table not found')
types = {}
for l in lines:
    if l.startswith('type: '):
        tid, tname = l.split()[1:3]
        types[tname] = tid
        if tid in names and names[tid] != tname:
            fail(f'type {tid} is "{tname}", EVENTS.md says "{names[tid]}"')
for need in ('fork', 'exec', 'exit', 'proc_state'):
    if need not in types: fail(f'no {need} type')

blocks = [l for l in lines if l.startswith('block: ')]
state_ev = sum(int(kv(b)['events']) for b in blocks if ' state ' in b)
chunk_ev = sum(int(kv(b)['events']) for b in blocks if ' chunk ' in b)
ev = [l for l in lines if l.startswith('event: ')]
st = [l for l in ev if l.split()[3] == 'state']
live = [l for l in ev if l.split()[3] != 'state']
if chunk_ev != c['events'] or len(live) != c['events']:
    fail(f'{len(live)} events read, chunk headers say {chunk_ev}, counts {c["events"]}')
if len(st) != state_ev: fail(f'{len(st)} state events, state headers say {state_ev}')
if not live: fail('no events')
ts = [int(l.split()[1]) for l in live]
if ts != sorted(ts): fail('events not in time order')

def argv_of(l):
    m = re.search(r' argv=(\[.*\])', l)
    return m.group(1) if m else None
def nargs(a):
    return 0 if a == '[]' else len(re.findall(r'"(?:[^"\\]|\\x[0-9a-f]{2})*"', a))
nexec = nexit = 0
for l in live + st:
    f = kv(l.split(' argv=')[0])
    typ = l.split()[3] if l.split()[3] != 'state' else l.split()[4]
    if typ in ('exec', 'proc_state'):
        a = argv_of(l)
        cut = int(f['flags']) & (1 if typ == 'exec' else 4)
        if a is None: fail(f'{typ} without argv: {l[:80]}')
        if not cut and (a.endswith('+]') or nargs(a) != int(f['argc'])):
            fail(f'argv {a[:60]} does not hold argc={f["argc"]} NUL-terminated strings')
        nexec += typ == 'exec'
    if typ == 'exit':
        s, code, sig = int(f['status']), int(f['exit_code']), int(f['signal'])
        want = (s & 0x7f, -1) if s & 0x7f else (0, (s >> 8) & 0xff)
        if (sig, code) != want: fail(f'exit status {s} vs exit_code={code} signal={sig}')
        if bool(int(f['flags']) & 1) != bool(s & 0x80): fail(f'core flag vs status {s}')
        nexit += 1
if not nexec or not nexit: fail('no exec or no exit event')

procs = [l.split() for l in lines if l.startswith('proc: ')]
ids = [p[1] for p in procs]
if not procs or len(set(ids)) != len(ids): fail('process ids missing or repeated')
for p in procs:
    parent = p[2].split('=', 1)[1]
    if parent != '-' and parent not in ids: fail(f'{p[1]}: parent {parent} not in the table')
order = [(int(p[1].split('.')[1]), int(p[1].split('.')[0])) for p in procs]
if order != sorted(order): fail('process table not ordered by (start, tgid)')
print(f'{name}: {len(live)} events, {len(procs)} processes, {nexec} execs, {nexit} exits')
PY
	n=$((n + 1))
done
[ $n -ge 1 ] || { echo "FAIL: no samples/*.tz"; exit 1; }
echo "ok: $n sample(s)"
