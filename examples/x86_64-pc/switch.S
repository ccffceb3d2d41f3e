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
 * thread.c describes the context to sfu (ex_switch_layout); the code has
 * no CFI: a thread that is not running is unwound from its context.
 */
    .section .text.switch, "ax"
    .global ex_switch
    .type ex_switch, @function
ex_switch:
    push %rbp
    push %rbx
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsp, (%rdi)
    mov %rsi, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbx
    pop %rbp
    ret
    .size ex_switch, . - ex_switch

/* A new thread's first context returns here with r12 = its entry, r13 =
 * its argument, RSP = the stack top: RBP = 0 and a zero return address
 * pushed under the entry function mark it outermost (RSP + 8 stays
 * 16-aligned, as at a call); then interrupts on (STI takes effect after
 * the jump). */
    .global ex_thread_start
    .type ex_thread_start, @function
ex_thread_start:
    mov %r13, %rdi
    xor %ebp, %ebp
    push $0
    sti
    jmp *%r12
    .size ex_thread_start, . - ex_thread_start

    .section .note.GNU-stack, "", @progbits
