#!/bin/sh
# qemu-run.sh -- boot one example image in QEMU, show its serial output,
# check its exit status.
#
#   qemu-run.sh [-n NAME] [-c CPU] [-M MACHINE] [-x "QEMU ARGS"] [-l LOGDIR]
#               BOARD IMAGE SCENARIO EXPECT
#
# BOARD     aarch64-virt or x86_64-pc
# SCENARIO  passed as -append "scenario=SCENARIO"
# EXPECT    the image's status (enum ex_status in examples/common/ex.h);
#           mapped here to what QEMU returns on that board:
#             aarch64-virt  semihosting SYS_EXIT_EXTENDED: status itself
#             x86_64-pc     isa-debug-exit: (status << 1) | 1
# CPU       aarch64 -cpu (default max); MACHINE the -M value (default
#           virt,gic-version=2 / pc); -x adds QEMU options.
#
# Prints the serial output (from the firmware banner on; the BIOS noise
# before it is dropped unless the banner never appears), then one line
# "ok NAME" or "FAIL NAME: why", the format test/run-all.sh counts.
# Exit status 0 when the expectation held.  Environment: QEMU_aarch64,
# QEMU_x86_64, EX_TIMEOUT (seconds, default 20).
set -u

name= cpu=max machine= extra= logdir=
while getopts n:c:M:x:l: opt; do
	case $opt in
	n) name=$OPTARG ;;
	c) cpu=$OPTARG ;;
	M) machine=$OPTARG ;;
	x) extra=$OPTARG ;;
	l) logdir=$OPTARG ;;
	*) echo "usage: $0 [-n NAME] [-c CPU] [-M MACHINE] [-x ARGS] [-l DIR] BOARD IMAGE SCENARIO EXPECT" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 4 ]; then
	echo "usage: $0 [-n NAME] [-c CPU] [-M MACHINE] [-x ARGS] [-l DIR] BOARD IMAGE SCENARIO EXPECT" >&2
	exit 2
fi
board=$1 image=$2 scenario=$3 expect=$4
: "${name:=$board/$scenario}"
timeout_s=${EX_TIMEOUT:-20}

case $board in
aarch64-virt)
	want=$expect
	set -- "${QEMU_aarch64:-qemu-system-aarch64}" -M "${machine:-virt,gic-version=2}" \
		-cpu "$cpu" -m 128M -nographic -no-reboot -semihosting ;;
x86_64-pc)
	want=$(( (expect << 1) | 1 ))
	set -- "${QEMU_x86_64:-qemu-system-x86_64}" -M "${machine:-pc}" -m 128M \
		-nographic -no-reboot -nic none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 ;;
*)
	echo "FAIL $name: unknown board $board"
	exit 1 ;;
esac

if [ -n "$logdir" ]; then
	mkdir -p "$logdir"
	log=$logdir/$(echo "$name" | tr '/' '_').log
else
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
fi

# stdin from /dev/null: QEMU must not put a terminal into raw mode.
# $extra is split into words on purpose (several options).
# shellcheck disable=SC2086
timeout "$timeout_s" "$@" $extra -kernel "$image" -append "scenario=$scenario" \
	</dev/null >"$log" 2>&1
rc=$?

echo "--- $name: $*${extra:+ $extra} -kernel $image -append scenario=$scenario"
if grep -q '^sfu example firmware' "$log"; then
	tr -d '\r' <"$log" | sed -n '/^sfu example firmware/,$p'
else
	tr -d '\r' <"$log"
fi

if [ "$rc" -eq "$want" ]; then
	echo "ok $name (QEMU exit $rc = status $expect)"
	exit 0
fi
case $rc in
124) why="timed out after ${timeout_s}s" ;;
0) why="QEMU exit 0 (reset/triple fault on x86, or semihosting off)" ;;
*) why="QEMU exit $rc" ;;
esac
echo "FAIL $name: $why, expected $want (status $expect)"
exit 1
