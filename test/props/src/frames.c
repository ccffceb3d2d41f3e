/* SPDX-License-Identifier: MIT */
/* frames.c - call chains with varied frame shapes for the property tests
 * and the fuzz seeds: leaf functions, variable-length arrays (CFA on the
 * frame pointer), big frames (wide FRE data words), a long function (2-byte
 * FRE start offsets), many arguments, recursion, a noreturn call, and an
 * over-aligned local (stack realignment; DRAP on x86_64).  Nothing here is
 * run: the images are only read for their .sframe section. */
#include <stdarg.h>
#include <stddef.h>

#define NOINLINE __attribute__((noinline, noclone))

volatile int sink;

NOINLINE int leaf(int x)
{
	return x * 3 + 1;
}

NOINLINE int vla(int n)
{
	volatile char buf[n + 1];
	buf[0] = (char)n;
	buf[n] = (char)leaf(n);
	return buf[0] + buf[n];
}

NOINLINE int bigframe(int n)
{
	volatile char big[70000];
	big[n] = 1;
	big[69999] = (char)vla(n);
	return big[n] + big[69999];
}

NOINLINE int manyargs(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j)
{
	return vla(a + b + c + d + e) + leaf(f + g + h + i + j);
}

NOINLINE int realign(int a, int b, int c, int d, int e, int f, int g, int h)
{
	volatile int v[8] __attribute__((aligned(64)));
	v[0] = a + g;
	v[7] = manyargs(a, b, c, d, e, f, g, h, a, b);
	return v[0] + v[7] + h;
}

NOINLINE int recurse(int n)
{
	if (n <= 0)
		return realign(n, 1, 2, 3, 4, 5, 6, 7);
	return recurse(n - 1) + leaf(n);
}

NOINLINE int varargs(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s + recurse(s & 3);
}

#define R1 sink = sink * 7 + 1;
#define R8 R1 R1 R1 R1 R1 R1 R1 R1
#define R64 R8 R8 R8 R8 R8 R8 R8 R8
NOINLINE int longfunc(int n)
{
	R64 R64 R64 R64
	if (n)
		sink = varargs(3, n, 2, 1);
	R64 R64 R64 R64
	return sink;
}

NOINLINE __attribute__((noreturn)) void stop(int why)
{
	for (;;)
		sink = why;
}

NOINLINE void panics(int n)
{
	if (n > 3)
		stop(longfunc(n) + bigframe(n & 7));
	sink = n;
}

int test_entry(void)
{
	panics(sink);
	return 0;
}
