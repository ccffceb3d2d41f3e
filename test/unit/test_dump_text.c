/* SPDX-License-Identifier: MIT */
/* The dump's code range with SFU_DUMP_LINKER_TEXT 0 and its symbol
 * table with SFU_DUMP_SYMTAB 0.  The code range (SFU_DUMP_LINKER_TEXT 0, the default; the
 * knob makes the initializers take __text_start/__text_end): a
 * description that gives .text itself (the field says "NULL: no check")
 * is never walked as if it gave none.  Its functions are checked against
 * it (SFU_E_CODE_RANGE for one outside), or the check refuses the
 * description naming text; either way no walk.  test_dump.c has the
 * check built (the knob 1).  Built by test/unit/run.sh with -I core -I
 * port/x86_64 -I crash. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#define SFU_DUMP_LINKER_SFRAME 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_port_x86_64.h"
#include "sfu_dump.h"
#include "../common/sfb.h"

#include "ut.h"

static uint64_t A(const void *p) { return (uint64_t)(uintptr_t)p; }

static char g_out[1024];
static size_t g_len;
static void out(const char *s, size_t n)
{
	if (g_len + n < sizeof g_out) {
		memcpy(g_out + g_len, s, n);
		g_len += n;
		g_out[g_len] = 0;
	}
}

UT_CASE(test_text_by_hand)
{
	static const int32_t w[] = { 16, -16 };
	static uint64_t sec[256], stack[8] __attribute__((aligned(16)));
	static sfb_sec s;
	static struct sfu_dump_state state;
	struct sfu_port_range ram[1] = { { A(stack), A(stack + 8) } };
	struct sfu_dump d = SFU_DUMP_INIT(&state, out, ram, 1, NULL, 0);
	struct sfu_dump_why why;
	/* f at 0x100000 (after `push %rbp`), its caller f again, then RA 0. */
	sfu_regs r = { 0x100010, A(stack), 0, 0, NULL, 0, NULL };
	int err, err2;

	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.addr = A(sec);
	sfb_add_fre(sfb_add_fde(&s, 0x100000, 0x40), 0, 1, 1, 2, w);
	sfb_add_fre(sfb_add_fde(&s, 0x100100, 0x20), 0, 1, 1, 2, w);
	d.sframe = (const char *)sec;
	d.sframe_end = (const char *)sec + sfb_emit(&s, (uint8_t *)sec, sizeof sec);
	stack[0] = 0x1234;
	stack[1] = 0x100020;
	/* The second function lies outside the range given. */
	d.text = (const char *)(uintptr_t)0x100000;
	d.text_end = (const char *)(uintptr_t)0x100100;
	memset(&why, 0, sizeof why);
	err = sfu_dump_check(&d, &why);
	EXPECT(err == SFU_E_CODE_RANGE || (err == SFU_E_DESC && why.part != NULL && strcmp(why.part, "text") == 0),
	       "the check: %s (%s: %s), neither SFU_E_CODE_RANGE nor a refusal naming text", E(err),
	       why.part ? why.part : "-", why.rule ? why.rule : "-");
	err2 = sfu_dump_regs(&d, &r);
	EXPECT(err2 == err && strstr(g_out, "backtrace: 0 frames, stopped: ") != NULL && strstr(g_out, "  #0") == NULL,
	       "the dump: %s; output:\n%.300s", E(err2), g_out);
	end("unit dump text: with SFU_DUMP_LINKER_TEXT 0 a code range given by hand is checked or refused, never "
	    "ignored");

	/* A symbol table given with SFU_DUMP_SYMTAB 0 (no table read built):
	 * refused naming symtab, never a dump whose names silently vanish. */
	begin();
	d.text = d.text_end = NULL;
	d.symtab = (const struct sfu_symtab *)(const void *)stack;
	memset(&state, 0, sizeof state);
	g_len = 0;
	memset(&why, 0, sizeof why);
	err = sfu_dump_check(&d, &why);
	EXPECT(err == SFU_E_DESC && why.part != NULL && strcmp(why.part, "symtab") == 0 && why.rule != NULL &&
	           strstr(why.rule, "SFU_DUMP_SYMTAB") != NULL,
	       "the check: %s (%s: %s)", E(err), why.part ? why.part : "-", why.rule ? why.rule : "-");
	d.symtab = NULL;
	memset(&state, 0, sizeof state);
	err = sfu_dump_check(&d, &why);
	EXPECT(err == SFU_OK, "without it: %s", E(err));
	end("unit dump symtab: with SFU_DUMP_SYMTAB 0 a table given by hand is refused, never ignored");
}

int main(void)
{
	return ut_main("unit");
}
