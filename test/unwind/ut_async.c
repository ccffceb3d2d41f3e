/* SPDX-License-Identifier: MIT */
/* ut_async.c - the runs whose comparisons happen in the signal handler
 * (ut_signal.c) while a workload loops over the frame shapes: async (a
 * timer interrupts it), step (x86_64: EFLAGS.TF, every instruction of one
 * pass) and bkpt (aarch64: a BRK on every instruction of one pass). */
#include "ut_harness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

/* The hook of these runs: a little work at the deepest point. */
UT_NOINLINE void ut_busy(int site)
{
	int i;
	for (i = 0; i < 8; i++)
		sh_sink += (unsigned long)(i * site) ^ (sh_sink >> 3);
}

UT_NOINLINE static void ut_workload(unsigned i)
{
	switch (i % 9u) {
	case 0: sh_mixed((int)(i & 15)); break;
	case 1: sh_fptr((int)i); break;
	case 2: sh_recurse(6, (int)i); break;
	case 3: sh_bigframe((int)i); break;
	case 4: sh_variadic(4, (int)i, 1, 2, 3); break;
	case 5:
		/* setjmp/longjmp is libc code without .sframe, and slow under
		 * QEMU: one round in eight, so it does not eat the samples. */
		if ((i / 9u) % 8u == 0)
			ut_run_noret((int)i);
		else
			sh_vla((int)i);
		break;
	case 6: sh_tail_a((int)i); break;
	case 7: sh_realign_chain((int)i); break;
	default: sh_sink += sh_leaf(i, 50); break;
	}
}

/* ---- the asynchronous run ---------------------------------------------------- */

static unsigned ut_rng = 12345;
static timer_t ut_timer;
static int ut_timer_kind; /* 0 none, 1 POSIX timer, 2 ITIMER_PROF */
long ut_period_us = 150;

/* Arms the POSIX timer for the next sample, in [period/2, 3*period/2) us. */
void ut_rearm(void)
{
	long us;
	ut_rng ^= ut_rng << 13;
	ut_rng ^= ut_rng >> 17;
	ut_rng ^= ut_rng << 5;
	us = ut_period_us / 2 + (long)(ut_rng % (unsigned)ut_period_us);
	if (ut_timer_kind == 1) {
		struct itimerspec its;
		memset(&its, 0, sizeof its);
		its.it_value.tv_nsec = us * 1000;
		timer_settime(ut_timer, 0, &its, NULL);
	}
}

static double ut_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ut_arm(int prof)
{
	if (!prof) {
		struct sigevent sev;
		memset(&sev, 0, sizeof sev);
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGPROF;
		if (timer_create(CLOCK_MONOTONIC, &sev, &ut_timer) == 0) {
			ut_timer_kind = 1;
			ut_rearm();
			return 0;
		}
	}
	{
		struct itimerval it;
		memset(&it, 0, sizeof it);
		it.it_interval.tv_usec = 1000;
		it.it_value.tv_usec = 1000;
		ut_timer_kind = 2;
		return setitimer(ITIMER_PROF, &it, NULL);
	}
}

static void ut_disarm(void)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	if (ut_timer_kind == 1)
		timer_delete(ut_timer);
	else
		setitimer(ITIMER_PROF, &it, NULL);
	ut_timer_kind = 0;
}

int ut_async(const char *name, unsigned want, double secs, unsigned min, int prof)
{
	double t0 = ut_now(), el;
	unsigned i = 0;
	char extra[160];
	int fails = 0;
	ut_reset();
	ut_hook = ut_busy;
	if (ut_arm(prof) != 0) {
		printf("FAIL async %s: cannot arm a timer: %s\n", name, strerror(errno));
		return 1;
	}
	ut_phase = "the workload";
	while (ut_samples < want) {
		ut_workload(i++);
		if ((i & 63u) == 0 && ut_now() - t0 > secs)
			break;
	}
	ut_disarm();
	el = ut_now() - t0;
	snprintf(extra, sizeof extra, "%u distinct PCs, %s, %.1f s, %u workload rounds", ut_npcs,
	         ut_timer_kind == 2 || prof ? "ITIMER_PROF" : "CLOCK_MONOTONIC timer", el, i);
	if (ut_t_gcc.total < min) {
		ut_t_gcc.unexplained++;
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", fewer than %u samples", min);
	}
	fails += ut_report("async", name, NULL, &ut_t_gcc, 0, extra); /* too few: unexplained, above */
	fails += ut_report("async", name, "trap-path", &ut_t_trap, 1, "sfu across the signal frame by sfu_host_trap");
#if UT_LIBUNWIND
	fails += ut_report("async", name, "libunwind", &ut_t_lu, 1, "unw_init_local2(UNW_INIT_SIGNAL_FRAME)");
#endif
	return fails;
}

/* ---- single-stepping (x86_64) --------------------------------------------------- */

UT_NOINLINE void ut_step_end(void)
{
	__asm__ volatile("" ::: "memory");
}

#if defined(__x86_64__)
UT_NOINLINE static void ut_step_pass(void)
{
	unsigned i;
	/* Set TF: a SIGTRAP after every instruction from the one after popfq
	 * until ut_step_end, where the handler clears it. */
	__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "cc", "memory");
	for (i = 0; i < 9; i++)
		ut_workload(i);
	ut_step_end();
}
#endif

/* ---- breakpoints (aarch64) ------------------------------------------------------- */

/* The workload side of the harness, where breakpoints may go. */
__attribute__((unused)) static int ut_bkpt_target(const ut_sym *s)
{
	return !strncmp(s->name, "sh_", 3) || !strcmp(s->name, "ut_workload") || !strncmp(s->name, "ut_run_", 7) ||
	       !strcmp(s->name, "ut_busy");
}

int ut_bkpt(const char *name)
{
#if defined(__aarch64__)
	size_t i, n = 0, hit = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char extra[160];
	int fails = 0;
	unsigned k;
	ut_hook = ut_busy;
	for (k = 0; k < 9; k++)
		ut_workload(k);
	for (i = 0; i < ut_nsyms; i++)
		if (ut_bkpt_target(&ut_syms[i]))
			n += (size_t)(ut_syms[i].hi - ut_syms[i].lo) / 4u;
	ut_bps = calloc(n ? n : 1, sizeof *ut_bps);
	if (!ut_bps) {
		printf("FAIL bkpt %s: out of memory\n", name);
		return 1;
	}
	for (i = 0; i < ut_nsyms; i++) {
		uint64_t a;
		if (!ut_bkpt_target(&ut_syms[i]))
			continue;
		a = ut_syms[i].lo & ~(uint64_t)(pg - 1);
		if (mprotect((void *)(uintptr_t)a, (size_t)(ut_syms[i].hi - a), PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
			printf("FAIL bkpt %s: mprotect: %s\n", name, strerror(errno));
			return 1;
		}
		for (a = ut_syms[i].lo; a + 4 <= ut_syms[i].hi; a += 4) {
			ut_bps[ut_nbps].addr = a;
			ut_bps[ut_nbps].orig = *(const uint32_t *)(uintptr_t)a;
			ut_nbps++;
		}
	}
	ut_reset();
	ut_bkpt_on = 1;
	for (i = 0; i < ut_nbps; i++)
		ut_poke(ut_bps[i].addr, 0xd4200000u); /* brk #0 */
	ut_phase = "the workload";
	for (k = 0; k < 9; k++)
		ut_workload(k); /* k = 5 takes the noreturn path */
	for (i = 0; i < ut_nbps; i++) {
		if (!ut_bps[i].hit)
			ut_poke(ut_bps[i].addr, ut_bps[i].orig);
		hit += ut_bps[i].hit;
	}
	ut_bkpt_on = 0;
	snprintf(extra, sizeof extra, "%zu of %zu instruction slots of the workload's functions reached", hit, ut_nbps);
	fails += ut_report("bkpt", name, NULL, &ut_t_gcc, 200, extra);
	fails += ut_report("bkpt", name, "trap-path", &ut_t_trap, 1, "sfu across the signal frame by sfu_host_trap");
	return fails;
#else
	printf("FAIL bkpt %s: breakpoint mode is implemented for aarch64 only (x86_64 uses step)\n", name);
	return 1;
#endif
}

int ut_step(const char *name)
{
#if defined(__x86_64__)
	char extra[128];
	int fails = 0;
	unsigned i;
	ut_hook = ut_busy;
	for (i = 0; i < 9; i++)
		ut_workload(i); /* resolve PLT slots first: no ld.so in the pass */
	ut_reset();
	ut_step_end_pc = (uint64_t)(uintptr_t)ut_step_end;
	memset(&ut_t_cont, 0, sizeof ut_t_cont);
	ut_prev_ok = 0;
	ut_stepping = 1;
	ut_step_pass();
	ut_stepping = 0;
	snprintf(extra, sizeof extra, "%u distinct PCs, every instruction of one pass over the shapes", ut_npcs);
	fails += ut_report("step", name, NULL, &ut_t_gcc, 1000, extra);
	fails += ut_report("step", name, "trap-path", &ut_t_trap, 1, "sfu across the signal frame by sfu_host_trap");
	fails += ut_report("step", name, "continuity", &ut_t_cont, 1000,
	                   "consecutive instructions: callers kept, pushed or popped by one");
#if UT_LIBUNWIND
	fails += ut_report("step", name, "libunwind", &ut_t_lu, 1, "");
#endif
	return fails;
#else
	printf("FAIL step %s: single-stepping is implemented for x86_64 only\n", name);
	return 1;
#endif
}
