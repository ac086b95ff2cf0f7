#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# compare_analyze.sh OLD NEW [CMD...] - run two tracer-analyze binaries over
# samples/pipeline.tz and every tests/data/**/*.tz with each subcommand's
# common option combinations (and error paths: bad values, unknown option,
# missing file) and print every case whose exit code, stdout, stderr or
# written files differ. For a refactoring that must keep outputs byte for
# byte. Exit 0 when all agree, 1 otherwise. CMD... limits the subcommands.
set -u
old=$1 new=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
only=" $* "
files=("$root/samples/pipeline.tz")
# CMP_ALL=1: every tests/data/**/*.tz; else the good, bad and golden ones
if [ "${CMP_ALL:-0}" = 1 ]; then
	while IFS= read -r f; do files+=("$f"); done < <(find "$root/tests/data" -name '*.tz' | sort)
else
	while IFS= read -r f; do files+=("$f"); done < <(find "$root/tests/data/good" \
		"$root/tests/data/bad" "$root/tests/data/golden" -name '*.tz' | sort)
fi

# variants per subcommand; F is the trace, O an output path in the run's
# own directory; a line starting "! " (an error path) runs on the first
# file only
cases() {
	cat <<'EOF'
info F
info --json F
info -s F
verify F
verify -v F
cat F
cat -s F
cat -a F
cat --type exec F
cat --from 1 --to 2 F
summary F
summary --json F
summary -n 3 F
summary --by exe F
summary --by task F
! summary -n x F
! summary --by nope F
! summary --json --follow F
tree F
tree -a F
tree -d 2 F
tree --by command F
tree -c 0 F
tree -m 1 F
tree -e sh F
tree -p 1 F
! tree -p 0 F
! tree -d x F
top F
top --json F
top --sort wall -n 5 F
! top --sort nope F
top --by command F
top --task 'sh|make' F
! top -n x F
! top -i 0 F
critical-path F
critical-path --json F
critical-path --by exe F
critical-path --by task F
export --format jsonl F
export --format csv F
export --format tsv F
export --format chrome F
export --format jsonl --samples F
export --format csv --tasks F
export --format jsonl --host F
! export --format nope F
! export F
! export --format csv --samples F
export --format jsonl -o O F
slice --from 0 --to 1 F O
slice F O
! slice --from x F O
diff F F
diff --json F F
diff -n 2 F F
! diff F
idle F
idle --json F
idle -a F
idle -t 50 -d 1 F
! idle -t 0 F
idle --basis procs F
! idle --basis nope F
! idle -n x F
rightsize F
rightsize --json F
rightsize --by task F
rightsize --headroom 50 --config none F
! rightsize --config nope F
! rightsize --by x F
plot -o O F
plot -k cpu -o O F
! plot -k nope -o O F
recover F O
! recover F
bundle -o O F
report -o O F
report --by rule -o O F
! report --by nope -o O F
! info --nope F
! summary F F
! top
! tree /nonexistent.tz
help --help
EOF
}

run() { # bin dir args... -> dir/{out,err,rc} and dir/o* files
	local bin=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" && TZ=UTC timeout 60 "$bin" "$@" >out 2>err </dev/null; echo $? >rc)
	# a slice has a fresh uuid and creation time: compare its events
	if [ "$1" = slice ] && [ -f "$dir/out.o" ]; then
		"$old" cat "$dir/out.o" >"$dir/out.o.cat" 2>&1
		rm -f "$dir/out.o"
	fi
}

bad=0 n=0
while IFS= read -r line; do
	set -f
	# shellcheck disable=SC2206
	words=($line)
	set +f
	first_only=0
	[ "${words[0]}" = "!" ] && { first_only=1; words=("${words[@]:1}"); }
	cmd=${words[0]}
	[ "$only" = "  " ] || [[ $only == *" $cmd "* ]] || continue
	for f in "${files[@]}"; do
		[ $first_only = 1 ] && [ "$f" != "${files[0]}" ] && continue
		case $cmd in report | bundle | plot) [ "$f" = "${files[0]}" ] || [[ $f == */good/* ]] || continue ;; esac
		args=()
		for w in "${words[@]}"; do
			case $w in
			F) args+=("$f") ;;
			O) args+=("out.o") ;;
			"'sh|make'") args+=("sh|make") ;;
			*) args+=("$w") ;;
			esac
		done
		rm -rf "$work/a" "$work/b"
		run "$old" "$work/a" "${args[@]}" &
		run "$new" "$work/b" "${args[@]}"
		wait
		n=$((n + 1))
		if ! diff -r "$work/a" "$work/b" >"$work/d" 2>&1; then
			bad=$((bad + 1))
			echo "DIFF: ${args[*]}"
			head -n 12 "$work/d" | sed 's/^/    /'
		fi
	done
done < <(cases)
echo "$n cases, $bad differ"
[ $bad = 0 ]
