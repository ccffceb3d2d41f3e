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
 *       sfu_section secs[16];
 *       size_t nsecs;
 *       sfu_port port = { my_read, NULL, NULL, NULL, stack_lo, stack_hi };
 *       sfu_regs regs = { pc, sp, fp, lr };
 *       sfu_frame frames[32];
 *       size_t n;
 *       if (sfu_section_split(secs, 16, &nsecs, __sframe_start,
 *                             (size_t)(__sframe_end - __sframe_start),
 *                             (uint64_t)(uintptr_t)__sframe_start, 0) != SFU_OK)
 *               ...;  // SFU_E_FULL: more sections than room, never ignore
 *       int why = sfu_backtrace(secs, nsecs, &port, &regs, frames, 32, &n);
 *       // frames[0..n) are the PCs; why says why the walk stopped.
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
 *   bytes.
 *
 * CONFIGURATION (define before including; 0/1 knobs tested with #if)
 *   SFU_V1, SFU_V2, SFU_V3   read SFrame version 1/2/3        (default 1 each)
 *   SFU_LITTLE, SFU_BIG      read little/big-endian sections   (default 1 each)
 *   SFU_AMD64, SFU_AARCH64, SFU_S390X
 *                            ABIs read                          (default 1 each)
 *   SFU_FLEX                 V3 flexible FDEs (DRAP, registers)  (default 1)
 *   SFU_FP_FALLBACK          frame-pointer walk where no SFrame info (default 0)
 *   SFU_DEPTH_CAP            hard cap on frames in one walk     (default 256)
 *   SFU_ERROR_STRINGS        provide sfu_strerror()            (default 0)
 *   SFU_CACHE                caller-provided row cache API     (default 0)
 *   SFU_INDEX                caller-memory section indexes     (default 0)
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
	X(SFU_E_EMPTY, 2, "empty section (zero size)")                            \
	X(SFU_E_TRUNC_HDR, 3, "section shorter than its header")                  \
	X(SFU_E_MAGIC, 4, "bad magic")                                            \
	X(SFU_E_VERSION, 5, "unsupported SFrame version")                         \
	X(SFU_E_FLAGS, 6, "undefined flag bits set")                              \
	X(SFU_E_ABI, 7, "unknown ABI, or ABI contradicts the byte order")         \
	X(SFU_E_FIXED_OFF, 8, "fixed FP/RA offset invalid for the ABI")           \
	X(SFU_E_AUXHDR, 9, "auxiliary header runs past the section")              \
	X(SFU_E_FDE_BOUNDS, 10, "FDE sub-section outside the section")            \
	X(SFU_E_FRE_BOUNDS, 11, "FRE sub-section outside the section")            \
	X(SFU_E_LAYOUT, 12, "FDE and FRE sub-sections overlap")                   \
	X(SFU_E_FRE_COUNT, 13, "FRE count does not fit or does not add up")       \
	X(SFU_E_FDE_FREOFF, 14, "FDE points outside the FRE sub-section")         \
	X(SFU_E_FRE_TYPE, 15, "bad FRE type in FDE info")                         \
	X(SFU_E_FDE_TYPE, 16, "bad FDE type")                                     \
	X(SFU_E_REP_SIZE, 17, "PC-mask FDE with zero repeat size")                \
	X(SFU_E_FRE_TRUNC, 18, "FRE runs past the FRE sub-section")               \
	X(SFU_E_WORD_SIZE, 19, "bad FRE data word size")                          \
	X(SFU_E_FRE_ORDER, 20, "FRE start offsets not increasing")                \
	X(SFU_E_FRE_WORDS, 21, "FRE data words do not form a valid row")          \
	X(SFU_E_UNSORTED, 22, "FDEs flagged sorted are not sorted")               \
	X(SFU_E_OVERLAP, 23, "FDE address ranges overlap in a sorted section")    \
	X(SFU_E_FRE_START, 24, "FRE starts past the end of its function")         \
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
	X(SFU_E_LINKED, 36, "unmerged sections, starts not flagged PC-relative: pass SFU_OPT_START_PCREL (lld)") \
	X(SFU_E_CODE_RANGE, 37, "FDE outside the code range or overlapping: wrong SFU_OPT_START_*?") \
	X(SFU_E_FDE_WRAP, 38, "FDE address range wraps past the end of the address space") \
	X(SFU_E_DESC, 39, "the description breaks a rule")

enum sfu_error {
#define SFU__ENUM(name, value, text) name = value,
	SFU_ERRORS(SFU__ENUM)
#undef SFU__ENUM
	SFU_ERROR_COUNT
};

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
	                      * with SFU_END_USER */
	SFU_TRAP_UNREADABLE = 3 /* pc is a call site of the vector code, but its
	                         * trap frame cannot be read (a corrupt frame
	                         * pointer): the walk ends with SFU_E_READ */
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

/* ---- API ---------------------------------------------------------------- */

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

/* How many sections sfu_section_split would find in the span (*n), with
 * the same checks; for sizing the array. */
SFU_DEF int sfu_section_count(size_t *n, const void *data, size_t size, uint64_t addr, unsigned opts);

/* A span of several sections of which one has no
 * SFRAME_F_FDE_FUNC_START_PCREL flag says nothing of how its function
 * starts are encoded: both functions above refuse it with SFU_E_LINKED
 * unless opts say how it was linked: SFU_OPT_START_PCREL for lld (starts
 * relative to their field), SFU_OPT_START_SECREL for starts relative to
 * each section.  One section (GNU ld's merge, sfu-gen's) needs neither. */

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

/* Check everything in the section: every FDE, that no FDE's range wraps
 * past the end of the address space, the sort order and that no two FDEs
 * overlap if the section claims it is sorted, every FRE, that no FRE of a
 * PC-increment FDE starts past its function's end, and the FRE total.
 * O(size).  Returns SFU_OK or the first error found; *bad_fde (may be NULL)
 * gets the index of the FDE. */
SFU_DEF int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde);

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

/* Start a walk at regs (the first frame: exact PC, all registers valid). */
SFU_DEF int sfu_cursor_init(sfu_cursor *c, const sfu_section *secs, size_t nsecs,
                            const sfu_port *port, const sfu_regs *regs);

/* Step to the caller.  SFU_OK: c->regs is the caller's frame.  Otherwise the
 * reason the walk cannot go on (SFU_END at an outermost frame, SFU_END_USER
 * after a frame that ran in user mode); c is left on the last good frame. */
SFU_DEF int sfu_cursor_step(sfu_cursor *c);

/* Walk from regs: frames[0] is the starting frame.  Stores at most max
 * frames, *n gets how many.  Returns why the walk stopped: SFU_END (or
 * SFU_END_USER, into user mode) for a complete trace, or an error code
 * (SFU_E_FULL if frames ran out). */
SFU_DEF int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n);

#if SFU_CACHE
/* Use slots[0..n) as a cache (n is rounded down to a power of two; at least
 * 2).  32 slots cover a typical panic trace; benchmarks use 1024. */
SFU_DEF int sfu_cache_init(sfu_cache *cache, sfu_cache_entry *slots, size_t n);

/* sfu_backtrace with a lookup cache (NULL: none). */
SFU_DEF int sfu_backtrace_cached(const sfu_section *secs, size_t nsecs, sfu_cache *cache,
                                 const sfu_port *port, const sfu_regs *regs, sfu_frame *frames,
                                 size_t max, size_t *n);
#endif

#if SFU_ERROR_STRINGS
/* Text for an error code ("?" for unknown codes). */
SFU_DEF const char *sfu_strerror(int err);
/* The name of an error code ("SFU_END"; "?" for unknown codes). */
SFU_DEF const char *sfu_errname(int err);
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

/* ======================================================================== *
 * PART 1: the panic path
 *
 * The reader, the section header, FDEs, FREs, rows, the search, the step
 * per frame source and the walk, in that order: all a panic handler runs.
 * The speed machinery (SFU_INDEX, SFU_CACHE) is part 2, at the end; it
 * plugs in at "the speed part's hooks".
 * ======================================================================== */

/* ---- the one bounds-checked reader ---------------------------------------
 * Every section byte is read by the loads below, and only after the range
 * was checked against the end of the sub-section being read (never past the
 * section) with arithmetic that cannot overflow: sfu__in is that check.
 * Bytes are assembled in the section's byte order; compilers turn each
 * load into one (unaligned-safe) load instruction, byte-swapped for a
 * foreign order.  No casts over the buffer, so no alignment traps. */

/* The loads and the step's helpers are a few instructions each: inline
 * them.  (Letting -Os decide costs stack: a frame per helper.) */
#if defined(__GNUC__) || defined(__clang__)
#define SFU__INLINE static inline __attribute__((always_inline))
#define SFU__NOINLINE __attribute__((noinline))
#define SFU__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SFU__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SFU__INLINE static inline
#define SFU__NOINLINE
#define SFU__UNLIKELY(x) (x)
#define SFU__LIKELY(x) (x)
#endif

/* ---- the two code shapes ---------------------------------------------------
 * The compiler's __OPTIMIZE_SIZE__ (-Os, -Oz) picks one of two shapes:
 * small (a piece several callers share is called: one copy) or fast (it is
 * copied into each caller and specialised there).  These are all the places
 * the shapes differ.  Each stays because it pays; the figures (measured at
 * 26d6afb) are what putting the other shape's form in its place costs:
 * make size (gcc 12 -Os; .text smallest and full config, aarch64/x86_64;
 * worst-case stack) and make bench (gcc -O2, x86_64, V3, depth 64;
 * instructions per frame: the cold walk, the walk with the FDE index).
 *   SFU__HOT         sfu__fde_decode, sfu__crow and the walk's sfu__step:
 *                    one out-of-line copy at -Os, inlined at -O2.  Inlined
 *                    at -Os: full +1696/+2012 B, stack +32/+40 B (smallest
 *                    -176/-132 B); called at -O2: cold +183, FDE index +157.
 *   SFU__LOAD        sfu__ld16b/32b/64b: called at -Os, inlined at -O2 (with
 *                    strict alignment, SFU_SAFE_CODEGEN on aarch64, a 4-byte
 *                    field is 4 loads and 3 shifts).  Inlined at -Os: full
 *                    +288/+19 B, smallest +80/-196 B; called at -O2: cold
 *                    +570.
 *   sfu__ldnb        a 1-, 2- or 4-byte field: a byte loop at -Os, one load
 *                    at -O2.  One load at -Os: smallest +60/+57 B, full
 *                    +240/+207 B (stack -16/-8 B); the loop at -O2: cold
 *                    +199, FDE index +231.
 *   SFU__SPECIALIZE  the search: at -O2 a copy per layout and byte order
 *                    (sfu__section_row), kind of start (sfu__sorted_fde) and
 *                    FRE start size (sfu__search_fre), constants in each; at
 *                    -Os one copy that reads them (sfu__search).  The copies
 *                    at -Os: full +8116/+8907 B, smallest +220/+438 B; one
 *                    copy at -O2: cold +235, FDE index +134.
 *   sfu__lookup      (and sfu__row_clear; the walk, the speed part's code,
 *                    not measured here): at -O2 the lookups fill a
 *                    temporary row, so that the step's stays in registers;
 *                    at -Os the step's own.
 *   sfu__from_general  the step's row: by value at -O2, by address at -Os
 *                    (measured at 8852a8f).  By value at -Os: worst-case
 *                    stack of the walk +16/+0 B, of the dump path +16/+16
 *                    B; by address at -O2: row index +4.1, cache +3.0 (with
 *                    an inlined read +6.8, +5.9).
 *   sfu__ld64b       a byte loop at -Os (calls nothing: no frame on the
 *                    search's path), two 4-byte loads at -O2.  The two loads
 *                    at -Os: worst-case stack of the smallest config +16/+8
 *                    B, of the indexed one +16/+8 B (smallest .text -4/+30
 *                    B); the loop at -O2 is not measured (it is the -Os
 *                    form: a byte at a time).
 *   sfu__from_row    at -O2 the common compact row (RA saved, not the
 *                    outermost frame, not s390x, not mangled: one test) is
 *                    stepped by a copy of sfu__unwind with those flags
 *                    known, every other row by a second copy; at -Os one
 *                    copy tests each flag (measured at the end of issue
 *                    22).  The two copies at -Os: smallest +296/+329 B,
 *                    full +296/+326 B (at -O2 they cost the whole API
 *                    +652/+741 B); one copy at -O2: cold +14, FDE index
 *                    +13, row index +14 (+11 with an inlined read), cache
 *                    +9 (+10).
 *   sfu__walk        at -O2 the first frame's record is before the loop,
 *                    which starts at the step (measured at the end of
 *                    issue 22's speed work); at -Os the loop starts at its
 *                    one record.  The -Os loop at -O2: cold +4.9, cache
 *                    +7.9, FDE index +1.9; the -O2 form at -Os: .text of
 *                    the backtrace path +36/+51 B. */
#ifdef __OPTIMIZE_SIZE__
#define SFU__HOT static SFU__NOINLINE
#define SFU__LOAD static SFU__NOINLINE
#define SFU__SPECIALIZE 0
#else
#define SFU__HOT SFU__INLINE
#define SFU__LOAD SFU__INLINE
#define SFU__SPECIALIZE 1
#endif

/* Public functions are never inlined into their callers: a caller built
 * with other flags (FP/SIMD on, unaligned access allowed) would compile
 * the inlined body with them.  Internally the core calls the sfu__ forms. */
#ifdef SFU_STATIC
#define SFU__FN SFU_DEF SFU__NOINLINE
#else
#define SFU__FN SFU__NOINLINE
#endif

SFU__INLINE bool sfu__in(uint32_t end, uint32_t off, uint32_t n)
{
	return off <= end && n <= end - off;
}

/* Byte order of a section: folded to a constant when one order is off. */
#if SFU_LITTLE && SFU_BIG
#define SFU__BIG(s) ((s)->big)
#elif SFU_BIG
#define SFU__BIG(s) 1
#else
#define SFU__BIG(s) 0
#endif

/* ABI tests, folded when ABIs are compiled out. */
#define SFU__AMD64(abi) (SFU_AMD64 && (abi) == SFU_ABI_AMD64_LE)
#define SFU__AARCH64(abi) (SFU_AARCH64 && ((abi) == SFU_ABI_AARCH64_LE || (abi) == SFU_ABI_AARCH64_BE))
#define SFU__S390X(abi) (SFU_S390X && (abi) == SFU_ABI_S390X_BE)

/* The general rules are needed for FLEX FDEs and s390x register rules, and
 * as the reference when compact rows are off; without them every row is
 * compact and their code is left out. */
#define SFU__GENERAL_STEP (SFU_FLEX || SFU_S390X || !SFU_COMPACT)

/* Loads in a byte order given as a parameter: folded where it is a
 * constant (the lookup compiled once per order, a build with one order);
 * called or inlined as the shape says (SFU__LOAD). */

SFU__LOAD uint32_t sfu__ld16b(const uint8_t *d, uint32_t off, bool big)
{
	const uint8_t *p = d + off;
	return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

SFU__LOAD uint32_t sfu__ld32b(const uint8_t *d, uint32_t off, bool big)
{
	const uint8_t *p = d + off;
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

SFU__LOAD uint64_t sfu__ld64b(const uint8_t *d, uint32_t off, bool big)
{
	const uint8_t *p = d + off;
#ifdef __OPTIMIZE_SIZE__
	uint64_t v = 0; /* a loop that calls nothing */
	unsigned i;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[big ? 7u - i : i] << (8u * i);
	return v;
#else
	uint64_t a = sfu__ld32b(p, 0, big), b = sfu__ld32b(p, 4, big); /* (p + 4: one 8-byte load) */
	return big ? a << 32 | b : b << 32 | a;
#endif
}

/* A 1-, 2- or 4-byte unsigned field (two shapes: see above). */
#ifdef __OPTIMIZE_SIZE__
static uint32_t sfu__ldnb(const uint8_t *d, uint32_t off, uint32_t n, bool big)
{
	uint32_t v = 0, i;
	for (i = 0; i < n; i++)
		v |= (uint32_t)d[off + (big ? n - 1u - i : i)] << (8u * i);
	return v;
}
#else
SFU__INLINE uint32_t sfu__ldnb(const uint8_t *d, uint32_t off, uint32_t n, bool big)
{
	return n == 1 ? d[off] : n == 2 ? sfu__ld16b(d, off, big) : sfu__ld32b(d, off, big);
}
#endif

/* The same in the section's own order. */
SFU__INLINE uint32_t sfu__ld32(const sfu_section *s, uint32_t off)
{
	return sfu__ld32b(s->data, off, SFU__BIG(s));
}

SFU__INLINE uint32_t sfu__ldn(const sfu_section *s, uint32_t off, uint32_t n)
{
	return sfu__ldnb(s->data, off, n, SFU__BIG(s));
}

/* Two's-complement reinterpretation without implementation-defined
 * conversions (compilers emit a plain move). */
SFU__INLINE int32_t sfu__s32(uint32_t v)
{
	return v > (uint32_t)INT32_MAX ? -(int32_t)(~v) - 1 : (int32_t)v;
}

/* Sign-extend v, an n-byte (1, 2 or 4) value, from its top bit. */
SFU__INLINE int32_t sfu__sext(uint32_t v, uint32_t n)
{
	uint32_t m = n >= 4 ? 0u : 1u << (8u * n - 1u);
	return sfu__s32((v ^ m) - m);
}

/* A data word of ws (1, 2, 4) bytes at section offset off, sign-extended. */
SFU__INLINE int32_t sfu__wordb(const uint8_t *d, uint32_t off, uint32_t ws, bool big)
{
	return sfu__sext(sfu__ldnb(d, off, ws, big), ws);
}

/* ---- versions: the FDE layouts (V1 "SFrame FDE", V2 2.3, V3 2.3.1-2.3.2) -- */

static const sfu__layout sfu__layouts[3] = {
	/* V1: 17-byte records, everything in the record, PC-mask starts are
	 * bit masks. */
	{ SFU_V1_FDE_SIZE, 4, SFU_V12_FDE_SIZE_F, SFU_V12_FDE_FREOFF, SFU_V12_FDE_NFRES, 0, 4,
	  SFU_V12_FDE_INFO - SFU_V12_FDE_NFRES, 0, 0, SFU__LAYOUT_MASK_BITS },
	/* V2: 20-byte records adding the repeat size; s390x register rules. */
	{ SFU_V2_FDE_SIZE, 4, SFU_V12_FDE_SIZE_F, SFU_V12_FDE_FREOFF, SFU_V12_FDE_NFRES, 0, 4,
	  SFU_V12_FDE_INFO - SFU_V12_FDE_NFRES, 0, SFU_V2_FDE_REPSIZE - SFU_V12_FDE_NFRES, SFU__LAYOUT_S390X_REGS },
	/* V3: 16-byte index records with a 64-bit start; the attribute heads
	 * the function's FREs; signal bit; an FDE without FREs is outermost. */
	{ SFU_V3_FDE_SIZE, 8, SFU_V3_FDE_SIZE_F, SFU_V3_FDE_FREOFF, 0, SFU_V3_ATTR_SIZE, 2, SFU_V3_ATTR_INFO,
	  SFU_V3_ATTR_INFO2, SFU_V3_ATTR_REPSIZE, SFU__LAYOUT_EMPTY_OUTERMOST | SFU__LAYOUT_SIGNAL },
};

/* The layout of section s.  With one version compiled in it is a constant
 * table entry, whose fields the compiler folds: the code for the other
 * layouts goes away.  The lookup is also compiled for each constant layout
 * where speed is asked for (sfu__section_row). */
#if SFU_V1 + SFU_V2 + SFU_V3 == 1
#define SFU__LAY(s) ((void)(s), &sfu__layouts[SFU_V1 ? 0 : SFU_V2 ? 1 : 2])
#else
#define SFU__LAY(s) ((s)->layout)
#endif

static bool sfu__version_ok(unsigned v)
{
	return (SFU_V1 && v == SFU_VERSION_1) || (SFU_V2 && v == SFU_VERSION_2) ||
	       (SFU_V3 && v == SFU_VERSION_3);
}

/* ---- section header (2.1, 2.2) ------------------------------------------- */

SFU__FN int sfu_section_init(sfu_section *sec, const void *data, size_t size, uint64_t addr)
{
	return sfu_section_init_opt(sec, data, size, addr, 0);
}

/* The magic, which decides the byte order (2.1.1), and the version
 * (2.1.2), which picks the layout FDEs and FREs are read through. */
static int sfu__hdr_version(sfu_section *s)
{
	const uint8_t *p = s->data;

	if (SFU_LITTLE && sfu__ld16b(p, 0, false) == SFU_MAGIC)
		s->big = 0;
	else if (SFU_BIG && sfu__ld16b(p, 0, true) == SFU_MAGIC)
		s->big = 1;
	else
		return SFU_E_MAGIC;
	s->version = p[SFU_HDR_VERSION];
	if (!sfu__version_ok(s->version))
		return SFU_E_VERSION;
	if (s->size < SFU_HDR_SIZE)
		return SFU_E_TRUNC_HDR;
	/* Elsewhere only the flags check below and the lookup's dispatch (to
	 * a copy of the search made for one layout) test the version. */
	s->layout = &sfu__layouts[s->version - 1u];
	return SFU_OK;
}

/* The flags (2.1.3), the ABI (2.2.1) and the fixed FP and RA offsets
 * (2.2): known, compiled in, and what the ABI allows. */
static int sfu__hdr_abi(sfu_section *s)
{
	const uint8_t *p = s->data;
	/* FUNC_START_PCREL came with V2 (erratum 1); FRAME_POINTER is V1-V2
	 * only, but it costs nothing to tolerate it in V3 and it changes
	 * nothing we compute. */
	unsigned valid_flags = SFU_F_FDE_SORTED | SFU_F_FRAME_POINTER |
	                       (s->version == SFU_VERSION_1 ? 0u : SFU_F_FDE_FUNC_START_PCREL);

	s->flags = p[SFU_HDR_FLAGS];
	if (s->flags & ~valid_flags)
		return SFU_E_FLAGS;
	s->abi = p[SFU_HDR_ABI];
	/* Known, compiled in, and in the byte order the ABI implies. */
	if (!SFU__AMD64(s->abi) && !SFU__AARCH64(s->abi) && !SFU__S390X(s->abi))
		return SFU_E_ABI;
	if (s->big != (s->abi == SFU_ABI_AARCH64_BE || s->abi == SFU_ABI_S390X_BE))
		return SFU_E_ABI;
	s->fixed_fp = (int8_t)sfu__sext(p[SFU_HDR_FIXED_FP], 1);
	s->fixed_ra = (int8_t)sfu__sext(p[SFU_HDR_FIXED_RA], 1);
	/* amd64 keeps the RA at a fixed CFA offset, which must be on the stack
	 * below the CFA and word aligned; the others track it per FRE. */
	if (SFU__AMD64(s->abi)) {
		if (s->fixed_ra >= 0 || (s->fixed_ra & 7) != 0)
			return SFU_E_FIXED_OFF;
	} else if (s->fixed_ra != 0) {
		return SFU_E_FIXED_OFF;
	}
	if (s->fixed_fp != 0)
		return SFU_E_FIXED_OFF; /* no supported ABI fixes the FP slot */
	return SFU_OK;
}

/* The auxiliary header and the two sub-sections (2.2): inside the
 * section, not overlapping, and large enough for the counts; then the
 * section's bounds and counts are filled in. */
static int sfu__hdr_bounds(sfu_section *s, unsigned opts)
{
	const sfu__layout *ly = s->layout;
	uint64_t fdeoff, freoff, hdr_end, fde_end, fre_end, nfdes, nfres, frelen, size = s->size;

	s->aux_len = s->data[SFU_HDR_AUXLEN];
	hdr_end = (uint64_t)SFU_HDR_SIZE + s->aux_len;
	if (hdr_end > size)
		return SFU_E_AUXHDR;
	nfdes = sfu__ld32(s, SFU_HDR_NUM_FDES);
	nfres = sfu__ld32(s, SFU_HDR_NUM_FRES);
	frelen = sfu__ld32(s, SFU_HDR_FRE_LEN);
	fdeoff = hdr_end + sfu__ld32(s, SFU_HDR_FDEOFF);
	freoff = hdr_end + sfu__ld32(s, SFU_HDR_FREOFF);
	/* 64-bit sums of 32-bit values: no overflow. */
	fde_end = fdeoff + nfdes * ly->fde_size;
	if (fdeoff > size || fde_end > size)
		return SFU_E_FDE_BOUNDS;
	fre_end = freoff + frelen;
	if (freoff > size || fre_end > size)
		return SFU_E_FRE_BOUNDS;
	/* The sub-sections tile the section (2.2): they must not overlap. */
	if (nfdes && frelen && fdeoff < fre_end && freoff < fde_end)
		return SFU_E_LAYOUT;
	/* Each FRE takes at least 2 bytes (start offset + info), each FDE's
	 * attribute (V3) its own bytes there. */
	if (nfres * 2u + nfdes * ly->attr_size > frelen)
		return SFU_E_FRE_COUNT;
	s->num_fdes = (uint32_t)nfdes;
	s->num_fres = (uint32_t)nfres;
	s->fre_len = (uint32_t)frelen;
	s->fde_base = (uint32_t)fdeoff;
	s->fre_base = (uint32_t)freoff;
	s->end = (uint32_t)(fre_end > fde_end ? fre_end : fde_end);
	s->pcrel = (uint8_t)((s->flags & SFU_F_FDE_FUNC_START_PCREL) || (opts & SFU_OPT_START_PCREL));
	return SFU_OK;
}

SFU__FN int sfu_section_init_opt(sfu_section *sec, const void *data, size_t size, uint64_t addr, unsigned opts)
{
	sfu_section *s = sec; /* filled in place: no struct copy (memcpy) */
	int err;

	if (!sec || (!data && size))
		return SFU_E_ARG; /* on any error *sec is left partly filled: do not use it */
	if (size == 0)
		return SFU_E_EMPTY;
	if (size > 0xffffffffu)
		return SFU_E_ARG; /* the format's offsets are 32-bit */
	if (size < 4)
		return SFU_E_TRUNC_HDR;
	s->data = (const uint8_t *)data;
	s->size = (uint32_t)size;
	s->addr = addr;
	s->index = NULL;
	if ((opts & ~SFU__OPTS) || (opts & SFU__OPTS) == SFU__OPTS)
		return SFU_E_ARG; /* unknown, or both start encodings */
	err = sfu__hdr_version(s);
	if (!err)
		err = sfu__hdr_abi(s);
	if (!err)
		err = sfu__hdr_bounds(s, opts);
	return err;
}

/* ---- how the sections were linked ------------------------------------------
 * The function start field is relative to the section unless the header
 * has SFRAME_F_FDE_FUNC_START_PCREL, then relative to the field itself
 * (V2 erratum 1, V3 1.3, 2.1.3 and 2.3.1; V1 "SFrame FDE" and V2 2.3 say
 * only "virtual memory address", and V1 has no such flag).  Assemblers
 * before binutils 2.45 wrote V1 and V2 objects without the flag whose
 * start fields carry a PC-relative relocation.  GNU ld merges all of an
 * image's sections into one (linker/sframe.ld) and rewrites every start
 * section-relative, as the missing flag says.  lld does not know SFrame:
 * it concatenates the objects' sections and applies each relocation, so
 * those starts are relative to their field, whatever the header says.
 * Read as section-relative they are all wrong by their field's offset, and
 * a walk then follows a neighbour's rules: a trace that can look complete.
 * Several sections in one span, one of them without the flag, can only
 * come from a linker that did not merge, so the encoding is not what the
 * header says (or not known): refused unless the caller says
 * (SFU_OPT_START_PCREL or _SECREL).  The same holds for V3, which keeps the
 * flag (2.1.3): every V3 producer sets it, so lld's V3 output passes. */
/* Section k (0: the first) of a span: SFU_E_LINKED once a span of two or
 * more holds one without the flag and opts name no encoding. */
SFU__INLINE int sfu__split_linked(const sfu_section *s, size_t k, unsigned opts, bool *flagless)
{
	if (!(s->flags & SFU_F_FDE_FUNC_START_PCREL))
		*flagless = true;
	return k > 0 && *flagless && !(opts & SFU__OPTS) ? SFU_E_LINKED : SFU_OK;
}

/* The check the Linux kernel's SFrame reader makes of every function start
 * against [text_start, text_end), and the ends too: a function that starts
 * in the code but runs past it is as wrong.  Decoding only reads the
 * table; the FDEs are visited in table order, so "starts inside the one
 * before" needs no sorting: two functions never share code (an identical
 * duplicate, as lld's --icf leaves, describes the same code and passes). */
SFU__FN int sfu_section_check_code(const sfu_section *sec, uint64_t code_lo, uint64_t code_hi, uint32_t *bad_fde)
{
	uint64_t prev_lo = 0, prev_hi = 0;
	uint32_t i;
	sfu_fde f;
	int err;

	if (!sec || code_lo >= code_hi)
		return SFU_E_ARG;
	for (i = 0; i < sec->num_fdes; i++) {
		if (bad_fde)
			*bad_fde = i;
		err = sfu_fde_get(sec, i, &f);
		if (err)
			return err;
		/* start in [lo, hi), end (start + size) at most hi: no overflow. */
		if (f.start < code_lo || f.start >= code_hi || f.size > code_hi - f.start)
			return SFU_E_CODE_RANGE;
		if (i > 0 && f.start >= prev_lo && f.start < prev_hi &&
		    !(f.start == prev_lo && f.start + f.size == prev_hi))
			return SFU_E_CODE_RANGE;
		prev_lo = f.start;
		prev_hi = f.start + f.size;
	}
	return SFU_OK;
}

SFU__FN int sfu_section_split_code(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                                   uint64_t addr, unsigned opts, uint64_t code_lo, uint64_t code_hi)
{
	size_t k;
	int err = sfu_section_split(secs, max, n, data, size, addr, opts);

	for (k = 0; err == SFU_OK && k < *n; k++)
		err = sfu_section_check_code(&secs[k], code_lo, code_hi, NULL);
	return err;
}

/* The span walk of sfu_section_split and sfu_section_count: with secs,
 * fills up to max sections; without, counts them (in *tmp, which
 * sfu_section_count holds: sfu_section_split's callers, a dump among
 * them, do not carry a section on their stack for nothing). */
static int sfu__split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size, uint64_t addr,
                      unsigned opts, sfu_section *tmp)
{
	const uint8_t *p = (const uint8_t *)data;
	size_t off = 0, k = 0;
	sfu_section *s;
	bool flagless = false;
	int err;

	*n = 0;
	for (;;) {
		/* Skip the zero padding between and after sections. */
		while (off < size && p[off] == 0)
			off++;
		if (off >= size)
			return k ? SFU_OK : SFU_E_EMPTY;
		if (secs && k == max)
			return SFU_E_FULL;
		s = secs ? &secs[k] : tmp;
		err = sfu_section_init_opt(s, p + off, size - off, addr + off, opts);
		if (!err)
			err = sfu__split_linked(s, k, opts, &flagless);
		if (err)
			return err;
		/* The section ends where its last sub-section ends; anything up
		 * to the end of the span may follow. */
		/* Every section is at least a header long: the loop advances. */
		SFU_ASSERT(s->end >= SFU_HDR_SIZE && s->end <= size - off);
		s->size = s->end;
		off += s->end;
		*n = ++k;
	}
}

SFU__FN int sfu_section_split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                              uint64_t addr, unsigned opts)
{
	if (!n || !secs || (!data && size))
		return SFU_E_ARG;
	return sfu__split(secs, max, n, data, size, addr, opts, NULL);
}

SFU__FN int sfu_section_count(size_t *n, const void *data, size_t size, uint64_t addr, unsigned opts)
{
	sfu_section tmp;
	if (!n || (!data && size))
		return SFU_E_ARG;
	return sfu__split(NULL, 0, n, data, size, addr, opts, &tmp);
}

/* ---- FDEs (2.3) ---------------------------------------------------------------- */

/* Section offset of FDE record idx (idx < num_fdes: bounded at init). */
SFU__INLINE uint32_t sfu__fde_rec(const sfu_section *s, const sfu__layout *L, uint32_t idx)
{
	return s->fde_base + idx * (uint32_t)L->fde_size;
}

/* Run-time address of a function from the start field of its record (the
 * first field in every version): from the section start, or (PCREL) from
 * the field itself (2.3.1; V2 erratum 1).  `pcrel` is the all-ones mask
 * when starts are PC-relative.  Address arithmetic wraps modulo 2^64 like
 * the target's. */
SFU__INLINE uint64_t sfu__start_at(const sfu_section *s, uint32_t rec, unsigned start_size, uint64_t pcrel, bool big)
{
	uint64_t raw = start_size == 8 ? sfu__ld64b(s->data, rec, big)
	                               : (uint64_t)(int64_t)sfu__s32(sfu__ld32b(s->data, rec, big));
	return s->addr + raw + (rec & pcrel);
}

SFU__INLINE uint64_t sfu__pcrel_mask(const sfu_section *s)
{
	return s->pcrel ? ~(uint64_t)0 : 0u;
}

SFU__HOT int sfu__fde_decode(const sfu_section *s, const sfu__layout *L, uint32_t idx, sfu_fde *f, bool big)
{
	uint32_t rec = sfu__fde_rec(s, L, idx), fo, at;

	fo = sfu__ld32b(s->data, rec + L->freoff_at, big);
	f->start = sfu__start_at(s, rec, L->start_size, sfu__pcrel_mask(s), big);
	f->size = sfu__ld32b(s->data, rec + L->size_at, big);
	/* The attribute (V3) lies at the FRE offset, inside the FRE
	 * sub-section; elsewhere the offset must stay inside it. */
	if (!sfu__in(s->fre_len, fo, L->attr_size))
		return SFU_E_FDE_FREOFF;
	at = L->attr_at ? rec + L->attr_at : s->fre_base + fo;
	f->num_fres = L->nfres_size == 2 ? sfu__ld16b(s->data, at, big) : sfu__ld32b(s->data, at, big);
	f->info = s->data[at + L->info_at];
	f->info2 = L->info2_at ? s->data[at + L->info2_at] : 0u;
	f->rep_size = L->rep_at ? s->data[at + L->rep_at] : 0u;
	f->fre_off = fo + L->attr_size;
	f->signal = (uint8_t)((L->rules & SFU__LAYOUT_SIGNAL) ? SFU_FDE_INFO_SIGNAL(f->info) : 0u);
	f->fre_type = (uint8_t)SFU_FDE_INFO_FRE_TYPE(f->info);
	f->pctype = (uint8_t)SFU_FDE_INFO_PCTYPE(f->info);
	f->pauth_key = (uint8_t)SFU_FDE_INFO_PAUTH_KEY(f->info);
	f->type = (uint8_t)SFU_FDE_INFO2_TYPE(f->info2);
	/* Unknown types, and FLEX when compiled out, are refused, never read
	 * as something else. */
	if (f->type > (SFU_FLEX ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT) || (f->info2 & 0xe0u))
		return SFU_E_FDE_TYPE;
	if (f->fre_type > SFU_FRE_TYPE_ADDR4)
		return SFU_E_FRE_TYPE;
	if (f->pctype == SFU_FDE_PCTYPE_MASK && L->rep_at && f->rep_size == 0)
		return SFU_E_REP_SIZE;
	/* Each FRE needs at least 2 bytes; a count that cannot fit is corrupt
	 * (fre_off <= fre_len was checked above). */
	if ((uint64_t)f->num_fres * 2u > (uint64_t)(s->fre_len - f->fre_off))
		return SFU_E_FRE_COUNT;
	return SFU_OK;
}

static int sfu__fde_get(const sfu_section *s, uint32_t idx, sfu_fde *f)
{
	return sfu__fde_decode(s, SFU__LAY(s), idx, f, SFU__BIG(s));
}

SFU__FN int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *f)
{
	if (!sec || !f || idx >= sec->num_fdes)
		return SFU_E_ARG;
	return sfu__fde_get(sec, idx, f);
}

/* ---- FREs (2.4) ---------------------------------------------------------------- */

SFU__INLINE uint32_t sfu__addr_bytes(unsigned fre_type)
{
	return fre_type == SFU_FRE_TYPE_ADDR1 ? 1u : fre_type == SFU_FRE_TYPE_ADDR2 ? 2u : 4u;
}

/* The one reader of an FRE header (2.4), in the three steps the search
 * (sfu__fre_scan) takes apart.  First the start offset (ab bytes) of the
 * FRE at section offset pos, once its header (start and info byte) is
 * known to lie in the FRE sub-section (pos is 64-bit: the scan adds FRE
 * sizes to it before this check; signed, so that the compiler may move
 * the sum to the loop-invariant side). */
SFU__INLINE int sfu__fre_start(const sfu_section *s, int64_t pos, uint32_t ab, bool big, uint32_t *start)
{
	if (pos + ab + 1 > (int64_t)s->fre_base + s->fre_len)
		return SFU_E_FRE_TRUNC;
	*start = sfu__ldnb(s->data, (uint32_t)pos, ab, big);
	return SFU_OK;
}

/* Then its info byte (2.4.1), a word size the format defines, and where
 * its data words are. */
SFU__INLINE int sfu__fre_info(const sfu_section *s, int64_t pos, uint32_t ab, sfu_fre *fre)
{
	uint32_t wc;

	fre->info = s->data[pos + ab];
	wc = SFU_FRE_INFO_WSIZE(fre->info);
	if (wc > SFU_FRE_WSIZE_4B)
		return SFU_E_WORD_SIZE;
	fre->wsize = (uint8_t)(1u << wc);
	fre->count = (uint8_t)SFU_FRE_INFO_COUNT(fre->info);
	fre->words = (uint32_t)pos + ab + 1u;
	return SFU_OK;
}

/* Last, its data words inside the FRE sub-section; where the next FRE
 * starts. */
SFU__INLINE int sfu__fre_in(const sfu_section *s, sfu_fre *fre)
{
	uint32_t len = (uint32_t)fre->count << SFU_FRE_INFO_WSIZE(fre->info);

	if (!sfu__in(s->fre_base + s->fre_len, fre->words, len))
		return SFU_E_FRE_TRUNC;
	fre->next = fre->words + len - s->fre_base;
	return SFU_OK;
}

/* The whole header of the FRE at section offset pos. */
SFU__INLINE int sfu__fre_read(const sfu_section *s, uint32_t pos, uint32_t ab, bool big, sfu_fre *fre)
{
	int err = sfu__fre_start(s, pos, ab, big, &fre->start);
	if (!err)
		err = sfu__fre_info(s, pos, ab, fre);
	return err ? err : sfu__fre_in(s, fre);
}

/* The FRE of a V3 FDE without FREs (2.3.2): no data words, the outermost
 * frame. */
SFU__INLINE void sfu__fre_none(sfu_fre *fre)
{
	fre->start = fre->next = fre->words = 0;
	fre->info = fre->count = 0;
	fre->wsize = 1;
}

static int sfu__fre_get(const sfu_section *s, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	if (off > s->fre_len)
		return SFU_E_FRE_TRUNC;
	return sfu__fre_read(s, s->fre_base + off, sfu__addr_bytes(fde->fre_type), SFU__BIG(s), fre);
}

SFU__FN int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	if (!sec || !fde || !fre)
		return SFU_E_ARG;
	return sfu__fre_get(sec, fde, off, fre);
}

SFU__INLINE int32_t sfu__fre_word(const sfu_section *s, const sfu_fre *fre, unsigned i)
{
	if (i >= fre->count)
		return 0;
	/* In bounds: sfu_fre_get checked words + count * wsize. */
	return sfu__wordb(s->data, fre->words + i * fre->wsize, fre->wsize, SFU__BIG(s));
}

SFU__FN int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i)
{
	if (!sec || !fre)
		return 0;
	return sfu__fre_word(sec, fre, i);
}

/* s390x stores the CFA offset scaled down and adjusted (3.1.3). */
static int sfu__s390x_cfa(int32_t w, int32_t *off)
{
	int64_t o = SFU_S390X_CFA_DECODE((int64_t)w);
	if (o < INT32_MIN || o > INT32_MAX)
		return SFU_E_FRE_WORDS;
	*off = (int32_t)o;
	return SFU_OK;
}

/* ---- rows (3.1, 3.2) -------------------------------------------------------- */

/* A compact row packed into 8 bytes, as the cache and the row index keep
 * it: the CFA offset (-2^23 .. 2^23 - 1, two's complement) in the top 24
 * bits of cfa over the SFU__CROW_* flags in the low 8, and the RA and FP
 * offsets (-2^15 .. 2^15 - 1).  Rows that do not fit are not packed (the
 * cache skips them, the row index sends the lookup to the section). */
typedef struct sfu__packed_row sfu__packed_row; /* (its fields: in the public part, for sfu_cache_entry) */

/* What a general row carries besides the SFU__CROW_* flags: a FLEX row
 * (u.flex: its section, data words and info byte), and V2 s390x RA / FP
 * words naming the register that holds the value. */
#define SFU__CROW_FLEX 0x200u
#define SFU__CROW_RA_REG 0x400u
#define SFU__CROW_FP_REG 0x800u

#if SFU_FLEX
static bool sfu__is_sp(unsigned abi, unsigned long r)
{
	return (SFU__AMD64(abi) && r == SFU_DWARF_AMD64_SP) || (SFU__AARCH64(abi) && r == SFU_DWARF_AARCH64_SP) ||
	       (SFU__S390X(abi) && r == SFU_DWARF_S390X_SP);
}

static bool sfu__is_fp(unsigned abi, unsigned long r)
{
	return (SFU__AMD64(abi) && r == SFU_DWARF_AMD64_FP) || (SFU__AARCH64(abi) && r == SFU_DWARF_AARCH64_FP) ||
	       (SFU__S390X(abi) && r == SFU_DWARF_S390X_FP);
}

/* One FLEX (control, offset) pair into a rule (3.2).  The control word
 * is unsigned: undo the sign extension of its width. */
static int sfu__flex_rule(unsigned abi, uint32_t ws, int32_t ctl_word, int32_t off, bool is_cfa, sfu_rule *r)
{
	uint32_t ctl = (uint32_t)ctl_word & (ws == 4 ? 0xffffffffu : ((1u << (8u * ws)) - 1u));
	unsigned long regnum = SFU_FLEX_REGNUM(ctl);
	r->off = off;
	r->kind = SFU_FLEX_DEREF_P(ctl) ? SFU_RULE_DEREF : SFU_RULE_OFF;
	if (SFU_FLEX_REG_P(ctl)) {
		if (sfu__is_sp(abi, regnum))
			r->base = SFU_REG_SP;
		else if (sfu__is_fp(abi, regnum))
			r->base = SFU_REG_FP;
		else if (regnum <= SFU_REG_DWARF_MAX)
			r->base = (uint16_t)regnum;
		else
			return SFU_E_FRE_WORDS;
	} else {
		if (is_cfa) /* the CFA cannot be defined by itself */
			return SFU_E_FRE_WORDS;
		r->base = SFU_REG_CFA;
	}
	return SFU_OK;
}

/* The rules of a FLEX FRE (3.2) whose info byte is `info` and whose data
 * words (in bounds) start at section offset `words`: (control, offset)
 * pairs for CFA, RA and FP; a lone 0 control word is padding for an entity
 * with no rule, which keeps its default (RA: amd64 at the fixed offset,
 * else in the link register; FP unchanged). */
static int sfu__flex_rules(const sfu_section *s, uint32_t words, unsigned info, sfu_rule *cfa, sfu_rule *ra,
                           sfu_rule *fp)
{
	unsigned abi = s->abi, n = SFU_FRE_INFO_COUNT(info), ws = 1u << SFU_FRE_INFO_WSIZE(info), i = 2, e;
	sfu_rule *rule[2], t;
	int err;
	if (!cfa) /* only check them */
		cfa = ra = fp = &t;
#define SFU__W(k) sfu__wordb(s->data, words + (k) * ws, ws, SFU__BIG(s))
	ra->kind = SFU__AMD64(abi) ? SFU_RULE_DEREF : SFU_RULE_SAME;
	ra->base = fp->base = SFU_REG_CFA;
	ra->off = SFU__AMD64(abi) ? s->fixed_ra : 0;
	fp->kind = SFU_RULE_SAME;
	fp->off = 0;
	if (n < 2)
		return SFU_E_FRE_WORDS;
	err = sfu__flex_rule(abi, ws, SFU__W(0), SFU__W(1), true, cfa);
	/* s390x: the CFA offset is stored scaled and adjusted in FLEX FDEs as
	 * in default ones (observed: sid gas, objdump 2.47). */
	if (!err && SFU__S390X(abi))
		err = sfu__s390x_cfa(SFU__W(1), &cfa->off);
	rule[0] = ra;
	rule[1] = fp;
	for (e = 0; e < 2 && !err && i < n; e++) {
		int32_t ctl = SFU__W(i);
		if (ctl == 0) {
			i += 1;
		} else if (i + 1 >= n) {
			err = SFU_E_FRE_WORDS;
		} else {
			err = sfu__flex_rule(abi, ws, ctl, SFU__W(i + 1), false, rule[e]);
			i += 2;
		}
	}
#undef SFU__W
	if (!err && i != n)
		err = SFU_E_FRE_WORDS;
	return err;
}
#endif

/* A V2 s390x word naming a register: a negative word or a number past the
 * DWARF range is corrupt, not a register to truncate. */
SFU__INLINE bool sfu__s390x_reg_ok(int32_t w)
{
	return w >= 0 && SFU_V2_S390X_WORD_REGNUM((uint32_t)w) <= SFU_REG_DWARF_MAX;
}

/* The data words of a DEFAULT FRE (3.1): word 0 the CFA offset; amd64:
 * the RA at the header's fixed offset, word 1 the FP slot; aarch64 and
 * s390x: word 1 the RA slot, word 2 the FP slot (s390x: sfu__crow_s390x
 * then reads them its way). */
SFU__INLINE int sfu__crow_words(const sfu_section *s, unsigned n, unsigned ws, uint32_t words, bool big,
                                uint32_t *flags, sfu__compact_row *r)
{
	bool amd64 = SFU__AMD64(s->abi);

	if (n > (amd64 ? 2u : 3u))
		return SFU_E_FRE_WORDS;
	r->u.off.cfa = sfu__wordb(s->data, words, ws, big);
	if (amd64) {
		*flags |= SFU__CROW_RA_SAVED;
		r->u.off.ra = s->fixed_ra;
	} else if (n >= 2) {
		*flags |= SFU__CROW_RA_SAVED;
		r->u.off.ra = sfu__wordb(s->data, words + ws, ws, big);
	}
	if (n == (amd64 ? 2u : 3u)) {
		*flags |= SFU__CROW_FP_SAVED;
		r->u.off.fp = sfu__wordb(s->data, words + (n - 1u) * ws, ws, big);
	}
	return SFU_OK;
}

/* An s390x RA or FP slot word w, read as saved: an RA word of 0 is padding,
 * the RA not saved (is_ra); in V2 (regs) an odd word, (DWARF register << 1)
 * | 1, names the register holding the value (reg) (3.1.3). */
SFU__INLINE int sfu__s390x_word(int32_t w, bool regs, bool is_ra, uint32_t reg, uint32_t saved, uint32_t *flags)
{
	if (regs && SFU_V2_S390X_WORD_IS_REGNUM(w)) {
		if (!sfu__s390x_reg_ok(w))
			return SFU_E_FRE_WORDS;
		*flags = (*flags & ~saved) | SFU__CROW_GENERAL | reg;
	} else if (is_ra && w == SFU_S390X_RA_OFFSET_INVALID) {
		*flags &= ~saved;
	}
	return SFU_OK;
}

/* The n data words of a DEFAULT s390x FRE, as sfu__crow_words read them
 * (3.1.3): the CFA offset scaled and adjusted, the RA and FP words as
 * sfu__s390x_word says. */
SFU__INLINE int sfu__crow_s390x(const sfu__layout *L, unsigned n, uint32_t *flags, sfu__compact_row *r)
{
	bool regs = (L->rules & SFU__LAYOUT_S390X_REGS) != 0;
	int err = sfu__s390x_cfa(r->u.off.cfa, &r->u.off.cfa);

	if (!err && n >= 2)
		err = sfu__s390x_word(r->u.off.ra, regs, true, SFU__CROW_RA_REG, SFU__CROW_RA_SAVED, flags);
	if (!err && n == 3)
		err = sfu__s390x_word(r->u.off.fp, regs, false, SFU__CROW_FP_REG, SFU__CROW_FP_SAVED, flags);
	return err;
}

#if SFU_FIX_LD_PLTGOT
/* GNU ld's .plt.got FDE (PRODUCER ERRORS at the top): a V2/V3 PC-mask FDE
 * whose only FRE, fre, starts at 0 and says amd64's CFA = SP + 16 and
 * nothing else (RA at the fixed CFA - 8; FP not saved, not mangled, no
 * signal bit: flags RA_SAVED alone, which only amd64 rows can have, the
 * others carry ALIGN16 or SP_S390X; FLEX FDEs never get here).  At a
 * called stub's entry only the RA is on the stack: SP + 8.  The one test
 * on the common path is marked unlikely. */
SFU__INLINE void sfu__fix_pltgot(const sfu__layout *L, const sfu_fde *f, const sfu_fre *fre, sfu__compact_row *r)
{
	if (SFU__UNLIKELY(SFU_AMD64 && f->pctype == SFU_FDE_PCTYPE_MASK && L->rep_at) && r->flags == SFU__CROW_RA_SAVED &&
	    r->u.off.cfa == 16 && r->u.off.ra == -8 && f->num_fres == 1 && fre->start == 0)
		r->u.off.cfa = 8;
}
#endif

/* The row of FRE fre (read by the one reader: its data words in bounds)
 * of FDE f, as a compact row: every DEFAULT FDE row (3.1), in the one
 * place that reads them, and so the one place ld's .plt.got FDE is
 * corrected (SFU_FIX_LD_PLTGOT).
 * FLEX rows and V2 s390x register rules are marked SFU__CROW_GENERAL (the
 * register rules checked here, the FLEX rules by the caller).  A row no
 * reader may accept gets its error (SFU_E_FRE_WORDS). */
SFU__HOT int sfu__crow(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, const sfu_fre *fre, bool big,
                       sfu__compact_row *r)
{
	unsigned info = fre->info, abi = s->abi, n = SFU_FRE_INFO_COUNT(info), ws = 1u << SFU_FRE_INFO_WSIZE(info);
	uint32_t words = fre->words;
	uint32_t flags;
	int err;

	flags = (SFU__AARCH64(abi) ? SFU__CROW_ALIGN16 : 0u) | (SFU__S390X(abi) ? SFU__CROW_SP_S390X : 0u) |
	        (f->signal ? SFU__CROW_SIGNAL : 0u) | (SFU_FRE_INFO_MANGLED_RA(info) ? SFU__CROW_MANGLED : 0u) |
	        (SFU_FRE_INFO_BASE_REG(info) == SFU_BASE_REG_SP ? 0u : SFU__CROW_CFA_FP);
	r->u.off.cfa = r->u.off.ra = r->u.off.fp = 0;
	r->flags = flags;
	/* No data words: the RA is undefined, this is the outermost frame (V2
	 * erratum 2; 2.4.1). */
	if (n == 0) {
		r->flags = flags | SFU__CROW_RA_UNDEF;
		return SFU_OK;
	}
#if SFU_FLEX
	if (f->type == SFU_FDE_TYPE_FLEX) {
		/* (Its rules are checked by the caller: sfu__crow_at, or
		 * sfu__row_from_fre, which decodes them.) */
		r->u.flex.sec = 0; /* (the lookup over sections sets it) */
		r->u.flex.words = words;
		r->u.flex.info = info;
		r->flags = flags | SFU__CROW_GENERAL | SFU__CROW_FLEX;
		return SFU_OK;
	}
#endif
	err = sfu__crow_words(s, n, ws, words, big, &flags, r);
	if (!err && SFU__S390X(abi))
		err = sfu__crow_s390x(L, n, &flags, r);
	if (err)
		return err;
	/* The step reads a compact row's RA and FP slots without testing
	 * their alignment: its CFA is checked aligned (8 or 16), so their
	 * offsets must be multiples of 8.  A row whose are not (no producer
	 * writes one) takes the general rules, whose reads test each address
	 * (SFU_E_ALIGN, the same answer).  (Those not saved are 0.) */
	if ((r->u.off.ra | r->u.off.fp) & 7)
		flags |= SFU__CROW_GENERAL;
	r->flags = flags;
#if SFU_FIX_LD_PLTGOT
	sfu__fix_pltgot(L, f, fre, r);
#endif
	return SFU_OK;
}

/* The row of FRE fre of FDE f as the walk applies it (fre NULL: the FDE
 * has none, a V3 outermost frame; for the index build). */
SFU__INLINE int sfu__crow_fre(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, const sfu_fre *fre, bool big,
                              sfu__compact_row *r)
{
	sfu_fre none;
	int err;

	if (!fre) {
		sfu__fre_none(&none);
		fre = &none;
	}
	err = sfu__crow(s, L, f, fre, big, r);
#if SFU_FLEX
	if (!err && (r->flags & SFU__CROW_FLEX))
		err = sfu__flex_rules(s, fre->words, fre->info, NULL, NULL, NULL); /* a row no reader may accept */
#endif
	if (!SFU_COMPACT)
		r->flags |= SFU__CROW_GENERAL; /* the reference: everything through the rules */
	return err;
}

/* The general rules of a row that is not FLEX: the compact row's, written
 * out (V2 s390x register words as register rules). */
SFU__INLINE void sfu__crow_rules(const sfu__compact_row *r, sfu_rule *cfa, sfu_rule *ra, sfu_rule *fp)
{
	uint32_t f = r->flags;
	cfa->kind = SFU_RULE_OFF;
	cfa->base = (f & SFU__CROW_CFA_FP) ? SFU_REG_FP : SFU_REG_SP;
	cfa->off = r->u.off.cfa;
	ra->kind = (f & SFU__CROW_RA_UNDEF) ? SFU_RULE_UNDEF : (f & SFU__CROW_RA_SAVED) ? SFU_RULE_DEREF : SFU_RULE_SAME;
	ra->base = fp->base = SFU_REG_CFA;
	ra->off = (f & SFU__CROW_RA_SAVED) ? r->u.off.ra : 0;
	fp->kind = (f & SFU__CROW_FP_SAVED) ? SFU_RULE_DEREF : SFU_RULE_SAME;
	fp->off = (f & SFU__CROW_FP_SAVED) ? r->u.off.fp : 0;
	if (f & SFU__CROW_RA_REG) {
		ra->kind = SFU_RULE_OFF;
		ra->base = (uint16_t)SFU_V2_S390X_WORD_REGNUM((uint32_t)r->u.off.ra);
	}
	if (f & SFU__CROW_FP_REG) {
		fp->kind = SFU_RULE_OFF;
		fp->base = (uint16_t)SFU_V2_S390X_WORD_REGNUM((uint32_t)r->u.off.fp);
	}
}

/* The general form of a row: the compact row's rules written out, or the
 * FLEX rules. */
static int sfu__row_from_fre(const sfu_section *s, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	sfu__compact_row c;
	int err = sfu__crow(s, SFU__LAY(s), fde, fre, SFU__BIG(s), &c);
	if (err)
		return err;
	row->func_start = fde->start;
	row->func_size = fde->size;
	row->fre_start = fre->start;
	row->abi = s->abi;
	row->mangled_ra = (c.flags & SFU__CROW_MANGLED) ? 1u : 0u;
	row->signal = fde->signal;
	row->flex = SFU_FLEX && fde->type == SFU_FDE_TYPE_FLEX;
	row->sp_from_cfa = (int16_t)((c.flags & SFU__CROW_SP_S390X) ? SFU_S390X_SP_VAL_OFFSET : 0);
#if SFU_FLEX
	if (c.flags & SFU__CROW_FLEX)
		return sfu__flex_rules(s, fre->words, fre->info, &row->cfa, &row->ra, &row->fp);
#endif
	sfu__crow_rules(&c, &row->cfa, &row->ra, &row->fp);
	return SFU_OK;
}

SFU__FN int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	if (!sec || !fde || !fre || !row)
		return SFU_E_ARG;
	return sfu__row_from_fre(sec, fde, fre, row);
}

/* ---- the speed part's hooks ------------------------------------------------
 * SFU_INDEX and SFU_CACHE plug into the lookup here and nowhere else, one
 * place per layer: an FDE index narrows the FDE search (sfu__index_fdes,
 * in sfu__search_fde), a row index answers for its section
 * (sfu__index_row, in sfu__section_row), and the walk's lookup asks the
 * cache, or else the first section's row index, before any call
 * (sfu__fast_row, in sfu__lookup).  Their code is part 2, at the end of
 * this file; without those knobs the panic path compiles and reads
 * without it.  SFU__SEARCH: "search the section as if there were no
 * index". */
#define SFU__SEARCH (-1)
#if SFU_INDEX
SFU__INLINE int sfu__index_fdes(const sfu_section *s, uint64_t pc, uint32_t *lo, uint32_t *hi);
SFU__INLINE int sfu__index_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r);
#endif
#if SFU_INDEX || SFU_CACHE
SFU__INLINE int sfu__fast_row(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r, sfu__compact_row *t);
#endif

/* ---- lookup ------------------------------------------------------------------ */

/* Of the FDEs [lo, hi) of a sorted section, the number starting at or
 * before pc, plus lo (*cnt).  Every probe is checked against the starts
 * already seen: a section that lies about its order is reported
 * (SFU_E_UNSORTED), not half-searched.  A probe at or below pc only needs
 * the check against the lower start seen, one above pc only against the
 * upper. */
SFU__INLINE int sfu__bsearch(const sfu_section *s, const sfu__layout *L, uint64_t pc, uint32_t lo, uint32_t hi,
                             uint64_t pcrel, bool big, uint32_t *cnt)
{
	uint64_t lo_v = 0, hi_v = UINT64_MAX;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2u; /* num_fdes < 2^28: no overflow */
		uint64_t v = sfu__start_at(s, sfu__fde_rec(s, L, mid), L->start_size, pcrel, big);
		if (v <= pc) {
			if (v < lo_v)
				return SFU_E_UNSORTED;
			lo = mid + 1u;
			lo_v = v;
		} else {
			if (v > hi_v)
				return SFU_E_UNSORTED;
			hi = mid;
			hi_v = v;
		}
	}
	*cnt = lo;
	return SFU_OK;
}

/* Of a sorted section's FDEs [lo, hi), the last starting at or before pc
 * (*i; compiled for both kinds of start where speed is asked for). */
SFU__INLINE int sfu__sorted_fde(const sfu_section *s, const sfu__layout *L, uint64_t pc, uint32_t lo, uint32_t hi,
                                bool big, uint32_t *i)
{
	int err;

	if (SFU__SPECIALIZE && s->pcrel)
		err = sfu__bsearch(s, L, pc, lo, hi, ~(uint64_t)0, big, i);
	else if (SFU__SPECIALIZE)
		err = sfu__bsearch(s, L, pc, lo, hi, 0, big, i);
	else
		err = sfu__bsearch(s, L, pc, lo, hi, sfu__pcrel_mask(s), big, i);
	if (err)
		return err;
	if ((*i)-- == 0)
		return SFU_E_NOINFO;
	return SFU_OK;
}

/* Of an unsorted section's FDEs, the first whose range holds pc (*i): a
 * cheap range test of each; the caller decodes (and checks) the match. */
SFU__INLINE int sfu__scan_fdes(const sfu_section *s, const sfu__layout *L, uint64_t pc, bool big, uint32_t *i)
{
	uint64_t pcrel = sfu__pcrel_mask(s);
	uint32_t k;

	for (k = 0; k < s->num_fdes; k++) {
		uint32_t rec = sfu__fde_rec(s, L, k);
		uint64_t start = sfu__start_at(s, rec, L->start_size, pcrel, big);
		if (pc - start < (uint64_t)sfu__ld32b(s->data, rec + L->size_at, big))
			break;
	}
	*i = k;
	return k == s->num_fdes ? SFU_E_NOINFO : SFU_OK;
}

/* The FDE covering pc (*f; *idx its index, if idx). */
SFU__INLINE int sfu__search_fde(const sfu_section *s, const sfu__layout *L, uint64_t pc, sfu_fde *f, uint32_t *idx,
                                 bool big)
{
	uint32_t i, lo = 0, hi = s->num_fdes;
	bool sorted = (s->flags & SFU_F_FDE_SORTED) != 0;
	int err;

#if SFU_INDEX
	/* Hook: an index narrows the search (part 2). */
	if (s->index) {
		err = sfu__index_fdes(s, pc, &lo, &hi);
		if (err)
			return err;
		sorted = true;
	}
#endif
	err = sorted ? sfu__sorted_fde(s, L, pc, lo, hi, big, &i) : sfu__scan_fdes(s, L, pc, big, &i);
	if (err)
		return err;
	err = sfu__fde_decode(s, L, i, f, big);
	if (err)
		return err;
	if (pc - f->start >= (uint64_t)f->size)
		return SFU_E_NOINFO; /* a gap between functions */
	if (idx)
		*idx = i;
	return SFU_OK;
}

static int sfu__search(const sfu_section *s, uint64_t pc, sfu_fde *f, uint32_t *idx, sfu_fre *fre);

SFU__FN int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx)
{
	if (!sec || !fde)
		return SFU_E_ARG;
	return sfu__search(sec, pc, fde, idx, NULL);
}

/* The FRE of f that applies at PC offset pcoff (2.4; 2.3.3.1 for the PC
 * types), read into *fre: the last one starting at or before it; for V1
 * PC-mask FDEs the last whose start is a mask of it ((pcoff & start) ==
 * start, V1 "The SFrame FDE types").  The scan reads each FRE's header with
 * the one reader, the start first, so it stops at the first FRE past
 * pcoff before reading on; it checks the order and word size of every FRE
 * it passes, so it steps over them as sfu_fre_get would and a run past the
 * end shows at the next header; the chosen FRE's words are checked last.
 * ab: bytes of an FRE start. */
SFU__INLINE int sfu__fre_scan(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, uint32_t pcoff,
                              uint32_t ab, bool big, sfu_fre *fre)
{
	uint32_t k, start, prev = 0, best = 0;
	int64_t pos = (int64_t)s->fre_base + f->fre_off;
	bool bits = f->pctype == SFU_FDE_PCTYPE_MASK && (L->rules & SFU__LAYOUT_MASK_BITS);
	int err;

	for (k = f->num_fres; k; k--) {
		sfu_fre h; /* this FRE's header, for its size */
		err = sfu__fre_start(s, pos, ab, big, &start);
		if (err)
			return err;
		if (bits) {
			if (start < prev)
				return SFU_E_FRE_ORDER;
			if ((pcoff & start) == start)
				best = (uint32_t)pos;
		} else if (start - prev > pcoff - prev) {
			/* One test for both ways out (prev <= pcoff holds). */
			if (start < prev)
				return SFU_E_FRE_ORDER;
			break; /* past pcoff */
		} else {
			best = (uint32_t)pos;
		}
		err = sfu__fre_info(s, pos, ab, &h);
		/* A PC-mask scan reads every FRE and may choose none of the
		 * last: each must fit whole. */
		if (!err && bits)
			err = sfu__fre_in(s, &h);
		if (err)
			return err;
		prev = start;
		pos += ab + 1u + ((uint32_t)h.count << SFU_FRE_INFO_WSIZE(h.info));
	}
	if (!best)
		return SFU_E_NOINFO;
	/* The chosen FRE lies inside the FRE sub-section: the scan checked it. */
	SFU_ASSERT(best >= s->fre_base + f->fre_off && best < s->fre_base + s->fre_len);
	/* Only its offset was kept (what the loop carries costs on every FRE
	 * passed): its header is read again, from its start where a PC-mask
	 * scan chose it, else from its info byte: it is the last FRE passed,
	 * whose start is prev. */
	err = bits ? sfu__fre_start(s, best, ab, big, &prev) : SFU_OK;
	fre->start = prev;
	if (!err)
		err = sfu__fre_info(s, best, ab, fre);
	return err ? err : sfu__fre_in(s, fre);
}

/* The FDE covering pc (*idx: its index, if idx) and, if fre, its FRE for
 * pc (*fre; for a V3 FDE without FREs, which marks an outermost frame, one
 * without data words). */
SFU__INLINE int sfu__search_fre(const sfu_section *s, const sfu__layout *L, uint64_t pc, sfu_fde *f, uint32_t *idx,
                               sfu_fre *fre, bool big)
{
	uint32_t pcoff;
	int err = sfu__search_fde(s, L, pc, f, idx, big);
	if (err || !fre)
		return err;
	if (f->num_fres == 0) {
		sfu__fre_none(fre);
		return (L->rules & SFU__LAYOUT_EMPTY_OUTERMOST) ? SFU_OK : SFU_E_NOINFO;
	}
	pcoff = (uint32_t)(pc - f->start);
	if (f->pctype == SFU_FDE_PCTYPE_MASK && f->rep_size)
		pcoff %= f->rep_size;
	if (SFU__SPECIALIZE && f->fre_type == SFU_FRE_TYPE_ADDR1)
		return sfu__fre_scan(s, L, f, pcoff, 1, big, fre);
	if (SFU__SPECIALIZE && f->fre_type == SFU_FRE_TYPE_ADDR2)
		return sfu__fre_scan(s, L, f, pcoff, 2, big, fre);
	if (SFU__SPECIALIZE)
		return sfu__fre_scan(s, L, f, pcoff, 4, big, fre);
	return sfu__fre_scan(s, L, f, pcoff, sfu__addr_bytes(f->fre_type), big, fre);
}

static int sfu__search(const sfu_section *s, uint64_t pc, sfu_fde *f, uint32_t *idx, sfu_fre *fre)
{
	return sfu__search_fre(s, SFU__LAY(s), pc, f, idx, fre, SFU__BIG(s));
}

static int sfu__find_row(const sfu_section *s, uint64_t pc, sfu_row *row)
{
	sfu_fde fde;
	sfu_fre fre;
	int err = sfu__search(s, pc, &fde, NULL, &fre);
	return err ? err : sfu__row_from_fre(s, &fde, &fre, row);
}

SFU__FN int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row)
{
	if (!sec || !row)
		return SFU_E_ARG;
	return sfu__find_row(sec, pc, row);
}

/* First section that covers pc; a corrupt section is reported unless
 * another one covers pc. */
static int sfu__find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
{
	size_t i;
	int first_err = SFU_E_NOINFO;
	for (i = 0; i < nsecs; i++) {
		int err = sfu__find_row(&secs[i], pc, row);
		if (err == SFU_OK)
			return SFU_OK;
		if (err != SFU_E_NOINFO && first_err == SFU_E_NOINFO)
			first_err = err;
	}
	return first_err;
}

SFU__FN int sfu_find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
{
	if ((!secs && nsecs) || !row)
		return SFU_E_ARG;
	return sfu__find_row_n(secs, nsecs, pc, row);
}

/* The compact row for pc by the search: FDE, FRE, row, all in one piece
 * so the FDE stays in registers.  Where size is asked for, through the one
 * copy of the search (sfu__search), and L and big are read after it, not
 * kept across the call (the caller passes none). */
SFU__INLINE int sfu__search_row(const sfu_section *s, const sfu__layout *L, uint64_t pc, bool big, sfu__compact_row *r)
{
	sfu_fde fde;
	sfu_fre fre;
	int err;
#if SFU__SPECIALIZE
	err = sfu__search_fre(s, L, pc, &fde, NULL, &fre, big);
#else
	err = sfu__search(s, pc, &fde, NULL, &fre);
	L = SFU__LAY(s);
	big = SFU__BIG(s);
#endif
	return err ? err : sfu__crow_fre(s, L, &fde, &fre, big, r);
}

/* The lowest version compiled in: the layout dispatch's fall-through. */
#define SFU__LAY_LOW (&sfu__layouts[SFU_V1 ? 0 : SFU_V2 ? 1 : 2])

/* The compact row for pc in one section: from its row index if it has
 * one, else by the search. */
static SFU__NOINLINE int sfu__section_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
#if SFU_INDEX
	/* Hook: a row index answers, or sends the lookup on (part 2). */
	if (s->index) {
		int err = sfu__index_row(s, pc, r);
		if (err != SFU__SEARCH)
			return err;
	}
#endif
	/* The one dispatch of the search, on the layout init chose and the
	 * byte order: where speed is asked for, a copy per layout and order
	 * compiled in, with those constants (SFU__SPECIALIZE). */
	if (!SFU__SPECIALIZE)
		return sfu__search_row(s, NULL, pc, false, r);
	if (SFU_V3 && (SFU_V1 || SFU_V2) && s->version == SFU_VERSION_3)
		return SFU__BIG(s) ? sfu__search_row(s, &sfu__layouts[2], pc, true, r)
		                   : sfu__search_row(s, &sfu__layouts[2], pc, false, r);
	if (SFU_V2 && SFU_V1 && s->version == SFU_VERSION_2)
		return SFU__BIG(s) ? sfu__search_row(s, &sfu__layouts[1], pc, true, r)
		                   : sfu__search_row(s, &sfu__layouts[1], pc, false, r);
	return SFU__BIG(s) ? sfu__search_row(s, SFU__LAY_LOW, pc, true, r) : sfu__search_row(s, SFU__LAY_LOW, pc, false, r);
}

/* The row for pc as the walk uses it: compact, or marked SFU__CROW_GENERAL
 * (then sfu_find_row_n gives its rules), through the sections' indexes: the
 * same section, the same errors as sfu_find_row_n (the tests hold it to
 * that). */
SFU__INLINE int sfu__lookup_row(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu__compact_row *r)
{
	size_t i;
	int first_err = SFU_E_NOINFO;
	for (i = 0; i < nsecs; i++) {
		int err = sfu__section_row(&secs[i], pc, r);
		if (err == SFU_OK) {
			if (r->flags & SFU__CROW_FLEX)
				r->u.flex.sec = (uint32_t)i; /* where its words are */
			return SFU_OK;
		}
		if (err != SFU_E_NOINFO && first_err == SFU_E_NOINFO)
			first_err = err;
	}
	/* No row, and *r defined all the same: gcc 12-16 at -O2, inlining the
	 * whole lookup into the walk, cannot tell that no caller reads it
	 * after an error (-Wmaybe-uninitialized). */
	r->u.off.cfa = r->u.off.ra = r->u.off.fp = 0;
	r->flags = 0;
	return first_err;
}

/* ---- whole-section validation ------------------------------------------------ */

static int sfu__validate(const sfu_section *s, uint32_t *bad_fde)
{
	uint32_t i, k, total = 0;
	uint64_t prev_start = 0, prev_size = 0;
	int err = SFU_OK;

	for (i = 0; i < s->num_fdes; i++) {
		sfu_fde fde;
		sfu_fre fre;
		sfu_row row;
		uint32_t off, prev = 0, budget;
		err = sfu__fde_get(s, i, &fde);
		if (err)
			break;
		if (fde.start + fde.size < fde.start) {
			err = SFU_E_FDE_WRAP; /* no code runs past 2^64 */
			break;
		}
		if ((s->flags & SFU_F_FDE_SORTED) && i) {
			/* Sorted, and (no producer emits otherwise) each function
			 * starts at or after the end of the one before. */
			if (fde.start < prev_start) {
				err = SFU_E_UNSORTED;
				break;
			}
			if (fde.start - prev_start < prev_size) {
				err = SFU_E_OVERLAP;
				break;
			}
		}
		prev_start = fde.start;
		prev_size = fde.size;
		/* The FREs of all FDEs must add up to the header's count, which
		 * init bounded by the FRE sub-section's size.  Scanning no more
		 * than what is left of that count keeps validation linear in the
		 * section size even when FDEs share one block of FREs. */
		budget = fde.num_fres < s->num_fres - total ? fde.num_fres : s->num_fres - total;
		off = fde.fre_off;
		for (k = 0; k < budget && !err; k++) {
			err = sfu__fre_get(s, &fde, off, &fre);
			if (err)
				break;
			if (k && fre.start < prev)
				err = SFU_E_FRE_ORDER;
			else if (fde.pctype == SFU_FDE_PCTYPE_INC && fre.start > fde.size)
				err = SFU_E_FRE_START;
			else
				err = sfu__row_from_fre(s, &fde, &fre, &row);
			prev = fre.start;
			off = fre.next;
		}
		if (!err && budget < fde.num_fres)
			err = SFU_E_FRE_COUNT;
		if (err)
			break;
		total += fde.num_fres;
	}
	if (!err && total != s->num_fres)
		err = SFU_E_FRE_COUNT;
	if (err && bad_fde)
		*bad_fde = i;
	return err;
}

SFU__FN int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde)
{
	if (!sec)
		return SFU_E_ARG;
	return sfu__validate(sec, bad_fde);
}

/* ---- the walk ------------------------------------------------------------------- */

/* The port's read: an inlinable hook if the port defines SFU_READ, else the
 * function pointer.  The step's reads of a row's words (sfu__unwind) load
 * c->port once where the hook is in line, and again at each read through
 * the pointer, where a register kept across the calls costs more (make
 * bench, x86_64 V3, instructions per frame: the port loaded once costs the
 * cache and the row index +3 each through the pointer, saves 4 and 1 in
 * line). */
#ifdef SFU_READ
#define SFU__PORT_READ(p, a, o) SFU_READ((p)->ctx, (a), (o))
#else
#define SFU__PORT_READ(p, a, o) (p)->read((p)->ctx, (a), (o))
#endif

SFU__INLINE unsigned sfu__align(unsigned abi)
{
	/* Minimum CFA alignment: AAPCS64 keeps SP 16-aligned at every call; on
	 * amd64 and s390x we only ask for 8 (kernels often build with an
	 * 8-byte preferred stack boundary). */
	return SFU__AARCH64(abi) ? 16u : 8u;
}

/* The port's read of an address known to be 8-byte aligned. */
SFU__INLINE int sfu__port_load(const sfu_port *p, uint64_t addr, uint64_t *out)
{
	SFU_ASSERT(!(addr & 7u));
	return SFU__PORT_READ(p, addr, out) ? SFU_E_READ : SFU_OK;
}

SFU__INLINE int sfu__port_read(const sfu_port *p, uint64_t addr, uint64_t *out)
{
	if (addr & 7u)
		return SFU_E_ALIGN;
	return sfu__port_load(p, addr, out);
}

SFU__INLINE int sfu__read(const sfu_cursor *c, uint64_t addr, uint64_t *out)
{
	return sfu__port_read(c->port, addr, out);
}

/* Make the stack holding sp the current one (c->stack_lo/hi).  False if
 * the port declares stacks and none holds sp: then nothing fits.  A port
 * that declares none bounds nothing: every address is on its one stack
 * (so the check per frame is the range test alone). */
static bool sfu__pick_stack(sfu_cursor *c, uint64_t sp)
{
	const sfu_port *p = c->port;
	size_t i;
	c->bounded = (p->stack_lo || p->stack_hi || (p->stacks && p->nstacks)) ? 1 : 0;
	c->stack_lo = c->bounded; /* 1, 0: empty until found */
	c->stack_hi = c->bounded ? 0u : UINT64_MAX;
	if (!c->bounded)
		return true;
	if ((p->stack_lo || p->stack_hi) && sp >= p->stack_lo && sp <= p->stack_hi) {
		c->stack_lo = p->stack_lo;
		c->stack_hi = p->stack_hi;
		return true;
	}
	for (i = 0; p->stacks && i < p->nstacks; i++) {
		if (sp >= p->stacks[i].lo && sp <= p->stacks[i].hi) {
			c->stack_lo = p->stacks[i].lo;
			c->stack_hi = p->stacks[i].hi;
			return true;
		}
	}
	return false;
}

/* Is sp on the current frame's stack?  (Unbounded: [0, UINT64_MAX].) */
SFU__INLINE bool sfu__on_stack(const sfu_cursor *c, uint64_t sp)
{
	return sp >= c->stack_lo && sp <= c->stack_hi;
}

SFU__FN int sfu_cursor_init(sfu_cursor *c, const sfu_section *secs, size_t nsecs,
                            const sfu_port *port, const sfu_regs *regs)
{
#ifdef SFU_READ
	if (!c || !port || !regs || (!secs && nsecs))
		return SFU_E_ARG;
#else
	if (!c || !port || !port->read || !regs || (!secs && nsecs))
		return SFU_E_ARG;
#endif
	c->secs = secs;
	c->nsecs = nsecs;
	c->port = port;
	/* Field by field: a struct assignment may become a call to memcpy,
	 * which a freestanding image need not have. */
	c->regs.pc = regs->pc;
	c->regs.sp = regs->sp;
	c->regs.fp = regs->fp;
	c->regs.ra = regs->ra;
	c->regs.dwarf = regs->dwarf;
	c->regs.ndwarf = regs->ndwarf;
	c->regs.dwarf_map = regs->dwarf_map;
	c->cfa = 0;
	c->depth = 0;
	c->exact = 1;
	c->full = 1;
	c->how = SFU_HOW_START;
	c->abi = nsecs ? secs[0].abi : 0;
	c->fp_ok = 1;
	c->user = 0;
	/* The first frame's stack; an SP on none of them is reported by the
	 * first step (the frame itself is still worth printing). */
	(void)sfu__pick_stack(c, regs->sp);
#if SFU_CACHE
	c->cache = NULL;
#endif
	return SFU_OK;
}

/* The one stack check, before anything is read from the caller's frame:
 * the CFA aligned, the stack moving toward its base (higher addresses on
 * every supported ABI), still on the frame's stack.  Equal SPs are allowed
 * only out of a frame with full registers (a leaf that has not pushed
 * anything yet); otherwise two frames could repeat. */
SFU__INLINE int sfu__check_sp(const sfu_cursor *c, uint64_t sp, uint64_t cfa, unsigned align)
{
	if (cfa & (align - 1u)) /* align: a power of two */
		return SFU_E_ALIGN;
	if (sp <= c->regs.sp && (sp < c->regs.sp || !c->full)) /* (one compare where it moves on) */
		return SFU_E_WRONG_WAY;
	/* sp >= regs.sp, which is on the stack (the first frame's checked by
	 * the step, every later one here or by the trap's sfu__pick_stack): sp
	 * can only be past its base.  (A failed sfu__pick_stack leaves the
	 * empty stack [1, 0] and a caller frame, where sp > regs.sp >= 0.) */
	if (sp > c->stack_hi)
		return SFU_E_STACK_BOUNDS;
	return SFU_OK;
}

/* The one frame update: the cursor moves to the caller.  Registers other
 * than PC, SP, FP are unknown there (a trap frame sets them after). */
SFU__INLINE void sfu__commit(sfu_cursor *c, uint64_t pc, uint64_t sp, uint64_t fp, bool fp_ok, uint64_t cfa,
                             unsigned how, bool exact)
{
	c->regs.pc = pc;
	c->regs.sp = sp;
	c->regs.fp = fp;
	if (c->full) {
		/* Cleared once, out of a frame that had them: every commit
		 * leaves them cleared, so a caller frame's are already. */
		c->regs.ra = 0;
		c->regs.dwarf = NULL;
		c->regs.ndwarf = 0;
		c->regs.dwarf_map = NULL;
		c->full = 0;
	}
	c->fp_ok = fp_ok;
	c->cfa = cfa;
	c->exact = exact;
	c->how = (uint8_t)how;
	c->depth++;
	SFU_ASSERT(c->depth < SFU_DEPTH_CAP);
}

/* Whether rule r's base register is one this frame does not have (only
 * SP, CFA and, unless a refused read lost it, FP are known in a caller
 * frame; any other register only in a frame whose full register set we
 * were given: appendix A, ERR_SFRAME_UNSAFE_UNWIND). */
static bool sfu__unknown(const sfu_cursor *c, const sfu_rule *r)
{
	if (r->kind == SFU_RULE_SAME || r->kind == SFU_RULE_UNDEF)
		return false;
	switch (r->base) {
	case SFU_REG_SP:
	case SFU_REG_CFA: return false;
	case SFU_REG_FP: return !c->fp_ok;
	default: return !c->full || !c->regs.dwarf || r->base >= c->regs.ndwarf;
	}
}

/* Value of rule r in the current frame (3.2; appendix A). */
static int sfu__apply(const sfu_cursor *c, const sfu_rule *r, uint64_t cfa, uint64_t *v)
{
	uint64_t b;
	if (sfu__unknown(c, r))
		return SFU_E_UNSAFE;
	switch (r->base) {
	case SFU_REG_SP: b = c->regs.sp; break;
	case SFU_REG_FP: b = c->regs.fp; break;
	case SFU_REG_CFA: b = cfa; break;
	default:
		if (c->regs.dwarf_map) {
			/* A trap frame in the kernel's own layout: the port checked
			 * every word of it before handing it over. */
			uint16_t at = c->regs.dwarf_map[r->base];
			if (at == 0 || ((at - 1u) & 7u))
				return SFU_E_UNSAFE;
			b = c->regs.dwarf[(at - 1u) / 8u];
		} else {
			b = c->regs.dwarf[r->base];
		}
	}
	b += (uint64_t)(int64_t)r->off;
	if (r->kind == SFU_RULE_DEREF)
		return sfu__read(c, b, v);
	*v = b;
	return SFU_OK;
}

/* The CFA by a row's rule (g), or SP or FP + u.off.cfa (a compact row r). */
SFU__INLINE int sfu__cfa(const sfu_cursor *c, uint32_t f, const sfu__compact_row *r, const sfu_rule *g, uint64_t *cfa)
{
	if (g)
		return sfu__apply(c, &g[0], 0, cfa);
	if (f & SFU__CROW_CFA_FP) {
		if (!c->fp_ok)
			return SFU_E_UNSAFE; /* lost to a refused read earlier */
		*cfa = c->regs.fp;
	} else {
		*cfa = c->regs.sp;
	}
	*cfa += (uint64_t)(int64_t)r->u.off.cfa;
	return SFU_OK;
}

/* Out of a frame by its SFrame row (3.1, 3.2; appendix A): the one
 * sequence of every row.  A compact row is r (g NULL): CFA = SP or FP +
 * u.off.cfa, the RA and the FP at CFA + their offsets or unchanged, as its
 * flags say.  A general row is its rules g[0..2] (CFA, RA, FP; r NULL).
 * The flags f give the rest (RA undefined, alignment, s390x SP, mangled
 * RA, signal).  In line in both callers, where r or g is a constant. */
#define SFU__RULE(i, saved) (g ? g[i].kind != SFU_RULE_SAME : (f & (saved)) != 0) /* RA (1) or FP (2) not unchanged */
SFU__INLINE int sfu__unwind(sfu_cursor *c, uint32_t f, const sfu__compact_row *r, const sfu_rule *g)
{
#ifdef SFU_READ
	const sfu_port *port = c->port; /* (see SFU__PORT_READ) */
#define SFU__ROW_READ(a, o) sfu__port_load(port, (a), (o))
#else
#define SFU__ROW_READ(a, o) sfu__port_load(c->port, (a), (o))
#endif
	uint64_t cfa, sp, ra, fp;
	bool fp_ok;
	int err;

	if (f & SFU__CROW_RA_UNDEF)
		return SFU_END; /* the outermost frame */
	/* The RA still in the link register is known only where every
	 * register is; a rule that needs a register this frame does not have
	 * is the reason the walk stops, whatever the stack check would say of
	 * the CFA. */
	if ((!SFU__RULE(1, SFU__CROW_RA_SAVED) && !c->full) || (g && (sfu__unknown(c, &g[1]) || sfu__unknown(c, &g[2]))))
		return SFU_E_UNSAFE;
	err = sfu__cfa(c, f, r, g, &cfa);
	if (err)
		return err;
	sp = cfa + ((f & SFU__CROW_SP_S390X) ? (uint64_t)(int64_t)SFU_S390X_SP_VAL_OFFSET : 0u);
	err = sfu__check_sp(c, sp, cfa, 8u + (f & SFU__CROW_ALIGN16)); /* 16 or 8 */
	if (err)
		return err;
	if (SFU__RULE(1, SFU__CROW_RA_SAVED)) {
		err = g ? sfu__apply(c, &g[1], cfa, &ra) : SFU__ROW_READ(cfa + (uint64_t)(int64_t)r->u.off.ra, &ra);
		if (err)
			return err;
	} else {
		ra = c->regs.ra;
	}
	/* The caller's FP is needed only if a later frame's CFA or rules use
	 * it.  Compilers leave stale FP rules in some epilogues (gcc's DRAP
	 * epilogue keeps "FP at *(FP)" after the restore), so a refused FP
	 * read does not end the walk: the FP becomes unknown, and a later rule
	 * that needs it stops with SFU_E_UNSAFE. */
	if (SFU__RULE(2, SFU__CROW_FP_SAVED)) {
		err = g ? sfu__apply(c, &g[2], cfa, &fp) : SFU__ROW_READ(cfa + (uint64_t)(int64_t)r->u.off.fp, &fp);
		fp_ok = err == SFU_OK;
		if (!fp_ok)
			fp = 0;
		if (g && err && err != SFU_E_READ && err != SFU_E_ALIGN)
			return err; /* (a general rule's other errors) */
	} else {
		fp = c->regs.fp;
		fp_ok = c->fp_ok;
	}
	if ((f & SFU__CROW_MANGLED) && c->port->strip_ra)
		ra = c->port->strip_ra(c->port->ctx, ra);
	if (ra == 0)
		return SFU_END; /* RA of 0: conventional end of the stack */
	/* Out of a signal trampoline the caller was interrupted: exact PC. */
	sfu__commit(c, ra, sp, fp, fp_ok, cfa, SFU_HOW_SFRAME, (f & SFU__CROW_SIGNAL) != 0);
	return SFU_OK;
}
#undef SFU__RULE
#undef SFU__ROW_READ

/* The flags that make a compact row other than the common one, and the
 * value they have in it: the RA saved, not the outermost frame, not s390x,
 * not mangled. */
#define SFU__CROW_UNCOMMON (SFU__CROW_RA_SAVED | SFU__CROW_RA_UNDEF | SFU__CROW_SP_S390X | SFU__CROW_MANGLED)
#define SFU__CROW_COMMON SFU__CROW_RA_SAVED

/* Out of a frame by its compact row (3.1).  Where speed is asked for, the
 * common row has a copy of the sequence of its own, those four flags known
 * there after one test (the shapes block). */
SFU__INLINE int sfu__from_row(sfu_cursor *c, const sfu__compact_row *r)
{
	uint32_t f = r->flags;
#if SFU__SPECIALIZE
	if (SFU__LIKELY((f & SFU__CROW_UNCOMMON) == SFU__CROW_COMMON))
		return sfu__unwind(c, (f & ~SFU__CROW_UNCOMMON) | SFU__CROW_COMMON, r, NULL);
#endif
	return sfu__unwind(c, f, r, NULL);
}

#if SFU__GENERAL_STEP
/* The step's row as sfu__from_general gets it (the shapes block, at
 * sfu__lookup): by value at -O2, so that the step's row stays in
 * registers; by address at -Os, where it is on the step's frame already
 * (a row by value gets a second home on the callee's). */
#ifdef __OPTIMIZE_SIZE__
typedef const sfu__compact_row *sfu__general_row;
#define SFU__GENERAL_ROW(r) (&(r))
#define SFU__GENERAL_OF(g) (g)
#else
typedef sfu__compact_row sfu__general_row;
#define SFU__GENERAL_ROW(r) (r)
#define SFU__GENERAL_OF(g) (&(g))
#endif

/* Out of a frame by the general rules of its row (FLEX FDEs, V2 s390x
 * register rules; every row with SFU_COMPACT 0), out of line. */
static SFU__NOINLINE int sfu__from_general(sfu_cursor *c, sfu__general_row row)
{
	const sfu__compact_row *r = SFU__GENERAL_OF(row);
	uint32_t flags = r->flags;
	sfu_rule g[3];
	int err = SFU_OK;
#if SFU_FLEX
	if (flags & SFU__CROW_FLEX)
		err = sfu__flex_rules(&c->secs[r->u.flex.sec], r->u.flex.words, r->u.flex.info, &g[0], &g[1], &g[2]);
#endif
	if (!SFU_FLEX || !(flags & SFU__CROW_FLEX))
		sfu__crow_rules(r, &g[0], &g[1], &g[2]);
	if (err)
		return err;
	return sfu__unwind(c, flags, NULL, g);
}
#endif

/* Out of PC 0 reached by a call through a null pointer (the call happened,
 * the callee never ran): amd64's call pushed the return address, so it is
 * at [SP] and the caller's SP is SP + 8; aarch64 and s390x branch-and-link
 * left it in the link register and did not touch SP. */
static SFU__NOINLINE int sfu__from_null_call(sfu_cursor *c)
{
	uint64_t ra, sp = c->regs.sp;
	int err;
	if (SFU__AMD64(c->abi)) {
		err = sfu__read(c, sp, &ra);
		if (err)
			return err;
		sp += 8u;
	} else {
		ra = c->regs.ra;
	}
	if (ra == 0)
		return SFU_END;
	err = sfu__check_sp(c, sp, sp, 1);
	if (err)
		return err;
	sfu__commit(c, ra, sp, c->regs.fp, c->fp_ok, sp, SFU_HOW_NULL_CALL, false);
	return SFU_OK;
}

/* Exception vector code has no SFrame info; the port knows the trap frame
 * there.  Out of line: its register block stays off the common path's
 * stack. */
static SFU__NOINLINE int sfu__from_trap(sfu_cursor *c)
{
	sfu_regs t;
	int kind;
	/* Fields a callback may not know about start cleared. */
	t.pc = t.sp = t.fp = t.ra = 0;
	t.dwarf = NULL;
	t.ndwarf = 0;
	t.dwarf_map = NULL;
	kind = c->port->trap(c->port->ctx, c->regs.pc, c->regs.sp, &t);
	if (kind == SFU_TRAP_NONE)
		return SFU_E_NOINFO;
	if (kind == SFU_TRAP_UNREADABLE)
		return SFU_E_READ;
	if (kind == SFU_TRAP_USER) {
		/* The interrupted code ran at a lower privilege level: its PC
		 * and SP are worth showing, but its stack is not the kernel's
		 * to read, so it is the last frame and bounds do not apply. */
		c->user = 1;
	} else {
		/* The interrupted SP need not be aligned (an interrupt can land
		 * anywhere) and may be on another stack than the handler's
		 * (aarch64 SP_EL1 vs SP_EL0, x86_64 IST), so the direction check
		 * does not apply across a trap; the port recognised the trap
		 * return point, and the depth cap still bounds a walk that comes
		 * back here.  Zero is no stack. */
		if (t.sp == 0)
			return SFU_E_WRONG_WAY;
		if (!sfu__pick_stack(c, t.sp))
			return SFU_E_STACK_BOUNDS;
	}
	sfu__commit(c, t.pc, t.sp, t.fp, true, t.sp, SFU_HOW_TRAP, true);
	c->regs.ra = t.ra;
	c->regs.dwarf = t.dwarf;
	c->regs.ndwarf = t.ndwarf;
	c->regs.dwarf_map = t.dwarf_map;
	c->full = 1;
	return SFU_OK;
}

#if SFU_FP_FALLBACK
/* Frame record where a PC has no SFrame info: amd64 [rbp] = saved rbp,
 * [rbp+8] = RA; aarch64 [x29] = saved x29, [x29+8] = x30.  (s390x has
 * none.) */
static SFU__NOINLINE int sfu__from_fp(sfu_cursor *c)
{
	uint64_t fp, ra, cfa = c->regs.fp + 16u;
	int err = sfu__check_sp(c, cfa, cfa, sfu__align(c->abi));
	if (err)
		return err;
	err = sfu__read(c, c->regs.fp, &fp);
	if (!err)
		err = sfu__read(c, c->regs.fp + 8u, &ra);
	if (err)
		return err;
	if (ra == 0)
		return SFU_END;
	sfu__commit(c, ra, cfa, fp, true, cfa, SFU_HOW_FP, false);
	return SFU_OK;
}
#endif

/* The scratch row of sfu__lookup where speed is asked for: a lookup that
 * fails leaves it, and it is copied all the same.  Zeroed field by field
 * (an initializer may become a call to memset, at -O0), only on the way
 * to a search (a cache hit or a row index does not touch it). */
SFU__INLINE void sfu__row_clear(sfu__compact_row *t)
{
#ifdef __OPTIMIZE_SIZE__
	(void)t; /* t is the step's own row */
#else
	t->u.off.cfa = t->u.off.ra = t->u.off.fp = 0;
	t->flags = 0;
#endif
}

/* *r = *t, field by field (a struct assignment may become memcpy). */
SFU__INLINE void sfu__row_set(sfu__compact_row *r, const sfu__compact_row *t)
{
	r->u.off.cfa = t->u.off.cfa;
	r->u.off.ra = t->u.off.ra;
	r->u.off.fp = t->u.off.fp;
	r->flags = t->flags;
}

/* The row for lookup PC pc: from the speed part if it answers (the hook:
 * the cache, or the first section's row index, in line), else by the
 * search of the sections.  (Where speed is asked for, the out-of-line
 * calls fill the scratch row t, so that *r, the step's, can stay in
 * registers; where size is, they fill *r: less stack.) */
SFU__INLINE int sfu__lookup(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r)
{
#ifdef __OPTIMIZE_SIZE__
	sfu__compact_row *t = r;
#else
	sfu__compact_row tt, *t = &tt;
#endif
	int err;
#if SFU_INDEX || SFU_CACHE
	/* Hook: the speed part (part 2). */
	err = sfu__fast_row(c, cache, pc, r, t);
	if (err != SFU__SEARCH)
		return err;
#else
	(void)cache;
#endif
	sfu__row_clear(t);
	err = sfu__lookup_row(c->secs, c->nsecs, pc, t);
	sfu__row_set(r, t);
	return err;
}

/* One step, in the caller's cursor (sfu_cursor_step, and the walk's loop
 * below): its frame holds the row and what the step needs across calls,
 * nothing more; the walk's cursor is its caller's.  Where speed is asked
 * for, the walk's loop has its own copy (no call per frame). */
SFU__HOT int sfu__step(sfu_cursor *c, void *cache)
{
	sfu__compact_row r;
	uint64_t lpc;
	int err;

	if (c->user)
		return SFU_END_USER;
	/* One test for the first frame and the depth cap: depth - 1 wraps at
	 * the first frame (SFU_DEPTH_CAP - 2 wraps if the cap is 1). */
	if (SFU__UNLIKELY(c->depth - 1u >= SFU_DEPTH_CAP - 2u)) {
		if (c->depth + 1u >= SFU_DEPTH_CAP)
			return SFU_E_DEPTH;
		/* Every later frame's SP was checked when the walk got there;
		 * this catches a first frame on none of the port's stacks. */
		if (c->depth == 0 && !sfu__on_stack(c, c->regs.sp))
			return SFU_E_STACK_BOUNDS;
	}
	if (c->regs.pc == 0) {
		/* PC 0 with all registers known (first frame, trap frame) is a
		 * call through a null function pointer: the caller's return
		 * address is where the call left it.  Elsewhere, PC 0 ends the
		 * stack. */
		if (!c->full)
			return SFU_END;
		return sfu__from_null_call(c);
	}
	/* A return address may be the first byte of the next function (after a
	 * call to a noreturn function): look the caller up at ra - 1.  The
	 * first frame and interrupted frames have an exact PC. */
	lpc = c->regs.pc - 1u + (c->exact != 0);
	err = sfu__lookup(c, cache, lpc, &r);
	if (err == SFU_E_NOINFO) {
		/* The vector code's call into its handler is reached as a
		 * return address; an exact PC there is code the vector
		 * interrupted. */
		if (c->port->trap && !c->exact) {
			err = sfu__from_trap(c);
			if (err != SFU_E_NOINFO)
				return err;
		}
#if SFU_FP_FALLBACK
		if (c->abi != 0 && !SFU__S390X(c->abi) && c->regs.fp != 0 && c->fp_ok)
			return sfu__from_fp(c);
#endif
	}
	if (err)
		return err;
#if SFU__GENERAL_STEP
	if (r.flags & SFU__CROW_GENERAL)
		return sfu__from_general(c, SFU__GENERAL_ROW(r));
#endif
	return sfu__from_row(c, &r);
}

SFU__FN int sfu_cursor_step(sfu_cursor *c)
{
	if (!c || !c->port)
		return SFU_E_ARG;
#if SFU_CACHE
	return sfu__step(c, c->cache);
#else
	return sfu__step(c, NULL);
#endif
}

/* The frame the cursor is at, as the walk reports it.  The cursor's fields
 * are read before the first store (a byte store may alias them). */
SFU__INLINE void sfu__record(const sfu_cursor *c, sfu_frame *f)
{
	uint64_t pc = c->regs.pc, sp = c->regs.sp, cfa = c->cfa;
	uint8_t how = c->how, flags = c->exact; /* SFU_FRAME_EXACT (0 or 1); SFU_FRAME_USER: sfu__walk */
	f->pc = pc;
	f->sp = sp;
	f->cfa = cfa;
	f->how = how;
	f->flags = flags;
}

/* The walk of sfu_backtrace and sfu_backtrace_cached (in line in each):
 * the cursor is in the public function's own frame, and each frame is
 * recorded before the step that leaves it. */
SFU__INLINE int sfu__walk(const sfu_section *secs, size_t nsecs, void *cache, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	sfu_cursor c;
	sfu_frame *f, *end;
	int err;
	if (!n || (!frames && max))
		return SFU_E_ARG;
	*n = 0;
	err = sfu_cursor_init(&c, secs, nsecs, port, regs);
	if (err)
		return err;
	if (max == 0)
		return SFU_E_FULL;
	/* Each frame recorded when the step has reached it, before the next
	 * step (whose result says whether the trace is complete).  Where speed
	 * is asked for, the loop starts at the step, the first frame's record
	 * before it (the shapes block). */
	f = frames;
	end = frames + max;
#ifdef __OPTIMIZE_SIZE__
	goto record;
#else
	sfu__record(&c, f++);
#endif
	for (;;) {
		err = sfu__step(&c, cache);
		if (err)
			break;
		if (f == end) {
			err = SFU_E_FULL;
			break;
		}
#ifdef __OPTIMIZE_SIZE__
	record:
#endif
		sfu__record(&c, f++);
	}
	/* A frame that ran at a lower privilege level is the last: the step
	 * says so, and only then (c.user). */
	if (err == SFU_END_USER)
		f[-1].flags |= SFU_FRAME_USER;
	*n = (size_t)(f - frames); /* once, at the end: the walk returns only here */
	return err;
}

SFU__FN int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	return sfu__walk(secs, nsecs, NULL, port, regs, frames, max, n);
}

#if SFU_CACHE
SFU__FN int sfu_backtrace_cached(const sfu_section *secs, size_t nsecs, sfu_cache *cache,
                                 const sfu_port *port, const sfu_regs *regs, sfu_frame *frames,
                                 size_t max, size_t *n)
{
	return sfu__walk(secs, nsecs, cache, port, regs, frames, max, n);
}
#endif

#if SFU_ERROR_STRINGS
SFU__FN const char *sfu_strerror(int err)
{
	switch (err) {
#define SFU__STR(name, value, text) \
	case name:                      \
		return text;
		SFU_ERRORS(SFU__STR)
#undef SFU__STR
	default:
		return "?";
	}
}

SFU__FN const char *sfu_errname(int err)
{
	switch (err) {
#define SFU__NAME(name, value, text) \
	case name:                       \
		return #name;
		SFU_ERRORS(SFU__NAME)
#undef SFU__NAME
	default:
		return "?";
	}
}
#endif

/* ======================================================================== *
 * PART 2: the speed machinery (SFU_INDEX, SFU_CACHE)
 *
 * Everything above is the panic path, whole.  What follows only makes it
 * faster: an index per section built once at boot in caller memory (FDE
 * index: the FDEs to search per block of code; row index: every row
 * compiled), and the row cache of repeated walks.  It plugs into the
 * lookup through the hooks declared before it ("the speed part's hooks"),
 * and answers exactly what the search would (the unit tests and the
 * fuzzers' cross-checks compare every PC both ways).
 * ======================================================================== */
#if SFU_INDEX || SFU_CACHE

/* The head of an index, at the start of the caller's memory; then
 * (SFU_INDEX_ROWS) entries[last + 1], then blocks[nblocks + 1], where
 * nblocks, the blocks of 2^shift bytes covering the span, is what span and
 * shift say (sfu__ix_nblocks): every offset below span is in a block of
 * the table, whatever the memory holds.  Block b holds the code offsets
 * [b << shift, (b + 1) << shift) from base.
 * SFU_INDEX_FDES: blocks[b] is the number of FDEs starting at or before
 * the block's first byte, so the FDE covering a PC in block b is among
 * blocks[b] - 1 .. blocks[b + 1] - 1.  SFU_INDEX_ROWS: entry i holds the
 * row for offsets [entries[i].start, entries[i + 1].start) (the last one
 * up to the end), and blocks[b] is the entry holding the block's first
 * byte. */
struct sfu_index {
	uint64_t base; /* lowest function start */
	uint32_t span; /* bytes of code from base that the FDEs cover */
	uint32_t last; /* SFU_INDEX_ROWS: entries - 1 (there is always one: the
	                * end of the code); else 0 */
	uint8_t kind, shift;
};

SFU__INLINE uint32_t sfu__ix_nblocks(uint32_t span, unsigned shift)
{
	return span ? (uint32_t)(((uint64_t)span - 1u) >> shift) + 1u : 0u;
}

/* An entry of a row index: where its row starts, the row (12 bytes, so
 * that the scan of a block reads its starts and then its row from one
 * place). */
struct sfu__ix_entry {
	uint32_t start;
	sfu__packed_row row;
};

/* A packed row that is no row: the lookup finds nothing here (NOINFO), or
 * must ask the section (SLOW: PC-mask FDEs, rows that do not pack). */
#define SFU__P_SPECIAL (SFU__CROW_RA_SAVED | SFU__CROW_RA_UNDEF)
#define SFU__P_NOINFO 0
#define SFU__P_SLOW 1

SFU__INLINE void sfu__unpack(const sfu__packed_row *p, sfu__compact_row *r)
{
	r->u.off.cfa = sfu__s32(p->cfa & ~0xffu) / 256; /* (exact: an arithmetic shift) */
	r->flags = p->cfa & 0xffu;
	r->u.off.ra = p->ra_off;
	r->u.off.fp = p->fp_off;
}

/* Pack r; false if it does not fit. */
static bool sfu__pack(const sfu__compact_row *r, sfu__packed_row *p)
{
	if ((r->flags & ~0xffu) || r->u.off.cfa < -0x800000 || r->u.off.cfa > 0x7fffff || r->u.off.ra < -0x8000 ||
	    r->u.off.ra > 0x7fff || r->u.off.fp < -0x8000 || r->u.off.fp > 0x7fff)
		return false;
	p->cfa = (uint32_t)r->u.off.cfa << 8 | r->flags;
	p->ra_off = (int16_t)r->u.off.ra;
	p->fp_off = (int16_t)r->u.off.fp;
	return true;
}

#endif /* SFU_INDEX || SFU_CACHE */

#if SFU_INDEX
SFU__INLINE const struct sfu__ix_entry *sfu__ix_entries(const struct sfu_index *ix)
{
	return (const struct sfu__ix_entry *)(const void *)(ix + 1);
}

/* The blocks: after the entries of a row index, after the head of an FDE
 * index. */
SFU__INLINE const uint32_t *sfu__ix_blocks(const struct sfu_index *ix, bool rows)
{
	return (const uint32_t *)(const void *)(rows ? sfu__ix_entries(ix) + ((uint64_t)ix->last + 1u) : sfu__ix_entries(ix));
}

/* An index (built only for FDEs in address order without overlap, where
 * the first FDE covering pc is the last starting at or before it) narrows
 * the search to the FDEs of pc's block, and makes it a binary search
 * whatever the flag says: [*lo, *hi), or SFU_E_NOINFO outside its code. */
SFU__INLINE int sfu__index_fdes(const sfu_section *s, uint64_t pc, uint32_t *lo, uint32_t *hi)
{
	const struct sfu_index *ix = s->index;
	const uint32_t *blk = sfu__ix_blocks(ix, false);
	uint64_t off = pc - ix->base;
	uint32_t b;
	if (off >= ix->span)
		return SFU_E_NOINFO;
	b = (uint32_t)(off >> ix->shift); /* (below nblocks: off < span) */
	if (ix->kind == SFU_INDEX_FDES) {
		*hi = blk[b + 1u] < *hi ? blk[b + 1u] : *hi;
		*lo = blk[b] < *hi ? blk[b] : *hi;
	}
	return SFU_OK;
}

/* The row for pc from a row index: SFU_OK, SFU_E_NOINFO, or SFU__SEARCH
 * (an FDE index, or an entry that sends the lookup to the section). */
SFU__INLINE int sfu__index_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
	const struct sfu_index *ix = s->index;
	const struct sfu__ix_entry *e, *end;
	const uint32_t *blk = sfu__ix_blocks(ix, true);
	const sfu__packed_row *p;
	uint64_t off = pc - ix->base;
	uint32_t i, j, b;
	if (ix->kind != SFU_INDEX_ROWS)
		return SFU__SEARCH;
	if (off >= ix->span)
		return SFU_E_NOINFO;
	b = (uint32_t)(off >> ix->shift); /* (below nblocks: off < span) */
	/* The entry holding off lies between the entries holding its block's
	 * first byte and the next block's (clamped: the table is not
	 * trusted). */
	j = blk[b + 1u] < ix->last ? blk[b + 1u] : ix->last;
	i = blk[b] < j ? blk[b] : j;
	e = &sfu__ix_entries(ix)[i];
	end = &sfu__ix_entries(ix)[j];
	while (e < end && e[1].start <= off)
		e++;
	p = &e->row;
	if ((p->cfa & 0xffu) != SFU__P_SPECIAL) {
		sfu__unpack(p, r);
		return SFU_OK;
	}
	if (p->ra_off == SFU__P_NOINFO)
		return SFU_E_NOINFO;
	return SFU__SEARCH; /* SLOW: ask the section */
}

/* The code an index covers: [*base, *base + *span).  Only for a section
 * that validates (no FDE wraps around the address space), with FDEs in
 * address order, none overlapping (then the FDE covering a PC is the last
 * one starting at or before it, for the binary search and the linear one
 * alike), and under 4 GiB of code. */
static int sfu__index_span(const sfu_section *s, uint64_t *base, uint32_t *span)
{
	uint64_t end = 0;
	uint32_t i;
	sfu_fde f;
	int err = sfu__validate(s, NULL);
	if (err)
		return err;
	*base = 0;
	for (i = 0; i < s->num_fdes; i++) {
		(void)sfu__fde_get(s, i, &f); /* validated */
		if (i && f.start < end)
			return SFU_E_NOINDEX;
		if (i == 0)
			*base = f.start;
		end = f.start + f.size;
	}
	if (end - *base > 0xffffffffu)
		return SFU_E_NOINDEX;
	*span = (uint32_t)(end - *base);
	return SFU_OK;
}

/* The entries of a row index, in offset order (e.ents NULL: only count). */
struct sfu__emit {
	struct sfu__ix_entry *ents;
	uint32_t n, last_off;
	sfu__packed_row last;
};

static void sfu__emit(struct sfu__emit *e, uint32_t off, const sfu__packed_row *p)
{
	if (e->n && e->last_off == off)
		e->n--; /* a later FRE at the same offset replaces the row */
	else if (e->n && e->last.cfa == p->cfa && e->last.ra_off == p->ra_off && e->last.fp_off == p->fp_off)
		return; /* the same row goes on */
	if (e->ents) {
		e->ents[e->n].start = off;
		e->ents[e->n].row.cfa = p->cfa;
		e->ents[e->n].row.ra_off = p->ra_off;
		e->ents[e->n].row.fp_off = p->fp_off;
	}
	e->last.cfa = p->cfa;
	e->last.ra_off = p->ra_off;
	e->last.fp_off = p->fp_off;
	e->last_off = off;
	e->n++;
}

SFU__INLINE void sfu__special(sfu__packed_row *p, int16_t what)
{
	p->cfa = SFU__P_SPECIAL;
	p->ra_off = what;
	p->fp_off = 0;
}

/* Every row of a validated, indexable section, as entries: gaps between
 * functions and PCs before a function's first FRE find nothing; PC-mask
 * FDEs and rows that do not pack send the lookup to the section. */
static void sfu__compile(const sfu_section *s, uint64_t base, struct sfu__emit *e)
{
	sfu__packed_row noinfo, slow, p;
	uint64_t prev_end = base;
	uint32_t i, k, off;
	sfu_fde f;
	sfu_fre fre;
	sfu__compact_row r;

	sfu__special(&noinfo, SFU__P_NOINFO);
	sfu__special(&slow, SFU__P_SLOW);
	e->n = 0;
	for (i = 0; i < s->num_fdes; i++) {
		(void)sfu__fde_get(s, i, &f); /* validated */
		if (f.size == 0)
			continue; /* covers nothing */
		if (f.start > prev_end)
			sfu__emit(e, (uint32_t)(prev_end - base), &noinfo);
		prev_end = f.start + f.size;
		off = (uint32_t)(f.start - base);
		if (f.pctype == SFU_FDE_PCTYPE_MASK) {
			sfu__emit(e, off, &slow);
			continue;
		}
		if (f.num_fres == 0) {
			if ((SFU__LAY(s)->rules & SFU__LAYOUT_EMPTY_OUTERMOST) && sfu__crow_fre(s, SFU__LAY(s), &f, NULL, SFU__BIG(s), &r) == SFU_OK &&
			    sfu__pack(&r, &p))
				sfu__emit(e, off, &p);
			else
				sfu__emit(e, off, &noinfo);
			continue;
		}
		/* Before the first FRE: nothing (replaced by an FRE at 0). */
		sfu__emit(e, off, &noinfo);
		for (k = 0; k < f.num_fres; k++) {
			if (sfu__fre_get(s, &f, f.fre_off, &fre) != SFU_OK) {
				/* (validated: never) From the last entry on, the
				 * lookup asks the section, which says why. */
				sfu__emit(e, e->last_off, &slow);
				break;
			}
			f.fre_off = fre.next;
			if (fre.start >= f.size)
				break; /* covers nothing, nor do those after it */
			if (sfu__crow_fre(s, SFU__LAY(s), &f, &fre, SFU__BIG(s), &r) == SFU_OK && sfu__pack(&r, &p))
				sfu__emit(e, off + fre.start, &p);
			else
				sfu__emit(e, off + fre.start, &slow);
		}
	}
	sfu__emit(e, (uint32_t)(prev_end - base), &noinfo);
}

/* Size (and, with ix, contents) of an index of s. */
static int sfu__index(const sfu_section *s, unsigned kind, struct sfu_index *ix, size_t *bytes)
{
	struct sfu__emit e;
	uint64_t base;
	uint32_t span, n = 0, nb, target, shift, b, j;
	uint32_t *blk;
	int err;

	if (kind != SFU_INDEX_FDES && kind != SFU_INDEX_ROWS)
		return SFU_E_ARG;
	err = sfu__index_span(s, &base, &span);
	if (err)
		return err;
	e.ents = NULL;
	if (kind == SFU_INDEX_ROWS) {
		sfu__compile(s, base, &e);
		n = e.n;
	}
	/* About one FDE, or two entries, a block: a lookup takes a probe or
	 * two of the search, or a step or two of the scan. */
	target = kind == SFU_INDEX_ROWS ? n / 2u : s->num_fdes;
	if (target == 0)
		target = 1;
	for (shift = 0; shift < 32u && span && (((uint64_t)span - 1u) >> shift) + 1u > target; shift++)
		;
	nb = sfu__ix_nblocks(span, shift);
	*bytes = sizeof *ix + (size_t)n * sizeof(struct sfu__ix_entry) + ((size_t)nb + 1u) * 4u;
	if (!ix)
		return SFU_OK;
	ix->base = base;
	ix->span = span;
	ix->last = n ? n - 1u : 0u;
	ix->kind = (uint8_t)kind;
	ix->shift = (uint8_t)shift;
	e.ents = (struct sfu__ix_entry *)(void *)(ix + 1);
	blk = (uint32_t *)(void *)(e.ents + n);
	if (kind == SFU_INDEX_ROWS) {
		sfu__compile(s, base, &e);
		SFU_ASSERT(e.n == n);
		for (b = 0, j = 0; b <= nb; b++) {
			uint64_t boff = (uint64_t)b << shift;
			while (j + 1u < n && e.ents[j + 1u].start <= boff)
				j++;
			blk[b] = j;
		}
	} else {
		uint64_t pcrel = sfu__pcrel_mask(s);
		for (b = 0, j = 0; b <= nb; b++) {
			uint64_t boff = (uint64_t)b << shift;
			if (boff >= span) {
				j = s->num_fdes;
			} else {
				while (j < s->num_fdes &&
				       sfu__start_at(s, sfu__fde_rec(s, SFU__LAY(s), j), SFU__LAY(s)->start_size, pcrel, SFU__BIG(s)) - base <= boff)
					j++;
			}
			blk[b] = j;
		}
	}
	return SFU_OK;
}

SFU__FN int sfu_index_size(const sfu_section *sec, unsigned kind, size_t *bytes)
{
	if (!sec || !bytes)
		return SFU_E_ARG;
	return sfu__index(sec, kind, NULL, bytes);
}

SFU__FN int sfu_index_build(sfu_section *sec, unsigned kind, void *mem, size_t bytes)
{
	size_t need;
	int err;
	if (!sec)
		return SFU_E_ARG;
	sec->index = NULL;
	if (kind == SFU_INDEX_NONE)
		return SFU_OK;
	if (!mem || ((uintptr_t)mem & 7u))
		return SFU_E_ARG;
	err = sfu__index(sec, kind, NULL, &need);
	if (!err && bytes < need)
		err = SFU_E_ARG;
	if (!err)
		err = sfu__index(sec, kind, (struct sfu_index *)mem, &need);
	if (!err)
		sec->index = (const struct sfu_index *)mem;
	return err;
}
#endif /* SFU_INDEX */

#if SFU_CACHE
/* The set of two slots for key (lookup PC + 1; 0 marks an empty slot):
 * slot (hash >> 40) & (mask - 1) of a multiplicative hash, computed as
 * its byte offset (set_off: (mask - 1) * 16, of the 24 bits the hash
 * gives). */
SFU__INLINE sfu_cache_entry *sfu__cache_set(const sfu_cache *cache, uint64_t key)
{
	uint32_t off = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (40 - 4)) & cache->set_off;
	return (sfu_cache_entry *)(void *)((uint8_t *)cache->slots + off);
}

SFU__INLINE bool sfu__cache_hit(sfu_cache *cache, const sfu_cache_entry *s, uint64_t key, sfu__compact_row *r)
{
	if (s[0].key != key) {
		if (s[1].key != key)
			return false;
		s++;
	}
	cache->hits++;
	sfu__unpack(&s->row, r);
	return true;
}

SFU__FN int sfu_cache_init(sfu_cache *cache, sfu_cache_entry *slots, size_t n)
{
	size_t i, p = 2;
	if (!cache || !slots || n < 2)
		return SFU_E_ARG;
	while (p <= n / 2u && p < 0x80000000u)
		p *= 2u;
	cache->slots = slots;
	cache->mask = (uint32_t)(p - 1u);
	cache->set_off = ((cache->mask - 1u) & 0xffffffu) << 4; /* 16 bytes a slot */
	cache->hits = cache->misses = 0;
	for (i = 0; i < p; i++)
		slots[i].key = 0;
	return SFU_OK;
}

/* A miss: the lookup, and the row, if it packs, into the set's first
 * slot, the row there moving to the second (the older of the two goes):
 * two PCs of one walk that share a set both stay. */
static SFU__NOINLINE int sfu__cache_miss(const sfu_cursor *c, sfu_cache *cache, sfu_cache_entry *s, uint64_t key,
                                        sfu__compact_row *r)
{
	int err;
	cache->misses++;
	err = sfu__lookup_row(c->secs, c->nsecs, key - 1u, r);
	/* Packed straight into the older slot, which then trades places with
	 * the newer (no packed row on this frame: it is on the walk's deepest
	 * path). */
	if (err == SFU_OK && sfu__pack(r, &s[1].row)) {
		uint64_t k = s[0].key;
		uint32_t cfa = s[0].row.cfa;
		int16_t ra_off = s[0].row.ra_off, fp_off = s[0].row.fp_off;
		s[0].key = key;
		s[0].row.cfa = s[1].row.cfa;
		s[0].row.ra_off = s[1].row.ra_off;
		s[0].row.fp_off = s[1].row.fp_off;
		s[1].key = k;
		s[1].row.cfa = cfa;
		s[1].row.ra_off = ra_off;
		s[1].row.fp_off = fp_off;
	}
	return err;
}
#endif /* SFU_CACHE */

#if SFU_INDEX || SFU_CACHE
/* The hook of the walk's lookup (sfu__lookup): the row for lookup PC pc
 * through the cache (sets of two slots keyed by pc + 1, 0 meaning empty;
 * a miss searches into the scratch row t and fills the set; lookup PC
 * UINT64_MAX, whose key is that mark, goes to the search), or, without a
 * cache, from the first section's row index when it has the row (any
 * other answer leaves it to the search, which asks that index again and
 * goes on to the next sections: the same row, the same errors).
 * SFU__SEARCH: no answer here. */
SFU__INLINE int sfu__fast_row(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r, sfu__compact_row *t)
{
#if SFU_CACHE
	uint64_t key = pc + 1u;
	if (cache) {
		sfu_cache_entry *s = sfu__cache_set((sfu_cache *)cache, key);
		int err;
		if (key == 0)
			return SFU__SEARCH; /* (the "empty" mark) */
		if (SFU__LIKELY(sfu__cache_hit((sfu_cache *)cache, s, key, r)))
			return SFU_OK;
		sfu__row_clear(t);
		err = sfu__cache_miss(c, (sfu_cache *)cache, s, key, t);
		sfu__row_set(r, t);
		return err;
	}
#endif
#if SFU_INDEX
	if (c->nsecs && c->secs->index && sfu__index_row(c->secs, pc, r) == SFU_OK)
		return SFU_OK;
#endif
#if !SFU_CACHE
	(void)cache;
#endif
	(void)t;
	return SFU__SEARCH;
}
#endif

SFU_CODEGEN_END
#endif /* SFU_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
