/* SPDX-License-Identifier: MIT */
/* Benchmark harness: unwind the same stack with every unwinder, check they
 * agree, then count instructions (under callgrind) or time them.
 *
 *   bench [--depths 16,64,256] [--samples N] [--gen V1]
 *
 * The stack: main -> chain_run (libchain, built by the toolchain under
 * test) -> D chain functions -> at_leaf -> measure -> run_* -> do_unwind.
 * Every unwinder starts in do_unwind and takes exactly D frames, so they all
 * walk the same frames: do_unwind, its two callers, at_leaf, then D - 4
 * chain functions.
 *
 * Build with -DBENCH_LIBUNWIND=1 for the libunwind binary (libunwind
 * exports its own _Unwind_* symbols, so it cannot share a binary with
 * libgcc's unwinder), 0 for the libgcc one.  The sfu builds it links are
 * listed in bench.h; -DBENCH_BASE=0 leaves out the baseline core (bas_).
 *
 * Output, one line per measurement, for test/bench/report.py:
 *   CHECK depth=D ok frames=N
 *   TIME unw=NAME depth=D frames=N ns_per_frame=X
 * and under callgrind one stats dump per measurement, named
 *   unw=NAME depth=D frames=N
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

#if BENCH_LIBUNWIND
#include <libunwind.h>
#define LIB_NAME "libunwind"
#else
#include <unwind.h>
#define LIB_NAME "libgcc"
#endif

#include "host.h"

#ifndef BENCH_BASE
#define BENCH_BASE 1
#endif

#define NOINLINE __attribute__((noinline, noclone))

uint64_t chain_run(int which, int depth, uint64_t x, void (*leaf)(void *), void *arg);

/* The sfu builds (bench.h), as tables. */
struct build {
	int (*setup)(const struct bench_sec *, size_t, char *, size_t);
	int (*version)(size_t);
	uint32_t (*nfdes)(size_t);
	int (*has)(int);
	size_t (*index_bytes)(int);
	size_t (*walk)(const struct bench_regs *, int, int *);
	uint64_t (*pc)(size_t);
};
#define BUILD(p) { p##_setup, p##_version, p##_nfdes, p##_has, p##_index_bytes, p##_walk, p##_pc }
enum { B_SFU, B_SFX, B_SFR, B_SFN, B_SFS, B_BAS, B_COUNT };
static const struct build builds[B_COUNT] = {
	BUILD(sfu), BUILD(sfx), BUILD(sfr), BUILD(sfn), BUILD(sfs),
#if BENCH_BASE
	BUILD(bas),
#else
	{ 0 },
#endif
};

/* The unwinders: the frame-pointer floor, sfu builds in one mode each, the
 * library.  Names are what report.py prints. */
enum {
	U_FP, U_SFU, U_FDEIDX, U_ROWIDX, U_CACHE, U_CACHE_READ, U_ROWIDX_READ, U_UNSAFE, U_SMALL, U_SMALL_CACHE, U_BASE,
	U_BASE_CACHE, U_LIB, U_COUNT
};
static const struct {
	const char *name;
	int build, mode; /* -1: not sfu */
} unw[U_COUNT] = {
	{ "fp", -1, 0 },
	{ "sfu", B_SFU, BENCH_COLD },
	{ "sfu+fdeidx", B_SFX, BENCH_FDEIDX },
	{ "sfu+rowidx", B_SFX, BENCH_ROWIDX },
	{ "sfu+cache", B_SFX, BENCH_CACHE },
	{ "sfu+cache/read", B_SFR, BENCH_CACHE },
	{ "sfu+rowidx/read", B_SFR, BENCH_ROWIDX },
	{ "sfu/unsafe", B_SFN, BENCH_COLD },
	{ "sfu/small", B_SFS, BENCH_COLD },
	{ "sfu/small+cache", B_SFS, BENCH_CACHE },
	{ "base", B_BAS, BENCH_COLD },
	{ "base+cache", B_BAS, BENCH_CACHE },
	{ LIB_NAME, -1, 0 },
};
#define unw_name(u) (unw[u].name)

static int have[U_COUNT];
static uint64_t stack_hi;
static size_t lib_extra; /* frames of its own the library unwinder reports first */
static uint64_t scratch[BENCH_MAX_FRAMES + 8];
static int sfu_why;

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "bench: ERROR: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- the unwinders ------------------------------------------------------- */

/* The floor: follow the frame-record chain ([fp] = caller's fp, [fp+8] =
 * return address on both x86_64 and aarch64), with the same stack bounds
 * check the sfu port does. */
static size_t fp_walk(const struct bench_regs *r, uint64_t *out)
{
	uint64_t fp = r->fp;
	size_t n = 0;
	out[n++] = r->pc;
	while (n < r->max) {
		const uint64_t *f;
		if (fp < r->sp || fp > r->stack_hi - 16u || (fp & 7u))
			break;
		f = (const uint64_t *)(uintptr_t)fp;
		if (f[1] == 0)
			break;
		out[n++] = f[1];
		if (f[0] <= fp)
			break;
		fp = f[0];
	}
	return n;
}

#if !BENCH_LIBUNWIND
struct gcc_bt {
	uint64_t *out;
	size_t n, max;
};

static _Unwind_Reason_Code gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
	struct gcc_bt *b = (struct gcc_bt *)arg;
	b->out[b->n++] = (uint64_t)_Unwind_GetIP(ctx);
	return b->n >= b->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}
#endif

/* Frame 0 of every walk. */
static NOINLINE size_t do_unwind(int u, size_t max, uint64_t *out)
{
	struct bench_regs r;
	r.stack_hi = stack_hi;
	r.max = max;
	if (unw[u].build >= 0) {
		CAPTURE(r);
		return builds[unw[u].build].walk(&r, unw[u].mode, &sfu_why);
	}
	switch (u) {
	case U_FP:
		CAPTURE(r);
		return fp_walk(&r, out);
	case U_LIB: {
#if BENCH_LIBUNWIND
		int n = unw_backtrace((void **)out, (int)(max + lib_extra));
		return n < 0 ? 0 : (size_t)n;
#else
		struct gcc_bt b = { out, 0, max + lib_extra };
		_Unwind_Backtrace(gcc_cb, &b);
		return b.n;
#endif
	}
	default:
		return 0;
	}
}

static uint64_t pc_of(int u, const uint64_t *out, size_t k)
{
	if (unw[u].build >= 0)
		return builds[unw[u].build].pc(k);
	if (u == U_LIB)
		return out[k + lib_extra];
	return out[k];
}

/* ---- one depth ----------------------------------------------------------- */

struct run {
	size_t want, depth; /* depth: 0 until the leaf is reached */
	int samples;
	int cg;
};

/* The one call site of do_unwind for check(): frame 1 is the same PC for
 * every unwinder. */
static NOINLINE size_t check_walk(int u, size_t max)
{
	return do_unwind(u, max, scratch);
}

static NOINLINE void check(size_t depth)
{
	static uint64_t ref[BENCH_MAX_FRAMES];
	size_t n, k;
	int u, bad = 0;

	n = check_walk(U_FP, depth);
	if (n != depth)
		die("frame-pointer walk took %zu frames, wanted %zu", n, depth);
	memcpy(ref, scratch, n * sizeof ref[0]);

	/* The library's own first frames: unw_backtrace starts inside itself.
	 */
	lib_extra = 0;
	n = check_walk(U_LIB, depth + 2);
	for (k = 0; k < 2 && k + 1 < n; k++)
		if (scratch[k + 1] == ref[1])
			break;
	if (k == 2) {
		for (k = 0; k < 4 && k < n; k++)
			fprintf(stderr, "bench: frame %zu: fp %#llx, %s %#llx\n", k, (unsigned long long)ref[k], LIB_NAME,
			        (unsigned long long)scratch[k]);
		die("%s: no frame matches the frame-pointer walk's frame 1 (%#llx)", LIB_NAME, (unsigned long long)ref[1]);
	}
	lib_extra = k;

	/* Fill the caches: the walks checked below come from them. */
	for (u = 0; u < U_COUNT; u++)
		if (have[u] && unw[u].build >= 0 && unw[u].mode == BENCH_CACHE)
			check_walk(u, depth);

	for (u = 0; u < U_COUNT; u++) {
		if (!have[u])
			continue;
		sfu_why = -1;
		n = check_walk(u, depth);
		if (u == U_LIB)
			n -= n >= lib_extra ? lib_extra : n;
		if (n != depth) {
			fprintf(stderr, "bench: ERROR: %s took %zu frames, wanted %zu", unw_name(u), n, depth);
			if (unw[u].build >= 0)
				fprintf(stderr, " (sfu stop code %d)", sfu_why);
			fputc('\n', stderr);
			bad = 1;
			continue;
		}
		if (u == U_FP) { /* the reference, from this call site */
			memcpy(ref, scratch, n * sizeof ref[0]);
			continue;
		}
		/* Frame 0 is do_unwind at a different PC for each unwinder. */
		for (k = 1; k < depth; k++) {
			uint64_t pc = pc_of(u, scratch, k);
			if (pc != ref[k]) {
				fprintf(stderr, "bench: ERROR: %s disagrees with the frame-pointer walk at depth %zu, frame %zu: %#llx, wanted %#llx\n",
				        unw_name(u), depth, k, (unsigned long long)pc, (unsigned long long)ref[k]);
				bad = 1;
				break;
			}
		}
	}
	if (bad)
		die("the unwinders do not return the same PCs (depth %zu)", depth);
	printf("CHECK depth=%zu ok frames=%zu unwinders=", depth, depth);
	for (u = 0; u < U_COUNT; u++)
		if (have[u])
			printf("%s%s", unw_name(u), u + 1 < U_COUNT ? "," : "");
	printf(" %s_extra_frames=%zu\n", LIB_NAME, lib_extra);
}

/* Callgrind's collection on around the collected pass (off: nothing). */
static NOINLINE void count_start(int collect)
{
	if (collect) {
		CALLGRIND_ZERO_STATS;
		CALLGRIND_TOGGLE_COLLECT;
	}
}

static NOINLINE void count_stop(int collect)
{
	if (collect)
		CALLGRIND_TOGGLE_COLLECT;
}

/* The passes of count, read (not a constant, which gcc -O2 unrolls).  Both
 * passes must walk from the same return addresses: gcc had peeled a loop
 * with the toggles in it into two calls of do_unwind, so the collected walk
 * started from another return address than the warm one (a cache miss per
 * walk). */
static volatile int count_passes = 2;

/* Callgrind: collect exactly one warm call of each unwinder. */
static NOINLINE void count(size_t depth)
{
	char name[96];
	int u, rep;
	for (u = 0; u < U_COUNT; u++) {
		if (!have[u])
			continue;
		/* Twice from one call site: the first warms caches and lazy
		 * binding, the second (same stack, same PCs) is collected. */
		for (rep = 0; rep < count_passes; rep++) {
			count_start(rep);
			do_unwind(u, depth, scratch);
			count_stop(rep);
		}
		snprintf(name, sizeof name, "unw=%s depth=%zu frames=%zu", unw_name(u), depth, depth);
		CALLGRIND_DUMP_STATS_AT(name);
	}
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static NOINLINE double batch(int u, size_t depth, long k)
{
	double t0 = now_ns();
	long i;
	for (i = 0; i < k; i++)
		if (do_unwind(u, depth, scratch) < depth)
			die("%s stopped early while timing", unw_name(u));
	return (now_ns() - t0) / (double)k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median over `samples` batches; batches of the unwinders are interleaved
 * so that a slow patch of the machine hits all of them alike. */
static NOINLINE void timing(size_t depth, int samples)
{
	static double t[U_COUNT][4096];
	long k[U_COUNT];
	int u, s;
	if (samples > 4096)
		samples = 4096;
	for (u = 0; u < U_COUNT; u++) {
		if (!have[u])
			continue;
		/* Batches of at least ~20 us, so the clock's cost vanishes. */
		batch(u, depth, 1); /* warm */
		for (k[u] = 1; k[u] < 4096; k[u] *= 2)
			if (batch(u, depth, k[u]) * (double)k[u] >= 20000.0)
				break;
	}
	for (s = 0; s < samples; s++)
		for (u = 0; u < U_COUNT; u++)
			if (have[u])
				t[u][s] = batch(u, depth, k[u]);
	for (u = 0; u < U_COUNT; u++) {
		if (!have[u])
			continue;
		qsort(t[u], (size_t)samples, sizeof t[u][0], cmp_double);
		printf("TIME unw=%s depth=%zu frames=%zu ns_per_frame=%.3f batch=%ld samples=%d\n", unw_name(u), depth,
		       depth, t[u][samples / 2] / (double)depth, k[u], samples);
	}
}

static NOINLINE void measure(struct run *run)
{
	check(run->depth);
	if (run->cg)
		count(run->depth);
	else
		timing(run->depth, run->samples);
	fflush(stdout);
}

static NOINLINE void at_leaf(void *arg)
{
	struct run *run = (struct run *)arg;
	run->depth = run->want;
	measure(run);
}

/* ---- setup --------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const size_t default_depths[] = { 16, 64, 256 };
	size_t depths[16], ndepths = 0, i;
	struct bench_sec ordered[BENCH_MAX_SECS];
	size_t nord = 0;
	char err[256];
	int samples = 201, cg = RUNNING_ON_VALGRIND ? 1 : 0, a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--samples") && a + 1 < argc) {
			samples = atoi(argv[++a]);
		} else if (!strcmp(argv[a], "--depths") && a + 1 < argc) {
			char *p = argv[++a];
			while (*p && ndepths < 16) {
				depths[ndepths++] = strtoul(p, &p, 10);
				if (*p == ',')
					p++;
			}
		} else {
			die("usage: %s [--depths 16,64,256] [--samples N]", argv[0]);
		}
	}
	if (!ndepths)
		for (i = 0; i < 3; i++)
			depths[ndepths++] = default_depths[i];
	if (samples < 1)
		samples = 1;
	/* For profiling with valgrind --toggle-collect=...: no client requests. */
	if (getenv("BENCH_PROFILE"))
		cg = 0;

	stack_hi = host_stack_top();
	if (!stack_hi)
		die("no [stack] in /proc/self/maps");
	nord = host_sframe_sections(ordered);
	if (!nord)
		die("libchain has no PT_GNU_SFRAME segment (was it built with -Wa,--gsframe?)");
	for (a = 0; a < B_COUNT; a++) {
		if (!builds[a].setup)
			continue;
		if (builds[a].setup(ordered, nord, err, sizeof err))
			die("sfu build %d: %s", a, err);
	}
	have[U_FP] = have[U_LIB] = 1;
	for (a = 0; a < U_COUNT; a++)
		if (unw[a].build >= 0 && builds[unw[a].build].setup)
			have[a] = builds[unw[a].build].has(unw[a].mode);
	for (a = 0; a < U_COUNT; a++)
		if (have[a] && unw[a].build >= 0 && builds[unw[a].build].index_bytes(unw[a].mode))
			printf("INDEX unw=%s bytes=%zu\n", unw_name(a), builds[unw[a].build].index_bytes(unw[a].mode));
	/* BENCH_ONLY=name: keep only that unwinder (and the floor and the
	 * library, which check() needs), for profiling one of them. */
	if (getenv("BENCH_ONLY"))
		for (a = 0; a < U_COUNT; a++)
			if (a != U_FP && a != U_LIB && strcmp(unw_name(a), getenv("BENCH_ONLY")))
				have[a] = 0;
	for (i = 0; i < nord; i++)
		printf("SECTION %s version=%d size=%zu fdes=%u\n", ordered[i].name, sfu_version(i), ordered[i].size,
		       (unsigned)sfu_nfdes(i));

	for (i = 0; i < ndepths; i++) {
		struct run run = { depths[i], 0, samples, cg };
		if (depths[i] < 8 || depths[i] + 4 > BENCH_MAX_FRAMES)
			die("depth %zu out of range", depths[i]);
		/* D chain functions: more than the D - 4 the walks take, so no
		 * walk reaches chain_run or main. */
		run.depth = 0;
		chain_run((int)(i % 3), (int)depths[i], 12345u + i, at_leaf, &run);
		if (run.depth == 0)
			die("the chain of depth %zu did not reach its leaf", depths[i]);
	}
	return 0;
}
