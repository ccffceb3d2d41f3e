/* SPDX-License-Identifier: MIT */
/* Stack frames of growing size, so that CFA (and FP/RA) offsets need
   1-byte, 2-byte and 4-byte SFrame data words. */

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE void bigframe_touch(volatile char *p, unsigned n)
{
	p[0] = 1;
	p[n - 1] = 2;
}

/* Fits in a signed byte. */
NOINLINE int bigframe_small(int n)
{
	volatile char buf[64];
	bigframe_touch(buf, sizeof buf);
	return buf[n & 63];
}

/* Needs 2-byte words (CFA offset well above 127). */
NOINLINE int bigframe_medium(int n)
{
	volatile char buf[300];
	bigframe_touch(buf, sizeof buf);
	return buf[n % 300];
}

/* Needs 2-byte words, close to the 32767 limit. */
NOINLINE int bigframe_32k(int n)
{
	volatile char buf[32000];
	bigframe_touch(buf, sizeof buf);
	return buf[n % 32000];
}

/* Needs 4-byte words. */
NOINLINE int bigframe_large(int n)
{
	volatile char buf[70000];
	bigframe_touch(buf, sizeof buf);
	return buf[n % 70000];
}

/* Large frame with a frame pointer: FP-based CFA, FP/RA saved far off. */
__attribute__((optimize("no-omit-frame-pointer"))) NOINLINE int
bigframe_large_fp(int n)
{
	volatile char buf[70000];
	bigframe_touch(buf, sizeof buf);
	return buf[n % 70000] + bigframe_small(n);
}

/* A large frame and a variable-length array on top of it. */
NOINLINE int bigframe_large_vla(int n)
{
	volatile char buf[40000];
	char v[n + 1];
	bigframe_touch(buf, sizeof buf);
	bigframe_touch(v, (unsigned)n + 1);
	return buf[5] + v[0];
}

/* More than 2 GiB would not assemble; 1 MiB is a realistic upper end
   for a firmware task stack. */
NOINLINE int bigframe_huge(int n)
{
	volatile char buf[1 << 20];
	bigframe_touch(buf, sizeof buf);
	return buf[n & 0xfffff];
}

int corpus_bigframe(int n)
{
	return bigframe_small(n) + bigframe_medium(n) + bigframe_32k(n) +
	       bigframe_large(n) + bigframe_large_fp(n) +
	       bigframe_large_vla(n) + bigframe_huge(n);
}
