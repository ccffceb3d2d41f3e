/* SPDX-License-Identifier: MIT */
/*
 * rtos-sfu.c -- all sfu needs to know about rtos-entry.S and rtos.c: four
 * trap layouts and the saved-task-context description.  Neither file was
 * changed for sfu.
 *
 *   task context   found through the current TCB (*rtos_ctx_slot), 0x120
 *                  or 0x320 bytes by its first word, the interrupted SP
 *                  its end; at the calls into rtos_fault, rtos_yield and
 *                  rtos_irq (told apart from the others by their callee,
 *                  the entry code has no labels)
 *   overflow       at the SP of the call into rtos_stack_overflow, the
 *                  task's SP still in SP_EL0
 *   handler fault  at the SP of the call into rtos_handler_fault, the
 *                  interrupted SP its end
 *   a task that is not running: its task context (the first two layouts)
 */
#include "ex.h"

extern char __entry_text_start[], __entry_text_end[];
extern uint64_t *volatile rtos_ctx_slot;
void rtos_fault(void), rtos_yield(void), rtos_irq(void);
void rtos_stack_overflow(uint64_t frame), rtos_handler_fault(uint64_t frame);

static const void *const task_calls[] = { rtos_fault, rtos_yield, rtos_irq };
static const void *const overflow_call[] = { rtos_stack_overflow };
static const void *const handler_call[] = { rtos_handler_fault };

#define RTOS_FRAME(fp, calls, from_, ref_, sp_source)                                                           \
    {                                                                                                         \
        .call = { .start = __entry_text_start, .end = __entry_text_end, .callees = calls,                     \
                  .ncallees = sizeof(calls) / sizeof(calls[0]) },                                             \
        .frame = { .from = from_, .ref = (const void *)(ref_), .size = (fp) ? 0x320 : 0x120, .align = 16 },    \
        .sp = { .from = sp_source }, .select = { .at = SFU_AT(0), .mask = 1, .value = (fp) },                \
        .regs = { .pc = SFU_AT((fp) ? 0x210 : 0x10), .mode = SFU_AT((fp) ? 0x218 : 0x18),                    \
                  .reg = SFU_AARCH64_TRAP_REGS_X0((fp) ? 0x220 : 0x20) },                                     \
    }

const struct sfu_trap_layout ex_trap_layouts[] = {
    RTOS_FRAME(0, task_calls, SFU_TRAP_FRAME_PTR, &rtos_ctx_slot, SFU_TRAP_SP_END),
    RTOS_FRAME(1, task_calls, SFU_TRAP_FRAME_PTR, &rtos_ctx_slot, SFU_TRAP_SP_END),
    RTOS_FRAME(0, overflow_call, SFU_TRAP_FRAME_SP, NULL, SFU_TRAP_SP_LIVE),
    RTOS_FRAME(0, handler_call, SFU_TRAP_FRAME_SP, NULL, SFU_TRAP_SP_END),
};
/* Where the boot stack starts (a task's trace ends at the zero return
 * address its first context leaves at its stack's top). */
static const uint64_t entries[] = { (uintptr_t)board_main };
EX_DUMP(ex_trap_layouts, entries);

const struct sfu_switch_layout ex_switch_layout = { .traps = ex_trap_layouts, .ntraps = 2 };
/* (end of what sfu needs) */
