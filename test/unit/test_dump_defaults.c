/* SPDX-License-Identifier: MIT */
/* The dump's defaults, where sfu_dump.h is the first sfu header a file
 * includes (as README step 1 has it): the knobs of core/sfu.h it sets
 * are the compiler's target's ABI and byte order only, and SFU_FLEX 0
 * (FLEX FDEs, V3 3.2, only where s390x is read).  A FLEX FDE then stops
 * the walk with the code whose text names the knob: never a row read
 * wrongly.  Built by test/unit/run.sh with -I core -I port -I crash; runs
 * on x86_64. */
#define SFU_IMPLEMENTATION
#define SFU_DUMP_LINKER_SFRAME 0
#include "sfu_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

UT_CASE(test_knobs)
{
	begin();
	EXPECT(SFU_AMD64 == 1 && SFU_AARCH64 == 0 && SFU_S390X == 0, "ABIs amd64 %d aarch64 %d s390x %d", SFU_AMD64,
	       SFU_AARCH64, SFU_S390X);
	EXPECT(SFU_LITTLE == 1 && SFU_BIG == 0, "byte orders little %d big %d", SFU_LITTLE, SFU_BIG);
	EXPECT(SFU_FLEX == 0, "SFU_FLEX %d", SFU_FLEX);
	EXPECT(SFU_ERROR_STRINGS == 1, "SFU_ERROR_STRINGS %d", SFU_ERROR_STRINGS);
	end("unit dump defaults: sfu_dump.h first: the target's ABI and byte order only, SFU_FLEX 0, error texts");
}

UT_CASE(test_flex)
{
	static const int32_t w[] = { 16, -16 };
	static uint64_t sec[256], stack[8] __attribute__((aligned(16)));
	static sfb_sec s;
	static struct sfu_dump_state state;
	struct sfu_port_range ram[1] = { { A(stack), A(stack + 8) } };
	struct sfu_dump d = SFU_DUMP_INIT(&state, out, ram, 1, NULL, 0);
	sfu_regs r = { 0x100010, A(stack), 0, 0, NULL, 0, NULL };
	sfb_fde *f;
	int err;

	begin();
	sfb_init(&s, 3, SFU_ABI_AMD64_LE);
	s.addr = A(sec);
	f = sfb_add_fde(&s, 0x100000, 0x40);
	f->flex = 1; /* its words a FLEX row's (CFA SP + 16 as a control/offset pair): never read; the PC given is frame #0, no caller */
	sfb_add_fre(f, 0, 1, 1, 2, w);
	d.sframe = (const char *)sec;
	d.sframe_end = (const char *)sec + sfb_emit(&s, (uint8_t *)sec, sizeof sec);
	stack[0] = 0x1234;
	stack[1] = 0x100020;
	err = sfu_dump_regs(&d, &r);
	EXPECT(err == SFU_E_FDE_TYPE &&
	           strstr(g_out, "  #0  0x0000000000100010 ") != NULL && strstr(g_out, "  #1") == NULL &&
	           strstr(g_out, "backtrace: 1 frame, stopped: unknown FDE type (FLEX with SFU_FLEX 0) (SFU_E_FDE_TYPE)\n") !=
	               NULL,
	       "%s; output (%zu):\n%.300s", E(err), g_len, g_out);
	end("unit dump flex: the dump's SFU_FLEX 0 stops a walk at a FLEX FDE, naming the knob, never a row read wrongly");
}

int main(void)
{
	return ut_main("unit");
}
