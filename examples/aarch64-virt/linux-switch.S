/* SPDX-License-Identifier: MIT */
/*
 * linux-switch.S -- the context switch and a new task's first code of the
 * kernel shaped as arm64 Linux (arch/arm64/kernel/entry.S keeps them with
 * the exception entry; here they have a file of their own, assembled with
 * --gsframe as C is, since ret_from_fork's CFI is sfu's too: linux-entry.S's
 * is a debugger's only).  Nothing here is for sfu but ret_from_fork's two
 * CFI lines.
 *
 *   cpu_switch_to  x19..x28, fp, sp, lr into prev->thread.cpu_context,
 *                  next's loaded, `ret`; one line more than Linux's: the
 *                  boot code calls it from EL1t, and tasks run on SP_EL1
 *   ret_from_fork  a new task's first PC (copy_thread): schedule_tail,
 *                  then x19(x20); its CFI says x30 is undefined, the
 *                  outermost frame of every task
 */
#define THREAD_CPU_CONTEXT 40

    .text
/* cpu_switch_to(prev, next): tasks. */
    .global cpu_switch_to
    .type cpu_switch_to, %function
cpu_switch_to:
    mov x10, #THREAD_CPU_CONTEXT
    add x8, x0, x10
    mov x9, sp
    stp x19, x20, [x8], #16
    stp x21, x22, [x8], #16
    stp x23, x24, [x8], #16
    stp x25, x26, [x8], #16
    stp x27, x28, [x8], #16
    stp x29, x9, [x8], #16
    str x30, [x8]
    add x8, x1, x10
    ldp x19, x20, [x8], #16
    ldp x21, x22, [x8], #16
    ldp x23, x24, [x8], #16
    ldp x25, x26, [x8], #16
    ldp x27, x28, [x8], #16
    ldp x29, x9, [x8], #16
    ldr x30, [x8]
    msr spsel, #1
    mov sp, x9
    ret
    .size cpu_switch_to, . - cpu_switch_to

    .global ret_from_fork
    .type ret_from_fork, %function
ret_from_fork:
    .cfi_startproc
    .cfi_undefined x30
    bl schedule_tail
    mov x0, x20
    blr x19
    bl linux_task_returned
    .cfi_endproc
    .size ret_from_fork, . - ret_from_fork

    .section .note.GNU-stack, "", %progbits
