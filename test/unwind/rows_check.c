/* SPDX-License-Identifier: MIT */
/* rows_check - every SFrame row of a linked image, stepped by the core and
 * computed by hand from GNU objdump's text.
 *
 * usage: rows_check IMAGE.elf IMAGE.txt NAME
 *
 * IMAGE.txt is `objdump --sframe IMAGE.elf` (binutils' own decoder: sid's
 * for V2/V3, bookworm's 2.40 for V1, which sid no longer reads).  For each
 * FRE of each function, at its first and its last byte, the registers are
 * made up (SP, FP, a link register, a DWARF array for FLEX rules) over a
 * fake stack whose every 8-byte word holds a value derived from its
 * address, stored in the target's byte order; the row's text says what the
 * caller's PC, SP and FP must then be; sfu_cursor_step must agree.  Built
 * for the host with the sanitizers; the image's byte order and ABI (x86_64,
 * aarch64 either order, s390x) come from the section itself.
 *
 * Text forms (objdump 2.40 .. 2.47): "sp+8", "fp+16", "r10+0" are values;
 * "(fp-8)" is a load from fp-8; "c-16" a load from CFA-16; "u" unchanged
 * (amd64 RA: at the fixed offset); "f" the fixed RA offset; "U" a padding
 * word (RA at its default place); "[s]" a signed RA (PAC); a row "RA
 * undefined" marks the outermost frame. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/sfu_elf.h"
#include "../common/sframe_text.h"

/* ---- the fake target --------------------------------------------------- */

#define STK_BASE 0x00007f0000000000ull
#define STK_SIZE 0x40000u
#define NDWARF 64

static uint8_t stk[STK_SIZE];
static int stk_big;
static uint64_t stk_tag; /* high bits of every stored value (aarch64: like a PAC) */

/* The word stored at address a: distinct per slot, never byte-symmetric,
 * itself a usable stack address (x86_64 DRAP loads the CFA from memory). */
static uint64_t word_at(uint64_t a)
{
	return (STK_BASE + 0x20000u + (((a - STK_BASE) << 1) & 0x1fff0u)) | stk_tag;
}

static void fill_stack(void)
{
	uint64_t off;
	unsigned i;
	for (off = 0; off < STK_SIZE; off += 8) {
		uint64_t v = word_at(STK_BASE + off);
		for (i = 0; i < 8; i++)
			stk[off + (stk_big ? 7 - i : i)] = (uint8_t)(v >> (8 * i));
	}
}

static int fake_read(void *ctx, uint64_t addr, uint64_t *out)
{
	uint64_t v = 0;
	unsigned i;
	(void)ctx;
	if (addr & 7u || addr < STK_BASE || addr - STK_BASE > STK_SIZE - 8u)
		return 1;
	for (i = 0; i < 8; i++)
		v = (v << 8) | stk[addr - STK_BASE + (stk_big ? i : 7 - i)];
	*out = v;
	return 0;
}

/* Strip a signature: keep the low 48 bits (a 48-bit user VA). */
static uint64_t fake_strip(void *ctx, uint64_t ra)
{
	(void)ctx;
	return ra & 0x0000ffffffffffffull;
}

/* ---- objdump's text: test/common/sframe_text.h ------------------------ */

static st_text text;

/* ---- by hand ----------------------------------------------------------------- */

typedef struct hand {
	const sfu_section *sec;
	sfu_regs regs;
	uint64_t cfa; /* once known */
	unsigned sp_reg, fp_reg, ra_reg;
} hand;

/* Value of a "base+off" / "(base+off)" / "c+off" token.  Returns 0, 1 for
 * "unchanged" (u, U), -1 on text it does not know, -2 if a load would be
 * refused. */
static int eval(const hand *h, const char *tok, int is_ra, uint64_t *out)
{
	char base[16];
	long off = 0;
	int deref = 0, n = 0;
	uint64_t b;
	const char *p = tok;
	if (!strcmp(tok, "u") || !strcmp(tok, "U")) {
		if (is_ra && h->sec->abi == SFU_ABI_AMD64_LE) {
			/* amd64: the RA is always at the fixed CFA offset. */
			return fake_read(NULL, h->cfa + (uint64_t)(int64_t)h->sec->fixed_ra, out) ? -2 : 0;
		}
		return 1;
	}
	if (!strcmp(tok, "f"))
		return fake_read(NULL, h->cfa + (uint64_t)(int64_t)h->sec->fixed_ra, out) ? -2 : 0;
	if (*p == '(') {
		deref = 1;
		p++;
	}
	if (*p == 'c' && (p[1] == '+' || p[1] == '-')) {
		if (sscanf(p + 1, "%ld", &off) != 1)
			return -1;
		return fake_read(NULL, h->cfa + (uint64_t)(int64_t)off, out) ? -2 : 0;
	}
	while (*p && *p != '+' && *p != '-' && n < 15)
		base[n++] = *p++;
	base[n] = 0;
	if (sscanf(p, "%ld", &off) != 1)
		return -1;
	if (!strcmp(base, "sp"))
		b = h->regs.sp;
	else if (!strcmp(base, "fp"))
		b = h->regs.fp;
	else if (base[0] == 'r' && base[1] >= '0' && base[1] <= '9' && atoi(base + 1) < NDWARF)
		b = h->regs.dwarf[atoi(base + 1)];
	else
		return -1;
	b += (uint64_t)(int64_t)off;
	if (!deref) {
		*out = b;
		return 0;
	}
	return fake_read(NULL, b, out) ? -2 : 0;
}

/* ---- main ---------------------------------------------------------------------- */

static unsigned fails;

static void fail(const char *fmt, uint64_t pc, const char *why)
{
	if (fails < 5)
		printf("#   %s at pc %#" PRIx64 ": %s\n", fmt, pc, why);
	fails++;
}

int main(int argc, char **argv)
{
	struct elf e;
	struct sfu_elf_sframe sf;
	sfu_section sec;
	char err[256];
	unsigned i, k, steps = 0, nrows = 0, skipped = 0;
	uint64_t dwarf[NDWARF];
	sfu_port port = { .read = fake_read, .strip_ra = fake_strip, .stack_lo = STK_BASE, .stack_hi = STK_BASE + STK_SIZE };
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: rows_check IMAGE.elf IMAGE.txt NAME\n");
		return 2;
	}
	if (sfu_elf_open(argv[1], &e, err, sizeof err) != 0 || sfu_elf_sframe_get(&e, 0, 0, &sf) != 1) {
		printf("FAIL rows %s: no .sframe in %s %s\n", argv[3], argv[1], err);
		return 1;
	}
	rc = sfu_section_init(&sec, sf.bytes, sf.size, sf.addr);
	if (rc != SFU_OK) {
		printf("FAIL rows %s: sfu_section_init: %s\n", argv[3], sfu_strerror(rc));
		return 1;
	}
	if (st_read(argv[2], &text) != 0 || !text.nfuncs) {
		printf("FAIL rows %s: cannot read objdump text %s\n", argv[3], argv[2]);
		return 1;
	}
	if (text.version != sec.version || text.num_fdes != sec.num_fdes || text.num_fres != sec.num_fres ||
	    text.nfuncs != sec.num_fdes) {
		printf("FAIL rows %s: header disagrees with objdump: version %u/%u, FDEs %u/%u/%u, FREs %u/%u\n",
		       argv[3], sec.version, text.version, sec.num_fdes, text.num_fdes, (unsigned)text.nfuncs, sec.num_fres,
		       text.num_fres);
		return 1;
	}

	stk_big = sec.big;
	stk_tag = sec.abi == SFU_ABI_AARCH64_LE || sec.abi == SFU_ABI_AARCH64_BE ? 0x00a5ull << 48 : 0;
	fill_stack();

	for (i = 0; i < text.nfuncs; i++) {
		const st_func *fn = &text.funcs[i];
		const st_row *rows = &text.rows[fn->first];
		if (fn->mask) {
			skipped++;
			continue;
		}
		for (k = 0; k < fn->nrows; k++) {
			const st_row *r = &rows[k];
			uint64_t end = k + 1 < fn->nrows ? rows[k + 1].pc : fn->pc + fn->size;
			uint64_t pcs[2];
			unsigned j, d;
			nrows++;
			pcs[0] = r->pc;
			pcs[1] = end - 1;
			for (j = 0; j < 2; j++) {
				hand h;
				sfu_cursor c;
				uint64_t cfa, ra, fp, want_sp;
				int got, rr, rf, mangled;
				char why[256], ratok[48];
				if (j == 1 && pcs[1] == pcs[0])
					continue;
				steps++;
				memset(&h, 0, sizeof h);
				h.sec = &sec;
				switch (sec.abi) {
				case SFU_ABI_AMD64_LE:
					h.sp_reg = SFU_DWARF_AMD64_SP;
					h.fp_reg = SFU_DWARF_AMD64_FP;
					h.ra_reg = SFU_DWARF_AMD64_RA;
					break;
				case SFU_ABI_S390X_BE:
					h.sp_reg = SFU_DWARF_S390X_SP;
					h.fp_reg = SFU_DWARF_S390X_FP;
					h.ra_reg = SFU_DWARF_S390X_RA;
					break;
				default:
					h.sp_reg = SFU_DWARF_AARCH64_SP;
					h.fp_reg = SFU_DWARF_AARCH64_FP;
					h.ra_reg = SFU_DWARF_AARCH64_LR;
					break;
				}
				for (d = 0; d < NDWARF; d++)
					dwarf[d] = STK_BASE + 0x2000u + 0x100u * d;
				h.regs.pc = pcs[j];
				h.regs.sp = STK_BASE + 0x100u;
				h.regs.fp = STK_BASE + 0x1000u;
				h.regs.ra = sec.abi == SFU_ABI_AMD64_LE ? 0 : 0x0000000000401234ull | stk_tag;
				dwarf[h.sp_reg] = h.regs.sp;
				dwarf[h.fp_reg] = h.regs.fp;
				dwarf[h.ra_reg] = sec.abi == SFU_ABI_AMD64_LE ? pcs[j] : h.regs.ra;
				h.regs.dwarf = dwarf;
				h.regs.ndwarf = NDWARF;
				h.regs.dwarf_map = NULL;

				sfu_cursor_init(&c, &sec, 1, &port, &h.regs);
				got = sfu_cursor_step(&c);
				if (r->undefined) {
					if (got != SFU_END) {
						snprintf(why, sizeof why, "RA undefined: want the outermost frame, sfu: %s",
						         sfu_strerror(got));
						fail(rows[0].cfa, pcs[j], why);
					}
					continue;
				}
				/* CFA first, then RA and FP relative to it. */
				if (eval(&h, r->cfa, 0, &cfa) != 0) {
					snprintf(why, sizeof why, "cannot evaluate CFA '%s'", r->cfa);
					fail("text", pcs[j], why);
					continue;
				}
				h.cfa = cfa;
				snprintf(ratok, sizeof ratok, "%s", r->ra);
				mangled = strstr(ratok, "[s]") != NULL;
				if (mangled)
					*strstr(ratok, "[s]") = 0;
				rr = eval(&h, ratok, 1, &ra);
				if (rr == 1)
					ra = h.regs.ra;
				if (mangled)
					ra = fake_strip(NULL, ra);
				rf = eval(&h, r->fp, 0, &fp);
				if (rf == 1)
					fp = h.regs.fp;
				if (rr < 0 || rf < 0) {
					snprintf(why, sizeof why, "cannot evaluate RA '%s' or FP '%s'", r->ra, r->fp);
					fail("text", pcs[j], why);
					continue;
				}
				want_sp = cfa + (sec.abi == SFU_ABI_S390X_BE ? (uint64_t)(int64_t)-160 : 0);
				if (got != SFU_OK || c.regs.pc != ra || c.regs.sp != want_sp || c.regs.fp != fp ||
				    c.cfa != cfa) {
					snprintf(why, sizeof why,
					         "row '%s %s %s': want pc %#" PRIx64 " sp %#" PRIx64 " fp %#" PRIx64
					         ", sfu %s: pc %#" PRIx64 " sp %#" PRIx64 " fp %#" PRIx64,
					         r->cfa, r->fp, r->ra, ra, want_sp, fp,
					         sfu_strerror(got), c.regs.pc, c.regs.sp, c.regs.fp);
					fail("step", pcs[j], why);
				}
			}
		}
	}
	if (fails)
		printf("FAIL rows %s: %u of %u steps disagree with objdump's rows\n", argv[3], fails, steps);
	else
		printf("ok rows %s: V%u %s %s, %u functions, %u rows, %u steps%s\n", argv[3], sec.version,
		       sec.abi == SFU_ABI_AMD64_LE    ? "amd64"
		       : sec.abi == SFU_ABI_S390X_BE  ? "s390x"
		       : sec.abi == SFU_ABI_AARCH64_BE ? "aarch64"
		                                       : "aarch64",
		       sec.big ? "big-endian" : "little-endian", (unsigned)text.nfuncs - skipped, nrows, steps,
		       skipped ? " (PC-mask FDEs skipped)" : "");
	st_free(&text);
	free(sf.bytes);
	sfu_elf_close(&e);
	return fails != 0;
}
