/* SPDX-License-Identifier: MIT */
/* Unit tests of the dump layer (crash/sfu_dump.h) on the host: the
 * x86_64 port compiled as it is, a section made by test/common/sfb.h for
 * the address it lies at, stacks and trap frames in this process's memory,
 * the output hook writing into a buffer that every case compares line by
 * line with what the format says (README "The dump format").
 * Built by test/unit/run.sh with -I core -I port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#define SFU_PORT_LINKER_RAM 0
#define SFU_DUMP_LINKER_SFRAME 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_port_x86_64.h"
#include "sfu_dump.h"
#include "../../examples/x86_64-pc/trap_frame.h"
#include "../common/sfb.h"

#include "ut.h"

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

/* ---- the output hook: everything into one buffer ------------------------ */

static char g_out[8192];
static size_t g_len, g_calls, g_empty;

static void out(const char *s, size_t n)
{
	g_calls++;
	if (n == 0)
		g_empty++;
	if (g_len + n < sizeof g_out) {
		memcpy(g_out + g_len, s, n);
		g_len += n;
		g_out[g_len] = 0;
	}
}

static void reset(void)
{
	g_len = g_calls = g_empty = 0;
	g_out[0] = 0;
}

/* ---- the fixture ------------------------------------------------------------ */

/* Stacks and trap frames. */
static struct {
	uint64_t a[64];
	uint64_t guard[2];
	uint64_t b[64];
} __attribute__((aligned(16))) mem;
static const struct sfu_port_range ram[] = { { 0, 0 } };

/* One function at 0x100000 (0x40 bytes) after `push %rbp`: CFA = SP + 16,
 * RA at CFA - 8, FP at CFA - 16; and one at 0x100100 (0x20 bytes), no
 * symbol for it in the table below.  The section is made for the address
 * it lies at, so that the dump may split it from where it is. */
static uint64_t g_sec[512];
static size_t g_sec_len;
static void make_section(void)
{
	static sfb_sec s;
	static const int32_t w[] = { 16, -16 };
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.addr = A(g_sec);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 2, w);
	sfb_add_fre(sfb_add_fde(&s, 0x100100, 0x20), 0, 1, 1, 2, w);
	g_sec_len = sfb_emit(&s, (uint8_t *)g_sec, sizeof g_sec);
}

/* The symbol table, in sfu_dump.h's format: "f" at 0x100000 (0x40 bytes),
 * "g" at 0x100080 (0x10 bytes); a gap between them and after. */
static union {
	struct sfu_symtab t;
	uint64_t raw[16];
} g_syms;
static void make_symtab(void)
{
	memset(&g_syms, 0, sizeof g_syms);
	g_syms.t.magic = SFU_SYMTAB_MAGIC;
	g_syms.t.count = 2;
	g_syms.t.names = 4;
	g_syms.t.sym[0].addr = 0x100000;
	g_syms.t.sym[0].size = 0x40;
	g_syms.t.sym[0].name = 0;
	g_syms.t.sym[1].addr = 0x100080;
	g_syms.t.sym[1].size = 0x10;
	g_syms.t.sym[1].name = 2;
	memcpy((char *)&g_syms.t.sym[2], "f\0g\0", 4);
}

static struct sfu_dump dump = SFU_DUMP_INIT(dump, out, ram, 1, NULL, 0);

/* A fresh dump of the fixture (its ram: the stacks). */
static void setup(void)
{
	static struct sfu_port_range r[1];
	make_section();
	make_symtab();
	r[0].start = A(&mem);
	r[0].end = A(&mem) + sizeof mem;
	dump.ctx.ram = r;
	dump.ctx.nram = 1;
	dump.sframe = (const char *)g_sec;
	dump.sframe_end = (const char *)g_sec + g_sec_len;
	dump.secs_err = -1;
	dump.symtab = &g_syms.t;
	dump.frame = NULL;
	reset();
}

/* A frame chain on mem.b from word k: the first frame at pc 0x100010
 * with SP there; its saved rbp and RA 0x100020 (into f again), then an
 * outermost frame (RA 0). */
static sfu_regs chain(unsigned k)
{
	sfu_regs r = { 0x100010, A(&mem.b[k]), 0, 0, NULL, 0, NULL };
	memset(&mem, 0, sizeof mem);
	mem.b[k] = 0x1234;
	mem.b[k + 1] = 0x100020;
	return r;
}

static unsigned g_hook_n;
static void frame_hook(const struct sfu_dump *d, unsigned n, const sfu_frame *f)
{
	(void)d;
	(void)f;
	g_hook_n = n + 1;
}

/* The fixture's two-frame chain (chain(10)) as a dump prints it. */
static const char two_frames[] = "backtrace:\n"
                                 "  #0  0x0000000000100010 f+0x10/0x40\n"
                                 "  #1  0x0000000000100020 f+0x20/0x40\n"
                                 "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n";

/* A fresh fixture, then the dump of chain(10) with frame hook `hook`. */
static int dump_two_frames(void (*hook)(const struct sfu_dump *, unsigned, const sfu_frame *))
{
	sfu_regs r;

	setup();
	r = chain(10);
	dump.frame = hook;
	return sfu_dump_regs(&dump, NULL, &r);
}

UT_CASE(test_format)
{
	sfu_regs r;
	int err;

	begin();
	g_hook_n = 0;
	err = dump_two_frames(frame_hook);
	EXPECT(err == SFU_END, "stop %s", E(err));
	EXPECT(strcmp(g_out, two_frames) == 0, "output:\n%.400s", g_out);
	EXPECT(g_empty == 0, "the hook got %zu empty pieces", g_empty);
	EXPECT(g_hook_n == 2, "frame hook saw %u frames", g_hook_n);
	end("unit dump format: frames named from the table, the stop line with text and code");

	/* No table: "??"; a PC in no symbol: "??"; a return address named by
	 * pc - 1 (0x100080 - 1 is in f's gap: "??", while g starts there). */
	begin();
	setup();
	r = chain(10);
	mem.b[11] = 0x100080 + 0x40; /* not covered by the section: stops */
	dump.symtab = NULL;
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_E_NOINFO, "stop %s", E(err));
	EXPECT(strcmp(g_out, "backtrace:\n"
	                     "  #0  0x0000000000100010 ??\n"
	                     "  #1  0x00000000001000c0 ??\n"
	                     "backtrace: 2 frames, stopped: no unwind info for this PC (SFU_E_NOINFO)\n") == 0,
	       "output:\n%.400s", g_out);
	end("unit dump format: without a table every frame is ??, and the walk's stop is said");

	/* Ten frames and more: "#10 " keeps the address column. */
	begin();
	setup();
	{
		unsigned k;
		memset(&mem, 0, sizeof mem);
		for (k = 0; k < 12; k++) {
			mem.b[2 * k] = 0x1234;
			mem.b[2 * k + 1] = k < 11 ? 0x100020 : 0;
		}
		r.pc = 0x100010;
		r.sp = A(&mem.b[0]);
		r.fp = r.ra = 0;
		r.dwarf = NULL;
		r.ndwarf = 0;
		r.dwarf_map = NULL;
	}
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_END && strstr(g_out, "\n  #9  0x0000000000100020 f+0x20/0x40\n  #10 0x0000000000100020 f+0x20/0x40\n") &&
	           strstr(g_out, "backtrace: 12 frames, stopped: outermost frame reached (SFU_END)\n"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump format: frame numbers past 9 keep the columns");
}

/* A dump started in the middle of one on the same struct (an interrupt
 * whose handler dumps): the frame hook stands for it. */
static int g_inner_err;
static void nesting_hook(const struct sfu_dump *d, unsigned n, const sfu_frame *f)
{
	sfu_regs r = { 0x100010, A(&mem.a[4]), 0, 0, NULL, 0, NULL };
	(void)d;
	(void)f;
	if (n == 0)
		g_inner_err = sfu_dump_regs(&dump, NULL, &r);
}

UT_CASE(test_one_at_a_time)
{
	static const char refused[] = "dump refused: another dump is under way on this struct sfu_dump\n";
	char rest[sizeof g_out];
	const char *at;
	int err;

	begin();
	g_inner_err = 0;
	err = dump_two_frames(nesting_hook);
	at = strstr(g_out, refused);
	EXPECT(g_inner_err == SFU_E_ARG, "the nested dump: %s", E(g_inner_err));
	EXPECT(err == SFU_END, "the interrupted dump: %s", E(err));
	EXPECT(at != NULL && strstr(at + 1, refused) == NULL, "the refusal line is not there once:\n%.300s", g_out);
	if (at != NULL) {
		size_t k = (size_t)(at - g_out);
		memcpy(rest, g_out, k);
		strcpy(rest + k, at + strlen(refused));
		EXPECT(strcmp(rest, two_frames) == 0, "the interrupted dump is not whole:\n%.300s", g_out);
	}
	/* Done: the next dump runs. */
	err = dump_two_frames(NULL);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0, "after it: %s\n%.400s", E(err), g_out);
	end("unit dump: a dump started during another on the same struct is refused with a line; the other goes on whole");
}

UT_CASE(test_sections_refused)
{
	static uint64_t junk[8] = { 0x1111111111111111ull };
	sfu_regs r;
	int err;

	begin();
	setup();
	r = chain(10);
	dump.sframe = (const char *)junk;
	dump.sframe_end = (const char *)(junk + 8);
	dump.frame = frame_hook;
	g_hook_n = 0;
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_E_MAGIC, "stop %s", E(err));
	EXPECT(strcmp(g_out, "backtrace:\n"
	                     "  .sframe refused, no walk: bad magic\n"
	                     "backtrace: 0 frames, stopped: bad magic (SFU_E_MAGIC)\n") == 0,
	       "output:\n%.400s", g_out);
	EXPECT(g_hook_n == 0, "a frame was given to the hook");
	/* Kept: the next dump says the same without splitting again. */
	reset();
	dump.sframe = (const char *)g_sec;
	err = sfu_dump_stack(&dump);
	EXPECT(err == SFU_E_MAGIC && strstr(g_out, "0 frames, stopped: bad magic (SFU_E_MAGIC)"), "second dump: %s", E(err));
	end("unit dump sections: a refused .sframe gives no walk, one line why, 0 frames and its code");

	begin();
	setup();
	dump.sframe = NULL;
	dump.sframe_end = NULL;
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_E_ARG && strstr(g_out, "stopped: invalid argument (SFU_E_ARG)"), "no section: %s", E(err));
	end("unit dump sections: no section given is SFU_E_ARG, no walk");

	/* A code range: every function must lie in it (sfu_section_split_code),
	 * or no walk. */
	begin();
	setup();
	r = chain(10);
	dump.text = (const char *)(uintptr_t)0x100000;
	dump.text_end = (const char *)(uintptr_t)0x100120;
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_END, "the functions' own range refused: %s", E(err));
	setup();
	dump.text_end = (const char *)(uintptr_t)0x100100; /* the second function is outside */
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_E_CODE_RANGE && strstr(g_out, "0 frames, stopped: ") && !strstr(g_out, "  #0"),
	       "a function outside the code range: %s; output:\n%.400s", E(err), g_out);
	dump.text = dump.text_end = NULL;
	end("unit dump sections: with a code range, a function outside it is refused (SFU_E_CODE_RANGE), no walk");
}

/* The examples' x86_64 switch: push rbp rbx r12 r13 r14 r15, save RSP. */
static const struct sfu_switch_layout x86_switch = {
	.size = 56, .align = 8, .pc = 48, .sp = SFU_TRAP_NOT_SAVED, .sp_add = 56,
	.reg = SFU_X86_64_SWITCH_REGS(32, 40, 24, 16, 8, 0),
};

struct threads {
	struct sfu_port_thread walk;
	uint64_t ctx;
	uint64_t bad;
	unsigned calls;
};

static bool next_thread(void *arg, size_t i, struct sfu_dump_thread *t)
{
	struct threads *th = arg;

	th->calls++;
	if (t->name != NULL || t->port != NULL || t->layout != NULL || t->regs != NULL)
		return false; /* the dump must clear the description first */
	if (i > 1)
		return false;
	t->id = 7 + i;
	t->name = i == 0 ? "worker" : "broken";
	t->state = "blocked";
	t->port = &th->walk.port;
	t->layout = &x86_switch;
	t->context = i == 0 ? th->ctx : th->bad;
	return true;
}

/* A fresh dump and a thread whose one stack is mem.b[0..64): its walk's
 * port in th, its saved context at &mem.b[40] (returned). */
static uint64_t *thread_setup(struct threads *th, sfu_stack *st)
{
	setup();
	memset(&mem, 0, sizeof mem);
	st->lo = A(mem.b);
	st->hi = A(mem.b + 64);
	sfu_port_thread_init(&th->walk, &dump.ctx, st, 1);
	return &mem.b[40];
}

UT_CASE(test_threads)
{
	struct threads th;
	sfu_stack st;
	uint64_t *c;
	char want[1024];
	int err;

	begin();
	c = thread_setup(&th, &st);
	c[5] = 0xfeed;     /* rbp */
	c[6] = 0x100010;   /* resume PC */
	c[7] = 0x1234;     /* at the resumed SP: f's frame */
	c[8] = 0x100020;
	th.ctx = A(c);
	th.bad = A(&mem.a[10]); /* another thread's stack: refused */
	th.calls = 0;
	err = sfu_dump_threads(&dump, next_thread, &th);
	snprintf(want, sizeof want,
	         "thread 7 worker: blocked, stack 0x%016llx .. 0x%016llx\n"
	         "  saved context at 0x%016llx: pc 0x0000000000100010 sp 0x%016llx\n"
	         "backtrace:\n"
	         "  #0  0x0000000000100010 f+0x10/0x40\n"
	         "  #1  0x0000000000100020 f+0x20/0x40\n"
	         "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"
	         "thread 8 broken: blocked, stack 0x%016llx .. 0x%016llx\n"
	         "  saved context at 0x%016llx: memory read refused\n"
	         "backtrace:\n"
	         "backtrace: 0 frames, stopped: memory read refused (SFU_E_READ)\n",
	         (unsigned long long)st.lo, (unsigned long long)st.hi, (unsigned long long)th.ctx,
	         (unsigned long long)A(c + 7), (unsigned long long)st.lo, (unsigned long long)st.hi,
	         (unsigned long long)th.bad);
	EXPECT(strcmp(g_out, want) == 0, "output:\n%.200s\nwanted:\n%.200s", g_out, want);
	EXPECT(err == SFU_E_READ, "the last walk's stop: %s", E(err));
	EXPECT(th.calls == 3, "the iterator was called %u times, not 3", th.calls);
	end("unit dump threads: header, saved context, a walk bounded by the thread's port; a bad context refused");

	begin();
	setup();
	EXPECT(sfu_dump_threads(&dump, NULL, NULL) == SFU_E_ARG && g_len == 0, "no iterator: %.400s", g_out);
	end("unit dump threads: no iterator is SFU_E_ARG, nothing printed");
}

/* A context that records the mode its thread resumes in (CS at 56). */
static const struct sfu_switch_layout x86_switch_mode = {
	.size = 64, .align = 8, .pc = 48, .sp = SFU_TRAP_NOT_SAVED, .sp_add = 64,
	.reg = SFU_X86_64_SWITCH_REGS(32, 40, 24, 16, 8, 0), .mode_saved = true, .mode = 56,
};

static bool next_user_thread(void *arg, size_t i, struct sfu_dump_thread *t)
{
	struct threads *th = arg;

	if (i > 0)
		return false;
	t->id = 3;
	t->name = "app";
	t->state = "preempted";
	t->port = &th->walk.port;
	t->layout = &x86_switch_mode;
	t->context = th->ctx;
	return true;
}

UT_CASE(test_thread_user_mode)
{
	struct threads th;
	sfu_stack st;
	uint64_t *c;
	int err;

	begin();
	c = thread_setup(&th, &st);
	c[6] = 0x100010; /* resume PC */
	c[7] = 0x1b;     /* CS: ring 3 */
	c[8] = 0x1234;
	c[9] = 0x100020; /* a kernel-looking frame above: must not be walked */
	th.ctx = A(c);
	err = sfu_dump_threads(&dump, next_user_thread, &th);
	EXPECT(err == SFU_END_USER && strstr(g_out, "  #0  0x0000000000100010 ?? (user)\n"
	                                            "backtrace: 1 frame, stopped: interrupted code ran at a lower "
	                                            "privilege level (SFU_END_USER)\n") &&
	           !strstr(g_out, "refused"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump threads: a thread switched out in user mode is its one user frame and SFU_END_USER");

	begin();
	setup();
	c[7] = 0x08; /* CS: ring 0 */
	err = sfu_dump_threads(&dump, next_user_thread, &th);
	EXPECT(err == SFU_END && strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n") &&
	           strstr(g_out, "  #1  0x0000000000100020 f+0x20/0x40\n"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump threads: the same context in kernel mode is walked on");
}

/* ---- the thread table ------------------------------------------------------ */

/* A kernel's thread struct, fields of every size the table reads. */
struct tcb {
	const char *name;
	uint32_t id;
	uint8_t state; /* 0 free, 1 ready, 2 blocked */
	uint64_t ctx;
	uint64_t lo, hi;
	struct tcb *next;
};
static const char *const tcb_states[] = { NULL, "ready", "blocked" };
static struct tcb tcbs[5];
static struct tcb *tcb_current, *tcb_head;

/* The dump's RAM: the stacks, and the thread structs. */
static void table_setup(void)
{
	static struct sfu_port_range r[2];

	setup();
	memset(&mem, 0, sizeof mem);
	memset(tcbs, 0, sizeof tcbs);
	r[0].start = A(&mem);
	r[0].end = A(&mem) + sizeof mem;
	r[1].start = A(tcbs);
	r[1].end = A(tcbs) + sizeof tcbs;
	dump.ctx.ram = r;
	dump.ctx.nram = 2;
	tcb_current = tcb_head = NULL;
}

/* Thread k: a saved context at &mem.b[40] as in test_threads, its stack
 * mem.b. */
static void tcb_good(unsigned k, const char *name, uint32_t id)
{
	uint64_t *c = &mem.b[40];

	c[5] = 0xfeed;
	c[6] = 0x100010;
	c[7] = 0x1234;
	c[8] = 0x100020;
	tcbs[k].name = name;
	tcbs[k].id = id;
	tcbs[k].state = 2;
	tcbs[k].ctx = A(c);
	tcbs[k].lo = A(mem.b);
	tcbs[k].hi = A(mem.b + 64);
}

/* A tcb's saved context and header fields, in every table below. */
#define TCB_THREAD                                      \
	SFU_DUMP_SAVED(struct tcb, ctx, &x86_switch), \
	SFU_DUMP_INFO(struct tcb, id, name, state, tcb_states)

static const struct sfu_dump_table tcb_table = {
	SFU_DUMP_ARRAY(struct tcb, tcbs, 5),
	TCB_THREAD,
	SFU_DUMP_STACKS(struct tcb, lo, hi),
	.current = &tcb_current,
};

UT_CASE(test_thread_table)
{
	char want[2048];
	int err;
	const sfu_port *p;

	begin();
	table_setup();
	tcb_good(0, "worker", 7);
	/* tcbs[1]: free (state 0), not dumped. */
	tcb_good(2, "crasher", 9);
	tcb_current = &tcbs[2]; /* the running thread: not dumped */
	tcb_good(3, "odd", 11);
	tcbs[3].state = 9;   /* past the names: "?" */
	tcbs[3].hi = tcbs[3].lo; /* an empty stack: refused alone */
	tcb_good(4, "stray", 12);
	tcbs[4].ctx = A(&mem.a[10]); /* its context on another stack: refused */
	err = sfu_dump_thread_table(&dump, &tcb_table);
	snprintf(want, sizeof want,
	         "thread 7 worker: blocked, stack 0x%016llx .. 0x%016llx\n"
	         "  saved context at 0x%016llx: pc 0x0000000000100010 sp 0x%016llx\n"
	         "backtrace:\n"
	         "  #0  0x0000000000100010 f+0x10/0x40\n"
	         "  #1  0x0000000000100020 f+0x20/0x40\n"
	         "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"
	         "thread 11 odd: ?\n"
	         "  stacks of the thread at 0x%016llx: invalid argument\n"
	         "backtrace:\n"
	         "backtrace: 0 frames, stopped: invalid argument (SFU_E_ARG)\n"
	         "thread 12 stray: blocked, stack 0x%016llx .. 0x%016llx\n"
	         "  saved context at 0x%016llx: memory read refused\n"
	         "backtrace:\n"
	         "backtrace: 0 frames, stopped: memory read refused (SFU_E_READ)\n",
	         (unsigned long long)tcbs[0].lo, (unsigned long long)tcbs[0].hi, (unsigned long long)tcbs[0].ctx,
	         (unsigned long long)A(&mem.b[47]), (unsigned long long)A(&tcbs[3]), (unsigned long long)tcbs[4].lo,
	         (unsigned long long)tcbs[4].hi, (unsigned long long)tcbs[4].ctx);
	EXPECT(strcmp(g_out, want) == 0, "output:\n%.220s\nwanted:\n%.220s", g_out, want);
	EXPECT(err == SFU_E_READ, "the last walk's stop: %s", E(err));
	end("unit dump thread table: an array described once: states by name, free and running slots skipped, "
	    "each walk bounded by the thread's stacks, bad stacks and contexts refused alone");

	begin();
	p = sfu_dump_thread_port(&dump, &tcb_table, &tcbs[0]);
	EXPECT(p != NULL && p->nstacks == 1 && p->stacks[0].lo == tcbs[0].lo && p->stacks[0].hi == tcbs[0].hi &&
	           sfu_port_read(p->ctx, A(&mem.a[0]), &(uint64_t){ 0 }) != 0 &&
	           sfu_port_read(p->ctx, A(&mem.b[0]), &(uint64_t){ 0 }) == 0,
	       "the thread's port: %p", (const void *)p);
	EXPECT(sfu_dump_thread_port(&dump, &tcb_table, &tcbs[3]) == NULL, "an empty stack gave a port");
	dump.busy = 1; /* as in a handler that interrupted a dump on it */
	EXPECT(sfu_dump_thread_port(&dump, &tcb_table, &tcbs[0]) == NULL, "a port while a dump is under way");
	dump.busy = 0;
	end("unit dump thread table: sfu_dump_thread_port bounds and limits the reads to the thread's stacks");
}

UT_CASE(test_thread_list)
{
	struct sfu_dump_table t = {
		SFU_DUMP_LIST(struct tcb, &tcb_head, next, 4),
		TCB_THREAD,
		.stacks = { SFU_DUMP_STACK_SIZE(struct tcb, lo, hi) },
	};
	int err;
	size_t n;
	const char *q;

	begin();
	table_setup();
	tcb_good(3, "a", 1);
	tcb_good(1, "b", 2);
	tcbs[3].hi = 64 * 8; /* a size */
	tcbs[1].hi = 64 * 8;
	tcb_head = &tcbs[3];
	tcbs[3].next = &tcbs[1];
	err = sfu_dump_thread_table(&dump, &t);
	EXPECT(err == SFU_END && strstr(g_out, "thread 1 a: blocked") && strstr(g_out, "thread 2 b: blocked") &&
	           strstr(g_out, "thread 1 a: blocked") < strstr(g_out, "thread 2 b: blocked"),
	       "%s; output:\n%.300s", E(err), g_out);
	end("unit dump thread table: a list in its order, stacks given by base and size");

	begin();
	reset();
	tcbs[1].next = &tcbs[3]; /* a loop: at most count threads */
	err = sfu_dump_thread_table(&dump, &t);
	for (n = 0, q = g_out; q != NULL; q = strchr(q, '\n'), q = q != NULL ? q + 1 : NULL)
		n += strncmp(q, "thread ", 7) == 0;
	EXPECT(err == SFU_END && n == 4, "%s, %zu threads; output:\n%.300s", E(err), n, g_out);
	end("unit dump thread table: a list with a loop ends after count threads");

	begin();
	reset();
	tcbs[1].next = (struct tcb *)(uintptr_t)0x10; /* unreadable */
	err = sfu_dump_thread_table(&dump, &t);
	EXPECT(err == SFU_E_READ && strstr(g_out, "thread 2 b: blocked") &&
	           strstr(g_out, "thread table: the thread at 0x0000000000000010 cannot be read\n"),
	       "%s; output:\n%.300s", E(err), g_out);
	end("unit dump thread table: a list pointer that cannot be read ends the dump, said, SFU_E_READ");
}

/* Each description rule: refused with its line, nothing read or walked. */
UT_CASE(test_thread_table_check)
{
	static const struct { int rule; const char *what; } cases[] = {
		{ 1, "both array and list" }, { 1, "neither" },      { 2, "zero size" },
		{ 2, "count too large" },     { 3, "field past the struct" }, { 3, "no context" },
		{ 3, "odd field size" },      { 4, "no layout" },     { 4, "bad layout" },
		{ 5, "state without names" }, { 6, "no stack" },     { 6, "a stack with one field" },
	};
	static const struct sfu_switch_layout bad_switch = { .size = 0 };
	char name[160];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sfu_dump_table t = tcb_table;
		int err;

		switch (i) {
		case 0: t.head = &tcb_head; break;
		case 1: t.array = NULL; break;
		case 2: t.size = 0; break;
		case 3: t.count = SFU_DUMP_MAX_THREADS + 1; break;
		case 4: t.size = offsetof(struct tcb, lo); break;
		case 5: t.context.at = 0; t.context.size = 0; break;
		case 6: t.context.size = 3; break;
		case 7: t.layout = NULL; break;
		case 8: t.layout = &bad_switch; break;
		case 9: t.states = NULL; break;
		case 10: memset(t.stacks, 0, sizeof t.stacks); break;
		case 11: t.stacks[0].hi.at = 0; t.stacks[0].hi.size = 0; break;
		}
		begin();
		table_setup();
		tcb_good(0, "worker", 7);
		err = sfu_dump_thread_table(&dump, &t);
		EXPECT(sfu_dump_table_check(&t) == cases[i].rule, "%s: rule %d, not %d", cases[i].what,
		       sfu_dump_table_check(&t), cases[i].rule);
		EXPECT(err == SFU_E_ARG && strncmp(g_out, "thread table refused: ", 22) == 0 &&
		           strstr(g_out, sfu_dump_table_error(cases[i].rule)) && !strstr(g_out, "backtrace") &&
		           strchr(g_out, '\n') == g_out + g_len - 1,
		       "%s: %s; output:\n%.400s", cases[i].what, E(err), g_out);
		EXPECT(sfu_dump_thread_port(&dump, &t, &tcbs[0]) == NULL, "%s: a port", cases[i].what);
		snprintf(name, sizeof name, "unit dump thread table: %s is refused (rule %d) with one line, never walked",
		         cases[i].what, cases[i].rule);
		end(name);
	}
	begin();
	EXPECT(sfu_dump_table_check(&tcb_table) == 0, "the good table: rule %d", sfu_dump_table_check(&tcb_table));
	end("unit dump thread table: the good description passes the check");
}

/* The putc hook and SFU_DUMP_PUTC's RAM: the linker's __ram_start/__ram_end
 * (here: mem's bounds). */
__asm__(".globl __ram_start\n.globl __ram_end\n.set __ram_start, mem\n.set __ram_end, mem + 1040\n");
static void put1(char c)
{
	out(&c, 1);
}
static struct sfu_dump pdump = SFU_DUMP_PUTC(pdump, put1, NULL, 0);

UT_CASE(test_putc)
{
	begin();
	reset();
	sfu_dump_str(&pdump, "abc");
	sfu_dump_hex(&pdump, 0x2a, 4);
	EXPECT(strcmp(g_out, "abc0x002a") == 0 && g_calls == 9, "output %.100s in %zu calls", g_out, g_calls);
	EXPECT(sizeof mem == 1040 && pdump.ctx.nram == 1 && pdump.ctx.ram[0].start == A(&mem) &&
	           pdump.ctx.ram[0].end == A(&mem) + sizeof mem && pdump.port.ctx == &pdump.ctx,
	       "SFU_DUMP_PUTC's RAM [0x%llx, 0x%llx), mem at %p", (unsigned long long)pdump.ctx.ram[0].start,
	       (unsigned long long)pdump.ctx.ram[0].end, (void *)&mem);
	end("unit dump putc: SFU_DUMP_PUTC prints through putc, one byte a call, and reads the linker's RAM");
}

UT_CASE(test_trap)
{
	static const void *const sites[] = { (const void *)0x100100 };
	static const struct sfu_trap_layout l = X86_TRAP_LAYOUT(sites);
	struct x86_trap_frame *tf = (struct x86_trap_frame *)(void *)&mem.b[0];
	int err;

	begin();
	setup();
	memset(&mem, 0, sizeof mem);
	tf->iret_rip = 0x100010;
	tf->iret_rsp = A(&mem.b[40]);
	tf->cs = 0x08;
	mem.b[40] = 0x1234;
	mem.b[41] = 0x100020;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END && strcmp(g_out, "backtrace:\n"
	                                       "  #0  0x0000000000100010 f+0x10/0x40\n"
	                                       "  #1  0x0000000000100020 f+0x20/0x40\n"
	                                       "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n") == 0,
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: frame #0 is the interrupted instruction, the walk goes on from it");

	begin();
	setup();
	tf->cs = 0x1b; /* ring 3 */
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END_USER && strcmp(g_out, "backtrace:\n"
	                                            "  #0  0x0000000000100010 ?? (user)\n"
	                                            "backtrace: 1 frame, stopped: interrupted code ran at a lower "
	                                            "privilege level (SFU_END_USER)\n") == 0,
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: a user-mode frame is shown unnamed and ends the walk (SFU_END_USER)");

	begin();
	setup();
	err = sfu_dump_trap(&dump, &l, A(&mem.b[60]));
	EXPECT(err == SFU_E_READ && strstr(g_out, ": memory read refused\nbacktrace:\nbacktrace: 0 frames, stopped: memory read "
	                                          "refused (SFU_E_READ)\n"),
	       "frame past the RAM: %s; output:\n%.400s", E(err), g_out);
	reset();
	err = sfu_dump_trap(&dump, NULL, A(tf));
	EXPECT(err == SFU_E_ARG && strstr(g_out, "stopped: invalid argument (SFU_E_ARG)"), "no layout: %s", E(err));
	end("unit dump trap: an unreadable frame or no layout is refused before anything is read");
}

/* The vector code's call: a return address at a layout's call site is
 * marked "(exception)", and the walk crosses the trap frame into the
 * interrupted code, "(interrupted)". */
UT_CASE(test_exception_marker)
{
	/* The vector code's call: a return address the section does not
	 * cover, 0x100200, is the layout's call site. */
	static const void *const sites[] = { (const void *)0x100200 };
	static const struct sfu_trap_layout l = X86_TRAP_LAYOUT(sites);
	struct x86_trap_frame *tf;
	sfu_regs r;
	int err;

	begin();
	setup();
	dump.ctx.traps = &l;
	dump.ctx.ntraps = 1;
	r = chain(0);
	mem.b[1] = 0x100200;
	/* The trap frame at the SP that call returns with; it says g was
	 * interrupted at 0x100088 (no FDE there: the walk stops after it). */
	tf = (struct x86_trap_frame *)(void *)&mem.b[2];
	tf->iret_rip = 0x100088;
	tf->iret_rsp = A(&mem.b[50]);
	tf->cs = 0x08;
	err = sfu_dump_regs(&dump, NULL, &r);
	EXPECT(err == SFU_E_NOINFO &&
	           strstr(g_out, "  #1  0x0000000000100200 ?? (exception)\n"
	                         "  #2  0x0000000000100088 g+0x8/0x10 (interrupted)\n"
	                         "backtrace: 3 frames, stopped: no unwind info for this PC (SFU_E_NOINFO)\n") != NULL,
	       "%s; output:\n%.400s", E(err), g_out);
	dump.ctx.traps = NULL;
	dump.ctx.ntraps = 0;
	end("unit dump markers: (exception) at the vector code's call, (interrupted) after it");
}

UT_CASE(test_symtab)
{
	const struct sfu_sym *s;

	begin();
	make_symtab();
	s = sfu_symtab_find(&g_syms.t, 0x100000);
	EXPECT(s && s->addr == 0x100000, "first byte of f");
	s = sfu_symtab_find(&g_syms.t, 0x10003f);
	EXPECT(s && s->addr == 0x100000, "last byte of f");
	EXPECT(sfu_symtab_find(&g_syms.t, 0x100040) == NULL, "one past f");
	EXPECT(sfu_symtab_find(&g_syms.t, 0xfffff) == NULL, "before the first");
	s = sfu_symtab_find(&g_syms.t, 0x10008f);
	EXPECT(s && s->addr == 0x100080 && strcmp(sfu_symtab_name(&g_syms.t, s), "g") == 0, "last byte of g");
	EXPECT(sfu_symtab_find(&g_syms.t, 0x100090) == NULL, "past the last");
	EXPECT(sfu_symtab_find(NULL, 0x100000) == NULL, "no table");
	g_syms.t.magic ^= 1;
	EXPECT(sfu_symtab_find(&g_syms.t, 0x100000) == NULL, "bad magic read as a table");
	g_syms.t.magic ^= 1;
	g_syms.t.count = 0;
	EXPECT(sfu_symtab_find(&g_syms.t, 0x100000) == NULL, "empty table");
	end("unit dump symtab: first and last byte, one past, gaps, no table, bad magic, empty");

	/* A name offset outside the pool gives no name; a name without its
	 * NUL is cut at the pool's end. */
	begin();
	setup();
	g_syms.t.sym[0].name = 4;
	EXPECT(sfu_symtab_name(&g_syms.t, &g_syms.t.sym[0]) == NULL, "offset at the pool's end gave a name");
	{
		sfu_regs r = chain(10);
		sfu_dump_regs(&dump, NULL, &r);
		EXPECT(strstr(g_out, "  #0  0x0000000000100010 ??\n") != NULL, "output:\n%.400s", g_out);
	}
	setup();
	memcpy((char *)&g_syms.t.sym[2], "fgh\0", 4);
	g_syms.t.names = 3; /* "fgh" without its NUL */
	{
		sfu_regs r = chain(10);
		sfu_dump_regs(&dump, NULL, &r);
		EXPECT(strstr(g_out, "  #0  0x0000000000100010 fgh+0x10/0x40\n") != NULL, "output:\n%.400s", g_out);
		g_syms.t.sym[0].name = 1; /* "gh", 2 bytes of pool left */
		reset();
		sfu_dump_regs(&dump, NULL, &r);
		EXPECT(strstr(g_out, "  #0  0x0000000000100010 gh+0x10/0x40\n") != NULL, "output:\n%.400s", g_out);
	}
	end("unit dump symtab: names are bounded by the pool");
}

UT_CASE(test_numbers)
{
	begin();
	setup();
	sfu_dump_hex(&dump, 0, 16);
	sfu_dump_str(&dump, " ");
	sfu_dump_hex(&dump, UINT64_MAX, 1);
	sfu_dump_str(&dump, " ");
	sfu_dump_hex(&dump, 0xabc, 0);
	sfu_dump_str(&dump, " ");
	sfu_dump_dec(&dump, 0);
	sfu_dump_str(&dump, " ");
	sfu_dump_dec(&dump, UINT64_MAX);
	sfu_dump_str(&dump, " ");
	sfu_dump_hex(&dump, 1, 40); /* more digits than a number has: 16 at most */
	EXPECT(strcmp(g_out, "0x0000000000000000 0xffffffffffffffff 0xabc 0 18446744073709551615 "
	                     "0x00000000000000000001") == 0,
	       "output: %.400s", g_out);
	EXPECT(g_empty == 0, "empty pieces");
	end("unit dump numbers: hex padding, zero, all ones, the largest decimal");

	begin();
	EXPECT(strcmp(sfu_dump_error_name(SFU_END), "SFU_END") == 0 &&
	           strcmp(sfu_dump_error_text(SFU_END_USER), "interrupted code ran at a lower privilege level") == 0 &&
	           strcmp(sfu_dump_error_name(999), "?") == 0 && strcmp(sfu_dump_error_text(-1), "?") == 0,
	       "names and texts");
	{
		int e;
		for (e = 0; e < SFU_ERROR_COUNT; e++)
			EXPECT(strcmp(sfu_dump_error_text(e), sfu_strerror(e)) == 0, "text of %d differs from sfu_strerror", e);
	}
	end("unit dump errors: every code's text is the core's, its name its enum's");
}

int main(void)
{
	return ut_main("unit");
}
