/* SPDX-License-Identifier: MIT */
/* Unit tests of the bare-metal port's context descriptions
 * (crash/sfu_layout.h): trap frames found through a variable
 * or a task control block, interrupted SPs not in the frame, frame
 * variants chosen by a word, call sites told apart by their callee, saved
 * thread contexts that are trap frames or record a privilege level, the
 * "recognised but unreadable" answer, per-thread ports keeping a custom
 * trap callback.  Built twice: for the host with the x86_64 port (gcc and
 * clang, sanitizers; test/common/host.mk) and with the aarch64 port by
 * the aarch64 cross compiler, run under qemu-aarch64 (test/unit/run.sh),
 * so each arch's layouts, call decoding and register numbers are checked.
 * Reads this process's own memory, with the RAM given explicitly. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>
#if defined(__aarch64__)
/* SP_EL0 cannot be read at EL0, where this test runs: a stand-in. */
static uint64_t g_live_sp;
#define SFU_PORT_LIVE_SP g_live_sp
#include "sfu_port_aarch64.h"
#define ARCH "aarch64"
#define ABI SFU_ABI_AARCH64_LE
#define KERNEL_MODE 0x5u /* SPSR_EL1.M = EL1h */
#define USER_MODE 0x0u   /* EL0t */
#else
#include "sfu_port_x86_64.h"
#define ARCH "x86_64"
#define ABI SFU_ABI_AMD64_LE
#define KERNEL_MODE 0x08u /* CS, RPL 0 */
#define USER_MODE 0x23u   /* CS, RPL 3 */
#endif
/* The fixture's stacks and the contexts off them lie a few KiB apart: a
 * guard gap its size, tested at 256 bytes (test_context_outside). */
#define SFU_PORT_GUARD_GAP 256
#include "sfu_layout.h"
#include "../common/sfb.h"

#include "ut.h"

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

/* A frame in an RTOS's style: a flag word (FP context saved or not), a
 * spare word, the FP context if flagged (0x200 bytes), then PC, mode and
 * x0..x30 (aarch64) / the 16 registers in DWARF order (x86_64).  0x120
 * bytes, or 0x320 with the FP context. */
#define F_FLAG 0x00
#define F_GP(fp) ((fp) ? 0x210 : 0x10)
#define F_PC(fp) (F_GP(fp) + 0x00)
#define F_MODE(fp) (F_GP(fp) + 0x08)
#define F_REGS(fp) (F_GP(fp) + 0x10)
#define F_SIZE(fp) ((fp) ? 0x320 : 0x120)

#if defined(__aarch64__)
#define FRAME_REGS(fp) SFU_AARCH64_TRAP_REGS_X0(F_REGS(fp))
#else
#define FRAME_REGS(fp)                                                                                  \
	{ SFU_AT(F_REGS(fp) + 0x00), SFU_AT(F_REGS(fp) + 0x08), SFU_AT(F_REGS(fp) + 0x10),                   \
	  SFU_AT(F_REGS(fp) + 0x18), SFU_AT(F_REGS(fp) + 0x20), SFU_AT(F_REGS(fp) + 0x28),                   \
	  SFU_AT(F_REGS(fp) + 0x30), SFU_TRAP_NOT_SAVED,        SFU_AT(F_REGS(fp) + 0x40),                   \
	  SFU_AT(F_REGS(fp) + 0x48), SFU_AT(F_REGS(fp) + 0x50), SFU_AT(F_REGS(fp) + 0x58),                   \
	  SFU_AT(F_REGS(fp) + 0x60), SFU_AT(F_REGS(fp) + 0x68), SFU_AT(F_REGS(fp) + 0x70),                   \
	  SFU_AT(F_REGS(fp) + 0x78), SFU_TRAP_NOT_SAVED }
#endif

/* A task control block whose second word is the saved-context pointer,
 * and the kernel's pointer to the current one. */
struct tcb {
	uint64_t id;
	uint64_t sp;
	uint32_t state, fp_enable; /* an FP context is saved (ThreadX's tx_thread_fp_enable) */
};
static struct tcb g_tcb, g_other_tcb;
static volatile uint64_t g_nesting; /* a kernel's interrupt nesting counter */
static struct tcb *volatile g_current = &g_tcb;
static volatile uint64_t g_frame_var, g_sp_var;

/* The memory walks read: two stacks, and the "kernel" RAM the TCB is in. */
static struct {
	uint64_t a[256];
	uint64_t guard[2];
	uint64_t b[256];
} __attribute__((aligned(16))) mem;

/* Code bytes of an entry file (read, never run): calls at a known place. */
static uint8_t g_code[64] __attribute__((aligned(16)));
/* Two C functions the entry code calls (addresses near it, so a call
 * reaches them). */
#define CALLEE_A (A(g_code) + 0x100000u)
#define CALLEE_B (A(g_code) + 0x200000u)

/* Put a direct call to target at g_code + off; returns the return address. */
static uint64_t put_call(size_t off, uint64_t target)
{
	uint64_t at = A(g_code + off);
#if defined(__aarch64__)
	uint32_t insn = 0x94000000u | (uint32_t)(((target - at) >> 2) & 0x3ffffffu);
	memcpy(g_code + off, &insn, 4);
	return at + 4;
#else
	int32_t rel = (int32_t)(target - (at + 5));
	g_code[off] = 0xe8;
	memcpy(g_code + off + 1, &rel, 4);
	return at + 5;
#endif
}

static const void *g_callees_a[1], *g_callees_b[1];

/* The two variants of the frame, at the calls into CALLEE_A in g_code,
 * found through the current TCB; the interrupted SP is the frame's end. */
static struct sfu_trap_layout variant(int fp)
{
	struct sfu_trap_layout l = {
		.call = { .start = g_code, .end = g_code + sizeof g_code,
		          .callees = (const void *const *)g_callees_a, .ncallees = 1 },
		.frame = { .from = SFU_TRAP_FRAME_PTR, .ref = (const void *)&g_current,
		           .ref_off = offsetof(struct tcb, sp), .size = (uint16_t)F_SIZE(fp), .align = 16 },
		.sp = { .from = SFU_TRAP_SP_END },
		.select = { .at = SFU_AT(F_FLAG), .mask = 1, .value = (uint64_t)fp },
		.regs = { .pc = SFU_AT(F_PC(fp)), .mode = SFU_AT(F_MODE(fp)), .reg = FRAME_REGS(fp) },
	};
	return l;
}

static struct sfu_trap_layout g_layouts[2];
static struct sfu_port_range g_ram[4];
static struct sfu_port_ctx g_ctx;

static void setup(void)
{
	memset(&mem, 0, sizeof mem);
	memset(g_code, 0, sizeof g_code);
	g_callees_a[0] = (const void *)(uintptr_t)CALLEE_A;
	g_callees_b[0] = (const void *)(uintptr_t)CALLEE_B;
	g_layouts[0] = variant(0);
	g_layouts[1] = variant(1);
	/* The stacks, and the TCB (kernel data). */
	g_ram[0].start = A(&mem);
	g_ram[0].end = A(&mem + 1);
	g_ram[1].start = A(&g_tcb);
	g_ram[1].end = A(&g_tcb + 1);
	g_ram[2].start = A(&g_other_tcb);
	g_ram[2].end = A(&g_other_tcb + 1);
	g_ctx.ram = g_ram;
	g_ctx.nram = 3;
	g_ctx.traps = g_layouts;
	g_ctx.ntraps = 2;
	g_ctx.kernel = NULL;
	g_ctx.trap = NULL;
	g_ctx.entries = NULL;
	g_ctx.nentries = 0;
	g_ctx.top = 0;
	g_ctx.tcb = 0;
	g_ctx.live_sp = 0;
	g_tcb.sp = 0;
	g_tcb.fp_enable = 0;
	g_other_tcb.sp = 0;
	g_other_tcb.fp_enable = 0;
	g_nesting = 0;
	g_current = &g_tcb;
}

/* Fill a frame at f: flag fp, pc, mode, FP register and (aarch64) LR. */
static void fill(uint64_t *f, int fp, uint64_t pc, uint64_t mode, uint64_t fpreg)
{
	f[F_FLAG / 8] = (uint64_t)fp;
	f[F_PC(fp) / 8] = pc;
	f[F_MODE(fp) / 8] = mode;
	f[(F_REGS(fp) + 8 * SFU_PORT_DWARF_FP) / 8] = fpreg;
#if SFU_PORT_DWARF_RA >= 0
	f[(F_REGS(fp) + 8 * SFU_PORT_DWARF_RA) / 8] = 0x7777;
#endif
}

/* Each rule of a trap layout, broken once in the first variant:
 * SFU_E_DESC, and the rule names the field. */
static const struct ut_rule layout_rules[] = {
	{ "no call site (neither sites, a code range nor callees)", "call:" },
	{ "callees missing, ncallees 1", "call.callees:" },
	{ "frame.size 0", "frame.size:" },
	{ "frame.size not a multiple of 8", "frame.size:" },
	{ "frame.align not a power of two", "frame.align:" },
	{ "frame.off not a multiple of 8", "frame.off:" },
	{ "pc past the frame", "regs.pc:" },
	{ "pc a bare offset", "regs.pc:" },
	{ "pc not saved", "regs.pc: 0, not saved (left out of the initializer)" },
	{ "mode a bare offset", "regs.mode:" },
	{ "mode at pc's offset", "regs: pc and mode" },
	{ "a register a bare offset", "regs.reg[]: a register" },
	{ "a register past the frame", "regs.reg[]: a register" },
	{ "no frame pointer", "regs.reg[" UT_XSTR(SFU_PORT_DWARF_FP) "] (the frame pointer): 0, not saved" },
	{ "no link register (aarch64)", "regs.reg[" UT_XSTR(SFU_PORT_DWARF_RA) "] (the link register): 0, not saved" },
	{ "select word past the frame", "select.at:" },
	{ "select word a bare offset", "select.at:" },
	{ "sp.add not a multiple of 8", "sp.add:" },
	{ "SP in no variable", "sp.var:" },
	{ "SP in a variable not 8-byte aligned", "sp.var:" },
	{ "unknown sp.from", "sp.from:" },
	{ "saved SP not saved", "sp.at: 0, not saved (left out of the initializer)" },
	{ "saved SP a bare offset", "sp.at:" },
	{ "saved SP at pc's offset", "sp.at: at the offset of regs.pc" },
	{ "saved SP at mode's offset", "sp.at: at the offset of regs.pc or regs.mode" },
	{ "frame in no variable", "frame.ref:" },
	{ "frame variable not 8-byte aligned", "frame.ref:" },
	{ "TCB field not a multiple of 8", "frame.ref_off:" },
	{ "TCB field negative", "frame.ref_off:" },
	{ "unknown frame.from", "frame.from:" },
	{ "call.end below call.start", "call.end:" },
	{ "select.size 3", "select.size:" },
	{ "select.from unknown", "select.from:" },
	{ "a variable select word with no variable", "select.ref:" },
	{ "a TCB select word with no current-thread pointer", "select.ref:" },
	{ "select.at left out, a select.mask given", "select.at: 0, not given (left out of the initializer)" },
	{ "a 4-byte select word at a 2-byte offset", "select.at:" },
	{ "select.mask wider than its word", "select.mask:" },
	{ "a frame select word with a variable", "select.ref:" },
	{ "a TCB frame with no current-thread pointer", "frame.ref:" },
	{ "a TCB frame field not a multiple of 8", "frame.ref_off:" },
	{ "the SP at the call, with the frame at that SP", "sp.from: SFU_TRAP_SP_CALL with frame.from SFU_TRAP_FRAME_SP" },
	{ "the SP at the call plus an add not a multiple of 8", "sp.add:" },
	{ "sp.on_live neither 0 nor 1", "sp.on_live:" },
	{ "a frame pushed on the other SP, at the call's SP (or no other SP: x86_64)", "sp.on_live: 1" },
};

/* Break rule i of l; false if the rule does not apply to this arch. */
static bool break_layout(size_t i, struct sfu_trap_layout *l)
{
	switch (i) {
	case 0: l->call.start = l->call.end = NULL; l->call.callees = NULL; l->call.ncallees = 0; break;
	case 1: l->call.callees = NULL; break;
	case 2: l->frame.size = 0; break;
	case 3: l->frame.size = 0x121; break;
	case 4: l->frame.align = 24; break;
	case 5: l->frame.off = 4; break;
	case 6: l->regs.pc = SFU_AT(F_SIZE(0)); break;
	case 7: l->regs.pc = F_PC(0); break;
	case 8: l->regs.pc = SFU_TRAP_NOT_SAVED; break;
	case 9: l->regs.mode = F_MODE(0); break;
	case 10: l->regs.mode = l->regs.pc; break;
	case 11: l->regs.reg[0] = F_REGS(0); break;
	case 12: l->regs.reg[0] = SFU_AT(F_SIZE(0)); break;
	case 13: l->regs.reg[SFU_PORT_DWARF_FP] = SFU_TRAP_NOT_SAVED; break;
	case 14:
#if SFU_PORT_DWARF_RA >= 0
		l->regs.reg[SFU_PORT_DWARF_RA] = SFU_TRAP_NOT_SAVED;
		break;
#else
		return false;
#endif
	case 15: l->select.at = SFU_AT(F_SIZE(0)); break;
	case 16: l->select.at = 8; break;
	case 17: l->sp.add = 4; break;
	case 18: l->sp.from = SFU_TRAP_SP_VAR; break;
	case 19: l->sp.from = SFU_TRAP_SP_VAR; l->sp.var = (const char *)&g_sp_var + 4; break;
	case 20: l->sp.from = 9; break;
	case 21: l->sp.from = SFU_TRAP_SP_SAVED; break;
	case 22: l->sp.from = SFU_TRAP_SP_SAVED; l->sp.at = F_REGS(0) + 0xf8; break;
	case 23: l->sp.from = SFU_TRAP_SP_SAVED; l->sp.at = l->regs.pc; break;
	case 24: l->sp.from = SFU_TRAP_SP_SAVED; l->sp.at = l->regs.mode; break;
	case 25: l->frame.ref = NULL; break;
	case 26: l->frame.ref = (const char *)&g_current + 4; break;
	case 27: l->frame.ref_off = 4; break;
	case 28: l->frame.ref_off = -8; break;
	case 29: l->frame.from = 4; break;
	case 30: l->call.end = (const char *)l->call.start - 1; break;
	case 31: l->select.size = 3; break;
	case 32: l->select.from = 7; break;
	case 33: l->select.from = SFU_SELECT_VAR; break;
	case 34: l->select.from = SFU_SELECT_TCB; break;
	case 35: l->select.at = 0; break;
	case 36: l->select.size = 4; l->select.at = SFU_AT(2); break;
	case 37: l->select.size = 1; l->select.mask = 0x100; break;
	case 38: l->select.ref = (const void *)&g_current; break;
	case 39: l->frame.from = SFU_TRAP_FRAME_TCB; l->frame.ref = NULL; break;
	case 40: l->frame.from = SFU_TRAP_FRAME_TCB; l->frame.ref_off = 12; break;
	case 41: l->sp.from = SFU_TRAP_SP_CALL; l->frame.from = SFU_TRAP_FRAME_SP; l->frame.ref = NULL; break;
	case 42: l->sp.from = SFU_TRAP_SP_CALL; l->sp.add = 12; break;
	case 43: l->sp.on_live = 2; break;
	case 44: l->sp.on_live = 1; l->frame.from = SFU_TRAP_FRAME_SP; l->frame.ref = NULL; break;
	}
	return true;
}

UT_CASE(test_layout_rules)
{
	struct sfu_trap_layout l;
	const char *why = "unset";
	char name[240];
	size_t i;
	int err;

	begin();
	setup();
	err = sfu_layout_check(&g_layouts[0], &why);
	EXPECT(err == SFU_OK && why == NULL && sfu_layout_check(&g_layouts[1], NULL) == SFU_OK, "the variants: %s, %s",
	       E(err), why ? why : "(no rule)");
	l = g_layouts[0];
	l.sp.from = SFU_TRAP_SP_VAR;
	l.sp.var = (const void *)&g_sp_var;
	err = sfu_layout_check(&l, &why);
	EXPECT(err == SFU_OK, "SP in a variable: %s", why ? why : "(no rule)");
	l = g_layouts[0];
	l.sp.from = SFU_TRAP_SP_LIVE;
	err = sfu_layout_check(&l, &why);
	EXPECT(SFU__PORT_HAS_LIVE_SP ? err == SFU_OK : ut_refused(err, why, "sp.from: SFU_TRAP_SP_LIVE"),
	       "live SP (" ARCH "): %s, %s", E(err), why ? why : "(no rule)");
	l = g_layouts[0];
	l.sp.from = SFU_TRAP_SP_SAVED;
	l.sp.at = SFU_AT(F_REGS(0) + 0xf8);
	EXPECT(sfu_layout_check(&l, NULL) == SFU_OK, "a saved SP at SFU_AT: %s", E(sfu_layout_check(&l, NULL)));
	/* The SP at the call, with a frame found elsewhere (through the TCB
	 * here), plus a multiple of 8. */
	l = g_layouts[0];
	l.sp.from = SFU_TRAP_SP_CALL;
	l.sp.add = 16;
	err = sfu_layout_check(&l, &why);
	EXPECT(err == SFU_OK, "the SP at the call: %s", why ? why : "(no rule)");
	why = "unset";
	EXPECT(sfu_layout_check(NULL, &why) == SFU_E_DESC && why != NULL && strcmp(why, "no layout") == 0,
	       "no layout: %s", why ? why : "(no rule)");
	end("ctx " ARCH " layout-check: the variants pass, an SP in a variable, live where the CPU has one, the SP at "
	    "the call");

	for (i = 0; i < sizeof layout_rules / sizeof layout_rules[0]; i++) {
		l = g_layouts[0];
		if (!break_layout(i, &l))
			continue;
		begin();
		why = NULL;
		err = sfu_layout_check(&l, &why);
		EXPECT(ut_refused(err, why, layout_rules[i].rule), "%s: %s, rule \"%s\", not \"%s...\"",
		       layout_rules[i].what, E(err), why ? why : "(none)", layout_rules[i].rule);
		snprintf(name, sizeof name, "ctx " ARCH " layout-check: %s is refused (SFU_E_DESC), naming %s",
		         layout_rules[i].what, layout_rules[i].rule);
		end(name);
	}
}

UT_CASE(test_tcb_variants)
{
	sfu_regs r;
	uint64_t ra, *f;
	int k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	/* No FP context: 0x120 bytes at a[32], the SP its end. */
	f = &mem.a[32];
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	memset(&r, 0, sizeof r);
	k = sfu_port_trap(&g_ctx, ra, 0x1234560, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000 && r.sp == A(f) + 0x120 && r.fp == 0xf0f0 &&
	       r.dwarf_map == g_layouts[0].regs.reg, "no FP: %d pc %#llx sp %#llx", k, (unsigned long long)r.pc,
	       (unsigned long long)r.sp);
#if SFU_PORT_DWARF_RA >= 0
	EXPECT(r.ra == 0x7777, "link register %#llx", (unsigned long long)r.ra);
#endif
	/* With it: 0x320 bytes, the registers 0x200 further. */
	memset(&mem, 0, sizeof mem);
	fill(f, 1, 0x222000, USER_MODE, 0xe0e0);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_USER && r.pc == 0x222000 && r.sp == A(f) + 0x320 && r.fp == 0xe0e0 &&
	       r.dwarf_map == g_layouts[1].regs.reg, "FP: %d pc %#llx sp %#llx", k, (unsigned long long)r.pc,
	       (unsigned long long)r.sp);
	end("ctx " ARCH " tcb-variants: the frame through the current TCB, its size by the flag word, SP its end");

	begin();
	/* A flag no variant describes, a frame outside the RAM, a NULL or
	 * wild current TCB: the call site is recognised, the frame is not
	 * readable. */
	f[F_FLAG / 8] = 2;
	g_layouts[0].select.mask = g_layouts[1].select.mask = 3;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "no variant: %d", k);
	g_layouts[0].select.mask = g_layouts[1].select.mask = 1;
	g_tcb.sp = A(&mem.b[250]);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "frame past the RAM: %d", k);
	g_tcb.sp = A(f) + 8;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "frame misaligned: %d", k);
	g_current = NULL;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "no current TCB: %d", k);
	g_current = (struct tcb *)(uintptr_t)0x10;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "wild current TCB (outside the RAM, never read): %d", k);
	end("ctx " ARCH " tcb-unreadable: a recognised site whose frame cannot be read answers SFU_TRAP_UNREADABLE");
}

UT_CASE(test_callees)
{
	sfu_regs r;
	uint64_t ra_a, ra_b, *f = &mem.a[32];
	struct sfu_trap_layout sp_layout;
	int k;
	begin();
	setup();
	ra_a = put_call(8, CALLEE_A);
	ra_b = put_call(24, CALLEE_B);
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	/* A third layout: calls into CALLEE_B take the frame at their SP. */
	sp_layout = variant(0);
	sp_layout.call.callees = (const void *const *)g_callees_b;
	sp_layout.frame.from = SFU_TRAP_FRAME_SP;
	sp_layout.frame.off = 0x40;
	{
		struct sfu_trap_layout three[3] = { g_layouts[0], g_layouts[1], sp_layout };
		g_ctx.traps = three;
		g_ctx.ntraps = 3;
		k = sfu_port_trap(&g_ctx, ra_a, 0, &r);
		EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "call to A: %d pc %#llx", k, (unsigned long long)r.pc);
		memset(&mem.a[100], 0, 0x200);
		fill(&mem.a[108], 0, 0x333000, KERNEL_MODE, 0xd0d0);
		k = sfu_port_trap(&g_ctx, ra_b, A(&mem.a[100]), &r);
		EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x333000 && r.sp == A(&mem.a[108]) + 0x120,
		       "call to B (frame at SP + 0x40): %d pc %#llx", k, (unsigned long long)r.pc);
		/* A return address in the range after no call, or after a call
		 * elsewhere: not a site. */
		k = sfu_port_trap(&g_ctx, A(g_code + 40), 0, &r);
		EXPECT(k == SFU_TRAP_NONE, "no call before the return address: %d", k);
		put_call(8, CALLEE_B + 0x1000);
		k = sfu_port_trap(&g_ctx, ra_a, 0, &r);
		EXPECT(k == SFU_TRAP_NONE, "a call to another function: %d", k);
		/* The first bytes of the range: the instruction would start
		 * before it, in memory the port may not read. */
		k = sfu_port_trap(&g_ctx, A(g_code) + 1, 0, &r);
		EXPECT(k == SFU_TRAP_NONE, "a call straddling the range's start: %d", k);
		g_ctx.traps = g_layouts;
		g_ctx.ntraps = 2;
	}
	end("ctx " ARCH " callees: calls in one unlabelled range told apart by their target, each with its frame");
}

UT_CASE(test_sp_sources)
{
	sfu_regs r;
	uint64_t ra, *f = &mem.a[32];
	int k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	g_layouts[0].sp.add = 0x20;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(f) + 0x140, "frame end + 0x20: %#llx", (unsigned long long)r.sp);
	g_layouts[0].sp.from = SFU_TRAP_SP_VAR;
	g_layouts[0].sp.var = (const void *)&g_sp_var;
	g_sp_var = 0xabcdef0;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0xabcdef0, "SP from a variable: %#llx", (unsigned long long)r.sp);
#if SFU__PORT_HAS_LIVE_SP
	g_layouts[0].sp.from = SFU_TRAP_SP_LIVE;
	g_live_sp = 0x5550;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0x5550, "SP live: %#llx", (unsigned long long)r.sp);
#endif
	/* The SP at the call (the callback's sp), plus add; a frame handed
	 * over without it has an SP that cannot be known. */
	g_layouts[0].sp.from = SFU_TRAP_SP_CALL;
	g_layouts[0].sp.add = 0x10;
	memset(&r, 0, sizeof r);
	k = sfu_port_trap(&g_ctx, ra, 0x7770, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0x7780 && r.pc == 0x111000, "SP at the call + 0x10: %d, %#llx", k,
	       (unsigned long long)r.sp);
	memset(&r, 0, sizeof r);
	k = sfu_port_trap_regs(&g_layouts[0], A(f), &r);
	EXPECT(k == SFU_TRAP_UNREADABLE && r.pc == 0, "SP at the call, no call: %d", k);
	k = sfu_port_trap_regs_sp(&g_layouts[0], A(f), 0x8880, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0x8890 && r.pc == 0x111000, "SP at the call given: %d, %#llx", k,
	       (unsigned long long)r.sp);
	g_layouts[0].sp.add = 0;
	/* The frame from a plain variable (a kernel's current_regs). */
	g_layouts[0] = variant(0);
	g_layouts[0].frame.from = SFU_TRAP_FRAME_VAR;
	g_layouts[0].frame.ref = (const void *)&g_frame_var;
	g_frame_var = A(f);
	g_tcb.sp = 0;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "frame from a variable: %d", k);
	end("ctx " ARCH " sp-sources: frame end + k, a variable, the live SP, the SP at the call + k; the frame from a "
	    "variable");
}

/* A frame its entry pushed onto the CPU's other SP (sp.on_live, FreeRTOS's
 * portSAVE_CONTEXT onto SP_EL0 for a fault in a handler): past it, a frame
 * further out whose SP is the live one gets that frame's end, not the
 * register's value; a walk that crossed none, the register's. */
UT_CASE(test_sp_on_live)
{
#if SFU__PORT_HAS_LIVE_SP
	sfu_regs r;
	uint64_t ra, ra2, *f = &mem.a[32], *irq = &mem.b[64];
	const char *why = NULL;
	int k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	ra2 = put_call(16, CALLEE_B);
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	g_layouts[0].sp.from = SFU_TRAP_SP_CALL;
	g_layouts[0].sp.on_live = 1;
	/* The interrupt the fault came in on: its frame at the call's SP,
	 * the interrupted SP the live one. */
	g_layouts[1] = variant(0);
	g_layouts[1].call.callees = (const void *const *)g_callees_b;
	g_layouts[1].frame.from = SFU_TRAP_FRAME_SP;
	g_layouts[1].frame.ref = NULL;
	g_layouts[1].sp.from = SFU_TRAP_SP_LIVE;
	EXPECT(sfu_layout_check(&g_layouts[0], &why) == SFU_OK && sfu_layout_check(&g_layouts[1], &why) == SFU_OK,
	       "the layouts: %s", why ? why : "(no rule)");
	fill(irq, 0, 0x222000, KERNEL_MODE, 0xe0e0);
	g_live_sp = A(f); /* the push left SP_EL0 at the frame */
	k = sfu_port_trap(&g_ctx, ra2, A(irq), &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(f), "no frame crossed: the register, %#llx", (unsigned long long)r.sp);
	k = sfu_port_trap(&g_ctx, ra, A(irq) - 0x100, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(irq) - 0x100 && g_ctx.live_sp == A(f) + 0x120,
	       "the pushed frame: sp %#llx, live %#llx", (unsigned long long)r.sp, (unsigned long long)g_ctx.live_sp);
	k = sfu_port_trap(&g_ctx, ra2, A(irq), &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x222000 && r.sp == A(f) + 0x120,
	       "past it: the frame's end, %#llx", (unsigned long long)r.sp);
	end("ctx " ARCH " sp-on-live: past a frame pushed on the other SP, the live SP is its end");
#endif
}

/* The variant chosen by a word outside the frame: the FP flag in the
 * thread's control block (the running one's through the current pointer;
 * in a thread's walk its own), a nesting counter in a variable ("the frame
 * at the SP when nested, through the TCB otherwise"); the frame through
 * the thread's TCB. */
UT_CASE(test_select_sources)
{
	struct sfu_trap_layout two[2];
	sfu_regs r;
	uint64_t ra, *f = &mem.a[32], *g = &mem.a[140];
	int k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	two[0] = variant(1);
	two[1] = variant(0);
	two[0].select.from = two[1].select.from = SFU_SELECT_TCB;
	two[0].select.ref = two[1].select.ref = (const void *)&g_current;
	two[0].select.at = two[1].select.at = SFU_AT(offsetof(struct tcb, fp_enable));
	two[0].select.size = two[1].select.size = 4;
	EXPECT(sfu_layout_check(&two[0], NULL) == SFU_OK && sfu_layout_check(&two[1], NULL) == SFU_OK,
	       "the TCB-selected variants check out");
	g_ctx.traps = two;
	g_ctx.ntraps = 2;
	/* The frame's own first word says nothing (0): the TCB's flag does. */
	fill(f, 1, 0x222000, KERNEL_MODE, 0xe0e0);
	f[F_FLAG / 8] = 0;
	g_tcb.sp = A(f);
	g_tcb.fp_enable = 1;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x222000 && r.sp == A(f) + 0x320, "flag 1 in the current TCB: %d pc %#llx",
	       k, (unsigned long long)r.pc);
	g_tcb.fp_enable = 0;
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(f) + 0x120, "flag 0: the short variant: %d sp %#llx", k,
	       (unsigned long long)r.sp);
	/* A thread's walk: its own TCB's flag, not the running one's. */
	fill(f, 1, 0x222000, KERNEL_MODE, 0xe0e0);
	f[F_FLAG / 8] = 0;
	g_other_tcb.fp_enable = 1;
	g_ctx.tcb = A(&g_other_tcb);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(f) + 0x320, "the walk's own TCB: %d sp %#llx", k, (unsigned long long)r.sp);
	/* Its TCB unreadable: no variant can be chosen. */
	g_ctx.tcb = 0x10;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "an unreadable TCB: %d", k);
	g_ctx.tcb = 0;
	end("ctx " ARCH " select-tcb: the variant by a 4-byte flag of the thread's control block");

	begin();
	/* Nested: the frame at the SP; first level: through the TCB. */
	two[0] = variant(0);
	two[0].select.from = SFU_SELECT_VAR;
	two[0].select.ref = (const void *)&g_nesting;
	two[0].select.at = SFU_AT(0);
	two[0].select.mask = ~(uint64_t)0;
	two[0].select.value = 1;
	two[1] = variant(0);
	two[1].frame.from = SFU_TRAP_FRAME_SP;
	two[1].select.mask = 0;
	EXPECT(sfu_layout_check(&two[0], NULL) == SFU_OK && sfu_layout_check(&two[1], NULL) == SFU_OK,
	       "the nesting variants check out");
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	fill(g, 0, 0x444000, KERNEL_MODE, 0xd0d0);
	g_tcb.sp = A(f);
	g_nesting = 1;
	k = sfu_port_trap(&g_ctx, ra, A(g), &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "first level: through the TCB: %d pc %#llx", k,
	       (unsigned long long)r.pc);
	g_nesting = 2;
	k = sfu_port_trap(&g_ctx, ra, A(g), &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x444000 && r.sp == A(g) + 0x120, "nested: at the SP: %d pc %#llx", k,
	       (unsigned long long)r.pc);
	end("ctx " ARCH " select-var: the frame at the SP when nested, through the TCB otherwise (two layouts)");

	begin();
	/* The frame through the thread's TCB: the current one's, or in a
	 * thread's walk its own. */
	two[0] = variant(0);
	two[0].frame.from = SFU_TRAP_FRAME_TCB;
	g_ctx.traps = two;
	g_ctx.ntraps = 1;
	g_tcb.sp = A(f);
	g_other_tcb.sp = A(g);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "the current TCB's frame: %d pc %#llx", k, (unsigned long long)r.pc);
	g_ctx.tcb = A(&g_other_tcb);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x444000, "the walk's own TCB's frame: %d pc %#llx", k,
	       (unsigned long long)r.pc);
	g_ctx.tcb = 0;
	g_ctx.traps = g_layouts;
	g_ctx.ntraps = 2;
	end("ctx " ARCH " frame-tcb: the frame through the walk's thread's control block");
}

/* The port's decoder of an indirect call, the instruction a call through
 * a null function pointer ends with: each form it knows, and instructions
 * that are none, as the bytes before a return address. */
struct icall_case {
	const char *what;
	uint8_t n, b[8];
	bool call;
};
static const struct icall_case icall_cases[] = {
#if defined(__aarch64__)
	{ "BLR x1", 4, { 0x20, 0x00, 0x3f, 0xd6 }, true },
	{ "BLR x30", 4, { 0xc0, 0x03, 0x3f, 0xd6 }, true },
	{ "BLRAAZ x2", 4, { 0x5f, 0x08, 0x3f, 0xd6 }, true },
	{ "BLRAB x3, x4", 4, { 0x64, 0x0c, 0x3f, 0xd7 }, true },
	{ "BL (direct)", 4, { 0x10, 0x00, 0x00, 0x94 }, false },
	{ "BR x1 (no call)", 4, { 0x20, 0x00, 0x1f, 0xd6 }, false },
	{ "RET", 4, { 0xc0, 0x03, 0x5f, 0xd6 }, false },
	{ "3 bytes", 3, { 0x00, 0x3f, 0xd6 }, false },
#else
	{ "call *%rax", 2, { 0xff, 0xd0 }, true },
	{ "call *%r11", 3, { 0x41, 0xff, 0xd3 }, true },
	{ "call *(%rax)", 2, { 0xff, 0x10 }, true },
	{ "call *8(%rax)", 3, { 0xff, 0x50, 0x08 }, true },
	{ "call *(%rsp)", 3, { 0xff, 0x14, 0x24 }, true },
	{ "call *8(%rsp)", 4, { 0xff, 0x54, 0x24, 0x08 }, true },
	{ "call *0x100(%rbx)", 6, { 0xff, 0x93, 0x00, 0x01, 0x00, 0x00 }, true },
	{ "call *disp32(%rip)", 6, { 0xff, 0x15, 0x10, 0x00, 0x00, 0x00 }, true },
	{ "call *disp32(,%rax,8)", 7, { 0xff, 0x14, 0xc5, 0x00, 0x10, 0x00, 0x00 }, true },
	{ "call rel32 (direct)", 5, { 0xe8, 0x00, 0x00, 0x00, 0x00 }, false },
	{ "jmp *%rax (no call)", 2, { 0xff, 0xe0 }, false },
	{ "push %rax; nop", 2, { 0x50, 0x90 }, false },
	{ "inc %eax (FF /0)", 2, { 0xff, 0xc0 }, false },
#endif
};

UT_CASE(test_indirect_call_decode)
{
	char name[160];
	size_t i;

	for (i = 0; i < sizeof icall_cases / sizeof icall_cases[0]; i++) {
		const struct icall_case *c = &icall_cases[i];
		begin();
		EXPECT(sfu__port_indirect_call(c->b, c->n) == c->call, "%s: %s", c->what,
		       c->call ? "not seen as an indirect call" : "seen as an indirect call");
		snprintf(name, sizeof name, "ctx " ARCH " indirect-call: %s is %s", c->what,
		         c->call ? "an indirect call" : "none");
		end(name);
	}
}

/* A trap frame saying the interrupted PC was 0: a call through a null
 * function pointer (the return address it left follows an indirect call:
 * aarch64 the frame's link register, x86_64 the word at the interrupted
 * SP) is kernel code, walked on from its caller; a PC of 0 with anything
 * else there is a misread (SFU_TRAP_PC_ZERO; the walk: SFU_E_ZERO_RA). */
/* The return address a call through a null pointer would leave with a
 * 0x120-byte frame at f: aarch64 the frame's link register, x86_64 the
 * word at the interrupted SP (the frame's end). */
static void set_ra(uint64_t *f, uint64_t ra)
{
#if SFU_PORT_DWARF_RA >= 0
	f[(F_REGS(0) + 8 * SFU_PORT_DWARF_RA) / 8] = ra;
#else
	f[F_SIZE(0) / 8] = ra;
#endif
}

UT_CASE(test_pc_zero)
{
	uint64_t ra, icall_ra, *f = &mem.a[32];
	sfu_regs r;
	int k;

	begin();
	setup();
	ra = put_call(8, CALLEE_A); /* the vector code's call */
#if defined(__aarch64__)
	{
		static const uint8_t blr[4] = { 0x20, 0x00, 0x3f, 0xd6 }; /* BLR x1 */
		memcpy(g_code + 32, blr, 4);
		icall_ra = A(g_code + 36);
	}
#else
	g_code[32] = 0xff; /* call *%rax */
	g_code[33] = 0xd0;
	icall_ra = A(g_code + 34);
#endif
	fill(f, 0, 0, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	set_ra(f, icall_ra);
	memset(&r, 0, sizeof r);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0, "a return address after an indirect call: %d pc %#llx", k,
	       (unsigned long long)r.pc);
	/* The return address after the direct call (the vector code's): no
	 * null pointer was called. */
	set_ra(f, ra);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_PC_ZERO, "a return address after a direct call: %d", k);
	/* A return address that cannot be read (outside the RAM and the
	 * code range), and one of 0. */
	set_ra(f, 0x10);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_PC_ZERO, "a return address at 0x10, unreadable code: %d", k);
	set_ra(f, 0);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_PC_ZERO, "PC 0 and return address 0: %d", k);
	end("ctx " ARCH " pc-zero: a trap frame's PC 0 is a null call only after an indirect call, else SFU_TRAP_PC_ZERO");
}

/* A frame never written (every word 0, a kernel thread's pt_regs) is no
 * context: SFU_TRAP_EMPTY, even where its mode word would read as user
 * mode; a frame with PC 0 and anything else saved is a null call. */
UT_CASE(test_empty_frame)
{
	sfu_regs r;
	uint64_t *f = &mem.a[32];
	int k;
	begin();
	setup();
	memset(f, 0, 0x120);
	k = sfu_port_trap_regs(&g_layouts[0], A(f), &r);
	EXPECT(k == SFU_TRAP_EMPTY && r.sp == A(f) + 0x120, "zeroed: %d, its end %#llx", k, (unsigned long long)r.sp);
	fill(f, 0, 0, KERNEL_MODE, 0x1234);
	k = sfu_port_trap_regs(&g_layouts[0], A(f), &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0, "PC 0, the rest saved: %d", k);
	memset(f, 0, 0x120);
	f[F_GP(0) / 8 + 5] = 1;
	k = sfu_port_trap_regs(&g_layouts[0], A(f), &r);
	EXPECT(k == (USER_MODE == 0 ? SFU_TRAP_USER : SFU_TRAP_KERNEL), "one word set: %d", k);
	end("ctx " ARCH " empty-frame: a zeroed trap frame is SFU_TRAP_EMPTY, not user mode");
}

/* A call site told by its callee alone, without a code range: the
 * instruction is read through the checked read. */
UT_CASE(test_callees_only)
{
	struct sfu_trap_layout l;
	sfu_regs r;
	uint64_t ra, *f = &mem.a[32];
	const char *why = NULL;
	int k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	l = variant(0);
	l.call.start = l.call.end = NULL;
	l.select.mask = 0;
	EXPECT(sfu_layout_check(&l, &why) == SFU_OK, "callees alone: %s", why ? why : "(no rule)");
	g_ctx.traps = &l;
	g_ctx.ntraps = 1;
	fill(f, 0, 0x111000, KERNEL_MODE, 0xf0f0);
	g_tcb.sp = A(f);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_NONE, "the code outside the RAM: not read, no site: %d", k);
	g_ram[3].start = A(g_code);
	g_ram[3].end = A(g_code + sizeof g_code);
	g_ctx.nram = 4;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "the code in the RAM: %d pc %#llx", k, (unsigned long long)r.pc);
	k = sfu_port_trap(&g_ctx, A(g_code + 40), 0, &r);
	EXPECT(k == SFU_TRAP_NONE, "no call before it: %d", k);
	g_ctx.nram = 3;
	g_ctx.traps = g_layouts;
	g_ctx.ntraps = 2;
	end("ctx " ARCH " callees-only: a site found by its callee alone, the instruction through the checked read");
}

/* A saved context outside the thread's stacks (in the thread struct, on
 * a heap): read through the base context's memory, every word checked;
 * outside that too, refused.  A zeroed one: never saved. */
UT_CASE(test_context_outside)
{
	struct sfu_switch_layout sl = {
		.size = 0x70, .align = 16, .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(0x68) },
		.regs = { .pc = SFU_AT(0x58), .reg = { [SFU_PORT_DWARF_FP] = SFU_AT(0x50) } } };
	static uint64_t outside[14] __attribute__((aligned(16)));
	struct sfu_port_thread t;
	sfu_stack st = { A(mem.b), A(mem.b + 256) };
	uint64_t *c = &mem.a[16];
	sfu_regs r;
	int err;
	begin();
	setup();
	EXPECT(sfu_port_thread_init(&t, &g_ctx, &st, 1) == SFU_OK, "thread port");
	memset(c, 0, 0x70);
	c[0x58 / 8] = 0x555000;
	c[0x50 / 8] = 0x5050;
	c[0x68 / 8] = A(mem.b + 200);
	err = sfu_port_switch_regs(&t.ctx, &sl, A(c), &r);
	EXPECT(err == SFU_OK && r.pc == 0x555000 && r.sp == A(mem.b + 200) && r.fp == 0x5050,
	       "in the base's RAM: %s pc %#llx", E(err), (unsigned long long)r.pc);
	memcpy(outside, c, 0x70);
	err = sfu_port_switch_regs(&t.ctx, &sl, A(outside), &r);
	EXPECT(err == SFU_E_READ, "in no RAM: %s", E(err));
	err = sfu_port_switch_regs(&t.ctx, &sl, A(&mem + 1) - 0x40, &r);
	EXPECT(err == SFU_E_READ, "running past the RAM's end: %s", E(err));
	memset(c, 0, 0x70);
	err = sfu_port_switch_regs(&t.ctx, &sl, A(c), &r);
	EXPECT(err == SFU_END_NEVER_RAN, "zeroed: %s", E(err));
	/* Beside a stack of the thread (a stack's top read as the context's
	 * address, where a guard page would be): refused, never read; past
	 * the gap, read. */
	{
		struct sfu_port_thread t2;
		sfu_stack st2 = { A(mem.b), A(mem.b + 128) };

		EXPECT(sfu_port_thread_init(&t2, &g_ctx, &st2, 1) == SFU_OK, "thread port 2");
		memcpy(mem.b + 128, outside, 0x70);
		err = sfu_port_switch_regs(&t2.ctx, &sl, A(mem.b + 128), &r);
		EXPECT(err == SFU_E_READ, "at the stack's top, inside the guard gap: %s", E(err));
		memcpy(mem.b + 160, outside, 0x70);
		err = sfu_port_switch_regs(&t2.ctx, &sl, A(mem.b + 160), &r);
		EXPECT(err == SFU_OK && r.pc == 0x555000, "past the gap: %s", E(err));
	}
	end("ctx " ARCH " context-outside: a context off the thread's stacks read in the base's memory, checked, never "
	    "within SFU_PORT_GUARD_GAP of the thread's stacks");
}

/* A thread's saved context that is a trap frame, or a switch context with
 * its mode; a per-thread port keeping a custom trap callback and reading
 * the TCB in the base's RAM. */
static int my_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	return sfu_port_trap(ctx, pc, sp, out);
}

UT_CASE(test_threads)
{
	struct sfu_switch_layout sl = { .traps = g_layouts, .ntraps = 2 };
	struct sfu_port_thread t;
	sfu_stack st = { A(mem.b), A(mem.b + 256) };
	sfu_regs r;
	uint64_t ra, *f = &mem.b[64];
	const char *why = NULL;
	int err, k;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	g_ctx.nram = 1; /* the base's RAM: the TCB only */
	g_ram[0].start = A(&g_tcb);
	g_ram[0].end = A(&g_tcb + 1);
	g_ctx.trap = my_trap;
	EXPECT(sfu_port_thread_init(&t, &g_ctx, &st, 1) == SFU_OK && t.port.trap == my_trap && t.ctx.kernel == &g_ctx,
	       "custom trap callback kept");
	g_ctx.trap = NULL;
	sfu_port_thread_init(&t, &g_ctx, &st, 1);
	EXPECT(t.port.trap == sfu_port_trap, "default trap callback");
	g_ctx.trap = my_trap;
	sfu_port_thread_init(&t, &g_ctx, &st, 1);
	/* The frame on the thread's stack, found through the TCB, which only
	 * the base's RAM holds. */
	fill(f, 1, 0x444000, KERNEL_MODE, 0xc0c0);
	g_tcb.sp = A(f);
	k = t.port.trap(t.port.ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x444000, "through the thread's port: %d", k);
	g_ram[0].end = g_ram[0].start; /* the TCB no longer readable */
	k = t.port.trap(t.port.ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "TCB outside the base's RAM: %d", k);
	g_ram[0].end = A(&g_tcb + 1);
	end("ctx " ARCH " thread-port: a custom trap callback kept, the TCB read in the base's RAM only");

	begin();
	/* Saved contexts that are trap frames: one never run (its creator
	 * built it: PC the entry, FP 0), one switched out in user mode. */
	err = sfu_switch_check(&sl, &why);
	EXPECT(err == SFU_OK && why == NULL, "trap-frame switch layout: %s, %s", E(err), why ? why : "(no rule)");
	fill(f, 0, 0x555000, KERNEL_MODE, 0);
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_OK && r.pc == 0x555000 && r.sp == A(f) + 0x120, "never ran: %s", E(err));
	fill(f, 1, 0x666000, USER_MODE, 0);
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_END_USER && r.pc == 0x666000 && r.sp == A(f) + 0x320, "user mode: %s", E(err));
	f[0] = 2;
	g_layouts[0].select.mask = g_layouts[1].select.mask = 3;
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_E_READ, "no variant fits: %s", E(err));
	g_layouts[0].select.mask = g_layouts[1].select.mask = 1;
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(&mem.a[10]), &r);
	EXPECT(err == SFU_E_READ, "another stack: %s", E(err));
	g_layouts[0].sp.from = SFU_TRAP_SP_LIVE;
	err = sfu_switch_check(&sl, &why);
	EXPECT(err == SFU_E_DESC && why != NULL && (!SFU__PORT_HAS_LIVE_SP || strstr(why, "sp.from: SFU_TRAP_SP_LIVE")),
	       "live SP in a saved context: %s, %s", E(err), why ? why : "(no rule)");
	g_layouts[0].sp.from = SFU_TRAP_SP_END;
	g_layouts[1].frame.size = 0x321;
	err = sfu_switch_check(&sl, &why);
	EXPECT(err == SFU_E_DESC && why != NULL, "bad trap layout: %s", E(err));
	g_layouts[1].frame.size = 0x320;
	end("ctx " ARCH " thread-trapframe: saved contexts that are trap frames, by variant, user mode ends SFU_END_USER");

	begin();
	{
		/* A called switch's context with its mode word. */
		/* Only the frame pointer saved: every other register, the link
		 * register too, left out of the initializer. */
		struct sfu_switch_layout m = {
			.size = 0x80, .align = 16, .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(0x48) },
			.regs = { .pc = SFU_AT(0x40), .mode = SFU_AT(0x50), .reg = { [SFU_PORT_DWARF_FP] = SFU_AT(0x58) } },
		};
		uint64_t *c = &mem.b[16];
		unsigned i;
		memset(c, 0, 0x80);
		for (i = 0; i < SFU_PORT_NREGS; i++)
			EXPECT(i == SFU_PORT_DWARF_FP || m.regs.reg[i] == SFU_TRAP_NOT_SAVED, "register %u saved", i);
		c[0x40 / 8] = 0x777000;
		c[0x48 / 8] = A(&mem.b[100]);
		c[0x50 / 8] = USER_MODE;
		err = sfu_port_switch_regs(t.port.ctx, &m, A(c), &r);
		EXPECT(err == SFU_END_USER && r.pc == 0x777000, "user: %s", E(err));
		c[0x50 / 8] = KERNEL_MODE;
		c[0x58 / 8] = 0x5858;
		err = sfu_port_switch_regs(t.port.ctx, &m, A(c), &r);
		EXPECT(err == SFU_OK && r.sp == A(&mem.b[100]) && r.fp == 0x5858, "kernel: %s", E(err));
#if SFU_PORT_DWARF_RA >= 0
		/* The link register not saved: right after the switch's ret
		 * it is the resume PC. */
		EXPECT(r.ra == 0x777000, "LR not saved: %#llx, not the resume PC", (unsigned long long)r.ra);
#endif
		m.regs.mode = SFU_AT(0x80);
		err = sfu_switch_check(&m, &why);
		EXPECT(ut_refused(err, why, "regs.mode:"), "mode past the context: %s, %s", E(err), why ? why : "(no rule)");
		m.regs.mode = 0x50; /* bare */
		err = sfu_switch_check(&m, &why);
		EXPECT(ut_refused(err, why, "regs.mode:"), "mode a bare offset: %s, %s", E(err), why ? why : "(no rule)");
		m.regs.mode = SFU_TRAP_NOT_SAVED;
		err = sfu_switch_check(&m, &why);
		EXPECT(err == SFU_OK, "mode not saved: %s, %s", E(err), why ? why : "(no rule)");
		c[0x50 / 8] = USER_MODE;
		err = sfu_port_switch_regs(t.port.ctx, &m, A(c), &r);
		EXPECT(err == SFU_OK, "mode not saved, a user-mode word in its place: %s", E(err));
	}
	end("ctx " ARCH " switch-mode: a context switched out in user mode says SFU_END_USER");
}

/* A switch layout whose saved context is a trap frame checks its trap
 * layouts with it, and the rule one of them breaks names the switch
 * layout's field, "traps[]..." (sfu_switch_check's contract): a switch
 * layout has no frame.size or regs.pc of its own there, and in a dump's
 * refusal ("threads...: ") a trap layout's bare field name would point at
 * nothing. */
UT_CASE(test_switch_trap_rules)
{
	static const char *const what[] = { "frame.size not a multiple of 8", "pc a bare offset", "an SP only live",
		                                    "an SP at a call" };
	struct sfu_switch_layout sl = { .traps = g_layouts, .ntraps = 2 };
	const char *why;
	char name[200];
	size_t i;
	int err;

	for (i = 0; i < sizeof what / sizeof what[0]; i++) {
		begin();
		setup();
		if (i == 0)
			g_layouts[1].frame.size = 0x321;
		else if (i == 1)
			g_layouts[1].regs.pc = F_PC(1);
		else if (i == 2)
			g_layouts[1].sp.from = SFU_TRAP_SP_LIVE;
		else
			g_layouts[1].sp.from = SFU_TRAP_SP_CALL;
		why = NULL;
		err = sfu_switch_check(&sl, &why);
		EXPECT(ut_refused(err, why, "traps[]"), "%s: %s, rule \"%s\", not \"traps[]...\"", what[i], E(err),
		       why ? why : "(none)");
		snprintf(name, sizeof name, "ctx " ARCH " switch-check traps: a trap layout's %s is refused, naming traps[]",
		         what[i]);
		end(name);
	}
}

/* Walks through the core: one function at 0x100000 (0x40 bytes), its
 * CFA SP + 16, the return address at CFA - 8, the frame pointer at CFA -
 * 16; a call from it into the entry code (the site), whose frame the TCB
 * points at; the interrupted PC in the function again, and its return
 * address 0 (outermost). */
static uint8_t g_sec[4096];
static sfu_section section(void)
{
	static sfb_sec s;
#if defined(__aarch64__)
	static const int32_t w[] = { 16, -8, -16 };
	const unsigned nw = 3;
#else
	static const int32_t w[] = { 16, -16 };
	const unsigned nw = 2;
#endif
	sfu_section sec;
	size_t n;
	sfb_init(&s, 3, ABI);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, nw, w);
	n = sfb_emit(&s, g_sec, sizeof g_sec);
	sfu_section_init(&sec, g_sec, n, s.addr);
	return sec;
}

static int unreadable_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	(void)ctx, (void)pc, (void)sp, (void)out;
	return SFU_TRAP_UNREADABLE;
}

UT_CASE(test_walk)
{
	sfu_section sec = section();
	sfu_port port = { .read = sfu_port_read, .strip_ra = SFU_PORT_STRIP_RA, .trap = sfu_port_trap, .ctx = &g_ctx };
	sfu_regs r = { 0 };
	sfu_frame fr[8];
	uint64_t ra, *f = &mem.a[64], *s0 = &mem.b[32];
	sfu_stack task;
	size_t n = 0;
	int err;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	/* The handler's stack, and the task's, whose top is the interrupted
	 * frame's CFA: its return address of 0 is where the task started. */
	port.stack_lo = A(mem.b);
	port.stack_hi = A(mem.b + 256);
	task.lo = A(mem.a);
	task.hi = A(f) + 0x130;
	port.stacks = &task;
	port.nstacks = 1;
	/* The handler's frame: RA into the entry code. */
	s0[0] = 0x1111;
	s0[1] = ra;
	r.pc = 0x100010;
	r.sp = A(s0) - 0;
	/* The interrupted frame: its SP the trap frame's end; there, the
	 * outermost frame record. */
	fill(f, 0, 0x100020, KERNEL_MODE, 0x2222);
	f[0x120 / 8] = 0;
	f[0x120 / 8 + 1] = 0;
	g_tcb.sp = A(f);
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &n);
	EXPECT(err == SFU_END && n == 3 && fr[1].pc == ra && fr[2].pc == 0x100020 && fr[2].how == SFU_HOW_TRAP &&
	       fr[2].sp == A(f) + 0x120, "walk: %s, %zu frames", E(err), n);
	end("ctx " ARCH " walk: through a TCB-found frame into the interrupted code, to the outermost frame");

	begin();
	g_tcb.sp = A(f) + 8; /* corrupt saved-context pointer */
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &n);
	EXPECT(err == SFU_E_READ && n == 2, "corrupt TCB: %s, %zu frames", E(err), n);
	port.trap = unreadable_trap;
	g_tcb.sp = A(f);
	err = sfu_backtrace(&sec, 1, &port, &r, fr, 8, &n);
	EXPECT(err == SFU_E_READ && n == 2, "SFU_TRAP_UNREADABLE: %s, %zu frames", E(err), n);
	end("ctx " ARCH " walk-unreadable: a recognised site with an unreadable frame ends SFU_E_READ, not \"no info\"");
}

int main(void) { return ut_main("ctx " ARCH); }
