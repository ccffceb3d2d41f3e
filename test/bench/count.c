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
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PT_SFRAME 0x6474e554
#define NOINLINE __attribute__((noinline, noclone))

uint64_t chain_run(int which, int depth, uint64_t x, void (*leaf)(void *), void *arg);

#if defined(__x86_64__)
#define CAPTURE(r)                                                                    \
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"           \
	                 : "=r"((r).pc), "=r"((r).sp), "=r"((r).fp))
#elif defined(__aarch64__)
#define CAPTURE(r)                                                                    \
	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29"                       \
	                 : "=r"((r).pc), "=r"((r).sp), "=r"((r).fp))
#else
#error "x86_64 or aarch64"
#endif

void bench_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void *bench_alloc(size_t bytes)
{
	void *p = NULL;
	return posix_memalign(&p, 8, bytes ? bytes : 8) ? NULL : p;
}

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

struct found {
	struct bench_sec secs[BENCH_MAX_SECS];
	size_t n;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct found *f = (struct found *)arg;
	int i;
	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_SFRAME || f->n == BENCH_MAX_SECS)
			continue;
		f->secs[f->n].addr = info->dlpi_addr + p->p_vaddr;
		f->secs[f->n].size = p->p_memsz;
		f->secs[f->n].name = info->dlpi_name[0] ? info->dlpi_name : "(main program)";
		f->n++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct found f = { 0 };
	struct bench_sec ordered[BENCH_MAX_SECS];
	size_t nord = 0, i;
	char err[256], line[512];
	FILE *m;

	if (argc == 3 && !strcmp(argv[1], "--depth"))
		depth = strtoul(argv[2], NULL, 10);
	if (depth < 8 || depth + 4 > BENCH_MAX_FRAMES)
		return 2;
	m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof line, m)) {
		unsigned long lo, hi;
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			stack_hi = hi;
	}
	if (m)
		fclose(m);
	if (!stack_hi) {
		fprintf(stderr, "count: no [stack] in /proc/self/maps\n");
		return 1;
	}
	dl_iterate_phdr(phdr_cb, &f);
	for (i = 0; i < f.n; i++)
		if (strstr(f.secs[i].name, "libchain"))
			ordered[nord++] = f.secs[i];
	for (i = 0; i < f.n; i++)
		if (!strstr(f.secs[i].name, "libchain"))
			ordered[nord++] = f.secs[i];
	if (!nord || !strstr(ordered[0].name, "libchain")) {
		fprintf(stderr, "count: libchain has no PT_GNU_SFRAME segment\n");
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
