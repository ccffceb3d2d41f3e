/* SPDX-License-Identifier: MIT */
/*
 * chain_nofp.c -- demo chain, built with -fomit-frame-pointer and
 * -falign-functions=1.
 *
 * Frames 2 and 5.  No frame pointer: the CFA is SP-based throughout and
 * the FP column of the SFrame rows stays "unchanged", so a frame-pointer
 * walk skips these frames while an SFrame walk does not.
 *
 * chain_e comes first in the file and ends in a call to the noreturn
 * chain_f, so that call is its last instruction; with no alignment
 * padding after it, the return address it pushes is the first byte of
 * chain_b, the next function.  A walker that looked the caller up at the
 * return address itself would find chain_b's FDE: it must use ra - 1
 * (core/sfu.h: a return address is looked up at pc - 1).  `make -C
 * examples check` verifies the layout.
 */
#include "ex.h"

EX_NOINLINE int chain_e(int depth, enum ex_action act)
{
    volatile int guard = depth;

    if (guard < 0)
        return guard;
    chain_f(depth + 1, act);
}

EX_NOINLINE int chain_b(int depth, enum ex_action act)
{
    volatile uint64_t spill[3] = { (uint64_t)depth, 7, 11 };
    int r = chain_c(depth + 1, act);

    return r + (int)spill[2];
}
