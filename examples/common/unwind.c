/* SPDX-License-Identifier: MIT */
/*
 * unwind.c -- the examples' sfu translation unit: the core's
 * implementation, the port's callbacks and the dump (crash/sfu_dump.h,
 * crash/sfu_threads.h), and what this image's dump description refers to:
 * its state, its RAM, the boot stack, the output.  (The description itself,
 * ex_dump, is defined by the trap code with its layouts: EX_DUMP.)
 *
 * Everything here is compiled for any CPU state: the core, the port and
 * the dump by their own SFU_CODEGEN_BEGIN/END, this file's code by the
 * same pair around it.  So the variants with FP/SIMD disabled (aarch64
 * CPACR_EL1.FPEN = 0, x86_64 without CR4.OSFXSR) build this file without
 * -mgeneral-regs-only, and the MMU-off variant without -mstrict-align, as
 * a user's kernel might, and every scenario still runs.
 */
#define SFU_IMPLEMENTATION
#include "ex.h"

SFU_CODEGEN_BEGIN

/* The dump's state: zeroed (.bss), written by the dumps only. */
struct sfu_dump_state ex_dump_state;

/* What a walk may read: the image's RAM, stacks included.  A walk in no
 * thread stays on the boot stack area (the whole stack area: the
 * exception stacks lie below the thread stack). */
const struct sfu_port_range ex_ram[1] = { { (uintptr_t)__ram_start, (uintptr_t)__ram_end } };
const sfu_stack ex_boot_stack[1] = { { (uintptr_t)__stack_lo, (uintptr_t)__stack_hi } };
const uint64_t ex_boot_entries[1] = { (uintptr_t)board_main };

/* The dump's output: the console, CR LF (ex_putc). */
void ex_write(const char *s, size_t n)
{
    while (n--)
        ex_putc(*s++);
}

/* The examples' own walks (the crash record, the reports, the per-tick
 * check): the description's RAM and layouts, the boot stack's bounds; or
 * a thread's stacks. */
static struct sfu_port_ctx ram_ctx;
static sfu_port ram_port;
static struct sfu_port_thread thread_port;

void ex_unwind_setup(void)
{
    static bool done;

    if (done)
        return;
    done = true;
    ram_ctx.ram = ex_ram;
    ram_ctx.nram = 1;
    ram_ctx.traps = ex_dump.traps;
    ram_ctx.ntraps = ex_dump.ntraps;
    ram_ctx.entries = ex_dump.entries;
    ram_ctx.nentries = ex_dump.nentries;
    ram_port.read = sfu_port_read;
    ram_port.strip_ra = SFU_PORT_STRIP_RA;
    ram_port.trap = sfu_port_trap;
    ram_port.ctx = &ram_ctx;
    ram_port.stacks = ex_boot_stack;
    ram_port.nstacks = 1;
    ram_port.entries = ex_dump.entries;
    ram_port.nentries = ex_dump.nentries;
    /* The whole description, once: GNU ld leaves one merged section
     * followed by zero padding, lld one section per object; lld's
     * unmerged sections need SFU_OPT_START_PCREL (without it, V1/V2 ones
     * are refused: SFU_E_LINKED).  Every function must lie in .text
     * (link.ld's __text_start/__text_end, SFU_DUMP_LINKER_TEXT), or a
     * wrong option is refused here rather than walked (SFU_E_CODE_RANGE).
     * A refusal is printed by every dump. */
    (void)sfu_dump_check(&ex_dump, NULL);
}

const sfu_port *ex_ram_port(void)
{
    ex_unwind_setup();
    return &ram_port;
}

const struct sfu_port_ctx *ex_ram_ctx(void)
{
    ex_unwind_setup();
    return &ram_ctx;
}

const sfu_port *ex_thread_port(const struct ex_thread *t)
{
    sfu_stack s[2];

    /* The thread table's two stacks (sched-sfu.c): its own, its
     * exception stack. */
    ex_unwind_setup();
    s[0].lo = t->stack.lo;
    s[0].hi = t->stack.hi;
    s[1].lo = t->exc.lo;
    s[1].hi = t->exc.hi;
    return sfu_port_thread_init(&thread_port, &ram_ctx, s, 2) == SFU_OK ? &thread_port.port : NULL;
}

const sfu_port *ex_walk_port(void)
{
    const sfu_port *p = ex_current ? ex_thread_port(ex_current) : NULL;

    return p != NULL ? p : ex_ram_port();
}

SFU_CODEGEN_END
