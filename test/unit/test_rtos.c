/* SPDX-License-Identifier: MIT */
/* Unit tests of the ready-made RTOS descriptions (rtos/): ThreadX's and
 * FreeRTOS's saved contexts read with their headers' layouts, and what
 * they refuse.  aarch64 only (the headers describe aarch64 ports): built
 * by the aarch64 cross compiler, run under qemu-aarch64
 * (test/unit/run.sh).  The compile-time refusals (a TX_THREAD, a TCB_t or
 * a cpu_context whose layout moved) are test/unit/rtos_mismatch.c's.
 *
 *   threadx fp        a thread with tx_thread_fp_enable set, switched out
 *                     by _tx_thread_system_return with its FP part: the
 *                     header built with SFU_THREADX_ARM_FP reads it (PC,
 *                     SP, x29 right); the one built without it (its two
 *                     layouts, the same as the first two of the FP
 *                     header's) refuses it, never reads its FP part as
 *                     registers
 *   threadx kinds     the same thread's full (preempted) frame, and a
 *                     solicited one without FP
 *   freertos flag     portSAVE_CONTEXT's context by its flag word: 0 and 1
 *                     read, anything else refused
 *   freertos irq      FreeRTOS_IRQ_Handler's frame at the call into
 *                     vApplicationIRQHandler, from a task and nested,
 *                     read; the same frame with anything but
 *                     ullPortInterruptNesting's address in its nesting
 *                     pair refused (what tells it from a task context)
 */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_live_sp;
#define SFU_PORT_LIVE_SP g_live_sp
#include "sfu_port_aarch64.h"

#include "rtos_types.h"

TX_THREAD *_tx_thread_current_ptr, *_tx_thread_created_ptr;
ULONG _tx_thread_system_state;
char ut_sys_lo[64], ut_sys_hi[8];
void ut_irq(void), ut_fault(void);
void ut_irq(void) {}
void ut_fault(void) {}
void _tx_thread_shell_entry(void);
void _tx_thread_shell_entry(void) {}
int main(void);

#define SFU_THREADX_ARM_FP 1
#define SFU_THREADX_IRQ_HANDLER ut_irq
#define SFU_THREADX_FAULT_HANDLER ut_fault
#define SFU_THREADX_SYSTEM_STACK_LO ut_sys_lo
#define SFU_THREADX_SYSTEM_STACK_HI ut_sys_hi
#include "sfu_threadx.h"

/* ---- FreeRTOS: tasks.c's types and options ------------------------------ */
#define configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H 1
#define configUSE_TASK_FPU_SUPPORT 1
#define configMAX_PRIORITIES 2
#define configRECORD_STACK_HIGH_ADDRESS 1
#define configUSE_TRACE_FACILITY 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelete 0
#define SFU_FREERTOS_IRQ_STACK_LO ut_sys_lo
#define SFU_FREERTOS_IRQ_STACK_HI ut_sys_hi
#define SFU_FREERTOS_ENTRY main
typedef struct tskTaskControlBlock {
    volatile StackType_t *pxTopOfStack;
    ListItem_t xStateListItem, xEventListItem;
    UBaseType_t uxPriority;
    StackType_t *pxStack;
    char pcTaskName[16];
    StackType_t *pxEndOfStack;
    UBaseType_t uxTCBNumber, uxTaskNumber;
} TCB_t;
TCB_t *volatile pxCurrentTCB;
static List_t pxReadyTasksLists[configMAX_PRIORITIES], xDelayedTaskList1, xDelayedTaskList2, xSuspendedTaskList;
void vTaskSwitchContext(void);
void vTaskSwitchContext(void) {}
void vApplicationIRQHandler(void);
void vApplicationIRQHandler(void) {}
uint64_t ullPortInterruptNesting; /* port.c's: the IRQ frame's nesting pair holds its address */
void freertos_fault(void); /* FreeRTOS_Abort's call (SFU_FREERTOS_FAULT_HANDLER's default) */
void freertos_fault(void) {}
#define SFU_FREERTOS_TASKS_C 1
#include "sfu_freertos.h"

#include "ut.h"

/* A thread's stack, 8 KiB, and the port context of its walk. */
static uint64_t g_stack[1024] __attribute__((aligned(16)));
static TX_THREAD g_thread;

static struct sfu_port_ctx thread_ctx(void)
{
    static struct sfu_port_range ram[2];
    struct sfu_port_ctx c;

    ram[0].start = (uintptr_t)g_stack;
    ram[0].end = (uintptr_t)(g_stack + 1024);
    ram[1].start = (uintptr_t)&g_thread;
    ram[1].end = (uintptr_t)(&g_thread + 1);
    memset(&c, 0, sizeof c);
    c.ram = ram;
    c.nram = 2;
    c.tcb = (uintptr_t)&g_thread;
    return c;
}

/* _tx_thread_system_return's frame at the stack's top, with the FP part
 * if fp: x29 0x1111, x30 (the resume PC) 0x4000; the FP registers full of
 * 0x5a5a... */
static uint64_t solicited(int fp)
{
    unsigned size = fp ? 256u : 112u, g = fp ? 144u : 0u, i;
    uint64_t *f = g_stack + 1024 - size / 8;

    for (i = 0; i < size / 8; i++)
        f[i] = 0x5a5a5a5a5a5a5a5aull;
    f[0] = 0x3c0; /* DAIF */
    f[1] = 0;     /* solicited */
    f[(g + 96) / 8] = 0x1111;
    f[(g + 104) / 8] = 0x4000;
    return (uintptr_t)f;
}

/* context_restore's full frame: ELR 0x4444, x29 0x2222, x30 0x3333. */
static uint64_t full(int fp)
{
    unsigned size = fp ? 800u : 272u, g = fp ? 528u : 0u, i;
    uint64_t *f = g_stack + 1024 - size / 8;

    for (i = 0; i < size / 8; i++)
        f[i] = 0x5a5a5a5a5a5a5a5aull;
    f[0] = 0x5;    /* SPSR EL1h */
    f[1] = 0x4444; /* ELR */
    f[(g + 256) / 8] = 0x2222;
    f[(g + 264) / 8] = 0x3333;
    return (uintptr_t)f;
}

/* The header built without SFU_THREADX_ARM_FP: its two layouts (the
 * same as the first two of the FP header's) and its rule. */
static const struct sfu_switch_layout g_nofp = { .traps = &sfu_threadx_traps[SFU_THREADX_SWITCH_TRAPS],
                                                 .ntraps = 2,
                                                 .unmatched = SFU_THREADX_UNMATCHED(0) };

UT_CASE(test_threadx_fp)
{
    struct sfu_port_ctx c = thread_ctx();
    sfu_regs r;
    uint64_t f;
    int err;

    begin();
    g_thread.tx_thread_fp_enable = 1;
    f = solicited(1);
    memset(&r, 0, sizeof r);
    err = sfu_port_switch_regs(&c, &sfu_threadx_switch, f, &r);
    EXPECT(err == SFU_OK, "FP header on an FP thread: %s", E(err));
    EXPECT(r.pc == 0x4000 && r.fp == 0x1111 && r.sp == f + 256, "FP frame read as pc %llx fp %llx sp %llx",
           (unsigned long long)r.pc, (unsigned long long)r.fp, (unsigned long long)(r.sp - f));
    err = sfu_port_switch_regs(&c, &g_nofp, f, &r);
    EXPECT(err == SFU_E_DESC, "the header without SFU_THREADX_ARM_FP on an FP thread's frame: %s (pc %llx), not "
           "SFU_E_DESC", E(err), (unsigned long long)r.pc);
    EXPECT(g_nofp.unmatched != NULL && strncmp(g_nofp.unmatched, "tx_thread_fp_enable: set", 24) == 0 &&
               strstr(g_nofp.unmatched, "SFU_THREADX_ARM_FP 0") != NULL,
           "the rule does not name the field and the knob: %s", g_nofp.unmatched ? g_nofp.unmatched : "(none)");
    EXPECT(SFU_THREADX_UNMATCHED(1) == NULL, "the FP header names a rule for a corrupt flag");
    /* The flag cannot be read (no TCB): no rule claimed, a read refused. */
    c.tcb = 0;
    err = sfu_port_switch_regs(&c, &g_nofp, f, &r);
    EXPECT(err == SFU_E_READ, "no TCB to read the flag from: %s, not SFU_E_READ", E(err));
    end("unit rtos threadx: an FP thread read with SFU_THREADX_ARM_FP 1, refused without it (SFU_E_DESC, "
        "tx_thread_fp_enable named)");
}

UT_CASE(test_threadx_kinds)
{
    struct sfu_port_ctx c = thread_ctx();
    sfu_regs r;
    uint64_t f;
    int err;

    begin();
    g_thread.tx_thread_fp_enable = 1;
    f = full(1);
    err = sfu_port_switch_regs(&c, &sfu_threadx_switch, f, &r);
    EXPECT(err == SFU_OK && r.pc == 0x4444 && r.fp == 0x2222 && r.ra == 0x3333 && r.sp == f + 800,
           "full FP frame: %s pc %llx fp %llx", E(err), (unsigned long long)r.pc, (unsigned long long)r.fp);
    g_thread.tx_thread_fp_enable = 0;
    f = full(0);
    err = sfu_port_switch_regs(&c, &g_nofp, f, &r);
    EXPECT(err == SFU_OK && r.pc == 0x4444 && r.fp == 0x2222 && r.sp == f + 272, "full frame: %s pc %llx", E(err),
           (unsigned long long)r.pc);
    f = solicited(0);
    err = sfu_port_switch_regs(&c, &g_nofp, f, &r);
    EXPECT(err == SFU_OK && r.pc == 0x4000 && r.fp == 0x1111 && r.sp == f + 112, "solicited frame: %s pc %llx",
           E(err), (unsigned long long)r.pc);
    end("unit rtos threadx: full and solicited frames, with and without FP");
}

/* The port context of a walk whose memory is the stack alone. */
static struct sfu_port_ctx stack_ctx(void)
{
    static struct sfu_port_range ram[1];
    struct sfu_port_ctx c;

    ram[0].start = (uintptr_t)g_stack;
    ram[0].end = (uintptr_t)(g_stack + 1024);
    memset(&c, 0, sizeof c);
    c.ram = ram;
    c.nram = 1;
    return c;
}

UT_CASE(test_freertos_flag)
{
    struct sfu_port_ctx c = stack_ctx();
    uint64_t *f = g_stack + 1024 - 288 / 8;
    sfu_regs r;
    int err;

    begin();
    memset(f, 0, 288);
    f[2] = 0x4000; /* ELR */
    f[3] = 0x4;    /* SPSR EL1t */
    f[4] = 0x3000; /* X30 */
    f[7] = 0x1111; /* X29 */
    err = sfu_port_switch_regs(&c, &sfu_freertos_switch, (uintptr_t)f, &r);
    EXPECT(err == SFU_OK && r.pc == 0x4000 && r.fp == 0x1111 && r.ra == 0x3000 && r.sp == (uintptr_t)f + 288,
           "flag 0: %s pc %llx fp %llx", E(err), (unsigned long long)r.pc, (unsigned long long)r.fp);
    f[0] = 2;
    err = sfu_port_switch_regs(&c, &sfu_freertos_switch, (uintptr_t)f, &r);
    EXPECT(err != SFU_OK, "a flag word of 2 was read (pc %llx)", (unsigned long long)r.pc);
    /* A handler's context (SPSR EL1h: a fault in an interrupt handler)
     * is never a waiting task's: FreeRTOS switches from a task only. */
    f[0] = 0;
    f[3] = 0x5;
    err = sfu_port_switch_regs(&c, &sfu_freertos_switch, (uintptr_t)f, &r);
    EXPECT(err != SFU_OK, "a waiting task's context saved from SP_ELx was read (pc %llx)", (unsigned long long)r.pc);
    end("unit rtos freertos: the task context by its flag word and SPSR.M[0], 0 and EL1t read, 2 and EL1h "
        "refused");
}

/* A BL to callee at code[0] (in the walk's RAM, where the layouts read
 * the instruction before a return address): the return address. */
static uint64_t bl_site(uint32_t *code, const void *callee)
{
    int64_t d = ((int64_t)(uintptr_t)callee - (int64_t)(uintptr_t)code) / 4;

    code[0] = 0x94000000u | ((uint32_t)d & 0x03ffffffu);
    return (uintptr_t)code + 4u;
}

UT_CASE(test_freertos_irq)
{
    struct sfu_port_ctx c = stack_ctx();
    const unsigned i = SFU_FREERTOS_IRQ_IAR ? 2u : 0u; /* the frame's words past the GIC pair */
    uint64_t *f = g_stack + 1024 - SFU_FREERTOS_IRQ_SIZE / 8, ra;
    sfu_regs r;
    int k;

    begin();
    c.traps = sfu_freertos_traps;
    c.ntraps = SFU_FREERTOS_NTRAPS;
    memset(g_stack, 0, sizeof g_stack);
    ra = bl_site((uint32_t *)(void *)g_stack, (const void *)vApplicationIRQHandler);
    f[i + 0] = 0; /* the previous ullPortInterruptNesting */
    f[i + 1] = (uintptr_t)&ullPortInterruptNesting;
    f[i + 2] = 0x4000; /* ELR */
    f[i + 3] = 0x4;    /* SPSR EL1t: a task's */
    f[i + 4] = 0x1111; /* X29 */
    f[i + 5] = 0x3000; /* X30 */
    g_live_sp = (uintptr_t)(g_stack + 512);
    memset(&r, 0, sizeof r);
    k = sfu_port_trap(&c, ra, (uintptr_t)f, &r);
    EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x4000 && r.fp == 0x1111 && r.ra == 0x3000 && r.sp == g_live_sp,
           "from a task: %d pc %llx fp %llx sp %llx", k, (unsigned long long)r.pc, (unsigned long long)r.fp,
           (unsigned long long)r.sp);
    f[i + 3] = 0x5; /* EL1h: nested, the interrupted SP the frame's end */
    memset(&r, 0, sizeof r);
    k = sfu_port_trap(&c, ra, (uintptr_t)f, &r);
    EXPECT(k == SFU_TRAP_KERNEL && r.pc == 0x4000 && r.sp == (uintptr_t)f + SFU_FREERTOS_IRQ_SIZE,
           "nested: %d pc %llx sp %llx", k, (unsigned long long)r.pc, (unsigned long long)r.sp);
    /* A task context's critical nesting count where the address is. */
    f[i + 3] = 0x4;
    f[i + 1] = 0;
    k = sfu_port_trap(&c, ra, (uintptr_t)f, &r);
    EXPECT(k == SFU_TRAP_UNREADABLE, "a frame without ullPortInterruptNesting's address was read: %d pc %llx", k,
           (unsigned long long)r.pc);
    g_live_sp = 0;
    end("unit rtos freertos irq: the IRQ frame from a task and nested read, one without "
        "ullPortInterruptNesting's address in its nesting pair refused");
}

/* The forms the headers brought to sfu_layout.h: a second select word
 * (also) checked as select is, and a 4-byte select variable at a 4-byte
 * boundary (ThreadX's _tx_thread_system_state). */
UT_CASE(test_forms)
{
    struct sfu_trap_layout l = sfu_threadx_traps[SFU_THREADX_SWITCH_TRAPS];
    static uint32_t var[4] __attribute__((aligned(8)));
    const char *why = NULL;
    int err;

    begin();
    err = sfu_layout_check(&l, &why);
    EXPECT(err == SFU_OK, "the solicited layout: %s", why ? why : "");
    l.also.at = 0;
    err = sfu_layout_check(&l, &why);
    EXPECT(ut_refused(err, why, "also:"), "also without its word: %s (%s)", E(err), why ? why : "");
    l = sfu_threadx_traps[SFU_THREADX_TRAP_ISR];
    l.select.ref = &var[1];
    err = sfu_layout_check(&l, &why);
    EXPECT(err == SFU_OK, "a 4-byte variable at +4: %s", why ? why : "");
    l.select.ref = (const char *)&var[1] + 2;
    err = sfu_layout_check(&l, &why);
    EXPECT(ut_refused(err, why, "select.ref:"), "a 4-byte variable at +6: %s (%s)", E(err), why ? why : "");
    end("unit rtos forms: also checked as select, a 4-byte select variable aligned to 4");
}

/* Every layout of the headers as this build configures them (FreeRTOS
 * without an SPx entry: its two layouts there, never matched) passes the
 * check a dump makes before its first walk. */
UT_CASE(test_checked)
{
    const char *why = NULL;
    size_t i;
    int err;

    begin();
    for (i = 0; i < SFU_FREERTOS_NTRAPS; i++) {
        err = sfu_layout_check(&sfu_freertos_traps[i], &why);
        EXPECT(err == SFU_OK, "sfu_freertos_traps[%zu]: %s", i, why ? why : "");
    }
    for (i = 0; i < SFU_THREADX_NTRAPS; i++) {
        err = sfu_layout_check(&sfu_threadx_traps[i], &why);
        EXPECT(err == SFU_OK, "sfu_threadx_traps[%zu]: %s", i, why ? why : "");
    }
    err = sfu_switch_check(&sfu_freertos_switch, &why);
    EXPECT(err == SFU_OK, "sfu_freertos_switch: %s", why ? why : "");
    err = sfu_switch_check(&sfu_threadx_switch, &why);
    EXPECT(err == SFU_OK, "sfu_threadx_switch: %s", why ? why : "");
    end("unit rtos checked: every layout of both headers passes sfu_layout_check and sfu_switch_check");
}

int main(void) { return ut_main("rtos aarch64"); }
