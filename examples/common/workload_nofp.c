/* SPDX-License-Identifier: MIT */
/*
 * workload_nofp.c -- the timer test's workload, -fomit-frame-pointer.
 * See workload.c.
 */
#include "ex.h"

static uint64_t rot(uint64_t x, unsigned k)
{
    return (x << k) | (x >> (64 - k));
}

EX_NOINLINE uint64_t work_nofp_1(uint64_t x, unsigned depth)
{
    volatile uint64_t spill[4] = { x, x >> 1, x >> 2, x >> 3 };
    uint64_t r;

    if (depth == 0)
        return work_leaf(x ^ spill[3]);
    r = ((x >> 37) & 1) ? work_fp_2(rot(x, 13), depth - 1) : work_fp_1(rot(x, 29), depth - 1);
    return r - spill[1];
}

EX_NOINLINE uint64_t work_nofp_2(uint64_t x, unsigned depth)
{
    uint64_t r;

    if (depth == 0)
        return work_leaf(rot(x, 7));
    r = work_big(rot(x, 17), depth - 1);
    return r ^ rot(x, 3);
}

/* The leaf: no calls, no stack frame, some arithmetic to stay in. */
EX_NOINLINE uint64_t work_leaf(uint64_t x)
{
    uint64_t h = 0xcbf29ce484222325ull;
    unsigned i, n = 8 + (unsigned)(x & 31);

    for (i = 0; i < n; i++) {
        h ^= (x >> (i & 63)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}
