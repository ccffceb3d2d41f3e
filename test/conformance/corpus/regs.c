/* SPDX-License-Identifier: MIT */
/* Register pressure: many callee-saved registers pushed and popped (a CFA
   change per push on x86_64), and leaf functions that need more registers
   than the caller-saved set (on s390x gcc then saves the return-address
   and frame registers in floating-point registers instead of the stack). */

#define NOINLINE __attribute__((noinline, noclone))

volatile long regs_sink;

NOINLINE long regs_leaf_pressure(long *p, long n)
{
	long a = p[0], b = p[1], c = p[2], d = p[3], e = p[4], f = p[5];
	long g = p[6], h = p[7], i = p[8], j = p[9], k = p[10], l = p[11];
	for (long t = 0; t < n; t++) {
		a += b * c; b ^= d + e; c -= f * g; d += h ^ i;
		e *= j + k; f += l - a; g ^= b * h; h -= c + i;
		i += d * j; j ^= e - k; k += f * l; l -= g + a;
		regs_sink = a + l;
	}
	return a + b + c + d + e + f + g + h + i + j + k + l;
}

NOINLINE long regs_callee(long x)
{
	regs_sink = x;
	return x + 1;
}

/* Values live across calls: all callee-saved registers in use. */
NOINLINE long regs_live_across_calls(long x)
{
	long a = regs_callee(x), b = regs_callee(a), c = regs_callee(b);
	long d = regs_callee(c), e = regs_callee(d), f = regs_callee(e);
	long g = regs_callee(f);
	regs_callee(a + b);
	regs_callee(c + d);
	return a * b + c * d + e * f + g;
}

/* A shrink-wrapped function: the frame is only set up on one path. */
NOINLINE long regs_shrink_wrap(long x)
{
	if (x < 0)
		return -x;
	return regs_live_across_calls(x) + regs_callee(x);
}

long corpus_regs(long x)
{
	long v[12] = { x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	return regs_leaf_pressure(v, x) + regs_shrink_wrap(x);
}
