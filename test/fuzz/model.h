/* SPDX-License-Identifier: MIT */
/* model.h - what an SFrame reader must make of one FRE: the recovery rules
 * for CFA, RA and FP, written from the SFrame specification (versions 1,
 * 2 with its errata, and 3; section numbers of the version 3 document),
 * not from core/sfu.h.  Used by fuzz_gen (on the sections it generates) and by
 * decode_check.h (on any bytes: the FRE's data words as the core reads
 * them, the rules as the model derives them from those words).
 *
 *   default FDEs (spec 3.1): word 0 is the CFA offset from SP or FP (FRE
 *     info bit 0); amd64: RA at the header's fixed offset, word 1 = FP slot;
 *     aarch64: word 1 = RA slot, word 2 = FP slot; s390x: word 0 stored
 *     scaled by 8 and adjusted by -160 (3.1.3), word 1 = RA slot with 0 as
 *     "not saved" padding, word 2 = FP slot, and in V2 an odd RA/FP word is
 *     a DWARF register number, value >> 1 (SFRAME_V2_S390X_OFFSET_*); no
 *     data words: RA undefined, outermost frame (V2 erratum 2, V3 2.4.1);
 *   flexible FDEs (V3, spec 3.2): (control, offset) pairs for CFA, RA, FP;
 *     a lone 0 control word stands for an entity without a rule (spec: "no
 *     further data words follow for the tracked entity"); control bit 0 reg_p
 *     (else the base is the CFA, which the CFA itself cannot use), bit 1
 *     deref_p, bits 3+ the DWARF register.  s390x FLEX CFA offsets are
 *     scaled like default ones (what gas 2.47 emits; the core follows it).
 * A register number beyond SFU_REG_DWARF_MAX cannot be represented, and a
 * negative one does not exist: the row is invalid (SFU_E_FRE_WORDS).
 *
 * One deliberate departure from the words, the core's documented producer
 * fix (SFU_FIX_LD_PLTGOT, core/sfu.h "PRODUCER ERRORS"): GNU ld's x86_64
 * .plt.got FDE - V2/V3, amd64, a default PC-mask FDE whose only FRE starts
 * at 0 with one word, CFA = SP + 16, RA at the fixed CFA - 8, not mangled,
 * no signal bit - is read as CFA = SP + 8, what the called stub's entry
 * really has. */
#ifndef MODEL_H
#define MODEL_H

#include <stdint.h>
#include <string.h>

#include "sfu.h"

struct sfm_fre {
	uint8_t version, abi, flex, signal;
	int8_t fixed_ra;
	uint64_t func_start;
	uint32_t func_size, start;
	uint8_t base_sp, mangled, count, wsize;
	int32_t w[SFU_FRE_MAX_WORDS]; /* data words, sign-extended from wsize */
	uint8_t pcmask;    /* its FDE is of PC type MASK */
	uint32_t fde_nfres; /* FREs of its FDE */
};

/* GNU ld's .plt.got FDE (above): its row is CFA = SP + 8. */
static inline int sfm_ld_pltgot(const struct sfm_fre *in)
{
	return SFU_FIX_LD_PLTGOT && in->version >= SFU_VERSION_2 && in->abi == SFU_ABI_AMD64_LE && !in->flex &&
	       !in->signal && in->pcmask && in->fde_nfres == 1 && in->start == 0 && in->base_sp && !in->mangled &&
	       in->count == 1 && in->w[0] == 16 && in->fixed_ra == -8;
}

static inline unsigned sfm_dwarf_sp(unsigned abi)
{
	return abi == SFU_ABI_AMD64_LE ? SFU_DWARF_AMD64_SP : abi == SFU_ABI_S390X_BE ? SFU_DWARF_S390X_SP : SFU_DWARF_AARCH64_SP;
}

static inline unsigned sfm_dwarf_fp(unsigned abi)
{
	return abi == SFU_ABI_AMD64_LE ? SFU_DWARF_AMD64_FP : abi == SFU_ABI_S390X_BE ? SFU_DWARF_S390X_FP : SFU_DWARF_AARCH64_FP;
}

/* s390x CFA offsets are stored scaled and adjusted (spec 3.1.3). */
static inline int sfm_s390x_cfa(int32_t w, int32_t *off)
{
	int64_t o = (int64_t)w * SFU_S390X_CFA_OFFSET_ALIGNMENT_FACTOR - SFU_S390X_CFA_OFFSET_ADJUSTMENT;
	if (o < INT32_MIN || o > INT32_MAX)
		return SFU_E_FRE_WORDS;
	*off = (int32_t)o;
	return SFU_OK;
}

static inline void sfm_rule(sfu_rule *r, uint8_t kind, uint16_t base, int32_t off)
{
	r->kind = kind;
	r->base = base;
	r->off = off;
}

/* A FLEX (control, offset) pair (spec 3.2); the control word is unsigned
 * in its stored width. */
static inline int sfm_flex(const struct sfm_fre *in, int32_t ctl_word, int32_t off, int is_cfa, sfu_rule *r)
{
	uint32_t ctl = (uint32_t)ctl_word & (in->wsize >= 4 ? 0xffffffffu : (1u << (8 * in->wsize)) - 1u);
	uint32_t regnum = ctl >> 3;
	uint8_t kind = (ctl & 2u) ? SFU_RULE_DEREF : SFU_RULE_OFF;
	if (!(ctl & 1u)) {
		if (is_cfa)
			return SFU_E_FRE_WORDS;
		sfm_rule(r, kind, SFU_REG_CFA, off);
		return SFU_OK;
	}
	if (regnum == sfm_dwarf_sp(in->abi))
		sfm_rule(r, kind, SFU_REG_SP, off);
	else if (regnum == sfm_dwarf_fp(in->abi))
		sfm_rule(r, kind, SFU_REG_FP, off);
	else if (regnum <= SFU_REG_DWARF_MAX)
		sfm_rule(r, kind, (uint16_t)regnum, off);
	else
		return SFU_E_FRE_WORDS;
	return SFU_OK;
}

/* s390x RA/FP word: a CFA-relative slot, or in V2 an odd word naming the
 * register that holds the value. */
static inline int sfm_s390x_word(const struct sfm_fre *in, int32_t w, sfu_rule *r)
{
	if (in->version == SFU_VERSION_2 && (w & 1)) {
		int64_t reg = ((int64_t)w - 1) / 2; /* w >> 1 for odd w >= 0 */
		if (w < 0 || reg > (int64_t)SFU_REG_DWARF_MAX)
			return SFU_E_FRE_WORDS;
		sfm_rule(r, SFU_RULE_OFF, (uint16_t)reg, 0);
	} else {
		sfm_rule(r, SFU_RULE_DEREF, SFU_REG_CFA, w);
	}
	return SFU_OK;
}

/* The row for one FRE, or SFU_E_FRE_WORDS if no reader may accept it. */
static inline int sfm_expect_row(const struct sfm_fre *in, sfu_row *row)
{
	const int32_t *w = in->w;
	unsigned n = in->count;
	int err = SFU_OK;

	memset(row, 0, sizeof *row);
	row->func_start = in->func_start;
	row->func_size = in->func_size;
	row->fre_start = in->start;
	row->abi = in->abi;
	row->mangled_ra = in->mangled;
	row->signal = in->signal;
	row->flex = in->flex;
	row->sp_from_cfa = in->abi == SFU_ABI_S390X_BE ? SFU_S390X_SP_VAL_OFFSET : 0;
	sfm_rule(&row->cfa, SFU_RULE_OFF, in->base_sp ? SFU_REG_SP : SFU_REG_FP, 0);
	sfm_rule(&row->fp, SFU_RULE_SAME, SFU_REG_CFA, 0);
	if (in->abi == SFU_ABI_AMD64_LE)
		sfm_rule(&row->ra, SFU_RULE_DEREF, SFU_REG_CFA, in->fixed_ra);
	else
		sfm_rule(&row->ra, SFU_RULE_SAME, SFU_REG_CFA, 0);
	if (n == 0) {
		sfm_rule(&row->ra, SFU_RULE_UNDEF, SFU_REG_CFA, 0);
		return SFU_OK;
	}
	if (in->flex) {
		unsigned j = 2;
		if (n < 2)
			return SFU_E_FRE_WORDS;
		err = sfm_flex(in, w[0], w[1], 1, &row->cfa);
		if (!err && in->abi == SFU_ABI_S390X_BE)
			err = sfm_s390x_cfa(w[1], &row->cfa.off);
		if (err)
			return err;
		if (j < n && w[j] != 0) {
			if (j + 1 >= n || (err = sfm_flex(in, w[j], w[j + 1], 0, &row->ra)))
				return err ? err : SFU_E_FRE_WORDS;
			j += 2;
		} else if (j < n) {
			j += 1; /* padding: no RA rule, an FP rule follows */
		}
		if (j < n && w[j] != 0) {
			if (j + 1 >= n || (err = sfm_flex(in, w[j], w[j + 1], 0, &row->fp)))
				return err ? err : SFU_E_FRE_WORDS;
			j += 2;
		} else if (j < n) {
			j += 1; /* padding: no FP rule */
		}
		return j == n ? SFU_OK : SFU_E_FRE_WORDS;
	}
	if (in->abi == SFU_ABI_S390X_BE) {
		if (n > 3 || (err = sfm_s390x_cfa(w[0], &row->cfa.off)))
			return SFU_E_FRE_WORDS;
		if (n >= 2 && w[1] != SFU_S390X_RA_OFFSET_INVALID && (err = sfm_s390x_word(in, w[1], &row->ra)))
			return err;
		if (n >= 3 && (err = sfm_s390x_word(in, w[2], &row->fp)))
			return err;
		return SFU_OK;
	}
	row->cfa.off = sfm_ld_pltgot(in) ? 8 : w[0];
	if (in->abi == SFU_ABI_AMD64_LE) {
		if (n > 2)
			return SFU_E_FRE_WORDS;
		if (n >= 2)
			sfm_rule(&row->fp, SFU_RULE_DEREF, SFU_REG_CFA, w[1]);
		return SFU_OK;
	}
	if (n > 3)
		return SFU_E_FRE_WORDS;
	if (n >= 2)
		sfm_rule(&row->ra, SFU_RULE_DEREF, SFU_REG_CFA, w[1]);
	if (n >= 3)
		sfm_rule(&row->fp, SFU_RULE_DEREF, SFU_REG_CFA, w[2]);
	return SFU_OK;
}

#endif /* MODEL_H */
