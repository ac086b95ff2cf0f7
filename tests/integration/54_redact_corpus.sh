#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The redaction corpus (tests/data/redact/corpus.tsv: 71 secret shapes, 33
# look-alikes) on real processes (issue 19, point 4): each line runs a copy
# of /bin/true named like its program (so the exe, filename and comm carry
# it too: an executable named like an AWS key), with its arguments.
#  - tracer-record --redact: no secret, nor the first half of a long one
#    (10 bytes at least), in the raw file, in any of its zstd frames decompressed, or in
#    what cat/export/info/tree print of it; comm included (exec and exit);
#  - bundle --redact of the plain trace: the same in every member, the
#    trace member decompressed and decoded too;
#  - every look-alike's argv is recorded exactly, in both;
#  - nothing else changes: the same processes, every mask a run of '*' of
#    the secret's length (both tools, one style).
# The plain recording must hold every secret, or the test proves nothing.
. "$(dirname "$0")/lib.sh"
need_root
command -v zstd >/dev/null || { echo "skip: zstd missing"; exit 77; }
corpus=${TESTS_DIR:-$(dirname "$0")/..}/data/redact/corpus.tsv
[ -r "$corpus" ] || fail "no corpus at $corpus"
cd "$T"
mkdir bin

# the workload: one exec per corpus line, the program a copy of /bin/true
python3 - "$corpus" <<'PY' || fail "corpus"
import json, shlex, shutil, sys, os
lines = []
for raw in open(sys.argv[1]):
    raw = raw.rstrip('\n')
    if not raw or raw.startswith('#'):
        continue
    f = raw.split('\t')
    kind, needle, prog, args = f[0], f[1], f[2], f[3:]
    path = os.path.join(os.getcwd(), 'bin', prog)
    if not os.path.exists(path):
        shutil.copy('/bin/true', path)
    lines.append({'kind': kind, 'needle': needle, 'argv': [path] + args})
with open('run.sh', 'w') as f:
    for l in lines:
        f.write(' '.join(shlex.quote(a) for a in l['argv']) + '\n')
json.dump(lines, open('lines.json', 'w'))
PY

record -f -o plain.tz -- sh run.sh || fail "record plain"
record -f --redact -o red.tz -- sh run.sh || fail "record --redact"
# with the pictures when gnuplot is there: timeline.svg is text (the PNGs are
# drawn from the redacted trace and compressed)
plots=--no-plots
command -v gnuplot >/dev/null && plots=
timeout 300 "$A" bundle --redact $plots plain.tz -o b.tar.gz 2>bundle.err ||
	fail "bundle: $(cat bundle.err)"
mkdir m
tar -xzf b.tar.gz -C m
btz=$(find m -name trace.tz | head -1)
[ -s "$btz" ] || fail "no trace member"

views() { # every way the analyzer shows trace $1, into $2.*
	"$A" cat "$1" >"$2.cat" || fail "cat $1"
	"$A" cat --state "$1" >"$2.state" || fail "cat --state $1"
	"$A" export --format jsonl "$1" >"$2.jsonl" || fail "export $1"
	"$A" info "$1" >"$2.info" || fail "info $1"
	"$A" tree --full-args "$1" >"$2.tree" || fail "tree $1"
}
views plain.tz v.plain
views red.tz v.red
views "$btz" v.bundle

python3 - "$btz" <<'PY' || fail "corpus check"
import glob, json, os, subprocess, sys

lines = json.load(open('lines.json'))
MAGIC = b'\x28\xb5\x2f\xfd'

def frames(data):
    """the file itself and each zstd frame in it, decompressed"""
    out = [data]
    i = data.find(MAGIC)
    while i >= 0:
        p = subprocess.run(['zstd', '-dcq'], input=data[i:], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if p.stdout:
            out.append(p.stdout)
        i = data.find(MAGIC, i + 1)
    return out

def blobs(paths):
    res = []
    for p in paths:
        for b in frames(open(p, 'rb').read()):
            res.append((p, b))
    return res

def needles(l):  # a long secret's first half (at least 10 bytes) must go too
    n = l['needle'].encode()
    return [n] if len(n) < 12 else [n, n[:max(10, len(n) // 2)]]

bad = []
plain = blobs(['plain.tz'] + glob.glob('v.plain.*'))
nframes = sum(1 for p, _ in plain if p == 'plain.tz') - 1
if nframes < 1:
    bad.append('plain.tz: no zstd frame found (the raw check would prove nothing)')
for l in lines:
    if l['kind'] == 'S' and not any(needles(l)[0] in b for _, b in plain):
        bad.append('plain trace lacks %r (the test would prove nothing)' % l['needle'])

members = [p for p in glob.glob('m/**', recursive=True) if os.path.isfile(p)]
if len(members) < 6:
    bad.append('bundle has only %d members' % len(members))
for what, paths in (('record --redact', ['red.tz'] + glob.glob('v.red.*')),
                    ('bundle --redact', members + glob.glob('v.bundle.*'))):
    for p, b in blobs(paths):
        for l in lines:
            if l['kind'] != 'S':
                continue
            for n in needles(l):
                if n in b:
                    bad.append('%s: %r survives in %s' % (what, n.decode(), p))

# look-alikes: recorded exactly; the same processes; '*' runs of equal length
def execs(path):
    out = []
    for line in open(path):
        out.extend(json.loads(line)['execs'])
    return out
pe = execs('v.plain.jsonl')
for name in ('red', 'bundle'):
    e = execs('v.%s.jsonl' % name)
    argvs = [x['argv'] for x in e]
    for l in lines:
        if l['kind'] == 'L' and l['argv'] not in argvs:
            bad.append('%s: look-alike argv changed: %s' % (name, l['argv']))
    if len(e) != len(pe):
        bad.append('%s: %d execs, plain %d' % (name, len(e), len(pe)))
    for a, b in zip(pe, e):
        for k in ('argv',):
            if [len(x) for x in a[k]] != [len(x) for x in b[k]]:
                bad.append('%s: argv lengths changed: %s' % (name, b[k]))
            for x, y in zip(a[k], b[k]):
                if any(c != d and d != '*' for c, d in zip(x, y)):
                    bad.append('%s: a mask other than "*": %r -> %r' % (name, x, y))
        for k in ('exe', 'filename', 'comm'):
            if a[k] is not None and (len(a[k]) != len(b[k]) or
                                     any(c != d and d != '*' for c, d in zip(a[k], b[k]))):
                bad.append('%s: %s %r -> %r' % (name, k, a[k], b[k]))
# the executable named like an AWS key: its comm, exec and exit, masked
for name in ('red', 'bundle'):
    cat = open('v.%s.cat' % name).read()
    if 'comm="***************"' not in cat or cat.count('comm="***************"') < 2:
        bad.append('%s: no masked 15-byte comm in both exec and exit' % name)
for b in bad[:40]:
    print('FAIL:', b)
sys.exit(1 if bad else 0)
PY
grep -q 'string(s) redacted' bundle.err || fail "bundle: no redaction count"

# an argv cut by --argv-max in the middle of a token keeps no beginning of it
tok=ghp_CutT0kenABCDEFGHIJKLMNOPQRSTUVWXYZ
record -f --redact --argv-max 48 -o cut.tz -- bin/true --verbose-output-please "$tok" ||
	fail "record --argv-max"
"$A" cat cut.tz >cut.txt || fail "cat cut.tz"
grep -q '\.\.\.' cut.txt || fail "the argv was not cut: $(grep ' exec ' cut.txt)"
! grep -q 'ghp_Cut' cut.txt || fail "a cut token's beginning survives: $(grep -o 'argv=.*' cut.txt)"
echo ok
