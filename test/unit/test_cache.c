/* SPDX-License-Identifier: MIT */
/* SFU_CACHE=1: a cached walk returns exactly the frames and stop reason of
 * an uncached one, on a warm cache too, and a cache too small for the trace
 * (conflicts, evictions) changes nothing either. */
#include <stdlib.h>
/* The core's internal invariants, checked in every unit test. */
#define SFU_ASSERT(x) ((x) ? (void)0 : abort())
#define SFU_IMPLEMENTATION
#define SFU_CACHE 1
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../common/sfb.h"

#include "ut.h"

#define NF 40
static uint64_t stack[4 * NF + 8];

UT_CASE(test_cache_same_as_uncached)
{
	static sfb_sec s;
	static uint8_t buf[16384];
	static sfu_cache_entry mem[64];
	static const int32_t w16[] = { 16, -16 }, w0[] = { 0 };
	sfu_section sec;
	sfu_cache cache;
	sfu_frame a[NF + 4], b[NF + 4];
	struct ut_stack st = { stack, sizeof stack / sizeof stack[0] };
	size_t n, na, nb, i, slots;
	int ea, eb, fail, round;
	char name[96];
	uint64_t base = (uint64_t)(uintptr_t)stack;
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	/* NF functions with push-rbp frames (CFA = sp+16, rbp at CFA-16), and
	 * an outermost entry. */
	for (i = 0; i < NF; i++) {
		sfb_fde *f = sfb_add_fde(&s, 0x100000 + 0x40 * i, 0x40);
		sfb_add_fre(f, 0, 1, 1, 2, w16);
	}
	sfb_add_fre(sfb_add_fde(&s, 0x100000 + 0x40 * NF, 0x40), 0, 1, 1, 0, w0);
	n = sfb_emit(&s, buf, sizeof buf);
	sfu_section_init(&sec, buf, n, s.addr);
	/* Frame i at sp = base + 16 i: [sp] = saved rbp, [sp+8] = RA into
	 * function i+1 (at offset 0x20, past its own first byte). */
	for (i = 0; i < NF; i++) {
		stack[2 * i] = base + 16 * (i + 1);
		stack[2 * i + 1] = 0x100000 + 0x40 * (i + 1) + 0x20;
	}
	for (slots = 64; slots >= 2; slots /= 8) {
		sfu_cache_init(&cache, mem, slots);
		fail = 0;
		for (round = 0; round < 3; round++) {
			sfu_port port = { .read = ut_stack_read, .ctx = &st };
			sfu_regs r = { 0x100010, base, base, 0, NULL, 0, NULL };
			ea = sfu_backtrace(&sec, 1, &port, &r, a, NF + 4, &na);
			eb = sfu_backtrace_cached(&sec, 1, &cache, &port, &r, b, NF + 4, &nb);
			if (ea != eb || na != nb || ea != SFU_END || na != NF + 1)
				fail = 1;
			for (i = 0; i < na && i < nb; i++)
				if (a[i].pc != b[i].pc || a[i].sp != b[i].sp || a[i].cfa != b[i].cfa || a[i].how != b[i].how)
					fail = 1;
		}
		begin();
		EXPECT(!fail, "%s/%s %zu/%zu frames", E(ea), E(eb), na, nb);
		EXPECT(slots != 64 || cache.hits >= (uint32_t)NF, "warm rounds did not hit (%u hits)", cache.hits);
		snprintf(name, sizeof name, "unit cache-%zu-slots-same-as-uncached (%u hits, %u misses)", slots, cache.hits,
		         cache.misses);
		end(name);
	}
}

int main(void)
{
	return ut_main(NULL);
}
