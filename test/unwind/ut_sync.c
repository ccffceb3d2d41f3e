/* SPDX-License-Identifier: MIT */
/* ut_sync.c - the synchronous cases: each scenario runs a frame shape once
 * with a hook at its deepest point, either the probe (sfu from registers
 * captured there against libgcc's _Unwind_Backtrace from the same place) or
 * a trap (SIGILL, compared in the signal handler, ut_signal.c). */
#include "ut_harness.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

ut_hook_fn *volatile ut_hook;
static ut_tally ut_t_sync, ut_t_sync_lu;
static uint64_t ut_seen_noret_ra;
static sfu_host_mem ut_tmem; /* the probe thread's (the "thread" case) */

/* Frame 0 is this function for both unwinders, at different PCs (sfu: the
 * capture; libgcc: the return address of _Unwind_Backtrace), so it is
 * compared by function; every frame after it by PC and SP. */
UT_NOINLINE static void ut_probe(int site)
{
	sfu_regs regs;
	int k;
	(void)site;
	SFU_HOST_CAPTURE(&regs);
	ut_r.n = 0;
	_Unwind_Backtrace(ut_gcc_cb, &ut_r);
	ut_sfu_trace(&regs, &ut_s, NULL);
	ut_verdict vg;
	ut_judge(&ut_s, &ut_r, 1, 0, &vg);
	ut_record(&ut_t_sync, &vg, &ut_s, &ut_r);
	for (k = 1; k < ut_r.n; k++)
		if (ut_r.pc[k] == (uint64_t)(uintptr_t)sh_noret_next)
			ut_seen_noret_ra = ut_r.pc[k];
#if UT_LIBUNWIND
	{
		unw_context_t uc;
		unw_cursor_t cur;
		unw_getcontext(&uc);
		if (unw_init_local(&cur, &uc) == 0) {
			ut_verdict vl;
			ut_lu_walk(&cur, &ut_l);
			ut_judge(&ut_s, &ut_l, 1, 0, &vl);
			ut_second_opinion(&vl, &vg);
			ut_record(&ut_t_sync_lu, &vl, &ut_s, &ut_l);
		}
	}
#endif
}

UT_NOINLINE static void ut_hook_trap_leaf(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_leaf_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE static void ut_hook_trap_fp(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_fp_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE static void ut_hook_trap_realign(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_realign_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE int ut_run_noret(int n)
{
	if (setjmp(ut_noret_jb) == 0)
		sh_noret_caller(n);
	return n;
}

/* The probe on another thread's stack: the port must bound reads by that
 * thread's stack (its own sfu_host_mem_init), and comparisons end at the
 * thread's start routine instead of main. */
UT_NOINLINE static void *ut_thread_main(void *arg)
{
	int n = (int)(intptr_t)arg;
	if (sfu_host_mem_init(&ut_tmem) != 0)
		return NULL;
	ut_memp = &ut_tmem;
	ut_stop = ut_sym_at((uint64_t)(uintptr_t)ut_thread_main);
	sh_mixed(n);
	ut_stop = ut_main;
	ut_memp = &ut_mem;
	return arg;
}

UT_NOINLINE static int ut_run_thread(int n)
{
	pthread_t t;
	void *ret = NULL;
	if (pthread_create(&t, NULL, ut_thread_main, (void *)(intptr_t)n) != 0 || pthread_join(t, &ret) != 0)
		return -1;
	return (int)(intptr_t)ret;
}

UT_NOINLINE static int ut_run_variadic(int n) { return sh_variadic(4, n, n + 1, 2, 3); }
UT_NOINLINE static int ut_run_recurse(int n) { return sh_recurse(24, n); }
UT_NOINLINE static int ut_run_fptr(int n) { return sh_fptr(n) + sh_fptr(n + 1) + sh_fptr(n + 2); }

typedef struct ut_scenario {
	const char *name;
	int (*run)(int);
	ut_hook_fn *hook; /* NULL: the probe */
} ut_scenario;

static const ut_scenario ut_scenarios[] = {
	{ "fp-kept", sh_fp_chain, NULL },
	{ "fp-omitted", sh_nofp_chain, NULL },
	{ "alloca", sh_alloca, NULL },
	{ "vla", sh_vla, NULL },
	{ "variadic", ut_run_variadic, NULL },
	{ "bigframe", sh_bigframe, NULL },
	{ "tailcall", sh_tail_a, NULL },
	{ "recursion", ut_run_recurse, NULL },
	{ "fptr", ut_run_fptr, NULL },
	{ "noreturn", ut_run_noret, NULL },
	{ "realign", sh_realign_chain, NULL },
	{ "mixed", sh_mixed, NULL },
	{ "thread", ut_run_thread, NULL },
	{ "trap-leaf", sh_mixed, ut_hook_trap_leaf },
	{ "trap-fp", sh_fptr, ut_hook_trap_fp },
	{ "trap-realign", ut_run_recurse, ut_hook_trap_realign },
};
#define UT_NSCEN (sizeof ut_scenarios / sizeof ut_scenarios[0])

int ut_sync(const char *name)
{
	size_t i;
	char full[256];
	int fails = 0;
	for (i = 0; i < UT_NSCEN; i++) {
		const ut_scenario *sc = &ut_scenarios[i];
		const char *extra = "";
		memset(&ut_t_sync, 0, sizeof ut_t_sync);
		memset(&ut_t_sync_lu, 0, sizeof ut_t_sync_lu);
		ut_reset();
		ut_seen_noret_ra = 0;
		ut_trap_bad_pc = 0;
		ut_hook = sc->hook ? sc->hook : ut_probe;
		sc->run(5);
		ut_hook = ut_busy;
		snprintf(full, sizeof full, "%s/%s", name, sc->name);
		if (sc->hook) {
			/* Traps: compared in the signal handler. */
			char bad[128] = "";
			if (ut_trap_bad_pc) {
				ut_t_gcc.unexplained++;
				snprintf(bad, sizeof bad, "%u unexpected SIGILL", ut_trap_bad_pc);
			}
			fails += ut_report("sync", full, NULL, &ut_t_gcc, 1, bad);
			fails += ut_report("sync", full, "trap-path", &ut_t_trap, 1,
			                   "sfu across the signal frame by sfu_host_trap");
#if UT_LIBUNWIND
			fails += ut_report("sync", full, "libunwind", &ut_t_lu, 1, "");
#endif
			continue;
		}
		if (!strcmp(sc->name, "noreturn")) {
			/* The point of this case: the return address is the first
			 * byte of the next function. */
			extra = "a return address is sh_noret_next+0";
			if (!ut_seen_noret_ra) {
#if defined(__clang__)
				/* clang pads after a noreturn call whatever
				 * -falign-functions says: the return address falls in
				 * the padding, never on the next function (the gcc
				 * suites cover that case). */
				extra = "layout: clang pads after the noreturn call";
#else
				ut_t_sync.unexplained++;
				extra = "layout: no return address equal to sh_noret_next (the case tests nothing)";
#endif
			}
		}
		fails += ut_report("sync", full, NULL, &ut_t_sync, 1, extra);
#if UT_LIBUNWIND
		fails += ut_report("sync", full, "libunwind", &ut_t_sync_lu, 1, "");
#endif
	}
	return fails;
}
