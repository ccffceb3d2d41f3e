/* SPDX-License-Identifier: MIT */
/* rows_realign.c - over-aligned frames; on x86_64 built with -mstackrealign
 * (DRAP with alloca: V3 FLEX rows with %r10 and *(%rbp - 8) rules; V1/V2
 * have no FDE for these). */
typedef int rw_v8 __attribute__((vector_size(32)));

long rw_leaf(long x);

__attribute__((noinline, noclone)) static void rw_realign_sink(volatile void *p)
{
	*(volatile char *)p = 1;
}

__attribute__((noinline, noclone)) long rw_realign(int n)
{
	rw_v8 x[2] __attribute__((aligned(64))) = { { n } };
	char *p = __builtin_alloca((unsigned)n + 1u);
	rw_realign_sink(p);
	rw_realign_sink(x);
	return rw_leaf(p[0]) + x[1][0];
}
