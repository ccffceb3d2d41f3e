/* SPDX-License-Identifier: MIT */
/* Unit tests of the bare-metal port's thread pieces (struct
 * sfu_switch_layout, sfu_port_thread_init) and of the crash record
 * (crash/sfu_crash.h), on the host: the x86_64 port compiled as it is
 * (its inline assembly is only in SFU_PORT_CAPTURE, unused here), reading
 * this process's own memory, with the RAM given explicitly.
 * Built by test/unit/run.sh with -I core -I port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#define SFU_PORT_LINKER_RAM 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_port_x86_64.h"
#include "sfu_layout.h"
#include "sfu_crash.h"
#include "../common/sfb.h"

#include "../common/crash_flips.h"
#include "ut.h"

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

/* The examples' x86_64 switch: push rbp rbx r12 r13 r14 r15, save RSP; so
 * at the saved RSP r15 r14 r13 r12 rbx rbp, then the return address; the
 * SP it resumes with is the context's end. */
static const struct sfu_switch_layout x86_switch = SFU_X86_64_SWITCH_PUSHED(56, 48, 32, 40, 24, 16, 8, 0);

/* Two thread stacks side by side, as a kernel's are, and a word between
 * them standing for a guard page. */
static struct {
	uint64_t a[64];
	uint64_t guard[2];
	uint64_t b[64];
} __attribute__((aligned(16))) mem;

/* One function at 0x100000 (0x40 bytes) after `push %rbp`: CFA = SP + 16,
 * RA at CFA - 8, FP at CFA - 16; and a FLEX one at 0x100100 (0x20 bytes)
 * whose CFA is r10 + 16 (gcc's DRAP), RA at CFA - 8. */
static uint8_t g_sec[4096];
static sfu_section section(void)
{
	static sfb_sec s;
	static const int32_t w[] = { 16, -16 };
	static const int32_t drap[] = { (10 << 3) | 1, 16 };
	sfu_section sec;
	sfb_fde *f;
	size_t n;
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 2, w);
	f = sfb_add_fde(&s, 0x100100, 0x20);
	f->flex = 1;
	sfb_add_fre(f, 0, 1, 1, 2, drap);
	n = sfb_emit(&s, g_sec, sizeof g_sec);
	sfu_section_init(&sec, g_sec, n, s.addr);
	return sec;
}

/* Each rule of a switch layout, broken once: SFU_E_DESC, and the rule
 * names the field. */
static const struct ut_rule switch_rules[] = {
	{ "size not a multiple of 8", "size:" },
	{ "size 0", "size:" },
	{ "align not a power of two", "align:" },
	{ "align below 8", "align:" },
	{ "pc past the end", "regs.pc:" },
	{ "pc a bare offset (48, not SFU_AT(48))", "regs.pc:" },
	{ "pc not saved", "regs.pc:" },
	{ "mode past the end", "regs.mode:" },
	{ "mode at pc's offset", "regs: pc and mode" },
	{ "a register past the end", "regs.reg[]: a register" },
	{ "a register a bare offset", "regs.reg[]: a register" },
	{ "no frame pointer", "regs.reg[" UT_XSTR(SFU_PORT_DWARF_FP) "] (the frame pointer): 0, not saved" },
	{ "saved SP not word-aligned", "sp.at:" },
	{ "saved SP not saved", "sp.at:" },
	{ "SP at the end + a non-multiple of 8", "sp.add:" },
	{ "SP in a variable", "sp.from:" },
	{ "traps missing, ntraps 1", "traps:" },
};

static void break_switch(size_t i, struct sfu_switch_layout *l)
{
	switch (i) {
	case 0: l->size = 52; break;
	case 1: l->size = 0; break;
	case 2: l->align = 12; break;
	case 3: l->align = 4; break;
	case 4: l->regs.pc = SFU_AT(56); break;
	case 5: l->regs.pc = 48; break;
	case 6: l->regs.pc = SFU_TRAP_NOT_SAVED; break;
	case 7: l->regs.mode = SFU_AT(56); break;
	case 8: l->regs.mode = l->regs.pc; break;
	case 9: l->regs.reg[3] = SFU_AT(64); break;
	case 10: l->regs.reg[3] = 32; break;
	case 11: l->regs.reg[SFU_PORT_DWARF_FP] = SFU_TRAP_NOT_SAVED; break;
	case 12: l->sp.from = SFU_TRAP_SP_SAVED; l->sp.at = SFU_AT(4); break;
	case 13: l->sp.from = SFU_TRAP_SP_SAVED; l->sp.at = SFU_TRAP_NOT_SAVED; break;
	case 14: l->sp.add = 52; break;
	case 15: l->sp.from = SFU_TRAP_SP_VAR; l->sp.var = &mem; break;
	case 16: l->ntraps = 1; break;
	}
}

UT_CASE(test_switch_check)
{
	struct sfu_switch_layout l = x86_switch;
	const char *why = "unset";
	char name[200];
	size_t i;
	int err;

	begin();
	err = sfu_switch_check(&l, &why);
	EXPECT(err == SFU_OK && why == NULL, "the examples' layout: %s, %s", E(err), why ? why : "(no rule)");
	EXPECT(l.sp.from == SFU_TRAP_SP_END && l.sp.add == 0 && l.regs.pc == SFU_AT(48) && l.regs.mode == 0 &&
	           l.regs.reg[3] == SFU_AT(32) && l.regs.reg[6] == SFU_AT(40) && l.regs.reg[15] == SFU_AT(0),
	       "SFU_X86_64_SWITCH_PUSHED: not the SFU_AT offsets it was given");
	for (i = 0; i < SFU_PORT_NREGS; i++)
		EXPECT(l.regs.reg[i] != 0 || (i != 3 && i != 6 && (i < 12 || i > 15)),
		       "register %zu saved at offset 0 by the macro", i);
	EXPECT(sfu_switch_check(NULL, &why) == SFU_E_DESC && why != NULL && strcmp(why, "no switch layout") == 0,
	       "no layout: %s", why ? why : "(no rule)");
	end("port switch-check: the examples' pushed context passes, its registers at SFU_AT offsets");

	for (i = 0; i < sizeof switch_rules / sizeof switch_rules[0]; i++) {
		begin();
		l = x86_switch;
		break_switch(i, &l);
		why = NULL;
		err = sfu_switch_check(&l, &why);
		EXPECT(ut_refused(err, why, switch_rules[i].rule), "%s: %s, rule \"%s\", not \"%s...\"",
		       switch_rules[i].what, E(err), why ? why : "(none)", switch_rules[i].rule);
		EXPECT(sfu_switch_check(&l, NULL) == SFU_E_DESC, "%s: refused only when asked why", switch_rules[i].what);
		snprintf(name, sizeof name, "port switch-check: %s is refused (SFU_E_DESC), naming %s",
		         switch_rules[i].what, switch_rules[i].rule);
		end(name);
	}
}

UT_CASE(test_thread_init)
{
	struct sfu_port_thread t;
	sfu_stack st[SFU_PORT_THREAD_STACKS + 1];
	uint64_t w = 0;
	unsigned i;
	begin();
	for (i = 0; i <= SFU_PORT_THREAD_STACKS; i++) {
		st[i].lo = A(mem.b);
		st[i].hi = A(mem.b + 64);
	}
	EXPECT(sfu_port_thread_init(&t, NULL, st, 0) == SFU_E_ARG, "no stack accepted");
	EXPECT(sfu_port_thread_init(&t, NULL, st, SFU_PORT_THREAD_STACKS + 1) == SFU_E_ARG, "too many stacks accepted");
	st[0].hi = st[0].lo;
	EXPECT(sfu_port_thread_init(&t, NULL, st, 1) == SFU_E_ARG, "an empty stack accepted");
	st[0].hi = A(mem.b + 64);
	EXPECT(sfu_port_thread_init(&t, NULL, st, 1) == SFU_OK, "one stack refused");
	EXPECT(t.port.nstacks == 1 && t.port.stacks[0].lo == A(mem.b) && t.port.stacks[0].hi == A(mem.b + 64) &&
	       t.port.stack_lo == 0 && t.port.stack_hi == 0, "bounds are the stack");
	mem.b[0] = 0x1111;
	mem.b[63] = 0x6363;
	EXPECT(t.port.read(t.port.ctx, A(&mem.b[0]), &w) == 0 && w == 0x1111, "first word of the stack refused");
	EXPECT(t.port.read(t.port.ctx, A(&mem.b[63]), &w) == 0 && w == 0x6363, "last word of the stack refused");
	EXPECT(t.port.read(t.port.ctx, A(&mem.b[64]), &w) != 0, "the word above the stack read");
	EXPECT(t.port.read(t.port.ctx, A(&mem.guard[1]), &w) != 0, "the guard below the stack read");
	EXPECT(t.port.read(t.port.ctx, A(&mem.a[10]), &w) != 0, "another thread's stack read");
	EXPECT(t.port.read(t.port.ctx, A(&mem.b[1]) + 4, &w) != 0, "an unaligned word read");
	end("port thread-init: bounds and reads are the thread's stacks, nothing else");
}

UT_CASE(test_switch_walk)
{
	struct sfu_port_thread t;
	sfu_stack st = { A(mem.b), A(mem.b + 64) };
	sfu_section sec = section();
	sfu_regs r;
	sfu_frame f[8];
	uint64_t *ctx = &mem.b[53]; /* the outermost frame's caller SP (ctx + 11) at the stack's top */
	size_t n = 0;
	int err;
	begin();
	memset(&mem, 0, sizeof mem);
	sfu_port_thread_init(&t, NULL, &st, 1);
	/* The context: r15 r14 r13 r12 rbx rbp, resume PC in the function. */
	for (n = 0; n < 6; n++)
		ctx[n] = 0xc0 + n;
	ctx[5] = 0xfeed;   /* rbp */
	ctx[6] = 0x100010; /* resume PC */
	/* At the resumed SP (ctx + 56): the function's frame, saved rbp, RA
	 * into the function again; then the outermost frame's RA of 0. */
	ctx[7] = 0x1234;
	ctx[8] = 0x100020;
	ctx[9] = 0;
	ctx[10] = 0;
	err = sfu_port_switch_regs(t.port.ctx, &x86_switch, A(ctx), &r);
	EXPECT(err == SFU_OK && r.pc == 0x100010 && r.sp == A(ctx + 7) && r.fp == 0xfeed && r.ra == 0,
	       "regs: %s pc %#llx sp %#llx fp %#llx", E(err), (unsigned long long)r.pc,
	       (unsigned long long)r.sp, (unsigned long long)r.fp);
	EXPECT(r.dwarf_map == x86_switch.regs.reg && r.dwarf_map[3] == SFU_AT(32) &&
	           r.dwarf_map[0] == SFU_TRAP_NOT_SAVED && r.dwarf == (const uint64_t *)ctx,
	       "rbx is mapped at SFU_AT(32) of the context, rax is not saved");
	err = sfu_backtrace(&sec, 1, &t.port, &r, f, 8, &n);
	EXPECT(err == SFU_END && n == 2 && f[0].pc == 0x100010 && f[1].pc == 0x100020 && f[1].sp == A(ctx + 9),
	       "walk: %s, %zu frames", E(err), n);
	end("port switch-regs: a saved context walks to the outermost frame");

	/* The same context near its stack's top: the second frame's SP is
	 * the top, and its return address would lie above it (another stack,
	 * or a guard page).  The core's stack check, made before anything is
	 * read from the caller's frame, stops the walk there; the thread's
	 * read would refuse it too (port thread-init). */
	begin();
	ctx = &mem.b[55];
	memset(&mem, 0, sizeof mem);
	mem.guard[0] = mem.guard[1] = 0x4747474747474747ull;
	ctx[5] = 0xfeed;
	ctx[6] = 0x100010;
	ctx[8] = 0x100020; /* b[63]: RA of the first frame */
	err = sfu_port_switch_regs(t.port.ctx, &x86_switch, A(ctx), &r);
	EXPECT(err == SFU_OK, "regs: %s", E(err));
	err = sfu_backtrace(&sec, 1, &t.port, &r, f, 8, &n);
	EXPECT(err == SFU_E_STACK_BOUNDS && n == 2 && f[1].sp == A(mem.b + 64), "walk: %s, %zu frames", E(err), n);
	end("port switch-regs: the walk reads nothing above the thread's stack top (SFU_E_STACK_BOUNDS)");

	/* A saved context outside the thread's stack (a corrupt TCB) or
	 * straddling its top is refused before any word of it is read. */
	begin();
	err = sfu_port_switch_regs(t.port.ctx, &x86_switch, A(&mem.a[10]), &r);
	EXPECT(err == SFU_E_READ, "context in another stack: %s", E(err));
	err = sfu_port_switch_regs(t.port.ctx, &x86_switch, A(&mem.b[60]), &r);
	EXPECT(err == SFU_E_READ, "context past the stack top: %s", E(err));
	err = sfu_port_switch_regs(t.port.ctx, &x86_switch, A(&mem.b[10]) + 4, &r);
	EXPECT(err == SFU_E_READ, "unaligned context: %s", E(err));
	{
		struct sfu_switch_layout bad = x86_switch;
		bad.regs.reg[SFU_PORT_DWARF_FP] = SFU_TRAP_NOT_SAVED;
		r.pc = 0x5a5a;
		err = sfu_port_switch_regs(t.port.ctx, &bad, A(&mem.b[10]), &r);
		EXPECT(err == SFU_E_DESC && r.pc == 0x5a5a, "bad layout: %s, registers %s", E(err),
		       r.pc == 0x5a5a ? "untouched" : "written");
	}
	end("port switch-regs: contexts outside the stack and bad layouts are refused");

	/* A saved SP in the context (a TCB-style context) is used as is. */
	begin();
	{
		struct sfu_switch_layout tcb = x86_switch;
		uint64_t c2[8] = { 0 };
		tcb.size = 64;
		tcb.sp.from = SFU_TRAP_SP_SAVED;
		tcb.sp.at = SFU_AT(56);
		c2[6] = 0x100010;
		c2[7] = A(&mem.b[50]);
		c2[5] = 0x77;
		sfu_port_thread_init(&t, NULL, &st, 1);
		t.ram[0].start = A(c2); /* make the context readable */
		t.ram[0].end = A(c2 + 8);
		err = sfu_port_switch_regs(t.port.ctx, &tcb, A(c2), &r);
		EXPECT(err == SFU_OK && r.sp == A(&mem.b[50]) && r.pc == 0x100010 && r.fp == 0x77,
		       "tcb context: %s sp %#llx", E(err), (unsigned long long)r.sp);
	}
	end("port switch-regs: a saved SP field");
}

/* A register an initializer leaves out is 0, "not saved" (SFU_AT): a rule
 * of the first frame that needs it stops the walk (SFU_E_UNSAFE), it is
 * never read from offset 0 of the context; given its SFU_AT offset, the
 * same rule walks on; given a bare offset, the check refuses the layout. */
UT_CASE(test_switch_left_out)
{
	struct sfu_port_thread t;
	/* The stack's top where the outermost frame's caller SP lies (b[58]). */
	sfu_stack st = { A(mem.b), A(mem.b + 58) };
	sfu_section sec = section();
	struct sfu_switch_layout l = x86_switch, with_r10;
	const char *why = NULL;
	uint64_t *ctx = &mem.b[40];
	sfu_regs r;
	sfu_frame f[4];
	size_t n = 0;
	int err;

	begin();
	memset(&mem, 0, sizeof mem);
	sfu_port_thread_init(&t, NULL, &st, 1);
	l.size = 64; /* a word past the return address: r10's, when described */
	with_r10 = l;
	with_r10.regs.reg[10] = SFU_AT(56);
	/* r15 (word 0) looks like a good r10 too, as would anything read from
	 * offset 0: CFA b[52], an outermost frame.  The real r10 (word 7)
	 * gives CFA b[56], whose RA goes into f, an outermost frame at b[56]. */
	ctx[0] = A(&mem.b[50]);
	ctx[6] = 0x100110; /* the resume PC, in the FLEX function */
	ctx[7] = A(&mem.b[54]);
	mem.b[55] = 0x100020;
	EXPECT(l.regs.reg[10] == SFU_TRAP_NOT_SAVED && sfu_switch_check(&l, NULL) == SFU_OK, "r10 left out: refused");
	err = sfu_port_switch_regs(t.port.ctx, &l, A(ctx), &r);
	EXPECT(err == SFU_OK && r.dwarf_map != NULL && r.dwarf_map[10] == SFU_TRAP_NOT_SAVED, "regs: %s", E(err));
	err = sfu_backtrace(&sec, 1, &t.port, &r, f, 4, &n);
	EXPECT(err == SFU_E_UNSAFE && n == 1, "r10 not saved: %s after %zu frames", E(err), n);
	err = sfu_port_switch_regs(t.port.ctx, &with_r10, A(ctx), &r);
	EXPECT(err == SFU_OK, "regs with r10: %s", E(err));
	err = sfu_backtrace(&sec, 1, &t.port, &r, f, 4, &n);
	EXPECT(err == SFU_END && n == 2 && f[1].pc == 0x100020 && f[1].sp == A(&mem.b[56]),
	       "r10 at SFU_AT(56): %s after %zu frames, SP %#llx", E(err), n, (unsigned long long)f[1].sp);
	with_r10.regs.reg[10] = 56; /* bare */
	err = sfu_switch_check(&with_r10, &why);
	EXPECT(ut_refused(err, why, "regs.reg[]: a register not at SFU_AT"), "r10 at a bare 56: %s, %s", E(err),
	       why ? why : "(no rule)");
	EXPECT(sfu_port_switch_regs(t.port.ctx, &with_r10, A(ctx), &r) == SFU_E_DESC, "a bare offset walked");
	end("port switch-left-out: a register left out of the initializer is not saved (SFU_E_UNSAFE where a rule "
	    "needs it), SFU_AT(n) is read, a bare n refused");
}

/* ---- crash record ---------------------------------------------------------- */

static void sample(struct sfu_crash *c, uint32_t boot)
{
	sfu_frame f[40];
	unsigned i;
	for (i = 0; i < 40; i++) {
		f[i].pc = 0x40200000u + 0x10u * i + boot;
		f[i].sp = f[i].cfa = 0;
		f[i].flags = i == 0 || i == 3 ? SFU_FRAME_EXACT : 0;
		f[i].how = i == 3 ? SFU_HOW_TRAP : SFU_HOW_SFRAME;
	}
	sfu_crash_init(c, boot, SFU_CRASH_FAULT, "data abort (EC 0x25)", 0x40201234u);
	c->code = 0x96000006u;
	c->addr = 0x8;
	c->flags = SFU_CRASH_ADDR_VALID;
	sfu_crash_frames(c, f, 12, SFU_END);
}

static int same(const struct sfu_crash *a, const struct sfu_crash *b)
{
	unsigned i;
	if (a->boot != b->boot || a->kind != b->kind || a->stop != b->stop || a->nframes != b->nframes ||
	    a->flags != b->flags || a->code != b->code || a->addr != b->addr || a->pc != b->pc ||
	    strcmp(a->msg, b->msg) != 0)
		return 0;
	for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++)
		if (a->pcs[i] != b->pcs[i] || a->frame[i] != b->frame[i])
			return 0;
	return 1;
}

/* A record changed on purpose, with its checksum made right again. */
static void reseal(uint8_t *buf)
{
	uint32_t crc = sfu_crash_crc32(buf, SFU_CRASH_OFF_CRC);
	unsigned i;
	for (i = 0; i < 4; i++)
		buf[SFU_CRASH_OFF_CRC + i] = (uint8_t)(crc >> (8 * i));
}

UT_CASE(test_crash)
{
	static const char nine[] = "123456789";
	uint8_t buf[SFU_CRASH_SIZE + 8], old[SFU_CRASH_SIZE];
	struct sfu_crash c, d, e;
	sfu_frame fr;
	unsigned i, bad;
	int st;

	begin();
	EXPECT(sfu_crash_crc32((const uint8_t *)nine, 9) == 0xcbf43926u, "crc32 check value %#x",
	       sfu_crash_crc32((const uint8_t *)nine, 9));
	end("crash crc32: the IEEE check value (zlib's crc32)");

	begin();
	memset(buf, 0, sizeof buf);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_EMPTY, "zeros are not a record");
	sample(&c, 7);
	EXPECT(sfu_crash_write(&c, buf, sizeof buf), "write refused");
	EXPECT(buf[0] == 'S' && buf[1] == 'F' && buf[2] == 'U' && buf[3] == 'C' && buf[6] == 0x94 && buf[7] == 1,
	       "magic and size bytes as documented");
	EXPECT(buf[8] == 7 && buf[12] == SFU_CRASH_FAULT && buf[14] == SFU_END, "boot, kind, stop bytes");
	EXPECT(buf[SFU_CRASH_OFF_PCS] == 7 && buf[SFU_CRASH_OFF_PCS + 3] == 0x40 && buf[SFU_CRASH_OFF_FRAME + 3] == 0x31,
	       "first PC little-endian, frame 3 flags | how << 4");
	EXPECT(memcmp(buf + SFU_CRASH_OFF_MSG, "data abort (EC 0x25)", 21) == 0, "message bytes");
	{
		uint32_t crc = sfu_crash_crc32(buf, SFU_CRASH_OFF_CRC);
		EXPECT(buf[400] == (uint8_t)crc && buf[403] == (uint8_t)(crc >> 24), "crc stored little-endian last");
	}
	st = sfu_crash_read(buf, sizeof buf, &d);
	EXPECT(st == SFU_CRASH_VALID && same(&c, &d), "read back: status %d", st);
	sfu_crash_frame(&d, 3, &fr);
	EXPECT(fr.pc == c.pcs[3] && fr.flags == SFU_FRAME_EXACT && fr.how == SFU_HOW_TRAP && d.pcs[12] == 0,
	       "frame 3 decoded, frames past nframes zero");
	EXPECT(sfu_crash_read(buf, SFU_CRASH_SIZE - 1, &d) == SFU_CRASH_EMPTY, "short buffer read");
	EXPECT(!sfu_crash_write(&c, buf, SFU_CRASH_SIZE - 1), "short buffer written");
	end("crash record: round trip, fields at the documented offsets");

	/* More than 32 frames: the first 32 are kept; a long message is cut. */
	begin();
	{
		sfu_frame f[40];
		char longmsg[100];
		for (i = 0; i < 40; i++) {
			f[i].pc = i + 1;
			f[i].flags = 0;
			f[i].how = 0;
		}
		memset(longmsg, 'x', sizeof longmsg);
		longmsg[99] = 0;
		sfu_crash_init(&e, 1, SFU_CRASH_PANIC, longmsg, 0);
		sfu_crash_frames(&e, f, 40, SFU_E_DEPTH);
		sfu_crash_write(&e, buf, sizeof buf);
		st = sfu_crash_read(buf, sizeof buf, &d);
		EXPECT(st == SFU_CRASH_VALID && d.nframes == 32 && d.pcs[31] == 32 && d.stop == SFU_E_DEPTH &&
		       strlen(d.msg) == 63, "status %d nframes %u msg %zu", st, d.nframes, strlen(d.msg));
	}
	end("crash record: 40 frames keep 32, a 99-byte message keeps 63");

	/* Every single-byte change is caught: in the magic the record is gone
	 * (EMPTY), anywhere else the checksum fails (CORRUPT). */
	begin();
	sfu_crash_write(&c, buf, sizeof buf);
	bad = crash_flips_missed(buf, sizeof buf, SFU_CRASH_SIZE);
	EXPECT(bad == 0, "%u of %u bit flips not reported as corrupt", bad, SFU_CRASH_SIZE * 8);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_VALID, "restored record");
	end("crash record: each of 3232 single-bit flips is CORRUPT (or EMPTY in the magic)");

	/* A write cut short at every byte: over cleared memory it is EMPTY
	 * (magic incomplete) or CORRUPT, never VALID; over an older record it
	 * is CORRUPT, or the older record intact (nothing of it changed yet). */
	begin();
	bad = 0;
	sample(&e, 3);
	sfu_crash_write(&e, old, sizeof old);
	for (i = 0; i < SFU_CRASH_SIZE; i++) {
		memset(buf, 0, sizeof buf);
		sfu_crash_write_upto(&c, buf, sizeof buf, i);
		st = sfu_crash_read(buf, sizeof buf, &d);
		if (st != (i < 4 ? SFU_CRASH_EMPTY : SFU_CRASH_CORRUPT))
			bad++;
		memcpy(buf, old, sizeof old);
		sfu_crash_write_upto(&c, buf, sizeof buf, i);
		st = sfu_crash_read(buf, sizeof buf, &d);
		if (st == SFU_CRASH_VALID ? !same(&d, &e) : st != SFU_CRASH_CORRUPT)
			bad++;
	}
	EXPECT(bad == 0, "%u of %u torn writes misread", bad, 2 * SFU_CRASH_SIZE);
	end("crash record: a write cut short at any of 404 bytes is never read as a trace");

	/* A record with a good checksum but fields no version-1 writer makes. */
	begin();
	sfu_crash_write(&c, buf, sizeof buf);
	buf[SFU_CRASH_OFF_VERSION] = 2;
	reseal(buf);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_UNKNOWN, "version 2 accepted");
	sfu_crash_write(&c, buf, sizeof buf);
	buf[SFU_CRASH_OFF_NFRAMES] = 33;
	reseal(buf);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_UNKNOWN, "33 frames accepted");
	sfu_crash_clear(buf, sizeof buf);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_EMPTY, "cleared record still read");
	end("crash record: unknown version or frame count refused; cleared is EMPTY");
}

/* test_port FILE: a 4 KiB memory image for tools/sfu-crash, with a valid
 * record at 0x40 and, at 0x800, one whose write stopped half-way. */
static int write_dump(const char *path)
{
	static uint8_t img[4096];
	struct sfu_crash c;
	FILE *f;
	sample(&c, 5);
	sfu_crash_write(&c, img + 0x40, sizeof img - 0x40);
	sfu_crash_write_upto(&c, img + 0x800, sizeof img - 0x800, SFU_CRASH_SIZE / 2);
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, sizeof img, f) != sizeof img)
		return 1;
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return write_dump(argv[1]);
	return ut_main(NULL);
}
