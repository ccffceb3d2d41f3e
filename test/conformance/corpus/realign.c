/* SPDX-License-Identifier: MIT */
/* Stack realignment.  Over-aligned locals make gcc realign the stack
   pointer; with alloca on top it keeps the incoming stack pointer in a
   register (DRAP: dynamic realigned argument pointer) and the CFA is
   then expressed through that register and a memory load.  x86_64 is
   also built with -mstackrealign, which makes every function that calls
   another realign its frame. */

#define NOINLINE __attribute__((noinline, noclone))

typedef int realign_v8 __attribute__((vector_size(32)));

NOINLINE void realign_sink(volatile void *p)
{
	*(volatile char *)p = 0;
}

/* Realigned frame, no alloca: rbp-based CFA. */
NOINLINE int realign_aligned(int n)
{
	realign_v8 x __attribute__((aligned(32))) = { n };
	realign_sink(&x);
	return x[0];
}

/* Realigned frame and alloca: DRAP on x86_64. */
NOINLINE int realign_drap(int n)
{
	realign_v8 x[2] __attribute__((aligned(32)));
	char *p = __builtin_alloca((unsigned)n + 1);
	realign_sink(p);
	realign_sink(x);
	return n;
}

/* Realigned frame and a VLA. */
NOINLINE int realign_vla(int n)
{
	realign_v8 x __attribute__((aligned(64))) = { n };
	char v[n + 1];
	realign_sink(v);
	realign_sink(&x);
	return v[0] + x[0];
}

/* Realigned variadic function (arguments are read through the DRAP). */
NOINLINE int realign_variadic(int n, ...)
{
	realign_v8 x __attribute__((aligned(32))) = { n };
	__builtin_va_list ap;
	__builtin_va_start(ap, n);
	x[1] = __builtin_va_arg(ap, int);
	__builtin_va_end(ap);
	realign_sink(&x);
	return x[1];
}

#if defined(__x86_64__)
/* Realigns on entry because the caller's alignment is not trusted. */
NOINLINE __attribute__((force_align_arg_pointer)) int realign_forced(int n)
{
	realign_v8 x __attribute__((aligned(32))) = { n };
	realign_sink(&x);
	return x[0];
}
#endif

int corpus_realign(int n)
{
	int r = realign_aligned(n) + realign_drap(n) + realign_vla(n) +
		realign_variadic(n, 1);
#if defined(__x86_64__)
	r += realign_forced(n);
#endif
	return r;
}
