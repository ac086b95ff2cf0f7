# SPDX-License-Identifier: BSD-2-Clause
# rlib.sh - helpers of the reliability tests (source it; bash). Builds on
# tests/integration/lib.sh (need_root, T, bg_track, record, fail, pycheck).
#
#   S                      the storm workload (tests/helpers/relstorm.c)
#   exec_ids TZ JOB        indices I of the execs "true J-I" in TZ, sorted
#   prefix_len             stdin: sorted indices; prints K when they are
#                          exactly 0..K-1 (no gap, no duplicate), else fails
#   meta INFO KEY          value of KEY in a saved `tracer-analyze info` output
#   count_type CAT TYPE    events of TYPE in a saved `tracer-analyze cat` output
#   wait_for FILE SEC      wait until FILE exists (fails after SEC seconds)
#   on_exit CMD            run CMD at exit, before lib.sh's cleanup
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
S=$H/relstorm
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

_rel_exit=()
on_exit() { _rel_exit+=("$*"); }
_rel_cleanup() {
	local c
	for c in "${_rel_exit[@]+"${_rel_exit[@]}"}"; do
		eval "$c" || true
	done
	_cleanup
}
trap _rel_cleanup EXIT

exec_ids() { # cat exits 1 on a file cut by a crash (no footer): --partial
	"$A" --partial cat --type exec "$1" | { grep -o "argv=\[\"true\", \"$2-[0-9]*\"" || true; } |
		sed 's/.*-\([0-9]*\)"$/\1/' | sort -n
}

prefix_len() {
	awk '$1 != NR - 1 { print "indices not 0..K-1: at " NR - 1 " found " $1 >"/dev/stderr"; bad = 1; exit 1 }
	     END { if (!bad) print NR }'
}

meta() {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

count_type() {
	grep -c "^[0-9.]* $2 " "$1" || true
}

wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "timed out waiting for $1"
}
