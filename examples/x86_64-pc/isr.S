/* SPDX-License-Identifier: MIT */
/*
 * isr.S -- IDT entry stubs for x86_64-pc.
 *
 * Vectors 0-31 (exceptions) and 32-47 (the two 8259 PICs, remapped).
 * Every stub pushes an error code where the CPU does not (so the frame has
 * one shape), then the vector number, and joins isr_common, which saves
 * the rest of struct x86_trap_frame (offsets in trap_frame.h)
 * and calls
 *
 *     void x86_trap(struct x86_trap_frame *tf);
 *
 * with RSP == tf, from the one call site labelled x86_trap_ret.
 *
 * Alignment: in 64-bit mode the CPU aligns RSP to 16 before pushing its
 * 5-word frame (SDM Vol. 3A, "64-Bit Mode Stack Frame"); with the error
 * code and the vector that is 7 words, and isr_common's 0x98 bytes make
 * 0xd0, a multiple of 16, so the call happens with RSP 16-aligned as the
 * psABI requires, and RSP is the frame address.
 */
#include "trap_frame.h"
#include "stubs.inc"
#define TF_DWARF_RSP X86_TF_DWARF_RSP
#define TF_DWARF_RIP X86_TF_DWARF_RIP
#define TF_CR2       X86_TF_CR2
#define TF_PAD       X86_TF_PAD
#define TF_VECTOR    X86_TF_VECTOR
#define TF_IRET_RIP  X86_TF_RIP
#define TF_IRET_RSP  X86_TF_RSP

    .section .text.isr, "ax"

.macro ISR n
    .balign 16
isr_\n:
    PUSH_ERROR_CODE \n
    push $\n
    jmp isr_common
.endm

    ALL_ISRS

    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
isr_common:
    .cfi_startproc
    .cfi_undefined rip
    sub $TF_VECTOR, %rsp
    mov %rax, 0x00(%rsp)
    mov %rdx, 0x08(%rsp)
    mov %rcx, 0x10(%rsp)
    mov %rbx, 0x18(%rsp)
    mov %rsi, 0x20(%rsp)
    mov %rdi, 0x28(%rsp)
    mov %rbp, 0x30(%rsp)
    mov %r8, 0x40(%rsp)
    mov %r9, 0x48(%rsp)
    mov %r10, 0x50(%rsp)
    mov %r11, 0x58(%rsp)
    mov %r12, 0x60(%rsp)
    mov %r13, 0x68(%rsp)
    mov %r14, 0x70(%rsp)
    mov %r15, 0x78(%rsp)
    /* Copies of the CPU-pushed RSP and RIP at their DWARF positions. */
    mov TF_IRET_RSP(%rsp), %rax
    mov %rax, TF_DWARF_RSP(%rsp)
    mov TF_IRET_RIP(%rsp), %rax
    mov %rax, TF_DWARF_RIP(%rsp)
    mov %cr2, %rax
    mov %rax, TF_CR2(%rsp)
    movq $0, TF_PAD(%rsp)
    cld                             /* the psABI wants DF clear at calls */
    mov %rsp, %rdi
    call x86_trap
    .global x86_trap_ret
x86_trap_ret:
    mov 0x00(%rsp), %rax
    mov 0x08(%rsp), %rdx
    mov 0x10(%rsp), %rcx
    mov 0x18(%rsp), %rbx
    mov 0x20(%rsp), %rsi
    mov 0x28(%rsp), %rdi
    mov 0x30(%rsp), %rbp
    mov 0x40(%rsp), %r8
    mov 0x48(%rsp), %r9
    mov 0x50(%rsp), %r10
    mov 0x58(%rsp), %r11
    mov 0x60(%rsp), %r12
    mov 0x68(%rsp), %r13
    mov 0x70(%rsp), %r14
    mov 0x78(%rsp), %r15
    add $(TF_VECTOR + 16), %rsp     /* down to the CPU frame */
    iretq
    .cfi_endproc

/* Stub addresses for board.c, indexed by vector. */
    ISR_TABLE isr_

    .section .note.GNU-stack, "", @progbits
