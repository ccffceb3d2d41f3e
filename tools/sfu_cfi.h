/* SPDX-License-Identifier: MIT */
/* sfu_cfi.h - DWARF call-frame information (.eh_frame, .debug_frame) for
 * sfu's host tools: CIE/FDE parsing and the CFA program interpreter.
 * Host code (uses libc), not part of the freestanding core.
 *
 * Reads DWARF 2-5 .debug_frame and GNU .eh_frame (LSB "Exception Frame"
 * and DWARF 5 section 6.4) in either byte order, 64-bit targets.  Every
 * byte is read through one bounds-checked cursor; a malformed entry is an
 * error with the offset and a reason, never a read past the section.
 *
 * Only the columns SFrame can describe are tracked: the CFA, the return
 * address column, the frame pointer and the stack pointer (the last only to
 * notice that it has a rule of its own).  The rules of every other
 * register are parsed and dropped.  aarch64's DW_CFA_AARCH64_negate_ra_state
 * toggles a "RA signed" bit that is part of the row.
 */
#ifndef SFU_CFI_H
#define SFU_CFI_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- cursor ---------------------------------------------------------------- */

struct cfi_cur {
	const uint8_t *p;
	uint64_t pos, end; /* read p[pos..end) */
	int big;
	int bad;           /* 1: a read ran past end; 2: a LEB128 number over 64 bits */
};

static inline uint64_t cfi_un(struct cfi_cur *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;
	if (c->bad)
		return 0;
	if (c->pos > c->end || n > c->end - c->pos) {
		c->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v = (v << 8) | c->p[c->pos + (c->big ? i : n - 1 - i)];
	c->pos += n;
	return v;
}

static inline uint64_t cfi_uleb(struct cfi_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		uint64_t b = cfi_un(c, 1);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		if ((shift == 63 && (b & 0x7e)) || (shift > 63 && (b & 0x7f)))
			c->bad = 2; /* does not fit in 64 bits */
		shift += 7;
		if (!(b & 0x80))
			return c->bad ? 0 : v;
		if (shift > 70) {
			c->bad = 2;
			return 0;
		}
	}
}

static inline int64_t cfi_sleb(struct cfi_cur *c)
{
	uint64_t v = 0, b = 0;
	unsigned shift = 0;
	do {
		b = cfi_un(c, 1);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		shift += 7;
		if (shift > 70) {
			c->bad = 2; /* does not fit in 64 bits */
			return 0;
		}
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* ---- entries ----------------------------------------------------------------- */

/* DW_EH_PE_* (LSB 10.5, "DWARF Exception Header Encoding"). */
#define CFI_PE_OMIT 0xff
#define CFI_PE_ABSPTR 0x00
#define CFI_PE_PCREL 0x10

struct cfi_cie {
	uint64_t off;           /* section offset of the CIE */
	uint64_t insns, insns_end; /* initial instructions */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_col;
	uint8_t version;
	uint8_t fde_enc;        /* 'R' (eh_frame), else absptr */
	uint8_t has_z;          /* augmentation data present */
	uint8_t signal;         /* 'S' */
	uint8_t bkey;           /* 'B': aarch64 return addresses signed with key B */
	char aug_bad;           /* first augmentation character we do not know, or 0 */
};

struct cfi_fde {
	uint64_t off;             /* section offset of the FDE */
	uint64_t pc_field;        /* section offset of its initial location field */
	uint64_t pc, range;       /* address range described */
	uint64_t insns, insns_end;
	struct cfi_cie cie;
};

/* What the caller knows about the section: bytes (relocated for ET_REL),
 * its address, kind and byte order. */
struct cfi_sec {
	const uint8_t *p;
	uint64_t size, addr;
	int big, eh; /* eh: .eh_frame rules, else .debug_frame */
};

/* Read a pointer in encoding enc at the cursor (pc-relative to the field's
 * address when DW_EH_PE_pcrel).  Returns 0, or -1 for an encoding that
 * cannot appear here (text/data/func relative, indirect, aligned). */
static inline int cfi_read_ptr(struct cfi_cur *c, const struct cfi_sec *s, uint8_t enc, uint64_t *out)
{
	uint64_t field = s->addr + c->pos, v;
	switch (enc & 0x0f) {
	case 0x00: v = cfi_un(c, 8); break;                          /* absptr (64-bit) */
	case 0x01: v = cfi_uleb(c); break;                           /* uleb128 */
	case 0x02: v = cfi_un(c, 2); break;                          /* udata2 */
	case 0x03: v = cfi_un(c, 4); break;                          /* udata4 */
	case 0x04: v = cfi_un(c, 8); break;                          /* udata8 */
	case 0x09: v = (uint64_t)cfi_sleb(c); break;                 /* sleb128 */
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)cfi_un(c, 2); break; /* sdata2 */
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)cfi_un(c, 4); break; /* sdata4 */
	case 0x0c: v = cfi_un(c, 8); break;                          /* sdata8 */
	default: return -1;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case CFI_PE_PCREL: v += field; break;
	default: return -1;
	}
	if (enc & 0x80) /* indirect */
		return -1;
	*out = v;
	return 0;
}

/* Size in bytes of a value in encoding enc without reading it (for
 * pc_range, whose application part is ignored); 0 for LEB128. */
static inline int cfi_ptr_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: return 8;
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x01: case 0x09: return 0;
	}
	return -1;
}

/* Length and id of the entry at *off: fills *body (first byte after the
 * length), *next (the following entry), *id, *id_size.  Returns 0, 1 at a
 * zero terminator (eh_frame: 4 bytes to skip), -1 if truncated. */
static inline int cfi_entry_head(const struct cfi_sec *s, uint64_t off, uint64_t *next, uint64_t *id,
				 uint64_t *id_pos, int *dwarf64)
{
	struct cfi_cur c = { s->p, off, s->size, s->big, 0 };
	uint64_t len = cfi_un(&c, 4);
	*dwarf64 = 0;
	if (c.bad)
		return -1;
	if (len == 0) {
		*next = c.pos;
		return 1;
	}
	if (len == 0xffffffffu) {
		len = cfi_un(&c, 8);
		*dwarf64 = 1;
	}
	if (c.bad || len > c.end - c.pos)
		return -1;
	*next = c.pos + len;
	*id_pos = c.pos;
	c.end = *next;
	*id = cfi_un(&c, *dwarf64 ? 8 : 4);
	return c.bad ? -1 : 0;
}

static inline int cfi_is_cie(const struct cfi_sec *s, uint64_t id, int dwarf64)
{
	if (s->eh)
		return id == 0;
	return dwarf64 ? id == ~(uint64_t)0 : id == 0xffffffffu;
}

/* Parse the CIE at off.  Returns 0 or -1 with why set. */
static inline int cfi_parse_cie(const struct cfi_sec *s, uint64_t off, struct cfi_cie *cie, const char **why)
{
	uint64_t next, id, idpos;
	int d64, r = cfi_entry_head(s, off, &next, &id, &idpos, &d64);
	struct cfi_cur c;
	const char *aug;
	size_t auglen, i;
	uint64_t augdata_end = 0;

	memset(cie, 0, sizeof *cie);
	cie->off = off;
	cie->fde_enc = CFI_PE_ABSPTR;
	if (r != 0) {
		*why = r < 0 ? "CIE runs past the end of the section" : "CIE pointer leads to a zero terminator";
		return -1;
	}
	if (!cfi_is_cie(s, id, d64)) {
		*why = "CIE pointer does not lead to a CIE";
		return -1;
	}
	c.p = s->p;
	c.pos = idpos + (d64 ? 8 : 4);
	c.end = next;
	c.big = s->big;
	c.bad = 0;
	cie->version = (uint8_t)cfi_un(&c, 1);
	if (c.bad || (cie->version != 1 && cie->version != 3 && cie->version != 4)) {
		*why = "unsupported CIE version";
		return -1;
	}
	aug = (const char *)s->p + c.pos;
	if (!memchr(aug, 0, c.end - c.pos)) {
		*why = "CIE augmentation string not terminated";
		return -1;
	}
	auglen = strlen(aug);
	c.pos += auglen + 1;
	if (cie->version == 4) {
		unsigned asz = (unsigned)cfi_un(&c, 1), ssz = (unsigned)cfi_un(&c, 1);
		if (!c.bad && (asz != 8 || ssz != 0)) {
			*why = "CIE address size is not 8 or has a segment selector";
			return -1;
		}
	}
	cie->code_align = cfi_uleb(&c);
	cie->data_align = cfi_sleb(&c);
	cie->ra_col = cie->version == 1 ? cfi_un(&c, 1) : cfi_uleb(&c);
	if (c.bad) {
		*why = "CIE truncated";
		return -1;
	}
	if (cie->code_align == 0) {
		*why = "CIE code alignment factor is 0";
		return -1;
	}
	for (i = 0; i < auglen; i++) {
		char a = aug[i];
		if (i == 0 && a == 'z') {
			uint64_t n = cfi_uleb(&c);
			if (c.bad || n > c.end - c.pos) {
				*why = "CIE augmentation data runs past the CIE";
				return -1;
			}
			cie->has_z = 1;
			augdata_end = c.pos + n;
			continue;
		}
		if (!cie->has_z) { /* "eh" and other pre-'z' augmentations */
			cie->aug_bad = a;
			break;
		}
		switch (a) {
		case 'R':
			cie->fde_enc = (uint8_t)cfi_un(&c, 1);
			break;
		case 'L':
			(void)cfi_un(&c, 1);
			break;
		case 'P': {
			uint8_t enc = (uint8_t)cfi_un(&c, 1);
			uint64_t ignored;
			if (cfi_read_ptr(&c, s, enc & 0x7f, &ignored) != 0) {
				*why = "CIE personality pointer has an unknown encoding";
				return -1;
			}
			break;
		}
		case 'S': cie->signal = 1; break;
		case 'B': cie->bkey = 1; break;
		case 'G': break; /* aarch64 MTE: tagged stack frames, no unwind effect */
		default:
			cie->aug_bad = a;
			break;
		}
		if (cie->aug_bad)
			break;
	}
	if (c.bad || (cie->has_z && c.pos > augdata_end)) {
		*why = "CIE augmentation data truncated";
		return -1;
	}
	if (cie->has_z)
		c.pos = augdata_end;
	cie->insns = c.pos;
	cie->insns_end = next;
	return 0;
}

/* Parse the FDE whose header cfi_entry_head read (id, idpos, next).
 * Returns 0 or -1 with why set. */
static inline int cfi_parse_fde(const struct cfi_sec *s, uint64_t off, uint64_t id, uint64_t idpos, uint64_t next,
				int d64, struct cfi_fde *fde, const char **why)
{
	struct cfi_cur c = { s->p, idpos + (d64 ? 8 : 4), next, s->big, 0 };
	uint64_t cie_off, range;
	int sz;

	fde->off = off;
	/* eh_frame: CIE pointer is relative to the field; debug_frame: offset
	 * from the start of the section. */
	if (s->eh) {
		if (id > idpos) {
			*why = "FDE's CIE pointer points before the section";
			return -1;
		}
		cie_off = idpos - id;
	} else {
		cie_off = id;
	}
	if (cie_off >= s->size) {
		*why = "FDE's CIE pointer points past the section";
		return -1;
	}
	if (cfi_parse_cie(s, cie_off, &fde->cie, why) != 0)
		return -1;
	fde->pc_field = c.pos;
	if (cfi_read_ptr(&c, s, fde->cie.fde_enc, &fde->pc) != 0) {
		*why = "FDE initial location has an unsupported encoding";
		return -1;
	}
	sz = cfi_ptr_size(fde->cie.fde_enc);
	if (sz < 0) {
		*why = "FDE address range has an unsupported encoding";
		return -1;
	}
	range = sz ? cfi_un(&c, (unsigned)sz) : ((fde->cie.fde_enc & 0x0f) == 0x09 ? (uint64_t)cfi_sleb(&c) : cfi_uleb(&c));
	fde->range = range;
	if (fde->cie.has_z) {
		uint64_t n = cfi_uleb(&c);
		if (!c.bad && n > c.end - c.pos) {
			*why = "FDE augmentation data runs past the FDE";
			return -1;
		}
		c.pos += n;
	}
	if (c.bad) {
		*why = "FDE truncated";
		return -1;
	}
	fde->insns = c.pos;
	fde->insns_end = next;
	return 0;
}

/* ---- rules and rows ----------------------------------------------------------- */

enum cfi_rule_kind {
	CFI_UNSPEC = 0, /* no rule given: same value (DWARF 6.4.1) */
	CFI_UNDEF,
	CFI_SAME,
	CFI_OFFSET,     /* saved at CFA + off */
	CFI_VAL_OFFSET, /* value = CFA + off */
	CFI_REGISTER,   /* value in register reg */
	CFI_EXPR,       /* saved at the address the expression computes */
	CFI_VAL_EXPR    /* value = the expression */
};

struct cfi_rule {
	uint8_t kind;
	uint64_t reg;
	int64_t off;
	uint64_t expr, expr_len; /* section offset of the expression block */
};

enum cfi_cfa_kind { CFI_CFA_NONE = 0, CFI_CFA_REG, CFI_CFA_EXPR };

struct cfi_state {
	uint8_t cfa_kind;
	uint64_t cfa_reg;
	int64_t cfa_off;
	uint64_t cfa_expr, cfa_expr_len;
	struct cfi_rule ra, fp, sp;
	uint8_t ra_signed; /* aarch64: DW_CFA_AARCH64_negate_ra_state toggles */
};

/* One row: state in force from loc (inclusive) up to the next row. */
struct cfi_row {
	uint64_t loc;
	struct cfi_state st;
};

/* The registers an architecture's rows track. */
struct cfi_arch {
	uint64_t fp, sp;
	int aarch64; /* DW_CFA_AARCH64_negate_ra_state is known */
};

#define CFI_STACK_MAX 64

/* Called for each row; return nonzero to stop. */
typedef int (*cfi_row_fn)(void *ctx, const struct cfi_row *row);

static inline struct cfi_rule *cfi_col(struct cfi_state *st, const struct cfi_arch *a, uint64_t ra_col, uint64_t reg)
{
	if (reg == ra_col)
		return &st->ra;
	if (reg == a->fp)
		return &st->fp;
	if (reg == a->sp)
		return &st->sp;
	return NULL;
}

/* Run the CFA program [pos, end) on *st, emitting rows for [pc, pc+range).
 * init: the state after the CIE's initial instructions (for DW_CFA_restore),
 * NULL while running those.  Returns 0, or -1 with why and *bad_off set. */
static inline int cfi_run(const struct cfi_sec *s, const struct cfi_cie *cie, const struct cfi_arch *a,
			  uint64_t pos, uint64_t end, struct cfi_state *st, const struct cfi_state *init,
			  uint64_t *loc, uint64_t pc_end, cfi_row_fn emit, void *ctx, const char **why,
			  uint64_t *bad_off, char *msg, size_t msgn)
{
	struct cfi_cur c = { s->p, pos, end, s->big, 0 };
	struct cfi_state stack[CFI_STACK_MAX];
	unsigned depth = 0;

	while (c.pos < c.end) {
		uint64_t op_off = c.pos, reg, adv = 0, newloc;
		uint8_t op = (uint8_t)cfi_un(&c, 1);
		struct cfi_rule *r = NULL, tmp;
		int is_adv = 0;

		*bad_off = op_off;
		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			adv = op & 0x3f;
			is_adv = 1;
			break;
		case 2: /* DW_CFA_offset */
			reg = op & 0x3f;
			tmp.off = (int64_t)cfi_uleb(&c) * cie->data_align;
			if ((r = cfi_col(st, a, cie->ra_col, reg))) {
				r->kind = CFI_OFFSET;
				r->off = tmp.off;
			}
			break;
		case 3: /* DW_CFA_restore */
			reg = op & 0x3f;
			if (!init) {
				*why = "DW_CFA_restore in a CIE";
				return -1;
			}
			if ((r = cfi_col(st, a, cie->ra_col, reg)))
				*r = *cfi_col((struct cfi_state *)init, a, cie->ra_col, reg);
			break;
		default:
			switch (op) {
			case 0x00: /* DW_CFA_nop */
				break;
			case 0x01: { /* DW_CFA_set_loc */
				uint64_t v;
				if (cfi_read_ptr(&c, s, cie->fde_enc, &v) != 0) {
					*why = "DW_CFA_set_loc with an unsupported encoding";
					return -1;
				}
				if (!c.bad && v < *loc) {
					*why = "DW_CFA_set_loc moves backwards";
					return -1;
				}
				adv = (v - *loc) / cie->code_align; /* exact: */
				if (!c.bad && adv * cie->code_align != v - *loc) {
					*why = "DW_CFA_set_loc not a multiple of the code alignment";
					return -1;
				}
				is_adv = 1;
				break;
			}
			case 0x02: adv = cfi_un(&c, 1); is_adv = 1; break; /* advance_loc1 */
			case 0x03: adv = cfi_un(&c, 2); is_adv = 1; break; /* advance_loc2 */
			case 0x04: adv = cfi_un(&c, 4); is_adv = 1; break; /* advance_loc4 */
			case 0x05: /* DW_CFA_offset_extended */
			case 0x11: /* DW_CFA_offset_extended_sf */
			case 0x14: /* DW_CFA_val_offset */
			case 0x15: /* DW_CFA_val_offset_sf */
			case 0x2f: /* DW_CFA_GNU_negative_offset_extended */
				reg = cfi_uleb(&c);
				tmp.off = (op == 0x11 || op == 0x15) ? cfi_sleb(&c) * cie->data_align
								     : (int64_t)cfi_uleb(&c) * cie->data_align;
				if (op == 0x2f)
					tmp.off = -tmp.off;
				if ((r = cfi_col(st, a, cie->ra_col, reg))) {
					r->kind = (op == 0x14 || op == 0x15) ? CFI_VAL_OFFSET : CFI_OFFSET;
					r->off = tmp.off;
				}
				break;
			case 0x06: /* DW_CFA_restore_extended */
				reg = cfi_uleb(&c);
				if (!init) {
					*why = "DW_CFA_restore_extended in a CIE";
					return -1;
				}
				if ((r = cfi_col(st, a, cie->ra_col, reg)))
					*r = *cfi_col((struct cfi_state *)init, a, cie->ra_col, reg);
				break;
			case 0x07: /* DW_CFA_undefined */
			case 0x08: /* DW_CFA_same_value */
				reg = cfi_uleb(&c);
				if ((r = cfi_col(st, a, cie->ra_col, reg)))
					r->kind = op == 0x07 ? CFI_UNDEF : CFI_SAME;
				break;
			case 0x09: /* DW_CFA_register */
				reg = cfi_uleb(&c);
				tmp.reg = cfi_uleb(&c);
				if ((r = cfi_col(st, a, cie->ra_col, reg))) {
					r->kind = CFI_REGISTER;
					r->reg = tmp.reg;
				}
				break;
			case 0x0a: /* DW_CFA_remember_state */
				if (depth == CFI_STACK_MAX) {
					*why = "DW_CFA_remember_state nested too deep";
					return -1;
				}
				stack[depth++] = *st;
				break;
			case 0x0b: /* DW_CFA_restore_state */
				if (depth == 0) {
					*why = "DW_CFA_restore_state without DW_CFA_remember_state";
					return -1;
				}
				/* The CFA rule is part of the remembered state, as
				 * in libgcc and LLVM's libunwind. */
				*st = stack[--depth];
				break;
			case 0x0c: /* DW_CFA_def_cfa */
			case 0x12: /* DW_CFA_def_cfa_sf */
				st->cfa_kind = CFI_CFA_REG;
				st->cfa_reg = cfi_uleb(&c);
				st->cfa_off = op == 0x12 ? cfi_sleb(&c) * cie->data_align : (int64_t)cfi_uleb(&c);
				break;
			case 0x0d: /* DW_CFA_def_cfa_register */
				reg = cfi_uleb(&c);
				if (st->cfa_kind == CFI_CFA_EXPR) { /* DWARF 5 6.4.2.2: only after a register rule */
					*why = "DW_CFA_def_cfa_register after a CFA expression";
					return -1;
				}
				if (st->cfa_kind == CFI_CFA_NONE)
					st->cfa_off = 0;
				st->cfa_kind = CFI_CFA_REG;
				st->cfa_reg = reg;
				break;
			case 0x0e: /* DW_CFA_def_cfa_offset */
			case 0x13: /* DW_CFA_def_cfa_offset_sf */
				tmp.off = op == 0x13 ? cfi_sleb(&c) * cie->data_align : (int64_t)cfi_uleb(&c);
				if (st->cfa_kind != CFI_CFA_REG) {
					*why = "DW_CFA_def_cfa_offset without a register CFA rule";
					return -1;
				}
				st->cfa_off = tmp.off;
				break;
			case 0x0f: /* DW_CFA_def_cfa_expression */
				st->cfa_expr_len = cfi_uleb(&c);
				st->cfa_expr = c.pos;
				if (!c.bad && st->cfa_expr_len > c.end - c.pos) {
					*why = "DW_CFA_def_cfa_expression runs past the entry";
					return -1;
				}
				c.pos += st->cfa_expr_len;
				st->cfa_kind = CFI_CFA_EXPR;
				break;
			case 0x10: /* DW_CFA_expression */
			case 0x16: /* DW_CFA_val_expression */
				reg = cfi_uleb(&c);
				tmp.expr_len = cfi_uleb(&c);
				tmp.expr = c.pos;
				if (!c.bad && tmp.expr_len > c.end - c.pos) {
					*why = "DW_CFA_expression runs past the entry";
					return -1;
				}
				c.pos += tmp.expr_len;
				if ((r = cfi_col(st, a, cie->ra_col, reg))) {
					r->kind = op == 0x10 ? CFI_EXPR : CFI_VAL_EXPR;
					r->expr = tmp.expr;
					r->expr_len = tmp.expr_len;
				}
				break;
			case 0x2d: /* DW_CFA_AARCH64_negate_ra_state (GNU_window_save elsewhere) */
				if (!a->aarch64) {
					snprintf(msg, msgn, "unknown CFA opcode 0x2d (DW_CFA_GNU_window_save, SPARC only)");
					*why = msg;
					return -1;
				}
				st->ra_signed ^= 1;
				break;
			case 0x2e: /* DW_CFA_GNU_args_size: for landing pads only */
				(void)cfi_uleb(&c);
				break;
			default:
				snprintf(msg, msgn, "unknown CFA opcode 0x%02x", op);
				*why = msg;
				return -1;
			}
		}
		if (c.bad) {
			*why = c.bad == 2 ? "LEB128 operand does not fit in 64 bits"
					  : "CFA instruction runs past the end of its entry";
			return -1;
		}
		if (!is_adv)
			continue;
		if (!init) {
			*why = "advance instruction in a CIE";
			return -1;
		}
		if (adv > (pc_end - *loc) / cie->code_align)
			newloc = pc_end; /* rows past the end describe nothing */
		else
			newloc = *loc + adv * cie->code_align;
		if (newloc > *loc && *loc < pc_end) {
			struct cfi_row row;
			row.loc = *loc;
			row.st = *st;
			if (emit(ctx, &row))
				return 1;
		}
		*loc = newloc;
	}
	return 0;
}

#endif /* SFU_CFI_H */
