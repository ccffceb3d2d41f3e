/* SPDX-License-Identifier: MIT */
/*
 * switch.S -- x86_64-pc's context switch, and the first code of a new
 * thread.
 *
 *     void ex_switch(uint64_t *save, uint64_t next);
 *
 * Called with interrupts off, from a thread (it blocks) or from the IRQ
 * handler, which runs on the interrupted thread's own stack (IRQs use no
 * IST): it is preempted.  Pushes the callee-saved registers on the current
 * stack, over the return address the call pushed:
 *
 *     +0x00 r15  +0x08 r14  +0x10 r13  +0x18 r12  +0x20 rbx  +0x28 rbp
 *     +0x30 the return address (the resume PC); the thread resumes with
 *     RSP = context + 0x38
 *
 * stores RSP (the context's address) into *save, then pops next's.
 * thread.c describes the context to sfu (ex_switch_layout), which a walk
 * of a thread that is not running starts from.  The CFI describes the
 * code itself, for a walk that meets it (a fault in it): the pushes move
 * the CFA, and both stacks hold the same context shape, so the rule CFA =
 * RSP + 56 holds across `mov %rsi, %rsp` too, on the next thread's stack.
 */
    .section .text.switch, "ax"
    .global ex_switch
    .type ex_switch, @function
ex_switch:
    .cfi_startproc
    push %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    push %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    push %r12
    .cfi_adjust_cfa_offset 8
    push %r13
    .cfi_adjust_cfa_offset 8
    push %r14
    .cfi_adjust_cfa_offset 8
    push %r15
    .cfi_adjust_cfa_offset 8
    mov %rsp, (%rdi)
    mov %rsi, %rsp
    pop %r15
    .cfi_adjust_cfa_offset -8
    pop %r14
    .cfi_adjust_cfa_offset -8
    pop %r13
    .cfi_adjust_cfa_offset -8
    pop %r12
    .cfi_adjust_cfa_offset -8
    pop %rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    pop %rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    ret
    .cfi_endproc
    .size ex_switch, . - ex_switch

/* A new thread's first context returns here with r12 = its entry, r13 =
 * its argument, RSP = the stack top; interrupts on (STI takes effect after
 * the next instruction) and the entry called with RBP = 0 (RSP + 8
 * 16-aligned at its first instruction, as the ABI wants).  Every thread's
 * trace ends here: the CFI says the return address is undefined (the
 * outermost frame: GNU as 2.47 writes it as SFrame V3's "RA undefined";
 * older assemblers write no marker, and the dump's description names this
 * function as an entry instead).  The entry never returns; if it did, the
 * UD2 faults, and the fault's dump shows where. */
    .global ex_thread_start
    .type ex_thread_start, @function
ex_thread_start:
    .cfi_startproc
    .cfi_undefined rip
    mov %r13, %rdi
    xor %ebp, %ebp
    sti
    call *%r12
    ud2
    .cfi_endproc
    .size ex_thread_start, . - ex_thread_start

    .section .note.GNU-stack, "", @progbits
