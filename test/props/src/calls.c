/* SPDX-License-Identifier: MIT */
/* calls.c - more frame shapes for the test images: calls through function
 * pointers, a tail call, alloca in a loop, a jump table, a callee with
 * floating-point spills.  And, built -fPIC into a shared object, calls to
 * external functions, so the linker writes PLT FDEs (PC-mask FDEs). */
#include <stddef.h>

#define NOINLINE __attribute__((noinline, noclone))

extern volatile int sink;
int ext_a(int);
int ext_b(int, int);

typedef int (*fn)(int);

NOINLINE int twice(int x)
{
	return x * 2 + sink;
}

NOINLINE int through(fn f, int x)
{
	return f(x) + f(x + 1);
}

NOINLINE int tail(int x)
{
	if (x > 100)
		return twice(x - 1); /* a sibling call at -O2 */
	return x + sink;
}

NOINLINE int growing(int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++) {
		volatile char *p = __builtin_alloca((size_t)(i + 1) * 16u);
		p[0] = (char)i;
		s += p[0];
	}
	return s + through(twice, s);
}

NOINLINE int table(int k, int x)
{
	switch (k & 7) {
	case 0: return tail(x);
	case 1: return growing(x & 15);
	case 2: return twice(x) + 1;
	case 3: return x - 3;
	case 4: return through(tail, x);
	case 5: return x * 5;
	case 6: return (int)((double)x * 1.5 + (double)sink);
	default: return table(k - 1, x + 1);
	}
}

#ifdef WITH_PLT
/* Only in the shared object: these go through the PLT. */
int calls_ext(int x)
{
	return ext_a(x) + ext_b(x, table(x, x));
}
#endif
