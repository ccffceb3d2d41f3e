/* SPDX-License-Identifier: MIT */
/*
 * FreeRTOSConfig.h -- the options of the example's FreeRTOS-shaped kernel
 * (freertos.c), under FreeRTOS's names.  The last block is what a
 * FreeRTOS user adds for sfu.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configMAX_PRIORITIES 4
#define configMAX_TASK_NAME_LEN 16
#define configUSE_TASK_FPU_SUPPORT 1
#define configUSE_TRACE_FACILITY 1
#define configCHECK_FOR_STACK_OVERFLOW 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelete 1
#define configNUMBER_OF_CORES 1

/* sfu (rtos/sfu_freertos.h): tasks.c includes freertos_tasks_c_additions.h
 * (sfu's, rtos/), the TCB keeps its stack's end, the IRQ stack's bounds. */
#define configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H 1
#define configRECORD_STACK_HIGH_ADDRESS 1
#define SFU_FREERTOS_IRQ_STACK_LO __exc_stack_start
#define SFU_FREERTOS_IRQ_STACK_HI __exc_stack_end

#endif
