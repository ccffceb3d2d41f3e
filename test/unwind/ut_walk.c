/* SPDX-License-Identifier: MIT */
/* ut_walk.c - the three unwinders, each filling a ut_trace: sfu (whose
 * implementation is compiled in this file), libgcc's _Unwind_Backtrace and,
 * on bookworm x86_64, libunwind. */
#define SFU_IMPLEMENTATION
#include "ut_harness.h"

sfu_host_mem ut_mem;
const sfu_host_mem *ut_memp = &ut_mem;
sfu_section ut_secs[SFU_HOST_MAX_SECTIONS];
size_t ut_nsecs;
unsigned ut_version;
ut_trace ut_s, ut_r;
#if UT_LIBUNWIND
ut_trace ut_l;
#endif

void ut_sfu_trace(const sfu_regs *r, ut_trace *t, uint32_t *traps)
{
	sfu_host_ctx ctx;
	sfu_port port;
	sfu_frame f[UT_MAXF];
	size_t n = 0, k;
	sfu_host_port(&port, &ctx, ut_memp);
	t->err = sfu_backtrace(ut_secs, ut_nsecs, &port, r, f, UT_MAXF, &n);
	for (k = 0; k < n; k++) {
		t->pc[k] = f[k].pc;
		t->sp[k] = f[k].sp;
		t->how[k] = f[k].how;
		t->exact[k] = k == 0 || f[k].how == SFU_HOW_TRAP;
	}
	t->n = (int)n;
	if (traps)
		*traps = ctx.traps;
}

/* libgcc: IP and CFA of each frame.  _Unwind_GetCFA of the context for
 * frame k is the CFA of frame k-1, i.e. frame k's SP (x86_64 and aarch64
 * both define the CFA as the caller's SP after the call). */
_Unwind_Reason_Code ut_gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
	ut_trace *t = (ut_trace *)arg;
	int before = 0;
	if (t->n == UT_MAXF)
		return _URC_END_OF_STACK;
	t->pc[t->n] = (uint64_t)_Unwind_GetIPInfo(ctx, &before);
	t->sp[t->n] = (uint64_t)_Unwind_GetCFA(ctx);
	t->exact[t->n] = (uint8_t)(before != 0);
	t->how[t->n] = 0;
	t->n++;
	return _URC_NO_REASON;
}

#if UT_LIBUNWIND
void ut_lu_walk(unw_cursor_t *cur, ut_trace *t)
{
	t->n = 0;
	do {
		unw_word_t ip = 0, sp = 0;
		if (unw_get_reg(cur, UNW_REG_IP, &ip) || unw_get_reg(cur, UNW_REG_SP, &sp))
			break;
		t->pc[t->n] = ip;
		t->sp[t->n] = sp;
		t->exact[t->n] = t->n == 0;
		t->n++;
	} while (t->n < UT_MAXF && unw_step(cur) > 0);
}
#endif
