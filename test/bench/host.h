/* SPDX-License-Identifier: MIT */
/* host.h - what the host-side bench programs (bench.c, count.c) share: the
 * register capture at the first frame, the .sframe segments of the loaded
 * objects (libchain first), the top of the main thread's stack, and the two
 * helpers the sfu builds call (bench.h).  One program includes it once. */
#ifndef BENCH_HOST_H
#define BENCH_HOST_H

#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PT_SFRAME 0x6474e554 /* PT_GNU_SFRAME, not in every <elf.h> yet */

/* The registers here: the first frame of a walk. */
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

struct host_found {
	struct bench_sec secs[BENCH_MAX_SECS];
	size_t n;
};

static int host_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct host_found *f = (struct host_found *)arg;
	int i;
	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_SFRAME || f->n == BENCH_MAX_SECS)
			continue;
		f->secs[f->n].addr = info->dlpi_addr + p->p_vaddr;
		f->secs[f->n].size = p->p_memsz;
		f->secs[f->n].name = info->dlpi_name[0] ? strdup(info->dlpi_name) : "(main program)";
		f->n++;
	}
	return 0;
}

/* The loaded objects' .sframe segments into out[], libchain's first (nearly
 * every lookup is there); 0 if libchain has none. */
static size_t host_sframe_sections(struct bench_sec *out)
{
	struct host_found f;
	size_t i, n = 0;
	memset(&f, 0, sizeof f);
	dl_iterate_phdr(host_phdr_cb, &f);
	for (i = 0; i < f.n; i++)
		if (strstr(f.secs[i].name, "libchain"))
			out[n++] = f.secs[i];
	if (!n)
		return 0;
	for (i = 0; i < f.n; i++)
		if (!strstr(f.secs[i].name, "libchain"))
			out[n++] = f.secs[i];
	return n;
}

/* The top of the main thread's stack, 0 if /proc does not say. */
static uint64_t host_stack_top(void)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi;
	uint64_t top = 0;
	while (m && fgets(line, sizeof line, m))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			top = hi;
	if (m)
		fclose(m);
	return top;
}

#endif
