/* SPDX-License-Identifier: MIT */
/*
 * rtos.c -- the C side of rtos-isr.S: an RTOS's task-context handling,
 * written as RTOS ports write it, not for sfu.
 *
 * The current task control block's saved-context pointer and the switch
 * inside the handler are examples/common/rtos.h's.  A new task's first
 * context is built here, on its stack, as the stubs would have saved it:
 * the first `iretq` through it starts the task.
 *
 * The handlers report with the interrupted context (for the dump header);
 * the walk finds its own way (rtos-sfu.c describes the frames to sfu).
 */
#include "ex.h"
#include "board.h"

/* The entry does not check the task SP (exceptions have their own IST
 * stack here): no limit. */
uint64_t rtos_stack_limit;

#include "rtos.h"

/* The frame's offsets (rtos-isr.S), from its general registers (G). */
#define CTX_GP(fp) ((fp) ? 0x210u : 0x010u)
#define CTX_SIZE(fp) ((fp) ? 0x2c0u : 0x0c0u)
#define CTX_RDI 0x48
#define CTX_VECTOR 0x78
#define CTX_ERROR 0x80
#define CTX_RIP 0x88
#define CTX_CS 0x90
#define CTX_RFLAGS 0x98
#define CTX_RSP 0xa0
#define CTX_SS 0xa8
#define RTOS_YIELD_VECTOR 46 /* IRQ 14 of the PIC, masked: free for software */

/* The yield trap: the task context goes on the stack, rtos_irq makes the
 * switch. */
void ex_switch(uint64_t *save, uint64_t next)
{
    (void)save, (void)next;
    __asm__ volatile("int $46" : : : "memory");
}

void rtos_irq(void);
void rtos_fault(uint64_t frame);

void rtos_irq(void)
{
    uint64_t frame = *rtos_ctx_slot;
    const uint64_t *gp = (const uint64_t *)(uintptr_t)(frame + CTX_GP(*(const uint64_t *)(uintptr_t)frame));
    sfu_regs r;

    if (gp[CTX_VECTOR / 8] != RTOS_YIELD_VECTOR) {
        rtos_interrupted(frame, &r);
        rtos_in_irq = 1;
        handle_irq((unsigned)gp[CTX_VECTOR / 8] - X86_IRQ_BASE, &r);
        rtos_in_irq = 0;
    }
    rtos_switch_now();
}

void rtos_fault(uint64_t frame)
{
    uint64_t *gp = (uint64_t *)(uintptr_t)(frame + CTX_GP(0));
    struct ex_fault f;

    if (ex_probe_take(gp[CTX_VECTOR / 8], &gp[CTX_RIP / 8]))
        return;
    x86_describe(&f, gp[CTX_VECTOR / 8], &ex_trap_layouts[2], frame);
    sfu_port_trap_regs(&ex_trap_layouts[2], frame, &f.regs);
    ex_fault(&f);
}

/* A new task's first context, as the stubs would have saved it with an FP
 * context (every task has one; a zero FXSAVE image is a valid one): RIP
 * its entry, RDI its argument, RBP 0, interrupts on, and RSP the stack
 * top less a zero return address (outermost; RSP + 8 16-aligned, as at a
 * call). */
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    uint64_t frame = stack_hi - 16 - CTX_SIZE(1);
    uint64_t *c = (uint64_t *)(uintptr_t)frame, *gp = c + CTX_GP(1) / 8;
    unsigned i;

    (void)exc_hi; /* exceptions use the IST stacks */
    for (i = 0; i < (CTX_SIZE(1) + 16) / 8; i++)
        c[i] = 0;
    c[0] = 1;
    gp[CTX_RDI / 8] = (uint64_t)(uintptr_t)arg;
    gp[CTX_RIP / 8] = (uint64_t)(uintptr_t)entry;
    gp[CTX_CS / 8] = 0x08;
    gp[CTX_RFLAGS / 8] = 0x202; /* IF */
    gp[CTX_RSP / 8] = stack_hi - 8;
    gp[CTX_SS / 8] = 0x10;
    return frame;
}
