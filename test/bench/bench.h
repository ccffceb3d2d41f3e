/* Shared between the benchmark harness (bench.c) and its sfu builds
 * (sfu_tu.c, compiled once per header under test). */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_SECS 8
#define BENCH_MAX_FRAMES 1024
#define BENCH_CACHE_ENTRIES 1024

struct bench_sec {
	uint64_t addr;
	size_t size;
	const char *name;
};

/* Registers of the frame to start from, the stack's top and how many frames
 * to take. */
struct bench_regs {
	uint64_t pc, sp, fp, stack_hi;
	size_t max;
};

void bench_fmt(char *buf, size_t len, const char *fmt, ...);

#define BENCH_DECLARE(p)                                                                  \
	int p##_setup(const struct bench_sec *s, size_t n, char *err, size_t errlen);        \
	int p##_version(size_t i);                                                            \
	uint32_t p##_nfdes(size_t i);                                                         \
	int p##_has_cache(void);                                                              \
	size_t p##_walk(const struct bench_regs *r, int use_cache, int *why);                 \
	uint64_t p##_pc(size_t k);

BENCH_DECLARE(sfu)
BENCH_DECLARE(sfx)

#endif
