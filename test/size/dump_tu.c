/* SPDX-License-Identifier: MIT */
/* The dump layer (crash/sfu_dump.h) as a firmware build would
 * compile it, with the core and the port: one translation unit with the
 * bodies, built by test/size/run.sh with bare-metal flags for each target
 * to measure the dump path's worst-case stack (test/size/dump_stack.py).
 * The object below makes the port's callbacks part of the build (their
 * addresses are in it), as in a user's file. */
#define SFU_IMPLEMENTATION
#define SFU_DUMP_SYMTAB 1
#include "sfu_dump.h"

static const struct sfu_port_range ram[] = { { 0x40000000u, 0x48000000u } };
void size_write(const char *s, size_t n);
struct sfu_dump size_dump = SFU_DUMP_INIT(size_dump, size_write, ram, 1, NULL, 0);
