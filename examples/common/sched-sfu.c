/* SPDX-License-Identifier: MIT */
/*
 * sched-sfu.c -- all sfu needs to know about the scheduler's threads
 * (sched.c): the thread array, described once, and the calls.  sched.c
 * was not changed for sfu beyond making its thread array and its running
 * thread visible here.  Built with the board's plain flags on the kernel
 * and rtos images (board.mk `plain`), as a user's own file would be.
 */
#include "ex.h"

/* sfu: each thread's saved context (as ex_switch_layout describes it),
 * its header line and its stacks.  The running thread is the caller's
 * (sfu_dump_stack shows it); a free slot has no state name and is not
 * dumped. */
const char *const ex_state_names[5] = { NULL, "ready", "running", "blocked", "preempted" };
static const struct sfu_dump_table ex_thread_table = {
    SFU_DUMP_ARRAY(struct ex_thread, ex_threads, EX_MAX_THREADS),
    SFU_DUMP_SAVED(struct ex_thread, ctx, &ex_switch_layout),
    SFU_DUMP_INFO(struct ex_thread, id, name, state, ex_state_names),
    SFU_DUMP_STACKS2(struct ex_thread, stack.lo, stack.hi, exc.lo, exc.hi),
    .current = &ex_current,
};
/* (end of what sfu needs) */

void ex_dump_threads(void)
{
    (void)sfu_dump_thread_table(&ex_dump, &ex_thread_table);
}

/* A thread's port, bounded by its stacks (the table's; valid until the
 * next call: one slot in ex_dump). */
const sfu_port *ex_thread_port(const struct ex_thread *t)
{
    return sfu_dump_thread_port(&ex_dump, &ex_thread_table, t);
}

/* A walk of the running thread stays within its stacks (the table's port
 * of it); outside a thread, on the boot stack. */
const sfu_port *ex_walk_port(void)
{
    const sfu_port *p = ex_current ? ex_thread_port(ex_current) : NULL;

    return p != NULL ? p : &ex_dump.port;
}
