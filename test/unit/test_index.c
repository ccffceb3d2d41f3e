/* SPDX-License-Identifier: MIT */
/* SFU_INDEX and the compact row: an index in caller memory changes no
 * answer, only how it is found; what cannot be indexed is refused with its
 * own code; compact rows are the general rows written short; a cache slot
 * is 16 bytes.
 *
 * Every fixture is looked up at every PC from 32 bytes before its first
 * function to 32 bytes after its last, with no index, an FDE index and a
 * row index, through the walk's lookup (sfu__lookup_row, internal: the
 * test includes the implementation), sfu_find_row_n and sfu_find_fde; the
 * answers must be identical.  Fixtures: gaps, PC-mask FDEs (V1 masks and
 * V2/V3 repeat sizes), V3 outermost FDEs without FREs, zero-size FDEs, FREs
 * at 1-, 2- and 4-byte offsets, rows too big to pack (they go back to the
 * section), FLEX rows, V2 s390x register rules, big-endian, several
 * sections in one array, a section whose sorted flag is clear. */
#include <stdlib.h>
/* The core's internal invariants, checked in every unit test. */
#define SFU_ASSERT(x) ((x) ? (void)0 : abort())
#define SFU_IMPLEMENTATION
#define SFU_INDEX 1
#define SFU_CACHE 1
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../common/sfb.h"

#include "ut.h"
#include "../common/rows.h"

/* ---- fixtures -------------------------------------------------------------- */

#define NFIX 9
static uint8_t g_buf[NFIX][1 << 16];
static sfb_sec g_s[NFIX];
static size_t g_n[NFIX];
static const char *const g_name[NFIX] = {
	"v1-amd64-gaps-mask", "v2-amd64-plt", "v3-amd64-mixed", "v3-aarch64-be", "v3-flex", "v2-s390x-regs",
	"v3-unsorted-flag", "v1-aarch64", "v3-bigframes",
};

static void fixture(int k)
{
	static const int32_t w8[] = { 8 }, w16[] = { 16, -16 }, w0[] = { 0 };
	static const int32_t wa[] = { 16, -8, -16 }, wl[] = { 32 };
	sfb_sec *s = &g_s[k];
	sfb_fde *f;
	unsigned i;
	switch (k) {
	case 0: /* V1 amd64: functions, a gap, a V1 PC-mask FDE, an empty FDE */
		sfb_init(s, 1, SFU_ABI_AMD64_LE);
		f = sfb_add_fde(s, 0x100000, 0x40);
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		sfb_add_fre(f, 1, 1, 1, 2, w16);
		sfb_add_fre(f, 4, 0, 1, 2, w16);
		sfb_add_fre(f, 0x3a, 1, 1, 1, w8);
		f = sfb_add_fde(s, 0x100080, 0x100);
		f->pctype = SFU_FDE_PCTYPE_MASK;
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		sfb_add_fre(f, 0xb, 1, 1, 1, w16);
		sfb_add_fde(s, 0x100180, 0x10); /* no FREs: no info in V1 */
		f = sfb_add_fde(s, 0x100190, 0x20);
		sfb_add_fre(f, 4, 1, 1, 1, w8); /* nothing before +4 */
		break;
	case 1: /* V2 amd64 with a PLT (repeat size) and 2-byte FRE starts */
		sfb_init(s, 2, SFU_ABI_AMD64_LE);
		f = sfb_add_fde(s, 0x100000, 0x100);
		f->pctype = SFU_FDE_PCTYPE_MASK;
		f->rep_size = 16;
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		sfb_add_fre(f, 11, 1, 1, 1, w16);
		f = sfb_add_fde(s, 0x100100, 0x400);
		f->fre_type = SFU_FRE_TYPE_ADDR2;
		for (i = 0; i < 20; i++)
			sfb_add_fre(f, i * 50u, i & 1, i % 3 == 0 ? 1 : 2, 1 + (i & 1), w16);
		break;
	case 2: /* V3 amd64: outermost FDE, zero-size FDE, 4-byte starts, signal */
		sfb_init(s, 3, SFU_ABI_AMD64_LE);
		sfb_add_fde(s, 0x100000, 0x10); /* outermost */
		f = sfb_add_fde(s, 0x100010, 0x30);
		f->signal = 1;
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		sfb_add_fre(f, 0, 1, 1, 2, w16); /* the same start: the later one wins */
		sfb_add_fre(f, 9, 1, 1, 0, w0);  /* outermost row */
		sfb_add_fde(s, 0x100040, 0);     /* covers nothing */
		f = sfb_add_fde(s, 0x100040, 0x2000);
		f->fre_type = SFU_FRE_TYPE_ADDR4;
		for (i = 0; i < 30; i++)
			sfb_add_fre(f, i * 0x100u, 1, 4, 2, w16);
		f = sfb_add_fde(s, 0x103000, 0x20); /* after a gap */
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		break;
	case 3: /* V3 aarch64 big-endian: RA in the link register, PAC */
		sfb_init(s, 3, SFU_ABI_AARCH64_BE);
		f = sfb_add_fde(s, 0x400000, 0x30);
		sfb_add_fre(f, 0, 1, 1, 1, w0);
		sfb_add_fre(f, 4, 1, 1, 3, wa)->mangled = 1;
		sfb_add_fre(f, 8, 0, 1, 3, wa)->mangled = 1;
		f = sfb_add_fde(s, 0x400030, 0x8);
		sfb_add_fre(f, 0, 1, 1, 1, w0);
		break;
	case 4: /* V3 FLEX amd64 (DRAP) between default functions */
		sfb_init(s, 3, SFU_ABI_AMD64_LE);
		f = sfb_add_fde(s, 0x100000, 0x10);
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		f = sfb_add_fde(s, 0x100010, 0x40);
		f->flex = 1;
		{
			int32_t a[] = { (7 << 3) | 1, 8 };
			int32_t b[] = { (10 << 3) | 1, 0, 0, (6 << 3) | 3, 0 };
			sfb_add_fre(f, 0, 1, 1, 2, a);
			sfb_add_fre(f, 5, 1, 1, 5, b);
		}
		f = sfb_add_fde(s, 0x100050, 0x10);
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		break;
	case 5: /* V2 s390x: RA and FP in registers, and in stack slots */
		sfb_init(s, 2, SFU_ABI_S390X_BE);
		{
			static const int32_t regs[] = { 10, (14 << 1) | 1, (11 << 1) | 1 }, slots[] = { 10, -48, -72 };
			f = sfb_add_fde(s, 0x100000, 0x40);
			sfb_add_fre(f, 0, 1, 1, 3, regs);
			sfb_add_fre(f, 8, 1, 1, 3, slots);
		}
		break;
	case 6: /* V3, the sorted flag clear, functions in address order */
		sfb_init(s, 3, SFU_ABI_AMD64_LE);
		s->flags &= ~(unsigned)SFU_F_FDE_SORTED;
		for (i = 0; i < 12; i++)
			sfb_add_fre(sfb_add_fde(s, 0x100000 + 0x40 * i + (i > 6 ? 0x100u : 0u), 0x40), 0, 1, 1, 1, w8);
		break;
	case 7: /* V1 aarch64 */
		sfb_init(s, 1, SFU_ABI_AARCH64_LE);
		for (i = 0; i < 5; i++) {
			f = sfb_add_fde(s, 0x400000 + 0x30 * i, 0x30);
			sfb_add_fre(f, 0, 1, 1, 1, w0);
			sfb_add_fre(f, 4, 1, 1, 3, wa);
		}
		break;
	case 8: /* V3 amd64: rows whose offsets do not pack into 8 bytes */
		sfb_init(s, 3, SFU_ABI_AMD64_LE);
		f = sfb_add_fde(s, 0x100000, 0x40);
		{
			static const int32_t huge[] = { 0x01000008 }, farfp[] = { 0x10010, -0x10008 };
			sfb_add_fre(f, 0, 1, 1, 1, w8);
			sfb_add_fre(f, 4, 1, 4, 1, huge);
			sfb_add_fre(f, 8, 1, 4, 2, farfp);
			sfb_add_fre(f, 12, 1, 1, 1, wl);
		}
		break;
	}
	g_n[k] = sfb_emit(s, g_buf[k], sizeof g_buf[k]);
}

/* Lookups at every PC of the fixture's span, with and without an index. */
static void test_same_answers(int k)
{
	static uint64_t mem[2][65536 / 8];
	sfu_section plain, idx[2];
	uint64_t lo = UINT64_MAX, hi = 0, pc;
	unsigned i, kind;
	char name[96];
	size_t bytes[2];
	int err;
	begin();
	fixture(k);
	for (i = 0; i < g_s[k].nfdes; i++) {
		uint64_t a = g_s[k].fdes[i].start, b = a + g_s[k].fdes[i].size;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	err = sfu_section_init(&plain, g_buf[k], g_n[k], g_s[k].addr);
	EXPECT(!err, "init: %s", E(err));
	err = err ? err : sfu_section_validate(&plain, NULL);
	EXPECT(!err, "validate: %s", E(err));
	for (kind = 0; kind < 2 && !err; kind++) {
		unsigned ik = kind ? SFU_INDEX_ROWS : SFU_INDEX_FDES;
		idx[kind] = plain;
		err = sfu_index_size(&plain, ik, &bytes[kind]);
		EXPECT(!err && bytes[kind] <= sizeof mem[kind], "index size (kind %u): %s, %zu bytes", ik, E(err), bytes[kind]);
		if (!err)
			err = sfu_index_build(&idx[kind], ik, mem[kind], bytes[kind]);
		EXPECT(!err && idx[kind].index != NULL, "index build (kind %u): %s", ik, E(err));
		EXPECT(plain.index == NULL, "building on a copy touched the original");
	}
	for (pc = lo - 32; pc < hi + 32 && !err && !g_fail; pc++) {
		sfu__compact_row c0, c1;
		sfu_row r0, r1;
		sfu_fde f0, f1;
		uint32_t i0 = 0, i1 = 0;
		int e0 = sfu__lookup_row(&plain, 1, pc, &c0), x0 = sfu_find_row_n(&plain, 1, pc, &r0);
		int y0 = sfu_find_fde(&plain, pc, &f0, &i0);
		EXPECT(e0 == x0, "pc %#llx: compact %s, general %s", (unsigned long long)pc, E(e0), E(x0));
		EXPECT(e0 || tr_crow_is_row(&c0, &r0), "pc %#llx: the compact row (flags %#x) is not the general one",
		       (unsigned long long)pc, c0.flags);
		for (kind = 0; kind < 2; kind++) {
			int e1 = sfu__lookup_row(&idx[kind], 1, pc, &c1), x1 = sfu_find_row_n(&idx[kind], 1, pc, &r1);
			int y1 = sfu_find_fde(&idx[kind], pc, &f1, &i1);
			EXPECT(e1 == e0 && (e0 || tr_crow_eq(&c0, &c1)), "pc %#llx, %s index: compact %s (flags %#x), plain %s (%#x)",
			       (unsigned long long)pc, kind ? "row" : "FDE", E(e1), c1.flags, E(e0), c0.flags);
			EXPECT(x1 == x0 && (x0 || tr_row_eq(&r0, &r1)), "pc %#llx, %s index: general row differs (%s / %s)",
			       (unsigned long long)pc, kind ? "row" : "FDE", E(x1), E(x0));
			EXPECT(y1 == y0 && (y0 || (i1 == i0 && f1.start == f0.start)), "pc %#llx, %s index: FDE %u / %u",
			       (unsigned long long)pc, kind ? "row" : "FDE", i1, i0);
		}
	}
	snprintf(name, sizeof name, "index same-answers-%s (%zu + %zu bytes)", g_name[k], bytes[0], bytes[1]);
	end(name);
}

UT_CASE(test_same_answers_all)
{
	int k;
	for (k = 0; k < NFIX; k++)
		test_same_answers(k);
}

/* Several sections in one array, each with its own kind of index. */
UT_CASE(test_array)
{
	static uint64_t mem[3][65536 / 8];
	sfu_section plain[3], idx[3];
	uint64_t pc;
	size_t b;
	int i, err = 0;
	begin();
	fixture(0);
	fixture(3);
	fixture(7);
	for (i = 0; i < 3; i++) {
		int k = i == 0 ? 0 : i == 1 ? 3 : 7;
		err |= sfu_section_init(&plain[i], g_buf[k], g_n[k], g_s[k].addr);
		idx[i] = plain[i];
		if (i < 2) {
			err |= sfu_index_size(&idx[i], i ? SFU_INDEX_ROWS : SFU_INDEX_FDES, &b);
			err |= sfu_index_build(&idx[i], i ? SFU_INDEX_ROWS : SFU_INDEX_FDES, mem[i], b);
		}
	}
	EXPECT(!err, "setup failed");
	for (pc = 0x0fff00; pc < 0x100300 && !err; pc++) {
		sfu__compact_row a, c;
		int ea = sfu__lookup_row(plain, 3, pc, &a), ec = sfu__lookup_row(idx, 3, pc, &c);
		EXPECT(ea == ec && (ea || tr_crow_eq(&a, &c)), "pc %#llx: %s / %s", (unsigned long long)pc, E(ea), E(ec));
	}
	for (pc = 0x3fff00; pc < 0x400200 && !err; pc++) {
		sfu__compact_row a, c;
		int ea = sfu__lookup_row(plain, 3, pc, &a), ec = sfu__lookup_row(idx, 3, pc, &c);
		EXPECT(ea == ec && (ea || tr_crow_eq(&a, &c)), "pc %#llx: %s / %s", (unsigned long long)pc, E(ea), E(ec));
	}
	end("index array-of-sections-mixed-kinds");
}

/* Two amd64 functions of 0x40 bytes at a and b, the sorted flag set or not. */
static void two_functions(sfb_sec *s, sfu_section *sec, uint8_t *buf, size_t cap, int sorted, uint64_t a, uint64_t b)
{
	static const int32_t w8[] = { 8 };
	size_t n;
	sfb_init(s, 3, SFU_ABI_AMD64_LE);
	if (!sorted)
		s->flags &= ~(unsigned)SFU_F_FDE_SORTED;
	sfb_add_fre(sfb_add_fde(s, a, 0x40), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(s, b, 0x40), 0, 1, 1, 1, w8);
	n = sfb_emit(s, buf, cap);
	sfu_section_init(sec, buf, n, s->addr);
}

/* What cannot be indexed, and misuse. */
UT_CASE(test_refusals)
{
	static uint64_t mem[4096];
	static sfb_sec s;
	static uint8_t buf[4096];
	static const int32_t w8[] = { 8 };
	sfu_section sec;
	size_t n, b;
	int err;
	begin();
	/* Out of address order, without the sorted claim. */
	two_functions(&s, &sec, buf, sizeof buf, 0, 0x100040, 0x100000);
	EXPECT(sfu_index_size(&sec, SFU_INDEX_FDES, &b) == SFU_E_NOINDEX, "out of order: not SFU_E_NOINDEX");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_ROWS, mem, sizeof mem) == SFU_E_NOINDEX && sec.index == NULL,
	       "out of order: built");
	/* Overlapping, without the sorted claim (validates, cannot be indexed). */
	two_functions(&s, &sec, buf, sizeof buf, 0, 0x100000, 0x100020);
	EXPECT(sfu_section_validate(&sec, NULL) == SFU_OK, "unsorted overlap should validate");
	EXPECT(sfu_index_size(&sec, SFU_INDEX_ROWS, &b) == SFU_E_NOINDEX, "overlap: not SFU_E_NOINDEX");
	/* More than 4 GiB of code. */
	two_functions(&s, &sec, buf, sizeof buf, 1, 0x100000, 0x200100000ull);
	EXPECT(sfu_index_size(&sec, SFU_INDEX_FDES, &b) == SFU_E_NOINDEX, "5 GiB span: not SFU_E_NOINDEX");
	/* A corrupt section: the validator's error. */
	two_functions(&s, &sec, buf, sizeof buf, 1, 0x100000, 0x100020);
	EXPECT(sfu_index_size(&sec, SFU_INDEX_FDES, &b) == SFU_E_OVERLAP, "corrupt: not the validator's error");
	/* Misuse. */
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	err = sfu_index_size(&sec, SFU_INDEX_ROWS, &b);
	EXPECT(!err && b > 0, "size: %s", E(err));
	EXPECT(sfu_index_size(&sec, 7, &b) == SFU_E_ARG && sfu_index_size(NULL, SFU_INDEX_ROWS, &b) == SFU_E_ARG &&
	           sfu_index_size(&sec, SFU_INDEX_ROWS, NULL) == SFU_E_ARG,
	       "sfu_index_size misuse");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_ROWS, (uint8_t *)mem + 4, sizeof mem - 4) == SFU_E_ARG && !sec.index,
	       "misaligned memory accepted");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_ROWS, mem, b - 1) == SFU_E_ARG && !sec.index, "short memory accepted");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_ROWS, NULL, b) == SFU_E_ARG, "NULL memory accepted");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_ROWS, mem, b) == SFU_OK && sec.index, "exact size refused");
	EXPECT(sfu_index_build(&sec, SFU_INDEX_NONE, NULL, 0) == SFU_OK && !sec.index, "SFU_INDEX_NONE did not detach");
	EXPECT(sfu_index_build(NULL, SFU_INDEX_ROWS, mem, b) == SFU_E_ARG, "NULL section accepted");
	end("index refusals-and-misuse");
}

/* The memory an index takes grows with the code and the rows, not beyond. */
UT_CASE(test_memory)
{
	static sfb_sec s;
	static uint8_t buf[1 << 16];
	static const int32_t w8[] = { 8 }, w16[] = { 16, -16 };
	sfu_section sec;
	size_t n, fdes = 0, rows = 0;
	unsigned i;
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	for (i = 0; i < 60; i++) {
		sfb_fde *f = sfb_add_fde(&s, 0x100000 + 0x80 * i, 0x80);
		sfb_add_fre(f, 0, 1, 1, 1, w8);
		sfb_add_fre(f, 1, 1, 1, 2, w16);
		sfb_add_fre(f, 0x70, 1, 1, 1, w8);
	}
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	EXPECT(sfu_index_size(&sec, SFU_INDEX_FDES, &fdes) == SFU_OK && sfu_index_size(&sec, SFU_INDEX_ROWS, &rows) == SFU_OK,
	       "sizes");
	/* FDE index: a word per block, about one block per FDE; row index: 12
	 * bytes per entry (at most one per FRE and per gap) plus the blocks. */
	EXPECT(fdes <= 64 + 4 * (60 + 2), "FDE index of 60 FDEs takes %zu bytes", fdes);
	EXPECT(rows <= 64 + 12 * (180 + 2) + 4 * (180 + 2), "row index of 180 FREs takes %zu bytes", rows);
	end("index memory-bounded-by-fdes-and-fres");
}

/* A compact row fits in 16 bytes, a cache slot too; a FLEX row is general. */
UT_CASE(test_compact)
{
	sfu_section sec;
	sfu__compact_row c;
	int err;
	begin();
	EXPECT(sizeof(sfu_cache_entry) == 16 && sizeof(sfu__compact_row) == 16 && sizeof(sfu__packed_row) == 8,
	       "sizes: cache entry %zu, compact row %zu, packed row %zu", sizeof(sfu_cache_entry), sizeof(sfu__compact_row),
	       sizeof(sfu__packed_row));
	fixture(4);
	sfu_section_init(&sec, g_buf[4], g_n[4], g_s[4].addr);
	err = sfu__lookup_row(&sec, 1, 0x100018, &c);
	EXPECT(!err && (c.flags & SFU__CROW_GENERAL), "FLEX row: %s, flags %#x", E(err), c.flags);
	err = sfu__lookup_row(&sec, 1, 0x100004, &c);
	EXPECT(!err && !(c.flags & SFU__CROW_GENERAL) && c.u.off.cfa == 8 && (c.flags & SFU__CROW_RA_SAVED) && c.u.off.ra == -8,
	       "default row: %s, flags %#x", E(err), c.flags);
	EXPECT(sfu__lookup_row(NULL, 0, 0, &c) == SFU_E_NOINFO, "no sections: no info");
	end("compact row-sizes-and-kinds");
}

int main(void)
{
	return ut_main("unit index");
}
