/* SPDX-License-Identifier: MIT */
/* freertos_tasks_c_additions.h - sfu's FreeRTOS description, compiled
 * inside tasks.c.  FreeRTOS's tasks.c ends with
 *     #if ( configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H == 1 )
 *         #include "freertos_tasks_c_additions.h"
 * (tasks.c, V10.x-V11.x): with configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H 1
 * in FreeRTOSConfig.h and -I <sfu>/rtos, this is that file, and the task
 * lists, TCB_t and every option are visible to sfu_freertos.h (USAGE).
 * A build that has an additions file of its own (found first) adds these
 * two lines to it; without them sfu_freertos_traps and sfu_freertos_tasks
 * are undefined and the image does not link. */
#define SFU_FREERTOS_TASKS_C 1
#include "sfu_freertos.h"
