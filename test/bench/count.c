/* SPDX-License-Identifier: MIT */
/* Instruction counts without callgrind: the cost of SFU_SAFE_CODEGEN on a
 * target where valgrind does not run (aarch64, under qemu-aarch64).
 *
 *   count [--depth 64]
 *
 * At the leaf of a call chain of the given depth through libchain (the
 * same library and chain as bench.c), walks the stack once with each sfu
 * build of bench.h that is about code generation: sfu (every default,
 * SFU_SAFE_CODEGEN=1) and sfn (SFU_SAFE_CODEGEN=0), each walk between two
 * calls of bench_mark().  Run under
 *     qemu-aarch64 -singlestep -d exec,nochain -dfilter <.text> -D LOG
 * every executed instruction of the program's own code is one line of LOG,
 * and test/bench/run.sh counts the lines between the marks.  Prints
 *     COUNT build=NAME depth=D frames=N
 * in the order of the marked walks (warm: each walk runs once before). */
#define _GNU_SOURCE
#include "host.h"

#define NOINLINE __attribute__((noinline, noclone))

uint64_t chain_run(int which, int depth, uint64_t x, void (*leaf)(void *), void *arg);

/* The marks the log is cut at: a call and a return, nothing else. */
NOINLINE void bench_mark(int k)
{
	__asm__ volatile("" ::"r"(k) : "memory");
}

static uint64_t stack_hi;
static size_t depth = 64;

static const struct {
	const char *name;
	size_t (*walk)(const struct bench_regs *, int, int *);
	int (*setup)(const struct bench_sec *, size_t, char *, size_t);
} builds[] = {
	{ "sfu", sfu_walk, sfu_setup },
	{ "sfn", sfn_walk, sfn_setup },
};

static NOINLINE size_t walk(int b)
{
	struct bench_regs r;
	int why;
	r.stack_hi = stack_hi;
	r.max = depth;
	CAPTURE(r);
	return builds[b].walk(&r, BENCH_COLD, &why);
}

static NOINLINE void at_leaf(void *arg)
{
	size_t b, n[2];
	(void)arg;
	bench_mark(0);
	bench_mark(1); /* an empty pair: what the marks cost */
	for (b = 0; b < 2; b++) {
		walk((int)b);
		bench_mark(2);
		n[b] = walk((int)b);
		bench_mark(3);
	}
	for (b = 0; b < 2; b++)
		printf("COUNT build=%s depth=%zu frames=%zu\n", builds[b].name, depth, n[b]);
}

int main(int argc, char **argv)
{
	struct bench_sec ordered[BENCH_MAX_SECS];
	size_t nord, i;
	char err[256];

	if (argc == 3 && !strcmp(argv[1], "--depth"))
		depth = strtoul(argv[2], NULL, 10);
	if (depth < 8 || depth + 4 > BENCH_MAX_FRAMES)
		return 2;
	stack_hi = host_stack_top();
	nord = host_sframe_sections(ordered);
	if (!stack_hi || !nord) {
		fprintf(stderr, "count: no [stack] in /proc/self/maps, or no PT_GNU_SFRAME in libchain\n");
		return 1;
	}
	for (i = 0; i < 2; i++)
		if (builds[i].setup(ordered, nord, err, sizeof err)) {
			fprintf(stderr, "count: %s: %s\n", builds[i].name, err);
			return 1;
		}
	chain_run(1, (int)depth, 12345u, at_leaf, NULL);
	return 0;
}
