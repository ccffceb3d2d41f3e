/* SPDX-License-Identifier: MIT */
/*
 * sfu_port_aarch64.h -- sfu's port for bare-metal AArch64 (EL1, or EL2 with
 * VHE): what differs per CPU, nothing else.  Included through
 * port/sfu_port.h (-I <sfu>/port) by crash/sfu_layout.h and
 * crash/sfu_dump.h; it includes core/sfu.h (-I <sfu>/core).
 *
 * The arch hooks crash/sfu_layout.h lists (THE PORT'S ARCH HOOKS):
 *
 *   SFU_PORT_CAPTURE(sfu_regs *r)    pc, sp, x29, x30 where it is written
 *   SFU_PORT_STRIP_RA                PAC strip with XPACLRI (sfu_port_strip_ra)
 *   SFU_PORT_NREGS, _DWARF_FP, _RA   x0..x30 and SP by DWARF number
 *   SFU_PORT_STACK_ALIGN             16 (AAPCS64)
 *   sfu__port_lower_priv(spsr)       EL0 (or AArch32) was interrupted
 *   sfu__port_call_target            BL's target, for call.callees
 *   sfu__port_indirect_call          a BLR (or BLRAA, BLRAB) ends at a
 *                                    return address (a call through a
 *                                    null pointer left it)
 *   sfu__port_live_sp                SP_EL0, for SFU_TRAP_SP_LIVE
 *   SFU_PORT_FAULT_WORDS, sfu__port_fault_pack, sfu__port_live_fault,
 *   SFU_PORT_FAULT_TEXT              a fault's words (ESR_ELx, FAR_ELx),
 *                                    read live (MRS) where a frame has none,
 *                                    and their line (sfu_fault_aarch64.h)
 *
 * and the register lists of AArch64 layouts (struct sfu_trap_layout,
 * struct sfu_switch_layout):
 *
 *   SFU_AARCH64_TRAP_REGS_X0(off)    regs.reg[] of a frame holding x0..x30
 *                                    one after the other from byte off
 *                                    (Linux's pt_regs, and most kernels)
 *   SFU_AARCH64_SWITCH_REGS_X19(off) regs.reg[] of a saved thread context
 *                                    holding x19..x29 one after the other
 *   SFU_AARCH64_PT_REGS(...)         a whole Linux-like trap layout
 *   SFU_AARCH64_PT_REGS_FAULT(...)   the same, with the ESR and FAR it saved
 *   SFU_AARCH64_SWITCH_PUSHED(...)   a whole pushed switch context layout
 *   sfu_aarch64_el0(spsr)            the interrupted code ran at EL0
 *
 * Built with SFU_SAFE_CODEGEN (default), the hooks never touch FP/SIMD
 * registers and never make an unaligned access: usable with the MMU off
 * and with CPACR_EL1.FPEN = 0, whatever the file's flags.
 */
#ifndef SFU_PORT_AARCH64_H
#define SFU_PORT_AARCH64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfu.h"
#include "sfu_capture_aarch64.h"
#include "sfu_fault_aarch64.h"

/* DWARF numbers (AADWARF64): x0..x30 are 0..30, SP is 31. */
#define SFU_PORT_NREGS 32
#define SFU_PORT_DWARF_FP 29
#define SFU_PORT_DWARF_RA 30

/* AAPCS64, "Universal stack constraints": SP is 16-byte aligned at every
 * public interface; gcc keeps it so inside functions too, and
 * SCTLR_EL1.SA makes a misaligned SP fault on use. */
#define SFU_PORT_STACK_ALIGN 16u

SFU_CODEGEN_BEGIN

/* SPSR_EL1.M (ARM ARM, "SPSR_EL1"): M[4] set is an AArch32 context, which
 * an AArch64 EL1 can only have interrupted at EL0; else M[3:2] is the
 * exception level, and EL0 (EL0t) is user mode. */
static inline bool sfu_aarch64_el0(uint64_t spsr)
{
    return (spsr & 0x10u) != 0 || ((spsr >> 2) & 3u) == 0;
}

static inline bool sfu__port_lower_priv(uint64_t spsr)
{
    return sfu_aarch64_el0(spsr);
}

/* A direct call is BL (ARM ARM, "BL"): 0b100101 and a signed 26-bit word
 * offset from the BL itself, 4 bytes before the return address. */
#define SFU__PORT_CALL_LEN 4
static inline bool sfu__port_call_target(const uint8_t *b, uint64_t ra, uint64_t *to)
{
    uint32_t insn = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    uint64_t imm = insn & 0x3ffffffu;

    if ((insn & 0xfc000000u) != 0x94000000u)
        return false;
    if (imm & 0x2000000u)
        imm |= ~(uint64_t)0x3ffffff; /* sign-extend imm26 */
    *to = ra - 4u + (imm << 2);
    return true;
}

/* An indirect call, BLR Xn (0xd63f0000 | n << 5) or its pointer
 * authenticating forms BLRAA/BLRAB(Z) (0xd63f0800, 0xd73f0800 with key
 * and modifier bits), is the 4 bytes b[0..4) before a return address (ARM
 * ARM, "BLR", "BLRAA, BLRAAZ, BLRAB, BLRABZ").  A call through a null
 * function pointer is one. */
#define SFU__PORT_ICALL_LEN 4
static inline bool sfu__port_indirect_call(const uint8_t *b, unsigned n)
{
    uint32_t insn;

    if (n < 4)
        return false;
    b += n - 4u;
    insn = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return (insn & 0xfffffc1fu) == 0xd63f0000u || (insn & 0xfefff800u) == 0xd63f0800u;
}

/* SFU_TRAP_SP_LIVE: an entry that runs its handler on SP_EL1 and saved no
 * SP leaves the interrupted EL0/EL1t SP in SP_EL0 (ARM ARM, "SP_EL0").
 * Knob SFU_PORT_LIVE_SP: another expression for it (an EL2 kernel's, a
 * test's); by default MRS SP_EL0, which needs EL1 or higher, and SPSel 1:
 * with SPSel 0 SP_EL0 is the SP this code runs on, not an interrupted
 * one, and MRS SP_EL0 is UNDEFINED there (ARM ARM, "SP_EL0"): the live SP
 * is then unknown (false), and the walk stops, never traps. */
#define SFU__PORT_HAS_LIVE_SP 1
static inline bool sfu__port_live_sp(uint64_t *sp)
{
#ifdef SFU_PORT_LIVE_SP
    *sp = (uint64_t)(SFU_PORT_LIVE_SP);
#else
    uint64_t v;

    __asm__ volatile("mrs %0, spsel" : "=r"(v));
    if ((v & 1u) == 0)
        return false;
    __asm__ volatile("mrs %0, sp_el0" : "=r"(v));
    *sp = v;
#endif
    return true;
}

/* A synchronous exception's words (struct sfu_trap_fault of
 * sfu_layout.h): 0 ESR_ELx, 1 FAR_ELx, as a crash record keeps them (code,
 * addr) and sfu_aarch64_fault decodes them. */
#define SFU_PORT_FAULT_WORDS 2
#define SFU_PORT_FAULT_TEXT sfu_aarch64_fault
static inline unsigned sfu__port_fault_pack(const uint64_t *w, unsigned have, uint64_t *code, uint64_t *addr)
{
    *code = w[0];
    *addr = w[1];
    return ((have & 1u) ? SFU_FAULT_CODE : 0u) | ((have & 2u) ? SFU_FAULT_ADDR : 0u);
}

/* Word i as the CPU holds it in the fault's handler, for a frame that has
 * none (an entry that passes them in registers): ESR_ELx and FAR_ELx of
 * the level the dump runs at, the one the fault was taken to (CurrentEL,
 * ARM ARM "CurrentEL": EL in bits [3:2]).  An RTOS built to run at EL3
 * (FreeRTOS's ARM_AARCH64 port without GUEST) or at EL2 without
 * HCR_EL2.E2H finds its syndrome there, not in ESR_EL1, which would hold
 * some older EL1 fault's.  Each register is read only at its own level
 * (an MRS of ESR_EL3 below EL3 is UNDEFINED).  Knob SFU_PORT_LIVE_FAULT(i):
 * another expression for them (a test's). */
static inline bool sfu__port_live_fault(unsigned i, uint64_t *v)
{
#ifdef SFU_PORT_LIVE_FAULT
    *v = (uint64_t)(SFU_PORT_LIVE_FAULT(i));
#else
    uint64_t r, el;

    __asm__ volatile("mrs %0, CurrentEL" : "=r"(el));
    el = (el >> 2) & 3u;
    if (el == 3 && i == 0)
        __asm__ volatile("mrs %0, esr_el3" : "=r"(r));
    else if (el == 3)
        __asm__ volatile("mrs %0, far_el3" : "=r"(r));
    else if (el == 2 && i == 0)
        __asm__ volatile("mrs %0, esr_el2" : "=r"(r));
    else if (el == 2)
        __asm__ volatile("mrs %0, far_el2" : "=r"(r));
    else if (i == 0)
        __asm__ volatile("mrs %0, esr_el1" : "=r"(r));
    else
        __asm__ volatile("mrs %0, far_el1" : "=r"(r));
    *v = r;
#endif
    return i < SFU_PORT_FAULT_WORDS;
}

/* Pointer authentication (FEAT_PAuth; ARM ARM, "Pointer authentication").
 * With -mbranch-protection=pac-ret, PACIASP signs the LR before it is
 * saved, so a return address read from the stack carries a PAC in its
 * upper bits (the FRE says so with mangled_ra_p); the core asks for it to
 * be stripped.  XPACLRI is in the HINT space (HINT #7): a NOP on a CPU
 * without PAuth, where there is no PAC to strip, so it is always safe.  It
 * works on x30 only, hence the register binding. */
static inline uint64_t sfu_port_strip_ra(void *ctx, uint64_t ra)
{
    register uint64_t x30 __asm__("x30") = ra;

    (void)ctx;
    __asm__("hint #7" /* xpaclri */ : "+r"(x30));
    return x30;
}
#define SFU_PORT_STRIP_RA sfu_port_strip_ra

SFU_CODEGEN_END

/* Capture the registers at the point where the macro is written, into an
 * sfu_regs (sfu_capture_aarch64.h says why it is exact). */
#define SFU_PORT_CAPTURE(r) SFU_CAPTURE_AARCH64(r)


/* regs.reg[] of a struct sfu_trap_layout for a frame holding x0..x30 one
 * after the other from byte off (SP is found through the layout's sp). */
#define SFU_AARCH64_TRAP_REGS_X0(off)                                                                \
    {                                                                                                \
        SFU_AT((off) + 0x00), SFU_AT((off) + 0x08), SFU_AT((off) + 0x10), SFU_AT((off) + 0x18),      \
        SFU_AT((off) + 0x20), SFU_AT((off) + 0x28), SFU_AT((off) + 0x30), SFU_AT((off) + 0x38),      \
        SFU_AT((off) + 0x40), SFU_AT((off) + 0x48), SFU_AT((off) + 0x50), SFU_AT((off) + 0x58),      \
        SFU_AT((off) + 0x60), SFU_AT((off) + 0x68), SFU_AT((off) + 0x70), SFU_AT((off) + 0x78),      \
        SFU_AT((off) + 0x80), SFU_AT((off) + 0x88), SFU_AT((off) + 0x90), SFU_AT((off) + 0x98),      \
        SFU_AT((off) + 0xa0), SFU_AT((off) + 0xa8), SFU_AT((off) + 0xb0), SFU_AT((off) + 0xb8),      \
        SFU_AT((off) + 0xc0), SFU_AT((off) + 0xc8), SFU_AT((off) + 0xd0), SFU_AT((off) + 0xd8),      \
        SFU_AT((off) + 0xe0), SFU_AT((off) + 0xe8), SFU_AT((off) + 0xf0), SFU_TRAP_NOT_SAVED         \
    }

/* regs.reg[] of a struct sfu_switch_layout whose context holds the
 * callee-saved x19..x29 one after the other from byte off (AAPCS64: a
 * context switch called as a function saves only those, its SP and its
 * return address; Linux's cpu_context, Zephyr's _callee_saved).  x30 is
 * left out: right after the switch's `ret` the link register is the
 * resume PC; list it with .reg[30] = SFU_AT(...) if your context has it
 * elsewhere. */
#define SFU_AARCH64_SWITCH_REGS_X19(off)                                                             \
    {                                                                                                \
        [19] = SFU_AT((off) + 0x00), [20] = SFU_AT((off) + 0x08), [21] = SFU_AT((off) + 0x10),       \
        [22] = SFU_AT((off) + 0x18), [23] = SFU_AT((off) + 0x20), [24] = SFU_AT((off) + 0x28),       \
        [25] = SFU_AT((off) + 0x30), [26] = SFU_AT((off) + 0x38), [27] = SFU_AT((off) + 0x40),       \
        [28] = SFU_AT((off) + 0x48), [29] = SFU_AT((off) + 0x50)                                     \
    }

/* A whole Linux-like trap layout in one line: struct T (x0..x30 in the
 * array member x, and members pc (ELR), sp, pstate (SPSR)) saved at the SP
 * of every call from the entry code [start, end) into C.  _FAULT: and
 * its members esr and far, the syndrome of a synchronous exception
 * (struct sfu_trap_fault: give this form to the sync entry's layout). */
#define SFU_AARCH64_PT_REGS(start_, end_, T, x, pc_, sp_, pstate_)                                     \
    { SFU__AARCH64_PT_REGS_FIELDS(start_, end_, T, x, pc_, sp_, pstate_) }
#define SFU_AARCH64_PT_REGS_FAULT(start_, end_, T, x, pc_, sp_, pstate_, esr_, far_)                    \
    {                                                                                                \
        SFU__AARCH64_PT_REGS_FIELDS(start_, end_, T, x, pc_, sp_, pstate_),                          \
        .fault = { .at = { SFU_AT(offsetof(T, esr_)), SFU_AT(offsetof(T, far_)) } }                   \
    }
#define SFU__AARCH64_PT_REGS_FIELDS(start_, end_, T, x, pc_, sp_, pstate_)                             \
    .call = { .start = (start_), .end = (end_) },                                                    \
    .frame = { .from = SFU_TRAP_FRAME_SP, .size = sizeof(T), .align = 16 },                          \
    .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(offsetof(T, sp_)) },                             \
    .regs = { .pc = SFU_AT(offsetof(T, pc_)), .mode = SFU_AT(offsetof(T, pstate_)),                  \
              .reg = SFU_AARCH64_TRAP_REGS_X0(offsetof(T, x)) }

/* A whole saved-switch-context layout: a switch called as a function that
 * pushed `size` bytes on the thread's stack (popped on resume: the SP is
 * the context's end) holding x19..x29 from byte x19 and the resume PC
 * (x30) at byte pc. */
#define SFU_AARCH64_SWITCH_PUSHED(size_, x19, pc_) SFU_SWITCH_PUSHED(size_, 16, pc_, SFU_AARCH64_SWITCH_REGS_X19(x19))

#endif /* SFU_PORT_AARCH64_H */
