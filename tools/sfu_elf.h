/* SPDX-License-Identifier: MIT */
/* sfu_elf.h - host-side ELF helpers for sfu's tools and tests (uses libc).
 *
 * Reads ELF32/ELF64 files of either byte order by hand, finds every section
 * named .sframe, and returns a copy of its bytes with the relocations that
 * objdump 2.47 applies to relocatable objects (see sfu-dump.c).  Not part of the freestanding core.
 */
#ifndef SFU_ELF_H
#define SFU_ELF_H

#include <errno.h>
#include <stdint.h>
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

static inline uint64_t rd(const struct elf *e, uint64_t off, unsigned len, int *ok)
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

static inline void wr(uint8_t *p, unsigned len, int big, uint64_t v)
{
	unsigned i;
	for (i = 0; i < len; i++)
		p[big ? len - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, off, size, entsize;
};

static inline int get_shdr(const struct elf *e, unsigned idx, struct shdr *s)
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

static inline unsigned num_sections(const struct elf *e)
{
	int ok = 1;
	return (unsigned)rd(e, e->is64 ? 0x3c : 0x30, 2, &ok);
}

static inline const char *sec_name(const struct elf *e, const struct shdr *s)
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

/* One relocation entry: where, against which symbol, what type, addend
 * (SHT_RELA: from the entry; SHT_REL: 0, the caller reads the field). */
struct sfu_elf_rel {
	uint64_t off, sym, type;
	int64_t addend;
};

static inline uint64_t sfu_elf_rel_entsize(const struct elf *e, const struct shdr *rel)
{
	return rel->entsize ? rel->entsize : (e->is64 ? (rel->type == 4 ? 24 : 16) : (rel->type == 4 ? 12 : 8));
}

/* Entry i of relocation section rel; 0 if it lies outside the file. */
static inline int sfu_elf_rel_get(const struct elf *e, const struct shdr *rel, uint64_t i, struct sfu_elf_rel *r)
{
	uint64_t b = rel->off + i * sfu_elf_rel_entsize(e, rel), info;
	int ok = 1;
	r->off = rd(e, b, e->is64 ? 8 : 4, &ok);
	info = rd(e, b + (e->is64 ? 8 : 4), e->is64 ? 8 : 4, &ok);
	r->sym = e->is64 ? info >> 32 : info >> 8;
	r->type = e->is64 ? (info & 0xffffffffu) : (info & 0xffu);
	r->addend = 0;
	if (rel->type == 4) { /* SHT_RELA */
		r->addend = (int64_t)rd(e, b + (e->is64 ? 16 : 8), e->is64 ? 8 : 4, &ok);
		if (!e->is64)
			r->addend = (int32_t)r->addend;
	}
	return ok;
}

/* Symbol idx of symbol table symtab: value, section index, info byte. */
struct sfu_elf_sym {
	uint64_t value, size;
	uint32_t name;
	uint16_t shndx;
	uint8_t info;
};

static inline int sfu_elf_sym_get(const struct elf *e, const struct shdr *symtab, uint64_t idx, struct sfu_elf_sym *s)
{
	uint64_t b = symtab->off + idx * (e->is64 ? 24 : 16);
	int ok = 1;
	if (idx >= symtab->size / (e->is64 ? 24 : 16))
		return 0;
	s->name = (uint32_t)rd(e, b, 4, &ok);
	if (e->is64) {
		s->info = (uint8_t)rd(e, b + 4, 1, &ok);
		s->shndx = (uint16_t)rd(e, b + 6, 2, &ok);
		s->value = rd(e, b + 8, 8, &ok);
		s->size = rd(e, b + 16, 8, &ok);
	} else {
		s->value = rd(e, b + 4, 4, &ok);
		s->size = rd(e, b + 8, 4, &ok);
		s->info = (uint8_t)rd(e, b + 12, 1, &ok);
		s->shndx = (uint16_t)rd(e, b + 14, 2, &ok);
	}
	return ok;
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
		if (e->type != 1 /* ET_REL */) {
			bases[i] = s.addr;
			continue;
		}
		/* Code only: the other sections' sizes (.sframe's, which a tool
		 * may change) must not move the code. */
		if ((s.flags & 6) != 6 /* SHF_ALLOC | SHF_EXECINSTR */ || s.size == 0)
			continue;
		at = (at + 63) & ~(uint64_t)63;
		bases[i] = at;
		at += s.size + 64;
	}
}

/* Apply the relocations of `rel` (SHT_RELA or SHT_REL) to buf, a copy of
 * section `target`.  bases == NULL: every section at address 0, as objdump
 * does for relocatable files; else section i at bases[i] (sfu_elf_layout).
 * Returns 0, or -1 on a relocation type we do not know (the caller then
 * dumps the raw bytes and says so). */
static inline int apply_relocs(const struct elf *e, const struct shdr *rel, uint8_t *buf, uint64_t bufsize,
			       const uint64_t *bases)
{
	struct shdr symtab;
	uint64_t i, entsize = sfu_elf_rel_entsize(e, rel), n = entsize ? rel->size / entsize : 0;
	uint64_t tbase = bases ? bases[rel->info] : 0;
	unsigned nsec = num_sections(e);
	int ok = 1;

	if (!get_shdr(e, rel->link, &symtab))
		return -1;
	for (i = 0; i < n; i++) {
		struct sfu_elf_rel r;
		struct sfu_elf_sym sym;
		uint64_t off, type, symval;
		int64_t addend;
		unsigned len = 0, pcrel = 0;
		uint64_t v;
		if (!sfu_elf_rel_get(e, rel, i, &r) || !sfu_elf_sym_get(e, &symtab, r.sym, &sym))
			return -1;
		off = r.off;
		type = r.type;
		addend = r.addend;
		symval = sym.value;
		if (bases && sym.shndx > 0 && sym.shndx < nsec)
			symval += bases[sym.shndx];
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
		if (!len || off > bufsize || len > bufsize - off)
			return -1;
		if (rel->type != 4) { /* SHT_REL: the addend is in the field */
			struct elf be = { buf, bufsize, e->is64, e->big, 0, 0 };
			int ok2 = 1;
			addend = (int64_t)rd(&be, off, len, &ok2);
			if (len == 4)
				addend = (int32_t)addend;
		}
		/* Section symbols and local symbols: value relative to their
		 * section, which sits at bases[] (or 0, objdump's simple
		 * relocation). */
		v = symval + (uint64_t)addend - (pcrel ? tbase + off : 0);
		wr(buf + off, len, e->big, v);
	}
	return ok ? 0 : -1;
}

static inline uint8_t *slurp(const char *path, size_t *n)
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


/* One .sframe section of a file: bytes (malloc'd copy), size, address. */
struct sfu_elf_sframe {
	uint8_t *bytes;
	uint64_t size, addr;
	int reloc_failed; /* relocations present but not all understood */
};

/* Open path; on success e->p is malloc'd (free with free((void*)e->p)).
 * Returns 0, or -1 with a message in err. */
static inline int sfu_elf_open(const char *path, struct elf *e, char *err, size_t errn)
{
	size_t n;
	uint8_t *buf = slurp(path, &n);
	int ok = 1;
	if (!buf) {
		snprintf(err, errn, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (n < 0x34 || memcmp(buf, "\177ELF", 4) != 0 || (buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2)) {
		snprintf(err, errn, "%s: not an ELF file", path);
		free(buf);
		return -1;
	}
	e->p = buf;
	e->n = n;
	e->is64 = buf[4] == 2;
	e->big = buf[5] == 2;
	e->type = (uint16_t)rd(e, 0x10, 2, &ok);
	e->machine = (uint16_t)rd(e, 0x12, 2, &ok);
	return 0;
}

/* The k-th .sframe section (k = 0, 1, ...): 1 if found, 0 if none, -1 on
 * allocation failure.  relocate: apply relocations as objdump 2.47 does
 * (every section at 0), or with bases (sfu_elf_layout; then out->addr is
 * the section's base too). */
static inline int sfu_elf_sframe_get_at(const struct elf *e, unsigned k, int relocate, const uint64_t *bases,
					struct sfu_elf_sframe *out)
{
	unsigned i, j, nsec = num_sections(e), seen = 0;
	for (i = 1; i < nsec; i++) {
		struct shdr s;
		if (!get_shdr(e, i, &s) || strcmp(sec_name(e, &s), ".sframe") != 0)
			continue;
		if (seen++ != k)
			continue;
		out->bytes = malloc(s.size ? s.size : 1);
		if (!out->bytes)
			return -1;
		memcpy(out->bytes, e->p + s.off, s.size);
		out->size = s.size;
		out->addr = bases ? bases[i] : s.addr;
		out->reloc_failed = 0;
		if (relocate && e->type == 1 /* ET_REL */) {
			for (j = 1; j < nsec; j++) {
				struct shdr r;
				if (!get_shdr(e, j, &r) || (r.type != 4 && r.type != 9) || r.info != i)
					continue;
				if (apply_relocs(e, &r, out->bytes, s.size, bases) != 0)
					out->reloc_failed = 1;
			}
		}
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

/* Functions and untyped symbols of .symtab (else .dynsym), at their
 * addresses (ET_REL: bases[section] + value).  Names point into e. */
static inline void sfu_elf_symbols(const struct elf *e, const uint64_t *bases, struct sfu_elf_syms *out)
{
	unsigned i, pass, nsec = num_sections(e);
	size_t cap = 0;
	out->v = NULL;
	out->n = 0;
	for (pass = 0; pass < 2 && !out->n; pass++) {
		for (i = 1; i < nsec; i++) {
			struct shdr s, str;
			uint64_t k, n;
			if (!get_shdr(e, i, &s) || s.type != (pass ? 11u : 2u) /* DYNSYM, SYMTAB */)
				continue;
			if (!get_shdr(e, s.link, &str) || str.type == 8)
				continue;
			n = s.size / (e->is64 ? 24 : 16);
			for (k = 1; k < n; k++) {
				struct sfu_elf_sym y;
				unsigned type;
				if (!sfu_elf_sym_get(e, &s, k, &y))
					break;
				type = y.info & 0xf;
				if ((type != 2 && type != 0) || y.shndx == 0 || y.shndx >= nsec || y.name >= str.size ||
				    !memchr(e->p + str.off + y.name, 0, str.size - y.name) || !e->p[str.off + y.name])
					continue;
				if (out->n == cap) {
					void *nv = realloc(out->v, (cap = cap ? 2 * cap : 64) * sizeof *out->v);
					if (!nv)
						return; /* names are a nicety */
					out->v = nv;
				}
				out->v[out->n].addr = y.value + (e->type == 1 ? bases[y.shndx] : 0);
				out->v[out->n].name = (const char *)e->p + str.off + y.name;
				out->v[out->n].func = type == 2;
				out->n++;
			}
		}
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
