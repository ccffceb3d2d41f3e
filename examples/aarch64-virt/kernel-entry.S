/* SPDX-License-Identifier: MIT */
/*
 * kernel-entry.S -- EL1 exception entry for aarch64-virt, written the way
 * small kernels commonly write it rather than the way sfu's port would
 * like it: the kernel's own frame, struct pt_regs (kernel-trap.c):
 *
 *     0x000 pc (ELR_EL1)   0x008 pstate (SPSR_EL1)   0x010 x0 .. x30
 *     0x108 sp (the interrupted SP)   0x110 esr   0x118 far   0x120 size
 *
 * and one `bl` into a C handler in each of the 16 vector entries' handler
 * stubs.  Nothing here knows about sfu: kernel-trap.c describes this code
 * to sfu's port with a struct sfu_trap_layout (the .entry.text range that
 * link.ld brackets with __entry_text_start/__entry_text_end, the frame at
 * SP, the field offsets), and this file stays as it is.
 */
#define S_PC          0x000
#define S_PSTATE      0x008
#define S_X0          0x010
#define S_SP          0x108
#define S_ESR         0x110
#define S_FAR         0x118
#define S_FRAME_SIZE  0x120

/* Save everything; \sp0 = 1 when the exception came from code running on
 * SP_EL0 (EL1t threads, EL0), whose SP is then SP_EL0. */
.macro kernel_entry, sp0
    sub sp, sp, #S_FRAME_SIZE
    stp x0, x1, [sp, #S_X0 + 16 * 0]
    stp x2, x3, [sp, #S_X0 + 16 * 1]
    stp x4, x5, [sp, #S_X0 + 16 * 2]
    stp x6, x7, [sp, #S_X0 + 16 * 3]
    stp x8, x9, [sp, #S_X0 + 16 * 4]
    stp x10, x11, [sp, #S_X0 + 16 * 5]
    stp x12, x13, [sp, #S_X0 + 16 * 6]
    stp x14, x15, [sp, #S_X0 + 16 * 7]
    stp x16, x17, [sp, #S_X0 + 16 * 8]
    stp x18, x19, [sp, #S_X0 + 16 * 9]
    stp x20, x21, [sp, #S_X0 + 16 * 10]
    stp x22, x23, [sp, #S_X0 + 16 * 11]
    stp x24, x25, [sp, #S_X0 + 16 * 12]
    stp x26, x27, [sp, #S_X0 + 16 * 13]
    stp x28, x29, [sp, #S_X0 + 16 * 14]
    .if \sp0
    mrs x21, sp_el0
    .else
    add x21, sp, #S_FRAME_SIZE
    .endif
    stp x30, x21, [sp, #S_X0 + 16 * 15]
    mrs x22, elr_el1
    mrs x23, spsr_el1
    stp x22, x23, [sp, #S_PC]
    mrs x24, esr_el1
    mrs x25, far_el1
    stp x24, x25, [sp, #S_ESR]
.endm

/* Restore (the handler may have changed pc and pstate) and return. */
.macro kernel_exit
    ldp x22, x23, [sp, #S_PC]
    msr elr_el1, x22
    msr spsr_el1, x23
    ldp x0, x1, [sp, #S_X0 + 16 * 0]
    ldp x2, x3, [sp, #S_X0 + 16 * 1]
    ldp x4, x5, [sp, #S_X0 + 16 * 2]
    ldp x6, x7, [sp, #S_X0 + 16 * 3]
    ldp x8, x9, [sp, #S_X0 + 16 * 4]
    ldp x10, x11, [sp, #S_X0 + 16 * 5]
    ldp x12, x13, [sp, #S_X0 + 16 * 6]
    ldp x14, x15, [sp, #S_X0 + 16 * 7]
    ldp x16, x17, [sp, #S_X0 + 16 * 8]
    ldp x18, x19, [sp, #S_X0 + 16 * 9]
    ldp x20, x21, [sp, #S_X0 + 16 * 10]
    ldp x22, x23, [sp, #S_X0 + 16 * 11]
    ldp x24, x25, [sp, #S_X0 + 16 * 12]
    ldp x26, x27, [sp, #S_X0 + 16 * 13]
    ldp x28, x29, [sp, #S_X0 + 16 * 14]
    ldr x30, [sp, #S_X0 + 16 * 15]
    add sp, sp, #S_FRAME_SIZE
    eret
.endm

/* A vector entry: 32 instructions of room, one branch to its stub. */
.macro ventry, label
    .balign 0x80
    b \label
.endm

/* A handler stub: save, call \handler(regs, \reason), restore. */
.macro handler_stub, label, handler, reason, sp0
    .type \label, %function
\label:
    kernel_entry \sp0
    mov x0, sp
    mov x1, #\reason
    bl \handler
    kernel_exit
    .size \label, . - \label
.endm

    .section .entry.text, "ax"
    .balign 2048
    .global a64_vectors
a64_vectors:
    ventry el1t_sync                /* current EL, SP_EL0: the threads */
    ventry el1t_irq
    ventry el1t_fiq
    ventry el1t_error
    ventry el1h_sync                /* current EL, SP_EL1: boot, handlers */
    ventry el1h_irq
    ventry el1h_fiq
    ventry el1h_error
    ventry el0_sync                 /* lower EL, AArch64 */
    ventry el0_irq
    ventry el0_fiq
    ventry el0_error
    ventry el0_32_sync              /* lower EL, AArch32 */
    ventry el0_32_irq
    ventry el0_32_fiq
    ventry el0_32_error

    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (board.mk: nosframe): sfu crosses this code through its
     * trap layout, never through an SFrame row. */
    .cfi_sections .debug_frame
    /* The reasons are the vector's number, as bad_mode() prints it. */
    .cfi_startproc
    .cfi_undefined x30
    handler_stub el1t_sync, el1_sync_handler, 0, 1
    handler_stub el1t_irq, el1_irq_handler, 1, 1
    handler_stub el1t_fiq, bad_mode, 2, 1
    handler_stub el1t_error, bad_mode, 3, 1
    handler_stub el1h_sync, el1_sync_handler, 4, 0
    handler_stub el1h_irq, el1_irq_handler, 5, 0
    handler_stub el1h_fiq, bad_mode, 6, 0
    handler_stub el1h_error, bad_mode, 7, 0
    handler_stub el0_sync, el0_sync_handler, 8, 1
    handler_stub el0_irq, el1_irq_handler, 9, 1
    handler_stub el0_fiq, bad_mode, 10, 1
    handler_stub el0_error, bad_mode, 11, 1
    handler_stub el0_32_sync, bad_mode, 12, 1
    handler_stub el0_32_irq, bad_mode, 13, 1
    handler_stub el0_32_fiq, bad_mode, 14, 1
    handler_stub el0_32_error, bad_mode, 15, 1
    .cfi_endproc

    .section .note.GNU-stack, "", %progbits
