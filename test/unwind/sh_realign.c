/* SPDX-License-Identifier: MIT */
/* sh_realign.c - over-aligned locals make the frame realign SP.  On x86_64
 * this file is built with -mstackrealign, and with alloca on top gcc keeps
 * the incoming SP in %r10 and the CFA as *(%rbp - 8) (DRAP).  SFrame V1/V2
 * cannot say that and GNU as drops such functions from .sframe; V3 uses
 * FLEX FDEs for them.  On aarch64 realignment goes through x29. */
#include "ut.h"

typedef int sh_v8 __attribute__((vector_size(32)));

UT_NOINLINE static void sh_realign_sink(volatile void *p)
{
	*(volatile char *)p = 1;
}

/* Realigned, no alloca. */
UT_NOINLINE static int sh_realign_aligned(int n)
{
	sh_v8 x __attribute__((aligned(64))) = { n };
	sh_realign_sink(&x);
	ut_hook(n);
	return x[0];
}

/* Realigned with alloca: DRAP on x86_64. */
UT_NOINLINE static int sh_realign_drap(int n)
{
	sh_v8 x[2] __attribute__((aligned(64)));
	char *p = __builtin_alloca((unsigned)(n & 63) + 1u);
	sh_realign_sink(p);
	sh_realign_sink(x);
	return sh_realign_aligned(n + p[0]) + x[0][0];
}

UT_NOINLINE int sh_realign_chain(int n)
{
	return sh_realign_drap(n) + 1;
}

/* A trap in the body of a DRAP function. */
UT_NOINLINE int sh_realign_trap(int n)
{
	sh_v8 x[2] __attribute__((aligned(64)));
	char *p = __builtin_alloca((unsigned)(n & 31) + 1u);
	sh_realign_sink(p);
	UT_TRAP();
	sh_realign_sink(x);
	return p[0] + x[1][0];
}
