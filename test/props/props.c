/* SPDX-License-Identifier: MIT */
/* props.c - walk properties on real sections (host, under ASan+UBSan).
 *
 *   props MANIFEST [WALKS [FIRST]]
 *
 * MANIFEST is test/props/images.sh's list of extracted .sframe sections;
 * every linked image and shared object in it (kinds "elf", "so") is walked
 * WALKS times (default 3000) from random register sets over random stack
 * contents, with a
 * deterministic PRNG seeded from the image's name and the walk's number
 * (FIRST, default 0, to FIRST + WALKS - 1: two runs share the walks out):
 *   - half the walks start anywhere (a PC with or without SFrame info, any
 *     SP and FP) over a stack of random words, code addresses and stack
 *     addresses;
 *   - half walk a call chain built on the stack from the image's own rows
 *     (test/fuzz/wc.h), now and then through a trap frame, with PAC bits on
 *     mangled return addresses where the image has them; a third of those
 *     chains then get a few words or registers overwritten.
 * The four core configurations of test/fuzz/wc_core.h take turns.  For
 * every walk, wc_check_walk's properties: it ends within SFU_DEPTH_CAP
 * frames with a reason; every read goes through the port and stays in the
 * stack it was given (a read outside is refused and ends the walk with
 * SFU_E_READ); a frame reached through SFrame comes from a lookup PC with
 * an SFrame row (sfu_find_row_n), with an aligned CFA, an SP that moves up
 * and stays in bounds; the same walk twice is the same.  An untouched chain
 * must be walked back exactly.
 *
 * Prints per image "ok props/walk/<image>: ..." and
 * "ok props/chain/<image>: ..." or FAIL lines with the first violation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long len;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	p = malloc((size_t)len + 1);
	if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* A random word of the kinds a stack holds. */
static uint64_t rand_word(const struct wc_env *e, const struct wc_code *code, struct wc_rng *r)
{
	uint64_t v = wc_next(r);
	switch (v % 10) {
	case 0: case 1: case 2: /* a return address into code */
		if (code->n) {
			size_t k = (size_t)((v >> 8) % code->n);
			return code->start[k] + (v >> 32) % ((uint64_t)code->size[k] + 1u);
		}
		return v;
	case 3: case 4: case 5: /* a stack address, mostly aligned */
		return (e->img_lo + (v >> 8) % (8u * (uint64_t)e->nwords + 256u)) & ((v & 0x10000u) ? ~(uint64_t)0 : ~(uint64_t)7);
	case 6: case 7: return 0;
	default: return v;
	}
}

struct stats {
	unsigned long walks, frames, deepest, chains, clean, exact, outside, traps, strips, users, mapped, stacked;
	unsigned long rc[SFU_ERROR_COUNT];
	char fail[512];
};

static void note_fail(struct stats *st, unsigned long walk, const char *core, const char *why, const struct wc_result *r)
{
	if (st->fail[0])
		return;
	snprintf(st->fail, sizeof st->fail, "walk %lu (core %s): %s (rc %d, %zu frames)", walk, core, why,
	         r->rc, r->n);
}

static void walk_image(const char *name, const sfu_section *sec, int pac, unsigned long first, unsigned long walks,
                       struct stats *wst, struct stats *cst)
{
	static struct wc_env e;
	static struct wc_code code;
	static struct wc_result res;
	static const struct wc_core *cores[4] = { &wc_core_default, &wc_core_fpfb, &wc_core_min, &wc_core_cache };
	uint64_t seed = hash(name);
	unsigned long i;

	for (i = first; i < first + walks; i++) {
		struct wc_rng r = { seed + i * 0x9e3779b97f4a7c15ull };
		if (getenv("PROPS_ONLY") && strtoul(getenv("PROPS_ONLY"), NULL, 0) != i)
			continue;
		struct wc_chain ch;
		const char *why;
		int chain = (i & 1) != 0, touched = 0;
		size_t k;
		sfu_section s2;
		const sfu_section *use = sec;

		memset(&e, 0, sizeof e);
		e.core = cores[i % 4];
		if (e.core != &wc_core_default) {
			/* Each configuration reads the bytes itself. */
			if (e.core->section_init(&s2, sec->data, sec->size, sec->addr) != SFU_OK)
				e.core = &wc_core_default;
			else
				use = &s2;
		}
		e.secs = use;
		e.nsecs = 1;
		wc_code_collect(e.core, use, 1, &code);
		e.img_lo = 0x00007ffe00000000ull + (wc_next(&r) & 0xfff0u);
		e.nwords = 512u + (size_t)wc_below(&r, 1536);
		if (wc_below(&r, 10)) {
			e.stack_lo = e.img_lo;
			e.stack_hi = wc_img_hi(&e);
		}
		if (wc_below(&r, 4) == 0) {
			/* Several stacks: the upper half and the lowest quarter
			 * (an exception stack); trap frames may lead there. */
			e.stack_lo = e.stack_hi = 0;
			e.nstacks = 2;
			e.stacks[0].lo = e.img_lo + 8u * (e.nwords / 2u);
			e.stacks[0].hi = wc_img_hi(&e) - 8u;
			e.stacks[1].lo = e.img_lo;
			e.stacks[1].hi = e.img_lo + 8u * (e.nwords / 4u);
		}
		e.use_map = wc_below(&r, 4) == 0;
		{
			/* Named entries and the port's top, now and then (their own
			 * generator: the rest of the walk stays as it was). */
			struct wc_rng er = { seed ^ (i * 0x51ed27u) ^ 0x656e74726965ull };
			if (wc_below(&er, 3) == 0)
				wc_pick_entries(&e, &code, &er, (size_t)wc_below(&er, 4));
		}
		for (k = 0; k < e.nwords; k++)
			e.words[k] = rand_word(&e, &code, &r);
		e.max_frames = WC_MAX_FRAMES;
		e.use_strip = pac && wc_below(&r, 2);
		e.strip_mode = WC_STRIP_AND;
		e.strip_mask = 0x0000ffffffffffffull;
		for (k = 0; k < WC_MAX_DWARF; k++)
			e.dwarf[k] = rand_word(&e, &code, &r);
		if (!chain) {
			uint64_t v = wc_below(&r, 10);
			e.regs.pc = v < 7 ? wc_pick_covered(&e, &code, &r) : v < 9 ? wc_pick_uncovered(&e, &code, &r) : wc_next(&r);
			e.regs.sp = rand_word(&e, &code, &r);
			if (wc_below(&r, 4))
				e.regs.sp = (e.img_lo + 8u * wc_below(&r, e.nwords)) & ~(uint64_t)15;
			e.regs.fp = rand_word(&e, &code, &r);
			e.regs.ra = rand_word(&e, &code, &r);
			if (wc_below(&r, 2)) {
				e.regs.dwarf = e.dwarf;
				e.regs.ndwarf = (uint32_t)wc_below(&r, WC_MAX_DWARF + 1);
			}
			if (wc_below(&r, 4) == 0) {
				/* A trap hook that knows one uncovered PC. */
				e.use_trap = 1;
				e.ntraps = 1;
				e.traps[0].user = wc_below(&r, 3) == 0;
				e.traps[0].pc = wc_pick_uncovered(&e, &code, &r);
				e.traps[0].any_sp = 1;
				e.traps[0].out.pc = wc_pick_covered(&e, &code, &r);
				e.traps[0].out.sp = (e.img_lo + 8u * wc_below(&r, e.nwords)) & ~(uint64_t)15;
				e.traps[0].out.fp = rand_word(&e, &code, &r);
				e.traps[0].out.ndwarf = WC_MAX_DWARF;
				for (k = 0; k < WC_MAX_DWARF; k++)
					e.traps[0].dwarf[k] = rand_word(&e, &code, &r);
				e.words[wc_below(&r, e.nwords)] = e.traps[0].pc + 1u;
			}
		} else {
			wc_chain_build(&e, &code, &r, 1u + (size_t)wc_below(&r, WC_MAX_CHAIN), wc_below(&r, 3) == 0, &ch);
			if (wc_below(&r, 3) == 0) {
				/* Overwrite a few words or registers. */
				unsigned n = 1u + (unsigned)wc_below(&r, 4), j;
				for (j = 0; j < n; j++) {
					switch (wc_below(&r, 6)) {
					case 0: e.regs.fp = rand_word(&e, &code, &r); break;
					case 1: e.regs.sp += 8u * (wc_below(&r, 5) - 2u); break;
					default: e.words[wc_below(&r, e.nwords)] = rand_word(&e, &code, &r); break;
					}
				}
				touched = 1;
			}
		}

		wc_finish(&e);
		why = wc_check_walk(&e, &res);
		wst->walks++;
		if (why)
			note_fail(wst, i, e.core->name, why, &res);
		wst->frames += res.n;
		if (res.n > wst->deepest)
			wst->deepest = res.n;
		if (res.rc >= 0 && res.rc < SFU_ERROR_COUNT)
			wst->rc[res.rc]++;
		wst->outside += res.log.outside;
		wst->traps += res.log.trap_hits;
		wst->strips += res.log.strip_calls;
		wst->users += res.log.trap_user;
		wst->mapped += (unsigned long)(e.use_map != 0);
		wst->stacked += (unsigned long)(e.nstacks != 0);
		if (chain && ch.n && !touched) {
			cst->walks++;
			cst->frames += ch.n;
			if (ch.n > cst->deepest)
				cst->deepest = ch.n;
			cst->clean += (unsigned long)ch.clean;
			cst->traps += res.log.trap_hits;
			cst->strips += res.log.strip_calls;
			cst->users += (unsigned long)ch.end_user;
			why = wc_check_chain(&ch, &res);
			if (why) {
				note_fail(cst, i, e.core->name, why, &res);
				if (getenv("PROPS_VERBOSE"))
					wc_print(stderr, &ch, &res);
			}
		}
	}
}

int main(int argc, char **argv)
{
	FILE *m;
	char line[4096];
	unsigned long walks = 3000, first = 0;
	int status = 0, images = 0;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: props MANIFEST [WALKS [FIRST]]\n");
		return 2;
	}
	if (argc >= 3)
		walks = strtoul(argv[2], NULL, 0);
	if (argc == 4)
		first = strtoul(argv[3], NULL, 0);
	m = fopen(argv[1], "r");
	if (!m) {
		printf("FAIL props/manifest: cannot open %s\n", argv[1]);
		return 1;
	}
	while (fgets(line, sizeof line, m)) {
		char path[2048], suite[64], arch[64], kind[16], name[2304], *base;
		unsigned long long addr;
		static struct stats wst, cst;
		sfu_section sec;
		uint8_t *data;
		size_t n;
		uint32_t bad = 0;
		int err, pac;

		if (sscanf(line, "%2047s %llx %63s %63s %15s", path, &addr, suite, arch, kind) != 5 ||
		    (strcmp(kind, "elf") != 0 && strcmp(kind, "so") != 0))
			continue;
		base = strrchr(path, '/');
		snprintf(name, sizeof name, "%s-%s-%s", suite, arch, base ? base + 1 : path);
		if (strlen(name) > 7 && strcmp(name + strlen(name) - 7, ".sframe") == 0)
			name[strlen(name) - 7] = 0;
		images++;
		data = slurp(path, &n);
		if (!data) {
			printf("FAIL props/walk/%s: cannot read %s\n", name, path);
			status = 1;
			continue;
		}
		err = wc_core_default.section_init(&sec, data, n, (uint64_t)addr);
		if (!err)
			err = wc_core_default.section_validate(&sec, &bad);
		if (err) {
			printf("FAIL props/walk/%s: the toolchain's section does not validate (error %d, FDE %u)\n", name, err,
			       bad);
			status = 1;
			free(data);
			continue;
		}
		pac = strstr(arch, "pac") != NULL;
		memset(&wst, 0, sizeof wst);
		memset(&cst, 0, sizeof cst);
		walk_image(name, &sec, pac, first, walks, &wst, &cst);
		if (wst.fail[0]) {
			printf("FAIL props/walk/%s: %s\n", name, wst.fail);
			status = 1;
		} else {
			printf("ok props/walk/%s: %lu walks, %lu frames, deepest %lu; end: %lu outermost, %lu user mode, "
			       "%lu never ran, %lu return address 0 inside the stack, "
			       "%lu read refused (%lu outside the stack), %lu no info, %lu unsafe, %lu wrong way/bounds/align, "
			       "%lu depth; %lu with several stacks, %lu with a dwarf_map\n",
			       name, wst.walks, wst.frames, wst.deepest, wst.rc[SFU_END], wst.rc[SFU_END_USER],
			       wst.rc[SFU_END_NEVER_RAN], wst.rc[SFU_E_ZERO_RA], wst.rc[SFU_E_READ],
			       wst.outside, wst.rc[SFU_E_NOINFO], wst.rc[SFU_E_UNSAFE],
			       wst.rc[SFU_E_WRONG_WAY] + wst.rc[SFU_E_STACK_BOUNDS] + wst.rc[SFU_E_ALIGN], wst.rc[SFU_E_DEPTH],
			       wst.stacked, wst.mapped);
		}
		if (cst.fail[0]) {
			printf("FAIL props/chain/%s: %s\n", name, cst.fail);
			status = 1;
		} else if (cst.walks == 0) {
			printf("FAIL props/chain/%s: no chain could be built on this image\n", name);
			status = 1;
		} else {
			printf("ok props/chain/%s: %lu chains walked back exactly, %lu frames, deepest %lu, %lu ending cleanly "
			       "(%lu in user mode), %lu trap frames, %lu PAC strips\n",
			       name, cst.walks, cst.frames, cst.deepest, cst.clean, cst.users, cst.traps, cst.strips);
		}
		free(data);
	}
	fclose(m);
	if (!images) {
		printf("FAIL props/manifest: no linked image or shared object in %s\n", argv[1]);
		status = 1;
	}
	return status;
}
