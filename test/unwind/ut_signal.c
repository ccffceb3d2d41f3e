/* SPDX-License-Identifier: MIT */
/* ut_signal.c - the signal path: one handler for a trap (SIGILL), a timer
 * sample (SIGPROF), a single step and a breakpoint (SIGTRAP) compares the
 * unwinders on the interrupted context (ut_compare_signal), checks the walk
 * from the handler across the signal frame, and in single-step mode the
 * continuity of consecutive walks; a crash (SIGSEGV, SIGBUS) is a verdict
 * too.  Everything here is async-signal-safe (ut_harness.h). */
#include "ut_harness.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

const char *volatile ut_phase = "start-up";
const char *ut_case = "";
volatile uint64_t ut_sample_pc;

ut_tally ut_t_gcc, ut_t_trap, ut_t_lu;
static ut_trace ut_c; /* sfu from the handler, across the signal frame */
volatile unsigned ut_samples;
/* Distinct interrupted PCs (open addressing, no allocation). */
static uint64_t ut_pcset[16384];
unsigned ut_npcs;

static void ut_pc_seen(uint64_t pc)
{
	unsigned h = (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 50), n;
	for (n = 0; n < 16384u; n++, h = (h + 1u) & 16383u) {
		if (ut_pcset[h] == pc)
			return;
		if (!ut_pcset[h]) {
			ut_pcset[h] = pc;
			ut_npcs++;
			return;
		}
	}
}

/* A run starts with nothing compared. */
void ut_reset(void)
{
	memset(&ut_t_gcc, 0, sizeof ut_t_gcc);
	memset(&ut_t_trap, 0, sizeof ut_t_trap);
	memset(&ut_t_lu, 0, sizeof ut_t_lu);
	ut_samples = 0;
	memset(ut_pcset, 0, sizeof ut_pcset);
	ut_npcs = 0;
}

volatile int ut_expect_trap;
unsigned ut_trap_bad_pc;
#if defined(__x86_64__)
uint64_t ut_step_end_pc;
#endif

/* Single-stepping gives an oracle that does not trust any unwind table:
 * between two consecutive instructions the caller frames (up to main) stay
 * the same, gain one frame (a call: the new caller is the old top frame) or
 * lose one (a return: the new top frame is the old caller, at its return
 * address).  Anything else means the walk is wrong, even where libgcc
 * agrees with it (both read the same compiler CFI). */
ut_tally ut_t_cont;
static ut_trace ut_prev;
static int ut_prev_stale;
int ut_prev_ok, ut_stepping;

static int ut_frames_eq(const ut_trace *a, int ia, const ut_trace *b, int ib, int n)
{
	int k;
	for (k = 0; k < n; k++)
		if (a->pc[ia + k] != b->pc[ib + k] || a->sp[ia + k] != b->sp[ib + k])
			return 0;
	return 1;
}

static void ut_continuity(const ut_trace *n, const sfu_regs *regs)
{
	int kn = ut_find_main(n), kp, ok;
	ut_verdict v;
	if (kn < 0) {
		ut_prev_ok = 0; /* not a complete walk (libc, PLT): no oracle */
		return;
	}
	if (ut_prev_ok) {
		const ut_trace *p = &ut_prev;
		kp = ut_find_main(p);
		ok = (kn == kp && ut_frames_eq(n, 1, p, 1, kn)) ||
		     (kn == kp + 1 && ut_frames_eq(n, 2, p, 1, kp) && n->sp[1] == p->sp[0] &&
		      ut_sym_at(n->pc[1] - 1) == ut_sym_at(p->pc[0])) ||
		     (kn + 1 == kp && ut_frames_eq(n, 1, p, 2, kn) && n->pc[0] == p->pc[1] && n->sp[0] == p->sp[1]);
		v.cat = -1;
		if (!ok) {
			const ut_sym *sym = ut_sym_at(n->pc[0]);
			/* The wrong walk may be either side of the transition. */
			v.cat = ut_stale_fp(regs) || ut_prev_stale ? UT_C_STALE_FP2 : UT_C_CONT;
			v.detail = sym ? sym->name : ut_map_at(n->pc[0]);
			v.err = 0;
			v.frame = 0;
			v.pc = n->pc[0];
		}
		ut_record(&ut_t_cont, &v, n, p);
	}
	ut_prev = *n;
	ut_prev_ok = 1;
	ut_prev_stale = ut_stale_fp(regs);
}

/* Compare everything for one interrupted context. */
static void ut_compare_signal(const ucontext_t *uc, const sfu_regs *hregs)
{
	sfu_regs regs;
	uint64_t dw[SFU_HOST_NDWARF];
	uint32_t traps = 0;
	int j, k, no_ref = 0;
	ut_verdict vg;

	vg.cat = UT_C_NOREF_SIG;
	sfu_host_from_ucontext(uc, &regs, dw);
	ut_first_regs = &regs;
	ut_phase = "sfu from the ucontext";
	ut_sfu_trace(&regs, &ut_s, NULL);
	ut_phase = "the signal handler";

	/* A PC without SFrame info outside the test's own code (libc, vDSO,
	 * PLT without FDE): sfu ends at frame 0 by design and the sample is
	 * classified from the PC alone.  The references are not run there:
	 * there is nothing to compare, and glibc 2.42's aarch64 __longjmp CFI
	 * (CFA = x0, the jmp_buf) sends libgcc through the jmp_buf as if it
	 * were a stack, into a crash. */
	if (ut_sym_at(regs.pc) && !strcmp(ut_sym_at(regs.pc)->name, "__longjmp") &&
	    ut_s.err != SFU_E_NOINFO) {
		/* With a section for libc too (sfu-gen), the same __longjmp
		 * samples get here with sfu's walk: libgcc still cannot be run. */
		vg.detail = ut_sym_at(regs.pc)->name;
		vg.cat = UT_C_LONGJMP;
		vg.err = ut_s.err;
		vg.frame = 0;
		vg.pc = regs.pc;
		ut_record(&ut_t_gcc, &vg, &ut_s, NULL);
		no_ref = 1;
	} else if (ut_s.n == 1 && ut_s.err == SFU_E_NOINFO && !ut_own(ut_sym_at(regs.pc))) {
		vg.detail = "";
		vg.cat = ut_explain_stop(&ut_s, 0, &vg.detail);
		vg.err = ut_s.err;
		vg.frame = 0;
		vg.pc = regs.pc;
		ut_record(&ut_t_gcc, &vg, &ut_s, NULL);
		no_ref = 1;
	} else {
		ut_phase = "libgcc _Unwind_Backtrace from the signal handler";
		ut_r.n = 0;
		_Unwind_Backtrace(ut_gcc_cb, &ut_r);
		ut_phase = "the signal handler";
		/* libgcc walked from the handler: drop the frames up to the signal
		 * trampoline; the first frame flagged "IP before instruction" is the
		 * interrupted one. */
		for (j = 0; j < ut_r.n && !ut_r.exact[j]; j++)
			;
		if (j == ut_r.n || ut_r.pc[j] != regs.pc) {
			ut_t_gcc.total++;
			ut_t_gcc.unexplained++;
			ut_ex_s = &ut_s;
			ut_ex_r = &ut_r;
			ut_note(&ut_t_gcc, UT_C_NOREF_SIG, ut_map_at(regs.pc), 0, regs.pc, 0);
		} else {
			ut_trace *r = &ut_r;
			for (k = j; k < r->n; k++) {
				r->pc[k - j] = r->pc[k];
				r->sp[k - j] = r->sp[k];
				r->exact[k - j] = r->exact[k];
			}
			r->n -= j;
			/* Frame 0: the PC only (libgcc's CFA for it is where its signal
			 * frame rule put it, not the SP); then PC and SP. */
			ut_judge(&ut_s, r, 0, 1, &vg);
			ut_record(&ut_t_gcc, &vg, &ut_s, r);
		}
	}

	/* sfu from the handler's own registers, across the signal frame by
	 * sfu_host_trap: from the trap frame on it must be the same walk. */
	ut_phase = "sfu from the handler (sfu_host_trap)";
	ut_sfu_trace(hregs, &ut_c, &traps);
	ut_phase = "the signal handler";
	ut_t_trap.total++;
	ut_ex_s = &ut_s;
	ut_ex_r = &ut_c;
	for (j = 0; j < ut_c.n && ut_c.how[j] != SFU_HOW_TRAP; j++)
		;
	if (j == ut_c.n || ut_c.n - j != ut_s.n || ut_c.err != ut_s.err) {
		ut_t_trap.unexplained++;
		ut_note(&ut_t_trap, UT_C_TRAP, j == ut_c.n ? "no trap frame" : "frame count or stop reason", ut_c.err,
		        ut_c.n ? ut_c.pc[ut_c.n - 1] : 0, ut_c.n - 1);
	} else {
		for (k = 0; k < ut_s.n; k++)
			if (ut_c.pc[j + k] != ut_s.pc[k] || ut_c.sp[j + k] != ut_s.sp[k])
				break;
		if (k < ut_s.n) {
			ut_t_trap.unexplained++;
			ut_note(&ut_t_trap, UT_C_TRAP, "a frame", 0, ut_s.pc[k], k);
		} else {
			ut_t_trap.same++;
		}
	}

#if UT_LIBUNWIND
	{
		unw_cursor_t cur;
		ut_phase = "libunwind";
		if (no_ref) {
			ut_record(&ut_t_lu, &vg, &ut_s, NULL);
		} else if (unw_init_local2(&cur, (unw_context_t *)(uintptr_t)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
			ut_verdict vl;
			ut_lu_walk(&cur, &ut_l);
			ut_phase = "the signal handler";
			ut_judge(&ut_s, &ut_l, 0, 0, &vl);
			ut_second_opinion(&vl, &vg);
			ut_record(&ut_t_lu, &vl, &ut_s, &ut_l);
		} else {
			ut_t_lu.total++;
			ut_t_lu.unexplained++;
			ut_ex_s = &ut_s;
			ut_ex_r = NULL;
			ut_note(&ut_t_lu, UT_C_REF, "unw_init_local2 failed", 0, regs.pc, 0);
		}
	}
#endif
	(void)no_ref;
	if (ut_stepping)
		ut_continuity(&ut_s, &regs);
	ut_first_regs = NULL;
}

static void ut_put(const char *a)
{
	ssize_t r = write(1, a, strlen(a));
	(void)r;
}

static void ut_puthex(uint64_t v)
{
	char b[19];
	int i;
	b[0] = '0';
	b[1] = 'x';
	for (i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	ut_put(b);
}

/* A crash is a verdict too: name the case, the phase and the PC. */
static void ut_on_crash(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = (ucontext_t *)ucv;
	uint64_t pc;
	const ut_sym *sym;
#if defined(__x86_64__)
	pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	pc = uc->uc_mcontext.pc;
#endif
	sym = ut_sym_at(pc);
	ut_put("FAIL ");
	ut_put(ut_case);
	ut_put(sig == SIGSEGV ? ": SIGSEGV" : ": SIGBUS");
	ut_put(" in ");
	ut_put(ut_phase);
	ut_put(" at pc ");
	ut_puthex(pc);
	ut_put(sym ? " " : "");
	ut_put(sym ? sym->name : "");
	ut_put(", address ");
	ut_puthex((uint64_t)(uintptr_t)si->si_addr);
	if (ut_sample_pc) {
		sym = ut_sym_at(ut_sample_pc);
		ut_put(", sample pc ");
		ut_puthex(ut_sample_pc);
		ut_put(sym ? " " : "");
		ut_put(sym ? sym->name : "");
	}
	ut_put("\n");
	_exit(3);
}

/* Breakpoints (ut_bkpt in ut_async.c sets them). */
ut_bp *ut_bps;
size_t ut_nbps;
int ut_bkpt_on;

static ut_bp *ut_bp_at(uint64_t pc)
{
	size_t lo = 0, hi = ut_nbps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ut_bps[mid].addr < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ut_nbps && ut_bps[lo].addr == pc ? &ut_bps[lo] : NULL;
}

void ut_poke(uint64_t addr, uint32_t insn)
{
	*(volatile uint32_t *)(uintptr_t)addr = insn;
	__builtin___clear_cache((char *)(uintptr_t)addr, (char *)(uintptr_t)addr + 4);
}

static void ut_on_signal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = (ucontext_t *)ucv;
	sfu_regs hregs;
	int saved = errno;
	(void)si;
	SFU_HOST_CAPTURE(&hregs);
#if defined(__x86_64__)
	ut_sample_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	ut_sample_pc = uc->uc_mcontext.pc;
#endif
	ut_phase = "the signal handler";
#if defined(__x86_64__)
	if (sig == SIGTRAP && (uint64_t)uc->uc_mcontext.gregs[REG_RIP] == ut_step_end_pc) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100; /* stop single-stepping */
		errno = saved;
		return;
	}
#endif
	if (sig == SIGTRAP && ut_bkpt_on) {
		ut_bp *bp = ut_bp_at(ut_sample_pc);
		if (!bp) {
			ut_put("FAIL ");
			ut_put(ut_case);
			ut_put(": SIGTRAP at a PC without a breakpoint\n");
			_exit(3);
		}
		ut_compare_signal(uc, &hregs);
		bp->hit = 1;
		ut_poke(bp->addr, bp->orig); /* then run it for real */
		ut_pc_seen(ut_sample_pc);
		ut_samples++;
		ut_phase = "the workload";
		ut_sample_pc = 0;
		errno = saved;
		return;
	}
	ut_compare_signal(uc, &hregs);
	ut_pc_seen(ut_sample_pc);
	ut_samples++;
	if (sig == SIGILL) {
		/* Resume after the trap instruction; a SIGILL we did not plant
		 * would loop, so count it and stop trusting the run. */
		if (!ut_expect_trap)
			ut_trap_bad_pc++;
#if defined(__x86_64__)
		uc->uc_mcontext.gregs[REG_RIP] += UT_TRAP_LEN;
#else
		uc->uc_mcontext.pc += UT_TRAP_LEN;
#endif
	}
	if (sig == SIGPROF)
		ut_rearm();
	ut_phase = "the workload";
	ut_sample_pc = 0;
	errno = saved;
}

static void ut_install(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = ut_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPROF);
	sigaddset(&sa.sa_mask, SIGILL);
	sigaddset(&sa.sa_mask, SIGTRAP);
	sigaction(sig, &sa, NULL);
}

/* The handlers: comparisons on SIGILL, SIGPROF and SIGTRAP; crashes on an
 * alternate stack. */
void ut_signals_install(void)
{
	static char altstack[64 * 1024];
	stack_t ss;
	struct sigaction sa;
	ut_install(SIGILL);
	ut_install(SIGPROF);
	ut_install(SIGTRAP);
	ss.ss_sp = altstack;
	ss.ss_size = sizeof altstack;
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = ut_on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}
