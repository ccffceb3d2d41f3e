/* SPDX-License-Identifier: MIT */
/* AArch64 only: return-address signing chosen per function, so that one
   object mixes unsigned frames, A-key and B-key frames (the FDE pauth_key
   bit) and signed leaf functions. */

#define NOINLINE __attribute__((noinline, noclone))

volatile int pauth_sink;

NOINLINE int pauth_plain(int x)
{
	pauth_sink = x;
	return x + 1;
}

__attribute__((target("branch-protection=pac-ret"))) NOINLINE int
pauth_a(int x)
{
	return pauth_plain(x) + 2;
}

__attribute__((target("branch-protection=pac-ret+b-key"))) NOINLINE int
pauth_b(int x)
{
	return pauth_plain(x) + 3;
}

__attribute__((target("branch-protection=pac-ret+leaf"))) NOINLINE int
pauth_a_leaf(int x)
{
	return x * 5;
}

__attribute__((target("branch-protection=pac-ret+leaf+b-key"))) NOINLINE int
pauth_b_leaf(int x)
{
	return x * 7;
}

__attribute__((target("branch-protection=pac-ret+b-key"))) NOINLINE int
pauth_b_big(int x)
{
	volatile char buf[5000];
	buf[0] = (char)x;
	return pauth_plain(buf[0]) + pauth_b(x);
}

int corpus_pauth(int x)
{
	return pauth_a(x) + pauth_b(x) + pauth_a_leaf(x) + pauth_b_leaf(x) +
	       pauth_b_big(x);
}
