/* SPDX-License-Identifier: MIT */
/* fuzz_gen - libFuzzer harness: structure-aware.  The input is not a
 * section but the choices that make one (sfb_gen.h): version 1/2/3, byte
 * order and ABI, flags, aux header, FDEs sorted or not, FRE blocks in any order,
 * FREs of each address size with 1/2/4-byte data words, DEFAULT and FLEX
 * V3 FDEs, PC-mask FDEs, signal frames, outermost FREs.  So nearly every
 * input reaches FRE and FLEX decoding and the walk.
 *
 * For the valid section it checks the core against the reference model in
 * sfb_gen.h: header fields, every FDE and FRE as decoded, every row, and the
 * row found for PCs at and around every FDE and FRE boundary.  Then it walks
 * a call chain built on that section (wc.h) and checks it is walked back
 * exactly.  Then it applies a few targeted corruptions (header fields, FDE
 * fields, FRE info bytes, V3 attributes, truncation, swapped FDEs, random
 * bytes) and runs the decoder and walk properties on the result.
 *
 * The rest of the input after the section choices:
 *   u8 corruptions (low 3 bits: how many), then per corruption 1 + 8 bytes,
 *   u8 walk flags (core, strip, trap), u8 chain length, u64 seed,
 *   then u64 extra lookup PCs to the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_check.h"
#include "sfb_gen.h"
#include "wc.h"

static uint8_t buf[32768], bad_buf[32768];

/* The core, as built by default, against the model. */
static void check_model(struct sfb_sec *s, const uint8_t *data, size_t n, const uint64_t *extra, size_t nextra)
{
	const struct wc_core *core = &wc_core_default;
	static uint64_t pcs[4096];
	sfu_section sec;
	uint32_t i, k, bad = 0, want_bad = 0;
	int err, want = SFU_OK;
	size_t npcs = 0, p;

	err = core->section_init(&sec, data, n, s->addr);
	FZ_REQUIRE(err == SFU_OK, "a valid V%u section (abi %u) is rejected by sfu_section_init: %d", s->version, s->abi,
	           err);
	FZ_REQUIRE(sec.version == s->version && sec.abi == s->abi && sec.big == s->big && sec.flags == s->flags &&
	               sec.fixed_ra == s->fixed_ra && sec.fixed_fp == s->fixed_fp && sec.aux_len == s->aux_len &&
	               sec.num_fdes == s->nfdes && sec.num_fres == s->num_fres && sec.fre_len == s->fre_len &&
	               sec.fde_base == s->fde_base && sec.fre_base == s->fre_base && sec.size == n,
	           "sfu_section_init decoded the header wrongly");

	/* The first FDE (index order) with a row no reader may accept. */
	for (i = 0; i < s->nfdes && want == SFU_OK; i++)
		for (k = 0; k < s->fdes[i].nfres; k++)
			if (s->fdes[i].fres[k].bad) {
				want = SFU_E_FRE_WORDS;
				want_bad = i;
				break;
			}
	err = core->section_validate(&sec, &bad);
	FZ_REQUIRE(err == want && (want == SFU_OK || bad == want_bad),
	           "sfu_section_validate: %d at FDE %u, the model says %d at FDE %u", err, bad, want, want_bad);

	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *d = &s->fdes[i];
		sfu_fde fde;
		uint32_t off;
		err = core->fde_get(&sec, i, &fde);
		FZ_REQUIRE(err == SFU_OK, "sfu_fde_get(%u) failed on a valid FDE: %d", i, err);
		FZ_REQUIRE(fde.start == d->start && fde.size == d->size && fde.num_fres == d->nfres &&
		               fde.fre_type == d->fre_type && fde.pctype == d->pctype &&
		               fde.rep_size == (s->version == 1 ? 0 : d->rep_size) &&
		               fde.type == (d->flex ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT) &&
		               fde.signal == (s->version == 3 && d->signal) && fde.pauth_key == d->pauth_key &&
		               fde.fre_off == d->fre_off,
		           "sfu_fde_get(%u) decoded the FDE wrongly (V%u)", i, s->version);
		off = fde.fre_off;
		for (k = 0; k < d->nfres; k++) {
			const struct sfb_fre *r = &d->fres[k];
			sfu_fre fre;
			sfu_row row, exp;
			unsigned w;
			int er;
			err = core->fre_get(&sec, &fde, off, &fre);
			FZ_REQUIRE(err == SFU_OK, "sfu_fre_get failed on FRE %u of FDE %u: %d", k, i, err);
			FZ_REQUIRE(off == r->at && fre.start == r->start && fre.count == r->count && fre.wsize == r->wsize &&
			               fre.info == sfb_fre_info(r),
			           "sfu_fre_get decoded FRE %u of FDE %u wrongly", k, i);
			for (w = 0; w < r->count; w++)
				FZ_REQUIRE(core->fre_word(&sec, &fre, w) == sfb_sext(r->enc[w], r->wsize),
				           "FRE %u of FDE %u: data word %u decoded as %d, stored %d", k, i, w,
				           core->fre_word(&sec, &fre, w), sfb_sext(r->enc[w], r->wsize));
			FZ_REQUIRE(core->fre_word(&sec, &fre, r->count) == 0, "sfu_fre_word past the count is not 0");
			er = sfb_expect_row(s, d, r, &exp);
			err = core->row_from_fre(&sec, &fde, &fre, &row);
			FZ_REQUIRE(err == er, "sfu_row_from_fre: %d, the model says %d (V%u abi %u %s, FRE %u of FDE %u)", err, er,
			           s->version, s->abi, d->flex ? "FLEX" : "DEFAULT", k, i);
			FZ_REQUIRE(err != SFU_OK || tr_row_eq(&row, &exp),
			           "sfu_row_from_fre: the rules differ from the model (V%u abi %u %s, FRE %u of FDE %u)",
			           s->version, s->abi, d->flex ? "FLEX" : "DEFAULT", k, i);
			off = fre.next;
		}
	}

	/* Lookups at and around every boundary. */
	for (p = 0; p < nextra; p++)
		pcs[npcs++] = extra[p];
	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *d = &s->fdes[i];
		uint64_t base = d->start;
		pcs[npcs++] = base - 1u;
		pcs[npcs++] = base;
		pcs[npcs++] = base + d->size - 1u;
		pcs[npcs++] = base + d->size;
		for (k = 0; k < d->nfres; k++) {
			uint64_t at = base + d->fres[k].start;
			unsigned rep;
			pcs[npcs++] = at - 1u;
			pcs[npcs++] = at;
			pcs[npcs++] = at + 1u;
			for (rep = 1; d->pctype == SFU_FDE_PCTYPE_MASK && rep < 4; rep++) {
				pcs[npcs++] = at + (uint64_t)rep * d->rep_size;
				pcs[npcs++] = at + (uint64_t)rep * d->rep_size - 1u;
			}
		}
	}
	for (p = 0; p < npcs; p++) {
		const struct sfb_fde *d = NULL;
		const struct sfb_fre *r = NULL;
		sfu_row row, exp;
		sfu_fde fde;
		uint32_t idx;
		int ec = sfb_expect_lookup(s, pcs[p], &d, &r);
		err = core->find_row(&sec, pcs[p], &row);
		if (ec == SFU_E_NOINFO) {
			FZ_REQUIRE(err == SFU_E_NOINFO, "sfu_find_row(0x%llx): %d where the model finds no row",
			           (unsigned long long)pcs[p], err);
			continue;
		}
		FZ_REQUIRE(core->find_fde(&sec, pcs[p], &fde, &idx) == SFU_OK && idx == (uint32_t)(d - s->fdes),
		           "sfu_find_fde(0x%llx) did not find FDE %u", (unsigned long long)pcs[p], (unsigned)(d - s->fdes));
		if (!r) {
			FZ_REQUIRE(err == SFU_OK && row.ra.kind == SFU_RULE_UNDEF && row.func_start == d->start,
			           "V3 FDE without FREs is not an outermost frame (%d)", err);
			continue;
		}
		ec = sfb_expect_row(s, d, r, &exp);
		FZ_REQUIRE(err == ec, "sfu_find_row(0x%llx): %d, the model says %d", (unsigned long long)pcs[p], err, ec);
		FZ_REQUIRE(err != SFU_OK || tr_row_eq(&row, &exp),
		           "sfu_find_row(0x%llx) returned another row than the model's (FRE at +0x%x)",
		           (unsigned long long)pcs[p], r->start);
	}
}

/* The section twice, back to back with zero padding (lld's output, GNU
 * ld's padding): sfu_section_split finds both, at the right places. */
static void check_split(const struct sfb_sec *s, const uint8_t *data, size_t n, uint64_t seed)
{
	static uint8_t span[2 * sizeof buf + 64];
	sfu_section secs[3];
	size_t len = n - s->tail_pad, pad1 = seed % 24u, pad2 = (seed >> 8) % 24u, got = 0, k;
	/* Without the PC-relative flag two sections are refused unless the
	 * options say how they were linked (SFU_E_LINKED). */
	unsigned opts = (s->flags & SFU_F_FDE_FUNC_START_PCREL) ? 0u : SFU_OPT_START_SECREL;
	int err;
	memcpy(span, data, len);
	memset(span + len, 0, pad1);
	memcpy(span + len + pad1, data, len);
	memset(span + 2 * len + pad1, 0, pad2);
	err = wc_core_default.section_split(secs, 3, &got, span, 2 * len + pad1 + pad2, s->addr, 0);
	FZ_REQUIRE(opts == 0 || (err == SFU_E_LINKED && got == 1),
	           "sfu_section_split on two copies without the PC-relative flag, no option: %d, %zu", err, got);
	err = wc_core_default.section_split(secs, 3, &got, span, 2 * len + pad1 + pad2, s->addr, opts);
	FZ_REQUIRE(err == SFU_OK && got == 2, "sfu_section_split on two copies of a valid section: %d, %zu sections", err,
	           got);
	for (k = 0; k < 2; k++)
		FZ_REQUIRE(secs[k].data == span + k * (len + pad1) && secs[k].size == len &&
		               secs[k].addr == s->addr + k * (len + pad1) && secs[k].num_fdes == s->nfdes,
		           "sfu_section_split: copy %zu found at the wrong place or size", k);
	err = wc_core_default.section_split(secs, 1, &got, span, 2 * len + pad1 + pad2, s->addr, opts);
	FZ_REQUIRE(err == SFU_E_FULL && got == 1, "sfu_section_split with room for one of two: %d, %zu", err, got);
}

/* Corrupt copy: a few targeted changes.  Returns the new size. */
static size_t corrupt(const struct sfb_sec *s, uint8_t *p, size_t n, struct fz *f)
{
	unsigned count = fz_u8(f) & 7u, c;
	for (c = 0; c < count && n; c++) {
		unsigned what = fz_u8(f);
		uint64_t v = fz_u64(f);
		size_t at;
		switch (what % 9) {
		case 0: /* a header byte */
			p[v % (n < SFU_HDR_SIZE ? n : SFU_HDR_SIZE)] = (uint8_t)(v >> 8);
			break;
		case 1: { /* a header count or offset, nudged */
			static const uint8_t fields[5] = { SFU_HDR_NUM_FDES, SFU_HDR_NUM_FRES, SFU_HDR_FRE_LEN,
				                           SFU_HDR_FDEOFF, SFU_HDR_FREOFF };
			at = fields[v % 5];
			if (at + 4 <= n)
				p[at + (s->big ? 3 : 0)] = (uint8_t)(p[at + (s->big ? 3 : 0)] + (int8_t)(v >> 8));
			break;
		}
		case 2: /* an FDE field */
			if (s->nfdes) {
				const struct sfb_fde *d = &s->fdes[v % s->nfdes];
				at = d->rec + (v >> 8) % sfb_fde_size(s->version);
				if (at < n)
					p[at] = (uint8_t)(v >> 16);
			}
			break;
		case 3: /* an FRE info byte or start */
			if (s->nfdes) {
				const struct sfb_fde *d = &s->fdes[v % s->nfdes];
				if (d->nfres) {
					const struct sfb_fre *r = &d->fres[(v >> 8) % d->nfres];
					at = s->fre_base + r->at + ((v >> 16) & 1u ? sfb_addr_bytes(d->fre_type) : 0u);
					if (at < n)
						p[at] = (uint8_t)(v >> 24);
				}
			}
			break;
		case 4: /* a V3 attribute byte */
			if (s->nfdes && s->version == 3) {
				const struct sfb_fde *d = &s->fdes[v % s->nfdes];
				at = s->fre_base + d->attr + (v >> 8) % SFU_V3_ATTR_SIZE;
				if (at < n)
					p[at] = (uint8_t)(v >> 16);
			}
			break;
		case 5: /* truncate */
			n -= (size_t)(v % (n < 64 ? n : 64));
			break;
		case 6: /* swap two FDE records */
			if (s->nfdes > 1) {
				uint32_t a = s->fdes[v % s->nfdes].rec, b = s->fdes[(v >> 8) % s->nfdes].rec, k;
				for (k = 0; k < sfb_fde_size(s->version) && a + k < n && b + k < n; k++) {
					uint8_t t = p[a + k];
					p[a + k] = p[b + k];
					p[b + k] = t;
				}
			}
			break;
		case 7: /* a data word set to an extreme */
			if (s->nfdes) {
				const struct sfb_fde *d = &s->fdes[v % s->nfdes];
				if (d->nfres) {
					const struct sfb_fre *r = &d->fres[(v >> 8) % d->nfres];
					if (r->count) {
						at = s->fre_base + r->at + sfb_addr_bytes(d->fre_type) + 1u +
						     ((v >> 16) % r->count) * r->wsize;
						if (at < n)
							p[at] = (v >> 24) & 1u ? 0x80 : 0x7f;
					}
				}
			}
			break;
		default: /* any byte */
			p[v % n] = (uint8_t)(v >> 32);
			break;
		}
	}
	return n;
}

/* Walk the section: a call chain (checked exactly if `expect_chain`), on a
 * stack whose other words are random places. */
static void walk(const uint8_t *data, size_t n, uint64_t addr, unsigned wflags, unsigned len, uint64_t seed,
                 int expect_chain)
{
	static struct wc_env e;
	static struct wc_code code;
	static struct wc_result r;
	struct wc_chain chain;
	struct wc_rng rng = { seed };
	sfu_section sec;
	const char *why;
	size_t i;

	memset(&e, 0, sizeof e);
	switch (wflags & 3u) {
	case 1: e.core = &wc_core_fpfb; break;
	case 2: e.core = &wc_core_min; break;
	case 3: e.core = &wc_core_cache; break;
	default: e.core = &wc_core_default; break;
	}
	if (e.core->section_init(&sec, data, n, addr) != SFU_OK)
		return;
	e.secs = &sec;
	e.nsecs = 1;
	wc_code_collect(e.core, &sec, 1, &code);
	e.img_lo = 0x00007ff000000000ull + (seed & 0xfff0u);
	e.nwords = 1024;
	e.stack_lo = e.img_lo;
	e.stack_hi = wc_img_hi(&e);
	for (i = 0; i < e.nwords; i++) {
		uint64_t v = wc_next(&rng);
		switch (v & 3u) {
		case 0: e.words[i] = code.n ? code.start[(v >> 8) % code.n] + (v >> 40) % ((uint64_t)code.size[(v >> 8) % code.n] + 1u) : v; break;
		case 1: e.words[i] = e.img_lo + 8u * ((v >> 8) % e.nwords); break;
		case 2: e.words[i] = 0; break;
		default: e.words[i] = v; break;
		}
	}
	/* wflags bits 5-6: two more stacks (the image's lower and upper
	 * quarters; trap frames may move there), registers through a
	 * dwarf_map. */
	if ((wflags >> 5) & 1u) {
		e.nstacks = 2;
		e.stacks[0].lo = e.img_lo + 8u * (e.nwords / 2u);
		e.stacks[0].hi = wc_img_hi(&e) - 8u;
		e.stacks[1].lo = e.img_lo;
		e.stacks[1].hi = e.img_lo + 8u * (e.nwords / 4u);
		e.stack_lo = e.stack_hi = 0;
	}
	if ((seed >> 62) != 3) {
		/* Named entries and the port's top (their own generator). */
		struct wc_rng er = { seed ^ 0x656e74726965ull };
		wc_pick_entries(&e, &code, &er, (size_t)(seed >> 62));
	}
	e.use_map = (wflags >> 6) & 1u;
	e.use_strip = (wflags >> 2) & 1u;
	e.strip_mode = (wflags >> 3) & 1u ? WC_STRIP_AND : WC_STRIP_ID;
	e.strip_mask = 0x0000ffffffffffffull;
	e.max_frames = WC_MAX_FRAMES;
	wc_chain_build(&e, &code, &rng, 1u + len % WC_MAX_CHAIN, (wflags >> 4) & 1u, &chain);
	if (!chain.n) {
		/* No code: walk from whatever registers. */
		e.regs.pc = addr;
		e.regs.sp = e.img_lo + 8u * (e.nwords / 2u) + 64u;
	}
	wc_finish(&e);
	why = wc_check_walk(&e, &r);
	FZ_REQUIRE(!why, "%s (core %s, rc %d, %zu frames)", why, e.core->name, r.rc, r.n);
	if (expect_chain && chain.n) {
		why = wc_check_chain(&chain, &r);
		if (why && getenv("FUZZ_VERBOSE"))
			wc_print(stderr, &chain, &r);
		FZ_REQUIRE(!why, "%s (core %s, chain %zu frames%s, walk rc %d, %zu frames)", why, e.core->name, chain.n,
		           chain.clean ? " clean" : "", r.rc, r.n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sfb_sec s;
	struct fz f = { data, size, 0 };
	uint64_t extra[16];
	size_t n, m, nextra = 0;
	size_t corrupt_at;
	unsigned wflags, len;
	uint64_t seed;

	sfb_gen(&s, &f);
	n = sfb_emit(&s, buf, sizeof buf);
	if (!n)
		return 0;
	/* Corruption choices are read after the walk choices below; keep
	 * their place. */
	corrupt_at = f.i;
	{
		struct fz g = f;
		unsigned count = fz_u8(&g) & 7u;
		g.i += 9u * count;
		wflags = fz_u8(&g);
		len = fz_u8(&g);
		seed = fz_u64(&g);
		while (nextra < 16 && fz_left(&g) >= 8)
			extra[nextra++] = fz_u64(&g);
	}

	if (getenv("FUZZ_VERBOSE"))
		sfb_print(stderr, &s);
	if (getenv("FUZZ_DUMP_SECTION")) {
		/* The section as a fuzz_decode input (tail: its address). */
		FILE *out = fopen(getenv("FUZZ_DUMP_SECTION"), "wb");
		unsigned b;
		if (out) {
			fwrite(buf, 1, n, out);
			for (b = 0; b < 8; b++)
				fputc((int)(s.addr >> (8 * b)) & 0xff, out);
			fputc(0x10, out);
			fclose(out);
		}
	}
	check_model(&s, buf, n, extra, nextra);
	dc_check_section(buf, n, s.addr, extra, nextra);
	check_split(&s, buf, n, seed);
	walk(buf, n, s.addr, wflags, len, seed, 1);

	f.i = corrupt_at;
	memcpy(bad_buf, buf, n);
	m = corrupt(&s, bad_buf, n, &f);
	if (m != n || memcmp(bad_buf, buf, n) != 0) {
		dc_check_section(bad_buf, m, s.addr, extra, nextra);
		walk(bad_buf, m, s.addr, wflags, len, seed, 0);
	}
	return 0;
}
