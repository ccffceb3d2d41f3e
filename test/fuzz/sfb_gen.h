/* SPDX-License-Identifier: MIT */
/* sfb_gen.h - fuzz_gen's sections and their reference model.
 *
 * sfb_gen fills a section description (test/common/sfb.h, which writes it
 * out) from fuzz bytes, always valid per the spec (except FREs it marks
 * `bad`, whose data words no reader may accept), so that fuzzing reaches
 * FRE and FLEX decoding instead of stopping at header checks.
 *
 * The model half (sfb_expect_row, sfb_expect_lookup; model.h) says, from
 * the spec and not from core/sfu.h, what a reader must decode: the rules of
 * each FRE (spec 3.1 default FDEs per ABI, 3.2 flexible FDEs) and which
 * FRE a PC selects (2.3.3.1 PC types; V1 PC-mask starts are masks).
 * Written for this test; host C. */
#ifndef SFB_GEN_H
#define SFB_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fz.h"
#include "model.h"
#include "sfu.h"

/* Small sections: what the generator picks from (the inputs in corpus/ and
 * regressions/ mean the same section only with these). */
#define SFB_MAX_FDES 12
#define SFB_MAX_FRES 10
#include "../common/sfb.h"

/* ---- generating ------------------------------------------------------------ */

/* A signed value that fits `bytes`, mostly small and word-aligned. */
static inline uint32_t sfb_gen_off(struct fz *f, unsigned bytes)
{
	uint32_t v = fz_u32(f);
	switch (fz_pick(f, 4)) {
	case 0: v = (v & 0x7fu) * 8u; break;              /* positive multiple of 8 */
	case 1: v = (uint32_t)(-(int32_t)((v & 0x3fu) * 8u)); break;
	default: break;                                    /* anything */
	}
	return bytes >= 4 ? v : v & ((1u << (8 * bytes)) - 1u);
}

/* A FLEX control word: reg_p, deref_p, bit 2 unused, regnum from bit 3. */
static inline uint32_t sfb_gen_ctl(struct fz *f, const struct sfb_sec *s, unsigned wsize, int is_cfa, uint8_t *bad)
{
	uint32_t max = wsize >= 4 ? 0xffffffffu : (1u << (8 * wsize)) - 1u;
	uint32_t regnum, ctl, reg_p = is_cfa ? 1u : fz_pick(f, 2);
	switch (fz_pick(f, 8)) {
	case 0: case 1: regnum = sfm_dwarf_sp(s->abi); break;
	case 2: case 3: regnum = sfm_dwarf_fp(s->abi); break;
	case 4: regnum = fz_u32(f) & 0x1fffffffu; break; /* may not fit: trimmed below */
	default: regnum = fz_pick(f, 32); break;
	}
	if (is_cfa && fz_pick(f, 32) == 0)
		reg_p = 0; /* a CFA defined by itself: invalid */
	ctl = regnum << 3 | (fz_pick(f, 2) ? 2u : 0u) | (fz_pick(f, 8) == 0 ? 4u : 0u) | reg_p;
	if (ctl > max)
		ctl = (ctl & max & ~7u) | (ctl & 7u);
	if (!is_cfa && ctl == 0)
		ctl = 2; /* *(CFA + off): a rule, not padding */
	if (is_cfa && !(ctl & 1u))
		*bad = 1;
	if ((ctl & 1u) && (ctl >> 3) > SFU_REG_DWARF_MAX && (ctl >> 3) != sfm_dwarf_sp(s->abi) &&
	    (ctl >> 3) != sfm_dwarf_fp(s->abi))
		*bad = 1;
	return ctl;
}

static inline void sfb_gen_words(struct fz *f, const struct sfb_sec *s, const struct sfb_fde *d, struct sfb_fre *r)
{
	static const uint8_t sizes[3] = { 1, 2, 4 };
	unsigned i, n;
	r->wsize = sizes[fz_pick(f, 3)];
	r->bad = 0;
	if (s->version >= 2 && fz_pick(f, 12) == 0) {
		r->count = 0; /* outermost frame */
		return;
	}
	if (d->flex) {
		unsigned layout = fz_pick(f, 4);
		n = 0;
		r->enc[n++] = sfb_gen_ctl(f, s, r->wsize, 1, &r->bad);
		r->enc[n++] = sfb_gen_off(f, r->wsize);
		if (layout == 1 || layout == 3) {
			r->enc[n++] = sfb_gen_ctl(f, s, r->wsize, 0, &r->bad);
			r->enc[n++] = sfb_gen_off(f, r->wsize);
		}
		if (layout == 2)
			r->enc[n++] = 0; /* RA padding: FP follows */
		if (layout >= 2) {
			r->enc[n++] = sfb_gen_ctl(f, s, r->wsize, 0, &r->bad);
			r->enc[n++] = sfb_gen_off(f, r->wsize);
		}
		r->count = (uint8_t)n;
		if (s->abi == SFU_ABI_S390X_BE) {
			int32_t off;
			if (sfm_s390x_cfa(sfb_sext(r->enc[1], r->wsize), &off))
				r->bad = 1;
		}
		return;
	}
	n = 1u + fz_pick(f, s->abi == SFU_ABI_AMD64_LE ? 2 : 3);
	r->count = (uint8_t)n;
	for (i = 0; i < n; i++)
		r->enc[i] = sfb_gen_off(f, r->wsize);
	if (s->abi == SFU_ABI_S390X_BE) {
		int32_t off;
		if (sfm_s390x_cfa(sfb_sext(r->enc[0], r->wsize), &off))
			r->bad = 1;
		if (n >= 2 && fz_pick(f, 4) == 0)
			r->enc[1] = 0; /* RA not saved: padding before the FP word */
		for (i = 1; i < n && s->version == 2; i++) {
			/* V2: an odd RA/FP word is a DWARF register number
			 * (SFRAME_V2_S390X_OFFSET_DECODE_REGNUM, value >> 1). */
			int32_t w = sfb_sext(r->enc[i], r->wsize);
			if (fz_pick(f, 4) == 0) {
				uint32_t reg = fz_pick(f, 32);
				if (r->wsize == 1 && reg > 63)
					reg = 63;
				r->enc[i] = reg << 1 | 1u;
				w = (int32_t)r->enc[i];
			}
			if ((w & 1) && (w < 0 || (w >> 1) > (int32_t)SFU_REG_DWARF_MAX))
				r->bad = 1; /* no such register */
		}
	}
}

/* Fill s from fuzz bytes.  Returns 0 if the input asks for nothing
 * sensible (never happens: every input gives some section). */
static inline void sfb_gen(struct sfb_sec *s, struct fz *f)
{
	uint64_t func_base, cur;
	int64_t rel;
	uint32_t i, k;
	uint8_t perm[SFB_MAX_FDES];

	memset(s, 0, sizeof *s);
	s->version = (uint8_t)(1u + fz_pick(f, 3));
	s->abi = (uint8_t)(1u + fz_pick(f, 4));
	s->big = s->abi == SFU_ABI_AARCH64_BE || s->abi == SFU_ABI_S390X_BE;
	{
		uint8_t fl = fz_u8(f);
		s->flags = (fl & 1u) ? 0 : SFU_F_FDE_SORTED;
		if (s->version >= 2 && (fl & 2u))
			s->flags |= SFU_F_FDE_FUNC_START_PCREL;
		if (s->version <= 2 && (fl & 4u))
			s->flags |= SFU_F_FRAME_POINTER;
		s->fre_first = (fl >> 3) & 1u;
		s->aux_len = (fl & 0x30u) == 0x30u ? (uint8_t)fz_pick(f, 24) : 0;
		s->fde_pad = (fl & 0x40u) ? fz_pick(f, 16) : 0;
		s->fre_pad = (fl & 0x80u) ? fz_pick(f, 16) : 0;
		s->tail_pad = fz_pick(f, 4) == 0 ? fz_pick(f, 16) : 0;
	}
	s->fixed_fp = 0;
	s->fixed_ra = (int8_t)(s->abi == SFU_ABI_AMD64_LE ? -8 * (int)(1u + fz_pick(f, 2)) : 0);

	/* Where the code is and how far the section is from it. */
	func_base = fz_u64(f) & (fz_pick(f, 4) ? 0x0000fffffffff000ull : 0x00fffffffffff000ull);
	rel = (int64_t)(int32_t)fz_u32(f) / 4;
	if (s->version == 3 && fz_pick(f, 4) == 0)
		rel = (int64_t)(fz_u64(f) >> 1) - (int64_t)(UINT64_C(1) << 61);
	s->addr = func_base - (uint64_t)rel;

	s->nfdes = fz_pick(f, SFB_MAX_FDES + 1);
	cur = func_base;
	for (i = 0; i < s->nfdes; i++) {
		struct sfb_fde *d = &s->fdes[i];
		uint32_t limit, start;
		unsigned szclass = fz_pick(f, 8);
		cur += fz_pick(f, 2) ? 0 : fz_pick(f, 300);
		d->start = cur;
		d->size = szclass == 0 ? 0 : szclass <= 4 ? 1u + fz_pick(f, 255) : szclass <= 6 ? 256u + fz_u16(f) : 65536u + (fz_u32(f) & 0xfffffu);
		cur += d->size;
		d->fre_type = (uint8_t)fz_pick(f, 3);
		d->pauth_key = (uint8_t)fz_pick(f, 2);
		d->junk_before = fz_pick(f, 8) == 0 ? (uint8_t)fz_pick(f, 4) : 0;
		if (s->version == 3) {
			d->flex = fz_pick(f, 3) == 0;
			d->signal = fz_pick(f, 8) == 0;
		}
		limit = d->size;
		if (fz_pick(f, 8) == 0) {
			d->pctype = SFU_FDE_PCTYPE_MASK;
			if (s->version >= 2) {
				d->rep_size = (uint8_t)(1u + fz_pick(f, 255));
				limit = d->rep_size;
			}
		}
		if (d->fre_type != SFU_FRE_TYPE_ADDR4 && limit > (1u << (8 * sfb_addr_bytes(d->fre_type))))
			limit = 1u << (8 * sfb_addr_bytes(d->fre_type));
		d->nfres = fz_pick(f, SFB_MAX_FRES + 1);
		start = fz_pick(f, 4) ? 0 : fz_pick(f, 16);
		for (k = 0; k < d->nfres; k++) {
			struct sfb_fre *r = &d->fres[k];
			if (start >= limit)
				break;
			r->start = start;
			r->base_sp = fz_pick(f, 4) != 0;
			r->mangled = fz_pick(f, 4) == 0;
			sfb_gen_words(f, s, d, r);
			start += 1u + (fz_pick(f, 2) ? fz_pick(f, 8) : fz_u16(f));
		}
		d->nfres = k;
	}
	/* FDE index order: sorted by start when the flag says so, else any
	 * order (sorted or not). */
	for (i = 0; i < s->nfdes; i++)
		perm[i] = (uint8_t)i;
	if (!(s->flags & SFU_F_FDE_SORTED) && s->nfdes > 1) {
		struct sfb_fde tmp[SFB_MAX_FDES];
		for (i = s->nfdes - 1; i > 0; i--) {
			uint32_t j = fz_pick(f, i + 1);
			uint8_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		memcpy(tmp, s->fdes, sizeof tmp);
		for (i = 0; i < s->nfdes; i++)
			s->fdes[i] = tmp[perm[i]];
	}
	/* FRE block order: usually the index order, sometimes shuffled. */
	for (i = 0; i < s->nfdes; i++)
		s->block_order[i] = (uint8_t)i;
	if (fz_pick(f, 4) == 0) {
		for (i = s->nfdes; i > 1; i--) {
			uint32_t j = fz_pick(f, i);
			uint8_t t = s->block_order[i - 1];
			s->block_order[i - 1] = s->block_order[j];
			s->block_order[j] = t;
		}
	}
}

/* ---- the model --------------------------------------------------------- */

/* What a reader must make of FRE r of FDE d (model.h). */
static inline int sfb_expect_row(const struct sfb_sec *s, const struct sfb_fde *d, const struct sfb_fre *r,
                                 sfu_row *row)
{
	struct sfm_fre in;
	unsigned i;
	in.version = s->version;
	in.abi = s->abi;
	in.fixed_ra = s->fixed_ra;
	in.flex = d->flex;
	in.signal = s->version == 3 && d->signal;
	in.func_start = d->start;
	in.func_size = d->size;
	in.start = r->start;
	in.base_sp = r->base_sp;
	in.mangled = r->mangled;
	in.count = r->count;
	in.wsize = r->wsize;
	in.pcmask = d->pctype == SFU_FDE_PCTYPE_MASK;
	in.fde_nfres = d->nfres;
	for (i = 0; i < r->count; i++)
		in.w[i] = sfb_sext(r->enc[i], r->wsize);
	return sfm_expect_row(&in, row);
}

/* The FDE and FRE a PC selects (spec 2.3.3.1), or SFU_E_NOINFO.  *fre is
 * NULL for a V3 FDE with no FREs (an outermost frame). */
static inline int sfb_expect_lookup(const struct sfb_sec *s, uint64_t pc, const struct sfb_fde **fde,
                                    const struct sfb_fre **fre)
{
	uint32_t i, k;
	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *d = &s->fdes[i];
		uint64_t off = pc - d->start;
		if (off >= d->size)
			continue;
		*fde = d;
		*fre = NULL;
		if (d->nfres == 0)
			return s->version == 3 ? SFU_OK : SFU_E_NOINFO;
		if (d->pctype == SFU_FDE_PCTYPE_MASK && s->version == 1) {
			/* V1: starts are masks; (offset & mask) == mask, last wins. */
			for (k = 0; k < d->nfres; k++)
				if ((off & d->fres[k].start) == d->fres[k].start)
					*fre = &d->fres[k];
			return *fre ? SFU_OK : SFU_E_NOINFO;
		}
		if (d->pctype == SFU_FDE_PCTYPE_MASK)
			off %= d->rep_size;
		for (k = 0; k < d->nfres && d->fres[k].start <= off; k++)
			*fre = &d->fres[k];
		return *fre ? SFU_OK : SFU_E_NOINFO;
	}
	return SFU_E_NOINFO;
}

/* The description, for a human reading a finding. */
static inline void sfb_print(FILE *out, const struct sfb_sec *s)
{
	uint32_t i, k, w;
	fprintf(out, "V%u abi %u %s flags 0x%x aux %u fixed_ra %d addr 0x%llx: %u FDEs, %u FREs, fre_len %u%s\n",
	        s->version, s->abi, s->big ? "BE" : "LE", s->flags, s->aux_len, s->fixed_ra, (unsigned long long)s->addr,
	        s->nfdes, s->num_fres, s->fre_len, s->fre_first ? ", FREs first" : "");
	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *d = &s->fdes[i];
		fprintf(out, "  FDE %u: 0x%llx size %u addr%u %s%s%s rep %u, %u FREs at +%u\n", i,
		        (unsigned long long)d->start, d->size, sfb_addr_bytes(d->fre_type), d->flex ? "FLEX" : "DEFAULT",
		        d->pctype ? " MASK" : "", d->signal ? " signal" : "", d->rep_size, d->nfres, d->fre_off);
		for (k = 0; k < d->nfres; k++) {
			const struct sfb_fre *r = &d->fres[k];
			fprintf(out, "    +%u %s%s w%u:", r->start, r->base_sp ? "sp" : "fp", r->mangled ? " mangled" : "",
			        r->wsize);
			for (w = 0; w < r->count; w++)
				fprintf(out, " %d", sfb_sext(r->enc[w], r->wsize));
			fprintf(out, "%s\n", r->bad ? "  (bad)" : "");
		}
	}
}

#endif /* SFB_GEN_H */
