# SPDX-License-Identifier: MIT
# examples/x86_64-pc/board.mk -- QEMU's x86_64 PC (i440FX, or Q35).
#
# All the build, the launcher (boot.sh) and the tests know about this board.
# examples/build.mk reads it; what each variable means is listed there.

arch := x86_64
srcs := head.S isr.S trap.c board.c switch.S thread.c
lds := link.ld
# No red zone (interrupts push below RSP), addresses below 2 GiB, no CET
# end-branch instructions.
flags := -m64 -mno-red-zone -mcmodel=small -fcf-protection=none
# No SSE/x87 registers: CR4.OSFXSR is never set (SSE instructions raise
# #UD) and the stubs do not save them.
safe-flags := -mgeneral-regs-only
# The sfu core reads this board's ABI only (every file, for the same structs).
cflags := -DSFU_AARCH64=0 -DSFU_S390X=0
# QEMU's multiboot loader takes the file flat: one PT_LOAD at 4 KiB pages.
ldflags := -z max-page-size=0x1000

# The multiboot command line carries -append in.  isa-debug-exit makes QEMU
# exit with (value << 1) | 1 for the status written to port 0xf4: always
# odd, so 0 means the guest reset or triple-faulted.
qemu := qemu-system-x86_64
qemu-machine := pc
qemu-cpu :=
qemu-args := -m 128M -nic none -device isa-debug-exit,iobase=0xf4,iosize=0x04
qemu-exit := (s << 1) | 1

# Ways to boot it (boot.sh options): the first is the default, `make
# matrix` boots every image every way.
boots := pc q35
boot.pc :=
boot.q35 := -M q35

# The C trap handler and the IDT stub code that calls it, as the traces
# name them (test/firmware/expected.txt's @trap and @stub).
trap := x86_trap
stub := isr_common
irqtrap := x86_trap
irqstub := isr_common

variants := lld kernel rtos nofp gen os
lld.link := lld
lld.title := linked by lld
# The IDT stubs written the way small kernels commonly write them (their
# own register order, a call per vector), described to sfu by
# kernel-trap.c only.
kernel.srcs := head.S kernel-isr.S kernel-trap.c board.c switch.S thread.c
# ... and the sfu file built with the kernel's flags, not sfu's (no
# -mgeneral-regs-only): FP/SIMD is off, as on every image.
kernel.core-plain := 1
# ... and what the user writes for sfu (recipe.c, the switch layout, the
# thread table) too.
kernel.plain := recipe.c thread.c sched-sfu.c
kernel.title := kernel-style interrupt stubs
kernel.trap := interrupt_handler
kernel.stub := isr_stubs
kernel.irqtrap := interrupt_handler
kernel.irqstub := isr_stubs
# The IDT stubs written the way RTOS ports write them (rtos-isr.S: the
# task context on the task's stack, its address in the TCB, the switch
# inside the handler by returning another task's frame, no labels),
# described to sfu by rtos-sfu.c only; the sfu file built with the board's
# plain flags, SSE off.
rtos.srcs := head.S rtos-isr.S rtos.c rtos-sfu.c board.c
rtos.flags := -DEX_THREADS_OUTERMOST=1
rtos.core-plain := 1
# ... and what the user writes for sfu (recipe.c, rtos-sfu.c, the thread
# table) too.
rtos.plain := recipe.c rtos-sfu.c sched-sfu.c
rtos.title := RTOS-style task contexts
rtos.trap := rtos_fault
rtos.stub := rtos_isr_common
rtos.irqtrap := rtos_irq
rtos.irqstub := rtos_isr_common
# The sfu file built without -mgeneral-regs-only, SSE off as always.
nofp.core-plain := 1
nofp.title := SSE off, sfu built without -mgeneral-regs-only
# .sframe made by tools/sfu-gen from the linked image's .eh_frame (libgcc's
# routines included), not by the assembler.
gen.sframe := gen
gen.title := .sframe from sfu-gen
# Every file built at -Os (after the -O2 of every image): the code shape
# of sfu a size-minded kernel gets (SFU_FAST 0 is the same at every
# level; the fast shape is only asked for).
os.flags := -Os
os.title := built at -Os
