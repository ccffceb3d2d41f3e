/* SPDX-License-Identifier: MIT */
/*
 * panic.c -- panic() and the CPU fault report.
 *
 * Both end the run: print what happened, dump registers and the
 * backtrace (dump.c) and, when threads run, every other thread from its
 * saved context (sched.c), then exit QEMU with EX_PANIC / EX_FAULT (or,
 * in the retained scenario, write a crash record and reset; in the
 * recorded ones, print the extended record: retained.c).
 *
 * A panic or fault while reporting the first one (the dump itself
 * faulted) is caught here, before anything else runs: one line says what
 * happened and what is known of the first one, and the board halts with
 * EX_NESTED.  The second-level path never walks, never allocates and
 * uses nothing of the first report's stack (on x86_64 the nested fault
 * takes the same IST stack from its top again, over the first handler's
 * frames), only the few words saved in `first` below; a third level exits
 * without printing.  So a broken dump cannot loop and never re-enters
 * the walk.
 */
#include "ex.h"

static volatile int reporting;
/* What is known of the first report, for the nested line. */
static struct {
    const char *kind; /* "panic", "fault" */
    const char *what; /* the message or the fault's name */
    uint64_t pc;
} volatile first;

static void enter_report(const char *kind, const char *what, uint64_t pc)
{
    /* The timer must not interleave ticks with the report. */
    board_timer_stop();
    if (reporting++) {
        if (reporting == 2)
            ex_printf("\nnested %s during the dump: %s at pc %p; first %s: %s at pc %p; halting\n", kind, what,
                      (void *)(uintptr_t)pc, first.kind, first.what, (void *)(uintptr_t)first.pc);
        board_exit(EX_NESTED);
    }
    first.kind = kind;
    first.what = what;
    first.pc = pc;
}

EX_NORETURN void panic(const char *msg)
{
    sfu_regs regs;

    /* First thing, so the registers are those of panic() itself: the walk
     * starts here and its next frame is panic's caller. */
    SFU_PORT_CAPTURE(&regs);
    enter_report("panic", msg, regs.pc);
    ex_printf("\npanic: %s\n", msg);
    ex_printf("registers captured in panic():\n");
    ex_dump_regs(&regs);
    ex_dump_backtrace(&regs, NULL);
    if (ex_retain_armed || ex_record_armed)
        ex_retain_crash(SFU_CRASH_PANIC, msg, regs.pc, 0, 0, false, &regs, NULL);
    ex_dump_threads();
    board_exit(EX_PANIC);
}

EX_NORETURN void ex_fault(const struct ex_fault *f)
{
    sfu_regs regs;
    const struct ex_thread *t;

    /* The walk starts here, in the handler, and must find its own way
     * through the trap frame into the interrupted code: the dump shows the
     * handler frames, the vector code "(exception)", then the faulting
     * frame "(interrupted)" and its callers. */
    SFU_PORT_CAPTURE(&regs);
    enter_report("fault", f->what, f->regs.pc);
    ex_printf("\nfault: %s\n", f->what);
    if (f->note != NULL)
        ex_printf("  (%s)\n", f->note);
    if (f->addr_valid)
        ex_printf("  fault address %p  code 0x%llx\n", (void *)(uintptr_t)f->addr,
                  (unsigned long long)f->code);
    else
        ex_printf("  fault address n/a (the faulting PC is the address)  code 0x%llx\n",
                  (unsigned long long)f->code);
    t = f->addr_valid ? ex_thread_guard_hit(f->addr) : NULL;
    if (t != NULL)
        ex_printf("stack overflow: thread %u %s ran into its guard page (%s) at %p\n", t->id, t->name,
                  t->guarded, (void *)(uintptr_t)f->addr);
    ex_printf("registers from the trap frame:\n");
    ex_dump_regs(&f->regs);
    ex_dump_backtrace(&regs, &f->regs);
    if (ex_retain_armed || ex_record_armed)
        ex_retain_crash(SFU_CRASH_FAULT, f->what, f->regs.pc, f->code, f->addr, f->addr_valid, &regs, &f->regs);
    ex_dump_threads();
    board_exit(EX_FAULT);
}
