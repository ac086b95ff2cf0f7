#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Permissions (issue 8.8): tracer-record without the capabilities it needs
# names exactly the missing ones (uid 65534 with no capabilities; root with
# CAP_PERFMON or CAP_BPF dropped, when capsh is there), on a kernel without
# BTF says so (the test-only TRACER_RECORD_TEST_BTF points the check at a
# missing file), each time one line, exit 1 and no file left; tracer-analyze
# needs no privilege: as uid 65534 it reads a world-readable trace exactly as
# root does.
. "$(dirname "$0")/rlib.sh"
need_root
command -v setpriv >/dev/null || { echo "skip: setpriv missing"; exit 77; }
cd "$T"
chmod 0755 "$T"
mkdir -m 1777 pub
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

expect_fail() { # want-message cmd...
	local want=$1 rc=0
	shift
	"$@" 2>err.txt >/dev/null || rc=$?
	[ $rc = 1 ] || fail "$*: exit $rc, want 1 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" = 1 ] || fail "$*: not one line: $(cat err.txt)"
	[ "$(cat err.txt)" = "$want" ] || fail "$*: message '$(cat err.txt)', want '$want'"
	[ ! -e pub/t.tz ] || fail "$*: left a file behind"
}

expect_fail "tracer-record: missing capabilities CAP_BPF and CAP_PERFMON (uid 65534): run as root, or grant them with 'setcap cap_bpf,cap_perfmon+ep tracer-record'" \
	nobody "$R" -o pub/t.tz -- true
if command -v capsh >/dev/null; then
	expect_fail "tracer-record: missing capability CAP_PERFMON (uid 0): run as root, or grant them with 'setcap cap_bpf,cap_perfmon+ep tracer-record'" \
		capsh --drop=cap_perfmon,cap_sys_admin -- -c "exec $R -o pub/t.tz -- true"
	expect_fail "tracer-record: missing capability CAP_BPF (uid 0): run as root, or grant them with 'setcap cap_bpf,cap_perfmon+ep tracer-record'" \
		capsh --drop=cap_bpf,cap_sys_admin -- -c "exec $R -o pub/t.tz -- true"
else
	echo "capsh missing: the single-capability cases are not run"
fi
expect_fail "tracer-record: this kernel has no BTF ('/no/such/btf'): a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed" \
	env TRACER_RECORD_TEST_BTF=/no/such/btf "$R" -o pub/t.tz -- true

# the analyzer as nobody, on a trace root recorded
record -o pub/r.tz -- sh -c 'true; /bin/echo hi >/dev/null' || fail "record"
chmod 0644 pub/r.tz
for c in info verify cat summary tree top export; do
	args=(pub/r.tz)
	[ $c = export ] && args=(--format jsonl pub/r.tz)
	"$A" $c "${args[@]}" >root.out 2>&1 || fail "$c as root"
	nobody "$A" $c "${args[@]}" >nobody.out 2>&1 || fail "$c as uid 65534: $(cat nobody.out)"
	cmp -s root.out nobody.out || fail "$c as uid 65534 differs from root: $(diff root.out nobody.out | head)"
done
nobody "$A" recover pub/r.tz pub/rec.tz >/dev/null 2>&1 || fail "recover as uid 65534"
[ "$(stat -c '%u %a' pub/rec.tz)" = "65534 600" ] || fail "recover output: $(stat -c '%u %a' pub/rec.tz)"
echo ok
