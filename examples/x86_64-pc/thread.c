/* SPDX-License-Identifier: MIT */
/*
 * thread.c -- x86_64-pc's thread context: the one thing sfu needs to know
 * about switch.S (ex_switch_layout), and a new thread's first context.
 */
#include "ex.h"

/* sfu: the context ex_switch leaves (switch.S): r15 r14 r13 r12 rbx rbp,
 * the resume PC at 0x30, the SP the thread resumes with just above it. */
const struct sfu_switch_layout ex_switch_layout =
    SFU_X86_64_SWITCH_PUSHED(0x38, 0x30, 0x20, 0x28, 0x18, 0x10, 0x08, 0x00); /* rbx rbp r12..r15 */
/* (end of what sfu needs) */

uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    /* volatile: stored word by word, never as a vector (this file is built
     * with the plain flags: the switch layout above is the user's code) */
    volatile uint64_t *c = (volatile uint64_t *)(uintptr_t)(stack_hi - 0x38);
    unsigned i;

    (void)exc_hi; /* exceptions use the IST stacks, IRQs the thread's */
    for (i = 0; i < 7; i++)
        c[i] = 0;
    c[3] = (uint64_t)(uintptr_t)entry; /* r12 */
    c[2] = (uint64_t)(uintptr_t)arg;   /* r13 */
    c[6] = (uint64_t)(uintptr_t)ex_thread_start;
    return (uint64_t)(uintptr_t)c;
}
