/* SPDX-License-Identifier: MIT */
/* Unit tests of the crash record the dump writes (crash/sfu_record.h) on
 * the host, with test_dump.c's fixture (dump_fixture.h): the x86_64 port,
 * a section for made-up functions, stacks and trap frames in this
 * process's memory.  Each record the dumps write is read back with
 * sfu_crash.h's reader (the one tools/sfu-crash uses) and every field
 * compared with the walk that wrote it: the trace part, each thread
 * block's registers (known ones only), frames and stack window, the
 * blocks a trap frame splits a walk into (which one is the crash), a
 * fault's syndrome, the threads a later dump adds, a budget that cuts
 * windows, a write cut short, a refused description, the wire lines
 * (decoded here back to the record's bytes) and the boot-time print.
 *
 *   test_record [WIRE-LOG RAW]   with arguments: also write a record's
 *                                wire lines and its bytes, for
 *                                test/unit/run.sh's sfu-crash --log checks
 * Built by test/unit/run.sh with -I core -I port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#define SFU_PORT_LINKER_RAM 0
#define SFU_DUMP_LINKER_SFRAME 0
#define SFU_DUMP_LINKER_TEXT 0
#define SFU_DUMP_SYMTAB 1
#define SFU_DUMP_LINKER_BUILD_ID 0 /* the cases give the note */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_port_x86_64.h"
#include "sfu_threads.h"
#include "../../examples/x86_64-pc/trap_frame.h"
#include "../common/sfb.h"

#include "ut.h"
#include "dump_fixture.h"

/* The record's buffer, and the build-id note the description points at:
 * namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU", 20 bytes. */
static uint8_t g_rec[8192];
static const uint8_t g_note[36] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
                                    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

static void setup_record(size_t size)
{
	setup();
	memset(g_rec, 0xa5, sizeof g_rec);
	dump.record = g_rec;
	dump.record_size = size;
	dump.record_fn = sfu_dump_record_event;
	dump.build_id = (const char *)g_note;
	dump.build_id_end = (const char *)g_note + sizeof g_note;
}

/* The record in g_rec: its trace part and extension, VALID or a why. */
static const char *read_rec(struct sfu_crash *c, struct sfu_crash_info *info)
{
	int st = sfu_crash_read(g_rec, sizeof g_rec, c);

	if (st != SFU_CRASH_VALID)
		return st == SFU_CRASH_EMPTY ? "empty" : st == SFU_CRASH_CORRUPT ? "corrupt" : "unknown or short";
	if (sfu_crash_info_read(g_rec, sizeof g_rec, info) != SFU_CRASH_VALID)
		return "no extension";
	return NULL;
}

/* Frame k of block t is (pc, sp) with how h. */
static int frame_is(const struct sfu_crash_tinfo *t, unsigned k, uint64_t pc, uint64_t sp, unsigned how)
{
	sfu_frame f;

	sfu_crash_thread_frame(g_rec, t, k, &f);
	return f.pc == pc && f.sp == sp && f.how == how;
}

/* The bytes [a, a + n) of memory equal the window's. */
static int window_is_memory(const struct sfu_crash_tinfo *t)
{
	return memcmp(g_rec + t->window_off, (const void *)(uintptr_t)t->window, t->kept) == 0;
}

#define X64(r) ((uint64_t)1 << SFU_CRASH_X64_##r)

UT_CASE(test_regs_dump)
{
	struct sfu_crash c;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	const char *why;
	sfu_regs r;
	int err;

	begin();
	setup_record(sizeof g_rec);
	r = chain(10);
	r.fp = 0x7777;
	sfu_dump_message(&dump, "the test's panic");
	err = sfu_dump_regs(&dump, &r);
	why = read_rec(&c, &info);
	EXPECT(err == SFU_END && why == NULL, "stop %s, record %s", E(err), why ? why : "valid");
	if (why == NULL) {
		EXPECT(c.kind == SFU_CRASH_PANIC && strcmp(c.msg, "the test's panic") == 0 && c.boot == 0 && c.flags == 0,
		       "kind %u msg %s", c.kind, c.msg);
		EXPECT(c.nframes == 2 && c.pcs[0] == 0x100010 && c.pcs[1] == 0x100020 && c.stop == SFU_END &&
		           c.pc == 0x100010 && c.frame[0] == SFU_FRAME_EXACT && c.frame[1] == (SFU_HOW_SFRAME << 4),
		       "trace part: %u frames %#llx %#llx", c.nframes, (unsigned long long)c.pcs[0],
		       (unsigned long long)c.pcs[1]);
		EXPECT(info.machine == SFU_CRASH_EM_X86_64 && info.nthreads == 1 && info.crashed == 0 && info.dropped == 0 &&
		           info.idlen == 20 && memcmp(info.id, g_note + 16, 20) == 0 && info.pac == 0 &&
		           info.budget == sizeof g_rec,
		       "extension: machine %u, %u threads, idlen %u", info.machine, info.nthreads, info.idlen);
		EXPECT(sfu_crash_thread_read(g_rec, &info, 0, &t), "block 0");
		/* Known: rip, rsp, rbp (the registers the walk started from,
		 * no DWARF set); nothing else stored. */
		EXPECT(strcmp(t.name, "main") == 0 && t.state == SFU_CRASH_T_CRASHED && t.nframes == 2 && t.stop == SFU_END,
		       "block: %s state %u, %u frames, stop %u", t.name, t.state, t.nframes, t.stop);
		EXPECT(t.valid == (X64(RIP) | X64(RSP) | X64(RBP)) && t.regs[SFU_CRASH_X64_RIP] == 0x100010 &&
		           t.regs[SFU_CRASH_X64_RSP] == A(&mem.b[10]) && t.regs[SFU_CRASH_X64_RBP] == 0x7777,
		       "registers: valid %#llx", (unsigned long long)t.valid);
		EXPECT(frame_is(&t, 0, 0x100010, A(&mem.b[10]), SFU_HOW_START) &&
		           frame_is(&t, 1, 0x100020, A(&mem.b[12]), SFU_HOW_SFRAME),
		       "frames");
		/* Frame 0's part: from its SP to the CFA the step computed. */
		EXPECT(t.window == A(&mem.b[10]) && t.kept == 16 && t.wanted == 16 && t.whole == 1 &&
		           t.cut == SFU_CRASH_CUT_NONE && window_is_memory(&t),
		       "window %#llx, %u of %u, whole %u, cut %u", (unsigned long long)t.window, t.kept, t.wanted, t.whole,
		       t.cut);
		EXPECT(info.total == t.next + 4u, "the record ends after its block");
	}
	end("unit record regs dump: the trace part, the build-id, one block (registers known only, frames, window = "
	    "memory)");
}

/* A walk through a trap frame (x86_64-pc's layout, its call site at
 * 0x100200) into f at 0x100010, on its own stack: two blocks. */
static const void *const g_sites[] = { (const void *)0x100200 };
static const struct sfu_trap_layout g_layout = X86_TRAP_LAYOUT(g_sites);
static struct x86_trap_frame *g_tf;

static sfu_regs crossing(void)
{
	sfu_regs r = chain(0);
	unsigned i;

	dump.traps = &g_layout;
	dump.ntraps = 1;
	dump.trap = sfu_port_trap;
	dump.trap_check = sfu_layout_check;
	mem.b[1] = 0x100200;
	g_tf = (struct x86_trap_frame *)(void *)&mem.b[2];
	for (i = 0; i < X86_DW_COUNT; i++)
		g_tf->dwarf[i] = 0x1000 + i;
	g_tf->iret_rip = g_tf->dwarf[X86_DW_RIP] = 0x100010;
	g_tf->iret_rsp = g_tf->dwarf[X86_DW_RSP] = A(&mem.b[50]);
	g_tf->cs = 0x08;
	g_tf->vector = 14;
	g_tf->error_code = 0;
	g_tf->cr2 = 0x30;
	mem.b[50] = 0x1234;
	mem.b[51] = 0x100020;
	return r;
}

static void check_crossing(const char *what, int fault)
{
	static const unsigned dw_of_slot[SFU_CRASH_X64_NREGS] = { 15, 14, 13, 12, 6, 3, 11, 10, 9, 8, 0, 2, 1, 4, 5, 99,
	                                                          16, 99, 99, 7, 99, 99, 99, 99, 99, 99, 99 };
	struct sfu_crash c;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo a, b;
	const char *why = read_rec(&c, &info);
	unsigned i, bad = 0;

	EXPECT(why == NULL, "%s: record %s", what, why);
	if (why != NULL)
		return;
	EXPECT(info.nthreads == 2 && info.crashed == (fault ? 1 : 0), "%s: %u blocks, crashed %u", what, info.nthreads,
	       info.crashed);
	EXPECT(sfu_crash_thread_read(g_rec, &info, 0, &a) && sfu_crash_thread_read(g_rec, &info, 1, &b), "blocks");
	/* The handler's block: its frames down to the vector code's call
	 * (the "(exception)" frame), going on in the next block. */
	EXPECT(a.nframes == 2 && a.stop == SFU_OK && frame_is(&a, 1, 0x100200, A(&mem.b[2]), SFU_HOW_SFRAME) &&
	           a.state == (fault ? SFU_CRASH_T_RUNNING : SFU_CRASH_T_CRASHED) && a.whole == 1 && a.kept == 16,
	       "%s: handler block: %u frames, stop %u, state %u, whole %u", what, a.nframes, a.stop, a.state, a.whole);
	/* The interrupted code's: every register the frame holds. */
	EXPECT(b.nframes == 2 && b.stop == SFU_END && frame_is(&b, 0, 0x100010, A(&mem.b[50]), SFU_HOW_TRAP) &&
	           b.state == (fault ? SFU_CRASH_T_CRASHED : SFU_CRASH_T_RUNNING) && b.window == A(&mem.b[50]) &&
	           b.kept == 16 && window_is_memory(&b),
	       "%s: interrupted block: %u frames, stop %u, state %u", what, b.nframes, b.stop, b.state);
	for (i = 0; i < SFU_CRASH_X64_NREGS; i++) {
		int known = dw_of_slot[i] != 99;
		if (((b.valid >> i) & 1u) != (unsigned)known || (known && b.regs[i] != g_tf->dwarf[dw_of_slot[i]]))
			bad++;
	}
	EXPECT(bad == 0, "%s: %u registers of the interrupted block not the frame's (valid %#llx)", what, bad,
	       (unsigned long long)b.valid);
	/* The trace part: the whole walk. */
	EXPECT(c.nframes == 4 && c.pcs[1] == 0x100200 && c.pcs[2] == 0x100010 && (c.frame[2] >> 4) == SFU_HOW_TRAP,
	       "%s: trace part of %u frames", what, c.nframes);
	if (fault)
		EXPECT(c.kind == SFU_CRASH_FAULT && c.code == ((uint64_t)14 << 32) && c.addr == 0x30 &&
		           c.flags == (SFU_CRASH_ADDR_VALID | SFU_CRASH_CODE_KNOWN | SFU_CRASH_ADDR_KNOWN) &&
		           strcmp(c.msg, "#PF page fault, read at 0x0000000000000030: not-present page, s") == 0,
		       "%s: fault %u code %#llx addr %#llx flags %u msg \"%s\"", what, c.kind, (unsigned long long)c.code,
		       (unsigned long long)c.addr, c.flags, c.msg);
	else
		EXPECT(c.kind == SFU_CRASH_PANIC && c.flags == 0, "%s: kind %u", what, c.kind);
}

UT_CASE(test_crossing)
{
	sfu_regs r;
	int err;

	begin();
	setup_record(sizeof g_rec);
	r = crossing();
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END, "stop %s, output:\n%.300s", E(err), g_out);
	check_crossing("panic", 0);
	end("unit record crossing: a walk through a trap frame is two blocks, the handler's (the crash) and the "
	    "interrupted code's with every register of the frame");

	begin();
	setup_record(sizeof g_rec);
	r = crossing();
	err = sfu_dump_cause(&dump, NULL, A(g_tf));
	EXPECT(err == SFU_OK && strcmp(g_out, "fault: #PF page fault, read at 0x0000000000000030: not-present page, "
	                                      "supervisor mode (vector 14, error 0x0)\n") == 0,
	       "cause: %s, output %.300s", E(err), g_out);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END, "stop %s", E(err));
	check_crossing("fault", 1);
	end("unit record fault: sfu_dump_cause's line, then the handler's walk: a fault record whose crash is the "
	    "interrupted code");

	/* sfu_dump_trap: the cause and one block, the interrupted code's. */
	begin();
	setup_record(sizeof g_rec);
	r = crossing();
	err = sfu_dump_trap(&dump, &g_layout, A(g_tf));
	{
		struct sfu_crash c;
		struct sfu_crash_info info;
		struct sfu_crash_tinfo t;
		const char *why = read_rec(&c, &info);

		EXPECT(err == SFU_END && why == NULL && strncmp(g_out, "fault: #PF page fault", 21) == 0,
		       "%s, record %s, output %.200s", E(err), why ? why : "valid", g_out);
		if (why == NULL) {
			EXPECT(c.kind == SFU_CRASH_FAULT && info.nthreads == 1 && info.crashed == 0 &&
			           sfu_crash_thread_read(g_rec, &info, 0, &t) && t.nframes == 2 &&
			           t.state == SFU_CRASH_T_CRASHED && (t.valid & X64(RAX)) && t.regs[SFU_CRASH_X64_RAX] == 0x1000,
			       "kind %u, %u blocks", c.kind, info.nthreads);
		}
	}
	end("unit record trap dump: the cause, a fault record of one block from the frame's registers");
}

/* Threads the iterator gives: two, each at a chain of its own on mem.a. */
static sfu_regs g_thr[2];
static bool two_threads(void *arg, size_t i, struct sfu_dump_thread *t)
{
	static const char *const names[] = { "worker", "idle" };
	static const char *const states[] = { "blocked", "ready" };

	(void)arg;
	if (i >= 2)
		return false;
	t->id = i + 7;
	t->name = names[i];
	t->state = states[i];
	t->regs = &g_thr[i];
	return true;
}

static void thread_chains(void)
{
	unsigned i;

	for (i = 0; i < 2; i++) {
		unsigned k = 20u * i;
		mem.a[k] = 0x4242;
		mem.a[k + 1] = 0x100020;
		mem.a[k + 2] = 0;
		mem.a[k + 3] = 0;
		g_thr[i].pc = 0x100010;
		g_thr[i].sp = A(&mem.a[k]);
		g_thr[i].fp = g_thr[i].ra = 0;
		g_thr[i].dwarf = NULL;
		g_thr[i].ndwarf = 0;
		g_thr[i].dwarf_map = NULL;
	}
}

UT_CASE(test_threads)
{
	struct sfu_crash c;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	const char *why;
	sfu_regs r;
	int err;

	begin();
	setup_record(sizeof g_rec);
	g_ram[0].start = A(&mem);
	r = chain(10);
	thread_chains();
	err = sfu_dump_regs(&dump, &r);
	why = read_rec(&c, &info);
	EXPECT(why == NULL && info.nthreads == 1, "after the crash's dump: %s", why ? why : "");
	err = sfu_dump_threads_iter(&dump, two_threads, NULL);
	why = read_rec(&c, &info);
	EXPECT(err == SFU_END && why == NULL && info.nthreads == 3 && info.crashed == 0, "threads: %s, record %s, %u",
	       E(err), why ? why : "valid", why ? 0 : info.nthreads);
	if (why == NULL && info.nthreads == 3) {
		EXPECT(sfu_crash_thread_read(g_rec, &info, 1, &t) && strcmp(t.name, "worker") == 0 &&
		           t.state == SFU_CRASH_T_BLOCKED && frame_is(&t, 0, 0x100010, A(&mem.a[0]), SFU_HOW_START) &&
		           t.kept == 16 && window_is_memory(&t),
		       "worker: %s state %u", t.name, t.state);
		EXPECT(sfu_crash_thread_read(g_rec, &info, 2, &t) && strcmp(t.name, "idle") == 0 &&
		           t.state == SFU_CRASH_T_READY && frame_is(&t, 0, 0x100010, A(&mem.a[20]), SFU_HOW_START),
		       "idle: %s state %u", t.name, t.state);
		/* The crash's trace part is the first dump's. */
		EXPECT(c.nframes == 2 && c.pcs[0] == 0x100010, "trace part changed");
	}
	end("unit record threads: a threads dump adds a block per thread to the crash's record, named, with states");

	/* A threads dump alone starts a record: its first thread is block 0. */
	begin();
	setup_record(sizeof g_rec);
	thread_chains();
	err = sfu_dump_threads_iter(&dump, two_threads, NULL);
	why = read_rec(&c, &info);
	EXPECT(err == SFU_END && why == NULL && info.nthreads == 2 && c.nframes == 0 &&
	           sfu_crash_thread_read(g_rec, &info, 0, &t) && strcmp(t.name, "worker") == 0,
	       "%s, record %s", E(err), why ? why : "valid");
	end("unit record threads: a threads dump with no dump before it starts a record of its own");
}

UT_CASE(test_budget)
{
	struct sfu_crash c;
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	const char *why;
	sfu_regs r;
	size_t size;
	int err;

	/* The crossing's two blocks: the handler's (3 registers, 2 frames)
	 * with its 16-byte window fits, the interrupted code's (17
	 * registers, 2 frames) does, but not its window: kept 0 of 16, cut
	 * by the budget. */
	begin();
	size = SFU_CRASH_EXT_FIXED + (SFU_CRASH_T_OFF_REGS + 3u * 8u + 2u * SFU_CRASH_T_FRAME + 16u) +
	       (SFU_CRASH_T_OFF_REGS + 17u * 8u + 2u * SFU_CRASH_T_FRAME) + 8u;
	setup_record(size);
	r = crossing();
	err = sfu_dump_regs(&dump, &r);
	why = read_rec(&c, &info);
	EXPECT(err == SFU_END && why == NULL, "%s, record %s", E(err), why ? why : "valid");
	if (why == NULL) {
		EXPECT(info.nthreads == 2 && sfu_crash_thread_read(g_rec, &info, 0, &t) && t.kept == 16 &&
		           sfu_crash_thread_read(g_rec, &info, 1, &t) && t.nframes == 2 && t.kept == 0 && t.wanted == 16 &&
		           t.cut == SFU_CRASH_CUT_BUDGET && t.whole == 0 && info.total <= size,
		       "%u blocks, the second: %u frames, kept %u of %u, cut %u, total %u of %zu", info.nthreads, t.nframes,
		       t.kept, t.wanted, t.cut, info.total, size);
		/* The threads after it: no room, dropped and counted. */
		thread_chains();
		(void)sfu_dump_threads_iter(&dump, two_threads, NULL);
		why = read_rec(&c, &info);
		EXPECT(why == NULL && info.nthreads == 2 && info.dropped == 2, "threads: record %s, %u blocks, %u dropped",
		       why ? why : "valid", info.nthreads, info.dropped);
	}
	end("unit record budget: a window that does not fit is cut (CUT_BUDGET), threads with no room are dropped and "
	    "counted, the record stays valid");

	begin();
	setup_record(804);
	r = chain(10);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_DESC && strstr(g_out, "record: record_size: below 805 bytes"), "%s, output %.300s", E(err),
	       g_out);
	end("unit record budget: a buffer smaller than one frame's block with every register is refused by the check");
}

/* The frame hook copies the record as it stands at frame 1: a reset
 * then would leave this. */
static uint8_t g_torn[sizeof g_rec];
static void torn_hook(const struct sfu_dump *d, unsigned n, const sfu_frame *f)
{
	(void)d;
	(void)f;
	if (n == 1)
		memcpy(g_torn, g_rec, sizeof g_torn);
}

UT_CASE(test_torn_and_refused)
{
	struct sfu_crash c;
	struct sfu_crash_info info;
	sfu_regs r;

	begin();
	setup_record(sizeof g_rec);
	r = chain(10);
	dump.frame = torn_hook;
	(void)sfu_dump_regs(&dump, &r);
	EXPECT(read_rec(&c, &info) == NULL, "the record after the dump is not valid");
	EXPECT(sfu_crash_read(g_torn, sizeof g_torn, &c) == SFU_CRASH_CORRUPT, "a record cut in the middle of the walk "
	                                                                      "does not read CORRUPT");
	end("unit record torn: a record cut in the middle of a dump reads CORRUPT, never a trace");

	/* A dump the check refuses (no section) walks nothing: the record of
	 * the dump before is gone (its magic cleared), none is written. */
	begin();
	setup_record(sizeof g_rec);
	r = chain(10);
	(void)sfu_dump_regs(&dump, &r);
	dump.sframe = dump.sframe_end = NULL;
	memset(&g_state, 0, sizeof g_state);
	(void)sfu_dump_regs(&dump, &r);
	EXPECT(sfu_crash_read(g_rec, sizeof g_rec, &c) == SFU_CRASH_EMPTY, "a refused dump left a record");
	end("unit record refused: a dump that walks nothing leaves no record, and not the one before");
}

/* ---- the wire lines, decoded here ---------------------------------------------- */

static uint32_t crc_of(const char *s, size_t n)
{
	uint32_t crc = 0xffffffffu;
	size_t i;

	for (i = 0; i < n; i++)
		crc = sfu__crash_crc_byte(crc, (unsigned char)s[i]);
	return crc ^ 0xffffffffu;
}

static int b64v(int ch)
{
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = ch ? strchr(a, ch) : NULL;
	return p ? (int)(p - a) : -1;
}

/* Decode the wire lines in text into out: the byte count, or -1 (why). */
static long wire_decode(const char *text, uint8_t *out, size_t cap, unsigned *lines, const char **why)
{
	static uint8_t tok[1 << 16];
	size_t ntok = 0, n = 0, i = 0;
	unsigned k, total = 0, want = 1;
	const char *p = text;

	*why = NULL;
	while ((p = strstr(p, "sfu-record ")) != NULL) {
		const char *sp, *e = strchr(p, '\n'), *crc;
		unsigned crcv;
		int len;

		if (sscanf(p, "sfu-record %u/%u %n", &k, &total, &len) != 2 || k != want || !e)
			return *why = "line order", -1;
		sp = p + len;
		crc = e - 8;
		if (crc[-1] != ' ' || sscanf(crc, "%8x", &crcv) != 1 || crcv != crc_of(p, (size_t)(crc - 1 - p)) ||
		    (crc - 1 - sp) > 76 || ((crc - 1 - sp) & 3))
			return *why = "a line's checksum or length", -1;
		for (; sp < crc - 1; sp += 4) {
			int a = b64v(sp[0]), b = b64v(sp[1]), c = sp[2] == '=' ? 0 : b64v(sp[2]), d = sp[3] == '=' ? 0 : b64v(sp[3]);
			if (a < 0 || b < 0 || c < 0 || d < 0)
				return *why = "not base64", -1;
			tok[ntok++] = (uint8_t)(a << 2 | b >> 4);
			if (sp[2] != '=')
				tok[ntok++] = (uint8_t)(b << 4 | c >> 2);
			if (sp[3] != '=')
				tok[ntok++] = (uint8_t)(c << 6 | d);
		}
		want++;
		p = e;
	}
	*lines = want - 1;
	if (want - 1 != total)
		return *why = "lines missing", -1;
	while (i < ntok) {
		unsigned t = tok[i], m = (t & 63u) + 1u, j;
		size_t run = t < 0x40 ? 0 : t < 0x80 ? m : t < 0xc0 ? 64u * m : 8u * m;
		if (t < 0x40) {
			for (j = 0; j < m && n < cap; j++)
				out[n++] = tok[i + 1 + j];
			i += 1 + m;
			continue;
		}
		for (j = 0; j < run && n < cap; j++, n++)
			out[n] = t < 0xc0 ? 0 : out[n - 8];
		i++;
	}
	return (long)n;
}

UT_CASE(test_wire)
{
	static uint8_t back[sizeof g_rec];
	struct sfu_crash c;
	struct sfu_crash_info info;
	unsigned lines = 0;
	const char *why;
	long n;
	sfu_regs r;

	begin();
	setup_record(sizeof g_rec);
	r = crossing();
	(void)sfu_dump_regs(&dump, &r);
	EXPECT(read_rec(&c, &info) == NULL, "no record");
	reset();
	sfu_dump_record_wire(&dump);
	n = wire_decode(g_out, back, sizeof back, &lines, &why);
	EXPECT(n == (long)info.total && memcmp(back, g_rec, info.total) == 0,
	       "decoded %ld bytes (%s), the record is %u: output\n%.300s", n, why ? why : "-", info.total, g_out);
	/* Mostly zeros: far fewer characters than the hex dump's 3 a byte. */
	EXPECT(lines >= 1 && g_len < info.total, "%u lines, %zu characters for %u bytes", lines, g_len, info.total);
	end("unit record wire: the lines decode, line by line checked, to exactly the record's bytes, in fewer "
	    "characters than bytes");

	/* Every byte value and run length: a record buffer of patterns. */
	begin();
	{
		unsigned i;
		setup_record(sizeof g_rec);
		for (i = 0; i < sizeof g_rec; i++)
			g_rec[i] = (uint8_t)(i < 2000 ? i * 7u : i < 4000 ? 0 : i < 5000 ? (i & 8 ? 0xff : 1) : i % 3);
		memcpy(g_rec, "SFUC\x02\x00", 6);
		g_rec[44] = 0x00;
		g_rec[45] = 0x20; /* total 8192 */
		g_rec[46] = g_rec[47] = 0;
		reset();
		sfu_dump_record_wire(&dump);
		n = wire_decode(g_out, back, sizeof back, &lines, &why);
		EXPECT(n == (long)sizeof g_rec && memcmp(back, g_rec, sizeof g_rec) == 0, "decoded %ld (%s), %zu bytes: %.200s", n,
		       why ? why : "-", g_len, g_out);
	}
	end("unit record wire: literals, zero runs of every length and repeated words decode exactly");
}

UT_CASE(test_print)
{
	static const char want[] = "previous crash: panic: boom\nbacktrace:\n"
	                           "  #0  0x0000000000100010 f+0x10/0x40\n  #1  0x0000000000100020 f+0x20/0x40\n"
	                           "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"
	                           "thread 1 main (crashed, the crash)\nbacktrace:\n"
	                           "  #0  0x0000000000100010 f+0x10/0x40\n  #1  0x0000000000100020 f+0x20/0x40\n"
	                           "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"
	                           "sfu-record 1/";
	struct sfu_crash c;
	sfu_regs r;
	int st;

	begin();
	setup_record(sizeof g_rec);
	r = chain(10);
	sfu_dump_message(&dump, "boom");
	(void)sfu_dump_regs(&dump, &r);
	reset();
	st = sfu_dump_record_print(&dump);
	EXPECT(st == SFU_CRASH_VALID && strncmp(g_out, want, sizeof want - 1) == 0 &&
	           strstr(g_out, "\nsfu-record 1/") != NULL,
	       "%d, output:\n%.400s", st, g_out);
	EXPECT(sfu_crash_read(g_rec, sizeof g_rec, &c) == SFU_CRASH_EMPTY, "the record was not forgotten");
	reset();
	EXPECT(sfu_dump_record_print(&dump) == SFU_CRASH_EMPTY && g_len == 0, "a second print printed %zu bytes", g_len);
	end("unit record print: the previous crash, named by this image, its blocks and its wire lines; then forgotten");
}

int main(int argc, char **argv)
{
	(void)E;
	if (argc == 3) {
		/* A fault record's wire lines and bytes, for run.sh. */
		struct sfu_crash c;
		struct sfu_crash_info info;
		sfu_regs r;
		FILE *f;

		setup_record(sizeof g_rec);
		r = crossing();
		(void)sfu_dump_cause(&dump, NULL, A(g_tf));
		(void)sfu_dump_regs(&dump, &r);
		if (read_rec(&c, &info) != NULL)
			return 1;
		reset();
		sfu_dump_record_wire(&dump);
		f = fopen(argv[1], "w");
		if (!f || fputs(g_out, f) < 0 || fclose(f) != 0)
			return 1;
		f = fopen(argv[2], "wb");
		if (!f || fwrite(g_rec, 1, info.total, f) != info.total || fclose(f) != 0)
			return 1;
		return 0;
	}
	return ut_main("unit record");
}
