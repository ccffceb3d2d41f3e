/* SPDX-License-Identifier: MIT */
/*
 * threadx-sfu.c -- all sfu needs to know about threadx-port.S and
 * threadx.c: rtos/sfu_threadx.h's description, its TX_THREAD offsets
 * checked against threadx/tx_api.h, here with the examples' output and
 * hooks around it.  Built with the board's plain flags (board.mk
 * `plain`), as a user's own file would be.
 *
 * A user's whole file is the README's step 1 with these lines before
 * its includes and the description's line changed:
 *     #include "tx_api.h"
 *     #define SFU_THREADX_IRQ_HANDLER tx_irq_handler
 *     #define SFU_THREADX_SYSTEM_STACK_LO __exc_stack_start
 *     #define SFU_THREADX_SYSTEM_STACK_HI __exc_stack_end
 *     #include "sfu_threadx.h"
 *     static const struct sfu_dump dump = SFU_THREADX_DUMP(&dump_state, board_putc);
 */
#include "ex.h"
#include "threadx/tx_api.h"

#define SFU_THREADX_ARM_FP 1
#define SFU_THREADX_IRQ_HANDLER tx_irq_handler
#define SFU_THREADX_FAULT_HANDLER tx_fault_handler
#define SFU_THREADX_OVERFLOW_HANDLER tx_overflow_fault
#define SFU_THREADX_SYSTEM_STACK_LO __exc_stack_start /* with SP_EL1's top KiB (threadx.c) */
#define SFU_THREADX_SYSTEM_STACK_HI __exc_stack_end
#define SFU_THREADX_ENTRY board_main
#define SFU_THREADX_DATA 1 /* the examples' sfu code is in unwind.c */
#include "sfu_threadx.h"

const struct sfu_dump ex_dump = { SFU_DUMP_INIT_FIELDS(&ex_dump_state, ex_write, ex_ram, 1, sfu_threadx_traps,
                                                       SFU_THREADX_SWITCH_TRAPS),
                                  .stacks = ex_boot_stack, .nstacks = 1, .threads = &sfu_threadx_threads,
                                  .name = ex_name_hook, .frame = ex_frame_hook,
                                  SFU_DUMP_ENTRIES(sfu_threadx_entries),
                                  SFU_DUMP_RECORD((uint8_t *)__retained_start, EX_RECORD_SIZE) };
/* (end of what sfu needs) */

/* sched.c's own table (sched-sfu.c) reads the same frames. */
const struct sfu_switch_layout ex_switch_layout = { .traps = &sfu_threadx_traps[SFU_THREADX_SWITCH_TRAPS],
                                                    .ntraps = SFU_THREADX_NTRAPS - SFU_THREADX_SWITCH_TRAPS };
