/* SPDX-License-Identifier: MIT */
/*
 * rtos.c -- the C side of rtos-entry.S: an RTOS's task-context handling,
 * written as RTOS ports write it, not for sfu.
 *
 * The current task control block's saved-context pointer and the switch
 * inside the handler are examples/common/rtos.h's.  A new task's first
 * context is built here, on its stack, as the entry code would have saved
 * it: the first `eret` starts the task.
 *
 * The handlers report with the interrupted context (for the dump header);
 * the walk finds its own way (rtos-sfu.c describes the frames to sfu).
 */
#include "ex.h"
#include "board.h"

extern char __stack_start[];
/* The boot context's stack limit: the bottom of its SP_EL0 stack. */
uint64_t rtos_stack_limit = (uint64_t)(uintptr_t)__stack_start;

/* The task context's offsets (rtos-entry.S). */
#define CTX_FLAG 0x000
#define CTX_GP(fp) ((fp) ? 0x210u : 0x010u)
#define CTX_SIZE(fp) ((fp) ? 0x320u : 0x120u)
#define CTX_ELR 0x000
#define CTX_SPSR 0x008
#define CTX_X(n) (0x010u + 8u * (n))

#include "rtos.h"

/* The yield trap: the task context goes on the stack, rtos_yield makes
 * the switch. */
void ex_switch(uint64_t *save, uint64_t next)
{
    (void)save, (void)next;
    __asm__ volatile("svc #0" : : : "memory");
}

void rtos_yield(void);
void rtos_irq(void);
void rtos_fault(void);
void rtos_stack_overflow(uint64_t frame);
void rtos_handler_fault(uint64_t frame);
EX_NORETURN void rtos_bad_vector(void);

void rtos_yield(void)
{
    rtos_switch_now();
}

void rtos_irq(void)
{
    sfu_regs r;

    rtos_interrupted(*rtos_ctx_slot, &r);
    rtos_in_irq = 1;
    handle_irq(&r);
    rtos_in_irq = 0;
    rtos_switch_now();
}

void rtos_fault(void)
{
    uint64_t frame = *rtos_ctx_slot;
    uint64_t *gp = (uint64_t *)(uintptr_t)(frame + CTX_GP(*(uint64_t *)(uintptr_t)frame));
    uint64_t esr;
    struct ex_fault f;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    if (a64_semihosting_trap(esr, gp[CTX_ELR / 8])) {
        gp[CTX_X(0) / 8] = (uint64_t)-1;
        gp[CTX_ELR / 8] += 4;
        return;
    }
    if (ex_probe_take(esr, &gp[CTX_ELR / 8]))
        return;
    a64_describe(&f, 0, rtos_task_layout(frame), frame);
    rtos_interrupted(frame, &f.regs);
    ex_fault(&f);
}

/* Its context did not fit on its stack: saved on the handler stack, the
 * task's SP still in SP_EL0. */
void rtos_stack_overflow(uint64_t frame)
{
    struct ex_fault f;

    a64_describe(&f, 0, &ex_trap_layouts[2], frame);
    sfu_port_trap_regs(&ex_trap_layouts[2], frame, &f.regs);
    f.note = "the task's SP is below its stack limit: its context was saved on the handler stack";
    ex_fault(&f);
}

void rtos_handler_fault(uint64_t frame)
{
    uint64_t esr;
    struct ex_fault f;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    if (ex_probe_take(esr, (uint64_t *)(uintptr_t)(frame + 0x10 + CTX_ELR)))
        return;
    a64_describe(&f, 4, &ex_trap_layouts[3], frame);
    sfu_port_trap_regs(&ex_trap_layouts[3], frame, &f.regs);
    ex_fault(&f);
}

EX_NORETURN void rtos_bad_vector(void)
{
    ex_printf("rtos: unexpected exception vector\n");
    board_exit(EX_BUG);
}

/* A new task's first context, as the entry code would have saved it with
 * an FP context (every task has one): PC its entry, x0 its argument, x29
 * = x30 = 0 (outermost), EL1t with IRQs and debug exceptions unmasked. */
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    uint64_t frame = stack_hi - CTX_SIZE(1);
    uint64_t *c = (uint64_t *)(uintptr_t)frame, *gp = c + CTX_GP(1) / 8;
    unsigned i;

    (void)exc_hi;
    for (i = 0; i < CTX_SIZE(1) / 8; i++)
        c[i] = 0;
    c[CTX_FLAG / 8] = 1;
    gp[CTX_ELR / 8] = (uint64_t)(uintptr_t)entry;
    gp[CTX_SPSR / 8] = 0x144; /* EL1t; A and F masked, D and I not */
    gp[CTX_X(0) / 8] = (uint64_t)(uintptr_t)arg;
    return frame;
}
