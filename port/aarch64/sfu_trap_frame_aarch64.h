/* SPDX-License-Identifier: MIT */
/* sfu_trap_frame_aarch64.h - byte offsets of struct sfu_aarch64_trap_frame,
 * the trap frame the port's own vector code saves (examples/aarch64-virt/
 * vectors.S).  Only #defines, so the vector assembly includes it too: the
 * offsets are written once, for the C struct and the assembly alike (the
 * C header checks the struct against them).  A kernel with its own frame
 * does not need this file: it describes its frame with a struct
 * sfu_trap_layout instead.
 *
 *   offset  field
 *   0x000   x[0] .. x[30]   general registers at the exception
 *   0x0f8   sp              SP of the interrupted context (SP_EL0 when the
 *                           exception came from EL1t or EL0, else SP_EL1
 *                           before the frame was pushed)
 *   0x100   elr             ELR_EL1: the exact PC to resume at.  For
 *                           synchronous exceptions the faulting
 *                           instruction, for IRQs the next one to run
 *                           (ARM ARM, DDI 0487, "Exception entry").
 *   0x108   spsr            SPSR_EL1: PSTATE of the interrupted context
 *   0x110   esr             ESR_EL1: syndrome
 *   0x118   far             FAR_EL1: faulting address, valid only for the
 *                           exception classes that set it
 *   0x120   (size, a multiple of 16 so SP stays aligned)
 */
#ifndef SFU_TRAP_FRAME_AARCH64_H
#define SFU_TRAP_FRAME_AARCH64_H

#define SFU_AARCH64_TF_X0 0x000
#define SFU_AARCH64_TF_X29 0x0e8
#define SFU_AARCH64_TF_X30 0x0f0
#define SFU_AARCH64_TF_SP 0x0f8
#define SFU_AARCH64_TF_ELR 0x100
#define SFU_AARCH64_TF_SPSR 0x108
#define SFU_AARCH64_TF_ESR 0x110
#define SFU_AARCH64_TF_FAR 0x118
#define SFU_AARCH64_TF_SIZE 0x120

#endif /* SFU_TRAP_FRAME_AARCH64_H */
