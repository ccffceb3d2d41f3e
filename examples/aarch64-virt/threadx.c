/* SPDX-License-Identifier: MIT */
/*
 * threadx.c -- a kernel shaped as Eclipse ThreadX is for threadx-port.S:
 * TX_THREAD (threadx/tx_api.h), the created-thread ring through
 * tx_thread_created_next, _tx_thread_current_ptr and
 * _tx_thread_execute_ptr, _tx_thread_system_state, the system stack, a
 * never-run thread's first frame as _tx_thread_stack_build makes it, and
 * _tx_thread_shell_entry.  Only the policy is the examples' (sched.c
 * decides which thread runs next and when: its choice becomes
 * _tx_thread_execute_ptr, as ThreadX's own readiness code would set it);
 * the mechanism and where each thing lies are ThreadX's.  Nothing here is
 * for sfu.
 *
 * Before the scheduler starts the boot code runs as a thread of its own,
 * tx_boot_thread (not on the created ring), so that an interrupt or a
 * fault there has a thread to save into; ThreadX takes none before
 * tx_kernel_enter's scheduler.  Every second thread calls what
 * tx_thread_fp_enable() does (its FP registers saved from then on),
 * first thing in its run.
 *
 * Every created thread stays on the created ring whatever its state
 * (tx_thread_state, board_thread_state): TX_READY, TX_SUSPENDED (blocked
 * for good: tx_thread_suspend), TX_SLEEP (tx_thread_sleep),
 * TX_SEMAPHORE_SUSP (tx_semaphore_get with a timeout), TX_COMPLETED (its
 * entry returned: _tx_thread_shell_entry suspends it so) and TX_TERMINATED
 * (tx_thread_terminate by another thread); a completed or terminated
 * thread's stack and last saved frame stay until tx_thread_delete.
 */
#include "ex.h"
#include "board.h"

#include "threadx/tx_api.h"
#include "sfu_threadx.h"

TX_THREAD *_tx_thread_created_ptr;
ULONG _tx_thread_created_count;
volatile ULONG _tx_thread_system_state;
UINT _tx_thread_preempt_disable;
/* The system stack: the board's exception stack (SP_EL1's, below the
 * boot stack), its top KiB left to SP_EL1, which the vector stubs use for
 * a moment and the overflow stub for its frame. */
extern char __exc_stack_end[];
void *_tx_thread_system_stack_ptr = __exc_stack_end - 1024;

static TX_THREAD tx_threads[EX_MAX_THREADS];
extern char __stack_start[], __stack_end[];
static CHAR tx_boot_name[] = "main";
static TX_THREAD tx_boot_thread = {
    .tx_thread_id = TX_THREAD_ID,
    .tx_thread_stack_start = __stack_start,
    .tx_thread_stack_end = __stack_end - 1,
    .tx_thread_name = tx_boot_name,
};
/* The boot code's thread runs until the scheduler starts. */
TX_THREAD *_tx_thread_current_ptr = &tx_boot_thread;
TX_THREAD *_tx_thread_execute_ptr = &tx_boot_thread;

void tx_schedule_hook(void);
void tx_irq_handler(uint64_t sp);
void tx_fault_handler(uint64_t frame);
void tx_overflow_fault(uint64_t frame);
EX_NORETURN void tx_bad_vector(void);
void _tx_thread_system_return(void);
EX_NORETURN void _tx_thread_shell_entry(void);

static unsigned thread_index(const TX_THREAD *t)
{
    return (unsigned)(t - tx_threads);
}

/* The thread running the scenario's entries. */
static struct {
    void (*entry)(void *);
    void *arg;
} tx_entry[EX_MAX_THREADS];

/* A thread's start (tx_thread_create's shell): its function, and back to
 * the kernel if it ever returns (here it never does). */
EX_NORETURN void _tx_thread_shell_entry(void)
{
    TX_THREAD *t = _tx_thread_current_ptr;
    unsigned i = thread_index(t);

    if (i % 2u == 1u)
        t->tx_thread_fp_enable = 1; /* tx_thread_fp_enable() */
    /* Started with x30 0 (_tx_thread_stack_build): for a debugger, the
     * outermost frame.  Here, in the block of the call, not first: clang
     * shrink-wraps the frame record's push to this block, and the CFI of
     * that push (x30 saved) would override an undefined x30 set before
     * it. */
    EX_OUTERMOST();
    tx_entry[i].entry(tx_entry[i].arg);
    /* The entry returned: the thread is TX_COMPLETED, suspended for good
     * (ThreadX: _tx_thread_system_suspend); sched.c's exit does both. */
    ex_thread_exit();
}

/* sched.c's hooks: a thread's entry may return (to the shell entry
 * above); a thread's state as tx_thread_state. */
int board_entry_returns(void)
{
    return 1;
}

/* The examples' one semaphore (threads.c's), as tx_semaphore_create
 * leaves it, count 0. */
static CHAR tx_sem_name[] = "never posted";
static TX_SEMAPHORE tx_sem = { .tx_semaphore_id = TX_SEMAPHORE_ID, .tx_semaphore_name = tx_sem_name };

/* Off the semaphore's suspension list, if on it (_tx_semaphore_cleanup,
 * a timeout's or a termination's). */
static void tx_sem_unlink(TX_THREAD *t)
{
    TX_SEMAPHORE *s = t->tx_thread_suspend_control_block;

    if (s == NULL)
        return;
    if (t->tx_thread_suspended_next == t) {
        s->tx_semaphore_suspension_list = NULL;
    } else {
        t->tx_thread_suspended_next->tx_thread_suspended_previous = t->tx_thread_suspended_previous;
        t->tx_thread_suspended_previous->tx_thread_suspended_next = t->tx_thread_suspended_next;
        if (s->tx_semaphore_suspension_list == t)
            s->tx_semaphore_suspension_list = t->tx_thread_suspended_next;
    }
    s->tx_semaphore_suspended_count--;
    t->tx_thread_suspend_control_block = NULL;
    t->tx_thread_suspended_next = t->tx_thread_suspended_previous = NULL;
}

/* sched.c's hook: the thread's tx_thread_state as ThreadX sets it, its
 * timeout in its timer (tx_thread_sleep, tx_semaphore_get's wait_option),
 * a semaphore's waiter last on its suspension list (_tx_semaphore_get). */
void board_thread_state(struct ex_thread *et)
{
    static const UINT tx_state[EX_THREAD_NSTATES] = {
        [EX_THREAD_READY] = TX_READY,          [EX_THREAD_PREEMPTED] = TX_READY,
        [EX_THREAD_BLOCKED] = TX_SUSPENDED,    [EX_THREAD_SLEEPING] = TX_SLEEP,
        [EX_THREAD_WAITING] = TX_SEMAPHORE_SUSP, [EX_THREAD_EXITED] = TX_COMPLETED,
        [EX_THREAD_KILLED] = TX_TERMINATED,
    };
    TX_THREAD *t = &tx_threads[et - ex_threads];

    tx_sem_unlink(t);
    t->tx_thread_timer.tx_timer_internal_remaining_ticks = 0;
    if (et->state == EX_THREAD_SLEEPING || et->state == EX_THREAD_WAITING)
        t->tx_thread_timer.tx_timer_internal_remaining_ticks = (ULONG)(et->wake - ex_ticks);
    if (et->state == EX_THREAD_WAITING) {
        TX_THREAD *first = tx_sem.tx_semaphore_suspension_list;

        t->tx_thread_suspend_control_block = &tx_sem;
        if (first == NULL) {
            tx_sem.tx_semaphore_suspension_list = t;
            t->tx_thread_suspended_next = t->tx_thread_suspended_previous = t;
        } else {
            t->tx_thread_suspended_next = first;
            t->tx_thread_suspended_previous = first->tx_thread_suspended_previous;
            first->tx_thread_suspended_previous->tx_thread_suspended_next = t;
            first->tx_thread_suspended_previous = t;
        }
        tx_sem.tx_semaphore_suspended_count++;
    }
    t->tx_thread_state = tx_state[et->state];
}

/* sched.c's hook: tx_thread_create for thread t (the stack filled with
 * 0xEF, TX_STACK_FILL), its first frame by _tx_thread_stack_build: from
 * top = stack_end & ~0xF a (0, 0) pair, then the full interrupt frame with
 * every register 0, SPSR EL1t (0x4), ELR _tx_thread_shell_entry; the
 * thread last on the created ring. */
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    unsigned i, k;
    TX_THREAD *t = NULL;
    uint64_t top, *f;
    uint8_t *p;

    (void)exc_hi;
    for (i = 0; i < EX_MAX_THREADS; i++) {
        if (ex_threads[i].stack.hi == stack_hi) {
            t = &tx_threads[i];
            tx_entry[i].entry = entry;
            tx_entry[i].arg = arg;
            t->tx_thread_name = (CHAR *)(uintptr_t)ex_threads[i].name;
            t->tx_thread_stack_start = (void *)(uintptr_t)ex_threads[i].stack.lo;
            t->tx_thread_stack_size = (ULONG)(stack_hi - ex_threads[i].stack.lo);
        }
    }
    if (t == NULL)
        panic("board_thread_context: not a thread's stack");
    for (p = t->tx_thread_stack_start; p < (uint8_t *)(uintptr_t)stack_hi; p++)
        *p = 0xef;
    t->tx_thread_id = TX_THREAD_ID;
    t->tx_thread_stack_end = (uint8_t *)t->tx_thread_stack_start + t->tx_thread_stack_size - 1;
    t->tx_thread_state = TX_READY;
    t->tx_thread_priority = 1;
    top = (uint64_t)(uintptr_t)t->tx_thread_stack_end & ~(uint64_t)0xf;
    f = (uint64_t *)(uintptr_t)(top - 288u);
    for (k = 0; k < 288u / 8u; k++)
        f[k] = 0;
    f[0] = 0x4; /* SPSR: EL1t */
    f[1] = (uint64_t)(uintptr_t)_tx_thread_shell_entry;
    t->tx_thread_stack_ptr = f;
    if (_tx_thread_created_ptr == NULL) {
        _tx_thread_created_ptr = t;
        t->tx_thread_created_next = t->tx_thread_created_previous = t;
    } else {
        TX_THREAD *first = _tx_thread_created_ptr, *last = first->tx_thread_created_previous;

        t->tx_thread_created_next = first;
        t->tx_thread_created_previous = last;
        last->tx_thread_created_next = t;
        first->tx_thread_created_previous = t;
    }
    _tx_thread_created_count++;
    return (uint64_t)(uintptr_t)t->tx_thread_stack_ptr;
}

/* The switch sched.c asked for: the next thread becomes
 * _tx_thread_execute_ptr; a thread that blocks returns to the scheduler
 * (_tx_thread_system_return), an interrupt's context_restore preempts. */
static struct {
    uint64_t *save;
    uint64_t *next_slot;
    uint64_t next;
    TX_THREAD *prev;
    int pending;
} sw;
static volatile int in_isr;

static TX_THREAD *thread_of_slot(const uint64_t *slot)
{
    const struct ex_thread *t =
        (const struct ex_thread *)(uintptr_t)((uintptr_t)slot - offsetof(struct ex_thread, ctx));

    return &tx_threads[t - ex_threads];
}

int board_switch_begin(uint64_t *save, uint64_t next, uint64_t *next_slot)
{
    sw.save = save;
    sw.next = next;
    sw.next_slot = next_slot;
    sw.prev = _tx_thread_current_ptr;
    sw.pending = 1;
    _tx_thread_execute_ptr = thread_of_slot(next_slot);
    return in_isr;
}

void ex_switch(uint64_t *save, uint64_t next)
{
    (void)save, (void)next;
    _tx_thread_system_return();
}

/* _tx_thread_schedule, before it resumes _tx_thread_execute_ptr: what the
 * examples keep beside ThreadX (sched.c's copies, the states). */
void tx_schedule_hook(void)
{
    TX_THREAD *prev = sw.prev;

    if (!sw.pending)
        return;
    sw.pending = 0;
    *sw.save = (uint64_t)(uintptr_t)prev->tx_thread_stack_ptr;
    *sw.next_slot = sw.next;
}

/* The frame of the ISR running now: the first level's behind the
 * interrupted thread, a nested one at the stub's SP (sp). */
static uint64_t isr_frame(uint64_t sp)
{
    return _tx_thread_system_state == 1 ? (uint64_t)(uintptr_t)_tx_thread_current_ptr->tx_thread_stack_ptr : sp;
}

void tx_irq_handler(uint64_t sp)
{
    sfu_regs r;

    ex_unwind_setup();
    if (sfu_port_trap_regs(&ex_dump.traps[_tx_thread_system_state == 1 ? 0 : 1], isr_frame(sp), &r) !=
        SFU_TRAP_KERNEL) {
        *(volatile uint64_t *)&r.pc = 0;
        *(volatile uint64_t *)&r.sp = 0;
    }
    in_isr = 1;
    handle_irq(&r);
    in_isr = 0;
}

void tx_fault_handler(uint64_t frame)
{
    uint64_t *w = (uint64_t *)(uintptr_t)frame;
    uint64_t esr;
    struct ex_fault f;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    if (a64_semihosting_trap(esr, w[1])) {
        w[20] = (uint64_t)-1; /* x0 */
        w[1] += 4;
        return;
    }
    if (ex_probe_take(esr, &w[1]))
        return;
    a64_describe(&f, 0, &ex_dump.traps[SFU_THREADX_TRAP_FAULT], frame);
    sfu_port_trap_regs(&ex_dump.traps[SFU_THREADX_TRAP_FAULT], frame, &f.regs);
    if (_tx_thread_system_state != 0)
        f.note = "taken in an ISR: its frame is on the system stack";
    ex_fault(&f);
}

void tx_overflow_fault(uint64_t frame)
{
    struct ex_fault f;

    a64_describe(&f, 0, &ex_dump.traps[SFU_THREADX_TRAP_OVERFLOW], frame);
    sfu_port_trap_regs(&ex_dump.traps[SFU_THREADX_TRAP_OVERFLOW], frame, &f.regs);
    f.note = "the thread's stack has no room for the ISR frame: saved on SP_EL1";
    ex_fault(&f);
}

EX_NORETURN void tx_bad_vector(void)
{
    ex_printf("threadx: unexpected exception vector\n");
    board_exit(EX_BUG);
}
