/* SPDX-License-Identifier: MIT */
/* sh_noret.c - a call to a noreturn function as the last instruction of
 * sh_noret_caller, with sh_noret_next laid out right after it (built with
 * -falign-functions=1 -fno-toplevel-reorder), so the return address pushed
 * by that call is the first byte of sh_noret_next.  An unwinder that looks
 * the caller up at the return address instead of one byte before it names
 * the wrong function and uses the wrong row. */
#include <setjmp.h>

#include "ut.h"

jmp_buf ut_noret_jb;

UT_NOINLINE __attribute__((noreturn)) static void sh_noret_die(int n)
{
	ut_hook(n);
	longjmp(ut_noret_jb, 1);
}

UT_NOINLINE void sh_noret_caller(int n)
{
	sh_sink += (unsigned long)n;
	sh_noret_die(n + 1);
}

UT_NOINLINE int sh_noret_next(int n)
{
	return n * 3 + (int)sh_sink;
}
