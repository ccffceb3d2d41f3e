/* SPDX-License-Identifier: MIT */
/*
 * rtos-isr.S -- IDT stubs for x86_64-pc written the way small RTOS and
 * hobby-kernel ports write them, not the way sfu would like them:
 *
 *   - an interrupt (and the yield trap, `int $46`) saves every register
 *     of the interrupted task on the task's own stack (the CPU's frame,
 *     then the stub's), stores the frame's address in the current task
 *     control block (*rtos_ctx_slot, rtos.c), calls C, and returns through
 *     whatever frame the TCB pointer names then: a switch is the return of
 *     another task's interrupt frame, made inside the handler;
 *   - a task with an FP context (rtos_fp_context) saves its FXSAVE image
 *     too, and the frame says so in its first word: 0xc0 or 0x2c0 bytes;
 *   - exceptions (vectors 0-31) arrive on the board's IST stack (the
 *     board's IDT): the same frame, at the SP of the call into rtos_fault;
 *   - one shared entry, two C calls, no labels.
 *
 * The frame, lowest address first (G = 0x10, or 0x210 with FP):
 *
 *     0x000 flag (1: FXSAVE image follows)   0x008 spare
 *     0x010 the FXSAVE image, 512 bytes (only with the flag)
 *     G+0x00 r15 r14 r13 r12 r11 r10 r9 r8 rbp rdi rsi rdx rcx rbx rax
 *     G+0x78 vector   G+0x80 error code
 *     G+0x88 rip cs rflags rsp ss (the CPU's)      G+0xb0 end
 *
 * The CPU aligns RSP to 16 before it pushes (SDM Vol. 3A, "64-Bit Mode
 * Stack Frame"); 7 + 15 + 2 words keep the frame 16-aligned, as FXSAVE
 * needs.  Nothing here knows about sfu: rtos-sfu.c describes it.
 */
#define GP_OFF 0x10
#define FP_SIZE 0x200

#include "stubs.inc"

.macro ISR n
    .balign 16
.Lisr\n:
    PUSH_ERROR_CODE \n
    push $\n
    jmp rtos_isr_common
.endm

    .section .entry.text, "ax"
    .global rtos_isr_stubs
    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
    .type rtos_isr_stubs, @function
rtos_isr_stubs:
    .cfi_startproc
    .cfi_undefined rip
    ALL_ISRS
    .size rtos_isr_stubs, . - rtos_isr_stubs

    .type rtos_isr_common, @function
rtos_isr_common:
    PUSH_REGS
    cld
    cmpq $32, 15 * 8(%rsp)          /* the vector */
    jae 2f
    /* An exception, on the IST stack: no task context. */
    sub $GP_OFF, %rsp
    movq $0, (%rsp)
    mov %rsp, %rdi
    call rtos_fault
    add $GP_OFF, %rsp
    jmp 4f
    /* An interrupt or the yield trap: the task context. */
2:  cmpq $0, rtos_fp_context(%rip)
    je 3f
    sub $FP_SIZE, %rsp
    fxsave64 (%rsp)
3:  sub $GP_OFF, %rsp
    mov rtos_fp_context(%rip), %rax
    mov %rax, (%rsp)
    mov rtos_ctx_slot(%rip), %rax
    mov %rsp, (%rax)
    call rtos_irq
    /* Return through the frame the current TCB names. */
    mov rtos_ctx_slot(%rip), %rax
    mov (%rax), %rsp
    pop %rax
    add $8, %rsp
    mov %rax, rtos_fp_context(%rip)
    test %rax, %rax
    jz 4f
    fxrstor64 (%rsp)
    add $FP_SIZE, %rsp
4:  POP_REGS
    add $16, %rsp                   /* vector and error code */
    iretq
    .size rtos_isr_common, . - rtos_isr_common
    .cfi_endproc

/* Stub addresses for the board's IDT set-up, indexed by vector. */
    ISR_TABLE .Lisr

    .section .note.GNU-stack, "", @progbits
