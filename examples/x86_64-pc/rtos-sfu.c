/* SPDX-License-Identifier: MIT */
/*
 * rtos-sfu.c -- all sfu needs to know about rtos-isr.S and rtos.c: three
 * trap layouts and the saved-task-context description.  Neither file was
 * changed for sfu.
 *
 *   task context   found through the current TCB (*rtos_ctx_slot), 0xc0
 *                  or 0x2c0 bytes by its first word, at the call into
 *                  rtos_irq (told apart from the other call by its callee,
 *                  the stubs have no labels)
 *   fault          at the SP of the call into rtos_fault (the IST stack)
 *   a task that is not running: its task context (the first two layouts)
 */
#include "ex.h"

extern char __entry_text_start[], __entry_text_end[];
extern uint64_t *volatile rtos_ctx_slot;
void rtos_irq(void), rtos_fault(uint64_t frame);

static const void *const irq_call[] = { rtos_irq };
static const void *const fault_call[] = { rtos_fault };

#define G(fp) ((fp) ? 0x210 : 0x10)
#define RTOS_FRAME(fp, calls, from_, ref_)                                                                \
    {                                                                                                   \
        .call = { .start = __entry_text_start, .end = __entry_text_end, .callees = calls, .ncallees = 1 }, \
        .frame = { .from = from_, .ref = (const void *)(ref_), .size = (fp) ? 0x2c0 : 0xc0, .align = 16 }, \
        .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(G(fp) + 0xa0) },                               \
        .select = { .at = SFU_AT(0), .mask = 1, .value = (fp) },                                        \
        .regs = { .pc = SFU_AT(G(fp) + 0x88), .mode = SFU_AT(G(fp) + 0x90),                             \
                  .reg = SFU_X86_64_TRAP_REGS(G(fp) + 0x70, G(fp) + 0x68, G(fp) + 0x60, G(fp) + 0x58,  \
                                              G(fp) + 0x50, G(fp) + 0x48, G(fp) + 0x40, G(fp) + 0x38,  \
                                              G(fp) + 0x30, G(fp) + 0x28, G(fp) + 0x20, G(fp) + 0x18,  \
                                              G(fp) + 0x10, G(fp) + 0x08, G(fp) + 0x00) },             \
    }

const struct sfu_trap_layout ex_trap_layouts[] = {
    RTOS_FRAME(0, irq_call, SFU_TRAP_FRAME_PTR, &rtos_ctx_slot),
    RTOS_FRAME(1, irq_call, SFU_TRAP_FRAME_PTR, &rtos_ctx_slot),
    RTOS_FRAME(0, fault_call, SFU_TRAP_FRAME_SP, NULL),
};
/* Where the boot stack starts (a task's trace ends at the zero return
 * address its first context leaves at its stack's top). */
static const uint64_t entries[] = { (uintptr_t)board_main };
EX_DUMP(ex_trap_layouts, entries);

const struct sfu_switch_layout ex_switch_layout = { .traps = ex_trap_layouts, .ntraps = 2 };
/* (end of what sfu needs) */
