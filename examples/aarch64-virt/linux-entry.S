/* SPDX-License-Identifier: MIT */
/*
 * linux-entry.S -- exception entry and the context switch of a kernel
 * shaped as arm64 Linux (arch/arm64/kernel/entry.S, ~5.x/6.x) and the
 * teaching kernels that copy it, written here: nothing here is for sfu,
 * and linux-sfu.c describes it with rtos/sfu_linux.h.
 *
 *   kernel_entry   struct pt_regs (linux/sched.h) pushed on the current
 *                  SP_EL1: x0..x29 at 16 * k, (x30, the aborted SP) at 240,
 *                  (ELR, SPSR) at 256; the aborted SP is sp + the frame
 *                  (an entry from EL1h: a task on its kernel stack, or a
 *                  handler) or SP_EL0 (from EL1t: the boot code, which runs
 *                  there until the scheduler starts); one `bl` per stub
 *   el1h_sync      first checks that the task's kernel stack can take the
 *                  frame (Linux's VMAP_STACK check in kernel_ventry): if
 *                  not, pt_regs goes on the overflow stack and
 *                  handle_bad_stack reports it
 *
 * cpu_switch_to and ret_from_fork, which Linux keeps in entry.S too, are
 * in linux-switch.S: this file's CFI is a debugger's only (.debug_frame,
 * assembled without --gsframe), ret_from_fork's is sfu's as well.
 */
#define S_X30         240
#define S_SP          248
#define S_PC          256
#define S_FRAME_SIZE  272

/* how: 0 from EL1h (sp + the frame), 1 from EL1t (SP_EL0), 2 the SP kept
 * in TPIDR_EL0 (the overflow path). */
.macro kernel_entry, how
    sub sp, sp, #S_FRAME_SIZE
    stp x0, x1, [sp, #16 * 0]
    stp x2, x3, [sp, #16 * 1]
    stp x4, x5, [sp, #16 * 2]
    stp x6, x7, [sp, #16 * 3]
    stp x8, x9, [sp, #16 * 4]
    stp x10, x11, [sp, #16 * 5]
    stp x12, x13, [sp, #16 * 6]
    stp x14, x15, [sp, #16 * 7]
    stp x16, x17, [sp, #16 * 8]
    stp x18, x19, [sp, #16 * 9]
    stp x20, x21, [sp, #16 * 10]
    stp x22, x23, [sp, #16 * 11]
    stp x24, x25, [sp, #16 * 12]
    stp x26, x27, [sp, #16 * 13]
    stp x28, x29, [sp, #16 * 14]
    .if \how == 0
    add x21, sp, #S_FRAME_SIZE
    .elseif \how == 1
    mrs x21, sp_el0
    .else
    mrs x21, tpidr_el0
    .endif
    stp x30, x21, [sp, #S_X30]
    mrs x22, elr_el1
    mrs x23, spsr_el1
    stp x22, x23, [sp, #S_PC]
.endm

.macro kernel_exit
    ldp x22, x23, [sp, #S_PC]
    msr elr_el1, x22
    msr spsr_el1, x23
    ldp x0, x1, [sp, #16 * 0]
    ldp x2, x3, [sp, #16 * 1]
    ldp x4, x5, [sp, #16 * 2]
    ldp x6, x7, [sp, #16 * 3]
    ldp x8, x9, [sp, #16 * 4]
    ldp x10, x11, [sp, #16 * 5]
    ldp x12, x13, [sp, #16 * 6]
    ldp x14, x15, [sp, #16 * 7]
    ldp x16, x17, [sp, #16 * 8]
    ldp x18, x19, [sp, #16 * 9]
    ldp x20, x21, [sp, #16 * 10]
    ldp x22, x23, [sp, #16 * 11]
    ldp x24, x25, [sp, #16 * 12]
    ldp x26, x27, [sp, #16 * 13]
    ldp x28, x29, [sp, #16 * 14]
    ldr x30, [sp, #S_X30]
    add sp, sp, #S_FRAME_SIZE
    eret
.endm

.macro stub, label, how, handler
    .type \label, %function
\label:
    kernel_entry \how
    mov x0, sp
    bl \handler
    kernel_exit
    .size \label, . - \label
.endm

.macro ventry, label
    .balign 0x80
    b \label
.endm

    .section .entry.text, "ax"
    .balign 2048
    .global a64_vectors
a64_vectors:
    ventry el1t_sync                /* current EL, SP_EL0: the boot code */
    ventry el1t_irq
    ventry bad_vector
    ventry bad_vector
    ventry el1h_sync_check          /* current EL, SP_EL1: tasks, handlers */
    ventry el1h_irq
    ventry bad_vector
    ventry bad_vector
    .rept 8
    ventry bad_vector               /* lower EL: no EL0 code exists */
    .endr

    /* For a debugger only: this code's CFI says the return address is
     * undefined, so gdb's backtrace of a crash record's core (tools/
     * sfu-crash) ends at the vector code's frame, where the record's
     * block of the handler ends; the interrupted code is the next block.
     * Debug info only (.debug_frame), and this file is assembled without
     * --gsframe (build.mk: EX_NOSFRAME): sfu crosses this code through
     * its trap layouts, never through an SFrame row. */
    .cfi_sections .debug_frame
    .cfi_startproc
    .cfi_undefined x30
    stub el1t_sync, 1, linux_el1_sync
    stub el1t_irq, 1, linux_el1_irq
    stub el1h_sync, 0, linux_el1_sync
    stub el1h_irq, 0, linux_el1_irq

/* Room for pt_regs on the kernel stack below SP (linux_stack_lo: the
 * running task's stack base), else the overflow stack. */
    .type el1h_sync_check, %function
el1h_sync_check:
    msr tpidr_el1, x0
    msr tpidr_el0, x1
    mov x0, sp
    sub x0, x0, #S_FRAME_SIZE
    adrp x1, linux_stack_lo
    ldr x1, [x1, :lo12:linux_stack_lo]
    cmp x0, x1
    mrs x0, tpidr_el1
    mrs x1, tpidr_el0
    b.hs el1h_sync
    mov x0, sp
    msr tpidr_el0, x0               /* the task's SP */
    ldr x0, =__exc_stack_end        /* the overflow stack */
    mov sp, x0
    mrs x0, tpidr_el1
    kernel_entry 2
    mov x0, sp
    bl handle_bad_stack
    b .
    .size el1h_sync_check, . - el1h_sync_check

    .type bad_vector, %function
bad_vector:
    bl linux_bad_vector
    b .
    .size bad_vector, . - bad_vector
    .cfi_endproc


    .section .note.GNU-stack, "", %progbits
