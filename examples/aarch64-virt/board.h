/* SPDX-License-Identifier: MIT */
/*
 * board.h -- what board.c offers the exception handling code of either
 * vector layout (trap.c with vectors.S, kernel-trap.c with kernel-entry.S).
 */
#ifndef EX_BOARD_H
#define EX_BOARD_H

#include "ex.h"

/* The GIC: acknowledge, run the tick (with the interrupted context),
 * re-arm, end.  A frame of every tick's trace. */
void handle_irq(const sfu_regs *interrupted);

/* True if the synchronous exception (ESR_EL1, ELR_EL1) is HLT #0xF000
 * trapped as undefined because semihosting is off: the caller returns -1
 * in x0 and resumes after it, and board_exit falls back to PSCI. */
bool a64_semihosting_trap(uint64_t esr, uint64_t elr);

/* Fill f's what and note from the vector (group * 4 + type, ARM ARM
 * "Exception vectors"), and its trap frame at frame as layout describes
 * it: sfu decodes the cause from the frame's syndrome words. */
void a64_describe(struct ex_fault *f, unsigned kind, const struct sfu_trap_layout *layout, uint64_t frame);

#endif /* EX_BOARD_H */
