/* SPDX-License-Identifier: MIT */
/*
 * chain_fp.c -- demo chain, frame pointers kept (-fno-omit-frame-pointer).
 *
 * Frames 1 and 4 of the 6-deep chain.  With a frame pointer the SFrame
 * rows of these functions track FP, and the CFA becomes FP-based on x86_64
 * after `mov %rsp, %rbp`.  Every call is followed by work on its result so
 * gcc cannot turn it into a tail call and drop the frame.
 */
#include "ex.h"

EX_NOINLINE int chain_a(int depth, enum ex_action act)
{
    volatile int local = depth * 3;
    int r = chain_b(depth + 1, act);

    return r + local;
}

EX_NOINLINE int chain_d(int depth, enum ex_action act)
{
    volatile int local[4] = { depth, 1, 2, 3 };
    int r = chain_e(depth + 1, act);

    return r + local[1] + local[3];
}
