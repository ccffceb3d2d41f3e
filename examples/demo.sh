#!/bin/sh
# demo.sh -- what `make run` shows: both boards booted in QEMU, each
# unwinding its own stack with sfu.
#
#   demo.sh OUTDIR
#
# OUTDIR holds the images (examples/build.mk's EX_OUT).  Boots, in order:
# the panic dump of each board (full serial output for the first, from the
# scenario on for the rest), a fault dump of each board (the walk crosses
# the exception's trap frame), the timer summary of each board (every one of
# >= 2000 ticks unwound), the pac-ret build's panic, and one dump passed
# through tools/sfu-symbolize.  Exits 1 if a boot did not end with its
# scenario's status.  Environment: QEMU_aarch64, QEMU_x86_64, EX_TIMEOUT.
set -u
out=${1:?usage: demo.sh OUTDIR}
timeout_s=${EX_TIMEOUT:-20}
a64=$out/aarch64-virt/sfu-aarch64-virt.elf
pac=$out/aarch64-virt-pac/sfu-aarch64-virt-pac.elf
x86=$out/x86_64-pc/sfu-x86_64-pc.elf
logs=$out/logs
mkdir -p "$logs"
bad=0

# boot IMAGE BOARD LABEL SCENARIO STATUS WHAT SHOW
#   SHOW: all (serial output from the banner), dump (from the scenario
#   line), timer (the summary lines only)
boot() {
	img=$1 board=$2 label=$3 scen=$4 status=$5 what=$6 show=$7
	log=$logs/demo-$label-$scen.log
	case $board in
	aarch64-virt)
		want=$status
		set -- "${QEMU_aarch64:-qemu-system-aarch64}" -M virt,gic-version=2 -cpu max -m 128M \
			-nographic -no-reboot -semihosting ;;
	*)
		want=$(( (status << 1) | 1 ))
		set -- "${QEMU_x86_64:-qemu-system-x86_64}" -M pc -m 128M -nographic -no-reboot \
			-nic none -device isa-debug-exit,iobase=0xf4,iosize=0x04 ;;
	esac
	printf '\n=== %s: %s\n' "$label" "$what"
	timeout "$timeout_s" "$@" -kernel "$img" -append "scenario=$scen" </dev/null >"$log" 2>&1
	rc=$?
	case $show in
	all) tr -d '\r' <"$log" | sed -n '/^sfu example firmware/,$p' ;;
	dump) tr -d '\r' <"$log" | sed -n '/^scenario:/,$p' ;;
	timer) tr -d '\r' <"$log" | grep -E '^(  pac|timer: )' ;;
	esac
	if [ "$rc" -eq "$want" ]; then
		echo "(QEMU exit $rc: status $status, as expected)"
	else
		echo "(QEMU exit $rc, expected $want: status $status) <-- FAILED"
		bad=1
	fi
}

echo "sfu demo: bare-metal images for QEMU unwind their own stacks from .sframe"
echo "(images in $out; every boot's serial log in $logs)"

boot "$a64" aarch64-virt aarch64-virt panic 2 "panic() at the bottom of a 6-deep call chain" all
boot "$x86" x86_64-pc x86_64-pc panic 2 "the same chain, built for x86_64" dump
boot "$a64" aarch64-virt aarch64-virt null 3 \
	"null-pointer load in a frameless leaf: the walk starts in the fault handler" dump
boot "$x86" x86_64-pc x86_64-pc udf 3 "ud2 in a frameless leaf, taken on the IST1 exception stack" dump
boot "$a64" aarch64-virt aarch64-virt irqpanic 2 "panic() inside the timer interrupt handler" dump
boot "$a64" aarch64-virt aarch64-virt timer 0 "2500 timer ticks, the interrupted code unwound on every one" timer
boot "$x86" x86_64-pc x86_64-pc timer 0 "the same on x86_64" timer
boot "$pac" aarch64-virt aarch64-virt-pac panic 2 \
	"pac-ret build on -cpu max: signed return addresses, the same trace" dump

printf '\n=== the aarch64 fault dump with file:line (tools/sfu-symbolize IMAGE LOG)\n'
if command -v aarch64-linux-gnu-addr2line >/dev/null 2>&1; then
	tools/sfu-symbolize "$a64" "$logs/demo-aarch64-virt-null.log" | sed -n '/^backtrace:$/,/^backtrace: /p'
else
	echo "(aarch64-linux-gnu-addr2line missing: apt-get install binutils-aarch64-linux-gnu)"
fi

echo
if [ "$bad" -eq 0 ]; then
	echo "demo: every boot ended as expected"
else
	echo "demo: some boots did not end as expected (see above)"
fi
exit "$bad"
