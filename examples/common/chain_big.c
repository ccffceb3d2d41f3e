/* SPDX-License-Identifier: MIT */
/*
 * chain_big.c -- demo chain, large frames.
 *
 * Frames 3 and 6.  chain_c has an 8 KiB local array, so its CFA offset
 * does not fit the 1-byte FRE offsets and (on aarch64) the frame record
 * is not at the top of the frame.  chain_f is noreturn and carries out the
 * scenario's action at the bottom of the chain.
 */
#include "ex.h"

/* libgcc (linked into every image): 128-bit division with the remainder
 * stored through rem.  Built without SFrame, with .eh_frame. */
unsigned __int128 __udivmodti4(unsigned __int128 n, unsigned __int128 d, unsigned __int128 *rem);
/* Where the libgcc scenario has the remainder stored: in the unmapped null
 * page, or with the MMU off where nothing is (EX_NULL_ADDR); volatile, so
 * the compiler cannot see it. */
unsigned __int128 *volatile ex_bad_rem = (unsigned __int128 *)(uintptr_t)(EX_NULL_ADDR + 16u);

EX_NOINLINE int chain_c(int depth, enum ex_action act)
{
    volatile uint8_t big[8192];
    int r;

    big[0] = (uint8_t)depth;
    big[sizeof big - 1] = (uint8_t)act;
    r = chain_d(depth + 1, act);
    return r + big[0] + big[sizeof big - 1];
}

EX_NOINLINE EX_NORETURN void chain_f(int depth, enum ex_action act)
{
    volatile uint64_t scratch[64];

    scratch[0] = (uint64_t)depth;
    scratch[63] = (uint64_t)act;
    switch (act) {
    case EX_ACT_PANIC:
        panic("deliberate panic at the bottom of a 6-deep chain");
    case EX_ACT_NULL:
        scratch[1] = (uint64_t)leaf_load(ex_null_ptr);
        break;
    case EX_ACT_UDF:
        leaf_udf();
        break;
    case EX_ACT_NULLCALL:
        ex_null_fn();
        break;
    case EX_ACT_CORRUPT:
        corrupt_records((int)scratch[0] + 1);
    case EX_ACT_BADFP:
        corrupt_fp((int)scratch[0] + 1);
    case EX_ACT_LOOP:
        corrupt_loop((int)scratch[0] + 1);
    case EX_ACT_BADSP:
        corrupt_sp();
    case EX_ACT_IRQFAULT:
        ex_watchdog_faults = 1;
        /* fall through */
    case EX_ACT_IRQPANIC:
        /* The next tick after leaf_spin arms the watchdog panics, so the
         * interrupted frame is always leaf_spin's loop. */
        board_timer_start(1000);
        leaf_spin(&ex_watchdog_armed, 500000000u);
        break;
    case EX_ACT_LIBGCC:
        scratch[1] = (uint64_t)__udivmodti4(((unsigned __int128)scratch[63] << 64) | scratch[0], 7u, ex_bad_rem);
        break;
    case EX_ACT_RECIPE:
        backtrace_here();
        board_exit(EX_PASS);
    }
    panic("chain_f: the expected fault did not happen");
}
