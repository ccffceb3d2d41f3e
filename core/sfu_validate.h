/* SPDX-License-Identifier: MIT */
/* sfu_validate.h - the checks a firmware makes once, at boot: the
 * whole section, and every function against the code range.
 * A part of sfu.h's implementation, included by sfu.h under
 * SFU_IMPLEMENTATION (one translation unit); not a header of its own. */
#ifndef SFU_VALIDATE_H
#define SFU_VALIDATE_H
#ifndef SFU_IMPLEMENTATION_DONE
#error "sfu_validate.h is a part of sfu.h: #define SFU_IMPLEMENTATION, then #include \"sfu.h\""
#endif

/* The check the Linux kernel's SFrame reader makes of every function start
 * against [text_start, text_end), and the ends too: a function that starts
 * in the code but runs past it is as wrong.  Decoding only reads the
 * table; the FDEs are visited in table order, so "starts inside the one
 * before" needs no sorting: two functions never share code (an identical
 * duplicate, as lld's --icf leaves, describes the same code and passes). */
SFU__FN int sfu_section_check_code(const sfu_section *sec, uint64_t code_lo, uint64_t code_hi, uint32_t *bad_fde)
{
	uint64_t prev_lo = 0, prev_hi = 0;
	uint32_t i;
	sfu_fde f;
	int err;

	if (!sec || code_lo >= code_hi)
		return SFU_E_ARG;
	for (i = 0; i < sec->num_fdes; i++) {
		if (bad_fde)
			*bad_fde = i;
		err = sfu_fde_get(sec, i, &f);
		if (err)
			return err;
		/* start in [lo, hi), end (start + size) at most hi: no overflow. */
		if (f.start < code_lo || f.start >= code_hi || f.size > code_hi - f.start)
			return SFU_E_CODE_RANGE;
		if (i > 0 && f.start >= prev_lo && f.start < prev_hi &&
		    !(f.start == prev_lo && f.start + f.size == prev_hi))
			return SFU_E_CODE_RANGE;
		prev_lo = f.start;
		prev_hi = f.start + f.size;
	}
	return SFU_OK;
}

SFU__FN int sfu_section_split_code(sfu_section *secs, size_t max, size_t *n, const void *data, size_t size,
                                   uint64_t addr, unsigned opts, uint64_t code_lo, uint64_t code_hi)
{
	size_t k;
	int err = sfu_section_split(secs, max, n, data, size, addr, opts);

	for (k = 0; err == SFU_OK && k < *n; k++)
		err = sfu_section_check_code(&secs[k], code_lo, code_hi, NULL);
	return err;
}

/* ---- whole-section validation ------------------------------------------------ */

static int sfu__validate(const sfu_section *s, uint32_t *bad_fde)
{
	uint32_t i, k, total = 0;
	uint64_t prev_start = 0, prev_size = 0;
	int err = SFU_OK;

	for (i = 0; i < s->num_fdes; i++) {
		sfu_fde fde;
		sfu_fre fre;
		sfu_row row;
		uint32_t off, prev = 0, budget;
		err = sfu__fde_get(s, i, &fde);
		if (err)
			break;
		if (fde.start + fde.size < fde.start) {
			err = SFU_E_FDE_WRAP; /* no code runs past 2^64 */
			break;
		}
		if ((s->flags & SFU_F_FDE_SORTED) && i) {
			/* Sorted, and (no producer emits otherwise) each function
			 * starts at or after the end of the one before. */
			if (fde.start < prev_start) {
				err = SFU_E_UNSORTED;
				break;
			}
			if (fde.start - prev_start < prev_size) {
				err = SFU_E_OVERLAP;
				break;
			}
		}
		prev_start = fde.start;
		prev_size = fde.size;
		/* The FREs of all FDEs must add up to the header's count, which
		 * init bounded by the FRE sub-section's size.  Scanning no more
		 * than what is left of that count keeps validation linear in the
		 * section size even when FDEs share one block of FREs. */
		budget = fde.num_fres < s->num_fres - total ? fde.num_fres : s->num_fres - total;
		off = fde.fre_off;
		for (k = 0; k < budget && !err; k++) {
			err = sfu__fre_get(s, &fde, off, &fre);
			if (err)
				break;
			if (k && fre.start < prev)
				err = SFU_E_FRE_ORDER;
			else if (fde.pctype == SFU_FDE_PCTYPE_INC && fre.start > fde.size)
				err = SFU_E_FRE_START;
			else
				err = sfu__row_from_fre(s, &fde, &fre, &row);
			prev = fre.start;
			off = fre.next;
		}
		if (!err && budget < fde.num_fres)
			err = SFU_E_FRE_COUNT;
		if (err)
			break;
		total += fde.num_fres;
	}
	if (!err && total != s->num_fres)
		err = SFU_E_FRE_COUNT;
	if (err && bad_fde)
		*bad_fde = i;
	return err;
}

SFU__FN int sfu_section_validate(const sfu_section *sec, uint32_t *bad_fde)
{
	if (!sec)
		return SFU_E_ARG;
	return sfu__validate(sec, bad_fde);
}

#endif /* SFU_VALIDATE_H */
