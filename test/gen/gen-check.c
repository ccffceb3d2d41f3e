/* SPDX-License-Identifier: MIT */
/* gen-check REF GEN NAME [OMITTED] - row equivalence of two SFrame
 * descriptions of the same code.
 *
 * REF is a file whose .sframe another producer wrote (GNU as and ld, or
 * LLVM); GEN is the same file with sfu-gen's .sframe (made from the file's
 * own CFI).  Both are read by the core: at every byte address covered by
 * either section, sfu_find_row_n gives the row, and the CFA, RA and FP rules
 * (and the mangled-RA and signal bits) must be the same.  Rows change only
 * at FDE and FRE boundaries, so the check probes the first byte of every
 * piece between the union of both sections' boundaries - every address in
 * effect - and every byte of PC-mask FDEs.  A row that one producer splits
 * in two is no difference.
 *
 * Relocatable objects: code sections are placed one after the other
 * (sfu_elf_layout) and both sections relocated to match.
 *
 * OMITTED is sfu-gen's stderr: the functions it left out and why.
 *
 * The code must be the same: every code section of REF has one of the same
 * name, size (and address, in linked files) and bytes in GEN.
 * --sizes-only skips the bytes: for objects of two assemblers, whose
 * relocated fields differ, when their linked images were found equal.
 *
 * Every difference is classified (see classify()); output:
 *   "# diff NAME FUNC: CLASS: detail" for each differing function,
 *   "# plt.got NAME 0xPC: ref ROW, sfu-gen ROW; step: caller SP+N RA" for
 *   each piece of REF's .plt.got (GNU ld's PC-mask FDE there, which the
 *   core corrects: SFU_FIX_LD_PLTGOT; test/gen/run.sh builds this file with
 *   the fix and without): the rows, and one step of the core with REF's
 *   sections out of a sample there (SP = 0x7000, [SP] = the return address
 *   0x4000, [SP + 8] = 0x5000): "SP+8 0x4000" is right,
 *   "ok gen/NAME: ..." or "FAIL gen/NAME: N unexplained ...", and a
 *   machine-readable "stats NAME fns=.. bytes=.. pieces=.. ..." line.
 */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../../tools/sfu_elf.h"
#include "../common/rows.h"

#include <inttypes.h>

#define MAXSEC 64

struct side {
	struct elf e;
	uint64_t *bases;
	sfu_section secs[MAXSEC];
	uint8_t *bytes[MAXSEC];
	size_t nsecs;
	unsigned version;
	uint64_t size; /* section bytes */
	uint32_t fdes;
};

static void die(const char *what, const char *file)
{
	printf("FAIL gen/%s: %s\n", file, what);
	exit(1);
}

static const char *g_name;
static int sizes_only; /* code sections: same names and sizes, bytes not compared */

static void load(struct side *s, const char *path, const uint64_t *bases)
{
	char err[512];
	struct sfu_elf_sframe sf;
	unsigned k;
	if (sfu_elf_open(path, &s->e, err, sizeof err) != 0)
		die(err, g_name);
	for (k = 0; s->nsecs < MAXSEC && sfu_elf_sframe_get_at(&s->e, k, 1, bases, &sf) == 1; k++) {
		uint32_t bad = 0;
		size_t n = 0;
		/* V1 objects and early V2 ones: PC-relative starts without
		 * the flag (core SFU_OPT_START_PCREL). */
		unsigned opts = s->e.type == 1 ? SFU_OPT_START_PCREL : 0;
		int r;
		if (sf.reloc_failed)
			die("cannot apply the relocations of .sframe", g_name);
		s->size += sf.size;
		s->bytes[k] = sf.bytes;
		r = sfu_section_split(&s->secs[s->nsecs], MAXSEC - s->nsecs, &n, sf.bytes, (size_t)sf.size, sf.addr, opts);
		if (r != SFU_OK) {
			char m[256];
			snprintf(m, sizeof m, "%s: .sframe: %s", path, sfu_strerror(r));
			die(m, g_name);
		}
		for (; n; n--, s->nsecs++) {
			sfu_section *x = &s->secs[s->nsecs];
			r = sfu_section_validate(x, &bad);
			if (r != SFU_OK) {
				char m[256];
				snprintf(m, sizeof m, "%s: .sframe invalid at FDE %u: %s", path, bad, sfu_strerror(r));
				die(m, g_name);
			}
			s->version = x->version;
			s->fdes += x->num_fdes;
		}
	}
}

/* ---- boundaries -------------------------------------------------------------- */

struct span {
	uint64_t lo, hi; /* [lo, hi) */
	int mask;
};

static uint64_t *pts;
static size_t npts, cappts;
static struct span *spans;
static size_t nspans, capspans;

/* Room for one more element in a growing array. */
static void *grow(void *p, size_t n, size_t *cap, size_t elt)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	p = realloc(p, *cap * elt);
	if (!p)
		die("out of memory", g_name);
	return p;
}

static void add_pt(uint64_t a)
{
	pts = grow(pts, npts, &cappts, sizeof *pts);
	pts[npts++] = a;
}

static void add_span(uint64_t lo, uint64_t hi, int mask)
{
	spans = grow(spans, nspans, &capspans, sizeof *spans);
	spans[nspans].lo = lo;
	spans[nspans].hi = hi;
	spans[nspans].mask = mask;
	nspans++;
}

/* PC-mask FDEs: their FRE starts are offsets into each repeated block. */
struct mask {
	uint64_t lo, hi;
	uint32_t rep, n;
	uint32_t starts[16];
};
static struct mask masks[256];
static size_t nmasks;

static void boundaries(const struct side *s)
{
	size_t i;
	for (i = 0; i < s->nsecs; i++) {
		const sfu_section *x = &s->secs[i];
		uint32_t f;
		for (f = 0; f < x->num_fdes; f++) {
			sfu_fde fde;
			uint32_t k, off;
			if (sfu_fde_get(x, f, &fde) != SFU_OK)
				die("FDE does not decode", g_name);
			add_pt(fde.start);
			add_pt(fde.start + fde.size);
			add_span(fde.start, fde.start + fde.size, fde.pctype == SFU_FDE_PCTYPE_MASK);
			off = fde.fre_off;
			if (fde.pctype == SFU_FDE_PCTYPE_MASK) {
				struct mask *m = &masks[nmasks];
				if (nmasks == sizeof masks / sizeof masks[0])
					die("too many PC-mask FDEs", g_name);
				nmasks++;
				m->lo = fde.start;
				m->hi = fde.start + fde.size;
				m->rep = fde.rep_size;
				m->n = 0;
				for (k = 0; k < fde.num_fres && m->n < 16; k++) {
					sfu_fre fre;
					if (sfu_fre_get(x, &fde, off, &fre) != SFU_OK)
						die("FRE does not decode", g_name);
					m->starts[m->n++] = fre.start;
					off = fre.next;
				}
			}
			for (k = 0; k < fde.num_fres && fde.pctype != SFU_FDE_PCTYPE_MASK; k++) {
				sfu_fre fre;
				if (sfu_fre_get(x, &fde, off, &fre) != SFU_OK)
					die("FRE does not decode", g_name);
				add_pt(fde.start + fre.start);
				off = fre.next;
			}
		}
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* ---- rows ----------------------------------------------------------------------- */

static void rule_text(char *out, size_t n, const sfu_rule *r)
{
	const char *b;
	char reg[16];
	switch (r->kind) {
	case SFU_RULE_SAME: snprintf(out, n, "same"); return;
	case SFU_RULE_UNDEF: snprintf(out, n, "undef"); return;
	}
	if (r->base == SFU_REG_SP)
		b = "sp";
	else if (r->base == SFU_REG_FP)
		b = "fp";
	else if (r->base == SFU_REG_CFA)
		b = "cfa";
	else {
		snprintf(reg, sizeof reg, "r%u", (unsigned)r->base);
		b = reg;
	}
	snprintf(out, n, r->kind == SFU_RULE_DEREF ? "*(%s%+d)" : "%s%+d", b, (int)r->off);
}

static void row_text(char *out, size_t n, const sfu_row *r)
{
	char c[32], a[32], f[32];
	if (r->ra.kind == SFU_RULE_UNDEF) {
		snprintf(out, n, "RA undefined");
		return;
	}
	rule_text(c, sizeof c, &r->cfa);
	rule_text(a, sizeof a, &r->ra);
	rule_text(f, sizeof f, &r->fp);
	snprintf(out, n, "cfa=%s ra=%s%s fp=%s%s%s", c, a, r->mangled_ra ? "[s]" : "", f, r->flex ? " (flex)" : "",
		 r->signal ? " (signal)" : "");
}

/* ---- classification ------------------------------------------------------------- */

/* sfu-gen's omitted functions: "sfu-gen: omitted NAME (0xADDR, N bytes): WHY". */
struct omit {
	uint64_t lo, hi;
	char why[200];
};
static struct omit *omits;
static size_t nomits;

static void load_omitted(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t cap = 0;
	if (!f)
		die("cannot read the sfu-gen log", g_name);
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, ": omitted "), *q;
		unsigned long long a, n;
		if (!p || !(q = strstr(p, " (0x")) || sscanf(q, " (0x%llx, %llu bytes)", &a, &n) != 2)
			continue;
		omits = grow(omits, nomits, &cap, sizeof *omits);
		omits[nomits].lo = a;
		omits[nomits].hi = a + n;
		q = strstr(q, "bytes): ");
		snprintf(omits[nomits].why, sizeof omits[nomits].why, "%s", q ? q + 8 : "?");
		omits[nomits].why[strcspn(omits[nomits].why, "\n")] = 0;
		nomits++;
	}
	fclose(f);
}

static const char *omitted_why(uint64_t pc)
{
	size_t i;
	for (i = 0; i < nomits; i++)
		if (pc >= omits[i].lo && pc < omits[i].hi)
			return omits[i].why;
	return NULL;
}

/* Whether section a of x and section b of y hold the same bytes. */
static int same_bytes(const struct elf *x, unsigned a, const struct elf *y, unsigned b)
{
	size_t n = 0, m = 0;
	const uint8_t *p = sfu_elf_sec_bytes(x, a, &n), *q = sfu_elf_sec_bytes(y, b, &m);
	return p && q && n == m && memcmp(p, q, n) == 0;
}

/* The section holding the code at pc in the reference file (e.g. is it a
 * .plt.got stub?). */
static const char *section_of(const struct elf *e, const uint64_t *bases, uint64_t pc)
{
	unsigned i, n = num_sections(e);
	for (i = 1; i < n; i++) {
		struct shdr s;
		if (get_shdr(e, i, &s) && (s.flags & 2) && pc >= bases[i] && pc - bases[i] < s.size)
			return sec_name(e, &s);
	}
	return "";
}

/* One step of the core from a sample at pc with REF's sections, on a
 * stack of two words: [0x7000] = 0x4000 (the return address a call
 * pushed), [0x7008] = 0x5000.  "SP+8 0x4000" when the caller is right. */
static int step_read(void *ctx, uint64_t a, uint64_t *o)
{
	(void)ctx;
	if (a != 0x7000 && a != 0x7008)
		return 1;
	*o = a == 0x7000 ? 0x4000 : 0x5000;
	return 0;
}

static void step_text(char *out, size_t n, const struct side *R, uint64_t pc)
{
	sfu_port port = { .read = step_read };
	sfu_regs regs = { pc, 0x7000, 0, 0, NULL, 0, NULL };
	sfu_cursor c;
	int err = sfu_cursor_init(&c, R->secs, R->nsecs, &port, &regs);
	if (!err)
		err = sfu_cursor_step(&c);
	if (err)
		snprintf(out, n, "%s", sfu_strerror(err));
	else
		snprintf(out, n, "SP%+d 0x%" PRIx64, (int)(c.regs.sp - 0x7000), c.regs.pc);
}

enum verdict { SAME = 0, EXPLAINED, UNEXPLAINED };

/* Why REF and GEN differ at pc, or NULL for an unexplained difference.
 * has_r/has_g: each found a row. */
static const char *classify(const struct side *R, const uint64_t *bases, uint64_t pc, int has_r, const sfu_row *r,
			    int has_g, const sfu_row *g, const char *fn, char *buf, size_t n)
{
	const char *why, *sec = section_of(&R->e, bases, pc);
	if (has_r && !has_g) {
		if ((why = omitted_why(pc))) {
			snprintf(buf, n, "sfu-gen omits it: %s", why);
			return buf;
		}
		return NULL;
	}
	if (!has_r && has_g) {
		/* V1/V2 have no FLEX FDEs: GNU as drops DRAP and other
		 * register-CFA functions (2.44 warns, 2.40 is silent). */
		if (g->flex && R->version < 3)
			return "GNU as 2.40/2.44 (SFrame V1/V2) drop functions that need a FLEX FDE "
			       "(2.44: \"skipping SFrame FDE; non-SP/FP register ...\")";
		if (!g->flex && !strcmp(fn, "_start"))
			return "glibc's crt1.o (_start) is not assembled with --gsframe: only sfu-gen describes it";
		if (g->flex && (R->secs[0].abi == SFU_ABI_AARCH64_LE || R->secs[0].abi == SFU_ABI_AARCH64_BE))
			return "GNU as 2.47 writes FLEX FDEs for x86_64 only; on aarch64 it drops the function "
			       "(\"no SFrame FDE emitted; non-SP/FP register 9 / RA register 30\")";
		return NULL;
	}
	/* Both have rows. */
	if (g->ra.kind == SFU_RULE_UNDEF && r->ra.kind != SFU_RULE_UNDEF && R->version < 3)
		return "no RA-undefined rows before V2 erratum 2 (GNU as 2.40, 2.44) nor from LLVM 22: "
		       ".cfi_undefined of the RA is ignored and the outermost frame described as an ordinary one";
	if (R->version == 1 && g->flex && g->cfa.base <= SFU_REG_DWARF_MAX && r->ra.kind != SFU_RULE_UNDEF &&
	    (r->cfa.base == SFU_REG_SP || r->cfa.base == SFU_REG_FP))
		return "GNU as 2.40 ignores .cfi_def_cfa / .cfi_def_cfa_register to a register other than SP/FP "
		       "and keeps the old rule (wrong rows; 2.44 drops the function instead)";
	if (R->version == 1 && !strcmp(sec, ".plt.sec") && r->cfa.base == SFU_REG_SP && g->cfa.base == SFU_REG_SP &&
	    g->cfa.off == 8 && (r->cfa.off == 16 || r->cfa.off == 24))
		return "GNU ld 2.40 describes .plt.sec (IBT) stubs with PLT0's rows (SP+16, SP+24); "
		       "its .eh_frame and the code (endbr64; jmp *GOT) say SP+8";
	if (R->version == 1 && !strcmp(sec, ".plt") && r->cfa.base == SFU_REG_SP && g->cfa.base == SFU_REG_SP &&
	    g->cfa.off == r->cfa.off + 8 && tr_rule_same(&r->ra, &g->ra) && tr_rule_same(&r->fp, &g->fp))
		return "GNU ld 2.40 describes IBT .plt entries with the non-IBT layout (+8 from offset 11); "
		       "after endbr64 the push is at 4 and the jmp at 9 (.eh_frame: DW_OP_lit9)";
	if (!strcmp(sec, ".plt.got") && r->cfa.base == SFU_REG_SP && g->cfa.base == SFU_REG_SP && r->cfa.off == 16 &&
	    g->cfa.off == 8 && tr_rule_same(&r->ra, &g->ra) && tr_rule_same(&r->fp, &g->fp))
		return "GNU ld describes .plt.got stubs with CFA = SP+16; its own .eh_frame and the code (jmp *GOT) say SP+8";
	return NULL;
}

/* ---- main ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct side R, G;
	size_t i;
	uint64_t covered = 0;
	uint64_t bytes = 0, pieces = 0, nsame = 0, diff_bytes = 0, gen_only = 0, ref_only = 0;
	unsigned unexplained = 0, explained = 0, fns_r = 0, fns_g = 0;
	char lastwhy[400] = "";
	uint64_t lastfn_start = ~(uint64_t)0;
	uint64_t pltgot_lo = 0, pltgot_hi = 0;

	if (argc > 1 && !strcmp(argv[1], "--sizes-only")) {
		sizes_only = 1;
		argv++;
		argc--;
	}
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: gen-check [--sizes-only] REF GEN NAME [OMITTED]\n");
		return 2;
	}
	g_name = argv[3];
	if (argc == 5)
		load_omitted(argv[4]);
	memset(&R, 0, sizeof R);
	memset(&G, 0, sizeof G);
	{
		char err[512];
		if (sfu_elf_open(argv[1], &R.e, err, sizeof err) != 0)
			die(err, g_name);
		R.bases = calloc(num_sections(&R.e) + 1, sizeof *R.bases);
		if (!R.bases)
			die("out of memory", g_name);
		sfu_elf_layout(&R.e, R.bases);
	}
	{
		/* The same code in both files: every code section of REF has a
		 * section of the same name, size and bytes in GEN (sfu-gen's
		 * output keeps them; a file from another assembler must have
		 * them too), which gets REF's base. */
		unsigned ng, nr = num_sections(&R.e), a, b;
		char err[512];
		uint8_t *used;
		if (sfu_elf_open(argv[2], &G.e, err, sizeof err) != 0)
			die(err, g_name);
		ng = num_sections(&G.e);
		G.bases = calloc(ng + 1, sizeof *G.bases);
		used = calloc(ng + 1, 1);
		if (!G.bases || !used)
			die("out of memory", g_name);
		if (G.e.type != R.e.type || G.e.machine != R.e.machine)
			die("the two files are of different types or machines", g_name);
		sfu_elf_layout(&G.e, G.bases);
		for (a = 1; a < nr; a++) {
			struct shdr x, y;
			int found = 0;
			if (!get_shdr(&R.e, a, &x) || (x.flags & 6) != 6 || x.size == 0)
				continue;
			for (b = 1; b < ng && !found; b++) {
				if (used[b] || !get_shdr(&G.e, b, &y) || (y.flags & 6) != 6 || y.size != x.size ||
				    strcmp(sec_name(&R.e, &x), sec_name(&G.e, &y)) != 0 ||
				    (R.e.type != 1 && x.addr != y.addr))
					continue;
				if (x.type != SHT_NOBITS && !sizes_only && !same_bytes(&R.e, a, &G.e, b)) {
					char m[200];
					snprintf(m, sizeof m, "code differs: section %s", sec_name(&R.e, &x));
					die(m, g_name);
				}
				used[b] = 1;
				G.bases[b] = R.bases[a];
				found = 1;
			}
			if (!found) {
				char m[200];
				snprintf(m, sizeof m, "no section %s of the same size and address in %s", sec_name(&R.e, &x),
					 argv[2]);
				die(m, g_name);
			}
		}
		free(used);
		sfu_elf_close(&G.e);
	}
	{
		/* R.e stays open (names, sections); load() opens both again. */
		struct elf keep = R.e;
		load(&R, argv[1], R.bases);
		sfu_elf_close(&keep);
	}
	load(&G, argv[2], G.bases);
	if (!R.nsecs)
		die("REF has no .sframe", g_name);
	if (!G.nsecs)
		die("GEN has no .sframe", g_name);
	fns_r = R.fdes;
	fns_g = G.fdes;
	boundaries(&R);
	boundaries(&G);
	qsort(pts, npts, sizeof *pts, u64_cmp);
	qsort(spans, nspans, sizeof *spans, span_cmp);
	{
		struct sfu_elf_syms syms;
		sfu_elf_symbols(&R.e, R.bases, &syms);
		for (i = 1; i < num_sections(&R.e); i++) {
			struct shdr x;
			if (get_shdr(&R.e, (unsigned)i, &x) && (x.flags & 6) == 6 && !strcmp(sec_name(&R.e, &x), ".plt.got")) {
				pltgot_lo = R.bases[i];
				pltgot_hi = R.bases[i] + x.size;
			}
		}
		/* Walk the covered addresses: every span, pieces split at
		 * every boundary, PC-mask spans byte by byte. */
		for (i = 0; i < nspans; i++) {
			uint64_t lo = spans[i].lo, hi = spans[i].hi, pc;
			size_t k;
			/* Spans of the two sides overlap: skip what an earlier
			 * span covered (sorted by start, so [lo, covered) is
			 * inside one of them). */
			if (covered > lo)
				lo = covered;
			if (hi > covered)
				covered = hi;
			if (lo >= hi)
				continue;
			/* first boundary > lo */
			{
				size_t a = 0, b = npts;
				while (a < b) {
					size_t m = a + (b - a) / 2;
					if (pts[m] <= lo)
						a = m + 1;
					else
						b = m;
				}
				k = a;
			}
			/* PC-mask spans: rows change at the FRE starts of each
			 * block (both producers'), so probe there.  (Between
			 * them V1's mask matching, (PC & start) == start, is
			 * not piecewise constant; at the FRE starts, which are
			 * the instruction boundaries the producers meant, it
			 * agrees with V2/V3's PC % rep >= start.) */
			uint32_t moff[40], nmoff = 0, rep = 0, bi = 0;
			if (spans[i].mask) {
				size_t q;
				uint32_t t, u;
				moff[nmoff++] = 0;
				for (q = 0; q < nmasks; q++) {
					if (masks[q].hi <= lo || masks[q].lo >= hi)
						continue;
					if (masks[q].rep > rep)
						rep = masks[q].rep;
					for (t = 0; t < masks[q].n && nmoff < 40; t++) {
						for (u = 0; u < nmoff && moff[u] != masks[q].starts[t]; u++)
							;
						if (u == nmoff)
							moff[nmoff++] = masks[q].starts[t];
					}
				}
				if (!rep)
					die("PC-mask FDE without a repeat size on both sides", g_name);
				qsort(moff, nmoff, sizeof moff[0], u32_cmp);
			}
			for (pc = lo; pc < hi;) {
				uint64_t next = hi;
				sfu_row r, g;
				int er, eg, has_r, has_g, same;
				if (!spans[i].mask) {
					while (k < npts && pts[k] <= pc)
						k++;
					if (k < npts && pts[k] < hi)
						next = pts[k];
				} else {
					/* the next FRE start in this block, or the next block */
					uint64_t blk = lo + (pc - lo) / rep * rep;
					while (bi < nmoff && blk + moff[bi] <= pc)
						bi++;
					if (bi < nmoff && moff[bi] < rep) {
						next = blk + moff[bi];
					} else {
						next = blk + rep;
						bi = 0;
					}
					if (next > hi)
						next = hi;
				}
				er = sfu_find_row_n(R.secs, R.nsecs, pc, &r);
				eg = sfu_find_row_n(G.secs, G.nsecs, pc, &g);
				if ((er && er != SFU_E_NOINFO) || (eg && eg != SFU_E_NOINFO)) {
					char m[200];
					snprintf(m, sizeof m, "lookup at 0x%" PRIx64 ": %s / %s", pc, sfu_strerror(er),
						 sfu_strerror(eg));
					die(m, g_name);
				}
				has_r = !er;
				has_g = !eg;
				pieces++;
				if (has_r && has_g) {
					bytes += next - pc;
					if (r.ra.kind == SFU_RULE_UNDEF || g.ra.kind == SFU_RULE_UNDEF)
						same = r.ra.kind == g.ra.kind;
					else
						same = tr_rule_same(&r.cfa, &g.cfa) && tr_rule_same(&r.ra, &g.ra) &&
						       tr_rule_same(&r.fp, &g.fp) && r.mangled_ra == g.mangled_ra &&
						       (R.version < 3 || r.signal == g.signal);
				} else {
					same = !has_r && !has_g;
					if (has_r)
						ref_only += next - pc;
					else if (has_g)
						gen_only += next - pc;
				}
				if (has_r && pc >= pltgot_lo && pc < pltgot_hi) {
					char rt[160], gt[160] = "no row", st[64];
					row_text(rt, sizeof rt, &r);
					if (has_g)
						row_text(gt, sizeof gt, &g);
					step_text(st, sizeof st, &R, pc);
					printf("# plt.got %s 0x%" PRIx64 ": ref %s, sfu-gen %s; step: caller %s\n", g_name, pc, rt,
					       gt, st);
				}
				if (same) {
					nsame++;
				} else {
					char why[400], rt[160] = "no row", gt[160] = "no row", fn[160];
					uint64_t fstart = has_r ? r.func_start : g.func_start;
					const char *c;
					sfu_elf_sym_name(&syms, fstart, fn, sizeof fn);
					c = classify(&R, R.bases, pc, has_r, &r, has_g, &g, fn, why, sizeof why);
					diff_bytes += next - pc;
					if (has_r)
						row_text(rt, sizeof rt, &r);
					if (has_g)
						row_text(gt, sizeof gt, &g);
					/* One line per function and cause. */
					if (fstart != lastfn_start || strcmp(lastwhy, c ? c : "UNEXPLAINED") != 0) {
						if (c) {
							explained++;
							printf("# diff %s %s: explained: %s (0x%" PRIx64 ": ref %s, sfu-gen %s)\n",
							       g_name, fn, c, pc, rt, gt);
						} else {
							unexplained++;
							printf("# diff %s %s: UNEXPLAINED at 0x%" PRIx64 ": ref %s, sfu-gen %s\n",
							       g_name, fn, pc, rt, gt);
						}
						lastfn_start = fstart;
						snprintf(lastwhy, sizeof lastwhy, "%s", c ? c : "UNEXPLAINED");
					}
				}
				pc = next;
			}
		}
		free(syms.v);
	}
	printf("stats %s ref_v=%u gen_v=%u ref_fdes=%u gen_fdes=%u bytes=%" PRIu64 " pieces=%" PRIu64
	       " diff_bytes=%" PRIu64 " ref_only=%" PRIu64 " gen_only=%" PRIu64 " explained=%u unexplained=%u"
	       " ref_size=%" PRIu64 " gen_size=%" PRIu64 "\n",
	       g_name, R.version, G.version, fns_r, fns_g, bytes, pieces, diff_bytes, ref_only, gen_only, explained,
	       unexplained, R.size, G.size);
	if (unexplained)
		printf("FAIL gen/%s: %u unexplained differences\n", g_name, unexplained);
	else
		printf("ok gen/%s: %u+%u FDEs, %" PRIu64 " byte addresses equal, %u explained differences\n", g_name,
		       fns_r, fns_g, bytes - diff_bytes, explained);
	for (i = 0; i < R.nsecs || i < G.nsecs; i++) {
		if (i < MAXSEC)
			free(R.bytes[i]), free(G.bytes[i]);
	}
	free(R.bases);
	free(G.bases);
	sfu_elf_close(&R.e);
	sfu_elf_close(&G.e);
	free(pts);
	free(spans);
	free(omits);
	return unexplained ? 1 : 0;
}
