#!/bin/sh
# run-all.sh -- boot every example image, CPU and scenario; used by
# `make -C examples matrix`.  (Exit statuses only; test/firmware/run.sh
# also checks every trace against its expected function sequence.)
#
#   run-all.sh OUTDIR
#
# OUTDIR holds the images (examples/build.mk's EX_OUT); logs go to
# OUTDIR/logs.  EX_SCENARIOS limits the scenarios of the main matrix.
# Prints each boot (qemu-run.sh), then "N passed, N failed"; exits 1 if
# any boot did not end with the status its scenario expects.
set -u
out=${1:?usage: run-all.sh OUTDIR}
here=$(dirname "$0")
run="sh $here/qemu-run.sh -l $out/logs"
a64=$out/aarch64-virt/sfu-aarch64-virt.elf
pac=$out/aarch64-virt-pac/sfu-aarch64-virt-pac.elf
x86=$out/x86_64-pc/sfu-x86_64-pc.elf
# QEMU 7.2 spells "one guest instruction per translation block" -singlestep
# (8.1 and later: -accel tcg,one-insn-per-tb=on).  Interrupts are taken only
# between translation blocks, so this lets timer ticks land on every
# instruction, prologues and epilogues included.
one_insn=${EX_QEMU_ONE_INSN:--singlestep}

pass=0 fail=0
result() {
	if [ "$1" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

# The status each scenario ends with (examples/common/scenario.c).
expect() {
	case $1 in
	hello | timer | list) echo 0 ;;
	panic | irqpanic | corrupt | badfp | loop) echo 2 ;;
	null | udf | badsp) echo 3 ;;
	*) echo 4 ;;
	esac
}

for s in ${EX_SCENARIOS:-hello panic null udf timer irqpanic corrupt badfp loop badsp}; do
	e=$(expect "$s")
	$run -n "aarch64-virt/max/$s" -c max aarch64-virt "$a64" "$s" "$e"; result $?
	$run -n "aarch64-virt/cortex-a57/$s" -c cortex-a57 aarch64-virt "$a64" "$s" "$e"; result $?
	$run -n "x86_64-pc/pc/$s" x86_64-pc "$x86" "$s" "$e"; result $?
done

# pac-ret build: signed return addresses on -cpu max, NOPs on cortex-a57.
for s in panic null timer irqpanic; do
	$run -n "aarch64-virt-pac/max/$s" -c max aarch64-virt "$pac" "$s" "$(expect "$s")"; result $?
done
$run -n "aarch64-virt-pac/cortex-a57/panic" -c cortex-a57 aarch64-virt "$pac" panic 2; result $?

# Entered at EL2 (virtualization=on): head.S drops to EL1.
for s in hello panic timer; do
	$run -n "aarch64-virt/el2/$s" -M virt,gic-version=2,virtualization=on -c max \
		aarch64-virt "$a64" "$s" "$(expect "$s")"; result $?
done

# The other PC machine.
for s in hello null timer; do
	$run -n "x86_64-pc/q35/$s" -M q35 x86_64-pc "$x86" "$s" "$(expect "$s")"; result $?
done

# Timer ticks on every instruction boundary.
$run -n "aarch64-virt/max/timer-1insn" -c max -x "$one_insn" aarch64-virt "$a64" timer 0; result $?
$run -n "x86_64-pc/pc/timer-1insn" -x "$one_insn" x86_64-pc "$x86" timer 0; result $?

# Linked by lld: .sframe is one section per object (hello walks them).
lld_a64=$out/aarch64-virt-lld/sfu-aarch64-virt-lld.elf
lld_x86=$out/x86_64-pc-lld/sfu-x86_64-pc-lld.elf
for s in hello panic null timer irqpanic; do
	$run -n "aarch64-virt-lld/max/$s" -c max aarch64-virt "$lld_a64" "$s" "$(expect "$s")"; result $?
	$run -n "x86_64-pc-lld/pc/$s" x86_64-pc "$lld_x86" "$s" "$(expect "$s")"; result $?
done

# Exit-status plumbing: an unknown scenario is EX_USAGE (4).
$run -n "aarch64-virt/max/usage" aarch64-virt "$a64" no-such-scenario 4; result $?
$run -n "x86_64-pc/pc/usage" x86_64-pc "$x86" no-such-scenario 4; result $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
