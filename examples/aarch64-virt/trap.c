/* SPDX-License-Identifier: MIT */
/*
 * trap.c -- the C side of vectors.S, the vector code written for sfu's own
 * trap frame layout (struct a64_trap_frame), and its description
 * for the port.  (kernel-trap.c is the same for a kernel's own layout.)
 */
#include "ex.h"
#include "board.h"
#include "trap_frame.h"

/* vectors.S saves struct a64_trap_frame and calls a64_trap from
 * one call site, labelled a64_trap_ret. */
extern char a64_trap_ret[];
static const void *const trap_sites[] = { a64_trap_ret };
const struct sfu_trap_layout ex_trap_layouts[] = { A64_TRAP_LAYOUT(trap_sites) };
/* Where stacks start: the boot code's C entry point, the threads'
 * trampoline (a whole trace ends there). */
static const uint64_t entries[] = { (uintptr_t)board_main, (uintptr_t)ex_thread_start };
EX_DUMP(ex_trap_layouts, entries);

void a64_trap(struct a64_trap_frame *tf, unsigned kind);

void a64_trap(struct a64_trap_frame *tf, unsigned kind)
{
    unsigned group = kind >> 2, type = kind & 3u;
    struct ex_fault f;

    if (group <= 1 && type == 1) {
        sfu_regs r;

        sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)tf, &r);
        handle_irq(&r);
        return;
    }
    if (type == 0 && a64_semihosting_trap(tf->esr, tf->elr)) {
        tf->x[0] = (uint64_t)-1;
        tf->elr += 4;
        return;
    }
    if (type == 0 && ex_probe_take(tf->esr, &tf->elr))
        return;
    a64_describe(&f, tf->esr, tf->far, kind);
    sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)tf, &f.regs);
    if (group >= 2)
        board_exit(EX_BUG);
    ex_fault(&f);
}
