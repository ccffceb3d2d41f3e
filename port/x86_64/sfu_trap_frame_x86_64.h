/* SPDX-License-Identifier: MIT */
/* sfu_trap_frame_x86_64.h - byte offsets of struct sfu_x86_64_trap_frame,
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
#ifndef SFU_TRAP_FRAME_X86_64_H
#define SFU_TRAP_FRAME_X86_64_H

#define SFU_X86_64_TF_RBP 0x30
#define SFU_X86_64_TF_DWARF_RSP 0x38
#define SFU_X86_64_TF_DWARF_RIP 0x80
#define SFU_X86_64_TF_CR2 0x88
#define SFU_X86_64_TF_PAD 0x90
#define SFU_X86_64_TF_VECTOR 0x98
#define SFU_X86_64_TF_ERROR 0xa0
#define SFU_X86_64_TF_RIP 0xa8
#define SFU_X86_64_TF_CS 0xb0
#define SFU_X86_64_TF_RSP 0xc0
#define SFU_X86_64_TF_SIZE 0xd0

#endif /* SFU_TRAP_FRAME_X86_64_H */
