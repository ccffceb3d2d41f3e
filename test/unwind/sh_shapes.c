/* SPDX-License-Identifier: MIT */
/* sh_shapes.c - frame shapes built with the optimisation level's default
 * flags: leaf, alloca, VLA, variadic, a frame over 64 KiB, tail calls,
 * recursion, calls through function pointers, and one chain through all of
 * them.  Each shape does some work of its own before and after calling
 * deeper, so that asynchronous samples land in its prologue, body and
 * epilogue, not only in the hook. */
#include <stdarg.h>

#include "ut.h"

volatile unsigned long sh_sink;

/* A leaf: no call, no frame at -O2 (aarch64: the RA stays in x30). */
UT_NOINLINE unsigned long sh_leaf(unsigned long x, int n)
{
	int i;
	for (i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ul + (unsigned long)i;
	return x;
}

/* A leaf that traps half way: the exception's PC is in a function that
 * never set up a frame. */
UT_NOINLINE int sh_leaf_trap(int n)
{
	unsigned long x = sh_sink * 3u + (unsigned long)n;
	UT_TRAP();
	return (int)(x ^ sh_sink);
}

UT_NOINLINE static int sh_work(int n)
{
	sh_sink += sh_leaf((unsigned long)n, n & 7);
	ut_hook(n);
	sh_sink += sh_leaf((unsigned long)n + 1u, 3);
	return n + 1;
}

/* alloca: the frame size is known only at run time, so the CFA is kept
 * relative to the frame pointer. */
UT_NOINLINE int sh_alloca(int n)
{
	int size = 64 + (n & 15) * 48, i;
	volatile char *p = __builtin_alloca((unsigned)size);
	for (i = 0; i < size; i += 16)
		p[i] = (char)i;
	return sh_work(n) + p[size / 2];
}

/* A variable-length array. */
UT_NOINLINE int sh_vla(int n)
{
	int size = 32 + (n & 7) * 40, i;
	volatile char v[size];
	for (i = 0; i < size; i += 8)
		v[i] = (char)(i + n);
	return sh_alloca(n + 1) + v[size - 8];
}

/* Variadic: a register save area in the frame (x86_64: %al-guarded). */
UT_NOINLINE int sh_variadic(int n, ...)
{
	va_list ap;
	int i, sum = 0;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		sum += va_arg(ap, int);
	va_end(ap);
	return sh_vla(sum & 31) + sum;
}

/* More than 64 KiB of locals: the prologue adjusts SP in several steps
 * (aarch64) or by an immediate wider than 16 bits, and the FRE data words
 * need 4 bytes. */
UT_NOINLINE int sh_bigframe(int n)
{
	volatile char buf[80 * 1024];
	unsigned i;
	for (i = 0; i < sizeof buf; i += 4096)
		buf[i] = (char)(i >> 12);
	buf[sizeof buf - 1] = (char)n;
	return sh_variadic(3, n, n + 1, n + 2) + buf[(unsigned)n % sizeof buf];
}

/* Tail calls: at -O2 sh_tail_a jumps to sh_tail_b, so neither unwinder
 * sees sh_tail_a; sh_tail_b tail-calls through a pointer. */
static int (*volatile sh_tail_target)(int) = sh_work;

UT_NOINLINE int sh_tail_b(int n)
{
	sh_sink += (unsigned long)n;
	return sh_tail_target(n + 1);
}

UT_NOINLINE int sh_tail_a(int n)
{
	sh_sink += sh_leaf((unsigned long)n, 2);
	return sh_tail_b(n * 2);
}

/* Recursion that cannot become a loop: work after the call. */
UT_NOINLINE static int sh_after(int d)
{
	sh_sink += (unsigned long)d;
	return d & 3;
}

UT_NOINLINE int sh_recurse(int depth, int n)
{
	int r;
	if (depth <= 0)
		return sh_tail_a(n);
	r = sh_recurse(depth - 1, n + 1);
	return r + sh_after(depth);
}

/* Calls through a table of function pointers. */
UT_NOINLINE static int sh_fp1(int n) { return sh_work(n) + 1; }
UT_NOINLINE static int sh_fp2(int n) { return sh_recurse(2, n) + 2; }
UT_NOINLINE static int sh_fp3(int n) { return sh_bigframe(n) + 3; }
static int (*const volatile sh_table[3])(int) = { sh_fp1, sh_fp2, sh_fp3 };

UT_NOINLINE int sh_fptr(int n)
{
	int (*f)(int) = sh_table[(unsigned)n % 3u];
	return f(n / 3) + 1;
}

/* One long chain through every shape and every translation unit. */
UT_NOINLINE int sh_mixed(int n)
{
	int r = sh_fp_chain(n);
	r += sh_realign_chain(n);
	r += sh_fptr(n);
	return r;
}
