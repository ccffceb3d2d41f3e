/* SPDX-License-Identifier: MIT */
/* sfu_freertos.h - FreeRTOS's 64-bit Arm ports described for sfu, ready
 * made: the task context portSAVE_CONTEXT leaves on a task's stack, the
 * IRQ handler's frame on the IRQ stack, and every task, found through the
 * kernel's own state lists.  Constant data only; nothing of it runs.
 *
 * COVERED
 *   FreeRTOS-Kernel V10.x-V11.x, portable/GCC/ARM_AARCH64 (portASM.S,
 *   port.c, portmacro.h "V11.2.0"), EL3 or EL1 (GUEST), and the Raspberry
 *   Pi 3 (BCM2837) port, which FreeRTOS-Kernel does not ship: the public
 *   one is eggman/FreeRTOS-raspi3's portable/GCC/ARM_CA53_64_RaspberryPi3
 *   (portASM.S, port.c, portmacro.h, on "FreeRTOS Kernel V10.0.1"), from
 *   the Cortex-A53 port ARM_AARCH64 grew out of.  At EL1 only, it has
 *   ARM_AARCH64's task context, pxPortInitialiseStack and
 *   FreeRTOS_SWI_Handler (SVC a yield, anything else FreeRTOS_Abort);
 *   its FreeRTOS_IRQ_Handler saves the same frame and keeps
 *   ullPortInterruptNesting the same way, switching only when the
 *   outermost interrupt ends, but without a GIC it pushes no acknowledge
 *   pair below the frame (SFU_FREERTOS_IRQ_IAR 0), hands
 *   vApplicationIRQHandler the core's local interrupt source register
 *   (CORE0_INT_SRC) in w0 instead, and writes no EOI.  Interrupts nest as
 *   on ARM_AARCH64: its port.c FreeRTOS_Tick_Handler unmasks IRQs once
 *   the tick is cleared (with no priority mask: any IRQ), and an IRQ
 *   taken then pushes its frame on SP_ELx below the tick's.  Both proven
 *   on images (aarch64-virt-freertos, aarch64-virt-freertos-bcm), at
 *   EL1; no image runs ARM_AARCH64's EL3 build, whose frames are the same
 *   (SPSR_EL3's M bits, ELR_EL3) and whose fault syndrome the aarch64
 *   port reads from ESR_EL3 and FAR_EL3 (it reads CurrentEL).  Single
 *   core, no MPU, stack growing down, configUSE_TASK_FPU_SUPPORT 1 or 2
 *   (both task contexts, with and without the FPU registers, are
 *   described and told apart by the context's own flag word, as
 *   portRESTORE_CONTEXT does).
 *
 * USAGE (a few lines; the example image, aarch64-virt-freertos, writes
 * them as shown)
 *   1. FreeRTOSConfig.h:
 *          #define configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H 1
 *          #define configRECORD_STACK_HIGH_ADDRESS 1  (or SFU_FREERTOS_STACK_BYTES)
 *          #define SFU_FREERTOS_IRQ_STACK_LO __irq_stack_start  (your linker
 *          #define SFU_FREERTOS_IRQ_STACK_HI __irq_stack_end     script's names)
 *   2. -I <sfu>/rtos where tasks.c is built too: tasks.c includes
 *      freertos_tasks_c_additions.h at its end, and rtos/ has one (two
 *      lines: SFU_FREERTOS_TASKS_C, this header), so the lists, TCB_t and
 *      every option are visible: no FreeRTOS file changes, nothing made
 *      global that is static.  This defines sfu_freertos_traps[] and
 *      sfu_freertos_tasks, checked against TCB_t and the options at
 *      compile time.  A build with an additions file of its own adds those
 *      two lines to it.
 *   3. FreeRTOS_Abort (portASM.S: "B ." after FreeRTOS_SWI_Handler's
 *      portSAVE_CONTEXT) calls your fault handler instead:
 *          BL freertos_fault        (another name: SFU_FREERTOS_FAULT_HANDLER)
 *      Every synchronous exception comes there, a task's and a handler's
 *      (your vector table sends both to FreeRTOS_SWI_Handler, as
 *      FreeRTOS's BSPs do); without such a function the image does not
 *      link.
 *   4. the file with sfu's implementation (README step 1), its include
 *      and its description line changed (the data is tasks.c's: this file
 *      needs none of the options):
 *          #include "sfu_freertos.h"
 *          static const struct sfu_dump dump = SFU_FREERTOS_DUMP(&state, board_putc);
 *      and sfu_dump_stack(&dump) / sfu_dump_threads(&dump) in your fault
 *      handler and panic path (sfu_dump_check(&dump, NULL) at boot).
 *      With your own fields (step 1's entries, the crash record of the
 *      README), SFU_FREERTOS_FIELDS after them:
 *          static const struct sfu_dump dump = { SFU_DUMP_PUTC_FIELDS(&state, board_putc,
 *              sfu_freertos_traps, SFU_FREERTOS_NTRAPS), .threads = &sfu_freertos_tasks,
 *              SFU_DUMP_ENTRIES(entries), SFU_DUMP_RECORD(rec, sizeof rec) };
 *      A fault's cause (sfu_dump_cause from your fault handler) is read from
 *      ESR_ELx and FAR_ELx (x: the level it runs at) as the handler finds
 *      them: the task context keeps no syndrome.
 *
 * THE KNOBS (define them where tasks.c sees them: FreeRTOSConfig.h)
 *   SFU_FREERTOS_IRQ_IAR       1: FreeRTOS_IRQ_Handler pushes the GIC
 *                              acknowledge pair (IAR, group) below its
 *                              frame before calling vApplicationIRQHandler
 *                              (ARM_AARCH64); 0: it does not (the BCM2837
 *                              port, ARM_CA53_64_RaspberryPi3)
 *                                                            (default 1)
 *   SFU_FREERTOS_IRQ_STACK_LO, SFU_FREERTOS_IRQ_STACK_HI
 *                              the linker symbols bounding the stack
 *                              SP_ELx runs on (the IRQ stack your startup
 *                              code sets): required (no name is common
 *                              to the BSPs, and a wrong stack could not be
 *                              told at boot)
 *   SFU_FREERTOS_FAULT_HANDLER the C function FreeRTOS_Abort calls (3.):
 *                              the task context is then behind
 *                              pxCurrentTCB, a task's or, by its SPSR, a
 *                              handler's         (default freertos_fault)
 *   SFU_FREERTOS_SPX_HANDLER   the C function an overflow entry of your
 *                              vector table calls when SP_EL0 has no room
 *                              for the context (FreeRTOS would push below
 *                              the task's stack): the same context (no FP
 *                              part, 288 bytes, flag 0) pushed on SP_ELx,
 *                              the interrupted SP the frame's end (SPSR
 *                              says SP_ELx) or still in SP_EL0; a weak
 *                              reference: without one, never matched
 *                                              (default freertos_spx_fault)
 *   SFU_FREERTOS_STACK_BYTES   every task's stack size in bytes, when the
 *                              TCB keeps no pxEndOfStack
 *   SFU_FREERTOS_ENTRY         the function your boot stack starts in
 *                              (main): where its traces end, for
 *                              SFU_FREERTOS_DUMP (a weak reference: a
 *                              dump with its own entries needs none; a
 *                              missing one is entry 0, refused at boot)
 *                                                          (default main)
 *
 * WHAT IS REFUSED
 *   At compile time, in tasks.c: SMP (configNUMBER_OF_CORES > 1), MPU
 *   wrappers, a stack growing up, StackType_t not 8 bytes, more than 32
 *   priorities, no stack end (neither configRECORD_STACK_HIGH_ADDRESS nor
 *   SFU_FREERTOS_STACK_BYTES), configUSE_TASK_FPU_SUPPORT not 1 or 2, a
 *   TCB_t whose pxTopOfStack is not first.  Every TCB field the table
 *   reads is taken with offsetof from the TCB_t being compiled, so a
 *   changed TCB layout is followed, never misread.  At boot
 *   (sfu_dump_check): what sfu_dump_check refuses in any description.  At
 *   a walk: a task context whose flag word is neither 0 nor 1 matches no
 *   layout and is refused ("memory read refused", never walked), and so
 *   is a task that is not running whose context says SP_ELx (FreeRTOS
 *   switches only from a task), and an IRQ frame whose nesting pair does
 *   not hold the address of ullPortInterruptNesting.  At link time: no
 *   fault handler (3.).
 *   Not shown: a task on xPendingReadyList (linked by its event item, there
 *   only while the scheduler is suspended).
 *
 * THE STATES SHOWN (the list a task is on, as eTaskGetState says it)
 *   ready (pxReadyTasksLists; the running task is sfu_dump_stack's),
 *   blocked (xDelayedTaskList1 and 2: a delay or a wait with a timeout,
 *   the overflow list included), suspended (xSuspendedTaskList, with
 *   INCLUDE_vTaskSuspend: vTaskSuspend or a wait with portMAX_DELAY),
 *   deleted (xTasksWaitingTermination, with INCLUDE_vTaskDelete: deleted,
 *   by itself or another task, its TCB and stack kept until the idle task
 *   frees them; its trace from the context it last saved).  A never-run
 *   task: one frame, its function, whose return address 0 at its stack's
 *   top ends the trace (pxPortInitialiseStack's X30).
 *
 * Offsets: FreeRTOS-Kernel portable/GCC/ARM_AARCH64/portASM.S
 * (portSAVE_CONTEXT, FreeRTOS_SWI_Handler and FreeRTOS_Abort ("Full ESR
 * is in X0, exception class code is in X1"), FreeRTOS_IRQ_Handler; the
 * development branch of V11.2.0, the same in the V10 files), port.c
 * (pxPortInitialiseStack), include/list.h and tasks.c (TCB_t, the state
 * lists, the freertos_tasks_c_additions.h hook) of V11.2.0; the BCM2837
 * port's portASM.S (its FreeRTOS_IRQ_Handler, portSAVE_CONTEXT) and
 * port.c (pxPortInitialiseStack, FreeRTOS_Tick_Handler) in
 * eggman/FreeRTOS-raspi3, portable/GCC/ARM_CA53_64_RaspberryPi3.
 */
#ifndef SFU_FREERTOS_H
#define SFU_FREERTOS_H

#include "sfu_threads.h"

#ifndef SFU_FREERTOS_IRQ_IAR
#define SFU_FREERTOS_IRQ_IAR 1
#endif
#if SFU_FREERTOS_IRQ_IAR != 0 && SFU_FREERTOS_IRQ_IAR != 1
#error "SFU_FREERTOS_IRQ_IAR must be 0 (the BCM2837 port) or 1 (ARM_AARCH64)"
#endif
#ifndef SFU_FREERTOS_ENTRY
#define SFU_FREERTOS_ENTRY main
#endif
#ifndef SFU_FREERTOS_FAULT_HANDLER
#define SFU_FREERTOS_FAULT_HANDLER freertos_fault
#endif
#ifndef SFU_FREERTOS_SPX_HANDLER
#define SFU_FREERTOS_SPX_HANDLER freertos_spx_fault
#endif

/* The task context portSAVE_CONTEXT pushes (portASM.S; pushes run from
 * high to low, each STP's first register at the lower address): at
 * pxTopOfStack the pair (FPU flag, critical nesting); with the flag, the
 * 32 Q registers (512 bytes); then (ELR, SPSR), (X30, XZR), (X28, X29) ...
 * (X0, X1).  G is where X28 lies: Xn (n even, n <= 28) at G + 16 * (14 -
 * n / 2), X(n + 1) 8 above it, X30 at G - 16. */
#define SFU_FREERTOS_CTX_SIZE(fp) ((fp) ? 800u : 288u)
#define SFU__FR_G(fp) ((fp) ? 560u : 48u)
#define SFU__FR_X(fp, n) SFU_AT(SFU__FR_G(fp) + 16u * (14u - (n) / 2u) + 8u * ((n) & 1u))
#define SFU__FR_REGS(fp)                                                                            \
    {                                                                                               \
        SFU__FR_X(fp, 0), SFU__FR_X(fp, 1), SFU__FR_X(fp, 2), SFU__FR_X(fp, 3), SFU__FR_X(fp, 4),     \
        SFU__FR_X(fp, 5), SFU__FR_X(fp, 6), SFU__FR_X(fp, 7), SFU__FR_X(fp, 8), SFU__FR_X(fp, 9),     \
        SFU__FR_X(fp, 10), SFU__FR_X(fp, 11), SFU__FR_X(fp, 12), SFU__FR_X(fp, 13),                  \
        SFU__FR_X(fp, 14), SFU__FR_X(fp, 15), SFU__FR_X(fp, 16), SFU__FR_X(fp, 17),                  \
        SFU__FR_X(fp, 18), SFU__FR_X(fp, 19), SFU__FR_X(fp, 20), SFU__FR_X(fp, 21),                  \
        SFU__FR_X(fp, 22), SFU__FR_X(fp, 23), SFU__FR_X(fp, 24), SFU__FR_X(fp, 25),                  \
        SFU__FR_X(fp, 26), SFU__FR_X(fp, 27), SFU__FR_X(fp, 28), SFU__FR_X(fp, 29),                  \
        SFU_AT(SFU__FR_G(fp) - 16u)                                                                 \
    }

/* FreeRTOS_IRQ_Handler's frame on SP_ELx at its call into
 * vApplicationIRQHandler: [IAR, group] (ARM_AARCH64 only: not the BCM2837
 * port's), [previous
 * ullPortInterruptNesting, its address], [ELR, SPSR], [X29, X30], [X18,
 * X19], [X16, X17] ... [X0, X1].  X20-X28 are not saved there: the C
 * handler keeps them (AAPCS64 callee-saved). */
#define SFU__FR_I (SFU_FREERTOS_IRQ_IAR ? 16u : 0u)
#define SFU_FREERTOS_IRQ_SIZE (SFU__FR_I + 208u)
#define SFU__FR_IX(n) SFU_AT(SFU__FR_I + 64u + 16u * (8u - (n) / 2u) + 8u * ((n) & 1u))
#define SFU__FR_IRQ_REGS                                                                            \
    {                                                                                               \
        SFU__FR_IX(0), SFU__FR_IX(1), SFU__FR_IX(2), SFU__FR_IX(3), SFU__FR_IX(4), SFU__FR_IX(5),     \
        SFU__FR_IX(6), SFU__FR_IX(7), SFU__FR_IX(8), SFU__FR_IX(9), SFU__FR_IX(10), SFU__FR_IX(11),   \
        SFU__FR_IX(12), SFU__FR_IX(13), SFU__FR_IX(14), SFU__FR_IX(15), SFU__FR_IX(16),              \
        SFU__FR_IX(17), SFU_AT(SFU__FR_I + 48u), SFU_AT(SFU__FR_I + 56u),                            \
        [29] = SFU_AT(SFU__FR_I + 32u), [30] = SFU_AT(SFU__FR_I + 40u)                               \
    }

/* The layouts, in sfu_freertos_traps[]: */
enum {
    SFU_FREERTOS_TRAP_TASK = 0,    /* the task context (no FP part), behind pxCurrentTCB, */
    SFU_FREERTOS_TRAP_TASK_FP = 1, /* with the FPU registers: from a task (SP_EL0) */
    SFU_FREERTOS_TRAP_IRQ = 2,     /* an IRQ taken from a task (SP_EL0) */
    SFU_FREERTOS_TRAP_IRQ_NESTED = 3, /* an IRQ taken from a handler (SP_ELx) */
    SFU_FREERTOS_TRAP_SPX = 4,     /* SFU_FREERTOS_SPX_HANDLER's frame (never matched */
    SFU_FREERTOS_TRAP_SPX_TASK = 5, /* without one): from a handler (SP_ELx), or a task */
    SFU_FREERTOS_TRAP_HANDLER = 6, /* the task context behind pxCurrentTCB of a fault */
    SFU_FREERTOS_TRAP_HANDLER_FP = 7 /* in a handler (SP_ELx), without and with FP */
};
/* The same count whatever FreeRTOSConfig.h says: the dump's file needs
 * none of the options tasks.c compiles the data with. */
#define SFU_FREERTOS_NTRAPS 8

#ifdef __cplusplus
extern "C" {
#endif
/* Defined in tasks.c (freertos_tasks_c_additions.h). */
extern const struct sfu_trap_layout sfu_freertos_traps[SFU_FREERTOS_NTRAPS];
extern const struct sfu_switch_layout sfu_freertos_switch;
extern const struct sfu_dump_table sfu_freertos_tasks;
extern const uint64_t sfu_freertos_entries[1];
#ifdef __cplusplus
}
#endif

/* The whole description of a FreeRTOS system: the dump's state, the
 * output hook (a putc), the RAM of the linker script ([__ram_start,
 * __ram_end), as SFU_DUMP_PUTC), the port's layouts, every task, the boot
 * stack's end (SFU_FREERTOS_ENTRY).  SFU_FREERTOS_FIELDS: the port's
 * layouts and every task only, after a description's own fields (its
 * output, memory, entries; not its traps). */
#define SFU_FREERTOS_FIELDS SFU_DUMP_TRAPS(sfu_freertos_traps, SFU_FREERTOS_NTRAPS), .threads = &sfu_freertos_tasks
#define SFU_FREERTOS_DUMP(state_, putc_fn)                                                          \
    { SFU_DUMP_PUTC_FIELDS(state_, putc_fn, sfu_freertos_traps, SFU_FREERTOS_NTRAPS),               \
      .threads = &sfu_freertos_tasks, SFU_DUMP_ENTRIES(sfu_freertos_entries) }

#endif /* SFU_FREERTOS_H */

/* ======================================================================== */
/* Inside tasks.c: the data, checked against the kernel being compiled. */
#if defined(SFU_FREERTOS_TASKS_C) && !defined(SFU_FREERTOS_TASKS_C_DONE)
#define SFU_FREERTOS_TASKS_C_DONE

#if !defined(configNUMBER_OF_CORES)
#define SFU__FR_CORES 1
#else
#define SFU__FR_CORES configNUMBER_OF_CORES
#endif
#if SFU__FR_CORES != 1
#error "sfu_freertos.h: SMP builds (configNUMBER_OF_CORES > 1) are not covered: pxCurrentTCBs[] per core"
#endif
#if defined(portUSING_MPU_WRAPPERS) && portUSING_MPU_WRAPPERS != 0
#error "sfu_freertos.h: MPU builds are not covered (xMPUSettings moves every TCB field)"
#endif
#if !defined(portSTACK_GROWTH) || portSTACK_GROWTH > 0
#error "sfu_freertos.h: the aarch64 ports' stacks grow down (portSTACK_GROWTH -1)"
#endif
#if !defined(configUSE_TASK_FPU_SUPPORT) || (configUSE_TASK_FPU_SUPPORT != 1 && configUSE_TASK_FPU_SUPPORT != 2)
#error "sfu_freertos.h: configUSE_TASK_FPU_SUPPORT must be 1 or 2 (the ARM_AARCH64 port.c takes only these)"
#endif
#if configMAX_PRIORITIES > 32
#error "sfu_freertos.h: at most 32 priorities (configMAX_PRIORITIES)"
#endif
#if !defined(SFU_FREERTOS_IRQ_STACK_LO) || !defined(SFU_FREERTOS_IRQ_STACK_HI)
#error "sfu_freertos.h: define SFU_FREERTOS_IRQ_STACK_LO and _HI, the linker symbols of SP_ELx's stack"
#endif

_Static_assert(sizeof(StackType_t) == 8, "sfu_freertos.h: StackType_t is not 8 bytes: not an aarch64 port");
_Static_assert(offsetof(TCB_t, pxTopOfStack) == 0, "sfu_freertos.h: TCB_t.pxTopOfStack is not first");
_Static_assert(offsetof(ListItem_t, pxNext) == offsetof(MiniListItem_t, pxNext),
               "sfu_freertos.h: a list's end node and its items keep pxNext at different offsets");

extern char SFU_FREERTOS_IRQ_STACK_LO[], SFU_FREERTOS_IRQ_STACK_HI[];
/* The port's calls into C, by their callee alone: FreeRTOS calls these
 * functions from portASM.S only (vApplicationIRQHandler, the fault
 * handler; vTaskSwitchContext from portASM.S's two paths), so no code
 * range is needed; the instruction before a return address is read
 * through the dump's checked read (the code must lie in its RAM). */
#define SFU__FR_CALLS(c) { .callees = (c), .ncallees = sizeof(c) / sizeof((c)[0]) }
/* The functions the layouts name, by their symbols (whatever prototype
 * your build gives them). */
#define SFU__FR_STR2(x) #x
#define SFU__FR_STR(x) SFU__FR_STR2(x)
extern const char sfu__fr_switch_fn[] __asm__("vTaskSwitchContext");
extern const char sfu__fr_irq_fn[] __asm__("vApplicationIRQHandler");
/* Weak: a build whose dump names its own entries (SFU_DUMP_ENTRIES) needs
 * none; SFU_FREERTOS_DUMP's entry then 0, which sfu_dump_check refuses
 * (not a function's start). */
extern const char sfu__fr_entry_fn[] __asm__(SFU__FR_STR(SFU_FREERTOS_ENTRY)) __attribute__((weak));
/* The fault handler FreeRTOS_Abort calls: required (a link error names
 * it if your build has no such function: faults from both stacks come
 * through it, and the layouts below are its frames). */
extern const char sfu__fr_fault_fn[] __asm__(SFU__FR_STR(SFU_FREERTOS_FAULT_HANDLER));
static const void *const sfu__fr_task_calls[] = { sfu__fr_switch_fn, sfu__fr_fault_fn };
static const void *const sfu__fr_handler_calls[] = { sfu__fr_fault_fn };
static const void *const sfu__fr_irq_calls[] = { sfu__fr_irq_fn };
/* The overflow entry's handler: weak, so a build without one leaves it
 * NULL, a callee that matches no call (sfu_layout.h). */
extern const char sfu__fr_spx_fn[] __asm__(SFU__FR_STR(SFU_FREERTOS_SPX_HANDLER)) __attribute__((weak));
static const void *const sfu__fr_spx_calls[] = { sfu__fr_spx_fn };

/* The task context, at pxTopOfStack of the running task (pxCurrentTCB),
 * behind FreeRTOS_SWI_Handler's calls; its variant by its flag word (base
 * + 0: ullPortTaskHasFPUContext as pushed) and by the saved SPSR's M[0]
 * (SPSel: EL1t 0b0100 / EL3t 0b1100 against EL1h 0b0101 / EL3h 0b1101,
 * ARM ARM "SPSR_EL1", "SPSR_EL3").  portASM.S leaves the vector table to
 * the BSP, and FreeRTOS's Cortex-A53 demo BSPs (the Zynq UltraScale+
 * demo's; the BCM2837 port's demo, FreeRTOS_asm_vector.S, too) send the current EL's synchronous exception from both SP_EL0
 * and SP_ELx to FreeRTOS_SWI_Handler, whose portSAVE_CONTEXT always
 * pushes on SP_EL0 ("MSR SPSEL, #0"; portASM.S V11.2.0), so:
 *   from a task (M[0] 0)     the context lies on the task's own stack,
 *                            the interrupted SP its end;
 *   from a handler (M[0] 1)  the context of the handler lies on the
 *                            interrupted task's stack, and the handler's
 *                            own SP (SP_ELx at the fault) is saved
 *                            nowhere; but "MSR SPSEL, #1" finds SP_ELx as
 *                            the exception left it, so it is the SP of
 *                            the call into the fault handler
 *                            (SFU_TRAP_SP_CALL).
 * Either way the push moved SP_EL0 and left it at the context (on_live):
 * the IRQ frame a handler's fault came in on reads the task's SP in
 * SP_EL0 (SFU_TRAP_SP_LIVE), which the walk then takes to be the
 * context's end, where it was when the interrupt came. 
 * The fault's syndrome is not in it: FreeRTOS_SWI_Handler leaves ESR_EL1
 * and FAR_EL1 in the CPU, read live when the fault handler asks
 * (sfu_dump_cause; the SPx frames the same). */
#define SFU__FR_TASK(fp, spx, calls)                                                               \
    {                                                                                               \
        .call = SFU__FR_CALLS(calls),                                                               \
        .frame = { .from = SFU_TRAP_FRAME_TCB, .ref = (const void *)&pxCurrentTCB, .ref_off = 0,    \
                   .size = SFU_FREERTOS_CTX_SIZE(fp), .align = 16 },                                \
        .sp = { .from = (spx) ? SFU_TRAP_SP_CALL : SFU_TRAP_SP_END, .on_live = 1 },                 \
        .select = { .at = SFU_AT(0), .mask = UINT64_MAX, .value = (fp) },                           \
        .also = { .at = SFU_AT(SFU__FR_G(fp) - 24u), .mask = 1, .value = (spx) },                  \
        .regs = { .pc = SFU_AT(SFU__FR_G(fp) - 32u), .mode = SFU_AT(SFU__FR_G(fp) - 24u),            \
                  .reg = SFU__FR_REGS(fp) },                                                        \
        .fault = { .live = 3 },                                                                     \
    }
/* The IRQ frame, at the SP of the call; the interrupted SP: a task's in
 * SP_EL0 (untouched by the handler), a handler's the frame's end.  Told
 * apart by SPSR.M[0] (SPSel).  And known by its nesting pair: the word
 * above the previous count is the address of ullPortInterruptNesting
 * ("STP X1, X5" in both ports), where a task context holds its critical
 * nesting count.  SPSR alone cannot tell the two apart: without the GIC
 * pair (BCM2837) the frame's ELR and SPSR lie where a task context keeps
 * its own, so a description that looked for the frame in a task's saved
 * context would find one that fits.  With the pair it matches no layout. */
extern const char sfu__fr_nesting[] __asm__("ullPortInterruptNesting");
#define SFU__FR_IRQ(spx)                                                                            \
    {                                                                                               \
        .call = SFU__FR_CALLS(sfu__fr_irq_calls),                                                   \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_FREERTOS_IRQ_SIZE, .align = 16 },         \
        .sp = { .from = (spx) ? SFU_TRAP_SP_END : SFU_TRAP_SP_LIVE },                               \
        .select = { .at = SFU_AT(SFU__FR_I + 24u), .mask = 1, .value = (spx) },                     \
        .regs = { .pc = SFU_AT(SFU__FR_I + 16u), .mode = SFU_AT(SFU__FR_I + 24u), .reg = SFU__FR_IRQ_REGS }, \
        .also = { .at = SFU_AT(SFU__FR_I + 8u), .mask = UINT64_MAX, .value = (uintptr_t)sfu__fr_nesting }, \
    }

/* SFU_FREERTOS_SPX_HANDLER's frame, at the SP of its call: the
 * interrupted SP the frame's end (SPSR.M[0] 1: SP_ELx) or SP_EL0's. */
#define SFU__FR_SPX(spx)                                                                            \
    {                                                                                               \
        .call = SFU__FR_CALLS(sfu__fr_spx_calls),                                                   \
        .frame = { .from = SFU_TRAP_FRAME_SP, .size = SFU_FREERTOS_CTX_SIZE(0), .align = 16 },      \
        .sp = { .from = (spx) ? SFU_TRAP_SP_END : SFU_TRAP_SP_LIVE },                               \
        .select = { .at = SFU_AT(SFU__FR_G(0) - 24u), .mask = 1, .value = (spx) },                  \
        .regs = { .pc = SFU_AT(SFU__FR_G(0) - 32u), .mode = SFU_AT(SFU__FR_G(0) - 24u), .reg = SFU__FR_REGS(0) }, \
        .fault = { .live = 3 },                                                                     \
    }

const struct sfu_trap_layout sfu_freertos_traps[SFU_FREERTOS_NTRAPS] = {
    SFU__FR_TASK(0, 0, sfu__fr_task_calls),
    SFU__FR_TASK(1, 0, sfu__fr_task_calls),
    SFU__FR_IRQ(0),
    SFU__FR_IRQ(1),
    SFU__FR_SPX(1),
    SFU__FR_SPX(0),
    SFU__FR_TASK(0, 1, sfu__fr_handler_calls),
    SFU__FR_TASK(1, 1, sfu__fr_handler_calls),
};

/* A task that is not running: its task context (a yield, a preemption, a
 * never-run task's first context from pxPortInitialiseStack: ELR its
 * function, X30 0, SPSR portINITIAL_PSTATE, EL1t or EL3t), always saved
 * from the task (the tick switches only when the outermost interrupt
 * ends, port.c/portASM.S): the first two layouts, SPSR.M[0] 0.  A context
 * that says SP_ELx matches neither and is refused, never walked. */
const struct sfu_switch_layout sfu_freertos_switch = { .traps = sfu_freertos_traps, .ntraps = 2 };

const uint64_t sfu_freertos_entries[1] = { (uintptr_t)sfu__fr_entry_fn };

/* Every task, by the list it is on: each list's end node (xListEnd)
 * closes the circle its items' xStateListItem.pxNext make (list.h). */
#define SFU__FR_LIST(l, s) { (const void *)&(l).xListEnd, s }
#define SFU__FR_READY(n) SFU__FR_LIST(pxReadyTasksLists[n], "ready"),
static const struct sfu_dump_list sfu__fr_lists[] = {
    SFU__FR_READY(0)
#if configMAX_PRIORITIES > 1
    SFU__FR_READY(1)
#endif
#if configMAX_PRIORITIES > 2
    SFU__FR_READY(2)
#endif
#if configMAX_PRIORITIES > 3
    SFU__FR_READY(3)
#endif
#if configMAX_PRIORITIES > 4
    SFU__FR_READY(4)
#endif
#if configMAX_PRIORITIES > 5
    SFU__FR_READY(5)
#endif
#if configMAX_PRIORITIES > 6
    SFU__FR_READY(6)
#endif
#if configMAX_PRIORITIES > 7
    SFU__FR_READY(7)
#endif
#if configMAX_PRIORITIES > 8
    SFU__FR_READY(8) SFU__FR_READY(9) SFU__FR_READY(10) SFU__FR_READY(11)
    SFU__FR_READY(12) SFU__FR_READY(13) SFU__FR_READY(14) SFU__FR_READY(15)
#if configMAX_PRIORITIES > 16
    SFU__FR_READY(16) SFU__FR_READY(17) SFU__FR_READY(18) SFU__FR_READY(19)
    SFU__FR_READY(20) SFU__FR_READY(21) SFU__FR_READY(22) SFU__FR_READY(23)
    SFU__FR_READY(24) SFU__FR_READY(25) SFU__FR_READY(26) SFU__FR_READY(27)
    SFU__FR_READY(28) SFU__FR_READY(29) SFU__FR_READY(30) SFU__FR_READY(31)
#endif
#endif
    SFU__FR_LIST(xDelayedTaskList1, "blocked"),
    SFU__FR_LIST(xDelayedTaskList2, "blocked"),
#if defined(INCLUDE_vTaskSuspend) && INCLUDE_vTaskSuspend == 1
    SFU__FR_LIST(xSuspendedTaskList, "suspended"),
#endif
#if defined(INCLUDE_vTaskDelete) && INCLUDE_vTaskDelete == 1
    SFU__FR_LIST(xTasksWaitingTermination, "deleted"),
#endif
};
#if configMAX_PRIORITIES > 8 && configMAX_PRIORITIES != 16 && configMAX_PRIORITIES != 32
#error "sfu_freertos.h: configMAX_PRIORITIES above 8 must be 16 or 32 (the ready lists are listed by hand)"
#endif

static const sfu_stack sfu__fr_shared[1] = { { (uintptr_t)SFU_FREERTOS_IRQ_STACK_LO,
                                               (uintptr_t)SFU_FREERTOS_IRQ_STACK_HI } };

const struct sfu_dump_table sfu_freertos_tasks = {
    SFU_DUMP_LISTS(TCB_t, xStateListItem, xStateListItem.pxNext, sfu__fr_lists),
    SFU_DUMP_SAVED(TCB_t, pxTopOfStack, &sfu_freertos_switch),
    SFU_DUMP_NAME_IN(TCB_t, pcTaskName),
#if defined(configUSE_TRACE_FACILITY) && configUSE_TRACE_FACILITY == 1
    SFU_DUMP_ID(TCB_t, uxTCBNumber),
#endif
#if defined(configRECORD_STACK_HIGH_ADDRESS) && configRECORD_STACK_HIGH_ADDRESS == 1
    SFU_DUMP_STACKS(TCB_t, pxStack, pxEndOfStack),
#elif defined(SFU_FREERTOS_STACK_BYTES)
    .stacks = { SFU_DUMP_STACK_BASE(TCB_t, pxStack, SFU_FREERTOS_STACK_BYTES) },
#else
#error "sfu_freertos.h: a task's stack end: configRECORD_STACK_HIGH_ADDRESS 1, or SFU_FREERTOS_STACK_BYTES"
#endif
    .shared = sfu__fr_shared,
    .nshared = 1,
    .current = (const void *)&pxCurrentTCB,
};

#endif /* SFU_FREERTOS_TASKS_C */
