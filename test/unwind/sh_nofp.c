/* SPDX-License-Identifier: MIT */
/* sh_nofp.c - built with -fomit-frame-pointer (also at -O0): the CFA is
 * SP-based and moves with every push and SP adjustment. */
#include "ut.h"

UT_NOINLINE static int sh_nofp_c(int n, int a, int b, int c, int d, int e, int f, int g, int h)
{
	volatile int local[4];
	local[n & 3] = a + b + c + d + e + f + g + h; /* g, h on the stack (x86_64) */
	ut_hook(n);
	return local[n & 3];
}

UT_NOINLINE static int sh_nofp_b(int n)
{
	return sh_nofp_c(n, 1, 2, 3, 4, 5, 6, 7, 8) + sh_alloca(n);
}

UT_NOINLINE int sh_nofp_chain(int n)
{
	return sh_nofp_b(n + 1) - 1;
}
