/* SPDX-License-Identifier: MIT */
/* A build whose RTOS does not match the ready-made description is refused
 * at compile time (test/unit/run.sh builds this file once per CASE, for
 * aarch64, and wants each mismatch refused with its header's message and
 * CASE 0, the matching build, accepted):
 *   CASE 0  every type as the headers cover it: builds
 *   CASE 1  a TX_THREAD with a user extension before tx_thread_name
 *           (TX_THREAD_USER_EXTENSION placed early, a newer field): refused,
 *           "TX_THREAD.tx_thread_name is not at"
 *   CASE 2  a TCB_t with a field before pxTopOfStack (an MPU build's
 *           layout): refused, "TCB_t.pxTopOfStack is not first"
 *   CASE 3  a cpu_context with sp and fp swapped: refused, "cpu_context is
 *           not Linux's"
 *   CASE 4  an SMP FreeRTOS (configNUMBER_OF_CORES 2): refused, "SMP
 *           builds"
 *   CASE 5  ThreadX built with ENABLE_ARM_FP, the header told it was not
 *           (SFU_THREADX_ARM_FP 0): refused, "built with ENABLE_ARM_FP"
 */
#include <stdint.h>
#include <stddef.h>

#define SFU_ERROR_STRINGS 1
#include "sfu_port_aarch64.h"

#ifndef CASE
#define CASE 0
#endif

/* ThreadX */
#if CASE == 1
#define RTOS_TX_MOVED 1
#endif
#include "rtos_types.h"
#if CASE == 5
#define ENABLE_ARM_FP 1
#define SFU_THREADX_ARM_FP 0
#endif
#define SFU_THREADX_DATA 1
#define SFU_THREADX_IRQ_HANDLER irq_handler
#define SFU_THREADX_SYSTEM_STACK_LO sys_lo
#define SFU_THREADX_SYSTEM_STACK_HI sys_hi
#include "sfu_threadx.h"

/* FreeRTOS */
#define configUSE_TASK_FPU_SUPPORT 2
#define configMAX_PRIORITIES 1
#define configRECORD_STACK_HIGH_ADDRESS 1
#define INCLUDE_vTaskSuspend 0
#define INCLUDE_vTaskDelete 0
#if CASE == 4
#define configNUMBER_OF_CORES 2
#endif
#define configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H 1
#define SFU_FREERTOS_IRQ_STACK_LO sys_lo
#define SFU_FREERTOS_IRQ_STACK_HI sys_hi
typedef struct tskTaskControlBlock {
#if CASE == 2
    UBaseType_t xMPUSettings;
#endif
    volatile StackType_t *pxTopOfStack;
    ListItem_t xStateListItem;
    StackType_t *pxStack;
    char pcTaskName[16];
    StackType_t *pxEndOfStack;
} TCB_t;
TCB_t *volatile pxCurrentTCB;
static List_t pxReadyTasksLists[configMAX_PRIORITIES], xDelayedTaskList1, xDelayedTaskList2;
void vTaskSwitchContext(void);
#define SFU_FREERTOS_TASKS_C 1
#include "sfu_freertos.h"

/* Linux-like */
#include "sfu_linux.h"
struct pt_regs {
    uint64_t regs[31], sp, pc, pstate;
};
struct cpu_context {
#if CASE == 3
    uint64_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28, sp, fp, pc;
#else
    uint64_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28, fp, sp, pc;
#endif
};
SFU_LINUX_CHECK_TYPES(struct pt_regs, struct cpu_context);

/* What a user's dump file then writes (README step 1's file, its
 * description line changed), for each: the forms build. */
void board_putc(char c);
static struct sfu_dump_state st_fr, st_tx, st_lx;
const struct sfu_dump dump_freertos = SFU_FREERTOS_DUMP(&st_fr, board_putc);
const struct sfu_dump dump_threadx = SFU_THREADX_DUMP(&st_tx, board_putc);
extern char __entry_text_start[], __entry_text_end[];
extern struct task_struct *task[4];
extern struct task_struct *current;
struct task_struct {
    long state;
    void *stack;
    int pid;
    char comm[16];
    struct {
        struct cpu_context cpu_context;
    } thread;
};
void kernel_main(void), ret_from_fork(void);
static const struct sfu_trap_layout lx_traps[] = { SFU_LINUX_PT_REGS(struct pt_regs, __entry_text_start,
                                                                    __entry_text_end) };
static const struct sfu_switch_layout lx_cpu_context = SFU_LINUX_CPU_CONTEXT(struct cpu_context);
static const struct sfu_dump_table lx_tasks = {
    SFU_LINUX_TASKS(struct task_struct, task, 4, thread.cpu_context, stack, 16384, &lx_cpu_context),
    SFU_DUMP_ID(struct task_struct, pid), SFU_DUMP_NAME_IN(struct task_struct, comm), .current = &current };
static const uint64_t lx_entries[] = { SFU_LINUX_ENTRIES(kernel_main, ret_from_fork) };
const struct sfu_dump dump_linux = { SFU_DUMP_PUTC_FIELDS(&st_lx, board_putc, lx_traps, 1), .threads = &lx_tasks,
                                     SFU_DUMP_ENTRIES(lx_entries) };
/* ... and with the crash record, as each header's USAGE writes it. */
static uint8_t rec_fr[4096], rec_tx[4096], rec_lx[4096];
static struct sfu_dump_state st_fr_rec, st_tx_rec, st_lx_rec;
const struct sfu_dump dump_freertos_rec = { SFU_DUMP_PUTC_FIELDS(&st_fr_rec, board_putc,
    sfu_freertos_traps, SFU_FREERTOS_NTRAPS), .threads = &sfu_freertos_tasks,
    SFU_DUMP_ENTRIES(sfu_freertos_entries), SFU_DUMP_RECORD(rec_fr, sizeof rec_fr) };
const struct sfu_dump dump_threadx_rec = { SFU_DUMP_PUTC_FIELDS(&st_tx_rec, board_putc,
    sfu_threadx_traps, SFU_THREADX_SWITCH_TRAPS), .threads = &sfu_threadx_threads,
    SFU_DUMP_ENTRIES(sfu_threadx_entries), SFU_DUMP_RECORD(rec_tx, sizeof rec_tx) };
const struct sfu_dump dump_linux_rec = { SFU_DUMP_PUTC_FIELDS(&st_lx_rec, board_putc, lx_traps, 1),
                                         .threads = &lx_tasks, SFU_DUMP_ENTRIES(lx_entries),
                                         SFU_DUMP_RECORD(rec_lx, sizeof rec_lx) };
