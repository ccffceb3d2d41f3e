/* SPDX-License-Identifier: MIT */
/*
 * leaf.c -- frameless leaves that fault, built with -fomit-frame-pointer.
 *
 * A leaf saves nothing: on aarch64 the return address is still in x30 and
 * the SFrame row has no RA offset; on x86_64 it is at the CFA - 8 as
 * always.  The faulting PC is exact (from the trap frame).
 */
#include "ex.h"

/* Stays NULL.  Volatile so gcc cannot see the null pointer and replace
 * the load with a trap of its own (-fisolate-erroneous-paths). */
const volatile int *volatile ex_null_ptr = (const volatile int *)(uintptr_t)EX_NULL_ADDR;
/* Called by the nullcall scenario: the call happens, the CPU faults
 * fetching from address 0, and the trap frame's PC is 0. */
void (*volatile ex_null_fn)(void);

EX_NOINLINE int leaf_load(const volatile int *p)
{
    return *p + 1;
}

EX_NOINLINE void leaf_udf(void)
{
    EX_UNDEFINED_INSN();
}

EX_NOINLINE void leaf_spin(volatile int *armed, uint32_t n)
{
    *armed = 1;
    while (n--)
        __asm__ volatile("");
}

EX_NOINLINE EX_NORETURN void leaf_park(volatile int *flag)
{
    *flag = 1;
    for (;;)
        __asm__ volatile("");
}
