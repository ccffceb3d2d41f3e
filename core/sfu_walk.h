/* SPDX-License-Identifier: MIT */
/* sfu_walk.h - what a panic runs, and what a reviewer certifies: the
 * section reader, the versions, the header, FDEs, FREs, rows, the lookup,
 * the step and the walk.  Preprocessor conditionals only around whole
 * functions: a knob picks a function, never a line inside one.
 * A part of sfu.h's implementation, included by sfu.h under
 * SFU_IMPLEMENTATION (one translation unit); not a header of its own. */
#ifndef SFU_WALK_H
#define SFU_WALK_H
#ifndef SFU_IMPLEMENTATION_DONE
#error "sfu_walk.h is a part of sfu.h: #define SFU_IMPLEMENTATION, then #include \"sfu.h\""
#endif

/* ======================================================================== *
 * The panic path
 *
 * The reader, the section header, FDEs, FREs, rows, the search, the step
 * per frame source and the walk, in that order: all a panic handler runs.
 * The speed machinery (SFU_INDEX, SFU_CACHE, SFU_FAST) is sfu_fast.h; it
 * plugs in at "the speed part's hooks" and in the functions marked
 * "SFU_FAST: sfu_fast.h".
 * ======================================================================== */

/* ---- the one bounds-checked reader ---------------------------------------
 * Every section byte is read by the loads below, and only after the range
 * was checked against the end of the sub-section being read (never past the
 * section) with arithmetic that cannot overflow: sfu__in is that check.
 * Bytes are assembled in the section's byte order; compilers turn each
 * load into one (unaligned-safe) load instruction, byte-swapped for a
 * foreign order.  No casts over the buffer, so no alignment traps. */

/* The loads and the step's helpers are a few instructions each: inline
 * them.  (Letting -Os decide costs stack: a frame per helper.)  Without
 * SFU_FAST every function out of line is also marked cold: gcc and clang
 * compile a cold function for size whatever the optimisation level (and
 * what only cold functions call, too), which is what a crash path that
 * runs once wants (gcc 12 -O2: the README's step 3 image 19.8 -> 15.4 KB
 * of .text on x86_64); they may place it in .text.unlikely (a linker
 * script's `*(.text .text.*)` takes it). */
#if defined(__GNUC__) || defined(__clang__)
#define SFU__INLINE static inline __attribute__((always_inline))
#if SFU_FAST
#define SFU__NOINLINE __attribute__((noinline))
#else
#define SFU__NOINLINE __attribute__((noinline, cold))
#endif
#define SFU__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SFU__LIKELY(x) __builtin_expect(!!(x), 1)
/* A loop a compiler would turn into a call to the C library (a NUL scan
 * into strlen: clang 21 and later do, unless the file is built with
 * -ffreestanding or -fno-builtin, which many kernels do not pass) stays a
 * loop: p is made opaque at each step. */
#define SFU__KEEP_LOOP(p) __asm__("" : "+r"(p))
#else
#define SFU__INLINE static inline
#define SFU__NOINLINE
#define SFU__UNLIKELY(x) (x)
#define SFU__LIKELY(x) (x)
#define SFU__KEEP_LOOP(p) ((void)0)
#endif

/* ---- the code shape: SFU_FAST ----------------------------------------------
 * Without SFU_FAST the panic path has one shape at every optimisation
 * level: a piece several callers share is called, one copy.  With it,
 * sfu_fast.h puts faster forms (inlined, copied into each caller and
 * specialised there) in the place of the functions marked "SFU_FAST" below,
 * and says what each costs and gains.  SFU__HOT marks the few called from
 * several places that it inlines (sfu__fde_decode, sfu__crow, the walk's
 * sfu__step), SFU__LOAD the 2-, 4- and 8-byte loads. */
#if SFU_FAST
#define SFU__HOT SFU__INLINE
#define SFU__LOAD SFU__INLINE
#else
#define SFU__HOT static SFU__NOINLINE
#define SFU__LOAD static SFU__NOINLINE
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
 * constant (with SFU_FAST the lookup is compiled once per order; a build
 * with one order); called or inlined as SFU_FAST says (SFU__LOAD). */

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

#if SFU_FAST
SFU__LOAD uint64_t sfu__ld64b(const uint8_t *d, uint32_t off, bool big); /* SFU_FAST: sfu_fast.h */
SFU__INLINE uint32_t sfu__ldnb(const uint8_t *d, uint32_t off, uint32_t n, bool big);
#else
/* An 8-byte field (a V3 function start: one per probe of the binary
 * search), its two halves assembled as sfu__ld32b does, in line: no call,
 * so no frame on the search's path.  (A byte loop was half of a V3 cold
 * walk's instructions.) */
SFU__LOAD uint64_t sfu__ld64b(const uint8_t *d, uint32_t off, bool big)
{
	const uint8_t *p = d + off;
	if (big)
		return (uint64_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) << 32 |
		       ((uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7]);
	return (uint64_t)((uint32_t)p[7] << 24 | (uint32_t)p[6] << 16 | (uint32_t)p[5] << 8 | p[4]) << 32 |
	       ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

/* A 1-, 2- or 4-byte unsigned field, a byte at a time. */
static uint32_t sfu__ldnb(const uint8_t *d, uint32_t off, uint32_t n, bool big)
{
	uint32_t v = 0, i;
	for (i = 0; i < n; i++)
		v |= (uint32_t)d[off + (big ? n - 1u - i : i)] << (8u * i);
	return v;
}
#endif

/* The same in the section's own order. */
SFU__INLINE uint32_t sfu__ld32(const sfu_section *s, uint32_t off)
{
	return sfu__ld32b(s->data, off, SFU__BIG(s));
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
 * layouts goes away.  With SFU_FAST the lookup is also compiled for each
 * constant layout (sfu_fast.h: sfu__section_row). */
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

/* The FRE of a V3 FDE without FREs (2.3.2): no data words, the outermost
 * frame. */
SFU__INLINE void sfu__fre_none(sfu_fre *fre)
{
	fre->start = fre->next = fre->words = 0;
	fre->info = fre->count = 0;
	fre->wsize = 1;
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

/* The FLEX rules (compiled out with SFU_FLEX 0: nothing calls them). */
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

/* GNU ld's .plt.got FDE (PRODUCER ERRORS at the top): a V2/V3 PC-mask FDE
 * whose only FRE, fre, starts at 0 and says amd64's CFA = SP + 16 and
 * nothing else (RA at the fixed CFA - 8; FP not saved, not mangled, no
 * signal bit: flags RA_SAVED alone, which only amd64 rows can have, the
 * others carry ALIGN16 or SP_S390X; FLEX FDEs never get here).  At a
 * called stub's entry only the RA is on the stack: SP + 8.  The one test
 * on the common path is marked unlikely (none with SFU_FIX_LD_PLTGOT 0). */
SFU__INLINE void sfu__fix_pltgot(const sfu__layout *L, const sfu_fde *f, const sfu_fre *fre, sfu__compact_row *r)
{
	if (SFU__UNLIKELY(SFU_FIX_LD_PLTGOT && SFU_AMD64 && f->pctype == SFU_FDE_PCTYPE_MASK && L->rep_at) &&
	    r->flags == SFU__CROW_RA_SAVED && r->u.off.cfa == 16 && r->u.off.ra == -8 && f->num_fres == 1 &&
	    fre->start == 0)
		r->u.off.cfa = 8;
}

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
	if (SFU_FLEX && f->type == SFU_FDE_TYPE_FLEX) {
		/* (Its rules are checked by the caller: sfu__crow_fre, or
		 * sfu__row_from_fre, which decodes them.) */
		r->u.flex.sec = 0; /* (the lookup over sections sets it) */
		r->u.flex.words = words;
		r->u.flex.info = info;
		r->flags = flags | SFU__CROW_GENERAL | SFU__CROW_FLEX;
		return SFU_OK;
	}
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
	sfu__fix_pltgot(L, f, fre, r);
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
	if (SFU_FLEX && !err && (r->flags & SFU__CROW_FLEX))
		err = sfu__flex_rules(s, fre->words, fre->info, NULL, NULL, NULL); /* a row no reader may accept */
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

/* ---- the speed part's hooks ------------------------------------------------
 * SFU_INDEX and SFU_CACHE plug into the walk here and nowhere else, one
 * place per layer: an FDE index narrows the FDE search (sfu__index_fdes,
 * in sfu__search_fde), a row index answers for its section
 * (sfu__index_row, in sfu__section_row), the walk's lookup asks the
 * cache, or else the first section's row index, before any call
 * (sfu__fast_row, in sfu__lookup), and a cursor carries its cache
 * (sfu__cursor_cache).  With those knobs sfu_fast.h defines them; without,
 * they are the forms below, which answer "no index, no cache" and compile
 * to nothing.  SFU__SEARCH: "search the section as if there were no
 * index". */
#define SFU__SEARCH (-1)
#if SFU_INDEX
SFU__INLINE int sfu__index_fdes(const sfu_section *s, uint64_t pc, uint32_t *lo, uint32_t *hi, bool *sorted);
SFU__INLINE int sfu__index_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r);
#else
/* The FDEs [*lo, *hi) to search for pc, sorted or not (*sorted). */
SFU__INLINE int sfu__index_fdes(const sfu_section *s, uint64_t pc, uint32_t *lo, uint32_t *hi, bool *sorted)
{
	(void)s, (void)pc, (void)lo, (void)hi, (void)sorted;
	return SFU_OK;
}

/* The row for pc from the section's row index, or SFU__SEARCH. */
SFU__INLINE int sfu__index_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
	(void)s, (void)pc, (void)r;
	return SFU__SEARCH;
}
#endif
#if SFU_INDEX || SFU_CACHE
SFU__INLINE int sfu__fast_row(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r, sfu__compact_row *t);
#else
/* The row for lookup PC pc from the cache or the first section's row
 * index (into *r; t: a scratch row), or SFU__SEARCH. */
SFU__INLINE int sfu__fast_row(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r, sfu__compact_row *t)
{
	(void)c, (void)cache, (void)pc, (void)r, (void)t;
	return SFU__SEARCH;
}
#endif
#if SFU_CACHE
SFU__INLINE void *sfu__cursor_cache(const sfu_cursor *c);
SFU__INLINE void sfu__cursor_set_cache(sfu_cursor *c, void *cache);
#else
/* The cache of cursor c (sfu_cursor_step's; NULL: none). */
SFU__INLINE void *sfu__cursor_cache(const sfu_cursor *c)
{
	(void)c;
	return NULL;
}

SFU__INLINE void sfu__cursor_set_cache(sfu_cursor *c, void *cache)
{
	(void)c, (void)cache;
}
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

/* The last FDE starting at or before the PC, *cnt of them doing so. */
SFU__INLINE int sfu__last_fde(uint32_t *cnt)
{
	if ((*cnt)-- == 0)
		return SFU_E_NOINFO;
	return SFU_OK;
}

#if SFU_FAST
SFU__INLINE int sfu__sorted_fde(const sfu_section *s, const sfu__layout *L, uint64_t pc, uint32_t lo, uint32_t hi,
                                bool big, uint32_t *i); /* SFU_FAST: sfu_fast.h */
#else
/* Of a sorted section's FDEs [lo, hi), the last starting at or before pc
 * (*i). */
SFU__INLINE int sfu__sorted_fde(const sfu_section *s, const sfu__layout *L, uint64_t pc, uint32_t lo, uint32_t hi,
                                bool big, uint32_t *i)
{
	int err = sfu__bsearch(s, L, pc, lo, hi, sfu__pcrel_mask(s), big, i);

	if (err)
		return err;
	return sfu__last_fde(i);
}
#endif

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

	/* Hook: an index narrows the search. */
	err = sfu__index_fdes(s, pc, &lo, &hi, &sorted);
	if (err)
		return err;
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

#if SFU_FAST
SFU__INLINE int sfu__fre_scan_fde(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, uint32_t pcoff,
                                  bool big, sfu_fre *fre); /* SFU_FAST: sfu_fast.h */
#else
/* sfu__fre_scan, the size of an FRE start read from the FDE. */
SFU__INLINE int sfu__fre_scan_fde(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, uint32_t pcoff,
                                  bool big, sfu_fre *fre)
{
	return sfu__fre_scan(s, L, f, pcoff, sfu__addr_bytes(f->fre_type), big, fre);
}
#endif

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
	return sfu__fre_scan_fde(s, L, f, pcoff, big, fre);
}

static int sfu__search(const sfu_section *s, uint64_t pc, sfu_fde *f, uint32_t *idx, sfu_fre *fre)
{
	return sfu__search_fre(s, SFU__LAY(s), pc, f, idx, fre, SFU__BIG(s));
}

#if SFU_FAST
static SFU__NOINLINE int sfu__section_row(const sfu_section *s, uint64_t pc,
                                          sfu__compact_row *r); /* SFU_FAST: sfu_fast.h */
#else
/* The compact row for pc in one section: from its row index if it has
 * one, else by the search, through its one copy (sfu__search): the FDE,
 * its FRE, the row. */
static SFU__NOINLINE int sfu__section_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
	sfu_fde fde;
	sfu_fre fre;
	/* Hook: a row index answers, or sends the lookup on. */
	int err = sfu__index_row(s, pc, r);

	if (err != SFU__SEARCH)
		return err;
	err = sfu__search(s, pc, &fde, NULL, &fre);
	return err ? err : sfu__crow_fre(s, SFU__LAY(s), &fde, &fre, SFU__BIG(s), r);
}
#endif

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
#define SFU__READ_HOOK 1 /* sfu_port.read is not called */
#else
#define SFU__PORT_READ(p, a, o) (p)->read((p)->ctx, (a), (o))
#define SFU__READ_HOOK 0
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

/* Does port p declare any stack? */
SFU__INLINE bool sfu__port_bounded(const sfu_port *p)
{
	return p->stack_lo || p->stack_hi || (p->stacks && p->nstacks);
}

/* The stack of port p that holds sp, into *st; false if none does (or p
 * declares none). */
static bool sfu__port_stack(const sfu_port *p, uint64_t sp, sfu_stack *st)
{
	size_t i;
	if ((p->stack_lo || p->stack_hi) && sp >= p->stack_lo && sp <= p->stack_hi) {
		st->lo = p->stack_lo;
		st->hi = p->stack_hi;
		return true;
	}
	for (i = 0; p->stacks && i < p->nstacks; i++) {
		if (sp >= p->stacks[i].lo && sp <= p->stacks[i].hi) {
			st->lo = p->stacks[i].lo;
			st->hi = p->stacks[i].hi;
			return true;
		}
	}
	return false;
}

/* Make the stack holding sp the current one (c->stack_lo/hi).  False if
 * the port declares stacks and none holds sp: then nothing fits.  A port
 * that declares none bounds nothing: every address is on its one stack
 * (so the check per frame is the range test alone). */
static bool sfu__pick_stack(sfu_cursor *c, uint64_t sp)
{
	sfu_stack st;
	c->bounded = sfu__port_bounded(c->port) ? 1 : 0;
	c->stack_lo = c->bounded; /* 1, 0: empty until found */
	c->stack_hi = c->bounded ? 0u : UINT64_MAX;
	if (!c->bounded)
		return true;
	if (!sfu__port_stack(c->port, sp, &st))
		return false;
	c->stack_lo = st.lo;
	c->stack_hi = st.hi;
	return true;
}

/* Is sp on the current frame's stack?  (Unbounded: [0, UINT64_MAX].) */
SFU__INLINE bool sfu__on_stack(const sfu_cursor *c, uint64_t sp)
{
	return sp >= c->stack_lo && sp <= c->stack_hi;
}

/* A return address of 0 (or an interrupted PC of 0 in a zeroed trap
 * frame) with caller SP sp: the end where the code that started the stack
 * left it, its first frame's caller SP within the port's top bytes below
 * the current stack's top (SFU_END); anywhere else, or on a port that
 * declares no stack, a misread that landed on zeroed memory as likely as
 * an end (SFU_E_ZERO_RA).  (THE END OF A STACK, sfu.h.) */
static SFU__NOINLINE int sfu__zero_end(const sfu_cursor *c, uint64_t sp)
{
	uint64_t top = c->port->top ? c->port->top : (uint64_t)SFU_TOP_FRAME;

	return c->bounded && sp <= c->stack_hi && c->stack_hi - sp <= top ? SFU_END : SFU_E_ZERO_RA;
}

/* The FDE of the first of the sections that describes pc, into *f;
 * false if none does. */
static SFU__NOINLINE bool sfu__fde_of(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_fde *f)
{
	size_t i;

	for (i = 0; i < nsecs; i++) {
		if (sfu__search(&secs[i], pc, f, NULL, NULL) == SFU_OK)
			return true;
	}
	return false;
}

/* What a context said to run at a lower privilege level is: user code
 * (SFU_TRAP_USER) only where neither its SP nor its PC is the kernel's;
 * an SP on a stack the port declares, or a PC the sections describe, is
 * kernel code (an RTOS's EL0 task on its own stack; a mode word misread):
 * SFU_TRAP_KERNEL, the walk goes on; a PC of 0 is no context at all
 * (SFU_TRAP_PC_ZERO).  For the trap step and the dump's first frames. */
static SFU__NOINLINE int sfu__user_kind(const sfu_port *p, const sfu_section *secs, size_t nsecs, uint64_t pc,
                                        uint64_t sp)
{
	sfu_stack st;
	sfu_fde f;

	if (pc == 0)
		return SFU_TRAP_PC_ZERO;
	if ((sfu__port_bounded(p) && sfu__port_stack(p, sp, &st)) || sfu__fde_of(secs, nsecs, pc, &f))
		return SFU_TRAP_KERNEL;
	return SFU_TRAP_USER;
}

/* Does the frame at lookup PC lpc (pc: its PC) belong to a function the
 * port names as an entry: the FDE covering lpc starts at one, or pc is
 * one (a return address planted at an exit routine's first byte)?  One
 * search of the sections' FDEs, only for a port that names entries. */
static SFU__NOINLINE bool sfu__at_entry(const sfu_cursor *c, uint64_t pc, uint64_t lpc)
{
	const sfu_port *p = c->port;
	sfu_fde f;
	size_t i;
	bool found = sfu__fde_of(c->secs, c->nsecs, lpc, &f);

	for (i = 0; i < p->nentries; i++) {
		if (p->entries[i] == pc || (found && p->entries[i] == f.start))
			return true;
	}
	return false;
}

SFU__FN int sfu_cursor_init(sfu_cursor *c, const sfu_section *secs, size_t nsecs,
                            const sfu_port *port, const sfu_regs *regs)
{
	if (!c || !port || (!SFU__READ_HOOK && !port->read) || !regs || (!secs && nsecs))
		return SFU_E_ARG;
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
	sfu__cursor_set_cache(c, NULL);
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
#define SFU__ROW_READ(a, o) sfu__port_load(SFU__READ_HOOK ? port : c->port, (a), (o)) /* (see SFU__PORT_READ) */
SFU__INLINE int sfu__unwind(sfu_cursor *c, uint32_t f, const sfu__compact_row *r, const sfu_rule *g)
{
	const sfu_port *port = c->port;
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
		return sfu__zero_end(c, sp); /* the end, at the stack's top only */
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

#if SFU_FAST
SFU__INLINE int sfu__from_row(sfu_cursor *c, const sfu__compact_row *r); /* SFU_FAST: sfu_fast.h */
#else
/* Out of a frame by its compact row (3.1). */
SFU__INLINE int sfu__from_row(sfu_cursor *c, const sfu__compact_row *r)
{
	return sfu__unwind(c, r->flags, r, NULL);
}
#endif

/* Out of a frame by the general rules of its row r (FLEX FDEs, V2 s390x
 * register rules; every row with SFU_COMPACT 0; compiled out where every
 * row is compact: SFU__GENERAL_STEP). */
SFU__INLINE int sfu__unwind_general(sfu_cursor *c, const sfu__compact_row *r)
{
	uint32_t flags = r->flags;
	sfu_rule g[3];
	int err = SFU_OK;
	if (SFU_FLEX && (flags & SFU__CROW_FLEX))
		err = sfu__flex_rules(&c->secs[r->u.flex.sec], r->u.flex.words, r->u.flex.info, &g[0], &g[1], &g[2]);
	if (!SFU_FLEX || !(flags & SFU__CROW_FLEX))
		sfu__crow_rules(r, &g[0], &g[1], &g[2]);
	if (err)
		return err;
	return sfu__unwind(c, flags, NULL, g);
}

#if SFU_FAST
SFU__INLINE int sfu__from_general(sfu_cursor *c, const sfu__compact_row *r); /* SFU_FAST: sfu_fast.h */
#else
/* The general rules' step, out of line, the step's row by address: it is
 * on the step's frame already. */
static SFU__NOINLINE int sfu__from_general(sfu_cursor *c, const sfu__compact_row *r)
{
	return sfu__unwind_general(c, r);
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
	/* PC 0 and no return address either: no context at all (a zeroed
	 * or misread one), never an end. */
	if (ra == 0)
		return SFU_E_ZERO_RA;
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
	if (kind == SFU_TRAP_EMPTY)
		/* Nothing was ever saved there: the context below never ran,
		 * known only where the frame ends at the stack's top (t.sp:
		 * the frame's end, as the port gives it). */
		return t.sp > c->regs.sp && sfu__zero_end(c, t.sp) == SFU_END ? SFU_END_NEVER_RAN : SFU_E_ZERO_RA;
	if (kind == SFU_TRAP_PC_ZERO)
		return SFU_E_ZERO_RA;
	if (kind != SFU_TRAP_KERNEL && kind != SFU_TRAP_USER)
		return SFU_E_READ; /* (no answer a port may give) */
	if (kind == SFU_TRAP_USER)
		kind = sfu__user_kind(c->port, c->secs, c->nsecs, t.pc, t.sp);
	if (kind == SFU_TRAP_PC_ZERO)
		return SFU_E_ZERO_RA;
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

/* Frame record where a PC has no SFrame info (SFU_FP_FALLBACK): amd64
 * [rbp] = saved rbp, [rbp+8] = RA; aarch64 [x29] = saved x29, [x29+8] =
 * x30.  (s390x has none.) */
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
		return sfu__zero_end(c, cfa);
	sfu__commit(c, ra, cfa, fp, true, cfa, SFU_HOW_FP, false);
	return SFU_OK;
}

#if SFU_FAST
SFU__INLINE int sfu__lookup(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r); /* SFU_FAST: sfu_fast.h */
#else
/* The row for lookup PC pc into the step's row *r: from the speed part if
 * it answers (the hook: the cache, or the first section's row index), else
 * by the search of the sections. */
SFU__INLINE int sfu__lookup(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r)
{
	/* Hook: the speed part, the step's row as its scratch row. */
	int err = sfu__fast_row(c, cache, pc, r, r);

	if (err != SFU__SEARCH)
		return err;
	return sfu__lookup_row(c->secs, c->nsecs, pc, r);
}
#endif

/* One step, in the caller's cursor (sfu_cursor_step, and the walk's loop
 * below): its frame holds the row and what the step needs across calls,
 * nothing more; the walk's cursor is its caller's.  With SFU_FAST the
 * walk's loop has its own copy (no call per frame). */
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
		 * address is where the call left it.  Elsewhere (no step
		 * reaches one: a return address of 0 stops it), PC 0 is the
		 * end only at the stack's top. */
		if (!c->full)
			return sfu__zero_end(c, c->regs.sp);
		return sfu__from_null_call(c);
	}
	/* A return address may be the first byte of the next function (after a
	 * call to a noreturn function): look the caller up at ra - 1.  The
	 * first frame and interrupted frames have an exact PC. */
	lpc = c->regs.pc - 1u + (c->exact != 0);
	/* A function the port names as an entry is the outermost. */
	if (c->port->nentries && c->port->entries && sfu__at_entry(c, c->regs.pc, lpc))
		return SFU_END;
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
		if (SFU_FP_FALLBACK && c->abi != 0 && !SFU__S390X(c->abi) && c->regs.fp != 0 && c->fp_ok)
			return sfu__from_fp(c);
	}
	if (err)
		return err;
	if (SFU__GENERAL_STEP && (r.flags & SFU__CROW_GENERAL))
		return sfu__from_general(c, &r);
	return sfu__from_row(c, &r);
}

SFU__FN int sfu_cursor_step(sfu_cursor *c)
{
	if (!c || !c->port)
		return SFU_E_ARG;
	return sfu__step(c, sfu__cursor_cache(c));
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

/* One step of the walk, and whether frames[] has room for the frame it
 * reached (f: where it would go). */
SFU__INLINE int sfu__walk_step(sfu_cursor *c, void *cache, const sfu_frame *f, const sfu_frame *end)
{
	int err = sfu__step(c, cache);

	if (!err && f == end)
		err = SFU_E_FULL;
	return err;
}

#if SFU_FAST
SFU__INLINE sfu_frame *sfu__walk_frames(sfu_cursor *c, void *cache, sfu_frame *f, sfu_frame *end,
                                        int *err); /* SFU_FAST: sfu_fast.h */
#else
/* The frames of the walk from f on (max > 0): each recorded when the step
 * has reached it, before the next step, whose result (*err) says whether
 * the trace is complete.  Returns one past the last frame recorded. */
SFU__INLINE sfu_frame *sfu__walk_frames(sfu_cursor *c, void *cache, sfu_frame *f, sfu_frame *end, int *err)
{
	do
		sfu__record(c, f++);
	while (!(*err = sfu__walk_step(c, cache, f, end)));
	return f;
}
#endif

/* The walk of sfu_backtrace and sfu_backtrace_cached (in line in each):
 * the cursor is in the public function's own frame, and each frame is
 * recorded before the step that leaves it. */
SFU__INLINE int sfu__walk(const sfu_section *secs, size_t nsecs, void *cache, const sfu_port *port,
                          const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	sfu_cursor c;
	sfu_frame *f;
	int err;
	if (!n || (!frames && max))
		return SFU_E_ARG;
	*n = 0;
	err = sfu_cursor_init(&c, secs, nsecs, port, regs);
	if (err)
		return err;
	if (max == 0)
		return SFU_E_FULL;
	f = sfu__walk_frames(&c, cache, frames, frames + max, &err);
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

#endif /* SFU_WALK_H */
