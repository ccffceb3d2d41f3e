/* SPDX-License-Identifier: MIT */
/* walk_input.h - the byte layout of a fuzz_walk input, read (walk_parse)
 * and written (walk_write, for tools/seed making), in one place.
 *
 *   off  size
 *   0    1    flags: bits 0-1 sections - 1 (3 means 1), bit 2 trap hook,
 *               bit 3 strip hook, bits 4-5 core (0 default, 1 frame-
 *               pointer fallback with cap 24, 2 V2/V3 little-endian cap 3,
 *               3 row cache and inlined SFU_READ),
 *               bit 6 start PC relative to an FDE, bit 7 build a call chain
 *   1    1    bits 0-1 bounds: 0 none, 1 the image, 2 lo/hi below, 3 image
 *               minus one word at each end; bit 2: the last section span
 *               goes through sfu_section_split; bit 3: SFU_OPT_START_PCREL;
 *               bits 4-5: N more stacks (sfu_port.stacks), the image cut
 *               in N + 1 parts; bit 6: the last trap entry answers
 *               SFU_TRAP_USER; bit 7: registers through a dwarf_map
 *   2    8x4  start registers pc, sp, fp, ra              (tagged, below)
 *   34   8    dwarf seed: the start frame's DWARF registers (0: none)
 *   42   8    stack image address (rounded down to 8)
 *   50   2    stack words (mod 4097)
 *   52   8    stack seed: words not given below come from a PRNG
 *   60   8x2  declared bounds lo, hi (bounds mode 2)
 *   76   2    refuse the Nth port read (0: never)
 *   78   1    strip mode (enum wc_strip, mod 5)
 *   79   8    strip mask
 *   87   2    max frames: bit 15 set: low bits mod 321, else 320
 *   89   1    chain length (mod 41)
 *   90   8    chain seed
 *   98   1    trap entries (mod 5), then per entry 49 bytes:
 *               pc, sp (tagged), any_sp (1), out pc, sp, fp, ra (tagged)
 *   ..   1    stack words given (mod 256), then that many 8-byte words
 *   ..        sections: each but the last "u16 len, u64 addr, bytes";
 *             the last "u64 addr" and the rest of the input.
 * All multi-byte values little-endian.
 *
 * Tagged 64-bit values (registers, stack words, trap fields) can name a
 * place instead of an address, so inputs stay meaningful whatever the
 * image address or section address:
 *   0xc0de'KKKK'OOOOOOOO  code: FDE K (mod FDEs found), offset O (mod size+1)
 *   0x57ac'....'OOOOOOOO  stack: image start + O mod (image bytes + 64)
 */
#ifndef WALK_INPUT_H
#define WALK_INPUT_H

#include <stdint.h>
#include <string.h>

#include "fz.h"

#define WI_MAX_SECS 3
#define WI_MAX_GIVEN 255
#define WI_TAG_CODE 0xc0deu
#define WI_TAG_STACK 0x57acu

struct wi_trap {
	uint64_t pc, sp;
	uint8_t any_sp;
	uint64_t out_pc, out_sp, out_fp, out_ra;
};

struct walk_input {
	uint8_t flags, bounds;
	uint64_t pc, sp, fp, ra;
	uint64_t dwarf_seed, img_lo;
	uint16_t nwords;
	uint64_t stack_seed, lo, hi;
	uint16_t refuse_at;
	uint8_t strip_mode;
	uint64_t strip_mask;
	uint16_t max_frames;
	uint8_t chain_len;
	uint64_t chain_seed;
	uint8_t ntraps;
	struct wi_trap traps[4];
	uint8_t ngiven;
	uint64_t given[WI_MAX_GIVEN];
	unsigned nsecs;
	uint64_t sec_addr[WI_MAX_SECS];
	const uint8_t *sec[WI_MAX_SECS];
	size_t sec_len[WI_MAX_SECS];
};

static inline unsigned wi_nsecs(uint8_t flags)
{
	unsigned n = (flags & 3u) + 1u;
	return n > 3 ? 1 : n;
}

static inline void walk_parse(const uint8_t *data, size_t size, struct walk_input *w)
{
	struct fz f = { data, size, 0 };
	unsigned i;
	memset(w, 0, sizeof *w);
	w->flags = fz_u8(&f);
	w->bounds = fz_u8(&f);
	w->pc = fz_u64(&f);
	w->sp = fz_u64(&f);
	w->fp = fz_u64(&f);
	w->ra = fz_u64(&f);
	w->dwarf_seed = fz_u64(&f);
	w->img_lo = fz_u64(&f);
	w->nwords = fz_u16(&f);
	w->stack_seed = fz_u64(&f);
	w->lo = fz_u64(&f);
	w->hi = fz_u64(&f);
	w->refuse_at = fz_u16(&f);
	w->strip_mode = fz_u8(&f);
	w->strip_mask = fz_u64(&f);
	w->max_frames = fz_u16(&f);
	w->chain_len = fz_u8(&f);
	w->chain_seed = fz_u64(&f);
	w->ntraps = fz_u8(&f) % 5u;
	for (i = 0; i < w->ntraps; i++) {
		struct wi_trap *t = &w->traps[i];
		t->pc = fz_u64(&f);
		t->sp = fz_u64(&f);
		t->any_sp = fz_u8(&f);
		t->out_pc = fz_u64(&f);
		t->out_sp = fz_u64(&f);
		t->out_fp = fz_u64(&f);
		t->out_ra = fz_u64(&f);
	}
	w->ngiven = fz_u8(&f);
	for (i = 0; i < w->ngiven; i++)
		w->given[i] = fz_u64(&f);
	w->nsecs = wi_nsecs(w->flags);
	for (i = 0; i < w->nsecs; i++) {
		size_t len;
		if (i + 1 < w->nsecs) {
			len = fz_u16(&f);
			w->sec_addr[i] = fz_u64(&f);
		} else {
			w->sec_addr[i] = fz_u64(&f);
			len = fz_left(&f);
		}
		if (len > fz_left(&f))
			len = fz_left(&f);
		w->sec[i] = f.p + f.i;
		w->sec_len[i] = len;
		f.i += len;
	}
}

/* Writer for seed tools: returns bytes written (0 if cap is too small). */
static inline size_t walk_write(const struct walk_input *w, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned i;
#define WI_PUT(v, k)                                                     \
	do {                                                             \
		unsigned j_;                                             \
		if (n + (k) > cap)                                       \
			return 0;                                        \
		for (j_ = 0; j_ < (k); j_++)                             \
			out[n++] = (uint8_t)((uint64_t)(v) >> (8 * j_)); \
	} while (0)
	WI_PUT(w->flags, 1);
	WI_PUT(w->bounds, 1);
	WI_PUT(w->pc, 8);
	WI_PUT(w->sp, 8);
	WI_PUT(w->fp, 8);
	WI_PUT(w->ra, 8);
	WI_PUT(w->dwarf_seed, 8);
	WI_PUT(w->img_lo, 8);
	WI_PUT(w->nwords, 2);
	WI_PUT(w->stack_seed, 8);
	WI_PUT(w->lo, 8);
	WI_PUT(w->hi, 8);
	WI_PUT(w->refuse_at, 2);
	WI_PUT(w->strip_mode, 1);
	WI_PUT(w->strip_mask, 8);
	WI_PUT(w->max_frames, 2);
	WI_PUT(w->chain_len, 1);
	WI_PUT(w->chain_seed, 8);
	WI_PUT(w->ntraps, 1);
	for (i = 0; i < w->ntraps; i++) {
		const struct wi_trap *t = &w->traps[i];
		WI_PUT(t->pc, 8);
		WI_PUT(t->sp, 8);
		WI_PUT(t->any_sp, 1);
		WI_PUT(t->out_pc, 8);
		WI_PUT(t->out_sp, 8);
		WI_PUT(t->out_fp, 8);
		WI_PUT(t->out_ra, 8);
	}
	WI_PUT(w->ngiven, 1);
	for (i = 0; i < w->ngiven; i++)
		WI_PUT(w->given[i], 8);
	for (i = 0; i < w->nsecs; i++) {
		if (i + 1 < w->nsecs) {
			WI_PUT(w->sec_len[i], 2);
			WI_PUT(w->sec_addr[i], 8);
		} else {
			WI_PUT(w->sec_addr[i], 8);
		}
		if (n + w->sec_len[i] > cap)
			return 0;
		memcpy(out + n, w->sec[i], w->sec_len[i]);
		n += w->sec_len[i];
	}
#undef WI_PUT
	return n;
}

#endif /* WALK_INPUT_H */
