/* SPDX-License-Identifier: MIT */
/*
 * freertos.c -- a kernel shaped as FreeRTOS's tasks.c and the ARM_AARCH64
 * port.c are (V11.2.0), written here, for freertos-port.S: the task
 * control block TCB_t, FreeRTOS's circular lists with their end nodes,
 * the ready lists per priority, the delayed, suspended and termination
 * lists, pxCurrentTCB, vTaskSwitchContext with its stack check, and
 * pxPortInitialiseStack's first context.  Only the policy is the
 * examples' (sched.c decides which thread runs next and when); the
 * mechanism, the structures and where each thing lies are FreeRTOS's.
 *
 * Nothing here is for sfu but the end of the file, which includes
 * freertos_tasks_c_additions.h as tasks.c does.
 *
 * Which list a task is on (sched.c's states, board_thread_state):
 *   running, ready, preempted   pxReadyTasksLists[its priority]
 *   blocked for good            xSuspendedTaskList (FreeRTOS blocks a task
 *                               that waits with portMAX_DELAY there)
 *   asleep (vTaskDelay), waiting on the semaphore with a timeout
 *   (xSemaphoreTake)            *pxDelayedTaskList, ordered by the tick it
 *                               wakes at, or *pxOverflowDelayedTaskList if
 *                               that tick is past the count's wrap
 *                               (prvAddCurrentTaskToDelayedList); the
 *                               waiter's xEventListItem also on the
 *                               semaphore's xTasksWaitingToReceive
 *   ended (vTaskDelete of itself, or of it by another task)
 *                               xTasksWaitingTermination: its TCB and stack
 *                               are freed by the idle task, later (here
 *                               never: the examples have no idle task); its
 *                               saved context is the one it last saved
 *   before the scheduler starts the boot code runs as a task of its own,
 *   xBootTCB (on no list), so that a fault there has a TCB to save its
 *   context into; FreeRTOS's startup code would run without one.
 */
#include "ex.h"
#include "board.h"

#include "freertos/FreeRTOSConfig.h"
#include "sfu_freertos.h"

/* portmacro.h */
typedef uint64_t StackType_t;
typedef uint64_t UBaseType_t;
typedef uint64_t TickType_t;
#define portSTACK_GROWTH (-1)
#define portBYTE_ALIGNMENT 16
#define portMAX_DELAY ((TickType_t)~0ull)

/* list.h: an item; the end node of a list (configUSE_MINI_LIST_ITEM 1);
 * a list. */
struct xLIST;
typedef struct xLIST_ITEM {
    TickType_t xItemValue;
    struct xLIST_ITEM *pxNext;
    struct xLIST_ITEM *pxPrevious;
    void *pvOwner;
    struct xLIST *pxContainer;
} ListItem_t;
typedef struct xMINI_LIST_ITEM {
    TickType_t xItemValue;
    struct xLIST_ITEM *pxNext;
    struct xLIST_ITEM *pxPrevious;
} MiniListItem_t;
typedef struct xLIST {
    volatile UBaseType_t uxNumberOfItems;
    ListItem_t *pxIndex;
    MiniListItem_t xListEnd;
} List_t;

/* tasks.c: TCB_t in FreeRTOS's field order for these options (single
 * core, no MPU: pxTopOfStack first, pcTaskName inline). */
typedef struct tskTaskControlBlock {
    volatile StackType_t *pxTopOfStack;
    ListItem_t xStateListItem;
    ListItem_t xEventListItem;
    UBaseType_t uxPriority;
    StackType_t *pxStack;
    char pcTaskName[configMAX_TASK_NAME_LEN];
    StackType_t *pxEndOfStack;
    UBaseType_t uxTCBNumber;
    UBaseType_t uxTaskNumber;
} TCB_t;

/* vListInitialise's result, as a constant: the end node closes the
 * empty circle. */
#define LIST_EMPTY(l)                                                                              \
    { 0, (ListItem_t *)(void *)&(l).xListEnd,                                                      \
      { portMAX_DELAY, (ListItem_t *)(void *)&(l).xListEnd, (ListItem_t *)(void *)&(l).xListEnd } }
static List_t pxReadyTasksLists[configMAX_PRIORITIES] = {
    LIST_EMPTY(pxReadyTasksLists[0]), LIST_EMPTY(pxReadyTasksLists[1]), LIST_EMPTY(pxReadyTasksLists[2]),
    LIST_EMPTY(pxReadyTasksLists[3]),
};
static List_t xDelayedTaskList1 = LIST_EMPTY(xDelayedTaskList1);
static List_t xDelayedTaskList2 = LIST_EMPTY(xDelayedTaskList2);
static List_t xSuspendedTaskList = LIST_EMPTY(xSuspendedTaskList);
static List_t xTasksWaitingTermination = LIST_EMPTY(xTasksWaitingTermination);
static List_t *volatile pxDelayedTaskList = &xDelayedTaskList1;
static List_t *volatile pxOverflowDelayedTaskList = &xDelayedTaskList2;
/* The one semaphore of the examples (threads.c's), its queue's list of
 * the tasks waiting to take it. */
static List_t xTasksWaitingToReceive = LIST_EMPTY(xTasksWaitingToReceive);
/* FreeRTOS.h's default is 0; the examples' count starts 100 s of ticks
 * before the 64-bit wrap (FreeRTOS's own way to test the wrap), so that a
 * long timeout lands on the overflow list.  The count is sched.c's tick
 * count from there. */
#ifndef configINITIAL_TICK_COUNT
#define configINITIAL_TICK_COUNT ((TickType_t)0 - 100000u)
#endif
static TickType_t xLastTickCount = configINITIAL_TICK_COUNT;
static TCB_t xTasks[EX_MAX_THREADS];
extern char __stack_start[], __stack_end[];
static TCB_t xBootTCB = { .pxStack = (StackType_t *)__stack_start, .pxEndOfStack = (StackType_t *)__stack_end,
                          .pcTaskName = "main" };
TCB_t *volatile pxCurrentTCB = &xBootTCB;

/* port.c */
uint64_t ullCriticalNesting;
uint64_t ullPortTaskHasFPUContext;
uint64_t ullPortInterruptNesting;
uint64_t ullPortYieldRequired;

void vTaskSwitchContext(void);
void vApplicationIRQHandler(uint32_t ulICCIAR, uint64_t frame); /* frame: x1, for the reports */
void freertos_fault(uint64_t esr, uint64_t ec, uint64_t sp); /* sp: x2, for the reports */
void freertos_spx_fault(uint64_t frame);
EX_NORETURN void freertos_bad_vector(void);
void vPortRestoreTaskContext(void);
void vApplicationStackOverflowHook(TCB_t *xTask, char *pcTaskName);

/* A node's links, through the part an item and an end node share (an
 * end node is only a MiniListItem_t). */
#define LINKS(p) ((MiniListItem_t *)(void *)(p))

/* At the list's end (vListInsertEnd: before pxIndex, here the end node). */
static void vListInsertEnd(List_t *l, ListItem_t *it)
{
    MiniListItem_t *end = &l->xListEnd;

    it->pxNext = (ListItem_t *)(void *)end;
    it->pxPrevious = end->pxPrevious;
    LINKS(end->pxPrevious)->pxNext = it;
    end->pxPrevious = it;
    it->pxContainer = l;
    l->uxNumberOfItems++;
}

/* In order of xItemValue, after the items of the same value (vListInsert). */
static void vListInsert(List_t *l, ListItem_t *it)
{
    ListItem_t *at = (ListItem_t *)(void *)&l->xListEnd;

    while (LINKS(at->pxNext) != &l->xListEnd && at->pxNext->xItemValue <= it->xItemValue)
        at = at->pxNext;
    it->pxNext = at->pxNext;
    LINKS(it->pxNext)->pxPrevious = it;
    it->pxPrevious = at;
    at->pxNext = it;
    it->pxContainer = l;
    l->uxNumberOfItems++;
}

static void uxListRemove(ListItem_t *it)
{
    List_t *l = it->pxContainer;

    if (l == NULL)
        return; /* on no list (listLIST_ITEM_CONTAINER checked first, as tasks.c does) */
    LINKS(it->pxNext)->pxPrevious = it->pxPrevious;
    LINKS(it->pxPrevious)->pxNext = it->pxNext;
    if (l->pxIndex == it)
        l->pxIndex = it->pxPrevious;
    it->pxContainer = NULL;
    l->uxNumberOfItems--;
}

static unsigned task_index(const struct ex_thread *t)
{
    return (unsigned)(t - ex_threads);
}

/* pxPortInitialiseStack: the context a never-run task resumes from, as
 * portSAVE_CONTEXT would have left it: X1..X29 filled with 0x0101...01 ..
 * 0x2929...29, X0 the parameter, X30 0, SPSR EL1t with every exception
 * unmasked, ELR the task's function, nesting 0; the FPU flag 0, or 1 with
 * 32 zeroed Q registers (configUSE_TASK_FPU_SUPPORT 2's first context,
 * and that of a task that called vPortTaskUsesFPU). */
#define FILL(n) (0x0101010101010101ull * ((((n) / 10u) << 4) | ((n) % 10u)))
static StackType_t *pxPortInitialiseStack(StackType_t *top, void (*code)(void *), void *params, int fpu)
{
    unsigned n, i;

    for (n = 0; n <= 28; n += 2) {
        *--top = FILL(n + 1u);                                 /* X(n+1) */
        *--top = n == 0 ? (uint64_t)(uintptr_t)params : FILL(n); /* X(n) */
    }
    *--top = 0;                          /* XZR */
    *--top = 0;                          /* X30 */
    *--top = 0x04;                       /* SPSR: EL1t */
    *--top = (uint64_t)(uintptr_t)code;  /* ELR */
    if (fpu) {
        for (i = 0; i < 64; i++)
            *--top = 0;
    }
    *--top = 0;                          /* critical nesting */
    *--top = fpu ? 1 : 0;                /* FPU flag */
    return top;
}

/* sched.c's hook: xTaskCreate's TCB for thread t, on its stack (filled
 * with tskSTACK_FILL_BYTE), on the ready list of priority 1.  Every second
 * task has an FPU context from its start. */
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg)
{
    unsigned i, k;
    TCB_t *tcb = NULL;
    const struct ex_thread *t = NULL;
    uint8_t *p;

    (void)exc_hi;
    for (i = 0; i < EX_MAX_THREADS; i++) {
        if (ex_threads[i].stack.hi == stack_hi) {
            t = &ex_threads[i];
            tcb = &xTasks[i];
        }
    }
    if (tcb == NULL)
        panic("board_thread_context: not a thread's stack");
    for (p = (uint8_t *)(uintptr_t)t->stack.lo; p < (uint8_t *)(uintptr_t)stack_hi; p++)
        *p = 0xa5;
    tcb->pxStack = (StackType_t *)(uintptr_t)t->stack.lo;
    /* &pxStack[depth - 1], rounded down to portBYTE_ALIGNMENT. */
    tcb->pxEndOfStack = (StackType_t *)(uintptr_t)((stack_hi - 8u) & ~(uint64_t)(portBYTE_ALIGNMENT - 1));
    for (k = 0; k + 1 < configMAX_TASK_NAME_LEN && t->name[k]; k++)
        tcb->pcTaskName[k] = t->name[k];
    tcb->pcTaskName[k] = '\0';
    tcb->uxPriority = 1;
    tcb->uxTCBNumber = t->id;
    tcb->xStateListItem.pvOwner = tcb;
    tcb->xEventListItem.pvOwner = tcb;
    tcb->pxTopOfStack = pxPortInitialiseStack(tcb->pxEndOfStack, entry, arg, task_index(t) % 2u == 1u);
    vListInsertEnd(&pxReadyTasksLists[tcb->uxPriority], &tcb->xStateListItem);
    return (uint64_t)(uintptr_t)tcb->pxTopOfStack;
}

/* The switch sched.c asked for, made by vTaskSwitchContext. */
static struct {
    uint64_t *save;
    uint64_t *next_slot;
    uint64_t next;
    int pending;
} sw;
static volatile int in_irq;

int board_switch_begin(uint64_t *save, uint64_t next, uint64_t *next_slot)
{
    sw.save = save;
    sw.next = next;
    sw.next_slot = next_slot;
    sw.pending = 1;
    if (in_irq)
        ullPortYieldRequired = 1;
    return in_irq;
}

/* portYIELD: the SVC trap.  The scheduler's first start restores the
 * first task's context instead (xPortStartScheduler). */
void ex_switch(uint64_t *save, uint64_t next)
{
    (void)save, (void)next;
    if (pxCurrentTCB == &xBootTCB) {
        vTaskSwitchContext();
        vPortRestoreTaskContext();
    }
    __asm__ volatile("svc #0" : : : "memory");
}

void vApplicationStackOverflowHook(TCB_t *xTask, char *pcTaskName)
{
    (void)xTask;
    ex_printf("stack overflow: task %s\n", pcTaskName);
    panic("vApplicationStackOverflowHook");
}

/* The TCB of the ex_thread whose ctx slot is slot. */
static TCB_t *tcb_of_slot(const uint64_t *slot)
{
    const struct ex_thread *t =
        (const struct ex_thread *)(uintptr_t)((uintptr_t)slot - offsetof(struct ex_thread, ctx));

    return &xTasks[task_index(t)];
}

void vTaskSwitchContext(void)
{
    TCB_t *prev = pxCurrentTCB, *next;

    if (!sw.pending)
        return;
    sw.pending = 0;
    /* taskCHECK_FOR_STACK_OVERFLOW, method 1: the context just saved. */
    if (prev != &xBootTCB && prev->pxTopOfStack <= prev->pxStack)
        vApplicationStackOverflowHook(prev, prev->pcTaskName);
    *sw.save = (uint64_t)(uintptr_t)prev->pxTopOfStack;
    next = tcb_of_slot(sw.next_slot);
    *sw.next_slot = sw.next;
    pxCurrentTCB = next;
}

/* The tick count now (tasks.c's xTickCount): sched.c's ticks from
 * configINITIAL_TICK_COUNT; the delayed lists swapped where the count
 * wrapped since it was last read (taskSWITCH_DELAYED_LISTS, which
 * xTaskIncrementTick does at the wrap; here at the next state change,
 * which the boots of the scenarios never reach). */
static TickType_t prvTickCountNow(void)
{
    TickType_t now = configINITIAL_TICK_COUNT + ex_ticks;

    if (now < xLastTickCount) {
        List_t *l = pxDelayedTaskList;

        pxDelayedTaskList = pxOverflowDelayedTaskList;
        pxOverflowDelayedTaskList = l;
    }
    xLastTickCount = now;
    return now;
}

/* sched.c's hook: the task moved to the list FreeRTOS keeps it on, as
 * vTaskSuspend (blocked for good), vTaskDelay and xSemaphoreTake (asleep,
 * waiting: prvAddCurrentTaskToDelayedList), vTaskDelete (ended, by itself
 * or by another task: prvDeleteTCB waits for the idle task) and
 * xTaskIncrementTick (woken: back to its ready list) do it. */
void board_thread_state(struct ex_thread *t)
{
    TCB_t *tcb = &xTasks[task_index(t)];
    TickType_t now, wake;

    uxListRemove(&tcb->xStateListItem);
    switch (t->state) {
    case EX_THREAD_BLOCKED:
        vListInsertEnd(&xSuspendedTaskList, &tcb->xStateListItem);
        break;
    case EX_THREAD_WAITING:
        tcb->xEventListItem.xItemValue = configMAX_PRIORITIES - tcb->uxPriority;
        vListInsert(&xTasksWaitingToReceive, &tcb->xEventListItem);
        __attribute__((fallthrough)); /* and on a delayed list until its timeout */
    case EX_THREAD_SLEEPING:
        now = prvTickCountNow();
        wake = now + (t->wake - ex_ticks);
        tcb->xStateListItem.xItemValue = wake;
        vListInsert(wake < now ? pxOverflowDelayedTaskList : pxDelayedTaskList, &tcb->xStateListItem);
        break;
    case EX_THREAD_EXITED:
    case EX_THREAD_KILLED:
        uxListRemove(&tcb->xEventListItem);
        vListInsertEnd(&xTasksWaitingTermination, &tcb->xStateListItem);
        break;
    default: /* woken: its timeout came */
        uxListRemove(&tcb->xEventListItem);
        vListInsertEnd(&pxReadyTasksLists[tcb->uxPriority], &tcb->xStateListItem);
        break;
    }
}

/* The interrupt's C handler (FreeRTOS_IRQ_Handler's call): the board's
 * GIC code, with the interrupted context (frame: the IRQ frame).  A
 * handler that unmasks IRQs (irqnest) is preempted by this same handler
 * (taken on SP_EL1: the nested layout): in_irq is restored, not cleared,
 * on the way out, so the outer handler still defers its switch. */
void vApplicationIRQHandler(uint32_t ulICCIAR, uint64_t frame)
{
    sfu_regs r;
    /* SPSR.M[0] where the layouts read it (select.at: the byte offset + 1,
     * SFU_AT; past the GIC pair or not, SFU_FREERTOS_IRQ_IAR). */
    uint16_t at = sfu_freertos_traps[SFU_FREERTOS_TRAP_IRQ].select.at;
    unsigned k = frame != 0 && (*(const uint64_t *)(uintptr_t)(frame + at - 1u) & 1u) ? SFU_FREERTOS_TRAP_IRQ_NESTED
                                                                                    : SFU_FREERTOS_TRAP_IRQ;
    int outer = in_irq;

    (void)ulICCIAR;
    ex_unwind_setup();
    if (sfu_port_trap_regs(&sfu_freertos_traps[k], frame, &r) != SFU_TRAP_KERNEL) {
        *(volatile uint64_t *)&r.pc = 0;
        *(volatile uint64_t *)&r.sp = 0;
    }
    in_irq = 1;
    handle_irq(&r);
    in_irq = outer;
}

/* The task context behind pxCurrentTCB, with its general registers at gp
 * (ELR, SPSR, X30, XZR, X28, X29 ... X0, X1). */
static uint64_t *task_gprs(uint64_t *frame)
{
    return frame + (frame[0] ? 66 : 2);
}
#define GP_ELR 0
#define GP_X0 32

#define GP_SPSR 1

/* Every synchronous exception's, a task's or a handler's (SPSR.M[0]);
 * sp: the SP of the call, a handler's interrupted SP. */
void freertos_fault(uint64_t esr, uint64_t ec, uint64_t sp)
{
    uint64_t *frame = (uint64_t *)(uintptr_t)pxCurrentTCB->pxTopOfStack;
    uint64_t *gp = task_gprs(frame);
    bool spx = (gp[GP_SPSR] & 1u) != 0;
    const struct sfu_trap_layout *l =
        &sfu_freertos_traps[spx ? (frame[0] ? SFU_FREERTOS_TRAP_HANDLER_FP : SFU_FREERTOS_TRAP_HANDLER)
                                : (frame[0] ? SFU_FREERTOS_TRAP_TASK_FP : SFU_FREERTOS_TRAP_TASK)];
    struct ex_fault f;

    (void)ec;
    if (a64_semihosting_trap(esr, gp[GP_ELR])) {
        gp[GP_X0] = (uint64_t)-1;
        gp[GP_ELR] += 4;
        return;
    }
    if (ex_probe_take(esr, &gp[GP_ELR]))
        return;
    a64_describe(&f, spx ? 4 : 0, l, (uint64_t)(uintptr_t)frame);
    if (sfu_port_trap_regs_sp(l, (uint64_t)(uintptr_t)frame, sp, &f.regs) != SFU_TRAP_KERNEL) {
        *(volatile uint64_t *)&f.regs.pc = 0;
        *(volatile uint64_t *)&f.regs.sp = 0;
    }
    ex_fault(&f);
}

_Static_assert(offsetof(TCB_t, pxStack) == 96, "freertos-port.S reads pxStack at 96");

void freertos_spx_fault(uint64_t frame)
{
    uint64_t esr;
    const struct sfu_trap_layout *l;
    bool spx;
    struct ex_fault f;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    if (ex_probe_take(esr, (uint64_t *)(uintptr_t)(frame + 16u)))
        return;
    spx = (((const uint64_t *)(uintptr_t)frame)[3] & 1u) != 0; /* SPSR.M[0] */
    l = &sfu_freertos_traps[spx ? SFU_FREERTOS_TRAP_SPX : SFU_FREERTOS_TRAP_SPX_TASK];
    a64_describe(&f, spx ? 4 : 0, l, frame);
    sfu_port_trap_regs(l, frame, &f.regs);
    if (!spx)
        f.note = "the task's stack has no room for its context: saved on the IRQ stack";
    ex_fault(&f);
}

EX_NORETURN void freertos_bad_vector(void)
{
    ex_printf("freertos: unexpected exception vector\n");
    board_exit(EX_BUG);
}

/* tasks.c's last lines. */
#if configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H == 1
#include "freertos_tasks_c_additions.h" /* rtos/ (-I): sfu's */
#endif
