/* SPDX-License-Identifier: MIT */
/* sfu_layout.h - the kernel's own frames, described as data: where the
 * exception vector code saves the interrupted context (struct
 * sfu_trap_layout), what the context switch leaves for a thread that is not
 * running (struct sfu_switch_layout), and the port callbacks that read them
 * for the core: the checked read of the memory a walk may touch, the trap
 * callback, each thread's bounds.
 *
 * Included by sfu_dump.h (the crash path ready made); a kernel that walks
 * with the core directly may include it alone, after or instead of the
 * port (-I <sfu>/core -I <sfu>/crash -I <sfu>/port: it includes
 * "sfu_port.h", the port of the CPU being compiled for, unless a port is
 * included already).  Freestanding: <stdint.h>, <stddef.h>, <stdbool.h>
 * and the core; no globals, no heap; everything static inline and
 * compiled for any CPU state (SFU_CODEGEN_BEGIN/END, core/sfu.h), so
 * several translation units may include it.
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
 *   there the trap callback reads the trap frame the vector code saved and
 *   hands the core the interrupted context.  Describe your vector code
 *   with a struct sfu_trap_layout and your vector code stays as it is.
 *   Its five groups answer five questions:
 *     call    where the calls into C are (a code range or labelled sites,
 *             narrowed by their callee);
 *     frame   where the frame is (at the SP of the call, at the address a
 *             variable holds, at a word of the struct a variable points
 *             to, at a word of the thread's control block: an RTOS's
 *             current TCB), its size;
 *     sp      where the interrupted SP is (a word of the frame, the
 *             frame's end, a variable, the CPU's other SP, the SP at the
 *             call itself);
 *     select  which variant, by a word of the frame, of a variable (a
 *             nesting counter) or of the thread's control block (an FP
 *             flag in the TCB): "the frame at the SP when nested, through
 *             the TCB otherwise" is two layouts, the first selected;
 *     regs    the interrupted PC, its PSTATE / CS and every register.
 *   Byte offsets into a frame are written SFU_AT(n): a field left out of
 *   an initializer (0) is "not saved", never offset 0; the check refuses
 *   an offset written bare (a multiple of 8 is no SFU_AT value), and
 *   names the register a layout must have and left out ("regs.reg[29]
 *   (the frame pointer): 0, not saved").
 *
 * THE THREAD'S CONTROL BLOCK
 *   A frame source or a select word "of the TCB" (SFU_TRAP_FRAME_TCB,
 *   SFU_SELECT_TCB) reads a field of the control block of the thread the
 *   walk is in: in a thread's walk (sfu_threads.h) the thread's own struct,
 *   else the struct the variable `ref` points to (the kernel's current
 *   thread pointer: ThreadX's _tx_thread_current_ptr, FreeRTOS's
 *   pxCurrentTCB), through the checked read.  So a thread that is not
 *   running is read by its own flags, never the running one's.
 *
 * THREADS: EVERY STACK, EACH WITHIN ITS OWN BOUNDS
 *   A thread that is not running was left by the kernel's context-switch
 *   routine: its callee-saved registers, its SP and the PC it resumes at
 *   lie in a saved context.  Describe that context once with a struct
 *   sfu_switch_layout, and sfu_port_switch_regs() turns any thread's saved
 *   context into the sfu_regs a walk starts from.  sfu_port_thread_init()
 *   gives each walk that thread's own stacks: its bounds are those stacks
 *   and its reads are limited to them, so a walk of one thread never
 *   strays into another's stack, and never touches a guard page between
 *   stacks (a stack overflow's dump reads nothing unmapped).  A kernel
 *   whose saved thread context is a trap frame (it switches by returning
 *   another interrupt frame, or its entry code saves everything on the
 *   task's stack) points the switch layout at its trap layouts.  A saved
 *   context that lies outside the thread's stacks (in the thread struct
 *   itself, Linux's cpu_context; a never-run thread's first context on a
 *   heap) is read through the base context's memory instead, every word
 *   checked.
 *
 * CHECKED ONCE, NEVER SKIPPED
 *   sfu_layout_check and sfu_switch_check answer SFU_OK or SFU_E_DESC with
 *   the rule broken, naming the field ("regs.pc: ...").  sfu_dump_check
 *   runs them on a whole dump description, at boot if you call it and
 *   before every dump's first walk: a description that breaks a rule is
 *   refused with that line, never walked with the layout left out.
 *
 * THE PORT'S ARCH HOOKS (port/<arch>/sfu_port_<arch>.h defines them)
 *   SFU_PORT_NREGS                     registers by DWARF number a trap
 *                                      frame may hold (aarch64 32, x86_64 17)
 *   SFU_PORT_DWARF_FP, SFU_PORT_DWARF_RA  the frame pointer's and (aarch64)
 *                                      the link register's DWARF numbers;
 *                                      SFU_PORT_DWARF_RA is -1 without one
 *   SFU_PORT_CAPTURE(sfu_regs *r)      the registers where it is written
 *   SFU_PORT_STRIP_RA                  the core's strip_ra (PAC), or NULL
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
 *   SFU_PORT_FAULT_WORDS,              (optional) a synchronous exception's
 *   sfu__port_fault_pack(w, have,      words (struct sfu_trap_fault): how
 *     &code, &addr),                   many, as a crash record keeps them,
 *   sfu__port_live_fault(i, &v),       word i read from the CPU, and the
 *   SFU_PORT_FAULT_TEXT                decoder of their line (port/sfu_fault.h)
 */
#ifndef SFU_LAYOUT_H
#define SFU_LAYOUT_H

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

/* A port without a fault decoder: no fault words (a layout that names
 * some is refused). */
#ifndef SFU_PORT_FAULT_WORDS
#define SFU_PORT_FAULT_WORDS 1
#define SFU__PORT_NO_FAULT 1
#else
#define SFU__PORT_NO_FAULT 0
#endif

/* Knob SFU_PORT_LINKER_RAM (default 0): 1 makes a NULL port context mean
 * the RAM [__ram_start, __ram_end) your linker script defines (the
 * symbols are then required); 0: a NULL context refuses every read and no
 * linker symbol is referenced. */
#ifndef SFU_PORT_LINKER_RAM
#define SFU_PORT_LINKER_RAM 0
#endif
#if SFU_PORT_LINKER_RAM != 0 && SFU_PORT_LINKER_RAM != 1
#error "SFU_PORT_LINKER_RAM must be 0 or 1"
#endif

/* Knob SFU_PORT_THREAD_STACKS (default 4): the most stacks one thread's
 * walk may cross (its own, and the exception and interrupt stacks it can
 * be interrupted onto). */
#ifndef SFU_PORT_THREAD_STACKS
#define SFU_PORT_THREAD_STACKS 4
#endif
#if SFU_PORT_THREAD_STACKS < 1 || SFU_PORT_THREAD_STACKS > 64
#error "SFU_PORT_THREAD_STACKS must be between 1 and 64"
#endif

/* Knob SFU_PORT_GUARD_GAP (default 4096): the bytes beside each of a
 * thread's stacks a saved context found off those stacks may not touch.
 * A kernel's RAM range usually spans the guard pages it leaves unmapped
 * between stacks; a context "off the stacks" right beside one is a field
 * misread (a stack's top or base read as the context's address), and
 * reading it would fault in the crash path.  0: no gap. */
#ifndef SFU_PORT_GUARD_GAP
#define SFU_PORT_GUARD_GAP 4096
#endif
#if SFU_PORT_GUARD_GAP < 0 || SFU_PORT_GUARD_GAP > 1048576
#error "SFU_PORT_GUARD_GAP must be between 0 and 1048576"
#endif

/* A range of memory, [start, end). */
struct sfu_port_range {
    uint64_t start;
    uint64_t end;
};

/* Byte offset n into a frame or a saved context, as the layouts hold it:
 * n + 1, so that 0 (a field left out) means "not saved". */
#define SFU_AT(n) ((uint16_t)((n) + 1u))
#define SFU_TRAP_NOT_SAVED 0

/* Where a trap frame is (struct sfu_trap_frame.from). */
enum sfu_trap_frame_from {
    SFU_TRAP_FRAME_SP = 0,  /* at the SP the call returns with */
    SFU_TRAP_FRAME_VAR = 1, /* at the address in the variable ref (a
                             * kernel's `current_regs`) */
    SFU_TRAP_FRAME_PTR = 2, /* at the address in the word ref_off bytes
                             * into the struct the variable ref points to
                             * (an RTOS's current TCB, whose saved-context
                             * pointer its entry code sets) */
    SFU_TRAP_FRAME_TCB = 3  /* at the address in the word ref_off bytes
                             * into the thread's control block (THE
                             * THREAD'S CONTROL BLOCK): in a thread's walk
                             * its own, else the one ref points to */
};

/* Where the select word is (struct sfu_trap_select.from). */
enum sfu_trap_select_from {
    SFU_SELECT_FRAME = 0, /* the frame's word at `at` */
    SFU_SELECT_VAR = 1,   /* the variable ref, `at` bytes in (SFU_AT(0): the
                           * variable itself): a nesting counter */
    SFU_SELECT_TCB = 2    /* the field `at` of the thread's control block
                           * (THE THREAD'S CONTROL BLOCK; ref: the current
                           * thread pointer): an FP-context flag */
};

/* Where the interrupted SP is (struct sfu_trap_sp.from). */
enum sfu_trap_sp_from {
    SFU_TRAP_SP_SAVED = 0, /* the frame's word at `at` */
    SFU_TRAP_SP_END = 1,   /* the frame's end plus `add`: an entry that
                            * pushed the frame onto the interrupted stack
                            * and saved no SP */
    SFU_TRAP_SP_VAR = 2,   /* the word in the variable `var` (an entry that
                            * left it there) */
    SFU_TRAP_SP_LIVE = 3,  /* still in the CPU's other stack pointer (aarch64
                            * SP_EL0, untouched by an entry that runs on
                            * SP_EL1); only where the port can read one */
    SFU_TRAP_SP_CALL = 4   /* the SP at the call into C plus `add`: the SP
                            * the walk has at the call's return address.
                            * An entry that saved the frame elsewhere (on
                            * another stack, behind a control block) and
                            * left the stack it was entered on as it found
                            * it: FreeRTOS_SWI_Handler for a fault in an
                            * interrupt handler pushes the context onto the
                            * task's SP_EL0 and calls C on the handler's own
                            * SP_ELx, unchanged.  Never with a frame at that
                            * SP (frame.from SFU_TRAP_FRAME_SP) nor in a
                            * switch layout (a thread that is not running
                            * made no call); a frame given to a handler
                            * without its call's SP (sfu_port_trap_regs,
                            * sfu_dump_trap) has an SP that cannot be
                            * known (SFU_TRAP_UNREADABLE) */
};

/* Where the vector code's calls into C are.  A return address R is one
 * when R is one of sites[0..nsites), or when R - 1 lies in [start, end)
 * (R - 1: a call that is the last instruction of the range returns just
 * past it).  The range suits vector code with one call per vector, the
 * sites a few labelled calls.  callees[0..ncallees), if given, narrows
 * that to calls whose target is one of these C functions: the instruction
 * before R must be a direct call to it (aarch64 BL, x86_64 CALL rel32), so
 * calls with different frames in one unlabelled entry file are told
 * apart; given alone (no sites, no range), it is the whole rule: any
 * direct call to one of them.  A NULL callee (an undefined weak symbol)
 * matches no call.  The instruction is read only inside
 * [start, end) (your linker script's bracket of the entry code), or else
 * through the checked read (without a range, the code must lie in the
 * memory the port may read: in a thread's walk, whose reads are its
 * stacks, the base context's, sfu_port_thread_init's `base`). */
struct sfu_trap_call {
    const void *start, *end;
    const void *const *sites;
    size_t nsites;
    const void *const *callees;
    size_t ncallees;
};

/* Where the frame is: by `from` (the SP the call returns with: aarch64 SP
 * at the BL, x86_64 just above the return address; or the address a
 * variable holds; or a word of the struct it points to), plus off; size
 * bytes, every 8-byte word of which must pass the checked read; its
 * address a multiple of align. */
struct sfu_trap_frame {
    uint8_t from;
    const void *ref;  /* the variable (SFU_TRAP_FRAME_VAR, _PTR): read as
                       * it is; what it points to through the checked read */
    int16_t ref_off;  /* SFU_TRAP_FRAME_PTR: the word's byte offset */
    int32_t off;
    uint16_t size, align;
};

/* Where the interrupted SP is (enum sfu_trap_sp_from).  A saved context
 * of a switch (struct sfu_switch_layout) takes SFU_TRAP_SP_SAVED or
 * SFU_TRAP_SP_END only. */
struct sfu_trap_sp {
    uint8_t from;
    /* 1: the entry pushed the frame onto the CPU's other SP (the one
     * SFU_TRAP_SP_LIVE reads, aarch64 SP_EL0) and left that SP at the
     * frame, so past this frame the walk takes that SP to be the frame's
     * end: FreeRTOS's portSAVE_CONTEXT, whose push onto SP_EL0 a fault in
     * an interrupt handler puts between the interrupted task's SP and
     * the IRQ frame's SFU_TRAP_SP_LIVE.  Only where the port has such an
     * SP, and with a frame not at the call's SP. */
    uint8_t on_live;
    uint16_t at;     /* SFU_TRAP_SP_SAVED: SFU_AT(offset of the SP) */
    int32_t add;     /* SFU_TRAP_SP_END, SFU_TRAP_SP_CALL: added to the end,
                      * to the SP at the call */
    const void *var; /* SFU_TRAP_SP_VAR */
};

/* Which variant: mask nonzero, the layout applies only where the select
 * word, masked, equals value.  The word is `size` bytes (1, 2, 4 or 8; 0:
 * 8) at SFU_AT offset `at` (a multiple of size) of the frame, of the
 * variable ref, or of the thread's control block (from: enum
 * sfu_trap_select_from), read little-endian.  Several layouts at the same
 * call sites then describe the variants of one frame (an FP context saved
 * or not, flagged by a word of the frame or of the TCB; the frame found
 * another way while an interrupt is nested): the first whose word matches
 * is used, so a layout without select after them is "otherwise". */
struct sfu_trap_select {
    uint16_t at;
    uint64_t mask, value;
    uint8_t from, size;
    const void *ref;
};

/* The interrupted context: SFU_AT offsets of its PC (ELR_EL1 / RIP), its
 * PSTATE (SPSR_EL1) or CS (a lower privilege level there ends the walk
 * cleanly; not saved: always kernel code), and every general register by
 * DWARF number in reg[] (aarch64 x0..x30, SP; x86_64 rax rdx rcx rbx rsi
 * rdi rbp rsp r8..r15 rip; the SFU_<ARCH>_TRAP_REGS macros write the
 * list).  The PC, the frame pointer and (aarch64) the link register must
 * be saved. */
struct sfu_trap_regs {
    uint16_t pc, mode;
    uint16_t reg[SFU_PORT_NREGS];
};

/* Where a synchronous exception's syndrome is (optional): the SFU_AT
 * offsets in the frame of the port's fault words (aarch64: ESR_ELx,
 * FAR_ELx; x86_64: the vector, the error code, CR2), or, bit i of live, word
 * i read from the CPU when the dump runs (an entry that hands them to C in
 * registers: aarch64 ESR_ELx and FAR_ELx of the level the dump runs at,
 * x86_64 CR2; valid in the fault's own handler only).  A dump of such a frame
 * (sfu_dump_trap, sfu_dump_cause) opens with the fault's cause in one line
 * and keeps it in the crash record.  Name them in the layout of the
 * synchronous exceptions' entry only: an interrupt has no syndrome (aarch64's
 * ESR_EL1 still holds the last synchronous exception's). */
struct sfu_trap_fault {
    uint16_t at[SFU_PORT_FAULT_WORDS];
    uint8_t live;
};

/* The kernel's exception vector code, described (see THE KERNEL'S OWN
 * TRAP FRAME).  A call site whose frame cannot be read (an unreadable
 * frame pointer, a frame outside the port's RAM, no variant matching)
 * ends the walk with SFU_E_READ: the callback recognised it and says so,
 * rather than "no unwind info". */
struct sfu_trap_layout {
    struct sfu_trap_call call;
    struct sfu_trap_frame frame;
    struct sfu_trap_sp sp;
    struct sfu_trap_select select;
    struct sfu_trap_regs regs;
    struct sfu_trap_fault fault;
    /* (optional) a second select word that must match too: a variant
     * chosen by two words (ThreadX: a solicited or an interrupt frame by
     * the frame's ELR word, with or without FP registers by the TCB's
     * flag); mask 0: none. */
    struct sfu_trap_select also;
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
    /* (optional) the walk's ends, which sfu_port_thread_init gives each
     * thread's port: sfu_port.entries, .nentries, .top (core/sfu.h, THE
     * END OF A STACK) */
    const uint64_t *entries;
    size_t nentries;
    uint32_t top;
    /* (optional) the control block of the thread the walk is in (THE
     * THREAD'S CONTROL BLOCK); 0: the one the layout's ref points to */
    uint64_t tcb;
    /* The walk's: the CPU's other SP as the frames crossed so far left it
     * (a frame with sp.on_live sets it to its end); 0: the CPU's own.
     * Zero it before each walk (sfu_port_thread_init and the dump do):
     * the trap callback writes it, so the context must be writable. */
    uint64_t live_sp;
};

/* The kernel's saved thread context, described: what its context-switch
 * routine leaves for a thread that is not running.  The context is `size`
 * bytes at an address the kernel keeps for each thread (the saved SP of a
 * switch that pushes its registers, or the address of a context struct in
 * the thread control block), aligned to `align`.
 *   sp      SFU_TRAP_SP_SAVED: the SP it resumes with is the word at
 *           sp.at; SFU_TRAP_SP_END: the context's end plus sp.add (a
 *           switch that pushed the context on the thread's stack and pops
 *           it)
 *   regs    SFU_AT offsets of the PC the thread resumes at (the return
 *           address of its call into the switch routine: the saved link
 *           register on aarch64, the word `ret` pops on x86_64), of the
 *           PSTATE / CS it resumes with if saved (a thread switched out at
 *           a lower privilege level, EL0 or ring 3, is one frame, its user
 *           code, and its walk ends with SFU_END_USER), and of each
 *           register the context holds (the callee-saved ones): at least
 *           the frame pointer.  aarch64: the link register, if not saved,
 *           is taken to be the resume PC (it is, right after the switch
 *           routine's `ret`).
 *   traps   ntraps > 0: the saved context is a trap frame instead, as one
 *           of these layouts describes it (a kernel that switches by
 *           returning another interrupt frame; an RTOS whose entry code
 *           saves every register on the task's stack and keeps that
 *           address in the task control block).  The first layout whose
 *           variant (select) matches the frame is used; its call and
 *           frame.from do not matter here, its SP must not be
 *           SFU_TRAP_SP_LIVE (a thread that is not running has none) nor
 *           SFU_TRAP_SP_CALL (nor a call), and
 *           size, align, sp and regs above are not used.
 *   unmatched  (optional, with traps) the rule a context breaks that no
 *           variant matches where a variant's frame fits and every select
 *           word could be read: the field its select words read and what the
 *           description needs of it (a ready-made description knows it:
 *           an FP-context flag set where the description was built
 *           without the FP layouts).  Such a context is then refused
 *           with SFU_E_DESC, and the dump names the rule; without it, or
 *           where a word could not be read, SFU_E_READ as before.
 * The resume PC of a called switch is a return address into the function
 * that called the switch routine; that call is never the last instruction
 * of its function (the switch returns), so the first frame of the walk is
 * named by it as it is.  Registers the context does not hold are unknown
 * to the walk: a rule that needs one (a DRAP register) stops it with
 * SFU_E_UNSAFE. */
struct sfu_switch_layout {
    uint16_t size, align;
    struct sfu_trap_sp sp;
    struct sfu_trap_regs regs;
    const struct sfu_trap_layout *traps;
    size_t ntraps;
    const char *unmatched;
};

/* The layout of a context a switch called as a function pushed on the
 * thread's stack and pops when it resumes (its SP is then the context's
 * end): size bytes, aligned to align, the resume PC at byte pc, reg[] as
 * the port's SFU_<ARCH>_SWITCH_REGS macro writes it. */
#define SFU_SWITCH_PUSHED(size_, align_, pc_, reg_)                                                 \
    {                                                                                               \
        .size = (size_), .align = (align_), .sp = { .from = SFU_TRAP_SP_END },                      \
        .regs = { .pc = SFU_AT(pc_), .reg = reg_ }                                                  \
    }

/* Everything one thread's walk needs; caller-owned, no pointers outside
 * itself but to the base context (its trap layouts, its RAM for the words
 * a layout reads outside the stacks). */
struct sfu_port_thread {
    sfu_port port;
    struct sfu_port_ctx ctx;
    struct sfu_port_range ram[SFU_PORT_THREAD_STACKS];
    sfu_stack stacks[SFU_PORT_THREAD_STACKS];
};

#ifdef __cplusplus
extern "C" {
#endif

/* The core's read (sfu_port.read): the 8-byte word at addr into *out, or
 * nonzero to refuse (unaligned, or outside the declared RAM); *out is
 * untouched then.  ctx: a struct sfu_port_ctx, or NULL. */
SFU_DEF int sfu_port_read(void *ctx, uint64_t addr, uint64_t *out);

/* The core's trap callback (sfu_port.trap): the layouts of ctx, a struct
 * sfu_port_ctx.  SFU_TRAP_UNREADABLE for a call site whose frame cannot
 * be read, or whose layout sfu_layout_check refuses. */
SFU_DEF int sfu_port_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out);

/* The interrupted context held by a trap frame at frame (checked with
 * sfu_layout_check and readable: the callback's answer, or a frame a
 * handler was given), with the full register set for rules that use
 * other registers.  Returns SFU_TRAP_USER if the frame says the
 * interrupted code ran at a lower privilege level, else SFU_TRAP_KERNEL
 * (SFU_TRAP_UNREADABLE if its SP cannot be known: SFU_TRAP_SP_CALL, whose
 * SP only sfu_port_trap_regs_sp is given; SFU_TRAP_EMPTY for a
 * frame every word of which is 0, out->sp then its end).  The trap
 * callback also checks that a PC of 0 is a call through a null pointer
 * (SFU_TRAP_PC_ZERO otherwise: it has the memory to read the code). */
SFU_DEF int sfu_port_trap_regs(const struct sfu_trap_layout *l, uint64_t frame, sfu_regs *out);

/* sfu_port_trap_regs for a frame found at a call into C whose caller SP
 * (the SP at the call: what the trap callback gets) is sp: the one that
 * knows the interrupted SP of a layout whose sp.from is SFU_TRAP_SP_CALL
 * (sfu_port_trap_regs is this with sp 0, not known).  A handler the
 * vector code called can pass the SP its call had (aarch64: the vector
 * code's SP, handed over in a register). */
SFU_DEF int sfu_port_trap_regs_sp(const struct sfu_trap_layout *l, uint64_t frame, uint64_t sp, sfu_regs *out);

/* The syndrome of the synchronous exception whose trap frame (checked
 * readable, as for sfu_port_trap_regs) is at frame, as l's fault group
 * names its words: *code and *addr as a crash record keeps them, and
 * which of the two the frame (or the CPU) held: SFU_FAULT_CODE,
 * SFU_FAULT_ADDR (port/sfu_fault.h); 0 if l names none.  The port's
 * decoder (SFU_PORT_FAULT_TEXT) makes its line. */
SFU_DEF unsigned sfu_port_trap_fault(const struct sfu_trap_layout *l, uint64_t frame, uint64_t *code,
                                     uint64_t *addr);

/* Check a trap layout once, at boot: SFU_OK, or SFU_E_DESC with *why (if
 * why) the rule it breaks, naming the field.  The trap callback never
 * walks with a layout it refuses (see CHECKED ONCE, NEVER SKIPPED). */
SFU_DEF int sfu_layout_check(const struct sfu_trap_layout *l, const char **why);

/* Check a switch layout once, at boot: SFU_OK, or SFU_E_DESC with *why (if
 * why) the rule it breaks, naming the field ("traps[]: ..." for one of
 * its trap layouts). */
SFU_DEF int sfu_switch_check(const struct sfu_switch_layout *l, const char **why);

/* The registers a walk of a thread that is not running starts from: its
 * saved context at addr, as l describes it.  Every word of the context
 * must pass ctx's checked read (ctx: a struct sfu_port_ctx, e.g. the one
 * sfu_port_thread_init set up for the thread).  Returns SFU_OK,
 * SFU_END_USER if the context says the thread was switched out at a lower
 * privilege level (*out is then its user context, the one frame to show:
 * its walk ends at once with SFU_END_USER), SFU_E_DESC for a layout
 * sfu_switch_check refuses or for a context no trap variant matches where
 * the layout names that rule (unmatched), or SFU_E_READ if the context is
 * not readable (a corrupt saved SP) or no trap variant fits it: *out is
 * then untouched. */
SFU_DEF int sfu_port_switch_regs(const void *ctx, const struct sfu_switch_layout *l, uint64_t addr, sfu_regs *out);

/* Set up t for walks of a thread whose frames lie on stacks[0..n), each
 * [lo, hi] with hi its top (the thread's own stack; the exception or
 * interrupt stacks a trap can have moved it onto).  t->port is then an
 * sfu_port with the port's callbacks whose bounds are exactly those
 * stacks (a walk may change stacks only across a trap frame) and whose
 * read, trap frames included, refuses everything else: another thread's
 * stack, a guard page between stacks, the heap.  base (may be NULL) gives
 * the trap layouts, the trap callback (base->trap, default sfu_port_trap)
 * and the RAM of the words a layout reads outside the stacks (a task
 * control block); it must outlive t.  Returns SFU_OK, or SFU_E_ARG if n
 * is 0 or more than SFU_PORT_THREAD_STACKS or a stack is empty. */
SFU_DEF int sfu_port_thread_init(struct sfu_port_thread *t, const struct sfu_port_ctx *base, const sfu_stack *stacks,
                                 size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SFU_LAYOUT_H */

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_LAYOUT_IMPLEMENTATION_DONE
#define SFU_LAYOUT_IMPLEMENTATION_DONE

/* The crash path's bodies use the core's (SFU__NOINLINE, the loads): the
 * file that defines SFU_IMPLEMENTATION defines it before sfu.h is first
 * included, by any header. */
#ifndef SFU_IMPLEMENTATION_DONE
#error "define SFU_IMPLEMENTATION before the first include of any sfu header in this file (sfu.h was included without it)"
#endif

/* The public functions out of line (never inlined into a caller built
 * with other flags), and the checks (an inlined copy per caller is what
 * -O2 makes of them); the trap callback's own steps in line, as few
 * frames deep as the callback is called. */
#define SFU__LAYOUT_NOINLINE SFU__NOINLINE /* as the core's: cold without SFU_FAST */
#ifdef SFU_STATIC
#define SFU__LAYOUT_FN SFU_DEF SFU__LAYOUT_NOINLINE
#else
#define SFU__LAYOUT_FN SFU__LAYOUT_NOINLINE
#endif
#define SFU__LAYOUT_INTERNAL static SFU__LAYOUT_NOINLINE

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
static inline bool sfu__port_block_ok(const void *ctx, uint64_t addr, uint64_t size, uint64_t align)
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

SFU__LAYOUT_FN int sfu_port_read(void *ctx, uint64_t addr, uint64_t *out)
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

/* An SFU_AT offset naming a whole word inside a block of size bytes. */
static inline bool sfu__at_ok(uint16_t at, uint32_t size)
{
    return at != 0 && ((at - 1u) & 7u) == 0 && (uint32_t)at - 1u + 8u <= size;
}

/* The word at SFU_AT offset `at` of a block checked readable. */
static inline uint64_t sfu__at_word(uint64_t base, uint16_t at)
{
    return *(const volatile uint64_t *)(uintptr_t)(base + at - 1u);
}

/* The register numbers the checks name (the port's DWARF numbers). */
#define SFU__LAYOUT_STR(x) #x
#define SFU__LAYOUT_XSTR(x) SFU__LAYOUT_STR(x)

/* The rules of a register set in a block of size bytes (a trap frame, a
 * saved context): NULL if it keeps them, else the rule it breaks.  A
 * required offset of 0 is one left out of the initializer: said so. */
SFU__LAYOUT_INTERNAL const char *sfu__regs_check(const struct sfu_trap_regs *r, uint32_t size, bool mode_required)
{
    unsigned i;

    if (r->pc == 0)
        return "regs.pc: 0, not saved (left out of the initializer): the PC is required";
    if (!sfu__at_ok(r->pc, size))
        return "regs.pc: not SFU_AT(a multiple of 8) inside the frame";
    if ((r->mode != 0 || mode_required) && !sfu__at_ok(r->mode, size))
        return "regs.mode: not SFU_AT(a multiple of 8) inside the frame";
    for (i = 0; i < SFU_PORT_NREGS; i++) {
        if (r->reg[i] != 0 && !sfu__at_ok(r->reg[i], size))
            return "regs.reg[]: a register not at SFU_AT(a multiple of 8) inside the frame";
    }
    if (r->reg[SFU_PORT_DWARF_FP] == 0)
        return "regs.reg[" SFU__LAYOUT_XSTR(SFU_PORT_DWARF_FP) "] (the frame pointer): 0, not saved (left out of "
                                                              "the initializer): it is required";
    if (r->pc == r->mode)
        return "regs: pc and mode at the same offset";
    return NULL;
}

/* The rules of a fault group: NULL if it keeps them, else the rule. */
static inline const char *sfu__fault_check(const struct sfu_trap_fault *f, uint32_t size)
{
    unsigned i;

    for (i = 0; i < SFU_PORT_FAULT_WORDS; i++) {
        if (f->at[i] != 0 && ((f->live >> i) & 1u))
            return "fault: a word both at an offset and live";
        if (f->at[i] != 0 && !sfu__at_ok(f->at[i], size))
            return "fault.at[]: a word not at SFU_AT(a multiple of 8) inside the frame";
    }
    if ((f->live >> SFU_PORT_FAULT_WORDS) != 0)
        return "fault.live: a word past SFU_PORT_FAULT_WORDS";
    if (SFU__PORT_NO_FAULT && (f->at[0] != 0 || f->live != 0))
        return "fault: the port has no fault decoder (SFU_PORT_FAULT_WORDS)";
    return NULL;
}

/* The select word's rules: NULL if it keeps them (no select: mask 0),
 * else the rule it breaks; size: the frame's. */
static inline const char *sfu__select_check(const struct sfu_trap_select *sel, uint32_t size)
{
    unsigned n = sel->size ? sel->size : 8u;

    if (sel->mask == 0)
        return NULL;
    if (n != 1 && n != 2 && n != 4 && n != 8)
        return "select.size: not 1, 2, 4 or 8 (0: 8)";
    if (sel->at == 0)
        return "select.at: 0, not given (left out of the initializer), with a select.mask";
    if ((sel->at - 1u) % n != 0)
        return "select.at: not SFU_AT(a multiple of select.size)";
    if (n < 8 && (sel->mask >> (8u * n)) != 0)
        return "select.mask: bits past select.size";
    switch (sel->from) {
    case SFU_SELECT_FRAME:
        if ((uint32_t)sel->at - 1u + n > size)
            return "select.at: past the frame";
        if (sel->ref != NULL)
            return "select.ref: given, and select.from is SFU_SELECT_FRAME";
        return NULL;
    case SFU_SELECT_VAR:
        /* The word is read within its aligned 8 bytes: a 4-byte counter
         * (ThreadX's _tx_thread_system_state) needs 4-byte alignment. */
        if (sel->ref == NULL || ((uintptr_t)sel->ref + sel->at - 1u) % n != 0)
            return "select.ref: missing, or the word at select.at in it not aligned to select.size";
        return NULL;
    case SFU_SELECT_TCB:
        if (sel->ref == NULL || ((uintptr_t)sel->ref & 7u) != 0)
            return "select.ref: missing or not 8-byte aligned (for SFU_SELECT_TCB the current thread pointer)";
        return NULL;
    default:
        return "select.from: not one of SFU_SELECT_*";
    }
}

/* The rules of a trap layout's frame, its call sites aside: NULL if it
 * keeps them, else the rule it breaks. */
SFU__LAYOUT_INTERNAL const char *sfu__frame_check(const struct sfu_trap_layout *l)
{
    const char *why;

    if (l->frame.size == 0 || (l->frame.size & 7u) != 0)
        return "frame.size: 0 or not a multiple of 8";
    if (l->frame.align < 8 || (l->frame.align & (l->frame.align - 1u)) != 0)
        return "frame.align: not a power of two of 8 or more";
    if ((l->frame.off & 7) != 0)
        return "frame.off: not a multiple of 8";
    why = sfu__regs_check(&l->regs, l->frame.size, false);
    if (why != NULL)
        return why;
    if (SFU_PORT_DWARF_RA >= 0 && l->regs.reg[SFU_PORT_DWARF_RA >= 0 ? SFU_PORT_DWARF_RA : 0] == 0)
        return "regs.reg[" SFU__LAYOUT_XSTR(SFU_PORT_DWARF_RA) "] (the link register): 0, not saved (left out of "
                                                              "the initializer): a trap frame has it";
    why = sfu__select_check(&l->select, l->frame.size);
    if (why == NULL)
        why = sfu__fault_check(&l->fault, l->frame.size);
    if (why != NULL)
        return why;
    if (sfu__select_check(&l->also, l->frame.size) != NULL)
        return "also: the second select word breaks a rule of select's (sfu_layout_check on a layout with it as "
               "select names the rule)";
    switch (l->sp.from) {
    case SFU_TRAP_SP_SAVED:
        if (l->sp.at == 0)
            return "sp.at: 0, not saved (left out of the initializer), with sp.from SFU_TRAP_SP_SAVED";
        if (!sfu__at_ok(l->sp.at, l->frame.size))
            return "sp.at: not SFU_AT(a multiple of 8) inside the frame";
        if (l->sp.at == l->regs.pc || l->sp.at == l->regs.mode)
            return "sp.at: at the offset of regs.pc or regs.mode";
        break;
    case SFU_TRAP_SP_END:
        if ((l->sp.add & 7) != 0)
            return "sp.add: not a multiple of 8";
        break;
    case SFU_TRAP_SP_CALL:
        if ((l->sp.add & 7) != 0)
            return "sp.add: not a multiple of 8";
        /* The frame at the SP of the call lies where the interrupted
         * code's stack would be: an entry that pushed it there left the
         * interrupted SP at its end (SFU_TRAP_SP_END). */
        if (l->frame.from == SFU_TRAP_FRAME_SP)
            return "sp.from: SFU_TRAP_SP_CALL with frame.from SFU_TRAP_FRAME_SP (the frame lies at that SP: "
                   "SFU_TRAP_SP_END is its end)";
        break;
    case SFU_TRAP_SP_VAR:
        if (l->sp.var == NULL || ((uintptr_t)l->sp.var & 7u) != 0)
            return "sp.var: missing or not 8-byte aligned";
        break;
    case SFU_TRAP_SP_LIVE:
        if (!SFU__PORT_HAS_LIVE_SP)
            return "sp.from: SFU_TRAP_SP_LIVE, and this CPU has no other SP";
        break;
    default:
        return "sp.from: not one of SFU_TRAP_SP_*";
    }
    if (l->sp.on_live > 1)
        return "sp.on_live: neither 0 nor 1";
    if (l->sp.on_live && !SFU__PORT_HAS_LIVE_SP)
        return "sp.on_live: 1, and this CPU has no other SP";
    if (l->sp.on_live && l->frame.from == SFU_TRAP_FRAME_SP)
        return "sp.on_live: 1 with frame.from SFU_TRAP_FRAME_SP (a frame at the call's SP is on the walk's own "
               "stack)";
    return NULL;
}

SFU__LAYOUT_FN int sfu_layout_check(const struct sfu_trap_layout *l, const char **why)
{
    const char *w = NULL;

    if (l == NULL)
        w = "no layout";
    else if (!(l->call.sites && l->call.nsites) && !((uintptr_t)l->call.start < (uintptr_t)l->call.end) &&
             !(l->call.callees && l->call.ncallees))
        w = "call: no call site (call.sites, call.start below call.end, or call.callees)";
    else if (l->call.start != NULL && !((uintptr_t)l->call.start < (uintptr_t)l->call.end))
        w = "call.end: not above call.start";
    else if (l->call.ncallees != 0 && l->call.callees == NULL)
        w = "call.callees: missing, and call.ncallees is not 0";
    else if ((w = sfu__frame_check(l)) != NULL)
        ;
    else if (l->frame.from > SFU_TRAP_FRAME_TCB)
        w = "frame.from: not one of SFU_TRAP_FRAME_*";
    else if (l->frame.from != SFU_TRAP_FRAME_SP && (l->frame.ref == NULL || ((uintptr_t)l->frame.ref & 7u) != 0))
        w = "frame.ref: missing or not 8-byte aligned";
    else if (l->frame.from >= SFU_TRAP_FRAME_PTR && (l->frame.ref_off < 0 || (l->frame.ref_off & 7) != 0))
        w = "frame.ref_off: negative or not a multiple of 8";
    if (why != NULL)
        *why = w;
    return w == NULL ? SFU_OK : SFU_E_DESC;
}

/* Does the instruction before return address pc call target?  aarch64:
 * BL (0b100101 imm26, ARM ARM "BL"); x86_64: CALL rel32 (E8 cd, SDM Vol.
 * 2A "CALL").  Read inside [call.start, call.end) as it is, elsewhere
 * through the checked read, never past either. */
static inline bool sfu__port_code_byte(const void *ctx, const struct sfu_trap_layout *l, uint64_t addr,
                                       uint8_t *out)
{
    const struct sfu_port_ctx *base = ctx != NULL ? ((const struct sfu_port_ctx *)ctx)->kernel : NULL;
    uint64_t w;

    if (l != NULL && addr >= (uint64_t)(uintptr_t)l->call.start && addr < (uint64_t)(uintptr_t)l->call.end) {
        *out = *(const volatile uint8_t *)(uintptr_t)addr;
        return true;
    }
    /* A thread's walk reads its stacks only: the code through its base
     * context's memory (the kernel's), checked the same way. */
    if (sfu_port_read((void *)(uintptr_t)ctx, addr & ~(uint64_t)7, &w) != 0 &&
        (base == NULL || sfu_port_read((void *)(uintptr_t)base, addr & ~(uint64_t)7, &w) != 0))
        return false;
    *out = (uint8_t)(w >> (8u * (addr & 7u))); /* both ports are little-endian */
    return true;
}

/* The n code bytes before pc into b (sfu__port_code_byte; l may be
 * NULL: no code range); false if one cannot be read. */
static inline bool sfu__port_code_before(const void *ctx, const struct sfu_trap_layout *l, uint64_t pc, uint8_t *b,
                                         unsigned n)
{
    unsigned i;

    if (pc < n)
        return false;
    for (i = 0; i < n; i++) {
        if (!sfu__port_code_byte(ctx, l, pc - n + i, &b[i]))
            return false;
    }
    return true;
}

static inline bool sfu__port_calls(const void *ctx, const struct sfu_trap_layout *l, uint64_t pc, uint64_t target)
{
    uint8_t b[SFU__PORT_CALL_LEN];
    uint64_t to = 0;

    return sfu__port_code_before(ctx, l, pc, b, SFU__PORT_CALL_LEN) && sfu__port_call_target(b, pc, &to) &&
           to == target;
}

/* Is the return address pc one of the layout's calls into C? */
static inline bool sfu__port_is_site(const void *ctx, const struct sfu_trap_layout *l, uint64_t pc)
{
    size_t i;
    bool site = false;

    for (i = 0; l->call.sites && i < l->call.nsites && !site; i++)
        site = pc == (uint64_t)(uintptr_t)l->call.sites[i];
    if (!site)
        site = pc - 1u >= (uint64_t)(uintptr_t)l->call.start && pc - 1u < (uint64_t)(uintptr_t)l->call.end;
    /* Neither sites nor a range: any call to one of the callees. */
    if (!site && !(l->call.sites && l->call.nsites) && l->call.start == NULL)
        site = true;
    if (!site || !(l->call.callees && l->call.ncallees))
        return site;
    /* A NULL callee (an undefined weak symbol: a function the image does
     * not have) matches no call. */
    for (i = 0; i < l->call.ncallees; i++) {
        if (l->call.callees[i] != NULL && sfu__port_calls(ctx, l, pc, (uint64_t)(uintptr_t)l->call.callees[i]))
            return true;
    }
    return false;
}

/* The control block a TCB source reads (THE THREAD'S CONTROL BLOCK):
 * the walk's thread's, else the one the variable ref points to (the
 * layout's own variable, read as it is); 0: none. */
static inline uint64_t sfu__port_tcb(const void *ctxv, const void *ref)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;

    if (ctx != NULL && ctx->tcb != 0)
        return ctx->tcb;
    return *(const volatile uint64_t *)(uintptr_t)ref;
}

/* The word off bytes into the struct at p, through the checked read. */
static inline bool sfu__port_struct_word(const void *ctx, uint64_t p, int16_t off, uint64_t *out)
{
    return p != 0 && p <= UINT64_MAX - (uint64_t)(uint16_t)off &&
           sfu__port_read_ref(ctx, p + (uint64_t)(uint16_t)off, out);
}

/* The frame of layout l at return address pc with caller SP sp, before
 * frame.off; false if a variable it goes through cannot be read. */
static inline bool sfu__port_frame_base(const void *ctx, const struct sfu_trap_layout *l, uint64_t sp,
                                        uint64_t *base)
{
    uint64_t p;

    if (l->frame.from == SFU_TRAP_FRAME_SP) {
        *base = sp;
        return true;
    }
    if (l->frame.from == SFU_TRAP_FRAME_TCB)
        return sfu__port_struct_word(ctx, sfu__port_tcb(ctx, l->frame.ref), l->frame.ref_off, base);
    /* The variable is the layout's own (the user wrote its address): read
     * as it is; what it points to is data, read through the checks. */
    p = *(const volatile uint64_t *)(uintptr_t)l->frame.ref;
    if (l->frame.from == SFU_TRAP_FRAME_VAR) {
        *base = p;
        return true;
    }
    return sfu__port_struct_word(ctx, p, l->frame.ref_off, base);
}

/* Does the readable frame at frame match the select word sel: 1, 0, or
 * -1 where it cannot be read?  The word of the frame, of its variable
 * (read as it is: the layout's own), or of the thread's control block
 * (through the checked read). */
static inline int sfu__port_select3(const void *ctx, const struct sfu_trap_select *sel, uint64_t frame)
{
    unsigned n = sel->size ? sel->size : 8u, sh;
    uint64_t addr, w;

    if (sel->mask == 0)
        return 1;
    if (sel->from == SFU_SELECT_FRAME) {
        addr = frame + sel->at - 1u;
        w = *(const volatile uint64_t *)(uintptr_t)(addr & ~(uint64_t)7);
    } else if (sel->from == SFU_SELECT_VAR) {
        addr = (uint64_t)(uintptr_t)sel->ref + sel->at - 1u;
        w = *(const volatile uint64_t *)(uintptr_t)(addr & ~(uint64_t)7);
    } else {
        uint64_t p = sfu__port_tcb(ctx, sel->ref);

        if (p == 0 || p > UINT64_MAX - sel->at)
            return -1;
        addr = p + sel->at - 1u;
        if ((addr & (n - 1u)) != 0 || !sfu__port_read_ref(ctx, addr & ~(uint64_t)7, &w))
            return -1;
    }
    /* (The frame's and the variable's word: aligned by the check and the
     * variable's alignment; little-endian, as both ports are.) */
    sh = 8u * (unsigned)(addr & 7u);
    w >>= sh;
    if (n < 8)
        w &= (UINT64_C(1) << (8u * n)) - 1u;
    return (w & sel->mask) == sel->value;
}

/* Does the layout's variant match the frame: 1, 0, or -1 where a select
 * word cannot be read. */
static inline int sfu__port_variant3(const void *ctx, const struct sfu_trap_layout *l, uint64_t frame)
{
    int a = sfu__port_select3(ctx, &l->select, frame);

    return a != 1 ? a : sfu__port_select3(ctx, &l->also, frame);
}

static inline bool sfu__port_variant(const void *ctx, const struct sfu_trap_layout *l, uint64_t frame)
{
    return sfu__port_variant3(ctx, l, frame) == 1;
}

/* A block of size bytes at addr (checked readable) every word of which
 * is 0: a frame nothing was ever saved in. */
static inline bool sfu__port_block_zero(uint64_t addr, uint32_t size)
{
    uint32_t off;

    for (off = 0; off < size; off += 8u) {
        if (*(const volatile uint64_t *)(uintptr_t)(addr + off) != 0)
            return false;
    }
    return true;
}

/* The trap frame for return address pc with caller SP sp: its address,
 * and in *layout the layout it matched; 0 if pc is no call site of the
 * vector code, or it is one but no layout's frame there can be read
 * (*layout is then the first layout whose site matched, else NULL).  A
 * layout sfu_layout_check refuses is never used: at its call site the
 * answer is 0 with *layout that layout (the walk stops there, with
 * SFU_E_READ, never past it as if the layout were not there). */
static inline uint64_t sfu__port_trap_find(const void *ctxv, uint64_t pc, uint64_t sp,
                                           const struct sfu_trap_layout **layout)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;
    size_t i;

    *layout = NULL;
    for (i = 0; ctx && ctx->traps && i < ctx->ntraps; i++) {
        const struct sfu_trap_layout *l = &ctx->traps[i];
        uint64_t frame = 0;

        if (!sfu__port_is_site(ctx, l, pc))
            continue;
        if (*layout == NULL)
            *layout = l;
        if (sfu_layout_check(l, NULL) != SFU_OK)
            return 0;
        if (!sfu__port_frame_base(ctx, l, sp, &frame))
            continue;
        frame += (uint64_t)(int64_t)l->frame.off;
        if (!sfu__port_block_ok(ctx, frame, l->frame.size, l->frame.align) || !sfu__port_variant(ctx, l, frame))
            continue;
        *layout = l;
        return frame;
    }
    return 0;
}

/* The interrupted SP of a frame, found at a call whose caller SP is
 * call_sp (0: not known); false if it cannot be known. */
static inline bool sfu__port_trap_sp(const struct sfu_trap_sp *s, uint64_t frame, uint32_t size, uint64_t call_sp,
                                     uint64_t *sp)
{
    switch (s->from) {
    case SFU_TRAP_SP_CALL:
        if (call_sp == 0)
            return false;
        *sp = call_sp + (uint64_t)(int64_t)s->add;
        return true;
    case SFU_TRAP_SP_SAVED:
        *sp = sfu__at_word(frame, s->at);
        return true;
    case SFU_TRAP_SP_END:
        *sp = frame + size + (uint64_t)(int64_t)s->add;
        return true;
    case SFU_TRAP_SP_VAR:
        *sp = *(const volatile uint64_t *)(uintptr_t)s->var;
        return true;
    default:
        return sfu__port_live_sp(sp);
    }
}

/* Does the block at addr (checked readable) say its code ran at a lower
 * privilege level? */
static inline bool sfu__port_lower_priv_at(const struct sfu_trap_regs *r, uint64_t addr)
{
    return r->mode != 0 && sfu__port_lower_priv(sfu__at_word(addr, r->mode));
}

/* The registers of a block checked readable (a trap frame, a saved
 * context) at addr, by r; the SP is set by the caller.  True if the block
 * says the code ran at a lower privilege level. */
static inline bool sfu__port_block_regs(const struct sfu_trap_regs *r, uint64_t addr, sfu_regs *out)
{
    out->pc = sfu__at_word(addr, r->pc);
    out->fp = sfu__at_word(addr, r->reg[SFU_PORT_DWARF_FP]);
#if SFU_PORT_DWARF_RA >= 0
    out->ra = r->reg[SFU_PORT_DWARF_RA] != 0 ? sfu__at_word(addr, r->reg[SFU_PORT_DWARF_RA]) : out->pc;
#else
    out->ra = 0;
#endif
    /* reg[] are SFU_AT offsets from the block: the core's dwarf_map form
     * (core/sfu.h, sfu_regs). */
    out->dwarf = (const uint64_t *)(uintptr_t)addr;
    out->ndwarf = SFU_PORT_NREGS;
    out->dwarf_map = r->reg;
    return sfu__port_lower_priv_at(r, addr);
}

SFU__LAYOUT_FN int sfu_port_trap_regs_sp(const struct sfu_trap_layout *l, uint64_t frame, uint64_t sp, sfu_regs *out)
{
    if (!sfu__port_trap_sp(&l->sp, frame, l->frame.size, sp, &out->sp))
        return SFU_TRAP_UNREADABLE;
    if ((sfu__port_block_regs(&l->regs, frame, out) || out->pc == 0) && sfu__port_block_zero(frame, l->frame.size)) {
        /* Never written: no context at all (even where a mode word of 0
         * reads as user mode); its end, for where it lies. */
        out->sp = frame + l->frame.size;
        return SFU_TRAP_EMPTY;
    }
    return sfu__port_lower_priv_at(&l->regs, frame) ? SFU_TRAP_USER : SFU_TRAP_KERNEL;
}

SFU__LAYOUT_FN int sfu_port_trap_regs(const struct sfu_trap_layout *l, uint64_t frame, sfu_regs *out)
{
    return sfu_port_trap_regs_sp(l, frame, 0, out);
}

/* A kernel frame whose PC is 0 is a call through a null function
 * pointer only if the return address that call left (aarch64: the link
 * register; x86_64: the word at the SP) follows an indirect call: read
 * (the code's bytes through the checked read, or inside call.start ..
 * call.end) and decoded by the port; anything else is a misread PC. */
static inline bool sfu__port_null_call_ok(const void *ctx, const struct sfu_trap_layout *l, const sfu_regs *r)
{
    uint8_t b[SFU__PORT_ICALL_LEN];
    uint64_t ra = r->ra;

    if (SFU_PORT_DWARF_RA < 0 && sfu_port_read((void *)(uintptr_t)ctx, r->sp, &ra) != 0)
        return false;
    return sfu__port_code_before(ctx, l, ra, b, SFU__PORT_ICALL_LEN) &&
           sfu__port_indirect_call(b, SFU__PORT_ICALL_LEN);
}

/* sfu_port_trap_regs_sp, with the memory of ctx: a PC of 0 that no call
 * through a null pointer explains is SFU_TRAP_PC_ZERO. */
static inline int sfu__port_trap_regs_at(const void *ctx, const struct sfu_trap_layout *l, uint64_t frame,
                                         uint64_t call_sp, sfu_regs *out)
{
    int kind = sfu_port_trap_regs_sp(l, frame, call_sp, out);

    if (kind == SFU_TRAP_KERNEL && out->pc == 0 && !sfu__port_null_call_ok(ctx, l, out))
        return SFU_TRAP_PC_ZERO;
    return kind;
}

SFU__LAYOUT_FN unsigned sfu_port_trap_fault(const struct sfu_trap_layout *l, uint64_t frame, uint64_t *code,
                                            uint64_t *addr)
{
    uint64_t w[SFU_PORT_FAULT_WORDS];
    unsigned i, have = 0;

    *code = *addr = 0;
    for (i = 0; i < SFU_PORT_FAULT_WORDS; i++) {
        w[i] = 0;
        if (l->fault.at[i] != 0) {
            w[i] = sfu__at_word(frame, l->fault.at[i]);
            have |= 1u << i;
        }
#if !SFU__PORT_NO_FAULT
        else if (((l->fault.live >> i) & 1u) && sfu__port_live_fault(i, &w[i]))
            have |= 1u << i;
#endif
    }
#if SFU__PORT_NO_FAULT
    (void)w;
    (void)have;
    return 0;
#else
    return have != 0 ? sfu__port_fault_pack(w, have, code, addr) : 0u;
#endif
}

SFU__LAYOUT_FN int sfu_port_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
    struct sfu_port_ctx *c = (struct sfu_port_ctx *)ctx;
    const struct sfu_trap_layout *l = NULL;
    uint64_t frame = sfu__port_trap_find(ctx, pc, sp, &l);
    int kind;

    if (l == NULL)
        return SFU_TRAP_NONE;
    if (frame == 0)
        return SFU_TRAP_UNREADABLE;
    kind = sfu__port_trap_regs_at(ctx, l, frame, sp, out);
    if (kind != SFU_TRAP_KERNEL && kind != SFU_TRAP_USER)
        return kind;
    /* The other SP as the frames crossed so far left it (sp.on_live). */
    if (l->sp.from == SFU_TRAP_SP_LIVE && c->live_sp != 0)
        out->sp = c->live_sp;
    if (l->sp.on_live)
        c->live_sp = frame + l->frame.size;
    return kind;
}

/* ---- threads ------------------------------------------------------------ */

SFU__LAYOUT_FN int sfu_switch_check(const struct sfu_switch_layout *l, const char **why)
{
    const char *w = NULL;
    size_t i;

    if (l == NULL) {
        w = "no switch layout";
    } else if (l->ntraps) {
        for (i = 0; w == NULL && i < l->ntraps; i++) {
            if (l->traps == NULL)
                w = "traps: missing, and ntraps is not 0";
            else if (sfu__frame_check(&l->traps[i]) != NULL)
                w = "traps[]: a trap layout breaks a rule (sfu_layout_check on it names the rule)";
            else if (l->traps[i].sp.from == SFU_TRAP_SP_LIVE)
                w = "traps[].sp.from: SFU_TRAP_SP_LIVE, and a thread that is not running has no live SP";
            else if (l->traps[i].sp.from == SFU_TRAP_SP_CALL)
                w = "traps[].sp.from: SFU_TRAP_SP_CALL, and a thread that is not running made no call";
        }
    } else if (l->unmatched != NULL) {
        w = "unmatched: set, and ntraps is 0 (a context of one layout has no variant to match)";
    } else if (l->size == 0 || (l->size & 7u) != 0) {
        w = "size: 0 or not a multiple of 8";
    } else if (l->align < 8 || (l->align & (l->align - 1u)) != 0) {
        w = "align: not a power of two of 8 or more";
    } else if ((w = sfu__regs_check(&l->regs, l->size, false)) != NULL) {
        ;
    } else if (l->sp.from == SFU_TRAP_SP_SAVED) {
        if (l->sp.at == 0)
            w = "sp.at: 0, not saved (left out of the initializer), with sp.from SFU_TRAP_SP_SAVED";
        else if (!sfu__at_ok(l->sp.at, l->size))
            w = "sp.at: not SFU_AT(a multiple of 8) inside the context";
    } else if (l->sp.from == SFU_TRAP_SP_END) {
        if ((l->sp.add & 7) != 0)
            w = "sp.add: not a multiple of 8";
    } else {
        w = "sp.from: neither SFU_TRAP_SP_SAVED nor SFU_TRAP_SP_END";
    }
    if (why != NULL)
        *why = w;
    return w == NULL ? SFU_OK : SFU_E_DESC;
}

/* Is the saved context of size bytes at addr readable: through ctx (the
 * thread's stacks), or else through its base context's memory (a context
 * kept in the thread struct, or on a heap)?  Every word checked. */
static inline bool sfu__port_context_ok(const void *ctxv, uint64_t addr, uint64_t size, uint64_t align)
{
    const struct sfu_port_ctx *ctx = (const struct sfu_port_ctx *)ctxv;
    size_t i;

    if (sfu__port_block_ok(ctxv, addr, size, align))
        return true;
    if (ctx == NULL || ctx->kernel == NULL || addr > UINT64_MAX - size - (uint64_t)SFU_PORT_GUARD_GAP)
        return false;
    /* Off the thread's stacks (its RAM): in the base context's memory,
     * never within SFU_PORT_GUARD_GAP bytes of one of them (a guard
     * page). */
    for (i = 0; i < ctx->nram; i++) {
        const struct sfu_port_range *r = &ctx->ram[i];

        if (addr < r->end + (uint64_t)SFU_PORT_GUARD_GAP && addr + size + (uint64_t)SFU_PORT_GUARD_GAP > r->start)
            return false;
    }
    return sfu__port_block_ok(ctx->kernel, addr, size, align);
}

/* A saved context that is a trap frame: the first variant that fits.
 * None: SFU_E_DESC where the layout names the rule such a context breaks
 * (unmatched), a variant's frame could be read there and every select
 * word read was; else SFU_E_READ. */
static inline int sfu__port_switch_trap(const void *ctx, const struct sfu_switch_layout *sl, uint64_t addr,
                                        sfu_regs *out)
{
    size_t i;
    bool fits = false, words = true;

    for (i = 0; i < sl->ntraps; i++) {
        const struct sfu_trap_layout *l = &sl->traps[i];
        int v;

        if (!sfu__port_context_ok(ctx, addr, l->frame.size, l->frame.align))
            continue;
        fits = true;
        v = sfu__port_variant3(ctx, l, addr);
        if (v != 1) {
            words = words && v == 0;
            continue;
        }
        switch (sfu__port_trap_regs_at(ctx, l, addr, 0, out)) {
        case SFU_TRAP_USER:
            return SFU_END_USER;
        case SFU_TRAP_KERNEL:
            return SFU_OK;
        case SFU_TRAP_EMPTY:
            return SFU_END_NEVER_RAN;
        case SFU_TRAP_PC_ZERO:
            return SFU_E_ZERO_RA;
        default:
            return SFU_E_READ;
        }
    }
    return sl->unmatched != NULL && fits && words ? SFU_E_DESC : SFU_E_READ;
}

SFU__LAYOUT_FN int sfu_port_switch_regs(const void *ctx, const struct sfu_switch_layout *l, uint64_t addr,
                                       sfu_regs *out)
{
    uint64_t sp = 0;

    if (sfu_switch_check(l, NULL) != SFU_OK)
        return SFU_E_DESC;
    if (l->ntraps)
        return sfu__port_switch_trap(ctx, l, addr, out);
    if (!sfu__port_context_ok(ctx, addr, l->size, l->align))
        return SFU_E_READ;
    if (sfu__port_block_zero(addr, l->size)) {
        out->sp = addr + l->size; /* its end, for where it lies */
        return SFU_END_NEVER_RAN; /* nothing was ever saved there */
    }
    (void)sfu__port_trap_sp(&l->sp, addr, l->size, 0, &sp); /* SAVED or END: always known */
    out->sp = sp;
    return sfu__port_block_regs(&l->regs, addr, out) ? SFU_END_USER : SFU_OK;
}

SFU__LAYOUT_FN int sfu_port_thread_init(struct sfu_port_thread *t, const struct sfu_port_ctx *base,
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
    t->ctx.entries = base ? base->entries : NULL;
    t->ctx.nentries = base ? base->nentries : 0;
    t->ctx.top = base ? base->top : 0;
    t->ctx.tcb = 0;
    t->ctx.live_sp = 0;
    t->port.read = sfu_port_read;
    t->port.strip_ra = SFU_PORT_STRIP_RA;
    t->port.trap = base && base->trap ? base->trap : sfu_port_trap;
    t->port.ctx = &t->ctx;
    t->port.stack_lo = 0;
    t->port.stack_hi = 0;
    t->port.stacks = t->stacks;
    t->port.nstacks = n;
    t->port.entries = t->ctx.entries;
    t->port.nentries = t->ctx.nentries;
    t->port.top = t->ctx.top;
    return SFU_OK;
}

SFU_CODEGEN_END

#endif /* SFU_LAYOUT_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
