/* SPDX-License-Identifier: MIT */
/* fuzz_decode - libFuzzer harness: arbitrary bytes as an SFrame section.
 *
 * The input is the section (any version, byte order, header: whatever the
 * bytes say), followed by a small tail of lookup PCs:
 *
 *   [section bytes][pc_0 .. pc_{k-1}: u64 LE][addr: u64 LE if t & 0x10][t]
 *
 * where k = t & 15 (fewer if the input is too short).  The whole input is
 * also tried as a section on its own, so raw .sframe files work as seeds.
 * For each, decode_check.h runs init, validate, every FDE and FRE, FREs at
 * odd offsets and lookups around every FDE and FRE, and checks the answers
 * against each other; the sanitizers catch any out-of-bounds read. */
#include <stdint.h>
#include <string.h>

#include "decode_check.h"
#include "wc.h" /* the port read core_cache.c inlines */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[16], addr = 0;
	size_t k = 0, tail = 0, i;

	if (size) {
		unsigned t = data[size - 1];
		size_t room = size - 1;
		tail = 1;
		if ((t & 0x10u) && room >= 8) {
			for (i = 0; i < 8; i++)
				addr |= (uint64_t)data[size - 9 + i] << (8 * i);
			room -= 8;
			tail += 8;
		}
		k = t & 15u;
		if (k > room / 8)
			k = room / 8;
		for (i = 0; i < k; i++) {
			const uint8_t *q = data + size - tail - 8 * (k - i);
			unsigned j;
			pcs[i] = 0;
			for (j = 0; j < 8; j++)
				pcs[i] |= (uint64_t)q[j] << (8 * j);
		}
		tail += 8 * k;
	}
	/* The section without its tail, then the whole input. */
	dc_check_section(data, size - tail, addr, pcs, k);
	if (tail)
		dc_check_section(data, size, addr, pcs, k);
	/* The input as a span of sections back to back (lld's output); the
	 * sections found get the full treatment too. */
	{
		static sfu_section secs[4];
		size_t n = dc_check_split(data, size - tail, addr, secs, 4);
		for (i = 0; i < n && i < 2; i++)
			if (secs[i].data != data || secs[i].size != size - tail)
				dc_check_section(secs[i].data, secs[i].size, secs[i].addr, pcs, k);
	}
	return 0;
}
