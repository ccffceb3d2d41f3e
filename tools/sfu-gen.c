/* SPDX-License-Identifier: MIT */
/* sfu-gen - generate an SFrame section from an ELF file's DWARF CFI.
 *
 * usage: sfu-gen [--sframe-version 2|3] [--from eh|debug|both] [-q]
 *                (-o OUT.elf | --raw OUT.bin --addr ADDR) FILE
 *
 * FILE is a linked image (ET_EXEC, ET_DYN) or a relocatable object (ET_REL),
 * x86_64 or aarch64 (either byte order), with .eh_frame and/or
 * .debug_frame.  elfutils does the ELF and the DWARF: libelf reads and
 * writes the file, libdw walks the CIEs and FDEs and runs their CFA
 * programs (tools/sfu_elf.h, tools/sfu_cfi.h say what little is done here
 * and why).  Every row libdw gives is translated into an SFrame row when
 * SFrame can say the same thing, exactly:
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
 * Objects with more than one .eh_frame (or .debug_frame) section are
 * refused: libdw reads the first only.
 *
 * Exit status: 0 on success (omitted functions included), 1 on bad input
 * (no CFI, corrupt or truncated CFI, unknown CFA opcode, wrong machine,
 * FDEs whose rows libdw reads otherwise than sfu_cfi.h does: a check run on
 * every FDE, see rows_agree), 2 on usage or I/O errors.  Nothing is written
 * on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>
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

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554 /* binutils >= 2.45, include/elf/common.h */
#endif

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

/* ---- rows: libdw's rules -> SFrame entities -------------------------------------- */

/* An address expression of one register: DW_OP_breg<r> off or DW_OP_bregx
 * r off, then DW_OP_deref if deref is non-NULL.  Returns 1 on a match. */
static int expr_breg(const Dwarf_Op *ops, size_t n, uint64_t *reg, int64_t *off, int *deref)
{
	if (n < 1 || n > 2 || (n == 2 && (!deref || ops[1].atom != DW_OP_deref)))
		return 0;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		*reg = ops[0].number;
		*off = (int64_t)ops[0].number2;
	} else {
		return 0;
	}
	if (deref)
		*deref = n == 2;
	return 1;
}

/* The PLT expression GNU ld writes for x86_64 .plt (and its IBT variant):
 *   DW_OP_breg7 A; DW_OP_breg16 0; DW_OP_lit<M-1>; DW_OP_and;
 *   DW_OP_lit<K>; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * i.e. CFA = rsp + A + 8 * ((rip & (M-1)) >= K).  M a power of two.  This
 * is exactly a PC-mask FDE of repeat size M with rows sp+A at 0 and
 * sp+A+8 at K, when the block starts M-aligned (checked by the caller). */
static int expr_plt(const Dwarf_Op *o, size_t n, int64_t *a, unsigned *m, unsigned *k)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[1].atom != DW_OP_breg16 || o[1].number != 0 ||
	    o[2].atom < DW_OP_lit0 || o[2].atom > DW_OP_lit31 || o[3].atom != DW_OP_and || o[4].atom < DW_OP_lit0 ||
	    o[4].atom > DW_OP_lit31 || o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl ||
	    o[8].atom != DW_OP_plus)
		return 0;
	*a = (int64_t)o[0].number;
	*m = o[2].atom - DW_OP_lit0 + 1u;
	*k = o[4].atom - DW_OP_lit0;
	return !(*m & (*m - 1)) && *k > 0 && *k < *m;
}

/* A register's rule as dwarf_frame_register gives it (libdw's
 * frame_register.c): no operations and ops NULL: same value; no operations
 * else: undefined; DW_OP_call_frame_cfa [DW_OP_plus_uconst N]: saved at
 * CFA + N; DW_OP_regx r: in register r; DW_OP_call_frame_cfa then a
 * DW_CFA_expression's operations; a trailing DW_OP_stack_value: the value
 * itself (val_offset, val_expression), not a slot. */
enum rule_kind { R_SAME, R_UNDEF, R_OFFSET, R_REG, R_EXPR };

struct rule {
	enum rule_kind kind;
	int value;           /* DW_OP_stack_value: the value, not its slot */
	int64_t off;         /* R_OFFSET */
	uint64_t reg;        /* R_REG */
	const Dwarf_Op *ops; /* R_EXPR: the expression after DW_OP_call_frame_cfa */
	size_t nops;
};

static int get_rule(Dwarf_Frame *fr, uint64_t regno, Dwarf_Op mem[3], struct rule *r)
{
	Dwarf_Op *ops;
	size_t n;
	memset(r, 0, sizeof *r);
	if (dwarf_frame_register(fr, (int)regno, mem, &ops, &n) != 0)
		return -1;
	if (n && ops[n - 1].atom == DW_OP_stack_value) {
		r->value = 1;
		n--;
	}
	if (n == 0) {
		r->kind = ops ? R_UNDEF : R_SAME;
	} else if (n == 1 && ops[0].atom == DW_OP_regx) {
		r->kind = R_REG;
		r->reg = ops[0].number;
	} else if (ops[0].atom != DW_OP_call_frame_cfa) {
		return -1; /* not a shape frame_register.c makes */
	} else if (n == 1 || (n == 2 && ops[1].atom == DW_OP_plus_uconst)) {
		r->kind = R_OFFSET;
		r->off = n == 2 ? (int64_t)ops[1].number : 0;
	} else {
		r->kind = R_EXPR;
		r->ops = ops + 1;
		r->nops = n - 1;
	}
	return 0;
}

/* RA or FP rule into an entity.  Returns NULL or the reason it cannot be
 * said in SFrame. */
static const char *rule_ent(const struct rule *r, struct ent *e, const char *what, char *buf, size_t n)
{
	memset(e, 0, sizeof *e);
	if (r->kind == R_SAME)
		return NULL;
	if (r->kind == R_UNDEF) {
		snprintf(buf, n, "%s undefined", what);
		return buf;
	}
	if (r->kind == R_OFFSET && r->value) {
		/* value = CFA + off: a FLEX control word with neither reg_p nor
		 * deref_p is 0, which is padding (spec 3.2). */
		snprintf(buf, n, "%s = CFA%+" PRId64 " (a value, not a slot) has no SFrame encoding", what, r->off);
		return buf;
	}
	e->present = 1;
	if (r->kind == R_OFFSET) {
		e->deref = 1;
		e->off = r->off;
	} else if (r->kind == R_REG) {
		e->reg_p = 1;
		e->reg = r->reg;
	} else if (expr_breg(r->ops, r->nops, &e->reg, &e->off, NULL)) {
		e->reg_p = 1;
		e->deref = !r->value;
	} else {
		snprintf(buf, n, "%s rule is a DWARF expression", what);
		return buf;
	}
	return NULL;
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

/* The CFA rule of a row into o->cfa (o->plt for GNU ld's PLT expression). */
static const char *cfa_ent(const struct input *in, Dwarf_Frame *fr, struct srow *o)
{
	Dwarf_Op *ops;
	size_t n;
	int deref;
	int64_t a;
	unsigned m, k;
	if (dwarf_frame_cfa(fr, &ops, &n) != 0 || n == 0)
		return "no CFA rule";
	o->cfa.present = o->cfa.reg_p = 1;
	if (expr_breg(ops, n, &o->cfa.reg, &o->cfa.off, &deref)) {
		o->cfa.deref = (uint8_t)deref;
		return NULL;
	}
	if (in->e.machine == EM_X86_64 && expr_plt(ops, n, &a, &m, &k)) {
		o->cfa.reg = in->sp;
		o->cfa.off = a;
		o->plt = 1;
		o->plt_m = (uint8_t)m;
		o->plt_k = (uint8_t)k;
		return NULL;
	}
	return "CFA is a DWARF expression";
}

/* The ABI's defaults: no RA rule on aarch64 is "RA in x30", the RA at
 * CFA - 8 on x86_64 is the fixed offset (sfh_cfa_fixed_ra_offset). */
static const char *ra_default(const struct input *in, const struct rule *ra, uint8_t ra_signed, struct srow *o)
{
	if (in->e.machine == EM_X86_64) {
		if (!o->ra.present && ra->kind != R_REG)
			return "RA has no rule";
		if (o->ra.present && !o->ra.reg_p && o->ra.deref && o->ra.off == -8)
			o->ra.present = 0;
		return NULL;
	}
	if (o->ra.present && o->ra.reg_p && !o->ra.deref && o->ra.reg == in->ra && o->ra.off == 0)
		o->ra.present = 0;
	o->mangled = ra_signed;
	return NULL;
}

/* One libdw row into an SFrame row, or the reason it cannot be. */
static const char *translate(const struct input *in, Dwarf_Frame *fr, uint8_t ra_signed, struct srow *o, char *buf,
			     size_t n)
{
	Dwarf_Op m1[3], m2[3], m3[3];
	struct rule ra, fp, sp;
	int ra_col = dwarf_frame_info(fr, NULL, NULL, NULL);
	const char *why;
	memset(o, 0, sizeof *o);
	if (ra_col < 0 || (uint64_t)ra_col != in->ra) {
		snprintf(buf, n, "return address column is %d, not %" PRIu64, ra_col, in->ra);
		return buf;
	}
	if (get_rule(fr, in->ra, m1, &ra) || get_rule(fr, in->fp, m2, &fp) || get_rule(fr, in->sp, m3, &sp))
		return "a register rule libdw cannot give";
	if (ra.kind == R_UNDEF) {
		o->undef = 1; /* outermost frame: nothing else matters */
		return NULL;
	}
	/* libdw's ABI rule for the SP is "value = CFA" (val_offset 0), which
	 * is what SFrame assumes; any other is the program's own. */
	if (sp.kind != R_OFFSET || !sp.value || sp.off != 0)
		return "stack pointer has a rule of its own";
	if ((why = cfa_ent(in, fr, o)) || (why = rule_ent(&ra, &o->ra, "RA", buf, n)) ||
	    (why = rule_ent(&fp, &o->fp, "FP", buf, n)) || (why = ra_default(in, &ra, ra_signed, o)))
		return why;
	if (o->cfa.off < INT32_MIN || o->cfa.off > INT32_MAX || o->ra.off < INT32_MIN || o->ra.off > INT32_MAX ||
	    o->fp.off < INT32_MIN || o->fp.off > INT32_MAX)
		return "offset does not fit in 32 bits";
	if ((o->cfa.reg_p && o->cfa.reg > 0x1fffffff) || (o->ra.reg_p && o->ra.reg > 0x1fffffff) ||
	    (o->fp.reg_p && o->fp.reg > 0x1fffffff))
		return "register number too large";
	return NULL;
}

/* ---- reading the CFI sections ------------------------------------------------------ */

static const char *sec_kind(const struct cfi_sec *s)
{
	return s->eh ? ".eh_frame" : ".debug_frame";
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

/* Walk the CIE's and the FDE's programs for the RA sign state and a clear
 * reason on bad input (libdw only says "invalid CFI section"). */
static void scan_fde(const struct input *in, const struct cfi_sec *s, const struct cfi_fde *fde,
		     struct cfi_scan_state *sc)
{
	const char *why = NULL;
	char msg[160];
	uint64_t bad = 0;
	memset(sc, 0, sizeof *sc);
	sc->loc = fde->pc;
	sc->end = fde->pc + fde->range;
	sc->aarch64 = in->e.machine == EM_AARCH64;
	if (cfi_scan(s, &fde->cie, fde->cie.insns, fde->cie.insns_end, 0, sc, &why, &bad, msg, sizeof msg) != 0)
		die(1, "%s CIE at 0x%" PRIx64 ", byte 0x%" PRIx64 ": %s", sec_kind(s), fde->cie.off, bad, why);
	sc->depth = 0; /* DW_CFA_restore_state in an FDE cannot reach the CIE's */
	if (cfi_scan(s, &fde->cie, fde->insns, fde->insns_end, 1, sc, &why, &bad, msg, sizeof msg) != 0 ||
	    cfi_scan_advance(sc, &fde->cie, 0) != 0)
		die(1, "%s FDE at 0x%" PRIx64 ", byte 0x%" PRIx64 ": %s", sec_kind(s), fde->off, bad,
		    why ? why : "out of memory");
}

/* Whether libdw's row [lo, hi) for address a is one cfi_fde_decode and
 * cfi_scan see too: it holds a (starts there if a is the FDE's start) and
 * ends at a location of the program or at the FDE's end.  (Rows after
 * DW_CFA_restore_state start where the state was remembered: libdw
 * restores the location with it.) */
static int rows_agree(const struct cfi_fde *fde, const struct cfi_scan_state *sc, uint64_t a, uint64_t lo,
		      uint64_t hi, uint64_t end)
{
	uint8_t sgn;
	if (lo > a || (a == fde->pc && lo != a) || hi <= a)
		return 0;
	return cfi_scan_at(sc, a, &sgn) && (hi == end || cfi_scan_at(sc, hi, &sgn));
}

/* The rows of one FDE from libdw, translated into f (or f->omit). */
static void fde_rows(struct input *in, const struct cfi_sec *s, const struct cfi_fde *fde,
		     const struct cfi_scan_state *sc, struct fn *f)
{
	uint64_t a = fde->pc, end = fde->pc + fde->range;
	size_t cap = 0;
	while (a < end && !f->omit) {
		Dwarf_Frame *fr;
		Dwarf_Addr lo, hi;
		struct srow o;
		uint8_t sgn = 0;
		char msg[160], nm[128], why[320];
		const char *r;
		if (dwarf_cfi_addrframe(s->cfi, a, &fr) != 0)
			die(1, "%s FDE at 0x%" PRIx64 ": libdw: %s", sec_kind(s), fde->off, dwarf_errmsg(-1));
		dwarf_frame_info(fr, &lo, &hi, NULL);
		hi = hi < end ? hi : end;
		if (!rows_agree(fde, sc, a, lo, hi, end))
			die(1, "%s FDE at 0x%" PRIx64 ": libdw's row at 0x%" PRIx64 " is [0x%" PRIx64 ", 0x%" PRIx64
			    "), not one of this FDE's (overlapping FDEs, or a CFA program libdw reads otherwise)",
			    sec_kind(s), fde->off, a, lo, hi);
		cfi_scan_at(sc, a, &sgn);
		r = translate(in, fr, sgn, &o, msg, sizeof msg);
		free(fr);
		if (r) {
			snprintf(why, sizeof why, "%s (at %s)", r, sfu_elf_sym_name(&in->syms, a, nm, sizeof nm));
			f->omit = f->omit_own = xstrdup(why);
			break;
		}
		o.start = (uint32_t)(a - fde->pc);
		a = hi;
		if (f->nrows && srow_same_rule(&f->rows[f->nrows - 1], &o))
			continue;
		GROW(f->rows, f->nrows, cap);
		f->rows[f->nrows++] = o;
	}
}

static void add_fn(struct gen *g, const struct cfi_sec *s, const struct cfi_fde *fde, const struct relinfo *ri)
{
	struct input *in = g->in;
	struct cfi_scan_state sc;
	struct fn f;

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
			die(1, "%s FDE at 0x%" PRIx64 ": no relocation for its initial location", sec_kind(s), fde->off);
		f.rsym = r->sym;
		f.raddend = r->addend;
	}
	if (fde->pc + fde->range < fde->pc)
		die(1, "%s FDE at 0x%" PRIx64 ": address range wraps around", sec_kind(s), fde->off);
	if (fde->cie.aug_bad) {
		char msg[64];
		snprintf(msg, sizeof msg, "unknown CIE augmentation '%c'", fde->cie.aug_bad);
		f.omit = f.omit_own = xstrdup(msg);
	} else {
		scan_fde(in, s, fde, &sc);
		fde_rows(in, s, fde, &sc, &f);
		free(sc.marks);
	}
	GROW(g->fns, g->nfns, g->capfns);
	g->fns[g->nfns++] = f;
}

/* ET_REL: relocate section idx's bytes in place of libdw's view of them
 * (code sections at their sfu_elf_layout bases), and keep its relocations
 * to find each FDE's start symbol.  libdw itself applies none (libdwfl
 * does, to DWARF sections only, with its own layout, and says nothing of
 * the symbols). */
static uint8_t *relocate_cfi(struct input *in, unsigned idx, Elf_Data *d, Elf_Data *raw, const char *name,
			     struct relinfo *ri)
{
	uint8_t *buf = xrealloc(NULL, d->d_size);
	unsigned j;
	size_t cap = 0;
	memcpy(buf, d->d_buf, d->d_size);
	for (j = 1; j < in->nsec; j++) {
		struct shdr r;
		int k, n;
		if (!get_shdr(&in->e, j, &r) || (r.type != SHT_RELA && r.type != SHT_REL) || r.info != idx)
			continue;
		if (r.type != SHT_RELA)
			die(1, "%s: SHT_REL relocations are not used on this machine", name);
		if (apply_relocs(&in->e, j, &r, buf, d->d_size, in->bases) != 0)
			die(1, "%s: a relocation of an unknown type or outside the section", name);
		n = sfu_elf_rel_count(&in->e, &r);
		for (k = 0; k < n; k++) {
			GROW(ri->r, ri->n, cap);
			if (!sfu_elf_rel_get(&in->e, j, 1, k, &ri->r[ri->n]))
				die(1, "%s: relocation outside the file", name);
			ri->n++;
		}
	}
	qsort(ri->r, ri->n, sizeof *ri->r, rel_cmp);
	d->d_buf = raw->d_buf = buf; /* libdw reads .eh_frame raw, .debug_frame not */
	return buf;
}

/* What is wrong with the entry at off that dwarf_next_cfi refused (its
 * message is "invalid DWARF" whatever the reason): the header of a CIE or
 * FDE (DWARF 5 6.4.1, LSB 5.0 10.6.1). */
static const char *why_bad(const struct cfi_sec *s, uint64_t off)
{
	struct cfi_cur c = { (const uint8_t *)s->data->d_buf + off, (const uint8_t *)s->data->d_buf + s->data->d_size,
			     s->big, 0 };
	uint64_t len = cfi_un(&c, 4), id, idpos;
	int d64 = len == 0xffffffffu;
	if (d64)
		len = cfi_un(&c, 8);
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return "runs past the end of the section (truncated?)";
	idpos = cfi_off(s, c.p);
	id = cfi_un(&c, d64 ? 8 : 4);
	if (s->eh ? id == 0 : id == (d64 ? ~(uint64_t)0 : 0xffffffffu)) {
		unsigned v = (unsigned)cfi_un(&c, 1);
		return v != 1 && v != 3 && v != 4 ? "unsupported CIE version" : "malformed CIE";
	}
	if (s->eh && id > idpos)
		return "FDE's CIE pointer points before the section";
	return "malformed FDE";
}

/* Every FDE of one CFI section, through dwarf_next_cfi.  A zero word
 * between entries is a terminator .eh_frame may hold more than one of
 * (ld -r, crtend.o): skipped. */
static void walk_cfi(struct gen *g, const struct cfi_sec *s, const struct relinfo *ri)
{
	Dwarf_Off off = 0, next;
	size_t size = s->data->d_size;
	const uint8_t *p = s->data->d_buf;
	while (off < size) {
		Dwarf_CFI_Entry e;
		struct cfi_fde fde;
		const char *why;
		int r = dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e);
		if (r == 1 && off + 4 <= size && !p[off] && !p[off + 1] && !p[off + 2] && !p[off + 3]) {
			off += 4;
			continue;
		}
		if (r == 1)
			break;
		if (r < 0)
			die(1, "%s: entry at 0x%" PRIx64 ": %s (libdw: %s)", sec_kind(s), (uint64_t)off, why_bad(s, off),
			    dwarf_errmsg(-1));
		if (!dwarf_cfi_cie_p(&e)) {
			if (cfi_fde_decode(s, off, &e, &fde, &why) != 0)
				die(1, "%s: FDE at 0x%" PRIx64 ": %s", sec_kind(s), (uint64_t)off, why);
			add_fn(g, s, &fde, ri);
		}
		off = next;
	}
}

/* Read every FDE of one CFI section (index idx). */
static void read_cfi(struct gen *g, unsigned idx, int eh)
{
	struct input *in = g->in;
	struct shdr sh;
	struct cfi_sec s;
	struct relinfo ri = { NULL, 0 };
	uint8_t *own = NULL;
	void *orig;
	Elf_Data *raw;
	Dwarf *dw = NULL;
	const char *name = eh ? ".eh_frame" : ".debug_frame";

	if (!get_shdr(&in->e, idx, &sh))
		die(1, "%s: section header or bytes outside the file", name);
	if (sh.type == SHT_NOBITS)
		return; /* debug-info file without the bytes */
	memset(&s, 0, sizeof s);
	s.data = elf_getdata(elf_getscn(in->e.elf, idx), NULL);
	raw = elf_rawdata(elf_getscn(in->e.elf, idx), NULL);
	if (!s.data || !raw)
		die(1, "%s: libelf: %s", name, elf_errmsg(-1));
	orig = s.data->d_buf;
	if (in->rel)
		own = relocate_cfi(in, idx, s.data, raw, name, &ri);
	s.ident = (const unsigned char *)elf_getident(in->e.elf, NULL);
	s.addr = in->bases[idx];
	s.big = in->e.big;
	s.eh = eh;
	/* libdw reads the first .eh_frame (and the only .debug_frame). */
	if (eh)
		s.cfi = dwarf_getcfi_elf(in->e.elf);
	else if ((dw = dwarf_begin_elf(in->e.elf, DWARF_C_READ, NULL)))
		s.cfi = dwarf_getcfi(dw);
	if (!s.cfi)
		die(1, "%s: libdw: %s", name, dwarf_errmsg(-1));
	walk_cfi(g, &s, &ri);
	if (eh)
		dwarf_cfi_end(s.cfi);
	dwarf_end(dw);
	free(ri.r);
	if (own)
		s.data->d_buf = raw->d_buf = orig;
	free(own);
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

/* The header (spec 2.2), counts filled in by encode. */
static void encode_header(const struct gen *g, struct bytes *out, size_t nf)
{
	const struct input *in = g->in;
	int amd64 = in->e.machine == EM_X86_64;
	uint8_t flags = SFU_F_FDE_FUNC_START_PCREL;
	if (!in->rel)
		flags |= SFU_F_FDE_SORTED; /* objects: ld sorts when it merges, as gas leaves it */
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
	put(out, 4, nf * (g->version == 3 ? SFU_V3_FDE_SIZE : SFU_V2_FDE_SIZE));
}

/* One function's index entry into out (at fde_at, start offset from the
 * field: PCREL) and its FRE block header, V3, into fres (spec 2.3, 2.4). */
static void encode_fde(const struct gen *g, const struct fn *f, uint64_t addr, struct bytes *out,
		       struct bytes *fres, unsigned fre_type)
{
	int rel = g->in->rel;
	size_t fde_at = out->n;
	uint8_t info = (uint8_t)(fre_type | (f->mask ? SFU_FDE_PCTYPE_MASK << 4 : 0) | (f->bkey ? 1u << 5 : 0) |
				 (g->version == 3 && f->signal ? 1u << 7 : 0));
	if (g->version == 3) {
		put(out, 8, rel ? 0 : f->pc - (addr + fde_at));
		put(out, 4, f->size);
		put(out, 4, fres->n); /* the attribute */
		put(fres, 2, f->nrows);
		put(fres, 1, info);
		put(fres, 1, f->flex ? SFU_FDE_TYPE_FLEX : SFU_FDE_TYPE_DEFAULT);
		put(fres, 1, f->mask ? f->rep : 0);
	} else {
		int64_t d = (int64_t)(f->pc - (addr + fde_at));
		if (!rel && (d < INT32_MIN || d > INT32_MAX))
			die(1, "a function is more than 2 GiB away from the section (V2 start offsets are 32-bit)");
		put(out, 4, rel ? 0 : (uint32_t)d);
		put(out, 4, f->size);
		put(out, 4, fres->n);
		put(out, 4, f->nrows);
		put(out, 1, info);
		put(out, 1, f->mask ? f->rep : 0);
		put(out, 2, 0);
	}
}

/* One function's FREs (spec 2.4); returns how many. */
static size_t encode_fres(const struct input *in, const struct fn *f, struct bytes *fres, unsigned ab)
{
	size_t k;
	for (k = 0; k < f->nrows; k++) {
		const struct srow *r = &f->rows[k];
		int64_t w[8];
		unsigned width, n, j;
		int ctl;
		uint8_t base_sp;
		n = row_words(in, f, r, w, &width, &ctl);
		base_sp = r->undef || !(r->cfa.reg_p && r->cfa.reg == in->fp);
		put(fres, ab, r->start);
		put(fres, 1, (uint64_t)(base_sp | n << 1 | (width == 1 ? 0u : width == 2 ? 1u : 2u) << 5 |
					(r->mangled && !r->undef ? 1u << 7 : 0)));
		for (j = 0; j < n; j++)
			put(fres, width, (uint64_t)w[j]);
	}
	return f->nrows;
}

/* Encode the section for run-time address addr.  Fills rels for ET_REL. */
static void encode(struct gen *g, uint64_t addr, struct bytes *out, struct outrel **rels, size_t *nrels)
{
	struct input *in = g->in;
	struct bytes fres = { NULL, 0, 0, in->e.big };
	size_t i, nf = 0, nfres = 0;

	for (i = 0; i < g->nfns; i++)
		if (!g->fns[i].omit)
			nf++;
	out->big = in->e.big;
	encode_header(g, out, nf);
	*rels = xrealloc(NULL, (nf ? nf : 1) * sizeof **rels);
	*nrels = 0;
	for (i = 0; i < g->nfns; i++) {
		const struct fn *f = &g->fns[i];
		uint32_t maxstart = 0;
		unsigned fre_type;
		size_t k;
		if (f->omit)
			continue;
		for (k = 0; k < f->nrows; k++)
			if (f->rows[k].start > maxstart)
				maxstart = f->rows[k].start;
		fre_type = maxstart <= 0xff ? SFU_FRE_TYPE_ADDR1 : maxstart <= 0xffff ? SFU_FRE_TYPE_ADDR2 : SFU_FRE_TYPE_ADDR4;
		if (in->rel) {
			(*rels)[*nrels].off = out->n;
			(*rels)[*nrels].sym = f->rsym;
			(*rels)[(*nrels)++].addend = f->raddend;
		}
		encode_fde(g, f, addr, out, &fres, fre_type);
		nfres += encode_fres(in, f, &fres, fre_type == SFU_FRE_TYPE_ADDR1 ? 1 : fre_type == SFU_FRE_TYPE_ADDR2 ? 2 : 4);
	}
	put_at(out, SFU_HDR_NUM_FRES, 4, nfres);
	put_at(out, SFU_HDR_FRE_LEN, 4, fres.n);
	for (i = 0; i < fres.n; i++)
		put(out, 1, fres.p[i]);
	free(fres.p);
}

/* ---- output, through libelf ------------------------------------------------------ */

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

/* What write_elf decided: the sections it touches and their new contents. */
struct plan {
	unsigned nsh, old, oldrel, symtab, sfidx, relidx, shstrndx;
	int inplace;
	uint64_t addr;
	struct bytes sf;
	struct outrel *rels;
	size_t nrels;
};

/* The output file, removed when libelf fails to write it. */
static const char *out_path;

static void die_elf(const char *what)
{
	struct stat st;
	if (out_path && stat(out_path, &st) == 0 && S_ISREG(st.st_mode))
		remove(out_path);
	die(2, "libelf: %s: %s", what, elf_errmsg(-1));
}

/* The first address past every allocated section, page-aligned: where a
 * new .sframe goes when no --addr says otherwise. */
static uint64_t past_image(const struct input *in)
{
	uint64_t addr = 0;
	unsigned i;
	for (i = 1; i < in->nsec; i++) {
		struct shdr s;
		if (get_shdr(&in->e, i, &s) && (s.flags & SHF_ALLOC) && s.addr + s.size > addr)
			addr = s.addr + s.size;
	}
	return (addr + 0xfff) & ~(uint64_t)0xfff;
}

/* The old .sframe, its relocations and the symbol table of the CFI's. */
static void find_sections(const struct input *in, struct plan *p)
{
	unsigned i;
	for (i = 1; i < in->nsec; i++) {
		struct shdr s, t;
		const char *tn;
		if (!get_shdr(&in->e, i, &s))
			die(1, "section header %u or its bytes outside the file", i);
		if (!p->old && sfu_elf_is_sframe(&in->e, &s))
			p->old = i;
		if ((s.type != SHT_RELA && s.type != SHT_REL) || !get_shdr(&in->e, s.info, &t))
			continue;
		tn = sec_name(&in->e, &t);
		if (p->old && s.info == p->old)
			p->oldrel = i;
		if (in->rel && s.type == SHT_RELA && s.link && (!strcmp(tn, ".eh_frame") || !strcmp(tn, ".debug_frame")))
			p->symtab = s.link;
	}
}

/* Where the section will be, then its bytes: in place of an old .sframe
 * that is loaded and big enough, else at --addr or past the image. */
static void place(struct gen *g, struct plan *p, int have_addr, uint64_t want_addr)
{
	struct input *in = g->in;
	struct shdr o;
	int can = p->old && !in->rel && !have_addr && get_shdr(&in->e, p->old, &o) && (o.flags & SHF_ALLOC) &&
		  o.type != SHT_NOBITS;
	p->addr = in->rel ? 0 : can ? o.addr : have_addr ? want_addr : past_image(in);
	p->sf.big = in->e.big;
	encode(g, p->addr, &p->sf, &p->rels, &p->nrels);
	p->inplace = can && p->sf.n <= o.size;
	if (can && !p->inplace) {
		free(p->sf.p);
		free(p->rels);
		memset(&p->sf, 0, sizeof p->sf);
		p->sf.big = in->e.big;
		p->addr = past_image(in);
		encode(g, p->addr, &p->sf, &p->rels, &p->nrels);
	}
}

/* A new ELF file on fd with the input's header, program headers and
 * sections, in the same order (libelf converts each section's data back
 * to the file's byte order).  Images keep every offset (ELF_F_LAYOUT: the
 * segments must not move); objects are laid out by libelf. */
static Elf *copy_elf(Elf *in, int fd, int layout)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	GElf_Ehdr eh;
	size_t i, n;
	if (!out || !gelf_getehdr(in, &eh) || !gelf_newehdr(out, gelf_getclass(in)) || !gelf_update_ehdr(out, &eh))
		die_elf("the ELF header");
	if (elf_getphdrnum(in, &n) == 0 && n && !gelf_newphdr(out, n))
		die_elf("the program headers");
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			die_elf("a program header");
	}
	if (layout)
		elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	for (i = 1; elf_getshdrnum(in, &n) == 0 && i < n; i++) {
		Elf_Scn *s = elf_getscn(in, i), *o = elf_newscn(out);
		Elf_Data *d = s ? elf_getdata(s, NULL) : NULL, *od;
		GElf_Shdr sh;
		if (!o || !gelf_getshdr(s, &sh) || !gelf_update_shdr(o, &sh))
			die_elf("a section header");
		for (; d; d = elf_getdata(s, d)) {
			if (!(od = elf_newdata(o)))
				die_elf("section data");
			*od = *d;
		}
	}
	return out;
}

/* Section idx's data, replaced by n bytes at p (of type t). */
static void set_data(Elf *e, unsigned idx, void *p, size_t n, Elf_Type t, size_t align)
{
	Elf_Scn *scn = elf_getscn(e, idx);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d && scn)
		d = elf_newdata(scn);
	if (!d)
		die_elf("section data");
	d->d_buf = p;
	d->d_size = n;
	d->d_type = t;
	d->d_off = 0;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
}

/* Set the header fields of section idx (a new one if idx == 0). */
static unsigned set_shdr(Elf *e, unsigned idx, const GElf_Shdr *sh)
{
	Elf_Scn *scn = idx ? elf_getscn(e, idx) : elf_newscn(e);
	if (!scn || !gelf_update_shdr(scn, (GElf_Shdr *)sh))
		die_elf("section header");
	elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY);
	return (unsigned)elf_ndxscn(scn);
}

/* Program headers: PT_GNU_SFRAME follows a section replaced in place (its
 * sizes), or is dropped (PT_NULL) when the section moved away. */
static void fix_phdrs(Elf *e, const struct plan *p, uint64_t old_off)
{
	size_t i, n;
	if (elf_getphdrnum(e, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_GNU_SFRAME || (p->inplace && ph.p_offset != old_off))
			continue;
		if (p->inplace)
			ph.p_filesz = ph.p_memsz = p->sf.n;
		else
			ph.p_type = PT_NULL;
		if (!gelf_update_phdr(e, (int)i, &ph))
			die_elf("program header");
	}
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
}

/* The new section's bytes over the old one's, which keeps its place (the
 * rest of its old bytes: libelf's fill, zeroes). */
static void write_inplace(Elf *e, struct plan *p)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(e, p->old);
	if (!scn || !gelf_getshdr(scn, &sh))
		die_elf("the old .sframe");
	sh.sh_size = p->sf.n;
	set_shdr(e, p->old, &sh);
	set_data(e, p->old, p->sf.p, p->sf.n, ELF_T_BYTE, sh.sh_addralign);
	fix_phdrs(e, p, sh.sh_offset);
}

/* The names of the sections sfu-gen adds, after the old string table's. */
static uint8_t *names(Elf *e, unsigned shstrndx, size_t *n, uint32_t at[3])
{
	static const char add[] = ".sframe\0.rela.sframe\0.sframe.old";
	Elf_Data *d = elf_getdata(elf_getscn(e, shstrndx), NULL);
	uint8_t *p;
	if (!d)
		die_elf("section names");
	p = xrealloc(NULL, d->d_size + sizeof add);
	memcpy(p, d->d_buf, d->d_size);
	memcpy(p + d->d_size, add, sizeof add);
	at[0] = (uint32_t)d->d_size;
	at[1] = at[0] + 8;
	at[2] = at[1] + 13;
	*n = d->d_size + sizeof add;
	return p;
}

/* ET_REL: .rela.sframe, one PC-relative relocation per FDE start against
 * the symbol the CFI's relocation used (libelf converts the byte order). */
static void write_rela(Elf *e, const struct gen *g, struct plan *p, uint32_t name, Elf64_Rela **out)
{
	GElf_Shdr sh;
	size_t i;
	uint32_t type = g->in->e.machine == EM_X86_64 ? (g->version == 3 ? R_X86_64_PC64 : R_X86_64_PC32)
						       : (g->version == 3 ? R_AARCH64_PREL64 : R_AARCH64_PREL32);
	*out = xrealloc(NULL, (p->nrels ? p->nrels : 1) * sizeof **out);
	for (i = 0; i < p->nrels; i++) {
		(*out)[i].r_offset = p->rels[i].off;
		(*out)[i].r_info = ELF64_R_INFO(p->rels[i].sym, type);
		(*out)[i].r_addend = p->rels[i].addend;
	}
	memset(&sh, 0, sizeof sh);
	sh.sh_name = name;
	sh.sh_type = SHT_RELA;
	sh.sh_flags = SHF_INFO_LINK;
	sh.sh_link = p->symtab;
	sh.sh_info = p->sfidx;
	sh.sh_entsize = sizeof(Elf64_Rela);
	sh.sh_addralign = 8;
	sh.sh_size = p->nrels * sizeof(Elf64_Rela);
	p->relidx = set_shdr(e, p->oldrel, &sh);
	set_data(e, p->relidx, *out, sh.sh_size, ELF_T_RELA, 8);
}

/* A new .sframe (objects: in place of the old one, with .rela.sframe);
 * images: past the end of the file, with the names and the section header
 * table after it (ELF_F_LAYOUT: nothing else moves). */
static void write_added(Elf *e, const struct gen *g, struct plan *p, uint8_t **strtab, Elf64_Rela **rela)
{
	const struct input *in = g->in;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t n, end;
	uint32_t at[3];
	elf_rawfile(in->e.elf, &end);
	*strtab = names(e, p->shstrndx, &n, at);
	if (p->old && !in->rel)
		fix_phdrs(e, p, 0);
	memset(&sh, 0, sizeof sh);
	sh.sh_name = at[0];
	sh.sh_type = g->version == 3 ? SHT_GNU_SFRAME : SHT_PROGBITS;
	sh.sh_flags = in->rel ? SHF_ALLOC : 0;
	sh.sh_addr = in->rel ? 0 : p->addr;
	sh.sh_offset = end = (end + 7) & ~(size_t)7;
	sh.sh_size = p->sf.n;
	sh.sh_addralign = 8;
	p->sfidx = set_shdr(e, in->rel ? p->old : 0, &sh);
	set_data(e, p->sfidx, p->sf.p, p->sf.n, ELF_T_BYTE, 8);
	if (p->old && !in->rel && gelf_getshdr(elf_getscn(e, p->old), &sh)) {
		sh.sh_name = at[2];
		set_shdr(e, p->old, &sh);
	}
	if (in->rel)
		write_rela(e, g, p, at[1], rela);
	if (!gelf_getshdr(elf_getscn(e, p->shstrndx), &sh) || !gelf_getehdr(e, &eh))
		die_elf("section names");
	sh.sh_offset = end = (end + p->sf.n + 7) & ~(size_t)7;
	sh.sh_size = n;
	set_shdr(e, p->shstrndx, &sh);
	set_data(e, p->shstrndx, *strtab, n, ELF_T_BYTE, 1);
	eh.e_shoff = (end + n + 7) & ~(size_t)7;
	if (!gelf_update_ehdr(e, &eh))
		die_elf("ELF header");
}

/* The temporary file t into path (a device or a pipe). */
static void copy_out(FILE *t, const char *path)
{
	FILE *f = fopen(path, "wb");
	char buf[65536];
	size_t n;
	rewind(t);
	while (f && (n = fread(buf, 1, sizeof buf, t)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (!f || ferror(t) || fclose(f) != 0)
		die(2, "%s: %s", path, strerror(errno));
	fclose(t);
}

/* Write FILE again with the new .sframe (and .rela.sframe for objects). */
static void write_elf(struct gen *g, const char *path, int have_addr, uint64_t want_addr)
{
	struct input *in = g->in;
	struct plan p;
	uint8_t *strtab = NULL;
	Elf64_Rela *rela = NULL;
	size_t shstrndx;
	struct stat st;
	int fd, direct;
	FILE *t;
	Elf *e;

	memset(&p, 0, sizeof p);
	find_sections(in, &p);
	if (in->rel && !p.symtab)
		die(1, "no symbol table for the relocations of .sframe");
	if (elf_getshdrstrndx(in->e.elf, &shstrndx) != 0)
		die(1, "no section name table");
	p.shstrndx = (unsigned)shstrndx;
	place(g, &p, have_addr, want_addr);
	/* Every check is done: what fails now is writing (exit status 2).
	 * libelf sizes its file with ftruncate: a device or a pipe (-o
	 * /dev/null) gets the bytes of a temporary file. */
	direct = stat(path, &st) != 0 || S_ISREG(st.st_mode);
	t = direct ? NULL : tmpfile();
	fd = direct ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : t ? fileno(t) : -1;
	if (fd < 0)
		die(2, "%s: %s", direct ? path : "temporary file", strerror(errno));
	out_path = direct ? path : NULL;
	e = copy_elf(in->e.elf, fd, !in->rel);
	if (p.inplace)
		write_inplace(e, &p);
	else
		write_added(e, g, &p, &strtab, &rela);
	if (elf_update(e, ELF_C_WRITE) < 0)
		die_elf("writing");
	elf_end(e);
	if (t)
		copy_out(t, path);
	else if (close(fd) != 0)
		die_elf("closing");
	free(p.sf.p);
	free(p.rels);
	free(strtab);
	free(rela);
}

/* ---- main -------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: sfu-gen [--sframe-version 2|3] [--from eh|debug|both] [-q]\n"
			"               (-o OUT.elf | --raw OUT.bin --addr ADDR) FILE\n");
	exit(2);
}

struct opts {
	const char *out, *raw;
	int have_addr, quiet, from; /* from: 1 eh, 2 debug, 3 both */
	int version;
	uint64_t addr;
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int i;
	sfu_tool_args(argc, argv, "sfu-gen", help);
	memset(o, 0, sizeof *o);
	o->from = 3;
	o->version = 3;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (v && !strcmp(a, "-o"))
			o->out = argv[++i];
		else if (v && !strcmp(a, "--raw"))
			o->raw = argv[++i];
		else if (v && !strcmp(a, "--addr")) {
			errno = 0;
			o->addr = strtoull(argv[++i], &end, 0);
			if (errno || *end || end == v)
				usage();
			o->have_addr = 1;
		} else if (v && !strcmp(a, "--sframe-version")) {
			o->version = !strcmp(argv[++i], "2") ? 2 : !strcmp(v, "3") ? 3 : 0;
			if (!o->version)
				usage();
		} else if (v && !strcmp(a, "--from")) {
			o->from = !strcmp(argv[++i], "eh") ? 1 : !strcmp(v, "debug") ? 2 : !strcmp(v, "both") ? 3 : 0;
			if (!o->from)
				usage();
		} else if (!strcmp(a, "-q"))
			o->quiet = 1;
		else if (a[0] == '-' || in_path)
			usage();
		else
			in_path = a;
	}
	if (!in_path || (!o->out && !o->raw) || (o->out && o->raw) || (o->raw && !o->have_addr))
		usage();
}

/* Open FILE; the machine's DWARF registers; made-up addresses for an
 * object's sections; symbols for messages. */
static void open_input(struct input *in, int raw)
{
	char err[512];
	if (sfu_elf_open(in_path, &in->e, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		exit(strstr(err, "not an ELF") ? 1 : 2);
	}
	if (!in->e.is64)
		die(1, "32-bit ELF: only ELF64 x86_64 and aarch64 are supported");
	if (in->e.machine == EM_X86_64 && !in->e.big) {
		in->fp = SFU_DWARF_AMD64_FP;
		in->sp = SFU_DWARF_AMD64_SP;
		in->ra = SFU_DWARF_AMD64_RA;
	} else if (in->e.machine == EM_AARCH64) {
		in->fp = SFU_DWARF_AARCH64_FP;
		in->sp = SFU_DWARF_AARCH64_SP;
		in->ra = SFU_DWARF_AARCH64_LR;
	} else {
		die(1, "machine %u%s: only x86_64 (little-endian) and aarch64 are supported", in->e.machine,
		    in->e.big ? " big-endian" : "");
	}
	if (in->e.type != ET_REL && in->e.type != ET_EXEC && in->e.type != ET_DYN)
		die(1, "ELF type %u: not an image or a relocatable object", in->e.type);
	in->rel = in->e.type == ET_REL;
	if (raw && in->rel)
		die(2, "--raw needs a linked image (a relocatable object has no addresses yet); use -o");
	{
		size_t n = 0;
		GElf_Ehdr eh;
		/* libelf counts no sections when their table is cut off. */
		if (elf_getshdrnum(in->e.elf, &n) != 0 || !gelf_getehdr(in->e.elf, &eh) || (!n && eh.e_shoff))
			die(1, "section header table outside the file (truncated?)");
		in->nsec = (unsigned)n;
	}
	if (in->nsec == 0)
		die(1, "no section headers");
	in->bases = xrealloc(NULL, in->nsec * sizeof *in->bases);
	sfu_elf_layout(&in->e, in->bases);
	sfu_elf_symbols(&in->e, in->bases, &in->syms);
}

/* Every .eh_frame FDE, then every .debug_frame one (--from). */
static void read_all(struct gen *g, int from)
{
	struct input *in = g->in;
	unsigned k, pass, n[2] = { 0, 0 };
	for (pass = 0; pass < 2; pass++) {
		for (k = 1; k < in->nsec; k++) {
			struct shdr s;
			if (!get_shdr(&in->e, k, &s))
				die(1, "section header %u or its bytes outside the file", k);
			if (!(from & (1 << pass)) || strcmp(sec_name(&in->e, &s), pass ? ".debug_frame" : ".eh_frame"))
				continue;
			if (n[pass]++)
				die(1, "more than one %s section (libdw reads the first only)",
				    pass ? ".debug_frame" : ".eh_frame");
			read_cfi(g, k, !pass);
		}
	}
	if (!n[0] && !n[1])
		die(1, "no CFI: no %s section",
		    from == 1 ? ".eh_frame" : from == 2 ? ".debug_frame" : ".eh_frame or .debug_frame");
	if (g->nfns == 0)
		die(1, "no CFI: the %s section%s describe%s no function", n[0] ? ".eh_frame" : ".debug_frame",
		    n[0] + n[1] > 1 ? "s" : "", n[0] + n[1] > 1 ? "" : "s");
}

/* Sorted by start; a function described twice keeps its .eh_frame
 * description; overlapping FDEs are refused. */
static void dedupe(struct gen *g)
{
	size_t j, kept = 0;
	uint64_t last_end = 0;
	int have = 0;
	qsort(g->fns, g->nfns, sizeof *g->fns, fn_cmp);
	for (j = 0; j < g->nfns; j++) {
		struct fn *f = &g->fns[j];
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
		g->fns[kept++] = *f;
	}
	g->nfns = kept;
	for (j = 0, kept = g->nfns; j < kept; j++)
		finish_fn(g, j);
	qsort(g->fns, g->nfns, sizeof *g->fns, fn_cmp);
}

/* Name each omitted function with its reason; count them. */
static size_t report(const struct gen *g, int quiet, size_t *omitted)
{
	size_t k, described = 0;
	*omitted = 0;
	for (k = 0; k < g->nfns; k++) {
		const struct fn *f = &g->fns[k];
		char nm[128];
		if (!f->omit) {
			described++;
			continue;
		}
		if (!f->omit[0])
			continue; /* an empty PLT head, split off */
		(*omitted)++;
		if (!quiet)
			fprintf(stderr, "%s: omitted %s (0x%" PRIx64 ", %" PRIu64 " bytes): %s\n", prog,
				sfu_elf_sym_name(&g->in->syms, f->pc, nm, sizeof nm), f->pc, f->size, f->omit);
	}
	return described;
}

int main(int argc, char **argv)
{
	struct input in;
	struct gen g;
	struct opts o;
	size_t described, omitted, k;

	parse_args(argc, argv, &o);
	memset(&in, 0, sizeof in);
	memset(&g, 0, sizeof g);
	g.version = o.version;
	g.in = &in;
	open_input(&in, o.raw != NULL);
	read_all(&g, o.from);
	dedupe(&g);
	described = report(&g, o.quiet, &omitted);
	if (described == 0)
		die(1, "no function could be described in SFrame (%zu omitted)", omitted);
	if (o.raw) {
		struct bytes sf = { NULL, 0, 0, in.e.big };
		struct outrel *rels;
		size_t nrels;
		encode(&g, o.addr, &sf, &rels, &nrels);
		write_file(o.raw, sf.p, sf.n);
		free(sf.p);
		free(rels);
	} else {
		write_elf(&g, o.out, o.have_addr, o.addr);
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
	sfu_elf_close(&in.e);
	return 0;
}
