/* SPDX-License-Identifier: MIT */
/*
 * panic.c -- panic() and the CPU fault report.
 *
 * Both end the run: print what happened, dump registers and the
 * backtrace (dump.c) and, when threads run, every other thread from its
 * saved context (sched.c), then print the crash record those dumps wrote
 * (retained.c; in the retained scenario, reset instead) and exit QEMU
 * with EX_PANIC / EX_FAULT.
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
    sfu_dump_message(&ex_dump, msg);
    ex_dump_backtrace(&regs, NULL);
    ex_dump_threads();
    ex_crash_record_end();
    board_exit(EX_PANIC);
}

/* The faulting address, as sfu decodes the frame's syndrome (for the
 * guard page's line); false if the CPU gave none. */
static bool fault_address(const struct ex_fault *f, uint64_t *addr)
{
    struct sfu_fault d;
    uint64_t code, a;
    unsigned known = sfu_port_trap_fault(f->layout, f->frame, &code, &a);

    if (!(known & SFU_FAULT_CODE))
        return false;
    (void)SFU_PORT_FAULT_TEXT(code, a, known, NULL, 0, &d);
    *addr = d.addr;
    return d.addr_valid;
}

EX_NORETURN void ex_fault(const struct ex_fault *f)
{
    sfu_regs regs;
    const struct ex_thread *t;
    uint64_t addr = 0;

    /* The walk starts here, in the handler, and must find its own way
     * through the trap frame into the interrupted code: the dump shows the
     * handler frames, the vector code "(exception)", then the faulting
     * frame "(interrupted)" and its callers. */
    SFU_PORT_CAPTURE(&regs);
    enter_report("fault", f->what, f->regs.pc);
    /* The cause, decoded by sfu from the trap frame ("fault: data abort,
     * read at 0x0: ..."), and kept for the crash record of the dump
     * below, which walks from here through that frame. */
    ex_printf("\n");
    if (sfu_dump_cause(&ex_dump, f->layout, f->frame) != SFU_OK)
        ex_printf("fault: %s (no syndrome in its trap frame)\n", f->what);
    if (f->note != NULL)
        ex_printf("  (%s)\n", f->note);
    t = fault_address(f, &addr) ? ex_thread_guard_hit(addr) : NULL;
    if (t != NULL)
        ex_printf("stack overflow: thread %u %s ran into its guard page (%s) at %p\n", t->id, t->name,
                  t->guarded, (void *)(uintptr_t)addr);
    ex_printf("registers from the trap frame:\n");
    ex_dump_regs(&f->regs);
    ex_dump_backtrace(&regs, &f->regs);
    ex_dump_threads();
    ex_crash_record_end();
    board_exit(EX_FAULT);
}
