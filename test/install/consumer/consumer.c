/* SPDX-License-Identifier: MIT */
/* consumer.c - a bare-metal program as a user of an installed (or vendored)
 * sfu writes it: the README's step 1 (the dump layer), built for aarch64 or x86_64 with
 * only the include folders and the linker-fragment folder the package
 * gives (pkg-config, CMake).  test/install/run.sh builds it every way sfu
 * can be consumed and checks the image's .sframe; it is linked, not run.
 * CONSUMER_ANGLE: include as <sfu/...> instead of the README's "..."; the
 * crash record's header only shows that common/ resolves. */
#define SFU_IMPLEMENTATION
#ifdef CONSUMER_ANGLE
#include <sfu/sfu_dump.h>
#include <sfu/sfu_crash.h>
#else
#include "sfu_dump.h"
#include "sfu_crash.h"
#endif

volatile char consumer_console; /* the console: a byte register */
static void console_putc(char c) { consumer_console = c; }
/* Reads stay in link.ld's [__ram_start, __ram_end). */
static struct sfu_dump_state dump_state;
static const struct sfu_dump dump = SFU_DUMP_PUTC(&dump_state, console_putc, NULL, 0);
volatile int consumer_result;

void _start(void)
{
    consumer_result = sfu_dump_stack(&dump);
    for (;;)
        ;
}
