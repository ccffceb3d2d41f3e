#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh -- what `make run` shows: both boards booted in QEMU, each
# unwinding its own stack with sfu.
#
#   demo.sh OUTDIR
#
# OUTDIR holds the images (examples/build.mk's EX_OUT).  Boots, in order:
# the panic dump of each board (full serial output for the first, from the
# scenario on for the rest), a fault dump of each board (the walk crosses
# the exception's trap frame), the timer summary of each board (every one of
# >= 2000 ticks unwound), the pac-ret build's panic, the kernel-style vector
# code of both boards, the MMU-off image, a fault inside libgcc with the
# assembler's .sframe and with sfu-gen's, one dump passed through
# tools/sfu-symbolize, and gdb's backtrace of the retained boot's crash
# record made a core file by tools/sfu-crash.  Every crash ends with its
# record's wire lines (a short block: tools/sfu-crash --log reads it).
# Boots through boot.sh (its environment: EX_QEMU_<board>, EX_TIMEOUT).
# Exits 1 if a boot did not end with its scenario's status.
set -u
out=${1:?usage: demo.sh OUTDIR}
here=$(dirname "$0")
logs=$out/logs
mkdir -p "$logs"
bad=0

# Frames of the same function more than 3 in a row (a stack overflow's
# recursion) as the first 3 and a count.
fold_frames() {
	awk '
	function flush() { if (run > 3) printf "  ... %d more %s frames\n", run - 3, fn; run = 0 }
	/^  #[0-9]+ +0x/ { f = $3; sub(/\+.*/, "", f); if (f == fn) { if (++run <= 3) print; next } flush(); fn = f; run = 1; print; next }
	{ flush(); fn = ""; print }
	END { flush() }'
}

# show IMAGE SCENARIO WHAT PART: boot IMAGE (build/examples/IMAGE/) and show
#   PART of its serial output: all (from the banner), dump (from the
#   scenario line, runs of one function folded), boots (the scenario's own
#   lines of every boot of a scenario that resets), timer (the summary
#   lines); then boot.sh's result line.
show() {
	img=$1 scen=$2 what=$3 part=$4
	log=$logs/demo-$img-$scen.log
	printf '\n=== %s: %s\n' "$img" "$what"
	result=$(sh "$here/boot.sh" -s -l "$log" "$out/$img/sfu-$img.elf" "$scen") || bad=1
	case $part in
	all) tr -d '\r' <"$log" | sed -n '/^sfu example firmware/,$p' ;;
	dump) tr -d '\r' <"$log" | sed -n '/^scenario:/,$p' | fold_frames ;;
	boots) tr -d '\r' <"$log" | grep -E '^(scenario:|retained:|previous crash|thread [0-9]|sfu-record|backtrace|  #|panic:)' ;;
	timer) tr -d '\r' <"$log" | grep -E '^(  pac|timer: )' ;;
	esac
	echo "$result"
}

echo "sfu demo: bare-metal images for QEMU unwind their own stacks from .sframe"
echo "(images in $out; every boot's serial log in $logs)"

show aarch64-virt panic "panic() at the bottom of a 6-deep call chain" all
show x86_64-pc panic "the same chain, built for x86_64" dump
show aarch64-virt null "null-pointer load in a frameless leaf: the walk starts in the fault handler" dump
show x86_64-pc udf "ud2 in a frameless leaf, taken on the IST1 exception stack" dump
show aarch64-virt irqpanic "panic() inside the timer interrupt handler" dump
show aarch64-virt timer "2500 timer ticks, the interrupted code unwound on every one" timer
show x86_64-pc timer "the same on x86_64" timer
show aarch64-virt-pac panic "pac-ret build on -cpu max: signed return addresses, the same trace" dump
show x86_64-pc-kernel null "a kernel's own IDT stubs (its register order, a call per vector), described to sfu, not rewritten" dump
show aarch64-virt-kernel irqpanic "a kernel's own EL1 vectors (pt_regs, a bl per entry), panic in the timer interrupt" dump
show aarch64-virt-mmuoff null "MMU and FP/SIMD off, sfu built without -mgeneral-regs-only -mstrict-align" dump
show aarch64-virt threads "three preemptive threads; one panics: every thread dumped, each within its own stacks" dump
show x86_64-pc overflow "a thread recurses into the unmapped guard page below its stack; the fault is taken on IST1" dump
show aarch64-virt-mmuoff overflow "the same with the MMU off: a watchpoint guards the stack" dump
show x86_64-pc nested "a fault inside the fault's dump (the symbol lookup): one line, halt" dump
show aarch64-virt retained "a crash record across two warm resets: read back and symbolized, then a half-written one refused" boots
show x86_64-pc libgcc "a fault inside libgcc's __udivmodti4, which GNU as gave no SFrame: the walk stops there" dump
show x86_64-pc-gen libgcc "the same with the .sframe sfu-gen made from the linked image's .eh_frame: through libgcc" dump

printf '\n=== the aarch64 fault dump with file:line (tools/sfu-symbolize IMAGE LOG)\n'
if command -v aarch64-linux-gnu-addr2line >/dev/null 2>&1; then
	tools/sfu-symbolize "$out/aarch64-virt/sfu-aarch64-virt.elf" "$logs/demo-aarch64-virt-null.log" | sed -n '/^backtrace:$/,/^backtrace: /p'
else
	echo "(aarch64-linux-gnu-addr2line missing: apt-get install binutils-aarch64-linux-gnu)"
fi

# The retained boot's crash record, printed by its second boot in its
# wire lines, as an ELF core file (tools/sfu-crash --core): gdb's
# backtrace of it, beside sfu's own dump of the same crash (its first
# boot).
printf '\n=== the retained crash as a core file: sfu-crash --core CORE IMAGE --log LOG; gdb IMAGE CORE\n'
img=$out/aarch64-virt/sfu-aarch64-virt.elf
log=$logs/demo-aarch64-virt-retained.log
core=$logs/demo-aarch64-virt-retained.core
if ! command -v gdb-multiarch >/dev/null 2>&1; then
	echo "(gdb-multiarch missing: apt-get install gdb-multiarch)"
elif "${SFU_CRASH:-build/sfu-crash}" --core "$core" "$img" --log "$log"; then
	echo "sfu's dump at the crash (boot 1):"
	tr -d '\r' <"$log" | sed -n '/^backtrace:$/,/^backtrace: /{p;/^backtrace: /q}'
	echo "gdb -batch -ex 'thread apply all bt' $img $core:"
	gdb-multiarch -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' "$img" "$core" 2>&1 |
		sed -n '/^Core was generated by/,$p' | grep -v '^\[Current thread'
else
	echo "(no core: sfu-crash refused the record)"
	bad=1
fi

echo
if [ "$bad" -eq 0 ]; then
	echo "demo: every boot ended as expected"
else
	echo "demo: some boots did not end as expected (see above)"
fi
exit "$bad"
