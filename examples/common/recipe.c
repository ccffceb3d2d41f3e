/* SPDX-License-Identifier: MIT */
/*
 * recipe.c -- the README's step 1 ("sfu in your kernel") as it stands
 * there, after two lines only the examples need: test/firmware/run.sh
 * checks that the README's code is in this file, and the recipe scenario
 * runs it on every image, at the bottom of the demo call chain.  It is
 * built with the image's flags only; the rest of the example does not use
 * it.  board_putc stands for the kernel's console; __ram_start/__ram_end,
 * which SFU_DUMP_PUTC reads, are defined by the examples' linker scripts.
 */
#define SFU_STATIC /* the examples' own sfu is in unwind.c: this copy stays private */
#ifdef SFRAME_OPTS
#define SFU_DUMP_SFRAME_OPTS SFRAME_OPTS /* lld-linked images: SFU_OPT_START_PCREL (build.mk) */
#define SFU_DUMP_SECTIONS 32             /* lld: one section per object */
#endif

#define SFU_IMPLEMENTATION
#include "sfu_dump.h" /* -I <sfu>/core -I <sfu>/crash -I <sfu>/port */

void board_putc(char c); /* your console's output */
void board_main(void);   /* your C entry point: a whole trace ends there */
static struct sfu_dump_state dump_state; /* zeroed: the dump's working memory */
/* Reads stay in the linker script's [__ram_start, __ram_end). */
static const uint64_t entries[] = { (uintptr_t)board_main };
static const struct sfu_dump dump = { SFU_DUMP_PUTC_FIELDS(&dump_state, board_putc, NULL, 0), SFU_DUMP_ENTRIES(entries) };

void backtrace_here(void) /* or in your panic() */
{
    sfu_dump_stack(&dump);
}
