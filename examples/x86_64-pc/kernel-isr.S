/* SPDX-License-Identifier: MIT */
/*
 * kernel-isr.S -- IDT stubs for x86_64-pc, written the way small kernels
 * commonly write them rather than the way sfu's port would like them: one
 * stub per vector that pushes an error code where the CPU does not, the
 * vector number and the general registers (rax first), then calls the C
 * dispatcher itself, with its frame, struct regs (kernel-trap.c), lowest
 * address first:
 *
 *     r15 r14 r13 r12 r11 r10 r9 r8 rbp rdi rsi rdx rcx rbx rax
 *     int_no err_code  rip cs rflags rsp ss (the CPU's)
 *
 * 48 stubs, 48 calls.  Nothing here knows about sfu: kernel-trap.c
 * describes this code to sfu's port with a struct sfu_trap_layout (the
 * .entry.text range link.ld brackets with __entry_text_start/_end, the
 * frame at RSP, the field offsets), and this file stays as it is.
 *
 * The CPU aligns RSP to 16 before pushing its frame (SDM Vol. 3A, "64-Bit
 * Mode Stack Frame"); with the error code and the vector that is 7 words,
 * the 15 registers make 22: the call happens with RSP 16-aligned.
 */
.macro PUSH_REGS
    push %rax
    push %rbx
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %rbp
    push %r8
    push %r9
    push %r10
    push %r11
    push %r12
    push %r13
    push %r14
    push %r15
.endm

.macro POP_REGS
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rbp
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rbx
    pop %rax
.endm

/* Vectors where the CPU pushes an error code (SDM Vol. 3A, "Exception
 * and Interrupt Reference"): 8, 10-14, 17, 21, 29, 30. */
.macro ISR n
    .balign 16
.Lisr\n:
    .if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21) || (\n == 29) || (\n == 30)
    .else
    push $0
    .endif
    push $\n
    PUSH_REGS
    cld
    mov %rsp, %rdi
    call interrupt_handler
    POP_REGS
    add $16, %rsp                   /* vector and error code */
    iretq
.endm

    .section .entry.text, "ax"
    .global isr_stubs
    .type isr_stubs, @function
isr_stubs:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    ISR \n
    .endr
    .irp n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
    ISR \n
    .endr
    .size isr_stubs, . - isr_stubs

/* Stub addresses for the board's IDT set-up, indexed by vector. */
    .section .rodata
    .balign 8
    .global x86_isr_table
x86_isr_table:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .quad .Lisr\n
    .endr
    .irp n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
    .quad .Lisr\n
    .endr

    .section .note.GNU-stack, "", @progbits
