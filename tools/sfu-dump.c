/* SPDX-License-Identifier: MIT */
/* sfu-dump - print the .sframe section of ELF files the way GNU objdump
 * --sframe=.sframe of binutils 2.47 does, decoded by core/sfu.h.
 *
 * usage: sfu-dump [--raw] [--validate] FILE...
 *
 * Like objdump 2.47 for the file's own architecture (x86_64-linux-gnu-,
 * aarch64-linux-gnu-, s390x-linux-gnu-objdump), relocatable objects are shown
 * with their .rela.sframe relocations applied, every section at address 0.
 * (A host objdump opening a foreign-architecture object cannot apply them and
 * prints the stored bytes.)  --raw shows the bytes as stored, which is also
 * what objdump 2.40 and older printed.  Every value
 * printed comes from the core's decoder: this file only finds the section,
 * relocates it and formats text.  --validate also runs
 * sfu_section_validate() and reports its verdict on stderr; a relocatable
 * object is judged laid out as a linker would place it (validate_object).
 *
 * The section is found by name, of type SHT_GNU_SFRAME (binutils >= 2.45)
 * or SHT_PROGBITS (earlier producers); libelf reads the file (sfu_elf.h).
 *
 * Exit status: 0 when every file was dumped, 1 when any file had no .sframe
 * or a section the core rejected (its error code is printed), 2 on usage or
 * I/O errors.
 */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
/* The rows as the section writes them, like objdump: GNU ld's .plt.got FDE
 * shows its CFA = SP + 16, which the unwinder reads as SP + 8. */
#define SFU_FIX_LD_PLTGOT 0
#include "../core/sfu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_elf.h"
#include "sfu_tool.h"

static const char help[] =
	"usage: sfu-dump [--raw] [--validate] FILE...\n"
	"Print the .sframe section of ELF files as GNU objdump --sframe (binutils 2.47) does.\n"
	"  --raw        the bytes as stored (relocations of objects not applied, as objdump 2.40)\n"
	"  --validate   also check each section (sfu_section_validate), verdict on stderr\n"
	"  --help, --version\n"
	"Exit status: 0 every file dumped, 1 a file without .sframe or with a section the\n"
	"core rejected, 2 usage or I/O error.\n";

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
 * offset, "(fp-8)" for *(reg + offset), "c-16" for *(CFA + offset).  A CFA
 * rule's offset follows a plus sign whatever its sign ("sp+-8": every
 * objdump, 2.40 to 2.47, prints the CFA as "%s+%d"), the others carry
 * their own sign. */
static void rule_text(char *out, size_t n, const sfu_rule *r, int cfa)
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
	else if (cfa)
		snprintf(out, n, "%s+%d", base, r->off);
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
		rule_text(cfa, sizeof cfa, &row.cfa, 1);
		printf("  %-10s", cfa);
		rule_text(fp, sizeof fp, &row.fp, 0);
		printf("%-10s", fp);
		/* "U": a padding word stands where the RA rule would be (s390x
		 * default FDEs: word 1 == 0; FLEX: control word 2 == 0). */
		if ((s->abi == SFU_ABI_S390X_BE && fde.type == SFU_FDE_TYPE_DEFAULT && fre.count >= 2 &&
		     sfu_fre_word(s, &fre, 1) == SFU_S390X_RA_OFFSET_INVALID) ||
		    (fde.type == SFU_FDE_TYPE_FLEX && fre.count > 2 && sfu_fre_word(s, &fre, 2) == 0))
			snprintf(ra, sizeof ra, "U");
		else if (fde.type == SFU_FDE_TYPE_FLEX && fre.count > 2)
			rule_text(ra, sizeof ra, &row.ra, 0); /* an explicit FLEX RA rule */
		else if (s->fixed_ra)
			snprintf(ra, sizeof ra, "f");
		else
			rule_text(ra, sizeof ra, &row.ra, 0);
		strcat(ra, row.mangled_ra ? "[s]" : "   ");
		printf("%-13s", ra);
	}
	printf("\n");
	return 0;
}

/* The ABI/arch ids of binutils' include/sframe.h (SFrame V3 spec 2.2.1). */
static int known_abi(unsigned abi)
{
	return abi == SFU_ABI_AARCH64_BE || abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AMD64_LE || abi == SFU_ABI_S390X_BE;
}

/* sfu_section_validate's verdict on the section, on stderr; 0 if it
 * passes.  opts: sfu_section_init_opt's. */
static int validate_section(const uint8_t *bytes, size_t size, uint64_t addr, unsigned opts, const char *file)
{
	sfu_section s;
	uint32_t bad = 0;
	int err = sfu_section_init_opt(&s, bytes, size, addr, opts);

	if (!err)
		err = sfu_section_validate(&s, &bad);
	if (err)
		fprintf(stderr, "sfu-dump: %s: .sframe invalid at FDE %" PRIu32 ": %s (code %d)\n", file, bad, sfu_strerror(err), err);
	return err;
}

static int dump_section(const uint8_t *bytes, size_t size, uint64_t addr, int validate, const char *file)
{
	sfu_section s;
	uint32_t i;
	int err = sfu_section_init(&s, bytes, size, addr);
	if (err == SFU_E_ABI && size > SFU_HDR_ABI && !known_abi(bytes[SFU_HDR_ABI])) {
		fprintf(stderr, "sfu-dump: %s: .sframe: ABI/arch id %u is unknown (binutils defines 1-4; other linkers' ids clash with those) (code %d)\n",
			file, bytes[SFU_HDR_ABI], err);
		return err;
	}
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
	return validate ? validate_section(bytes, size, addr, 0, file) : 0;
}

/* A relocatable object has no addresses: objdump shows it relocated with
 * every section at 0, where a V1/V2 section's PC-relative starts come out
 * as offsets below 0 (the field's own offset subtracted), and a function
 * longer than that "wraps past 2^64" when read as addresses.  It is
 * judged as a linker would place it instead: its code sections one after
 * the other (sfu_elf_layout), its starts read as what gas made them, PC-
 * relative relocations (SFU_OPT_START_PCREL, where the header does not
 * say so itself). */
static int validate_object(const struct elf *e, unsigned k, const char *file)
{
	struct sfu_elf_sframe lay;
	uint64_t *bases = calloc(num_sections(e) + 1u, sizeof *bases);
	unsigned opts = 0;
	int err = SFU_E_ARG;

	if (!bases)
		return SFU_E_ARG;
	sfu_elf_layout(e, bases);
	if (sfu_elf_sframe_get_at(e, k, 1, bases, &lay) == 1) {
		if (lay.size > SFU_HDR_FLAGS && !(lay.bytes[SFU_HDR_FLAGS] & SFU_F_FDE_FUNC_START_PCREL))
			opts = SFU_OPT_START_PCREL;
		err = lay.reloc_failed ? SFU_E_ARG : validate_section(lay.bytes, (size_t)lay.size, lay.addr, opts, file);
		free(lay.bytes);
	}
	free(bases);
	return err;
}

static int dump_file(const char *path, int raw, int validate)
{
	struct elf e;
	struct sfu_elf_sframe sf;
	char err[512];
	unsigned k;
	int rc = 0, got;

	if (sfu_elf_open(path, &e, err, sizeof err) != 0) {
		fprintf(stderr, "sfu-dump: %s\n", err);
		return 2;
	}
	for (k = 0; (got = sfu_elf_sframe_get(&e, k, !raw, &sf)) == 1; k++) {
		if (sf.bad_type) {
			fprintf(stderr, "sfu-dump: %s: .sframe is of section type 0x%x, not SHT_GNU_SFRAME or SHT_PROGBITS\n",
				path, (unsigned)sf.bad_type);
			free(sf.bytes);
			rc = 1;
			continue;
		}
		if (sf.reloc_failed) {
			fprintf(stderr, "sfu-dump: %s: cannot apply the relocations of .sframe\n", path);
			rc = 1;
		}
		printf("Contents of the SFrame section .sframe:");
		if (dump_section(sf.bytes, (size_t)sf.size, sf.addr, validate && (raw || e.type != ET_REL), path) != 0)
			rc = 1;
		else if (validate && !raw && e.type == ET_REL && validate_object(&e, k, path) != 0)
			rc = 1;
		free(sf.bytes);
	}
	if (got < 0) {
		fprintf(stderr, "sfu-dump: %s: out of memory\n", path);
		rc = 2;
	} else if (k == 0) {
		fprintf(stderr, "sfu-dump: %s: no .sframe section\n", path);
		rc = 1;
	}
	sfu_elf_close(&e);
	return rc;
}

int main(int argc, char **argv)
{
	int i, raw = 0, validate = 0, rc = 0, files = 0;

	sfu_tool_args(argc, argv, "sfu-dump", help);
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
