/* SPDX-License-Identifier: MIT */
/*
 * sfu_port_x86_64.h -- sfu's port for bare-metal x86_64 (long mode, ring
 * 0): what differs per CPU, nothing else.  Included through
 * port/sfu_port.h (-I <sfu>/port) by crash/sfu_layout.h and
 * crash/sfu_dump.h; it includes core/sfu.h (-I <sfu>/core).
 *
 * The arch hooks crash/sfu_layout.h lists (THE PORT'S ARCH HOOKS):
 *
 *   SFU_PORT_CAPTURE(sfu_regs *r)    rip, rsp, rbp where it is written
 *   SFU_PORT_STRIP_RA                NULL: nothing is signed
 *   SFU_PORT_NREGS, _DWARF_FP, _RA   rax..r15 and rip by DWARF number
 *   SFU_PORT_STACK_ALIGN             8
 *   sfu__port_lower_priv(cs)         ring 1-3 was interrupted
 *   sfu__port_call_target            CALL rel32's target, for call.callees
 *   sfu__port_indirect_call          an indirect CALL ends at a return
 *                                    address (a call through a null
 *                                    pointer left it)
 *   sfu__port_live_sp                none (SFU_TRAP_SP_LIVE is refused)
 *
 * and the register lists of x86_64 layouts (struct sfu_trap_layout,
 * struct sfu_switch_layout):
 *
 *   SFU_X86_64_TRAP_REGS(...)        regs.reg[] of a layout, from the byte
 *                                    offsets of the 15 saved registers
 *   SFU_X86_64_SWITCH_REGS(...)      regs.reg[] of a saved thread context,
 *                                    from the offsets of the 6 callee-saved
 *   SFU_X86_64_PT_REGS(...)          a whole trap layout (members named
 *                                    rax .. r15, rip, cs, rsp)
 *   SFU_X86_64_SWITCH_PUSHED(...)    a whole pushed switch context layout
 *   sfu_x86_64_user(cs)              the interrupted code ran in ring > 0
 *
 * x86_64 has no link register: the return address is always on the stack
 * at the fixed CFA offset of the SFrame header, so sfu_regs.ra is 0.
 * Built with SFU_SAFE_CODEGEN (default), the hooks never use SSE/x87
 * registers: usable before CR4.OSFXSR is set, whatever the file's flags.
 */
#ifndef SFU_PORT_X86_64_H
#define SFU_PORT_X86_64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfu.h"
#include "sfu_capture_x86_64.h"

/* DWARF numbers (psABI, "DWARF Register Number Mapping"): rax rdx rcx rbx
 * rsi rdi rbp rsp are 0..7, r8..r15 are 8..15, the return address 16. */
#define SFU_PORT_NREGS 17
#define SFU_PORT_DWARF_FP 6
#define SFU_PORT_DWARF_RA (-1)

/* The psABI aligns the CFA to 16 at call sites, but inside a function RSP
 * (and every saved slot) is only guaranteed 8-aligned. */
#define SFU_PORT_STACK_ALIGN 8u

SFU_CODEGEN_BEGIN

/* CS's requested privilege level is the ring the interrupted code ran in
 * (SDM Vol. 3A, "Privilege Levels"); the kernel runs in ring 0. */
static inline bool sfu_x86_64_user(uint64_t cs)
{
    return (cs & 3u) != 0;
}

/* For a trap frame's mode word: ring 3, in a 16-bit selector (the CPU
 * pushes CS zero-extended); rings 1 and 2, which no kernel sfu targets
 * runs anything in, are no user mode, and a word that is no selector (a
 * misread RFLAGS, 0x246: ring 2) is none either. */
static inline bool sfu__port_lower_priv(uint64_t cs)
{
    return (cs & 3u) == 3u && (cs >> 16) == 0;
}

/* A direct call is CALL rel32 (SDM Vol. 2A, "CALL"): E8 and a signed
 * 32-bit offset from the return address, the 5 bytes before it. */
#define SFU__PORT_CALL_LEN 5
static inline bool sfu__port_call_target(const uint8_t *b, uint64_t ra, uint64_t *to)
{
    uint32_t rel = (uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 24;

    if (b[0] != 0xe8u)
        return false;
    *to = ra + (uint64_t)(int64_t)(int32_t)rel;
    return true;
}

/* An indirect CALL (SDM Vol. 2A, "CALL": FF /2, a REX prefix or none)
 * whose last byte is b[n - 1], the byte before a return address: 2 to 7
 * bytes (register, memory by a register with or without a SIB byte and
 * an 8- or 32-bit displacement, RIP-relative).  A call through a null
 * function pointer is one. */
#define SFU__PORT_ICALL_LEN 7
static inline bool sfu__port_indirect_call(const uint8_t *b, unsigned n)
{
    unsigned len, start;

    for (len = 2; len <= n && len <= SFU__PORT_ICALL_LEN; len++) {
        const uint8_t *p = b + n - len;
        unsigned modrm, mod, rm, need;

        start = (p[0] & 0xf0u) == 0x40u ? 1u : 0u; /* REX */
        if (len < start + 2u || p[start] != 0xffu)
            continue;
        modrm = p[start + 1u];
        if (((modrm >> 3) & 7u) != 2u)
            continue;
        mod = modrm >> 6;
        rm = modrm & 7u;
        need = start + 2u;
        if (mod != 3u && rm == 4u) {
            if (len < need + 1u)
                continue;
            if (mod == 0u && (p[need] & 7u) == 5u)
                need += 4u; /* SIB, no base: disp32 */
            need += 1u;
        }
        if (mod == 1u)
            need += 1u;
        else if (mod == 2u || (mod == 0u && rm == 5u))
            need += 4u;
        if (need == len)
            return true;
    }
    return false;
}

/* No second stack pointer: an entry that saved no RSP leaves it in a
 * variable (SFU_TRAP_SP_VAR) or at the frame's end (SFU_TRAP_SP_END). */
#define SFU__PORT_HAS_LIVE_SP 0
static inline bool sfu__port_live_sp(uint64_t *sp)
{
    (void)sp;
    return false;
}

SFU_CODEGEN_END

/* No pointer signing on x86_64 (CET shadow stacks do not alter the value
 * on the normal stack): the core never needs a strip_ra callback. */
#define SFU_PORT_STRIP_RA NULL

/* Capture the registers at the point where the macro is written, into an
 * sfu_regs (sfu_capture_x86_64.h says why it is exact). */
#define SFU_PORT_CAPTURE(r) SFU_CAPTURE_X86_64(r)


/* regs.reg[] of a struct sfu_trap_layout, from the byte offsets of the
 * saved registers given as rax, rbx, rcx, rdx, rsi, rdi, rbp, r8 .. r15;
 * the macro puts them in DWARF order (a frame that does not hold one of
 * them: write regs.reg[] out, SFU_AT(n) each).  rsp and rip come from the
 * layout's sp and pc (the CPU's frame). */
#define SFU_X86_64_TRAP_REGS(rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15) \
    {                                                                                              \
        SFU_AT(rax), SFU_AT(rdx), SFU_AT(rcx), SFU_AT(rbx), SFU_AT(rsi), SFU_AT(rdi), SFU_AT(rbp),  \
        SFU_TRAP_NOT_SAVED, SFU_AT(r8), SFU_AT(r9), SFU_AT(r10), SFU_AT(r11), SFU_AT(r12),           \
        SFU_AT(r13), SFU_AT(r14), SFU_AT(r15), SFU_TRAP_NOT_SAVED                                   \
    }

/* regs.reg[] of a struct sfu_switch_layout, from the byte offsets of the
 * callee-saved registers a context switch called as a function saves
 * (psABI: rbx, rbp, r12 .. r15); the others are not saved. */
#define SFU_X86_64_SWITCH_REGS(rbx, rbp, r12, r13, r14, r15)                                       \
    {                                                                                              \
        [3] = SFU_AT(rbx), [6] = SFU_AT(rbp), [12] = SFU_AT(r12), [13] = SFU_AT(r13),              \
        [14] = SFU_AT(r14), [15] = SFU_AT(r15)                                                     \
    }

/* A whole trap layout in one line, for a frame struct T whose members are
 * named rax, rbx, rcx, rdx, rsi, rdi, rbp, r8 .. r15 and the CPU's rip,
 * cs, rsp (in any order), saved at the RSP of every call from the entry
 * code [start, end) into C.  Other names: SFU_X86_64_TRAP_REGS. */
#define SFU_X86_64_PT_REGS(start_, end_, T)                                                        \
    {                                                                                              \
        .call = { .start = (start_), .end = (end_) },                                              \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = sizeof(T), .align = 8 },                     \
        .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(offsetof(T, rsp)) },                       \
        .regs = { .pc = SFU_AT(offsetof(T, rip)), .mode = SFU_AT(offsetof(T, cs)),                 \
                  .reg = SFU_X86_64_TRAP_REGS(offsetof(T, rax), offsetof(T, rbx), offsetof(T, rcx), \
                                              offsetof(T, rdx), offsetof(T, rsi), offsetof(T, rdi), \
                                              offsetof(T, rbp), offsetof(T, r8), offsetof(T, r9),   \
                                              offsetof(T, r10), offsetof(T, r11), offsetof(T, r12), \
                                              offsetof(T, r13), offsetof(T, r14), offsetof(T, r15)) } \
    }

/* A whole saved-switch-context layout: a switch called as a function that
 * pushed `size` bytes on the thread's stack (popped on resume: the RSP is
 * the context's end), the resume PC (the return address) at byte pc, the
 * six callee-saved registers at the given byte offsets. */
#define SFU_X86_64_SWITCH_PUSHED(size_, pc_, rbx, rbp, r12, r13, r14, r15) \
    SFU_SWITCH_PUSHED(size_, 8, pc_, SFU_X86_64_SWITCH_REGS(rbx, rbp, r12, r13, r14, r15))

#endif /* SFU_PORT_X86_64_H */
