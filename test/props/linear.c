/* SPDX-License-Identifier: MIT */
/* linear.c - sfu_section_validate must stay O(size) on hostile sections.
 *
 * The header says O(size).  A section can make every FDE point at the same
 * FRE block (nothing in the format forbids FDEs sharing FREs, and
 * sfu_fde_get only checks that a block fits), so walking "every FRE of
 * every FDE" costs num_fdes x num_fres: 4000 FDEs over one block of 4000
 * FREs is 76 KB of section and 16 million FRE decodes.  This builds that
 * section (V1, amd64: 17-byte FDEs, 2-byte FREs) and a well-formed one of
 * the same size (each FDE its own FREs), and compares validate's CPU time.
 * Linear: about the same.  Prints one ok/FAIL line (case props/validate-linear).
 * Built -O2 without sanitizers: it measures time. */
#define SFU_IMPLEMENTATION
#include "sfu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* n FDEs of 16 bytes of code each; shared: all point at one block of m
 * FREs, else FDE i owns FREs [i * m / n, (i + 1) * m / n).  Either way the
 * FRE sub-section holds m FREs and the header says m. */
static size_t build(uint8_t *b, uint32_t n, uint32_t m, int shared)
{
	uint32_t frelen = 2u * m, i;
	size_t size = SFU_HDR_SIZE + 17u * n + frelen;
	memset(b, 0, size);
	b[0] = 0xe2;
	b[1] = 0xde;
	b[2] = 1;
	b[4] = SFU_ABI_AMD64_LE;
	b[6] = (uint8_t)-8;
	put32(b + SFU_HDR_NUM_FDES, n);
	put32(b + SFU_HDR_NUM_FRES, m);
	put32(b + SFU_HDR_FRE_LEN, frelen);
	put32(b + SFU_HDR_FDEOFF, 0);
	put32(b + SFU_HDR_FREOFF, 17u * n);
	for (i = 0; i < n; i++) {
		uint8_t *f = b + SFU_HDR_SIZE + 17u * i;
		uint32_t first = shared ? 0 : (uint32_t)((uint64_t)i * m / n);
		uint32_t count = shared ? m : (uint32_t)((uint64_t)(i + 1) * m / n) - first;
		put32(f + SFU_V12_FDE_START, 16u * i);
		put32(f + SFU_V12_FDE_SIZE_F, 16);
		put32(f + SFU_V12_FDE_FREOFF, 2u * first);
		put32(f + SFU_V12_FDE_NFRES, count);
	}
	/* FREs: start 0, info 0 (no data words: valid, outermost). */
	return size;
}

static double validate_cpu(const uint8_t *b, size_t size, int *err)
{
	sfu_section s;
	clock_t t;
	double best = 1e9;
	int r;
	if (sfu_section_init(&s, b, size, 0) != SFU_OK) {
		*err = -1;
		return 0;
	}
	for (r = 0; r < 3; r++) {
		uint32_t bad;
		double dt;
		t = clock();
		*err = sfu_section_validate(&s, &bad);
		dt = (double)(clock() - t) / CLOCKS_PER_SEC;
		if (dt < best)
			best = dt;
	}
	return best;
}

int main(void)
{
	const uint32_t n = 4000, m = 4000;
	uint8_t *b = malloc(SFU_HDR_SIZE + 17u * n + 2u * m);
	double good, bad;
	int eg, eb;
	size_t size;

	if (!b)
		return 1;
	size = build(b, n, m, 0);
	good = validate_cpu(b, size, &eg);
	build(b, n, m, 1);
	bad = validate_cpu(b, size, &eb);
	if (eg != SFU_OK) {
		printf("FAIL props/validate-linear: the well-formed section does not validate (%d)\n", eg);
		return 1;
	}
	/* Generous: a hostile section may cost a few times a good one, not
	 * thousands (the shared one is 16M FRE decodes against 4000). */
	if (bad > 0.05 && bad > 50.0 * (good > 1e-4 ? good : 1e-4)) {
		printf("FAIL props/validate-linear: %zu-byte section whose %u FDEs share one block of %u FREs: validate "
		       "takes %.3f s CPU (error %d), a well-formed section of the same size %.4f s; O(num_fdes x num_fres), "
		       "not O(size)\n",
		       size, n, m, bad, eb, good);
		return 1;
	}
	printf("ok props/validate-linear: %zu bytes, shared FRE blocks %.4f s (error %d), well-formed %.4f s\n", size, bad,
	       eb, good);
	return 0;
}
