/* sfb.h - build SFrame sections for tests: any version, either byte order.
 *
 * Written from the spec (../shared/spec), independently of core/sfu.h's
 * reader, so tests compare the reader against a second implementation of
 * the layout.  Records where each field landed so tests can corrupt exactly
 * one thing.
 */
#ifndef SFB_H
#define SFB_H

#include <stdint.h>
#include <string.h>

#define SFB_MAX_FDES 64
#define SFB_MAX_FRES 64

typedef struct sfb_fre {
	uint32_t start;  /* PC offset in the function */
	unsigned base;   /* 0 = FP, 1 = SP */
	unsigned wsize;  /* 1, 2 or 4 */
	unsigned count;  /* data words */
	unsigned mangled;
	int32_t w[15];
} sfb_fre;

typedef struct sfb_fde {
	uint64_t addr;     /* run-time function start */
	uint32_t size;
	unsigned fre_type; /* 0 ADDR1, 1 ADDR2, 2 ADDR4 */
	unsigned pctype;   /* 0 INC, 1 MASK */
	unsigned type;     /* V3: 0 DEFAULT, 1 FLEX */
	unsigned signal;   /* V3 */
	unsigned pauth_b;
	unsigned rep_size;
	unsigned nfres;
	sfb_fre fres[SFB_MAX_FRES];
} sfb_fde;

typedef struct sfb_sec {
	unsigned version, big, abi, flags, auxlen;
	int fixed_fp, fixed_ra;
	uint64_t addr; /* run-time address of the section */
	unsigned nfdes;
	sfb_fde fdes[SFB_MAX_FDES];
	/* layout, filled by sfb_build */
	uint32_t fde_at[SFB_MAX_FDES];  /* offset of each FDE record */
	uint32_t attr_at[SFB_MAX_FDES]; /* V3: offset of each attribute */
	uint32_t fre_at[SFB_MAX_FDES][SFB_MAX_FRES];
	uint32_t fre_base, fre_len, hdr_end;
} sfb_sec;

static void sfb_put(uint8_t *p, unsigned n, int big, uint64_t v)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Default section: amd64 (or aarch64/s390x per abi), sorted. */
static void sfb_init(sfb_sec *s, unsigned version, unsigned abi)
{
	memset(s, 0, sizeof *s);
	s->version = version;
	s->abi = abi;
	s->big = abi == 1 || abi == 4;
	s->flags = 1 | (version == 3 ? 4u : 0u);
	s->fixed_ra = abi == 3 ? -8 : 0;
	s->addr = 0x200000;
}

static sfb_fde *sfb_add_fde(sfb_sec *s, uint64_t addr, uint32_t size)
{
	sfb_fde *f = &s->fdes[s->nfdes++];
	memset(f, 0, sizeof *f);
	f->addr = addr;
	f->size = size;
	return f;
}

static sfb_fre *sfb_add_fre(sfb_fde *f, uint32_t start, unsigned base, unsigned wsize, unsigned count, const int32_t *w)
{
	sfb_fre *r = &f->fres[f->nfres++];
	unsigned i;
	memset(r, 0, sizeof *r);
	r->start = start;
	r->base = base;
	r->wsize = wsize;
	r->count = count;
	for (i = 0; i < count; i++)
		r->w[i] = w[i];
	return r;
}

/* Serialize; returns the size, 0 if cap is too small. */
static size_t sfb_build(sfb_sec *s, uint8_t *out, size_t cap)
{
	unsigned fdesz = s->version == 1 ? 17 : s->version == 2 ? 20 : 16;
	uint32_t hdr_end = 28 + s->auxlen, fdes_len = s->nfdes * fdesz, pos, i, k;
	uint32_t nfres = 0;
	size_t need;
	uint8_t *p = out;

	/* FRE sub-section first into place after the FDEs. */
	s->hdr_end = hdr_end;
	s->fre_base = hdr_end + fdes_len;
	pos = s->fre_base;
	for (i = 0; i < s->nfdes; i++) {
		sfb_fde *f = &s->fdes[i];
		unsigned ab = f->fre_type == 0 ? 1 : f->fre_type == 1 ? 2 : 4;
		if (s->version == 3) {
			s->attr_at[i] = pos;
			pos += 5;
		}
		for (k = 0; k < f->nfres; k++) {
			s->fre_at[i][k] = pos;
			pos += ab + 1 + f->fres[k].count * f->fres[k].wsize;
		}
		nfres += f->nfres;
	}
	s->fre_len = pos - s->fre_base;
	need = pos;
	if (need > cap)
		return 0;
	memset(out, 0, need);

	sfb_put(p + 0, 2, s->big, 0xdee2);
	p[2] = (uint8_t)s->version;
	p[3] = (uint8_t)s->flags;
	p[4] = (uint8_t)s->abi;
	p[5] = (uint8_t)(int8_t)s->fixed_fp;
	p[6] = (uint8_t)(int8_t)s->fixed_ra;
	p[7] = (uint8_t)s->auxlen;
	sfb_put(p + 8, 4, s->big, s->nfdes);
	sfb_put(p + 12, 4, s->big, nfres);
	sfb_put(p + 16, 4, s->big, s->fre_len);
	sfb_put(p + 20, 4, s->big, 0);
	sfb_put(p + 24, 4, s->big, fdes_len);

	for (i = 0; i < s->nfdes; i++) {
		sfb_fde *f = &s->fdes[i];
		uint32_t at = hdr_end + i * fdesz;
		unsigned info = f->fre_type | (f->pctype << 4) | (f->pauth_b << 5) | (s->version == 3 ? f->signal << 7 : 0u);
		uint32_t first = (s->version == 3 ? s->attr_at[i] : (f->nfres ? s->fre_at[i][0] : pos)) - s->fre_base;
		uint64_t start = f->addr - s->addr - ((s->flags & 4) ? at : 0);
		unsigned ab = f->fre_type == 0 ? 1 : f->fre_type == 1 ? 2 : 4;
		s->fde_at[i] = at;
		if (s->version == 3) {
			sfb_put(p + at, 8, s->big, start);
			sfb_put(p + at + 8, 4, s->big, f->size);
			sfb_put(p + at + 12, 4, s->big, first);
			sfb_put(p + s->attr_at[i], 2, s->big, f->nfres);
			p[s->attr_at[i] + 2] = (uint8_t)info;
			p[s->attr_at[i] + 3] = (uint8_t)f->type;
			p[s->attr_at[i] + 4] = (uint8_t)f->rep_size;
		} else {
			sfb_put(p + at, 4, s->big, start);
			sfb_put(p + at + 4, 4, s->big, f->size);
			sfb_put(p + at + 8, 4, s->big, first);
			sfb_put(p + at + 12, 4, s->big, f->nfres);
			p[at + 16] = (uint8_t)info;
			if (s->version == 2)
				p[at + 17] = (uint8_t)f->rep_size;
		}
		for (k = 0; k < f->nfres; k++) {
			sfb_fre *r = &f->fres[k];
			uint32_t q = s->fre_at[i][k];
			unsigned ws = r->wsize == 1 ? 0 : r->wsize == 2 ? 1 : 2, j;
			sfb_put(p + q, ab, s->big, r->start);
			p[q + ab] = (uint8_t)(r->base | (r->count << 1) | (ws << 5) | (r->mangled << 7));
			for (j = 0; j < r->count; j++)
				sfb_put(p + q + ab + 1 + j * r->wsize, r->wsize, s->big, (uint64_t)(int64_t)r->w[j]);
		}
	}
	return need;
}

#endif
