/* SPDX-License-Identifier: MIT */
/*
 * unwind.c -- the examples' sfu translation unit: the core's
 * implementation, the port's callbacks and the dump layer
 * (crash/sfu_dump.h), and this image's struct sfu_dump.
 *
 * Everything here is compiled for any CPU state: the core, the port and
 * the dump layer by their own SFU_CODEGEN_BEGIN/END, this file's code by
 * the same pair around it.  So the variants with FP/SIMD disabled
 * (aarch64 CPACR_EL1.FPEN = 0, x86_64 without CR4.OSFXSR) build this file
 * without -mgeneral-regs-only, and the MMU-off variant without
 * -mstrict-align, as a user's kernel might, and every scenario still runs.
 */
#define SFU_IMPLEMENTATION
#include "ex.h"

SFU_CODEGEN_BEGIN

/* What the port may read: the image's RAM, stacks included. */
static const struct sfu_port_range ram[] = { { (uintptr_t)__ram_start, (uintptr_t)__ram_end } };

/* The dump's output: the console, CR LF (ex_putc). */
static void ex_write(const char *s, size_t n)
{
    while (n--)
        ex_putc(*s++);
}

struct sfu_dump ex_dump = SFU_DUMP_INIT(ex_dump, ex_write, ram, 1, ex_trap_layouts, 0);

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

void ex_unwind_setup(void)
{
    static bool done;

    if (done)
        return;
    done = true;
    /* The board's vector code (its count is a variable of the board's
     * trap code, not a constant), and the boot stack's bounds: walks
     * outside a thread stay on it. */
    ex_dump.ctx.ntraps = ex_trap_nlayouts;
    ex_dump.port.stack_lo = addr_of(__stack_lo);
    ex_dump.port.stack_hi = addr_of(__stack_hi);
    /* GNU ld leaves one merged section followed by zero padding, lld one
     * section per object; both are an array of sections to the core.
     * lld's unmerged sections need SFU_OPT_START_PCREL (without it, V1/V2
     * ones are refused: SFU_E_LINKED).  Every function must lie in .text
     * (link.ld's __text_start/__text_end, SFU_DUMP_LINKER_TEXT), or a
     * wrong option is refused here rather than walked (SFU_E_CODE_RANGE):
     * sfu_dump_sections uses sfu_section_split_code. */
    (void)sfu_dump_sections(&ex_dump);
}

SFU_CODEGEN_END
