/*
 * dump.c -- what panic() and the fault handler print about the stack.
 *
 * This is the one file the core's arrival changes: ex_dump_backtrace
 * will run sfu_backtrace over [__sframe_start, __sframe_end) with
 * sfu_port_read, and ex_tick (scenario.c) may walk from every interrupted
 * context.  Include core/sfu.h before ex.h here: the port header then
 * also defines the sfu_port callbacks (sfu_port_core_trap, ...).
 * Until then it prints a frame-pointer walk, for comparison: it skips the
 * frames built with -fomit-frame-pointer, which is the point of SFrame.
 */
#include "ex.h"

void ex_dump_regs(const struct sfu_port_regs *r)
{
    uint64_t top;

    ex_printf("  pc %p  sp %p\n", (void *)(uintptr_t)r->pc, (void *)(uintptr_t)r->sp);
    ex_printf("  fp %p", (void *)(uintptr_t)r->fp);
#if EX_HAS_LR
    ex_printf("  lr %p", (void *)(uintptr_t)r->ra);
    if (sfu_port_strip_ra(r->ra) != r->ra)
        ex_printf(" (PAC stripped %p)", (void *)(uintptr_t)sfu_port_strip_ra(r->ra));
#endif
    ex_printf("\n");
    /* The word at SP, through the checked read: the return address in a
     * frameless x86_64 leaf, and a test that refusals are reported. */
    if (sfu_port_read(NULL, r->sp, &top) == 0)
        ex_printf("  [sp] %p\n", (void *)(uintptr_t)top);
    else
        ex_printf("  [sp] (read refused: sp outside RAM or unaligned)\n");
}

/* Frame records are {saved FP, return address} at FP on both targets
 * (AAPCS64 frame record; x86_64 push %rbp below the return address). */
static void fp_walk(uint64_t fp)
{
    unsigned n;

    for (n = 0; n < 32; n++) {
        uint64_t next, ra;

        if (fp == 0) {
            ex_printf("    (fp = 0: end of chain)\n");
            return;
        }
        if (sfu_port_read(NULL, fp, &next) != 0 || sfu_port_read(NULL, fp + 8, &ra) != 0) {
            ex_printf("    (read at fp %p refused: stop)\n", (void *)(uintptr_t)fp);
            return;
        }
        ra = sfu_port_strip_ra(ra);
        if (ra == 0) {
            ex_printf("    (ra = 0: outermost frame)\n");
            return;
        }
        ex_printf("    #%u ra %p  fp %p\n", n, (void *)(uintptr_t)ra, (void *)(uintptr_t)fp);
        if (next <= fp) {
            ex_printf("    (next fp %p does not move up the stack: stop)\n",
                      (void *)(uintptr_t)next);
            return;
        }
        fp = next;
    }
    ex_printf("    (depth cap)\n");
}

void ex_dump_backtrace(const struct sfu_port_regs *r, const sfu_port_trap_frame *tf)
{
    (void)tf; /* the core will take the full register set from it */
    ex_printf("backtrace: SFrame unwinder not wired in yet (sframe %p..%p)\n",
              (void *)__sframe_start, (void *)__sframe_end);
    ex_printf("  frame-pointer walk from fp %p, for comparison:\n", (void *)(uintptr_t)r->fp);
    fp_walk(r->fp);
}
