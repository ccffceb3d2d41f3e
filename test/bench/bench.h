/* SPDX-License-Identifier: MIT */
/* Shared between the benchmark harness (bench.c, count.c) and its sfu
 * builds (sfu_tu.c, compiled once per configuration under test). */
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

/* How a build walks: no cache and no index, its row cache, its sections
 * with an FDE index, with a row index. */
enum { BENCH_COLD, BENCH_CACHE, BENCH_FDEIDX, BENCH_ROWIDX, BENCH_MODES };

void bench_fmt(char *buf, size_t len, const char *fmt, ...);
void *bench_alloc(size_t bytes); /* 8-byte aligned, never freed */

#define BENCH_DECLARE(p)                                                                  \
	int p##_setup(const struct bench_sec *s, size_t n, char *err, size_t errlen);        \
	int p##_version(size_t i);                                                            \
	uint32_t p##_nfdes(size_t i);                                                         \
	int p##_has(int mode);                                                                \
	size_t p##_index_bytes(int mode);                                                     \
	size_t p##_walk(const struct bench_regs *r, int mode, int *why);                      \
	uint64_t p##_pc(size_t k);

/* The builds: the core with the speed knob (SFU_FAST=1) and every other
 * default (sfu), with the cache and the indexes (sfx), with those and an
 * inlined port read (sfr), with SFU_FAST=1 and SFU_SAFE_CODEGEN=0 (sfn),
 * the small shape (SFU_FAST=0) with the cache (sfs), and the core of the
 * baseline commit with its cache (bas). */
BENCH_DECLARE(sfu)
BENCH_DECLARE(sfx)
BENCH_DECLARE(sfr)
BENCH_DECLARE(sfn)
BENCH_DECLARE(sfs)
BENCH_DECLARE(bas)

#endif
