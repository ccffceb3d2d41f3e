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
	{ F_REGS(fp) + 0x00, F_REGS(fp) + 0x08, F_REGS(fp) + 0x10, F_REGS(fp) + 0x18, F_REGS(fp) + 0x20,     \
	  F_REGS(fp) + 0x28, F_REGS(fp) + 0x30, SFU_TRAP_NOT_SAVED, F_REGS(fp) + 0x40, F_REGS(fp) + 0x48,    \
	  F_REGS(fp) + 0x50, F_REGS(fp) + 0x58, F_REGS(fp) + 0x60, F_REGS(fp) + 0x68, F_REGS(fp) + 0x70,     \
	  F_REGS(fp) + 0x78, SFU_TRAP_NOT_SAVED }
#endif

/* A task control block whose second word is the saved-context pointer,
 * and the kernel's pointer to the current one. */
struct tcb {
	uint64_t id;
	uint64_t sp;
};
static struct tcb g_tcb;
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
		.code_start = g_code, .code_end = g_code + sizeof g_code,
		.callees = (const void *const *)g_callees_a, .ncallees = 1,
		.frame_from = SFU_TRAP_FRAME_PTR, .frame_ref = (const void *)&g_current,
		.frame_ref_off = offsetof(struct tcb, sp),
		.frame_size = (uint16_t)F_SIZE(fp), .frame_align = 16,
		.pc = (int16_t)F_PC(fp), .sp = SFU_TRAP_NOT_SAVED, .sp_from = SFU_TRAP_SP_END,
		.mode = (int16_t)F_MODE(fp),
		.select = F_FLAG, .select_mask = 1, .select_value = (uint64_t)fp,
		.reg = FRAME_REGS(fp),
	};
	return l;
}

static struct sfu_trap_layout g_layouts[2];
static struct sfu_port_range g_ram[2];
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
	g_ctx.ram = g_ram;
	g_ctx.nram = 2;
	g_ctx.traps = g_layouts;
	g_ctx.ntraps = 2;
	g_ctx.kernel = NULL;
	g_ctx.trap = NULL;
	g_tcb.sp = 0;
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

UT_CASE(test_layout_rules)
{
	struct sfu_trap_layout l;
	begin();
	setup();
	EXPECT(sfu_port_layout_check(&g_layouts[0]) == 0 && sfu_port_layout_check(&g_layouts[1]) == 0,
	       "the variants: %d %d", sfu_port_layout_check(&g_layouts[0]), sfu_port_layout_check(&g_layouts[1]));
	l = g_layouts[0];
	l.select = 0x120;
	EXPECT(sfu_port_layout_check(&l) == 3, "select word past the frame: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.sp_add = 4;
	EXPECT(sfu_port_layout_check(&l) == 7, "sp_add not word-aligned: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.sp_from = SFU_TRAP_SP_VAR;
	EXPECT(sfu_port_layout_check(&l) == 7, "SP in no variable: %d", sfu_port_layout_check(&l));
	l.sp_var = (const void *)&g_sp_var;
	EXPECT(sfu_port_layout_check(&l) == 0, "SP in a variable: %d", sfu_port_layout_check(&l));
	l.sp_from = 9;
	EXPECT(sfu_port_layout_check(&l) == 7, "unknown sp_from: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.sp_from = SFU_TRAP_SP_LIVE;
	EXPECT(sfu_port_layout_check(&l) == (SFU__PORT_HAS_LIVE_SP ? 0 : 7), "live SP (" ARCH "): %d",
	       sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.frame_ref = NULL;
	EXPECT(sfu_port_layout_check(&l) == 8, "frame in no variable: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.frame_ref_off = 4;
	EXPECT(sfu_port_layout_check(&l) == 8, "TCB field not word-aligned: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.frame_from = 3;
	EXPECT(sfu_port_layout_check(&l) == 8, "unknown frame_from: %d", sfu_port_layout_check(&l));
	l = g_layouts[0];
	l.code_start = l.code_end = NULL;
	EXPECT(sfu_port_layout_check(&l) == 2, "callees without code range or sites: %d", sfu_port_layout_check(&l));
	end("ctx " ARCH " layout-check: the new rules can fail");
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
	       r.dwarf_map == g_layouts[0].reg, "no FP: %d pc %#llx sp %#llx", k, (unsigned long long)r.pc,
	       (unsigned long long)r.sp);
#if SFU_PORT_DWARF_RA >= 0
	EXPECT(r.ra == 0x7777, "link register %#llx", (unsigned long long)r.ra);
#endif
	/* With it: 0x320 bytes, the registers 0x200 further. */
	memset(&mem, 0, sizeof mem);
	fill(f, 1, 0x222000, USER_MODE, 0xe0e0);
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_USER && r.pc == 0x222000 && r.sp == A(f) + 0x320 && r.fp == 0xe0e0 &&
	       r.dwarf_map == g_layouts[1].reg, "FP: %d pc %#llx sp %#llx", k, (unsigned long long)r.pc,
	       (unsigned long long)r.sp);
	end("ctx " ARCH " tcb-variants: the frame through the current TCB, its size by the flag word, SP its end");

	begin();
	/* A flag no variant describes, a frame outside the RAM, a NULL or
	 * wild current TCB: the call site is recognised, the frame is not
	 * readable. */
	f[F_FLAG / 8] = 2;
	g_layouts[0].select_mask = g_layouts[1].select_mask = 3;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_UNREADABLE, "no variant: %d", k);
	g_layouts[0].select_mask = g_layouts[1].select_mask = 1;
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
	sp_layout.callees = (const void *const *)g_callees_b;
	sp_layout.frame_from = SFU_TRAP_FRAME_SP;
	sp_layout.frame_off = 0x40;
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
	g_layouts[0].sp_add = 0x20;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == A(f) + 0x140, "frame end + 0x20: %#llx", (unsigned long long)r.sp);
	g_layouts[0].sp_from = SFU_TRAP_SP_VAR;
	g_layouts[0].sp_var = (const void *)&g_sp_var;
	g_sp_var = 0xabcdef0;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0xabcdef0, "SP from a variable: %#llx", (unsigned long long)r.sp);
#if SFU__PORT_HAS_LIVE_SP
	g_layouts[0].sp_from = SFU_TRAP_SP_LIVE;
	g_live_sp = 0x5550;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.sp == 0x5550, "SP live: %#llx", (unsigned long long)r.sp);
#endif
	/* The frame from a plain variable (a kernel's current_regs). */
	g_layouts[0] = variant(0);
	g_layouts[0].frame_from = SFU_TRAP_FRAME_VAR;
	g_layouts[0].frame_ref = (const void *)&g_frame_var;
	g_frame_var = A(f);
	g_tcb.sp = 0;
	k = sfu_port_trap(&g_ctx, ra, 0, &r);
	EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x111000, "frame from a variable: %d", k);
	end("ctx " ARCH " sp-sources: frame end + k, a variable, the live SP; the frame from a variable");
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
	EXPECT(sfu_port_switch_check(&sl) == 0, "trap-frame switch layout: %d", sfu_port_switch_check(&sl));
	fill(f, 0, 0x555000, KERNEL_MODE, 0);
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_OK && r.pc == 0x555000 && r.sp == A(f) + 0x120, "never ran: %s", E(err));
	fill(f, 1, 0x666000, USER_MODE, 0);
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_END_USER && r.pc == 0x666000 && r.sp == A(f) + 0x320, "user mode: %s", E(err));
	f[0] = 2;
	g_layouts[0].select_mask = g_layouts[1].select_mask = 3;
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(f), &r);
	EXPECT(err == SFU_E_READ, "no variant fits: %s", E(err));
	g_layouts[0].select_mask = g_layouts[1].select_mask = 1;
	err = sfu_port_switch_regs(t.port.ctx, &sl, A(&mem.a[10]), &r);
	EXPECT(err == SFU_E_READ, "another stack: %s", E(err));
	g_layouts[0].sp_from = SFU_TRAP_SP_LIVE;
	EXPECT(sfu_port_switch_check(&sl) == 17, "live SP in a saved context: %d", sfu_port_switch_check(&sl));
	g_layouts[0].sp_from = SFU_TRAP_SP_END;
	g_layouts[1].frame_size = 0x321;
	EXPECT(sfu_port_switch_check(&sl) == 11, "bad trap layout: %d", sfu_port_switch_check(&sl));
	g_layouts[1].frame_size = 0x320;
	end("ctx " ARCH " thread-trapframe: saved contexts that are trap frames, by variant, user mode ends SFU_END_USER");

	begin();
	{
		/* A called switch's context with its mode word. */
		struct sfu_switch_layout m = {
			.size = 0x80, .align = 16, .pc = 0x40, .sp = 0x48, .mode_saved = true, .mode = 0x50,
			.reg = FRAME_REGS(0),
		};
		uint64_t *c = &mem.b[16];
		m.reg[SFU_PORT_DWARF_FP] = 0x58;
#if SFU_PORT_DWARF_RA >= 0
		m.reg[SFU_PORT_DWARF_RA] = SFU_TRAP_NOT_SAVED;
#endif
		{
			unsigned i;
			for (i = 0; i < SFU_PORT_NREGS; i++)
				if (i != SFU_PORT_DWARF_FP)
					m.reg[i] = SFU_TRAP_NOT_SAVED;
		}
		memset(c, 0, 0x80);
		c[0x40 / 8] = 0x777000;
		c[0x48 / 8] = A(&mem.b[100]);
		c[0x50 / 8] = USER_MODE;
		err = sfu_port_switch_regs(t.port.ctx, &m, A(c), &r);
		EXPECT(err == SFU_END_USER && r.pc == 0x777000, "user: %s", E(err));
		c[0x50 / 8] = KERNEL_MODE;
		err = sfu_port_switch_regs(t.port.ctx, &m, A(c), &r);
		EXPECT(err == SFU_OK && r.sp == A(&mem.b[100]), "kernel: %s", E(err));
		m.mode = 0x80;
		EXPECT(sfu_port_switch_check(&m) == 2, "mode past the context: %d", sfu_port_switch_check(&m));
		m.mode_saved = false;
		EXPECT(sfu_port_switch_check(&m) == 0, "mode not saved: %d", sfu_port_switch_check(&m));
	}
	end("ctx " ARCH " switch-mode: a context switched out in user mode says SFU_END_USER");
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
	sfu_port port = SFU_PORT_INIT(&g_ctx, 0, 0);
	sfu_regs r = { 0 };
	sfu_frame fr[8];
	uint64_t ra, *f = &mem.a[64], *s0 = &mem.b[32];
	size_t n = 0;
	int err;
	begin();
	setup();
	ra = put_call(8, CALLEE_A);
	port.stack_lo = A(&mem);
	port.stack_hi = A(&mem + 1);
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
