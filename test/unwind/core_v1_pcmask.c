/* SPDX-License-Identifier: MIT */
/* core_v1_pcmask.c - regression test for a core bug found by the live
 * tests (step bookworm/x86_64: samples in the PLT), since fixed in the core
 * ("V1 PC-mask FREs are masks").
 *
 * SFrame V1 has no repeat-block size.  A PCMASK FDE's FRE start offsets are
 * masks (V1 spec, "The SFrame FDE types": an FRE matches when
 * (PC & FRE_START_ADDR_AS_MASK) >= FRE_START_ADDR_AS_MASK).  GNU ld 2.40
 * describes the x86_64 .plt entries 1..n with one such FDE over all of them:
 * FREs at 0x0 (CFA = SP + 8, before `push $n`) and 0xb (CFA = SP + 16, at
 * `jmp PLT0`).  The core used to treat V1 PCMASK like PCINC when rep_size
 * is 0, so every PC from offset 0xb on, in every later entry, got the second
 * row: at the `jmp *GOT` and `push` of entries 2..n the CFA came out 8 too
 * high.
 *
 * The section below is that FDE exactly as ld 2.40 emits it (objdump
 * --sframe: "STARTPC[m] 0000000000000000 sp+8 / 000000000000000b sp+16"). */
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#include "../../core/sfu.h"

#include <stdio.h>

#define SEC_ADDR 0x10000u
#define PLT1 0x2030u  /* first PLTn entry */
#define NENT 50u      /* 800 bytes / 16 */

static const uint8_t v1_plt[] = {
	/* header: magic, version 1, flags SORTED, ABI amd64, fixed FP 0,
	 * fixed RA -8, aux 0; 1 FDE, 2 FREs, 6 FRE bytes, FDEs at 0, FREs at 17 */
	0xe2, 0xde, 0x01, 0x01, 0x03, 0x00, 0xf8, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00,
	/* FDE: start PLT1 - SEC_ADDR (int32), size 800, FRE offset 0, 2 FREs,
	 * info: PCMASK, FRE type ADDR1 */
	0x30, 0x20, 0xff, 0xff, 0x20, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x10,
	/* FREs: start 0x00, SP-based, one 1-byte word: 8; start 0x0b: 16 */
	0x00, 0x03, 0x08,
	0x0b, 0x03, 0x10,
};

int main(void)
{
	static const struct { unsigned off; int cfa; const char *insn; } insns[] = {
		{ 0x0, 8, "jmp *GOT" }, { 0x6, 8, "push $n" }, { 0xb, 16, "jmp PLT0" },
	};
	sfu_section sec;
	unsigned e, i, bad = 0, checks = 0;
	int err = sfu_section_init(&sec, v1_plt, sizeof v1_plt, SEC_ADDR);
	if (err) {
		printf("FAIL core/v1-pcmask-plt: section rejected (%d)\n", err);
		return 1;
	}
	for (e = 0; e < NENT; e++) {
		for (i = 0; i < 3; i++) {
			sfu_row row;
			uint64_t pc = PLT1 + 16u * e + insns[i].off;
			checks++;
			err = sfu_find_row(&sec, pc, &row);
			if (err || row.cfa.base != SFU_REG_SP || row.cfa.off != insns[i].cfa) {
				if (!bad)
					printf("# first wrong row: PLT entry %u, %s (pc %#llx): CFA = SP%+d, want SP%+d (err %d)\n",
					       e + 1, insns[i].insn, (unsigned long long)pc, err ? 0 : row.cfa.off, insns[i].cfa,
					       err);
				bad++;
			}
		}
	}
	if (bad)
		printf("FAIL core/v1-pcmask-plt: %u of %u PLT instructions get the wrong CFA rule "
		       "(V1 PCMASK FRE starts are masks; the core compares them as offsets)\n", bad, checks);
	else
		printf("ok core/v1-pcmask-plt: %u PLT instructions in %u entries\n", checks, NENT);
	return bad != 0;
}
