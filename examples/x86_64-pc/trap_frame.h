/* SPDX-License-Identifier: MIT */
/* trap_frame.h - byte offsets of struct x86_trap_frame,
 * the trap frame the port's own IDT stubs save (examples/x86_64-pc/isr.S).
 * Only #defines, so the stub assembly includes it too: the offsets are
 * written once, for the C struct and the assembly alike (the C header
 * checks the struct against them).  A kernel with its own frame does not
 * need this file: it describes its frame with a struct sfu_trap_layout.
 * Lowest address first:
 *
 *   offset  field
 *   0x00    dwarf[17]    rax rdx rcx rbx rsi rdi rbp rsp r8 .. r15 rip: the
 *                        interrupted registers in DWARF register number
 *                        order (psABI, "DWARF Register Number Mapping");
 *                        rsp (7) and rip (16) are copies of iret_rsp and
 *                        iret_rip
 *   0x88    cr2          CR2 at entry: the faulting linear address, valid
 *                        for #PF (vector 14) only
 *   0x90    pad          keeps the size a multiple of 16 (see below)
 *   0x98    vector       IDT vector number, pushed by the stub
 *   0xa0    error_code   pushed by the CPU for vectors 8, 10-14, 17, 21,
 *                        29, 30; the stub pushes 0 for the others
 *   0xa8    iret_rip     pushed by the CPU.  For faults the faulting
 *                        instruction, for traps and interrupts the next
 *                        one (SDM Vol. 3A, "Exception Classifications").
 *   0xb0    cs
 *   0xb8    rflags
 *   0xc0    iret_rsp     in 64-bit mode the CPU aligns RSP to 16 and then
 *   0xc8    ss           pushes SS:RSP on every interrupt, privilege change
 *                        or not (SDM Vol. 3A, "64-Bit Mode Stack Frame"),
 *                        so iret_rsp is the interrupted RSP
 *   0xd0    (size)
 *
 * Because the CPU aligned RSP before pushing, and 0xd0 is a multiple of 16,
 * the stub calls its C handler with RSP == the trap frame address and RSP
 * 16-aligned, without a dynamic realignment.
 */
#ifndef X86_TRAP_FRAME_H
#define X86_TRAP_FRAME_H

#define X86_TF_RBP 0x30
#define X86_TF_DWARF_RSP 0x38
#define X86_TF_DWARF_RIP 0x80
#define X86_TF_CR2 0x88
#define X86_TF_PAD 0x90
#define X86_TF_VECTOR 0x98
#define X86_TF_ERROR 0xa0
#define X86_TF_RIP 0xa8
#define X86_TF_CS 0xb0
#define X86_TF_RSP 0xc0
#define X86_TF_SIZE 0xd0

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

/* The frame examples/x86_64-pc/isr.S saves (offsets and their meaning:
 * trap_frame.h), with its handler called with RSP == the frame. */
enum {
    X86_DW_RAX = 0,
    X86_DW_RBP = 6,
    X86_DW_RSP = 7,
    X86_DW_RIP = 16,
    X86_DW_COUNT = 17
};

struct x86_trap_frame {
    uint64_t dwarf[X86_DW_COUNT];
    uint64_t cr2;
    uint64_t pad;
    uint64_t vector;
    uint64_t error_code;
    uint64_t iret_rip, cs, rflags, iret_rsp, ss;
};

typedef char x86_tf_cr2_check[offsetof(struct x86_trap_frame, cr2) == X86_TF_CR2 ? 1 : -1];
typedef char x86_tf_vector_check
    [offsetof(struct x86_trap_frame, vector) == X86_TF_VECTOR ? 1 : -1];
typedef char x86_tf_rip_check[offsetof(struct x86_trap_frame, iret_rip) == X86_TF_RIP ? 1 : -1];
typedef char x86_tf_cs_check[offsetof(struct x86_trap_frame, cs) == X86_TF_CS ? 1 : -1];
typedef char x86_tf_rsp_check[offsetof(struct x86_trap_frame, iret_rsp) == X86_TF_RSP ? 1 : -1];
typedef char x86_tf_size_check[sizeof(struct x86_trap_frame) == X86_TF_SIZE ? 1 : -1];

/* Its layout: sites is an array of the call sites' return addresses (the
 * examples label theirs x86_trap_ret).  The frame starts with the
 * registers in DWARF order; it holds the vector, the error code and CR2,
 * which sfu decodes into an exception's cause. */
#define X86_TRAP_LAYOUT(site_array)                                                               \
    {                                                                                             \
        .call = { .sites = (site_array), .nsites = sizeof(site_array) / sizeof((site_array)[0]) }, \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = X86_TF_SIZE, .align = 16 },                 \
        .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(X86_TF_RSP) },                            \
        .regs = { .pc = SFU_AT(X86_TF_RIP), .mode = SFU_AT(X86_TF_CS),                            \
                  .reg = { SFU_AT(0x00), SFU_AT(0x08), SFU_AT(0x10), SFU_AT(0x18), SFU_AT(0x20),  \
                           SFU_AT(0x28), SFU_AT(0x30), SFU_AT(0x38), SFU_AT(0x40), SFU_AT(0x48),  \
                           SFU_AT(0x50), SFU_AT(0x58), SFU_AT(0x60), SFU_AT(0x68), SFU_AT(0x70),  \
                           SFU_AT(0x78), SFU_AT(0x80) } },                                        \
        .fault = { .at = { SFU_AT(X86_TF_VECTOR), SFU_AT(X86_TF_ERROR), SFU_AT(X86_TF_CR2) } }    \
    }
#endif /* __ASSEMBLER__ */

#endif /* X86_TRAP_FRAME_H */
