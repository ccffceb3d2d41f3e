/* SPDX-License-Identifier: MIT */
/*
 * threadx-sfu.c -- all sfu needs to know about threadx-port.S and
 * threadx.c: rtos/sfu_threadx.h's description, its TX_THREAD offsets
 * checked against threadx/tx_api.h, after the examples' own output,
 * memory, hooks and record (ex.h, EX_DUMP_RTOS_OWN_FIELDS: what README
 * step 1's description gives a user).  Built with the board's plain
 * flags (board.mk `plain`, with the ThreadX build's ENABLE_ARM_FP), as a
 * user's own file would be.  The C functions the port's stubs call are
 * the header's default names (tx_irq_handler, tx_fault_handler,
 * tx_overflow_fault: threadx.c).
 *
 * A user's whole file is the README's step 1 with these lines before
 * its includes, its entries line and its description line changed
 * (SFU_THREADX_DATA here stands for step 1's SFU_IMPLEMENTATION: the
 * examples' sfu code is in unwind.c):
 *     #include "tx_api.h"
 *     #define SFU_THREADX_SYSTEM_STACK_LO __exc_stack_start
 *     #define SFU_THREADX_SYSTEM_STACK_HI __exc_stack_end
 *     #define SFU_THREADX_ENTRY board_main      (where it is not main)
 *     #include "sfu_threadx.h"
 *     static const struct sfu_dump dump = SFU_THREADX_DUMP(&dump_state, board_putc);
 */
#include "ex.h"
#include "threadx/tx_api.h"

#define SFU_THREADX_SYSTEM_STACK_LO __exc_stack_start /* with SP_EL1's top KiB (threadx.c) */
#define SFU_THREADX_SYSTEM_STACK_HI __exc_stack_end
#define SFU_THREADX_ENTRY board_main
#define SFU_THREADX_DATA 1
#include "sfu_threadx.h"

const struct sfu_dump ex_dump = { EX_DUMP_RTOS_OWN_FIELDS, SFU_THREADX_FIELDS, SFU_DUMP_ENTRIES(sfu_threadx_entries) };
/* (end of what sfu needs) */

/* sched.c's own table (sched-sfu.c) reads the same frames. */
const struct sfu_switch_layout ex_switch_layout = { .traps = &sfu_threadx_traps[SFU_THREADX_SWITCH_TRAPS],
                                                    .ntraps = SFU_THREADX_NTRAPS - SFU_THREADX_SWITCH_TRAPS };
