# SPDX-License-Identifier: BSD-2-Clause
# checklib.sh - the shared opening of the analyzer-side integration tests
# that go on after a failure and count them, working in a scratch directory
# (source it; bash). lib.sh is the recorder tests' (set -e, root, helpers);
# synthlib.sh the opening of the tests on test_model's synthetic traces.
#
#   A                 tracer-analyze (TRACER_ANALYZE)
#   tmp               a private temp dir, removed at exit; the working directory
#   errors, fail MSG  failures so far; fail prints MSG and counts one
#   expect RC CMD...  run CMD bounded (CHECK_TIMEOUT s, default 60), stdout in
#                     ./out, stderr in ./err; a failure unless it exits RC
#   one_line RE       a failure unless ./err is exactly one line matching RE
set -u
A=${TRACER_ANALYZE:?}
tmp=$(mktemp -d "/tmp/tz-$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
errors=0
fail() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }
expect() {
	local want=$1; shift
	timeout "${CHECK_TIMEOUT:-60}" "$@" >out 2>err
	local rc=$?
	[ $rc -eq "$want" ] || fail "exit $rc, want $want: $* ($(head -c 300 err))"
}
one_line() {
	[ "$(wc -l <err)" -eq 1 ] && grep -q -- "$1" err ||
		fail "stderr is not one line matching '$1': $(cat err)"
}
