/* SPDX-License-Identifier: MIT */
/*
 * rtos.h -- what the rtos variants of both boards share (included by
 * examples/<board>/rtos.c, once): the current task control block's
 * saved-context pointer and the scheduler's switch, made inside a handler,
 * as RTOS ports do it.  Nothing here is for sfu.
 *
 * The running task's saved-context pointer is *rtos_ctx_slot: the `ctx`
 * word of the running struct ex_thread (sched.c), or the boot context's
 * before the scheduler starts.  The entry code stores each task context's
 * address there and, when the handler returns, resumes whatever it holds
 * then.  The scheduler asks for a switch (board_switch_begin); the yield
 * trap's handler, or the interrupt handler once the interrupt is handled,
 * makes it (rtos_switch_now) by pointing rtos_ctx_slot at the next task's.
 */
#ifndef EX_RTOS_H
#define EX_RTOS_H

#include "ex.h"

static uint64_t rtos_boot_slot;
uint64_t *volatile rtos_ctx_slot = &rtos_boot_slot;
/* The running task has an FP context (the entry code keeps it). */
uint64_t rtos_fp_context;
/* The running task's stack limit (the board's rtos.c defines it with the
 * boot context's; the aarch64 entry checks it). */
extern uint64_t rtos_stack_limit;
/* Inside the interrupt handler's C part (a switch waits for its end). */
static volatile int rtos_in_irq;

static struct {
    uint64_t *save, *next_slot;
    uint64_t next;
    int pending;
} rtos_sw;

/* sched.c's hook: remember the switch; inside the interrupt handler it is
 * made when the handler returns (nonzero), else ex_switch's yield trap
 * makes it. */
int board_switch_begin(uint64_t *save, uint64_t next, uint64_t *next_slot)
{
    rtos_sw.save = save;
    rtos_sw.next = next;
    rtos_sw.next_slot = next_slot;
    rtos_sw.pending = 1;
    return rtos_in_irq;
}

/* Point the current TCB at the next task: the entry code resumes it. */
static void rtos_switch_now(void)
{
    const struct ex_thread *t;

    if (!rtos_sw.pending)
        return;
    rtos_sw.pending = 0;
    *rtos_sw.save = *rtos_ctx_slot;
    *rtos_sw.next_slot = rtos_sw.next;
    rtos_ctx_slot = rtos_sw.next_slot;
    t = (const struct ex_thread *)(uintptr_t)((uintptr_t)rtos_sw.next_slot - offsetof(struct ex_thread, ctx));
    rtos_stack_limit = t->stack.lo;
}

/* The interrupted context of a task context at frame, for the reports
 * (the walk finds it by itself). */
static void rtos_interrupted(uint64_t frame, sfu_regs *out)
{
    ex_unwind_setup();
    if (sfu_port_switch_regs(ex_ram_ctx(), &ex_switch_layout, frame, out) != SFU_OK) {
        /* Two volatile stores, never merged into one vector store (SSE
         * zeroing with plain flags: this runs in fault and interrupt
         * handlers). */
        *(volatile uint64_t *)&out->pc = 0;
        *(volatile uint64_t *)&out->sp = 0;
    }
}

/* The layout of the task context at frame: the first task layout
 * (ex_trap_layouts[0] or [1]) whose variant its flag word matches. */
static inline const struct sfu_trap_layout *rtos_task_layout(uint64_t frame)
{
    const struct sfu_trap_layout *l = &ex_trap_layouts[0];
    uint64_t w = *(const volatile uint64_t *)(uintptr_t)(frame + l->select.at - 1u);

    return (w & l->select.mask) == l->select.value ? l : &ex_trap_layouts[1];
}

#endif /* EX_RTOS_H */
