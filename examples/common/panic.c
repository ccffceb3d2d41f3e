/*
 * panic.c -- panic() and the CPU fault report.
 *
 * Both end the run: print what happened, dump registers and the
 * backtrace (dump.c), exit QEMU with EX_PANIC / EX_FAULT.  A second panic
 * or fault while reporting the first exits at once with EX_BUG, so a
 * broken dump cannot loop.
 */
#include "ex.h"

static volatile int reporting;

static void enter_report(const char *what)
{
    /* The timer must not interleave ticks with the report. */
    board_timer_stop();
    if (reporting++) {
        ex_printf("\n%s while reporting an earlier panic/fault: giving up\n", what);
        board_exit(EX_BUG);
    }
}

EX_NORETURN void panic(const char *msg)
{
    sfu_regs regs;

    /* First thing, so the registers are those of panic() itself: the walk
     * starts here and its next frame is panic's caller. */
    SFU_PORT_CAPTURE(&regs);
    enter_report("panic");
    ex_printf("\npanic: %s\n", msg);
    ex_printf("registers captured in panic():\n");
    ex_dump_regs(&regs);
    ex_dump_backtrace(&regs, NULL);
    board_exit(EX_PANIC);
}

EX_NORETURN void ex_fault(const struct ex_fault *f)
{
    sfu_regs regs;

    /* The walk starts here, in the handler, and must find its own way
     * through the trap frame into the interrupted code: the dump shows the
     * handler frames, the vector code "(exception)", then the faulting
     * frame "(interrupted)" and its callers. */
    SFU_PORT_CAPTURE(&regs);
    enter_report("fault");
    ex_printf("\nfault: %s\n", f->what);
    if (f->addr_valid)
        ex_printf("  fault address %p  code 0x%llx\n", (void *)(uintptr_t)f->addr,
                  (unsigned long long)f->code);
    else
        ex_printf("  fault address n/a (the faulting PC is the address)  code 0x%llx\n",
                  (unsigned long long)f->code);
    ex_printf("registers from the trap frame:\n");
    ex_dump_regs(&f->regs);
    ex_dump_backtrace(&regs, &f->regs);
    board_exit(EX_FAULT);
}
