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
 *   SFU_FP_FALLBACK          frame-pointer walk where no SFrame info (default 0)
 *   SFU_DEPTH_CAP            hard cap on frames in one walk     (default 256)
 *   SFU_ERROR_STRINGS        provide sfu_strerror()            (default 0)
 *   SFU_ASSERT(x)            internal consistency hook         (default none)
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
#ifndef SFU_FP_FALLBACK
#define SFU_FP_FALLBACK 0
#endif
#ifndef SFU_DEPTH_CAP
#define SFU_DEPTH_CAP 256
#endif
#ifndef SFU_ERROR_STRINGS
#define SFU_ERROR_STRINGS 0
#endif
#ifndef SFU_ASSERT
#define SFU_ASSERT(x) ((void)0)
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
#if SFU_FP_FALLBACK != 0 && SFU_FP_FALLBACK != 1
#error "SFU_FP_FALLBACK must be 0 or 1"
#endif
#if SFU_DEPTH_CAP < 1 || SFU_DEPTH_CAP > 65535
#error "SFU_DEPTH_CAP must be between 1 and 65535"
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
	X(SFU_END, 31, "outermost frame reached")

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
	int64_t raw_start; /* sfde_func_start_address / sfdi_func_start_offset */
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
 * (unused on amd64).  `dwarf`, if set, holds every register by DWARF number;
 * it is consulted only where the full register set is known (the first
 * frame, or a frame restored from an exception trap frame). */
typedef struct sfu_regs {
	uint64_t pc, sp, fp, ra;
	const uint64_t *dwarf;
	uint32_t ndwarf;
} sfu_regs;

/* The port: how the core reaches memory and the target's quirks. */
typedef struct sfu_port {
	/* Read the 8-byte word at addr into *out; return 0, or nonzero to refuse
	 * (then the walk stops with SFU_E_READ).  Required. */
	int (*read)(void *ctx, uint64_t addr, uint64_t *out);
	/* aarch64 pointer authentication: return ra without signature bits.
	 * Called only for rows whose RA is mangled.  Optional. */
	uint64_t (*strip_ra)(void *ctx, uint64_t ra);
	/* Exception entry: if pc (with stack pointer sp) is the point where the
	 * exception vector code called its handler, fill *out with the
	 * interrupted context from the trap frame and return 1, else return 0.
	 * Called when a PC has no SFrame info.  Optional. */
	int (*trap)(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out);
	void *ctx;
	/* The stack: every frame's SP must lie in [stack_lo, stack_hi].  Both 0:
	 * no bound. */
	uint64_t stack_lo, stack_hi;
} sfu_port;

/* How a frame was reached. */
enum sfu_how {
	SFU_HOW_START = 0, /* the registers the walk started from */
	SFU_HOW_SFRAME,    /* an SFrame row of the callee */
	SFU_HOW_FP,        /* frame-pointer fallback (SFU_FP_FALLBACK) */
	SFU_HOW_TRAP       /* the port's trap frame: interrupted context */
};

typedef struct sfu_frame {
	uint64_t pc, sp, cfa;
	uint8_t how; /* enum sfu_how */
} sfu_frame;

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
 * section's error, or SFU_E_FULL if more than max sections were found. */
SFU_DEF int sfu_section_split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                              uint64_t addr, unsigned opts);

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

/* Like sfu_cursor_init for registers restored from an exception or signal
 * frame: the PC is exact and all registers are valid, as for the first
 * frame.  (Kept separate for readability at call sites.) */
#define sfu_cursor_init_interrupted sfu_cursor_init

/* Step to the caller.  SFU_OK: c->regs is the caller's frame.  Otherwise the
 * reason the walk cannot go on (SFU_END at an outermost frame); c is left
 * on the last good frame. */
SFU_DEF int sfu_cursor_step(sfu_cursor *c);

/* Walk from regs: frames[0] is the starting frame.  Stores at most max
 * frames, *n gets how many.  Returns why the walk stopped: SFU_END for a
 * complete trace, or an error code (SFU_E_FULL if frames ran out). */
SFU_DEF int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n);

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

#ifdef SFU_STATIC
#define SFU__FN SFU_DEF
#else
#define SFU__FN
#endif

/* ---- the one bounds-checked reader ---------------------------------------
 * Every section byte is read here: the range [off, off+n) is checked against
 * `end` (the end of the sub-section being read, never past the section) with
 * arithmetic that cannot overflow, then assembled byte by byte in the
 * section's byte order.  No casts over the buffer, so no alignment traps. */

static bool sfu__in(uint32_t end, uint32_t off, uint32_t n)
{
	return off <= end && n <= end - off;
}

static uint64_t sfu__get(const sfu_section *s, uint32_t off, uint32_t n)
{
	uint64_t v = 0;
	uint32_t i;
	for (i = 0; i < n; i++) {
		uint32_t k = s->big ? i : n - 1 - i;
		v = (v << 8) | s->data[off + k];
	}
	return v;
}

/* Read an n-byte unsigned field at off, bounded by end. */
static bool sfu__rd(const sfu_section *s, uint32_t end, uint32_t off, uint32_t n, uint64_t *v)
{
	if (!sfu__in(end, off, n))
		return false;
	*v = sfu__get(s, off, n);
	return true;
}

/* Sign-extend the low `bytes` bytes of v. */
static int64_t sfu__sext(uint64_t v, uint32_t bytes)
{
	uint64_t m;
	if (bytes >= 8)
		return (int64_t)v;
	m = (uint64_t)1 << (8u * bytes - 1u);
	v &= ((uint64_t)1 << (8u * bytes)) - 1u;
	/* (v ^ m) - m in unsigned arithmetic, then a value-preserving
	 * conversion: no signed overflow. */
	v = (v ^ m) - m;
	return v > (uint64_t)INT64_MAX ? -(int64_t)(~v) - 1 : (int64_t)v;
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
	switch (s->abi) {
	case SFU_ABI_AARCH64_LE:
	case SFU_ABI_AMD64_LE:
		if (s->big)
			return SFU_E_ABI;
		break;
	case SFU_ABI_AARCH64_BE:
	case SFU_ABI_S390X_BE:
		if (!s->big)
			return SFU_E_ABI;
		break;
	default:
		return SFU_E_ABI;
	}
	s->fixed_fp = (int8_t)sfu__sext(p[SFU_HDR_FIXED_FP], 1);
	s->fixed_ra = (int8_t)sfu__sext(p[SFU_HDR_FIXED_RA], 1);
	/* amd64 keeps the RA at a fixed CFA offset, which must be on the stack
	 * below the CFA and word aligned; the others track it per FRE. */
	if (s->abi == SFU_ABI_AMD64_LE) {
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

	nfdes = sfu__get(s, SFU_HDR_NUM_FDES, 4);
	nfres = sfu__get(s, SFU_HDR_NUM_FRES, 4);
	frelen = sfu__get(s, SFU_HDR_FRE_LEN, 4);
	fdeoff = sfu__get(s, SFU_HDR_FDEOFF, 4);
	freoff = sfu__get(s, SFU_HDR_FREOFF, 4);
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

SFU__FN int sfu_section_split(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                              uint64_t addr, unsigned opts)
{
	const uint8_t *p = (const uint8_t *)data;
	size_t off = 0, k = 0;
	int err;

	if (!n || (!secs && max) || (!data && size))
		return SFU_E_ARG;
	*n = 0;
	for (;;) {
		/* Skip the zero padding between and after sections. */
		while (off < size && p[off] == 0)
			off++;
		if (off >= size)
			return k ? SFU_OK : SFU_E_EMPTY;
		if (k == max)
			return SFU_E_FULL;
		err = sfu_section_init_opt(&secs[k], p + off, size - off, addr + off, opts);
		if (err)
			return err;
		/* The section ends where its last sub-section ends; anything up
		 * to the end of the span may follow. */
		secs[k].size = secs[k].end;
		off += secs[k].end;
		*n = ++k;
	}
}

/* ---- FDEs (spec 2.3) ---------------------------------------------------------- */

SFU__FN int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *fde)
{
	uint32_t off;
	uint64_t v, start_field;
	sfu_fde *f = fde; /* filled in place */

	if (!sec || !fde || idx >= sec->num_fdes)
		return SFU_E_ARG;
	off = sec->fde_base + idx * (uint32_t)sec->fde_size; /* bounded at init */
	f->info2 = 0;
	f->rep_size = 0;
	f->signal = 0;
	f->type = SFU_FDE_TYPE_DEFAULT;

	if (sec->version == SFU_VERSION_3) {
		uint32_t attr;
		f->raw_start = (int64_t)sfu__get(sec, off + SFU_V3_FDE_START, 8);
		f->size = (uint32_t)sfu__get(sec, off + SFU_V3_FDE_SIZE_F, 4);
		v = sfu__get(sec, off + SFU_V3_FDE_FREOFF, 4);
		/* The attribute sits at the FRE offset, inside the FRE sub-section. */
		if (!sfu__in(sec->fre_len, (uint32_t)v, SFU_V3_ATTR_SIZE))
			return SFU_E_FDE_FREOFF;
		attr = sec->fre_base + (uint32_t)v;
		f->num_fres = (uint32_t)sfu__get(sec, attr + SFU_V3_ATTR_NFRES, 2);
		f->info = (uint8_t)sfu__get(sec, attr + SFU_V3_ATTR_INFO, 1);
		f->info2 = (uint8_t)sfu__get(sec, attr + SFU_V3_ATTR_INFO2, 1);
		f->rep_size = (uint8_t)sfu__get(sec, attr + SFU_V3_ATTR_REPSIZE, 1);
		f->fre_off = (uint32_t)v + SFU_V3_ATTR_SIZE;
		f->signal = (uint8_t)SFU_FDE_INFO_SIGNAL(f->info);
		if (SFU_FDE_INFO2_TYPE(f->info2) > SFU_FDE_TYPE_FLEX || (f->info2 & 0xe0u))
			return SFU_E_FDE_TYPE;
		f->type = (uint8_t)SFU_FDE_INFO2_TYPE(f->info2);
		start_field = SFU_V3_FDE_START;
	} else {
		f->raw_start = sfu__sext(sfu__get(sec, off + SFU_V12_FDE_START, 4), 4);
		f->size = (uint32_t)sfu__get(sec, off + SFU_V12_FDE_SIZE_F, 4);
		f->fre_off = (uint32_t)sfu__get(sec, off + SFU_V12_FDE_FREOFF, 4);
		f->num_fres = (uint32_t)sfu__get(sec, off + SFU_V12_FDE_NFRES, 4);
		f->info = (uint8_t)sfu__get(sec, off + SFU_V12_FDE_INFO, 1);
		if (sec->version == SFU_VERSION_2)
			f->rep_size = (uint8_t)sfu__get(sec, off + SFU_V2_FDE_REPSIZE, 1);
		if (f->fre_off > sec->fre_len)
			return SFU_E_FDE_FREOFF;
		start_field = SFU_V12_FDE_START;
	}

	/* Function start: from the section start, or (PCREL) from the field
	 * itself (spec 2.3.1, V2 erratum 1).  Address arithmetic wraps modulo
	 * 2^64 like the target's. */
	f->start = sec->addr + (uint64_t)f->raw_start;
	if (sec->pcrel)
		f->start += (uint64_t)off + start_field;

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

/* ---- FREs (spec 2.4) ---------------------------------------------------------- */

SFU__FN int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	static const uint8_t addr_bytes[3] = { 1, 2, 4 };
	uint32_t end = sec->fre_base + sec->fre_len;
	uint32_t pos, ab, ws;
	uint64_t v;

	if (off > sec->fre_len)
		return SFU_E_FRE_TRUNC;
	pos = sec->fre_base + off;
	ab = addr_bytes[fde->fre_type]; /* fre_type checked by sfu_fde_get */
	if (!sfu__rd(sec, end, pos, ab + 1u, &v))
		return SFU_E_FRE_TRUNC;
	fre->start = (uint32_t)sfu__get(sec, pos, ab);
	fre->info = sec->data[pos + ab];
	pos += ab + 1u;
	switch (SFU_FRE_INFO_WSIZE(fre->info)) {
	case SFU_FRE_WSIZE_1B: ws = 1; break;
	case SFU_FRE_WSIZE_2B: ws = 2; break;
	case SFU_FRE_WSIZE_4B: ws = 4; break;
	default: return SFU_E_WORD_SIZE;
	}
	fre->wsize = (uint8_t)ws;
	fre->count = (uint8_t)SFU_FRE_INFO_COUNT(fre->info);
	if (!sfu__in(end, pos, fre->count * ws))
		return SFU_E_FRE_TRUNC;
	fre->words = pos;
	fre->next = pos + fre->count * ws - sec->fre_base;
	return SFU_OK;
}

SFU__FN int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i)
{
	if (i >= fre->count)
		return 0;
	/* In bounds: sfu_fre_get checked words + count * wsize. */
	return (int32_t)sfu__sext(sfu__get(sec, fre->words + i * fre->wsize, fre->wsize), fre->wsize);
}

static bool sfu__is_sp(unsigned abi, unsigned long r)
{
	return (abi == SFU_ABI_AMD64_LE && r == SFU_DWARF_AMD64_SP) ||
	       ((abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AARCH64_BE) && r == SFU_DWARF_AARCH64_SP) ||
	       (abi == SFU_ABI_S390X_BE && r == SFU_DWARF_S390X_SP);
}

static bool sfu__is_fp(unsigned abi, unsigned long r)
{
	return (abi == SFU_ABI_AMD64_LE && r == SFU_DWARF_AMD64_FP) ||
	       ((abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AARCH64_BE) && r == SFU_DWARF_AARCH64_FP) ||
	       (abi == SFU_ABI_S390X_BE && r == SFU_DWARF_S390X_FP);
}

/* One FLEX (control, offset) pair into a rule (spec 3.2).  The control word
 * is unsigned: undo the sign extension of its width. */
static int sfu__flex_rule(unsigned abi, uint32_t wsize, int32_t ctl_word, int32_t off, bool is_cfa, sfu_rule *r)
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

/* s390x stores the CFA offset scaled down and adjusted (spec 3.1.3). */
static int sfu__s390x_cfa(int32_t w, int32_t *off)
{
	int64_t o = SFU_S390X_CFA_DECODE((int64_t)w);
	if (o < INT32_MIN || o > INT32_MAX)
		return SFU_E_FRE_WORDS;
	*off = (int32_t)o;
	return SFU_OK;
}

SFU__FN int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	unsigned abi = sec->abi, n = fre->count;
	bool s390x = abi == SFU_ABI_S390X_BE;

	row->func_start = fde->start;
	row->func_size = fde->size;
	row->fre_start = fre->start;
	row->abi = (uint8_t)abi;
	row->mangled_ra = (uint8_t)SFU_FRE_INFO_MANGLED_RA(fre->info);
	row->signal = fde->signal;
	row->flex = fde->type == SFU_FDE_TYPE_FLEX;
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
	if (abi == SFU_ABI_AMD64_LE) {
		row->ra.kind = SFU_RULE_DEREF;
		row->ra.off = sec->fixed_ra;
	} else {
		row->ra.kind = SFU_RULE_SAME;
	}

	if (fde->type == SFU_FDE_TYPE_FLEX) {
		/* (ctl, off) pairs for CFA, RA, FP; a lone 0 control word is
		 * padding for an entity with no rule (spec 3.2). */
		unsigned i = 2;
		int err;
		if (n < 2)
			return SFU_E_FRE_WORDS;
		err = sfu__flex_rule(abi, fre->wsize, sfu_fre_word(sec, fre, 0), sfu_fre_word(sec, fre, 1), true, &row->cfa);
		if (err)
			return err;
		if (s390x) {
			/* The CFA offset is stored scaled and adjusted in FLEX FDEs
			 * as in default ones (observed: sid gas, objdump 2.47). */
			err = sfu__s390x_cfa(sfu_fre_word(sec, fre, 1), &row->cfa.off);
			if (err)
				return err;
		}
		if (i < n) {
			if (sfu_fre_word(sec, fre, i) != 0) {
				if (i + 1 >= n)
					return SFU_E_FRE_WORDS;
				err = sfu__flex_rule(abi, fre->wsize, sfu_fre_word(sec, fre, i), sfu_fre_word(sec, fre, i + 1), false, &row->ra);
				if (err)
					return err;
				i += 2;
			} else {
				i += 1;
			}
		}
		if (i < n) {
			if (sfu_fre_word(sec, fre, i) != 0) {
				if (i + 1 >= n)
					return SFU_E_FRE_WORDS;
				err = sfu__flex_rule(abi, fre->wsize, sfu_fre_word(sec, fre, i), sfu_fre_word(sec, fre, i + 1), false, &row->fp);
				if (err)
					return err;
				i += 2;
			} else {
				i += 1;
			}
		}
		if (i != n)
			return SFU_E_FRE_WORDS;
		return SFU_OK;
	}

	/* Default FDE (spec 3.1). */
	if (n > 3 || (abi == SFU_ABI_AMD64_LE && n > 2))
		return SFU_E_FRE_WORDS;
	if (s390x) {
		int err = sfu__s390x_cfa(sfu_fre_word(sec, fre, 0), &row->cfa.off);
		if (err)
			return err;
	} else {
		row->cfa.off = sfu_fre_word(sec, fre, 0);
	}
	if (abi == SFU_ABI_AMD64_LE) {
		if (n >= 2) {
			row->fp.kind = SFU_RULE_DEREF;
			row->fp.off = sfu_fre_word(sec, fre, 1);
		}
		return SFU_OK;
	}
	if (n >= 2) {
		int32_t w = sfu_fre_word(sec, fre, 1);
		if (s390x && w == SFU_S390X_RA_OFFSET_INVALID) {
			row->ra.kind = SFU_RULE_SAME; /* padding: RA not saved */
		} else if (s390x && sec->version == SFU_VERSION_2 && SFU_V2_S390X_WORD_IS_REGNUM(w)) {
			row->ra.kind = SFU_RULE_OFF; /* RA held in a register */
			row->ra.base = (uint16_t)SFU_V2_S390X_WORD_REGNUM((uint32_t)w);
		} else {
			row->ra.kind = SFU_RULE_DEREF;
			row->ra.off = w;
		}
	}
	if (n >= 3) {
		int32_t w = sfu_fre_word(sec, fre, 2);
		if (s390x && sec->version == SFU_VERSION_2 && SFU_V2_S390X_WORD_IS_REGNUM(w)) {
			row->fp.kind = SFU_RULE_OFF;
			row->fp.base = (uint16_t)SFU_V2_S390X_WORD_REGNUM((uint32_t)w);
		} else {
			row->fp.kind = SFU_RULE_DEREF;
			row->fp.off = w;
		}
	}
	return SFU_OK;
}

/* ---- lookup -------------------------------------------------------------------- */

/* Function start address of FDE idx, without decoding the rest. */
static uint64_t sfu__fde_start(const sfu_section *sec, uint32_t idx)
{
	uint32_t off = sec->fde_base + idx * (uint32_t)sec->fde_size;
	uint64_t a;
	if (sec->version == SFU_VERSION_3)
		a = sec->addr + sfu__get(sec, off + SFU_V3_FDE_START, 8);
	else
		a = sec->addr + (uint64_t)sfu__sext(sfu__get(sec, off + SFU_V12_FDE_START, 4), 4);
	if (sec->pcrel)
		a += off;
	return a;
}

static bool sfu__covers(const sfu_fde *f, uint64_t pc)
{
	return pc - f->start < (uint64_t)f->size; /* wraps for pc < start */
}

SFU__FN int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx)
{
	uint32_t i;
	int err;

	if (!sec || !fde)
		return SFU_E_ARG;
	if (sec->flags & SFU_F_FDE_SORTED) {
		/* Largest i with start(i) <= pc.  Every probe is checked against the
		 * starts already seen: a section that lies about its order is
		 * reported, not half-searched. */
		uint32_t lo = 0, hi = sec->num_fdes;
		uint64_t lo_v = 0, hi_v = UINT64_MAX;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2u;
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
		err = sfu_fde_get(sec, i, fde);
		if (err)
			return err;
		if (!sfu__covers(fde, pc))
			return SFU_E_NOINFO; /* a gap between functions */
	} else {
		for (i = 0; i < sec->num_fdes; i++) {
			err = sfu_fde_get(sec, i, fde);
			if (err)
				return err;
			if (sfu__covers(fde, pc))
				break;
		}
		if (i == sec->num_fdes)
			return SFU_E_NOINFO;
	}
	if (idx)
		*idx = i;
	return SFU_OK;
}

SFU__FN int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row)
{
	sfu_fde fde;
	sfu_fre buf[2], *fre = &buf[0], *best = &buf[1], *t;
	uint32_t k, off, prev = 0, pcoff;
	bool have = false;
	int err;

	if (!sec || !row)
		return SFU_E_ARG;
	err = sfu_find_fde(sec, pc, &fde, NULL);
	if (err)
		return err;
	if (fde.num_fres == 0) {
		/* V3: a DEFAULT FDE with no FREs marks an outermost frame. */
		if (sec->version == SFU_VERSION_3) {
			fre->start = 0;
			fre->info = 0;
			fre->count = 0;
			fre->wsize = 1;
			return sfu_row_from_fre(sec, &fde, fre, row);
		}
		return SFU_E_NOINFO;
	}
	pcoff = (uint32_t)(pc - fde.start);
	if (fde.pctype == SFU_FDE_PCTYPE_MASK && fde.rep_size)
		pcoff %= fde.rep_size;
	/* Scan until the first FRE that starts past the PC. */
	off = fde.fre_off;
	for (k = 0; k < fde.num_fres; k++) {
		err = sfu_fre_get(sec, &fde, off, fre);
		if (err)
			return err;
		if (k && fre->start < prev)
			return SFU_E_FRE_ORDER;
		prev = fre->start;
		if (fre->start > pcoff)
			break;
		t = best; /* keep this one, decode the next into the other buffer */
		best = fre;
		fre = t;
		have = true;
		off = best->next;
	}
	if (!have)
		return SFU_E_NOINFO;
	return sfu_row_from_fre(sec, &fde, best, row);
}

SFU__FN int sfu_find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
{
	size_t i;
	int first_err = SFU_E_NOINFO;
	if (!secs && nsecs)
		return SFU_E_ARG;
	for (i = 0; i < nsecs; i++) {
		int err = sfu_find_row(&secs[i], pc, row);
		if (err == SFU_OK)
			return SFU_OK;
		/* A corrupt section is reported unless another one covers pc. */
		if (err != SFU_E_NOINFO && first_err == SFU_E_NOINFO)
			first_err = err;
	}
	return first_err;
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
		uint32_t off, prev = 0;
		err = sfu_fde_get(sec, i, &fde);
		if (err)
			break;
		if ((sec->flags & SFU_F_FDE_SORTED) && i && fde.start < prev_start) {
			err = SFU_E_UNSORTED;
			break;
		}
		prev_start = fde.start;
		off = fde.fre_off;
		for (k = 0; k < fde.num_fres && !err; k++) {
			err = sfu_fre_get(sec, &fde, off, &fre);
			if (err)
				break;
			if (k && fre.start < prev)
				err = SFU_E_FRE_ORDER;
			else
				err = sfu_row_from_fre(sec, &fde, &fre, &row);
			prev = fre.start;
			off = fre.next;
		}
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

/* Field by field: a struct assignment may become a call to memcpy, which a
 * freestanding image need not have. */
static void sfu__set_regs(sfu_regs *d, const sfu_regs *r)
{
	d->pc = r->pc;
	d->sp = r->sp;
	d->fp = r->fp;
	d->ra = r->ra;
	d->dwarf = r->dwarf;
	d->ndwarf = r->ndwarf;
}

static unsigned sfu__align(unsigned abi)
{
	/* Minimum CFA alignment: AAPCS64 keeps SP 16-aligned at every call; on
	 * amd64 and s390x we only ask for 8 (kernels often build with an
	 * 8-byte preferred stack boundary). */
	return (abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AARCH64_BE) ? 16u : 8u;
}

static int sfu__read(const sfu_cursor *c, uint64_t addr, uint64_t *out)
{
	if (addr & 7u)
		return SFU_E_ALIGN;
	return c->port->read(c->port->ctx, addr, out) ? SFU_E_READ : SFU_OK;
}

/* Value of a rule base in the current frame. */
static int sfu__base(const sfu_cursor *c, uint16_t base, uint64_t cfa, uint64_t *v)
{
	switch (base) {
	case SFU_REG_SP: *v = c->regs.sp; return SFU_OK;
	case SFU_REG_FP: *v = c->regs.fp; return SFU_OK;
	case SFU_REG_CFA: *v = cfa; return SFU_OK;
	default:
		/* Any other register is known only in a frame whose full register
		 * set we were given (spec appendix A, ERR_SFRAME_UNSAFE_UNWIND). */
		if (!c->full || !c->regs.dwarf || base >= c->regs.ndwarf)
			return SFU_E_UNSAFE;
		*v = c->regs.dwarf[base];
		return SFU_OK;
	}
}

static int sfu__apply(const sfu_cursor *c, const sfu_rule *r, uint64_t cfa, uint64_t *v)
{
	uint64_t b;
	int err = sfu__base(c, r->base, cfa, &b);
	if (err)
		return err;
	b += (uint64_t)(int64_t)r->off;
	if (r->kind == SFU_RULE_DEREF)
		return sfu__read(c, b, v);
	*v = b;
	return SFU_OK;
}

SFU__FN int sfu_cursor_init(sfu_cursor *c, const sfu_section *secs, size_t nsecs,
                            const sfu_port *port, const sfu_regs *regs)
{
	if (!c || !port || !port->read || !regs || (!secs && nsecs))
		return SFU_E_ARG;
	c->secs = secs;
	c->nsecs = nsecs;
	c->port = port;
	sfu__set_regs(&c->regs, regs);
	c->cfa = 0;
	c->depth = 0;
	c->exact = 1;
	c->full = 1;
	c->how = SFU_HOW_START;
	c->abi = nsecs ? secs[0].abi : 0;
	return SFU_OK;
}

/* Check the caller's SP against the callee's: the stack must move toward its
 * base (higher addresses on every supported ABI), stay inside the port's
 * bounds and stay aligned. */
static int sfu__check_sp(const sfu_cursor *c, uint64_t new_sp, uint64_t cfa, unsigned abi)
{
	if (cfa & (sfu__align(abi) - 1u))
		return SFU_E_ALIGN;
	/* Equal is allowed only out of a frame with full registers (a leaf that
	 * has not pushed anything yet); otherwise two frames could repeat. */
	if (new_sp < c->regs.sp || (new_sp == c->regs.sp && !c->full))
		return SFU_E_WRONG_WAY;
	if ((c->port->stack_lo || c->port->stack_hi) &&
	    (new_sp < c->port->stack_lo || new_sp > c->port->stack_hi))
		return SFU_E_STACK_BOUNDS;
	return SFU_OK;
}

#if SFU_FP_FALLBACK
/* Frame-record walk for code with no SFrame info: amd64 [rbp] = saved rbp,
 * [rbp+8] = RA; aarch64 [x29] = saved x29, [x29+8] = x30.  Not on s390x. */
static int sfu__fp_step(sfu_cursor *c, sfu_regs *next, uint64_t *cfa)
{
	uint64_t fp = c->regs.fp, ra, nfp;
	int err;
	if (c->abi == SFU_ABI_S390X_BE || c->abi == 0 || fp == 0)
		return SFU_E_NOINFO;
	err = sfu__read(c, fp, &nfp);
	if (!err)
		err = sfu__read(c, fp + 8u, &ra);
	if (err)
		return err;
	*cfa = fp + 16u;
	next->pc = ra;
	next->sp = fp + 16u;
	next->fp = nfp;
	return SFU_OK;
}
#endif

SFU__FN int sfu_cursor_step(sfu_cursor *c)
{
	sfu_row row;
	sfu_regs next;
	uint64_t cfa, lookup_pc, ra = 0, fp;
	uint8_t how = SFU_HOW_SFRAME, next_exact = 0;
	int err;

	if (!c || !c->port)
		return SFU_E_ARG;
	if (c->depth + 1u >= SFU_DEPTH_CAP)
		return SFU_E_DEPTH;
	if (c->regs.pc == 0)
		return SFU_END;

	/* A return address may be the first byte of the next function (after a
	 * call to a noreturn function): look the caller up at ra - 1.  The
	 * first frame and interrupted frames have an exact PC. */
	lookup_pc = c->exact ? c->regs.pc : c->regs.pc - 1u;
	err = sfu_find_row_n(c->secs, c->nsecs, lookup_pc, &row);
	next.dwarf = NULL;
	next.ndwarf = 0;
	next.ra = 0;
	if (err == SFU_E_NOINFO && c->port->trap) {
		/* Exception vector code: the port knows the trap frame there. */
		sfu_regs t;
		if (c->port->trap(c->port->ctx, c->regs.pc, c->regs.sp, &t)) {
			/* The interrupted SP need not be aligned (an interrupt can
			 * land anywhere) and may be on another stack than the
			 * handler's (aarch64 SP_EL1 vs SP_EL0, x86_64 IST), so the
			 * direction check does not apply across a trap; the port
			 * recognised the trap return point, and the depth cap still
			 * bounds a walk that comes back here.  Zero is no stack. */
			if (t.sp == 0)
				return SFU_E_WRONG_WAY;
			if ((c->port->stack_lo || c->port->stack_hi) &&
			    (t.sp < c->port->stack_lo || t.sp > c->port->stack_hi))
				return SFU_E_STACK_BOUNDS;
			sfu__set_regs(&c->regs, &t);
			c->cfa = t.sp;
			c->exact = 1;
			c->full = 1;
			c->how = SFU_HOW_TRAP;
			c->depth++;
			return SFU_OK;
		}
	}
#if SFU_FP_FALLBACK
	if (err == SFU_E_NOINFO) {
		err = sfu__fp_step(c, &next, &cfa);
		if (err)
			return err;
		err = sfu__check_sp(c, next.sp, cfa, c->abi);
		if (err)
			return err;
		how = SFU_HOW_FP;
		goto done;
	}
#endif
	if (err)
		return err;

	/* CFA, then RA and FP relative to it (spec appendix A). */
	err = sfu__apply(c, &row.cfa, 0, &cfa);
	if (err)
		return err;
	switch (row.ra.kind) {
	case SFU_RULE_UNDEF:
		return SFU_END;
	case SFU_RULE_SAME:
		/* RA still in the link register: true only where we know it. */
		if (!c->full)
			return SFU_E_UNSAFE;
		ra = c->regs.ra;
		break;
	default:
		err = sfu__apply(c, &row.ra, cfa, &ra);
		if (err)
			return err;
	}
	if (row.fp.kind == SFU_RULE_SAME) {
		fp = c->regs.fp;
	} else {
		err = sfu__apply(c, &row.fp, cfa, &fp);
		if (err)
			return err;
	}
	if (row.mangled_ra && c->port->strip_ra)
		ra = c->port->strip_ra(c->port->ctx, ra);
	next.pc = ra;
	next.sp = cfa + (uint64_t)(int64_t)row.sp_from_cfa;
	next.fp = fp;
	err = sfu__check_sp(c, next.sp, cfa, row.abi);
	if (err)
		return err;
	/* Out of a signal trampoline the caller was interrupted: exact PC. */
	next_exact = row.signal;
#if SFU_FP_FALLBACK
done:
#endif
	if (next.pc == 0)
		return SFU_END; /* RA of 0: conventional end of the stack */
	sfu__set_regs(&c->regs, &next);
	c->cfa = cfa;
	c->exact = next_exact;
	c->full = 0;
	c->how = how;
	c->depth++;
	return SFU_OK;
}

SFU__FN int sfu_backtrace(const sfu_section *secs, size_t nsecs, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	sfu_cursor c;
	size_t k = 0;
	int err;

	if (!n || (!frames && max))
		return SFU_E_ARG;
	*n = 0;
	err = sfu_cursor_init(&c, secs, nsecs, port, regs);
	if (err)
		return err;
	for (;;) {
		if (k == max)
			return SFU_E_FULL;
		frames[k].pc = c.regs.pc;
		frames[k].sp = c.regs.sp;
		frames[k].cfa = c.cfa;
		frames[k].how = c.how;
		*n = ++k;
		err = sfu_cursor_step(&c);
		if (err)
			return err;
	}
}

#if SFU_ERROR_STRINGS
SFU__FN const char *sfu_strerror(int err)
{
	switch (err) {
#define SFU__STR(name, value, text) case name: return text;
	SFU_ERRORS(SFU__STR)
#undef SFU__STR
	default: return "?";
	}
}
#endif

#endif /* SFU_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
