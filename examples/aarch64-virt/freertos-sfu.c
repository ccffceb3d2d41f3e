/* SPDX-License-Identifier: MIT */
/*
 * freertos-sfu.c -- all sfu needs to know about freertos-port.S and
 * freertos.c: rtos/sfu_freertos.h's description (its data lives in
 * freertos.c, through freertos_tasks_c_additions.h), here with the
 * examples' output and hooks around it.  Built with the board's plain
 * flags (board.mk `plain`), as a user's own file would be.
 *
 * A user's whole file is the README's step 1 with the description's line
 * changed:
 *     #include "sfu_freertos.h"
 *     static const struct sfu_dump dump = SFU_FREERTOS_DUMP(&dump_state, board_putc);
 */
#include "ex.h"
#include "freertos/FreeRTOSConfig.h"
#include "sfu_freertos.h"

const struct sfu_dump ex_dump = { SFU_DUMP_INIT_FIELDS(&ex_dump_state, ex_write, ex_ram, 1, sfu_freertos_traps,
                                                       SFU_FREERTOS_NTRAPS),
                                  .stacks = ex_boot_stack, .nstacks = 1, .threads = &sfu_freertos_tasks,
                                  .name = ex_name_hook, .frame = ex_frame_hook,
                                  SFU_DUMP_ENTRIES(sfu_freertos_entries),
                                  SFU_DUMP_RECORD((uint8_t *)__retained_start, EX_RECORD_SIZE) };
/* (end of what sfu needs) */

/* sched.c's own table (sched-sfu.c) reads the same task contexts. */
const struct sfu_switch_layout ex_switch_layout = { .traps = sfu_freertos_traps, .ntraps = 2 };
