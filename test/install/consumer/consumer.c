/* SPDX-License-Identifier: MIT */
/* consumer.c - a bare-metal program as a user of an installed (or vendored)
 * sfu writes it: the README's recipe, built for aarch64 or x86_64 with
 * only the include folders and the linker-fragment folder the package
 * gives (pkg-config, CMake).  test/install/run.sh builds it every way sfu
 * can be consumed and checks the image's .sframe; it is linked, not run.
 * CONSUMER_ANGLE: include as <sfu/...> instead of the README's "..."; the
 * crash record's header only shows that common/ resolves. */
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#define SFU_ERROR_STRINGS 1
#ifdef CONSUMER_ANGLE
#include <sfu/sfu_port.h>
#include <sfu/common/sfu_crash.h>
#else
#include "sfu_port.h"
#include "common/sfu_crash.h"
#endif

extern const uint8_t __sframe_start[], __sframe_end[]; /* sframe.ld */
extern char __ram_start[], __ram_end[], __stack_top[]; /* link.ld */

static sfu_section secs[8];
static struct sfu_port_range ram[] = { { (uintptr_t)__ram_start, (uintptr_t)__ram_end } };
static struct sfu_port_ctx ctx = { ram, 1, NULL, 0 };
static sfu_frame frames[16];
volatile int consumer_result;

__attribute__((noinline)) static int consumer_walk(uint64_t lo, uint64_t hi)
{
    sfu_port port = SFU_PORT_INIT(&ctx, lo, hi);
    sfu_regs regs;
    size_t nsecs, n = 0;
    int err;

    SFU_PORT_CAPTURE(&regs);
    err = sfu_section_split(secs, 8, &nsecs, __sframe_start, (size_t)(__sframe_end - __sframe_start),
                            (uintptr_t)__sframe_start, 0);
    if (err != SFU_OK)
        return err;
    err = sfu_backtrace(secs, nsecs, &port, &regs, frames, 16, &n);
    return err;
}

void _start(void)
{
    consumer_result = consumer_walk((uintptr_t)__ram_start, (uintptr_t)__stack_top);
    for (;;)
        ;
}
