/* One sfu build for the benchmark harness, all static (SFU_STATIC), so the
 * real core and an experimental copy can sit in the same binary.  Compiled
 * with -I pointing at the header to use and -DBENCH_NAME(x)=prefix_##x.
 *
 * The port is the trivial one a user-space tool would write: any aligned
 * word inside [lo, hi) of the current thread's stack is read directly. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#ifndef SFU_DEPTH_CAP
#define SFU_DEPTH_CAP 1024
#endif
#include "sfu.h"

#include "bench.h"

#if defined(SFU_CACHE) && SFU_CACHE
#define HAVE_CACHE 1
#else
#define HAVE_CACHE 0
#endif

static sfu_section secs[BENCH_MAX_SECS];
static size_t nsecs;
static sfu_frame frames[BENCH_MAX_FRAMES];
#if HAVE_CACHE
static sfu_cache_entry cache_mem[BENCH_CACHE_ENTRIES];
static sfu_cache cache;
#endif

struct stack { uint64_t lo, hi; };

static int read_stack(void *ctx, uint64_t addr, uint64_t *out)
{
	const struct stack *s = (const struct stack *)ctx;
	if (addr < s->lo || addr > s->hi - 8u)
		return 1;
	*out = *(const uint64_t *)(uintptr_t)addr;
	return 0;
}

int BENCH_NAME(setup)(const struct bench_sec *s, size_t n, char *err, size_t errlen)
{
	size_t i;
	nsecs = 0;
	for (i = 0; i < n && i < BENCH_MAX_SECS; i++) {
		int e = sfu_section_init(&secs[nsecs], (const void *)(uintptr_t)s[i].addr, s[i].size, s[i].addr);
		if (e) {
			bench_fmt(err, errlen, "sfu_section_init(%s) = %d", s[i].name, e);
			return e;
		}
		e = sfu_section_validate(&secs[nsecs], NULL);
		if (e) {
			bench_fmt(err, errlen, "sfu_section_validate(%s) = %d", s[i].name, e);
			return e;
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
	return i < nsecs ? secs[i].version : 0;
}

uint32_t BENCH_NAME(nfdes)(size_t i)
{
	return i < nsecs ? secs[i].num_fdes : 0;
}

int BENCH_NAME(has_cache)(void)
{
	return HAVE_CACHE;
}

size_t BENCH_NAME(walk)(const struct bench_regs *r, int use_cache, int *why)
{
	struct stack st = { r->sp, r->stack_hi };
	sfu_port port = { read_stack, NULL, NULL, &st, r->sp, r->stack_hi, NULL, 0 };
	sfu_regs regs = { r->pc, r->sp, r->fp, 0, NULL, 0, NULL };
	size_t n = 0;
#if HAVE_CACHE
	if (use_cache) {
		*why = sfu_backtrace_cached(secs, nsecs, &cache, &port, &regs, frames, r->max, &n);
		return n;
	}
#endif
	(void)use_cache;
	*why = sfu_backtrace(secs, nsecs, &port, &regs, frames, r->max, &n);
	return n;
}

uint64_t BENCH_NAME(pc)(size_t k)
{
	return k < BENCH_MAX_FRAMES ? frames[k].pc : 0;
}
