/* SPDX-License-Identifier: MIT */
/*
 * workload.c -- the timer test's workload, frame pointers kept.
 *
 * The four work_* functions here and in workload_nofp.c call each other to
 * a depth chosen by the data (2 to 9 levels), through functions with and
 * without frame pointers, a large frame and a frameless leaf, so timer
 * interrupts land in prologues, epilogues, bodies and leaves at many
 * stack depths.  The result is a pure function of the seed: the timer test
 * runs it with interrupts and again without, and the sums must agree,
 * which they do only if the interrupt path restores every register.
 */
#include "ex.h"

/* A 64-bit LCG step (Knuth's MMIX constants): cheap and well mixed
 * enough to vary the call shapes. */
static uint64_t step(uint64_t x)
{
    return x * 6364136223846793005ull + 1442695040888963407ull;
}

EX_NOINLINE uint64_t work_fp_1(uint64_t x, unsigned depth)
{
    volatile uint64_t keep = x;
    uint64_t r;

    if (depth == 0)
        return work_leaf(x);
    switch ((x >> 33) & 3) {
    case 0:
        r = work_nofp_1(step(x), depth - 1);
        break;
    case 1:
        r = work_big(step(x), depth - 1);
        break;
    case 2:
        r = work_fp_2(step(x), depth - 1);
        break;
    default:
        r = work_nofp_2(step(x), depth - 1);
        break;
    }
    return r ^ keep;
}

EX_NOINLINE uint64_t work_fp_2(uint64_t x, unsigned depth)
{
    volatile uint64_t keep[2] = { x, ~x };
    uint64_t r;

    if (depth == 0)
        return work_leaf(x) + keep[1];
    r = ((x >> 40) & 1) ? work_nofp_2(step(x), depth - 1) : work_fp_1(step(x), depth - 1);
    return r + keep[0];
}

EX_NOINLINE uint64_t work_big(uint64_t x, unsigned depth)
{
    volatile uint64_t table[512];
    uint64_t r = 0;
    unsigned i, n = 16 + (unsigned)(x & 63);

    for (i = 0; i < n; i++)
        table[i * 7 % 512] = step(x + i);
    if (depth > 0)
        r = work_nofp_1(step(x), depth - 1);
    for (i = 0; i < n; i++)
        r += table[i * 7 % 512];
    return r;
}

uint64_t work_run(uint64_t seed)
{
    uint64_t acc = 0, x = seed;
    unsigned i;

    for (i = 0; i < 8; i++) {
        x = step(x ^ i);
        acc += work_fp_1(x, 2 + (unsigned)(x >> 61));
    }
    return acc;
}
