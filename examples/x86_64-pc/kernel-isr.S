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
#include "stubs.inc"

.macro ISR n
    .balign 16
.Lisr\n:
    PUSH_ERROR_CODE \n
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
    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
    .type isr_stubs, @function
isr_stubs:
    .cfi_startproc
    .cfi_undefined rip
    ALL_ISRS
    .size isr_stubs, . - isr_stubs
    .cfi_endproc

/* Stub addresses for the board's IDT set-up, indexed by vector. */
    ISR_TABLE .Lisr

    .section .note.GNU-stack, "", @progbits
