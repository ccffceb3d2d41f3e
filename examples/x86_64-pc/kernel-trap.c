/* SPDX-License-Identifier: MIT */
/*
 * kernel-trap.c -- the C side of kernel-isr.S: a kernel's own interrupt
 * dispatcher, with its own frame (struct regs), and the one thing sfu needs
 * to know about it, ex_trap_layouts below.  kernel-isr.S is not changed for
 * sfu in any way.
 */
#include "ex.h"
#include "board.h"

/* The frame kernel-isr.S builds, lowest address first. */
struct regs {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t int_no, err_code;
    uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

/* sfu: the stubs, described (README, "Step 2: faults and interrupts").
 * Their calls into C all lie in .entry.text, each made with RSP pointing
 * at a struct regs. */
extern char __entry_text_start[], __entry_text_end[];
const struct sfu_trap_layout ex_trap_layouts[] = {
    SFU_X86_64_PT_REGS(__entry_text_start, __entry_text_end, struct regs) };
/* Where stacks start: the boot code's C entry point, the threads'
 * trampoline (a whole trace ends there). */
static const uint64_t entries[] = { (uintptr_t)board_main, (uintptr_t)ex_thread_start };
EX_DUMP(ex_trap_layouts, entries);
/* (end of what sfu needs) */

void interrupt_handler(struct regs *r);

void interrupt_handler(struct regs *r)
{
    uint64_t cr2;
    struct ex_fault f;

    __asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
    if (r->int_no >= X86_IRQ_BASE && r->int_no < X86_NVECTORS) {
        sfu_regs in;

        sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)r, &in);
        handle_irq((unsigned)r->int_no - X86_IRQ_BASE, &in);
        return;
    }
    if (ex_probe_take(r->int_no, &r->rip))
        return;
    x86_describe(&f, r->int_no, r->err_code, cr2);
    sfu_port_trap_regs(&ex_trap_layouts[0], (uint64_t)(uintptr_t)r, &f.regs);
    ex_fault(&f);
}
