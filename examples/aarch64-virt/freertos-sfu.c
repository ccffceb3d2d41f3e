/* SPDX-License-Identifier: MIT */
/*
 * freertos-sfu.c -- all sfu needs to know about freertos-port.S and
 * freertos.c: rtos/sfu_freertos.h's description (its data lives in
 * freertos.c, through rtos/freertos_tasks_c_additions.h), after the
 * examples' own output, memory, boot entry, hooks and record (ex.h,
 * EX_DUMP_RTOS_FIELDS: what README step 1's description gives a user).
 * Built with the board's plain flags (board.mk `plain`), as a user's own
 * file would be.
 *
 * A user's whole file is the README's step 1 with its include added and
 * its description line changed:
 *     #include "sfu_freertos.h"
 *     static const struct sfu_dump dump = SFU_FREERTOS_DUMP(&dump_state, board_putc);
 */
#include "ex.h"
#include "sfu_freertos.h"

const struct sfu_dump ex_dump = { EX_DUMP_RTOS_FIELDS, SFU_FREERTOS_FIELDS };
/* (end of what sfu needs) */

/* sched.c's own table (sched-sfu.c) reads the same task contexts. */
const struct sfu_switch_layout ex_switch_layout = { .traps = sfu_freertos_traps, .ntraps = 2 };
