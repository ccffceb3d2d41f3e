# SPDX-License-Identifier: MIT
# examples/aarch64-virt/board.mk -- QEMU's aarch64 "virt" machine.
#
# All the build, the launcher (boot.sh) and the tests know about this board.
# examples/build.mk reads it; what each variable means is listed there.

arch := aarch64
srcs := head.S vectors.S trap.c board.c switch.S thread.c
lds := link.ld
# No out-of-line atomics helpers (no libgcc), no branch protection
# whatever the compiler's default (the pac variant turns it on).
flags := -mno-outline-atomics -mbranch-protection=none
# No FP/SIMD registers: FP is off (head.S, CPACR_EL1.FPEN = 0) and the
# vectors do not save them.
safe-flags := -mgeneral-regs-only
# The sfu core reads this board's ABI only (every file, for the same structs).
cflags := -DSFU_AMD64=0 -DSFU_S390X=0

# GICv2 explicitly (the only one board.c drives).  Semihosting carries the
# command line in (SYS_GET_CMDLINE) and the status out: SYS_EXIT_EXTENDED
# with ADP_Stopped_ApplicationExit makes QEMU exit with the status itself.
qemu := qemu-system-aarch64
qemu-machine := virt,gic-version=2
qemu-cpu := max
qemu-args := -m 128M -semihosting
qemu-exit := s

# Ways to boot it (boot.sh options): the first is the default, `make
# matrix` boots every image every way.  cortex-a57 has no FEAT_PAuth (the
# pac-ret instructions are NOPs); el2 enters at EL2 and head.S drops to EL1.
boots := max cortex-a57 el2
boot.max :=
boot.cortex-a57 := -c cortex-a57
boot.el2 := -M virt,gic-version=2,virtualization=on

# The C trap handler and the vector code that calls it, as the traces name
# them (test/firmware/expected.txt's @trap and @stub).
trap := a64_trap
stub := trap_common
irqtrap := a64_trap
irqstub := trap_common

variants := pac lld kernel rtos freertos freertos-bcm threadx linux nofp mmuoff gen os
pac.flags := -mbranch-protection=pac-ret
pac.title := pac-ret build
lld.link := lld
lld.title := linked by lld
# The vector code written the way kernels commonly write it (its own
# pt_regs, a bl per vector entry), described to sfu by kernel-trap.c only.
kernel.srcs := head.S kernel-entry.S kernel-trap.c board.c switch.S thread.c
# ... and the sfu file built with the kernel's flags, not sfu's (no
# -mgeneral-regs-only): FP/SIMD is off, as on every image.
kernel.core-plain := 1
# ... and what the user writes for sfu (recipe.c, the switch layout, the
# thread table) too.
kernel.plain := recipe.c thread.c sched-sfu.c
kernel.title := kernel-style exception entry
kernel.trap := el1_sync_handler
kernel.stub := el1t_sync
kernel.irqtrap := el1_irq_handler
kernel.irqstub := el1t_irq
# The exception entry written the way RTOS ports write it (rtos-entry.S:
# the task context on the task's stack, its address in the TCB, the
# switch inside the handler, no labels), described to sfu by rtos-sfu.c
# only; the sfu file built with the board's plain flags, FP/SIMD off.
rtos.srcs := head.S rtos-entry.S rtos.c rtos-sfu.c board.c
rtos.flags := -DEX_THREAD_EXC_STACK=0u -DEX_THREADS_OUTERMOST=1
rtos.core-plain := 1
# ... and what the user writes for sfu (recipe.c, rtos-sfu.c, the thread
# table) too.
rtos.plain := recipe.c rtos-sfu.c sched-sfu.c
rtos.title := RTOS-style task contexts
rtos.trap := rtos_fault
rtos.stub := rtos_task_sync
rtos.irqtrap := rtos_irq
rtos.irqstub := rtos_task_irq
# FreeRTOS's ARM_AARCH64 port at EL1 (freertos-port.S: portSAVE_CONTEXT
# onto the task stack, FreeRTOS_SWI_Handler, FreeRTOS_IRQ_Handler on the
# IRQ stack), a kernel shaped as FreeRTOS's tasks.c (freertos.c: TCB_t,
# the state lists), described to sfu by rtos/sfu_freertos.h only.
freertos.srcs := head.S freertos-port.S freertos.c freertos-sfu.c board.c
freertos.flags := -DEX_THREAD_EXC_STACK=0u -DEX_THREADS_OUTERMOST=1
freertos.cflags := -I rtos
freertos.core-plain := 1
freertos.plain := recipe.c freertos-sfu.c
freertos.title := FreeRTOS ARM_AARCH64 port
freertos.trap := freertos_fault
freertos.stub := FreeRTOS_SWI_Handler
freertos.irqtrap := vApplicationIRQHandler
freertos.irqstub := FreeRTOS_IRQ_Handler
# The same with FreeRTOS_IRQ_Handler written as the Raspberry Pi 3
# (BCM2837) port writes it (freertos-port.S, EX_FREERTOS_BCM2837: no GIC
# pair below the frame), described by rtos/sfu_freertos.h with its knob
# SFU_FREERTOS_IRQ_IAR 0: the one line of FreeRTOSConfig.h a BCM2837 user
# adds, given here on the command line so that both images share the
# file.  The board's GIC stays (board.c's handle_irq acknowledges it, as on
# every image): only the entry's frame changes.  Everything else is the
# freertos image's code, so its expected.txt lines are freertos's (like),
# and only the scenarios that walk FreeRTOS_IRQ_Handler's frame, or go
# through its switch path (threads' spinner), are booted on it.
freertos-bcm.srcs := $(freertos.srcs)
freertos-bcm.flags := $(freertos.flags) -DEX_FREERTOS_BCM2837=1
freertos-bcm.cflags := $(freertos.cflags) -DSFU_FREERTOS_IRQ_IAR=0
freertos-bcm.core-plain := 1
freertos-bcm.plain := $(freertos.plain)
freertos-bcm.title := FreeRTOS, IRQ entry as in the BCM2837 port
freertos-bcm.trap := $(freertos.trap)
freertos-bcm.stub := $(freertos.stub)
freertos-bcm.irqtrap := $(freertos.irqtrap)
freertos-bcm.irqstub := $(freertos.irqstub)
freertos-bcm.like := freertos
freertos-bcm.scenarios := timer irqpanic irqfault irqnest threads perturb
freertos-bcm.scenarios-why := booted on the freertos image, whose code this one is but for FreeRTOS_IRQ_Handler's frame (the BCM2837 port's), which this scenario does not walk
# Eclipse ThreadX's ARMv8-A port (threadx-port.S: context save and restore,
# the solicited return, the scheduler, all on SP_EL0), a kernel shaped as
# ThreadX's (threadx.c: TX_THREAD, the created ring), described to sfu by
# rtos/sfu_threadx.h only, its offsets checked against threadx/tx_api.h.
threadx.srcs := head.S threadx-port.S threadx.c threadx-sfu.c board.c
threadx.flags := -DEX_THREAD_EXC_STACK=0u
threadx.cflags := -I rtos -DENABLE_ARM_FP
threadx.core-plain := 1
threadx.plain := recipe.c threadx-sfu.c
threadx.title := ThreadX ARMv8-A port
threadx.trap := tx_fault_handler
threadx.stub := tx_sync_stub
threadx.irqtrap := tx_irq_handler
threadx.irqstub := tx_irq_stub
# The arm64 Linux shape hobby kernels copy (linux-entry.S: pt_regs on the
# current kernel stack; linux-switch.S: cpu_switch_to into
# task->thread.cpu_context, ret_from_fork; linux.c: task[], current; tasks at EL1h on their kernel
# stacks), described to sfu by rtos/sfu_linux.h from its own types.
linux.srcs := head.S linux-entry.S linux-switch.S linux.c linux-sfu.c board.c
linux.flags := -DEX_THREAD_EXC_STACK=0u
linux.cflags := -I rtos
linux.core-plain := 1
linux.plain := recipe.c linux-sfu.c
linux.title := arm64 Linux-style kernel
linux.trap := linux_el1_sync
linux.stub := el1t_sync
linux.irqtrap := linux_el1_irq
linux.irqstub := el1t_irq
# The sfu file built without -mgeneral-regs-only, FP off as always.
nofp.core-plain := 1
nofp.title := FP/SIMD off, sfu built without -mgeneral-regs-only
# The MMU off (all of memory Device-nGnRnE: unaligned accesses fault, and
# address 0 is flash, so the null load and the bad SP use addresses with
# nothing behind them); everything but the sfu file built -mstrict-align.
mmuoff.flags := -DEX_MMU_OFF=1 -DEX_NULL_ADDR=0x50000000 -DEX_BAD_SP=0x50001000
mmuoff.safe-flags := -mstrict-align
mmuoff.core-plain := 1
mmuoff.title := MMU and FP/SIMD off, sfu built without -mgeneral-regs-only -mstrict-align
# .sframe made by tools/sfu-gen from the linked image's .eh_frame (libgcc's
# routines included), not by the assembler.
gen.sframe := gen
gen.title := .sframe from sfu-gen
# Every file built at -Os (after the -O2 of every image): the code shape
# of sfu a size-minded kernel gets (SFU_FAST 0 is the same at every
# level; the fast shape is only asked for).
os.flags := -Os
os.title := built at -Os
