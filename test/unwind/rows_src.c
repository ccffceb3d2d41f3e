/* SPDX-License-Identifier: MIT */
/* rows_src.c - freestanding functions of varied frame shapes, linked into a
 * bare image (-nostdlib) per target: x86_64, aarch64, aarch64 big-endian,
 * s390x.  Nothing runs: rows_check reads the image's .sframe and checks
 * sfu_cursor_step on every row against objdump's text (README.md). */

typedef __builtin_va_list rw_va_list;
#define RW_NOINLINE __attribute__((noinline, noclone))

volatile long rw_sink;

RW_NOINLINE long rw_leaf(long x)
{
	return x * 3 + 1;
}

/* Many live values across a call: callee-saved registers get saved (x86_64
 * pushes, aarch64 stp pairs, s390x stmg r6-r15). */
RW_NOINLINE long rw_regs(long a, long b, long c, long d)
{
	long e = a * b, f = c * d, g = a + d, h = b - c;
	rw_sink = rw_leaf(e);
	return e + f + g + h + rw_leaf(f ^ g);
}

/* A leaf with register pressure (s390x may keep RA and FP in FPRs). */
RW_NOINLINE long rw_leaf_busy(long a, long b, long c, long d, long e)
{
	long x = a, y = b, z = c, w = d, v = e;
	int i;
	for (i = 0; i < (int)(a & 7); i++) {
		x = x * y + z;
		y = y ^ (w >> 3);
		z = z + v * x;
		w = w - y;
		v = v * 5 + x;
	}
	return x + y + z + w + v;
}

RW_NOINLINE long rw_alloca(int n)
{
	volatile char *p = __builtin_alloca((unsigned)n + 1u);
	p[0] = (char)n;
	return rw_regs(p[0], n, 2, 3);
}

RW_NOINLINE long rw_vla(int n)
{
	volatile char v[n + 8];
	v[n] = 1;
	return rw_alloca(v[n] + n);
}

/* More than 64 KiB of locals: multi-step SP adjustment, 4-byte words. */
RW_NOINLINE long rw_big(int n)
{
	volatile char b[80 * 1024];
	b[n] = (char)n;
	b[sizeof b - 1] = 2;
	return rw_vla(b[n]) + b[sizeof b - 1];
}

RW_NOINLINE long rw_var(int n, ...)
{
	rw_va_list ap;
	long s = 0;
	int i;
	__builtin_va_start(ap, n);
	for (i = 0; i < n; i++)
		s += __builtin_va_arg(ap, int);
	__builtin_va_end(ap);
	return rw_big((int)(s & 63));
}

RW_NOINLINE long rw_recurse(int d)
{
	if (d <= 0)
		return rw_var(2, d, 1);
	return rw_recurse(d - 1) * 2 + rw_leaf(d);
}

typedef long rw_fn(long);
static rw_fn *volatile rw_table[2] = { rw_leaf, rw_leaf };

RW_NOINLINE long rw_fptr(long x)
{
	return rw_table[x & 1](x) + rw_table[(x + 1) & 1](x);
}

RW_NOINLINE __attribute__((noreturn)) void rw_die(long x)
{
	rw_sink = x;
	for (;;)
		__asm__ volatile("");
}

RW_NOINLINE void rw_noret(long x)
{
	rw_sink = rw_fptr(x);
	rw_die(x + 1);
}

long rw_realign(int n); /* rows_realign.c */

void rows_entry(void)
{
	rw_sink = rw_recurse(3) + rw_leaf_busy(1, 2, 3, 4, 5) + rw_realign(3);
	rw_noret(rw_sink);
}
