/* SPDX-License-Identifier: MIT */
/* sfu_port_host.h - sfu port for Linux user space (x86_64, aarch64).
 *
 * For tests, benchmarks and tools that unwind their own process.  Unlike the
 * firmware ports this one uses libc and Linux headers, but only at init time:
 * everything the crash path calls (sfu_host_read, sfu_host_trap,
 * sfu_host_strip_ra, SFU_HOST_CAPTURE, sfu_host_from_ucontext) is
 * async-signal-safe, allocates nothing and takes no lock.
 *
 * WHAT IT SUPPLIES (the list every sfu port has)
 *   SFU_HOST_CAPTURE(regs)              registers at the point of use
 *   sfu_host_from_ucontext(uc, r, dw)   signal handler's ucontext -> sfu_regs,
 *                                       with the DWARF-numbered register array
 *                                       that FLEX rules on other registers need
 *   sfu_host_read                       the core's read: never faults
 *   sfu_host_trap                       the core's trap: crosses the kernel's
 *                                       signal frame (rt_sigreturn trampoline)
 *   sfu_host_strip_ra                   aarch64 PAC strip (XPACLRI)
 *   sfu_host_find_sframe                this process's .sframe sections
 *   sfu_host_port                       fill an sfu_port from the above
 *
 * TYPICAL USE
 *       static sfu_host_mem mem;            // big: keep it out of the stack
 *       static sfu_section secs[SFU_HOST_MAX_SECTIONS];
 *       static size_t nsecs;
 *       // once, at start-up (and in each thread that will unwind itself):
 *       sfu_host_mem_init(&mem);
 *       sfu_host_find_sframe(secs, SFU_HOST_MAX_SECTIONS, &nsecs);
 *       // at the crash:
 *       sfu_host_ctx ctx;  sfu_port port;  sfu_regs regs;
 *       uint64_t dw[SFU_HOST_NDWARF];
 *       sfu_host_port(&port, &ctx, &mem);
 *       sfu_host_from_ucontext(uc, &regs, dw);   // or SFU_HOST_CAPTURE(&regs)
 *       sfu_backtrace(secs, nsecs, &port, &regs, frames, 64, &n);
 *
 * SAFE READ
 *   sfu_host_read reads an aligned 8-byte word only if it lies in the
 *   thread's stack, [stack_lo, stack_hi), or in a readable mapping of the
 *   snapshot taken from /proc/self/maps by sfu_host_mem_init.  Both come
 *   from init time, never from the crash path.  The stack bounds are
 *   pthread_getattr_np's; for a stack that grows on demand (the main
 *   thread's) the bottom is raised to leave SFU_HOST_GUARD_GAP above the
 *   next mapping down, because the kernel refuses to grow a stack into
 *   that gap (a read there would fault instead of growing the stack).
 *   Mappings that change after init (munmap, dlclose) are not seen: call
 *   sfu_host_mem_init again after such changes.
 *
 * FINDING .sframe
 *   GNU ld (2.40 and later) gives every executable or shared object linked
 *   from `-Wa,--gsframe` objects a PT_GNU_SFRAME program header over its
 *   merged .sframe section.  sfu_host_find_sframe walks dl_iterate_phdr
 *   (which works in -static programs too, from AT_PHDR) and takes every such
 *   segment, at its load address.  Firmware uses linker/sframe.ld's
 *   __sframe_start/__sframe_end instead.
 *
 * KNOBS
 *   SFU_HOST_MAX_MAPS       mappings kept from /proc/self/maps   (default 512)
 *   SFU_HOST_MAX_SECTIONS   sections sfu_host_find_sframe keeps  (default 16)
 *   SFU_HOST_GUARD_GAP      the kernel's stack_guard_gap, bytes: whole
 *                           pages, a multiple of 4096       (default 1 MiB)
 *
 * Include core/sfu.h first (this header uses its types).
 */
#ifndef SFU_PORT_HOST_H
#define SFU_PORT_HOST_H

#ifndef SFU_H
#error "include core/sfu.h before port/host/sfu_port_host.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef SFU_HOST_MAX_MAPS
#define SFU_HOST_MAX_MAPS 512
#endif
#ifndef SFU_HOST_MAX_SECTIONS
#define SFU_HOST_MAX_SECTIONS 16
#endif
#ifndef SFU_HOST_GUARD_GAP
#define SFU_HOST_GUARD_GAP (256u * 4096u)
#endif
#if SFU_HOST_MAX_MAPS < 1 || SFU_HOST_MAX_SECTIONS < 1
#error "SFU_HOST_MAX_MAPS and SFU_HOST_MAX_SECTIONS must be at least 1"
#endif
#if SFU_HOST_GUARD_GAP < 0 || SFU_HOST_GUARD_GAP % 4096 != 0
#error "SFU_HOST_GUARD_GAP must be whole pages: a multiple of 4096 bytes, 0 or more"
#endif

/* The ELF program header type of the SFrame segment (binutils elf/common.h;
 * not yet in every libc's <elf.h>). */
#define SFU_HOST_PT_GNU_SFRAME 0x6474e554u

/* ---- per-architecture facts ---------------------------------------------- */

#if defined(__x86_64__)

/* DWARF numbering (psABI x86-64, "DWARF Register Number Mapping"):
 * 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8..15 r8..r15,
 * 16 the return address column (rip). */
#define SFU_HOST_NDWARF 17

/* The registers where the macro is written: the bare-metal port's
 * capture (sfu_capture_x86_64.h). */
#include "../x86_64/sfu_capture_x86_64.h"
#define SFU_HOST_CAPTURE(regs) SFU_CAPTURE_X86_64(regs)

#elif defined(__aarch64__)

/* DWARF numbering (AADWARF64): x0..x30 = 0..30, sp = 31. */
#define SFU_HOST_NDWARF 32

/* The registers where the macro is written: the bare-metal port's
 * capture (sfu_capture_aarch64.h). */
#include "../aarch64/sfu_capture_aarch64.h"
#define SFU_HOST_CAPTURE(regs) SFU_CAPTURE_AARCH64(regs)

#else
#error "port/host supports x86_64 and aarch64 Linux"
#endif

/* ---- types ------------------------------------------------------------------ */

typedef struct sfu_host_range {
	uint64_t lo, hi; /* [lo, hi) */
} sfu_host_range;

/* What may be read, as known at init time.  About 8 KiB: make it static. */
typedef struct sfu_host_mem {
	uint64_t stack_lo, stack_hi;     /* this thread's stack */
	uint32_t nmaps;                  /* readable mappings, sorted, merged */
	uint32_t truncated;              /* 1: more mappings than SFU_HOST_MAX_MAPS */
	sfu_host_range maps[SFU_HOST_MAX_MAPS];
} sfu_host_mem;

/* The port context of one walk: the memory snapshot plus room for the
 * registers that sfu_host_trap restores from a signal frame (the core keeps
 * a pointer to them while it walks the interrupted frame).  Caller-owned,
 * one per concurrent walk; small enough for a signal handler's stack. */
typedef struct sfu_host_ctx {
	const sfu_host_mem *mem;
	uint64_t dwarf[SFU_HOST_NDWARF];
	uint32_t traps; /* signal frames crossed so far */
} sfu_host_ctx;

/* ---- registers from a signal handler's ucontext ------------------------- */

/* Fill *r from the interrupted context uc (the third argument of an
 * SA_SIGINFO handler).  dwarf (SFU_HOST_NDWARF entries, caller-owned) gets
 * every general register by DWARF number and r->dwarf points to it, so FLEX
 * rules based on any register (x86_64 DRAP: CFA = r10 + 0) work in the
 * interrupted frame.  The PC is exact: start the walk there with
 * sfu_cursor_init or sfu_backtrace. */
static inline void sfu_host_from_ucontext(const void *ucv, sfu_regs *r, uint64_t *dwarf)
{
	const ucontext_t *uc = (const ucontext_t *)ucv;
#if defined(__x86_64__)
	const greg_t *g = uc->uc_mcontext.gregs;
	static const unsigned char map[SFU_HOST_NDWARF] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP
	};
	unsigned i;
	for (i = 0; i < SFU_HOST_NDWARF; i++)
		dwarf[i] = (uint64_t)g[map[i]];
	r->pc = (uint64_t)g[REG_RIP];
	r->sp = (uint64_t)g[REG_RSP];
	r->fp = (uint64_t)g[REG_RBP];
	r->ra = 0;
#else
	unsigned i;
	for (i = 0; i < 31; i++)
		dwarf[i] = uc->uc_mcontext.regs[i];
	dwarf[31] = uc->uc_mcontext.sp;
	r->pc = uc->uc_mcontext.pc;
	r->sp = uc->uc_mcontext.sp;
	r->fp = uc->uc_mcontext.regs[29];
	r->ra = uc->uc_mcontext.regs[30];
#endif
	r->dwarf = dwarf;
	r->ndwarf = SFU_HOST_NDWARF;
	r->dwarf_map = NULL;
}

/* ---- the safe read ---------------------------------------------------------- */

static inline bool sfu__host_in(uint64_t addr, uint64_t lo, uint64_t hi)
{
	return addr >= lo && hi >= 8u && addr <= hi - 8u;
}

/* Whether the aligned 8 bytes at addr may be read. */
static inline bool sfu_host_readable(const sfu_host_mem *m, uint64_t addr)
{
	uint32_t lo = 0, hi;
	if (!m || (addr & 7u))
		return false;
	if (sfu__host_in(addr, m->stack_lo, m->stack_hi))
		return true;
	/* Largest mapping with lo <= addr (the table is sorted and merged, so
	 * an aligned word never straddles two entries). */
	hi = m->nmaps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2u;
		if (m->maps[mid].lo <= addr)
			lo = mid + 1u;
		else
			hi = mid;
	}
	return lo > 0 && sfu__host_in(addr, m->maps[lo - 1u].lo, m->maps[lo - 1u].hi);
}

/* Reading other frames' memory is this function's job: under
 * AddressSanitizer it would trip over the redzones of live frames. */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize_address)
#define SFU__HOST_NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef SFU__HOST_NO_ASAN
#define SFU__HOST_NO_ASAN
#endif

/* The core's read callback; ctx is an sfu_host_ctx.  Refuses (returns 1)
 * unaligned addresses and anything outside the init-time snapshot. */
SFU__HOST_NO_ASAN static inline int sfu_host_read(void *ctx, uint64_t addr, uint64_t *out)
{
	const sfu_host_ctx *c = (const sfu_host_ctx *)ctx;
	if (!c || !sfu_host_readable(c->mem, addr))
		return 1;
	*out = *(const volatile uint64_t *)(uintptr_t)addr;
	return 0;
}

/* Read n <= 16 code bytes at any alignment through the safe read. */
static inline bool sfu__host_bytes(sfu_host_ctx *c, uint64_t addr, unsigned char *buf, unsigned n)
{
	uint64_t base = addr & ~(uint64_t)7u, w[3];
	unsigned i, skip = (unsigned)(addr - base);
	for (i = 0; i < 3; i++)
		if (sfu_host_read(c, base + 8u * i, &w[i]))
			return false;
	for (i = 0; i < n && skip + i < 24u; i++)
		buf[i] = (unsigned char)(w[(skip + i) / 8u] >> (8u * ((skip + i) % 8u))); /* little-endian */
	return i == n;
}

/* ---- crossing a signal frame --------------------------------------------- */

/* The core calls this for a PC without SFrame info.  If pc is the
 * rt_sigreturn trampoline a signal handler returns to, the kernel's signal
 * frame lies at sp and holds the interrupted context:
 *
 *   x86_64   trampoline  mov $15, %rax ; syscall   (glibc __restore_rt)
 *            at the trampoline sp = &frame->uc (the handler's `ret` has
 *            popped pretcode; arch/x86/include/asm/sigframe.h rt_sigframe)
 *   aarch64  trampoline  mov x8, #139 ; svc #0     (vDSO __kernel_rt_sigreturn,
 *            or QEMU's sigtramp page)
 *            sp = &frame->info, uc at sp + sizeof(siginfo_t)
 *            (arch/arm64/kernel/signal.c rt_sigframe)
 *
 * glibc's ucontext_t has the kernel's layout up to and including the
 * machine context, so its offsets are used.  Every byte is read through
 * sfu_host_read.  Returns 1 and fills *out (with the full DWARF register
 * array in ctx) or 0. */
static inline int sfu_host_trap(void *ctxv, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	sfu_host_ctx *c = (sfu_host_ctx *)ctxv;
	unsigned char code[9];
	uint64_t uc, v;
	unsigned i;
#if defined(__x86_64__)
	static const unsigned char tramp[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	static const unsigned char map[SFU_HOST_NDWARF] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP
	};
	uint64_t gregs;
	if (!c || !sfu__host_bytes(c, pc, code, 9))
		return 0;
	for (i = 0; i < 9; i++)
		if (code[i] != tramp[i])
			return 0;
	uc = sp;
	gregs = uc + offsetof(ucontext_t, uc_mcontext.gregs);
	for (i = 0; i < SFU_HOST_NDWARF; i++) {
		if (sfu_host_read(c, gregs + 8u * map[i], &v))
			return 0;
		c->dwarf[i] = v;
	}
	out->pc = c->dwarf[16];
	out->sp = c->dwarf[7];
	out->fp = c->dwarf[6];
	out->ra = 0;
#else
	static const unsigned char tramp[8] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };
	uint64_t mc;
	if (!c || !sfu__host_bytes(c, pc, code, 8))
		return 0;
	for (i = 0; i < 8; i++)
		if (code[i] != tramp[i])
			return 0;
	uc = sp + sizeof(siginfo_t);
	mc = uc + offsetof(ucontext_t, uc_mcontext);
	for (i = 0; i < 31; i++) {
		if (sfu_host_read(c, mc + offsetof(mcontext_t, regs) + 8u * i, &v))
			return 0;
		c->dwarf[i] = v;
	}
	if (sfu_host_read(c, mc + offsetof(mcontext_t, sp), &v))
		return 0;
	c->dwarf[31] = v;
	if (sfu_host_read(c, mc + offsetof(mcontext_t, pc), &v))
		return 0;
	out->pc = v;
	out->sp = c->dwarf[31];
	out->fp = c->dwarf[29];
	out->ra = c->dwarf[30];
#endif
	out->dwarf = c->dwarf;
	out->ndwarf = SFU_HOST_NDWARF;
	out->dwarf_map = NULL;
	c->traps++;
	return 1;
}

/* ---- pointer authentication ------------------------------------------------- */

/* aarch64: strip the PAC of a return address signed by -mbranch-protection=
 * pac-ret.  XPACLRI is HINT #7: a NOP on cores without PAuth, where there is
 * nothing to strip.  x86_64: identity. */
static inline uint64_t sfu_host_strip_ra(void *ctx, uint64_t ra)
{
	(void)ctx;
#if defined(__aarch64__)
	{
		register uint64_t x30 __asm__("x30") = ra;
		__asm__("hint #7" : "+r"(x30));
		return x30;
	}
#else
	return ra;
#endif
}

/* ---- the port ----------------------------------------------------------------- */

/* Fill *port for walks of this thread's stack with snapshot *mem; ctx is the
 * caller's per-walk context. */
static inline void sfu_host_port(sfu_port *port, sfu_host_ctx *ctx, const sfu_host_mem *mem)
{
	unsigned i;
	ctx->mem = mem;
	ctx->traps = 0;
	for (i = 0; i < SFU_HOST_NDWARF; i++)
		ctx->dwarf[i] = 0;
	port->read = sfu_host_read;
	port->strip_ra = sfu_host_strip_ra;
	port->trap = sfu_host_trap;
	port->ctx = ctx;
	port->stack_lo = mem->stack_lo;
	port->stack_hi = mem->stack_hi;
	port->stacks = NULL;
	port->nstacks = 0;
	port->entries = NULL;
	port->nentries = 0;
	port->top = 0;
}

/* ---- init time: /proc/self/maps, stack bounds, .sframe ------------------------ */

static inline uint64_t sfu__host_hex(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char ch = **p;
		unsigned d;
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else
			return v;
		v = (v << 4) | d;
	}
}

static inline bool sfu__host_has(const char *s, const char *word)
{
	const char *a, *b;
	for (; *s; s++) {
		for (a = s, b = word; *b && *a == *b; a++, b++)
			;
		if (!*b)
			return true;
	}
	return false;
}

/* One line of /proc/self/maps: "lo-hi perms offset dev inode  name". */
static inline void sfu__host_map_line(sfu_host_mem *m, const char *line, sfu_host_range *all, uint32_t *nall,
                                      uint32_t maxall)
{
	const char *p = line;
	uint64_t lo, hi;
	lo = sfu__host_hex(&p);
	if (*p != '-')
		return;
	p++;
	hi = sfu__host_hex(&p);
	if (*p != ' ' || hi <= lo)
		return;
	p++;
	/* Every mapping, readable or not, for the guard-gap rule below. */
	if (*nall < maxall) {
		all[*nall].lo = lo;
		all[*nall].hi = hi;
		(*nall)++;
	}
	/* [vvar] pages may be unreadable (time namespace page) whatever the
	 * perms say: keep them out. */
	if (p[0] != 'r' || sfu__host_has(p, "[vvar"))
		return;
	if (m->nmaps && m->maps[m->nmaps - 1u].hi == lo) {
		m->maps[m->nmaps - 1u].hi = hi; /* merge neighbours */
		return;
	}
	if (m->nmaps == SFU_HOST_MAX_MAPS) {
		m->truncated = 1;
		return;
	}
	m->maps[m->nmaps].lo = lo;
	m->maps[m->nmaps].hi = hi;
	m->nmaps++;
}

/* Take the snapshot for the calling thread: its stack bounds and the
 * readable mappings.  Not async-signal-safe (pthread_getattr_np may
 * allocate); call at start-up.  Returns 0, or -1 if /proc/self/maps or the
 * stack attributes cannot be read (then nothing is readable). */
static inline int sfu_host_mem_init(sfu_host_mem *m)
{
	sfu_host_range all[SFU_HOST_MAX_MAPS]; /* every mapping, for the guard gap */
	uint32_t nall = 0, i;
	char buf[4096], line[512];
	size_t len = 0;
	ssize_t got;
	int fd;
	pthread_attr_t attr;
	void *addr;
	size_t size;

	m->stack_lo = m->stack_hi = 0;
	m->nmaps = 0;
	m->truncated = 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((got = read(fd, buf, sizeof buf)) > 0) {
		ssize_t k;
		for (k = 0; k < got; k++) {
			if (buf[k] != '\n') {
				if (len < sizeof line - 1u)
					line[len++] = buf[k];
				continue;
			}
			line[len] = 0;
			sfu__host_map_line(m, line, all, &nall, SFU_HOST_MAX_MAPS);
			len = 0;
		}
	}
	close(fd);
	if (got < 0 || m->nmaps == 0)
		return -1;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return -1;
	if (pthread_attr_getstack(&attr, &addr, &size) != 0) {
		pthread_attr_destroy(&attr);
		return -1;
	}
	pthread_attr_destroy(&attr);
	m->stack_lo = (uint64_t)(uintptr_t)addr;
	m->stack_hi = m->stack_lo + size;
	/* A stack that is not all mapped yet grows on demand; the kernel keeps
	 * a guard gap above the next mapping down, and touching that gap
	 * faults.  glibc's bound for the main thread ignores the gap. */
	for (i = 0; i < nall; i++) {
		uint64_t below = 0;
		uint32_t j;
		if (!(all[i].lo < m->stack_hi && m->stack_hi <= all[i].hi))
			continue;
		if (all[i].lo <= m->stack_lo)
			break; /* all mapped: a thread stack, or QEMU's guest stack */
		for (j = 0; j < nall; j++)
			if (all[j].hi <= all[i].lo && all[j].hi > below)
				below = all[j].hi;
		if (below + SFU_HOST_GUARD_GAP > m->stack_lo)
			m->stack_lo = below + SFU_HOST_GUARD_GAP;
		if (m->stack_lo > all[i].lo)
			m->stack_lo = all[i].lo; /* never less than what is mapped now */
		break;
	}
	return 0;
}

typedef struct sfu__host_find {
	sfu_section *secs;
	size_t max, n;
	int err;
} sfu__host_find;

static inline int sfu__host_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	sfu__host_find *f = (sfu__host_find *)data;
	unsigned i;
	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t at;
		int err;
		if (ph->p_type != SFU_HOST_PT_GNU_SFRAME)
			continue;
		if (f->n == f->max) {
			f->err = SFU_E_FULL;
			return 1;
		}
		at = (uint64_t)info->dlpi_addr + ph->p_vaddr;
		err = sfu_section_init(&f->secs[f->n], (const void *)(uintptr_t)at, ph->p_memsz, at);
		if (err == SFU_OK)
			f->n++;
		else if (err != SFU_E_EMPTY && f->err == SFU_OK)
			f->err = err;
	}
	return 0;
}

/* Every PT_GNU_SFRAME segment of the loaded objects (the executable first,
 * as dl_iterate_phdr orders them), validated at the header level, into
 * secs[0..*n).  Returns SFU_OK, SFU_E_NOINFO if there is none, the first
 * section error, or SFU_E_FULL if max was too small (the first max are
 * kept).  Not async-signal-safe: call at start-up or after dlopen. */
static inline int sfu_host_find_sframe(sfu_section *secs, size_t max, size_t *n)
{
	sfu__host_find f;
	f.secs = secs;
	f.max = max;
	f.n = 0;
	f.err = SFU_OK;
	dl_iterate_phdr(sfu__host_phdr_cb, &f);
	*n = f.n;
	if (f.err != SFU_OK)
		return f.err;
	return f.n ? SFU_OK : SFU_E_NOINFO;
}

#endif /* SFU_PORT_HOST_H */
