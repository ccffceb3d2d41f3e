/* SPDX-License-Identifier: MIT */
/*
 * crash_flips.h -- every single-bit flip of a written crash record must be
 * refused: in the 4-byte magic the record is gone (SFU_CRASH_EMPTY),
 * anywhere else its checksum fails (SFU_CRASH_CORRUPT).  Shared by the
 * PC-only record's tests (test_port.c) and the extended one's
 * (test_crash.c).  Include after crash/sfu_crash.h.
 */
#ifndef CRASH_FLIPS_H
#define CRASH_FLIPS_H

#include <stddef.h>
#include <stdint.h>

/* Flips each of the 8 * n first bits of buf (size bytes, a written
 * record) in turn, reads the record, restores the bit: the number of flips
 * not refused as they must be.  buf is as it was on return. */
static unsigned crash_flips_missed(uint8_t *buf, size_t size, size_t n)
{
	struct sfu_crash d;
	unsigned bad = 0, bit;
	size_t i;

	for (i = 0; i < n; i++) {
		for (bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1u << bit);
			if (sfu_crash_read(buf, size, &d) != (i < 4 ? SFU_CRASH_EMPTY : SFU_CRASH_CORRUPT))
				bad++;
			buf[i] ^= (uint8_t)(1u << bit);
		}
	}
	return bad;
}

#endif /* CRASH_FLIPS_H */
