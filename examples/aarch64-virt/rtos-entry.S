/* SPDX-License-Identifier: MIT */
/*
 * rtos-entry.S -- EL1 exception entry for aarch64-virt written the way
 * small RTOS ports write it, not the way sfu would like it:
 *
 *   - every register of the interrupted task is saved on that task's own
 *     stack (SP_EL0), and the frame's address is stored in the current
 *     task control block (*rtos_ctx_slot, rtos.c): the "task context";
 *   - the handler runs on the one handler stack (SP_EL1), called without
 *     the frame's address in a register, and the context it returns to is
 *     whatever the TCB pointer says then: a switch is made inside the
 *     handler (the timer IRQ, and the yield trap `svc #0`);
 *   - no SP is saved: the interrupted SP is the frame's end;
 *   - a task with an FP context (rtos_fp_context) saves q0..q31 as well,
 *     and the frame says so in its first word: 0x120 or 0x320 bytes;
 *   - one shared entry per vector kind, several C calls, no labels;
 *   - the task SP is checked against the task's stack limit before
 *     anything is pushed on it: a task that overflowed gets its context
 *     saved on the handler stack instead (rtos_overflow_entry), with the
 *     task SP left in SP_EL0, and the fault is reported from there.
 *
 * The task context, lowest address first (G = 0x10, or 0x210 with FP):
 *
 *     0x000 flag (1: FP context follows)   0x008 spare
 *     0x010 q0 .. q31 (only with the flag)
 *     G+0x000 ELR_EL1   G+0x008 SPSR_EL1   G+0x010 x0 .. G+0x100 x30
 *     G+0x108 pad       G+0x110 end: the task's SP before the exception
 *
 * Nothing here knows about sfu: rtos-sfu.c describes it with four
 * struct sfu_trap_layout and this file stays as it is.
 */
#define GP_SIZE   0x110
#define FP_SIZE   0x200
#define HDR_SIZE  0x10
#define CTX_MAX   (HDR_SIZE + FP_SIZE + GP_SIZE)
#define CPACR_FPEN (3 << 20)

    .arch_extension simd

/* Push x0..x30, ELR and SPSR on the current SP (GP_SIZE bytes). */
.macro push_gp
    sub sp, sp, #GP_SIZE
    stp x0, x1, [sp, #0x10]
    stp x2, x3, [sp, #0x20]
    stp x4, x5, [sp, #0x30]
    stp x6, x7, [sp, #0x40]
    stp x8, x9, [sp, #0x50]
    stp x10, x11, [sp, #0x60]
    stp x12, x13, [sp, #0x70]
    stp x14, x15, [sp, #0x80]
    stp x16, x17, [sp, #0x90]
    stp x18, x19, [sp, #0xa0]
    stp x20, x21, [sp, #0xb0]
    stp x22, x23, [sp, #0xc0]
    stp x24, x25, [sp, #0xd0]
    stp x26, x27, [sp, #0xe0]
    stp x28, x29, [sp, #0xf0]
    str x30, [sp, #0x100]
    mrs x0, elr_el1
    mrs x1, spsr_el1
    stp x0, x1, [sp, #0x00]
.endm

/* Pop what push_gp pushed, ELR and SPSR back into the CPU. */
.macro pop_gp
    ldp x0, x1, [sp, #0x00]
    msr elr_el1, x0
    msr spsr_el1, x1
    ldp x2, x3, [sp, #0x20]
    ldp x4, x5, [sp, #0x30]
    ldp x6, x7, [sp, #0x40]
    ldp x8, x9, [sp, #0x50]
    ldp x10, x11, [sp, #0x60]
    ldp x12, x13, [sp, #0x70]
    ldp x14, x15, [sp, #0x80]
    ldp x16, x17, [sp, #0x90]
    ldp x18, x19, [sp, #0xa0]
    ldp x20, x21, [sp, #0xb0]
    ldp x22, x23, [sp, #0xc0]
    ldp x24, x25, [sp, #0xd0]
    ldp x26, x27, [sp, #0xe0]
    ldp x28, x29, [sp, #0xf0]
    ldr x30, [sp, #0x100]
    ldp x0, x1, [sp, #0x10]
    add sp, sp, #GP_SIZE
.endm

/* FP/SIMD access on or off (the board keeps it off: CPACR_EL1.FPEN). */
.macro fp_access on, tmp
    mrs \tmp, cpacr_el1
    .if \on
    orr \tmp, \tmp, #CPACR_FPEN
    .else
    bic \tmp, \tmp, #CPACR_FPEN
    .endif
    msr cpacr_el1, \tmp
    isb
.endm

/* The task context: check the task's SP, push everything on its stack,
 * store the frame's address in the current TCB, back to the handler
 * stack. */
.macro save_task_context
    stp x0, x1, [sp, #-16]!
    mrs x0, sp_el0
    ldr x1, =rtos_stack_limit
    ldr x1, [x1]
    add x1, x1, #CTX_MAX
    cmp x0, x1
    ldp x0, x1, [sp], #16
    b.lo rtos_overflow_entry
    msr spsel, #0
    push_gp
    ldr x0, =rtos_fp_context
    ldr x0, [x0]
    cbz x0, 1f
    fp_access 1, x1
    sub sp, sp, #FP_SIZE
    stp q0, q1, [sp, #0x000]
    stp q2, q3, [sp, #0x020]
    stp q4, q5, [sp, #0x040]
    stp q6, q7, [sp, #0x060]
    stp q8, q9, [sp, #0x080]
    stp q10, q11, [sp, #0x0a0]
    stp q12, q13, [sp, #0x0c0]
    stp q14, q15, [sp, #0x0e0]
    stp q16, q17, [sp, #0x100]
    stp q18, q19, [sp, #0x120]
    stp q20, q21, [sp, #0x140]
    stp q22, q23, [sp, #0x160]
    stp q24, q25, [sp, #0x180]
    stp q26, q27, [sp, #0x1a0]
    stp q28, q29, [sp, #0x1c0]
    stp q30, q31, [sp, #0x1e0]
    fp_access 0, x1
1:  stp x0, xzr, [sp, #-HDR_SIZE]!
    mov x0, sp
    ldr x1, =rtos_ctx_slot
    ldr x1, [x1]
    str x0, [x1]
    msr spsel, #1
.endm

    /* Every task traps onto the one handler stack (link.ld). */
    .global rtos_shared_handler_stack
    .set rtos_shared_handler_stack, 1

    .section .entry.text, "ax"

/* The vector table: one branch per entry to the shared entry code. */
.macro ventry, label
    .balign 0x80
    b \label
.endm

    .balign 2048
    .global a64_vectors
a64_vectors:
    ventry rtos_task_sync           /* current EL, SP_EL0: the tasks */
    ventry rtos_task_irq
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_handler_sync        /* current EL, SP_EL1: a handler */
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry           /* lower EL: no EL0 code exists */
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry
    ventry rtos_bad_entry

/* A task's synchronous exception: the yield trap (SVC) switches, anything
 * else is a fault for the C handler (which may return: probes). */
    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
    .type rtos_task_sync, %function
rtos_task_sync:
    .cfi_startproc
    .cfi_undefined x30
    save_task_context
    mrs x0, esr_el1
    lsr x0, x0, #26
    cmp x0, #0x15                   /* EC: SVC from AArch64 */
    b.ne 1f
    bl rtos_yield
    b rtos_restore
1:  bl rtos_fault
    b rtos_restore
    .size rtos_task_sync, . - rtos_task_sync

/* A task's IRQ: the C handler may switch tasks. */
    .type rtos_task_irq, %function
rtos_task_irq:
    save_task_context
    bl rtos_irq
    b rtos_restore
    .size rtos_task_irq, . - rtos_task_irq

/* Resume the task the current TCB names, from its saved context. */
    .type rtos_restore, %function
rtos_restore:
    ldr x1, =rtos_ctx_slot
    ldr x1, [x1]
    ldr x0, [x1]
    msr spsel, #0
    mov sp, x0
    ldp x0, x1, [sp], #HDR_SIZE
    ldr x1, =rtos_fp_context
    str x0, [x1]
    cbz x0, 1f
    fp_access 1, x1
    ldp q0, q1, [sp, #0x000]
    ldp q2, q3, [sp, #0x020]
    ldp q4, q5, [sp, #0x040]
    ldp q6, q7, [sp, #0x060]
    ldp q8, q9, [sp, #0x080]
    ldp q10, q11, [sp, #0x0a0]
    ldp q12, q13, [sp, #0x0c0]
    ldp q14, q15, [sp, #0x0e0]
    ldp q16, q17, [sp, #0x100]
    ldp q18, q19, [sp, #0x120]
    ldp q20, q21, [sp, #0x140]
    ldp q22, q23, [sp, #0x160]
    ldp q24, q25, [sp, #0x180]
    ldp q26, q27, [sp, #0x1a0]
    ldp q28, q29, [sp, #0x1c0]
    ldp q30, q31, [sp, #0x1e0]
    add sp, sp, #FP_SIZE
    fp_access 0, x1
1:  pop_gp
    eret
    .size rtos_restore, . - rtos_restore

/* A task whose SP is too low for its context: saved on the handler stack
 * (no FP part), its SP left in SP_EL0; the C handler reports it. */
    .type rtos_overflow_entry, %function
rtos_overflow_entry:
    push_gp
    stp xzr, xzr, [sp, #-HDR_SIZE]!
    mov x0, sp
    bl rtos_stack_overflow
    b .
    .size rtos_overflow_entry, . - rtos_overflow_entry

/* A synchronous exception in a handler: saved on the handler stack, the
 * interrupted SP is the frame's end. */
    .type rtos_handler_sync, %function
rtos_handler_sync:
    push_gp
    stp xzr, xzr, [sp, #-HDR_SIZE]!
    mov x0, sp
    bl rtos_handler_fault
    ldp x0, x1, [sp], #HDR_SIZE
    pop_gp
    eret
    .size rtos_handler_sync, . - rtos_handler_sync

/* FIQ, SError, lower ELs: a bug here. */
    .type rtos_bad_entry, %function
rtos_bad_entry:
    bl rtos_bad_vector
    b .
    .size rtos_bad_entry, . - rtos_bad_entry
    .cfi_endproc

    .section .note.GNU-stack, "", %progbits
