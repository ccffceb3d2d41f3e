/*
 * sched.c -- a small preemptive scheduler, and what sfu needs to dump
 * every thread.
 *
 * Round robin on the board's timer: each tick asks for a switch
 * (ex_sched_tick), which the board's IRQ handler makes once the interrupt
 * is acknowledged (ex_preempt), so the next thread gets its ticks at once.
 * A thread can also block (ex_thread_block).  Both go through the board's
 * one context-switch routine, ex_switch (switch.S), which leaves the
 * thread's callee-saved registers and resume PC on its stack; the board
 * describes that context to sfu once (ex_switch_layout, thread.c).
 *
 * Memory per thread, from the bottom: a 4 KiB guard page (unmapped, or a
 * watchpoint with the MMU off: board_guard), the 16 KiB stack, and where
 * the board gives each thread its own exception stack (aarch64: SP_EL1,
 * which keeps a preempted thread's interrupt frames) that one.
 *
 * For sfu each thread gets, when it is created, an sfu_port_thread
 * (port/common) bounded by its stacks: its own and the exception stacks it
 * traps onto.  Its walks read nothing else, so a walk of one thread never
 * strays into another's stack and never touches a guard page.
 */
#include "ex.h"

#define EX_THREAD_BLOCK (EX_GUARD_SIZE + EX_THREAD_STACK + EX_THREAD_EXC_STACK)

static struct ex_thread threads[EX_MAX_THREADS];
static unsigned nthreads;
static struct ex_thread *current;
static uint64_t boot_ctx; /* the boot context, left for good */
static volatile int need_resched;
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
    sfu_stack stacks[2];

    if (nthreads == EX_MAX_THREADS)
        panic("ex_thread_create: too many threads");
    ex_unwind_setup(); /* the trap layouts the walks share */
    t = &threads[nthreads];
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
    /* sfu: this thread's walks stay on its stack and its exception
     * stack(s), and read nothing else. */
    stacks[0] = t->stack;
    stacks[1] = t->exc;
    if (sfu_port_thread_init(&t->walk, &ex_dump.ctx, stacks, 2) != SFU_OK)
        panic("ex_thread_create: bad stacks");
    t->state = EX_THREAD_READY;
    return t;
}

/* The next ready thread after the current one, round robin; NULL if none. */
static struct ex_thread *pick(void)
{
    unsigned start = current ? current->id : 0, i;

    for (i = 0; i < nthreads; i++) {
        struct ex_thread *t = &threads[(start + i) % nthreads];

        if (t->state == EX_THREAD_READY)
            return t;
    }
    return NULL;
}

/* The one place threads switch (interrupts masked).  Not static and never
 * inlined: the resume PC of every thread that is not running is in here,
 * the first frame of its dump. */
EX_NOINLINE void sched_switch(struct ex_thread *next, int preempted);

EX_NOINLINE void sched_switch(struct ex_thread *next, int preempted)
{
    struct ex_thread *prev = current;
    uint64_t ctx = next->ctx;

    prev->preempted = (uint8_t)preempted;
    if (prev->state == EX_THREAD_RUNNING)
        prev->state = EX_THREAD_READY;
    next->state = EX_THREAD_RUNNING;
    next->ctx = 0;
    current = next;
    ex_switch(&prev->ctx, ctx);
    /* Back in prev, switched to by another thread. */
    if (current != prev)
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
    current = first;
    boot_ctx = 0;
    {
        uint64_t ctx = first->ctx;

        first->ctx = 0;
        ex_switch(&boot_ctx, ctx);
    }
    panic("ex_sched_start: the boot context was resumed");
}

void ex_thread_block(void)
{
    struct ex_thread *next;

    EX_IRQ_OFF();
    current->state = EX_THREAD_BLOCKED;
    next = pick();
    if (next == NULL)
        panic("ex_thread_block: no thread left to run");
    sched_switch(next, 0);
    EX_IRQ_ON();
}

void ex_sched_tick(void)
{
    if (current != NULL)
        need_resched = 1;
}

void ex_preempt(void)
{
    struct ex_thread *next;

    if (!need_resched || current == NULL)
        return;
    need_resched = 0;
    next = pick();
    if (next != NULL && next != current)
        sched_switch(next, 1);
}

struct ex_thread *ex_thread_current(void)
{
    return current;
}

const sfu_port *ex_walk_port(void)
{
    return current ? &current->walk.port : &ex_dump.port;
}

const struct ex_thread *ex_thread_guard_hit(uint64_t addr)
{
    unsigned i;

    for (i = 0; i < nthreads; i++) {
        if (threads[i].guarded && addr - threads[i].guard < EX_GUARD_SIZE)
            return &threads[i];
    }
    return NULL;
}

static const char *state_of(const struct ex_thread *t)
{
    return t == current                     ? "running"
           : t->state == EX_THREAD_BLOCKED ? "blocked"
           : t->preempted                  ? "preempted"
                                           : "ready";
}

void ex_thread_header(const struct ex_thread *t)
{
    ex_printf("thread %u %s: %s, stack %p .. %p, exception stack %p .. %p\n", t->id, t->name, state_of(t),
              (void *)(uintptr_t)t->stack.lo, (void *)(uintptr_t)t->stack.hi, (void *)(uintptr_t)t->exc.lo,
              (void *)(uintptr_t)t->exc.hi);
}

/* The dump layer's thread iterator: the i-th thread that is neither
 * running (dumped already, from its registers) nor free, from its saved
 * context (ex_switch_layout), read and walked through its own port. */
static bool next_thread(void *arg, size_t i, struct sfu_dump_thread *d)
{
    unsigned k;

    (void)arg;
    for (k = 0; k < nthreads; k++) {
        const struct ex_thread *t = &threads[k];

        if (t == current || t->state == EX_THREAD_FREE || i-- != 0)
            continue;
        d->id = t->id;
        d->name = t->name;
        d->state = state_of(t);
        d->port = &t->walk.port;
        d->layout = &ex_switch_layout;
        d->context = t->ctx;
        return true;
    }
    return false;
}

void ex_dump_threads(void)
{
    (void)sfu_dump_threads(&ex_dump, next_thread, NULL);
}
