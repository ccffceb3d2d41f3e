/* SPDX-License-Identifier: MIT */
/* stub.c - the startup stub of make size's step1 and steps123 images
 * (test/size/images.py): the entry, the console, and the kernel's own
 * objects the README's blocks name.  test/size/image.ld puts all of it in
 * an output section of its own, .stub, which the figures do not count. */
#include "kernel_stub.h"

void backtrace_here(void); /* the README's step 1 */
void board_putc(char c);
void _start(void);

void board_putc(char c)
{
    *(volatile char *)0x9000000 = c;
}

/* The C entry point step 1's description names as where a trace ends
 * (its entries): the kernel's, here an empty one. */
void board_main(void);
void board_main(void)
{
}

#if SIZE_STEPS
/* The calls steps 2 and 3 add, in the step-1 file (they name its static
 * description). */
void size_steps(uint64_t frame);
struct ex_thread ex_threads[EX_MAX_THREADS];
struct ex_thread *ex_current;
volatile uint64_t size_frame; /* not a constant: the trap dump is not folded */
#endif
#if SIZE_TRAPS
/* A step-1 block that names step 2's layouts (an older README's): an
 * object of that name, zeroed, for the link. */
const unsigned char ex_trap_layouts[512] __attribute__((aligned(16)));
#endif

void _start(void)
{
    backtrace_here();
#if SIZE_STEPS
    size_steps(size_frame);
#endif
    for (;;)
        ;
}
