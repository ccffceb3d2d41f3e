/* SPDX-License-Identifier: MIT */
/* SFU_FP_FALLBACK=1: a PC with no SFrame info is stepped through its frame
 * record, and the frame says so (SFU_HOW_FP); with the knob off the same
 * walk stops with SFU_E_NOINFO (test_core.c covers that default). */
#include <stdlib.h>
/* The core's internal invariants, checked in every unit test. */
#define SFU_ASSERT(x) ((x) ? (void)0 : abort())
#define SFU_IMPLEMENTATION
#define SFU_FP_FALLBACK 1
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../common/sfb.h"

#include "ut.h"

static uint64_t stack[64];

UT_CASE(test_fp_fallback)
{
	static sfb_sec s;
	static uint8_t buf[4096];
	static const int32_t w8[] = { 8 }, w0[] = { 0 };
	sfu_section sec;
	sfu_frame fr[8];
	size_t n, nf;
	struct ut_stack st = { stack, sizeof stack / sizeof stack[0] };
	uint64_t base = (uint64_t)(uintptr_t)stack;
	int err;
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x10), 0, 1, 1, 1, w8); /* leaf with info */
	sfb_add_fre(sfb_add_fde(&s, 0x100100, 0x10), 0, 1, 1, 0, w0); /* entry: outermost */
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	/* leaf at sp = base: RA -> 0x500000 (no info, frame record at rbp) */
	stack[0] = 0x500000;
	stack[8] = 0;        /* [rbp] = caller rbp */
	stack[9] = 0x100104; /* [rbp+8] = RA into entry */
	{
		sfu_port port = { .read = ut_stack_read, .ctx = &st };
		sfu_regs r = { 0x100004, base, base + 64, 0, NULL, 0, NULL };
		err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &nf);
	}
	begin();
	EXPECT(err == SFU_END && nf == 3 && fr[1].pc == 0x500000 && fr[1].how == SFU_HOW_SFRAME && fr[2].pc == 0x100104 &&
	               fr[2].how == SFU_HOW_FP && fr[2].sp == base + 80,
	       "%s, %zu frames", E(err), nf);
	end("unit fp-fallback-through-code-without-info");
}

int main(void)
{
	return ut_main(NULL);
}
