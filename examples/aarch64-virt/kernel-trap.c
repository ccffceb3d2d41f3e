/* SPDX-License-Identifier: MIT */
/*
 * kernel-trap.c -- the C side of kernel-entry.S: a kernel's own exception
 * handlers, with its own frame (struct pt_regs), and the one thing sfu
 * needs to know about them, ex_trap_layouts below.  kernel-entry.S is not
 * changed for sfu in any way.
 */
#include "ex.h"
#include "board.h"

/* The frame kernel-entry.S saves (its offsets are written there too). */
struct pt_regs {
    uint64_t pc;     /* ELR_EL1 */
    uint64_t pstate; /* SPSR_EL1 */
    uint64_t regs[31];
    uint64_t sp; /* the interrupted SP */
    uint64_t esr, far;
};
typedef char pt_regs_size_check[sizeof(struct pt_regs) == 0x120 ? 1 : -1];

/* sfu: the vector code, described (README, "Step 2: faults and
 * interrupts").  Its calls into C all lie in .entry.text, each made with
 * SP pointing at a struct pt_regs. */
extern char __entry_text_start[], __entry_text_end[];
const struct sfu_trap_layout ex_trap_layouts[] = {
    SFU_AARCH64_PT_REGS(__entry_text_start, __entry_text_end, struct pt_regs, regs, pc, sp, pstate) };
/* Where stacks start: the boot code's C entry point, the threads'
 * trampoline (a whole trace ends there). */
static const uint64_t entries[] = { (uintptr_t)board_main, (uintptr_t)ex_thread_start };
EX_DUMP(ex_trap_layouts, entries);
/* (end of what sfu needs) */

/* The interrupted context, for the reports (the walk finds it itself). */
static void interrupted(const struct pt_regs *regs, sfu_regs *out)
{
    sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)regs, out);
}

/* The handlers kernel-entry.S calls: reason is the vector's number,
 * group * 4 + type (ARM ARM, "Exception vectors"). */
void el1_sync_handler(struct pt_regs *regs, unsigned long reason);
void el1_irq_handler(struct pt_regs *regs, unsigned long reason);
void el0_sync_handler(struct pt_regs *regs, unsigned long reason);
void bad_mode(struct pt_regs *regs, unsigned long reason);

void el1_sync_handler(struct pt_regs *regs, unsigned long reason)
{
    struct ex_fault f;

    if (a64_semihosting_trap(regs->esr, regs->pc)) {
        regs->regs[0] = (uint64_t)-1;
        regs->pc += 4;
        return;
    }
    if (ex_probe_take(regs->esr, &regs->pc))
        return;
    a64_describe(&f, regs->esr, regs->far, (unsigned)reason);
    interrupted(regs, &f.regs);
    ex_fault(&f);
}

void el1_irq_handler(struct pt_regs *regs, unsigned long reason)
{
    sfu_regs r;

    (void)reason;
    interrupted(regs, &r);
    handle_irq(&r);
}

void el0_sync_handler(struct pt_regs *regs, unsigned long reason)
{
    bad_mode(regs, reason);
}

void bad_mode(struct pt_regs *regs, unsigned long reason)
{
    struct ex_fault f;

    a64_describe(&f, regs->esr, regs->far, (unsigned)reason);
    interrupted(regs, &f.regs);
    if (reason >= 8)
        board_exit(EX_BUG); /* no EL0 code exists */
    ex_fault(&f);
}
