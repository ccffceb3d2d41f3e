/* SPDX-License-Identifier: MIT */
/* Unit tests of the extended crash record (crash/sfu_crash.h,
 * version 2): registers with their validity, frames, SFrame-bounded stack
 * windows cut by a budget, and a reader that refuses every damaged,
 * torn, truncated or malformed record.  The windows are read from a
 * made-up stack through ut_stack_read, as a port would.
 * Built by test/unit/run.sh with -I core -I port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu.h"
#include "sfu_crash.h"

#include "../common/crash_flips.h"
#include "ut.h"

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

/* Stop codes by name, in the messages of failed cases. */
static const char *S(int e) { return E(e); }

/* The stack the windows come from: word i holds a value naming it. */
static uint64_t stk[256] __attribute__((aligned(16)));
static struct ut_stack g_stack = { stk, 256 };
static sfu_port g_port;

static int refuse_at; /* word index the port refuses from (0: none) */
static int refusing_read(void *ctx, uint64_t a, uint64_t *o)
{
	if (refuse_at && a >= A(&stk[refuse_at]))
		return -1;
	return ut_stack_read(ctx, a, o);
}

/* Three threads:
 *   A (crashed) frames at SP stk[0], CFAs stk[8], stk[20], stk[40]: 4 frames, window 40 words
 *   B           SP stk[100], CFAs stk[110], stk[130]: 3 frames, window 30 words
 *   C           SP stk[200], CFA stk[204], then a frame reached through a
 *               trap frame (another stack): window 4 words, cut STACK */
static sfu_frame fa[4], fb[3], fc[3];
static struct sfu_crash_thread th[3];
static const uint8_t build_id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void frame(sfu_frame *f, uint64_t pc, unsigned sp, unsigned cfa, unsigned how)
{
	f->pc = pc;
	f->sp = A(&stk[sp]);
	f->cfa = cfa ? A(&stk[cfa]) : 0;
	f->how = (uint8_t)how;
	f->flags = how == SFU_HOW_START || how == SFU_HOW_TRAP ? SFU_FRAME_EXACT : 0;
}

/* A port's strip_ra for a 48-bit VA without TBI: bits 48-54 and 56-63
 * take bit 55's value. */
static uint64_t strip48(void *ctx, uint64_t ra)
{
	(void)ctx;
	return (ra >> 55 & 1) ? ra | 0xff7f000000000000ull : ra & ~0xff7f000000000000ull;
}

static void setup(struct sfu_crash *c, struct sfu_crash_ext *x, size_t nthreads)
{
	unsigned i;
	sfu_regs r;

	for (i = 0; i < 256; i++)
		stk[i] = 0x5354000000000000ull | i;
	g_port.read = refusing_read;
	g_port.ctx = &g_stack;
	refuse_at = 0;
	frame(&fa[0], 0x401000, 0, 0, SFU_HOW_START);
	frame(&fa[1], 0x401100, 8, 8, SFU_HOW_SFRAME);
	frame(&fa[2], 0x401200, 20, 20, SFU_HOW_SFRAME);
	frame(&fa[3], 0x401300, 40, 40, SFU_HOW_SFRAME);
	frame(&fb[0], 0x402000, 100, 0, SFU_HOW_START);
	frame(&fb[1], 0x402100, 110, 110, SFU_HOW_SFRAME);
	frame(&fb[2], 0x402200, 130, 130, SFU_HOW_SFRAME);
	frame(&fc[0], 0x403000, 200, 0, SFU_HOW_START);
	frame(&fc[1], 0x403100, 204, 204, SFU_HOW_SFRAME);
	frame(&fc[2], 0x403200, 240, 240, SFU_HOW_TRAP);
	memset(th, 0, sizeof th);
	th[0].name = "main";
	th[0].state = SFU_CRASH_T_CRASHED;
	r.pc = fa[0].pc;
	r.sp = fa[0].sp;
	r.fp = 0x1111;
	r.ra = 0;
	r.dwarf = NULL;
	r.ndwarf = 0;
	r.dwarf_map = NULL;
	sfu_crash_regs_from(&th[0], SFU_CRASH_EM_X86_64, &r);
	th[0].frames = fa;
	th[0].nframes = 4;
	th[0].stop = SFU_END;
	th[1].name = "a-name-longer-than-fifteen";
	th[1].state = SFU_CRASH_T_BLOCKED;
	for (i = 0; i < SFU_CRASH_X64_NREGS; i++)
		sfu_crash_set_reg(&th[1], i, 0x100 + i);
	th[1].frames = fb;
	th[1].nframes = 3;
	th[1].stop = SFU_E_NOINFO;
	th[2].name = NULL;
	th[2].state = SFU_CRASH_T_READY;
	sfu_crash_set_reg(&th[2], SFU_CRASH_X64_RIP, fc[0].pc);
	sfu_crash_set_reg(&th[2], SFU_CRASH_X64_RSP, fc[0].sp);
	th[2].frames = fc;
	th[2].nframes = 3;
	th[2].stop = SFU_END;

	sfu_crash_init(c, 9, SFU_CRASH_PANIC, "assertion failed", fa[0].pc);
	sfu_crash_frames(c, fa, 4, SFU_END);
	memset(x, 0, sizeof *x);
	x->machine = SFU_CRASH_EM_X86_64;
	x->id = build_id;
	x->idlen = sizeof build_id;
	x->threads = th;
	x->nthreads = nthreads;
	x->crashed = 0;
	x->port = &g_port;
}

/* Bytes of the headers and thread blocks without windows: 460 + per
 * thread 48 + 8 per known register + 25 per frame. */
static size_t fixed3(void)
{
	return SFU_CRASH_EXT_FIXED + (48 + 8 * 3 + 25 * 4) + (48 + 8 * 27 + 25 * 3) + (48 + 8 * 2 + 25 * 3);
}

static void reseal(uint8_t *buf, uint32_t total)
{
	uint32_t crc = sfu_crash_crc_ext(buf, total);
	unsigned i;
	for (i = 0; i < 4; i++)
		buf[total - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static uint8_t buf[8192], old[8192];

UT_CASE(test_ext_roundtrip)
{
	struct sfu_crash c, d;
	struct sfu_crash_ext x;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	sfu_frame f;
	size_t used;
	unsigned i;
	int st;

	begin();
	setup(&c, &x, 3);
	memset(buf, 0xaa, sizeof buf);
	st = sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used);
	EXPECT(st == SFU_CRASH_W_OK, "write: %d", st);
	EXPECT(used == fixed3() + 8 * (40 + 30 + 4), "size %zu, expected %zu", used, fixed3() + 8 * (40 + 30 + 4));
	EXPECT(buf[used] == 0xaa, "wrote past the record");
	EXPECT(buf[4] == 2 && buf[6] == 0x94 && buf[7] == 1, "version 2, size 404 as documented");
	EXPECT(buf[44] == (uint8_t)used && buf[45] == (uint8_t)(used >> 8), "total at 44");
	EXPECT(buf[404] == 62 && buf[406] == 3 && buf[408] == 0 && buf[410] == 0 && buf[411] == 20, "ext header bytes");
	EXPECT(memcmp(buf + 416, build_id, 20) == 0 && buf[436] == 0, "build-id at 416, zero-padded");
	EXPECT(memcmp(buf + 456, "main", 5) == 0 && buf[456 + 16] == SFU_CRASH_T_CRASHED && buf[456 + 17] == 4,
	       "first block: name, state, nframes");
	/* Known registers of thread A: rbp (4), rip (16), rsp (19). */
	EXPECT(buf[456 + 24] == 0x10 && buf[456 + 26] == 0x09 && buf[456 + 48] == 0x11,
	       "valid bitmap bits 4, 16, 19; rbp stored first");
	st = sfu_crash_read(buf, sizeof buf, &d);
	EXPECT(st == SFU_CRASH_VALID && d.nframes == 4 && d.pcs[3] == 0x401300 && strcmp(d.msg, "assertion failed") == 0,
	       "trace part: status %d", st);
	st = sfu_crash_info_read(buf, sizeof buf, &info);
	EXPECT(st == SFU_CRASH_VALID && info.nthreads == 3 && info.machine == 62 && info.total == used &&
	       info.budget == sizeof buf && info.idlen == 20 && info.crashed == 0,
	       "info: status %d", st);
	EXPECT(sfu_crash_thread_read(buf, &info, 0, &t) && t.nframes == 4 && t.whole == 3 && t.kept == 320 &&
	       t.wanted == 320 && t.cut == SFU_CRASH_CUT_NONE && t.window == A(&stk[0]) &&
	       t.valid == ((1ull << 4) | (1ull << 16) | (1ull << 19)) && t.regs[SFU_CRASH_X64_RIP] == 0x401000 &&
	       t.regs[SFU_CRASH_X64_RAX] == 0,
	       "thread A: whole %u kept %u wanted %u cut %u", t.whole, t.kept, t.wanted, t.cut);
	for (i = 0; i < 40; i++)
		EXPECT(buf[t.window_off + 8 * i] == i && buf[t.window_off + 8 * i + 7] == 0x53, "window word %u", i);
	sfu_crash_thread_frame(buf, &t, 2, &f);
	EXPECT(f.pc == 0x401200 && f.sp == A(&stk[20]) && f.cfa == A(&stk[20]) && f.how == SFU_HOW_SFRAME,
	       "frame 2 of A");
	EXPECT(sfu_crash_thread_read(buf, &info, 1, &t) && strcmp(t.name, "a-name-longer-t") == 0 &&
	       t.state == SFU_CRASH_T_BLOCKED && t.stop == SFU_E_NOINFO && t.valid == (1ull << 27) - 1 &&
	       t.regs[26] == 0x100 + 26 && t.kept == 240 && t.whole == 2 && t.cut == SFU_CRASH_CUT_NONE,
	       "thread B: name '%s' kept %u stop %s", t.name, t.kept, S(t.stop));
	EXPECT(sfu_crash_thread_read(buf, &info, 2, &t) && t.name[0] == 0 && t.kept == 32 && t.wanted == 32 &&
	       t.whole == 1 && t.cut == SFU_CRASH_CUT_STACK && t.next == used - 4,
	       "thread C: kept %u whole %u cut %u", t.kept, t.whole, t.cut);
	EXPECT(!sfu_crash_thread_read(buf, &info, 3, &t), "a fourth thread");
	end("crash ext: round trip, fields at the documented offsets, windows up to the last CFA");

	/* The DWARF array of an sfu_regs lands in user_regs_struct order. */
	begin();
	{
		struct sfu_crash_thread u;
		uint64_t dw[17];
		sfu_regs r;
		for (i = 0; i < 17; i++)
			dw[i] = 0x1000 + i;
		r.pc = 0x77;
		r.sp = dw[7];
		r.fp = dw[6];
		r.ra = 0;
		r.dwarf = dw;
		r.ndwarf = 17;
		r.dwarf_map = NULL;
		sfu_crash_regs_from(&u, SFU_CRASH_EM_X86_64, &r);
		EXPECT(u.valid == (0x7fffull | 1ull << 16 | 1ull << 19),
		       "valid %#llx", (unsigned long long)u.valid);
		EXPECT(u.regs[SFU_CRASH_X64_RAX] == 0x1000 && u.regs[SFU_CRASH_X64_RDX] == 0x1001 &&
		       u.regs[SFU_CRASH_X64_RBX] == 0x1003 && u.regs[SFU_CRASH_X64_R15] == 0x100f &&
		       u.regs[SFU_CRASH_X64_RSP] == 0x1007 && u.regs[SFU_CRASH_X64_RIP] == 0x77,
		       "x86_64 mapping");
		sfu_crash_regs_from(&u, SFU_CRASH_EM_AARCH64, &r);
		EXPECT(u.valid == ((1ull << 17) - 1) + (1ull << 29) + (1ull << 30) + (1ull << 31) + (1ull << 32) &&
		       u.regs[5] == 0x1005 && u.regs[SFU_CRASH_A64_PC] == 0x77 && u.regs[30] == 0,
		       "aarch64: valid %#llx", (unsigned long long)u.valid);
	}
	end("crash ext: registers from an sfu_regs, the rest unknown (not zero)");

	/* A dwarf_map (a trap frame or saved context in the kernel's own
	 * layout): the registers it saves, from their offsets; the ones it
	 * says are not saved (0) stay unknown, and so does an offset
	 * that is not a word's. */
	begin();
	{
		struct sfu_crash_thread u;
		uint64_t frame[8];
		uint16_t map[17]; /* byte offset + 1 */
		sfu_regs r;
		for (i = 0; i < 8; i++)
			frame[i] = 0x2000 + i;
		for (i = 0; i < 17; i++)
			map[i] = 0;
		map[3] = 0x10 + 1;  /* rbx at frame[2] */
		map[12] = 0x28 + 1; /* r12 at frame[5] */
		map[15] = 0x38 + 1; /* r15 at frame[7] */
		map[13] = 0x0c + 1; /* r13 at a misaligned offset: not taken */
		r.pc = 0x77;
		r.sp = 0x9000;
		r.fp = 0x9100;
		r.ra = 0;
		r.dwarf = frame;
		r.ndwarf = 17;
		r.dwarf_map = map;
		sfu_crash_regs_from(&u, SFU_CRASH_EM_X86_64, &r);
		EXPECT(u.valid == (1ull << SFU_CRASH_X64_RBX | 1ull << SFU_CRASH_X64_R12 | 1ull << SFU_CRASH_X64_R15 |
		                   1ull << SFU_CRASH_X64_RBP | 1ull << SFU_CRASH_X64_RIP | 1ull << SFU_CRASH_X64_RSP),
		       "valid %#llx", (unsigned long long)u.valid);
		EXPECT(u.regs[SFU_CRASH_X64_RBX] == 0x2002 && u.regs[SFU_CRASH_X64_R12] == 0x2005 &&
		       u.regs[SFU_CRASH_X64_R15] == 0x2007 && u.regs[SFU_CRASH_X64_RBP] == 0x9100 &&
		       u.regs[SFU_CRASH_X64_RSP] == 0x9000 && u.regs[SFU_CRASH_X64_R13] == 0,
		       "x86_64 from the map");
	}
	end("crash ext: registers of a dwarf_map (trap frame, saved context) from their offsets");

	/* aarch64 with pointer authentication: the mask the port's strip
	 * clears (here a 48-bit VA, no TBI), at 448, read back. */
	begin();
	setup(&c, &x, 1);
	x.machine = SFU_CRASH_EM_AARCH64;
	x.pac = sfu_crash_pac_mask(strip48, NULL);
	EXPECT(x.pac == 0xff7f000000000000ull, "mask %#llx", (unsigned long long)x.pac);
	EXPECT(sfu_crash_pac_mask(NULL, NULL) == 0, "no strip, no mask");
	st = sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used);
	EXPECT(st == SFU_CRASH_W_OK && buf[SFU_CRASH_OFF_PAC + 7] == 0xff && buf[SFU_CRASH_OFF_PAC + 6] == 0x7f &&
	       buf[SFU_CRASH_OFF_PAC] == 0, "write %d, mask bytes at 448", st);
	st = sfu_crash_info_read(buf, used, &info);
	EXPECT(st == SFU_CRASH_VALID && info.machine == SFU_CRASH_EM_AARCH64 && info.pac == 0xff7f000000000000ull,
	       "read %d", st);
	end("crash ext: aarch64's PAC mask kept for the debugger");
}

UT_CASE(test_ext_budget)
{
	struct sfu_crash c, d;
	struct sfu_crash_ext x;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	size_t used, budget;
	int st;

	/* Level by level: A0 8 words, B0 10, C0 4, A1 12, then B1 (20 words)
	 * does not fit; nor does A2. */
	begin();
	setup(&c, &x, 3);
	budget = fixed3() + 8 * (8 + 10 + 4 + 12) + 8;
	st = sfu_crash_ext_write(&c, &x, buf, budget, &used);
	EXPECT(st == SFU_CRASH_W_OK && used == budget - 8, "write %d used %zu of %zu", st, used, budget);
	st = sfu_crash_info_read(buf, used, &info);
	EXPECT(st == SFU_CRASH_VALID && info.budget == budget, "read: %d", st);
	EXPECT(sfu_crash_thread_read(buf, &info, 0, &t) && t.whole == 2 && t.kept == 160 && t.wanted == 320 &&
	       t.cut == SFU_CRASH_CUT_BUDGET, "A: whole %u kept %u cut %u", t.whole, t.kept, t.cut);
	EXPECT(sfu_crash_thread_read(buf, &info, 1, &t) && t.whole == 1 && t.kept == 80 && t.wanted == 240 &&
	       t.cut == SFU_CRASH_CUT_BUDGET, "B: whole %u kept %u cut %u", t.whole, t.kept, t.cut);
	EXPECT(sfu_crash_thread_read(buf, &info, 2, &t) && t.whole == 1 && t.kept == 32 && t.cut == SFU_CRASH_CUT_STACK,
	       "C: whole %u kept %u cut %u", t.whole, t.kept, t.cut);
	end("crash ext: the budget cuts the deepest frames first, in every thread, and says so");

	/* The crashed thread's first frame does not fit: nothing written. */
	begin();
	setup(&c, &x, 3);
	memset(buf, 0xaa, sizeof buf);
	budget = SFU_CRASH_EXT_FIXED + (48 + 8 * 3 + 25 * 4) + 8 * 8 - 8;
	st = sfu_crash_ext_write(&c, &x, buf, budget, &used);
	EXPECT(st == SFU_CRASH_W_BUDGET && used == 0 && buf[0] == 0xaa && buf[budget - 1] == 0xaa,
	       "status %d used %zu", st, used);
	st = sfu_crash_ext_write(&c, &x, buf, 404, &used);
	EXPECT(st == SFU_CRASH_W_BUDGET && buf[0] == 0xaa, "404 bytes: status %d", st);
	/* Just enough: the crashed thread alone, its first frame; the other
	 * threads dropped and counted. */
	budget += 8;
	st = sfu_crash_ext_write(&c, &x, buf, budget, &used);
	EXPECT(st == SFU_CRASH_W_OK && used == budget, "enough: status %d used %zu", st, used);
	st = sfu_crash_info_read(buf, used, &info);
	EXPECT(st == SFU_CRASH_VALID && info.nthreads == 1 && info.dropped == 2, "status %d nthreads %u dropped %u", st,
	       info.nthreads, info.dropped);
	EXPECT(sfu_crash_thread_read(buf, &info, 0, &t) && t.whole == 1 && t.kept == 64 && t.cut == SFU_CRASH_CUT_BUDGET,
	       "A: whole %u", t.whole);
	end("crash ext: a budget too small for one frame is refused, nothing written");

	/* The port refuses a read inside frame 2 of A: the window stops at
	 * frame 1's end and says why. */
	begin();
	setup(&c, &x, 3);
	refuse_at = 30;
	st = sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used);
	st = st ? st : sfu_crash_info_read(buf, used, &info);
	EXPECT(st == SFU_CRASH_VALID && sfu_crash_thread_read(buf, &info, 0, &t) && t.whole == 2 && t.kept == 160 &&
	       t.cut == SFU_CRASH_CUT_READ, "status %d whole %u cut %u", st, t.whole, t.cut);
	EXPECT(sfu_crash_thread_read(buf, &info, 1, &t) && t.kept == 0 && t.cut == SFU_CRASH_CUT_READ,
	       "B beyond the refusal: kept %u cut %u", t.kept, t.cut);
	end("crash ext: a read the port refuses ends the window there (cut READ)");

	/* Bad arguments. */
	begin();
	setup(&c, &x, 3);
	x.crashed = 3;
	EXPECT(sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) == SFU_CRASH_W_ARG, "crashed out of range");
	x.crashed = 0;
	x.machine = 40; /* EM_ARM */
	EXPECT(sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) == SFU_CRASH_W_ARG, "unknown machine");
	x.machine = SFU_CRASH_EM_X86_64;
	x.idlen = 33;
	EXPECT(sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) == SFU_CRASH_W_ARG, "id too long");
	x.idlen = 0;
	x.pac = 0xff7f000000000000ull;
	EXPECT(sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) == SFU_CRASH_W_ARG, "a PAC mask on x86_64");
	x.pac = 0;
	x.nthreads = 0;
	EXPECT(sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) == SFU_CRASH_W_ARG, "no threads");
	(void)d;
	end("crash ext: bad arguments refused");
}

UT_CASE(test_ext_damage)
{
	struct sfu_crash c, d, e;
	struct sfu_crash_ext x;
	struct sfu_crash_info info;
	size_t used, oldused, i;
	unsigned bad;
	int st;

	/* A small record (thread A alone, a 2-frame window) so that every bit
	 * can be flipped. */
	setup(&c, &x, 1);
	th[0].nframes = 3;
	sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used);

	begin();
	bad = crash_flips_missed(buf, sizeof buf, used);
	EXPECT(bad == 0, "%u of %zu bit flips not reported as corrupt", bad, used * 8);
	EXPECT(sfu_crash_read(buf, sizeof buf, &d) == SFU_CRASH_VALID, "restored record");
	printf("# %zu-byte extended record, %zu bit flips\n", used, used * 8);
	end("crash ext: every single-bit flip is CORRUPT (or EMPTY in the magic)");

	/* Torn writes: over cleared memory and over an older record. */
	begin();
	bad = 0;
	memcpy(old, buf, used);
	oldused = used;
	sfu_crash_init(&e, 10, SFU_CRASH_FAULT, "later", 0x1234);
	for (i = 0; i < used; i++) {
		memset(buf, 0, sizeof buf);
		sfu_crash_ext_write_upto(&e, &x, buf, sizeof buf, NULL, i);
		st = sfu_crash_read(buf, sizeof buf, &d);
		if (st != (i < 4 ? SFU_CRASH_EMPTY : SFU_CRASH_CORRUPT))
			bad++;
		memcpy(buf, old, oldused);
		sfu_crash_ext_write_upto(&e, &x, buf, sizeof buf, NULL, i);
		st = sfu_crash_read(buf, sizeof buf, &d);
		if (st == SFU_CRASH_VALID ? d.boot != 9 : st != SFU_CRASH_CORRUPT)
			bad++;
	}
	EXPECT(bad == 0, "%u of %zu torn writes misread", bad, 2 * used);
	end("crash ext: a write cut short at any byte is never read as a trace");

	/* Truncated: fewer bytes than the record's total. */
	begin();
	memcpy(buf, old, oldused);
	bad = 0;
	for (i = 0; i < oldused; i++) {
		st = sfu_crash_read(buf, i, &d);
		if (st != (i < SFU_CRASH_SIZE ? SFU_CRASH_EMPTY : SFU_CRASH_SHORT))
			bad++;
		if (i >= SFU_CRASH_SIZE && sfu_crash_info_read(buf, i, &info) != SFU_CRASH_SHORT)
			bad++;
	}
	EXPECT(bad == 0, "%u of %zu truncations misread", bad, oldused);
	EXPECT(sfu_crash_read(buf, oldused, &d) == SFU_CRASH_VALID, "the whole record");
	end("crash ext: a record cut short is SHORT (EMPTY below the 404-byte header), never a trace");

	/* Good checksums, fields no writer makes. */
	begin();
	{
		static const struct {
			unsigned off, size;
			uint64_t v;
			const char *what;
		} bad_fields[] = {
			{ SFU_CRASH_OFF_MACHINE, 2, 40, "machine EM_ARM" },
			{ SFU_CRASH_OFF_NTHREADS, 2, 0, "no threads" },
			{ SFU_CRASH_OFF_NTHREADS, 2, 2, "a thread block past the end" },
			{ SFU_CRASH_OFF_CRASHED, 1, 1, "crashed out of range" },
			{ SFU_CRASH_OFF_IDLEN, 1, 33, "id of 33 bytes" },
			{ SFU_CRASH_OFF_BUDGET, 4, 500, "total over the budget" },
			{ SFU_CRASH_OFF_PAC, 8, 0xff7f000000000000ull, "a PAC mask on x86_64" },
			{ 456 + SFU_CRASH_T_OFF_NAME + 15, 1, 'x', "name not terminated" },
			{ 456 + SFU_CRASH_T_OFF_NFRAMES, 1, 33, "33 frames" },
			{ 456 + SFU_CRASH_T_OFF_WHOLE, 1, 4, "whole > nframes" },
			{ 456 + SFU_CRASH_T_OFF_CUT, 1, 4, "cut 4" },
			{ 456 + SFU_CRASH_T_OFF_CUT, 1, SFU_CRASH_CUT_BUDGET, "cut BUDGET with nothing cut" },
			{ 456 + SFU_CRASH_T_OFF_VALID + 3, 1, 0x08, "register 27 of 27" },
			{ 456 + SFU_CRASH_T_OFF_KEPT, 4, 168, "kept > wanted" },
			{ 456 + SFU_CRASH_T_OFF_WANTED, 4, 168, "kept < wanted, cut NONE" },
			{ 456 + SFU_CRASH_T_OFF_WINDOW, 1, 4, "window not aligned" },
		};
		for (i = 0; i < sizeof bad_fields / sizeof bad_fields[0]; i++) {
			memcpy(buf, old, oldused);
			sfu__crash_put(buf, bad_fields[i].off, bad_fields[i].v, bad_fields[i].size);
			reseal(buf, (uint32_t)oldused);
			st = sfu_crash_read(buf, oldused, &d);
			EXPECT(st == SFU_CRASH_UNKNOWN, "%s: status %d", bad_fields[i].what, st);
		}
		/* total moved (the first crc resealed too): the blocks no
		 * longer end at the last crc. */
		memcpy(buf, old, oldused);
		sfu__crash_put(buf, SFU_CRASH_OFF_TOTAL, oldused + 8, 4);
		sfu__crash_put(buf, SFU_CRASH_OFF_CRC, sfu_crash_crc32(buf, SFU_CRASH_OFF_CRC), 4);
		reseal(buf, (uint32_t)oldused + 8);
		st = sfu_crash_read(buf, sizeof buf, &d);
		EXPECT(st == SFU_CRASH_UNKNOWN, "8 bytes after the last block: status %d", st);
		sfu__crash_put(buf, SFU_CRASH_OFF_TOTAL, 100, 4);
		sfu__crash_put(buf, SFU_CRASH_OFF_CRC, sfu_crash_crc32(buf, SFU_CRASH_OFF_CRC), 4);
		st = sfu_crash_read(buf, sizeof buf, &d);
		EXPECT(st == SFU_CRASH_UNKNOWN, "total 100: status %d", st);
	}
	/* A version-1 record has no extension. */
	sfu_crash_write(&c, buf, sizeof buf);
	EXPECT(sfu_crash_info_read(buf, sizeof buf, &info) == SFU_CRASH_UNKNOWN, "version 1 has an extension");
	end("crash ext: fields out of range refused with good checksums (UNKNOWN)");
}

/* test_crash FILE: the record of test_ext_roundtrip, for tools/sfu-crash. */
int main(int argc, char **argv)
{
	if (argc == 2) {
		struct sfu_crash c;
		struct sfu_crash_ext x;
		size_t used;
		FILE *f;
		setup(&c, &x, 3);
		if (sfu_crash_ext_write(&c, &x, buf, sizeof buf, &used) != SFU_CRASH_W_OK)
			return 1;
		f = fopen(argv[1], "wb");
		if (!f || fwrite(buf, 1, used, f) != used)
			return 1;
		return fclose(f) != 0;
	}
	return ut_main(NULL);
}
