/* SPDX-License-Identifier: MIT */
/* trap_frame.h - byte offsets of struct a64_trap_frame,
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
#ifndef A64_TRAP_FRAME_H
#define A64_TRAP_FRAME_H

#define A64_TF_X0 0x000
#define A64_TF_X29 0x0e8
#define A64_TF_X30 0x0f0
#define A64_TF_SP 0x0f8
#define A64_TF_ELR 0x100
#define A64_TF_SPSR 0x108
#define A64_TF_ESR 0x110
#define A64_TF_FAR 0x118
#define A64_TF_SIZE 0x120

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

/* The frame examples/aarch64-virt/vectors.S saves (offsets and their
 * meaning: trap_frame.h), with its handler called with SP ==
 * the frame. */
struct a64_trap_frame {
    uint64_t x[31];
    uint64_t sp;
    uint64_t elr;
    uint64_t spsr;
    uint64_t esr;
    uint64_t far;
};

typedef char a64_tf_sp_check[offsetof(struct a64_trap_frame, sp) == A64_TF_SP ? 1 : -1];
typedef char a64_tf_far_check[offsetof(struct a64_trap_frame, far) == A64_TF_FAR ? 1 : -1];
typedef char a64_tf_size_check[sizeof(struct a64_trap_frame) == A64_TF_SIZE ? 1 : -1];

/* Its layout: sites is an array of the call sites' return addresses (the
 * examples label theirs a64_trap_ret); the syndrome words the vector code
 * saves for every exception, which sfu decodes for a synchronous one
 * (sfu_dump_cause: the examples ask for it from the fault handler only). */
#define A64_TRAP_LAYOUT(site_array)                                                               \
    {                                                                                             \
        .call = { .sites = (site_array), .nsites = sizeof(site_array) / sizeof((site_array)[0]) }, \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = A64_TF_SIZE, .align = 16 },                 \
        .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(A64_TF_SP) },                             \
        .regs = { .pc = SFU_AT(A64_TF_ELR), .mode = SFU_AT(A64_TF_SPSR),                          \
                  .reg = SFU_AARCH64_TRAP_REGS_X0(A64_TF_X0) },                                   \
        .fault = { .at = { SFU_AT(A64_TF_ESR), SFU_AT(A64_TF_FAR) } }                             \
    }
#endif /* __ASSEMBLER__ */

#endif /* A64_TRAP_FRAME_H */
