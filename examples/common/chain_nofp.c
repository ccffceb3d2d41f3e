/*
 * chain_nofp.c -- demo chain, built with -fomit-frame-pointer.
 *
 * Frames 2 and 5.  No frame pointer: the CFA is SP-based throughout and
 * the FP column of the SFrame rows stays "unchanged", so a frame-pointer
 * walk skips these frames while an SFrame walk does not.
 */
#include "ex.h"

EX_NOINLINE int chain_b(int depth, enum ex_action act)
{
    volatile uint64_t spill[3] = { (uint64_t)depth, 7, 11 };
    int r = chain_c(depth + 1, act);

    return r + (int)spill[2];
}

/* Calls a noreturn function last: the call is the final instruction, so
 * the return address it pushes is the first byte after chain_e, which may
 * belong to the next function.  A walker must look the caller up at
 * ra - 1 (DESIGN.md, "Unwinding rules"). */
EX_NOINLINE int chain_e(int depth, enum ex_action act)
{
    volatile int guard = depth;

    if (guard < 0)
        return guard;
    chain_f(depth + 1, act);
}
