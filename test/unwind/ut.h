/* SPDX-License-Identifier: MIT */
/* ut.h - what the frame-shape files (sh_*.c) and the harness (ut_*.c) share.
 *
 * Naming: every function written for the live tests starts with `sh_`
 * (frame shapes) or `ut_` (harness), plus main.  The harness uses the
 * prefixes to tell the test's own code from libc, crt files and the PLT
 * when it classifies a mismatch. */
#ifndef UT_H
#define UT_H

#include <setjmp.h>

#define UT_NOINLINE __attribute__((noinline, noclone))

/* Called at the deepest point of every chain: the synchronous probe, or a
 * short busy loop in the asynchronous and single-step runs. */
typedef void ut_hook_fn(int site);
extern ut_hook_fn *volatile ut_hook;

/* Executes one faulting instruction (SIGILL) whose handler compares the
 * unwinders from the ucontext and resumes after it: an exception at a
 * chosen PC, in code that calls nothing (a leaf) or in any other shape. */
#if defined(__x86_64__)
#define UT_TRAP() __asm__ volatile("ud2" ::: "memory")
#define UT_TRAP_LEN 2
#elif defined(__aarch64__)
#define UT_TRAP() __asm__ volatile("udf #0" ::: "memory")
#define UT_TRAP_LEN 4
#endif

/* Where sh_noret_die jumps back to. */
extern jmp_buf ut_noret_jb;

extern volatile unsigned long sh_sink;

/* The chains (all end in ut_hook).  n scales the work done on the way. */
int sh_fp_chain(int n);        /* sh_fp.c: -fno-omit-frame-pointer */
int sh_nofp_chain(int n);      /* sh_nofp.c: -fomit-frame-pointer */
int sh_alloca(int n);
int sh_vla(int n);
int sh_variadic(int n, ...);
int sh_bigframe(int n);
int sh_tail_a(int n);
int sh_recurse(int depth, int n);
int sh_fptr(int n);
int sh_mixed(int n);
void sh_noret_caller(int n);   /* sh_noret.c: ends in a noreturn call */
int sh_noret_next(int n);      /* laid out right after sh_noret_caller */
int sh_realign_chain(int n);   /* sh_realign.c: over-aligned frames, DRAP */
int sh_realign_trap(int n);
int sh_leaf_trap(int n);       /* traps in a frameless leaf */
int sh_fp_trap(int n);
unsigned long sh_leaf(unsigned long x, int n);

#endif
