/* SPDX-License-Identifier: MIT */
/*
 * corrupt.c -- "corrupt the stack" scenarios, frame pointers kept.
 *
 * With a frame pointer, __builtin_frame_address(0) is this function's
 * frame record on both targets: {saved FP, return address}, the AAPCS64
 * frame record (x29, x30) and the x86_64 `push %rbp` slot with the return
 * address above it.  Those are the very slots the SFrame rows of these
 * functions point at, so overwriting them is what a smashed stack looks
 * like to an unwinder.  None of these functions returns, so the damage
 * is only ever seen by the dump.
 */
#include "ex.h"

/* Outside RAM on both boards, 8-aligned: refused by sfu_port_read. */
#define EX_BAD_FP 0x4242424242424240ull
/* Not 4-aligned and not in .text: no SFrame FDE can cover it. */
#define EX_BAD_RA 0x4141414141414141ull

EX_NOINLINE EX_NORETURN void corrupt_records(int depth)
{
    volatile uint64_t *rec = (volatile uint64_t *)__builtin_frame_address(0);

    rec[0] = EX_BAD_FP;
    rec[1] = EX_BAD_RA;
    ex_printf("corrupt: depth %d, frame record at %p now {%p, %p}\n", depth,
              (void *)rec, (void *)(uintptr_t)rec[0], (void *)(uintptr_t)rec[1]);
    panic("stack corrupted: saved FP and return address overwritten");
}

/* Only the saved FP overwritten: the caller's frame pointer, restored from
 * this record, now points outside RAM.  A walker that needs FP to find the
 * caller's CFA stops with a refused read there (x86_64: chain_f's CFA is
 * rbp + 16); one that finds every CFA from SP does not need FP at all
 * (aarch64 gcc keeps the CFA SP-based) and still reaches the end. */
EX_NOINLINE EX_NORETURN void corrupt_fp(int depth)
{
    volatile uint64_t *rec = (volatile uint64_t *)__builtin_frame_address(0);

    rec[0] = EX_BAD_FP;
    ex_printf("corrupt: depth %d, frame record at %p now {%p, %p}\n", depth,
              (void *)rec, (void *)(uintptr_t)rec[0], (void *)(uintptr_t)rec[1]);
    panic("stack corrupted: saved FP overwritten");
}

/* The address this function returns to: a PC in the caller's body just
 * after a call, where the caller's frame is fully set up. */
static EX_NOINLINE uint64_t return_address(void)
{
    return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* A record that points at itself, with a return address back into the
 * body of this function.  A frame-pointer walk finds the same frame again
 * at every step, and so does an SFrame walk wherever the row at that PC
 * takes the CFA from FP (x86_64: fp + 16 after the prologue).  Only a
 * "the stack must move" check stops it before the depth cap. */
EX_NOINLINE EX_NORETURN void corrupt_loop(int depth)
{
    volatile uint64_t *rec = (volatile uint64_t *)__builtin_frame_address(0);
    uint64_t body = return_address();

    rec[0] = (uint64_t)(uintptr_t)rec;
    rec[1] = body;
    ex_printf("corrupt: depth %d, frame record at %p now {%p, %p}\n", depth,
              (void *)rec, (void *)(uintptr_t)rec[0], (void *)(uintptr_t)rec[1]);
    panic("stack corrupted: frame record points at itself");
}

/* Point SP at unmapped memory and push: the push faults.  The fault is
 * taken on a separate stack (aarch64: SP_EL1 while threads run on SP_EL0;
 * x86_64: an IST stack), so the handler still runs and reports the bad SP. */
EX_NOINLINE EX_NORETURN void corrupt_sp(void)
{
    ex_printf("corrupt: setting SP to %p and pushing\n", (void *)(uintptr_t)EX_BAD_SP);
    EX_SET_SP_AND_PUSH(EX_BAD_SP);
    __builtin_unreachable();
}
