/* SPDX-License-Identifier: MIT */
/* Unit tests of core/sfu.h on sections built by test/common/sfb.h: the
 * malformed-section table (each corruption has its own error code), lookup
 * edges, and the step rules per ABI.  Built with ASan+UBSan; every section is copied into
 * a buffer of exactly its size so any read past it is reported.
 * Prints "ok NAME" or "FAIL NAME: why" per case. */
#include <stdlib.h>
/* The core's internal invariants, checked in every unit test. */
#define SFU_ASSERT(x) ((x) ? (void)0 : abort())
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../common/sfb.h"

#include "ut.h"

#include <stdlib.h>

/* ---- fixtures ------------------------------------------------------------ */

static uint8_t g_buf[1 << 16];

/* Three amd64 functions: a push-rbp frame, a big frame with 2- and 4-byte
 * words, a leaf; a gap between the second and third. */
static void base_amd64(sfb_sec *s, unsigned version)
{
	static const int32_t w8[] = { 8 }, w16[] = { 16, -16 }, wfp[] = { 16, -16 };
	static const int32_t wbig2[] = { 1000 }, wbig4[] = { 70016 };
	sfb_fde *f;
	sfb_init(s, version, SFU_ABI_AMD64_LE);
	f = sfb_add_fde(s, 0x100000, 0x40);
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	sfb_add_fre(f, 1, 1, 1, 2, w16);
	sfb_add_fre(f, 4, 0, 1, 2, wfp);
	sfb_add_fre(f, 0x3f, 1, 1, 1, w8);
	f = sfb_add_fde(s, 0x100040, 0x200);
	f->fre_type = SFU_FRE_TYPE_ADDR2;
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	sfb_add_fre(f, 7, 1, 2, 1, wbig2);
	sfb_add_fre(f, 0x120, 1, 4, 1, wbig4);
	sfb_add_fre(f, 0x1ff, 1, 1, 1, w8);
	f = sfb_add_fde(s, 0x100300, 0x10); /* gap 0x100240..0x100300 */
	f->fre_type = SFU_FRE_TYPE_ADDR4;
	sfb_add_fre(f, 0, 1, 1, 1, w8);
}

static void base_aarch64(sfb_sec *s, unsigned version, int big)
{
	static const int32_t w0[] = { 0 }, w3[] = { 16, -8, -16 }, wf[] = { 16, -8, -16 };
	sfb_fde *f;
	sfb_init(s, version, big ? SFU_ABI_AARCH64_BE : SFU_ABI_AARCH64_LE);
	f = sfb_add_fde(s, 0x400000, 0x30);
	sfb_add_fre(f, 0, 1, 1, 1, w0);
	sfb_add_fre(f, 4, 1, 1, 3, w3)->mangled = 1;
	sfb_add_fre(f, 8, 0, 1, 3, wf)->mangled = 1;
	f = sfb_add_fde(s, 0x400030, 0x8); /* leaf: RA stays in x30 */
	sfb_add_fre(f, 0, 1, 1, 1, w0);
}

/* Run what a consumer runs: init, validate, a lookup in every function. */
static int pipeline(const uint8_t *bytes, size_t n, uint64_t addr)
{
	sfu_section sec;
	sfu_row row;
	uint8_t *copy = malloc(n ? n : 1);
	uint32_t i;
	int err;
	memcpy(copy, bytes, n);
	err = sfu_section_init(&sec, copy, n, addr);
	if (!err)
		err = sfu_section_validate(&sec, NULL);
	if (!err) {
		for (i = 0; i < sec.num_fdes && !err; i++) {
			sfu_fde fde;
			err = sfu_fde_get(&sec, i, &fde);
			if (!err) {
				err = sfu_find_row(&sec, fde.start, &row);
				if (err == SFU_E_NOINFO)
					err = SFU_OK;
			}
		}
	}
	free(copy);
	return err;
}

/* ---- the malformed-section table ------------------------------------------- */

typedef struct corruption {
	const char *name;
	int expect;
	void (*make)(sfb_sec *s, uint8_t *b, size_t *n);
} corruption;

#define MUT(fn) static void fn(sfb_sec *s, uint8_t *b, size_t *n)
static void put(sfb_sec *s, uint8_t *b, uint32_t off, unsigned len, uint64_t v) { sfb_store(b + off, len, s->big, v); }

MUT(m_zero) { (void)s; (void)b; *n = 0; }
MUT(m_three) { (void)s; (void)b; *n = 3; }
MUT(m_short_hdr) { (void)s; (void)b; *n = 20; }
MUT(m_magic) { (void)s; (void)n; b[0] = 0x12; }
MUT(m_magic_half) { (void)s; (void)n; b[1] = 0xe2; } /* e2 e2 */
MUT(m_version0) { (void)s; (void)n; b[2] = 0; }
MUT(m_version4) { (void)s; (void)n; b[2] = 4; }
MUT(m_flags_undef) { (void)s; (void)n; b[3] |= 0x80; }
MUT(m_flags_v1_pcrel) { (void)s; (void)n; b[3] |= 0x4; }
MUT(m_abi0) { (void)s; (void)n; b[4] = 0; }
MUT(m_abi5) { (void)s; (void)n; b[4] = 5; }
MUT(m_abi_amd64_be) { (void)s; (void)n; b[4] = SFU_ABI_AMD64_LE; } /* applied to a BE section */
MUT(m_abi_s390x_le) { (void)s; (void)n; b[4] = SFU_ABI_S390X_BE; }
MUT(m_fixed_ra_zero) { (void)s; (void)n; b[6] = 0; }
MUT(m_fixed_ra_pos) { (void)s; (void)n; b[6] = 8; }
MUT(m_fixed_ra_odd) { (void)s; (void)n; b[6] = (uint8_t)-12; }
MUT(m_fixed_ra_aarch64) { (void)s; (void)n; b[6] = (uint8_t)-8; }
MUT(m_fixed_fp) { (void)s; (void)n; b[5] = (uint8_t)-16; }
MUT(m_auxlen) { (void)s; b[7] = 0xff; *n = 28 + 0x80; }
MUT(m_cut_fdes) { *n = s->fde_base + 10; (void)b; }
MUT(m_cut_fres) { *n = s->fre_base + s->fre_len - 1; (void)b; }
MUT(m_fdeoff_past) { put(s, b, 20, 4, 0x10000); (void)n; }
MUT(m_freoff_past) { put(s, b, 24, 4, 0x10000); (void)n; }
MUT(m_frelen_huge) { put(s, b, 16, 4, 0xffffffffu); (void)n; }
MUT(m_nfdes_huge) { put(s, b, 8, 4, 0x10000000u); (void)n; }
MUT(m_overlap) { put(s, b, 24, 4, 8); (void)n; } /* FREs start inside the FDEs */
MUT(m_nfres_huge) { put(s, b, 12, 4, 0x7fffffffu); (void)n; }
MUT(m_nfres_sum) { put(s, b, 12, 4, 1); (void)n; } /* fits, but does not add up */
MUT(m_fde_freoff) { put(s, b, s->fdes[1].rec + (s->version == 3 ? 12 : 8), 4, s->fre_len + 100); (void)n; }
MUT(m_fde_nfres) { put(s, b, s->fdes[0].rec + 12, 4, 0x01000000u); (void)n; }
MUT(m_fde_nfres_v3) { put(s, b, (s->fre_base + s->fdes[2].attr), 2, 0xffff); (void)n; }
MUT(m_fde_nfres_tail) { put(s, b, (s->fre_base + s->fdes[2].attr), 2, 3); (void)n; } /* last function claims 3 FREs, has 1 */
MUT(m_attr_past) { put(s, b, s->fdes[2].rec + 12, 4, s->fre_len - 2); (void)n; }
MUT(m_fre_type) { b[s->version == 3 ? (s->fre_base + s->fdes[0].attr) + 2 : s->fdes[0].rec + 16] |= 0x3; (void)n; }
MUT(m_fde_type) { b[(s->fre_base + s->fdes[0].attr) + 3] = 2; (void)n; }
MUT(m_info2_bits) { b[(s->fre_base + s->fdes[0].attr) + 3] = 0x20; (void)n; }
MUT(m_rep0_v2) { b[s->fdes[0].rec + 16] |= 0x10; b[s->fdes[0].rec + 17] = 0; (void)n; }
MUT(m_rep0_v3) { b[(s->fre_base + s->fdes[0].attr) + 2] |= 0x10; b[(s->fre_base + s->fdes[0].attr) + 4] = 0; (void)n; }
MUT(m_wsize3) { b[(s->fre_base + s->fdes[0].fres[1].at) + 1] |= 0x60; (void)n; }
MUT(m_fre_past) { b[(s->fre_base + s->fdes[2].fres[0].at) + 4] = (uint8_t)((b[(s->fre_base + s->fdes[2].fres[0].at) + 4] & 0xe1u) | (15u << 1)); (void)n; }
MUT(m_fre_order) { b[(s->fre_base + s->fdes[0].fres[2].at)] = 0; (void)n; } /* 4 -> 0 after 1 */
MUT(m_amd64_3words) { b[(s->fre_base + s->fdes[0].fres[1].at) + 1] = (uint8_t)((b[(s->fre_base + s->fdes[0].fres[1].at) + 1] & 0xe1u) | (3u << 1)); (void)n; }
MUT(m_unsorted) { put(s, b, s->fdes[0].rec, 8, 0x100500 - s->addr - s->fdes[0].rec); (void)n; }
/* The second function starts inside the first (0x100000 + 0x40): still in
 * order, but no producer lays out code like that. */
MUT(m_overlap_fde) { put(s, b, s->fdes[1].rec, 8, 0x100020 - s->addr - s->fdes[1].rec); (void)n; }
MUT(m_overlap_fde_v1) { put(s, b, s->fdes[1].rec, 4, 0x10003f - s->addr); (void)n; }
/* A zero-size function inside another one would hide the rest of it from
 * the binary search. */
MUT(m_overlap_empty_fde) { put(s, b, s->fdes[1].rec, 8, 0x100010 - s->addr - s->fdes[1].rec); put(s, b, s->fdes[1].rec + 8, 4, 0); (void)n; }
/* The last function (0x10 bytes) moved to 8 bytes below 2^64: its range
 * wraps past the end of the address space, sorted and apart as it is. */
MUT(m_fde_wraps) { put(s, b, s->fdes[2].rec, 8, 0xfffffffffffffff8ull - s->addr - s->fdes[2].rec); (void)n; }
/* The first function's last FRE (0x3f of 0x40 bytes) moved past its end. */
MUT(m_fre_past_end) { b[(s->fre_base + s->fdes[0].fres[3].at)] = 0x41; (void)n; }
MUT(m_unsorted_v1) { put(s, b, s->fdes[0].rec, 4, 0x100500 - s->addr); (void)n; }
MUT(m_v3_as_v2) { (void)s; (void)n; b[2] = 2; }
MUT(m_v2_as_v1) { (void)s; (void)n; b[2] = 1; }
MUT(m_v1_as_v3) { (void)s; (void)n; b[2] = 3; }

/* FLEX sections need their own fixture. */
static void base_flex(sfb_sec *s)
{
	static const int32_t w8[] = { 8 };
	sfb_fde *f;
	sfb_init(s, 3, SFU_ABI_AMD64_LE);
	f = sfb_add_fde(s, 0x100000, 0x40);
	f->flex = 1;
	{
		int32_t w[] = { (7 << 3) | 1, 8 };
		sfb_add_fre(f, 0, 1, 1, 2, w);
	}
	{
		int32_t w[] = { (10 << 3) | 1, 0, 0, (6 << 3) | 3, 0 }; /* CFA = r10; RA pad; FP = *(rbp) */
		sfb_add_fre(f, 5, 1, 1, 5, w);
	}
	f = sfb_add_fde(s, 0x100040, 0x10);
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	f = sfb_add_fde(s, 0x100050, 0x10);
	sfb_add_fre(f, 0, 1, 1, 1, w8);
}
MUT(m_flex_1word) { b[(s->fre_base + s->fdes[0].fres[0].at) + 1] = (uint8_t)((b[(s->fre_base + s->fdes[0].fres[0].at) + 1] & 0xe1u) | (1u << 1)); (void)n; }
MUT(m_flex_cfa_not_reg) { b[(s->fre_base + s->fdes[0].fres[0].at) + 2] = 2; (void)n; } /* CFA = *(CFA + 8) */
/* 5 words -> 4: CFA pair, RA padding, then an FP control word without its
 * offset. */
MUT(m_flex_dangling) { b[(s->fre_base + s->fdes[0].fres[1].at) + 1] = (uint8_t)((b[(s->fre_base + s->fdes[0].fres[1].at) + 1] & 0xe1u) | (4u << 1)); (void)n; }

enum { FX_AMD64_V1, FX_AMD64_V2, FX_AMD64_V3, FX_AARCH64_BE_V3, FX_FLEX };

typedef struct table_row {
	corruption c;
	int fixture;
} table_row;

static const table_row table[] = {
	{ { "zero-size", SFU_E_EMPTY, m_zero }, FX_AMD64_V3 },
	{ { "3-bytes", SFU_E_TRUNC_HDR, m_three }, FX_AMD64_V3 },
	{ { "header-cut-at-20", SFU_E_TRUNC_HDR, m_short_hdr }, FX_AMD64_V3 },
	{ { "magic", SFU_E_MAGIC, m_magic }, FX_AMD64_V3 },
	{ { "magic-half-swapped", SFU_E_MAGIC, m_magic_half }, FX_AMD64_V3 },
	{ { "version-0", SFU_E_VERSION, m_version0 }, FX_AMD64_V3 },
	{ { "version-4", SFU_E_VERSION, m_version4 }, FX_AMD64_V3 },
	{ { "flags-undefined-bit", SFU_E_FLAGS, m_flags_undef }, FX_AMD64_V3 },
	{ { "flags-v1-pcrel", SFU_E_FLAGS, m_flags_v1_pcrel }, FX_AMD64_V1 },
	{ { "abi-0", SFU_E_ABI, m_abi0 }, FX_AMD64_V3 },
	{ { "abi-5", SFU_E_ABI, m_abi5 }, FX_AMD64_V3 },
	{ { "abi-amd64-in-big-endian", SFU_E_ABI, m_abi_amd64_be }, FX_AARCH64_BE_V3 },
	{ { "abi-s390x-in-little-endian", SFU_E_ABI, m_abi_s390x_le }, FX_AMD64_V3 },
	{ { "fixed-ra-zero-amd64", SFU_E_FIXED_OFF, m_fixed_ra_zero }, FX_AMD64_V2 },
	{ { "fixed-ra-positive", SFU_E_FIXED_OFF, m_fixed_ra_pos }, FX_AMD64_V3 },
	{ { "fixed-ra-misaligned", SFU_E_FIXED_OFF, m_fixed_ra_odd }, FX_AMD64_V3 },
	{ { "fixed-ra-on-aarch64", SFU_E_FIXED_OFF, m_fixed_ra_aarch64 }, FX_AARCH64_BE_V3 },
	{ { "fixed-fp", SFU_E_FIXED_OFF, m_fixed_fp }, FX_AMD64_V1 },
	{ { "auxhdr-past-end", SFU_E_AUXHDR, m_auxlen }, FX_AMD64_V3 },
	{ { "truncated-in-fdes", SFU_E_FDE_BOUNDS, m_cut_fdes }, FX_AMD64_V3 },
	{ { "truncated-in-fres", SFU_E_FRE_BOUNDS, m_cut_fres }, FX_AMD64_V2 },
	{ { "fdeoff-past-end", SFU_E_FDE_BOUNDS, m_fdeoff_past }, FX_AMD64_V3 },
	{ { "freoff-past-end", SFU_E_FRE_BOUNDS, m_freoff_past }, FX_AMD64_V3 },
	{ { "fre-len-overflow", SFU_E_FRE_BOUNDS, m_frelen_huge }, FX_AMD64_V1 },
	{ { "num-fdes-overflow", SFU_E_FDE_BOUNDS, m_nfdes_huge }, FX_AMD64_V2 },
	{ { "subsections-overlap", SFU_E_LAYOUT, m_overlap }, FX_AMD64_V3 },
	{ { "num-fres-too-many", SFU_E_FRE_COUNT, m_nfres_huge }, FX_AMD64_V3 },
	{ { "num-fres-sum-mismatch", SFU_E_FRE_COUNT, m_nfres_sum }, FX_AMD64_V2 },
	{ { "fde-fre-offset-past-end", SFU_E_FDE_FREOFF, m_fde_freoff }, FX_AMD64_V2 },
	{ { "v3-attribute-past-end", SFU_E_FDE_FREOFF, m_attr_past }, FX_AMD64_V3 },
	{ { "fde-fre-count-overflows", SFU_E_FRE_COUNT, m_fde_nfres }, FX_AMD64_V1 },
	{ { "v3-fre-count-overflows", SFU_E_FRE_COUNT, m_fde_nfres_v3 }, FX_AMD64_V3 },
	/* Checked against the header's remaining count before the FREs are
	 * read past it (validation stays linear). */
	{ { "v3-fre-count-exceeds-header", SFU_E_FRE_COUNT, m_fde_nfres_tail }, FX_AMD64_V3 },
	{ { "fre-type-3", SFU_E_FRE_TYPE, m_fre_type }, FX_AMD64_V2 },
	{ { "fde-type-2", SFU_E_FDE_TYPE, m_fde_type }, FX_AMD64_V3 },
	{ { "info2-unused-bits", SFU_E_FDE_TYPE, m_info2_bits }, FX_AMD64_V3 },
	{ { "pcmask-rep-size-0-v2", SFU_E_REP_SIZE, m_rep0_v2 }, FX_AMD64_V2 },
	{ { "pcmask-rep-size-0-v3", SFU_E_REP_SIZE, m_rep0_v3 }, FX_AMD64_V3 },
	{ { "word-size-3", SFU_E_WORD_SIZE, m_wsize3 }, FX_AMD64_V3 },
	{ { "fre-words-past-end", SFU_E_FRE_TRUNC, m_fre_past }, FX_AMD64_V3 },
	{ { "fre-starts-decrease", SFU_E_FRE_ORDER, m_fre_order }, FX_AMD64_V2 },
	{ { "amd64-three-words", SFU_E_FRE_WORDS, m_amd64_3words }, FX_AMD64_V1 },
	{ { "flex-one-word", SFU_E_FRE_WORDS, m_flex_1word }, FX_FLEX },
	{ { "flex-cfa-from-cfa", SFU_E_FRE_WORDS, m_flex_cfa_not_reg }, FX_FLEX },
	{ { "flex-incomplete-pair", SFU_E_FRE_WORDS, m_flex_dangling }, FX_FLEX },
	{ { "unsorted-claimed-sorted", SFU_E_UNSORTED, m_unsorted }, FX_AMD64_V3 },
	{ { "unsorted-claimed-sorted-v1", SFU_E_UNSORTED, m_unsorted_v1 }, FX_AMD64_V1 },
	{ { "fdes-overlap-in-sorted-section", SFU_E_OVERLAP, m_overlap_fde }, FX_AMD64_V3 },
	{ { "fdes-overlap-in-sorted-section-v1", SFU_E_OVERLAP, m_overlap_fde_v1 }, FX_AMD64_V1 },
	{ { "empty-fde-inside-another", SFU_E_OVERLAP, m_overlap_empty_fde }, FX_AMD64_V3 },
	{ { "fre-starts-past-function-end", SFU_E_FRE_START, m_fre_past_end }, FX_AMD64_V2 },
	{ { "fde-range-wraps", SFU_E_FDE_WRAP, m_fde_wraps }, FX_AMD64_V3 },
	/* Version confusion: the FDE record size changes.  V3 16-byte records
	 * read as 20 run into the FRE sub-section; V2 20-byte records read as 17
	 * put FDE 1's FRE offset on other bytes, past the FREs; V1 read as V3
	 * takes V1's FRE count as an attribute offset, landing mid-FRE, whose
	 * bytes make no valid FDE type. */
	{ { "v3-labelled-v2", SFU_E_LAYOUT, m_v3_as_v2 }, FX_AMD64_V3 },
	{ { "v2-labelled-v1", SFU_E_FDE_FREOFF, m_v2_as_v1 }, FX_AMD64_V2 },
	{ { "v1-labelled-v3", SFU_E_FDE_TYPE, m_v1_as_v3 }, FX_AMD64_V1 },
};

static void make_fixture(sfb_sec *s, int fx)
{
	switch (fx) {
	case FX_AMD64_V1: base_amd64(s, 1); break;
	case FX_AMD64_V2: base_amd64(s, 2); break;
	case FX_AMD64_V3: base_amd64(s, 3); break;
	case FX_AARCH64_BE_V3: base_aarch64(s, 3, 1); break;
	case FX_FLEX: base_flex(s); break;
	}
}

UT_CASE(test_malformed)
{
	static sfb_sec s;
	size_t i;
	int fx;
	char name[128];
	/* The fixtures themselves are valid. */
	for (fx = FX_AMD64_V1; fx <= FX_FLEX; fx++) {
		size_t n;
		int err;
		begin();
		make_fixture(&s, fx);
		n = sfb_emit(&s, g_buf, sizeof g_buf);
		err = pipeline(g_buf, n, s.addr);
		EXPECT(n && err == SFU_OK, "fixture %d: %s", fx, E(err));
		snprintf(name, sizeof name, "malformed fixture-%d-valid", fx);
		end(name);
	}
	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		size_t n;
		int err;
		begin();
		make_fixture(&s, table[i].fixture);
		n = sfb_emit(&s, g_buf, sizeof g_buf);
		table[i].c.make(&s, g_buf, &n);
		err = pipeline(g_buf, n, s.addr);
		EXPECT(err == table[i].c.expect, "got %s (%d), want %s (%d)", E(err), err, E(table[i].c.expect), table[i].c.expect);
		snprintf(name, sizeof name, "malformed %s", table[i].c.name);
		end(name);
	}
}

/* What the new validator checks leave alone: an FRE starting exactly at
 * its function's end (it covers nothing, and an assembler can emit one for
 * a CFI directive after the last instruction), functions that touch, and
 * overlap in a section that does not claim to be sorted. */
static int build_and_validate(sfb_sec *s)
{
	sfu_section sec;
	size_t n = sfb_emit(s, g_buf, sizeof g_buf);
	int err = sfu_section_init(&sec, g_buf, n, s->addr);
	return err ? err : sfu_section_validate(&sec, NULL);
}

UT_CASE(test_validate_edges)
{
	static sfb_sec s;
	int err;
	static const int32_t w8[] = { 8 }, w16[] = { 16, -16 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(&s.fdes[0], 0x20, 1, 1, 2, w16); /* at the end */
	sfb_add_fre(sfb_add_fde(&s, 0x100020, 0x20), 0, 1, 1, 1, w8); /* touching */
	sfb_add_fre(sfb_add_fde(&s, 0x100040, 0), 0, 1, 1, 1, w8);  /* empty, at the next start */
	sfb_add_fre(sfb_add_fde(&s, 0x100040, 0x10), 0, 1, 1, 1, w8);
	err = build_and_validate(&s);
	EXPECT(err == SFU_OK, "FRE at the end, touching and empty functions: %s", E(err));
	/* The same functions overlapping, without the sorted claim. */
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.flags &= ~(unsigned)SFU_F_FDE_SORTED;
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, 0x100020, 0x40), 0, 1, 1, 1, w8);
	err = build_and_validate(&s);
	EXPECT(err == SFU_OK, "overlap without the sorted claim: %s", E(err));
	end("validate edges-fre-at-end-touching-unsorted-overlap");
}

/* Sorted-claim lie seen by the lookup itself (not only by validate). */
UT_CASE(test_unsorted_lookup)
{
	static sfb_sec s;
	sfu_section sec;
	sfu_row row;
	size_t n;
	int err;
	unsigned i, seen = 0;
	static const int32_t w8[] = { 8 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	for (i = 0; i < 16; i++)
		sfb_add_fre(sfb_add_fde(&s, 0x100000 + 0x100 * (i ^ 5u), 0x10), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init: %s", E(err));
	for (i = 0; i < 16 && !err; i++)
		if (sfu_find_row(&sec, 0x100000 + 0x100 * i, &row) == SFU_E_UNSORTED)
			seen++;
	EXPECT(seen > 0, "no lookup reported SFU_E_UNSORTED");
	/* Without the claim, linear search finds every function. */
	g_buf[3] &= (uint8_t)~SFU_F_FDE_SORTED;
	sfu_section_init(&sec, g_buf, n, s.addr);
	for (i = 0; i < 16; i++) {
		err = sfu_find_row(&sec, 0x100000 + 0x100 * i + 3, &row);
		EXPECT(!err && row.func_start == 0x100000 + 0x100 * i, "linear lookup %u: %s", i, E(err));
	}
	end("lookup unsorted-claim-detected-and-linear-search");
}

/* ---- lookup edges ---------------------------------------------------------- */

static void test_lookup_edges(unsigned version)
{
	static sfb_sec s;
	sfu_section sec;
	sfu_row row;
	size_t n;
	int err;
	char name[96];
	unsigned i, k;
	begin();
	base_amd64(&s, version);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init %s", E(err));
	for (i = 0; i < s.nfdes && !err; i++) {
		sfb_fde *f = &s.fdes[i];
		for (k = 0; k < f->nfres; k++) {
			uint64_t first = f->start + f->fres[k].start;
			uint64_t last = (k + 1 < f->nfres ? f->start + f->fres[k + 1].start : f->start + f->size) - 1;
			uint64_t probe[2] = { first, last };
			unsigned j;
			for (j = 0; j < 2; j++) {
				err = sfu_find_row(&sec, probe[j], &row);
				EXPECT(!err, "fde %u fre %u pc %#llx: %s", i, k, (unsigned long long)probe[j], E(err));
				if (err)
					break;
				EXPECT(row.fre_start == f->fres[k].start && row.func_start == f->start,
				       "fde %u fre %u pc %#llx: got fre_start %u", i, k, (unsigned long long)probe[j], row.fre_start);
				EXPECT(row.cfa.off == sfb_word(&f->fres[k], 0) && row.cfa.base == (f->fres[k].base_sp ? SFU_REG_SP : SFU_REG_FP),
				       "fde %u fre %u: cfa off %d base %u", i, k, row.cfa.off, row.cfa.base);
			}
		}
	}
	/* One before the first function, the gap, one past the last. */
	EXPECT(sfu_find_row(&sec, 0x100000 - 1, &row) == SFU_E_NOINFO, "before first");
	EXPECT(sfu_find_row(&sec, 0x100240, &row) == SFU_E_NOINFO, "gap start");
	EXPECT(sfu_find_row(&sec, 0x1002ff, &row) == SFU_E_NOINFO, "gap end");
	EXPECT(sfu_find_row(&sec, 0x100310, &row) == SFU_E_NOINFO, "past last");
	EXPECT(sfu_find_row(&sec, 0, &row) == SFU_E_NOINFO, "pc 0");
	EXPECT(sfu_find_row(&sec, UINT64_MAX, &row) == SFU_E_NOINFO, "pc max");
	snprintf(name, sizeof name, "lookup edges-v%u", version);
	end(name);
}

UT_CASE(test_lookup_edges_all)
{
	unsigned v;
	for (v = 1; v <= 3; v++)
		test_lookup_edges(v);
}

static void test_lookup_bigendian(unsigned version)
{
	static sfb_sec s;
	sfu_section sec;
	sfu_row row;
	size_t n;
	int err;
	char name[64];
	begin();
	base_aarch64(&s, version, 1);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err && sec.big, "init %s", E(err));
	err = sfu_find_row(&sec, 0x400009, &row);
	EXPECT(!err && row.cfa.base == SFU_REG_FP && row.cfa.off == 16 && row.ra.kind == SFU_RULE_DEREF &&
	       row.ra.off == -8 && row.fp.off == -16 && row.mangled_ra,
	       "row at 0x400009: %s cfa %u%+d ra %d fp %d", E(err), row.cfa.base, row.cfa.off, row.ra.off, row.fp.off);
	err = sfu_find_row(&sec, 0x400030, &row);
	EXPECT(!err && row.ra.kind == SFU_RULE_SAME && row.fp.kind == SFU_RULE_SAME, "leaf row");
	snprintf(name, sizeof name, "lookup aarch64-be-v%u", version);
	end(name);
}

UT_CASE(test_lookup_bigendian_all)
{
	unsigned v;
	for (v = 1; v <= 3; v++)
		test_lookup_bigendian(v);
}

UT_CASE(test_pcmask)
{
	static sfb_sec s;
	sfu_section sec;
	sfu_row row;
	static const int32_t w8[] = { 8 }, w16[] = { 16 };
	sfb_fde *f;
	size_t n;
	int err;
	begin();
	sfb_init(&s, 2, SFU_ABI_AMD64_LE);
	f = sfb_add_fde(&s, 0x100000, 0x100); /* a PLT: 16 entries of 16 bytes */
	f->pctype = SFU_FDE_PCTYPE_MASK;
	f->rep_size = 16;
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	sfb_add_fre(f, 11, 1, 1, 1, w16);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	err = sfu_find_row(&sec, 0x100000 + 5 * 16 + 3, &row);
	EXPECT(!err && row.cfa.off == 8, "entry 5 +3: %s off %d", E(err), row.cfa.off);
	err = sfu_find_row(&sec, 0x100000 + 9 * 16 + 12, &row);
	EXPECT(!err && row.cfa.off == 16, "entry 9 +12: %s off %d", E(err), row.cfa.off);
	err = sfu_find_row(&sec, 0x100100, &row);
	EXPECT(err == SFU_E_NOINFO, "past the PLT: %s", E(err));
	end("lookup pcmask-modulo-rep-size");
}

/* V1 PC-mask FDEs (ld 2.40's .plt): FRE starts are masks, a row applies
 * when (PC & start) == start, the last matching row wins. */
UT_CASE(test_pcmask_v1)
{
	static sfb_sec s;
	sfu_section sec;
	sfu_row row;
	static const int32_t w8[] = { 8 }, w16[] = { 16 };
	sfb_fde *f;
	size_t n;
	unsigned e, off;
	int err;
	begin();
	sfb_init(&s, 1, SFU_ABI_AMD64_LE);
	f = sfb_add_fde(&s, 0x100000, 0x100);
	f->pctype = SFU_FDE_PCTYPE_MASK;
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	sfb_add_fre(f, 0xb, 1, 1, 1, w16);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	/* Each 16-byte entry: jmp *GOT (0), push $n (6): CFA sp+8; jmp PLT0
	 * (0xb): CFA sp+16. */
	for (e = 0; e < 16; e++) {
		static const unsigned insn[3] = { 0, 6, 0xb };
		unsigned i;
		for (i = 0; i < 3; i++) {
			off = e * 16 + insn[i];
			err = sfu_find_row(&sec, 0x100000 + off, &row);
			EXPECT(!err && row.cfa.off == (insn[i] == 0xb ? 16 : 8), "entry %u +%#x: %s off %d", e, insn[i], E(err), row.cfa.off);
		}
	}
	end("lookup pcmask-v1-masks");
}

/* Several sections at once: a linker that concatenates per-object sections,
 * and a zero-size one in the middle. */
UT_CASE(test_multi_section)
{
	static sfb_sec a, b;
	static uint8_t ba[4096], bb[4096];
	sfu_section secs[3];
	sfu_row row;
	size_t na, nb;
	int err;
	static const int32_t w8[] = { 8 }, w24[] = { 24 };
	begin();
	sfb_init(&a, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&a, 0x100000, 0x10), 0, 1, 1, 1, w8);
	sfb_init(&b, 1, SFU_ABI_AMD64_LE); /* an older module */
	b.addr = 0x300000;
	sfb_add_fre(sfb_add_fde(&b, 0x200000, 0x10), 0, 1, 1, 1, w24);
	na = sfb_emit(&a, ba, sizeof ba);
	nb = sfb_emit(&b, bb, sizeof bb);
	err = sfu_section_init(&secs[0], ba, na, a.addr);
	EXPECT(!err, "a: %s", E(err));
	EXPECT(sfu_section_init(&secs[1], bb, 0, 0) == SFU_E_EMPTY, "empty");
	err = sfu_section_init(&secs[1], bb, nb, b.addr);
	EXPECT(!err, "b: %s", E(err));
	err = sfu_find_row_n(secs, 2, 0x200004, &row);
	EXPECT(!err && row.cfa.off == 24, "in b: %s", E(err));
	err = sfu_find_row_n(secs, 2, 0x100004, &row);
	EXPECT(!err && row.cfa.off == 8, "in a: %s", E(err));
	EXPECT(sfu_find_row_n(secs, 2, 0x500000, &row) == SFU_E_NOINFO, "in neither");
	end("lookup multiple-sections");
}

/* ---- stepping ---------------------------------------------------------------- */

typedef struct mem {
	uint64_t base;
	uint8_t bytes[512];
	int big;
	int reads, refused;
} mem;

static int mem_read(void *ctx, uint64_t addr, uint64_t *out)
{
	mem *m = ctx;
	m->reads++;
	if (addr < m->base || addr - m->base > sizeof m->bytes - 8 || (addr & 7)) {
		m->refused++;
		return -1;
	}
	*out = 0;
	for (unsigned i = 0; i < 8; i++)
		*out |= (uint64_t)m->bytes[addr - m->base + i] << (m->big ? 8 * (7 - i) : 8 * i);
	return 0;
}

static void mem_put(mem *m, uint64_t addr, uint64_t v)
{
	sfb_store(m->bytes + (addr - m->base), 8, m->big, v);
}

static uint64_t strip_calls;
static uint64_t strip(void *ctx, uint64_t ra)
{
	(void)ctx;
	strip_calls++;
	return ra & 0x0000ffffffffffffull;
}

UT_CASE(test_step_amd64)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_cursor c;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_regs r = { 0, 0, 0, 0, NULL, 0, NULL };
	size_t n;
	int err;
	begin();
	base_amd64(&s, 3);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0x7000;
	/* Frame of fn0 at pc 0x100010 (rbp-based, CFA = rbp+16): RA at CFA-8,
	 * saved rbp at CFA-16. */
	r.pc = 0x100010;
	r.sp = 0x7040;
	r.fp = 0x7050;
	mem_put(&m, 0x7058, 0x100050); /* RA into fn1, after its FRE at 7: CFA = sp+1000 */
	mem_put(&m, 0x7050, 0x7777);   /* caller's rbp */
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x100050 && c.regs.sp == 0x7060 && c.regs.fp == 0x7777 && c.cfa == 0x7060,
	       "step 1: %s pc %#llx sp %#llx fp %#llx", E(err), (unsigned long long)c.regs.pc,
	       (unsigned long long)c.regs.sp, (unsigned long long)c.regs.fp);
	/* fn1 at 0x100050 - 1 looks up FRE @7 (CFA = sp + 1000): RA read at
	 * 0x7060 + 1000 - 8, outside our 512 bytes: refused. */
	err = sfu_cursor_step(&c);
	EXPECT(err == SFU_E_READ && m.refused == 1, "step 2: %s refused %d", E(err), m.refused);
	EXPECT(c.regs.pc == 0x100050, "cursor stays on the last good frame");
	end("step amd64-rbp-frame-then-refused-read");

	/* The return address is the first byte after fn0: looked up at ra-1. */
	begin();
	memset(m.bytes, 0, sizeof m.bytes);
	r.pc = 0x100001; /* fn0 after push: CFA = sp + 16 */
	r.sp = 0x7000;
	r.fp = 0x1234;
	mem_put(&m, 0x7008, 0x100040); /* == fn1 start == one past fn0 */
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x100040 && c.regs.fp == 0 /* FP = *(CFA-16) = 0 */, "step: %s", E(err));
	{
		sfu_row row;
		/* The next lookup must be at 0x10003f (fn0's last row), not fn1. */
		err = sfu_find_row(&sec, c.regs.pc - 1, &row);
		EXPECT(!err && row.func_start == 0x100000 && row.fre_start == 0x3f, "ra-1 lookup");
	}
	end("step amd64-ra-minus-one-after-noreturn");

	/* Wrong way: a CFA below the SP. */
	begin();
	{
		static sfb_sec s2;
		static const int32_t wneg[] = { -64 };
		sfb_init(&s2, 3, SFU_ABI_AMD64_LE);
		sfb_add_fre(sfb_add_fde(&s2, 0x100000, 0x10), 0, 1, 1, 1, wneg);
		n = sfb_emit(&s2, g_buf, sizeof g_buf);
		sfu_section_init(&sec, g_buf, n, s2.addr);
		r.pc = 0x100004;
		r.sp = 0x7100;
		mem_put(&m, 0x7100 - 64 - 8, 0x100004);
		sfu_cursor_init(&c, &sec, 1, &port, &r);
		err = sfu_cursor_step(&c);
		EXPECT(err == SFU_E_WRONG_WAY, "got %s", E(err));
	}
	end("step wrong-way-stops");

	/* A self-loop (RA pointing at itself, CFA = SP + 8 forever) ends by the
	 * stack bounds or the depth cap, never loops. */
	begin();
	{
		static sfb_sec s3;
		static const int32_t w8[] = { 8 };
		sfu_frame fr[400];
		size_t nf;
		uint64_t a;
		sfb_init(&s3, 3, SFU_ABI_AMD64_LE);
		sfb_add_fre(sfb_add_fde(&s3, 0x100000, 0x10), 0, 1, 1, 1, w8);
		n = sfb_emit(&s3, g_buf, sizeof g_buf);
		sfu_section_init(&sec, g_buf, n, s3.addr);
		for (a = m.base; a < m.base + sizeof m.bytes; a += 8)
			mem_put(&m, a, 0x100005);
		r.pc = 0x100005;
		r.sp = m.base;
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 400, &nf);
		EXPECT(err == SFU_E_READ && nf == 65, "unbounded stack: %s after %zu frames", E(err), nf);
		port.stack_lo = m.base;
		port.stack_hi = m.base + 0x100;
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 400, &nf);
		EXPECT(err == SFU_E_STACK_BOUNDS && nf == 33, "bounded stack: %s after %zu frames", E(err), nf);
		port.stack_lo = port.stack_hi = 0;
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 10, &nf);
		EXPECT(err == SFU_E_FULL && nf == 10, "full buffer: %s", E(err));
	}
	end("step loop-ends-at-stack-end-bounds-or-buffer");
}

static uint64_t g_lo, g_hi;
static int host_read(void *c, uint64_t a, uint64_t *o)
{
	(void)c;
	if (a < g_lo || a + 8 > g_hi || (a & 7))
		return -1;
	*o = *(const uint64_t *)(uintptr_t)a;
	return 0;
}

UT_CASE(test_depth_cap)
{
	/* A stack deeper than SFU_DEPTH_CAP: big fake memory. */
	static sfb_sec s;
	static const int32_t w8[] = { 8 };
	static uint64_t stack[SFU_DEPTH_CAP + 50];
	sfu_section sec;
	sfu_frame fr[SFU_DEPTH_CAP + 10];
	size_t n, nf, i;
	int err;
	begin();
	sfb_init(&s, 2, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	for (i = 0; i < sizeof stack / 8; i++)
		stack[i] = 0x100005;
	{
		/* The port reads the host array directly (native words). */
		sfu_port port = { .read = host_read };
		sfu_regs r = { 0x100005, (uint64_t)(uintptr_t)stack, 0, 0, NULL, 0, NULL };
		g_lo = (uint64_t)(uintptr_t)stack;
		g_hi = g_lo + sizeof stack;
		err = sfu_backtrace(&sec, 1, &port, &r, fr, SFU_DEPTH_CAP + 10, &nf);
		EXPECT(err == SFU_E_DEPTH && nf == SFU_DEPTH_CAP, "got %s after %zu frames", E(err), nf);
	}
	end("step depth-cap");
}

static void test_step_aarch64(int big)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_cursor c;
	sfu_port port = { .read = mem_read, .strip_ra = strip, .ctx = &m };
	sfu_regs r = { 0, 0, 0, 0, NULL, 0, NULL };
	size_t n;
	int err;
	char name[64];
	begin();
	base_aarch64(&s, 3, big);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init %s", E(err));
	memset(&m, 0, sizeof m);
	m.base = 0x8000;
	m.big = big;
	/* Leaf (fn1): RA in x30, CFA = SP. */
	r.pc = 0x400034;
	r.sp = 0x8100;
	r.fp = 0x8180;
	r.ra = 0x40000c; /* inside fn0's fp-based row */
	mem_put(&m, 0x8180 + 16 - 8, 0xabcd000000400003ull); /* signed RA into fn0 row 0 */
	mem_put(&m, 0x8180 + 16 - 16, 0x81c0);
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x40000c && c.regs.sp == 0x8100 && c.regs.fp == 0x8180, "leaf step: %s", E(err));
	strip_calls = 0;
	err = sfu_cursor_step(&c); /* fn0 at 0x40000b: CFA = fp + 16, signed RA */
	EXPECT(!err && c.regs.pc == 0x400003 && strip_calls == 1 && c.regs.sp == 0x8190 && c.regs.fp == 0x81c0,
	       "fn0 step: %s pc %#llx strips %llu", E(err), (unsigned long long)c.regs.pc, (unsigned long long)strip_calls);
	/* Now in fn0 row 0 (RA in x30) as a caller frame: not knowable. */
	err = sfu_cursor_step(&c);
	EXPECT(err == SFU_E_UNSAFE, "RA-in-LR in a caller frame: %s", E(err));
	snprintf(name, sizeof name, "step aarch64-%s-leaf-pac-unsafe", big ? "be" : "le");
	end(name);
}

UT_CASE(test_step_aarch64_all)
{
	test_step_aarch64(0);
	test_step_aarch64(1);
}

UT_CASE(test_step_flex)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_cursor c;
	sfu_port port = { .read = mem_read, .ctx = &m };
	uint64_t dwarf[17] = { 0 };
	sfu_regs r = { 0, 0, 0, 0, NULL, 0, NULL };
	size_t n;
	int err;
	begin();
	base_flex(&s);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0x9000;
	/* Row @5: CFA = r10 + 0, RA default (*(CFA-8)), FP = *(rbp + 0). */
	dwarf[10] = 0x9100;
	r.pc = 0x100008;
	r.sp = 0x9000;
	r.fp = 0x9010;
	r.dwarf = dwarf;
	r.ndwarf = 17;
	mem_put(&m, 0x9100 - 8, 0x100044);
	mem_put(&m, 0x9010, 0x9200);
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x100044 && c.regs.sp == 0x9100 && c.regs.fp == 0x9200, "topmost flex: %s", E(err));
	/* The same row in a caller frame must not use r10. */
	c.regs.pc = 0x100009;
	c.exact = 0;
	c.full = 0;
	err = sfu_cursor_step(&c);
	EXPECT(err == SFU_E_UNSAFE, "flex r10 in caller frame: %s", E(err));
	/* Without the register array at all. */
	r.dwarf = NULL;
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	EXPECT(sfu_cursor_step(&c) == SFU_E_UNSAFE, "no dwarf regs");
	end("step flex-drap-topmost-only");
}

/* A FLEX row with CFA = SP + 0 and the RA in r11 (glibc's aarch64
 * __sigsetjmp keeps it in x13 around a call, CFA = SP + 0, as sfu-gen
 * describes it): out of the topmost frame the walk goes on with SP
 * unchanged; in a caller frame r11 is unknown, and that (SFU_E_UNSAFE),
 * not the equal SP, is why the walk stops. */
UT_CASE(test_step_flex_ra_reg)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_cursor c;
	sfu_port port = { .read = mem_read, .ctx = &m };
	uint64_t dwarf[17] = { 0 };
	sfu_regs r = { 0, 0, 0, 0, NULL, 0, NULL };
	int32_t w[] = { (7 << 3) | 1, 0, (11 << 3) | 1, 0 }; /* CFA = rsp; RA = r11 */
	sfb_fde *f;
	size_t n;
	int err;
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	f = sfb_add_fde(&s, 0x100000, 0x40);
	f->flex = 1;
	sfb_add_fre(f, 0, 1, 1, 4, w);
	f = sfb_add_fde(&s, 0x100040, 0x10);
	f->flex = 1;
	sfb_add_fre(f, 0, 1, 1, 4, w);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init: %s", E(err));
	memset(&m, 0, sizeof m);
	m.base = 0x9000;
	dwarf[11] = 0x100044;
	r.pc = 0x100008;
	r.sp = 0x9000;
	r.dwarf = dwarf;
	r.ndwarf = 17;
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x100044 && c.regs.sp == 0x9000, "topmost: %s pc %#llx", E(err),
	       (unsigned long long)c.regs.pc);
	err = sfu_cursor_step(&c);
	EXPECT(err == SFU_E_UNSAFE, "RA in r11 in a caller frame, CFA = SP: %s", E(err));
	end("step flex-ra-in-register-caller-frame-is-unsafe");
}

UT_CASE(test_step_s390x)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_cursor c;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_regs r = { 0, 0, 0, 0, NULL, 0, NULL };
	static const int32_t w[] = { 10, -48, -72 }; /* CFA = sp + 10*8+160 = sp+240 */
	static const int32_t wpad[] = { 0, 0, -72 };    /* RA not saved, FP saved */
	size_t n;
	int err;
	begin();
	sfb_init(&s, 3, SFU_ABI_S390X_BE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 3, w);
	sfb_add_fre(sfb_add_fde(&s, 0x100040, 0x40), 0, 1, 1, 3, wpad);
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init %s", E(err));
	memset(&m, 0, sizeof m);
	m.base = 0xa000;
	m.big = 1;
	r.pc = 0x100010;
	r.sp = 0xa000;
	r.fp = 0x1;
	mem_put(&m, 0xa000 + 240 - 48, 0x100050);
	mem_put(&m, 0xa000 + 240 - 72, 0xa0f0);
	sfu_cursor_init(&c, &sec, 1, &port, &r);
	err = sfu_cursor_step(&c);
	EXPECT(!err && c.regs.pc == 0x100050 && c.regs.sp == 0xa000 + 240 - 160 && c.regs.fp == 0xa0f0,
	       "s390x: %s pc %#llx sp %#llx", E(err), (unsigned long long)c.regs.pc, (unsigned long long)c.regs.sp);
	/* RA-not-saved padding only valid in the first frame. */
	err = sfu_cursor_step(&c);
	EXPECT(err == SFU_E_UNSAFE, "s390x RA padding in caller frame: %s", E(err));
	end("step s390x-cfa-scaling-sp-minus-160");
}

UT_CASE(test_outermost)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_regs r = { 0x100002, 0xb000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[4];
	size_t n, nf;
	int err;
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 0, NULL); /* RA undefined */
	sfb_add_fde(&s, 0x100010, 0x10); /* V3: no FREs = outermost */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0xb000;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 4, &nf);
	EXPECT(err == SFU_END && nf == 1, "RA undefined: %s %zu", E(err), nf);
	r.pc = 0x100014;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 4, &nf);
	EXPECT(err == SFU_END && nf == 1, "no FREs: %s %zu", E(err), nf);
	EXPECT(m.reads == 0, "no memory read at an outermost frame");
	end("step outermost-frames");
}

/* Trap hook: the handler's caller is the vector stub, which the port turns
 * into the interrupted context (exact PC, full registers). */
static int trap_hook(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	(void)ctx;
	if (pc != 0x300010)
		return 0;
	out->pc = 0x100003; /* interrupted in fn0 before any push (exact) */
	out->sp = sp + 0x100;
	out->fp = 0x42;
	out->ra = 0;
	out->dwarf = NULL;
	out->ndwarf = 0;
	return 1;
}

UT_CASE(test_trap)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .trap = trap_hook, .ctx = &m };
	sfu_frame fr[8];
	size_t n, nf;
	int err;
	static const int32_t w8[] = { 8 }, w0[] = { 0 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 1, w8);  /* fn0 */
	sfb_add_fre(sfb_add_fde(&s, 0x100010, 0x10), 0, 1, 1, 1, w8);  /* handler */
	sfb_add_fre(sfb_add_fde(&s, 0x100020, 0x10), 0, 1, 1, 0, w0);  /* entry: outermost */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0xc000;
	mem_put(&m, 0xc000, 0x300010);        /* handler's RA: into the stub */
	mem_put(&m, 0xc108, 0x100025);        /* fn0's RA (CFA = sp+8 at exact pc 0x100003) */
	{
		sfu_regs r = { 0x100014, 0xc000, 0, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	}
	EXPECT(err == SFU_END && nf == 4, "got %s after %zu frames", E(err), nf);
	EXPECT(nf == 4 && fr[1].pc == 0x300010 && fr[2].pc == 0x100003 && fr[2].how == SFU_HOW_TRAP &&
	       fr[3].pc == 0x100025 && fr[3].how == SFU_HOW_SFRAME, "frames wrong");
	end("step trap-frame-continues-into-interrupted-code");
}

/* ---- kernels: their own trap frames, user mode, several stacks ------------ */

/* What the hook below answers, and how often it was asked. */
static struct {
	int kind;
	uint64_t pc, sp;
	const uint64_t *dwarf;
	const uint16_t *map;
	uint32_t ndwarf;
	int calls;
} g_trap;

/* The fixture of test_trap: fn0 @0x100000, handler @0x100010, entry
 * @0x100020 (outermost); the vector code's call into the handler returns
 * to 0x300010, which has no SFrame info. */
static void trap_fixture(sfb_sec *s, sfu_section *sec, mem *m)
{
	static const int32_t w8[] = { 8 }, w0[] = { 0 };
	size_t n;
	/* The stack from 0xc000; the hook's default answer: fn0 interrupted
	 * at its first push, SP 0xc100, kernel code. */
	memset(m, 0, sizeof *m);
	m->base = 0xc000;
	memset(&g_trap, 0, sizeof g_trap);
	g_trap.kind = SFU_TRAP_KERNEL;
	g_trap.pc = 0x100003;
	g_trap.sp = 0xc100;
	sfb_init(s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(s, 0x100000, 0x10), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(s, 0x100010, 0x10), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(s, 0x100020, 0x10), 0, 1, 1, 0, w0);
	n = sfb_emit(s, g_buf, sizeof g_buf);
	sfu_section_init(sec, g_buf, n, s->addr);
}

static int trap_hook2(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	(void)ctx;
	(void)sp;
	g_trap.calls++;
	if (pc != 0x300010)
		return SFU_TRAP_NONE;
	out->pc = g_trap.pc;
	out->sp = g_trap.sp;
	out->fp = 0;
	out->ra = 0;
	out->dwarf = g_trap.dwarf;
	out->ndwarf = g_trap.ndwarf;
	out->dwarf_map = g_trap.map;
	return g_trap.kind;
}

/* A trap frame that says the interrupted code ran in user mode ends the
 * walk cleanly after that frame, whose SP is the user's, not on any
 * kernel stack; the same frame said to be kernel code is out of bounds. */
UT_CASE(test_trap_user)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m, .stack_lo = 0xc000, .stack_hi = 0xc1ff };
	sfu_regs r = { 0x100014, 0xc000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	trap_fixture(&s, &sec, &m);
	mem_put(&m, 0xc000, 0x300010); /* handler's RA: into the vector code */
	g_trap.kind = SFU_TRAP_USER;
	g_trap.pc = 0x400123; /* somewhere in a user program */
	g_trap.sp = 0x7fff0000;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END_USER && nf == 3, "user: %s after %zu frames", E(err), nf);
	EXPECT(nf == 3 && fr[0].flags == SFU_FRAME_EXACT && fr[1].flags == 0 &&
	       fr[2].flags == (SFU_FRAME_EXACT | SFU_FRAME_USER) && fr[2].how == SFU_HOW_TRAP &&
	       fr[2].pc == 0x400123 && fr[2].sp == 0x7fff0000, "frame flags or user frame wrong");
	EXPECT(nf == 3 && sfu_frame_lookup_pc(&fr[1]) == 0x30000f && sfu_frame_lookup_pc(&fr[2]) == 0x400123,
	       "lookup pc: return addresses minus one, exact ones as they are");
	/* The same context said to be kernel code: its SP is off the stack. */
	g_trap.kind = SFU_TRAP_KERNEL;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_STACK_BOUNDS && nf == 2, "kernel: %s after %zu frames", E(err), nf);
	end("trap user-mode-frame-ends-the-walk");
}

/* Stacks: the walk may change stacks only across a trap frame, and only
 * to one the port declares; the first frame must be on one. */
UT_CASE(test_stacks)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	static const sfu_stack thread = { 0xc100, 0xc1ff };
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m, .stack_lo = 0xc000, .stack_hi = 0xc0ff, .stacks = &thread, .nstacks = 1 };
	sfu_regs r = { 0x100014, 0xc000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	trap_fixture(&s, &sec, &m);
	mem_put(&m, 0xc000, 0x300010);  /* handler (on the exception stack) */
	mem_put(&m, 0xc100, 0x100025);  /* fn0 (on the thread stack), RA into entry */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 4, "onto the thread stack: %s after %zu frames", E(err), nf);
	/* Without the thread stack declared, the trap leads off the stacks. */
	port.nstacks = 0;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_STACK_BOUNDS && nf == 2, "undeclared stack: %s after %zu frames", E(err), nf);
	/* A plain frame may not move from one stack to another: fn0 at the
	 * top of the exception stack returns to an SP on the thread stack. */
	port.nstacks = 1;
	mem_put(&m, 0xc0f8, 0x100025);
	{
		sfu_regs r2 = { 0x100003, 0xc0f8, 0, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r2, fr, 8, &nf);
	}
	EXPECT(err == SFU_E_STACK_BOUNDS && nf == 1, "stack switch without a trap: %s", E(err));
	/* The first frame's SP on no declared stack. */
	{
		sfu_regs r3 = { 0x100003, 0xd000, 0, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r3, fr, 8, &nf);
	}
	EXPECT(err == SFU_E_STACK_BOUNDS && nf == 1, "first frame off the stacks: %s", E(err));
	/* The first frame on a stack from the list. */
	{
		sfu_regs r4 = { 0x100003, 0xc100, 0, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r4, fr, 8, &nf);
	}
	EXPECT(err == SFU_END && nf == 2, "first frame on a listed stack: %s after %zu", E(err), nf);
	end("stacks trap-frames-may-switch-stacks-nothing-else");
}

/* The hook is asked only about return addresses: an exact PC at the vector
 * code's call site is code a trap interrupted, not a call into C. */
UT_CASE(test_trap_exact)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m };
	sfu_regs r = { 0x300010, 0xc000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[4];
	size_t nf;
	int err;
	begin();
	trap_fixture(&s, &sec, &m);
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 4, &nf);
	EXPECT(err == SFU_E_NOINFO && nf == 1 && g_trap.calls == 0, "exact pc: %s, %d hook calls", E(err),
	       g_trap.calls);
	end("trap hook-only-at-return-addresses");
}

/* A trap frame in the kernel's own register order: the DWARF map lets a
 * FLEX rule of the interrupted frame (CFA = r10, gcc's DRAP) find r10. */
UT_CASE(test_trap_dwarf_map)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	/* The stack's top just above the last frame: its RA of 0 is the end. */
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m, .stack_lo = 0x9000, .stack_hi = 0x9108 };
	sfu_regs r = { 0x100054, 0x9000, 0, 0, NULL, 0, NULL };
	/* The kernel's frame: r15 r14 ... in its own order; r10 is word 5. */
	static uint64_t frame[8];
	static uint16_t map[17];
	sfu_frame fr[8];
	size_t n, nf;
	int err, i;
	begin();
	base_flex(&s); /* fn @0x100000 FLEX (row @5: CFA = r10, FP = *(rbp)), @0x100040, @0x100050 */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0x9000;
	mem_put(&m, 0x9000, 0x300010);       /* the handler (@0x100050) returns into the vector code */
	mem_put(&m, 0x9100 - 8, 0x100044);   /* the interrupted frame's RA, at r10 - 8 */
	mem_put(&m, 0x9010, 0x9200);         /* its saved rbp */
	mem_put(&m, 0x9100, 0);              /* @0x100040: RA 0, the end */
	for (i = 0; i < 17; i++)
		map[i] = 0; /* not saved */
	map[10] = 5 * 8 + 1; /* byte offset + 1 */
	map[6] = 2 * 8 + 1;
	frame[5] = 0x9100; /* r10 */
	frame[2] = 0x9010; /* rbp */
	memset(&g_trap, 0, sizeof g_trap);
	g_trap.kind = SFU_TRAP_KERNEL;
	g_trap.pc = 0x100008; /* in the FLEX function, row @5 */
	g_trap.sp = 0x9080;
	g_trap.dwarf = frame;
	g_trap.ndwarf = 17;
	g_trap.map = map;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 4 && fr[3].pc == 0x100044 && fr[3].sp == 0x9100,
	       "through the map: %s after %zu frames", E(err), nf);
	/* r10 not saved: the rule cannot be applied. */
	map[10] = 0;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_UNSAFE && nf == 3, "r10 not saved: %s after %zu", E(err), nf);
	end("trap kernel-frame-order-through-dwarf-map");
}

/* lld: per-object sections back to back, zero padding between and after;
 * V1 from an old assembler: field-relative starts without the flag. */
UT_CASE(test_split)
{
	static sfb_sec a, b;
	static uint8_t span[8192];
	sfu_section secs[4];
	sfu_row row;
	size_t na, nb, n, off;
	int err;
	static const int32_t w8[] = { 8 }, w24[] = { 24 };
	begin();
	memset(span, 0, sizeof span);
	sfb_init(&a, 1, SFU_ABI_AMD64_LE);
	a.flags = SFU_F_FDE_FUNC_START_PCREL; /* encode field-relative ... */
	a.addr = 0x300000;
	sfb_add_fre(sfb_add_fde(&a, 0x100000, 0x10), 0, 1, 1, 1, w8);
	na = sfb_emit(&a, span, sizeof span);
	span[3] = 0; /* ... but, like gas 2.40 objects, do not say so */
	off = (na + 7) & ~(size_t)7;
	sfb_init(&b, 3, SFU_ABI_AMD64_LE);
	b.addr = 0x300000 + off;
	sfb_add_fre(sfb_add_fde(&b, 0x100040, 0x10), 0, 1, 1, 1, w24);
	nb = sfb_emit(&b, span + off, sizeof span - off);
	err = sfu_section_split(secs, 4, &n, span, off + nb + 64, 0x300000, SFU_OPT_START_PCREL);
	EXPECT(!err && n == 2, "split: %s, %zu sections", E(err), n);
	err = sfu_find_row_n(secs, n, 0x100004, &row);
	EXPECT(!err && row.cfa.off == 8, "first (V1, field-relative): %s", E(err));
	err = sfu_find_row_n(secs, n, 0x100044, &row);
	EXPECT(!err && row.cfa.off == 24, "second (V3): %s", E(err));
	/* Without an option the span is refused (test_linked.c); told the
	 * starts are section-relative, the V1 starts are taken from the
	 * section start: the function is not found where it is. */
	err = sfu_section_split(secs, 4, &n, span, off + nb + 64, 0x300000, 0);
	EXPECT(err == SFU_E_LINKED, "no option: %s", E(err));
	err = sfu_section_split(secs, 4, &n, span, off + nb + 64, 0x300000, SFU_OPT_START_SECREL);
	EXPECT(!err && n == 2 && sfu_find_row_n(secs, n, 0x100004, &row) == SFU_E_NOINFO, "section-relative");
	EXPECT(sfu_section_split(secs, 1, &n, span, off + nb, 0x300000, 0) == SFU_E_FULL && n == 1, "max 1");
	/* How many there are, for sizing the array: no guessing. */
	EXPECT(sfu_section_count(&n, span, off + nb + 64, 0x300000, SFU_OPT_START_PCREL) == SFU_OK && n == 2, "count");
	EXPECT(sfu_section_count(&n, span, off + 16, 0x300000, 0) == SFU_E_TRUNC_HDR && n == 1, "count, cut span");
	EXPECT(sfu_section_split(NULL, 4, &n, span, off + nb, 0x300000, 0) == SFU_E_ARG, "split without array");
	/* A span that ends 16 bytes into the second section's header. */
	err = sfu_section_split(secs, 4, &n, span, off + 16, 0x300000, 0);
	EXPECT(err == SFU_E_TRUNC_HDR && n == 1, "cut span: %s", E(err));
	memset(span, 0, 64);
	EXPECT(sfu_section_split(secs, 4, &n, span, 64, 0x300000, 0) == SFU_E_EMPTY && n == 0, "zeros only");
	EXPECT(sfu_section_init_opt(&secs[0], span, 64, 0, 0x80) == SFU_E_ARG, "unknown option");
	end("section split-concatenated-and-pcrel-option");
}

/* A refused FP read makes the FP unknown, not the walk over; a later rule
 * that needs the FP stops with SFU_E_UNSAFE. */
UT_CASE(test_fp_unknown)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_frame fr[8];
	size_t n, nf;
	int err;
	static const int32_t wfpbad[] = { 16, -16 }, w8[] = { 8 }, wfp[] = { 16 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 2, wfpbad); /* FP at CFA-16 */
	sfb_add_fre(sfb_add_fde(&s, 0x100010, 0x10), 0, 1, 1, 1, w8);     /* FP untouched */
	sfb_add_fre(sfb_add_fde(&s, 0x100020, 0x10), 0, 0, 1, 1, wfp);    /* CFA = fp + 16 */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0xd000;
	/* Frame 0 at sp 0xcff8: CFA 0xd008, RA slot 0xd000 readable, FP slot
	 * 0xcff8 below the memory: refused.  fn1 leaves the FP alone; fn2's
	 * CFA is FP-based: unknown. */
	mem_put(&m, 0xd000, 0x100014); /* RA into fn1 */
	mem_put(&m, 0xd008, 0x100024); /* fn1's RA (CFA = sp+8 = 0xd010) into fn2 */
	{
		sfu_regs r = { 0x100004, 0xcff8, 0x1234, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	}
	EXPECT(err == SFU_E_UNSAFE && nf == 3 && fr[1].pc == 0x100014 && fr[2].pc == 0x100024,
	       "got %s after %zu frames", E(err), nf);
	end("step refused-fp-read-makes-fp-unknown");
}

/* A slot offset that is not a multiple of 8 (no producer writes one): the
 * compact step reads its slots without an alignment test, so such a row
 * takes the general rules, which refuse the unaligned RA slot
 * (SFU_E_ALIGN) and make an unaligned FP slot's FP unknown, as for every
 * other unaligned read.  (SFU_ASSERT aborts if a compact row's read is
 * unaligned.) */
UT_CASE(test_unaligned_slot)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_frame fr[8];
	size_t n, nf;
	int err;
	static const int32_t wra[] = { 32, -12, -16 }, wfp[] = { 32, -8, -20 }, wcfa[] = { 16, -8 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AARCH64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x400000, 0x10), 0, 1, 1, 3, wra);  /* RA at CFA-12 */
	sfb_add_fre(sfb_add_fde(&s, 0x400010, 0x10), 0, 1, 1, 3, wfp);  /* FP at CFA-20 */
	sfb_add_fre(sfb_add_fde(&s, 0x400020, 0x10), 0, 0, 1, 2, wcfa); /* CFA = fp + 16 */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	err = sfu_section_init(&sec, g_buf, n, s.addr);
	EXPECT(!err, "init %s", E(err));
	memset(&m, 0, sizeof m);
	m.base = 0x8000;
	{
		sfu_regs r = { 0x400004, 0x8000, 0x1234, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
		EXPECT(err == SFU_E_ALIGN && nf == 1, "RA at CFA-12: %s after %zu frames", E(err), nf);
	}
	/* Frame 0 in the second function at sp 0x8000: CFA 0x8020, RA at
	 * 0x8018 into the third, FP slot 0x800c refused; the third's CFA is
	 * FP-based: unknown. */
	mem_put(&m, 0x8018, 0x400024);
	mem_put(&m, 0x8008, 0x9000);
	mem_put(&m, 0x8010, 0x9000);
	{
		sfu_regs r = { 0x400014, 0x8000, 0x1234, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
		EXPECT(err == SFU_E_UNSAFE && nf == 2 && fr[1].pc == 0x400024, "FP at CFA-20: %s after %zu frames", E(err),
		       nf);
	}
	end("step unaligned-slot-offset");
}

/* A call through a null function pointer: the trap frame (or first frame)
 * has PC 0; the caller is found from the return address the call left. */
UT_CASE(test_null_call)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m };
	sfu_frame fr[8];
	size_t n, nf;
	int err;
	static const int32_t w16[] = { 16, -16 }, w0[] = { 0 };
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 2, w16); /* caller: CFA = sp+16 */
	sfb_add_fre(sfb_add_fde(&s, 0x100010, 0x10), 0, 1, 1, 0, w0);  /* entry: outermost */
	n = sfb_emit(&s, g_buf, sizeof g_buf);
	sfu_section_init(&sec, g_buf, n, s.addr);
	memset(&m, 0, sizeof m);
	m.base = 0xe000;
	mem_put(&m, 0xe000, 0x100008);  /* the call pushed RA into the caller */
	mem_put(&m, 0xe010, 0x100014);  /* caller's RA (CFA 0xe018 - 8) */
	{
		sfu_regs r = { 0, 0xe000, 0, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	}
	EXPECT(err == SFU_END && nf == 3 && fr[0].pc == 0 && fr[1].pc == 0x100008 && fr[1].how == SFU_HOW_NULL_CALL &&
	       fr[1].sp == 0xe008 && fr[2].pc == 0x100014, "amd64: %s after %zu frames", E(err), nf);
	/* aarch64: RA in the link register, SP unchanged. */
	{
		static sfb_sec a;
		static const int32_t w0a[] = { 0 };
		sfb_init(&a, 3, SFU_ABI_AARCH64_LE);
		sfb_add_fre(sfb_add_fde(&a, 0x400000, 0x10), 0, 1, 1, 0, w0a); /* outermost */
		n = sfb_emit(&a, g_buf, sizeof g_buf);
		sfu_section_init(&sec, g_buf, n, a.addr);
		{
			sfu_regs r = { 0, 0xe000, 0, 0x400008, NULL, 0, NULL };
			err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
		}
		EXPECT(err == SFU_END && nf == 2 && fr[1].pc == 0x400008 && fr[1].sp == 0xe000 && fr[1].how == SFU_HOW_NULL_CALL,
		       "aarch64: %s after %zu frames", E(err), nf);
	}
	end("step null-function-pointer-call");
}

/* ---- the end of a stack ----------------------------------------------------
 * A whole trace only where the end is known: an outermost row, a function
 * named as an entry, a return address of 0 at the top of the stack. */

/* A chain A -> B -> C on the stack 0xd000..: A (CFA = SP + 8), B (CFA =
 * SP + 16), C (CFA = SP + 8), C's return address 0 at 0xd0d8, its caller
 * SP 0xd0e0.  b_cfa: B's CFA offset as the section says it (16 is right;
 * 48 a misfitting description that lands on zeroed stack). */
static void end_fixture(sfb_sec *s, sfu_section *sec, mem *m, int32_t b_cfa)
{
	static int32_t wb[1];
	static const int32_t w8[] = { 8 };
	size_t n;
	wb[0] = b_cfa;
	sfb_init(s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(s, 0x100000, 0x10), 0, 1, 1, 1, w8); /* A */
	sfb_add_fre(sfb_add_fde(s, 0x100010, 0x10), 0, 1, 1, 1, wb); /* B */
	sfb_add_fre(sfb_add_fde(s, 0x100020, 0x10), 0, 1, 1, 1, w8); /* C */
	n = sfb_emit(s, g_buf, sizeof g_buf);
	sfu_section_init(sec, g_buf, n, s->addr);
	memset(m, 0, sizeof *m);
	m->base = 0xd000;
	mem_put(m, 0xd0c0, 0x100015); /* A's RA: into B */
	mem_put(m, 0xd0d0, 0x100025); /* B's RA: into C */
	mem_put(m, 0xd0d8, 0);        /* C's RA: 0, what the code that started the stack left */
}

UT_CASE(test_end_zero_ra)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m, .stack_lo = 0xd000, .stack_hi = 0xd100 };
	static const sfu_stack far_top = { 0xd000, 0xd1e0 };
	sfu_regs r = { 0x100004, 0xd0c0, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	end_fixture(&s, &sec, &m, 16);
	port.stack_hi = 0xd0e0;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 3 && fr[2].pc == 0x100025 && SFU_COMPLETE(err),
	       "RA 0, caller SP at the top: %s after %zu frames", E(err), nf);
	/* 0x20 below the top, the port's top left 0 (SFU_TOP_FRAME, 0): not
	 * where this stack starts. */
	port.stack_hi = 0xd100;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 3 && !SFU_COMPLETE(err), "RA 0, caller SP 0x20 below the top, top 0: %s after %zu frames",
	       E(err), nf);
	/* The same zero 0x100 below the top: not where a stack starts. */
	port.stack_hi = 0xd1e0;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 3 && !SFU_COMPLETE(err), "RA 0 mid-stack: %s after %zu frames", E(err), nf);
	/* The stack given as one of stacks[]: the same rule. */
	port.stack_lo = port.stack_hi = 0;
	port.stacks = &far_top;
	port.nstacks = 1;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 3, "stacks[], RA 0 mid-stack: %s after %zu frames", E(err), nf);
	/* No stack declared: nothing says where the stack starts. */
	port.stacks = NULL;
	port.nstacks = 0;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 3, "unbounded: %s after %zu frames", E(err), nf);
	/* The port's top: 16 bytes is too little for 0x20, 32 is enough. */
	port.stack_lo = 0xd000;
	port.stack_hi = 0xd100;
	port.top = 16;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 3, "top 16: %s after %zu frames", E(err), nf);
	port.top = 32;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 3, "top 32: %s after %zu frames", E(err), nf);
	end("end zero-return-address-at-the-stack-top-only");
}

/* A description that does not fit (B's CFA read as SP + 48) lands on a
 * zeroed word in the middle of the stack: before, "outermost frame
 * reached" after 2 frames; now an incomplete trace with its own code. */
UT_CASE(test_end_misread)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .ctx = &m, .stack_lo = 0xd000, .stack_hi = 0xd200 };
	sfu_regs r = { 0x100004, 0xd0c0, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	end_fixture(&s, &sec, &m, 48);
	mem_put(&m, 0xd1f8, 0); /* the true end, at the top */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 2 && fr[1].pc == 0x100015,
	       "misread onto a zero at 0xd0f0: %s after %zu frames", E(err), nf);
	EXPECT(strcmp(sfu_strerror(err), "return address 0 inside the stack") == 0, "its text: %s", sfu_strerror(err));
	/* The cursor says the same, step by step. */
	{
		sfu_cursor c;
		sfu_cursor_init(&c, &sec, 1, &port, &r);
		err = sfu_cursor_step(&c);
		if (err == SFU_OK)
			err = sfu_cursor_step(&c);
		EXPECT(err == SFU_E_ZERO_RA && c.regs.pc == 0x100015, "cursor: %s at %#llx", E(err),
		       (unsigned long long)c.regs.pc);
	}
	end("end misread-lands-on-a-zero-mid-stack");
}

/* A function named as an entry is the outermost frame, whatever its
 * frame holds; so is a return address equal to an entry's first byte. */
UT_CASE(test_end_entries)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	static uint64_t entries[2];
	sfu_port port = { .read = mem_read, .ctx = &m, .entries = entries, .nentries = 1 };
	sfu_regs r = { 0x100004, 0xd0c0, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	end_fixture(&s, &sec, &m, 16);
	mem_put(&m, 0xd0d8, 0x100005); /* C's RA: on into A (nothing ends the stack there) */
	mem_put(&m, 0xd0e0, 0x100005);
	entries[0] = 0x100020; /* C */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 3 && fr[2].pc == 0x100025, "entry C, unbounded: %s after %zu frames", E(err), nf);
	entries[0] = 0x100010; /* B */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 2 && fr[1].pc == 0x100015, "entry B: %s after %zu frames", E(err), nf);
	entries[0] = 0x100000; /* A, the first frame */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 1, "entry A, the first frame: %s after %zu frames", E(err), nf);
	/* A return address equal to an entry (an exit routine planted as the
	 * return address; looked up at ra - 1 it is in the function before). */
	entries[0] = 0x300000;
	entries[1] = 0x100025;
	port.nentries = 2;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 3, "return address at an entry: %s after %zu frames", E(err), nf);
	/* Entries the walk never meets change nothing: on into A twice, then
	 * the zero at 0xd0e8, mid-stack. */
	entries[1] = 0x300040;
	port.stack_lo = 0xd000;
	port.stack_hi = 0xd200;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 5, "no entry met: %s after %zu frames", E(err), nf);
	end("end named-entry-functions");
}

/* A trap frame that was never written (a kernel thread's pt_regs):
 * SFU_END_NEVER_RAN where it ends at the top of the stack (the hook gives
 * its end as the SP), a misread elsewhere. */
UT_CASE(test_end_empty_trap)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m, .stack_lo = 0xc000, .stack_hi = 0xc128 };
	sfu_regs r = { 0x100014, 0xc000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	trap_fixture(&s, &sec, &m);
	mem_put(&m, 0xc000, 0x300010); /* handler's RA: into the vector code */
	g_trap.kind = SFU_TRAP_EMPTY;
	g_trap.sp = 0xc128; /* a 0x120-byte frame at the call's SP 0xc008 */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END_NEVER_RAN && nf == 2 && SFU_COMPLETE(err), "at the top: %s after %zu frames", E(err), nf);
	port.stack_hi = 0xc200;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_E_ZERO_RA && nf == 2, "its end 0xd8 below the top, top 0: %s after %zu frames", E(err), nf);
	port.top = 0xd8;
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END_NEVER_RAN && nf == 2, "the same with top 0xd8: %s after %zu frames", E(err), nf);
	end("end zeroed-trap-frame-never-ran");
}

/* A trap frame that says user mode, with an SP on a stack the port
 * declares: the kernel's stack (an EL0 task on its own, or a mode word
 * misread): the walk goes on there. */
UT_CASE(test_trap_user_on_kernel_stack)
{
	static sfb_sec s;
	static mem m;
	sfu_section sec;
	sfu_port port = { .read = mem_read, .trap = trap_hook2, .ctx = &m, .stack_lo = 0xc000, .stack_hi = 0xc1ff };
	sfu_regs r = { 0x100014, 0xc000, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf;
	int err;
	begin();
	trap_fixture(&s, &sec, &m);
	mem_put(&m, 0xc000, 0x300010);
	mem_put(&m, 0xc100, 0x100025); /* fn0's RA: into the entry (outermost) */
	g_trap.kind = SFU_TRAP_USER;   /* fn0 at 0x100003, SP 0xc100: on the stack */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	EXPECT(err == SFU_END && nf == 4 && !(fr[2].flags & SFU_FRAME_USER) && fr[3].pc == 0x100025,
	       "user, SP on the stack: %s after %zu frames", E(err), nf);
	end("trap user-mode-on-a-declared-stack-walks-on");
}

/* Every code's name and text, as SFU_ERRORS lists them, from the one
 * string table; "?" just outside the codes and far from them. */
UT_CASE(test_error_strings)
{
	static const struct {
		int code;
		const char *name, *text;
	} want[] = {
#define UT_ERR(name, value, text) { name, #name, text },
		SFU_ERRORS(UT_ERR)
#undef UT_ERR
	};
	static const int unknown[] = { -1, SFU_ERROR_COUNT, SFU_ERROR_COUNT + 1, 1000, -2147483647 - 1 };
	size_t i;
	begin();
	EXPECT(sizeof want / sizeof want[0] == SFU_ERROR_COUNT, "%zu codes listed, SFU_ERROR_COUNT %d",
	       sizeof want / sizeof want[0], SFU_ERROR_COUNT);
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		EXPECT(want[i].code == (int)i, "code %s is %d, listed %zu-th", want[i].name, want[i].code, i);
		EXPECT(strcmp(sfu_errname(want[i].code), want[i].name) == 0, "sfu_errname(%d) = \"%s\", want \"%s\"",
		       want[i].code, sfu_errname(want[i].code), want[i].name);
		EXPECT(strcmp(sfu_strerror(want[i].code), want[i].text) == 0, "sfu_strerror(%d) = \"%s\", want \"%s\"",
		       want[i].code, sfu_strerror(want[i].code), want[i].text);
	}
	for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
		EXPECT(strcmp(sfu_errname(unknown[i]), "?") == 0 && strcmp(sfu_strerror(unknown[i]), "?") == 0,
		       "code %d: \"%s\", \"%s\", want \"?\"", unknown[i], sfu_errname(unknown[i]), sfu_strerror(unknown[i]));
	end("unit error-names-and-texts");
}

int main(void)
{
	return ut_main("unit");
}
