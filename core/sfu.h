/* SPDX-License-Identifier: MIT */
/* sfu.h - freestanding SFrame stack unwinder, header-only, no heap, no libc.
 *
 * USAGE
 *   In exactly one C file:
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu.h"
 *   Everywhere else include it plainly.  Define SFU_STATIC as well to make
 *   every function static to that file.  Needs only <stdint.h>, <stddef.h>,
 *   <stdbool.h>; no function of the C library is called (no memcpy either).
 *   The implementation is in parts beside this file, which it includes
 *   (sfu_walk.h: what a panic runs; sfu_validate.h: the boot-time checks;
 *   sfu_decode.h: the decoding API tools use; sfu_fast.h: the speed
 *   machinery), and the format in sfu_format.h: keep the folder whole.
 *
 * WHAT YOU PROVIDE (the port)
 *   - the section bytes: with GNU ld and linker/sframe.ld they lie between
 *     __sframe_start and __sframe_end, loaded at the address they run at
 *     (lld concatenates one section per object: sfu_section_split finds
 *     them all, told SFU_OPT_START_PCREL; sfu_section_split_code also
 *     checks every function against your code range);
 *   - sfu_port.read: read one 64-bit word of stack memory, or refuse.  The
 *     core computes addresses from untrusted data and never dereferences them
 *     itself: every stack read goes through this function.  Refuse anything
 *     outside your RAM, anything unaligned, anything you cannot read safely;
 *   - optionally sfu_port.strip_ra (aarch64 PAC: strip the signature bits),
 *     sfu_port.trap (turn an exception trap frame back into registers, so the
 *     walk continues into the interrupted code), stack bounds;
 *   - the registers to start from (sfu_regs): the current ones at a panic
 *     call, or the ones saved by your exception entry.
 *
 * EXAMPLE
 *       extern const uint8_t __sframe_start[], __sframe_end[];
 *       static const sfu_port port = { .read = my_read, .stack_lo = STACK_LO, .stack_hi = STACK_HI };
 *       // (the stack's bounds also say where it ends: THE END OF A STACK)
 *       static sfu_section secs[16];
 *       static size_t nsecs;
 *       static sfu_regs regs;
 *       static sfu_cursor cur;
 *
 *       // once, at boot:
 *       if (sfu_section_split(secs, 16, &nsecs, __sframe_start,
 *                             (size_t)(__sframe_end - __sframe_start),
 *                             (uint64_t)(uintptr_t)__sframe_start, 0) != SFU_OK)
 *               ...;  // SFU_E_FULL: more sections than room, never ignore
 *
 *       // in panic():
 *       my_capture(&regs);  // pc, sp, fp, lr: here, or your trap frame's
 *       int why = sfu_cursor_init(&cur, secs, nsecs, &port, &regs);
 *       for (; why == SFU_OK; why = sfu_cursor_step(&cur))
 *               my_print(cur.regs.pc, cur.exact);  // name it at pc - 1 unless exact
 *       // why says why the walk stopped: SFU_COMPLETE(why), a whole trace.
 *   Why this shape: the port is constant data and the state lives outside
 *   the panicking stack.  An sfu_port or sfu_regs built in panic() from an
 *   initializer, or any struct copied there, may be compiled into SSE or
 *   NEON moves, which fault while FP/SIMD is off (SFU_SAFE_CODEGEN keeps
 *   them out of the core, not out of your function); and a frames[] array
 *   on a task's stack can overflow a small one.  Each frame is printed as
 *   the cursor reaches it; sfu_backtrace fills a frames[] array (a static
 *   one) in one call instead.
 *
 * SPEED (optional, caller memory, no heap)
 *   SFU_CACHE: a row cache (sfu_cache_init, sfu_backtrace_cached) for
 *   repeated walks (sampling, watchdogs).  SFU_INDEX: per section, an index
 *   built once at boot (sfu_index_size, sfu_index_build) that every lookup
 *   then uses: SFU_INDEX_FDES (a table per block of code giving the FDEs to
 *   search) or SFU_INDEX_ROWS (every row compiled: a bounded search and one
 *   load).  Neither changes any result, only how fast it comes.  Memory
 *   (sfu_index_size says exactly): an FDE index takes 4 bytes per block of
 *   code, at most one block per FDE; a row index 12 bytes per row (about
 *   one per FRE, one more per gap between functions, equal neighbours
 *   merged) and 4 per block, at most one block per two rows; each plus 28
 *   bytes.  Either turns SFU_FAST (below) on by default: every walk faster
 *   still, for code.
 *
 * CONFIGURATION (define before including; 0/1 knobs tested with #if)
 *   SFU_V1, SFU_V2, SFU_V3   read SFrame version 1/2/3        (default 1 each)
 *   SFU_LITTLE, SFU_BIG      read little/big-endian sections   (default 1 each)
 *   SFU_AMD64, SFU_AARCH64, SFU_S390X
 *                            ABIs read                          (default 1 each)
 *   SFU_FLEX                 V3 flexible FDEs (DRAP, registers)  (default 1)
 *   SFU_FP_FALLBACK          frame-pointer walk where no SFrame info (default 0)
 *   SFU_DEPTH_CAP            hard cap on frames in one walk     (default 256)
 *   SFU_ERROR_STRINGS        provide sfu_strerror(), sfu_errname() (default 0)
 *   SFU_CACHE                caller-provided row cache API     (default 0)
 *   SFU_INDEX                caller-memory section indexes     (default 0)
 *   SFU_FAST                 speed for code: the lookup and the step
 *                            inlined and specialised (a cold walk about
 *                            twice as fast for about 2.5 times the code
 *                            of sfu_backtrace; sfu_fast.h has the
 *                            figures); 0: one small shape at every
 *                            optimisation level    (default 1 with
 *                                           SFU_INDEX or SFU_CACHE, else 0)
 *   SFU_COMPACT              apply rows in their compact form; 0: every row
 *                            through the general rules (the reference the
 *                            tests compare the compact path with)  (default 1)
 *   SFU_READ(ctx, addr, out) a port read the compiler can inline, used
 *                            instead of sfu_port.read; define the function
 *                            it calls between SFU_CODEGEN_BEGIN and _END,
 *                            or no compiler will inline it     (default none)
 *   SFU_ASSERT(x)            internal consistency hook         (default none)
 *   SFU_SAFE_CODEGEN         build the core for any CPU state: general
 *                            registers only, no unaligned access, whatever
 *                            the translation unit's flags      (default 1)
 *   SFU_TOP_FRAME            bytes below a stack's top where the caller
 *                            SP of a return address of 0 may lie and
 *                            still end the walk (an sfu_port's `top` of
 *                            0; 0: exactly at the top; see THE END OF A
 *                            STACK)                              (default 0)
 *   SFU_FIX_LD_PLTGOT        read GNU ld's x86_64 .plt.got FDE (ld 2.44,
 *                            2.47: CFA = SP + 16 at the stub's entry) as
 *                            the code it describes says, CFA = SP + 8;
 *                            0: as written (see "PRODUCER ERRORS")
 *                                                               (default 1)
 *
 * THE CRASH PATH IN ANY CPU STATE
 *   A panic can happen with the MMU off (every access is Device memory, an
 *   unaligned load faults) or before the kernel enabled FP/SIMD (any FP or
 *   SIMD instruction traps).  With SFU_SAFE_CODEGEN (the default) the
 *   implementation and the ports are compiled, whatever flags the file is
 *   built with, as with -mgeneral-regs-only -mstrict-align on aarch64 and
 *   -mgeneral-regs-only on x86_64 (GCC target pragmas, clang's
 *   "attribute push"), and every public function is out of line, so no
 *   compiler can inline it into code built with other flags.  Section
 *   fields are read byte by byte (the section need not be aligned); stack
 *   words only as aligned 8-byte reads, through the port.
 *
 * THE END OF A STACK
 *   A trace is whole (SFU_COMPLETE) only where its end is known, never
 *   because a misread landed on zeroed memory:
 *     - SFrame marks the frame outermost: an FRE with no data words, "RA
 *       undefined" (V2 erratum 2, V3 2.4.1; read the same way in V1, whose
 *       producers write none), a V3 FDE without FREs (2.3.3.2): SFU_END;
 *       `.cfi_undefined` on the return address column makes GNU as 2.47
 *       write it (docs/kernel-styles.md: the CFI of an entry stub);
 *     - the frame belongs to a function the port names as an entry
 *       (sfu_port.entries: the first byte of a thread trampoline, of the
 *       kernel's C entry point; a return address equal to one, a planted
 *       "task exit" address, too): SFU_END at that frame;
 *     - a return address of 0 where the code that started the stack left
 *       it: the caller's SP at the top (hi) of the stack the walk is on,
 *       or within sfu_port.top bytes below it (0: SFU_TOP_FRAME, default
 *       0: exactly there; an RTOS that aligns a task's first SP down says
 *       by how much): SFU_END.  A zeroed
 *       trap frame whose end lies there (a kernel thread's pt_regs, never
 *       filled): SFU_END_NEVER_RAN.
 *   A return address of 0 anywhere else, or on a port that declares no
 *   stack, is SFU_E_ZERO_RA: incomplete; so is an interrupted PC of 0
 *   with no return address (no context at all).  A trap frame that says
 *   the code ran at a lower privilege level ends the walk (SFU_END_USER)
 *   only where neither its PC nor its SP is the kernel's: an SP on a stack
 *   the port declares, or a PC the sections describe, is kernel code (an
 *   RTOS's EL0 task on its own stack, or a mode word misread), and the
 *   walk goes on there; a PC of 0 said to be user code is no context.
 *   SFU_E_NOT_CALL is the dump layer's (crash/sfu_dump.h): a return
 *   address whose instruction before it is no call is a misread word (a
 *   function pointer, a stale value), and the dump stops there; the core,
 *   which reads no code, never gives it.
 *
 * PRODUCER ERRORS
 *   One wrong description a producer is known to write, GNU ld's x86_64
 *   .plt.got FDE (CFA = SP + 16 at a stub's entry, where the code says
 *   SP + 8), is corrected where rows are built, so every path sees the same
 *   row; SFU_FIX_LD_PLTGOT 0 reads it as written.  The exact shape, and why
 *   no correct producer writes it: docs/producer-errors.md.
 *
 * ERRORS
 *   Functions return an int code from SFU_ERRORS below: 0 is success, the
 *   rest say what went wrong or why a walk stopped.  "No unwind info for this
 *   PC" (SFU_E_NOINFO), a corrupt section (SFU_E_* of the section) and "the
 *   port refused a read" (SFU_E_READ) are always distinct.  Nothing aborts,
 *   nothing prints.
 *
 * THE FORMAT
 *   The SFrame specification, versions 1, 2 (with its errata) and 3; section
 *   numbers below are those of the version 3 document unless a version is
 *   named.  core/sfu_format.h holds the on-disk layout.
 */
#ifndef SFU_H
#define SFU_H

/* The release (CHANGELOG.md): semantic versioning, before 1.0 a MINOR may
 * change the API.  (SFU_VERSION_1..3 of sfu_format.h are SFrame's format
 * versions.)  The Makefile reads the three numbers from here. */
#define SFU_VERSION_MAJOR 0
#define SFU_VERSION_MINOR 1
#define SFU_VERSION_PATCH 0
#define SFU__VSTR(x) #x
#define SFU__VXSTR(x) SFU__VSTR(x)
#define SFU_VERSION_STRING \
	SFU__VXSTR(SFU_VERSION_MAJOR) "." SFU__VXSTR(SFU_VERSION_MINOR) "." SFU__VXSTR(SFU_VERSION_PATCH)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfu_format.h"

/* ---- configuration ---------------------------------------------------- */

#ifndef SFU_V1
#define SFU_V1 1
#endif
#ifndef SFU_V2
#define SFU_V2 1
#endif
#ifndef SFU_V3
#define SFU_V3 1
#endif
#ifndef SFU_LITTLE
#define SFU_LITTLE 1
#endif
#ifndef SFU_BIG
#define SFU_BIG 1
#endif
#ifndef SFU_AMD64
#define SFU_AMD64 1
#endif
#ifndef SFU_AARCH64
#define SFU_AARCH64 1
#endif
#ifndef SFU_S390X
#define SFU_S390X 1
#endif
#ifndef SFU_FLEX
#define SFU_FLEX 1
#endif
#ifndef SFU_FP_FALLBACK
#define SFU_FP_FALLBACK 0
#endif
#ifndef SFU_DEPTH_CAP
#define SFU_DEPTH_CAP 256
#endif
#ifndef SFU_ERROR_STRINGS
#define SFU_ERROR_STRINGS 0
#endif
#ifndef SFU_CACHE
#define SFU_CACHE 0
#endif
#ifndef SFU_INDEX
#define SFU_INDEX 0
#endif
#ifndef SFU_FAST
#define SFU_FAST (SFU_INDEX || SFU_CACHE)
#endif
#ifndef SFU_COMPACT
#define SFU_COMPACT 1
#endif
#ifndef SFU_ASSERT
#define SFU_ASSERT(x) ((void)0)
#endif
#ifndef SFU_SAFE_CODEGEN
#define SFU_SAFE_CODEGEN 1
#endif
#ifndef SFU_FIX_LD_PLTGOT
#define SFU_FIX_LD_PLTGOT 1
#endif
#ifndef SFU_TOP_FRAME
#define SFU_TOP_FRAME 0
#endif

#if (SFU_V1 != 0 && SFU_V1 != 1) || (SFU_V2 != 0 && SFU_V2 != 1) || (SFU_V3 != 0 && SFU_V3 != 1)
#error "SFU_V1, SFU_V2, SFU_V3 must be 0 or 1"
#endif
#if !SFU_V1 && !SFU_V2 && !SFU_V3
#error "enable at least one SFrame version (SFU_V1, SFU_V2, SFU_V3)"
#endif
#if (SFU_LITTLE != 0 && SFU_LITTLE != 1) || (SFU_BIG != 0 && SFU_BIG != 1)
#error "SFU_LITTLE and SFU_BIG must be 0 or 1"
#endif
#if !SFU_LITTLE && !SFU_BIG
#error "enable at least one byte order (SFU_LITTLE, SFU_BIG)"
#endif
#if (SFU_AMD64 != 0 && SFU_AMD64 != 1) || (SFU_AARCH64 != 0 && SFU_AARCH64 != 1) || (SFU_S390X != 0 && SFU_S390X != 1)
#error "SFU_AMD64, SFU_AARCH64, SFU_S390X must be 0 or 1"
#endif
#if !SFU_AMD64 && !SFU_AARCH64 && !SFU_S390X
#error "enable at least one ABI (SFU_AMD64, SFU_AARCH64, SFU_S390X)"
#endif
#if SFU_FLEX != 0 && SFU_FLEX != 1
#error "SFU_FLEX must be 0 or 1"
#endif
#if SFU_FP_FALLBACK != 0 && SFU_FP_FALLBACK != 1
#error "SFU_FP_FALLBACK must be 0 or 1"
#endif
#if SFU_CACHE != 0 && SFU_CACHE != 1
#error "SFU_CACHE must be 0 or 1"
#endif
#if SFU_INDEX != 0 && SFU_INDEX != 1
#error "SFU_INDEX must be 0 or 1"
#endif
#if SFU_FAST != 0 && SFU_FAST != 1
#error "SFU_FAST must be 0 or 1"
#endif
#if SFU_COMPACT != 0 && SFU_COMPACT != 1
#error "SFU_COMPACT must be 0 or 1"
#endif
#if SFU_ERROR_STRINGS != 0 && SFU_ERROR_STRINGS != 1
#error "SFU_ERROR_STRINGS must be 0 or 1"
#endif
#if SFU_DEPTH_CAP < 1 || SFU_DEPTH_CAP > 65535
#error "SFU_DEPTH_CAP must be between 1 and 65535"
#endif
#if SFU_SAFE_CODEGEN != 0 && SFU_SAFE_CODEGEN != 1
#error "SFU_SAFE_CODEGEN must be 0 or 1"
#endif
#if SFU_FIX_LD_PLTGOT != 0 && SFU_FIX_LD_PLTGOT != 1
#error "SFU_FIX_LD_PLTGOT must be 0 or 1"
#endif
#if SFU_TOP_FRAME < 0 || SFU_TOP_FRAME > 65536
#error "SFU_TOP_FRAME must be between 0 and 65536"
#endif

/* SFU_CODEGEN_BEGIN ... SFU_CODEGEN_END: functions defined between them are
 * compiled for any CPU state a kernel may be in (see above), whatever the
 * flags of the translation unit.  The core's implementation and the port
 * headers use them; a port of your own may too.  This is about code
 * generation, not unwinding, so it is the one place that names target
 * architectures: elsewhere none is named, and a target without an entry
 * here relies on the flags it is built with (say -mstrict-align). */
#if SFU_SAFE_CODEGEN && defined(__clang__) && defined(__aarch64__) && __clang_major__ >= 16
/* GCC's spelling ("+nosimd"), which clang takes since 16: clang 21 and 22
 * ignore the old "no-neon,no-fp-armv8" without a word (and use SIMD
 * registers), clang 14 warns on the new. */
#define SFU_CODEGEN_BEGIN                                                                   \
	_Pragma("clang attribute push(__attribute__((target(\"+strict-align,+nosimd,+nofp\"))), apply_to = function)")
#define SFU_CODEGEN_END _Pragma("clang attribute pop")
#elif SFU_SAFE_CODEGEN && defined(__clang__) && defined(__aarch64__)
#define SFU_CODEGEN_BEGIN                                                                   \
	_Pragma("clang attribute push(__attribute__((target(\"strict-align,no-neon,no-fp-armv8\"))), apply_to = function)")
#define SFU_CODEGEN_END _Pragma("clang attribute pop")
#elif SFU_SAFE_CODEGEN && defined(__clang__) && defined(__x86_64__)
#define SFU_CODEGEN_BEGIN                                                                   \
	_Pragma("clang attribute push(__attribute__((target(\"general-regs-only\"))), apply_to = function)")
#define SFU_CODEGEN_END _Pragma("clang attribute pop")
#elif SFU_SAFE_CODEGEN && defined(__GNUC__) && defined(__aarch64__)
#define SFU_CODEGEN_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"general-regs-only,strict-align\")")
#define SFU_CODEGEN_END _Pragma("GCC pop_options")
#elif SFU_SAFE_CODEGEN && defined(__GNUC__) && defined(__x86_64__)
#define SFU_CODEGEN_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"general-regs-only\")")
#define SFU_CODEGEN_END _Pragma("GCC pop_options")
#else
#define SFU_CODEGEN_BEGIN
#define SFU_CODEGEN_END
#endif

#ifdef SFU_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define SFU_DEF static __attribute__((unused)) /* a TU may use only some */
#else
#define SFU_DEF static
#endif
#else
#define SFU_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes -------------------------------------------------------- */

/* X(name, value, text).  Section errors first, then walk stops. */
#define SFU_ERRORS(X)                                                         \
	X(SFU_OK, 0, "ok")                                                        \
	X(SFU_E_ARG, 1, "invalid argument")                                       \
	X(SFU_E_EMPTY, 2, "empty section")                            \
	X(SFU_E_TRUNC_HDR, 3, "section shorter than its header")                  \
	X(SFU_E_MAGIC, 4, "bad magic")                                            \
	X(SFU_E_VERSION, 5, "unsupported SFrame version")                         \
	X(SFU_E_FLAGS, 6, "undefined flag bits set")                              \
	X(SFU_E_ABI, 7, "ABI unknown to this build, or not its byte order")         \
	X(SFU_E_FIXED_OFF, 8, "bad fixed FP/RA offset for the ABI")           \
	X(SFU_E_AUXHDR, 9, "auxiliary header past the section")              \
	X(SFU_E_FDE_BOUNDS, 10, "FDEs past the section")            \
	X(SFU_E_FRE_BOUNDS, 11, "FREs past the section")            \
	X(SFU_E_LAYOUT, 12, "FDEs and FREs overlap")                   \
	X(SFU_E_FRE_COUNT, 13, "FRE count does not add up")       \
	X(SFU_E_FDE_FREOFF, 14, "FDE points past the FREs")         \
	X(SFU_E_FRE_TYPE, 15, "bad FRE type in FDE info")                         \
	X(SFU_E_FDE_TYPE, 16, "unknown FDE type (FLEX with SFU_FLEX 0)")                                     \
	X(SFU_E_REP_SIZE, 17, "PC-mask FDE, zero repeat size")                \
	X(SFU_E_FRE_TRUNC, 18, "FRE past the FRE sub-section")               \
	X(SFU_E_WORD_SIZE, 19, "bad FRE data word size")                          \
	X(SFU_E_FRE_ORDER, 20, "FRE starts not increasing")                \
	X(SFU_E_FRE_WORDS, 21, "FRE words form no valid row")          \
	X(SFU_E_UNSORTED, 22, "FDEs flagged sorted, not sorted")               \
	X(SFU_E_OVERLAP, 23, "FDE ranges overlap")    \
	X(SFU_E_FRE_START, 24, "FRE past its function's end")         \
	X(SFU_E_NOINDEX, 25, "section cannot be indexed")                         \
	X(SFU_E_NOINFO, 26, "no unwind info for this PC")                         \
	X(SFU_E_READ, 27, "memory read refused")                                  \
	X(SFU_E_WRONG_WAY, 28, "stack went the wrong way")                        \
	X(SFU_E_STACK_BOUNDS, 29, "stack pointer outside the stack")              \
	X(SFU_E_ALIGN, 30, "misaligned stack or frame address")                   \
	X(SFU_E_DEPTH, 31, "depth limit reached")                                 \
	X(SFU_E_UNSAFE, 32, "rule needs registers unknown in this frame")         \
	X(SFU_E_FULL, 33, "output buffer full")                                   \
	X(SFU_END, 34, "outermost frame reached")                                 \
	X(SFU_END_USER, 35, "interrupted code ran at a lower privilege level")    \
	X(SFU_E_LINKED, 36, "unmerged sections (lld): pass SFU_OPT_START_PCREL") \
	X(SFU_E_CODE_RANGE, 37, "FDE off the code range or overlapping: SFU_OPT_START_*?") \
	X(SFU_E_FDE_WRAP, 38, "FDE range wraps past 2^64") \
	X(SFU_E_DESC, 39, "the description breaks a rule")                     \
	X(SFU_E_ZERO_RA, 40, "return address 0 inside the stack")                 \
	X(SFU_END_NEVER_RAN, 41, "zeroed trap frame at the stack's top: never ran") \
	X(SFU_E_NOT_CALL, 42, "return address after no call instruction")

enum sfu_error {
#define SFU__ENUM(name, value, text) name = value,
	SFU_ERRORS(SFU__ENUM)
#undef SFU__ENUM
	SFU_ERROR_COUNT
};

/* A walk that stopped with err is a whole trace: it ended where the end is
 * known (THE END OF A STACK, above).  Every other code is an incomplete
 * one, whatever frames it has. */
#define SFU_COMPLETE(err) ((err) == SFU_END || (err) == SFU_END_USER || (err) == SFU_END_NEVER_RAN)

/* ---- types ---------------------------------------------------------------- */

/* An index of one section, in caller memory (sfu_index_build). */
struct sfu_index;
/* The FDE layout of one SFrame version (the core's own). */
struct sfu__layout;

/* One SFrame section, validated at the header level.  Caller-owned; filled by
 * sfu_section_init.  All offsets are from the first byte of the section. */
typedef struct sfu_section {
	const uint8_t *data; /* the section bytes (not copied) */
	uint32_t size;       /* bytes in the section */
	uint64_t addr;       /* run-time address of data[0] */
	uint32_t fde_base;   /* offset of the FDE sub-section */
	uint32_t fre_base;   /* offset of the FRE sub-section */
	uint32_t fre_len;    /* its length */
	uint32_t num_fdes;
	uint32_t num_fres;
	uint8_t version;  /* 1, 2 or 3 */
	uint8_t flags;    /* SFU_F_* */
	uint8_t abi;      /* SFU_ABI_* */
	uint8_t big;      /* 1: big-endian section */
	int8_t fixed_fp;  /* sfh_cfa_fixed_fp_offset */
	int8_t fixed_ra;  /* sfh_cfa_fixed_ra_offset */
	uint8_t aux_len;  /* auxiliary header bytes skipped */
	uint8_t pcrel;    /* function starts are relative to their field */
	uint32_t end;     /* offset just past the FRE sub-section */
	const struct sfu__layout *layout; /* this version's FDE layout (the core's table) */
	const struct sfu_index *index; /* sfu_index_build's, or NULL */
} sfu_section;

/* Options of sfu_section_init_opt. */
/* Function start offsets are relative to the FDE field even though the
 * section does not say so (no SFRAME_F_FDE_FUNC_START_PCREL).  True of
 * sections that no linker merged: relocatable objects and the per-object
 * sections lld concatenates, from assemblers before binutils 2.45 (V1 and
 * early V2), whose start field carries a PC-relative relocation.  GNU ld's
 * merged output is section-relative, as the flag says. */
#define SFU_OPT_START_PCREL 0x1u
/* Function starts are relative to their own section, as its header says,
 * though the span holds several sections back to back: the caller knows
 * the linker wrote each section's starts for that section (no linker known
 * does; a span without PC-relative starts is otherwise refused, see
 * sfu_section_split).  Not with SFU_OPT_START_PCREL. */
#define SFU_OPT_START_SECREL 0x2u
#define SFU__OPTS (SFU_OPT_START_PCREL | SFU_OPT_START_SECREL)

/* A decoded function descriptor (V3: index and attribute together). */
typedef struct sfu_fde {
	uint64_t start;    /* run-time address of the function */
	uint32_t size;     /* bytes of code */
	uint32_t fre_off;  /* FRE sub-section offset of the first FRE (V3: after the attribute) */
	uint32_t num_fres;
	uint8_t info;     /* FDE info byte */
	uint8_t info2;    /* V3 info2, else 0 */
	uint8_t rep_size; /* V2/V3 repeat block size, else 0 */
	uint8_t fre_type; /* SFU_FRE_TYPE_ADDR1/2/4 */
	uint8_t pctype;   /* SFU_FDE_PCTYPE_INC/MASK */
	uint8_t type;     /* SFU_FDE_TYPE_DEFAULT/FLEX (V1/V2: DEFAULT) */
	uint8_t signal;   /* V3 signal frame */
	uint8_t pauth_key;
} sfu_fde;

/* A decoded frame row entry.  The data words stay in the section (their
 * bounds are checked by sfu_fre_get); sfu_fre_word reads one. */
typedef struct sfu_fre {
	uint32_t start;  /* PC offset from the function start */
	uint32_t next;   /* FRE sub-section offset of the next FRE */
	uint32_t words;  /* section offset of the first data word */
	uint8_t info;    /* FRE info byte */
	uint8_t count;   /* data words */
	uint8_t wsize;   /* bytes per data word: 1, 2 or 4 */
} sfu_fre;

/* How one quantity (CFA, RA, FP) of the caller is recovered. */
enum sfu_rule_kind {
	SFU_RULE_SAME = 0,  /* not saved: the register still holds it */
	SFU_RULE_UNDEF,     /* RA undefined: outermost frame */
	SFU_RULE_OFF,       /* value = base + off */
	SFU_RULE_DEREF      /* value = *(base + off) */
};
/* Bases: SP, FP, the CFA, or a DWARF register number (0..SFU_REG_DWARF_MAX). */
#define SFU_REG_DWARF_MAX 0xfffcu
#define SFU_REG_CFA 0xfffdu
#define SFU_REG_FP 0xfffeu
#define SFU_REG_SP 0xffffu

typedef struct sfu_rule {
	int32_t off;
	uint16_t base; /* SFU_REG_* or a DWARF register number */
	uint8_t kind;  /* enum sfu_rule_kind */
} sfu_rule;

/* The unwind row for one PC in its general form: any recovery rule. */
typedef struct sfu_row {
	uint64_t func_start;
	uint32_t func_size;
	uint32_t fre_start; /* PC offset where this row begins */
	sfu_rule cfa, ra, fp;
	uint8_t abi;
	uint8_t mangled_ra; /* aarch64: RA is signed (PAC) */
	uint8_t signal;     /* V3: this function is a signal trampoline */
	uint8_t flex;       /* V3 flexible FDE */
	int16_t sp_from_cfa; /* caller SP = CFA + this (s390x: -160) */
} sfu_row;

/* Registers of one frame.  `ra` is the link register on aarch64 and s390x
 * (unused on amd64).  `dwarf`, if set, holds the other registers: register
 * i (DWARF numbering, i < ndwarf) is dwarf[i], or, with dwarf_map, the
 * 8-byte word at byte offset dwarf_map[i] - 1 from dwarf (0: not saved;
 * the SFU_AT encoding of crash/sfu_layout.h), which lets a trap frame in a
 * kernel's own layout serve as it is.  They
 * are consulted only where the full register set is known (the first frame,
 * or a frame restored from an exception trap frame).  Initializers that
 * stop after ra leave the rest NULL and 0. */
typedef struct sfu_regs {
	uint64_t pc, sp, fp, ra;
	const uint64_t *dwarf;
	uint32_t ndwarf;
	const uint16_t *dwarf_map;
} sfu_regs;

/* One stack, [lo, hi] (hi: the highest address an SP may have, its base). */
typedef struct sfu_stack {
	uint64_t lo, hi;
} sfu_stack;

/* What sfu_port.trap answers. */
enum sfu_trap_result {
	SFU_TRAP_NONE = 0,   /* pc is not a call site of the exception vector code */
	SFU_TRAP_KERNEL = 1, /* *out is the interrupted context; the walk goes on */
	SFU_TRAP_USER = 2,   /* *out is the interrupted context, which ran at a
	                      * lower privilege level (aarch64 EL0, x86_64 ring
	                      * 3): it is the last frame, the walk then ends
	                      * with SFU_END_USER; unless its SP lies on one of
	                      * the port's stacks (then the stack is the
	                      * kernel's, and the walk goes on as for
	                      * SFU_TRAP_KERNEL) */
	SFU_TRAP_UNREADABLE = 3, /* pc is a call site of the vector code, but its
	                          * trap frame cannot be read (a corrupt frame
	                          * pointer): the walk ends with SFU_E_READ */
	SFU_TRAP_EMPTY = 4,  /* pc is a call site, and its trap frame is there
	                      * but was never written (every word 0: a kernel
	                      * thread's pt_regs); out->sp: the frame's end.
	                      * SFU_END_NEVER_RAN where that lies at the top of
	                      * the stack, else SFU_E_ZERO_RA */
	SFU_TRAP_PC_ZERO = 5 /* pc is a call site, its frame says the
	                      * interrupted PC was 0, and no call through a null
	                      * pointer explains it (the instruction before the
	                      * return address it would have left is no
	                      * indirect call): a misread, SFU_E_ZERO_RA */
};

/* The port: how the core reaches memory and the target's quirks. */
typedef struct sfu_port {
	/* Read the 8-byte word at addr into *out; return 0, or nonzero to refuse
	 * (then the walk stops with SFU_E_READ).  Required. */
	int (*read)(void *ctx, uint64_t addr, uint64_t *out);
	/* aarch64 pointer authentication: return ra without signature bits.
	 * Called only for rows whose RA is mangled.  Optional. */
	uint64_t (*strip_ra)(void *ctx, uint64_t ra);
	/* Exception entry: if the return address pc (with the caller's stack
	 * pointer sp, i.e. the SP the call returns with) is where the exception
	 * vector code called its handler, fill *out with the interrupted
	 * context from the trap frame and return SFU_TRAP_KERNEL or
	 * SFU_TRAP_USER (SFU_TRAP_UNREADABLE if the frame cannot be read),
	 * else SFU_TRAP_NONE.  Called only for return addresses
	 * that have no SFrame info.  Optional. */
	int (*trap)(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out);
	void *ctx;
	/* The stacks.  Every frame's SP lies in one stack and stays in it
	 * (the direction check needs that); only a trap frame may lead to
	 * another stack (an exception stack, aarch64 SP_EL1 vs SP_EL0, x86_64
	 * IST, an interrupt stack).  The stacks are [stack_lo, stack_hi]
	 * (unless both are 0) and stacks[0..nstacks).  None at all: no bound.
	 * A walk stops with SFU_E_STACK_BOUNDS when an SP lies outside the
	 * stack its frame must be on. */
	uint64_t stack_lo, stack_hi;
	const sfu_stack *stacks;
	size_t nstacks;
	/* Where a whole trace ends (THE END OF A STACK, at the top of this
	 * file), besides SFrame's outermost marker.  entries[0..nentries):
	 * the first byte of each function a stack starts in (a thread
	 * trampoline, the kernel's C entry point): a frame in one of them is
	 * the outermost.  top: bytes below a stack's top (hi) in which the
	 * code that started it leaves its first frame's caller SP, where a
	 * return address of 0 (or a zeroed trap frame) ends the walk; 0:
	 * SFU_TOP_FRAME.  Optional: without entries and stacks, a return
	 * address of 0 stops the walk with SFU_E_ZERO_RA. */
	const uint64_t *entries;
	size_t nentries;
	uint32_t top;
} sfu_port;

/* How a frame was reached. */
enum sfu_how {
	SFU_HOW_START = 0, /* the registers the walk started from */
	SFU_HOW_SFRAME,    /* an SFrame row of the callee */
	SFU_HOW_FP,        /* frame-pointer fallback (SFU_FP_FALLBACK) */
	SFU_HOW_TRAP,      /* the port's trap frame: interrupted context */
	SFU_HOW_NULL_CALL  /* out of PC 0: a call through a null pointer */
};

/* sfu_frame.flags */
#define SFU_FRAME_EXACT 0x1u /* pc is the instruction itself (first frame,
                              * interrupted frame), not a return address */
#define SFU_FRAME_USER 0x2u  /* the frame ran at a lower privilege level
                              * (from a trap frame): the walk ends here */

typedef struct sfu_frame {
	uint64_t pc, sp, cfa;
	uint8_t how;   /* enum sfu_how */
	uint8_t flags; /* SFU_FRAME_* */
} sfu_frame;

/* The address to name a frame by (symbol, file:line): a return address
 * points after the call and may be the first byte of the next function
 * (after a call to a noreturn function), so it is looked up at pc - 1;
 * an exact pc is looked up as it is. */
static inline uint64_t sfu_frame_lookup_pc(const sfu_frame *f)
{
	return (f->flags & SFU_FRAME_EXACT) ? f->pc : f->pc - 1u;
}

/* The row a cache slot keeps (the core's own: sfu__packed_row). */
struct sfu__packed_row {
	uint32_t cfa;
	int16_t ra_off, fp_off;
};

#if SFU_CACHE
/* A lookup cache the caller owns (no heap): rows by lookup PC, 2-way set
 * associative, 16 bytes a slot.  Valid for one array of sections;
 * sfu_cache_init again when the sections change (a module loads). */
typedef struct sfu_cache_entry {
	uint64_t key; /* lookup PC + 1; 0 = empty */
	struct sfu__packed_row row;
} sfu_cache_entry;
typedef struct sfu_cache {
	sfu_cache_entry *slots;
	uint32_t mask; /* number of slots - 1 (a power of two, >= 2) */
	uint32_t hits, misses;
	uint32_t set_off; /* the hash's mask of set offsets in bytes (sfu_cache_init) */
} sfu_cache;
#endif

/* Caller-owned walk state. */
typedef struct sfu_cursor {
	const sfu_section *secs;
	size_t nsecs;
	const sfu_port *port;
	sfu_regs regs;
	uint64_t cfa;    /* CFA of the frame below (0 before the first step) */
	uint32_t depth;
	uint8_t how;     /* enum sfu_how of the current frame */
	uint8_t exact;   /* regs.pc is exact (first or interrupted frame), else a return address */
	uint8_t full;    /* regs.ra / regs.dwarf are valid for this frame */
	uint8_t abi;     /* ABI of the walk (first section's) */
	uint8_t fp_ok;   /* regs.fp is known (a refused FP read makes it unknown) */
	uint8_t user;    /* the frame ran at a lower privilege level: the last */
	uint8_t bounded; /* 1: every SP must lie in [stack_lo, stack_hi] */
	uint64_t stack_lo, stack_hi; /* the stack of the current frame */
#if SFU_CACHE
	sfu_cache *cache; /* NULL: none */
#endif
} sfu_cursor;

/* ---- API ------------------------------------------------------------------
 * In three tiers: what a firmware calls (sections set up at boot, checked,
 * and walked at a panic), what tools call (the decoding API and the error
 * texts), and what speed adds (the indexes and the row cache, each behind
 * its knob).  The parts of the implementation follow the same lines
 * (sfu_walk.h, sfu_validate.h; sfu_decode.h; sfu_fast.h). */

/* ---- what a firmware calls: the sections (at boot) ---- */

/* Check an SFrame section's header and sub-section bounds (O(1)) and fill
 * *sec.  `addr` is the run-time address of data[0].  Returns SFU_OK or the
 * section error; a zero-size section gives SFU_E_EMPTY. */
SFU_DEF int sfu_section_init(sfu_section *sec, const void *data, size_t size, uint64_t addr);

/* sfu_section_init with options (SFU_OPT_*). */
SFU_DEF int sfu_section_init_opt(sfu_section *sec, const void *data, size_t size, uint64_t addr, unsigned opts);

/* Split a span holding several SFrame sections back to back (lld
 * concatenates one per object; GNU ld may leave zero padding after its
 * merged section) into up to max sections.  Zero bytes between and after
 * sections are skipped.  *n gets the count.  Returns SFU_OK, the first
 * section's error, or SFU_E_FULL if the span holds more than max sections
 * (secs[0..max) are filled; sfu_section_count says how many it holds).
 * Never ignore SFU_E_FULL: the sections past max are not searched, and
 * walks end early in their code. */
SFU_DEF int sfu_section_split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                              uint64_t addr, unsigned opts);

/* A span of several sections of which one has no
 * SFRAME_F_FDE_FUNC_START_PCREL flag says nothing of how its function
 * starts are encoded: sfu_section_split and sfu_section_count refuse it
 * with SFU_E_LINKED unless opts say how it was linked: SFU_OPT_START_PCREL
 * for lld (starts relative to their field), SFU_OPT_START_SECREL for
 * starts relative to each section.  One section (GNU ld's merge,
 * sfu-gen's) needs neither. */

/* ---- what a firmware calls: the checks, once at boot ---- */

/* Check everything in the section: every FDE, that no FDE's range wraps
 * past the end of the address space, the sort order and that no two FDEs
 * overlap if the section claims it is sorted, every FRE, that no FRE of a
 * PC-increment FDE starts past its function's end, and the FRE total.
 * O(size).  Returns SFU_OK or the first error found; *bad_fde (may be NULL)
 * gets the index of the FDE. */
SFU_DEF int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde);

/* Check that every FDE of sec describes code inside [code_lo, code_hi)
 * (the image's text: first byte to one past the last), and that no FDE
 * starts inside the one before it in the table.  A wrong start encoding
 * (SFU_OPT_START_*) moves every start by its field's offset in the
 * section, so starts leave the code or neighbours collide: this catches it
 * where the span alone cannot (one section).  O(FDEs).  Returns SFU_OK,
 * SFU_E_CODE_RANGE, or the error of an FDE that cannot be decoded;
 * *bad_fde (may be NULL) gets the FDE's index. */
SFU_DEF int sfu_section_check_code(const sfu_section *sec, uint64_t code_lo, uint64_t code_hi, uint32_t *bad_fde);

/* sfu_section_split, then sfu_section_check_code on every section found:
 * the set-up to use when the code range is known (linker symbols around
 * .text, see linker/sframe.ld).  The first error of either; on any error
 * do not walk with secs. */
SFU_DEF int sfu_section_split_code(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                                   uint64_t addr, unsigned opts, uint64_t code_lo, uint64_t code_hi);

/* ---- what a firmware calls: the walk (at a panic) ---- */

/* Start a walk at regs (the first frame: exact PC, all registers valid). */
SFU_DEF int sfu_cursor_init(sfu_cursor *c, const sfu_section *secs, size_t nsecs,
                            const sfu_port *port, const sfu_regs *regs);

/* Step to the caller.  SFU_OK: c->regs is the caller's frame.  Otherwise the
 * reason the walk cannot go on (SFU_END at an outermost frame, SFU_END_USER
 * after a frame that ran in user mode, SFU_END_NEVER_RAN: the whole trace,
 * SFU_COMPLETE; anything else: it is not); c is left on the last good
 * frame. */
SFU_DEF int sfu_cursor_step(sfu_cursor *c);

/* Walk from regs: frames[0] is the starting frame.  Stores at most max
 * frames, *n gets how many.  Returns why the walk stopped: SFU_END (or
 * SFU_END_USER, into user mode; SFU_END_NEVER_RAN) for a complete trace
 * (SFU_COMPLETE), or an error code (SFU_E_FULL if frames ran out). */
SFU_DEF int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n);

/* ---- what tools call: decoding, one piece at a time ---- */

/* How many sections sfu_section_split would find in the span (*n), with
 * the same checks; for sizing the array. */
SFU_DEF int sfu_section_count(size_t *n, const void *data, size_t size, uint64_t addr, unsigned opts);

/* Decode FDE number idx (0 <= idx < num_fdes). */
SFU_DEF int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *fde);

/* Decode the FRE at FRE sub-section offset `off` of function `fde`; the next
 * FRE is at fre->next. */
SFU_DEF int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre);

/* Data word i (< fre->count) of an FRE decoded by sfu_fre_get, sign-extended
 * from its stored width; 0 for i out of range. */
SFU_DEF int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i);

/* Turn an FRE of fde into recovery rules (the general form). */
SFU_DEF int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row);

/* Find the FDE covering pc: binary search when the section is sorted,
 * linear otherwise (an FDE index narrows the search).  SFU_E_NOINFO if
 * none. */
SFU_DEF int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx);

/* Find the row for pc in its general form, in one section or in the first
 * of an array of sections that covers pc (a corrupt section is reported
 * unless a later one covers pc). */
SFU_DEF int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row);
SFU_DEF int sfu_find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row);

#if SFU_ERROR_STRINGS
/* Text for an error code ("?" for unknown codes): "outermost frame
 * reached". */
SFU_DEF const char *sfu_strerror(int err);

/* The name of an error code ("?" for unknown codes): "SFU_END". */
SFU_DEF const char *sfu_errname(int err);
#endif

/* ---- what speed adds (SFU_INDEX, SFU_CACHE; SFU_FAST, a knob only) ---- */

/* Index kinds (SFU_INDEX). */
#define SFU_INDEX_NONE 0 /* drop the section's index */
#define SFU_INDEX_FDES 1 /* per block of code, the FDEs that can cover it:
                          * the binary search takes a probe or two */
#define SFU_INDEX_ROWS 2 /* every row compiled into 8 bytes: a lookup is a
                          * bounded search and one load */

#if SFU_INDEX

/* Bytes of caller memory an index of this kind needs for sec (*bytes).
 * Checks everything sfu_index_build checks (the whole section: O(size)). */
SFU_DEF int sfu_index_size(const sfu_section *sec, unsigned kind, size_t *bytes);

/* Build an index of sec in mem[0..bytes) (8-byte aligned, at least what
 * sfu_index_size said) in O(size) and attach it to sec: every lookup in
 * sec then uses it and answers exactly as without.  The section must
 * validate (sfu_section_validate: its error is returned), its FDEs must be
 * in address order without overlap and its code span under 4 GiB
 * (SFU_E_NOINDEX otherwise).  Keep mem as long as sec.  SFU_INDEX_NONE
 * detaches the index.  On error sec keeps no index. */
SFU_DEF int sfu_index_build(sfu_section *sec, unsigned kind, void *mem, size_t bytes);
#endif

#if SFU_CACHE
/* Use slots[0..n) as a cache (n is rounded down to a power of two; at least
 * 2).  32 slots cover a typical panic trace; benchmarks use 1024. */
SFU_DEF int sfu_cache_init(sfu_cache *cache, sfu_cache_entry *slots, size_t n);

/* sfu_backtrace with a lookup cache (NULL: none). */
SFU_DEF int sfu_backtrace_cached(const sfu_section *secs, size_t nsecs, sfu_cache *cache,
                                 const sfu_port *port, const sfu_regs *regs, sfu_frame *frames,
                                 size_t max, size_t *n);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SFU_H */

/* ======================================================================== *
 * The core's own types: the FDE layouts and the compact row the lookup
 * returns and the step applies.  Not API: defined with the implementation,
 * and for the test harnesses that compare sections and rows across builds
 * without one (test/fuzz defines SFU__INTERNAL_TYPES).
 * ======================================================================== */
#if (defined(SFU_IMPLEMENTATION) || defined(SFU__INTERNAL_TYPES)) && !defined(SFU__INTERNAL_TYPES_DONE)
#define SFU__INTERNAL_TYPES_DONE

/* Where one SFrame version keeps the fields of a function descriptor (spec
 * 2.3; V1/V2 "SFrame FDE").  sfu_section_init picks the version's from the
 * core's table once; every FDE decode reads it instead of testing the
 * version. */
typedef struct sfu__layout {
	uint8_t fde_size;   /* bytes per FDE record: 17 (V1), 20 (V2), 16 (V3) */
	uint8_t start_size; /* function start field: 4 (int32) or 8 (int64) */
	uint8_t size_at;    /* record offset of the function size */
	uint8_t freoff_at;  /* record offset of the FRE offset */
	uint8_t attr_at;    /* record offset of num_fres .. rep_size; 0: they
	                     * sit in the FRE sub-section at the FRE offset,
	                     * ahead of the FREs (the V3 attribute) */
	uint8_t attr_size;  /* bytes of that attribute before the first FRE */
	uint8_t nfres_size; /* num_fres field: 4 or 2 bytes */
	uint8_t info_at;    /* attribute offset of the info byte */
	uint8_t info2_at;   /* of info2 (V3); 0: none */
	uint8_t rep_at;     /* of rep_size (V2, V3); 0: none */
	uint8_t rules;      /* SFU__LAYOUT_*: what else differs by version */
} sfu__layout;

#define SFU__LAYOUT_EMPTY_OUTERMOST 0x1u /* an FDE without FREs is outermost (V3 2.3.3.2) */
#define SFU__LAYOUT_MASK_BITS 0x2u       /* PC-mask FRE starts are bit masks (V1) */
#define SFU__LAYOUT_SIGNAL 0x4u          /* info bit 7 marks signal frames (V3) */
#define SFU__LAYOUT_S390X_REGS 0x8u      /* odd s390x RA/FP words are registers (V2) */

/* The compact row: what every DEFAULT FDE row says, in 16 bytes (spec 3.1):
 * CFA = SP or FP + u.off.cfa; the RA saved at CFA + u.off.ra, still in the
 * link register, or undefined (outermost frame); the FP saved at CFA +
 * u.off.fp or unchanged.  The lookup returns it and the walk applies it.
 * Rows that need more carry SFU__CROW_GENERAL and go through the general
 * rules of sfu_row instead: V2 s390x register rules (u.off, the RA / FP
 * words naming registers), V3 FLEX FDEs (SFU__CROW_FLEX: u.flex says
 * where the FRE's rules are, to be decoded by the step), and rows whose RA
 * or FP slot offset is not a multiple of 8 (u.off; the step reads a
 * compact row's slots without an alignment test: sfu__crow). */
typedef struct sfu__crow {
	union {
		struct {
			int32_t cfa, ra, fp;
		} off;
		struct {
			uint32_t sec;   /* index of its section among those searched */
			uint32_t words; /* section offset of the FRE's data words */
			uint32_t info;  /* the FRE's info byte */
		} flex;
	} u;
	uint32_t flags; /* SFU__CROW_* */
} sfu__compact_row;

#define SFU__CROW_CFA_FP 0x01u   /* CFA = FP + u.off.cfa (else SP + u.off.cfa) */
#define SFU__CROW_RA_SAVED 0x02u /* RA at CFA + u.off.ra (else in the link register) */
#define SFU__CROW_RA_UNDEF 0x04u /* RA undefined: the outermost frame */
#define SFU__CROW_ALIGN16 0x08u  /* the CFA is 16-byte aligned (aarch64), else 8 */
#define SFU__CROW_FP_SAVED 0x10u /* FP at CFA + u.off.fp (else unchanged) */
#define SFU__CROW_SIGNAL 0x20u   /* a signal trampoline: the caller's PC is exact */
#define SFU__CROW_SP_S390X 0x40u /* caller SP = CFA + SFU_S390X_SP_VAL_OFFSET, else CFA */
#define SFU__CROW_MANGLED 0x80u  /* the RA is signed (aarch64 PAC): strip it */
#define SFU__CROW_GENERAL 0x100u /* not compact: the step uses its general
                                  * rules (sfu__from_general) */
#endif

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_IMPLEMENTATION_DONE
#define SFU_IMPLEMENTATION_DONE

SFU_CODEGEN_BEGIN

/* The implementation, one translation unit in four parts by audience:
 *   sfu_walk.h      what a panic runs (and a reviewer certifies);
 *   sfu_decode.h    the decoding API the tools use;
 *   sfu_validate.h  the checks made once, at boot;
 *   sfu_fast.h      the speed machinery, compiled only when asked for. */
#include "sfu_walk.h"
#include "sfu_decode.h"
#include "sfu_validate.h"
#include "sfu_fast.h"

SFU_CODEGEN_END
#endif /* SFU_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
