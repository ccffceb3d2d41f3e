/* SPDX-License-Identifier: MIT */
/*
 * trap.c -- the C side of isr.S, the IDT stubs written for sfu's own trap
 * frame layout (struct x86_trap_frame), and its description for the
 * port.  (kernel-trap.c is the same for a kernel's own layout.)
 */
#include "ex.h"
#include "board.h"
#include "trap_frame.h"

/* isr.S saves struct x86_trap_frame and calls x86_trap from one
 * call site, labelled x86_trap_ret. */
extern char x86_trap_ret[];
static const void *const trap_sites[] = { x86_trap_ret };
const struct sfu_trap_layout ex_trap_layouts[] = { X86_TRAP_LAYOUT(trap_sites) };
/* Where stacks start: the boot code's C entry point, the threads'
 * trampoline (a whole trace ends there). */
static const uint64_t entries[] = { (uintptr_t)board_main, (uintptr_t)ex_thread_start };
EX_DUMP(ex_trap_layouts, entries);

void x86_trap(struct x86_trap_frame *tf);

void x86_trap(struct x86_trap_frame *tf)
{
    struct ex_fault f;

    if (tf->vector >= X86_IRQ_BASE && tf->vector < X86_NVECTORS) {
        sfu_regs r;

        sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)tf, &r);
        handle_irq((unsigned)tf->vector - X86_IRQ_BASE, &r);
        return;
    }
    if (ex_probe_take(tf->vector, &tf->iret_rip))
        return;
    x86_describe(&f, tf->vector, tf->error_code, tf->cr2);
    sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)tf, &f.regs);
    ex_fault(&f);
}
