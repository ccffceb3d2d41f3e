/* SPDX-License-Identifier: MIT */
/* crash_host - the extended crash record of a live Linux process, for
 * test/core/run.sh: tools/sfu-crash --core makes it a core file and gdb's
 * backtrace of every thread is compared with sfu's own.
 *
 *   crash_host RECORD [BUDGET]
 *
 * Three worker threads each recurse to their own depth and spin there;
 * the main thread stops each with a signal, whose handler walks the
 * interrupted context (every general register known, from the ucontext)
 * and holds the thread still; then the main thread "panics" four calls
 * deep: it captures its own registers (PC, SP, FP: the rest unknown),
 * walks, and writes the extended record of all four threads within BUDGET
 * bytes (default 64 KiB) to RECORD, through the host port's checked read.
 *
 * Prints sfu's trace of each thread, as test/core/run.sh compares it, and
 * the crashed thread's registers, every one known (by the record's
 * numbering, the Linux layout's):
 *   thread N "NAME" frames K stop CODE
 *   sfu N #k PC SP
 *   reg I VALUE
 * Exit status: 0, 2 if the writer refused (the message says why), 1 on
 * any other error.
 *
 * Built static (no shared library to map in the core: gdb takes the code
 * from this file), every object with -Wa,--gsframe. */
#define _GNU_SOURCE
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu.h"
#include "sfu_port_host.h"
#include "sfu_crash.h"

#if defined(__x86_64__)
#define MACHINE SFU_CRASH_EM_X86_64
#else
#define MACHINE SFU_CRASH_EM_AARCH64
#endif

#define NWORKERS 3
#define NOINLINE __attribute__((noinline, noclone))

static sfu_section secs[SFU_HOST_MAX_SECTIONS];
static size_t nsecs;
static sfu_host_mem mem[NWORKERS + 1]; /* [0] main's, taken after the workers started */

struct slot {
	sfu_frame f[64];
	size_t n;
	int stop;
	struct sfu_crash_thread t;
	char name[16];
	volatile int spinning, walked;
};
static struct slot slots[NWORKERS + 1];
static volatile int release;
static __thread int self; /* this thread's slot */

/* ---- the workers ------------------------------------------------------------------ */

static volatile uint64_t sink;

/* The leaf the signal interrupts: a loop until the main thread is done. */
NOINLINE static void spin(int i)
{
	volatile uint64_t count = 0;
	slots[i].spinning = 1;
	while (!release)
		count++;
	sink += count;
}

/* Each level keeps a local array on the stack (gdb's `frame N`, `info
 * locals` read it from the window). */
NOINLINE static void recurse(int i, int depth)
{
	volatile uint64_t local[4] = { 0x1111000000000000ull | (uint64_t)depth, 2, 3, 4 };
	if (depth == 0)
		spin(i);
	else
		recurse(i, depth - 1);
	sink += local[0];
}

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	self = i;
	snprintf(slots[i].name, sizeof slots[i].name, "worker%d", i);
	if (sfu_host_mem_init(&mem[i]) != 0) {
		fprintf(stderr, "crash_host: sfu_host_mem_init failed in %s\n", slots[i].name);
		exit(1);
	}
	recurse(i, 2 * i);
	return NULL;
}

/* SIGUSR1: walk the interrupted context, keep every general register it
 * had, and stay here (the stack must not change) until released. */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	struct slot *s = &slots[self];
	const ucontext_t *uc = (const ucontext_t *)ucv;
	uint64_t dw[SFU_HOST_NDWARF];
	sfu_host_ctx ctx;
	sfu_port port;
	sfu_regs regs;

	(void)sig;
	(void)si;
	sfu_host_port(&port, &ctx, &mem[self]);
	sfu_host_from_ucontext(uc, &regs, dw);
	s->stop = sfu_backtrace(secs, nsecs, &port, &regs, s->f, 64, &s->n);
	sfu_crash_regs_from(&s->t, MACHINE, &regs);
#if defined(__x86_64__)
	sfu_crash_set_reg(&s->t, SFU_CRASH_X64_EFLAGS, (uint64_t)uc->uc_mcontext.gregs[REG_EFL]);
	sfu_crash_set_reg(&s->t, SFU_CRASH_X64_CS, (uint64_t)uc->uc_mcontext.gregs[REG_CSGSFS] & 0xffffu);
#else
	sfu_crash_set_reg(&s->t, SFU_CRASH_A64_PSTATE, uc->uc_mcontext.pstate);
#endif
	s->t.name = s->name;
	s->t.state = SFU_CRASH_T_BLOCKED;
	s->t.frames = s->f;
	s->t.nframes = s->n;
	s->t.stop = s->stop;
	s->walked = 1;
	while (!release)
		;
}

/* ---- the main thread ------------------------------------------------------------------ */

static const char *record_path;
static size_t budget = 65536;
static uint8_t record[1 << 20];

/* This program's GNU build-id (its PT_NOTE), for the record. */
struct idfind {
	const uint8_t *id;
	unsigned len;
};

static int find_id(struct dl_phdr_info *info, size_t size, void *data)
{
	struct idfind *f = data;
	unsigned i;
	(void)size;
	if (f->len)
		return 1;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		if (ph->p_type != PT_NOTE)
			continue;
		while (p + 12 <= end) {
			uint32_t namesz, descsz, type;
			memcpy(&namesz, p, 4);
			memcpy(&descsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + 12, "GNU", 4) == 0) {
				f->id = p + 16;
				f->len = descsz;
				return 1;
			}
			p += 12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
		}
	}
	return 0;
}

NOINLINE static int panic_here(void)
{
	volatile uint64_t local[2] = { 0x2222000000000000ull, 0 };
	struct slot *s = &slots[0];
	struct sfu_crash c;
	struct sfu_crash_thread threads[NWORKERS + 1];
	struct sfu_crash_ext x;
	struct idfind id = { NULL, 0 };
	sfu_host_ctx ctx;
	sfu_port port;
	sfu_regs regs;
	size_t used;
	int st, i;
	FILE *f;

	SFU_HOST_CAPTURE(&regs);
	sfu_host_port(&port, &ctx, &mem[0]);
	s->stop = sfu_backtrace(secs, nsecs, &port, &regs, s->f, 64, &s->n);
	sfu_crash_regs_from(&s->t, MACHINE, &regs);
	/* Every other register of the crashed thread a value of its own, so
	 * that the core's NT_PRSTATUS is checked field by field against what
	 * gdb shows (test/core/run.sh): the record's numbering is the Linux
	 * layout, user_regs_struct or user_pt_regs.  The segment registers,
	 * flags and PSTATE are 32 bits wide in gdb: values that fit. */
	for (i = 0; i < (int)sfu_crash_nregs(MACHINE); i++) {
		uint64_t v = 0x0101010101010101ull * (uint64_t)(i + 1) + 0x10000000u * (uint64_t)i;
#if defined(__x86_64__)
		unsigned u = (unsigned)i;
		if (u == SFU_CRASH_X64_CS || u == SFU_CRASH_X64_SS || (u >= SFU_CRASH_X64_DS && u <= SFU_CRASH_X64_GS))
			v = 0x10u + (uint64_t)u;
		if (u == SFU_CRASH_X64_EFLAGS)
			v = 0x246;
#else
		if ((unsigned)i == SFU_CRASH_A64_PSTATE)
			v = 0x60000005;
#endif
		if (!(s->t.valid >> i & 1u))
			sfu_crash_set_reg(&s->t, (unsigned)i, v);
	}
	s->t.name = "main";
	s->t.state = SFU_CRASH_T_CRASHED;
	s->t.frames = s->f;
	s->t.nframes = s->n;
	s->t.stop = s->stop;
	for (i = 0; i < (int)sfu_crash_nregs(MACHINE); i++)
		printf("reg %d 0x%llx\n", i, (unsigned long long)s->t.regs[i]);
	for (i = 0; i <= NWORKERS; i++) {
		threads[i] = slots[i].t;
		printf("thread %d \"%s\" frames %zu stop %s\n", i + 1, threads[i].name, slots[i].n, sfu_strerror(slots[i].stop));
		for (size_t k = 0; k < slots[i].n && k < SFU_CRASH_MAX_FRAMES; k++)
			printf("sfu %d #%zu 0x%llx 0x%llx\n", i + 1, k, (unsigned long long)slots[i].f[k].pc,
			       (unsigned long long)slots[i].f[k].sp);
	}
	dl_iterate_phdr(find_id, &id);
	if (!id.len) {
		fprintf(stderr, "crash_host: no build-id note (link with --build-id)\n");
		return 1;
	}
	sfu_crash_init(&c, 1, SFU_CRASH_PANIC, "crash_host: test panic", s->f[0].pc);
	sfu_crash_frames(&c, s->f, s->n, s->stop);
	memset(&x, 0, sizeof x);
	x.machine = MACHINE;
	x.id = id.id;
	x.idlen = id.len;
	x.threads = threads;
	x.nthreads = NWORKERS + 1;
	x.crashed = 0;
	x.port = &port;
	/* The window reads go through main's snapshot, which holds the
	 * workers' stacks as readable mappings. */
	st = sfu_crash_ext_write(&c, &x, record, budget < sizeof record ? budget : sizeof record, &used);
	if (st == SFU_CRASH_W_BUDGET) {
		fprintf(stderr, "crash_host: a budget of %zu bytes is too small for the crashed thread's first frame: "
		        "no extended record\n", budget);
		return 2;
	}
	if (st != SFU_CRASH_W_OK) {
		fprintf(stderr, "crash_host: sfu_crash_ext_write: %d\n", st);
		return 1;
	}
	f = fopen(record_path, "wb");
	if (!f || fwrite(record, 1, used, f) != used || fclose(f) != 0) {
		perror(record_path);
		return 1;
	}
	printf("record %zu bytes\n", used);
	sink += local[0];
	return 0;
}

NOINLINE static int level3(void) { volatile int pad[3] = { 3, 3, 3 }; int r = panic_here(); return r + pad[0] - 3; }
NOINLINE static int level2(void) { volatile int pad[5] = { 2 }; int r = level3(); return r + pad[0] - 2; }
NOINLINE static int level1(void) { volatile int pad[7] = { 1 }; int r = level2(); return r + pad[0] - 1; }

int main(int argc, char **argv)
{
	pthread_t tid[NWORKERS + 1];
	struct sigaction sa;
	int i, rc;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: crash_host RECORD [BUDGET]\n");
		return 1;
	}
	record_path = argv[1];
	if (argc == 3)
		budget = strtoul(argv[2], NULL, 0);
	if (sfu_host_find_sframe(secs, SFU_HOST_MAX_SECTIONS, &nsecs) != SFU_OK) {
		fprintf(stderr, "crash_host: no .sframe in this program\n");
		return 1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 1; i <= NWORKERS; i++) {
		if (pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i) != 0)
			return 1;
		while (!slots[i].spinning)
			;
	}
	if (sfu_host_mem_init(&mem[0]) != 0) {
		fprintf(stderr, "crash_host: sfu_host_mem_init failed\n");
		return 1;
	}
	for (i = 1; i <= NWORKERS; i++) {
		pthread_kill(tid[i], SIGUSR1);
		while (!slots[i].walked)
			;
	}
	rc = level1();
	release = 1;
	for (i = 1; i <= NWORKERS; i++)
		pthread_join(tid[i], NULL);
	return rc;
}
