#!/bin/sh
# SPDX-License-Identifier: MIT
# boot.sh -- boot one example image in QEMU with one scenario and check the
# status it ends with.  The one launcher: make boot, make run (demo.sh),
# make matrix (matrix.sh) and test/firmware/run.sh all boot through it.
#
#   boot.sh [options] IMAGE SCENARIO
#   boot.sh -L        the scenarios, "NAME STATUS RESETS" per line
#
# IMAGE is an .elf built by examples/build.mk; the image.env beside it says
# which board it is for and how that board boots (from the board's
# board.mk): QEMU command, machine, CPU, options, and how the image's status
# maps to QEMU's exit code.  SCENARIO goes in as -append "scenario=NAME".
#
#   -e STATUS   the status the image must end with (enum ex_status in
#               common/ex.h); default: the scenario's, from
#               common/scenario.c (its EX_SCENARIO lines) (4, EX_USAGE, for an unknown name)
#   -q CMD      the QEMU command, e.g. "tools/toolchain.sh run sid
#               qemu-system-aarch64"; default: $EX_QEMU_<board> (the
#               board's name with - as _) if set, else the board's
#   -M MACHINE  -machine instead of the board's
#   -c CPU      -cpu instead of the board's
#   -x ARGS     more QEMU options (split into words)
#   -1          one guest instruction per translation block, so timer
#               ticks land on any instruction (TCG takes interrupts only
#               between blocks): -singlestep before QEMU 8.1, -accel
#               tcg,one-insn-per-tb=on from 8.1 on
#   -r          let the guest reset and boot again (no -no-reboot): the
#               default for a scenario whose RESETS is 1; otherwise a reset
#               ends QEMU (x86: status 0, a triple fault)
#   -t SECONDS  timeout, default $EX_TIMEOUT or 20 (then QEMU's code is 124)
#   -l LOG      keep the serial output in LOG (default: a temporary file)
#   -n NAME     the case's name in the result line (default IMAGE-NAME/SCENARIO)
#   -s          print only the result line (not the command and the output)
#
# Prints the QEMU command and the serial output (from the firmware banner
# on; all of it if the banner never came), then one result line, "ok NAME
# (QEMU exit N = status S)" or "FAIL NAME: why, expected N (status S)",
# the format the test suites count.  Exits 0 when the status was the
# expected one and the firmware's banner was seen.  Runs from the repository root (a chroot QEMU sees $PWD).
set -u
here=$(dirname "$0")

usage() {
	echo "usage: $0 [-e STATUS] [-q CMD] [-M MACHINE] [-c CPU] [-x ARGS] [-1] [-r] [-t SECONDS]" >&2
	echo "       [-l LOG] [-n NAME] [-s] IMAGE SCENARIO  |  $0 -L" >&2
	exit 2
}

# "NAME STATUS RESETS" of every scenario, STATUS as a number.
scenarios() {
	awk '
	FILENAME ~ /ex\.h$/ && /^ *EX_[A-Z]+ = [0-9]+/ { st[$1] = $3 + 0; next }
	/^EX_SCENARIO\(/ {
		s = $0
		sub(/^EX_SCENARIO\( */, "", s)
		split(s, f, / *, */)
		if (!(f[2] in st)) { print "boot.sh: unknown status " f[2] > "/dev/stderr"; exit 1 }
		print f[1], st[f[2]], f[3]
	}' "$here/common/ex.h" "$here/common/scenario.c"
}

expect= qemu= machine= cpu= extra= one_insn=0 reboot= timeout_s=${EX_TIMEOUT:-20}
log= name= silent=0
while getopts e:q:M:c:x:1rt:l:n:sL opt; do
	case $opt in
	e) expect=$OPTARG ;;
	q) qemu=$OPTARG ;;
	M) machine=$OPTARG ;;
	c) cpu=$OPTARG ;;
	x) extra=$OPTARG ;;
	1) one_insn=1 ;;
	r) reboot=1 ;;
	t) timeout_s=$OPTARG ;;
	l) log=$OPTARG ;;
	n) name=$OPTARG ;;
	s) silent=1 ;;
	L) scenarios; exit ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
image=$1 scenario=$2

env=$(dirname "$image")/image.env
if [ ! -f "$image" ] || [ ! -f "$env" ]; then
	echo "FAIL ${name:-$image/$scenario}: no image $image, or no image.env beside it (make -C examples first)"
	exit 1
fi
. "$env"
: "${name:=$ex_image/$scenario}"

# The scenario's status and whether it resets, unless given.
# shellcheck disable=SC2046
set -- $(scenarios | awk -v s="$scenario" '$1 == s { print $2, $3 }')
: "${expect:=${1:-4}}"
: "${reboot:=${2:-0}}"

if [ -z "$qemu" ]; then
	eval "qemu=\${EX_QEMU_$(printf '%s' "$ex_board" | tr -c 'A-Za-z0-9_' _):-}"
	: "${qemu:=$ex_qemu}"
fi
: "${machine:=$ex_qemu_machine}"
: "${cpu:=$ex_qemu_cpu}"
if [ "$one_insn" = 1 ]; then
	# QEMU 8.1 renamed -singlestep (and 9.0 dropped it).
	# shellcheck disable=SC2086
	v=$($qemu --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -1)
	# shellcheck disable=SC2086
	set -- $v
	if [ $# -eq 2 ] && { [ "$1" -gt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -ge 1 ]; }; }; then
		extra="${extra:+$extra }-accel tcg,one-insn-per-tb=on"
	else
		extra="${extra:+$extra }-singlestep"
	fi
fi

# qemu-exit is an expression in s, the status.
# shellcheck disable=SC2034
s=$expect
want=$(( $ex_qemu_exit ))

if [ -z "$log" ]; then
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
else
	mkdir -p "$(dirname "$log")"
fi

# The QEMU command and the board's options are split into words on purpose.
# shellcheck disable=SC2086
set -- $qemu -M "$machine" ${cpu:+-cpu "$cpu"} $ex_qemu_args -nographic
[ "$reboot" = 1 ] || set -- "$@" -no-reboot
# stdin from /dev/null: QEMU must not put a terminal into raw mode.
# shellcheck disable=SC2086
timeout "$timeout_s" "$@" $extra -kernel "$image" -append "scenario=$scenario" </dev/null >"$log" 2>&1
rc=$?

if [ "$silent" = 0 ]; then
	echo "--- $name: $*${extra:+ $extra} -kernel $image -append scenario=$scenario"
	if grep -q '^sfu example firmware' "$log"; then
		tr -d '\r' <"$log" | sed -n '/^sfu example firmware/,$p'
	else
		tr -d '\r' <"$log"
	fi
fi

# A QEMU that did not start can exit with the wanted code too (x86: 1 is
# status 0), so the image must have printed its banner.
if [ "$rc" -eq "$want" ] && grep -q '^sfu example firmware' "$log"; then
	echo "ok $name (QEMU exit $rc = status $expect)"
	exit 0
fi
case $rc in
"$want") why="QEMU exit $rc but no firmware banner (QEMU did not start the image?)" ;;
124) why="timed out after ${timeout_s}s" ;;
0) why="QEMU exit 0 (the guest reset or triple-faulted, or semihosting is off)" ;;
*) why="QEMU exit $rc" ;;
esac
echo "FAIL $name: $why, expected $want (status $expect)"
exit 1
