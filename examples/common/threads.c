/* SPDX-License-Identifier: MIT */
/*
 * threads.c -- the threads and overflow scenarios: threads of sched.c
 * doing known things, so every thread's dump has an exact function
 * sequence.  Every function a trace must show is extern and noinline.
 *
 * threads: a thread in each state the scheduler has, each with its own
 * stack.
 *   sleeper  sleeper_wait() -> ex_thread_block(): blocked for good; its
 *            dump starts at the switch (sched_switch) from its saved
 *            context and ends at its entry function
 *   spinner  spinner_work() -> leaf_park(): spins until the timer
 *            preempts it; its dump starts at the switch, goes through the
 *            interrupt handler and the trap frame into leaf_park
 *   napper   napper_wait() -> ex_thread_sleep(): asleep for longer than
 *            the scenario lasts
 *   waiter   waiter_wait() -> ex_sem_wait(): waits on a semaphore nobody
 *            posts, with a timeout longer than the scenario lasts (and,
 *            where the kernel counts ticks from near their wrap, past it)
 *   finisher finisher_work(), then ends: ex_thread_exit(), or where the
 *            kernel's thread start takes an entry's return
 *            (board_entry_returns), returns to it
 *   victim   victim_wait() -> ex_thread_block(), then ended by crasher
 *            (ex_thread_kill)
 *   crasher  waits until the others are there, kills victim, creates
 *            newborn (which never runs), then panics: dumped from its
 *            registers, then the others from their contexts
 *
 * overflow: one thread recurses without end into the guard page below its
 * stack; the fault is taken on the exception stack, and the dump shows
 * ex_recurse again and again until the depth cap.
 */
#include "ex.h"

static struct ex_thread *sleeper, *spinner, *napper, *waiter, *finisher, *victim;
static volatile int spinner_parked;
static struct ex_sem never_posted;
/* Longer than any boot of the scenario (the timer runs at 1000 Hz). */
#define EX_LONG_SLEEP 50000u
#define EX_LONG_WAIT 200000u

EX_NOINLINE void sleeper_wait(int depth);
EX_NOINLINE EX_NORETURN void thread_sleeper(void *arg);
EX_NOINLINE void spinner_work(int depth);
EX_NOINLINE EX_NORETURN void thread_spinner(void *arg);
EX_NOINLINE void napper_wait(int depth);
EX_NOINLINE EX_NORETURN void thread_napper(void *arg);
EX_NOINLINE void waiter_wait(int depth);
EX_NOINLINE EX_NORETURN void thread_waiter(void *arg);
EX_NOINLINE void finisher_work(int depth);
EX_NOINLINE void thread_finisher(void *arg);
EX_NOINLINE void victim_wait(int depth);
EX_NOINLINE EX_NORETURN void thread_victim(void *arg);
EX_NOINLINE EX_NORETURN void thread_newborn(void *arg);
EX_NOINLINE void crasher_work(int depth);
EX_NOINLINE EX_NORETURN void thread_crasher(void *arg);
EX_NOINLINE uint64_t ex_recurse(uint64_t n);
EX_NOINLINE EX_NORETURN void thread_overflow(void *arg);

EX_NOINLINE void sleeper_wait(int depth)
{
    volatile int local = depth;

    ex_thread_block();
    ex_printf("sleeper: woke up (%d)\n", local);
}

EX_NOINLINE EX_NORETURN void thread_sleeper(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        sleeper_wait(1);
}

EX_NOINLINE void spinner_work(int depth)
{
    volatile int local = depth;

    leaf_park(&spinner_parked);
    ex_printf("spinner: %d\n", local);
}

EX_NOINLINE EX_NORETURN void thread_spinner(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        spinner_work(2);
}

EX_NOINLINE void napper_wait(int depth)
{
    volatile int local = depth;

    ex_thread_sleep(EX_LONG_SLEEP);
    ex_printf("napper: woke up (%d)\n", local);
}

EX_NOINLINE EX_NORETURN void thread_napper(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        napper_wait(4);
}

EX_NOINLINE void waiter_wait(int depth)
{
    volatile int local = depth;
    int taken = ex_sem_wait(&never_posted, EX_LONG_WAIT);

    ex_printf("waiter: %s (%d)\n", taken ? "taken" : "timed out", local);
}

EX_NOINLINE EX_NORETURN void thread_waiter(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        waiter_wait(5);
}

EX_NOINLINE void finisher_work(int depth)
{
    volatile int local = depth;

    ex_printf("finisher: done (%d)\n", local);
}

/* Ends: by its return where the kernel's thread start takes it (ThreadX's
 * shell entry, which then ends the thread), else by ex_thread_exit.
 * (Where a thread's entry is its stack's first frame, EX_THREAD_OUTERMOST,
 * it never returns: no thread start to return to.) */
EX_NOINLINE void thread_finisher(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    finisher_work(6);
    if (board_entry_returns())
        return;
    ex_thread_exit();
}

EX_NOINLINE void victim_wait(int depth)
{
    volatile int local = depth;

    ex_thread_block();
    ex_printf("victim: woke up (%d)\n", local);
}

EX_NOINLINE EX_NORETURN void thread_victim(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        victim_wait(7);
}

/* Created last, just before the panic: it never runs. */
EX_NOINLINE EX_NORETURN void thread_newborn(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    panic("newborn ran");
}

EX_NOINLINE void crasher_work(int depth)
{
    volatile int local = depth;

    /* Until every other thread is where its dump is checked (then
     * nothing they do changes it); the timer preempts us meanwhile. */
    while (sleeper->state != EX_THREAD_BLOCKED || !spinner_parked || napper->state != EX_THREAD_SLEEPING ||
           waiter->state != EX_THREAD_WAITING || finisher->state != EX_THREAD_EXITED ||
           victim->state != EX_THREAD_BLOCKED)
        __asm__ volatile("");
    ex_thread_kill(victim);
    /* Interrupts masked from here: newborn never runs. */
    EX_IRQ_OFF();
    (void)ex_thread_create("newborn", thread_newborn, NULL);
    ex_printf("crasher: the other threads are blocked, preempted, asleep, waiting, ended and new; panicking (%d)\n",
              local);
    panic("deliberate panic in thread crasher");
}

EX_NOINLINE EX_NORETURN void thread_crasher(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    for (;;)
        crasher_work(3);
}

EX_NORETURN void ex_threads_scenario(void)
{
    sleeper = ex_thread_create("sleeper", thread_sleeper, NULL);
    spinner = ex_thread_create("spinner", thread_spinner, NULL);
    (void)ex_thread_create("crasher", thread_crasher, NULL);
    napper = ex_thread_create("napper", thread_napper, NULL);
    waiter = ex_thread_create("waiter", thread_waiter, NULL);
    finisher = ex_thread_create("finisher", thread_finisher, NULL);
    victim = ex_thread_create("victim", thread_victim, NULL);
    ex_printf("threads: 7 threads and 1 to come, %u KiB stacks, timer at 1000 Hz, round robin\n",
              EX_THREAD_STACK / 1024u);
    board_timer_start(1000);
    ex_sched_start();
}

/* -------------------------------------------------------------------------
 * overflow
 */

/* Never reached: a limit the compiler cannot see through, so the
 * recursion is not infinite to it. */
volatile uint64_t ex_recurse_limit = ~(uint64_t)0;

/* 16 bytes a level, written only by the call and the frame record's push
 * (x86_64 `call`, `push %rbp`; aarch64 `stp x29, x30, [sp, #-16]!`), so
 * the write that hits the guard page faults before SP moves into it: the
 * interrupted SP is still on the stack, and the walk goes on from it. */
EX_NOINLINE uint64_t ex_recurse(uint64_t n)
{
    if (n >= ex_recurse_limit)
        return n;
    return ex_recurse(n + 1) + 1;
}

EX_NOINLINE EX_NORETURN void thread_overflow(void *arg)
{
    EX_THREAD_OUTERMOST();
    (void)arg;
    ex_printf("overflow: recursing %p from %p\n", (void *)(uintptr_t)ex_recurse(0), (void *)&arg);
    panic("overflow: the recursion returned");
}

EX_NORETURN void ex_overflow_scenario(void)
{
    struct ex_thread *t = ex_thread_create("overflow", thread_overflow, NULL);

    ex_printf("overflow: thread %u, stack %p .. %p, guard %p (%s)\n", t->id, (void *)(uintptr_t)t->stack.lo,
              (void *)(uintptr_t)t->stack.hi, (void *)(uintptr_t)t->guard, t->guarded ? t->guarded : "none");
    if (t->guarded == NULL)
        panic("overflow: the board cannot guard this stack");
    ex_sched_start();
}
