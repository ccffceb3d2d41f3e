/* SPDX-License-Identifier: MIT */
/* Functions whose code is longer than 256 bytes and longer than 64 KiB,
   so that FREs after the body need 2-byte and 4-byte start offsets
   (SFRAME_FRE_TYPE_ADDR2 and SFRAME_FRE_TYPE_ADDR4).  The bodies are
   runs of volatile stores the compiler cannot merge; the epilogue comes
   after them, so the last FREs sit past the body. */

#define NOINLINE __attribute__((noinline, noclone))

volatile long longfunc_sink[4];

NOINLINE long longfunc_callee(long x)
{
	return x + 1;
}

#define S1(i)	longfunc_sink[(i) & 3] = n + (i);
#define S4(i)	S1(i) S1(i + 1) S1(i + 2) S1(i + 3)
#define S16(i)	S4(i) S4(i + 4) S4(i + 8) S4(i + 12)
#define S64(i)	S16(i) S16(i + 16) S16(i + 32) S16(i + 48)

/* Around 1 KiB of code. */
NOINLINE long longfunc_2k(long n)
{
	long r = longfunc_callee(n);
	S64(0)
	return r + longfunc_callee(r);
}

/* Over 64 KiB of code at every optimisation level: compiled code around
   a block of padding the compiler sees as one instruction (a long run of
   C statements would do too, but costs gcc for AArch64 at -O2 half a
   minute per build).  The padding is never executed. */
NOINLINE long longfunc_100k(long n)
{
	long r = longfunc_callee(n);
	S64(0)
	__asm__ volatile(".skip 70000");
	S64(64)
	return r + longfunc_callee(r);
}

long corpus_longfunc(long n)
{
	return longfunc_2k(n) + longfunc_100k(n);
}
