/* SPDX-License-Identifier: MIT */
/* The dump (crash/sfu_dump.h, every thread: crash/sfu_threads.h) as a
 * firmware build would compile it, with the core and the port: one
 * translation unit with the bodies, built by test/size/run.sh with
 * bare-metal flags for each target to measure the dump path's worst-case
 * stack (test/size/dump_stack.py).  The description below makes the trap
 * callback and its check part of the build (their addresses are in it),
 * as in a user's file, and the crash record's writer (SFU_DUMP_RECORD):
 * the path measured is the dump's with the record. */
#define SFU_IMPLEMENTATION
#define SFU_DUMP_SYMTAB 1
#include "sfu_threads.h"

static const struct sfu_port_range ram[] = { { 0x40000000u, 0x48000000u } };
extern const struct sfu_trap_layout size_traps[1];
extern const struct sfu_dump_table size_threads;
void size_write(const char *s, size_t n);
struct sfu_dump_state size_state;
extern volatile uint8_t size_record[16384];
const struct sfu_dump size_dump = { SFU_DUMP_INIT_FIELDS(&size_state, size_write, ram, 1, size_traps, 1),
                                    .threads = &size_threads, SFU_DUMP_RECORD(size_record, 16384) };
