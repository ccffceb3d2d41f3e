/* SPDX-License-Identifier: MIT */
/* One sfu build for the benchmark harness, all static (SFU_STATIC), so
 * several builds (the core under test in several configurations, and the
 * core of the baseline commit) can sit in the same binary.  Compiled with -I
 * pointing at the header to use, -DBENCH_NAME(x)=prefix_##x and the knobs of
 * the configuration.
 *
 * The port is the trivial one a user-space tool would write: any aligned
 * word inside [lo, hi) of the current thread's stack is read directly,
 * through the port's function pointer or, with -DBENCH_INLINE_READ, through
 * SFU_READ, which the compiler can inline. */
#include <stdint.h>

#ifndef SFU_DEPTH_CAP
#define SFU_DEPTH_CAP 1024
#endif
#define SFU_STATIC
#include "sfu.h" /* the declarations, and SFU_CODEGEN_BEGIN */

struct bench_stack {
	uint64_t lo, hi;
};

/* Compiled for the core's target (general registers only): a function
 * built with other target options cannot be inlined into the core. */
SFU_CODEGEN_BEGIN
static inline int bench_read(void *ctx, uint64_t addr, uint64_t *out)
{
	const struct bench_stack *s = (const struct bench_stack *)ctx;
	if (addr < s->lo || addr > s->hi - 8u)
		return 1;
	*out = *(const uint64_t *)(uintptr_t)addr;
	return 0;
}
SFU_CODEGEN_END

#ifdef BENCH_INLINE_READ
#define SFU_READ(ctx, addr, out) bench_read((ctx), (addr), (out))
#endif
#define SFU_IMPLEMENTATION
#include "sfu.h"

#include "bench.h"

#if defined(SFU_CACHE) && SFU_CACHE
#define HAVE_CACHE 1
#else
#define HAVE_CACHE 0
#endif
#if defined(SFU_INDEX) && SFU_INDEX
#define HAVE_INDEX 1
#else
#define HAVE_INDEX 0
#endif

/* The sections, plain and (SFU_INDEX) with each kind of index. */
static sfu_section secs[3][BENCH_MAX_SECS];
static size_t nsecs;
static sfu_frame frames[BENCH_MAX_FRAMES];
#if HAVE_CACHE
static sfu_cache_entry cache_mem[BENCH_CACHE_ENTRIES];
static sfu_cache cache;
#endif
#if HAVE_INDEX
static size_t index_bytes[3];
#endif

int BENCH_NAME(setup)(const struct bench_sec *s, size_t n, char *err, size_t errlen)
{
	size_t i;
	int k;
	nsecs = 0;
	for (i = 0; i < n && i < BENCH_MAX_SECS; i++) {
		for (k = 0; k < (HAVE_INDEX ? 3 : 1); k++) {
			int e = sfu_section_init(&secs[k][nsecs], (const void *)(uintptr_t)s[i].addr, s[i].size, s[i].addr);
			if (e) {
				bench_fmt(err, errlen, "sfu_section_init(%s) = %d", s[i].name, e);
				return e;
			}
			e = k ? 0 : sfu_section_validate(&secs[k][nsecs], NULL);
			if (e) {
				bench_fmt(err, errlen, "sfu_section_validate(%s) = %d", s[i].name, e);
				return e;
			}
#if HAVE_INDEX
			if (k) {
				/* Memory as a firmware would give it: once, at boot. */
				unsigned kind = k == 1 ? SFU_INDEX_FDES : SFU_INDEX_ROWS;
				size_t bytes;
				void *mem;
				e = sfu_index_size(&secs[k][nsecs], kind, &bytes);
				mem = e ? NULL : bench_alloc(bytes);
				if (!e)
					e = sfu_index_build(&secs[k][nsecs], kind, mem, bytes);
				if (e) {
					bench_fmt(err, errlen, "sfu_index_build(%s, %u) = %d", s[i].name, kind, e);
					return e;
				}
				index_bytes[k] += bytes;
			}
#endif
		}
		nsecs++;
	}
#if HAVE_CACHE
	sfu_cache_init(&cache, cache_mem, BENCH_CACHE_ENTRIES);
#endif
	return 0;
}

int BENCH_NAME(version)(size_t i)
{
	return i < nsecs ? secs[0][i].version : 0;
}

uint32_t BENCH_NAME(nfdes)(size_t i)
{
	return i < nsecs ? secs[0][i].num_fdes : 0;
}

int BENCH_NAME(has)(int mode)
{
	return mode == BENCH_COLD || (mode == BENCH_CACHE && HAVE_CACHE) ||
	       ((mode == BENCH_FDEIDX || mode == BENCH_ROWIDX) && HAVE_INDEX);
}

size_t BENCH_NAME(index_bytes)(int mode)
{
#if HAVE_INDEX
	return mode == BENCH_FDEIDX ? index_bytes[1] : mode == BENCH_ROWIDX ? index_bytes[2] : 0;
#else
	(void)mode;
	return 0;
#endif
}

size_t BENCH_NAME(walk)(const struct bench_regs *r, int mode, int *why)
{
	struct bench_stack st = { r->sp, r->stack_hi };
	sfu_port port = { .read = bench_read, .ctx = &st, .stack_lo = r->sp, .stack_hi = r->stack_hi };
	sfu_regs regs = { r->pc, r->sp, r->fp, 0, NULL, 0, NULL };
	size_t n = 0;
#if HAVE_CACHE
	if (mode == BENCH_CACHE) {
		*why = sfu_backtrace_cached(secs[0], nsecs, &cache, &port, &regs, frames, r->max, &n);
		return n;
	}
#endif
	*why = sfu_backtrace(secs[mode == BENCH_FDEIDX ? 1 : mode == BENCH_ROWIDX ? 2 : 0], nsecs, &port, &regs, frames,
	                     r->max, &n);
	return n;
}

uint64_t BENCH_NAME(pc)(size_t k)
{
	return k < BENCH_MAX_FRAMES ? frames[k].pc : 0;
}
