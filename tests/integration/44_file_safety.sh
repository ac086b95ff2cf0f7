#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# File safety (faults 2 and 11): a FIFO never hangs a reader or a writer (one
# line "'f': not a regular file", exit 1); every output file (recover, slice,
# bundle -o, plot -o/--script, export -o, tracer-record -o) is a fresh file
# (mode 0600 for traces, bundles and exports, the umask's for plots: FILES
# WRITTEN in docs/tracer-analyze.md), whatever the old file's mode, made only
# with -f (export: --force) when one exists, and a symlink at the output path
# is replaced, never written through. The recorder part needs root and BTF.
R=${TRACER_RECORD:?} D=${TESTS_DIR:?}/data
S=$D/good/small.tz
CHECK_TIMEOUT=30 # a hang is a failure, not a stuck test
. "$(dirname "$0")/checklib.sh"
run() { expect "$@"; }
mode() { stat -c %a "$1"; }
# old FILE MODE: a regular file with content "old" and mode MODE
old() { rm -f "$1"; echo old >"$1"; chmod "$2" "$1"; }
# check_fresh OUT WHAT [MODE]: OUT is a regular file of MODE (default 600)
# that is not the old one, and target.txt (the symlink target) is untouched
check_fresh() {
	[ -f "$1" ] && [ ! -L "$1" ] || fail "$2: '$1' is not a regular file"
	[ "$(mode "$1")" = "${3:-600}" ] || fail "$2: mode $(mode "$1"), want ${3:-600}"
	printf 'old\n' | cmp -s - "$1" && fail "$2: old content kept"
}
umask 022 # derived outputs (plots) follow it: 644 here
link_to_target() { rm -f "$1" target.txt; echo precious >target.txt; chmod 644 target.txt; ln -s target.txt "$1"; }
check_target() {
	[ "$(cat target.txt)" = precious ] && [ "$(mode target.txt)" = 644 ] ||
		fail "$1: written through the symlink (mode $(mode target.txt))"
}

# --- a FIFO as input: refused at once by every subcommand
mkfifo ff
for c in info verify cat summary tree top critical-path idle plot; do
	run 1 "$A" $c ff
	one_line "^tracer-analyze: 'ff': not a regular file$"
done
run 1 "$A" export --format jsonl ff
one_line "'ff': not a regular file$"
run 1 "$A" recover ff o.tz
one_line "'ff': not a regular file$"
run 1 "$A" slice --from 0 --to 1 ff o.tz
one_line "'ff': not a regular file$"
run 1 "$A" diff ff "$S"
one_line "'ff': not a regular file$"
run 1 "$A" bundle --no-plots ff -o b.tgz
one_line "'ff': not a regular file$"
[ -e o.tz ] && fail "an output was left behind"

# --- recover: -f gives a fresh 0600 file, never through a symlink or into a FIFO
old rec.tz 666
run 1 "$A" recover "$S" rec.tz
one_line "exists (use -f"
[ "$(cat rec.tz)" = old ] || fail "recover without -f changed the file"
run 0 "$A" recover -f "$S" rec.tz
check_fresh rec.tz "recover -f"
link_to_target rec.tz
run 0 "$A" recover -f "$S" rec.tz
check_fresh rec.tz "recover -f onto a symlink"
check_target "recover -f"
rm -f target.txt && ln -sf target.txt dangling.tz
run 1 "$A" recover "$S" dangling.tz
[ -e target.txt ] && fail "recover created the target of a dangling symlink"
run 1 "$A" recover -f "$S" ff
one_line "'ff': not a regular file$"
[ -p ff ] || fail "recover -f replaced the FIFO"

# --- slice
old sl.tz 644
run 1 "$A" slice --from 0 --to 1 "$S" sl.tz
[ "$(cat sl.tz)" = old ] || fail "slice without -f changed the file"
run 0 "$A" slice -f --from 0 --to 1 "$S" sl.tz
check_fresh sl.tz "slice -f"
link_to_target sl.tz
run 0 "$A" slice -f --from 0 --to 1 "$S" sl.tz
check_fresh sl.tz "slice -f onto a symlink"
check_target "slice -f"
run 1 "$A" slice -f --from 0 --to 1 "$S" ff
one_line "'ff': not a regular file$"

# --- bundle -o: refuses to overwrite without -f, like record and slice (issue 19)
old b.tgz 644
run 1 "$A" bundle --no-plots "$S" -o b.tgz
one_line "^tracer-analyze: 'b.tgz': file exists (use -f to overwrite)$"
[ "$(cat b.tgz)" = old ] || fail "bundle without -f changed the file"
run 0 "$A" bundle -f --no-plots "$S" -o b.tgz
check_fresh b.tgz "bundle -f -o"
run 0 "$A" info b.tgz
link_to_target b.tgz
run 0 "$A" bundle --force --no-plots "$S" -o b.tgz
check_fresh b.tgz "bundle -f -o onto a symlink"
check_target "bundle -f -o"
rm -f nb.tgz
run 0 "$A" bundle --no-plots "$S" -o nb.tgz
check_fresh nb.tgz "bundle -o to a new name"
ls ./*.tmp.* >/dev/null 2>&1 && fail "bundle left a temporary file"
# a missing directory: the message names the user's path, not OUT.tmp.PID
run 1 "$A" bundle --no-plots "$S" -o /nonexistent/dir/x.tar.gz
one_line "^tracer-analyze: '/nonexistent/dir/x.tar.gz': No such file or directory$"
grep -q '\.tmp\.' err && fail "bundle named its temporary file: $(cat err)"

# --- a directory, FIFO or device as output, with or without -f: "not a
# regular file" ("is a directory": issue 23), never "file exists (use -f
# ...)" (issue 19) nor "unknown bundle type" (issue 23)
mkdir -p dir.tgz dir.tz plaindir
mkfifo ff.tgz
for f in "" -f; do
	run 1 "$A" bundle $f --no-plots "$S" -o dir.tgz
	one_line "^tracer-analyze: 'dir.tgz' is a directory, not a bundle (name a .tar.gz, .tgz or .zip file)$"
	run 1 "$A" bundle $f --no-plots "$S" -o plaindir
	one_line "^tracer-analyze: 'plaindir' is a directory, not a bundle (name a .tar.gz, .tgz or .zip file)$"
	run 1 "$A" bundle $f --no-plots "$S" -o ff.tgz
	one_line "^tracer-analyze: 'ff.tgz': not a regular file$"
done
# a directory as input, to every reading subcommand; the commands that read
# several hosts read a directory's .tz files as the hosts of one run (MANY
# HOSTS): none is one line
for c in summary top export tree critical-path rightsize idle plot info verify cat recover slice bundle; do
	case $c in
	recover | slice) args=(plaindir out.tz) ;;
	bundle) args=(plaindir -o out.tgz) ;;
	export) args=(--format jsonl plaindir) ;;
	*) args=(plaindir) ;;
	esac
	run 1 "$A" $c "${args[@]}"
	case $c in
	summary | top | export | tree | critical-path | rightsize | idle | plot | recover | slice | bundle)
		one_line "^tracer-analyze: $c: 'plaindir': no .tz file in the directory$" ;;
	*) one_line "^tracer-analyze: 'plaindir' is a directory, not a trace or bundle$" ;;
	esac
done
for o in dir.tz ff /dev/full; do
	case $o in
	dir.tz) want="^tracer-analyze: 'dir.tz' is a directory, not an output file$" ;;
	*) want="'$o': not a regular file$" ;;
	esac
	for f in "" -f; do
		run 1 "$A" recover $f "$S" "$o"
		one_line "$want"
		run 1 "$A" slice $f --from 0 --to 1 "$S" "$o"
		one_line "$want"
	done
done
[ -d dir.tgz ] && [ -p ff.tgz ] && [ -d dir.tz ] && [ -p ff ] || fail "an output that is no regular file was replaced"

# --- export -o: refuses to overwrite without --force (its -f is --format);
# 0600 (it copies argv)
old e.jsonl 644
run 1 "$A" export --format jsonl "$S" -o e.jsonl
one_line "^tracer-analyze: 'e.jsonl': file exists (use --force to overwrite)$"
[ "$(cat e.jsonl)" = old ] || fail "export without --force changed the file"
run 0 "$A" export --format jsonl "$S" -o e.jsonl --force
check_fresh e.jsonl "export -o"
link_to_target e.jsonl
run 0 "$A" export --force --format jsonl "$S" -o e.jsonl
check_fresh e.jsonl "export -o onto a symlink"
check_target "export -o"
run 1 "$A" export --format jsonl "$S" -o ff
one_line "'ff': not a regular file$"
run 1 "$A" export --force --format jsonl "$S" -o ff
one_line "'ff': not a regular file$"

# --- plot --script, plot -o (gnuplot writes into the fresh file): -f to
# overwrite; mode 0666 less the umask (644 here)
old p.gp 644
run 1 "$A" plot --script p.gp "$S"
one_line "^tracer-analyze: 'p.gp': file exists (use -f to overwrite)$"
[ "$(cat p.gp)" = old ] || fail "plot --script without -f changed the file"
run 0 "$A" plot -f --script p.gp "$S"
check_fresh p.gp "plot --script" 644
if command -v gnuplot >/dev/null; then
	old p.png 600
	run 1 "$A" plot "$S" -o p.png
	one_line "^tracer-analyze: 'p.png': file exists (use -f to overwrite)$"
	run 0 "$A" plot -f "$S" -o p.png
	check_fresh p.png "plot -o" 644
	link_to_target p.png
	run 0 "$A" plot --force "$S" -o p.png
	check_fresh p.png "plot -o onto a symlink" 644
	check_target "plot -o"
else
	echo "note: gnuplot missing, plot -o not checked"
fi
run 1 "$A" plot -f "$S" -o ff.png --script ff
[ -p ff ] || fail "plot --script replaced the FIFO"

# --- the recorder (root, BTF): -f never keeps the old mode, never follows a symlink
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && [ -x "$R" ]; then
	for o in ff dir.tz /dev/full; do
		run 1 "$R" -o "$o" -- /bin/true
		one_line "^tracer-record: '$o': not a regular file$"
		run 1 "$R" -f -o "$o" -- /bin/true
		one_line "^tracer-record: '$o': not a regular file$"
	done
	[ -p ff ] && [ -d dir.tz ] || fail "the recorder replaced the FIFO or the directory"
	old m.tz 644
	run 0 "$R" -f -o m.tz -- /bin/true
	check_fresh m.tz "record -f"
	run 0 "$A" verify m.tz
	link_to_target s.tz
	run 0 "$R" -f -o s.tz -- /bin/true
	check_fresh s.tz "record -f onto a symlink"
	check_target "record -f"
	run 0 "$A" verify s.tz
else
	echo "note: not root with BTF, recorder part skipped"
fi

[ $errors -eq 0 ] || exit 1
echo "ok"
