/* SPDX-License-Identifier: MIT */
/* sfb.h - SFrame sections for the tests, written byte by byte: any version
 * (1, 2, 3), either byte order, every layout freedom the format allows.
 *
 * A section is described as data (struct sfb_sec: header fields, FDEs with
 * their FREs and data words) and written out by sfb_emit: aux header,
 * padding before and between the sub-sections, the FRE sub-section first,
 * FRE blocks in any order, junk between blocks, unsorted FDEs.  sfb_emit
 * records where each record landed (the "emitted" fields), so a test can
 * corrupt exactly one field.  The unit tests describe sections by hand
 * (sfb_init, sfb_add_fde, sfb_add_fre); fuzz_gen fills the description from
 * fuzz bytes (test/fuzz/sfb_gen.h).
 *
 * The layout is written here from the specification (spec 2.1-2.4),
 * independently of core/sfu.h's reader; only the format's names come from
 * core/sfu_format.h.  Host C; include with core/ on the include path.
 * SFB_MAX_FDES and SFB_MAX_FRES (FDEs a section, FREs an FDE) may be
 * defined first. */
#ifndef TEST_SFB_H
#define TEST_SFB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sfu_format.h"

#ifndef SFB_MAX_FDES
#define SFB_MAX_FDES 64
#endif
#ifndef SFB_MAX_FRES
#define SFB_MAX_FRES 64
#endif

typedef struct sfb_fre {
	uint32_t start;                  /* PC offset in the function */
	uint8_t base_sp, mangled, wsize, count;
	uint32_t enc[SFU_FRE_MAX_WORDS]; /* stored words, low wsize bytes */
	uint8_t bad;                     /* sfb_gen: no reader may accept this row */
	uint32_t at;                     /* emitted: FRE sub-section offset */
} sfb_fre;

typedef struct sfb_fde {
	uint64_t start; /* run-time function start */
	uint32_t size;
	uint8_t fre_type, pctype, rep_size, flex, signal, pauth_key;
	uint32_t nfres;
	sfb_fre fres[SFB_MAX_FRES];
	uint8_t junk_before; /* bytes of junk before this FDE's FRE block */
	/* emitted */
	uint32_t rec;     /* section offset of the FDE record (index entry) */
	uint32_t attr;    /* V3: FRE sub-section offset of the attribute */
	uint32_t fre_off; /* FRE sub-section offset of the first FRE */
} sfb_fde;

typedef struct sfb_sec {
	uint8_t version, abi, big, flags, aux_len, fre_first;
	int8_t fixed_fp, fixed_ra;
	uint64_t addr; /* run-time address of the section */
	uint32_t fde_pad, fre_pad, tail_pad;
	uint32_t nfdes;
	sfb_fde fdes[SFB_MAX_FDES];        /* index order */
	uint8_t block_order[SFB_MAX_FDES]; /* FRE blocks, by FDE index */
	/* emitted */
	uint32_t fde_base, fre_base, fre_len, num_fres, size;
} sfb_sec;

/* ---- describing by hand ------------------------------------------------- */

/* An empty section of `version` for `abi`: sorted (V3: PC-relative starts
 * too), in the ABI's byte order, amd64's fixed RA offset -8, at 0x200000. */
static inline void sfb_init(sfb_sec *s, unsigned version, unsigned abi)
{
	memset(s, 0, sizeof *s);
	s->version = (uint8_t)version;
	s->abi = (uint8_t)abi;
	s->big = abi == SFU_ABI_AARCH64_BE || abi == SFU_ABI_S390X_BE;
	s->flags = (uint8_t)(SFU_F_FDE_SORTED | (version == 3 ? SFU_F_FDE_FUNC_START_PCREL : 0u));
	s->fixed_ra = (int8_t)(abi == SFU_ABI_AMD64_LE ? -8 : 0);
	s->addr = 0x200000;
}

/* A function at run-time address `start`, its FRE block in index order. */
static inline sfb_fde *sfb_add_fde(sfb_sec *s, uint64_t start, uint32_t size)
{
	sfb_fde *f = &s->fdes[s->nfdes];
	memset(f, 0, sizeof *f);
	f->start = start;
	f->size = size;
	s->block_order[s->nfdes] = (uint8_t)s->nfdes;
	s->nfdes++;
	return f;
}

/* An FRE of `count` data words w[] of `wsize` bytes (1, 2, 4), based on the
 * SP (base_sp 1) or the FP. */
static inline sfb_fre *sfb_add_fre(sfb_fde *f, uint32_t start, unsigned base_sp, unsigned wsize, unsigned count,
                                   const int32_t *w)
{
	sfb_fre *r = &f->fres[f->nfres++];
	unsigned i;
	memset(r, 0, sizeof *r);
	r->start = start;
	r->base_sp = (uint8_t)base_sp;
	r->wsize = (uint8_t)wsize;
	r->count = (uint8_t)count;
	for (i = 0; i < count; i++)
		r->enc[i] = wsize >= 4 ? (uint32_t)w[i] : (uint32_t)w[i] & ((1u << (8 * wsize)) - 1u);
	return r;
}

/* ---- reading a description back ---------------------------------------- */

/* v's low `bytes` bytes, sign-extended. */
static inline int32_t sfb_sext(uint32_t v, unsigned bytes)
{
	if (bytes >= 4)
		return (int32_t)v;
	v &= (1u << (8 * bytes)) - 1u;
	if (v & (1u << (8 * bytes - 1)))
		return (int32_t)v - (int32_t)(1u << (8 * bytes));
	return (int32_t)v;
}

/* Data word i of r, as a reader must decode it. */
static inline int32_t sfb_word(const sfb_fre *r, unsigned i)
{
	return sfb_sext(r->enc[i], r->wsize);
}

static inline unsigned sfb_addr_bytes(unsigned fre_type)
{
	return fre_type == SFU_FRE_TYPE_ADDR1 ? 1u : fre_type == SFU_FRE_TYPE_ADDR2 ? 2u : 4u;
}

static inline unsigned sfb_fde_size(unsigned version)
{
	return version == 1 ? SFU_V1_FDE_SIZE : version == 2 ? SFU_V2_FDE_SIZE : SFU_V3_FDE_SIZE;
}

/* The info bytes (spec 2.3.1 sfde_func_info, 2.4.1 sfre_info). */
static inline uint8_t sfb_fre_info(const sfb_fre *r)
{
	unsigned wcode = r->wsize == 1 ? SFU_FRE_WSIZE_1B : r->wsize == 2 ? SFU_FRE_WSIZE_2B : SFU_FRE_WSIZE_4B;
	unsigned base = r->base_sp ? SFU_BASE_REG_SP : SFU_BASE_REG_FP;
	return (uint8_t)(base | (unsigned)r->count << 1 | wcode << 5 | (r->mangled ? 0x80u : 0u));
}

static inline uint8_t sfb_fde_info(const sfb_sec *s, const sfb_fde *f)
{
	return (uint8_t)(f->fre_type | (unsigned)f->pctype << 4 | (unsigned)f->pauth_key << 5 |
	                 (s->version == 3 && f->signal ? 0x80u : 0u));
}

/* ---- writing ------------------------------------------------------------ */

/* v's low n bytes at p, in the given byte order. */
static inline void sfb_store(uint8_t *p, unsigned n, int big, uint64_t v)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

struct sfb_out {
	uint8_t *p;
	size_t cap, n;
	int big, over;
};

static inline void sfb_put(struct sfb_out *o, uint64_t v, unsigned k)
{
	if (o->n + k > o->cap) {
		o->over = 1;
		return;
	}
	sfb_store(o->p + o->n, k, o->big, v);
	o->n += k;
}

static inline void sfb_put_at(struct sfb_out *o, size_t at, uint64_t v, unsigned k)
{
	size_t save = o->n;
	o->n = at;
	sfb_put(o, v, k);
	o->n = save > o->n ? save : o->n;
}

/* Emit s into out (cap bytes).  Returns the size, 0 if it does not fit or
 * a start address does not fit the version's field.  Fills the "emitted"
 * fields of s.  Every byte up to the size is written: padding and junk
 * with a pattern, never left as it was. */
static inline size_t sfb_emit(sfb_sec *s, uint8_t *out, size_t cap)
{
	struct sfb_out o = { out, cap, 0, s->big, 0 }, fo;
	uint32_t fde_size = sfb_fde_size(s->version), hdr_end = SFU_HDR_SIZE + s->aux_len, fde_len, i, k, b;
	uint32_t frelen, nfres = 0, fdeoff, freoff;
	size_t end;

	/* Where the FRE sub-section goes does not depend on its length: write
	 * it in place first, in block order. */
	fde_len = s->nfdes * fde_size;
	freoff = s->fre_first ? s->fre_pad : s->fde_pad + fde_len + s->fre_pad;
	s->fre_base = hdr_end + freoff;
	fo.p = out + s->fre_base;
	fo.cap = cap > s->fre_base ? cap - s->fre_base : 0;
	fo.n = 0;
	fo.big = s->big;
	fo.over = 0;
	for (b = 0; b < s->nfdes; b++) {
		sfb_fde *f = &s->fdes[s->block_order[b]];
		for (k = 0; k < f->junk_before; k++)
			sfb_put(&fo, 0xa5u ^ k, 1);
		if (s->version == 3) {
			/* The FDE attribute (spec 2.3.2). */
			f->attr = (uint32_t)fo.n;
			sfb_put_at(&fo, f->attr + SFU_V3_ATTR_NFRES, f->nfres, 2);
			sfb_put_at(&fo, f->attr + SFU_V3_ATTR_INFO, sfb_fde_info(s, f), 1);
			sfb_put_at(&fo, f->attr + SFU_V3_ATTR_INFO2, f->flex ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT, 1);
			sfb_put_at(&fo, f->attr + SFU_V3_ATTR_REPSIZE, f->rep_size, 1);
			fo.n = f->attr + SFU_V3_ATTR_SIZE;
		}
		f->fre_off = (uint32_t)fo.n;
		for (k = 0; k < f->nfres; k++) {
			sfb_fre *r = &f->fres[k];
			unsigned w;
			r->at = (uint32_t)fo.n;
			sfb_put(&fo, r->start, sfb_addr_bytes(f->fre_type));
			sfb_put(&fo, sfb_fre_info(r), 1);
			for (w = 0; w < r->count; w++)
				sfb_put(&fo, r->enc[w], r->wsize);
		}
		nfres += f->nfres;
	}
	if (fo.over)
		return 0;
	frelen = (uint32_t)fo.n;
	fdeoff = s->fre_first ? s->fre_pad + frelen + s->fde_pad : s->fde_pad;
	s->fde_base = hdr_end + fdeoff;
	s->fre_len = frelen;
	s->num_fres = nfres;
	end = (size_t)hdr_end + (s->fre_first ? fdeoff + fde_len : freoff + frelen) + s->tail_pad;
	if (end > cap)
		return 0;

	/* Header (spec 2.1, 2.2): preamble, then the fixed fields. */
	sfb_put_at(&o, SFU_HDR_MAGIC, SFU_MAGIC, 2);
	sfb_put_at(&o, SFU_HDR_VERSION, s->version, 1);
	sfb_put_at(&o, SFU_HDR_FLAGS, s->flags, 1);
	sfb_put_at(&o, SFU_HDR_ABI, s->abi, 1);
	sfb_put_at(&o, SFU_HDR_FIXED_FP, (uint8_t)s->fixed_fp, 1);
	sfb_put_at(&o, SFU_HDR_FIXED_RA, (uint8_t)s->fixed_ra, 1);
	sfb_put_at(&o, SFU_HDR_AUXLEN, s->aux_len, 1);
	sfb_put_at(&o, SFU_HDR_NUM_FDES, s->nfdes, 4);
	sfb_put_at(&o, SFU_HDR_NUM_FRES, nfres, 4);
	sfb_put_at(&o, SFU_HDR_FRE_LEN, frelen, 4);
	sfb_put_at(&o, SFU_HDR_FDEOFF, fdeoff, 4);
	sfb_put_at(&o, SFU_HDR_FREOFF, freoff, 4);
	o.n = SFU_HDR_SIZE;
	for (i = 0; i < s->aux_len; i++)
		sfb_put(&o, 0x3cu + i, 1);
	/* Padding everywhere else is junk too. */
	for (i = (uint32_t)o.n; i < end; i++)
		if (i < s->fre_base || i >= s->fre_base + frelen)
			out[i] = (uint8_t)(0x5au ^ i);
	o.n = end;
	/* The FDE records (spec 2.3). */
	for (i = 0; i < s->nfdes; i++) {
		sfb_fde *f = &s->fdes[i];
		uint32_t rec = s->fde_base + i * fde_size;
		uint64_t field = s->addr + rec; /* address of the start field */
		uint64_t raw = f->start - s->addr;
		f->rec = rec;
		if (s->flags & SFU_F_FDE_FUNC_START_PCREL)
			raw = f->start - field;
		if (s->version == 3) {
			sfb_put_at(&o, rec + SFU_V3_FDE_START, raw, 8);
			sfb_put_at(&o, rec + SFU_V3_FDE_SIZE_F, f->size, 4);
			sfb_put_at(&o, rec + SFU_V3_FDE_FREOFF, f->attr, 4);
		} else {
			int64_t sraw = (int64_t)raw;
			if (sraw < INT32_MIN || sraw > INT32_MAX)
				return 0;
			sfb_put_at(&o, rec + SFU_V12_FDE_START, raw, 4);
			sfb_put_at(&o, rec + SFU_V12_FDE_SIZE_F, f->size, 4);
			sfb_put_at(&o, rec + SFU_V12_FDE_FREOFF, f->fre_off, 4);
			sfb_put_at(&o, rec + SFU_V12_FDE_NFRES, f->nfres, 4);
			sfb_put_at(&o, rec + SFU_V12_FDE_INFO, sfb_fde_info(s, f), 1);
			if (s->version == 2) {
				sfb_put_at(&o, rec + SFU_V2_FDE_REPSIZE, f->rep_size, 1);
				sfb_put_at(&o, rec + SFU_V2_FDE_REPSIZE + 1, 0, 2);
			}
		}
	}
	if (o.over)
		return 0;
	s->size = (uint32_t)o.n;
	return o.n;
}

#endif /* TEST_SFB_H */
