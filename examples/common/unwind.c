/* SPDX-License-Identifier: MIT */
/*
 * unwind.c -- the examples' sfu translation unit: the core's
 * implementation, the port's callbacks, and their set-up (sections and
 * port, once).  dump.c walks and prints with what this file sets up.
 *
 * Everything here is compiled for any CPU state: the core and the port by
 * their own SFU_CODEGEN_BEGIN/END, this file's code by the same pair around
 * it.  So the variants with FP/SIMD disabled (aarch64 CPACR_EL1.FPEN = 0,
 * x86_64 without CR4.OSFXSR) build this file without -mgeneral-regs-only,
 * and the MMU-off variant without -mstrict-align, as a user's kernel
 * might, and every scenario still runs.
 */
#define SFU_IMPLEMENTATION
#include "ex.h"

#ifndef EX_SFRAME_UNMERGED
#define EX_SFRAME_UNMERGED 0 /* 1: lld image, per-object sections */
#endif
#ifndef EX_SFRAME_OPTS /* test/firmware gives others, to see them refused */
#define EX_SFRAME_OPTS (EX_SFRAME_UNMERGED ? SFU_OPT_START_PCREL : 0u)
#endif

SFU_CODEGEN_BEGIN

sfu_section ex_secs[EX_MAX_SECTIONS];
size_t ex_nsecs;
int ex_secs_err = -1; /* -1: not set up yet */
sfu_port ex_port;

/* What the port may read: the image's RAM, stacks included. */
static struct sfu_port_range ram[1];
static struct sfu_port_ctx ctx;

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

void ex_unwind_setup(void)
{
    if (ex_secs_err >= 0)
        return;
    /* GNU ld leaves one merged section followed by zero padding, lld one
     * section per object; both are an array of sections to the core.
     * lld's unmerged sections need SFU_OPT_START_PCREL (without it, V1/V2
     * ones are refused: SFU_E_LINKED).  Every function must lie in .text
     * (link.ld's __text_start/__text_end), or a wrong option is refused
     * here rather than walked (SFU_E_CODE_RANGE). */
    ex_secs_err = sfu_section_split_code(ex_secs, EX_MAX_SECTIONS, &ex_nsecs, __sframe_start,
                                         (size_t)(__sframe_end - __sframe_start), addr_of(__sframe_start),
                                         EX_SFRAME_OPTS,
                                         addr_of(__text_start), addr_of(__text_end));
    ram[0].start = addr_of(__ram_start);
    ram[0].end = addr_of(__ram_end);
    ctx.ram = ram;
    ctx.nram = 1;
    ctx.traps = ex_trap_layouts; /* the board's vector code */
    ctx.ntraps = ex_trap_nlayouts;
    ex_port.read = sfu_port_read;
    ex_port.strip_ra = SFU_PORT_STRIP_RA; /* aarch64 PAC; NULL on x86_64 */
    ex_port.trap = sfu_port_trap;
    ex_port.ctx = &ctx;
    ex_port.stack_lo = addr_of(__stack_lo);
    ex_port.stack_hi = addr_of(__stack_hi);
    ex_port.stacks = NULL;
    ex_port.nstacks = 0;
}

SFU_CODEGEN_END
