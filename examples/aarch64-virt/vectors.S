/* SPDX-License-Identifier: MIT */
/*
 * vectors.S -- EL1 exception vectors for aarch64-virt.
 *
 * Every entry saves a full trap frame (struct a64_trap_frame,
 * offsets in port/aarch64/trap_frame.h) on SP_EL1 and calls
 *
 *     void a64_trap(struct a64_trap_frame *tf, unsigned kind);
 *
 * with SP == tf, from the single call site labelled a64_trap_ret
 * (the port's trap hook recognises it).  kind = group * 4 + type, in the
 * order of the table (ARM ARM, "Exception vectors"): group 0 current EL
 * with SP_EL0, 1 current EL with SP_ELx, 2 lower EL AArch64, 3 lower EL
 * AArch32; type 0 synchronous, 1 IRQ, 2 FIQ, 3 SError.
 *
 * The handler may change tf->elr and tf->spsr (and any x register); they
 * are written back before the ERET.  tf->sp is not written back.
 */
#include "trap_frame.h"
#define TF_SIZE A64_TF_SIZE
#define TF_SP   A64_TF_SP
#define TF_ELR  A64_TF_ELR
#define TF_ESR  A64_TF_ESR

/* 32 instructions per entry; the interrupted SP is SP_EL0 for group 0
 * (and for lower ELs), else SP_EL1 as it was before the frame was pushed. */
.macro VENTRY kind
    .balign 0x80
    sub sp, sp, #TF_SIZE
    stp x0, x1, [sp, #0]
    .if ((\kind) < 4) || ((\kind) >= 8)
    mrs x1, sp_el0
    .else
    add x1, sp, #TF_SIZE
    .endif
    mov x0, #(\kind)
    b trap_common
.endm

    .section .text.vectors, "ax"
    .balign 2048
    .global a64_vectors
a64_vectors:
    VENTRY 0
    VENTRY 1
    VENTRY 2
    VENTRY 3
    VENTRY 4
    VENTRY 5
    VENTRY 6
    VENTRY 7
    VENTRY 8
    VENTRY 9
    VENTRY 10
    VENTRY 11
    VENTRY 12
    VENTRY 13
    VENTRY 14
    VENTRY 15

    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
    .type trap_common, %function
trap_common:
    .cfi_startproc
    .cfi_undefined x30
    stp x2, x3, [sp, #0x10]
    stp x4, x5, [sp, #0x20]
    stp x6, x7, [sp, #0x30]
    stp x8, x9, [sp, #0x40]
    stp x10, x11, [sp, #0x50]
    stp x12, x13, [sp, #0x60]
    stp x14, x15, [sp, #0x70]
    stp x16, x17, [sp, #0x80]
    stp x18, x19, [sp, #0x90]
    stp x20, x21, [sp, #0xa0]
    stp x22, x23, [sp, #0xb0]
    stp x24, x25, [sp, #0xc0]
    stp x26, x27, [sp, #0xd0]
    stp x28, x29, [sp, #0xe0]
    stp x30, x1, [sp, #0xf0]        /* x30, then sp at TF_SP */
    mrs x2, elr_el1
    mrs x3, spsr_el1
    stp x2, x3, [sp, #TF_ELR]
    mrs x2, esr_el1
    mrs x3, far_el1
    stp x2, x3, [sp, #TF_ESR]
    mov x1, x0
    mov x0, sp
    bl a64_trap
    .global a64_trap_ret
a64_trap_ret:
    ldp x2, x3, [sp, #TF_ELR]
    msr elr_el1, x2
    msr spsr_el1, x3
    ldp x0, x1, [sp, #0x00]
    ldp x2, x3, [sp, #0x10]
    ldp x4, x5, [sp, #0x20]
    ldp x6, x7, [sp, #0x30]
    ldp x8, x9, [sp, #0x40]
    ldp x10, x11, [sp, #0x50]
    ldp x12, x13, [sp, #0x60]
    ldp x14, x15, [sp, #0x70]
    ldp x16, x17, [sp, #0x80]
    ldp x18, x19, [sp, #0x90]
    ldp x20, x21, [sp, #0xa0]
    ldp x22, x23, [sp, #0xb0]
    ldp x24, x25, [sp, #0xc0]
    ldp x26, x27, [sp, #0xd0]
    ldp x28, x29, [sp, #0xe0]
    ldr x30, [sp, #0xf0]
    add sp, sp, #TF_SIZE
    eret
    .size trap_common, . - trap_common
    .cfi_endproc

    .section .note.GNU-stack, "", %progbits
