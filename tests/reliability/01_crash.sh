#!/usr/bin/env bash
# Crash (issue 8.1): the recorder is killed with SIGKILL at 20 random moments
# of an exec storm. Every file opens with info and cat; recover writes a
# clean file holding exactly the events cat read from the killed one; the
# execs kept are an unbroken prefix of the storm (nothing lost inside sealed
# chunks), and the loss is at most the open chunk:
#  - odd runs send SIGUSR1 (seal now) first: every exec done before it is kept;
#  - even runs: every exec done more than LAG s before the kill is kept
#    (a chunk is sealed at 1 s of age, checked every 64 events and every
#    second, and drained within 100 ms; LAG adds scheduling slack).
# RUNS and SEED can be set in the environment (make test-long runs 200).
. "$(dirname "$0")/rlib.sh"
need_root
cd "$T"
RUNS=${RUNS:-20}
SEED=${SEED:-$(date +%s)}
LAG=2.0
RANDOM=$SEED
echo "seed $SEED"
count_before() { # log realtime_ns -> execs done at or before that time
	awk -v t="$2" '$1 <= t { c = $2 } END { print c + 0 }' "$1"
}
for k in $(seq "$RUNS"); do
	rm -f c.tz r.tz log
	setsid "$R" -o c.tz -- "$S" -n 0 -l "$T/log" 2>rec.err &
	rp=$!
	bg_track $rp
	wait_for log 60
	# a moment in 0.05 .. 3 s (usr1 runs) or 4 s (age runs) after the storm started
	delay=$(printf '%d.%03d' $((RANDOM % (3 + k % 2 * -1 + 1))) $((50 + RANDOM % 950)))
	sleep "$delay"
	mode=age
	if [ $((k % 2)) = 1 ]; then
		mode=usr1
		t_usr1=$(date +%s%N)
		kill -USR1 $rp
		sleep 0.5
	fi
	t_kill=$(date +%s%N)
	kill -9 $rp
	wait $rp 2>/dev/null || true
	kill -9 -- -$rp 2>/dev/null || true # the storm (same session)
	sleep 0.1
	done_total=$(tail -n 1 log | awk '{ print $2 }')
	if [ $mode = usr1 ]; then
		must=$(count_before log "$t_usr1")
	else
		must=$(count_before log $((t_kill - ${LAG/./} * 100000000)))
	fi

	"$A" info c.tz >info.txt 2>info.err || fail "run $k: info exit $?: $(cat info.err)"
	# no footer: cat reads every sealed block and exits 1 (issue 19);
	# --partial accepts the file as it is
	"$A" --partial cat c.tz >cat.txt 2>cat.err || fail "run $k: cat exit $?: $(cat cat.err)"
	kept=$(exec_ids c.tz 0 | prefix_len) || { cp c.tz /tmp/rel-crash-fail.tz; fail "run $k: execs kept are not a prefix (file: /tmp/rel-crash-fail.tz)"; }
	[ "$kept" -ge "$must" ] || fail "run $k ($mode, ${delay}s): $kept execs kept, $must were sealed before the kill"
	[ "$kept" -le "$done_total" ] || fail "run $k: $kept execs kept, only $done_total ran"
	if [ -s cat.txt ]; then
		"$A" recover c.tz r.tz >/dev/null 2>rec2.err || fail "run $k: recover exit $?: $(cat rec2.err)"
		"$A" verify r.tz >/dev/null 2>verify.err || fail "run $k: verify of recovered: $(cat verify.err)"
		"$A" info r.tz >rinfo.txt || fail "run $k: info of recovered"
		grep -q 'footer index present' rinfo.txt || fail "run $k: recovered has no footer"
		"$A" cat r.tz >rcat.txt || fail "run $k: cat of recovered"
		cmp -s rcat.txt cat.txt || fail "run $k: recovered events differ from the killed file's"
	fi
	printf 'run %2d  %-4s kill at %ss: %5d execs ran, %5d kept, %5d required, lost %d\n' \
		"$k" $mode "$delay" "$done_total" "$kept" "$must" $((done_total - kept))
done
echo ok
