/* SPDX-License-Identifier: MIT */
/*
 * sched-sfu.c -- all sfu needs to know about the scheduler's threads
 * (sched.c): the thread array, described once, and the call.  sched.c was
 * not changed for sfu beyond making its thread array and its running
 * thread visible here.  Built with the board's plain flags on the kernel
 * and rtos images (board.mk `plain`), as a user's own file would be.
 */
#include "ex.h"

/* sfu: each thread's saved context (as ex_switch_layout describes it),
 * its header line and its stacks.  The running thread is the caller's
 * (sfu_dump_stack shows it; its dumps are bounded by its stacks); a free
 * slot has no state name and is not dumped.  The description's .threads
 * (EX_DUMP, ex.h) points here. */
const char *const ex_state_names[] = { NULL, "ready", "running", "blocked", "preempted", "sleeping", "waiting", "exited", "killed" };
const struct sfu_dump_table ex_thread_table = {
    SFU_DUMP_ARRAY(struct ex_thread, ex_threads, EX_MAX_THREADS),
    SFU_DUMP_SAVED(struct ex_thread, ctx, &ex_switch_layout),
    SFU_DUMP_INFO(struct ex_thread, id, name, state, ex_state_names),
    SFU_DUMP_STACKS2(struct ex_thread, stack.lo, stack.hi, exc.lo, exc.hi),
    .current = &ex_current,
};
/* (end of what sfu needs) */

void ex_dump_threads(void)
{
    (void)sfu_dump_threads(&ex_dump);
}
