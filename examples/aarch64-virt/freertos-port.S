/* SPDX-License-Identifier: MIT */
/*
 * freertos-port.S -- the exception entry of FreeRTOS's 64-bit Arm port,
 * written here the way FreeRTOS-Kernel's portable/GCC/ARM_AARCH64
 * portASM.S (V11.2.0) does it, at EL1 (its GUEST build, the BCM2837
 * port's level): nothing here is for sfu, and rtos/sfu_freertos.h
 * describes it without a line of it changed.
 *
 *   portSAVE_CONTEXT   the whole task context onto the task's own stack
 *                      (SP_EL0): (X0, X1) ... (X28, X29), (X30, XZR), (ELR,
 *                      SPSR), the 32 Q registers only if the task has an
 *                      FPU context, then (that flag, the critical nesting
 *                      count); the stack pointer then goes into
 *                      pxCurrentTCB->pxTopOfStack
 *   FreeRTOS_SWI_Handler  every synchronous exception, of a task (SP_EL0)
 *                      or of a handler (SP_EL1), the way FreeRTOS's
 *                      Cortex-A53 BSPs route both: saves the context onto
 *                      SP_EL0 first (a handler's goes onto the interrupted
 *                      task's stack; SP_EL1 is left as the exception
 *                      found it), then SVC is a yield (vTaskSwitchContext),
 *                      anything else the abort path
 *   FreeRTOS_IRQ_Handler  on the IRQ stack (SP_EL1): the caller-saved
 *                      registers, (ELR, SPSR), (old nesting, its address),
 *                      the GIC pair; vApplicationIRQHandler; a switch only
 *                      when the outermost interrupt ends and one was asked
 *                      for: the IRQ frame popped, portSAVE_CONTEXT,
 *                      vTaskSwitchContext, portRESTORE_CONTEXT
 *
 * EX_FREERTOS_BCM2837 1 (the freertos-bcm image): FreeRTOS_IRQ_Handler
 * written the way the public Raspberry Pi 3 (BCM2837) port writes it
 * (eggman/FreeRTOS-raspi3, portable/GCC/ARM_CA53_64_RaspberryPi3/
 * portASM.S, on FreeRTOS V10.0.1; FreeRTOS-Kernel itself has no BCM2837
 * port): the same frame down to the nesting pair, and nothing below it.
 * The SoC has no GIC, so nothing is acknowledged or pushed across the
 * call: w0 carries the core's local interrupt source register
 * (CORE0_INT_SRC), and no EOI follows.  Its task context, SWI handler and
 * switch path are ARM_AARCH64's (EL1 only).  This board keeps its GIC,
 * acknowledged by board.c's handle_irq as on every image, so the variant
 * changes the frame only: w0 is 0 (no such register here).
 *
 * Where this differs from FreeRTOS, for this board:
 *   - FreeRTOS_Abort calls freertos_fault (a report) instead of spinning;
 *     it may return (probes), and the task is resumed; x2 carries the SP
 *     of the call for the example's report (sfu does not read it);
 *   - the board's GIC code acknowledges interrupts itself (handle_irq), so
 *     the GIC pair pushed is (0, 0), and the frame's address goes in x1;
 *   - the board keeps FP/SIMD off (CPACR_EL1.FPEN): the Q registers are
 *     saved and restored with it turned on around them;
 *   - the vector table is the board's (FreeRTOS leaves it to the BSP):
 *     both synchronous entries go to FreeRTOS_SWI_Handler through a room
 *     check (bsp_sync_sp0, bsp_sync_spx): when SP_EL0 (the task's stack,
 *     or the stack of the task a handler interrupted) has no room for the
 *     largest context, or no task is current, the same context, without
 *     its FP part, goes on SP_EL1 instead and freertos_spx_fault reports
 *     it.  FreeRTOS would push below the task's stack anyway: onto its
 *     guard page, faulting again in portSAVE_CONTEXT for good (each fault
 *     pushing further down), or, without one, over whatever lies below.
 */
#include "a64-pairs.inc"
#define EC_SVC64 0x15
#ifndef EX_FREERTOS_BCM2837
#define EX_FREERTOS_BCM2837 0
#endif

    .arch_extension simd


/* The GPRs, ELR and SPSR, pushed high to low on the current SP. */
.macro push_gprs
    push_x0_to_x19
    stp x20, x21, [sp, #-16]!
    stp x22, x23, [sp, #-16]!
    stp x24, x25, [sp, #-16]!
    stp x26, x27, [sp, #-16]!
    stp x28, x29, [sp, #-16]!
    stp x30, xzr, [sp, #-16]!
    mrs x3, spsr_el1
    mrs x2, elr_el1
    stp x2, x3, [sp, #-16]!
.endm

.macro pop_gprs
    ldp x2, x3, [sp], #16
    msr spsr_el1, x3
    msr elr_el1, x2
    ldp x30, xzr, [sp], #16
    ldp x28, x29, [sp], #16
    ldp x26, x27, [sp], #16
    ldp x24, x25, [sp], #16
    ldp x22, x23, [sp], #16
    ldp x20, x21, [sp], #16
    ldp x18, x19, [sp], #16
    ldp x16, x17, [sp], #16
    ldp x14, x15, [sp], #16
    ldp x12, x13, [sp], #16
    ldp x10, x11, [sp], #16
    ldp x8, x9, [sp], #16
    ldp x6, x7, [sp], #16
    ldp x4, x5, [sp], #16
    ldp x2, x3, [sp], #16
    ldp x0, x1, [sp], #16
.endm

.macro portSAVE_CONTEXT
    msr spsel, #0
    push_gprs
    ldr x0, =ullPortTaskHasFPUContext
    ldr x2, [x0]
    ldr x0, =ullCriticalNesting
    ldr x3, [x0]
    cbz x2, 1f
    fp_access 1, x0
    push_q_all
    fp_access 0, x0
1:  stp x2, x3, [sp, #-16]!
    ldr x0, =pxCurrentTCB
    ldr x1, [x0]
    mov x0, sp
    str x0, [x1]
    msr spsel, #1
.endm

.macro portRESTORE_CONTEXT
    ldr x0, =pxCurrentTCB
    ldr x1, [x0]
    ldr x0, [x1]
    msr spsel, #0
    mov sp, x0
    ldp x2, x3, [sp], #16
    ldr x0, =ullCriticalNesting
    str x3, [x0]
    ldr x0, =ullPortTaskHasFPUContext
    str x2, [x0]
    cbz x2, 1f
    fp_access 1, x0
    pop_q_all
    fp_access 0, x0
1:  pop_gprs
    msr spsel, #1
    eret
.endm

    .text

    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (build.mk: EX_NOSFRAME): sfu crosses this code through
     * its trap layouts, never through an SFrame row. */
    .cfi_sections .debug_frame
    .cfi_startproc
    .cfi_undefined x30

/* A synchronous exception, from a task or a handler. */
    .global FreeRTOS_SWI_Handler
    .type FreeRTOS_SWI_Handler, %function
    .balign 8
FreeRTOS_SWI_Handler:
    portSAVE_CONTEXT
    mrs x0, esr_el1
    lsr x1, x0, #26
    cmp x1, #EC_SVC64
    b.ne .LFreeRTOS_Abort
    bl vTaskSwitchContext
    portRESTORE_CONTEXT
.LFreeRTOS_Abort:  /* x0 the ESR, x1 its class */
    mov x2, sp      /* for the example's report only */
    bl freertos_fault
    portRESTORE_CONTEXT
    .size FreeRTOS_SWI_Handler, . - FreeRTOS_SWI_Handler

/* An interrupt, from a task (SP_EL0) or a handler (SP_EL1). */
    .global FreeRTOS_IRQ_Handler
    .type FreeRTOS_IRQ_Handler, %function
    .balign 8
FreeRTOS_IRQ_Handler:
    push_x0_to_x19
    stp x29, x30, [sp, #-16]!
    mrs x3, spsr_el1
    mrs x2, elr_el1
    stp x2, x3, [sp, #-16]!
    ldr x5, =ullPortInterruptNesting
    ldr x1, [x5]
    add x6, x1, #1
    str x6, [x5]
    stp x1, x5, [sp, #-16]!
#if EX_FREERTOS_BCM2837
    /* BCM2837: no GIC pair; the interrupt source in w0. */
    mov x0, #0
    mov x1, sp
    bl vApplicationIRQHandler
#else
    stp xzr, xzr, [sp, #-16]!
    mov x0, #0
    mov x1, sp
    bl vApplicationIRQHandler
    add sp, sp, #16
#endif
    ldp x1, x5, [sp], #16
    str x1, [x5]
    cbnz x1, .Lirq_exit
    ldr x0, =ullPortYieldRequired
    ldr x1, [x0]
    cbz x1, .Lirq_exit
    str xzr, [x0]
    /* The outermost interrupt asked for a switch: the interrupted
     * registers back, then the whole task context. */
    ldp x2, x3, [sp], #16
    msr spsr_el1, x3
    msr elr_el1, x2
    ldp x29, x30, [sp], #16
    pop_x18_to_x0
    portSAVE_CONTEXT
    bl vTaskSwitchContext
    portRESTORE_CONTEXT
.Lirq_exit:
    ldp x2, x3, [sp], #16
    msr spsr_el1, x3
    msr elr_el1, x2
    ldp x29, x30, [sp], #16
    pop_x18_to_x0
    eret
    .size FreeRTOS_IRQ_Handler, . - FreeRTOS_IRQ_Handler

/* The scheduler's start (xPortStartScheduler): the first task's context,
 * from EL1t with interrupts masked. */
    .global vPortRestoreTaskContext
    .type vPortRestoreTaskContext, %function
vPortRestoreTaskContext:
    msr spsel, #1
    portRESTORE_CONTEXT
    .size vPortRestoreTaskContext, . - vPortRestoreTaskContext

/* The board's: whether SP_EL0 (a task's stack) can take the largest
 * context (CTX_MAX bytes above pxCurrentTCB->pxStack, TCB_t offset 96):
 * the flags LO if not, or if no task is current; x0 and x1 kept. */
#define TCB_PXSTACK 96
#define CTX_MAX 800
.macro sp0_room
    stp x0, x1, [sp, #-16]!
    ldr x1, =pxCurrentTCB
    ldr x1, [x1]
    cbz x1, 8f
    ldr x1, [x1, #TCB_PXSTACK]
    mrs x0, sp_el0
    sub x0, x0, #CTX_MAX
    cmp x0, x1
    b 9f
8:  cmp x1, #1          /* no TCB (x1 0): LO */
9:  ldp x0, x1, [sp], #16
.endm

/* ... and if not: the context on SP_EL1, freertos_spx_fault's report. */
.macro spx_context
    push_gprs
    stp xzr, xzr, [sp, #-16]!
    mov x0, sp
    bl freertos_spx_fault
.endm

/* The board's: a task's synchronous exception (SP_EL0). */
    .type bsp_sync_sp0, %function
bsp_sync_sp0:
    sp0_room
    b.lo 1f
    b FreeRTOS_SWI_Handler
1:  spx_context
    b .
    .size bsp_sync_sp0, . - bsp_sync_sp0

/* The board's: a handler's synchronous exception (SP_EL1).  The same
 * check: FreeRTOS_SWI_Handler pushes a handler's context onto SP_EL0 too,
 * the stack of the task the interrupt came in on, which may be as full.
 * Here the report may return (a probe): the handler resumes. */
    .type bsp_sync_spx, %function
bsp_sync_spx:
    sp0_room
    b.lo 1f
    b FreeRTOS_SWI_Handler
1:  spx_context
    ldp x0, x1, [sp], #16
    pop_gprs
    eret
    .size bsp_sync_spx, . - bsp_sync_spx

    .type bsp_bad_vector, %function
bsp_bad_vector:
    bl freertos_bad_vector
    b .
    .size bsp_bad_vector, . - bsp_bad_vector
    .cfi_endproc

.macro ventry, label
    .balign 0x80
    b \label
.endm

    .balign 2048
    .global a64_vectors
a64_vectors:
    ventry bsp_sync_sp0             /* current EL, SP_EL0: the tasks */
    ventry FreeRTOS_IRQ_Handler
    ventry bsp_bad_vector
    ventry bsp_bad_vector
    ventry bsp_sync_spx             /* current EL, SP_EL1: a handler */
    ventry FreeRTOS_IRQ_Handler
    ventry bsp_bad_vector
    ventry bsp_bad_vector
    .rept 8
    ventry bsp_bad_vector           /* lower EL: no EL0 code exists */
    .endr

    .section .note.GNU-stack, "", %progbits
