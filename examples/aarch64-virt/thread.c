/* SPDX-License-Identifier: MIT */
/*
 * thread.c -- aarch64-virt's thread context: the one thing sfu needs to
 * know about switch.S (ex_switch_layout), and a new thread's first
 * context.
 */
#include "ex.h"

/* sfu: the context ex_switch leaves (switch.S): x19..x29 from 0, the
 * resume PC (x30) at 0x58, the SP the thread resumes with just above it. */
const struct sfu_switch_layout ex_switch_layout = SFU_AARCH64_SWITCH_PUSHED(0x70, 0x00, 0x58);
/* (end of what sfu needs) */

uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    /* volatile: stored word by word, never as a vector (this file is built
     * with the plain flags: the switch layout above is the user's code) */
    volatile uint64_t *c = (volatile uint64_t *)(uintptr_t)(stack_hi - 0x70);
    unsigned i;

    for (i = 0; i < 0x70 / 8; i++)
        c[i] = 0;
    c[0] = (uint64_t)(uintptr_t)entry; /* x19 */
    c[1] = (uint64_t)(uintptr_t)arg;   /* x20 */
    c[0x58 / 8] = (uint64_t)(uintptr_t)ex_thread_start;
    c[0x60 / 8] = 0;      /* EL1t */
    c[0x68 / 8] = exc_hi; /* its SP_EL1 */
    return (uint64_t)(uintptr_t)c;
}
