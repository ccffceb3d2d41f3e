/* SPDX-License-Identifier: MIT */
/* Unit tests of the two checks that keep a wrong function start encoding
 * from giving a trace that looks complete: a span of several sections
 * without SFRAME_F_FDE_FUNC_START_PCREL refused unless the options say how
 * it was linked (SFU_E_LINKED), and every FDE checked against the code
 * range (sfu_section_check_code, sfu_section_split_code: SFU_E_CODE_RANGE).
 * Sections are written by test/common/sfb.h the way lld leaves them: one
 * per object, back to back at 8-byte boundaries, each start relative to its
 * own field, and (V1, V2 before binutils 2.45) no flag saying so.
 * Prints "ok NAME" or "FAIL NAME: why" per case. */
#include <stdlib.h>
#define SFU_ASSERT(x) ((x) ? (void)0 : abort())
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../common/sfb.h"

#include "ut.h"

/* ---- fixtures ------------------------------------------------------------ */

/* The code: object A's functions, then object B's, 0x20 bytes each. */
#define CODE_LO 0x100000u
#define CODE_HI 0x100080u
#define SPAN_ADDR 0x300000u

static uint8_t g_span[4096];

/* One object's section at span offset `off`: functions at `at` (and at +
 * 0x20), amd64 rows CFA = SP + cfa[i], RA at CFA - 8.  Written PC-relative;
 * `flagged` 0 clears the flag afterwards, as an assembler before binutils
 * 2.45 leaves it (the relocation is PC-relative all the same).  Returns its
 * length. */
static size_t object(unsigned version, size_t off, uint64_t at, const int32_t cfa[2], int flagged)
{
	static sfb_sec s;
	size_t n;
	sfb_init(&s, version, SFU_ABI_AMD64_LE);
	s.flags = SFU_F_FDE_FUNC_START_PCREL; /* not sorted: an object's */
	s.addr = SPAN_ADDR + off;
	sfb_add_fre(sfb_add_fde(&s, at, 0x20), 0, 1, 1, 1, &cfa[0]);
	sfb_add_fre(sfb_add_fde(&s, at + 0x20, 0x20), 0, 1, 1, 1, &cfa[1]);
	n = sfb_emit(&s, g_span + off, sizeof g_span - off);
	if (!flagged)
		g_span[off + 3] = 0; /* sfp_flags (spec 2.1) */
	return n;
}

/* lld's output: A then B, 8-aligned, zero padding after (the span is what
 * [__sframe_start, __sframe_end) would cover).  Returns the span length. */
static size_t lld_span(unsigned va, int fa, unsigned vb, int fb)
{
	static const int32_t ca[2] = { 16, 8 }, cb[2] = { 8, 24 };
	size_t na, off;
	memset(g_span, 0, sizeof g_span);
	na = object(va, 0, CODE_LO, ca, fa);
	off = (na + 7) & ~(size_t)7;
	off += object(vb, off, CODE_LO + 0x40, cb, fb);
	return off + 24;
}

/* A walk through both sections: B's first function (leaf, CFA = SP + 8)
 * called from B's second (CFA = SP + 24), called from A's first (CFA = SP +
 * 16), whose caller's RA is 0 (the end).  Returns "" if it walked exactly
 * so, else what went wrong. */
static const char *walk_right(const sfu_section *secs, size_t n)
{
	static char why[160];
	static uint64_t words[8];
	struct ut_stack st = { words, 8 };
	uint64_t sp = (uint64_t)(uintptr_t)words;
	/* The stack's top just above A's frame: its RA of 0 is the end. */
	sfu_port port = { .read = ut_stack_read, .ctx = &st, .stack_lo = sp, .stack_hi = sp + 48 };
	sfu_regs r = { CODE_LO + 0x44, sp, 0, 0, NULL, 0, NULL };
	sfu_frame fr[8];
	size_t nf = 0;
	int err;
	memset(words, 0, sizeof words);
	words[0] = CODE_LO + 0x68; /* leaf's RA (CFA sp + 8) into B's second */
	words[3] = CODE_LO + 0x08; /* its RA (CFA sp + 8 + 24) into A's first */
	words[5] = 0;              /* A's first: CFA sp + 32 + 16, RA 0: the end */
	err = sfu_backtrace(secs, n, &port, &r, fr, 8, &nf);
	if (err != SFU_END || nf != 3 || fr[0].pc != CODE_LO + 0x44 || fr[1].pc != CODE_LO + 0x68 ||
	    fr[2].pc != CODE_LO + 0x08 || fr[1].sp != sp + 8 || fr[2].sp != sp + 32) {
		snprintf(why, sizeof why, "walk: %s after %zu frames (pcs %#llx %#llx %#llx)", E(err), nf,
		         nf > 0 ? (unsigned long long)fr[0].pc : 0ull, nf > 1 ? (unsigned long long)fr[1].pc : 0ull,
		         nf > 2 ? (unsigned long long)fr[2].pc : 0ull);
		return why;
	}
	return "";
}

/* ---- several sections without the flag ------------------------------------ */

/* V1 and V2 from assemblers before binutils 2.45, linked by lld: refused
 * without an option, by sfu_section_split and sfu_section_count alike;
 * with SFU_OPT_START_PCREL, read right; the range check passes it too. */
static void unflagged(unsigned version)
{
	sfu_section secs[4];
	size_t len = lld_span(version, 0, version, 0), n = 99;
	char name[96];
	const char *why;
	int err;
	begin();
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, 0);
	EXPECT(err == SFU_E_LINKED && n == 1, "split, no option: %s, n %zu", E(err), n);
	err = sfu_section_count(&n, g_span, len, SPAN_ADDR, 0);
	EXPECT(err == SFU_E_LINKED, "count, no option: %s", E(err));
	err = sfu_section_split_code(secs, 4, &n, g_span, len, SPAN_ADDR, 0, CODE_LO, CODE_HI);
	EXPECT(err == SFU_E_LINKED, "split_code, no option: %s", E(err));
	/* The error tells what to pass. */
	EXPECT(strstr(E(SFU_E_LINKED), "SFU_OPT_START_PCREL") != NULL, "text: %s", E(SFU_E_LINKED));
	snprintf(name, sizeof name, "linked v%u-unflagged-concatenated-refused-without-option", version);
	end(name);

	begin();
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL);
	EXPECT(!err && n == 2 && secs[0].pcrel && secs[1].pcrel, "split: %s, n %zu", E(err), n);
	why = walk_right(secs, n);
	EXPECT(!*why, "%s", why);
	err = sfu_section_count(&n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL);
	EXPECT(!err && n == 2, "count: %s, n %zu", E(err), n);
	err = sfu_section_split_code(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL, CODE_LO, CODE_HI);
	EXPECT(!err && n == 2, "split_code: %s", E(err));
	why = walk_right(secs, n);
	EXPECT(!*why, "after split_code: %s", why);
	snprintf(name, sizeof name, "linked v%u-unflagged-concatenated-start-pcrel-walks-right", version);
	end(name);

	/* Told (wrongly) that the starts are section-relative: the span is
	 * taken, the code range check is what refuses it. */
	begin();
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_SECREL);
	EXPECT(!err && n == 2 && !secs[0].pcrel, "split: %s", E(err));
	err = sfu_section_split_code(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_SECREL, CODE_LO, CODE_HI);
	EXPECT(err == SFU_E_CODE_RANGE, "split_code: %s", E(err));
	snprintf(name, sizeof name, "linked v%u-unflagged-concatenated-wrong-secrel-caught-by-code-range", version);
	end(name);
}

UT_CASE(test_unflagged_v1) { unflagged(1); }
UT_CASE(test_unflagged_v2) { unflagged(2); }

/* V3 (and V2 from binutils 2.45 on) keeps the flag: lld's concatenation of
 * such sections is read as the headers say, with no option. */
UT_CASE(test_flagged)
{
	static const unsigned versions[] = { 2, 3 };
	sfu_section secs[4];
	size_t len, n = 0, i;
	const char *why;
	int err;
	for (i = 0; i < 2; i++) {
		char name[96];
		begin();
		len = lld_span(versions[i], 1, versions[i], 1);
		err = sfu_section_split_code(secs, 4, &n, g_span, len, SPAN_ADDR, 0, CODE_LO, CODE_HI);
		EXPECT(!err && n == 2, "split_code: %s, n %zu", E(err), n);
		why = walk_right(secs, n);
		EXPECT(!*why, "%s", why);
		/* The option changes nothing where the flag is set. */
		err = sfu_section_split_code(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL, CODE_LO, CODE_HI);
		why = walk_right(secs, n);
		EXPECT(!err && !*why, "with SFU_OPT_START_PCREL: %s %s", E(err), why);
		snprintf(name, sizeof name, "linked v%u-flagged-concatenated-no-option-walks-right", versions[i]);
		end(name);
	}
}

/* Mixed objects (an old V2 one without the flag, a new one with it): one
 * section without the flag is enough to make the span ambiguous. */
UT_CASE(test_mixed)
{
	sfu_section secs[4];
	size_t len, n = 0;
	int err;
	begin();
	len = lld_span(2, 1, 2, 0);
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, 0);
	EXPECT(err == SFU_E_LINKED && n == 1, "flagged then unflagged: %s, n %zu", E(err), n);
	len = lld_span(2, 0, 3, 1);
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, 0);
	EXPECT(err == SFU_E_LINKED && n == 1, "unflagged then flagged: %s, n %zu", E(err), n);
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL);
	EXPECT(!err && n == 2 && !*walk_right(secs, n), "with SFU_OPT_START_PCREL: %s", E(err));
	/* A flagless V3 section (no producer writes one) is as ambiguous. */
	len = lld_span(3, 0, 3, 0);
	err = sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, 0);
	EXPECT(err == SFU_E_LINKED, "V3 without the flag: %s", E(err));
	end("linked mixed-flags-refused-without-option");
}

/* Options: unknown bits, or both encodings at once, are argument errors. */
UT_CASE(test_options)
{
	sfu_section secs[4];
	size_t len = lld_span(2, 0, 2, 0), n = 0;
	begin();
	EXPECT(sfu_section_split(secs, 4, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL | SFU_OPT_START_SECREL) ==
	           SFU_E_ARG,
	       "both encodings");
	EXPECT(sfu_section_init_opt(&secs[0], g_span, len, SPAN_ADDR, 0x4) == SFU_E_ARG, "unknown bit");
	EXPECT(sfu_section_check_code(&secs[0], CODE_HI, CODE_HI, NULL) == SFU_E_ARG, "empty range");
	EXPECT(sfu_section_check_code(NULL, CODE_LO, CODE_HI, NULL) == SFU_E_ARG, "no section");
	end("linked options-both-or-unknown-refused");
}

/* ---- one section: the code range check ------------------------------------ */

/* One object's section, lld-linked (no flag, PC-relative starts), with the
 * default option: nothing in the span tells, the code range does.  Here
 * the first described function is not at the range's first byte, so the
 * starts stay inside the range: the neighbours colliding is what tells. */
UT_CASE(test_single_object)
{
	static const int32_t c[2] = { 16, 8 };
	sfu_section sec;
	size_t len, n = 0;
	uint32_t bad = 99;
	int err;
	begin();
	memset(g_span, 0, sizeof g_span);
	len = object(2, 0, CODE_LO + 0x1000, c, 0);
	err = sfu_section_split(&sec, 1, &n, g_span, len, SPAN_ADDR, 0);
	EXPECT(!err && n == 1, "split alone cannot tell: %s", E(err));
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x2000, &bad);
	EXPECT(err == SFU_E_CODE_RANGE && bad == 1, "check: %s at FDE %u", E(err), bad);
	err = sfu_section_split_code(&sec, 1, &n, g_span, len, SPAN_ADDR, 0, CODE_LO, CODE_LO + 0x2000);
	EXPECT(err == SFU_E_CODE_RANGE, "split_code: %s", E(err));
	/* A function at the first byte of the range: its start leaves it. */
	len = object(1, 0, CODE_LO, c, 0);
	err = sfu_section_split_code(&sec, 1, &n, g_span, len, SPAN_ADDR, 0, CODE_LO, CODE_HI);
	EXPECT(err == SFU_E_CODE_RANGE, "V1 at the first byte: %s", E(err));
	err = sfu_section_split_code(&sec, 1, &n, g_span, len, SPAN_ADDR, SFU_OPT_START_PCREL, CODE_LO, CODE_HI);
	EXPECT(!err, "with SFU_OPT_START_PCREL: %s", E(err));
	end("linked single-unflagged-section-wrong-option-caught-by-code-range");
}

/* The edges: functions [lo, lo + 0x20) and [lo + 0x20, lo + 0x40). */
UT_CASE(test_range_edges)
{
	static sfb_sec s;
	static uint8_t buf[1024];
	static const int32_t w8[] = { 8 };
	sfu_section sec;
	size_t n;
	uint32_t bad = 99;
	int err;
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO + 0x20, 0x20), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, buf, sizeof buf);
	err = sfu_section_init(&sec, buf, n, s.addr);
	EXPECT(!err, "init: %s", E(err));
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x40, &bad);
	EXPECT(!err, "first byte to last byte: %s at FDE %u", E(err), bad);
	err = sfu_section_check_code(&sec, CODE_LO + 1, CODE_LO + 0x40, &bad);
	EXPECT(err == SFU_E_CODE_RANGE && bad == 0, "start one below the range: %s at %u", E(err), bad);
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x3f, &bad);
	EXPECT(err == SFU_E_CODE_RANGE && bad == 1, "end one past the range: %s at %u", E(err), bad);
	end("linked code-range-edges");

	/* Zero-size FDEs: at the last byte inside, at one past the end out. */
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO + 0x3f, 0), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x40, &bad);
	EXPECT(!err, "empty function at the last byte: %s", E(err));
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x3f, &bad);
	EXPECT(err == SFU_E_CODE_RANGE && bad == 1, "empty function one past the end: %s at %u", E(err), bad);
	end("linked code-range-empty-function-edges");

	/* Neighbours: starting inside the one before is refused, an identical
	 * duplicate (lld --icf) and an earlier function (unsorted) are not. */
	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.flags = SFU_F_FDE_FUNC_START_PCREL;
	sfb_add_fre(sfb_add_fde(&s, CODE_LO + 0x20, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO + 0x20, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO, 0x20), 0, 1, 1, 1, w8);
	sfb_add_fre(sfb_add_fde(&s, CODE_LO + 0x10, 0x8), 0, 1, 1, 1, w8);
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x40, &bad);
	EXPECT(err == SFU_E_CODE_RANGE && bad == 3, "inside the one before: %s at %u", E(err), bad);
	s.nfdes = 3;
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	err = sfu_section_check_code(&sec, CODE_LO, CODE_LO + 0x40, &bad);
	EXPECT(!err, "duplicate, then an earlier one: %s at %u", E(err), bad);
	end("linked code-range-neighbours");
}

int main(void) { return ut_main("linked"); }
