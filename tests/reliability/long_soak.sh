#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Soak (issue 8.4; make test-long, not CI): SOAK_MIN minutes (default 30) of
# a steady 500 execs/s (two jobs of 250/s). The recorder's RSS stays flat
# (the last sample within 4 MiB of the one at 20% of the run), the file grows
# linearly with the work done (after the first minute every sample's bytes
# per exec within 25% of the final bytes per exec), nothing is dropped and
# every exec is recorded.
# Prints one table row for docs/RELIABILITY.md.
. "$(dirname "$0")/rlib.sh"
need_root
cd "$T"
MIN=${SOAK_MIN:-30}
RATE=250 # per job
DUR=$((MIN * 60))
N=$((RATE * DUR))
REC_TIMEOUT=$((DUR + 600))
"$R" -o soak.tz -- "$S" -j 2 -n $N -r $RATE -l "$T/log" 2>rec.err &
rp=$!
bg_track $rp
t0=$SECONDS
: >samples.txt
while kill -0 $rp 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$rp/status 2>/dev/null || true)
	size=$(stat -c %s soak.tz 2>/dev/null || echo 0)
	done0=$(tail -n 1 log 2>/dev/null | awk '{ print $2 }' || true)
	[ -n "$rss" ] && [ -n "$done0" ] && echo "$((SECONDS - t0)) $rss $size $((2 * done0))" >>samples.txt
	sleep 10
done
rc=0
wait $rp || rc=$?
[ $rc = 0 ] || fail "recorder exit $rc: $(cat rec.err)"
el=$((SECONDS - t0))
"$A" info soak.tz >info.txt || fail "info"
"$A" cat --type exec soak.tz >cat.txt || fail "cat"
drops=$(meta info.txt drops_total)
execs=$(count_type cat.txt exec)
[ "$drops" = 0 ] || fail "$drops drops"
[ "$execs" = $((1 + 2 * N)) ] || fail "$execs execs recorded, want $((1 + 2 * N))"
size=$(stat -c %s soak.tz)
awk -v dur="$el" -v size="$size" '
	{ t[NR] = $1; r[NR] = $2; s[NR] = $3; n[NR] = $4 }
	END {
		ref = 0
		for (i = 1; i <= NR; i++) if (!ref && t[i] >= dur / 5) ref = i
		if (!ref) ref = 1
		if (r[NR] - r[ref] > 4096) { printf "RSS grew from %d KiB (at %d s) to %d KiB\n", r[ref], t[ref], r[NR]; exit 1 }
		rate = size / dur; per = size / (n[NR] > 0 ? n[NR] : 1)
		for (i = 1; i <= NR; i++) if (t[i] >= 60 && n[i] > 0 && (s[i] < 0.75 * per * n[i] || s[i] > 1.25 * per * n[i])) {
			printf "size %d after %d execs (%d s) is off the line of %.1f bytes/exec\n", s[i], n[i], t[i], per; exit 1 }
		max = 0; for (i = 1; i <= NR; i++) if (r[i] > max) max = r[i]
		printf "| soak %d min, 500 execs/s | 1 | EXECS execs, 0 dropped, 0 lost | RSS %d KiB at %d s, %d KiB at end, max %d KiB | %.1f MB, %.0f bytes/s, %.1f bytes/exec |\n",
			dur / 60, r[ref], t[ref], r[NR], max, size / 1e6, rate, per
	}' samples.txt >row.txt || fail "soak: $(cat row.txt)"
sed "s/EXECS/$execs/" row.txt
cp samples.txt "${SOAK_SAMPLES:-/dev/null}" 2>/dev/null || true
echo ok
