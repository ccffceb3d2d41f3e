/* SPDX-License-Identifier: MIT */
/* sfu_cfi.h - DWARF call-frame information for sfu-gen, on elfutils' libdw.
 * Host code (uses libc, libelf, libdw), not part of the freestanding core.
 *
 * libdw does the DWARF: dwarf_next_cfi walks the CIEs and FDEs of .eh_frame
 * and .debug_frame, dwarf_cfi_addrframe runs the CFA programs, and the
 * frame accessors (dwarf_frame_info, dwarf_frame_cfa, dwarf_frame_register)
 * give every row's rules.  Written here is only what libdw's public API
 * does not give:
 *
 *   - the start and size of an FDE: dwarf_next_cfi hands over the encoded
 *     fields, and decoding them needs the CIE's 'R' pointer encoding from
 *     its augmentation data (LSB 5.0 "Exception Frames", 10.6.1.1), which
 *     libdw keeps to itself (cfi_fde_decode);
 *   - the 'B' augmentation (aarch64 return addresses signed with key B),
 *     and augmentations nobody defined, from the string (cfi_cie_decode);
 *   - DW_CFA_AARCH64_negate_ra_state, which libdw 0.188 parses and ignores
 *     ("not handled yet" in its cfi.c): whether the RA is signed is part of
 *     an SFrame row (V3 spec 2.4.1, the mangled-RA bit), so cfi_scan follows
 *     the toggles, with DW_CFA_remember_state/restore_state, itself;
 *   - a reason on bad input: libdw says "invalid CFI section" for any
 *     malformed program; cfi_scan names the opcode and the byte.
 *
 * cfi_scan walks the instructions only for their lengths and locations;
 * the rules are libdw's.  sfu-gen checks on every FDE that libdw's rows
 * start where cfi_scan's locations are and end where cfi_fde_decode says
 * the FDE ends, so the two cannot drift apart unnoticed.
 */
#ifndef SFU_CFI_H
#define SFU_CFI_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cursor over CFI bytes ------------------------------------------------ */

struct cfi_cur {
	const uint8_t *p, *end;
	int big;
	int bad; /* 1: a read ran past end; 2: a LEB128 number over 64 bits */
};

static inline uint64_t cfi_un(struct cfi_cur *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = c->bad ? c->bad : 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v = (v << 8) | c->p[c->big ? i : n - 1 - i];
	c->p += n;
	return v;
}

/* LEB128 (DWARF 5 7.6); sign: sign-extend. */
static inline uint64_t cfi_leb(struct cfi_cur *c, int sign)
{
	uint64_t v = 0, b;
	unsigned shift = 0;
	do {
		b = cfi_un(c, 1);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		if (!sign && ((shift == 63 && (b & 0x7e)) || (shift > 63 && (b & 0x7f))))
			c->bad = 2;
		shift += 7;
		if (shift > 70 && (b & 0x80))
			c->bad = 2;
	} while ((b & 0x80) && !c->bad);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return c->bad ? 0 : v;
}

/* A pointer in DW_EH_PE encoding enc (LSB 5.0 10.5.1), PC-relative to
 * field_addr when DW_EH_PE_pcrel.  Returns 0, or -1 for an encoding that
 * cannot appear here (text/data/func relative, indirect). */
static inline int cfi_read_ptr(struct cfi_cur *c, uint8_t enc, uint64_t field_addr, uint64_t *out)
{
	uint64_t v;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: v = cfi_un(c, 8); break;
	case DW_EH_PE_uleb128: v = cfi_leb(c, 0); break;
	case DW_EH_PE_sleb128: v = cfi_leb(c, 1); break;
	case DW_EH_PE_udata2: v = cfi_un(c, 2); break;
	case DW_EH_PE_udata4: v = cfi_un(c, 4); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)cfi_un(c, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)cfi_un(c, 4); break;
	default: return -1;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += field_addr;
	else if ((enc & 0x70) != DW_EH_PE_absptr || (enc & DW_EH_PE_indirect))
		return -1;
	*out = v;
	return 0;
}

/* ---- entries ------------------------------------------------------------------ */

/* One CFI section: its bytes (relocated for ET_REL) as libdw reads them,
 * their address, and libdw's handle on them. */
struct cfi_sec {
	Elf_Data *data;
	const unsigned char *ident; /* e_ident, for dwarf_next_cfi */
	uint64_t addr;
	int big, eh;                /* eh: .eh_frame rules, else .debug_frame */
	Dwarf_CFI *cfi;
};

struct cfi_cie {
	uint64_t off;               /* section offset */
	const uint8_t *insns, *insns_end;
	uint64_t code_align, ra_col;
	uint8_t fde_enc;            /* 'R' (eh_frame), else absptr */
	uint8_t has_z, signal, bkey;
	char aug_bad;               /* first augmentation character nobody defined, or 0 */
};

struct cfi_fde {
	uint64_t off, pc_field;     /* section offsets: the FDE, its initial location */
	uint64_t pc, range;
	const uint8_t *insns, *insns_end;
	struct cfi_cie cie;
};

static inline uint64_t cfi_off(const struct cfi_sec *s, const uint8_t *p)
{
	return (uint64_t)(p - (const uint8_t *)s->data->d_buf);
}

/* The CIE at off, through dwarf_next_cfi, plus what libdw does not decode
 * (its augmentation: LSB 5.0 10.6.1.1).  Returns 0, or -1 with why. */
static inline int cfi_cie_decode(const struct cfi_sec *s, uint64_t off, struct cfi_cie *cie, const char **why)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	struct cfi_cur c;
	const char *a;
	memset(cie, 0, sizeof *cie);
	cie->off = off;
	if (dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e) != 0 || !dwarf_cfi_cie_p(&e)) {
		*why = "the FDE's CIE pointer does not lead to a CIE libdw can read";
		return -1;
	}
	cie->insns = e.cie.initial_instructions;
	cie->insns_end = e.cie.initial_instructions_end;
	cie->code_align = e.cie.code_alignment_factor;
	if (cie->code_align == 0) {
		*why = "CIE code alignment factor is 0";
		return -1;
	}
	cie->ra_col = e.cie.return_address_register;
	cie->has_z = e.cie.augmentation[0] == 'z';
	c.p = e.cie.augmentation_data;
	c.end = c.p + (c.p ? e.cie.augmentation_data_size : 0);
	c.big = s->big;
	c.bad = 0;
	for (a = e.cie.augmentation + cie->has_z; *a && !cie->aug_bad; a++) {
		uint64_t ignored;
		if (!cie->has_z) /* "eh" and other pre-'z' augmentations */
			cie->aug_bad = *a;
		else if (*a == 'R')
			cie->fde_enc = (uint8_t)cfi_un(&c, 1);
		else if (*a == 'L')
			(void)cfi_un(&c, 1);
		else if (*a == 'P' && cfi_read_ptr(&c, (uint8_t)(cfi_un(&c, 1) & 0x7f), 0, &ignored) != 0)
			cie->aug_bad = 'P';
		else if (*a == 'S')
			cie->signal = 1;
		else if (*a == 'B')
			cie->bkey = 1;
		else if (*a != 'P' && *a != 'G') /* 'G': aarch64 MTE tagged frames, no unwind effect */
			cie->aug_bad = *a;
	}
	if (c.bad) {
		*why = "CIE augmentation data truncated";
		return -1;
	}
	return 0;
}

/* The FDE entry e (from dwarf_next_cfi, at off): its CIE, start, size and
 * instructions.  Returns 0, or -1 with why. */
static inline int cfi_fde_decode(const struct cfi_sec *s, uint64_t off, const Dwarf_CFI_Entry *e, struct cfi_fde *fde,
				 const char **why)
{
	struct cfi_cur c = { e->fde.start, e->fde.end, s->big, 0 };
	uint8_t enc;
	fde->off = off;
	if (cfi_cie_decode(s, e->fde.CIE_pointer, &fde->cie, why) != 0)
		return -1;
	enc = fde->cie.fde_enc;
	fde->pc_field = cfi_off(s, c.p);
	if (cfi_read_ptr(&c, enc, s->addr + fde->pc_field, &fde->pc) != 0 ||
	    cfi_read_ptr(&c, enc & 0x0f, 0, &fde->range) != 0) {
		*why = "FDE address has an unsupported encoding";
		return -1;
	}
	if (fde->cie.has_z) {
		uint64_t n = cfi_leb(&c, 0);
		if (!c.bad && n > (uint64_t)(c.end - c.p)) {
			*why = "FDE augmentation data runs past the FDE";
			return -1;
		}
		c.p += c.bad ? 0 : n;
	}
	if (c.bad) {
		*why = "FDE truncated";
		return -1;
	}
	fde->insns = c.p;
	fde->insns_end = e->fde.end;
	return 0;
}

/* ---- the CFA program, for lengths, locations and the RA sign state -------- */

/* Operands of the DW_CFA_* opcodes below 0x40 (DWARF 5 6.4.2; GNU 0x2e,
 * 0x2f): u uleb128, s sleb128, b block (uleb128 length), 1/2/4 fixed,
 * p a pointer in the CIE's encoding; "-": no operands; NULL: unknown. */
static inline const char *cfi_operands(uint8_t op)
{
	static const char *const ops[0x30] = {
		[DW_CFA_nop] = "-", [DW_CFA_set_loc] = "p", [DW_CFA_advance_loc1] = "1",
		[DW_CFA_advance_loc2] = "2", [DW_CFA_advance_loc4] = "4", [DW_CFA_offset_extended] = "uu",
		[DW_CFA_restore_extended] = "u", [DW_CFA_undefined] = "u", [DW_CFA_same_value] = "u",
		[DW_CFA_register] = "uu", [DW_CFA_remember_state] = "-", [DW_CFA_restore_state] = "-",
		[DW_CFA_def_cfa] = "uu", [DW_CFA_def_cfa_register] = "u", [DW_CFA_def_cfa_offset] = "u",
		[DW_CFA_def_cfa_expression] = "b", [DW_CFA_expression] = "ub", [DW_CFA_offset_extended_sf] = "us",
		[DW_CFA_def_cfa_sf] = "us", [DW_CFA_def_cfa_offset_sf] = "s", [DW_CFA_val_offset] = "uu",
		[DW_CFA_val_offset_sf] = "us", [DW_CFA_val_expression] = "ub", [0x2d] = "-",
		[DW_CFA_GNU_args_size] = "u", [DW_CFA_GNU_negative_offset_extended] = "uu",
	};
	return op < 0x30 ? ops[op] : NULL;
}

#define CFI_STACK_MAX 64

/* Where a location starts and whether the RA is signed from there on. */
struct cfi_mark {
	uint64_t loc;
	uint8_t ra_signed;
};

/* What cfi_scan keeps: the marks in location order, the stack of
 * remembered sign states. */
struct cfi_scan_state {
	struct cfi_mark *marks;
	size_t n, cap;
	uint64_t loc, end;
	uint8_t ra_signed;
	uint8_t stack[CFI_STACK_MAX];
	unsigned depth;
	int aarch64;
};

/* Skip the operands of op (cfi_operands); the advance, if any, in *adv.
 * Returns 0, or -1 with why (msg holds it). */
static inline int cfi_skip_operands(struct cfi_cur *c, const struct cfi_sec *s, const struct cfi_cie *cie,
				    struct cfi_scan_state *st, uint8_t op, uint64_t *adv, const char **why,
				    char *msg, size_t msgn)
{
	const char *k = cfi_operands(op);
	if (!k || (op == 0x2d && !st->aarch64)) {
		snprintf(msg, msgn, "unknown CFA opcode 0x%02x%s", op,
			 op == 0x2d ? " (DW_CFA_GNU_window_save, SPARC only)" : "");
		*why = msg;
		return -1;
	}
	for (; *k && *k != '-'; k++) {
		uint64_t v = 0;
		if (*k == 'u' || *k == 'b')
			v = cfi_leb(c, 0);
		else if (*k == 's')
			(void)cfi_leb(c, 1);
		else if (*k == 'p' && cfi_read_ptr(c, cie->fde_enc, s->addr + cfi_off(s, c->p), &v) != 0) {
			*why = "DW_CFA_set_loc with an unsupported encoding";
			return -1;
		} else if (*k >= '1' && *k <= '4')
			v = cfi_un(c, (unsigned)(*k - '0'));
		if (*k == 'b' && !c->bad && v > (uint64_t)(c->end - c->p)) {
			*why = op == DW_CFA_def_cfa_expression ? "DW_CFA_def_cfa_expression runs past the entry"
							       : "DW_CFA_expression runs past the entry";
			return -1;
		}
		if (*k == 'b' && !c->bad)
			c->p += v;
		if (*k == 'p' && !c->bad && v < st->loc) {
			*why = "DW_CFA_set_loc moves backwards";
			return -1;
		}
		*adv = *k == 'p' ? (v - st->loc) / cie->code_align : v;
	}
	return 0;
}

/* Record the state in force from st->loc, then advance by adv code units
 * (rows past the end describe nothing). */
static inline int cfi_scan_advance(struct cfi_scan_state *st, const struct cfi_cie *cie, uint64_t adv)
{
	if (st->n == st->cap) {
		void *p = realloc(st->marks, (st->cap = st->cap ? 2 * st->cap : 16) * sizeof *st->marks);
		if (!p)
			return -1;
		st->marks = p;
	}
	if (st->n && st->marks[st->n - 1].loc == st->loc)
		st->n--; /* an advance by 0: the later state wins */
	st->marks[st->n].loc = st->loc;
	st->marks[st->n++].ra_signed = st->ra_signed;
	if (adv > (st->end - st->loc) / cie->code_align)
		st->loc = st->end;
	else
		st->loc += adv * cie->code_align;
	return 0;
}

/* Walk the CFA program [p, end) (a CIE's initial instructions when fde is
 * 0, else an FDE's).  Returns 0, or -1 with why and *bad_off (section
 * offset of the instruction). */
static inline int cfi_scan(const struct cfi_sec *s, const struct cfi_cie *cie, const uint8_t *p, const uint8_t *end,
			   int fde, struct cfi_scan_state *st, const char **why, uint64_t *bad_off, char *msg,
			   size_t msgn)
{
	struct cfi_cur c = { p, end, s->big, 0 };
	while (c.p < c.end) {
		uint8_t op;
		uint64_t adv = 0;
		int is_adv;
		*bad_off = cfi_off(s, c.p);
		op = (uint8_t)cfi_un(&c, 1);
		is_adv = (op >> 6) == 1 || (op >= DW_CFA_set_loc && op <= DW_CFA_advance_loc4);
		if ((op >> 6) == 1)
			adv = op & 0x3f;
		else if ((op >> 6) == 2)
			(void)cfi_leb(&c, 0); /* DW_CFA_offset */
		else if ((op >> 6) == 0 && cfi_skip_operands(&c, s, cie, st, op, &adv, why, msg, msgn) != 0)
			return -1;
		if (c.bad) {
			*why = c.bad == 2 ? "LEB128 operand does not fit in 64 bits"
					  : "CFA instruction runs past the end of its entry";
			return -1;
		}
		if (!fde && (is_adv || (op >> 6) == 3 || op == DW_CFA_restore_extended)) {
			*why = is_adv ? "advance instruction in a CIE" : "DW_CFA_restore in a CIE";
			return -1;
		}
		if (op == DW_CFA_remember_state) {
			if (st->depth == CFI_STACK_MAX) {
				*why = "DW_CFA_remember_state nested too deep";
				return -1;
			}
			st->stack[st->depth++] = st->ra_signed;
		} else if (op == DW_CFA_restore_state) {
			if (st->depth == 0) {
				*why = "DW_CFA_restore_state without DW_CFA_remember_state";
				return -1;
			}
			st->ra_signed = st->stack[--st->depth];
		} else if (op == 0x2d) { /* DW_CFA_AARCH64_negate_ra_state */
			st->ra_signed ^= 1;
		}
		if (is_adv && cfi_scan_advance(st, cie, adv) != 0) {
			*why = "out of memory";
			return -1;
		}
	}
	return 0;
}

/* The RA sign state in force at loc, and whether a location starts there
 * (1) or not (0). */
static inline int cfi_scan_at(const struct cfi_scan_state *st, uint64_t loc, uint8_t *ra_signed)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->marks[mid].loc <= loc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ra_signed = lo ? st->marks[lo - 1].ra_signed : 0;
	return lo && st->marks[lo - 1].loc == loc;
}

#endif /* SFU_CFI_H */
