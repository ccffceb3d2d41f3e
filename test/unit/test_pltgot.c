/* SPDX-License-Identifier: MIT */
/* GNU ld's .plt.got FDE and SFU_FIX_LD_PLTGOT (core/sfu.h, "PRODUCER
 * ERRORS").  ld 2.44 and 2.47 describe the x86_64 .plt.got stubs with a
 * PC-mask FDE whose one FRE, at offset 0, says CFA = SP + 16; the stub is
 * reached by `call`, so its CFA is SP + 8.  The core reads exactly that
 * shape as SP + 8 and leaves everything around it alone.
 *
 * Sections built by sfb.h, like ld's (V2 and V3): PLT0 (a PC-increment FDE,
 * 0: SP+16, 6: SP+24), the .plt.got FDE (PC-mask, repeat size 8 or 16, one
 * FRE: 0: SP+16), a function.  Checked: the row at every byte of the stubs
 * through sfu_find_row, the walk's lookup (sfu__lookup_row),
 * sfu_row_from_fre, both indexes; a walk out of a stub (the RA read at SP,
 * the caller's SP + 8) plain, indexed and cached; validation; and that
 * shapes just outside (two FREs, CFA offset 24, a PC-increment FDE,
 * aarch64, V1, an FRE not at 0, an FP slot, a mangled RA, RA at CFA - 16,
 * a signal FDE) keep what they say.
 *
 * Built three ways by run.sh: as it is (the fix on), test_pltgot_off.c
 * (SFU_FIX_LD_PLTGOT 0: the old reading, SP + 16) and
 * test_pltgot_general.c (SFU_COMPACT 0: every row through the general
 * rules).  Case names carry the build. */
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

#if !SFU_FIX_LD_PLTGOT
#define BUILD "knob-0"
#elif !SFU_COMPACT
#define BUILD "general"
#else
#define BUILD "fix"
#endif

/* What the .plt.got rows read as in this build. */
#define WANT_CFA (SFU_FIX_LD_PLTGOT ? 8 : 16)

#define PLT0 0x101000u
#define PLTGOT 0x101010u
#define FUNC 0x101040u
#define NSTUB 3

static uint8_t g_buf[4096];
static sfb_sec g_s;
static size_t g_n;

/* ld's three FDEs; rep: the .plt.got entry size (8, or 16 with IBT). */
static sfb_fde *ld_like(unsigned version, unsigned abi, unsigned rep)
{
	static const int32_t w16[] = { 16 }, w24[] = { 24 }, w8[] = { 8 }, a16[] = { 16, -8 };
	int aarch64 = abi != SFU_ABI_AMD64_LE;
	sfb_fde *f, *got;
	sfb_init(&g_s, version, abi);
	f = sfb_add_fde(&g_s, PLT0, 16);
	sfb_add_fre(f, 0, 1, 1, aarch64 ? 2 : 1, aarch64 ? a16 : w16);
	sfb_add_fre(f, 6, 1, 1, 1, w24);
	got = sfb_add_fde(&g_s, PLTGOT, NSTUB * rep);
	got->pctype = SFU_FDE_PCTYPE_MASK;
	got->rep_size = version >= 2 ? rep : 0;
	sfb_add_fre(got, 0, 1, 1, aarch64 ? 2 : 1, aarch64 ? a16 : w16);
	f = sfb_add_fde(&g_s, FUNC, 0x20);
	sfb_add_fre(f, 0, 1, 1, 1, w8);
	sfb_add_fre(f, 1, 1, 1, 1, w16);
	return got;
}

static int build(sfu_section *sec)
{
	int err;
	g_n = sfb_emit(&g_s, g_buf, sizeof g_buf);
	err = sfu_section_init(sec, g_buf, g_n, g_s.addr);
	return err ? err : sfu_section_validate(sec, NULL);
}

/* Every path's row at pc: the general row, the compact row (plain, FDE
 * index, row index) agree; *cfa gets the CFA offset (-1 on a mismatch). */
static int rows_at(sfu_section *plain, sfu_section idx[2], uint64_t pc, int32_t *cfa)
{
	sfu_row r, ri;
	sfu__compact_row c, ci;
	unsigned k;
	int e = sfu_find_row(plain, pc, &r), ec = sfu__lookup_row(plain, 1, pc, &c);
	*cfa = -1;
	EXPECT(e == SFU_OK && ec == SFU_OK, "pc %#llx: %s / %s", (unsigned long long)pc, E(e), E(ec));
	if (e || ec)
		return -1;
	/* (SFU_COMPACT 0: every row general, its offsets the core's own.) */
	EXPECT((c.flags & SFU__CROW_GENERAL) ? !SFU_COMPACT : tr_crow_is_row(&c, &r),
	       "pc %#llx: the compact row (flags %#x) is not the general one", (unsigned long long)pc, c.flags);
	for (k = 0; k < 2; k++) {
		e = sfu__lookup_row(&idx[k], 1, pc, &ci);
		EXPECT(e == SFU_OK && tr_crow_eq(&c, &ci), "pc %#llx, %s index: %s, not the plain row",
		       (unsigned long long)pc, k ? "row" : "FDE", E(e));
		e = sfu_find_row(&idx[k], pc, &ri);
		EXPECT(e == SFU_OK && tr_row_eq(&r, &ri), "pc %#llx, %s index: general row %s", (unsigned long long)pc,
		       k ? "row" : "FDE", E(e));
	}
	if (r.cfa.base == SFU_REG_SP && r.cfa.kind == SFU_RULE_OFF)
		*cfa = r.cfa.off;
	return 0;
}

static uint64_t g_ix[2][1024];

static int index_both(const sfu_section *plain, sfu_section idx[2])
{
	unsigned k;
	for (k = 0; k < 2; k++) {
		unsigned kind = k ? SFU_INDEX_ROWS : SFU_INDEX_FDES;
		size_t bytes;
		int err;
		idx[k] = *plain;
		err = sfu_index_size(plain, kind, &bytes);
		if (!err && bytes > sizeof g_ix[k])
			err = SFU_E_ARG;
		if (!err)
			err = sfu_index_build(&idx[k], kind, g_ix[k], bytes);
		if (err)
			return err;
	}
	return SFU_OK;
}

/* ---- the shape ld writes ----------------------------------------------- */

static void test_ld_shape(unsigned version, unsigned rep)
{
	sfu_section sec, idx[2];
	sfu_fde fde;
	sfu_fre fre;
	sfu_row row;
	uint32_t i;
	uint64_t pc;
	int32_t cfa;
	int err;
	char name[96];

	begin();
	ld_like(version, SFU_ABI_AMD64_LE, rep);
	err = build(&sec);
	EXPECT(!err, "init/validate: %s (ld writes this section: it must be accepted)", E(err));
	err = err ? err : index_both(&sec, idx);
	EXPECT(!err, "index: %s", E(err));
	/* Every byte of every stub: the corrected row, RA at CFA - 8, FP
	 * unchanged.  PLT0 and the function keep theirs. */
	for (pc = PLTGOT; !err && pc < PLTGOT + NSTUB * rep; pc++) {
		if (rows_at(&sec, idx, pc, &cfa))
			break;
		EXPECT(cfa == WANT_CFA, "stub %u +%u: CFA = SP%+d, want SP%+d", (unsigned)((pc - PLTGOT) / rep),
		       (unsigned)((pc - PLTGOT) % rep), cfa, WANT_CFA);
		err = sfu_find_row(&sec, pc, &row);
		EXPECT(!err && row.ra.kind == SFU_RULE_DEREF && row.ra.base == SFU_REG_CFA && row.ra.off == -8 &&
		           row.fp.kind == SFU_RULE_SAME && !row.mangled_ra,
		       "pc %#llx: RA/FP rules", (unsigned long long)pc);
	}
	for (pc = PLT0; !err && pc < PLT0 + 16; pc++) {
		rows_at(&sec, idx, pc, &cfa);
		EXPECT(cfa == (pc < PLT0 + 6 ? 16 : 24), "PLT0 +%u (PC-increment, SP+16 at 0): CFA = SP%+d",
		       (unsigned)(pc - PLT0), cfa);
	}
	rows_at(&sec, idx, FUNC + 4, &cfa);
	EXPECT(cfa == 16, "the function: CFA = SP%+d", cfa);
	/* sfu_row_from_fre on the FDE's FRE says the same. */
	for (i = 0; i < sec.num_fdes && !err; i++) {
		if (sfu_fde_get(&sec, i, &fde) || fde.pctype != SFU_FDE_PCTYPE_MASK)
			continue;
		err = sfu_fre_get(&sec, &fde, fde.fre_off, &fre);
		err = err ? err : sfu_row_from_fre(&sec, &fde, &fre, &row);
		EXPECT(!err && row.cfa.base == SFU_REG_SP && row.cfa.off == WANT_CFA, "sfu_row_from_fre: %s, SP%+d",
		       E(err), row.cfa.off);
	}
	snprintf(name, sizeof name, "pltgot[%s] lookup-v%u-rep%u: CFA = SP%+d in every stub, PLT0 and the rest as written",
	         BUILD, version, rep, WANT_CFA);
	end(name);
}

/* ---- a walk out of a stub ------------------------------------------------ */

static uint64_t g_stack[16];
#define STK ((uint64_t)(uintptr_t)g_stack)

static int rd(void *ctx, uint64_t a, uint64_t *o)
{
	(void)ctx;
	if (a < STK || a - STK > sizeof g_stack - 8 || (a & 7))
		return -1;
	*o = g_stack[(a - STK) / 8];
	return 0;
}

/* A sample at the first byte of stub 1 (the topmost frame), called from
 * FUNC + 0x10: [SP] = that return address; [SP + 8] holds what the caller
 * left there (a stack address, what ld's row made frame 1 before). */
static void test_walk(unsigned version)
{
	sfu_section sec, idx[2], *which;
	/* The stack's top is the caller's CFA: its RA of 0 is the end. */
	sfu_port port = { .read = rd, .stack_lo = STK, .stack_hi = STK + 0x38 };
	sfu_regs regs = { PLTGOT + 8, 0, 0, 0, NULL, 0, NULL };
	sfu_frame fr[3][8];
	static sfu_cache_entry slots[16];
	sfu_cache cache;
	size_t n[3];
	unsigned way, pass;
	int err, rc[3];
	char name[96];
	const char *names[3] = { "plain", "FDE index", "row index" };

	begin();
	ld_like(version, SFU_ABI_AMD64_LE, 8);
	err = build(&sec);
	err = err ? err : index_both(&sec, idx);
	EXPECT(!err, "section: %s", E(err));
	memset(g_stack, 0, sizeof g_stack);
	regs.sp = STK + 0x20;
	g_stack[4] = FUNC + 0x10;   /* [SP]: the return address */
	g_stack[5] = STK + 0x60;    /* [SP + 8]: caller data */
	g_stack[6] = 0;             /* the caller's RA (its CFA = SP + 16): outermost */
	for (way = 0; way < 3 && !err; way++) {
		which = way == 0 ? &sec : &idx[way - 1];
		sfu_cache_init(&cache, slots, 16);
		for (pass = 0; pass < 3; pass++) {
			/* pass 0 plain, 1 cached (cold), 2 cached (warm) */
			rc[pass] = pass ? sfu_backtrace_cached(which, 1, &cache, &port, &regs, fr[pass], 8, &n[pass])
			                : sfu_backtrace(which, 1, &port, &regs, fr[pass], 8, &n[pass]);
		}
		if (SFU_FIX_LD_PLTGOT) {
			/* Frame 1 is the caller, at SP + 8; its RA 0 ends the walk. */
			EXPECT(rc[0] == SFU_END && n[0] == 2 && fr[0][1].pc == FUNC + 0x10 && fr[0][1].sp == STK + 0x28 &&
			           fr[0][1].cfa == STK + 0x28,
			       "%s: %s, %zu frames, frame 1 pc %#llx sp %#llx", names[way], E(rc[0]), n[0],
			       (unsigned long long)fr[0][1].pc, (unsigned long long)fr[0][1].sp);
		} else {
			/* As written: the RA read from SP + 8, a stack address. */
			EXPECT(n[0] >= 2 && fr[0][1].pc == STK + 0x60 && fr[0][1].sp == STK + 0x30,
			       "%s: %s, %zu frames, frame 1 pc %#llx (want the stack word %#llx)", names[way], E(rc[0]), n[0],
			       (unsigned long long)fr[0][1].pc, (unsigned long long)(STK + 0x60));
		}
		for (pass = 1; pass < 3; pass++) {
			size_t i;
			int same = rc[pass] == rc[0] && n[pass] == n[0];
			for (i = 0; same && i < n[0]; i++)
				same = fr[pass][i].pc == fr[0][i].pc && fr[pass][i].sp == fr[0][i].sp && fr[pass][i].cfa == fr[0][i].cfa;
			EXPECT(same, "%s, cached (%s): another walk", names[way], pass == 1 ? "cold" : "warm");
		}
		/* (General rows do not pack: SFU_COMPACT 0 caches none.) */
		EXPECT(cache.hits > 0 || !SFU_COMPACT, "%s: the warm walk did not hit the cache", names[way]);
	}
	snprintf(name, sizeof name, "pltgot[%s] walk-v%u: out of a stub, frame 1 is %s", BUILD, version,
	         SFU_FIX_LD_PLTGOT ? "the caller (RA at SP, SP + 8)" : "the stack word at SP + 8 (as written)");
	end(name);
}

/* ---- shapes just outside ------------------------------------------------- */

enum { O_TWO_FRES, O_CFA24, O_PCINC, O_AARCH64, O_V1, O_START2, O_FP_SLOT, O_MANGLED, O_RA16, O_SIGNAL, O_N };
static const char *const o_name[O_N] = {
	"two FREs", "CFA offset 24", "PC-increment FDE", "aarch64", "V1", "FRE at offset 2", "FP saved",
	"mangled RA bit", "RA at CFA-16", "signal FDE",
};

static void test_outside(unsigned version)
{
	static const int32_t w16[] = { 16 }, fp[] = { 16, -16 };
	unsigned o;
	char name[128];

	for (o = 0; o < O_N; o++) {
		sfu_section sec, idx[2];
		sfb_fde *got;
		uint64_t pc;
		int32_t cfa, want;
		unsigned v = o == O_V1 ? 1 : version, abi = o == O_AARCH64 ? SFU_ABI_AARCH64_LE : SFU_ABI_AMD64_LE;
		int err;
		if (o == O_SIGNAL && version != 3)
			continue; /* V3 only */
		begin();
		got = ld_like(v, abi, 8);
		want = o == O_CFA24 ? 24 : 16;
		switch (o) {
		case O_TWO_FRES: sfb_add_fre(got, 6, 1, 1, 1, w16); break;
		case O_CFA24: got->fres[0].enc[0] = 24; break;
		case O_PCINC: got->pctype = SFU_FDE_PCTYPE_INC; got->rep_size = 0; break;
		case O_START2: got->fres[0].start = 2; break;
		case O_FP_SLOT: got->nfres = 0; sfb_add_fre(got, 0, 1, 1, 2, fp); break;
		case O_MANGLED: got->fres[0].mangled = 1; break;
		case O_RA16: g_s.fixed_ra = -16; break;
		case O_SIGNAL: got->signal = 1; break;
		}
		err = build(&sec);
		err = err ? err : index_both(&sec, idx);
		EXPECT(!err, "section: %s", E(err));
		for (pc = PLTGOT; !err && pc < PLTGOT + NSTUB * 8; pc++) {
			uint32_t off = (uint32_t)(pc - PLTGOT) % 8;
			if (o == O_START2 && off < 2)
				continue; /* no row before the FRE */
			if (rows_at(&sec, idx, pc, &cfa))
				break;
			EXPECT(cfa == want, "%s: stub +%u: CFA = SP%+d, want SP%+d as written", o_name[o], off, cfa, want);
		}
		snprintf(name, sizeof name, "pltgot[%s] not-the-shape-v%u: %s: as written", BUILD, v, o_name[o]);
		end(name);
	}
}

UT_CASE(test_pltgot_cases)
{
	test_ld_shape(2, 8);
	test_ld_shape(2, 16);
	test_ld_shape(3, 8);
	test_ld_shape(3, 16);
	test_walk(2);
	test_walk(3);
	test_outside(2);
	test_outside(3);
}

int main(void)
{
	return ut_main("unit pltgot[" BUILD "]");
}
