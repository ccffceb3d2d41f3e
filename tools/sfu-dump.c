/* sfu-dump - print the .sframe section of ELF files the way GNU objdump
 * --sframe=.sframe of binutils 2.47 does, decoded by core/sfu.h.
 *
 * usage: sfu-dump [--raw] [--validate] FILE...
 *
 * Like objdump 2.47, x86_64 relocatable objects are shown with their
 * .rela.sframe relocations applied (every section at address 0), while
 * aarch64 and s390x objects are shown as stored: that is what objdump 2.47
 * prints (observed; BFD's simple relocation only resolves the x86_64 PC32 and
 * PC64 here).  --raw shows the bytes as stored for every machine, which is
 * what objdump 2.40 and older printed.  Every value
 * printed comes from the core's decoder: this file only finds the section,
 * relocates it and formats text.  --validate also runs
 * sfu_section_validate() and reports its verdict on stderr.
 *
 * Exit status: 0 when every file was dumped, 1 when any file had no .sframe
 * or a section the core rejected (its error code is printed), 2 on usage or
 * I/O errors.
 */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../core/sfu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ELF, read by hand in the file's own class and byte order ---------- */

struct elf {
	const uint8_t *p;
	size_t n;
	int is64, big;
	uint16_t machine, type;
};

static uint64_t rd(const struct elf *e, uint64_t off, unsigned len, int *ok)
{
	uint64_t v = 0;
	unsigned i;
	if (off > e->n || len > e->n - off) {
		*ok = 0;
		return 0;
	}
	for (i = 0; i < len; i++)
		v = (v << 8) | e->p[off + (e->big ? i : len - 1 - i)];
	return v;
}

static void wr(uint8_t *p, unsigned len, int big, uint64_t v)
{
	unsigned i;
	for (i = 0; i < len; i++)
		p[big ? len - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, off, size, entsize;
};

static int get_shdr(const struct elf *e, unsigned idx, struct shdr *s)
{
	int ok = 1;
	uint64_t shoff = rd(e, e->is64 ? 0x28 : 0x20, e->is64 ? 8 : 4, &ok);
	uint64_t shentsize = rd(e, e->is64 ? 0x3a : 0x2e, 2, &ok);
	uint64_t b = shoff + (uint64_t)idx * shentsize;
	if (e->is64) {
		s->name = (uint32_t)rd(e, b, 4, &ok);
		s->type = (uint32_t)rd(e, b + 4, 4, &ok);
		s->flags = rd(e, b + 8, 8, &ok);
		s->addr = rd(e, b + 16, 8, &ok);
		s->off = rd(e, b + 24, 8, &ok);
		s->size = rd(e, b + 32, 8, &ok);
		s->link = (uint32_t)rd(e, b + 40, 4, &ok);
		s->info = (uint32_t)rd(e, b + 44, 4, &ok);
		s->entsize = rd(e, b + 56, 8, &ok);
	} else {
		s->name = (uint32_t)rd(e, b, 4, &ok);
		s->type = (uint32_t)rd(e, b + 4, 4, &ok);
		s->flags = rd(e, b + 8, 4, &ok);
		s->addr = rd(e, b + 12, 4, &ok);
		s->off = rd(e, b + 16, 4, &ok);
		s->size = rd(e, b + 20, 4, &ok);
		s->link = (uint32_t)rd(e, b + 24, 4, &ok);
		s->info = (uint32_t)rd(e, b + 28, 4, &ok);
		s->entsize = rd(e, b + 36, 4, &ok);
	}
	if (s->type != 8 /* SHT_NOBITS */ && (s->off > e->n || s->size > e->n - s->off))
		ok = 0;
	return ok;
}

static unsigned num_sections(const struct elf *e)
{
	int ok = 1;
	return (unsigned)rd(e, e->is64 ? 0x3c : 0x30, 2, &ok);
}

static const char *sec_name(const struct elf *e, const struct shdr *s)
{
	int ok = 1;
	struct shdr str;
	unsigned shstrndx = (unsigned)rd(e, e->is64 ? 0x3e : 0x32, 2, &ok);
	if (!get_shdr(e, shstrndx, &str) || s->name >= str.size)
		return "";
	/* Names must end inside the string table. */
	if (!memchr(e->p + str.off + s->name, 0, str.size - s->name))
		return "";
	return (const char *)e->p + str.off + s->name;
}

/* Apply the relocations of `rel` (SHT_RELA or SHT_REL) to buf, a copy of
 * section `target`, with every section at address 0 as objdump does for
 * relocatable files.  Returns 0, or -1 on a relocation type we do not know
 * (the caller then dumps the raw bytes and says so). */
static int apply_relocs(const struct elf *e, const struct shdr *rel, uint8_t *buf, uint64_t bufsize)
{
	struct shdr symtab;
	uint64_t entsize = rel->entsize ? rel->entsize : (e->is64 ? (rel->type == 4 ? 24 : 16) : (rel->type == 4 ? 12 : 8));
	uint64_t i, n = entsize ? rel->size / entsize : 0;
	int ok = 1;

	if (!get_shdr(e, rel->link, &symtab))
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t b = rel->off + i * entsize, off, info, sym, type, symval, symoff;
		int64_t addend = 0;
		unsigned len = 0, pcrel = 0;
		uint64_t v;
		off = rd(e, b, e->is64 ? 8 : 4, &ok);
		info = rd(e, b + (e->is64 ? 8 : 4), e->is64 ? 8 : 4, &ok);
		sym = e->is64 ? info >> 32 : info >> 8;
		type = e->is64 ? (info & 0xffffffffu) : (info & 0xffu);
		symoff = symtab.off + sym * (e->is64 ? 24 : 16);
		symval = rd(e, symoff + (e->is64 ? 8 : 4), e->is64 ? 8 : 4, &ok);
		switch (e->machine) {
		case 62: /* EM_X86_64 */
			if (type == 2) { len = 4; pcrel = 1; }       /* R_X86_64_PC32 */
			else if (type == 24) { len = 8; pcrel = 1; } /* R_X86_64_PC64 */
			else if (type == 1) { len = 8; }             /* R_X86_64_64 */
			else if (type == 10 || type == 11) { len = 4; } /* 32, 32S */
			break;
		case 183: /* EM_AARCH64 */
			if (type == 261) { len = 4; pcrel = 1; }      /* R_AARCH64_PREL32 */
			else if (type == 260) { len = 8; pcrel = 1; } /* R_AARCH64_PREL64 */
			else if (type == 257) { len = 8; }            /* R_AARCH64_ABS64 */
			else if (type == 258) { len = 4; }            /* R_AARCH64_ABS32 */
			break;
		case 22: /* EM_S390 */
			if (type == 5) { len = 4; pcrel = 1; }       /* R_390_PC32 */
			else if (type == 23) { len = 8; pcrel = 1; } /* R_390_PC64 */
			else if (type == 22) { len = 8; }            /* R_390_64 */
			else if (type == 4) { len = 4; }             /* R_390_32 */
			break;
		}
		if (!len || !ok || off > bufsize || len > bufsize - off)
			return -1;
		if (rel->type == 4) { /* SHT_RELA */
			addend = (int64_t)rd(e, b + (e->is64 ? 16 : 8), e->is64 ? 8 : 4, &ok);
			if (!e->is64)
				addend = (int32_t)addend;
		} else {
			struct elf be = { buf, bufsize, e->is64, e->big, 0, 0 };
			int ok2 = 1;
			addend = (int64_t)rd(&be, off, len, &ok2);
			if (len == 4)
				addend = (int32_t)addend;
		}
		/* Section symbols and local symbols: value relative to a section
		 * at address 0, which is what objdump's simple relocation uses. */
		v = symval + (uint64_t)addend - (pcrel ? off : 0);
		wr(buf + off, len, e->big, v);
	}
	return ok ? 0 : -1;
}

/* ---- text, in objdump 2.47's layout ------------------------------------ */

static const char *version_name(unsigned v)
{
	switch (v) {
	case 1: return "SFRAME_VERSION_1";
	case 2: return "SFRAME_VERSION_2";
	case 3: return "SFRAME_VERSION_3";
	}
	return "NULL";
}

static void print_flags(unsigned flags)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ SFU_F_FDE_SORTED, "SFRAME_F_FDE_SORTED" },
		{ SFU_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER" },
		{ SFU_F_FDE_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL" },
	};
	unsigned i, first = 1;
	printf("    Flags: ");
	if (!flags)
		printf("NONE");
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(flags & names[i].bit))
			continue;
		printf(first ? "%s" : ",\n           %s", names[i].name);
		first = 0;
	}
	printf("\n");
}

static void print_header(const sfu_section *s)
{
	printf("\n  Header :\n\n");
	printf("    Version: %s\n", version_name(s->version));
	print_flags(s->flags);
	if (s->fixed_fp)
		printf("    CFA fixed FP offset: %d\n", s->fixed_fp);
	if (s->fixed_ra)
		printf("    CFA fixed RA offset: %d\n", s->fixed_ra);
	printf("    Num FDEs: %" PRIu32 "\n", s->num_fdes);
	printf("    Num FREs: %" PRIu32 "\n", s->num_fres);
}

static int is_aarch64(const sfu_section *s)
{
	return s->abi == SFU_ABI_AARCH64_LE || s->abi == SFU_ABI_AARCH64_BE;
}

/* One recovery rule as objdump 2.47 shows it: "sp+8" / "r10+0" for base +
 * offset, "(fp-8)" for *(reg + offset), "c-16" for *(CFA + offset). */
static void rule_text(char *out, size_t n, const sfu_rule *r)
{
	char base[16];
	if (r->kind != SFU_RULE_OFF && r->kind != SFU_RULE_DEREF) {
		snprintf(out, n, "u");
		return;
	}
	if (r->base == SFU_REG_CFA) {
		snprintf(out, n, "c%+d", r->off);
		return;
	}
	if (r->base == SFU_REG_SP)
		snprintf(base, sizeof base, "sp");
	else if (r->base == SFU_REG_FP)
		snprintf(base, sizeof base, "fp");
	else
		snprintf(base, sizeof base, "r%u", (unsigned)r->base);
	if (r->kind == SFU_RULE_DEREF)
		snprintf(out, n, "(%s%+d)", base, r->off);
	else
		snprintf(out, n, "%s%+d", base, r->off);
}

static int dump_function(const sfu_section *s, uint32_t idx)
{
	sfu_fde fde;
	uint32_t k, off;
	int err = sfu_fde_get(s, idx, &fde);
	int mask;

	if (err) {
		fprintf(stderr, "sfu-dump: FDE %" PRIu32 ": %s\n", idx, sfu_strerror(err));
		return err;
	}
	mask = fde.pctype == SFU_FDE_PCTYPE_MASK;
	printf("\n    func idx [%" PRIu32 "]: pc = 0x%" PRIx64 ", size = %" PRIu32 " bytes", idx, fde.start, fde.size);
	if (fde.signal || fde.type == SFU_FDE_TYPE_FLEX)
		printf(", attr = \"%s%s\"", fde.signal ? "S" : "", fde.type == SFU_FDE_TYPE_FLEX ? "F" : "");
	if (is_aarch64(s) && fde.pauth_key)
		printf(", pauth = B key");
	printf("\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC", mask ? "[m]" : "   ", "CFA", "FP", "RA");
	off = fde.fre_off;
	for (k = 0; k < fde.num_fres; k++) {
		sfu_fre fre;
		sfu_row row;
		char cfa[64], fp[64], ra[64];
		err = sfu_fre_get(s, &fde, off, &fre);
		if (!err)
			err = sfu_row_from_fre(s, &fde, &fre, &row);
		if (err) {
			fprintf(stderr, "sfu-dump: FDE %" PRIu32 " FRE %" PRIu32 ": %s\n", idx, k, sfu_strerror(err));
			return err;
		}
		off = fre.next;
		printf("\n    %016" PRIx64, mask ? (uint64_t)fre.start : fde.start + fre.start);
		if (row.ra.kind == SFU_RULE_UNDEF) {
			printf("  RA undefined"); /* outermost frame: no data words */
			continue;
		}
		rule_text(cfa, sizeof cfa, &row.cfa);
		printf("  %-10s", cfa);
		rule_text(fp, sizeof fp, &row.fp);
		printf("%-10s", fp);
		/* "U": a padding word stands where the RA rule would be (s390x
		 * default FDEs: word 1 == 0; FLEX: control word 2 == 0). */
		if ((s->abi == SFU_ABI_S390X_BE && fde.type == SFU_FDE_TYPE_DEFAULT && fre.count >= 2 &&
		     fre.words[1] == SFU_S390X_RA_OFFSET_INVALID) ||
		    (fde.type == SFU_FDE_TYPE_FLEX && fre.count > 2 && fre.words[2] == 0))
			snprintf(ra, sizeof ra, "U");
		else if (fde.type == SFU_FDE_TYPE_FLEX && fre.count > 2)
			rule_text(ra, sizeof ra, &row.ra); /* an explicit FLEX RA rule */
		else if (s->fixed_ra)
			snprintf(ra, sizeof ra, "f");
		else
			rule_text(ra, sizeof ra, &row.ra);
		strcat(ra, row.mangled_ra ? "[s]" : "   ");
		printf("%-13s", ra);
	}
	printf("\n");
	return 0;
}

static int dump_section(const uint8_t *bytes, size_t size, uint64_t addr, int validate, const char *file)
{
	sfu_section s;
	uint32_t i;
	int err = sfu_section_init(&s, bytes, size, addr);
	if (err) {
		fprintf(stderr, "sfu-dump: %s: .sframe: %s (code %d)\n", file, sfu_strerror(err), err);
		return err;
	}
	print_header(&s);
	printf("\n  Function Index :\n");
	for (i = 0; i < s.num_fdes; i++) {
		err = dump_function(&s, i);
		if (err)
			return err;
	}
	if (validate) {
		uint32_t bad = 0;
		err = sfu_section_validate(&s, &bad);
		if (err) {
			fprintf(stderr, "sfu-dump: %s: .sframe invalid at FDE %" PRIu32 ": %s (code %d)\n", file, bad, sfu_strerror(err), err);
			return err;
		}
	}
	return 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t got;
		if (len == cap) {
			uint8_t *nb;
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*n = len;
	return buf;
}

static int dump_file(const char *path, int raw, int validate)
{
	struct elf e;
	size_t n;
	uint8_t *buf = slurp(path, &n);
	unsigned i, nsec, found = 0;
	int rc = 0, ok = 1;

	if (!buf) {
		fprintf(stderr, "sfu-dump: %s: %s\n", path, strerror(errno));
		return 2;
	}
	e.p = buf;
	e.n = n;
	if (n < 0x34 || memcmp(buf, "\177ELF", 4) != 0 || (buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2)) {
		fprintf(stderr, "sfu-dump: %s: not an ELF file\n", path);
		free(buf);
		return 1;
	}
	e.is64 = buf[4] == 2;
	e.big = buf[5] == 2;
	e.type = (uint16_t)rd(&e, 0x10, 2, &ok);
	e.machine = (uint16_t)rd(&e, 0x12, 2, &ok);
	nsec = num_sections(&e);
	for (i = 1; i < nsec; i++) {
		struct shdr s;
		uint8_t *copy;
		unsigned j;
		if (!get_shdr(&e, i, &s) || strcmp(sec_name(&e, &s), ".sframe") != 0)
			continue;
		found = 1;
		copy = malloc(s.size ? s.size : 1);
		if (!copy) {
			rc = 2;
			break;
		}
		memcpy(copy, buf + s.off, s.size);
		if (!raw && e.type == 1 /* ET_REL */ && e.machine == 62 /* EM_X86_64 */) {
			for (j = 1; j < nsec; j++) {
				struct shdr r;
				if (!get_shdr(&e, j, &r) || (r.type != 4 && r.type != 9) || r.info != i)
					continue;
				if (apply_relocs(&e, &r, copy, s.size) != 0) {
					fprintf(stderr, "sfu-dump: %s: cannot apply the relocations of .sframe\n", path);
					rc = 1;
				}
			}
		}
		printf("Contents of the SFrame section .sframe:");
		if (dump_section(copy, s.size, s.addr, validate, path) != 0)
			rc = 1;
		free(copy);
	}
	if (!found) {
		fprintf(stderr, "sfu-dump: %s: no .sframe section\n", path);
		rc = 1;
	}
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	int i, raw = 0, validate = 0, rc = 0, files = 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw"))
			raw = 1;
		else if (!strcmp(argv[i], "--validate"))
			validate = 1;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: sfu-dump [--raw] [--validate] FILE...\n");
			return 2;
		}
	}
	for (i = 1; i < argc; i++) {
		int r;
		if (argv[i][0] == '-')
			continue;
		files++;
		r = dump_file(argv[i], raw, validate);
		if (r > rc)
			rc = r;
	}
	if (!files) {
		fprintf(stderr, "usage: sfu-dump [--raw] [--validate] FILE...\n");
		return 2;
	}
	return rc;
}
