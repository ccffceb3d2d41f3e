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
 *     __sframe_start and __sframe_end, loaded at the address they run at;
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
 *       sfu_section sec;
 *       sfu_port port = { my_read, NULL, NULL, NULL, stack_lo, stack_hi };
 *       sfu_regs regs = { pc, sp, fp, lr, NULL, 0 };
 *       sfu_frame frames[32];
 *       size_t n;
 *       sfu_section_init(&sec, __sframe_start,
 *                        (size_t)(__sframe_end - __sframe_start),
 *                        (uint64_t)(uintptr_t)__sframe_start);
 *       int why = sfu_backtrace(&sec, 1, &port, &regs, frames, 32, &n);
 *       // frames[0..n) are the PCs; why says why the walk stopped.
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
 *   SFU_READ(ctx, addr, out) a port read the compiler can inline, used
 *                            instead of sfu_port.read           (default none)
 *   SFU_ASSERT(x)            internal consistency hook         (default none)
 *   SFU_SAFE_CODEGEN         build the core for any CPU state: general
 *                            registers only, no unaligned access, whatever
 *                            the translation unit's flags      (default 1)
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
 * ERRORS
 *   Functions return an int code from SFU_ERRORS below: 0 is success, the
 *   rest say what went wrong or why a walk stopped.  "No unwind info for this
 *   PC" (SFU_E_NOINFO), a corrupt section (SFU_E_* of the section) and "the
 *   port refused a read" (SFU_E_READ) are always distinct.  Nothing aborts,
 *   nothing prints.
 */
#ifndef SFU_H
#define SFU_H

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
#ifndef SFU_ASSERT
#define SFU_ASSERT(x) ((void)0)
#endif
#ifndef SFU_SAFE_CODEGEN
#define SFU_SAFE_CODEGEN 1
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
#if SFU_ERROR_STRINGS != 0 && SFU_ERROR_STRINGS != 1
#error "SFU_ERROR_STRINGS must be 0 or 1"
#endif
#if SFU_DEPTH_CAP < 1 || SFU_DEPTH_CAP > 65535
#error "SFU_DEPTH_CAP must be between 1 and 65535"
#endif
#if SFU_SAFE_CODEGEN != 0 && SFU_SAFE_CODEGEN != 1
#error "SFU_SAFE_CODEGEN must be 0 or 1"
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
	X(SFU_E_NOINFO, 23, "no unwind info for this PC")                         \
	X(SFU_E_READ, 24, "memory read refused")                                  \
	X(SFU_E_WRONG_WAY, 25, "stack went the wrong way")                        \
	X(SFU_E_STACK_BOUNDS, 26, "stack pointer outside the stack")              \
	X(SFU_E_ALIGN, 27, "misaligned stack or frame address")                   \
	X(SFU_E_DEPTH, 28, "depth limit reached")                                 \
	X(SFU_E_UNSAFE, 29, "rule needs registers unknown in this frame")         \
	X(SFU_E_FULL, 30, "output buffer full")                                   \
	X(SFU_END, 31, "outermost frame reached")                                 \
	X(SFU_END_USER, 32, "interrupted code ran at a lower privilege level")

enum sfu_error {
#define SFU__ENUM(name, value, text) name = value,
	SFU_ERRORS(SFU__ENUM)
#undef SFU__ENUM
	SFU_ERROR_COUNT
};

/* ---- types ---------------------------------------------------------------- */

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
	uint8_t fde_size; /* 17, 20 or 16 */
	uint8_t pcrel;    /* function starts are relative to their field */
	uint32_t end;     /* offset just past the FRE sub-section */
} sfu_section;

/* Options of sfu_section_init_opt. */
/* Function start offsets are relative to the FDE field even though the
 * section does not say so (no SFRAME_F_FDE_FUNC_START_PCREL).  True of
 * sections that no linker merged: relocatable objects and the per-object
 * sections lld concatenates, from assemblers before binutils 2.45 (V1 and
 * early V2), whose start field carries a PC-relative relocation.  GNU ld's
 * merged output is section-relative, as the flag says. */
#define SFU_OPT_START_PCREL 0x1u

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

/* The unwind row for one PC: how to get from this frame to its caller. */
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
 * 8-byte word at byte offset dwarf_map[i] from dwarf (negative: not saved),
 * which lets a trap frame in a kernel's own layout serve as it is.  They
 * are consulted only where the full register set is known (the first frame,
 * or a frame restored from an exception trap frame).  Initializers that
 * stop after ndwarf leave dwarf_map NULL. */
typedef struct sfu_regs {
	uint64_t pc, sp, fp, ra;
	const uint64_t *dwarf;
	uint32_t ndwarf;
	const int16_t *dwarf_map;
} sfu_regs;

/* One stack, [lo, hi] (hi: the highest address an SP may have, its base). */
typedef struct sfu_stack {
	uint64_t lo, hi;
} sfu_stack;

/* What sfu_port.trap answers. */
enum sfu_trap_result {
	SFU_TRAP_NONE = 0,   /* pc is not a call site of the exception vector code */
	SFU_TRAP_KERNEL = 1, /* *out is the interrupted context; the walk goes on */
	SFU_TRAP_USER = 2    /* *out is the interrupted context, which ran at a
	                      * lower privilege level (aarch64 EL0, x86_64 ring
	                      * 3): it is the last frame, the walk then ends
	                      * with SFU_END_USER */
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
	 * SFU_TRAP_USER, else SFU_TRAP_NONE.  Called only for return addresses
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

#if SFU_CACHE
/* A lookup cache the caller owns (no heap): rows by lookup PC, 2-way set
 * associative.  Valid for one array of sections; sfu_cache_init again when
 * the sections change (a module loads). */
typedef struct sfu_cache_entry {
	uint64_t key; /* lookup PC + 1; 0 = empty */
	sfu_row row;
} sfu_cache_entry;
typedef struct sfu_cache {
	sfu_cache_entry *slots;
	uint32_t mask; /* number of slots - 1 (a power of two, >= 2) */
	uint32_t hits, misses;
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
	uint8_t exact;   /* regs.pc is exact (first or interrupted frame), else a return address */
	uint8_t full;    /* regs.ra / regs.dwarf are valid for this frame */
	uint8_t how;     /* enum sfu_how of the current frame */
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

/* Check everything in the section: every FDE, every FRE, the sort order if
 * the section claims it and the FRE total.  O(size).  Returns SFU_OK or the
 * first error found; *bad_fde (may be NULL) gets the index of the FDE. */
SFU_DEF int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde);

/* Decode FDE number idx (0 <= idx < num_fdes). */
SFU_DEF int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *fde);

/* Decode the FRE at FRE sub-section offset `off` of function `fde`; the next
 * FRE is at fre->next. */
SFU_DEF int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre);

/* Data word i (< fre->count) of an FRE decoded by sfu_fre_get, sign-extended
 * from its stored width; 0 for i out of range. */
SFU_DEF int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i);

/* Turn an FRE of fde into recovery rules. */
SFU_DEF int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row);

/* Find the FDE covering pc: binary search when the section is sorted,
 * linear otherwise.  SFU_E_NOINFO if none. */
SFU_DEF int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx);

/* Find the row for pc in one section, or in an array of sections. */
SFU_DEF int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row);
SFU_DEF int sfu_find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row);

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
#endif

#ifdef __cplusplus
}
#endif

#endif /* SFU_H */

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_IMPLEMENTATION_DONE
#define SFU_IMPLEMENTATION_DONE

SFU_CODEGEN_BEGIN

/* ---- the one bounds-checked reader ---------------------------------------
 * Every section byte is read by the loads below, and only after the range
 * was checked against the end of the sub-section being read (never past the
 * section) with arithmetic that cannot overflow: sfu__in is that check.
 * Bytes are assembled in the section's byte order; compilers turn each
 * load into one (unaligned-safe) load instruction, byte-swapped for a
 * foreign order.  No casts over the buffer, so no alignment traps. */

/* The loads and the step's helpers are a few instructions each: inline
 * them.  (Letting -Os decide saves ~10 bytes and costs ~50 bytes of stack.) */
#if defined(__GNUC__) || defined(__clang__)
#define SFU__INLINE static inline __attribute__((always_inline))
#define SFU__NOINLINE __attribute__((noinline))
#else
#define SFU__INLINE static inline
#define SFU__NOINLINE
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

/* Version tests, folded when versions are compiled out. */
#define SFU__V3(s) (SFU_V3 && (!(SFU_V1 || SFU_V2) || (s)->version == SFU_VERSION_3))

SFU__INLINE uint32_t sfu__ld16(const sfu_section *s, uint32_t off)
{
	const uint8_t *p = s->data + off;
	return SFU__BIG(s) ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

SFU__INLINE uint32_t sfu__ld32(const sfu_section *s, uint32_t off)
{
	const uint8_t *p = s->data + off;
	if (SFU__BIG(s))
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

SFU__INLINE uint64_t sfu__ld64(const sfu_section *s, uint32_t off)
{
	uint64_t a = sfu__ld32(s, off), b = sfu__ld32(s, off + 4u);
	return SFU__BIG(s) ? a << 32 | b : b << 32 | a;
}

/* A 1-, 2- or 4-byte unsigned field. */
SFU__INLINE uint32_t sfu__ldn(const sfu_section *s, uint32_t off, uint32_t n)
{
	return n == 1 ? s->data[off] : n == 2 ? sfu__ld16(s, off) : sfu__ld32(s, off);
}

/* Two's-complement reinterpretation without implementation-defined
 * conversions (compilers emit a plain move). */
SFU__INLINE int32_t sfu__s32(uint32_t v)
{
	return v > (uint32_t)INT32_MAX ? -(int32_t)(~v) - 1 : (int32_t)v;
}

/* Sign-extend the low n (1, 2 or 4) bytes of v. */
static int32_t sfu__sext(uint32_t v, uint32_t n)
{
	uint32_t m = n >= 4 ? 0u : 1u << (8u * n - 1u);
	if (n < 4)
		v = (v & ((m << 1) - 1u)) ^ m, v -= m;
	return sfu__s32(v);
}

static bool sfu__version_ok(unsigned v)
{
	return (SFU_V1 && v == SFU_VERSION_1) || (SFU_V2 && v == SFU_VERSION_2) ||
	       (SFU_V3 && v == SFU_VERSION_3);
}

/* ---- section header (spec 2.1, 2.2) -------------------------------------- */

SFU__FN int sfu_section_init(sfu_section *sec, const void *data, size_t size, uint64_t addr)
{
	return sfu_section_init_opt(sec, data, size, addr, 0);
}

SFU__FN int sfu_section_init_opt(sfu_section *sec, const void *data, size_t size, uint64_t addr, unsigned opts)
{
	sfu_section *s = sec; /* filled in place: no struct copy (memcpy) */
	const uint8_t *p = (const uint8_t *)data;
	uint64_t fdeoff, freoff, hdr_end, fde_end, fre_end, nfdes, nfres, frelen;
	unsigned valid_flags;

	if (!sec || (!data && size))
		return SFU_E_ARG; /* on any error *sec is left partly filled: do not use it */
	if (size == 0)
		return SFU_E_EMPTY;
	if (size > 0xffffffffu)
		return SFU_E_ARG; /* the format's offsets are 32-bit */
	if (size < 4)
		return SFU_E_TRUNC_HDR;

	s->data = p;
	s->size = (uint32_t)size;
	s->addr = addr;
	if (opts & ~(unsigned)SFU_OPT_START_PCREL)
		return SFU_E_ARG;
	/* The magic decides the byte order (spec 2.1.1). */
	if (p[0] == 0xe2 && p[1] == 0xde && SFU_LITTLE)
		s->big = 0;
	else if (p[0] == 0xde && p[1] == 0xe2 && SFU_BIG)
		s->big = 1;
	else
		return SFU_E_MAGIC;

	s->version = p[SFU_HDR_VERSION];
	if (!sfu__version_ok(s->version))
		return SFU_E_VERSION;
	if (size < SFU_HDR_SIZE)
		return SFU_E_TRUNC_HDR;

	s->flags = p[SFU_HDR_FLAGS];
	if (s->version == SFU_VERSION_1)
		valid_flags = SFU_F_FDE_SORTED | SFU_F_FRAME_POINTER;
	else
		/* FRAME_POINTER is V1-V2 only, but it costs nothing to tolerate it
		 * in V3 and it changes nothing we compute. */
		valid_flags = SFU_F_FDE_SORTED | SFU_F_FRAME_POINTER | SFU_F_FDE_FUNC_START_PCREL;
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

	s->aux_len = p[SFU_HDR_AUXLEN];
	hdr_end = (uint64_t)SFU_HDR_SIZE + s->aux_len;
	if (hdr_end > size)
		return SFU_E_AUXHDR;

	nfdes = sfu__ld32(s, SFU_HDR_NUM_FDES);
	nfres = sfu__ld32(s, SFU_HDR_NUM_FRES);
	frelen = sfu__ld32(s, SFU_HDR_FRE_LEN);
	fdeoff = sfu__ld32(s, SFU_HDR_FDEOFF);
	freoff = sfu__ld32(s, SFU_HDR_FREOFF);
	s->fde_size = (uint8_t)(s->version == SFU_VERSION_1   ? SFU_V1_FDE_SIZE
	                       : s->version == SFU_VERSION_2 ? SFU_V2_FDE_SIZE
	                                                    : SFU_V3_FDE_SIZE);

	/* 64-bit sums of 32-bit values: no overflow. */
	fde_end = hdr_end + fdeoff + nfdes * s->fde_size;
	if (hdr_end + fdeoff > size || fde_end > size)
		return SFU_E_FDE_BOUNDS;
	fre_end = hdr_end + freoff + frelen;
	if (hdr_end + freoff > size || fre_end > size)
		return SFU_E_FRE_BOUNDS;
	/* The sub-sections tile the section (spec 2.2): they must not overlap. */
	if (nfdes && frelen && hdr_end + fdeoff < fre_end && hdr_end + freoff < fde_end)
		return SFU_E_LAYOUT;
	/* Each FRE takes at least 2 bytes (start offset + info), each V3 FDE
	 * adds a 5-byte attribute there. */
	if (nfres * 2u + (s->version == SFU_VERSION_3 ? nfdes * SFU_V3_ATTR_SIZE : 0u) > frelen)
		return SFU_E_FRE_COUNT;

	s->num_fdes = (uint32_t)nfdes;
	s->num_fres = (uint32_t)nfres;
	s->fre_len = (uint32_t)frelen;
	s->fde_base = (uint32_t)(hdr_end + fdeoff);
	s->fre_base = (uint32_t)(hdr_end + freoff);
	s->end = (uint32_t)(fre_end > fde_end ? fre_end : fde_end);
	s->pcrel = (uint8_t)((s->flags & SFU_F_FDE_FUNC_START_PCREL) || (opts & SFU_OPT_START_PCREL));
	return SFU_OK;
}

/* The span walk of sfu_section_split and sfu_section_count: with secs,
 * fills up to max sections; without, counts them (in tmp). */
static int sfu__split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size, uint64_t addr,
                      unsigned opts)
{
	const uint8_t *p = (const uint8_t *)data;
	size_t off = 0, k = 0;
	sfu_section tmp, *s;
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
		s = secs ? &secs[k] : &tmp;
		err = sfu_section_init_opt(s, p + off, size - off, addr + off, opts);
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
	return sfu__split(secs, max, n, data, size, addr, opts);
}

SFU__FN int sfu_section_count(size_t *n, const void *data, size_t size, uint64_t addr, unsigned opts)
{
	if (!n || (!data && size))
		return SFU_E_ARG;
	return sfu__split(NULL, 0, n, data, size, addr, opts);
}

/* ---- FDEs (spec 2.3) ---------------------------------------------------------- */

static int sfu__fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *f)
{
	uint32_t off, field;
	uint64_t raw;

	off = sec->fde_base + idx * (uint32_t)sec->fde_size; /* bounded at init */
	f->info2 = 0;
	f->rep_size = 0;
	f->signal = 0;
	f->type = SFU_FDE_TYPE_DEFAULT;

	if (SFU__V3(sec)) {
		uint32_t fo = sfu__ld32(sec, off + SFU_V3_FDE_FREOFF), attr;
		raw = sfu__ld64(sec, off + SFU_V3_FDE_START);
		f->size = sfu__ld32(sec, off + SFU_V3_FDE_SIZE_F);
		/* The attribute sits at the FRE offset, inside the FRE sub-section. */
		if (!sfu__in(sec->fre_len, fo, SFU_V3_ATTR_SIZE))
			return SFU_E_FDE_FREOFF;
		attr = sec->fre_base + fo;
		f->num_fres = sfu__ld16(sec, attr + SFU_V3_ATTR_NFRES);
		f->info = sec->data[attr + SFU_V3_ATTR_INFO];
		f->info2 = sec->data[attr + SFU_V3_ATTR_INFO2];
		f->rep_size = sec->data[attr + SFU_V3_ATTR_REPSIZE];
		f->fre_off = fo + SFU_V3_ATTR_SIZE;
		f->signal = (uint8_t)SFU_FDE_INFO_SIGNAL(f->info);
		/* Unknown types, and FLEX when compiled out, are refused, never
		 * read as something else. */
		if (SFU_FDE_INFO2_TYPE(f->info2) > (SFU_FLEX ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT) ||
		    (f->info2 & 0xe0u))
			return SFU_E_FDE_TYPE;
		f->type = (uint8_t)SFU_FDE_INFO2_TYPE(f->info2);
		field = off + SFU_V3_FDE_START;
	} else {
		raw = (uint64_t)(int64_t)sfu__s32(sfu__ld32(sec, off + SFU_V12_FDE_START));
		f->size = sfu__ld32(sec, off + SFU_V12_FDE_SIZE_F);
		f->fre_off = sfu__ld32(sec, off + SFU_V12_FDE_FREOFF);
		f->num_fres = sfu__ld32(sec, off + SFU_V12_FDE_NFRES);
		f->info = sec->data[off + SFU_V12_FDE_INFO];
		if (sec->version == SFU_VERSION_2)
			f->rep_size = sec->data[off + SFU_V2_FDE_REPSIZE];
		if (f->fre_off > sec->fre_len)
			return SFU_E_FDE_FREOFF;
		field = off + SFU_V12_FDE_START;
	}

	/* Function start: from the section start, or (PCREL) from the field
	 * itself (spec 2.3.1, V2 erratum 1).  Address arithmetic wraps modulo
	 * 2^64 like the target's. */
	f->start = sec->addr + raw + (sec->pcrel ? field : 0u);
	f->fre_type = (uint8_t)SFU_FDE_INFO_FRE_TYPE(f->info);
	f->pctype = (uint8_t)SFU_FDE_INFO_PCTYPE(f->info);
	f->pauth_key = (uint8_t)SFU_FDE_INFO_PAUTH_KEY(f->info);
	if (f->fre_type > SFU_FRE_TYPE_ADDR4)
		return SFU_E_FRE_TYPE;
	if (f->pctype == SFU_FDE_PCTYPE_MASK && sec->version != SFU_VERSION_1 && f->rep_size == 0)
		return SFU_E_REP_SIZE;
	/* Each FRE needs at least 2 bytes; a count that cannot fit is corrupt
	 * (fre_off <= fre_len was checked above). */
	if ((uint64_t)f->num_fres * 2u > (uint64_t)(sec->fre_len - f->fre_off))
		return SFU_E_FRE_COUNT;
	return SFU_OK;
}

SFU__FN int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *f)
{
	if (!sec || !f || idx >= sec->num_fdes)
		return SFU_E_ARG;
	return sfu__fde_get(sec, idx, f);
}

/* ---- FREs (spec 2.4) ---------------------------------------------------------- */

/* Bytes per data word by the info byte's size field; 0 = invalid. */
static const uint8_t sfu__wsize[4] = { 1, 2, 4, 0 };

static uint32_t sfu__addr_bytes(unsigned fre_type)
{
	return fre_type == SFU_FRE_TYPE_ADDR1 ? 1u : fre_type == SFU_FRE_TYPE_ADDR2 ? 2u : 4u;
}

static int sfu__fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	uint32_t end = sec->fre_base + sec->fre_len, pos, ab, ws;

	if (off > sec->fre_len)
		return SFU_E_FRE_TRUNC;
	pos = sec->fre_base + off;
	ab = sfu__addr_bytes(fde->fre_type);
	if (!sfu__in(end, pos, ab + 1u))
		return SFU_E_FRE_TRUNC;
	fre->start = sfu__ldn(sec, pos, ab);
	fre->info = sec->data[pos + ab];
	pos += ab + 1u;
	ws = sfu__wsize[SFU_FRE_INFO_WSIZE(fre->info)];
	if (!ws)
		return SFU_E_WORD_SIZE;
	fre->wsize = (uint8_t)ws;
	fre->count = (uint8_t)SFU_FRE_INFO_COUNT(fre->info);
	if (!sfu__in(end, pos, fre->count * ws))
		return SFU_E_FRE_TRUNC;
	fre->words = pos;
	fre->next = pos + fre->count * ws - sec->fre_base;
	return SFU_OK;
}

SFU__FN int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	if (!sec || !fde || !fre)
		return SFU_E_ARG;
	return sfu__fre_get(sec, fde, off, fre);
}

SFU__INLINE int32_t sfu__fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i)
{
	if (i >= fre->count)
		return 0;
	/* In bounds: sfu_fre_get checked words + count * wsize. */
	return sfu__sext(sfu__ldn(sec, fre->words + i * fre->wsize, fre->wsize), fre->wsize);
}

SFU__FN int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i)
{
	if (!sec || !fre)
		return 0;
	return sfu__fre_word(sec, fre, i);
}

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

/* One FLEX (control, offset) pair into a rule (spec 3.2).  The control word
 * is unsigned: undo the sign extension of its width. */
SFU__INLINE int sfu__flex_rule(unsigned abi, uint32_t wsize, int32_t ctl_word, int32_t off, bool is_cfa, sfu_rule *r)
{
	uint32_t ctl = (uint32_t)ctl_word & (wsize == 4 ? 0xffffffffu : ((1u << (8u * wsize)) - 1u));
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

/* The RA or FP entry of a FLEX FRE at data word *i, if any words are left:
 * a (control, offset) pair, or one 0 control word of padding that leaves
 * the rule as it is.  Advances *i. */
SFU__INLINE int sfu__flex_next(const sfu_section *sec, const sfu_fre *fre, unsigned abi, unsigned *i, sfu_rule *r)
{
	int32_t ctl;
	if (*i >= fre->count)
		return SFU_OK;
	ctl = sfu__fre_word(sec, fre, *i);
	if (ctl == 0) {
		*i += 1;
		return SFU_OK;
	}
	if (*i + 1 >= fre->count)
		return SFU_E_FRE_WORDS;
	*i += 2;
	return sfu__flex_rule(abi, fre->wsize, ctl, sfu__fre_word(sec, fre, *i - 1), false, r);
}

/* s390x stores the CFA offset scaled down and adjusted (spec 3.1.3). */
static int sfu__s390x_cfa(int32_t w, int32_t *off)
{
	int64_t o = SFU_S390X_CFA_DECODE((int64_t)w);
	if (o < INT32_MIN || o > INT32_MAX)
		return SFU_E_FRE_WORDS;
	*off = (int32_t)o;
	return SFU_OK;
}

/* V2 s390x: an odd RA/FP word is (DWARF register << 1) | 1, the register
 * holding the value.  A negative word or a number past the DWARF range is
 * corrupt, not a register to truncate. */
static int sfu__s390x_regnum(int32_t w, sfu_rule *r)
{
	if (w < 0 || SFU_V2_S390X_WORD_REGNUM((uint32_t)w) > SFU_REG_DWARF_MAX)
		return SFU_E_FRE_WORDS;
	r->kind = SFU_RULE_OFF;
	r->base = (uint16_t)SFU_V2_S390X_WORD_REGNUM((uint32_t)w);
	r->off = 0;
	return SFU_OK;
}

static int sfu__row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	unsigned abi = sec->abi, n = fre->count;
	bool s390x = SFU__S390X(abi), amd64 = SFU__AMD64(abi);

	row->func_start = fde->start;
	row->func_size = fde->size;
	row->fre_start = fre->start;
	row->abi = (uint8_t)abi;
	row->mangled_ra = (uint8_t)SFU_FRE_INFO_MANGLED_RA(fre->info);
	row->signal = fde->signal;
	row->flex = SFU_FLEX && fde->type == SFU_FDE_TYPE_FLEX;
	row->sp_from_cfa = (int16_t)(s390x ? SFU_S390X_SP_VAL_OFFSET : 0);
	row->cfa.kind = SFU_RULE_OFF;
	row->cfa.base = SFU_FRE_INFO_BASE_REG(fre->info) == SFU_BASE_REG_SP ? SFU_REG_SP : SFU_REG_FP;
	row->cfa.off = 0;
	row->fp.kind = SFU_RULE_SAME;
	row->fp.base = SFU_REG_CFA;
	row->fp.off = 0;
	row->ra.base = SFU_REG_CFA;
	row->ra.off = 0;

	/* No data words: the RA is undefined, this is the outermost frame (V2
	 * erratum 2; V3 spec 2.4.1). */
	if (n == 0) {
		row->ra.kind = SFU_RULE_UNDEF;
		return SFU_OK;
	}
	/* Default RA: amd64 at the fixed CFA offset; elsewhere still in the link
	 * register unless the FRE says where it was saved. */
	if (amd64) {
		row->ra.kind = SFU_RULE_DEREF;
		row->ra.off = sec->fixed_ra;
	} else {
		row->ra.kind = SFU_RULE_SAME;
	}

	if (row->flex) {
		/* (ctl, off) pairs for CFA, RA, FP; a lone 0 control word is
		 * padding for an entity with no rule (spec 3.2). */
		unsigned i = 2;
		int err;
		if (n < 2)
			return SFU_E_FRE_WORDS;
		err = sfu__flex_rule(abi, fre->wsize, sfu__fre_word(sec, fre, 0), sfu__fre_word(sec, fre, 1), true, &row->cfa);
		if (err)
			return err;
		if (s390x) {
			/* The CFA offset is stored scaled and adjusted in FLEX FDEs
			 * as in default ones (observed: sid gas, objdump 2.47). */
			err = sfu__s390x_cfa(sfu__fre_word(sec, fre, 1), &row->cfa.off);
			if (err)
				return err;
		}
		err = sfu__flex_next(sec, fre, abi, &i, &row->ra);
		if (!err)
			err = sfu__flex_next(sec, fre, abi, &i, &row->fp);
		if (err)
			return err;
		if (i != n)
			return SFU_E_FRE_WORDS;
		return SFU_OK;
	}

	/* Default FDE (spec 3.1). */
	if (n > 3 || (amd64 && n > 2))
		return SFU_E_FRE_WORDS;
	if (s390x) {
		int err = sfu__s390x_cfa(sfu__fre_word(sec, fre, 0), &row->cfa.off);
		if (err)
			return err;
	} else {
		row->cfa.off = sfu__fre_word(sec, fre, 0);
	}
	if (amd64) {
		if (n >= 2) {
			row->fp.kind = SFU_RULE_DEREF;
			row->fp.off = sfu__fre_word(sec, fre, 1);
		}
		return SFU_OK;
	}
	if (n >= 2) {
		int32_t w = sfu__fre_word(sec, fre, 1);
		if (s390x && w == SFU_S390X_RA_OFFSET_INVALID) {
			row->ra.kind = SFU_RULE_SAME; /* padding: RA not saved */
		} else if (s390x && sec->version == SFU_VERSION_2 && SFU_V2_S390X_WORD_IS_REGNUM(w)) {
			int err = sfu__s390x_regnum(w, &row->ra); /* RA held in a register */
			if (err)
				return err;
		} else {
			row->ra.kind = SFU_RULE_DEREF;
			row->ra.off = w;
		}
	}
	if (n >= 3) {
		int32_t w = sfu__fre_word(sec, fre, 2);
		if (s390x && sec->version == SFU_VERSION_2 && SFU_V2_S390X_WORD_IS_REGNUM(w)) {
			int err = sfu__s390x_regnum(w, &row->fp); /* FP held in a register */
			if (err)
				return err;
		} else {
			row->fp.kind = SFU_RULE_DEREF;
			row->fp.off = w;
		}
	}
	return SFU_OK;
}

SFU__FN int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	if (!sec || !fde || !fre || !row)
		return SFU_E_ARG;
	return sfu__row_from_fre(sec, fde, fre, row);
}

/* ---- lookup -------------------------------------------------------------------- */

/* Function start address of FDE idx, without decoding the rest. */
SFU__INLINE uint64_t sfu__fde_start(const sfu_section *sec, uint32_t idx)
{
	uint32_t off = sec->fde_base + idx * (uint32_t)sec->fde_size;
	uint64_t raw = SFU__V3(sec) ? sfu__ld64(sec, off) : (uint64_t)(int64_t)sfu__s32(sfu__ld32(sec, off));
	return sec->addr + raw + (sec->pcrel ? off : 0u);
}

static int sfu__find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx)
{
	uint32_t i;
	int err;

	if (sec->flags & SFU_F_FDE_SORTED) {
		/* Largest i with start(i) <= pc.  Every probe is checked against the
		 * starts already seen: a section that lies about its order is
		 * reported, not half-searched. */
		uint32_t lo = 0, hi = sec->num_fdes;
		uint64_t lo_v = 0, hi_v = UINT64_MAX;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2u; /* num_fdes < 2^28: no overflow */
			uint64_t v = sfu__fde_start(sec, mid);
			if (v < lo_v || v > hi_v)
				return SFU_E_UNSORTED;
			if (v <= pc) {
				lo = mid + 1u;
				lo_v = v;
			} else {
				hi = mid;
				hi_v = v;
			}
		}
		if (lo == 0)
			return SFU_E_NOINFO;
		i = lo - 1u;
		err = sfu__fde_get(sec, i, fde);
		if (err)
			return err;
		if (pc - fde->start >= (uint64_t)fde->size)
			return SFU_E_NOINFO; /* a gap between functions */
	} else {
		for (i = 0; i < sec->num_fdes; i++) {
			/* Cheap range test first; decode (and check) only a match. */
			uint64_t start = sfu__fde_start(sec, i);
			uint32_t size = sfu__ld32(sec, sec->fde_base + i * (uint32_t)sec->fde_size +
			                                   (SFU__V3(sec) ? SFU_V3_FDE_SIZE_F : SFU_V12_FDE_SIZE_F));
			if (pc - start < (uint64_t)size)
				break;
		}
		if (i == sec->num_fdes)
			return SFU_E_NOINFO;
		err = sfu__fde_get(sec, i, fde);
		if (err)
			return err;
	}
	if (idx)
		*idx = i;
	return SFU_OK;
}

SFU__FN int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx)
{
	if (!sec || !fde)
		return SFU_E_ARG;
	return sfu__find_fde(sec, pc, fde, idx);
}

/* The row for pc in one section.  The FRE scan reads only each FRE's start
 * and info byte (every FRE up to the first past the PC is still fully
 * bounds- and order-checked), then decodes the one that applies. */
static int sfu__find_row(const sfu_section *sec, uint64_t pc, sfu_row *row)
{
	sfu_fde fde;
	sfu_fre fre;
	uint32_t k, pos, end, best = 0, prev = 0, pcoff, ab;
	bool have = false, mask_v1;
	int err;

	err = sfu__find_fde(sec, pc, &fde, NULL);
	if (err)
		return err;
	if (fde.num_fres == 0) {
		/* V3: a DEFAULT FDE with no FREs marks an outermost frame. */
		if (!SFU__V3(sec))
			return SFU_E_NOINFO;
		fre.start = 0;
		fre.info = 0;
		fre.count = 0;
		fre.wsize = 1;
		fre.words = 0;
		return sfu__row_from_fre(sec, &fde, &fre, row);
	}
	pcoff = (uint32_t)(pc - fde.start);
	if (fde.pctype == SFU_FDE_PCTYPE_MASK && fde.rep_size)
		pcoff %= fde.rep_size;
	/* V1 has no repeat size: its PC-mask FRE starts are masks, matching
	 * when (PC & start) >= start, i.e. == start (V1 spec, "The SFrame FDE
	 * types"); the last match wins. */
	mask_v1 = fde.pctype == SFU_FDE_PCTYPE_MASK && sec->version == SFU_VERSION_1;
	ab = sfu__addr_bytes(fde.fre_type);
	end = sec->fre_base + sec->fre_len;
	pos = sec->fre_base + fde.fre_off;
	for (k = 0; k < fde.num_fres; k++) {
		uint32_t start, ws, len;
		unsigned info;
		if (!sfu__in(end, pos, ab + 1u))
			return SFU_E_FRE_TRUNC;
		start = sfu__ldn(sec, pos, ab);
		info = sec->data[pos + ab];
		ws = sfu__wsize[SFU_FRE_INFO_WSIZE(info)];
		if (!ws)
			return SFU_E_WORD_SIZE;
		len = ab + 1u + SFU_FRE_INFO_COUNT(info) * ws;
		if (!sfu__in(end, pos, len))
			return SFU_E_FRE_TRUNC;
		if (k && start < prev)
			return SFU_E_FRE_ORDER;
		if (mask_v1) {
			if ((pcoff & start) == start) {
				best = pos;
				have = true;
			}
			prev = start;
			pos += len;
			continue;
		}
		if (start > pcoff)
			break;
		prev = start;
		best = pos;
		have = true;
		pos += len;
	}
	if (!have)
		return SFU_E_NOINFO;
	/* The chosen FRE lies inside the FRE sub-section: the scan checked it. */
	SFU_ASSERT(best >= sec->fre_base + fde.fre_off && best < sec->fre_base + sec->fre_len);
	err = sfu__fre_get(sec, &fde, best - sec->fre_base, &fre);
	if (err)
		return err;
	return sfu__row_from_fre(sec, &fde, &fre, row);
}

SFU__FN int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row)
{
	if (!sec || !row)
		return SFU_E_ARG;
	return sfu__find_row(sec, pc, row);
}

/* First section that covers pc; a corrupt section is reported unless
 * another one covers pc. */
SFU__INLINE int sfu__find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
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

/* ---- whole-section validation ------------------------------------------------ */

SFU__FN int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde)
{
	uint32_t i, k, total = 0;
	uint64_t prev_start = 0;
	int err = SFU_OK;

	if (!sec)
		return SFU_E_ARG;
	for (i = 0; i < sec->num_fdes; i++) {
		sfu_fde fde;
		sfu_fre fre;
		sfu_row row;
		uint32_t off, prev = 0, budget;
		err = sfu__fde_get(sec, i, &fde);
		if (err)
			break;
		if ((sec->flags & SFU_F_FDE_SORTED) && i && fde.start < prev_start) {
			err = SFU_E_UNSORTED;
			break;
		}
		prev_start = fde.start;
		/* The FREs of all FDEs must add up to the header's count, which
		 * init bounded by the FRE sub-section's size.  Scanning no more
		 * than what is left of that count keeps validation linear in the
		 * section size even when FDEs share one block of FREs. */
		budget = fde.num_fres < sec->num_fres - total ? fde.num_fres : sec->num_fres - total;
		off = fde.fre_off;
		for (k = 0; k < budget && !err; k++) {
			err = sfu__fre_get(sec, &fde, off, &fre);
			if (err)
				break;
			if (k && fre.start < prev)
				err = SFU_E_FRE_ORDER;
			else
				err = sfu__row_from_fre(sec, &fde, &fre, &row);
			prev = fre.start;
			off = fre.next;
		}
		if (!err && budget < fde.num_fres)
			err = SFU_E_FRE_COUNT;
		if (err)
			break;
		total += fde.num_fres;
	}
	if (!err && total != sec->num_fres)
		err = SFU_E_FRE_COUNT;
	if (err && bad_fde)
		*bad_fde = i;
	return err;
}

/* ---- the walk ------------------------------------------------------------------- */

/* The port's read: an inlinable hook if the port defines SFU_READ, else the
 * function pointer. */
#ifdef SFU_READ
#define SFU__PORT_READ(c, a, o) SFU_READ((c)->port->ctx, (a), (o))
#else
#define SFU__PORT_READ(c, a, o) (c)->port->read((c)->port->ctx, (a), (o))
#endif

SFU__INLINE unsigned sfu__align(unsigned abi)
{
	/* Minimum CFA alignment: AAPCS64 keeps SP 16-aligned at every call; on
	 * amd64 and s390x we only ask for 8 (kernels often build with an
	 * 8-byte preferred stack boundary). */
	return SFU__AARCH64(abi) ? 16u : 8u;
}

SFU__INLINE int sfu__read(const sfu_cursor *c, uint64_t addr, uint64_t *out)
{
	if (addr & 7u)
		return SFU_E_ALIGN;
	return SFU__PORT_READ(c, addr, out) ? SFU_E_READ : SFU_OK;
}

/* Value of rule r in the current frame (spec 3.2 "Recovery Rules"). */
SFU__INLINE int sfu__apply(const sfu_cursor *c, const sfu_rule *r, uint64_t cfa, uint64_t *v)
{
	uint64_t b;
	switch (r->base) {
	case SFU_REG_SP: b = c->regs.sp; break;
	case SFU_REG_FP:
		if (!c->fp_ok)
			return SFU_E_UNSAFE; /* lost to a refused read earlier */
		b = c->regs.fp;
		break;
	case SFU_REG_CFA: b = cfa; break;
	default:
		/* Any other register is known only in a frame whose full register
		 * set we were given (spec appendix A, ERR_SFRAME_UNSAFE_UNWIND). */
		if (!c->full || !c->regs.dwarf || r->base >= c->regs.ndwarf)
			return SFU_E_UNSAFE;
		if (c->regs.dwarf_map) {
			/* A trap frame in the kernel's own layout: the port checked
			 * every word of it before handing it over. */
			int16_t at = c->regs.dwarf_map[r->base];
			if (at < 0 || (at & 7))
				return SFU_E_UNSAFE;
			b = c->regs.dwarf[(uint16_t)at / 8u];
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

/* Make the stack holding sp the current one (c->stack_lo/hi).  False if
 * the port declares stacks and none holds sp: then nothing fits. */
static bool sfu__pick_stack(sfu_cursor *c, uint64_t sp)
{
	const sfu_port *p = c->port;
	size_t i;
	c->bounded = (p->stack_lo || p->stack_hi || (p->stacks && p->nstacks)) ? 1 : 0;
	c->stack_lo = 1; /* empty until found */
	c->stack_hi = 0;
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

/* Is sp on the current frame's stack? */
SFU__INLINE bool sfu__on_stack(const sfu_cursor *c, uint64_t sp)
{
	return !c->bounded || (sp >= c->stack_lo && sp <= c->stack_hi);
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

/* Check the caller's SP against the callee's: the stack must move toward its
 * base (higher addresses on every supported ABI), stay on the frame's stack
 * and stay aligned. */
SFU__INLINE int sfu__check_sp(const sfu_cursor *c, uint64_t new_sp, uint64_t cfa, unsigned abi)
{
	if (cfa & (sfu__align(abi) - 1u))
		return SFU_E_ALIGN;
	/* Equal is allowed only out of a frame with full registers (a leaf that
	 * has not pushed anything yet); otherwise two frames could repeat. */
	if (new_sp < c->regs.sp || (new_sp == c->regs.sp && !c->full))
		return SFU_E_WRONG_WAY;
	if (!sfu__on_stack(c, new_sp))
		return SFU_E_STACK_BOUNDS;
	return SFU_OK;
}

#if SFU_CACHE
SFU__FN int sfu_cache_init(sfu_cache *cache, sfu_cache_entry *slots, size_t n)
{
	size_t i, p = 2;
	if (!cache || !slots || n < 2)
		return SFU_E_ARG;
	while (p <= n / 2u && p < 0x80000000u)
		p *= 2u;
	cache->slots = slots;
	cache->mask = (uint32_t)(p - 1u);
	cache->hits = cache->misses = 0;
	for (i = 0; i < p; i++)
		slots[i].key = 0;
	return SFU_OK;
}

/* Row for pc through the cache: sets of two slots; a miss fills the slot
 * the miss counter points at.  *out points into the cache (or at tmp). */
static int sfu__cache_find(sfu_cursor *c, uint64_t pc, sfu_row *tmp, const sfu_row **out)
{
	sfu_cache *cache = c->cache;
	uint64_t key = pc + 1u;
	uint32_t set = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & cache->mask & ~1u;
	sfu_cache_entry *s = &cache->slots[set];
	int err;
	if (key == 0) { /* pc UINT64_MAX: its key would be the "empty" mark */
		*out = tmp;
		return sfu__find_row_n(c->secs, c->nsecs, pc, tmp);
	}
	if (s[0].key == key || s[1].key == key) {
		cache->hits++;
		*out = &s[s[0].key == key ? 0 : 1].row;
		return SFU_OK;
	}
	cache->misses++;
	s += cache->misses & 1u;
	s->key = 0;
	err = sfu__find_row_n(c->secs, c->nsecs, pc, &s->row);
	if (err) {
		*out = tmp;
		return err;
	}
	s->key = key;
	*out = &s->row;
	return SFU_OK;
}
#endif

SFU__INLINE int sfu__lookup(sfu_cursor *c, uint64_t pc, sfu_row *tmp, const sfu_row **out)
{
#if SFU_CACHE
	if (c->cache)
		return sfu__cache_find(c, pc, tmp, out);
#endif
	/* A lookup that succeeds writes every field; clearing them first only
	 * keeps gcc's -Wmaybe-uninitialized (gcc 14, -O2, -Werror builds of
	 * users) from seeing a path that does not exist.  Field by field: no
	 * memset in a freestanding image. */
	tmp->func_start = 0;
	tmp->func_size = tmp->fre_start = 0;
	tmp->cfa.kind = tmp->ra.kind = tmp->fp.kind = SFU_RULE_UNDEF;
	tmp->cfa.base = tmp->ra.base = tmp->fp.base = SFU_REG_CFA;
	tmp->cfa.off = tmp->ra.off = tmp->fp.off = 0;
	tmp->abi = tmp->mangled_ra = tmp->signal = tmp->flex = 0;
	tmp->sp_from_cfa = 0;
	*out = tmp;
	return sfu__find_row_n(c->secs, c->nsecs, pc, tmp);
}

/* Out of PC 0 reached by a call through a null pointer (the call happened,
 * the callee never ran): amd64's call pushed the return address, so it is
 * at [SP] and the caller's SP is SP + 8; aarch64 and s390x branch-and-link
 * left it in the link register and did not touch SP. */
static SFU__NOINLINE int sfu__null_call_step(sfu_cursor *c)
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
	if (!sfu__on_stack(c, sp))
		return SFU_E_STACK_BOUNDS;
	c->regs.pc = ra;
	c->regs.sp = sp;
	c->regs.ra = 0;
	c->regs.dwarf = NULL;
	c->regs.ndwarf = 0;
	c->regs.dwarf_map = NULL;
	c->cfa = sp;
	c->exact = 0;
	c->full = 0;
	c->how = SFU_HOW_NULL_CALL;
	c->depth++;
	return SFU_OK;
}

/* Exception vector code has no SFrame info; the port knows the trap frame
 * there.  Out of line: its register block stays off the common path's
 * stack. */
static SFU__NOINLINE int sfu__trap_step(sfu_cursor *c)
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
	c->regs.pc = t.pc;
	c->regs.sp = t.sp;
	c->regs.fp = t.fp;
	c->regs.ra = t.ra;
	c->regs.dwarf = t.dwarf;
	c->regs.ndwarf = t.ndwarf;
	c->regs.dwarf_map = t.dwarf_map;
	c->cfa = t.sp;
	c->exact = 1;
	c->full = 1;
	c->fp_ok = 1;
	c->how = SFU_HOW_TRAP;
	c->depth++;
	return SFU_OK;
}

static int sfu__step(sfu_cursor *c)
{
	sfu_row tmp;
	const sfu_row *row;
	uint64_t cfa, ra, fp, sp;
	uint8_t how = SFU_HOW_SFRAME, next_exact = 0, fp_ok = 1;
	int err;

	if (c->user)
		return SFU_END_USER;
	if (c->depth + 1u >= SFU_DEPTH_CAP)
		return SFU_E_DEPTH;
	/* Every later frame's SP was checked when the walk got there; this
	 * catches a first frame on none of the port's stacks. */
	if (!sfu__on_stack(c, c->regs.sp))
		return SFU_E_STACK_BOUNDS;
	if (c->regs.pc == 0) {
		/* PC 0 with all registers known (first frame, trap frame) is a
		 * call through a null function pointer: the caller's return
		 * address is where the call left it.  Elsewhere, PC 0 ends the
		 * stack. */
		if (!c->full)
			return SFU_END;
		return sfu__null_call_step(c);
	}

	/* A return address may be the first byte of the next function (after a
	 * call to a noreturn function): look the caller up at ra - 1.  The
	 * first frame and interrupted frames have an exact PC. */
	err = sfu__lookup(c, c->exact ? c->regs.pc : c->regs.pc - 1u, &tmp, &row);
	/* The vector code's call into its handler is reached as a return
	 * address; an exact PC there is code the vector interrupted. */
	if (err == SFU_E_NOINFO && c->port->trap && !c->exact) {
		err = sfu__trap_step(c);
		if (err != SFU_E_NOINFO)
			return err;
	}
#if SFU_FP_FALLBACK
	if (err == SFU_E_NOINFO && c->abi != 0 && c->abi != SFU_ABI_S390X_BE && c->regs.fp != 0 && c->fp_ok) {
		/* Frame record: amd64 [rbp] = saved rbp, [rbp+8] = RA; aarch64
		 * [x29] = saved x29, [x29+8] = x30.  (s390x has none.) */
		err = sfu__read(c, c->regs.fp, &fp);
		if (!err)
			err = sfu__read(c, c->regs.fp + 8u, &ra);
		if (err)
			return err;
		cfa = c->regs.fp + 16u;
		sp = cfa;
		how = SFU_HOW_FP;
		err = sfu__check_sp(c, sp, cfa, c->abi);
		if (err)
			return err;
		goto done;
	}
#endif
	if (err)
		return err;

	/* CFA, then RA and FP relative to it (spec appendix A). */
	err = sfu__apply(c, &row->cfa, 0, &cfa);
	if (err)
		return err;
	switch (row->ra.kind) {
	case SFU_RULE_UNDEF:
		return SFU_END;
	case SFU_RULE_SAME:
		/* RA still in the link register: true only where we know it. */
		if (!c->full)
			return SFU_E_UNSAFE;
		ra = c->regs.ra;
		break;
	default:
		err = sfu__apply(c, &row->ra, cfa, &ra);
		if (err)
			return err;
	}
	if (row->fp.kind == SFU_RULE_SAME) {
		fp = c->regs.fp;
		fp_ok = c->fp_ok;
	} else {
		/* The caller's FP is needed only if a later frame's CFA or rules
		 * use it.  Compilers leave stale FP rules in some epilogues (gcc's
		 * DRAP epilogue keeps "FP at *(FP)" after the restore), so a
		 * refused FP read does not end the walk: the FP becomes unknown,
		 * and a later rule that needs it stops with SFU_E_UNSAFE. */
		err = sfu__apply(c, &row->fp, cfa, &fp);
		if (err == SFU_E_READ || err == SFU_E_ALIGN) {
			fp = 0;
			fp_ok = 0;
		} else if (err) {
			return err;
		}
	}
	if (row->mangled_ra && c->port->strip_ra)
		ra = c->port->strip_ra(c->port->ctx, ra);
	sp = cfa + (uint64_t)(int64_t)row->sp_from_cfa;
	err = sfu__check_sp(c, sp, cfa, row->abi);
	if (err)
		return err;
	/* Out of a signal trampoline the caller was interrupted: exact PC. */
	next_exact = row->signal;
#if SFU_FP_FALLBACK
done:
#endif
	if (ra == 0)
		return SFU_END; /* RA of 0: conventional end of the stack */
	c->regs.pc = ra;
	c->regs.sp = sp;
	c->regs.fp = fp;
	c->regs.ra = 0;
	c->regs.dwarf = NULL;
	c->regs.ndwarf = 0;
	c->regs.dwarf_map = NULL;
	c->fp_ok = fp_ok;
	c->cfa = cfa;
	c->exact = next_exact;
	c->full = 0;
	c->how = how;
	c->depth++;
	SFU_ASSERT(c->depth < SFU_DEPTH_CAP);
	return SFU_OK;
}

SFU__FN int sfu_cursor_step(sfu_cursor *c)
{
	if (!c || !c->port)
		return SFU_E_ARG;
	return sfu__step(c);
}

static int sfu__walk(sfu_cursor *c, sfu_frame *frames, size_t max, size_t *n)
{
	size_t k = 0;
	int err;
	for (;;) {
		if (k == max)
			return SFU_E_FULL;
		frames[k].pc = c->regs.pc;
		frames[k].sp = c->regs.sp;
		frames[k].cfa = c->cfa;
		frames[k].how = c->how;
		frames[k].flags = (uint8_t)((c->exact ? SFU_FRAME_EXACT : 0u) | (c->user ? SFU_FRAME_USER : 0u));
		*n = ++k;
		err = sfu__step(c);
		if (err)
			return err;
	}
}

SFU__FN int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	sfu_cursor c;
	int err;
	if (!n || (!frames && max))
		return SFU_E_ARG;
	*n = 0;
	err = sfu_cursor_init(&c, secs, nsecs, port, regs);
	if (err)
		return err;
	return sfu__walk(&c, frames, max, n);
}

#if SFU_CACHE
SFU__FN int sfu_backtrace_cached(const sfu_section *secs, size_t nsecs, sfu_cache *cache,
                                 const sfu_port *port, const sfu_regs *regs, sfu_frame *frames,
                                 size_t max, size_t *n)
{
	sfu_cursor c;
	int err;
	if (!n || (!frames && max))
		return SFU_E_ARG;
	*n = 0;
	err = sfu_cursor_init(&c, secs, nsecs, port, regs);
	if (err)
		return err;
	c.cache = cache;
	return sfu__walk(&c, frames, max, n);
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
#endif

SFU_CODEGEN_END
#endif /* SFU_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
