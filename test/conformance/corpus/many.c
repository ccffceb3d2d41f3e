/* SPDX-License-Identifier: MIT */
/* Many small functions: a large, sorted FDE table once linked, with runs
   of nearly identical entries for the binary search to get wrong. */

#define NOINLINE __attribute__((noinline, noclone))

volatile int many_sink;

/* Leaf: no frame at all. */
#define LEAF(i) \
	NOINLINE int many_leaf_##i(int x) { return x * (i) + 1; }
/* Non-leaf: calls the leaf of the same number. */
#define CALLER(i) \
	NOINLINE int many_call_##i(int x) \
	{ many_sink = x; return many_leaf_##i(x + 1) + (i); }

#define PAIR(i)	LEAF(i) CALLER(i)
#define P8(i)	PAIR(i##0) PAIR(i##1) PAIR(i##2) PAIR(i##3) \
		PAIR(i##4) PAIR(i##5) PAIR(i##6) PAIR(i##7)

P8(1) P8(2) P8(3) P8(4) P8(5) P8(6) P8(7) P8(8)
P8(9) P8(10) P8(11) P8(12) P8(13) P8(14) P8(15) P8(16)

#define USE(i)	+ many_call_##i(x)
#define U8(i)	USE(i##0) USE(i##1) USE(i##2) USE(i##3) \
		USE(i##4) USE(i##5) USE(i##6) USE(i##7)

int corpus_many(int x)
{
	return 0 U8(1) U8(2) U8(3) U8(4) U8(5) U8(6) U8(7) U8(8)
		 U8(9) U8(10) U8(11) U8(12) U8(13) U8(14) U8(15) U8(16);
}
