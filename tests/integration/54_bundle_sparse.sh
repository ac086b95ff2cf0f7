#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Sparse tar members (issue 19): holes are not stored, so caps counted on
# stored bytes never saw them, and the reader filled them with zeros in
# memory: a 30 KB .tar.gz made every subcommand allocate 1 GiB and exit 0.
# tracer writes no sparse member (bundle.c's writer sets sizes and data
# only), so the reader refuses any: GNU sparse, PAX 0.0, 0.1 and 1.0, a
# sparse member that is not the trace, and 500 sparse members. Archives are
# made here with GNU tar --sparse. Each subcommand must exit 1 with one line
# naming the member, within a time bound (timeout), under an address-space
# limit (not under ASan) and with a small peak RSS.
set -euo pipefail
A=${TRACER_ANALYZE:?}
S=${TESTS_DIR:?}/data/good/small.tz
t=$(mktemp -d /tmp/tracer-t54.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v tar >/dev/null && tar --version | grep -q 'GNU tar' || { echo "no GNU tar"; exit 77; }
asan=0
case ${O:-build} in *asan*) asan=1 ;; esac

# r/trace.tz (a good trace) and r/zz.tz: 1 GiB, one byte of data at its end
mk_tree() { # dir
	mkdir -p "$1/r"
	cp "$S" "$1/r/trace.tz"
	truncate -s 1G "$1/r/$2"
	printf x | dd of="$1/r/$2" bs=1 seek=$(((1 << 30) - 1)) conv=notrunc status=none
}
mkdir "$t/b"
mk_tree "$t/one" zz.tz
mk_tree "$t/other" data.bin
(cd "$t/one" && tar --sparse --format=gnu -czf "$t/b/gnu.tar.gz" r &&
	for v in 0.0 0.1 1.0; do
		tar --sparse --format=posix --sparse-version=$v -czf "$t/b/pax$v.tar.gz" r
	done)
(cd "$t/other" && tar --sparse --format=posix -czf "$t/b/not-trace.tar.gz" r)
# 500 members, each a 64 MiB hole and one byte, then the trace
mkdir -p "$t/many/r"
python3 - "$t/many/r" <<'PY'
import os, sys
for i in range(1, 501):
    with open(os.path.join(sys.argv[1], 'm%d.bin' % i), 'wb') as f:
        f.truncate(64 << 20)
        f.seek(64 << 20)
        f.write(b'y')
PY
cp "$S" "$t/many/r/trace.tz"
(cd "$t/many" && tar --sparse --format=gnu -czf "$t/b/many.tar.gz" r)
for f in "$t"/b/*; do
	[ "$(stat -c %s "$f")" -lt 200000 ] || fail "$f: $(stat -c %s "$f") bytes, want a small archive"
done
rm -rf "$t/one" "$t/other" "$t/many"

# every subcommand on every archive, in one python (its start-up is slow on
# a loaded box): exit 1, one line naming the sparse member, peak RSS small,
# no output file; a hang is a failure (timeout)
python3 - "$A" "$t" "$asan" <<'PY'
import os, re, resource, subprocess, sys
A, t, asan = sys.argv[1], sys.argv[2], sys.argv[3] == '1'
def limit():
    if not asan: # 1 GiB of address space: the old reader needed more
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
def run(args):
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=limit)
    try:
        err = p.communicate(timeout=60)[1].decode(errors='replace')
    except subprocess.TimeoutExpired:
        p.kill(); p.wait(); return 'timeout', '', 0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the peak of all so far
    return p.returncode, err, rss
fails = 0
cases = [('gnu.tar.gz', 'zz.tz'), ('pax0.0.tar.gz', 'zz.tz'), ('pax0.1.tar.gz', 'zz.tz'),
         ('pax1.0.tar.gz', 'zz.tz'), ('not-trace.tar.gz', 'data.bin'),
         ('many.tar.gz', r'm[0-9]+\.bin')]
rec = os.path.join(t, 'rec.tz')
for b, m in cases:
    path = os.path.join(t, 'b', b)
    for cmd in (['info'], ['verify'], ['summary'], ['cat'], ['export', '--format', 'jsonl'],
                ['recover', path, rec]):
        args = [A] + cmd + ([] if cmd[0] == 'recover' else [path])
        rc, err, rss = run(args)
        want = r"^tracer-analyze: '%s': bundle member 'r/%s': sparse file \(bundles hold plain files only\)\n$" % (re.escape(path), m)
        why = None
        if rc != 1:
            why = 'exit %s, want 1' % rc
        elif not re.match(want, err):
            why = 'message'
        elif rss >= (131072 if asan else 65536): # ASan's shadow memory counts too
            why = 'peak RSS %d KiB' % rss
        elif os.path.exists(rec):
            why = 'recover wrote a file'
        if why:
            print('FAIL: %s: %s: %s: %s' % (b, cmd[0], why, err.strip()[:300]), file=sys.stderr)
            fails += 1
sys.exit(1 if fails else 0)
PY

# the same tree without --sparse is an ordinary bundle member: read (the
# refusal is of sparse members, not of bundles made by GNU tar)
mkdir -p "$t/plain/r"
cp "$S" "$t/plain/r/trace.tz"
(cd "$t/plain" && tar --format=posix -czf "$t/b/plain.tar.gz" r)
"$A" info "$t/b/plain.tar.gz" >/dev/null || fail "plain.tar.gz: exit $?"
echo ok
