/* SPDX-License-Identifier: MIT */
/* sfu_port_common.h - what the bare-metal ports (aarch64, x86_64) share.
 *
 * Included by port/<arch>/sfu_port_<arch>.h after it has defined its arch
 * hooks; not meant to be included on its own.  Freestanding: <stdint.h>,
 * <stddef.h>, <stdbool.h> and core/sfu.h (for sfu_regs, sfu_port and
 * SFU_CODEGEN_BEGIN/END); no globals, no heap; everything is static
 * inline, so several translation units may include it.
 *
 * THE CONTRACT (every bare-metal port supplies these, under generic names)
 *
 *   SFU_PORT_CAPTURE(sfu_regs *r)      the registers where the macro is
 *                                      written: the first frame of a walk
 *   sfu_port_read(ctx, addr, out)      the core's read: an aligned 8-byte
 *                                      word inside the RAM ctx declares
 *   sfu_port_strip_ra                  the core's strip_ra (aarch64 PAC),
 *                                      NULL where nothing is signed
 *   sfu_port_trap(ctx, pc, sp, out)    the core's trap: the interrupted
 *                                      context from the kernel's own trap
 *                                      frame, as ctx's layouts describe it
 *   SFU_PORT_INIT(ctx, lo, hi)         an sfu_port initializer with all
 *                                      of the above
 *
 * and the arch hooks the port defines before including this file:
 *
 *   SFU_PORT_NREGS                     registers by DWARF number a trap
 *                                      frame may hold (aarch64 32, x86_64 17)
 *   SFU_PORT_DWARF_FP, SFU_PORT_DWARF_RA  the frame pointer's and (aarch64)
 *                                      the link register's DWARF numbers;
 *                                      SFU_PORT_DWARF_RA is -1 without one
 *   sfu__port_lower_priv(mode)         the saved PSTATE/CS says the
 *                                      interrupted code ran below the
 *                                      kernel's privilege level
 *   SFU__PORT_CALL_LEN,                the length of a direct call and its
 *   sfu__port_call_target(b, ra, &to)  target, from the bytes b before the
 *                                      return address ra (false: b is no
 *                                      direct call)
 *   SFU__PORT_HAS_LIVE_SP,             1 if the CPU has another SP an entry
 *   sfu__port_live_sp(&sp)             may leave the interrupted one in
 *                                      (aarch64 SP_EL0), and its reader
 *
 * READING MEMORY
 *   The core never dereferences an address it computed; it calls the
 *   port's read, and a refusal ends the walk with "memory read refused".
 *   sfu_port_read reads only 8-byte aligned words inside one of the
 *   declared ranges, so a corrupt CFA cannot make the panic handler fault
 *   (aarch64: alignment and translation faults; x86_64: #PF, #GP on
 *   non-canonical addresses).  A saved slot is always 8-aligned.
 *   Declare every range the stacks and trap frames may lie in: a kernel
 *   whose stacks are in .bss, a heap and a VMM area lists three ranges.
 *
 * THE KERNEL'S OWN TRAP FRAME
 *   Exception vector code has no SFrame info.  A walk that starts in a
 *   handler reaches the return address of the vector code's call into C;
 *   there the port reads the trap frame the vector code saved and hands
 *   the core the interrupted context.  Describe your vector code with a
 *   struct sfu_trap_layout (where its calls into C are, where the frame is
 *   from the SP at the call, the byte offset of each saved register) and
 *   your vector code stays as it is.
 *
 *   Kernels save state in many ways; each is a few lines of data:
 *     Linux-like pt_regs at the SP of a call in the entry code: sites or
 *       a code range, frame_from SFU_TRAP_FRAME_SP, the SP a word of it;
 *     an RTOS that pushes every register on the task's own stack and
 *       keeps that address in the task control block: frame_from
 *       SFU_TRAP_FRAME_PTR (&current_tcb, the field's offset), the SP
 *       the frame's end (SFU_TRAP_SP_END), or SP_EL0 (SFU_TRAP_SP_LIVE);
 *     one entry file calling several C functions, each with its own
 *       frame, no labels: callees (the instruction before the return
 *       address is checked to be a call to one of them);
 *     a frame whose size depends on a flag word (an FP context saved or
 *       not): one layout per variant, select/select_mask/select_value.
 *
 * THREADS: EVERY STACK, EACH WITHIN ITS OWN BOUNDS
 *   A thread that is not running was left by the kernel's context-switch
 *   routine: its callee-saved registers, its SP and the PC it resumes at
 *   lie in a saved context.  Describe that context once with a struct
 *   sfu_switch_layout, and sfu_port_switch_regs() turns any thread's
 *   saved context into the sfu_regs a walk starts from.  Give each walk
 *   that thread's own stacks with sfu_port_thread_init(): its bounds are
 *   those stacks and its reads are limited to them, so a walk of one
 *   thread never strays into another's stack, and never touches a guard
 *   page between stacks (a stack overflow's dump reads nothing unmapped).
 *   A kernel whose saved thread context is a trap frame (it switches by
 *   returning another interrupt frame, or its entry code saves everything
 *   on the task's stack) points the switch layout at its trap layouts.
 */
#ifndef SFU_PORT_COMMON_H
#define SFU_PORT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The port of the CPU being compiled for (-I <sfu>/port), unless one is
 * included already (a test's, another CPU's); it includes sfu.h. */
#ifndef SFU_PORT_NREGS
#include "sfu_port.h"
#endif
#if !defined(SFU_PORT_NREGS) || !defined(SFU_PORT_DWARF_FP) || !defined(SFU_PORT_DWARF_RA)
#error "sfu_layout.h: the port does not define SFU_PORT_NREGS, SFU_PORT_DWARF_FP and SFU_PORT_DWARF_RA"
#endif

/* Knob SFU_PORT_LINKER_RAM (default 0): 1 makes a NULL port context mean
 * the RAM [__ram_start, __ram_end) your linker script defines (the
 * symbols are then required); 0: a NULL context refuses every read and no
 * linker symbol is referenced, so a kernel that lists its own ranges in a
 * struct sfu_port_ctx needs no such symbols. */
#ifndef SFU_PORT_LINKER_RAM
#define SFU_PORT_LINKER_RAM 0
#endif
#if SFU_PORT_LINKER_RAM != 0 && SFU_PORT_LINKER_RAM != 1
#error "SFU_PORT_LINKER_RAM must be 0 or 1"
#endif

/* A range of memory, [start, end). */
struct sfu_port_range {
    uint64_t start;
    uint64_t end;
};

/* Offsets of a struct sfu_trap_layout that the frame does not hold. */
#define SFU_TRAP_NOT_SAVED (-1)

/* Where a trap frame is (struct sfu_trap_layout.frame_from). */
enum sfu_trap_frame_from {
    SFU_TRAP_FRAME_SP = 0,  /* at the SP the call returns with */
    SFU_TRAP_FRAME_VAR = 1, /* at the address in the variable frame_ref
                             * (a kernel's `current_regs`) */
    SFU_TRAP_FRAME_PTR = 2  /* at the address in the word frame_ref_off
                             * bytes into the struct the variable frame_ref
                             * points to (an RTOS's current TCB, whose
                             * saved-context pointer its entry code sets:
                             * `current->sp`) */
};

/* Where the interrupted SP is (struct sfu_trap_layout.sp_from). */
enum sfu_trap_sp_from {
    SFU_TRAP_SP_SAVED = 0, /* the frame's word at offset sp */
    SFU_TRAP_SP_END = 1,   /* the frame's end plus sp_add: an entry that
                            * pushed the frame onto the interrupted stack
                            * and saved no SP */
    SFU_TRAP_SP_VAR = 2,   /* the word in the variable sp_var (an entry that
                            * left it there) */
    SFU_TRAP_SP_LIVE = 3   /* still in the CPU's other stack pointer (aarch64
                            * SP_EL0, untouched by an entry that runs on
                            * SP_EL1); only where the port can read one */
};

/* The kernel's exception vector code, described.
 *
 *   where   a return address R is a call from the vector code into C when
 *           R is one of sites[0..nsites), or when R - 1 lies in
 *           [code_start, code_end) (R - 1: a call that is the last
 *           instruction of the range returns just past it).  Use the
 *           range for vector code with one call per vector, the sites
 *           for a few labelled calls.  callees[0..ncallees), if given,
 *           narrows that further to calls whose target is one of these C
 *           functions: the instruction before R must be a direct call to
 *           it (aarch64 BL, x86_64 CALL rel32), so calls with different
 *           frames in one unlabelled entry file are told apart.  The
 *           instruction is read only inside [code_start, code_end) (your
 *           linker script's bracket of the entry code), or else through
 *           the port's checked read.
 *   frame   frame_from says where the frame is: at the SP the call returns
 *           with (aarch64: SP at the BL; x86_64: just above the return
 *           address), or at the address a variable holds (frame_ref,
 *           frame_ref_off; the variable itself is read as given, the word
 *           it points to through the checked read), plus frame_off;
 *           frame_size bytes, every 8-byte word of which must pass
 *           sfu_port_read's checks; its address a multiple of frame_align.
 *   variant select_mask nonzero: the layout applies only to a frame whose
 *           word at offset select, masked, equals select_value.  Several
 *           layouts at the same call sites then describe the variants of
 *           one frame (an FP context saved or not, flagged by a word):
 *           the first whose word matches is used.
 *   fields  byte offsets in the frame, multiples of 8: the interrupted PC
 *           (ELR_EL1 / RIP), its PSTATE (SPSR_EL1) or CS (whose privilege
 *           level ends the walk cleanly when lower), and every general
 *           register by DWARF number in reg[] (aarch64 x0..x30, SP;
 *           x86_64 rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; the
 *           SFU_<ARCH>_TRAP_REGS macros write the list).  The interrupted
 *           SP: sp_from (the word at sp, the frame's end plus sp_add, the
 *           variable sp_var, or the live other SP).  SFU_TRAP_NOT_SAVED
 *           where the frame does not hold one; the frame pointer (and the
 *           aarch64 link register) must be saved, mode may be absent (the
 *           interrupted code then always counts as kernel code).
 *
 * A call site whose frame cannot be read (an unreadable frame pointer, a
 * frame outside the port's RAM, no variant matching) ends the walk with
 * SFU_E_READ: the port recognised it and says so, rather than "no unwind
 * info". */
struct sfu_trap_layout {
    const void *code_start, *code_end;
    const void *const *sites;
    size_t nsites;
    int32_t frame_off;
    uint16_t frame_size;
    uint16_t frame_align;
    int16_t pc, sp, mode;
    int16_t reg[SFU_PORT_NREGS];
    /* Added after the fields above, so an initializer written for them
     * keeps its meaning; zero is the plain case for each. */
    const void *const *callees;
    size_t ncallees;
    uint8_t frame_from, sp_from;
    int16_t frame_ref_off;
    const void *frame_ref;
    int16_t select;
    uint64_t select_mask, select_value;
    int32_t sp_add;
    const void *sp_var;
};

typedef int (*sfu_port_trap_fn)(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out);

/* The context of the port's callbacks (sfu_port.ctx): the memory the core
 * may read and the vector code's layouts.  NULL: no trap frames, and with
 * SFU_PORT_LINKER_RAM [__ram_start, __ram_end), else no memory.
 *   kernel  (optional) where the words a layout reads outside the stacks
 *           may lie too: the task control block of SFU_TRAP_FRAME_PTR.
 *           sfu_port_thread_init sets it to its base context.
 *   trap    (optional) the trap callback sfu_port_thread_init gives each
 *           thread's port; NULL: sfu_port_trap. */
struct sfu_port_ctx {
    const struct sfu_port_range *ram;
    size_t nram;
    const struct sfu_trap_layout *traps;
    size_t ntraps;
    const struct sfu_port_ctx *kernel;
    sfu_port_trap_fn trap;
};

#if SFU_PORT_LINKER_RAM
extern char __ram_start[];
extern char __ram_end[];
#endif

/* The callbacks below are compiled for any CPU state (core/sfu.h). */
SFU_CODEGEN_BEGIN

/* True if the 8 bytes at addr lie inside [start, end), without overflow. */
static inline bool sfu__port_in_range(uint64_t addr, uint64_t start, uint64_t end)
{
    return addr >= start && end >= 8 && addr <= end - 8;
}

static inline bool sfu__port_allowed(const void *ctxv, uint64_t addr)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;
    size_t i;

    if (ctx == NULL) {
#if SFU_PORT_LINKER_RAM
        return sfu__port_in_range(addr, (uint64_t)(uintptr_t)__ram_start, (uint64_t)(uintptr_t)__ram_end);
#else
        return false;
#endif
    }
    for (i = 0; ctx->ram && i < ctx->nram; i++) {
        if (sfu__port_in_range(addr, ctx->ram[i].start, ctx->ram[i].end))
            return true;
    }
    return false;
}

/* True if the size bytes at addr are align-aligned (a power of two, 8 or
 * more) and every 8-byte word of them may be read. */
static inline bool sfu_port_block_ok(const void *ctx, uint64_t addr, uint64_t size, uint64_t align)
{
    uint64_t off;

    if (align < 8 || (align & (align - 1u)) != 0 || (addr & (align - 1u)) != 0 || (size & 7u) != 0 ||
        addr > UINT64_MAX - size)
        return false;
    for (off = 0; off < size; off += 8u) {
        if (!sfu__port_allowed(ctx, addr + off))
            return false;
    }
    return true;
}

/* The core's read (sfu_port.read): the 8-byte word at addr into *out, or
 * nonzero to refuse (unaligned, or outside the declared RAM); *out is
 * untouched then.  ctx: a struct sfu_port_ctx, or NULL. */
static inline int sfu_port_read(void *ctx, uint64_t addr, uint64_t *out)
{
    if ((addr & 7u) != 0)
        return 1;
    if (!sfu__port_allowed(ctx, addr))
        return 2;
    *out = *(const volatile uint64_t *)(uintptr_t)addr;
    return 0;
}

/* A word a layout reads outside the frame (the task control block): the
 * context's RAM, or its kernel's. */
static inline bool sfu__port_read_ref(const void *ctxv, uint64_t addr, uint64_t *out)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;

    if (sfu_port_read((void *)(uintptr_t)ctxv, addr, out) == 0)
        return true;
    return ctx != NULL && ctx->kernel != NULL && sfu_port_read((void *)(uintptr_t)ctx->kernel, addr, out) == 0;
}

/* An offset of a layout that names a whole word inside the frame. */
static inline bool sfu__port_field_ok(const struct sfu_trap_layout *l, int16_t off)
{
    return off >= 0 && (off & 7) == 0 && (uint32_t)off + 8u <= l->frame_size;
}

/* The rules of a layout's frame, sites aside (sfu_port_layout_check). */
static inline int sfu__port_frame_check(const struct sfu_trap_layout *l)
{
    unsigned i;

    if (l->frame_size == 0 || (l->frame_size & 7u) != 0 || l->frame_align < 8 ||
        (l->frame_align & (l->frame_align - 1u)) != 0 || (l->frame_off & 7) != 0)
        return 1;
    if (!sfu__port_field_ok(l, l->pc) || (l->mode != SFU_TRAP_NOT_SAVED && !sfu__port_field_ok(l, l->mode)) ||
        (l->sp_from == SFU_TRAP_SP_SAVED && !sfu__port_field_ok(l, l->sp)) ||
        (l->select_mask != 0 && !sfu__port_field_ok(l, l->select)))
        return 3;
    for (i = 0; i < SFU_PORT_NREGS; i++) {
        if (l->reg[i] != SFU_TRAP_NOT_SAVED && !sfu__port_field_ok(l, l->reg[i]))
            return 4;
    }
    if (l->reg[SFU_PORT_DWARF_FP] == SFU_TRAP_NOT_SAVED ||
        (SFU_PORT_DWARF_RA >= 0 && l->reg[SFU_PORT_DWARF_RA] == SFU_TRAP_NOT_SAVED))
        return 5;
    if (l->pc == l->mode || (l->sp_from == SFU_TRAP_SP_SAVED && (l->pc == l->sp || l->sp == l->mode)))
        return 6;
    if (l->sp_from > SFU_TRAP_SP_LIVE || (l->sp_from == SFU_TRAP_SP_END && (l->sp_add & 7) != 0) ||
        (l->sp_from == SFU_TRAP_SP_VAR && (l->sp_var == NULL || ((uintptr_t)l->sp_var & 7u) != 0)) ||
        (l->sp_from == SFU_TRAP_SP_LIVE && !SFU__PORT_HAS_LIVE_SP))
        return 7;
    return 0;
}

/* Check a layout once, at boot: 0 if it is usable, else the number of the
 * first rule it breaks (1 frame size or alignment, 2 no call site given
 * (neither sites nor a code range), 3 pc/sp/mode/select outside the frame
 * or not word-aligned, 4 a register offset outside the frame, 5 no frame
 * pointer (or link register) saved, 6 pc, sp and mode not at three
 * different offsets, 7 sp_from unknown, sp_add not word-aligned, sp_var
 * missing or unaligned, or SFU_TRAP_SP_LIVE where the port has no other
 * SP, 8 frame_from unknown or its variable missing or unaligned, or
 * frame_ref_off not word-aligned).  The trap callback checks the same
 * before every use and refuses a bad layout, so a mistake here costs
 * frames, never a fault. */
static inline int sfu_port_layout_check(const struct sfu_trap_layout *l)
{
    int err = sfu__port_frame_check(l);

    if (err == 1)
        return err;
    if (!(l->sites && l->nsites) && !((uintptr_t)l->code_start < (uintptr_t)l->code_end))
        return 2;
    if (err)
        return err;
    if (l->frame_from > SFU_TRAP_FRAME_PTR ||
        (l->frame_from != SFU_TRAP_FRAME_SP && (l->frame_ref == NULL || ((uintptr_t)l->frame_ref & 7u) != 0)) ||
        (l->frame_from == SFU_TRAP_FRAME_PTR && (l->frame_ref_off < 0 || (l->frame_ref_off & 7) != 0)))
        return 8;
    return 0;
}

/* Does the instruction before return address pc call target?  aarch64:
 * BL (0b100101 imm26, ARM ARM "BL"); x86_64: CALL rel32 (E8 cd, SDM Vol.
 * 2A "CALL").  Read inside [code_start, code_end) as it is, elsewhere
 * through the checked read, never past either. */
static inline bool sfu__port_code_byte(const void *ctx, const struct sfu_trap_layout *l, uint64_t addr,
                                       uint8_t *out)
{
    uint64_t w;

    if (addr >= (uint64_t)(uintptr_t)l->code_start && addr < (uint64_t)(uintptr_t)l->code_end) {
        *out = *(const volatile uint8_t *)(uintptr_t)addr;
        return true;
    }
    if (sfu_port_read((void *)(uintptr_t)ctx, addr & ~(uint64_t)7, &w) != 0)
        return false;
    *out = (uint8_t)(w >> (8u * (addr & 7u))); /* both ports are little-endian */
    return true;
}

static inline bool sfu__port_calls(const void *ctx, const struct sfu_trap_layout *l, uint64_t pc, uint64_t target)
{
    uint8_t b[SFU__PORT_CALL_LEN];
    uint64_t to = 0;
    unsigned i;

    if (pc < SFU__PORT_CALL_LEN)
        return false;
    for (i = 0; i < SFU__PORT_CALL_LEN; i++) {
        if (!sfu__port_code_byte(ctx, l, pc - SFU__PORT_CALL_LEN + i, &b[i]))
            return false;
    }
    return sfu__port_call_target(b, pc, &to) && to == target;
}

/* Is the return address pc one of the layout's calls into C? */
static inline bool sfu__port_is_site(const void *ctx, const struct sfu_trap_layout *l, uint64_t pc)
{
    size_t i;
    bool site = false;

    for (i = 0; l->sites && i < l->nsites && !site; i++)
        site = pc == (uint64_t)(uintptr_t)l->sites[i];
    if (!site)
        site = pc - 1u >= (uint64_t)(uintptr_t)l->code_start && pc - 1u < (uint64_t)(uintptr_t)l->code_end;
    if (!site || !(l->callees && l->ncallees))
        return site;
    for (i = 0; i < l->ncallees; i++) {
        if (sfu__port_calls(ctx, l, pc, (uint64_t)(uintptr_t)l->callees[i]))
            return true;
    }
    return false;
}

static inline uint64_t sfu__port_word(uint64_t frame, int16_t off)
{
    return *(const volatile uint64_t *)(uintptr_t)(frame + (uint64_t)(uint16_t)off);
}

/* The frame of layout l at return address pc with caller SP sp, before
 * frame_off; false if a variable it goes through cannot be read. */
static inline bool sfu__port_frame_base(const void *ctx, const struct sfu_trap_layout *l, uint64_t sp,
                                        uint64_t *base)
{
    uint64_t p;

    if (l->frame_from == SFU_TRAP_FRAME_SP) {
        *base = sp;
        return true;
    }
    /* The variable is the layout's own (the user wrote its address): read
     * as it is; what it points to is data, read through the checks. */
    p = *(const volatile uint64_t *)(uintptr_t)l->frame_ref;
    if (l->frame_from == SFU_TRAP_FRAME_VAR) {
        *base = p;
        return true;
    }
    return p != 0 && p <= UINT64_MAX - (uint64_t)(uint16_t)l->frame_ref_off &&
           sfu__port_read_ref(ctx, p + (uint64_t)(uint16_t)l->frame_ref_off, base);
}

/* Does the readable frame at frame match l's variant? */
static inline bool sfu__port_variant(const struct sfu_trap_layout *l, uint64_t frame)
{
    return l->select_mask == 0 || (sfu__port_word(frame, l->select) & l->select_mask) == l->select_value;
}

/* The trap frame for return address pc with caller SP sp: its address,
 * and in *layout the layout it matched; 0 if pc is no call site of the
 * vector code, or it is one but no layout's frame there can be read
 * (*layout is then the first layout whose site matched, else NULL). */
static inline uint64_t sfu_port_trap_find(const void *ctxv, uint64_t pc, uint64_t sp,
                                          const struct sfu_trap_layout **layout)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;
    size_t i;

    *layout = NULL;
    for (i = 0; ctx && ctx->traps && i < ctx->ntraps; i++) {
        const struct sfu_trap_layout *l = &ctx->traps[i];
        uint64_t frame = 0;

        if (sfu_port_layout_check(l) != 0 || !sfu__port_is_site(ctx, l, pc))
            continue;
        if (*layout == NULL)
            *layout = l;
        if (!sfu__port_frame_base(ctx, l, sp, &frame))
            continue;
        frame += (uint64_t)(int64_t)l->frame_off;
        if (!sfu_port_block_ok(ctx, frame, l->frame_size, l->frame_align) || !sfu__port_variant(l, frame))
            continue;
        *layout = l;
        return frame;
    }
    return 0;
}

/* The interrupted SP of a frame; false if it cannot be known. */
static inline bool sfu__port_trap_sp(const struct sfu_trap_layout *l, uint64_t frame, uint64_t *sp)
{
    switch (l->sp_from) {
    case SFU_TRAP_SP_SAVED:
        *sp = sfu__port_word(frame, l->sp);
        return true;
    case SFU_TRAP_SP_END:
        *sp = frame + l->frame_size + (uint64_t)(int64_t)l->sp_add;
        return true;
    case SFU_TRAP_SP_VAR:
        *sp = *(const volatile uint64_t *)(uintptr_t)l->sp_var;
        return true;
    default:
        return sfu__port_live_sp(sp);
    }
}

/* The interrupted context held by a trap frame at frame (checked with
 * sfu_port_layout_check and readable: sfu_port_trap_find's answer, or a
 * frame a handler was given), with the full register set for rules that
 * use other registers.  Returns SFU_TRAP_USER if the frame says the
 * interrupted code ran at a lower privilege level, else SFU_TRAP_KERNEL
 * (SFU_TRAP_UNREADABLE if its SP cannot be known). */
static inline int sfu_port_trap_regs(const struct sfu_trap_layout *l, uint64_t frame, sfu_regs *out)
{
    if (!sfu__port_trap_sp(l, frame, &out->sp))
        return SFU_TRAP_UNREADABLE;
    out->pc = sfu__port_word(frame, l->pc);
    out->fp = sfu__port_word(frame, l->reg[SFU_PORT_DWARF_FP]);
#if SFU_PORT_DWARF_RA >= 0
    out->ra = sfu__port_word(frame, l->reg[SFU_PORT_DWARF_RA]);
#else
    out->ra = 0;
#endif
    /* reg[] are byte offsets from the frame, the core's dwarf_map form. */
    out->dwarf = (const uint64_t *)(uintptr_t)frame;
    out->ndwarf = SFU_PORT_NREGS;
    out->dwarf_map = l->reg;
    if (l->mode != SFU_TRAP_NOT_SAVED && sfu__port_lower_priv(sfu__port_word(frame, l->mode)))
        return SFU_TRAP_USER;
    return SFU_TRAP_KERNEL;
}

/* The core's trap callback (sfu_port.trap): the layouts of ctx, a struct
 * sfu_port_ctx.  SFU_TRAP_UNREADABLE for a call site whose frame cannot
 * be read. */
static inline int sfu_port_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
    const struct sfu_trap_layout *l = NULL;
    uint64_t frame = sfu_port_trap_find(ctx, pc, sp, &l);

    if (l == NULL)
        return SFU_TRAP_NONE;
    if (frame == 0)
        return SFU_TRAP_UNREADABLE;
    return sfu_port_trap_regs(l, frame, out);
}

/* ---- threads ------------------------------------------------------------ */

/* The kernel's saved thread context, described: what its context-switch
 * routine leaves for a thread that is not running.  The context is `size`
 * bytes at an address the kernel keeps for each thread (the saved SP of a
 * switch that pushes its registers, or the address of a context struct in
 * the thread control block), aligned to `align`.
 *
 *   pc      byte offset of the PC the thread resumes at: the return
 *           address of its call into the switch routine (the saved link
 *           register on aarch64, the word `ret` pops on x86_64)
 *   sp      byte offset of the SP it resumes with, or SFU_TRAP_NOT_SAVED:
 *           then the SP is the context's address plus sp_add (a switch
 *           that pushed the context on the thread's stack and pops it)
 *   mode    with mode_saved, byte offset of the PSTATE / CS it resumes
 *           with: a thread switched out at a lower privilege level (EL0,
 *           ring 3) is one frame, its user code, and its walk ends there
 *           with SFU_END_USER (sfu_port_switch_regs says so)
 *   reg[]   byte offset of each register the context holds, by DWARF
 *           number (the callee-saved ones; SFU_TRAP_NOT_SAVED for the
 *           rest): at least the frame pointer.  aarch64: the link
 *           register, if not saved, is taken to be the resume PC (it is,
 *           right after the switch routine's `ret`).
 *   traps   ntraps > 0: the saved context is a trap frame instead, as one
 *           of these layouts describes it (a kernel that switches by
 *           returning another interrupt frame; an RTOS whose entry code
 *           saves every register on the task's stack and keeps that
 *           address in the task control block).  The first layout whose
 *           variant (select) matches the frame is used; its frame_from,
 *           sites and callees do not matter here, its SP must not be
 *           SFU_TRAP_SP_LIVE (a thread that is not running has none), and
 *           size, align, pc, sp, mode and reg[] above are not used.
 *
 * The resume PC of a called switch is a return address into the function
 * that called the switch routine; that call is never the last instruction
 * of its function (the switch returns), so the first frame of the walk is
 * named by it as it is.  Registers the context does not hold are unknown
 * to the walk: a rule that needs one (a DRAP register) stops it with
 * SFU_E_UNSAFE. */
struct sfu_switch_layout {
    uint16_t size;
    uint16_t align;
    int16_t pc, sp;
    int32_t sp_add;
    int16_t reg[SFU_PORT_NREGS];
    bool mode_saved;
    int16_t mode;
    const struct sfu_trap_layout *traps;
    size_t ntraps;
};

/* The layout of a context a switch called as a function pushed on the
 * thread's stack and pops when it resumes (its SP is then the context's
 * end): size bytes, aligned to align, the resume PC at byte pc, reg[] as
 * the port's SFU_<ARCH>_SWITCH_REGS macro writes it. */
#define SFU_SWITCH_PUSHED(size_, align_, pc_, reg_) \
    { .size = (size_), .align = (align_), .pc = (pc_), .sp = SFU_TRAP_NOT_SAVED, .sp_add = (size_), .reg = reg_ }

static inline bool sfu__port_ctx_field_ok(const struct sfu_switch_layout *l, int16_t off)
{
    return off >= 0 && (off & 7) == 0 && (uint32_t)off + 8u <= l->size;
}

/* Check a switch layout once, at boot: 0 if usable, else the first rule
 * it breaks (1 size or alignment, 2 pc, sp or mode outside the context or
 * not word-aligned, 3 a register offset outside it, 4 no frame pointer
 * saved, 5 SP neither saved nor at a word-aligned distance from the
 * context; with traps: 10 + the rule sfu_port_layout_check gives a trap
 * layout's frame (11, 13 .. 17), or 17 for an SP only live). */
static inline int sfu_port_switch_check(const struct sfu_switch_layout *l)
{
    unsigned i;

    if (l->ntraps) {
        int err = 0;

        for (i = 0; !err && i < l->ntraps; i++) {
            err = l->traps ? sfu__port_frame_check(&l->traps[i]) : 1;
            if (!err && l->traps[i].sp_from == SFU_TRAP_SP_LIVE)
                err = 7;
        }
        return err ? 10 + err : 0;
    }
    if (l->size == 0 || (l->size & 7u) != 0 || l->align < 8 || (l->align & (l->align - 1u)) != 0)
        return 1;
    if (!sfu__port_ctx_field_ok(l, l->pc) || (l->sp != SFU_TRAP_NOT_SAVED && !sfu__port_ctx_field_ok(l, l->sp)) ||
        (l->mode_saved && !sfu__port_ctx_field_ok(l, l->mode)))
        return 2;
    for (i = 0; i < SFU_PORT_NREGS; i++) {
        if (l->reg[i] != SFU_TRAP_NOT_SAVED && !sfu__port_ctx_field_ok(l, l->reg[i]))
            return 3;
    }
    if (l->reg[SFU_PORT_DWARF_FP] == SFU_TRAP_NOT_SAVED)
        return 4;
    if (l->sp == SFU_TRAP_NOT_SAVED && (l->sp_add & 7) != 0)
        return 5;
    return 0;
}

/* A saved context that is a trap frame: the first variant that fits. */
static inline int sfu__port_switch_trap(const void *ctx, const struct sfu_switch_layout *sl, uint64_t addr,
                                        sfu_regs *out)
{
    size_t i;

    for (i = 0; i < sl->ntraps; i++) {
        const struct sfu_trap_layout *l = &sl->traps[i];

        if (!sfu_port_block_ok(ctx, addr, l->frame_size, l->frame_align) || !sfu__port_variant(l, addr))
            continue;
        switch (sfu_port_trap_regs(l, addr, out)) {
        case SFU_TRAP_USER:
            return SFU_END_USER;
        case SFU_TRAP_KERNEL:
            return SFU_OK;
        default:
            return SFU_E_READ;
        }
    }
    return SFU_E_READ;
}

/* The registers a walk of a thread that is not running starts from: its
 * saved context at addr, as l describes it.  Every word of the context
 * must pass ctx's checked read (ctx: a struct sfu_port_ctx, e.g. the one
 * sfu_port_thread_init set up for the thread).  Returns SFU_OK,
 * SFU_END_USER if the context says the thread was switched out at a lower
 * privilege level (*out is then its user context, the one frame to show:
 * its walk ends at once with SFU_END_USER), SFU_E_ARG for a layout
 * sfu_port_switch_check refuses, or SFU_E_READ if the context is not
 * readable (a corrupt saved SP) or no trap variant fits it: *out is then
 * untouched. */
static inline int sfu_port_switch_regs(const void *ctx, const struct sfu_switch_layout *l, uint64_t addr,
                                       sfu_regs *out)
{
    if (sfu_port_switch_check(l) != 0)
        return SFU_E_ARG;
    if (l->ntraps)
        return sfu__port_switch_trap(ctx, l, addr, out);
    if (!sfu_port_block_ok(ctx, addr, l->size, l->align))
        return SFU_E_READ;
    out->pc = sfu__port_word(addr, l->pc);
    out->sp = l->sp != SFU_TRAP_NOT_SAVED ? sfu__port_word(addr, l->sp) : addr + (uint64_t)(int64_t)l->sp_add;
    out->fp = sfu__port_word(addr, l->reg[SFU_PORT_DWARF_FP]);
#if SFU_PORT_DWARF_RA >= 0
    out->ra = l->reg[SFU_PORT_DWARF_RA] != SFU_TRAP_NOT_SAVED ? sfu__port_word(addr, l->reg[SFU_PORT_DWARF_RA])
                                                                : out->pc;
#else
    out->ra = 0;
#endif
    out->dwarf = (const uint64_t *)(uintptr_t)addr;
    out->ndwarf = SFU_PORT_NREGS;
    out->dwarf_map = l->reg;
    if (l->mode_saved && sfu__port_lower_priv(sfu__port_word(addr, l->mode)))
        return SFU_END_USER;
    return SFU_OK;
}

/* Knob SFU_PORT_THREAD_STACKS (default 4): the most stacks one thread's
 * walk may cross (its own, and the exception and interrupt stacks it can
 * be interrupted onto). */
#ifndef SFU_PORT_THREAD_STACKS
#define SFU_PORT_THREAD_STACKS 4
#endif
#if SFU_PORT_THREAD_STACKS < 1 || SFU_PORT_THREAD_STACKS > 64
#error "SFU_PORT_THREAD_STACKS must be between 1 and 64"
#endif

/* Everything one thread's walk needs; caller-owned, no pointers outside
 * itself but to the base context (its trap layouts, its RAM for the words
 * a layout reads outside the stacks).  A static one per thread is
 * typical: set it up when the thread is created; a thread that never ran
 * is walked the same way, from the first context its creator built. */
struct sfu_port_thread {
    sfu_port port;
    struct sfu_port_ctx ctx;
    struct sfu_port_range ram[SFU_PORT_THREAD_STACKS];
    sfu_stack stacks[SFU_PORT_THREAD_STACKS];
};

/* Set up t for walks of a thread whose frames lie on stacks[0..n), each
 * [lo, hi] with hi its top (the thread's own stack; the exception or
 * interrupt stacks a trap can have moved it onto).  t->port is then an
 * sfu_port with this port's callbacks whose bounds are exactly those
 * stacks (a walk may change stacks only across a trap frame) and whose
 * read, trap frames included, refuses everything else: another thread's
 * stack, a guard page between stacks, the heap.  base (may be NULL) gives
 * the trap layouts, the trap callback (base->trap, default sfu_port_trap)
 * and the RAM of the words a layout reads outside the stacks (a task
 * control block); it must outlive t.  Returns SFU_OK, or SFU_E_ARG if n
 * is 0 or more than SFU_PORT_THREAD_STACKS or a stack is empty. */
static inline int sfu_port_thread_init(struct sfu_port_thread *t, const struct sfu_port_ctx *base,
                                       const sfu_stack *stacks, size_t n)
{
    size_t i;

    if (n == 0 || n > SFU_PORT_THREAD_STACKS)
        return SFU_E_ARG;
    for (i = 0; i < n; i++) {
        if (stacks[i].lo >= stacks[i].hi)
            return SFU_E_ARG;
        t->stacks[i].lo = stacks[i].lo;
        t->stacks[i].hi = stacks[i].hi;
        t->ram[i].start = stacks[i].lo;
        t->ram[i].end = stacks[i].hi;
    }
    t->ctx.ram = t->ram;
    t->ctx.nram = n;
    t->ctx.traps = base ? base->traps : NULL;
    t->ctx.ntraps = base ? base->ntraps : 0;
    t->ctx.kernel = base;
    t->ctx.trap = base ? base->trap : NULL;
    t->port.read = sfu_port_read;
    t->port.strip_ra = SFU_PORT_STRIP_RA;
    t->port.trap = base && base->trap ? base->trap : sfu_port_trap;
    t->port.ctx = &t->ctx;
    t->port.stack_lo = 0;
    t->port.stack_hi = 0;
    t->port.stacks = t->stacks;
    t->port.nstacks = n;
    return SFU_OK;
}

SFU_CODEGEN_END

/* An sfu_port with this port's callbacks: ctx is a struct sfu_port_ctx *
 * (or NULL), [lo, hi] the stack the walk starts on (more stacks: set
 * .stacks/.nstacks of the result). */
#define SFU_PORT_INIT(port_ctx, lo, hi)                                                           \
    {                                                                                             \
        .read = sfu_port_read, .strip_ra = SFU_PORT_STRIP_RA, .trap = sfu_port_trap,              \
        .ctx = (void *)(port_ctx), .stack_lo = (lo), .stack_hi = (hi), .stacks = NULL, .nstacks = 0 \
    }

#endif /* SFU_PORT_COMMON_H */
