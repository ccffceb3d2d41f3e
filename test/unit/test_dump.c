/* SPDX-License-Identifier: MIT */
/* Unit tests of the dump layer (crash/sfu_dump.h, crash/sfu_threads.h)
 * on the host: the x86_64 port compiled as it is, a section made by
 * test/common/sfb.h for the address it lies at, stacks and trap frames in
 * this process's memory, the output hook writing into a buffer that every
 * case compares line by line with what the format says (README "The dump
 * format").  The description is a mutable struct sfu_dump per case (a
 * firmware's is constant); each case starts from a zeroed struct
 * sfu_dump_state, where the dumps keep the check's answer.
 * Built by test/unit/run.sh with -I core -I port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#define SFU_PORT_LINKER_RAM 0
#define SFU_DUMP_LINKER_SFRAME 0
#define SFU_DUMP_LINKER_TEXT 1 /* the code range check built (test_dump_text.c: without) */
#define SFU_DUMP_SYMTAB 1      /* names from a table built (test_dump_text.c: without) */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sfu_port_x86_64.h"
#include "sfu_threads.h"
#include "../../examples/x86_64-pc/trap_frame.h"
#include "../common/sfb.h"

#include "ut.h"

#include "dump_fixture.h"

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
	return sfu_dump_regs(&dump, &r);
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
	err = sfu_dump_regs(&dump, &r);
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
	err = sfu_dump_regs(&dump, &r);
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
		g_inner_err = sfu_dump_regs(&dump, &r);
}

UT_CASE(test_one_at_a_time)
{
	static const char refused[] = "dump refused: another dump is under way on this struct sfu_dump_state\n";
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
	end("unit dump: a dump started during another on the same state is refused with a line; the other goes on whole");
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
	err = sfu_dump_regs(&dump, &r);
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
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_DESC && strcmp(g_out, "backtrace:\n"
	                                         "  dump refused, no walk: sframe: none, or sframe_end below it\n"
	                                         "backtrace: 0 frames, stopped: the description breaks a rule (SFU_E_DESC)\n") == 0,
	       "no section: %s; output:\n%.400s", E(err), g_out);
	end("unit dump sections: no section given is refused by the check (SFU_E_DESC), no walk");

	/* A code range: every function must lie in it (sfu_section_split_code),
	 * or no walk. */
	begin();
	setup();
	r = chain(10);
	dump.text = (const char *)(uintptr_t)0x100000;
	dump.text_end = (const char *)(uintptr_t)0x100120;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END, "the functions' own range refused: %s", E(err));
	setup();
	dump.text = (const char *)(uintptr_t)0x100000;
	dump.text_end = (const char *)(uintptr_t)0x100100; /* the second function is outside */
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_CODE_RANGE && strstr(g_out, "0 frames, stopped: ") && !strstr(g_out, "  #0"),
	       "a function outside the code range: %s; output:\n%.400s", E(err), g_out);
	dump.text = dump.text_end = NULL;
	end("unit dump sections: with a code range, a function outside it is refused (SFU_E_CODE_RANGE), no walk");
}

/* The examples' x86_64 switch: push rbp rbx r12 r13 r14 r15, save RSP. */
static const struct sfu_switch_layout x86_switch = SFU_X86_64_SWITCH_PUSHED(56, 48, 32, 40, 24, 16, 8, 0);

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
 * port in th (its base: the dump's RAM), its saved context at &mem.b[40]
 * (returned). */
static uint64_t *thread_setup(struct threads *th, sfu_stack *st)
{
	static struct sfu_port_ctx base;

	setup();
	memset(&mem, 0, sizeof mem);
	memset(&base, 0, sizeof base);
	base.ram = g_ram;
	base.nram = 1;
	base.top = FIXTURE_TOP;
	st->lo = A(mem.b);
	st->hi = A(mem.b + 64);
	sfu_port_thread_init(&th->walk, &base, st, 1);
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
	th.bad = A(&g_syms) + 8; /* in no memory the dump may read: refused */
	th.calls = 0;
	err = sfu_dump_threads_iter(&dump, next_thread, &th);
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
	EXPECT(strcmp(g_out, want) == 0, "output differs from byte %zu:\n%.150s\nwanted:\n%.150s", diff_at(g_out, want), g_out + diff_at(g_out, want), want + diff_at(g_out, want));
	EXPECT(err == SFU_E_READ, "the last walk's stop: %s", E(err));
	EXPECT(th.calls == 3, "the iterator was called %u times, not 3", th.calls);
	end("unit dump threads: header, saved context, a walk bounded by the thread's port; a bad context refused");

	begin();
	setup();
	EXPECT(sfu_dump_threads_iter(&dump, NULL, NULL) == SFU_E_ARG && g_len == 0, "no iterator: %.400s", g_out);
	end("unit dump threads: no iterator is SFU_E_ARG, nothing printed");
}

/* A context that records the mode its thread resumes in (CS at 56) and
 * the SP it resumes with (at 64). */
static const struct sfu_switch_layout x86_switch_mode = {
	.size = 72, .align = 8, .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(64) },
	.regs = { .pc = SFU_AT(48), .mode = SFU_AT(56), .reg = SFU_X86_64_SWITCH_REGS(32, 40, 24, 16, 8, 0) },
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
	c = &mem.b[40];
	c[6] = 0x400010;   /* resume PC: user code, which no section describes */
	c[7] = 0x1b;       /* CS: ring 3 */
	c[8] = 0x7fff0000; /* SP: the user's stack, none of the thread's */
	c[9] = 0x1234;
	c[10] = 0x100020; /* a kernel-looking frame above: must not be walked */
	th.ctx = A(c);
	err = sfu_dump_threads_iter(&dump, next_user_thread, &th);
	EXPECT(err == SFU_END_USER && strstr(g_out, "  #0  0x0000000000400010 ?? (user)\n"
	                                            "backtrace: 1 frame, stopped: interrupted code ran at a lower "
	                                            "privilege level (SFU_END_USER)\n") &&
	           !strstr(g_out, "refused"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump threads: a thread switched out in user mode is its one user frame and SFU_END_USER");

	begin();
	setup();
	c[6] = 0x100010;  /* resume PC: the kernel's */
	c[7] = 0x08;      /* CS: ring 0 */
	c[8] = A(c + 9);  /* SP: on its stack */
	err = sfu_dump_threads_iter(&dump, next_user_thread, &th);
	EXPECT(err == SFU_END && strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n") &&
	           strstr(g_out, "  #1  0x0000000000100020 f+0x20/0x40\n"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump threads: the same context in kernel mode is walked on");

	/* User mode said, an SP on the thread's own stack: the kernel's stack
	 * (a mode word misread, or an EL0 task on it), walked on. */
	begin();
	setup();
	c[7] = 0x1b;
	err = sfu_dump_threads_iter(&dump, next_user_thread, &th);
	EXPECT(err == SFU_END && !strstr(g_out, "(user)") && strstr(g_out, "  #1  0x0000000000100020 f+0x20/0x40\n"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump threads: user mode with an SP on the thread's stack is the kernel's: walked on");
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
/* The structs and the names they point at, in the dump's RAM: a name is a
 * pointer the kernel's memory gives, read through the checked read. */
static struct {
	struct tcb t[5];
	char names[5][16];
} tcbmem;
#define tcbs tcbmem.t

/* Thread k's name, copied into the dump's RAM. */
static const char *tcb_name(unsigned k, const char *name)
{
	snprintf(tcbmem.names[k], sizeof tcbmem.names[k], "%s", name);
	return tcbmem.names[k];
}
static struct tcb *tcb_current, *tcb_head;

/* The dump's RAM: the stacks, and the thread structs. */
static void table_setup(void)
{
	setup();
	memset(&mem, 0, sizeof mem);
	memset(&tcbmem, 0, sizeof tcbmem);
	g_ram[1].start = A(&tcbmem);
	g_ram[1].end = A(&tcbmem) + sizeof tcbmem;
	dump.nram = 2;
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
	tcbs[k].name = tcb_name(k, name);
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
	tcbs[4].ctx = A(&g_syms) + 8; /* its context in no memory the dump reads: refused */
	dump.threads = &tcb_table;
	err = sfu_dump_threads(&dump);
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
	EXPECT(strcmp(g_out, want) == 0, "output differs from byte %zu:\n%.150s\nwanted:\n%.150s", diff_at(g_out, want), g_out + diff_at(g_out, want), want + diff_at(g_out, want));
	EXPECT(err == SFU_E_READ, "the last walk's stop: %s", E(err));
	end("unit dump thread table: an array described once: states by name, free and running slots skipped, "
	    "each walk bounded by the thread's stacks, bad stacks and contexts refused alone");
}

/* The running thread of a table (.current): every dump of it is bounded
 * by its stacks.  Its stack here is mem.b[0..32]; a chain from b[30]
 * has its second frame at the stack's top and a third above it, which
 * the description alone (its RAM: all of mem) walks on to. */
static sfu_regs running_setup(void)
{
	sfu_regs r;

	table_setup();
	r = chain(30);
	mem.b[33] = 0x100020; /* the second frame's RA, above the stack */
	tcb_good(0, "main", 1);
	tcbs[0].hi = A(mem.b + 32);
	tcb_current = &tcbs[0];
	dump.threads = &tcb_table;
	return r;
}

static const char three_frames_end[] = "  #2  0x0000000000100020 f+0x20/0x40\n"
                                       "backtrace: 3 frames, stopped: outermost frame reached (SFU_END)\n";
static const char two_frames_bounded[] = "  #1  0x0000000000100020 f+0x20/0x40\n"
                                         "backtrace: 2 frames, stopped: stack pointer outside the stack "
                                         "(SFU_E_STACK_BOUNDS)\n";

/* A name pointer the kernel's memory gives is read through the checked
 * read: one into no memory the dump reads (here: this program's own
 * constant, or address 0x10) prints "?", and the dump goes on. */
UT_CASE(test_thread_name_unreadable)
{
	static const char outside[] = "outside";
	int err;

	begin();
	table_setup();
	tcb_good(0, "x", 1);
	tcb_good(1, "y", 2);
	tcbs[0].name = outside;
	tcbs[1].name = (const char *)(uintptr_t)0x10;
	dump.threads = &tcb_table;
	err = sfu_dump_threads(&dump);
	EXPECT(strstr(g_out, "thread 1 ?: blocked") && strstr(g_out, "thread 2 ?: blocked") && !strstr(g_out, "outside"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump thread table: a name pointer into no memory the dump reads prints ?, never read directly");
}

UT_CASE(test_running_thread)
{
	static const void *const sites[] = { (const void *)0x100100 };
	static const struct sfu_trap_layout l = X86_TRAP_LAYOUT(sites);
	struct x86_trap_frame *tf;
	sfu_regs r;
	int err;

	begin();
	r = running_setup();
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_STACK_BOUNDS && strstr(g_out, two_frames_bounded) && !strstr(g_out, "  #2"),
	       "the running thread: %s; output:\n%.400s", E(err), g_out);
	reset();
	tcb_current = NULL; /* no running thread known: the description's bounds */
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strstr(g_out, three_frames_end), "no running thread: %s; output:\n%.400s", E(err), g_out);
	reset();
	tcb_current = &tcbs[0];
	dump.threads = NULL;
	memset(&g_state, 0, sizeof g_state);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strstr(g_out, three_frames_end), "no table: %s; output:\n%.400s", E(err), g_out);
	end("unit dump running thread: sfu_dump_regs is bounded by the running thread's stacks (SFU_E_STACK_BOUNDS "
	    "where the description alone walks on)");

	/* The running thread's stacks cannot be read (an empty stack in its
	 * control block): said, then the description's bounds. */
	static const char unreadable[] = "(the running thread's stacks cannot be read: this walk is bounded by the "
	                                 "description's memory only)\nbacktrace:\n";
	begin();
	r = running_setup();
	tcbs[0].hi = tcbs[0].lo;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strstr(g_out, three_frames_end) && !strncmp(g_out, unreadable, sizeof unreadable - 1),
	       "stacks unreadable: %s; output:\n%.400s", E(err), g_out);
	end("unit dump running thread: stacks that cannot be read are said, never a silently wider bound");

	/* A trap frame on the running thread's stack, the interrupted SP
	 * b[30]: the same walk from it. */
	begin();
	r = running_setup();
	tf = (struct x86_trap_frame *)(void *)&mem.b[0];
	tf->iret_rip = 0x100010;
	tf->iret_rsp = A(&mem.b[30]);
	tf->cs = 0x08;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_E_STACK_BOUNDS && strstr(g_out, two_frames_bounded) && !strstr(g_out, "  #2"),
	       "the running thread: %s; output:\n%.400s", E(err), g_out);
	reset();
	tcb_current = NULL;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END && strstr(g_out, three_frames_end), "no running thread: %s; output:\n%.400s", E(err), g_out);
	/* Its reads too: a trap frame off the thread's stacks is not read. */
	reset();
	tcb_current = &tcbs[0];
	memcpy(&mem.a[0], tf, sizeof *tf);
	err = sfu_dump_trap(&dump, &l, A(&mem.a[0]));
	EXPECT(err == SFU_E_READ && strstr(g_out, ": memory read refused\n"), "a frame on another stack: %s; output:\n%.400s",
	       E(err), g_out);
	end("unit dump running thread: sfu_dump_trap is bounded by the running thread's stacks, and reads only them");

	/* sfu_dump_stack walks from its own frame, on this process's stack:
	 * refused at once where the running thread's stack is elsewhere,
	 * started (and stopped for want of SFrame for the test's own code)
	 * where it covers this stack. */
	begin();
	running_setup();
	err = sfu_dump_stack(&dump);
	EXPECT(err == SFU_E_STACK_BOUNDS && strstr(g_out, "backtrace: 1 frame, stopped: stack pointer outside the stack"),
	       "a running thread elsewhere: %s; output:\n%.400s", E(err), g_out);
	reset();
	tcbs[0].lo = A(__builtin_frame_address(0)) - 0x10000;
	tcbs[0].hi = A(__builtin_frame_address(0)) + 0x1000;
	err = sfu_dump_stack(&dump);
	EXPECT(err == SFU_E_NOINFO && strstr(g_out, "backtrace: 1 frame, stopped: no unwind info for this PC (SFU_E_NOINFO)"),
	       "a running thread on this stack: %s; output:\n%.400s", E(err), g_out);
	end("unit dump running thread: sfu_dump_stack is bounded by the running thread's stacks");
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
	dump.threads = &t;
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_END && strstr(g_out, "thread 1 a: blocked") && strstr(g_out, "thread 2 b: blocked") &&
	           strstr(g_out, "thread 1 a: blocked") < strstr(g_out, "thread 2 b: blocked"),
	       "%s; output:\n%.300s", E(err), g_out);
	end("unit dump thread table: a list in its order, stacks given by base and size");

	begin();
	reset();
	tcbs[1].next = &tcbs[3]; /* a loop: at most count threads */
	err = sfu_dump_threads(&dump);
	for (n = 0, q = g_out; q != NULL; q = strchr(q, '\n'), q = q != NULL ? q + 1 : NULL)
		n += strncmp(q, "thread ", 7) == 0;
	EXPECT(err == SFU_END && n == 4, "%s, %zu threads; output:\n%.300s", E(err), n, g_out);
	end("unit dump thread table: a list with a loop ends after count threads");

	begin();
	reset();
	tcbs[1].next = (struct tcb *)(uintptr_t)0x10; /* unreadable */
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_E_READ && strstr(g_out, "thread 2 b: blocked") &&
	           strstr(g_out, "thread table: the thread at 0x0000000000000010 cannot be read\n"),
	       "%s; output:\n%.300s", E(err), g_out);
	end("unit dump thread table: a list pointer that cannot be read ends the dump, said, SFU_E_READ");
}

/* "part" or "part[index]", as a refusal line names where (index NO_INDEX:
 * the part is no array). */
#define NO_INDEX ((size_t)-1)
static void where(char *buf, size_t n, const char *part, size_t index)
{
	if (index == NO_INDEX)
		snprintf(buf, n, "%s", part);
	else
		snprintf(buf, n, "%s[%zu]", part, index);
}

/* A rule of the description, broken: what breaks it, where the check
 * must say it is (part[index]), and what its rule must hold. */
struct rule_case {
	const char *what, *part;
	size_t index;
	const char *rule;
};

/* sfu_dump_check's answer to the description `dump`, which breaks c's
 * rule: SFU_E_DESC, at c's part[index], a rule holding c's; the dumps'
 * refusal line for it into line[0..n). */
static void expect_refused(const struct rule_case *c, char *line, size_t n)
{
	struct sfu_dump_why why;
	char got[64], want[64];
	int err;

	memset(&why, 0, sizeof why);
	err = sfu_dump_check(&dump, &why);
	where(got, sizeof got, why.part != NULL ? why.part : "(none)", why.index);
	where(want, sizeof want, c->part, c->index);
	EXPECT(err == SFU_E_DESC && why.rule != NULL && strstr(why.rule, c->rule) != NULL,
	       "%s: %s, rule \"%s\", not \"...%s...\"", c->what, E(err), why.rule ? why.rule : "(none)", c->rule);
	EXPECT(why.part != NULL && strcmp(got, want) == 0, "%s: at %s, not %s", c->what, got, want);
	snprintf(line, n, "  dump refused, no walk: %s: %s\n", want, why.rule ? why.rule : "");
}

/* "PREFIX: WHAT is refused (SFU_E_DESC) naming PART[INDEX], SUFFIX" */
static void end_rule_case(const char *prefix, const struct rule_case *c, const char *suffix)
{
	char name[240], loc[64];

	where(loc, sizeof loc, c->part, c->index);
	snprintf(name, sizeof name, "%s: %s is refused (SFU_E_DESC) naming %s, %s", prefix, c->what, loc, suffix);
	end(name);
}

/* Each rule of a thread table, broken once: sfu_dump_check refuses the
 * description (SFU_E_DESC) naming where (part[index]) and the rule;
 * sfu_dump_threads prints that line alone under "threads:", reads and
 * walks nothing; the running thread's dump is not bounded by a table the
 * check refuses (no stacks are read from it) and is refused too. */
static const struct sfu_switch_layout bad_switch = { .size = 0 };
static const void *const g_sites[] = { (const void *)0x100100 };
static const sfu_stack four_shared[4] = { { 0x1000, 0x2000 }, { 0x3000, 0x4000 }, { 0x5000, 0x6000 }, { 0x7000, 0x8000 } };
static const struct rule_case table_rules[] = {
	{ "both array and list", "threads", NO_INDEX, "none of array, ptrs, head and lists, or more than one" },
	{ "neither array nor list", "threads", NO_INDEX, "none of array, ptrs, head and lists, or more than one" },
	{ "zero size", "threads", NO_INDEX, "size: 0 or over 65535" },
	{ "a size over 65535", "threads", NO_INDEX, "size: 0 or over 65535" },
	{ "count 0", "threads", NO_INDEX, "count: 0 or over SFU_DUMP_MAX_THREADS" },
	{ "count too large", "threads", NO_INDEX, "count: 0 or over SFU_DUMP_MAX_THREADS" },
	{ "an array past the end of the address space", "threads", NO_INDEX, "array:" },
	{ "no context", "threads", NO_INDEX, "context:" },
	{ "odd field size", "threads", NO_INDEX, "context:" },
	{ "a list without next", "threads", NO_INDEX, "next:" },
	{ "an id of 3 bytes", "threads", NO_INDEX, "id:" },
	{ "a state past the struct", "threads", NO_INDEX, "state:" },
	{ "a name kept in the struct", "threads", NO_INDEX, "name:" },
	{ "field past the struct", "threads.stacks", 0, "a field past the struct" },
	{ "a stack with one field", "threads.stacks", 1, "one field of the two only" },
	{ "no layout", "threads.layout", NO_INDEX, "no switch layout" },
	{ "bad layout", "threads.layout", NO_INDEX, "size:" },
	{ "state without names", "threads", NO_INDEX, "state: a field without state names" },
	{ "no stack", "threads", NO_INDEX, "stacks: none" },
	{ "shared stacks missing", "threads", NO_INDEX, "stacks: none" },
	{ "more stacks than a thread's port holds", "threads", NO_INDEX, "stacks: more than SFU_PORT_THREAD_STACKS" },
	{ "a ring without a head", "threads", NO_INDEX, "ring: only with a head" },
	{ "an array of pointers and a list", "threads", NO_INDEX, "none of array, ptrs, head and lists, or more than one" },
	{ "lists without nlists", "threads", NO_INDEX, "lists: nlists is 0" },
	{ "lists without a link node", "threads", NO_INDEX, "link: missing for lists" },
	{ "a next pointer outside the link node", "threads", NO_INDEX, "next: not a field of the link node" },
	{ "a list's head node missing", "threads", NO_INDEX, "lists[].head: missing" },
	{ "both context and context_in", "threads", NO_INDEX, "context: neither context nor context_in, or both" },
	{ "a context kept in the struct, past it", "threads", NO_INDEX, "context_in: past the struct" },
	{ "both name and name_in", "threads", NO_INDEX, "name_in: past the struct, or given with name" },
	{ "a stack top without its size", "threads.stacks", 0, "stacks: a top or a base needs its field and a size" },
	{ "a stack of an unknown kind", "threads.stacks", 0, "stacks: kind not one of SFU_DUMP_SPAN_*" },
	{ "a switch layout's trap layout with the PC left out", "threads.layout.traps", 1,
	  "regs.pc: 0, not saved (left out of the initializer)" },
	{ "a list's next pointer past the struct", "threads", NO_INDEX,
	  "next: past the struct, or not a 4- or 8-byte field at its alignment" },
	{ "the lists' link node past the struct", "threads", NO_INDEX, "link: past the struct" },
};

static const struct sfu_dump_list one_list[1] = { { &tcb_head, "ready" } };
static struct sfu_trap_layout g_bad_traps[2];
static struct sfu_switch_layout g_bad_trap_switch;

static void break_table(size_t i, struct sfu_dump_table *t)
{
	switch (i) {
	case 0: t->head = &tcb_head; break;
	case 1: t->array = NULL; break;
	case 2: t->size = 0; break;
	case 3: t->size = 65536; break;
	case 4: t->count = 0; break;
	case 5: t->count = SFU_DUMP_MAX_THREADS + 1; break;
	case 6: t->array = (const void *)(UINTPTR_MAX - 64); break;
	case 7: t->context.at = 0; t->context.size = 0; break;
	case 8: t->context.size = 3; break;
	case 9: t->array = NULL; t->head = &tcb_head; break;
	case 10: t->id.size = 3; break;
	case 11: t->state.at = (uint16_t)(sizeof(struct tcb) + 1); break;
	case 12: t->name.size = 4; break;
	case 13: t->size = offsetof(struct tcb, lo); break;
	case 14: t->stacks[1] = t->stacks[0]; t->stacks[1].hi.at = 0; t->stacks[1].hi.size = 0; break;
	case 15: t->layout = NULL; break;
	case 16: t->layout = &bad_switch; break;
	case 17: t->states = NULL; break;
	case 18: memset(t->stacks, 0, sizeof t->stacks); break;
	case 19: memset(t->stacks, 0, sizeof t->stacks); t->nshared = 1; break;
	case 20: t->shared = four_shared; t->nshared = 4; break;
	case 21: t->ring = true; break;
	case 22: t->ptrs = (const void *const *)(const void *)tcbs; t->head = &tcb_head; t->array = NULL; break;
	case 23: t->array = NULL; t->lists = one_list; t->next = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next); break;
	case 24: t->array = NULL; t->lists = one_list; t->nlists = 1; t->next = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next); break;
	case 25:
		t->array = NULL;
		t->lists = one_list;
		t->nlists = 1;
		t->link = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, lo);
		t->next = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next);
		break;
	case 26: {
		static const struct sfu_dump_list no_head[1] = { { NULL, "ready" } };
		t->array = NULL;
		t->lists = no_head;
		t->nlists = 1;
		t->link = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next);
		t->next = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next);
		break;
	}
	case 27: t->context_in = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, lo); break;
	case 28:
		t->context_in = (struct sfu_dump_field){ (uint16_t)(offsetof(struct tcb, lo) + 1u), 64 };
		t->context.at = 0;
		t->context.size = 0;
		break;
	case 29: t->name_in = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, id); break;
	case 30: t->stacks[0] = (struct sfu_dump_span)SFU_DUMP_STACK_TOP(struct tcb, hi, 0); break;
	case 31: t->stacks[0].kind = 9; break;
	case 32:
		g_bad_traps[0] = g_bad_traps[1] = (struct sfu_trap_layout)X86_TRAP_LAYOUT(g_sites);
		g_bad_traps[1].regs.pc = 0;
		g_bad_trap_switch.traps = g_bad_traps;
		g_bad_trap_switch.ntraps = 2;
		t->layout = &g_bad_trap_switch;
		break;
	case 33:
		t->array = NULL;
		t->head = &tcb_head;
		t->next = (struct sfu_dump_field){ (uint16_t)(sizeof(struct tcb) + 1u), 8 };
		break;
	case 34:
		t->array = NULL;
		t->lists = one_list;
		t->nlists = 1;
		t->link = (struct sfu_dump_field){ (uint16_t)(sizeof(struct tcb) - 7u), 16 };
		t->next = (struct sfu_dump_field)SFU_DUMP_FIELD(struct tcb, next);
		break;
	}
}

UT_CASE(test_thread_table_check)
{
	struct sfu_dump_why why;
	char line[300], want[320];
	size_t i;

	for (i = 0; i < sizeof table_rules / sizeof table_rules[0]; i++) {
		struct sfu_dump_table t = tcb_table;
		sfu_regs r;
		int err;

		break_table(i, &t);
		begin();
		r = running_setup();
		dump.threads = &t;
		expect_refused(&table_rules[i], line, sizeof line);
		snprintf(want, sizeof want, "threads:\n%s", line);
		err = sfu_dump_threads(&dump);
		EXPECT(err == SFU_E_DESC && strcmp(g_out, want) == 0, "%s: %s; output:\n%.200s\nwanted:\n%.200s",
		       table_rules[i].what, E(err), g_out, want);
		reset();
		err = sfu_dump_regs(&dump, &r);
		EXPECT(err == SFU_E_DESC && !strstr(g_out, "  #0"), "%s: the running thread walked: %s", table_rules[i].what,
		       E(err));
		end_rule_case("unit dump thread table", &table_rules[i], "never walked");
	}
	begin();
	table_setup();
	dump.threads = &tcb_table;
	memset(&why, 0, sizeof why);
	EXPECT(sfu_dump_check(&dump, &why) == SFU_OK && why.part == NULL && why.rule == NULL, "the good table: %s",
	       why.rule ? why.rule : "(no rule)");
	end("unit dump thread table: the good description passes the check");
}

/* The putc hook and SFU_DUMP_PUTC's RAM: the linker's __ram_start/__ram_end
 * (here: mem's bounds); the linker's code range of SFU_DUMP_LINKER_TEXT,
 * which the cases replace with the fixture's. */
__asm__(".globl __ram_start\n.globl __ram_end\n.set __ram_start, mem\n.set __ram_end, mem + 1040\n"
        ".globl __text_start\n.globl __text_end\n.set __text_start, main\n.set __text_end, main + 1\n");
static void put1(char c)
{
	out(&c, 1);
}
static struct sfu_dump_state pstate;
static const struct sfu_dump pdump = SFU_DUMP_PUTC(&pstate, put1, NULL, 0);

UT_CASE(test_putc)
{
	struct sfu_dump p = pdump;
	sfu_regs r;
	int err;

	begin();
	reset();
	sfu_dump_str(&pdump, "abc");
	sfu_dump_hex(&pdump, 0x2a, 4);
	EXPECT(strcmp(g_out, "abc0x002a") == 0 && g_calls == 9, "output %.100s in %zu calls", g_out, g_calls);
	EXPECT(sizeof mem == 1040 && pdump.ram == NULL && pdump.nram == 0 && pdump.linker_ram.start == A(&mem) &&
	           pdump.linker_ram.end == A(&mem) + sizeof mem && pdump.write == NULL && pdump.state == &pstate,
	       "SFU_DUMP_PUTC's RAM [0x%llx, 0x%llx), mem at %p", (unsigned long long)pdump.linker_ram.start,
	       (unsigned long long)pdump.linker_ram.end, (void *)&mem);
	/* A walk through it reads that RAM (its stacks are in mem). */
	setup();
	r = chain(10);
	memset(&pstate, 0, sizeof pstate);
	p.sframe = dump.sframe;
	p.sframe_end = dump.sframe_end;
	p.text = p.text_end = NULL;
	p.symtab = dump.symtab;
	err = sfu_dump_regs(&p, &r);
	EXPECT(err == SFU_E_ZERO_RA && strncmp(g_out, two_frames, 80) == 0 && g_calls == g_len &&
	           strstr(g_out, "backtrace: 2 frames, stopped: return address 0 inside the stack (SFU_E_ZERO_RA)\n"),
	       "a walk through putc, no stacks: %s, %zu bytes in %zu calls; output:\n%.400s", E(err), g_len, g_calls,
	       g_out);
	/* With the stacks' bounds, the zero at a stack's top ends it. */
	reset();
	memset(&pstate, 0, sizeof pstate);
	p.stacks = g_dump_stacks;
	p.nstacks = 2;
	p.top = FIXTURE_TOP;
	err = sfu_dump_regs(&p, &r);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0 && g_calls == g_len,
	       "a walk through putc: %s, %zu bytes in %zu calls; output:\n%.400s", E(err), g_len, g_calls, g_out);
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
	/* A #PF: the layout names the vector, the error code and CR2. */
	tf->vector = 14;
	tf->error_code = 2;
	tf->cr2 = 0x18;
	mem.b[40] = 0x1234;
	mem.b[41] = 0x100020;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END && strcmp(g_out, "fault: #PF page fault, write at 0x0000000000000018: not-present page, "
	                                       "supervisor mode (vector 14, error 0x2)\n"
	                                       "backtrace:\n"
	                                       "  #0  0x0000000000100010 f+0x10/0x40\n"
	                                       "  #1  0x0000000000100020 f+0x20/0x40\n"
	                                       "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n") == 0,
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: the fault's cause first; frame #0 is the interrupted instruction, the walk goes on from it");

	begin();
	setup();
	tf->vector = 0x20; /* an interrupt: no cause line */
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END && strncmp(g_out, "backtrace:\n", 11) == 0, "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: an interrupt's frame has no cause line");

	begin();
	setup();
	tf->cs = 0x1b;             /* ring 3 */
	tf->iret_rsp = 0x7fff0000; /* the user's stack */
	tf->iret_rip = 0x400010;   /* user code, which no section describes */
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END_USER && strcmp(g_out, "backtrace:\n"
	                                            "  #0  0x0000000000400010 ?? (user)\n"
	                                            "backtrace: 1 frame, stopped: interrupted code ran at a lower "
	                                            "privilege level (SFU_END_USER)\n") == 0,
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: a user-mode frame is shown unnamed and ends the walk (SFU_END_USER)");

	/* Ring 3 said, its SP on a stack the description bounds: the
	 * kernel's (a CS word misread), walked on. */
	begin();
	setup();
	tf->iret_rip = 0x100010;
	tf->iret_rsp = A(&mem.b[40]);
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err == SFU_END && !strstr(g_out, "(user)") && strstr(g_out, "backtrace: 2 frames"),
	       "%s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: a user-mode frame whose SP is on the description's stacks is walked on");

	/* Ring 3 said, its SP off every stack, but its PC is code the
	 * sections describe: the kernel's (a mode word misread), never a user
	 * frame that ends the trace; its SP then stops the walk. */
	begin();
	setup();
	tf->iret_rsp = 0x7fff0000;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(err != SFU_END_USER && !SFU_COMPLETE(err) && !strstr(g_out, "(user)") &&
	           strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n"),
	       "%s; output:\n%.400s", E(err), g_out);
	tf->cs = 0x08;
	end("unit dump trap: a user-mode frame whose PC the sections describe is the kernel's, not a user end");

	begin();
	setup();
	err = sfu_dump_trap(&dump, &l, A(&mem.b[60]));
	EXPECT(err == SFU_E_READ && strstr(g_out, ": memory read refused\nbacktrace:\nbacktrace: 0 frames, stopped: memory read "
	                                          "refused (SFU_E_READ)\n"),
	       "frame past the RAM: %s; output:\n%.400s", E(err), g_out);
	reset();
	err = sfu_dump_trap(&dump, NULL, A(tf)); /* and the description has none */
	EXPECT(err == SFU_E_ARG && strstr(g_out, "stopped: invalid argument (SFU_E_ARG)"), "no layout: %s; output:\n%.400s",
	       E(err), g_out);
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
	dump.traps = &l;
	dump.ntraps = 1;
	dump.trap = sfu_port_trap;
	dump.trap_check = sfu_layout_check;
	r = chain(0);
	mem.b[1] = 0x100200;
	/* The trap frame at the SP that call returns with; it says g was
	 * interrupted at 0x100088 (no FDE there: the walk stops after it). */
	tf = (struct x86_trap_frame *)(void *)&mem.b[2];
	tf->iret_rip = 0x100088;
	tf->iret_rsp = A(&mem.b[50]);
	tf->cs = 0x08;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_NOINFO &&
	           strstr(g_out, "  #1  0x0000000000100200 ?? (exception)\n"
	                         "  #2  0x0000000000100088 g+0x8/0x10 (interrupted)\n"
	                         "backtrace: 3 frames, stopped: no unwind info for this PC (SFU_E_NOINFO)\n") != NULL,
	       "%s; output:\n%.400s", E(err), g_out);
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
		sfu_dump_regs(&dump, &r);
		EXPECT(strstr(g_out, "  #0  0x0000000000100010 ??\n") != NULL, "output:\n%.400s", g_out);
	}
	setup();
	memcpy((char *)&g_syms.t.sym[2], "fgh\0", 4);
	g_syms.t.names = 3; /* "fgh" without its NUL */
	{
		sfu_regs r = chain(10);
		sfu_dump_regs(&dump, &r);
		EXPECT(strstr(g_out, "  #0  0x0000000000100010 fgh+0x10/0x40\n") != NULL, "output:\n%.400s", g_out);
		g_syms.t.sym[0].name = 1; /* "gh", 2 bytes of pool left */
		reset();
		sfu_dump_regs(&dump, &r);
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

	/* The stop line of every code: the core's text and name (one table,
	 * sfu_strerror / sfu_errname), and "?" for a code that is none. */
	begin();
	EXPECT(strcmp(sfu_errname(SFU_END), "SFU_END") == 0 && strcmp(sfu_errname(SFU_E_DESC), "SFU_E_DESC") == 0 &&
	           strcmp(sfu_strerror(SFU_END_USER), "interrupted code ran at a lower privilege level") == 0 &&
	           strcmp(sfu_errname(999), "?") == 0 && strcmp(sfu_strerror(-1), "?") == 0,
	       "names and texts: %s %s %s", sfu_errname(SFU_E_DESC), sfu_errname(999), sfu_strerror(-1));
	{
		char want[256];
		int e;
		for (e = -1; e <= SFU_ERROR_COUNT; e++) {
			reset();
			sfu_dump_stop(&dump, 3, e);
			snprintf(want, sizeof want, "backtrace: 3 frames, stopped: %s (%s)\n", sfu_strerror(e), sfu_errname(e));
			EXPECT(strcmp(g_out, want) == 0 && (e < 0 || e >= SFU_ERROR_COUNT || strcmp(sfu_errname(e), "?") != 0),
			       "code %d: %.200s", e, g_out);
		}
	}
	end("unit dump errors: every code's stop line gives the core's text and its enum's name");
}

/* ---- the description's check ------------------------------------------- */

/* Two trap layouts of the examples' frame (call sites nobody reaches
 * here), and two stacks: a description that passes the check. */
static const void *const check_sites[] = { (const void *)0x100200 };
static struct sfu_trap_layout g_traps[2];
static sfu_stack g_stacks[2];

static void setup_full(void)
{
	const struct sfu_trap_layout l = X86_TRAP_LAYOUT(check_sites);

	table_setup();
	g_traps[0] = g_traps[1] = l;
	dump.traps = g_traps;
	dump.ntraps = 2;
	dump.trap = sfu_port_trap;
	dump.trap_check = sfu_layout_check;
	g_stacks[0].lo = A(mem.a);
	g_stacks[0].hi = A(mem.a + 64);
	g_stacks[1].lo = A(mem.b);
	g_stacks[1].hi = A(mem.b + 64);
	dump.stacks = g_stacks;
	dump.nstacks = 2;
	dump.threads = &tcb_table;
}

/* Each rule of the description, the sections aside, broken once. */
static const struct sfu_dump_table empty_table = { SFU_DUMP_ARRAY(struct tcb, tcbs, 0), TCB_THREAD,
	                                           SFU_DUMP_STACKS(struct tcb, lo, hi) };
static const struct rule_case desc_rules[] = {
	{ "no output hook", "output", NO_INDEX, "no write or putc" },
	{ "no sections", "sframe", NO_INDEX, "none, or sframe_end below it" },
	{ "a span that ends before it starts", "sframe", NO_INDEX, "sframe_end below it" },
	{ "a code range that ends where it starts", "text", NO_INDEX, "text_end not above text" },
	{ "no RAM and an empty linker RAM", "ram", NO_INDEX, "none (ram, or an empty linker_ram)" },
	{ "an empty RAM range", "ram", 1, "start not below end" },
	{ "traps without the trap callback", "traps", NO_INDEX, "traps without trap and trap_check" },
	{ "traps without trap_check", "traps", NO_INDEX, "traps without trap and trap_check" },
	{ "ntraps without traps", "traps", NO_INDEX, "traps without trap and trap_check" },
	{ "a trap layout's pc a bare offset", "traps", 1, "regs.pc: not SFU_AT(a multiple of 8)" },
	{ "a trap layout without a call site", "traps", 0, "call: no call site" },
	{ "nstacks without stacks", "stacks", NO_INDEX, "missing, and nstacks is not 0" },
	{ "an empty stack", "stacks", 1, "lo not below hi" },
	{ "a thread table that breaks a rule", "threads", NO_INDEX, "count: 0" },
};

static void break_desc(size_t i)
{
	switch (i) {
	case 0: dump.write = NULL; break;
	case 1: dump.sframe = dump.sframe_end = NULL; break;
	case 2: dump.sframe_end = dump.sframe - 8; break;
	case 3: dump.text = dump.text_end = (const char *)(uintptr_t)0x100000; break;
	case 4: dump.ram = NULL; break;
	case 5: g_ram[1].end = g_ram[1].start; break;
	case 6: dump.trap = NULL; break;
	case 7: dump.trap_check = NULL; break;
	case 8: dump.traps = NULL; break;
	case 9: g_traps[1].regs.pc = X86_TF_RIP; break;
	case 10: g_traps[0].call.sites = NULL; break;
	case 11: dump.stacks = NULL; break;
	case 12: g_stacks[1].hi = g_stacks[1].lo; break;
	case 13: dump.threads = &empty_table; break;
	}
}

/* The stop line of a dump the check refused. */
static const char desc_stop[] = "backtrace: 0 frames, stopped: the description breaks a rule (SFU_E_DESC)\n";

UT_CASE(test_dump_check)
{
	struct sfu_dump_why why;
	char line[300], want[400];
	sfu_regs r;
	size_t i;
	int err;

	begin();
	setup_full();
	memset(&why, 0x55, sizeof why);
	err = sfu_dump_check(&dump, &why);
	EXPECT(err == SFU_OK && why.part == NULL && why.rule == NULL && g_state.nsecs == 1 && g_state.secs[0].num_fdes == 2,
	       "the whole description: %s, %s: %s", E(err), why.part ? why.part : "-", why.rule ? why.rule : "-");
	/* The answer is kept in the state: a change after it is not seen
	 * until the state is zeroed. */
	dump.trap_check = NULL;
	EXPECT(sfu_dump_check(&dump, NULL) == SFU_OK, "the kept answer was not used");
	memset(&g_state, 0, sizeof g_state);
	EXPECT(sfu_dump_check(&dump, NULL) == SFU_E_DESC, "a zeroed state did not check again");
	EXPECT(sfu_dump_check(NULL, &why) == SFU_E_ARG, "no description");
	dump.state = NULL;
	EXPECT(sfu_dump_check(&dump, &why) == SFU_E_ARG, "no state");
	end("unit dump check: the whole description passes (traps, stacks, table, section split), the answer kept in "
	    "the state until it is zeroed");

	for (i = 0; i < sizeof desc_rules / sizeof desc_rules[0]; i++) {
		begin();
		setup_full();
		dump.nram = 2;
		break_desc(i);
		r = chain(10);
		expect_refused(&desc_rules[i], line, sizeof line);
		err = sfu_dump_regs(&dump, &r);
		snprintf(want, sizeof want, "backtrace:\n%s%s", line, desc_stop);
		if (dump.write == NULL)
			EXPECT(err == SFU_E_DESC && g_calls == 0, "%s: %s, %zu calls", desc_rules[i].what, E(err), g_calls);
		else
			EXPECT(err == SFU_E_DESC && strcmp(g_out, want) == 0, "%s: %s; output:\n%.200s\nwanted:\n%.200s",
			       desc_rules[i].what, E(err), g_out, want);
		end_rule_case("unit dump check", &desc_rules[i], "the dump says so, no walk");
	}

	/* A section the split refuses: its error, at "sframe", its text. */
	begin();
	setup();
	g_sec[0] ^= 1; /* the magic */
	memset(&why, 0, sizeof why);
	err = sfu_dump_check(&dump, &why);
	EXPECT(err == SFU_E_MAGIC && why.part != NULL && strcmp(why.part, "sframe") == 0 && why.rule != NULL &&
	           strcmp(why.rule, sfu_strerror(SFU_E_MAGIC)) == 0,
	       "a bad section: %s, %s: %s", E(err), why.part ? why.part : "-", why.rule ? why.rule : "-");
	end("unit dump check: a section the split refuses gives its own error and text, at sframe");
}

/* ---- a refused description reads nothing ------------------------------- */

/* An iterator and a name hook that count their calls. */
static unsigned g_next_calls, g_name_calls;
static bool next_none(void *arg, size_t i, struct sfu_dump_thread *t)
{
	(void)arg;
	(void)i;
	(void)t;
	g_next_calls++;
	return false;
}

static const char *count_name(const struct sfu_dump *d, uint64_t addr, uint64_t *start, uint64_t *size)
{
	(void)d;
	(void)addr;
	(void)start;
	(void)size;
	g_name_calls++;
	return NULL;
}

static const char *const entry_names[] = { "sfu_dump_stack", "sfu_dump_regs", "sfu_dump_trap",
	                                   "sfu_dump_trap (layout NULL)", "sfu_dump_threads", "sfu_dump_threads_iter" };
#define NENTRIES (sizeof entry_names / sizeof entry_names[0])

/* Entry point k on the description `dump`: from r, from a trap frame at
 * frame (layout l, or NULL), every thread, the iterator next_none. */
static int run_entry(size_t k, const sfu_regs *r, const struct sfu_trap_layout *l, uint64_t frame)
{
	switch (k) {
	case 0: return sfu_dump_stack(&dump);
	case 1: return sfu_dump_regs(&dump, r);
	case 2: return sfu_dump_trap(&dump, l, frame);
	case 3: return sfu_dump_trap(&dump, NULL, frame);
	case 4: return sfu_dump_threads(&dump);
	default: return sfu_dump_threads_iter(&dump, next_none, NULL);
	}
}

/* One page holding everything the description's dumps could read (a
 * trap frame, stacks, the thread structs), with no access while a dump
 * of a description the check refuses runs: a read faults, and the fault
 * is caught and counted. */
static sigjmp_buf g_jmp;
static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(g_jmp, 1);
}

static int guarded_entry(size_t k, void *page, const sfu_regs *r, const struct sfu_trap_layout *l, uint64_t frame,
                         bool *faulted)
{
	struct sigaction sa, old;
	volatile int err = -1;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	*faulted = false;
	mprotect(page, 4096, PROT_NONE);
	if (sigsetjmp(g_jmp, 1) == 0)
		err = run_entry(k, r, l, frame);
	else
		*faulted = true;
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	sigaction(SIGSEGV, &old, NULL);
	return err;
}

UT_CASE(test_refused_reads_nothing)
{
	static struct sfu_dump_table table;
	static struct tcb *cur;
	uint64_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct tcb *pt = (struct tcb *)(void *)(page + 128);
	struct x86_trap_frame *tf = (struct x86_trap_frame *)(void *)page;
	char name[200], line[300], want[400];
	sfu_regs r = { 0x100010, 0, 0, 0, NULL, 0, NULL };
	const size_t nrules = sizeof desc_rules / sizeof desc_rules[0];
	size_t k, i;
	bool faulted;
	int err;

	for (k = 0; k < NENTRIES; k++) {
		begin();
		EXPECT(page != MAP_FAILED, "mmap");
		if (page == MAP_FAILED) {
			end("unit dump refused: no page to guard");
			return;
		}
		/* Each rule broken, then (i == nrules) none: the control, whose
		 * dump must read the page and fault, or the guard proves
		 * nothing. */
		for (i = 0; i <= nrules; i++) {
			/* Everything readable and described: the trap frame at the
			 * page's start, a chain at word 40, a saved context at 64,
			 * two threads at 128 (the running one first). */
			memset(page, 0, 4096);
			tf->iret_rip = 0x100010;
			tf->iret_rsp = A(&page[40]);
			tf->cs = 0x08;
			page[40] = 0x1234;
			page[41] = 0x100020;
			page[69] = 0xfeed;
			page[70] = 0x100010;
			pt[0].state = pt[1].state = 2;
			pt[0].lo = pt[1].lo = A(page);
			pt[0].hi = pt[1].hi = A(page + 512);
			pt[1].ctx = A(&page[64]);
			cur = &pt[0];
			r.sp = A(&page[40]);
			setup_full();
			table = tcb_table;
			table.array = pt;
			table.count = 2;
			table.current = &cur;
			dump.threads = &table;
			g_ram[0].start = A(page);
			g_ram[0].end = A(page + 512);
			dump.nram = 2;
			g_ram[1].start = A(mem.a);
			g_ram[1].end = A(mem.a + 1);
			dump.frame = frame_hook;
			dump.name = count_name;
			if (i == nrules) {
				EXPECT(sfu_dump_check(&dump, NULL) == SFU_OK, "the control does not pass the check");
				memset(&g_state, 0, sizeof g_state);
				(void)guarded_entry(k, page, &r, &g_traps[0], A(tf), &faulted);
				EXPECT(faulted, "the control: %s read nothing of the page", entry_names[k]);
				continue;
			}
			break_desc(i);
			expect_refused(&desc_rules[i], line, sizeof line);
			memset(&g_state, 0, sizeof g_state); /* each entry point checks for itself */
			reset();
			snprintf(want, sizeof want, "%s%s%s", k < 4 ? "backtrace:\n" : "threads:\n", line, k < 4 ? desc_stop : "");
			g_hook_n = g_next_calls = g_name_calls = 0;
			err = guarded_entry(k, page, &r, &g_traps[0], A(tf), &faulted);
			EXPECT(!faulted, "%s: %s faulted (a read of the description's memory, or worse); output:\n%.300s",
			       desc_rules[i].what, entry_names[k], g_out);
			EXPECT(faulted || (err == SFU_E_DESC && (dump.write == NULL ? g_calls == 0 : strcmp(g_out, want) == 0)),
			       "%s: %s; output:\n%.200s\nwanted:\n%.200s", desc_rules[i].what, E(err), g_out, want);
			EXPECT(g_hook_n == 0 && g_name_calls == 0 && g_next_calls == 0, "%s: a hook or the iterator was called",
			       desc_rules[i].what);
		}
		snprintf(name, sizeof name, "unit dump refused: %s of a description the check refuses prints why and "
		         "0 frames (SFU_E_DESC), reads nothing, calls no hook", entry_names[k]);
		end(name);
	}
	munmap(page, 4096);
}

/* ---- more sections than the state holds -------------------------------- */

UT_CASE(test_sections_full)
{
	static uint64_t span[1536];
	struct sfu_dump_why why;
	size_t off = 0, first = 0;
	sfu_regs r;
	unsigned k;
	int err;

	begin();
	setup();
	/* Three sections back to back (lld's span), each for where it lies:
	 * the fixture's, and two more functions each. */
	for (k = 0; k < 3; k++) {
		off += emit_section((uint8_t *)span + off, sizeof span - off, 0x100000 + 0x1000u * k);
		off = (off + 7) & ~(size_t)7;
		if (k == 0)
			first = off;
	}
	r = chain(10);
	dump.sframe = (const char *)span;
	dump.sframe_end = (const char *)span + off;
	memset(&why, 0, sizeof why);
	err = sfu_dump_check(&dump, &why);
	EXPECT(sizeof g_state.secs / sizeof g_state.secs[0] == 1, "SFU_DUMP_SECTIONS is not 1 by default");
	EXPECT(err == SFU_E_FULL && g_state.nsecs == 3 && why.part && strcmp(why.part, "sframe") == 0 && why.rule &&
	           strcmp(why.rule, "more sections than SFU_DUMP_SECTIONS") == 0,
	       "check: %s, %zu found, %s: %s", E(err), g_state.nsecs, why.part ? why.part : "-", why.rule ? why.rule : "-");
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_FULL && strcmp(g_out, "backtrace:\n"
	                                          "  .sframe refused, no walk: more sections than SFU_DUMP_SECTIONS (3 found)\n"
	                                          "backtrace: 0 frames, stopped: output buffer full (SFU_E_FULL)\n") == 0,
	       "dump: %s; output:\n%.400s", E(err), g_out);
	/* The first section alone fits, and is walked. */
	reset();
	memset(&g_state, 0, sizeof g_state);
	dump.sframe_end = (const char *)span + first;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0 && g_state.nsecs == 1, "one section: %s; output:\n%.400s",
	       E(err), g_out);
	end("unit dump sections: a span of 3 sections with SFU_DUMP_SECTIONS 1 is refused (SFU_E_FULL), the line says "
	    "how many were found; one section walks");
}

/* ---- the initializers -------------------------------------------------- */

int main(void);

static const struct sfu_trap_layout one_layout[1] = { X86_TRAP_LAYOUT(check_sites) };
static struct sfu_dump_state istate;
static const struct sfu_port_range iram[1] = { { 0x1000, 0x2000 } };
static const struct sfu_dump init0 = SFU_DUMP_INIT(&istate, out, iram, 1, NULL, 0);
static const struct sfu_dump init1 = SFU_DUMP_INIT(&istate, out, iram, 1, one_layout, 1);
static const struct sfu_dump putc1 = SFU_DUMP_PUTC(&istate, put1, one_layout, 1);
static const struct sfu_dump traps0 = { SFU_DUMP_INIT_FIELDS(&istate, out, iram, 1, one_layout, 0), .nstacks = 0 };

UT_CASE(test_initializers)
{
	begin();
	EXPECT(init0.trap == NULL && init0.trap_check == NULL && init0.traps == NULL && init0.ntraps == 0,
	       "SFU_DUMP_INIT, ntraps 0: a trap callback or check");
	EXPECT(pdump.trap == NULL && pdump.trap_check == NULL && pdump.traps == NULL && pdump.ntraps == 0,
	       "SFU_DUMP_PUTC, ntraps 0: a trap callback or check");
	EXPECT(traps0.trap == NULL && traps0.trap_check == NULL && traps0.ntraps == 0,
	       "SFU_DUMP_INIT_FIELDS with layouts, ntraps 0: a trap callback or check");
	EXPECT(init1.trap == sfu_port_trap && init1.trap_check == sfu_layout_check && init1.traps == one_layout &&
	           init1.ntraps == 1 && putc1.trap == sfu_port_trap && putc1.trap_check == sfu_layout_check &&
	           putc1.ntraps == 1,
	       "ntraps 1: not sfu_port_trap and sfu_layout_check");
	EXPECT(init0.state == &istate && init0.write == out && init0.putc == NULL && init0.ram == iram && init0.nram == 1 &&
	           init0.sframe == NULL && init0.threads == NULL && init0.stacks == NULL && init0.symtab == &sfu__dump_symtab,
	       "SFU_DUMP_INIT's other fields");
	EXPECT((uintptr_t)init0.text == (uintptr_t)main && init0.text_end == init0.text + 1 && putc1.text == init0.text,
	       "SFU_DUMP_LINKER_TEXT: not the linker's code range");
	end("unit dump initializers: SFU_DUMP_INIT and SFU_DUMP_PUTC with ntraps 0 leave trap and trap_check NULL, "
	    "with layouts give sfu_port_trap and sfu_layout_check");
}

/* ---- sfu_dump_trap without a layout: the variant that matches ---------- */

UT_CASE(test_trap_variant)
{
	const struct sfu_trap_layout base = X86_TRAP_LAYOUT(check_sites);
	static struct sfu_trap_layout v[2];
	struct x86_trap_frame *tf = (struct x86_trap_frame *)(void *)&mem.b[0];
	int err;

	/* Variant 1 (pad word 1) keeps its PC where variant 0 has cr2; pad
	 * 2 is neither. */
	v[0] = v[1] = base;
	v[0].select.at = v[1].select.at = SFU_AT(X86_TF_PAD);
	v[0].select.mask = v[1].select.mask = 3;
	v[1].select.value = 1;
	v[1].regs.pc = SFU_AT(X86_TF_CR2);

	begin();
	setup();
	memset(&mem, 0, sizeof mem);
	dump.traps = v;
	dump.ntraps = 2;
	dump.trap = sfu_port_trap;
	dump.trap_check = sfu_layout_check;
	tf->iret_rip = 0x100010;
	tf->cr2 = 0x100088;
	tf->iret_rsp = A(&mem.b[40]);
	tf->cs = 0x08;
	tf->vector = 0x20; /* an interrupt's frame: no cause line */
	mem.b[40] = 0x1234;
	mem.b[41] = 0x100020;
	err = sfu_dump_trap(&dump, NULL, A(tf));
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0, "pad 0: %s; output:\n%.400s", E(err), g_out);
	reset();
	tf->pad = 1;
	err = sfu_dump_trap(&dump, NULL, A(tf));
	EXPECT(err == SFU_E_NOINFO && strcmp(g_out, "backtrace:\n"
	                                            "  #0  0x0000000000100088 g+0x8/0x10\n"
	                                            "backtrace: 1 frame, stopped: no unwind info for this PC (SFU_E_NOINFO)\n") == 0,
	       "pad 1: %s; output:\n%.400s", E(err), g_out);
	/* The matching one, not the first: the same with the order turned. */
	reset();
	memset(&g_state, 0, sizeof g_state);
	v[0] = v[1];
	v[1] = base;
	v[1].select.at = SFU_AT(X86_TF_PAD);
	v[1].select.mask = 3;
	tf->pad = 0;
	err = sfu_dump_trap(&dump, NULL, A(tf));
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0, "pad 0, its layout second: %s; output:\n%.400s", E(err),
	       g_out);
	reset();
	tf->pad = 2;
	err = sfu_dump_trap(&dump, NULL, A(tf));
	EXPECT(err == SFU_E_READ && strstr(g_out, ": memory read refused\nbacktrace:\nbacktrace: 0 frames"),
	       "no variant: %s; output:\n%.400s", E(err), g_out);
	end("unit dump trap: with layout NULL, the first of the description's layouts whose variant matches the frame "
	    "reads it; none matching is SFU_E_READ");
}

/* ---- one dump at a time, per state ------------------------------------- */

UT_CASE(test_busy)
{
	static const char busy[] = "dump refused: another dump is under way on this struct sfu_dump_state\n";
	static const void *const sites[] = { (const void *)0x100100 };
	static const struct sfu_trap_layout l = X86_TRAP_LAYOUT(sites);
	struct sfu_dump_state other;
	struct sfu_dump d2;
	sfu_regs r;
	size_t k;
	int err;

	begin();
	table_setup();
	tcb_good(0, "worker", 7);
	dump.threads = &tcb_table;
	r = chain(10);
	g_state.busy = 1; /* as in a handler that interrupted a dump on it */
	for (k = 0; k < NENTRIES; k++) {
		reset();
		g_next_calls = 0;
		err = run_entry(k, &r, &l, A(&mem.b[0]));
		EXPECT(err == SFU_E_ARG && strcmp(g_out, busy) == 0 && g_next_calls == 0, "%s: %s; output:\n%.300s",
		       entry_names[k], E(err), g_out);
		EXPECT(g_state.busy == 1, "%s cleared the interrupted dump's flag", entry_names[k]);
	}
	/* The flag is the state's: another description on it is refused, the
	 * same description on a state of its own dumps. */
	d2 = dump;
	reset();
	EXPECT(sfu_dump_regs(&d2, &r) == SFU_E_ARG && strcmp(g_out, busy) == 0, "another description, the same state");
	memset(&other, 0, sizeof other);
	d2.state = &other;
	reset();
	err = sfu_dump_regs(&d2, &r);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0 && other.busy == 0, "its own state: %s; output:\n%.300s",
	       E(err), g_out);
	g_state.busy = 0;
	end("unit dump busy: every entry point refuses a state with a dump under way, with the line, SFU_E_ARG, "
	    "and leaves its flag set; another state dumps");
}

UT_CASE(test_threads_no_table)
{
	sfu_regs r;
	int err;

	begin();
	setup();
	r = chain(10);
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_E_ARG && strcmp(g_out, "threads: none described (no .threads in the description)\n") == 0,
	       "%s; output:\n%.300s", E(err), g_out);
	reset();
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0, "the next dump: %s", E(err));
	end("unit dump threads: without .threads, sfu_dump_threads says so in a line and returns SFU_E_ARG");
}

/* ---- where a trace ends, in a dump ------------------------------------------ */

/* With the default top (0: the caller SP exactly at the stack's top), a
 * zero in the middle of a stack is no end: the dump says so; at the
 * stack's top it is; a function named in
 * .entries ends the trace there; an entry that is no function's first
 * byte is refused by the check. */
UT_CASE(test_end_rule)
{
	static uint64_t entries[1];
	sfu_regs r;
	struct sfu_dump_why why;
	int err;

	begin();
	setup();
	dump.top = 0;
	r = chain(10);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_ZERO_RA && strncmp(g_out, two_frames, 80) == 0 &&
	           strstr(g_out, "backtrace: 2 frames, stopped: return address 0 inside the stack (SFU_E_ZERO_RA)\n"),
	       "a zero 0x190 bytes below the top: %s; output:\n%.200s", E(err), g_out);
	reset();
	memset(&g_state, 0, sizeof g_state);
	r = chain(60);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strcmp(g_out, two_frames) == 0, "the zero at the top: %s; output:\n%.200s", E(err), g_out);
	end("unit dump end: a return address of 0 mid-stack is an incomplete trace, at the stack's top the end");

	begin();
	setup();
	dump.top = 0;
	entries[0] = 0x100000;
	dump.entries = entries;
	dump.nentries = 1;
	r = chain(10);
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n"
	                                       "backtrace: 1 frame, stopped: outermost frame reached (SFU_END)\n"),
	       "f named an entry: %s; output:\n%.200s", E(err), g_out);
	setup();
	dump.top = 0;
	entries[0] = 0x100100;
	dump.entries = entries;
	dump.nentries = 1;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_ZERO_RA, "an entry the walk never meets: %s", E(err));
	end("unit dump end: a function named in .entries is the outermost frame");

	begin();
	setup();
	entries[0] = 0x100004;
	dump.entries = entries;
	dump.nentries = 1;
	err = sfu_dump_check(&dump, &why);
	EXPECT(err == SFU_E_DESC && strcmp(why.part, "entries") == 0 && why.index == 0 &&
	           strncmp(why.rule, "no function of the sections starts here", 39) == 0,
	       "an entry inside f: %s, %s[%zu]: %s", E(err), why.part ? why.part : "", why.index, why.rule ? why.rule : "");
	setup();
	entries[0] = 0;
	dump.entries = entries;
	dump.nentries = 1;
	err = sfu_dump_check(&dump, &why);
	EXPECT(err == SFU_E_DESC && strcmp(why.part, "entries") == 0 && why.index == 0 && strncmp(why.rule, "0:", 2) == 0,
	       "entry 0: %s, %s", E(err), why.rule ? why.rule : "");
	setup();
	dump.entries = NULL;
	dump.nentries = 2;
	err = sfu_dump_check(&dump, &why);
	EXPECT(err == SFU_E_DESC && strcmp(why.part, "entries") == 0 && strncmp(why.rule, "missing", 7) == 0,
	       "no entries, nentries 2: %s, %s", E(err), why.rule ? why.rule : "");
	end("unit dump end: the check refuses an entry that is no function's first byte, 0, or missing");
}

/* The description's .trap is the callback of every walk: the walk of a
 * dump of registers, of the caller's stack, of each thread of a table. */
static unsigned g_trap_calls;
static int counting_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	g_trap_calls++;
	return sfu_port_trap(ctx, pc, sp, out);
}

UT_CASE(test_trap_callback_everywhere)
{
	static const void *const sites[] = { (const void *)0x100200 };
	static const struct sfu_trap_layout l = X86_TRAP_LAYOUT(sites);
	struct x86_trap_frame *tf;
	sfu_regs r;
	int err;

	begin();
	table_setup();
	dump.traps = &l;
	dump.ntraps = 1;
	dump.trap = counting_trap;
	dump.trap_check = sfu_layout_check;
	r = chain(0);
	mem.b[1] = 0x100200;
	tf = (struct x86_trap_frame *)(void *)&mem.b[2];
	tf->iret_rip = 0x100088;
	tf->iret_rsp = A(&mem.b[50]);
	tf->cs = 0x08;
	g_trap_calls = 0;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_NOINFO && g_trap_calls >= 2 && strstr(g_out, "(interrupted)"), "sfu_dump_regs: %s, %u calls",
	       E(err), g_trap_calls);
	/* A trap dump whose walk meets the site again. */
	g_trap_calls = 0;
	reset();
	tf = (struct x86_trap_frame *)(void *)&mem.b[30];
	tf->iret_rip = 0x100010;
	tf->iret_rsp = A(&mem.b[0]);
	tf->cs = 0x08;
	err = sfu_dump_trap(&dump, &l, A(tf));
	EXPECT(g_trap_calls >= 1 && strstr(g_out, "  #1  0x0000000000100200 ?? (exception)"), "sfu_dump_trap: %s, %u calls",
	       E(err), g_trap_calls);
	/* A thread of the table whose walk meets the site. */
	g_trap_calls = 0;
	reset();
	tcbs[0].name = tcb_name(0, "t");
	tcbs[0].id = 1;
	tcbs[0].state = 2;
	tcbs[0].lo = A(mem.b);
	tcbs[0].hi = A(mem.b + 64);
	mem.b[40 + 5] = 0xfeed;
	mem.b[40 + 6] = 0x100010;
	mem.b[40 + 7] = 0x1234;
	mem.b[40 + 8] = 0x100200;
	tf = (struct x86_trap_frame *)(void *)&mem.b[40 + 9];
	tcbs[0].ctx = A(&mem.b[40]);
	dump.threads = &tcb_table;
	err = sfu_dump_threads(&dump);
	EXPECT(g_trap_calls >= 1 && strstr(g_out, "0x0000000000100200 ?? (exception)"), "sfu_dump_threads: %s, %u calls",
	       E(err), g_trap_calls);
	end("unit dump trap callback: the description's .trap is used by sfu_dump_regs, sfu_dump_trap and every "
	    "thread's walk");
}

/* ---- the thread table's other shapes ---------------------------------------- */

/* A kernel's thread struct with an inline name, the saved context kept in
 * it (r15 r14 r13 r12 rbx rbp, the SP, the PC: Linux's cpu_context in
 * x86_64 clothes), an embedded list node, a ring pointer and its stack's
 * top only. */
struct knode {
	struct knode *next, *prev;
};
struct ktask {
	uint64_t state;
	char name[12];
	uint32_t fp;
	struct knode node;
	struct ktask *ring;
	uint64_t ctx[8];
	uint64_t top;
	uint64_t base; /* the same stack by its base (Linux's task->stack) */
};
static struct {
	struct ktask t[3];
	struct knode ready, blocked; /* the lists' head nodes */
} kt;
static struct ktask *kptrs[4], *kring_head;
static const char *const k_states[] = { NULL, "ready", "blocked" };
static const struct sfu_switch_layout k_switch = {
	.size = 64, .align = 8, .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU_AT(48) },
	.regs = { .pc = SFU_AT(56), .reg = SFU_X86_64_SWITCH_REGS(32, 40, 24, 16, 8, 0) } };
static const struct sfu_dump_list k_lists[] = { { &kt.ready, "ready" }, { &kt.blocked, "blocked" } };

#define KTASK_THREAD                                          \
	SFU_DUMP_SAVED_IN(struct ktask, ctx, &k_switch),        \
	SFU_DUMP_NAME_IN(struct ktask, name),                   \
	.stacks = { SFU_DUMP_STACK_TOP(struct ktask, top, 64 * 8) }

/* Three tasks, each context resuming f at the chain on mem.b's top (its
 * zero return address at the stack's top), in RAM with the lists' head
 * nodes; the default top. */
static void ktask_setup(void)
{
	static const char *const names[3] = { "alpha", "beta-is-longer", "gamma" };
	unsigned k;

	setup();
	dump.top = 0;
	(void)chain(60);
	memset(&kt, 0, sizeof kt);
	for (k = 0; k < 3; k++) {
		memcpy(kt.t[k].name, names[k], strlen(names[k]) < sizeof kt.t[k].name ? strlen(names[k]) : sizeof kt.t[k].name);
		kt.t[k].state = 1 + (k & 1);
		kt.t[k].ctx[5] = 0xfeed;
		kt.t[k].ctx[6] = A(&mem.b[60]);
		kt.t[k].ctx[7] = 0x100010;
		kt.t[k].top = A(mem.b + 64);
		kt.t[k].base = A(mem.b);
	}
	g_ram[1].start = A(&kt);
	g_ram[1].end = A(&kt + 1);
	dump.nram = 2;
}

/* The header names of a dump's threads, in order, and how many ended
 * complete. */
static void thread_names(char *buf, size_t n, unsigned *complete)
{
	const char *p = g_out, *e;
	size_t len = 0;

	*complete = 0;
	buf[0] = 0;
	while ((p = strstr(p, "thread ")) != NULL) {
		if (p != g_out && p[-1] != '\n') {
			p++;
			continue;
		}
		p += 7;
		if (strncmp(p, "table:", 6) == 0)
			continue;
		e = strchr(p, ':');
		if (e == NULL)
			break;
		if (len + (size_t)(e - p) + 2 < n) {
			memcpy(buf + len, p, (size_t)(e - p));
			len += (size_t)(e - p);
			buf[len++] = ';';
			buf[len] = 0;
		}
	}
	for (p = g_out; (p = strstr(p, "(SFU_END)\n")) != NULL; p++)
		(*complete)++;
}

UT_CASE(test_table_shapes)
{
	char names[256];
	unsigned complete;
	int err;

	begin();
	ktask_setup();
	{
		static const struct sfu_dump_table t = {
			SFU_DUMP_PTRS(struct ktask, kptrs, 4),
			KTASK_THREAD,
			SFU_DUMP_STATE(struct ktask, state, k_states),
		};
		kptrs[0] = &kt.t[0];
		kptrs[1] = NULL;
		kptrs[2] = &kt.t[1];
		kptrs[3] = NULL;
		dump.threads = &t;
		err = sfu_dump_threads(&dump);
	}
	thread_names(names, sizeof names, &complete);
	EXPECT(err == SFU_END && strcmp(names, "alpha;beta-is-long;") == 0 && complete == 2 &&
	           strstr(g_out, "thread alpha: ready, stack ") && strstr(g_out, "thread beta-is-long: blocked, stack "),
	       "%s, threads %s, %u complete; output:\n%.200s", E(err), names, complete, g_out);
	{
		char want[160];
		snprintf(want, sizeof want, "  saved context at 0x%016llx: pc 0x0000000000100010 sp 0x%016llx\n",
		         (unsigned long long)A(kt.t[0].ctx), (unsigned long long)A(&mem.b[60]));
		EXPECT(strstr(g_out, want) != NULL, "the context in the struct, the SP saved there:\n%.200s", g_out);
		snprintf(want, sizeof want, "stack 0x%016llx .. 0x%016llx\n", (unsigned long long)A(mem.b),
		         (unsigned long long)A(mem.b + 64));
		EXPECT(strstr(g_out, want) != NULL, "the stack from its top and size:\n%.200s", g_out);
	}
	end("unit dump thread table: an array of pointers (free slots skipped), no id (none shown), a name kept in the "
	    "struct (its N bytes at most), the context kept in the struct outside the stack, a stack by its top");

	begin();
	ktask_setup();
	{
		static const struct sfu_dump_table t = {
			SFU_DUMP_RING(struct ktask, &kring_head, ring),
			KTASK_THREAD,
			SFU_DUMP_STATE(struct ktask, state, k_states),
		};
		kt.t[0].ring = &kt.t[1];
		kt.t[1].ring = &kt.t[2];
		kt.t[2].ring = &kt.t[0];
		kring_head = &kt.t[1];
		dump.threads = &t;
		err = sfu_dump_threads(&dump);
	}
	thread_names(names, sizeof names, &complete);
	EXPECT(err == SFU_END && strcmp(names, "beta-is-long;gamma;alpha;") == 0 && complete == 3 &&
	           !strstr(g_out, "more than"),
	       "%s, threads %s, %u complete; output:\n%.200s", E(err), names, complete, g_out);
	end("unit dump thread table: a ring from its head, each thread once, no count to keep");

	begin();
	ktask_setup();
	{
		static const struct sfu_dump_table t = {
			SFU_DUMP_RING(struct ktask, &kring_head, ring),
			KTASK_THREAD,
			.count = 3,
		};
		kt.t[0].ring = &kt.t[1];
		kt.t[1].ring = &kt.t[1]; /* a loop that never comes back to the first */
		kring_head = &kt.t[0];
		dump.threads = &t;
		err = sfu_dump_threads(&dump);
	}
	thread_names(names, sizeof names, &complete);
	EXPECT(strcmp(names, "alpha;beta-is-long;beta-is-long;") == 0 &&
	           strstr(g_out, "thread table: more than 3 threads (count, SFU_DUMP_MAX_THREADS), or a loop in the list\n"),
	       "%s, threads %s; output:\n%.200s", E(err), names, g_out);
	end("unit dump thread table: a ring that does not come back ends at count, and says so");

	begin();
	ktask_setup();
	{
		static const struct sfu_dump_table t = {
			SFU_DUMP_LISTS(struct ktask, node, node.next, k_lists),
			KTASK_THREAD,
		};
		/* ready: head -> t0 -> t2 -> head; blocked: head -> t1 -> head. */
		kt.ready.next = &kt.t[0].node;
		kt.t[0].node.next = &kt.t[2].node;
		kt.t[2].node.next = &kt.ready;
		kt.blocked.next = &kt.t[1].node;
		kt.t[1].node.next = &kt.blocked;
		dump.threads = &t;
		err = sfu_dump_threads(&dump);
	}
	thread_names(names, sizeof names, &complete);
	EXPECT(err == SFU_END && strcmp(names, "alpha;gamma;beta-is-long;") == 0 && complete == 3 &&
	           strstr(g_out, "thread gamma: ready,") && strstr(g_out, "thread beta-is-long: blocked,"),
	       "%s, threads %s, %u complete; output:\n%.200s", E(err), names, complete, g_out);
	/* An empty list, and a node that cannot be read. */
	reset();
	kt.ready.next = &kt.ready;
	kt.t[1].node.next = (struct knode *)(uintptr_t)0x18;
	err = sfu_dump_threads(&dump);
	thread_names(names, sizeof names, &complete);
	EXPECT(err == SFU_E_READ && strcmp(names, "beta-is-long;") == 0 &&
	           strstr(g_out, "thread table: the thread at 0x0000000000000000 cannot be read\n"),
	       "%s, threads %s; output:\n%.200s", E(err), names, g_out);
	end("unit dump thread table: state lists through a node in each struct, each closed by its head node, the "
	    "list's state on each thread's line; an unreadable node ends the dump, said");
}

/* A stack by its base and the size every thread's has (Linux's
 * task->stack and THREAD_SIZE), and the functions stacks start in given
 * with SFU_DUMP_ENTRIES: each thread's trace ends at the entry, whatever
 * lies above it. */
UT_CASE(test_stack_base_entries)
{
	static const uint64_t ents[] = { 0x100000 }; /* f */
	static const struct sfu_dump with_entries = { SFU_DUMP_ENTRIES(ents) };
	static const struct sfu_dump_table t = {
		SFU_DUMP_PTRS(struct ktask, kptrs, 2),
		SFU_DUMP_SAVED_IN(struct ktask, ctx, &k_switch),
		SFU_DUMP_NAME_IN(struct ktask, name),
		.stacks = { SFU_DUMP_STACK_BASE(struct ktask, base, 64 * 8) },
	};
	char names[256], want[160];
	unsigned complete;
	int err;

	begin();
	ktask_setup();
	kptrs[0] = &kt.t[0];
	kptrs[1] = &kt.t[2];
	kt.t[0].top = kt.t[2].top = 0; /* (the base alone is read) */
	dump.threads = &t;
	dump.entries = with_entries.entries;
	dump.nentries = with_entries.nentries;
	err = sfu_dump_threads(&dump);
	thread_names(names, sizeof names, &complete);
	snprintf(want, sizeof want, "stack 0x%016llx .. 0x%016llx\n", (unsigned long long)A(mem.b),
	         (unsigned long long)A(mem.b + 64));
	EXPECT(with_entries.nentries == 1 && err == SFU_END && strcmp(names, "alpha;gamma;") == 0 && complete == 2 &&
	           strstr(g_out, want) && !strstr(g_out, "  #1 ") &&
	           strstr(g_out, "backtrace: 1 frame, stopped: outermost frame reached (SFU_END)\n"),
	       "%s, threads %s, %u complete; output:\n%.200s", E(err), names, complete, g_out);
	end("unit dump thread table: a stack by its base and a shared size (SFU_DUMP_STACK_BASE); SFU_DUMP_ENTRIES's "
	    "entry ends each thread's trace at its first frame");
}

/* A misread: a switch layout 8 bytes too large (a description that does
 * not fit the kernel's switch) takes the SP one word too high, where the
 * stack holds 0 below its top.  The walk stops there with SFU_E_ZERO_RA,
 * printed as an incomplete trace ("return address 0 inside the stack"),
 * never as "outermost frame reached"; the right layout's walk reaches the
 * zero the stack's start left at its top (SFU_END). */
UT_CASE(test_misread_zero_ra)
{
	static const struct sfu_switch_layout too_big = SFU_X86_64_SWITCH_PUSHED(64, 48, 32, 40, 24, 16, 8, 0);
	struct sfu_dump_table right = tcb_table, wrong = tcb_table;
	int err;

	wrong.layout = &too_big;
	begin();
	table_setup();
	dump.top = 0; /* the default: a zero return address ends a walk only at the top */
	tcb_good(0, "t", 1);
	/* f's frame above the context (rbp, RA into f), then f's outermost
	 * frame: its RA of 0 at b[50], its caller SP b[51], the stack's top. */
	tcbs[0].hi = A(mem.b + 51);
	dump.threads = &right;
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_END && strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n"
	                                       "  #1  0x0000000000100020 f+0x20/0x40\n"
	                                       "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"),
	       "the right layout: %s; output:\n%.300s", E(err), g_out);
	reset();
	memset(&g_state, 0, sizeof g_state);
	dump.threads = &wrong;
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_E_ZERO_RA && !SFU_COMPLETE(err) && strstr(g_out, "  #0  0x0000000000100010 f+0x10/0x40\n"
	                                                                   "backtrace: 1 frame, stopped: return address 0 "
	                                                                   "inside the stack (SFU_E_ZERO_RA)\n") &&
	           !strstr(g_out, "outermost"),
	       "the layout 8 bytes too large: %s; output:\n%.300s", E(err), g_out);
	end("unit dump misread: a switch layout that does not fit lands on a 0 return address mid-stack: SFU_E_ZERO_RA, "
	    "printed as incomplete");
}

/* A return address must follow a call: the dump reads the instruction
 * before it (the code in the description's RAM) and stops at a word that
 * follows none, SFU_E_NOT_CALL, the word's frame not shown; after a direct
 * or an indirect call the walk goes on; code it cannot read is not judged. */
static uint8_t g_code[0x200] __attribute__((aligned(16)));
static uint64_t g_code_sec[512];

UT_CASE(test_not_call)
{
	uint64_t fn = A(g_code);
	size_t len;
	sfu_regs r;
	int err;

	begin();
	setup();
	len = emit_section(g_code_sec, sizeof g_code_sec, fn);
	dump.sframe = (const char *)g_code_sec;
	dump.sframe_end = (const char *)g_code_sec + len;
	dump.symtab = NULL;
	g_ram[1].start = fn;
	g_ram[1].end = fn + sizeof g_code;
	dump.nram = 2;
	memset(g_code, 0x90, sizeof g_code); /* nops */
	r = chain(10);
	r.pc = fn + 0x10;
	mem.b[11] = fn + 0x25; /* the return address: into the same function */
	g_code[0x20] = 0xe8;   /* call rel32 */
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END && strstr(g_out, "backtrace: 2 frames, stopped: outermost frame reached (SFU_END)\n"),
	       "after a direct call: %s; output:\n%.300s", E(err), g_out);
	reset();
	memset(&g_state, 0, sizeof g_state);
	g_code[0x20] = 0x90;
	g_code[0x23] = 0xff; /* call *%rax */
	g_code[0x24] = 0xd0;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END, "after an indirect call: %s; output:\n%.300s", E(err), g_out);
	reset();
	memset(&g_state, 0, sizeof g_state);
	g_code[0x23] = g_code[0x24] = 0x90;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_E_NOT_CALL && !SFU_COMPLETE(err) &&
	           strstr(g_out, "backtrace: 1 frame, stopped: return address after no call instruction (SFU_E_NOT_CALL)\n"),
	       "after nops: %s; output:\n%.300s", E(err), g_out);
	/* The code outside the description's RAM: not judged. */
	reset();
	memset(&g_state, 0, sizeof g_state);
	dump.nram = 1;
	err = sfu_dump_regs(&dump, &r);
	EXPECT(err == SFU_END, "code not readable: %s; output:\n%.300s", E(err), g_out);
	end("unit dump not-call: a return address must follow a direct or an indirect call (SFU_E_NOT_CALL, the frame not "
	    "shown); code the description cannot read is not judged");
}

/* A thread whose saved context is all zeros: at its stack's top it never
 * ran (its whole dump, SFU_END_NEVER_RAN); anywhere else a misread
 * (SFU_E_ZERO_RA). */
UT_CASE(test_never_ran)
{
	int err;

	begin();
	table_setup();
	dump.top = 0;
	tcb_good(0, "fresh", 1);
	memset(&mem.b[40], 0, 24 * 8);
	tcbs[0].ctx = A(&mem.b[57]); /* 56 bytes up to the top */
	dump.threads = &tcb_table;
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_END_NEVER_RAN &&
	           strstr(g_out, ": zeroed at its stack's top: the thread never ran\nbacktrace:\nbacktrace: 0 frames, "
	                         "stopped: zeroed trap frame at the stack's top: never ran (SFU_END_NEVER_RAN)\n"),
	       "%s; output:\n%.200s", E(err), g_out);
	reset();
	memset(&g_state, 0, sizeof g_state);
	tcbs[0].ctx = A(&mem.b[40]);
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_E_ZERO_RA && strstr(g_out, ": zeroed, nothing was ever saved in it\n"),
	       "%s; output:\n%.200s", E(err), g_out);
	end("unit dump thread table: a zeroed saved context at the stack's top never ran, elsewhere is a misread");
}

/* A switch layout whose variants are chosen by a flag of the thread's
 * control block: each thread's walk reads its own. */
struct fptcb {
	const char *name; /* at nm (the dump reads names in its RAM) */
	char nm[8];
	uint64_t ctx;
	uint32_t fp_enable, pad;
	uint64_t lo, hi;
};
static struct fptcb fptcbs[2];
static struct fptcb *fp_current;

UT_CASE(test_thread_tcb_select)
{
	static const void *const sites[] = { (const void *)0x100100 };
	static struct sfu_trap_layout v[2];
	static struct sfu_switch_layout sl;
	static const struct sfu_dump_table t = {
		SFU_DUMP_ARRAY(struct fptcb, fptcbs, 2),
		SFU_DUMP_SAVED(struct fptcb, ctx, &sl),
		SFU_DUMP_NAME(struct fptcb, name),
		SFU_DUMP_STACKS(struct fptcb, lo, hi),
	};
	struct x86_trap_frame *f0 = (struct x86_trap_frame *)(void *)&mem.a[0];
	struct x86_trap_frame *f1 = (struct x86_trap_frame *)(void *)&mem.b[0];
	int err;

	begin();
	setup();
	dump.top = FIXTURE_TOP;
	memset(&mem, 0, sizeof mem);
	memset(fptcbs, 0, sizeof fptcbs);
	/* v[0]: an FP context first (0x20 bytes more), v[1] without; the flag
	 * is in the TCB, nothing in the frame says. */
	v[0] = (struct sfu_trap_layout)X86_TRAP_LAYOUT(sites);
	v[1] = v[0];
	v[0].frame.size = X86_TF_SIZE + 0x20;
	v[0].regs.pc = SFU_AT(X86_TF_RIP + 0x20);
	v[0].sp.at = SFU_AT(X86_TF_RSP + 0x20);
	v[0].regs.mode = SFU_AT(X86_TF_CS + 0x20);
	{
		unsigned i;
		for (i = 0; i < 17; i++)
			v[0].regs.reg[i] = SFU_AT(8 * i + 0x20);
	}
	v[0].select.from = v[1].select.from = SFU_SELECT_TCB;
	v[0].select.ref = v[1].select.ref = (const void *)&fp_current;
	v[0].select.at = v[1].select.at = SFU_AT(offsetof(struct fptcb, fp_enable));
	v[0].select.size = v[1].select.size = 4;
	v[0].select.mask = v[1].select.mask = 1;
	v[0].select.value = 1;
	v[1].select.value = 0;
	sl.traps = v;
	sl.ntraps = 2;
	/* Thread 0 with an FP context: its interrupted PC 0x20 further. */
	snprintf(fptcbs[0].nm, sizeof fptcbs[0].nm, "fp");
	fptcbs[0].name = fptcbs[0].nm;
	fptcbs[0].fp_enable = 1;
	fptcbs[0].ctx = A(f0);
	fptcbs[0].lo = A(mem.a);
	fptcbs[0].hi = A(mem.a + 64);
	mem.a[(X86_TF_RIP + 0x20) / 8] = 0x100010;
	mem.a[(X86_TF_RSP + 0x20) / 8] = A(&mem.a[60]);
	mem.a[(X86_TF_CS + 0x20) / 8] = 0x08;
	mem.a[(X86_TF_RIP) / 8] = 0x100030; /* what the short variant would read */
	mem.a[60] = 0x1234;
	mem.a[61] = 0x100020;
	snprintf(fptcbs[1].nm, sizeof fptcbs[1].nm, "int");
	fptcbs[1].name = fptcbs[1].nm;
	fptcbs[1].ctx = A(f1);
	fptcbs[1].lo = A(mem.b);
	fptcbs[1].hi = A(mem.b + 64);
	f1->iret_rip = 0x100010;
	f1->iret_rsp = A(&mem.b[60]);
	f1->cs = 0x08;
	mem.b[60] = 0x1234;
	mem.b[61] = 0x100020;
	fp_current = NULL; /* the running one's would be read through it */
	g_ram[1].start = A(fptcbs);
	g_ram[1].end = A(fptcbs + 2);
	dump.nram = 2;
	dump.threads = &t;
	err = sfu_dump_threads(&dump);
	EXPECT(err == SFU_END && strstr(g_out, "thread fp: ?") && strstr(g_out, "thread int: ?"), "%s; output:\n%.200s",
	       E(err), g_out);
	{
		char want[200];
		snprintf(want, sizeof want, "  saved context at 0x%016llx: pc 0x0000000000100010 sp 0x%016llx\n",
		         (unsigned long long)A(f0), (unsigned long long)A(&mem.a[60]));
		EXPECT(strstr(g_out, want) != NULL, "thread fp by its own flag:\n%.200s", g_out);
		snprintf(want, sizeof want, "  saved context at 0x%016llx: pc 0x0000000000100010 sp 0x%016llx\n",
		         (unsigned long long)A(f1), (unsigned long long)A(&mem.b[60]));
		EXPECT(strstr(g_out, want) != NULL, "thread int by its own flag:\n%.200s", g_out);
	}
	/* Without the FP variant and with the rule it breaks named: thread fp
	 * refused with it (SFU_E_DESC), never walked; thread int walked. */
	reset();
	memset(&g_state, 0, sizeof g_state);
	sl.traps = &v[1];
	sl.ntraps = 1;
	sl.unmatched = "fp_enable: set, and the description has no FP layout";
	err = sfu_dump_threads(&dump);
	{
		char want[200];
		snprintf(want, sizeof want, "  saved context at 0x%016llx: fp_enable: set, and the description has no FP "
		         "layout\nbacktrace:\nbacktrace: 0 frames, stopped: the description breaks a rule (SFU_E_DESC)\n",
		         (unsigned long long)A(f0));
		EXPECT(err == SFU_END && strstr(g_out, want) != NULL, "%s; the rule not named:\n%.400s", E(err), g_out);
	}
	sl.unmatched = NULL;
	(void)f0;
	end("unit dump thread table: a saved context's variant chosen by a flag of each thread's own control block; "
	    "one no variant matches refused with the layout's rule");
}

int main(void)
{
	return ut_main("unit");
}
