/* SPDX-License-Identifier: MIT */
/* fuzz_walk - libFuzzer harness: a stack walk over fuzz-made sections,
 * registers and a fake stack.
 *
 * The input (walk_input.h) gives up to three sections, the start
 * registers, a stack image and the port's behaviour: declared stack bounds,
 * one read to refuse, the trap hook's entries and the strip_ra hook's
 * transformation; optionally a consistent call chain is built on the stack
 * (wc_chain_build) so walks go deep on real sections.  The port serves only
 * the image and counts every read.  The harness aborts when a property of
 * wc_check_walk breaks (reads after a refusal, a refusal not ending the walk
 * with SFU_E_READ, more than SFU_DEPTH_CAP frames, a frame reached via
 * SFrame with no SFrame row, the stack going down or out of bounds, two
 * runs differing, backtrace and cursor disagreeing), or when a chain is not
 * walked back exactly.  The walk runs in one of four core configurations
 * (wc_core.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "walk_input.h"
#include "wc.h"

static const struct wc_core *core_of(uint8_t flags)
{
	switch ((flags >> 4) & 3u) {
	case 1: return &wc_core_fpfb;
	case 2: return &wc_core_min;
	case 3: return &wc_core_cache;
	default: return &wc_core_default;
	}
}

/* Resolve a tagged value (walk_input.h). */
static uint64_t untag(uint64_t v, const struct wc_env *e, const struct wc_code *code)
{
	uint64_t tag = v >> 48;
	if (tag == WI_TAG_CODE && code->n) {
		size_t k = (size_t)((v >> 32) & 0xffffu) % code->n;
		return code->start[k] + (v & 0xffffffffu) % ((uint64_t)code->size[k] + 1u);
	}
	if (tag == WI_TAG_STACK)
		return e->img_lo + (v & 0xffffffffu) % (8u * (uint64_t)e->nwords + 64u);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct walk_input w;
	static struct wc_env e;
	static struct wc_code code;
	static sfu_section secs[WI_MAX_SECS + 2];
	struct wc_rng rng;
	struct wc_chain chain;
	size_t nsecs = 0, i;
	const char *why;

	walk_parse(data, size, &w);
	memset(&e, 0, sizeof e);
	e.core = core_of(w.flags);
	for (i = 0; i < w.nsecs; i++) {
		if (i + 1 == w.nsecs && (w.bounds & 4u)) {
			/* The last span as sections back to back (lld), with
			 * either start encoding (SECREL: as the headers say). */
			size_t got = 0;
			e.core->section_split(&secs[nsecs], WI_MAX_SECS + 2 - nsecs, &got, w.sec[i], w.sec_len[i],
			                      w.sec_addr[i], (w.bounds & 8u) ? SFU_OPT_START_PCREL : SFU_OPT_START_SECREL);
			nsecs += got;
		} else if (e.core->section_init_opt(&secs[nsecs], w.sec[i], w.sec_len[i], w.sec_addr[i],
		                                    (w.bounds >> 3) & SFU_OPT_START_PCREL) == SFU_OK) {
			nsecs++;
		}
	}
	e.secs = secs;
	e.nsecs = nsecs;
	wc_code_collect(e.core, secs, nsecs, &code);

	/* The stack image: given words first, the rest from the seed. */
	e.img_lo = w.img_lo;
	e.nwords = w.nwords % (WC_MAX_WORDS + 1u);
	wc_fix_image(&e);
	rng.s = w.stack_seed;
	for (i = 0; i < e.nwords; i++) {
		uint64_t v = i < w.ngiven ? w.given[i] : wc_next(&rng);
		if (i >= w.ngiven) {
			/* Mostly places: code, stack, zero. */
			switch (v & 3u) {
			case 0: v = ((uint64_t)WI_TAG_CODE << 48) | (v >> 16 & 0xffffffffffffull); break;
			case 1: v = ((uint64_t)WI_TAG_STACK << 48) | (v >> 16 & 0xffffffffffffull); break;
			case 2: v = 0; break;
			default: break;
			}
		}
		e.words[i] = untag(v, &e, &code);
	}
	switch (w.bounds & 3u) {
	case 1:
		e.stack_lo = e.img_lo;
		e.stack_hi = wc_img_hi(&e);
		break;
	case 2:
		e.stack_lo = w.lo;
		e.stack_hi = w.hi;
		break;
	case 3:
		e.stack_lo = e.img_lo + 8u;
		e.stack_hi = wc_img_hi(&e) - 8u;
		break;
	default: break;
	}
	/* Several stacks: the image cut into equal parts (bounds bits 4-5),
	 * the last part first so that [stack_lo, stack_hi] and stacks[] may
	 * overlap. */
	e.nstacks = (w.bounds >> 4) & 3u;
	if (e.nstacks) {
		uint64_t part = 8u * ((uint64_t)e.nwords / (e.nstacks + 1u) / 8u + 1u);
		for (i = 0; i < e.nstacks; i++) {
			e.stacks[i].lo = e.img_lo + part * (e.nstacks - i);
			e.stacks[i].hi = e.stacks[i].lo + part - 8u;
		}
	}
	/* Named entries and the port's top, from the stack seed's top bits
	 * (their own generator: inputs keep their meaning). */
	if ((w.stack_seed >> 62) != 3) {
		struct wc_rng er = { w.stack_seed ^ 0x656e74726965ull };
		wc_pick_entries(&e, &code, &er, (size_t)(w.stack_seed >> 62));
	}
	e.use_map = (w.bounds >> 7) & 1u;
	e.refuse_at = w.refuse_at;
	e.use_trap = (w.flags >> 2) & 1u;
	e.use_strip = (w.flags >> 3) & 1u;
	e.strip_mode = w.strip_mode % WC_STRIP_MODES;
	e.strip_mask = w.strip_mask;
	e.ntraps = w.ntraps;
	for (i = 0; i < w.ntraps; i++) {
		struct wc_trap *t = &e.traps[i];
		t->pc = untag(w.traps[i].pc, &e, &code);
		t->sp = untag(w.traps[i].sp, &e, &code);
		t->any_sp = w.traps[i].any_sp & 1u;
		t->out.pc = untag(w.traps[i].out_pc, &e, &code);
		t->out.sp = untag(w.traps[i].out_sp, &e, &code);
		t->out.fp = untag(w.traps[i].out_fp, &e, &code);
		t->out.ra = untag(w.traps[i].out_ra, &e, &code);
		t->out.ndwarf = w.traps[i].any_sp >> 1;
		/* Bounds bit 6: the last entry is a trap from user mode. */
		t->user = ((w.bounds >> 6) & 1u) && i + 1 == w.ntraps;
		rng.s = w.traps[i].out_pc ^ (uint64_t)i;
		for (size_t j = 0; j < WC_MAX_DWARF; j++)
			t->dwarf[j] = untag(((uint64_t)WI_TAG_STACK << 48) | wc_next(&rng), &e, &code);
	}
	e.regs.pc = untag(w.pc, &e, &code);
	e.regs.sp = untag(w.sp, &e, &code);
	e.regs.fp = untag(w.fp, &e, &code);
	e.regs.ra = untag(w.ra, &e, &code);
	if ((w.flags & 0x40u) && code.n)
		e.regs.pc = code.start[(w.pc >> 32) % code.n] + (w.pc & 0xffffffffu) % ((uint64_t)code.size[(w.pc >> 32) % code.n] + 1u);
	if (w.dwarf_seed) {
		rng.s = w.dwarf_seed;
		for (i = 0; i < WC_MAX_DWARF; i++)
			e.dwarf[i] = (i & 1) ? untag(((uint64_t)WI_TAG_STACK << 48) | wc_next(&rng), &e, &code) : wc_next(&rng);
		e.regs.dwarf = e.dwarf;
		e.regs.ndwarf = (uint32_t)(w.dwarf_seed % (WC_MAX_DWARF + 1u));
	}
	e.max_frames = (w.max_frames & 0x8000u) ? (w.max_frames & 0x7fffu) % (WC_MAX_FRAMES + 1u) : WC_MAX_FRAMES;

	chain.n = 0;
	chain.clean = 0;
	if (w.flags & 0x80u) {
		/* A consistent chain on top: the strip hook must be one the
		 * chain knows how to sign for. */
		if (e.use_strip && e.strip_mode != WC_STRIP_ID) {
			e.strip_mode = WC_STRIP_AND;
			e.strip_mask = 0x0000ffffffffffffull;
		}
		e.refuse_at = 0;
		if (e.max_frames < WC_MAX_CHAIN + 2u)
			e.max_frames = WC_MAX_FRAMES;
		rng.s = w.chain_seed;
		wc_chain_build(&e, &code, &rng, 1u + w.chain_len % WC_MAX_CHAIN, e.use_trap, &chain);
	}

	wc_finish(&e);
	{
		static struct wc_result r;
		why = wc_check_walk(&e, &r);
		FZ_REQUIRE(!why, "%s (core %s, rc %d, %zu frames)", why, e.core->name, r.rc, r.n);
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "walk: core %s, %zu sections, %zu code ranges, chain %zu%s, rc %d, %zu frames, %u reads, %u traps hit, %u strips\n",
			        e.core->name, nsecs, code.n, chain.n, chain.clean ? " clean" : "", r.rc, r.n, r.log.reads,
			        r.log.trap_hits, r.log.strip_calls);
		if (chain.n) {
			why = wc_check_chain(&chain, &r);
			if (why && getenv("FUZZ_VERBOSE"))
				wc_print(stderr, &chain, &r);
			FZ_REQUIRE(!why, "%s (core %s, chain %zu frames%s, walk rc %d, %zu frames)", why, e.core->name,
			           chain.n, chain.clean ? " clean" : "", r.rc, r.n);
		}
	}
	return 0;
}
