#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile bundles read by every subcommand: path traversal, absolute paths,
# symlinks, hard links, devices, a member claiming a huge size, a member
# over the cap, gzip and zip bombs, no trace inside, garbage. Each gives one
# clear line and exit 1, nothing is written anywhere, and memory stays
# bounded (peak RSS measured).
. "$(dirname "$0")/lib.sh"
S=${TESTS_DIR:?}/../samples/pipeline.tz
t=$T
mkdir "$t/work" "$t/b"
cd "$t/work"
victim=/tmp/tracer-t53-victim-$$

python3 - "$S" "$t/b" "$victim" <<'PY'
import io, os, sys, tarfile, zipfile, gzip
trace = open(sys.argv[1], 'rb').read()
out, victim = sys.argv[2], sys.argv[3]

def tgz(name, members):
    with tarfile.open(os.path.join(out, name), 'w:gz') as tf:
        for ti, data in members:
            tf.addfile(ti, io.BytesIO(data) if data is not None else None)

def reg(name, data):
    ti = tarfile.TarInfo(name); ti.size = len(data); ti.mode = 0o644
    return ti, data

def special(name, kind, target=''):
    ti = tarfile.TarInfo(name); ti.type = kind; ti.linkname = target
    if kind == tarfile.CHRTYPE:
        ti.devmajor, ti.devminor = 1, 3
    return ti, None

tgz('traversal.tar.gz', [reg('r/../../' + os.path.basename(victim), b'x'), reg('r/trace.tz', trace)])
tgz('absolute.tar.gz', [reg(victim, b'x'), reg('r/trace.tz', trace)])
tgz('symlink.tar.gz', [special('r/link', tarfile.SYMTYPE, '/etc/passwd'), reg('r/trace.tz', trace)])
tgz('symlink-trace.tar.gz', [special('r/trace.tz', tarfile.SYMTYPE, '/etc/passwd')])
tgz('hardlink.tar.gz', [reg('r/trace.tz', trace), special('r/t2.tz', tarfile.LNKTYPE, 'r/trace.tz')])
tgz('device.tar.gz', [special('r/null', tarfile.CHRTYPE), reg('r/trace.tz', trace)])
tgz('notrace.tar.gz', [reg('r/README.txt', b'hello\n'), reg('r/summary.txt', b'nothing\n')])
tgz('empty.tar.gz', [])

# a header claiming 10 GiB with a few bytes of data behind it
ti = tarfile.TarInfo('r/trace.tz'); ti.size = 10 << 30
hdr = ti.tobuf(format=tarfile.GNU_FORMAT)
with gzip.open(os.path.join(out, 'huge-claim.tar.gz'), 'wb') as g:
    g.write(hdr + trace[:4096])

# gzip bomb: 300 MiB of zeros as a member (about 300 KiB compressed)
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
ti = tarfile.TarInfo('r/zeros.tz'); ti.size = 300 << 20
with tarfile.open(os.path.join(out, 'gzip-bomb.tar.gz'), 'w:gz') as tf:
    tf.addfile(ti, Zeros(300 << 20))

# zip bomb: one member of 300 MiB of zeros, deflated, then a trace
with zipfile.ZipFile(os.path.join(out, 'zip-bomb.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
    with z.open('r/zeros.bin', 'w', force_zip64=True) as f:
        chunk = bytes(1 << 20)
        for _ in range(300):
            f.write(chunk)
    z.writestr('r/trace.tz', trace)

# zip members with traversal / absolute names
with zipfile.ZipFile(os.path.join(out, 'traversal.zip'), 'w') as z:
    z.writestr('r/trace.tz', trace)
    z.writestr(zipfile.ZipInfo('../../' + os.path.basename(victim)), b'x')
with zipfile.ZipFile(os.path.join(out, 'absolute.zip'), 'w') as z:
    z.writestr(zipfile.ZipInfo(victim), b'x')
    z.writestr('r/trace.tz', trace)
# a zip symlink member (unix mode 0120777 in the external attributes)
with zipfile.ZipFile(os.path.join(out, 'symlink.zip'), 'w') as z:
    zi = zipfile.ZipInfo('r/trace.tz'); zi.create_system = 3
    zi.external_attr = (0o120777 << 16)
    z.writestr(zi, '/etc/passwd')

# garbage that starts like gzip, and a truncated good bundle
open(os.path.join(out, 'garbage.tar.gz'), 'wb').write(b'\x1f\x8b' + os.urandom(5000))
good = io.BytesIO()
with tarfile.open(fileobj=good, mode='w:gz') as tf:
    ti, data = reg('r/trace.tz', trace); tf.addfile(ti, io.BytesIO(data))
open(os.path.join(out, 'truncated.tar.gz'), 'wb').write(good.getvalue()[:len(good.getvalue()) // 2])
PY

# peak RSS (KiB) of a command, its exit status and stderr in files
run() { # out_prefix cmd...
	local p=$1; shift
	python3 - "$p" "$@" <<'PY'
import resource, subprocess, sys
p = sys.argv[1]
with open(p + '.err', 'wb') as e:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=e, timeout=120).returncode
open(p + '.rc', 'w').write(str(rc))
open(p + '.rss', 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
}

check() { # bundle expected-message-regex
	local b=$t/b/$1 re=$2
	for cmd in summary tree "plot --script - -o x.png" "export --format jsonl"; do
		# shellcheck disable=SC2086
		run "$t/r" "$A" $cmd "$b"
		[ "$(cat "$t/r.rc")" = 1 ] || fail "$1: '$cmd' exit $(cat "$t/r.rc"), want 1: $(cat "$t/r.err")"
		[ "$(wc -l < "$t/r.err")" = 1 ] || fail "$1: '$cmd': not one line: $(cat "$t/r.err")"
		grep -Eq "^tracer-analyze: '[^']*$1': .*$re" "$t/r.err" ||
			fail "$1: '$cmd': message '$(cat "$t/r.err")' does not match '$re'"
		[ "$(cat "$t/r.rss")" -lt 262144 ] || fail "$1: '$cmd': peak RSS $(cat "$t/r.rss") KiB"
	done
}

check traversal.tar.gz "path leaves the bundle"
check traversal.zip "path leaves the bundle"
check absolute.tar.gz "absolute path"
check absolute.zip "absolute path"
check symlink.tar.gz "symbolic link"
check symlink-trace.tar.gz "symbolic link"
check symlink.zip "symbolic link"
check hardlink.tar.gz "hard link"
check device.tar.gz "device"
check notrace.tar.gz "no trace"
check empty.tar.gz "no trace"
check huge-claim.tar.gz "claims 10737418240 bytes"
check gzip-bomb.tar.gz "bomb"
check zip-bomb.zip "bomb"
check garbage.tar.gz "(damaged|not a readable bundle)"
check truncated.tar.gz "(damaged|truncated)"
# and says where: at or before the bytes it had read, of the file's size
sz=$(stat -c %s "$t/b/truncated.tar.gz")
run "$t/r" "$A" summary "$t/b/truncated.tar.gz"
grep -Eq "(damaged|not a readable bundle)[^:]* \(at or before byte [0-9]+ of its $sz\): " "$t/r.err" ||
	fail "truncated.tar.gz: no offset of its $sz bytes: $(cat "$t/r.err")"

# a member over a lowered cap is refused by its size, before any bomb check
TRACER_BUNDLE_MAX_MB=16 run "$t/r" "$A" summary "$t/b/gzip-bomb.tar.gz"
grep -q "over the 16 MiB cap" "$t/r.err" || fail "cap: $(cat "$t/r.err")"

# nothing written: no victim file, the working directory still empty
[ ! -e "$victim" ] || { rm -f "$victim"; fail "a member was written to $victim"; }
[ -z "$(ls -A "$t/work")" ] || fail "files appeared in the working directory: $(ls -A "$t/work")"
[ ! -e "$t/$(basename "$victim")" ] || fail "traversal wrote outside"
echo ok
