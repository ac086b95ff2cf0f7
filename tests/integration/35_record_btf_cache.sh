#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The BTF cache (record/btfcache.h, docs/tracer-record.md "FILES"): built
# once the recording runs when there is none, used by the next recording,
# not trusted when stale (another boot), corrupt, a symbolic link or in a
# directory others may write to (then rebuilt); the recording is the same,
# exactly, with the cache, without it and with a cache not trusted.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"

C=$T/cache
mkdir -m 700 "$C"
export TRACER_RECORD_BTF_CACHE=$C

# record the workload into $1.tz with -v; its stderr in $1.err
rec() {
	local name=$1
	shift
	record -v -o "$name.tz" -- sh -c 'cd /tmp && /bin/true one two &&
		dd if=/dev/zero of="$0/dd.out" bs=4096 count=3 status=none; exit 3' "$T" || true
	cp "$T/rec.err" "$name.err"
	grep -q "BTF cache: $*" "$name.err" || fail "$name: no 'BTF cache: $*' in its stderr"
	export_jsonl "$name.tz" "$name.jsonl"
	pycheck "$name.jsonl" "
sh = one([p for p in procs if p['argv'][:2] == ['sh', '-c']], 'sh')
check(sh['exit_code'] == 3, 'sh exit %r' % sh['exit_code'])
t = one(by_exe('/usr/bin/true'), 'true')
check(t['argv'] == ['/bin/true', 'one', 'two'], 'true argv %r' % t['argv'])
check(t['execs'][0]['cwd'] == '/tmp', 'true cwd %r' % t['execs'][0]['cwd'])
d = one(by_exe('/usr/bin/dd'), 'dd')
check(d['wchar'] == 12288 and d['syscw'] == 3, 'dd wrote %r in %r' % (d['wchar'], d['syscw']))
check(d['parent_id'] == sh['id'] and t['parent_id'] == sh['id'], 'parents')
check(len(procs) == 3, '%d processes' % len(procs))
"
}

# what a recording says of its processes, without times, pids and costs
shape() {
	python3 - "$1" <<'PY'
import json, sys
keep = ('exe', 'argv', 'comm', 'tool', 'exit_code', 'signal', 'wchar', 'syscw', 'threads',
        'io_exact', 'uid', 'euid', 'no_fork', 'orphan', 'exit_lost', 'pre_existing')
for l in open(sys.argv[1]):
    p = json.loads(l)
    print({k: p[k] for k in keep}, [(e['cwd'], e['filename'], e['cgroup']['path'],
                                      e['memcg']['path'] if e['memcg'] else None)
                                     for e in p['execs']])
PY
}

# --- no cache: the full path, and the cache built for the next recording
TRACER_RECORD_BTF_CACHE=off rec off off
[ ! -e "$C/vmlinux.btf" ] || fail "a cache written with the cache off"
rec first none
grep -q "BTF cache: built: [0-9]* types" first.err || fail "no cache built"
[ "$(stat -c '%a %u %F' "$C/vmlinux.btf")" = "600 0 regular file" ] ||
	fail "cache file: $(stat -c '%a %u %F' "$C/vmlinux.btf")"
ls "$C" | grep -v '^vmlinux.btf$' && fail "a temporary file left in the cache directory"

# --- used, and the same recording
rec used used
grep -q "BTF cache: built" used.err && fail "a usable cache built again"
# every CO-RE relocation (offsets, sizes, enum values, kernel type ids)
# comes out as with the kernel's BTF: the same programs load
relocs() {
	timeout -k 5 "$REC_TIMEOUT" env TRACER_RECORD_BTF_CACHE="$1" "$R" -vv -f -o relo.tz -- /bin/true \
		2>&1 | grep -E 'relo #[0-9]+: (patched insn|failed|poison)|BTF cache:' || true
}
relocs off >relo.off
relocs "$C" >relo.used
grep -q "BTF cache: used" relo.used || fail "-vv run: cache not used"
[ "$(grep -c 'patched insn' relo.off)" -gt 100 ] || fail "no relocations seen in libbpf's log"
diff <(grep -v 'BTF cache' relo.off) <(grep -v 'BTF cache' relo.used) ||
	fail "CO-RE relocations differ with the cache"
shape off.jsonl >off.shape
for r in first used; do
	shape $r.jsonl >$r.shape
	diff off.shape $r.shape || fail "$r: the recording differs from the full path's"
done

# --- stale: made in another boot
TRACER_RECORD_TEST_BOOT_ID=01234567-89ab-cdef-0123-456789abcdef rec otherboot \
	"stale: another boot or kernel"
grep -q "BTF cache: built" otherboot.err || fail "not rebuilt for the other boot"
rec stale "stale: another boot or kernel"
grep -q "BTF cache: built" stale.err || fail "stale cache not rebuilt"
rec rebuilt used

# --- corrupt: cut short, or garbage
head -c 2000 "$C/vmlinux.btf" >cut && cat cut >"$C/vmlinux.btf"
rec cut malformed
head -c 100000 /dev/urandom >"$C/vmlinux.btf"
rec garbage malformed
grep -q "BTF cache: built" garbage.err || fail "corrupt cache not rebuilt"
rec again used

# --- not trusted: a symbolic link, a directory others may write to
mv "$C/vmlinux.btf" "$T/real.btf"
ln -s "$T/real.btf" "$C/vmlinux.btf"
rec symlink unreadable
[ -L "$C/vmlinux.btf" ] && fail "the symbolic link was left in place of the rebuilt cache"
chmod 777 "$C"
rec open_dir "directory not root's alone"
grep -q "BTF cache: built" open_dir.err && fail "built into a directory others may write to"
chmod 700 "$C"

for r in otherboot stale rebuilt cut garbage again symlink open_dir; do
	shape $r.jsonl >$r.shape
	diff off.shape $r.shape || fail "$r: the recording differs from the full path's"
done
echo "ok: BTF cache built, used, and not trusted when stale, corrupt or unsafe"
