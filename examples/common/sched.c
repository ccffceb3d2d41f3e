/* SPDX-License-Identifier: MIT */
/*
 * sched.c -- a small preemptive scheduler, and what sfu needs to dump
 * every thread.
 *
 * Round robin on the board's timer: each tick asks for a switch
 * (ex_sched_tick), which the board's IRQ handler makes once the interrupt
 * is acknowledged (ex_preempt), so the next thread gets its ticks at once.
 * A thread can also block (ex_thread_block), sleep for some ticks
 * (ex_thread_sleep), wait on a semaphore with a timeout (ex_sem_wait), end
 * itself (ex_thread_exit) or end another (ex_thread_kill); the boards
 * shaped as a kernel mirror each such change in their kernel's own
 * structures (board_thread_state).  Both go through the board's
 * one context-switch routine, ex_switch (switch.S), which leaves the
 * thread's callee-saved registers and resume PC on its stack; the board
 * describes that context to sfu once (ex_switch_layout, thread.c).
 *
 * Memory per thread, from the bottom: a 4 KiB guard page (unmapped, or a
 * watchpoint with the MMU off: board_guard), the 16 KiB stack, and where
 * the board gives each thread its own exception stack (aarch64: SP_EL1,
 * which keeps a preempted thread's interrupt frames) that one.
 *
 * For sfu the thread array is described once (sched-sfu.c):
 * the dump layer reads each thread's saved context, name, state and
 * stacks from it, and bounds each thread's walk by its own stacks (its
 * own and the exception stacks it traps onto).  Its walks read nothing
 * else, so a walk of one thread never strays into another's stack and
 * never touches a guard page.
 */
#include "ex.h"

#define EX_THREAD_BLOCK (EX_GUARD_SIZE + EX_THREAD_STACK + EX_THREAD_EXC_STACK)

struct ex_thread ex_threads[EX_MAX_THREADS];
static unsigned nthreads;
struct ex_thread *ex_current;
static uint64_t boot_ctx; /* the boot context, left for good */
static volatile int need_resched;
volatile uint64_t ex_ticks;
/* In .bss: inside the first 2 MiB of the image, which both boards map
 * with 4 KiB pages (link.ld checks). */
static uint8_t pool[EX_MAX_THREADS][EX_THREAD_BLOCK] __attribute__((aligned(4096)));

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

struct ex_thread *ex_thread_create(const char *name, void (*entry)(void *), void *arg)
{
    struct ex_thread *t;
    uint64_t base, exc_hi;

    if (nthreads == EX_MAX_THREADS)
        panic("ex_thread_create: too many threads");
    ex_unwind_setup(); /* the trap layouts the walks share */
    t = &ex_threads[nthreads];
    base = addr_of(pool[nthreads]);
    t->name = name;
    t->id = ++nthreads;
    t->guard = base;
    t->stack.lo = base + EX_GUARD_SIZE;
    t->stack.hi = t->stack.lo + EX_THREAD_STACK;
    if (EX_THREAD_EXC_STACK != 0) {
        t->exc.lo = t->stack.hi;
        t->exc.hi = t->stack.hi + EX_THREAD_EXC_STACK;
    } else {
        t->exc.lo = addr_of(__exc_stacks_lo);
        t->exc.hi = addr_of(__exc_stacks_hi);
    }
    exc_hi = t->exc.hi;
    t->guarded = board_guard(t->guard);
    t->ctx = board_thread_context(t->stack.hi, exc_hi, entry, arg);
    t->state = EX_THREAD_READY;
    return t;
}

/* The next ready thread after the current one, round robin; NULL if none. */
static struct ex_thread *pick(void)
{
    unsigned start = ex_current ? ex_current->id : 0, i;

    for (i = 0; i < nthreads; i++) {
        struct ex_thread *t = &ex_threads[(start + i) % nthreads];

        if (t->state == EX_THREAD_READY || t->state == EX_THREAD_PREEMPTED)
            return t;
    }
    return NULL;
}

/* Boards whose exception entry saves the task context and switches inside
 * the handler (aarch64 variant rtos) override this: it tells them the
 * switch (the slot of prev's saved context, next's, and the slot next's
 * lives in), and a nonzero answer means the handler running now makes it
 * when it returns (sched_switch then returns at once).  The default, for
 * boards with a called switch routine: ex_switch does it. */
__attribute__((weak)) int board_switch_begin(uint64_t *save, uint64_t next, uint64_t *next_slot)
{
    (void)save, (void)next, (void)next_slot;
    return 0;
}

/* The defaults, for boards with no kernel of their own to keep in step. */
__attribute__((weak)) void board_thread_state(struct ex_thread *t)
{
    (void)t;
}

__attribute__((weak)) int board_entry_returns(void)
{
    return 0;
}

/* The one place threads switch (interrupts masked).  Not static and never
 * inlined: the resume PC of every thread that is not running is in here,
 * the first frame of its dump. */
EX_NOINLINE void sched_switch(struct ex_thread *next, int preempted);

EX_NOINLINE void sched_switch(struct ex_thread *next, int preempted)
{
    struct ex_thread *prev = ex_current;
    uint64_t ctx = next->ctx;

    if (prev->state == EX_THREAD_RUNNING)
        prev->state = preempted ? EX_THREAD_PREEMPTED : EX_THREAD_READY;
    next->state = EX_THREAD_RUNNING;
    next->ctx = 0;
    ex_current = next;
    if (board_switch_begin(&prev->ctx, ctx, &next->ctx))
        return;
    ex_switch(&prev->ctx, ctx);
    /* Back in prev, switched to by another thread. */
    if (ex_current != prev)
        panic("sched_switch: resumed the wrong thread");
}

EX_NORETURN void ex_sched_start(void)
{
    struct ex_thread *first;

    EX_IRQ_OFF();
    first = pick();
    if (first == NULL)
        panic("ex_sched_start: no thread");
    first->state = EX_THREAD_RUNNING;
    ex_current = first;
    boot_ctx = 0;
    {
        uint64_t ctx = first->ctx;

        first->ctx = 0;
        (void)board_switch_begin(&boot_ctx, ctx, &first->ctx);
        ex_switch(&boot_ctx, ctx);
    }
    panic("ex_sched_start: the boot context was resumed");
}

/* The running thread leaves the CPU in state (interrupts masked): the
 * thread to switch to.  Its callers call sched_switch themselves, so that
 * their traces go from sched_switch straight into them (and a debugger
 * shows no inlined frame of it there). */
static EX_NOINLINE struct ex_thread *leave(uint8_t state)
{
    struct ex_thread *next;

    ex_current->state = state;
    board_thread_state(ex_current);
    next = pick();
    if (next == NULL)
        panic("sched: no thread left to run");
    return next;
}

void ex_thread_block(void)
{
    EX_IRQ_OFF();
    sched_switch(leave(EX_THREAD_BLOCKED), 0);
    EX_IRQ_ON();
}

void ex_thread_sleep(uint64_t ticks)
{
    EX_IRQ_OFF();
    ex_current->wake = ex_ticks + ticks;
    sched_switch(leave(EX_THREAD_SLEEPING), 0);
    EX_IRQ_ON();
}

int ex_sem_wait(struct ex_sem *s, uint64_t ticks)
{
    int taken = 0;

    EX_IRQ_OFF();
    if (s->count != 0) {
        s->count--;
        taken = 1;
    } else {
        /* Nothing posts here: the timeout (ex_sched_tick) wakes it. */
        ex_current->wake = ex_ticks + ticks;
        sched_switch(leave(EX_THREAD_WAITING), 0);
    }
    EX_IRQ_ON();
    return taken;
}

EX_NORETURN void ex_thread_exit(void)
{
    EX_IRQ_OFF();
    sched_switch(leave(EX_THREAD_EXITED), 0);
    panic("ex_thread_exit: an exited thread was resumed");
}

void ex_thread_kill(struct ex_thread *t)
{
    if (t == ex_current)
        panic("ex_thread_kill: the running thread (ex_thread_exit ends it)");
    EX_IRQ_OFF();
    t->state = EX_THREAD_KILLED;
    board_thread_state(t);
    EX_IRQ_ON();
}

/* Each tick: the sleepers and waiters whose time has come are ready. */
void ex_sched_tick(void)
{
    unsigned i;

    ex_ticks++;
    for (i = 0; i < nthreads; i++) {
        struct ex_thread *t = &ex_threads[i];

        if ((t->state == EX_THREAD_SLEEPING || t->state == EX_THREAD_WAITING) && ex_ticks >= t->wake) {
            t->state = EX_THREAD_READY;
            board_thread_state(t);
        }
    }
    if (ex_current != NULL)
        need_resched = 1;
}

void ex_preempt(void)
{
    struct ex_thread *next;

    if (!need_resched || ex_current == NULL)
        return;
    need_resched = 0;
    next = pick();
    if (next != NULL && next != ex_current)
        sched_switch(next, 1);
}

struct ex_thread *ex_thread_current(void)
{
    return ex_current;
}

const struct ex_thread *ex_thread_guard_hit(uint64_t addr)
{
    unsigned i;

    for (i = 0; i < nthreads; i++) {
        if (ex_threads[i].guarded && addr - ex_threads[i].guard < EX_GUARD_SIZE)
            return &ex_threads[i];
    }
    return NULL;
}

void ex_thread_header(const struct ex_thread *t)
{
    ex_printf("thread %u %s: %s, stack %p .. %p, exception stack %p .. %p\n", t->id, t->name,
              t == ex_current ? "running" : ex_state_names[t->state], (void *)(uintptr_t)t->stack.lo,
              (void *)(uintptr_t)t->stack.hi, (void *)(uintptr_t)t->exc.lo, (void *)(uintptr_t)t->exc.hi);
}
