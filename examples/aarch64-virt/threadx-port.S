/* SPDX-License-Identifier: MIT */
/*
 * threadx-port.S -- the low level of Eclipse ThreadX's ARMv8-A port,
 * written here the way its ports_arch/ARMv8-A sources (6.1.9 - 6.3.0)
 * do it: nothing here is for sfu, and rtos/sfu_threadx.h describes it
 * without a line of it changed.  Everything runs on SP_EL0 (EL1t):
 * threads, the scheduler and ISRs (on _tx_thread_system_stack_ptr's
 * stack).
 *
 *   _tx_thread_system_return   a thread blocks: (x29, x30), (x19, x20) ...
 *                      (x27, x28), with FP (tx_thread_fp_enable) q8-q15
 *                      and (FPSR, FPCR), then (DAIF, 0): the solicited
 *                      frame; its SP into tx_thread_stack_ptr, the
 *                      scheduler on the system stack
 *   _tx_thread_context_save   an ISR's first call (the stub pushed (x29,
 *                      x30)): (x0, x1) ... (x18, x19), (SPSR, ELR) on the
 *                      current SP; the first level stores that SP in the
 *                      thread's tx_thread_stack_ptr and moves to the system
 *                      stack, a nested one stays where it is
 *   _tx_thread_context_restore  the nested frame popped where it is; the
 *                      first level resumes the thread, or, preempted,
 *                      turns its frame into the full one ((x20, x21) ...
 *                      (x28, x29) and, with FP, q0-q31 and (FPSR, FPCR)
 *                      pushed between, (SPSR, ELR) on top) for the
 *                      scheduler
 *   _tx_thread_schedule   _tx_thread_execute_ptr's frame: ELR word 0 is
 *                      solicited (`ret`), else an interrupt frame (`eret`)
 *
 * The board's (ThreadX leaves vectors to the BSP): an interrupt stub that
 * switches to SP_EL0 and calls context_save, the C handler,
 * context_restore; a synchronous stub that pushes the same frame shape at
 * the SP and calls its C handler (tx_fault_handler), or, where a thread's
 * stack cannot take it, on SP_EL1 (tx_overflow_fault).  The board keeps
 * FP/SIMD off (CPACR_EL1.FPEN): the Q registers are saved and restored
 * with it turned on around them (a64-pairs.inc).
 */
#include "a64-pairs.inc"
#define TX_RUN_COUNT 4
#define TX_STACK_PTR 8
#define TX_STACK_START 16
#define TX_FP_ENABLE 248
#define MINIMAL 192

    .arch_extension simd


/* context_save's registers, after (x0, x1), (x2, x3): (x4, x5) ...
 * (x18, x19), then (SPSR, ELR). */
.macro push_rest
    push_x4_to_x19
    mrs x0, spsr_el1
    mrs x1, elr_el1
    stp x0, x1, [sp, #-16]!
.endm

/* The minimal frame back into the CPU, then `eret`. */
.macro pop_minimal
    ldp x0, x1, [sp], #16
    msr spsr_el1, x0
    msr elr_el1, x1
    pop_x18_to_x0
    ldp x29, x30, [sp], #16
    eret
.endm

    .text

    .global _tx_thread_context_save
    .type _tx_thread_context_save, %function
_tx_thread_context_save:
    stp x0, x1, [sp, #-16]!
    stp x2, x3, [sp, #-16]!
    ldr x3, =_tx_thread_system_state
    ldr w2, [x3]
    add w2, w2, #1
    str w2, [x3]
    cmp w2, #1
    b.eq 1f
    push_rest                       /* nested: where it is */
    ret
1:  ldr x1, =_tx_thread_current_ptr
    ldr x0, [x1]
    cbz x0, 2f
    push_rest
    ldr x1, =_tx_thread_current_ptr
    ldr x0, [x1]
    mov x2, sp
    str x2, [x0, #TX_STACK_PTR]
    ldr x3, =_tx_thread_system_stack_ptr
    ldr x3, [x3]
    mov sp, x3
    ret
2:  ldp x2, x3, [sp], #16           /* no thread (the idle loop) */
    ldp x0, x1, [sp], #16
    add sp, sp, #16
    ret
    .size _tx_thread_context_save, . - _tx_thread_context_save

    .global _tx_thread_context_restore
    .type _tx_thread_context_restore, %function
_tx_thread_context_restore:
    msr daifset, #3
    ldr x3, =_tx_thread_system_state
    ldr w2, [x3]
    sub w2, w2, #1
    str w2, [x3]
    cbz w2, 1f
    pop_minimal                     /* nested */
1:  ldr x1, =_tx_thread_current_ptr
    ldr x0, [x1]
    cbz x0, _tx_thread_schedule
    ldr x2, =_tx_thread_execute_ptr
    ldr x2, [x2]
    cmp x0, x2
    b.eq 3f
    ldr x2, =_tx_thread_preempt_disable
    ldr w2, [x2]
    cbnz w2, 3f
    /* Preempted: the minimal frame becomes the full one. */
    ldr x2, [x0, #TX_STACK_PTR]
    mov sp, x2
    ldp x4, x5, [sp], #16
    stp x20, x21, [sp, #-16]!
    stp x22, x23, [sp, #-16]!
    stp x24, x25, [sp, #-16]!
    stp x26, x27, [sp, #-16]!
    stp x28, x29, [sp, #-16]!
    ldr w3, [x0, #TX_FP_ENABLE]
    cbz w3, 2f
    fp_access 1, x2
    push_q_all
    mrs x2, fpsr
    mrs x3, fpcr
    stp x2, x3, [sp, #-16]!
    fp_access 0, x2
2:  stp x4, x5, [sp, #-16]!
    mov x2, sp
    str x2, [x0, #TX_STACK_PTR]
    str xzr, [x1]
    ldr x2, =_tx_thread_system_stack_ptr
    ldr x2, [x2]
    mov sp, x2
    b _tx_thread_schedule
3:  ldr x2, [x0, #TX_STACK_PTR]
    mov sp, x2
    pop_minimal
    .size _tx_thread_context_restore, . - _tx_thread_context_restore

    .global _tx_thread_system_return
    .type _tx_thread_system_return, %function
_tx_thread_system_return:
    stp x29, x30, [sp, #-16]!
    stp x19, x20, [sp, #-16]!
    stp x21, x22, [sp, #-16]!
    stp x23, x24, [sp, #-16]!
    stp x25, x26, [sp, #-16]!
    stp x27, x28, [sp, #-16]!
    ldr x5, =_tx_thread_current_ptr
    ldr x6, [x5]
    ldr w7, [x6, #TX_FP_ENABLE]
    cbz w7, 1f
    fp_access 1, x2
    stp q8, q9, [sp, #-32]!
    stp q10, q11, [sp, #-32]!
    stp q12, q13, [sp, #-32]!
    stp q14, q15, [sp, #-32]!
    mrs x2, fpsr
    mrs x3, fpcr
    stp x2, x3, [sp, #-16]!
    fp_access 0, x2
1:  mrs x4, daif
    msr daifset, #3
    stp x4, xzr, [sp, #-16]!
    mov x2, sp
    str x2, [x6, #TX_STACK_PTR]
    str xzr, [x5]
    ldr x2, =_tx_thread_system_stack_ptr
    ldr x2, [x2]
    mov sp, x2
    b _tx_thread_schedule
    .size _tx_thread_system_return, . - _tx_thread_system_return

    .global _tx_thread_schedule
    .type _tx_thread_schedule, %function
_tx_thread_schedule:
1:  ldr x1, =_tx_thread_execute_ptr
    ldr x0, [x1]
    cbnz x0, 2f
    msr daifclr, #2                 /* idle: wait for an interrupt */
    wfi
    msr daifset, #2
    b 1b
2:  bl tx_schedule_hook             /* the example's bookkeeping */
    ldr x1, =_tx_thread_execute_ptr
    ldr x0, [x1]
    ldr x1, =_tx_thread_current_ptr
    str x0, [x1]
    ldr w2, [x0, #TX_RUN_COUNT]
    add w2, w2, #1
    str w2, [x0, #TX_RUN_COUNT]
    ldr x2, [x0, #TX_STACK_PTR]
    mov sp, x2
    ldr w3, [x0, #TX_FP_ENABLE]
    ldp x4, x5, [sp], #16
    cbz x5, 4f
    msr spsr_el1, x4
    msr elr_el1, x5
    cbz w3, 3f
    fp_access 1, x2
    ldp x2, x3, [sp], #16
    msr fpsr, x2
    msr fpcr, x3
    pop_q_all
    fp_access 0, x2
3:  ldp x28, x29, [sp], #16
    ldp x26, x27, [sp], #16
    ldp x24, x25, [sp], #16
    ldp x22, x23, [sp], #16
    ldp x20, x21, [sp], #16
    pop_x18_to_x0
    ldp x29, x30, [sp], #16
    eret
4:  cbz w3, 5f                      /* solicited */
    fp_access 1, x2
    ldp x2, x3, [sp], #16
    msr fpsr, x2
    msr fpcr, x3
    ldp q14, q15, [sp], #32
    ldp q12, q13, [sp], #32
    ldp q10, q11, [sp], #32
    ldp q8, q9, [sp], #32
    fp_access 0, x2
5:  ldp x27, x28, [sp], #16
    ldp x25, x26, [sp], #16
    ldp x23, x24, [sp], #16
    ldp x21, x22, [sp], #16
    ldp x19, x20, [sp], #16
    ldp x29, x30, [sp], #16
    msr daif, x4
    ret
    .size _tx_thread_schedule, . - _tx_thread_schedule

/* ---- the board's vector code -------------------------------------------- */

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
    .type tx_irq_stub, %function
tx_irq_stub:
    msr spsel, #0
    stp x29, x30, [sp, #-16]!
    bl _tx_thread_context_save
    mov x0, sp
    bl tx_irq_handler
    b _tx_thread_context_restore
    .size tx_irq_stub, . - tx_irq_stub

/* A synchronous exception: context_save's frame shape pushed where it
 * happened (a thread's stack, or the system stack in an ISR), counting
 * nothing (_tx_thread_system_state stays the ISR depth the interrupt
 * frames are found by), unless a thread's stack has no room for it (then
 * on SP_EL1, its SP left in SP_EL0). */
    .type tx_sync_stub, %function
tx_sync_stub:
    stp x0, x1, [sp, #-16]!
    ldr x0, =_tx_thread_system_state
    ldr w0, [x0]
    cbnz w0, 1f
    ldr x1, =_tx_thread_current_ptr
    ldr x1, [x1]
    cbz x1, 1f
    ldr x1, [x1, #TX_STACK_START]
    mrs x0, sp_el0
    sub x0, x0, #MINIMAL
    cmp x0, x1
    b.lo 2f
1:  ldp x0, x1, [sp], #16
    msr spsel, #0
    stp x29, x30, [sp, #-16]!
    stp x0, x1, [sp, #-16]!
    stp x2, x3, [sp, #-16]!
    push_rest
    mov x0, sp
    bl tx_fault_handler
    pop_minimal
2:  ldp x0, x1, [sp], #16
    stp x29, x30, [sp, #-16]!
    stp x0, x1, [sp, #-16]!
    stp x2, x3, [sp, #-16]!
    push_rest
    mov x0, sp
    bl tx_overflow_fault
    b .
    .size tx_sync_stub, . - tx_sync_stub

    .type tx_bad_stub, %function
tx_bad_stub:
    bl tx_bad_vector
    b .
    .size tx_bad_stub, . - tx_bad_stub
    .cfi_endproc

.macro ventry, label
    .balign 0x80
    b \label
.endm

    .balign 2048
    .global a64_vectors
a64_vectors:
    ventry tx_sync_stub             /* current EL, SP_EL0: everything */
    ventry tx_irq_stub
    ventry tx_bad_stub
    ventry tx_bad_stub
    .rept 12
    ventry tx_bad_stub              /* SP_EL1 and lower ELs: none */
    .endr

    .section .note.GNU-stack, "", %progbits
