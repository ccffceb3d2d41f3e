/* SPDX-License-Identifier: MIT */
/* ut_where.c - where a PC is: the executable's function symbols and
 * executable sections (from /proc/self/exe) and the executable mappings
 * (from /proc/self/maps), all read at start-up so that naming a PC in a
 * signal handler allocates nothing. */
#include "ut_harness.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ut_sym *ut_syms;
size_t ut_nsyms;
uint64_t ut_bias;
const ut_sym *ut_main;
const ut_sym *ut_stop;
static struct {
	uint64_t lo, hi;
	const char *name;
} ut_exesec[16];
static size_t ut_nexesec;
static struct {
	uint64_t lo, hi;
	char name[48];
} ut_maps[256];
static size_t ut_nmaps;

static int ut_sym_cmp(const void *a, const void *b)
{
	const ut_sym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

const ut_sym *ut_sym_at(uint64_t pc)
{
	size_t lo = 0, hi = ut_nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ut_syms[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= ut_syms[lo - 1].hi)
		return NULL;
	return &ut_syms[lo - 1];
}

const char *ut_exesec_at(uint64_t pc)
{
	size_t i;
	for (i = 0; i < ut_nexesec; i++)
		if (pc >= ut_exesec[i].lo && pc < ut_exesec[i].hi)
			return ut_exesec[i].name;
	return NULL;
}

const char *ut_map_at(uint64_t pc)
{
	size_t i;
	const char *sec = ut_exesec_at(pc);
	if (sec)
		return sec;
	for (i = 0; i < ut_nmaps; i++)
		if (pc >= ut_maps[i].lo && pc < ut_maps[i].hi)
			return ut_maps[i].name;
	return "unmapped";
}

/* The test's own code (ut.h): sh_*, ut_*, main. */
int ut_own(const ut_sym *s)
{
	return s && (!strncmp(s->name, "sh_", 3) || !strncmp(s->name, "ut_", 3) || !strcmp(s->name, "main") ||
	             !strncmp(s->name, "main.", 5));
}

static int ut_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	ut_bias = info->dlpi_addr; /* the first object is the executable */
	return 1;
}

/* The executable's load bias (0 for a static or non-PIE program). */
void ut_load_bias(void)
{
	dl_iterate_phdr(ut_phdr_cb, NULL);
}

/* Symbols and sections of the executable, from /proc/self/exe. */
int ut_load_self(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	static uint8_t *img; /* kept: symbol names point into it */
	long len;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	size_t i, j;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	img = malloc((size_t)len);
	if (!img || fread(img, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	ut_load_bias();
	eh = (const Elf64_Ehdr *)img;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const char *nm = (const char *)img + sh[eh->e_shstrndx].sh_offset + sh[i].sh_name;
		if ((sh[i].sh_flags & SHF_EXECINSTR) && ut_nexesec < 16) {
			ut_exesec[ut_nexesec].lo = sh[i].sh_addr + ut_bias;
			ut_exesec[ut_nexesec].hi = sh[i].sh_addr + ut_bias + sh[i].sh_size;
			ut_exesec[ut_nexesec].name = nm;
			ut_nexesec++;
		}
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		{
			const Elf64_Sym *sy = (const Elf64_Sym *)(img + sh[i].sh_offset);
			const char *str = (const char *)img + sh[sh[i].sh_link].sh_offset;
			size_t n = sh[i].sh_size / sizeof *sy;
			ut_syms = calloc(n, sizeof *ut_syms);
			if (!ut_syms)
				return -1;
			for (j = 0; j < n; j++) {
				if (ELF64_ST_TYPE(sy[j].st_info) != STT_FUNC || sy[j].st_shndx == SHN_UNDEF || !sy[j].st_value)
					continue;
				ut_syms[ut_nsyms].lo = sy[j].st_value + ut_bias;
				ut_syms[ut_nsyms].hi = sy[j].st_value + ut_bias + sy[j].st_size;
				ut_syms[ut_nsyms].name = str + sy[j].st_name;
				ut_nsyms++;
			}
		}
	}
	qsort(ut_syms, ut_nsyms, sizeof *ut_syms, ut_sym_cmp);
	/* Size-0 symbols (assembly) extend to the next symbol; aliases of one
	 * address keep one entry. */
	for (i = 0, j = 0; i < ut_nsyms; i++) {
		if (j && ut_syms[j - 1].lo == ut_syms[i].lo) {
			if (ut_syms[i].hi > ut_syms[j - 1].hi)
				ut_syms[j - 1].hi = ut_syms[i].hi;
			if (ut_own(&ut_syms[i]))
				ut_syms[j - 1].name = ut_syms[i].name;
			continue;
		}
		ut_syms[j++] = ut_syms[i];
	}
	ut_nsyms = j;
	for (i = 0; i < ut_nsyms; i++) {
		size_t k;
		if (ut_syms[i].hi != ut_syms[i].lo)
			continue;
		ut_syms[i].hi = i + 1 < ut_nsyms ? ut_syms[i + 1].lo : ut_syms[i].lo + 1;
		for (k = 0; k < ut_nexesec; k++) /* not past its section (_init and .plt) */
			if (ut_syms[i].lo >= ut_exesec[k].lo && ut_syms[i].lo < ut_exesec[k].hi &&
			    ut_syms[i].hi > ut_exesec[k].hi)
				ut_syms[i].hi = ut_exesec[k].hi;
	}
	for (i = 0; i < ut_nsyms; i++)
		if (!strcmp(ut_syms[i].name, "main"))
			ut_main = &ut_syms[i];
	ut_stop = ut_main;
	return ut_main ? 0 : -1;
}

/* Executable mappings with their file names, for naming PCs outside the
 * executable's .sframe coverage. */
void ut_load_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	if (!f)
		return;
	while (fgets(line, sizeof line, f) && ut_nmaps < 256) {
		unsigned long lo, hi;
		char perms[8], path[400] = "";
		const char *base;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %399s", &lo, &hi, perms, path) < 3 || perms[2] != 'x')
			continue;
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		ut_maps[ut_nmaps].lo = lo;
		ut_maps[ut_nmaps].hi = hi;
		base = *base ? base : "anonymous";
		{
			size_t k;
			for (k = 0; base[k] && k + 1 < sizeof ut_maps[ut_nmaps].name; k++)
				ut_maps[ut_nmaps].name[k] = base[k];
			ut_maps[ut_nmaps].name[k] = 0;
		}
		ut_nmaps++;
	}
	fclose(f);
}
