/* SPDX-License-Identifier: MIT */
/* sfu_fast.h - the speed machinery: the fast forms of the panic path
 * (SFU_FAST), the indexes (SFU_INDEX) and the row cache (SFU_CACHE).  The
 * only part that changes the code's shape, and only when asked: with none
 * of the three knobs on it compiles to nothing.
 * A part of sfu.h's implementation, included by sfu.h under
 * SFU_IMPLEMENTATION (one translation unit); not a header of its own. */
#ifndef SFU_FAST_H
#define SFU_FAST_H
#ifndef SFU_IMPLEMENTATION_DONE
#error "sfu_fast.h is a part of sfu.h: #define SFU_IMPLEMENTATION, then #include \"sfu.h\""
#endif

/* ======================================================================== *
 * The speed machinery
 *
 * sfu_walk.h is the panic path, whole.  What follows only makes it faster:
 * faster forms of some of its functions (SFU_FAST), an index per section
 * built once at boot in caller memory (FDE index: the FDEs to search per
 * block of code; row index: every row compiled), and the row cache of
 * repeated walks.  It plugs into the walk through the hooks sfu_walk.h
 * declares ("the speed part's hooks"), and answers exactly what the search
 * would (the unit tests and the fuzzers' cross-checks compare every PC
 * both ways, and run both shapes).
 * ======================================================================== */

/* ---- the fast forms (SFU_FAST) -------------------------------------------
 * SFU_FAST trades code for speed in the functions sfu_walk.h marks
 * "SFU_FAST: sfu_fast.h": their forms below are inlined, copied into each
 * caller and specialised there.  Without it (the default unless SFU_INDEX
 * or SFU_CACHE is on) none of them is compiled, and the panic path has
 * sfu_walk.h's one shape at every optimisation level.  What the knob costs
 * and gains, measured (gcc 12, make size's bare-metal flags; the closure
 * of sfu_section_init and sfu_backtrace after --gc-sections, every other
 * knob at its default; aarch64 / x86_64):
 *   .text at -Os      7108 / 6698 B without, 19860 / 17400 B with
 *   .text at -O2      8144 / 8819 B without, 22120 / 21476 B with
 *   (one version, byte order and ABI: -Os 3924 / 5710 B without,
 *   4512 / 6109 B with; -O2 4208 / 7139 B without, 5060 / 7844 B with:
 *   the search is copied per layout and byte order compiled in)
 *   worst-case stack of the walk: -Os 496 / 512 B without, 480 / 496 B
 *   with; -O2 448 / 528 B without, 480 / 488 B with
 *   make bench (x86_64, depth 64, both at -O2, instructions per frame): a
 *   cold walk 1264 without, 696 with (V3; V1 1249 and 700, V2 1252 and
 *   670); with the row cache 168 without, 133 with.  A 64-frame panic walk
 *   takes some 80,000 instructions without (about 3 us on the machine
 *   measured): a panic handler does not need the knob, a sampler gets
 *   more from the cache or the row index.
 * The forms (with the knob; without, in brackets):
 *   SFU__HOT          sfu__fde_decode, sfu__crow and the walk's sfu__step
 *                     inlined (one out-of-line copy each);
 *   SFU__LOAD         sfu__ld16b/32b/64b inlined (called: with strict
 *                     alignment, SFU_SAFE_CODEGEN on aarch64, a 4-byte
 *                     field is 4 loads and 3 shifts);
 *   sfu__ld64b        in line, two 4-byte loads (one copy, called, that
 *                     calls nothing: no frame on the search's path);
 *   sfu__ldnb         a 1-, 2- or 4-byte field in one load (a byte loop);
 *   sfu__sorted_fde   the binary search compiled for each kind of function
 *                     start (one copy that reads it);
 *   sfu__fre_scan_fde the FRE scan compiled for each size of FRE start
 *                     (one copy that reads it);
 *   sfu__section_row  the search compiled for each FDE layout and byte
 *                     order, with those constants (one copy, sfu__search,
 *                     that reads them);
 *   sfu__from_row     the common compact row stepped by a copy of the
 *                     step's sequence of its own, its flags known there
 *                     after one test (one copy that tests each flag);
 *   sfu__from_general the step's row passed by value, so that it stays in
 *                     registers (by address: it is on the step's frame
 *                     already, and a row by value gets a second home on
 *                     the callee's);
 *   sfu__lookup       the out-of-line lookups fill a scratch row, so that
 *                     the step's row stays in registers (they fill the
 *                     step's row: less stack);
 *   sfu__walk_frames  the first frame recorded before the loop, which
 *                     starts at the step (the loop starts at its one
 *                     record). */

#if SFU_FAST || SFU_CACHE
/* The scratch row of the lookups: with SFU_FAST sfu__lookup's own, which
 * the out-of-line calls fill so that the step's row can stay in registers;
 * without, t is the step's row itself.  Zeroed field by field (an
 * initializer may become a call to memset, at -O0), only on the way to a
 * search (a cache hit or a row index does not touch it): a lookup that
 * fails leaves it, and it is copied all the same. */
#if SFU_FAST
SFU__INLINE void sfu__row_clear(sfu__compact_row *t)
{
	t->u.off.cfa = t->u.off.ra = t->u.off.fp = 0;
	t->flags = 0;
}
#else
SFU__INLINE void sfu__row_clear(sfu__compact_row *t)
{
	(void)t; /* t is the step's own row */
}
#endif

/* *r = *t, field by field (a struct assignment may become memcpy). */
SFU__INLINE void sfu__row_set(sfu__compact_row *r, const sfu__compact_row *t)
{
	r->u.off.cfa = t->u.off.cfa;
	r->u.off.ra = t->u.off.ra;
	r->u.off.fp = t->u.off.fp;
	r->flags = t->flags;
}
#endif

#if SFU_FAST
/* Two 4-byte loads (p + 4: one 8-byte load). */
SFU__LOAD uint64_t sfu__ld64b(const uint8_t *d, uint32_t off, bool big)
{
	const uint8_t *p = d + off;
	uint64_t a = sfu__ld32b(p, 0, big), b = sfu__ld32b(p, 4, big);
	return big ? a << 32 | b : b << 32 | a;
}

/* A 1-, 2- or 4-byte field in one load. */
SFU__INLINE uint32_t sfu__ldnb(const uint8_t *d, uint32_t off, uint32_t n, bool big)
{
	return n == 1 ? d[off] : n == 2 ? sfu__ld16b(d, off, big) : sfu__ld32b(d, off, big);
}

/* The binary search compiled for each kind of start. */
SFU__INLINE int sfu__sorted_fde(const sfu_section *s, const sfu__layout *L, uint64_t pc, uint32_t lo, uint32_t hi,
                                bool big, uint32_t *i)
{
	int err;

	if (s->pcrel)
		err = sfu__bsearch(s, L, pc, lo, hi, ~(uint64_t)0, big, i);
	else
		err = sfu__bsearch(s, L, pc, lo, hi, 0, big, i);
	if (err)
		return err;
	return sfu__last_fde(i);
}

/* The FRE scan compiled for each size of an FRE start. */
SFU__INLINE int sfu__fre_scan_fde(const sfu_section *s, const sfu__layout *L, const sfu_fde *f, uint32_t pcoff,
                                  bool big, sfu_fre *fre)
{
	if (f->fre_type == SFU_FRE_TYPE_ADDR1)
		return sfu__fre_scan(s, L, f, pcoff, 1, big, fre);
	if (f->fre_type == SFU_FRE_TYPE_ADDR2)
		return sfu__fre_scan(s, L, f, pcoff, 2, big, fre);
	return sfu__fre_scan(s, L, f, pcoff, 4, big, fre);
}

/* The compact row for pc by the search in one piece (FDE, FRE, row), so
 * the FDE stays in registers, for the layout L and byte order big. */
SFU__INLINE int sfu__search_row(const sfu_section *s, const sfu__layout *L, uint64_t pc, bool big, sfu__compact_row *r)
{
	sfu_fde fde;
	sfu_fre fre;
	int err = sfu__search_fre(s, L, pc, &fde, NULL, &fre, big);

	return err ? err : sfu__crow_fre(s, L, &fde, &fre, big, r);
}

/* The lowest version compiled in: the layout dispatch's fall-through. */
#define SFU__LAY_LOW (&sfu__layouts[SFU_V1 ? 0 : SFU_V2 ? 1 : 2])

/* The compact row for pc in one section: from its row index if it has
 * one, else by the one dispatch of the search, on the layout init chose
 * and the byte order: a copy of the search per layout and order compiled
 * in, with those constants. */
static SFU__NOINLINE int sfu__section_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
	/* Hook: a row index answers, or sends the lookup on. */
	int err = sfu__index_row(s, pc, r);

	if (err != SFU__SEARCH)
		return err;
	if (SFU_V3 && (SFU_V1 || SFU_V2) && s->version == SFU_VERSION_3)
		return SFU__BIG(s) ? sfu__search_row(s, &sfu__layouts[2], pc, true, r)
		                   : sfu__search_row(s, &sfu__layouts[2], pc, false, r);
	if (SFU_V2 && SFU_V1 && s->version == SFU_VERSION_2)
		return SFU__BIG(s) ? sfu__search_row(s, &sfu__layouts[1], pc, true, r)
		                   : sfu__search_row(s, &sfu__layouts[1], pc, false, r);
	return SFU__BIG(s) ? sfu__search_row(s, SFU__LAY_LOW, pc, true, r) : sfu__search_row(s, SFU__LAY_LOW, pc, false, r);
}

/* The common compact row (the RA saved, not the outermost frame, not
 * s390x, not mangled: one test) stepped by a copy of the sequence of its
 * own, those four flags known there; every other row by a second copy. */
SFU__INLINE int sfu__from_row(sfu_cursor *c, const sfu__compact_row *r)
{
	uint32_t f = r->flags;

	if (SFU__LIKELY((f & SFU__CROW_UNCOMMON) == SFU__CROW_COMMON))
		return sfu__unwind(c, (f & ~SFU__CROW_UNCOMMON) | SFU__CROW_COMMON, r, NULL);
	return sfu__unwind(c, f, r, NULL);
}

/* The general rules' step, out of line, the step's row by value: it stays
 * in the step's registers. */
static SFU__NOINLINE int sfu__from_general_row(sfu_cursor *c, sfu__compact_row r)
{
	return sfu__unwind_general(c, &r);
}

SFU__INLINE int sfu__from_general(sfu_cursor *c, const sfu__compact_row *r)
{
	return sfu__from_general_row(c, *r);
}

/* The row for lookup PC pc: from the speed part if it answers (the hook:
 * the cache, or the first section's row index, in line), else by the
 * search of the sections, the out-of-line calls filling the scratch row. */
SFU__INLINE int sfu__lookup(sfu_cursor *c, void *cache, uint64_t pc, sfu__compact_row *r)
{
	sfu__compact_row t;
	/* Hook: the speed part. */
	int err = sfu__fast_row(c, cache, pc, r, &t);

	if (err != SFU__SEARCH)
		return err;
	sfu__row_clear(&t);
	err = sfu__lookup_row(c->secs, c->nsecs, pc, &t);
	sfu__row_set(r, &t);
	return err;
}

/* The frames of the walk (sfu_walk.h's form): the first frame's record
 * before the loop, which starts at the step. */
SFU__INLINE sfu_frame *sfu__walk_frames(sfu_cursor *c, void *cache, sfu_frame *f, sfu_frame *end, int *err)
{
	int e;

	sfu__record(c, f++);
	for (;;) {
		e = sfu__step(c, cache);
		if (e)
			break;
		if (f == end) {
			e = SFU_E_FULL;
			break;
		}
		sfu__record(c, f++);
	}
	*err = e;
	return f;
}
#endif /* SFU_FAST */

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

/* Where pc is in the code ix covers: its offset from the lowest start
 * (*off) and its block (*b); false outside that code. */
SFU__INLINE bool sfu__ix_block(const struct sfu_index *ix, uint64_t pc, uint64_t *off, uint32_t *b)
{
	*off = pc - ix->base;
	if (*off >= ix->span)
		return false;
	*b = (uint32_t)(*off >> ix->shift); /* (below nblocks: off < span) */
	return true;
}

/* An index (built only for FDEs in address order without overlap, where
 * the first FDE covering pc is the last starting at or before it) narrows
 * the search to the FDEs of pc's block, and makes it a binary search
 * whatever the flag says (*sorted): [*lo, *hi), or SFU_E_NOINFO outside
 * its code.  Without one, the search stays as it is. */
SFU__INLINE int sfu__index_fdes(const sfu_section *s, uint64_t pc, uint32_t *lo, uint32_t *hi, bool *sorted)
{
	const struct sfu_index *ix = s->index;
	const uint32_t *blk;
	uint64_t off;
	uint32_t b;
	if (!ix)
		return SFU_OK;
	blk = sfu__ix_blocks(ix, false);
	if (!sfu__ix_block(ix, pc, &off, &b))
		return SFU_E_NOINFO;
	*sorted = true;
	if (ix->kind == SFU_INDEX_FDES) {
		*hi = blk[b + 1u] < *hi ? blk[b + 1u] : *hi;
		*lo = blk[b] < *hi ? blk[b] : *hi;
	}
	return SFU_OK;
}

/* The row for pc from a row index: SFU_OK, SFU_E_NOINFO, or SFU__SEARCH
 * (no index, an FDE index, or an entry that sends the lookup to the
 * section). */
SFU__INLINE int sfu__index_row(const sfu_section *s, uint64_t pc, sfu__compact_row *r)
{
	const struct sfu_index *ix = s->index;
	const struct sfu__ix_entry *e, *end;
	const uint32_t *blk;
	const sfu__packed_row *p;
	uint64_t off;
	uint32_t i, j, b;
	if (!ix || ix->kind != SFU_INDEX_ROWS)
		return SFU__SEARCH;
	blk = sfu__ix_blocks(ix, true);
	if (!sfu__ix_block(ix, pc, &off, &b))
		return SFU_E_NOINFO;
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

#if SFU_CACHE
/* The cache a cursor's steps use (sfu_cursor_step; NULL: none). */
SFU__INLINE void *sfu__cursor_cache(const sfu_cursor *c)
{
	return c->cache;
}

SFU__INLINE void sfu__cursor_set_cache(sfu_cursor *c, void *cache)
{
	c->cache = (sfu_cache *)cache;
}

SFU__FN int sfu_backtrace_cached(const sfu_section *secs, size_t nsecs, sfu_cache *cache,
                                 const sfu_port *port, const sfu_regs *regs, sfu_frame *frames,
                                 size_t max, size_t *n)
{
	return sfu__walk(secs, nsecs, cache, port, regs, frames, max, n);
}
#endif

#endif /* SFU_FAST_H */
