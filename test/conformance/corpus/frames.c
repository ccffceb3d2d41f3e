/* SPDX-License-Identifier: MIT */
/* Ordinary C with the frame shapes a compiler produces: leaf and non-leaf
   functions, frame pointer kept and omitted, alloca and VLAs, variadic
   functions, recursion, tail calls, calls to noreturn functions, many
   callee-saved registers, arguments passed on the stack.  Built at -O0,
   -O2 and -Os; every function has external linkage so nothing is dropped. */

#include <stdarg.h>

#define NOINLINE __attribute__((noinline, noclone))

volatile int frames_sink;

NOINLINE int frames_leaf(int a, int b)
{
	return a * b + 1;
}

NOINLINE void frames_touch(volatile char *p, int n)
{
	p[0] = (char)n;
	p[n - 1] = (char)n;
}

__attribute__((optimize("no-omit-frame-pointer"))) NOINLINE int
frames_fp_kept(int n)
{
	volatile char buf[24];
	frames_touch(buf, (int)sizeof buf);
	return frames_leaf(n, buf[0]) + 1;
}

__attribute__((optimize("omit-frame-pointer"))) NOINLINE int
frames_fp_omitted(int n)
{
	volatile char buf[40];
	frames_touch(buf, (int)sizeof buf);
	return frames_leaf(n, buf[1]) + 2;
}

NOINLINE int frames_alloca(int n)
{
	char *p = __builtin_alloca((unsigned)n + 16);
	frames_touch(p, n + 16);
	return frames_leaf(p[0], n);
}

NOINLINE int frames_vla(int n)
{
	char v[n + 8];
	frames_touch(v, n + 8);
	return frames_leaf(v[n], n) + v[0];
}

NOINLINE int frames_variadic(int n, ...)
{
	va_list ap;
	int sum = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		sum += va_arg(ap, int);
	va_end(ap);
	return frames_leaf(sum, n);
}

NOINLINE int frames_fib(int n)
{
	if (n < 2)
		return n;
	return frames_fib(n - 1) + frames_fib(n - 2);
}

NOINLINE int frames_tail(int n)
{
	frames_sink = n;
	return frames_leaf(n, n + 1);	/* a jump at -O2 */
}

NOINLINE __attribute__((noreturn)) void frames_halt(int why)
{
	for (;;)
		frames_sink = why;
}

/* The call to the noreturn function is the last instruction: its return
   address is the first byte of whatever follows. */
NOINLINE int frames_calls_noreturn(int n)
{
	if (n < 0)
		frames_halt(n);
	return frames_leaf(n, 3);
}

NOINLINE __attribute__((noreturn)) void frames_only_noreturn(int n)
{
	frames_halt(n + 1);
}

NOINLINE long frames_callee_saved(long a, long b, long c, long d)
{
	long x = a * 3, y = b * 5, z = c * 7, w = d * 11, v = a ^ d;
	frames_sink = frames_leaf((int)x, (int)y);
	frames_sink = frames_leaf((int)z, (int)w);
	frames_sink = frames_leaf((int)v, (int)x);
	return x + y + z + w + v;
}

NOINLINE long frames_stack_args(long a, long b, long c, long d, long e,
				long f, long g, long h, long i, long j)
{
	return frames_leaf((int)(a + c + e + g + i), (int)(b + d + f + h + j));
}

NOINLINE long frames_pass_stack_args(long n)
{
	return frames_stack_args(n, n + 1, n + 2, n + 3, n + 4, n + 5,
				 n + 6, n + 7, n + 8, n + 9) + 1;
}

struct frames_big { long v[12]; };

NOINLINE struct frames_big frames_struct_ret(long n)
{
	struct frames_big b;
	for (int i = 0; i < 12; i++)
		b.v[i] = n + i;
	return b;
}

NOINLINE long frames_struct_use(long n)
{
	struct frames_big b = frames_struct_ret(n);
	return b.v[3] + b.v[11];
}

typedef int (*frames_fn)(int);

NOINLINE int frames_indirect(frames_fn f, int n)
{
	return f(n) + f(n + 1);
}

NOINLINE int frames_switch(int n)
{
	switch (n) {
	case 0: return frames_leaf(n, 1);
	case 1: return frames_fib(n);
	case 2: return frames_tail(n);
	case 3: return frames_alloca(n);
	case 4: return frames_vla(n);
	case 5: return frames_variadic(3, 1, 2, 3);
	default: return frames_indirect(frames_fp_kept, n);
	}
}

int corpus_frames(int n)
{
	return frames_switch(n) + (int)frames_struct_use(n) +
	       (int)frames_pass_stack_args(n) + frames_fp_omitted(n) +
	       frames_calls_noreturn(n) + (int)frames_callee_saved(n, 1, 2, 3);
}
