/* SPDX-License-Identifier: MIT */
/* ut_harness.h - what the harness's files (ut_*.c) share; the frame shapes
 * (sh_*.c) see only ut.h.  Include it first: it sets _GNU_SOURCE.  Each
 * section below names the file that defines it; README.md says what each
 * file is for.
 *
 * Everything that runs in a signal handler is async-signal-safe: no malloc,
 * no stdio, tables built at start-up.  libgcc's _Unwind_Backtrace is called
 * from the handler; it is warmed up before any signal (its first call may
 * allocate in static programs). */
#ifndef UT_HARNESS_H
#define UT_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../../port/host/sfu_port_host.h"

#include <stdint.h>
#include <unwind.h>

/* libunwind as a second reference (bookworm x86_64, libunwind 1.6.2). */
#ifndef UT_LIBUNWIND
#define UT_LIBUNWIND 0
#endif
#if UT_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "ut.h"

/* ---- traces (ut_walk.c) ---------------------------------------------------- */

#define UT_MAXF 128

typedef struct ut_trace {
	int n;   /* frames */
	int err; /* sfu: why the walk stopped */
	uint64_t pc[UT_MAXF], sp[UT_MAXF];
	uint8_t exact[UT_MAXF]; /* pc is exact (not a return address) */
	uint8_t how[UT_MAXF];   /* sfu: enum sfu_how */
} ut_trace;

extern sfu_host_mem ut_mem;          /* the main thread's snapshot */
extern const sfu_host_mem *ut_memp;  /* the walking thread's */
extern sfu_section ut_secs[SFU_HOST_MAX_SECTIONS];
extern size_t ut_nsecs;
extern unsigned ut_version;          /* SFrame version of the executable */
/* The traces of the comparison under way: sfu's, libgcc's, libunwind's. */
extern ut_trace ut_s, ut_r;
#if UT_LIBUNWIND
extern ut_trace ut_l;
#endif

void ut_sfu_trace(const sfu_regs *r, ut_trace *t, uint32_t *traps);
_Unwind_Reason_Code ut_gcc_cb(struct _Unwind_Context *ctx, void *arg);
#if UT_LIBUNWIND
void ut_lu_walk(unw_cursor_t *cur, ut_trace *t);
#endif

/* ---- where a PC is (ut_where.c, built at start-up) ------------------------- */

typedef struct ut_sym {
	uint64_t lo, hi;
	const char *name;
} ut_sym;

extern ut_sym *ut_syms;
extern size_t ut_nsyms;
extern uint64_t ut_bias;
extern const ut_sym *ut_main;
extern const ut_sym *ut_stop; /* where comparisons end: main, or a thread's start routine */

void ut_load_bias(void);
int ut_load_self(void);
void ut_load_maps(void);
const ut_sym *ut_sym_at(uint64_t pc);
const char *ut_exesec_at(uint64_t pc);
const char *ut_map_at(uint64_t pc);
int ut_own(const ut_sym *s);

/* ---- verdicts (ut_verdict.c) ----------------------------------------------- */

/* Why two traces differ: X(name, explained, example, text).  A sample or
 * probe with an explained cause does not fail its case; the report shows
 * where (frame, PC, sfu's stop reason) and the first example frame by frame
 * of every cause with `example` set: the unexplained ones and those of the
 * second reference alone.  The text is followed by a detail (a symbol,
 * section or mapping name). */
#define UT_CATS(X)                                                                                              \
	X(UT_C_DSO, 1, 0, "no .sframe in")                                                                      \
	X(UT_C_EXE_LIBC, 1, 0, "libc/crt code in the executable, no .sframe:")                                  \
	X(UT_C_PLT, 1, 0, "PLT section without SFrame FDE:")                                                    \
	X(UT_C_GAS_SKIP, 1, 0, "gas skips DRAP/realigned CFI (no FDE before V3):")                              \
	X(UT_C_STALE_FP, 1, 0,                                                                                  \
	  "stale FP rule after leave in gcc's DRAP epilogue CFI, a rule that needs the FP meets the "           \
	  "refused read (libgcc never reads it):")                                                              \
	X(UT_C_STALE_FP2, 1, 0,                                                                                 \
	  "stale FP rule after leave in gcc's DRAP epilogue CFI, sfu and libgcc both follow it "                \
	  "and skip the caller:")                                                                               \
	X(UT_C_UNSAFE, 1, 0,                                                                                    \
	  "caller frame whose FLEX rule needs a register other than SP/FP (valid only in the "                  \
	  "topmost frame, where every register is known: sfu stops there):")                                    \
	X(UT_C_LONGJMP, 1, 0,                                                                                   \
	  "glibc's aarch64 __longjmp CFI (CFA = x0, the jmp_buf) crashes libgcc, "                              \
	  "not compared:")                                                                                      \
	X(UT_C_LU_DIFF, 1, 1, "libunwind alone differs from sfu and libgcc at")                                 \
	X(UT_C_LU_REF, 1, 1, "libunwind alone stops before main, in")                                           \
	X(UT_C_OWN_NOFDE, 0, 1, "UNEXPLAINED own function without FDE:")                                        \
	X(UT_C_STOP, 0, 1, "UNEXPLAINED sfu stopped with an FDE at")                                            \
	X(UT_C_DIFF, 0, 1, "UNEXPLAINED frames differ, stepping out of")                                        \
	X(UT_C_REF, 0, 1, "UNEXPLAINED reference did not reach main,")                                          \
	X(UT_C_TRAP, 0, 1, "UNEXPLAINED trap path differs at")                                                  \
	X(UT_C_CONT, 0, 1, "UNEXPLAINED callers changed between two consecutive instructions at")               \
	X(UT_C_NOREF_SIG, 0, 1, "UNEXPLAINED libgcc found no signal frame at")

enum ut_cat {
#define UT_CAT_ENUM(name, explained, example, text) name,
	UT_CATS(UT_CAT_ENUM)
#undef UT_CAT_ENUM
	UT_NCATS
};

typedef struct ut_cause {
	int cat, err;
	const char *detail; /* a start-up string: recording formats nothing */
	uint64_t pc;        /* first example */
	int frame;
	unsigned count;
	/* The first example's traces, for the report. */
	int ns, nr;
	uint64_t spc[12], ssp[12], rpc[12], rsp[12];
} ut_cause;

typedef struct ut_tally {
	unsigned total, same, explained, unexplained;
	unsigned ncauses;
	ut_cause causes[32];
} ut_tally;

/* The outcome of one comparison. */
typedef struct ut_verdict {
	int cat; /* -1: identical, else enum ut_cat */
	const char *detail;
	int err, frame;
	uint64_t pc;
} ut_verdict;

extern const ut_trace *ut_ex_s, *ut_ex_r; /* traces behind the next ut_note */
/* The registers the current signal-path comparison started from (NULL for
 * a synchronous probe). */
extern const sfu_regs *ut_first_regs;

void ut_note(ut_tally *t, int cat, const char *detail, int err, uint64_t pc, int frame);
int ut_find_main(const ut_trace *r);
int ut_stale_fp(const sfu_regs *r);
int ut_explain_stop(const ut_trace *s, int j, const char **detail);
void ut_judge(const ut_trace *s, const ut_trace *r, int from, int pc_only_first, ut_verdict *v);
void ut_record(ut_tally *t, const ut_verdict *v, const ut_trace *s, const ut_trace *r);
void ut_second_opinion(ut_verdict *v, const ut_verdict *first);
int ut_report(const char *verb, const char *name, const char *suffix, const ut_tally *t, unsigned min,
              const char *extra);

/* ---- the signal path (ut_signal.c) ------------------------------------------ */

/* What the program was doing, for a crash report. */
extern const char *volatile ut_phase;
extern const char *ut_case;
extern volatile uint64_t ut_sample_pc; /* the interrupted PC being compared */

/* What signals were compared, since the last ut_reset. */
extern ut_tally ut_t_gcc, ut_t_trap, ut_t_lu;
extern ut_tally ut_t_cont; /* single-step continuity */
extern volatile unsigned ut_samples;
extern unsigned ut_npcs; /* distinct interrupted PCs */

extern volatile int ut_expect_trap; /* a SIGILL now is one of ours */
extern unsigned ut_trap_bad_pc;     /* SIGILLs that were not */
#if defined(__x86_64__)
extern uint64_t ut_step_end_pc; /* where single-stepping stops */
#endif
extern int ut_stepping; /* single-step run: check continuity too */
extern int ut_prev_ok;  /* the previous step's walk reached main */

/* Breakpoint mode (aarch64): a BRK on every instruction of the workload's
 * own functions; each one is compared the first time it runs, then the
 * original instruction is put back and executed. */
typedef struct ut_bp {
	uint64_t addr;
	uint32_t orig;
	uint8_t hit;
} ut_bp;
extern ut_bp *ut_bps; /* sorted by address */
extern size_t ut_nbps;
extern int ut_bkpt_on;

void ut_poke(uint64_t addr, uint32_t insn);
void ut_reset(void);
void ut_signals_install(void);

/* ---- the synchronous probes (ut_sync.c) ------------------------------------- */

int ut_run_noret(int n);
int ut_sync(const char *name);

/* ---- the runs driven by signals (ut_async.c) -------------------------------- */

extern long ut_period_us; /* mean timer period */

void ut_busy(int site);
void ut_rearm(void);
int ut_async(const char *name, unsigned want, double secs, unsigned min, int prof);
int ut_step(const char *name);
int ut_bkpt(const char *name);

#endif
