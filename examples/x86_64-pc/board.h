/* SPDX-License-Identifier: MIT */
/*
 * board.h -- what board.c offers the interrupt handling code of either
 * IDT stub layout (trap.c with isr.S, kernel-trap.c with kernel-isr.S).
 */
#ifndef EX_BOARD_H
#define EX_BOARD_H

#include "ex.h"

/* Vectors: exceptions 0-31, the two 8259 PICs remapped to 32-47. */
#define X86_IRQ_BASE 32u
#define X86_NVECTORS 48u

/* The PIC: a spurious check, the tick (with the interrupted context) and
 * the PIT re-armed, end of interrupt.  A frame of every tick's trace. */
void handle_irq(unsigned irq, const sfu_regs *interrupted);

/* Fill f's what and note from the vector, and its trap frame at frame as
 * layout describes it: sfu decodes the cause from the frame's vector,
 * error code and CR2. */
void x86_describe(struct ex_fault *f, uint64_t vector, const struct sfu_trap_layout *layout, uint64_t frame);

#endif /* EX_BOARD_H */
