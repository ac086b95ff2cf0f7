#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Names from a trace never reach a terminal raw (finding 7): a binary named
# with ESC [ 2 J, a TAB, a newline, quotes, a byte of invalid UTF-8 and a
# C1 control (U+009B CSI) is run under the recorder; every text output of
# every subcommand is scanned for control bytes (any byte < 0x20 but the
# newline, and the tab in tsv; DEL; C1 in UTF-8), and the name shows in its
# escaped form (docs/tracer-analyze.md, UNTRUSTED TEXT), also as a task's
# name in critical-path --by task|rule. plot's gnuplot
# script holds it as one string with its quotes escaped.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
name=$(printf 'zz\033[2Jq\tt\nn"'"'"'\377\302\233e')
esc='zz\e[2Jq\tt\nn"'"'"'\xff\u009be'
mkdir bin
cp /bin/true "bin/$name"
record -o h.tz -- "bin/$name" "$(printf 'arg\033]0;pwned\007')" || fail "record"

out() { # out FILE CMD...: the command's stdout into FILE, stderr after it
	local f=$1
	shift
	timeout 120 "$A" "$@" >"$f" 2>>"$f.err" || fail "$* failed: $(cat "$f.err")"
}
out summary.txt summary h.tz
out summary.json summary --json h.tz
out tree.txt tree h.tz
out treefull.txt tree --full-args h.tz
out top.txt top -n 0 h.tz
out topcmd.txt top -n 0 --by command h.tz
out topexe.txt top -n 0 --by exe h.tz
out top.json top --json h.tz
out crit.txt critical-path h.tz
out crit.json critical-path --json h.tz
out idle.txt idle --all h.tz
out info.txt info h.tz
out cat.txt cat h.tz
out verify.txt verify h.tz
out rightsize.txt rightsize h.tz
out diff.txt diff h.tz h.tz
out diff.json diff --json h.tz h.tz
out exp.csv export --format csv h.tz
out exp.tsv export --format tsv h.tz
out exp.jsonl export --format jsonl h.tz
out exp.chrome export --format chrome h.tz
out recover.txt recover h.tz r.tz
# tasks named by the name (--task: one per outermost process matching)
out rstask.txt rightsize --task 'zz.*' h.tz
out toptask.txt top -n 0 --by task --task 'zz.*' h.tz
out crittask.txt critical-path --by task --task 'zz.*' h.tz
out critrule.txt critical-path --by rule --task 'zz.*' h.tz
out gantt.txt plot --script gantt.gp -o g.png h.tz
out cpu.txt plot --script cpu.gp -k cpu -o c.png h.tz

python3 - "$esc" <<'PY' || fail "raw control bytes or unescaped name (see above)"
import glob, re, sys
esc = sys.argv[1].encode()
bad = []
for fn in sorted(glob.glob('*.txt') + glob.glob('*.err') + glob.glob('*.json') + glob.glob('*.csv')
                 + glob.glob('*.tsv') + glob.glob('*.jsonl') + glob.glob('*.chrome') + glob.glob('*.gp')):
    b = open(fn, 'rb').read()
    ok = b'\n\t' if fn.endswith('.tsv') else b'\n'
    for i, c in enumerate(b):
        if (c < 0x20 and bytes([c]) not in ok) or c == 0x7f:
            bad.append('%s: byte 0x%02x at %d: %r' % (fn, c, i, b[max(0, i - 20):i + 20]))
            break
    m = re.search(rb'\xc2[\x80-\x9f]', b)
    if m:
        bad.append('%s: C1 control at %d' % (fn, m.start()))
# the name, escaped, in the text tables (tool = the exe's name)
for fn in ('summary.txt', 'tree.txt', 'treefull.txt', 'top.txt', 'topcmd.txt', 'crit.txt',
           'diff.txt', 'exp.tsv'):
    if esc not in open(fn, 'rb').read():
        bad.append('%s: no %r' % (fn, esc))
# a task is named by its command: the name and its argument (a key over 60
# characters keeps its end in a table)
arg = b'arg\\e]0;pwned\\a'
if b'...' not in open('toptask.txt', 'rb').read() or arg + b' ' not in open('toptask.txt', 'rb').read():
    bad.append('toptask.txt: no %r' % arg)
# the task path names the task (its whole key) escaped
for fn in ('crittask.txt', 'critrule.txt'):
    if esc + b' ' + arg not in open(fn, 'rb').read():
        bad.append('%s: no %r' % (fn, esc + b' ' + arg))
# rightsize: the table and the Nextflow block (a Groovy '...' string of
# the safe form); the Snakemake block takes identifiers only: left out
rs = open('rstask.txt', 'rb').read()
groovy = esc.replace(b'\\', b'\\\\').replace(b"'", b"\\'")
garg = arg.replace(b'\\', b'\\\\')
for what, want in (('table', esc + b' ' + arg + b' '),
                   ('withName', b"withName: '" + groovy + b' ' + garg + b"' {"),
                   ('snakemake', b'# Snakemake: no name above is a rule name')):
    if want not in rs:
        bad.append('rightsize %s: no %r in %r' % (what, want, rs))
# top: the row is whole (one line, the name then its columns)
rows = [l for l in open('top.txt', 'rb').read().split(b'\n') if esc in l]
if len(rows) != 1 or not re.match(re.escape(esc) + rb' +1 ', rows[0]):
    bad.append('top: rows with the name %r' % rows)
# csv: the same text, quoted per RFC 4180 (it holds '"')
csv = open('exp.csv', 'rb').read()
if b'"' + esc.replace(b'"', b'""') + b'"' not in csv:
    bad.append('exp.csv: name not quoted: %r' % csv[:400])
# gnuplot: one double-quoted string, its backslashes and '"' escaped
gp = esc.replace(b'\\', b'\\\\').replace(b'"', b'\\"')
for fn in ('gantt.gp', 'cpu.gp'):
    if b'"' + gp + b'"' not in open(fn, 'rb').read() and b'"' + gp not in open(fn, 'rb').read():
        bad.append('%s: no %r' % (fn, gp))
# cat: argv as C-quoted strings
if b'"arg\\e]0;pwned\\a"' not in open('cat.txt', 'rb').read():
    bad.append('cat: argv not escaped')
# JSON keeps the exact name (json.h's own escaping)
import json
tools = [g['tool'] for g in json.load(open('top.json'))]
want = open('/dev/null').read() or None
if not any(t.encode('utf-8', 'surrogateescape') == b'zz\x1b[2Jq\tt\nn"\'\xff\xc2\x9be' for t in tools):
    bad.append('top --json: tools %r' % tools)
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# a message naming trace-derived or typed text escapes it too
rc=0
"$A" tree --match "$(printf 'x\033[2J(')" h.tz 2>m.err >/dev/null || rc=$?
[ "$rc" = 2 ] || fail "tree --match with a bad regex: exit $rc"
grep -q 'x\\e\[2J(' m.err || fail "message not escaped: $(od -c m.err | head)"
echo ok
