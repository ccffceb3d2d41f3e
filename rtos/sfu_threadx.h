/* SPDX-License-Identifier: MIT */
/* sfu_threadx.h - Eclipse ThreadX's ARMv8-A ports (cortex_a35/a53/a55/...
 * GNU) described for sfu, ready made: the frames _tx_thread_context_save,
 * _tx_thread_context_restore and _tx_thread_system_return leave, and every
 * thread, found through the created-thread ring.  Constant data only.
 *
 * COVERED
 *   ThreadX 6.1.9 - 6.4.x, ports_arch/ARMv8-A (the cortex_a5x/gnu ports
 *   generated from it), single core, EL1/EL2/EL3 (any: the frames are the
 *   same), with or without ENABLE_ARM_FP (SFU_THREADX_ARM_FP must say
 *   which), TX_THREAD as tx_api.h 6.4.2 and tx_port.h 6.2.1 build it with
 *   the port's defaults (TX_THREAD_EXTENSION_2 = tx_thread_fp_enable).
 *
 * USAGE (README step 1's file: its include and its description line
 * change, its entries line goes; before its includes):
 *       #include "tx_api.h"               (optional: the offsets are then
 *                                           checked against TX_THREAD)
 *       #define SFU_THREADX_SYSTEM_STACK_LO __sys_stack_lo   (and _HI)
 *       #define SFU_THREADX_ENTRY board_main   (only where it is not main)
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu_threadx.h"
 *       static const struct sfu_dump dump = SFU_THREADX_DUMP(&state, board_putc);
 *   and sfu_dump_stack(&dump) / sfu_dump_threads(&dump) where you report.
 *   Your stubs' C functions by the default names (tx_irq_handler,
 *   tx_fault_handler, tx_overflow_fault if you have that stub) or named
 *   by the knobs below; ENABLE_ARM_FP seen where the port's build has it.
 *   With the crash record (README), the same fields and the buffer:
 *       static const struct sfu_dump dump = { SFU_DUMP_PUTC_FIELDS(&state, board_putc,
 *           sfu_threadx_traps, SFU_THREADX_SWITCH_TRAPS), .threads = &sfu_threadx_threads,
 *           SFU_DUMP_ENTRIES(sfu_threadx_entries), SFU_DUMP_RECORD(rec, sizeof rec) };
 *   or, after a description's own fields, SFU_THREADX_FIELDS and
 *   SFU_DUMP_ENTRIES(sfu_threadx_entries).
 *   A fault's cause (sfu_dump_cause from SFU_THREADX_FAULT_HANDLER or
 *   _OVERFLOW_HANDLER) is read from ESR_ELx and FAR_ELx (the level it runs
 *   at) as the handler finds them: context_save's frame keeps no syndrome.
 *   One translation unit defines the data (SFU_IMPLEMENTATION's); others
 *   include it plainly for the declarations.
 *
 * THE KNOBS (define before including)
 *   SFU_THREADX_ARM_FP         1: the port was built with ENABLE_ARM_FP
 *                              (tx_thread_fp_enable chooses a thread's
 *                              frames); 0: it was not  (default: 1 where
 *                              ENABLE_ARM_FP is defined, else 0; 0 with
 *                              ENABLE_ARM_FP defined is refused)
 *   SFU_THREADX_IRQ_HANDLER    the C function your interrupt stub calls
 *                              between _tx_thread_context_save and
 *                              _tx_thread_context_restore (default
 *                              tx_irq_handler; required: without such a
 *                              function the image does not link)
 *   SFU_THREADX_FAULT_HANDLER  the C function a synchronous stub calls
 *                              after pushing context_save's frame shape
 *                              (192 bytes) at the SP where the exception
 *                              happened, without counting it in
 *                              _tx_thread_system_state (a thread's stack,
 *                              or the system stack in an ISR) (default
 *                              tx_fault_handler; required, as the IRQ's)
 *   SFU_THREADX_OVERFLOW_HANDLER  the C function a stub calls after
 *                              pushing context_save's 192-byte frame on
 *                              another stack (SP_ELx), the thread's SP left
 *                              in SP_EL0 (a thread stack with no room)
 *                              (default tx_overflow_fault, a weak
 *                              reference: without one, its layout matches
 *                              no call)
 *   SFU_THREADX_SYSTEM_STACK_LO, _HI  the linker symbols bounding
 *                              _tx_thread_system_stack_ptr's stack, where
 *                              ISRs run (required: no default)
 *   SFU_THREADX_OTHER_STACK_LO, _HI  the overflow stub's stack (optional)
 *   SFU_THREADX_ENTRY          the function the boot stack starts in
 *                              (default main, a weak reference: without
 *                              one SFU_THREADX_DUMP's entry is 0, refused
 *                              by sfu_dump_check at the first dump)
 *
 * WHAT IS REFUSED
 *   At compile time, with tx_api.h included (TX_THREAD_ID defined): every
 *   TX_THREAD offset the description reads (tx_thread_stack_ptr,
 *   _stack_start, _stack_end, _stack_size, _name, _state, _created_next,
 *   _fp_enable), checked with offsetof: a TX_THREAD a build option moved
 *   is an error naming the field, never a misread.  SFU_THREADX_ARM_FP 0
 *   where ENABLE_ARM_FP is defined.  TX_ENABLE_IRQ_NESTING (a walk out
 *   of a nested ISR would look for the outer ISR's frame at its SP).
 *   TX_THREAD_SMP and module builds.  No SFU_THREADX_SYSTEM_STACK_LO or
 *   _HI.  At link time: no function by SFU_THREADX_IRQ_HANDLER's or
 *   _FAULT_HANDLER's name (their defaults if not defined).  At a walk
 *   (not knowable at boot: a thread sets its FP flag itself, once it
 *   runs): a thread whose
 *   tx_thread_fp_enable is set where SFU_THREADX_ARM_FP is 0 (its frames
 *   have an FP part the header does not know) matches no layout; its dump
 *   is refused with the field and the rule ("saved context at 0x...:
 *   tx_thread_fp_enable: set (...), and sfu_threadx.h is built with
 *   SFU_THREADX_ARM_FP 0: ...", stopped SFU_E_DESC), never walked.  A flag
 *   neither 0 nor 1 with SFU_THREADX_ARM_FP 1 is a corrupt TCB: "memory
 *   read refused" (SFU_E_READ).
 *
 * THE STATES SHOWN
 *   Every created thread, whatever its state (the created ring), named by
 *   tx_thread_state as tx_api.h numbers them: ready, completed (its entry
 *   returned; its trace the shell entry's suspension, ending at
 *   _tx_thread_shell_entry), terminated (tx_thread_terminate: the frame it
 *   last saved), suspended, sleep, queue, semaphore, event flag, block
 *   pool, byte pool, io driver, file, tcp/ip, mutex, priority change; "?"
 *   past them.  A thread never run: one frame, _tx_thread_shell_entry
 *   (_tx_thread_stack_build's first frame).  A deleted thread
 *   (tx_thread_delete) is off the ring: not shown.
 *
 * Offsets: eclipse-threadx ports_arch/ARMv8-A/threadx/common/src
 * tx_thread_stack_build.S, tx_thread_schedule.S (6.3.0),
 * tx_thread_context_save.S, tx_thread_context_restore.S,
 * tx_thread_system_return.S (the cortex_a35 copies, 6.1.9 - 6.2.x);
 * common/inc/tx_api.h 6.4.2, ports_arch/ARMv8-A/threadx/common/inc/
 * tx_port.h 6.2.1 (ULONG and UINT 32-bit, pointers 64-bit).
 */
#ifndef SFU_THREADX_H
#define SFU_THREADX_H

#include "sfu_threads.h"

/* The port's FP build: ENABLE_ARM_FP where your C files see it too (the
 * ThreadX build's global define), else say it. */
#ifndef SFU_THREADX_ARM_FP
#ifdef ENABLE_ARM_FP
#define SFU_THREADX_ARM_FP 1
#else
#define SFU_THREADX_ARM_FP 0
#endif
#endif
#if SFU_THREADX_ARM_FP != 0 && SFU_THREADX_ARM_FP != 1
#error "SFU_THREADX_ARM_FP must be 0 or 1 (the port built with ENABLE_ARM_FP)"
#endif
#if defined(ENABLE_ARM_FP) && !SFU_THREADX_ARM_FP
#error "sfu_threadx.h: the port is built with ENABLE_ARM_FP (threads' frames may hold FP registers), SFU_THREADX_ARM_FP is 0"
#endif
#ifndef SFU_THREADX_ENTRY
#define SFU_THREADX_ENTRY main
#endif
#ifndef SFU_THREADX_IRQ_HANDLER
#define SFU_THREADX_IRQ_HANDLER tx_irq_handler
#endif
#ifndef SFU_THREADX_FAULT_HANDLER
#define SFU_THREADX_FAULT_HANDLER tx_fault_handler
#endif
#ifndef SFU_THREADX_OVERFLOW_HANDLER
#define SFU_THREADX_OVERFLOW_HANDLER tx_overflow_fault
#endif
#if defined(TX_THREAD_SMP_SOURCE_CODE) || defined(TX_THREAD_SMP_MAX_CORES) || defined(TXM_MODULE)
#error "sfu_threadx.h: the SMP and module builds of ThreadX are not covered"
#endif
/* An ISR's frame is found by _tx_thread_system_state, the depth now: with
 * interrupts nesting, an outer ISR's frame would be looked for where a
 * nested one's lies.  Refused rather than misread. */
#ifdef TX_ENABLE_IRQ_NESTING
#error "sfu_threadx.h: TX_ENABLE_IRQ_NESTING is not covered (an outer ISR's frame cannot be told from a nested one's)"
#endif

/* TX_THREAD's offsets this header reads (tx_api.h 6.4.2 with tx_port.h's
 * ARMv8-A extensions; LP64, ULONG 32-bit). */
#define SFU_THREADX_ID 0            /* tx_thread_id, 0x54485244 "THRD" */
#define SFU_THREADX_STACK_PTR 8     /* the saved SP: a frame below */
#define SFU_THREADX_STACK_START 16
#define SFU_THREADX_STACK_END 24    /* the last byte: start + size - 1 */
#define SFU_THREADX_STACK_SIZE 32   /* ULONG */
#define SFU_THREADX_NAME 64         /* char * */
#define SFU_THREADX_STATE 76        /* UINT */
#define SFU_THREADX_CREATED_NEXT 232
#define SFU_THREADX_FP_ENABLE 248   /* ULONG, TX_THREAD_EXTENSION_2 */

/* The header's view of TX_THREAD: the fields above at their offsets. */
struct sfu_threadx_thread {
    uint32_t id, run_count;
    uint64_t stack_ptr, stack_start, stack_end;
    uint32_t stack_size;
    uint8_t pad1[SFU_THREADX_NAME - 36];
    const char *name;
    uint32_t priority, state;
    uint8_t pad2[SFU_THREADX_CREATED_NEXT - 80];
    uint64_t created_next, created_previous;
    uint32_t fp_enable;
};

/* The frames (tx_thread_*.S): at tx_thread_stack_ptr, a solicited frame
 * (_tx_thread_system_return: [DAIF, 0], [FPSR, FPCR] and q8-q15 with FP,
 * then (x27, x28) ... (x19, x20), (x29, x30); resumed by `ret` to x30) or
 * a full interrupt frame (context_restore's preemption, stack_build's
 * first: [SPSR, ELR], [FPSR, FPCR] and q0-q31 with FP, then (x28, x29),
 * (x26, x27) ... (x20, x21), (x18, x19) ... (x0, x1), (x29, x30)); told
 * apart by the word at +8 (0: solicited), FP by tx_thread_fp_enable.
 * Inside an ISR, _tx_thread_context_save's minimal frame: [SPSR, ELR],
 * (x18, x19) ... (x0, x1), (x29, x30) (the stub's push). */
#define SFU_THREADX_SOLICITED_SIZE(fp) ((fp) ? 256u : 112u)
#define SFU_THREADX_FULL_SIZE(fp) ((fp) ? 800u : 272u)
#define SFU_THREADX_MINIMAL_SIZE 192u
#define SFU__TX_SG(fp) ((fp) ? 144u : 0u) /* the solicited GPRs' shift */
#define SFU__TX_FG(fp) ((fp) ? 528u : 0u) /* the full frame's */
#define SFU__TX_SOLICITED_REGS(fp)                                                                  \
    {                                                                                               \
        [19] = SFU_AT(SFU__TX_SG(fp) + 80u), [20] = SFU_AT(SFU__TX_SG(fp) + 88u),                    \
        [21] = SFU_AT(SFU__TX_SG(fp) + 64u), [22] = SFU_AT(SFU__TX_SG(fp) + 72u),                    \
        [23] = SFU_AT(SFU__TX_SG(fp) + 48u), [24] = SFU_AT(SFU__TX_SG(fp) + 56u),                    \
        [25] = SFU_AT(SFU__TX_SG(fp) + 32u), [26] = SFU_AT(SFU__TX_SG(fp) + 40u),                    \
        [27] = SFU_AT(SFU__TX_SG(fp) + 16u), [28] = SFU_AT(SFU__TX_SG(fp) + 24u),                    \
        [29] = SFU_AT(SFU__TX_SG(fp) + 96u), [30] = SFU_AT(SFU__TX_SG(fp) + 104u)                    \
    }
/* Full frame: xn for n <= 19 at (xn even) 240 - 8 * n ... */
#define SFU__TX_FX(fp, n) SFU_AT(SFU__TX_FG(fp) + 96u + 16u * (9u - (n) / 2u) + 8u * ((n) & 1u))
#define SFU__TX_FULL_REGS(fp)                                                                       \
    {                                                                                               \
        SFU__TX_FX(fp, 0), SFU__TX_FX(fp, 1), SFU__TX_FX(fp, 2), SFU__TX_FX(fp, 3),                  \
        SFU__TX_FX(fp, 4), SFU__TX_FX(fp, 5), SFU__TX_FX(fp, 6), SFU__TX_FX(fp, 7),                  \
        SFU__TX_FX(fp, 8), SFU__TX_FX(fp, 9), SFU__TX_FX(fp, 10), SFU__TX_FX(fp, 11),                \
        SFU__TX_FX(fp, 12), SFU__TX_FX(fp, 13), SFU__TX_FX(fp, 14), SFU__TX_FX(fp, 15),              \
        SFU__TX_FX(fp, 16), SFU__TX_FX(fp, 17), SFU__TX_FX(fp, 18), SFU__TX_FX(fp, 19),              \
        SFU_AT(SFU__TX_FG(fp) + 80u), SFU_AT(SFU__TX_FG(fp) + 88u),                                  \
        SFU_AT(SFU__TX_FG(fp) + 64u), SFU_AT(SFU__TX_FG(fp) + 72u),                                  \
        SFU_AT(SFU__TX_FG(fp) + 48u), SFU_AT(SFU__TX_FG(fp) + 56u),                                  \
        SFU_AT(SFU__TX_FG(fp) + 32u), SFU_AT(SFU__TX_FG(fp) + 40u), SFU_AT(SFU__TX_FG(fp) + 16u),    \
        SFU_AT(SFU__TX_FG(fp) + 256u), SFU_AT(SFU__TX_FG(fp) + 264u)                                 \
    }
/* Minimal frame: (x18, x19) at 16, (x16, x17) at 32 ... (x0, x1) at 160. */
#define SFU__TX_MX(n) SFU_AT(16u + 16u * (9u - (n) / 2u) + 8u * ((n) & 1u))
#define SFU__TX_MINIMAL_REGS                                                                        \
    {                                                                                               \
        SFU__TX_MX(0), SFU__TX_MX(1), SFU__TX_MX(2), SFU__TX_MX(3), SFU__TX_MX(4), SFU__TX_MX(5),     \
        SFU__TX_MX(6), SFU__TX_MX(7), SFU__TX_MX(8), SFU__TX_MX(9), SFU__TX_MX(10), SFU__TX_MX(11),   \
        SFU__TX_MX(12), SFU__TX_MX(13), SFU__TX_MX(14), SFU__TX_MX(15), SFU__TX_MX(16),              \
        SFU__TX_MX(17), SFU__TX_MX(18), SFU__TX_MX(19), [29] = SFU_AT(176u), [30] = SFU_AT(184u)     \
    }

/* The layouts of sfu_threadx_traps[]: */
enum {
    SFU_THREADX_TRAP_ISR = 0,        /* first-level: the minimal frame behind the TCB */
    SFU_THREADX_TRAP_ISR_NESTED = 1, /* nested: the minimal frame at the SP */
    SFU_THREADX_TRAP_FAULT = 2,      /* SFU_THREADX_FAULT_HANDLER's */
    SFU_THREADX_TRAP_OVERFLOW = 3    /* SFU_THREADX_OVERFLOW_HANDLER's (never matched without one) */
    /* then a thread that is not running (sfu_threadx_switch's, from
     * SFU_THREADX_SWITCH_TRAPS): solicited, full, each without and (with
     * SFU_THREADX_ARM_FP) with the FP part */
};
#define SFU__TX_NISR 4
#define SFU_THREADX_SWITCH_TRAPS SFU__TX_NISR
#define SFU__TX_NSWITCH (SFU_THREADX_ARM_FP ? 4 : 2)
/* The rule a thread's frame breaks when no switch layout matches it in a
 * header built without FP (the TCB's flag set: the configuration does not
 * match); NULL with FP (a flag neither 0 nor 1 is a corrupt TCB, not a
 * configuration: SFU_E_READ). */
#define SFU_THREADX_UNMATCHED(fp)                                                                   \
    ((fp) ? NULL                                                                                    \
          : "tx_thread_fp_enable: set (the thread saves FP registers), and sfu_threadx.h is built with " \
            "SFU_THREADX_ARM_FP 0: no layout has its frames' FP part (build the header as the port is, " \
            "with ENABLE_ARM_FP)")
#define SFU_THREADX_NTRAPS (SFU__TX_NISR + SFU__TX_NSWITCH)

#ifdef __cplusplus
extern "C" {
#endif
extern const struct sfu_trap_layout sfu_threadx_traps[SFU_THREADX_NTRAPS];
extern const struct sfu_switch_layout sfu_threadx_switch;
extern const struct sfu_dump_table sfu_threadx_threads;
extern const uint64_t sfu_threadx_entries[2];
#ifdef __cplusplus
}
#endif

/* The whole description: the state, a putc, the linker script's RAM (as
 * SFU_DUMP_PUTC), the ISR layouts, every thread, where traces end (the
 * boot stack's entry, SFU_THREADX_ENTRY, and _tx_thread_shell_entry).
 * SFU_THREADX_FIELDS: the ISR layouts and every thread only, after a
 * description's own fields (its output, memory; not its traps), followed
 * by SFU_DUMP_ENTRIES(sfu_threadx_entries) or entries of its own that
 * hold _tx_thread_shell_entry. */
#define SFU_THREADX_FIELDS SFU_DUMP_TRAPS(sfu_threadx_traps, SFU__TX_NISR), .threads = &sfu_threadx_threads
#define SFU_THREADX_DUMP(state_, putc_fn)                                                           \
    { SFU_DUMP_PUTC_FIELDS(state_, putc_fn, sfu_threadx_traps, SFU__TX_NISR),                       \
      .threads = &sfu_threadx_threads, SFU_DUMP_ENTRIES(sfu_threadx_entries) }

#endif /* SFU_THREADX_H */

/* ======================================================================== */
/* The data: in the file with SFU_IMPLEMENTATION, or with SFU_THREADX_DATA
 * in a file of its own. */
#if (defined(SFU_IMPLEMENTATION) || defined(SFU_THREADX_DATA)) && !defined(SFU_THREADX_IMPLEMENTATION_DONE)
#define SFU_THREADX_IMPLEMENTATION_DONE

#if !defined(SFU_THREADX_SYSTEM_STACK_LO) || !defined(SFU_THREADX_SYSTEM_STACK_HI)
#error "sfu_threadx.h: define SFU_THREADX_SYSTEM_STACK_LO and _HI, the linker symbols of the system stack"
#endif

_Static_assert(offsetof(struct sfu_threadx_thread, stack_ptr) == SFU_THREADX_STACK_PTR, "sfu_threadx.h");
_Static_assert(offsetof(struct sfu_threadx_thread, name) == SFU_THREADX_NAME, "sfu_threadx.h");
_Static_assert(offsetof(struct sfu_threadx_thread, state) == SFU_THREADX_STATE, "sfu_threadx.h");
_Static_assert(offsetof(struct sfu_threadx_thread, created_next) == SFU_THREADX_CREATED_NEXT, "sfu_threadx.h");
_Static_assert(offsetof(struct sfu_threadx_thread, fp_enable) == SFU_THREADX_FP_ENABLE, "sfu_threadx.h");

#ifdef TX_THREAD_ID
/* tx_api.h is included: the build's own TX_THREAD. */
#define SFU__TX_CHECK(f, off)                                                                       \
    _Static_assert(offsetof(TX_THREAD, f) == (off), "sfu_threadx.h: TX_THREAD." #f " is not at " #off \
                                                    ": a build option moved it; this header does not cover it")
SFU__TX_CHECK(tx_thread_id, SFU_THREADX_ID);
SFU__TX_CHECK(tx_thread_stack_ptr, SFU_THREADX_STACK_PTR);
SFU__TX_CHECK(tx_thread_stack_start, SFU_THREADX_STACK_START);
SFU__TX_CHECK(tx_thread_stack_end, SFU_THREADX_STACK_END);
SFU__TX_CHECK(tx_thread_stack_size, SFU_THREADX_STACK_SIZE);
SFU__TX_CHECK(tx_thread_name, SFU_THREADX_NAME);
SFU__TX_CHECK(tx_thread_state, SFU_THREADX_STATE);
SFU__TX_CHECK(tx_thread_created_next, SFU_THREADX_CREATED_NEXT);
SFU__TX_CHECK(tx_thread_fp_enable, SFU_THREADX_FP_ENABLE);
_Static_assert(sizeof(((TX_THREAD *)0)->tx_thread_stack_ptr) == 8 && sizeof(((TX_THREAD *)0)->tx_thread_state) == 4,
               "sfu_threadx.h: not the LP64 ARMv8-A port's TX_THREAD");
#endif

extern char SFU_THREADX_SYSTEM_STACK_LO[], SFU_THREADX_SYSTEM_STACK_HI[];
#define SFU__TX_STR2(x) #x
#define SFU__TX_STR(x) SFU__TX_STR2(x)
extern const char sfu__tx_current[] __asm__("_tx_thread_current_ptr");
extern const char sfu__tx_created[] __asm__("_tx_thread_created_ptr");
extern const char sfu__tx_state[] __asm__("_tx_thread_system_state");
/* Weak: a build whose dump names its own entries (SFU_DUMP_ENTRIES)
 * needs none; SFU_THREADX_DUMP's entry is then 0, which sfu_dump_check
 * refuses (not a function's start). */
extern const char sfu__tx_entry_fn[] __asm__(SFU__TX_STR(SFU_THREADX_ENTRY)) __attribute__((weak));
/* The ISR's and the fault handler's C functions: required (a link error
 * names the function if your build has none by that name: every
 * interrupt comes through the one, every fault the layouts describe
 * through the other). */
extern const char sfu__tx_irq_fn[] __asm__(SFU__TX_STR(SFU_THREADX_IRQ_HANDLER));
extern const char sfu__tx_fault_fn[] __asm__(SFU__TX_STR(SFU_THREADX_FAULT_HANDLER));
/* The overflow stub's: weak, so a build without one leaves it NULL, a
 * callee that matches no call (sfu_layout.h): that layout is never
 * matched. */
extern const char sfu__tx_ovf_fn[] __asm__(SFU__TX_STR(SFU_THREADX_OVERFLOW_HANDLER)) __attribute__((weak));
static const void *const sfu__tx_isr_calls[] = { sfu__tx_irq_fn };
static const void *const sfu__tx_fault_calls[] = { sfu__tx_fault_fn };
static const void *const sfu__tx_ovf_calls[] = { sfu__tx_ovf_fn };
/* The calls into C, by their callee alone: the port's stubs are the only
 * callers of these functions, so no code range is needed; the instruction
 * before a return address is read through the dump's checked read (the
 * code must lie in its RAM). */
#define SFU__TX_CALLS(c) { .callees = (c), .ncallees = sizeof(c) / sizeof((c)[0]) }

/* An ISR's frame: _tx_thread_system_state 1 (the first level) behind the
 * interrupted thread's tx_thread_stack_ptr, else (nested) at the SP of
 * the call; the interrupted SP its end either way. */
#define SFU__TX_ISR(nested)                                                                         \
    {                                                                                               \
        .call = SFU__TX_CALLS(sfu__tx_isr_calls),                                                   \
        .frame = { .from = (nested) ? SFU_TRAP_FRAME_SP : SFU_TRAP_FRAME_TCB,                       \
                   .ref = (nested) ? NULL : (const void *)sfu__tx_current,                          \
                   .ref_off = (nested) ? 0 : SFU_THREADX_STACK_PTR, .size = SFU_THREADX_MINIMAL_SIZE, \
                   .align = 16 },                                                                   \
        .sp = { .from = SFU_TRAP_SP_END },                                                          \
        .select = { .from = SFU_SELECT_VAR, .ref = (nested) ? NULL : (const void *)sfu__tx_state,   \
                    .at = (nested) ? 0 : SFU_AT(0), .size = 4, .mask = (nested) ? 0 : 0xffffffffu, .value = 1 }, \
        .regs = { .pc = SFU_AT(8), .mode = SFU_AT(0), .reg = SFU__TX_MINIMAL_REGS },                 \
    }
/* A thread's saved frame by the word at +8 (ELR; 0: solicited) and its
 * TCB's tx_thread_fp_enable. */
#define SFU__TX_FP_IS(fp)                                                                           \
    { .from = SFU_SELECT_TCB, .ref = (const void *)sfu__tx_current, .at = SFU_AT(SFU_THREADX_FP_ENABLE), \
      .size = 4, .mask = 0xffffffffu, .value = (fp) }
#define SFU__TX_SOLICITED(fp)                                                                       \
    {                                                                                               \
        .call = SFU__TX_CALLS(sfu__tx_isr_calls),                                                   \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_THREADX_SOLICITED_SIZE(fp), .align = 16 }, \
        .sp = { .from = SFU_TRAP_SP_END }, .select = { .at = SFU_AT(8), .mask = UINT64_MAX, .value = 0 }, \
        .also = SFU__TX_FP_IS(fp),                                                                  \
        .regs = { .pc = SFU_AT(SFU__TX_SG(fp) + 104u), .reg = SFU__TX_SOLICITED_REGS(fp) },          \
    }
#define SFU__TX_FULL(fp)                                                                            \
    {                                                                                               \
        .call = SFU__TX_CALLS(sfu__tx_isr_calls),                                                   \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_THREADX_FULL_SIZE(fp), .align = 16 },      \
        .sp = { .from = SFU_TRAP_SP_END }, .select = SFU__TX_FP_IS(fp),                              \
        .regs = { .pc = SFU_AT(8), .mode = SFU_AT(0), .reg = SFU__TX_FULL_REGS(fp) },                \
    }

const struct sfu_trap_layout sfu_threadx_traps[SFU_THREADX_NTRAPS] = {
    SFU__TX_ISR(0),
    SFU__TX_ISR(1),
    {
        .call = SFU__TX_CALLS(sfu__tx_fault_calls),
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_THREADX_MINIMAL_SIZE, .align = 16 },
        .sp = { .from = SFU_TRAP_SP_END },
        .regs = { .pc = SFU_AT(8), .mode = SFU_AT(0), .reg = SFU__TX_MINIMAL_REGS },
        .fault = { .live = 3 }, /* ESR_EL1, FAR_EL1: the frame has no syndrome */
    },
    {
        .call = SFU__TX_CALLS(sfu__tx_ovf_calls),
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_THREADX_MINIMAL_SIZE, .align = 16 },
        .sp = { .from = SFU_TRAP_SP_LIVE },
        .regs = { .pc = SFU_AT(8), .mode = SFU_AT(0), .reg = SFU__TX_MINIMAL_REGS },
        .fault = { .live = 3 },
    },
    SFU__TX_SOLICITED(0),
    SFU__TX_FULL(0),
#if SFU_THREADX_ARM_FP
    SFU__TX_SOLICITED(1),
    SFU__TX_FULL(1),
#endif
};

/* A thread whose tx_thread_fp_enable no layout's select matches: refused
 * by the walk, with this rule (SFU_E_DESC).  Not known at boot: a thread
 * sets its flag itself (tx_thread_fp_enable()), once it runs. */
const struct sfu_switch_layout sfu_threadx_switch = { .traps = &sfu_threadx_traps[SFU_THREADX_SWITCH_TRAPS],
                                                      .ntraps = SFU__TX_NSWITCH,
                                                      .unmatched = SFU_THREADX_UNMATCHED(SFU_THREADX_ARM_FP) };

/* Where a whole trace ends: the boot stack's entry, and every thread's
 * (tx_thread_create starts each at _tx_thread_shell_entry, whose caller
 * is no code: _tx_thread_stack_build's zeroed x30). */
extern const char sfu__tx_shell_fn[] __asm__("_tx_thread_shell_entry");
const uint64_t sfu_threadx_entries[2] = { (uintptr_t)sfu__tx_entry_fn, (uintptr_t)sfu__tx_shell_fn };

/* tx_api.h's thread states. */
static const char *const sfu__tx_states[] = { "ready",     "completed", "terminated", "suspended", "sleep",
                                               "queue",     "semaphore", "event flag", "block pool", "byte pool",
                                               "io driver", "file",      "tcp/ip",     "mutex",     "priority change" };

#ifdef SFU_THREADX_OTHER_STACK_LO
extern char SFU_THREADX_OTHER_STACK_LO[], SFU_THREADX_OTHER_STACK_HI[];
#endif
static const sfu_stack sfu__tx_shared[] = {
    { (uintptr_t)SFU_THREADX_SYSTEM_STACK_LO, (uintptr_t)SFU_THREADX_SYSTEM_STACK_HI },
#ifdef SFU_THREADX_OTHER_STACK_LO
    { (uintptr_t)SFU_THREADX_OTHER_STACK_LO, (uintptr_t)SFU_THREADX_OTHER_STACK_HI },
#endif
};

const struct sfu_dump_table sfu_threadx_threads = {
    SFU_DUMP_RING(struct sfu_threadx_thread, sfu__tx_created, created_next),
    SFU_DUMP_SAVED(struct sfu_threadx_thread, stack_ptr, &sfu_threadx_switch),
    SFU_DUMP_NAME(struct sfu_threadx_thread, name),
    SFU_DUMP_STATE(struct sfu_threadx_thread, state, sfu__tx_states),
    SFU_DUMP_STACKS(struct sfu_threadx_thread, stack_start, stack_end),
    .shared = sfu__tx_shared,
    .nshared = sizeof(sfu__tx_shared) / sizeof(sfu__tx_shared[0]),
    .current = sfu__tx_current,
};

#endif /* SFU_IMPLEMENTATION || SFU_THREADX_DATA */
