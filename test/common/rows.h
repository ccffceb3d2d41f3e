/* SPDX-License-Identifier: MIT */
/* rows.h - comparing rows, for the tests: general rows field by field, and
 * compact rows (sfu__compact_row) with each other and with the general rows they
 * stand for.  Host test code; include after core/sfu.h. */
#ifndef TEST_ROWS_H
#define TEST_ROWS_H

static inline int tr_rule_eq(const sfu_rule *a, const sfu_rule *b)
{
	return a->kind == b->kind && a->base == b->base && a->off == b->off;
}

/* The same rule, as another decoder says it: a SAME or UNDEF rule has no
 * base or offset to compare. */
static inline int tr_rule_same(const sfu_rule *a, const sfu_rule *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == SFU_RULE_SAME || a->kind == SFU_RULE_UNDEF)
		return 1;
	return a->base == b->base && a->off == b->off;
}

static inline int tr_row_eq(const sfu_row *a, const sfu_row *b)
{
	return a->func_start == b->func_start && a->func_size == b->func_size && a->fre_start == b->fre_start &&
	       tr_rule_eq(&a->cfa, &b->cfa) && tr_rule_eq(&a->ra, &b->ra) && tr_rule_eq(&a->fp, &b->fp) &&
	       a->abi == b->abi && a->mangled_ra == b->mangled_ra && a->signal == b->signal && a->flex == b->flex &&
	       a->sp_from_cfa == b->sp_from_cfa;
}

/* The documented part of a compact row: its flags and, where they say so,
 * its offsets (a general row's offsets are the core's own business). */
static inline int tr_crow_eq(const sfu__compact_row *a, const sfu__compact_row *b)
{
	if ((a->flags & 0x1ffu) != (b->flags & 0x1ffu))
		return 0;
	if (a->flags & SFU__CROW_GENERAL)
		return 1;
	return a->u.off.cfa == b->u.off.cfa && (!(a->flags & SFU__CROW_RA_SAVED) || a->u.off.ra == b->u.off.ra) &&
	       (!(a->flags & SFU__CROW_FP_SAVED) || a->u.off.fp == b->u.off.fp);
}

/* A compact row is the general row written short, its RA and FP slot
 * offsets multiples of 8 (the step reads them without an alignment test);
 * a general one is a FLEX row, a V2 s390x register rule, or a row whose RA
 * or FP slot offset is not a multiple of 8 (then its offsets and flags are
 * still the general row's). */
static inline int tr_crow_is_row(const sfu__compact_row *c, const sfu_row *r)
{
	uint32_t f = c->flags;
	int unaligned = (r->ra.kind == SFU_RULE_DEREF && (r->ra.off & 7)) || (r->fp.kind == SFU_RULE_DEREF && (r->fp.off & 7));
	if (f & SFU__CROW_GENERAL) {
		if (r->flex || (r->abi == SFU_ABI_S390X_BE && (r->ra.kind == SFU_RULE_OFF || r->fp.kind == SFU_RULE_OFF)))
			return 1;
		if (!unaligned)
			return 0;
		f &= ~SFU__CROW_GENERAL;
	} else if (unaligned) {
		return 0;
	}
	if (((f & SFU__CROW_RA_UNDEF) != 0) != (r->ra.kind == SFU_RULE_UNDEF))
		return 0;
	if (f & SFU__CROW_RA_UNDEF)
		return 1;
	return r->cfa.kind == SFU_RULE_OFF && r->cfa.base == ((f & SFU__CROW_CFA_FP) ? SFU_REG_FP : SFU_REG_SP) &&
	       r->cfa.off == c->u.off.cfa &&
	       ((f & SFU__CROW_RA_SAVED) ? r->ra.kind == SFU_RULE_DEREF && r->ra.base == SFU_REG_CFA && r->ra.off == c->u.off.ra
	                                : r->ra.kind == SFU_RULE_SAME) &&
	       ((f & SFU__CROW_FP_SAVED) ? r->fp.kind == SFU_RULE_DEREF && r->fp.base == SFU_REG_CFA && r->fp.off == c->u.off.fp
	                                : r->fp.kind == SFU_RULE_SAME) &&
	       !!(f & SFU__CROW_MANGLED) == !!r->mangled_ra && !!(f & SFU__CROW_SIGNAL) == !!r->signal &&
	       (r->sp_from_cfa != 0) == !!(f & SFU__CROW_SP_S390X) &&
	       !!(f & SFU__CROW_ALIGN16) == (r->abi == SFU_ABI_AARCH64_LE || r->abi == SFU_ABI_AARCH64_BE) && !r->flex;
}

#endif
