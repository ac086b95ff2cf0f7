# SPDX-License-Identifier: BSD-2-Clause
# synthlib.sh - shared opening of the tests on synthetic traces (source it;
# bash). Skips (exit 77) without tests/test_model or python3; then
#
#   A, GEN      tracer-analyze and the trace writer (test_model --write)
#   tmp         a private directory holding every synthetic trace, removed at exit
#   bad MSG     print "FAIL MSG" and count it in fails (exit $((fails > 0)) at the end)
set -u
A=${TRACER_ANALYZE:?}
O=${O:-build}
GEN="$O/tests/test_model"
[ -x "$GEN" ] || { echo "skip: $GEN not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tmp=$(mktemp -d /tmp/tza-synth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$GEN" --write "$tmp" >/dev/null || exit 1
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
