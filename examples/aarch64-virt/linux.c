/* SPDX-License-Identifier: MIT */
/*
 * linux.c -- the C side of linux-entry.S and linux-switch.S: a kernel
 * shaped as arm64 Linux and the teaching kernels that copy it
 * (linux/sched.h): task_struct with its thread.cpu_context, task[] and
 * current, copy_thread's first context (cpu_context.pc = ret_from_fork,
 * sp = a zeroed pt_regs at the top of the kernel stack, x19/x20 the
 * function and its argument, fp 0), the switch (cpu_switch_to), the
 * handlers kernel_entry calls.  Only the
 * policy is the examples' (sched.c decides which task runs and when).
 * Nothing here is for sfu.
 *
 * The boot code is no task: it runs on the boot stack until the scheduler
 * starts (current is NULL), and its context is saved into init_task,
 * which is on no list, when it leaves for good.
 *
 * A task's state (board_thread_state): TASK_RUNNING (running, or ready:
 * a never-run one still at ret_from_fork), TASK_INTERRUPTIBLE (asleep:
 * schedule_timeout_interruptible), TASK_UNINTERRUPTIBLE (blocked for good,
 * or waiting on the semaphore: down_timeout).  A task that ends (do_exit,
 * by itself or killed) is no longer in task[]: these tasks are kernel
 * threads, whose parent (kthreadd) reaps them at once (exit_notify's
 * autoreap: release_task unlinks the task before its last __schedule),
 * and its kernel stack is freed right after that switch
 * (finish_task_switch: put_task_stack).  No dump could read it.
 */
#include "ex.h"
#include "board.h"

#include "linux/sched.h"

_Static_assert(offsetof(struct task_struct, thread.cpu_context) == THREAD_CPU_CONTEXT,
               "linux-switch.S's THREAD_CPU_CONTEXT");
_Static_assert(sizeof(struct pt_regs) == 272, "linux-entry.S's S_FRAME_SIZE");
_Static_assert(THREAD_SIZE == EX_THREAD_STACK, "a task's kernel stack is sched.c's thread stack");

struct task_struct *task[NR_TASKS];
struct task_struct *current;
static struct task_struct tasks[NR_TASKS];
static struct task_struct init_task = { .comm = "swapper" };
/* The running task's kernel stack base (el1h_sync_check); until the
 * scheduler starts, the exception stack the boot code's handlers run on. */
extern char __exc_stack_start[];
uint64_t linux_stack_lo = (uint64_t)(uintptr_t)__exc_stack_start;

void cpu_switch_to(struct task_struct *prev, struct task_struct *next);
void ret_from_fork(void);
void schedule_tail(void);
EX_NORETURN void linux_task_returned(void);
void linux_el1_sync(struct pt_regs *regs);
void linux_el1_irq(struct pt_regs *regs);
EX_NORETURN void handle_bad_stack(struct pt_regs *regs);
EX_NORETURN void linux_bad_vector(void);

/* sched.c's hook: copy_process/copy_thread for thread t (its kernel
 * stack: sched.c's thread stack). */
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    struct task_struct *p = NULL;
    struct pt_regs *childregs;
    unsigned i, k;

    (void)exc_hi;
    for (i = 0; i < EX_MAX_THREADS && i < NR_TASKS; i++) {
        if (ex_threads[i].stack.hi == stack_hi) {
            p = &tasks[i];
            p->pid = (int)ex_threads[i].id;
            for (k = 0; k + 1 < TASK_COMM_LEN && ex_threads[i].name[k]; k++)
                p->comm[k] = ex_threads[i].name[k];
            p->comm[k] = '\0';
            task[i] = p;
        }
    }
    if (p == NULL)
        panic("board_thread_context: not a thread's stack");
    p->stack = (void *)(uintptr_t)(stack_hi - THREAD_SIZE);
    p->state = TASK_RUNNING;
    childregs = (struct pt_regs *)(uintptr_t)(stack_hi - sizeof(struct pt_regs));
    for (k = 0; k < sizeof(struct pt_regs) / 8; k++)
        ((volatile uint64_t *)childregs)[k] = 0;
    childregs->pstate = 0x5; /* EL1h */
    p->thread.cpu_context.x19 = (uint64_t)(uintptr_t)entry;
    p->thread.cpu_context.x20 = (uint64_t)(uintptr_t)arg;
    p->thread.cpu_context.pc = (uint64_t)(uintptr_t)ret_from_fork;
    p->thread.cpu_context.sp = (uint64_t)(uintptr_t)childregs;
    p->thread.cpu_context.fp = 0;
    return (uint64_t)(uintptr_t)&p->thread.cpu_context;
}

static struct task_struct *task_of_context(uint64_t ctx)
{
    return (struct task_struct *)(uintptr_t)(ctx - offsetof(struct task_struct, thread.cpu_context));
}

/* sched.c's switch: the next task from its context, then cpu_switch_to. */
void ex_switch(uint64_t *save, uint64_t next)
{
    struct task_struct *prev = current ? current : &init_task, *n = task_of_context(next);

    *save = (uint64_t)(uintptr_t)&prev->thread.cpu_context;
    current = n;
    linux_stack_lo = (uint64_t)(uintptr_t)n->stack;
    cpu_switch_to(prev, n);
}

/* sched.c's hook: the task's state as set_current_state and the wake-ups
 * set it; an ended task released from task[] (see the top). */
void board_thread_state(struct ex_thread *t)
{
    unsigned i = (unsigned)(t - ex_threads);

    switch (t->state) {
    case EX_THREAD_SLEEPING:
        tasks[i].state = TASK_INTERRUPTIBLE;
        break;
    case EX_THREAD_BLOCKED:
    case EX_THREAD_WAITING:
        tasks[i].state = TASK_UNINTERRUPTIBLE;
        break;
    case EX_THREAD_EXITED:
    case EX_THREAD_KILLED:
        task[i] = NULL;
        break;
    default:
        tasks[i].state = TASK_RUNNING;
        break;
    }
}

void schedule_tail(void)
{
    EX_IRQ_ON();
}

EX_NORETURN void linux_task_returned(void)
{
    panic("ret_from_fork: the task's function returned");
}

static void interrupted(const struct pt_regs *regs, sfu_regs *out)
{
    sfu_port_trap_regs(&ex_dump.traps[0], (uint64_t)(uintptr_t)regs, out);
}

void linux_el1_sync(struct pt_regs *regs)
{
    uint64_t esr;
    struct ex_fault f;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    if (a64_semihosting_trap(esr, regs->pc)) {
        regs->regs[0] = (uint64_t)-1;
        regs->pc += 4;
        return;
    }
    if (ex_probe_take(esr, &regs->pc))
        return;
    a64_describe(&f, (regs->pstate & 1u) ? 4u : 0u, &ex_dump.traps[0], (uint64_t)(uintptr_t)regs);
    interrupted(regs, &f.regs);
    ex_fault(&f);
}

void linux_el1_irq(struct pt_regs *regs)
{
    sfu_regs r;

    interrupted(regs, &r);
    handle_irq(&r);
}

EX_NORETURN void handle_bad_stack(struct pt_regs *regs)
{
    struct ex_fault f;

    a64_describe(&f, 4, &ex_dump.traps[0], (uint64_t)(uintptr_t)regs);
    interrupted(regs, &f.regs);
    f.note = "kernel stack overflow: pt_regs saved on the overflow stack";
    ex_fault(&f);
}

EX_NORETURN void linux_bad_vector(void)
{
    ex_printf("linux: unexpected exception vector\n");
    board_exit(EX_BUG);
}
