/* SPDX-License-Identifier: MIT */
/* dump_fixture.h - what the dump's unit tests share (test_dump.c,
 * test_record.c): the output hook writing into one buffer, stacks and trap
 * frames in this process's memory, a section made by test/common/sfb.h
 * for the address it lies at, a symbol table, and a fresh description of
 * them with a zeroed state.  Include after sfu_threads.h, the x86_64
 * port, the examples' x86_64 trap frame and sfb.h. */
#ifndef DUMP_FIXTURE_H
#define DUMP_FIXTURE_H

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

/* ---- the output hook: everything into one buffer ------------------------ */

static char g_out[65536];
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

/* Where a and b first differ (for a failure's message). */
static __attribute__((unused)) size_t diff_at(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	return i;
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

/* One function at 0x100000 (0x40 bytes) after `push %rbp`: CFA = SP + 16,
 * RA at CFA - 8, FP at CFA - 16; and one at 0x100100 (0x20 bytes), no
 * symbol for it in the table below.  The section is made for the address
 * it lies at, so that the dump may split it from where it is. */
static uint64_t g_sec[512];
static size_t g_sec_len;

/* The two functions at fn and fn + 0x100, in a section at buf. */
static size_t emit_section(void *buf, size_t cap, uint64_t fn)
{
	static sfb_sec s;
	static const int32_t w[] = { 16, -16 };
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.addr = A(buf);
	sfb_add_fre(sfb_add_fde(&s, fn, 0x40), 0, 1, 1, 2, w);
	sfb_add_fre(sfb_add_fde(&s, fn + 0x100, 0x20), 0, 1, 1, 2, w);
	return sfb_emit(&s, (uint8_t *)buf, cap);
}

static void make_section(void)
{
	g_sec_len = emit_section(g_sec, sizeof g_sec, 0x100000);
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

/* The description of every case, and its state. */
static struct sfu_dump_state g_state;
static struct sfu_port_range g_ram[2];
static struct sfu_dump dump;

/* The table SFU_DUMP_SYMTAB's initializers point at (`sfu_symtab`, the
 * linker's in a firmware): an empty one here; the cases set .symtab. */
const struct { uint32_t magic, count, names, reserved; } sfu_symtab_empty __asm__("sfu_symtab") = { 0, 0, 0, 0 };

/* The fixture's stacks, mem.a and mem.b, whose outermost frames' return
 * addresses of 0 lie anywhere in them: the fixture's top is a whole
 * stack (the end rule itself: test_end_rule, with the default top). */
static sfu_stack g_dump_stacks[2];
#define FIXTURE_TOP ((uint32_t)sizeof mem.b)

/* A fresh dump of the fixture (its RAM: the stacks): SFU_DUMP_INIT with
 * no trap layouts, the section and the symbol table, the stacks, a zeroed
 * state. */
static void setup(void)
{
	const struct sfu_dump fresh = SFU_DUMP_INIT(&g_state, out, g_ram, 1, NULL, 0);

	make_section();
	make_symtab();
	memset(&g_state, 0, sizeof g_state);
	g_ram[0].start = A(&mem);
	g_ram[0].end = A(&mem) + sizeof mem;
	dump = fresh;
	dump.text = dump.text_end = NULL; /* the linker's is this program's own (below) */
	dump.sframe = (const char *)g_sec;
	dump.sframe_end = (const char *)g_sec + g_sec_len;
	dump.symtab = &g_syms.t;
	g_dump_stacks[0].lo = A(mem.a);
	g_dump_stacks[0].hi = A(mem.a + 64);
	g_dump_stacks[1].lo = A(mem.b);
	g_dump_stacks[1].hi = A(mem.b + 64);
	dump.stacks = g_dump_stacks;
	dump.nstacks = 2;
	dump.top = FIXTURE_TOP;
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

#endif
