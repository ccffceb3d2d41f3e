/* SPDX-License-Identifier: MIT */
/* reloc-check OBJECT NAME - sfu-gen's relocation of a relocatable object's
 * CFI against elfutils' libdwfl.
 *
 * libdw applies no relocations; sfu-gen relocates .eh_frame and
 * .debug_frame itself (tools/sfu_elf.h, sfu_elf_relocate, code sections
 * laid out by sfu_elf_layout) to find every FDE's start.  libdwfl, given
 * the object offline (dwfl_report_offline), lays the sections out its own
 * way and relocates the DWARF sections, .debug_frame among them, but not
 * .eh_frame (an allocated section: its FDEs keep their unrelocated
 * starts).  So:
 *
 *   .debug_frame  every FDE sfu-gen decodes, moved from its code section's
 *                 sfu_elf_layout base to libdwfl's, is an FDE of libdwfl's
 *                 (dwarf_cfi_addrframe finds a row starting there) with the
 *                 same end: "ok reloc/NAME: N .debug_frame FDEs ...";
 *   .eh_frame     libdwfl's view is checked to be unrelocated (the FDE
 *                 starts sfu-gen finds are not libdwfl's), which is why
 *                 sfu-gen relocates it: "# eh_frame NAME: ..." (a FAIL if
 *                 libdwfl ever relocates it: then compare it too).
 *
 * An object without .debug_frame is a FAIL (test/gen/run.sh gives it
 * those that have one).
 */
#include <elfutils/libdwfl.h>
#include <inttypes.h>

#include "../../tools/sfu_cfi.h"
#include "../../tools/sfu_elf.h"

static const char *g_name;

static void fail(const char *why)
{
	printf("FAIL reloc/%s: %s\n", g_name, why);
	exit(1);
}

static int no_debuginfo(Dwfl_Module *m, void **u, const char *n, Dwarf_Addr a, const char *f, const char *d,
			GElf_Word c, char **p)
{
	(void)m, (void)u, (void)n, (void)a, (void)f, (void)d, (void)c, (void)p;
	return -1;
}

static const Dwfl_Callbacks callbacks = { .find_debuginfo = no_debuginfo,
					  .section_address = dwfl_offline_section_address };

/* The code section holding pc under sfu_elf_layout's bases; 0 if none. */
static unsigned section_at(const struct elf *e, const uint64_t *bases, uint64_t pc)
{
	unsigned i, n = num_sections(e);
	for (i = 1; i < n; i++) {
		struct shdr s;
		if (get_shdr(e, i, &s) && bases[i] && pc >= bases[i] && pc - bases[i] < s.size)
			return i;
	}
	return 0;
}

/* sfu-gen's FDEs of section idx, relocated, each checked by check(). */
typedef int (*fde_fn)(void *ctx, unsigned sec, uint64_t off, uint64_t size);

static size_t walk(const struct elf *e, const uint64_t *bases, unsigned idx, int eh, fde_fn check, void *ctx)
{
	size_t n = 0, cnt = 0;
	const uint8_t *p = sfu_elf_sec_bytes(e, idx, &n);
	uint8_t *buf = malloc(n ? n : 1);
	Elf_Data d;
	struct cfi_sec s;
	Dwarf_Off off = 0, next;
	if (!p || !buf)
		fail("cannot read the CFI section");
	memcpy(buf, p, n);
	if (sfu_elf_relocate(e, idx, buf, n, bases) != 0)
		fail("sfu_elf_relocate failed");
	memset(&d, 0, sizeof d);
	d.d_buf = buf;
	d.d_size = n;
	memset(&s, 0, sizeof s);
	s.data = &d;
	s.ident = (const unsigned char *)elf_getident(e->elf, NULL);
	s.addr = bases[idx];
	s.big = e->big;
	s.eh = eh;
	while (off < n) {
		Dwarf_CFI_Entry en;
		struct cfi_fde fde;
		const char *why;
		int r = dwarf_next_cfi(s.ident, &d, eh, off, &next, &en);
		if (r == 1 && off + 4 <= n && !buf[off] && !buf[off + 1] && !buf[off + 2] && !buf[off + 3]) {
			off += 4;
			continue;
		}
		if (r != 0)
			break;
		if (!dwarf_cfi_cie_p(&en) && cfi_fde_decode(&s, off, &en, &fde, &why) == 0 && fde.range) {
			unsigned sec = section_at(e, bases, fde.pc);
			if (!sec)
				fail("an FDE starts outside every code section");
			cnt += check(ctx, sec, fde.pc - bases[sec], fde.range) ? 1 : 0;
		}
		off = next;
	}
	free(buf);
	return cnt;
}

struct lib {
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	Elf *elf;
	size_t checked, found;
};

/* Is there an FDE of libdwfl's at the same place in the same section? */
static int lib_has(void *ctx, unsigned sec, uint64_t off, uint64_t size)
{
	struct lib *l = ctx;
	GElf_Shdr sh;
	Dwarf_Frame *fr;
	Dwarf_Addr lo, hi, a, last;
	int ok;
	if (!gelf_getshdr(elf_getscn(l->elf, sec), &sh))
		fail("libdwfl's section header");
	a = sh.sh_addr + off;
	l->checked++;
	if (!l->cfi || dwarf_cfi_addrframe(l->cfi, a - l->bias, &fr) != 0)
		return 0;
	dwarf_frame_info(fr, &lo, &hi, NULL);
	free(fr);
	ok = lo == a - l->bias;
	/* and the FDE ends where sfu-gen's does */
	last = a + size - 1 - l->bias;
	if (ok && dwarf_cfi_addrframe(l->cfi, last, &fr) == 0) {
		dwarf_frame_info(fr, &lo, &hi, NULL);
		free(fr);
		ok = hi >= last + 1;
	} else {
		ok = 0;
	}
	l->found += ok;
	return ok;
}

static unsigned find(const struct elf *e, const char *name)
{
	unsigned i, n = num_sections(e);
	for (i = 1; i < n; i++) {
		struct shdr s;
		if (get_shdr(e, i, &s) && s.type != SHT_NOBITS && !strcmp(sec_name(e, &s), name))
			return i;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct elf e;
	char err[512];
	uint64_t *bases;
	unsigned dbg, eh;
	Dwfl *dwfl;
	Dwfl_Module *m;
	struct lib l;

	if (argc != 3) {
		fprintf(stderr, "usage: reloc-check OBJECT NAME\n");
		return 2;
	}
	g_name = argv[2];
	if (sfu_elf_open(argv[1], &e, err, sizeof err) != 0)
		fail(err);
	if (e.type != ET_REL)
		fail("not a relocatable object");
	bases = calloc(num_sections(&e) + 1, sizeof *bases);
	sfu_elf_layout(&e, bases);
	dwfl = dwfl_begin(&callbacks);
	m = dwfl ? dwfl_report_offline(dwfl, "object", argv[1], -1) : NULL;
	if (!m || dwfl_report_end(dwfl, NULL, NULL) != 0)
		fail(dwfl_errmsg(-1));
	memset(&l, 0, sizeof l);
	l.elf = dwfl_module_getelf(m, &l.bias);
	if (!l.elf)
		fail(dwfl_errmsg(-1));
	dbg = find(&e, ".debug_frame");
	eh = find(&e, ".eh_frame");
	if (!dbg)
		fail("no .debug_frame");
	{
		l.cfi = dwfl_module_dwarf_cfi(m, &l.bias);
		walk(&e, bases, dbg, 0, lib_has, &l);
		if (!l.checked || l.found != l.checked) {
			snprintf(err, sizeof err, "%zu of %zu .debug_frame FDEs are not at the same place in libdwfl's relocation",
				 l.checked - l.found, l.checked);
			fail(err);
		}
	}
	if (eh) {
		struct lib k;
		memset(&k, 0, sizeof k);
		k.elf = l.elf;
		k.cfi = dwfl_module_eh_cfi(m, &k.bias);
		walk(&e, bases, eh, 1, lib_has, &k);
		if (k.checked && k.found == k.checked)
			fail("libdwfl now relocates .eh_frame: compare it like .debug_frame");
		printf("# eh_frame %s: libdwfl finds %zu of sfu-gen's %zu FDE starts (it leaves .eh_frame unrelocated)\n",
		       g_name, k.found, k.checked);
	}
	printf("ok reloc/%s: %zu .debug_frame FDEs at the same place and size in libdwfl's relocation\n", g_name,
	       l.checked);
	dwfl_end(dwfl);
	free(bases);
	sfu_elf_close(&e);
	return 0;
}
