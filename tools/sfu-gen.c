/* SPDX-License-Identifier: MIT */
/* sfu-gen - generate an SFrame section from an ELF file's DWARF CFI.
 *
 * usage: sfu-gen [--sframe-version 2|3] [--from eh|debug|both] [-q]
 *                (-o OUT.elf | --raw OUT.bin --addr ADDR) FILE
 *
 * FILE is a linked image (ET_EXEC, ET_DYN) or a relocatable object (ET_REL),
 * x86_64 or aarch64 (either byte order), with .eh_frame and/or
 * .debug_frame.  The CFA programs are interpreted here (tools/sfu_cfi.h)
 * and every row is translated into an SFrame row when SFrame can say the
 * same thing, exactly:
 *
 *   - DEFAULT FDEs where CFA = SP/FP + offset and RA/FP are saved at
 *     CFA + offset or not saved (SFrame V3 spec 3.1);
 *   - V3 FLEX FDEs (spec 3.2) for what only FLEX can say: a CFA based on
 *     another register (DRAP), a dereferenced CFA (*(rbp - 8)), an RA or FP
 *     in a register or at register + offset, an RA not at the ABI's fixed
 *     offset;
 *   - rows with no data words where the RA is undefined (outermost frames,
 *     V2 erratum 2);
 *   - the V3 signal bit for 'S' CIEs; the aarch64 B-key bit for 'B' CIEs;
 *     the mangled-RA bit while DW_CFA_AARCH64_negate_ra_state is in effect;
 *   - PC-mask FDEs (spec 2.3.3.1) for the x86_64 PLT expression
 *     CFA = rsp + A + (((rip & (M-1)) >= K) << 3) that GNU ld writes.
 *
 * A function with any row SFrame cannot express (other CFA expressions; in
 * V2 anything that needs FLEX, or a signal frame) is left out and named on
 * stderr with the reason; never approximated.  The section is sorted by
 * function start, with PC-relative start offsets
 * (SFRAME_F_FDE_FUNC_START_PCREL, V2 erratum 1 / V3 spec 2.1.3).
 *
 * -o OUT.elf: a copy of FILE with the generated .sframe.  Objects get
 * .sframe plus .rela.sframe (the start offsets carry PC-relative
 * relocations against the symbols the CFI's own relocations use), ready
 * for GNU ld to merge.  Images: the new section replaces an existing
 * .sframe in place when it fits (PT_GNU_SFRAME follows); otherwise it is
 * added as a non-loaded section at --addr (default: past the image), the
 * old one renamed .sframe.old and PT_GNU_SFRAME dropped.
 * --raw OUT.bin --addr ADDR: just the section bytes, for a section that
 * will sit at run-time address ADDR (linked images only).
 *
 * Exit status: 0 on success (omitted functions included), 1 on bad input
 * (no CFI, corrupt or truncated CFI, unknown CFA opcode, wrong machine),
 * 2 on usage or I/O errors.  Nothing is written on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sfu_format.h"
#include "sfu_cfi.h"
#include "sfu_elf.h"
#include "sfu_tool.h"

static const char help[] =
	"usage: sfu-gen [--sframe-version 2|3] [--from eh|debug|both] [-q]\n"
	"               (-o OUT.elf | --raw OUT.bin --addr ADDR) FILE\n"
	"Make an SFrame section from the DWARF CFI (.eh_frame, .debug_frame) of an x86_64 or\n"
	"aarch64 ELF file, row for row; a function SFrame cannot describe is left out and named.\n"
	"  -o OUT.elf           a copy of FILE with the section (objects: .sframe + .rela.sframe)\n"
	"  --raw OUT.bin        only the section's bytes, for a section at run-time address --addr\n"
	"  --addr ADDR          where the section will be (--raw), or is added (-o, images)\n"
	"  --sframe-version N   SFrame version 3 (default) or 2\n"
	"  --from eh|debug|both which CFI to read (default both)\n"
	"  -q                   do not name the functions left out\n"
	"  --help, --version\n"
	"Exit status: 0 written, 1 bad input (no or corrupt CFI, another machine), 2 usage or I/O\n"
	"error; nothing is written on failure.\n";

#define EM_X86_64 62
#define EM_AARCH64 183
#define ET_REL 1
#define SHT_RELA 4
#define SHT_GNU_SFRAME 0x6ffffff4u
#define PT_GNU_SFRAME 0x6474e554u
#define SHF_ALLOC 2u
#define SHF_EXECINSTR 4u

static const char *prog = "sfu-gen";
static const char *in_path;

static void die(int code, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: %s: ", prog, in_path ? in_path : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die(2, "out of memory");
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

#define GROW(arr, n, cap)                                                        \
	do {                                                                     \
		if ((n) == (cap)) {                                              \
			(cap) = (cap) ? (cap) * 2 : 16;                          \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));          \
		}                                                                \
	} while (0)

/* ---- the input ------------------------------------------------------------------ */

struct input {
	struct elf e;
	unsigned nsec;
	uint64_t *bases;  /* sfu_elf_layout: section addresses (ET_REL: made up) */
	int rel;          /* ET_REL */
	uint64_t fp, sp, ra; /* DWARF numbers */
	struct cfi_arch arch;
	struct sfu_elf_syms syms; /* for names in messages */
};

/* ---- functions: CFI rows, then SFrame rows ----------------------------------- */

/* One recovery rule in FLEX terms (spec 3.2): value = (deref ? *(base+off) :
 * base+off), base = reg_p ? register reg : CFA.  present == 0: no rule
 * (RA: the ABI's default; FP: not saved). */
struct ent {
	uint8_t present, reg_p, deref;
	uint64_t reg;
	int64_t off;
};

struct srow {
	uint32_t start;    /* offset from the function start */
	uint8_t undef;     /* RA undefined: outermost frame */
	uint8_t mangled;   /* aarch64 RA signed */
	uint8_t plt;       /* x86_64 PLT expression: CFA = sp + cfa.off (+8 from K on) */
	uint8_t plt_m, plt_k;
	struct ent cfa, ra, fp;
};

struct fn {
	uint64_t pc, size;
	int from_debug;
	int signal, bkey;
	/* ET_REL: the relocation the start offset needs (symbol, addend) */
	uint64_t rsym;
	int64_t raddend;
	const char *omit;  /* reason, or NULL */
	char *omit_own;    /* omit, when it was made up for this function */
	struct srow *rows;
	size_t nrows;
	uint8_t flex;      /* V3 FLEX FDE */
	uint8_t mask;      /* PC-mask FDE */
	uint8_t rep;       /* its repeat size */
};

struct gen {
	struct input *in;
	int version;
	struct fn *fns;
	size_t nfns, capfns;
	uint64_t zero_len;
};

/* ---- rows: DWARF rule -> SFrame entity ------------------------------------------ */

/* A one-operation address expression: DW_OP_breg<r> off or DW_OP_bregx r
 * off, optionally followed by DW_OP_deref (if *deref is non-NULL).  Returns
 * 1 on a match. */
static int expr_breg(const struct cfi_sec *s, uint64_t pos, uint64_t len, uint64_t *reg, int64_t *off, int *deref)
{
	struct cfi_cur c = { s->p, pos, pos + len, s->big, 0 };
	uint8_t op = (uint8_t)cfi_un(&c, 1);
	if (op >= 0x70 && op <= 0x8f) /* DW_OP_breg0..31 */
		*reg = op - 0x70u;
	else if (op == 0x92) /* DW_OP_bregx */
		*reg = cfi_uleb(&c);
	else
		return 0;
	*off = cfi_sleb(&c);
	if (deref) {
		*deref = 0;
		if (c.pos < c.end && c.p[c.pos] == 0x06) { /* DW_OP_deref */
			*deref = 1;
			c.pos++;
		}
	}
	return !c.bad && c.pos == c.end;
}

/* The PLT expression GNU ld writes for x86_64 .plt (and its IBT variant):
 *   DW_OP_breg7 A; DW_OP_breg16 0; DW_OP_lit<M-1>; DW_OP_and;
 *   DW_OP_lit<K>; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * i.e. CFA = rsp + A + 8 * ((rip & (M-1)) >= K).  M a power of two.  This
 * is exactly a PC-mask FDE of repeat size M with rows sp+A at 0 and
 * sp+A+8 at K, when the block starts M-aligned (checked by the caller). */
static int expr_plt(const struct cfi_sec *s, uint64_t pos, uint64_t len, int64_t *a, unsigned *m, unsigned *k)
{
	struct cfi_cur c = { s->p, pos, pos + len, s->big, 0 };
	unsigned lit;
	if (cfi_un(&c, 1) != 0x77) /* DW_OP_breg7 (rsp) */
		return 0;
	*a = cfi_sleb(&c);
	if (cfi_un(&c, 1) != 0x80 || cfi_sleb(&c) != 0) /* DW_OP_breg16 (rip) 0 */
		return 0;
	lit = (unsigned)cfi_un(&c, 1);
	if (lit < 0x30 || lit > 0x4f) /* DW_OP_lit<M-1> */
		return 0;
	*m = lit - 0x30 + 1;
	if (*m & (*m - 1))
		return 0;
	if (cfi_un(&c, 1) != 0x1a) /* DW_OP_and */
		return 0;
	lit = (unsigned)cfi_un(&c, 1);
	if (lit < 0x30 || lit > 0x4f) /* DW_OP_lit<K> */
		return 0;
	*k = lit - 0x30;
	if (cfi_un(&c, 1) != 0x2a || cfi_un(&c, 1) != 0x33 || cfi_un(&c, 1) != 0x24 || cfi_un(&c, 1) != 0x22)
		return 0; /* DW_OP_ge DW_OP_lit3 DW_OP_shl DW_OP_plus */
	return !c.bad && c.pos == c.end && *k > 0 && *k < *m;
}

/* RA or FP rule into an entity.  Returns NULL or the reason it cannot be
 * said in SFrame. */
static const char *rule_ent(const struct cfi_sec *s, const struct cfi_rule *r, struct ent *e, const char *what,
			    char *buf, size_t n)
{
	int64_t off;
	uint64_t reg;
	memset(e, 0, sizeof *e);
	switch (r->kind) {
	case CFI_UNSPEC:
	case CFI_SAME:
		return NULL;
	case CFI_OFFSET:
		e->present = 1;
		e->deref = 1;
		e->off = r->off;
		return NULL;
	case CFI_VAL_OFFSET:
		/* value = CFA + off: a FLEX control word with neither reg_p nor
		 * deref_p is 0, which is padding (spec 3.2). */
		snprintf(buf, n, "%s = CFA%+" PRId64 " (a value, not a slot) has no SFrame encoding", what, r->off);
		return buf;
	case CFI_REGISTER:
		e->present = 1;
		e->reg_p = 1;
		e->reg = r->reg;
		return NULL;
	case CFI_EXPR:
	case CFI_VAL_EXPR:
		if (expr_breg(s, r->expr, r->expr_len, &reg, &off, NULL)) {
			e->present = 1;
			e->reg_p = 1;
			e->reg = reg;
			e->off = off;
			e->deref = r->kind == CFI_EXPR;
			return NULL;
		}
		snprintf(buf, n, "%s rule is a DWARF expression", what);
		return buf;
	case CFI_UNDEF:
		snprintf(buf, n, "%s undefined", what);
		return buf;
	}
	return "?";
}

static int ent_eq(const struct ent *a, const struct ent *b)
{
	return a->present == b->present && a->reg_p == b->reg_p && a->deref == b->deref && a->reg == b->reg &&
	       a->off == b->off;
}

static int srow_same_rule(const struct srow *a, const struct srow *b)
{
	if (a->undef || b->undef)
		return a->undef == b->undef;
	return a->mangled == b->mangled && a->plt == b->plt && a->plt_m == b->plt_m && a->plt_k == b->plt_k &&
	       ent_eq(&a->cfa, &b->cfa) && ent_eq(&a->ra, &b->ra) && ent_eq(&a->fp, &b->fp);
}

/* Whether a row fits a DEFAULT FDE (spec 3.1.1, 3.1.2). */
static int srow_default(const struct input *in, const struct srow *r)
{
	int amd64 = in->e.machine == EM_X86_64;
	if (r->undef || r->plt)
		return 1;
	if (!r->cfa.reg_p || r->cfa.deref || (r->cfa.reg != in->sp && r->cfa.reg != in->fp))
		return 0;
	if (r->ra.present && (amd64 || r->ra.reg_p || !r->ra.deref))
		return 0;
	if (r->fp.present && (r->fp.reg_p || !r->fp.deref))
		return 0;
	if (!amd64 && r->fp.present && !r->ra.present)
		return 0; /* aarch64 word 2 is the RA: no way to skip it */
	return 1;
}

/* One DWARF row into an SFrame row, or the reason it cannot be. */
static const char *translate(const struct input *in, const struct cfi_sec *s, const struct cfi_cie *cie,
			     const struct cfi_state *st, struct srow *o, char *buf, size_t n)
{
	const char *why;
	memset(o, 0, sizeof *o);
	if (cie->ra_col != in->ra) {
		snprintf(buf, n, "return address column is %" PRIu64 ", not %" PRIu64, cie->ra_col, in->ra);
		return buf;
	}
	if (st->ra.kind == CFI_UNDEF) {
		o->undef = 1; /* outermost frame: nothing else matters */
		return NULL;
	}
	if (st->sp.kind != CFI_UNSPEC) {
		snprintf(buf, n, "stack pointer has a rule of its own");
		return buf;
	}
	switch (st->cfa_kind) {
	case CFI_CFA_NONE:
		return "no CFA rule";
	case CFI_CFA_REG:
		o->cfa.present = o->cfa.reg_p = 1;
		o->cfa.reg = st->cfa_reg;
		o->cfa.off = st->cfa_off;
		break;
	case CFI_CFA_EXPR: {
		int deref;
		int64_t a;
		unsigned m, k;
		if (expr_breg(s, st->cfa_expr, st->cfa_expr_len, &o->cfa.reg, &o->cfa.off, &deref)) {
			o->cfa.present = o->cfa.reg_p = 1;
			o->cfa.deref = (uint8_t)deref;
			break;
		}
		if (in->e.machine == EM_X86_64 && expr_plt(s, st->cfa_expr, st->cfa_expr_len, &a, &m, &k)) {
			o->cfa.present = o->cfa.reg_p = 1;
			o->cfa.reg = in->sp;
			o->cfa.off = a;
			o->plt = 1;
			o->plt_m = (uint8_t)m;
			o->plt_k = (uint8_t)k;
			break;
		}
		return "CFA is a DWARF expression";
	}
	}
	why = rule_ent(s, &st->ra, &o->ra, "RA", buf, n);
	if (why)
		return why;
	why = rule_ent(s, &st->fp, &o->fp, "FP", buf, n);
	if (why)
		return why;
	if (in->e.machine == EM_X86_64) {
		/* RA at the fixed offset CFA - 8 (sfh_cfa_fixed_ra_offset) is the
		 * default; no rule at all means nothing sensible on amd64. */
		if (!o->ra.present && st->ra.kind != CFI_REGISTER) {
			snprintf(buf, n, "RA has no rule");
			return buf;
		}
		if (o->ra.present && !o->ra.reg_p && o->ra.deref && o->ra.off == -8)
			o->ra.present = 0;
	} else {
		if (o->ra.present && o->ra.reg_p && !o->ra.deref && o->ra.reg == in->ra && o->ra.off == 0)
			o->ra.present = 0; /* "RA in x30" is the default */
		o->mangled = st->ra_signed;
	}
	if (o->cfa.off < INT32_MIN || o->cfa.off > INT32_MAX || o->ra.off < INT32_MIN || o->ra.off > INT32_MAX ||
	    o->fp.off < INT32_MIN || o->fp.off > INT32_MAX)
		return "offset does not fit in 32 bits";
	if ((o->cfa.reg_p && o->cfa.reg > 0x1fffffff) || (o->ra.reg_p && o->ra.reg > 0x1fffffff) ||
	    (o->fp.reg_p && o->fp.reg > 0x1fffffff))
		return "register number too large";
	return NULL;
}

/* ---- reading the CFI sections ------------------------------------------------------ */

struct rowbuf {
	struct cfi_row *rows;
	size_t n, cap;
};

static int collect_row(void *ctx, const struct cfi_row *row)
{
	struct rowbuf *b = ctx;
	if (b->n && b->rows[b->n - 1].loc == row->loc) {
		b->rows[b->n - 1] = *row;
		return 0;
	}
	GROW(b->rows, b->n, b->cap);
	b->rows[b->n++] = *row;
	return 0;
}

/* ET_REL: the relocations of one CFI section, by offset. */
struct relinfo {
	struct sfu_elf_rel *r;
	size_t n;
};

static int rel_cmp(const void *a, const void *b)
{
	const struct sfu_elf_rel *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static const struct sfu_elf_rel *rel_at(const struct relinfo *ri, uint64_t off)
{
	size_t lo = 0, hi = ri->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ri->r[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ri->n && ri->r[lo].off == off ? &ri->r[lo] : NULL;
}

static void add_fn(struct gen *g, const struct cfi_sec *s, const struct cfi_fde *fde, const struct relinfo *ri,
		   uint64_t sec_off)
{
	struct input *in = g->in;
	struct fn f;
	struct rowbuf rb = { NULL, 0, 0 };
	struct cfi_state st, init;
	uint64_t loc, end;
	const char *why = NULL;
	char msg[160];
	uint64_t bad;
	size_t i;

	memset(&f, 0, sizeof f);
	f.pc = fde->pc;
	f.size = fde->range;
	f.from_debug = !s->eh;
	f.signal = fde->cie.signal;
	f.bkey = fde->cie.bkey;
	if (fde->range == 0) {
		g->zero_len++;
		return;
	}
	if (in->rel) {
		/* The function start is symbol + addend, whether .eh_frame
		 * reaches it PC-relative or .debug_frame absolute. */
		const struct sfu_elf_rel *r = rel_at(ri, fde->pc_field);
		if (!r)
			die(1, "%s FDE at 0x%" PRIx64 ": no relocation for its initial location",
			    s->eh ? ".eh_frame" : ".debug_frame", sec_off);
		f.rsym = r->sym;
		f.raddend = r->addend;
	}
	if (fde->pc + fde->range < fde->pc)
		die(1, "%s FDE at 0x%" PRIx64 ": address range wraps around", s->eh ? ".eh_frame" : ".debug_frame",
		    sec_off);
	if (fde->cie.aug_bad) {
		snprintf(msg, sizeof msg, "unknown CIE augmentation '%c'", fde->cie.aug_bad);
		f.omit = f.omit_own = xstrdup(msg);
		goto out;
	}
	memset(&st, 0, sizeof st);
	loc = fde->pc;
	end = fde->pc + fde->range;
	if (cfi_run(s, &fde->cie, &in->arch, fde->cie.insns, fde->cie.insns_end, &st, NULL, &loc, end, collect_row,
		    &rb, &why, &bad, msg, sizeof msg) != 0)
		die(1, "%s CIE at 0x%" PRIx64 ", byte 0x%" PRIx64 ": %s", s->eh ? ".eh_frame" : ".debug_frame",
		    fde->cie.off, bad, why);
	init = st;
	if (cfi_run(s, &fde->cie, &in->arch, fde->insns, fde->insns_end, &st, &init, &loc, end, collect_row, &rb,
		    &why, &bad, msg, sizeof msg) != 0)
		die(1, "%s FDE at 0x%" PRIx64 ", byte 0x%" PRIx64 ": %s", s->eh ? ".eh_frame" : ".debug_frame",
		    sec_off, bad, why);
	if (loc < end) {
		struct cfi_row row;
		row.loc = loc;
		row.st = st;
		collect_row(&rb, &row);
	}
	f.rows = xrealloc(NULL, rb.n * sizeof *f.rows);
	for (i = 0; i < rb.n; i++) {
		struct srow o;
		const char *r = translate(in, s, &fde->cie, &rb.rows[i].st, &o, msg, sizeof msg);
		if (r) {
			char nm[128], why2[320];
			snprintf(why2, sizeof why2, "%s (at %s)", r, sfu_elf_sym_name(&in->syms, rb.rows[i].loc, nm, sizeof nm));
			f.omit = f.omit_own = xstrdup(why2);
			break;
		}
		o.start = (uint32_t)(rb.rows[i].loc - fde->pc);
		if (f.nrows && srow_same_rule(&f.rows[f.nrows - 1], &o))
			continue;
		f.rows[f.nrows++] = o;
	}
out:
	free(rb.rows);
	GROW(g->fns, g->nfns, g->capfns);
	g->fns[g->nfns++] = f;
}

/* Read every FDE of one CFI section (index idx). */
static void read_cfi(struct gen *g, unsigned idx, int eh)
{
	struct input *in = g->in;
	struct shdr sh;
	struct cfi_sec s;
	struct relinfo ri = { NULL, 0 };
	uint8_t *buf;
	uint64_t off = 0;
	const char *name = eh ? ".eh_frame" : ".debug_frame";
	unsigned j;

	if (!get_shdr(&in->e, idx, &sh))
		die(1, "%s: section header outside the file", name);
	if (sh.type == 8)
		return; /* NOBITS: debug-info file without the bytes */
	buf = xrealloc(NULL, sh.size);
	memcpy(buf, in->e.p + sh.off, sh.size);
	if (in->rel) {
		/* Relocate a copy (sections at their made-up bases) and keep the
		 * relocations to find each FDE's start symbol. */
		size_t cap = 0;
		for (j = 1; j < in->nsec; j++) {
			struct shdr r;
			uint64_t k, n;
			if (!get_shdr(&in->e, j, &r) || (r.type != SHT_RELA && r.type != 9) || r.info != idx)
				continue;
			if (r.type != SHT_RELA)
				die(1, "%s: SHT_REL relocations are not used on this machine", name);
			if (apply_relocs(&in->e, &r, buf, sh.size, in->bases) != 0)
				die(1, "%s: a relocation of an unknown type or outside the section", name);
			n = r.size / sfu_elf_rel_entsize(&in->e, &r);
			for (k = 0; k < n; k++) {
				GROW(ri.r, ri.n, cap);
				if (!sfu_elf_rel_get(&in->e, &r, k, &ri.r[ri.n]))
					die(1, "%s: relocation outside the file", name);
				ri.n++;
			}
		}
		qsort(ri.r, ri.n, sizeof *ri.r, rel_cmp);
	}
	s.p = buf;
	s.size = sh.size;
	s.addr = in->bases[idx];
	s.big = in->e.big;
	s.eh = eh;
	while (off < s.size) {
		uint64_t next, id, idpos;
		int d64, r = cfi_entry_head(&s, off, &next, &id, &idpos, &d64);
		struct cfi_fde fde;
		const char *why;
		if (r < 0)
			die(1, "%s: entry at 0x%" PRIx64 " runs past the end of the section (truncated?)", name, off);
		if (r == 1) { /* zero terminator */
			off = next;
			continue;
		}
		if (!cfi_is_cie(&s, id, d64)) {
			if (cfi_parse_fde(&s, off, id, idpos, next, d64, &fde, &why) != 0)
				die(1, "%s: FDE at 0x%" PRIx64 ": %s", name, off, why);
			add_fn(g, &s, &fde, &ri, off);
		} else {
			struct cfi_cie cie;
			if (cfi_parse_cie(&s, off, &cie, &why) != 0)
				die(1, "%s: CIE at 0x%" PRIx64 ": %s", name, off, why);
		}
		off = next;
	}
	free(ri.r);
	free(buf);
}

/* ---- per function: FDE kind, PLT split --------------------------------------------- */

static int fn_cmp(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->from_debug - y->from_debug; /* .eh_frame first */
}

/* Decide FDE type and PC type; split PLT blocks off into PC-mask FDEs. */
static void finish_fn(struct gen *g, size_t idx)
{
	struct input *in = g->in;
	struct fn *f = &g->fns[idx];
	size_t i, p;
	if (f->omit)
		return;
	if (f->nrows > 0xffff) {
		f->omit = "more than 65535 rows";
		return;
	}
	if (f->size > 0xffffffffu) {
		f->omit = "function larger than 4 GiB";
		return;
	}
	for (i = 0; i < f->nrows; i++)
		if (!srow_default(in, &f->rows[i]))
			f->flex = 1;
	if (f->flex && g->version < 3) {
		f->omit = "needs a FLEX FDE (register-based or dereferenced CFA, RA/FP in a register), SFrame V3 only";
		return;
	}
	if (f->signal && g->version < 3) {
		f->omit = "signal frame ('S' augmentation): SFrame V2 has no signal bit";
		return;
	}
	if (f->bkey && in->e.machine != EM_AARCH64) {
		f->omit = "'B' augmentation on a machine without pointer authentication";
		return;
	}
	for (p = 0; p < f->nrows && !f->rows[p].plt; p++)
		;
	if (p == f->nrows)
		return;
	/* PLT rows from p to the end, one expression, M-aligned start. */
	{
		struct srow r = f->rows[p];
		uint64_t start = f->pc + r.start;
		struct fn m;
		for (i = p + 1; i < f->nrows; i++)
			if (!f->rows[i].plt || !srow_same_rule(&f->rows[i], &r))
				break;
		if (i != f->nrows || start % r.plt_m || (f->pc + f->size - start) % r.plt_m || f->flex) {
			f->omit = "PLT CFA expression that is not a whole number of aligned blocks";
			return;
		}
		m = *f;
		m.pc = start;
		m.size = f->pc + f->size - start;
		m.raddend = f->raddend + (int64_t)r.start;
		m.mask = 1;
		m.rep = r.plt_m;
		m.rows = xrealloc(NULL, 2 * sizeof *m.rows);
		m.nrows = 2;
		m.rows[0] = r;
		m.rows[0].start = 0;
		m.rows[0].plt = 0;
		m.rows[1] = m.rows[0];
		m.rows[1].start = r.plt_k;
		m.rows[1].cfa.off += 8;
		m.omit_own = NULL;
		f->nrows = p;
		f->size = r.start;
		GROW(g->fns, g->nfns, g->capfns);
		g->fns[g->nfns++] = m;
		f = &g->fns[idx]; /* moved by GROW */
		if (p == 0)
			f->omit = ""; /* nothing before the PLT entries: no INC FDE */
	}
}

/* ---- encoding (spec 2) ------------------------------------------------------------- */

struct bytes {
	uint8_t *p;
	size_t n, cap;
	int big;
};

static void put(struct bytes *b, unsigned len, uint64_t v)
{
	while (b->n + len > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->p = xrealloc(b->p, b->cap);
	}
	wr(b->p + b->n, len, b->big, v);
	b->n += len;
}

static void put_zeros(struct bytes *b, size_t n)
{
	while (n--)
		put(b, 1, 0);
}

static void put_at(struct bytes *b, size_t at, unsigned len, uint64_t v)
{
	wr(b->p + at, len, b->big, v);
}

/* Bytes a signed value needs as a data word: 1, 2 or 4. */
static unsigned swidth(int64_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX ? 1 : v >= INT16_MIN && v <= INT16_MAX ? 2 : 4;
}

static unsigned uwidth(uint64_t v)
{
	return v <= 0xff ? 1 : v <= 0xffff ? 2 : 4;
}

static uint64_t flex_ctl(const struct ent *e)
{
	return (e->reg_p ? e->reg << 3 : 0) | (uint64_t)(e->deref ? 2 : 0) | (e->reg_p ? 1 : 0);
}

/* The data words of one row; returns how many, and their width. */
static unsigned row_words(const struct input *in, const struct fn *f, const struct srow *r, int64_t w[8],
			  unsigned *width, int *ctl_mask)
{
	unsigned n = 0, i, wd = 1;
	*ctl_mask = 0;
	if (r->undef) {
		*width = 1;
		return 0;
	}
	if (f->flex) {
		*ctl_mask |= 1 << n;
		w[n++] = (int64_t)flex_ctl(&r->cfa);
		w[n++] = r->cfa.off;
		if (r->ra.present) {
			*ctl_mask |= 1 << n;
			w[n++] = (int64_t)flex_ctl(&r->ra);
			w[n++] = r->ra.off;
		} else if (r->fp.present) {
			*ctl_mask |= 1 << n;
			w[n++] = 0; /* padding: the RA rule is the default */
		}
		if (r->fp.present) {
			*ctl_mask |= 1 << n;
			w[n++] = (int64_t)flex_ctl(&r->fp);
			w[n++] = r->fp.off;
		}
	} else {
		w[n++] = r->cfa.off;
		if (in->e.machine == EM_X86_64) {
			if (r->fp.present)
				w[n++] = r->fp.off;
		} else {
			if (r->ra.present)
				w[n++] = r->ra.off;
			if (r->fp.present)
				w[n++] = r->fp.off;
		}
	}
	for (i = 0; i < n; i++) {
		unsigned x = (*ctl_mask >> i) & 1 ? uwidth((uint64_t)w[i]) : swidth(w[i]);
		if (x > wd)
			wd = x;
	}
	*width = wd;
	return n;
}

/* Relocations the output object needs: one per FDE start field. */
struct outrel {
	uint64_t off, sym;
	int64_t addend;
};

/* Encode the section for run-time address addr.  Fills rels for ET_REL. */
static void encode(struct gen *g, uint64_t addr, struct bytes *out, struct outrel **rels, size_t *nrels)
{
	struct input *in = g->in;
	struct bytes fres = { NULL, 0, 0, in->e.big };
	size_t i, nf = 0, fde_size = g->version == 3 ? SFU_V3_FDE_SIZE : SFU_V2_FDE_SIZE;
	uint32_t nfres = 0;
	int amd64 = in->e.machine == EM_X86_64;
	uint8_t flags = SFU_F_FDE_FUNC_START_PCREL;

	for (i = 0; i < g->nfns; i++)
		if (!g->fns[i].omit)
			nf++;
	if (!in->rel)
		flags |= SFU_F_FDE_SORTED; /* objects: ld sorts when it merges, as gas leaves it */
	out->big = in->e.big;
	put(out, 2, SFU_MAGIC);
	put(out, 1, (uint64_t)g->version);
	put(out, 1, flags);
	put(out, 1, amd64 ? SFU_ABI_AMD64_LE : in->e.big ? SFU_ABI_AARCH64_BE : SFU_ABI_AARCH64_LE);
	put(out, 1, 0);                           /* fixed FP offset: none */
	put(out, 1, amd64 ? (uint8_t)-8 : 0);     /* fixed RA offset (spec 3.1.1) */
	put(out, 1, 0);                           /* no aux header */
	put(out, 4, nf);
	put(out, 4, 0); /* num_fres, below */
	put(out, 4, 0); /* fre_len, below */
	put(out, 4, 0); /* fdeoff */
	put(out, 4, nf * fde_size);
	*rels = xrealloc(NULL, (nf ? nf : 1) * sizeof **rels);
	*nrels = 0;

	for (i = 0; i < g->nfns; i++) {
		const struct fn *f = &g->fns[i];
		size_t k, fde_at = out->n, fre_start = fres.n;
		uint32_t maxstart = 0;
		unsigned fre_type, ab;
		uint8_t info;
		if (f->omit)
			continue;
		for (k = 0; k < f->nrows; k++)
			if (f->rows[k].start > maxstart)
				maxstart = f->rows[k].start;
		fre_type = maxstart <= 0xff ? SFU_FRE_TYPE_ADDR1 : maxstart <= 0xffff ? SFU_FRE_TYPE_ADDR2 : SFU_FRE_TYPE_ADDR4;
		ab = fre_type == SFU_FRE_TYPE_ADDR1 ? 1 : fre_type == SFU_FRE_TYPE_ADDR2 ? 2 : 4;
		info = (uint8_t)(fre_type | (f->mask ? SFU_FDE_PCTYPE_MASK << 4 : 0) | (f->bkey ? 1u << 5 : 0) |
				 (g->version == 3 && f->signal ? 1u << 7 : 0));
		/* FDE index entry; start offset from the field (PCREL). */
		if (g->version == 3) {
			put(out, 8, in->rel ? 0 : f->pc - (addr + fde_at));
			put(out, 4, f->size);
			put(out, 4, fres.n); /* the attribute */
			put(&fres, 2, f->nrows);
			put(&fres, 1, info);
			put(&fres, 1, f->flex ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT);
			put(&fres, 1, f->mask ? f->rep : 0);
		} else {
			int64_t d = (int64_t)(f->pc - (addr + fde_at));
			if (!in->rel && (d < INT32_MIN || d > INT32_MAX))
				die(1, "%s is more than 2 GiB away from the section (V2 start offsets are 32-bit)",
				    "a function");
			put(out, 4, in->rel ? 0 : (uint32_t)d);
			put(out, 4, f->size);
			put(out, 4, fres.n);
			put(out, 4, f->nrows);
			put(out, 1, info);
			put(out, 1, f->mask ? f->rep : 0);
			put(out, 2, 0);
		}
		if (in->rel) {
			(*rels)[*nrels].off = fde_at;
			(*rels)[*nrels].sym = f->rsym;
			(*rels)[*nrels].addend = f->raddend;
			(*nrels)++;
		}
		for (k = 0; k < f->nrows; k++) {
			const struct srow *r = &f->rows[k];
			int64_t w[8];
			unsigned width, n, j;
			int ctl;
			uint8_t base_sp;
			n = row_words(in, f, r, w, &width, &ctl);
			base_sp = r->undef || !(r->cfa.reg_p && r->cfa.reg == in->fp);
			put(&fres, ab, r->start);
			put(&fres, 1, (uint64_t)(base_sp | n << 1 | (width == 1 ? 0u : width == 2 ? 1u : 2u) << 5 |
						 (r->mangled && !r->undef ? 1u << 7 : 0)));
			for (j = 0; j < n; j++)
				put(&fres, width, (uint64_t)w[j]);
			nfres++;
		}
		(void)fre_start;
	}
	put_at(out, SFU_HDR_NUM_FRES, 4, nfres);
	put_at(out, SFU_HDR_FRE_LEN, 4, fres.n);
	for (i = 0; i < fres.n; i++)
		put(out, 1, fres.p[i]);
	free(fres.p);
}

/* ---- output ---------------------------------------------------------------------- */

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		if (f)
			remove(path);
		exit(2);
	}
}

/* Section header fields in the file's byte order (ELF64). */
static void put_shdr(uint8_t *p, int big, const struct shdr *s)
{
	wr(p, 4, big, s->name);
	wr(p + 4, 4, big, s->type);
	wr(p + 8, 8, big, s->flags);
	wr(p + 16, 8, big, s->addr);
	wr(p + 24, 8, big, s->off);
	wr(p + 32, 8, big, s->size);
	wr(p + 40, 4, big, s->link);
	wr(p + 44, 4, big, s->info);
	wr(p + 48, 8, big, 8); /* addralign: our sections are 8-aligned; others keep theirs below */
	wr(p + 56, 8, big, s->entsize);
}

static void align_to(struct bytes *b, unsigned a)
{
	while (b->n % a)
		put(b, 1, 0);
}

static void append(struct bytes *b, const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		put(b, 1, p[i]);
}

/* Write FILE again with the new .sframe (and .rela.sframe for objects). */
static void write_elf(struct gen *g, const char *path, int have_addr, uint64_t want_addr)
{
	struct input *in = g->in;
	const struct elf *e = &in->e;
	struct bytes out = { NULL, 0, 0, e->big }, sf = { NULL, 0, 0, e->big }, strtab = { NULL, 0, 0, e->big };
	struct outrel *rels;
	size_t nrels, i;
	unsigned shstrndx, old = 0, oldrel = 0, nsh = in->nsec, sfidx, relidx = 0, symtab_idx = 0;
	uint64_t shentsize, addr = 0, shoff;
	struct shdr *sh, str;
	int ok = 1, inplace = 0;

	shstrndx = (unsigned)rd(e, 0x3e, 2, &ok);
	shentsize = rd(e, 0x3a, 2, &ok);
	if (!ok || shentsize != 64 || !get_shdr(e, shstrndx, &str))
		die(1, "cannot read the section header table");
	sh = xrealloc(NULL, (nsh + 2) * sizeof *sh);
	for (i = 0; i < nsh; i++) {
		if (!get_shdr(e, (unsigned)i, &sh[i]))
			die(1, "section header %zu outside the file", i);
		if (i && !old && !strcmp(sec_name(e, &sh[i]), ".sframe"))
			old = (unsigned)i;
	}
	for (i = 1; old && i < nsh; i++)
		if ((sh[i].type == SHT_RELA || sh[i].type == 9) && sh[i].info == old)
			oldrel = (unsigned)i;
	/* The symbol table the CFI relocations use. */
	for (i = 1; in->rel && i < nsh; i++)
		if (sh[i].type == SHT_RELA && sh[i].link && (!strcmp(sec_name(e, &sh[sh[i].info < nsh ? sh[i].info : 0]), ".eh_frame") ||
							      !strcmp(sec_name(e, &sh[sh[i].info < nsh ? sh[i].info : 0]), ".debug_frame")))
			symtab_idx = sh[i].link;

	/* Where the section will be, then its bytes. */
	if (in->rel) {
		addr = 0;
	} else if (old && !have_addr && (sh[old].flags & SHF_ALLOC) && sh[old].type != 8) {
		addr = sh[old].addr;
		inplace = 1;
	} else if (have_addr) {
		addr = want_addr;
	} else {
		for (i = 1; i < nsh; i++)
			if ((sh[i].flags & SHF_ALLOC) && sh[i].addr + sh[i].size > addr)
				addr = sh[i].addr + sh[i].size;
		addr = (addr + 0xfff) & ~(uint64_t)0xfff;
	}
	encode(g, addr, &sf, &rels, &nrels);
	if (inplace && sf.n > sh[old].size)
		inplace = 0;
	if (!inplace && old && !in->rel && !have_addr) {
		/* Does not fit: put it past the image, as for a fresh one. */
		free(sf.p);
		free(rels);
		sf.p = NULL;
		sf.n = sf.cap = 0;
		for (i = 1, addr = 0; i < nsh; i++)
			if ((sh[i].flags & SHF_ALLOC) && sh[i].addr + sh[i].size > addr)
				addr = sh[i].addr + sh[i].size;
		addr = (addr + 0xfff) & ~(uint64_t)0xfff;
		encode(g, addr, &sf, &rels, &nrels);
	}

	append(&out, e->p, e->n);
	if (inplace) {
		unsigned ph, phnum = (unsigned)rd(e, 0x38, 2, &ok);
		uint64_t phoff = rd(e, 0x20, 8, &ok);
		memset(out.p + sh[old].off, 0, sh[old].size);
		memcpy(out.p + sh[old].off, sf.p, sf.n);
		sh[old].size = sf.n;
		for (ph = 0; ok && ph < phnum; ph++) {
			uint64_t b = phoff + (uint64_t)ph * 56;
			if (rd(e, b, 4, &ok) == PT_GNU_SFRAME && rd(e, b + 8, 8, &ok) == sh[old].off) {
				wr(out.p + b + 32, 8, e->big, sf.n); /* p_filesz */
				wr(out.p + b + 40, 8, e->big, sf.n); /* p_memsz */
			}
		}
		sfidx = old;
	} else {
		struct shdr ns;
		if (old && !in->rel) {
			/* The old section stays where it is, renamed; the loader
			 * must not find it any more. */
			unsigned ph, phnum = (unsigned)rd(e, 0x38, 2, &ok);
			uint64_t phoff = rd(e, 0x20, 8, &ok);
			for (ph = 0; ok && ph < phnum; ph++) {
				uint64_t b = phoff + (uint64_t)ph * 56;
				if (rd(e, b, 4, &ok) == PT_GNU_SFRAME)
					wr(out.p + b, 4, e->big, 0); /* PT_NULL */
			}
		}
		align_to(&out, 8);
		memset(&ns, 0, sizeof ns);
		ns.type = g->version == 3 ? SHT_GNU_SFRAME : 1 /* PROGBITS */;
		ns.flags = in->rel ? SHF_ALLOC : 0;
		ns.addr = in->rel ? 0 : addr;
		ns.off = out.n;
		ns.size = sf.n;
		append(&out, sf.p, sf.n);
		if (old && in->rel) {
			sfidx = old;
		} else {
			sfidx = nsh++;
		}
		sh[sfidx] = ns;
	}
	if (in->rel) {
		struct shdr rs;
		if (!symtab_idx)
			die(1, "no symbol table for the relocations of .sframe");
		align_to(&out, 8);
		memset(&rs, 0, sizeof rs);
		rs.type = SHT_RELA;
		rs.flags = 0x40; /* SHF_INFO_LINK */
		rs.link = symtab_idx;
		rs.info = sfidx;
		rs.entsize = 24;
		rs.off = out.n;
		for (i = 0; i < nrels; i++) {
			uint64_t type = e->machine == EM_X86_64 ? (g->version == 3 ? 24 : 2) /* R_X86_64_PC64 / PC32 */
							       : (g->version == 3 ? 260 : 261); /* R_AARCH64_PREL64 / PREL32 */
			put(&out, 8, rels[i].off);
			put(&out, 8, rels[i].sym << 32 | type);
			put(&out, 8, (uint64_t)rels[i].addend);
		}
		rs.size = out.n - rs.off;
		relidx = oldrel ? oldrel : nsh++;
		sh[relidx] = rs;
	}
	/* Names: the old string table plus ours. */
	append(&strtab, e->p + str.off, str.size);
	{
		uint64_t n_sframe = strtab.n, n_rela, n_old;
		append(&strtab, (const uint8_t *)".sframe", 8);
		n_rela = strtab.n;
		append(&strtab, (const uint8_t *)".rela.sframe", 13);
		n_old = strtab.n;
		append(&strtab, (const uint8_t *)".sframe.old", 12);
		sh[sfidx].name = (uint32_t)n_sframe;
		if (relidx)
			sh[relidx].name = (uint32_t)n_rela;
		if (old && old != sfidx)
			sh[old].name = (uint32_t)n_old;
	}
	align_to(&out, 8);
	sh[shstrndx].off = out.n;
	sh[shstrndx].size = strtab.n;
	append(&out, strtab.p, strtab.n);
	align_to(&out, 8);
	shoff = out.n;
	if (nsh >= 0xff00)
		die(1, "too many sections");
	for (i = 0; i < nsh; i++) {
		size_t at = out.n;
		uint64_t keep_align = 8;
		int ok2 = 1;
		put_zeros(&out, 64);
		put_shdr(out.p + at, e->big, &sh[i]);
		/* Sections we did not write keep their own alignment. */
		if (i < in->nsec && i != sfidx && i != relidx && i != shstrndx)
			keep_align = rd(e, rd(e, 0x28, 8, &ok2) + i * 64 + 48, 8, &ok2);
		else if (i == shstrndx)
			keep_align = 1;
		wr(out.p + at + 48, 8, e->big, i == 0 ? 0 : keep_align);
	}
	wr(out.p + 0x28, 8, e->big, shoff);
	wr(out.p + 0x3c, 2, e->big, nsh);
	write_file(path, out.p, out.n);
	free(out.p);
	free(sf.p);
	free(strtab.p);
	free(rels);
	free(sh);
}

/* ---- main -------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: sfu-gen [--sframe-version 2|3] [--from eh|debug|both] [-q]\n"
			"               (-o OUT.elf | --raw OUT.bin --addr ADDR) FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct input in;
	struct gen g;
	const char *out = NULL, *raw = NULL;
	int i, have_addr = 0, quiet = 0, from = 3; /* 1: eh, 2: debug, 3: both */
	uint64_t addr = 0;
	char err[512];
	unsigned k, neh = 0, ndebug = 0;
	size_t described = 0, omitted = 0;

	memset(&in, 0, sizeof in);
	memset(&g, 0, sizeof g);
	g.version = 3;
	sfu_tool_args(argc, argv, "sfu-gen", help);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(a, "--raw") && i + 1 < argc)
			raw = argv[++i];
		else if (!strcmp(a, "--addr") && i + 1 < argc) {
			char *end;
			errno = 0;
			addr = strtoull(argv[++i], &end, 0);
			if (errno || *end || end == argv[i])
				usage();
			have_addr = 1;
		} else if (!strcmp(a, "--sframe-version") && i + 1 < argc) {
			const char *v = argv[++i];
			if (!strcmp(v, "2"))
				g.version = 2;
			else if (!strcmp(v, "3"))
				g.version = 3;
			else
				usage();
		} else if (!strcmp(a, "--from") && i + 1 < argc) {
			const char *v = argv[++i];
			from = !strcmp(v, "eh") ? 1 : !strcmp(v, "debug") ? 2 : !strcmp(v, "both") ? 3 : 0;
			if (!from)
				usage();
		} else if (!strcmp(a, "-q"))
			quiet = 1;
		else if (a[0] == '-' || in_path)
			usage();
		else
			in_path = a;
	}
	if (!in_path || (!out && !raw) || (out && raw) || (raw && !have_addr))
		usage();

	if (sfu_elf_open(in_path, &in.e, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return strstr(err, "not an ELF") ? 1 : 2;
	}
	if (!in.e.is64)
		die(1, "32-bit ELF: only ELF64 x86_64 and aarch64 are supported");
	if (in.e.machine == EM_X86_64 && !in.e.big) {
		in.fp = SFU_DWARF_AMD64_FP;
		in.sp = SFU_DWARF_AMD64_SP;
		in.ra = SFU_DWARF_AMD64_RA;
	} else if (in.e.machine == EM_AARCH64) {
		in.fp = SFU_DWARF_AARCH64_FP;
		in.sp = SFU_DWARF_AARCH64_SP;
		in.ra = SFU_DWARF_AARCH64_LR;
		in.arch.aarch64 = 1;
	} else {
		die(1, "machine %u%s: only x86_64 (little-endian) and aarch64 are supported", in.e.machine,
		    in.e.big ? " big-endian" : "");
	}
	in.arch.fp = in.fp;
	in.arch.sp = in.sp;
	if (in.e.type != ET_REL && in.e.type != 2 && in.e.type != 3)
		die(1, "ELF type %u: not an image or a relocatable object", in.e.type);
	in.rel = in.e.type == ET_REL;
	if (raw && in.rel)
		die(2, "--raw needs a linked image (a relocatable object has no addresses yet); use -o");
	in.nsec = num_sections(&in.e);
	if (in.nsec == 0)
		die(1, "no section headers");
	{
		struct shdr s0;
		if (!get_shdr(&in.e, 0, &s0))
			die(1, "section header table outside the file");
	}
	in.bases = xrealloc(NULL, in.nsec * sizeof *in.bases);
	sfu_elf_layout(&in.e, in.bases);
	sfu_elf_symbols(&in.e, in.bases, &in.syms);

	g.in = &in;
	for (k = 1; k < in.nsec; k++) {
		struct shdr s;
		const char *nm;
		if (!get_shdr(&in.e, k, &s))
			die(1, "section header %u outside the file", k);
		nm = sec_name(&in.e, &s);
		if ((from & 1) && !strcmp(nm, ".eh_frame")) {
			neh++;
			read_cfi(&g, k, 1);
		}
	}
	for (k = 1; k < in.nsec; k++) {
		struct shdr s;
		if (get_shdr(&in.e, k, &s) && (from & 2) && !strcmp(sec_name(&in.e, &s), ".debug_frame")) {
			ndebug++;
			read_cfi(&g, k, 0);
		}
	}
	if (!neh && !ndebug)
		die(1, "no CFI: no %s section", from == 1 ? ".eh_frame" : from == 2 ? ".debug_frame" : ".eh_frame or .debug_frame");
	if (g.nfns == 0)
		die(1, "no CFI: the %s section%s describe%s no function", neh ? ".eh_frame" : ".debug_frame",
		    neh + ndebug > 1 ? "s" : "", neh + ndebug > 1 ? "" : "s");

	/* Sorted by start; a function described twice keeps its .eh_frame
	 * description; overlapping FDEs are refused. */
	qsort(g.fns, g.nfns, sizeof *g.fns, fn_cmp);
	{
		size_t j, kept = 0;
		uint64_t last_end = 0;
		int have = 0;
		for (j = 0; j < g.nfns; j++) {
			struct fn *f = &g.fns[j];
			if (have && f->pc < last_end) {
				if (f->from_debug) {
					free(f->rows);
					free(f->omit_own);
					continue; /* the same code, already described */
				}
				if (!f->omit)
					f->omit = "overlaps the function before it";
			} else {
				last_end = f->pc + f->size;
				have = 1;
			}
			g.fns[kept++] = *f;
		}
		g.nfns = kept;
	}
	{
		size_t j, n = g.nfns;
		for (j = 0; j < n; j++)
			finish_fn(&g, j);
		qsort(g.fns, g.nfns, sizeof *g.fns, fn_cmp);
	}
	for (k = 0; k < g.nfns; k++) {
		struct fn *f = &g.fns[k];
		char nm[128];
		if (!f->omit) {
			described++;
			continue;
		}
		if (!f->omit[0])
			continue; /* an empty PLT head, split off */
		omitted++;
		if (!quiet)
			fprintf(stderr, "%s: omitted %s (0x%" PRIx64 ", %" PRIu64 " bytes): %s\n", prog,
				sfu_elf_sym_name(&in.syms, f->pc, nm, sizeof nm), f->pc, f->size, f->omit);
	}
	if (described == 0)
		die(1, "no function could be described in SFrame (%zu omitted)", omitted);

	if (raw) {
		struct bytes sf = { NULL, 0, 0, in.e.big };
		struct outrel *rels;
		size_t nrels;
		encode(&g, addr, &sf, &rels, &nrels);
		write_file(raw, sf.p, sf.n);
		free(sf.p);
		free(rels);
	} else {
		write_elf(&g, out, have_addr, addr);
	}
	fprintf(stderr, "%s: %s: %zu functions described, %zu omitted (SFrame V%d)\n", prog, in_path, described,
		omitted, g.version);
	for (k = 0; k < g.nfns; k++) {
		free(g.fns[k].rows);
		free(g.fns[k].omit_own);
	}
	free(g.fns);
	free(in.syms.v);
	free(in.bases);
	free((void *)in.e.p);
	return 0;
}
