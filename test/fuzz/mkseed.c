/* SPDX-License-Identifier: MIT */
/* mkseed - turn one extracted .sframe section into seed inputs.
 *
 *   mkseed DECODE_DIR WALK_DIR NAME SECTION_FILE ADDR
 *
 * Writes DECODE_DIR/NAME (the section with a fuzz_decode tail: no extra
 * PCs, the section address) and, if WALK_DIR is not "-", four fuzz_walk
 * inputs WALK_DIR/NAME-{chain,trap-pac,tagged,fpfb} (walk_input.h): a call
 * chain on the default core, a chain with trap-frame hops and PAC
 * stripping, a tagged random stack with the trap hook, and a chain on the
 * frame-pointer-fallback core.  Host tool, built by mkseeds.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk_input.h"

static uint8_t sec[1 << 20], out[(1 << 20) + 4096];

static void save(const char *dir, const char *name, const char *suffix, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

int main(int argc, char **argv)
{
	FILE *f;
	size_t n, m;
	uint64_t addr, h;
	struct walk_input w;
	unsigned v;

	if (argc != 6) {
		fprintf(stderr, "usage: mkseed DECODE_DIR WALK_DIR NAME SECTION_FILE ADDR\n");
		return 2;
	}
	f = fopen(argv[4], "rb");
	if (!f) {
		perror(argv[4]);
		return 1;
	}
	n = fread(sec, 1, sizeof sec, f);
	fclose(f);
	addr = strtoull(argv[5], NULL, 0);
	h = hash(argv[3]);

	/* fuzz_decode: section, addr, t = 0x10 (addr present, no PCs). */
	memcpy(out, sec, n);
	for (m = 0; m < 8; m++)
		out[n + m] = (uint8_t)(addr >> (8 * m));
	out[n + 8] = 0x10;
	save(argv[1], argv[3], "", out, n + 9);
	if (strcmp(argv[2], "-") == 0)
		return 0;

	for (v = 0; v < 4; v++) {
		static const char *suffix[4] = { "-chain", "-trap-pac", "-tagged", "-fpfb" };
		memset(&w, 0, sizeof w);
		w.bounds = 1;
		w.img_lo = 0x00007ffd00000000ull + ((h & 0xffff) << 4);
		w.nwords = 1024;
		w.stack_seed = h + v;
		w.chain_seed = h * 3u + v;
		w.chain_len = 30;
		w.pc = ((uint64_t)WI_TAG_CODE << 48) | ((h >> 8) & 0xffff) << 32 | (h & 0xff);
		w.sp = ((uint64_t)WI_TAG_STACK << 48) | 0x100;
		w.fp = ((uint64_t)WI_TAG_STACK << 48) | 0x400;
		w.ra = ((uint64_t)WI_TAG_CODE << 48) | 0x10;
		switch (v) {
		case 0: w.flags = 0x80 | 0x40; break;
		case 1:
			w.flags = 0x80 | 0x40 | 0x08 | 0x04;
			w.strip_mode = 1 /* WC_STRIP_AND */;
			w.strip_mask = 0x0000ffffffffffffull;
			break;
		case 2:
			w.flags = 0x40 | 0x04;
			w.dwarf_seed = h | 1u;
			w.ntraps = 1;
			w.traps[0].pc = ((uint64_t)WI_TAG_CODE << 48) | 0x3;
			w.traps[0].any_sp = 1 | (16 << 1);
			w.traps[0].out_pc = ((uint64_t)WI_TAG_CODE << 48) | 0x1000000;
			w.traps[0].out_sp = ((uint64_t)WI_TAG_STACK << 48) | 0x800;
			break;
		case 3: w.flags = 0x80 | 0x40 | 0x10; break;
		}
		w.nsecs = 1;
		w.sec[0] = sec;
		w.sec_len[0] = n;
		w.sec_addr[0] = addr;
		m = walk_write(&w, out, sizeof out);
		if (!m) {
			fprintf(stderr, "mkseed: section too big\n");
			return 1;
		}
		save(argv[2], argv[3], suffix[v], out, m);
	}
	return 0;
}
