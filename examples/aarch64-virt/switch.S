/* SPDX-License-Identifier: MIT */
/*
 * switch.S -- aarch64-virt's context switch, and the first code of a new
 * thread.
 *
 *     void ex_switch(uint64_t *save, uint64_t next);
 *
 * Called with IRQs masked, from a thread (EL1t, on its SP_EL0 stack: it
 * blocks) or from the IRQ handler (EL1h, on the thread's own SP_EL1 stack:
 * it is preempted).  The context goes on the current stack, 0x70 bytes:
 *
 *     0x00 x19 .. 0x48 x28   0x50 x29   0x58 x30 (the resume PC)
 *     0x60 SPSel (0: EL1t, 1: EL1h)   0x68 the other mode's SP
 *
 * and its address into *save.  Resuming a context restores SPSel and both
 * stack pointers: this mode's is the context's address + 0x70 (the context
 * popped), the other's is the saved one.  An IRQ taken by a thread that
 * runs in EL1t then lands on that thread's own SP_EL1 stack, which is
 * where a preempted thread keeps its interrupt frames.  (MSR SP_EL0 is
 * only allowed with SPSel = 1, hence the order.)  thread.c describes the
 * context to sfu (ex_switch_layout); the code has no CFI: a walk never
 * meets it (it runs with IRQs masked, and a thread that is not running is
 * unwound from its context), and between its SPSel changes `sp` names
 * another register, which CFI cannot say: a fault in it stops its walk
 * with "no unwind info", never a guessed frame.
 */
#define CTX_SIZE 0x70

    .section .text.switch, "ax"
    .global ex_switch
    .type ex_switch, %function
ex_switch:
    sub sp, sp, #CTX_SIZE
    stp x19, x20, [sp, #0x00]
    stp x21, x22, [sp, #0x10]
    stp x23, x24, [sp, #0x20]
    stp x25, x26, [sp, #0x30]
    stp x27, x28, [sp, #0x40]
    stp x29, x30, [sp, #0x50]
    mrs x9, spsel
    cbz x9, 1f
    mrs x10, sp_el0                 /* EL1h: the other SP is SP_EL0 */
    b 2f
1:  msr spsel, #1                   /* EL1t: the other SP is SP_EL1 */
    mov x10, sp
    msr spsel, #0
2:  stp x9, x10, [sp, #0x60]
    mov x11, sp
    str x11, [x0]

    ldp x9, x10, [x1, #0x60]
    add x11, x1, #CTX_SIZE
    ldp x19, x20, [x1, #0x00]
    ldp x21, x22, [x1, #0x10]
    ldp x23, x24, [x1, #0x20]
    ldp x25, x26, [x1, #0x30]
    ldp x27, x28, [x1, #0x40]
    ldp x29, x30, [x1, #0x50]
    msr spsel, #1
    cbz x9, 3f
    mov sp, x11                     /* resume in EL1h */
    msr sp_el0, x10
    ret
3:  mov sp, x10                     /* resume in EL1t */
    msr sp_el0, x11
    msr spsel, #0
    ret
    .size ex_switch, . - ex_switch

/* A new thread's first context returns here with x19 = its entry, x20 =
 * its argument; IRQs and debug exceptions (the MMU-off guard watchpoint)
 * are unmasked and the entry is called, with x29 = 0 (its frame record
 * ends a frame-pointer walk).  Every thread's trace ends here: the CFI says
 * the return address is undefined (the outermost frame: GNU as 2.47 writes
 * it as SFrame V3's "RA undefined"; older assemblers write no marker, and
 * the dump's description names this function as an entry instead), and
 * gives the one row the walk needs at every instruction.  The entry never
 * returns; if it did, the UDF faults, and the fault's dump shows where. */
    .global ex_thread_start
    .type ex_thread_start, %function
ex_thread_start:
    .cfi_startproc
    .cfi_undefined x30
    mov x0, x20
    mov x29, xzr
    msr daifclr, #0xa
    blr x19
    udf #0
    .cfi_endproc
    .size ex_thread_start, . - ex_thread_start

    .section .note.GNU-stack, "", %progbits
