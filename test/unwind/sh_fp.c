/* SPDX-License-Identifier: MIT */
/* sh_fp.c - built with -fno-omit-frame-pointer: every frame keeps the frame
 * pointer and the CFA is FP-based in the body. */
#include "ut.h"

UT_NOINLINE static int sh_fp_c(int n)
{
	volatile int local[6];
	local[n % 6] = n;
	ut_hook(n);
	return local[n % 6] + (int)(sh_leaf((unsigned long)n, 2) & 0xffffu);
}

UT_NOINLINE static int sh_fp_b(int n)
{
	return (int)((unsigned)sh_fp_c(n + 1) * 2u);
}

UT_NOINLINE int sh_fp_chain(int n)
{
	int r = sh_fp_b(n) + 1;
	r += sh_nofp_chain(n);
	return r;
}

/* A trap in a function with a frame pointer, between two calls (the hook
 * calls this one: it must not call the hook again). */
UT_NOINLINE int sh_fp_trap(int n)
{
	volatile int local[3];
	local[0] = (int)sh_leaf((unsigned long)n, 2);
	UT_TRAP();
	local[1] = (int)sh_leaf((unsigned long)n, 3);
	return (int)((unsigned)local[0] + (unsigned)local[1]);
}
