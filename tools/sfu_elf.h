/* SPDX-License-Identifier: MIT */
/* sfu_elf.h - host-side ELF helpers for sfu's tools and tests, on elfutils'
 * libelf (link with $(SFU_ELF_LIBS): -lelf -ldw).  Not part of the
 * freestanding core.
 *
 * libelf reads the file, in either class and byte order (gelf_*).  Written
 * here is only what libelf has no call for:
 *   - finding the .sframe sections (by name; of type SHT_GNU_SFRAME, which
 *     binutils >= 2.45 writes, or SHT_PROGBITS as before);
 *   - applying the relocations of a relocatable object's section the way
 *     objdump 2.47 shows them (every section at 0) or with code sections laid
 *     out one after the other (sfu_elf_layout).  libelf does not apply
 *     relocations, and libdwfl's relocation (dwfl_report_offline) applies
 *     them only to the DWARF sections it loads, with its own layout, and
 *     never to .sframe: the relocation types sfu's machines use in
 *     .sframe, .eh_frame and .debug_frame are listed in sfu_elf_reloc_kind;
 *   - symbol names for messages ("name+0x10").
 */
#ifndef SFU_ELF_H
#define SFU_ELF_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* binutils >= 2.45 (include/elf/common.h): sid's gas 2.47 types .sframe
 * so and its readelf names it GNU_SFRAME; glibc's <elf.h> (sid, 2.43) has
 * PT_GNU_SFRAME but not this yet. */
#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME 0x6ffffff4
#endif

/* An open file: libelf's handle and the header fields every caller wants. */
struct elf {
	Elf *elf;
	int fd;
	int is64, big;
	uint16_t machine, type;
};

/* A section header, widened (GElf_Shdr) - the fields callers use. */
struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, off, size, entsize, align;
};

static inline int sfu_elf_init(void)
{
	return elf_version(EV_CURRENT) != EV_NONE;
}

/* Open path.  Returns 0, or -1 with a message in err ("not an ELF file"
 * for anything libelf does not take as ELF).  Close with sfu_elf_close. */
static inline int sfu_elf_open(const char *path, struct elf *e, char *err, size_t errn)
{
	GElf_Ehdr eh;
	memset(e, 0, sizeof *e);
	e->fd = -1;
	if (!sfu_elf_init()) {
		snprintf(err, errn, "%s: libelf: %s", path, elf_errmsg(-1));
		return -1;
	}
	e->fd = open(path, O_RDONLY);
	if (e->fd < 0) {
		snprintf(err, errn, "%s: %s", path, strerror(errno));
		return -1;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		snprintf(err, errn, "%s: not an ELF file%s%s", path, e->elf ? "" : ": ", e->elf ? "" : elf_errmsg(-1));
		elf_end(e->elf);
		close(e->fd);
		e->elf = NULL;
		e->fd = -1;
		return -1;
	}
	e->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	e->big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	e->type = eh.e_type;
	e->machine = eh.e_machine;
	return 0;
}

static inline void sfu_elf_close(struct elf *e)
{
	elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	e->elf = NULL;
	e->fd = -1;
}

/* Section count (extended numbering included); 0 if unreadable. */
static inline unsigned num_sections(const struct elf *e)
{
	size_t n = 0;
	return elf_getshdrnum(e->elf, &n) == 0 ? (unsigned)n : 0;
}

/* Header of section idx; 0 if libelf cannot read it or its bytes lie
 * outside the file. */
static inline int get_shdr(const struct elf *e, unsigned idx, struct shdr *s)
{
	GElf_Shdr g;
	Elf_Scn *scn = elf_getscn(e->elf, idx);
	if (!scn || !gelf_getshdr(scn, &g))
		return 0;
	s->name = g.sh_name;
	s->type = g.sh_type;
	s->link = g.sh_link;
	s->info = g.sh_info;
	s->flags = g.sh_flags;
	s->addr = g.sh_addr;
	s->off = g.sh_offset;
	s->size = g.sh_size;
	s->entsize = g.sh_entsize;
	s->align = g.sh_addralign;
	if (idx && s->type != SHT_NOBITS && !elf_rawdata(scn, NULL))
		return 0;
	return 1;
}

static inline const char *sec_name(const struct elf *e, const struct shdr *s)
{
	size_t shstrndx;
	const char *n;
	if (elf_getshdrstrndx(e->elf, &shstrndx) != 0)
		return "";
	n = elf_strptr(e->elf, shstrndx, s->name);
	return n ? n : "";
}

/* The bytes of section idx as stored (no byte-order conversion), or NULL
 * (SHT_NOBITS, unreadable). */
static inline const uint8_t *sfu_elf_sec_bytes(const struct elf *e, unsigned idx, size_t *n)
{
	Elf_Scn *scn = elf_getscn(e->elf, idx);
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_buf)
		return NULL;
	*n = d->d_size;
	return d->d_buf;
}

/* ---- relocations ----------------------------------------------------------- */

static inline void wr(uint8_t *p, unsigned len, int big, uint64_t v)
{
	unsigned i;
	for (i = 0; i < len; i++)
		p[big ? len - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t rd_bytes(const uint8_t *p, unsigned len, int big)
{
	uint64_t v = 0;
	unsigned i;
	for (i = 0; i < len; i++)
		v = (v << 8) | p[big ? i : len - 1 - i];
	return v;
}

/* The data relocations of the unwind sections of sfu's machines (psABIs:
 * AMD64 4.4, AArch64 ELF 5.7.6, s390x 4.4): field size, PC-relative.
 * Returns the size, 0 for a type not used there. */
/* A relocation that does nothing: type 0 on every machine (R_X86_64_NONE,
 * R_AARCH64_NONE, R_390_NONE), and aarch64's withdrawn 256, which its ELF
 * ABI still names R_AARCH64_NONE. */
static inline int sfu_elf_reloc_none(unsigned machine, uint64_t type)
{
	return type == 0 || (machine == EM_AARCH64 && type == 256);
}

static inline unsigned sfu_elf_reloc_kind(unsigned machine, uint64_t type, int *pcrel)
{
	static const struct { uint16_t machine, type; uint8_t len, pcrel; } k[] = {
		{ EM_X86_64, R_X86_64_PC32, 4, 1 },    { EM_X86_64, R_X86_64_PC64, 8, 1 },
		{ EM_X86_64, R_X86_64_64, 8, 0 },      { EM_X86_64, R_X86_64_32, 4, 0 },
		{ EM_X86_64, R_X86_64_32S, 4, 0 },     { EM_AARCH64, R_AARCH64_PREL32, 4, 1 },
		{ EM_AARCH64, R_AARCH64_PREL64, 8, 1 }, { EM_AARCH64, R_AARCH64_ABS64, 8, 0 },
		{ EM_AARCH64, R_AARCH64_ABS32, 4, 0 }, { EM_S390, R_390_PC32, 4, 1 },
		{ EM_S390, R_390_PC64, 8, 1 },         { EM_S390, R_390_64, 8, 0 },
		{ EM_S390, R_390_32, 4, 0 },
	};
	size_t i;
	for (i = 0; i < sizeof k / sizeof k[0]; i++)
		if (k[i].machine == machine && k[i].type == type) {
			*pcrel = k[i].pcrel;
			return k[i].len;
		}
	return 0;
}

/* One relocation entry: where, against which symbol, what type, addend
 * (SHT_RELA: from the entry; SHT_REL: 0, the caller reads the field). */
struct sfu_elf_rel {
	uint64_t off, sym, type;
	int64_t addend;
};

/* Entry i of relocation section idx (SHT_RELA or SHT_REL); 0 if unreadable. */
static inline int sfu_elf_rel_get(const struct elf *e, unsigned idx, int rela, int i, struct sfu_elf_rel *r)
{
	Elf_Data *d = elf_getdata(elf_getscn(e->elf, idx), NULL);
	GElf_Rela a;
	GElf_Rel b;
	if (!d)
		return 0;
	if (rela ? !gelf_getrela(d, i, &a) : !gelf_getrel(d, i, &b))
		return 0;
	if (!rela) {
		a.r_offset = b.r_offset;
		a.r_info = b.r_info;
		a.r_addend = 0;
	}
	r->off = a.r_offset;
	r->sym = e->is64 ? GELF_R_SYM(a.r_info) : ELF32_R_SYM(a.r_info);
	r->type = e->is64 ? GELF_R_TYPE(a.r_info) : ELF32_R_TYPE(a.r_info);
	r->addend = a.r_addend;
	return 1;
}

/* Entries of relocation section s. */
static inline int sfu_elf_rel_count(const struct elf *e, const struct shdr *s)
{
	size_t ent = gelf_fsize(e->elf, s->type == SHT_RELA ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	return ent ? (int)(s->size / ent) : 0;
}

/* A relocatable object has no addresses: every section is at 0.  To tell
 * functions of different sections apart, give each code section of an
 * ET_REL file its own address, laid out one after the other in section
 * order (as a linker would, roughly).  bases[] has num_sections entries;
 * other sections get 0.  Linked files: bases[i] = sh_addr. */
static inline void sfu_elf_layout(const struct elf *e, uint64_t *bases)
{
	unsigned i, n = num_sections(e);
	uint64_t at = 0x100000;
	for (i = 0; i < n; i++) {
		struct shdr s;
		bases[i] = 0;
		if (!get_shdr(e, i, &s))
			continue;
		if (e->type != ET_REL) {
			bases[i] = s.addr;
			continue;
		}
		/* Code only: the other sections' sizes (.sframe's, which a tool
		 * may change) must not move the code. */
		if ((s.flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) || s.size == 0)
			continue;
		at = (at + 63) & ~(uint64_t)63;
		bases[i] = at;
		at += s.size + 64;
	}
}

/* Apply relocation section rel (SHT_RELA or SHT_REL) to buf, a copy of
 * section rel->info.  bases == NULL: every section at address 0, as objdump
 * does for relocatable files; else section i at bases[i] (sfu_elf_layout).
 * Returns 0, or -1 on a relocation of a type we do not know or outside buf
 * (the caller says so). */
static inline int apply_relocs(const struct elf *e, unsigned relidx, const struct shdr *rel, uint8_t *buf,
			       uint64_t bufsize, const uint64_t *bases)
{
	Elf_Data *syms = elf_getdata(elf_getscn(e->elf, rel->link), NULL);
	uint64_t tbase = bases ? bases[rel->info] : 0;
	unsigned nsec = num_sections(e);
	int i, n = sfu_elf_rel_count(e, rel);

	if (!syms)
		return -1;
	for (i = 0; i < n; i++) {
		struct sfu_elf_rel r;
		GElf_Sym sym;
		uint64_t symval;
		int pcrel = 0;
		unsigned len;
		if (!sfu_elf_rel_get(e, relidx, rel->type == SHT_RELA, i, &r))
			return -1;
		/* R_*_NONE: `ld -r` turns the relocations of an FDE whose
		 * function it dropped (a COMDAT duplicate) into these and leaves
		 * the field as it is; they change nothing, and the relocations
		 * after them still apply. */
		if (sfu_elf_reloc_none(e->machine, r.type))
			continue;
		if (!gelf_getsym(syms, (int)r.sym, &sym))
			return -1;
		len = sfu_elf_reloc_kind(e->machine, r.type, &pcrel);
		if (!len || r.off > bufsize || len > bufsize - r.off)
			return -1;
		symval = sym.st_value;
		if (bases && sym.st_shndx > 0 && sym.st_shndx < nsec)
			symval += bases[sym.st_shndx];
		if (rel->type != SHT_RELA) { /* SHT_REL: the addend is in the field */
			r.addend = (int64_t)rd_bytes(buf + r.off, len, e->big);
			if (len == 4)
				r.addend = (int32_t)r.addend;
		}
		/* Section and local symbols: value relative to their section,
		 * which sits at bases[] (or 0, objdump's simple relocation). */
		wr(buf + r.off, len, e->big, symval + (uint64_t)r.addend - (pcrel ? tbase + r.off : 0));
	}
	return 0;
}

/* Apply every relocation section that targets section idx to buf.
 * Returns 0, or -1 if one could not be applied. */
static inline int sfu_elf_relocate(const struct elf *e, unsigned idx, uint8_t *buf, uint64_t size,
				   const uint64_t *bases)
{
	unsigned j, nsec = num_sections(e);
	int rc = 0;
	for (j = 1; j < nsec; j++) {
		struct shdr r;
		if (!get_shdr(e, j, &r) || (r.type != SHT_RELA && r.type != SHT_REL) || r.info != idx)
			continue;
		if (apply_relocs(e, j, &r, buf, size, bases) != 0)
			rc = -1;
	}
	return rc;
}

/* ---- .sframe sections ----------------------------------------------------------- */

/* One .sframe section of a file: bytes (malloc'd copy), size, address. */
struct sfu_elf_sframe {
	uint8_t *bytes;
	uint64_t size, addr;
	unsigned idx;     /* section index */
	int reloc_failed; /* relocations present but not all understood */
	int bad_type;     /* neither SHT_GNU_SFRAME nor SHT_PROGBITS: its type */
};

/* Whether section s is an SFrame section: named .sframe, of type
 * SHT_GNU_SFRAME (binutils >= 2.45) or SHT_PROGBITS (earlier producers). */
static inline int sfu_elf_is_sframe(const struct elf *e, const struct shdr *s)
{
	return !strcmp(sec_name(e, s), ".sframe");
}

/* The k-th .sframe section (k = 0, 1, ...): 1 if found, 0 if none, -1 on
 * allocation failure.  relocate: apply relocations as objdump 2.47 does
 * (every section at 0), or with bases (sfu_elf_layout; then out->addr is
 * the section's base too).  A section of another type (SHT_NOBITS in a
 * debug-info file, say) is returned empty with bad_type set. */
static inline int sfu_elf_sframe_get_at(const struct elf *e, unsigned k, int relocate, const uint64_t *bases,
					struct sfu_elf_sframe *out)
{
	unsigned i, nsec = num_sections(e), seen = 0;
	for (i = 1; i < nsec; i++) {
		struct shdr s;
		const uint8_t *p;
		size_t n = 0;
		if (!get_shdr(e, i, &s) || !sfu_elf_is_sframe(e, &s) || seen++ != k)
			continue;
		memset(out, 0, sizeof *out);
		out->idx = i;
		out->addr = bases ? bases[i] : s.addr;
		if (s.type != SHT_GNU_SFRAME && s.type != SHT_PROGBITS)
			out->bad_type = (int)s.type;
		p = out->bad_type ? NULL : sfu_elf_sec_bytes(e, i, &n);
		out->bytes = malloc(n ? n : 1);
		if (!out->bytes)
			return -1;
		if (n)
			memcpy(out->bytes, p, n);
		out->size = n;
		if (relocate && e->type == ET_REL && sfu_elf_relocate(e, i, out->bytes, n, bases) != 0)
			out->reloc_failed = 1;
		return 1;
	}
	return 0;
}

static inline int sfu_elf_sframe_get(const struct elf *e, unsigned k, int relocate, struct sfu_elf_sframe *out)
{
	return sfu_elf_sframe_get_at(e, k, relocate, NULL, out);
}

/* ---- symbols, for names in messages ------------------------------------- */

struct sfu_elf_syms {
	struct sfu_elf_symname { uint64_t addr; const char *name; int func; } *v;
	size_t n;
};

static inline int sfu_elf_symname_cmp(const void *a, const void *b)
{
	const struct sfu_elf_symname *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : y->func - x->func;
}

/* Functions and untyped symbols of symbol table section idx. */
static inline void sfu_elf_symbols_of(const struct elf *e, unsigned idx, const struct shdr *s, const uint64_t *bases,
				      struct sfu_elf_syms *out, size_t *cap)
{
	Elf_Data *d = elf_getdata(elf_getscn(e->elf, idx), NULL);
	unsigned nsec = num_sections(e);
	int k, n = d ? (int)(d->d_size / gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT)) : 0;
	for (k = 1; k < n; k++) {
		GElf_Sym y;
		const char *name;
		unsigned type;
		if (!gelf_getsym(d, k, &y))
			break;
		type = GELF_ST_TYPE(y.st_info);
		name = elf_strptr(e->elf, s->link, y.st_name);
		if ((type != STT_FUNC && type != STT_NOTYPE) || y.st_shndx == 0 || y.st_shndx >= nsec || !name || !*name)
			continue;
		if (out->n == *cap) {
			void *nv = realloc(out->v, (*cap = *cap ? 2 * *cap : 64) * sizeof *out->v);
			if (!nv)
				return; /* names are a nicety */
			out->v = nv;
		}
		out->v[out->n].addr = y.st_value + (e->type == ET_REL ? bases[y.st_shndx] : 0);
		out->v[out->n].name = name;
		out->v[out->n].func = type == STT_FUNC;
		out->n++;
	}
}

/* Functions and untyped symbols of .symtab (else .dynsym), at their
 * addresses (ET_REL: bases[section] + value).  Names point into e. */
static inline void sfu_elf_symbols(const struct elf *e, const uint64_t *bases, struct sfu_elf_syms *out)
{
	unsigned i, pass, nsec = num_sections(e);
	size_t cap = 0;
	out->v = NULL;
	out->n = 0;
	for (pass = 0; pass < 2 && !out->n; pass++)
		for (i = 1; i < nsec; i++) {
			struct shdr s;
			if (get_shdr(e, i, &s) && s.type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				sfu_elf_symbols_of(e, i, &s, bases, out, &cap);
		}
	if (out->n)
		qsort(out->v, out->n, sizeof *out->v, sfu_elf_symname_cmp);
}

/* "name", "name+0x10" or "0xaddr" for an address. */
static inline const char *sfu_elf_sym_name(const struct sfu_elf_syms *syms, uint64_t addr, char *buf, size_t n)
{
	size_t lo = 0, hi = syms->n, k;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (syms->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		snprintf(buf, n, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	/* Among the symbols at that address, the first (a function first). */
	k = lo - 1;
	while (k > 0 && syms->v[k - 1].addr == syms->v[lo - 1].addr)
		k--;
	if (addr == syms->v[k].addr)
		snprintf(buf, n, "%s", syms->v[k].name);
	else
		snprintf(buf, n, "%s+0x%llx", syms->v[k].name, (unsigned long long)(addr - syms->v[k].addr));
	return buf;
}

#endif /* SFU_ELF_H */
