/*
 * recipe.c -- the README's recipe ("sfu in your kernel") as it stands
 * there, nothing added: test/firmware/run.sh checks that the README's code
 * is this file's, and the recipe scenario runs it on every image (from a
 * timer interrupt, so the walk crosses the vector code's trap frame).
 * It is built with the image's flags only; the rest of the example does
 * not use it.  ex_printf and __ram_start/__ram_end stand for the kernel's
 * printk and its RAM.
 */
#define SFU_IMPLEMENTATION
#define SFU_STATIC        /* sfu's functions private to this file */
#define SFU_ERROR_STRINGS 1
#include "sfu_port.h"     /* -I <sfu>/core -I <sfu>/port */

#ifndef SFRAME_OPTS
#define SFRAME_OPTS 0     /* lld-linked: SFU_OPT_START_PCREL */
#endif

extern const uint8_t __sframe_start[], __sframe_end[]; /* linker/sframe.ld */
extern char __ram_start[], __ram_end[];                /* every range stacks are in */
extern const struct sfu_trap_layout ex_trap_layouts[]; /* step 2 */
void ex_printf(const char *fmt, ...);

static sfu_section secs[64];
static struct sfu_port_range ram[] = { { (uintptr_t)__ram_start, (uintptr_t)__ram_end } };
static struct sfu_port_ctx ctx = { .ram = ram, .nram = 1, .traps = ex_trap_layouts, .ntraps = 1 }; /* step 1: no traps */

/* The caller's backtrace; [lo, hi]: the stack of the thread that calls. */
void backtrace_here(uint64_t lo, uint64_t hi)
{
    sfu_port port = SFU_PORT_INIT(&ctx, lo, hi);
    sfu_regs regs;
    sfu_frame f[32];
    size_t nsecs, n = 0, i;
    int err;

    SFU_PORT_CAPTURE(&regs);
    err = sfu_section_split(secs, 64, &nsecs, __sframe_start, (size_t)(__sframe_end - __sframe_start),
                            (uintptr_t)__sframe_start, SFRAME_OPTS);
    if (err != SFU_OK) {
        ex_printf("backtrace: .sframe: %s\n", sfu_strerror(err)); /* SFU_E_FULL: more than 64 */
        return;
    }
    err = sfu_backtrace(secs, nsecs, &port, &regs, f, 32, &n);
    for (i = 0; i < n; i++)
        ex_printf("  #%u 0x%llx%s\n", (unsigned)i, (unsigned long long)f[i].pc,
                  (f[i].flags & SFU_FRAME_USER) ? " (user)" : i && (f[i].flags & SFU_FRAME_EXACT) ? " (interrupted)" : "");
    ex_printf("backtrace: %u frames, stopped: %s\n", (unsigned)n, sfu_strerror(err));
}
